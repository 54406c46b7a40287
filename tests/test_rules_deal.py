"""The deal (D1-D6) and deal files."""

from __future__ import annotations

import random

import pytest

from engine import make_rules, new_match
from engine.cards import JOKER, full_deck, parse_card
from engine.deal import (
    DealError, cutter, deal_from_json, deal_from_seed, deals_from_json, first_dealer, round_rng,
)
from engine.observe import legal, observe
import engine.deal as deal_module
from scenario import build_deal, hand, ok, pass_turn, refused, start


def _counts(d) -> list:
    cards = [c for h in d.hands for c in h] + list(d.stock) + ([d.cut] if d.cut >= 0 else [])
    return sorted(cards)


# D1 --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("direction", ["anticlockwise", "clockwise"])
def test_D1_seat_i_plus_1_plays_after_seat_i_whatever_the_direction(direction):
    m = start([None] * 4, dealer=1, direction=direction)
    order = []
    for _ in range(9):
        seat = m.to_move()
        order.append(seat)
        if m.round.phase == "play":
            ok(m, seat, f"discard {hand(m, seat)[-1]}")
        else:
            pass_turn(m, seat)
    assert order == [2, 3, 0, 1, 2, 3, 0, 1, 2]


def test_D1_a_seat_out_of_turn_is_refused_T1():
    """No one draws (or plays) before the previous player has discarded (T1)."""
    m = start([None] * 3, dealer=0)
    refused(m, 2, "stock", "T1")
    refused(m, 0, "discard " + hand(m, 0)[0], "T1")
    ok(m, 1, "discard " + hand(m, 1)[0])
    refused(m, 0, "stock", "T1")
    refused(m, 1, "stock", "T1")
    ok(m, 2, "stock")


def test_D1_direction_changes_only_who_cuts():
    for dealer in range(4):
        a = make_rules("standard", {"direction": "anticlockwise", "joker_in_cut": True})
        c = make_rules("standard", {"direction": "clockwise", "joker_in_cut": True})
        assert cutter(a, dealer) == (dealer - 1) % 4  # the seat before the dealer in play order
        assert cutter(c, dealer) == (dealer + 1) % 4  # the first player
    a = make_rules("standard", {"direction": "anticlockwise"})
    c = make_rules("standard", {"direction": "clockwise"})
    for seed in range(5):
        for index in range(3):
            assert deal_from_seed(a, seed, index, index % 4) == deal_from_seed(c, seed, index, index % 4)


# D2 --------------------------------------------------------------------------------------------


def test_D2_first_dealer_is_drawn_by_seed():
    dealers = set()
    for seed in range(40):
        m = new_match("ellibir", make_rules(), seed)
        assert m.round.dealer == first_dealer(seed, 4)
        assert new_match("ellibir", make_rules(), seed).round.dealer == m.round.dealer
        assert m.round.first == (m.round.dealer + 1) % 4
        assert m.to_move() == m.round.first
        dealers.add(m.round.dealer)
    assert dealers == {0, 1, 2, 3}


def test_D2_the_deal_passes_on_after_every_round_void_rounds_included():
    """Round 0 is scored (the first player goes out at once), then void rounds (T6 with max_turns=1)."""
    r = make_rules("standard", {"players": 3, "rounds": 2, "max_turns": 1, "max_void_rounds": 4})
    winner_hand = "2C 3C 4C 5C 6C 7C 8C 9C 10C 10D JD QD KD AD 2S"
    d0 = build_deal(r, [None, winner_hand, None], dealer=0)
    m = new_match("ellibir", r, 7, [d0])
    ok(m, 1, "open R[2C 3C 4C 5C 6C 7C 8C 9C 10C] R[10D JD QD KD AD]; discard 2S")
    assert len(m.records) == 1 and not m.records[0]["void"]
    dealers, firsts = [m.records[0]["dealer"]], [m.records[0]["first"]]
    while not m.is_over:
        seat = m.to_move()
        assert seat == (m.round.dealer + 1) % 3
        ok(m, seat, f"discard {hand(m, seat)[0]}")
        dealers.append(m.records[-1]["dealer"])
        firsts.append(m.records[-1]["first"])
    assert [rec["void"] for rec in m.records] == [False, True, True, True, True]
    assert m.result().reason == "void_rounds"
    assert dealers == [i % 3 for i in range(len(dealers))]
    assert firsts == [(i + 1) % 3 for i in range(len(firsts))]


