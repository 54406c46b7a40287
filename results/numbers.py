"""Numbers as every table and sentence prints them: a value that rounds to zero is "0.0", never
"-0.0" or "+0.0", whether it came out as -0.0 or as a small negative number."""

from __future__ import annotations


def fixed(x: float, digits: int = 1, sign: bool = False, comma: bool = False) -> str:
    """``x`` to ``digits`` decimals, with its sign when ``sign`` (+1.5, -0.3) and thousands separated
    when ``comma``."""
    text = f"{x:{'+' if sign else ''}{',' if comma else ''}.{digits}f}"
    if float(text.replace(",", "")) == 0:
        return f"{0:.{digits}f}"
    return text


def many(n: int, noun: str, plural: str = "") -> str:
    """``n`` and ``noun``, in the plural (``plural``, else ``noun`` + "s") unless ``n`` is 1 ("1 run",
    "3 runs", "2 matches")."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


__all__ = ["fixed", "many"]
