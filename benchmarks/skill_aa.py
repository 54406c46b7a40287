"""A/A check of the skill × variant test (issue 29): a variant compared with itself on relabelled deal
sets. Each repeat shuffles the deal sets and calls the first half "a" and the second half "b", paired
in that order, so the two "variants" differ only by chance (pairing a deal set with itself would make
every difference 0, and a permutation of all of them sums to 0): gain_g of one deal set against
gain_g of another, the test of ``results.skill.skill_by_variant`` (the sign-flip test of the paired t,
``results.signflip``; ``method="t"`` for Student's t, as before), on half the deal sets. The share of
repeats in which any rung's difference is significant at 5%, after Holm over the rungs, should be at
most 5%: the sign-flip test is exact here (swapping the two deal sets of a pair is another split as
likely as this one), Student's t only approximately, and how far off depends on the data.

``family`` runs it as ``balance`` decides: the skill rows adjusted with the balance tables' primary
metrics (``aa_family``).

    nice -n 19 .venv/bin/python -m benchmarks.skill_aa RUN_DIR [repeats] [variant] [signflip|t|family] [seed]
    nice -n 19 .venv/bin/python -m benchmarks.skill_aa --simulated normal|lognormal [datasets] [splits] [deal_sets]
"""

from __future__ import annotations

import sys

import numpy as np
import polars as pl

from results import signflip, skill
from results.stats import holm, paired


def aa(pts: pl.DataFrame, variant: str, design, repeats: int = 200, seed: int = 1, method: str = "signflip") -> dict:
    """The share of ``repeats`` in which the variant against itself on relabelled deal sets shows a
    skill × variant difference on some rung (the test of ``skill.skill_by_variant``, Holm over rungs)."""
    rungs = list(zip(design.ladder, design.ladder[1:]))
    _, m = skill.gain_matrix(pts, variant, rungs)
    return aa_matrix(m, repeats, seed, method) | {"variant": variant}


def aa_matrix(m: np.ndarray, repeats: int = 200, seed: int = 1, method: str = "signflip") -> dict:
    """``aa`` on a G × rungs matrix of gain_g: the share of random halvings called different, with its
    binomial standard error."""
    rng = np.random.default_rng(seed)
    half = m.shape[0] // 2
    patterns = signflip.signs(half)
    hits = 0
    for _ in range(repeats):
        order = rng.permutation(m.shape[0])
        a, b = order[:half], order[half:2 * half]
        if method == "t":
            p = [paired(m[a, k], m[b, k]).p for k in range(m.shape[1])]
        else:
            p = [signflip.p_value(m[b, k] - m[a, k], patterns) for k in range(m.shape[1])]
        adjusted = holm(p)
        hits += bool(np.isfinite(adjusted).any() and np.nanmin(adjusted) < 0.05)
    rate = hits / repeats
    return {"method": method, "repeats": repeats, "pairs": half, "rejected": rate,
            "se": (rate * (1 - rate) / repeats) ** 0.5}