# D3 --------------------------------------------------------------------------------------------


def test_D3_a_deal_is_reproducible_from_its_seed_and_round_index():
    r = make_rules()
    assert deal_from_seed(r, "abc", 3, 1) == deal_from_seed(r, "abc", 3, 1)
    assert deal_from_seed(r, "abc", 3, 1) != deal_from_seed(r, "abc", 4, 1)
    assert deal_from_seed(r, "abc", 3, 1) != deal_from_seed(r, "abd", 3, 1)
    for seed in range(3):
        d = deal_from_seed(r, seed, 0, 0)
        assert _counts(d) == sorted(full_deck())


def test_D3_matches_that_share_a_deal_seed_see_the_same_deals_in_order():
    r = make_rules("standard", {"players": 3, "max_turns": 1, "rounds": 1, "max_void_rounds": 4})

    def deals(seed):
        m = new_match("ellibir", r, seed)
        out = []
        while not m.is_over:
            out.append((m.round.dealer, m.round.deal))
            ok(m, m.to_move(), f"discard {hand(m, m.to_move())[0]}")
        return out

    a, b = deals(99), deals(99)
    assert len(a) == 4 and a == b
    assert [d for _, d in a] == [deal_from_seed(r, 99, i, a[i][0]) for i in range(4)]
    assert deals(100) != a


def test_D3_a_deal_file_list_is_used_for_rounds_in_order_void_included_then_the_seed():
    r = make_rules("standard", {"players": 2, "max_turns": 1, "max_void_rounds": 3})
    d0 = build_deal(r, ["AS KS QS", None], dealer=0)
    d1 = build_deal(r, ["2C 2D 2H", None], dealer=1)
    m = new_match("ellibir", r, 5, [d0, d1])
    assert m.round.deal == d0
    ok(m, 1, f"discard {hand(m, 1)[0]}")  # void round (T6)
    assert m.round.deal == d1
    ok(m, 0, f"discard {hand(m, 0)[0]}")
    assert m.round.deal == deal_from_seed(r, 5, 2, 0)  # index 2 counts the void rounds; dealer passed on
    ok(m, m.to_move(), f"discard {hand(m, m.to_move())[0]}")
    assert m.is_over and m.result().reason == "void_rounds"


def _deal_json(r, **change):
    d = build_deal(r, [None] * r.players, dealer=0).to_json()
    d.update(change)
    return d


def test_D3_deal_file_counts_must_add_up_to_106():
    r = make_rules("standard", {"players": 2})
    good = _deal_json(r)
    assert deal_from_json(good, r).stock
    short = _deal_json(r, stock=good["stock"][:-1])
    with pytest.raises(DealError, match="106"):
        deal_from_json(short, r)
    long = _deal_json(r, stock=good["stock"] + ["2C"])
    with pytest.raises(DealError):
        deal_from_json(long, r)
    assert good["stock"][0] not in ("AS", "JK")
    swapped = _deal_json(r, stock=["AS"] + good["stock"][1:])  # 106 cards, but a third ace of spades
    with pytest.raises(DealError, match="appears"):
        deal_from_json(swapped, r)
    three_jokers = _deal_json(r, stock=["JK"] + good["stock"][1:])
    with pytest.raises(DealError, match="appears"):
        deal_from_json(three_jokers, r)


def test_D3_deal_file_with_a_wrong_hand_size_is_refused():
    r = make_rules("standard", {"players": 2})
    good = _deal_json(r)
    # dealer 0: seat 1 plays first and holds 15 (D4); move one of its cards to seat 0
    h0, h1 = good["hands"]
    bad = _deal_json(r, hands=[h0 + h1[:1], h1[1:]])
    with pytest.raises(DealError, match="hands"):
        deal_from_json(bad, r)
    with pytest.raises(DealError):
        deal_from_json(_deal_json(r, hands=[h0]), r)
    fourteen = make_rules("standard", {"players": 2, "deal": "fourteen"})
    with pytest.raises(DealError, match="15"):
        deal_from_json(good, fourteen)


@pytest.mark.parametrize("change", [
    {"dealer": 2}, {"dealer": -1}, {"dealer": True}, {"hands": "2C"}, {"stock": "2C 3C"},
    {"colour": "red"}, {"cut": "2C"}, {"joker_cutter": 1},
])
def test_D3_malformed_deal_files_are_refused(change):
    r = make_rules("standard", {"players": 2})
    with pytest.raises(DealError):
        deal_from_json(_deal_json(r, **change), r)


