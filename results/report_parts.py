"""The report's sections for readers in a hurry and for bot authors: the summary in words, the SPRT
of a run that had one, faults and penalties per bot, and the list of matches with a CSS-only filter.

Data comes from the same documents (``ratings``, ``balance``) and lazy queries as the rest of the
report; the page keeps no script (results/report.py), so the match filter is radio buttons and CSS.
"""

from __future__ import annotations

import shlex

import polars as pl

from . import plots, words
from .page import DASH, Raw, details, esc, figure, note, num, section, table
from .runs import Runs

MAX_LISTED = 300  # matches listed in the page; the rest are counted and reachable with `ellibir replay`
MAX_IDS = 5  # match ids shown per bot and fault kind


# The summary -------------------------------------------------------------------------------------


def summary_section(ratings_doc, balance_doc, pooled: list[str] = ()) -> Raw:
    """The headline (three to five sentences, largest first), the warnings, and the details folded."""
    said = words.summary(ratings_doc, balance_doc, pooled)
    parts = []
    top = [s for s in said if s.kind == "headline"]
    if top:
        items = "".join(f'<li data-kind="headline">{esc(s.text)}</li>' for s in top)
        parts.append(Raw(f"<ol class=headline>{items}</ol>"))
    warned = [s for s in said if s.kind == "warning"]
    if warned:
        items = "".join(f'<li data-kind="warning">{esc(s.text)}</li>' for s in warned)
        parts.append(Raw(f"<h3>Warnings</h3><ul class=said>{items}</ul>"))
    for kind, heading in (("bots", "Every bot, neighbour by neighbour"), ("variants", "Every compared quantity")):
        mine = [s for s in said if s.kind == kind]
        if mine:
            items = "".join(f'<li data-kind="{kind}">{esc(s.text)}</li>' for s in mine)
            parts.append(details(heading, [Raw(f"<ul class=said>{items}</ul>")]))
    if not parts:
        parts.append(note("Nothing to summarise: no ratings and no variant comparisons."))
    return section("summary", "In short", parts)


# Variant comparisons as a forest plot -----------------------------------------------------------


def forest_rows(doc) -> list[dict]:
    """The forest plot's rows: every compared quantity that varies (not the same figure as another,
    not the same in every deal set), in three panels with one scale each: shares in percentage
    points (the positions' shares among them), lengths in percent change, and the rest as they are."""
    labels = {v.get("variant"): v.get("label") for v in (doc or {}).get("variants") or []}
    players = len(((doc or {}).get("variants") or [{}])[0].get("positions") or []) or None
    comparisons = (doc or {}).get("comparisons") or []
    several = len({(c.get("a"), c.get("b")) for c in comparisons}) > 1
    rows = []
    for c in comparisons:
        if c.get("same_as") or not plots.finite(c.get("diff")) or words.verdict(c) == "untested":
            continue
        metric = c["metric"]
        if words.is_rate(metric):
            scale, panel = 100.0, "shares: percentage points"
        elif metric in words.RATIOS and plots.finite(c.get("mean_a")) and c["mean_a"]:
            scale, panel = 100.0 / c["mean_a"], "lengths: percent change"
        elif metric.startswith(words.SKILL_GAP):
            scale, panel = 1.0, "skill gaps: points a round"
        else:
            scale, panel = 1.0, words.short_name(metric, players)
        pair = f"{labels.get(c.get('b'), c.get('b'))} vs {labels.get(c.get('a'), c.get('a'))}: " if several else ""
        rows.append({"label": pair + words.short_name(metric, players), "panel": panel,
                     "significant": c.get("significant") and c.get("family") != "exploratory",
                     **{k: c[k] * scale if plots.finite(c.get(k)) else None for k in ("diff", "lo", "hi")}})
    order = {"shares: percentage points": 0, "lengths: percent change": 1}
    return sorted(rows, key=lambda r: order.get(r["panel"], 2))


