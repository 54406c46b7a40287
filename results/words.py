"""The report's summary in plain words, computed from the same documents as its tables.

Every sentence is built from the ``ratings`` and ``balance`` documents, and its numbers are
formatted by the same functions the tables use (``pts``, ``pct``, ``times``), so a sentence can
never disagree with a table. Each function returns a list of ``Sentence``: the text, and the
figures it quotes (for tests, and for anyone who wants to check a sentence against its table).

The summary opens with three to five sentences (``headline``), ordered by the size of what they
say, each with its 95% interval: the largest differences shown between variants, the first
player's share always among them (the designer's first question), and for a single variant the
figures of that variant. Then the details (``bot_sentences``, ``variant_sentences``) and the
warnings. One verdict per quantity:

- **shown**: a planned comparison (primary, or a match-level figure) whose interval, adjusted for
  the comparisons made, leaves out no difference;
- **the same within the margin**: an equivalence shown for a margin given in advance;
- **no change shown**, with the precision reached ("within ±6 points") and the deal sets a finer
  answer would take;
- **a lead**: an exploratory figure whose interval leaves out 0. It was not a planned question, so
  it is never called a difference: check it on new deals.

A metric that is the same figure as another (``same_as``) is said once. Rates are said in percent
and differences of rates in percentage points; turns and match lengths as ratios.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .numbers import fixed
from .precision import deal_sets_for
from .skill import SKILL_GAP, rung  # a skill study's skill × variant rows, in points a round

SURE = 0.95  # likelihood of superiority from which one bot is called stronger
LIKELY = 0.80  # ... probably stronger
FEW_DEAL_SETS = 20  # below this, a verdict is rough (the ratings' own threshold)
MANY_VOID = 1 / 3  # a share of void rounds above which the bots may be what is measured
CLOSE_BOTS = 50.0  # Elo: bots closer than this cannot answer a question about skill
FINER = 2.0  # points: the margin the precision planner is asked about for a share that shows no change
HEADLINE = (3, 5)  # the fewest and most sentences of the headline
DASH = "\u2013"
RATIO_WORDS = {"turns": ("a round", "turns"), "match_turns": ("a match", "turns"), "match_deals": ("a match", "deals")}
RATIOS = tuple(RATIO_WORDS)  # said as "x times"


@dataclass
class Sentence:
    kind: str  # "headline", "bots", "variants" or "warning"
    text: str
    figures: dict = field(default_factory=dict)
    size: float = 0.0  # what the headline orders by


def _finite(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def fmt(x, digits: int = 1) -> str:
    return fixed(x, digits, comma=True) if _finite(x) else DASH


def fmt_pct(x, digits: int = 1) -> str:
    return f"{fixed(x * 100, digits)}%" if _finite(x) else DASH


def pct(x) -> str:
    """A rate in percent, as the tables show it: 37.2%."""
    return fmt_pct(x, 1)


def pts(x, sign: bool = True) -> str:
    """A difference of rates in percentage points, as the tables show it: +36.2."""
    return fixed(100 * x, 1, sign=True) if _finite(x) and sign else fmt(100 * x if _finite(x) else x)


def times(x) -> str:
    return f"{x:.2f}x" if _finite(x) else DASH


def is_rate(metric: str) -> bool:
    return not metric.startswith(("turns", "pen_", "match_", SKILL_GAP))


def subject(metric: str, players: int | None = None) -> str:
    """A metric in plain words."""
    if metric.startswith("win_p"):
        p = int(metric[len("win_p"):])
        who = "the first player's" if p == 1 else "the dealer's" if players and p == players else \
            f"position {p}'s"
        return f"{who} share of the rounds with a winner"
    names = {"void": "the share of void rounds", "turns": "the turns of a round",
             "exhausted": "the share of rounds in which the stock ran out",
             "match_turns": "the turns of a match", "match_deals": "the deals of a match",
             "match_margin": "the winner's margin (points between the first and the second)"}
    if metric in names:
        return names[metric]
    if metric.startswith(SKILL_GAP):
        return "the skill gap of {} over {} (points a round)".format(*rung(metric))
    if metric.startswith("finish_"):
        return f"the share of won rounds won by finish {metric[len('finish_'):]}"
    if metric.startswith("open_"):
        return f"the share of seats opening by {metric[len('open_'):]}"
    if metric.startswith("pen_"):
        return f"penalty points under rule {metric[len('pen_'):]} per seat and round"
    return metric


def short_name(metric: str, players: int | None = None) -> str:
    """A metric in two or three words, for the rows of a plot."""
    if metric.startswith("win_p"):
        p = int(metric[len("win_p"):])
        return "first player" if p == 1 else "dealer" if players and p == players else f"position {p}"
    names = {"void": "void rounds", "exhausted": "stock ran out", "turns": "turns of a round",
             "match_turns": "turns of a match", "match_deals": "deals of a match", "match_margin": "winner's margin"}
    if metric in names:
        return names[metric]
    if metric.startswith(SKILL_GAP):
        return "gap {} over {}".format(*rung(metric))
    for prefix, said in (("finish_", "finish "), ("open_", "opening by "), ("pen_", "penalty ")):
        if metric.startswith(prefix):
            return said + metric[len(prefix):]
    return metric


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _ratio_interval(c: dict) -> tuple[float, float, float]:
    """b / a with the difference's interval carried over (a taken as known): (ratio, lo, hi)."""
    a = c.get("mean_a")
    if not (_finite(a) and a and _finite(c.get("mean_b"))):
        return math.nan, math.nan, math.nan
    return c["mean_b"] / a, 1 + c["lo"] / a if _finite(c.get("lo")) else math.nan, \
        1 + c["hi"] / a if _finite(c.get("hi")) else math.nan


