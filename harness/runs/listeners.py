"""The runner's listeners (harness/runs/runner.py): standings, the sequential test, the arena's ratings,
the progress display. Only the display prints; it is given to the runner by the CLI.
"""

from __future__ import annotations

import os
from pathlib import Path

from . import runfolder
from .jobs import Outcome
from .parts import stored_rows
from harness.arena.registry import short_label
from results.fair import CONTROL

SPRT_FILE = "sprt.json"


class Standings:
    """Mean rank per bot (and variant), from match rows."""

    def __init__(self):
        self.sums: dict = {}

    def add(self, rows) -> None:
        for r in rows:
            if str(r.get("match_id", "")).endswith(f"-{CONTROL}"):
                continue  # a control table of the fair design (results/fair.py)
            key = (r["variant"], r["bot"])
            s = self.sums.setdefault(key, [0, 0, 0])
            s[0] += r["rank"]
            s[1] += 1
            s[2] += r.get("faults", 0) > 0

    def text(self, plan: dict) -> str:
        if not self.sums:
            return ""
        by_bot: dict = {}  # a sweep's bar shows each bot over every variant
        for (variant, bot), (total, n, faults) in self.sums.items():
            s = by_bot.setdefault(bot, [0, 0, 0])
            s[0] += total
            s[1] += n
            s[2] += faults
        order = sorted(by_bot.items(), key=lambda kv: (kv[1][0] / kv[1][1], kv[0]))
        return "  ".join(f"{short_label(bot)} {total / n:.2f}" + (f" ({faults} faults)" if faults else "")
                         for bot, (total, n, faults) in order)


class StandingsListener:
    """The standings so far (stored matches of a resumed run included), for the display."""

    def __init__(self):
        self.standings = Standings()

    def loaded(self, run) -> bool:
        if run.done and run.todo:
            self.standings.add(stored_rows(run.store))
        return False

    def stored(self, run, results) -> None:
        self.standings.add(r for res in results for r in res.matches)

    def text(self, plan: dict) -> str:
        return self.standings.text(plan)


class SprtListener:
    """The plan's sequential test (results/sprt.py): brought up to date with the stored matches of a
    resumed run, fed every stored task, asks the run to stop once it decides, and writes
    ``sprt.json`` at the end of a run that played."""

    def __init__(self, plan: dict):
        self.watch = sequential_test(plan)
        self.recorded = None

    def loaded(self, run) -> bool:
        run.by_deal_set = True  # whole deal sets early, in plan order
        if not run.new:
            self.recorded = resume_sprt(run.plan, self.watch, run.store)
        return self.recorded is not None

    def stored(self, run, results) -> None:
        self.watch.add(r for res in results for r in res.matches)
        if self.watch.decided:
            run.request_stop()

    def text(self) -> str:
        state = self.watch.state
        return f"  LLR {state['llr']:.2f} [{state['lower']:.2f}, {state['upper']:.2f}]"

    def finished(self, run) -> None:
        run.outcome.sprt = self.recorded if self.recorded is not None else self.watch.state
        if self.recorded is None and run.started:
            write_sprt(run.run_dir, self.watch.state, run.outcome)


class RatingsListener:
    """At the end of a run that played every planned match (or whose test decided), unless stopped:
    the ratings of its submitted bots go to the arena (harness/arena/registry.py)."""

    def finished(self, run) -> None:
        o = run.outcome
        if run.started and (o.done == o.planned or o.decided) and not o.stopped:
            from harness.arena.registry import record_run_ratings

            problem = record_run_ratings(run.plan, run.run_dir)
            if problem:
                o.warnings.append(f"ratings not recorded in the arena: {problem}")


class CompactionListener:
    """At the end of a run that played and was not stopped: its parts merged into few large files
    (harness/runs/runfolder.py, results/compact.py), under the run's lock; a failure is a warning."""

    def finished(self, run) -> None:
        o = run.outcome
        if run.started and o.played and not o.stopped:
            problem = runfolder.compact_after_run(run.store)
            if problem:
                o.warnings.append(problem)


