"""The typed values a run passes between its parts: the plan's matches and bots, the job every task
shares, a task, and what a task gives back.

``run.json`` stays the plan's document (harness/runs/plan.py writes and reads it, unchanged); these are
built from it when a run starts (``Job.of_plan``, ``PlannedMatch.of``) and are what the runner, the
executors and the task body (``harness/distributed.play_batch``) exchange. All are picklable, so a
Ray task receives them as they are.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class PlannedMatch:
    """One item of the plan's ``matches``."""

    id: str
    variant: str
    deal_set: int
    deal_seed: int
    table: int
    rotation: int
    seating: tuple[str, ...]

    @classmethod
    def of(cls, item: dict) -> "PlannedMatch":
        return cls(item["id"], item["variant"], item["deal_set"], item["deal_seed"], item["table"],
                   item["rotation"], tuple(item["seating"]))


@dataclass(frozen=True, slots=True)
class PlannedBot:
    """One item of the plan's ``bots``: ``kind`` builtin, folder or submitted; folder bots carry the
    folder they were planned from and the content hash of its files."""

    label: str
    kind: str
    version: str = ""
    hash: str = ""
    folder: str | None = None

    @classmethod
    def of(cls, item: dict) -> "PlannedBot":
        folder = item.get("folder")
        return cls(item["label"], item["kind"], str(item.get("version") or ""), str(item.get("hash") or ""),
                   str(folder) if folder is not None else None)

    @property
    def packed(self) -> bool:
        """Its files travel to the workers (every bot but a built-in one)."""
        return self.kind != "builtin"


@dataclass(frozen=True, slots=True)
class Options:
    """How every match of the run is played (the plan's ``options``)."""

    move_time: float
    bank: float
    first_time: float
    on_fault: str
    max_refusals: int
    cpu_limit: float | None = None
    reuse: bool = True  # bot processes kept between the matches of a task (harness/players/reuse.py)

    @classmethod
    def of(cls, item: dict) -> "Options":
        return cls(item["move_time"], item["bank"], item["first_time"], item["on_fault"], item["max_refusals"],
                   item.get("cpu_limit"), bool(item.get("reuse", True)))


@dataclass(frozen=True, slots=True)
class Job:
    """What every task of a run needs besides its matches. ``version``: the project version the plan
    was made with; a worker on other code refuses the job (harness/runs/nodecheck.py)."""

    run: str
    game: str
    variants: dict  # variant id -> its normalised rules
    options: Options
    bots: dict  # label -> PlannedBot
    version: str = ""
    analysis: bool = False  # a skill study's plan: its own analysis-only bot (the clairvoyant) may be made


    @classmethod
    def of_plan(cls, plan: dict) -> "Job":
        return cls(plan["name"], plan["game"], {v["id"]: v["rules"] for v in plan["variants"]},
                   Options.of(plan["options"]), {b["label"]: PlannedBot.of(b) for b in plan["bots"]},
                   str(plan.get("project_version") or ""), analysis_allowed(plan))


def analysis_allowed(plan: dict) -> bool:
    """Whether the plan is a skill study whose only analysis-only bot is the one it added itself."""
    from bots import analysis_only

    if plan.get("kind") != "skill" or not isinstance(plan.get("skill"), dict):
        return False
    fictive = plan["skill"].get("fictive")
    return all(b["label"] == fictive for b in plan["bots"]
               if b["kind"] == "builtin" and analysis_only(b["label"].removeprefix("builtin:"), plan["game"]))


@dataclass(slots=True)
class MatchResult:
    """One played match: its rows of both tables, its annotated event log, the bots' stderr by seat, and
    each bot program's decision times by seat (milliseconds, in order)."""

    id: str
    seating: tuple[str, ...]
    ranks: list
    matches: list  # rows of the matches table (results/rows.py)
    rounds: list  # rows of the rounds table
    log: str
    stderr: dict = field(default_factory=dict)
    seconds: float | None = None  # the match's wall time where it was played (harness/runs/estimate.py)
    times: dict = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Task:
    """A batch of planned matches, named by its part (``a{attempt}-{n}``)."""

    id: str
    matches: tuple  # PlannedMatch, in plan order


@dataclass(slots=True)
class TaskDone:
    """A finished task: its results, or the error that ended it (after the executor's retries)."""

    task: Task
    results: list | None  # MatchResult
    error: str | None = None
    node: str = ""  # where it ran, as the executor names it
    refused: bool = False  # a worker refused the job (harness/runs/nodecheck.py): the run stops


@dataclass
class Outcome:
    planned: int
    done: int  # matches in the run folder at the end
    played: int  # matches written by this call
    failed: int  # matches of tasks that failed after their retries
    stopped: int  # 0, or the signal that stopped the run
    errors: list
    elapsed: float = 0.0  # seconds from the first task submitted to the last one written (the executor's start excluded)
    sprt: dict | None = None  # the sequential test's state at the end (runs with --sprt)
    warnings: list = field(default_factory=list)  # what did not stop the run but should be said
    refused: bool = False  # a worker refused the job: the run stopped

    @property
    def decided(self) -> bool:
        return self.sprt is not None and self.sprt["verdict"] != "continue"

    @property
    def exit_code(self) -> int:
        if self.decided:
            return 0
        if self.stopped:
            return 128 + self.stopped
        return 0 if self.done == self.planned else 1
