"""``ellibir bot check``: is a bot folder ready to play? The manifest, the sandbox's limits, the
handshake, then matches against the game's field (its reference bot, then the others the arena
seats) played as a tournament plays them: at every table size the game allows and full rounds,
unless told otherwise; all in the sandbox; pass or fail with the reasons.

Each match's report says what a bot author needs next: the refusals with their rule and reason, the
penalties with the points they cost, the time the bot took per decision against its limit and bank,
the stderr of that very match when it failed, and the ``ellibir play`` command that plays the same
match again with a trace. The verdict counts what loses games, not only what breaks them: penalties
pass with a warning that names the rule and the points, and fail past ``penalty_limit`` points in one
match; the slowest decisions are shown against the clock, and a decision that used the bank is a
warning.
"""

from __future__ import annotations

import shlex
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path

from bots import check_field
from engine.game import get_game, make_rules
from engine.rules import parse_assignment

from harness.match.log import Recorder
from harness.players.limits import limit_lines
from harness.players.manifest import load_manifest, require_game
from harness.match.run import MatchSpec, make_players, run_spec
from harness.players.program import BotOptions, SubprocessPlayer
from harness.players.base import PlayerFault
from harness.players.reuse import MAX_MATCHES, ProcessPool
from harness.protocol.messages import TimeControl
from harness.players.seeds import fresh_deal_seed
from harness.players.trace import with_notes
from harness.sandbox.bubblewrap import Limits

STDERR_SHOWN = 2_000
PENALTY_LIMIT = 100  # points of penalties in one match past which the check fails
SLOWEST = 3  # decisions listed as the slowest
GROWTH_NOISE = 4 << 20  # less growth than this a match is taken for the allocator's, not a leak
KEPT_HINT = ("; this match went to the process of the match before (the bot said protocol 2), as in a "
             "tournament: if the bot passes in a fresh process (the play command below), answer new_match as "
             "hello, write nothing to stdout after match_end and reset what a match leaves behind "
             "(docs/protocol.md, \"Many matches in one process\"), or say protocol 1")


@dataclass
class CheckReport:
    passed: bool = True
    lines: list = field(default_factory=list)
    failures: list = field(default_factory=list)  # the failed steps, one line each (a rejection's reasons)
    warnings: list = field(default_factory=list)  # what passes but costs points or time, one line each
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

    def warn(self, text: str) -> None:
        self.warnings.append(text)

    @property
    def verdict(self) -> str:
        if not self.passed:
            return "FAIL"
        n = len(self.warnings)
        return "PASS" if not n else f"PASS with {n} warning{'s' if n > 1 else ''}"

    @property
    def text(self) -> str:
        return "\n".join(list(self.lines) + [f"warning: {w}" for w in self.warnings] + [self.verdict])


@dataclass
class Played:
    """What the checked bot did in the check's matches, for the verdict."""

    penalties: dict = field(default_factory=dict)  # rule -> [count, points]
    refusals: dict = field(default_factory=dict)  # rule -> count (refusals without a penalty)
    times: list = field(default_factory=list)  # (seconds, limit, match, round, turn)
    memory: list = field(default_factory=list)  # (process, bytes after the match) of each kept process


def table_sizes(game: str, players) -> list[int]:
    """The table sizes the check plays: those given, or every size the game allows."""
    low, high = get_game(game).players
    sizes = [players] if isinstance(players, int) else list(players) if players else list(range(low, high + 1))
    wrong = [n for n in sizes if not low <= n <= high]
    if wrong:
        raise ValueError(f"--players {wrong[0]}: {game} is played by {low} to {high} players")
    return sorted(set(sizes))


