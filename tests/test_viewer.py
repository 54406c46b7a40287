"""The HTML match viewer (harness/replay/viewer.py) in headless Chromium: stepping by clicks and keys, what the
page shows against the replay of the log, faults and refusals marked, 1280 and 390 px, nothing loaded."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from browser import Browser
from conftest import run_cli, shared
from engine.events import new_match_from_start, read_lines, to_lines
from engine.replay import replay_steps
from harness.cli.main import app
from harness.replay import viewer
from harness.replay.viewer import viewer_html, write_viewer
from test_report import artifacts

SHOWN = """
const cardsOf = el => [...el.querySelectorAll('.card')].map(c => c.classList.contains('back') ? '?' : c.dataset.card);
const piles = {};
for (const p of document.querySelectorAll('#piles .pile')) {
  const count = p.querySelector('.count');
  piles[p.dataset.pile] = count ? count.innerText : cardsOf(p);
}
const doc = document.documentElement;
return {
  where: document.getElementById('where').innerText,
  caption: document.getElementById('caption').innerText,
  decision: document.getElementById('decision').innerText,
  notes: [...document.querySelectorAll('#notes .note')].map(n => [n.className, n.innerText]),
  hands: [...document.querySelectorAll('#hands .seat')].map(cardsOf),
  heads: [...document.querySelectorAll('#hands .seat h3')].map(h => h.innerText),
  melds: [...document.querySelectorAll('#melds .meld')].map(cardsOf),
  piles,
  events: [...document.querySelectorAll('#events li')].map(li => li.innerText),
  overflow: doc.scrollWidth - doc.clientWidth,
  resources: performance.getEntriesByType('resource').length,
  scripts: document.scripts.length,
};
"""


@pytest.fixture(scope="module")
def match_log(tmp_path_factory) -> Path:
    """A real two-round match of greedy against pairs, logged by `ellibir play --log`."""
    def make(top):
        run_cli("play", "--bot", "builtin:greedy", "--bot", "builtin:pairs", "--rounds", 2, "--seed", 4,
                "--log", top / "match.jsonl", "--quiet")

    return shared(tmp_path_factory, "viewer_match_log", make) / "match.jsonl"


def expected(step: dict, steps: int) -> dict:
    z = step["zones"]
    piles = {p["id"]: (f"{len(p['cards'])} cards" if p["face_down"] else p["cards"][-8:]) for p in z["piles"]}
    return {"where": f"step {step['index'] + 1} / {steps}",  # one turn counter: the caption's
            "caption": z["caption"], "hands": [h["cards"] for h in z["hands"]],
            "melds": [m["cards"] for m in z["melds"]], "piles": piles,
            "events": [e["say"] if not e.get("rule") else f"{e['rule']} {e['say']}" for e in step["events"]]}


def assert_shows(page: dict, step: dict, steps: int) -> None:
    want = expected(step, steps)
    got = {k: page[k] for k in want}
    assert got == want, (step["index"], got, want)


def open_viewer(browser: Browser, path: Path) -> dict:
    browser.console()
    browser.open(path.resolve().as_uri())
    page = browser.run(SHOWN)
    assert page["resources"] == 0 and page["scripts"] == 2  # the data block and the viewer script
    return page


@pytest.mark.parametrize("width", [1280, 390])
def test_step_through_a_whole_round_with_clicks_and_keys(browser, tmp_path, match_log, width):
    browser.resize(width, 900)
    target = tmp_path / "viewer.html"
    done = CliRunner().invoke(app, ["replay", str(match_log), "--html", str(target)])
    assert done.exit_code == 0, done.output
    assert done.stdout.strip() == str(target)
    doc = replay_steps(read_lines(match_log.read_text()))
    steps = doc["steps"]
    n = len(steps)
    page = open_viewer(browser, target)
    assert_shows(page, steps[0], n)
    assert page["overflow"] <= 0, page["overflow"]
    first_round = [s for s in steps if s["round"] == 0]
    for i, step in enumerate(first_round[1:], 1):  # every step of round 1, by click or by key in turn
        if i % 2:
            browser.click("#next")
        else:
            browser.press("ArrowRight")
        page = browser.run(SHOWN)
        if i % 5 == 0 or i == len(first_round) - 1:
            assert_shows(page, step, n)
        else:
            assert page["where"] == expected(step, n)["where"]
    assert any(s["zones"]["counters"] and "round score" in s["zones"]["counters"][-1]["label"] for s in first_round)
    browser.press("ArrowRight")  # into the next round's deal
    assert_shows(browser.run(SHOWN), steps[len(first_round)], n)
    shot = browser.screenshot(artifacts() / f"viewer-round-{width}.png")
    assert shot is None or shot.stat().st_size > 5_000
    browser.resize(width, 900)

    browser.press("Home")
    browser.press("ArrowDown")  # the next turn: the first step of another turn
    nxt = next(s for s in steps if s["turn"] > steps[0]["turn"])
    assert_shows(browser.run(SHOWN), nxt, n)
    browser.click("#next-turn")
    after = next(s for s in steps if s["turn"] > nxt["turn"])
    assert_shows(browser.run(SHOWN), after, n)
    browser.press("ArrowUp")
    assert_shows(browser.run(SHOWN), nxt, n)
    browser.press("PageDown")
    assert_shows(browser.run(SHOWN), steps[len(first_round)], n)
    browser.click("#prev-round")
    assert_shows(browser.run(SHOWN), steps[0], n)
    browser.run("const s = document.getElementById('round-jump'); s.value = '1';"
                "s.dispatchEvent(new Event('change'));")
    assert_shows(browser.run(SHOWN), steps[len(first_round)], n)
    browser.press("End")
    assert_shows(browser.run(SHOWN), steps[-1], n)
    assert any("the match ends" in e for e in browser.run(SHOWN)["events"])

    browser.run("const v = document.getElementById('view'); v.value = '1'; v.dispatchEvent(new Event('change'));")
    page = browser.run(SHOWN)
    assert all(c == "?" for c in page["hands"][0]) and page["hands"][1] == steps[-1]["zones"]["hands"][1]["cards"]
    assert page["overflow"] <= 0
    shutil.copyfile(target, artifacts() / f"viewer-{width}.html")
    assert browser.console() == []


def test_a_fault_a_takeover_and_a_refusal_are_marked(browser, tmp_path, match_log):
    log = read_lines(match_log.read_text())
    decisions = [i for i, e in enumerate(log) if e["e"] == "decision"]
    # A refused discard (a card seat 0 does not hold) before the first real play decision.
    first_play = next(i for i in decisions if log[i]["text"] != "stock")
    match = new_match_from_start(log[0])
    for e in log[1:first_play]:
        if e["e"] == "decision":
            match.apply_text(e["seat"], e["text"])
    seat = match.to_move()
    held = set(match.zones(match.replay_part())["hands"][seat]["cards"])
    wrong = next(c for c in ("AS", "2C", "3D", "4H", "5S", "6C", "7D", "8H", "9S") if c not in held)
    assert not match.apply_text(seat, f"discard {wrong}").accepted
    for e in log[first_play:]:
        if e["e"] == "decision":
            match.apply_text(e["seat"], e["text"])
    lines = read_lines(to_lines(match.events))
    at = [i for i, e in enumerate(lines) if e["e"] == "decision"]
    k = len(at) // 3
    faulty = lines[at[k]]["seat"]
    hostile = "<script>alert(1)</script> & </script>"
    annotated = (lines[:1]
                 + [{"e": "harness_bots", "format": 1, "bots": [f"my{hostile}bot@1", "builtin:pairs"],
                     "on_fault": "forfeit", "game": "ellibir"}]
                 + lines[1:at[k]]
                 + [{"e": "harness_fault", "seat": faulty, "bot": "mybot@1", "kind": "timeout",
                     "reason": f"no answer in 1 s {hostile}", "decision": k, "at": at[k], "stderr": f"oops {hostile}"},
                    {"e": "harness_takeover", "seat": faulty, "bot": "mybot@1", "by": "builtin:greedy",
                     "from_decision": k}]
                 + lines[at[k]:])
    text = viewer_html(annotated, "faulted")
    assert "<script>alert" not in text and text.count("</script>") == 2
    target = write_viewer(annotated, tmp_path / "fault.html", "faulted")
    page = open_viewer(browser, target)
    browser.press("ArrowRight")
    refused_step = next(s for s in replay_steps(annotated)["steps"] if s["outcome"] and not s["outcome"]["accepted"])
    for _ in range(refused_step["index"] - 1):
        browser.press("ArrowRight")
    page = browser.run(SHOWN)
    assert f"REFUSED {refused_step['outcome']['rule']}" in page["decision"]
    assert any(e.startswith(refused_step["outcome"]["rule"]) for e in page["events"])
    step = next(s for s in replay_steps(annotated)["steps"] if s["decision"] == k)
    for _ in range(step["index"] - refused_step["index"]):
        browser.press("ArrowRight")
    page = browser.run(SHOWN)
    kinds = [c for c, _ in page["notes"]]
    assert kinds == ["note fault", "note takeover"], page["notes"]
    assert f"no answer in 1 s {hostile}" in page["notes"][0][1] and f"oops {hostile}" in page["notes"][0][1]
    assert "FAULT" in page["heads"][faulty] and "[greedy plays]" in page["heads"][faulty]
    assert "[greedy plays]" in page["decision"] and hostile in page["heads"][0] if faulty == 0 else True
    assert browser.run("return document.querySelectorAll('script').length;") == 2  # nothing injected ran or was added
    browser.screenshot(artifacts() / "viewer-fault.png")
    browser.resize(1280, 900)
    assert browser.console() == []


def test_a_run_match_viewer_and_bad_input(tmp_path, tournament_run):
    plan = json.loads((tournament_run / "run.json").read_text())
    match_id = plan["matches"][0]["id"]
    target = tmp_path / "m.html"
    done = CliRunner().invoke(app, ["replay", str(tournament_run), match_id, "--html", str(target)])
    assert done.exit_code == 0, done.output
    text = target.read_text()
    assert "default-src 'none'" in text and plan["matches"][0]["seating"][0] in text
    bad = CliRunner().invoke(app, ["replay", str(tournament_run), "nope", "--html", str(tmp_path / "x.html")])
    assert bad.exit_code == 2 and bad.stderr.startswith("error: ") and len(bad.stderr.strip().splitlines()) == 1
    damaged = tmp_path / "bad.jsonl"
    damaged.write_text('{"e":"match_start"}\n')
    bad = CliRunner().invoke(app, ["replay", str(damaged), "--html", str(tmp_path / "y.html")])
    assert bad.exit_code == 2 and bad.stderr.startswith("error: ")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.jsonl", "m.html"]


def test_the_viewer_draws_the_other_game_too(browser, tmp_path):
    """Einundfünfzig through the same page: its zones (talon, pile, hands) and its events."""
    log = tmp_path / "e51.jsonl"
    run_cli("play", "--game", "einundfuenfzig", "--bot", "builtin:cautious", "--bot", "builtin:random",
            "--bot", "builtin:cautious", "--rounds", 2, "--seed", 9, "--log", log, "--quiet")
    target = tmp_path / "e51.html"
    done = CliRunner().invoke(app, ["replay", str(log), "--html", str(target)])
    assert done.exit_code == 0, done.output
    steps = replay_steps(read_lines(log.read_text()))["steps"]
    open_viewer(browser, target)
    for i in range(1, min(len(steps), 12)):
        browser.press("ArrowRight")
        if i % 4 == 0:
            assert_shows(browser.run(SHOWN), steps[i], len(steps))
    browser.press("End")
    page = browser.run(SHOWN)
    assert_shows(page, steps[-1], len(steps))
    assert set(page["piles"]) == {"talon", "pile"} and page["overflow"] <= 0
    browser.screenshot(artifacts() / "viewer-einundfuenfzig.png")
    browser.resize(1280, 900)
    assert browser.console() == []


LOGS = """
return [...document.querySelectorAll('#logs .log')].map(b => ({
  seat: Number(b.dataset.seat),
  lines: [...b.querySelectorAll('pre span')].map(s => [s.className, s.textContent]),
}));
"""


def requests_in_trace(trace: str, seat: int) -> list[int]:
    """The seq of every request the harness sent ``seat``, in order, read from the trace's ``>`` lines."""
    out = []
    for line in trace.splitlines():
        parts = line.split(" ", 5)
        if len(parts) == 6 and parts[1:3] == ["seat", str(seat)] and parts[4] == ">":
            msg = json.loads(parts[5])
            if msg["type"] == "request":
                out.append(msg["seq"])
    return out


