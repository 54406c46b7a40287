"""The one door to hidden information: what a seat may know, and what it may do now."""

from __future__ import annotations

from dataclasses import dataclass, field

from .cards import JOKER, N_IDS, card_str, cards_of, parse_card
from .game import Later
from .melds import LOW, Meld, accepted_cards, layoff_ends, make_meld, swap_options


@dataclass
class View:
    """Everything seat ``seat`` may know. Cards are ints (engine.cards); ``to_json`` gives strings."""

    seat: int
    players: int
    round_index: int
    round_number: int
    dealer: int
    first: int
    turn: int
    to_move: int
    phase: str
    hand: list  # counts by card id
    marked: list
    table: list  # Meld copies, in table order; ``owner`` and ``beside`` are seats
    discards: list  # the pile, top last
    can_take_discard: bool  # T2 (and P2, layable_discard_dead) allow taking the top now
    can_pair_take: bool  # P1 allows taking the top into hand now
    cut: int  # the face-up cut card while it lies there (D6), else -1
    cut_claim: int
    joker_cutter: int
    stock_size: int
    hand_sizes: list
    opened: list
    open_method: list
    declared: list
    totals: list
    penalties: list  # per seat, the rule ids charged this round
    threshold: int
    pairs_openings: tuple
    rules: object
    # This round's events that this seat may know, in order: the public ones and its own private
    # ones (its hand, drawn cards, decisions, refusals). Never another seat's private events.
    # ``observe``'s views copy them from the log when first read (``_Later`` below), and the table too.
    events: list = field(repr=False, compare=False, default_factory=list)

    def __getstate__(self) -> dict:
        """Pickled with its events and table read: a field not yet copied holds the match's whole log."""
        return {name: getattr(self, name) for name in self.__dict__}

    @property
    def history(self) -> list:
        """This round's public events up to now."""
        return [e for e in self.events if "to" not in e]

    @property
    def top(self) -> int:
        return self.discards[-1] if self.discards else -1

    def to_json(self, history: bool = True) -> dict:
        """The view in JSON form; ``history=False`` leaves out the history (the protocol keeps its own)."""
        out = {
            "seat": self.seat,
            "players": self.players,
            "round": self.round_index,
            "round_number": self.round_number,
            "dealer": self.dealer,
            "first": self.first,
            "turn": self.turn,
            "to_move": self.to_move,
            "phase": self.phase,
            "hand": [card_str(c) for c in cards_of(self.hand)],
            "marked": [card_str(c) for c in self.marked],
            "table": [meld_json(i, m) for i, m in enumerate(self.table)],
            "discards": [card_str(c) for c in self.discards],
            "can_take_discard": self.can_take_discard,
            "can_pair_take": self.can_pair_take,
            "cut": card_str(self.cut) if self.cut >= 0 else None,
            "cut_claim": self.cut_claim,
            "joker_cutter": self.joker_cutter,
            "stock_size": self.stock_size,
            "hand_sizes": self.hand_sizes,
            "opened": self.opened,
            "open_method": self.open_method,
            "declared": self.declared,
            "totals": self.totals,
            "penalties": self.penalties,
            "threshold": self.threshold,
            "pairs_openings": [list(p) for p in self.pairs_openings],
        }
        if history:
            out["history"] = [public_event_json(e) for e in self.history]
        return out


def meld_json(index: int, m) -> dict:
    stands = []
    for i, c in enumerate(m.cards):
        if c == JOKER:
            s = m.stands_for(i)
            stands.append(card_str(s) if s >= 0 else f"rank:{card_str(-1 - s)[:-1]}")
    out = {"index": index, "kind": m.kind, "cards": [card_str(c) for c in m.cards], "owner": m.owner}
    if stands:
        out["jokers"] = stands
    if m.beside >= 0:
        out["beside"] = m.beside
    return out


_CARD_KEYS = ("card", "cut")


def public_event_json(e: dict) -> dict:
    out = {}
    for k, v in e.items():
        if k in _CARD_KEYS and isinstance(v, int):
            out[k] = card_str(v) if v >= 0 else None
        elif k == "cards":
            out[k] = [card_str(c) for c in v]
        else:
            out[k] = v
    return out


class _Later:
    """A View field that ``observe`` leaves to be copied from the match the first time it is read: the
    events (a ``Later``, engine/game.py) and the table (a ``_Table``). A bot that never reads them
    (greedy when it draws) costs no copies."""

    def __init__(self, name: str):
        self.name = name

    def __get__(self, view, owner=None):
        if view is None:
            return self
        value = view.__dict__[self.name]
        if type(value) in _PENDING:
            value = view.__dict__[self.name] = value.read()
        return value

    def __set__(self, view, value) -> None:
        view.__dict__[self.name] = value


