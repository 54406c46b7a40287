"""The bot protocol: JSON lines on a bot's stdin and stdout (docs/protocol.md).

This module holds no I/O. It builds the messages the harness sends, checks the replies a bot
sends back, and keeps, per seat, what that seat has been told (``SeatStream``), so that each
request carries only what changed since the last one and nothing the seat may not see.

Messages to a bot: ``hello`` (asks for a reply), ``match_start``, ``round_start``, ``events``,
``request`` (asks for a reply), ``error``, ``round_end``, ``match_end``.
Messages from a bot: ``hello`` or ``error`` (the answer to ``hello``), ``decision``.
``harness.players.botproc.BotProcess`` puts them on the wire (one JSON object per line).

The JSON Schemas of every message are in ``harness/protocol/schemas/`` (``to_bot.*.json`` and
``from_bot.*.json``); the tests validate both directions against them. At run time the harness
checks replies by hand (``check_hello_reply``, ``check_decision_reply``): the schema library is a
test dependency only.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from engine.game import get_game

PROTOCOL_VERSION = 1  # what ``hello.protocol`` says: every bot speaks it
REUSE_VERSION = 2  # a bot that answers with it serves many matches in one process (new_match)
PROTOCOLS = (PROTOCOL_VERSION, REUSE_VERSION)
SCHEMA_DIR = Path(__file__).resolve().parent / "schemas"
TO_BOT = ("hello", "new_match", "match_start", "round_start", "events", "request", "error", "round_end", "match_end")
FROM_BOT = ("hello", "error", "decision")
OBSERVATIONS = ("delta", "full")
NAME_LIMIT = 200  # characters of a bot's name, version or reason kept


@dataclass(frozen=True)
class TimeControl:
    """The harness clock (seconds): ``move`` per decision, a ``bank`` of overtime per match, and
    ``first`` for the handshake and for the first decision of the match (each may also use the bank)."""

    move: float = 1.0
    bank: float = 10.0
    first: float = 10.0

    def __post_init__(self):
        for name in ("move", "bank", "first"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or value < 0 or value != value:
                raise ValueError(f"time control: {name} must be a number of seconds >= 0, got {value!r}")
        if self.move <= 0 or self.first <= 0:
            raise ValueError("time control: the move time and the first-move time must be more than 0 seconds")

    def to_json(self) -> dict:
        return {"move": self.move, "bank": self.bank, "first": self.first}


class ProtocolError(Exception):
    """A reply that breaks the protocol: wrong or stale sequence id, wrong type, missing fields."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class Declined(Exception):
    """The bot answered the handshake with an error: it cannot play this game or these rules."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


# Messages to a bot --------------------------------------------------------------------------


def hello_message(seq: int, game: str, rules, seat: int, time: TimeControl, line_limit: int, seed: int = 0) -> dict:
    """The handshake: protocol version, game, normalised rules, seat, players, time limits, and the bot's
    own seed for its randomness (``harness.players.seeds.bot_seed``: it says nothing about the deals)."""
    return {
        "type": "hello",
        "seq": seq,
        "protocol": PROTOCOL_VERSION,
        "game": game,
        "rules": rules.normalised(),
        "variant": rules.variant_id,
        "seat": seat,
        "players": rules.players,
        "time": time.to_json(),
        "line_limit": line_limit,
        "bot_seed": seed,
        "protocols": list(PROTOCOLS),
    }


def new_match_message(seq: int, game: str, rules, seat: int, time: TimeControl, line_limit: int, seed: int = 0) -> dict:
    """The handshake of a further match in the same process (protocol 2): the fields of ``hello``, so
    no match id and nothing the deals follow from; answered like ``hello``."""
    return {**hello_message(seq, game, rules, seat, time, line_limit, seed), "type": "new_match"}


def match_start_message(seat: int, names: list) -> dict:
    return {"type": "match_start", "seat": seat, "names": [str(n) for n in names]}


def match_end_message(totals: list, ranks: list, reason: str, faulty: list) -> dict:
    return {"type": "match_end", "totals": list(totals), "ranks": list(ranks), "reason": reason,
            "faulty": sorted(set(faulty))}


def error_message(seq: int, outcome, refusals: int, max_refusals: int) -> dict:
    """Why the reply to request ``seq`` was refused; a new request (new sequence id) follows."""
    return {"type": "error", "seq": seq, "rule": outcome.rule or "O4", "reason": outcome.reason,
            "penalty": outcome.penalty, "refusals": refusals, "max_refusals": max_refusals}


def redact_event(e: dict, seat: int, game: str = "ellibir") -> dict:
    """A public event of ``game`` in its JSON form, as ``seat`` may see it.

    Another seat only learns that an opening was refused, never why: the engine's public event
    already says no more, and this keeps it so at the trust boundary whatever a game logs.
    """
    return _redact(get_game(game).event_json(e), seat)


def _redact(out: dict, seat: int) -> dict:
    if out.get("e") == "penalty" and out.get("rule") == "O4" and out.get("seat") != seat:
        out = {**out, "reason": "a refused opening"}
    return out


_PUBLIC: dict = {}  # id(event) -> (event, its JSON form): every seat of a match reads the same log
_PUBLIC_KEPT = 4096


def _public_json(event_json, e: dict) -> dict:
    """``event_json(e)``, made once for all seats (each redacts on its own; nobody changes the result)."""
    hit = _PUBLIC.get(id(e))
    if hit is not None and hit[0] is e:
        return hit[1]
    if len(_PUBLIC) >= _PUBLIC_KEPT:
        _PUBLIC.clear()
    out = event_json(e)
    _PUBLIC[id(e)] = (e, out)
    return out


def view_json(view, seat: int) -> dict:
    """``View.to_json`` with the history redacted for ``seat``."""
    out = view.to_json()
    out["history"] = [_redact(e, seat) for e in out["history"]]
    return out


def round_record_for(record: dict, seat: int) -> dict:
    """A round record without the other seats' cards left in hand (their values stay)."""
    out = dict(record)
    out["seats"] = [s if i == seat else {k: v for k, v in s.items() if k != "left"}
                    for i, s in enumerate(record["seats"])]
    return out


