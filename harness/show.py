"""Showing a match to people, event by event: the turns, the table, the scores, the ranking.

``MatchPrinter`` takes the events of any game and hands them to that game's printer (``PRINTERS``,
chosen by the match_start event's ``game``).
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from engine import einundfuenfzig as e51
from engine.cards import card_unicode, parse_card
from engine.melds import KIND_LETTER, lay_off, make_meld, take_joker


def meld_text(kind: str, cards) -> str:
    return f"{KIND_LETTER[kind]}[{' '.join(card_unicode(c) for c in cards)}]"


def cards_text(cards) -> str:
    return " ".join(card_unicode(c) for c in sorted(cards))


class EllibirPrinter:
    """Call it with each event of an Ellibir match (engine form, card ids as ints) to print the match.

    ``quiet`` prints only the final ranking.
    """

    def __init__(self, console, names=None, quiet: bool = False):
        self.console = console
        self.names = list(names) if names else None
        self.quiet = quiet
        self.swap_rule = "one"
        self.table = []
        self.parts = []
        self.seat = -1
        self.table_changed = False
        self.totals = []
        self.annotated = False  # a harness_bots event came: the ranking waits for harness_result
        self.taken: dict = {}  # seat -> the reference bot playing it since a fault
        self.ended = None  # the engine's match_end, shown with harness_result's ranks

    def __call__(self, e: dict) -> None:
        handler = getattr(self, "on_" + e["e"], None)
        always = ("match_start", "match_end", "harness_bots", "harness_result", "harness_fault", "harness_takeover")
        if handler is not None and (not self.quiet or e["e"] in always):
            handler(e)

    def say(self, text: str, style: str | None = None) -> None:
        self.console.print(Text(text, style=style or ""))

    def who(self, seat: int) -> str:
        name = f" {self.names[seat]}" if self.names else ""
        if seat in self.taken:
            name += f" [{self.taken[seat].removeprefix('builtin:')} plays]"
        return f"seat {seat}{name}"

    # The harness's events (harness/annotated.py) ------------------------------------------------

    def on_harness_bots(self, e: dict) -> None:
        self.annotated = True
        self.names = list(e["bots"])

    def on_harness_fault(self, e: dict) -> None:
        self.flush()
        self.say(f"    fault: {self.who(e['seat'])}: {e['kind']}: {e['reason']} (after {e['decision']} decisions)",
                 "bold red")
        if e.get("stderr"):
            self.say("      stderr (tail):\n" + "\n".join("        " + line for line in e["stderr"].rstrip().splitlines()),
                     "red")

    def on_harness_takeover(self, e: dict) -> None:
        self.taken[e["seat"]] = e["by"]
        if not self.quiet:
            self.say(f"    {e['by'].removeprefix('builtin:')} plays seat {e['seat']} from decision {e['from_decision']} "
                     f"on; its moves are not {e['bot']}'s", "red")

    def on_harness_result(self, e: dict) -> None:
        if self.ended is None:
            return
        self.ranking({**self.ended, "ranks": e["ranks"], "totals": e["totals"]}, e)

    # The match and its rounds ------------------------------------------------------------------

    def on_match_start(self, e: dict) -> None:
        rules = e["rules"]
        self.swap_rule = rules.get("set_joker_swap", "one")
        self.totals = [0] * rules["players"]
        if not self.quiet:
            self.say(f"{e['game']}: {rules['players']} players, {rules['rounds']} rounds, seed {e['seed']}", "bold")

    def on_round_start(self, e: dict) -> None:
        self.table = []
        self.say("")
        cut = f", face-up cut card {card_unicode(e['cut'])}" if e.get("cut", -1) >= 0 else ""
        self.say(f"Round {e['number']} (deal {e['index']}): dealer seat {e['dealer']}, "
                 f"first seat {e['first']}, stock {e['stock_size']}{cut}", "bold cyan")

    def on_hand(self, e: dict) -> None:
        self.say(f"  {self.who(e['seat'])} holds {cards_text(e['cards'])}")

    # A turn ------------------------------------------------------------------------------------

    def part(self, seat: int, text: str) -> None:
        self.seat = seat
        self.parts.append(text)

    def on_draw(self, e: dict) -> None:
        source = e["from"]
        if source == "stock":
            self.part(e["seat"], "draws from the stock")
        else:
            self.part(e["seat"], f"takes {card_unicode(e['card'])} ({source})")

    def on_drawn(self, e: dict) -> None:
        self.parts[-1] += f" {card_unicode(e['card'])}"

    def on_declare(self, e: dict) -> None:
        self.part(e["seat"], "declares pairs")

    def on_claim(self, e: dict) -> None:
        self.part(e["seat"], f"claims the cut card {card_unicode(e['card'])}")

    def on_opened(self, e: dict) -> None:
        how = "pairs" if e["method"] == "pairs" else f"melds worth {e['value']}"
        self.part(e["seat"], f"opens with {how}")

    def on_meld(self, e: dict) -> None:
        meld = make_meld(e["kind"], e["cards"], e["seat"])
        self.table.append(meld)
        self.table_changed = True
        beside = f" beside seat {e['beside']}" if e.get("beside", -1) >= 0 else ""
        self.part(e["seat"], f"lays {meld_text(e['kind'], e['cards'])}{beside}")

    def on_layoff(self, e: dict) -> None:
        lay_off(self.table[e["index"]], e["card"], e.get("end"))
        self.table_changed = True
        self.part(e["seat"], f"lays off {card_unicode(e['card'])} on {e['index']}")

    def on_joker(self, e: dict) -> None:
        take_joker(self.table[e["index"]], e["cards"], self.swap_rule)
        self.table_changed = True
        self.part(e["seat"], f"takes a joker from {e['index']} for {cards_text(e['cards'])}")

    def on_discard(self, e: dict) -> None:
        shown = " (shown)" if e.get("shown") else ""
        self.part(e["seat"], f"discards {card_unicode(e['card'])}{shown}")
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

    # Scores ------------------------------------------------------------------------------------

    def on_round_end(self, e: dict) -> None:
        self.flush()
        record = e["record"]
        self.say(round_summary(record), "bold")
        if not record["void"]:
            for seat, s in enumerate(record["seats"]):
                self.totals[seat] += s["score"]
        self.console.print(self.score_table(record))

    def score_table(self, record: dict) -> Table:
        table = Table(show_edge=False)
        for column in ("seat", "opened", "left in hand", "score", "total"):
            table.add_column(column, justify="right" if column in ("score", "total") else "left")
        for seat, s in enumerate(record["seats"]):
            opened = f"{s['method']} {s['value'] or ''}".strip() if s["opened"] else ("declared" if s["declared"] else "no")
            left = " ".join(card_unicode(parse_card(c)) for c in s["left"])
            table.add_row(Text(self.who(seat)), Text(opened), Text(left), str(s["score"]), str(self.totals[seat]))
        return table

    def on_match_end(self, e: dict) -> None:
        self.flush()
        if self.annotated:
            self.ended = e  # the ranks after the fault policy come with harness_result
            return
        self.ranking(e)

    def ranking(self, e: dict, result: dict | None = None) -> None:
        table = Table(title="Final ranking", show_edge=False)
        for column in ("rank", "seat", "total"):
            table.add_column(column, justify="right" if column != "seat" else "left")
        order = sorted(range(len(e["totals"])), key=lambda s: (e["ranks"][s], s))
        for seat in order:
            table.add_row(str(e["ranks"][seat]), Text(self.who(seat)), str(e["totals"][seat]))
        if not self.quiet:
            self.say("")
        self.console.print(table)
        if e["reason"] != "complete":
            self.say(f"the match ended early: {e['reason']}")
        if result is not None and result.get("faulty"):
            seats = ", ".join(str(s) for s in result["faulty"])
            how = ("a faulty bot ranks last" if result["on_fault"] == "forfeit"
                   else "the totals decide, a reference bot's moves included")
            self.say(f"fault policy {result['on_fault']} (seat {seats}): {how}")


def round_summary(record: dict) -> str:
    if record["end"] == "out":
        finish = [k for k, v in (record.get("finish") or {}).items() if v]
        how = f" ({', '.join(finish)})" if finish else ""
        text = f"  seat {record['winner']} goes out{how}, multiplier {record['multiplier']}"
    else:
        text = f"  the round ends: {record['end']}"
    return text + (" - void round, not counted" if record["void"] else "")


class EinundfuenfzigPrinter(EllibirPrinter):
    """An Einundfünfzig match: each game's deal, every card put on the pile with the new total, the loser."""

    def on_match_start(self, e: dict) -> None:
        rules = e["rules"]
        self.totals = [0] * rules["players"]
        if not self.quiet:
            self.say(f"{e['game']}: {rules['players']} players, {rules['rounds']} game(s), face-up 7 counts "
                     f"{rules['start_seven'].replace('_', ' ')}, seed {e['seed']}", "bold")

    def on_round_start(self, e: dict) -> None:
        value = "chosen by the first player" if e["start_value"] is None else e["start_value"]
        self.say("")
        self.say(f"Game {e['number']}: dealer seat {e['dealer']}, first seat {e['first']}, face-up "
                 f"{_e51_card(e['start'])} ({value}), talon {e['talon_size']}", "bold cyan")

    def on_hand(self, e: dict) -> None:
        self.say(f"  {self.who(e['seat'])} holds {' '.join(_e51_card(c) for c in e['cards'])}")

    def on_draw(self, e: dict) -> None:
        pass

    def on_drawn(self, e: dict) -> None:
        pass

    def on_start_value(self, e: dict) -> None:
        self.say(f"  {self.who(e['seat'])} counts the face-up 7 as {e['value']}: total {e['total']}")

    def on_play(self, e: dict) -> None:
        sign = "+" if e["value"] >= 0 else "-"
        self.say(f"  {self.who(e['seat'])}: {_e51_card(e['card'])}  {e['total'] - e['value']} {sign} "
                 f"{abs(e['value'])} = {e['total']}", "red" if e["total"] >= 51 else None)

    def on_round_end(self, e: dict) -> None:
        record = e["record"]
        self.totals[record["loser"]] += 1
        self.say(f"  {self.who(record['loser'])} reaches {record['final_total']} and loses game {record['number']}",
                 "bold")
        table = Table(show_edge=False)
        for column in ("seat", "cards played", "games lost"):
            table.add_column(column, justify="left" if column == "seat" else "right")
        for seat, s in enumerate(record["seats"]):
            table.add_row(Text(self.who(seat)), str(s["played"]), str(self.totals[seat]))
        self.console.print(table)


def _e51_card(text: str) -> str:
    return e51.card_unicode(e51.parse_card(text))


PRINTERS = {"ellibir": EllibirPrinter, "einundfuenfzig": EinundfuenfzigPrinter}


class MatchPrinter:
    """Call it with each event of a match to print it; ``quiet`` prints only the final ranking."""

    def __init__(self, console, names=None, quiet: bool = False):
        self.console, self.names, self.quiet = console, names, quiet
        self.printer = None

    def __call__(self, e: dict) -> None:
        if self.printer is None or e["e"] == "match_start":
            kind = PRINTERS.get(e.get("game", "ellibir"), EllibirPrinter)
            self.printer = kind(self.console, self.names, self.quiet)
        self.printer(e)
