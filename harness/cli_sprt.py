"""The ``ellibir sprt`` command (results/). Registered on the main app by harness/cli.py."""

from __future__ import annotations

from .cli import app, fail  # noqa: F401
