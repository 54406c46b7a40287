"""The ``ellibir ratings`` command (results/ratings.py). Registered on the main app by harness/cli/."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich import box
from rich.console import Console
from rich.table import Table

from harness.arena.registry import short_label
from results.numbers import fixed
from .app import app, fail
from .bots import print_short
from .common import AllowInconsistentOpt, open_checked, reference_label
from harness.runs.limits import MAX_BOOTSTRAP, check, says

CSV_COLUMNS = ("place", "bot", "rating", "lo", "hi", "se", "boot_lo", "boot_hi", "games", "score_share", "avg_rank",
               "faults", "excluded_games", "scale")  # scale: the leaderboard's table size and rules
POOLED = "every table size and rules, pooled"


@app.command("ratings")
def ratings_command(
    run_dirs: Annotated[list[Path], typer.Argument(metavar="RUN_DIR", help="Run folders, pooled.",
                                                   show_default=False)],
    game: Annotated[Optional[str], typer.Option(metavar="GAME", help="The game to rate when the runs hold several.")]
    = None,
    anchor: Annotated[Optional[str], typer.Option(
        metavar="NAME", help="Fix this bot at 1500 (default: the game's reference bot where it played, else the mean "
                             "of the rated bots).")] = None,
    include_incomplete: Annotated[bool, typer.Option(
        "--include-incomplete", help="Also rate matches that ended early for reasons outside the bots (a match "
                                     "with a fault is rated anyway, the faulty bot last).")] = False,
    bootstrap: Annotated[int, typer.Option(
        metavar="N", help="Also give 95% percentile intervals from N bootstrap refits over whole deal sets "
                          "(at most 100,000).")] = 0,
    seed: Annotated[int, typer.Option(metavar="S", help=f"The bootstrap's random seed, {says('--seed')}.")] = 0,
    ties: Annotated[str, typer.Option(
        metavar="exact|davidson", help="How ties are read: exact (an unknown order among the tied seats) or "
                                       "davidson (Davidson-Luce tie parameters).")] = "exact",
    interval: Annotated[str, typer.Option(
        metavar="cluster|hessian", help="95% intervals clustered by deal set (the default: matches of a deal set "
                                        "are not independent) or from the Hessian (every match independent).")]
    = "cluster",
    pool: Annotated[bool, typer.Option(
        "--pool", help="Rate every table size and rules on one scale (a warning says so) instead of one leaderboard "
                       "each.")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print the whole result as JSON.")] = False,
    allow_inconsistent: AllowInconsistentOpt = False,
    csv_out: Annotated[Optional[str], typer.Option(
        "--csv", metavar="FILE", help="Write the leaderboards as CSV to FILE (- for standard output).")] = None,
) -> None:
    """Elo-scale ratings from a batch maximum-likelihood fit of the finishing orders (Plackett-Luce with
    seat effects per table size; a tie is an unknown order), with 95% intervals over deal sets, seat effects and a
    pairwise table. One leaderboard per table size and rules; on each, the game's reference bot is 1500 where it
    played, else the mean of the rated bots (--anchor NAME: that bot)."""
    if json_out and csv_out == "-":
        fail("--json and --csv - both write to standard output: give --csv a file")
    if not 0 <= bootstrap <= MAX_BOOTSTRAP:
        fail(f"--bootstrap must be 0 to {MAX_BOOTSTRAP}, got {bootstrap}")
    if ties not in ("exact", "davidson"):
        fail(f"--ties must be exact or davidson, got {ties!r}")
    try:
        check("--seed", seed)  # the bootstrap's (numpy's "expected non-negative integer" named no option)
    except ValueError as e:
        fail(e)
    if interval not in ("cluster", "hessian"):
        fail(f"--interval must be cluster or hessian, got {interval!r}")
    if csv_out is not None and csv_out != "-":
        check_writable(Path(csv_out))
    try:
        runs = open_checked(run_dirs, game, allow_inconsistent)
        report = rate(runs, anchor=anchor, pool=pool, include_incomplete=include_incomplete, bootstrap=bootstrap,
                      seed=seed, ties=ties, interval=interval)
    except ValueError as e:
        fail(e)
    if csv_out is not None:
        text = leaderboard_csv(report)
        if csv_out == "-":
            typer.echo(text, nl=False)
        else:
            try:
                Path(csv_out).write_text(text, encoding="utf-8")
            except OSError as e:
                fail(f"cannot write {csv_out}: {e.strerror or e}")
    if json_out:
        typer.echo(json.dumps(report, indent=2, ensure_ascii=False))
    elif csv_out != "-":
        show(report)
        print_short(runs)  # where each bot's points went (ellibir bots)


def rate(runs, anchor: str | None = None, pool: bool = False, **options) -> dict:
    """The document ``ratings`` prints: the game, the runs, the reference bot, the warnings of the pool
    (results/pooling.py) and ``leaderboards``, one per table size and rules (``results.ratings.ratings_by_rules``;
    each with its ``label``, or ``error`` when it cannot be rated), or one for everything with ``pool``.
    Raises ValueError when nothing can be rated."""
    from results.pooling import pooling_warnings
    from results.ratings import ratings, ratings_by_rules

    reference = reference_label(runs.game)
    if pool:
        boards = [{"label": POOLED, "key": None, "players": None,
                   **ratings(runs, anchor=anchor, reference=reference, **options)}]
    else:
        boards = ratings_by_rules(runs, anchor=anchor, reference=reference, **options)
    rated = [b for b in boards if not b.get("error")]
    if not rated:
        raise ValueError(boards[0]["error"] if boards else "nothing to rate")
    convention = (f"{anchor} is 1500 where it played (--anchor)" if anchor else
                  f"{reference} (the reference bot) is 1500 where it played" if reference else "")
    convention = (convention + ", else the mean of the rated bots" if convention else
                  "the mean of the rated bots is 1500")
    doc = {"game": runs.game, "runs": runs.names, "reference": reference, "anchor": anchor,
           "convention": f"one scale per table size and rules: {convention}" if not pool else convention,
           "warnings": pooling_warnings(runs), "leaderboards": boards}
    from results.replication import pairs, replication

    if pairs(runs):  # a run and its replication on fresh deals: each bot's rating in both
        doc["replication"] = replication(runs, reference=anchor or reference, with_balance=False)
    return doc


def check_writable(path: Path) -> None:
    from results.integrity import IntegrityError, check_output

    try:
        check_output(path, "the CSV")
    except IntegrityError as e:
        fail(e)
    try:
        if path.is_dir():
            fail(f"cannot write the CSV to {path}: it is a folder")
        if not path.parent.is_dir():
            fail(f"cannot write the CSV to {path}: no folder {path.parent}")
    except OSError as e:  # a path the system refuses (a name too long)
        fail(f"cannot write the CSV to {path}: {e.strerror or e}")


def leaderboard_csv(report: dict) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for board in report["leaderboards"]:
        for place, bot in enumerate(board.get("bots") or [], 1):
            writer.writerow([place if bot["rating"] is not None else ""]
                            + ["" if bot[k] is None else bot[k] for k in CSV_COLUMNS[1:-1]] + [board["label"]])
    return out.getvalue()


def _num(value, digits: int = 0) -> str:
    return "—" if value is None else fixed(value, digits)


def show(report: dict) -> None:
    console = Console(highlight=False)
    boards = report["leaderboards"]
    console.print(f"{report['game']}: {', '.join(report['runs'])}. Ratings on the Elo scale, {report['convention']}."
                  + (f" {len(boards)} leaderboards." if len(boards) > 1 else ""), markup=False, soft_wrap=True)
    for warning in report["warnings"]:
        console.print(f"warning: {warning}", markup=False, soft_wrap=True)
    for board in boards:
        console.print("")
        if board.get("error"):
            console.print(f"{board['label']}: not rated: {board['error']}", markup=False, soft_wrap=True)
            continue
        show_board(console, board)
    for entry in report.get("replication") or []:
        console.print(replication_table(entry))


def replication_table(entry: dict) -> Table:
    """Each bot's rating in a run and in its replication on fresh deals (results/replication.py)."""
    table = Table(title=f"Replication: {entry['replica']} replays {entry['first']} on fresh deals",
                  box=box.SIMPLE_HEAD)
    for c in ("scale", "bot", entry["first"], entry["replica"], "agree"):
        table.add_column(c, justify="left" if c in ("scale", "bot") else "right", overflow="fold")
    for row in entry.get("bots") or []:
        cells = []
        for side in (row["first"], row["replica"]):
            cells.append(fixed(side["rating"], 0) + ("" if side.get("lo") is None else
                                                    f" ({fixed(side['lo'], 0)}–{fixed(side['hi'], 0)})"))
        agree = {True: "yes", False: "NO", None: "—"}[row["agree"]]
        table.add_row(row["scale"], row["bot"], *cells, agree)
    table.caption = ("agree: the two ratings differ by less than 1.96 standard errors of their difference; the "
                     "leaderboards above pool both runs")
    if entry.get("bots_error"):
        table.caption += f"; not rated apart: {entry['bots_error']}"
    return table


