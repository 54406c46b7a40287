"""A turn (T1-T6)."""

from __future__ import annotations

from engine.cards import parse_card
from engine.decisions import Draw, Play
from engine.observe import legal, observe
from scenario import hand, ok, pass_turn, refused, same_cards, scores, start, table, top_discard, value

# T1 --------------------------------------------------------------------------------------------


def test_T1_draw_the_top_of_the_stock():
    m = start([None, None], dealer=0, top="KC 9S")
    ok(m, 1, f"discard {hand(m, 1)[0]}")
    n = len(hand(m, 0))
    ok(m, 0, "stock")
    assert hand(m, 0).count("KC") == 1 and len(hand(m, 0)) == n + 1
    assert observe(m, 1).stock_size == 106 - 29 - 1


def test_T1_no_draw_before_the_previous_player_has_discarded():
    m = start([None, None, None], dealer=0, top="KC 9S 8S")
    ok(m, 1, f"discard {hand(m, 1)[0]}")
    refused(m, 0, "stock", "T1")  # seat 2 is to move
    refused(m, 2, f"discard {hand(m, 2)[0]}", "T1")  # draw first
    ok(m, 2, "stock")
    refused(m, 2, "stock", "T1")  # one draw only
    refused(m, 0, "stock", "T1")  # seat 2 has not discarded yet


def test_T1_the_discard_is_taken_only_under_T2_or_P1():
    m = start([None, "KS"], dealer=0)
    ok(m, 1, "discard KS")
    assert "KS" not in hand(m, 0)
    refused(m, 0, "pair", "P1")  # no KS, no joker: no pair
    refused(m, 0, "take", "T2")  # a bare take lays nothing down
    ok(m, 0, "stock")


def test_T1_only_the_card_just_discarded_may_be_taken():
    """QH lies under the top discard AS: seat 0 holds QH, but only the top card may be taken."""
    m = start(["QH", "QH 3C", "AS"], dealer=0, top="KD 7S 7D")
    ok(m, 1, "discard QH")
    ok(m, 2, "stock")
    ok(m, 2, "discard AS")
    assert m.round.discards[-2:] == [parse_card("QH"), parse_card("AS")]
    assert legal(m.round, 0)["draw"]["discard"] == parse_card("AS")
    refused(m, 0, "pair", "P1")


# T2 --------------------------------------------------------------------------------------------

# Seat 1 plays first (dealer 0) and throws KS; seat 0 holds 10H JH QH KC KD KH.
T2_HANDS = ["10H JH QH KC KD KH 5C 6C", "KS"]


def test_T2_taken_discard_must_be_in_new_meld_to_open():
    m = start(T2_HANDS, dealer=0)
    ok(m, 1, "discard KS")
    # the taken card is not in the opening: a wrong opening, 50 (O4)
    refused(m, 0, "take; open R[10H JH QH] S[KC KD KH]", "T2", 50)
    # too little: 30 (O1), 50 again: once per refused decision
    refused(m, 0, "take; open S[KC KD KS]", "O1", 50)
    assert m.round.penalties[0] == ["O4", "O4"]
    ok(m, 0, "take; open R[10H JH QH] S[KC KD KS]")
    assert top_discard(m) is None
    assert table(m) == ["R[10H JH QH]", "S[KC KD KS]"]
    assert m.round.opened[0] and m.round.open_value[0] == 60 and m.round.phase == "play"
    assert "KH" in hand(m, 0) and "KS" not in hand(m, 0)


def test_T2_the_opening_in_a_take_is_checked_first():
    """O4: a wrong opening costs 50 even when the rest of the take decision is also wrong."""
    m = start(T2_HANDS, dealer=0)
    ok(m, 1, "discard KS")
    refused(m, 0, "take; open S[KC KD KS]; meld R[10H JH QH]", "O1", 50)
    # a right opening followed by more melds: the draw carries the opening only, no penalty
    refused(m, 0, "take; open R[10H JH QH] S[KC KD KS]; meld S[5C 5C 5C]", "T2", 0)
    ok(m, 0, "take; open R[10H JH QH] S[KC KD KS]")


def test_T2_laying_the_taken_card_off_does_not_count():
    m = start(["9S", "10S JS QS KS AS 7S 8S 2C"], dealer=0)
    ok(m, 1, "open R[10S JS QS KS AS]; discard 2C")  # 51
    ok(m, 0, "stock")
    ok(m, 0, "discard 9S")  # layable on seat 1's run; seat 0 has not opened, so no A5 penalty
    refused(m, 1, "take; layoff 0 9S", "T2")
    assert legal(m.round, 1)["draw"]["take"]
    ok(m, 1, "take; meld R[7S 8S 9S]")
    assert table(m) == ["R[10S JS QS KS AS]", "R[7S 8S 9S]"]


