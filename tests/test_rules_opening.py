"""Opening (O1-O6)."""

from __future__ import annotations

import pytest

from engine.cards import parse_card
from scenario import hand, ok, pass_turn, refused, scores, start, table, value

# O1 --------------------------------------------------------------------------------------------

O1_HAND = "KC KD KH 2S 3S 4S 5S 6S 7C 7D 7H QS"


def test_O1_threshold_51_50_is_refused_51_opens():
    m = start([None, O1_HAND], dealer=0)
    out = refused(m, 1, "open S[KC KD KH] R[2S 3S 4S 5S 6S]; discard QS", "O1", 50)  # 30 + 20 = 50
    assert "50" in out.reason and "51" in out.reason
    assert m.to_move() == 1  # the same seat decides again (O4)
    ok(m, 1, "open S[KC KD KH] S[7C 7D 7H]; discard QS")  # 30 + 21 = 51
    assert m.round.opened[1] and m.round.open_method[1] == "melds" and m.round.open_value[1] == 51


@pytest.mark.parametrize("threshold,cards,bad_text,ok_text", [
    (71, O1_HAND,
     "open S[KC KD KH] S[7C 7D 7H] R[3S 4S 5S 6S]; discard QS",  # 69
     "open S[KC KD KH] S[7C 7D 7H] R[2S 3S 4S 5S 6S]; discard QS"),  # 71
    (101, "KC KD KH KS 10C 10D 10H 10S 7C 7D 7H QC QD QH QS",
     "open S[KC KD KH KS] S[10C 10D 10H] S[QC QD QH]; discard QS",  # 100
     "open S[KC KD KH KS] S[10C 10D 10H 10S] S[7C 7D 7H]; discard QS"),  # 101
    (9, "2S 3S 4S 2C 2D 2H QS",
     "open S[2C 2D 2H]; discard QS",  # 6
     "open R[2S 3S 4S]; discard QS"),  # 9
])
def test_O1_threshold_field(threshold, cards, bad_text, ok_text):
    m = start([None, cards], dealer=0, threshold=threshold)
    refused(m, 1, bad_text, "O1", 50)
    ok(m, 1, ok_text)
    assert m.round.open_value[1] == threshold


def test_O1_jokers_count_as_the_card_they_stand_for_in_a_set_as_its_rank():
    m = start([None, "KC KD JK 7C 7D JK QS"], dealer=0)
    ok(m, 1, "open S[KC KD JK] S[7C JK 7D]; discard QS")  # 30 + 21
    assert m.round.open_value[1] == 51


def test_O1_melds_laid_later_in_the_turn_are_not_part_of_the_opening():
    m = start([None, O1_HAND], dealer=0)
    refused(m, 1, "open S[KC KD KH]; meld S[7C 7D 7H]; discard QS", "O1", 50)
    refused(m, 1, "meld S[7C 7D 7H]; open S[KC KD KH]; discard QS", "O1", 50)
    ok(m, 1, "open S[KC KD KH] S[7C 7D 7H]; meld R[2S 3S 4S 5S 6S]; discard QS")
    assert m.round.open_value[1] == 51
    assert table(m) == ["S[KC KD KH]", "S[7C 7D 7H]", "R[2S 3S 4S 5S 6S]"]


def test_O1_a_meld_opening_lays_down_runs_and_sets_only():
    m = start([None, "KC KD KH 7C 7D 7H QS QS"], dealer=0)
    refused(m, 1, "open S[KC KD KH] S[7C 7D 7H] P[QS QS]; discard 2C", "O1", 50)


# O2 --------------------------------------------------------------------------------------------

PAIRS7 = "2C 2C 3D 3D 4H 4H 5S 5S 6C 6C 7D 7D 8H 8H KS"


def test_O2_five_pairs_open_whatever_their_value():
    m = start([None, PAIRS7], dealer=0)
    ok(m, 1, "pairs P[2C 2C] P[3D 3D] P[4H 4H] P[5S 5S] P[6C 6C]; discard KS")
    r = m.round
    assert r.opened[1] and r.open_method[1] == "pairs" and r.declared[1]  # opening with pairs declares (P1)
    assert r.open_value[1] == 2 * (2 + 3 + 4 + 5 + 6)  # 40: the threshold does not apply


