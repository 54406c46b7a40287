"""Imports go one way: engine <- bots <- harness, engine <- results <- harness; inside harness, its
packages top to bottom; no circle of imports between the modules of any package. The contracts are
in pyproject.toml ([tool.importlinter]) and checked by import-linter."""

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
LINT = pathlib.Path(sys.executable).with_name("lint-imports")


def test_import_engine_loads_no_third_party_module():
    code = (
        "import sys, engine, engine.solver, engine.events, engine.observe\n"
        "std = set(sys.stdlib_module_names)\n"
        "ignore = {'engine', '__main__', '_distutils_hack'}\n"
        "bad = sorted(m for m in {m.split('.')[0] for m in sys.modules} - std - ignore if not m.startswith('__editable__'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "", f"engine imported third-party modules: {out.stdout.strip()}"


def test_the_import_contracts_hold():
    out = subprocess.run([str(LINT), "--no-cache"], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert "3 kept, 0 broken" in out.stdout, out.stdout[-2000:]
