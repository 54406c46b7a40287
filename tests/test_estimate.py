"""The time estimate of a run (harness/runs/estimate.py, issue 27 point 6; issue 25 forbids the peek): it never
plays a deal of the run, its pilot runs on the run's own workers, its arithmetic on known inputs, and the progress
bar's estimate from the run's own matches."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from harness.runs import distributed
from harness.runs.estimate import Estimate, duration, pilot, pilot_matches
from harness.runs.executors import LocalExecutor
from harness.runs.jobs import Job
from harness.runs.listeners import ProgressDisplay
from harness.runs.options import make_config
from harness.runs.tournament import execute, prepare


def _plan(tmp_path, deal_sets=3, players=2):
    flags = {"bots": ["builtin:greedy", "builtin:pairs"], "set": [f"players={players}", "rounds=1"],
             "deal_sets": deal_sets, "seed": 11, "out": tmp_path / "run", "executor": "local"}
    return prepare(make_config("tournament", flags))


def test_the_estimate_never_plays_a_deal_of_the_run(tmp_path, monkeypatch):
    """Every match played, pilot and run, is recorded where it is played: the planned matches are played once
    each, and the pilot's deals are none of the plan's. (The estimate before issue 27 played the plan's first
    matches with their real deals, then the run played them again.)"""
    plan, run_dir = _plan(tmp_path)
    played = []
    real = distributed.play_one

    def recording(job, m, names, pool=None):
        played.append((m.id, m.deal_seed))
        return real(job, m, names, pool)

    monkeypatch.setattr(distributed, "play_one", recording)
    out = io.StringIO()
    display = ProgressDisplay(Console(file=out, width=200), quiet=False)
    outcome = execute(plan, run_dir, new=True, executor="local", listeners=[display])
    assert outcome.done == outcome.planned == len(plan["matches"])
    seeds = {m["deal_seed"] for m in plan["matches"]} | set(plan["deal_seeds"])
    ids = [m["id"] for m in plan["matches"]]
    pilot_games = [(i, s) for i, s in played if i.startswith("pilot-")]
    run_games = [(i, s) for i, s in played if not i.startswith("pilot-")]
    assert pilot_games, "the pilot played nothing: no estimate was made"
    assert not any(s in seeds for _, s in pilot_games)  # never a deal of the run
    assert sorted(i for i, _ in run_games) == sorted(ids)  # each planned match once
    said = out.getvalue()
    assert "estimate: about" in said and "on fresh deals" in said
    assert f"played {len(ids)} matches in" in said and "the pilot estimated" in said
    assert "pilot" not in (run_dir / "run.json").read_text()  # nothing of the pilot is written


def test_pilot_matches_are_like_the_plans_on_fresh_deals(tmp_path):
    plan, _ = _plan(tmp_path, deal_sets=2, players=4)
    made = pilot_matches(plan, 6)
    planned = {m["deal_seed"] for m in plan["matches"]}
    assert len({m.deal_seed for m in made}) == 6 and not planned & {m.deal_seed for m in made}
    seatings = {tuple(m["seating"]) for m in plan["matches"]}
    assert all(m.seating in seatings and m.deal_set == -1 and m.id.startswith("pilot-") for m in made)


class _Slow(LocalExecutor):
    """A local executor whose tasks 'take' ``seconds`` of a fake clock each, and that records cancels."""

    def __init__(self, clock, seconds):
        super().__init__()
        self.clock, self.seconds, self.cancelled = clock, seconds, 0

    def wait(self, timeout):
        done = super().wait(timeout)
        self.clock.now += self.seconds
        return done

    def cancel(self):
        self.cancelled += 1
        super().cancel()


class _Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_the_pilot_stops_at_its_budget_and_says_its_figure_is_a_lower_bound(tmp_path):
    plan, _ = _plan(tmp_path)
    clock = _Clock()
    executor = _Slow(clock, 30.0)
    executor.start(Job.of_plan(plan), {})
    timed, wall, whole = pilot(executor, plan, slots=3, per_task=1, budget=10.0, clock=clock)
    assert not whole and executor.cancelled == 1 and len(timed) == 1 and wall == 30.0


def test_the_arithmetic_on_known_inputs():
    e = Estimate(4)
    assert e.per_match is None and e.left(100) is None
    e.add([2.0, 1.0, 1.0], "the pilot")  # a task: its first match 1 s longer than the others
    e.add([3.0, 1.0], "the pilot")
    assert e.per_match == pytest.approx(1.0) and e.first_extra == pytest.approx(1.5)
    assert e.matches == 5 and e.source == "the pilot"
    # 200 matches of 1 s and 10 tasks' first matches 1.5 s longer, on 4 workers
    assert e.left(200, 10) == pytest.approx((200 * 1.0 + 10 * 1.5) / 4)
    e.add([0.5, 0.25, 0.25])  # the run's own matches replace the pilot's figures
    assert e.source == "this run" and e.per_match == pytest.approx(0.25) and e.first_extra == pytest.approx(0.25)
    assert e.left(40) == pytest.approx(40 * 0.25 / 4)
    only_first = Estimate(2)
    only_first.add([3.0])
    only_first.add([1.0])
    assert only_first.per_match == pytest.approx(2.0) and only_first.first_extra == 0.0
    assert [duration(s) for s in (0.04, 45, 719, 9000)] == ["0.0 s", "45 s", "12 min", "2.5 h"]


def test_the_progress_bar_estimates_from_the_runs_own_matches(tmp_path):
    """Its ETA comes from the run's timed matches as tasks finish (not the bar's rate, which counts only
    finished tasks), then, once every worker has finished a task, from the pace the run kept."""
    from harness.runs.jobs import MatchResult

    display = ProgressDisplay(Console(file=io.StringIO()), quiet=True)
    display.estimate = Estimate(2)
    display.tasks_left = 3

    class Run:
        elapsed = 50.0

        class outcome:
            planned, done, played = 100, 40, 40

    display.stored(Run, [MatchResult("a", (), [], [], [], "", {}, s) for s in (1.0, 0.5, 0.5)])
    assert display.tasks_left == 2 and display.estimate.source == "this run"
    shown = display._left(Run)  # one task in: its matches' times
    assert shown["left"] == pytest.approx((60 * 0.5 + 2 * 0.5) / 2) and shown["left_from"] == "this run"
    display.stored(Run, [MatchResult("b", (), [], [], [], "", {}, s) for s in (1.0, 0.5)])
    assert display.left(Run) == pytest.approx(60 * 50.0 / 40)  # a task per worker in: the pace kept so far
    assert Estimate.by_rate(10, 0, 5.0) is None and Estimate.by_rate(10, 5, 0.0) is None
    from harness.runs.listeners import _left_column

    class Task:
        fields = {"left": 75.0, "left_at": __import__("time").monotonic() - 30.0, "left_from": "the pilot"}

    assert _left_column().render(Task).plain == "ETA 45 s (pilot)"  # counts down between tasks
