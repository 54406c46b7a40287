"""The strength-versus-budget plot of docs/bots.md from ``benchmarks.paired`` results.

    nice -n 10 .venv/bin/python -m benchmarks.budget_plot POINTS.jsonl docs/mc_budget.png
    .venv/bin/python -m benchmarks.budget_plot benchmarks/vbot_budget_points.jsonl docs/vbot_budget.png vbot

POINTS.jsonl holds one ``benchmarks.paired`` result a line (its printed dict as JSON); the plot shows
each budget's mean paired round-score difference against greedy with its 95% interval (below 0 is
better than greedy)."""

from __future__ import annotations

import json
import re
import sys


def plot(points: list, out: str, bot: str = "mc") -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    points = sorted(points, key=lambda p: p["worlds"])
    xs = [p["worlds"] for p in points]
    ys = [p["diff"] for p in points]
    err = [1.96 * p["se"] for p in points]
    fig, ax = plt.subplots(figsize=(6, 3.6))
    ax.axhline(0, color="grey", lw=1, ls="--", label="greedy")
    ax.errorbar(xs, ys, yerr=err, fmt="o-", capsize=4, label=f"{bot} (95% interval)")
    for p in points:
        ax.annotate(f"{p['deals']} deals", (p["worlds"], p["diff"]), textcoords="offset points", xytext=(6, 6), fontsize=8)
    ax.set_xscale("log", base=2)
    ax.set_xticks(xs, [str(x) for x in xs])
    ax.set_xlabel("worlds per decision")
    ax.set_ylabel("round score minus greedy's (lower is better)")
    ax.set_title(f"{bot} against three greedy, 4 players, paired on duplicate deals", fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def read(path: str) -> list:
    out = []
    for line in open(path):
        if line.strip():
            p = json.loads(line)
            found = re.search(r"worlds=(\d+)", p["bot"])
            p["worlds"] = int(found.group(1)) if found else 16
            out.append(p)
    return out


if __name__ == "__main__":
    plot(read(sys.argv[1]), sys.argv[2], *sys.argv[3:4])