def forest_caption(doc) -> str:
    pairs = list(dict.fromkeys((c.get("a"), c.get("b")) for c in (doc or {}).get("comparisons") or []))
    labels = {v.get("variant"): v.get("label") for v in (doc or {}).get("variants") or []}
    which = f"{labels.get(pairs[0][1])} minus {labels.get(pairs[0][0])}" if len(pairs) == 1 else "B minus A"
    return (f"Each compared quantity that varies: {which}, with its 95% interval over deal sets; filled points are "
            "differences shown after adjustment, hollow ones are not.")


def forest_figure(doc) -> Raw | None:
    rows = forest_rows(doc)
    if not rows:
        return None
    return Raw('<div class=forest>' + esc(figure(plots.forest(rows), forest_caption(doc))) + "</div>")


# SPRT --------------------------------------------------------------------------------------------


def sprt_docs(runs: Runs) -> list[dict]:
    """The SPRT of each run whose plan has one, computed from its stored matches now."""
    from .sprt import SprtError, sprt

    out = []
    for name, d, plan in zip(runs.names, runs.dirs, runs.plans):
        settings = plan.get("sprt") if plan else None
        if not settings:
            continue
        one = Runs(runs.game, [d], [plan])
        keys = ("elo0", "elo1", "alpha", "beta")
        try:
            doc = sprt(one, settings["bot"], settings.get("vs"), **{k: settings[k] for k in keys if k in settings})
        except (SprtError, KeyError, ValueError) as e:
            out.append({"run": name, "error": str(e)})
            continue
        out.append({"run": name, **doc})
    return out


def sprt_section(docs: list[dict]) -> Raw:
    from .sprt import elo_words, verdict_claim

    parts = []
    for doc in docs:
        if "error" in doc:
            parts.append(note(f"Run {doc['run']}: no SPRT: {doc['error']}"))
            continue
        vs = doc.get("vs")
        vs = ", ".join(vs) if isinstance(vs, list) else vs
        claim = verdict_claim(doc, doc["bot"], vs)
        verdict = f"{claim} ({doc['verdict']} accepted)" if claim else "no verdict yet (continue)"
        parts.append(Raw(f"<h3>Run {esc(doc['run'])}: {esc(doc['bot'])} against {esc(vs)}</h3>"
                         f"<p>Verdict: <strong>{esc(verdict)}</strong>.</p>"))
        parts.append(table(["", ""], [
            ["hypotheses (Elo)", f"H0: {num(doc.get('elo0'))}, H1: {num(doc.get('elo1'))}"],
            ["alpha, beta", f"{doc.get('alpha')}, {doc.get('beta')}"],
            ["log-likelihood ratio", num(doc.get("llr"), 3)],
            ["bounds", f"{num(doc.get('lower'), 3)} {DASH} {num(doc.get('upper'), 3)}"],
            ["deal sets (complete)", doc.get("deal_sets")],
            ["matches", doc.get("matches")],
            ["score", num(doc.get("score"), 3)],
            ["Elo (95% interval)", elo_words(doc, num)],
            ["deal sets still needed", remaining_text(doc)],
        ]))
    return section("sprt", "SPRT", parts)


def remaining_text(doc: dict) -> str:
    """How far the test is from a verdict, in words."""
    if doc.get("verdict") in ("H0", "H1"):
        return "none: decided"
    left = doc.get("remaining")
    if left is not None:
        return f"about {left:,} more, if the deal sets to come score like those so far"
    if doc.get("symmetric"):
        return ("none in sight: the hypotheses are symmetric about 0, and bots that split their deal sets evenly "
                "sit halfway between them (use elo0 = 0)")
    return "none in sight at this pace: the estimate lies between the hypotheses"


# Faults, penalties and refusals per bot ----------------------------------------------------------


def fault_rows(runs: Runs) -> pl.DataFrame:
    """One row per faulty seat: run, match id, bot, kind, reason."""
    return (runs.matches.filter(pl.col("faults") > 0)
            .select("run", "match_id", "bot", pl.col("termination").alias("kind"), "fault_reason", "faults")
            .sort("bot", "kind", "run", "match_id").collect())


