"""What the pages compute from stored results, kept between requests under a key that changes
whenever those results change, so that nothing kept is shown after a change.

Stored results only grow between two purges: a job's matches are stored once (its part, and a row of
``results`` for each match, in one transaction that also adds them to ``runs.stored``), and only a
purge (``Server.purge_worker``) takes any away. A purge counts itself (``count_purge``, a row of
``flags`` written in its transaction). So (purges, a run's ``stored``) names exactly what a run holds,
and (purges, the sum of every run's ``stored``) what every run holds. A page reads the key first and
what it names after, so what it keeps under a key is never older than the key (it may be newer, when
results arrive meanwhile: the key has moved on by then, and the entry is never asked for again).

Every keeper is bounded: the least recently used entries go first."""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from concurrent.futures import Future
from pathlib import Path

from sqlalchemy import Integer, Text, cast, insert, select, update

from .tables import flags

PURGES = "purges"  # the row of ``flags`` that counts purges
BOTS_KEPT = 1024  # bots whose recent matches and matchups are kept
SEATS_KEPT = 64 << 20  # bytes of the runs' stored seats kept (polars' estimate)
VIEWERS_KEPT = 64 << 20  # characters of viewers' pages kept (a match of 11 rounds: 0.3 to 0.8 MB)
PLANS_KEPT = 50_000  # planned matches of the runs' plans kept


class Kept:
    """A mapping that keeps at most ``most`` in weight (``weigh(value)``, 1 each unless told), the least
    recently used entries dropped first; thread-safe. ``get`` makes a missing value once however many
    threads ask for it meanwhile (the others wait for it); a value whose making fails is not kept."""

    def __init__(self, most: int, weigh=lambda value: 1):
        self.most, self.weigh = most, weigh
        self._entries: OrderedDict = OrderedDict()  # key -> [future, weight]
        self._total = 0
        self._lock = threading.Lock()

    def get(self, key, make):
        with self._lock:
            entry = self._entries.get(key)
            making = entry is None
            if making:
                entry = self._entries[key] = [Future(), 0]
            else:
                self._entries.move_to_end(key)
        if not making:
            return entry[0].result()
        try:
            value = make()
        except BaseException as e:
            with self._lock:
                if self._entries.get(key) is entry:
                    del self._entries[key]
            entry[0].set_exception(e)
            raise
        entry[0].set_result(value)
        self._weigh(key, entry, value)
        return value

    def _weigh(self, key, entry, value) -> None:
        weight = self.weigh(value)
        with self._lock:
            if self._entries.get(key) is not entry:  # dropped while it was made
                return
            if weight > self.most:  # kept, it would push every other entry out
                del self._entries[key]
                return
            entry[1] = weight
            self._total += weight
            while self._total > self.most and self._entries:
                _key, (_future, dropped) = self._entries.popitem(last=False)
                self._total -= dropped

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def weight(self) -> int:
        return self._total


class Pages:
    """What one server's pages keep (``Server.pages``)."""

    def __init__(self):
        self.bots = Kept(BOTS_KEPT)  # (version ids, results' state) -> (recent matches, matchups)
        self.seats = Kept(SEATS_KEPT, lambda frame: frame.estimated_size())  # (run, its state) -> seats
        self.viewers = Kept(VIEWERS_KEPT, len)  # (run, match, purges) -> the page of those who own no seat


def purges(conn) -> int:
    """How many purges took results away (``count_purge``)."""
    value = conn.execute(select(flags.c.value).where(flags.c.name == PURGES)).scalar()
    return int(value or 0)


def count_purge(conn) -> None:
    """One purge more, counted in the purge's own transaction (an update in place, so that two server
    processes purging at once count two)."""
    counted = conn.execute(update(flags).where(flags.c.name == PURGES)
                           .values(value=cast(cast(flags.c.value, Integer) + 1, Text))).rowcount
    if not counted:
        conn.execute(insert(flags).values(name=PURGES, value="1"))


class PlanIndex:
    """What the pages need of a run's plan: each match's deal set (``deal_sets``: deal set -> its match
    ids) and seating (match id -> bot labels)."""

    def __init__(self, plan: dict):
        self.deal_sets: dict = {}
        self.seating: dict = {}
        for m in plan["matches"]:
            self.deal_sets.setdefault(m["deal_set"], []).append(m["id"])
            self.seating[m["id"]] = tuple(m["seating"])

    def __len__(self) -> int:
        return len(self.seating)


_plans = Kept(PLANS_KEPT, len)


def plan_index(folder) -> PlanIndex:
    """The ``PlanIndex`` of the run in ``folder``, its ``run.json`` read (and checked) once for as long
    as that file is the same one (its inode, size and time of change)."""
    from harness.runs import plan as planning
    from harness.runs.tournament import load_run

    folder = Path(folder)
    found = os.stat(folder / planning.PLAN_FILE)
    key = (str(folder), found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns)
    return _plans.get(key, lambda: PlanIndex(load_run(folder)))
