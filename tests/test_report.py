"""``ellibir report``: one self-contained HTML page, opened in headless Debian Chromium.

The browser tests need ``chromium`` and ``chromium-driver`` (``make test`` installs them). Without
them the tests are skipped on a developer's machine, and fail on CI (``CI`` set). Screenshots and
the reports go to ``$ELLIBIR_ARTIFACTS`` or ``tests/artifacts/`` (git-ignored).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from browser import Browser
from conftest import ROOT, run_cli
from harness.cli.main import app
from results.report import CSP, SECTIONS, facts, render, write_report
from results.runs import open_runs

MAX_BYTES = 600_000
FIGURES = {"leaderboard", "pairwise", "seats", "round-length"}  # sections that show a plot on a real run

CHECK_PAGE = """
const ids = arguments[0];
const out = {missing: [], hidden: [], flat: [], badImages: [], badSvgs: [], figures: [], text: {}};
for (const id of ids) {
  const el = document.getElementById(id);
  if (!el || el.tagName !== 'SECTION') { out.missing.push(id); continue; }
  const box = el.getBoundingClientRect(), style = getComputedStyle(el);
  if (style.display === 'none' || style.visibility !== 'visible' || el.offsetParent === null) out.hidden.push(id);
  if (box.height <= 0 || box.width <= 0) out.flat.push(id);
  if (el.querySelector('svg')) out.figures.push(id);
  out.text[id] = el.innerText;
}
for (const img of document.images) {
  if (!img.complete || img.naturalWidth === 0 || img.naturalHeight === 0) out.badImages.push(img.src.slice(0, 60));
}
const svgs = [...document.querySelectorAll('svg')].filter(s => !s.parentElement.closest('svg'));
for (const s of svgs) {
  const box = s.getBoundingClientRect(), drawn = s.getBBox();
  if (box.width === 0 || box.height === 0 || drawn.width === 0 || drawn.height === 0) out.badSvgs.push(s.id || '?');
}
out.svgs = svgs.length;
out.resources = performance.getEntriesByType('resource').map(e => e.name);
out.scripts = document.scripts.length;
out.handlers = document.querySelectorAll('[onerror],[onload],[onclick]').length;
const csp = document.querySelector('meta[http-equiv="Content-Security-Policy"]');
out.csp = csp ? csp.content : null;
out.title = document.title;
return out;
"""


def artifacts() -> Path:
    given = os.environ.get("ELLIBIR_ARTIFACTS")
    folder = Path(given) if given else ROOT / "tests" / "artifacts"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def cli(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def open_page(browser: Browser, report: Path, unfold: bool = True) -> dict:
    """The page's checks (CHECK_PAGE); ``unfold``: every folded part opened first, as a reader who
    clicks them all would see it."""
    browser.console()  # drop anything left from an earlier page
    browser.open(report.resolve().as_uri())
    if unfold:
        browser.run("document.querySelectorAll('details').forEach(d => { d.open = true; });")
    page = browser.run(CHECK_PAGE, list(SECTIONS))
    page["console"] = browser.console()
    return page


def assert_renders(page: dict) -> None:
    assert page["missing"] == [] and page["hidden"] == [] and page["flat"] == [], page
    assert page["badImages"] == [] and page["badSvgs"] == [], page
    assert page["console"] == [], page["console"]
    assert page["resources"] == [] and page["scripts"] == 0 and page["handlers"] == 0
    assert page["csp"] == CSP


def keep(browser: Browser, report: Path, name: str) -> Path | None:
    folder = artifacts()
    shutil.copyfile(report, folder / f"{name}.html")
    shot = browser.screenshot(folder / f"{name}.png")
    if shot is not None:
        assert shot.stat().st_size > 10_000 and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        print(f"screenshot: {shot}")
    return shot


# The page in the browser -------------------------------------------------------------------------


@pytest.mark.parametrize("fixture", ["tournament_run", "sweep_run"])
def test_every_section_renders_in_chromium(request, browser, tmp_path, fixture):
    run = request.getfixturevalue(fixture)
    target = tmp_path / "report.html"
    done = cli("report", run, "--html", target, "--title", f"report of {fixture}")
    assert done.exit_code == 0, done.output
    assert done.stdout.strip() == str(target)
    size = target.stat().st_size
    assert 20_000 < size < MAX_BYTES, size

    page = open_page(browser, target)
    assert_renders(page)
    assert set(page["figures"]) >= FIGURES and page["svgs"] >= len(FIGURES)
    assert page["title"] == f"report of {fixture}"
    plan = json.loads((run / "run.json").read_text())
    bots = [b["label"] for b in plan["bots"]]
    for section in ("leaderboard", "method"):
        assert all(bot in page["text"][section] for bot in bots), page["text"][section]
    assert "No ratings" not in page["text"]["leaderboard"] and "No balance" not in page["text"]["balance"]
    method = page["text"]["method"]
    assert str(plan["seed"]) in method and str(plan["deal_seeds"][0]) in method
    assert all(v["id"] in method for v in plan["variants"]) and "matplotlib" in method
    if fixture == "sweep_run":
        assert "threshold=51" in page["text"]["balance"] and "threshold=71" in page["text"]["balance"]
        assert "Paired comparisons" in page["text"]["balance"]
    keep(browser, target, f"report-{plan['name']}")

    browser.run("console.error('control message');")  # the console check can see an error
    assert [m["level"] for m in browser.console()] == ["SEVERE"]


def test_a_report_pooling_both_runs_renders(browser, tmp_path, tournament_run, sweep_run):
    target = write_report([tournament_run, sweep_run], tmp_path / "both.html")
    page = open_page(browser, target)
    assert_renders(page)
    assert "Run rr" in page["text"]["method"] and "Run sweep" in page["text"]["method"]
    assert "builtin:random" in page["text"]["leaderboard"]


HOSTILE_DIR = "b<script>alert(1)</script>"  # a folder 'b<script>alert(1)<' holding 'script>'
HOSTILE_VERSION = '1 <img src=x onerror=alert(2)> $x$ & "q" (1); builtin:random'  # a seat in a list, faked (',' is refused)


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory) -> Path:
    """A real run in which a bot folder's path and version are HTML (and matplotlib math)."""
    from harness.sandbox.bubblewrap import sandbox_available

    if not sandbox_available():
        pytest.skip("bot folders need the sandbox")
    base = tmp_path_factory.mktemp("hostile")
    folder = base / HOSTILE_DIR
    shutil.copytree(ROOT / "bots" / "protocol" / "greedy", folder)
    manifest = (folder / "bot.toml").read_text()
    (folder / "bot.toml").write_text(manifest.replace('version = "1.0"', f"version = {json.dumps(HOSTILE_VERSION)}"))
    out = base / "run"
    run_cli("tournament", "run", "--executor", "local", "--bot", folder, "--bot", "builtin:random", "--players", 2, "--deal-sets", 2,
            "--rounds", 1, "--seed", 2, "--workers", 1, "--name", "hostile", "--out", out, "--quiet")
    return out


