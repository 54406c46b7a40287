"""HTML pieces the report is made of: escaping, numbers, tables, notes, figures and sections."""

from __future__ import annotations

import html
import json

from . import plots
from .numbers import fixed

DASH = "\u2013"


class Raw(str):
    """HTML made here, placed as it is (everything else is escaped)."""


def esc(value) -> str:
    return value if isinstance(value, Raw) else html.escape("" if value is None else str(value), quote=True)


def num(value, digits: int = 1) -> str:
    if isinstance(value, bool) or not plots.finite(value):
        return DASH
    return fixed(value, digits, comma=True)


def pct(value, digits: int = 1) -> str:
    return f"{fixed(value * 100, digits)}%" if plots.finite(value) and not isinstance(value, bool) else DASH


def interval(lo, hi, fmt=num) -> str:
    return f"{fmt(lo)} {DASH} {fmt(hi)}" if plots.finite(lo) and plots.finite(hi) else DASH


def yes_no(value) -> str:
    return DASH if value is None else ("yes" if value else "no")


def table(headers, rows, numeric=()) -> Raw:
    """An HTML table; columns whose index is in ``numeric`` are right-aligned."""
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = "".join(
        "<tr>" + "".join(f"<td{' class=n' if i in numeric else ''}>{esc(c)}</td>" for i, c in enumerate(row)) + "</tr>"
        for row in rows)
    return Raw(f"<div class=scroll><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>")


def note(text) -> Raw:
    return Raw(f'<p class="note">{esc(text)}</p>')


def figure(svg: str, caption) -> Raw:
    return Raw(f"<figure>{svg}<figcaption class=sub>{esc(caption)}</figcaption></figure>")


def section(ident: str, heading: str, parts) -> Raw:
    inner = "\n".join(esc(p) for p in parts if p)
    return Raw(f'<section id="{ident}">\n<h2>{esc(heading)}</h2>\n{inner}\n</section>')


def details(summary, parts, open_: bool = False) -> Raw:
    """A folded block: ``summary`` always shown, ``parts`` on a click."""
    inner = "\n".join(esc(p) for p in parts if p)
    return Raw(f"<details{' open' if open_ else ''}><summary>{esc(summary)}</summary>\n{inner}\n</details>")


def rules_text(rules) -> str:
    if not rules:
        return DASH
    return ", ".join(f"{k}={v if isinstance(v, str) else json.dumps(v, separators=(',', ':'))}"
                     for k, v in rules.items())


