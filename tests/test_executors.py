"""The runner with the local executor, by library calls in this process (no Ray): the typed values it
passes, its listeners, a stop asked by a listener then a resume, a worker's refusal of a plan made
by other code, and the node's cache of bot folders. The same runs on Ray: tests/test_tournament.py
(local and Ray give identical results) and tests/test_ray_cluster.py (real nodes refusing)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from harness.runs import nodecheck
from harness.arena.registry import content_hash
from harness.players.botfiles import pack_folder
from harness.runs.jobs import MatchResult, PlannedMatch
from harness.runs.tournament import batches, execute, make_config, prepare

from cli_runs import assert_complete

ROOT = Path(__file__).resolve().parent.parent
KIT = ROOT / "bots" / "kits" / "python"


def small_plan(tmp_path, name="run", **more):
    flags = {"bots": ["builtin:greedy", "builtin:random"], "players": 2, "deal_sets": 3, "rounds": 1, "seed": 7,
             "duplicate": True, "name": name, "out": str(tmp_path / name), **more}
    return prepare(make_config("tournament", flags))


class Heard:
    """A listener that keeps what it was told, in order."""

    def __init__(self, stop_after: int | None = None):
        self.said: list = []
        self.results: list = []
        self.stop_after = stop_after

    def loaded(self, run):
        self.said.append("loaded")
        return False

    def opened(self, run):
        self.said.append("opened")

    def playing(self, run):
        self.said.append("playing")

    def stored(self, run, results):
        self.said.append("stored")
        self.results.extend(results)
        if self.stop_after is not None and len(self.results) >= self.stop_after:
            run.request_stop()

    def failed(self, run, task, error):
        self.said.append(f"failed: {error}")

    def finished(self, run):
        self.said.append("finished")


def test_a_local_run_plays_the_plan_in_batch_order_and_tells_its_listeners(tmp_path):
    from harness.runs.runner import batches

    plan, run_dir = small_plan(tmp_path)
    heard = Heard()
    outcome = execute(plan, run_dir, new=True, executor="local", listeners=[heard])
    assert outcome.done == outcome.played == outcome.planned == len(plan["matches"]) == 6
    assert outcome.exit_code == 0 and not outcome.errors
    assert_complete(run_dir)
    assert heard.said[:3] == ["loaded", "opened", "playing"] and heard.said[-1] == "finished"
    assert set(heard.said[3:-1]) == {"stored"}
    assert all(isinstance(r, MatchResult) for r in heard.results)
    in_order = [m for task in batches(plan["matches"], slots=1) for m in task]  # the local executor has one slot
    assert in_order != plan["matches"]  # one rotation of two deal sets, then the other: one process serves two matches
    assert [r.id for r in heard.results] == [m["id"] for m in in_order]
    assert [list(r.seating) for r in heard.results] == [m["seating"] for m in in_order]
    assert all(r.log.startswith('{"e":"match_start"') and r.log.endswith("\n") for r in heard.results)
    assert PlannedMatch.of(plan["matches"][0]).seating == tuple(plan["matches"][0]["seating"])


def test_a_listener_stops_the_run_and_a_resume_plays_only_the_rest(tmp_path):
    plan, run_dir = small_plan(tmp_path, deal_sets=8)
    first = Heard(stop_after=1)
    stopped = execute(plan, run_dir, new=True, executor="local", listeners=[first])
    assert 0 < stopped.done < stopped.planned and stopped.exit_code == 1 and not stopped.stopped
    again = Heard()
    finished = execute(plan, run_dir, new=False, executor="local", listeners=[again], compact=False)
    assert finished.done == finished.planned and finished.played == finished.planned - stopped.done
    assert "opened" not in again.said  # a resume says no plan line
    assert {r.id for r in first.results}.isdisjoint(r.id for r in again.results)
    assert_complete(run_dir)
    parts = sorted(p.name for p in (run_dir / "matches").glob("*.parquet"))  # the parts as written
    assert any(p.startswith("a1-") for p in parts) and any(p.startswith("a2-") for p in parts)
    nothing = execute(plan, run_dir, new=False, executor="local")
    assert nothing.played == 0 and nothing.exit_code == 0
    assert sorted(p.name for p in (run_dir / "matches").glob("*.parquet")) == parts  # nothing played: not compacted


def test_a_finished_run_is_compacted_at_its_end_unless_asked_not_to(tmp_path):
    plan, run_dir = small_plan(tmp_path, deal_sets=4)
    outcome = execute(plan, run_dir, new=True, executor="local")
    assert outcome.done == outcome.planned and not outcome.warnings
    assert_complete(run_dir)
    assert [len(list((run_dir / t).iterdir())) for t in ("matches", "rounds", "logs")] == [1, 1, 1]
    kept, kept_dir = small_plan(tmp_path / "kept", deal_sets=4)
    execute(kept, kept_dir, new=True, executor="local", compact=False)
    assert len(list((kept_dir / "matches").glob("*.parquet"))) == len(batches(kept["matches"], 1)) > 1


def test_a_plan_made_by_other_code_is_refused_by_the_worker_and_nothing_is_played(tmp_path):
    plan, run_dir = small_plan(tmp_path)
    plan["project_version"] = "0.0.1-older"
    heard = Heard()
    outcome = execute(plan, run_dir, new=True, executor="local", listeners=[heard])
    assert outcome.refused and outcome.played == 0 and outcome.done == 0 and outcome.exit_code == 1
    assert len(outcome.errors) == 1  # the run stopped at the first refusal
    assert "but the run was planned with ellibir 0.0.1-older" in outcome.errors[0]
    assert any(s.startswith("failed: node ") for s in heard.said)
    assert not list(run_dir.glob("matches/*.parquet"))


def test_the_local_executor_refuses_an_address():
    from harness.runs.tournament import TournamentError

    with pytest.raises(TournamentError, match="--address"):
        prepare(make_config("tournament", {"bots": ["builtin:greedy"], "executor": "local", "address": "auto"}))
    with pytest.raises(TournamentError, match="--executor"):
        prepare(make_config("tournament", {"bots": ["builtin:greedy"], "executor": "dask"}))


@pytest.fixture
def node_cache(tmp_path, monkeypatch):
    """The node's bot cache under ``tmp_path`` (the system temp folder, as a worker sees it), and a
    fresh worker process's memory of what it checked."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(nodecheck, "_VERIFIED", {})
    return tmp_path / f"{nodecheck.CACHE_PREFIX}{os.geteuid()}"


