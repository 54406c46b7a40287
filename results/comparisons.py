"""Paired comparisons of rules variants on the same deals: which pairs, which metrics, which family.

A sweep plays every variant on the same deal seeds, so two variants are compared on the deal sets
(``run``, ``deal_set``) both played. Every metric is a ratio of counts summed over deal sets
(``unit_counts``): the win rate of a position (wins / rounds with a winner), the void rate (void rounds
/ rounds), the mean round length (turns / rounds), ... Each variant's figure is the pooled ratio,
the same number its own tables show (one estimate per quantity), and the difference b − a gets the
cluster-robust paired interval and t test over deal sets (``results.stats.paired_ratio``).

Which pairs: the ones asked for (``--compare A:B``, variants named by their differing fields,
``threshold=71:threshold=101``), or each variant against ``--baseline``; otherwise every pair when
there are at most ``ALL_PAIRS_UP_TO`` variants, else each against the first, with a note.

Families: the **primary** metrics (the win rate of each position, the void rate, the round length)
of the compared pairs are the confirmatory family, adjusted by Holm (Benjamini–Hochberg with
``exploratory``); every other metric is **exploratory**, adjusted by Benjamini–Hochberg among
themselves and marked so. A difference without spread over deal sets is no test and stays out of
both families, and so does a metric whose counts are those of another in every deal set (under
``exhausted = "void"`` every exhausted round is void: one quantity, one verdict; ``same_as`` names
the other). The match-level figures (turns and deals per match, the winner's margin: ``MATCH``)
are a family of their own, adjusted by Holm among themselves. With two positions the second position's win rate is one minus the first's, so
only the first is compared.
"""

from __future__ import annotations

import itertools
import json
import math

import polars as pl

from .stats import NAN, adjust, paired_ratio, tost_t

UNIT = ["run", "deal_set"]
CELL = ["variant", *UNIT]
ALL_PAIRS_UP_TO = 4
PRIMARY = "primary"
EXPLORATORY = "exploratory"
MATCH = "match"  # per match: turns, deals, the winner's margin; adjusted by Holm among themselves


class CompareError(ValueError):
    """A comparison that names no variant, or several: one line."""


# Counts per deal set -----------------------------------------------------------------------------


