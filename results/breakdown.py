"""Where each bot's points went: per bot, its rounds (won, and how; opened, how and when; points paid
unopened and opened, points left in hand, penalties by rule) and its matches (refused decisions,
faults, the mean total of its matches without a fault, decision times and bank), from the rounds and
matches of some runs.

Only the bot's own play counts: rounds in which the reference bot stood in for it after a fault
(``stand_in``) are left out of the round figures, and its matches with a fault out of the mean total.
Void rounds score nothing and are counted apart. Control tables of the fair design and deal sets not
played whole are left out, as every analysis does (results/runs.py).

Every rate has its 95% interval clustered by deal set (``stats.cluster_rate``): a deal set's matches
share their deals. Decision times pool across matches through the fixed bins of the matches table
(results/schema.py ``TIME_BINS``): a median or 90th percentile is known to its bin, the mean and the
maximum exactly. Game columns are found by their names (engine/game.py): ``finish_<X>``,
``pen_<RULE>`` (points from ``GameSpec.penalty_points``), ``opened``, ``open_method``, ``open_turn``,
``left_value``; a game without one of them lacks that figure.

One lazy query per table, collected once; the statistics are the pure functions of results/stats.py.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from engine.game import get_game

from .fair import is_control
from .runs import UNIT, Runs, partial_deal_sets, partial_note, whole
from .schema import TIME_BIN_COLUMNS, TIME_BINS
from .stats import cluster_rate

CONFIDENCE = 0.95


def bin_range(k: int) -> tuple[float, float]:
    """The times (seconds) bin ``k`` of ``TIME_BIN_COLUMNS`` holds: [lo, hi), hi infinite for the last."""
    lo = 0.0 if k == 0 else TIME_BINS[k - 1]
    hi = TIME_BINS[k] if k < len(TIME_BINS) else math.inf
    return lo, hi


def bin_quantile(counts, q: float) -> tuple[float, float] | None:
    """The bin [lo, hi) that holds the ``q`` quantile of the times counted in ``counts`` (one count per
    bin of ``TIME_BIN_COLUMNS``); None when nothing was counted."""
    counts = np.asarray(counts, dtype=float)
    total = counts.sum()
    if total <= 0:
        return None
    k = int(np.searchsorted(np.cumsum(counts), q * total, side="left"))
    return bin_range(min(k, len(counts) - 1))


def _rate(k, n) -> dict:
    r = cluster_rate(k, n, CONFIDENCE)
    return {"k": int(r.k), "n": int(r.n), "rate": r.rate, "lo": r.lo, "hi": r.hi}


def _columns(runs: Runs) -> dict:
    names = runs.rounds.collect_schema()
    kinds = dict(names.items())
    return {
        "finish": [c[len("finish_"):] for c in names if c.startswith("finish_")],
        "pen": [c[len("pen_"):] for c in names if c.startswith("pen_") and kinds[c].is_numeric()],
        "opened": kinds.get("opened") == pl.Boolean,
        "method": kinds.get("open_method") == pl.String,
        "turn": kinds.get("open_turn") is not None and kinds["open_turn"].is_integer(),
        "left": kinds.get("left_value") is not None and kinds["left_value"].is_numeric(),
    }


def _kept(frame: pl.LazyFrame, partial: pl.DataFrame) -> pl.LazyFrame:
    return whole(frame.filter(~is_control(pl.col("match_id"))), partial)


def _round_query(rounds: pl.LazyFrame, cols: dict, points: dict) -> pl.LazyFrame:
    """Per bot and deal set, its own counted rounds' figures."""
    own = rounds.filter(~pl.col("stand_in") & ~pl.col("void"))
    pen_points = pl.sum_horizontal([pl.col(f"pen_{r}").fill_null(0) * points.get(r, 0) for r in cols["pen"]] or
                                   [pl.lit(0)])
    own = own.with_columns(pen_points.alias("_pen_points"))
    lost = ~pl.col("won")
    aggs = [pl.len().alias("rounds"), pl.col("won").sum().alias("won"), pl.col("score").sum().alias("score"),
            pl.col("score").filter(pl.col("won")).sum().alias("won_points"),
            pl.col("_pen_points").sum().alias("penalty_points")]
    if cols["opened"]:
        aggs += [pl.col("opened").sum().alias("opened"),
                 (pl.col("score") - pl.col("_pen_points")).filter(lost & ~pl.col("opened")).sum().alias("unopened_points"),
                 (pl.col("score") - pl.col("_pen_points")).filter(lost & pl.col("opened")).sum().alias("opened_points")]
        if cols["left"]:
            aggs.append(pl.col("left_value").filter(lost & pl.col("opened")).sum().alias("left_in_hand"))
    for x in cols["finish"]:
        aggs.append((pl.col("won") & pl.col(f"finish_{x}").fill_null(False)).sum().alias(f"finish_{x}"))
    for r in cols["pen"]:
        aggs += [pl.col(f"pen_{r}").fill_null(0).sum().alias(f"pen_{r}"),
                 (pl.col(f"pen_{r}").fill_null(0) > 0).sum().alias(f"pen_{r}_rounds")]
    return own.group_by("bot", *UNIT).agg(aggs)