def check_bot(folder, matches: int = 3, players=None, rounds: int | None = None, opponent: str | None = None,
              time_control: TimeControl = TimeControl(), sandbox: bool = True, preset: str = "standard",
              seed: int | None = None, game: str | None = None, sets: list = (), trace=None,
              penalty_limit: int = PENALTY_LIMIT) -> CheckReport:
    """Check the bot in ``folder`` at ``game`` (default: the first game its manifest declares) against
    ``opponent`` at every other seat, or by default the game's reference bot then its field, seat after
    seat (``bots.check_field``: greedy, pairs and random for Ellibir, the arena's field). ``players``: the
    table sizes (default: every size the game allows), taken in turn by the ``matches`` matches, the bot
    in a new seat each time; ``rounds``: the rounds of a match (default: the preset's, full rounds).
    Raises ManifestError or ValueError (bad input) before anything runs. Each match gets a fresh random
    deal seed unless ``seed`` is given (then seed, seed + 1, ...), so a bot cannot tell a check from a
    match. ``sets`` are ``FIELD=VALUE`` rules overrides; ``trace`` (harness/players/trace.py) sees every
    line. A match whose penalties cost the bot more than ``penalty_limit`` points fails the check."""
    manifest = load_manifest(folder)
    game = game or manifest.games[0]
    require_game(manifest, game)
    sizes = table_sizes(game, players)
    overrides = dict(parse_assignment(text) for text in sets)
    if "players" in overrides:  # every table size is checked; the sizes are --players
        raise ValueError(f"--set players={overrides['players']}: the table sizes of a check are given with "
                         f"--players N (repeatable)")
    if rounds is not None:
        overrides["rounds"] = rounds
    rules_of = {n: make_rules(game, preset, {**overrides, "players": n}) for n in sizes}
    field = [opponent] if opponent else [f"builtin:{name}" for name in check_field(game)]
    report = CheckReport()
    report.lines.append(f"manifest: {manifest.name} {manifest.version}, command {' '.join(manifest.command)}"
                        + (", uses the engine" if manifest.uses_engine else ""))
    report.lines.append("limits (docs/protocol.md, \"Limits\"):")
    report.lines += limit_lines(time_control)
    if not handshake(report, manifest, rules_of[sizes[0]], field, time_control, sandbox, game, trace):
        return report
    played = Played()
    with ProcessPool(enabled=not trace) as pool:  # a traced process is never kept (players/program.py)
        for k in range(matches):
            rules = rules_of[sizes[k % len(sizes)]]
            deal_seed = fresh_deal_seed() if seed is None else seed + k
            play_one(report, played, k, folder, rules, field, deal_seed, time_control, sandbox, preset, sets,
                     trace, penalty_limit, pool, last=k == matches - 1)
    verdict(report, played, time_control, penalty_limit)
    return report


def seat_of(k: int, players: int, last: bool) -> int:
    """The bot's seat in match ``k``: a new one each match, and the last seat in the check's last match
    (an off-by-one on the seat after one's own shows only there)."""
    return players - 1 if last and k else k % players


def handshake(report: CheckReport, manifest, rules, field: list, time_control, sandbox, game, trace) -> bool:
    player = SubprocessPlayer(manifest, BotOptions(time=time_control, sandbox=sandbox, game=game))
    if trace:
        player.tap = trace.tap(0, player.label)
    started = time.monotonic()
    try:
        player.start(0, rules)
        player.ready([manifest.name] + others(field, rules.players))
        info = player.info
        report.lines.append(f"handshake: ok in {time.monotonic() - started:.2f} s: {info['name']} {info['version']}, "
                            f"observation {info['observation']}")
        if (info["name"], str(info["version"])) != (manifest.name, manifest.version):
            report.lines.append(f"  warning: the bot calls itself {info['name']} {info['version']} in hello, its "
                                f"bot.toml says {manifest.name} {manifest.version}: results use the bot.toml's")
    except PlayerFault as f:
        player.close()
        report.fail(f"handshake: {f.kind}: {f.reason}", f.stderr or player.stderr)
        return False
    finally:
        player.close()
    return True


def others(field: list, players: int) -> list:
    """The bots at the other seats of a table of ``players``, in seat order: ``field`` in turn."""
    return [field[i % len(field)] for i in range(players - 1)]