def test_T2_a_take_decision_is_one_decision_and_a_refusal_changes_nothing():
    """A refused take leaves the discard on the pile; the same seat may then draw from the stock (O4)."""
    m = start(T2_HANDS, dealer=0, top="AC")
    ok(m, 1, "discard KS")
    refused(m, 0, "take; open R[10H JH QH] S[KC KD KS KH KS]", "M2", 50)
    assert top_discard(m) == "KS"
    ok(m, 0, "stock")
    assert "AC" in hand(m, 0) and top_discard(m) == "KS"


def test_T2_trusted_take_decisions_are_judged_like_parsed_ones():
    m = start(T2_HANDS, dealer=0)
    ok(m, 1, "discard KS")
    out = m.apply(0, Draw("take", ()))
    assert not out.accepted and out.rule == "T2" and out.penalty == 0
    out = m.apply(0, Draw("take", (Play("layoff", (), 0, (parse_card("KS"),)),)))
    assert not out.accepted and out.rule == "T2" and out.penalty == 0
    out = m.apply_json(0, {"draw": "take", "plays": [{"type": "joker", "meld": 0, "cards": ["KS"]}]})
    assert not out.accepted and out.rule == "T2" and out.penalty == 0
    assert m.round.penalties[0] == []


def test_T2_decision_a_take_opening_cannot_use_a_table_joker():
    """Decision (T2): jokers are taken (A4) only in play decisions."""
    m = start(["JH QH KC KD AH 2C", "10H 10H JK QH 5S 6S 7S 8S 2D"], dealer=0)
    ok(m, 1, "open R[10H JK QH] R[5S 6S 7S 8S]; discard 2D")  # 30 + 26
    ok(m, 0, "stock")
    ok(m, 0, "discard 2C")
    refused(m, 1, "take; joker 0 JH; meld R[2C 3C JK]", "T2")
    ok(m, 1, "stock")


def test_T2_an_opened_player_takes_the_discard_into_a_new_meld():
    """Seat 0 throws 7H; seat 1, opened, takes it into S[7D 7C 7H]."""
    m = start(["7H 2C", "10S JS QS KS AS 7D 7C 3D"], dealer=0)
    ok(m, 1, "open R[10S JS QS KS AS]; discard 3D")
    ok(m, 0, "stock")
    ok(m, 0, "discard 7H")
    refused(m, 1, "take; meld S[7D 7C 7H 7H]", "M2", 0)  # a wrong meld, but no opening: no penalty
    ok(m, 1, "take; meld S[7D 7C 7H]")
    assert table(m)[-1] == "S[7D 7C 7H]" and m.round.phase == "play"


def test_T2_an_opened_players_take_without_the_card_in_a_meld_costs_nothing():
    m = start(["7H 2C", "10S JS QS KS AS 7D 7C 7S 9C 9D 9S 3D"], dealer=0)
    ok(m, 1, "open R[10S JS QS KS AS]; discard 3D")
    ok(m, 0, "stock")
    ok(m, 0, "discard 7H")
    refused(m, 1, "take; meld S[9C 9D 9S]", "T2", 0)


def _dead_setup(**overrides):
    """Seat 1 opens with R[5H 6H 7H 8H] S[KC KD KS]; seat 2 throws 9H, layable on the hearts run."""
    return start(["9C 9D 10C 10D 10S 9H", "5H 6H 7H 8H KC KD KS QC", "9H"], dealer=0, **overrides)


def test_T2_layable_discard_dead_false_a_layable_discard_may_be_taken():
    m = _dead_setup()
    ok(m, 1, "open R[5H 6H 7H 8H] S[KC KD KS]; discard QC")
    ok(m, 2, "stock")
    ok(m, 2, "discard 9H")
    assert legal(m.round, 0)["draw"]["take"]
    ok(m, 0, "take; open S[9H 9C 9D] S[10C 10D 10S]")


def test_T2_layable_discard_dead_true_a_layable_discard_cannot_be_taken():
    m = _dead_setup(layable_discard_dead=True)
    ok(m, 1, "open R[5H 6H 7H 8H] S[KC KD KS]; discard QC")
    ok(m, 2, "stock")
    ok(m, 2, "discard 9H")
    d = legal(m.round, 0)["draw"]
    assert not d["take"] and d["take_blocked"].startswith("T2")
    assert not observe(m, 0).can_take_discard
    refused(m, 0, "take; open S[9H 9C 9D] S[10C 10D 10S]", "T2", 0)
    ok(m, 0, "stock")


