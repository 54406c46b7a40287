"""``ellibir bot check | submit | list``: a bot folder checked in the sandbox, submitted to the arena, the
arena listed with ladder ratings."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from engine.game import get_game

from harness.arena.check import PENALTY_LIMIT, check_bot, table_sizes
from harness.arena.registry import ENV as ARENA_ENV, Arena, Rejected, check_bot_folder
from harness.players.manifest import load_manifest, require_game
from harness.protocol.messages import TimeControl
from harness.runs.limits import check, says
from harness.sandbox.bubblewrap import SandboxError

from harness.players.trace import terminal_safe
from results.numbers import many

from .app import (
    TraceOpt, check_outside_bots, echo_json, fail, open_traces, require_sandbox, stopped_cleanly, time_control,
)
from .commands import Commands


bot_app = Commands(help="Bot programs: check a bot folder, submit it to the arena, list the arena.",
                   no_args_is_help=True,
                   pretty_exceptions_enable=False)


@bot_app.command("check")
def bot_check(
    path: Annotated[Path, typer.Argument(metavar="PATH", help="A bot folder (with a bot.toml).")],
    matches: Annotated[int, typer.Option(
        help=f"Matches to play against the game's field, the table sizes taken in turn ({says('--matches')}).")]
    = 3,
    players: Annotated[Optional[list[int]], typer.Option(
        "--players", metavar="N", help="A table size to check (repeatable); default: every size the game allows "
                                       "(2 to 4 for Ellibir), as a tournament may seat the bot.")] = None,
    rounds: Annotated[Optional[int], typer.Option(
        "--rounds", metavar="N", help="Rounds of each match (1 to 100); default: the preset's, full matches "
                                      "(11 for Ellibir), so the bot meets long rounds and a low stock.")] = None,
    penalty_limit: Annotated[int, typer.Option(
        "--penalty-limit", metavar="POINTS",
        help=f"Fail when the bot's penalties cost more than this in one match; fewer pass with a warning "
             f"({says('--penalty-limit')}).")] = PENALTY_LIMIT,
    move_time: Annotated[float, typer.Option(
        "--move-time", metavar="SECONDS", help=f"Time for one decision ({says('--move-time')}).")] = TimeControl.move,
    bank: Annotated[float, typer.Option("--bank", metavar="SECONDS", help=f"Overtime per match ({says('--bank')}).")]
    = TimeControl.bank,
    first_time: Annotated[float, typer.Option(
        "--first-time", metavar="SECONDS",
        help=f"Time for the handshake and the first decision ({says('--first-time')}).")] = TimeControl.first,
    game: Annotated[Optional[str], typer.Option(
        "--game", metavar="GAME", help="The game to check, one of the games in the bot's bot.toml "
                                       "(default: the first of them).")] = None,
    preset: Annotated[str, typer.Option(help="Rules preset of the check matches.")] = "standard",
    set_: Annotated[Optional[list[str]], typer.Option(
        "--set", metavar="FIELD=VALUE", help="Override one rules field of the check matches. Repeatable.")] = None,
    seed: Annotated[Optional[int], typer.Option(
        help=f"Deal seed of the first match (then seed+1, ...; {says('--seed')}); default: fresh random seeds, "
             f"printed.")] = None,
    trace: TraceOpt = None,
) -> None:
    """Check a bot folder in the sandbox: its manifest, the sandbox's limits, the handshake, and matches
    against the game's field (greedy, pairs and random; cautious and random for einundfuenfzig) at every
    table size with full rounds, as a tournament plays them. Penalties and refusals pass with a warning that names the rule and
    the points (past --penalty-limit in one match they fail); the slowest decisions are shown against the
    clock. Exit code 0: pass, 1: fail, 2: bad input."""
    try:
        check("--matches", matches)
        check("--seed", seed)
        check("--penalty-limit", penalty_limit)
        clock = time_control(move_time, bank, first_time)
        if game is not None:
            get_game(game)
        require_game(load_manifest(path), game or load_manifest(path).games[0])
        table_sizes(game or load_manifest(path).games[0], players)
        check_bot_folder(load_manifest(path).folder, path)
        require_sandbox()
        check_outside_bots([path], trace=trace)
        taps = open_traces(trace, False)
        try:
            with stopped_cleanly("the check"):
                report = check_bot(path, matches=matches, players=players, rounds=rounds, time_control=clock,
                                   game=game, preset=preset, sets=set_ or [], seed=seed, trace=taps,
                                   penalty_limit=penalty_limit)
        finally:
            taps.close()
    except (ValueError, OSError, SandboxError) as e:
        fail(e)
    typer.echo(terminal_safe(report.text))  # the bot's stderr and hello, escaped
    raise typer.Exit(0 if report.passed else 1)


ArenaOption = Annotated[Optional[Path], typer.Option(
    "--arena", metavar="DIR", help=f"The arena folder (default: ${ARENA_ENV}, or ./arena).")]
ServerOption = Annotated[Optional[str], typer.Option(
    "--server", metavar="URL", help="An arena server (ellibir serve) instead of an arena folder.")]
TokenOption = Annotated[Optional[str], typer.Option(
    "--token", metavar="TOKEN", envvar="ELLIBIR_TOKEN",
    help="Your API token on the server (from its /api/login); default: $ELLIBIR_TOKEN.")]


@bot_app.command("submit")
def bot_submit(
    path: Annotated[Path, typer.Argument(metavar="PATH", help="A bot folder (with a bot.toml).")],
    arena: ArenaOption = None,
    server: ServerOption = None,
    token: TokenOption = None,
) -> None:
    """Submit a bot folder to the arena: its manifest is read, bot check runs in the sandbox, and a
    read-only copy is stored under its name, version and content hash. A changed bot needs a new
    version. With --server, the folder is uploaded to an arena server, which checks it on its workers
    and then plays it on its ladder. Exit code 0: stored (or there already), 1: rejected, 2: bad input."""
    if server is not None:
        return _submit_remote(server, token, path)
    place = Arena(arena)
    try:
        submission, stored = place.store(path)
    except Rejected as e:
        for reason in e.reasons:
            typer.echo(terminal_safe(f"rejected: {reason}"), err=True)
        raise typer.Exit(1)
    except (ValueError, OSError, SandboxError) as e:
        fail(e)
    s = submission
    if stored:
        typer.echo(f"submitted {s.name} {s.version} (hash {s.hash[:12]}) to the arena {place.root}")
    else:
        typer.echo(f"{s.name} {s.version} is already in the arena with the same content (hash {s.hash[:12]}, "
                   f"submitted {s.date[:19].replace('T', ' ')} UTC)")


def _submit_remote(server: str, token: str | None, path: Path) -> None:
    from harness.server.client import submit

    if not token:
        fail("--server needs --token (or $ELLIBIR_TOKEN)")
    try:
        answer = submit(server, token, path)
    except (ValueError, OSError) as e:
        fail(e)
    state = "uploaded" if answer.get("new") else "already on the server:"
    typer.echo(terminal_safe(f"{state} {answer['name']} {answer['version']} (hash {str(answer['hash'])[:12]}), "
                             f"{answer['status']}"))


@bot_app.command("delete")
def bot_delete(
    name: Annotated[str, typer.Argument(metavar="NAME", help="The bot's name.")],
    version: Annotated[str, typer.Argument(metavar="VERSION", help="The version to delete.")],
    server: ServerOption = None,
    token: TokenOption = None,
) -> None:
    """Delete one of your versions on an arena server: it is withdrawn from the ladder, its files go and
    its bytes stop counting against your storage bound; the matches it played and their ratings stay
    (docs/arena.md). Deleting it again changes nothing. Exit code 0: deleted, 2: refused or bad input."""
    from harness.server.client import delete

    if server is None:
        fail("bot delete needs --server: versions are deleted on an arena server")
    if not token:
        fail("--server needs --token (or $ELLIBIR_TOKEN)")
    try:
        answer = delete(server, token, name, version)
    except (ValueError, OSError) as e:
        fail(e)
    typer.echo(terminal_safe(f"deleted {answer['name']} {answer['version']}: {answer['status']}, "
                             f"{answer['freed']:,} bytes freed, {answer['cancelled']} jobs cancelled"))


def _list_remote(server: str, token: str | None, json_out: bool) -> None:
    from harness.server.client import listing

    try:
        found = listing(server, token)
    except (ValueError, OSError) as e:
        fail(e)
    if json_out:
        return echo_json(found)
    if not found:
        return typer.echo(f"no bots on {server}")

    _echo_table([("NAME", "VERSION", "HASH", "OWNER", "STATUS", "RATING")]
                + [(v["name"], v["version"], str(v["hash"])[:12], v["owner"], v["status"], rated(v.get("rating")))
                   for v in found])


def rated(r: dict | None) -> str:
    """A server version's rating as ``bot list --server`` shows it: with its interval, or provisional."""
    if not r:
        return "—"
    games = many(r["games"], "game")
    if r.get("lo") is None:
        return f"{r['rating']:.0f}, no interval yet (provisional), {games} ({r['ladder']})"
    return f"{r['rating']:.0f} [{r['lo']:.0f}, {r['hi']:.0f}] {games} ({r['ladder']})"


