"""Going out (G1-G4) and scoring (S1-S7): the worked examples of RULES.md, played through real rounds."""

from __future__ import annotations

import pytest

from engine.scoring import competition_ranks, multiplier, round_scores
from scenario import hand, ok, pass_turn, refused, scores, start, table, value

# G1 --------------------------------------------------------------------------------------------


def test_G1_going_out_ends_the_round_at_once():
    m = start([None, "2C 3C 4C 5C 6C 7C 8C 9C 10C 10D JD QD KD AD 2S", None], dealer=0, rounds=2)
    ok(m, 1, "open R[2C 3C 4C 5C 6C 7C 8C 9C 10C] R[10D JD QD KD AD]; discard 2S")
    assert len(m.records) == 1
    rec = m.records[0]
    assert rec["end"] == "out" and rec["winner"] == 1 and rec["turns"] == 1
    assert rec["seats"][1]["left"] == []
    assert m.round.index == 1 and not m.round.over  # the next round has begun
    assert m.round.table == [] and m.round.discards == []


def test_G1_going_out_by_laying_off():
    m = start([None, "2C 3C 4C 5C 6C 7C 8C 9C 10C 10D JD QD KD AD 2S"], dealer=0, top="5S 6S")
    ok(m, 1, "open R[2C 3C 4C 5C 6C 7C 8C 9C 10C] R[10D JD QD KD]; discard 2S")  # keeps AD
    assert hand(m, 1) == ["AD"]
    pass_turn(m, 0)
    ok(m, 1, "stock")
    assert sorted(hand(m, 1)) == ["6S", "AD"]
    ok(m, 1, "layoff 1 AD; discard 6S")
    rec = m.records[0]
    assert rec["winner"] == 1 and rec["finish"] == {"G2": False, "G3": False, "G4": False}
    assert scores(m) == [100, -100]


def test_G1_the_last_card_is_discarded_a_player_with_one_card_left_must_discard_it():
    """One card left after the plays is the going-out discard; no plays that leave none (T4)."""
    m = start([None, "2C 3C 4C 5C 6C 7C 8C 9C 10C 10D JD QD KD AD JC"], dealer=0)
    refused(m, 1, "open R[2C 3C 4C 5C 6C 7C 8C 9C 10C JC] R[10D JD QD KD AD]; discard 2S", "T4")
    ok(m, 1, "open R[2C 3C 4C 5C 6C 7C 8C 9C 10C] R[10D JD QD KD AD]; discard JC")
    assert m.records[0]["winner"] == 1


# The multiplier table (S2), one real round per cell -------------------------------------------

# Seats: L = 0 (first player, 15 cards; the loser under test), H = 1 (the other loser), W = 2 (dealer,
# the winner). Turn 1 L, turn 2 H, turn 3 W; when W does not go out all at once, W opens at turn 3
# and goes out by laying off at turn 6.

COLUMNS = ("opened", "not_opened", "opened_pairs", "not_opened_pairs", "nobody_normal", "nobody_pairs")

# Copied from RULES.md ("The Turkish table"), the misprint Decision applied.
TABLE = {
    # (G2, G3, G4): cells
    ("normal", False, False, False): ("1×", "100", "2×", "200", "100", "200"),
    ("all at once", True, False, False): ("1×", "100", "2×", "200", "200", "400"),
    ("pairs", False, False, True): ("2×", "200", "4×", "400", "200", "400"),
    ("all at once from pairs", True, False, True): ("2×", "200", "4×", "400", "400", "800"),
    ("joker", False, True, False): ("2×", "200", "4×", "400", "200", "400"),
    ("joker, all at once", True, True, False): ("2×", "200", "4×", "400", "400", "800"),
    ("joker, pairs", False, True, True): ("4×", "400", "8×", "800", "400", "800"),
    ("joker, all at once, pairs", True, True, True): ("4×", "400", "8×", "800", "800", "1600"),
}