def test_a_node_unpacks_a_bot_folder_once_and_later_workers_reuse_it(node_cache):
    digest = content_hash(KIT)
    packs = {"kit@1": pack_folder(KIT)}
    folder = Path(nodecheck.bot_folder("kit@1", digest, packs))
    assert folder == node_cache / digest and content_hash(folder) == digest
    inode = (folder / "main.py").stat().st_ino
    nodecheck._VERIFIED.clear()  # another worker process on the node
    assert nodecheck.bot_folder("kit@1", digest, {}) == str(folder)  # nothing unpacked: no pack needed
    assert (folder / "main.py").stat().st_ino == inode
    assert [p.name for p in node_cache.iterdir()] == [digest]  # no scratch left behind


def test_a_cached_bot_folder_whose_files_changed_is_unpacked_again(node_cache):
    digest = content_hash(KIT)
    packs = {"kit@1": pack_folder(KIT)}
    folder = Path(nodecheck.bot_folder("kit@1", digest, packs))
    (folder / "main.py").write_text("print('not the planned bot')\n")
    nodecheck._VERIFIED.clear()
    assert nodecheck.bot_folder("kit@1", digest, packs) == str(folder)
    assert content_hash(folder) == digest and "not the planned bot" not in (folder / "main.py").read_text()
    with pytest.raises(RuntimeError, match="do not match the planned hash"):
        nodecheck.bot_folder("kit@1", "0" * 64, packs)


def test_a_bot_cache_others_may_write_is_refused(node_cache):
    node_cache.mkdir(mode=0o755)
    node_cache.chmod(0o777)
    with pytest.raises(nodecheck.NodeRefused, match="only it may write"):
        nodecheck.bot_folder("kit@1", content_hash(KIT), {"kit@1": pack_folder(KIT)})


@pytest.mark.parametrize("given,expected", [("", 20.0), ("4", 4.0), ("0.5", None), ("nan", None), ("1e9", None),
                                            ("soon", None)])
def test_the_wait_for_a_cluster_is_bounded_by_a_checked_setting(monkeypatch, given, expected):
    from harness.runs.distributed import ClusterError, connect_timeout

    monkeypatch.setenv("ELLIBIR_CONNECT_TIMEOUT", given)
    if expected is None:
        with pytest.raises(ClusterError, match="ELLIBIR_CONNECT_TIMEOUT must be 1 to 3600 seconds"):
            connect_timeout()
    else:
        assert connect_timeout() == expected
