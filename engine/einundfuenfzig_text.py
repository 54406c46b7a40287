"""Einundfünfzig told in words (engine/match_text.py): each game's deal, every card put on the pile with
the new total, the loser and the games lost so far."""

from __future__ import annotations

from .einundfuenfzig_cards import card_unicode, parse_card
from .match_text import MatchText


def _card(text: str) -> str:
    return card_unicode(parse_card(text))


class EinundfuenfzigText(MatchText):
    plain = False

    def __init__(self, out, who):
        super().__init__(out, who)
        self.totals = []

    def on_match_start(self, e: dict) -> None:
        rules = e["rules"]
        self.totals = [0] * rules["players"]
        self.say(f"{e['game']}: {rules['players']} players, {rules['rounds']} game(s), face-up 7 counts "
                 f"{rules['start_seven'].replace('_', ' ')}, seed {e['seed']}", "bold")

    def on_round_start(self, e: dict) -> None:
        value = "chosen by the first player" if e["start_value"] is None else e["start_value"]
        self.say("")
        self.say(f"Game {e['number']}: dealer seat {e['dealer']}, first seat {e['first']}, face-up "
                 f"{_card(e['start'])} ({value}), talon {e['talon_size']}", "bold cyan")

    def on_hand(self, e: dict) -> None:
        self.say(f"  {self.who(e['seat'])} holds {' '.join(_card(c) for c in e['cards'])}")

    def on_draw(self, e: dict) -> None:
        pass

    def on_drawn(self, e: dict) -> None:
        pass

    def on_refused(self, e: dict) -> None:
        self.say(f"    refused {self.who(e['seat'])} ({e['rule']}): {e['reason']}", "yellow")

    def on_start_value(self, e: dict) -> None:
        self.say(f"  {self.who(e['seat'])} counts the face-up 7 as {e['value']}: total {e['total']}")

    def on_play(self, e: dict) -> None:
        sign = "+" if e["value"] >= 0 else "-"
        self.say(f"  {self.who(e['seat'])}: {_card(e['card'])}  {e['total'] - e['value']} {sign} "
                 f"{abs(e['value'])} = {e['total']}", "red" if e["total"] >= 51 else None)

    def on_round_end(self, e: dict) -> None:
        record = e["record"]
        self.totals[record["loser"]] += 1
        self.say(f"  {self.who(record['loser'])} reaches {record['final_total']} and loses game {record['number']}",
                 "bold")
        rows = [[self.who(seat), str(s["played"]), str(self.totals[seat])] for seat, s in enumerate(record["seats"])]
        self.out.table(["seat", "cards played", "games lost"], rows, ("cards played", "games lost"))

    @staticmethod
    def words(e: dict) -> str | None:
        kind, who = e.get("e"), f"seat {e.get('seat')}"
        if kind == "drawn":
            return f"{who} draws {_card(e['card'])}"
        if kind == "draw":
            return f"{who} draws from the talon ({e['talon_size']} cards left)" if "talon_size" in e else None
        if kind == "start_value":
            return f"{who} counts the face-up 7 as {e['value']}: the total is {e['total']}"
        if kind == "play":
            sign = "+" if e["value"] >= 0 else "-"
            return (f"{who} plays {_card(e['card'])}: {e['total'] - e['value']} {sign} {abs(e['value'])} = "
                    f"{e['total']}" + (" (51 or more: this seat loses the game)" if e["total"] >= 51 else ""))
        if kind == "talon":
            return f"the talon is shuffled: {len(e.get('cards') or [])} cards"
        if kind == "round_end":
            return EinundfuenfzigText.outcome(e["record"])
        return None

    @staticmethod
    def outcome(record: dict, short: bool = False) -> str:
        loser = record.get("loser")
        if loser is None:
            return MatchText.outcome(record, short)
        if short:
            return f"seat {loser} lost"
        return f"Seat {loser} reached {record.get('final_total')} and lost game {record.get('number')}."


__all__ = ["EinundfuenfzigText"]
