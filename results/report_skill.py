"""The report's section on skill, for a skill study's runs (``balance``'s ``skill`` objects,
results/skill_balance.py): which variant rewards skill more, the skill trace (the Elo of each rung),
skill gaps, skill levels, restricted-play losses and how the game plays at each skill level."""

from __future__ import annotations

from . import plots
from .numbers import fixed
from .page import DASH, Raw, details, esc, figure, note, num, section, table

HEADING = "Skill"


def _name(label) -> str:
    return str(label).removeprefix("builtin:")


def _est(x: dict, digits: int = 1) -> str:
    if not plots.finite(x.get("estimate")):
        return DASH
    band = f" [{fixed(x['lo'], digits, True)}, {fixed(x['hi'], digits, True)}]" if plots.finite(x.get("lo")) and plots.finite(x.get("hi")) else ""
    return f"{fixed(x['estimate'], digits, True)}{band}"


def trace(variants: list[dict]) -> Raw | None:
    """The skill trace of each variant (``balance``'s ``skill.trace``): one line per variant."""
    series = []
    for v in variants:
        rungs = ((v.get("skill") or {}).get("trace") or {}).get("rungs") or []
        points = [(r["bot"], r.get("rating"), r.get("lo"), r.get("hi")) for r in rungs if plots.finite(r.get("rating"))]
        if points:
            series.append((v.get("label", ""), v.get("colour"), points))
    if not series:
        return None
    return figure(plots.skill_trace(series), "The skill trace: the Elo of each rung of the ladder, weakest first, with "
                                             "95% intervals, on each variant's own scale (the matches of its rules; "
                                             "the reference bot at 1500 where it played).")


def survival_figure(variants: list[dict]) -> Raw | None:
    """Round length by skill level and variant: one colour per variant, one line style per level."""
    levels: list = []
    series = []
    for v in variants:
        for p in (v.get("skill") or {}).get("play") or []:
            steps = (p.get("survival") or {}).get("steps") or []
            if not steps:
                continue
            if p["level"] not in levels:
                levels.append(p["level"])
            series.append((f"{v.get('label')}, {_name(p['level'])}", v.get("colour"), levels.index(p["level"]), steps))
    if not series:
        return None
    return figure(plots.survival(series), "Round length at each skill level (the all-same control tables): the share "
                                          "of rounds still going after so many turns, a void round censored at its "
                                          "length (Kaplan–Meier); a level whose rounds are all void has no curve.")


def variant_parts(v: dict) -> list:
    s = v.get("skill") or {}
    if s.get("error"):
        return [note(f"{v.get('label')}: {s['error']}")]
    parts = [table(["rung", "skill gap (points a round) [95% interval]", "deal sets"],
                   [[f"{_name(g['strong'])} over {_name(g['weak'])}", _est(g), g["deal_sets"]] for g in s.get("gaps") or []],
                   {1, 2})]
    if s.get("levels"):
        parts.append(table(["beginner", "skill level", "learning", "chance", "deal sets for ±0.05"],
                           [[_name(x["beginner"]), _est(x, 2), _est(x["learning"]), _est(x["chance"]),
                             DASH if not (x.get("for_margin") or {}).get("deal_sets") else f"{x['for_margin']['deal_sets']:,}"]
                            for x in s["levels"]], {1, 2, 3, 4}))
        parts += [note(f"Skill level {x['note']}.") for x in s["levels"] if x.get("note")]
    if s.get("restricted"):
        parts.append(table(["restricted bot", "points a round lost [95% interval]", "deal sets"],
                           [[_name(x["bot"]), _est(x), x["deal_sets"]] for x in s["restricted"]], {1, 2}))
    if s.get("play"):
        rows = []
        for p in s["play"]:
            fp, dec, surv = p["first_player"], p.get("decisiveness") or [], p.get("survival") or {}
            edge = _est({"estimate": fp.get("edge"), "lo": fp.get("edge_lo"), "hi": fp.get("edge_hi")})
            rows.append([_name(p["level"]), edge, num((p.get("lead_changes") or {}).get("mean"), 2),
                         num((p.get("margin") or {}).get("mean")),
                         ", ".join(f"{100 * d['comeback']:.0f}%" for d in dec if plots.finite(d.get("comeback"))) or DASH,
                         num(surv.get("median"), 0)])
        parts.append(table(["skill level (control tables)", "first player's edge (points)", "lead changes",
                            "winner's margin", "comebacks after round 1, 2, …", "median round (turns)"], rows,
                           {1, 2, 3, 4, 5}))
        at = [t for t, _ in (s["play"][0].get("survival") or {}).get("curve") or []]
        if at:
            parts.append(table(["skill level"] + [f"going after {t} turns" for t in at] + ["void (censored)"],
                               [[_name(p["level"])] + [f"{100 * v:.0f}%" for _, v in p["survival"]["curve"]]
                                + [f"{p['survival']['censored']} of {p['survival']['rounds']}"] for p in s["play"]],
                               set(range(1, len(at) + 2))))
    return parts


def skill_section(balance_doc) -> Raw | None:
    """The section, or None for runs that are no skill study."""
    doc = balance_doc or {}
    if not doc.get("skill"):
        return None
    variants = doc.get("variants") or []
    warnings = [w for w in doc.get("warnings") or [] if "changes sign with skill" in w]
    parts = [Raw(f"<p><strong>{esc(doc['skill']['summary'])}</strong></p>")]
    parts += [Raw(f"<p class=sub>Warning: {esc(w)}.</p>") for w in warnings]
    shown = trace(variants)
    if shown:
        parts.append(shown)
    labels = {v.get("variant"): v.get("label") for v in variants}
    tests = [t for t in doc["skill"].get("survival") or [] if plots.finite(t.get("p"))]
    if tests:
        parts.append(Raw("<p class=sub>Round length, void rounds censored (log-rank, exploratory): " + esc("; ".join(
            f"{labels.get(t['b'], t['b'])} against {labels.get(t['a'], t['a'])} at {_name(t['level'])}: p = {t['p']:.3g}"
            for t in tests)) + ".</p>"))
    curves = survival_figure(variants)
    if curves:
        parts.append(curves)
    for v in variants:
        parts.append(details(f"{v.get('label')}: skill gaps, skill level, restricted play, play by skill level",
                             variant_parts(v), open_=len(variants) == 1))
    parts.append(Raw("<p class=sub>Points a round: a seat's round score, better counted up, over every dealt round. "
                     "A gain is what a bot makes against copies of another bot, less what that bot makes at its own "
                     "all-same table on the same deals. Skill level = learning / (learning + chance), with the best "
                     "real player's gain and the clairvoyant bot's over copies of the beginner (docs/analysis.md). "
                     "Intervals redraw whole deal sets (a seeded bootstrap).</p>"))
    return section("skill", HEADING, parts)


__all__ = ["HEADING", "skill_section"]
