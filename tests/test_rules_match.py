"""A match (X1, X2): counted rounds, void rounds, the early end, ranks, partners."""

from __future__ import annotations

import pytest

from engine import make_rules, new_match
from engine.events import read_lines, replay, to_lines
from engine.scoring import match_ranks
from scenario import build_deal, hand, ok, pass_turn, refused, scores, start, value

OUT_AT_ONCE = "2C 3C 4C 5C 6C 7C 8C 9C 10C 10D JD QD KD AD 2S"  # the first player goes out on turn 1
OUT_TEXT = "open R[2C 3C 4C 5C 6C 7C 8C 9C 10C] R[10D JD QD KD AD]; discard 2S"


def _out_deal(r, dealer):
    hands = [None] * r.players
    hands[(dealer + 1) % r.players] = OUT_AT_ONCE
    return build_deal(r, hands, dealer=dealer)


def _void_deal(r, dealer):
    return build_deal(r, [None] * r.players, dealer=dealer)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_X1_void_rounds_do_not_count_toward_rounds(players):
    """max_turns = 1: a round where the first player only discards is void (T6, T5)."""
    r = make_rules("standard", {"players": players, "rounds": 2, "max_turns": 1})
    deals = [_out_deal(r, 0), _void_deal(r, 1), _out_deal(r, 2 % players)]
    m = new_match("ellibir", r, 3, deals)
    ok(m, 1, OUT_TEXT)
    assert m.counted == 1 and not m.is_over
    ok(m, 2 % players, f"discard {hand(m, 2 % players)[0]}")
    assert m.counted == 1 and not m.is_over and m.records[1]["void"] and m.records[1]["number"] == 0
    ok(m, (3 % players), OUT_TEXT)
    assert m.is_over and m.counted == 2 and len(m.records) == 3
    res = m.result()
    assert res.reason == "complete" and len(res.rounds) == 3
    per_round = [[s["score"] for s in rec["seats"]] for rec in m.records]
    assert res.totals == [sum(x) for x in zip(*per_round)]
    assert per_round[1] == [0] * players
    refused_out = m.apply_text(m.round.seat, "stock")
    assert not refused_out.accepted and refused_out.rule == "X1"


def test_X1_the_match_ends_early_after_max_void_rounds_in_a_row():
    r = make_rules("standard", {"players": 2, "rounds": 5, "max_turns": 1, "max_void_rounds": 3})
    deals = [_void_deal(r, 0), _void_deal(r, 1), _out_deal(r, 0)]  # void, void, scored: the streak restarts
    m = new_match("ellibir", r, 11, deals)
    kinds = []
    while not m.is_over:
        seat = m.to_move()
        if m.round.index == 2:
            ok(m, seat, OUT_TEXT)
        else:
            ok(m, seat, f"discard {hand(m, seat)[0]}")
        kinds.append(m.records[-1]["void"])
    assert kinds == [True, True, False, True, True, True]
    res = m.result()
    assert res.reason == "void_rounds" and m.counted == 1
    assert res.totals == [200, -100]  # only the scored round counts


def test_X1_lowest_total_wins_equal_totals_share_a_rank():
    r = make_rules("standard", {"players": 3, "rounds": 2})
    m = new_match("ellibir", r, 1, [_out_deal(r, 0), _out_deal(r, 2)])
    ok(m, 1, OUT_TEXT)  # [200, -100, 200]
    ok(m, 0, OUT_TEXT)  # [-100, 200, 200]
    res = m.result()
    assert res.totals == [100, 100, 400]
    assert res.ranks == [1, 1, 3]
    assert res.reason == "complete"


def test_X1_one_round_totals_and_ranks():
    m = start([None, OUT_AT_ONCE, None, None], dealer=0)
    ok(m, 1, OUT_TEXT)
    assert m.result().totals == [200, -100, 200, 200] and m.result().ranks == [2, 1, 2, 2]


def test_X1_a_logged_match_replays_to_the_same_events():
    """The log of a deal-file match holds everything needed to play it again (D3)."""
    m = start(["QH 3C", "QH 9S", None], dealer=0, top="AD AH AS")
    ok(m, 1, "discard QH")
    refused(m, 2, "pair", "P1")
    ok(m, 2, "stock")
    ok(m, 2, f"discard {hand(m, 2)[0]}")
    pass_turn(m, 0)
    again = replay(read_lines(to_lines(m.events)))
    assert again.round.hands == m.round.hands and again.round.discards == m.round.discards


# X2 --------------------------------------------------------------------------------------------


def test_X2_partners_the_round_ends_for_everyone_and_the_partner_is_a_loser():
    m = start([OUT_AT_ONCE, None, None, None], dealer=3, partners=True)
    ok(m, 0, OUT_TEXT)
    # G2 and nobody else opened (the partner neither): x2; seat 2 pays as a loser
    assert scores(m) == [-100, 200, 200, 200]
    res = m.result()
    assert res.ranks == [1, 3, 1, 3]  # teams 0+2 = 100 and 1+3 = 400


def test_X2_a_partner_who_had_opened_cancels_G2():
    """Seat 2 opens; seat 3 passes; seat 0 goes out all at once: m = 1 (S2, 'the winner's partner included')."""
    out14 = "2C 3C 4C 5C 6C 7C 8C 9C 10C 10D JD QD KD AD"
    m = start([out14, None, "10H JH QH KH AH 9C 9D 9S 2D", None], dealer=1, partners=True, top="QS 3S")
    ok(m, 2, "open R[10H JH QH KH AH] S[9C 9D 9S]; discard 2D")
    pass_turn(m, 3)
    ok(m, 0, "stock")
    ok(m, 0, "open R[2C 3C 4C 5C 6C 7C 8C 9C 10C] R[10D JD QD KD AD]; discard 3S")
    rec = m.records[0]
    assert rec["finish"]["G2"] and rec["multiplier"] == 1
    assert scores(m) == [-100, 100, value(rec["seats"][2]["left"]), 100]


def test_X2_team_ranks():
    assert match_ranks([10, 20, 30, 40], True) == [1, 3, 1, 3]
    assert match_ranks([10, 20, 50, 0], True) == [3, 1, 3, 1]
    assert match_ranks([10, 20, 20, 10], True) == [1, 1, 1, 1]
    assert match_ranks([10, 20, 30, 40], False) == [1, 2, 3, 4]