def show_board(console: Console, report: dict) -> None:
    """One leaderboard: its scale in the first line, its warnings and counts, the tables."""
    m = report["matches"]
    console.print(f"{report['label']}: {report['scale']}; {report['interval_note']}.", markup=False, soft_wrap=True)
    for warning in report["warnings"]:
        console.print(f"warning: {warning}", markup=False, soft_wrap=True)
    console.print(f"{m['total']} matches, {m['rated']} rated; "
                  f"{m['incomplete']} ended early and {m['faulted']} had a fault"
                  + (" (rated, the faulty bot last)" if m["faulted"] else "")
                  + ("" if m["rated"] == m["total"] else " (not rated: rate them with --include-incomplete)")
                  + ".", markup=False)
    console.print(leaderboard(report))
    console.print(seat_table(report))
    if report["ties"]:
        console.print("ties (Davidson-Luce delta, 95% interval): " + "; ".join(
            f"{t['size']} seats {t['delta']:.3f} [{t['lo']:.3f}, {t['hi']:.3f}]" for t in report["ties"]),
            markup=False)
    rated = [b["bot"] for b in report["bots"] if b["rating"] is not None]
    if len(rated) > 1:
        console.print(pairwise_table(report, rated, "expected", "Expected score, row against column"))
        console.print(pairwise_table(report, rated, "los", "Likelihood of superiority, row over column"))
    console.print(f"model: {report['model']}", markup=False)