def test_D3_a_bad_card_in_a_deal_file_is_a_DealError():
    r = make_rules("standard", {"players": 2})
    good = _deal_json(r)
    with pytest.raises(DealError, match="1H"):
        deal_from_json(_deal_json(r, stock=["1H"] + good["stock"][1:]), r)


def test_D3_deal_files_round_trip_and_lists_are_named_in_errors():
    r = make_rules("standard", {"players": 2})
    d = build_deal(r, [None, None], dealer=1)
    assert deal_from_json(d.to_json(), r) == d
    assert deals_from_json({"deals": [d.to_json(), d.to_json()]}, r) == [d, d]
    assert deals_from_json(d.to_json(), r) == [d]
    with pytest.raises(DealError, match="deal 1"):
        deals_from_json([d.to_json(), {**d.to_json(), "dealer": 5}], r)
    with pytest.raises(DealError):
        deals_from_json([], r)


# D4 --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_D4_fifteen_first_player_gets_15_dealt_two_at_a_time(players):
    r = make_rules("standard", {"players": players})
    seed, index, dealer = "d4", 0, players - 1
    d = deal_from_seed(r, seed, index, dealer)
    first = 0
    assert [len(h) for h in d.hands] == [15] + [14] * (players - 1)
    assert len(d.stock) == 106 - 14 * players - 1
    # two at a time starting with the first player: the shuffled deck dealt out in pairs
    deck = full_deck()
    round_rng(seed, index).shuffle(deck)
    order = [(first + i) % players for i in range(players)]
    expect = {s: [] for s in order}
    pos = 0
    while any(len(expect[s]) < len(d.hands[s]) for s in order):
        for s in order:
            k = min(2, len(d.hands[s]) - len(expect[s]))
            expect[s] += deck[pos:pos + k]
            pos += k
    assert [list(d.hands[s]) for s in range(players)] == [expect[s] for s in range(players)]
    assert list(d.stock) == deck[pos:]
    assert expect[first][:2] == deck[:2] and expect[first][-1] == deck[pos - 1]


def test_D4_first_turn_has_no_draw():
    m = start([None, None, None], dealer=2)
    assert m.round.first == 0 and m.round.phase == "play"
    assert observe(m, 0).phase == "play" and "draw" not in legal(m.round, 0)
    refused(m, 0, "stock", "D4")
    ok(m, 0, f"discard {hand(m, 0)[0]}")
    assert m.round.phase == "draw"
    refused(m, 1, f"discard {hand(m, 1)[0]}", "T1")
    ok(m, 1, "stock")


def test_D4_the_first_player_may_open_and_even_go_out_on_the_first_turn():
    m = start([None, "2C 3C 4C 5C 6C 7C 8C 9C 10C 10D JD QD KD AD 2S"], dealer=0)
    ok(m, 1, "open R[2C 3C 4C 5C 6C 7C 8C 9C 10C] R[10D JD QD KD AD]; discard 2S")
    rec = m.records[0]
    assert rec["winner"] == 1 and rec["end"] == "out" and rec["turns"] == 1
    assert rec["finish"]["G2"]


def test_D4_first_player_opens_on_the_first_turn_without_going_out():
    m = start([None, "10H JH QH KH AH 9C 9D 9S 2C"], dealer=0)
    ok(m, 1, "open R[10H JH QH KH AH] S[9C 9D 9S]; discard 2C")
    assert m.round.opened == [False, True] and len(hand(m, 1)) == 15 - 8 - 1


# D5 --------------------------------------------------------------------------------------------


def test_D5_fourteen_every_player_gets_14_and_the_first_turn_is_normal():
    r = make_rules("standard", {"deal": "fourteen", "players": 3})
    d = deal_from_seed(r, 1, 0, 0)
    assert [len(h) for h in d.hands] == [14, 14, 14] and len(d.stock) == 106 - 42
    m = start([None, "10H JH QH KH AH 9C 9D 9S 2C", None], dealer=0, deal="fourteen", top="KC")
    assert m.round.phase == "draw" and m.to_move() == 1
    refused(m, 1, "open R[10H JH QH KH AH] S[9C 9D 9S]; discard 2C", "T1")
    ok(m, 1, "stock")
    assert "KC" in hand(m, 1) and len(hand(m, 1)) == 15
    ok(m, 1, "open R[10H JH QH KH AH] S[9C 9D 9S]; discard 2C")
    with pytest.raises(DealError):
        build_deal(r, [None, "10H JH QH KH AH 9C 9D 9S 2C 3C 4C 5C 6C 7C 8C", None], dealer=0)