def test_O2_four_pairs_and_a_run_or_set_with_a_joker_pair():
    m = start([None, "2C 2C 3D 3D 4H 4H JK 5S 9C 10C JC QS"], dealer=0)
    ok(m, 1, "pairs P[2C 2C] P[3D 3D] P[4H 4H] P[JK 5S] R[9C 10C JC]; discard QS")
    assert table(m)[3] == "P[JK 5S]"
    assert m.round.table[3].stands_for(0) == parse_card("5S")
    m = start([None, "2C 2C 3D 3D 4H 4H 5S 5S 9C 9D 9H QS"], dealer=0)
    ok(m, 1, "pairs P[2C 2C] P[3D 3D] P[4H 4H] P[5S 5S] S[9C 9D 9H]; discard QS")


def test_O2_decision_combinations_are_exact_seven_pairs_open_with_five():
    m = start([None, PAIRS7], dealer=0)
    refused(m, 1, "pairs P[2C 2C] P[3D 3D] P[4H 4H] P[5S 5S] P[6C 6C] P[7D 7D] P[8H 8H]; discard KS", "O2", 50)
    refused(m, 1, "pairs P[2C 2C] P[3D 3D] P[4H 4H] P[5S 5S] P[6C 6C] P[7D 7D]; discard KS", "O2", 50)
    refused(m, 1, "pairs P[2C 2C] P[3D 3D] P[4H 4H] P[5S 5S]; discard KS", "O2", 50)
    ok(m, 1, "pairs P[2C 2C] P[3D 3D] P[4H 4H] P[5S 5S] P[6C 6C]; discard KS")
    # the other pairs only where A3 allows (pairs_layoff is false by default)
    pass_turn(m, 0)
    ok(m, 1, "stock")
    refused(m, 1, "meld P[7D 7D]; discard KS", "A3")
    refused(m, 1, "pair 1 P[7D 7D]; discard KS", "A3")


def test_O2_further_runs_and_sets_may_follow_a_pairs_opening():
    m = start([None, "2C 2C 3D 3D 4H 4H 5S 5S 6C 6C 9C 10C JC QS"], dealer=0)
    refused(m, 1, "pairs P[2C 2C] P[3D 3D] P[4H 4H] P[5S 5S] P[6C 6C] R[9C 10C JC]; discard QS", "O2", 50)
    ok(m, 1, "pairs P[2C 2C] P[3D 3D] P[4H 4H] P[5S 5S] P[6C 6C]; meld R[9C 10C JC]; discard QS")
    assert len(table(m)) == 6


H_PAIRS_RUN = "2C 2C 3D 3D 4H 4H 5S 5S 6C 6C 9C 10C JC QS"
H_SIX_PAIRS_RUN = "2C 2C 3D 3D 4H 4H 5S 5S 6C 6C 7D 7D 9C 10C JC"
P4 = "P[2C 2C] P[3D 3D] P[4H 4H] P[5S 5S]"


@pytest.mark.parametrize("cards,melds,discard,accepted", [
    (PAIRS7, P4 + " P[6C 6C]", "KS", False),  # [5,0] is not in the Turkish list
    (PAIRS7, P4 + " P[6C 6C] P[7D 7D]", "KS", True),  # [6,0]
    (PAIRS7, P4 + " P[6C 6C] P[7D 7D] P[8H 8H]", "KS", True),  # [7,0]
    (H_PAIRS_RUN, P4 + " R[9C 10C JC]", "QS", True),  # [4,1]
    (H_PAIRS_RUN, P4 + " P[6C 6C] R[9C 10C JC]", "QS", True),  # [5,1]
    (H_PAIRS_RUN, "P[2C 2C] P[3D 3D] P[4H 4H] R[9C 10C JC]", "QS", False),  # [3,1]
    (H_SIX_PAIRS_RUN, P4 + " P[6C 6C] P[7D 7D] R[9C 10C JC]", "JC", False),  # [6,1], and no card left: O2 first
])
def test_O2_pairs_openings_field_the_turkish_list(cards, melds, discard, accepted):
    m = start([None, cards], dealer=0, pairs_openings=[[4, 1], [5, 1], [6, 0], [7, 0]])
    text = f"pairs {melds}; discard {discard}"
    if accepted:
        ok(m, 1, text)
        assert m.round.open_method[1] == "pairs"
    else:
        refused(m, 1, text, "O2", 50)


