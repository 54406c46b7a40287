"""From self-play rows to a weights payload: the split, the fit and the figures of its model card.

``fit_columns(columns, kind, seed)`` takes the rows as numpy columns (``selfplay.COLUMNS``), holds
out every tenth game for validation, fits V on the rest (``fit.fit_linear`` or ``fit.fit_mlp``) and
returns the payload (card included: rows, games, holdout R2 and error, the fit's settings). The
target is the round margin in hundreds of points. Deterministic for a seed.
"""

from __future__ import annotations

import numpy as np

from .features import FEATURES
from .fit import PAIRS, fit_linear, fit_mlp, predict, r2
from .model import rules_key

HOLDOUT = 10  # every tenth game is held out


def matrices(columns: dict) -> tuple:
    X = np.column_stack([np.asarray(columns[name], dtype=np.float64) for name in FEATURES])
    y = np.asarray(columns["margin"], dtype=np.float64) / 100
    games = np.asarray(columns["game"], dtype=np.int64)
    return X, y, games


def fit_columns(columns: dict, kind: str = "mlp", seed: int = 0, card: dict | None = None, rules=None,
                **settings) -> dict:
    """The weights payload of V fitted on ``columns``; ``rules`` (the self-play's) are recorded in it,
    so that a bot playing those rules picks it (model.for_rules)."""
    X, y, games = matrices(columns)
    held = games % HOLDOUT == 0
    train, test = ~held, held
    card = dict(card or {}, rows=int(len(y)), games=int(len(np.unique(games))), holdout=f"game % {HOLDOUT} == 0")
    if kind in ("linear", "quadratic"):
        pairs = PAIRS if kind == "quadratic" else ()
        payload = fit_linear(X[train], y[train], card=card, pairs=pairs, **settings)
    else:
        payload = fit_mlp(X[train], y[train], seed=seed, card=card, **settings)
    payload["card"].update(figures(payload, X[test], y[test], columns, test))
    if rules is not None:
        payload["rules"] = rules_key(rules)
    return payload


def figures(payload: dict, X: np.ndarray, y: np.ndarray, columns: dict, mask: np.ndarray) -> dict:
    """How well V predicts held-out rounds: R2 and mean absolute error of the margin, and how well
    it ranks the seat that goes out (the share of pairs it orders right, an AUC)."""
    pred = predict(payload, X)
    win = np.asarray(columns["win"], dtype=np.float64)[mask]
    return {"holdout_rows": int(len(y)), "holdout_r2": round(r2(payload, X, y), 4),
            "holdout_mae_points": round(float(np.abs(pred - y).mean() * 100), 2),
            "holdout_win_auc": round(auc(pred, win), 4)}


def auc(score: np.ndarray, label: np.ndarray) -> float:
    """The chance that a random positive row scores above a random negative one (ties count half)."""
    pos, neg = label > 0.5, label <= 0.5
    if not pos.any() or not neg.any():
        return float("nan")
    order = np.argsort(score, kind="stable")
    ranks = np.empty(len(score))
    ranks[order] = np.arange(1, len(score) + 1)
    s = score[order]
    start = 0
    for i in range(1, len(s) + 1):  # average ranks over ties
        if i == len(s) or s[i] != s[start]:
            ranks[order[start:i]] = (start + 1 + i) / 2
            start = i
    return float((ranks[pos].sum() - pos.sum() * (pos.sum() + 1) / 2) / (pos.sum() * neg.sum()))


__all__ = ["HOLDOUT", "auc", "figures", "fit_columns", "matrices"]
