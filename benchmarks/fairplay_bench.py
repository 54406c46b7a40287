"""Fair clocks: the wall time a thinking bot needs per decision next to a bot whose children spin for
ever (each in a session of its own), against the same bot next to greedy. Off-turn bots are frozen,
so the aim is a ratio within 1.5."""

from __future__ import annotations

import statistics
from pathlib import Path

from engine.game import make_rules
from harness.match.run import MatchSpec, make_players, run_spec
from harness.protocol.messages import TimeControl
from harness.sandbox.bubblewrap import sandbox_available

FAIRPLAY = Path(__file__).resolve().parent.parent / "tests" / "fairplay"
THINK = 0.1


def _think_times(opponent: str, seed: int) -> list[float]:
    rules = make_rules("ellibir", "standard", {"players": 2, "rounds": 1})
    spec = MatchSpec("ellibir", rules, seed, (opponent, str(FAIRPLAY / "thinker")),
                     time=TimeControl(move=5.0, bank=10.0, first=10.0))
    players = make_players(spec)
    run_spec(spec, players=players)
    return [float(line.split()[1]) for line in players[1].stderr.splitlines() if line.startswith("think ")]


def victim_slowdown(matches: int = 2) -> dict | None:
    if not sandbox_available():
        return None
    alone, hogged = [], []
    for seed in range(matches):  # interleaved, so that the machine's mood affects both alike
        alone += _think_times("builtin:greedy", seed)
        hogged += _think_times(str(FAIRPLAY / "hog"), seed)
    a, h = statistics.median(alone), statistics.median(hogged)
    return {"alone_s": a, "hogged_s": h, "ratio": h / a}


def freeze_cost(rounds: int = 4, n: int = 1000) -> dict | None:
    """Round trips per second with a sandboxed echo bot, thawed before and frozen after each (as a bot
    is around its decisions), against the same without freezing; interleaved."""
    import time

    from harness.players.botproc import BotProcess

    from .protocol_bench import echo_folder

    if not sandbox_available():
        return None
    rates = {True: [], False: []}
    with echo_folder() as folder:
        bot = BotProcess(folder, ["python3", "bot.py"])
        bot.start()
        try:
            for _ in range(rounds):
                for freeze in (False, True):
                    start = time.perf_counter()
                    for _ in range(n):
                        bot.thaw()
                        bot.send({"type": "x", "seq": 0})
                        bot.receive(5.0)
                        if freeze:
                            bot.freeze()
                    rates[freeze].append(n / (time.perf_counter() - start))
        finally:
            bot.close()
    plain, frozen = statistics.median(rates[False]), statistics.median(rates[True])
    return {"plain": plain, "frozen": frozen, "cost_us": (1 / frozen - 1 / plain) * 1e6}


# The page cache (issue 25) -------------------------------------------------------------------------

MAILBOX = FAIRPLAY / "cache_mailbox"
KIT = FAIRPLAY.parent.parent / "bots" / "kits" / "python" / "main.py"
MAILBOX_BITS = 90  # a hand of 15 cards, 6 bits a card


