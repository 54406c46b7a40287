"""A value aligned with the rating (issue 28, ninth stage): the match-equity table and the spread model
behind ``vgreedy:rank=1`` (bots/value/equity.py), fitted on a self-play data set, and how often the
rank-aware utility picks another turn than V.

    nice -n 19 .venv/bin/python -m benchmarks.rank fit DATA OUT.json     # the table and the spread model
    nice -n 19 .venv/bin/python -m benchmarks.rank changed MATCHES FIRST [EQUITY.json|flat]   # decisions changed

``fit`` reads the self-play rows (``harness.runs.selfplay.read_data``: 3-round matches, one row per
play moment with that seat's round ``score``), sums each seat's match totals and fits, for each number
of rounds left L after a round's start, the chance that a seat ends the match below an opponent given
its lead over it (that opponent's total minus its own, in hundreds): a probit ``Phi(d / s_L)`` (the
sum of L rounds' pairwise differences, normal), with a logistic ``1 / (1 + exp(-b_L d))`` beside it for
the record, and the empirical shares by lead. Then the spread: for every row the squared residual of
the pairwise round result against V, ``mean_j ((s_j - s_i) / 100 - V)^2``, regressed on V's quadratic
features (``bots.value.fit.PAIRS``; every tenth game held out, as V's fit does): its held-out R2, and
how much the predicted spread varies. OUT.json is the sealed payload that bots/value/equity.py loads.

``changed`` plays MATCHES 3-round four-player matches (deals FIRST...) of ``vgreedy:rank=1`` at seat
``deal % 4`` against greedy and, at each of its play decisions with two or more candidates, compares
the candidate with the best rank-aware utility to V's best: the share that differ, by round (``flat``:
with one spread, the held-out mean, for every position instead of the spread model).

    .venv/bin/python -m benchmarks.rank paired NAME_A NAME_B RUN_A:RUN_B [RUN_A2:RUN_B2 ...]

``paired`` compares gauntlet runs on the same deal sets (each pair of runs one seed): per deal set, each
challenger's mean pairwise match result against the other seats (1 below, 0.5 level, 0 above, as the
rating counts them) and its mean total minus theirs, and the mean paired difference with its SE; and
the challenger's mean round score in each round of the match, paired the same way.
"""

from __future__ import annotations

import json
import math
import sys
import time
from collections import defaultdict

import numpy as np

from bots.value.features import FEATURES
from bots.value.fit import PAIRS, fit_linear, predict
from bots.value.model import seal, shipped
from bots.value.train import HOLDOUT, matrices
from harness.runs.selfplay import read_data


def round_scores(columns: dict, players: int = 4) -> dict:
    """{(game, round): [score of each seat]}, a seat without a row in that round filled in from another
    seat's margin (the others' mean minus its own)."""
    got = defaultdict(dict)
    margin_of = {}
    for g, r, s, sc, m in zip(columns["game"], columns["round"], columns["seat"], columns["score"], columns["margin"]):
        key = (int(g), int(r))
        got[key][int(s)] = float(sc)
        margin_of[key] = (int(s), float(sc), float(m))
    out = {}
    for key, seats in got.items():
        if len(seats) < players:
            s, sc, m = margin_of[key]
            total = (players - 1) * (m + sc) + sc
            missing = [t for t in range(players) if t not in seats]
            if len(missing) == 1:
                seats[missing[0]] = total - sum(seats.values())
            else:
                continue
        out[key] = [seats[s] for s in range(players)]
    return out


def phi(z):
    return 0.5 * (1 + np.vectorize(math.erf)(z / math.sqrt(2)))


def fit_probit(d: np.ndarray, y: np.ndarray) -> float:
    """The scale s of P = Phi(d / s) by maximum likelihood (y in [0, 1], ties 0.5), over a grid then refined."""
    def nll(s):
        p = np.clip(phi(d / s), 1e-9, 1 - 1e-9)
        return -float(np.sum(y * np.log(p) + (1 - y) * np.log(1 - p)))
    grid = np.linspace(0.2, 5.0, 97)
    best = min(grid, key=nll)
    lo, hi = best - 0.05, best + 0.05
    for _ in range(40):  # golden section
        a, b = lo + 0.382 * (hi - lo), lo + 0.618 * (hi - lo)
        if nll(a) < nll(b):
            hi = b
        else:
            lo = a
    return float((lo + hi) / 2)


