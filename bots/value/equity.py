"""A value aligned with the rating (issue 28, ninth stage): a seat's expected pairwise match result.

The rating counts a challenger's pairwise results against each other seat over a match (low totals
win, X1), not its round margin. ``vgreedy:rank=1`` scores a candidate by the mean, over the other
seats j, of the chance that it ends the match below j ("match equity", as in backgammon match play):

    after this round, with L rounds left and a lead d_j over j (j's total minus its own, in hundreds),
    the chance is E_L(d_j) = Phi(d_j / s_L) (s_0 = 0: the match is over), fitted on self-play;
    this round's pairwise result x_j = s_j - s_i is taken as normal around V's margin mu with a spread
    sigma^2 from a second model of the position (the squared residual of V, same quadratic features):
    E[E_L(d_j + x_j)] = Phi((d_j + mu) / sqrt(s_L^2 + sigma^2)).

A turn that goes out knows its round result (the others pay by their openings; ``Scorer.paid_out``),
which goes through E_L as it is. The file (``weights/rank/standard.json``, made by
``benchmarks/rank.py fit``) holds the scales s_L, a one-round spread for matches longer than the table
and the spread model; it is checked against the hash pinned here.
"""

from __future__ import annotations

import math
from pathlib import Path

from engine.scoring import OUT_SCORE

from .model import check, read, unchanged
from .score import Scorer

FILE = Path(__file__).resolve().parent / "weights" / "rank" / "standard.json"
PINNED = "daab7c4eb262c376858f433fbe300654ca79702a6fa895ad31795a1f9cda2a9e"


def load_equity(path=None) -> "Equity":
    """The shipped table and spread model (or the file ``path``, unpinned, for development)."""
    key = str(path or FILE)
    if key not in _LOADED:
        p = Path(key)
        payload = read(p, "rank table")
        unchanged(payload, p.name, None if path else PINNED, "rank table")
        _LOADED[key] = Equity(payload, check(payload["spread"], f"{p.name} (its spread model)"))
    return _LOADED[key]


_LOADED: dict = {}


def phi(z: float) -> float:
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


class Equity:
    """The match-equity table E_L and the spread model."""

    def __init__(self, payload: dict, spread):
        self.payload = payload
        self.scales = {int(k): float(v) for k, v in payload["scale"].items()}
        self.round_sd = float(payload["round_sd"])
        self.floor = float(payload["floor"])
        self.spread = spread  # a Value of the position: the variance of the round's result about V

    def scale(self, left: int) -> float:
        """s_L: the spread of the pairwise difference over the ``left`` rounds still to come (0 for none)."""
        if left <= 0:
            return 0.0
        if left in self.scales:
            return self.scales[left]
        top = max(self.scales)
        return self.scales[top] * math.sqrt(left / top) if left > top else self.round_sd * math.sqrt(left)

    def table(self, lead: float, left: int) -> float:
        """E_L(lead): the chance of ending the match below an opponent it leads by ``lead`` (hundreds)."""
        s = self.scale(left)
        if s <= 0:
            return 1.0 if lead > 0 else 0.5 if lead == 0 else 0.0
        return phi(lead / s)

    def expected(self, mu: float, var: float, leads: list, left: int) -> float:
        """The mean over the opponents of E[E_L(lead + x)], x normal (mu, var) this round's result."""
        sd = math.sqrt(self.scale(left) ** 2 + max(var, self.floor))
        return sum(phi((d + mu) / sd) for d in leads) / len(leads) if leads else 0.5

    def exact(self, results: list, leads: list, left: int) -> float:
        """The mean over the opponents of E_L(lead + this round's known result against it)."""
        return sum(self.table(d + x, left) for d, x in zip(leads, results)) / len(leads) if leads else 0.5


class RankValue:
    """A stand-in for V in ``bots.value.score.Scorer``: rows -> the expected pairwise match result."""

    def __init__(self, value, equity: Equity, leads: list, left: int):
        self.value, self.equity, self.leads, self.left = value, equity, leads, left

    def __call__(self, rows: list) -> list:
        if not rows:
            return []
        mus = self.value(rows)
        vars_ = self.equity.spread(rows)
        return [self.equity.expected(mu, var, self.leads, self.left) for mu, var in zip(mus, vars_)]


def situation(view) -> tuple:
    """The leads over each other seat (its total minus this seat's, in hundreds) and the rounds left
    after this one."""
    me, totals = view.seat, view.totals
    leads = [(totals[s] - totals[me]) / 100 for s in range(view.players) if s != me]
    left = max(0, view.rules.rounds - view.round_number)
    return leads, left


class RankScorer(Scorer):
    """``Scorer`` whose V is the expected pairwise match result (``RankValue``), and whose turn that goes
    out is scored by its known round result through the table."""

    def __init__(self, value, equity: Equity, view, unseen=None, sample: int = 0, rng=None):
        self.equity = equity
        self.leads, self.left = situation(view)
        super().__init__(RankValue(value, equity, self.leads, self.left), view, unseen, sample, rng)

    def going_out(self, opened_before: bool, last: int) -> float:
        paid = self.paid_out(opened_before, last)
        return self.equity.exact([(p - OUT_SCORE) / 100 for p in paid], self.leads, self.left)


__all__ = ["Equity", "FILE", "PINNED", "RankScorer", "RankValue", "load_equity", "phi", "situation"]
