"""One subprocess bot: JSON lines in and out, with harness-side deadlines, line caps and stderr capture.

``BotProcess`` is all the protocol layer uses::

    with BotProcess(folder, ["python3", "bot.py"], Limits(cpu_seconds=30)) as bot:
        bot.send({"type": "hello"})
        reply = bot.receive(timeout=2.0)   # a dict, or raises BotFault

A ``BotFault`` has ``kind`` ("timeout", "crash", "malformed", "line_too_long"), ``reason`` and the
tail of the bot's ``stderr``. After a timeout the bot is left running; the caller decides (usually
``close()``). A bot that floods its output without a newline is killed at once.
"""

from __future__ import annotations

import os
import resource
import select
import signal
import subprocess
import threading
import time
from dataclasses import replace
from pathlib import Path

from harness.sandbox.bubblewrap import (
    Limits, Sandbox, SandboxError, bot_path, java_options, rlimit_args, sandbox_problem,
)
from harness.sandbox.slots import SLOTS

try:
    import orjson

    def dumps(obj) -> bytes:
        return orjson.dumps(obj)

    loads = orjson.loads
except ImportError:  # pragma: no cover - orjson is a dependency
    import json

    def dumps(obj) -> bytes:
        return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode()

    loads = json.loads

FAULT_KINDS = ("timeout", "crash", "malformed", "line_too_long")
CHUNK = 65536
ERR_BATCH = 4  # chunks of stderr read at one go: what a pipe holds, and no more
PIPE_MOST = 1 << 20  # the most a pipe can hold (fs.pipe-max-size), whatever the bot asks of it
FROZEN_WRITE = 16384  # bytes written to a frozen bot at most: a pipe holds 64 kB unread
FREEZE_WAIT = 0.05  # seconds a turn's end waits for the freezer to report the bot stopped
NEXT_LINES, NEXT_BYTES = 4, 1000  # what a fault quotes of the lines after a first line that is not JSON


class BotFault(Exception):
    def __init__(self, kind: str, reason: str, stderr: str = ""):
        super().__init__(f"{kind}: {reason}")
        self.kind, self.reason, self.stderr = kind, reason, stderr


