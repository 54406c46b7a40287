"""The report that answers in words: the summary against the tables (read from the page), the forest
plot, the SPRT, faults and match list sections, the fixes, and the page at 1280 and 390 px in Chromium."""

from __future__ import annotations

import json
import re
import shutil

import polars as pl
import pytest

from test_report import _fault_one_match, artifacts, open_page
from results.report import CSP, SECTIONS, write_report
from results.runs import open_runs

READ_PAGE = """
document.querySelectorAll('details').forEach(d => { d.open = true; });
const rows = sel => [...document.querySelectorAll(sel)].map(tr => [...tr.cells].map(td => td.innerText.trim()));
const board = rows('#leaderboard tbody tr'), pairs = rows('#pairwise tbody tr');
const compared = rows('#balance details table tbody tr').filter(r => r.length === 11);
const said = [...document.querySelectorAll('#summary li')].map(li => [li.dataset.kind, li.innerText]);
const doc = document.documentElement;
const visible = id => { const el = document.getElementById(id); if (!el) return false;
  const b = el.getBoundingClientRect(); return b.width > 0 && b.height > 0 && getComputedStyle(el).visibility === 'visible'; };
return {board, pairs, compared, said, overflow: doc.scrollWidth - doc.clientWidth, visible: arguments[0].map(visible),
        forest: !!document.querySelector('#balance .forest svg'), sprt: visible('sprt'),
        resources: performance.getEntriesByType('resource').length};
"""

SENTENCE = re.compile(r"^(?P<a>.+?) (?P<verb>is stronger than|is probably stronger than|cannot be told apart from) "
                      r"(?P<b>.+?): (?P<gap>[\d,.]+) Elo apart \((?P<ra>[\d,.]+) against (?P<rb>[\d,.]+)\), "
                      r"likelihood of superiority (?P<los>[\d.]+%|\u2013)\.$")
VERDICT_WORDS = {"shown": "At ", "no change shown": "no change shown", "the same within the margin": "is the same at",
                 "a lead: check on new deals": "may differ", "no spread to test": "in every deal set"}


def check_bot_sentences(page: dict) -> int:
    """Every 'A ... B' sentence quotes the leaderboard's ratings and the pairwise table's likelihood."""
    ratings = {row[1]: row[2] for row in page["board"]}
    los = {(row[0], row[1]): row[3] for row in page["pairs"]}
    checked = 0
    for kind, text in page["said"]:
        found = SENTENCE.match(text) if kind == "bots" else None
        if not found:
            continue
        a, b = found["a"], found["b"]
        assert ratings[a] == found["ra"] and ratings[b] == found["rb"], (text, ratings)
        gap = float(found["ra"].replace(",", "")) - float(found["rb"].replace(",", ""))
        assert abs(gap - float(found["gap"].replace(",", ""))) <= 0.11
        share = los.get((a, b))
        if share is None:  # given the other way round in the table
            share = f"{100 - float(los[(b, a)].rstrip('%')):.1f}%"
        assert abs(float(share.rstrip("%")) - float(found["los"].rstrip("%"))) <= 0.11, (text, share)
        p = float(found["los"].rstrip("%")) / 100
        expected = "is stronger than" if p >= 0.95 else "is probably stronger than" if p >= 0.8 else "cannot be told"
        assert found["verb"].startswith(expected)
        checked += 1
    assert checked == len(ratings) - 1, page["said"]  # one sentence per neighbouring pair
    return checked


def check_variant_sentences(page: dict) -> int:
    """One sentence per compared quantity (none for the same figure under another name), quoting its
    table row's difference and interval, with the row's verdict; the headline repeats details."""
    table = page["compared"]
    assert table, "no comparison rows read from the page"
    said = [t for k, t in page["said"] if k == "variants"]
    checked = 0
    for a, b, quantity, family, n, level_a, level_b, difference, p, p_adj, verdict in table:
        mine = [t for t in said if a in t and b in t and quantity.lower() in t.lower()]
        if verdict.startswith("the same figure as"):
            assert not mine, (quantity, mine)
            continue
        assert len(mine) == 1, (quantity, mine)
        text = mine[0]
        assert VERDICT_WORDS[verdict] in text, (verdict, text)
        assert (difference.split(" [")[0] in text) if verdict == "no spread to test" else (difference in text), \
            (difference, text)
        assert "Real difference" not in text and "not a verdict" not in text
        checked += 1
    for k, t in page["said"]:
        if k == "headline" and " Elo " not in t and "strongest" not in t.lower():
            assert t in said, t
    return checked


