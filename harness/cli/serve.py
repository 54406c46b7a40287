"""``ellibir serve`` (the arena server), ``ellibir worker`` (plays what a server leases it),
``ellibir worker-token`` (a new worker's token, printed once) and ``ellibir make-admin``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from .app import app, fail, require_sandbox, stopped_cleanly

ArenaOpt = Annotated[Optional[Path], typer.Option(
    "--arena", metavar="DIR", help="The arena folder the server keeps its bots and runs in (default: "
                                    "$ELLIBIR_ARENA, or ./arena).")]
DatabaseOpt = Annotated[Optional[str], typer.Option(
    "--database", metavar="URL", envvar="ELLIBIR_DATABASE",
    help="sqlite:///PATH or postgresql+psycopg://USER@/DB?host=SOCKET_DIR (default: SQLite in ARENA/.server).")]


def _server(arena, database, **settings):
    from harness.server.db import DatabaseError
    from harness.server.service import Server
    from harness.server.settings import Settings

    try:
        return Server(arena if arena is not None else _default_arena(), database, Settings(**settings))
    except (DatabaseError, ValueError, OSError) as e:
        fail(e)


def _on_server(arena, database, action):
    """``action(server)`` on the server's database, without serving; a refusal is one line."""
    server = _server(arena, database)
    try:
        return action(server)
    except ValueError as e:
        fail(e)
    finally:
        server.close()


def _default_arena():
    from harness.arena.registry import Arena

    return Arena().root


def _check_listen(host: str, port: int) -> None:
    """Refuse, in one line, an address the server could not listen on (uvicorn logs a traceback for some)."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        family, kind, proto, _name, address = infos[0]
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
            probe.bind(address)
    except (OSError, UnicodeError) as e:
        fail(f"cannot listen on {host}:{port}: {getattr(e, 'strerror', None) or e}")


@app.command("serve")
def serve(
    arena: ArenaOpt = None,
    database: DatabaseOpt = None,
    host: Annotated[str, typer.Option(help="The address to listen on (behind a web server: loopback).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="The port to listen on.")] = 8051,
    players: Annotated[int, typer.Option(min=2, max=4, help="The ladder's table size.")] = 4,
    rounds: Annotated[int, typer.Option(min=1, max=100, help="Rounds of a ladder match.")] = 11,
    deal_sets: Annotated[int, typer.Option("--deal-sets", min=1, max=1000,
                                           help="Deal sets a validated version plays, per run.")] = 8,
    max_deal_sets: Annotated[int, typer.Option(
        "--max-deal-sets", min=1, max=100000,
        help="Deal sets a version plays at most while its rating settles (within ±25 Elo).")] = 1000,
    field: Annotated[Optional[list[str]], typer.Option(
        "--field", metavar="BOT", help="A bot every version meets (builtin:NAME, repeatable); default: "
                                       "builtin:greedy, builtin:pairs, builtin:random.")] = None,
    lease: Annotated[float, typer.Option(min=5, max=86400, help="Seconds a worker holds a job.")] = 600.0,
    max_stored: Annotated[int, typer.Option(
        "--max-stored", metavar="MIB", min=1, max=1 << 20,
        help="MiB a user's versions may keep on the server's disk.")] = 256,
    max_stored_all: Annotated[int, typer.Option(
        "--max-stored-all", metavar="MIB", min=1, max=1 << 30,
        help="MiB all users' versions may keep between them, however many accounts there are.")] = 16 << 10,
    max_pending: Annotated[int, typer.Option(
        "--max-pending", min=1, max=1000, help="A user's versions that may wait for their check at once.")] = 2,
    min_free: Annotated[int, typer.Option(
        "--min-free", metavar="MIB", min=0, max=1 << 30,
        help="MiB the arena's disk keeps free: an upload that would leave less is refused.")] = 1024,
) -> None:
    """Run the arena server: accounts, uploads, the queue of checks and ladder matches for workers,
    results and ratings (docs/arena.md)."""
    import uvicorn

    from harness.server.api import make_app

    extra = {"field": tuple(field)} if field else {}
    _check_listen(host, port)  # before the database is touched: a port in use or a wrong host is one line
    server = _server(arena, database, players=players, rounds=rounds, deal_sets=deal_sets,
                     max_deal_sets=max_deal_sets, lease=lease, max_stored=max_stored << 20,
                     max_stored_all=max_stored_all << 20, max_pending=max_pending, min_free=min_free << 20, **extra)
    resumed = server.resume()
    typer.echo(f"ellibir arena server on http://{host}:{port} (arena {server.arena.root})"
               + (f"; {len(resumed)} versions play on until their ratings settle" if resumed else ""))
    uvicorn.run(make_app(server), host=host, port=port, log_level="warning")


@app.command("make-admin")
def make_admin(
    name: Annotated[str, typer.Argument(metavar="NAME", help="A user who has signed up.")],
    arena: ArenaOpt = None,
    database: DatabaseOpt = None,
) -> None:
    """Make a user of a server an organiser (an admin: pause the queue, disable a version)."""
    _on_server(arena, database, lambda server: server.make_admin(name))
    typer.echo(f"{name} is an organiser")


@app.command("worker-token")
def worker_token(
    name: Annotated[str, typer.Argument(metavar="NAME", help="The worker's name.")],
    arena: ArenaOpt = None,
    database: DatabaseOpt = None,
    volunteer: Annotated[bool, typer.Option(
        "--volunteer", help="A machine not the organiser's: its results are played again by a second worker "
                            "and compared (docs/arena.md).")] = False,
) -> None:
    """Add a worker to a server's database and print its token (shown once; keep it secret)."""
    typer.echo(_on_server(arena, database, lambda server: server.add_worker(name, volunteer)))


def _say_refused(work: dict, error) -> None:
    from harness.players.trace import terminal_safe

    typer.echo(terminal_safe(f"job {work['job']} not accepted: {error}"), err=True)


@app.command("worker")
def worker(
    server: Annotated[str, typer.Option("--server", metavar="URL", help="The arena server.")],
    token: Annotated[str, typer.Option("--token", metavar="TOKEN", envvar="ELLIBIR_WORKER_TOKEN",
                                       help="This worker's token (ellibir worker-token).")],
    once: Annotated[bool, typer.Option("--once", help="Stop when the queue is empty.")] = False,
    idle: Annotated[float, typer.Option(min=0.1, max=600, help="Seconds to wait when the queue is empty.")] = 5.0,
) -> None:
    """Play the server's jobs here, in the sandbox: checks of new versions, deal sets of the ladder."""
    from harness.server.worker import WorkerError, connect, run

    try:
        require_sandbox()
        with stopped_cleanly("the worker"), connect(server, token) as client:
            done = run(client, once=once, idle=idle, on_refused=_say_refused)
    except typer.Exit:  # stopped: exit code 130, said by stopped_cleanly (typer's Exit is a RuntimeError)
        raise
    except (WorkerError, ValueError, RuntimeError) as e:  # NodeRefused, SandboxError: this node cannot play
        fail(e)
    typer.echo(f"{done} jobs done")