# D6 --------------------------------------------------------------------------------------------


class _RecordingRandom(random.Random):
    calls = []

    def randrange(self, *args):
        _RecordingRandom.calls.append(args)
        return super().randrange(*args)


def test_D6_the_cut_leaves_at_least_two_cards_on_each_side(monkeypatch):
    monkeypatch.setattr(deal_module, "round_rng", lambda seed, index: _RecordingRandom(f"ellibir-deal:{seed}:{index}"))
    _RecordingRandom.calls = []
    r = make_rules("standard", {"joker_in_cut": True})
    for seed in range(20):
        d = deal_from_seed(r, seed, 0, 0)
        assert _counts(d) == sorted(full_deck())
    assert _RecordingRandom.calls and set(_RecordingRandom.calls) == {(2, 104)}
    # positions 2..103 of 106: at least 2 cards before, and 106 - 1 - 103 = 2 after


def _seed_with(r, joker: bool, dealer=0):
    for seed in range(2000):
        d = deal_from_seed(r, seed, 0, dealer)
        if (d.joker_cutter >= 0) == joker:
            return d
    raise AssertionError("no such seed")


@pytest.mark.parametrize("direction,cut_seat", [("anticlockwise", 3), ("clockwise", 1)])
def test_D6_a_joker_in_the_cut_is_kept_by_the_cutter_who_is_dealt_one_card_fewer(direction, cut_seat):
    r = make_rules("standard", {"joker_in_cut": True, "direction": direction, "deal": "fourteen"})
    d = _seed_with(r, joker=True)
    assert d.joker_cutter == cut_seat and d.cut == -1
    assert JOKER in d.hands[cut_seat]
    assert [len(h) for h in d.hands] == [14] * 4  # the kept joker plus 13 dealt
    assert _counts(d) == sorted(full_deck())
    assert len(d.stock) == 106 - 56
    m = new_match("ellibir", r, 0, [d])
    assert observe(m, 0).joker_cutter == cut_seat and observe(m, 0).cut == -1


def test_D6_an_ordinary_cut_card_lies_face_up_at_the_bottom_and_is_drawn_last():
    r = make_rules("standard", {"joker_in_cut": True})
    d = _seed_with(r, joker=False)
    assert d.cut >= 0 and d.cut != JOKER and d.joker_cutter == -1
    assert [len(h) for h in d.hands] == [14, 15, 14, 14]
    m = start([None] * 4, dealer=0, cut="7C", joker_in_cut=True, max_turns=1000)
    for seat in range(4):
        assert observe(m, seat).cut == parse_card("7C")  # everyone sees it
    assert observe(m, 0).stock_size == 106 - 57  # T5 counts it as stock
    ok(m, 1, f"discard {hand(m, 1)[0]}")
    while observe(m, 0).stock_size > 1:
        pass_turn(m, m.to_move())
    seat = m.to_move()
    before = hand(m, seat).count("7C")
    assert observe(m, seat).cut == parse_card("7C")
    ok(m, seat, "stock")
    assert hand(m, seat).count("7C") == before + 1
    assert observe(m, seat).cut == -1 and observe(m, seat).stock_size == 0


def test_D6_with_fourteen_the_first_player_may_take_the_cut_card_on_the_first_turn():
    m = start([None] * 3, dealer=0, cut="7C", joker_in_cut=True, deal="fourteen")
    assert legal(m.round, 1)["draw"]["cut"]
    ok(m, 1, "cut")
    assert "7C" in hand(m, 1) and observe(m, 0).cut == -1 and observe(m, 0).stock_size == 106 - 42 - 1
    ok(m, 1, "discard 7C")
    refused(m, 2, "cut", "D6")


def test_D6_only_the_first_player_on_the_first_turn_takes_the_cut_without_a_claim():
    m = start([None] * 3, dealer=0, cut="7C", joker_in_cut=True, deal="fourteen")
    ok(m, 1, "stock")
    ok(m, 1, f"discard {hand(m, 1)[0]}")
    refused(m, 2, "cut", "D6")
    pass_turn(m, 2)
    pass_turn(m, 0)
    refused(m, 1, "cut", "D6")
    # under fifteen nobody takes it on the first turn (there is no draw at all, D4)
    m = start([None] * 3, dealer=0, cut="7C", joker_in_cut=True)
    refused(m, 1, "cut", "D4")