@pytest.mark.parametrize("width", [1280, 390])
def test_the_summary_matches_the_tables_at_both_widths(browser, report_of, tournament_run, sweep_run, width):
    browser.resize(width, 900)
    for run in (tournament_run, sweep_run):
        target = report_of(run)
        page = open_page(browser, target)
        assert page["console"] == [] and page["resources"] == [] and page["csp"] == CSP
        read = browser.run(READ_PAGE, list(SECTIONS))
        assert all(read["visible"]), dict(zip(SECTIONS, read["visible"]))
        assert read["overflow"] <= 0, f"the page is {read['overflow']} px wider than the screen at {width}"
        if run == tournament_run:  # one scale: one leaderboard, one pairwise table
            check_bot_sentences(read)
        if run == sweep_run:
            assert read["forest"]
            assert check_variant_sentences(read) >= 4
            assert any(k == "warning" and "deal sets" in t for k, t in read["said"])  # 6 deal sets: too few
            assert 3 <= sum(k == "headline" for k, _ in read["said"]) <= 5
        shutil.copyfile(target, artifacts() / f"words-{run.name}-{width}.html")
        browser.screenshot(artifacts() / f"words-{run.name}-{width}.png")
        browser.resize(width, 900)
    assert browser.console() == []


def test_match_list_filters_by_bot_end_and_fault(browser, tmp_path, tournament_run):
    run = tmp_path / "rr"
    shutil.copytree(tournament_run, run)
    faulted = _fault_one_match(run)
    target = write_report([run], tmp_path / "r.html")
    open_page(browser, target, unfold=False)
    count = "return [...document.querySelectorAll('#match-list tbody tr')].filter(r => r.checkVisibility()).length;"
    assert browser.run(count) == 0  # the list is folded
    browser.click("#matches details summary")
    total = open_runs([run]).matches.select(pl.col("match_id").n_unique()).collect().item()
    assert browser.run(count) == total
    first = browser.run("return document.querySelector('#match-list tbody tr').cells[1].innerText;")
    assert first == faulted  # faulted matches come first
    command = browser.run("return document.querySelector('#match-list tbody tr').cells[11].innerText;")
    assert command == f"ellibir replay {run} {faulted} --html {faulted}.html"
    browser.run("document.querySelector('label[for=ff-f1]').click();")
    assert browser.run(count) == 1
    browser.run("document.querySelector('label[for=ff-all]').click();")
    label = browser.run("return document.querySelector('label[for=fb-b0]').innerText;")
    browser.run("document.querySelector('label[for=fb-b0]').click();")
    with_bot = open_runs([run]).matches.filter(pl.col("bot") == label).select(pl.col("match_id").n_unique())
    assert browser.run(count) == with_bot.collect().item() < total or total == with_bot.collect().item()
    text = browser.run("return document.getElementById('faults').innerText;")
    assert "timeout" in text and "too slow" in text and faulted in text
    assert browser.console() == []


def test_matches_played_counts_a_renamed_run_folder(tmp_path, tournament_run):
    run = tmp_path / "renamed-folder"
    shutil.copytree(tournament_run, run)
    plan = json.loads((run / "run.json").read_text())
    assert plan["name"] != run.name
    text = write_report([run], tmp_path / "r.html").read_text()
    played = open_runs([run]).matches.select(pl.col("match_id").n_unique()).collect().item()
    assert played > 0 and f"<td>matches played</td><td>{played}</td>" in text