def test_a_hostile_bot_name_is_shown_as_text(browser, tmp_path, hostile_run):
    label = json.loads((hostile_run / "run.json").read_text())["bots"][0]["label"]
    assert HOSTILE_VERSION in label and HOSTILE_DIR not in label  # name@version, never the folder's path
    target = write_report([hostile_run], tmp_path / "hostile.html", title="<b>title</b>")
    raw = target.read_text()
    assert "<script" not in raw.lower() and "<img" not in raw.lower() and "<b>title" not in raw
    assert "&lt;img src=x onerror=alert(2)&gt;" in raw
    page = open_page(browser, target)
    assert_renders(page)
    assert page["title"] == "<b>title</b>"
    assert label in page["text"]["leaderboard"] and label in page["text"]["method"]
    assert HOSTILE_VERSION in page["text"]["method"]
    # Each seat of a listed match on a line of its own, whole: the version's "; builtin:random" makes no seat
    seats = browser.run("return [...document.querySelectorAll('#match-list tbody tr')].map(r => "
                        "[...r.cells[4].querySelectorAll('.seat')].map(s => [s.textContent, s.getClientRects().length, "
                        "s.getBoundingClientRect().height]))")
    assert seats and all(sorted(text.rsplit(" (", 1)[0] for text, _, _ in row) == sorted([label, "builtin:random"])
                         for row in seats), seats
    line = min(height for row in seats for _, _, height in row)
    assert all(rects == 1 and height < 1.5 * line for row in seats for _, rects, height in row), seats
    keep(browser, target, "report-hostile")
    # The viewer's header too: a line a seat
    from harness.replay.viewer import run_log_lines, write_viewer

    from results.store import RunStore

    match_id = min(RunStore(hostile_run).scan("matches").select("match_id").collect()["match_id"].to_list())
    lines, seating = run_log_lines(hostile_run, match_id)
    viewer = write_viewer(lines, tmp_path / "viewer.html", "match", seating)
    browser.open(viewer.resolve().as_uri())
    header = browser.run("return [...document.querySelectorAll('header .seat')].map(s => [s.textContent, "
                         "s.getClientRects().length])")
    assert sorted(header) == sorted([[f"seat {n}: {b}", 1] for n, b in enumerate(seating)]), header


