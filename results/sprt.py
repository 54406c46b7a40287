"""Sequential probability ratio test (SPRT) of bot A against bot B, over duplicate deal sets.

The test is the generalised SPRT (GSPRT) as fishtest runs it on game pairs, with the exact
multinomial likelihood in place of a normal approximation:

- H0: A is ``elo0`` Elo better than B; H1: A is ``elo1`` better (``elo1 > elo0``). Elo here is the
  pairwise logistic scale: a difference ``d`` means an expected score ``1 / (1 + 10^(-d/400))``.
- The bounds are ``ln(beta / (1 - alpha))`` (accept H0 at or below) and ``ln((1 - beta) / alpha)``
  (accept H1 at or above); in between the test continues.
- A deal set's score takes few values (for two players and two seat rotations: 0, 1/4, 1/2, 3/4, 1,
  fishtest's pentanomial). The scores seen so far are a multinomial sample over their distinct
  values. For each hypothesis the distribution of largest likelihood whose mean is s0 (or s1) is
  found (a one-dimensional root, see ``_tilt``), and the LLR is N times the mean log ratio of the
  two, as fishtest's ``LLR_logistic`` does.
- Regularisation, as fishtest's: every point of the grid 0, 1/4, 1/2, 3/4, 1 that was not seen
  counts ``PSEUDO_COUNT`` (1e-3) times. So the support always spans 0 to 1, and a prefix without
  spread (ten deal sets of exactly 1/2, two mirrored deterministic bots) gives a small LLR, not a
  verdict: the data say nothing about how the scores spread, and the test waits for them. On the
  pentanomial grid the LLR is fishtest's to rounding.

**The unit is the deal set**, not the match or the pair of seats. The matches of one deal set share
their deals (every seat rotation of every table on the same deal seed), so their outcomes are
correlated; deal sets are independent (the variants of a sweep play the same deal seeds, so they
share a deal set). For each (run, deal set), A's score against B is
the mean, over the matches of that deal set where both sit, of the pairwise outcome: 1 if A ranked
better than B, 1/2 for a tie, 0 if worse. When a bot holds several seats of a match (copies), the
match's outcome is the mean over every (A seat, B seat) pair. ``vs`` may name several bots (the
field of a gauntlet): B seats are then the seats of any of them.

No verdict before ``MIN_DEAL_SETS`` deal sets (the LLR is still reported).

Only **whole** deal sets count: when a run's plan (run.json) is known, a deal set whose planned
matches are not all stored (an interrupted run) is left out, since its missing seat rotations
would bias it; the rule is ``results.runs.partial_deal_sets``, the one the ratings and the balance
tables use too. Matches that ended early or by a fault count as played (a fault is a result);
their number is reported as ``incomplete``.

**Order.** Deal sets are taken in plan order (by run, then deal set number) everywhere: by
``sprt``, by ``SequentialTest`` as a run is played (a deal set finished early waits for the ones
planned before it) and so by ``--resume``. The same stored matches thus always give the same
verdict, at the same deal set.

**Symmetric hypotheses.** With ``elo0 = -elo1`` the two hypotheses are mirror images, and a pair
of bots that splits every deal set evenly (exact twins under duplicate deals) scores exactly 1/2,
halfway between them: the LLR stays 0 and the test never decides. Test twins with ``elo0 = 0``
(H0 is then accepted after about 200 deal sets of even splits, as in fishtest).

**What is left** (``remaining``): how many more deal sets the test should need if those to come
score like those seen so far: the exact LLR of the counts seen, scaled up, first crossing a bound
(None when it never does: the estimate lies halfway between the hypotheses).
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import polars as pl

from .fair import paired_deal_set_scores
from .runs import partial_deal_sets, whole
from .stats import t_quantile

MIN_DEAL_SETS = 10
PSEUDO_COUNT = 1e-3  # fishtest's regularisation of an unseen outcome
GRID = (0.0, 0.25, 0.5, 0.75, 1.0)  # the pentanomial values, regularised when unseen
VERDICTS = ("H1", "H0", "continue")
UNIT = ["run", "deal_set"]  # every variant of a sweep plays the same deals: one unit
_BLOCK = 1 << 21  # prefixes x support values evaluated at once (llr_path, first_decisions)


class SprtError(ValueError):
    """Options that make no test, or bots that are not in the runs; the message is one line."""


# Pure statistics ------------------------------------------------------------------------------------

def expected_score(elo: float) -> float:
    """The expected pairwise score of a bot ``elo`` Elo stronger than its opponent."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def elo_of(score: float) -> float:
    """The Elo difference whose expected score is ``score`` (±inf at 0 and 1)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0) + 0.0  # + 0.0: an even score is 0, not -0.0


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """(lower, upper): accept H0 at or below lower, H1 at or above upper."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def _support(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(values, grid mask, index of each score): the distinct scores and the grid, sorted."""
    x = np.round(x, 12)  # the same score computed two ways is one value
    values = np.union1d(x, GRID)
    return values, np.isin(values, GRID), np.searchsorted(values, x)


