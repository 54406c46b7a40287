"""The ``ellibir`` command: play, replay, and one clear line with exit code 2 for bad input."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from engine import make_rules
from engine.deal import deal_from_seed
from harness.cli.main import app

runner = CliRunner()
TWO = ["play", "--bot", "builtin:greedy", "--bot", "builtin:random"]
FOUR = ["play", "--bot", "builtin:greedy", "--bot", "builtin:pairs", "--bot", "builtin:random", "--bot", "builtin:greedy"]


def run(*args):
    return runner.invoke(app, list(args))


def test_play_json_is_byte_identical_for_the_same_seed_D3():
    args = FOUR + ["--seed", "5", "--rounds", "2", "--json"]
    first, second = run(*args), run(*args)
    assert first.exit_code == 0, first.output
    assert first.stdout == second.stdout
    doc = json.loads(first.stdout)
    rules = make_rules("standard", {"players": 4, "rounds": 2})
    assert doc["rules"] == rules.normalised() and doc["variant"] == rules.variant_id
    assert doc["seed"] == 5 and doc["bots"] == FOUR[2::2]
    assert len(doc["ranks"]) == len(doc["totals"]) == 4 and doc["reason"] == "complete"
    assert sum(1 for r in doc["rounds"] if not r["void"]) == 2
    assert all("score" in s for r in doc["rounds"] for s in r["seats"])
    assert doc["faults"] == []


def test_another_seed_gives_another_match():
    assert run(*TWO, "--seed", "1", "--json").stdout != run(*TWO, "--seed", "2", "--json").stdout


def test_play_shows_turns_table_scores_and_ranking():
    result = run(*TWO, "--seed", "3", "--rounds", "1")
    assert result.exit_code == 0, result.output
    out = result.stdout
    for text in ("Round 1", "draws from the stock", "discards", "score", "Final ranking", "builtin:greedy"):
        assert text in out
    assert any(suit in out for suit in "♣♦♥♠")


def test_quiet_prints_only_the_final_ranking():
    result = run(*TWO, "--seed", "3", "--rounds", "1", "--quiet")
    assert result.exit_code == 0
    assert "Final ranking" in result.stdout
    assert "Round" not in result.stdout and "discards" not in result.stdout


def test_presets_and_sets_are_used():
    result = run(*FOUR, "--preset", "tr-wiki", "--set", "threshold=71", "--set", "partners=true", "--rounds", "1", "--json")
    assert result.exit_code == 0, result.output
    rules = json.loads(result.stdout)["rules"]
    assert rules["deal"] == "fourteen" and rules["threshold"] == 71 and rules["partners"] is True


def test_log_then_replay_shows_the_same_match(tmp_path):
    log = tmp_path / "match.log"
    played = run(*TWO, "--seed", "4", "--rounds", "2", "--json", "--log", str(log))
    assert played.exit_code == 0 and log.is_file()
    totals = json.loads(played.stdout)["totals"]
    replayed = run("replay", str(log))
    assert replayed.exit_code == 0, replayed.output
    assert "Round 1" in replayed.stdout and "Final ranking" in replayed.stdout
    for total in totals:
        assert str(total) in replayed.stdout
    assert run("replay", str(log), "--quiet").stdout.count("\n") < 10


def test_play_from_a_deal_file_D3(tmp_path):
    rules = make_rules("standard", {"players": 2})
    deal = deal_from_seed(rules, "elsewhere", 0, 1)
    path = tmp_path / "deal.json"
    path.write_text(json.dumps(deal.to_json()))
    result = run(*TWO, "--deal", str(path), "--rounds", "1", "--json", "--log", str(tmp_path / "m.log"))
    assert result.exit_code == 0, result.output
    start = json.loads((tmp_path / "m.log").read_text().splitlines()[0])
    assert start["deals"] == [deal.to_json()]
    assert json.loads(result.stdout)["rounds"][0]["dealer"] == 1


def one_line_error(result):
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


BAD = {
    "unknown bot": (["play", "--bot", "builtin:nobody", "--bot", "builtin:random"], "unknown bot"),
    "bot without builtin:": (["play", "--bot", "greedy", "--bot", "builtin:random"], "builtin:NAME"),
    "one bot": (["play", "--bot", "builtin:greedy"], "2 to 4"),
    "five bots": (["play"] + ["--bot", "builtin:random"] * 5, "2 to 4"),
    "unknown field": (TWO + ["--set", "colour=red"], "unknown rules field"),
    "no equals sign": (TWO + ["--set", "threshold"], "FIELD=VALUE"),
    "bad value": (TWO + ["--set", "threshold=many"], "threshold"),
    "bad choice": (TWO + ["--set", "deal=sixteen"], "deal"),
    "partners with two": (TWO + ["--set", "partners=true"], "partners"),
    "players mismatch": (TWO + ["--set", "players=3"], "players=3"),
    "unknown preset": (TWO + ["--preset", "nowhere"], "unknown preset"),
    "rounds twice": (TWO + ["--rounds", "3", "--set", "rounds=5"], "rounds"),
    "missing deal file": (TWO + ["--deal", "/nonexistent/deal.json"], "deal file"),
    "negative max refusals": (TWO + ["--max-refusals", "-1"], "max-refusals"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_gives_one_line_and_exit_code_2(case, tmp_path):
    args, words = BAD[case]
    log = tmp_path / "never.log"
    line = one_line_error(run(*args, "--log", str(log)))
    assert words in line
    assert not log.exists()


@pytest.mark.parametrize("content", ["not json", "[]", '{"dealer": 0, "hands": [[], []], "stock": []}'])
def test_bad_deal_file_gives_one_line_D3(content, tmp_path):
    path = tmp_path / "deal.json"
    path.write_text(content)
    assert "deal file" in one_line_error(run(*TWO, "--deal", str(path)))


def test_rounds_and_set_rounds_together_is_an_error():
    assert "not both" in one_line_error(run(*TWO, "--rounds", "2", "--set", "rounds=2"))


def test_unwritable_log_is_refused_before_playing(tmp_path):
    one_line_error(run(*TWO, "--log", str(tmp_path / "missing" / "x.log")))


@pytest.mark.parametrize("content", ["", "not json\n", '{"e": "round_start"}\n'])
def test_bad_log_gives_one_line(content, tmp_path):
    path = tmp_path / "bad.log"
    path.write_text(content)
    assert "bad event log" in one_line_error(run("replay", str(path)))


def test_a_tampered_log_fails_to_replay(tmp_path):
    log = tmp_path / "match.log"
    assert run(*TWO, "--seed", "4", "--rounds", "1", "--quiet", "--log", str(log)).exit_code == 0
    lines = log.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if '"e":"discard"' in line)
    event = json.loads(lines[at])
    event["card"] = "AS" if event["card"] != "AS" else "KS"
    lines[at] = json.dumps(event, separators=(",", ":"))
    log.write_text("\n".join(lines) + "\n")
    one_line_error(run("replay", str(log)))


def test_missing_log_gives_one_line(tmp_path):
    one_line_error(run("replay", str(tmp_path / "absent.log")))


def test_help_documents_every_option():
    top = run("--help")
    assert top.exit_code == 0 and "play" in top.stdout and "replay" in top.stdout
    text = run("play", "--help").stdout
    for option in ("--bot", "--preset", "--set", "--rounds", "--seed", "--deal", "--max-refusals",
                   "--quiet", "--json", "--log"):
        assert option in text
    assert "LOG" in run("replay", "--help").stdout


def test_play_help_names_every_builtin_bot_a_person_may_name():
    import bots
    from typer.main import get_command

    play = get_command(app).commands["play"]
    text = " ".join(next(p.help for p in play.params if p.name == "bot").split())
    usable = {game: ", ".join(n for n in declared.bots if not bots.analysis_only(n, game))
              for game, declared in bots.registered_bots().items()}
    assert f"NAME one of {usable.pop('ellibir')} (" in text
    assert all(f"{game}: {names})" in text for game, names in usable.items())


def test_python_dash_m_harness_runs_the_command():
    out = subprocess.run([sys.executable, "-m", "harness", "--help"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and "play" in out.stdout


@pytest.mark.parametrize("args", [
    ["play", "--bot", "builtin:greedy", "--bot", "builtin:random", "--seed", "abc"],
    ["play", "--bogus"],
    ["play", "--bot", "builtin:greedy", "--bot", "builtin:random", "--rounds", "x"],
])
def test_usage_errors_from_the_console_command_are_one_line(args):
    out = subprocess.run([sys.executable, "-m", "harness", *args], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), out.stderr
    assert out.stdout == ""


def test_every_file_a_help_text_names_exists():
    import re
    from pathlib import Path

    from typer.main import get_command

    top = Path(__file__).resolve().parent.parent

    def commands(command, path=()):
        yield path, command
        for name, sub in getattr(command, "commands", {}).items():
            yield from commands(sub, path + (name,))

    missing = []
    for path, command in commands(get_command(app)):
        for text in [command.help or ""] + [getattr(p, "help", None) or "" for p in command.params]:
            for name in re.findall(r"(?<![\w/.-])((?:harness|results|engine|bots|docs|tests|benchmarks)/[\w/.-]*\w)",
                                   text):
                if not ((top / name).exists() or (top / f"{name}.py").exists()):
                    missing.append((" ".join(path), name))
    assert missing == []


def test_a_one_round_match_is_said_in_the_singular():
    played = run(*TWO, "--seed", "1", "--rounds", "1")
    assert played.exit_code == 0 and "2 players, 1 round, seed 1" in played.stdout  # not "1 rounds"
