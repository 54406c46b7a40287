"""How long a run will take, estimated without playing any of its deals.

The estimate used to play the plan's own first matches in the driver (the real bots on the real deals,
results thrown away): a bot that remembers what it drew then knows its next stock draws when the run
plays those deals again (issue 25), and the figure was 3-35x low, because a match played alone in the
driver says nothing of the workers: their start, several matches at once on the same cores, bot
processes and the sandbox. Two estimates replace it, neither of which ever plays a deal of the run:

- **Before the run** (``pilot``): once the executor is up, one small task per worker on fresh deals
  (new 63-bit deal seeds, checked to be none of the plan's), with the plan's own bots, rules,
  seatings and options, on the run's own workers, all at once. Each match is timed where it is played
  (``jobs.MatchResult.seconds``), so the figure carries the contention of a full machine, the bot
  processes' start and the sandbox; waves of such tasks follow until ``PILOT_ENOUGH`` seconds have
  passed (fast matches: the mean then rests on dozens of them, not four). The results are thrown away;
  the pilot waits ``PILOT_SECONDS`` at most (tasks still running then are cancelled, and the estimate
  says it is a lower bound).
- **While it plays**: the same timing on the run's own matches as their tasks finish (``Estimate.add``)
  until every worker has finished a task; from then on the pace the run has kept (``Estimate.by_rate``:
  matches played over the time since the first task was submitted), which also counts what the
  timing of matches cannot see: the driver writing the parts, other work on the machine, a task
  retried. (The bar's own rate, before a task per worker is in, reads the first tasks as far too
  slow, since a task's matches all land at its end.)

The arithmetic (``Estimate``): ``seconds left = (matches left x p + tasks left x x) / workers``, with p
the mean time of a match that is not its task's first and x the extra time of a task's first match
(bot processes started, caches filled), over every match timed so far (the pilot's until the run's own
come in). Measured accuracy against real run times is in docs/tournaments.md ("How long will it
take?"; ``python -m benchmarks.estimate_study``).
"""

from __future__ import annotations

import time

from harness.players.seeds import fresh_deal_seed

PILOT_SECONDS = 10.0  # the pilot waits at most this long for its tasks
PILOT_MATCHES = 2  # matches per pilot task (one task per worker): the second reuses the bot processes
PILOT_ENOUGH = 2.0  # seconds: the pilot plays waves of tasks until one ends after this


class Estimate:
    """The arithmetic of the estimate. A task starts its bot processes (and its worker's caches) with its
    first match, and keeps them for the rest (harness/players/reuse.py): so the first match of a task is
    timed apart (``first``) from the others (``rest``). With ``p`` the mean seconds of a match that is not
    a task's first, ``x`` how much longer a task's first match takes on average (0 when not measured),
    and W the workers: ``seconds left = (matches left x p + tasks left x x) / W``."""

    def __init__(self, slots: int):
        self.slots = max(1, int(slots))
        self.first: list[float] = []
        self.rest: list[float] = []
        self.source = ""  # what the figures come from: "the pilot", "this run"

    def add(self, seconds, source: str = "this run") -> None:
        """One task's matches, in the order played (seconds each). Once the run's own tasks come in, the
        pilot's figures are dropped."""
        seconds = [float(s) for s in seconds if s is not None and s >= 0]
        if not seconds:
            return
        if source != self.source:
            self.first, self.rest, self.source = [], [], source
        self.first.append(seconds[0])
        self.rest += seconds[1:]

    @property
    def matches(self) -> int:
        return len(self.first) + len(self.rest)

    @property
    def per_match(self) -> float | None:
        """Mean seconds a match takes on one worker once its task has started (None: nothing timed)."""
        if self.rest:
            return sum(self.rest) / len(self.rest)
        return sum(self.first) / len(self.first) if self.first else None

    @property
    def first_extra(self) -> float:
        """How much longer a task's first match takes, on average (0 when only first matches were timed)."""
        if not self.rest or not self.first:
            return 0.0
        return max(0.0, sum(self.first) / len(self.first) - self.per_match)

    def left(self, matches_left: int, tasks_left: int = 0) -> float | None:
        """Seconds the ``matches_left`` (in ``tasks_left`` tasks) should take on the workers."""
        p = self.per_match
        if p is None:
            return None
        return (max(0, matches_left) * p + max(0, tasks_left) * self.first_extra) / self.slots

    @staticmethod
    def by_rate(matches_left: int, played: int, elapsed: float) -> float | None:
        """Seconds left at the pace the run has kept so far: everything it paid included (the driver writing
        parts, other work on the machine, retried tasks). ``played`` matches in ``elapsed`` seconds."""
        if played <= 0 or elapsed <= 0:
            return None
        return max(0, matches_left) * elapsed / played


