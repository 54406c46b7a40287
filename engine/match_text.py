"""A match told in words for people, event by event: each game's ``GameSpec.text`` (engine/game.py).

The harness renders (harness/match/show.py): a text object gets an ``out`` with ``line(text, style)``
(style a plain name such as "bold" or "red", or None) and ``table(columns, rows, right)`` (rows of
strings; ``right``: the columns set flush right), and ``who(seat)``, the seat's name as the harness
shows it (with the bot, and who plays it after a fault). Call it with each engine event (engine form,
card ids as ints, or JSON form); ``flush()`` writes a turn still being gathered. Nothing here prints.

``MatchText`` is the plain fallback: each event as ``engine.replay.say`` words it.
"""

from __future__ import annotations

from .cards import card_unicode, parse_card
from .melds import KIND_LETTER, lay_off, make_meld, take_joker


def _card(c) -> str:
    return card_unicode(parse_card(c) if isinstance(c, str) else c)


def meld_text(kind: str, cards) -> str:
    return f"{KIND_LETTER[kind]}[{' '.join(_card(c) for c in cards)}]"


def cards_text(cards) -> str:
    ids = sorted(parse_card(c) if isinstance(c, str) else c for c in cards)
    return " ".join(card_unicode(c) for c in ids)


class MatchText:
    """Any game, in the replay model's words; a game's own text (a subclass) shows only what it handles."""

    plain = True  # events without a handler are said in the replay model's words

    def __init__(self, out, who):
        self.out, self.who = out, who

    def __call__(self, e: dict) -> None:
        handler = getattr(self, "on_" + e["e"], None)
        if handler is not None:
            handler(e)
        elif self.plain and e["e"] not in ("decision", "stock", "talon", "match_end"):
            from .replay import say

            self.say("  " + say(e))

    def say(self, text: str, style: str | None = None) -> None:
        self.out.line(text, style)

    def flush(self) -> None:
        pass

    # Words for the viewer (engine/replay.py): one event, one round's outcome ---------------------------

    @staticmethod
    def words(e: dict) -> str | None:
        """One event in plain words (JSON form), or None for the replay model's generic words."""
        return None

    @staticmethod
    def outcome(record: dict, short: bool = False) -> str:
        """How a round ended, from its record: a sentence, or a few words for a list of rounds (``short``);
        by default the replay model's words from the keys every game's record has."""
        from .replay import outcome_words

        return outcome_words(record, short)


