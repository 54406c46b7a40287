"""The run's storage steps: the bot folders packed for the workers (checked against the planned hash),
each finished task written as a part with its bots' stderr, the matches stored so far."""

from __future__ import annotations

from harness.players.botfiles import ArenaError, content_hash, pack_folder

from .faultlog import save_stderr
from .options import TournamentError


def pack_bots(plan: dict) -> dict:
    """label -> packed files of every folder or submitted bot, checked against the planned hash."""
    packs = {}
    for bot in plan["bots"]:
        if bot["kind"] == "builtin":
            continue
        try:
            digest = content_hash(bot["folder"])
        except ArenaError as e:
            raise TournamentError(f"bot {bot['label']}: {e}") from None
        if digest != bot["hash"]:
            raise TournamentError(f"bot {bot['label']}: its files changed since the run was planned "
                                  f"(hash {digest[:12]}, planned {bot['hash'][:12]})")
        packs[bot["label"]] = pack_folder(bot["folder"])
    return packs


def next_attempt(store) -> int:
    """1 + the highest attempt number in the run's part names (``a{attempt}-{task}``)."""
    return store.next_attempt()


def write(store, task_id: str, rules, results: list, done: set) -> list:
    """Write one task's matches (``jobs.MatchResult``) as a part (leaving out any already stored);
    returns those written."""
    fresh = [r for r in results if r.id not in done]
    if not fresh:
        return []
    store.write_part(task_id, rules, [row for r in fresh for row in r.matches],
                     [row for r in fresh for row in r.rounds], {r.id: r.log for r in fresh})
    done.update(r.id for r in fresh)
    try:
        save_stderr(store.root, task_id, fresh)  # the bots' own logs: losing them loses no result
    except OSError:
        pass
    return fresh


def stored_rows(store) -> list:
    """The stored matches' variant, bot, rank and faults, for the standings."""
    return store.scan("matches").select("variant", "bot", "rank", "faults").collect().to_dicts()