def unit_counts(data: dict, sec) -> tuple[pl.DataFrame, list[tuple[str, str]]]:
    """(one row per (variant, run, deal_set) with ``<metric>__k`` and ``<metric>__n`` for each metric,
    [(metric, family)] in report order). ``data``: the collected queries of ``results.balance``."""
    cells = data["cells"]
    base = cells.group_by(CELL).agg(
        pl.col("seat_rounds").filter(pl.col("position") == 1).sum().alias("rounds"),
        pl.col("played").filter(pl.col("position") == 1).sum().alias("played_rounds"),
        pl.col("decided").filter(pl.col("position") == 1).sum().alias("decided_rounds"),
        pl.col("seat_rounds").sum().alias("seat_rounds_all"),
        *[pl.col(f"pen_{r}").sum() for r in sec.penalties])
    positions = sorted(cells["position"].unique().to_list())
    shown = positions[:1] if len(positions) == 2 else positions
    for p in shown:
        mine = cells.filter(pl.col("position") == p).select(
            *CELL, pl.col("wins").alias(f"win_p{p}__k"), pl.col("decided").alias(f"win_p{p}__n"))
        base = base.join(mine, on=CELL, how="left")
    turns = data["turns"].group_by(CELL).agg((pl.col("turns") * pl.col("count")).sum().alias("turns__k"))
    out = base.join(turns, on=CELL, how="left").with_columns(
        (pl.col("rounds") - pl.col("played_rounds")).alias("void__k"), pl.col("rounds").alias("void__n"),
        pl.col("rounds").alias("turns__n"),
        *[pl.col(f"pen_{r}").alias(f"pen_{r}__k") for r in sec.penalties],
        *[pl.col("seat_rounds_all").alias(f"pen_{r}__n") for r in sec.penalties])
    metrics = [(f"win_p{p}", PRIMARY) for p in shown] + [("void", PRIMARY), ("turns", PRIMARY)]
    if sec.end:
        ex = data["ends"].filter(pl.col("end") == "exhausted").select(*CELL, pl.col("count").alias("exhausted__k"))
        out = out.join(ex, on=CELL, how="left").with_columns(pl.col("rounds").alias("exhausted__n"))
        metrics.append(("exhausted", EXPLORATORY))
    if sec.finish:
        out = out.join(data["finish"].rename({f"finish_{x}": f"finish_{x}__k" for x in sec.finish}), on=CELL,
                       how="left").with_columns(*[pl.col("decided_rounds").alias(f"finish_{x}__n") for x in sec.finish])
        metrics += [(f"finish_{x}", EXPLORATORY) for x in sec.finish]
    if sec.open_method:
        for method in sorted(data["open_method"]["open_method"].unique().to_list()):
            part = data["open_method"].filter(pl.col("open_method") == method).select(
                *CELL, pl.col("count").alias(f"open_{method}__k"))
            out = out.join(part, on=CELL, how="left").with_columns(pl.col("seat_rounds_all").alias(f"open_{method}__n"))
            metrics.append((f"open_{method}", EXPLORATORY))
    metrics += [(f"pen_{r}", EXPLORATORY) for r in sec.penalties]
    per = data["per_match"].select(*CELL, pl.col("matches").alias("_m"),
                                   *[pl.col(c).alias(f"match_{c}__k") for c in ("deals", "turns", "margin")])
    out = out.join(per, on=CELL, how="left").with_columns(
        *[pl.col("_m").alias(f"match_{c}__n") for c in ("deals", "turns", "margin")]).drop("_m")
    metrics += [(f"match_{c}", MATCH) for c in ("turns", "deals", "margin")]
    counts = [c for c in out.columns if c.endswith(("__k", "__n"))]
    return out.with_columns(*[pl.col(c).fill_null(0).cast(pl.Float64) for c in counts]).sort(CELL), metrics


# Which pairs ---------------------------------------------------------------------------------------


def _value_text(value) -> str:
    return json.dumps(value) if isinstance(value, bool) or value is None else str(value)


def resolve(name: str, order: list[str], rules: dict, labels: dict) -> str:
    """The variant ``name`` means: its id, its label, or ``FIELD=VALUE[,FIELD=VALUE]`` matching exactly
    one variant's rules (or its planned fields). Raises CompareError."""
    name = name.strip()
    if name in order:
        return name
    hits = [v for v in order if labels.get(v) == name]
    if not hits:
        wanted = []
        for part in name.split(","):
            field, sep, value = part.partition("=")
            if not sep:
                raise CompareError(f"--compare/--baseline {name!r}: name a variant as FIELD=VALUE "
                                   f"(variants: {'; '.join(labels[v] for v in order)})")
            wanted.append((field.strip(), value.strip()))
        hits = [v for v in order if all(f in rules[v] and _value_text(rules[v][f]) == x for f, x in wanted)]
    if len(hits) == 1:
        return hits[0]
    said = "no variant" if not hits else f"{len(hits)} variants ({'; '.join(labels[v] for v in hits)})"
    raise CompareError(f"{name!r} names {said}; variants: {'; '.join(labels[v] for v in order)}")


def choose_pairs(order: list[str], rules: dict, labels: dict, asked=None, baseline: str | None = None):
    """(pairs (a, b), a note saying how they were chosen). ``asked``: ["A:B", ...]."""
    if asked:
        pairs = []
        for text in asked:
            left, sep, right = text.partition(":")
            if not sep or not left.strip() or not right.strip():
                raise CompareError(f"--compare {text!r}: expected A:B, e.g. threshold=71:threshold=101")
            a, b = resolve(left, order, rules, labels), resolve(right, order, rules, labels)
            if a == b:
                raise CompareError(f"--compare {text!r}: both sides name the same variant")
            if (a, b) not in pairs:
                pairs.append((a, b))
        return pairs, f"the {len(pairs)} comparison(s) asked for"
    if baseline is not None:
        base = resolve(baseline, order, rules, labels)
        return [(base, v) for v in order if v != base], f"each variant against the baseline {labels[base]}"
    if len(order) <= ALL_PAIRS_UP_TO:
        return list(itertools.combinations(order, 2)), "every pair of variants"
    return ([(order[0], v) for v in order[1:]],
            f"{len(order)} variants: each against the first ({labels[order[0]]}); choose others with "
            "--baseline VARIANT or --compare A:B")