def test_two_faulty_seats_share_the_last_places_not_a_negative_score(tmp_path, tournament_run):
    import pyarrow.parquet as pq

    from results.ratings import ratings, seat_rows

    run = tmp_path / "rr"
    shutil.copytree(tournament_run, run)
    part = sorted((run / "matches").glob("*.parquet"))[0]
    table = pq.read_table(part)
    frame = pl.from_arrow(table)
    match_id = sorted(frame["match_id"].unique().to_list())[0]
    here = (pl.col("match_id") == match_id) & pl.col("seat").is_in([2, 3])
    frame = frame.with_columns(
        *(pl.when(here).then(pl.lit(v)).otherwise(pl.col(k)).alias(k)
          for k, v in {"faults": 1, "termination": "crash", "rank": 4}.items()))
    pq.write_table(frame.to_arrow().cast(table.schema), part)
    runs = open_runs([run])
    rows = seat_rows(runs).filter(pl.col("match_id") == match_id).sort("seat")
    assert rows["share"].min() >= 0
    assert rows.filter(pl.col("seat") >= 2)["share"].to_list() == [0.5 / 3, 0.5 / 3]  # a tie for the last place
    assert all(b["score_share"] >= 0 for b in ratings(runs, include_incomplete=True)["bots"])


def test_the_sprt_section_shows_the_runs_test(browser, tmp_path, tournament_run):
    from results.sprt import sprt

    run = tmp_path / "gauntlet"
    shutil.copytree(tournament_run, run)
    plan = json.loads((run / "run.json").read_text())
    plan["sprt"] = {"bot": "builtin:greedy", "vs": ["builtin:random"], "elo0": 0.0, "elo1": 50.0,
                    "alpha": 0.05, "beta": 0.05}
    (run / "run.json").write_text(json.dumps(plan))
    expected = sprt(open_runs([run]), "builtin:greedy", ["builtin:random"], elo0=0.0, elo1=50.0)
    target = write_report([run], tmp_path / "r.html")
    open_page(browser, target)
    text = browser.run("return document.getElementById('sprt').innerText;")
    assert f"{expected['llr']:,.3f}" in text and str(expected["deal_sets"]) in text
    assert "builtin:greedy against builtin:random" in text
    assert browser.console() == []
    plain = write_report([tournament_run], tmp_path / "plain.html").read_text()
    assert 'id="sprt"' not in plain  # no test, no section


def test_variant_colours_are_the_same_in_every_plot_and_seat_effects_use_none():
    from results import plots

    variants = [{"label": "v1", "colour": "#abcdef", "positions": [{"position": 1, "rate": 0.3, "lo": 0.2, "hi": 0.4}],
                 "turns": {"hist": [[3, 2], [4, 1]]}}]
    assert "#abcdef" in plots.by_position(variants) and "#abcdef" in plots.turn_lengths(variants)
    seats = plots.seat_effects([{"players": 4, "seat": s, "effect": 10.0 * s, "lo": -5.0, "hi": 5.0 + 10 * s}
                                for s in range(4)])
    assert not any(c in seats for c in plots.COLOURS)


def test_forest_plot_has_one_row_per_comparison_and_metric():
    from results import plots

    rows = [{"label": f"B{i} vs A", "panel": m, "diff": 0.01 * i, "lo": -0.02, "hi": 0.05, "significant": i == 1}
            for m in ("void rate", "round length") for i in range(3)]
    svg = plots.forest(rows)
    assert all(svg.count(f">B{i} vs A</text>") == 2 for i in range(3))
    assert ">void rate</text>" in svg and ">round length</text>" in svg


def comparison(metric, family="primary", **values):
    row = {"a": "a1", "b": "b2", "metric": metric, "family": family, "n": 30, "mean_a": 0.1, "mean_b": 0.2,
           "diff": 0.1, "lo": 0.05, "hi": 0.15, "p": 0.001, "p_adj": 0.003, "significant": True, "equivalent": None,
           "same_as": None, "margin": None}
    return {**row, **values}


DOC = {"variants": [{"variant": "a1", "label": "threshold=51", "positions": [{}] * 4},
                    {"variant": "b2", "label": "threshold=101"}]}