def standard_listeners(plan: dict, extra=(), compact: bool = True) -> list:
    """Every run's listeners (in the order they hear of a task), then ``extra``; ``compact=False``
    (``--no-compact``): the run's parts stay as written."""
    out: list = [StandingsListener()]
    if plan.get("sprt"):
        out.append(SprtListener(plan))
    out.append(RatingsListener())
    if compact:
        out.append(CompactionListener())
    return out + list(extra)


def _left_column():
    """The progress bar's column of the time left (made when rich is imported: only a display needs it)."""
    from rich.progress import ProgressColumn
    from rich.text import Text

    class LeftColumn(ProgressColumn):
        """The time left, counting down between the estimates that finished tasks bring."""

        def render(self, task) -> Text:
            import time

            from .estimate import duration

            left = task.fields.get("left")
            if left is None:
                return Text("ETA ?")
            now = max(0.0, left - (time.monotonic() - task.fields.get("left_at", time.monotonic())))
            return Text(f"ETA {duration(now)}" + (" (pilot)" if task.fields.get("left_from") == "the pilot" else ""))

    return LeftColumn()


class ProgressDisplay:
    """What a person running the CLI sees: the plan line, the plan's precision and (unless quiet) the
    time it should take, from a pilot on fresh deals (harness/runs/estimate.py), before a new run plays;
    then a rich progress bar (matches done/planned, rate, the time left as the run's own matches
    measure it, standings, the test's LLR), each failed task, and at the end the time the run took
    against the estimate."""

    def __init__(self, console, quiet: bool = False):
        from .estimate import Estimate

        self.console, self.quiet = console, quiet
        self.progress = None
        self.task = None
        self.estimate = Estimate(1)
        self.said = None  # the pilot's estimate of the time to play, in seconds
        self.tasks_left = 0
        self.tasks_stored = 0  # tasks of this call stored

    def opened(self, run) -> None:
        from .design import announce
        from .estimate import Estimate

        self.estimate = Estimate(run.slots)
        announce(run, self.quiet, self.console, self.estimate)
        self.said = self.estimate.left(len(run.todo), run.task_count())

    def playing(self, run) -> None:
        if self.quiet:
            return
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        self.estimate.slots = max(1, run.slots)
        self.tasks_left = run.task_count()
        self.progress = Progress(
            TextColumn("{task.description}"), BarColumn(bar_width=16), MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}"), _left_column(),
            TextColumn("{task.fields[standings]}"),
            console=self.console, transient=False,
        )
        self.progress.start()
        self.task = self.progress.add_task(run.plan["name"], total=run.outcome.planned,
                                           completed=run.outcome.done, rate="", standings="", **self._left(run))

    def _left(self, run) -> dict:
        """The progress bar's fields of the time left: seconds as estimated now, when, and from what."""
        import time

        return {"left": self.left(run), "left_at": time.monotonic(), "left_from": self.estimate.source}

    def left(self, run) -> float | None:
        """Seconds left: from the run's own timed matches (the pilot's before them) until every worker has
        finished a task, then at the pace the run has kept (harness/runs/estimate.py)."""
        matches_left = run.outcome.planned - run.outcome.done
        if self.tasks_stored >= self.estimate.slots:
            paced = self.estimate.by_rate(matches_left, run.outcome.played, run.elapsed)
            if paced is not None:
                return paced
        return self.estimate.left(matches_left, self.tasks_left)

    def stored(self, run, results) -> None:
        self.estimate.add([getattr(r, "seconds", None) for r in results])  # one task's matches, in order
        self.tasks_left = max(0, self.tasks_left - 1)
        self.tasks_stored += 1
        if self.progress is None:
            return
        standings = run.find(StandingsListener)
        text = standings.text(run.plan) if standings is not None else ""
        test = run.find(SprtListener)
        if test is not None:
            text += test.text()
        elapsed = run.elapsed
        rate = run.outcome.played / elapsed if elapsed > 0 else 0.0
        self.progress.update(self.task, completed=run.outcome.done, rate=f"{rate:.1f}/s", standings=text,
                             **self._left(run))

    def failed(self, run, task, error: str) -> None:
        self.tasks_left = max(0, self.tasks_left - 1)
        if not self.quiet:
            from harness.players.trace import terminal_safe

            self.console.print(terminal_safe(f"error: task {task.id} failed: {error}"), markup=False)

    def finished(self, run) -> None:
        if self.progress is not None:
            self.progress.stop()
            self.progress = None
        if not self.quiet and run.started and run.outcome.played:
            from .estimate import duration

            took = run.outcome.elapsed
            said = "" if self.said is None else f"; the pilot estimated {duration(self.said)}"
            self.console.print(f"played {run.outcome.played} matches in {duration(took)}{said}", markup=False,
                               soft_wrap=True)


