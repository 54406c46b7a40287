"""The report that answers in words: the summary against the tables (read from the page), the forest
plot, the SPRT, faults and match list sections, the fixes, and the page at 1280 and 390 px in Chromium."""

from __future__ import annotations

import json
import re
import shutil

import polars as pl
import pytest

from test_report import _fault_one_match, artifacts, browser, open_page  # noqa: F401 (fixture)
from results.report import CSP, SECTIONS, write_report
from results.runs import open_runs

READ_PAGE = """
const rows = sel => [...document.querySelectorAll(sel)].map(tr => [...tr.cells].map(td => td.innerText.trim()));
const board = rows('#leaderboard tbody tr'), pairs = rows('#pairwise tbody tr');
const compared = rows('#balance h3 + p + div.forest + div.scroll tbody tr, #balance h3 + p + div.scroll tbody tr');
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
REAL = re.compile(r"^Real difference in (?P<metric>.+?): (?P<b>.+?) minus (?P<a>.+?) is (?P<diff>\S+) \(95% interval "
                  r"(?P<lo>\S+) \u2013 (?P<hi>\S+), adjusted p (?P<p>\S+)\)")


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


def check_variant_sentences(page: dict) -> None:
    """Each 'real difference' sentence matches its row of the comparison table; the count of
    comparisons said to show nothing matches the table."""
    table = page["compared"]
    assert table, "no comparison rows read from the page"
    significant = [r for r in table if r[11] == "yes"]
    real = [REAL.match(t) for k, t in page["said"] if k == "variants" and t.startswith("Real difference")]
    assert len(real) == len(significant)
    for m in real:
        row = next(r for r in table if (r[0], r[1], r[2]) == (m["a"], m["b"], m["metric"]))
        assert row[7] == m["diff"] and row[8] == f"{m['lo']} \u2013 {m['hi']}" and row[10] == m["p"]
    if not significant:
        first = [t for k, t in page["said"] if k == "variants"][0]
        assert first.startswith(f"None of the {len(table)} variant comparisons")


@pytest.mark.parametrize("width", [1280, 390])
def test_the_summary_matches_the_tables_at_both_widths(browser, tmp_path, tournament_run, sweep_run,  # noqa: F811
                                                       width):
    browser.resize(width, 900)
    for run in (tournament_run, sweep_run):
        target = write_report([run], tmp_path / f"{run.name}-{width}.html")
        page = open_page(browser, target)
        assert page["console"] == [] and page["resources"] == [] and page["csp"] == CSP
        read = browser.run(READ_PAGE, list(SECTIONS))
        assert all(read["visible"]), dict(zip(SECTIONS, read["visible"]))
        assert read["overflow"] <= 0, f"the page is {read['overflow']} px wider than the screen at {width}"
        check_bot_sentences(read)
        if run == sweep_run:
            assert read["forest"]
            check_variant_sentences(read)
            assert any(k == "warning" and "deal sets" in t for k, t in read["said"])  # 6 deal sets: too few
        shutil.copyfile(target, artifacts() / f"words-{run.name}-{width}.html")
        browser.screenshot(artifacts() / f"words-{run.name}-{width}.png")
        browser.resize(width, 900)
    assert browser.console() == []


def test_match_list_filters_by_bot_end_and_fault(browser, tmp_path, tournament_run):  # noqa: F811
    run = tmp_path / "rr"
    shutil.copytree(tournament_run, run)
    faulted = _fault_one_match(run)
    target = write_report([run], tmp_path / "r.html")
    open_page(browser, target)
    count = "return [...document.querySelectorAll('#match-list tbody tr')].filter(r => r.offsetParent !== null).length;"
    total = open_runs([run]).matches.select(pl.col("match_id").n_unique()).collect().item()
    assert browser.run(count) == total
    first = browser.run("return document.querySelector('#match-list tbody tr').cells[1].innerText;")
    assert first == faulted  # faulted matches come first
    command = browser.run("return document.querySelector('#match-list tbody tr').cells[6].innerText;")
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


def test_the_sprt_section_shows_the_runs_test(browser, tmp_path, tournament_run):  # noqa: F811
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

    rows = [{"label": f"B{i} vs A", "metric": m, "diff": 0.01 * i, "lo": -0.02, "hi": 0.05, "significant": i == 1}
            for m in ("void rate", "round length") for i in range(3)]
    svg = plots.forest(rows)
    assert all(svg.count(f">B{i} vs A</text>") == 2 for i in range(3))
    assert ">void rate</text>" in svg and ">round length</text>" in svg


def test_real_differences_are_said_with_the_tables_numbers():
    """A document with real and quiet differences: each sentence's numbers are its table row's."""
    import html as html_lib

    from results import words
    from results.report import comparison_table, esc

    doc = {"variants": [{"variant": "a1", "label": "threshold=51"}, {"variant": "b2", "label": "threshold=71"}],
           "comparisons": [
               {"a": "a1", "b": "b2", "metric": "void", "family": "primary", "n": 30, "mean_a": 0.1, "mean_b": 0.2,
                "diff": 0.1, "lo": 0.05, "hi": 0.15, "p": 0.001, "p_adj": 0.003, "significant": True,
                "equivalent": None},
               {"a": "a1", "b": "b2", "metric": "turns", "family": "primary", "n": 30, "mean_a": 20.0, "mean_b": 20.5,
                "diff": 0.5, "lo": -1.0, "hi": 2.0, "p": 0.4, "p_adj": 0.8, "significant": False,
                "equivalent": None}]}
    said = words.variant_sentences(doc)
    assert [s.text.split(":")[0] for s in said] == ["Real difference in void", "No real difference shown in 1 primary "
                                                                               "comparison(s) after adjustment"]
    doc["comparisons"][1].update(lo=0.2, hi=0.8)  # leaves out 0, yet not significant after adjustment: a lead
    lead = [s.text for s in words.variant_sentences(doc) if "a lead to test again" in s.text]
    assert lead == ["turns (threshold=71 minus threshold=51): 0.500 (95% interval 0.200 \u2013 0.800, adjusted p "
                    "0.8000). Its interval leaves out 0, but not after the adjustment for the comparisons made: a lead "
                    "to test again, not a verdict."]
    doc["comparisons"][1].update(lo=-1.0, hi=2.0)
    page = "".join(esc(p) for p in comparison_table(doc))
    cells = [html_lib.unescape(c) for c in re.findall(r"<td[^>]*>([^<]*)</td>", page)]
    row = cells[:13]
    m = REAL.match(said[0].text)
    assert (m["a"], m["b"], m["metric"]) == tuple(row[:3])
    assert row[7] == m["diff"] and row[8] == f"{m['lo']} \u2013 {m['hi']}" and row[10] == m["p"] and row[11] == "yes"


def test_the_report_links_viewers_of_the_faulted_and_first_matches(browser, tmp_path, tournament_run):  # noqa: F811
    from typer.testing import CliRunner

    from harness.cli.main import app

    run = tmp_path / "rr"
    shutil.copytree(tournament_run, run)
    faulted = _fault_one_match(run)
    target = tmp_path / "report.html"
    done = CliRunner().invoke(app, ["report", str(run), "--html", str(target)])
    assert done.exit_code == 0, done.output
    written = sorted(p.name for p in (tmp_path / "report-matches").iterdir())
    assert len(written) == 4 and written[0] == f"rr-{faulted}.html"
    open_page(browser, target)
    links = browser.run("return [...document.querySelectorAll('#match-list a.viewer')]"
                        ".map(a => [a.closest('tr').cells[1].innerText, a.getAttribute('href')]);")
    assert links[0] == [faulted, f"report-matches/rr-{faulted}.html"] and len(links) == 4
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
