"""Players from their names: ``builtin:NAME`` (a bot of the game, parameters in the name) or the path of
a bot folder. Any other name is handed to a ``resolve`` function, when one is given (the arena's,
harness/arena/registry.py ``resolver``), which returns the bot's folder."""

from __future__ import annotations

from pathlib import Path

from bots import UnknownBot, make_bot, parse_builtin

from .base import InProcessPlayer, Player, PlayerError
from .botfiles import content_hash
from .manifest import load_manifest, require_game
from .program import BotOptions, SubprocessPlayer

NAMED = "give builtin:NAME, the path of a bot folder, or a submitted NAME or NAME@VERSION"


def distinguish_labels(players: list) -> None:
    """Bot programs from different folders with the same ``name@version`` and different content get
    ``+HASH`` (the first 8 hex digits of the content hash) added to their labels, so they never merge."""
    folders: dict = {}
    for p in players:
        if isinstance(p, SubprocessPlayer):
            folders.setdefault(p.label, {}).setdefault(Path(p.manifest.folder).resolve(), []).append(p)
    for label, by_folder in folders.items():
        if len(by_folder) < 2:
            continue
        hashes = {folder: content_hash(folder)[:8] for folder in by_folder}
        if len(set(hashes.values())) < 2:
            continue  # the same content in two places: one bot
        for folder, same in by_folder.items():
            for p in same:
                p.label = f"{label}+{hashes[folder]}"


def parse_player_name(name: str, game: str = "ellibir", resolve=None):
    """("builtin", NAME) or ("folder", Manifest); raises PlayerError (or ManifestError) with one line.
    ``builtin:NAME`` names a built-in bot of ``game``, ``builtin:NAME:KEY=VALUE...`` one with parameters.
    Any other name that is not a path goes to ``resolve(name, game)``, which returns a bot folder or
    raises ValueError (the arena's resolver: a submitted NAME or NAME@VERSION)."""
    if not name.strip():  # Path("") is the current folder
        raise PlayerError(f"an empty bot name: {NAMED}")
    kind, sep, bot = name.partition(":")
    if sep and kind == "builtin":
        try:
            parse_builtin(bot, game)
        except UnknownBot as e:
            raise PlayerError(str(e)) from None
        return "builtin", bot
    path = Path(name)
    if path.is_dir():
        manifest = load_manifest(path)
        require_game(manifest, game)
        return "folder", manifest
    if path.exists() or "/" in name or name.startswith("."):
        raise PlayerError(f"bot {name!r}: not a bot folder (a folder with a bot.toml)")
    if resolve is None:
        raise PlayerError(f"unknown bot {name!r}: not builtin:NAME or a bot folder")
    try:
        folder = resolve(name, game)
    except ValueError as e:
        raise PlayerError(str(e)) from None
    return "folder", load_manifest(folder)


def make_player(name: str, seed=0, options: BotOptions | None = None, record: list | None = None, pool=None,
                deals: frozenset = frozenset(), resolve=None) -> Player:
    """The player named ``builtin:NAME`` (a bot of ``options.game``), by a bot folder's path, or by a name
    ``resolve`` knows (``parse_player_name``); raises PlayerError or ManifestError. ``pool`` and
    ``deals``: processes kept between matches (harness/players/reuse.py)."""
    game = options.game if options is not None else BotOptions.game
    kind, what = parse_player_name(name, game, resolve)
    if kind == "builtin":
        try:
            return InProcessPlayer(make_bot(what, seed, game), name)
        except UnknownBot as e:
            raise PlayerError(str(e)) from None
    return SubprocessPlayer(what, options or BotOptions(), record, seed=seed, pool=pool, deals=deals)