def test_a_traced_bots_stderr_shows_beside_its_steps(browser, tmp_path):
    """Where the run kept a trace, each stderr line shows at the step of the request it was written for,
    refusals included (the bot breaks a rule once per round and is asked again); hostile text stays text.
    The bot writes a line per request and the trace records the request's seq: the two are compared."""
    from author_bots import AUTHOR_BOTS

    log, trace = tmp_path / "m.jsonl", tmp_path / "m.trace"
    run_cli("play", "--bot", AUTHOR_BOTS["rule_once"], "--bot", "builtin:greedy", "--seed", 5, "--rounds", 2,
            "--log", log, "--trace", trace, "--quiet")
    hostile = "<script>alert(1)</script> & </pre>"
    text = trace.read_text() + f"12:00:00.000000 seat 0 author-rule_once@1 ! {hostile}\n" \
        + "12:00:00.000001 seat 0 author-rule_once@1 ! " + "x" * 600 + "\n"  # one long word: no overflow at 390 px
    trace.write_text(text)
    target = tmp_path / "traced.html"
    assert CliRunner().invoke(app, ["replay", str(log), "--trace", str(trace)]).exit_code == 2  # --trace needs --html
    done = CliRunner().invoke(app, ["replay", str(log), "--html", str(target), "--trace", str(trace)])
    assert done.exit_code == 0, done.output
    steps = replay_steps(read_lines(log.read_text()))["steps"]
    own = [s for s in steps if s["seat"] == 0 and s["decision"] is not None]
    seqs = requests_in_trace(text, 0)
    assert len(seqs) == len(own) and any(s["outcome"]["rule"] for s in own)  # one request per decision, refusals too
    page = open_viewer(browser, target)
    assert browser.run(LOGS)[0]["lines"][0] == ["l-stderr", "author bot rule_once: starting"]  # before any request
    refused = next(j for j, s in enumerate(own) if not s["outcome"]["accepted"])
    for j in sorted({1, 2, refused, refused + 1, len(own) - 1}):
        browser.press("Home")
        for _ in range(own[j]["index"]):
            browser.press("ArrowRight")
        shown = browser.run(LOGS)
        assert [b["seat"] for b in shown] == [0], (j, shown)
        lines = [t for _, t in shown[0]["lines"] if "request" in t]
        assert len(lines) == 1 and lines[0].startswith(f"author bot rule_once: request {seqs[j]} ("), (j, lines)
        if j == refused + 1:  # the bot wrote it when told of the refusal, before answering the request again
            assert shown[0]["lines"][0][1].startswith("author bot rule_once: refused ")
    assert hostile in [t for _, t in browser.run(LOGS)[0]["lines"]]  # the last step: the added line, as text
    assert browser.run("return document.querySelectorAll('script').length;") == 2
    browser.run("const v = document.getElementById('view'); v.value = '1'; v.dispatchEvent(new Event('change'));")
    assert browser.run(LOGS) == []  # seat 1's view: seat 0's lines are not shown
    browser.run("const v = document.getElementById('view'); v.value = '-1'; v.dispatchEvent(new Event('change'));")
    assert browser.run(LOGS)[0]["seat"] == 0
    for width in (1280, 390):
        browser.resize(width, 900)
        page = browser.run(SHOWN)
        assert page["overflow"] <= 0 and page["resources"] == 0
        browser.screenshot(artifacts() / f"viewer-trace-{width}.png")
    browser.resize(1280, 900)
    assert browser.console() == []


