"""Run one match: the engine's game interface, one player per seat, the fault policy. No I/O here
besides the players themselves (subprocess players talk to their bots)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from engine import new_match
from engine.game import Outcome

from .log import bots_event, fault_events, result_event
from harness.players.base import LINE_LIMIT, MAX_REFUSALS, ON_FAULT, STDERR_LIMIT, label_of, player_seed
from harness.players.program import BotOptions
from harness.players.seats import Seat, apply_fault_policy
from harness.players.make import distinguish_labels, make_player
from harness.protocol.messages import TimeControl


@dataclass(frozen=True)
class MatchSpec:
    """Everything needed to play one match again."""

    game: str
    rules: object
    seed: int
    bots: tuple  # player names in seat order: "builtin:greedy", or the path of a bot folder
    deals: tuple = ()
    max_refusals: int = MAX_REFUSALS
    on_fault: str = "forfeit"  # or "fallback" (players.apply_fault_policy)
    time: TimeControl = TimeControl()
    line_limit: int = LINE_LIMIT
    stderr_limit: int = STDERR_LIMIT
    sandbox: bool = True  # subprocess bots always run sandboxed from the command line
    cpu_limit: float | None = None  # CPU seconds per match for each bot program; None: its clock + a margin

    def bot_options(self) -> BotOptions:
        return BotOptions(time=self.time, line_limit=self.line_limit, stderr_limit=self.stderr_limit,
                          max_refusals=self.max_refusals, sandbox=self.sandbox, game=self.game,
                          cpu_limit=self.cpu_limit)


def run_match(game: str, rules, seed, players: list, deals=None, on_event=None, max_refusals: int = MAX_REFUSALS,
              on_fault: str = "forfeit"):
    """Play a match to its end; returns (MatchResult, events, faults).

    ``on_event`` is called with every event as it happens. The match stops early only when a seat
    stalls (its reference bot refused too); the result then says "unfinished". Faults never
    escape as exceptions, and every player is closed (its process killed) before this returns.
    ``on_fault`` decides the ranks of faulty seats (``players.apply_fault_policy``).
    ``on_event`` also receives the harness's events (harness/match/log.py) where they happen: the
    bots after ``match_start``, each fault and takeover, and the result after the fault policy.
    """
    if on_fault not in ON_FAULT:
        raise ValueError(f"on_fault must be one of {', '.join(ON_FAULT)}, got {on_fault!r}")
    match = new_match(game, rules, seed, deals)
    if len(players) != match.players:
        raise ValueError(f"{game} under these rules needs {match.players} players, got {len(players)}")
    for p in players:  # the clairvoyant bot (analysis only: made only inside a skill study's own tables)
        bot = getattr(p, "bot", None)
        if getattr(bot, "ANALYSIS_ONLY", False):
            bot.watch(match)
    totals = getattr(match, "totals", None)
    seats = [Seat(i, p, rules, seed, max_refusals, totals, match.events) for i, p in enumerate(players)]
    faults, decisions, last, noted = [], 0, None, 0
    try:
        shown = _emit(match.events, 0, on_event)
        if on_event is not None:
            on_event(bots_event([label_of(p) for p in players], on_fault, game))
        for s in seats:
            s.start(faults)
        names = [p.name for p in players]
        for s in seats:
            s.ready(names, faults)
        noted = _note(faults, noted, on_event, len(match.events))
        while not match.is_over:
            seat = match.to_move()
            legal = match.legal(seat)
            turn = (seat, legal.get("round"), legal.get("turn"))  # games without turn numbers: the seat
            if turn != last:
                if last is not None:
                    seats[last[0]].turn_over()  # frozen before the next seat's bot is thawed
                seats[seat].new_turn()
                last = turn
            player = seats[seat]
            decision = player.decide(match.observe(seat), legal, decisions, faults)
            noted = _note(faults, noted, on_event, len(match.events))
            outcome = _apply_checked(match, seat, decision) if player.player.checked else match.apply(seat, decision)
            decisions += 1
            shown = _emit(match.events, shown, on_event)
            if not outcome.accepted:
                player.refused(outcome, decisions, faults)
                noted = _note(faults, noted, on_event, len(match.events))
                if player.stalled:
                    break
        for s in seats:
            s.catch_up(match.events, decisions, faults)
        noted = _note(faults, noted, on_event, len(match.events))
        result = apply_fault_policy(match.result(), faults, on_fault, match.players)
        if on_event is not None:
            on_event(result_event(result, on_fault, faults))
        faulty = sorted({f.seat for f in faults})
        for s in seats:
            s.end(result.totals, result.ranks, result.reason, faulty)
    finally:
        for s in seats:
            s.close()
    return result, match.events, faults


def _apply_checked(match, seat: int, decision):
    """A decision that came over the wire (JSON object or text form): parsed and checked by the engine."""
    try:
        return match.apply_text(seat, decision) if isinstance(decision, str) else match.apply_json(seat, decision)
    except Exception as e:  # noqa: BLE001  (whatever a bot sends, the harness carries on)
        return Outcome(False, "O4", f"the decision could not be read: {type(e).__name__}: {e}")


def _note(faults: list, noted: int, on_event, at: int) -> int:
    """Hand the faults not yet told to ``on_event`` as harness events; returns how many are told."""
    if on_event is not None:
        for f in faults[noted:]:
            for e in fault_events(f, at):
                on_event(e)
    return len(faults)


def _emit(events: list, shown: int, on_event) -> int:
    if on_event is not None:
        for e in events[shown:]:
            on_event(e)
    return len(events)


def make_players(spec: MatchSpec, records: dict | None = None, trace=None, keep_tmp=None, pool=None,
                 resolve=None) -> list:
    """The players of ``spec``, in seat order; ``records`` maps a seat to a list that receives what
    its subprocess bot was sent and sent back. ``trace`` (harness/players/trace.py) sees every line of every
    bot program; ``keep_tmp`` is a folder in which each bot program's /tmp survives the match
    (``seat-N``): both for local debugging, never in tournaments. ``pool``: bot processes kept between
    the matches of a task (harness/players/reuse.py); a kept one serves only matches of other deals.
    ``resolve``: names other than ``builtin:`` ones and folders (``players.make.parse_player_name``)."""
    from dataclasses import replace

    from harness.players.reuse import deal_keys

    options = spec.bot_options()
    keys = deal_keys(spec.seed, spec.deals)
    players = []
    for seat, name in enumerate(spec.bots):
        mine = options if keep_tmp is None else replace(options, keep_tmp=str(Path(keep_tmp) / f"seat-{seat}"))
        players.append(make_player(name, player_seed(spec.seed, seat), mine, (records or {}).get(seat), pool, keys,
                                   resolve))
    distinguish_labels(players)
    if trace:
        for seat, p in enumerate(players):
            if hasattr(p, "tap"):
                p.tap = trace.tap(seat, label_of(p))
    return players


def run_spec(spec: MatchSpec, on_event=None, players: list | None = None):
    """``run_match`` for a MatchSpec: builds the players from their names (unless given)."""
    if players is None:
        players = make_players(spec)
    return run_match(spec.game, spec.rules, spec.seed, players, list(spec.deals) or None, on_event,
                     spec.max_refusals, spec.on_fault)


def summary(spec: MatchSpec, result, faults: list) -> dict:
    """The match as one JSON-ready document: rules, variant, seed, bots, rounds, totals, ranks, faults."""
    return {
        "game": spec.game,
        "rules": spec.rules.normalised(),
        "variant": spec.rules.variant_id,
        "seed": spec.seed,
        "bots": list(spec.bots),
        "rounds": result.rounds,
        "totals": result.totals,
        "ranks": result.ranks,
        "reason": result.reason,
        "on_fault": spec.on_fault,
        "faults": [f.to_json() for f in faults],
    }
