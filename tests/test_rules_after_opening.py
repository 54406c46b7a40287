"""After opening (A1-A6)."""

from __future__ import annotations

import pytest

from engine.cards import parse_card
from engine.errors import Refusal
from engine.melds import SET, make_meld, take_joker
from engine.observe import legal
from scenario import hand, ids, ok, pass_turn, refused, scores, start, table

# A1 --------------------------------------------------------------------------------------------


def test_A1_further_melds_with_no_minimum_from_the_opening_turn_on():
    m = start(["2C", "5H 6H 7H 8H KC KD KS 2S 3S 4S 10C 10D 10S QC QD"], dealer=0, top="9C AD")
    refused(m, 1, "meld R[2S 3S 4S]; discard QC", "A1")  # not before opening, and no penalty
    ok(m, 1, "open R[5H 6H 7H 8H] S[KC KD KS]; meld R[2S 3S 4S]; discard QC")  # the 9-point run follows
    pass_turn(m, 0)
    ok(m, 1, "stock")
    ok(m, 1, "meld S[10C 10D 10S]; discard QD")
    assert table(m) == ["R[5H 6H 7H 8H]", "S[KC KD KS]", "R[2S 3S 4S]", "S[10C 10D 10S]"]
    assert m.round.open_value[1] == 56


# A2 --------------------------------------------------------------------------------------------


def _layoff_table():
    """Seat 1: R[5H 6H 7H 8H] S[KC KD KS] (melds 0, 1); seat 0: R[QS KS AS] R[2D 3D 4D 5D] S[10C 10D 10H] (2-4)."""
    m = start(["QS KS AS 2D 3D 4D 5D 10C 10D 10H 9H", "5H 6H 7H 8H KC KD KS 4H 9H KH JS 6D KC JK QC"],
              dealer=0, top="2C 3C")
    ok(m, 1, "open R[5H 6H 7H 8H] S[KC KD KS]; discard QC")
    ok(m, 0, "stock")
    refused(m, 0, "layoff 0 9H; discard 2C", "A2")  # not before opening
    ok(m, 0, "open R[QS KS AS] R[2D 3D 4D 5D] S[10C 10D 10H]; discard 2C")
    ok(m, 1, "stock")
    return m


def test_A2_lay_off_on_own_and_other_melds_at_either_end_of_a_run():
    m = _layoff_table()
    refused(m, 1, "layoff 0 9H low; discard 3C", "A2")  # 9H fits the high end only
    refused(m, 1, "layoff 2 6D; discard 3C", "A2")  # 6D belongs to meld 3
    ok(m, 1, "layoff 0 4H; layoff 0 9H high; layoff 2 JS; layoff 3 6D; discard 3C")
    assert table(m)[:4] == ["R[4H 5H 6H 7H 8H 9H]", "S[KC KD KS]", "R[JS QS KS AS]", "R[2D 3D 4D 5D 6D]"]


def test_A2_a_run_stays_within_2_to_ace():
    m = _layoff_table()
    refused(m, 1, "layoff 2 JK high; discard 3C", "A2")  # nothing above the ace
    refused(m, 1, "layoff 3 JK low; discard 3C", "A2")  # nothing below the two
    ok(m, 1, "layoff 2 JK; discard 3C")  # the only end left: J-Q-K-A of spades
    assert table(m)[2] == "R[JK QS KS AS]"


def test_A2_a_set_grows_up_to_four_suits():
    m = _layoff_table()
    refused(m, 1, "layoff 1 KC; discard 3C", "A2")  # clubs already in the set
    ok(m, 1, "layoff 1 KH; discard 3C")
    assert table(m)[1] == "S[KC KD KS KH]"
    pass_turn(m, 0)
    ok(m, 1, "stock")
    refused(m, 1, "layoff 1 JK; discard 4H", "A2")  # four cards: full
    refused(m, 1, "layoff 1 KC; discard 4H", "A2")


