"""The ``ellibir`` command: typed options -> a config -> one library call. Bad input: one line, exit 2."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console

from engine.game import get_game
from engine.rules import parse_assignment

from .annotated import read as read_annotated
from .arena import ENV as ARENA_ENV, Arena, Rejected, check_bot_folder, pin_bots, using_arena
from .check import check_bot
from .limits import MAX_CHECK_MATCHES, MAX_DEAL_FILE, MAX_LINE_LIMIT, MAX_WORKERS, read_json
from .manifest import load_manifest, require_game
from .match import MatchSpec, run_spec, summary
from .players import LINE_LIMIT, MAX_REFUSALS, ON_FAULT, label_of, parse_player_name
from .protocol import TimeControl
from .sandbox import SandboxError
from .seeds import fresh_deal_seed
from .show import MatchPrinter

app = typer.Typer(
    name="ellibir",
    help="Ellibir (51), the Turkish rummy game: play matches between bots and replay event logs.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
bot_app = typer.Typer(help="Bot programs: check a bot folder, submit it to the arena, list the arena.",
                      no_args_is_help=True,
                      pretty_exceptions_enable=False)
app.add_typer(bot_app, name="bot")


class InputError(ValueError):
    """Bad command-line input."""


def fail(message) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def play_spec(bots: list, preset: str, sets: list, rounds, seed: int, deal, max_refusals: int,
              on_fault: str = "forfeit", time_control: TimeControl = TimeControl(), line_limit: int = LINE_LIMIT,
              cpu_limit: float | None = None,
              game: str = "ellibir") -> MatchSpec:
    """Check the options of ``play`` and turn them into a MatchSpec; raises ValueError (or OSError)."""
    factory = get_game(game)
    if not 2 <= len(bots) <= 4:
        raise InputError(f"give 2 to 4 players, one --bot each; got {len(bots)}")
    if max_refusals < 0:
        raise InputError(f"--max-refusals must be 0 or more, got {max_refusals}")
    if on_fault not in ON_FAULT:
        raise InputError(f"--on-fault must be one of {', '.join(ON_FAULT)}, got {on_fault!r}")
    if not 1024 <= line_limit <= MAX_LINE_LIMIT:
        raise InputError(f"--line-limit must be 1024 to {MAX_LINE_LIMIT} bytes, got {line_limit}")
    folders = [name for name in bots if parse_player_name(name, game)[0] == "folder"]
    if folders:
        require_sandbox()
    for name in folders:  # a folder named by path: as bot submit checks it
        if Path(name).is_dir():
            check_bot_folder(name)
    overrides = dict(parse_assignment(text) for text in sets)
    if rounds is not None:
        if "rounds" in overrides:
            raise InputError("give the number of rounds once: --rounds or --set rounds=N, not both")
        overrides["rounds"] = rounds
    if "players" in overrides and overrides["players"] != str(len(bots)):
        raise InputError(f"--set players={overrides['players']} does not match the {len(bots)} --bot options")
    overrides["players"] = len(bots)
    rules = factory.make_rules(preset, overrides)
    deals = read_deals(deal, rules, factory) if deal else ()
    if cpu_limit is not None and not cpu_limit >= 1:
        raise InputError(f"--cpu-limit must be at least 1 second, got {cpu_limit}")
    return MatchSpec(game, rules, seed, tuple(bots), deals, max_refusals, on_fault, time_control, line_limit,
                     cpu_limit=cpu_limit)


TraceOpt = Annotated[Optional[str], typer.Option(
    "--trace", metavar="FILE|-",
    help="Write every protocol line in both directions and every stderr line of the bot programs, with a "
         "timestamp, the seat and the bot, to FILE (- : the terminal's stderr).")]
ShowStderrOpt = Annotated[bool, typer.Option(
    "--show-stderr", help="Show the bot programs' stderr on the terminal (stderr) as it comes.")]


def open_traces(trace: Optional[str], show_stderr: bool):
    """The traces asked for: --trace FILE (or -) and --show-stderr (stderr lines only, to the terminal)."""
    from .trace import Trace, Taps

    traces = []
    if trace is not None:
        if trace != "-":
            check_log_path(Path(trace))
        traces.append(Trace.open(trace))
    if show_stderr and trace != "-":
        traces.append(Trace.open("-", kinds="!#"))
    return Taps(traces)


def check_keep_tmp(path: Path) -> None:
    if path.exists() and not path.is_dir():
        raise InputError(f"--keep-tmp {path}: not a folder")
    if path.is_dir() and any(path.iterdir()):
        raise InputError(f"--keep-tmp {path}: the folder is not empty (give a new or empty one)")
    path.mkdir(parents=True, exist_ok=True)


def require_sandbox() -> None:
    """Bot programs run only in the sandbox: say why it cannot run here."""
    from .sandbox import sandbox_available

    if not sandbox_available():
        from .sandbox import capabilities

        raise InputError(f"bot folders need the sandbox, which cannot run here: {capabilities().get('problem')}")


def time_control(move_time: float, bank: float, first_time: float) -> TimeControl:
    for option, value, least in (("--move-time", move_time, 0), ("--first-time", first_time, 0), ("--bank", bank, None)):
        ok = math.isfinite(value) and (value > 0 if least == 0 else value >= 0)
        if not ok:
            raise InputError(f"{option} must be a number of seconds {'above 0' if least == 0 else '0 or more'}, got {value}")
    return TimeControl(move_time, bank, first_time)


def read_deals(path: Path, rules, factory) -> tuple:
    data = read_json(path, "deal file", MAX_DEAL_FILE)  # bounded in size and depth before it is parsed
    try:
        return tuple(factory.deals_from_json(data, rules))
    except (ValueError, RecursionError) as e:
        raise InputError(f"deal file {path}: {e}") from None


def check_log_path(path) -> None:
    if path is None:
        return
    if path.is_dir() or not path.parent.is_dir():
        raise InputError(f"cannot write the event log to {path}")
    from results.integrity import check_output

    check_output(path, "the event log")


@app.command()
def play(
    bot: Annotated[list[str], typer.Option(
        "--bot", metavar="NAME",
        help="A player: builtin:NAME with NAME one of random, greedy, pairs, mc (einundfuenfzig: random, cautious, "
             "mc), parameters in the name as builtin:mc:worlds=64 (docs/bots.md), "
             "or the path of a bot folder "
             "(a program with a bot.toml, run in the sandbox), or a submitted bot NAME or NAME@VERSION (see "
             "--arena). Give 2 to 4, one per seat in seat order; "
             "their number is the number of players.")],
    game: Annotated[str, typer.Option(
        "--game", metavar="GAME", help="The game: ellibir, or einundfuenfzig (the children's game, rules E1-E4).")]
    = "ellibir",
    preset: Annotated[str, typer.Option(help="Rules preset: standard or tr-wiki (einundfuenfzig: standard).")]
    = "standard",
    set_: Annotated[Optional[list[str]], typer.Option(
        "--set", metavar="FIELD=VALUE",
        help="Override one rules field, e.g. --set threshold=71 --set pairs_openings='[[5,0]]', or for "
             "einundfuenfzig --set start_seven=7. Repeatable.")] = None,
    rounds: Annotated[Optional[int], typer.Option(
        help="Counted rounds (einundfuenfzig: games) in the match: short for --set rounds=N (give one or the "
             "other).")] = None,
    seed: Annotated[Optional[int], typer.Option(
        help="Deal seed: the same seed and bots give the same match (default: a fresh random seed, printed). "
             "A small seed is guessable: a bot that tries small seeds can learn every hand.")] = None,
    deal: Annotated[Optional[Path], typer.Option(
        metavar="FILE", help="Deal file (JSON, docs/deal-files.md) replacing the shuffle of the first rounds "
                             "(at most 1 MiB, nested at most 32 deep).")] = None,
    max_refusals: Annotated[int, typer.Option(
        help="Refusals a seat may have in one turn; one more is a fault, and the greedy bot plays the seat out.")]
    = MAX_REFUSALS,
    on_fault: Annotated[str, typer.Option(
        "--on-fault", metavar="forfeit|fallback",
        help="After a bot's fault (crash, timeout, protocol error, too many refusals...) the greedy bot plays "
             "its seat out. forfeit: the faulty bot ranks last; fallback: the totals decide its rank.")] = "forfeit",
    move_time: Annotated[float, typer.Option(
        "--move-time", metavar="SECONDS", help="Time for one decision of a bot program.")] = TimeControl.move,
    bank: Annotated[float, typer.Option(
        "--bank", metavar="SECONDS", help="Overtime per match a bot program may spend beyond its move times.")]
    = TimeControl.bank,
    first_time: Annotated[float, typer.Option(
        "--first-time", metavar="SECONDS",
        help="Time for a bot program's handshake and for its first decision (start-up included).")] = TimeControl.first,
    line_limit: Annotated[int, typer.Option(
        "--line-limit", metavar="BYTES",
        help="Longest line a bot program may send; a longer one is a fault (1024 to 67,108,864).")]
    = LINE_LIMIT,
    cpu_limit: Annotated[Optional[float], typer.Option(
        "--cpu-limit", metavar="SECONDS",
        help="CPU time a bot program may use in the match, all its processes together (default: what its clock "
             "allows, plus 5 s).")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", help="Print only the final ranking.")] = False,
    json_out: Annotated[bool, typer.Option(
        "--json", help="Print one JSON document: rules, variant id, seed, bots, rounds, totals, ranks, faults.")] = False,
    log: Annotated[Optional[Path], typer.Option(metavar="FILE", help="Write the event log (JSON lines) to FILE.")]
    = None,
    arena: Annotated[Optional[Path], typer.Option(
        "--arena", metavar="DIR", help=f"Where submitted bots (--bot NAME or NAME@VERSION) are found "
                                       f"(default: ${ARENA_ENV}, or ./arena).")] = None,
    trace: TraceOpt = None,
    show_stderr: ShowStderrOpt = False,
    keep_tmp: Annotated[Optional[Path], typer.Option(
        "--keep-tmp", metavar="DIR",
        help="Bot programs get DIR/seat-N as their /tmp, writable, and it stays after the match (for debug "
             "files; a local option, never used in tournaments).")] = None,
) -> None:
    """Play one match between bots and show it turn by turn."""
    arena_ = Arena(arena)
    try:
        with using_arena(arena_):  # submitted bots: NAME is pinned to NAME@VERSION, the version that plays
            seed = fresh_deal_seed() if seed is None else seed
            spec = play_spec(pin_bots(bot, arena_), preset, set_ or [], rounds, seed, deal, max_refusals, on_fault,
                             time_control(move_time, bank, first_time), line_limit, game=game, cpu_limit=cpu_limit)
        check_log_path(log)
        taps = open_traces(trace, show_stderr)
        if keep_tmp is not None:
            check_keep_tmp(keep_tmp)
    except (ValueError, OSError) as e:
        fail(e)
    play_and_show(spec, arena_, taps, keep_tmp, log, json_out, quiet)


def play_and_show(spec: MatchSpec, arena_, taps, keep_tmp, log, json_out: bool, quiet: bool,
                  labels: dict | None = None) -> list:
    """The body of ``play`` and ``rerun``: play ``spec`` (traced when asked), print it, write its log;
    returns the annotated events. ``labels``: {seat: the name a bot program goes by} (a run's label)."""
    from .annotated import Recorder
    from .match import make_players
    from .trace import with_notes

    console = Console(highlight=False)
    printer = None if json_out else MatchPrinter(console, spec.bots, quiet)
    recorder = Recorder(then=with_notes(taps, printer))
    try:
        with using_arena(arena_):
            players = make_players(spec, keep_tmp=keep_tmp)
            for seat, label in (labels or {}).items():
                if hasattr(players[seat], "label"):
                    players[seat].label = label
            for seat, p in enumerate(players):
                if taps and hasattr(p, "tap"):
                    p.tap = taps.tap(seat, p.label)
            result, events, faults = run_spec(spec, on_event=recorder, players=players)
    except SandboxError as e:  # a bot folder the sandbox cannot use, or a machine that cannot sandbox
        fail(e)
    finally:
        taps.close()
    if log is not None:
        log.write_text(recorder.text(), encoding="utf-8")
    if keep_tmp is not None and not json_out:
        console.print(f"the bots' /tmp folders are in {keep_tmp}", markup=False, soft_wrap=True)
    if json_out:
        doc = summary(spec, result, faults)
        doc["bots"] = [label_of(p) for p in players]  # name@version, never a folder's path
        typer.echo(json.dumps(doc, indent=2, ensure_ascii=False))
        return recorder.events
    if result.reason == "unfinished":
        console.print("the match could not be finished: a seat stalled", markup=False)
    if not spec.deals and labels is None:
        console.print(f"deal seed {spec.seed} (play the same match again with --seed {spec.seed})", markup=False,
                      soft_wrap=True)
    return recorder.events


@app.command()
def replay(
    log: Annotated[Path, typer.Argument(
        metavar="LOG|RUN_DIR", help="An event log written by play --log, or a run folder (with MATCH_ID).")],
    match_id: Annotated[Optional[str], typer.Argument(
        metavar="[MATCH_ID]", help="A match of the run in RUN_DIR (its id in run.json).")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", help="Print only the final ranking.")] = False,
    html_file: Annotated[Optional[Path], typer.Option(
        "--html", metavar="FILE", help="Write the match's viewer instead: one self-contained HTML file to step "
                                       "through in a browser (prints its path).")] = None,
    trace: Annotated[Optional[Path], typer.Option(
        "--trace", metavar="FILE", help="With --html: a trace of the same match (play --trace FILE); the "
                                        "bots' stderr lines show beside their steps.")] = None,
) -> None:
    """Replay an event log, checking that the engine makes the same events, and show it turn by turn:
    a log file (replay LOG), or a match of a tournament or sweep (replay RUN_DIR MATCH_ID)."""
    if trace is not None and html_file is None:
        fail("--trace goes with --html: the viewer shows the trace's lines beside their steps")
    if html_file is not None:
        from .viewer_cli import replay_html

        replay_html(log, match_id, html_file, fail, trace)
        return
    names = None
    if match_id is not None:
        from .tournament import replay_match

        try:
            events, names = replay_match(log, match_id)
        except (ValueError, OSError) as e:
            fail(e)
    elif log.is_dir():
        fail(f"{log} is a folder: replay RUN_DIR MATCH_ID shows a match of a run (ids in {log}/run.json)")
    else:
        try:
            events, _notes = read_annotated(log.read_text(encoding="utf-8"))
        except Exception as e:  # a damaged log can break anywhere in the engine: one line, exit 2
            fail(f"bad event log {log}: {e}")
    printer = MatchPrinter(Console(highlight=False), names, quiet)
    for e in events:
        printer(e)


@bot_app.command("check")
def bot_check(
    path: Annotated[Path, typer.Argument(metavar="PATH", help="A bot folder (with a bot.toml).")],
    matches: Annotated[int, typer.Option(help="Short matches to play against the reference bot (1 to 1,000).")]
    = 3,
    move_time: Annotated[float, typer.Option(
        "--move-time", metavar="SECONDS", help="Time for one decision.")] = TimeControl.move,
    bank: Annotated[float, typer.Option("--bank", metavar="SECONDS", help="Overtime per match.")] = TimeControl.bank,
    first_time: Annotated[float, typer.Option(
        "--first-time", metavar="SECONDS", help="Time for the handshake and the first decision.")] = TimeControl.first,
    game: Annotated[Optional[str], typer.Option(
        "--game", metavar="GAME", help="The game to check, one of the games in the bot's bot.toml "
                                       "(default: the first of them).")] = None,
    preset: Annotated[str, typer.Option(help="Rules preset of the check matches.")] = "standard",
    set_: Annotated[Optional[list[str]], typer.Option(
        "--set", metavar="FIELD=VALUE", help="Override one rules field of the check matches. Repeatable.")] = None,
    seed: Annotated[Optional[int], typer.Option(
        help="Deal seed of the first match (then seed+1, ...); default: fresh random seeds, printed.")] = None,
    trace: TraceOpt = None,
) -> None:
    """Check a bot folder: its manifest, the handshake, and short matches (1 round, 2 players) against
    the game's reference bot (greedy; cautious for einundfuenfzig), in the sandbox. Exit code 0: pass,
    1: fail, 2: bad input."""
    try:
        if not 1 <= matches <= MAX_CHECK_MATCHES:
            raise InputError(f"--matches must be 1 to {MAX_CHECK_MATCHES}, got {matches}")
        clock = time_control(move_time, bank, first_time)
        if game is not None:
            get_game(game)
        require_game(load_manifest(path), game or load_manifest(path).games[0])
        check_bot_folder(load_manifest(path).folder, path)
        require_sandbox()
        taps = open_traces(trace, False)
        try:
            report = check_bot(path, matches=matches, time_control=clock, game=game, preset=preset, sets=set_ or [],
                               seed=seed, trace=taps)
        finally:
            taps.close()
    except (ValueError, OSError, SandboxError) as e:
        fail(e)
    typer.echo(report.text)
    raise typer.Exit(0 if report.passed else 1)


ArenaOption = Annotated[Optional[Path], typer.Option(
    "--arena", metavar="DIR", help=f"The arena folder (default: ${ARENA_ENV}, or ./arena).")]


@bot_app.command("submit")
def bot_submit(
    path: Annotated[Path, typer.Argument(metavar="PATH", help="A bot folder (with a bot.toml).")],
    arena: ArenaOption = None,
) -> None:
    """Submit a bot folder to the arena: its manifest is read, bot check runs in the sandbox, and a
    read-only copy is stored under its name, version and content hash. A changed bot needs a new
    version. Exit code 0: stored (or there already), 1: rejected, 2: bad input."""
    place = Arena(arena)
    try:
        submission, stored = place.store(path)
    except Rejected as e:
        for reason in e.reasons:
            typer.echo(f"rejected: {reason}", err=True)
        raise typer.Exit(1)
    except (ValueError, OSError, SandboxError) as e:
        fail(e)
    s = submission
    if stored:
        typer.echo(f"submitted {s.name} {s.version} (hash {s.hash[:12]}) to the arena {place.root}")
    else:
        typer.echo(f"{s.name} {s.version} is already in the arena with the same content (hash {s.hash[:12]}, "
                   f"submitted {s.date[:19].replace('T', ' ')} UTC)")


@bot_app.command("list")
def bot_list(
    arena: ArenaOption = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print a JSON list, one object per submission.")] = False,
) -> None:
    """List the submitted bots: name, version, content hash, date of submission, and the rating on the
    ladder of the arena's runs (ellibir ladder: one scale per game, table size and rules, anchored on the
    reference bot at 1500; 95% interval, games). The ladder of the standard rules with the most games is
    shown; --json lists every ladder the bot is on."""
    from .cli_ladder import arena_ladders
    from .ladder import ladder_title

    try:
        place = Arena(arena)
        submissions = place.list()
        found = arena_ladders(place) if submissions else []
    except (ValueError, OSError) as e:
        fail(e)

    def on_ladders(s) -> list:
        out = []
        for entry in found:
            for b in entry.get("bots", []):
                if b["bot"] == f"{s.name}@{s.version}" and b["rating"] is not None:
                    out.append({"rating": b["rating"], "lo": b["lo"], "hi": b["hi"], "games": b["games"],
                                "ladder": ladder_title(entry), "standard": entry["name"] == "standard",
                                "anchor": f"{entry['anchor']} = 1500"})
        return sorted(out, key=lambda r: (not r["standard"], -r["games"]))

    if json_out:
        typer.echo(json.dumps([{**s.to_json(), "rating": (on_ladders(s) or [None])[0], "ladders": on_ladders(s)}
                               for s in submissions], indent=2, ensure_ascii=False))
        return
    if not submissions:
        typer.echo(f"no bots in the arena {place.root}")
        return

    def shown(r) -> str:
        if r is None:
            return "—"
        text = f"{r['rating']:.0f}"
        if isinstance(r.get("lo"), (int, float)) and isinstance(r.get("hi"), (int, float)):
            text += f" [{r['lo']:.0f}, {r['hi']:.0f}]"
        return text + f" {r['games']} games ({r['ladder']})"

    rows = [("NAME", "VERSION", "HASH", "DATE (UTC)", "RATING (ladder: Elo scale, the reference bot is 1500)")]
    rows += [(s.name, s.version, s.hash[:12], s.date[:19].replace("T", " "), shown((on_ladders(s) or [None])[0]))
             for s in submissions]
    widths = [max(len(row[k]) for row in rows) for k in range(len(rows[0]) - 1)]
    for row in rows:
        typer.echo("  ".join(cell.ljust(w) for cell, w in zip(row, widths)) + "  " + row[-1])
    if found:
        typer.echo("ratings: one ladder per game, table size and rules, the reference bot at 1500 (ellibir ladder)")


# Tournaments and sweeps (harness/tournament.py) -----------------------------------------------------

tournament_app = typer.Typer(help="Tournaments between bots on Ray: planned up front, interrupt-safe, resumable.",
                             no_args_is_help=True, pretty_exceptions_enable=False)
app.add_typer(tournament_app, name="tournament")

ConfigOpt = Annotated[Optional[Path], typer.Option(
    "--config", metavar="FILE", help="A TOML file with the options (harness/tournament.py); flags override it.")]
BotsOpt = Annotated[Optional[list[str]], typer.Option(
    "--bot", metavar="BOT", help="A bot: builtin:NAME, the path of a bot folder, or a submitted NAME or NAME@VERSION. "
                                 "Repeatable; for a gauntlet, the field.")]
PlayersOpt = Annotated[Optional[int], typer.Option(help="Players at every table, 2 to 4 (default 4): short for "
                                                       "--set players=N.")]
FormatOpt = Annotated[Optional[str], typer.Option(
    "--format", metavar="round-robin|gauntlet",
    help="round-robin: every combination of the bots at the tables (filled with copies when there are fewer "
         "bots than seats); gauntlet: the challenger against the field, one challenger per table.")]
ChallengerOpt = Annotated[Optional[str], typer.Option(metavar="BOT", help="The gauntlet's challenger.")]
DealSetsOpt = Annotated[Optional[int], typer.Option(
    "--deal-sets", metavar="N",
    help="Deal seeds (default 10; at most 1,000,000, and a plan holds at most 1,000,000 matches, at most 64 "
         "bots and 1,000 variants); under duplicate deals each is played under every seat rotation of every "
         "table (see --duplicate).")]
DuplicateOpt = Annotated[Optional[bool], typer.Option(
    "--duplicate/--no-duplicate",
    help="Duplicate deals: every deal seed under every seat rotation of every table. --no-duplicate: each table "
         "once per deal set, on a deal of its own. Default: by the question (two players: duplicate; copies of a "
         "bot at 3-4-player tables: independent; a sweep: the same deals per variant, one rotation drawn per deal "
         "set); the plan says which and why.")]
RoundsOpt = Annotated[Optional[int], typer.Option(help="Counted rounds per match: short for --set rounds=N.")]
GameOpt = Annotated[Optional[str], typer.Option(help="The game (default ellibir).")]
PresetOpt = Annotated[Optional[str], typer.Option(help="Rules preset: standard or tr-wiki.")]
SetOpt = Annotated[Optional[list[str]], typer.Option(
    "--set", metavar="FIELD=VALUE", help="Override one rules field. Repeatable.")]
MoveTimeOpt = Annotated[Optional[float], typer.Option(
    "--move-time", metavar="SECONDS", help="Time for one decision of a bot program.")]
BankOpt = Annotated[Optional[float], typer.Option(
    "--bank", metavar="SECONDS", help="Overtime per match a bot program may spend beyond its move times.")]
FirstTimeOpt = Annotated[Optional[float], typer.Option(
    "--first-time", metavar="SECONDS", help="Time for a bot program's handshake and first decision.")]
OnFaultOpt = Annotated[Optional[str], typer.Option(
    "--on-fault", metavar="forfeit|fallback", help="What a bot's fault costs, as in play.")]
MaxRefusalsOpt = Annotated[Optional[int], typer.Option(help="Refusals a seat may have in one turn, as in play.")]
CpuLimitOpt = Annotated[Optional[float], typer.Option(
    "--cpu-limit", metavar="SECONDS", help="CPU time a bot program may use in one match, as in play "
                                           "(default: what its clock allows, plus 5 s).")]
SeedOpt = Annotated[Optional[int], typer.Option(
    help="The run's seed: it fixes the plan and every deal (default: a fresh 128-bit random seed, kept in "
         "run.json). A small seed is guessable: a bot that tries small seeds can learn every hand.")]
NameOpt = Annotated[Optional[str], typer.Option(help="The run's name (default: FORMAT-DATE-TIME-XXXX).")]
OutOpt = Annotated[Optional[Path], typer.Option(metavar="DIR", help="The run folder (default: ./runs/NAME).")]
WorkersOpt = Annotated[Optional[int], typer.Option(
    metavar="N", help="Tasks at once: the local Ray's CPUs (default: all cores), or a cap on a cluster "
                      "(at most 1,024).")]
AddressOpt = Annotated[Optional[str], typer.Option(
    metavar="ADDRESS", help="Join a running Ray cluster: auto, HOST:PORT or ray://HOST:PORT (default: a local Ray).")]
ExecutorOpt = Annotated[Optional[str], typer.Option(
    "--executor", metavar="ray|local",
    help="ray (default): a local Ray or the cluster of --address; local: every match in this process, one at a "
         "time, without Ray's start (small runs).")]
QuietOpt = Annotated[bool, typer.Option("--quiet", help="No progress bar: print only the standings.")]
CompactOpt = Annotated[Optional[bool], typer.Option(
    "--compact/--no-compact", help="At the end of the run, merge its parts (a file per task) into few large files "
                                    "(default); --no-compact leaves them as written (`ellibir compact` merges later).")]
ResumeOpt = Annotated[Optional[Path], typer.Option(
    metavar="DIR", help="Finish the run in DIR (its run.json): the planned matches not played yet.")]
ArenaOpt = Annotated[Optional[Path], typer.Option(
    "--arena", metavar="DIR", help=f"Where submitted bots are found (default: ${ARENA_ENV}, or ./arena).")]
SprtOpt = Annotated[bool, typer.Option(
    "--sprt", help="Gauntlet only: stop as soon as a sequential test (SPRT) of the challenger against the field, "
                   "over whole deal sets, decides; the verdict goes to RUN/sprt.json.")]
VsOpt = Annotated[Optional[list[str]], typer.Option(
    "--vs", metavar="BOT", help="With --sprt: the field bot(s) the challenger is tested against (default: the "
                                "whole field). Repeatable.")]
Elo0Opt = Annotated[Optional[float], typer.Option(
    "--elo0", metavar="ELO", help="With --sprt: H0, the challenger is ELO stronger (default 0).")]
Elo1Opt = Annotated[Optional[float], typer.Option(
    "--elo1", metavar="ELO", help="With --sprt: H1, the challenger is ELO stronger; above --elo0 (default 5).")]
AlphaOpt = Annotated[Optional[float], typer.Option(
    "--alpha", metavar="P", help="With --sprt: the chance of accepting H1 when H0 holds (default 0.05).")]
BetaOpt = Annotated[Optional[float], typer.Option(
    "--beta", metavar="P", help="With --sprt: the chance of accepting H0 when H1 holds (default 0.05).")]


def run_tournament(kind: str, config: Optional[Path], resume: Optional[Path], flags: dict) -> None:
    """The body of ``tournament run`` and ``sweep``: options -> plan -> run -> standings."""
    from .listeners import ProgressDisplay
    from .plan import vary_warnings
    from .tournament import RUN_OPTIONS, execute, load_run, make_config, prepare, resume_command, standings_tables

    try:
        if resume is not None:
            given = sorted(k for k, v in flags.items() if v is not None and k not in RUN_OPTIONS)
            if given or config is not None:
                raise InputError(f"--resume takes the plan from {resume}/run.json: give only --workers, --address, "
                                 f"--executor, --no-compact and --quiet with it (not {', '.join(given) or '--config'})")
            plan, run_dir, new = load_run(resume), resume, False
            workers, address, quiet = flags.get("workers"), flags.get("address"), bool(flags.get("quiet"))
            executor, compact = flags.get("executor") or "ray", flags.get("compact") is not False
            if executor not in ("ray", "local"):
                raise InputError(f"--executor must be one of ray, local, got {executor!r}")
        else:
            settings = make_config(kind, flags, config)
            plan, run_dir = prepare(settings)
            for line in vary_warnings(settings.vary):
                typer.echo(f"warning: {line}", err=True)
            new, workers, address, quiet = True, settings.workers, settings.address, settings.quiet
            executor, compact = settings.executor, settings.compact
        if workers is not None and not 1 <= workers <= MAX_WORKERS:
            raise InputError(f"--workers must be 1 to {MAX_WORKERS}, got {workers}")
        display = ProgressDisplay(Console(stderr=True, highlight=False), quiet)
        outcome = execute(plan, run_dir, new=new, workers=workers, address=address, executor=executor,
                          listeners=[display], compact=compact)
    except (ValueError, OSError) as e:
        fail(e)
    for line in outcome.warnings:
        typer.echo(f"warning: {line}", err=True)
    console = Console(highlight=False)
    for table in standings_tables(plan, run_dir) if outcome.done else []:
        console.print(table)
    if outcome.sprt is not None:
        from .cli_sprt import sprt_table, verdict_line

        console.print(sprt_table(outcome.sprt))
        typer.echo(verdict_line(outcome.sprt))
    typer.echo(f"{outcome.done} of {outcome.planned} planned matches are in {run_dir} "
               f"({outcome.played} played now)")
    if outcome.decided:
        typer.echo("the SPRT has decided: the run is over" + (" (nothing to play)" if not outcome.played else ""))
    elif outcome.stopped or outcome.done < outcome.planned:
        for line in outcome.errors:
            typer.echo(f"error: {line}", err=True)
        what = ("a worker refused the run" if outcome.refused else "interrupted" if outcome.stopped
                else f"{outcome.failed} matches failed")
        typer.echo(f"{what}: finish the run with: {resume_command(run_dir)}", err=True)
    raise typer.Exit(outcome.exit_code)


def option_flags(bot, set_, format_, quiet, vary=None, sprt=False, vs=None, **rest) -> dict:
    """The options given on the command line, named as in ``harness.tournament.Config`` (None: not given)."""
    return {"bots": bot or None, "set": set_ or None, "vary": vary or None, "format": format_, "quiet": quiet or None,
            "sprt": sprt or None, "vs": vs or None, **rest}


@tournament_app.command("run")
def tournament_run(
    config: ConfigOpt = None, bot: BotsOpt = None, players: PlayersOpt = None, format_: FormatOpt = None,
    challenger: ChallengerOpt = None, deal_sets: DealSetsOpt = None, duplicate: DuplicateOpt = None,
    rounds: RoundsOpt = None, game: GameOpt = None, preset: PresetOpt = None, set_: SetOpt = None,
    move_time: MoveTimeOpt = None, bank: BankOpt = None, first_time: FirstTimeOpt = None, on_fault: OnFaultOpt = None,
    max_refusals: MaxRefusalsOpt = None, cpu_limit: CpuLimitOpt = None, seed: SeedOpt = None, name: NameOpt = None,
    out: OutOpt = None,
    workers: WorkersOpt = None, address: AddressOpt = None, executor: ExecutorOpt = None, quiet: QuietOpt = False,
    resume: ResumeOpt = None, compact: CompactOpt = None,
    arena: ArenaOpt = None, sprt: SprtOpt = False, vs: VsOpt = None, elo0: Elo0Opt = None, elo1: Elo1Opt = None,
    alpha: AlphaOpt = None, beta: BetaOpt = None,
) -> None:
    """Play a tournament on Ray: every match planned up front in RUN/run.json, duplicate deals (every deal
    seed under every seat rotation), results written as they finish. Ctrl-C stops cleanly; --resume
    finishes the run. A gauntlet with --sprt stops as soon as the test decides. Exit code 0: every planned
    match is in the run (or the SPRT decided), 1: some failed, 2: bad input, 130: interrupted."""
    given = {k: v for k, v in locals().items() if k not in ("config", "resume")}
    run_tournament("tournament", config, resume, option_flags(**given))


@app.command()
def sweep(
    vary: Annotated[Optional[list[str]], typer.Option(
        "--vary", metavar="FIELD=V1,V2,...",
        help="A rules field and its values; repeat for a grid, e.g. --vary threshold=51,71,101 "
             "--vary rising_threshold=false,true, or --vary preset=standard,tr-wiki. Commas inside brackets do "
             "not split. `ellibir rules` lists every field.")] = None,
    config: ConfigOpt = None, bot: BotsOpt = None, players: PlayersOpt = None, format_: FormatOpt = None,
    challenger: ChallengerOpt = None, deal_sets: DealSetsOpt = None, duplicate: DuplicateOpt = None,
    rounds: RoundsOpt = None, game: GameOpt = None, preset: PresetOpt = None, set_: SetOpt = None,
    move_time: MoveTimeOpt = None, bank: BankOpt = None, first_time: FirstTimeOpt = None, on_fault: OnFaultOpt = None,
    max_refusals: MaxRefusalsOpt = None, cpu_limit: CpuLimitOpt = None, seed: SeedOpt = None, name: NameOpt = None,
    out: OutOpt = None,
    workers: WorkersOpt = None, address: AddressOpt = None, executor: ExecutorOpt = None, quiet: QuietOpt = False,
    resume: ResumeOpt = None, compact: CompactOpt = None,
    arena: ArenaOpt = None,
) -> None:
    """Play a tournament across a grid of rules variants, every variant on the same deal seeds (common
    random numbers). Options as in tournament run, plus --vary."""
    given = {k: v for k, v in locals().items() if k not in ("config", "resume")}
    run_tournament("sweep", config, resume, option_flags(**given))


# The analysis commands live in their own modules; importing them adds them to ``app``.
from . import cli_balance, cli_compact, cli_faults, cli_ladder, cli_ratings, cli_report, cli_rules, cli_sprt  # noqa: E402,F401


def main() -> None:
    """The console entry point: usage errors are one line too, with exit code 2."""
    try:
        code = app(prog_name="ellibir", standalone_mode=False)
    except typer.Abort:
        typer.echo("interrupted", err=True)
        code = 130
    except Exception as e:  # typer's usage errors (bad option, bad value) carry exit code 2
        if getattr(e, "exit_code", None) != 2 or not hasattr(e, "format_message"):
            raise
        typer.echo(f"error: {e.format_message()}", err=True)
        code = 2
    sys.exit(code or 0)
