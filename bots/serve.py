"""A protocol loop around an in-process bot (docs/protocol.md).

``python3 -m bots.serve greedy`` (or a bot folder's ``main.py``) plays the reference bot ``greedy``
over stdin and stdout. It rebuilds the seat's view from the messages (the full view on the first
request of a round, then the changed fields and the public events), turns it back into the
game's ``View`` and legal information with the codecs the game registered (engine/game.py), and
asks the same bot code the harness runs in-process. The game comes with ``hello``: a name two games have (``random``) plays
whichever it is asked to; a game without a bot of that name is declined.
``--full`` asks the harness for the full view on every request instead. ``--weights=FILE`` gives a
value bot (vgreedy, vbot) the weights in FILE instead of the shipped ones, checked by their hash as
the shipped ones are (the bot folder ``ellibir train value`` writes uses it).

Imports only ``engine`` and ``bots``: inside the sandbox the harness makes both importable.
"""

from __future__ import annotations

import inspect
import json
import sys

from engine.game import Outcome, get_game

from . import UnknownBot, builtin_bots, games_of, make_bot, parse_builtin, registered_bots

PROTOCOL = 2  # one process may serve many matches: new_match after match_end (docs/protocol.md)
VERSION = "1.0"
ENCODE = json.JSONEncoder(separators=(",", ":")).encode  # made once: json.dumps with options makes one per call


class Client:
    """The bot side of the protocol: ``handle(message)`` returns the reply, or None."""

    def __init__(self, bot_name: str, observation: str = "delta", value=None):
        self.bot_name = bot_name
        self.value = value  # a value model (bots/value/model.py) for a value bot, or None: the shipped one
        self.observation = observation
        self.bot = None
        self.rules = None
        self.seat = -1
        self.state: dict | None = None  # the view, rebuilt (without history)
        self.history: list = []  # this round's public events
        self.done = False
        self.protocol = 1  # the version agreed in hello
        self.melds: dict = {}  # table melds read this round, by their JSON form

    def handle(self, msg: dict):
        kind = msg.get("type")
        handler = getattr(self, "on_" + str(kind), None)
        return handler(msg) if handler else None

    def on_hello(self, msg: dict) -> dict:
        game = msg.get("game")
        offered = msg.get("protocols") or [msg.get("protocol")]
        if not {1, PROTOCOL} & set(offered) or not plays(self.bot_name, game):
            games = games_of(self.bot_name)
            return {"type": "error", "seq": msg.get("seq"),
                    "reason": f"{self.bot_name} plays {' and '.join(sorted(games))} over protocol 1 or {PROTOCOL} only"}
        self.protocol = PROTOCOL if PROTOCOL in offered else 1
        self.seat = msg["seat"]
        extra = {} if self.value is None else {"value": self.value}
        spec = get_game(game)  # the game's codecs: the view and legal information back from JSON
        self.rules = spec.rules_from_dict(msg["rules"])
        self.view_from_json, self.legal_from_json = spec.view_from_json, spec.legal_from_json
        self.bot = make_bot(self.bot_name, f"protocol:{self.seat}", game, **extra)
        self.bot.start(self.seat, self.rules)
        self.state, self.history = None, []
        return {"type": "hello", "seq": msg["seq"], "name": self.bot_name, "version": VERSION,
                "protocol": self.protocol, "observation": self.observation}

    def on_new_match(self, msg: dict) -> dict:
        """Protocol 2: the next match in this process; a new bot for it, as after hello."""
        return self.on_hello(msg)

    def on_round_start(self, msg: dict) -> None:
        self.state = None
        self.history = []
        self.melds = {}

    def on_events(self, msg: dict) -> None:
        self.history.extend(msg["events"])

    def on_request(self, msg: dict) -> dict:
        if "view" in msg:
            self.state = {k: v for k, v in msg["view"].items() if k != "history"}
        else:
            self.state.update(msg["changed"])
        view = self.view_from_json(self.state, self.rules, self.history, self.melds)
        if "time" in msg:
            self.bot.clock(msg["time"]["limit"], msg["time"]["bank"])
        decision = self.bot.decide(view, self.legal_from_json(msg["legal"]))
        return {"type": "decision", "seq": msg["seq"], "decision": decision.to_json()}

    def on_error(self, msg: dict) -> None:
        self.bot.refused(Outcome(False, msg.get("rule", ""), msg.get("reason", ""), msg.get("penalty", 0)))

    def on_match_end(self, msg: dict) -> None:
        self.done = self.protocol == 1  # protocol 2: new_match may follow, or stdin closes

    def rebuilt(self) -> dict:
        """The view as rebuilt so far, history included (what a full request would carry)."""
        return {**self.state, "history": list(self.history)}


def serve(client: Client, stdin, stdout) -> None:
    for line in stdin:
        if not line.strip():
            continue
        reply = client.handle(json.loads(line))
        if reply is not None:
            stdout.write(ENCODE(reply) + "\n")
            stdout.flush()
        if client.done:
            return


def plays(name: str, game) -> bool:
    """Whether ``name`` is a built-in bot of ``game`` (only that game's declaration is loaded)."""
    try:
        return isinstance(game, str) and name in builtin_bots(game)
    except UnknownBot:
        return False


def main(argv: list | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    full = "--full" in args
    weights = [a.partition("=")[2] for a in args if a.startswith("--weights=")]
    names = [a for a in args if not a.startswith("--")]
    if len(names) != 1 or not (plays(names[0], "ellibir") or games_of(names[0])):
        known = sorted({name for b in registered_bots().values() for name in b.bots})
        sys.stderr.write(f"usage: python3 -m bots.serve NAME [--full] [--weights=FILE]   (NAME one of {', '.join(known)})\n")
        sys.exit(2)
    value = None
    if weights:
        value = _weights(names[0], weights[-1])
    serve(Client(names[0], "full" if full else "delta", value), sys.stdin, sys.stdout)


def _weights(name: str, path: str):
    """The value model in ``path`` for the value bot ``name``; one line on stderr and exit 2 otherwise."""
    from .value.model import WeightsError, load

    bot = builtin_bots("ellibir").get(parse_builtin(name)[0]) if plays(name, "ellibir") else None
    if bot is None or "value" not in inspect.signature(bot).parameters:
        sys.stderr.write(f"{name} takes no weights (--weights is for the value bots)\n")
        sys.exit(2)
    try:
        return load(path)
    except WeightsError as e:
        sys.stderr.write(f"{e}\n")
        sys.exit(2)


if __name__ == "__main__":
    main()
