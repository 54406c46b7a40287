"""How the game plays at each skill level: the control tables of a skill study (every seat one bot,
``results.skill``), one level per bot.

- ``first_player``: the share of the rounds with a winner that position 1 (the first to play) wins,
  with its deal-set interval, and the edge over an even share in points;
- ``decisiveness``: for each round k, the share of matches whose leader after round k (alone in the
  lead) won the match; one minus it is the comeback curve;
- ``closeness``: lead changes a match and the winner's margin (``results.per_match``), means with
  deal-set intervals;
- ``survival``: the Kaplan–Meier curve of round length in turns, a round that someone went out of
  being the event and a void round censored at its length (it ended without a winner), and the
  log-rank test of two curves (scipy.stats: ``ecdf`` with ``CensoredData``, ``logrank`` from 1.12).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from .per_match import per_match, round_totals
from .stats import NAN, cluster_mean, cluster_rate

UNIT = ["run", "deal_set"]


def controls(rounds: pl.LazyFrame) -> pl.LazyFrame:
    """The rounds of tables where one bot holds every seat, with that bot as ``level``."""
    one = (rounds.group_by("run", "match_id").agg(pl.col("bot").n_unique().alias("_kinds"), pl.col("bot").first().alias("level"))
           .filter(pl.col("_kinds") == 1).drop("_kinds"))
    return rounds.join(one, on=["run", "match_id"], how="inner")


def _per_unit(frame: pl.DataFrame, units: pl.DataFrame, value: str) -> np.ndarray:
    return units.join(frame, on=UNIT, how="left").sort(UNIT)[value].fill_null(0).cast(pl.Float64).to_numpy()


def first_player(ctrl: pl.DataFrame, players: int, confidence: float = 0.95) -> dict:
    """Position 1's share of the rounds with a winner (``rate``, ``lo``, ``hi``) and ``edge``: the
    share minus 1/players, in points."""
    decided = ctrl.filter(~pl.col("void")).with_columns(
        pl.col("won").any().over("run", "match_id", "round_index").alias("_decided")).filter(pl.col("_decided"))
    first = decided.filter(pl.col("position") == 1).group_by(UNIT).agg(
        pl.col("won").cast(pl.Int64).sum().alias("k"), pl.len().alias("n"))
    units = first.select(UNIT).sort(UNIT)
    r = cluster_rate(_per_unit(first, units, "k"), _per_unit(first, units, "n"), confidence)
    even = 100 / players
    return {"rate": r.rate, "lo": r.lo, "hi": r.hi, "edge": 100 * r.rate - even,
            "edge_lo": 100 * r.lo - even, "edge_hi": 100 * r.hi - even, "rounds": int(r.n) if r.n == r.n else 0}


def decisiveness(rounds: pl.LazyFrame, matches: pl.LazyFrame, low: bool = True) -> list[dict]:
    """For each round k (0-based index of dealt rounds): matches with one leader after it, and the
    share of them that leader won (``rate``); the comeback rate is one minus it."""
    totals = round_totals(rounds)
    best = pl.col("total").min() if low else pl.col("total").max()
    leaders = (totals.group_by("run", "match_id", "round_index")
               .agg(pl.col("seat").filter(pl.col("total") == best).alias("leaders")))
    winners = matches.group_by("run", "match_id").agg(pl.col("seat").filter(pl.col("rank") == 1).alias("winners"))
    per = (leaders.filter(pl.col("leaders").list.len() == 1).join(winners, on=["run", "match_id"], how="inner")
           .with_columns(pl.col("winners").list.contains(pl.col("leaders").list.first()).alias("held"))
           .group_by("round_index").agg(pl.len().alias("matches"), pl.col("held").sum().alias("held"))
           .sort("round_index").collect())
    return [{"round": int(k), "matches": int(n), "rate": h / n if n else NAN, "comeback": 1 - h / n if n else NAN}
            for k, n, h in per.select("round_index", "matches", "held").iter_rows()]


def closeness(rounds: pl.LazyFrame, matches: pl.LazyFrame, low: bool = True, confidence: float = 0.95) -> dict:
    """Lead changes a match and the winner's margin (points), each a mean with its deal-set interval."""
    frame = per_match(rounds, matches, low).collect()
    out = {}
    by_unit = frame.group_by(UNIT).agg(pl.len().alias("n"), *[x for c in ("lead_changes", "margin") for x in (
        pl.col(c).cast(pl.Float64).sum().alias(c), (pl.col(c).cast(pl.Float64) ** 2).sum().alias(f"{c}__sq"))]).sort(UNIT)
    for c in ("lead_changes", "margin"):
        m = cluster_mean(by_unit[c].to_numpy(), by_unit["n"].to_numpy(), by_unit[f"{c}__sq"].to_numpy(), confidence,
                         floor=0.0)
        out[c] = {"mean": m.mean, "lo": m.lo, "hi": m.hi}
    return out


