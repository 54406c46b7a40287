"""Matches as a whole: the running totals after each round, and one row per match with how long it
took, how close it ended and how often the lead changed hands.

``round_totals`` gives, for every match, round and seat, the score of the round and the total so far;
``per_match`` one row per match: deals dealt (void ones included), turns, the winner's margin (the
gap between the best and the second-best final total, in points), the totals' spread, how many times
the leader after a round differed from the leader after the round before (``lead_changes``), and
whether the winner was behind at half time (``comeback``: not among the leaders after the first
half of the rounds, for matches of two rounds or more). Which total is better comes from the data:
the final ranks say whether the lowest or the highest total wins (``low_wins``).

The balance tables (results/balance.py) read their match-level figures from ``per_match``, and the
words (results/words.py) say them; a study of skill reads comebacks and lead changes from here.
"""

from __future__ import annotations

import polars as pl

MATCH = ["run", "match_id"]


def low_wins(matches: pl.LazyFrame) -> bool:
    """Whether a lower final total ranks better (Ellibir's penalty points, Einundfünfzig's losses)."""
    corr = matches.select(pl.corr(pl.col("total").cast(pl.Float64), pl.col("rank").cast(pl.Float64))).collect().item()
    return corr is None or not corr < 0


def round_totals(rounds: pl.LazyFrame) -> pl.LazyFrame:
    """One row per match, round and seat: score of the round, ``total`` after it, turns, void."""
    return (rounds.select(*MATCH, "variant", "deal_set", "round_index", "seat", "score", "turns", "void")
            .sort(*MATCH, "seat", "round_index")
            .with_columns(pl.col("score").cast(pl.Int64).fill_null(0).cum_sum().over(*MATCH, "seat").alias("total")))


def _leaders(totals: pl.LazyFrame, low: bool) -> pl.LazyFrame:
    """Per match and round: the seats that lead after it (a sorted list: ties share the lead)."""
    best = pl.col("total").min() if low else pl.col("total").max()
    return (totals.group_by(*MATCH, "round_index")
            .agg(pl.col("seat").filter(pl.col("total") == best).sort().alias("leaders"))
            .sort(*MATCH, "round_index"))


def per_match(rounds: pl.LazyFrame, matches: pl.LazyFrame, low: bool | None = None) -> pl.LazyFrame:
    """One row per match: run, match_id, variant, deal_set, deals, turns, margin, spread, lead_changes,
    comeback (null for a one-round match). ``low``: whether a lower total wins (default: from the data)."""
    if low is None:
        low = low_wins(matches)
    totals = round_totals(rounds)
    leaders = _leaders(totals, low).with_columns(
        (pl.col("leaders") != pl.col("leaders").shift(1).over(MATCH)).fill_null(False).cast(pl.Int32).alias("change"))
    length = (totals.filter(pl.col("seat") == pl.col("seat").min().over(MATCH))
              .group_by(*MATCH).agg(pl.col("variant").first(), pl.col("deal_set").first(), pl.len().alias("deals"),
                                    pl.col("turns").sum().alias("turns")))
    final = (matches.group_by(*MATCH)
             .agg(pl.col("total").sort_by("rank").get(0).alias("first"),
                  pl.col("total").sort_by("rank").get(1).alias("second"),
                  pl.col("total").cast(pl.Float64).std(ddof=0).alias("spread"),
                  pl.col("seat").filter(pl.col("rank") == pl.col("rank").min()).alias("winners"))
             .with_columns((pl.col("second") - pl.col("first")).abs().cast(pl.Float64).alias("margin")))
    changes = leaders.group_by(*MATCH).agg(pl.col("change").sum().alias("lead_changes"),
                                           pl.len().alias("_rounds"),
                                           pl.col("leaders").alias("_leaders"))
    half = (pl.col("_leaders").list.get(((pl.col("_rounds") + 1) // 2 - 1).cast(pl.Int64), null_on_oob=True))
    comeback = pl.when(pl.col("_rounds") >= 2).then(
        pl.col("winners").list.set_intersection(half).list.len() == 0).otherwise(None)
    return (length.join(final, on=MATCH, how="left").join(changes, on=MATCH, how="left")
            .with_columns(comeback.alias("comeback"))
            .select(*MATCH, "variant", "deal_set", "deals", "turns", "margin", "spread", "lead_changes", "comeback")
            .sort(*MATCH))


__all__ = ["low_wins", "per_match", "round_totals"]
