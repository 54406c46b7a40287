"""Ratings of the bots of one or more runs, on the Elo scale (``ellibir ratings``).

``ratings(runs)`` reads the pooled ``matches`` table once, fits the finishing orders with the
model of ``results.plackett_luce`` (Plackett–Luce with seat effects per table size; by default a
tie is an unknown order among the tied seats, or Davidson–Luce with ``ties="davidson"``), and
returns a JSON-able dict: the leaderboard with 95% intervals from the observed information (and,
on request, percentile intervals from a bootstrap that resamples whole deal sets), the seat
effects, the tie parameters (Davidson–Luce only), and every ordered pair's expected score in a
head-to-head game and likelihood of superiority.

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
from scipy.stats import norm

from .plackett_luce import ELO, TIES, aggregate, connected, fit, synthetic_exact, synthetic_matches
from .runs import Runs
from .stats import Z95

BASE = 1500.0
MIN_CLUSTERS = 10  # deal sets a bootstrap needs
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


def seat_rows(runs: Runs) -> pl.DataFrame:
    """One row per match and seat, with the match's flags and each seat's share of opponents beaten."""
    match = ["run", "match_id"]
    n = pl.len().over(match)
    tied = pl.len().over(*match, "rank") - 1  # other seats sharing this rank
    faulty = pl.col("faults") > 0
    faulted = faulty.any().over(match)
    early = ((pl.col("termination") != "complete") & ~faulty).any().over(match)
    forfeit = pl.when(faulty).then(pl.lit(1 << 14)).otherwise(pl.col("rank")).rank("min").over(match)
    beaten = n - pl.col("rank").cast(pl.Int64) - tied
    share = pl.when(n > 1).then((beaten + 0.5 * tied) / (n - 1)).otherwise(0.5)
    return (runs.matches
            .select(*match, "deal_set", "seat", "bot", "rank", "faults", "termination")
            .with_columns(forfeit.cast(pl.Int16).alias("rank"))  # faulty seats last, whatever the fault policy
            .with_columns(n.alias("players"), faulted.alias("faulted"), early.alias("incomplete"),
                          share.alias("share"))
            .sort("run", "match_id", "seat")
            .collect())


def _tables(rows: pl.DataFrame, index: dict):
    """(bots, ranks, clusters) per table size, each (matches, players) in match order."""
    out = []
    for players in sorted(rows["players"].unique().to_list()):
        part = rows.filter(pl.col("players") == players)
        bots = np.array([index[b] for b in part["bot"].to_list()], dtype=np.int64).reshape(-1, players)
        ranks = part["rank"].to_numpy().astype(np.int64).reshape(-1, players)
        first = part.gather_every(players)
        clusters = list(zip(first["run"].to_list(), first["deal_set"].to_list()))
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


def _pairwise(order: list, rating: np.ndarray, cov: np.ndarray, names: list, delta: float = 0.0) -> list:
    out = []
    for a in order:
        for b in order:
            if a == b:
                continue
            d = rating[a] - rating[b]
            se = float(np.sqrt(max(cov[a, a] + cov[b, b] - 2 * cov[a, b], 0.0)))
            los = float(norm.cdf(d / se)) if se > 0 else (0.5 if d == 0 else float(d > 0))
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


def ratings(runs: Runs, anchor: str | None = None, include_incomplete: bool = False, bootstrap: int = 0,
            seed: int = 0, ties: str = "exact") -> dict:
    """The ratings of the bots of ``runs`` (see the module's docstring). Raises RatingsError."""
    if bootstrap < 0:
        raise RatingsError(f"--bootstrap must be 0 or more, got {bootstrap}")
    if ties not in TIES:
        raise RatingsError(f"unknown tie model {ties!r}: one of {', '.join(TIES)}")
    rows = seat_rows(runs)
    every = sorted(rows["bot"].unique().to_list())
    if anchor is not None and anchor not in every:
        raise RatingsError(f"unknown anchor {anchor!r}: not a bot of these runs ({', '.join(every)})")
    counts, rated = _selection(rows, include_incomplete)
    kept = rows.filter(rated)
    names = sorted(kept["bot"].unique().to_list())
    if anchor is not None and anchor not in names:
        raise RatingsError(f"the anchor {anchor!r} has no rated match (rate them with --include-incomplete)")
    index = {b: i for i, b in enumerate(names)}
    tables = _tables(kept, index)
    _check_connected(tables, names)
    clusters = len({c for t in tables for c in t[2]})
    if bootstrap and clusters < MIN_CLUSTERS:
        raise RatingsError(f"--bootstrap needs at least {MIN_CLUSTERS} deal sets; these runs have {clusters}")
    model = fit([t[0] for t in tables], [t[1] for t in tables], len(names), ties=ties)
    a = _contrast(len(names), None if anchor is None else index[anchor])
    rating = BASE + ELO * (a @ model.theta)
    cov = ELO ** 2 * (a @ model.theta_cov() @ a.T)
    boot = None
    if bootstrap:
        boot = bootstrap_ratings([t[0] for t in tables], [t[1] for t in tables], [t[2] for t in tables], len(names),
                                 bootstrap, seed, None if anchor is None else index[anchor], model.x, ties)
    order = sorted(range(len(names)), key=lambda i: (-rating[i], names[i]))
    stats = _bot_stats(rows, rated)
    bots = [_bot(names[i], stats[names[i]], rating[i], cov[i, i], None if boot is None else boot[:, i])
            for i in order]
    bots += [_bot(name, stats[name]) for name in every if name not in index]  # no rated match: no rating
    return {
        "game": runs.game, "runs": runs.names, "anchor": anchor, "tie_model": ties, "model": MODELS[ties],
        "matches": counts, "clusters": clusters, "bots": bots, "seats": _seats(model), "ties": _ties(model),
        "pairwise": _pairwise(order, rating, cov, names, float(np.exp(model.log_delta.get(2, -np.inf)))),
        "bootstrap": None if boot is None else {"replicates": bootstrap, "seed": seed, "unit": "(run, deal_set)",
                                                "clusters": clusters},
    }


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


def _bot(name: str, stats: dict, rating=None, variance=None, boot=None) -> dict:
    """One leaderboard entry (rating None: the bot has no rated match)."""
    se = None if rating is None else float(np.sqrt(max(variance, 0.0)))
    return {
        "bot": name,
        "rating": None if rating is None else float(rating),
        "se": se,
        "lo": None if rating is None else float(rating - Z95 * se),
        "hi": None if rating is None else float(rating + Z95 * se),
        "boot_lo": None if boot is None else float(np.percentile(boot, 2.5)),
        "boot_hi": None if boot is None else float(np.percentile(boot, 97.5)),
        "games": int(stats["games"]),
        "score_share": stats["score_share"] if stats["games"] else None,
        "avg_rank": stats["avg_rank"] if stats["games"] else None,
        "faults": int(stats["faults"]),
        "excluded_games": int(stats["excluded_games"]),
    }


def _seats(model) -> list:
    """Seat effects per table size (seat 0 of each size the reference), by size then seat."""
    out = []
    for players, effects in sorted(model.seats.items()):
        se = model.seat_se(players)
        out += [{"players": players, "seat": i, "effect": float(ELO * g), "se": float(ELO * s),
                 "lo": float(ELO * (g - Z95 * s)), "hi": float(ELO * (g + Z95 * s))}
                for i, (g, s) in enumerate(zip(effects, se))]
    return out


def _ties(model) -> list:
    out = []
    for size, value in sorted(model.log_delta.items()):
        index = model.tie_index[size]
        s = float(np.sqrt(model.cov[index, index]))
        out.append({"size": size, "delta": float(np.exp(value)), "lo": float(np.exp(value - Z95 * s)),
                    "hi": float(np.exp(value + Z95 * s))})
    return out


def fit_ratings(bots, ranks, n_bots: int | None = None, anchor: int | None = None, ties: str = "exact") -> dict:
    """The pure fit over arrays of one table size (see ``plackett_luce.fit``), on the Elo scale:
    ratings, their standard errors and covariance, seat effects (Elo) and the Fit itself."""
    model = fit(bots, ranks, n_bots, ties=ties)
    a = _contrast(model.n_bots, anchor)
    cov = ELO ** 2 * (a @ model.theta_cov() @ a.T)
    return {"rating": BASE + ELO * (a @ model.theta), "se": np.sqrt(np.clip(np.diag(cov), 0, None)), "cov": cov,
            "seat": ELO * model.seat, "seat_se": ELO * model.seat_se(), "fit": model}


__all__ = ["BASE", "MIN_CLUSTERS", "MODEL", "MODELS", "RatingsError", "bootstrap_ratings", "expected_score",
           "fit_ratings", "ratings", "seat_rows", "synthetic_exact", "synthetic_matches"]