def test_T2_layable_discard_dead_a_declared_pairs_player_may_still_take_it_into_a_pair():
    """The exception of T2, through a P1 take by a player who declared in an earlier turn."""
    m = start(["9H 2C", "5H 6H 7H 8H KC KD KS QC", "9H 3C"], dealer=0, layable_discard_dead=True,
              top="AC AD AH AS")
    ok(m, 1, "open R[5H 6H 7H 8H] S[KC KD KS]; discard QC")
    pass_turn(m, 2)
    ok(m, 0, "stock")
    ok(m, 0, "declare; discard 2C")
    pass_turn(m, 1)
    ok(m, 2, "stock")
    ok(m, 2, "discard 9H")
    assert not legal(m.round, 0)["draw"]["take"] and legal(m.round, 0)["draw"]["pair"]
    refused(m, 0, "take; pairs P[9H 9H] P[AC AC]", "O2", 50)  # O4: the wrong opening is judged first
    ok(m, 0, "pair")
    assert hand(m, 0).count("9H") == 2


# T3 --------------------------------------------------------------------------------------------


def test_T3_after_drawing_lay_down_lay_off_and_take_jokers_in_any_order():
    m = start([None, "5H 6H 7H 8H KC KD JK QC 10H KS 2S 3S QD"], dealer=0, top="AC 9H")
    ok(m, 1, "open R[5H 6H 7H 8H] S[KC KD JK]; discard QC")
    pass_turn(m, 0)
    ok(m, 1, "stock")
    assert "9H" in hand(m, 1)
    # 10H before 9H does not fit: the order of the plays is the order they happen
    refused(m, 1, "layoff 0 10H; layoff 0 9H; discard QD", "A2")
    # using the joker before taking it: not in hand yet
    refused(m, 1, "meld R[2S 3S JK]; joker 1 KS; discard QD", "T3")
    ok(m, 1, "layoff 0 9H; joker 1 KS; meld R[2S 3S JK]; layoff 0 10H; discard QD")
    assert table(m) == ["R[5H 6H 7H 8H 9H 10H]", "S[KC KD KS]", "R[2S 3S JK]"]
    assert "JK" not in hand(m, 1) and "QD" not in hand(m, 1)


def test_T3_cards_not_in_hand_are_refused():
    m = start([None, "5H 6H 7H 8H KC KD KS QC"], dealer=0)
    refused(m, 1, "open R[5H 6H 7H 8H] S[KC KD KH]; discard QC", "T3")


# T4 --------------------------------------------------------------------------------------------


def test_T4_every_turn_ends_with_a_discard():
    m = start([None, "5H 6H 7H 8H KC KD KS QC"], dealer=0)
    refused(m, 1, "open R[5H 6H 7H 8H] S[KC KD KS]", "T4")
    refused(m, 1, "open R[5H 6H 7H 8H] S[KC KD KS]; discard 2X", "O4")  # not a card: unreadable
    refused(m, 1, "discard QC; discard QC", "O4")
    ok(m, 1, "open R[5H 6H 7H 8H] S[KC KD KS]; discard QC")


def test_T4_one_card_must_remain_for_the_discard():
    hand15 = "2C 3C 4C 5C 6C 7C 8C 9C 10C JC 10D JD QD KD AD"
    m = start([None, hand15], dealer=0)
    refused(m, 1, "open R[2C 3C 4C 5C 6C 7C 8C 9C 10C] R[10D JD QD KD AD]; layoff 0 JC; discard JC", "T4")
    refused(m, 1, "open R[2C 3C 4C 5C 6C 7C 8C 9C 10C JC] R[10D JD QD KD AD]; discard JC", "T4")
    # going out with JC as the last card: the going-out discard is never penalised (A5)
    ok(m, 1, "open R[2C 3C 4C 5C 6C 7C 8C 9C 10C] R[10D JD QD KD AD]; discard JC")
    assert m.records[0]["winner"] == 1 and m.records[0]["seats"][1]["penalties"] == {}


def test_T4_a_take_may_not_lay_down_the_last_card():
    m = start(["5D", "2C 3C 4C 5C 6C 7C 8C 9C 10C 10D JD QD 5S 5H KC"], dealer=0)
    ok(m, 1, "open R[2C 3C 4C 5C 6C 7C 8C 9C 10C] R[10D JD QD]; discard KC")
    assert same_cards(hand(m, 1), "5S 5H")
    ok(m, 0, "stock")
    ok(m, 0, "discard 5D")
    refused(m, 1, "take; meld S[5S 5H 5D]", "T4")
    ok(m, 1, "stock")


# T5 --------------------------------------------------------------------------------------------


def _run_out(m):
    """Pass turns until the stock is empty; returns the seat that must draw next."""
    while observe(m, 0).stock_size > 0:
        seat = m.to_move()
        if m.round.phase == "play":
            ok(m, seat, f"discard {hand(m, seat)[0]}")
        else:
            pass_turn(m, seat)
    return m.to_move()


