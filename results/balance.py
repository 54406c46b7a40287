"""Variant balance: how fair and how long the rounds of each rules variant are, and paired comparisons.

``balance(runs)`` reads the pooled ``rounds`` and ``matches`` tables of ``runs`` (``results.runs``)
with lazy polars queries collected together once, and returns a JSON-able dict (see ``balance``).

Nothing here knows a game. The game-specific sections come from the rounds table's columns, by
name (``engine/game.py`` states the conventions); a section whose columns are absent is left out:

- ``finish_<X>`` (bool): how rounds are won, the share of the rounds with a winner won "by X", and
  (``none``) by none of them: the flags may hold together, so only this share completes them;
- ``pen_<RULE>`` (numeric): the mean penalty by rule per seat and round;
- ``open_method`` (string), ``open_turn`` (integer): the share of seat-rounds opened by each
  method, and the count of openings by turn;
- ``end`` (string): how rounds end, as shares of dealt rounds; the ``exhausted`` share is the
  exhausted-stock rate.

The common columns give the rest: wins by position after the dealer (``position``, ``won``; over
rounds with a winner (an exhausted stock under ``exhausted = "score"`` leaves a round without one), several winners allowed), round length (``turns``, over every dealt round), the
void rate (``void``), and from the matches table the mean total and rank-1 rate by seat.

The unit. Duplicate deals replay one deal seed under every seat rotation and at every table, so
the rounds and matches of one deal set of a run (``run``, ``deal_set``) are correlated; deal sets
are independent. Every interval and test is therefore computed over deal sets (results/stats.py):
each rate (``rate``, ``lo``, ``hi``) carries its design effect ``deff`` and a Wilson interval on
the effective count n / deff with Student's t on (deal sets - 1) degrees of freedom; the mean total
by seat has the cluster-robust t interval (``se``, ``deff``); the uniformity test of wins by
position is Rao and Scott's second-order correction of Pearson's chi-square (``chi2``: ``stat``,
``df``, ``p``, ``deff`` the mean generalised design effect, ``pearson`` the uncorrected statistic,
``clusters``, ``method``; ``method`` starts with "none:" and ``p`` is null when there is no test,
e.g. with one deal set, and is "pearson: ..." when no deal set differs from the others). A design
effect above 1 means the deal decides much of the outcome; below 1, the rotations balance it. A
figure with no spread over deal sets is no evidence of precision (results/stats.py): such a rate
counts every row, and a paired difference that is the same in every deal set gets no p-value (null,
out of the adjusted family, ``significant`` null) unless it is 0 (p = 1).

Seat imbalance (``imbalance``, ``results.stats.seat_imbalance``): the root mean square distance of
the positions' win rates from their mean, less what chance adds, with a deal-set bootstrap
interval; ``dealer``: the last position's win rate; ``void_why``: void rounds by reason (nobody
opened, the stock ran out after an opening, the turn limit) as shares of dealt rounds;
``openings.win_share``: the share of their rounds with a winner that seats opening by each method won;
``warnings``: more than a third of rounds void. Each uniformity test's p-value is also adjusted by
Holm over the variants (``chi2.p_adj``).

Paired comparisons between variants (which pairs, which metrics, the primary and exploratory
families) are ``results.comparisons``. Equivalence margins are fixed per metric, in the metric's own
units: one number for every rate metric (as a fraction), and ``turns`` or ``pen_<RULE>`` margins
given by name (``margins``).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import numpy as np
import polars as pl

from .comparisons import CompareError, choose_pairs, compare, unit_counts
from .per_match import per_match
from .pooling import unexercised
from .skill import SKILL_GAP, summary_sentence
from .skill_balance import SkillSection, design_of as skill_design, edge_warnings, sign_warnings as skill_signs
from .runs import partial_deal_sets, partial_note, whole
from .stats import adjust, cluster_mean, cluster_rate, rao_scott, seat_imbalance, summary

UNIT = ["run", "deal_set"]
NO_FINISH = "none"  # the finish key of the rounds won by none of the finish_<X> ways
CELL = ["variant", *UNIT]


class BalanceError(ValueError):
    """Options that make no sense for a balance report."""


@dataclass
class Sections:
    """The game-specific columns the rounds table declares, found by name."""

    finish: list[str]  # the X of each finish_X column
    penalties: list[str]  # the RULE of each pen_RULE column
    open_method: bool
    open_turn: bool
    end: bool

    @classmethod
    def of(cls, schema) -> "Sections":
        kinds = dict(schema.items())

        def named(prefix, ok):
            return [n[len(prefix):] for n, t in kinds.items() if n.startswith(prefix) and len(n) > len(prefix) and ok(t)]

        return cls(
            finish=named("finish_", lambda t: t == pl.Boolean),
            penalties=named("pen_", lambda t: t.is_numeric()),
            open_method=kinds.get("open_method") == pl.String,
            open_turn=bool(kinds.get("open_turn") is not None and kinds["open_turn"].is_integer()),
            end=kinds.get("end") == pl.String,
        )


# The queries ------------------------------------------------------------------------------------


def _queries(rounds: pl.LazyFrame, matches: pl.LazyFrame, sec: Sections, rule_cols: list[str]) -> dict:
    """Every lazy query the report needs, by name; each one is small once collected."""
    played = ~pl.col("void")
    has_winner = pl.col("won").fill_null(False).any().over("run", "match_id", "round_index")
    rounds = rounds.with_columns((played & has_winner).alias("decided"))
    decided = pl.col("decided")
    q = {
        "cells": rounds.group_by(*CELL, "position").agg(
            pl.len().alias("seat_rounds"),
            played.sum().alias("played"),
            decided.sum().alias("decided"),
            (pl.col("won") & played).sum().alias("wins"),
            *[pl.col(f"pen_{r}").fill_null(0).sum().cast(pl.Float64).alias(f"pen_{r}") for r in sec.penalties],
        ),
        "turns": rounds.filter(pl.col("position") == 1).group_by(*CELL, "turns").agg(pl.len().alias("count")),
        "seats": matches.group_by(*CELL, "seat").agg(
            pl.len().alias("matches"),
            pl.col("total").is_not_null().sum().alias("scored"),
            pl.col("total").cast(pl.Float64).sum().alias("total"),
            (pl.col("total").cast(pl.Float64) ** 2).sum().alias("squares"),
            (pl.col("rank") == 1).sum().alias("wins"),
        ),
        "matches": matches.group_by("variant").agg(
            pl.struct("run", "match_id").n_unique().alias("matches"), *[pl.col(c).first() for c in rule_cols]),
        "round_variants": rounds.select(pl.col("variant").unique()),
    }
    match = per_match(rounds, matches)
    q["per_match"] = match.group_by(*CELL).agg(
        pl.len().alias("matches"),
        *[x for c in MATCH_FIGURES for x in (pl.col(c).cast(pl.Float64).sum().alias(c),
                                             (pl.col(c).cast(pl.Float64) ** 2).sum().alias(f"{c}__sq"))],
        pl.col("spread").sum().alias("spread"),
        pl.col("comeback").cast(pl.Int64).sum().alias("comebacks"),
        pl.col("comeback").is_not_null().sum().alias("halves"))
    if sec.end:
        q["ends"] = (rounds.filter((pl.col("position") == 1) & pl.col("end").is_not_null())
                     .group_by(*CELL, "end").agg(pl.len().alias("count")))
    if sec.finish:
        cols = [f"finish_{x}" for x in sec.finish]
        q["finish"] = (rounds.filter(decided & pl.any_horizontal(*[pl.col(c).fill_null(False) for c in cols]))
                       .group_by(*CELL, "match_id", "round_index").agg(*[pl.col(c).any() for c in cols])
                       .group_by(*CELL).agg(*[pl.col(c).sum() for c in cols], pl.len().alias("finish_any")))
    if sec.open_method:
        q["open_method"] = (rounds.filter(pl.col("open_method").is_not_null())
                            .group_by(*CELL, "open_method").agg(pl.len().alias("count")))
    if sec.open_turn:
        q["open_turn"] = (rounds.filter(pl.col("open_turn").is_not_null())
                          .group_by("variant", "open_turn").agg(pl.len().alias("count")))
    if sec.open_method:
        q["opener_wins"] = (rounds.filter(pl.col("open_method").is_not_null() & decided)
                            .group_by(*CELL, "open_method").agg(pl.len().alias("opened"), pl.col("won").sum().alias("wins")))
    if sec.end and sec.open_method:
        per_round = rounds.group_by(*CELL, "match_id", "round_index").agg(
            pl.col("void").first(), pl.col("end").first(), pl.col("open_method").is_not_null().any().alias("opened"))
        why = (pl.when(~pl.col("opened")).then(pl.lit("nobody opened"))
               .when(pl.col("end") == "exhausted").then(pl.lit("stock ran out after an opening"))
               .when(pl.col("end") == "max_turns").then(pl.lit("turn limit")).otherwise(pl.lit("other")))
        q["void_why"] = (per_round.filter(pl.col("void")).with_columns(why.alias("why"))
                         .group_by(*CELL, "why").agg(pl.len().alias("count")))
    return q


def _collect(queries: dict) -> dict[str, pl.DataFrame]:
    names = list(queries)
    frames = pl.collect_all([queries[n] for n in names])
    return dict(zip(names, frames))


RATE_METRICS_EXCEPT = ("turns", "pen_", "match_")  # every other comparison metric is a rate (a fraction)


def margins(given, metrics: list[str]) -> dict:
    """Metric -> equivalence margin, from ``given``: None (no equivalence tests), a number (the margin
    of every rate metric, as a fraction), or a dict of metric -> margin where the key "rates" stands
    for every rate metric. Raises BalanceError for a margin not above 0 or an unknown metric."""
    if given is None:
        return {}
    given = given if isinstance(given, dict) else {"rates": given}
    for name, value in given.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not (math.isfinite(value) and value > 0):
            raise BalanceError(f"--margin {name}: must be a number above 0 (in the metric's units), got {value}")
        if name != "rates" and name not in metrics:
            raise BalanceError(f"--margin {name}=...: no such metric here (metrics: rates, {', '.join(metrics)})")
    rates = [m for m in metrics if not m.startswith(RATE_METRICS_EXCEPT)]
    out = {m: float(given["rates"]) for m in rates} if "rates" in given else {}
    out.update({k: float(v) for k, v in given.items() if k != "rates"})
    return out


# Per variant -----------------------------------------------------------------------------------


def _by_unit(units: pl.DataFrame, frame: pl.DataFrame, value: str) -> np.ndarray:
    """``frame[value]`` (one row per unit) for each unit of ``units``, in its order; 0 where absent."""
    joined = (units.with_row_index("_i").join(frame.select(*UNIT, value), on=UNIT, how="left").sort("_i"))
    return joined[value].fill_null(0).cast(pl.Float64).to_numpy()


def _rate(k, n, confidence) -> dict:
    """The rate of ``k`` in ``n`` (one count per deal set each) with its deal-set-clustered interval."""
    r = cluster_rate(k, n, confidence)
    return {"rate": r.rate, "lo": r.lo, "hi": r.hi, "deff": r.deff}


def _value_text(value) -> str:
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    return str(value)


def labels(rules: dict[str, dict]) -> dict[str, str]:
    """Each variant's label: the rules fields that differ between the variants ("all" for one)."""
    if len(rules) == 1:
        return {v: "all" for v in rules}
    fields = sorted({f for r in rules.values() for f in r})
    differ = [f for f in fields if len({json.dumps(r.get(f), sort_keys=True) for r in rules.values()}) > 1]
    return {v: ", ".join(f"{f}={_value_text(r.get(f))}" for f in differ) or v for v, r in rules.items()}


