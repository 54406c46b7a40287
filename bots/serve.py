"""A protocol loop around an in-process bot (docs/protocol.md).

``python3 -m bots.serve greedy`` (or a bot folder's ``main.py``) plays the reference bot ``greedy``
over stdin and stdout. It rebuilds the seat's view from the messages (the full view on the first
request of a round, then the changed fields and the public events), turns it back into the
engine's ``View`` (or the other game's) and legal information, and asks the same bot code the
harness runs in-process. The game comes with ``hello``: a name two games have (``random``) plays
whichever it is asked to; a game without a bot of that name is declined.
``--full`` asks the harness for the full view on every request instead.

Imports only ``engine`` and ``bots``: inside the sandbox the harness makes both importable.
"""

from __future__ import annotations

import json
import sys

from engine.cards import N_IDS, parse_card
from engine.game import Outcome, rules_from_dict
from engine.melds import make_meld
from engine.observe import View

from . import GAME_BOTS, einundfuenfzig, make_bot

PROTOCOL = 2  # one process may serve many matches: new_match after match_end (docs/protocol.md)
VERSION = "1.0"


def counts(cards) -> list:
    out = [0] * N_IDS
    for c in cards:
        out[parse_card(c)] += 1
    return out


def card_or_none(text) -> int:
    return -1 if text is None else parse_card(text)


def view_from_json(data: dict, rules, history: list | None = None, melds: dict | None = None) -> View:
    """The engine's View of a seat from the protocol's view object (and the round's public events).
    ``melds``: table melds already read, by their JSON form (a table changes little between requests)."""
    table = []
    for m in data["table"]:
        key = (m["kind"], tuple(m["cards"]), m["owner"], m.get("beside", -1))
        meld = melds.get(key) if melds is not None else None
        if meld is None:
            meld = make_meld(m["kind"], [parse_card(c) for c in m["cards"]], m["owner"])
            meld.beside = key[3]
            if melds is not None:
                melds[key] = meld
        table.append(meld.copy())
    history = list(data.get("history", []) if history is None else history)
    return View(
        seat=data["seat"], players=data["players"], round_index=data["round"], round_number=data["round_number"],
        dealer=data["dealer"], first=data["first"], turn=data["turn"], to_move=data["to_move"], phase=data["phase"],
        hand=counts(data["hand"]), marked=[parse_card(c) for c in data["marked"]], table=table,
        discards=[parse_card(c) for c in data["discards"]], can_take_discard=data["can_take_discard"],
        can_pair_take=data["can_pair_take"], cut=card_or_none(data["cut"]), cut_claim=data["cut_claim"],
        joker_cutter=data["joker_cutter"], stock_size=data["stock_size"], hand_sizes=list(data["hand_sizes"]),
        opened=list(data["opened"]), open_method=list(data["open_method"]), declared=list(data["declared"]),
        totals=list(data["totals"]), penalties=[list(p) for p in data["penalties"]], threshold=data["threshold"],
        pairs_openings=tuple(tuple(p) for p in data["pairs_openings"]), rules=rules,
        events=history,
    )


def legal_from_json(data: dict) -> dict:
    """The engine's legal information (card ids) from its JSON form (``engine.observe.legal_json``)."""
    out = dict(data)
    if "draw" in data:
        out["draw"] = {**data["draw"], "discard": card_or_none(data["draw"]["discard"])}
    if "pairs_openings" in data:
        out["pairs_openings"] = tuple(tuple(p) for p in data["pairs_openings"])
    if "layoffs" in data:
        out["layoffs"] = [{**x, "cards": [parse_card(c) for c in x["cards"]]} for x in data["layoffs"]]
    if "joker_swaps" in data:
        out["joker_swaps"] = [
            {"meld": x["meld"], "options": [tuple(parse_card(c) for c in o) for o in x["options"]],
             "held": [tuple(parse_card(c) for c in o) for o in x["held"]]}
            for x in data["joker_swaps"]
        ]
    if "must_keep" in data:
        out["must_keep"] = [parse_card(c) for c in data["must_keep"]]
    return out


# Per game: (view_from_json, legal_from_json).
CODECS = {
    "ellibir": (view_from_json, legal_from_json),
    "einundfuenfzig": (einundfuenfzig.view_from_json, einundfuenfzig.legal_from_json),
}


class Client:
    """The bot side of the protocol: ``handle(message)`` returns the reply, or None."""

    def __init__(self, bot_name: str, observation: str = "delta"):
        self.bot_name = bot_name
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
        games = [g for g, bots in GAME_BOTS.items() if self.bot_name in bots]
        offered = msg.get("protocols") or [msg.get("protocol")]
        if not {1, PROTOCOL} & set(offered) or game not in games:
            return {"type": "error", "seq": msg.get("seq"),
                    "reason": f"{self.bot_name} plays {' and '.join(sorted(games))} over protocol 1 or {PROTOCOL} only"}
        self.protocol = PROTOCOL if PROTOCOL in offered else 1
        self.seat = msg["seat"]
        self.rules = rules_from_dict(game, msg["rules"])
        self.view_from_json, self.legal_from_json = CODECS[game]
        self.bot = make_bot(self.bot_name, f"protocol:{self.seat}", game)
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
        if self.view_from_json is view_from_json:
            view = view_from_json(self.state, self.rules, self.history, self.melds)
        else:
            view = self.view_from_json(self.state, self.rules, self.history)
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
            stdout.write(json.dumps(reply, separators=(",", ":")) + "\n")
            stdout.flush()
        if client.done:
            return


def main(argv: list | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    full = "--full" in args
    names = [a for a in args if not a.startswith("--")]
    known = sorted({name for bots in GAME_BOTS.values() for name in bots})
    if len(names) != 1 or names[0] not in known:
        sys.stderr.write(f"usage: python3 -m bots.serve NAME [--full]   (NAME one of {', '.join(known)})\n")
        sys.exit(2)
    serve(Client(names[0], "full" if full else "delta"), sys.stdin, sys.stdout)


if __name__ == "__main__":
    main()
