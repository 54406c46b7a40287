"""The designer's way in to the rules: ``ellibir rules`` lists every field, a misspelled field gets a
suggestion, presets can be varied, and a ``--vary`` of one value warns (on a real sweep)."""

from __future__ import annotations

import dataclasses
import json

import pytest
from typer.testing import CliRunner

from cli_runs import in_process

from engine.game import make_rules
from engine.rules import PRESETS, ConfigError, Rules
from harness.cli.main import app
from harness.runs.plan import PlanError, variant_grid, vary_warnings

runner = CliRunner()


def test_rules_lists_every_field_with_type_default_allowed_values_and_the_presets():
    out = runner.invoke(app, ["rules", "--json"])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.stdout)
    names = [f["name"] for f in doc["fields"]]
    assert names == [f.name for f in dataclasses.fields(Rules)]
    by_name = {f["name"]: f for f in doc["fields"]}
    assert by_name["threshold"] == {"name": "threshold", "type": "whole number", "default": "51",
                                    "allowed": "1 to 1000"}
    assert by_name["direction"]["allowed"] == "anticlockwise, clockwise"
    assert by_name["rising_threshold"]["allowed"] == "true, false" and by_name["rising_threshold"]["default"] == "false"
    assert all(f["type"] and f["default"] and f["allowed"] for f in doc["fields"])
    assert set(doc["presets"]) == set(PRESETS) and doc["presets"]["tr-wiki"]["deal"] == "fourteen"
    shown = runner.invoke(app, ["rules"])
    assert shown.exit_code == 0 and "pairs_discard_block" in shown.stdout and "preset tr-wiki: deal=fourteen" in shown.stdout
    assert "a list of [pairs," in shown.stdout  # no markup eaten
    other = json.loads(runner.invoke(app, ["rules", "--game", "einundfuenfzig", "--json"]).stdout)
    assert [f["name"] for f in other["fields"]] == ["players", "rounds", "start_seven"]
    bad = runner.invoke(app, ["rules", "--game", "chess"])
    assert bad.exit_code == 2 and bad.stderr.startswith("error: unknown game 'chess'")


def test_sweep_help_points_to_the_rules_command():
    out = runner.invoke(app, ["sweep", "--help"], env={"COLUMNS": "200"})
    assert "ellibir rules" in out.stdout and "preset=standard,tr-wiki" in out.stdout


@pytest.mark.parametrize("game, wrong, says", [
    ("ellibir", "treshold", "did you mean threshold or rising_threshold?"),
    ("ellibir", "colour", "(fields: deal, direction,"),
    ("einundfuenfzig", "start_sevn", "for einundfuenfzig (did you mean start_seven?)"),
])
def test_a_misspelled_field_gets_a_suggestion(game, wrong, says):
    with pytest.raises(ConfigError, match="unknown rules field") as e:
        make_rules(game, "standard", {wrong: "1"})
    assert says in str(e.value) and "\n" not in str(e.value)
    with pytest.raises(PlanError, match="did you mean|fields:"):
        variant_grid("standard", {}, [(wrong, ["1", "2"])], 2, game)


def test_presets_can_be_varied_and_combined_with_fields():
    grid = variant_grid("standard", {}, [("preset", ["standard", "tr-wiki"]), ("threshold", ["51", "71"])], 4)
    assert [v["fields"] for v in grid] == [{"preset": "standard", "threshold": "51"},
                                           {"preset": "standard", "threshold": "71"},
                                           {"preset": "tr-wiki", "threshold": "51"},
                                           {"preset": "tr-wiki", "threshold": "71"}]
    assert grid[2]["rules"] == make_rules("ellibir", "tr-wiki", {"threshold": 51, "players": 4})
    assert grid[0]["rules"].deal == "fifteen" and grid[2]["rules"].deal == "fourteen"
    with pytest.raises(PlanError, match="unknown preset 'tr-wikki'"):
        variant_grid("standard", {}, [("preset", ["standard", "tr-wikki"])], 4)


def test_one_value_warns():
    assert vary_warnings([("threshold", ["51", "71"])]) == []
    (line,) = vary_warnings([("threshold", ["71"]), ("rising_threshold", ["false", "true"])])
    assert line.startswith("--vary threshold has one value (71): it varies nothing")


def test_a_real_sweep_over_presets_warns_of_a_one_value_vary(tmp_path):
    out = tmp_path / "presets"
    done = in_process("sweep", "--executor", "local", "--vary", "preset=standard,tr-wiki", "--vary", "star_bonus=false", "--bot", "builtin:greedy",
                      "--bot", "builtin:pairs", "--players", 2, "--deal-sets", 1, "--rounds", 1, "--seed", 2, "--workers", 1,
                      "--out", out, "--quiet")
    assert done.returncode == 0, done.stderr
    assert "warning: --vary star_bonus has one value (false): it varies nothing" in done.stderr
    plan = json.loads((out / "run.json").read_text())
    assert [v["fields"] for v in plan["variants"]] == [{"preset": "standard", "star_bonus": False},
                                                       {"preset": "tr-wiki", "star_bonus": False}]
    assert plan["variants"][1]["rules"]["deal"] == "fourteen"
