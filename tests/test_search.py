"""State for search: clones and the fast path play exactly like the logged, checked path; sampled
worlds (determinisation) keep every card once as it should be and agree with all a seat knows."""

from __future__ import annotations

import copy
import json
import random

import pytest

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_properties import BOTS, variants

from bots import make_bot
from engine import make_rules, new_match
from engine.cards import JOKER, N_IDS, parse_card
from engine.determinise import read_view
from engine.game import make_rules as game_rules
from engine.observe import legal, view_of
from engine.search import determinise, playout, random_decision, simple_decisions
from scenario import hand, ok, pass_turn, start

SLOW = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def state(rnd) -> dict:
    """Everything of a round but its log (melds compare by kind, cards, base, owner, beside); the
    match adds the round's number to its record."""
    out = {k: v for k, v in rnd.__dict__.items() if k not in ("events", "deal")}
    if out["record"] is not None:
        out["record"] = {k: v for k, v in out["record"].items() if k != "number"}
    return out


def advance(rules, seed: int, names, steps: int):
    """A match played ``steps`` decisions (or to the last round's end) by seeded built-in bots."""
    match = new_match("ellibir", rules, seed)
    bots = [make_bot(name, f"{seed}:{i}") for i, name in enumerate(names)]
    for seat, bot in enumerate(bots):
        bot.start(seat, rules)
    for _ in range(steps):
        seat = match.to_move()
        if seat is None:
            break
        outcome = match.apply(seat, bots[seat].decide(match.observe(seat), match.legal(seat)))
        if not outcome.accepted:
            bots[seat].refused(outcome)
    return match, bots


def pack_counts(rnd) -> list:
    counts = [0] * N_IDS
    for hand in rnd.hands:
        for c in range(N_IDS):
            counts[c] += hand[c]
    for c in list(rnd.stock) + list(rnd.discards) + [c for m in rnd.table for c in m.cards]:
        counts[c] += 1
    return counts


# Clone and fast path ---------------------------------------------------------------------------


@SLOW
@given(rules=variants(), seed=st.integers(0, 10**6), steps=st.integers(0, 120), data=st.data())
def test_clone_and_fast_path_play_exactly_like_the_logged_checked_path(rules, seed, steps, data):
    names = [data.draw(st.sampled_from(BOTS)) for _ in range(rules.players)]
    match, _ = advance(rules, seed, names, steps)
    if match.is_over:
        return
    rnd = match.round
    before = copy.deepcopy(state(rnd))
    fast, logged = rnd.clone(), rnd.clone(log=True)
    playout(fast, random.Random(seed))
    playout(logged, random.Random(seed))
    assert state(rnd) == before, "playing a clone changed the original"
    # the public path: the same random decisions, as text, parsed and checked by the match
    rng, index = random.Random(seed), rnd.index
    while match.round.index == index and not match.is_over:
        seat = match.to_move()
        decision = random_decision(match.round, seat, rng)  # as playout draws them
        assert match.apply_text(seat, str(decision)).accepted
    assert state(fast) == state(rnd) == state(logged)
    assert fast.events == [] and logged.events and logged.events[-1]["e"] == "round_end"


def test_a_clone_shares_no_mutable_part_with_its_original():
    match, _ = advance(make_rules("standard", {"players": 3}), 5, ["greedy"] * 3, 90)
    rnd = match.round
    twin = rnd.clone()
    for name, value in state(rnd).items():
        if isinstance(value, list) and name != "table":  # the table is never changed in place
            assert value is not getattr(twin, name), name
            assert all(a is not b for a, b in zip(value, getattr(twin, name)) if isinstance(a, list)), name


# Determinisation (Ellibir) -----------------------------------------------------------------------


