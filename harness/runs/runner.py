"""The runner: plays what the plan holds and the run folder does not, on an executor, and tells its
listeners what happens.

``execute(plan, run_dir, new=...)`` takes the run lock, opens the executor (harness/runs/executors.py)
and starts it (a worker that refuses the job, harness/runs/nodecheck.py, ends the run here with a
one-line error, nothing written), writes ``run.json`` (a new run), queues the planned matches not yet stored in batches, writes each
finished task as one part (``results.store.RunStore``) and stops cleanly on Ctrl-C (SIGINT),
SIGTERM or SIGHUP: nothing new is submitted, tasks in flight get ``GRACE`` seconds to finish and are
written, the rest are cancelled (a task playing in this process, under the local executor, is stopped
at once: its bots are closed, frozen ones thawed and killed), the executor closes, and what bots of
killed workers left on this machine is cleared (``clear_free_slots``). A worker that refuses the job
(harness/runs/nodecheck.py) stops the run the same way, with its reason in ``Outcome.errors``.

The runner prints nothing. What is shown or decided along the way belongs to listeners
(harness/runs/listeners.py): the standings, the sequential test (which may ask the run to stop), the
progress display, the arena's ratings at the end. Each listener may implement any of:

- ``loaded(run)``: the store's matches are known, nothing is played yet; returns True when the run
  has nothing left to play (a decided SPRT);
- ``opened(run)``: the executor is ready, the plan not yet written (new runs: the plan line);
- ``playing(run)``: the first tasks are about to be submitted;
- ``stored(run, results)``: a task's matches were written (``MatchResult`` items);
- ``failed(run, task, error)``: a task failed; its matches stay to do;
- ``finished(run)``: the run is over (``run.outcome`` is final but for what listeners add).
"""

from __future__ import annotations

import math
import signal
import time
from collections import deque
from pathlib import Path

from . import plan as planning
from . import runfolder
from .jobs import Job, Outcome, PlannedMatch, Task
from .parts import next_attempt, pack_bots, write
from .options import TournamentError

GRACE = 3.0  # seconds tasks in flight get to finish after Ctrl-C or a decided SPRT
TASKS_PER_WORKER = 4  # batches per worker: small enough for steady progress, large enough to amortise a task
MAX_BATCH = 48  # matches a task plays at most: a kept bot process serves them all (reuse.MAX_MATCHES is 50)


class Stop:
    """Signal handler: the first SIGINT/SIGTERM asks to stop; a second one interrupts at once.
    ``requested``: a listener or a refusal asked the run to stop (no signal)."""

    def __init__(self):
        self.signal = 0
        self.requested = False
        self.at_once = lambda: False  # True while a task plays in this process (the local executor)

    def __call__(self, signum, frame):
        if self.signal or self.at_once():  # in this process a task cannot be given time: it is stopped,
            self.signal = self.signal or signum  # its bots closed, its matches left to play on --resume
            raise KeyboardInterrupt
        self.signal = signum

    @property
    def any(self) -> bool:
        return bool(self.signal) or self.requested


def batches(matches: list, slots: int, by_deal_set: bool = False) -> list[list]:
    """Slices of ``matches``, each a seating (table and rotation) across deal sets (``across_deal_sets``);
    ``by_deal_set``: consecutive slices, one deal set (of one variant) per batch, split only if it
    holds more than ``MAX_BATCH`` matches."""
    if by_deal_set:
        out: list = []
        for m in matches:
            same = bool(out) and _deal_set(out[-1][-1]) == _deal_set(m)
            if same and len(out[-1]) < MAX_BATCH:
                out[-1].append(m)
            else:
                out.append([m])
        return out
    size = max(1, min(MAX_BATCH, math.ceil(len(matches) / max(1, slots * TASKS_PER_WORKER))))
    ordered = across_deal_sets(matches, size)
    return [ordered[i:i + size] for i in range(0, len(ordered), size)]


