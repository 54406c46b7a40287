"""Where every seed of a run comes from, and why a bot cannot work back to the deals.

A run's seed is a fresh 128-bit random number unless the user gives one (``run.json`` keeps it;
bots never see it). Deal seeds are keyed hashes (HMAC-SHA256) of it, so knowing how they are
derived does not help without the key. ``play`` and ``bot check`` draw fresh 63-bit deal seeds and
print them, so any match can be played again. A seed the user chooses, such as ``--seed 1``, is as
guessable as it looks: a bot that tries small seeds finds it.

A subprocess bot may get its own seed (``hello.seed``) for its randomness: another keyed hash, of
the deal seed under a different label, so it says nothing about the deals, and a rerun of the same
match gives the bot the same seed.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

RUN_SEED_BITS = 128
DEAL_SEED_BITS = 63  # fits a signed 64-bit column
BOT_SEED_BITS = 53  # exact in every JSON reader, JavaScript's doubles included


def fresh_run_seed() -> int:
    return secrets.randbits(RUN_SEED_BITS)


def fresh_deal_seed() -> int:
    return secrets.randbits(DEAL_SEED_BITS)


def _keyed(key: str, message: str, bits: int) -> int:
    digest = hmac.digest(key.encode(), message.encode(), hashlib.sha256)
    return int.from_bytes(digest[:8], "big") >> (64 - bits)


def deal_seeds(run_seed: int, count: int) -> list[int]:
    """The deal seed of each deal set of a run."""
    key = f"ellibir-run:{run_seed}"
    return [_keyed(key, f"deal-set:{d}", DEAL_SEED_BITS) for d in range(count)]


def table_seed(run_seed: int, deal_set: int, table: int) -> int:
    """The deal seed of one table in one deal set, when deals are not duplicated."""
    return _keyed(f"ellibir-run:{run_seed}", f"deal-set:{deal_set}:table:{table}", DEAL_SEED_BITS)


def drawn_rotation(run_seed: int, deal_set: int, table: int, count: int) -> int:
    """The seat rotation (0 to count - 1) one deal set plays at one table when only one is played."""
    return _keyed(f"ellibir-run:{run_seed}", f"deal-set:{deal_set}:table:{table}:rotation", 32) % count


def bot_seed(seat_seed, variant: str = "") -> int:
    """The seed a subprocess bot gets in ``hello``, from its seat's seed (``players.player_seed``: the
    deal seed and the seat) and the variant: unlinkable to the deals without the deal seed."""
    return _keyed(f"ellibir-bot:{seat_seed}", f"variant:{variant}", BOT_SEED_BITS)


__all__ = ["RUN_SEED_BITS", "DEAL_SEED_BITS", "BOT_SEED_BITS", "fresh_run_seed", "fresh_deal_seed", "deal_seeds",
           "table_seed", "drawn_rotation", "bot_seed"]
