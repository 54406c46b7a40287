"""Cards (C1-C3) and melds (M1-M5), through the card strings, engine.melds and real turns."""

from __future__ import annotations

import pytest

from engine import card_str, card_unicode, parse_card, parse_cards
from engine.cards import JOKER, N_IDS, CardError, full_deck, hand_value
from engine.errors import Refusal
from engine.melds import PAIR, RUN, SET, make_meld
from scenario import hand, ids, ok, refused, start, table, value

# Card strings -----------------------------------------------------------------------------------


def test_C2_card_strings_round_trip_for_all_53_ids():
    names = [card_str(c) for c in range(N_IDS)]
    assert len(set(names)) == N_IDS
    for c in range(N_IDS):
        assert parse_card(card_str(c)) == c
    assert names[:13] == ["2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "10C", "JC", "QC", "KC", "AC"]
    assert {n[-1] for n in names[:52]} == set("CDHS")
    assert names[JOKER] == "JK"
    assert parse_cards("10H JK 2C") == [parse_card("10H"), JOKER, parse_card("2C")]
    assert parse_cards(["AS", "AS"]) == [parse_card("AS")] * 2


def test_C2_unicode_form():
    assert card_unicode(parse_card("10H")) == "10♥"
    assert card_unicode(parse_card("2C")) == "2♣"
    assert card_unicode(parse_card("QD")) == "Q♦"
    assert card_unicode(parse_card("AS")) == "A♠"
    assert card_unicode(JOKER) == "🃏"
    forms = {card_unicode(c) for c in range(N_IDS)}
    assert len(forms) == N_IDS
    for c in range(52):
        assert card_unicode(c)[:-1] == card_str(c)[:-1]


@pytest.mark.parametrize("bad", ["", "1H", "11H", "10X", "jk", "J", "ah", "AH ", " 2C", "0S", "1", "T♥", "10♥", "JOKER", None, 5])
def test_C2_bad_card_strings_are_refused_with_CardError(bad):
    with pytest.raises(CardError):
        parse_card(bad)


def test_C2_parse_cards_refuses_a_bad_card_in_a_list():
    with pytest.raises(CardError):
        parse_cards("2C 3C 4X")
    with pytest.raises(CardError):
        parse_cards(42)


# C1 --------------------------------------------------------------------------------------------


def test_C1_the_deck_has_106_cards_two_of_each_and_two_jokers():
    deck = full_deck()
    assert len(deck) == 106
    for c in range(52):
        assert deck.count(c) == 2
    assert deck.count(JOKER) == 2


def test_C1_the_two_copies_of_a_card_are_interchangeable_in_play():
    """Both copies of 5H..7H serve in two identical runs; which copy went where never matters."""
    m = start([None, "5H 6H 7H 5H 6H 7H 8H 9H 10H JH QH 2C"], dealer=0)
    ok(m, 1, "open R[5H 6H 7H] R[5H 6H 7H 8H 9H 10H JH QH]; discard 2C")
    assert table(m) == ["R[5H 6H 7H]", "R[5H 6H 7H 8H 9H 10H JH QH]"]


# C3 --------------------------------------------------------------------------------------------


def test_C3_card_values_in_hand():
    assert hand_value([0] * 53) == 0
    for c in range(52):
        counts = [0] * 53
        counts[c] = 1
        assert hand_value(counts) == value(card_str(c))
    assert value("2C 10D JH QS KC AD JK") == 2 + 10 + 10 + 10 + 10 + 11 + 25
    counts = [0] * 53
    for c in ids("2C 10D JH QS KC AD JK"):
        counts[c] += 1
    assert hand_value(counts) == 2 + 10 + 10 + 10 + 10 + 11 + 25


def test_C3_opening_value_counts_a_table_joker_as_the_card_it_stands_for():
    """R[JH QH JK] is J-Q-K of hearts = 30 and S[AC AD JK] three aces = 33: the opening is worth 63,
    not the 92 it would be with the jokers at their in-hand value 25."""
    m = start([None, "JH QH JK AC AD JK 2C"], dealer=0)
    ok(m, 1, "open R[JH QH JK] S[AC AD JK]; discard 2C")
    assert m.round.open_value[1] == 63


def test_C3_a_joker_on_the_table_is_not_worth_25():
    """R[2S 3S JK] is 2-3-4 = 9: with a 40 set that is 49 < 51 (it would be 70 with the joker at 25);
    R[JK 2S 3S] has no rank below 2 (C2)."""
    m = start([None, "2S 3S JK 10C 10D 10H 10S 2C"], dealer=0)
    refused(m, 1, "open R[2S 3S JK] S[10C 10D 10H 10S]; discard 2C", "O1", 50)  # 9 + 40 = 49
    refused(m, 1, "open R[JK 2S 3S] S[10C 10D 10H 10S]; discard 2C", "M1", 50)


# M1 runs ---------------------------------------------------------------------------------------


def _meld(kind, text):
    return make_meld(kind, ids(text))


@pytest.mark.parametrize("text", ["QH KH AH", "2C 3C 4C", "2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS",
                                  "5S JK JK", "JK JK 5S", "JK 5S JK", "JK QD KD", "QD JK AD"])
def test_M1_valid_runs(text):
    m = _meld(RUN, text)
    assert m.kind == RUN and len(m.cards) == len(text.split())


def test_M1_longest_run_is_2_to_ace_13_cards():
    m = _meld(RUN, "2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS")
    assert m.value == 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10 + 10 + 10 + 10 + 11
    with pytest.raises(Refusal) as e:
        _meld(RUN, "JK 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS")
    assert e.value.rule == "M1"


@pytest.mark.parametrize("text", ["AH 2H 3H", "KH AH 2H", "QH KH AH JK", "JK 2C 3C", "2C 3C", "2C 3C 5C",
                                  "2C 3D 4C", "4C 3C 2C", "5C 5C 6C"])
def test_M1_invalid_runs_ace_is_high_only_no_wrap(text):
    with pytest.raises(Refusal) as e:
        _meld(RUN, text)
    assert e.value.rule == "M1"


def test_M1_a_wrong_run_in_an_opening_is_refused_as_a_wrong_opening():
    """K-A-2 is not a run (M1, C2): the opening is wrong, so it costs 50 (O4)."""
    m = start([None, "KH AH 2H QS QC QD 10S 10C 10D 3C"], dealer=0)
    refused(m, 1, "open R[KH AH 2H] S[QS QC QD] S[10S 10C 10D]; discard 3C", "M1", 50)
    ok(m, 1, "open S[QS QC QD] S[10S 10C 10D]; discard 3C")


# M2 sets ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["4H 4S 4C", "4H 4S 4C 4D", "KH KS JK", "KH JK JK", "AH AS AD AC"])
def test_M2_valid_sets(text):
    assert _meld(SET, text).kind == SET


@pytest.mark.parametrize("text", ["4H 4H 4S", "4H 4S", "4H 4S 4C 4D JK", "4H 4S 5C", "4H 4S 4C 4H", "KH KH JK"])
def test_M2_invalid_sets(text):
    with pytest.raises(Refusal) as e:
        _meld(SET, text)
    assert e.value.rule == "M2"


def test_M2_same_suit_twice_in_a_set_is_refused_in_play():
    m = start([None, "4H 4H 4S KC KD KH KS QC QD QH 2C"], dealer=0)
    refused(m, 1, "open S[4H 4H 4S] S[KC KD KH KS] S[QC QD QH]; discard 2C", "M2", 50)
    ok(m, 1, "open S[KC KD KH KS] S[QC QD QH]; discard 2C")  # 70


# M3 pairs --------------------------------------------------------------------------------------


def test_M3_pairs_are_two_identical_cards():
    assert _meld(PAIR, "JD JD").base == parse_card("JD")
    assert _meld(PAIR, "JD JK").base == parse_card("JD")
    assert _meld(PAIR, "JK JD").base == parse_card("JD")
    for bad in ("JD JH", "JD JD JD", "JD", "JD QD"):
        with pytest.raises(Refusal) as e:
            _meld(PAIR, bad)
        assert e.value.rule == "M3"


def test_M3_a_pairs_opening_with_a_non_pair_is_refused():
    m = start([None, "JD JH 2C 2C 3C 3C 4C 4C 5C 5C 9S"], dealer=0)
    refused(m, 1, "pairs P[JD JH] P[2C 2C] P[3C 3C] P[4C 4C] P[5C 5C]; discard 9S", "M3", 50)


# M4 jokers -------------------------------------------------------------------------------------


def test_M4_a_meld_needs_a_natural_card():
    for kind, text in ((RUN, "JK JK JK"), (SET, "JK JK JK"), (PAIR, "JK JK")):
        with pytest.raises(Refusal) as e:
            _meld(kind, text)
        assert e.value.rule == "M4"


def test_M4_a_pair_of_two_jokers_in_an_opening_is_a_wrong_meld():
    m = start([None, "2C 2C 3D 3D 4H 4H 5S 5S JK JK QS"], dealer=0)
    refused(m, 1, "pairs P[2C 2C] P[3D 3D] P[4H 4H] P[5S 5S] P[JK JK]; discard QS", "M4", 50)
    ok(m, 1, "pairs P[2C 2C] P[3D 3D] P[4H 4H] P[5S 5S] P[QS JK]; discard JK")


def test_M4_what_a_joker_stands_for_is_fixed_by_its_position():
    """5S + JK + JK: the order the player writes says which run it is (the player says, M4).
    In a pair the joker copies its partner; in a set it takes the set's rank."""
    five = parse_card("5S")
    assert [_meld(RUN, "5S JK JK").stands_for(i) for i in range(3)] == [five, five + 1, five + 2]
    assert [_meld(RUN, "JK 5S JK").stands_for(i) for i in range(3)] == [five - 1, five, five + 1]
    assert [_meld(RUN, "JK JK 5S").stands_for(i) for i in range(3)] == [five - 2, five - 1, five]
    pair = _meld(PAIR, "JK 8D")
    assert pair.stands_for(0) == parse_card("8D")
    s = _meld(SET, "KH KS JK")
    assert s.stands_for(2) == -1 - 11  # a king of a suit the set lacks
    assert s.value == 30


def test_M4_joker_readings_change_the_opening_value_in_play():
    """AS + JK + JK can only be Q-K-A, written R[JK JK AS] (31 + 40 = 71 opens); R[AS JK JK] would
    run past the ace and is a wrong meld (M1), which costs 50."""
    m = start([None, "AS JK JK 10C 10D 10H 10S 2C"], dealer=0)
    refused(m, 1, "open R[AS JK JK] S[10C 10D 10H 10S]; discard 2C", "M1", 50)  # no rank above A
    ok(m, 1, "open R[JK JK AS] S[10C 10D 10H 10S]; discard 2C")
    assert m.round.open_value[1] == 31 + 40
    assert table(m)[0] == "R[JK JK AS]"


def test_M4_a_joker_laid_off_on_a_run_open_at_both_ends_must_name_its_end():
    m = start([None, "5H 6H 7H 8H 9H 10H JK JK KC KD KS 2C QC"], dealer=0)
    ok(m, 1, "open R[5H 6H 7H 8H 9H 10H] S[KC KD KS]; discard 2C")
    ok(m, 0, "stock")
    ok(m, 0, "discard " + hand(m, 0)[0])
    ok(m, 1, "stock")
    refused(m, 1, "layoff 0 JK; discard QC", "M4")
    # a set takes a joker without naming an end
    ok(m, 1, "layoff 0 JK low; layoff 1 JK; discard QC")
    assert table(m) == ["R[JK 5H 6H 7H 8H 9H 10H]", "S[KC KD KS JK]"]


# M5 --------------------------------------------------------------------------------------------


def test_M5_the_same_meld_may_be_laid_twice():
    """Two identical K-sets are legal, in the opening and again later (A1)."""
    m = start([None, "KC KD KH KC KD KH 2C 3C 4C QS"], dealer=0)
    ok(m, 1, "open S[KC KD KH] S[KC KD KH]; discard QS")  # 60
    assert table(m) == ["S[KC KD KH]", "S[KC KD KH]"]
    m = start([None, "KC KD KH KC KD KH 10C 10D 10S 9C"], dealer=0)
    ok(m, 1, "open S[KC KD KH] S[10C 10D 10S]; meld S[KC KD KH]; discard 9C")
    assert table(m) == ["S[KC KD KH]", "S[10C 10D 10S]", "S[KC KD KH]"]