def test_T5_the_stock_runs_out_nobody_opened_the_round_is_void():
    m = start([None, "KC KD 9C 9D 9S", None, None], dealer=0, rounds=1, exhausted="score", star_bonus=True)
    refused(m, 1, "open S[KC KD] S[9C 9D 9S]; discard KC", "M2", 50)  # a penalty, then voided
    seat = _run_out(m)
    index = m.round.index
    ok(m, seat, "stock")
    rec = m.records[index]
    assert rec["end"] == "exhausted" and rec["void"] and rec["winner"] == -1
    assert rec["seats"][1]["penalties"] == {"O4": 1}
    assert [s["score"] for s in rec["seats"]] == [0, 0, 0, 0]
    assert m.totals == [0, 0, 0, 0] and m.counted == 0 and not m.is_over  # the void round does not count
    assert m.round.index == 1


def test_T5_the_player_may_take_the_discard_instead_and_play_on():
    """49 cards in the stock: seat 2 draws the last at turn 50; seat 3 (holding a joker) pairs the discard."""
    m = start([None, None, None, "JK"], dealer=0)
    seat = _run_out(m)
    assert seat == 3 and not m.records and m.round.phase == "draw"
    assert legal(m.round, 3)["draw"]["stock_empty"]
    ok(m, 3, "pair")  # P1: the joker pairs with anything
    assert not m.records
    ok(m, 3, f"discard {[c for c in hand(m, 3) if c not in ('JK', top_discard(m))][0]}")
    ok(m, 0, "stock")
    assert m.records and m.records[0]["end"] == "exhausted" and m.records[0]["turns"] == 52


def test_T5_exhausted_void_voids_the_round_even_if_someone_opened():
    m = start([None, "10C JC QC KC AC 10D JD QD KD AD 2S", None, None], dealer=0, star_bonus=True)
    ok(m, 1, "open R[10C JC QC KC AC] R[10D JD QD KD AD]; discard 2S")  # 102: a star (O6)
    seat = _run_out(m)
    ok(m, seat, "stock")
    rec = m.records[0]
    assert rec["void"] and [s["score"] for s in rec["seats"]] == [0, 0, 0, 0]
    assert not rec["seats"][1]["star"]  # O6: no star in a void round
    assert m.counted == 0


def test_T5_exhausted_score_scores_everyone_as_a_loser():
    """Multiplier 1, S3-S6, no -100; a star (O6) still counts; a declared player pays double (S5)."""
    m = start([None, "10C JC QC KC AC 10D JD QD KD AD 2S", None, None], dealer=0, exhausted="score",
              star_bonus=True)
    ok(m, 1, "open R[10C JC QC KC AC] R[10D JD QD KD AD]; discard 2S")
    ok(m, 2, "stock")
    ok(m, 2, f"declare; discard {hand(m, 2)[0]}")
    seat = _run_out(m)
    ok(m, seat, "stock")
    rec = m.records[0]
    assert not rec["void"] and rec["winner"] == -1 and rec["multiplier"] == 1 and rec["end"] == "exhausted"
    for s, seat_rec in enumerate(rec["seats"]):
        base = value(seat_rec["left"]) if s == 1 else 100
        if s == 2:
            base *= 2
        expect = base + 50 * sum(seat_rec["penalties"].values()) + (-100 if s == 1 else 0)
        assert seat_rec["score"] == expect
    assert rec["seats"][1]["star"] and rec["seats"][2]["declared"]
    assert m.counted == 1 and m.is_over and m.totals == [s["score"] for s in rec["seats"]]


# T6 --------------------------------------------------------------------------------------------


def test_T6_max_turns_ends_the_round_as_if_the_stock_ran_out():
    m = start([None, None, None], dealer=0, max_turns=5)
    for turn in range(5):
        assert not m.records
        seat = m.to_move()
        if m.round.phase == "play":
            ok(m, seat, f"discard {hand(m, seat)[0]}")
        else:
            pass_turn(m, seat)
    rec = m.records[0]
    assert rec["end"] == "max_turns" and rec["turns"] == 5 and rec["void"]
    assert m.counted == 0


def test_T6_max_turns_with_exhausted_score_scores_the_round():
    m = start([None, "10C JC QC KC AC 2S", None], dealer=0, max_turns=4, exhausted="score")
    ok(m, 1, "open R[10C JC QC KC AC]; discard 2S")
    for _ in range(3):
        pass_turn(m, m.to_move())
    rec = m.records[0]
    assert rec["end"] == "max_turns" and not rec["void"] and rec["winner"] == -1
    assert scores(m)[1] == value(rec["seats"][1]["left"]) + 50 * sum(rec["seats"][1]["penalties"].values())
    assert scores(m)[0] == 100 and scores(m)[2] == 100


def test_T6_default_max_turns_is_1000():
    m = start([None, None], dealer=0)
    assert m.rules.max_turns == 1000
