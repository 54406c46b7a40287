"""A validated version on the ladder: a gauntlet of the version against the field (the server's
reference bots and the latest versions of other ready bots), planned by the tournament code
(harness/runs: the fair design for a submitted bot, fresh secret seeds) into a run folder of the
arena, its matches queued one deal set a job. Each job's results are written as a part of that run;
when the run is whole, its ratings are recorded in the arena (``record_run_ratings``, by rating.py's
steps), so that the ladder (harness/arena/ladder.py) rates it with the arena's other runs; and while the version's
interval on the ladder reaches further than ±Settings.settle, it plays another run, up to
Settings.max_deal_sets deal sets in all."""

from __future__ import annotations

import json
import math
import secrets
from pathlib import Path

from sqlalchemy import insert, select, update

from harness.arena.ladder import LadderError, arena_runs, ladders
from harness.runs import plan as planning
from harness.runs.faultlog import MAX_TIMES, valid_times
from harness.runs.jobs import MatchResult
from harness.runs.options import Config, TournamentError
from harness.runs.parts import write
from harness.runs.runner import _schema_rules, batches
from harness.runs.tournament import load_run, prepare
from harness.players.botfiles import content_hash
from results.store import PartExistsError, RunStore

from . import queue
from .kept import plan_index
from .tables import bots, jobs, ratings, results, runs, versions


def plan_run(conn, arena, settings, version_id: int, label: str, now: float, deal_sets: int | None = None) -> int:
    """Plan the version's gauntlet (``settings.deal_sets`` deal sets unless ``deal_sets`` says) in a new
    run folder and queue its deal sets; returns the run's id."""
    rivals = conn.execute(
        select(bots.c.name, versions.c.version).join(versions, versions.c.bot_id == bots.c.id)
        .where(versions.c.status == "ready", versions.c.id != version_id).order_by(versions.c.id.desc())).all()
    field, seen = list(settings.field), {label.partition("@")[0]}
    for name, version in rivals:
        if name not in seen and len(seen) <= settings.rivals:
            seen.add(name)
            field.append(f"{name}@{version}")
    number = conn.execute(insert(runs).values(version_id=version_id, folder="", planned=0, stored=0, done=False,
                                              created=now)).inserted_primary_key[0]
    # a random part too: SQLite may give a rolled-back run's number again, and its folder may be left
    folder = arena.root / ".server" / "runs" / f"run-{number:06d}-{secrets.token_hex(4)}"
    config = Config(kind="tournament", format="gauntlet", challenger=label, bots=field,
                    deal_sets=deal_sets or settings.deal_sets,
                    game=settings.game, sets={"players": settings.players, "rounds": settings.rounds},
                    name=f"ladder-{number:06d}", out=folder, arena=arena.root, executor="local", quiet=True)
    plan, run_dir = prepare(config)
    run_dir.mkdir(parents=True)
    planning.write_plan(run_dir, plan)
    conn.execute(update(runs).where(runs.c.id == number)
                 .values(folder=str(run_dir), planned=len(plan["matches"])))
    for n, batch in enumerate(batches(plan["matches"], 1, by_deal_set=True)):
        conn.execute(insert(jobs).values(kind="play", version_id=version_id, run_id=number, task=f"s{n:05d}",
                                         matches=json.dumps([m["id"] for m in batch]), state="queued", leases=0,
                                         created=now))
    return number


def work_of(run_folder: str, match_ids: list) -> dict:
    """What a worker needs to play a job: the plan without its match list, the job's matches, and
    the content hash of each bot folder they seat (the worker asks for the files it lacks)."""
    plan = load_run(Path(run_folder))
    wanted = set(match_ids)
    matches = [m for m in plan["matches"] if m["id"] in wanted]
    seated = {label for m in matches for label in m["seating"]}
    return {"plan": {k: v for k, v in plan.items() if k != "matches"}, "matches": matches,
            "bots": {b["label"]: b["hash"] for b in plan["bots"] if b["kind"] != "builtin" and b["label"] in seated}}


def bot_files(run_folder: str, match_ids: list, digest: str) -> Path | None:
    """The folder of the job's bot whose content hash is ``digest`` (checked), or None (also when its
    files are gone: a version its owner deleted)."""
    plan = load_run(Path(run_folder))
    found = work_of(run_folder, match_ids)["bots"]
    for b in plan["bots"]:
        if b["label"] in found and b["hash"] == digest and Path(b["folder"]).is_dir() and content_hash(b["folder"]) == digest:
            return Path(b["folder"])
    return None


