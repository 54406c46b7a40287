"""V with a less noisy target than the round's end (issue 28): fitted TD(lambda) on a self-play data set.

The shipped recipe (``bots.value.train.fit_columns``, quadratic) regresses each play moment's features
on the round's final margin: one round's luck is most of that target (held-out R2 about 0.29). Here
the target of a row is instead the lambda-return built from the current model's value of the same
seat's next play moment in the same game and round (its features, as that row recorded them):

    G(t) = margin                                  when the seat does not play again in the round
    G(t) = (1 - lambda) * V_k(x(t+1)) + lambda * G(t+1)   otherwise

(lambda = 0: TD(0), V at the next play moment; lambda = 1: the round's margin, the shipped target).
Starting from V_0, the shipped recipe's fit on the same data, each iteration fits the same quadratic
ridge (``fit.fit_linear`` with ``fit.PAIRS``) on G computed with V_k, on the same training games (every
tenth game held out, as ``train.fit_columns`` does). Everything is numpy and deterministic.

    .venv/bin/python -m benchmarks.value_td DATA OUTDIR [--iters=5] [--lambdas=0,0.5,0.8] [--save=1,3,5] [--kind=mlp]

writes ``OUTDIR/base.json`` (the shipped recipe on DATA) and ``OUTDIR/td{lambda}_k{K}.json`` for the
iterations named by ``--save``: sealed weights files (bots/value/model.py) that
``benchmarks/paired_many.py`` loads as ``vgreedy@FILE.json``; and ``OUTDIR/td.json``, the held-out
figures of every fit (correlation and R2 against the final margin, against the TD target, the AUC of
the seat that goes out), also printed one line each. The shipped model's figures on the same held-out
rows are given for reference. With ``--kind=mlp`` the same is done with the 32-unit tanh network
(``fit.fit_mlp``, seed 0) in place of the quadratic ridge, its files named ``mlp_...``.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

from bots.value.fit import PAIRS, fit_linear, fit_mlp, predict
from bots.value.model import WEIGHTS, save
from bots.value.train import HOLDOUT, auc, fit_columns, matrices
from harness.runs.selfplay import read_data


def order_and_next(columns: dict) -> tuple:
    """The rows' chronological order (by game, round, seat, turn) and, for each row in that order, the
    index (in that order) of the same seat's next play moment in the same game and round, or -1."""
    game = np.asarray(columns["game"], dtype=np.int64)
    rnd = np.asarray(columns["round"], dtype=np.int64)
    seat = np.asarray(columns["seat"], dtype=np.int64)
    turn = np.asarray(columns["turn_number"], dtype=np.int64)
    order = np.lexsort((turn, seat, rnd, game))
    g, r, s, t = game[order], rnd[order], seat[order], turn[order]
    same = (g[1:] == g[:-1]) & (r[1:] == r[:-1]) & (s[1:] == s[:-1])
    if np.any(same & (t[1:] <= t[:-1])):
        raise SystemExit("two play moments of one seat in one round share a turn number")
    nxt = np.full(len(order), -1, dtype=np.int64)
    nxt[:-1][same] = np.arange(1, len(order))[same]
    return order, nxt


def lambda_return(values: np.ndarray, margin: np.ndarray, nxt: np.ndarray, lam: float) -> np.ndarray:
    """G for every row (rows in chronological order, ``values`` V_k at each row, ``nxt`` as above)."""
    G = margin.copy()
    # a row's next moment comes later in the order: fill from the end
    for i in range(len(G) - 1, -1, -1):
        j = nxt[i]
        if j >= 0:
            G[i] = (1 - lam) * values[j] + lam * G[j]
    return G


