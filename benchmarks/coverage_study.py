"""The coverage study of rating intervals (results/coverage.py), in full: every cell of deal sets ×
share of deal sets mirrored × edge, 1,000 simulated runs each, and the 4-player design with copies.
``python -m benchmarks.coverage_study`` prints the table of docs/analysis.md; ``make bench`` prints
it after the speed figures. ``--prior 0`` shows the plain sandwich for comparison."""

from __future__ import annotations

import argparse
import json

from rich.console import Console
from rich.table import Table

from results.coverage import DEAL_SETS, MIRRORED, study
from results.sandwich import PRIOR_DEAL_SETS

AIM = 0.93  # every cell at least this


def coverage_table(rows: list[dict], prior: float) -> Table:
    table = Table(title=f"Coverage of 95% rating intervals (prior {prior:g} deal sets; "
                        f"{rows[0]['simulations']} runs a cell; aim: every cell ≥ {AIM:.0%})")
    table.add_column("design")
    table.add_column("edge (Elo)", justify="right")
    table.add_column("deal sets", justify="right")
    for m in MIRRORED:
        table.add_column(f"{m:.0%} mirrored", justify="right")
    keys = list(dict.fromkeys((r["design"], r["elo"], r["deal_sets"]) for r in rows))
    for design, elo, g in keys:
        mine = {r["mirrored"]: r for r in rows if (r["design"], r["elo"], r["deal_sets"]) == (design, elo, g)}
        cells = []
        for m in MIRRORED:
            r = mine.get(m)
            cells.append("" if r is None else f"{r['coverage']:.1%} (±{r['median_width'] / 2:.0f})"
                         + (" zero width!" if r["zero_width"] else ""))
        table.add_row(design, f"{elo:g}", str(g), *cells)
    worst = min(r["coverage"] for r in rows)
    table.caption = (f"worst cell {worst:.1%}; in brackets the median half-width of the interval (Elo); "
                     f"deal sets {', '.join(map(str, DEAL_SETS))}")
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--simulations", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--prior", type=float, default=PRIOR_DEAL_SETS)
    parser.add_argument("--json", help="also write the rows to this file")
    args = parser.parse_args()
    rows = study(args.simulations, args.seed, prior=args.prior)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    Console().print(coverage_table(rows, args.prior))


if __name__ == "__main__":
    main()
