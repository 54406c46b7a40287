"""Bot programs over the protocol, in the sandbox: misbehaving bots become the right recorded faults,
the match completes under both fault policies, nothing hidden is sent, the reference bots and the
starter kits play, and ``ellibir bot check`` passes the kits.

Bots that need the engine (``uses_engine``) run sandboxed once BotProcess can bind the engine
into the sandbox, and unsandboxed until then.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from browser import Browser
from cli_runs import UNHURRIED
from engine import make_rules
from engine.scoring import match_ranks
from harness.cli.main import app
from harness.match.run import MatchSpec, make_players, run_spec
from harness.protocol.messages import TimeControl
from harness.sandbox.bubblewrap import sandbox_available

from test_protocol import PROTOCOL_BOTS, ROOT, first_seen, hidden_states, leaks, schema_errors

SANDBOX = sandbox_available()
ENGINE_SANDBOX = SANDBOX
NODE = pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")
KITS = [ROOT / "bots" / "kits" / "python", pytest.param(ROOT / "bots" / "kits" / "javascript", marks=NODE)]
PYTHON_KIT, JS_KIT = ROOT / "bots" / "kits" / "python", ROOT / "bots" / "kits" / "javascript"
REFERENCE = {name: ROOT / "bots" / "protocol" / name for name in ("random", "greedy", "pairs")}
needs_sandbox = pytest.mark.skipif(not SANDBOX, reason="the sandbox (bubblewrap, root) is not available here")
runner = CliRunner()


def children() -> list:
    """Live child processes of this test process (none may outlive a match), but for Python's own helpers
    (the fork server and resource tracker an in-process ``report`` starts for its viewers' workers) and
    the chromedriver of the worker's shared Chromium (tests/conftest.py)."""
    out = []
    me = os.getpid()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{name}/stat").read_text()
            command = Path(f"/proc/{name}/cmdline").read_bytes()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if (int(fields[1]) == me and fields[0] != "Z" and not MULTIPROCESSING_HELPER.search(command)
                and int(name) not in Browser.drivers):
            out.append(int(name))
    return out


MULTIPROCESSING_HELPER = re.compile(rb"from multiprocessing\.(forkserver|resource_tracker) import main")


def play(bots, seed=1, on_fault="forfeit", time=TimeControl(move=1.0, bank=2.0, first=5.0), records=None,
         sandbox=SANDBOX, **overrides):
    line_limit = overrides.pop("line_limit", 10_000)
    rules = make_rules(overrides.pop("preset", "standard"), {"players": len(bots), "rounds": 1, **overrides})
    spec = MatchSpec("ellibir", rules, seed, tuple(str(b) for b in bots), on_fault=on_fault, time=time,
                     line_limit=line_limit, sandbox=sandbox)
    players = make_players(spec, records)
    result, events, faults = run_spec(spec, players=players)
    assert not children(), "a bot process outlived its match"
    return result, events, faults, players


# Misbehaving bots -----------------------------------------------------------------------------

FAST = TimeControl(move=1.0, bank=2.0, first=5.0)
MISBEHAVING = {
    "wrong_seq": ("protocol", "wrong sequence id", FAST),
    "twice": ("protocol", "nobody asked for", FAST),
    "not_json": ("malformed", "not JSON", FAST),
    "long_line": ("line_too_long", "10000 bytes", FAST),
    "crash": ("crash", "exited with code 3", FAST),
    "stubborn": ("illegal_action", "more than 3 refusals", FAST),
    "decline": ("declined", "plays nothing", FAST),
    "slow": ("timeout", "no reply", TimeControl(move=0.2, bank=0.15, first=2.0)),
}


@pytest.mark.parametrize("on_fault", ["forfeit", "fallback"])
@pytest.mark.parametrize("bot", sorted(MISBEHAVING))
def test_a_misbehaving_bot_is_a_recorded_fault_and_the_match_completes(bot, on_fault):
    kind, words, clock = MISBEHAVING[bot]
    seat = 0 if on_fault == "forfeit" else 1
    bots = ["builtin:greedy", "builtin:greedy"]
    bots[seat] = PROTOCOL_BOTS / bot
    result, events, faults, players = play(bots, seed=3, on_fault=on_fault, time=clock)
    assert [(f.seat, f.kind) for f in faults] == [(seat, kind)], faults
    fault = faults[0]
    assert words in fault.reason and fault.player == f"test-{bot.replace('_', '-')}@0"  # name@version
    assert f"test bot {bot}: starting" in fault.stderr  # the tail of its stderr is kept
    if bot == "crash":
        assert "dying on purpose" in fault.stderr
    assert result.reason in ("complete", "void_rounds")
    assert any(e.get("e") == "round_end" for e in events)
    if on_fault == "forfeit":
        assert result.ranks[seat] == 2
    else:
        assert result.ranks == match_ranks(result.totals, False)
    assert "test bot" in players[seat].stderr  # and the whole (capped) stderr stays with the player


def test_two_faulty_bots_share_the_last_rank():
    result, _events, faults, _players = play([PROTOCOL_BOTS / "crash", "builtin:greedy", PROTOCOL_BOTS / "wrong_seq"])
    assert sorted((f.seat, f.kind) for f in faults) == [(0, "crash"), (2, "protocol")]
    assert result.ranks[0] == result.ranks[2] == 3 and result.ranks[1] == 1


def test_refused_decisions_are_explained_before_the_fault():
    record = []
    result, _events, faults, _players = play([PROTOCOL_BOTS / "stubborn", "builtin:greedy"], seed=5,
                                             records={0: record})
    out = [m for d, _p, m in record if d == "out"]
    errors = [m for m in out if m["type"] == "error"]
    assert [e["refusals"] for e in errors] == [1, 2, 3]
    assert all(e["rule"] == "T4" and "not in your hand" in e["reason"] for e in errors)
    requests = [m for m in out if m["type"] == "request"]
    assert [r["refusals"] for r in requests[-4:]] == [0, 1, 2, 3]
    assert faults[0].kind == "illegal_action"


def test_a_slow_bot_spends_its_bank_and_plays_on():
    record = []
    clock = TimeControl(move=0.2, bank=30.0, first=30.0)  # a bank no load exhausts
    result, _events, faults, _players = play([PROTOCOL_BOTS / "slow_start", "builtin:greedy"], time=clock,
                                             records={0: record})
    assert not faults
    banks = [m["time"]["bank"] for d, _p, m in record if d == "out" and m["type"] == "request"]
    assert banks[0] == 30.0 and banks[1] == 30.0  # the first decision has the longer allowance
    assert banks == sorted(banks, reverse=True)
    assert banks[-1] <= 30.0 - 2 * 0.1  # two decisions of 0.3 s took at least 0.1 s each from the bank
    limits = [m["time"]["limit"] for d, _p, m in record if d == "out" and m["type"] == "request"]
    assert limits[0] == 30.0 and set(limits[1:]) == {0.2}


def test_a_decision_s_clock_starts_when_the_bot_is_thawed_not_when_the_harness_comes_to_wait(monkeypatch):
    """A harness slowed between thawing the bot and waiting for its reply (a loaded machine) gives the
    bot no free time: the wait is charged to the decision. Here the harness sleeps 0.1 s after each
    thaw, against a limit of 0.05 s a decision, so each decision takes at least 0.05 s from the bank."""
    import time as clock_time

    from harness.players.program import SubprocessPlayer

    thaw_and_send = SubprocessPlayer._send_and_resume

    def slowed(self, messages):
        thaw_and_send(self, messages)
        clock_time.sleep(0.1)

    monkeypatch.setattr(SubprocessPlayer, "_send_and_resume", slowed)
    record = []
    clock = TimeControl(move=0.05, bank=60.0, first=60.0)
    _result, _events, faults, _players = play([PROTOCOL_BOTS / "greedy_full", "builtin:greedy"], time=clock,
                                              records={0: record})
    assert not faults
    banks = [m["time"]["bank"] for d, _p, m in record if d == "out" and m["type"] == "request"]
    assert len(banks) > 3 and banks[1] == 60.0
    spent = [a - b for a, b in zip(banks[1:], banks[2:])]  # by each decision after the first
    assert min(spent) >= 0.05 - 1e-9, spent


def test_a_bot_that_runs_out_of_bank_times_out():
    record = []
    clock = TimeControl(move=0.2, bank=0.15, first=2.0)
    _result, _events, faults, _players = play([PROTOCOL_BOTS / "slow", "builtin:greedy"], time=clock,
                                              records={0: record})
    assert [f.kind for f in faults] == ["timeout"]
    requests = [m for d, _p, m in record if d == "out" and m["type"] == "request"]
    # 0.3 s a decision against 0.2 s and a bank of 0.15: out at the third request, or the second when
    # the machine is slow (a slower machine only spends the bank sooner)
    assert len(requests) in (2, 3) and requests[-1]["time"]["bank"] < 0.15


# Reference bots and starter kits ----------------------------------------------------------------


def test_the_protocol_reference_bots_play_a_full_match():
    records = {0: [], 1: [], 2: []}
    bots = [REFERENCE["random"], REFERENCE["greedy"], REFERENCE["pairs"]]
    result, events, faults, players = play(bots, seed=2, records=records, sandbox=ENGINE_SANDBOX, rounds=11,
                                           time=TimeControl(move=2.0, bank=10.0, first=10.0))
    assert not faults, faults
    assert result.reason in ("complete", "void_rounds")
    assert sum(1 for r in result.rounds if not r["void"]) == 11 or result.reason == "void_rounds"
    for seat, record in records.items():
        ends = [m for d, _p, m in record if d == "out" and m["type"] == "match_end"]
        assert ends and ends[0]["ranks"] == result.ranks
        for k, (direction, _pos, message) in enumerate(record):
            if k < 30 or k % 10 == 0 or message["type"] in ("round_end", "match_end"):  # jsonschema is slow
                assert not schema_errors("to_bot" if direction == "out" else "from_bot", message), message


def decisions(events, seat=None):
    return [e["text"] for e in events if e.get("e") == "decision" and (seat is None or e["seat"] == seat)]


@pytest.mark.parametrize("preset", ["standard", "tr-wiki"])
def test_protocol_reference_bots_decide_exactly_as_in_process(preset):
    folder = [REFERENCE["greedy"], PROTOCOL_BOTS / "greedy_full", REFERENCE["pairs"]]
    builtin = ["builtin:greedy", "builtin:greedy", "builtin:pairs"]
    _r1, by_protocol, faults, _p = play(folder, seed=9, sandbox=ENGINE_SANDBOX, preset=preset, rounds=2)
    assert not faults
    _r2, in_process, _f, _p = play(builtin, seed=9, preset=preset, rounds=2)
    assert decisions(by_protocol) == decisions(in_process)


@pytest.mark.parametrize("kit", KITS, ids=["python", "javascript"])
def test_starter_kits_play_and_speak_the_schemas(kit):
    record = []
    result, events, faults, players = play([kit, "builtin:greedy"], seed=4, records={0: record},
                                           preset="tr-wiki")
    assert not faults, faults
    assert result.reason in ("complete", "void_rounds")
    replies = [m for d, _p, m in record if d == "in"]
    assert replies and all(not schema_errors("from_bot", m) for m in replies)
    assert "round 0" in players[0].stderr  # the kits log to stderr


def test_nothing_hidden_reaches_real_bot_programs():
    records = {s: [] for s in range(4)}
    bots = [PYTHON_KIT, REFERENCE["pairs"], JS_KIT if shutil.which("node") else PYTHON_KIT, REFERENCE["greedy"]]
    for seed in (1, 2):
        for r in records.values():
            r.clear()
        _result, events, faults, _players = play(bots, seed=seed, records=records, sandbox=ENGINE_SANDBOX,
                                                 preset="tr-wiki")
        assert not faults
        states = hidden_states(events)
        for seat, record in records.items():
            seen = first_seen(events, seat)
            sent = [(p, m) for d, p, m in record if d == "out"]
            assert len(sent) > 10
            for position, message in sent:
                assert not leaks(message, seat, events, states, position, seen), message["type"]


# The command line -----------------------------------------------------------------------------


@needs_sandbox
@pytest.mark.parametrize("kit", KITS, ids=["python", "javascript"])
def test_starter_kits_pass_bot_check(kit):
    result = runner.invoke(app, ["bot", "check", str(kit), *UNHURRIED])
    assert result.exit_code == 0, result.output
    assert "handshake: ok" in result.stdout and result.stdout.count(": ok,") == 3
    assert result.stdout.strip().endswith("PASS")


@needs_sandbox
def test_bot_check_fails_a_misbehaving_bot_with_reasons_and_stderr():
    result = runner.invoke(app, ["bot", "check", str(PROTOCOL_BOTS / "crash")])
    assert result.exit_code == 1
    assert "crash" in result.stdout and "FAIL" in result.stdout and "dying on purpose" in result.stdout
    declined = runner.invoke(app, ["bot", "check", str(PROTOCOL_BOTS / "decline")])
    assert declined.exit_code == 1 and "handshake: declined" in declined.stdout


@pytest.mark.parametrize("args,words", [
    (["bot", "check", "/nonexistent/bot"], "does not exist"),
    (["bot", "check", str(ROOT / "docs")], "no bot.toml"),
    (["bot", "check", str(ROOT / "bots" / "kits" / "python"), "--matches", "0"], "--matches"),
])
def test_bot_check_bad_input_is_one_line_and_exit_code_2(args, words):
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0]


