"""The ``ellibir train`` commands: ``train value`` trains V from scratch (harness/runs/training.py).
Registered on the main app by harness/cli/main.py."""

from __future__ import annotations

import json
from typing import Annotated, Optional

import typer

from harness.runs.limits import says

from .app import fail
from .commands import Commands

train_app = Commands(help="Train the learned parts of the bots.", no_args_is_help=True)


@train_app.command("value")
def value_command(
    out: Annotated[str, typer.Option(metavar="DIR", help="The training's folder: DIR/data (the self-play parts), "
                                                          "DIR/value.json (the weights), DIR/card.md.")],
    games: Annotated[int, typer.Option(metavar="N", help=f"Self-play matches, {says('--games')}.")],
    seed: Annotated[int, typer.Option(help=f"Fixes every match of the self-play and the fit, {says('--seed')}.")] = 0,
    bots: Annotated[str, typer.Option(
        metavar="NAME,NAME", help="Built-in bots, each seat drawn from them (default greedy,outs; a parameter with "
                                  "its colon, e.g. vgreedy:gen=1:discards=6).")] = "greedy,outs",
    sets: Annotated[Optional[list[str]], typer.Option(
        "--set", metavar="FIELD=VALUE", help="Override one rules field (default players=4, rounds=3); the weights "
                                             "record the rules, which the bots then use them for. Repeatable.")] = None,
    preset: Annotated[str, typer.Option(help="The rules preset.")] = "standard",
    noise: Annotated[float, typer.Option(
        help=f"How often a seat plays a random candidate turn instead, {says('--noise')}.")] = 0.1,
    fit: Annotated[str, typer.Option(metavar="KIND", help="linear, quadratic, mlp, or none (only play).")] = "quadratic",
    workers: Annotated[Optional[int], typer.Option(
        metavar="N", help=f"Parts played at once, {says('--workers')}; more than 1 plays them on Ray (default 1: this "
                          "process).")] = None,
    executor: Annotated[Optional[str], typer.Option(
        help="local (this process, one part at a time) or ray (default: ray with --workers above 1 or --address, "
             "local otherwise).")] = None,
    address: Annotated[Optional[str], typer.Option(help="A running Ray cluster (with --executor ray).")] = None,
    sprt: Annotated[int, typer.Option(
        metavar="N", help="After the fit, the generation test: vgreedy with the new weights (the bot folder DIR/bot) "
                          "against three --against in a gauntlet with an SPRT, at most N deal sets, in DIR/sprt; its "
                          "verdict goes on the card (default 0: no test).")] = 0,
    against: Annotated[str, typer.Option(
        metavar="BOT", help="With --sprt: the model to beat, as a value bot (default builtin:vgreedy: the shipped "
                            "model for these rules; builtin:vgreedy:gen=K an earlier generation).")] = "builtin:vgreedy",
    elo0: Annotated[float, typer.Option("--elo0", metavar="ELO", help="With --sprt: H0, the new model is ELO "
                                                                       "stronger (default 0).")] = 0.0,
    elo1: Annotated[float, typer.Option("--elo1", metavar="ELO", help="With --sprt: H1, the new model is ELO "
                                                                       "stronger (default 20).")] = 20.0,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
) -> None:
    """Train V, the learned value of a position, from scratch: self-play of built-in bots (Parquet parts
    in DIR/data; run the same command again to resume), a fit deterministic for the seed, the sealed
    weights DIR/value.json and its model card's section DIR/card.md; with --sprt, the generation test."""
    from engine.rules import ConfigError, parse_assignment
    from harness.runs.selfplay import SelfPlayError
    from harness.runs.training import TrainConfig, self_play_spec, train_value

    try:
        overrides = dict(parse_assignment(text) for text in sets or [])
    except ConfigError as e:
        fail(e)
    if executor is None:
        executor = "ray" if (workers or 1) > 1 or address else "local"
    if executor == "local" and (workers or 1) > 1:
        fail(f"--workers {workers} needs --executor ray (the local executor plays one part at a time)")
    config = TrainConfig(out=out, games=games, seed=seed, bots=tuple(b.strip() for b in bots.split(",") if b.strip()),
                         preset=preset, overrides=overrides, noise=noise, fit=None if fit == "none" else fit,
                         executor=executor, workers=workers, address=address, sprt=sprt, against=against,
                         elo0=elo0, elo1=elo1)
    try:
        self_play_spec(config)  # bad input: one line, before the progress bar
        with _progress(quiet) as progress:
            summary = train_value(config, progress)
    except (SelfPlayError, ValueError) as e:  # a tournament's error (the generation test) is a ValueError
        fail(e)
    except OSError as e:  # the folder cannot be written (permissions, a full disk): one line
        fail(f"--out {out}: {e.strerror or e}")
    except KeyboardInterrupt:
        typer.echo("interrupted: the parts written stay; run the same command again to resume", err=True)
        raise typer.Exit(130) from None
    typer.echo(json.dumps(summary, indent=1))


class _progress:
    """A rich progress bar over the self-play's games (none with --quiet)."""

    def __init__(self, quiet: bool):
        self.quiet = quiet
        self.bar = None
        self.task = None

    def __enter__(self):
        if self.quiet:
            return None
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

        self.bar = Progress("self-play", BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                            console=Console(stderr=True), transient=True)
        self.bar.start()
        return self.update

    def update(self, done: int, total: int) -> None:
        if self.task is None:
            self.task = self.bar.add_task("games", total=total, completed=done)
        self.bar.update(self.task, completed=done)

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.stop()
        return False