class SeatStream:
    """What one seat has been told: a cursor into the match's event log and the last view sent.

    ``catch_up(log)`` turns the log entries the seat has not been told about into messages
    (``round_start``, ``events``, ``round_end``), leaving out everything private to another seat:
    the other hands, the stock order, other seats' drawn cards, decisions and refusals, and the
    match_start event's deals. ``request`` builds a decision request: the full view on the first
    request of a round (or always, for ``observation="full"``), otherwise the fields that changed.
    The history a full view carries is kept here and extended by the events new since the last
    request, so a request costs the same early and late in a round (a delta never builds it).
    The game (``game``) gives the JSON forms of its events and legal information (engine/game.py);
    a round is one game of Einundfünfzig.
    """

    def __init__(self, seat: int, players: int, observation: str = "delta", game: str = "ellibir"):
        factory = get_game(game)
        self.event_json = factory.event_json
        self.legal_json = factory.legal_json
        self.seat = seat
        self.players = players
        self.full = observation == "full"
        self.cursor = 0
        self.pending: list[dict] = []
        self.last: dict | None = None  # the last view sent (without history), for deltas
        self.round = -1
        self.totals = [0] * players
        self.history: list[dict] = []  # the round's history as this seat sees it, in JSON form
        self.history_of: tuple | None = None  # the round and first event it was read from
        self.history_read = 0  # how many of those events it has read
        from .viewjson import ViewJson

        self.view_json = ViewJson()  # the view's fields as JSON, reusing what is unchanged since the last request

    def catch_up(self, log: list) -> list[dict]:
        out = []
        seat = self.seat
        end = len(log)
        i = self.cursor
        while i < end:
            e = log[i]
            kind = e.get("e")
            if kind == "round_start":
                self._flush(out)
                hand = next((self.event_json(x)["cards"] for x in log[i + 1 : i + 1 + self.players + 1]
                             if x.get("e") == "hand" and x.get("seat") == seat), [])
                self.round = e["index"]
                self.last = None
                public = self.event_json(e)
                msg = {"type": "round_start", "round": public["index"],
                       **{k: v for k, v in public.items() if k not in ("e", "index")}, "hand": hand}
                out.append(msg)
                self.pending.append(_redact(public, seat))
            elif kind == "round_end":
                self._flush(out)
                record = e["record"]
                if not record["void"]:
                    for s, score in enumerate(s["score"] for s in record["seats"]):
                        self.totals[s] += score
                out.append({"type": "round_end", "round": record["index"], "record": round_record_for(record, seat),
                            "totals": list(self.totals)})
                self.last = None
            elif kind in ("match_start", "match_end") or "to" in e:
                pass  # their own messages (match_start, match_end), or private
            else:
                self.pending.append(_redact(_public_json(self.event_json, e), seat))
            i += 1
        self.cursor = end
        self._flush(out)
        return out

    def _flush(self, out: list) -> None:
        if self.pending:
            out.append({"type": "events", "events": self.pending})
            self.pending = []

    def request(self, seq: int, view, legal: dict, limit: float, bank: float, refusals: int = 0) -> dict:
        current = self.view_json(view)
        msg = {"type": "request", "seq": seq, "decide": legal.get("phase", view.phase),
               "round": view.round_index, "turn": view.turn}
        if self.full or self.last is None or view.round_index != self.round:
            msg["view"] = {**current, "history": self._history(view)}
        else:
            last = self.last
            msg["changed"] = {k: v for k, v in current.items() if last.get(k) != v}
        self.last = current
        self.round = view.round_index
        msg["legal"] = self.legal_json(legal)
        msg["time"] = {"limit": round(limit, 3), "bank": round(max(bank, 0.0), 3)}
        msg["refusals"] = refusals
        return msg


    def _history(self, view) -> list[dict]:
        """``view_json(view, seat)["history"]``, reading only the view's events not read before.

        A view's events are a copy of its round's events this seat may know, which only grow within a
        round and hold the same event objects each time (engine/game.py ``SeatEvents``): another
        round, another first event or fewer events start the history anew.
        """
        events = view.events
        first = events[0] if events else None
        was = self.history_of
        if was is None or was[0] != view.round_index or was[1] is not first or len(events) < self.history_read:
            self.history, self.history_of, self.history_read = [], (view.round_index, first), 0
        seat, event_json, out = self.seat, self.event_json, self.history
        for e in events[self.history_read:]:
            if "to" not in e:
                public = event_json(e)
                out.append(_redact(dict(e) if public is e else public, seat))
        self.history_read = len(events)
        return list(out)


