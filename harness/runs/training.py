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
    sprt: int = 0  # the generation test's most deal sets (harness/runs/generation.py); 0: no test
    against: str = "builtin:vgreedy"
    elo0: float = 0.0
    elo1: float = 20.0

    def command(self) -> str:
        """The command that trains this model (for its card): what decides the data and the fit."""
        sets = "".join(f" --set {k}={v}" for k, v in self.overrides.items())
        preset = f" --preset {self.preset}" if self.preset != "standard" else ""
        test = (f" --sprt {self.sprt} --against {self.against} --elo0 {self.elo0:g} --elo1 {self.elo1:g}"
                if self.sprt else "")
        return (f"ellibir train value --out {self.out} --games {self.games} --seed {self.seed} "
                f"--bots {','.join(self.bots)}{preset}{sets} --noise {self.noise:g} --fit {self.fit or 'none'}{test}")


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
    for name in spec.bots:
        if name.startswith("builtin:"):
            raise SelfPlayError(f"--bots takes the built-in bots' names without builtin: (e.g. greedy,outs), "
                                f"got {name[:60]!r}")
    _check_out(Path(config.out))
    if config.executor not in ("ray", "local"):
        raise SelfPlayError(f"--executor must be one of ray, local, got {str(config.executor)[:40]!r}")
    if config.executor == "local" and config.address is not None:
        raise SelfPlayError("--address joins a Ray cluster: it is not for --executor local")
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
    if config.sprt:
        _check_test(config)
    return spec


def _check_out(out: Path) -> None:
    """The training's folder: a folder or a new path, not a file, nor a run folder (a tournament's, a
    sweep's), nor inside one's tables."""
    from results.integrity import IntegrityError, check_output, is_run_folder

    if out.exists() and not out.is_dir():
        raise SelfPlayError(f"--out {out}: not a folder")
    if out.is_dir() and is_run_folder(out):
        raise SelfPlayError(f"--out {out}: it holds a run (run.json); give the training a folder of its own")
    try:
        check_output(out / WEIGHTS_FILE, "the training")
    except IntegrityError as e:
        raise SelfPlayError(str(e)) from None


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
    summary.update(fit_value(data, config, round(time.process_time() - cpu) if whole else None))
    if config.sprt:
        summary["sprt"] = generation_verdict(config, summary)
    return summary


def _check_test(config: TrainConfig) -> None:
    from bots import UnknownBot, parse_builtin

    kind, _, name = config.against.partition(":")
    try:
        check("--deal-sets", config.sprt)
        if kind != "builtin":
            raise SelfPlayError(f"--against names a built-in value bot (builtin:vgreedy...), got {config.against!r}")
        parse_builtin(name)
    except PlanError as e:
        raise SelfPlayError(str(e).replace("--deal-sets", "--sprt")) from None
    except UnknownBot as e:
        raise SelfPlayError(str(e)) from None
    if config.fit is None:
        raise SelfPlayError("--sprt tests the fitted weights: give a fit (--fit), not none")
    if not config.elo1 > config.elo0:
        raise SelfPlayError(f"--elo1 ({config.elo1:g}) must be above --elo0 ({config.elo0:g})")


def generation_verdict(config: TrainConfig, summary: dict) -> dict:
    """The generation test of the weights just fitted; its verdict goes on the model card."""
    from .generation import card_lines, generation_test, write_bot

    out = Path(config.out)
    bot, sha256 = write_bot(out, out / WEIGHTS_FILE)
    result = generation_test(config, bot, sha256)
    card = out / CARD_FILE
    card.write_text(card.read_text() + card_lines(result, config.command()))
    return {k: result[k] for k in ("verdict", "llr", "lower", "upper", "deal_sets", "matches", "elo", "elo_lo",
                                   "elo_hi", "score", "score_lo", "score_hi")}


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