def test_A2_pairs_are_not_laid_off_onto():
    m = start(["9S", "2C 2C 3D 3D 4H 4H 5S 5S 6C 6C 2S 3S 4S QS JK"], dealer=0, top="JD 3C")
    ok(m, 1, "pairs P[2C 2C] P[3D 3D] P[4H 4H] P[5S 5S] P[6C 6C]; discard QS")
    pass_turn(m, 0)
    ok(m, 1, "stock")
    refused(m, 1, "layoff 0 JK; discard 2S", "A2")
    ok(m, 1, "meld R[2S 3S 4S]; layoff 5 JK high; discard 3C")
    assert table(m)[5] == "R[2S 3S 4S JK]"


def test_A2_decision_pairs_openers_lay_off_too():
    m = start(["10C JC QC KC AC 9D 10D JD 2H", "2C 2C 3D 3D 4H 4H 5S 5S 6C 6C 9C 8D QS"], dealer=1, top="AH")
    ok(m, 0, "open R[10C JC QC KC AC] R[9D 10D JD]; discard 2H")  # 51 + 29
    ok(m, 1, "stock")
    ok(m, 1, "pairs P[2C 2C] P[3D 3D] P[4H 4H] P[5S 5S] P[6C 6C]; layoff 0 9C; layoff 1 8D; discard QS")
    assert table(m)[:2] == ["R[9C 10C JC QC KC AC]", "R[8D 9D 10D JD]"]
    assert m.round.open_method[1] == "pairs"


# A3 --------------------------------------------------------------------------------------------

PAIRS_HAND = "2C 2C 3D 3D 4H 4H 5S 5S 6C 6C 7D 7D QS"


def test_A3_pairs_layoff_false_no_pairs_beside_pairs():
    m = start([None, PAIRS_HAND], dealer=0)
    refused(m, 1, "pairs P[2C 2C] P[3D 3D] P[4H 4H] P[5S 5S] P[6C 6C]; pair 1 P[7D 7D]; discard QS", "A3")
    ok(m, 1, "pairs P[2C 2C] P[3D 3D] P[4H 4H] P[5S 5S] P[6C 6C]; discard QS")


def test_A3_pairs_layoff_true_pairs_beside_a_pairs_openers_pairs():
    m = start(["9S JK 10C 10D 10H JC JD JH 8S 8S 2S", PAIRS_HAND], dealer=0, top="AH", pairs_layoff=True)
    # beside one's own pairs, in the opening turn
    ok(m, 1, "pairs P[2C 2C] P[3D 3D] P[4H 4H] P[5S 5S] P[6C 6C]; pair 1 P[7D 7D]; discard QS")
    assert m.round.table[5].beside == 1 and table(m)[5] == "P[7D 7D]"
    ok(m, 0, "stock")
    refused(m, 0, "pair 1 P[9S JK]; discard AH", "A3")  # not opened
    refused(m, 0, "open S[10C 10D 10H] S[JC JD JH]; pair 0 P[9S JK]; discard AH", "A3")  # seat 0 opened with melds
    refused(m, 0, "open S[10C 10D 10H] S[JC JD JH]; pair 1 S[8S 8S 8S]; discard AH", "M2")
    ok(m, 0, "open S[10C 10D 10H] S[JC JD JH]; pair 1 P[9S JK] P[8S 8S]; discard AH")
    assert m.round.table[-2].beside == 1 and m.round.table[-2].owner == 0
    assert table(m)[-2:] == ["P[9S JK]", "P[8S 8S]"]


# A4 --------------------------------------------------------------------------------------------


def _joker_run_table(**overrides):
    """Seat 1 opened R[5H 6H JK 8H] S[KC KD KS] (the joker is 7H); seat 0 has drawn."""
    m = start(["7H 8H 10C 10D 10S JC JD JS 4S", "5H 6H JK 8H KC KD KS QC 9C 9D 9S 2D"], dealer=0,
              top="2S 3S", **overrides)
    ok(m, 1, "open R[5H 6H JK 8H] S[KC KD KS]; discard QC")
    ok(m, 0, "stock")
    return m


