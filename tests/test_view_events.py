"""A view's events and table are copied from the match only when first read (engine/observe.py ``_Later``):
whenever they are read, and in whatever order views are read, they are what the seat knew when it observed."""

from __future__ import annotations

import json
import random

from bots import make_bot
from engine import make_rules, new_match
from engine.game import SeatEvents
from engine.observe import meld_json


def _play(match, bots, steps: int | None = None):
    """Play ``steps`` decisions (all when None); yield (seat, view, legal, decision) for each."""
    while not match.is_over and steps != 0:
        seat = match.to_move()
        view, legal = match.observe(seat), match.legal(seat)
        decision = bots[seat].decide(view, legal)
        yield seat, view, legal, decision
        outcome = match.apply(seat, decision)
        if not outcome.accepted:
            bots[seat].refused(outcome)
        steps = None if steps is None else steps - 1


def _bots(rules, seed):
    bots = [make_bot("greedy", f"{seed}:{s}") for s in range(rules.players)]
    for s, b in enumerate(bots):
        b.start(s, rules)
    return bots


def test_events_read_late_and_out_of_order_are_those_of_the_moment_observed():
    rules = make_rules(overrides={"rounds": 2, "players": 3})
    match = new_match("ellibir", rules, 5)
    bots = _bots(rules, 5)
    kept, expected = [], []
    for seat, view, _legal, _decision in _play(match, bots):
        eager = SeatEvents(seat).update(match.events, match.round_start)  # what the view held when copied at once
        table = [meld_json(i, m) for i, m in enumerate(match.round.table)]
        kept.append(view)
        expected.append(json.dumps([eager, table]))
        if random.Random(len(kept)).random() < 0.3:
            assert view.events == eager  # some read at once, in play
    assert len({v.round_index for v in kept}) == 2
    order = list(range(len(kept)))
    random.Random(1).shuffle(order)  # the rest read after the match, in any order, rounds mixed
    for i in order:
        view = kept[i]
        assert json.dumps([view.events, [meld_json(j, m) for j, m in enumerate(view.table)]]) == expected[i]
        assert {e.get("to", view.seat) for e in view.events} == {view.seat}  # never another seat's private event
        assert view.events is view.events  # copied once


def test_a_bot_changing_its_table_changes_neither_the_round_nor_another_view():
    rules = make_rules(overrides={"rounds": 1, "players": 2})
    match = new_match("ellibir", rules, 3)
    bots = _bots(rules, 3)
    for _ in _play(match, bots):
        if len(match.round.table) >= 2:
            break
    assert len(match.round.table) >= 2
    was = [meld_json(i, m) for i, m in enumerate(match.round.table)]
    a, b = match.observe(0), match.observe(1)
    for m in a.table:
        m.cards.append(m.cards[0])
        m.owner = 9
    a.table.pop()
    assert [meld_json(i, m) for i, m in enumerate(match.round.table)] == was
    assert [meld_json(i, m) for i, m in enumerate(b.table)] == was
    assert [meld_json(i, m) for i, m in enumerate(match.observe(0).table)] == was


def test_a_bot_changing_its_events_changes_no_other_seat_nor_the_log():
    rules = make_rules(overrides={"rounds": 1, "players": 2})
    match = new_match("ellibir", rules, 3)
    log = json.dumps(match.events)
    a, b = match.observe(0), match.observe(1)
    for e in a.events:
        e["e"] = "changed"
        e.pop("cards", None)
    assert json.dumps(match.events) == log
    assert all(e["e"] != "changed" for e in b.events)
    assert all(e["e"] != "changed" for e in match.observe(1).events)


def test_two_matches_interleaved_play_as_each_alone():
    rules = make_rules(overrides={"rounds": 2})
    alone = []
    for seed in (11, 12):
        match = new_match("ellibir", rules, seed)
        alone.append([str(d) for *_, d in _play(match, _bots(rules, seed))])
    matches = [new_match("ellibir", rules, seed) for seed in (11, 12)]
    plays = [_play(m, _bots(rules, seed)) for m, seed in zip(matches, (11, 12))]
    together = [[], []]
    while any(not m.is_over for m in matches):
        for i in (0, 1):
            for *_, d in plays[i]:
                together[i].append(str(d))
                break
    assert together == alone


def test_a_view_pickled_before_its_events_are_read_carries_only_what_its_seat_knew():
    import pickle

    from engine.game import Later

    rules = make_rules(overrides={"players": 3})
    match = new_match("ellibir", rules, 11)
    bots = _bots(rules, 11)
    for seat, view, _legal, _decision in _play(match, bots, 60):
        copy = pickle.loads(pickle.dumps(view))
        assert not any(isinstance(v, Later) for v in vars(copy).values())
        assert all(e.get("to", seat) == seat for e in copy.events)
        assert json.dumps(copy.to_json(), sort_keys=True) == json.dumps(view.to_json(), sort_keys=True)
