"""Several bots on the same one-round deals, each at seat ``deal % players`` against greedy, in process:
one JSON line per deal and bot (its round score, whether it went out, its decision times), so that
any two bots (greedy included) compare paired by deal. A development tool: the project's ratings give
the figures of record.

    nice -n 19 .venv/bin/python -m benchmarks.paired_many OUT.jsonl 400 4 0 greedy vgreedy vbot
    nice -n 19 .venv/bin/python -m benchmarks.paired_many OUT.jsonl 400 4 0 vgreedy@other-weights.json
    nice -n 19 .venv/bin/python -m benchmarks.paired_many OUT.jsonl 400 4 0 greedy vgreedy --threshold=101
    .venv/bin/python -m benchmarks.paired_many --summary OUT.jsonl

A run appends to OUT.jsonl and skips the (deal, bot) lines already there: it resumes.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

from bots import builtin_bots, make_bot, parse_builtin
from bots.value.model import load
from engine import make_rules

from .paired import play_round


def make(name: str, seed):
    """A built-in bot, or ``NAME[:PARAMS]@WEIGHTS.json``: a value bot with other weights (development)."""
    if "@" not in name:
        return make_bot(name, seed)
    spec, _, path = name.partition("@")
    base, params = parse_builtin(spec)
    return builtin_bots()[base](seed, value=_value(path), **params)


def _value(path: str):
    if path not in _VALUES:
        _VALUES[path] = load(path)
    return _VALUES[path]


_VALUES: dict = {}


def run(out: Path, deals: int, players: int, first: int, names: list, threshold: int = 51, make=make) -> None:
    """``make(name, seed)`` builds each bot (another benchmark may pass its own, as benchmarks/bound.py does)."""
    rules = make_rules("standard", {"players": players, "rounds": 1, "threshold": threshold})
    done = set()
    if out.exists():
        for line in out.read_text().splitlines():
            r = json.loads(line)
            done.add((r["deal"], r["bot"]))
    with out.open("a") as f:
        for deal in range(first, first + deals):
            seat = deal % players
            for name in names:
                if (deal, name) in done:
                    continue
                seats = ["greedy"] * players
                seats[seat] = name
                scores, times = play_round(rules, deal, seats, "b", timed=seat, make=make)
                won = scores[seat] == min(scores) and scores[seat] < 0
                f.write(json.dumps({"deal": deal, "bot": name, "score": scores[seat], "won": won,
                                    "times": [round(t, 5) for t in times]}) + "\n")
                f.flush()


def summary(out: Path) -> dict:
    by = {}
    for line in out.read_text().splitlines():
        r = json.loads(line)
        by.setdefault(r["bot"], {})[r["deal"]] = r
    names = sorted(by)
    report = {}
    for a in names:
        times = sorted(t for r in by[a].values() for t in r["times"])
        report[a] = {"deals": len(by[a]), "wins": round(sum(r["won"] for r in by[a].values()) / len(by[a]), 3),
                     "median_s": times[len(times) // 2] if times else 0,
                     "p90_s": times[int(len(times) * 0.9)] if times else 0}
        for b in names:
            if a >= b:
                continue
            common = sorted(set(by[a]) & set(by[b]))
            if len(common) < 2:
                continue
            d = [by[a][k]["score"] - by[b][k]["score"] for k in common]
            mean = sum(d) / len(d)
            sd = math.sqrt(sum((x - mean) ** 2 for x in d) / (len(d) - 1))
            report[f"{a} - {b}"] = {"deals": len(d), "diff": round(mean, 2), "se": round(sd / math.sqrt(len(d)), 2)}
    return report


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[0] == "--summary":
        print(json.dumps(summary(Path(args[1])), indent=1))
    else:
        flags = [a for a in args if a.startswith("--threshold=")]
        args = [a for a in args if a not in flags]
        threshold = int(flags[0].split("=")[1]) if flags else 51
        run(Path(args[0]), int(args[1]), int(args[2]), int(args[3]), args[4:], threshold)