def test_A4_who_a_player_who_has_opened_or_opens_this_turn():
    m = _joker_run_table()
    refused(m, 0, "joker 0 7H; discard 4S", "A4")  # not opened and not opening
    refused(m, 0, "joker 0 8H; open S[10C 10D 10S] S[JC JD JS]; discard 4S", "A4")  # the joker is 7H
    ok(m, 0, "joker 0 7H; open S[10C 10D JK] S[JC JD JS]; discard 4S")  # the freed joker opens as a 10
    assert table(m)[0] == "R[5H 6H 7H 8H]" and table(m)[2] == "S[10C 10D JK]"
    assert m.round.open_value[0] == 60


def test_A4_the_joker_goes_to_the_hand_and_may_be_kept():
    m = _joker_run_table()
    ok(m, 0, "open S[10C 10D 10S] S[JC JD JS]; joker 0 7H; discard 4S")
    assert "JK" in hand(m, 0) and table(m)[0] == "R[5H 6H 7H 8H]"
    pass_turn(m, 1)
    ok(m, 0, "stock")
    assert "JK" in hand(m, 0)


def _own_joker_table(**overrides):
    """Seat 1 opened R[5H 6H JK 8H] S[KC KD KS] and holds 7H; seat 0 passed; seat 1 has drawn."""
    m = start(["7H 10C 10D 10S JC JD JS 2S", "5H 6H JK 8H 7H KC KD KS QC 9D"], dealer=0, top="2D 3D AS",
              **overrides)
    ok(m, 1, "open R[5H 6H JK 8H] S[KC KD KS]; discard QC")
    ok(m, 0, "stock")
    ok(m, 0, "discard 2S")
    ok(m, 1, "stock")
    return m


def test_A4_joker_take_from_others_refuses_own_melds_allows_others():
    m = _own_joker_table(joker_take_from="others")
    refused(m, 1, "joker 0 7H; discard 9D", "A4")
    ok(m, 1, "discard 9D")
    ok(m, 0, "stock")
    ok(m, 0, "joker 0 7H; open S[10C 10D 10S] S[JC JD JS]; discard AS")
    assert "JK" in hand(m, 0) and table(m)[0] == "R[5H 6H 7H 8H]"


def test_A4_joker_take_from_any_allows_own_melds():
    m = _own_joker_table()
    ok(m, 1, "joker 0 7H; discard 9D")
    assert "JK" in hand(m, 1) and table(m)[0] == "R[5H 6H 7H 8H]"


def _joker_set_table(set_cards, **overrides):
    """Seat 1 opened S[set_cards] R[9C 10C JC QC]; seat 0 holds kings, aces, and J-set + 10-set to open."""
    m = start(["KH KD KC AH AD 10H 10D 10S JH JD JS 2S", f"{set_cards} 9C 10C JC QC 3C"], dealer=0, top="4S",
              **overrides)
    ok(m, 1, f"open S[{set_cards}] R[9C 10C JC QC]; discard 3C")
    ok(m, 0, "stock")
    return m


OPEN0 = "open S[10H 10D 10S] S[JH JD JS]"


def test_A4_set_joker_swap_one_frees_one_joker_per_natural_card():
    m = _joker_set_table("KS JK JK")
    refused(m, 0, f"{OPEN0}; joker 0 KS; discard 4S", "T3")  # no KS in hand
    refused(m, 0, f"{OPEN0}; joker 0 KH KD; discard 4S", "A4")  # one card frees one joker
    ok(m, 0, f"{OPEN0}; joker 0 KH; discard 4S")
    assert hand(m, 0).count("JK") == 1 and sorted(m.round.table[0].cards)[:2] == sorted([parse_card("KS"), parse_card("KH")])
    assert m.round.table[0].jokers == 1
    pass_turn(m, 1)
    ok(m, 0, "stock")
    ok(m, 0, f"joker 0 KD; discard {[c for c in hand(m, 0) if c not in ('JK', 'KC', 'AH', 'AD')][0]}")
    assert hand(m, 0).count("JK") == 2 and m.round.table[0].jokers == 0


def test_A4_set_joker_swap_one_refuses_a_suit_already_in_the_set():
    m = _joker_set_table("KS KH JK")
    refused(m, 0, f"{OPEN0}; joker 0 KH; discard 4S", "A4")
    ok(m, 0, f"{OPEN0}; joker 0 KC; discard 4S")


