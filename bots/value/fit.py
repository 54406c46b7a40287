"""Fitting V (training only; a bot never imports this): ridge regression and a small tanh network,
both in numpy and both deterministic for a seed. Each returns a weights payload for
bots/value/model.py (``save`` seals it with its hash)."""

from __future__ import annotations

import numpy as np

from .features import FEATURE_VERSION, FEATURES, HAND


def standardise(X: np.ndarray) -> tuple:
    mean = X.mean(axis=0)
    scale = X.std(axis=0)
    scale[scale < 1e-6] = 1.0
    return mean, scale


def with_pairs(X: np.ndarray, pairs: list) -> np.ndarray:
    """``X`` with the products of the named feature pairs appended (as model.Value computes them)."""
    if not pairs:
        return X
    index = {name: i for i, name in enumerate(FEATURES)}
    return np.hstack([X] + [(X[:, index[a]] * X[:, index[b]])[:, None] for a, b in pairs])


def _payload(kind: str, mean, scale, layers: list, card: dict, pairs: list = ()) -> dict:
    return {
        "kind": kind, "features": list(FEATURES), "feature_version": FEATURE_VERSION,
        "interactions": [list(p) for p in pairs],
        "mean": [round(float(v), 9) for v in mean], "scale": [round(float(v), 9) for v in scale],
        "layers": [[[[round(float(v), 9) for v in row] for row in W], [round(float(v), 9) for v in b]] for W, b in layers],
        "card": card,
    }


def fit_linear(X: np.ndarray, y: np.ndarray, ridge: float = 1.0, card: dict | None = None, pairs: list = ()) -> dict:
    """Least squares on standardised features (and the products ``pairs`` of two of them) with an L2
    penalty ``ridge``."""
    X = with_pairs(X, pairs)
    mean, scale = standardise(X)
    Z = (X - mean) / scale
    n, f = Z.shape
    A = Z.T @ Z + ridge * np.eye(f)
    w = np.linalg.solve(A, Z.T @ (y - y.mean()))
    return _payload("linear", mean, scale, [(w.reshape(f, 1), np.array([y.mean()]))], dict(card or {}, ridge=ridge),
                    pairs)


def fit_mlp(X: np.ndarray, y: np.ndarray, hidden: int = 32, epochs: int = 8, batch: int = 512, lr: float = 3e-3,
            l2: float = 1e-5, seed: int = 0, card: dict | None = None) -> dict:
    """One hidden tanh layer, mean squared error, Adam; the batches' order and the start come from ``seed``."""
    rng = np.random.default_rng(seed)
    mean, scale = standardise(X)
    Z = ((X - mean) / scale).astype(np.float64)
    t = y.astype(np.float64).reshape(-1, 1)
    n, f = Z.shape
    params = [rng.normal(0, 1 / np.sqrt(f), (f, hidden)), np.zeros(hidden),
              rng.normal(0, 1 / np.sqrt(hidden), (hidden, 1)), np.full(1, float(t.mean()))]
    moments = [(np.zeros_like(p), np.zeros_like(p)) for p in params]
    step = 0
    for _epoch in range(epochs):
        order = rng.permutation(n)
        for start in range(0, n, batch):
            idx = order[start:start + batch]
            grads = _gradients(params, Z[idx], t[idx], l2)
            step += 1
            for p, g, (m, v) in zip(params, grads, moments):
                m *= 0.9
                m += 0.1 * g
                v *= 0.999
                v += 0.001 * g * g
                p -= lr * (m / (1 - 0.9 ** step)) / (np.sqrt(v / (1 - 0.999 ** step)) + 1e-8)
    W1, b1, W2, b2 = params
    card = dict(card or {}, hidden=hidden, epochs=epochs, batch=batch, lr=lr, l2=l2, seed=seed)
    return _payload("mlp", mean, scale, [(W1, b1), (W2, b2)], card)


def _gradients(params: list, Z: np.ndarray, t: np.ndarray, l2: float) -> list:
    W1, b1, W2, b2 = params
    h = np.tanh(Z @ W1 + b1)
    err = (h @ W2 + b2 - t) * (2 / len(Z))
    gW2 = h.T @ err + l2 * W2
    gh = (err @ W2.T) * (1 - h * h)
    gW1 = Z.T @ gh + l2 * W1
    return [gW1, gh.sum(axis=0), gW2, err.sum(axis=0)]


def predict(payload: dict, X: np.ndarray) -> np.ndarray:
    """V on rows ``X`` (numpy, for fitting reports; the bots use model.Value)."""
    X = with_pairs(X, payload.get("interactions", ()))
    x = (X - np.asarray(payload["mean"])) / np.asarray(payload["scale"])
    layers = payload["layers"]
    for i, (W, b) in enumerate(layers):
        x = x @ np.asarray(W) + np.asarray(b)
        if i < len(layers) - 1:
            x = np.tanh(x)
    return x[:, 0]


def r2(payload: dict, X: np.ndarray, y: np.ndarray) -> float:
    """The share of the target's variance V explains on ``X`` (1 is perfect, 0 a constant)."""
    resid = y - predict(payload, X)
    return float(1 - resid.var() / y.var())


# The quadratic model's products: every hand feature with how far the round has gone and how close the
# others are to going out.
PAIRS = [(h, c) for h in HAND for c in ("stock", "opp_min_size", "opp_opened")]

__all__ = ["PAIRS", "fit_linear", "fit_mlp", "predict", "r2", "standardise", "with_pairs"]