def _other_rounds(rounds: pl.LazyFrame) -> pl.LazyFrame:
    return rounds.group_by("bot").agg(pl.col("stand_in").sum().alias("stand_in"),
                                      (pl.col("void") & ~pl.col("stand_in")).sum().alias("void"))


def _opening_query(rounds: pl.LazyFrame, cols: dict) -> pl.LazyFrame | None:
    if not cols["method"]:
        return None
    opened = rounds.filter(~pl.col("stand_in") & ~pl.col("void") & pl.col("open_method").is_not_null())
    aggs = [pl.len().alias("count")]
    if cols["turn"]:
        aggs += [pl.col("open_turn").mean().alias("mean_turn"), pl.col("open_turn").median().alias("median_turn"),
                 pl.col("open_turn").min().alias("first_turn")]
    return opened.group_by("bot", "open_method").agg(aggs)


def _match_query(matches: pl.LazyFrame, banks: pl.LazyFrame) -> pl.LazyFrame:
    """Per bot and deal set, its matches' figures (play columns null in a run of schema version 1)."""
    clean = pl.col("faults") == 0
    timed = pl.col("decisions").is_not_null()
    used = (pl.col("bank") - pl.col("bank_left")).clip(lower_bound=0)
    return (matches.join(banks, on="run", how="left").group_by("bot", *UNIT).agg(
        pl.len().alias("matches"), (~clean).sum().alias("faulty"), clean.sum().alias("clean"),
        pl.col("total").filter(clean).sum().alias("clean_total"),
        timed.sum().alias("timed"), pl.col("decisions").sum().alias("decisions"),
        pl.col("refusals").sum().alias("refusals"), pl.col("time_sum").sum().alias("time_sum"),
        pl.col("time_max").max().alias("time_max"), pl.col("bank_left").min().alias("bank_left"),
        used.sum().alias("bank_used_sum"), used.max().alias("bank_used_max"),
        used.is_not_null().sum().alias("clocked"),
        *[pl.col(c).sum().alias(c) for c in TIME_BIN_COLUMNS]))


def _fault_kinds(matches: pl.LazyFrame) -> pl.LazyFrame:
    return matches.filter(pl.col("faults") > 0).group_by("bot", "termination").agg(pl.len().alias("count"))


def _banks(runs: Runs) -> pl.LazyFrame:
    """Each run's bank (seconds), from its plan: bank used = bank - bank left."""
    rows = [{"run": name, "bank": float(((plan or {}).get("options") or {}).get("bank"))}
            for name, plan in zip(runs.names, runs.plans)
            if isinstance(((plan or {}).get("options") or {}).get("bank"), (int, float))]
    return pl.DataFrame(rows, schema={"run": pl.String, "bank": pl.Float64}).lazy()


def breakdown(runs: Runs) -> dict:
    """The per-bot document: ``{"bots": [...], "notes": [...]}``, bots by name (see ``bot_doc``)."""
    partial = partial_deal_sets(runs)
    rounds, matches = _kept(runs.rounds, partial), _kept(runs.matches, partial)
    cols = _columns(runs)
    points = dict(get_game(runs.game).penalty_points or {})
    frames = pl.collect_all([q for q in (_round_query(rounds, cols, points), _other_rounds(rounds),
                                         _match_query(matches, _banks(runs)), _fault_kinds(matches),
                                         _opening_query(rounds, cols)) if q is not None])
    per_round, other, per_match, kinds = frames[:4]
    openings = frames[4] if len(frames) > 4 else None
    bots = sorted(set(per_match["bot"].to_list()) | set(per_round["bot"].to_list()))
    notes = [n for n in (partial_note(partial),) if n]
    if per_match["timed"].sum() < per_match["matches"].sum():
        notes.append("decisions, refusals and times are recorded from schema version 2 on: runs written before "
                     "count none")
    return {"game": runs.game, "confidence": CONFIDENCE, "columns": cols, "notes": notes,
            "bots": [bot_doc(b, per_round, other, per_match, kinds, openings, cols, points) for b in bots]}