def play_one(report: CheckReport, played: Played, k: int, folder, rules, field: list, deal_seed: int,
             time_control, sandbox, preset, sets, trace, penalty_limit: int, pool=None, last: bool = False) -> None:
    n = rules.players
    seat = seat_of(k, n, last)
    bots = others(field, n)
    bots.insert(seat, str(Path(folder)))
    spec = MatchSpec(rules.game, rules, deal_seed, tuple(bots), time=time_control, sandbox=sandbox)
    spoke = len(pool.spoke) if pool is not None else 0
    match_players = make_players(spec, trace=trace, pool=pool)
    mine = match_players[seat]
    recorder = Recorder(then=with_notes(trace))
    result, events, faults = run_spec(spec, on_event=recorder, players=match_players)
    held = getattr(mine.proc, "memory_bytes", lambda: None)() if pool is not None and mine.proc else None
    if held is not None and mine.proc.returncode is None:  # kept for the next match: what it carries over
        played.memory.append((id(mine.proc), held))
    decisions = sum(1 for e in events if e.get("e") == "decision" and e.get("seat") == seat)
    refused = [e for e in events if e.get("e") == "refused" and e.get("seat") == seat]
    penalties = penalty_points(rules.game, result, seat)
    own = [f for f in faults if f.seat == seat]
    rounds = f"{rules.rounds} round{'s' if rules.rounds != 1 else ''}"
    kept = getattr(mine, "kept", None) is not None
    where = (f"match {k + 1} ({n} players, seat {seat}, {rounds}, seed {deal_seed}"
             + (", in the process of the match before: protocol 2" if kept else "") + ")")
    if pool is not None and len(pool.spoke) > spoke:
        line = pool.spoke[-1].decode("utf-8", "replace").splitlines()[0][:200] if pool.spoke[-1] else ""
        report.fail(f"{where}: the bot wrote to stdout after match_end ({line!r}), so its process was not kept for "
                    f"this match; in a tournament the line may instead be read as the answer to new_match (a "
                    f"malformed fault): write logs to stderr")
    if own:
        f = own[0]
        report.fail(f"{where}: {f.kind}: {f.reason}" + (KEPT_HINT if kept else ""), mine.stderr or f.stderr)
    elif result.reason == "unfinished":
        report.fail(f"{where}: the match could not be finished")
    else:
        cost = sum(points for _count, points in penalties.values())
        report.lines.append(f"{where}: ok, {decisions} decisions, {len(refused)} refused"
                            + (f", penalties {cost} points" if cost else "")
                            + f", total {result.totals[seat]} (rank {result.ranks[seat]} of {n})")
        if cost > penalty_limit:
            report.fail(f"{where}: penalties cost {cost} points ({penalty_text(penalties)}), more than the "
                        f"{penalty_limit} the check allows in one match")
    report.lines += ["  " + refusal_line(e, rules.game) for e in events if e.get("e") in ("refused", "penalty")
                     and e.get("seat") == seat]
    for rule, (count, points) in penalties.items():
        total = played.penalties.setdefault(rule, [0, 0])
        total[0] += count
        total[1] += points
    for e in refused:
        if not e.get("penalty"):
            played.refusals[e["rule"]] = played.refusals.get(e["rule"], 0) + 1
    played.times += [(t, limit, k + 1, *moment) for t, limit, moment in getattr(mine, "times", [])]
    if mine.times:
        report.lines.append("  " + times_line(mine.times, time_control))
    report.lines.append("  again, traced: " + reproduce_command(spec, preset, sets))


def penalty_points(game: str, result, seat: int) -> dict:
    """rule -> (penalties, points) of ``seat`` in a played match: the game's ``pen_<RULE>`` round values,
    each costing ``GameSpec.penalty_points[RULE]`` in a round that was scored (a void round costs nothing)."""
    spec = get_game(game)
    if spec.round_values is None:
        return {}
    out = {}
    for record in result.rounds:
        values = spec.round_values(record, seat)
        for name, count in values.items():
            if name.startswith("pen_") and count:
                rule = name[len("pen_"):]
                points = 0 if record["void"] else count * (spec.penalty_points or {}).get(rule, 0)
                before = out.get(rule, (0, 0))
                out[rule] = (before[0] + count, before[1] + points)
    return out


def penalty_text(penalties: dict) -> str:
    return ", ".join(f"{rule} ×{count} = {points} points" for rule, (count, points) in sorted(penalties.items()))


