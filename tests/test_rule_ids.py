"""Every rule id of docs/rules.md is proved by a test, and the ids agree with RULES.md."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

TESTS_DIR = Path(__file__).resolve().parent
REPO_ROOT = TESTS_DIR.parent
RULES_DOC = REPO_ROOT / "docs" / "rules.md"
SHARED_RULES = REPO_ROOT / ".." / "shared" / "RULES.md"

ID_BULLET = re.compile(r"^\s*- \*\*([A-Z][0-9]+)\*\*")


def parse_rule_ids(path: Path) -> list[str]:
    """The rule ids of a markdown file, in order: the bold ids that start a bullet (duplicates kept)."""
    ids = []
    for line in path.read_text(encoding="utf-8").splitlines():
        m = ID_BULLET.match(line)
        if m:
            ids.append(m.group(1))
    return ids


def _test_files() -> list[Path]:
    this = Path(__file__).resolve()
    files = set(TESTS_DIR.rglob("test_*.py")) | set(TESTS_DIR.rglob("*_test.py"))
    return sorted(f for f in files if f.resolve() != this)


def test_every_rule_id_is_named_in_a_test():
    ids = sorted(set(parse_rule_ids(RULES_DOC)))
    assert ids, f"no rule ids found in {RULES_DOC}"
    texts = [f.read_text(encoding="utf-8", errors="replace") for f in _test_files()]
    missing = [i for i in ids if not any(re.search(rf"\b{i}\b", t) for t in texts)]
    assert not missing, (
        f"{len(missing)} rule id(s) of docs/rules.md are named in no test file under tests/: "
        + ", ".join(missing)
    )


def test_rules_doc_and_rules_md_name_the_same_ids():
    if not SHARED_RULES.is_file():
        pytest.skip(f"{SHARED_RULES} not present")
    doc = set(parse_rule_ids(RULES_DOC))
    source = set(parse_rule_ids(SHARED_RULES))
    source = {i for i in source if not i.startswith("E") or i in doc}
    only_doc = sorted(doc - source)
    only_source = sorted(source - doc)
    assert not only_doc and not only_source, (
        f"ids only in docs/rules.md: {', '.join(only_doc) or '-'}; "
        f"ids only in RULES.md: {', '.join(only_source) or '-'}"
    )


def test_rule_ids_in_doc_are_unique():
    ids = parse_rule_ids(RULES_DOC)
    assert ids, f"no rule ids found in {RULES_DOC}"
    repeated = sorted(i for i, n in Counter(ids).items() if n != 1)
    assert not repeated, f"rule ids given more than one bullet in docs/rules.md: {', '.join(repeated)}"