def fit_logistic(d: np.ndarray, y: np.ndarray) -> float:
    """The slope b of P = 1 / (1 + exp(-b d)) (no intercept: the table is symmetric), by Newton steps."""
    b = 1.0
    for _ in range(50):
        p = 1 / (1 + np.exp(-b * d))
        g = float(np.sum((y - p) * d))
        h = float(np.sum(p * (1 - p) * d * d))
        b += g / h
    return b


def equity_table(scores: dict, rounds: int = 3, players: int = 4) -> dict:
    """For each L = rounds left at a round's start (1 .. rounds - 1): the pairs (lead, outcome)."""
    games = defaultdict(dict)
    for (g, r), sc in scores.items():
        games[g][r] = sc
    data = {L: ([], []) for L in range(1, rounds)}
    for g, rs in games.items():
        if sorted(rs) != list(range(rounds)):
            continue  # a void round or a missing one: leave the match out
        totals = np.zeros(players)
        final = np.sum([rs[r] for r in range(rounds)], axis=0)
        for r in range(rounds):
            L = rounds - r
            if L < rounds:
                for i in range(players):
                    for j in range(players):
                        if i != j:
                            data[L][0].append((totals[j] - totals[i]) / 100)
                            data[L][1].append(1.0 if final[i] < final[j] else 0.5 if final[i] == final[j] else 0.0)
            totals = totals + np.asarray(rs[r])
    return {L: (np.asarray(d), np.asarray(y)) for L, (d, y) in data.items()}


def fit(folder: str, out: str) -> dict:
    t0 = time.process_time()
    meta, columns = read_data(folder)
    rounds = int(meta["spec"].get("overrides", {}).get("rounds", 3))
    players = int(meta["spec"].get("overrides", {}).get("players", 4))
    scores = round_scores(columns, players)
    report = {"data": str(folder), "rows": int(len(columns["game"])), "rounds": rounds, "players": players}
    # a. the match-equity table
    table = {}
    for L, (d, y) in equity_table(scores, rounds, players).items():
        s = fit_probit(d, y)
        b = fit_logistic(d, y)
        bins = [-3, -1.5, -1, -0.5, -0.25, 0.25, 0.5, 1, 1.5, 3]
        shares = []
        for lo, hi in zip(bins[:-1], bins[1:]):
            m = (d >= lo) & (d < hi)
            if m.sum():
                shares.append({"lead": f"{lo:+g}..{hi:+g}", "n": int(m.sum()), "share": round(float(y[m].mean()), 3),
                               "probit": round(float(phi(np.asarray([d[m].mean() / s]))[0]), 3)})
        table[L] = s
        report[f"L{L}"] = {"pairs": int(len(d)), "probit_scale": round(s, 4), "logistic_slope": round(b, 4),
                           "lead_sd": round(float(d.std()), 3), "bins": shares}
    # the pairwise round result of one round: its spread (for rounds beyond the table)
    x = np.asarray([sc[j] - sc[i] for sc in scores.values() for i in range(players) for j in range(players)
                    if i != j]) / 100
    report["round_pair_sd"] = round(float(x.std()), 4)
    # b. the spread model: the squared residual of the pairwise round result against V
    X, _y, games = matrices(columns)
    value = shipped("standard.json").payload
    V = predict(value, X)
    seat = np.asarray(columns["seat"], dtype=np.int64)
    keys = list(zip(columns["game"].tolist(), columns["round"].tolist()))
    resid2 = np.empty(len(V))
    ok = np.ones(len(V), dtype=bool)
    for k, (key, s) in enumerate(zip(keys, seat)):
        sc = scores.get(key)
        if sc is None:
            ok[k] = False
            continue
        resid2[k] = np.mean([((sc[j] - sc[s]) / 100 - V[k]) ** 2 for j in range(players) if j != s])
    held = games % HOLDOUT == 0
    train, test = ~held & ok, held & ok
    spread = fit_linear(X[train], resid2[train], card={"target": "mean_j ((s_j - s_i)/100 - V)^2",
                                                      "data": str(folder)}, pairs=PAIRS)
    pred = predict(spread, X[test])
    r2 = 1 - float(np.mean((resid2[test] - pred) ** 2)) / float(resid2[test].var())
    sd = np.sqrt(np.maximum(pred, 0.01))
    report["spread"] = {"rows_train": int(train.sum()), "rows_test": int(test.sum()),
                        "r2_holdout": round(r2, 4), "mean_resid2": round(float(resid2[test].mean()), 4),
                        "sd_pred_mean": round(float(sd.mean()), 4),
                        "sd_pred_p10_p50_p90": [round(float(v), 3) for v in np.percentile(sd, [10, 50, 90])],
                        "negative_preds": int((pred < 0.01).sum())}
    # spread against V: is the spread just a function of V?
    report["spread"]["corr_sd_V"] = round(float(np.corrcoef(sd, V[test])[0, 1]), 4)
    payload = seal({"kind": "rank", "version": 1, "players": players, "rounds": rounds,
                    "scale": {str(L): round(s, 6) for L, s in table.items()},
                    "round_sd": report["round_pair_sd"], "floor": 0.01,
                    "spread": seal(spread), "card": {"command": "python -m benchmarks.rank " + " ".join(sys.argv[1:]), "figures": report}})
    with open(out, "w") as f:
        f.write(json.dumps(payload, sort_keys=True, indent=1) + "\n")
    report["cpu_s"] = round(time.process_time() - t0, 1)
    print(json.dumps(report, indent=1))
    return report