@pytest.mark.parametrize("cards,melds,discard,accepted", [
    (PAIRS7, P4 + " P[6C 6C]", "KS", True),  # [5,0]
    (H_PAIRS_RUN, P4 + " R[9C 10C JC]", "QS", True),  # [4,1]
    (PAIRS7, P4 + " P[6C 6C] P[7D 7D]", "KS", False),  # [6,0]
    (H_PAIRS_RUN, P4 + " P[6C 6C] R[9C 10C JC]", "QS", False),  # [5,1]
    (PAIRS7, P4, "KS", False),  # [4,0]
])
def test_O2_pairs_openings_default(cards, melds, discard, accepted):
    m = start([None, cards], dealer=0)
    text = f"pairs {melds}; discard {discard}"
    if accepted:
        ok(m, 1, text)
    else:
        refused(m, 1, text, "O2", 50)


def test_O2_the_tr_wiki_preset_uses_the_turkish_list():
    m = start([PAIRS7[:-3], None], dealer=1, preset="tr-wiki", cut="KS", top="9S")
    ok(m, 0, "stock")
    refused(m, 0, "pairs " + P4 + " P[6C 6C]; discard 9S", "O2", 50)
    ok(m, 0, "pairs " + P4 + " P[6C 6C] P[7D 7D]; discard 9S")


# O3 --------------------------------------------------------------------------------------------

OUT_AT_ONCE = "2C 3C 4C 5C 6C 7C 8C 9C 10C 10D JD QD KD AD"  # 54 + 51, fourteen cards


def test_O3_opening_is_never_compulsory_wait_and_go_out_all_at_once():
    m = start(["QH", OUT_AT_ONCE + " KS"], dealer=0, top="AS QC")
    ok(m, 1, "discard KS")  # could open with 105, does not have to
    assert not m.round.opened[1]
    ok(m, 0, "stock")
    ok(m, 0, "discard QH")
    ok(m, 1, "stock")
    assert "QC" in hand(m, 1)
    ok(m, 1, "open R[2C 3C 4C 5C 6C 7C 8C 9C 10C] R[10D JD QD KD AD]; discard QC")
    rec = m.records[0]
    assert rec["winner"] == 1 and rec["finish"] == {"G2": True, "G3": False, "G4": False}
    assert rec["multiplier"] == 2 and scores(m) == [200, -100]


# O4 --------------------------------------------------------------------------------------------


def _opened_table():
    """Seat 1 opened with R[5H 6H JK 8H] S[KC KD KS] (the joker is 7H); seat 0 is to draw."""
    m = start(["7H 9H KH 10C 10D 10S JC JD JS 4S", "5H 6H JK 8H KC KD KS QC"], dealer=0, top="2S")
    ok(m, 1, "open R[5H 6H JK 8H] S[KC KD KS]; discard QC")
    ok(m, 0, "stock")
    return m


def test_O4_a_refused_decision_changes_nothing():
    """Joker swap, opening and lay-off all fine, but the discard is not in hand: nothing happens, no penalty."""
    m = _opened_table()
    refused(m, 0, "joker 0 7H; open S[10C 10D 10S] S[JC JD JS]; layoff 0 9H; discard AD", "T4", 0)
    assert table(m) == ["R[5H 6H JK 8H]", "S[KC KD KS]"]
    assert hand(m, 0).count("7H") == 1 and "JK" not in hand(m, 0)
    ok(m, 0, "joker 0 7H; open S[10C 10D 10S] S[JC JD JS]; layoff 0 9H; discard 4S")
    assert table(m) == ["R[5H 6H 7H 8H 9H]", "S[KC KD KS]", "S[10C 10D 10S]", "S[JC JD JS]"]
    assert "JK" in hand(m, 0)


def test_O4_wrong_opening_costs_50_once_per_refused_decision():
    m = _opened_table()
    # two faults in one opening (a wrong set and too few points): one penalty
    refused(m, 0, "open S[10C 10D 10D]; discard 4S", "M2", 50)
    refused(m, 0, "open S[10C 10D 10S]; discard 4S", "O1", 50)
    assert m.round.penalties[0] == ["O4", "O4"]
    ok(m, 0, "open S[10C 10D 10S] S[JC JD JS]; discard 4S")
    assert m.round.penalties[0] == ["O4", "O4"]


def test_O4_the_opening_is_checked_first():
    """A wrong opening costs 50 even when a lay-off, a joker swap or the discard is also wrong."""
    m = _opened_table()
    refused(m, 0, "layoff 0 2S; open S[10C 10D 10S]; discard 4S", "O1", 50)  # lay-off before opening too
    refused(m, 0, "joker 0 KH; open S[10C 10D 10S]; discard 4S", "O1", 50)  # KH does not free a 7H
    refused(m, 0, "open S[10C 10D 10S]; discard AD", "O1", 50)  # AD is not in hand
    refused(m, 0, "open S[10C 10D 10S] S[JC JD QS]; discard 4S", "M2", 50)
    refused(m, 0, "open S[10C 10D 10S] R[JC JD JS]; layoff 9 9H; discard 4S", "M1", 50)
    refused(m, 0, "declare; open S[10C 10D 10S] S[JC JD JS]; discard 4S", "P1", 50)
    assert m.round.penalties[0] == ["O4"] * 6