def test_A4_set_joker_swap_all_needs_every_missing_suit_and_frees_every_joker():
    m = _joker_set_table("KS JK JK", set_joker_swap="all")
    refused(m, 0, f"{OPEN0}; joker 0 KH; discard 4S", "A4")
    refused(m, 0, f"{OPEN0}; joker 0 KH KD; discard 4S", "A4")
    ok(m, 0, f"{OPEN0}; joker 0 KH KD KC; discard 4S")
    assert hand(m, 0).count("JK") == 2
    assert m.round.table[0].jokers == 0 and len(m.round.table[0].cards) == 4


def test_A4_set_joker_swap_all_exception_a_set_of_aces_needs_one_ace():
    m = _joker_set_table("AS JK JK", set_joker_swap="all")
    refused(m, 0, f"{OPEN0}; joker 0 AH AD; discard 4S", "A4")
    ok(m, 0, f"{OPEN0}; joker 0 AH; discard 4S")
    assert hand(m, 0).count("JK") == 1 and m.round.table[0].jokers == 1


def test_A4_the_rules_example_set_5S_JK_JK_under_all():
    """Under "all", 5S + JK + JK needs 5H 5D 5C and frees both jokers; under "one", one card frees one."""
    meld = make_meld(SET, ids("5S JK JK"))
    with pytest.raises(Refusal) as e:
        take_joker(meld.copy(), ids("5H"), "all")
    assert e.value.rule == "A4"
    freed_meld = meld.copy()
    assert take_joker(freed_meld, ids("5H 5D 5C"), "all") == 2 and freed_meld.jokers == 0
    one = meld.copy()
    assert take_joker(one, ids("5H"), "one") == 1 and one.jokers == 1
    assert take_joker(one, ids("5D"), "one") == 1 and one.jokers == 0


def test_A4_a_pair_joker_is_freed_by_its_partner_card():
    m = start(["5S 10C 10D 10S JC JD JS 4D", "2C 2C 3D 3D 4H 4H 5S JK 6C 6C QS"], dealer=0, top="2S")
    ok(m, 1, "pairs P[2C 2C] P[3D 3D] P[4H 4H] P[5S JK] P[6C 6C]; discard QS")
    ok(m, 0, "stock")
    refused(m, 0, "open S[10C 10D 10S] S[JC JD JS]; joker 3 4D; discard 2S", "A4")
    ok(m, 0, "open S[10C 10D 10S] S[JC JD JS]; joker 3 5S; discard 2S")
    assert table(m)[3] == "P[5S 5S]" and "JK" in hand(m, 0)


# A5 --------------------------------------------------------------------------------------------


def _a5_table(**overrides):
    """Seat 1 opened R[5H 6H JK 8H] S[KC KD KS]; seat 0 passed; seat 1 has drawn 2D."""
    m = start(["9H 4H 7H", "5H 6H JK 8H KC KD KS QC 9H 4H 7H KH KH 2S"], dealer=0, top="AS 2D",
              **overrides)
    ok(m, 1, "open R[5H 6H JK 8H] S[KC KD KS]; discard QC")
    return m


def test_A5_discarding_a_layable_card_costs_an_opened_player_50():
    m = _a5_table()
    ok(m, 0, "stock")
    out = ok(m, 0, "discard 9H")  # seat 0 has not opened: free under scope "opened"
    assert out.penalty == 0 and m.round.penalties[0] == []
    ok(m, 1, "stock")
    out = ok(m, 1, "discard 9H")
    assert out.rule == "A5" and out.penalty == 50
    assert m.round.penalties[1] == ["A5"]


def test_A5_a_card_that_could_only_replace_a_table_joker_is_not_layable():
    m = _a5_table()
    pass_turn(m, 0)
    ok(m, 1, "stock")
    out = ok(m, 1, "discard 7H")
    assert out.penalty == 0 and m.round.penalties[1] == []


def test_A5_judged_on_the_table_as_it_stands_at_the_discard():
    m = _a5_table()
    pass_turn(m, 0)
    ok(m, 1, "stock")
    out = ok(m, 1, "layoff 1 KH; discard KH")  # the set is full now: the second KH no longer fits
    assert out.penalty == 0 and m.round.penalties[1] == []
    pass_turn(m, 0)
    ok(m, 1, "stock")
    out = ok(m, 1, "discard 9H")
    assert out.penalty == 50 and m.round.penalties[1] == ["A5"]


