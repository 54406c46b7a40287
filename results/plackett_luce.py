"""The rating model: Plackett–Luce over finishing orders, with seat effects and two ways to read ties.

A match of ``n`` seats is a finishing order, told by each seat's competition rank (1 = best; tied
seats share a rank). Seat ``i`` of a table of ``n`` played by bot ``b`` has the utility
``u = theta[b] + gamma[n][i]`` (``gamma[n][0] = 0``: each table size has its own seat effects,
relative to its seat 0). A full order is drawn by Plackett–Luce: among the seats not yet placed,
the next place goes to seat ``i`` with probability ``exp(u_i) / sum of exp(u)`` over them.

Ties (``ties=``):

- ``"exact"`` (the default): a shared rank means the tied seats finished in some order that is not
  known. A match's likelihood is the sum of the Plackett–Luce probabilities of every full order
  consistent with its ranks (at most 4! = 24 orders for 4 seats). Ties add no parameter, and
  ``theta`` keeps the Bradley–Terry meaning: bot ``a`` finishes ahead of bot ``b`` with probability
  ``1 / (1 + exp(theta[b] - theta[a]))`` (at equal seats), in a table of any size.
- ``"davidson"``: Davidson–Luce. The next rank goes to a group ``T`` (one seat, or several tied
  seats) with probability ``delta[|T|] * exp(mean of u over T)`` over the same summed over every
  non-empty subset of the seats left, ``delta[1] = 1``, one ``delta`` per tie size seen in the data
  (a size never seen has ``delta = 0``). When most matches end in a large tie (Einundfünfzig: all
  but the loser share rank 1) the mean over the group shrinks the strength differences, so this
  model's ``theta`` is not on the Bradley–Terry scale there.

Without ties both are Plackett–Luce; for two seats without ties both are Bradley–Terry.

The fit is a damped Newton method on the exact gradient and Hessian. Rows with the same seating
and ranks are merged first (``aggregate``). Within one seating the utilities are the same in every
row, so the model's quantities are computed once per seating (and per order, or per set of seats
left) in the seating's own coordinates, summed per seating, and only then scattered onto the
parameters: the cost of an iteration does not grow with the number of matches. For the exact
model each distinct row is expanded once into its consistent orders; the gradient is the
posterior-weighted Plackett–Luce gradient over those orders, and the Hessian adds the posterior
covariance of the order gradients (the observed information of a mixture).

Penalties keep the problem well posed. The bots' strengths have mean 0 (the likelihood does not
see their common level). Each bot plays ``PRIOR`` virtual drawn game (one by default) against a
bot of the field's mean strength, scored half a win and half a loss under Bradley–Terry: a bot
that lost or won every game gets a large but finite rating instead of an infinite one, and on
ordinary data the effect is a tiny fraction of a standard error (a bot's information grows with
its games, the prior's does not). A very weak ridge (``RIDGE``) on every parameter keeps seat and
tie parameters finite too.

Parameters, in this order: ``theta`` (one per bot), the seat effects (for each table size in
increasing order, seats 1..n-1), then for ``"davidson"`` ``log delta[k]`` for each tie size ``k``
seen. Units are natural (log-strength); multiply by ``ELO`` for the Elo scale. ``Fit.cov`` is the
inverse of the penalised objective's Hessian (the observed information). The mean penalty only
acts along "every strength + c", to which the likelihood is blind, so for any contrast (a
difference of two bots, a rating minus the mean or minus an anchor) it gives the constrained
maximum-likelihood covariance.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

ELO = 400.0 / np.log(10.0)
RIDGE = 1e-4
PRIOR = 1.0  # virtual drawn games per bot
TIES = ("exact", "davidson")


@dataclass
class Fit:
    theta: np.ndarray  # per bot, mean 0
    seats: dict  # table size -> seat effects (seat 0 = 0)
    log_delta: dict  # tie size -> log delta (Davidson-Luce only: sizes seen in the data)
    cov: np.ndarray  # covariance of the parameter vector (theta, seat effects, log_delta values)
    loglik: float
    iterations: int
    rows: int  # distinct (seating, ranks) rows fitted
    ties: str = "exact"
    seat_index: dict = field(default_factory=dict)  # (table size, seat >= 1) -> position in the vector
    tie_index: dict = field(default_factory=dict)  # tie size -> its position in the parameter vector
    x: np.ndarray = field(repr=False, default=None)  # the parameter vector
    problem: object = field(repr=False, default=None)  # the designs fitted (for cluster_cov)
    row_of: list = field(repr=False, default=None)  # per table size: each given match's distinct row

    @property
    def n_bots(self) -> int:
        return len(self.theta)

    @property
    def seat(self) -> np.ndarray:
        """The seat effects when every match had the same table size (else see ``seats``)."""
        if len(self.seats) != 1:
            raise ValueError("several table sizes: use Fit.seats")
        return next(iter(self.seats.values()))

    def theta_cov(self) -> np.ndarray:
        b = self.n_bots
        return self.cov[:b, :b]

    def seat_se(self, players: int | None = None) -> np.ndarray:
        """Standard errors of the seat effects of one table size (default: the only one)."""
        if players is None:
            players = len(self.seat)
        var = np.diag(self.cov)
        return np.array([0.0] + [np.sqrt(var[self.seat_index[(players, i)]]) for i in range(1, players)])


# Aggregation -------------------------------------------------------------------------------------


def _digits(columns: list, bases: list):
    """Rows of small non-negative integers as one int64 key each, and the way back; None when
    the keys would not fit in 62 bits."""
    if float(np.prod([float(b) for b in bases])) >= 2.0 ** 62:
        return None
    key = np.zeros(len(columns[0]), dtype=np.int64)
    for column, base in zip(columns, bases):
        key = key * base + column
    return key


def _undigits(key: np.ndarray, bases: list) -> list:
    out = []
    for base in reversed(bases):
        out.append(key % base)
        key = key // base
    return out[::-1]


def aggregate(bots, ranks, weights=None, inverse: bool = False):
    """Merge identical (seating, ranks) rows: (bots, ranks, counts) of the distinct rows, and with
    ``inverse`` the index of each given row among them."""
    bots, ranks = np.asarray(bots, dtype=np.int64), np.asarray(ranks, dtype=np.int64)
    m, n = bots.shape
    if m == 0:
        return (bots, ranks, np.zeros(0)) + ((np.zeros(0, dtype=np.int64),) if inverse else ())
    bases = [int(bots.max()) + 1] * n + [int(ranks.max()) + 1] * n
    key = _digits([bots[:, i] for i in range(n)] + [ranks[:, i] for i in range(n)], bases)
    where = None
    if key is None:  # too many bots for one integer key
        rows, where = np.unique(np.hstack([bots, ranks]), axis=0, return_inverse=True)
        bots, ranks = rows[:, :n], rows[:, n:]
    elif weights is None and not inverse:
        unique, counts = np.unique(key, return_counts=True)
    else:
        unique, where = np.unique(key, return_inverse=True)
    if key is not None:
        columns = _undigits(unique, bases)
        bots, ranks = np.stack(columns[:n], axis=1), np.stack(columns[n:], axis=1)
    if where is not None:
        where = where.ravel()
        counts = np.bincount(where, weights=weights, minlength=len(bots))
    out = (bots, ranks, counts.astype(float))
    return out + (where,) if inverse else out


def _seatings(bots, n_bots: int):
    """The distinct seatings (rows of bots) and each row's index among them."""
    n = bots.shape[1]
    key = _digits([bots[:, i] for i in range(n)], [n_bots] * n)
    if key is None:
        seatings, seating_of = np.unique(bots, axis=0, return_inverse=True)
    else:
        key, seating_of = np.unique(key, return_inverse=True)
        seatings = np.stack(_undigits(key, [n_bots] * n), axis=1)
    return seatings, seating_of.ravel()