# Sections without data, and the file itself ------------------------------------------------------


def test_sections_say_when_their_data_is_missing(tournament_run):
    from results.balance import balance

    runs = open_runs([tournament_run])
    doc = balance(runs)
    for variant in doc["variants"]:  # as a game that records no openings, ends, finishes or penalties
        for key in ("openings", "ends", "finish", "penalties"):
            variant.pop(key, None)
    text = render(runs, None, "the fit did not converge", doc, None, facts(runs), "t", "now")
    assert text.count('<p class="note">No ratings: the fit did not converge</p>') == 2
    assert "no paired comparisons" in text
    assert "Openings" not in text and "No seat opened" not in text  # a game without openings: no such part
    for variant in doc["variants"]:  # a game with openings, where nobody opened
        variant["openings"] = {"by_method": {}, "by_turn": []}
    assert "No seat opened in these rounds." in render(runs, None, "-", doc, None, facts(runs), "t", "now")
    assert all(f'<section id="{s}">' in text for s in SECTIONS)
    empty = render(runs, {"bots": [], "seats": [], "pairwise": [], "matches": {}}, None,
                   {"variants": [], "comparisons": []}, None, facts(runs), "t", "now")
    assert "No rated matches" in empty and "Fewer than two rated bots" in empty
    assert "No round results by position" in empty and "No round lengths" in empty
    assert "no seat effects" in empty and "No variants with results" in empty


def test_the_report_is_the_same_for_the_same_runs_but_the_date(tmp_path, tournament_run):
    first = write_report([tournament_run], tmp_path / "a.html", title="same").read_text()
    second = write_report([tournament_run], tmp_path / "b.html", title="same").read_text()
    strip = lambda text: [line for line in text.splitlines() if "UTC" not in line]  # noqa: E731
    assert strip(first) == strip(second)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.html", "b.html"]  # no temporary file left


def _fault_one_match(run: Path) -> str:
    """Mark seat 2 of the first match of ``run`` (a copy) as timed out; returns that match's id."""
    import polars as pl
    import pyarrow.parquet as pq

    parts = sorted((run / "matches").glob("*.parquet"))
    table = pq.read_table(parts[0])
    frame = pl.from_arrow(table)
    match_id = sorted(frame["match_id"].unique().to_list())[0]
    here = (pl.col("match_id") == match_id) & (pl.col("seat") == 2)
    frame = frame.with_columns(pl.when(here).then(pl.lit(v)).otherwise(pl.col(k)).alias(k)
                               for k, v in {"faults": 1, "termination": "timeout", "fault_reason": "too slow"}.items())
    pq.write_table(frame.to_arrow().cast(table.schema), parts[0])
    return match_id


def test_include_incomplete_rates_the_match_that_ended_early_too(tmp_path, tournament_run):
    """A match with a fault is rated by default (issue 15); one that ended early is counted but not
    rated; ``--include-incomplete`` rates it, and the leaderboard then shows the ratings of
    ``ratings(include_incomplete=True)``."""
    import html as html_lib
    import re

    import polars as pl
    import pyarrow.parquet as pq

    from results.ratings import ratings
    from results.report import num

    run = tmp_path / "rr"
    shutil.copytree(tournament_run, run)
    _fault_one_match(run)
    part = sorted((run / "matches").glob("*.parquet"))[-1]
    table = pq.read_table(part)
    frame = pl.from_arrow(table)
    early = sorted(frame["match_id"].unique().to_list())[-1]
    frame = frame.with_columns(pl.when(pl.col("match_id") == early).then(pl.lit("void_rounds"))
                               .otherwise(pl.col("termination")).alias("termination"))
    pq.write_table(frame.to_arrow().cast(table.schema), part)
    runs = open_runs([run])
    total = ratings(runs)["matches"]["total"]
    plain = write_report(runs, tmp_path / "plain.html").read_text()
    assert f"{total - 1} of {total} matches rated; 1 ended early, 1 had a fault (rated, the faulty bot last)." in plain
    done = cli("report", run, "--html", tmp_path / "all.html", "--include-incomplete")
    assert done.exit_code == 0, done.output
    every = (tmp_path / "all.html").read_text()
    assert f"{total} of {total} matches rated; 1 ended early (rated too), 1 had a fault" in every

    def shown(text: str) -> list[str]:
        board = text[text.index('<section id="leaderboard">'):text.index('<section id="pairwise">')]
        rating = r"<tr><td class=n>\d+</td><td>[^<]*</td><td class=n>([^<]*)</td>"  # #, bot, rating
        return [html_lib.unescape(r) for r in re.findall(rating, board)]

    with_fault = ratings(runs, include_incomplete=True, reference="builtin:greedy")["bots"]  # the command's
    without = ratings(runs)["bots"]  # write_report without a reference: the mean
    assert shown(every) == [num(b["rating"]) for b in with_fault]
    assert shown(plain) == [num(b["rating"]) for b in without] != shown(every)



