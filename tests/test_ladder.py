"""One ladder per game, table size and rules over many runs, anchored on the reference bot (issue 15)."""

from __future__ import annotations

import json

import pytest

from harness.arena.ladder import _renames, ladder_name, ladders
from results.ratings import ratings
from results.runs import open_runs

from cli_runs import in_process


def by_name(found: list) -> dict:
    return {(e["game"], e["players"], e["name"]): e for e in found}


def test_ladder_names_follow_the_rules_not_the_rounds():
    from engine.game import make_rules

    standard = make_rules("ellibir", "standard", {"players": 3, "rounds": 2}).normalised()
    assert ladder_name("ellibir", 3, standard) == "standard"
    assert ladder_name("ellibir", 3, {**standard, "threshold": 71}) == "threshold=71"
    e51 = make_rules("einundfuenfzig", "standard", {"players": 2}).normalised()
    assert ladder_name("einundfuenfzig", 2, e51) == "standard"


def test_one_run_on_the_ladder_is_its_ratings_moved_so_that_greedy_is_1500(tournament_run):
    [entry] = ladders([tournament_run])
    assert (entry["game"], entry["players"], entry["name"], entry["anchor"]) == ("ellibir", 4, "standard",
                                                                                  "builtin:greedy")
    assert "builtin:greedy is 1500" in entry["scale"]
    on_ladder = {b["bot"]: b for b in entry["bots"]}
    assert on_ladder["builtin:greedy"]["rating"] == pytest.approx(1500)
    own = {b["bot"]: b for b in ratings(open_runs([tournament_run]))["bots"]}  # the run's own scale: mean 1500
    for bot, b in on_ladder.items():
        assert b["rating"] - 1500 == pytest.approx(own[bot]["rating"] - own["builtin:greedy"]["rating"])
        assert b["games"] == own[bot]["games"]


def test_runs_pool_by_rules_and_other_rules_get_their_own_ladder(tournament_run, sweep_run, tmp_path):
    (tmp_path / "arena").mkdir()  # an arena without runs
    done = in_process("ladder", "--arena", tmp_path / "arena", "--run", tournament_run, "--run", sweep_run, "--json")
    assert done.returncode == 0, done.stderr
    found = by_name(json.loads(done.stdout))
    plan = json.loads((sweep_run / "run.json").read_text())
    fields = {v["id"]: v["fields"]["threshold"] for v in plan["variants"]}
    assert set(found) == {("ellibir", 4, "standard"), ("ellibir", 4, "threshold=71")}
    standard, other = found[("ellibir", 4, "standard")], found[("ellibir", 4, "threshold=71")]
    assert standard["runs"] == sorted(str(p.resolve()) for p in (tournament_run, sweep_run))
    assert other["runs"] == [str(sweep_run.resolve())]
    import polars as pl

    sweep = pl.read_parquet(str(sweep_run / "matches" / "*.parquet"))
    rr = pl.read_parquet(str(tournament_run / "matches" / "*.parquet"))
    at71 = sweep.filter(pl.col("variant").is_in([v for v, t in fields.items() if t == 71]))
    assert other["matches"]["total"] == at71["match_id"].n_unique()
    assert standard["matches"]["total"] == rr["match_id"].n_unique() + sweep["match_id"].n_unique() - \
        at71["match_id"].n_unique()
    greedy = {b["bot"]: b for b in standard["bots"]}["builtin:greedy"]
    assert greedy["rating"] == pytest.approx(1500) and greedy["games"] == rr.filter(
        pl.col("bot") == "builtin:greedy").height + sweep.filter(pl.col("bot") == "builtin:greedy").height - \
        at71.filter(pl.col("bot") == "builtin:greedy").height
    text = in_process("ladder", "--arena", tmp_path / "arena", "--run", tournament_run, "--run", sweep_run)
    assert "Ladder: ellibir, 4 players, standard rules" in text.stdout
    assert "Ladder: ellibir, 4 players, threshold=71 rules" in text.stdout
    assert "builtin:greedy is 1500" in text.stdout.replace("\n", " ")
    empty = in_process("ladder", "--arena", tmp_path / "arena")
    assert empty.returncode == 0 and "no runs to rate" in empty.stdout


def test_bot_folders_with_one_label_and_different_content_never_merge_across_runs():
    plans = {"a": {"bots": [{"kind": "folder", "label": "me@1", "hash": "aa" * 32},
                            {"kind": "builtin", "label": "builtin:greedy", "hash": ""}]},
             "b": {"bots": [{"kind": "folder", "label": "me@1", "hash": "bb" * 32}]},
             "c": {"bots": [{"kind": "folder", "label": "you@1", "hash": "cc" * 32}]},
             "d": {"bots": [{"kind": "folder", "label": "you@1", "hash": "cc" * 32}]}}
    assert _renames(plans) == {"a": {"me@1": "me@1+aaaaaaaa"}, "b": {"me@1": "me@1+bbbbbbbb"}}


@pytest.fixture(scope="module")
def two_fields(tmp_path_factory):
    """pairs against greedy and random (run a), and against greedy alone (run b): 2 players, 12 deal sets."""
    from conftest import run_cli, shared

    top = shared(tmp_path_factory, "two_fields", lambda top: make_two_fields(top, run_cli))
    return top / "a", top / "b"


def make_two_fields(top, run_cli):
    run_cli("tournament", "run", "--executor", "local", "--bot", "builtin:greedy", "--bot", "builtin:pairs", "--bot", "builtin:random",
            "--players", 2, "--deal-sets", 12, "--rounds", 2, "--seed", 3, "--workers", 2, "--out", top / "a", "--quiet")
    run_cli("tournament", "run", "--executor", "local", "--bot", "builtin:greedy", "--bot", "builtin:pairs", "--players", 2, "--deal-sets",
            12, "--rounds", 2, "--seed", 4, "--workers", 2, "--out", top / "b", "--quiet")


def test_one_bot_in_two_fields_gets_one_rating_on_the_ladder_where_separate_runs_disagree(two_fields):
    """The issue's example: separate runs, each with its own mean of 1500, show the same bot hundreds of
    points apart (the other bots differ); on the ladder, anchored on greedy, both runs agree, and the
    ladder over both pools them."""
    a, b = two_fields
    own = [{x["bot"]: x for x in ratings(open_runs([run]))["bots"]}["builtin:pairs"] for run in (a, b)]
    assert abs(own[0]["rating"] - own[1]["rating"]) > 150  # fixed seeds: 1749 and 1500
    alone = [{x["bot"]: x for x in ladders([run])[0]["bots"]}["builtin:pairs"] for run in (a, b)]
    assert abs(alone[0]["rating"] - alone[1]["rating"]) < 50
    assert alone[0]["lo"] < alone[1]["rating"] < alone[0]["hi"]  # within the interval of the run with spread
    [both] = ladders([a, b])
    pooled = {x["bot"]: x for x in both["bots"]}
    assert pooled["builtin:greedy"]["rating"] == pytest.approx(1500)
    assert pooled["builtin:pairs"]["games"] == alone[0]["games"] + alone[1]["games"]
    assert min(alone[0]["rating"], alone[1]["rating"]) - 1 <= pooled["builtin:pairs"]["rating"] <= \
        max(alone[0]["rating"], alone[1]["rating"]) + 1