def _order(plans: list[dict], found: set[str]) -> list[str]:
    order = []
    for plan in plans:
        for v in plan.get("variants", []) or []:
            vid = v.get("id") if isinstance(v, dict) else None
            if vid in found and vid not in order:
                order.append(vid)
    return order + sorted(found - set(order))


def _positions(cells: pl.DataFrame, units: pl.DataFrame, confidence: float) -> tuple[list[dict], dict, dict]:
    """Wins by position (intervals and the uniformity test clustered by deal set) and the seat
    imbalance figure (``results.stats.seat_imbalance``)."""
    numbers = sorted(cells["position"].unique().to_list())
    wins, played = [], []
    for p in numbers:
        mine = cells.filter(pl.col("position") == p)
        wins.append(_by_unit(units, mine, "wins"))
        played.append(_by_unit(units, mine, "decided"))
    positions = [{"position": int(p), "rounds": int(n.sum()), "wins": int(w.sum()), **_rate(w, n, confidence)}
                 for p, w, n in zip(numbers, wins, played)]
    if numbers:
        test = rao_scott(np.column_stack(wins), np.array([n.sum() for n in played]))
        imbalance = seat_imbalance(np.column_stack(wins), np.column_stack(played), confidence=confidence)
    else:
        test = rao_scott(np.zeros((units.height, 0)))
        imbalance = seat_imbalance(np.zeros((0, 0)), np.zeros((0, 0)))
    return positions, test.to_dict(), imbalance


