"""Shared fixtures: small real runs made once per test session by the tournament code.

They are read-only: a test that changes a run copies it first (``shutil.copytree``). A run made by
``shared`` is made once for the whole session, by whichever pytest-xdist worker asks first; the
others wait for it and read the same files.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from cli_runs import in_process, kill, marked

ROOT = Path(__file__).resolve().parent.parent


def _build_commands_once() -> None:
    """typer builds the click command tree of ``ellibir`` anew on every call (about 40 ms of reading
    each command's signature), and the tests run the command in process hundreds of times: built once
    a worker here, as a plain click program builds its commands once. The product is untouched."""
    import typer.main
    import typer.testing

    build, built = typer.main.get_command, {}

    def get_command(typer_instance):
        if id(typer_instance) not in built:
            built[id(typer_instance)] = (typer_instance, build(typer_instance))
        return built[id(typer_instance)][1]

    assert typer.testing._get_command is build, "typer's test runner no longer uses typer.main.get_command"
    typer.main.get_command = typer.testing._get_command = get_command


_build_commands_once()


SLOWEST = (  # over 6 s each on two cores (make test's --durations), started first: none is left to start last
    "test_answers_cli.py::test_a_sweep_replicated_on_fresh_deals_is_compared_with_the_first",
    "test_compact.py::test_every_reader_gives_the_same_answers",
    "test_decisions.py::test_no_json_from_a_bot_crashes_the_engine",
    "test_einundfuenfzig_harness.py::test_E4_a_sweep_on_ray_with_a_sandboxed_bot_writes_the_game_s_tables",
    "test_fair_design.py::test_the_paired_sprt_reaches_the_right_verdict_at_the_nominal_error_rates",
    "test_fairplay.py::test_the_seed_hunter_finds_nothing_in_a_default_tournament_and_finds_a_guessable_one",
    "test_mc.py::test_mc_is_never_refused_nor_penalised_across_random_variants_O4_A5",
    "test_properties.py::test_T5_T6_thousands_of_rounds_end_and_keep_every_card",
    "test_ratings.py::test_the_clustered_bootstrap_agrees_with_the_hessian",
    "test_ratings_intervals.py::test_clustered_intervals_cover_at_the_nominal_rate_under_duplicate_deals",
    "test_ray_cluster.py::test_a_driver_without_the_cluster_s_token_is_refused_in_one_line",
    "test_ray_cluster.py::test_a_node_whose_sandbox_fails_refuses_bot_folders_but_not_built_in_bots",
    "test_ray_cluster.py::test_a_worker_killed_mid_run_loses_and_repeats_nothing",
    "test_ray_cluster.py::test_a_worker_on_other_code_refuses_the_run",
    "test_report.py::test_every_section_renders_in_chromium",
    "test_report_words.py::test_the_summary_matches_the_tables_at_both_widths",
    "test_robust_runs.py::test_ray_processes_go_when_the_driver_is_killed",
    "test_skill_study.py::test_the_report_has_a_skill_section_at_desktop_and_phone_widths",
    "test_skill_study.py::test_the_study_plans_its_tables_and_says_its_precision",
    "test_solver.py::test_going_out_matches_oracle_A2_T4",
    "test_sprt.py::test_mirrored_deals_give_no_early_false_verdict",
    "test_sprt.py::test_sprt_reaches_the_right_verdict_at_the_nominal_error_rates",
    "test_sprt_tournament.py::test_a_decided_gauntlet_records_the_ratings_of_its_submitted_bots",
    "test_tournament.py::test_interrupted_run_resumes_without_losing_or_repeating_a_match",
    "test_tournament.py::test_local_and_ray_executors_give_identical_results_and_replay",
    "test_view_hygiene.py::test_builtin_bots_decide_the_same_on_every_world_of_their_view",
    "test_web.py::test_a_played_match_in_the_viewer_and_its_owners_logs",
)


def pytest_collection_modifyitems(items):
    """The slowest tests first, the rest in their order: pytest-xdist gives each worker a run of
    tests and idle workers take from the others' queues, so what is left at the end is short."""
    items.sort(key=lambda item: item.nodeid.split("[")[0].removeprefix("tests/") not in SLOWEST)


@pytest.fixture
def env():
    """The environment of the CLI's subprocesses, marked: at the end, any process still carrying the
    mark, and its descendants, is killed; nothing else is touched."""
    mark = f"ellibir-test-{uuid.uuid4().hex[:12]}"
    yield {**os.environ, "ELLIBIR_TEST_MARK": mark, "RAY_USAGE_STATS_ENABLED": "0"}
    kill(marked(mark))


def run_cli(*args) -> subprocess.CompletedProcess:
    """``ellibir ARGS``, which must succeed: the fixtures' runs and matches use the local executor, so a
    run of built-in bots is run in this process (``cli_runs.in_process``); one with a bot program in a
    process of its own, which stages (and holds) the bot's sandbox copy only while it lives."""
    bots = [str(b) for flag, b in zip(args, args[1:]) if flag in ("--bot", "--challenger")]
    if all(b.startswith("builtin:") for b in bots):
        done = in_process(*args)
    else:
        done = subprocess.run([sys.executable, "-m", "harness", *map(str, args)], cwd=ROOT, capture_output=True,
                              text=True, timeout=300, env={**os.environ, "RAY_USAGE_STATS_ENABLED": "0"})
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def session_dir(tmp_path_factory) -> Path:
    """The folder every worker of this test session shares (the session's own base folder without xdist)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def shared(tmp_path_factory, name: str, make) -> Path:
    """``SESSION/shared/NAME``, made by ``make(path)`` once for all the session's workers: the first to ask
    makes it under a lock, the others wait for the lock and find it made."""
    top = session_dir(tmp_path_factory) / "shared"
    top.mkdir(exist_ok=True)
    out, done = top / name, top / f"{name}.done"
    with open(top / f"{name}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            if out.exists():  # left by a worker whose make failed
                shutil.rmtree(out)
            out.mkdir()
            make(out)
            done.touch()
    return out


@pytest.fixture(scope="session")
def report_of(tmp_path_factory):
    """``report_of(run)``: the HTML report of one of the shared runs below, with no option, written once
    for the session (``shared``) and read only: the page tests of several files open the same report."""
    def report(run: Path) -> Path:
        def make(top: Path) -> None:
            from results.report import write_report

            write_report([run], top / "report.html")

        return shared(tmp_path_factory, f"report-{run.parent.name}", make) / "report.html"

    return report


@pytest.fixture(scope="session")
def tournament_run(tmp_path_factory) -> Path:
    """A round robin of the three reference bots: 4 players, 6 deal sets under every seat rotation, 2 rounds."""
    return shared(tmp_path_factory, "tournament_run", make_tournament_run) / "rr"


def make_tournament_run(top: Path) -> None:
    out = top / "rr"
    run_cli("tournament", "run", "--executor", "local", "--bot", "builtin:greedy", "--bot", "builtin:pairs", "--bot", "builtin:random",
            "--players", 4, "--deal-sets", 6, "--rounds", 2, "--seed", 3, "--workers", 2, "--name", "rr", "--duplicate",
            "--out", out, "--quiet")


@pytest.fixture(scope="session")
def parts_run(tmp_path_factory) -> Path:
    """The round robin of ``tournament_run`` left as its tasks wrote it (``--no-compact``): one part per
    task, as an interrupted run leaves them (``tournament_run`` is compacted at its end, into one part)."""
    return shared(tmp_path_factory, "parts_run", make_parts_run) / "rr"


def make_parts_run(top: Path) -> None:
    out = top / "rr"
    run_cli("tournament", "run", "--executor", "local", "--bot", "builtin:greedy", "--bot", "builtin:pairs", "--bot", "builtin:random",
            "--players", 4, "--deal-sets", 6, "--rounds", 2, "--seed", 3, "--workers", 2, "--name", "rr", "--duplicate",
            "--out", out, "--quiet", "--no-compact")
    assert len(list((out / "matches").glob("*.parquet"))) > 2


@pytest.fixture(scope="session")
def sweep_run(tmp_path_factory) -> Path:
    """Two variants (threshold 51 and 71) on the same deal seeds, greedy against pairs."""
    return shared(tmp_path_factory, "sweep_run", make_sweep_run) / "sweep"


def make_sweep_run(top: Path) -> None:
    out = top / "sweep"
    run_cli("sweep", "--executor", "local", "--vary", "threshold=51,71", "--bot", "builtin:greedy", "--bot", "builtin:pairs",
            "--players", 4, "--deal-sets", 6, "--rounds", 2, "--seed", 5, "--workers", 2, "--name", "sweep", "--duplicate",
            "--out", out, "--quiet")


@pytest.fixture(scope="session")
def chromium():
    """One headless Chromium (tests/browser.py) for all of a worker's page tests: it starts in about
    two seconds of CPU, once instead of once a test file. Missing on CI it fails; elsewhere it skips."""
    from browser import Browser, chromium_paths

    if chromium_paths() is None:
        if os.environ.get("CI"):
            pytest.fail("chromium and chromium-driver are missing on CI: `make test` installs them")
        pytest.skip("chromium and chromium-driver are not installed (make test installs them)")
    with Browser() as b:
        yield b


@pytest.fixture
def browser(chromium):
    """The worker's Chromium at desktop size with no console message, whatever the test before it left."""
    chromium.resize(1280, 900)
    chromium.console()  # read is emptied
    return chromium


@pytest.fixture(scope="session")
def postgres():
    """One PostgreSQL server of this process's own (tests/pgserver.py) for every test that asks: each
    takes a fresh database of it (``new_database``)."""
    from pgserver import Cluster, binaries

    if binaries() is None:
        pytest.skip("PostgreSQL is not installed (make install adds Debian's postgresql)")
    cluster = Cluster()
    yield cluster
    cluster.stop()
