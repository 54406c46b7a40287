"""Einundfünfzig (rules E1-E4): the engine, its reference bots, and the protocol without processes.

The game runs behind the same interface as Ellibir (engine/game.py); tests/test_einundfuenfzig_harness.py
runs it through real sandboxed bot programs, the command line and Ray.
"""

from __future__ import annotations

import copy
import json
import random
import re

import pytest
from hypothesis import given, settings, strategies as st

from bots import UnknownBot, make_bot
from bots.einundfuenfzig import Cautious, unseen
from bots.serve import Client
from engine.einundfuenfzig import (
    CARD_NAMES, LIMIT, N_CARDS, Deal, Play, card_str, deal_from_seed, deals_from_json, legal_from_json, legal_json,
    parse_card, parse_play, play_from_json, values_of, view_from_json,
)
from engine.einundfuenfzig_rules import Rules
from engine.events import read_lines, replay, to_lines
from engine.game import get_game, make_rules, new_match, rules_from_dict
from engine.rules import ConfigError
from harness.match.run import run_match
from harness.players.program import BotOptions, SubprocessPlayer
from harness.players.base import InProcessPlayer, PlayerError
from harness.players.make import make_player
from harness.protocol.messages import SeatStream, hello_message, TimeControl, view_json

from protocol_schemas import schema_errors as game_schema_errors
from test_protocol import Loopback, loopback_manifest, validators

GAME = "einundfuenfzig"
E51 = BotOptions(game=GAME)


def rules(**overrides):
    return make_rules(GAME, "standard", {"players": 4, **overrides})


def cards(text: str) -> list[int]:
    return [parse_card(c) for c in text.split()]


def deal(hands: list[str], start: str, dealer: int = 0) -> Deal:
    """A deal with the given hands and face-up card; the talon is the other cards in id order."""
    used = [c for h in hands for c in cards(h)] + [parse_card(start)]
    talon = tuple(c for c in range(N_CARDS) if c not in used)
    return Deal(dealer, tuple(tuple(cards(h)) for h in hands), parse_card(start), talon)


def play_out(match, rng=None, bots=None):
    """Random legal plays (or ``bots`` by seat) to the end of the match."""
    rng = rng or random.Random(0)
    while not match.is_over:
        seat = match.to_move()
        legal = match.legal(seat)
        if bots:
            decision = bots[seat].decide(match.observe(seat), legal)
        else:
            c = rng.choice(legal["cards"])
            decision = Play(c, rng.choice((1, 7)) if c % 8 == 0 else None, rng.choice((1, 7)) if legal["start_choice"] else None)
        assert match.apply(seat, decision).accepted
    return match


# E1: the cards ------------------------------------------------------------------------------------


def test_E1_thirty_two_cards_with_their_values_and_string_forms_that_round_trip():
    assert len(CARD_NAMES) == N_CARDS == 32 and len(set(CARD_NAMES)) == 32
    assert all(parse_card(card_str(c)) == c for c in range(32))
    assert {name[:-1] for name in CARD_NAMES} == {"7", "8", "9", "10", "J", "Q", "K", "A"}
    expected = {"A": (1,), "K": (4,), "Q": (3,), "J": (2,), "10": (-1,), "9": (0,), "8": (8,), "7": (1, 7)}
    for c in range(32):
        assert values_of(c) == expected[card_str(c)[:-1]]
    assert sum(min(values_of(c)) for c in range(32)) == 72  # E4: every game has a loser
    for bad in ("2H", "JK", "11S", "", None, 7):
        with pytest.raises(ValueError, match="E1"):
            parse_card(bad)


def test_E1_the_seven_value_is_part_of_the_play_decision():
    assert str(Play(parse_card("7H"), 1)) == "7H=1" and parse_play("7H=1") == Play(parse_card("7H"), 1)
    assert play_from_json({"card": "7H", "value": 7}) == Play(parse_card("7H"), 7)
    assert parse_play("QS start=7") == Play(parse_card("QS"), None, 7)
    for d in (Play(0, 7), Play(5, None, 1), Play(31)):
        assert parse_play(str(d)) == d and play_from_json(json.loads(json.dumps(d.to_json()))) == d
    m = new_match(GAME, rules(players=2), 0, [deal(["7C 8C 9C 10C JC", "QC KC AC 7D 8D"], "9D", dealer=1)])
    for bad in ({"card": "7C"}, {"card": "7C", "value": 3}, {"card": "8C", "value": 7}):
        outcome = m.apply_json(0, bad)
        assert not outcome.accepted and outcome.rule == "E1", bad
    assert m.apply_text(0, "7C=7").accepted
    assert m.events[-3] == {"e": "play", "seat": 0, "card": "7C", "value": 7, "total": 7}