def _turns(hist: pl.DataFrame) -> dict:
    hist = hist.group_by("turns").agg(pl.col("count").sum()).sort("turns")
    s = summary(hist["turns"].to_numpy(), hist["count"].to_numpy())
    return {"mean": s["mean"], "sd": s["sd"], "median": s["p50"], "p10": s["p10"], "p90": s["p90"],
            "hist": [[int(t), int(c)] for t, c in hist.iter_rows()]}


def _seats(frame: pl.DataFrame, confidence: float) -> tuple[list[dict], list[dict]]:
    """Mean total and rank-1 rate by seat, from per (deal set, seat) sums, clustered by deal set."""
    units = frame.select(UNIT).unique().sort(UNIT)
    scores, wins = [], []
    for seat in sorted(frame["seat"].unique().to_list()):
        mine = frame.filter(pl.col("seat") == seat)
        m = cluster_mean(*(_by_unit(units, mine, c) for c in ("total", "scored", "squares")), confidence=confidence)
        scores.append({"seat": int(seat), "mean": m.mean, "lo": m.lo, "hi": m.hi, "se": m.se, "deff": m.deff})
        k, n = _by_unit(units, mine, "wins"), _by_unit(units, mine, "matches")
        wins.append({"seat": int(seat), "matches": int(n.sum()), "wins": int(k.sum()), **_rate(k, n, confidence)})
    return scores, wins