def _echo_table(rows: list) -> None:
    """Rows of text in aligned columns (the last one as it is), escaped for the terminal."""
    widths = [max(len(row[k]) for row in rows) for k in range(len(rows[0]) - 1)]
    for row in rows:
        typer.echo(terminal_safe("  ".join(cell.ljust(w) for cell, w in zip(row, widths)) + "  " + row[-1]))


@bot_app.command("list")
def bot_list(
    arena: ArenaOption = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print a JSON list, one object per submission.")] = False,
    server: ServerOption = None,
    token: TokenOption = None,
) -> None:
    """List the submitted bots: name, version, content hash, date of submission, and the rating on the
    ladder of the arena's runs (ellibir ladder: one scale per game, table size and rules, the reference bot
    at 1500 where it played, else the mean; 95% interval, games). The ladder of the standard rules with the most games is
    shown; --json lists every ladder the bot is on. With --server: the server's bots, their owner, status
    (pending validation, failed, ready) and latest rating."""
    if server is not None:
        return _list_remote(server, token, json_out)
    from .ladder import arena_ladders
    from harness.arena.ladder import ladder_title

    try:
        place = Arena(arena)
        place.check_exists()
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
                                "anchor": f"{entry['anchor']} = 1500" if entry.get("anchor")
                                else "the mean of the rated bots = 1500", "scale": entry.get("scale")})
        return sorted(out, key=lambda r: (not r["standard"], -r["games"]))

    if json_out:
        echo_json([{**s.to_json(), "rating": (on_ladders(s) or [None])[0], "ladders": on_ladders(s)}
                   for s in submissions])
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
    _echo_table(rows)
    if found:
        typer.echo("ratings: one ladder per game, table size and rules, the reference bot at 1500 where it played, "
                   "else the mean of the ladder's bots (ellibir ladder)")