def leaderboard(report: dict) -> Table:
    anchor = report["anchor"]
    boot = report["bootstrap"]
    title = (f"Ratings, {report['label']} (Elo scale; " + (f"{anchor} = 1500" if anchor else "mean = 1500") + ")"
             if report.get("label") else "Ratings (Elo scale; " + (f"{anchor} = 1500" if anchor else "mean = 1500") + ")")
    table = Table(title=title, box=box.SIMPLE_HEAD)
    columns = ["bot", "Elo", "95% CI"] + (["boot. CI"] if boot else []) + ["games", "share", "rank", "faults"]
    longest = max((len(b["bot"]) for b in report["bots"]), default=3)
    for c in columns:
        if c == "bot":
            table.add_column(c, min_width=min(longest, 28), overflow="fold")
        else:
            table.add_column(c, justify="right", no_wrap=True)
    table.caption = (f"{report['clusters']} deal set{'' if report['clusters'] == 1 else 's'}; share: fraction of opponents beaten (ties half); "
                     "rank: mean finishing rank"
                     + (f"; boot. CI: {boot['replicates']} refits over whole deal sets" if boot else ""))
    for b in report["bots"]:
        interval = "—" if b["lo"] is None else f"{fixed(b['lo'], 0)}–{fixed(b['hi'], 0)}"
        row = [b["bot"], _num(b["rating"]), interval]
        if boot:
            row.append("—" if b["boot_lo"] is None else f"{fixed(b['boot_lo'], 0)}–{fixed(b['boot_hi'], 0)}")
        share = "—" if b["score_share"] is None else f"{100 * b['score_share']:.1f}%"
        row += [str(b["games"]), share, _num(b["avg_rank"], 2), str(b["faults"])]
        table.add_row(*row)
    return table


def seat_table(report: dict) -> Table:
    table = Table(title="Seat effects (Elo, per table size, seat 0 = 0)")
    for c in ("players", "seat", "effect", "95% interval"):
        table.add_column(c, justify="right")
    for s in report["seats"]:
        interval = "fixed" if s["seat"] == 0 else "—" if s["lo"] is None else f"{fixed(s['lo'], 0)}–{fixed(s['hi'], 0)}"
        table.add_row(str(s["players"]), str(s["seat"]), fixed(s["effect"], 0, sign=True), interval)
    return table


def pairwise_table(report: dict, bots: list, key: str, title: str) -> Table:
    cell = {(p["a"], p["b"]): p[key] for p in report["pairwise"]}
    table = Table(title=title)
    table.add_column("")
    for b in bots:
        table.add_column(short_label(b), justify="right")
    for a in bots:
        table.add_row(short_label(a), *["·" if a == b else "—" if cell[(a, b)] is None else f"{100 * cell[(a, b)]:.1f}%"
                                        for b in bots])
    return table
