"""`make bench`'s balance figure reads a synthetic run folder: its rows must fit the schema of today's
runs (it broke when the schema gained `bot`, `stand_in` and the play columns), and `balance` must read it."""

from __future__ import annotations

import pyarrow.parquet as pq

from benchmarks import balance_bench
from results.balance import balance
from results.runs import open_runs
from results.schema import PLAY_COLUMNS


def test_the_benchmarks_synthetic_run_fits_the_schema_and_balance_reads_it(tmp_path, monkeypatch):
    monkeypatch.setattr(balance_bench, "DEAL_SETS", 3)
    monkeypatch.setattr(balance_bench, "ROUNDS", 4)
    run = balance_bench.write_run(tmp_path)
    rounds = pq.read_table(run / "rounds" / "p.parquet")
    assert rounds.num_rows == 2 * 3 * balance_bench.MATCHES * 4 * balance_bench.PLAYERS
    assert {"bot", "stand_in"} <= set(rounds.column_names)
    matches = pq.read_table(run / "matches" / "p.parquet")
    assert {name for name, _, _ in PLAY_COLUMNS} <= set(matches.column_names)
    out = balance(open_runs([run]))
    assert len(out["variants"]) == 2