def test_A5_a_joker_counts_whenever_some_meld_can_take_it():
    m = start(["2C", "KC KD KH KS QC QD QH QS JK 3S 9D AH"], dealer=0, top="AS 2D 4D")
    ok(m, 1, "open S[KC KD KH KS] S[QC QD QH QS]; discard 9D")  # two full sets: nothing takes a joker
    pass_turn(m, 0)
    ok(m, 1, "stock")
    out = ok(m, 1, "discard JK")
    assert out.penalty == 0 and m.round.penalties[1] == []
    m = start(["2C", "KC KD KH QC QD QH QS JK 3S 9D AH"], dealer=0, top="AS 2D 4D")
    ok(m, 1, "open S[KC KD KH] S[QC QD QH QS]; discard 9D")  # the K-set has room
    pass_turn(m, 0)
    ok(m, 1, "stock")
    out = ok(m, 1, "discard JK")
    assert out.penalty == 50 and out.rule == "A5" and m.round.penalties[1] == ["A5"]


def test_A5_layable_discard_scope_any_charges_players_who_have_not_opened():
    m = _a5_table(layable_discard_scope="any")
    ok(m, 0, "stock")
    out = ok(m, 0, "discard 9H")
    assert out.penalty == 50 and m.round.penalties[0] == ["A5"]


def test_A5_the_going_out_discard_never_costs_a_penalty():
    m = start([None, "2C 3C 4C 5C 6C 7C 8C 9C 10C 10D JD QD KD AD JC"], dealer=0, layable_discard_scope="any")
    out = ok(m, 1, "open R[2C 3C 4C 5C 6C 7C 8C 9C 10C] R[10D JD QD KD AD]; discard JC")
    assert out.penalty == 0 and m.records[0]["seats"][1]["penalties"] == {}
    assert scores(m) == [200, -100]


# A6 --------------------------------------------------------------------------------------------


def _a6_table(scope="any"):
    """Seat 1 opened R[5H 6H 7H 8H] S[KC KD KS]; seat 0 holds 9H 9H 9C 9D 4H and has drawn."""
    m = start(["9H 9H 9C 9D 4H 10C 10D 10S", "5H 6H 7H 8H KC KD KS QC 2S"], dealer=0, top="AS 2D 3D 4D 5D",
              layable_discard_scope=scope)
    ok(m, 1, "open R[5H 6H 7H 8H] S[KC KD KS]; discard QC")
    ok(m, 0, "stock")
    return m


def test_A6_showing_two_identical_layable_cards_discards_one_without_penalty():
    m = _a6_table()
    out = ok(m, 0, "discard 9H shown")
    assert out.penalty == 0 and m.round.penalties[0] == []
    assert m.round.marked[0] == [parse_card("9H")] and hand(m, 0).count("9H") == 1
    pass_turn(m, 1)
    ok(m, 0, "stock")
    assert parse_card("9H") in legal(m.round, 0)["must_keep"]
    refused(m, 0, "discard 9H", "A6")  # the shown copy stays for the round
    # it may still be used in melds; then the mark goes with it
    ok(m, 0, "open S[9H 9C 9D] S[10C 10D 10S]; discard AS")
    assert m.round.marked[0] == []


def test_A6_a_layable_discard_without_showing_costs_50():
    m = _a6_table()
    out = ok(m, 0, "discard 9H")
    assert out.penalty == 50 and m.round.penalties[0] == ["A5"]


def test_A6_showing_is_checked():
    m = _a6_table()
    refused(m, 0, "discard 4H shown", "A6")  # only one 4H
    refused(m, 0, "discard 9C shown", "A6")  # not layable (and only one)
    refused(m, 0, "open S[9H 9C 9D] S[10C 10D 10S]; discard 9H shown", "A6")  # an opened player does not show
    m = _a6_table(scope="opened")
    refused(m, 0, "discard 9H shown", "A6")  # showing belongs to layable_discard_scope = "any"
    ok(m, 0, "discard 9H")