class EllibirText(MatchText):
    """Ellibir: a seat's turn on one line, the table after it changed, each round's scores."""

    plain = False

    def __init__(self, out, who):
        super().__init__(out, who)
        self.swap_rule = "one"
        self.table = []
        self.parts = []
        self.seat = -1
        self.table_changed = False
        self.totals = []

    def on_match_start(self, e: dict) -> None:
        rules = e["rules"]
        self.swap_rule = rules.get("set_joker_swap", "one")
        self.totals = [0] * rules["players"]
        rounds = f"{rules['rounds']} round" + "s" * (rules["rounds"] != 1)
        self.say(f"{e['game']}: {rules['players']} players, {rounds}, seed {e['seed']}", "bold")

    def on_round_start(self, e: dict) -> None:
        self.table = []
        self.say("")
        cut = e.get("cut", -1)
        cut = f", face-up cut card {_card(cut)}" if cut is not None and cut != -1 else ""
        self.say(f"Round {e['number']} (deal {e['index']}): dealer seat {e['dealer']}, "
                 f"first seat {e['first']}, stock {e['stock_size']}{cut}", "bold cyan")

    def on_hand(self, e: dict) -> None:
        self.say(f"  {self.who(e['seat'])} holds {cards_text(e['cards'])}")

    def part(self, seat: int, text: str) -> None:
        self.seat = seat
        self.parts.append(text)

    def on_draw(self, e: dict) -> None:
        source = e["from"]
        if source == "stock":
            self.part(e["seat"], "draws from the stock")
        else:
            self.part(e["seat"], f"takes {_card(e['card'])} ({source})")

    def on_drawn(self, e: dict) -> None:
        self.parts[-1] += f" {_card(e['card'])}"

    def on_declare(self, e: dict) -> None:
        self.part(e["seat"], "declares pairs")

    def on_claim(self, e: dict) -> None:
        self.part(e["seat"], f"claims the cut card {_card(e['card'])}")

    def on_opened(self, e: dict) -> None:
        how = "pairs" if e["method"] == "pairs" else f"melds worth {e['value']}"
        self.part(e["seat"], f"opens with {how}")

    def on_meld(self, e: dict) -> None:
        cards = [parse_card(c) if isinstance(c, str) else c for c in e["cards"]]
        self.table.append(make_meld(e["kind"], cards, e["seat"]))
        self.table_changed = True
        beside = f" beside seat {e['beside']}" if e.get("beside", -1) >= 0 else ""
        self.part(e["seat"], f"lays {meld_text(e['kind'], cards)}{beside}")

    def on_layoff(self, e: dict) -> None:
        card = parse_card(e["card"]) if isinstance(e["card"], str) else e["card"]
        lay_off(self.table[e["index"]], card, e.get("end"))
        self.table_changed = True
        self.part(e["seat"], f"lays off {_card(card)} on {e['index']}")

    def on_joker(self, e: dict) -> None:
        cards = [parse_card(c) if isinstance(c, str) else c for c in e["cards"]]
        take_joker(self.table[e["index"]], cards, self.swap_rule)
        self.table_changed = True
        self.part(e["seat"], f"takes a joker from {e['index']} for {cards_text(cards)}")

    def on_discard(self, e: dict) -> None:
        shown = " (shown)" if e.get("shown") else ""
        self.part(e["seat"], f"discards {_card(e['card'])}{shown}")
        self.flush()

    def on_penalty(self, e: dict) -> None:
        self.flush()
        self.say(f"    penalty 50 for {self.who(e['seat'])} ({e['rule']}): {e['reason']}", "red")

    def on_refused(self, e: dict) -> None:
        self.flush()
        self.say(f"    refused {self.who(e['seat'])} ({e['rule']}): {e['reason']}", "yellow")

    def flush(self) -> None:
        if self.parts:
            self.say(f"  {self.who(self.seat)}: " + "; ".join(self.parts))
            self.parts = []
        if self.table_changed:
            for i, m in enumerate(self.table):
                self.say(f"      {i}: {meld_text(m.kind, m.cards)}  (seat {m.owner})", "dim")
            self.table_changed = False

    def on_round_end(self, e: dict) -> None:
        self.flush()
        record = e["record"]
        self.say(round_summary(record), "bold")
        if not record["void"]:
            for seat, s in enumerate(record["seats"]):
                self.totals[seat] += s["score"]
        rows = []
        for seat, s in enumerate(record["seats"]):
            opened = f"{s['method']} {s['value'] or ''}".strip() if s["opened"] else ("declared" if s["declared"] else "no")
            rows.append([self.who(seat), opened, " ".join(_card(c) for c in s["left"]), str(s["score"]), str(self.totals[seat])])
        self.out.table(["seat", "opened", "left in hand", "score", "total"], rows, ("score", "total"))


    @staticmethod
    def words(e: dict) -> str | None:
        kind, seat = e.get("e"), e.get("seat")
        who = f"seat {seat}"
        if kind == "draw":
            return f"{who} draws from the stock" if e.get("from") == "stock" else \
                f"{who} takes {_card(e['card'])} from the {str(e.get('from')).replace('_', ' ')}"
        if kind == "drawn":
            return f"{who} draws {_card(e['card'])}"
        if kind == "discard":
            return f"{who} discards {_card(e['card'])}" + (" face up for all to see" if e.get("shown") else "")
        if kind == "declare":
            return f"{who} declares that they will open with pairs"
        if kind == "claim":
            return f"{who} claims the cut card {_card(e['card'])}"
        if kind == "opened":
            how = "pairs" if e.get("method") == "pairs" else f"melds worth {e.get('value')}"
            return f"{who} opens with {how}"
        if kind == "meld":
            beside = f", beside seat {e['beside']}'s" if e.get("beside", -1) >= 0 else ""
            return f"{who} lays {MELD_WORDS.get(e.get('kind'), 'a meld')} {cards_text(e['cards'])}{beside}"
        if kind == "layoff":
            return f"{who} lays off {_card(e['card'])} on meld {e['index'] + 1} of the table"
        if kind == "joker":
            return (f"{who} takes the joker of meld {e['index'] + 1} of the table, putting "
                    f"{cards_text(e['cards'])} in its place")
        if kind == "round_end":
            return EllibirText.outcome(e["record"])
        return None

    @staticmethod
    def outcome(record: dict, short: bool = False) -> str:
        """Who went out and how (rules G2-G4), or why the round was void (T5, T6)."""
        end, turns = record.get("end"), record.get("turns")
        seats = record.get("seats") or []
        opened = [s for s, x in enumerate(seats) if x.get("opened")]
        if end == "out":
            w = record["winner"]
            how = [FINISH_WORDS[k] for k in ("G2", "G3", "G4") if (record.get("finish") or {}).get(k)]
            if short:
                return f"seat {w} went out" + (f" ({', '.join(how)})" if how else "")
            text = f"Seat {w} went out after {turns} turns" + (f", {_and(how)}" if how else "")
            mult = record.get("multiplier", 1)
            return text + (f" (multiplier {mult})." if mult and mult != 1 else ".")
        cause = "the turn limit was reached (T6)" if end == "max_turns" else "the stock ran out (T5)"
        if record.get("void"):
            if short:
                return "void: nobody opened" if not opened else "void: stock out" if end != "max_turns" else \
                    "void: turn limit"
            if not opened:
                return f"Void round: {cause} and nobody had opened; it does not count."
            said = _and([f"seat {s}" for s in opened])
            return f"Void round: {cause} after {said} had opened (exhausted = void); it does not count."
        if short:
            return "no winner: stock out" if end != "max_turns" else "no winner: turn limit"
        return f"No winner: {cause}; every seat is scored as a loser (exhausted = score)."


MELD_WORDS = {"run": "the run", "set": "the set", "pair": "the pair"}
FINISH_WORDS = {"G2": "all at once (G2)", "G3": "with a joker (G3)", "G4": "from pairs (G4)"}


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def round_summary(record: dict) -> str:
    if record["end"] == "out":
        finish = [k for k, v in (record.get("finish") or {}).items() if v]
        how = f" ({', '.join(finish)})" if finish else ""
        text = f"  seat {record['winner']} goes out{how}, multiplier {record['multiplier']}"
    else:
        text = f"  the round ends: {record['end']}"
    return text + (" - void round, not counted" if record["void"] else "")


__all__ = ["EllibirText", "MatchText", "cards_text", "meld_text", "round_summary"]