CELLS = [
    pytest.param(row, col, cell, id=f"{row[0]}|{COLUMNS[i]}")
    for row, cells in TABLE.items()
    for i, (col, cell) in enumerate(zip(COLUMNS, cells))
]

L_MELDS = "2H 3H 4H 5H 6H 7H 8H 9H 10H QC KC AC QD KD AD"
L_PAIRS = "2H 2H 3H 3H 4H 4H 5H 5H 6H 6H QC KC AC QD AD"
H_HAND = "2S 3S 4S 5S 6S 7S 8S 9S 10S QH KH AH QS KS"
W_MELDS = "2C 3C 4C 5C 6C 7C 8C 2D 3D 4D 5D 6D 7D 8D"
W_PAIRS = "9C 9C 9D 9D 10C 10C 10D 10D 2C 3C 4C 5C 6C 7C"


def _play_cell(row, col):
    _, g2, g3, g4 = row
    l_cards = L_PAIRS if col == "opened_pairs" else L_MELDS
    w_cards = W_PAIRS if g4 else W_MELDS
    out_card = "JK" if g3 else "JS"
    # stock: H draws QH, W draws (its going-out card, or AS), L draws AH, H draws QS, W draws its out card
    top = ["QH", out_card if g2 else "AS", "AH", "QS"] + ([] if g2 else [out_card])
    m = start([l_cards, H_HAND, w_cards], dealer=2, top=" ".join(top))
    # turn 1: L
    if col == "opened":
        ok(m, 0, "open R[2H 3H 4H 5H 6H 7H 8H 9H 10H]; discard AD")
    elif col == "opened_pairs":
        ok(m, 0, "pairs P[2H 2H] P[3H 3H] P[4H 4H] P[5H 5H] P[6H 6H]; discard AD")
    elif col in ("not_opened_pairs", "nobody_pairs"):
        ok(m, 0, "declare; discard AD")
    else:
        ok(m, 0, "discard AD")
    # turn 2: H opens unless nobody else may have opened
    ok(m, 1, "stock")
    if col.startswith("nobody"):
        ok(m, 1, "discard QH")
    else:
        ok(m, 1, "open R[2S 3S 4S 5S 6S 7S 8S 9S 10S]; discard QH")
    # turn 3: W
    ok(m, 2, "stock")
    if g2:
        if g4:
            ok(m, 2, f"pairs P[9C 9C] P[9D 9D] P[10C 10C] P[10D 10D] R[2C 3C 4C 5C 6C 7C]; discard {out_card}")
        else:
            ok(m, 2, f"open R[2C 3C 4C 5C 6C 7C 8C] R[2D 3D 4D 5D 6D 7D 8D]; discard {out_card}")
        return m
    if g4:
        ok(m, 2, "pairs P[9C 9C] P[9D 9D] P[10C 10C] P[10D 10D] R[2C 3C 4C 5C]; discard AS")
        run, rest = "R[2C 3C 4C 5C]", ("6C", "7C")
    else:
        ok(m, 2, "open R[2C 3C 4C 5C 6C 7C 8C] R[2D 3D 4D 5D 6D]; discard AS")  # 35 + 20
        run, rest = "R[2D 3D 4D 5D 6D]", ("7D", "8D")
    # turns 4, 5: L and H draw and throw the drawn card
    ok(m, 0, "stock")
    ok(m, 0, "discard AH")
    ok(m, 1, "stock")
    ok(m, 1, "discard QS")
    # turn 6: W lays off its last two cards and goes out
    ok(m, 2, "stock")
    i = table(m).index(run)
    ok(m, 2, f"layoff {i} {rest[0]}; layoff {i} {rest[1]}; discard {out_card}")
    return m


