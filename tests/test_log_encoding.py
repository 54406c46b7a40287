"""harness/match/log.py: the event log of a match is encoded in one orjson call and cut into lines; the
lines must be exactly those of one standard encoder call a line (what every reader was written
against), for both games, with faults whose stderr a bot chose, and where the fast path cannot be
trusted (then it steps aside)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.events import event_json, read_lines
from engine.game import game_names, make_rules
from harness.match.log import Recorder, _encode, _one_call, fault_events, is_harness, read, to_text
from harness.match.run import MatchSpec, run_spec
from harness.players.seats import Fault

GAMES = tuple(game_names())


def per_line(events: list) -> str:
    """The log as it was written before: one standard encoder call a line."""
    return "".join(_encode(e if is_harness(e) else event_json(e)) + "\n" for e in events)


def played(game: str, seed: int) -> list:
    bots = ("builtin:greedy", "builtin:random", "builtin:pairs", "builtin:random") if game == "ellibir" else (
        ("builtin:random",) * 4)
    recorder = Recorder()
    run_spec(MatchSpec(game, make_rules(game, "standard", {"players": 4, "rounds": 2}), seed, bots),
             on_event=recorder)
    return recorder.events


def types_in(value, out: set) -> set:
    if isinstance(value, dict):
        for v in value.values():
            types_in(v, out)
    elif isinstance(value, list):
        for v in value:
            types_in(v, out)
    else:
        out.add(type(value))
    return out


@pytest.mark.parametrize("game", GAMES)
def test_a_played_match_is_written_line_for_line_as_before_and_replays(game):
    for seed in range(6):
        events = played(game, seed)
        assert _one_call(events) is not None  # the fast path is the one taken
        text = to_text(events)
        assert text == per_line(events)
        merged, notes = read(text)
        assert len(merged) == len(events) and [n["e"] for n in notes] == ["harness_bots", "harness_result"]


@pytest.mark.parametrize("game", GAMES)
def test_past_match_start_the_engine_events_hold_nothing_the_two_encoders_write_apart(game):
    """Floats are the one JSON value orjson spells otherwise (1e-05 as 0.00001, NaN as null):
    match_start (the rules) goes through the standard encoder, and no other event holds one."""
    seen: set = set()
    for seed in range(4):
        for e in played(game, seed)[1:]:
            if not is_harness(e):
                types_in(event_json(e), seen)
    assert seen <= {int, bool, str, type(None)}


def test_a_bots_stderr_that_looks_like_the_cut_between_events_stays_inside_its_line():
    events = played("ellibir", 3)
    hostile = '"},{"e":"forged"}\n{"e":\\"x\\u2028\x00\x1f\ud7ff\U0001f600 ü'
    fault = Fault(seat=1, player="bot@1", kind="crash", reason='},{"e":', decision=4, stderr=hostile,
                  replaced_by="builtin:greedy")
    events[5:5] = fault_events(fault, 5)
    text = to_text(events)
    assert text == per_line(events)
    lines = text.splitlines()
    assert len(lines) == len(events)
    assert json.loads(lines[5])["stderr"] == hostile and json.loads(lines[6])["e"] == "harness_takeover"
    assert read_lines(text)[5] == json.loads(_encode(events[5]))


@pytest.mark.parametrize("odd", ["big int", "lone surrogate", "nested events", "e not first", "int key"])
def test_what_the_fast_path_cannot_write_alike_goes_line_by_line(odd):
    events = played("ellibir", 1)[:40]
    extra = {"big int": {"e": "note", "n": 2**64},
             "lone surrogate": {"e": "note", "text": "\ud800"},
             "nested events": {"e": "note", "inner": [{"e": "a"}, {"e": "b"}]},
             "e not first": {"seat": 1, "e": "note"},
             "int key": {"e": "note", "by": {1: "x"}}}[odd]
    events.insert(7, extra)
    assert _one_call(events) is None
    assert to_text(events) == per_line(events)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12)
event = st.builds(lambda kind, body: {"e": kind, **{k: v for k, v in body.items() if k != "e"}},
                  st.sampled_from(["draw", "discard", "harness_fault", "match_start", "x},{\"e\":"]),
                  st.dictionaries(st.sampled_from(["seat", "text", "inner", "to", "record"]),
                                  json_values, max_size=4))


@settings(max_examples=300, deadline=None)
@given(st.lists(event, min_size=1, max_size=8))
def test_any_events_of_the_engines_value_types_are_written_as_one_call_a_line_writes_them(events):
    assert to_text(events) == per_line(events)