def duration(seconds: float) -> str:
    """"0.4 s", "45 s", "12 min", "2.5 h"."""
    if seconds < 10:
        return f"{seconds:.1f} s"
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def pilot_matches(plan: dict, count: int) -> list:
    """``count`` matches like the plan's (seatings and variants spread over the plan), each on a fresh
    deal seed that is none of the plan's: never a deal the run will play."""
    from .jobs import PlannedMatch

    planned = plan["matches"]
    used = {m["deal_seed"] for m in planned} | {int(s) for s in plan.get("deal_seeds") or []}
    out = []
    for i in range(count):
        like = planned[(i * len(planned)) // max(1, count)]
        seed = fresh_deal_seed()
        while seed in used:
            seed = fresh_deal_seed()
        used.add(seed)
        out.append(PlannedMatch(f"pilot-{i}", like["variant"], -1, seed, like["table"], like["rotation"],
                                tuple(like["seating"])))
    return out


def pilot(executor, plan: dict, slots: int, per_task: int = PILOT_MATCHES, budget: float = PILOT_SECONDS,
          enough: float = PILOT_ENOUGH, clock=time.monotonic) -> tuple[list[list], float, bool]:
    """Play waves of one task of ``per_task`` fresh-deal matches per worker on ``executor`` (opened and
    started, nothing else submitted), until a wave ends after ``enough`` seconds (fast matches: several
    waves, so that the mean rests on more than a few matches): (each task's match seconds, wall
    seconds, whether every task finished within ``budget``). Nothing is written; tasks still running
    after ``budget`` are cancelled. Raises RuntimeError with the first task's error when every task of
    the first wave failed."""
    from .jobs import Task

    start, timed, wave = clock(), [], 0
    while True:
        matches = pilot_matches(plan, max(1, slots) * per_task)
        pending = [Task(f"pilot-{wave}-{i}", tuple(matches[i * per_task:(i + 1) * per_task]))
                    for i in range(max(1, slots))]
        errors = []
        while pending and not executor.full:
            executor.submit(pending.pop(0))
        while executor.running or pending:
            for done in executor.wait(0.25):
                if done.error is not None:
                    errors.append(done.error)
                else:
                    timed.append([getattr(r, "seconds", None) for r in done.results])
                while pending and not executor.full:
                    executor.submit(pending.pop(0))
            if clock() - start > budget:
                executor.cancel()
                return timed, clock() - start, False
        if errors and not timed:
            raise RuntimeError(errors[0])
        wave += 1
        if errors or clock() - start >= enough:
            return timed, clock() - start, True


def estimate_line(estimate: Estimate, todo: int, tasks: int, whole: bool = True, wall: float | None = None) -> str:
    """What the pilot says of the run: ``todo`` matches in ``tasks`` tasks on the workers."""
    workers = f"{estimate.slots} worker{'s' if estimate.slots != 1 else ''}"
    if estimate.per_match is None:
        return (f"estimate: no pilot match finished within {PILOT_SECONDS:.0f} s on {workers}, so the run's "
                f"{todo} matches take more than {duration(PILOT_SECONDS * todo / (PILOT_MATCHES * estimate.slots))}; "
                "the progress bar estimates again from the run's own matches")
    bound = "at least " if not whole else "about "
    extra = f" (+{estimate.first_extra:.2f} s for a task's first)" if estimate.first_extra else ""
    return (f"estimate: {bound}{duration(estimate.left(todo, tasks))} for {todo} matches on {workers} (a pilot of "
            f"{estimate.matches} match{'es' if estimate.matches != 1 else ''} on fresh deals on the workers"
            f"{f' in {wall:.1f} s' if wall is not None else ''}: {estimate.per_match:.2f} s a match{extra}; the "
            "progress bar estimates again from the run's own matches)")


__all__ = ["Estimate", "PILOT_ENOUGH", "PILOT_MATCHES", "PILOT_SECONDS", "duration", "estimate_line", "pilot",
           "pilot_matches"]
