"""Rate limits: at most ``count`` events per ``period`` seconds for one key (a user, an address), in
memory, on an injectable clock. A refusal says in how many seconds the next event is allowed."""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from dataclasses import dataclass


@dataclass(frozen=True)
class Rate:
    count: int
    period: float


class RateLimited(Exception):
    def __init__(self, what: str, retry_after: int):
        super().__init__(f"too many {what}: try again in {retry_after} s")
        self.retry_after = retry_after


class Limiter:
    MAX_KEYS = 100_000  # the oldest keys are forgotten past this many

    def __init__(self, rates: dict, clock=time.time):
        self.rates = rates  # action -> Rate
        self.clock = clock
        self.seen: dict = {}
        self.lock = threading.Lock()

    def hit(self, action: str, key: str) -> None:
        """Count one event, or raise RateLimited (the event is not counted then)."""
        rate = self.rates[action]
        now = self.clock()
        with self.lock:
            times = self.seen.setdefault((action, key), deque())
            while times and times[0] <= now - rate.period:
                times.popleft()
            if len(times) >= rate.count:
                raise RateLimited(action, max(1, math.ceil(times[0] + rate.period - now)))
            times.append(now)
            if len(self.seen) > self.MAX_KEYS:
                self.seen.pop(next(iter(self.seen)))