def check_world(match, seat: int, world) -> None:
    """The world keeps the pack (C1), gives back the seat's view and legal information, and puts
    every card the seat knows the place of in that place."""
    view, rnd = match.observe(seat), match.round
    assert pack_counts(world) == [2] * N_IDS, "C1: a sampled world must hold the 106 cards"
    assert [sum(h) for h in world.hands] == rnd.sizes and len(world.stock) == len(rnd.stock)
    assert view_of(world, seat, view.round_number, view.totals, view.events) == view
    assert legal(world, seat) == legal(rnd, seat)
    if rnd.cut_lies:
        assert world.stock[0] == rnd.cut
    known = read_view(view).held
    for s in range(rnd.n):
        for c in range(N_IDS):
            assert rnd.hands[s][c] >= known[s][c], "the seat 'knows' something false"
            assert world.hands[s][c] >= known[s][c], "a card the seat knows the place of was moved"
    for name in ("opened", "open_method", "open_value", "opened_turn", "declared", "star", "penalties",
                 "high_opening", "cut", "cut_lies", "cut_claim", "cut_claim_turn", "discarder_declared",
                 "turn", "seat", "phase", "taken", "discards"):
        assert getattr(world, name) == getattr(rnd, name), name


@SLOW
@given(rules=variants(), seed=st.integers(0, 10**6), steps=st.integers(0, 150), data=st.data())
def test_sampled_worlds_keep_the_pack_and_everything_the_seat_knows(rules, seed, steps, data):
    names = [data.draw(st.sampled_from(BOTS)) for _ in range(rules.players)]
    match, _ = advance(rules, seed, names, steps)
    if match.is_over:
        return
    rng = random.Random(seed)
    for seat in range(rules.players):
        for _ in range(3):
            world = determinise(match.observe(seat), rng)
            check_world(match, seat, world)
            playout(world.clone(), rng)  # a sampled world plays on to its end


def test_worlds_keep_a_card_taken_into_a_pair_in_its_takers_hand_P1():
    """Seat 2 takes 9H from the pile into a pair (P1): every world of seat 1 (who threw it) keeps it there."""
    m = start(["5H 6H 7H 9D", "9H QC 3C", "9H 2D 4D 6D"], dealer=0, top="8C 8D 8S")
    ok(m, 1, "discard 9H")
    ok(m, 2, "pair")
    ok(m, 2, "discard 2D")
    ok(m, 0, "stock")
    nine = parse_card("9H")
    rng = random.Random(1)
    for _ in range(50):
        world = determinise(m.observe(1), rng)
        assert world.hands[2][nine] >= 1
        check_world(m, 1, world)
    assert read_view(m.observe(0)).held[2][nine] == 1


def test_worlds_keep_a_shown_card_in_its_holders_hand_and_marked_A6():
    """Seat 0 shows 9H (A6) and throws its twin: every world of seat 1 keeps the shown 9H with seat 0."""
    m = start(["9H 9H 9C 9D 4H 10C 10D 10S", "5H 6H 7H 8H KC KD KS QC 2S"], dealer=0, top="AS 2D 3D 4D 5D",
              layable_discard_scope="any")
    ok(m, 1, "open R[5H 6H 7H 8H] S[KC KD KS]; discard QC")
    ok(m, 0, "stock")
    ok(m, 0, "discard 9H shown")
    ok(m, 1, "stock")
    nine = parse_card("9H")
    rng = random.Random(4)
    for _ in range(50):
        world = determinise(m.observe(1), rng)
        assert world.hands[0][nine] >= 1 and world.marked[0] == [nine]
        check_world(m, 1, world)


def test_worlds_keep_a_claimed_cut_card_with_its_claimer_and_at_the_stock_bottom_D6():
    m = start([None, None, "7C KS QS"], dealer=0, cut="7C", joker_in_cut=True, top="2C 2D 2H 2S")
    ok(m, 1, f"discard {hand(m, 1)[0]}")
    ok(m, 2, "stock")
    ok(m, 2, "declare; claim 7C; discard KS")
    seven = parse_card("7C")
    rng = random.Random(5)
    for _ in range(50):
        world = determinise(m.observe(1), rng)
        assert world.hands[2][seven] >= 1 and world.stock[0] == seven and world.cut_claim == 2
        check_world(m, 1, world)
    pass_turn(m, 0)
    pass_turn(m, 1)
    ok(m, 2, "cut")  # both 7C are with seat 2 now
    for _ in range(20):
        world = determinise(m.observe(1), rng)
        assert world.hands[2][seven] == 2
        check_world(m, 1, world)


