"""benchmarks/value_expit.py: data sets pooled for a refit keep their games apart and their held-out
games held out; the figures score a model on held-out games only."""

import numpy as np

from benchmarks.value_expit import APART, figures, pooled, subset
from bots.value.features import FEATURES
from bots.value.fit import PAIRS, fit_linear
from bots.value.selfplay import COLUMNS
from bots.value.train import HOLDOUT


def columns(games: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    n = games * 5
    out = {name: rng.normal(size=n) for name in COLUMNS}
    out["game"] = np.repeat(np.arange(games), 5)
    out["bot"] = np.array(["greedy", "vbot"] * (n // 2) + ["greedy"] * (n % 2))
    out["margin"] = 100 * out[FEATURES[0]] + rng.normal(size=n)
    out["win"] = (out["margin"] > 0).astype(float)
    return out


def test_pooled_sets_keep_games_apart_and_held_out():
    a, b = columns(20, 1), columns(20, 2)
    both = pooled([({}, a), ({}, b)])
    assert len(both["game"]) == len(a["game"]) + len(b["game"])
    assert len(set(both["game"].tolist())) == 40
    held = both["game"] % HOLDOUT == 0
    assert held.sum() == (a["game"] % HOLDOUT == 0).sum() + (b["game"] % HOLDOUT == 0).sum()
    assert both["game"].max() == APART + 19
    vbot = subset(a, a["bot"] == "vbot")
    assert set(vbot["bot"].tolist()) == {"vbot"} and len(vbot["game"]) == len(a["game"]) // 2


def test_figures_on_held_out_games():
    a = columns(50, 3)
    X = np.column_stack([a[name] for name in FEATURES])
    payload = fit_linear(X, a["margin"] / 100, pairs=PAIRS)
    figs = figures(payload, a)
    assert figs["rows"] == int((a["game"] % HOLDOUT == 0).sum())
    assert figs["r2"] > 0.99 and figs["win_auc"] > 0.99