# Bad input: one line, exit code 2, nothing written -----------------------------------------------


def assert_refused(done, words: str) -> None:
    assert done.exit_code == 2, done.output
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and words in lines[0], done.stderr


def test_bad_input_is_one_line_and_writes_nothing(tmp_path, tournament_run):
    old = tmp_path / "old.html"
    old.write_text("the previous report")
    assert_refused(cli("report", tmp_path / "nowhere", "--html", old), "no such run folder")
    assert_refused(cli("report", tournament_run), "--html")
    assert_refused(cli("report", tournament_run, "--html", tmp_path / "missing" / "r.html"), "does not exist")
    assert_refused(cli("report", tournament_run, "--html", tmp_path), "is a folder")
    assert_refused(cli("report", tournament_run, "--html", old / "r.html"), "is not a folder")
    assert_refused(cli("report", tournament_run, "--html", old, "--game", "chess"), "no run of game 'chess'")
    assert old.read_text() == "the previous report"
    assert [p.name for p in tmp_path.iterdir()] == ["old.html"]


def test_a_report_replaces_an_old_one_whole(tmp_path, sweep_run):
    old = tmp_path / "r.html"
    old.write_text("the previous report")
    done = cli("report", sweep_run, "--html", old)
    assert done.exit_code == 0, done.output
    text = old.read_text()
    assert text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r-matches", "r.html"]  # the report and its viewers


# Pieces ----------------------------------------------------------------------------------------


def test_binned_counts_whole_numbers_into_equal_bins():
    from results.plots import binned

    assert binned([[3, 1], [4, 3]]) == ([3, 4], [0.25, 0.75], 1)
    starts, values, width = binned([[0, 2], [9, 1], [10, 1], [59, 4]], bins=6)
    assert width == 10 and starts == [0, 10, 20, 30, 40, 50]
    assert values == [0.375, 0.125, 0.0, 0.0, 0.0, 0.5]
    assert binned([]) == ([], [], 1) and binned([[5, 0]]) == ([], [], 1)


def test_pairwise_matrix_mirrors_a_pair_given_one_way():
    from results.report import pairwise_matrix

    doc = {"bots": [{"bot": "a"}, {"bot": "b"}, {"bot": "c"}],
           "pairwise": [{"a": "a", "b": "b", "expected": 0.7, "los": 0.9},
                        {"a": "c", "b": "a", "expected": 0.2, "los": 0.1}, {"a": "a", "b": "zz", "expected": 0.5}]}
    names, matrix, los = pairwise_matrix(doc)
    assert names == ["a", "b", "c"] and set(los) == {("a", "b"), ("c", "a")}
    assert matrix[0][1] == 0.7 and abs(matrix[1][0] - 0.3) < 1e-12
    assert matrix[2][0] == 0.2 and matrix[0][2] == 0.8
    assert all(matrix[i][i] != matrix[i][i] for i in range(3)) and matrix[1][2] != matrix[1][2]  # nan: unknown


def test_plot_text_is_literal():
    from results import plots

    name = "z" * 50 + " x<y> & $a_1$"
    svg = plots.leaderboard([{"bot": name, "rating": 1500.0, "lo": 1400.0, "hi": 1600.0}])
    assert svg.startswith("<svg") and "<?xml" not in svg
    assert ">…" + "z" * 22 + " x&lt;y&gt; &amp; $a_1$</text>" in svg  # the end of a long name, as text
    assert plots.plain("$a_1$") == "\\$a_1\\$"
