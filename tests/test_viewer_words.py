"""The match viewer says what happened (issue 27): the outcome of each round in words (who went out and how, or why
it was void), the rules shown, void rounds and winners marked in the round list, plain event text, one turn
counter; checked in Debian's Chromium at 1280 and 390 px."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from conftest import run_cli, shared
from engine.events import read_lines
from engine.replay import replay_steps
from harness.replay.viewer import viewer_html
from test_report import artifacts

# an event said as its fields ("seat 1 opened: method pairs, value 64"), as the generic words do
RAW = re.compile(r"(?:: |, )(index|kind|beside|method|freed|shown|record|cards|talon_size|value|end|rules|deals) ")


@pytest.fixture(scope="module")
def log(tmp_path_factory) -> Path:
    """Greedy, pairs and random, 4 rounds, seed 4: the first round is void (the stock ran out after two seats
    had opened), pairs wins the others; pairs declares, opens with pairs, lays off and takes a joker."""
    def make(top):
        run_cli("play", "--bot", "builtin:greedy", "--bot", "builtin:pairs", "--bot", "builtin:random", "--rounds", 4,
                "--seed", 4, "--log", top / "match.jsonl", "--quiet")

    return shared(tmp_path_factory, "words_match_log", make) / "match.jsonl"


def test_each_round_is_told_in_words(log):
    doc = replay_steps(read_lines(log.read_text()))
    rounds = doc["rounds"]
    assert [r["round"] for r in rounds] == sorted({s["round"] for s in doc["steps"]})
    void = rounds[0]
    assert void["void"] and void["winners"] == [] and void["short"] == "void: stock out"
    assert void["outcome"] == ("Void round: the stock ran out (T5) after seat 0 and seat 1 had opened "
                               "(exhausted = void); it does not count.")
    won = rounds[1]
    assert not won["void"] and won["winners"] == [1] and won["short"] == "seat 1 went out"
    assert re.fullmatch(r"Seat 1 went out after \d+ turns\.", won["outcome"])
    assert doc["variant"] == "standard rules; 4 rounds"
    said = [e["say"] for s in doc["steps"] for e in s["events"]]
    kinds = {e["e"] for s in doc["steps"] for e in s["events"]}
    assert {"declare", "opened", "meld", "layoff", "joker", "round_end", "match_start"} <= kinds
    assert not [t for t in said if RAW.search(t)], [t for t in said if RAW.search(t)][:5]
    assert "seat 1 declares that they will open with pairs" in said and "seat 1 opens with pairs" in said
    assert any(re.fullmatch(r"seat \d lays off .+ on meld \d+ of the table", t) for t in said)
    assert said[-1] == "the match ends (complete): seat 1 first (total -400), seat 0 second (114), seat 2 third (400)"


def test_an_ellibir_round_without_a_winner_and_a_special_finish_are_said():
    from engine.match_text import EllibirText

    seats = [{"opened": s == 2} for s in range(3)]
    record = {"end": "exhausted", "void": False, "winner": -1, "turns": 80, "seats": seats}
    assert EllibirText.outcome(record) == ("No winner: the stock ran out (T5); every seat is scored as a loser "
                                           "(exhausted = score).")
    nobody = {"end": "max_turns", "void": True, "winner": -1, "turns": 1000, "seats": [{"opened": False}] * 2}
    assert EllibirText.outcome(nobody) == "Void round: the turn limit was reached (T6) and nobody had opened; it does " \
                                          "not count."
    assert EllibirText.outcome(nobody, short=True) == "void: nobody opened"
    out = {"end": "out", "void": False, "winner": 2, "turns": 7, "multiplier": 4, "seats": seats,
           "finish": {"G2": True, "G3": True, "G4": False}}
    assert EllibirText.outcome(out) == "Seat 2 went out after 7 turns, all at once (G2) and with a joker (G3) " \
                                       "(multiplier 4)."


def test_an_einundfuenfzig_game_is_told_in_its_own_words(tmp_path):
    path = tmp_path / "e.jsonl"
    run_cli("play", "--game", "einundfuenfzig", "--bot", "builtin:cautious", "--bot", "builtin:random", "--rounds", 2,
            "--seed", 2, "--log", path, "--quiet")
    doc = replay_steps(read_lines(path.read_text()))
    assert [r["short"] for r in doc["rounds"]] == ["seat 1 lost", "seat 1 lost"]
    assert re.fullmatch(r"Seat 1 reached 5\d and lost game 1\.", doc["rounds"][0]["outcome"])
    said = [e["say"] for s in doc["steps"] for e in s["events"]]
    assert not [t for t in said if RAW.search(t)] and any(t.startswith("the talon is shuffled") for t in said)
    assert any(re.fullmatch(r"seat \d plays .+: -?\d+ [+-] \d+ = -?\d+.*", t) for t in said)


SHOWN = """
return {
  where: document.getElementById('where').innerText,
  caption: document.getElementById('caption').innerText,
  outcome: document.getElementById('outcome').hidden ? null : document.getElementById('outcome').innerText,
  outcomeClass: document.getElementById('outcome').className,
  rounds: [...document.querySelectorAll('#round-jump option')].map(o => [o.text, o.className]),
  header: document.querySelector('header .sub').innerText,
  events: [...document.querySelectorAll('#events li')].map(li => li.innerText),
  melds: [...document.querySelectorAll('#melds .meld .number')].map(n => n.innerText),
  overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
};
"""


@pytest.mark.parametrize("width", [1280, 390])
def test_the_viewer_shows_the_outcomes_the_rules_and_one_turn_counter(browser, tmp_path, log, width):
    doc = replay_steps(read_lines(log.read_text()))
    page = tmp_path / "viewer.html"
    page.write_text(viewer_html(read_lines(log.read_text()), "words"))
    browser.resize(width, 900)
    browser.console()
    browser.open(page.resolve().as_uri())
    first = browser.run(SHOWN)
    assert first["where"] == f"step 1 / {len(doc['steps'])}" and "turn" not in first["where"]  # one turn counter
    assert first["caption"].startswith("round 1, turn ") and first["outcome"] is None
    assert "rules: standard rules; 4 rounds" in first["header"]
    assert first["rounds"][0] == ["round 1: void: stock out", "void"]
    assert first["rounds"][1] == ["round 2: seat 1 went out", "won"] and len(first["rounds"]) == len(doc["rounds"])
    end = next(i for i, s in enumerate(doc["steps"]) if any(e["e"] == "round_end" for e in s["events"]))
    browser.run("const s = document.getElementById('round-jump'); s.value = '1'; s.dispatchEvent(new Event('change'));")
    browser.press("ArrowLeft")  # the last step of the void round
    shown = browser.run(SHOWN)
    assert shown["where"] == f"step {end + 1} / {len(doc['steps'])}"
    assert shown["outcome"] == doc["rounds"][0]["outcome"] and "void" in shown["outcomeClass"].split()
    assert shown["events"][-1] == doc["rounds"][0]["outcome"]
    assert shown["melds"] == [str(i + 1) for i in range(len(doc["steps"][end]["zones"]["melds"]))]
    assert shown["overflow"] <= 0
    browser.screenshot(artifacts() / f"viewer-outcome-{width}.png")
    browser.press("ArrowRight")  # the next round's deal: no outcome shown
    assert browser.run(SHOWN)["outcome"] is None
    browser.press("End")
    last = browser.run(SHOWN)
    assert last["outcome"] == doc["rounds"][-1]["outcome"] and "void" not in last["outcomeClass"].split()
    shutil.copyfile(page, artifacts() / f"viewer-words-{width}.html")
    assert browser.console() == []


def test_the_page_holds_each_steps_changes_only_and_rebuilds_every_step(log, tmp_path):
    """The viewer's data is small (zones as changes, a pile's top, events as their words) and whole again in the
    page: checked against the replay for every step in test_viewer.py; here the sizes."""
    lines = read_lines(log.read_text())
    text = viewer_html(lines, "small")
    data = json.loads(re.search(r'id="replay-data">(.*?)</script>', text, re.S).group(1))
    full = replay_steps(lines)
    assert len(data["steps"]) == len(full["steps"])
    whole = len(json.dumps(full, separators=(",", ":"), ensure_ascii=False))
    assert len(json.dumps(data, separators=(",", ":"), ensure_ascii=False)) < 0.5 * whole
    assert all(set(e) <= {"e", "say", "rule"} for s in data["steps"] for e in s["events"])