def _size(c: dict) -> float:
    """How large a difference is, for ordering: points for rates, percent change for the rest."""
    if is_rate(c["metric"]):
        return abs(100 * c["diff"]) if _finite(c.get("diff")) else 0.0
    ratio = _ratio_interval(c)[0]
    if _finite(ratio) and ratio > 0:
        return abs(100 * (ratio - 1))
    return abs(c["diff"]) if _finite(c.get("diff")) else 0.0


def verdict(c: dict) -> str:
    """One verdict per comparison row: shown, same, lead, none (no change shown) or untested."""
    if c.get("significant") and c.get("family") != "exploratory":
        return "shown"
    if c.get("equivalent"):
        return "same"
    lo, hi = c.get("lo"), c.get("hi")
    if not (_finite(lo) and _finite(hi)) or lo == hi:
        return "untested"
    if c.get("family") == "exploratory" and (lo > 0 or hi < 0):
        return "lead"
    return "none"


def difference(c: dict) -> str:
    """The difference b - a with its interval, in the metric's words."""
    m = c["metric"]
    if is_rate(m):
        return f"{pts(c['diff'])} points [{pts(c['lo'])}, {pts(c['hi'])}]"
    if m in RATIOS:
        r, lo, hi = _ratio_interval(c)
        return f"{times(r)} [{times(lo)}, {times(hi)}]"
    unit = " points a round" if m.startswith(SKILL_GAP) else ""
    return f"{fixed(c['diff'], 1, True)}{unit} [{fixed(c['lo'], 1, True)}, {fixed(c['hi'], 1, True)}]"


def levels(c: dict) -> tuple[str, str]:
    m = c["metric"]
    if is_rate(m):
        return pct(c["mean_a"]), pct(c["mean_b"])
    digits = 0 if m == "match_turns" else 1
    return fmt(c["mean_a"], digits), fmt(c["mean_b"], digits)


def comparison_sentence(c: dict, a: str, b: str, players: int | None = None) -> Sentence | None:
    """The one sentence a comparison row gets (None: said under another name, or nothing to say)."""
    if c.get("same_as"):
        return None
    m, kind = c["metric"], verdict(c)
    what = subject(m, players)
    level_a, level_b = levels(c)
    figures = {"a": a, "b": b, "metric": m, "verdict": kind, "difference": difference(c), "mean_a": level_a,
               "mean_b": level_b}
    if kind == "shown":
        if m in RATIOS:
            whole, unit = RATIO_WORDS[m]
            text = f"At {b}, {whole} takes {difference(c).replace(' [', f' the {unit} of {a} [', 1)} " \
                   f"({level_b} against {level_a})."
        else:
            text = f"At {b}, {what} is {level_b}, against {level_a} at {a}: {difference(c)}."
    elif kind == "same":
        text = (f"{_cap(what)} is the same at {a} and {b} within the margin of ±{_margin_text(c)}: "
                f"{difference(c)}.")
    elif kind == "lead":
        text = (f"{_cap(what)} may differ: {level_a} at {a}, {level_b} at {b}, {difference(c)}. It was not among "
                "the planned questions: check it on new deals before acting on it.")
    elif kind == "none" and (c["lo"] > 0 or c["hi"] < 0):  # left out by the adjustment for the family
        size = c.get("family_size")
        text = (f"{_cap(what)}: no change shown from {a} to {b} once the {size or 'other'} comparisons of its family "
                f"are allowed for ({difference(c)}, an interval for this comparison alone: test it again on new "
                "deals).")
    elif kind == "none":
        text = f"{_cap(what)}: no change shown from {a} to {b} ({difference(c)}){_within(c)}."
    else:
        same = _finite(c.get("diff")) and c["diff"] == 0
        text = (f"{_cap(what)} is the same at {a} and {b} in every deal set "
                f"({difference(c).split(' [')[0]})." if same else
                f"{_cap(what)} differs by {difference(c).split(' [')[0]} from {a} to {b} in every deal set alike: "
                "no spread between deal sets to test it against.")
    return Sentence("variants", text, figures, _size(c))


