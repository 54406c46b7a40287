"""Hostile bots against the real sandbox: each is contained, recorded as the right fault, and leaves
no process behind."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import sysconfig
import threading
import time
import tomllib
from contextlib import contextmanager
from pathlib import Path

import pytest

from harness.sandbox import bubblewrap as sandbox
from harness.players.botproc import ERR_BATCH, BotFault, BotProcess
from harness.sandbox.bubblewrap import Limits, capabilities, cgroup_parent, sandbox_available
from harness.sandbox.slots import SLOTS, processes_of

pytestmark = pytest.mark.skipif(
    not sandbox_available(), reason=f"bubblewrap cannot sandbox bots here: {capabilities()['problem']}"
)

HOSTILE = Path(__file__).parent / "hostile"
REPO = Path(__file__).resolve().parents[1]


def command(name: str) -> list[str]:
    with open(HOSTILE / name / "bot.toml", "rb") as f:
        return tomllib.load(f)["command"]


SLACK = 30.0  # seconds: bounds that only a hang exceeds, however loaded the machine


def assert_gone(bot: BotProcess) -> None:
    assert processes_of(bot.uid) == [], f"processes of uid {bot.uid} survived close()"
    for controller in ("memory", "pids"):
        parent = cgroup_parent(controller)
        if parent:
            assert not (parent / f"ellibir-{bot.uid}").exists(), f"the {controller} cgroup survived close()"


@contextmanager
def running(name: str, limits: Limits = Limits(), **options):
    bot = BotProcess(HOSTILE / name, command(name), limits, **options)
    bot.start()
    try:
        yield bot
    finally:
        bot.close()
    if bot.sandbox:
        assert_gone(bot)


def fault_of(bot: BotProcess, timeout: float) -> BotFault:
    with pytest.raises(BotFault) as caught:
        bot.receive(timeout)
    return caught.value


def test_capabilities_report():
    caps = capabilities()
    print(caps)
    assert caps["sandbox"] and caps["namespaces"]
    assert caps["python"].startswith(sys.base_prefix) or os.path.exists(caps["python"])


def test_echo_bot_happy_path():
    with running("echo") as bot:
        for n in range(3):
            bot.send({"n": n, "text": "ğüşıöç"})
            assert bot.receive(5.0) == {"ok": True, "echo": {"n": n, "text": "ğüşıöç"}}
            assert bot.elapsed > 0
        assert not bot.pending()
        assert bot.stderr_tail() == ""
    assert bot.returncode == 0


def test_node_bot_runs_in_the_sandbox():
    with running("node_echo") as bot:
        bot.send({"hello": [1, 2]})
        reply = bot.receive(10.0)
    assert reply["ok"] and reply["echo"] == {"hello": [1, 2]} and reply["runtime"].startswith("node v")


JAVA_ECHO = """import java.io.*;
public class Echo {
    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        for (String line; (line = in.readLine()) != null; ) {
            System.out.println("{\\"ok\\": true, \\"runtime\\": \\"java " + System.getProperty("java.version") + "\\"}");
            System.out.flush();
        }
    }
}
"""


@pytest.mark.skipif(not os.path.exists("/usr/bin/javac"), reason="no JDK here")
def test_a_java_bot_compiled_at_start_runs_in_the_sandbox(tmp_path):
    folder = tmp_path / "java"
    folder.mkdir()
    (folder / "Echo.java").write_text(JAVA_ECHO)
    for path in (tmp_path, folder, folder / "Echo.java"):
        path.chmod(0o755)
    # A JVM starts a thread per core for its collector and compilers, and every thread counts against the
    # sandbox's 32 tasks: the flags of docs/protocol.md keep it to a few.
    flags = "-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:CICompilerCount=1"
    javac_flags = " ".join("-J" + f for f in flags.split())
    command = ["sh", "-c", f"javac {javac_flags} -d /tmp Echo.java && exec java {flags} -cp /tmp Echo"]
    with BotProcess(folder, command, Limits(memory_mb=1024)) as bot:
        bot.send({"hello": 1})
        reply = bot.receive(60.0)
    assert reply["ok"] and reply["runtime"].startswith("java ")


def test_malformed_replies():
    with running("malformed") as bot:
        bot.send({})
        assert fault_of(bot, 5.0).kind == "malformed"
        bot.send({})
        fault = fault_of(bot, 5.0)
        assert fault.kind == "malformed" and "not a JSON object" in fault.reason
        bot.send({})
        assert bot.receive(5.0) == {"ok": True}


def test_infinite_loop_times_out_then_hits_the_cpu_limit():
    with running("spin", Limits(cpu_seconds=1)) as bot:
        bot.send({})
        fault = fault_of(bot, 0.3)
        assert fault.kind == "timeout" and 0.3 <= bot.elapsed < SLACK  # not before its time, nor for ever
        fault = fault_of(bot, 10.0)
        assert fault.kind == "crash" and "SIGXCPU" in fault.reason


def test_sleeper_times_out():
    with running("sleeper") as bot:
        bot.send({})
        start = time.monotonic()
        assert fault_of(bot, 0.5).kind == "timeout"
        assert 0.5 <= time.monotonic() - start < SLACK


def test_crash_at_start():
    with running("crash_start") as bot:
        fault = fault_of(bot, 5.0)
        assert fault.kind == "crash" and "exited with code 1" in fault.reason
        assert "crash at start" in fault.stderr
        with pytest.raises(BotFault) as caught:
            bot.send({"too": "late"})
        assert caught.value.kind == "crash"


def test_crash_after_a_few_messages():
    with running("crash_later") as bot:
        for _ in range(3):
            bot.send({})
            assert bot.receive(5.0) == {"ok": True}
        bot.send({})
        fault = fault_of(bot, 5.0)
        assert fault.kind == "crash" and "exited with code 7" in fault.reason
        assert "giving up" in fault.stderr
    assert bot.returncode == 7


def test_stdout_flood_without_newline_is_cut_and_killed():
    with running("flood_noline", line_limit=100_000) as bot:
        bot.send({})
        start = time.monotonic()
        assert fault_of(bot, 60.0).kind == "line_too_long"
        assert time.monotonic() - start < SLACK  # at the cap, not at the timeout
        bot._proc.wait(2.0)
        assert bot.returncode == -9


def test_stdout_flood_of_lines_keeps_the_harness_working():
    with running("flood_lines") as bot:
        bot.send({})
        assert bot.receive(5.0) == {"ok": True}
        assert bot.pending()  # a second reply to one request
        assert bot.receive(5.0) == {"ok": True}
        start = time.monotonic()
    assert time.monotonic() - start < SLACK  # close() kills a flooding bot; it does not wait for it


def test_stderr_flood_is_capped():
    with running("flood_stderr", stderr_limit=10_000) as bot:
        for n in range(20):
            bot.send({"n": n})
            assert bot.receive(5.0) == {"ok": True}
        time.sleep(0.1)
        assert len(bot._err) <= 10_000
        tail = bot.stderr_tail(100_000)
        assert 0 < len(tail) <= 10_000 and set(tail) <= {"e", "\n"}
        assert len(bot.stderr_tail(50)) == 50


def test_a_traced_stderr_flood_does_not_hold_a_reply():
    """Traced, a reply first takes what stderr holds (so its lines come before the reply), a few chunks at
    most: a bot writing stderr without end still gets each reply through. The bot writes a line to
    stderr before each reply, so each reply has stderr before it in the trace; the reply's own reading
    of stderr (in this thread) is counted, not timed."""
    seen = []
    with running("flood_stderr", stderr_limit=10_000) as bot:
        here = threading.get_ident()
        bot.tap = lambda direction, data: seen.append((direction, threading.get_ident() == here))
        for n in range(20):
            bot.send({"n": n})
            assert bot.receive(30.0) == {"ok": True}
        assert len(bot._err) <= 10_000
    replies = [i for i, (direction, _) in enumerate(seen) if direction == "<"]
    assert len(replies) == 20
    for before, reply in zip([-1] + replies, replies):
        between = seen[before + 1:reply]
        assert ("!", True) in between or ("!", False) in between  # stderr, then the reply
        assert sum(1 for direction, mine in between if direction == "!" and mine) <= ERR_BATCH


def test_fork_bomb_is_contained():
    with running("fork_bomb", Limits(processes=16)) as bot:
        bot.send({})
        reply = bot.receive(10.0)
        print("fork bomb:", reply)
        assert reply["forks"] < 16 and "Resource temporarily unavailable" in reply["error"]
        assert len(processes_of(bot.uid)) <= 16
        assert subprocess.run(["/bin/true"], timeout=5).returncode == 0  # the host still forks


def test_memory_hog_is_killed():
    with running("memory_hog", Limits(memory_mb=128)) as bot:
        bot.send({})
        fault = fault_of(bot, 20.0)
        print("memory hog:", fault.reason)
        assert fault.kind == "crash"
        assert "out of memory" in fault.reason or "MemoryError" in fault.stderr


def test_network_is_unreachable():
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.settimeout(2.0)
        port = server.getsockname()[1]
        with running("net", sandbox=False) as bot:  # the same bot, unsandboxed, reaches the listener
            bot.send({"host": "127.0.0.1", "port": port})
            assert bot.receive(10.0)["seen"]["connect"] == "connected"
            conn, _ = server.accept()
            conn.close()
        server.settimeout(0.2)
        with running("net") as bot:
            bot.send({"host": "127.0.0.1", "port": port})
            seen = bot.receive(10.0)["seen"]
            print("sandboxed bot saw:", bot.stderr_tail())
            with pytest.raises(TimeoutError):
                server.accept()
    assert seen["connect"] != "connected"
    assert all(v.startswith(("PermissionError", "OSError")) for v in seen.values()), seen


def test_runs_as_the_slot_uid_without_privileges():
    with running("snoop") as bot:
        bot.send({})
        me = bot.receive(5.0)["identity"]
    uid = str(bot.uid)
    assert me["Uid"] == [uid] * 4 and me["Gid"] == [uid] * 4 and me["Groups"] == []
    assert {me[k][0] for k in ("CapEff", "CapPrm", "CapBnd", "CapAmb")} == {"0000000000000000"}
    assert me["NoNewPrivs"] == ["1"] and me["hostname"] == "bot" and me["cwd"] == "/bot"
    assert set(me["env"]) <= {"PATH", "HOME", "TMPDIR", "LANG", "PWD", "JAVA_TOOL_OPTIONS"}
    assert me["Seccomp"] == (["2"] if capabilities()["seccomp"] else ["0"])
    assert me["pid"] < 10  # a pid namespace of its own
    assert "work" not in me["root"]


def test_extra_read_only_binds_and_a_bare_interpreter():
    site = sysconfig.get_path("purelib", vars={"base": sys.base_prefix, "platbase": sys.base_prefix})
    binds = [(REPO / "engine", "/ellibir/engine")]
    with running("snoop", binds=binds) as bot:
        bot.send({"reads": ["/ellibir/engine/__init__.py", site], "writes": {"/ellibir/engine/x": 1}})
        seen = bot.receive(5.0)
    assert seen["reads"]["/ellibir/engine/__init__.py"].startswith("read:")
    assert seen["reads"][site] == "listed: "  # the harness's packages are hidden from bots
    assert seen["writes"]["/ellibir/engine/x"].startswith("refused")
    for dest in ("/usr/lib/x", "relative", "/tmp/x", "/"):
        with pytest.raises(sandbox.SandboxError):
            BotProcess(HOSTILE / "echo", command("echo"), binds=[(REPO, dest)]).start()


def test_without_seccomp_and_cgroups_the_rest_still_holds(monkeypatch):
    monkeypatch.setattr(sandbox, "_seccomp_program", lambda: None)
    monkeypatch.setattr(sandbox, "cgroup_parent", lambda controller: None)
    with socket.create_server(("127.0.0.1", 0)) as server, running("net") as bot:
        server.settimeout(0.2)
        bot.send({"host": "127.0.0.1", "port": server.getsockname()[1]})
        seen = bot.receive(10.0)["seen"]
        with pytest.raises(TimeoutError):
            server.accept()
    assert "ConnectionRefused" in seen["connect"]  # the sandbox's own loopback, not the host's
    with running("memory_hog", Limits(address_space_mb=256)) as bot:
        bot.send({})
        fault = fault_of(bot, 20.0)
    assert fault.kind == "crash" and "MemoryError" in fault.stderr


def test_no_reads_outside_its_own_view():
    marker = Path(f"/tmp/ellibir-marker-{os.getpid()}")
    shm = Path(f"/dev/shm/ellibir-marker-{os.getpid()}")
    targets = [marker, shm] if Path("/dev/shm").is_dir() else [marker]
    for path in targets:
        path.write_text("host secret")
        path.chmod(0o644)
    reads = [
        "/etc/passwd",
        "/etc/shadow",
        str(REPO),
        str(REPO / "README.md"),
        "/work/main",
        str(HOSTILE / "echo" / "bot.py"),
        f"/proc/{os.getpid()}/cmdline",
        f"/proc/{os.getpid()}/environ",
        *map(str, targets),
    ]
    try:
        with running("snoop") as bot:
            bot.send({"reads": [*reads, "/bot/bot.py"]})
            seen = bot.receive(5.0)["reads"]
    finally:
        for path in targets:
            path.unlink()
    assert seen.pop("/bot/bot.py").startswith("read:")
    assert all(v.startswith("refused") for v in seen.values()), seen


def test_no_writes_outside_its_own_tmp():
    limits = Limits(tmp_mb=8, file_size_mb=2)
    writes = {"/bot/x": 1, "/x": 1, "/etc/x": 1, "/usr/x": 1, "/dev/shm/x": 1, "/proc/x": 1, "/root/x": 1}
    big = 2 << 20
    writes |= {"/tmp/small": 1000, "/tmp/over-fsize": big + 1, "/tmp/a": big, "/tmp/b": big, "/tmp/c": big}
    with running("snoop", limits) as bot:
        bot.send({"writes": writes})
        seen = bot.receive(5.0)["writes"]
    assert seen.pop("/tmp/small") == seen.pop("/tmp/a") == seen.pop("/tmp/b") == "wrote"
    assert "File too large" in seen["/tmp/over-fsize"] and "No space left" in seen["/tmp/c"]
    assert all(v.startswith("refused") for v in seen.values()), seen


def test_double_forked_child_dies_with_the_bot():
    with running("daemon") as bot:
        bot.send({})
        assert bot.receive(5.0) == {"ok": True}
        time.sleep(0.05)
        assert len(processes_of(bot.uid)) >= 2  # the bot and its runaway grandchild
        bot.send({})
        assert bot.receive(5.0) == {"ok": True}


def test_slots_are_machine_wide():
    with running("echo") as a, running("echo") as b:
        assert a.uid != b.uid
        probe = (
            "import fcntl, sys; f = open(sys.argv[1], 'a')\n"
            "try: fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)\n"
            "except BlockingIOError: sys.exit(3)\n"
        )
        taken = subprocess.run([sys.executable, "-c", probe, str(SLOTS.directory / f"{a.uid}.lock")])
        assert taken.returncode == 3


def test_a_bot_outlives_the_thread_that_started_it():
    bot = BotProcess(HOSTILE / "echo", command("echo"))
    starter = threading.Thread(target=bot.start)
    starter.start()
    starter.join()
    time.sleep(0.1)
    with bot:
        bot.send({})
        assert bot.receive(5.0)["ok"]
    assert_gone(bot)


def test_close_is_idempotent():
    bot = BotProcess(HOSTILE / "echo", command("echo"))
    bot.close()
    with bot:
        bot.send({})
        assert bot.receive(5.0)["ok"]
    bot.close()
    assert_gone(bot)


@pytest.mark.parametrize("moment", ["freeze", "thaw"])
def test_a_stop_signal_during_a_freeze_or_thaw_leaves_close_free_to_kill_the_bot(moment, monkeypatch):
    """A stop signal (the runner raises KeyboardInterrupt from its handler) can land between the
    freezer's write and the sandbox's note of it: just after FROZEN is written, or just before THAWED
    is. Either way close() must still thaw and kill the bot (a frozen process does not die until
    thawed), not wait on it for ever."""
    with running("echo") as bot:
        if not bot.sandbox or cgroup_parent("freezer") is None:
            pytest.skip("no cgroup freezer here")
        jail = bot._jail
        if moment == "thaw":
            jail.freeze()
        write = os.pwrite

        def interrupted(fd, data, offset):
            if data == b"FROZEN":
                write(fd, data, offset)  # the signal arrives as the write returns
            raise KeyboardInterrupt

        monkeypatch.setattr(os, "pwrite", interrupted)
        with pytest.raises(KeyboardInterrupt):
            jail.freeze() if moment == "freeze" else jail.thaw()
        monkeypatch.setattr(os, "pwrite", write)
        closing = threading.Thread(target=bot.close, daemon=True)
        closing.start()
        closing.join(SLACK)  # a bound on a hang, not a timing
        if closing.is_alive():
            (cgroup_parent("freezer") / f"ellibir-{bot.uid}" / "freezer.state").write_text("THAWED")
            closing.join(SLACK)
            pytest.fail("close() waited on a frozen bot")