@pytest.mark.parametrize("row,col,cell", CELLS)
def test_S2_turkish_scoring_table_cell(row, col, cell):
    """Every cell of the 8x6 table (S1-S5, G1-G4), through a round played from a deal file."""
    m = _play_cell(row, col)
    _, g2, g3, g4 = row
    rec = m.records[0]
    assert rec["winner"] == 2 and rec["end"] == "out"
    assert rec["finish"] == {"G2": g2, "G3": g3, "G4": g4}
    others_opened = not col.startswith("nobody")
    assert rec["multiplier"] == 2 ** (g2 and not others_opened) * 2 ** g3 * 2 ** g4
    assert all(not s["penalties"] for s in rec["seats"])
    got = scores(m)
    assert got[2] == -100  # S1
    if cell.endswith("×"):
        left = rec["seats"][0]["left"]
        assert value(left) == (41 if col == "opened_pairs" else 51)
        assert got[0] == int(cell[:-1]) * value(left)
    else:
        assert got[0] == int(cell)
    if col == "nobody_normal":
        assert got[1] == got[0]  # H is an unopened loser too


# Anna, Ben and Carla (S1-S5) ---------------------------------------------------------------------

ANNA = "2C 3C 4C 5C 6C 7C 8C 9C 10C 2D 3D 4D 5D 6D QS"  # opens with clubs, goes out with diamonds
BEN = "2S 3S 4S 5S 6S 2H 3H 4H 5H 6H 7H 8H AS 9H"  # opens 20 + 35, keeps AS 9H
CARLA = None


def _anna_ben_carla(last: str, ben=BEN):
    """Anna 0 (first), Ben 1, Carla 2 (dealer). Anna opens at turn 1 and goes out at turn 4 with ``last``."""
    m = start([ANNA, ben, CARLA], dealer=2, top=f"KD QC {last}")
    ok(m, 0, "open R[2C 3C 4C 5C 6C 7C 8C 9C 10C]; discard QS")
    ok(m, 1, "stock")
    ok(m, 1, "open R[2S 3S 4S 5S 6S] R[2H 3H 4H 5H 6H 7H 8H]; discard KD")
    ok(m, 2, "stock")
    ok(m, 2, "discard QC")
    ok(m, 0, "stock")
    ok(m, 0, f"meld R[2D 3D 4D 5D 6D]; discard {last}")
    return m


def test_S1_S3_S4_anna_goes_out_normally():
    m = _anna_ben_carla("KS")
    assert m.records[0]["seats"][1]["left"] == ["9H", "AS"]
    assert scores(m) == [-100, 20, 100]  # Anna -100 (S1); Ben 11 + 9 (S3); Carla 100 (S4)


def test_S2_anna_goes_out_with_a_joker():
    m = _anna_ben_carla("JK")
    assert m.records[0]["finish"]["G3"] and m.records[0]["multiplier"] == 2
    assert scores(m) == [-100, 40, 200]


def test_S3_a_joker_left_in_hand_is_worth_25():
    m = _anna_ben_carla("KS", ben="2S 3S 4S 5S 6S 2H 3H 4H 5H 6H 7H 8H AS JK")
    assert scores(m) == [-100, 11 + 25, 100]


def test_S5_a_declared_loser_pays_double_penalties_are_not_doubled():
    """Carla declares pairs (S5) and has one wrong opening (50, S6): m=2 (G3): 2 x 2 x 100 + 50."""
    m = start([ANNA, BEN, "KH KH KC KD 2C"], dealer=2, top="KD QC JK")
    ok(m, 0, "open R[2C 3C 4C 5C 6C 7C 8C 9C 10C]; discard QS")
    ok(m, 1, "stock")
    ok(m, 1, "open R[2S 3S 4S 5S 6S] R[2H 3H 4H 5H 6H 7H 8H]; discard KD")
    ok(m, 2, "stock")
    refused(m, 2, "open S[KH KC KD]; discard QC", "O1", 50)
    ok(m, 2, "declare; discard QC")
    ok(m, 0, "stock")
    ok(m, 0, "meld R[2D 3D 4D 5D 6D]; discard JK")
    assert scores(m) == [-100, 40, 2 * 2 * 100 + 50]


