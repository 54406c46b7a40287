"""How many deal sets an SPRT takes for a given Elo difference (the table in docs/analysis.md).

Not a speed benchmark: ``python -m benchmarks.sprt_duration`` simulates tests of two players, each
deal set two matches with the seats swapped, each match won with the expected score of the true
difference (no ties), elo0 = 0 and alpha = beta = 0.05, and prints the median and 90th percentile of
the deal sets each test needed, under H0 (a true difference of 0) and under H1 (elo1). Seed 1.
"""

from __future__ import annotations

import numpy as np

from results.sprt import expected_score, first_decision


def durations(elo1: float, true: float, tests: int, cap: int, rng) -> list:
    p = expected_score(true)
    out = []
    for _ in range(tests):
        scores = rng.binomial(2, p, size=cap) / 2.0
        d = first_decision(scores, 0.0, float(elo1), 0.05, 0.05)
        out.append(d if d is not None else cap)
    return out


def main() -> None:
    rng = np.random.default_rng(1)
    print("elo1  H0: median, p90   H1: median, p90   (deal sets)")
    for elo1 in (5, 10, 20, 50, 100):
        small = elo1 <= 10
        cap, tests = (400_000, 100) if small else (100_000, 200)
        cells = []
        for true in (0, elo1):
            n = durations(elo1, true, tests, cap, rng)
            cells.append(f"{int(np.median(n)):>7,} {int(np.percentile(n, 90)):>7,}")
        print(f"{elo1:>4}  {cells[0]}   {cells[1]}")


if __name__ == "__main__":
    main()