class Probe:
    """``vgreedy:rank=1`` that records, at each play decision with two or more candidates, whether the
    candidate with the best rank-aware utility is V's best, with the round and the match situation."""

    def __init__(self, seed, equity=None):
        from bots.vgreedy import VGreedy
        self.bot = VGreedy(seed, rank=1, equity=equity)
        self.log = []

    def __getattr__(self, name):
        return getattr(self.bot, name)

    def decide(self, view, legal):
        if view.phase == "play":
            from bots.value.score import Scorer
            options = self.bot.options(view, legal)
            if len(options) > 1:
                u = self.bot.scores(view, options)
                plain = Scorer(self.bot.value, view)
                v = [o.score(plain) for o in options]
                iu, iv = u.index(max(u)), v.index(max(v))
                spread = Scorer(self.bot.equity.spread, view)  # the expected squared residual over the next draw
                sds = [math.sqrt(max(o.score(spread), 0.01)) for o in options
                       if getattr(o, "plan", None) is not None and any(o.hand_after())]
                self.log.append({"round": view.round_number, "options": len(options), "differs": iu != iv and v[iv] - v[iu] > 1e-9,
                                 "v_loss": round(v[iv] - v[iu], 4), "u_gain": round(u[iu] - u[iv], 5),
                                 "sd_range": round(max(sds) - min(sds), 4) if len(sds) > 1 else None,
                                 "v_range": round(max(v) - min(v), 4),
                                 "lead": round(sum(view.totals[s] - view.totals[view.seat] for s in range(view.players)
                                                   if s != view.seat) / (view.players - 1), 1)})
        return self.bot.decide(view, legal)


