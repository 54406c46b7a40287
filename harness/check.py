"""``ellibir bot check``: is a bot folder ready to play? The manifest, the handshake, a few short
matches against a reference bot, all in the sandbox; pass or fail with the reasons."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from bots import reference_bot
from engine.game import make_rules

from .manifest import load_manifest, require_game
from .match import MatchSpec, make_players, run_spec
from .players import BotOptions, PlayerFault, SubprocessPlayer
from .protocol import TimeControl
from .seeds import fresh_deal_seed

STDERR_SHOWN = 2_000


@dataclass
class CheckReport:
    passed: bool = True
    lines: list = field(default_factory=list)
    stderr: str = ""  # the tail of the bot's stderr from the step that failed (or the last match)

    def fail(self, text: str, stderr: str = "") -> None:
        self.passed = False
        self.lines.append(text)
        if stderr:
            self.stderr = stderr[-STDERR_SHOWN:]

    @property
    def text(self) -> str:
        out = list(self.lines) + ["PASS" if self.passed else "FAIL"]
        if self.stderr and not self.passed:
            out += ["stderr (tail):"] + ["  " + line for line in self.stderr.rstrip().splitlines()]
        return "\n".join(out)


def check_bot(folder, matches: int = 3, players: int = 2, rounds: int = 1, opponent: str | None = None,
              time_control: TimeControl = TimeControl(), sandbox: bool = True, preset: str = "standard",
              seed: int | None = None, game: str | None = None) -> CheckReport:
    """Check the bot in ``folder`` at ``game`` (default: the first game its manifest declares) against
    ``opponent`` (default: the game's reference bot, ``builtin:greedy`` for Ellibir). Raises
    ManifestError or ValueError (bad input) before anything runs. Each match gets a fresh random deal
    seed unless ``seed`` is given (then seed, seed + 1, ...), so a bot cannot tell a check from a match."""
    manifest = load_manifest(folder)
    game = game or manifest.games[0]
    require_game(manifest, game)
    rules = make_rules(game, preset, {"players": players, "rounds": rounds})
    opponent = opponent or f"builtin:{reference_bot(game)}"
    report = CheckReport()
    report.lines.append(f"manifest: {manifest.name} {manifest.version}, command {' '.join(manifest.command)}"
                        + (", uses the engine" if manifest.uses_engine else ""))
    options = BotOptions(time=time_control, sandbox=sandbox, game=game)

    player = SubprocessPlayer(manifest, options)
    started = time.monotonic()
    try:
        player.start(0, rules)
        player.ready([manifest.name] + [opponent] * (players - 1))
        info = player.info
        report.lines.append(f"handshake: ok in {time.monotonic() - started:.2f} s: {info['name']} {info['version']}, "
                            f"observation {info['observation']}")
    except PlayerFault as f:
        report.fail(f"handshake: {f.kind}: {f.reason}", f.stderr or player.stderr)
        return report
    finally:
        player.close()

    for k in range(matches):
        seat = k % players
        bots = [opponent] * players
        bots[seat] = str(Path(folder))
        deal_seed = fresh_deal_seed() if seed is None else seed + k
        spec = MatchSpec(game, rules, deal_seed, tuple(bots), time=time_control, sandbox=sandbox)
        refusals = [0]

        def count(e, seat=seat):
            if e.get("e") == "refused" and e.get("seat") == seat:
                refusals[0] += 1

        match_players = make_players(spec)
        mine = match_players[seat]
        result, events, faults = run_spec(spec, on_event=count, players=match_players)
        decisions = sum(1 for e in events if e.get("e") == "decision" and e.get("seat") == seat)
        own = [f for f in faults if f.seat == seat]
        where = f"match {k + 1} (seat {seat} of {players}, seed {deal_seed})"
        if own:
            f = own[0]
            report.fail(f"{where}: {f.kind}: {f.reason}", f.stderr or mine.stderr)
            continue
        if result.reason == "unfinished":
            report.fail(f"{where}: the match could not be finished")
            continue
        report.lines.append(f"{where}: ok, {decisions} decisions, {refusals[0]} refused, "
                            f"total {result.totals[seat]} (rank {result.ranks[seat]} of {players})")
        report.stderr = mine.stderr[-STDERR_SHOWN:]
    return report


__all__ = ["CheckReport", "check_bot"]