def test_S5_a_declared_loser_who_opened_with_pairs_pays_double_his_cards():
    m = start([ANNA, "2S 2S 3S 3S 4H 4H 5H 5H 6H 6H AS 9H KC KC", None], dealer=2, top="KD QC KS")
    ok(m, 0, "open R[2C 3C 4C 5C 6C 7C 8C 9C 10C]; discard QS")
    ok(m, 1, "stock")
    ok(m, 1, "pairs P[2S 2S] P[3S 3S] P[4H 4H] P[5H 5H] P[6H 6H]; discard KD")
    ok(m, 2, "stock")
    ok(m, 2, "discard QC")
    ok(m, 0, "stock")
    ok(m, 0, "meld R[2D 3D 4D 5D 6D]; discard KS")
    assert scores(m) == [-100, 2 * (11 + 9 + 10 + 10), 100]


def test_S6_penalties_add_50_each_outside_the_multiplier():
    """Ben: two A5 penalties in a round won with a joker (m=2): 2 x (11 + 9) + 100."""
    m = start([ANNA, "2S 3S 4S 5S 6S 2H 3H 4H 5H 6H 7H 8H AS 9H", "7S 9H"], dealer=2, top="7S 8S JK")
    ok(m, 0, "open R[2C 3C 4C 5C 6C 7C 8C 9C 10C]; discard QS")
    ok(m, 1, "stock")
    out = ok(m, 1, "open R[2S 3S 4S 5S 6S] R[2H 3H 4H 5H 6H 7H 8H]; discard 7S")  # 7S fits the spades
    assert out.penalty == 50 and out.rule == "A5"
    ok(m, 2, "stock")
    ok(m, 2, "discard 8S")
    ok(m, 0, "stock")
    ok(m, 0, "meld R[2D 3D 4D 5D 6D]; discard JK")
    assert m.records[0]["seats"][1]["penalties"] == {"A5": 1}
    assert scores(m) == [-100, 2 * 20 + 50, 200]


def test_S7_star_bonus_adds_minus_100():
    m = start([ANNA, "9C 10C JC QC KC AC KD KH KS KC 2S 3S 4S 5S", None], dealer=2, top="QD QC KS",
              star_bonus=True)
    ok(m, 0, "open R[2C 3C 4C 5C 6C 7C 8C 9C 10C]; discard QS")
    ok(m, 1, "stock")
    ok(m, 1, "open R[9C 10C JC QC KC AC] S[KD KH KS KC]; discard QD")  # 100
    ok(m, 2, "stock")
    ok(m, 2, "discard QC")
    ok(m, 0, "stock")
    ok(m, 0, "meld R[2D 3D 4D 5D 6D]; discard KS")
    assert scores(m) == [-100, 14 - 100, 100]


# The scoring functions -------------------------------------------------------------------------


@pytest.mark.parametrize("g2", [False, True])
@pytest.mark.parametrize("g3", [False, True])
@pytest.mark.parametrize("g4", [False, True])
@pytest.mark.parametrize("others", [False, True])
def test_S2_multiplier_function(g2, g3, g4, others):
    assert multiplier(g2, g3, g4, others) == 2 ** (int(g4) + int(g3) + int(g2 and not others))


def test_S3_to_S7_round_scores_function():
    # winner 0; 1 opened (value 20), 2 not opened, 3 declared not opened with a penalty and a star
    got = round_scores(0, [True, True, False, False], [False, False, False, True], [0, 20, 77, 55],
                       [0, 0, 0, 1], [True, False, False, True], 4)
    assert got == [-100 - 100, 80, 400, 2 * 400 + 50 - 100]
    # exhausted, scored (T5): no winner, multiplier 1
    assert round_scores(-1, [True, False], [False, True], [30, 99], [1, 0], [False, False], 1) == [80, 200]


def test_X1_competition_ranks_function():
    assert competition_ranks([10, 10, 30]) == [1, 1, 3]
    assert competition_ranks([5, -100, 5, 7]) == [2, 1, 2, 4]
