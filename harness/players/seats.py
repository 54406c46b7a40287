"""The fault policy of a match: ``Seat`` runs one seat's player and, when it fails, records a
``Fault`` and hands the seat to the reference bot; ``apply_fault_policy`` ranks faulty seats."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace

from bots import make_bot, reference_bot

from .base import MAX_REFUSALS, ON_FAULT, REASON_LIMIT, InProcessPlayer, Player, PlayerFault, label_of, player_seed
from harness.sandbox.bubblewrap import SandboxError


@dataclass(frozen=True)
class Fault:
    """A player's failure, recorded as a result (NOTES.md, principle 6)."""

    seat: int
    player: str
    kind: str  # illegal_action, crash, timeout, malformed, line_too_long, protocol, declined, stalled, ...
    reason: str
    decision: int  # how many decisions the match had applied when it happened
    stderr: str = ""  # the tail of the bot's stderr (subprocess bots)
    total: int | None = None  # the seat's match total when it happened
    replaced_by: str = ""  # the reference bot that played the seat out from ``decision`` on ("": none)

    def __post_init__(self):
        if len(self.reason) > REASON_LIMIT:  # a reason can quote what the bot sent: keep it short
            object.__setattr__(self, "reason", self.reason[:REASON_LIMIT] + f"... ({len(self.reason):,} characters in all)")

    def to_json(self) -> dict:
        return asdict(self)


class Seat:
    """One seat's player under the fault policy.

    More than ``max_refusals`` refusals in one turn, an exception from an in-process player, or a
    ``PlayerFault`` from a subprocess player is a fault: the player is closed and the reference bot
    plays the seat out. If the reference bot itself exceeds the limit, the seat is ``stalled`` and
    the match cannot go on.
    """

    def __init__(self, seat: int, player: Player, rules, seed, max_refusals: int = MAX_REFUSALS, totals=None,
                 log: list | None = None):
        self.seat = seat
        self.log = log  # the match's event log, for players that follow it
        self.player = player
        self.original = player
        self.rules = rules
        self.seed = seed
        self.max_refusals = max_refusals
        self.totals = totals  # the match's totals list (read when a fault is recorded)
        self.refusals = 0
        self.replaced = False
        self.stalled = False

    def start(self, faults: list) -> None:
        follow = getattr(self.player, "follow", None)
        if follow is not None and self.log is not None:
            follow(self.log)
        try:
            self.player.start(self.seat, self.rules)
        except SandboxError:
            raise  # the machine's failure, not the player's: never recorded as a fault
        except PlayerFault as f:
            faults.append(self._fault(f.kind, f.reason, 0, f.stderr))
        except Exception as e:  # noqa: BLE001
            faults.append(self._fault("crash", f"{type(e).__name__}: {e}", 0))

    def ready(self, names: list, faults: list) -> None:
        try:
            self.player.ready(names)
        except PlayerFault as f:
            faults.append(self._fault(f.kind, f.reason, 0, f.stderr))
        except Exception as e:  # noqa: BLE001
            faults.append(self._fault("crash", f"{type(e).__name__}: {e}", 0))

    def new_turn(self) -> None:
        self.refusals = 0

    def turn_over(self) -> None:
        try:
            self.player.turn_over()
        except Exception:  # noqa: BLE001  (a bot gone already: its next request finds out)
            pass

    def decide(self, view, legal: dict, decisions: int, faults: list):
        try:
            return self.player.decide(view, legal)
        except PlayerFault as f:
            faults.append(self._fault(f.kind, f.reason, decisions, f.stderr))
        except Exception as e:  # a crashing bot is a fault, not a harness error
            faults.append(self._fault("crash", f"{type(e).__name__}: {e}", decisions))
        return self.player.decide(view, legal)

    def refused(self, outcome, decisions: int, faults: list) -> None:
        self.refusals += 1
        if self.refusals <= self.max_refusals:
            try:
                self.player.refused(outcome)
            except PlayerFault as f:
                faults.append(self._fault(f.kind, f.reason, decisions, f.stderr))
            return
        reason = f"more than {self.max_refusals} refusals in one turn; last: {outcome}"
        if self.replaced:
            self.stalled = True
            faults.append(Fault(self.seat, self.player.name, "stalled", reason, decisions, total=self._total()))
            return
        faults.append(self._fault("illegal_action", reason, decisions))

    def catch_up(self, log: list, decisions: int, faults: list) -> None:
        try:
            self.player.catch_up(log)
        except PlayerFault as f:
            faults.append(self._fault(f.kind, f.reason, decisions, f.stderr, replace_player=False))
        except Exception as e:  # noqa: BLE001
            faults.append(self._fault("crash", f"{type(e).__name__}: {e}", decisions, replace_player=False))

    def end(self, totals: list, ranks: list, reason: str, faulty: list) -> None:
        try:
            self.player.end(totals, ranks, reason, faulty)
        except Exception:  # noqa: BLE001  (the match is over; nothing left to protect)
            pass

    def close(self) -> None:
        for player in (self.original, self.player):
            try:
                player.close()
            except Exception:  # noqa: BLE001
                pass

    def _total(self):
        return self.totals[self.seat] if self.totals is not None else None

    def _fault(self, kind: str, reason: str, decisions: int, stderr: str = "", replace_player: bool = True) -> Fault:
        try:
            self.player.close()
            stderr = stderr or self.player.log_tail()
        except Exception:  # noqa: BLE001
            pass
        game = getattr(self.rules, "game", "ellibir")
        by = f"builtin:{reference_bot(game)}" if replace_player else ""
        fault = Fault(self.seat, label_of(self.player), kind, reason, decisions, stderr or "", self._total(), by)
        if replace_player:
            bot = make_bot(reference_bot(game), player_seed(self.seed, self.seat), game)
            self.player = InProcessPlayer(bot)
            self.player.start(self.seat, self.rules)
            self.replaced = True
            self.refusals = 0
        return fault


def apply_fault_policy(result, faults: list, on_fault: str, players: int):
    """``forfeit``: every seat with a fault ranks last (rank = number of players, shared), the
    others keep their order among themselves; totals stay as they stand. ``fallback``: the ranks
    the totals give."""
    if on_fault not in ON_FAULT:
        raise ValueError(f"on_fault must be one of {', '.join(ON_FAULT)}, got {on_fault!r}")
    faulty = {f.seat for f in faults}
    if on_fault == "fallback" or not faulty:
        return result
    ranks = result.ranks
    fair = [s for s in range(players) if s not in faulty]
    new = [players if s in faulty else 1 + sum(1 for t in fair if ranks[t] < ranks[s]) for s in range(players)]
    return replace(result, ranks=new)


__all__ = ["Fault", "Seat", "apply_fault_policy"]