def seated_in_open_runs(conn) -> set:
    """The labels of the bot folders that the runs with a job still to play seat (a job queued, leased,
    or failed and waiting for the organiser's requeue): the versions whose files a worker may still ask
    for."""
    open_runs = select(jobs.c.run_id).where(jobs.c.state.in_(("queued", "leased", "failed")), jobs.c.run_id.is_not(None))
    labels = set()
    for folder in conn.execute(select(runs.c.folder).where(runs.c.id.in_(open_runs))).scalars():
        labels |= {b["label"] for b in load_run(Path(folder))["bots"] if b["kind"] != "builtin"}
    return labels


class ResultsRefused(ValueError):
    """A worker's results that do not fit what was leased: one line."""


def results_of(plan: dict, match_ids: list, items) -> list:
    """The uploaded results as ``MatchResult``s, checked against the leased matches: exactly those
    matches, each in its planned seating, rows of this run and match only, each naming its seat's
    bot, one match row per seat."""
    planned = {m["id"]: m for m in plan["matches"] if m["id"] in set(match_ids)}
    if not isinstance(items, list) or sorted(str(i.get("id")) if isinstance(i, dict) else "" for i in items) != sorted(planned):
        raise ResultsRefused("the results are not those of the leased matches")
    out = []
    for item in items:
        m = planned[item["id"]]
        rows = item.get("matches"), item.get("rounds")
        if list(item.get("seating") or []) != list(m["seating"]) or not all(isinstance(r, list) for r in rows):
            raise ResultsRefused(f"match {m['id']}: not its planned seating")
        for row in rows[0] + rows[1]:
            if not isinstance(row, dict) or row.get("match_id") != m["id"] or row.get("run") != plan["name"]:
                raise ResultsRefused(f"match {m['id']}: a row of another match or run")
            seat = row.get("seat")
            if not (isinstance(seat, int) and 0 <= seat < len(m["seating"]) and row.get("bot") == m["seating"][seat]):
                raise ResultsRefused(f"match {m['id']}: a row names another bot than its seat's")
        if sorted(row["seat"] for row in rows[0]) != list(range(len(m["seating"]))):
            raise ResultsRefused(f"match {m['id']}: one row per seat is required")
        if not isinstance(item.get("log"), str):
            raise ResultsRefused(f"match {m['id']}: its log is required")
        stderr = item.get("stderr") if isinstance(item.get("stderr"), dict) else {}
        seats = {str(n) for n in range(len(m["seating"]))}
        out.append(MatchResult(m["id"], tuple(m["seating"]), list(item.get("ranks") or []), rows[0], rows[1],
                               item["log"], {k: str(v)[-20_000:] for k, v in stderr.items() if k in seats},
                               times=times_of(m["id"], item.get("times", {}), rows[0])))
    return out


def times_of(match_id: str, times, rows: list) -> dict:
    """A match's decision times by seat, checked: for seats of the match only, each a list of
    non-negative milliseconds, as many as its row's ``decisions``."""
    decisions = {str(row["seat"]): row.get("decisions") for row in rows}
    if not isinstance(times, dict) or not set(times) <= set(decisions):
        raise ResultsRefused(f"match {match_id}: decision times of seats it does not have")
    for seat, listed in times.items():
        if not isinstance(listed, list) or len(listed) > MAX_TIMES or len(listed) != decisions[seat]:
            raise ResultsRefused(f"match {match_id}: seat {seat} has not one decision time a decision")
        if not valid_times(listed):
            raise ResultsRefused(f"match {match_id}: seat {seat}'s decision times are not non-negative numbers")
    return times


def store_results(run_folder: str, task: str, results: list) -> None:
    """Write a job's matches as the run's part ``task`` (written once: a second time changes nothing)."""
    run_dir = Path(run_folder)
    plan = load_run(run_dir)
    store = RunStore(run_dir)
    try:
        write(store, task, _schema_rules(plan), results, set())
    except PartExistsError:
        return
    except (ValueError, TypeError, KeyError) as e:  # pyarrow's errors are ValueError or TypeError
        raise ResultsRefused(f"the results do not fit the run's schema: {' '.join(str(e).split())[:300]}") from None


