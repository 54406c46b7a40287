"""Meld search over count vectors (NOTES.md "Meld search"): openings (O1, O2), lay-offs (A2), going out.

A hand is a count vector of length 53 (``engine.cards``). The search always takes the lowest
remaining natural card and decides its fate: leave it in hand, put it in a pair, in a run where it
is the lowest natural card, or in a set where it is the natural card of the lowest suit. Results are
memoised on the remaining hand.

The remaining hand and the search's small state live in one int (engine/solver_state.py).

A meld in the output is ``(kind, cards)`` with kind "run", "set" or "pair" and the cards in position
order, exactly as ``engine.melds.make_meld`` accepts them.
"""

from __future__ import annotations

from itertools import combinations

from .cards import ACE, JOKER, RANK_VALUES, VALUES
from .melds import HIGH, LOW, PAIR, RUN, SET, Meld, accepted_cards, layable
from .solver_state import (
    _F4, _J1, _JS, _L1, _LANES, _LS, _M1, _MS, _NAT, _P1, _PS, _card_list, _check_counts, _dead, _drop_dead, _encode,
    _live_lanes,
)

__all__ = ["best_opening", "best_pairs_opening", "layable_cards", "going_out", "meldable"]

_NEG = -(1 << 60)  # "infeasible"; every feasible score is >= 0
_W_PAIRS = 1024  # score per card laid in the pairs search (cards first, then value)