def _margin_text(c: dict) -> str:
    margin = c.get("margin")
    return f"{100 * margin:g} points" if is_rate(c["metric"]) else f"{margin:g}"


def _within(c: dict) -> str:
    """The precision of a comparison that shows no change, and what a finer answer takes."""
    if not is_rate(c["metric"]):
        return ""
    lo, hi = c["lo"], c["hi"]
    said = f"; any change lies within ±{100 * max(abs(lo), abs(hi)):.1f} points"
    need = deal_sets_for((hi - lo) / 2, int(c.get("n") or 0), FINER / 100)
    if need and (hi - lo) / 2 > FINER / 100:
        said += f"; ±{FINER:g} points would take about {need:,} deal sets"
    return said


def variant_sentences(doc: dict | None) -> list[Sentence]:
    """One sentence per compared quantity, in the order of the comparison table."""
    doc = doc or {}
    labels = {v.get("variant"): v.get("label") for v in doc.get("variants") or []}
    players = _players(doc)
    out = []
    for c in doc.get("comparisons") or []:
        said = comparison_sentence(c, labels.get(c.get("a"), c.get("a")), labels.get(c.get("b"), c.get("b")),
                                   players)
        if said is not None:
            out.append(said)
    return out


def _players(doc: dict) -> int | None:
    for v in doc.get("variants") or []:
        if v.get("positions"):
            return len(v["positions"])
    return None


def headline(ratings_doc: dict | None, balance_doc: dict | None, label: str | None = None) -> list[Sentence]:
    """Three to five sentences, largest first: what differs between the variants (the first player's
    share always among them), or the figures of a single variant, and the strongest bot."""
    said = [s for s in variant_sentences(balance_doc) if s.figures["verdict"] in ("shown", "same", "none")
            and (_family(balance_doc, s) != "exploratory") and not s.figures["metric"].startswith(SKILL_GAP)]
    first = [s for s in said if s.figures["metric"] == "win_p1"][:1]
    shown = sorted((s for s in said if s.figures["verdict"] == "shown" and s not in first), key=lambda s: -s.size)
    rest = sorted((s for s in said if s.figures["verdict"] != "shown" and s not in first), key=lambda s: -s.size)
    skill = _skill(balance_doc)  # a skill study's question first: which variant rewards skill more
    picked = shown[:HEADLINE[1] - len(first) - len(skill)]
    if first and first[0].figures["verdict"] == "shown":  # the designer's first question, always answered
        picked = sorted(picked + first, key=lambda s: -s.size)
    else:
        picked += first  # what differs first, by size; then what does not, with its precision
    if len(picked) + len(skill) < HEADLINE[0]:
        picked += rest[:HEADLINE[0] - len(picked) - len(skill)]
    if not (balance_doc or {}).get("comparisons"):
        picked = sorted(_single_variant(balance_doc), key=lambda s: -s.size)
    picked = skill + picked
    bots = bot_sentences(ratings_doc, label)[:2]
    if (balance_doc or {}).get("comparisons"):
        lines = picked + bots[:max(0, HEADLINE[1] - len(picked))]
    else:  # no variants compared: a tournament, whose first question is who is stronger
        lines = bots + picked
    return [Sentence("headline", s.text, s.figures, s.size) for s in lines[:HEADLINE[1]]]


def _skill(doc: dict | None) -> list[Sentence]:
    """A skill study's summary sentence (``balance``'s ``skill.summary``, results/skill.py), as a headline."""
    text = ((doc or {}).get("skill") or {}).get("summary")
    if not text or len((doc or {}).get("variants") or []) < 2:
        return []
    return [Sentence("headline", text, {"metric": "skill", "verdict": "skill"}, math.inf)]


