"""Ratings of the bots of one or more runs, on the Elo scale (``ellibir ratings``).

``ratings(runs)`` reads the pooled ``matches`` table once, fits the finishing orders with the
model of ``results.plackett_luce`` (Plackett–Luce with seat effects per table size; by default a
tie is an unknown order among the tied seats, or Davidson–Luce with ``ties="davidson"``), and
returns a JSON-able dict: the leaderboard with 95% intervals (and, on request, percentile
intervals from a bootstrap that resamples whole deal sets), the seat effects, the tie parameters
(Davidson–Luce only), and every ordered pair's expected score in a head-to-head game and
likelihood of superiority.

Intervals (``interval=``): ``"cluster"`` (the default) is the sandwich covariance of the same fit
clustered by (run, deal set), with G/(G−1) and Student's t on G−1 degrees of freedom (G deal
sets): the matches of one deal set share their deals and are not independent, and under duplicate
deals they can be far more alike (copies of a bot at a table) or far less (mirrored seat rotations)
than independent matches. ``"hessian"`` is the inverse of the observed information, which treats
every match as independent. The likelihood of superiority uses the same covariance. Fewer than
``FEW_DEAL_SETS`` deal sets give a warning.

Clustered intervals never collapse: the sandwich rests on the deal sets that tell the bots apart,
and when two bots split most of them evenly it rests on a handful (on none for exact twins, which
would give an interval of no width). The covariance is therefore regularised by the model's own
(``results.sandwich.regularised_cov``), and a warning says how many deal sets told the bots apart
(``informative``) when they are few. A deal set not played whole (an interrupted run) is left out
(``results.runs.partial_deal_sets``), as the SPRT does.

The rating convention (``results.scales``, the ladder's): ratings are θ·400/ln 10 + 1500 on one
scale per table size and rules (``ratings_by_rules``; ``ratings`` pools what it is given, and warns
when that spans several), with the game's ``reference`` bot at 1500 when it played there, else the
mean of the rated bots, or with ``anchor`` at 1500 when asked; every output states which in its
header (``scale``).

Which matches are rated: a match with a fault (any seat with ``faults > 0``) is *faulted*; it is a
result and is rated, with every faulty seat ranked last (shared) and the other seats in their order,
whatever the fault policy: under ``fallback`` the reference bot's moves are never credited to the
faulty bot. A match in which a seat without a fault did not see the match complete (RULES.md X1,
or a stalled match) ended early for reasons outside the bots and is *incomplete*: counted, and rated
only with ``include_incomplete``.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from .distributions import norm_cdf, t_cdf
from .plackett_luce import ELO, TIES, aggregate, connected, fit, synthetic_exact, synthetic_matches
from .sandwich import PRIOR_DEAL_SETS, regularised_cov
from .runs import Runs, partial_deal_sets, partial_note, whole
from .scales import KEY, anchor_of, key_expr, scale_note, scales
from .stats import Z95, t_quantile

BASE = 1500.0
MIN_CLUSTERS = 10  # deal sets a bootstrap needs
FEW_DEAL_SETS = 20  # below this, clustered intervals are rough: a warning
INTERVALS = ("cluster", "hessian")
INTERVAL_NOTES = {
    "cluster": "95% intervals clustered by (run, deal set): sandwich covariance, Student t on deal sets - 1 df",
    "hessian": "95% intervals from the Hessian (observed information; every match taken as independent)",
}
MODELS = {
    "exact": ("Plackett-Luce over finishing orders with seat effects per table size; a tie is an unknown order "
              "among the tied seats (the likelihood sums over the orders it allows); 2 players: Bradley-Terry; "
              "batch maximum likelihood with one virtual draw per bot; Elo scale theta*400/ln 10"),
    "davidson": ("Davidson-Luce: Plackett-Luce over finishing orders with seat effects per table size and tie "
                 "parameters (2 players: Bradley-Terry with Davidson ties); batch maximum likelihood with one "
                 "virtual draw per bot; Elo scale theta*400/ln 10"),
}
MODEL = MODELS["exact"]


class RatingsError(ValueError):
    """Input that cannot be rated (an unknown anchor, no matches to rate...): one line."""


# Reading -----------------------------------------------------------------------------------------


def seat_rows(runs: Runs, partial: pl.DataFrame | None = None) -> pl.DataFrame:
    """One row per match and seat, with the match's flags and each seat's share of opponents beaten;
    without the matches of the ``partial`` deal sets (``results.runs.partial_deal_sets``)."""
    match = ["run", "match_id"]
    n = pl.len().over(match)
    tied = pl.len().over(*match, "rank") - 1  # other seats sharing this rank
    faulty = pl.col("faults") > 0
    faulted = faulty.any().over(match)
    early = ((pl.col("termination") != "complete") & ~faulty).any().over(match)
    forfeit = pl.when(faulty).then(pl.lit(1 << 14)).otherwise(pl.col("rank")).rank("min").over(match)
    # Seats ranked strictly lower, whatever number a shared rank carries (forfeit gives faulty seats the
    # last number, shared: two of four ranked 4 beat nobody, and share 0.5 of the tie between them).
    beaten = n - pl.col("rank").rank("max").over(match).cast(pl.Int64)
    share = pl.when(n > 1).then((beaten + 0.5 * tied) / (n - 1)).otherwise(0.5)
    matches = runs.matches if partial is None else whole(runs.matches, partial)
    return (matches
            .with_columns(key_expr(matches.collect_schema().names()))
            .select(*match, "variant", "deal_set", "seat", "bot", "rank", "faults", "termination", KEY)
            .with_columns(forfeit.cast(pl.Int16).alias("rank"))  # faulty seats last, whatever the fault policy
            .with_columns(n.alias("players"), faulted.alias("faulted"), early.alias("incomplete"),
                          share.alias("share"))
            .sort("run", "match_id", "seat")
            .collect())


def _tables(rows: pl.DataFrame, index: dict):
    """(bots, ranks, clusters) per table size, each (matches, players) in match order; a cluster is a
    (run, deal set), numbered."""
    out = []
    for players in sorted(rows["players"].unique().to_list()):
        part = rows.filter(pl.col("players") == players)
        bots = np.array([index[b] for b in part["bot"].to_list()], dtype=np.int64).reshape(-1, players)
        ranks = part["rank"].to_numpy().astype(np.int64).reshape(-1, players)
        clusters = part.gather_every(players)["cluster"].to_numpy().astype(np.int64)
        out.append((bots, ranks, clusters))
    return out


# Statistics --------------------------------------------------------------------------------------


def _contrast(n: int, anchor: int | None) -> np.ndarray:
    """Ratings from strengths: minus the mean, or minus the anchor's."""
    if anchor is None:
        return np.eye(n) - 1.0 / n
    a = np.eye(n)
    a[:, anchor] -= 1.0
    return a


