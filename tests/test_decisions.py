"""Decisions are small values whose string and JSON forms round-trip; nothing a bot sends crashes the engine (O4)."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import make_rules, new_match
from engine.decisions import Draw, Play, Turn, decision_from_json, parse_decision
from engine.errors import Refusal

cards = st.integers(0, 52)
meld_kinds = st.sampled_from(["run", "set", "pair"])
melds = st.lists(st.tuples(meld_kinds, st.lists(cards, min_size=1, max_size=5).map(tuple)), min_size=1, max_size=3).map(tuple)

plays = st.one_of(
    st.builds(Play, st.sampled_from(["open", "pairs", "meld"]), melds),
    st.builds(Play, st.just("pair"), melds, st.integers(0, 3)),
    st.builds(lambda i, c, e: Play("layoff", (), i, (c,), e), st.integers(0, 30), cards, st.sampled_from([None, "low", "high"])),
    st.builds(lambda i, cs: Play("joker", (), i, tuple(cs)), st.integers(0, 30), st.lists(cards, min_size=1, max_size=3)),
    st.just(Play("declare")),
    st.builds(lambda c: Play("claim", (), -1, (c,)), cards),
)
turns = st.builds(Turn, st.lists(plays, max_size=4).map(tuple), cards, st.booleans())
meld_plays = plays.filter(lambda p: p.kind in ("open", "pairs", "meld", "pair"))
draws = st.one_of(
    st.sampled_from([Draw("stock"), Draw("cut"), Draw("pair")]),
    st.builds(lambda ps: Draw("take", tuple(ps)), st.lists(meld_plays, min_size=1, max_size=2)),
)


@settings(max_examples=400, deadline=None)
@given(st.one_of(turns, draws))
def test_string_form_round_trips(decision):
    assert parse_decision(str(decision)) == decision


@settings(max_examples=400, deadline=None)
@given(st.one_of(turns, draws))
def test_json_form_round_trips(decision):
    assert decision_from_json(json.loads(json.dumps(decision.to_json()))) == decision


def test_examples_parse():
    d = parse_decision("open R[5H JK 7H] S[9C 9D 9S]; layoff 2 8H; joker 0 5S; discard KS")
    assert isinstance(d, Turn) and len(d.plays) == 3 and str(d) == "open R[5H JK 7H] S[9C 9D 9S]; layoff 2 8H; joker 0 5S; discard KS"
    assert parse_decision("take; open R[2H 3H 4H]") == Draw("take", (Play("open", (("run", (13 * 2 + 0, 13 * 2 + 1, 13 * 2 + 2)),)),))


def test_bad_strings_are_refused_with_a_reason():
    for text in ["", "discard", "discard XX", "open R[5H 6H; discard 2C", "stock; meld R[2C 3C 4C]",
                 "take", "fly; discard 2C", "layoff x 2C; discard 3C", "discard 2C hidden"]:
        try:
            parse_decision(text)
        except Refusal as r:
            assert r.rule and r.message
        else:
            raise AssertionError(f"accepted {text!r}")


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 60) | st.text(max_size=6)
    | st.sampled_from(["2C", "JK", "10H", "stock", "take", "open", "run", "set", "pair", "layoff", "joker", "low"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["draw", "plays", "discard", "shown", "type", "melds", "kind", "cards", "meld", "seat", "end"]),
        inner, max_size=5),
    max_leaves=25,
)


@settings(max_examples=600, deadline=None)
@given(st.lists(json_values, min_size=1, max_size=6), st.integers(0, 1000))
def test_no_json_from_a_bot_crashes_the_engine(payloads, seed):
    """O4: anything a bot sends is either applied whole or refused with a rule id, and the cards stay put."""
    match = new_match("ellibir", make_rules(overrides={"players": 3, "rounds": 1}), seed)
    for data in payloads:
        seat = match.to_move()
        before = [h[:] for h in match.round.hands], len(match.round.stock)
        outcome = match.apply_json(seat, data)
        if not outcome.accepted:
            assert outcome.rule and outcome.reason
            assert ([h[:] for h in match.round.hands], len(match.round.stock)) == before


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60), st.integers(0, 1000))
def test_no_text_crashes_the_engine(text, seed):
    match = new_match("ellibir", make_rules(), seed)
    outcome = match.apply_text(match.to_move(), text)
    assert outcome.accepted or outcome.rule
