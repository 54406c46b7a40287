"""The empty frozen cgroup that keeps freezing cheap (harness/sandbox/freezer_anchor.py, issue 17)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from harness.sandbox import freezer_anchor
from harness.sandbox.cgroups import cgroup_parent

ROOT = Path(__file__).resolve().parent.parent
PARENT = cgroup_parent("freezer")
pytestmark = pytest.mark.skipif(PARENT is None, reason="no writable cgroup v1 freezer here")


def test_anchor_is_frozen_empty_and_gone_when_its_harness_exits():
    code = ("import sys\nfrom harness.sandbox import freezer_anchor\nfrom harness.sandbox.cgroups import cgroup_parent\n"
            "g = freezer_anchor.hold(cgroup_parent('freezer'))\n"
            "print(g, (g / 'freezer.state').read_text().strip(), repr((g / 'cgroup.procs').read_text()))\n"
            "assert freezer_anchor.hold(cgroup_parent('freezer')) == g  # one per process\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    path, state, procs = out.split()
    assert state == "FROZEN" and procs == "''"  # it freezes nothing: no process is in it
    assert Path(path).name.startswith(freezer_anchor.PREFIX)
    assert not Path(path).exists()  # removed at exit


def test_anchor_of_a_harness_that_died_is_removed():
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          check=True).stdout.strip()
    stale = PARENT / f"{freezer_anchor.PREFIX}{dead}"
    stale.mkdir()
    (stale / "freezer.state").write_text("FROZEN")
    try:
        freezer_anchor._remove_stale(PARENT)
        assert not stale.exists()
    finally:
        freezer_anchor.release(stale)