def _counts(frame: pl.DataFrame, key: str, units: pl.DataFrame) -> dict[str, np.ndarray]:
    """``frame`` (UNIT, key, count) as the count per unit of ``units`` for each value of ``key``."""
    return {value: _by_unit(units, frame.filter(pl.col(key) == value), "count")
            for value in sorted(frame[key].unique().to_list())}


VOID_WARNING = 1 / 3  # above this share of void rounds, the bots may be what is measured
MATCH_FIGURES = ("deals", "turns", "margin", "lead_changes")  # per match, each with its interval (none below 0)


def _match_figures(frame: pl.DataFrame, units: pl.DataFrame, confidence: float) -> dict:
    """Per match: deals, turns, the winner's margin and lead changes (means with deal-set intervals),
    the mean spread of the final totals, and the share of matches won from behind at half time."""
    n = _by_unit(units, frame, "matches")
    out = {}
    for c in MATCH_FIGURES:
        m = cluster_mean(_by_unit(units, frame, c), n, _by_unit(units, frame, f"{c}__sq"), confidence, floor=0.0)
        out[c] = {"mean": m.mean, "lo": m.lo, "hi": m.hi, "se": m.se}
    out["spread"] = float(_by_unit(units, frame, "spread").sum() / n.sum()) if n.sum() else float("nan")
    halves = _by_unit(units, frame, "halves")
    out["comebacks"] = _rate(_by_unit(units, frame, "comebacks"), halves, confidence) if halves.sum() else None
    return out


