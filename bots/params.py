"""The parameters a built-in bot takes in its name (``builtin:mc:worlds=64``), each with its range."""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Param:
    """A parameter a built-in bot takes in its name (``builtin:mc:worlds=64``): a whole number (``int``)
    or a number (``float``) from ``least`` to ``most`` (both included), or ``none``/``off`` for no value
    where ``off`` is allowed. A class lists them in ``PARAMS``; ``allowed`` is what docs/bots.md says."""

    kind: type
    least: float
    most: float
    off: bool = False

    def allowed(self) -> str:
        what = "a whole number" if self.kind is int else "a number"
        return f"{what} from {self.least:g} to {self.most:g}" + (", or off" if self.off else "")

    def parse(self, text: str):
        """The value of ``text``; ValueError (saying what is allowed) for anything else."""
        if self.off and text.lower() in ("none", "off"):
            return None
        try:
            value = self.kind(text)
        except (ValueError, OverflowError):
            value = None
        if value is None or not (math.isfinite(value) and self.least <= value <= self.most):
            raise ValueError(f"must be {self.allowed()}")
        return value
