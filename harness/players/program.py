"""The player of a bot program: ``SubprocessPlayer`` speaks the protocol (harness/protocol/messages.py,
docs/protocol.md) to a program in a folder with a ``bot.toml``, run in the sandbox by
``harness.players.botproc.BotProcess``. Its decisions are JSON (or text) that the match parses and checks
(``checked = True``). It keeps the clock, freezes the bot off its turn (``turn_over``), sets the CPU limit
that follows the clock, and turns every failure into a ``PlayerFault``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from pathlib import Path

from .base import FAULT_STDERR, LINE_LIMIT, MAX_REFUSALS, STDERR_LIMIT, Player, PlayerFault
from harness.protocol.messages import (
    REUSE_VERSION, Declined, ProtocolError, SeatStream, TimeControl, check_decision_reply, check_hello_reply,
    error_message, hello_message, match_end_message, match_start_message, new_match_message,
)
from harness.sandbox.bubblewrap import SandboxError
from .seeds import bot_seed

ENGINE_MOUNT = "/ellibir"  # where uses_engine bots find the engine and bots packages in the sandbox
CPU_MARGIN = 5.0  # seconds of CPU beyond the clock (start-up of the interpreter, the harness's lag)
CPU_STEP = 500  # decisions' worth of move time added to the CPU limit at a time
CPU_SLICE = 0.05  # seconds of CPU a bot may run past its limit before the harness notices


@dataclass(frozen=True)
class BotOptions:
    """How subprocess bots are run: the clock, the caps, the sandbox."""

    time: TimeControl = TimeControl()
    line_limit: int = LINE_LIMIT
    stderr_limit: int = STDERR_LIMIT
    max_refusals: int = MAX_REFUSALS
    sandbox: bool = True
    limits: object = None  # harness.sandbox.bubblewrap.Limits; None: BotProcess's default, the CPU limit from the clock
    cpu_limit: float | None = None  # CPU seconds per match; None: the clock plus a margin (cpu_allowance)
    game: str = "ellibir"  # the game whose builtin: names are meant (the rules given to start() name theirs)
    keep_tmp: str | None = None  # a host folder that becomes the bot's /tmp and survives the match (local only)


def engine_binds() -> list:
    """Read-only binds that make the installed ``engine`` and ``bots`` packages importable under /ellibir."""
    import bots
    import engine

    return [(Path(engine.__file__).resolve().parent, f"{ENGINE_MOUNT}/engine"),
            (Path(bots.__file__).resolve().parent, f"{ENGINE_MOUNT}/bots")]


def cpu_allowance(time: TimeControl, decisions: int) -> float:
    """The CPU time a bot may have used after ``decisions`` decisions: all the clock could give it
    (first move, bank, a move time per decision) plus a margin. Off its turn a bot is frozen and on its
    turn it gets one core, so a bot within its clock stays within this."""
    return time.first + time.bank + time.move * decisions + CPU_MARGIN


def _bot_process(manifest, options: BotOptions):
    from .botproc import BotProcess  # the sandbox layer: imported only when a subprocess bot plays
    from harness.sandbox.bubblewrap import Limits

    kwargs = {"line_limit": options.line_limit, "stderr_limit": options.stderr_limit, "sandbox": options.sandbox}
    if options.limits is not None:
        kwargs["limits"] = options.limits
    else:
        cpu = options.cpu_limit if options.cpu_limit is not None else cpu_allowance(options.time, CPU_STEP)
        kwargs["limits"] = Limits(cpu_seconds=max(1, math.ceil(cpu)))
    if manifest.uses_engine:
        kwargs["binds"] = engine_binds()
    if options.keep_tmp is not None:
        kwargs["keep_tmp"] = options.keep_tmp
    return BotProcess(manifest.folder, list(manifest.command), **kwargs)


class SubprocessPlayer(Player):
    """A bot program speaking the protocol; one process per match, or, for a bot of protocol 2 given a
    ``pool`` (harness/players/reuse.py), a kept process that has never seen ``deals`` (``reuse.deal_keys``).

    ``record``, when a list, receives ``(direction, log_position, message)`` for every message sent
    ("out") or received ("in"); ``log_position`` is the length of the match's event log then.
    ``process`` replaces the factory of the bot process (tests run bots in-process with it).
    """

    checked = True
    clocked = True  # its bank is the harness's clock (``bank``: what is left of it)

    def __init__(self, manifest, options: BotOptions = BotOptions(), record: list | None = None, process=None,
                 seed="", pool=None, deals: frozenset = frozenset()) -> None:
        self.manifest = manifest
        self.pool, self.deals = pool, deals
        self.kept = None  # the pool's record of a process that served earlier matches
        self.faulted = False
        self.ended = False  # match_end reached the bot
        self.cpu_used: float | None = None  # CPU seconds its processes used in this match (cgroup count), once closed
        self.seat_seed = seed  # player_seed(deal seed, seat): the source of the bot's own seed
        self.make_process = process or _bot_process  # (manifest, options) -> a BotProcess-like object
        self.name = manifest.name
        self.label = f"{manifest.name}@{manifest.version}"  # distinguish_labels may add a content hash
        self.options = options
        self.cpu_cap = self._cpu_limit()  # CPU seconds this match may use (raised as the clock goes)
        self._cpu_seen = (0.0, time.monotonic())  # the last count of this match's CPU, and when
        self.record = record
        self.proc = None
        self.stream: SeatStream | None = None
        self.seat = -1
        self.rules = None
        self.seq = 0
        self.bank = options.time.bank
        self.first_decision = True
        self.decisions = 0
        self.refusals = 0
        self.held: list = []  # an error message, sent in one write with the request that follows it
        self.moment = None
        self.log: list = []  # the match's event log (follow), read only to build this seat's messages
        self.info: dict = {}
        self.stderr = ""
        self.closed = False
        self.tap = None  # harness/players/trace.py: every line both ways and the bot's stderr, as they come
        self.times: list = []  # (seconds, limit, (round, turn)) of each decision: bot check and the results report them

    # Plumbing ----------------------------------------------------------------------------------

    def _tail(self) -> str:
        try:
            return self.proc.stderr_tail(FAULT_STDERR) if self.proc is not None else ""
        except Exception:
            return ""

    def _fault(self, kind: str, reason: str, stderr: str | None = None) -> PlayerFault:
        self.faulted = True  # never kept: the next match gets a fresh process
        self.close()  # first: the bot's last words reach the stderr buffer
        return PlayerFault(kind, reason, self.log_tail() or (stderr or "")[-FAULT_STDERR:])

    def log_tail(self) -> str:
        return self.stderr[-FAULT_STDERR:] if self.closed else self._tail()

    def _bot_fault(self, e) -> PlayerFault:
        stderr = getattr(e, "stderr", None) or None
        return self._fault(getattr(e, "kind", "crash"), getattr(e, "reason", str(e)), stderr)

    def _send(self, message: dict) -> None:
        from .botproc import BotFault

        if self.record is not None:
            self.record.append(("out", len(self.log), message))
        try:
            self.proc.send(message)
        except BotFault as e:
            raise self._bot_fault(e) from None
        except OSError as e:
            raise self._fault("crash", f"cannot write to the bot: {e}") from None

    def _send_and_resume(self, messages: list) -> None:
        """The events and the request in one write while the bot is still frozen, then thawed: it wakes
        once and reads them together."""
        from .botproc import BotFault

        send_many = getattr(self.proc, "send_many", None)
        if send_many is None:
            self._resume()
            for message in messages:
                self._send(message)
            return
        if self.record is not None:
            self.record.extend(("out", len(self.log), m) for m in messages)
        try:
            send_many(messages, self._resume)
        except BotFault as e:
            raise self._bot_fault(e) from None
        except OSError as e:
            raise self._fault("crash", f"cannot write to the bot: {e}") from None

    def _receive(self, timeout: float, what: str, limit: float, started: float | None = None):
        """The bot's reply within ``timeout`` s of ``started`` (default: now), and the seconds it took
        from then: a decision's clock starts before the request is written and the bot thawed, so
        a harness slowed by load between the thaw and this wait never gives the bot free time."""
        from .botproc import BotFault

        what_time = f"{limit:.3g} s for the decision + {self.bank:.3g} s of bank"
        started = time.monotonic() if started is None else started
        try:
            message = self._receive_within_cpu(max(0.0, timeout - (time.monotonic() - started)))
        except BotFault as e:
            if e.kind == "timeout":
                hint = ""
                if getattr(self.proc, "lines_in", 1) == 0 and not self._waiting():
                    hint = ("; no output at all: does the bot flush stdout after each line? Does its runtime start "
                            f"within {timeout:.3g} s (a JVM compiling its source takes a second or more; "
                            "--first-time gives more)?")
                raise self._fault("timeout", f"no reply to {what} within {timeout:.3g} s ({what_time}){hint}",
                                  e.stderr or None) from None
            raise self._bot_fault(e) from None
        if self.record is not None:
            self.record.append(("in", len(self.log), message))
        return message, time.monotonic() - started

    def _receive_within_cpu(self, timeout: float):
        """``proc.receive``, keeping the match's CPU limit (``cpu_cap``) by the cgroup's count of this
        match's CPU time, where there is one. A bot gets at most one core, so its CPU time grows no faster
        than the clock: the wait goes in slices no longer than the CPU it has left."""
        from .botproc import BotFault

        cpu_time = getattr(self.proc, "cpu_time", None)
        deadline = time.monotonic() + timeout
        while True:
            now = time.monotonic()
            used = None
            if cpu_time is not None and self._cpu_bound(now) + (deadline - now) > self.cpu_cap:
                used = cpu_time()
                if used is not None:
                    self._cpu_seen = (used, now)
                    if used > self.cpu_cap:
                        raise self._fault("crash", f"used {used:.2f} s of CPU in this match: past its CPU limit "
                                          f"{self.cpu_cap:g} s; killed")
            step = deadline - now if used is None else min(deadline - now, self.cpu_cap - used + CPU_SLICE)
            try:
                return self.proc.receive(max(step, 0.0))
            except BotFault as e:
                if e.kind != "timeout" or time.monotonic() >= deadline:
                    raise

    def _cpu_bound(self, now: float) -> float:
        """At most what the bot has used in this match by ``now``: the last count plus the time since."""
        used, when = self._cpu_seen
        return used + (now - when)

    def _quiet(self, when: str) -> None:
        """A bot speaks only when asked: anything waiting now is a second or unrequested reply."""
        try:
            waiting = self.proc.pending()
        except Exception:
            waiting = False
        if waiting:
            if self.tap is not None:
                self.tap("<", self._waiting())
            raise self._fault("protocol", f"a message nobody asked for (a second reply?) {when}")

    def _waiting(self) -> bytes:
        try:
            return self.proc.waiting()
        except Exception:  # noqa: BLE001  (a stand-in process without it)
            return b""

    # The player interface ------------------------------------------------------------------------

    def follow(self, log: list) -> None:
        self.log = log

    def start(self, seat: int, rules) -> None:
        """Start the process and send ``hello``; the answer is read in ``ready`` (bots start in parallel)."""
        from .botproc import BotFault

        self.seat, self.rules = seat, rules
        if self._take_kept():
            return
        try:
            self.proc = self.make_process(self.manifest, self._process_options())
            if self.tap is not None:
                self.proc.tap = self.tap
            self.proc.start()
        except BotFault as e:
            raise self._bot_fault(e) from None
        except SandboxError:
            self.close()
            raise  # the machine's failure, not the bot's: not recorded as a fault
        except Exception as e:  # noqa: BLE001  (a bot that cannot even start is its fault, recorded)
            raise self._fault("crash", f"cannot start {' '.join(self.manifest.command)}: {type(e).__name__}: {e}") from None
        self.seq += 1
        self._send(hello_message(self.seq, rules.game, rules, seat, self.options.time, self.options.line_limit,
                                 bot_seed(self.seat_seed, rules.variant_id)))

    def _take_kept(self) -> bool:
        """A process of this bot kept from an earlier match, thawed and sent ``new_match``; False: none."""
        if self.pool is None or self.manifest.fresh_process or self.tap is not None:
            return False
        kept = self.pool.take(self.manifest, self.options, self.deals)
        if kept is None:
            return False
        self.kept, self.proc = kept, kept.process
        self.proc.new_match()
        self._cpu_seen = (0.0, time.monotonic())
        self.proc.thaw()
        self.seq += 1
        self._send(new_match_message(self.seq, self.rules.game, self.rules, self.seat, self.options.time,
                                     self.options.line_limit, bot_seed(self.seat_seed, self.rules.variant_id)))
        return True

    def _process_options(self) -> BotOptions:
        """A process that may serve many matches gets RLIMIT_CPU for all of them (``reuse.MAX_MATCHES``):
        each match's own limit is kept from the cgroup's count (``_receive_within_cpu``)."""
        if self.pool is None or not self.pool.enabled or self.manifest.fresh_process:
            return self.options
        from .reuse import MAX_MATCHES

        life = self._cpu_limit() * MAX_MATCHES
        if self.options.limits is not None:
            return replace(self.options, limits=replace(self.options.limits, cpu_seconds=life))
        return replace(self.options, cpu_limit=life)

    def _cpu_limit(self) -> int:
        """The CPU seconds a match starts with (BotOptions.limits, cpu_limit, or the clock's allowance)."""
        if self.options.limits is not None:
            return self.options.limits.cpu_seconds
        cpu = self.options.cpu_limit if self.options.cpu_limit is not None else cpu_allowance(self.options.time, CPU_STEP)
        return max(1, math.ceil(cpu))

    def ready(self, names: list) -> None:
        t = self.options.time
        allowance = t.first + self.bank
        what = "new_match" if self.kept is not None else "hello"
        reply, elapsed = self._receive(allowance, what, t.first)
        try:
            self.info = check_hello_reply(reply, self.seq)
        except Declined as e:
            raise self._fault("declined", f"the bot cannot play: {e.reason}") from None
        except ProtocolError as e:
            raise self._fault("protocol", e.reason) from None
        if self.kept is not None and self.info["protocol"] != REUSE_VERSION:
            raise self._fault("protocol", f"the answer to new_match must say protocol {REUSE_VERSION}")
        self._spend(elapsed, t.first)
        self._quiet("after hello")
        self.stream = SeatStream(self.seat, self.rules.players, self.info["observation"], self.rules.game)
        self._send(match_start_message(self.seat, names))
        self._pause()

    def _pause(self) -> None:
        """Its turn is over: freeze every process of the bot until the next request."""
        freeze = getattr(self.proc, "freeze", None)
        if freeze is not None:
            freeze()

    def _resume(self) -> None:
        thaw = getattr(self.proc, "thaw", None)
        if thaw is not None:
            thaw()

    def _keep_cpu_limit_ahead(self) -> None:
        """The CPU limit follows the clock: once the decisions made near what it allows, it is raised."""
        if self.options.cpu_limit is not None or self.options.limits is not None:
            return
        raise_to = getattr(self.proc, "raise_cpu_limit", None)
        if self.decisions % CPU_STEP == CPU_STEP // 2:
            self.cpu_cap = math.ceil(cpu_allowance(self.options.time, self.decisions + CPU_STEP))
            if raise_to is not None and self.kept is None:
                raise_to(self.cpu_cap)

    def _spend(self, elapsed: float, limit: float) -> None:
        if elapsed > limit:
            self.bank = max(0.0, self.bank - (elapsed - limit))

    def decide(self, view, legal: dict):
        moment = (view.round_index, view.turn)
        if moment != self.moment:
            self.moment, self.refusals = moment, 0
        self._quiet("before a request")
        messages = self._take_held() + self.stream.catch_up(self.log)
        limit = self.options.time.first if self.first_decision else self.options.time.move
        self.seq += 1
        asked = time.monotonic()
        messages.append(self.stream.request(self.seq, view, legal, limit, self.bank, self.refusals))
        sent = time.monotonic()
        self._send_and_resume(messages)
        reply, elapsed = self._receive(limit + self.bank, f"request {self.seq}", limit, sent)
        try:
            decision = check_decision_reply(reply, self.seq)
        except ProtocolError as e:
            raise self._fault("protocol", e.reason) from None
        self._spend(elapsed, limit)
        self.times.append((time.monotonic() - asked, limit, moment))
        self.first_decision = False
        self._quiet(f"after the reply to request {self.seq}")
        self.decisions += 1
        self._keep_cpu_limit_ahead()
        return decision

    def turn_over(self) -> None:
        """Frozen until its next request. A bot stays thawed between the decisions of one turn (no
        other bot runs then) and is frozen before any other seat is asked."""
        if self.proc is not None and not self.closed:
            self._pause()

    def refused(self, outcome) -> None:
        """The error goes out with the request that follows it, in one write: what the bot writes when
        told of the refusal always comes after that request in a trace."""
        self.refusals += 1
        self.held.append(error_message(self.seq, outcome, self.refusals, self.options.max_refusals))

    def _take_held(self) -> list:
        held, self.held = self.held, []
        return held

    def catch_up(self, log: list) -> None:
        """The match is over: send what the bot has not been told (the last events, round end)."""
        if self.closed or self.stream is None:
            return
        self.log = log
        self._resume()
        for message in self._take_held() + self.stream.catch_up(log):
            self._send(message)
        self._quiet("at the end of the match")

    def end(self, totals: list, ranks: list, reason: str, faulty: list) -> None:
        """``match_end``, then frozen at once: the other seats close first (each may take 0.2 s to exit),
        and a process kept for another match would run meanwhile on no match's clock or CPU limit."""
        if self.closed or self.stream is None:
            return
        try:
            self._send(match_end_message(totals, ranks, reason, faulty))
            self.ended = True
        except PlayerFault:
            pass  # the match is over: a bot gone already is no fault
        self._pause()

    def _keep(self) -> bool:
        """After a clean match of a protocol-2 bot: hand the process to the pool (frozen, /tmp emptied)."""
        if (self.pool is None or not self.pool.enabled or not self.ended or self.faulted or self.manifest.fresh_process
                or self.info.get("protocol") != REUSE_VERSION or self.options.keep_tmp is not None
                or not self.options.sandbox or self.tap is not None):
            return False
        try:
            if not self.proc.end_match():
                return False
            self.stderr = self.proc.stderr_tail(self.options.stderr_limit)
        except Exception:  # noqa: BLE001
            return False
        from .reuse import Kept

        kept = self.kept or Kept(self.proc, (self.manifest, self.options))
        self.pool.give_back(kept, self.deals)
        return True

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        try:
            self.cpu_used = self.proc.cpu_time() if self.proc is not None else None
        except Exception:  # noqa: BLE001  (a stand-in process without the count)
            self.cpu_used = None
        if self.proc is not None and self._keep():
            return
        if self.proc is not None:
            try:
                self.proc.close()  # stdin closes, the bot may exit on its own, then it is killed
            except Exception:  # noqa: BLE001
                pass
            try:
                self.stderr = self.proc.stderr_tail(self.options.stderr_limit)
            except Exception:  # noqa: BLE001
                pass