def test_a_runs_stderr_tail_goes_to_the_seats_last_decision(match_log):
    from harness.replay.bot_logs import attach_stderr, attach_trace

    doc = replay_steps(read_lines(match_log.read_text()))
    assert attach_stderr(doc, {1: "line one\n<b>two</b>\n"}) == 2
    last = [s for s in doc["steps"] if s["seat"] == 1 and s["decision"] is not None][-1]
    assert [x["text"] for x in last["logs"]][1:] == ["line one", "<b>two</b>"]
    assert all("logs" not in s for s in doc["steps"] if s is not last)
    with pytest.raises(ValueError, match="seat 7"):
        attach_trace(doc, "12:00:00.0 seat 7 x@1 ! hello\n")


POOL_SCRIPT = """
import json, os, signal, sys
from pathlib import Path
from harness.replay import viewer
from results.store import RunStore

run, out, marks = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
# a handler of this process's own, as a Ray driver installs one; forked workers inherit it
signal.signal(signal.SIGTERM, lambda *_: open(marks, "a").write(f"{os.getpid()}\\n"))
store = RunStore(run)
ids = [m["id"] for m in json.loads((run / "run.json").read_text())["matches"]][:24]
for n in range(5):
    jobs = [(store.read_log(i), str(out / f"{n}-{i}.html"), i, None, None, i) for i in ids]
    assert sum(1 for _, written in viewer._write_all(jobs) if written) == len(ids)
print(len(ids))
"""