def _scatter(design, width: int, seat_index: dict, extra=()) -> None:
    """Index arrays taking each seating's local gradient and Hessian (``width`` local coordinates,
    the first ``n`` the seats' utilities) onto the parameters. ``extra``: (local, parameter) pairs."""
    n, count = design.n, len(design.seatings)
    parts = [(i, design.seatings[:, i]) for i in range(n)]  # u_i -> theta of the bot at seat i
    parts += [(i, np.full(count, seat_index[(n, i)])) for i in range(1, n)]  # u_i -> gamma[n][i]
    parts += [(local, np.full(count, index)) for local, index in extra]
    k = len(parts)
    local = np.array([p[0] for p in parts])
    target = np.stack([p[1] for p in parts], axis=1)  # (seatings, k)
    design.g_which = np.repeat(np.arange(count), k)
    design.g_local, design.g_target = np.tile(local, count), target.ravel()
    design.h_src = (np.arange(count)[:, None, None] * width * width + local[:, None] * width + local[None, :]).ravel()
    design.h_dst = (np.repeat(target, k, axis=1).ravel(), np.tile(target, (1, k)).ravel())
    design.seat_index = seat_index


# The exact model: the design of one table size ---------------------------------------------------


class _ExactDesign:
    """One table size for the exact tie model.

    Each distinct (seating, ranks) row is expanded once into the full orders consistent with its
    ranks (``entries``: row, order). An evaluation computes every order's Plackett–Luce
    log-probability, gradient and Hessian once per seating (in its seats' utilities), then each
    row's likelihood (the sum over its orders) and the posterior weight of each of its orders."""

    def __init__(self, bots, ranks, counts, n_bots: int, seat_index: dict):
        n = bots.shape[1]
        self.n = n
        self.orders = np.array(list(itertools.permutations(range(n))), dtype=np.int64)  # (P, n): seat at place k
        self.place = np.argsort(self.orders, axis=1)  # (P, n): place of seat i
        self.seatings, seating_of = _seatings(bots, n_bots)
        patterns, pattern_of = np.unique(ranks, axis=0, return_inverse=True)
        pattern_of = pattern_of.ravel()
        along = patterns[:, self.orders]  # (patterns, P, n): the ranks met along each order
        consistent = (np.diff(along, axis=2) >= 0).all(axis=2)  # (patterns, P)
        key = seating_of * len(patterns) + pattern_of
        cells, where = np.unique(key, return_inverse=True)
        self.cell_of = where.ravel()  # each given row's cell
        self.weight = np.bincount(self.cell_of, weights=counts, minlength=len(cells))
        self.rows = len(cells)
        seating, pattern = cells // len(patterns), cells % len(patterns)
        row, order = np.nonzero(consistent[pattern])  # sorted by row
        self.entry_row = row
        self.entry_cell = seating[row] * len(self.orders) + order  # (seating, order) flat index
        self.starts = np.flatnonzero(np.r_[True, row[1:] != row[:-1]])
        self.row_seating = seating
        self.later = np.triu(np.ones((n, n), dtype=bool))  # [k, j]: place j is still free at stage k
        _scatter(self, n, seat_index)

    def _orders(self, u, hessian: bool):
        """Per seating and order: log-probability (S, P), gradient (S, P, n) and minus the Hessian
        (S, P, n, n) in the seats' utilities."""
        n, count, p = self.n, len(u), len(self.orders)
        up = u[:, self.orders]  # (S, P, n): utilities in placing order
        top = up.max(axis=2, keepdims=True)
        tail = np.cumsum(np.exp(up - top)[:, :, ::-1], axis=2)[:, :, ::-1]
        lse = np.log(tail) + top  # lse[k]: log-sum over the places k..n-1
        logp = (up - lse).sum(axis=2)
        chance = np.exp(up[:, :, None, :] - lse[:, :, :, None]) * self.later  # (S, P, stage, place)
        reach = chance.sum(axis=2)
        rows = np.arange(p)[:, None]
        grad = (1.0 - reach)[:, rows, self.place]  # back to seat order
        hess = None
        if hessian:
            h = -np.einsum("spkj,spkl->spjl", chance, chance)  # minus the Hessian: the information
            h[..., np.arange(n), np.arange(n)] += reach
            hess = h[:, rows[:, :, None], self.place[:, :, None], self.place[:, None, :]]
        return logp.reshape(count * p), grad.reshape(count * p, n), hess

    def evaluate(self, theta, gamma, hessian: bool):
        """(log-likelihood, local gradient per seating, minus the local Hessian per seating or None)."""
        u = theta[self.seatings] + gamma
        count, n, p = len(u), self.n, len(self.orders)
        logp, grad, hess = self._orders(u, hessian)
        lp = logp[self.entry_cell]
        top = np.maximum.reduceat(lp, self.starts)
        row_ll = np.log(np.add.reduceat(np.exp(lp - top[self.entry_row]), self.starts)) + top
        q = np.exp(lp - row_ll[self.entry_row])  # each order's posterior weight within its row
        loglik = float(self.weight @ row_ll)
        wq = self.weight[self.entry_row] * q
        mass = np.bincount(self.entry_cell, weights=wq, minlength=count * p)  # (S*P)
        g_local = (mass[:, None] * grad).reshape(count, p, n).sum(axis=1)
        h_local = None
        if hessian:
            # minus the Hessian of a row's log-likelihood: E_q[information - g g'] + E_q[g] E_q[g]'
            second = hess.reshape(count * p, n, n) - grad[:, :, None] * grad[:, None, :]
            h_local = (mass[:, None, None] * second).reshape(count, p, n * n).sum(axis=1)
            mean = np.add.reduceat(q[:, None] * grad[self.entry_cell], self.starts, axis=0)  # (rows, n)
            outer = (self.weight[:, None, None] * mean[:, :, None] * mean[:, None, :]).reshape(-1, n * n)
            for j in range(n * n):
                h_local[:, j] += np.bincount(self.row_seating, weights=outer[:, j], minlength=count)
        return loglik, g_local, h_local

    def row_scores(self, theta, gamma, by_size, dim: int) -> np.ndarray:
        """The gradient of each given row's log-likelihood (one match), (rows, dim)."""
        u = theta[self.seatings] + gamma
        logp, grad, _ = self._orders(u, False)
        lp = logp[self.entry_cell]
        top = np.maximum.reduceat(lp, self.starts)
        row_ll = np.log(np.add.reduceat(np.exp(lp - top[self.entry_row]), self.starts)) + top
        q = np.exp(lp - row_ll[self.entry_row])
        local = np.add.reduceat(q[:, None] * grad[self.entry_cell], self.starts, axis=0)  # (cells, n)
        cell = _to_parameters(local, self.seatings[self.row_seating], self.n, self.seat_index, {}, dim)
        return cell[self.cell_of]