def _tilt(values: np.ndarray, weights: np.ndarray, s: float) -> np.ndarray:
    """For each row of ``weights`` (a distribution over ``values`` that gives 0 and 1 some weight), λ
    such that ``weights / (1 + λ (values - s))`` has mean s: the distribution of largest
    likelihood with that mean (fishtest's secular equation). Safeguarded Newton, vectorised."""
    d = values - s
    wd = weights * d
    lo = np.full(weights.shape[0], -1.0 / (1.0 - s) * (1.0 - 1e-15))
    hi = np.full(weights.shape[0], 1.0 / s * (1.0 - 1e-15))
    lam = np.clip(wd.sum(axis=1) / (wd * d).sum(axis=1), 0.5 * lo, 0.5 * hi)  # the normal approximation's root
    rows = np.arange(weights.shape[0])  # the rows still moving: each stops once its root is found
    for _ in range(200):
        at = lam[rows]
        wd_rows = wd[rows]
        r = 1.0 / (1.0 + at[:, None] * d)
        f = (wd_rows * r).sum(axis=1)
        slope = -((wd_rows * d) * (r * r)).sum(axis=1)
        low, high = np.where(f > 0, at, lo[rows]), np.where(f > 0, hi[rows], at)
        lo[rows], hi[rows] = low, high
        step = at - f / np.where(slope < 0, slope, -1.0)
        new = np.where((step >= low) & (step <= high), step, 0.5 * (low + high))
        lam[rows] = new
        moving = np.abs(new - at) > 1e-13 * (1.0 + np.abs(at))
        if not moving.any():
            break
        rows = rows[moving]
    return lam


def _llr_of_counts(values: np.ndarray, grid: np.ndarray, counts: np.ndarray, s0: float, s1: float) -> np.ndarray:
    """The regularised multinomial GLR for each row of ``counts`` (occurrences of each value)."""
    weights = np.where(grid & (counts == 0), PSEUDO_COUNT, counts.astype(float))
    total = weights.sum(axis=1)
    p = weights / total[:, None]
    lam0, lam1 = _tilt(values, p, s0), _tilt(values, p, s1)
    jump = np.log1p(lam0[:, None] * (values - s0)) - np.log1p(lam1[:, None] * (values - s1))
    return total * (p * jump).sum(axis=1)


def llr(scores, elo0: float, elo1: float) -> float:
    """The log-likelihood ratio of H1 against H0 (the regularised multinomial GLR; 0 with no unit)."""
    x = np.asarray(scores, dtype=float)
    if x.size == 0:
        return 0.0
    values, grid, index = _support(x)
    counts = np.bincount(index, minlength=values.size)[None, :]
    return float(_llr_of_counts(values, grid, counts, expected_score(elo0), expected_score(elo1))[0])