def penalty_rows(runs: Runs) -> pl.DataFrame:
    """Per bot and penalty rule: the penalties (the rounds' ``pen_<RULE>`` columns count them), the rounds
    penalised, and the points they cost (each ``GameSpec.penalty_points[RULE]`` in a scored round; a void
    round scores nothing)."""
    from engine.game import get_game

    rounds = runs.rounds
    cols = [c for c in rounds.collect_schema().names() if c.startswith("pen_")]
    if not cols:
        return pl.DataFrame()
    points = get_game(runs.game).penalty_points or {}
    long = (rounds.filter(~pl.col("stand_in")).select("bot", "void", *cols)  # the bot's own rounds
            .unpivot(index=["bot", "void"], on=cols, variable_name="rule", value_name="count")
            .with_columns(pl.col("rule").str.strip_prefix("pen_"), pl.col("count").fill_null(0))
            .with_columns(pl.when(pl.col("void")).then(0)
                          .otherwise(pl.col("count") * pl.col("rule").replace_strict(points, default=0))
                          .alias("points")))
    return (long.group_by("bot", "rule")
            .agg(pl.col("count").sum().alias("penalties"), (pl.col("count") != 0).sum().alias("rounds"),
                 pl.col("points").sum().alias("points"))
            .sort("bot", "rule").collect())


MAX_LOGS = 5000  # match logs read for the refusals; a bigger run is counted in its first MAX_LOGS


def refusal_rows(runs: Runs, limit: int = MAX_LOGS) -> tuple[list[dict], int]:
    """(refusals per bot and rule from the kept match logs: bot, rule, refusals, matches; the logs read)."""
    import json

    from .store import iter_logs

    seats = {(r["run"], r["match_id"], r["seat"]): r["bot"]
             for r in runs.matches.select("run", "match_id", "seat", "bot").collect().iter_rows(named=True)}
    counts, matches, read = {}, {}, 0
    for name, d in zip(runs.names, runs.dirs):
        for match_id, text in iter_logs(d):
            if read >= limit:
                break
            read += 1
            for line in text.splitlines():
                if '"refused"' not in line:
                    continue
                e = json.loads(line)
                if e.get("e") != "refused":
                    continue
                key = (seats.get((name, match_id, e.get("seat")), f"seat {e.get('seat')}"), e.get("rule") or DASH)
                counts[key] = counts.get(key, 0) + 1
                matches.setdefault(key, set()).add(match_id)
    rows = [{"bot": b, "rule": r, "refusals": n, "matches": len(matches[(b, r)])} for (b, r), n in sorted(counts.items())]
    return rows, read


def faults_section(runs: Runs) -> Raw:
    faults, penalties = fault_rows(runs), penalty_rows(runs)
    bots = runs.matches.select(pl.col("bot").unique()).collect()["bot"].sort().to_list()
    parts = [Raw("<h3>Faults per bot</h3>")]
    if faults.height:
        rows = []
        for (bot, kind), g in faults.group_by(["bot", "kind"], maintain_order=True):
            reasons = sorted({r for r in g["fault_reason"].to_list() if r})
            ids = g["match_id"].to_list()
            rows.append([bot, kind, g.height, "; ".join(reasons[:3]) + (" …" if len(reasons) > 3 else "") or DASH,
                         ", ".join(ids[:MAX_IDS]) + (f" … ({len(ids)} in all)" if len(ids) > MAX_IDS else "")])
        parts.append(table(["bot", "kind", "matches", "reasons", "match ids"], rows, {2}))
    clean = [b for b in bots if b not in set(faults["bot"].to_list())]
    if clean:
        parts.append(Raw(f"<p>No fault: {esc(', '.join(clean))}.</p>"))
    parts.append(Raw("<h3>Penalties per bot</h3>"))
    if penalties.height:
        rows = [[r["bot"], r["rule"], r["penalties"], r["rounds"], r["points"]] for r in penalties.iter_rows(named=True)]
        parts.append(table(["bot", "rule", "penalties", "rounds penalised", "points"], rows, {2, 3, 4}))
        parts.append(Raw("<p class=sub>A refused decision is penalised only where a rule says so (a refused "
                         "opening: O4).</p>"))
    else:
        parts.append(note("This game records no penalties in its results."))
    refusals, read = refusal_rows(runs)
    parts.append(Raw("<h3>Refusals per bot</h3>"))
    if refusals:
        parts.append(table(["bot", "rule", "refusals", "matches"],
                           [[r["bot"], r["rule"], r["refusals"], r["matches"]] for r in refusals], {2, 3}))
    else:
        parts.append(Raw(f"<p>No refused decision in the {read} match logs read.</p>" if read else
                         "<p class=note>No match logs kept: refusals cannot be counted.</p>"))
    if read >= MAX_LOGS:
        parts.append(note(f"Refusals counted in the first {MAX_LOGS} match logs only."))
    return section("faults", "Faults, penalties and refusals", parts)


