"""Compaction (results/compact.py, ``ellibir compact``): a run's parts merged into few files with every
match kept exactly once; a compaction stopped at each of its named steps (a test hook raising, as a
kill would leave it) is seen whole by every reader and is finished by the next compact or resume;
bad input is one line, exit 2, nothing changed; the store's bookkeeping reads the parts once."""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from harness.runs import plan as planning
from harness.runs import tournament as t
from harness.cli.main import app
from harness.runs.distributed import play_batch
from results.compact import STEPS, compact, plan_groups, recover
from results.integrity import IntegrityError, check_part, id_problems
from results.runs import open_runs

from conftest import shared
from results.schema import TIMING_COLUMNS
from results.store import JOURNAL, RunStore, iter_logs, log_members

BOTS = ["builtin:greedy", "builtin:pairs", "builtin:random"]


class Crash(BaseException):
    """A stop at a named step: nothing after it runs, as after a kill (no clean-up code sees it)."""


def crash_at(step: str, nth: int = 1):
    seen = {}

    def hook(name: str) -> None:
        seen[name] = seen.get(name, 0) + 1
        if name == step and seen[name] == nth:
            raise Crash(step)
    return hook


def play(run_dir: Path, deal_sets: int = 4, size: int = 4, upto: int | None = None, seed: int = 1) -> dict:
    """A real round robin played in this process (no Ray), ``size`` matches a part, its first ``upto`` matches."""
    config = t.make_config("tournament", {"bots": BOTS, "players": 4, "deal_sets": deal_sets, "rounds": 1,
                                          "seed": seed, "out": str(run_dir), "duplicate": True})
    plan, run_dir = t.prepare(config)
    run_dir.mkdir(parents=True)
    planning.write_plan(run_dir, plan)
    (run_dir / ".lock").touch()  # as a run leaves it
    add_parts(run_dir, plan, plan["matches"][:upto], size, attempt=1)
    return plan


def add_parts(run_dir: Path, plan: dict, matches: list, size: int, attempt: int) -> None:
    store, done = RunStore(run_dir), set()
    for n, i in enumerate(range(0, len(matches), size)):
        t.write(store, f"a{attempt}-{n:05d}", t._schema_rules(plan), play_batch(t.job_of(plan), matches[i:i + size], {}),
                done)


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Path:
    return shared(tmp_path_factory, "compact_played", lambda top: play(top / "rr")) / "rr"  # 48 matches in 12 parts


def fresh_copy(run_dir: Path, tmp_path: Path) -> Path:
    """A test's own copy of a module's played run."""
    copy = tmp_path / run_dir.name
    shutil.copytree(run_dir, copy)
    return copy


@pytest.fixture
def run(played, tmp_path) -> Path:
    return fresh_copy(played, tmp_path)


def contents(run_dir: Path) -> dict:
    """Everything a reader gets from the run: rows of both tables (sorted) and every match's log."""
    store = RunStore(run_dir)
    keys = {"matches": ["match_id", "seat"], "rounds": ["match_id", "round_index", "seat"]}
    out = {table: store.scan(table).collect().sort(*keys[table]) for table in keys}
    out["logs"] = {m: store.read_log(m) for m in sorted(store.done_match_ids())}
    return out


def same(a: dict, b: dict, timing: bool = True) -> bool:
    """``timing=False``: the decision times left out (a match played again takes other times)."""
    drop = [] if timing else list(TIMING_COLUMNS)
    return (a["matches"].drop(drop).equals(b["matches"].drop(drop)) and a["rounds"].equals(b["rounds"])
            and a["logs"] == b["logs"])


def planned(run_dir: Path) -> list:
    return sorted(m["id"] for m in json.loads((run_dir / "run.json").read_text())["matches"])