def _variant(vid: str, data: dict, deals: pl.DataFrame, sec: Sections, confidence: float) -> dict:
    mine = {name: f.filter(pl.col("variant") == vid) for name, f in data.items() if "variant" in f.columns}
    d = deals.filter(pl.col("variant") == vid)
    units = d.select(UNIT)
    rounds, played, decided, seat_rounds = (d[c].cast(pl.Float64).fill_null(0).to_numpy()
                                            for c in ("rounds", "played_rounds", "decided_rounds", "seat_rounds_all"))
    positions, chi2, imbalance = _positions(mine["cells"], units, confidence)
    seat_scores, seat_wins = _seats(mine["seats"], confidence)
    void = _rate(rounds - played, rounds, confidence)
    out = {
        "positions": positions, "chi2": chi2, "imbalance": imbalance,
        "dealer": {"position": positions[-1]["position"], **{k: positions[-1][k] for k in ("rate", "lo", "hi", "deff")}}
        if positions else None,
        "seat_scores": seat_scores, "seat_wins": seat_wins, "turns": _turns(mine["turns"]), "void_rate": void,
        "match": _match_figures(mine["per_match"], units, confidence),
        "warnings": [],
    }
    if void["rate"] > VOID_WARNING:
        out["warnings"].append(f"{100 * void['rate']:.0f}% of rounds are void (more than a third): you may be "
                               "measuring the bots (how often they manage to open) more than the rules")
    if "void_why" in mine:
        out["void_why"] = {why: _rate(c, rounds, confidence) for why, c in _counts(mine["void_why"], "why", units).items()}
    if sec.end:
        out["ends"] = {e: _rate(c, rounds, confidence) for e, c in _counts(mine["ends"], "end", units).items()}
    if sec.finish:
        out["finish"] = {x: _rate(_by_unit(units, mine["finish"], f"finish_{x}"), decided, confidence)
                         for x in sec.finish}
        out["finish"][NO_FINISH] = _rate(decided - _by_unit(units, mine["finish"], "finish_any"), decided, confidence)
    if sec.open_method or sec.open_turn:
        out["openings"] = {}
    if sec.open_method:
        out["openings"]["by_method"] = {m: _rate(c, seat_rounds, confidence)
                                        for m, c in _counts(mine["open_method"], "open_method", units).items()}
        opener = mine["opener_wins"]
        out["openings"]["win_share"] = {
            m: _rate(_by_unit(units, opener.filter(pl.col("open_method") == m), "wins"),
                     _by_unit(units, opener.filter(pl.col("open_method") == m), "opened"), confidence)
            for m in sorted(opener["open_method"].unique().to_list())}
    if sec.open_turn:
        turns = mine["open_turn"].sort("open_turn")
        out["openings"]["by_turn"] = [[int(t), int(c)] for t, c in turns.select("open_turn", "count").iter_rows()]
    if sec.penalties:
        sums = mine["cells"].select(*[pl.col(f"pen_{r}").sum() for r in sec.penalties])
        out["penalties"] = {r: (float(sums[f"pen_{r}"][0]) / seat_rounds.sum() if seat_rounds.sum() else float("nan"))
                            for r in sec.penalties}
    return {"rounds": int(rounds.sum()), "deal_sets": d.height, **out}