def _to_parameters(local, seated, n: int, seat_index: dict, tie_index: dict, dim: int) -> np.ndarray:
    """Local gradients (rows, n seats' utilities [+ log delta of sizes 2..n]) on the parameter vector."""
    count = len(local)
    flat = np.zeros(count * dim)
    base = np.arange(count) * dim
    for i in range(n):
        flat += np.bincount(base + seated[:, i], weights=local[:, i], minlength=count * dim)
    out = flat.reshape(count, dim)
    for i in range(1, n):
        out[:, seat_index[(n, i)]] += local[:, i]
    for size, index in tie_index.items():
        if 2 <= size <= n:
            out[:, index] += local[:, n + size - 2]
    return out


# Davidson-Luce: the design of one table size----------------------------------------------------------------


def _popcount(masks: np.ndarray) -> np.ndarray:
    return np.array([bin(int(v)).count("1") for v in range(int(masks.max()) + 1)])[masks]


class _Subsets:
    """Every non-empty subset of ``n`` seats (index = bit mask - 1) and its local features."""

    def __init__(self, n: int):
        self.n = n
        masks = np.arange(1, 2 ** n)
        self.size = _popcount(masks)
        member = (masks[:, None] >> np.arange(n)) & 1
        self.weight = member / self.size[:, None]  # mean over the subset
        ties = np.zeros((len(masks), n - 1))
        big = self.size >= 2
        ties[big, self.size[big] - 2] = 1.0
        self.features = np.hstack([self.weight, ties])  # (K, L): u_0..u_{n-1}, log delta_2..n
        lf = self.features.shape[1]
        self.outer = (self.features[:, :, None] * self.features[:, None, :]).reshape(len(masks), lf * lf)
        every = np.arange(2 ** n)
        self.inside = (masks[None, :] & ~every[:, None]) == 0  # [S, T]: T is a subset of S