# Replies from a bot ---------------------------------------------------------------------------


def _check_envelope(msg, seq: int, types: tuple) -> str:
    if not isinstance(msg, dict):
        raise ProtocolError(f"a reply is a JSON object, got {type(msg).__name__}")
    kind = msg.get("type")
    if kind not in types:
        raise ProtocolError(f"expected a reply of type {' or '.join(types)} to request {seq}, got type {kind!r}")
    got = msg.get("seq")
    if isinstance(got, bool) or not isinstance(got, int):
        raise ProtocolError(f"the reply to request {seq} has no integer sequence id (got {got!r})")
    if got != seq:
        why = "a stale id (a second reply, or a reply to an earlier request)" if got < seq else "an id never sent"
        raise ProtocolError(f"wrong sequence id {got} in the reply to request {seq}: {why}")
    return kind


def _short(value, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ProtocolError(f"the hello reply needs a non-empty string {what!r}")
    return value.strip()[:NAME_LIMIT]


def check_hello_reply(msg, seq: int) -> dict:
    """The bot's answer to ``hello`` or ``new_match``: {name, version, observation, protocol}; raises
    Declined or ProtocolError."""
    kind = _check_envelope(msg, seq, ("hello", "error"))
    if kind == "error":
        reason = msg.get("reason")
        raise Declined(str(reason)[:NAME_LIMIT] if reason else "the bot declined without a reason")
    observation = msg.get("observation", "delta")
    if observation not in OBSERVATIONS:
        raise ProtocolError(f"observation must be one of {', '.join(OBSERVATIONS)}, got {observation!r}")
    protocol = msg.get("protocol", PROTOCOL_VERSION)
    if isinstance(protocol, bool) or protocol not in PROTOCOLS:
        raise ProtocolError(f"the bot speaks protocol {protocol!r}, the harness {' or '.join(map(str, PROTOCOLS))}")
    return {"name": _short(msg.get("name"), "name"), "version": _short(msg.get("version"), "version"),
            "observation": observation, "protocol": protocol}


def check_decision_reply(msg, seq: int):
    """The decision in a ``decision`` reply: a JSON object (the decision's JSON form) or a string
    (its text form). Raises ProtocolError."""
    _check_envelope(msg, seq, ("decision",))
    has_json, has_text = "decision" in msg, "text" in msg
    if has_json == has_text:
        raise ProtocolError("a decision reply carries exactly one of 'decision' (an object) or 'text' (a string)")
    if has_json:
        if not isinstance(msg["decision"], dict):
            raise ProtocolError("'decision' must be a JSON object (docs/engine.md, decisions)")
        return msg["decision"]
    if not isinstance(msg["text"], str):
        raise ProtocolError("'text' must be a string such as \"stock\" or \"discard KS\"")
    return msg["text"]


# Schemas ---------------------------------------------------------------------------------------


def schema_files() -> list[Path]:
    return sorted(SCHEMA_DIR.glob("*.json"))


def load_schemas() -> dict:
    """Every schema by file name (``to_bot.request.json`` …, ``common.json``)."""
    return {p.name: json.loads(p.read_text(encoding="utf-8")) for p in schema_files()}


__all__ = [
    "PROTOCOL_VERSION", "TO_BOT", "FROM_BOT", "TimeControl", "ProtocolError", "Declined", "SeatStream",
    "REUSE_VERSION", "PROTOCOLS", "hello_message", "new_match_message", "match_start_message", "match_end_message", "error_message",
    "redact_event", "view_json", "round_record_for", "check_hello_reply", "check_decision_reply",
    "load_schemas", "schema_files", "SCHEMA_DIR",
]