def test_one_verdict_per_quantity_and_never_a_real_difference_that_is_no_verdict():
    """A document with every kind of row: the sentence of each is its table row's, in plain words and
    points; the exploratory one is a lead, never a difference; the duplicate is said once."""
    from results import words
    from results.report_balance import comparison_rows

    doc = {**DOC, "comparisons": [
        comparison("void", mean_a=0.01, mean_b=0.37, diff=0.36, lo=0.32, hi=0.40),
        comparison("exhausted", "exploratory", mean_a=0.01, mean_b=0.37, diff=0.36, lo=0.32, hi=0.40,
                   p_adj=None, significant=None, same_as="void"),
        comparison("win_p1", mean_a=0.27, mean_b=0.28, diff=0.01, lo=-0.03, hi=0.06, p=0.6, p_adj=1,
                   significant=False),
        comparison("match_turns", "match", mean_a=154.0, mean_b=431.0, diff=277.0, lo=246.0, hi=308.0),
        comparison("finish_G2", "exploratory", diff=0.05, lo=0.01, hi=0.09, p_adj=0.04)]}
    said = {s.figures["metric"]: s.text for s in words.variant_sentences(doc)}
    assert "exhausted" not in said  # the same figure as void: said once
    assert said["void"] == ("At threshold=101, the share of void rounds is 37.0%, against 1.0% at threshold=51: "
                            "+36.0 points [+32.0, +40.0].")
    assert said["match_turns"] == "At threshold=101, a match takes 2.80x the turns of threshold=51 [2.60x, 3.00x] " \
                                  "(431 against 154)."
    assert said["win_p1"].startswith("The first player's share of the rounds with a winner: no change shown from "
                                     "threshold=51 to threshold=101 (+1.0 points [-3.0, +6.0]); any change lies within "
                                     "±6.0 points; ±2 points would take about ")
    assert said["finish_G2"].startswith("The share of won rounds won by finish G2 may differ")
    assert not any("Real difference" in t or "not a verdict" in t or "…" in t for t in said.values())
    rows = {r[2]: r for r in comparison_rows(doc)}
    assert rows["the share of void rounds"][7] == "+36.0 points [+32.0, +40.0]" and rows["the share of void rounds"][10] == "shown"
    assert rows["the share of rounds in which the stock ran out"][10] == "the same figure as the share of void rounds"
    assert rows["the share of won rounds won by finish G2"][10] == "a lead: check on new deals"
    top = [s.text for s in words.headline(None, doc)]
    assert top == [said["match_turns"], said["void"], said["win_p1"]]  # shown by size, then the first player


def test_the_headline_of_a_single_variant_states_its_figures():
    from results import words

    doc = {"variants": [{"variant": "v", "label": "all", "positions": [
        {"position": 1, "rate": 0.31, "lo": 0.27, "hi": 0.35}, {"position": 2, "rate": 0.69, "lo": 0.65, "hi": 0.73}],
        "void_rate": {"rate": 0.05, "lo": 0.03, "hi": 0.08},
        "match": {"deals": {"mean": 3.2, "lo": 3.0, "hi": 3.4}, "turns": {"mean": 140.0, "lo": 130.0, "hi": 150.0}}}],
        "comparisons": []}
    top = [s.text for s in words.headline(None, doc)]
    assert top == ["The first player wins 31.0% of the rounds with a winner [27.0%, 35.0%]; an even share would be "
                   "50.0%.", "5.0% of the rounds are void [3.0%, 8.0%].",
                   "A match takes 3.2 deals [3.0, 3.4] and 140 turns [130, 150]."]


