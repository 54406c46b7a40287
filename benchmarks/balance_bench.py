"""The balance tables over 1,000,000 synthetic round rows, against one scan and one group_by of them.

The rows have the ellibir round columns (two variants, 4 players, 1,000 deal sets, 5 matches per
variant and deal set, 25 rounds per match) and are written to Parquet in a temporary run folder
before any timing; the times are the best of three.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

PLAYERS, DEAL_SETS, MATCHES, ROUNDS = 4, 1000, 5, 25


def _rounds(rng, rules_by_variant) -> dict:
    variants = list(rules_by_variant)
    n_rounds = len(variants) * DEAL_SETS * MATCHES * ROUNDS
    v, d, m, i = (a.ravel() for a in np.meshgrid(np.arange(len(variants)), np.arange(DEAL_SETS), np.arange(MATCHES),
                                                 np.arange(ROUNDS), indexing="ij"))
    void = rng.random(n_rounds) < 0.1
    winner = rng.integers(0, PLAYERS, n_rounds)
    turns = rng.integers(8, 60, n_rounds) + 20 * void
    how = rng.random(n_rounds)
    end = np.where(void, "exhausted", np.where(rng.random(n_rounds) < 0.01, "max_turns", "out"))
    r = lambda a: np.repeat(a, PLAYERS)  # noqa: E731  one value per round -> one per seat
    seat = np.tile(np.arange(PLAYERS), n_rounds)
    dealer = r(i % PLAYERS)
    won = (seat == r(winner)) & ~r(void) & (r(end) == "out")
    n = len(seat)
    opened = rng.random(n) < 0.8
    method = np.where(rng.random(n) < 0.05, "pairs", "melds")
    vid = np.array(variants)
    return {
        "game": ["ellibir"] * n, "run": ["bench"] * n,
        "match_id": np.char.add(np.char.add(r(vid[v]), "-"), r(d * MATCHES + m).astype(str)),
        "deal_set": r(d), "variant": r(vid[v]), "round_index": r(i), "round_number": r(np.where(void, 0, i + 1)),
        "seat": seat, "dealer": dealer, "position": (seat - (dealer + 1)) % PLAYERS + 1,
        "score": np.where(won, -51, rng.integers(0, 150, n)), "won": won, "turns": r(turns), "void": r(void),
        "opened": opened, "open_method": pa.array(method, mask=~opened),
        "open_value": pa.array(rng.integers(51, 120, n), pa.int16(), mask=~opened),
        "open_turn": pa.array(rng.integers(1, 30, n), pa.int16(), mask=~opened), "declared": rng.random(n) < 0.1,
        "star": np.zeros(n, bool), "finish_G2": won & r(how < 0.08), "finish_G3": won & r(how > 0.97),
        "finish_G4": won & r((how > 0.5) & (how < 0.53)), "multiplier": np.ones(n, np.int16),
        "pen_O4": np.where(rng.random(n) < 0.01, 50, 0), "pen_A5": np.where(rng.random(n) < 0.005, 50, 0),
        "cards_left": rng.integers(0, 15, n), "left_value": rng.integers(0, 120, n), "end": r(end),
        "bot": ["builtin:greedy"] * n, "stand_in": np.zeros(n, bool),
    }


def _matches(rng, rules_by_variant) -> list[dict]:
    from results.schema import PLAY_COLUMNS, rule_value

    play = {name: None if nullable else 0 for name, _, nullable in PLAY_COLUMNS}  # the figures need none
    rows = []
    for vid, rules in rules_by_variant.items():
        cols = {f"rule_{k}": rule_value(x) for k, x in rules.normalised().items()}
        for d in range(DEAL_SETS):
            for m in range(MATCHES):
                totals = rng.integers(-100, 400, PLAYERS)
                ranks = 1 + np.argsort(np.argsort(totals))
                rows += [{"game": "ellibir", "run": "bench", "match_id": f"{vid}-{d * MATCHES + m}", "deal_set": d,
                          "seat": s, "bot": "builtin:greedy", "bot_version": "0.1.0", "bot_hash": "",
                          "total": int(totals[s]), "rank": int(ranks[s]), "termination": "complete", "faults": 0,
                          "fault_reason": None, "variant": vid, **play, **cols} for s in range(PLAYERS)]
    return rows


def write_run(folder: Path, seed: int = 0) -> Path:
    """A run folder with 1,000,000 synthetic round rows (and their match rows); returns its path."""
    from engine.rules import make_rules
    from results.schema import describe, schemas

    rng = np.random.default_rng(seed)
    rules = [make_rules("standard", {"players": PLAYERS, "threshold": t}) for t in (51, 71)]
    by_variant = {r.variant_id: r for r in rules}
    schema = schemas(rules[0])
    run = folder / "bench"
    for table in ("matches", "rounds"):
        (run / table).mkdir(parents=True)
    pq.write_table(pa.Table.from_pydict(_rounds(rng, by_variant), schema=schema["rounds"]), run / "rounds" / "p.parquet")
    pq.write_table(pa.Table.from_pylist(_matches(rng, by_variant), schema=schema["matches"]),
                   run / "matches" / "p.parquet")
    (run / "schema.json").write_text(json.dumps(describe(rules[0])))
    (run / "run.json").write_text(json.dumps({"game": "ellibir", "variants": [{"id": r.variant_id} for r in rules]}))
    return run


def _best(fn, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def balance_seconds() -> dict:
    """``balance_s``: the whole ``balance`` dict (both variants, their comparison); ``baseline_s``: one
    scan of the rounds and one group_by (wins and rounds by variant and position)."""
    import polars as pl

    from results.balance import balance
    from results.runs import open_runs

    with tempfile.TemporaryDirectory() as tmp:
        run = write_run(Path(tmp))
        rows = pl.scan_parquet(run / "rounds" / "p.parquet").select(pl.len()).collect().item()

        def baseline():
            (pl.scan_parquet(run / "rounds" / "*.parquet").group_by("variant", "position")
             .agg(pl.col("won").sum(), pl.len()).collect())

        balance_s = _best(lambda: balance(open_runs([run])))
        baseline_s = _best(baseline)
    return {"rows": rows, "balance_s": balance_s, "baseline_s": baseline_s}


if __name__ == "__main__":
    print(balance_seconds())
