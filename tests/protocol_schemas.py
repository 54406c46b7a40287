"""The protocol's JSON Schemas as validators, and bots speaking the protocol in this process (a
``Loopback`` in place of a bot process), for the tests of every game."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from bots.serve import Client
from harness.match.run import run_match
from harness.players.botproc import BotFault
from harness.players.manifest import Manifest
from harness.players.program import BotOptions, SubprocessPlayer
from harness.protocol.messages import load_schemas

ROOT = Path(__file__).resolve().parent.parent


@lru_cache(maxsize=None)
def validators() -> dict:
    """A jsonschema validator per schema file name, with the shared definitions registered."""
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource

    schemas = load_schemas()
    registry = Registry().with_resources(
        (s["$id"], Resource.from_contents(s)) for s in schemas.values()
    )
    return {name: Draft202012Validator(s, registry=registry) for name, s in schemas.items()}


def schema_name(game: str, name: str) -> str:
    """A game's own schema (``GAME.to_bot.request.json``) where it has one, else the shared one."""
    own = f"{game}.{name}"
    return own if own in validators() else name


def schema_errors(direction: str, message, game: str = "ellibir", union: bool = True) -> list[str]:
    """Why ``message`` breaks its schema (by its type: the game's own, else the shared one) and, with
    ``union``, the union schema of its direction; [] if valid."""
    v = validators()
    kind = message.get("type") if isinstance(message, dict) else None
    name = schema_name(game, f"{direction}.{kind}.json")
    if name not in v:
        return [f"no schema {name}"]
    errors = [f"{name}: {e.message} at {list(e.absolute_path)}" for e in v[name].iter_errors(message)]
    either = schema_name(game, f"{direction}.json")
    if union and not errors and not v[either].is_valid(message):
        errors.append(f"{either} refuses a valid {kind}")
    return errors


class Loopback:
    """A BotProcess stand-in that runs a bot's protocol client in this process, JSON round trip included."""

    def __init__(self, client):
        self.client = client
        self.replies: list = []
        self.elapsed = 0.0
        self.closed = False

    def start(self):
        pass

    def send(self, obj):
        if self.closed:
            raise BotFault("crash", "closed")
        reply = self.client.handle(json.loads(json.dumps(obj)))
        if reply is not None:
            self.replies.append(json.loads(json.dumps(reply)))

    def receive(self, timeout):
        if not self.replies:
            raise BotFault("timeout", "no reply")
        return self.replies.pop(0)

    def pending(self):
        return bool(self.replies)

    def stderr_tail(self, n=2000):
        return ""

    def close(self):
        self.closed = True


def loopback_manifest(name: str) -> Manifest:
    return Manifest(ROOT, f"loopback-{name}", "1", ("none",))


def play_loopback(game: str, rules, seed, bots: list, observation: str = "delta"):
    """A match of ``game`` between built-in bots speaking the protocol in this process: the result, the
    events, the faults and, per seat, every message both ways (``(direction, log position, message)``)."""
    records = {seat: [] for seat in range(len(bots))}
    options = BotOptions(game=game)
    players = [SubprocessPlayer(loopback_manifest(name), options, records[seat],
                                process=lambda m, o, name=name: Loopback(Client(name, observation)))
               for seat, name in enumerate(bots)]
    result, events, faults = run_match(game, rules, seed, players)
    return result, events, faults, records
