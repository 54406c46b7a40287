"""The skill section of ``ellibir balance`` as rich tables (a skill study's runs; results/skill_balance.py)."""

from __future__ import annotations

from rich import box
from rich.table import Table

from results.numbers import fixed


def _name(label: str) -> str:
    return str(label).removeprefix("builtin:")


def _est(x: dict, digits: int = 1) -> str:
    if x.get("estimate") is None:
        return "—"
    band = "" if x.get("lo") is None else f" [{fixed(x['lo'], digits, True)}, {fixed(x['hi'], digits, True)}]"
    return f"{fixed(x['estimate'], digits, True)}{band}"


def _table(title: str, *columns: str) -> Table:
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    for i, name in enumerate(columns):
        table.add_column(name, justify="left" if i == 0 else "right")
    return table


def skill_tables(v: dict) -> list:
    """The tables of one variant's ``skill`` object."""
    s = v.get("skill")
    if not s:
        return []
    if s.get("error"):
        return [f"skill ({v['label']}): {s['error']}"]
    out = []
    gaps = _table(f"skill gaps ({v['label']}): points a round gained over copies of the bot below, 95% bootstrap "
                  f"interval over deal sets", "rung", "gap", "deal sets")
    for g in s["gaps"]:
        gaps.add_row(f"{_name(g['strong'])} over {_name(g['weak'])}", _est(g), str(g["deal_sets"]))
    out.append(gaps)
    rungs = (s.get("trace") or {}).get("rungs") or []
    if rungs:
        trace = _table(f"skill trace ({v['label']}): Elo of each rung, 95% interval",
                       "bot", "Elo", "interval")
        for r in rungs:
            shown = r.get("rating") is not None
            trace.add_row(_name(r["bot"]), f"{r['rating']:.0f}" if shown else "—",
                          f"{r['lo']:.0f} – {r['hi']:.0f}" if shown and r.get("lo") is not None else "—")
        trace.caption = s["trace"].get("scale")
        out.append(trace)
    elif (s.get("trace") or {}).get("error"):
        out.append(f"skill trace ({v['label']}): {s['trace']['error']}")
    if s["levels"]:
        levels = _table(f"skill level ({v['label']}): learning / (learning + chance), Borm and van der Genugten",
                        "beginner", "level", "learning", "chance", f"deal sets for ±{s['levels'][0]['for_margin']['margin']:g}")
        for x in s["levels"]:
            need = x["for_margin"]["deal_sets"]
            levels.add_row(_name(x["beginner"]), _est(x, 2), _est(x["learning"]), _est(x["chance"]),
                           "—" if need is None else f"{need:,}")
        levels.caption = (f"best real player {_name(s['levels'][0]['best'])}, fictive player "
                          f"{_name(s['levels'][0]['fictive'])} (sees every hand and the stock); points a round")
        out.append(levels)
        out += [f"skill level ({v['label']}) {x['note']}" for x in s["levels"] if x.get("note")]
    if s["restricted"]:
        lost = _table(f"restricted play ({v['label']}): points a round lost with one mechanic taken away",
                      "bot", "loss", "deal sets")
        for x in s["restricted"]:
            lost.add_row(_name(x["bot"]), _est(x), str(x["deal_sets"]))
        out.append(lost)
    if s.get("play"):
        play = _table(f"play by skill level ({v['label']}): the all-same control tables", "level", "first player's edge",
                      "lead changes", "winner's margin", "leader after round 1 wins", "median round (turns)")
        for p in s["play"]:
            fp, dec = p["first_player"], p["decisiveness"]
            band = "" if fp.get("edge_lo") is None else f" [{fixed(fp['edge_lo'], 1, True)}, {fixed(fp['edge_hi'], 1, True)}]"  # none: one deal set
            edge = "—" if fp["edge"] is None else f"{fixed(fp['edge'], 1, True)} pts{band}"
            median = p["survival"]["median"]
            play.add_row(_name(p["level"]), edge, f"{p['lead_changes']['mean']:.2f}", f"{p['margin']['mean']:.1f}",
                         "—" if not dec or dec[0]["rate"] is None else f"{100 * dec[0]['rate']:.0f}%",
                         "—" if median is None else f"{median:g}")
        play.caption = "round length: Kaplan–Meier, void rounds censored"
        out.append(play)
    return out


__all__ = ["skill_tables"]
