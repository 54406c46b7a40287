"""Times in words for tables and pages; free of polars, so that the command line can start without it."""

from __future__ import annotations

import math


def seconds_text(value) -> str:
    """A time in words: ``0 s``, ``12.3 ms``, ``1.5 s``, ``∞``; ``None`` as ``—``."""
    if value is None:
        return "\u2014"
    if value == 0:
        return "0 s"
    if value == math.inf:
        return "\u221e"
    return f"{value * 1000:.3g} ms" if value < 1 else f"{value:.3g} s"


def bin_text(b, none: str = "\u2014", between: str = "\u2013") -> str:
    """A time bin ``[lo, hi)`` in words: ``< 1 ms``, ``1 ms–2 ms``, ``≥ 10 s``; ``none`` for no bin."""
    if b is None:
        return none
    lo, hi = b
    if lo == 0:
        return f"< {seconds_text(hi)}"
    if hi == math.inf:
        return f"\u2265 {seconds_text(lo)}"
    return f"{seconds_text(lo)}{between}{seconds_text(hi)}"