# The comparisons -----------------------------------------------------------------------------------


def compare(frame: pl.DataFrame, pairs: list, metrics: list, correction: str = "holm", margin: dict | None = None,
            confidence: float = 0.95, extra=()) -> list[dict]:
    """One row per (pair, metric): the pooled rates of a and b, b − a with its interval over the deal
    sets both played, p, and p adjusted within the row's family (see the module's docstring);
    ``margin`` (metric -> M) adds the TOST equivalence p-value, adjusted alike. ``extra``: rows of the same
    shape computed elsewhere (a skill study's skill × variant rows, results/skill.py) that join their family."""
    margin = margin or {}
    alpha = 1 - confidence
    rows = []
    for a, b in pairs:
        cols = [c for m, _ in metrics for c in (f"{m}__k", f"{m}__n")]
        left = frame.filter(pl.col("variant") == a).select(*UNIT, *cols)
        right = frame.filter(pl.col("variant") == b).select(*UNIT, *cols)
        both = left.join(right, on=UNIT, how="inner", suffix="__b").sort(UNIT)
        if both.height == 0:
            continue
        seen: dict = {}  # the counts of a metric -> its name: a second metric with the same counts is the same figure
        for m, family in metrics:
            ka, na = both[f"{m}__k"].to_numpy(), both[f"{m}__n"].to_numpy()
            kb, nb = both[f"{m}__k__b"].to_numpy(), both[f"{m}__n__b"].to_numpy()
            if na.sum() <= 0 or nb.sum() <= 0:
                continue
            res = paired_ratio(ka, na, kb, nb, confidence)
            equiv = tost_t(res.diff, res.se, res.n - 1, margin[m]) if m in margin else NAN
            counts = tuple(x.tobytes() for x in (ka, na, kb, nb))
            same = seen.get(counts) if ka.sum() + kb.sum() > 0 else None  # two quantities that never occur differ
            rows.append({"a": a, "b": b, "metric": m, "family": family, "n": res.n, "mean_a": res.mean_a,
                         "mean_b": res.mean_b, "diff": res.diff, "lo": res.lo, "hi": res.hi, "p": res.p,
                         "margin": margin.get(m), "p_equiv": equiv, "same_as": same})
            seen.setdefault(counts, m)
    rows += [dict(r) for r in extra]
    for family, method in ((PRIMARY, correction), (EXPLORATORY, "bh"), (MATCH, "holm")):
        mine = [r for r in rows if r["family"] == family]
        tested = [r for r in mine if not math.isnan(r["p"]) and r["lo"] != r["hi"]  # no spread: no test
                  and r["same_as"] is None]  # the same figure as another metric: tested once
        p_adj = adjust([r["p"] for r in tested], method) if tested else []
        eq_adj = adjust([r["p_equiv"] for r in tested], method) if tested else []
        for r, p, e in zip(tested, p_adj, eq_adj):
            r["p_adj"], r["p_equiv"], r["family_size"] = float(p), float(e), len(tested)
        done = {id(r) for r in tested}
        for r in mine:
            if id(r) not in done:  # the same in every deal set: 1 when it is 0, else no test
                r["p_adj"], r["p_equiv"] = (1.0 if r["p"] == 1.0 else NAN), NAN
            r["significant"] = None if math.isnan(r["p_adj"]) else bool(r["p_adj"] < alpha)
            r["p_equiv"] = None if math.isnan(r["p_equiv"]) else r["p_equiv"]
            r["equivalent"] = None if r["p_equiv"] is None else bool(r["p_equiv"] < alpha)
    return rows


__all__ = ["ALL_PAIRS_UP_TO", "CompareError", "EXPLORATORY", "MATCH", "PRIMARY", "choose_pairs", "compare", "resolve",
           "unit_counts"]
