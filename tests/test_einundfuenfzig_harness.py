"""Einundfünfzig (E1-E4) through the whole harness: real bot programs in the sandbox, faults,
``bot check``, ``play``, bad input, and a sweep on a local Ray with a sandboxed bot folder."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from engine.einundfuenfzig import CARD_NAMES
from engine.game import make_rules
from harness.cli.main import app
from harness.match.run import MatchSpec, make_players, run_spec
from harness.protocol.messages import TimeControl
from harness.sandbox.bubblewrap import sandbox_available

from test_einundfuenfzig import schema_errors, seen_cards
from cli_runs import UNHURRIED, assert_complete, cli, in_process

ROOT = Path(__file__).resolve().parent.parent
GAME = "einundfuenfzig"
KIT = ROOT / "bots" / "kits" / "python_einundfuenfzig"
CAUTIOUS = ROOT / "bots" / "protocol" / "cautious"
RANDOM = ROOT / "bots" / "protocol" / "random"
needs_sandbox = pytest.mark.skipif(not sandbox_available(), reason="the sandbox (bubblewrap, root) is not available")
runner = CliRunner()
CLOCK = TimeControl(move=2.0, bank=5.0, first=10.0)

MISBEHAVING = '''import json, sys
mode = sys.argv[1]
n = 0
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        print(json.dumps({"type": "hello", "seq": msg["seq"], "name": "bad", "version": "0"}), flush=True)
    elif msg["type"] == "request":
        n += 1
        if mode == "crash" and n == 2:
            sys.stderr.write("falling over on purpose\\n"); sys.exit(3)
        if mode == "garbage" and n == 2:
            print("this is not json", flush=True); continue
        hand = (msg.get("view") or {}).get("hand") or msg["legal"]["cards"]
        card = msg["legal"]["cards"][0] if mode != "illegal" else next(
            c for c in ("7C", "8C", "9C", "10C", "JC", "QC", "KC", "AC", "AS") if c not in msg["legal"]["cards"])
        decision = {"card": card}
        if card.startswith("7"):
            decision["value"] = 1
        if msg["legal"]["start_choice"]:
            decision["start"] = 1
        print(json.dumps({"type": "decision", "seq": msg["seq"], "decision": decision}), flush=True)
'''


def bad_bot(tmp_path, mode: str) -> Path:
    folder = tmp_path / mode
    folder.mkdir()
    (folder / "bot.toml").write_text(f'name = "bad-{mode}"\nversion = "0"\ncommand = ["python3", "main.py", "{mode}"]\ngames = ["einundfuenfzig"]\n')
    (folder / "main.py").write_text(MISBEHAVING)
    for path in (tmp_path, folder, *folder.iterdir()):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return folder


def play(bots, seed=1, records=None, rounds=2, **overrides):
    rules = make_rules(GAME, "standard", {"players": len(bots), "rounds": rounds, **overrides})
    spec = MatchSpec(GAME, rules, seed, tuple(str(b) for b in bots), time=CLOCK)
    players = make_players(spec, records)
    result, events, faults = run_spec(spec, players=players)
    return result, events, faults, players


def decisions(events, seat):
    return [e["text"] for e in events if e.get("e") == "decision" and e["seat"] == seat]


# Bot programs in the sandbox -------------------------------------------------------------------


@needs_sandbox
def test_E3_protocol_reference_bots_and_the_kit_play_and_decide_as_in_process():
    records = {s: [] for s in range(3)}
    result, events, faults, _ = play([CAUTIOUS, RANDOM, KIT], seed=5, records=records, rounds=3)
    assert not faults and result.reason == "complete" and len(result.rounds) == 3
    for seat, record in records.items():
        for direction, position, message in record:
            d = "to_bot" if direction == "out" else "from_bot"
            assert not schema_errors(d, message), message
            if direction == "out":  # nothing hidden: only cards the seat has been shown
                text = json.dumps(message)
                assert '"to"' not in text and '"talon"' not in text
                shown = {c for c in CARD_NAMES if f'"{c}"' in text}
                assert shown <= seen_cards(events, seat, position), message["type"]
    _r, by_protocol, faults, _p = play([CAUTIOUS, KIT], seed=6, rounds=3)
    _r, in_process, _f, _p = play(["builtin:cautious", KIT], seed=6, rounds=3)
    assert not faults and decisions(in_process, 0) == decisions(by_protocol, 0)


@needs_sandbox
@pytest.mark.parametrize("mode,kind,words", [("crash", "crash", "exited with code 3"),
                                             ("garbage", "malformed", "not JSON"),
                                             ("illegal", "illegal_action", "E3")])
def test_E3_a_misbehaving_bot_program_is_a_recorded_fault_and_the_match_completes(tmp_path, mode, kind, words):
    result, events, faults, players = play([bad_bot(tmp_path, mode), "builtin:random", "builtin:cautious"], seed=2)
    assert result.reason == "complete" and [f.kind for f in faults] == [kind]
    assert words in faults[0].reason and result.ranks[0] == 3
    if mode == "crash":
        assert "falling over on purpose" in faults[0].stderr
    # the reference bot (cautious) played the seat out
    assert any(e.get("e") == "play" and e["seat"] == 0 for e in events[[e.get("e") for e in events].index("decision"):])


@needs_sandbox
def test_E3_the_starter_kit_passes_bot_check_and_the_ellibir_kit_is_declined(tmp_path):
    result = runner.invoke(app, ["bot", "check", str(KIT), "--game", GAME, *UNHURRIED])
    assert result.exit_code == 0, result.output
    assert result.stdout.count(": ok,") == 3 and result.stdout.strip().endswith("PASS")
    ellibir_kit = ROOT / "bots" / "kits" / "python"
    other = runner.invoke(app, ["bot", "check", str(ellibir_kit), "--game", GAME])  # its bot.toml: ellibir only
    assert other.exit_code == 2 and other.stderr.count("\n") == 1
    assert "plays ellibir (games in its bot.toml), not einundfuenfzig" in other.stderr
    claims = tmp_path / "claims"  # declares the game in bot.toml, but its program declines it in the handshake
    shutil.copytree(ellibir_kit, claims)
    with (claims / "bot.toml").open("a") as f:
        f.write('games = ["ellibir", "einundfuenfzig"]\n')
    declined = runner.invoke(app, ["bot", "check", str(claims), "--game", GAME])
    assert declined.exit_code == 1 and "handshake: declined" in declined.stdout


def test_a_bot_folder_of_another_game_is_refused_before_anything_runs(tmp_path):
    run = tmp_path / "run"
    done = in_process("tournament", "run", "--executor", "local", "--game", GAME, "--bot", ROOT / "bots" / "kits" / "python", "--bot",
                      "builtin:random", "--players", 2, "--deal-sets", 1, "--out", run, "--quiet")
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "plays ellibir (games in its bot.toml), not einundfuenfzig" in done.stderr
    assert not run.exists()


# The command line ----------------------------------------------------------------------------------


def test_E4_play_game_einundfuenfzig_on_the_command_line_and_replay_its_log(tmp_path):
    log = tmp_path / "e51.jsonl"
    args = ["play", "--game", GAME, "--bot", "builtin:cautious", "--bot", "builtin:random", "--bot",
            "builtin:cautious", "--rounds", "3", "--seed", "4", "--set", "start_seven=7"]
    shown = runner.invoke(app, args + ["--log", str(log)])
    assert shown.exit_code == 0, shown.output
    assert "Game 3:" in shown.stdout and "loses game" in shown.stdout and "Final ranking" in shown.stdout
    doc = json.loads(runner.invoke(app, args + ["--json"]).stdout)
    assert doc["game"] == GAME and doc["rules"] == {"players": 3, "rounds": 3, "start_seven": "7"}
    assert sum(doc["totals"]) == 3 and all(r["loser"] in (0, 1, 2) for r in doc["rounds"])
    again = runner.invoke(app, ["replay", str(log)])
    assert again.exit_code == 0, again.output

    def turns(text):
        lines = text.replace(" builtin:cautious", "").replace(" builtin:random", "").splitlines()
        return [line for line in lines if " = " in line or "loses" in line or "Game" in line]

    assert len(turns(shown.stdout)) > 20 and turns(again.stdout) == turns(shown.stdout)


@pytest.mark.parametrize("args,words", [
    (["play", "--game", "chess", "--bot", "builtin:random", "--bot", "builtin:random"], "unknown game 'chess'"),
    (["play", "--game", GAME, "--preset", "tr-wiki", "--bot", "builtin:random", "--bot", "builtin:random"],
     "unknown preset 'tr-wiki' for einundfuenfzig"),
    (["play", "--game", GAME, "--set", "threshold=71", "--bot", "builtin:random", "--bot", "builtin:random"],
     "unknown rules field 'threshold'"),
    (["play", "--game", GAME, "--set", "start_seven=3", "--bot", "builtin:random", "--bot", "builtin:random"],
     "start_seven"),
    (["play", "--game", GAME, "--bot", "builtin:greedy", "--bot", "builtin:random"], "unknown bot 'greedy'"),
    (["play", "--set", "start_seven=7", "--bot", "builtin:greedy", "--bot", "builtin:random"],
     "unknown rules field 'start_seven'"),
    (["bot", "check", str(KIT), "--game", "chess"], "unknown game 'chess'"),
])
def test_E2_bad_input_is_one_line_and_exit_code_2(args, words):
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and words in lines[0], lines


# A sweep on Ray --------------------------------------------------------------------------------------


@needs_sandbox
def test_E4_a_sweep_on_ray_with_a_sandboxed_bot_writes_the_game_s_tables(tmp_path, env):
    out = tmp_path / "sweep"
    run = cli("sweep", "--game", GAME, "--bot", "builtin:random", "--bot", "builtin:cautious", "--bot", CAUTIOUS,
              "--players", 3, "--rounds", 2, "--deal-sets", 2, "--vary", "start_seven=7,1,first_player",
              "--duplicate", "--workers", 2, "--quiet", "--out", out, env=env, timeout=300)
    assert run.returncode == 0, run.stderr
    plan = json.loads((out / "run.json").read_text())
    assert plan["game"] == GAME and [v["fields"] for v in plan["variants"]] == [
        {"start_seven": "7"}, {"start_seven": "1"}, {"start_seven": "first_player"}]
    matches = assert_complete(out)
    assert set(matches["game"]) == {GAME} and set(matches["termination"]) == {"complete"}
    assert set(matches["rule_start_seven"]) == {"7", "1", "first_player"}
    assert matches.group_by("match_id").agg(pl.col("total").sum()).sort("match_id")["total"].to_list() == [2] * 18
    rounds = pl.read_parquet(str(out / "rounds" / "*.parquet"))
    assert {"lost", "final_total", "cards_played", "start_value", "talon_left"} <= set(rounds.columns)
    assert rounds.height == 18 * 2 * 3
    assert (rounds["won"] == ~rounds["lost"]).all() and (rounds["final_total"] >= 51).all()
    per_game = rounds.group_by("match_id", "round_index").agg(pl.col("lost").sum(), pl.col("score").sum())
    assert set(per_game["lost"]) == {1} and set(per_game["score"]) == {1}  # exactly one loser per game
    one = [m for m in plan["matches"] if "cautious-protocol@1.0" in m["seating"]][0]  # name@version, no path
    shown = in_process("replay", out, one["id"])
    assert shown.returncode == 0 and "Final ranking" in shown.stdout and "loses game 2" in shown.stdout

    wrong = in_process("tournament", "run", "--executor", "local", "--game", GAME, "--bot", "builtin:greedy", "--bot", "builtin:random",
                       "--out", tmp_path / "never")
    assert wrong.returncode == 2 and wrong.stderr.count("\n") == 1 and "unknown bot 'builtin:greedy'" in wrong.stderr
    assert not (tmp_path / "never").exists()
    shutil.rmtree(out)


# Analysis: the same commands, nothing special for the game --------------------------------------------


@needs_sandbox
def test_E4_ratings_balance_and_report_of_a_tournament_of_the_game(tmp_path, tournament_run):
    """A round robin on Ray with a sandboxed bot program, then every analysis command with --game. Pooled
    with an Ellibir run, --game picks the game; without it the commands refuse in one line."""
    out = tmp_path / "rr51"
    run = in_process("tournament", "run", "--executor", "local", "--game", GAME, "--bot", "builtin:random", "--bot", "builtin:cautious",
                     "--bot", CAUTIOUS, "--players", 3, "--rounds", 3, "--deal-sets", 8, "--seed", 3, "--workers", 2,
                     "--quiet", "--out", out)
    assert run.returncode == 0, run.stderr
    planned = len(json.loads((out / "run.json").read_text())["matches"])
    assert_complete(out)

    rated = runner.invoke(app, ["ratings", str(out), str(tournament_run), "--game", GAME, "--json"])
    assert rated.exit_code == 0, rated.output
    whole = json.loads(rated.stdout)
    assert whole["game"] == GAME and whole["runs"] == ["rr51"] and whole["reference"] == "builtin:cautious"
    [doc] = whole["leaderboards"]
    by_bot = {b["bot"]: b for b in doc["bots"]}
    assert set(by_bot) == {"builtin:random", "builtin:cautious", "cautious-protocol@1.0"}
    assert by_bot["builtin:cautious"]["rating"] > by_bot["builtin:random"]["rating"]  # lost 6 of 400 in-process
    assert doc["tie_model"] == "exact" and doc["ties"] == []  # shared ranks (E4) are hidden orders, no parameter

    mixed = runner.invoke(app, ["ratings", str(out), str(tournament_run)])
    assert mixed.exit_code == 2 and "choose one with --game" in mixed.stderr and mixed.stderr.count("\n") == 1

    balanced = runner.invoke(app, ["balance", str(out), "--game", GAME, "--json"])
    assert balanced.exit_code == 0, balanced.output
    variant = json.loads(balanced.stdout)["variants"][0]
    assert variant["rounds"] == planned * 3 and variant["deal_sets"] == 8
    assert "finish" not in variant or not variant["finish"]  # no finish_<X> columns in this game
    assert abs(sum(p["wins"] for p in variant["positions"]) - 2 * variant["rounds"]) == 0  # 3 players, 1 loser

    report = tmp_path / "e51.html"
    done = runner.invoke(app, ["report", str(out), str(tournament_run), "--game", GAME, "--html", str(report)])
    assert done.exit_code == 0, done.output
    text = report.read_text()
    assert "builtin:cautious" in text and "builtin:greedy" not in text