def _stages(ranks: np.ndarray):
    """For each stage of the orders: (rows, remaining set S, chosen group T) where |S| >= 2."""
    m, n = ranks.shape
    remaining = np.full(m, 2 ** n - 1)
    bits = 1 << np.arange(n)
    out = []
    for _ in range(n):
        inside = (remaining[:, None] & bits) > 0
        if not inside.any():
            break
        low = np.where(inside, ranks, np.iinfo(np.int64).max).min(axis=1)
        chosen = ((ranks == low[:, None]) & inside) @ bits
        live = _popcount(remaining) >= 2
        rows = np.flatnonzero(live)
        out.append((rows, remaining[rows], chosen[rows]))
        remaining = remaining & ~chosen
    return out


class _DavidsonDesign:
    """One table size, reduced to what the likelihood depends on.

    Within one seating every seat's utility is the same in every row, so a stage's choice
    probabilities depend only on the seating and the set S of seats not yet placed. The data enter
    as the weight of each (seating, S) and, per seating, the summed local features of the groups
    chosen. Local coordinates of a seating: its seats' utilities, then log delta for sizes 2..n."""

    def __init__(self, bots, ranks, counts, n_bots: int, seat_index: dict, tie_index: dict):
        self.rows, n = bots.shape
        self.n, self.sub = n, _Subsets(n)
        self.seatings, seating_of = _seatings(bots, n_bots)
        count = len(self.seatings)
        sets = np.flatnonzero(_popcount(np.arange(2 ** n)) >= 2)  # the sets S a stage can start from
        slot = np.zeros(2 ** n, dtype=np.int64)
        slot[sets] = np.arange(len(sets))
        size_ok = np.array([s == 1 or s in tie_index for s in self.sub.size])
        self.allowed = (self.sub.inside[sets] & size_ok).astype(float)  # (Q, K)
        self.weight = np.zeros((count, len(sets)))
        self.observed = np.zeros((count, 2 * n - 1))
        self.bots, self.ranks, self.size_ok = bots, ranks, size_ok
        self.seat_index, self.tie_index = seat_index, tie_index
        for rows, remaining, chosen in _stages(ranks):
            seat, w = seating_of[rows], counts[rows]
            self.weight += np.bincount(seat * len(sets) + slot[remaining], weights=w,
                                       minlength=count * len(sets)).reshape(count, len(sets))
            picked = self.sub.features[chosen - 1] * w[:, None]
            for j in range(2 * n - 1):
                self.observed[:, j] += np.bincount(seat, weights=picked[:, j], minlength=count)
        extra = [(n + size - 2, index) for size, index in tie_index.items() if size <= n]
        _scatter(self, 2 * n - 1, seat_index, extra)

    def row_scores(self, theta, gamma, by_size, dim: int) -> np.ndarray:
        """The gradient of each given row's log-likelihood (one match), (rows, dim)."""
        sub, n = self.sub, self.n
        u = theta[self.bots] + gamma
        local = np.zeros((len(u), 2 * n - 1))
        for rows, remaining, chosen in _stages(self.ranks):
            v = u[rows] @ sub.weight.T + by_size[sub.size]
            v = np.where(sub.inside[remaining] & self.size_ok, v, -np.inf)
            e = np.exp(v - v.max(axis=1, keepdims=True))
            local[rows] += sub.features[chosen - 1] - (e / e.sum(axis=1, keepdims=True)) @ sub.features
        return _to_parameters(local, self.bots, n, self.seat_index, self.tie_index, dim)

    def evaluate(self, theta, gamma, log_delta_by_size, hessian: bool):
        """(log-likelihood, local gradient per seating, local Hessian per seating or None)."""
        sub, n = self.sub, self.n
        u = theta[self.seatings] + gamma
        ties = log_delta_by_size[2:n + 1]
        local = np.hstack([u, np.broadcast_to(np.where(np.isfinite(ties), ties, 0.0), (len(u), n - 1))])
        v = u @ sub.weight.T + log_delta_by_size[sub.size]  # (seatings, K): every subset's value
        top = v.max(axis=1, keepdims=True)
        e = np.exp(v - top)
        z = np.maximum(e @ self.allowed.T, 1e-300)  # (seatings, Q)
        loglik = float((self.observed * local).sum() - (self.weight * (np.log(z) + top)).sum())
        p = e[:, None, :] * self.allowed[None] / z[:, :, None]  # (seatings, Q, K)
        mean = p @ sub.features  # (seatings, Q, L)
        wmean = self.weight[:, :, None] * mean
        grad = self.observed - wmean.sum(axis=1)
        hess = None
        if hessian:
            second = np.einsum("sq,sqk->sk", self.weight, p) @ sub.outer
            hess = second - (wmean.transpose(0, 2, 1) @ mean).reshape(len(u), -1)
        return loglik, grad, hess