# E2: the deal ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_E2_five_cards_each_a_face_up_card_starts_the_total_and_the_rest_is_the_talon(players):
    m = new_match(GAME, rules(players=players), 11)
    g = m.game_state
    assert g.first == (g.dealer + 1) % players and m.to_move() == g.first
    sizes = [len(h) for h in g.hands]
    assert sizes[g.first] == 6 and all(n == 5 for s, n in enumerate(sizes) if s != g.first)  # E3: drawn already
    assert len(g.talon) == 32 - 5 * players - 1 - 1 and len(g.pile) == 1
    start = m.events[1]
    assert start["e"] == "round_start" and start["start"] == card_str(g.pile[0])
    if card_str(g.pile[0])[0] != "7":
        assert g.total == values_of(g.pile[0])[0] == start["start_value"]


def test_E2_the_dealer_is_drawn_by_seed_and_rotates_each_game():
    m = play_out(new_match(GAME, rules(rounds=5), 3))
    dealers = [r["dealer"] for r in m.result().rounds]
    assert dealers == [(dealers[0] + k) % 4 for k in range(5)]
    assert all(r["first"] == (r["dealer"] + 1) % 4 for r in m.result().rounds)
    assert len({new_match(GAME, rules(), s).game_state.dealer for s in range(40)}) == 4
    again = play_out(new_match(GAME, rules(rounds=5), 3))  # deterministic from the seed
    assert again.events == m.events
    assert deal_from_seed(4, 3, 0, 1) == deal_from_seed(4, 3, 0, 1) != deal_from_seed(4, 3, 1, 1)


@pytest.mark.parametrize("start_seven,total", [("7", 7), ("1", 1)])
def test_E2_start_seven_fixes_the_face_up_seven(start_seven, total):
    m = new_match(GAME, rules(players=2, start_seven=start_seven), 0, [deal(["8C 9C 10C JC QC", "KC AC 8D 9D 10D"], "7S")])
    assert m.observe(1).total == total and not m.legal(1)["start_choice"]
    assert m.apply_text(1, "KC start=7").rule == "E2"
    assert m.apply_text(1, "KC").accepted and m.observe(0).total == total + 4


def test_E2_first_player_chooses_the_face_up_seven_with_the_first_decision():
    m = new_match(GAME, rules(players=2), 0, [deal(["8C 9C 10C JC QC", "KC AC 8D 9D 10D"], "7S")])
    assert m.rules.start_seven == "first_player" and m.legal(1)["start_choice"]
    assert m.observe(1).start_choice and not m.observe(0).start_choice
    assert m.observe(1).to_json()["values"] == [None]
    refused = m.apply_text(1, "KC")
    assert not refused.accepted and refused.rule == "E2" and "start=1 or start=7" in refused.reason
    assert m.apply_json(1, {"card": "KC", "start": 3}).rule == "E2"
    assert m.apply_json(1, {"card": "KC", "start": 7}).accepted
    assert [e for e in m.events if e["e"] in ("start_value", "play")] == [
        {"e": "start_value", "seat": 1, "value": 7, "total": 7},
        {"e": "play", "seat": 1, "card": "KC", "value": 4, "total": 11}]
    assert m.apply_text(0, "8C start=1").rule == "E2"  # only the first decision carries it


# E3: a turn ---------------------------------------------------------------------------------------


