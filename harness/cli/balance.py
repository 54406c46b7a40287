"""The ``ellibir balance`` command (results/balance.py). Registered on the main app by harness/cli/."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich import box
from rich.console import Console
from rich.table import Table

from results.numbers import fixed

from .app import app, fail
from .common import AllowInconsistentOpt, open_checked, reference_label


def _pct(x) -> str:
    return "—" if x is None else f"{fixed(100 * x, 1)}%"


def _interval(d: dict) -> str:
    if d.get("lo") is None:
        return "—"
    return f"{_pct(d['lo'])} – {_pct(d['hi'])}"


def _num(x, digits=2) -> str:
    return "—" if x is None else fixed(x, digits)


def _p(x) -> str:
    if x is None:
        return "—"
    return f"{x:.2e}" if x < 1e-3 else f"{x:.3f}"


def _deff(x) -> str:
    return "—" if x is None else f"{x:.2f}"


def _chi2(c: dict) -> str:
    if c["method"].startswith("none:"):
        return f"uniformity: no test ({c['method'].removeprefix('none: ').replace('clusters', 'deal sets')})"
    df = "—" if c["df"] is None else f"{c['df']:.2f}"
    if c["method"] != "rao-scott":  # no spread between deal sets: Pearson's on every round
        return (f"uniformity: every deal set alike (deff 0), so Pearson's over all rounds: "
                f"χ² = {_num(c['stat'])} (df {df}), p = {_p(c['p'])}")
    return (f"uniformity over {c['clusters']} deal sets (Rao–Scott): χ² = {_num(c['stat'])} (df {df}), "
            f"p = {_p(c['p'])}; mean deff = {_deff(c['deff'])}, uncorrected χ² = {_num(c['pearson'])}")


def _table(title: str, *columns: str, compact: bool = False) -> Table:
    table = Table(title=title, title_justify="left", **({"box": box.SIMPLE_HEAD, "pad_edge": False} if compact else {}))
    for i, name in enumerate(columns):
        table.add_column(name, justify="left" if i == 0 else "right")
    return table


def _rates(title: str, rates: dict, ci: str, empty: str = "none") -> Table | str:
    """A table of rates, or one line saying why there is none (``empty``): no row, or no rate."""
    if all(r.get("rate") is None for r in rates.values()):
        return f"{title}: {empty}"
    table = _table(title, "", "rate", ci, "deff")
    for name, r in rates.items():
        table.add_row(str(name), _pct(r["rate"]), _interval(r), _deff(r.get("deff")))
    return table


def variant_tables(v: dict, confidence: float) -> list:
    """The rich tables of one variant of a ``balance`` dict."""
    ci = f"{100 * confidence:g}% interval"
    head = f"{v['label']} ({v['variant']}): {v['matches']} matches, {v['rounds']} rounds, {v['deal_sets']} deal sets"
    pos = _table("round wins by position after the dealer", "position", "rounds", "wins", "rate", ci, "deff")
    for p in v["positions"]:
        pos.add_row(str(p["position"]), str(p["rounds"]), str(p["wins"]), _pct(p["rate"]), _interval(p),
                    _deff(p["deff"]))
    imb, dealer = v["imbalance"], v.get("dealer") or {}
    pos.caption = f"{_chi2(v['chi2'])}; Holm over variants p = {_p(v['chi2'].get('p_adj'))}"
    fairness = (f"seat imbalance {_pct(imb['value'])} ({ci} {_pct(imb['lo'])} – {_pct(imb['hi'])}; uncorrected "
                f"{_pct(imb['raw'])}): a position's typical distance from the mean win rate, chance removed; "
                f"the dealer (position {dealer.get('position', '—')}) wins {_pct(dealer.get('rate'))} of non-void rounds")
    seats = _table("matches by seat: mean total, and rate of rank 1", "seat", "matches", "total", ci, "deff", "rank 1",
                   ci, "deff", compact=True)
    for s, w in zip(v["seat_scores"], v["seat_wins"]):
        seats.add_row(str(s["seat"]), str(w["matches"]), _num(s["mean"], 1),
                      "—" if s["lo"] is None else f"{s['lo']:.1f} – {s['hi']:.1f}", _deff(s["deff"]),
                      _pct(w["rate"]), _interval(w), _deff(w["deff"]))
    t = v["turns"]
    rounds = _table("rounds", "", "value", ci, "deff")
    rounds.add_row("turns: mean (sd)", f"{_num(t['mean'], 1)} ({_num(t['sd'], 1)})", "", "")
    rounds.add_row("turns: median (10th, 90th percentile)",
                   f"{_num(t['median'], 1)} ({_num(t['p10'], 1)}, {_num(t['p90'], 1)})", "", "")
    rounds.add_row("void rate", _pct(v["void_rate"]["rate"]), _interval(v["void_rate"]), _deff(v["void_rate"]["deff"]))
    for why, r in v.get("void_why", {}).items():
        rounds.add_row(f"  void: {why}", _pct(r["rate"]), _interval(r), _deff(r["deff"]))
    for end, r in v.get("ends", {}).items():
        rounds.add_row(f"ends: {end}", _pct(r["rate"]), _interval(r), _deff(r["deff"]))
    legend = ("deff: design effect, the variance over deal sets (the independent units) against that of "
              "independent rows; intervals count rows / deff and use t on deal sets − 1 df")
    out = [f"\n[bold]{head}[/bold]"] + [f"[bold red]warning:[/bold red] {w}" for w in v.get("warnings", [])]
    out += [pos, fairness, seats, rounds]
    if "finish" in v:
        out.append(_rates("how rounds are won (share of non-void rounds)", v["finish"], ci, "no round had a winner"))
    openings = v.get("openings", {})
    if "by_method" in openings:
        out.append(_rates("openings by method (share of seat-rounds)", openings["by_method"], ci, "no seat opened"))
    if "win_share" in openings:
        out.append(_rates("round wins of seats that opened, by method (share of their non-void rounds)",
                          openings["win_share"], ci, "no seat that opened won a round"))
    if openings.get("by_turn"):
        out.append("openings by turn (turn: count): " + ", ".join(f"{t}: {c}" for t, c in openings["by_turn"]))
    if "penalties" in v:
        pen = _table("mean penalty per seat-round", "rule", "mean")
        for rule, mean in v["penalties"].items():
            pen.add_row(rule, _num(mean, 3))
        out.append(pen)
    out.append(legend)
    return out


def comparison_tables(doc: dict) -> list:
    """The paired comparisons of a ``balance`` dict: one table per pair of variants."""
    names = {v["variant"]: v["label"] for v in doc["variants"]}
    margin = doc["margin"] or {}
    cols = ["metric", "family", "n", "a", "b", "b − a", f"{100 * doc['confidence']:g}% CI", "p", "adjusted", "shown"]
    if margin:
        cols.append("within ±M")
    yes = {True: "yes", False: "no", None: "—"}
    tables = {}
    for r in doc["comparisons"]:
        key = (r["a"], r["b"])
        if key not in tables:
            tables[key] = _table(f"paired comparison on the same deals: b = {names[r['b']]}, a = {names[r['a']]}",
                                 *cols, compact=True)
        row = [r["metric"], r["family"], str(r["n"]), _num(r["mean_a"], 3), _num(r["mean_b"], 3), _num(r["diff"], 3),
               "—" if r["lo"] is None else f"{_num(r['lo'], 3)}, {_num(r['hi'], 3)}", _p(r["p"]), _p(r["p_adj"]),
               yes[r["significant"]]]
        if margin:
            row.append(yes[r["equivalent"]] + (f" (±{r['margin']:g})" if r.get("margin") is not None else ""))
        tables[key].add_row(*row)
    return list(tables.values())


def parse_margins(given: list[str] | None) -> dict | None:
    """``--margin`` values: ``M`` (every rate metric) or ``METRIC=M``; None when none is given."""
    if not given:
        return None
    out = {}
    for text in given:
        name, sep, value = text.rpartition("=")
        key = name.strip() if sep else "rates"
        if key in out:
            raise ValueError(f"--margin {text!r}: a margin for {key} is given twice, give it once")
        try:
            out[key] = float(value)
        except ValueError:
            raise ValueError(f"--margin {text!r}: expected M or METRIC=M with a number M") from None
    return out


@app.command()
def balance(
    run_dir: Annotated[list[Path], typer.Argument(metavar="RUN_DIR...", help="Run folders, pooled.")],
    game: Annotated[Optional[str], typer.Option(help="The game to analyse when the runs hold several.")] = None,
    margin: Annotated[Optional[list[str]], typer.Option(
        metavar="M|METRIC=M", help="Equivalence margin fixed in advance: a number is the margin of every rate "
                                   "metric (as a fraction, e.g. 0.02); METRIC=M sets one metric's, in its units "
                                   "(e.g. turns=2, pen_O4=1). Repeatable. Adds TOST equivalence to the comparisons."
    )] = None,
    exploratory: Annotated[bool, typer.Option(
        "--exploratory", help="Adjust the primary family by Benjamini–Hochberg (false discovery rate) instead of "
                              "Holm.")] = False,
    compare: Annotated[Optional[list[str]], typer.Option(
        "--compare", metavar="A:B", help="A comparison to make, variants named by their differing fields, e.g. "
                                         "threshold=71:threshold=101. Repeatable; these are the confirmatory family.")]
    = None,
    baseline: Annotated[Optional[str], typer.Option(
        "--baseline", metavar="VARIANT", help="Compare each variant with this one (e.g. threshold=51).")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    allow_inconsistent: AllowInconsistentOpt = False,
) -> None:
    """Variant balance: wins by position after the dealer, seat results, round length, void rate, how
    rounds are won and opened, penalties; variants played on the same deals compared paired by deal set."""
    from results.balance import balance as report

    try:
        if compare and baseline:
            raise ValueError("give --compare or --baseline, not both")
        runs = open_checked(run_dir, game, allow_inconsistent)
        doc = report(runs, margin=parse_margins(margin), exploratory=exploratory,
                     compare_pairs=compare, baseline=baseline, reference=reference_label(runs.game))
        from results.pooling import pooling_warnings
        from results.replication import pairs, replication

        doc["warnings"] = list(dict.fromkeys(doc.get("warnings", []) + pooling_warnings(runs)))
        if pairs(runs):  # a run and its replication on fresh deals: the first run's findings checked
            doc["replication"] = replication(runs, {"margin": parse_margins(margin), "exploratory": exploratory,
                                                    "compare_pairs": compare, "baseline": baseline},
                                             with_ratings=False)
    except (ValueError, OSError) as e:
        fail(e)
    if json_out:
        typer.echo(json.dumps(doc, indent=2, ensure_ascii=False))
        return
    console = Console(highlight=False)
    for line in doc["warnings"]:  # the runs as a whole: left-out deal sets, pooled runs, rules never in play
        console.print(f"warning: {line}", markup=False, soft_wrap=True)
    from .skill_tables import skill_tables

    for v in doc["variants"]:
        for table in variant_tables(v, doc["confidence"]) + skill_tables(v):
            console.print(table)
    for table in comparison_tables(doc):  # whole rows even when piped (80 columns by default)
        wide = console.measure(table, options=console.options.update_width(400)).maximum
        Console(highlight=False, width=max(console.width, wide)).print(table)
    if doc["comparisons"]:
        primary = sum(r["family"] == "primary" and r["p_adj"] is not None for r in doc["comparisons"])
        legend = (f"compared: {doc['pairs_note']}. a, b: each variant's pooled figure (as in its tables); n: deal "
                  f"sets paired; adjusted: the primary family (win rate by position, void rate, turns"
                  f"{', skill gaps (skill_gap:C>F: the gap of C over F, points a round)' if doc.get('skill') else ''}; {primary} "
                  f"tests) by {doc['correction']}, exploratory rows by Benjamini–Hochberg among themselves; "
                  "rates as fractions; shown: a difference shown once adjusted (no: none shown, which does not say "
                  "that there is none: see the interval)")
        if doc["margin"]:
            legend += "; within ±M: equivalent within the metric's margin (TOST, adjusted alike)"
        typer.echo(legend)
    elif len(doc["variants"]) > 1:
        typer.echo("no comparisons: the variants share no deal set of one run")
    if doc.get("skill"):
        names = {v["variant"]: v["label"] for v in doc["variants"]}
        for t in doc["skill"].get("survival") or []:
            if t["p"] is not None:
                typer.echo(f"round length (void rounds censored), {names.get(t['b'], t['b'])} against "
                           f"{names.get(t['a'], t['a'])} at {t['level'].removeprefix('builtin:')}: log-rank p = {t['p']:.3g}")
        typer.echo(f"skill: {doc['skill']['summary']}")
    for entry in doc.get("replication") or []:
        replication_lines(entry)


def replication_lines(entry: dict) -> None:
    """What a replication says of its first run's findings (results/replication.py)."""
    from results.replication import finding_sentence

    typer.echo(f"\nreplication: {entry['replica']} replays {entry['first']} on fresh deals; the tables above pool "
               "both runs' deal sets")
    if entry.get("findings_error"):
        typer.echo(f"  the findings of {entry['first']} could not be checked: {entry['findings_error']}")
    elif not entry.get("findings"):
        typer.echo(f"  {entry['first']} showed no difference and no lead to confirm")
    for row in entry.get("findings") or []:
        typer.echo(f"  {finding_sentence(row)}")