def attack_folder(bot: Path, where: Path, extra: dict | None = None) -> Path:
    """A copy of the attack bot folder ``bot`` with the Python kit as its ``kit.py`` and the ``extra``
    files (name -> text), in ``where`` (made readable to bot uids)."""
    import shutil

    where.chmod(0o755)
    folder = where / bot.name
    shutil.copytree(bot, folder, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(KIT, folder / "kit.py")
    for name, text in (extra or {}).items():
        (folder / name).write_text(text)
    for path in (folder, *folder.iterdir()):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return folder


def mailbox_folder(where: Path) -> Path:
    """A copy of the page-cache attack bot (tests/fairplay/cache_mailbox) with a mailbox of its own in the
    file it uses (a fresh nonce), in ``where`` (made readable to bot uids)."""
    import secrets

    return attack_folder(MAILBOX, where, {"nonce": str(secrets.randbelow(1 << 30))})


def mailbox_reports(stderr: str) -> tuple[dict, dict]:
    """What the attack bot said it heard and wrote: {seat: bits} each."""
    import re

    heard = re.findall(r"heard seat=(\d) bits=([01?]+)", stderr)
    wrote = re.findall(r"wrote seat=(\d) bits=([01]+)", stderr)
    return {int(s): b for s, b in heard}, {int(s): b for s, b in wrote}


def mailbox_places(stderr: str) -> list[dict]:
    """Where the attack bot's mailbox lay, as it saw it (``mailbox.where``): one dict a round, of the
    file, its file system, the mount's root and source, the control time, the process."""
    return [dict(pair.split("=", 1) for pair in line.split()[1:] if "=" in pair)
            for line in stderr.splitlines() if line.startswith("where ")]


def bits_crossed(heard: str, wrote: str) -> int:
    """Bits the reader got right (a ``?``, a bit it could not tell, is never right)."""
    return sum(h == w for h, w in zip(heard, wrote))


def bits_learned(heard: str, wrote: str) -> int:
    """Bits right minus bits wrong: what the reader learned beyond guessing. Timing noise (a read
    slowed by another process) makes a bit a coin toss, right or wrong alike: it nets nothing."""
    return sum((h == w) - (h != w) for h, w in zip(heard, wrote) if h != "?")


def mailbox_match(folder: Path, seed: int) -> int:
    """Two attack bots at one table: the bits of the first mover's hand the second heard."""
    rules = make_rules("ellibir", "standard", {"players": 2, "rounds": 1})
    spec = MatchSpec("ellibir", rules, seed, (str(folder), str(folder)))
    players = make_players(spec)
    run_spec(spec, players=players)
    said = [mailbox_reports(p.stderr) for p in players]
    return max(bits_crossed(said[s][0].get(1 - s, ""), said[1 - s][1].get(1 - s, "")) for s in (0, 1))


def page_cache_channel(matches: int = 3) -> dict | None:
    """Bits of a 90-bit hand that cross between two sandboxes at one table through the page cache, with
    the host's /usr bound (as before issue 25) and with the resident copy; interleaved."""
    import tempfile

    from harness.sandbox import resident

    if not sandbox_available():
        return None
    crossed: dict = {True: [], False: []}
    with tempfile.TemporaryDirectory() as scratch:
        folder = mailbox_folder(Path(scratch))
        try:
            for seed in range(matches):
                for on in (False, True):
                    resident.RESIDENT = on
                    crossed[on].append(mailbox_match(folder, seed))
        finally:
            resident.RESIDENT = True
    return {"host": statistics.median(crossed[False]), "resident": statistics.median(crossed[True])}


def inode_channel(turns: int = 40) -> dict | None:
    """Cards that cross between two copies of tests/fairplay/inode_mailbox at one table through the
    kernel's inode counter (docs/security.md, "What remains"): each bot writes ``said CARD`` and
    ``heard CARD`` lines to stderr. Seat 1 hears seat 0's n-th card at its n-th turn, seat 0 hears seat
    1's at its (n+1)-th."""
    import tempfile

    if not sandbox_available():
        return None
    with tempfile.TemporaryDirectory() as scratch:
        folder = attack_folder(FAIRPLAY / "inode_mailbox", Path(scratch))
        rules = make_rules("ellibir", "standard", {"players": 2, "rounds": 1, "max_turns": turns, "max_void_rounds": 1})
        spec = MatchSpec("ellibir", rules, 7, (str(folder), str(folder)))
        players = make_players(spec)
        run_spec(spec, players=players)
    said = [_words(p.stderr, "said") for p in players]
    heard = [_words(p.stderr, "heard") for p in players]
    right = sum(a == b for a, b in zip(heard[1], said[0])) + sum(a == b for a, b in zip(heard[0][1:], said[1]))
    return {"said": len(said[0]) + len(said[1]), "heard": right}


def _words(stderr: str, word: str) -> list:
    return [line.split()[1] for line in (stderr or "").splitlines() if line.startswith(word + " ")]


def resident_runtime_cost() -> dict | None:
    """What the node's resident copy of the runtime costs: its memory (tmpfs bytes, a hard link once),
    files, and the seconds (wall and this process's CPU) to make one afresh, from a warm page cache."""
    import os
    import shutil
    import tempfile
    import time

    from harness.sandbox import resident

    if resident.no_copy_reason() is not None:
        return None
    root = resident.resident_root()
    blocks, files, seen = 0, 0, set()
    for folder, _, names in os.walk(root):
        for name in names:
            st = os.lstat(os.path.join(folder, name))
            if (st.st_dev, st.st_ino) not in seen:
                seen.add((st.st_dev, st.st_ino))
                blocks += st.st_blocks * 512
                files += 1
    scratch = Path(tempfile.mkdtemp(dir="/dev/shm", prefix="ellibir-bench-runtime-"))
    try:
        wall, cpu = time.perf_counter(), time.process_time()
        resident.build(scratch / "copy")
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return {"mib": blocks / 2**20, "files": files, "build_s": wall, "build_cpu_s": cpu}


def runtime_start_times(n: int = 6) -> dict | None:
    """Start to hello of sandboxed bots (the Python and the Node.js starter kits), median wall seconds,
    the runtime from the resident copy against the host's /usr; interleaved."""
    import time

    from harness.players.botproc import BotProcess
    from harness.protocol.messages import hello_message
    from harness.sandbox import resident

    if not sandbox_available():
        return None
    kits = FAIRPLAY.parent.parent / "bots" / "kits"
    hello = hello_message(1, "ellibir", make_rules("ellibir", "standard", {"players": 2}), 0, TimeControl(), 4096, 1)
    bots = {"python": (kits / "python", ["python3", "main.py"]), "node": (kits / "javascript", ["node", "main.js"])}
    walls: dict = {(k, on): [] for k in bots for on in (True, False)}
    try:
        for i in range(n + 1):
            for kind, (folder, command) in bots.items():
                for on in (True, False):
                    resident.RESIDENT = on
                    start = time.perf_counter()
                    with BotProcess(folder, command) as bot:
                        bot.send(hello)
                        bot.receive(20.0)
                    if i:  # the first round warms up
                        walls[(kind, on)].append(time.perf_counter() - start)
    finally:
        resident.RESIDENT = True
    out = {}
    for kind in bots:
        on, off = statistics.median(walls[(kind, True)]), statistics.median(walls[(kind, False)])
        out[kind] = {"resident_s": on, "host_s": off, "ratio": on / off}
    return out