def llr_path(scores, elo0: float, elo1: float, start: int = 0, stop: int | None = None) -> np.ndarray:
    """The LLR after each unit of ``scores`` in turn: ``llr`` of the prefixes of lengths start+1 to
    ``stop`` (default: all)."""
    x = np.asarray(scores, dtype=float)
    stop = x.size if stop is None else min(stop, x.size)
    if stop <= start:
        return np.zeros(0)
    values, grid, index = _support(x[:stop])
    s0, s1 = expected_score(elo0), expected_score(elo1)
    before = np.bincount(index[:start], minlength=values.size)[None, :]
    block = max(1, _BLOCK // values.size)
    out = []
    for a in range(start, stop, block):
        path, before = _prefix_llrs(values, grid, index[None, a:min(stop, a + block)], before, s0, s1)
        out.append(path[0])
    return np.concatenate(out)


def _prefix_llrs(values, grid, index: np.ndarray, before: np.ndarray, s0: float, s1: float) -> tuple:
    """(the LLR after each unit of each row of ``index`` (rows, units: each unit's place in ``values``),
    the counts after the last), the rows' counts before them being ``before`` (rows, values)."""
    counts = before[:, None, :] + np.cumsum(np.eye(values.size, dtype=np.int64)[index], axis=1)
    path = _llr_of_counts(values, grid, counts.reshape(-1, values.size), s0, s1).reshape(len(index), -1)
    return path, counts[:, -1, :]


def first_decision(scores, elo0: float, elo1: float, alpha: float, beta: float,
                   min_deal_sets: int = MIN_DEAL_SETS) -> int | None:
    """How many units of ``scores``, taken in order, the test needs to decide (None: undecided).
    The path is computed in growing chunks, so a test that stops early costs little."""
    x = np.asarray(scores, dtype=float)
    return first_decisions(x[None, :], elo0, elo1, alpha, beta, min_deal_sets)[0]


def first_decisions(runs, elo0: float, elo1: float, alpha: float, beta: float,
                    min_deal_sets: int = MIN_DEAL_SETS) -> list[int | None]:
    """``first_decision`` of each row of ``runs`` (one sequence of unit scores a row, all of one
    length), computed together: a simulation of many tests pays numpy's overhead once a chunk, not
    once a test. The rows share one support; a value a row never has adds nothing to its LLR."""
    x = np.atleast_2d(np.asarray(runs, dtype=float))
    lower, upper = bounds(alpha, beta)
    s0, s1 = expected_score(elo0), expected_score(elo1)
    rows, length = x.shape
    values, grid, index = _support(x.ravel())
    index = index.reshape(rows, length)
    start, size = max(1, min_deal_sets) - 1, 256
    counts = np.eye(values.size, dtype=np.int64)[index[:, :start]].sum(axis=1)  # before the first that may decide
    found = np.full(rows, -1)
    active = np.arange(rows)
    while start < length and active.size:
        stop = min(length, start + size, start + max(1, _BLOCK // values.size))  # a chunk of one row stays small
        step = max(1, _BLOCK // (values.size * (stop - start)))
        for a in range(0, active.size, step):
            chunk = active[a:a + step]
            path, counts[chunk] = _prefix_llrs(values, grid, index[chunk, start:stop], counts[chunk], s0, s1)
            hit = (path >= upper) | (path <= lower)
            decided = hit.any(axis=1)
            found[chunk[decided]] = start + hit[decided].argmax(axis=1) + 1
        active = active[found[active] < 0]
        start, size = stop, size * 2
    return [int(n) if n >= 0 else None for n in found]


MAX_REMAINING = 10_000_000  # deal sets; beyond this the projection says "none in sight"


def remaining(scores, elo0: float, elo1: float, alpha: float, beta: float,
              min_deal_sets: int = MIN_DEAL_SETS) -> int | None:
    """The deal sets the test should still need if the ones to come score like those seen: the
    first total N at which the LLR of the counts seen scaled to N crosses a bound, minus those seen
    (0 when decided; None when no N up to ``MAX_REMAINING`` decides, or nothing was seen)."""
    x = np.asarray(scores, dtype=float)
    n = x.size
    if n == 0:
        return None
    lower, upper = bounds(alpha, beta)
    values, grid, index = _support(x)
    counts = np.bincount(index, minlength=values.size).astype(float)
    s0, s1 = expected_score(elo0), expected_score(elo1)

    def decided(total: np.ndarray) -> np.ndarray:
        path = _llr_of_counts(values, grid, counts[None, :] * (total[:, None] / n), s0, s1)
        return (path >= upper) | (path <= lower)

    first = max(n, min_deal_sets)
    if decided(np.array([float(first)]))[0]:
        return first - n
    totals = np.unique(np.geomspace(first, MAX_REMAINING, 200).astype(np.int64))
    hits = np.flatnonzero(decided(totals.astype(float)))
    if not hits.size:
        return None
    hi = int(totals[hits[0]])
    lo = int(totals[hits[0] - 1]) if hits[0] else first
    while hi - lo > 1:  # the path of a fixed distribution scaled up is monotone in N
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if decided(np.array([float(mid)]))[0] else (mid, hi)
    return hi - n


def check_parameters(elo0: float, elo1: float, alpha: float, beta: float) -> None:
    for name, value in (("elo0", elo0), ("elo1", elo1), ("alpha", alpha), ("beta", beta)):
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
            raise SprtError(f"--{name} must be a finite number, got {value!r}")
    for name, value in (("alpha", alpha), ("beta", beta)):
        if not 0.0 < value < 0.5:
            raise SprtError(f"--{name} must be between 0 and 0.5 (exclusive), got {value}")
    if not elo1 > elo0:
        raise SprtError(f"--elo1 must be above --elo0, got elo0 {elo0} and elo1 {elo1}")


def verdict_claim(result: dict, bot: str, vs: str) -> str | None:
    """What a decided test says of ``bot`` against ``vs``, and no more (None while it continues).
    Accepting H1 says the difference is above elo0 (wrongly, at most alpha of the time, when it is
    elo0 or less); accepting H0 that it is below elo1 (wrongly, at most beta of the time, when it is
    elo1 or more). Neither says that it is at least elo1: a true difference halfway between the two
    is accepted as H1 about half the time."""
    said = {"H1": (result["elo0"], "stronger than {vs}", "more than {e:g} Elo stronger than {vs}",
                   "less than {m:g} Elo weaker than {vs}, if weaker at all"),
            "H0": (result["elo1"], "not stronger than {vs}", "less than {e:g} Elo stronger than {vs}, if stronger at all",
                   "more than {m:g} Elo weaker than {vs}")}.get(result.get("verdict"))
    if said is None:
        return None
    e, at_zero, above, below = said
    return f"{bot} is " + (at_zero if e == 0 else above if e > 0 else below).format(vs=vs, e=e, m=-e)


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def sprt_from_scores(scores, elo0: float = 0.0, elo1: float = 5.0, alpha: float = 0.05, beta: float = 0.05,
                     min_deal_sets: int = MIN_DEAL_SETS) -> dict:
    """The test on per-deal-set scores (each in [0, 1]): llr, lower, upper, verdict, deal_sets,
    score, elo, elo_lo, elo_hi (infinite Elo values are None)."""
    check_parameters(elo0, elo1, alpha, beta)
    x = np.asarray(scores, dtype=float)
    lower, upper = bounds(alpha, beta)
    value = llr(x, elo0, elo1)
    verdict = "continue"
    if x.size >= max(1, min_deal_sets):
        verdict = "H1" if value >= upper else "H0" if value <= lower else "continue"
    out = {"elo0": elo0, "elo1": elo1, "alpha": alpha, "beta": beta, "llr": value, "lower": lower, "upper": upper,
           "verdict": verdict, "deal_sets": int(x.size), "min_deal_sets": max(1, min_deal_sets),
           "score": None, "elo": None, "elo_lo": None, "elo_hi": None, "score_lo": None, "score_hi": None,
           "remaining": 0 if verdict != "continue" else remaining(x, elo0, elo1, alpha, beta, min_deal_sets),
           "symmetric": elo0 == -elo1}
    if x.size:
        mean = float(x.mean())
        out["score"], out["elo"] = mean, _finite(elo_of(mean))
    if x.size >= 2 and float(x.std()) > 0.0:  # no spread between deal sets: no interval
        half = t_quantile(0.95, x.size - 1) * float(x.std(ddof=1)) / math.sqrt(x.size)
        out["score_lo"], out["score_hi"] = mean - half, mean + half  # past 0 or 1: that side's Elo is infinite
        out["elo_lo"], out["elo_hi"] = _finite(elo_of(mean - half)), _finite(elo_of(mean + half))
    return out


def elo_words(result: dict, number) -> str:
    """The Elo estimate and its 95% interval as shown, each value by ``number``: "E [LO, HI]", a side
    past every possible score as −∞ or +∞ (they are None in the result, which JSON keeps), or the
    estimate with why there is no interval (one deal set, or deal sets that all scored the same)."""
    score = result.get("score")
    elo = result.get("elo")
    estimate = number(elo) if elo is not None else "+∞" if score == 1 else "−∞" if score == 0 else number(None)
    if "score_lo" not in result:  # recorded before the score interval was kept
        return f"{estimate} [{number(result.get('elo_lo'))}, {number(result.get('elo_hi'))}]"
    if result["score_lo"] is None:
        why = "one deal set" if result.get("deal_sets", 0) < 2 else "every deal set scored the same"
        return f"{estimate}, no interval ({why})" if result.get("deal_sets") else estimate
    lo = number(result["elo_lo"]) if result["elo_lo"] is not None else "−∞"
    hi = number(result["elo_hi"]) if result["elo_hi"] is not None else "+∞"
    return f"{estimate} [{lo}, {hi}]"


def paired_elo(elo: float) -> float:
    """The Elo value whose expected score is the mean paired score (results/fair.py) of a bot ``elo``
    stronger: a score s becomes s/2 + 1/4."""
    return elo_of(expected_score(elo) / 2 + 0.25)


def _unpaired_elo(elo: float | None) -> float | None:
    if elo is None:
        return None
    return _finite(elo_of(min(1.0, max(0.0, 2 * expected_score(elo) - 0.5))))


def paired_result(scores, elo0: float = 0.0, elo1: float = 5.0, alpha: float = 0.05, beta: float = 0.05,
                  min_deal_sets: int = MIN_DEAL_SETS) -> dict:
    """``sprt_from_scores`` on the paired scores of a fair run: the test of the mapped hypotheses
    (``paired_elo``), told on the bots' own scale (the hypotheses as given, the score and its Elo
    interval mapped back)."""
    check_parameters(elo0, elo1, alpha, beta)
    out = sprt_from_scores(scores, paired_elo(elo0), paired_elo(elo1), alpha, beta, min_deal_sets)
    out.update(elo0=elo0, elo1=elo1, symmetric=elo0 == -elo1, paired=True)
    for key in ("score", "score_lo", "score_hi"):
        if out[key] is not None:
            out[key] = 2 * out[key] - 0.5
    if out["score"] is not None:
        out["score"] = min(1.0, max(0.0, out["score"]))
    for key in ("elo", "elo_lo", "elo_hi"):
        out[key] = _unpaired_elo(out[key])
    return out


def _is_paired(runs) -> bool:
    """Whether the runs were played under the fair design (then their deal sets are scored paired with
    the control); runs of the fair design and of another are not tested together."""
    fair = {(plan or {}).get("design") == "fair" for plan in runs.plans} or {False}
    if len(fair) > 1:
        raise SprtError("runs of the fair design (scored against their control tables) and of another design "
                        "cannot be tested together: give one kind")
    return fair.pop()


# Deal-set scores from match rows ---------------------------------------------------------------------

def deal_set_scores(matches: pl.LazyFrame, bot: str, vs: list[str] | None) -> pl.LazyFrame:
    """Per (run, deal set) where A and B met: A's score against B (``score``), the number of such
    matches (``matches``) and how many of them were not complete (``incomplete``). ``vs`` None: B is
    every bot other than A. The variants of a sweep share their deal sets, so a deal set pools them."""
    match = ["run", "variant", "deal_set", "match_id"]
    rows = matches.select(*match, "bot", "rank", "termination")
    a = rows.filter(pl.col("bot") == bot).select(*match, pl.col("rank").alias("rank_a"))
    b_seat = pl.col("bot") != bot if vs is None else pl.col("bot").is_in(vs)
    b = rows.filter(b_seat).select(*match, pl.col("rank").alias("rank_b"))
    outcome = (pl.when(pl.col("rank_a") < pl.col("rank_b")).then(1.0)
               .when(pl.col("rank_a") == pl.col("rank_b")).then(0.5).otherwise(0.0))
    incomplete = rows.group_by(match).agg((pl.col("termination") != "complete").any().alias("incomplete"))
    return (a.join(b, on=match, how="inner")
            .group_by(match).agg(outcome.mean().alias("outcome"))
            .join(incomplete, on=match, how="left")
            .group_by(UNIT).agg(pl.col("outcome").mean().alias("score"), pl.len().alias("matches"),
                                pl.col("incomplete").sum().alias("incomplete"))
            .sort(UNIT))


def _vs_list(vs) -> list[str] | None:
    if vs is None:
        return None
    return [vs] if isinstance(vs, str) else list(vs)


def resolve_label(name: str, bots: list[str]) -> str:
    """``name`` as a bot label of the runs (``bots``): itself when it is one, else ``builtin:NAME`` when
    that is one (the short name tables print); raises SprtError otherwise."""
    if name in bots:
        return name
    if f"builtin:{name}" in bots:
        return f"builtin:{name}"
    raise SprtError(f"bot {name} is not in the runs (bots: {', '.join(bots)})")


def sprt(runs, bot: str, vs=None, elo0: float = 0.0, elo1: float = 5.0, alpha: float = 0.05,
         beta: float = 0.05) -> dict:
    """The SPRT of ``bot`` against ``vs`` (a bot label, a list of labels pooled as one field, or None
    for every other bot) over the complete deal sets of ``runs`` (``results.runs.Runs``). A built-in
    bot may be named without its ``builtin:`` prefix when no bot of the runs has the short name."""
    check_parameters(elo0, elo1, alpha, beta)
    opponents = _vs_list(vs)
    if opponents is not None and not opponents:
        raise SprtError(f"--vs must name one or more bots other than --bot {bot}")
    bots = runs.matches.select(pl.col("bot").unique()).sort("bot").collect()["bot"].to_list()
    bot = resolve_label(bot, bots)
    if opponents is None:
        opponents = [b for b in bots if b != bot]
    opponents = [resolve_label(b, bots) for b in opponents]
    if bot in opponents:
        raise SprtError(f"--vs must name one or more bots other than --bot {bot}")
    if not opponents:
        raise SprtError(f"the runs hold no other bot than {bot}")
    paired = _is_paired(runs)
    query, test = (paired_deal_set_scores, paired_result) if paired else (deal_set_scores, sprt_from_scores)
    partial = partial_deal_sets(runs)
    keep = query(whole(runs.matches, partial), bot, opponents).collect()
    left_out = query(runs.matches, bot, opponents).join(
        partial.select(UNIT).lazy().cast({"deal_set": keep.schema["deal_set"]}), on=UNIT, how="semi").collect()
    result = test(keep["score"].to_list(), elo0, elo1, alpha, beta)
    return {"bot": bot, "vs": opponents[0] if len(opponents) == 1 else opponents, **result,
            "matches": int(keep["matches"].sum()), "incomplete": int(keep["incomplete"].sum()),
            "partial_deal_sets": left_out.height}


# The test as a run goes ------------------------------------------------------------------------------

class SequentialTest:
    """The SPRT of a run being played: feed it the match rows as tasks finish (``add``); each deal
    set is scored once all its planned matches are in and every deal set planned before it is
    scored (plan order, as ``sprt`` and ``--resume`` take them), and the test is checked after
    every deal set, so it stops at the first one that decides. Pure: no I/O."""

    COLUMNS = ("run", "variant", "deal_set", "match_id", "seat", "bot", "rank", "termination")

    def __init__(self, planned_matches: list[dict], bot: str, vs: list[str], elo0: float = 0.0,
                 elo1: float = 5.0, alpha: float = 0.05, beta: float = 0.05, paired: bool = False):
        """``paired``: a run of the fair design, each deal set scored against its control table."""
        check_parameters(elo0, elo1, alpha, beta)
        self.query, self.test = (paired_deal_set_scores, paired_result) if paired else (deal_set_scores,
                                                                                           sprt_from_scores)
        self.bot, self.vs = bot, list(vs)
        self.params = {"elo0": elo0, "elo1": elo1, "alpha": alpha, "beta": beta}
        self.planned = Counter(m["deal_set"] for m in planned_matches)
        self.order = sorted(self.planned)  # plan order
        self.next = 0  # the place in ``order`` of the next deal set to score
        self.pending: dict = {}  # deal set -> {match id: rows}
        self.whole: set = set()  # deal sets with every planned match in, waiting for their turn
        self.scores: list[float] = []
        self.matches = 0
        self.incomplete = 0
        self.state = self._state()

    @property
    def decided(self) -> bool:
        return self.state["verdict"] != "continue"

    def add(self, rows) -> dict:
        """Take the rows of finished matches; returns the state (see ``sprt``'s dict). Once decided,
        further rows change nothing."""
        if self.decided:
            return self.state
        for row in rows:
            key = row["deal_set"]
            seats = self.pending.setdefault(key, {}).setdefault(row["match_id"], [])
            seats.append({c: row[c] for c in self.COLUMNS})
            if len(self.pending[key]) == self.planned.get(key):
                self.whole.add(key)
        while self.next < len(self.order) and self.order[self.next] in self.whole:
            key = self.order[self.next]
            self.next += 1
            self.whole.discard(key)
            self._score(self.pending.pop(key))
            self.state = self._state()
            if self.decided:
                break
        return self.state

    def _score(self, by_match: dict) -> None:
        frame = pl.DataFrame([r for rows in by_match.values() for r in rows]).lazy()
        scored = self.query(frame, self.bot, self.vs).collect()
        if scored.height:
            self.scores.append(float(scored["score"][0]))
            self.matches += int(scored["matches"][0])
            self.incomplete += int(scored["incomplete"][0])

    def _state(self) -> dict:
        result = self.test(self.scores, **self.params)
        vs = self.vs[0] if len(self.vs) == 1 else self.vs
        return {"bot": self.bot, "vs": vs, **result, "matches": self.matches, "incomplete": self.incomplete}


__all__ = ["SprtError", "SequentialTest", "bounds", "deal_set_scores", "elo_of", "elo_words", "expected_score", "first_decision",
           "llr", "resolve_label", "verdict_claim", "llr_path", "first_decisions", "paired_elo", "paired_result", "sprt", "sprt_from_scores", "MIN_DEAL_SETS", "PSEUDO_COUNT"]
