"""Planning for precision: how many deal sets a stated margin takes.

A 95% interval over G independent deal sets narrows as 1/√G. So a run that measured a figure to
±h on G deal sets needs about G·(h/M)² deal sets for ±M (``deal_sets_for``): this is the planner
after a run (``balance``, the words), and it carries the run's own design effect with it.

Before anything is played there is no spread to measure, so ``rate_deal_sets`` and
``elo_deal_sets`` assume one (a design effect, 1 by default: every round or match independent,
which duplicate deals usually beat and copies at a table can miss), and ``plan_precision`` says
what a plan will measure and what a margin takes, in one line for the plan (the harness prints it
before a run; the skill study calls it too).
"""

from __future__ import annotations

import math

from .distributions import norm_ppf
from .plackett_luce import ELO

CONFIDENCE = 0.95
MARGIN_POINTS = 2.0  # the default margin of the plan line: ±2 percentage points on a seat's share


def _z(confidence: float) -> float:
    return float(norm_ppf((1 + confidence) / 2))


def deal_sets_for(half_width: float, deal_sets: int, margin: float) -> int | None:
    """Deal sets for a 95% interval of ±``margin``, from one of ±``half_width`` measured on
    ``deal_sets`` (same units); None when nothing was measured (no width or no deal set)."""
    if not (half_width > 0 and deal_sets > 0 and margin > 0) or not math.isfinite(half_width):
        return None
    return max(2, math.ceil(deal_sets * (half_width / margin) ** 2))


def rate_half_width(rate: float, trials_per_deal_set: float, deal_sets: int, deff: float = 1.0,
                    confidence: float = CONFIDENCE) -> float:
    """The half-width of a rate's interval (as a fraction) over ``deal_sets`` of
    ``trials_per_deal_set`` trials each, with design effect ``deff``."""
    n = trials_per_deal_set * deal_sets
    return _z(confidence) * math.sqrt(rate * (1 - rate) * deff / n) if n > 0 else math.inf


def rate_deal_sets(margin: float, rate: float, trials_per_deal_set: float, deff: float = 1.0,
                   confidence: float = CONFIDENCE, paired: bool = False) -> int:
    """Deal sets for ±``margin`` (a fraction: 0.02 is 2 points) on a rate near ``rate``, with
    ``trials_per_deal_set`` trials (rounds) a deal set. ``paired``: the difference of two variants'
    rates on the same deals, counted as if they were independent (twice the variance; common deals
    make it less)."""
    var = rate * (1 - rate) * deff * (2 if paired else 1)
    return max(2, math.ceil(_z(confidence) ** 2 * var / (trials_per_deal_set * margin ** 2)))


def elo_deal_sets(margin: float, matches_per_deal_set: float, deff: float = 1.0,
                  confidence: float = CONFIDENCE) -> int:
    """Deal sets for ±``margin`` Elo on the rating difference of two evenly matched bots that meet in
    ``matches_per_deal_set`` matches a deal set (each match a win or a loss between them)."""
    var_per_match = 4 * ELO ** 2  # 1 / (p (1 - p)) at p = 1/2, on the Elo scale
    return max(2, math.ceil(_z(confidence) ** 2 * var_per_match * deff / (matches_per_deal_set * margin ** 2)))


def _points(fraction: float) -> str:
    return f"{100 * fraction:.1f}".rstrip("0").rstrip(".")


def plan_precision(plan: dict, margin_points: float = MARGIN_POINTS, confidence: float = CONFIDENCE) -> str:
    """One line for a plan (``run.json``'s fields: players, deal_sets, matches, variants, rules'
    rounds): the precision it will give on the first player's share of rounds (per variant; as a
    difference between variants for a sweep) and the deal sets ±``margin_points`` takes, if rounds
    were independent."""
    players = int(plan["players"])
    variants = max(1, len(plan.get("variants") or []))
    deal_sets = int(plan["deal_sets"])
    per_variant = len(plan.get("matches") or []) / variants / max(1, deal_sets)
    rules = ((plan.get("variants") or [{}])[0].get("rules") or {})
    rounds = per_variant * int(rules.get("rounds", 1))
    share, margin = 1 / players, margin_points / 100
    paired = variants > 1
    half = rate_half_width(share, rounds, deal_sets, 2.0 if paired else 1.0, confidence)
    need = rate_deal_sets(margin, share, rounds, 1.0, confidence, paired)
    what = "the first player's share of rounds, variant against variant" if paired else \
        "the first player's share of rounds"
    return (f"precision: ±{_points(half)} points on {what} with {deal_sets} deal sets; ±{_points(margin)} "
            f"points takes about {need:,} deal sets (rounds counted as independent: duplicate deals often "
            "need fewer)")


__all__ = ["CONFIDENCE", "MARGIN_POINTS", "deal_sets_for", "elo_deal_sets", "plan_precision", "rate_deal_sets",
           "rate_half_width"]