def test_the_joker_kept_from_the_cut_stays_with_its_cutter_D6():
    rules = make_rules("standard", {"players": 3, "joker_in_cut": True})
    for seed in range(200):
        match = new_match("ellibir", rules, seed)
        if match.round.joker_cutter >= 0:
            break
    cutter = match.round.joker_cutter
    other = (cutter + 1) % 3
    rng = random.Random(2)
    for _ in range(30):
        assert determinise(match.observe(other), rng).hands[cutter][JOKER] >= 1


def test_weighting_hook_rejects_worlds():
    match, _ = advance(make_rules("standard", {"players": 2}), 11, ["greedy"] * 2, 20)
    view = match.observe(match.to_move())
    other = 1 - view.seat
    rng = random.Random(3)
    for _ in range(20):  # a weight of 0 without jokers in the other hand: worlds with one are kept
        world = determinise(view, rng, weight=lambda w: 1.0 if w.hands[other][JOKER] else 0.0, tries=200)
        assert world.hands[other][JOKER] or view.hand[JOKER] + sum(
            c == JOKER for m in view.table for c in m.cards) + view.discards.count(JOKER) == 2


# Einundfünfzig through the same interface --------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(players=st.integers(2, 4), seed=st.integers(0, 10**6), steps=st.integers(0, 20))
def test_einundfuenfzig_worlds_keep_the_pack_and_the_view(players, seed, steps):
    from engine.einundfuenfzig import N_CARDS, view_of as e51_view_of

    rules = game_rules("einundfuenfzig", "standard", {"players": players})
    match = new_match("einundfuenfzig", rules, seed)
    rng = random.Random(seed)
    for _ in range(steps):
        seat = match.to_move()
        if seat is None:
            return
        match.apply(seat, rng.choice(simple_decisions(match.observe(seat), match.legal(seat))))
    if match.is_over:
        return
    g = match.game_state
    for seat in range(players):
        view = match.observe(seat)
        world = determinise(view, rng)
        cards = sorted([c for h in world.hands for c in h] + world.talon + world.pile)
        assert cards == list(range(N_CARDS))
        assert e51_view_of(world, seat, rules, view.totals, view.events) == view
        assert world.hands[seat] == g.hands[seat] and world.pile == g.pile and world.total == g.total
        assert [len(h) for h in world.hands] == [len(h) for h in g.hands] and len(world.talon) == len(g.talon)
        fast = world.clone()
        playout(fast, rng)
        assert fast.to_move() is None and sum(fast.utility(s) for s in range(players)) == -1
        assert world.to_move() == g.seat  # the clone played, not the world


@pytest.mark.parametrize("seed,players", [(1, 2), (2, 3), (3, 4)])
def test_a_bot_program_knows_the_same_from_the_protocol_as_in_process(seed, players):
    """A view rebuilt from protocol messages (bots/serve.py: card strings, public events only) gives
    the same knowledge, so a search bot behind the protocol samples from the same worlds."""
    from bots.serve import Client
    from harness.protocol.messages import SeatStream, TimeControl, hello_message

    rules = make_rules("standard", {"players": players, "joker_in_cut": True})
    match, bots = advance(rules, seed, ["greedy"] * players, 0)
    streams = [SeatStream(s, players) for s in range(players)]
    clients = [Client("greedy") for _ in range(players)]
    for s in range(players):
        clients[s].handle(json.loads(json.dumps(hello_message(1, "ellibir", rules, s, TimeControl(), 10**6))))
    seq = 1
    while not match.is_over and match.round.index == 0:
        s = match.to_move()
        view, legal = match.observe(s), match.legal(s)
        seq += 1
        for m in streams[s].catch_up(match.events) + [streams[s].request(seq, view, legal, 1.0, 5.0)]:
            reply = clients[s].handle(json.loads(json.dumps(m)))
        rebuilt = clients[s].view_from_json(clients[s].state, rules, clients[s].history)
        assert read_view(rebuilt) == read_view(view)
        if seq % 7 == 0:
            check_world(match, s, determinise(rebuilt, random.Random(seq)))
        outcome = match.apply_json(s, reply["decision"])
        if not outcome.accepted:
            bots[s].refused(outcome)
            clients[s].handle({"type": "error", "seq": seq, "rule": outcome.rule, "reason": outcome.reason,
                               "penalty": 0})
