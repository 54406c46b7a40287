"""Planning for precision: how many deal sets a stated margin takes.

A 95% interval over G independent deal sets narrows as 1/√G. So a run that measured a figure to
±h on G deal sets needs about G·(h/M)² deal sets for ±M (``deal_sets_for``): this is the planner
after a run (``balance``, the words), and it carries the run's own design effect with it.

Before anything is played there is no spread to measure, so ``rate_deal_sets`` and
``elo_deal_sets`` assume one (a design effect, 1 by default: every round or match independent,
which duplicate deals usually beat and copies at a table can miss), and ``plan_precision`` says
what a plan will measure and what a margin takes, in one line for the plan (the harness prints it
before a run; the skill study calls it too), from the figures of ``plan_figures``: the first player's
share, and for a tournament the rating difference of two of its bots (``elo_half_width``).
"""

from __future__ import annotations

import math

from .distributions import norm_ppf
from .numbers import many
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


ELO_MARGIN = 20.0  # the default Elo margin of the plan line: the README's SPRT elo1


def elo_half_width(matches_per_deal_set: float, deal_sets: int, confidence: float = CONFIDENCE) -> float:
    """The half-width (Elo) of the interval of the rating difference of two evenly matched bots that meet
    in ``matches_per_deal_set`` matches of each of ``deal_sets`` deal sets (each match one comparison)."""
    n = matches_per_deal_set * deal_sets
    return _z(confidence) * 2 * ELO / math.sqrt(n) if n > 0 else math.inf


def _pair(plan: dict) -> tuple[str, str] | None:
    """The two bots whose difference the plan line speaks of: a gauntlet's challenger and the bot it is
    tested against (or the first of its field); else the first two bots."""
    labels = [b.get("label") for b in plan.get("bots") or [] if b.get("label")]
    if len(labels) < 2:
        return None
    if plan.get("challenger"):
        vs = ((plan.get("sprt") or {}).get("vs") or [None])[0]
        others = [b for b in labels if b != plan["challenger"]]
        return plan["challenger"], vs if vs in labels else others[0]
    return labels[0], labels[1]


def plan_figures(plan: dict, margin_points: float = MARGIN_POINTS, margin_elo: float = ELO_MARGIN,
                 confidence: float = CONFIDENCE) -> dict:
    """What a plan (``run.json``'s fields) will measure, before anything is played, counting rounds and
    matches as independent: ``deal_sets``; ``share``: the first player's share of rounds (``paired``:
    as a difference between variants, for a sweep) with its ``half_width`` and the deal sets
    ``margin_points`` takes (``for_margin``); ``elo`` (a tournament with two bots or more, None
    otherwise): the rating difference of ``pair``, meeting in ``per_deal_set`` matches a deal set, its
    ``half_width`` and the deal sets ``margin_elo`` takes. The plan line and the skill study read it."""
    players = int(plan["players"])
    variants = max(1, len(plan.get("variants") or []))
    deal_sets = int(plan["deal_sets"])
    matches = plan.get("matches") or []
    per_variant = len(matches) / variants / max(1, deal_sets)
    rules = ((plan.get("variants") or [{}])[0].get("rules") or {})
    rounds = per_variant * int(rules.get("rounds", 1))
    share, margin = 1 / players, margin_points / 100
    paired = variants > 1
    out = {"deal_sets": deal_sets, "confidence": confidence,
           "share": {"paired": paired, "rounds_per_deal_set": rounds, "margin": margin_points,
                     "half_width": 100 * rate_half_width(share, rounds, deal_sets, 2.0 if paired else 1.0, confidence),
                     "for_margin": rate_deal_sets(margin, share, rounds, 1.0, confidence, paired)},
           "elo": None}
    pair = _pair(plan) if plan.get("kind", "tournament") == "tournament" else None
    if pair is not None and matches and "seating" in matches[0]:
        first = matches[0].get("variant")
        meet = sum(1 for m in matches if m.get("variant") == first and m.get("deal_set") == 0
                   and pair[0] in m["seating"] and pair[1] in m["seating"])
        if meet:
            out["elo"] = {"pair": list(pair), "per_deal_set": meet, "margin": margin_elo,
                          "half_width": elo_half_width(meet, deal_sets, confidence),
                          "for_margin": elo_deal_sets(margin_elo, meet, 1.0, confidence)}
    return out


