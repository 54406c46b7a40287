"""Imports go one way: engine <- bots <- harness, engine <- results <- harness (ARCHITECTURE.md)."""

import ast
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
ALLOWED = {
    "engine": set(),
    "bots": {"engine"},
    "results": {"engine"},
    "harness": {"engine", "bots", "results"},
}
PROJECT = set(ALLOWED) | {"benchmarks", "tests"}


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


def _imports(path: pathlib.Path) -> set:
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_packages_import_only_downward():
    for package, allowed in ALLOWED.items():
        for path in (ROOT / package).rglob("*.py"):
            wrong = (_imports(path) & PROJECT) - allowed - {package}
            assert not wrong, f"{path.relative_to(ROOT)} imports {sorted(wrong)}"
