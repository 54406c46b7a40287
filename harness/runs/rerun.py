"""Playing a planned match of a run again, exactly: its deal, seats, rules, clocks and bot seeds
(``ellibir rerun RUN MATCH_ID``), optionally with another version of a bot in a seat, and comparing
the new match with the stored one decision by decision.

This is the way to debug a tournament loss: ``ellibir faults RUN`` (or the standings) gives the
match id; ``ellibir rerun RUN MATCH_ID --trace -`` shows every line the bots exchanged; with
``--bot SEAT=FOLDER`` the fixed bot plays the same deal from the same seat.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from . import plan as planning
from harness.match.run import MatchSpec
from harness.protocol.messages import TimeControl


class RerunError(ValueError):
    """A match that cannot be played again (unknown id, a bot folder that is gone...): one line."""


@dataclass
class Rerun:
    spec: MatchSpec
    labels: list  # the bot in each seat, as the run names it (a replaced seat: its new bot's label)
    stored: list | None  # the stored match's annotated events (None: not played yet)
    warnings: list


def parse_replacements(items, players: int) -> dict:
    """``SEAT=FOLDER`` options -> {seat: folder}."""
    out = {}
    for text in items or []:
        seat, sep, folder = text.partition("=")
        if not sep or not seat.strip().isdigit():
            raise RerunError(f"--bot takes SEAT=FOLDER (e.g. --bot 1=./mybot), got {text!r}")
        seat = int(seat)
        if not 0 <= seat < players:
            raise RerunError(f"--bot {text}: the match has seats 0 to {players - 1}")
        if seat in out:
            raise RerunError(f"--bot {seat}=...: given twice")
        if not Path(folder).is_dir():
            raise RerunError(f"--bot {text}: {folder} is not a bot folder")
        out[seat] = folder
    return out


def prepare_rerun(run_dir, match_id: str, replace: dict | None = None) -> Rerun:
    """The MatchSpec of a planned match, with the bots of ``replace`` ({seat: folder}) in their seats."""
    from engine.game import rules_from_dict

    from harness.arena.registry import content_hash
    from .tournament import load_run

    plan = load_run(Path(run_dir))
    try:
        m = planning.find_match(plan, match_id)
    except planning.PlanError as e:
        raise RerunError(str(e)) from None
    replace = replace or {}
    bots = {b["label"]: b for b in plan["bots"]}
    variant = next(v for v in plan["variants"] if v["id"] == m["variant"])
    rules = rules_from_dict(plan["game"], variant["rules"])
    names, warnings = [], []
    for seat, label in enumerate(m["seating"]):
        if seat in replace:
            names.append(str(replace[seat]))
            continue
        bot = bots[label]
        if bot["kind"] == "builtin":
            names.append(label)
            continue
        folder = Path(bot["folder"])
        if not folder.is_dir():
            raise RerunError(f"seat {seat}: the folder of {label} is gone ({folder}); give one with --bot {seat}=FOLDER")
        if bot.get("hash") and content_hash(folder) != bot["hash"]:
            warnings.append(f"seat {seat}: {label}'s folder {folder} has changed since the run: not the bot that played")
        names.append(str(folder))
    o = plan["options"]
    spec = MatchSpec(plan["game"], rules, m["deal_seed"], tuple(names), max_refusals=o["max_refusals"],
                     on_fault=o["on_fault"], time=TimeControl(o["move_time"], o["bank"], o["first_time"]),
                     cpu_limit=o.get("cpu_limit"))
    return Rerun(spec, list(m["seating"]), stored_events(run_dir, match_id), warnings)


def stored_events(run_dir, match_id: str) -> list | None:
    from results.store import RunStore

    from harness.match.log import read

    try:
        text = RunStore(Path(run_dir)).read_log(match_id)
    except KeyError:
        return None
    try:
        return read(text)[0]
    except Exception:  # noqa: BLE001  (a damaged log: nothing to compare with)
        return None


def label_players(players: list, rerun: Rerun, replaced: dict) -> None:
    """Bot programs keep the run's labels, except in the replaced seats (their own name@version)."""
    for seat, p in enumerate(players):
        if seat not in replaced and hasattr(p, "label"):
            p.label = rerun.labels[seat]


def first_difference(stored: list, again: list) -> dict | None:
    """The first decision where two matches differ: {index, seat, stored, again} (a text form, or
    None where one match has no such decision), or None when their decisions are the same."""
    a = [(e["seat"], e["text"]) for e in stored if e.get("e") == "decision"]
    b = [(e["seat"], e["text"]) for e in again if e.get("e") == "decision"]
    for i in range(max(len(a), len(b))):
        x = a[i] if i < len(a) else None
        y = b[i] if i < len(b) else None
        if x != y:
            seat = (x or y)[0]
            return {"index": i, "seat": seat, "stored": x and x[1], "again": y and y[1]}
    return None


__all__ = ["Rerun", "RerunError", "parse_replacements", "prepare_rerun", "label_players", "first_difference"]