def remove_results(run_folder: str, task: str) -> None:
    """A job's part taken out of its run (its matches, rounds, logs and the bots' stderr), to be played
    again: what a purged worker wrote."""
    store = RunStore(Path(run_folder))
    for table in ("matches", "rounds", "logs", "stderr"):
        store.path(table, task).unlink(missing_ok=True)


def play_on(conn, arena, settings, version_id: int, now: float) -> int | None:
    """Another run for a ready version whose interval (its latest snapshot) reaches further than
    ±``settings.settle``, with none of its runs unfinished, while it has played fewer than
    ``settings.max_deal_sets`` deal sets: the new run's id, or None."""
    v = conn.execute(select(versions.c.status, versions.c.version, versions.c.log, bots.c.name)
                     .join(bots, versions.c.bot_id == bots.c.id).where(versions.c.id == version_id)).one()
    unfinished = conn.execute(select(runs.c.id).where(runs.c.version_id == version_id, runs.c.done.is_(False))).first()
    if v.status != "ready" or unfinished is not None:
        return None
    width = queue.half_widths(conn, [version_id])[version_id]
    played = deal_sets_planned(conn, version_id)
    if width <= settings.settle or played >= settings.max_deal_sets:
        return None
    try:
        return plan_run(conn, arena, settings, version_id, f"{v.name}@{v.version}", now,
                        next_deal_sets(played, width, settings))
    except (ValueError, OSError) as e:  # the version stays ready; the organiser asks for matches again
        conn.execute(update(versions).where(versions.c.id == version_id).values(
            log=v.log + f"\nnot planned on the ladder again: {' '.join(str(e).split())}"))
        return None


def next_deal_sets(played: int, width: float, settings) -> int:
    """The next run's deal sets: as many as the interval's half width says are still needed (it narrows
    as one over the square root of the deal sets), at least ``settings.deal_sets``, at most as many as
    played so far (an estimate from few deal sets is rough), within ``settings.max_deal_sets``."""
    needed = math.ceil(played * ((width / settings.settle) ** 2 - 1)) if math.isfinite(width) else played
    return min(settings.max_deal_sets - played, max(settings.deal_sets, min(needed, played)))


def deal_sets_planned(conn, version_id: int) -> int:
    """The deal sets of every run planned for the version (their plans say)."""
    folders = conn.execute(select(runs.c.folder).where(runs.c.version_id == version_id, runs.c.folder != "")).scalars()
    return sum(load_run(Path(folder))["deal_sets"] for folder in folders)


def snapshot(conn, rated: list, now: float) -> None:
    """Every version's rating on each ladder it is on in ``rated`` (``ladder_entries``), dated ``now``."""
    known = {f"{r.name}@{r.version}": r.id for r in conn.execute(
        select(versions.c.id, versions.c.version, bots.c.name).join(bots, versions.c.bot_id == bots.c.id))}
    for entry in rated:
        for bot in entry.get("bots", []):
            if bot["bot"] in known and bot.get("rating") is not None:
                conn.execute(insert(ratings).values(
                    version_id=known[bot["bot"]], ladder=f"{entry['game']} {entry['players']}p {entry['name']}"[:200],
                    rating=bot["rating"], lo=bot.get("lo"), hi=bot.get("hi"), games=bot["games"], date=now))


def over(conn, run_id: int, folder: str) -> set:
    """The ids of a run's matches whose deal set is stored whole (every match of it, from whichever
    jobs): the matches whose replay and logs may be shown, since no match of their deals is left."""
    stored = set(conn.execute(select(results.c.match_id).where(results.c.run_id == run_id)).scalars())
    if conn.execute(select(runs.c.done).where(runs.c.id == run_id)).scalar():
        return stored  # a whole run: no need to read its plan
    deal_sets = plan_index(folder).deal_sets
    return {i for ids in deal_sets.values() if stored.issuperset(ids) for i in ids}


def check_field(arena, settings) -> None:
    """The field's bots, each resolved as a gauntlet would (TournamentError, one line)."""
    from harness.runs.tournament import resolve_bots

    resolve_bots(list(settings.field), arena.root, settings.game)


def ladder_entries(arena) -> list:
    try:
        return ladders(arena_runs(arena))
    except (LadderError, TournamentError):
        return []
