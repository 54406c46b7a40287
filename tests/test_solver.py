"""The meld search (engine/solver.py) against a brute-force oracle, and the known traps.

Rules checked: M1 (runs, ace high only), M2 (sets), M3 (pairs), M4 (jokers, a natural card in every
meld, joker values), M5 (the same meld twice), O1 (opening value), O2 (pairs openings), A2 (lay-offs,
chained), T4 (one card must remain for the discard).
"""

from __future__ import annotations

import random
from collections import Counter
from functools import lru_cache
from itertools import combinations, permutations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import JOKER, VALUES, counts_of, full_deck, parse_card, parse_cards
from engine.errors import Refusal
from engine.melds import HIGH, LOW, PAIR, RUN, SET, lay_off, make_meld
from engine.solver import best_opening, best_pairs_opening, going_out, layable_cards

JK = JOKER


def C(text):
    """Count vector of a hand written as text, e.g. C("5H 6H 7H JK")."""
    return counts_of(parse_cards(text))


def M(kind, text):
    return make_meld(kind, parse_cards(text))


# The oracle ----------------------------------------------------------------------------------------
#
# Deliberately simple: a group of cards is a meld if make_meld accepts it in some order (every
# permutation is tried for runs), and a hand is split in every possible way: the group that holds the
# hand's first card is any sub-multiset of the rest (or the first card stays in hand).

MAX_GROUP = 6  # the pools below have at most 3 ranks: a run has <= 3 naturals + 2 jokers, a set 4