def memory_warning(memory: list, limit: int = Limits().memory_mb << 20) -> str:
    """A warning when a kept process held more after each match (``memory``: (process, bytes) after
    each match it played) and, growing by the least of those steps, would pass the sandbox's memory
    limit within the matches a tournament gives one process; "" otherwise."""
    by_process: dict = {}
    for process, held in memory:
        by_process.setdefault(process, []).append(held)
    for held in by_process.values():
        steps = [b - a for a, b in zip(held, held[1:])]
        growth = min(steps, default=0)
        if growth < GROWTH_NOISE:
            continue
        passes = len(held) - (held[-1] - limit) // growth  # the match in which it would pass the limit
        if passes <= MAX_MATCHES:
            return (f"memory grew by {growth / 2**20:.0f} MiB or more after each match in one kept process "
                    f"({held[-1] / 2**20:.0f} MiB after its match {len(held)}): at that rate it passes the "
                    f"{limit >> 20} MiB limit in about its match {passes}, and a tournament gives one process up "
                    f"to {MAX_MATCHES} (out of memory: a crash). Clear what a match leaves behind")
    return ""


def verdict(report: CheckReport, played: Played, clock: TimeControl, penalty_limit: int) -> None:
    """The warnings of a check that may still pass: penalties, refusals, decisions that used the bank,
    memory that grows match after match."""
    grows = memory_warning(played.memory)
    if grows:
        report.warn(grows)
    if played.times:
        report.lines.append("slowest decisions: " + slowest_text(played.times, clock))
    paid = {rule: tuple(v) for rule, v in played.penalties.items() if v[0]}
    if paid:
        cost = sum(points for _count, points in paid.values())
        report.warn(f"penalties cost {cost} points: {penalty_text(paid)} (docs/rules.md gives each rule; a match "
                    f"whose penalties pass {penalty_limit} points fails the check)")
    if played.refusals:
        n = sum(played.refusals.values())
        rules = ", ".join(f"{rule} ×{count}" for rule, count in sorted(played.refusals.items()))
        report.warn(f"{n} refused decision{'s' if n > 1 else ''} ({rules}): no points, but each costs a request's "
                    f"time, and more than the refusals allowed in one turn is a fault")
    over = [t for t in played.times if t[1] is not None and t[0] > t[1]]
    if over:
        used = sum(t - limit for t, limit, *_ in over)
        report.warn(f"{len(over)} decision{'s' if len(over) > 1 else ''} took longer than {'its' if len(over) == 1 else 'their'} "
                    f"limit, {used:.2f} s paid from the bank ({clock.bank:g} s a match): a slower machine, or a "
                    f"longer match, runs it out (a timeout)")


def slowest_text(times: list, clock: TimeControl) -> str:
    """The ``SLOWEST`` slowest decisions with where they came, against the clock."""
    top = sorted(times, key=lambda t: -t[0])[:SLOWEST]
    said = [f"{seconds(t)} (match {match}, round {rnd + 1}, turn {turn}; limit {limit:g} s)"
            for t, limit, match, rnd, turn in top]
    return "; ".join(said) + f"; the clock: {clock.move:g} s a decision, {clock.first:g} s the first, bank {clock.bank:g} s"


def seconds(value: float) -> str:
    return f"{value * 1000:.3g} ms" if value < 1 else f"{value:.3g} s"


def refusal_line(e: dict, game: str) -> str:
    if e["e"] == "penalty":
        points = (get_game(game).penalty_points or {}).get(e["rule"], 0)
        return f"penalty ({e['rule']}, {points} points unless the round ends void): {e['reason']}"
    return f"refused ({e['rule']}): {e['reason']}"


def times_line(times: list, clock: TimeControl) -> str:
    """The time per decision: median and max, against the move time, the first move's and the bank."""
    seconds = [t for t, _limit, _moment in times]
    over = sum(1 for t, limit, _moment in times if limit is not None and t > limit)
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


__all__ = ["CheckReport", "PENALTY_LIMIT", "check_bot", "penalty_points", "reproduce_command", "table_sizes"]