def across_deal_sets(matches: list, width: int) -> list:
    """``matches`` reordered so that each ``width`` in a row come from ``width`` deal sets: the plan's
    runs of one deal set (of one variant) are taken ``width`` at a time and read column by column
    (the first match of each, then the second ...). A kept bot process serves one match per deal set
    (harness/players/reuse.py), so a batch of one seating across 16 deal sets starts each bot once, where 4
    deal sets of 4 rotations start each bot four times. The same matches, in another order."""
    runs: list = []
    for m in matches:
        if runs and _deal_set(runs[-1][-1]) == _deal_set(m):
            runs[-1].append(m)
        else:
            runs.append([m])
    out: list = []
    for w in range(0, len(runs), width):
        window = runs[w:w + width]
        for j in range(max(map(len, window))):
            out.extend(run[j] for run in window if j < len(run))
    return out


def _deal_set(m) -> tuple:
    return (m.variant, m.deal_set) if isinstance(m, PlannedMatch) else (m["variant"], m["deal_set"])


class Runner:
    """One call of ``execute``: the plan, its run folder, the executor, the listeners."""

    def __init__(self, plan: dict, run_dir: Path, executor, listeners=(), *, new: bool):
        from results.store import RunStore

        self.plan, self.run_dir, self.executor, self.new = plan, Path(run_dir), executor, new
        self.listeners = list(listeners)
        self.store = RunStore(run_dir)
        self.stop = Stop()
        self.done: set = set()
        self.todo: list = []
        self.slots = 0
        self.job = Job.of_plan(plan)
        self.packs: dict = {}
        self.by_deal_set = False  # listeners that need whole deal sets early set this in ``loaded``
        self.outcome = Outcome(len(plan["matches"]), 0, 0, 0, 0, [])
        self.started = 0.0

    def tell(self, hook: str, *args) -> list:
        return [getattr(listener, hook)(self, *args) for listener in self.listeners if hasattr(listener, hook)]

    def find(self, kind):
        """The first listener of type ``kind``, or None."""
        return next((listener for listener in self.listeners if isinstance(listener, kind)), None)

    def task_count(self) -> int:
        """How many tasks the matches still to play make (``batches``): the time estimate counts them."""
        return len(batches(self.todo, self.slots, self.by_deal_set)) if self.todo else 0

    def request_stop(self) -> None:
        """Submit nothing more; the tasks in flight get ``GRACE`` seconds."""
        self.stop.requested = True

    def run(self) -> Outcome:
        if not self.new:
            runfolder.check_stored(self.store, self.plan)
            self.done = self.store.done_match_ids()
        self.todo = [PlannedMatch.of(m) for m in self.plan["matches"] if m["id"] not in self.done]
        self.outcome.done = len(self.done)
        if any(self.tell("loaded")) or not self.todo:  # decided earlier, or nothing left: no executor
            self.tell("finished")
            return self.outcome
        self.packs = pack_bots(self.plan)
        from .nodecheck import NodeRefused

        try:
            self.slots = self.executor.open()
            try:
                self.executor.start(self.job, self.packs)
            except NodeRefused as e:  # before the plan is written and before any match is played
                raise TournamentError(str(e)) from None
            if self.new:
                self.tell("opened")  # Ctrl-C up to here writes nothing
        except BaseException:
            self.executor.close()
            raise
        self.stop.at_once = lambda: getattr(self.executor, "playing", False)
        handlers = {sig: signal.signal(sig, self.stop) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
        try:  # from here on Ctrl-C stops cleanly: the plan is written whole, or not at all
            if self.new:
                try:
                    self.run_dir.mkdir(parents=True, exist_ok=True)
                    planning.write_plan(self.run_dir, self.plan)
                except OSError as e:
                    raise TournamentError(f"cannot write the run to {self.run_dir}: {e.strerror or e}") from None
            self._play()
            self.outcome.stopped = self.stop.signal
            self.outcome.done = len(self.done)
            self.outcome.elapsed = time.monotonic() - self.started
            self.tell("finished")
            return self.outcome
        finally:
            for sig, old in handlers.items():
                signal.signal(sig, old)
            self.executor.close()
            if self.packs:  # the workers are gone: what their bots left (a bot frozen when its worker was
                # killed, its cgroups) and the copies of the bot folders no other run uses go too
                from harness.sandbox.slots import clear_free_slots
                from harness.sandbox.staging import remove_unused

                clear_free_slots()
                remove_unused()

    def _play(self) -> None:
        """Keep the executor full until the queue is empty or a stop is asked; then give the tasks in
        flight ``GRACE`` seconds, and cancel the rest."""
        attempt = next_attempt(self.store)
        queue = deque(Task(f"a{attempt}-{n:05d}", tuple(batch))
                      for n, batch in enumerate(batches(self.todo, self.slots, self.by_deal_set)))
        rules = _schema_rules(self.plan)
        ex = self.executor
        self.started = time.monotonic()
        self.tell("playing")
        try:
            while (queue or ex.running) and not self.stop.any:
                while queue and not ex.full:
                    ex.submit(queue.popleft())
                self._finish(ex.wait(0.25), rules)
            if self.stop.any:  # let the tasks in flight finish (cancelling a task as it completes can
                # abort Ray's driver); only those still running after GRACE are cancelled
                deadline = time.monotonic() + GRACE
                while ex.running and time.monotonic() < deadline:
                    self._finish(ex.wait(0.25), rules)
                ex.cancel()
        except KeyboardInterrupt:  # a second Ctrl-C: stop waiting
            self.stop.signal = self.stop.signal or signal.SIGINT
            ex.cancel()

    def _finish(self, finished, rules) -> None:
        for item in finished:
            error = item.error
            if error is None:
                try:
                    written = write(self.store, item.task.id, rules, item.results, self.done)
                except (ValueError, OSError) as e:  # the part is not written: its matches stay to do
                    error = f"cannot write its part: {e}"
            if error is not None:
                self.outcome.failed += len(item.task.matches)
                self.outcome.errors.append(f"task {item.task.id} ({len(item.task.matches)} matches) failed: {error}")
                if item.refused:
                    self.outcome.refused = True
                    self.request_stop()
                self.tell("failed", item.task, error)
                continue
            self.outcome.played += len(written)
            self.outcome.done = len(self.done)
            self.tell("stored", written)

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started if self.started else 0.0


def _schema_rules(plan: dict):
    from engine.game import rules_from_dict

    return rules_from_dict(plan["game"], plan["variants"][0]["rules"])


def execute(plan: dict, run_dir: Path, *, new: bool, workers: int | None = None, address: str | None = None,
            quiet: bool = True, executor: str = "ray", listeners=None, compact: bool = True) -> Outcome:
    """Play the planned matches not yet in ``run_dir`` (see the module's docstring). ``listeners``:
    besides those every run has (standings, the sequential test, the arena's ratings, the compaction
    at the end unless ``compact=False``); a display (``listeners.ProgressDisplay``) among them shows
    progress. ``quiet`` is kept for callers that pass it; the runner itself prints nothing."""
    from .executors import ExecutorError, make_executor
    from .listeners import standard_listeners

    del quiet
    try:
        with runfolder.locked(run_dir, new):  # one process at a time plays in a run folder
            runner = Runner(plan, run_dir, make_executor(executor, workers, address),
                            standard_listeners(plan, listeners or (), compact), new=new)
            return runner.run()
    except runfolder.RunFolderError as e:
        raise TournamentError(str(e)) from None
    except ExecutorError as e:
        raise TournamentError(str(e)) from None


__all__ = ["GRACE", "MAX_BATCH", "TASKS_PER_WORKER", "Outcome", "Runner", "Stop", "across_deal_sets", "batches",
           "execute"]