# The sequential test's file ---------------------------------------------------------------------------

def sequential_test(plan: dict):
    """The plan's SPRT (results/sprt.py) with nothing seen yet, or None for a run without one."""
    if not plan.get("sprt"):
        return None
    from results.sprt import SequentialTest

    t = plan["sprt"]
    return SequentialTest(plan["matches"], t["bot"], t["vs"], t["elo0"], t["elo1"], t["alpha"], t["beta"],
                          paired=plan.get("design") == "fair")


def read_sprt(run_dir: Path) -> dict | None:
    """The run's ``sprt.json``, or None when there is none (or it cannot be read)."""
    import json

    from results.files import read_regular_text

    try:
        doc = json.loads(read_regular_text(Path(run_dir) / SPRT_FILE, 1 << 20))
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) and "verdict" in doc else None


def recorded_decision(doc: dict, settings: dict) -> bool:
    """Whether ``sprt.json`` records a decision of the plan's test (``settings``) that its own numbers
    bear out; a damaged or crafted record is not believed (the test is then brought up to date from the
    stored matches, and the record rewritten)."""
    import math

    def number(value) -> bool:
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)

    try:
        same = doc["bot"] == settings["bot"] and all(number(doc[k]) and doc[k] == settings[k]
                                                     for k in ("elo0", "elo1", "alpha", "beta"))
        llr, lower, upper = doc["llr"], doc["lower"], doc["upper"]
        shown = all(map(number, (llr, lower, upper))) and (
            doc["verdict"] == "H1" and llr >= upper or doc["verdict"] == "H0" and llr <= lower)
        counts = all(isinstance(doc[k], int) and not isinstance(doc[k], bool) for k in ("deal_sets", "matches"))
        figures = all(doc[k] is None or number(doc[k]) for k in ("score", "elo", "elo_lo", "elo_hi"))
        return bool(same and shown and counts and figures and isinstance(doc["vs"], (str, list)))
    except (KeyError, TypeError):
        return False


def resume_sprt(plan: dict, watch, store) -> dict | None:
    """Bring the test of a resumed run up to date with its stored matches, deal set by deal set in
    plan order; returns its state when it has decided (now or in ``sprt.json``), else None."""
    recorded = read_sprt(store.root)
    if recorded is not None and recorded["verdict"] != "continue" and recorded_decision(recorded, plan["sprt"]):
        return recorded
    from results.sprt import SequentialTest

    watch.add(store.scan("matches").select(*SequentialTest.COLUMNS).collect().iter_rows(named=True))
    if not watch.decided:
        return None
    write_sprt(store.root, watch.state, Outcome(len(plan["matches"]), len(store.done_match_ids()), 0, 0, 0, []))
    return watch.state


def write_sprt(run_dir: Path, state: dict, outcome: "Outcome") -> None:
    """Record the test in ``sprt.json`` (replaced atomically): its state, and the matches planned and
    stored when the run stopped."""
    import json
    import tempfile

    doc = {**state, "planned_matches": outcome.planned, "stored_matches": outcome.done}
    fd, tmp = tempfile.mkstemp(prefix=".sprt.", suffix=".json.tmp", dir=run_dir)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(json.dumps(doc, indent=1) + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, Path(run_dir) / SPRT_FILE)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise

