"""Players: who decides for a seat. Every player has ``name``, ``follow(log)``, ``start(seat, rules)``,
``ready(names)``, ``decide(view, legal)``, ``refused(outcome)``, ``turn_over()``, ``catch_up(log)``,
``end(totals, ranks, reason, faulty)`` and ``close()``. ``follow`` hands the harness's side the match's
whole event log (a bot program's player turns it into the messages its seat may see); a view holds
only what its seat may know.

- ``InProcessPlayer`` wraps a bot of ``bots/``; its name is ``builtin:NAME``. Its decisions are
  trusted engine values.
- ``SubprocessPlayer`` (harness/players/program.py) speaks the protocol to a bot program.

A player's failure raises ``PlayerFault``; ``Seat`` (harness/players/seats.py) turns it into a
recorded ``Fault`` and hands the seat to the reference bot.
"""

from __future__ import annotations

import time

MAX_REFUSALS = 3
LINE_LIMIT = 4_096  # bytes in one line from a bot: no legal decision comes near it
STDERR_LIMIT = 64_000  # bytes of a bot's stderr kept per match (the tail)
FAULT_STDERR = 2_000  # characters of stderr kept in a fault record
REASON_LIMIT = 2_000  # characters of a fault's reason kept in results and shown
ON_FAULT = ("forfeit", "fallback")


class PlayerError(ValueError):
    """A player name that names no player."""


class PlayerFault(Exception):
    """A player failed: ``kind`` is the termination reason (timeout, crash, malformed, line_too_long,
    protocol, declined, ...), ``reason`` says what happened, ``stderr`` is the tail of its log."""

    def __init__(self, kind: str, reason: str, stderr: str = ""):
        super().__init__(f"{kind}: {reason}")
        self.kind = kind
        self.reason = reason
        self.stderr = stderr


class Player:
    name = "player"
    checked = False  # True: decide() returns JSON or text, which the match parses and checks

    def follow(self, log: list) -> None:
        pass

    def start(self, seat: int, rules) -> None:
        pass

    def ready(self, names: list) -> None:
        pass

    def decide(self, view, legal: dict):
        raise NotImplementedError

    def refused(self, outcome) -> None:
        pass

    def turn_over(self) -> None:
        """Another seat moves next (or the match is over)."""

    def catch_up(self, log: list) -> None:
        pass

    def end(self, totals: list, ranks: list, reason: str, faulty: list) -> None:
        pass

    def close(self) -> None:
        pass

    def log_tail(self) -> str:
        """The tail of the player's own log (a bot program's stderr), for fault records."""
        return ""


class InProcessPlayer(Player):
    def __init__(self, bot, name: str | None = None):
        self.bot = bot
        self.name = name or f"builtin:{bot.name}"
        self.times: list = []  # (seconds, None, (round, turn)) of each decision: no clock limits a built-in bot

    def start(self, seat: int, rules) -> None:
        self.bot.start(seat, rules)

    def decide(self, view, legal: dict):
        started = time.perf_counter()
        decision = self.bot.decide(view, legal)
        self.times.append((time.perf_counter() - started, None,
                           (getattr(view, "round_index", 0), getattr(view, "turn", 0))))
        return decision

    def refused(self, outcome) -> None:
        self.bot.refused(outcome)


def label_of(player) -> str:
    """How a player is named in logs and results: ``name@version`` for a bot program (``label``),
    ``builtin:NAME`` for a built-in bot."""
    return getattr(player, "label", None) or player.name


def player_seed(seed, seat: int) -> str:
    """Each seat's bot gets its own generator, derived from the match seed."""
    return f"{seed}:{seat}"