def _family(doc, sentence: Sentence) -> str | None:
    for c in (doc or {}).get("comparisons") or []:
        if c.get("metric") == sentence.figures.get("metric"):
            return c.get("family")
    return None


def _single_variant(doc: dict | None) -> list[Sentence]:
    """The figures of each variant when none is compared: the first player's share against an even
    one, void rounds, and how long a match takes."""
    out = []
    for v in (doc or {}).get("variants") or []:
        name = "" if v.get("label") in (None, "all") else f"At {v['label']}, "
        positions = v.get("positions") or []
        if positions and not _finite(positions[0].get("rate")):
            out.append(Sentence("headline", _cap(f"{name}no round had a winner: there is no first player's share "
                                                 "to measure."), {"rate": None}, 100.0))
        elif positions:
            p = positions[0]
            even = 1 / len(positions)
            text = (f"{name}the first player wins {pct(p.get('rate'))} of the rounds with a winner"
                    f"{_bracket(p, pct)}; an even share would be {pct(even)}.")
            out.append(Sentence("headline", _cap(text), {"rate": pct(p.get("rate"))},
                                100 * abs((p.get("rate") or even) - even) + 100))
        void = v.get("void_rate") or {}
        if _finite(void.get("rate")):
            out.append(Sentence("headline", _cap(f"{name}{pct(void['rate'])} of the rounds are void"
                                                 f"{_bracket(void, pct)}."),
                                {"void": pct(void["rate"])}, 100 * void["rate"]))
        match = v.get("match") or {}
        deals, turns = match.get("deals") or {}, match.get("turns") or {}
        if _finite(deals.get("mean")) and _finite(turns.get("mean")):
            out.append(Sentence("headline", _cap(
                f"{name}a match takes {fmt(deals['mean'])} deals{_bracket(deals, fmt)} "
                f"and {fmt(turns['mean'], 0)} turns{_bracket(turns, lambda x: fmt(x, 0))}."),
                {"deals": fmt(deals["mean"]), "turns": fmt(turns["mean"], 0)}, 1.0))
    return out[:HEADLINE[1]]


def _bracket(figure: dict, show) -> str:
    """" [lo, hi]" after a figure, or " (no interval)" where it has none."""
    lo, hi = figure.get("lo"), figure.get("hi")
    return f" [{show(lo)}, {show(hi)}]" if _finite(lo) and _finite(hi) else " (no interval)"


def bot_sentences(doc: dict | None, label: str | None = None) -> list[Sentence]:
    """Who is stronger than whom, neighbour by neighbour down the leaderboard, and how sure."""
    if not doc or doc.get("error"):
        return []
    bots = [b for b in doc.get("bots") or [] if _finite(b.get("rating"))]
    where = f" ({label})" if label else ""
    if len(bots) < 2:
        return [Sentence("bots", f"Fewer than two bots have a rating{where}: nothing to compare.")]
    los = {(p.get("a"), p.get("b")): p.get("los") for p in doc.get("pairwise") or []}

    def superiority(up, down):
        p = los.get((up["bot"], down["bot"]))
        if p is None and los.get((down["bot"], up["bot"])) is not None:
            p = 1 - los[(down["bot"], up["bot"])]
        return p

    top, lead = bots[0], superiority(bots[0], bots[1])
    said = f"{top['bot']} (rating {fmt(top['rating'])}, {_band(top, doc.get('anchor'))})"
    if _finite(lead) and lead >= SURE:
        text = f"Strongest{where}: {said}."
    elif _finite(lead) and lead >= LIKELY:
        text = f"Probably strongest{where}: {said}."
    else:  # the highest rating, but not shown above the next: no bot is called strongest
        text = f"No bot is shown strongest{where}: the highest rated is {said}, not told apart from {bots[1]['bot']}."
    out = [Sentence("bots", text, {"bot": top["bot"], "rating": fmt(top["rating"])})]
    for up, down in zip(bots, bots[1:]):
        p = superiority(up, down)
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


def _band(bot: dict, anchor: str | None) -> str:
    """A rating's interval in words: the anchor has none (it is the scale's zero), nor has a rating of
    one deal set."""
    if bot["bot"] == anchor:
        return "the scale's anchor"
    if not (_finite(bot.get("lo")) and _finite(bot.get("hi"))):
        return "no interval"
    return f"95% interval {fmt(bot['lo'])} {DASH} {fmt(bot['hi'])}"


