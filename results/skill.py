"""Does a variant reward skill? Skill gaps, the skill level and restricted play, per rules variant.

A skill study (``ellibir study skill``) plays, on common deal sets, for each *field* bot F the
all-F **control** table, and for each *challenger* C of F one table of C against copies of F with C
in every seat. Which bot is which comes from the tables themselves: a table of one bot is a control,
a table of two bots where one holds a single seat is that bot challenging the other
(``pairs`` settles a two-player table, where both hold one seat).

Points a round (``points``): a seat's round score with the sign that makes more better (Ellibir's
scores are penalties, so ``low`` is True and points are minus the score), averaged over every dealt
round, void ones included (they score 0). For a deal set g:

    gain_g(C | F) = points a round of C against copies of F  −  points a round of a seat of the all-F control

and a gain is the mean of gain_g over the deal sets that played both tables. Then:

- **skill gap** of a rung (the ladder's bot k over bot k−1): gain(ladder[k] | ladder[k−1]);
- **skill level** (Borm and van der Genugten) for a beginner B, the best real player R and the
  fictive player X who knows the luck (the clairvoyant bot), all against copies of B:
  learning = gain(R | B), chance = gain(X | B) − gain(R | B),
  level = learning / (learning + chance) = gain(R | B) / gain(X | B);
- **restricted-play loss** of a restricted bot Q of the base bot F: −gain(Q | F), what F loses
  when one mechanic is taken away (Jaffe et al.);
- **skill × variant**: gain_g in variant b minus gain_g in variant a, paired by deal set, tested
  by flipping the signs of the differences (``results.signflip``: exact when the variants are alike,
  whatever the spread of the deal sets), with the interval that inverts the test; these rows join
  the confirmatory family of ``results.comparisons``.

Intervals: an expanded percentile bootstrap (``bootstrap``) that redraws whole deal sets (seeded, so
the same data give the same interval), every quantity of a variant from the same draws, so a ratio
keeps its pairing.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import numpy as np
import polars as pl

from . import signflip
from .numbers import fixed
from . import distributions as dist
from .stats import NAN, paired

UNIT = ["run", "deal_set"]
SKILL_GAP = "skill_gap:"  # the metric name of a skill × variant row: skill_gap:C>F
REPLICATES = 2000
SEED = 0


class SkillError(ValueError):
    """A skill figure the runs cannot give (a table that was not played, an unknown bot)."""


@dataclass(frozen=True)
class Design:
    """What a skill study asked: ``ladder`` weakest first, ``beginners`` (each a field), ``fictive``
    (the clairvoyant bot, or None), ``restricted`` (base bot -> its restricted versions)."""

    ladder: tuple
    beginners: tuple = ()
    fictive: str | None = None
    restricted: tuple = ()  # ((base, (restricted, ...)), ...)
    links: tuple = ()  # more (field, challenger) tables, e.g. the restricted bots' base over a ladder bot

    @property
    def best(self) -> str:
        return self.ladder[-1]

    def pairs(self) -> list[tuple[str, str]]:
        """Every (field, challenger) the study plays, each once, in a fixed order."""
        out = list(zip(self.ladder, self.ladder[1:]))
        for b in self.beginners:
            out += [(b, self.best)] + ([(b, self.fictive)] if self.fictive else [])
        for base, restricted in self.restricted:
            out += [(base, q) for q in restricted]
        out += [tuple(p) for p in self.links]
        return list(dict.fromkeys(p for p in out if p[0] != p[1]))

    def fields(self) -> list[str]:
        return list(dict.fromkeys(f for f, _ in self.pairs()))

    def to_dict(self) -> dict:
        return {"ladder": list(self.ladder), "beginners": list(self.beginners), "fictive": self.fictive,
                "restricted": {b: list(q) for b, q in self.restricted}, "links": [list(p) for p in self.links]}

    @classmethod
    def from_dict(cls, d: dict) -> "Design":
        return cls(tuple(d["ladder"]), tuple(d.get("beginners") or ()), d.get("fictive"),
                   tuple((b, tuple(q)) for b, q in (d.get("restricted") or {}).items()),
                   tuple(tuple(p) for p in d.get("links") or ()))


# From rounds to deal-set points ----------------------------------------------------------------


def roles(seat_counts: pl.DataFrame, pairs: list[tuple[str, str]]) -> pl.DataFrame:
    """Per match (``run``, ``match_id``): its ``field`` and its ``challenger`` (null for a control),
    from one row per (run, match_id, bot) with ``seats``; tables of no known shape are left out."""
    known = set(pairs)
    rows = []
    for (run, match_id), group in seat_counts.group_by(["run", "match_id"], maintain_order=True):
        counts = Counter(dict(zip(group["bot"], group["seats"])))
        role = _role(counts, known)
        if role is not None:
            rows.append((run, match_id, *role))
    return pl.DataFrame(rows, schema={"run": pl.String, "match_id": pl.String, "field": pl.String,
                                      "challenger": pl.String}, orient="row")


def _role(counts: Counter, known: set) -> tuple | None:
    if len(counts) == 1:
        return next(iter(counts)), None
    if len(counts) != 2:
        return None
    (a, na), (b, nb) = counts.items()
    for field, challenger in ((a, b), (b, a)):
        if (field, challenger) in known and counts[challenger] == 1:
            return field, challenger
    return None


def points(rounds: pl.LazyFrame, pairs: list[tuple[str, str]], low: bool = True) -> pl.DataFrame:
    """One row per (variant, run, deal_set, field, challenger): the challenger's (or, for a control
    with a null challenger, every seat's) ``points`` and ``rounds`` (seat-rounds dealt)."""
    sign = -1.0 if low else 1.0
    per_bot = (rounds.group_by("run", "match_id", "bot")
               .agg(pl.col("variant").first(), pl.col("deal_set").first(), pl.col("seat").n_unique().alias("seats"),
                    (sign * pl.col("score").cast(pl.Float64)).sum().alias("points"), pl.len().alias("rounds"))
               .collect().sort("run", "match_id", "bot"))
    table = roles(per_bot.select("run", "match_id", "bot", "seats"), pairs)
    mine = per_bot.join(table, on=["run", "match_id"], how="inner").filter(
        pl.col("bot") == pl.coalesce("challenger", "field"))
    return (mine.group_by("variant", *UNIT, "field", "challenger")
            .agg(pl.col("points").sum(), pl.col("rounds").sum())
            .sort("variant", *UNIT, "field", "challenger", nulls_last=False))


