"""The ``ellibir rules`` command: every rules field of a game with its type, default and allowed values,
and the presets. Registered on the main app by harness/cli/."""

from __future__ import annotations

import dataclasses
import importlib
import json
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from .app import app, fail

TYPE_NAMES = {"int": "whole number", "bool": "true/false", "str": "text", "tuple": "list"}


def _text(value) -> str:
    if isinstance(value, tuple):
        return json.dumps([list(v) if isinstance(v, tuple) else v for v in value])
    return json.dumps(value) if isinstance(value, bool) else str(value)


def rules_listing(game: str) -> dict:
    """``{"game", "fields": [{"name", "type", "default", "allowed"}], "presets": {name: changes}}``."""
    from engine.game import get_game

    factory = get_game(game)
    default = factory.make_rules("standard", {})
    module = importlib.import_module(type(default).__module__)
    allowed = getattr(module, "ALLOWED", {})
    out = []
    for f in dataclasses.fields(default):
        kind = f.type if isinstance(f.type, str) else f.type.__name__
        out.append({"name": f.name, "type": TYPE_NAMES.get(kind, kind), "default": _text(getattr(default, f.name)),
                    "allowed": allowed.get(f.name, "true, false" if kind == "bool" else "")})
    presets = {name: {k: _text(v) for k, v in changes.items()} for name, changes in factory.presets.items()}
    return {"game": game, "fields": out, "presets": presets}


@app.command("rules")
def rules_command(
    game: Annotated[Optional[str], typer.Option(metavar="GAME", help="The game (default: ellibir).")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the listing as JSON.")] = False,
) -> None:
    """Every rules field (for --set and --vary) with its type, default and allowed values, and the presets
    (for --preset, or --vary preset=standard,tr-wiki)."""
    try:
        listing = rules_listing(game or "ellibir")
    except ValueError as e:
        fail(e)
    if json_out:
        typer.echo(json.dumps(listing, indent=2, ensure_ascii=False))
        return
    console = Console(highlight=False)
    table = Table(title=f"Rules fields of {listing['game']} (--set FIELD=VALUE, --vary FIELD=V1,V2)")
    table.add_column("field", no_wrap=True)
    for column in ("type", "default", "allowed values"):
        table.add_column(column, overflow="fold")
    for f in listing["fields"]:
        table.add_row(*(Text(f[k]) for k in ("name", "type", "default", "allowed")))
    console.print(table)
    for name, changes in listing["presets"].items():
        said = ", ".join(f"{k}={v}" for k, v in changes.items()) or "the defaults above"
        console.print(f"preset {name}: {said}", markup=False, soft_wrap=True)