def changed(matches: int, first: int, path=None) -> dict:
    from bots import make_bot
    from bots.value.equity import Equity, load_equity
    from engine import make_rules, new_match
    t0 = time.process_time()
    rules = make_rules("standard", {"players": 4, "rounds": 3})
    equity = load_equity(path) if path and path != "flat" else None
    if path == "flat":  # the same table with one spread for every position: what the spread model adds
        payload = load_equity().payload
        mean = float(payload["card"]["figures"]["spread"]["mean_resid2"])
        equity = Equity(payload, lambda rows: [mean] * len(rows))
    log = []
    for deal in range(first, first + matches):
        seat = deal % 4
        match = new_match("ellibir", rules, deal)
        bots = [make_bot("greedy", f"c:{deal}:{s}") for s in range(4)]
        probe = Probe(f"c:{deal}:{seat}", equity)
        bots[seat] = probe
        for s, bot in enumerate(bots):
            bot.start(s, rules)
        while not match.is_over:
            s = match.to_move()
            decision = bots[s].decide(match.observe(s), match.legal(s))
            if not match.apply(s, decision).accepted:
                bots[s].refused(None)
        log += probe.log
    out = {"matches": matches, "first": first, "decisions": len(log),
           "differs": round(sum(r["differs"] for r in log) / max(1, len(log)), 4)}
    for r in (1, 2, 3):
        rows = [x for x in log if x["round"] == r]
        if rows:
            diff = [x for x in rows if x["differs"]]
            out[f"round{r}"] = {"decisions": len(rows), "differs": round(len(diff) / len(rows), 4),
                                "mean_v_loss_when_differs": round(sum(x["v_loss"] for x in diff) / len(diff), 4)
                                if diff else 0.0}
    ranges = sorted(x["sd_range"] for x in log if x["sd_range"] is not None)
    vr = sorted(x["v_range"] for x in log)
    if ranges:
        out["sd_range_between_candidates_p50_p90"] = [ranges[len(ranges) // 2], ranges[int(len(ranges) * 0.9)]]
        out["v_range_between_candidates_p50_p90"] = [vr[len(vr) // 2], vr[int(len(vr) * 0.9)]]
    out["cpu_s"] = round(time.process_time() - t0, 1)
    print(json.dumps(out, indent=1))
    return out


def deal_set_scores(run: str, challenger: str) -> dict:
    """{deal_set: (the challenger's mean pairwise match result against the other seats, its mean total
    minus theirs)} over the matches of a gauntlet run (low totals win; a tie counts half)."""
    import polars as pl
    m = pl.read_parquet(f"{run}/matches/*.parquet").select("match_id", "deal_set", "seat", "bot", "total")
    per = defaultdict(list)
    for (_mid,), g in m.group_by(["match_id"]):
        rows = g.to_dicts()
        me = [r for r in rows if r["bot"] == challenger]
        if len(me) != 1:
            continue
        me = me[0]
        opp = [r for r in rows if r is not me]
        pair = sum(1.0 if me["total"] < o["total"] else 0.5 if me["total"] == o["total"] else 0.0 for o in opp) / len(opp)
        diff = me["total"] - sum(o["total"] for o in opp) / len(opp)
        per[me["deal_set"]].append((pair, diff))
    return {d: (sum(p for p, _ in v) / len(v), sum(x for _, x in v) / len(v)) for d, v in per.items()}


def paired(name_a: str, name_b: str, pairs: list) -> dict:
    """The paired difference per deal set between gauntlet runs on the same deal sets (same seed), each
    pair ``RUN_A:RUN_B``; the deal sets of several pairs pooled."""
    xa, xb, ta, tb, rounds = [], [], [], [], defaultdict(list)
    for pair in pairs:
        run_a, run_b = pair.split(":")
        a, b = deal_set_scores(run_a, name_a), deal_set_scores(run_b, name_b)
        for d in sorted(set(a) & set(b)):
            xa.append(a[d][0])
            xb.append(b[d][0])
            ta.append(a[d][1])
            tb.append(b[d][1])
        ra, rb = round_scores_of(run_a, name_a), round_scores_of(run_b, name_b)
        for k in ra:
            if k in rb:
                rounds[k[1]].append(ra[k] - rb[k])
    out = {"runs": pairs, "deal_sets": len(xa)}
    for label, (va, vb) in (("pairwise_result", (xa, xb)), ("total_minus_others", (ta, tb))):
        va, vb = np.asarray(va), np.asarray(vb)
        diff = va - vb
        out[label] = {name_a: round(float(va.mean()), 4), name_b: round(float(vb.mean()), 4),
                      "diff": round(float(diff.mean()), 4),
                      "se": round(float(diff.std(ddof=1) / math.sqrt(len(diff))), 4),
                      "se_unpaired": round(float(math.sqrt(va.var(ddof=1) / len(va) + vb.var(ddof=1) / len(vb))), 4),
                      "corr": round(float(np.corrcoef(va, vb)[0, 1]), 3)}
    for rn in sorted(rounds):
        diff = np.asarray(rounds[rn])
        out[f"round{rn}_score_diff"] = {"deal_sets": len(diff), "diff": round(float(diff.mean()), 2),
                                        "se": round(float(diff.std(ddof=1) / math.sqrt(len(diff))), 2)}
    print(json.dumps(out, indent=1))
    return out


def round_scores_of(run: str, name: str) -> dict:
    """{(deal_set, round number): the challenger's mean round score} over a run's counted rounds."""
    import polars as pl
    r = pl.read_parquet(f"{run}/rounds/*.parquet").filter((pl.col("bot") == name) & ~pl.col("void"))
    g = r.group_by(["deal_set", "round_number"]).agg(pl.col("score").mean())
    return {(d, n): v for d, n, v in g.iter_rows()}


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[0] == "fit":
        fit(args[1], args[2])
    elif args[0] == "changed":
        changed(int(args[1]), int(args[2]), args[3] if len(args) > 3 else None)
    elif args[0] == "paired":
        paired(args[1], args[2], args[3:])
    else:
        raise SystemExit(__doc__)