def test_O4_other_refusals_cost_nothing():
    m = _opened_table()
    refused(m, 0, "open S[10C 10D 10S] S[JC JD JS]; layoff 1 9H; discard 4S", "A2")  # 9H does not fit K-set
    refused(m, 0, "open S[10C 10D 10S] S[JC JD JS]; joker 0 9H; discard 4S", "A4")
    refused(m, 0, "open S[10C 10D 10S] S[JC JD JS]; layoff 7 9H; discard 4S", "A2")  # no meld 7
    refused(m, 0, "open S[10C 10D 10S] S[JC JD JS]; meld R[7H 8H 9H]; discard 4S", "T3")  # no 8H
    refused(m, 1, "stock", "T1")
    refused(m, 0, "open S[10C 10D 10S] S[JC JD JS]; discard 4S shown", "A6")
    assert m.round.penalties == [[], []]
    assert m.to_move() == 0  # the same seat decides again


def test_O4_the_penalty_is_in_the_round_score():
    """Two wrong openings, then the same seat opens and goes out at once: -100 + 2 x 50 (S6)."""
    m = start([None, OUT_AT_ONCE + " KS"], dealer=0)
    refused(m, 1, "open R[2C 3C 4C 5C 6C]; discard KS", "O1", 50)
    refused(m, 1, "open R[2C 3C 4C 5C 6C] R[10D JD QD KD AC]; discard KS", "M1", 50)
    ok(m, 1, "open R[2C 3C 4C 5C 6C 7C 8C 9C 10C] R[10D JD QD KD AD]; discard KS")
    assert scores(m) == [200, 0]
    assert m.records[0]["seats"][1]["penalties"] == {"O4": 2}


# O5 --------------------------------------------------------------------------------------------


def test_O5_rising_threshold_each_meld_opening_beats_the_highest_so_far():
    m = start(["8C 8D 8H 8S 9S 10S JS QS AC", "KC KD KH 10C 10D 10H QS", "JC JD JH JS QC QD QH 7C 7D 7H AS"],
              dealer=0, top="2D 3D", rising_threshold=True)
    ok(m, 1, "open S[KC KD KH] S[10C 10D 10H]; discard QS")  # 60
    assert m.round.threshold_now() == 61
    ok(m, 2, "stock")
    refused(m, 2, "open S[JC JD JH] S[QC QD QH]; discard AS", "O5", 50)  # 60
    ok(m, 2, "open S[JC JD JH JS] S[7C 7D 7H]; discard AS")  # 61
    ok(m, 0, "stock")
    refused(m, 0, "open S[8C 8D 8H 8S] R[9S 10S JS]; discard AC", "O5", 50)  # 61
    ok(m, 0, "open S[8C 8D 8H 8S] R[10S JS QS]; discard AC")  # 62
    assert m.round.high_opening == 62


def test_O5_off_two_equal_openings_are_fine():
    m = start(["8C 8D 8H 8S 9S 10S JS QS AC", "KC KD KH 10C 10D 10H QS", None], dealer=0, top="2D 3D")
    ok(m, 1, "open S[KC KD KH] S[10C 10D 10H]; discard QS")  # 60
    pass_turn(m, 2)
    ok(m, 0, "stock")
    ok(m, 0, "open S[8C 8D 8H 8S] R[9S 10S JS]; discard AC")  # 61
    m = start(["2S", "KC KD KH 10C 10D 10H QS", "JC JD JH QC QD QH AS"], dealer=0, top="2D 3D")
    ok(m, 1, "open S[KC KD KH] S[10C 10D 10H]; discard QS")
    ok(m, 2, "stock")
    ok(m, 2, "open S[JC JD JH] S[QC QD QH]; discard AS")  # 60 again: no rising figure by default


O5_OUT = "9C 9D 9H 2S 3S 4S 5S 6S 7S 2H 3H 4H 5H QD"  # 27 + 27 = 54 and a run to lay down


