"""Going for pairs (P1, P2)."""

from __future__ import annotations

from engine.observe import legal, observe
from scenario import hand, ok, pass_turn, refused, start, table

# P1 --------------------------------------------------------------------------------------------


def test_P1_declare_at_any_time_in_the_turn_and_it_cannot_be_taken_back():
    m = start(["9S", "QS 2C"], dealer=0, top="AD AH AS")
    ok(m, 1, "declare; discard QS")
    assert m.round.declared == [False, True]
    pass_turn(m, 0)
    ok(m, 1, "stock")
    refused(m, 1, "declare; discard 2C", "P1")  # declared already
    ok(m, 1, "discard 2C")
    assert m.round.declared[1]
    assert observe(m, 0).declared == [False, True]  # public


def test_P1_a_player_who_opened_with_melds_cannot_declare_or_pair_take():
    m = start(["KH", "10H JH QH KH AH 9C 9D 9S 2C"], dealer=0, top="AS AD")
    ok(m, 1, "open R[10H JH QH KH AH] S[9C 9D 9S]; discard 2C")
    ok(m, 0, "stock")
    ok(m, 0, "discard KH")
    d = legal(m.round, 1)["draw"]
    assert not d["pair"] and d["pair_blocked"].startswith("P1")
    refused(m, 1, "pair", "P1")
    ok(m, 1, "stock")
    refused(m, 1, "declare; discard AD", "P1")
    ok(m, 1, "discard AD")


def test_P1_a_declared_player_takes_the_discard_into_a_pair_without_opening():
    m = start(["QH 3C 4C", "QH 9S"], dealer=0, top="AD AH")
    ok(m, 1, "discard QH")
    assert legal(m.round, 0)["draw"]["pair"]
    ok(m, 0, "pair")  # this take declares seat 0
    assert m.round.declared[0] and not m.round.opened[0]
    assert hand(m, 0).count("QH") == 2 and table(m) == []
    # the taken card stays in hand: it may not be this turn's discard, even with its twin in hand
    refused(m, 0, "discard QH", "P1")
    ok(m, 0, "discard 3C")
    assert hand(m, 0).count("QH") == 2


def test_P1_a_joker_in_hand_makes_a_pair_with_any_discard():
    m = start(["JK 3C", "9S"], dealer=0)
    ok(m, 1, "discard 9S")
    ok(m, 0, "pair")
    assert "9S" in hand(m, 0) and "JK" in hand(m, 0)
    refused(m, 0, "discard 9S", "P1")
    ok(m, 0, "discard 3C")


def test_P1_a_pair_take_needs_an_identical_natural_card_or_a_joker():
    m = start(["9C 9D 9H 3C", "9S"], dealer=0)
    ok(m, 1, "discard 9S")
    assert not legal(m.round, 0)["draw"]["pair"]
    refused(m, 0, "pair", "P1")
    ok(m, 0, "stock")


def test_P1_a_declared_player_opens_only_with_pairs():
    m = start([None, "10H JH QH KH AH 9C 9D 9S 2C 2C 3D 3D 4H 4H QS"], dealer=0)
    refused(m, 1, "declare; open R[10H JH QH KH AH] S[9C 9D 9S]; discard QS", "P1", 50)
    ok(m, 1, "declare; discard QS")
    pass_turn(m, 0)
    ok(m, 1, "stock")
    refused(m, 1, "open R[10H JH QH KH AH] S[9C 9D 9S]; discard 2C", "P1", 50)
    assert m.round.penalties[1] == ["O4", "O4"]


def test_P1_a_declared_player_opens_with_pairs():
    m = start([None, "2C 2C 3D 3D 4H 4H 9C 9D 9S QS QD 5S 5S"], dealer=0, top="AD AC")
    ok(m, 1, "declare; discard QS")
    pass_turn(m, 0)
    ok(m, 1, "stock")
    ok(m, 1, "pairs P[2C 2C] P[3D 3D] P[4H 4H] P[5S 5S] S[9C 9D 9S]; discard QD")
    assert m.round.open_method[1] == "pairs" and m.round.declared[1]


# P2 --------------------------------------------------------------------------------------------


def _p2(block: bool):
    """Seat 1 declares and throws 9S; seat 2 (not declared) holds 9S 9C 9D and 10C 10D 10S."""
    return start(["AS", "9S QS", "9S 9C 9D 10C 10D 10S"], dealer=0, top="AD AH", pairs_discard_block=block)


def test_P2_pairs_discard_block_false_the_discard_may_be_taken():
    m = _p2(False)
    ok(m, 1, "declare; discard 9S")
    ok(m, 2, "take; open S[9S 9C 9D] S[10C 10D 10S]")


def test_P2_pairs_discard_block_a_declared_players_discard_is_blocked():
    m = _p2(True)
    ok(m, 1, "declare; discard 9S")
    d = legal(m.round, 2)["draw"]
    assert not d["take"] and d["take_blocked"].startswith("P2") and not d["pair"]
    refused(m, 2, "take; open S[9S 9C 9D] S[10C 10D 10S]", "P2", 0)  # costs nothing (O4)
    refused(m, 2, "pair", "P2")  # a P1 take that would declare seat 2 does not count
    ok(m, 2, "stock")


def test_P2_a_player_declared_before_this_turn_may_take_it():
    m = start(["9S 3C", "QS 9S"], dealer=0, top="AD AH AC", pairs_discard_block=True)
    ok(m, 1, "discard QS")
    ok(m, 0, "stock")
    ok(m, 0, "declare; discard 3C")
    ok(m, 1, "stock")
    ok(m, 1, "declare; discard 9S")
    assert legal(m.round, 0)["draw"]["pair"]
    ok(m, 0, "pair")
    assert hand(m, 0).count("9S") == 2


def test_P2_a_pair_take_declares_at_once_and_blocks_that_players_discard():
    """P1: 'declared from that moment, P2 included'."""
    m = start(["9S 3C", "9S", "3C"], dealer=0, top="AD AH AC", pairs_discard_block=True)
    ok(m, 1, "discard 9S")  # seat 1 is not declared
    ok(m, 2, "stock")
    ok(m, 2, "discard 3C")
    ok(m, 0, "pair")  # 3C: seat 0 holds the other 3C, and is declared now
    ok(m, 0, "discard 9S")
    assert not legal(m.round, 1)["draw"]["take"] and not legal(m.round, 1)["draw"]["pair"]
    refused(m, 1, "pair", "P2")


def test_P1_a_declared_player_takes_the_discard_to_open_with_pairs_T2():
    m = start(["2C 2C 3D 3D 4H 4H 5S 5S 6C 9C", "6C QS"], dealer=0, top="AD AH")
    ok(m, 1, "discard QS")
    ok(m, 0, "stock")
    ok(m, 0, "declare; discard 9C")
    ok(m, 1, "stock")
    ok(m, 1, "discard 6C")
    refused(m, 0, "take; pairs P[2C 2C] P[3D 3D] P[4H 4H] P[5S 5S]", "O2", 50)  # four pairs alone
    ok(m, 0, "take; pairs P[2C 2C] P[3D 3D] P[4H 4H] P[5S 5S] P[6C 6C]")
    assert m.round.open_method[0] == "pairs" and m.round.phase == "play"