# Fitting -----------------------------------------------------------------------------------------


def _tables(bots, ranks, weights):
    if isinstance(bots, np.ndarray) and bots.ndim == 2:
        bots, ranks, weights = [bots], [ranks], [weights]
    if weights is None:
        weights = [None] * len(bots)
    return [(np.asarray(b, dtype=np.int64), np.asarray(r, dtype=np.int64), w) for b, r, w in zip(bots, ranks, weights)
            if len(b) and np.asarray(b).shape[1] >= 2]


def _tie_sizes(tables) -> list:
    seen = set()
    for _, ranks, _ in tables:
        same = (ranks[:, :, None] == ranks[:, None, :]).sum(axis=2)  # each seat's group size
        seen.update(int(s) for s in np.unique(same) if s >= 2)
    return sorted(seen)


class _Problem:
    def __init__(self, tables, n_bots: int, merge: bool = True, prior: float = 0.0, sizes=None,
                 ties: str = "exact"):
        if ties not in TIES:
            raise ValueError(f"unknown tie model {ties!r}: one of {', '.join(TIES)}")
        self.n_bots, self.prior, self.ties = n_bots, prior, ties
        if merge:
            tables = [aggregate(*t) for t in tables]
        else:
            tables = [(b, r, np.ones(len(b)) if w is None else np.asarray(w, dtype=float)) for b, r, w in tables]
        self.sizes = sorted({b.shape[1] for b, _, _ in tables})
        self.seat_index = {}
        for n in self.sizes:
            for i in range(1, n):
                self.seat_index[(n, i)] = n_bots + len(self.seat_index)
        first = n_bots + len(self.seat_index)
        if ties == "davidson":
            sizes = _tie_sizes(tables) if sizes is None else sorted(sizes)
        else:
            sizes = []
        self.tie_index = {s: first + k for k, s in enumerate(sizes)}
        self.dim = first + len(sizes)
        if ties == "davidson":
            self.designs = [_DavidsonDesign(b, r, w, n_bots, self.seat_index, self.tie_index) for b, r, w in tables]
        else:
            self.designs = [_ExactDesign(b, r, w, n_bots, self.seat_index) for b, r, w in tables]
        self.rows = sum(d.rows for d in self.designs)
        total = sum(float(w.sum()) for _, _, w in tables)
        self.centre = max(total / max(n_bots, 1), 1.0)  # weight of the mean-zero penalty

    def split(self, x):
        """(theta, {table size: seat effects}, log delta by tie size with 1 -> 0 and unseen -> -inf)."""
        theta = x[:self.n_bots]
        seats = {n: np.concatenate([[0.0], [x[self.seat_index[(n, i)]] for i in range(1, n)]]) for n in self.sizes}
        by_size = np.full(max(self.sizes) + 1, -np.inf)
        by_size[1] = 0.0
        for size, index in self.tie_index.items():
            by_size[size] = x[index]
        return theta, seats, by_size

    def objective(self, x, hessian: bool = True):
        """(penalised negative log-likelihood, gradient, Hessian, log-likelihood)."""
        theta, seats, by_size = self.split(x)
        p = self.dim
        loglik, grad, hess = 0.0, np.zeros(p), np.zeros((p, p)) if hessian else None
        for d in self.designs:
            if self.ties == "davidson":
                ll, g_seat, h_seat = d.evaluate(theta, seats[d.n], by_size, hessian)
            else:
                ll, g_seat, h_seat = d.evaluate(theta, seats[d.n], hessian)
            loglik += ll
            grad += np.bincount(d.g_target, weights=g_seat[d.g_which, d.g_local], minlength=p)
            if hessian:
                flat = np.bincount(d.h_dst[0] * p + d.h_dst[1], weights=h_seat.ravel()[d.h_src], minlength=p * p)
                hess += flat.reshape(p, p)
        b = self.n_bots
        mean = x[:b].sum()
        value = -loglik + 0.5 * RIDGE * x @ x + 0.5 * self.centre * mean * mean / b
        grad = -grad + RIDGE * x
        grad[:b] += self.centre * mean / b
        if hessian:
            hess = hess + RIDGE * np.eye(p)
            hess[:b, :b] += self.centre / b
        if self.prior:
            value += self._prior(x[:b], grad, hess)
        return value, grad, hess, loglik

    def _prior(self, theta, grad, hess) -> float:
        """``prior`` virtual drawn games of each bot against a bot of the field's mean strength:
        half a win and half a loss under Bradley-Terry. Adds to ``grad`` and ``hess``."""
        b = len(theta)
        t = theta - theta.mean()
        s = 1.0 / (1.0 + np.exp(-t))
        g = self.prior * (s - 0.5)
        grad[:b] += g - g.mean()
        if hess is not None:
            c = np.eye(b) - 1.0 / b
            hess[:b, :b] += c @ np.diag(self.prior * s * (1 - s)) @ c
        return float(self.prior * 0.5 * (np.logaddexp(0, -t) + np.logaddexp(0, t)).sum())