def aa_family(runs, variant: str, repeats: int = 200, seed: int = 1) -> dict:
    """The A/A as ``balance`` decides it: each halving's two "variants" compared on every primary metric
    of the balance tables (``results.comparisons.compare``: the positions' win rates, void rounds, turns)
    with the skill × variant rows (the sign-flip p-value) in one family, adjusted by Holm; the share of
    halvings in which some skill row is called different."""
    from results.balance import Sections, _collect, _queries
    from results.comparisons import PRIMARY, compare, unit_counts
    from results.per_match import low_wins
    from results.runs import partial_deal_sets, whole
    from results.skill_balance import design_of

    partial = partial_deal_sets(runs)
    rounds, matches = whole(runs.rounds, partial), whole(runs.matches, partial)
    sec = Sections.of(rounds.collect_schema())
    rule_cols = [c for c in matches.collect_schema().names() if c.startswith("rule_")]
    deals, metrics = unit_counts(_collect(_queries(rounds, matches, sec, rule_cols)), sec)
    primary = [(m, f) for m, f in metrics if f == PRIMARY]
    design = design_of(runs.plans)
    rungs = list(zip(design.ladder, design.ladder[1:]))
    units, m = skill.gain_matrix(skill.points(rounds, design.pairs(), low_wins(matches)), variant, rungs)
    mine = units.with_row_index("row").join(deals.filter(pl.col("variant") == variant), on=skill.UNIT, how="inner")
    rng = np.random.default_rng(seed)
    half = len(mine) // 2
    patterns = signflip.signs(half)
    hits = 0
    for _ in range(repeats):
        order = rng.permutation(len(mine))
        a, b = order[:half], order[half:2 * half]
        frame = pl.concat([mine[a].with_columns(pl.lit("a").alias("variant"), pl.Series("deal_set", range(half))),
                           mine[b].with_columns(pl.lit("b").alias("variant"), pl.Series("deal_set", range(half)))])
        ra, rb = mine["row"].to_numpy()[a], mine["row"].to_numpy()[b]
        extra = []
        for k, (field, challenger) in enumerate(rungs):
            t = paired(m[ra, k], m[rb, k])
            extra.append({"a": "a", "b": "b", "metric": f"skill_gap:{challenger}>{field}", "family": PRIMARY, "n": half,
                          "mean_a": t.mean_a, "mean_b": t.mean_b, "diff": t.diff, "lo": t.lo, "hi": t.hi,
                          "p": signflip.p_value(m[rb, k] - m[ra, k], patterns), "margin": None,
                          "p_equiv": float("nan"), "same_as": None})
        rows = compare(frame.drop("row"), [("a", "b")], primary, "holm", None, 0.95, extra)
        hits += any(r["significant"] for r in rows if r["metric"].startswith("skill_gap:"))
    rate = hits / repeats
    return {"variant": variant, "method": "family", "repeats": repeats, "pairs": half, "rejected": rate,
            "se": (rate * (1 - rate) / repeats) ** 0.5, "family": len(primary) + len(rungs)}


SHAPES = {"normal": lambda rng, g: rng.normal(size=(g, 2)), "lognormal": lambda rng, g: rng.lognormal(0, 1, size=(g, 2))}


def simulated(shape: str, datasets: int = 40, splits: int = 300, deal_sets: int = 30, seed: int = 1) -> dict:
    """``aa_matrix`` on ``datasets`` simulated studies of two rungs (gains of ``shape``), by Student's t and by
    the sign-flip test: the share of all their halvings called different."""
    if shape not in SHAPES:
        raise SystemExit(f"error: unknown shape {shape!r}: one of {', '.join(SHAPES)}")
    out = {}
    for method in ("t", "signflip"):
        rng = np.random.default_rng(seed)
        rates = [aa_matrix(SHAPES[shape](rng, deal_sets), splits, seed + i, method)["rejected"] for i in range(datasets)]
        n = datasets * splits
        out[method] = {"rejected": float(np.mean(rates)), "se": float((np.mean(rates) * (1 - np.mean(rates)) / n) ** 0.5)}
    return {"shape": shape, "datasets": datasets, "splits": splits, "deal_sets": deal_sets, **out}


def main(argv: list[str]) -> None:
    if argv and argv[0] == "--simulated":
        print(simulated(argv[1], *map(int, argv[2:])))
        return
    from results.per_match import low_wins
    from results.runs import open_runs, partial_deal_sets, whole
    from results.skill_balance import design_of

    runs = open_runs([argv[0]])
    design = design_of(runs.plans)
    partial = partial_deal_sets(runs)  # as balance reads a run: the deal sets played whole
    pts = skill.points(whole(runs.rounds, partial), design.pairs(), low_wins(whole(runs.matches, partial)))
    variant = argv[2] if len(argv) > 2 and argv[2] else pts["variant"].unique().sort()[0]
    method = argv[3] if len(argv) > 3 else "signflip"
    repeats = int(argv[1]) if len(argv) > 1 else 200
    seed = int(argv[4]) if len(argv) > 4 else 1
    if method == "family":
        print(aa_family(runs, variant, repeats, seed))
    else:
        print(aa(pts, variant, design, repeats, seed, method))


if __name__ == "__main__":
    main(sys.argv[1:])
