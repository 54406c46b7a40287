"""``ellibir ratings`` on a real run made by the tournament code, and ``ellibir bot list`` showing
the rating a completed tournament recorded for a submitted bot."""

from __future__ import annotations

import csv
import io
import json
import shutil
import tempfile
from pathlib import Path

import pytest

from harness.arena.registry import RATINGS, Arena, add_ratings, latest_ratings, remove_tree
from harness.sandbox.bubblewrap import sandbox_available
from results.ratings import ratings
from results.runs import open_runs

import typer_cli
from conftest import run_cli, shared
from typer_cli import cli

ROOT = Path(__file__).resolve().parent.parent
KIT = ROOT / "bots" / "kits" / "python"
needs_sandbox = pytest.mark.skipif(not sandbox_available(),
                                   reason="the sandbox (bubblewrap, root) is not available here")


def one_line_error(result, words: str) -> None:
    typer_cli.one_line_error(result, words)
    assert result.stdout == ""


def test_the_tables(tournament_run):
    result = cli("ratings", tournament_run)
    assert result.exit_code == 0, result.output
    out = result.stdout
    for title in ("Ratings, 4 players, standard rules (Elo scale; builtin:greedy = 1500)", "Seat effects",
                  "Expected score", "Likelihood of superiority"):
        assert title in out
    assert "72 matches, 72 rated; 0 ended early and 0 had a fault." in out
    report = ratings(open_runs([tournament_run]), reference="builtin:greedy")  # the convention: greedy is 1500
    lines = out.splitlines()
    for b in report["bots"]:
        row = next(line for line in lines if line.strip().startswith(b["bot"]))
        assert f"{b['rating']:.0f}" in row and f"{b['lo']:.0f}–{b['hi']:.0f}" in row and str(b["games"]) in row
    assert "6 deal sets" in out and "Seat effects (Elo, per table size" in out
    anchored = cli("ratings", tournament_run, "--anchor", "builtin:greedy", "--ties", "davidson")
    assert anchored.exit_code == 0 and "builtin:greedy = 1500" in anchored.stdout
    assert "ties (Davidson-Luce delta" in anchored.stdout and "ties (Davidson" not in out


def test_json_has_every_bot_and_the_report_fields(tournament_run):
    result = cli("ratings", tournament_run, "--json")
    assert result.exit_code == 0, result.output
    whole = json.loads(result.stdout)
    assert whole["reference"] == "builtin:greedy" and whole["warnings"] == []
    [doc] = whole["leaderboards"]  # one table size and rules: one leaderboard
    assert doc["label"] == "4 players, standard rules" and doc["anchor"] == "builtin:greedy"
    assert {b["bot"] for b in doc["bots"]} == {"builtin:greedy", "builtin:pairs", "builtin:random"}
    for key in ("game", "runs", "anchor", "model", "matches", "bots", "seats", "pairwise"):
        assert key in doc
    for b in doc["bots"]:
        assert set(b) >= {"bot", "rating", "lo", "hi", "se", "boot_lo", "boot_hi", "games", "score_share", "avg_rank",
                          "faults"}
    assert len(doc["pairwise"]) == 6 and doc["matches"]["total"] == 72
    from results.ratings import ratings_by_rules

    assert whole["leaderboards"] == json.loads(json.dumps(
        ratings_by_rules(open_runs([tournament_run]), reference="builtin:greedy"), ensure_ascii=False))


def test_csv_to_a_file_and_to_stdout(tournament_run, tmp_path):
    target = tmp_path / "board.csv"
    result = cli("ratings", tournament_run, "--csv", target, "--json")
    assert result.exit_code == 0, result.output
    json.loads(result.stdout)  # --json still prints
    rows = list(csv.DictReader(io.StringIO(target.read_text())))
    assert [r["bot"] for r in rows] == [b["bot"] for b in json.loads(result.stdout)["leaderboards"][0]["bots"]]
    assert {r["scale"] for r in rows} == {"4 players, standard rules"}
    assert [r["place"] for r in rows] == ["1", "2", "3"]
    assert float(rows[0]["rating"]) >= float(rows[1]["rating"]) >= float(rows[2]["rating"])
    to_stdout = cli("ratings", tournament_run, "--csv", "-")
    assert to_stdout.exit_code == 0 and to_stdout.stdout == target.read_text()


