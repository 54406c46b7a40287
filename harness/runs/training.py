"""Training V from scratch (``ellibir train value``): self-play on the executors, a fit deterministic
for its seed, a sealed weights file and the generated section of its model card.

``train_value(config)`` plays the data set missing in ``OUT/data`` (harness/runs/selfplay.py: Parquet
parts, resumable), fits V on it (``bots.value.train.fit_columns``) and writes ``OUT/value.json`` and
``OUT/card.md``. With ``fit`` None it only plays. A file ``load`` accepts; to ship it, copy it into
bots/value/weights/ and pin its hash in bots/value/model.py.
"""

from __future__ import annotations

import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from .limits import check
from .plan import PlanError
from .selfplay import CHUNK, SelfPlayError, play_data, play_part, read_data

FITS = ("linear", "quadratic", "mlp")
WEIGHTS_FILE = "value.json"
CARD_FILE = "card.md"


@dataclass(frozen=True)
class TrainConfig:
    out: str
    games: int
    seed: int = 0
    bots: tuple = ("greedy", "outs")
    preset: str = "standard"
    overrides: dict = field(default_factory=dict)  # rules fields (--set); players 4 and rounds 3 unless given
    noise: float = 0.1
    fit: str | None = "quadratic"
    ridge: float = 1.0
    hidden: int = 32
    epochs: int = 8
    chunk: int = CHUNK
    executor: str = "local"
    workers: int | None = None
    address: str | None = None

    def command(self) -> str:
        """The command that trains this model (for its card): what decides the data and the fit."""
        sets = "".join(f" --set {k}={v}" for k, v in self.overrides.items())
        preset = f" --preset {self.preset}" if self.preset != "standard" else ""
        return (f"ellibir train value --out {self.out} --games {self.games} --seed {self.seed} "
                f"--bots {','.join(self.bots)}{preset}{sets} --noise {self.noise:g} --fit {self.fit or 'none'}")


def self_play_spec(config: TrainConfig):
    """The data set's spec; its rules are checked here (a bad field or value: SelfPlayError)."""
    from bots import UnknownBot, make_bot
    from bots.value.selfplay import SelfPlay
    from engine import ConfigError

    overrides = {"players": 4, "rounds": 3, **{k: _number(v) for k, v in config.overrides.items()}}
    spec = SelfPlay(preset=config.preset, overrides=overrides, bots=tuple(config.bots), noise=config.noise,
                    seed=config.seed)
    if not spec.bots:
        raise SelfPlayError("name at least one built-in bot to play the self-play's seats (--bots)")
    try:
        spec.rules()
        for name in spec.bots:
            make_bot(name, 0)
    except (ConfigError, UnknownBot) as e:
        raise SelfPlayError(str(e)) from None
    for option, value in (("--games", config.games), ("--seed", config.seed), ("--noise", config.noise),
                          ("--workers", config.workers)):
        try:
            check(option, value)
        except PlanError as e:
            raise SelfPlayError(str(e)) from None
    if config.fit is not None and config.fit not in FITS:
        raise SelfPlayError(f"unknown fit {config.fit!r} ({', '.join(FITS)})")
    return spec


def _number(value):
    text = str(value)
    return int(text) if text.lstrip("-").isdigit() else value


def train_value(config: TrainConfig, progress=None) -> dict:
    """Play, fit, write; returns a summary (``played``, ``weights``, ``card``, ``sha256``, figures)."""
    from .executors import make_executor

    spec = self_play_spec(config)
    out = Path(config.out)
    data = out / "data"
    executor = make_executor(config.executor, config.workers, config.address, body=play_part)
    cpu = time.process_time()
    played = play_data(data, spec, config.games, executor, config.chunk, progress)
    summary = {"played": played, "data": str(data)}
    if config.fit is None:
        return summary
    whole = config.executor == "local" and played["played"] == config.games  # every game played here
    return {**summary, **fit_value(data, config, round(time.process_time() - cpu) if whole else None)}


def fit_value(data: Path, config: TrainConfig, play_cpu: float | None = None) -> dict:
    from bots.value.card import card_section
    from bots.value.model import save
    from bots.value.selfplay import SelfPlay
    from bots.value.train import fit_columns

    meta, columns = read_data(data)
    spec = SelfPlay.of_json(meta["spec"])
    settings = {"ridge": config.ridge} if config.fit in ("linear", "quadratic") else \
        {"hidden": config.hidden, "epochs": config.epochs}
    card = {"data": meta, "commit": commit(), "command": config.command(),
            "data_mb": round(sum(p.stat().st_size for p in data.glob("part-*.parquet")) / 1e6, 1)}
    if play_cpu is not None:
        card["play_cpu_seconds"] = play_cpu
    start = time.process_time()
    payload = fit_columns(columns, config.fit, config.seed, card, rules=spec.rules(), **settings)
    payload["card"]["fit_cpu_seconds"] = round(time.process_time() - start, 1)
    out = Path(config.out)
    weights = out / WEIGHTS_FILE
    sha = save(payload, weights)
    payload["sha256"] = sha
    (out / CARD_FILE).write_text(card_section(payload, WEIGHTS_FILE))
    return {"weights": str(weights), "card": str(out / CARD_FILE), "sha256": sha,
            "figures": {k: payload["card"].get(k) for k in ("rows", "holdout_r2", "holdout_mae_points",
                                                            "holdout_win_auc", "fit_cpu_seconds")}}


def commit() -> str:
    """The commit of this code (short), or ``unknown`` outside a git checkout."""
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True,
                              cwd=Path(__file__).resolve().parent).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


__all__ = ["FITS", "TrainConfig", "fit_value", "self_play_spec", "train_value"]