def test_E3_take_the_talon_top_then_play_one_of_six_then_from_the_hand_once_the_talon_is_empty():
    m = new_match(GAME, rules(players=2), 5)
    g = m.game_state
    draws, plays, sizes = [0, 0], [0, 0], []
    while not m.is_over:
        seat = m.to_move()
        draws[seat] = sum(1 for e in m.events if e["e"] == "draw" and e["seat"] == seat)
        assert len(g.hands[seat]) == 5 + draws[seat] - plays[seat]
        sizes.append((len(g.talon), len(g.hands[seat])))
        top = g.talon[-1] if g.talon else None
        c = min(g.hands[seat], key=lambda c: (min(values_of(c)), c))  # the lowest: a long game
        assert m.apply(seat, Play(c, 1 if c % 8 == 0 else None)).accepted
        plays[seat] += 1
        if not m.is_over:
            nxt = m.to_move()
            assert (top in g.hands[nxt]) == (top is not None)  # the next player took the talon's top
    assert all(n == 6 for talon, n in sizes[:-1] if talon > 0)
    assert [n for talon, n in sizes if talon == 0][-1] < 5  # no talon: the hand shrinks


def test_E3_refusals_name_the_rule_and_change_nothing():
    m = new_match(GAME, rules(players=3), 2)
    seat = m.to_move()
    other = (seat + 1) % 3
    hidden = next(c for c in range(32) if c not in m.game_state.hands[seat])
    before = copy.deepcopy((m.game_state.hands, m.game_state.pile, m.game_state.total, m.game_state.talon))
    for who, decision, rule in ((other, {"card": card_str(m.game_state.hands[other][0])}, "E3"),
                                (seat, {"card": card_str(hidden)}, "E3"), (seat, {"card": "2H"}, "E1"),
                                (seat, {"cards": ["KH"]}, "E3"), (seat, ["KH"], "E3"), (seat, {}, "E3")):
        outcome = m.apply_json(who, decision)
        assert not outcome.accepted and outcome.rule == rule and outcome.penalty == 0, (decision, outcome)
    assert m.apply_text(seat, "").rule == "E3" and m.apply_text(seat, "KH please").rule == "E3"
    assert (m.game_state.hands, m.game_state.pile, m.game_state.total, m.game_state.talon) == before
    assert m.events[-1]["e"] == "refused" and m.events[-1]["to"] == seat


# E4: the end ---------------------------------------------------------------------------------------


def test_E4_the_card_that_brings_the_total_to_51_loses_and_ranks_last():
    hands = ["8C 8D 8H 8S KC", "KD KH KS QC QD", "QH QS JC JD JH"]
    m = new_match(GAME, rules(players=3), 0, [deal(hands, "AC", dealer=2)])  # seat 0 first; total 1
    seq = ["8C", "KD", "QH", "8D", "KH", "QS", "8H", "KS", "JC"]  # 1+8+4+3+8+4+3+8+4+2 = 45
    for k, text in enumerate(seq):
        assert m.apply_text(k % 3, text).accepted and not m.is_over
    assert m.observe(0).total == 45
    assert m.apply_text(0, "8S").accepted and m.is_over  # 53: seat 0 loses
    res = m.result()
    assert res.totals == [1, 0, 0] and res.ranks == [3, 1, 1] and res.reason == "complete"
    record = res.rounds[0]
    assert record["loser"] == 0 and record["winners"] == [1, 2] and record["winner"] == -1 and not record["void"]
    assert record["final_total"] == 53 and record["turns"] == 10 and [s["score"] for s in record["seats"]] == [1, 0, 0]
    spec = get_game(GAME)
    assert spec.round_values(record, 0)["lost"] and not spec.round_values(record, 1)["lost"]
    assert set(spec.round_values(record, 2)) == set(spec.round_columns)


def test_E4_a_match_adds_one_per_lost_game_and_the_lowest_total_wins():
    m = play_out(new_match(GAME, rules(players=3, rounds=7), 9))
    res = m.result()
    assert sum(res.totals) == 7 and len(res.rounds) == 7
    for s in range(3):
        assert res.totals[s] == sum(r["loser"] == s for r in res.rounds)
        assert res.ranks[s] == 1 + sum(t < res.totals[s] for t in res.totals)
    assert m.events[-1] == {"e": "match_end", "totals": res.totals, "ranks": res.ranks, "reason": "complete"}


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 10**9), players=st.integers(2, 4), start=st.sampled_from(["7", "1", "first_player"]),
       choice=st.randoms(use_true_random=False))
