"""engine/replay.py: the steps a viewer shows, checked against the engine for both games."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.game import game_names, make_rules, new_match
from engine.events import new_match_from_start, read_lines, to_lines
from engine.replay import replay_steps
from engine.search import random_decision

GAMES = tuple(game_names())  # every registered game: a new game is covered by these tests as it registers


def played_log(game: str, players: int, seed: int, rounds: int = 2) -> list[dict]:
    """The log of a match played with random plain decisions (some refused), as JSON lines read back."""
    rules = make_rules(game, "standard", {"players": players, "rounds": rounds})
    match = new_match(game, rules, seed)
    rng = random.Random(seed)
    for _ in range(20_000):
        if match.is_over:
            break
        seat = match.to_move()
        match.apply(seat, random_decision(match.replay_part(), seat, rng))
    assert match.is_over
    return read_lines(to_lines(match.events))


def all_cards(zones: dict) -> Counter:
    cards = Counter()
    for hand in zones["hands"]:
        cards.update(hand["cards"])
    for pile in zones["piles"]:
        cards.update(pile["cards"])
    for meld in zones["melds"]:
        cards.update(meld["cards"])
    return cards


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=st.sampled_from(GAMES), players=st.integers(2, 4), seed=st.integers(0, 10**6))
def test_every_step_accounts_for_every_card_and_matches_the_engine(game, players, seed):
    """C1 (Ellibir) / E3 (Einundfünfzig): at every step of a replay the hands, piles and melds hold the
    round's cards, no more, no less; a step's zones are the engine's after that many decisions."""
    log = played_log(game, players, seed)
    doc = replay_steps(log)
    decisions = [e for e in log if e["e"] == "decision"]
    steps = doc["steps"]
    assert [s["text"] for s in steps if s["decision"] is not None] == [d["text"] for d in decisions]
    assert [s["decision"] for s in steps if s["decision"] is not None] == list(range(len(decisions)))
    dealt = {}
    for step in steps:
        cards = all_cards(step["zones"])
        dealt.setdefault(step["round"], cards)
        assert cards == dealt[step["round"]], f"cards changed at step {step['index']}"
        if game == "ellibir":
            assert sum(cards.values()) == 106 and cards["JK"] == 2
        elif game == "einundfuenfzig":
            assert sum(cards.values()) == 32 and max(cards.values()) == 1
    rounds = [e["index"] for e in log if e["e"] == "round_start"]
    assert sorted(dealt) == rounds
    assert doc["bots"] == [f"seat {s}" for s in range(players)]  # no harness events: generic names
    rng = random.Random(seed)
    for k in rng.sample(range(len(decisions)), min(4, len(decisions))):
        match = new_match_from_start(log[0])
        for d in decisions[:k + 1]:
            part = match.replay_part()
            match.apply_text(d["seat"], d["text"])
        step = next(s for s in steps if s["decision"] == k)
        assert step["zones"] == match.zones(part)
    turns = [s["turn"] for s in steps]
    assert turns == sorted(turns)
    last = steps[-1]
    assert any(e["e"] == "match_end" for e in last["events"])


@pytest.mark.parametrize("game", GAMES)
def test_harness_faults_and_takeovers_are_placed_and_marked(game):
    log = played_log(game, 3, 7, rounds=1)
    positions = [i for i, e in enumerate(log) if e["e"] == "decision"]
    k = len(positions) // 2
    seat = log[positions[k]]["seat"]
    fault = {"e": "harness_fault", "seat": seat, "bot": "mybot@1", "kind": "crash", "reason": "exited with code 3",
             "decision": k, "at": positions[k], "stderr": "Traceback <b>\n"}
    takeover = {"e": "harness_takeover", "seat": seat, "bot": "mybot@1", "by": "builtin:greedy", "from_decision": k}
    bots = {"e": "harness_bots", "format": 1, "bots": ["mybot@1", "builtin:random", "builtin:random"],
            "on_fault": "forfeit", "game": game}
    result = {"e": "harness_result", "totals": [0, 0, 0], "ranks": [3, 1, 1], "reason": "complete",
              "on_fault": "forfeit", "faulty": [seat]}
    annotated = log[:1] + [bots] + log[1:positions[k]] + [fault, takeover] + log[positions[k]:] + [result]
    doc = replay_steps(annotated)
    assert doc["bots"][0] == "mybot@1" and doc["on_fault"] == "forfeit"
    steps = {s["decision"]: s for s in doc["steps"] if s["decision"] is not None}
    assert [h["e"] for h in steps[k]["harness"]] == ["harness_fault", "harness_takeover"]
    assert "crash" in steps[k]["harness"][0]["say"]
    assert all(s["played_by"] == ("builtin:greedy" if d >= k and s["seat"] == seat else None)
               for d, s in steps.items())
    assert doc["steps"][-1]["harness"][-1]["e"] == "harness_result"
    plain = replay_steps(log)  # the same log without the harness's lines: the same states
    assert [s["zones"] for s in plain["steps"]] == [s["zones"] for s in doc["steps"]]


def test_refusals_are_steps_with_their_rule():
    log = played_log("ellibir", 2, 11, rounds=1)
    start = log[0]
    # A discard of a card the seat does not hold, right at the first play phase: refused, then play resumes.
    first_play = next(i for i, e in enumerate(log) if e["e"] == "decision" and e["text"] != "stock")
    match = new_match_from_start(start)
    for e in log[1:first_play]:
        if e["e"] == "decision":
            match.apply_text(e["seat"], e["text"])
    seat = match.to_move()
    held = set(c for h in match.zones(match.replay_part())["hands"][seat:seat + 1] for c in h["cards"])
    wrong = next(c for c in ("AS", "2C", "3D", "4H", "5S", "6C", "7D", "8H") if c not in held)
    outcome = match.apply_text(seat, f"discard {wrong}")
    assert not outcome.accepted
    events = json.loads(json.dumps(match.events))
    replayed = replay_steps(read_lines(to_lines(events)))
    refused = replayed["steps"][-1]
    assert refused["outcome"]["accepted"] is False and refused["outcome"]["rule"] == outcome.rule
    assert any(e["e"] == "refused" and outcome.rule in e["say"] for e in refused["events"])


def test_a_tampered_log_is_refused():
    log = played_log("ellibir", 2, 5, rounds=1)
    i = next(i for i, e in enumerate(log) if e["e"] == "drawn")
    log[i] = {**log[i], "card": "AS" if log[i]["card"] != "AS" else "KS"}
    with pytest.raises(ValueError, match="differs from the log"):
        replay_steps(log)
    with pytest.raises(ValueError, match="match_start"):
        replay_steps([{"e": "round_start"}])


def test_zones_have_the_one_shape_the_viewer_draws():
    for game in GAMES:
        doc = replay_steps(played_log(game, 3, 2, rounds=1))
        for step in doc["steps"][:50]:
            z = step["zones"]
            assert set(z) >= {"caption", "hands", "piles", "melds", "counters", "to_move"}
            assert [h["seat"] for h in z["hands"]] == [0, 1, 2]
            assert all(set(p) >= {"id", "label", "cards", "face_down"} for p in z["piles"])
            assert all(isinstance(c["label"], str) and isinstance(c["value"], int) for c in z["counters"])
            json.dumps(z)  # plain JSON