def bot_guard(ratings_doc: dict | None, balance_doc: dict | None) -> list[Sentence]:
    """When variants are compared with bots too close in strength to tell whether a variant rewards
    skill: say how far apart they are."""
    if not (balance_doc or {}).get("comparisons") or not ratings_doc or ratings_doc.get("error"):
        return []
    bots = [b for b in ratings_doc.get("bots") or [] if _finite(b.get("rating"))]
    if len(bots) < 2:
        return []
    gap = bots[0]["rating"] - bots[-1]["rating"]
    if gap >= CLOSE_BOTS:
        return []
    return [Sentence("warning", f"These bots are {fmt(gap, 0)} Elo apart ({bots[0]['bot']} against {bots[-1]['bot']}): "
                                "a question about skill (does a variant reward the better player?) cannot be "
                                "answered with them.", {"gap": fmt(gap, 0)})]


def warnings(ratings_doc: dict | None, balance_doc: dict | None) -> list[Sentence]:
    """Many void rounds, too few deal sets for a verdict, bots too close for a skill question, the
    ratings' and the balance tables' own warnings."""
    out = []
    for v in (balance_doc or {}).get("variants") or []:
        void = (v.get("void_rate") or {}).get("rate")
        if _finite(void) and void > MANY_VOID:
            of = "" if v.get("label") in (None, "all") else f" of {v['label']}"
            out.append(Sentence("warning", f"{fmt_pct(void, 0)} of the rounds{of} are void: you may "
                                           "be measuring the bots (how often they manage to open), not the variant.",
                                {"variant": v.get("label"), "void": fmt_pct(void, 0)}))
    sets = [v.get("deal_sets") for v in (balance_doc or {}).get("variants") or [] if _finite(v.get("deal_sets"))]
    clusters = (ratings_doc or {}).get("clusters")
    fewest = min(sets + ([clusters] if _finite(clusters) else []), default=None)
    if fewest is not None and fewest < FEW_DEAL_SETS:
        out.append(Sentence("warning", f"Only {fewest} deal set{'' if fewest == 1 else 's'}: too few for a firm verdict (aim for "
                                       f"{FEW_DEAL_SETS} or more); read every interval as rough.",
                            {"deal_sets": fewest}))
    out += bot_guard(ratings_doc, balance_doc)
    for w in (ratings_doc or {}).get("warnings") or []:
        if fewest is not None and fewest < FEW_DEAL_SETS and "intervals over deal sets are rough" in w:
            continue  # said once, above
        out.append(Sentence("warning", f"Ratings: {w}."))
    for w in (balance_doc or {}).get("warnings") or []:
        out.append(Sentence("warning", f"Balance: {w}."))
    return out


def summary(ratings_doc, balance_doc: dict | None, pooled: list[str] = ()) -> list[Sentence]:
    """The headline, then every bot and variant sentence, then the warnings. ``ratings_doc``: one
    ratings document, or a list of them (one per table size and rules, ``ratings_by_rules``: each
    with its ``label``; the largest first). ``pooled``: what pooling the runs hides
    (``results.pooling.pooling_warnings``), said first among the warnings."""
    docs = ratings_doc if isinstance(ratings_doc, list) else [ratings_doc] if ratings_doc else []
    docs = [d for d in docs if d and not d.get("error")]
    several = len(docs) > 1
    main = docs[0] if docs else None
    bots = [s for d in docs for s in bot_sentences(d, d.get("label") if several else None)]
    warned = [Sentence("warning", f"Pooled runs: {w}.") for w in pooled] + warnings(main, balance_doc)
    for d in docs[1:]:
        warned += [Sentence("warning", f"Ratings ({d.get('label')}): {w}.") for w in d.get("warnings") or []
                   if "intervals over deal sets are rough" not in w or not any("too few for a firm verdict" in x.text
                                                                               for x in warned)]
    if several:
        warned = [Sentence(w.kind, w.text.replace("Ratings: ", f"Ratings ({main.get('label')}): ", 1), w.figures)
                  for w in warned]
    return headline(main, balance_doc, main.get("label") if several else None) + bots + variant_sentences(balance_doc) + warned


__all__ = ["Sentence", "short_name", "bot_guard", "bot_sentences", "comparison_sentence", "difference", "fmt", "fmt_pct", "headline",
           "is_rate", "levels",
           "pct", "pts", "subject", "summary", "times", "variant_sentences", "verdict", "warnings"]
