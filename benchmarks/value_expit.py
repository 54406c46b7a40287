"""Expert iteration for V (issue 28, third stage as the issue words it): V fitted again on the play of
the previous generation's search, and compared, on held-out rows, with the shipped model.

The data sets are ``ellibir train value --fit none`` folders (``OUT/data``); the first is the new
generation's (e.g. seats drawn from greedy and vbot), the others earlier ones to pool with it. A data
set whose self-play was stopped is read as far as its whole parts go. Each
fit is the shipped recipe (``bots.value.train.fit_columns``, quadratic ridge, penalty 1, the round's
margin as target, every tenth game of each data set held out):

- ``new``: the first data set alone (the same weights as ``ellibir train value`` fits on it);
- ``union``: every data set pooled (game numbers kept apart, so each keeps its own held-out games);
- ``searched``: the first data set's rows of the seats a given bot played (``--bot=vbot``) only.

Every fit and the shipped model are scored on the held-out rows of each data set, and on the first
one's rows of that bot alone: R2 and mean absolute error of the margin, AUC of the seat that goes out
(``rows`` in the report: the fit's rows, its held-out games included).

    .venv/bin/python -m benchmarks.value_expit OUTDIR DATA [DATA ...] [--bot=vbot]

writes ``OUTDIR/NAME.json`` (sealed weights files that ``benchmarks/paired_many.py`` loads as
``vbot@OUTDIR/NAME.json``) and ``OUTDIR/fits.json`` (the figures, also printed). Deterministic.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

from bots.value.model import WEIGHTS, save
from bots.value.selfplay import COLUMNS, SelfPlay
from bots.value.train import HOLDOUT, fit_columns, matrices
from bots.value.train import figures as train_figures
from harness.runs.selfplay import read_data

APART = 10_000_000  # added to each further data set's game numbers: a multiple of HOLDOUT


def read_whole_parts(folder: Path) -> tuple:
    """A data set's spec and the rows of the parts played so far (an interrupted self-play: whole
    parts only, as the harness writes them); the spec's ``games`` is set to the games read."""
    meta, columns = read_data(folder, partial=True)
    games = len(np.unique(columns["game"]))
    if games != meta["games"]:
        meta = dict(meta, games_planned=meta["games"], games=games)
    return meta, columns


def pooled(sets: list) -> dict:
    """The columns of several data sets as one, the game numbers of set i moved up by i * APART."""
    out = {}
    for i, (_meta, columns) in enumerate(sets):
        for name in COLUMNS:
            values = np.asarray(columns[name])
            if name == "game":
                values = values.astype(np.int64) + i * APART
            out.setdefault(name, []).append(values)
    return {name: np.concatenate(parts) for name, parts in out.items()}


def subset(columns: dict, mask: np.ndarray) -> dict:
    return {name: np.asarray(values)[mask] for name, values in columns.items()}


def figures(payload: dict, columns: dict) -> dict:
    """V's figures on the held-out games of ``columns`` (the card's own, ``bots.value.train.figures``)."""
    X, y, games = matrices(columns)
    held = games % HOLDOUT == 0
    figs = train_figures(payload, X[held], y[held], columns, held)
    return {"rows": figs["holdout_rows"], "r2": figs["holdout_r2"], "mae_points": figs["holdout_mae_points"],
            "win_auc": figs["holdout_win_auc"]}


def main(argv: list) -> None:
    args = [a for a in argv if not a.startswith("--")]
    opts = dict(a[2:].split("=", 1) for a in argv if a.startswith("--"))
    outdir, folders = Path(args[0]), [Path(a) for a in args[1:]]
    bot = opts.get("bot", "vbot")
    outdir.mkdir(parents=True, exist_ok=True)
    sets = [read_whole_parts(f) for f in folders]
    meta, first = sets[0]
    rules = SelfPlay.of_json(meta["spec"]).rules()
    mine = np.asarray(first["bot"]).astype(str) == bot
    fits = {"new": (first, [meta])}
    if len(sets) > 1:
        fits["union"] = (pooled(sets), [m for m, _ in sets])
    if mine.any() and not mine.all():
        fits["searched"] = (subset(first, mine), [meta])
    # where each model is scored: every data set's held-out games, and the first one's seats of `bot`
    tests = {f"held out of {f}": c for f, (_m, c) in zip(folders, sets)}
    if mine.any():
        tests[f"held out of {folders[0]}, {bot} seats"] = subset(first, mine)
    models = {"shipped": json.loads((WEIGHTS / "standard.json").read_text())}
    report = {"data": [str(f) for f in folders], "rows": [int(len(c["game"])) for _m, c in sets], "fits": {}}
    for name, (columns, metas) in fits.items():
        start = time.process_time()
        card = {"recipe": f"expert iteration, {name} (benchmarks/value_expit.py)", "data": metas}
        payload = fit_columns(columns, "quadratic", 0, card, rules=rules, ridge=1.0)
        cpu = round(time.process_time() - start, 1)  # in the report, not the file: its hash stays the fit's
        sha = save(payload, outdir / f"{name}.json")
        report["fits"][name] = {"file": str(outdir / f"{name}.json"), "sha256": sha,
                                "rows": int(len(columns["game"])), "fit_cpu_seconds": cpu}
        models[name] = payload
    report["scores"] = {}
    for test, columns in tests.items():
        report["scores"][test] = {name: figures(payload, columns) for name, payload in models.items()}
        for name, figs in report["scores"][test].items():
            print(f"{test}: {name} {json.dumps(figs)}", flush=True)
    (outdir / "fits.json").write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