# The match list ----------------------------------------------------------------------------------


def match_rows(runs: Runs) -> pl.DataFrame:
    """One row per match: run, id, variant, deal set, bots by seat with ranks, its end, its faults, and
    from its rounds: deals, turns, void rounds and the finishes its won rounds had (``finish_<X>``)."""
    m = runs.matches
    out = (m.sort("seat").group_by("run", "match_id", maintain_order=False)
           .agg(pl.col("variant").first(), pl.col("deal_set").first(), pl.col("bot"), pl.col("rank"),
                pl.col("termination").filter(pl.col("faults") == 0).first().alias("end"),
                pl.col("termination").filter(pl.col("faults") > 0).alias("fault_kinds"),
                pl.col("faults").sum().alias("faults")))
    rounds = runs.rounds
    finishes = [c for c in rounds.collect_schema().names() if c.startswith("finish_")]
    first = rounds.filter(pl.col("seat") == pl.col("seat").min().over("run", "match_id"))
    per = first.group_by("run", "match_id").agg(
        pl.len().alias("deals"), pl.col("turns").sum().alias("turns"), pl.col("void").sum().alias("voids"))
    if finishes:
        won = (rounds.group_by("run", "match_id")
               .agg(pl.concat_list([pl.when(pl.col(f).fill_null(False).any()).then(pl.lit(f[len("finish_"):]))
                                    for f in finishes]).list.drop_nulls().alias("finishes")))
        per = per.join(won, on=["run", "match_id"], how="left")
    else:
        per = per.with_columns(pl.lit([], dtype=pl.List(pl.String)).alias("finishes"))
    return (out.join(per, on=["run", "match_id"], how="left")
            .sort(pl.col("faults") == 0, "run", "match_id").collect())


def _token(value, known: list) -> int:
    if value not in known:
        known.append(value)
    return known.index(value)


FILTERS = (("fb", "bot", "b"), ("fv", "variant", "v"), ("fo", "end", "o"), ("fw", "void rounds", "w"),
           ("fg", "finish", "g"), ("ff", "fault", "f"))