def test_O5_opening_and_going_out_from_hand_is_held_to_threshold_alone():
    m = start([O5_OUT, "KC KD KH 10C 10D 10H QS", None], dealer=0, top="2D 6H", rising_threshold=True)
    ok(m, 1, "open S[KC KD KH] S[10C 10D 10H]; discard QS")  # 60: the figure is now 61
    pass_turn(m, 2)
    ok(m, 0, "stock")
    assert "6H" in hand(m, 0)
    refused(m, 0, "open S[9C 9D 9H] R[2S 3S 4S 5S 6S 7S]; discard QD", "O5", 50)  # not going out
    # laying off (even onto one's own new meld) uses the table: the rising figure applies
    refused(m, 0, "open S[9C 9D 9H] R[2S 3S 4S 5S 6S 7S]; meld R[2H 3H 4H 5H]; layoff 4 6H; discard QD", "O5", 50)
    ok(m, 0, "open S[9C 9D 9H] R[2S 3S 4S 5S 6S 7S]; meld R[2H 3H 4H 5H 6H]; discard QD")
    rec = m.records[0]
    assert rec["winner"] == 0 and rec["seats"][0]["value"] == 54
    assert rec["finish"]["G2"] and rec["multiplier"] == 1  # seat 1 had opened


def test_O5_taking_a_table_joker_uses_the_table():
    m = start(["9C 9D 9H 2S 3S 4S 5S 6S 7S 2H 3H 4H 5H KH", "KC KD JK 10C 10D 10H QS", None], dealer=0,
              top="2D QD", rising_threshold=True)
    ok(m, 1, "open S[KC KD JK] S[10C 10D 10H]; discard QS")  # 60
    pass_turn(m, 2)
    ok(m, 0, "stock")
    refused(m, 0, "joker 0 KH; open S[9C 9D 9H] R[2S 3S 4S 5S 6S 7S]; meld R[2H 3H 4H 5H JK]; discard QD",
            "O5", 50)


def test_O5_decision_a_take_opening_is_always_held_to_the_rising_figure():
    m = start(["9C 9D 2S 3S 4S 5S 6S 7S 2H 3H 4H 5H 6H", "KC KD KH 10C 10D 10H QS", "9H"], dealer=0,
              top="2D", rising_threshold=True)
    ok(m, 1, "open S[KC KD KH] S[10C 10D 10H]; discard QS")  # 60
    ok(m, 2, "stock")
    ok(m, 2, "discard 9H")
    # with the take, 54 would leave R[2H..6H] and one card: going out was possible, but it is not known yet
    refused(m, 0, "take; open S[9C 9D 9H] R[2S 3S 4S 5S 6S 7S]", "O5", 50)


def test_O5_pairs_openings_are_not_affected_and_do_not_raise_the_figure():
    m = start(["2C 2C 3D 3D 4H 4H 5S 5S 6C 6C", "7C 7C 8D 8D 9H 9H 10S 10S JC JC QS",
               "KC KD KH 10C 10D 10H AS"], dealer=0, top="AD 2D", rising_threshold=True)
    ok(m, 1, "pairs P[7C 7C] P[8D 8D] P[9H 9H] P[10S 10S] P[JC JC]; discard QS")
    assert m.round.high_opening == 0 and m.round.threshold_now() == 51
    ok(m, 2, "stock")
    ok(m, 2, "open S[KC KD KH] S[10C 10D 10H]; discard AS")  # 60 >= 51
    assert m.round.threshold_now() == 61
    ok(m, 0, "stock")
    ok(m, 0, "pairs P[2C 2C] P[3D 3D] P[4H 4H] P[5S 5S] P[6C 6C]; discard 2D")  # 40: no threshold at all


# O6 --------------------------------------------------------------------------------------------

STAR_100 = "9C 10C JC QC KC AC KD KH KS KC 2S 3S 4S 5S QS"  # R[9C..AC] 60 + S[KD KH KS KC] 40 = 100
STAR_99 = "9C 10C JC QC KC AC KD KH KS 3C 3D 3H 2S 4S QS"  # 60 + 30 + 9 = 99
SEAT0_OUT = "2D 3D 4D 5D 6D 7D 8D 2H 3H 4H 5H 6H 7H 8H"


