"""The time estimate never plays a run's deals (issue 25, point 2).

Before a run plays, ``tournament run`` (without ``--quiet``) prints an estimate of its duration. It
used to play the plan's first matches with the real bots on the real deals, throw the results away
and play them again in the run: a bot that kept what it drew (by any channel) knew its next stock
draws in the real match. The test counts every match the command plays, pilot and run together, by
its deal and seating: each planned one exactly once, and no planned deal in any other match.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest
from typer.testing import CliRunner

from harness.cli.main import app


def test_the_estimate_plays_no_deal_of_the_run(tmp_path, monkeypatch):
    from harness.runs import distributed

    played, real = [], distributed.play_batch

    def counted(job, batch, packs):
        played.extend((m.deal_seed, tuple(m.seating)) for m in batch)
        return real(job, batch, packs)

    monkeypatch.setattr(distributed, "play_batch", counted)
    run = tmp_path / "run"
    shown = CliRunner().invoke(app, ["tournament", "run", "--executor", "local", "--bot", "builtin:greedy",
                                     "--bot", "builtin:random", "--players", "2", "--deal-sets", "3", "--rounds", "1",
                                     "--out", str(run)])  # not --quiet: the estimate is made
    assert shown.exit_code == 0, shown.output
    plan = json.loads((run / "run.json").read_text())
    planned = Counter((m["deal_seed"], tuple(m["seating"])) for m in plan["matches"])
    assert {k: n for k, n in Counter(played).items() if k in planned} == planned  # no planned match twice
    seeds = {seed for seed, _ in planned}
    assert [k for k in played if k not in planned and k[0] in seeds] == []  # no planned deal in another seating
