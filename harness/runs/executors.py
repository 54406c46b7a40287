"""Executors: where a run's tasks are played. The runner (harness/runs/runner.py) sees only this interface:

- ``open()``: get ready (start or join Ray); returns how many tasks may run at once. Raises
  ``ExecutorError`` with a one-line message when it cannot.
- ``start(job, packs)``: the job every task shares and the packed bot folders (label -> bytes);
  raises ``nodecheck.NodeRefused`` when a worker refuses the job before anything is played.
- ``submit(task)`` while not ``full``; ``wait(timeout)`` returns the tasks finished meanwhile
  (``TaskDone``); ``running`` counts those submitted and not yet returned.
- ``cancel()``: drop every task in flight (their matches stay unplayed); ``close()``: let go of
  everything ``open`` took (idempotent).

``RayExecutor`` plays tasks on a local Ray or a cluster (harness/runs/distributed.py). ``LocalExecutor``
plays each task in this process when ``wait`` is called, one at a time: no start-up cost, the same
task body (``distributed.play_batch``), the same rows and logs; for small runs and for tests.

Both take the task body (``body(job, items, packs)``, a module-level function a Ray worker can import):
``play_batch`` for a tournament's matches, ``harness/runs/selfplay.play_part`` for a self-play data set's
games (``ellibir train value``).
"""

from __future__ import annotations

from .jobs import Job, Task, TaskDone


class ExecutorError(RuntimeError):
    """The executor cannot start; the message is one line."""


class LocalExecutor:
    name = "local"

    def __init__(self, body=None):
        self.body = body
        self.job: Job | None = None
        self.packs: dict = {}
        self.queue: list[Task] = []
        self.playing = False  # a task is being played, in this process

    def open(self) -> int:
        return 1

    def start(self, job: Job, packs: dict) -> None:
        self.job, self.packs = job, packs

    @property
    def full(self) -> bool:
        return bool(self.queue)

    @property
    def running(self) -> int:
        return len(self.queue)

    def submit(self, task: Task) -> None:
        self.queue.append(task)

    def wait(self, timeout: float) -> list[TaskDone]:
        """Play the task waiting (``timeout`` does not apply: a task here runs to its end)."""
        from .distributed import play_batch
        from .nodecheck import NodeRefused

        body = self.body or play_batch
        if not self.queue:
            return []
        task = self.queue.pop(0)
        self.playing = True  # a stop signal now interrupts the task (runner.Stop): its bots are closed
        try:
            return [TaskDone(task, body(self.job, list(task.matches), self.packs), None, "local")]
        except NodeRefused as e:
            return [TaskDone(task, None, str(e), "local", refused=True)]
        except Exception as e:  # noqa: BLE001  (as a failed Ray task: reported, its matches stay to do)
            return [TaskDone(task, None, " ".join(str(e).split())[:300] or type(e).__name__, "local")]
        finally:
            self.playing = False

    def cancel(self) -> None:
        self.queue.clear()

    def close(self) -> None:
        self.queue.clear()


class RayExecutor:
    name = "ray"

    def __init__(self, workers: int | None = None, address: str | None = None, body=None):
        self.workers, self.address, self.body = workers, address, body
        self.pool = None
        self.slots = 0

    def open(self) -> int:
        from .distributed import ClusterError, connect, shutdown

        try:
            self.slots = connect(self.workers, self.address)
        except ClusterError as e:
            raise ExecutorError(str(e)) from None
        except KeyboardInterrupt:
            shutdown()
            raise
        return self.slots

    def start(self, job: Job, packs: dict) -> None:
        from .distributed import Pool

        self.pool = Pool(job, packs, 2 * max(1, self.slots), self.body)
        self.pool.warm(self.slots)

    @property
    def full(self) -> bool:
        return self.pool.full

    @property
    def running(self) -> int:
        return len(self.pool.running) if self.pool is not None else 0

    def submit(self, task: Task) -> None:
        self.pool.submit(task)

    def wait(self, timeout: float) -> list[TaskDone]:
        return self.pool.wait(timeout)

    def cancel(self) -> None:
        if self.pool is not None:
            self.pool.cancel()

    def close(self) -> None:
        from .distributed import shutdown

        self.pool = None
        shutdown()


def make_executor(kind: str = "ray", workers: int | None = None, address: str | None = None, body=None):
    if kind == "local":
        return LocalExecutor(body)
    if kind == "ray":
        return RayExecutor(workers, address, body)
    raise ExecutorError(f"unknown executor {kind!r} (ray or local)")