def test_the_viewer_pool_ends_its_workers_without_signals(tmp_path, tournament_run):
    """Leaving ``with Pool()`` sent SIGTERM to live workers; with a handler inherited from the writing
    process (a Ray driver's) a worker killed holding the queue's lock left a sibling waiting for ever
    (a report hung in the suite). The workers now end on the pool's sentinels: none is signalled."""
    marks = tmp_path / "sigterms"
    done = subprocess.run([sys.executable, "-c", POOL_SCRIPT, tournament_run, tmp_path, marks],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert int(done.stdout) >= viewer.PARALLEL_FROM  # enough viewers for the pool
    assert not marks.exists(), marks.read_text()


class _KillsItsReader:
    """A job's key that ends the process unpickling it: a viewer worker dies as if it had crashed."""

    def __reduce__(self):
        import os

        return os._exit, (3,)


def test_a_viewer_worker_that_dies_costs_no_viewer_and_hangs_nothing(tmp_path, tournament_run):
    """A pool worker of a report died (forked from a test process that had run Ray, it crashed in Ray's
    library); ``multiprocessing.Pool`` then waited for its lost viewers for ever and the suite hung. A
    worker's death now breaks the pool and the viewers are written in this process."""
    import threading

    from results.store import RunStore

    store = RunStore(Path(tournament_run))
    ids = [m["id"] for m in json.loads((Path(tournament_run) / "run.json").read_text())["matches"]][:24]
    jobs = [(store.read_log(i), str(tmp_path / f"{i}.html"), i, None, None, i) for i in ids]
    jobs[5] = jobs[5][:5] + (_KillsItsReader(),)
    results = []
    writer = threading.Thread(target=lambda: results.extend(viewer._write_all(jobs)), daemon=True)
    writer.start()
    writer.join(timeout=240)  # a bound on a hang, not a timing: the old pool never returned
    assert not writer.is_alive(), "the viewers' pool hung on a dead worker"
    assert len(jobs) >= viewer.PARALLEL_FROM and all(written for _, written in results)
    assert sorted(p.name for p in tmp_path.glob("*.html")) == sorted(f"{i}.html" for i in ids)
