"""One self-contained HTML report of one or more runs: ratings, balance, and how the runs were made.

``write_report(runs, path, title=None, include_incomplete=False)`` computes the ``ratings`` (rating
faulted and early-ended matches too when ``include_incomplete``) and ``balance`` documents, and a
few facts about the runs (one lazy query), and writes a single HTML file: inline CSS, plots as
inline SVG (results/plots.py), no script, no link, and a Content-Security-Policy that forbids
loading anything, so the file opens offline and cannot run code. Every text from the data is
escaped. The file is written under a temporary name in the target folder and renamed into place.

Sections (each a ``<section>`` with a stable id): ``summary`` (in words, results/words.py: three to
five sentences first, the details folded), ``leaderboard`` (one per table size and rules, the
convention of results/scales.py), ``pairwise``, ``seats``, ``round-length``, ``balance`` (the forest
plot of the metrics that vary, the comparisons in plain words, each variant's tables folded;
results/report_balance.py), ``sprt`` (only when a run had one), ``faults``, ``matches`` (a list
filtered with CSS, each row with its viewer or its ``ellibir replay`` command) and ``method``
(folded); results/report_parts.py makes the summary, SPRT, faults and matches. A section whose data
is missing says so. Tables scroll inside their box and plots scale to the column, so the page does
not overflow a phone's screen (390 px).
"""

from __future__ import annotations

import json
import os
import platform
import tempfile
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path

import polars as pl

from . import plots
from . import report_parts as more
from .page import DASH, Raw, details, esc, figure, interval, note, num, pct, rules_text, section, table, yes_no
from .report_balance import balance_section, comparison_table, round_length_section, seats_section, variants_of
from .report_bots import bots_section
from .report_skill import HEADING as SKILL_HEADING, skill_section
from .pooling import pooling_warnings
from .runs import Runs, open_runs

SECTIONS = ("summary", "leaderboard", "pairwise", "seats", "round-length", "balance", "faults", "bots", "matches",
            "method")
HEADINGS = ("In short", "Leaderboard", "Pairwise", "Seat advantage", "Round length", "Balance", "Faults",
            "Where the points went", "Matches", "How the runs were made")
CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:72rem;padding:1rem 2rem;
color:#1d1d1f;line-height:1.4}
h1{margin-bottom:.2rem}h2{border-bottom:2px solid #ddd;padding-bottom:.2rem;margin-top:2.2rem}
h3{margin-bottom:.4rem}nav a{margin-right:1rem}.sub,.note{color:#666}.note{font-style:italic}
table{border-collapse:collapse;margin:.5rem 0 1rem;font-size:.88rem}
th,td{border-bottom:1px solid #e4e4e4;padding:.2rem .6rem;text-align:left;vertical-align:top}
th{background:#f5f5f7}td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
figure{margin:.5rem 0 1rem}figure svg{width:100%;max-width:46rem;height:auto}
code{font-size:.85em;overflow-wrap:anywhere}code.id{white-space:nowrap}.seat{display:block;white-space:nowrap}
.pair{display:flex;flex-wrap:wrap;gap:0 2rem}.pair>div{min-width:0;max-width:100%}
.scroll{overflow-x:auto;max-width:100%}.scroll table{margin:0}
figure{max-width:100%}details{margin:.4rem 0}summary{cursor:pointer;color:#0b57a0}
p.headline{font-size:1.05rem}ol.headline li{margin:.35rem 0}
ul.said li{margin:.25rem 0}nav{display:flex;flex-wrap:wrap;gap:.2rem 1rem}nav a{margin:0}
#match-list code{white-space:nowrap;overflow-wrap:normal}.filter input{margin-left:.6rem}.filter label{margin-right:.2rem}
@media (max-width:40rem){body{padding:.5rem .8rem}h1{font-size:1.4rem}table{font-size:.8rem}}
"""
# Computing ---------------------------------------------------------------------------------------


def _attempt(compute, runs, asked=()):
    """(document, None), or (None, reason) when the analysis refuses these runs; an error of a type in
    ``asked`` (options the caller gave that make no sense: an unknown variant to compare) is raised."""
    try:
        return compute(runs), None
    except asked:
        raise
    except ValueError as e:
        return None, str(e).splitlines()[0] if str(e) else type(e).__name__


def facts(runs: Runs) -> dict:
    """Matches played per run and variant, and each bot's versions and hashes, from the matches table."""
    played = (runs.matches.group_by("run", "variant").agg(pl.col("match_id").n_unique().alias("matches"))
              .sort("run", "variant"))
    bots = (runs.matches.group_by("bot", "bot_version", "bot_hash")
            .agg(pl.struct("run", "match_id").n_unique().alias("matches"))
            .sort("bot", "bot_version", "bot_hash"))
    played, bots = pl.collect_all([played, bots])
    return {"played": played.to_dicts(), "bots": bots.to_dicts()}


def versions() -> dict:
    out = {}
    for package in ("ellibir", "polars", "numpy", "scipy", "matplotlib"):
        try:
            out[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            out[package] = "unknown"
    out["python"] = platform.python_version()
    return out


# Sections ----------------------------------------------------------------------------------------


def _docs(ratings_doc) -> list[dict]:
    """The ratings documents of the report: one per table size and rules (a list), or one."""
    if ratings_doc is None:
        return []
    return list(ratings_doc) if isinstance(ratings_doc, list) else [ratings_doc]


def leaderboard_section(ratings_doc, why) -> Raw:
    title = "Leaderboard"
    docs = _docs(ratings_doc)
    if not docs:
        return section("leaderboard", title, [note(f"No ratings: {why}")])
    several = len(docs) > 1
    parts = [note(f"{len(docs)} table sizes or rules, each on its own scale: a rating compares bots on the "
                  "matches they played under the same rules.")] if several else []
    for doc in docs:
        block = _leaderboard(doc)
        parts += [Raw(f"<h3>{esc(doc.get('label'))}</h3>")] + block if several else block
    return section("leaderboard", title, parts)


def _leaderboard(doc: dict) -> list:
    """One scale's leaderboard: counts, the convention, warnings, the plot and the table."""
    if doc.get("error"):
        return [note(f"No ratings: {doc['error']}")]
    m = doc.get("matches") or {}
    early = m.get("incomplete", 0)
    counts = (f"{m.get('rated', 0)} of {m.get('total', 0)} matches rated; {early} ended early"
              + (" (rated too)" if early and m.get("rated", 0) == m.get("total", 0) else "")
              + f", {m.get('faulted', 0)} had a fault (rated, the faulty bot last).")
    basis = doc.get("scale") or "Elo scale: the mean of the rated bots is 1500"
    warnings = "".join(f"<p class=sub>Warning: {esc(w)}.</p>" for w in doc.get("warnings") or [])
    bots = doc.get("bots") or []
    if not bots:
        return [note("No rated matches, so no ratings."), Raw(f"<p>{esc(counts)}</p>")]
    boot = any(plots.finite(b.get("boot_lo")) for b in bots)
    headers = ["#", "bot", "rating", "95% interval", "±se"] + (["bootstrap 95%"] if boot else []) + [
        "games", "score share", "average rank", "faults"]
    rows = []
    for i, b in enumerate(bots, 1):
        rows.append([i, b.get("bot"), num(b.get("rating")), interval(b.get("lo"), b.get("hi")), num(b.get("se"))]
                    + ([interval(b.get("boot_lo"), b.get("boot_hi"))] if boot else [])
                    + [b.get("games"), pct(b.get("score_share")), num(b.get("avg_rank"), 2), b.get("faults")])
    numeric = {0, 2, 3, 4} | ({5, 6, 7, 8, 9} if boot else {5, 6, 7, 8})
    model = doc.get("model") or "Plackett-Luce with seat effects"
    ties = "; ".join(f"{t.get('size')}-way ties: {num(t.get('delta'), 3)} ({interval(t.get('lo'), t.get('hi'))})"
                     for t in doc.get("ties") or [])
    return [
        Raw(f"<p>{esc(counts)} Ratings: {esc(basis)}.</p>" + warnings),
        figure(plots.leaderboard(bots), "Ratings on the Elo scale with "
               + (doc.get("interval_note") or "95% intervals")
               + (", and bootstrap intervals in the table." if boot else ".")),
        table(headers, rows, numeric),
        Raw(f"<p class=sub>Model: {esc(model)}." + (f" Tie parameters: {esc(ties)}." if ties else "") + "</p>"),
    ]


def pairwise_matrix(doc) -> tuple[list[str], list[list[float]], dict]:
    """Bot names (leaderboard order), the matrix of expected scores (row against column), and LOS by pair."""
    names = [b["bot"] for b in doc.get("bots") or []]
    index = {name: i for i, name in enumerate(names)}
    n = len(names)
    matrix = [[float("nan")] * n for _ in range(n)]
    los = {}
    for pair in doc.get("pairwise") or []:
        a, b = pair.get("a"), pair.get("b")
        if a not in index or b not in index:
            continue
        e = pair.get("expected")
        if plots.finite(e):
            matrix[index[a]][index[b]] = e
            if not plots.finite(matrix[index[b]][index[a]]):
                matrix[index[b]][index[a]] = 1 - e
        los[(a, b)] = pair.get("los")
    return names, matrix, los


def pairwise_section(ratings_doc, why) -> Raw:
    title = "Pairwise expected scores"
    docs = _docs(ratings_doc)
    if not docs:
        return section("pairwise", title, [note(f"No ratings: {why}")])
    parts = []
    for i, doc in enumerate(docs):
        block = _pairwise(doc)
        if len(docs) > 1:
            block = [details(doc.get("label"), block, open_=i == 0)]
        parts += block
    return section("pairwise", title, parts)


def _pairwise(doc: dict) -> list:
    if doc.get("error"):
        return [note(f"No ratings: {doc['error']}")]
    names, matrix, los = pairwise_matrix(doc)
    if len(names) < 2 or not los:
        return [note("Fewer than two rated bots: no pairs to compare.")]
    rows = [[a, b, num(matrix[names.index(a)][names.index(b)], 3), pct(p)] for (a, b), p in los.items()]
    return [
        figure(plots.heatmap(names, matrix, "expected score of the row's bot against the column's"),
               "Expected score of the row's bot against the column's bot in a two-player game, from the ratings."),
        details("Each pair: expected score and likelihood of superiority",
                [table(["bot", "against", "expected score", "likelihood of superiority"], rows, {2, 3})]),
    ]


def run_block(name: str, plan: dict, played: list[dict]) -> list:
    mine = [p for p in played if p["run"] == name]  # the folder's label, whatever name the plan gives
    parts = [Raw(f"<h3>Run {esc(plan.get('name') or name)}</h3>")]
    if not plan:
        return parts + [note("This run has no run.json: its plan is unknown."),
                        table(["variant", "matches played"], [[p["variant"], p["matches"]] for p in mine], {1})]
    seeds = plan.get("deal_seeds") or []
    shown = ", ".join(map(str, seeds[:8])) + (f", … ({len(seeds)} in all)" if len(seeds) > 8 else "")
    facts_rows = [
        ["kind", plan.get("kind")], ["game", plan.get("game")], ["format", plan.get("format")],
        ["challenger", plan.get("challenger") or DASH], ["players", plan.get("players")],
        ["deal sets", plan.get("deal_sets")], ["duplicate deals", yes_no(plan.get("duplicate"))],
        ["design", plan.get("design", "duplicate" if plan.get("duplicate", True) else "independent")
         + (f" ({plan['design_reason']})" if plan.get("design_reason") else "")],
        ["seed", plan.get("seed")], ["deal seeds", shown or DASH],
        ["options", ", ".join(f"{k}={v}" for k, v in (plan.get("options") or {}).items()) or DASH],
        ["matches planned", len(plan.get("matches") or [])],
        ["matches played", sum(p["matches"] for p in mine)],
        ["made by", f"ellibir {plan.get('project_version', 'unknown')}"],
    ]
    bots = [[b.get("label"), b.get("kind"), b.get("name"), b.get("version"), b.get("hash") or DASH]
            for b in plan.get("bots") or []]
    played_by_variant = {p["variant"]: p["matches"] for p in mine}
    planned = {}
    for match in plan.get("matches") or []:
        planned[match.get("variant")] = planned.get(match.get("variant"), 0) + 1
    variants = [[Raw(f"<code class=id>{esc(v.get('id'))}</code>"),
                 rules_text(v["fields"]) if v.get("fields") else "(base)",
                 planned.get(v.get("id"), 0), played_by_variant.get(v.get("id"), 0), rules_text(v.get("rules"))]
                for v in plan.get("variants") or []]
    return parts + [
        table(["", ""], facts_rows),
        Raw("<h4>Bots</h4>"), table(["label", "kind", "name", "version", "hash"], bots),
        Raw("<h4>Variants</h4>"), table(["id", "varied fields", "planned", "played", "rules"], variants, {2, 3}),
    ]


def method_section(runs: Runs, found: dict, made: str) -> Raw:
    parts = [Raw(f"<p>Report made {esc(made)} from {len(runs.dirs)} run folder(s) of game "
                 f"<b>{esc(runs.game)}</b>.</p>")]
    for name, plan in zip(runs.names, runs.plans):
        parts.append(details(f"Run {plan.get('name') or name}", run_block(name, plan, found["played"])[1:]))
    recorded = table(["bot", "version", "hash", "matches"],
                     [[b["bot"], b["bot_version"], b["bot_hash"] or DASH, b["matches"]] for b in found["bots"]], {3})
    parts.append(details("Bots as recorded in the results", [recorded]))
    parts.append(details("Software", [table(["package", "version"], list(versions().items()))]))
    return section("method", "How the runs were made", parts)


# The page ----------------------------------------------------------------------------------------


def render(runs: Runs, ratings_doc, ratings_why, balance_doc, balance_why, found: dict, title: str, made: str,
           sprt_docs=(), viewers=None) -> str:
    """The whole page, as text."""
    for i, v in enumerate(variants_of(balance_doc)):  # one colour per variant in every plot
        v.setdefault("colour", plots.COLOURS[i % len(plots.COLOURS)])
    skill = skill_section(balance_doc)
    sections = [
        more.summary_section(ratings_doc, balance_doc, pooling_warnings(runs)),
        leaderboard_section(ratings_doc, ratings_why),
        pairwise_section(ratings_doc, ratings_why),
        seats_section(balance_doc, balance_why, (_docs(ratings_doc) or [None])[0]),
        round_length_section(balance_doc, balance_why),
        balance_section(balance_doc, balance_why),
        *([skill] if skill else []),
        *([more.sprt_section(list(sprt_docs))] if sprt_docs else []),
        more.faults_section(runs),
        bots_section(runs),
        more.matches_section(runs, viewers or {}, {v.get("variant"): v.get("label") for v in variants_of(balance_doc)}),
        method_section(runs, found, made),
    ]
    shown = [(i, h) for i, h in zip(SECTIONS, HEADINGS)]
    if skill:
        shown.insert(6, ("skill", SKILL_HEADING))
    if sprt_docs:
        shown.insert(6 + bool(skill), ("sprt", "SPRT"))
    nav = "".join(f'<a href="#{ident}">{esc(h)}</a>' for ident, h in shown)
    runs_text = ", ".join(runs.names)
    return (
        "<!DOCTYPE html>\n<html lang=en>\n<head>\n<meta charset=utf-8>\n"
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name=viewport content="width=device-width, initial-scale=1">\n'
        f"<title>{esc(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
        f"<header><h1>{esc(title)}</h1><p class=sub>Game {esc(runs.game)}; runs {esc(runs_text)}; made {esc(made)}."
        f"</p><nav>{nav}</nav></header>\n<main>\n" + "\n".join(sections) + "\n</main>\n</body>\n</html>\n"
    )


def _atomic_write(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors="replace") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class ReportError(ValueError):
    """A report that cannot be written where asked."""


def viewers_folder(path) -> Path:
    """Where a report's match viewers go: ``REPORT-matches/`` next to it."""
    path = Path(path)
    return path.with_name(f"{path.stem}-matches")


def check_target(path) -> Path:
    if str(path) == "-":  # a file named -, and a folder named --matches beside it
        raise ReportError("--html - : the report is a file, with its viewers in a folder beside it; give its name")
    path = Path(path)
    from .integrity import check_output

    check_output(path, "the report")
    if path.is_dir():
        raise ReportError(f"{path}: is a folder; give the report file's name")
    folder = viewers_folder(path)
    if (folder.exists() or folder.is_symlink()) and not folder.is_dir():  # a file, or a dangling link
        raise ReportError(f"{folder}: not a folder; the report's match viewers go there: move it, or name the "
                          f"report otherwise")
    if not path.parent.is_dir():
        problem = "is not a folder" if path.parent.exists() else "does not exist"
        raise ReportError(f"{path}: its folder {path.parent} {problem}")
    if not os.access(path.parent, os.W_OK):
        raise ReportError(f"{path}: cannot write in {path.parent}")
    return path


def write_report(runs, path, title=None, include_incomplete: bool = False, viewers=None, compare=None,
                 baseline: str | None = None, margin=None, exploratory: bool = False, anchor: str | None = None,
                 reference: str | None = None) -> Path:
    """Write the report of ``runs`` (a ``Runs``, or run folders) to ``path``, atomically; returns the path.
    ``include_incomplete``: the ratings count faulted and early-ended matches too (as ``ratings`` does).
    ``viewers``: (run label, match id) -> a viewer file's path relative to the report, linked from the list
    (or a function that writes them and returns that, called once the analyses have taken the options).
    ``compare`` (["A:B", ...]), ``baseline``, ``margin``, ``exploratory``: the comparisons of the balance
    section, as ``balance`` takes them; ``anchor`` and ``reference``: the bot at 1500, as
    ``ratings_by_rules`` takes them (one leaderboard per table size and rules)."""
    from .balance import BalanceError, balance
    from .comparisons import CompareError
    from .ratings import ratings_by_rules

    path = check_target(path)
    if not isinstance(runs, Runs):
        runs = open_runs(runs)
    ratings_doc, ratings_why = _attempt(
        lambda r: ratings_by_rules(r, anchor=anchor, reference=reference, include_incomplete=include_incomplete), runs)
    balance_doc, balance_why = _attempt(
        lambda r: balance(r, margin=margin, exploratory=exploratory, compare_pairs=compare, baseline=baseline,
                          reference=reference), runs,
        (BalanceError, CompareError))
    if callable(viewers):  # written only once the analyses took the options
        viewers = viewers()
    made = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    title = title or f"ellibir report: {', '.join(runs.names)}"
    text = render(runs, ratings_doc, ratings_why, balance_doc, balance_why, facts(runs), title, made, more.sprt_docs(runs),
                  viewers)
    try:
        _atomic_write(path, text)
    except OSError as e:
        raise ReportError(f"{path}: cannot write ({e.strerror or e})") from None
    return path


__all__ = ["CSP", "SECTIONS", "ReportError", "render", "viewers_folder", "write_report"]