def bootstrap_ratings(bots, ranks, clusters, n_bots: int, replicates: int, seed: int = 0, anchor: int | None = None,
                      start=None, ties: str = "exact") -> np.ndarray:
    """Ratings (replicates, bots) refitted on whole clusters drawn with replacement.

    ``bots``, ``ranks``: as for ``plackett_luce.fit`` (an array, or a list of arrays per table
    size); ``clusters``: a label per match (a list per table size), the independent unit: the
    (run, deal set) of the match. Never single matches, nor pairs."""
    if isinstance(bots, np.ndarray):
        bots, ranks, clusters = [bots], [ranks], [clusters]
    names = sorted({c for part in clusters for c in part})
    number = {c: i for i, c in enumerate(names)}
    merged = []
    for b, r, c in zip(bots, ranks, clusters):
        ub, ur, _, row = aggregate(b, r, inverse=True)
        cl = np.array([number[x] for x in c], dtype=np.int64)
        pair, count = np.unique(cl * len(ub) + row, return_counts=True)
        merged.append((ub, ur, pair // len(ub), pair % len(ub), count))
    contrast = _contrast(n_bots, anchor)
    rng = np.random.default_rng(seed)
    out = np.empty((replicates, n_bots))
    for k in range(replicates):
        times = np.bincount(rng.integers(len(names), size=len(names)), minlength=len(names))
        parts = []
        for ub, ur, cl, row, count in merged:
            w = np.bincount(row, weights=times[cl] * count, minlength=len(ub))
            keep = w > 0
            parts.append((ub[keep], ur[keep], w[keep]))
        parts = [p for p in parts if len(p[0])]
        f = fit([p[0] for p in parts], [p[1] for p in parts], n_bots, weights=[p[2] for p in parts], start=start,
                merge=False, ties=ties)
        out[k] = BASE + ELO * (contrast @ f.theta)
    return out


def expected_score(d: float, delta: float = 0.0) -> float:
    """The expected score (a win 1, a tie 1/2) of a bot ``d`` Elo above its opponent in a
    head-to-head game: the logistic formula, or with Davidson's tie parameter ``delta``."""
    x = d / ELO
    if not delta:
        return float(1 / (1 + 10 ** (-d / 400)))
    a, b, tie = np.exp(x / 2), np.exp(-x / 2), delta
    return float((a + tie / 2) / (a + b + tie))


class _Spread:
    """The covariance of the parameters and the quantile of its 95% intervals (None: no interval)."""

    def __init__(self, model, tables, interval: str):
        self.interval, self.warnings = interval, []
        if interval == "hessian":
            self.cov, self.df, self.q = model.cov, None, Z95
            return
        self.cov, g, self.df = regularised_cov(model, [t[2] for t in tables])
        self.q = t_quantile(0.95, self.df) if self.df else None
        if g < 2:
            self.warnings.append("one deal set: no interval over deal sets (--interval hessian treats every match "
                                 "as independent)")
        elif g < FEW_DEAL_SETS:
            self.warnings.append(f"only {g} deal sets: intervals over deal sets are rough below {FEW_DEAL_SETS}; "
                                 "more deal sets, not more matches per deal set, make them reliable")

    def los(self, z: float) -> float:
        return float(norm_cdf(z)) if self.df is None else float(t_cdf(z, self.df))


def _pairwise(order: list, rating: np.ndarray, cov: np.ndarray, names: list, delta: float = 0.0,
              spread: _Spread | None = None) -> list:
    out = []
    for a in order:
        for b in order:
            if a == b:
                continue
            d = rating[a] - rating[b]
            se = float(np.sqrt(max(cov[a, a] + cov[b, b] - 2 * cov[a, b], 0.0)))
            if spread is not None and spread.q is None:
                los = None
            elif se > 0:
                los = spread.los(d / se) if spread is not None else float(norm_cdf(d / se))
            else:
                los = 0.5 if d == 0 else float(d > 0)
            out.append({"a": names[a], "b": names[b], "expected": expected_score(d, delta), "los": los})
    return out


def _bot_stats(rows: pl.DataFrame, rated: pl.Expr) -> dict:
    stats = (rows.group_by("bot")
             .agg(rated.sum().alias("games"),
                  pl.col("share").filter(rated).mean().alias("score_share"),
                  pl.col("rank").filter(rated).mean().alias("avg_rank"),
                  pl.col("faults").sum().alias("faults"),
                  (~rated).sum().alias("excluded_games"))
             .sort("bot"))
    return {r["bot"]: r for r in stats.to_dicts()}


# The report --------------------------------------------------------------------------------------


def _check_options(bootstrap: int, ties: str, interval: str) -> None:
    if interval not in INTERVALS:
        raise RatingsError(f"unknown interval {interval!r}: one of {', '.join(INTERVALS)}")
    if bootstrap < 0:
        raise RatingsError(f"--bootstrap must be 0 or more, got {bootstrap}")
    if ties not in TIES:
        raise RatingsError(f"unknown tie model {ties!r}: one of {', '.join(TIES)}")


def _rows(runs: Runs, anchor: str | None) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(seat rows of the deal sets played whole, the partial deal sets); checks the anchor's name."""
    partial = partial_deal_sets(runs)
    rows = seat_rows(runs, partial)
    if rows.height == 0:
        raise RatingsError("no deal set played whole yet: nothing to rate")
    every = sorted(rows["bot"].unique().to_list())
    if anchor is not None and anchor not in every:
        raise RatingsError(f"unknown anchor {anchor!r}: not a bot of these runs ({', '.join(every)})")
    return rows, partial


def ratings(runs: Runs, anchor: str | None = None, include_incomplete: bool = False, bootstrap: int = 0,
            seed: int = 0, ties: str = "exact", interval: str = "cluster", reference: str | None = None,
            scale: str | None = None) -> dict:
    """The ratings of the bots of ``runs`` on one scale (see the module's docstring). ``reference``:
    the game's reference bot, 1500 when it played (the convention of ``results.scales``);
    ``anchor``: a bot asked for instead; ``scale``: rate only the matches of that scale (a key of
    ``results.scales.scales``; None: every match, pooled, with a warning when they span several).
    Raises RatingsError."""
    _check_options(bootstrap, ties, interval)
    rows, partial = _rows(runs, anchor)
    found = scales(rows, runs.game)
    if scale is not None:
        rows = rows.filter(pl.col(KEY) == scale)
        if rows.height == 0:
            raise RatingsError(f"no match of scale {scale!r} in these runs")
    doc = _rate(runs, rows, anchor, reference, include_incomplete, bootstrap, seed, ties, interval,
                strict=scale is None)
    doc["partial_deal_sets"] = partial.height
    doc["warnings"] += [w for w in [partial_note(partial)] if w]
    doc["scales"] = found if scale is None else [f for f in found if f["key"] == scale]
    if scale is None and len(found) > 1:
        doc["warnings"].append(f"these ratings pool {len(found)} table sizes or rules on one scale ("
                               + "; ".join(f["label"] for f in found) + "): each bot's rating mixes them; "
                               "rate each apart (one leaderboard per table size and rules)")
    return doc


def ratings_by_rules(runs: Runs, anchor: str | None = None, reference: str | None = None, **options) -> list[dict]:
    """One ratings document per table size and rules of ``runs`` (most matches first), each with its
    ``label`` and on its own scale (``reference`` at 1500 where it played, else the mean); a scale
    that cannot be rated has ``error`` instead (one line). ``options``: as for ``ratings``."""
    _check_options(options.get("bootstrap", 0), options.get("ties", "exact"), options.get("interval", "cluster"))
    rows, _ = _rows(runs, anchor)
    out = []
    for found in scales(rows, runs.game):
        try:
            doc = ratings(runs, anchor=anchor, reference=reference, scale=found["key"], **options)
        except RatingsError as e:
            doc = {"error": str(e).splitlines()[0]}
        out.append({"label": found["label"], "key": found["key"], "players": found["players"], **doc})
    return out


def _rate(runs: Runs, rows: pl.DataFrame, anchor, reference, include_incomplete: bool, bootstrap: int, seed: int,
          ties: str, interval: str, strict: bool) -> dict:
    """The fit and its document for the seat ``rows`` (one scale, or a pool)."""
    every = sorted(rows["bot"].unique().to_list())
    counts, rated = _selection(rows, include_incomplete)
    kept = rows.filter(rated).with_columns(pl.struct("run", "deal_set").rank("dense").alias("cluster"))
    names = sorted(kept["bot"].unique().to_list())
    if strict and anchor is not None and anchor not in names:
        raise RatingsError(f"the anchor {anchor!r} has no rated match (rate them with --include-incomplete)")
    chosen = anchor_of(names, anchor, reference)
    index = {b: i for i, b in enumerate(names)}
    tables = _tables(kept, index)
    _check_connected(tables, names)
    clusters = len({c for t in tables for c in t[2]})
    if bootstrap and clusters < MIN_CLUSTERS:
        raise RatingsError(f"--bootstrap needs at least {MIN_CLUSTERS} deal sets; these runs have {clusters}")
    model = fit([t[0] for t in tables], [t[1] for t in tables], len(names), ties=ties)
    a = _contrast(len(names), None if chosen is None else index[chosen])
    rating = BASE + ELO * (a @ model.theta)
    spread = _Spread(model, tables, interval)
    telling = informative(kept)
    spread.warnings += [w for w in [_informative_note(telling, clusters, interval)] if w]
    b = len(names)
    cov = ELO ** 2 * (a @ spread.cov[:b, :b] @ a.T)
    boot = None
    if bootstrap:
        boot = bootstrap_ratings([t[0] for t in tables], [t[1] for t in tables], [t[2] for t in tables], len(names),
                                 bootstrap, seed, None if chosen is None else index[chosen], model.x, ties)
    order = sorted(range(len(names)), key=lambda i: (-rating[i], names[i]))
    stats = _bot_stats(rows, rated)
    model_half = None
    if boot is not None and interval == "cluster" and spread.q is not None:
        model_half = spread.q * np.sqrt(np.clip(np.diag(ELO ** 2 * (a @ model.cov[:b, :b] @ a.T)), 0, None))
    bots = [_bot(names[i], stats[names[i]], rating[i], cov[i, i], None if boot is None else boot[:, i], spread.q,
                 None if model_half is None else (model_half[i], clusters))
            for i in order]
    bots += [_bot(name, stats[name]) for name in every if name not in index]  # no rated match: no rating
    return {
        "game": runs.game, "runs": runs.names, "anchor": chosen, "reference": reference,
        "scale": scale_note(chosen, reference, anchor), "tie_model": ties,
        "model": MODELS[ties], "interval": interval, "interval_note": INTERVAL_NOTES[interval], "df": spread.df,
        "warnings": spread.warnings, "matches": counts, "clusters": clusters, "informative": telling,
        "bots": bots, "seats": _seats(model, spread), "ties": _ties(model, spread),
        "pairwise": _pairwise(order, rating, cov, names, float(np.exp(model.log_delta.get(2, -np.inf))), spread),
        "bootstrap": None if boot is None else {"replicates": bootstrap, "seed": seed, "unit": "(run, deal_set)",
                                                "clusters": clusters},
    }


def informative(rows: pl.DataFrame) -> int:
    """The deal sets (clusters) in which the bots did not all score alike: some bot's mean share of
    opponents beaten differs from another's. The others (a mirrored pair splitting every deal)
    say nothing about who is stronger."""
    per_bot = rows.group_by("cluster", "bot").agg(pl.col("share").mean().round(9))
    return per_bot.group_by("cluster").agg(pl.col("share").n_unique() > 1).get_column("share").sum()


def _informative_note(telling: int, clusters: int, interval: str) -> str | None:
    if interval != "cluster" or clusters < 2 or telling >= min(clusters, FEW_DEAL_SETS):
        return None
    if telling == 0:
        said, rest = "no deal set told the bots apart (in each, every bot scored alike)", "alone"
    else:
        said, rest = f"only {telling} of {clusters} deal sets told the bots apart (in the others every bot scored alike)", "for the rest"
    return (f"{said}: the intervals rest on the rating model {rest}, with the weight of {PRIOR_DEAL_SETS:g} deal "
            "sets; more deal sets make them narrower")


def _selection(rows: pl.DataFrame, include_incomplete: bool) -> tuple[dict, pl.Expr]:
    """The match counts, and which seat rows are rated."""
    matches = rows.unique(["run", "match_id"])
    counts = {"total": matches.height, "rated": 0, "incomplete": int(matches["incomplete"].sum()),
              "faulted": int(matches["faulted"].sum())}
    rated = pl.col("faulted").is_not_null() if include_incomplete else ~pl.col("incomplete")
    counts["rated"] = matches.filter(rated).height
    if counts["rated"] == 0:
        raise RatingsError(f"no match to rate: {counts['incomplete']} ended early (rate them with "
                           f"--include-incomplete)")
    return counts, rated


def _check_connected(tables, names: list) -> None:
    groups = connected([t[0] for t in tables], len(names))
    if len(set(groups.tolist())) > 1:
        apart = [[names[i] for i in np.flatnonzero(groups == g)] for g in sorted(set(groups.tolist()))]
        raise RatingsError("the bots form groups that never met, so their ratings cannot be compared: "
                           + " | ".join(", ".join(g) for g in apart))


def _regularised_bounds(rating: float, lo: float, hi: float, model_half: float, g: int) -> tuple[float, float]:
    """A bootstrap interval with the regularisation of the clustered intervals: each side's distance
    from the estimate d becomes sqrt(((G−1)·d² + k·h²) / (G−1+k)), h the model's half-width (q times
    the Hessian's standard error). Redrawing the deal sets seen cannot show the ones that did not
    come up: when every deal set split evenly the bootstrap alone has no spread at all."""
    k = PRIOR_DEAL_SETS

    def side(d: float) -> float:
        return float(np.sqrt(((g - 1) * max(d, 0.0) ** 2 + k * model_half ** 2) / (g - 1 + k)))

    return rating - side(rating - lo), rating + side(hi - rating)


def _bot(name: str, stats: dict, rating=None, variance=None, boot=None, q: float | None = Z95,
         regularise=None) -> dict:
    """One leaderboard entry (rating None: the bot has no rated match; q None: no interval;
    ``regularise``: (the model's half-width, G) for the bootstrap's bounds)."""
    se = None if rating is None or q is None else float(np.sqrt(max(variance, 0.0)))
    boot_lo = boot_hi = None
    if boot is not None:
        boot_lo, boot_hi = float(np.percentile(boot, 2.5)), float(np.percentile(boot, 97.5))
        if regularise is not None:
            boot_lo, boot_hi = _regularised_bounds(float(rating), boot_lo, boot_hi, *regularise)
    return {
        "bot": name,
        "rating": None if rating is None else float(rating),
        "se": se,
        "lo": None if se is None else float(rating - q * se),
        "hi": None if se is None else float(rating + q * se),
        "boot_lo": boot_lo,
        "boot_hi": boot_hi,
        "games": int(stats["games"]),
        "score_share": stats["score_share"] if stats["games"] else None,
        "avg_rank": stats["avg_rank"] if stats["games"] else None,
        "faults": int(stats["faults"]),
        "excluded_games": int(stats["excluded_games"]),
    }


def _seats(model, spread: _Spread) -> list:
    """Seat effects per table size (seat 0 of each size the reference), by size then seat."""
    out = []
    var = np.diag(spread.cov)
    q = spread.q
    for players, effects in sorted(model.seats.items()):
        se = [0.0] + [float(np.sqrt(max(var[model.seat_index[(players, i)]], 0.0))) for i in range(1, players)]
        out += [{"players": players, "seat": i, "effect": float(ELO * g), "se": None if q is None else ELO * s,
                 "lo": None if q is None else float(ELO * (g - q * s)),
                 "hi": None if q is None else float(ELO * (g + q * s))}
                for i, (g, s) in enumerate(zip(effects, se))]
    return out


def _ties(model, spread: _Spread) -> list:
    out = []
    q = spread.q
    for size, value in sorted(model.log_delta.items()):
        index = model.tie_index[size]
        s = float(np.sqrt(max(spread.cov[index, index], 0.0)))
        out.append({"size": size, "delta": float(np.exp(value)),
                    "lo": None if q is None else float(np.exp(value - q * s)),
                    "hi": None if q is None else float(np.exp(value + q * s))})
    return out


def fit_ratings(bots, ranks, n_bots: int | None = None, anchor: int | None = None, ties: str = "exact",
                clusters=None, prior_deal_sets: float = PRIOR_DEAL_SETS) -> dict:
    """The pure fit over arrays of one table size (see ``plackett_luce.fit``), on the Elo scale:
    ratings, their standard errors and covariance, seat effects (Elo), the Fit itself, ``q`` the
    quantile of the 95% intervals and ``df`` its degrees of freedom (None: normal).
    ``clusters`` (a label per match): the covariance is clustered on them, regularised by the model
    with the weight of ``prior_deal_sets`` deal sets (``results.sandwich.regularised_cov``; 0 for
    the plain sandwich), and ``q`` is the t quantile on G−1+prior df; None: the Hessian's, with the
    normal quantile."""
    model = fit(bots, ranks, n_bots, ties=ties)
    a = _contrast(model.n_bots, anchor)
    df = None
    if clusters is None:
        full, q = model.cov, Z95
    else:
        full, _, df = regularised_cov(model, clusters, prior_deal_sets)
        q = t_quantile(0.95, df) if df else None
    b = model.n_bots
    cov = ELO ** 2 * (a @ full[:b, :b] @ a.T)
    players = len(model.seat)
    seat_var = [0.0] + [full[k, k] for k in (model.seat_index[(players, i)] for i in range(1, players))]
    return {"rating": BASE + ELO * (a @ model.theta), "se": np.sqrt(np.clip(np.diag(cov), 0, None)), "cov": cov,
            "q": q, "df": df, "seat": ELO * model.seat, "seat_se": ELO * np.sqrt(np.clip(seat_var, 0, None)), "fit": model}


__all__ = ["BASE", "FEW_DEAL_SETS", "INTERVALS", "MIN_CLUSTERS", "MODEL", "MODELS", "RatingsError",
           "bootstrap_ratings", "expected_score", "fit_ratings", "ratings", "ratings_by_rules", "scale_note",
           "seat_rows",
           "synthetic_exact", "synthetic_matches"]
