"""``ellibir bot check``: is a bot folder ready to play? The manifest, the handshake, a few short
matches against a reference bot, all in the sandbox; pass or fail with the reasons.

Each match's report says what a bot author needs next: the refusals with their rule, reason and
penalty (even in a match that passes), the time the bot took per decision against its limit and
bank, the stderr of that very match when it failed, and the ``ellibir play`` command that plays the
same match again with a trace.
"""

from __future__ import annotations

import shlex
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path

from bots import reference_bot
from engine.game import make_rules
from engine.rules import parse_assignment

from harness.match.log import Recorder
from harness.players.manifest import load_manifest, require_game
from harness.match.run import MatchSpec, make_players, run_spec
from harness.players.program import BotOptions, SubprocessPlayer
from harness.players.base import PlayerFault
from harness.protocol.messages import TimeControl
from harness.players.seeds import fresh_deal_seed
from harness.players.trace import with_notes

STDERR_SHOWN = 2_000


@dataclass
class CheckReport:
    passed: bool = True
    lines: list = field(default_factory=list)
    failures: list = field(default_factory=list)  # the failed steps, one line each (a rejection's reasons)
    stderr: str = ""  # the tail of the bot's stderr from the first step that failed

    def fail(self, text: str, stderr: str = "") -> None:
        self.passed = False
        self.lines.append(text)
        self.failures.append(text)
        if stderr:
            self.lines.append("  stderr of this match (tail):")
            self.lines += ["    " + line for line in stderr[-STDERR_SHOWN:].rstrip().splitlines()]
            if not self.stderr:
                self.stderr = stderr[-STDERR_SHOWN:]

    @property
    def text(self) -> str:
        return "\n".join(list(self.lines) + ["PASS" if self.passed else "FAIL"])


def check_bot(folder, matches: int = 3, players: int = 2, rounds: int = 1, opponent: str | None = None,
              time_control: TimeControl = TimeControl(), sandbox: bool = True, preset: str = "standard",
              seed: int | None = None, game: str | None = None, sets: list = (), trace=None) -> CheckReport:
    """Check the bot in ``folder`` at ``game`` (default: the first game its manifest declares) against
    ``opponent`` (default: the game's reference bot, ``builtin:greedy`` for Ellibir). Raises
    ManifestError or ValueError (bad input) before anything runs. Each match gets a fresh random deal
    seed unless ``seed`` is given (then seed, seed + 1, ...), so a bot cannot tell a check from a match.
    ``sets`` are ``FIELD=VALUE`` rules overrides; ``trace`` (harness/players/trace.py) sees every line."""
    manifest = load_manifest(folder)
    game = game or manifest.games[0]
    require_game(manifest, game)
    overrides = dict(parse_assignment(text) for text in sets)
    overrides.update({"players": players, "rounds": rounds})
    rules = make_rules(game, preset, overrides)
    opponent = opponent or f"builtin:{reference_bot(game)}"
    report = CheckReport()
    report.lines.append(f"manifest: {manifest.name} {manifest.version}, command {' '.join(manifest.command)}"
                        + (", uses the engine" if manifest.uses_engine else ""))
    options = BotOptions(time=time_control, sandbox=sandbox, game=game)

    player = SubprocessPlayer(manifest, options)
    if trace:
        player.tap = trace.tap(0, player.label)
    started = time.monotonic()
    try:
        player.start(0, rules)
        player.ready([manifest.name] + [opponent] * (players - 1))
        info = player.info
        report.lines.append(f"handshake: ok in {time.monotonic() - started:.2f} s: {info['name']} {info['version']}, "
                            f"observation {info['observation']}")
        if (info["name"], str(info["version"])) != (manifest.name, manifest.version):
            report.lines.append(f"  warning: the bot calls itself {info['name']} {info['version']} in hello, its "
                                f"bot.toml says {manifest.name} {manifest.version}: results use the bot.toml's")
    except PlayerFault as f:
        player.close()
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
        match_players = make_players(spec, trace=trace)
        mine = match_players[seat]
        recorder = Recorder(then=with_notes(trace))
        result, events, faults = run_spec(spec, on_event=recorder, players=match_players)
        decisions = sum(1 for e in events if e.get("e") == "decision" and e.get("seat") == seat)
        refusals = [e for e in events if e.get("e") in ("refused", "penalty") and e.get("seat") == seat]
        own = [f for f in faults if f.seat == seat]
        where = f"match {k + 1} (seat {seat} of {players}, seed {deal_seed})"
        if own:
            f = own[0]
            report.fail(f"{where}: {f.kind}: {f.reason}", mine.stderr or f.stderr)
        elif result.reason == "unfinished":
            report.fail(f"{where}: the match could not be finished")
        else:
            report.lines.append(f"{where}: ok, {decisions} decisions, {sum(e['e'] == 'refused' for e in refusals)} "
                                f"refused, total {result.totals[seat]} (rank {result.ranks[seat]} of {players})")
        report.lines += ["  " + refusal_line(e) for e in refusals]
        if mine.times:
            report.lines.append("  " + times_line(mine.times, time_control))
        report.lines.append("  again, traced: " + reproduce_command(spec, preset, sets))
    return report


def refusal_line(e: dict) -> str:
    if e["e"] == "penalty":
        return f"penalty 50 ({e['rule']}): {e['reason']}"
    return f"refused ({e['rule']}): {e['reason']}"


def times_line(times: list, clock: TimeControl) -> str:
    """The time per decision: median and max, against the move time, the first move's and the bank."""
    seconds = [t for t, _limit in times]
    over = sum(1 for t, limit in times if t > limit)
    text = (f"time per decision: median {statistics.median(seconds) * 1000:.1f} ms, max {max(seconds) * 1000:.1f} ms "
            f"(limit {clock.move:g} s a decision, {clock.first:g} s the first, bank {clock.bank:g} s)")
    if over:
        text += f"; {over} over the limit, paid from the bank"
    return text


def reproduce_command(spec: MatchSpec, preset: str, sets) -> str:
    """The ``ellibir play`` command that plays ``spec`` again, with the trace on the terminal."""
    words = ["ellibir", "play"]
    for bot in spec.bots:
        words += ["--bot", bot]
    if spec.game != "ellibir":
        words += ["--game", spec.game]
    if preset != "standard":
        words += ["--preset", preset]
    for text in sets:
        words += ["--set", text]
    t = spec.time
    words += ["--rounds", str(spec.rules.rounds), "--seed", str(spec.seed), "--move-time", f"{t.move:g}",
              "--bank", f"{t.bank:g}", "--first-time", f"{t.first:g}", "--trace", "-"]
    return shlex.join(words)


__all__ = ["CheckReport", "check_bot", "reproduce_command"]