class BotProcess:
    def __init__(
        self,
        folder: Path,
        command: list[str],
        limits: Limits = Limits(),
        line_limit: int = 4_096,
        stderr_limit: int = 64_000,
        sandbox: bool = True,
        binds=(),
        tap=None,
        keep_tmp=None,
    ):
        """``binds``: extra read-only (source, destination) pairs for the sandbox; ignored without it.
        ``tap``: called with ``(">", line)`` for each line sent, ``("<", line)`` for each line received
        and ``("!", chunk)`` for stderr as it comes (``("!", None)`` at its end): harness/players/trace.py.
        ``keep_tmp``: a host folder that becomes the bot's /tmp and survives it (local debugging only)."""
        self.folder, self.command, self.limits, self.binds = Path(folder), list(command), limits, list(binds)
        self.tap, self.keep_tmp = tap, (Path(keep_tmp) if keep_tmp is not None else None)
        self.lines_in = 0  # lines received so far: none at a timeout suggests a bot that does not flush
        self.line_limit, self.stderr_limit, self.sandbox = line_limit, stderr_limit, sandbox
        self.elapsed = 0.0
        self.uid: int | None = None
        self._jail: Sandbox | None = None
        self._proc: subprocess.Popen | None = None
        self._buf = bytearray()
        self._scanned = 0  # bytes of _buf known to hold no newline
        self._eof = False
        self._err = bytearray()
        self._err_lock = threading.Lock()
        self._err_read = threading.Lock()  # one reader of stderr at a time, so its chunks are traced in order
        self._err_done = False
        self._err_thread: threading.Thread | None = None
        self._closed = False
        self._cpuacct_base = 0.0
        self.matches = 0  # matches begun in this process

    # ------------------------------------------------------------ life

    def start(self) -> None:
        if self._proc is not None:
            return
        cwd = None
        if self.sandbox:
            problem = sandbox_problem()
            if problem:
                raise SandboxError(f"cannot sandbox bots here: {problem}")
            self.uid = SLOTS.acquire()
            try:
                self._jail = Sandbox(self.folder, self.command, self.limits, self.uid, self.binds,
                                     tmp_dir=self.keep_tmp)
            except BaseException:
                SLOTS.release(self.uid)
                raise
            argv, fds, env = self._jail.argv, self._jail.pass_fds, {}
        else:
            argv, fds, cwd = rlimit_args(self.limits, nproc=False) + self.command, [], self.folder
            env = {"PATH": bot_path(), "HOME": str(self.folder), "LANG": "C.UTF-8",
                   "JAVA_TOOL_OPTIONS": java_options(self.limits)}
            if self.keep_tmp is not None:
                self.keep_tmp.mkdir(parents=True, exist_ok=True)
                env["TMPDIR"] = str(self.keep_tmp)
        try:
            self._proc = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                pass_fds=fds, cwd=cwd, env=env, start_new_session=True, bufsize=0,
            )  # fmt: skip
        except BaseException:
            self._release()
            raise
        if self._jail:
            self._jail.spawned()
        self.matches = 1
        self._out = self._proc.stdout.fileno()
        self._in = self._proc.stdin.fileno()
        os.set_blocking(self._out, False)
        os.set_blocking(self._in, False)
        self._poll_in = select.poll()
        self._poll_in.register(self._out, select.POLLIN)
        self._poll_out = select.poll()
        self._poll_out.register(self._in, select.POLLOUT)
        self._err_thread = threading.Thread(target=self._drain_stderr, name="bot-stderr", daemon=True)
        self._err_thread.start()

    def close(self, grace: float = 0.2) -> None:
        """Close stdin, give the bot ``grace`` seconds to exit, then kill everything it started."""
        if self._closed or self._proc is None:
            return
        self._closed = True
        proc = self._proc
        self.thaw()
        try:
            proc.stdin.close()
        except OSError:
            pass
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            self._kill()
            proc.wait()
        self._release()
        if self._err_thread:
            self._err_thread.join(1.0)
        proc.stdout.close()
        if not (self._err_thread and self._err_thread.is_alive()):
            proc.stderr.close()

    def freeze(self) -> None:
        """Stop the bot's every process until ``thaw`` (its turn is over); sandboxed bots only. Returns
        once the freezer says they are stopped (or after FREEZE_WAIT): on a loaded machine the freezer
        can take a scheduler tick, which the next bot's turn would otherwise share with this one."""
        if self._jail is not None and self.returncode is None:
            self._jail.freeze()
            self._jail.wait_frozen(FREEZE_WAIT)

    def thaw(self) -> None:
        if self._jail is not None:
            self._jail.thaw()

    def raise_cpu_limit(self, seconds: int) -> None:
        """Raise RLIMIT_CPU of every process of the bot to ``seconds`` (SIGXCPU), SIGKILL a second later."""
        self.limits = replace(self.limits, cpu_seconds=seconds)
        for pid in self._pids():
            try:
                resource.prlimit(pid, resource.RLIMIT_CPU, (seconds, seconds + 1))
            except (ProcessLookupError, PermissionError):
                pass

    def _pids(self) -> list[int]:
        return self._jail.pids() if self._jail is not None else ([self._proc.pid] if self._proc else [])

    def cpu_time(self) -> float | None:
        """CPU seconds the bot's processes have used in this match, where the machine can tell (cgroup cpuacct)."""
        used = self._jail.cpu_time() if self._jail is not None else None
        return None if used is None else used - self._cpuacct_base

    def memory_bytes(self) -> int | None:
        """Memory the bot's processes hold now, where the machine can tell (cgroup memory)."""
        try:
            return self._jail.memory_bytes() if self._jail is not None else None
        except (OSError, ValueError):
            return None

    # ------------------------------------------------------------ many matches (protocol 2)

    def end_match(self) -> bool:
        """The match is over and the bot may serve another: freeze it and empty its /tmp. False when
        that cannot be done (not sandboxed, gone, or /tmp not emptied): the process must not be reused."""
        if self._jail is None or self._closed or self.returncode is not None or self.cpu_time() is None:
            return False  # without the cgroup's CPU count no match could have a limit of its own
        self.freeze()
        if not (self._jail.wait_frozen() and self._jail.empty_tmp()):
            return False
        self._settle_stderr()
        return True

    def _settle_stderr(self, wait: float = 0.05) -> None:
        """Let the drain thread take what the bot (frozen now) wrote to stderr, so the match keeps it."""
        poll = select.poll()
        poll.register(self._proc.stderr.fileno(), select.POLLIN)
        deadline = time.monotonic() + wait
        while poll.poll(0) and time.monotonic() < deadline:
            time.sleep(0.001)

    def new_match(self) -> None:
        """A further match begins (frozen still): its stderr and its CPU count start anew. The harness
        keeps each match's CPU limit from this count (RLIMIT_CPU covers the process's whole life).
        What the frozen bot wrote to stderr in the match before is read first, so that none of it is
        counted as this match's."""
        if self._proc is not None and self._proc.stderr is not None:
            self._take_stderr(most=PIPE_MOST // CHUNK + 1)
        with self._err_lock:
            self._err.clear()
        self._cpuacct_base = (self._jail.cpu_time() if self._jail is not None else None) or 0.0
        self.matches += 1

    def __enter__(self) -> BotProcess:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def returncode(self) -> int | None:
        """Like Popen.returncode: negative for a signal (bwrap's 128+N is turned back into -N)."""
        if self._proc is None:
            return None
        code = self._proc.poll()
        if code is not None and self.sandbox and 128 < code <= 128 + 64:
            return 128 - code
        return code

    def _kill(self) -> None:
        if self._proc.returncode is not None:  # reaped: its pid may belong to someone else now
            return
        try:
            os.killpg(self._proc.pid, signal.SIGKILL)  # bwrap; --die-with-parent and the pid namespace take the rest
        except ProcessLookupError:
            pass

    def _release(self) -> None:
        if self._jail:
            self._jail.cleanup()
            self._jail = None
        if self.uid is not None:
            SLOTS.release(self.uid)

    # ------------------------------------------------------------ messages

    def send(self, obj: dict, timeout: float = 5.0) -> None:
        """Write one JSON line; a bot that stops reading its input for ``timeout`` s is a timeout."""
        data = dumps(obj) + b"\n"
        if self.tap is not None:
            self.tap(">", data[:-1])
        if self._eof:  # its pid-1 reaper may hold stdin open a moment after the bot died
            raise self._crash("stopped reading its input")
        try:
            written = os.write(self._in, data)
        except BlockingIOError:
            written = 0
        except OSError:
            raise self._crash("stopped reading its input") from None
        if written < len(data):
            self._send_rest(memoryview(data)[written:], time.monotonic() + timeout, timeout)

    def send_many(self, objs: list, wake, timeout: float = 5.0) -> None:
        """Write several JSON lines at once, then call ``wake`` (the bot is thawed): written while it is
        frozen, they wake it once. More than a pipe may hold unread is written after ``wake``."""
        lines = [dumps(o) + b"\n" for o in objs]
        if self.tap is not None:
            for line in lines:
                self.tap(">", line[:-1])
        data = b"".join(lines)
        if len(data) > FROZEN_WRITE or self._eof:
            wake()
            wake = None
        if self._eof:
            raise self._crash("stopped reading its input")
        try:
            written = os.write(self._in, data)
        except BlockingIOError:
            written = 0
        except OSError:
            if wake is not None:
                wake()
            raise self._crash("stopped reading its input") from None
        if wake is not None:
            wake()
        if written < len(data):
            self._send_rest(memoryview(data)[written:], time.monotonic() + timeout, timeout)

    def _send_rest(self, data: memoryview, deadline: float, timeout: float) -> None:
        while data:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise self._fault("timeout", f"did not read its input for {timeout:g} s")
            self._poll_out.poll(remaining * 1000)
            try:
                data = data[os.write(self._in, data) :]
            except BlockingIOError:
                pass
            except OSError:
                raise self._crash("stopped reading its input") from None

    def receive(self, timeout: float) -> dict:
        start = time.monotonic()
        try:
            line = self._read_line(start + timeout, timeout)
        finally:
            self.elapsed = time.monotonic() - start
        self.lines_in += 1
        if self.tap is not None:
            self._take_stderr()  # what the bot wrote to stderr before this reply is traced before it
            self.tap("<", line)
        try:
            obj = loads(line)
        except ValueError:
            raise self._fault("malformed", f"not JSON: {bytes(line[:100]).rstrip()!r}{self._next_lines()}") from None
        if not isinstance(obj, dict):
            raise self._fault("malformed", f"not a JSON object: {bytes(line[:100]).rstrip()!r}{self._next_lines()}")
        return obj

    def _next_lines(self, wait: float = 0.5) -> str:
        """After a first line that is not a message (a runtime's start-up error on stdout, most often),
        the lines that follow it, read until the bot's output ends or ``wait`` seconds pass: the reason
        is rarely in the first line alone."""
        if self.lines_in != 1:
            return ""
        deadline = time.monotonic() + wait
        while not self._eof and self._buf.count(b"\n") < NEXT_LINES and len(self._buf) < NEXT_BYTES:
            left = deadline - time.monotonic()
            if left <= 0 or not self._poll_in.poll(left * 1000):
                break
            self._buf += self._read() or b""
        lines = [bytes(x[:100]).rstrip() for x in bytes(self._buf[:NEXT_BYTES]).split(b"\n") if x.strip()]
        return f"; then: {'; '.join(repr(x) for x in lines[:NEXT_LINES])}" if lines else ""

    def pending(self) -> bool:
        """A complete or partial line is waiting (say, a second reply to one request)."""
        if not self._buf and not self._eof and self._poll_in.poll(0):
            self._buf += self._read() or b""
        return bool(self._buf)

    def waiting(self) -> bytes:
        """What the bot has sent and nobody has read yet (for the trace of a fault)."""
        return bytes(self._buf)

    def stderr_tail(self, n: int = 2000) -> str:
        with self._err_lock:
            tail = bytes(self._err[-n * 4 :]) if n else b""
        return tail.decode("utf-8", errors="replace")[-n:] if n else ""

    def _read_line(self, deadline: float, timeout: float) -> bytes | bytearray:
        buf = self._buf
        remaining = timeout
        while True:
            i = buf.find(b"\n", self._scanned)
            if i >= 0:
                if i > self.line_limit:
                    raise self._too_long()
                line = buf[:i]
                del buf[: i + 1]
                self._scanned = 0
                return line
            self._scanned = len(buf)
            if len(buf) > self.line_limit:
                raise self._too_long()
            if self._eof:
                raise self._crash("closed its output mid-line" if buf else "closed its output")
            if remaining <= 0:
                raise self._fault("timeout", f"no reply within {timeout:g} s")
            if self._poll_in.poll(remaining * 1000):
                chunk = self._read()
                if chunk:
                    if not buf and chunk.find(b"\n") == len(chunk) - 1 <= self.line_limit:
                        return chunk  # the usual case: one whole line in one read
                    buf += chunk
            remaining = deadline - time.monotonic()

    def _read(self) -> bytes | None:
        """What the pipe holds (b"" at the end), or None when it holds nothing."""
        try:
            chunk = os.read(self._out, CHUNK)
        except BlockingIOError:
            return None
        if not chunk:
            self._eof = True
        return chunk

    def _drain_stderr(self) -> None:
        fd = self._proc.stderr.fileno()
        os.set_blocking(fd, False)
        poll = select.poll()
        poll.register(fd, select.POLLIN)
        while True:
            poll.poll()
            if not self._take_stderr():
                return

    def _take_stderr(self, most: int = ERR_BATCH) -> bool:
        """Read what stderr holds now, at most ``most`` chunks (a bot that writes without end cannot
        hold the harness here), tapping it; False once stderr has ended."""
        with self._err_read:
            for _ in range(most):
                if self._err_done:
                    break
                try:
                    chunk = os.read(self._proc.stderr.fileno(), CHUNK)
                except BlockingIOError:
                    return True
                except (OSError, ValueError):
                    chunk = b""
                if self.tap is not None:
                    self.tap("!", chunk or None)
                if not chunk:
                    self._err_done = True
                    break
                with self._err_lock:
                    self._err += chunk
                    if len(self._err) > self.stderr_limit:
                        del self._err[: len(self._err) - self.stderr_limit]
            return not self._err_done

    # ------------------------------------------------------------ faults

    def _fault(self, kind: str, reason: str) -> BotFault:
        return BotFault(kind, reason, self.stderr_tail())

    def _too_long(self) -> BotFault:
        self._kill()
        if self.tap is not None:
            self.tap("<", bytes(self._buf[:200]) + f"... (cut: more than {self.line_limit} bytes)".encode())
        return self._fault("line_too_long", f"more than {self.line_limit} bytes without a newline; killed")

    def _crash(self, what: str) -> BotFault:
        try:
            self._proc.wait(0.5)
        except subprocess.TimeoutExpired:
            return self._fault("crash", f"{what}; still running")
        if self._err_thread:
            self._err_thread.join(0.2)  # let the last words (a traceback) arrive
        return self._fault("crash", f"{what}; {self._exit_text()}")

    def _exit_text(self) -> str:
        code = self.returncode
        if code is None or code >= 0:
            return f"exited with code {code}"
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        text = f"killed by {name}"
        if self._jail and self._jail.oom_killed():
            text += f" (out of memory: {self.limits.memory_mb} MB)"
        elif name == "SIGXCPU":
            text += f" (CPU limit {self.limits.cpu_seconds} s)"
        return text
