"""The skill section of ``balance`` for a skill study's runs (their plans hold ``skill``): per variant
a ``skill`` object (results/skill.py: gaps, levels, restricted-play losses; results/skill_play.py: how
the game plays at each skill level; the skill trace: each rung's Elo on the variant's own scale), the
skill × variant rows of the confirmatory family, the warnings where a conclusion changes sign between
skill levels, and the summary sentence."""

from __future__ import annotations

import polars as pl

from . import skill, skill_play
from .per_match import low_wins
from .precision import deal_sets_for

LEVEL_MARGIN = 0.05  # the skill level's half-width the section says the deal sets of


def design_of(plans: list[dict]):
    """The study's design, from the first plan that has one; None for runs that are no skill study."""
    for plan in plans:
        if isinstance(plan.get("skill"), dict):
            return skill.Design.from_dict(plan["skill"])
    return None


class SkillSection:
    """The figures of a skill study, computed once and handed out per variant."""

    def __init__(self, design, runs, rounds: pl.LazyFrame, matches: pl.LazyFrame, players: int, confidence: float,
                 reference: str | None = None):
        self.design, self.confidence, self.players = design, confidence, players
        self.runs, self.reference = runs, reference
        self.low = low_wins(matches)
        self.rounds, self.matches = rounds, matches
        self.points = skill.points(rounds, design.pairs(), self.low)
        self.lengths: dict = {}  # (variant, level) -> (turns, ended) of the control tables' rounds

    def variant(self, vid: str) -> dict:
        try:
            out = skill.variant_skill(self.points, vid, self.design, confidence=self.confidence)
        except skill.SkillError as e:
            return {"error": str(e)}
        for level in out["levels"]:
            g, half = level["deal_sets"], (level["hi"] - level["lo"]) / 2 if level["hi"] == level["hi"] else None
            level["for_margin"] = {"margin": LEVEL_MARGIN, "deal_sets": deal_sets_for(half, g, LEVEL_MARGIN)
                                   if half else None}
        play = skill_play.levels(self.rounds, self.matches, vid, self.players, self.low, self.confidence)
        for p in play:
            self.lengths[(vid, p["level"])] = p.pop("_lengths")
        out["play"] = play
        out["trace"] = self.trace(vid)
        edges = [(p["level"], {"estimate": p["first_player"]["edge"], "lo": p["first_player"]["edge_lo"],
                               "hi": p["first_player"]["edge_hi"]}) for p in play]
        out["warnings"] = skill.sign_warnings("The first player's edge", edges)
        return out

    def trace(self, vid: str) -> dict:
        """The skill trace: the Elo of each rung of the ladder, weakest first, rated on the matches of this
        variant's scale (its table size and rules; ``results.ratings``), ``reference`` at 1500 where it played."""
        from .ratings import RatingsError, ratings
        from .scales import KEY, key_expr

        mine = self.matches.filter(pl.col("variant") == vid)
        keys = mine.with_columns(key_expr(mine.collect_schema().names())).select(KEY).unique().collect()[KEY].to_list()
        if len(keys) != 1:
            return {"rungs": [], "error": f"the matches of this variant span {len(keys)} rating scales"}
        try:
            doc = ratings(self.runs, reference=self.reference, scale=keys[0])
        except RatingsError as e:
            return {"rungs": [], "error": str(e).splitlines()[0]}
        rated = {b["bot"]: b for b in doc["bots"]}
        rungs = [{"bot": bot, **{k: (rated.get(bot) or {}).get(k) for k in ("rating", "lo", "hi")}}
                 for bot in self.design.ladder]
        return {"rungs": rungs, "scale": doc["scale"]}

    def survival_tests(self, pairs: list[tuple[str, str]]) -> list[dict]:
        """Per compared pair of variants and skill level: the log-rank test that round length (void rounds
        censored) is the same in both (exploratory: one p-value per level, unadjusted)."""
        out = []
        for a, b in pairs:
            for (vid, level), lengths in self.lengths.items():
                if vid == a and (b, level) in self.lengths:
                    out.append({"a": a, "b": b, "level": level,
                                "p": skill_play.logrank(lengths, self.lengths[(b, level)])})
        return out

    def rows(self, pairs: list[tuple[str, str]]) -> list[dict]:
        """The skill × variant rows for the compared pairs (those both variants can give)."""
        out = []
        for a, b in pairs:
            try:
                out += skill.skill_by_variant(self.points, [(a, b)], self.design, self.confidence)
            except skill.SkillError:
                continue
        return out


def sign_warnings(rows: list[dict], labels: dict) -> list[str]:
    """Per pair of variants: a skill × variant difference that goes one way on one rung and the other on another."""
    out = []
    for a, b in dict.fromkeys((r["a"], r["b"]) for r in rows):
        mine = [("{} over {}".format(*skill.rung(r["metric"])), {"estimate": r["diff"], "lo": r["lo"], "hi": r["hi"]})
                for r in rows if (r["a"], r["b"]) == (a, b) and r["diff"] == r["diff"]]
        out += skill.sign_warnings(f"What {labels.get(b, b)} does to the skill gap against {labels.get(a, a)}", mine)
    return out


def edge_warnings(variants: list[dict], pairs: list[tuple[str, str]]) -> list[str]:
    """Per compared pair of variants: the change of the first player's edge from a to b at each skill level
    (its interval from the two variants' own, as if independent: wider than a paired one), with a warning
    when it goes one way at one level and the other way at another."""
    by_id = {v["variant"]: v for v in variants}
    out = []
    for a, b in pairs:
        va, vb = by_id.get(a), by_id.get(b)
        if not va or not vb:
            continue
        edges_a = {p["level"]: p["first_player"] for p in (va.get("skill") or {}).get("play") or []}
        changes = []
        for p in (vb.get("skill") or {}).get("play") or []:
            ea, eb = edges_a.get(p["level"]), p["first_player"]
            if ea is None or not all(_finite(x) for x in (ea["edge"], eb["edge"], ea["edge_lo"], eb["edge_lo"])):
                continue
            half = ((ea["edge_hi"] - ea["edge_lo"]) ** 2 / 4 + (eb["edge_hi"] - eb["edge_lo"]) ** 2 / 4) ** 0.5
            diff = eb["edge"] - ea["edge"]
            changes.append((p["level"].removeprefix("builtin:"), {"estimate": diff, "lo": diff - half, "hi": diff + half}))
        out += skill.sign_warnings(f"The change of the first player's edge from {va['label']} to {vb['label']}", changes)
    return out


def _finite(x) -> bool:
    return x is not None and x == x and abs(x) != float("inf")


__all__ = ["LEVEL_MARGIN", "SkillSection", "design_of", "edge_warnings", "sign_warnings"]