def _direction(hess, grad):
    """The Newton step, or (where the Hessian is not positive definite: the exact model's
    likelihood is a sum over orders, not always concave) a Levenberg-damped one."""
    shift = 0.0
    scale = max(float(np.abs(np.diag(hess)).max()), 1e-12)
    while True:
        try:
            c = np.linalg.cholesky(hess + shift * np.eye(len(grad)))
            return np.linalg.solve(c.T, np.linalg.solve(c, grad))
        except np.linalg.LinAlgError:
            shift = max(2 * shift, 1e-8 * scale)


def _newton(problem: _Problem, x, tol: float = 1e-9, max_iter: int = 100):
    value, grad, hess, loglik = problem.objective(x)
    for it in range(1, max_iter + 1):
        step = _direction(hess, grad)
        decrement = float(grad @ step)
        if decrement < 2 * tol:
            return x, hess, loglik, it
        t = 1.0
        while True:
            trial = x - t * step
            new_value = problem.objective(trial, hessian=False)[0]
            if new_value <= value - 0.25 * t * decrement or t < 1e-10:
                break
            t *= 0.5
        x = trial
        value, grad, hess, loglik = problem.objective(x)
    return x, hess, loglik, max_iter


def fit(bots, ranks, n_bots: int | None = None, weights=None, start=None, merge: bool = True,
        prior: float = PRIOR, ties: str = "exact") -> Fit:
    """The maximum-likelihood fit of finishing orders (penalised by ``prior`` virtual drawn games
    per bot, see the module's docstring; 0 for the plain likelihood).

    ``bots[m, i]``: the bot (0..n_bots-1) at seat ``i`` of match ``m``; ``ranks[m, i]``: its
    competition rank (1 = best, ties share a rank). Both may be lists of such arrays, one per
    table size. ``weights``: a count per row (default 1). ``merge`` False: the rows are distinct
    already (``aggregate``). ``start``: a parameter vector to start from (a previous ``Fit.x``).
    ``ties``: "exact" (an unknown order among the tied seats) or "davidson" (Davidson-Luce)."""
    tables = _tables(bots, ranks, weights)
    if not tables:
        raise ValueError("no matches to rate")
    if n_bots is None:
        n_bots = max(int(b.max()) for b, _, _ in tables) + 1
    if merge:
        merged = [aggregate(b, r, w, inverse=True) for b, r, w in tables]
        tables, row_of = [m[:3] for m in merged], [m[3] for m in merged]
    else:
        row_of = [np.arange(len(b)) for b, _, _ in tables]
    problem = _Problem(tables, n_bots, False, prior, ties=ties)
    x0 = np.zeros(problem.dim) if start is None or len(start) != problem.dim else np.asarray(start, dtype=float)
    x, hess, loglik, iterations = _newton(problem, x0)
    theta, seats, _ = problem.split(x)
    return Fit(theta=theta, seats=seats, log_delta={s: float(x[i]) for s, i in problem.tie_index.items()},
               cov=np.linalg.inv(hess), loglik=loglik, iterations=iterations, rows=problem.rows, ties=ties,
               seat_index=dict(problem.seat_index), tie_index=dict(problem.tie_index), x=x, problem=problem,
               row_of=row_of)


