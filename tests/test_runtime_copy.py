"""The runtime a sandbox binds (harness/sandbox/resident.py): the node's copy in memory, or a refusal;
the host's /usr only when asked for, and warned on. A copy in use is never removed."""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
import time
from pathlib import Path

import pytest

from harness.sandbox import bubblewrap, resident, staging
from harness.sandbox.runtime import SandboxError

debian = pytest.mark.skipif(not os.access("/usr/bin/dpkg-query", os.X_OK) or not resident.merged_usr(),
                            reason="the copy needs dpkg and a merged /usr")


def usr_source(binds: list[str]) -> str:
    """The source bound at /usr in a sandbox's arguments."""
    at = next(i for i in range(len(binds) - 2) if binds[i] == "--ro-bind" and binds[i + 2] == "/usr")
    return binds[at + 1]


@debian
def test_the_copy_is_bound_whatever_the_harness_s_path(monkeypatch):
    """A process whose PATH lacks /usr/bin (a worker started from a bare environment) bound the host's
    /usr without a word: it looked for dpkg-query on its PATH."""
    monkeypatch.setenv("PATH", "/nonexistent")
    source = usr_source(bubblewrap._runtime_binds(python=False))
    assert source.startswith(str(staging.STAGE_DIR / "runtime-")) and resident.file_system(Path(source)) == "tmpfs"


def test_a_node_without_dpkg_refuses_to_sandbox_unless_told_to_bind_the_host_s_usr(monkeypatch, capsys):
    monkeypatch.setattr(resident, "DPKG_QUERY", "/nonexistent/dpkg-query")
    monkeypatch.delenv(resident.HOST_RUNTIME, raising=False)
    with pytest.raises(SandboxError, match="ELLIBIR_HOST_RUNTIME=1 binds the host's /usr instead"):
        bubblewrap._runtime_binds(python=False)
    assert resident.host_runtime_note() is None
    monkeypatch.setenv(resident.HOST_RUNTIME, "1")
    monkeypatch.setattr(resident, "_WARNED", set())
    assert usr_source(bubblewrap._runtime_binds(python=False)) == "/usr"
    assert "warning: sandboxes bind the host's /usr (ELLIBIR_HOST_RUNTIME=1; there is no " in capsys.readouterr().err
    assert "page cache is a channel" in resident.host_runtime_note()


@pytest.fixture
def stage(monkeypatch):
    """A staging folder of its own on the tmpfs, as ``staging.STAGE_DIR``."""
    folder = Path(tempfile.mkdtemp(dir="/dev/shm", prefix="ellibir-test-stage-"))
    monkeypatch.setattr(staging, "STAGE_DIR", folder)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def fake_copy(stage: Path, name: str, age: float = 0.0) -> Path:
    copy = stage / name
    (copy / "usr").mkdir(parents=True)
    (copy / "usr" / "file").write_text("x")
    then = time.time() - age
    os.utime(copy, (then, then))
    return copy


@debian
def test_a_copy_that_is_not_in_memory_is_refused(monkeypatch, tmp_path):
    monkeypatch.setattr(staging, "STAGE_DIR", tmp_path)
    fake_copy(tmp_path, f"runtime-{resident.stamp()}")
    if resident.file_system(tmp_path) == "tmpfs":
        pytest.skip("the temporary folder is a tmpfs here")
    with pytest.raises(SandboxError, match="not in memory"):
        resident.resident_root()


def test_a_copy_another_process_uses_is_never_removed_as_stale(stage):
    old = fake_copy(stage, "runtime-old", age=2 * resident.STALE_AFTER)
    new = fake_copy(stage, "runtime-new")
    user = os.open(old, os.O_RDONLY | os.O_DIRECTORY)  # another process's hold: an open file of its own
    fcntl.flock(user, fcntl.LOCK_SH)
    try:
        assert resident._remove_stale(new) == [] and (old / "usr" / "file").exists()
        assert staging.prune_unused(unused_for=resident.STALE_AFTER) == [] and old.is_dir()
    finally:
        os.close(user)
    assert resident._remove_stale(new) == [old] and not old.exists() and new.is_dir()


def test_a_remover_s_work_is_left_to_it_while_it_lives(stage):
    """Two processes ending at once once removed the same copy, and one of them failed."""
    alive = stage / f".dead-bot-{'a' * 32}.{os.getppid()}.1"
    dead = stage / f".dead-bot-{'b' * 32}.{2 ** 22 + 1}.1"  # past the kernel's largest pid
    for folder in (alive, dead):
        folder.mkdir()
    staging.remove_unused()
    assert alive.is_dir() and not dead.exists()
    staging._remove_tree(dead)  # gone already: nothing to do, no error