def test_bad_input_is_one_line_and_exit_2(tournament_run, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    target = tmp_path / "out.csv"
    one_line_error(cli("ratings", tmp_path / "missing"), "no such run folder")
    one_line_error(cli("ratings", empty, "--csv", target), "no results")
    one_line_error(cli("ratings", tournament_run, "--anchor", "nobody", "--csv", target), "unknown anchor 'nobody'")
    one_line_error(cli("ratings", tournament_run, "--json", "--csv", "-"), "standard output")
    one_line_error(cli("ratings", tournament_run, "--bootstrap", "-3"), "--bootstrap")
    one_line_error(cli("ratings", tournament_run, "--bootstrap", "20"),
                   "--bootstrap needs at least 10 deal sets; these runs have 6")
    one_line_error(cli("ratings", tournament_run, "--ties", "maybe"), "--ties")
    one_line_error(cli("ratings", tournament_run, "--csv", tmp_path / "no" / "where.csv"), "no folder")
    one_line_error(cli("ratings", tournament_run, "--game", "chess"), "chess")
    assert not target.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["empty"]
    assert cli("ratings").exit_code == 2  # no run folder at all


@pytest.fixture(scope="module")
def e51_run(tmp_path_factory):
    """A small real Einundfünfzig run (everyone but the loser shares rank 1), 12 deal sets."""
    def make(top):
        run_cli("tournament", "run", "--executor", "local", "--game", "einundfuenfzig", "--bot", "builtin:random",
                "--bot", "builtin:cautious", "--players", 3, "--rounds", 1, "--deal-sets", 12, "--seed", 5, "--workers", 2,
                "--duplicate", "--quiet", "--out", top / "e51")

    return shared(tmp_path_factory, "e51_run", make) / "e51"


def test_ratings_and_sprt_agree_on_a_real_einundfuenfzig_run(e51_run):
    whole = json.loads(cli("ratings", e51_run, "--json").stdout)
    [doc] = whole["leaderboards"]
    assert whole["reference"] == "builtin:cautious" and doc["anchor"] == "builtin:cautious"
    test = json.loads(cli("sprt", e51_run, "--bot", "builtin:cautious", "--vs", "builtin:random", "--json").stdout)
    by = {b["bot"]: b for b in doc["bots"]}
    diff = by["builtin:cautious"]["rating"] - by["builtin:random"]["rating"]
    se = by["builtin:random"]["se"]  # cautious is 1500: the other's error is the difference's
    assert doc["tie_model"] == "exact" and doc["ties"] == [] and doc["clusters"] == 12
    assert diff > 0 and test["elo"] > 0  # the same sign
    assert abs(diff - test["elo"]) < 3 * se, (diff, se, test["elo"])  # and roughly the same size
    pair = next(p for p in doc["pairwise"] if p["a"] == "builtin:cautious")
    assert pair["expected"] == pytest.approx(1 / (1 + 10 ** (-diff / 400)))
    boot = cli("ratings", e51_run, "--bootstrap", "20", "--seed", "1")
    assert boot.exit_code == 0 and "boot. CI" in boot.stdout and "12 deal sets" in boot.stdout


def test_seat_effects_by_table_size_when_pooling_two_and_four_players(tournament_run, tmp_path):
    two = tmp_path / "two"
    run_cli("tournament", "run", "--executor", "local", "--bot", "builtin:greedy", "--bot", "builtin:pairs", "--bot", "builtin:random",
            "--players", 2, "--rounds", 1, "--deal-sets", 3, "--seed", 4, "--workers", 2, "--quiet", "--out", two)
    apart = json.loads(cli("ratings", two, tournament_run, "--json").stdout)["leaderboards"]
    assert [d["label"] for d in apart] == ["4 players, standard rules", "2 players, standard rules"]  # most first
    assert [{s["players"] for s in d["seats"]} for d in apart] == [{4}, {2}]  # never a silent pool
    [doc] = json.loads(cli("ratings", two, tournament_run, "--pool", "--json").stdout)["leaderboards"]
    assert any("pool 2 table sizes or rules" in w for w in doc["warnings"])  # pooled when asked, and said
    assert [(s["players"], s["seat"]) for s in doc["seats"]] == [(2, 0), (2, 1), (4, 0), (4, 1), (4, 2), (4, 3)]
    for s in doc["seats"]:
        assert set(s) == {"players", "seat", "effect", "lo", "hi", "se"}
        assert (s["effect"] == 0) == (s["seat"] == 0) and s["lo"] <= s["effect"] <= s["hi"]
    alone = json.loads(cli("ratings", tournament_run, "--json").stdout)["leaderboards"][0]
    assert [s["effect"] for s in alone["seats"]] != [s["effect"] for s in doc["seats"] if s["players"] == 4]
    assert "players" in cli("ratings", two, tournament_run).stdout


# bot list ------------------------------------------------------------------------------------------


@pytest.fixture
def place():
    """A folder readable by others (the sandbox runs bots as another uid)."""
    top = Path(tempfile.mkdtemp(prefix="ellibir-ratings-test-"))
    top.chmod(0o755)
    yield top
    remove_tree(top)


def kit(where: Path, name: str, version: str) -> Path:
    folder = where / f"src-{name}"
    shutil.copytree(KIT, folder)
    (folder / "bot.toml").write_text(f'name = "{name}"\nversion = "{version}"\ncommand = ["python3", "main.py"]\n')
    return folder


@needs_sandbox
def test_bot_list_shows_the_rating_on_the_ladder_of_the_arenas_runs(place):
    arena = Arena(place / "arena")
    stored = arena.submit(kit(place, "kitbot", "1.0"))
    listed = json.loads(cli("bot", "list", "--arena", arena.root, "--json").stdout)
    assert [b["rating"] for b in listed] == [None]

    out = place / "run"
    run_cli("tournament", "run", "--executor", "local", "--bot", "kitbot", "--bot", "builtin:greedy", "--bot", "builtin:random",
            "--players", 2, "--deal-sets", 2, "--rounds", 1, "--seed", 9, "--workers", 1, "--name", "tiny",
            "--arena", arena.root, "--out", out, "--quiet")
    lines = (arena.root / RATINGS).read_text().splitlines()
    assert len(lines) == 1
    record = json.loads(lines[0])
    expected = next(b for b in ratings(open_runs([out]), reference="builtin:greedy")["bots"] if b["bot"] == "kitbot@1.0")
    assert (record["name"], record["version"], record["hash"], record["run"]) == ("kitbot", "1.0", stored.hash, "tiny")
    assert record["scale"] == "Elo scale (theta*400/ln 10): builtin:greedy is 1500 (the reference bot)"  # the ladder's
    assert record["rating"] == pytest.approx(expected["rating"]) and record["games"] == expected["games"] > 0

    # bot list shows the ladder of the arena's runs: anchored on greedy at 1500 (issue 15)
    anchored = {b["bot"]: b for b in ratings(open_runs([out]), anchor="builtin:greedy")["bots"]}
    listed = json.loads(cli("bot", "list", "--arena", arena.root, "--json").stdout)
    rating = listed[0]["rating"]
    assert listed[0]["name"] == "kitbot" and rating["rating"] == pytest.approx(anchored["kitbot@1.0"]["rating"])
    assert rating["ladder"] == "ellibir, 2 players, standard rules" and rating["anchor"] == "builtin:greedy = 1500"
    assert rating["games"] == anchored["kitbot@1.0"]["games"] and listed[0]["ladders"] == [rating]
    table = cli("bot", "list", "--arena", arena.root)
    assert table.exit_code == 0
    row = table.stdout.strip().splitlines()[1]
    assert row.split()[:3] == ["kitbot", "1.0", stored.hash[:12]]
    a = anchored["kitbot@1.0"]
    assert f"{a['rating']:.0f} [{a['lo']:.0f}, {a['hi']:.0f}] {a['games']} games (ellibir, 2 players" in row

    # the record keeps the latest per submission (damaged lines skipped); the ladder reads its runs
    later = {**record, "rating": 1234.0, "lo": 1200.0, "hi": 1268.0, "run": "later"}
    add_ratings(arena, [{**record, "version": "2.0", "rating": 99.0}, later])
    with open(arena.root / RATINGS, "a") as f:
        f.write("{not json\n")
    assert latest_ratings(arena)[("kitbot", "1.0", stored.hash)]["run"] == "later"
    assert f"{a['rating']:.0f} [{a['lo']:.0f}, {a['hi']:.0f}]" in cli("bot", "list", "--arena", arena.root).stdout


def test_recording_ratings_never_fails_a_run(tournament_run, tmp_path):
    """A run whose ratings cannot be computed is reported in one line, and nothing is written."""
    from harness.arena.registry import record_run_ratings
    from harness.runs.plan import read_plan

    root = tmp_path / "arena"
    (root / "ghost" / "1.0" / "bot").mkdir(parents=True)
    plan = read_plan(tournament_run)
    ghost = {"kind": "submitted", "label": "ghost@1.0", "name": "ghost", "version": "1.0", "hash": "ab" * 32,
             "folder": str(root / "ghost" / "1.0" / "bot")}
    with_ghost = {**plan, "bots": plan["bots"] + [ghost]}
    problem = record_run_ratings(with_ghost, tmp_path / "gone")
    assert "no such run folder" in problem and "\n" not in problem
    assert record_run_ratings(with_ghost, tournament_run) is None  # ghost did not play: no record
    assert record_run_ratings(plan, tournament_run) is None  # built-in bots only: nothing to record
    assert not (root / RATINGS).exists()
