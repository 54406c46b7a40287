"""The fair design's estimator: a bot's result paired with the control table's on the same deal.

Under the fair design (harness/runs/plan.py ``fair_plan``) no bot meets a deal twice: each deal set's
deal is played once by the bots of a round of tables, and once at a control table where the game's
reference bot holds every seat. For bots A and B at one table, the pairwise outcome x (1 if A ranked
better than B, 1/2 for a tie, 0 if worse) is paired with c, the outcome between the same two seats at
the control table. The luck of the deal moves both alike (on real matches their correlation was
0.72-0.84), so x - c varies less than x. A deal set's **paired score** is

    z = mean over A-B seat pairs and matches of (x - c + 1) / 2,   in [0, 1].

The control holds copies of one bot in every seat, and A's seat cycles over the deal sets, so c has
mean 1/2 over a cycle (for the field as a whole; for one opponent of several at a 3-4-player table,
c also takes out the advantage of where that opponent sits), and z has mean s/2 + 1/4, where s is
A's expected score against B. The deal set is the unit: its tables and its control share a deal.

The sequential test is the SPRT of results/sprt.py on paired scores, each hypothesis's score s
mapped to s/2 + 1/4 (``sprt.paired_elo``): the same multinomial generalised likelihood ratio, bounds
and regularisation (paired scores of two-player tables fall on the same five-point grid). Its
estimate is mapped back. The error rates were checked as the SPRT's were (tests/test_fair_design.py),
on simulated deal sets whose control agrees with the match on a share of the deals.
"""

from __future__ import annotations

import polars as pl

CONTROL = "c"  # the last part of a control match's id: v0-d003-c
UNIT = ["run", "deal_set"]


def control_id(variant: int, deal_set: int, width: int = 1) -> str:
    return f"v{variant}-d{deal_set:0{width}d}-{CONTROL}"


def is_control(match_id: pl.Expr) -> pl.Expr:
    return match_id.str.ends_with(f"-{CONTROL}")


def paired_deal_set_scores(matches: pl.LazyFrame, bot: str, vs: list[str] | None) -> pl.LazyFrame:
    """Per (run, deal set) of a fair run: A's paired score against B (``score``), the matches where A
    and B met (``matches``), and how many matches of the deal set, control included, were not
    complete (``incomplete``). ``vs`` None: B is every bot other than A (the control table aside)."""
    match = ["run", "variant", "deal_set", "match_id"]
    rows = matches.select(*match, "seat", "bot", "rank", "termination")
    played = rows.filter(~is_control(pl.col("match_id")))
    control = rows.filter(is_control(pl.col("match_id"))).select("run", "deal_set", "seat", "rank")
    a = played.filter(pl.col("bot") == bot).select(*match, pl.col("seat").alias("seat_a"), pl.col("rank").alias("rank_a"))
    b_seat = pl.col("bot") != bot if vs is None else pl.col("bot").is_in(vs)
    b = played.filter(b_seat).select(*match, pl.col("seat").alias("seat_b"), pl.col("rank").alias("rank_b"))
    pairs = (a.join(b, on=match, how="inner")
             .join(control.rename({"seat": "seat_a", "rank": "control_a"}), on=["run", "deal_set", "seat_a"])
             .join(control.rename({"seat": "seat_b", "rank": "control_b"}), on=["run", "deal_set", "seat_b"]))
    paired = (_outcome("rank_a", "rank_b") - _outcome("control_a", "control_b") + 1.0) / 2.0
    incomplete = (rows.group_by("run", "deal_set", "match_id").agg((pl.col("termination") != "complete").any().alias("x"))
                  .group_by(UNIT).agg(pl.col("x").sum().alias("incomplete")))
    return (pairs.group_by(match).agg(paired.mean().alias("outcome"))
            .group_by(UNIT).agg(pl.col("outcome").mean().alias("score"), pl.len().alias("matches"))
            .join(incomplete, on=UNIT, how="left")
            .sort(UNIT))


def _outcome(mine: str, theirs: str) -> pl.Expr:
    return pl.when(pl.col(mine) < pl.col(theirs)).then(1.0).when(pl.col(mine) == pl.col(theirs)).then(0.5).otherwise(0.0)


__all__ = ["CONTROL", "control_id", "is_control", "paired_deal_set_scores"]