def log_likelihood(bots, ranks, theta, seat, log_delta: dict | None = None, weights=None,
                   ties: str = "exact") -> float:
    """The model's log-likelihood of the rows at the given parameters (natural units). ``seat``:
    the seat effects (one table size) or {table size: seat effects}; ``log_delta`` (Davidson-Luce):
    tie size -> log delta, sizes not given have delta 0."""
    tables = _tables(bots, ranks, weights)
    log_delta = log_delta or {}
    if ties == "davidson" and set(_tie_sizes(tables)) - set(log_delta):
        return -np.inf  # the rows hold ties of a size whose delta is 0
    problem = _Problem(tables, len(theta), merge=True, sizes=set(log_delta), ties=ties)
    x = np.zeros(problem.dim)
    x[:len(theta)] = theta
    for (n, i), index in problem.seat_index.items():
        x[index] = (seat[n] if isinstance(seat, dict) else np.asarray(seat, dtype=float))[i]
    for size, index in problem.tie_index.items():
        x[index] = log_delta[size]
    return problem.objective(x, hessian=False)[3]


def connected(bots, n_bots: int) -> np.ndarray:
    """Component label per bot of the graph 'met at a table' (one label: every rating is comparable)."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    src, dst = [], []
    for b in (bots if isinstance(bots, list) else [bots]):
        b = np.asarray(b)
        for i in range(1, b.shape[1]):
            src.append(b[:, 0])
            dst.append(b[:, i])
    if not src:
        return np.arange(n_bots)
    src, dst = np.concatenate(src), np.concatenate(dst)
    graph = coo_matrix((np.ones(len(src)), (src, dst)), shape=(n_bots, n_bots))
    return connected_components(graph, directed=False)[1]


# Synthetic data ----------------------------------------------------------------------------------


def synthetic_matches(strengths, seat_effects, n: int, players: int, rng, ties=0.0):
    """``n`` matches of ``players`` seats drawn from the model: (bots, ranks), each (n, players).

    ``strengths``: theta per bot (natural units); ``seat_effects``: gamma per seat (at least
    ``players`` values); ``ties``: delta, one value for every tie size or one per size 2..players
    (0: no ties). Each match seats distinct bots in random order when there are enough bots, else
    bots drawn with replacement."""
    strengths = np.asarray(strengths, dtype=float)
    gamma = np.asarray(seat_effects, dtype=float)[:players]
    b = len(strengths)
    if b >= players:
        bots = np.argsort(rng.random((n, b)), axis=1)[:, :players]
    else:
        bots = rng.integers(b, size=(n, players))
    u = strengths[bots] + gamma
    delta = np.broadcast_to(np.asarray(ties, dtype=float), (players - 1,)) if players > 1 else np.zeros(0)
    sub = _Subsets(players)
    with np.errstate(divide="ignore"):
        log_delta = np.concatenate([[-np.inf, 0.0], np.log(delta)])
    v = u @ sub.weight.T + log_delta[sub.size]
    ranks = np.zeros((n, players), dtype=np.int64)
    remaining = np.full(n, 2 ** players - 1)
    placed = np.zeros(n, dtype=np.int64)
    bits = 1 << np.arange(players)
    while (remaining > 0).any():
        live = remaining > 0
        vs = np.where(sub.inside[remaining], v, -np.inf)
        vs[~live] = 0.0  # finished rows: any choice, ignored
        e = np.exp(vs - vs.max(axis=1, keepdims=True))
        c = np.cumsum(e, axis=1)
        pick = (c < rng.random(n)[:, None] * c[:, -1:]).sum(axis=1)
        chosen = np.where(live, pick + 1, 0)
        members = (chosen[:, None] & bits) > 0
        ranks[members] = np.broadcast_to(placed[:, None] + 1, (n, players))[members]
        placed += members.sum(axis=1)
        remaining &= ~chosen
    return bots, ranks


def hide_orders(ranks, tied):
    """Competition ranks of full orders with some of the order hidden. ``ranks``: (m, n) full
    orders (1..n, distinct); ``tied[m, k]`` (or one row for every match): the places k+1 and k+2
    share a rank. Einundfünfzig-like (only the loser known): ``tied = [True] * (n - 2) + [False]``."""
    ranks = np.asarray(ranks, dtype=np.int64)
    m, n = ranks.shape
    tied = np.broadcast_to(np.asarray(tied, dtype=bool), (m, n - 1))
    at_place = np.empty((m, n), dtype=np.int64)
    at_place[:, 0] = 1
    for k in range(1, n):
        at_place[:, k] = np.where(tied[:, k - 1], at_place[:, k - 1], k + 1)
    return np.take_along_axis(at_place, ranks - 1, axis=1)


def synthetic_exact(strengths, seat_effects, n: int, players: int, rng, tied=0.0):
    """``n`` matches drawn from the exact tie model: a full Plackett–Luce order, then the order
    within planted tie groups hidden. ``tied``: the probability that two neighbouring places share
    a rank (each pair independently), or a boolean pattern for ``hide_orders``."""
    bots, ranks = synthetic_matches(strengths, seat_effects, n, players, rng)
    if np.ndim(tied) == 0:
        tied = rng.random((n, players - 1)) < float(tied)
    return bots, hide_orders(ranks, tied)


__all__ = ["ELO", "PRIOR", "RIDGE", "TIES", "Fit", "aggregate", "connected", "fit", "hide_orders", "log_likelihood",
           "synthetic_exact", "synthetic_matches"]