def test_bots_too_close_for_a_skill_question_are_said_to_be():
    from results import words

    ratings = {"bots": [{"bot": "a", "rating": 1508.0}, {"bot": "b", "rating": 1491.0}], "pairwise": []}
    guard = words.bot_guard(ratings, {**DOC, "comparisons": [comparison("void")]})
    assert [s.text for s in guard] == ["These bots are 17 Elo apart (a against b): a question about skill (does a "
                                       "variant reward the better player?) cannot be answered with them."]
    far = {"bots": [{"bot": "a", "rating": 1600.0}, {"bot": "b", "rating": 1491.0}]}
    assert words.bot_guard(far, {**DOC, "comparisons": [comparison("void")]}) == []
    assert words.bot_guard(ratings, {**DOC, "comparisons": []}) == []  # no variants compared: no such question


def test_the_report_links_a_viewer_for_every_listed_match(browser, tmp_path, tournament_run):
    """Any listed match is one click from its viewer (issue 27): the faulted one first, then every other."""
    from typer.testing import CliRunner

    from harness.cli.main import app

    run = tmp_path / "rr"
    shutil.copytree(tournament_run, run)
    faulted = _fault_one_match(run)
    target = tmp_path / "report.html"
    done = CliRunner().invoke(app, ["report", str(run), "--html", str(target)])
    assert done.exit_code == 0, done.output
    written = sorted(p.name for p in (tmp_path / "report-matches").iterdir())
    planned = json.loads((run / "run.json").read_text())["matches"]
    assert written == sorted(f"rr-{m['id']}.html" for m in planned)  # all 72, none listed without one
    open_page(browser, target)
    links = browser.run("return [...document.querySelectorAll('#match-list a.viewer')]"
                        ".map(a => [a.closest('tr').cells[1].innerText, a.getAttribute('href')]);")
    assert links[0] == [faulted, f"report-matches/rr-{faulted}.html"] and len(links) == len(planned)
    assert browser.run("return document.querySelectorAll('#match-list tr.m code:not(.id)').length;") == 0
    browser.click("#match-list a.viewer")
    assert browser.run("return document.title;") == f"rr \u00b7 match {faulted}"
    assert browser.run("return document.querySelectorAll('#hands .seat').length;") == 4
    assert browser.console() == []


def test_refusals_per_bot_count_every_refused_event_of_the_logs(tmp_path, parts_run):
    """Counted from the kept logs, checked against each match's log read on its own (RunStore.read_log);
    the refusals are written into the log part of the run's first task (``parts_run``: not compacted)."""
    from collections import Counter

    from results.report_parts import refusal_rows
    from results.store import RunStore

    import gzip

    run = tmp_path / "rr"
    shutil.copytree(parts_run, run)
    part = sorted((run / "logs").glob("*.jsonl.gz"))[0]  # refusals put into the first match's log
    with gzip.open(part, "rb") as f:
        head = json.loads(f.readline())
        rest = f.read()
    refused = [{"e": "refused", "seat": s, "rule": r, "reason": "test", "penalty": 0, "to": s}
               for s, r in ((1, "O4"), (1, "O4"), (2, "D6"))]
    extra = b"".join(json.dumps(e).encode() + b"\n" for e in refused)
    with gzip.open(part, "wb") as f:
        f.write(json.dumps({**head, "lines": head["lines"] + len(refused)}).encode() + b"\n" + extra + rest)
    tournament_run = run
    runs = open_runs([tournament_run])
    seats = runs.matches.select("match_id", "seat", "bot").collect()
    expected = Counter()
    for match_id in seats["match_id"].unique().to_list():
        for line in RunStore(tournament_run).read_log(match_id).splitlines():
            e = json.loads(line)
            if e["e"] == "refused":
                bot = seats.filter((pl.col("match_id") == match_id) & (pl.col("seat") == e["seat"]))["bot"].item()
                expected[(bot, e["rule"])] += 1
    rows, read = refusal_rows(runs)
    assert sum(expected.values()) >= 3 and read == seats["match_id"].n_unique()
    assert {(r["bot"], r["rule"]): r["refusals"] for r in rows} == dict(expected)
    text = write_report([tournament_run], tmp_path / "r.html").read_text()
    assert "<h3>Refusals per bot</h3>" in text
    for (bot, rule), n in expected.items():
        assert f"<td>{bot}</td><td>{rule}</td><td class=n>{n}</td>" in text
