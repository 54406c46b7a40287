"""Draw and play decisions as plain values, with string and JSON forms that round-trip.

String forms, one decision per line, plays separated by ``; ``::

    stock                       draw the top of the stock
    cut                         take the face-up cut card (D6)
    pair                        take the discard into hand to form a pair (P1)
    take; open R[5H 6H 7H] S[9C 9D JK]
                                take the discard and lay it down at once (T2)
    open R[5H JK 7H] S[9C 9D 9S]; layoff 2 8H; joker 0 5S; discard KS
    pairs P[JH JH] P[4C JK] P[7D 7D] P[QS QS] R[2C 3C 4C]; discard 9H
    meld S[8C 8D 8H]; pair 1 P[6S 6S]; declare; claim 7C; discard 3D shown

``layoff I CARD [low|high]`` lays a card off onto table meld I; ``joker I CARDS`` frees a joker
from table meld I with the natural CARDS; ``pair SEAT P[..]`` lays a pair beside SEAT's pairs (A3).
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import CardError, card_str, parse_card
from .errors import DecisionError
from .melds import KINDS, LETTER_KIND, LOW, HIGH, meld_str

DRAW_SOURCES = ("stock", "cut", "pair", "take")
MELD_PLAYS = ("open", "pairs", "meld", "pair")
PLAY_KINDS = MELD_PLAYS + ("layoff", "joker", "declare", "claim")


@dataclass(frozen=True, slots=True)
class Play:
    kind: str
    melds: tuple = ()  # ((kind, (cards...)), ...) for open, pairs, meld, pair
    target: int = -1  # table meld index (layoff, joker) or seat (pair)
    cards: tuple = ()  # layoff: (card,), joker: the natural cards given, claim: (card,)
    end: str | None = None

    def __str__(self) -> str:
        melds = " ".join(meld_str(k, c) for k, c in self.melds)
        if self.kind in ("open", "pairs", "meld"):
            return f"{self.kind} {melds}"
        if self.kind == "pair":
            return f"pair {self.target} {melds}"
        if self.kind == "layoff":
            tail = f" {self.end}" if self.end else ""
            return f"layoff {self.target} {card_str(self.cards[0])}{tail}"
        if self.kind == "joker":
            return f"joker {self.target} " + " ".join(card_str(c) for c in self.cards)
        if self.kind == "claim":
            return f"claim {card_str(self.cards[0])}"
        return self.kind

    def to_json(self) -> dict:
        out = {"type": self.kind}
        if self.melds:
            out["melds"] = [{"kind": k, "cards": [card_str(c) for c in cs]} for k, cs in self.melds]
        if self.target >= 0:
            out["seat" if self.kind == "pair" else "meld"] = self.target
        if self.cards:
            out["cards"] = [card_str(c) for c in self.cards]
        if self.end:
            out["end"] = self.end
        return out

    @property
    def laid(self) -> int:
        """Cards this play takes from the hand."""
        if self.kind in MELD_PLAYS:
            return sum(len(cs) for _, cs in self.melds)
        if self.kind == "layoff":
            return 1
        if self.kind == "joker":
            return len(self.cards) - 1  # gives cards, gets a joker back (may free more; see engine)
        return 0


@dataclass(frozen=True, slots=True)
class Draw:
    source: str
    plays: tuple = ()

    def __str__(self) -> str:
        return "; ".join([self.source] + [str(p) for p in self.plays])

    def to_json(self) -> dict:
        out = {"draw": self.source}
        if self.plays:
            out["plays"] = [p.to_json() for p in self.plays]
        return out


@dataclass(frozen=True, slots=True)
class Turn:
    plays: tuple
    discard: int
    shown: bool = False

    def __str__(self) -> str:
        tail = f"discard {card_str(self.discard)}" + (" shown" if self.shown else "")
        return "; ".join([str(p) for p in self.plays] + [tail])

    def to_json(self) -> dict:
        out = {"plays": [p.to_json() for p in self.plays], "discard": card_str(self.discard)}
        if self.shown:
            out["shown"] = True
        return out


STOCK = Draw("stock")


# Parsing (the checked path) --------------------------------------------------------------------


def _card(text) -> int:
    try:
        return parse_card(text)
    except CardError as e:
        raise DecisionError(str(e)) from None


def _int(text, what: str) -> int:
    if isinstance(text, bool):
        raise DecisionError(f"{what}: expected a number, got {text!r}")
    if isinstance(text, int):
        return text
    try:
        return int(text)
    except (TypeError, ValueError):
        raise DecisionError(f"{what}: expected a number, got {text!r}") from None


def _meld_text(text: str) -> tuple:
    if len(text) < 3 or text[1] != "[" or text[-1] != "]" or text[0] not in LETTER_KIND:
        raise DecisionError(f"not a meld: {text!r} (expected R[..], S[..] or P[..])")
    return LETTER_KIND[text[0]], tuple(_card(t) for t in text[2:-1].split())


def _split_melds(text: str) -> list[str]:
    out, depth, start = [], 0, None
    for i, ch in enumerate(text):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth == 0 and start is not None:
                out.append(text[start : i + 1].strip())
                start = None
        elif depth == 0 and not ch.isspace() and start is None:
            start = i
    if depth != 0 or start is not None:
        raise DecisionError(f"unbalanced melds: {text!r}")
    return out


def parse_play(text: str) -> Play:
    word, _, rest = text.strip().partition(" ")
    rest = rest.strip()
    if word in ("open", "pairs", "meld"):
        return Play(word, tuple(_meld_text(m) for m in _split_melds(rest)))
    if word == "pair":
        seat, _, melds = rest.partition(" ")
        return Play("pair", tuple(_meld_text(m) for m in _split_melds(melds)), _int(seat, "pair seat"))
    if word == "layoff":
        parts = rest.split()
        if len(parts) not in (2, 3) or (len(parts) == 3 and parts[2] not in (LOW, HIGH)):
            raise DecisionError(f"expected 'layoff MELD CARD [low|high]', got {text!r}")
        return Play("layoff", (), _int(parts[0], "layoff meld"), (_card(parts[1]),), parts[2] if len(parts) == 3 else None)
    if word == "joker":
        parts = rest.split()
        if len(parts) < 2:
            raise DecisionError(f"expected 'joker MELD CARD...', got {text!r}")
        return Play("joker", (), _int(parts[0], "joker meld"), tuple(_card(p) for p in parts[1:]))
    if word == "declare" and not rest:
        return Play("declare")
    if word == "claim":
        return Play("claim", (), -1, (_card(rest),))
    raise DecisionError(f"unknown play {text!r}")


def parse_decision(text: str):
    """A Draw or a Turn from its string form."""
    if not isinstance(text, str) or not text.strip():
        raise DecisionError("empty decision")
    parts = [p.strip() for p in text.split(";")]
    head = parts[0].split()[0] if parts[0] else ""
    if head in DRAW_SOURCES and parts[0] == head:
        plays = tuple(parse_play(p) for p in parts[1:])
        return _draw(head, plays)
    last = parts[-1].split()
    if not last or last[0] != "discard" or len(last) not in (2, 3) or (len(last) == 3 and last[2] != "shown"):
        for p in parts:
            parse_play(p)  # an unreadable part is named first; readable plays without a discard break T4
        raise DecisionError("a play decision ends with 'discard CARD' or 'discard CARD shown'", "T4")
    return Turn(tuple(parse_play(p) for p in parts[:-1]), _card(last[1]), len(last) == 3)


def _draw(source: str, plays: tuple) -> Draw:
    if source == "take" and not plays:
        raise DecisionError("taking the discard needs the plays that lay it down", "T2")
    if source != "take" and plays:
        raise DecisionError(f"a '{source}' draw carries no plays")
    for p in plays:
        if p.kind not in MELD_PLAYS:
            raise DecisionError(f"only melds go with taking the discard, not {p.kind!r}", "T2")
    return Draw(source, plays)


def _json_melds(data) -> tuple:
    if not isinstance(data, list) or not data:
        raise DecisionError("melds: expected a non-empty list")
    out = []
    for m in data:
        if not isinstance(m, dict) or m.get("kind") not in KINDS or not isinstance(m.get("cards"), list):
            raise DecisionError(f"meld: expected {{'kind': run|set|pair, 'cards': [...]}}, got {m!r}")
        out.append((m["kind"], tuple(_card(c) for c in m["cards"])))
    return tuple(out)


def play_from_json(data) -> Play:
    if not isinstance(data, dict) or data.get("type") not in PLAY_KINDS:
        raise DecisionError(f"play: expected an object with type one of {', '.join(PLAY_KINDS)}")
    kind = data["type"]
    if kind in ("open", "pairs", "meld"):
        return Play(kind, _json_melds(data.get("melds")))
    if kind == "pair":
        return Play(kind, _json_melds(data.get("melds")), _int(data.get("seat"), "pair seat"))
    cards = data.get("cards")
    if kind in ("layoff", "joker", "claim"):
        if not isinstance(cards, list) or not cards or (kind != "joker" and len(cards) != 1):
            raise DecisionError(f"{kind}: expected 'cards' with {'one card' if kind != 'joker' else 'cards'}")
        cards = tuple(_card(c) for c in cards)
    if kind == "layoff":
        end = data.get("end")
        if end not in (None, LOW, HIGH):
            raise DecisionError(f"layoff end: expected low or high, got {end!r}")
        return Play(kind, (), _int(data.get("meld"), "layoff meld"), cards, end)
    if kind == "joker":
        return Play(kind, (), _int(data.get("meld"), "joker meld"), cards)
    if kind == "claim":
        return Play(kind, (), -1, cards)
    return Play(kind)


def decision_from_json(data):
    """A Draw or a Turn from its JSON form (what a bot sends)."""
    if not isinstance(data, dict):
        raise DecisionError("a decision is a JSON object")
    if "draw" in data:
        if data["draw"] not in DRAW_SOURCES:
            raise DecisionError(f"draw: expected one of {', '.join(DRAW_SOURCES)}, got {data['draw']!r}")
        plays = data.get("plays", [])
        if not isinstance(plays, list):
            raise DecisionError("plays: expected a list")
        return _draw(data["draw"], tuple(play_from_json(p) for p in plays))
    if "discard" in data:
        plays = data.get("plays", [])
        if not isinstance(plays, list):
            raise DecisionError("plays: expected a list")
        shown = data.get("shown", False)
        if not isinstance(shown, bool):
            raise DecisionError("shown: expected true or false")
        return Turn(tuple(play_from_json(p) for p in plays), _card(data["discard"]), shown)
    raise DecisionError("a decision has 'draw' or 'discard'")