def _clean(value):
    """``value`` with nan and numpy scalars made JSON-able (nan -> None)."""
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if isinstance(value, (np.floating, float)):
        return None if math.isnan(value) or math.isinf(value) else float(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    return value


def _plan_fields(plans: list[dict]) -> dict:
    """Variant id -> the fields its sweep varied (run.json), e.g. {"threshold": 71, "preset": "tr-wiki"}."""
    out = {}
    for plan in plans:
        for v in plan.get("variants", []) or []:
            if isinstance(v, dict) and isinstance(v.get("fields"), dict) and v.get("id"):
                out.setdefault(v["id"], v["fields"])
    return out


def balance(runs, margin=None, exploratory: bool = False, confidence: float = 0.95, compare_pairs=None,
            baseline: str | None = None, reference: str | None = None) -> dict:
    """The balance report of ``runs`` (``results.runs.Runs``) as a JSON-able dict.

    ``{"game", "runs", "correction" ("holm" or "bh" when exploratory), "margin", "confidence",
    "pairs_note", "variants": [...], "comparisons": [...]}``; each variant has ``variant`` (its id),
    ``label``, ``rules`` (field -> value, from the ``rule_*`` columns), ``matches``, ``rounds``
    (dealt, void included), ``deal_sets`` (the independent units: (run, deal set) pairs),
    ``positions``, ``chi2`` (with ``p_adj``: Holm over the variants), ``imbalance``, ``dealer``,
    ``seat_scores``, ``seat_wins``, ``turns``, ``void_rate``, ``warnings`` and, when the rounds table
    has their columns, ``void_why``, ``ends``, ``finish``, ``openings`` and ``penalties`` (the module
    doc says what each one counts and how intervals are clustered by deal set). ``compare_pairs``
    (["A:B", ...]) and ``baseline`` choose the comparisons (``results.comparisons``). ``reference``: the
    bot at 1500 on a skill study's skill trace (the game's reference bot, which the caller knows).
    """
    if not 0 < confidence < 1:
        raise BalanceError(f"the confidence level must be between 0 and 1, got {confidence}")
    partial = partial_deal_sets(runs)
    rounds, matches = whole(runs.rounds, partial), whole(runs.matches, partial)
    sec = Sections.of(rounds.collect_schema())
    rule_cols = [c for c in matches.collect_schema().names() if c.startswith("rule_")]
    data = _collect(_queries(rounds, matches, sec, rule_cols))
    deals, metrics = unit_counts(data, sec)
    found = set(data["matches"]["variant"].to_list()) | set(data["round_variants"]["variant"].to_list())
    order = _order(runs.plans, found)
    rules = {row["variant"]: {c[len("rule_"):]: row[c] for c in rule_cols} for row in data["matches"].to_dicts()}
    rules = {v: rules.get(v, {}) for v in order}
    planned = _plan_fields(runs.plans)
    named = {v: {**rules[v], **planned.get(v, {})} for v in order}
    names = labels(rules) if order else {}
    if order and all(v in planned for v in order) and len(order) > 1:
        names = labels({v: planned[v] for v in order})
    match_counts = dict(data["matches"].select("variant", "matches").iter_rows())
    variants = []
    for vid in order:
        body = _variant(vid, data, deals, sec, confidence)
        variants.append({"variant": vid, "label": names[vid], "rules": rules[vid],
                         "matches": int(match_counts.get(vid, 0)), **body})
    chi_adj = adjust([v["chi2"]["p"] if v["chi2"]["p"] is not None else float("nan") for v in variants], "holm") \
        if variants else []
    for v, p in zip(variants, chi_adj):
        v["chi2"]["p_adj"] = p
    chosen = margins(margin, [m for m, _ in metrics])
    if len(order) < 2 and (compare_pairs or baseline is not None):
        raise CompareError("--compare/--baseline: the runs hold one variant of the rules: there is nothing to compare")
    pairs, note = choose_pairs(order, named, names, compare_pairs, baseline) if len(order) > 1 else ([], "")
    correction = "bh" if exploratory else "holm"
    design = skill_design(runs.plans)
    section = SkillSection(design, runs, rounds, matches, _players(runs.plans), confidence, reference) if design else None
    extra = section.rows(pairs) if section else []
    comparisons = compare(deals, pairs, metrics, correction, chosen, confidence, extra)
    doc = {"game": runs.game, "runs": runs.names, "correction": correction, "margin": chosen or None,
           "confidence": confidence, "pairs_note": note, "variants": variants, "comparisons": comparisons,
           "partial_deal_sets": partial.height, "warnings": [w for w in [partial_note(partial)] if w]}
    doc["warnings"] += unexercised(doc)
    if section is not None:
        for v in variants:
            v["skill"] = section.variant(v["variant"])
            doc["warnings"] += [f"{v['label']}: {w}" for w in v["skill"].get("warnings", [])]
        skill_rows = [r for r in comparisons if r["metric"].startswith(SKILL_GAP)]
        doc["warnings"] += skill_signs(skill_rows, names) + edge_warnings(variants, pairs)
        doc["skill"] = {"design": design.to_dict(), "summary": summary_sentence(skill_rows, names),
                        "survival": section.survival_tests(pairs)}
    return _clean(doc)


def _players(plans: list[dict]) -> int:
    return int(next((p["players"] for p in plans if p.get("players")), 4))


__all__ = ["balance", "BalanceError", "Sections", "labels", "margins"]