class _Table:
    """A round's table, copied when read: a round never changes its table's list or melds, it replaces
    them (engine/ellibir.py ``Round.clone``), so the copy is the table as it stood when observed."""

    __slots__ = ("melds",)

    def __init__(self, melds: list):
        self.melds = melds

    def read(self) -> list:
        return list(map(Meld.copy, self.melds))


_PENDING = (Later, _Table)
View.events = _Later("events")
View.table = _Later("table")


def observe(match, seat: int) -> View:
    rnd = match.round
    events = match.seen[seat].later(match.events, match.round_start)
    return view_of(rnd, seat, match.counted + 1, match.totals, events, _Table(rnd.table))


def view_of(rnd, seat: int, round_number: int, totals: list, events, table=None) -> View:
    """The View of ``seat`` in round ``rnd``; ``events`` are the round's events this seat may know (copied,
    or a ``Later``), ``table`` the table's melds when not a copy of the round's (``observe``: a ``_Table``)."""
    drawing = rnd.seat == seat and rnd.phase == "draw"
    return View(
        seat=seat,
        players=rnd.n,
        round_index=rnd.index,
        round_number=round_number,
        dealer=rnd.dealer,
        first=rnd.first,
        turn=rnd.turn,
        to_move=rnd.seat,
        phase=rnd.phase,
        hand=rnd.hands[seat][:],
        marked=list(rnd.marked[seat]),
        table=list(map(Meld.copy, rnd.table)) if table is None else table,
        discards=list(rnd.discards),
        can_take_discard=drawing and rnd.discard_blocked(seat) is None,
        can_pair_take=drawing and rnd.pair_take_blocked(seat) is None,
        cut=rnd.cut if rnd.cut_lies else -1,
        cut_claim=rnd.cut_claim,
        joker_cutter=rnd.joker_cutter,
        stock_size=len(rnd.stock),
        hand_sizes=list(rnd.sizes),
        opened=list(rnd.opened),
        open_method=list(rnd.open_method),
        declared=list(rnd.declared),
        totals=list(totals),
        penalties=list(map(list, rnd.penalties)),
        threshold=rnd.threshold_now(),
        pairs_openings=rnd.rules.pairs_openings if rnd.open_method[seat] != "melds" else (),
        rules=rnd.rules,
        events=events if type(events) is Later else list(events),
    )


def legal(rnd, seat: int) -> dict:
    """What ``seat`` may do now, as the engine sees it (the protocol sends this with each request)."""
    out = {"seat": seat, "to_move": rnd.seat == seat and not rnd.over, "phase": rnd.phase,
           "round": rnd.index, "turn": rnd.turn}
    if not out["to_move"]:
        return out
    hand = rnd.hands[seat]
    if rnd.phase == "draw":
        blocked = rnd.discard_blocked(seat)
        pair_blocked = rnd.pair_take_blocked(seat)
        out["draw"] = {
            "stock": True,
            "stock_empty": not rnd.stock,
            "cut": rnd.cut_takeable(seat),
            "take": blocked is None,
            "take_blocked": blocked,
            "pair": pair_blocked is None,
            "pair_blocked": pair_blocked,
            "discard": rnd.top,
        }
    opened = rnd.opened[seat]
    out["opened"] = opened
    out["threshold"] = rnd.threshold_now()
    out["pairs_openings"] = rnd.rules.pairs_openings if rnd.open_method[seat] != "melds" and not opened else ()
    out["can_declare"] = not opened and not rnd.declared[seat]
    out["can_claim_cut"] = (
        rnd.rules.joker_in_cut and rnd.cut_lies and rnd.cut_claim < 0 and hand[rnd.cut] > 0
        and rnd.open_method[seat] != "melds"  # D6: declared pairs players only (P1: melds openers cannot declare)
        if rnd.cut >= 0 else False
    )
    layoffs, swaps = [], []
    table = rnd.table
    if opened:
        for i, m in enumerate(table):
            fits = m.fits
            if fits is None:
                fits = accepted_cards(m)
            for c in fits:
                if hand[c] and c != JOKER:  # one at least: the list made only then
                    layoffs.append({"meld": i, "cards": [c for c in fits if hand[c] and c != JOKER],
                                    "joker_ends": list(layoff_ends(m, JOKER)) if hand[JOKER] else []})
                    break
    if opened or rnd.phase == "play":
        rules = rnd.rules
        own_kept = rules.joker_take_from == "others"
        for i, m in enumerate(table):
            if JOKER in m.cards and not (own_kept and m.owner == seat):
                options = swap_options(m, rules.set_joker_swap)
                held = [opt for opt in options if all(hand[c] >= opt.count(c) for c in opt)]
                swaps.append({"meld": i, "options": options, "held": held})
    out["layoffs"] = layoffs
    out["joker_swaps"] = swaps
    out["must_keep"] = [c for c in rnd.marked[seat]]
    if rnd.taken >= 0:
        out["must_keep"].append(rnd.taken)
    return out