def fingerprint(run_dir: Path) -> dict:
    return {str(p.relative_to(run_dir)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(run_dir.rglob("*")) if p.is_file()}


# Compaction ---------------------------------------------------------------------------------------------

def test_compaction_keeps_every_row_and_log_in_few_files(run):
    before, files = contents(run), fingerprint(run)
    done = compact(RunStore(run))
    assert (done.parts_before, done.parts_after) == (12, 1)
    assert sorted(p.parent.name for p in run.rglob("*.parquet")) == ["matches", "rounds"]
    assert len(list((run / "logs").iterdir())) == 1 and not (run / JOURNAL).exists()
    assert len(fingerprint(run)) == len(files) - 33  # 36 part files -> 3
    assert same(contents(run), before)
    seen = [m for m, _ in iter_logs(run)]
    assert sorted(seen) == planned(run)  # every log once
    assert id_problems(RunStore(run), json.loads((run / "run.json").read_text())) == []


def test_a_compacted_part_keeps_page_checksums(run):
    compact(RunStore(run))
    part = next((run / "matches").glob("*.parquet"))
    assert pq.ParquetFile(part).metadata.num_row_groups == 1
    chunk = pq.ParquetFile(part).metadata.row_group(0)
    meta = next(chunk.column(i) for i in range(chunk.num_columns) if chunk.column(i).path_in_schema == "total")
    data = bytearray(part.read_bytes())
    end = (meta.dictionary_page_offset or meta.data_page_offset) + meta.total_compressed_size
    data[end - 3] ^= 0x01  # one bit in the last bytes of the column's data page
    part.write_bytes(bytes(data))
    with pytest.raises(IntegrityError, match="damaged Parquet data"):
        check_part(part)


def test_compact_is_idempotent(run):
    compact(RunStore(run))
    once = fingerprint(run)
    again = compact(RunStore(run))
    assert again.parts_before == again.parts_after == 1 and fingerprint(run) == once


def test_parts_added_after_a_compaction_are_merged_with_it_and_logs_still_read(tmp_path):
    run_dir = tmp_path / "rr"
    plan = play(run_dir, upto=20, size=4)
    compact(RunStore(run_dir))
    store = RunStore(run_dir)
    add_parts(run_dir, plan, plan["matches"][20:], size=4, attempt=store.next_attempt())
    assert store.next_attempt() > 2  # no task takes the compacted part's name again
    before = contents(run_dir)
    assert len(RunStore(run_dir).part_ids()) == 8
    done = compact(RunStore(run_dir))
    assert done.parts_after == 1
    assert same(contents(run_dir), before) and sorted(before["logs"]) == planned(run_dir)


@given(sizes=st.lists(st.integers(1, 40), max_size=60), limit=st.integers(1, 100))
def test_groups_are_consecutive_within_the_limit_and_merging_them_ends(sizes, limit):
    parts = {f"a1-{n:05d}": [f"m{n}-{k}" for k in range(size)] for n, size in enumerate(sizes)}
    groups = plan_groups(parts, limit)
    names = sorted(parts)
    for g in groups:
        assert len(g) > 1 and sum(len(parts[p]) for p in g) <= limit
        start = names.index(g[0])
        assert g == names[start:start + len(g)]
    assert len({p for g in groups for p in g}) == sum(len(g) for g in groups)
    rounds = 0
    while groups:  # as compact does: merge, plan again, until no group is left
        rounds += 1
        assert rounds <= len(sizes)
        for k, g in enumerate(groups):
            parts[f"a{9 + rounds}-c{k:05d}"] = [i for p in g for i in parts.pop(p)]
        groups = plan_groups(parts, limit)
    assert sorted(i for ids in parts.values() for i in ids) == sorted(f"m{n}-{k}" for n, s in enumerate(sizes)
                                                                      for k in range(s))
    assert all(len(ids) <= limit for name, ids in parts.items() if "-c" in name)


def test_groups_hold_at_most_the_limit_and_single_parts_stay():
    parts = {f"a1-{n:05d}": [f"m{n}-{k}" for k in range(4)] for n in range(10)}
    groups = plan_groups(parts, 12)
    assert [len(g) for g in groups] == [3, 3, 3]  # the tenth part alone is left as it is
    assert plan_groups({"a2-c00000": list("abc")}, 12) == []


# Stopped at each step ------------------------------------------------------------------------------------

STOPS = [(step, 1, 10**6) for step in STEPS] + [("sources", 5, 10**6), ("journal", 2, 20), ("matches", 2, 20)]


@pytest.mark.parametrize("step,nth,limit", STOPS, ids=[f"{s}-{n}-{lim}" for s, n, lim in STOPS])
def test_a_compaction_stopped_at_any_step_loses_and_repeats_nothing(run, step, nth, limit):
    before = contents(run)
    with pytest.raises(Crash):
        compact(RunStore(run), max_matches=limit, hook=crash_at(step, nth))
    # as stopped: every reader sees each planned match once, with its rounds and log
    plan = json.loads((run / "run.json").read_text())
    assert same(contents(run), before)
    assert id_problems(RunStore(run), plan) == []
    assert sorted(m for m, _ in iter_logs(run)) == planned(run)
    runs = open_runs([run])
    assert runs.matches.select("match_id").collect().n_unique() == len(planned(run))
    # a resume (nothing left to play: Ray is not started) recovers under the lock
    outcome = t.execute(plan, run, new=False, quiet=True)
    assert (outcome.done, outcome.played) == (len(planned(run)), 0)
    assert not (run / JOURNAL).exists() and not list(run.rglob(".*.tmp"))
    assert same(contents(run), before)
    # and a compaction then ends where an uninterrupted one does
    compact(RunStore(run), max_matches=limit)
    assert same(contents(run), before) and compact(RunStore(run), max_matches=limit).parts_after <= 3


def test_recovery_alone_finishes_or_undoes_and_reports_which(run):
    with pytest.raises(Crash):
        compact(RunStore(run), hook=crash_at("rounds"))
    assert recover(RunStore(run)).startswith("undid")
    assert len(RunStore(run).part_ids()) == 12
    with pytest.raises(Crash):
        compact(RunStore(run), hook=crash_at("matches"))
    assert len(RunStore(run).part_ids()) == 1  # the sources are hidden before they are removed
    assert recover(RunStore(run)).startswith("finished")
    assert len(list((run / "matches").iterdir())) == 1


def test_a_run_resumed_after_a_stopped_compaction_plays_exactly_the_rest(tmp_path):
    """The real resume (the local executor: Ray's task body and rows, in this process; resumes on Ray are
    tests/test_tournament.py's): half the plan stored, a compaction stopped once its target is in place
    and before any source is removed; the resume plays the rest, and compacts at its end."""
    run_dir = tmp_path / "rr"
    plan = play(run_dir, deal_sets=2, upto=12, size=3)
    with pytest.raises(Crash):
        compact(RunStore(run_dir), hook=crash_at("matches"))
    outcome = t.execute(plan, run_dir, new=False, executor="local")
    assert (outcome.done, outcome.played, outcome.failed) == (24, 12, 0)
    assert not (run_dir / JOURNAL).exists()
    assert len(list((run_dir / "matches").iterdir())) == 1  # compacted at the end
    final = contents(run_dir)
    assert sorted(final["logs"]) == planned(run_dir)
    assert final["matches"].select("match_id", "seat").n_unique() == final["matches"].height == 24 * 4
    assert id_problems(RunStore(run_dir), plan) == []


# The command and bad input ----------------------------------------------------------------------------------

def invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def refused(result, *words) -> None:
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    for w in words:
        assert w in lines[0], lines[0]


def test_the_command_compacts_and_says_so(run):
    done = invoke("compact", run)
    assert done.exit_code == 0, done.output
    assert "12 parts into 1" in done.output
    again = invoke("compact", run)
    assert again.exit_code == 0 and "nothing to compact (1 part, " in again.output  # not "1 parts"


def test_the_command_finishes_a_stopped_compaction(run):
    with pytest.raises(Crash):
        compact(RunStore(run), hook=crash_at("sources", 3))
    done = invoke("compact", run)
    assert done.exit_code == 0 and "finished an interrupted compaction" in done.output
    assert len(list((run / "matches").iterdir())) == 1


def test_not_a_run_is_refused(tmp_path):
    refused(invoke("compact", tmp_path / "nowhere"), "no such run folder")
    (tmp_path / "empty").mkdir()
    refused(invoke("compact", tmp_path / "empty"), "not a run folder")
    (tmp_path / "file").write_text("x")
    refused(invoke("compact", tmp_path / "file"), "no such run folder")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty", "file"] and not list((tmp_path / "empty").iterdir())


def test_a_run_in_use_is_refused_and_left_as_it_is(run):
    before = fingerprint(run)
    fd = os.open(run / ".lock", os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        refused(invoke("compact", run), "in use by another ellibir process")
    finally:
        os.close(fd)
    assert fingerprint(run) == before


@pytest.mark.parametrize("damage", ["flipped page", "truncated", "copied part", "missing rounds"])
def test_a_damaged_or_inconsistent_run_is_refused_and_nothing_changes(run, damage):
    part = sorted((run / "matches").glob("*.parquet"))[3]
    if damage == "flipped page":
        data = bytearray(part.read_bytes())
        meta = pq.ParquetFile(part).metadata.row_group(0).column(0)
        data[meta.data_page_offset + meta.total_compressed_size // 2] ^= 0xFF
        part.write_bytes(bytes(data))
    elif damage == "truncated":
        part.write_bytes(part.read_bytes()[:200])
    elif damage == "copied part":
        shutil.copy(part, run / "matches" / "a7-00000.parquet")
    else:
        (run / "rounds" / part.name).unlink()
    before = fingerprint(run)
    words = {"flipped page": str(part), "truncated": str(part), "copied part": "more than one part",
             "missing rounds": "no rounds stored"}[damage]
    refused(invoke("compact", run), words, "nothing was compacted")
    assert fingerprint(run) == before


# Readers on compacted and half-compacted runs --------------------------------------------------------------

READERS = [["ratings", "--json"], ["balance", "--json"], ["sprt", "--bot", "builtin:greedy", "--json"], ["faults"]]


def reader_outputs(run_dir: Path, some_match: str) -> list:
    outputs = [invoke(args[0], run_dir, *args[1:]) for args in READERS]
    outputs.append(invoke("replay", run_dir, some_match, "--quiet"))
    outputs.append(invoke("rerun", run_dir, some_match, "--quiet"))
    for r in outputs:
        assert r.exit_code == 0, r.output
    return [r.output.replace(str(run_dir), "RUN") for r in outputs]


def close(a, b) -> bool:
    """Equal, floats to 1e-12 (a sum over rows read in another order may differ in its last bit)."""
    if isinstance(a, float) and isinstance(b, float):
        return a == pytest.approx(b, rel=1e-12, abs=1e-12)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(close(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(close(x, y) for x, y in zip(a, b))
    return a == b


def same_outputs(got: list, expected: list) -> bool:
    for g, e in zip(got, expected, strict=True):
        try:
            g, e = json.loads(g), json.loads(e)
        except ValueError:
            pass
        if not close(g, e):
            return False
    return True


@pytest.fixture(scope="module")
def answers_before(played, tmp_path_factory) -> tuple[str, list]:
    """(a match, every reader's output) of the module's played run before any compaction, and its report
    written: once for the module (the outputs name the run folder as RUN)."""
    copy = fresh_copy(played, tmp_path_factory.mktemp("before"))
    some = planned(copy)[17]
    report = invoke("report", copy, "--html", copy.parent / "before.html")
    assert report.exit_code == 0, report.output
    return some, reader_outputs(copy, some)


@pytest.mark.parametrize("state", ["compacted", "half-compacted"])
def test_every_reader_gives_the_same_answers(run, tmp_path, state, answers_before):
    some, expected = answers_before
    if state == "compacted":
        compact(RunStore(run))
    else:
        with pytest.raises(Crash):
            compact(RunStore(run), hook=crash_at("sources", 4))
    assert same_outputs(reader_outputs(run, some), expected)
    report = invoke("report", run, "--html", tmp_path / "after.html")
    assert report.exit_code == 0, report.output
    assert (tmp_path / "after.html").stat().st_size > 0


# Bookkeeping ----------------------------------------------------------------------------------------------

def test_a_store_reads_the_parts_once_then_keeps_its_index(run, monkeypatch):
    store = RunStore(run)
    assert sorted(store.done_match_ids()) == planned(run)
    listed = []
    real = RunStore.parts
    monkeypatch.setattr(RunStore, "parts", lambda self, table: listed.append(table) or real(self, table))
    plan = json.loads((run / "run.json").read_text())
    extra = dict(plan["matches"][0], id="extra-1")
    rules = t._schema_rules(plan)
    t.write(store, "a5-00000", rules, play_batch(t.job_of(plan), [extra], {}), set())
    with pytest.raises(ValueError, match="already stored by another part"):
        t.write(store, "a5-00001", rules, play_batch(t.job_of(plan), plan["matches"][:1], {}), set())
    assert listed == []  # the writes neither listed nor read the other parts
    assert "extra-1" in store.done_match_ids() and "extra-1" in RunStore(run).done_match_ids()


def test_a_log_is_read_from_its_own_member_and_a_truncated_end_is_named(run):
    ids = RunStore(run).part_ids()
    first, last = ids["a1-00000"][0], ids["a1-00011"][-1]
    compact(RunStore(run))
    logs = next((run / "logs").iterdir())
    members = [at for at, _ in log_members(next((run / "matches").iterdir()))]
    assert len(members) == 12 and members == sorted(members) and members[0] == 0
    whole = RunStore(run).read_log(first)
    logs.write_bytes(logs.read_bytes()[: members[-1] + 40])  # the last member cut short
    assert RunStore(run).read_log(first) == whole  # read from the first member alone
    refused(invoke("replay", run, last, "--quiet"), str(logs), "damaged event log")


@pytest.mark.parametrize("step", STEPS)
@pytest.mark.parametrize("progress", ["before the journal is read", "after the journal is read"])
def test_a_reader_listing_while_a_compaction_moves_on_reads_each_match_once_or_fails(run, step, progress,
                                                                                      monkeypatch):
    """The worst timings: the compaction moves on right when the reader reads the journal (just before
    or just after), from a stop at ``step`` to its end, or from its start to ``step``."""
    before = contents(run)["matches"]
    stopped = progress == "before the journal is read"
    if stopped:
        with pytest.raises(Crash):
            compact(RunStore(run), hook=crash_at(step))
    real = RunStore.journal

    def move_on(root: Path) -> None:
        if stopped:
            recover(RunStore(root))  # finished or undone
        else:
            with pytest.raises(Crash):
                compact(RunStore(root), hook=crash_at(step))

    def racing(self):
        monkeypatch.setattr(RunStore, "journal", real)
        if stopped:
            move_on(self.root)
            return real(self)
        doc = real(self)
        move_on(self.root)
        return doc
    monkeypatch.setattr(RunStore, "journal", racing)
    paths = RunStore(run).parts("matches")
    monkeypatch.setattr(RunStore, "journal", real)
    try:
        rows = pl.read_parquet(paths).sort("match_id", "seat")
    except (OSError, pl.exceptions.PolarsError):
        return  # a part it listed was removed: an error, never a wrong table
    assert rows.equals(before)


# The bots' stderr files ----------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def noisy_played(tmp_path_factory) -> Path:
    """A run with a real bot program (the author test bot, sandboxed) that writes a stderr line at every
    request, against greedy: 12 matches in 6 parts, each part with its stderr file."""
    from harness.sandbox.bubblewrap import sandbox_available

    if not sandbox_available():
        pytest.skip("the sandbox (bubblewrap, root) is not available")
    from author_bots import AUTHOR_BOTS

    config = t.make_config("tournament", {"bots": [str(AUTHOR_BOTS["polite"]), "builtin:greedy"], "players": 2,
                                          "deal_sets": 6, "rounds": 1, "seed": 1, "duplicate": True,
                                          "out": str(tmp_path_factory.mktemp("compact") / "noisy")})
    plan, run_dir = t.prepare(config)
    run_dir.mkdir(parents=True)
    planning.write_plan(run_dir, plan)
    (run_dir / ".lock").touch()
    store, done, packs = RunStore(run_dir), set(), t.pack_bots(plan)
    for n, i in enumerate(range(0, len(plan["matches"]), 2)):
        results = play_batch(t.job_of(plan), plan["matches"][i:i + 2], packs)
        t.write(store, f"a1-{n:05d}", t._schema_rules(plan), results, done)
    assert len(list((run_dir / "stderr").iterdir())) == 6
    return run_dir


@pytest.fixture
def noisy(noisy_played, tmp_path) -> Path:
    return fresh_copy(noisy_played, tmp_path)


def stderr_of(run_dir: Path) -> dict:
    """Every stored match's kept stderr, by seat, as the readers get it (harness/runs/faultlog.py)."""
    from harness.runs.faultlog import read_stderr

    store = RunStore(run_dir)
    return {m: read_stderr(run_dir, m, store) for m in sorted(store.done_match_ids())}


def stderr_files(run_dir: Path) -> set:
    return {p.name.removesuffix(".jsonl.gz") for p in (run_dir / "stderr").iterdir()}


def viewers(run_dir: Path, match_id: str, out: Path) -> dict:
    """The viewer of one match (``replay --html``) and those a report writes, as text."""
    assert invoke("replay", run_dir, match_id, "--html", out / "one.html").exit_code == 0
    done = invoke("report", run_dir, "--html", out / "report.html")
    assert done.exit_code == 0, done.output
    pages = {p.name: p.read_text() for p in (out / "report-matches").iterdir()}
    return {"one": (out / "one.html").read_text(), **pages}


def test_stderr_files_are_merged_with_their_parts_and_read_the_same(noisy, tmp_path):
    before = stderr_of(noisy)
    assert len(before) == 12
    assert all(any("author bot polite: request" in text for text in seats.values()) for seats in before.values())
    some = sorted(before)[7]
    (tmp_path / "before").mkdir()
    (tmp_path / "after").mkdir()
    pages = viewers(noisy, some, tmp_path / "before")
    assert "author bot polite: request" in pages["one"] and len(pages) > 1
    done = compact(RunStore(noisy))
    assert done.parts_after == 1
    assert stderr_files(noisy) == set(RunStore(noisy).part_ids())  # one file, named as its part
    assert stderr_of(noisy) == before
    assert viewers(noisy, some, tmp_path / "after") == pages


@pytest.mark.parametrize("step", STEPS)
def test_stderr_is_read_the_same_after_a_compaction_stopped_at_any_step(noisy, step):
    before = stderr_of(noisy)
    with pytest.raises(Crash):
        compact(RunStore(noisy), max_matches=6, hook=crash_at(step))  # two groups of three parts
    assert stderr_of(noisy) == before
    plan = json.loads((noisy / "run.json").read_text())
    outcome = t.execute(plan, noisy, new=False, executor="local")  # nothing to play: it recovers
    assert outcome.played == 0 and not (noisy / JOURNAL).exists() and not list(noisy.rglob(".*.tmp"))
    assert stderr_of(noisy) == before
    assert stderr_files(noisy) == set(RunStore(noisy).part_ids())  # each part's stderr file, no other
    compact(RunStore(noisy), max_matches=6)
    assert stderr_of(noisy) == before and stderr_files(noisy) == set(RunStore(noisy).part_ids())


def test_a_damaged_stderr_file_is_merged_as_read_and_the_others_whole(noisy):
    path = noisy / "stderr" / "a1-00002.jsonl.gz"
    path.write_bytes(path.read_bytes()[: path.stat().st_size * 2 // 3])  # cut inside its compressed data
    before = stderr_of(noisy)
    ids = RunStore(noisy).part_ids()
    assert not all(before[m] for m in ids["a1-00002"])  # some of that part's stderr is lost...
    assert all(before[m] for task in ids if task != "a1-00002" for m in ids[task])  # ...no other
    compact(RunStore(noisy))
    assert stderr_of(noisy) == before


# At the end of a run ------------------------------------------------------------------------------------------

def test_a_run_is_compacted_at_its_end_unless_no_compact_and_a_resume_compacts_it(tmp_path):
    run_dir = tmp_path / "kept"
    args = ["tournament", "run", "--executor", "local", "--bot", "builtin:greedy", "--bot", "builtin:random",
            "--players", 2, "--deal-sets", 6, "--rounds", 1, "--seed", 1, "--duplicate", "--quiet"]
    done = invoke(*args, "--out", run_dir, "--no-compact")
    assert done.exit_code == 0, done.output
    parts = sorted((run_dir / "matches").glob("*.parquet"))
    assert len(parts) == 4  # 12 matches, tasks of 3: as written
    before = contents(run_dir)
    lost = RunStore(run_dir).part_ids()[parts[1].stem]
    parts[1].unlink()  # as if that task had never finished
    again = invoke("tournament", "run", "--resume", run_dir, "--executor", "local", "--quiet")
    assert again.exit_code == 0, again.output
    assert f"12 of 12 planned matches are in {run_dir} ({len(lost)} played now)" in again.output
    assert len(list((run_dir / "matches").glob("*.parquet"))) == 1  # the resume compacted the run
    assert same(contents(run_dir), before, timing=False)  # the replayed matches are the same as the lost ones
    config = tmp_path / "run.toml"
    config.write_text("compact = false\n")
    kept = invoke(*args, "--out", tmp_path / "config", "--config", config)
    assert kept.exit_code == 0 and len(list((tmp_path / "config" / "matches").glob("*.parquet"))) == 4
    default = invoke(*args, "--out", tmp_path / "default")
    assert default.exit_code == 0 and len(list((tmp_path / "default" / "matches").glob("*.parquet"))) == 1
    rows = contents(tmp_path / "default")["matches"]  # another run's name: the same matches and ranks
    assert rows.select("match_id", "seat", "rank").equals(before["matches"].select("match_id", "seat", "rank"))