_ONE = tuple(1 << (2 * c) for c in range(52))
# _RUNVAL[low][n]: value of a run of n cards whose lowest position has rank ``low`` (jokers included)
_RUNVAL = tuple(tuple(sum(RANK_VALUES[low : low + n]) for n in range(14)) for low in range(13))
# natural cards of the same rank and a higher suit (higher id): the partners of c in a set where
# c is the natural card of the lowest suit
_PARTNERS = tuple(tuple(s * 13 + c % 13 for s in range(c // 13 + 1, 4)) for c in range(52))


# Meld options ----------------------------------------------------------------------------------------


def _meld_options(c: int, S: int, J: int) -> list:
    """Every run with c as its lowest natural card and every set with c as its lowest-suit natural.

    Each option is (delta, value, n_cards, kind, cards): ``S - delta`` is the state after laying it.
    Positions where a natural card is available are tried both with the natural and with a joker.
    """
    out = []
    r = c % 13
    if J == 0:
        if r <= ACE - 2:
            c1 = c + 1
            if (S >> (2 * c1)) & 3 and (S >> (2 * c1 + 2)) & 3:
                d = _ONE[c] + _ONE[c1] + _ONE[c1 + 1]
                vals = _RUNVAL[r]
                out.append((d, vals[3], 3, RUN, (c, c1, c1 + 1)))
                n = 3
                nxt = c + 3
                while r + n <= ACE and (S >> (2 * nxt)) & 3:
                    d += _ONE[nxt]
                    n += 1
                    nxt += 1
                    out.append((d, vals[n], n, RUN, tuple(range(c, nxt))))
    else:
        b = c - r
        for k in range(min(J, r) + 1):
            low = r - k
            vals = _RUNVAL[low]
            front = [((JOKER,) * k + (c,), _ONE[c] + k * _J1, J - k)]
            n = k + 1
            if n >= 3:
                out.append((front[0][1], vals[n], n, RUN, front[0][0]))
            for rank in range(r + 1, ACE + 1):
                cid = b + rank
                have = (S >> (2 * cid)) & 3
                nxt = []
                for cards, d, jl in front:
                    if have:
                        nxt.append((cards + (cid,), d + _ONE[cid], jl))
                    if jl:
                        nxt.append((cards + (JOKER,), d + _J1, jl - 1))
                if not nxt:
                    break
                front = nxt
                n += 1
                if n >= 3:
                    v = vals[n]
                    for cards, d, _jl in front:
                        out.append((d, v, n, RUN, cards))
    parts = [p for p in _PARTNERS[c] if (S >> (2 * p)) & 3]
    if len(parts) + J >= 2:
        rv = RANK_VALUES[r]
        one = _ONE[c]
        for t in range(len(parts) + 1):
            for nj in range(max(0, 2 - t), min(J, 3 - t) + 1):
                size = 1 + t + nj
                for T in combinations(parts, t):
                    d = one + nj * _J1
                    for p in T:
                        d += _ONE[p]
                    out.append((d, rv * size, size, SET, (c,) + T + (JOKER,) * nj))
    return out


# Searches ----------------------------------------------------------------------------------------


# The searches' answers depend on nothing but the state, so they are kept across calls (a bot asks
# about hands that differ by a card or two): the memos below are cleared only between searches.
_MEMO_SIZE = 20_000  # states per memo: with the caches below, some 20 MB at most
_OPTS_SIZE = 10_000
_OPTS: dict = {}  # meld options of a card: (presence of its partners and higher run cards, J, c) -> list
# relative lane bits (from lane 2c) of the cards an option of c may use: higher ranks of its suit, partners
_OPT_MASK = tuple(
    sum(1 << (2 * k) for k in range(1, ACE - c % 13 + 1)) + sum(1 << (2 * (p - c)) for p in _PARTNERS[c])
    for c in range(52)
)


# the higher ranks of c's suit in an options key (``_options``)
_RUN_KEY = tuple(sum(1 << (2 * k + 10) for k in range(1, ACE - c % 13 + 1)) for c in range(52))


def _options(c: int, S: int, J: int) -> list:
    """``_meld_options(c, S, J)``, remembered: it reads only which of the cards in ``_OPT_MASK[c]`` S has."""
    x = S >> (2 * c)
    key = (((x | (x >> 1)) & _OPT_MASK[c]) << 10) | (J << 6) | c
    opts = _OPTS.get(key)
    if opts is None:
        if len(_OPTS) >= _OPTS_SIZE:
            _OPTS.clear()
        # A run from c reads its suit upwards only to the (J+1)-th rank missing there (each gap takes a
        # joker): the options are those of the key without the ranks beyond (``reach``), kept under both.
        run = _RUN_KEY[c]
        missing = run & ~key
        for _ in range(J):
            missing &= missing - 1
        last = missing & -missing
        reach = key & ~(run & -(last << 1)) if last else key
        opts = _OPTS.get(reach)
        if opts is None:
            opts = _OPTS[reach] = _meld_options(c, S, J)
        _OPTS[key] = opts
    return opts


def _fresh(memo: dict, choice: dict) -> None:
    """Called before a search: empties a memo that has grown too big."""
    if len(memo) >= _MEMO_SIZE:
        memo.clear()
        choice.clear()


_OPEN_MEMO: dict = {}
_OPEN_CHOICE: dict = {}


def _opening_search():
    """Max value of runs/sets; field L = cards that must still be left (at least). No pairs."""
    memo, choice = _OPEN_MEMO, _OPEN_CHOICE
    _fresh(memo, choice)

    get = memo.get

    def dfs(S):
        v = get(S)
        if v is not None:
            return v
        T = S
        while True:  # T: S less its lowest cards that no run or set could hold (leaving them is no choice)
            nat = T & _NAT
            if not nat:
                v = 0 if ((T >> _JS) & _F4) >= (T >> _LS) else _NEG
                break
            c = ((nat & -nat).bit_length() - 1) >> 1
            low = _ONE[c]  # one copy of c (the lowest set bit may be the count's high bit)
            child = T - low - _L1 if T >> _LS else T - low
            J = (T >> _JS) & _F4
            x = T >> (2 * c)
            key = (((x | (x >> 1)) & _OPT_MASK[c]) << 10) | (J << 6) | c  # as in ``_options``
            opts = _OPTS.get(key)
            if opts is None:
                opts = _options(c, T, J)
            if not opts:  # only c's leaving: no state, no choice kept (``_walk`` leaves c)
                T = child
                v = get(T)
                if v is not None:
                    break
                continue
            best = get(child)  # memo hits looked up here, saving a call
            if best is None:
                best = dfs(child)
            bc = (None, None, child)
            for d, val, _n, kind, cards in opts:
                child = T - d
                v = get(child)
                if v is None:
                    v = dfs(child)
                if v >= 0 and v + val > best:
                    best = v + val
                    bc = (kind, cards, child)
            memo[T] = v = best
            choice[T] = bc
            break
        memo[S] = v
        return v

    return dfs, choice


_GENERAL: dict = {}  # (weight, melds_exact, left_exact) -> (memo, choice)


def _general_search(weight: int, melds_exact: bool, left_exact: bool):
    """Max score of pairs and runs/sets under the counters P, M, L of the state.

    P: pairs still to form (exactly). M: runs/sets still to form, exactly (``melds_exact``) or at
    least. L: cards still to leave in hand, exactly (``left_exact``) or at least. A score is the
    run/set value plus ``weight`` per card laid. Remaining jokers at the end stay in hand.
    """
    memo, choice = _GENERAL.setdefault((weight, melds_exact, left_exact), ({}, {}))
    _fresh(memo, choice)
    w2 = 2 * weight

    def dfs(S):
        v = memo.get(S)
        if v is not None:
            return v
        nat = S & _NAT
        if not nat:
            J = (S >> _JS) & _F4
            L = S >> _LS
            ok = not ((S >> _PS) & _F4) and not ((S >> _MS) & _F4) and (J == L if left_exact else J >= L)
            v = 0 if ok else _NEG
            memo[S] = v
            return v
        c = ((nat & -nat).bit_length() - 1) >> 1
        low = _ONE[c]
        best = _NEG
        bc = None
        L = S >> _LS
        if L:
            child = S - low - _L1
            best = dfs(child)
            bc = (None, None, child)
        elif not left_exact:
            child = S - low
            best = dfs(child)
            bc = (None, None, child)
        J = (S >> _JS) & _F4
        if (S >> _PS) & _F4:
            if (S >> (2 * c)) & 3 >= 2:
                child = S - 2 * low - _P1
                v = dfs(child)
                if v >= 0 and v + w2 > best:
                    best = v + w2
                    bc = (PAIR, (c, c), child)
            if J:
                child = S - low - _J1 - _P1
                v = dfs(child)
                if v >= 0 and v + w2 > best:
                    best = v + w2
                    bc = (PAIR, (c, JOKER), child)
        M = (S >> _MS) & _F4
        if M or not melds_exact:
            dm = _M1 if M else 0
            for d, val, n, kind, cards in _options(c, S, J):
                child = S - d - dm
                v = dfs(child)
                if v >= 0:
                    v += val + weight * n
                    if v > best:
                        best = v
                        bc = (kind, cards, child)
        memo[S] = best
        choice[S] = bc
        return best

    return dfs, choice


def _walk(S: int, choice: dict) -> tuple[list, list, list]:
    """Follow the best choices from state S: (runs/sets, pairs, cards left in hand)."""
    melds, pairs, left = [], [], []
    while S & _NAT:
        step = choice.get(S)
        if step is None:  # the opening search keeps no choice where its lowest card can only be left
            nat = S & _NAT
            low = _ONE[((nat & -nat).bit_length() - 1) >> 1]
            step = (None, None, S - low - _L1 if S >> _LS else S - low)
        kind, cards, child = step
        if kind is None:
            nat = S & _NAT
            left.append(((nat & -nat).bit_length() - 1) >> 1)
        elif kind == PAIR:
            pairs.append((PAIR, cards))
        else:
            melds.append((kind, cards))
        S = child
    left.extend([JOKER] * ((S >> _JS) & _F4))
    return melds, pairs, left


# 1. Opening with melds (O1, T4) ------------------------------------------------------------------


def best_opening(counts, keep: int = 1) -> tuple[int, list]:
    """Maximum total value of disjoint runs and sets in the hand, leaving at least ``keep`` cards.

    Returns (value, melds); (0, []) when nothing can be formed.
    """
    key = _hand_key(counts, keep)
    found = _OPENINGS.get(key)
    if found is None:
        S = _encode(counts)
        S, dead = _drop_dead(S, pairs=False)
        need = max(0, keep - dead)
        S += need * _L1
        found = _OPENINGS.get(S)
        if found is None:
            found = _best_opening(S)
        if len(_OPENINGS) >= _CACHE_SIZE:
            _OPENINGS.clear()
        _OPENINGS[S] = found
        if key is not None:
            _OPENINGS[key] = found
    return found[0], list(found[1])


# answers by search state and by (hand, keep): bots ask about the same hand several times a turn
_OPENINGS: dict = {}
_CACHE_SIZE = 20000


def _hand_key(counts, keep: int):
    """A small key for a list of counts (a byte per count), or None (then the state is the key)."""
    if type(counts) is list:
        try:
            return bytes(counts), keep
        except (ValueError, TypeError):
            pass
    return None


def clear_caches() -> None:
    """Forget every remembered answer and part answer (for timing the searches themselves)."""
    _OPENINGS.clear()
    _OPTS.clear()
    _OPEN_MEMO.clear()
    _OPEN_CHOICE.clear()
    _GENERAL.clear()


def _best_opening(S: int) -> tuple:
    dfs, choice = _opening_search()
    value = dfs(S)
    if value <= 0:
        return 0, ()
    melds, _pairs, _left = _walk(S, choice)
    return value, tuple(melds)


# 2. Opening with pairs (O2, T4) ----------------------------------------------------------------------


def best_pairs_opening(counts, combos, keep: int = 1):
    """A pairs opening the hand can lay down exactly: (combo, pairs, melds), or None.

    ``combos`` holds (pairs, melds) combinations. Among the achievable ones the one laying down the
    most cards wins, then the one whose runs/sets are worth most; then the first in ``combos``.
    """
    S0 = _encode(counts)
    dfs, choice = _general_search(_W_PAIRS, melds_exact=True, left_exact=False)
    best = None
    for combo in combos:
        p, m = combo
        if p < 0 or m < 0:
            raise ValueError(f"bad pairs combination {combo!r}")
        if p > _F4 or m > _F4:
            continue
        S, dead = _drop_dead(S0, pairs=p > 0, melds=m > 0)
        S += p * _P1 + m * _M1 + max(0, keep - dead) * _L1
        score = dfs(S)
        if score >= 0 and (best is None or score > best[0]):
            best = (score, tuple(combo), S)
    if best is None:
        return None
    _score, combo, S = best
    melds, pairs, _left = _walk(S, choice)
    return combo, pairs, melds


def meldable(counts, c: int) -> bool:
    """Could natural card ``c`` of the hand be in some run or set made from the hand's cards (M1, M2, M4)?

    False means no answer of ``best_opening`` on this hand holds ``c``.
    """
    _check_counts(counts)
    if not counts[c]:
        return False
    jokers = counts[JOKER]
    if jokers >= 2:
        return True  # c + JK + JK is a set
    r = c % 13
    up1 = r <= ACE - 1 and counts[c + 1] > 0
    up2 = r <= ACE - 2 and counts[c + 2] > 0
    down1 = r >= 1 and counts[c - 1] > 0
    down2 = r >= 2 and counts[c - 2] > 0
    same_rank = sum(1 for p in _SAME_RANK[c] if counts[p] > 0)
    if jokers:
        return up1 or up2 or down1 or down2 or same_rank > 0
    return (up1 and up2) or (down1 and up1) or (down2 and down1) or same_rank >= 2


_SAME_RANK = tuple(tuple(s * 13 + c % 13 for s in range(4) if s != c // 13) for c in range(52))


# 3. Cards that can be laid off (A2, A5) --------------------------------------------------------------


def layable_cards(counts, table) -> list[int]:
    """The card ids in hand that some meld of ``table`` accepts as it stands (no chaining)."""
    _check_counts(counts)
    return layable(table, counts)


# 4. Going out (A2, T4) -------------------------------------------------------------------------------


def _extensions(S: int, J: int, cards_at) -> list:
    """Outward sequences of run positions: (cards, delta, jokers used), the empty one first."""
    out = [((), 0, 0)]
    front = out[:]
    for cid in cards_at:
        if not front:
            break
        have = (S >> (2 * cid)) & 3
        nxt = []
        for cards, d, ju in front:
            if have:
                nxt.append((cards + (cid,), d + _ONE[cid], ju))
            if ju < J:
                nxt.append((cards + (JOKER,), d + _J1, ju + 1))
        out.extend(nxt)
        front = nxt
    return out


def _layoff_options(i: int, meld: Meld, S: int) -> list:
    """Ways to extend table meld ``i`` with cards of S: (delta, [(i, card, end), ...]); none first."""
    J = (S >> _JS) & _F4
    if meld.kind == RUN:
        low = meld.base % 13
        high = low + len(meld.cards) - 1
        b = meld.base - low
        lows = _extensions(S, J, [b + r for r in range(low - 1, -1, -1)])
        highs = _extensions(S, J, [b + r for r in range(high + 1, ACE + 1)])
        opts = []
        for lc, ld, lj in lows:
            for hc, hd, hj in highs:
                if lj + hj <= J:
                    opts.append((ld + hd, [(i, x, LOW) for x in lc] + [(i, x, HIGH) for x in hc]))
        return opts
    if meld.kind == SET and len(meld.cards) < 4:
        room = 4 - len(meld.cards)
        suits = meld.natural_suits()
        avail = [s * 13 + meld.base for s in range(4) if s not in suits and (S >> (2 * (s * 13 + meld.base))) & 3]
        opts = []
        for t in range(min(room, len(avail)) + 1):
            for T in combinations(avail, t):
                d = sum(_ONE[x] for x in T)
                for nj in range(min(J, room - t) + 1):
                    opts.append((d + nj * _J1, [(i, x, HIGH) for x in T] + [(i, JOKER, HIGH)] * nj))
        return opts
    return [(0, [])]


def _layoff_states(S: int, table) -> dict:
    """Every distinct hand left after laying off onto ``table``: {state: lay-off plan}."""
    # the options of each meld with the whole hand; below, an option applies to a smaller hand when
    # the natural cards it uses are still there (each at most once per option) and jokers suffice
    per_meld = []
    for i, meld in enumerate(table):
        opts = _layoff_options(i, meld, S)
        if len(opts) > 1:
            per_meld.append([(d, d & _NAT, d >> _JS, p) for d, p in opts])  # one copy per card: lane bits
    states = {}
    seen = set()
    n = len(per_meld)

    def rec(k, S, plan):
        if k == n:
            if S not in states:
                states[S] = plan
            return
        if (k, S) in seen:
            return
        seen.add((k, S))
        nat = S & _NAT
        present = (nat | (nat >> 1)) & _LANES
        j = (S >> _JS) & _F4
        for d, uses, nj, p in per_meld[k]:
            if uses & present == uses and nj <= j:
                rec(k + 1, S - d, plan + p)

    rec(0, S, [])
    return states


def _table_reach(table) -> tuple:
    """What ``_maybe_layable`` reads of ``table``: per suit, the (lowest id, highest id) of each run,
    and the natural cards that some set accepts as it stands."""
    runs = ([], [], [], [])
    set_fits = set()
    for m in table:
        if m.kind == RUN:
            runs[m.base // 13].append((m.base, m.base + len(m.cards) - 1))
        elif m.kind == SET and len(m.cards) < 4:
            set_fits.update(accepted_cards(m))
    return runs, set_fits


def _maybe_layable(c: int, reach: tuple, S: int, present: int) -> bool:
    """Could natural c of hand S be laid off onto the table (``reach = _table_reach(table)``), possibly
    after other cards of S (A2)? ``present`` is the lane mask of the natural cards of S.

    A loose test (the jokers of S may fill every gap), never false when a lay-off plan exists.
    """
    runs, set_fits = reach
    if c in set_fits:
        return True
    j = (S >> _JS) & _F4
    for low, high in runs[c // 13]:
        if c > high:
            a, b = high + 1, c
        elif c < low:
            a, b = c + 1, low
        else:
            continue
        span = _LANES & ((1 << (2 * b)) - (1 << (2 * a)))  # lanes of the ids a .. b-1 between
        if (b - a) - (present & span).bit_count() <= j:
            return True
    return False


def going_out(counts, table, *, min_value=0, pairs=0, min_melds=0, layoff=True, keep=1):
    """Can the hand be laid down this turn, all but exactly ``keep`` cards? (A1, A2, O1, T4)

    The hand is split into exactly ``pairs`` new pairs, new runs/sets (at least ``min_melds`` of
    them, worth together at least ``min_value``), lay-offs onto the melds of ``table`` (when
    ``layoff``; chained lay-offs included, table jokers are never taken) and exactly ``keep`` cards
    left. Returns None or {"melds", "pairs", "layoffs": [(table_index, card, end)], "left"}; the
    lay-offs apply one by one with ``engine.melds.lay_off``. Among several plans the one leaving the
    highest-valued card(s) wins.
    """
    S0 = _encode(counts)
    total = sum(counts)
    if keep < 0 or pairs < 0 or min_melds < 0:
        raise ValueError("keep, pairs and min_melds must be >= 0")
    rest = total - keep
    if rest < 0 or 2 * pairs + 3 * min_melds > rest or pairs > _F4:
        return None
    if pairs == 0 and min_melds == 0 and min_value <= 0 and rest == 0:
        return {"melds": [], "pairs": [], "layoffs": [], "left": _card_list(S0)}
    min_melds = min(min_melds, _F4)
    use_table = layoff and len(table) > 0

    # quick refusal: natural cards that can go nowhere must all stay in hand
    nat = S0 & _NAT
    present = (nat | (nat >> 1)) & _LANES
    unlive = present & ~_live_lanes(S0, pairs > 0)
    dead = []
    reach = None
    while unlive:
        bit = unlive & -unlive
        unlive -= bit
        c = (bit.bit_length() - 1) >> 1
        if use_table:
            if reach is None:
                reach = _table_reach(table)
            if _maybe_layable(c, reach, S0, present):
                continue
        dead.extend([c] * ((S0 >> (2 * c)) & 3))
        if len(dead) > keep:
            return None

    states = _layoff_states(S0, table) if use_table else {S0: []}
    dfs, choice = _general_search(0, melds_exact=False, left_exact=True)
    fields = pairs * _P1 + min_melds * _M1
    feasible = []
    for S, plan in states.items():
        if keep < _dead(S, pairs > 0)[1]:
            continue  # cards that no new meld or pair can hold stay in hand: too many of them
        if _ok(dfs(S + fields + keep * _L1), min_value):
            feasible.append((S, plan))
    if not feasible:
        return None

    dead_t = tuple(sorted(dead))
    cands = set()
    for S, _plan in feasible:
        cards = _card_list(S)
        for cand in combinations(cards, keep):
            cands.add(tuple(sorted(cand)))
    if dead_t:
        cands = {cand for cand in cands if _contains(cand, dead_t)}
    order = sorted(cands, key=lambda cand: (sum(VALUES[x] for x in cand), tuple(sorted(cand, reverse=True))), reverse=True)
    for cand in order:
        delta = 0
        for x in cand:
            delta += _J1 if x == JOKER else _ONE[x]
        for S, plan in feasible:
            if not _has(S, cand):
                continue
            T = S - delta + fields
            if _ok(dfs(T), min_value):
                melds, prs, left = _walk(T, choice)
                assert not left
                return {"melds": melds, "pairs": prs, "layoffs": list(plan), "left": list(cand)}
    raise AssertionError("going_out: a feasible plan without a left card")  # pragma: no cover


def _ok(v: int, min_value) -> bool:
    return v >= 0 and v >= min_value


def _contains(big: tuple, small: tuple) -> bool:
    rest = list(big)
    for x in small:
        if x not in rest:
            return False
        rest.remove(x)
    return True


def _has(S: int, cand: tuple) -> bool:
    need = {}
    for x in cand:
        need[x] = need.get(x, 0) + 1
    for x, n in need.items():
        have = (S >> _JS) & _F4 if x == JOKER else (S >> (2 * x)) & 3
        if have < n:
            return False
    return True