def gain_matrix(pts: pl.DataFrame, variant: str, pairs: list[tuple[str, str]]) -> tuple[pl.DataFrame, np.ndarray]:
    """(the deal sets that played every table asked, a G × len(pairs) matrix of gain_g(C | F))."""
    mine = pts.filter(pl.col("variant") == variant).with_columns(
        (pl.col("points") / pl.col("rounds")).alias("rate"))
    units = None
    columns = []
    for field, challenger in pairs:
        ctrl = mine.filter(pl.col("field") == field, pl.col("challenger").is_null()).select(*UNIT, pl.col("rate").alias("c"))
        chal = mine.filter(pl.col("field") == field, pl.col("challenger") == challenger).select(*UNIT, pl.col("rate").alias("x"))
        both = chal.join(ctrl, on=UNIT, how="inner").select(*UNIT, (pl.col("x") - pl.col("c")).alias(f"{field}>{challenger}"))
        if both.height == 0:
            raise SkillError(f"no deal set of {variant} played both {challenger} against {field} and the all-{field} control")
        columns.append(both)
        units = both.select(UNIT) if units is None else units.join(both.select(UNIT), on=UNIT, how="inner")
    units = units.sort(UNIT)
    matrix = np.column_stack([units.join(c, on=UNIT, how="left").sort(UNIT)[:, -1].to_numpy() for c in columns])
    return units, matrix.astype(float)


# Intervals -------------------------------------------------------------------------------------


