"""Showing a match to people, event by event: the turns, the table, the scores, the ranking.

``MatchPrinter`` knows no game: the words of each game's events come from the game's registered text
(``GameSpec.text``, engine/match_text.py), chosen by the match_start event's ``game``; this module
renders them with rich and adds what the harness knows: the bots' names, faults, takeovers, the
final ranking after the fault policy. Everything it prints goes through ``terminal_safe``: a bot's
stderr or reply quoted in a fault is shown with its control characters escaped.
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from engine.game import UnknownGame, get_game
from engine.match_text import MatchText

from harness.players.trace import terminal_safe

ALWAYS = ("match_start", "match_end", "harness_bots", "harness_result", "harness_fault", "harness_takeover")


class MatchPrinter:
    """Call it with each event of a match (engine or JSON form) to print it; ``quiet`` prints only the
    final ranking."""

    def __init__(self, console, names=None, quiet: bool = False):
        self.console = console
        self.names = list(names) if names else None
        self.quiet = quiet
        self.text = MatchText(self, self.who)
        self.annotated = False  # a harness_bots event came: the ranking waits for harness_result
        self.taken: dict = {}  # seat -> the reference bot playing it since a fault
        self.ended = None  # the engine's match_end, shown with harness_result's ranks

    def __call__(self, e: dict) -> None:
        kind = e["e"]
        if kind == "match_start":
            self.text = self.game_text(e.get("game", "ellibir"))
        if self.quiet and kind not in ALWAYS:
            return
        handler = getattr(self, "on_" + kind, None)
        if handler is not None:
            handler(e)
        elif not self.quiet:
            self.text(e)

    def game_text(self, game: str) -> MatchText:
        try:
            kind = get_game(game).text or MatchText
        except UnknownGame:
            kind = MatchText
        return kind(self, self.who)

    # What the game's text calls ----------------------------------------------------------------

    def line(self, text: str, style: str | None = None) -> None:
        self.console.print(Text(terminal_safe(text), style=style or ""))

    def table(self, columns: list, rows: list, right=()) -> None:
        table = Table(show_edge=False)
        for column in columns:
            table.add_column(column, justify="right" if column in right else "left")
        for row in rows:
            table.add_row(*(Text(terminal_safe(str(x))) for x in row))
        self.console.print(table)

    def who(self, seat: int) -> str:
        name = f" {self.names[seat]}" if self.names else ""
        if seat in self.taken:
            name += f" [{self.taken[seat].removeprefix('builtin:')} plays]"
        return f"seat {seat}{name}"

    # The harness's events (harness/match/log.py) ------------------------------------------------

    def on_match_start(self, e: dict) -> None:
        if not self.quiet:
            self.text(e)

    def on_harness_bots(self, e: dict) -> None:
        self.annotated = True
        self.names = list(e["bots"])

    def on_harness_fault(self, e: dict) -> None:
        self.text.flush()
        self.line(f"    fault: {self.who(e['seat'])}: {e['kind']}: {e['reason']} (after {e['decision']} decisions)",
                  "bold red")
        if e.get("stderr"):
            self.line("      stderr (tail):\n" + "\n".join("        " + line for line in e["stderr"].rstrip().splitlines()),
                      "red")

    def on_harness_takeover(self, e: dict) -> None:
        self.taken[e["seat"]] = e["by"]
        if not self.quiet:
            self.line(f"    {e['by'].removeprefix('builtin:')} plays seat {e['seat']} from decision {e['from_decision']} "
                      f"on; its moves are not {e['bot']}'s", "red")

    def on_harness_result(self, e: dict) -> None:
        if self.ended is None:
            return
        self.ranking({**self.ended, "ranks": e["ranks"], "totals": e["totals"]}, e)

    # The end -----------------------------------------------------------------------------------

    def on_match_end(self, e: dict) -> None:
        self.text.flush()
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
            table.add_row(str(e["ranks"][seat]), Text(terminal_safe(self.who(seat))), str(e["totals"][seat]))
        if not self.quiet:
            self.line("")
        self.console.print(table)
        if e["reason"] != "complete":
            self.line(f"the match ended early: {e['reason']}")
        if result is not None and result.get("faulty"):
            seats = ", ".join(str(s) for s in result["faulty"])
            how = ("a faulty bot ranks last" if result["on_fault"] == "forfeit"
                   else "the totals decide, a reference bot's moves included")
            self.line(f"fault policy {result['on_fault']} (seat {seats}): {how}")