def _mine(frame: pl.DataFrame | None, bot: str) -> pl.DataFrame:
    if frame is None:
        return pl.DataFrame()
    mine = frame.filter(pl.col("bot") == bot)
    keys = [c for c in UNIT if c in frame.columns]
    return mine.sort(keys) if keys else mine


def _sum(frame: pl.DataFrame, col: str):
    if frame.height == 0 or col not in frame.columns:
        return 0
    value = frame[col].sum()
    return value if value is not None else 0


def bot_doc(bot: str, per_round, other, per_match, kinds, openings, cols: dict, points: dict) -> dict:
    """One bot's figures (see the module's docstring)."""
    r, m = _mine(per_round, bot), _mine(per_match, bot)
    rounds = int(_sum(r, "rounds"))
    k = lambda col: r[col].to_numpy() if r.height else np.zeros(0)  # noqa: E731  (per deal set)
    doc = {"bot": bot, "rounds": rounds, "won": _rate(k("won"), k("rounds")) if rounds else None,
           "won_by": {x: int(_sum(r, f"finish_{x}")) for x in cols["finish"]},
           "opened": _rate(k("opened"), k("rounds")) if rounds and cols["opened"] else None,
           "openings": _openings(_mine(openings, bot)),
           "points": _points(r, rounds, cols),
           "penalties": {p: {"count": int(_sum(r, f"pen_{p}")), "rounds": int(_sum(r, f"pen_{p}_rounds")),
                             "points": int(_sum(r, f"pen_{p}")) * points.get(p, 0)} for p in cols["pen"]},
           **_other(_mine(other, bot)), **_matches_doc(m, _mine(kinds, bot))}
    return doc


def _other(o: pl.DataFrame) -> dict:
    return {"stand_in_rounds": int(_sum(o, "stand_in")), "void_rounds": int(_sum(o, "void"))}


def _openings(o: pl.DataFrame) -> dict:
    out = {}
    for row in o.sort("open_method").iter_rows(named=True) if o.height else []:
        out[row["open_method"]] = {"count": int(row["count"]), "mean_turn": row.get("mean_turn"),
                                   "median_turn": row.get("median_turn"), "first_turn": row.get("first_turn")}
    return out


def _points(r: pl.DataFrame, rounds: int, cols: dict) -> dict:
    score = int(_sum(r, "score"))
    out = {"total": score, "per_round": score / rounds if rounds else None, "won": int(_sum(r, "won_points")),
           "penalties": int(_sum(r, "penalty_points"))}
    if cols["opened"]:
        out["unopened"] = int(_sum(r, "unopened_points"))
        out["opened"] = int(_sum(r, "opened_points"))
        if cols["left"]:
            out["left_in_hand"] = int(_sum(r, "left_in_hand"))
    return out


def _matches_doc(m: pl.DataFrame, kinds: pl.DataFrame) -> dict:
    n = int(_sum(m, "matches"))
    clean = int(_sum(m, "clean"))
    out = {"matches": n,
           "faults": {**(_rate(m["faulty"].to_numpy(), m["matches"].to_numpy()) if n else {"k": 0, "n": 0}),
                      "kinds": {row["termination"]: int(row["count"]) for row in kinds.sort("termination").iter_rows(named=True)}
                      if kinds.height else {}},
           "mean_total": _sum(m, "clean_total") / clean if clean else None, "clean_matches": clean,
           "refusals": None, "time": None}
    timed = int(_sum(m, "timed"))
    if timed:
        t = m.filter(pl.col("timed") > 0)
        decisions = int(_sum(t, "decisions"))
        out["refusals"] = {**_rate(t["refusals"].to_numpy(), t["decisions"].to_numpy()), "matches": timed} \
            if decisions else {"k": 0, "n": 0, "matches": timed}
        out["time"] = _time(t, decisions, timed)
    return out


def _time(t: pl.DataFrame, decisions: int, timed: int) -> dict:
    bins = [int(_sum(t, c)) for c in TIME_BIN_COLUMNS]
    clocked = int(_sum(t, "clocked"))
    return {"matches": timed, "decisions": decisions, "bins": bins,
            "mean": _sum(t, "time_sum") / decisions if decisions else None,
            "median": bin_quantile(bins, 0.5), "p90": bin_quantile(bins, 0.9),
            "max": t["time_max"].max() if decisions else None,
            "bank_left_min": t["bank_left"].min(),
            "bank_used_mean": _sum(t, "bank_used_sum") / clocked if clocked else None,
            "bank_used_max": t["bank_used_max"].max() if clocked else None}



__all__ = ["CONFIDENCE", "bin_quantile", "bin_range", "bot_doc", "breakdown"]
