"""benchmarks/ceiling_elo.py: the clairvoyant bot's gauntlet is an ordinary run folder that the project's
ratings read, played only inside the tool; every path a person uses to play or ladder it still refuses it."""

from __future__ import annotations

import json

import pytest

from bots import UnknownBot, make_bot
from typer_cli import cli, one_line_error


@pytest.fixture(scope="module")
def ceiling(tmp_path_factory):
    from benchmarks.ceiling_elo import main

    out = tmp_path_factory.mktemp("ceil") / "run"
    main([str(out), "--deal-sets", "1", "--rounds", "1", "--seed", "5"])
    return out


def test_the_clairvoyant_plays_one_seat_of_every_rotation_and_is_rated(ceiling):
    plan = json.loads((ceiling / "run.json").read_text())
    seatings = [m["seating"] for m in plan["matches"]]
    assert len(seatings) == 4 and sorted(s.index("builtin:clairvoyant") for s in seatings) == [0, 1, 2, 3]
    assert all(s.count("builtin:greedy") == 3 for s in seatings)
    result = cli("ratings", ceiling, "--anchor", "builtin:greedy", "--json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["leaderboards"][0]["bots"]
    assert {r["bot"]: r["games"] for r in rows} == {"builtin:clairvoyant": 4, "builtin:greedy": 12}


def test_outside_the_tool_it_is_still_refused(ceiling, tmp_path):
    with pytest.raises(UnknownBot, match="for analysis only"):  # the tool's permission ended with it
        make_bot("clairvoyant")
    one_line_error(cli("tournament", "run", "--resume", ceiling, "--executor", "local"), "for analysis only")
    (tmp_path / "arena").mkdir()  # an arena without runs
    one_line_error(cli("ladder", "--arena", tmp_path / "arena", "--run", ceiling), "for analysis only")