# How much one deal set's gain (results/skill.py: a challenger's points a round against copies of a
# bot, less that bot's at its own table on the same deal) spreads between deal sets: 10 to 31 points
# a round in issue 29's study (4 players, one-round matches, thresholds 51-101, random/greedy/outs,
# the clairvoyant and restricted bots); the plan line takes 20, over the square root of the rounds.
GAIN_SD = 20.0
GAP_MARGIN = 2.0  # the default margin of the skill study's plan line: ±2 points a round on a skill gap


def gap_half_width(rounds: float, deal_sets: int, sd: float = GAIN_SD, confidence: float = CONFIDENCE) -> float:
    """The half-width (points a round) of a skill gap over ``deal_sets`` deal sets of ``rounds`` rounds,
    a deal set's gain spreading by ``sd`` points a round for one-round matches."""
    return _z(confidence) * sd / math.sqrt(rounds * deal_sets) if rounds > 0 and deal_sets > 0 else math.inf


def gap_deal_sets(margin: float, rounds: float, sd: float = GAIN_SD, confidence: float = CONFIDENCE) -> int:
    """Deal sets for ±``margin`` points a round on a skill gap (as ``gap_half_width``)."""
    return max(2, math.ceil((_z(confidence) * sd / margin) ** 2 / rounds))


def skill_precision(plan: dict, margin: float = GAP_MARGIN, confidence: float = CONFIDENCE) -> str:
    """The skill study's plan line: the precision of each skill gap and the deal sets ±``margin`` takes;
    the skill level's, a ratio of two gains, is known only from the run's own spread (``balance`` says
    the deal sets a narrower one takes)."""
    deal_sets = int(plan["deal_sets"])
    rounds = int(((plan.get("variants") or [{}])[0].get("rules") or {}).get("rounds", 1))
    half = gap_half_width(rounds, deal_sets, confidence=confidence)
    need = gap_deal_sets(margin, rounds, confidence=confidence)
    said = "no interval" if deal_sets < 2 else f"about ±{half:.1f} points a round"
    return (f"skill: {said} on each skill gap with {many(deal_sets, 'deal set')}; ±{margin:g} takes "
            f"about {need:,} deal sets (a deal set's gain taken to spread by {GAIN_SD:g} points a round over the "
            f"square root of the rounds, as measured at 4 players: 10-31); the skill level's interval comes from the "
            f"run's own spread: ellibir balance RUN says the deal sets ±0.05 takes")


def _points(fraction: float) -> str:
    return f"{100 * fraction:.1f}".rstrip("0").rstrip(".")


def plan_precision(plan: dict, margin_points: float = MARGIN_POINTS, confidence: float = CONFIDENCE,
                   margin_elo: float = ELO_MARGIN) -> str:
    """One line for a plan (``plan_figures``): the precision it will give on the first player's share of
    rounds (per variant; as a difference between variants for a sweep) and, for a tournament, on the
    rating difference of two of its bots; and the deal sets ±``margin_points`` and ±``margin_elo`` take,
    if rounds and matches were independent."""
    f = plan_figures(plan, margin_points, margin_elo, confidence)
    share, elo, deal_sets = f["share"], f["elo"], f["deal_sets"]
    what = "the first player's share of rounds, variant against variant" if share["paired"] else \
        "the first player's share of rounds"
    if deal_sets < 2:  # every interval is over deal sets: one gives none
        line = (f"precision: none on {what} with {many(deal_sets, 'deal set')} (an interval needs 2 or more); "
                f"±{_points(margin_points / 100)} points takes about {share['for_margin']:,} deal sets")
    else:
        line = (f"precision: ±{_points(share['half_width'] / 100)} points on {what} with {many(deal_sets, 'deal set')}; "
                f"±{_points(margin_points / 100)} points takes about {share['for_margin']:,} deal sets")
    if elo is not None:
        a, b = (label.removeprefix("builtin:") for label in elo["pair"])
        width = "none" if deal_sets < 2 else f"±{elo['half_width']:.0f} Elo"
        line += (f"; {width} between {a} and {b} ({elo['per_deal_set']} match"
                 f"{'es' if elo['per_deal_set'] != 1 else ''} a deal set), ±{margin_elo:g} Elo takes about "
                 f"{elo['for_margin']:,}")
    return line + " (rounds and matches counted as independent: duplicate deals often need fewer)"


__all__ = ["GAIN_SD", "GAP_MARGIN", "gap_deal_sets", "gap_half_width", "skill_precision", "CONFIDENCE", "ELO_MARGIN", "MARGIN_POINTS", "deal_sets_for", "elo_deal_sets", "elo_half_width",
           "plan_figures", "plan_precision", "rate_deal_sets", "rate_half_width"]
