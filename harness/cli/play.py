"""``ellibir play``: one match between bots, shown turn by turn (``play_and_show`` also serves ``rerun``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console

from engine.game import get_game
from engine.rules import parse_assignment

from harness.arena.registry import ENV as ARENA_ENV, Arena, check_bot_folder, pin_bots, resolver, using_arena
from harness.match.run import MatchSpec, run_spec, summary
from harness.match.show import MatchPrinter
from harness.players.base import LINE_LIMIT, MAX_REFUSALS, ON_FAULT, label_of
from harness.players.make import parse_player_name
from harness.players.seeds import fresh_deal_seed
from harness.protocol.messages import TimeControl
from harness.runs.limits import check, says
from harness.sandbox.bubblewrap import SandboxError

from .app import (
    InputError, ShowStderrOpt, TraceOpt, app, check_keep_tmp, check_log_and_trace, check_outside_bots, echo_json, fail,
    open_traces, read_deals, require_sandbox, stopped_cleanly, time_control,
)


def play_spec(bots: list, preset: str, sets: list, rounds, seed: int, deal, max_refusals: int,
              on_fault: str = "forfeit", time_control: TimeControl = TimeControl(), line_limit: int = LINE_LIMIT,
              cpu_limit: float | None = None,
              game: str = "ellibir") -> MatchSpec:
    """Check the options of ``play`` and turn them into a MatchSpec; raises ValueError (or OSError)."""
    factory = get_game(game)
    if not 2 <= len(bots) <= 4:
        raise InputError(f"give 2 to 4 players, one --bot each; got {len(bots)}")
    for option, value in (("--max-refusals", max_refusals), ("--line-limit", line_limit), ("--cpu-limit", cpu_limit),
                          ("--seed", seed)):
        check(option, value)
    if on_fault not in ON_FAULT:
        raise InputError(f"--on-fault must be one of {', '.join(ON_FAULT)}, got {on_fault!r}")
    folders = [name for name in bots if parse_player_name(name, game, resolver())[0] == "folder"]
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
    return MatchSpec(game, rules, seed, tuple(bots), deals, max_refusals, on_fault, time_control, line_limit,
                     cpu_limit=cpu_limit)




@app.command()
def play(
    bot: Annotated[list[str], typer.Option(
        "--bot", metavar="NAME",
        help="A player: builtin:NAME with NAME one of random, greedy, pairs, outs, mc, vgreedy, vbot, restricted "
             "(einundfuenfzig: random, cautious, mc), parameters in the name as builtin:mc:worlds=64 (docs/bots.md), "
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
        help=f"Deal seed, {says('--seed')}: the same seed and bots give the same match (default: a fresh random "
             f"seed, printed). A small seed is guessable: a bot that tries small seeds can learn every hand.")] = None,
    deal: Annotated[Optional[Path], typer.Option(
        metavar="FILE", help="Deal file (JSON, docs/deal-files.md) replacing the shuffle of the first rounds "
                             "(at most 1 MiB, nested at most 32 deep).")] = None,
    max_refusals: Annotated[int, typer.Option(
        help=f"Refusals a seat may have in one turn ({says('--max-refusals')}); one more is a fault, and the greedy "
             f"bot plays the seat out.")]
    = MAX_REFUSALS,
    on_fault: Annotated[str, typer.Option(
        "--on-fault", metavar="forfeit|fallback",
        help="After a bot's fault (crash, timeout, protocol error, too many refusals...) the greedy bot plays "
             "its seat out. forfeit: the faulty bot ranks last; fallback: the totals decide its rank.")] = "forfeit",
    move_time: Annotated[float, typer.Option(
        "--move-time", metavar="SECONDS",
        help=f"Time for one decision of a bot program ({says('--move-time')}).")] = TimeControl.move,
    bank: Annotated[float, typer.Option(
        "--bank", metavar="SECONDS",
        help=f"Overtime per match a bot program may spend beyond its move times ({says('--bank')}).")]
    = TimeControl.bank,
    first_time: Annotated[float, typer.Option(
        "--first-time", metavar="SECONDS",
        help=f"Time for a bot program's handshake and for its first decision, start-up included "
             f"({says('--first-time')}).")] = TimeControl.first,
    line_limit: Annotated[int, typer.Option(
        "--line-limit", metavar="BYTES",
        help=f"Longest line a bot program may send; a longer one is a fault ({says('--line-limit')}).")]
    = LINE_LIMIT,
    cpu_limit: Annotated[Optional[float], typer.Option(
        "--cpu-limit", metavar="SECONDS",
        help=f"CPU time a bot program may use in the match, all its processes together ({says('--cpu-limit')}; "
             f"default: what its clock allows, plus 5 s).")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", help="Print only the final ranking and the deal seed.")] = False,
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
        check_log_and_trace(log, trace, deal)
        check_outside_bots(spec.bots, log=log, trace=trace, keep_tmp=keep_tmp)
        if keep_tmp is not None:
            check_keep_tmp(keep_tmp)
        taps = open_traces(trace, show_stderr)  # last: it creates the trace file
    except (ValueError, OSError) as e:
        fail(e)
    play_and_show(spec, arena_, taps, keep_tmp, log, json_out, quiet)




def play_and_show(spec: MatchSpec, arena_, taps, keep_tmp, log, json_out: bool, quiet: bool,
                  labels: dict | None = None) -> list:
    """The body of ``play`` and ``rerun``: play ``spec`` (traced when asked), print it, write its log;
    returns the annotated events. ``labels``: {seat: the name a bot program goes by} (a run's label)."""
    from harness.match.log import Recorder
    from harness.match.run import make_players
    from harness.players.trace import with_notes

    console = Console(highlight=False)
    printer = None if json_out else MatchPrinter(console, spec.bots, quiet)
    recorder = Recorder(then=with_notes(taps, printer))
    try:
        with stopped_cleanly(), using_arena(arena_):
            players = make_players(spec, keep_tmp=keep_tmp, resolve=resolver(arena_))
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
        echo_json(doc)
        return recorder.events
    if result.reason == "unfinished":
        console.print("the match could not be finished: a seat stalled", markup=False)
    if not spec.deals and labels is None:
        console.print(f"deal seed {spec.seed} (play the same match again with --seed {spec.seed})", markup=False,
                      soft_wrap=True)
    return recorder.events