def round_lengths(ctrl: pl.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """(turns of every dealt round, whether it ended with a winner): one row per round."""
    one = ctrl.filter(pl.col("position") == 1)
    return one["turns"].cast(pl.Float64).to_numpy(), (~one["void"]).to_numpy()


def survival(turns: np.ndarray, ended: np.ndarray, at=(10, 20, 30, 40, 60)) -> dict:
    """Kaplan–Meier: the chance a round is still going after t turns (void rounds censored), at ``at``
    and its median (None when more than half the rounds never end with a winner)."""
    from scipy import stats

    if len(turns) == 0 or not ended.any():
        return {"median": None, "curve": [[int(t), 1.0] for t in at] if len(turns) else [], "steps": [],
                "rounds": int(len(turns)), "censored": int((~ended).sum())}
    data = stats.CensoredData(uncensored=turns[ended], right=turns[~ended])
    sf = stats.ecdf(data).sf
    curve = [[int(t), float(sf.evaluate(t))] for t in at]
    below = sf.quantiles[sf.probabilities <= 0.5]
    steps = [[float(t), float(p)] for t, p in zip(sf.quantiles, sf.probabilities)]  # the whole curve, for the plot
    return {"median": float(below[0]) if len(below) else None, "curve": curve, "steps": steps,
            "rounds": int(len(turns)), "censored": int((~ended).sum())}


def logrank(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> float:
    """The log-rank test's p-value that two round-length curves (turns, ended) are the same."""
    from scipy import stats

    if len(a[0]) == 0 or len(b[0]) == 0 or not (a[1].any() or b[1].any()):
        return NAN
    x = stats.CensoredData(uncensored=a[0][a[1]], right=a[0][~a[1]])
    y = stats.CensoredData(uncensored=b[0][b[1]], right=b[0][~b[1]])
    return float(stats.logrank(x, y).pvalue)


def levels(rounds: pl.LazyFrame, matches: pl.LazyFrame, variant: str, players: int, low: bool = True,
           confidence: float = 0.95) -> list[dict]:
    """Per skill level (the bot of a control table) of one variant: first player, decisiveness,
    closeness, survival; most rounds first."""
    ctrl = controls(rounds.filter(pl.col("variant") == variant))
    frame = ctrl.collect()
    out = []
    for level in sorted(frame["level"].unique().to_list()):
        mine = frame.filter(pl.col("level") == level)
        ids = mine.select("run", "match_id").unique()
        lazy_rounds = mine.drop("level").lazy()
        lazy_matches = matches.join(ids.lazy(), on=["run", "match_id"], how="inner")
        out.append({"level": level, "first_player": first_player(mine, players, confidence),
                    "decisiveness": decisiveness(lazy_rounds, lazy_matches, low),
                    **closeness(lazy_rounds, lazy_matches, low, confidence),
                    "survival": survival(*round_lengths(mine)), "_lengths": round_lengths(mine)})
    return out


__all__ = ["closeness", "controls", "decisiveness", "first_player", "levels", "logrank", "round_lengths", "survival"]