def legal_json(d: dict) -> dict:
    """The JSON form of ``legal``: card ids as strings."""
    out = dict(d)
    if "draw" in d:
        draw = dict(d["draw"])
        draw["discard"] = card_str(draw["discard"]) if draw["discard"] >= 0 else None
        out["draw"] = draw
    if "pairs_openings" in d:
        out["pairs_openings"] = [list(p) for p in d["pairs_openings"]]
    if "layoffs" in d:
        out["layoffs"] = [{**x, "cards": [card_str(c) for c in x["cards"]]} for x in d["layoffs"]]
    if "joker_swaps" in d:
        out["joker_swaps"] = [
            {"meld": x["meld"], "options": [[card_str(c) for c in o] for o in x["options"]],
             "held": [[card_str(c) for c in o] for o in x["held"]]}
            for x in d["joker_swaps"]
        ]
    if "must_keep" in d:
        out["must_keep"] = [card_str(c) for c in d["must_keep"]]
    return out


def _counts(cards) -> list:
    out = [0] * N_IDS
    for c in map(parse_card, cards):
        out[c] += 1
    return out


def _card_or_none(text) -> int:
    return -1 if text is None else parse_card(text)


def _table(melds: list, kept: dict | None) -> list:
    """The table's melds from their JSON forms, each read once a round (``kept``: by its JSON form)."""
    table = []
    for m in melds:
        key = (m["kind"], tuple(m["cards"]), m["owner"], m.get("beside", -1))
        meld = kept.get(key) if kept is not None else None
        if meld is None:
            meld = make_meld(m["kind"], [parse_card(c) for c in m["cards"]], m["owner"])
            meld.beside = key[3]
            if kept is not None:
                kept[key] = meld
        table.append(meld)
    return table


def _read(kept: dict, name: str, value, read):
    """``read(value)``, or what it gave last time for this very object (a field a delta left alone)."""
    was = kept.get(name)
    if was is None or was[0] is not value:
        was = kept[name] = (value, read(value))
    return was[1]


def view_from_json(data: dict, rules, history: list | None = None, melds: dict | None = None) -> View:
    """The View of a seat from its JSON form (``View.to_json``; the protocol's view object), with the
    round's public events as its history when they come apart (``history``). ``melds``: what was read
    before in this round, kept there for the next call: the hand and the table as read, by the JSON
    value they were read from (a field a delta did not change is the same object, and is not read
    again), the table melds by their JSON form, and the discard pile (it only grows within a round).
    The View gets its own copies of lists and melds: a bot may change them."""
    kept = {} if melds is None else melds
    hand = _read(kept, "hand_read", data["hand"], _counts)[:]
    table = [m.copy() for m in _read(kept, "table_read", data["table"], lambda v: _table(v, kept))]
    history = list(data.get("history", []) if history is None else history)
    return View(
        data["seat"], data["players"], data["round"], data["round_number"], data["dealer"], data["first"],
        data["turn"], data["to_move"], data["phase"], hand, [parse_card(c) for c in data["marked"]], table,
        _discards(data["discards"], kept), data["can_take_discard"], data["can_pair_take"],
        _card_or_none(data["cut"]), data["cut_claim"], data["joker_cutter"], data["stock_size"],
        list(data["hand_sizes"]), list(data["opened"]), list(data["open_method"]), list(data["declared"]),
        list(data["totals"]), [list(p) for p in data["penalties"]], data["threshold"],
        tuple(tuple(p) for p in data["pairs_openings"]), rules, history,
    )


def _discards(names: list, kept: dict) -> list:
    """The pile's card ids, parsing only the cards on top of the pile read last time (``kept``)."""
    was_names, was_ids = kept.get("discards", ((), ()))
    n = len(was_names)
    if len(names) < n or names[:n] != was_names:
        n, was_ids = 0, []
    ids = [*was_ids, *(parse_card(c) for c in names[n:])]
    kept["discards"] = (list(names), ids)
    return list(ids)


def legal_from_json(data: dict) -> dict:
    """``legal`` (card ids) from its JSON form (``legal_json``)."""
    out = dict(data)
    if "draw" in data:
        out["draw"] = {**data["draw"], "discard": _card_or_none(data["draw"]["discard"])}
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


__all__ = ["View", "observe", "view_of", "legal", "legal_json", "legal_from_json", "meld_json", "public_event_json",
           "view_from_json", "LOW"]
