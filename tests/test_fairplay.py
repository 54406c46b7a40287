"""Fair play, tried as an attacker would, with real bot programs in the real sandbox (issue: fair play).

1. Secret deals: a bot that searches small seeds under every derivation the harness uses finds its own
   hand when the seed is guessable (an explicit small --seed: the attack is real) and never otherwise.
2. No channel between bots: global counters a sandboxed bot could read do not move when other
   processes on the machine change them; pseudo-terminals cannot be opened.
3. Fair clocks: a bot whose turn it is not is frozen; the CPU limit follows the time control.
4. Bounded replies: what is kept of a refused or faulty reply is capped.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from harness.runs import plan as planning
from harness.cli.main import app
from harness.sandbox.bubblewrap import sandbox_available
from harness.players.seeds import bot_seed, deal_seeds, table_seed

from cli_runs import in_process

ROOT = Path(__file__).resolve().parent.parent
HUNTER = ROOT / "tests" / "fairplay" / "seed_hunter"
FOUND_EXIT = "exited with code 3"  # the hunter's way of saying it recovered the deal
needs_sandbox = pytest.mark.skipif(not sandbox_available(), reason="the sandbox (bubblewrap, root) is not available")
runner = CliRunner()


# 1. Secret deals ------------------------------------------------------------------------------------

def test_deal_seeds_are_keyed_by_the_run_seed_and_bot_seeds_are_another_key():
    seeds = deal_seeds(12345, 4)
    assert len(set(seeds)) == 4 and all(0 <= s < 2**63 for s in seeds)
    assert deal_seeds(12345, 4) == seeds and deal_seeds(12346, 4) != seeds
    assert table_seed(12345, 0, 1) not in seeds
    mine = bot_seed("777:0", "abc")
    assert 0 <= mine < 2**53 and mine == bot_seed("777:0", "abc")
    assert mine != bot_seed("777:1", "abc") and mine != bot_seed("777:0", "abd") and mine not in seeds


def test_a_default_run_seed_is_fresh_and_128_bits_wide():
    from harness.players.seeds import fresh_run_seed

    drawn = {fresh_run_seed() for _ in range(64)}
    assert len(drawn) == 64 and max(s.bit_length() for s in drawn) > 120
    assert min(s.bit_length() for s in drawn) > 24  # never below the attacker's 2^24 (p < 2^-98 per draw)


def _play(*args) -> dict:
    result = runner.invoke(app, ["play", "--bot", "builtin:greedy", "--bot", str(HUNTER), "--rounds", "1", "--json",
                                 *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


@needs_sandbox
def test_the_seed_hunter_recovers_a_guessable_seed_in_play():
    found = _play("--seed", "7")
    assert [f["reason"] for f in found["faults"]] == [f"closed its output; {FOUND_EXIT}"]
    assert "FOUND direct run seed 7" in found["faults"][0]["stderr"]


@needs_sandbox
def test_play_without_a_seed_draws_a_fresh_one_the_hunter_cannot_find_and_prints_it():
    first, second = _play(), _play()
    for doc in (first, second):
        assert doc["faults"] == [] and doc["seed"] >= 2**24
    assert first["seed"] != second["seed"]
    shown = runner.invoke(app, ["play", "--bot", "builtin:greedy", "--bot", "builtin:random", "--rounds", "1", "--quiet"])
    seed = int(re.search(r"deal seed (\d+) \(play the same match again with --seed \1\)", shown.output).group(1))
    again = runner.invoke(app, ["play", "--bot", "builtin:greedy", "--bot", "builtin:random", "--rounds", "1",
                                "--quiet", "--seed", str(seed)])
    assert again.output == shown.output  # the printed seed reproduces the match


@needs_sandbox
def test_bot_check_uses_fresh_seeds_the_hunter_cannot_find():
    outputs = [runner.invoke(app, ["bot", "check", str(HUNTER), "--matches", "2", "--rounds", "1"]) for _ in range(2)]
    for out in outputs:
        assert out.exit_code == 0 and "PASS" in out.output, out.output
    seeds = [re.findall(r"seed (\d+)[,)]", out.output) for out in outputs]
    assert all(len(s) == 2 for s in seeds) and set(seeds[0]).isdisjoint(seeds[1])
    assert all(int(s) >= 2**24 for s in seeds[0] + seeds[1])


@needs_sandbox
def test_the_seed_hunter_finds_nothing_in_a_default_tournament_and_finds_a_guessable_one(tmp_path):
    common = ["tournament", "run", "--executor", "local", "--bot", str(HUNTER), "--bot", "builtin:greedy", "--players", "2",
              "--deal-sets", "2", "--rounds", "1", "--workers", "2", "--quiet"]
    runs = {}
    for name, extra in (("default", []), ("guessable", ["--seed", "1"])):
        done = in_process(*common, "--out", tmp_path / name, *extra)
        assert done.returncode == 0, done.stderr
        runs[name] = pl.read_parquet(str(tmp_path / name / "matches" / "*.parquet"))
    hunter = pl.col("bot") == "seed-hunter@1"
    assert runs["guessable"].filter(hunter)["fault_reason"].str.contains(FOUND_EXIT).all()
    assert runs["default"].filter(hunter)["faults"].sum() == 0
    plan = json.loads((tmp_path / "default" / "run.json").read_text())
    assert plan["seed"].bit_length() > 24 and plan["name"].startswith("round-robin-")
    assert plan["deal_seeds"] == deal_seeds(plan["seed"], 2)


def test_default_run_names_do_not_collide():
    assert len({planning.default_name("gauntlet") for _ in range(20)}) == 20


# 2. No channel between bots -------------------------------------------------------------------------

PROBE = ROOT / "tests" / "fairplay" / "probe"
COUNTERS = ("pty_nr", "file_nr", "loadavg", "processes", "mem_free", "locks", "vmstat", "sysinfo_procs")


def _probe():
    from harness.players.botproc import BotProcess

    bot = BotProcess(PROBE, ["python3", "probe.py"])
    bot.start()
    return bot


def _ask(bot, command: str = "read") -> dict:
    import os

    os.write(bot._in, f"{command}\n".encode())  # the probe reads plain lines
    return bot.receive(10.0)


def _stir_the_machine():
    """Change every global counter from outside, as a colluding bot on the same machine would."""
    import fcntl
    import os
    import subprocess

    ptys = [os.openpty() for _ in range(6)]  # pty_nr
    files = [open("/dev/null") for _ in range(300)]  # file_nr
    children = [subprocess.Popen(["sleep", "5"]) for _ in range(20)]  # processes, loadavg, sysinfo
    lock = open("/usr/bin/env", "rb")
    fcntl.flock(lock, fcntl.LOCK_EX)  # locks
    ballast = bytearray(300 << 20)  # mem_free, vmstat
    ballast[:: 4096] = b"x" * len(ballast[:: 4096])
    return ptys, files, children, lock, ballast


def _calm(stirred) -> None:
    import os

    ptys, files, children, lock, _ = stirred
    for a, b in ptys:
        os.close(a), os.close(b)
    for f in files:
        f.close()
    for c in children:
        c.kill(), c.wait()
    lock.close()


@needs_sandbox
def test_global_counters_read_the_same_whatever_the_rest_of_the_machine_does():
    bot = _probe()
    try:
        before = _ask(bot)
        stirred = _stir_the_machine()
        try:
            after = _ask(bot)
        finally:
            _calm(stirred)
    finally:
        bot.close()
    for name in COUNTERS:
        assert after[name] == before[name], (name, before[name], after[name])
    assert before["pty_nr"].startswith("error") and before["sysinfo_procs"].startswith("error")
    assert before["inotify"].startswith("error")
    for name in ("syslog", "sync", "syncfs"):  # the kernel's log; a flush of the machine's every disk
        assert before[name] in ("error: Function not implemented", "unknown"), (name, before[name])
    assert before["flock_shared"] == after["flock_shared"] == "ok: locked"  # the host's lock is not seen


@needs_sandbox
def test_one_bot_can_neither_open_a_pty_nor_signal_another_through_a_shared_lock():
    sender, receiver = _probe(), _probe()
    try:
        quiet = _ask(receiver)
        sent = _ask(sender, "pty")
        assert sent["openpty"].startswith("error")
        _ask(sender, "hold")  # an exclusive lock on a file both see, kept
        heard = _ask(receiver)
    finally:
        sender.close(), receiver.close()
    assert heard == quiet and heard["flock_shared"] == "ok: locked"


@needs_sandbox
def test_neither_pid_1_nor_the_mounts_name_a_host_path(tmp_path):
    import os

    from harness.players.botproc import BotProcess

    folder = tmp_path / "where-am-i"
    folder.mkdir()
    (folder / "show.py").write_text("import sys\nfor _ in sys.stdin:\n"
                                    "    print(open('/proc/1/cmdline').read().replace('\\0', ' ') + '|' + "
                                    "open('/proc/self/mountinfo').read().replace('\\n', ';'), flush=True)\n")
    for path in (tmp_path, folder, folder / "show.py"):
        os.chmod(path, 0o755)
    bot = BotProcess(folder, ["python3", "show.py"], line_limit=100_000)
    bot.start()
    try:
        os.write(bot._in, b"go\n")
        line = bot._read_line(__import__("time").monotonic() + 10, 10).decode()
    finally:
        bot.close()
    cmdline, mounts = line.split("|", 1)
    for shown in (cmdline, mounts):
        assert str(tmp_path) not in shown and str(ROOT) not in shown and "/work" not in shown


# 3. Fair clocks -----------------------------------------------------------------------------------

HOG, THINKER = ROOT / "tests" / "fairplay" / "hog", ROOT / "tests" / "fairplay" / "thinker"


def _cpu_ticks(uid: int) -> dict:
    from harness.sandbox.slots import processes_of

    ticks = {}
    for pid in processes_of(uid):
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            ticks[pid] = int(fields[11]) + int(fields[12])  # utime + stime
        except (OSError, IndexError):
            pass
    return ticks


@needs_sandbox
def test_while_a_bot_decides_every_process_of_the_other_bot_is_frozen():
    from engine.game import make_rules
    from harness.match.run import MatchSpec, make_players, run_spec
    from harness.protocol.messages import TimeControl

    spec = MatchSpec("ellibir", make_rules("ellibir", "standard", {"players": 2, "rounds": 1}), 11,
                     (str(HOG), str(THINKER)), time=TimeControl(move=2.0, bank=5.0, first=10.0))
    players = make_players(spec)
    hog, thinker = players
    gained, decide = [], thinker.decide

    def watched_decide(view, legal):
        before = _cpu_ticks(hog.proc.uid)
        decision = decide(view, legal)
        after = _cpu_ticks(hog.proc.uid)
        gained.append((len(before), sum(after.get(p, t) - t for p, t in before.items())))
        return decision

    thinker.decide = watched_decide
    result, events, faults = run_spec(spec, players=players)
    assert faults == [] and result.reason != "unfinished"
    assert len(gained) >= 5
    assert all(count >= 4 for count, _ in gained)  # the hog and its three spinning children were there
    assert [g for _, g in gained] == [0] * len(gained)  # and gained no CPU time while the thinker thought


@needs_sandbox
def test_a_bot_is_frozen_at_each_change_of_turn_and_stays_thawed_within_its_turn():
    """At every request every other seat's bot is frozen (the freezer's own state); a bot is frozen
    once per turn, not once per decision (a turn of Ellibir has a draw and a discard at least)."""
    from engine.game import make_rules
    from harness.match.run import MatchSpec, make_players, run_spec
    from harness.protocol.messages import TimeControl

    greedy = str(ROOT / "bots" / "protocol" / "greedy")
    spec = MatchSpec("ellibir", make_rules("ellibir", "standard", {"players": 3, "rounds": 1}), 5,
                     (greedy,) * 3, time=TimeControl(move=2.0, bank=5.0, first=10.0))
    players = make_players(spec)
    moments, freezes = [], []

    def watch(seat, player):
        decide, freeze = player.decide, None

        def watched_decide(view, legal):
            nonlocal freeze
            if freeze is None:  # the process exists from start() on
                freeze = player.proc.freeze
                player.proc.freeze = lambda: (freezes.append(seat), freeze())
            others = [p.proc._jail.wait_frozen(1.0) for p in players if p is not player]
            moments.append((seat, view.turn, others))
            return decide(view, legal)

        player.decide = watched_decide

    for seat, player in enumerate(players):
        watch(seat, player)
    result, events, faults = run_spec(spec, players=players)
    assert faults == [] and result.reason != "unfinished"
    assert all(all(others) for _, _, others in moments)
    turns = {(seat, turn) for seat, turn, _ in moments}
    assert len(moments) > len(turns)  # turns of more than one decision were played
    assert len(freezes) <= len(turns) + len(players)  # once a turn (and at the match's end)


def test_the_cpu_limit_follows_the_clock():
    from harness.players.program import CPU_MARGIN, cpu_allowance
    from harness.protocol.messages import TimeControl

    clock = TimeControl(move=0.15, bank=10.0, first=10.0)
    assert cpu_allowance(clock, 0) == 20.0 + CPU_MARGIN
    # a bot thinking 0.15 s on each of 2,000 decisions is within its clock, so within the CPU limit
    # (a fixed 60 s killed it after about 360)
    assert cpu_allowance(clock, 2000) >= 0.15 * 2000


@needs_sandbox
def test_a_steady_thinker_is_not_killed_by_the_cpu_limit_and_a_spinner_past_an_explicit_limit_is(tmp_path):
    from engine.game import make_rules
    from harness.match.run import MatchSpec, make_players, run_spec
    from harness.players.program import CPU_STEP, BotOptions, SubprocessPlayer
    from harness.players.manifest import load_manifest
    from harness.protocol.messages import TimeControl

    rules = make_rules("ellibir", "standard", {"players": 2, "rounds": 1})
    clock = TimeControl(move=0.3, bank=60.0, first=10.0)  # a loaded machine slows the think in wall time: the bank covers it
    spec = MatchSpec("ellibir", rules, 5, ("builtin:greedy", str(THINKER)), time=clock)
    players = make_players(spec)
    thinker = players[1]
    result, _, faults = run_spec(spec, players=players)
    assert faults == [] and thinker.decisions > 5
    assert thinker.options.cpu_limit is None and CPU_STEP * clock.move > thinker.decisions * 0.1

    slow = tmp_path / "slow"
    slow.mkdir()
    for name in ("bot.toml", "main.py"):
        (slow / name).write_text((THINKER / name).read_text().replace('["python3", "main.py"]',
                                                                       '["python3", "main.py", "30"]'))
    for path in (tmp_path, slow, *slow.iterdir()):
        path.chmod(0o755)
    options = BotOptions(time=TimeControl(move=60.0, bank=0.0, first=10.0), cpu_limit=2.0)
    player = SubprocessPlayer(load_manifest(slow), options)
    spec = MatchSpec("ellibir", rules, 5, ("builtin:greedy", str(slow)), time=options.time)
    result, _, faults = run_spec(spec, players=[make_players(spec)[0], player])
    assert [f.kind for f in faults] == ["crash"] and "CPU limit 2 s" in faults[0].reason


# 4. Bounded replies -------------------------------------------------------------------------------

@needs_sandbox
def test_what_is_kept_of_oversized_and_refused_replies_is_bounded():
    from engine.events import to_lines
    from engine.game import make_rules
    from harness.match.run import MatchSpec, run_spec
    from harness.players.base import LINE_LIMIT, REASON_LIMIT

    from test_protocol import PROTOCOL_BOTS

    rules = make_rules("ellibir", "standard", {"players": 2, "rounds": 1})
    logs = {}
    for name in ("bloat_small", "bloat_huge"):
        spec = MatchSpec("ellibir", rules, 3, (str(PROTOCOL_BOTS / name), "builtin:greedy"))
        result, events, faults = run_spec(spec)
        logs[name] = (to_lines(events), faults)
    small_log, small_faults = logs["bloat_small"]
    refused = [line for line in small_log.splitlines() if '"refused"' in line]
    assert refused and [f.kind for f in small_faults] == ["illegal_action"]  # refused until the limit
    assert max(map(len, small_log.splitlines())) < LINE_LIMIT + 1000
    huge_log, huge_faults = logs["bloat_huge"]
    assert [f.kind for f in huge_faults] == ["line_too_long"]  # a 750 kB reply is a fault, not a refusal
    assert len(huge_log) < 200_000 and "2C, 2C, 2C" not in huge_log
    assert len(huge_faults[0].reason) <= REASON_LIMIT + 40


def test_a_long_fault_reason_is_cut():
    from harness.players.base import REASON_LIMIT
    from harness.players.seats import Fault

    fault = Fault(0, "bot", "protocol", "x" * 100_000, 3)
    assert len(fault.reason) < REASON_LIMIT + 40 and fault.reason.endswith("(100,000 characters in all)")


def test_the_uid_pool_grows_with_the_machine_and_an_exhausted_pool_says_what_to_do(tmp_path, monkeypatch):
    import os

    from harness.sandbox import slots as sandbox

    assert sandbox.SLOT_COUNT >= sandbox.SEATS_PER_CORE * (os.cpu_count() or 1) >= 8
    monkeypatch.setattr(os, "cpu_count", lambda: 96)
    assert sandbox.slot_count() == 2304  # on 96 cores: four-seat matches twice over, and 16 kept processes a task (harness/players/reuse.py)
    monkeypatch.setenv("ELLIBIR_BOT_SLOTS", "2000")
    assert sandbox.slot_count() == 2000
    pool = sandbox.SlotPool(tmp_path, first_uid=64900, count=2)
    held = [pool.acquire(), pool.acquire()]
    with pytest.raises(sandbox.SandboxError, match="run fewer tasks at once .* ELLIBIR_BOT_SLOTS"):
        pool.acquire(timeout=0.2)
    for uid in held:
        pool.release(uid)


def test_a_cpu_limit_under_a_second_is_refused_in_one_line(tmp_path):
    shown = runner.invoke(app, ["play", "--bot", "builtin:greedy", "--bot", "builtin:random", "--cpu-limit", "0.5"])
    assert shown.exit_code == 2 and "--cpu-limit must be 1 to 86,400 seconds" in shown.output
    done = in_process("tournament", "run", "--executor", "local", "--bot", "builtin:greedy", "--bot", "builtin:random", "--cpu-limit", "0",
                      "--out", tmp_path / "run")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "--cpu-limit" in done.stderr
    assert not (tmp_path / "run").exists()


@needs_sandbox
def test_a_bot_left_frozen_by_a_harness_that_died_is_cleared_and_its_slot_reused():
    from harness.players.botproc import BotProcess
    from harness.sandbox.slots import SLOTS, SlotPool, processes_of

    bot = BotProcess(PROBE, ["python3", "probe.py"])
    bot.start()
    uid = bot.uid
    _ask(bot)
    bot.freeze()
    SLOTS.release(uid)  # the harness "dies": its lock goes, its frozen bot stays (SIGKILL cannot reach it)
    leftover = processes_of(uid)
    assert leftover
    pool = SlotPool(SLOTS.directory, first_uid=uid, count=1)
    try:
        assert pool.acquire(timeout=5.0) == uid
        assert processes_of(uid) == []
    finally:
        pool.release(uid)
        bot._jail, bot.uid = None, None  # nothing left for it to clean
        bot.close()