@pytest.mark.parametrize("cards,opening,star", [
    (STAR_100, "R[9C 10C JC QC KC AC] S[KD KH KS KC]", True),
    (STAR_99, "R[9C 10C JC QC KC AC] S[KD KH KS] S[3C 3D 3H]", False),
])
def test_O6_star_bonus_for_a_meld_opening_of_100_or_more(cards, opening, star):
    m = start([SEAT0_OUT, cards, None], dealer=0, top="JS AH", star_bonus=True)
    ok(m, 1, f"open {opening}; discard QS")
    pass_turn(m, 2)
    ok(m, 0, "stock")
    ok(m, 0, "open R[2D 3D 4D 5D 6D 7D 8D] R[2H 3H 4H 5H 6H 7H 8H]; discard AH")
    rec = m.records[0]
    left = rec["seats"][1]["left"]
    assert rec["seats"][1]["star"] == star
    assert scores(m) == [-100, value(left) - (100 if star else 0), 100]  # S7


def test_O6_star_bonus_off_by_default():
    m = start([SEAT0_OUT, STAR_100, None], dealer=0, top="JS AH")
    ok(m, 1, "open R[9C 10C JC QC KC AC] S[KD KH KS KC]; discard QS")
    pass_turn(m, 2)
    ok(m, 0, "stock")
    ok(m, 0, "open R[2D 3D 4D 5D 6D 7D 8D] R[2H 3H 4H 5H 6H 7H 8H]; discard AH")
    assert scores(m)[1] == value(m.records[0]["seats"][1]["left"]) and not m.records[0]["seats"][1]["star"]


def test_O6_the_winner_gets_the_star_too():
    """Open with 100, lay the rest down and go out in one turn: -100 - 100; nobody else opened: G2, x2."""
    m = start([None, "9C 10C JC QC KC AC KD KH KS KC 2S 3S 4S 5S QS", None], dealer=0, star_bonus=True)
    ok(m, 1, "open R[9C 10C JC QC KC AC] S[KD KH KS KC]; meld R[2S 3S 4S 5S]; discard QS")
    assert scores(m) == [200, -200, 200]


def test_O6_melds_after_the_opening_do_not_make_a_star_and_pairs_openings_never_do():
    m = start([None, STAR_99], dealer=0, star_bonus=True)
    ok(m, 1, "open R[9C 10C JC QC KC AC] S[3C 3D 3H]; meld S[KD KH KS]; discard QS")  # 69 + 30 later
    assert not m.round.star[1]
    m = start([None, "AC AC AD AD AH AH AS AS KC KC QS"], dealer=0, star_bonus=True)
    ok(m, 1, "pairs P[AC AC] P[AD AD] P[AH AH] P[AS AS] P[KC KC]; discard QS")  # worth 108
    assert not m.round.star[1]


# O4: a take of a card that may not be taken, carrying an opening ----------------------------------


def _p2_block():
    """Seat 1 declares and throws 9S under pairs_discard_block; seat 2 (not declared) may not take it (P2)."""
    m = start(["AS", "9S QS", "9S 9C 9D 10C 10D 10S KC KD KH"], dealer=0, top="AD AH", pairs_discard_block=True)
    ok(m, 1, "declare; discard 9S")
    return m


def _dead_discard():
    """Seat 1 opens with a hearts run; seat 2 throws 9H, dead under layable_discard_dead (T2)."""
    m = start(["9C 9D 10C 10D 10S KC", "5H 6H 7H 8H KC KD KS QC", "9H"], dealer=0, layable_discard_dead=True)
    ok(m, 1, "open R[5H 6H 7H 8H] S[KC KD KS]; discard QC")
    ok(m, 2, "stock")
    ok(m, 2, "discard 9H")
    return m


def test_O4_a_blocked_P2_take_with_a_wrong_opening_costs_50():
    m = _p2_block()
    refused(m, 2, "take; open S[9S 9C 9D]", "O1", 50)  # 27 < 51: the opening is judged first
    refused(m, 2, "take; open S[10C 10D 10S] S[KC KD KH]", "T2", 50)  # the taken card is not in it


def test_O4_a_blocked_P2_take_with_a_right_opening_costs_nothing():
    m = _p2_block()
    refused(m, 2, "take; open S[9S 9C 9D] S[10C 10D 10S] S[KC KD KH]", "P2", 0)
    ok(m, 2, "stock")


def test_O4_a_dead_discard_take_T2_with_a_wrong_opening_costs_50():
    m = _dead_discard()
    refused(m, 0, "take; open S[9H 9C 9D]", "O1", 50)
    refused(m, 0, "take; pairs P[10C 10D]", "M3", 50)  # a wrong meld in the opening


def test_O4_a_dead_discard_take_T2_with_a_right_opening_costs_nothing():
    m = _dead_discard()
    refused(m, 0, "take; open S[9H 9C 9D] S[10C 10D 10S]", "T2", 0)
    ok(m, 0, "stock")
