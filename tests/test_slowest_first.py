"""The list of slowest tests that the suite starts first (tests/conftest.py) names tests that exist."""

from __future__ import annotations

from pathlib import Path

from conftest import SLOWEST

HERE = Path(__file__).resolve().parent


def test_every_name_in_the_slowest_list_is_a_test_of_its_file():
    for name in SLOWEST:
        file, function = name.split("::")
        assert f"def {function}(" in (HERE / file).read_text(), name
