"""Training V from scratch, until ``ellibir train value`` wires the same library calls to the executors.

    nice -n 19 .venv/bin/python -m benchmarks.value_train play DATA --games 4000 --seed 1
    nice -n 19 .venv/bin/python -m benchmarks.value_train fit DATA --seed 1 --out bots/value/weights/standard.json

``play`` writes the self-play rows of ``bots.value.selfplay.play_games`` as Parquet parts, one per
batch of games (``part-FIRST.parquet``, written whole under a temporary name, never rewritten), and
skips the batches already there: it resumes after an interruption. ``--bots``, ``--noise`` and
``--set FIELD=VALUE`` (rules fields, e.g. ``players=2`` or ``threshold=101``) choose the data set;
its spec is kept in ``DATA/spec.json`` and a resume with another spec is refused. ``fit`` reads
every part, fits (``bots.value.train.fit_columns``) and writes the sealed weights file; ``card``
prints the part of its model card that the file itself holds.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from bots.value.model import SHIPPED, save
from bots.value.selfplay import COLUMNS, SelfPlay, play_games
from bots.value.train import fit_columns


def spec_of(args) -> SelfPlay:
    overrides = {"players": 4, "rounds": 3}
    for item in args.set or []:
        key, _, value = item.partition("=")
        overrides[key] = int(value) if value.lstrip("-").isdigit() else value
    return SelfPlay(preset=args.preset, overrides=overrides, bots=tuple(args.bots.split(",")), noise=args.noise,
                    seed=args.seed)


def play(args) -> None:
    out = Path(args.data)
    out.mkdir(parents=True, exist_ok=True)
    spec = spec_of(args)
    meta = {"spec": spec.to_json(), "games": args.games, "chunk": args.chunk, "weights": dict(SHIPPED)}
    kept = out / "spec.json"
    if kept.exists() and json.loads(kept.read_text()) != meta:
        sys.exit(f"{kept} holds another data set; use another folder")
    kept.write_text(json.dumps(meta, indent=1, sort_keys=True))
    start = time.process_time()
    for first in range(0, args.games, args.chunk):
        part = out / f"part-{first:07d}.parquet"
        if part.exists():
            continue
        columns = play_games(spec, first, min(args.chunk, args.games - first))
        tmp = part.with_suffix(".tmp")
        pq.write_table(pa.table({k: columns[k] for k in COLUMNS}), tmp)
        tmp.rename(part)
        print(f"games {first + args.chunk}/{args.games}  {time.process_time() - start:.0f} s CPU", flush=True)


def read(data: Path) -> dict:
    table = pa.concat_tables([pq.read_table(p) for p in sorted(data.glob("part-*.parquet"))])
    return {name: table.column(name).to_numpy() for name in COLUMNS}


def fit(args) -> None:
    data = Path(args.data)
    meta = json.loads((data / "spec.json").read_text())
    columns = read(data)
    card = {"data": meta, "commit": commit(), "command": " ".join(sys.argv[1:])}
    settings = {"ridge": args.ridge} if args.kind in ("linear", "quadratic") else {"hidden": args.hidden, "epochs": args.epochs}
    start = time.process_time()
    spec = SelfPlay(**{**meta["spec"], "bots": tuple(meta["spec"]["bots"])})
    payload = fit_columns(columns, args.kind, args.seed, card, rules=spec.rules(), **settings)
    payload["card"]["fit_cpu_seconds"] = round(time.process_time() - start, 1)
    sha = save(payload, args.out)
    print(json.dumps({k: v for k, v in payload["card"].items() if k != "data"}, indent=1))
    print("sha256", sha)


def card(args) -> None:
    """The generated part of a model card: what the weights file says of itself."""
    payload = json.loads(Path(args.weights).read_text())
    c = payload["card"]
    data = c.get("data", {})
    spec = data.get("spec", {})
    lines = [
        f"- file: `{Path(args.weights).name}`, sha256 `{payload['sha256']}`",
        f"- model: {payload['kind']}" + (f" with {len(payload.get('interactions', []))} products of two features"
                                         if payload.get("interactions") else "")
        + f", {sum(len(W) * len(W[0]) + len(b) for W, b in payload['layers'])} weights",
        f"- fitted at commit {c.get('commit')}: `python -m benchmarks.value_train {c.get('command')}`",
        f"- data: {data.get('games')} self-play matches of {spec.get('overrides', {}).get('rounds')} rounds, "
        f"preset {spec.get('preset')}, fields {spec.get('overrides')}, seats drawn from {spec.get('bots')} "
        f"with noise {spec.get('noise')}, seed {spec.get('seed')}; value bots' weights {data.get('weights')}",
        f"- rows: {c.get('rows')} play moments of {c.get('games')} matches; held out: {c.get('holdout')} "
        f"({c.get('holdout_rows')} rows)",
        f"- held-out figures: R2 {c.get('holdout_r2')}, mean absolute error {c.get('holdout_mae_points')} points, "
        f"AUC for the seat that goes out {c.get('holdout_win_auc')}",
        f"- fit: {', '.join(f'{k} {c[k]}' for k in ('ridge', 'hidden', 'epochs', 'lr', 'l2', 'seed') if k in c)}; "
        f"{c.get('fit_cpu_seconds')} s CPU",
        f"- rules it was trained for: {payload.get('rules')}",
        f"- features ({len(payload['features'])}, version {payload['feature_version']}): "
        + ", ".join(f"`{f}`" for f in payload["features"]),
    ]
    print("\n".join(lines))


def commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main(argv=None) -> None:
    p = argparse.ArgumentParser(prog="value_train")
    sub = p.add_subparsers(dest="command", required=True)
    a = sub.add_parser("play")
    a.add_argument("data")
    a.add_argument("--games", type=int, required=True)
    a.add_argument("--seed", type=int, default=0)
    a.add_argument("--chunk", type=int, default=200)
    a.add_argument("--bots", default="greedy,outs")
    a.add_argument("--noise", type=float, default=0.1)
    a.add_argument("--preset", default="standard")
    a.add_argument("--set", action="append")
    f = sub.add_parser("fit")
    f.add_argument("data")
    f.add_argument("--out", required=True)
    f.add_argument("--kind", choices=["linear", "quadratic", "mlp"], default="mlp")
    f.add_argument("--seed", type=int, default=0)
    f.add_argument("--ridge", type=float, default=1.0)
    f.add_argument("--hidden", type=int, default=32)
    f.add_argument("--epochs", type=int, default=8)
    c = sub.add_parser("card")
    c.add_argument("weights")
    args = p.parse_args(argv)
    np.seterr(all="raise", under="ignore")
    {"play": play, "fit": fit, "card": card}[args.command](args)


if __name__ == "__main__":
    main()