@needs_sandbox
def test_play_mixes_builtin_and_folder_bots_and_reports_faults():
    args = ["play", "--bot", str(PYTHON_KIT), "--bot", "builtin:greedy", "--bot", str(PROTOCOL_BOTS / "crash"),
            "--rounds", "1", "--seed", "2", "--json", "--move-time", "5", "--bank", "30", "--first-time", "30"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["on_fault"] == "forfeit" and doc["bots"][0] == "starter-python@1.0"  # name@version, no path
    assert [(f["seat"], f["kind"]) for f in doc["faults"]] == [(2, "crash")]
    assert "dying on purpose" in doc["faults"][0]["stderr"] and doc["ranks"][2] == 3
    fallback = runner.invoke(app, args + ["--on-fault", "fallback"])
    doc = json.loads(fallback.stdout)
    assert doc["on_fault"] == "fallback" and doc["ranks"] == match_ranks(doc["totals"], False)


@pytest.mark.parametrize("extra,words", [
    (["--on-fault", "ignore"], "--on-fault"),
    (["--move-time", "0"], "--move-time"),
    (["--bank", "-1"], "--bank"),
    (["--first-time", "nan"], "--first-time"),
    (["--line-limit", "10"], "--line-limit"),
])
def test_play_bad_fault_and_time_options_are_one_line_errors(extra, words):
    result = runner.invoke(app, ["play", "--bot", "builtin:greedy", "--bot", "builtin:random", *extra])
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0]


def test_play_names_a_bad_bot_folder_in_one_line(tmp_path):
    (tmp_path / "bot.toml").write_text('name = "x"\n')
    result = runner.invoke(app, ["play", "--bot", str(tmp_path), "--bot", "builtin:random"])
    assert result.exit_code == 2 and "missing field 'version'" in result.stderr
    missing = runner.invoke(app, ["play", "--bot", "./no/such/bot", "--bot", "builtin:random"])
    assert missing.exit_code == 2 and "not a bot folder" in missing.stderr


def test_help_documents_the_new_options():
    text = runner.invoke(app, ["play", "--help"]).stdout
    for option in ("--on-fault", "--move-time", "--bank", "--first-time", "--line-limit"):
        assert option in text
    assert "--no-sandbox" not in text
    assert "check" in runner.invoke(app, ["bot", "--help"]).stdout
