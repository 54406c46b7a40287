"""The report's section on each bot's own play: where its points went (results/breakdown.py), as three
tables: its rounds, its points per round, its matches and decisions, every rate with its 95% interval
over deal sets."""

from __future__ import annotations

import math

from .breakdown import breakdown
from .timetext import bin_text, seconds_text
from .page import DASH, Raw, note, num, pct, section, table
from .runs import Runs


def _rate(r) -> str:
    """``33.3% (20.1–48.6%) of 12``."""
    if not r or not r.get("n"):
        return DASH
    if r.get("lo") is None or not math.isfinite(r["lo"]):
        return f"{pct(r['rate'])} of {r['n']:,}"
    return f"{pct(r['rate'])} ({pct(r['lo'])} {DASH} {pct(r['hi'])}) of {r['n']:,}"


def _bin(b) -> str:
    return bin_text(b, DASH, f" {DASH} ")


def _per_round(points: dict, key: str, rounds: int) -> str:
    value = points.get(key)
    return DASH if value is None or not rounds else num(value / rounds)


def rounds_rows(doc: dict) -> list:
    rows = []
    for b in doc["bots"]:
        by = ", ".join(f"{x} {n}" for x, n in b["won_by"].items() if n) or DASH
        openings = "; ".join(f"{m} {o['count']}" + (f", median turn {o['median_turn']:g}"
                                                     if o.get("median_turn") is not None else "")
                             for m, o in b["openings"].items()) or DASH
        rows.append([b["bot"], b["rounds"], _rate(b["won"]), by, _rate(b["opened"]), openings, b["void_rounds"],
                     b["stand_in_rounds"]])
    return rows


def points_rows(doc: dict) -> list:
    rows = []
    for b in doc["bots"]:
        p, n = b["points"], b["rounds"]
        pens = "; ".join(f"{r}: {v['count']} in {v['rounds']} rounds, {v['points']:,} points"
                         for r, v in b["penalties"].items() if v["count"]) or DASH
        rows.append([b["bot"], _per_round(p, "total", n), _per_round(p, "won", n), _per_round(p, "unopened", n),
                     _per_round(p, "opened", n), _per_round(p, "left_in_hand", n), pens])
    return rows


def decisions_rows(doc: dict) -> list:
    rows = []
    for b in doc["bots"]:
        f, time = b["faults"], b["time"] or {}
        kinds = ", ".join(f"{k} {n}" for k, n in f.get("kinds", {}).items())
        bank = DASH if time.get("bank_used_mean") is None else \
            f"{seconds_text(time['bank_used_mean'])}, {seconds_text(time['bank_used_max'])}"
        rows.append([b["bot"], b["matches"], num(b["mean_total"]), _rate(f) + (f" ({kinds})" if kinds else ""),
                     _rate(b["refusals"]), _bin(time.get("median")), _bin(time.get("p90")), seconds_text(time.get("max")),
                     bank])
    return rows


def bots_section(runs: Runs) -> Raw:
    try:
        doc = breakdown(runs)
    except ValueError as e:
        return section("bots", "Where the points went", [note(f"No breakdown: {e}")])
    parts = [
        Raw("<p>Each bot's own play: rounds in which the reference bot stood in for it after a fault are left "
            "out, and so are its matches with a fault from its mean total. Intervals: 95%, over deal sets.</p>"),
        Raw("<h3>Rounds</h3>"),
        table(["bot", "rounds", "won", "won by", "opened", "openings", "void", "stand-in"], rounds_rows(doc),
              {1, 6, 7}),
        Raw("<h3>Points per round</h3>"),
        table(["bot", "all", "going out", "paid unopened", "paid after opening", "left in hand", "penalties"],
              points_rows(doc), {1, 2, 3, 4, 5}),
        Raw("<p class=sub>Low is good. Paid unopened and after opening: what its lost rounds cost, multipliers "
            "included, penalties apart; left in hand: its cards' value in the rounds it lost after opening.</p>"),
        Raw("<h3>Matches and decisions</h3>"),
        table(["bot", "matches", "mean total (no fault)", "faults", "refused decisions", "median time", "90% time",
               "longest", "bank used: mean, max"], decisions_rows(doc), {1, 2, 5, 6, 7, 8}),
        Raw("<p class=sub>Decision times are pooled in fixed bins: the median and the 90th percentile are known to "
            "their bin, the longest exactly. Bank used: the overtime a bot with a clock spent in a match.</p>"),
    ]
    parts += [note(n) for n in doc["notes"]]
    return section("bots", "Where the points went", parts)


__all__ = ["bots_section", "decisions_rows", "points_rows", "rounds_rows"]
