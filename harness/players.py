"""Players: who decides for a seat, and the fault policy that keeps a match going when one fails.

A player has ``name``, ``start(seat, rules)``, ``decide(view, legal)`` and ``refused(outcome)``.
``InProcessPlayer`` wraps a bot of ``bots/``; names are written ``builtin:NAME``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from bots import BUILTIN, UnknownBot, make_bot

REFERENCE_BOT = "greedy"  # plays a seat out after its player's fault
MAX_REFUSALS = 3


class PlayerError(ValueError):
    """A player name that names no player."""


class Player:
    name = "player"

    def start(self, seat: int, rules) -> None:
        pass

    def decide(self, view, legal: dict):
        raise NotImplementedError

    def refused(self, outcome) -> None:
        pass


class InProcessPlayer(Player):
    def __init__(self, bot, name: str | None = None):
        self.bot = bot
        self.name = name or f"builtin:{bot.name}"

    def start(self, seat: int, rules) -> None:
        self.bot.start(seat, rules)

    def decide(self, view, legal: dict):
        return self.bot.decide(view, legal)

    def refused(self, outcome) -> None:
        self.bot.refused(outcome)


def make_player(name: str, seed=0) -> Player:
    """The player named ``builtin:NAME``; raises PlayerError for any other name."""
    kind, _, bot = name.partition(":")
    if kind != "builtin" or not bot:
        raise PlayerError(f"unknown bot {name!r}: expected builtin:NAME with NAME one of {', '.join(BUILTIN)}")
    try:
        return InProcessPlayer(make_bot(bot, seed), name)
    except UnknownBot as e:
        raise PlayerError(str(e)) from None


def player_seed(seed, seat: int) -> str:
    """Each seat's bot gets its own generator, derived from the match seed."""
    return f"{seed}:{seat}"


@dataclass(frozen=True)
class Fault:
    """A player's failure, recorded as a result (NOTES.md, principle 6)."""

    seat: int
    player: str
    kind: str  # "illegal_action", "crash" or "stalled"
    reason: str
    decision: int  # how many decisions the match had applied when it happened

    def to_json(self) -> dict:
        return asdict(self)


class Seat:
    """One seat's player under the fault policy.

    More than ``max_refusals`` refusals in one turn, or an exception from the player, is a fault:
    the reference bot then plays the seat out. If the reference bot itself exceeds the limit, the
    seat is ``stalled`` and the match cannot go on.
    """

    def __init__(self, seat: int, player: Player, rules, seed, max_refusals: int = MAX_REFUSALS):
        self.seat = seat
        self.player = player
        self.rules = rules
        self.seed = seed
        self.max_refusals = max_refusals
        self.refusals = 0
        self.replaced = False
        self.stalled = False
        player.start(seat, rules)

    def new_turn(self) -> None:
        self.refusals = 0

    def decide(self, view, legal: dict, decisions: int, faults: list):
        try:
            return self.player.decide(view, legal)
        except Exception as e:  # a crashing bot is a fault, not a harness error
            faults.append(self._fault("crash", f"{type(e).__name__}: {e}", decisions))
            return self.player.decide(view, legal)

    def refused(self, outcome, decisions: int, faults: list) -> None:
        self.refusals += 1
        if self.refusals <= self.max_refusals:
            self.player.refused(outcome)
            return
        reason = f"more than {self.max_refusals} refusals in one turn; last: {outcome}"
        if self.replaced:
            self.stalled = True
            faults.append(Fault(self.seat, self.player.name, "stalled", reason, decisions))
            return
        faults.append(self._fault("illegal_action", reason, decisions))

    def _fault(self, kind: str, reason: str, decisions: int) -> Fault:
        fault = Fault(self.seat, self.player.name, kind, reason, decisions)
        self.player = InProcessPlayer(make_bot(REFERENCE_BOT, player_seed(self.seed, self.seat)))
        self.player.start(self.seat, self.rules)
        self.replaced = True
        self.refusals = 0
        return fault
