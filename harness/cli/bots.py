"""``ellibir bots RUN...``: where each bot's points went (results/breakdown.py), as tables or JSON; the
short table the standings and ``ratings`` print."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from harness.players.trace import terminal_safe
from results.numbers import fixed
from results.timetext import bin_text, seconds_text

from .app import app, fail
from .common import AllowInconsistentOpt, open_checked

DASH = "—"


@app.command("bots")
def bots_command(
    run_dirs: Annotated[list[Path], typer.Argument(metavar="RUN_DIR", help="Run folders, pooled.",
                                                   show_default=False)],
    game: Annotated[Optional[str], typer.Option(metavar="GAME", help="The game to show when the runs hold several.")]
    = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the whole breakdown as JSON.")] = False,
    allow_inconsistent: AllowInconsistentOpt = False,
) -> None:
    """Where each bot's points went: rounds won and how, openings by method and turn, points paid
    unopened and after opening, points left in hand, penalties by rule, refused decisions, faults, the
    mean total of its matches without a fault, decision times and bank used; every rate with its 95%
    interval over deal sets. Only the bot's own play counts (not the reference bot's after a fault)."""
    from results.breakdown import breakdown

    try:
        doc = breakdown(open_checked(run_dirs, game, allow_inconsistent))
    except ValueError as e:
        fail(e)
    if json_out:
        typer.echo(json.dumps(doc, indent=2, ensure_ascii=False, default=_json_number))
        return
    console = Console(highlight=False)
    for table in breakdown_tables(doc):
        console.print(table)
    for note in doc["notes"]:
        console.print(f"note: {note}", markup=False, soft_wrap=True)


def _json_number(value):
    return None if isinstance(value, float) and not math.isfinite(value) else str(value)


# Words and numbers -----------------------------------------------------------------------------------

def pct(rate) -> str:
    return DASH if rate is None or (isinstance(rate, float) and math.isnan(rate)) else f"{100 * rate:.1f}%"


def rate_text(r: dict | None) -> str:
    """``33.3% [20.1–48.6%] of 12``: a rate, its interval, its trials."""
    if not r or not r.get("n"):
        return DASH
    interval = "" if r.get("lo") is None or math.isnan(r["lo"]) else \
        f" [{100 * r['lo']:.1f}–{100 * r['hi']:.1f}%]"
    return f"{pct(r['rate'])}{interval} of {r['n']:,}"


def per_round(points: dict, key: str, rounds: int) -> str:
    value = points.get(key)
    return DASH if value is None or not rounds else fixed(value / rounds, 1, True)


def _name(bot: str) -> Text:
    return Text(terminal_safe(bot))


# Tables ----------------------------------------------------------------------------------------------

def breakdown_tables(doc: dict) -> list[Table]:
    return [rounds_table(doc), points_table(doc), decisions_table(doc)]


def rounds_table(doc: dict) -> Table:
    t = Table(title="Rounds (each bot's own, void rounds apart)", box=box.SIMPLE_HEAD)
    for c in ("bot", "rounds", "won (95% CI)", "won by", "opened (95% CI)", "openings: method, median turn",
              "void", "stand-in"):
        t.add_column(c, no_wrap=c == "bot", justify="left" if c in ("bot", "won by", "openings: method, median turn") else "right",
                     overflow="fold")
    for b in doc["bots"]:
        by = ", ".join(f"{x} {n}" for x, n in b["won_by"].items() if n) or DASH
        openings = "; ".join(f"{m} {o['count']}" + (f", turn {o['median_turn']:g}" if o.get("median_turn") is not None
                                                     else "") for m, o in b["openings"].items()) or DASH
        t.add_row(_name(b["bot"]), f"{b['rounds']:,}", rate_text(b["won"]), by, rate_text(b["opened"]), openings,
                  str(b["void_rounds"]), str(b["stand_in_rounds"]))
    t.caption = ("won by: the finishes of its won rounds; stand-in: rounds the reference bot played for it after a "
                 "fault, left out of every figure")
    return t


def points_table(doc: dict) -> Table:
    t = Table(title="Points per round (low is good: paid +, gained -)", box=box.SIMPLE_HEAD)
    for c in ("bot", "all", "going out", "unopened", "after opening", "left in hand", "penalties"):
        t.add_column(c, no_wrap=c == "bot", justify="left" if c in ("bot", "penalties") else "right", overflow="fold")
    for b in doc["bots"]:
        p, n = b["points"], b["rounds"]
        pens = "; ".join(f"{r} {v['count']}× = {v['points']:,} pts" for r, v in b["penalties"].items() if v["count"])
        t.add_row(_name(b["bot"]), per_round(p, "total", n), per_round(p, "won", n), per_round(p, "unopened", n),
                  per_round(p, "opened", n), per_round(p, "left_in_hand", n), pens or DASH)
    t.caption = ("unopened / after opening: what its lost rounds cost (multipliers included, penalties apart); "
                 "left in hand: its cards' value in the rounds it lost after opening; penalties: count and points in its "
                 "scored rounds")
    return t


def decisions_table(doc: dict) -> Table:
    t = Table(title="Matches and decisions", box=box.SIMPLE_HEAD)
    for c in ("bot", "matches", "mean total", "faults (95% CI)", "refused (95% CI)", "median", "90%", "max",
              "bank used: mean, max"):
        t.add_column(c, no_wrap=c == "bot", justify="left" if c == "bot" else "right", overflow="fold")
    for b in doc["bots"]:
        f = b["faults"]
        faults = rate_text(f) + ("" if not f.get("kinds") else " (" + ", ".join(f"{k} {n}" for k, n in f["kinds"].items()) + ")")
        time = b["time"] or {}
        bank = DASH if time.get("bank_used_mean") is None else \
            f"{seconds_text(time['bank_used_mean'])}, {seconds_text(time['bank_used_max'])}"
        total = DASH if b["mean_total"] is None else f"{b['mean_total']:.1f}"
        t.add_row(_name(b["bot"]), f"{b['matches']:,}", total, faults, rate_text(b["refusals"]),
                  bin_text(time.get("median")), bin_text(time.get("p90")), seconds_text(time.get("max")), bank)
    t.caption = ("mean total: over its matches without a fault; refused: of its decisions; decision times pooled "
                 "in fixed bins (median and 90% to their bin); bank used: of its overtime per match (bots with a clock)")
    return t


def print_short(runs, timing: bool = True) -> None:
    """The short table of ``runs`` (results.runs.Runs) on the terminal; nothing when the breakdown fails."""
    from results.breakdown import breakdown

    try:
        doc = breakdown(runs)
    except ValueError:
        return
    table, console = short_table(doc, timing=timing), Console(highlight=False)
    wide = console.measure(table, options=console.options.update_width(400)).maximum
    Console(highlight=False, width=max(console.width, wide)).print(table)  # whole words even when piped (80 columns)


def short_table(doc: dict, timing: bool = True,
                title: str = "Where the points went (ellibir bots RUN for more)") -> Table:
    """One line a bot: what the standings (without the times, which differ from run to run) and
    ``ratings`` show of the breakdown."""
    t = Table(title=title, box=box.SIMPLE_HEAD)
    columns = ["bot", "rounds won", "opened", "points a round", "penalties", "refused", "faults"]
    columns += ["time 90%", "max", "bank used"] if timing else []
    for c in columns:
        t.add_column(c, no_wrap=c == "bot", justify="left" if c == "bot" else "right", overflow="fold")
    for b in doc["bots"]:
        time = b["time"] or {}
        pens = ", ".join(f"{r} {v['points']:,}" for r, v in b["penalties"].items() if v["points"])
        refused = b["refusals"]
        row = [_name(b["bot"]), pct((b["won"] or {}).get("rate")), pct((b["opened"] or {}).get("rate")),
               per_round(b["points"], "total", b["rounds"]), pens or "0",
               DASH if refused is None else f"{refused['k']:,}", str(b["faults"]["k"])]
        if timing:
            row += [bin_text(time.get("p90")), seconds_text(time.get("max")), seconds_text(time.get("bank_used_max"))]
        t.add_row(*row)
    t.caption = "penalties: points by rule; refused: decisions the engine refused; faults: matches with one"
    return t


__all__ = ["bots_command", "breakdown_tables", "print_short", "short_table"]