def matches_section(runs: Runs, viewers: dict | None = None, labels: dict | None = None) -> Raw:
    """``viewers``: (run label, match id) -> the path of a viewer file written next to the report;
    ``labels``: variant id -> its label (the fields that differ)."""
    viewers, labels = viewers or {}, labels or {}
    rows = match_rows(runs)
    total = rows.height
    dirs = dict(zip(runs.names, runs.dirs))
    seen = {key: [] for _, _, key in FILTERS}
    seen["f"], seen["w"] = ["without", "with a fault"], ["none void", "some void"]  # fixed classes: f1 has a fault
    body = []
    for r in rows.head(MAX_LISTED).iter_rows(named=True):
        end = r["end"] or "faulted"
        variant = labels.get(r["variant"], r["variant"])
        finishes = r.get("finishes") or []
        classes = ["m", f"o{_token(end, seen['o'])}", f"v{_token(variant, seen['v'])}",
                   f"f{_token('with a fault' if r['faults'] else 'without', seen['f'])}",
                   f"w{_token('some void' if r.get('voids') else 'none void', seen['w'])}"]
        classes += sorted({f"b{_token(b, seen['b'])}" for b in r["bot"]})
        classes += sorted({f"g{_token(g, seen['g'])}" for g in finishes} or {f"g{_token('no finish', seen['g'])}"})
        # one line a seat: a version may hold ", builtin:greedy (1)", never a line break
        seats = Raw("".join(f"<span class=seat>{esc(f'{b} ({k})')}</span>" for b, k in zip(r["bot"], r["rank"])))
        command = f"ellibir replay {shlex.quote(str(dirs.get(r['run'], r['run'])))} {shlex.quote(r['match_id'])} " \
                  f"--html {shlex.quote(r['match_id'] + '.html')}"
        faults = ", ".join(sorted(set(r["fault_kinds"]))) if r["faults"] else DASH
        watch = Raw(f"<code>{esc(command)}</code>")
        if (r["run"], r["match_id"]) in viewers:
            watch = Raw(f'<a class=viewer href="{esc(viewers[(r["run"], r["match_id"])])}">open the viewer</a>')
        cells = [r["run"], Raw(f"<code class=id>{esc(r['match_id'])}</code>"), variant, r["deal_set"], seats,
                 r.get("deals"), r.get("turns"), r.get("voids"), ", ".join(finishes) or DASH, end, faults, watch]
        body.append(f'<tr class="{" ".join(classes)}">' + "".join(f"<td>{esc(c)}</td>" for c in cells) + "</tr>")
    head = "".join(f"<th>{h}</th>" for h in ("run", "match", "variant", "deal set", "bots (rank)", "deals", "turns",
                                             "void rounds", "finishes", "end", "faults", "watch it"))
    listed = min(total, MAX_LISTED)
    said = (f"All {total} matches, faulted ones first." if total <= MAX_LISTED else
            f"{listed} of {total} matches, faulted ones first; any other match: "
            "ellibir replay RUN MATCH_ID --html FILE.")
    controls = _filter(seen)
    listing = Raw(f'<div class=filter>{controls}<div class=scroll><table id=match-list><thead><tr>{head}</tr>'
                  f'</thead><tbody>{"".join(body)}</tbody></table></div></div>')
    return section("matches", "Matches", [
        Raw(f"<p>{esc(said)} Each row links to the match's viewer when it was written next to this report, else "
            "gives the command that writes it.</p>"),
        details(f"The list: filter by bot, variant, end, void rounds, finish and fault", [listing]),
    ])


def _filter(seen: dict) -> str:
    """Radio groups placed before the table, one per filter of ``FILTERS`` (``seen``: each group's
    values, in the order of their class numbers), and the CSS rules that hide rows."""
    html, css = [], []
    for name, heading, key in FILTERS:
        options = [(f"{key}{i}", value) for i, value in enumerate(seen.get(key) or [])]
        if len(options) < 2 and key not in ("b", "f"):
            continue  # nothing to choose between
        html.append(f'<b>{heading}:</b> <input type=radio name={name} id={name}-all checked>'
                    f'<label for={name}-all>all</label>')
        for cls, label in options:
            ident = f"{name}-{cls}"
            html.append(f"<input type=radio name={name} id={ident}><label for={ident}>{esc(label)}</label>")
            css.append(f"#{ident}:checked~.scroll tr.m:not(.{cls})")
        html.append("<br>")
    # The inputs sit directly in .filter, so `~ .scroll` reaches the table from any of them.
    style = f"<style>{','.join(css)}{{display:none}}</style>" if css else ""
    return style + "".join(html)


__all__ = ["MAX_LISTED", "faults_section", "forest_figure", "forest_rows", "match_rows", "matches_section", "sprt_docs",
           "sprt_section", "summary_section"]
