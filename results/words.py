"""The report's summary in plain words, computed from the same documents as its tables.

Every sentence is built from the ``ratings`` and ``balance`` documents (and the numbers are
formatted by the same functions the tables use), so a sentence can never disagree with a table.
Each function returns a list of ``Sentence``: the text, and the figures it quotes (for tests and
for anyone who wants to check a sentence against its table).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

SURE = 0.95  # likelihood of superiority from which one bot is called stronger
LIKELY = 0.80  # ... probably stronger
FEW_DEAL_SETS = 20  # below this, a verdict is rough (the ratings' own threshold)
MANY_VOID = 1 / 3  # a share of void rounds above which the bots may be what is measured
DASH = "\u2013"


@dataclass
class Sentence:
    kind: str  # "bots", "variants" or "warning"
    text: str
    figures: dict = field(default_factory=dict)


def _finite(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def fmt(x, digits: int = 1) -> str:
    return f"{x:,.{digits}f}" if _finite(x) else DASH


def fmt_pct(x, digits: int = 1) -> str:
    return f"{x * 100:.{digits}f}%" if _finite(x) else DASH


def bot_sentences(doc: dict | None) -> list[Sentence]:
    """Who is stronger than whom, neighbour by neighbour down the leaderboard, and how sure."""
    if not doc:
        return []
    bots = [b for b in doc.get("bots") or [] if _finite(b.get("rating"))]
    if len(bots) < 2:
        return [Sentence("bots", "Fewer than two bots have a rating: nothing to compare.")]
    los = {(p.get("a"), p.get("b")): p.get("los") for p in doc.get("pairwise") or []}
    out = [Sentence("bots", f"Strongest: {bots[0]['bot']} (rating {fmt(bots[0]['rating'])}, 95% interval "
                            f"{fmt(bots[0].get('lo'))} {DASH} {fmt(bots[0].get('hi'))}).",
                    {"bot": bots[0]["bot"], "rating": fmt(bots[0]["rating"])})]
    for up, down in zip(bots, bots[1:]):
        p = los.get((up["bot"], down["bot"]))
        if p is None and los.get((down["bot"], up["bot"])) is not None:
            p = 1 - los[(down["bot"], up["bot"])]
        gap = up["rating"] - down["rating"]
        if _finite(p) and p >= SURE:
            verb = "is stronger than"
        elif _finite(p) and p >= LIKELY:
            verb = "is probably stronger than"
        else:
            verb = "cannot be told apart from"
        text = (f"{up['bot']} {verb} {down['bot']}: {fmt(gap)} Elo apart ({fmt(up['rating'])} against "
                f"{fmt(down['rating'])}), likelihood of superiority {fmt_pct(p)}.")
        out.append(Sentence("bots", text, {"a": up["bot"], "b": down["bot"], "rating_a": fmt(up["rating"]),
                                           "rating_b": fmt(down["rating"]), "los": fmt_pct(p), "verb": verb}))
    return out


def variant_sentences(doc: dict | None) -> list[Sentence]:
    """Which chosen variant differences are real (primary family, adjusted), which are not."""
    comparisons = (doc or {}).get("comparisons") or []
    if not comparisons:
        return []
    labels = {v.get("variant"): v.get("label") for v in (doc or {}).get("variants") or []}
    out, quiet = [], []
    for c in comparisons:
        a, b = labels.get(c.get("a"), c.get("a")), labels.get(c.get("b"), c.get("b"))
        figures = {"a": a, "b": b, "metric": c.get("metric"), "diff": fmt(c.get("diff"), 3),
                   "lo": fmt(c.get("lo"), 3), "hi": fmt(c.get("hi"), 3), "p_adj": fmt(c.get("p_adj"), 4)}
        span = f"{figures['diff']} (95% interval {figures['lo']} {DASH} {figures['hi']}, adjusted p {figures['p_adj']})"
        if c.get("significant"):
            family = "" if c.get("family") == "primary" else " (exploratory: a lead to test again, not a verdict)"
            out.append(Sentence("variants", f"Real difference in {c.get('metric')}: {b} minus {a} is {span}{family}.",
                                figures))
        elif c.get("equivalent"):
            out.append(Sentence("variants", f"{a} and {b} are equivalent in {c.get('metric')} within the margin "
                                            f"±{c.get('margin'):g}: the difference is {span}.", figures))
        elif c.get("family") == "primary":
            quiet.append((c.get("metric"), a, b))
            lo, hi = c.get("lo"), c.get("hi")
            if _finite(lo) and _finite(hi) and (lo > 0 or hi < 0):
                out.append(Sentence("variants", f"{c.get('metric')} ({b} minus {a}): {span}. Its interval leaves out "
                                                "0, but not after the adjustment for the comparisons made: a lead "
                                                "to test again, not a verdict.", figures))
    if quiet:
        named = "; ".join(f"{m} ({a} vs {b})" for m, a, b in quiet[:6]) + ("; …" if len(quiet) > 6 else "")
        out.append(Sentence("variants", f"No real difference shown in {len(quiet)} primary comparison(s) after "
                                        f"adjustment: {named}. Not shown is not the same as equal.",
                            {"quiet": len(quiet)}))
    if not any(c.get("significant") for c in comparisons):
        out.insert(0, Sentence("variants", f"None of the {len(comparisons)} variant comparisons shows a real "
                                           "difference after adjustment.", {"compared": len(comparisons)}))
    return out


def warnings(ratings_doc: dict | None, balance_doc: dict | None) -> list[Sentence]:
    """Many void rounds, too few deal sets for a verdict, and the ratings' own warnings."""
    out = []
    for v in (balance_doc or {}).get("variants") or []:
        void = (v.get("void_rate") or {}).get("rate")
        if _finite(void) and void > MANY_VOID:
            out.append(Sentence("warning", f"{fmt_pct(void, 0)} of the rounds of {v.get('label')} are void: you may "
                                           "be measuring the bots, not the variant.",
                                {"variant": v.get("label"), "void": fmt_pct(void, 0)}))
    sets = [v.get("deal_sets") for v in (balance_doc or {}).get("variants") or [] if _finite(v.get("deal_sets"))]
    clusters = (ratings_doc or {}).get("clusters")
    fewest = min(sets + ([clusters] if _finite(clusters) else []), default=None)
    if fewest is not None and fewest < FEW_DEAL_SETS:
        out.append(Sentence("warning", f"Only {fewest} deal sets: too few for a firm verdict (aim for "
                                       f"{FEW_DEAL_SETS} or more); read every interval as rough.",
                            {"deal_sets": fewest}))
    for w in (ratings_doc or {}).get("warnings") or []:
        out.append(Sentence("warning", f"Ratings: {w}."))
    return out


def summary(ratings_doc: dict | None, balance_doc: dict | None) -> list[Sentence]:
    return bot_sentences(ratings_doc) + variant_sentences(balance_doc) + warnings(ratings_doc, balance_doc)


__all__ = ["Sentence", "bot_sentences", "fmt", "fmt_pct", "summary", "variant_sentences", "warnings"]