@lru_cache(maxsize=None)
def group_meanings(group: tuple) -> tuple:
    """Every (kind, value) that the multiset ``group`` can be laid down as (make_meld decides)."""
    out = set()
    for kind in (SET, PAIR):
        try:
            out.add((kind, make_meld(kind, group).value))
        except Refusal:
            pass
    naturals = [c for c in group if c != JK]
    # necessary for a run (M1): distinct naturals, one suit; saves trying hopeless permutations
    if len(group) >= 3 and naturals and len(set(naturals)) == len(naturals) and len({c // 13 for c in naturals}) == 1:
        for order in set(permutations(group)):
            try:
                out.add((RUN, make_meld(RUN, order).value))
            except Refusal:
                pass
    return tuple(sorted(out))


def _remove(rest: tuple, group) -> tuple:
    rest = list(rest)
    for c in group:
        rest.remove(c)
    return tuple(rest)


@lru_cache(maxsize=None)
def outcomes(rest: tuple) -> frozenset:
    """Every (pairs, runs_and_sets, cards_left, run_set_value) a split of the sorted hand can reach."""
    if not rest:
        return frozenset({(0, 0, 0, 0)})
    first, others = rest[0], rest[1:]
    out = {(p, m, n + 1, v) for p, m, n, v in outcomes(others)}
    for size in range(1, min(len(others), MAX_GROUP - 1) + 1):
        for sub in set(combinations(others, size)):
            meanings = group_meanings(tuple(sorted((first,) + sub)))
            if not meanings:
                continue
            below = outcomes(_remove(others, sub))
            for kind, value in meanings:
                for p, m, n, v in below:
                    out.add((p + 1, m, n, v) if kind == PAIR else (p, m + 1, n, v + value))
    return frozenset(out)


def oracle_opening(hand, keep):
    return max(v for p, m, n, v in outcomes(tuple(sorted(hand))) if p == 0 and n >= keep) if len(hand) >= keep else 0


def oracle_pairs(hand, combo, keep):
    """Best (cards laid, run/set value) for exactly this combination, or None."""
    p0, m0 = combo
    found = [(len(hand) - n, v) for p, m, n, v in outcomes(tuple(sorted(hand))) if (p, m) == (p0, m0) and n >= keep]
    return max(found) if found else None


def layoff_rests(table, hand) -> set:
    """Every hand (sorted tuple) that some sequence of lay-offs (A2) onto ``table`` can leave."""
    seen, rests = set(), set()

    def rec(melds, rest):
        key = (tuple((m.kind, tuple(m.cards), m.base) for m in melds), rest)
        if key in seen:
            return
        seen.add(key)
        rests.add(rest)
        for i in range(len(melds)):
            for c in set(rest):
                for end in (LOW, HIGH):
                    copies = [m.copy() for m in melds]
                    try:
                        lay_off(copies[i], c, end)
                    except Refusal:
                        continue
                    rec(copies, _remove(rest, [c]))

    rec([m.copy() for m in table], tuple(sorted(hand)))
    return rests


def _goes_out(rest, *, min_value, pairs, min_melds, left):
    return any(p == pairs and m >= min_melds and n == left and v >= min_value for p, m, n, v in outcomes(rest))


def oracle_going_out(hand, table, *, min_value=0, pairs=0, min_melds=0, layoff=True, keep=1):
    """(possible?, highest value of a left card when keep == 1)."""
    rests = layoff_rests(table, hand) if layoff else {tuple(sorted(hand))}
    kw = dict(min_value=min_value, pairs=pairs, min_melds=min_melds)
    possible = any(_goes_out(r, left=keep, **kw) for r in rests)
    best_left = None
    if possible and keep == 1:
        best_left = max(VALUES[c] for r in rests for c in set(r) if _goes_out(_remove(r, [c]), left=0, **kw))
    return possible, best_left


# Checks of a solver answer ---------------------------------------------------------------------------


def check_partition(hand, melds, keep, pairs=()):
    """Every meld passes make_meld, the cards are a sub-multiset of the hand, >= keep left. Returns value."""
    used = []
    value = 0
    for kind, cards in melds:
        assert kind in (RUN, SET)
        value += make_meld(kind, cards).value
        used.extend(cards)
    for kind, cards in pairs:
        assert kind == PAIR and len(cards) == 2
        make_meld(PAIR, cards)
        used.extend(cards)
    assert not Counter(used) - Counter(hand), "melds use cards that are not in the hand"
    assert len(hand) - len(used) >= keep, "T4: not enough cards left"
    return value


def check_going_out(hand, table, res, *, min_value=0, pairs=0, min_melds=0, layoff=True, keep=1):
    used = []
    value = 0
    for kind, cards in res["melds"]:
        assert kind in (RUN, SET)
        value += make_meld(kind, cards).value
        used.extend(cards)
    assert len(res["melds"]) >= min_melds and value >= min_value
    assert len(res["pairs"]) == pairs
    for kind, cards in res["pairs"]:
        assert kind == PAIR
        make_meld(PAIR, cards)
        used.extend(cards)
    copies = [m.copy() for m in table]
    for i, c, end in res["layoffs"]:
        lay_off(copies[i], c, end)  # A2: raises when a lay-off does not fit
        used.append(c)
    if not layoff:
        assert not res["layoffs"]
    assert len(res["left"]) == keep
    assert Counter(used) + Counter(res["left"]) == Counter(hand)


# Narrow pools: few ranks and suits, two copies of each card and both jokers --------------------------


def pool(ranks, suits, jokers=2):
    return [s * 13 + r for r in ranks for s in suits for _ in range(2)] + [JK] * jokers


POOLS = [
    pool([3, 4, 5], [2, 3]),  # 5 6 7 of hearts and spades
    pool([10, 11, 12], [0, 1]),  # Q K A: the top end of runs (M1)
    pool([0, 1, 12], [2, 3]),  # 2 3 A: no A-2-3 (M1)
    pool([7], [0, 1, 2, 3]),  # 9s of every suit: sets (M2)
    pool([4, 5], [0, 1, 2]),  # 6 7 of three suits: runs and sets mixed
]


def hands(min_size=4, max_size=9, pools=POOLS):
    return st.sampled_from(pools).flatmap(
        lambda p: st.lists(st.sampled_from(range(len(p))), unique=True, min_size=min_size, max_size=max_size).map(
            lambda idx: [p[i] for i in idx]
        )
    )


# best_opening: oracle ------------------------------------------------------------------------------


@settings(max_examples=1500, deadline=None)
@given(hand=hands(), keep=st.sampled_from([1, 1, 0, 2]))
def test_best_opening_matches_oracle_O1_T4_M1_M2_M4(hand, keep):
    value, melds = best_opening(counts_of(hand), keep=keep)
    assert value == oracle_opening(hand, keep)
    assert check_partition(hand, melds, keep) == value
    assert (value == 0) == (melds == [])


@settings(max_examples=300, deadline=None)
@given(hand=hands(), perm=st.permutations(range(4)))
def test_best_opening_invariant_under_suit_relabelling(hand, perm):
    """Renaming the suits changes nothing (sanity of the set/run code)."""
    moved = [c if c == JK else perm[c // 13] * 13 + c % 13 for c in hand]
    assert best_opening(counts_of(moved))[0] == best_opening(counts_of(hand))[0]


# best_pairs_opening: oracle --------------------------------------------------------------------------

PAIR_COMBOS = [(1, 0), (2, 0), (3, 0), (1, 1), (2, 1), (0, 2), (4, 0)]


@settings(max_examples=800, deadline=None)
@given(hand=hands(4, 10), keep=st.sampled_from([1, 1, 0]))
def test_best_pairs_opening_matches_oracle_O2_M3(hand, keep):
    counts = counts_of(hand)
    for combo in PAIR_COMBOS:
        want = oracle_pairs(hand, combo, keep)
        got = best_pairs_opening(counts, [combo], keep=keep)
        assert (got is None) == (want is None), combo
        if got is not None:
            c, pairs, melds = got
            assert c == combo and len(pairs) == combo[0] and len(melds) == combo[1]
            value = check_partition(hand, melds, keep, pairs)
            assert (2 * len(pairs) + sum(len(cards) for _k, cards in melds), value) == want
    # several combinations at once: the most cards, then the highest run/set value
    got = best_pairs_opening(counts, PAIR_COMBOS, keep=keep)
    scores = [s for s in (oracle_pairs(hand, combo, keep) for combo in PAIR_COMBOS) if s]
    if not scores:
        assert got is None
    else:
        c, pairs, melds = got
        value = check_partition(hand, melds, keep, pairs)
        assert (2 * len(pairs) + sum(len(cards) for _k, cards in melds), value) == max(scores)


# going_out: oracle ----------------------------------------------------------------------------------

TABLE_567 = [
    M(RUN, "2H 3H 4H"),  # takes 5H high
    M(RUN, "8S 9S 10S"),  # takes 7S low
    M(RUN, "JK 9H 10H"),  # 8H-9H-10H: takes 7H low
    M(SET, "6C 6D 6H"),  # takes 6S or a joker
    M(SET, "5C JK 5D"),  # takes 5H, 5S or a joker
    M(RUN, "5H 6H 7H"),  # takes only jokers from this pool
    M(PAIR, "6S 6S"),  # takes nothing
    M(SET, "7C 7D 7H 7S"),  # full
]
TABLE_CHAIN = [M(RUN, "5H 6H 7H"), M(RUN, "5H 6H 7H"), M(SET, "9C 9D JK")]
CHAIN_POOL = pool([1, 2, 6, 7], [2]) + pool([7], [1, 3], jokers=0)  # 3H 4H 8H 9H, 9D 9S

GO_CASES = [(POOLS[0], TABLE_567), (POOLS[4], TABLE_567), (CHAIN_POOL, TABLE_CHAIN), (POOLS[1], [M(RUN, "9C 10C JC")])]


@st.composite
def going_out_cases(draw):
    p, candidates = draw(st.sampled_from(GO_CASES))
    idx = draw(st.lists(st.sampled_from(range(len(p))), unique=True, min_size=2, max_size=8))
    table = draw(st.lists(st.sampled_from(candidates), max_size=3))
    kw = dict(
        min_value=draw(st.sampled_from([0, 0, 15, 30])),
        pairs=draw(st.sampled_from([0, 0, 1, 2])),
        min_melds=draw(st.sampled_from([0, 0, 1])),
        layoff=draw(st.sampled_from([True, True, False])),
        keep=draw(st.sampled_from([1, 1, 1, 0, 2])),
    )
    return [p[i] for i in idx], table, kw


@settings(max_examples=1500, deadline=None)
@given(case=going_out_cases())
def test_going_out_matches_oracle_A2_T4(case):
    hand, table, kw = case
    res = going_out(counts_of(hand), table, **kw)
    possible, best_left = oracle_going_out(hand, table, **kw)
    assert (res is not None) == possible
    if res is not None:
        check_going_out(hand, table, res, **kw)
        if kw["keep"] == 1:
            assert VALUES[res["left"][0]] == best_left


@settings(max_examples=800, deadline=None)
@given(case=going_out_cases())
def test_no_way_out_is_worth_more_than_the_best_opening(case):
    """The bound bots/greedy.py skips going_out by: the new runs and sets of a way out (keeping one
    card or more) are an opening best_opening weighs, so none is worth more than its value."""
    hand, table, kw = case
    if kw["pairs"] or kw["keep"] < 1:
        return
    best = best_opening(counts_of(hand), keep=1)[0]
    res = going_out(counts_of(hand), table, **{**kw, "min_value": best + 1, "min_melds": max(1, kw["min_melds"])})
    assert res is None
    res = going_out(counts_of(hand), table, **kw)
    if res is not None:
        assert sum(make_meld(k, cs).value for k, cs in res["melds"]) <= best


def test_remembered_meld_options_are_those_of_the_state():
    """``_options`` hands out options found for another state that agrees on c's suit up to the
    (J+1)-th missing rank above c and on c's partners: they must be exactly the state's own."""
    from engine.solver import _OPTS, _meld_options, _options
    from engine.solver_state import _encode

    rng = random.Random(7)
    _OPTS.clear()
    for _ in range(20_000):
        hand, suit = [0] * 53, rng.randrange(4)
        for _ in range(rng.randint(3, 16)):
            c = rng.randrange(53)
            if c < 52 and rng.random() < 0.6:
                c = suit * 13 + c % 13  # mostly one suit: runs with gaps
            hand[c] = min(hand[c] + 1, 2 if c < 52 else rng.choice([2, 3]))
        held = [c for c in range(52) if hand[c]]
        if held:
            c = rng.choice(held)
            S = _encode(hand)
            assert _options(c, S, hand[JK]) == _meld_options(c, S, hand[JK]), (c, hand)


# layable_cards: against accepts ----------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(case=going_out_cases())
def test_layable_cards_match_lay_off_A2_A5(case):
    hand, table, _kw = case
    got = layable_cards(counts_of(hand), table)
    want = sorted({c for c in hand if any(lay_off_ok(m, c) for m in table)})
    assert got == want


def lay_off_ok(meld, c):
    for end in (LOW, HIGH):
        try:
            lay_off(meld.copy(), c, end)
            return True
        except Refusal:
            pass
    return False


# Known traps ---------------------------------------------------------------------------------------


def test_two_identical_runs_both_found_M5():
    value, melds = best_opening(C("5H 6H 7H 5H 6H 7H 2C"))
    assert value == 36
    assert sorted(melds) == [(RUN, tuple(parse_cards("5H 6H 7H")))] * 2


def test_two_identical_sets_both_found_M5():
    value, melds = best_opening(C("KH KS KD KH KS KD 2C"))
    assert value == 60 and len(melds) == 2


def test_answer_independent_of_card_order():
    cards = parse_cards("5H 6H 7H 5H 6H 7H 8H 9S 9D 9C JK 2C QD KD AD")
    want = best_opening(counts_of(cards))
    rng = random.Random(7)
    for _ in range(20):
        rng.shuffle(cards)
        assert best_opening(counts_of(cards)) == want
        assert going_out(counts_of(cards), []) == going_out(counts_of(sorted(cards)), [])


def test_queen_king_ace_is_a_run_M1():
    assert best_opening(C("QH KH AH 2C")) == (31, [(RUN, tuple(parse_cards("QH KH AH")))])


def test_no_wrap_around_the_ace_M1():
    assert best_opening(C("AH 2H 3H 9C")) == (0, [])
    assert best_opening(C("KH AH 2H 9C")) == (0, [])
    # a joker cannot stand above the ace: K A + JK is Q-K-A with the joker first
    value, melds = best_opening(C("KH AH JK 9C"))
    assert value == 31 and melds == [(RUN, (JK, parse_card("KH"), parse_card("AH")))]


def test_set_with_two_cards_of_one_suit_is_not_a_set_M2():
    with pytest.raises(Refusal):
        M(SET, "4H 4H 4S")
    assert best_opening(C("4H 4H 4S 9C")) == (0, [])
    value, melds = best_opening(C("4H 4H 4S 4C 9C"))
    assert value == 12 and len(melds) == 1 and sorted(melds[0][1]) == sorted(parse_cards("4H 4S 4C"))


def test_set_has_at_most_four_cards_M2():
    value, melds = best_opening(C("8C 8D 8H 8S 8C 8D 8H 8S 2C"))
    assert value == 64 and sorted(len(cards) for _k, cards in melds) == [4, 4]


def test_meld_without_a_natural_card_is_invalid_M4():
    with pytest.raises(Refusal):
        make_meld(RUN, [JK, JK, JK])
    with pytest.raises(Refusal):
        make_meld(SET, [JK, JK, JK])
    assert best_opening(counts_of([JK, JK]), keep=0) == (0, [])
    assert best_opening(counts_of([JK, JK, JK]), keep=0) == (0, [])
    assert best_pairs_opening(counts_of([JK, JK, parse_card("2C")]), [(1, 0)], keep=0) == (
        (1, 0),
        [(PAIR, (parse_card("2C"), JK))],
        [],
    )
    assert best_pairs_opening(counts_of([JK, JK, parse_card("2C")]), [(2, 0)], keep=0) is None  # JK JK is no pair (M3)


def test_joker_values_M4_O1():
    # in a run a joker counts as the card it stands for: 5S 6S(JK) 7S(JK) = 18 beats 3-4-5 and the set
    value, melds = best_opening(C("5S JK JK 2C"))
    assert value == 18 and melds == [(RUN, (parse_card("5S"), JK, JK))]
    # in a set a joker counts as the set's rank: A A(JK) A(JK) = 33 beats Q-K-A = 31
    value, melds = best_opening(C("AH JK JK 2C"))
    assert value == 33 and melds[0][0] == SET
    assert best_opening(C("KH KS JK 2C"))[0] == 30
    # Q K + JK: J-Q-K = 30 or Q-K-A = 31
    value, melds = best_opening(C("QH KH JK 2C"))
    assert value == 31 and melds == [(RUN, (parse_card("QH"), parse_card("KH"), JK))]


def test_joker_or_natural_both_tried_M4():
    # one pair and one run from 5H 6H 6H 7H JK: either 5H JK 7H + 6H 6H or 5H 6H 7H + 6H JK
    hand = parse_cards("5H 6H 6H 7H JK 2C")
    combo, pairs, melds = best_pairs_opening(counts_of(hand), [(1, 1)])
    assert check_partition(hand, melds, 1, pairs) == 18 and len(pairs) == 1
    # two pairs and a run: 6H 6H, 2C 2C and 5H JK 7H, or 6H JK, 2C 2C and 5H 6H 7H
    hand = parse_cards("5H 6H 6H 7H JK 2C 2C 9D")
    combo, pairs, melds = best_pairs_opening(counts_of(hand), [(2, 1)])
    assert check_partition(hand, melds, 1, pairs) == 18 and len(pairs) == 2
    # going out needs the joker in the run where 6H is available: 5H JK 7H + 6H 6H
    hand = parse_cards("5H 6H 6H 7H JK 9D")
    res = going_out(counts_of(hand), [], pairs=1)
    check_going_out(hand, [], res, pairs=1)
    # two runs 5-6-7 with one 6 and a joker
    assert best_opening(C("5H 6H 7H 5H JK 7H 2C"))[0] == 36


def test_keep_one_card_for_the_discard_T4():
    # exactly one run of three and nothing else: with keep=1 it cannot be laid (T4)
    assert best_opening(C("5H 6H 7H")) == (0, [])
    assert best_opening(C("5H 6H 7H"), keep=0) == (18, [(RUN, tuple(parse_cards("5H 6H 7H")))])
    # four in a row: lay the best three, keep one
    assert best_opening(C("5H 6H 7H 8H")) == (21, [(RUN, tuple(parse_cards("6H 7H 8H")))])
    assert best_opening(C("5H 6H 7H 8H"), keep=0)[0] == 26
    # 5H 6H 7H JK: all four cannot be laid; keeping 5H and laying 6H 7H JK (6-7-8) is best
    assert best_opening(C("5H 6H 7H JK")) == (21, [(RUN, tuple(parse_cards("6H 7H JK")))])


def test_opening_threshold_example_O1():
    value, melds = best_opening(C("10H JH QH KH 9C 9D 9S 2C 3D 5S 7S 8H JK 4D AC"))
    # 10-J-Q-K = 40, 9 9 9 = 27, 5S 6S(JK) 7S = 18 (better than the joker as the ace: 51 + 27)
    assert value == 85 and len(melds) == 3


def test_pairs_opening_prefers_more_cards_O2():
    hand = C("2C 2C 3C 3C 4D 4D 5D 5D 6S 6S 9H 10H JH KD")
    combo, pairs, melds = best_pairs_opening(hand, [(5, 0), (4, 1)])
    assert combo == (4, 1) and len(pairs) == 4 and melds == [(RUN, tuple(parse_cards("9H 10H JH")))]
    combo, pairs, melds = best_pairs_opening(hand, [(5, 0)])
    assert combo == (5, 0) and len(pairs) == 5 and melds == []
    assert best_pairs_opening(hand, [(6, 0)]) is None


def test_pairs_opening_exact_combination_O2():
    # seven pairs in hand: [5,0] lays exactly five (O2 decision: combinations are exact)
    hand = C("2C 2C 3C 3C 4D 4D 5D 5D 6S 6S 8H 8H 9S 9S KD")
    combo, pairs, melds = best_pairs_opening(hand, [(5, 0)])
    assert len(pairs) == 5 and melds == []
    # a joker makes a pair with any natural card (M3, M4), keep=1 respected (T4)
    hand = C("2C 2C 3C 3C 4D 4D 5D 5D 9H JK KD")
    combo, pairs, melds = best_pairs_opening(hand, [(5, 0)])
    assert (PAIR, (parse_card("9H"), JK)) in pairs
    assert best_pairs_opening(C("2C 2C 3C 3C 4D 4D 5D 5D 9H 9H"), [(5, 0)]) is None  # T4: nothing left


def test_layable_cards_A2_A5():
    table = [M(RUN, "5H 6H 7H"), M(SET, "9C 9D 9S")]
    hand = C("4H 8H 9H 9C JK 2C 3H")
    assert layable_cards(hand, table) == parse_cards("4H 8H 9H") + [JK]
    full = [M(SET, "9C 9D 9S 9H"), M(RUN, "2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC"), M(PAIR, "5D 5D")]
    assert layable_cards(C("9H 5D JK AC"), full) == []


def test_going_out_chained_layoffs_high_A2():
    table = [M(RUN, "5H 6H 7H")]
    res = going_out(C("8H 9H 2C"), table)
    assert res == {"melds": [], "pairs": [], "layoffs": [(0, parse_card("8H"), HIGH), (0, parse_card("9H"), HIGH)], "left": [parse_card("2C")]}
    check_going_out(parse_cards("8H 9H 2C"), table, res)
    assert going_out(C("9H 2C"), table) is None  # 9H alone does not fit
    assert going_out(C("8H 9H 2C"), table, layoff=False) is None


def test_going_out_chained_layoffs_low_and_jokers_A2():
    table = [M(RUN, "5H 6H 7H")]
    res = going_out(C("4H 3H KC"), table)
    assert res["layoffs"] == [(0, parse_card("4H"), LOW), (0, parse_card("3H"), LOW)]
    # 3H with a joker for the 4H (joker laid off first, at the low end)
    res = going_out(C("JK 3H KC"), table)
    assert res is not None and res["left"] in ([parse_card("KC")], [JK])
    check_going_out(parse_cards("JK 3H KC"), table, res)
    # a set grows to four at most, a full set takes nothing
    assert going_out(C("9H JK 2C"), [M(SET, "9C 9D 9S")]) is None
    res = going_out(C("9H 2C"), [M(SET, "9C 9D 9S")])
    assert res["layoffs"] == [(0, parse_card("9H"), HIGH)]


def test_going_out_new_melds_pairs_and_left_card_T4():
    # the joker must go into the run, the 2C stays
    res = going_out(C("5H 6H 7H 2C JK"), [])
    assert res["left"] == [parse_card("2C")]
    check_going_out(parse_cards("5H 6H 7H 2C JK"), [], res)
    # prefers leaving the highest card: 8H (lay 5-6-7) rather than 5H (lay 6-7-8)
    assert going_out(C("5H 6H 7H 8H"), [])["left"] == [parse_card("8H")]
    assert going_out(C("5H 6H 7H 2C 3D"), []) is None
    res = going_out(C("5H 6H 7H 2C 2C 3D"), [], pairs=1)
    assert res["pairs"] == [(PAIR, (parse_card("2C"), parse_card("2C")))] and res["left"] == [parse_card("3D")]
    assert going_out(C("5H 6H 7H 2C 2C 3D"), []) is None  # pairs not wanted
    assert going_out(C("5H 6H 7H 3D"), [], min_value=19) is None
    assert going_out(C("5H 6H 7H 3D"), [], min_value=18) is not None
    assert going_out(C("5H 6H 7H 3D"), [], min_melds=2) is None
    assert going_out(C("5H 6H 7H"), [], keep=0)["melds"] == [(RUN, tuple(parse_cards("5H 6H 7H")))]


def test_going_out_with_table_and_melds_together_A2():
    table = [M(RUN, "5H 6H 7H"), M(SET, "KC KD JK")]
    hand = C("8H 9H KS 2D 3D 4D QC")
    res = going_out(hand, table)
    assert res is not None and res["left"] == [parse_card("QC")]
    check_going_out(parse_cards("8H 9H KS 2D 3D 4D QC"), table, res)


# Full 15-card hands: the answers are valid (speed: benchmarks/solver_bench.py) ---------------------


def test_random_full_hands_give_valid_answers():
    rng = random.Random(3)
    deck = full_deck()
    for _ in range(300):
        hand = rng.sample(deck, 15)
        value, melds = best_opening(counts_of(hand))
        assert check_partition(hand, melds, 1) == value
        got = best_pairs_opening(counts_of(hand), [(5, 0), (4, 1)])
        if got:
            check_partition(hand, got[2], 1, got[1])
        res = going_out(counts_of(hand), [M(RUN, "5H 6H 7H"), M(SET, "9C 9D JK")])
        if res:
            check_going_out(hand, [M(RUN, "5H 6H 7H"), M(SET, "9C 9D JK")], res)
