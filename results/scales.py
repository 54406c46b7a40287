"""One rating convention, the ladder's: one scale per table size and rules, on which the game's
reference bot is 1500 when it played there, else the mean of the rated bots; every output says which.

A rating compares bots on the matches they played. Matches of another table size or other rules are
another game for the bots (a threshold of 101 rewards other play than 51), so they make another
scale, as on the ladder (harness/ladder.py): the number of rounds does not make another scale.
``scales`` lists the (table size, rules) of some seat rows with a label, ``anchor_of`` picks the
bot at 1500, and ``scale_note`` says it in words. The reference bot's name comes from the caller
(the harness knows the bots: ``bots.reference_bot(game)``); results never imports bots.
"""

from __future__ import annotations

import json

import polars as pl

IGNORED = ("rule_rounds",)  # a longer match is the same game for the bots
KEY = "scale"


def key_expr(columns: list[str]) -> pl.Expr:
    """Each match's scale key: its number of seats and its rules (the ``rule_*`` columns but rounds)."""
    rules = sorted(c for c in columns if c.startswith("rule_") and c not in IGNORED)
    parts = [pl.len().over("run", "match_id").cast(pl.String)]
    parts += [pl.lit(f"{c[len('rule_'):]}=") + pl.col(c).cast(pl.String).fill_null("null") for c in rules]
    return pl.concat_str(parts, separator="|").alias(KEY)


def _standard(game: str, players: int) -> dict:
    try:
        from engine.game import make_rules

        return make_rules(game, "standard", {"players": players}).normalised()
    except (ValueError, KeyError, TypeError):
        return {}


def _text(value) -> str:
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, (list, dict)):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


def label(game: str, key: str) -> str:
    """"4 players, standard rules" or "4 players, threshold=71": the fields that differ from the
    game's standard preset, as the ladder names its ladders."""
    players, *fields = key.split("|")
    standard = {k: _text(v) for k, v in _standard(game, int(players)).items()}
    differ = []
    for part in fields:
        name, _, value = part.partition("=")
        if name != "players" and name in standard and standard[name] != value:
            differ.append(f"{name}={value}")
    return f"{players} players, " + (", ".join(differ) if differ else "standard rules")


def scales(rows: pl.DataFrame, game: str) -> list[dict]:
    """The scales of seat rows (with ``KEY``, ``run``, ``match_id``): key, label, players, matches;
    most matches first."""
    counts = (rows.group_by(KEY).agg(pl.struct("run", "match_id").n_unique().alias("matches"))
              .sort(["matches", KEY], descending=[True, False]))
    return [{"key": k, "label": label(game, k), "players": int(k.split("|")[0]), "matches": int(n)}
            for k, n in counts.iter_rows()]


def anchor_of(names: list[str], anchor: str | None, reference: str | None) -> str | None:
    """The bot at 1500: ``anchor`` when asked for and rated here, else ``reference`` when rated here,
    else None (the mean)."""
    for bot in (anchor, reference):
        if bot is not None and bot in names:
            return bot
    return None


def scale_note(anchor: str | None, reference: str | None = None, asked: str | None = None) -> str:
    """The convention in words, as every output states it: who is 1500 here, and why."""
    head = "Elo scale (theta*400/ln 10): "
    if anchor is not None:
        role = " (the reference bot)" if anchor == reference and asked != anchor else ""
        return f"{head}{anchor} is 1500{role}"
    missing = [b for b in dict.fromkeys((asked, reference)) if b is not None]
    why = f" ({' and '.join(missing)} did not play here)" if missing else ""
    return f"{head}the mean of the rated bots is 1500{why}"


__all__ = ["IGNORED", "KEY", "anchor_of", "key_expr", "label", "scale_note", "scales"]