def test_E4_property_every_game_ends_with_exactly_one_loser_and_all_32_cards_are_accounted_for(seed, players, start, choice):
    m = new_match(GAME, rules(players=players, start_seven=start, rounds=2), seed)
    games = 0
    while not m.is_over:
        g = m.game_state
        held = [c for h in g.hands for c in h]
        assert sorted(held + g.pile + g.talon) == list(range(32))
        assert g.total < LIMIT
        seat = m.to_move()
        c = choice.choice(g.hands[seat])
        legal = m.legal(seat)
        d = Play(c, choice.choice((1, 7)) if c % 8 == 0 else None, choice.choice((1, 7)) if legal["start_choice"] else None)
        assert m.apply(seat, d).accepted
        if g.loser >= 0:
            games += 1
            assert g.total >= LIMIT and g.total - g.values[-1] < LIMIT
            assert sorted([c for h in g.hands for c in h] + g.pile + g.talon) == list(range(32))
    res = m.result()
    assert games == 2 and all(len(r["winners"]) == players - 1 for r in res.rounds)
    assert all(sum(s["score"] for s in r["seats"]) == 1 for r in res.rounds)
    assert sorted(res.ranks)[-1] == players or res.totals.count(max(res.totals)) > 1


# Information hiding, replay, rules ------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), steps=st.integers(0, 20), shuffle=st.randoms(use_true_random=False))
def test_E3_shuffling_hidden_cards_leaves_every_view_unchanged(seed, steps, shuffle):
    """Other hands and the talon order are hidden: shuffle them among themselves, the view stays."""
    m = new_match(GAME, rules(players=4), seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if m.is_over:
            return
        seat = m.to_move()
        c = rng.choice(m.game_state.hands[seat])
        m.apply(seat, Play(c, 7 if c % 8 == 0 else None, 1 if m.legal(seat)["start_choice"] else None))
    if m.is_over:
        return
    for seat in range(4):
        other = copy.deepcopy(m)
        g = other.game_state
        hidden = [c for s, h in enumerate(g.hands) if s != seat for c in h] + g.talon
        shuffle.shuffle(hidden)
        for s, h in enumerate(g.hands):
            if s != seat:
                n = len(h)
                g.hands[s] = sorted(hidden[:n])
                hidden = hidden[n:]
        g.talon = hidden
        assert other.observe(seat).to_json() == m.observe(seat).to_json()
        assert other.legal(seat) == m.legal(seat)


def test_E4_the_event_log_replays_with_refusals_and_explicit_deals():
    d = deal(["7C 8C 9C 10C JC", "QC KC AC 7D 8D"], "7S", dealer=1)
    m = new_match(GAME, rules(players=2, rounds=3), 42, [d])
    assert not m.apply_text(0, "QC start=1").accepted  # seat 0 first: QC is not in its hand
    assert not m.apply_text(0, "8C").accepted  # the face-up 7 needs its value
    play_out(m, random.Random(3))
    again = replay(read_lines(to_lines(m.events)))
    assert again.events == m.events and again.result() == m.result()
    tampered = read_lines(to_lines(m.events))
    k = next(i for i, e in enumerate(tampered) if e["e"] == "play")
    tampered[k]["total"] += 1
    with pytest.raises(ValueError, match="differs"):
        replay(tampered)
    assert deals_from_json(json.loads(json.dumps(d.to_json())), m.rules) == [d]
    for bad in ({**d.to_json(), "start": "7C"}, {**d.to_json(), "hands": d.to_json()["hands"][:1]},
                {**d.to_json(), "dealer": 5}, {"dealer": 0}):
        with pytest.raises(ValueError, match="deal 0"):
            deals_from_json(bad, m.rules)


def test_E2_rules_presets_fields_and_variant_ids():
    r = rules()
    assert isinstance(r, Rules) and r.game == GAME and r.normalised() == {"players": 4, "rounds": 1,
                                                                           "start_seven": "first_player"}
    assert make_rules(GAME, "standard", {"start_seven": 7}).start_seven == "7"
    assert rules_from_dict(GAME, r.normalised()) == r
    ids = {make_rules(GAME, "standard", {"start_seven": v}).variant_id for v in ("7", "1", "first_player")}
    assert len(ids) == 3 and make_rules("ellibir").variant_id not in ids
    for preset, overrides, words in (("tr-wiki", {}, "unknown preset"), ("standard", {"threshold": 71}, "unknown rules field"),
                                     ("standard", {"start_seven": "8"}, "start_seven"),
                                     ("standard", {"players": 5}, "players"), ("standard", {"rounds": 0}, "rounds")):
        with pytest.raises(ConfigError, match=words):
            make_rules(GAME, preset, overrides)
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        make_rules("chess")
    with pytest.raises(ValueError, match="own rules"):
        new_match(GAME, make_rules("ellibir"), 0)


# Reference bots ------------------------------------------------------------------------------------


def test_builtin_names_resolve_within_the_game_being_played():
    assert make_player("builtin:cautious", 0, E51).name == "builtin:cautious"
    assert isinstance(make_player("builtin:random", 0, E51).bot, type(make_bot("random", 0, GAME)))
    with pytest.raises(PlayerError, match="unknown bot 'greedy' for einundfuenfzig"):
        make_player("builtin:greedy", 0, E51)
    with pytest.raises(PlayerError, match="unknown bot 'cautious' for ellibir"):
        make_player("builtin:cautious", 0)
    with pytest.raises(UnknownBot, match="unknown game"):
        make_bot("random", 0, "chess")


def test_E4_cautious_never_crosses_51_when_a_card_avoids_it():
    losses_with_a_way_out = 0
    for seed in range(150):
        m = new_match(GAME, rules(players=3), seed)
        bots = [make_bot("cautious", s, GAME) for s in range(3)]
        for s, b in enumerate(bots):
            b.start(s, m.rules)
        g = m.game_state
        while not m.is_over:
            seat = m.to_move()
            total = g.total + (1 if m.legal(seat)["start_choice"] else 0)
            escape = any(total + v < LIMIT for c in g.hands[seat] for v in values_of(c))
            m.apply(seat, bots[seat].decide(m.observe(seat), m.legal(seat)))
            if m.is_over and escape:
                losses_with_a_way_out += 1
    assert losses_with_a_way_out == 0


def test_E4_cautious_leaves_the_next_player_the_fewest_safe_cards_it_can_know_of():
    """Total 40, hand 8C KC 9C 10C AC JC: KC (44) leaves every unseen card safe but 8s; 8C (48) leaves
    only the cards worth at most 2; cautious plays 8C."""
    m = new_match(GAME, rules(players=2), 0, [deal(["8C KC 9C 10C AC", "8D KD QD JD AD"], "9S", dealer=1)])
    g = m.game_state
    g.total, g.values[0] = 40, 40
    view, legal = m.observe(0), m.legal(0)
    known = set(view.hand) | set(view.pile)
    assert sorted(unseen(view)) == [c for c in range(32) if c not in known]
    choice = Cautious(0).decide(view, legal)
    assert card_str(choice.card) == "8C"
    g.total = 44  # now 8C crosses (52) and the 7 is not held: K (48) leaves the fewest safe cards
    choice = Cautious(0).decide(m.observe(0), m.legal(0))
    assert card_str(choice.card) == "KC"


def test_E4_cautious_loses_far_less_often_than_random():
    """Two players, 400 games with seats swapped: cautious against random."""
    lost = {"cautious": 0, "random": 0}
    for seed in range(200):
        for names in (("cautious", "random"), ("random", "cautious")):
            m = new_match(GAME, rules(players=2), seed)
            bots = [make_bot(n, seed, GAME) for n in names]
            for s, b in enumerate(bots):
                b.start(s, m.rules)
            play_out(m, bots=bots)
            lost[names[m.result().rounds[0]["loser"]]] += 1
    assert lost["cautious"] + lost["random"] == 400
    assert lost["cautious"] < 0.3 * 400, lost  # an even game would lose 200 ± 10 (1 s.e.)


# The protocol (in-process loopback) ---------------------------------------------------------------------


def schema_errors(direction: str, message) -> list[str]:
    """Why ``message`` breaks its Einundfünfzig schema (the game's own, else the shared one) and its direction's union."""
    return game_schema_errors(direction, message, GAME)


def loopback(bot: str, observation="delta", record=None, client=None):
    client = client or Client(bot, observation)
    return SubprocessPlayer(loopback_manifest(bot), E51, record, process=lambda m, o: Loopback(client))


def play_loopback(r, seed, bots, observation="delta"):
    records = {s: [] for s in range(len(bots))}
    players = [loopback(b, observation, records[s]) for s, b in enumerate(bots)]
    result, events, faults = run_match(GAME, r, seed, players)
    return result, events, faults, records


@pytest.mark.parametrize("players,observation", [(2, "delta"), (3, "full"), (4, "delta")])
def test_E2_every_message_of_a_match_fits_the_einundfuenfzig_schemas(players, observation):
    r = rules(players=players, rounds=3, start_seven="first_player")
    result, events, faults, records = play_loopback(r, 21, ["cautious", "random", "cautious", "random"][:players],
                                                    observation)
    assert not faults and result.reason == "complete"
    kinds = set()
    for record in records.values():
        for direction, _pos, message in record:
            d = "to_bot" if direction == "out" else "from_bot"
            assert not schema_errors(d, message), (message, schema_errors(d, message))
            kinds.add((d, message["type"]))
    assert {("to_bot", t) for t in ("hello", "match_start", "round_start", "events", "request", "round_end",
                                    "match_end")} <= kinds
    assert {("from_bot", "hello"), ("from_bot", "decision")} <= kinds


def test_E1_the_schemas_refuse_what_they_should():
    v = validators()["einundfuenfzig.from_bot.decision.json"]
    assert v.is_valid({"type": "decision", "seq": 2, "decision": {"card": "7H", "value": 1, "start": 7}})
    assert v.is_valid({"type": "decision", "seq": 2, "text": "7H=1"})
    for bad in ({"card": "2H"}, {"card": "7H", "value": 3}, {"card": "KH", "start": 0}, {"draw": "stock"},
                {"card": "KH", "extra": 1}, {}):
        assert not v.is_valid({"type": "decision", "seq": 2, "decision": bad}), bad
    events = validators()["einundfuenfzig.to_bot.events.json"]
    assert not events.is_valid({"type": "events", "events": [{"e": "drawn", "seat": 0, "card": "KH", "to": 0}]})
    assert not validators()["einundfuenfzig.to_bot.hello.json"].is_valid(
        hello_message(1, "ellibir", make_rules("ellibir"), 0, TimeControl(), 10**6))


def test_E3_a_bot_rebuilds_the_view_from_deltas_and_decides_as_in_process():
    r = rules(players=3, rounds=4)
    m = new_match(GAME, r, 8)
    streams = [SeatStream(s, 3, game=GAME) for s in range(3)]
    clients = [Client("cautious") for _ in range(3)]
    same = [make_bot("cautious", f"protocol:{s}", GAME) for s in range(3)]
    for s in range(3):
        clients[s].handle(json.loads(json.dumps(hello_message(1, GAME, r, s, TimeControl(), 10**6))))
        same[s].start(s, r)
    seq = deltas = 0
    while not m.is_over:
        s = m.to_move()
        view, legal = m.observe(s), m.legal(s)
        seq += 1
        messages = streams[s].catch_up(m.events) + [streams[s].request(seq, view, legal, 1.0, 5.0)]
        for msg in messages:
            reply = clients[s].handle(json.loads(json.dumps(msg)))
        deltas += "changed" in messages[-1]
        assert clients[s].rebuilt() == view_json(view, s)
        assert reply["decision"] == same[s].decide(view, legal).to_json()
        assert m.apply_json(s, reply["decision"]).accepted
    assert deltas > 20
    view = m.observe(0)
    assert view_from_json(json.loads(json.dumps(view.to_json())), r).to_json() == view.to_json()
    legal = m.legal(m.game_state.seat) if not m.is_over else {"cards": [3, 4], "seat": 0}
    assert legal_json(legal_from_json(json.loads(json.dumps(legal_json(legal))))) == legal_json(legal)


def seen_cards(events: list, seat: int, upto: int) -> set:
    """The card strings ``seat`` has been shown in the first ``upto`` events: its own hands and draws,
    and every public card (the face-up cards and the pile)."""
    out = set()
    for e in events[1:upto]:
        if "to" in e and e["to"] != seat:
            continue
        for key in ("card", "start"):
            if isinstance(e.get(key), str):
                out.add(e[key])
        if e.get("e") == "hand":
            out.update(e["cards"])
    return out


def test_E3_nothing_sent_to_a_bot_reveals_other_hands_or_the_talon():
    checked = 0
    for seed in range(12):
        players = 2 + seed % 3
        result, events, faults, records = play_loopback(rules(players=players, rounds=2), 300 + seed,
                                                        ["random", "cautious", "random", "cautious"][:players],
                                                        "full" if seed % 2 else "delta")
        assert not faults
        for seat, record in records.items():
            for direction, position, message in record:
                if direction != "out":
                    continue
                text = json.dumps(message)
                for key in ('"to"', '"talon"', '"hands"', '"seed"', '"deals"'):
                    assert key not in text, (message["type"], key)
                shown = {c for c in CARD_NAMES if f'"{c}"' in text}
                assert shown <= seen_cards(events, seat, position), (seed, seat, message["type"])
                checked += 1
    assert checked > 300


def test_E3_faults_are_recorded_and_the_reference_bot_plays_the_seat_out():
    class Crashing(InProcessPlayer):
        def decide(self, view, legal):
            raise RuntimeError("boom")

    class Illegal(Client):
        """Plays a card it does not hold, again after every refusal."""

        def on_request(self, msg):
            reply = super().on_request(msg)
            absent = next(c for c in CARD_NAMES if c not in self.state["hand"])
            reply["decision"] = {"card": absent}
            return reply

    record = []
    players = [Crashing(make_bot("random", 0, GAME), "test:crashing"), loopback("illegal", record=record,
               client=Illegal("random")), make_player("builtin:random", 2, E51)]
    result, events, faults = run_match(GAME, rules(players=3, rounds=2), 4, players)
    assert result.reason == "complete" and sorted(f.kind for f in faults) == ["crash", "illegal_action"]
    assert result.ranks[0] == 3 and result.ranks[1] == 3  # forfeit: both faulty seats rank last
    errors = [m for d, _p, m in record if d == "out" and m["type"] == "error"]
    assert len(errors) == 3 and all(e["rule"] == "E3" and "not in your hand" in e["reason"] for e in errors)
    illegal = next(f for f in faults if f.kind == "illegal_action")
    assert "more than 3 refusals" in illegal.reason and "E3" in illegal.reason


def test_E3_the_transcript_in_docs_protocol_is_a_real_match_and_fits_the_schemas():
    """docs/protocol.md's Einundfünfzig transcript: every line fits its schema, and every line the
    harness sends is what it sent in that match (the protocol reference bots, deal seed 3, with a
    client that forgets the 7's value once)."""
    from harness.players.manifest import Manifest

    from test_protocol import ROOT

    text = (ROOT / "docs" / "protocol.md").read_text().split("\n## Einundfünfzig\n")[1]
    lines = re.findall(r"^([<>]) (\{.*\})$", text, flags=re.M)
    assert len(lines) >= 12

    class Forgetful(Client):
        """Leaves out the 7's value the first time, then sends the whole decision as text."""

        kept = None

        def on_request(self, msg):
            reply = super().on_request(msg)
            if self.kept is not None:
                reply, self.kept = {"type": "decision", "seq": msg["seq"], "text": self.kept}, None
            elif "value" in reply["decision"]:
                self.kept = str(play_from_json(reply["decision"]))
                reply["decision"] = {"card": reply["decision"]["card"]}
            return reply

    record = []
    players = [SubprocessPlayer(Manifest(ROOT, "cautious-protocol", "1.0", ("none",)), E51, record,
                                process=lambda m, o: Loopback(Forgetful("cautious"))),
               SubprocessPlayer(Manifest(ROOT, "random-protocol", "1.0", ("none",)), E51, None,
                                process=lambda m, o: Loopback(Client("random")))]
    run_match(GAME, rules(players=2), 3, players)
    sent = [json.dumps(m, sort_keys=True) for d, _p, m in record if d == "out"]
    answered = [json.dumps(m, sort_keys=True) for d, _p, m in record if d == "in"]
    for arrow, body in lines:
        message = json.loads(body)
        direction = "to_bot" if arrow == ">" else "from_bot"
        assert not schema_errors(direction, message), (body[:80], schema_errors(direction, message))
        assert json.dumps(message, sort_keys=True) in (sent if arrow == ">" else answered), body[:120]