def scores(payload: dict, X: np.ndarray, margin: np.ndarray, win: np.ndarray, target: np.ndarray | None = None) -> dict:
    pred = predict(payload, X)
    out = {"corr_margin": round(float(np.corrcoef(pred, margin)[0, 1]), 4),
           "r2_margin": round(float(1 - (margin - pred).var() / margin.var()), 4),
           "mae_points": round(float(np.abs(pred - margin).mean() * 100), 2),
           "win_auc": round(auc(pred, win), 4),
           "mean_pred": round(float(pred.mean()), 4), "sd_pred": round(float(pred.std()), 4)}
    if target is not None:
        out["r2_target"] = round(float(1 - (target - pred).var() / target.var()), 4)
    return out


def main(argv: list) -> None:
    from bots.value.selfplay import SelfPlay

    args = [a for a in argv if not a.startswith("--")]
    opts = dict(a[2:].split("=", 1) for a in argv if a.startswith("--"))
    data, outdir = Path(args[0]), Path(args[1])
    iters = int(opts.get("iters", 5))
    lambdas = [float(v) for v in opts.get("lambdas", "0,0.5,0.8").split(",")]
    keep = {int(v) for v in opts.get("save", "1,3,5").split(",")}
    ridge = float(opts.get("ridge", 1.0))
    kind = opts.get("kind", "quadratic")  # or mlp: the 32-unit tanh network (fit.fit_mlp, seed 0) throughout
    prefix = "" if kind == "quadratic" else f"{kind}_"
    settings = {"ridge": ridge} if kind == "quadratic" else {}
    outdir.mkdir(parents=True, exist_ok=True)

    meta, columns = read_data(data)
    rules = SelfPlay.of_json(meta["spec"]).rules()
    order, nxt = order_and_next(columns)
    X, y, games = matrices(columns)
    X, y, games = X[order], y[order], games[order]
    win = np.asarray(columns["win"], dtype=np.float64)[order]
    held = games % HOLDOUT == 0
    train = ~held
    print(f"{len(y)} rows, {len(np.unique(games))} games, {int(held.sum())} held out; "
          f"{int((nxt >= 0).sum())} rows with a next moment", flush=True)

    report = {"data": str(data), "rows": int(len(y)), "holdout_rows": int(held.sum()), "fits": {}}

    def record(name: str, payload: dict, target=None) -> None:
        figs = scores(payload, X[held], y[held], win[held], None if target is None else target[held])
        report["fits"][name] = figs
        print(name, json.dumps(figs), flush=True)

    shipped = json.loads((WEIGHTS / "standard.json").read_text())
    record("shipped", shipped)

    start = time.process_time()
    base = fit_columns(columns, kind, 0,
                       {"recipe": f"shipped ({kind}, margin target)", "data": meta}, rules=rules, **settings)
    save(base, outdir / f"{prefix}base.json")
    record(f"{prefix}base", base)

    for lam in lambdas:
        current = base
        for k in range(1, iters + 1):
            values = predict(current, X)
            G = lambda_return(values, y, nxt, lam)
            card = {"recipe": f"fitted TD(lambda={lam}), iteration {k} from the shipped recipe's fit",
                    "lambda": lam, "iteration": k, "data": meta, "rows": int(len(y)),
                    "holdout": f"game % {HOLDOUT} == 0"}
            if kind == "quadratic":
                current = fit_linear(X[train], G[train], ridge=ridge, card=card, pairs=PAIRS)
            else:
                current = fit_mlp(X[train], G[train], seed=0, card=card)
            current["rules"] = base["rules"]
            name = f"{prefix}td{lam:g}_k{k}"
            current["card"].update({"holdout_" + a: b for a, b in
                                    scores(current, X[held], y[held], win[held]).items()})
            record(name, current, G)
            if k in keep:
                save(current, outdir / f"{name}.json")
    report["fit_cpu_seconds"] = round(time.process_time() - start, 1)
    (outdir / f"{prefix}td.json").write_text(json.dumps(report, indent=1) + "\n")
    print("fit CPU", report["fit_cpu_seconds"], "s")


if __name__ == "__main__":
    main(sys.argv[1:])