def test_D6_a_declared_pairs_player_claims_the_cut_card_and_takes_it_from_the_next_turn():
    m = start([None, None, "7C KS QS"], dealer=0, cut="7C", joker_in_cut=True, top="2C 2D 2H 2S")
    ok(m, 1, f"discard {hand(m, 1)[0]}")
    ok(m, 2, "stock")
    assert legal(m.round, 2)["can_claim_cut"]  # by declaring in the same decision
    refused(m, 2, "claim 7C; discard KS", "D6")  # not declared
    refused(m, 2, "declare; claim 8C; discard KS", "D6")  # not the cut card
    ok(m, 2, "declare; claim 7C; discard KS")
    assert m.round.cut_claim == 2 and m.round.declared[2]
    pass_turn(m, 0)
    pass_turn(m, 1)
    assert legal(m.round, 2)["draw"]["cut"]
    ok(m, 2, "cut")
    assert hand(m, 2).count("7C") == 2 and observe(m, 0).cut == -1
    ok(m, 2, "discard QS")


def test_D6_the_first_claim_counts_and_a_later_claim_is_refused():
    """Seat 1 claims 7C, later throws its 7C away; seat 2 takes it into a pair (P1) and then tries to claim."""
    m = start([None, "7C 9S", "JK KS QS"], dealer=0, cut="7C", joker_in_cut=True, top="2C 2D 2H 3C 3D 3H 4C")
    ok(m, 1, "declare; claim 7C; discard 9S")
    ok(m, 2, "stock")
    ok(m, 2, "declare; discard KS")
    pass_turn(m, 0)
    ok(m, 1, "stock")
    ok(m, 1, "discard 7C")
    ok(m, 2, "pair")
    assert hand(m, 2).count("7C") == 1
    ok(m, 2, "discard QS")
    pass_turn(m, 0)
    pass_turn(m, 1)
    ok(m, 2, "stock")
    out = refused(m, 2, "claim 7C; discard 7C", "D6")
    assert "seat 1" in out.reason


def test_D6_the_claim_lapses_while_the_identical_card_is_not_in_hand():
    m = start([None, "7C 9S", None], dealer=0, cut="7C", joker_in_cut=True, top="2C 2D 2H")
    ok(m, 1, "declare; claim 7C; discard 9S")
    pass_turn(m, 2)
    pass_turn(m, 0)
    ok(m, 1, "stock")
    ok(m, 1, "discard 7C")  # the shown card leaves the hand
    pass_turn(m, 2)
    pass_turn(m, 0)
    refused(m, 1, "cut", "D6")


def test_D6_a_player_who_opened_with_melds_cannot_claim():
    m = start([None, "7C 10H JH QH KH AH 9C 9D 9S 2C", None], dealer=0, cut="7C", joker_in_cut=True, top="AD AS 2D")
    ok(m, 1, "open R[10H JH QH KH AH] S[9C 9D 9S]; discard 2C")
    pass_turn(m, 2)
    pass_turn(m, 0)
    ok(m, 1, "stock")
    assert "2D" in hand(m, 1) and not legal(m.round, 1)["can_claim_cut"]
    refused(m, 1, "claim 7C; discard 2D", "D6")
    refused(m, 1, "declare; claim 7C; discard 2D", "P1")


def test_D6_cut_and_joker_cutter_in_deal_files_are_checked():
    r = make_rules("standard", {"joker_in_cut": True, "players": 2})
    d = build_deal(r, [None, None], dealer=0, cut="7C")
    assert d.cut == parse_card("7C")
    with pytest.raises(DealError):
        build_deal(r, [None, None], dealer=0)  # neither cut nor joker_cutter
    with pytest.raises(DealError):
        build_deal(r, [None, None], dealer=0, cut="JK")
    with pytest.raises(DealError):
        build_deal(r, ["JK", None], dealer=0, joker_cutter=0)  # the cutter of dealer 0 is seat 1
    d = build_deal(r, [None, "JK"], dealer=0, joker_cutter=1)
    assert d.joker_cutter == 1 and len(d.hands[1]) == 15
    with pytest.raises(DealError):
        build_deal(r, [None, None], dealer=0, joker_cutter=1)  # the cutter holds no joker
