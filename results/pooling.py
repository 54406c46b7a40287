"""What pooling runs can hide, said as warnings: runs played by different bots (or by different code
under one name), runs that share deal seeds (their deal sets are then not independent), and rules a
sweep varied that never came into play.

``pooling_warnings(runs)`` reads the plans (``run.json``) and the matches table; ``unexercised``
reads a balance document. Nothing here knows a game's rules: a varied rules field is "never in
play" when its name holds an opening method (``open_method``'s values, or the first word of a
field about openings, ``pairs`` of ``pairs_openings``) and no seat of a variant whose rules differ
in that field opened by that method (tr-wiki's pair rules, where the bots never open with pairs). A
threshold or ``rising_threshold`` names no method and is never said to be out of play.
"""

from __future__ import annotations

import json
from itertools import combinations

import polars as pl


def _bots_by_run(runs) -> dict:
    """Run label -> {bot label: {content hashes}}, from the matches table."""
    found = (runs.matches.select("run", "bot", "bot_hash").unique().collect())
    out: dict = {}
    for run, bot, digest in found.iter_rows():
        out.setdefault(run, {}).setdefault(bot, set()).add(digest or "")
    return out


def mixed_bots(runs) -> list[str]:
    if len(runs.names) < 2:
        return []
    by_run = _bots_by_run(runs)
    out = []
    sets = {run: frozenset(bots) for run, bots in by_run.items()}
    if len(set(sets.values())) > 1:
        said = "; ".join(f"{run}: {', '.join(sorted(bots))}" for run, bots in sorted(sets.items()))
        out.append(f"the runs pooled were played by different bots ({said}): a rating or a rate pooled over them "
                   "mixes fields")
    hashes: dict = {}
    for bots in by_run.values():
        for bot, digests in bots.items():
            hashes.setdefault(bot, set()).update(digests)
    for bot, digests in sorted(hashes.items()):
        if len(digests) > 1:
            out.append(f"{bot} is different code in different runs ({len(digests)} content hashes) but is rated as "
                       "one bot")
    return out


def shared_seeds(runs) -> list[str]:
    """Runs whose plans share deal seeds: the same deals counted as independent deal sets twice."""
    seeds = {name: set(map(str, (plan or {}).get("deal_seeds") or [])) for name, plan in zip(runs.names, runs.plans)}
    out = []
    for a, b in combinations(sorted(seeds), 2):
        both = seeds[a] & seeds[b]
        if both:
            out.append(f"runs {a} and {b} share {len(both)} deal seed{'s' if len(both) != 1 else ''}: those deals "
                       "are counted twice as independent deal sets, so intervals over them are too narrow")
    return out


def pooling_warnings(runs) -> list[str]:
    """Different bots, different code under one name, shared deal seeds."""
    return mixed_bots(runs) + shared_seeds(runs)


def _differing(variants: list[dict]) -> set:
    fields = {f for v in variants for f in (v.get("rules") or {})}
    return {f for f in fields if len({json.dumps((v.get("rules") or {}).get(f), sort_keys=True) for v in variants}) > 1}


def unexercised(doc: dict) -> list[str]:
    """Varied rules fields about an opening method that no seat used in a variant that has them."""
    variants = doc.get("variants") or []
    if len(variants) < 2:
        return []
    methods = {m for v in variants for m in ((v.get("openings") or {}).get("by_method") or {})}
    # a method no seat used anywhere is known only from the name of a field about openings ("pairs_openings");
    # the first word of any other field ("rising" of rising_threshold) names no method
    methods |= {f.split("_")[0] for f in _differing(variants) if "_" in f and "open" in f}
    out = []
    for field in sorted(_differing(variants)):
        for method in sorted(m for m in methods if m and m in field.split("_")):
            idle = [v["label"] for v in variants
                    if "openings" in v and not (((v["openings"].get("by_method") or {}).get(method) or {}).get("rate"))]
            if len(idle) == len(variants):
                out.append(f"{field} varies, but no seat opened by {method} in any variant: that rule never came into "
                           "play, so the comparison says nothing about it (the bots may never use it)")
    return out


__all__ = ["mixed_bots", "pooling_warnings", "shared_seeds", "unexercised"]