def bootstrap(matrix: np.ndarray, statistic, replicates: int = REPLICATES, seed: int = SEED,
              confidence: float = 0.95) -> dict:
    """``statistic`` (column means, shape (..., K) -> value(s)) on the deal sets' column means, with an
    expanded percentile interval from ``replicates`` redraws of whole deal sets (rows), seeded.

    A plain percentile interval is too narrow with few deal sets: a redraw's spread is the sample's
    with divisor G instead of G − 1, and it takes a normal quantile where Student's t on G − 1 degrees
    of freedom belongs (at 15 deal sets it covers about 91% for a nominal 95%). So the interval takes
    the redraws' quantiles at the tail whose normal quantile is sqrt(G / (G − 1)) · t(G − 1) instead of
    z (Hesterberg's expanded percentile interval); it keeps the percentile interval's shape, which a
    ratio such as the skill level needs. No interval (NaN) with one deal set, or when every redraw gives
    the same value (deal sets that did not differ)."""
    g = matrix.shape[0]
    estimate = statistic(matrix.mean(axis=0))
    if g < 2:
        return {"estimate": float(estimate), "lo": NAN, "hi": NAN, "deal_sets": g}
    rng = np.random.default_rng(seed)
    draws = matrix[rng.integers(0, g, size=(replicates, g))].mean(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.asarray(statistic(draws), dtype=float)
    values = values[np.isfinite(values)]
    if len(values) and values.min() == values.max():  # the deal sets did not differ: no evidence of precision
        return {"estimate": float(estimate), "lo": NAN, "hi": NAN, "deal_sets": g}
    tail = expanded_tail(g, confidence)
    lo, hi = (np.quantile(values, [tail, 1 - tail]) if len(values) else (NAN, NAN))
    return {"estimate": float(estimate), "lo": float(lo), "hi": float(hi), "deal_sets": g}


def expanded_tail(g: int, confidence: float = 0.95) -> float:
    """The tail share of the expanded percentile interval with ``g`` deal sets (``bootstrap``)."""
    wider = math.sqrt(g / (g - 1)) * float(dist.t_ppf((1 + confidence) / 2, g - 1))
    return float(dist.norm_cdf(-wider))


def _ratio(m):
    return m[..., 0] / m[..., 1]


def _column(k: int, scale: float = 1.0):
    return lambda m: scale * m[..., k]


# The figures of one variant --------------------------------------------------------------------


def skill_gaps(pts: pl.DataFrame, variant: str, design: Design, **boot) -> list[dict]:
    """Each rung of the ladder: the stronger bot's gain over copies of the weaker, in points a round."""
    rungs = list(zip(design.ladder, design.ladder[1:]))
    _, m = gain_matrix(pts, variant, rungs)
    return [{"weak": f, "strong": c, **bootstrap(m, _column(k), **boot)} for k, (f, c) in enumerate(rungs)]


def skill_level(pts: pl.DataFrame, variant: str, beginner: str, best: str, fictive: str, **boot) -> dict:
    """Borm and van der Genugten's skill level for ``beginner``: gain(best) / gain(fictive), both over
    copies of the beginner, with the learning and chance effects (points a round)."""
    _, m = gain_matrix(pts, variant, [(beginner, best), (beginner, fictive)])
    learning = bootstrap(m, _column(0), **boot)
    chance = bootstrap(m, lambda x: x[..., 1] - x[..., 0], **boot)
    level = bootstrap(m, _ratio, **boot)
    out = {"beginner": beginner, "best": best, "fictive": fictive, "learning": learning, "chance": chance, **level}
    return {**out, "note": level_note(out)}


def level_note(x: dict) -> str | None:
    """What a skill level outside [0, 1] means, in words (None inside): the measure assumes the fictive
    player gains at least what the best real player gains, and the best real player at least nothing."""
    best, beginner, fictive = _name(x["best"]), _name(x["beginner"]), _name(x["fictive"])
    if x["chance"]["estimate"] < 0:
        return (f"above 1 with beginner {beginner}: {fictive} gains less than {best} over copies of {beginner} "
                f"(chance effect {fixed(x['chance']['estimate'], 1, True)} points a round), so it is no upper bound here; it "
                f"says that {best}'s gain is all that knowing the deal gained, not that skill counts for more than all")
    if x["learning"]["estimate"] < 0:
        return (f"below 0 with beginner {beginner}: {best} makes less over copies of {beginner} than {beginner} "
                f"itself (learning effect {fixed(x['learning']['estimate'], 1, True)} points a round): no skill shown")
    return None


def restricted_losses(pts: pl.DataFrame, variant: str, base: str, restricted, **boot) -> list[dict]:
    """What ``base`` loses (points a round) as each restricted version of itself against copies of it."""
    pairs = [(base, q) for q in restricted]
    _, m = gain_matrix(pts, variant, pairs)
    return [{"bot": q, "base": base, **bootstrap(m, _column(k, -1.0), **boot)} for k, (_, q) in enumerate(pairs)]


def variant_skill(pts: pl.DataFrame, variant: str, design: Design, **boot) -> dict:
    """The ``skill`` object of one variant: ``gaps``, ``levels`` (one per beginner), ``restricted``."""
    out = {"gaps": skill_gaps(pts, variant, design, **boot) if len(design.ladder) > 1 else [],
           "levels": [], "restricted": []}
    if design.fictive:
        out["levels"] = [skill_level(pts, variant, b, design.best, design.fictive, **boot)
                         for b in design.beginners if b != design.best]
    for base, restricted in design.restricted:
        out["restricted"] += restricted_losses(pts, variant, base, restricted, **boot)
    return out


# Skill × variant -------------------------------------------------------------------------------


def skill_by_variant(pts: pl.DataFrame, variant_pairs: list[tuple[str, str]], design: Design,
                     confidence: float = 0.95) -> list[dict]:
    """Per pair of variants (a, b) and rung: gain_g in b minus gain_g in a over the deal sets both
    played (the sign-flip test of the paired t, ``results.signflip``), as rows of the confirmatory family (``results.comparisons.compare``'s shape)."""
    rows = []
    rungs = list(zip(design.ladder, design.ladder[1:]))
    for a, b in variant_pairs:
        for field, challenger in rungs:
            ua, ma = gain_matrix(pts, a, [(field, challenger)])
            ub, mb = gain_matrix(pts, b, [(field, challenger)])
            left = ua.with_columns(pl.Series("ga", ma[:, 0]))
            both = left.join(ub.with_columns(pl.Series("gb", mb[:, 0])), on=UNIT, how="inner").sort(UNIT)
            ga, gb = both["ga"].to_numpy(), both["gb"].to_numpy()
            res = paired(ga, gb, confidence)
            p, lo, hi = res.p, res.lo, res.hi
            if res.se == res.se and res.se > 0:  # spread between deal sets: the sign-flip test and its interval
                p, lo, hi = signflip.test(gb - ga, confidence)
            rows.append({"a": a, "b": b, "metric": f"{SKILL_GAP}{challenger}>{field}", "family": "primary",
                         "n": res.n, "mean_a": res.mean_a, "mean_b": res.mean_b, "diff": res.diff, "lo": lo,
                         "hi": hi, "p": p, "margin": None, "p_equiv": NAN, "same_as": None})
    return rows


def sign_warnings(what: str, by_level: list[tuple[str, dict]]) -> list[str]:
    """A warning when ``what`` (an estimate with ``lo`` and ``hi`` at each skill level) goes one way at
    one level and the other way at another, with at least one of them clear of 0: "reversed" when a
    level on each side is clear of 0, else "may not hold" at the levels whose figure is not."""
    ups = [name for name, x in by_level if x["estimate"] > 0]
    downs = [name for name, x in by_level if x["estimate"] < 0]
    clear = [name for name, x in by_level if _clear(x)]
    if not ups or not downs or not clear:
        return []
    said = f"{what} changes sign with skill: it goes up with {_and(ups)} and down with {_and(downs)}"
    up_clear, down_clear = [n for n in ups if n in clear], [n for n in downs if n in clear]
    if up_clear and down_clear:
        return [f"{said}; {_and(up_clear)} and {_and(down_clear)} are each clear of 0 (95% interval), so a conclusion "
                f"drawn at one of these skill levels is reversed at the other"]
    unclear = [name for name, _ in by_level if name not in clear]
    verb = "is" if len(clear) == 1 else "are"
    return [f"{said}; only {_and(clear)} {verb} clear of 0 (95% interval), so a conclusion drawn there may not hold "
            f"at {_and(unclear)}"]


def _and(names: list[str]) -> str:
    names = [_name(n) for n in names]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _clear(x: dict) -> bool:
    lo, hi = x.get("lo"), x.get("hi")
    return lo is not None and hi is not None and not (math.isnan(lo) or math.isnan(hi)) and (lo > 0 or hi < 0)


def _name(label: str) -> str:
    return label.removeprefix("builtin:")


def summary_sentence(rows: list[dict], labels: dict[str, str]) -> str:
    """Which variant rewards skill more (the larger skill gap), from the skill × variant rows once their
    family is adjusted (``significant``), pair of variants by pair; or that the data can't tell.
    ``labels``: every variant's label."""
    if not rows:
        if len(labels) < 2:
            return "Only one variant: nothing to say about which rewards skill more."
        return ("No skill gap could be compared between variants (no deal set played a rung's tables in two "
                "compared variants): nothing to say about which rewards skill more.")
    name = lambda v: labels.get(v, v)  # noqa: E731
    pairs = list(dict.fromkeys((r["a"], r["b"]) for r in rows))
    said, silent = [], []
    for a, b in pairs:
        shown = [r for r in rows if (r["a"], r["b"]) == (a, b) and r.get("significant") and _finite(r["diff"])]
        if not shown:
            silent.append((a, b))
            continue
        more_b = [r for r in shown if r["diff"] > 0]
        more_a = [r for r in shown if r["diff"] < 0]
        if more_b and more_a:
            said.append(f"neither {name(a)} nor {name(b)} rewards skill more at every level: "
                        + "; ".join(_larger(r, name) for r in more_a + more_b))
        else:
            more, less = (b, a) if more_b else (a, b)
            said.append(f"{name(more)} rewards skill more than {name(less)}: " + "; ".join(_larger(r, name) for r in shown))
    if not said:
        return ("The data can't tell which variant rewards skill more: no skill gap differs between variants once the "
                f"comparisons are allowed for{_largest(rows, name)}.")
    text = "; ".join(said)
    if silent:
        text += "; no skill gap differs between " + ", ".join(f"{name(a)} and {name(b)}" for a, b in silent) \
                + " once the comparisons are allowed for"
    return ("N" + text[1:] if text.startswith("neither") else text) + "."


def _larger(r: dict, name) -> str:
    """"the gap of C over F is 12.5 points a round larger at X than at Y [6.8, 18.2]", said from the
    variant where it is larger (the interval turned with it)."""
    if r["diff"] >= 0:
        size, lo, hi, more, less = r["diff"], r.get("lo"), r.get("hi"), r["b"], r["a"]
    else:
        size, lo, hi, more, less = -r["diff"], _neg(r.get("hi")), _neg(r.get("lo")), r["a"], r["b"]
    band = f" [{lo:.1f}, {hi:.1f}]" if _finite(lo) and _finite(hi) else ""
    return f"{_rung(r)} is {size:.1f} points a round larger at {name(more)} than at {name(less)}{band}"


def _largest(rows: list[dict], name) -> str:
    finite = [r for r in rows if _finite(r["diff"])]
    if not finite:
        return ""
    r = max(finite, key=lambda r: abs(r["diff"]))
    band = f" [{fixed(r['lo'], 1, True)}, {fixed(r['hi'], 1, True)}]" if _finite(r.get("lo")) and _finite(r.get("hi")) else ""
    return (f" (the largest difference: {_rung(r)}, {fixed(r['diff'], 1, True)} points a round{band} at {name(r['b'])} "
            f"against {name(r['a'])})")


def _neg(x):
    return -x if _finite(x) else x


def _finite(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def rung(metric: str) -> tuple[str, str]:
    """A skill × variant row's metric ``skill_gap:C>F``: (C, F), the stronger bot and the weaker, as people
    read them (without ``builtin:``)."""
    challenger, field = metric.removeprefix(SKILL_GAP).split(">")
    return _name(challenger), _name(field)


def _rung(r: dict) -> str:
    return "the gap of {} over {}".format(*rung(r["metric"]))


__all__ = ["Design", "REPLICATES", "SkillError", "bootstrap", "expanded_tail", "gain_matrix", "level_note", "points",
           "restricted_losses", "roles", "rung",
           "sign_warnings", "skill_by_variant", "skill_gaps", "skill_level", "summary_sentence", "variant_skill"]
