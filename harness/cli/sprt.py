"""The ``ellibir sprt`` command (results/sprt.py). Registered on the main app by harness/cli/."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.table import Table

from harness.arena.registry import short_label
from results.numbers import fixed
from .app import app, fail
from .common import AllowInconsistentOpt, open_checked


def _vs_text(vs) -> str:
    return ", ".join(short_label(b) for b in vs) if isinstance(vs, list) else short_label(vs)


def _number(value, digits: int = 1, sign: bool = True) -> str:
    if value is None:
        return "—"
    return fixed(value, digits, sign)


def sprt_table(result: dict) -> Table:
    """One table: the test's settings, LLR and bounds, verdict, Elo estimate and counts."""
    from results.sprt import elo_words

    table = Table(title=f"SPRT: {short_label(result['bot'])} vs {_vs_text(result['vs'])}", show_header=False)
    table.add_column("", style="bold")
    table.add_column("", justify="right")
    r = result
    rows = [
        ("hypotheses", f"H0 elo {r['elo0']:g}, H1 elo {r['elo1']:g} (alpha {r['alpha']:g}, beta {r['beta']:g})"),
        ("LLR", fixed(r["llr"], 3)),
        ("bounds", f"[{r['lower']:.3f}, {r['upper']:.3f}]"),
        ("verdict", r["verdict"]),
        ("score", _number(r["score"], 4, sign=False)),
        ("Elo (95%)", elo_words(r, _number)),
        ("deal sets", str(r["deal_sets"])),
        ("matches", str(r["matches"])),
    ]
    if r.get("paired"):
        rows.append(("scored", "paired with the control table's seats (fair design)"))
    if r.get("incomplete"):
        rows.append(("of which incomplete", str(r["incomplete"])))
    if r.get("partial_deal_sets"):
        rows.append(("partial deal sets left out", str(r["partial_deal_sets"])))
    if "remaining" in r:  # a test recorded by an older version has no projection
        from results.report_parts import remaining_text

        rows.append(("deal sets still needed", remaining_text(r)))
    for name, value in rows:
        table.add_row(name, value)
    return table


def verdict_line(result: dict) -> str:
    from results.sprt import verdict_claim

    r = result
    a, b = short_label(r["bot"]), _vs_text(r["vs"])
    seen = f"after {r['deal_sets']} deal sets ({r['matches']} matches)"
    if r["verdict"] == "H1":
        return f"H1 accepted: {verdict_claim(r, a, b)} (LLR {fixed(r['llr'], 2)} >= {fixed(r['upper'], 2)} {seen})"
    if r["verdict"] == "H0":
        return (f"H0 accepted (H1 rejected): {verdict_claim(r, a, b)} "
                f"(LLR {fixed(r['llr'], 2)} <= {fixed(r['lower'], 2)} {seen})")
    if r["deal_sets"] < r["min_deal_sets"]:
        return (f"no verdict yet: {r['deal_sets']} complete deal sets ({r['matches']} matches), "
                f"the test needs at least {r['min_deal_sets']}")
    return f"no verdict yet: LLR {fixed(r['llr'], 2)} is inside [{r['lower']:.2f}, {r['upper']:.2f}] {seen}"


def symmetric_warning(elo0: float, elo1: float) -> str | None:
    """Said when the bounds are chosen: under hypotheses symmetric about 0 twins never decide."""
    if elo0 != -elo1:
        return None
    return (f"--elo0 {elo0:g} --elo1 {elo1:g} are symmetric about 0: two bots that split their deal sets evenly (a "
            "new version against an unchanged one) score exactly halfway between the hypotheses, the LLR stays 0 and "
            "the test never decides; to ask whether a version is better, use --elo0 0")


@app.command()
def sprt(
    run_dirs: Annotated[list[Path], typer.Argument(metavar="RUN_DIR...", help="Run folders, pooled.")],
    bot: Annotated[str, typer.Option("--bot", metavar="BOT", help="Bot A, the one tested.")],
    vs: Annotated[Optional[list[str]], typer.Option(
        "--vs", metavar="BOT", help="Bot B; repeat to pool several as one field (default: every other bot).")] = None,
    elo0: Annotated[float, typer.Option("--elo0", metavar="ELO", help="H0: A is ELO stronger than B.")] = 0.0,
    elo1: Annotated[float, typer.Option("--elo1", metavar="ELO", help="H1: A is ELO stronger; above --elo0.")] = 5.0,
    alpha: Annotated[float, typer.Option("--alpha", metavar="P", help="The chance of accepting H1 when H0 holds.")]
    = 0.05,
    beta: Annotated[float, typer.Option("--beta", metavar="P", help="The chance of accepting H0 when H1 holds.")]
    = 0.05,
    game: Annotated[Optional[str], typer.Option("--game", metavar="NAME", help="The game, when the runs mix games.")]
    = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the result as one JSON document.")] = False,
    allow_inconsistent: AllowInconsistentOpt = False,
) -> None:
    """Sequential probability ratio test of bot A against bot B (as fishtest does it), over complete deal
    sets: each deal set gives A's mean pairwise score against B. Prints the log-likelihood ratio, its
    bounds and the verdict: H1 (A is more than --elo0 stronger), H0 (less than --elo1 stronger), or continue."""
    from results.sprt import sprt as run_sprt

    said = symmetric_warning(elo0, elo1)
    if said:
        typer.echo(f"warning: {said}", err=True)
    try:
        result = run_sprt(open_checked(run_dirs, game, allow_inconsistent), bot, vs, elo0, elo1, alpha, beta)
    except (ValueError, OSError) as e:
        fail(e)
    if json_out:
        typer.echo(json.dumps(result, indent=2))
        return
    console = Console(highlight=False)
    console.print(sprt_table(result))
    typer.echo(verdict_line(result))
