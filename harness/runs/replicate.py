"""Confirm a run on new deals: ``tournament run --replicate RUN`` and ``sweep --replicate RUN``.

One run's "real difference" can come out three times too large (issue 27): a finding is worth acting
on once it holds on deals it was not found on. ``replica(run_dir, ...)`` plans that second run: the
same bots (the same code: each bot is resolved again and its content hash must be the one the run
played), the same rules and variants (the same variant ids), the same players, format, design,
number of deal sets, match options and sequential test, and fresh deal seeds (a fresh 128-bit seed
unless ``--seed`` gives one; a seed that would repeat the first run's deals is refused). The plan
records what it replicates under ``replicates`` (the first run's name, folder and seed).

Its analysis is then compared with the first by ``results.replication`` (``ellibir balance RUN
REPLICA``, ``ellibir ratings``, the report: the runs are pooled, and each finding of the first run is
checked on the replica's own deal sets), and the command says so at its end.
"""

from __future__ import annotations

from pathlib import Path

from . import plan as planning
from . import runfolder
from .options import TournamentError, check_name

# the options a replication takes besides the plan it copies (the rest come from the first run)
REPLICA_OPTIONS = ("name", "out", "seed", "deal_sets", "arena", "workers", "address", "executor", "compact", "quiet")


def _spec(bot: dict) -> tuple[str, Path | None]:
    """(the name to resolve a planned bot by, the arena it was submitted to)."""
    if bot["kind"] == "builtin":
        return bot["label"], None
    folder = Path(bot["folder"])
    if bot["kind"] == "submitted":  # ARENA/NAME/VERSION/bot
        return f"{bot['name']}@{bot['version']}", folder.parents[2]
    return str(folder), None


def same_bots(plan: dict, arena=None) -> list[dict]:
    """The plan's bots resolved again, in its order; TournamentError when one is gone or its code
    changed (a replication plays the code the first run played)."""
    from .tournament import resolve_bots

    out = []
    for bot in plan["bots"]:
        spec, where = _spec(bot)
        try:
            [found] = resolve_bots([spec], where or arena, plan["game"])
        except TournamentError as e:
            raise TournamentError(f"cannot replicate {plan['name']}: its bot {bot['label']}: {e}") from None
        if found["kind"] != "builtin" and found["hash"] != bot.get("hash"):
            raise TournamentError(f"cannot replicate {plan['name']}: {bot['label']} changed since it played "
                                  f"(content hash {found['hash'][:12]}, the run played {str(bot.get('hash'))[:12]}): "
                                  "a replication plays the same code")
        found["label"] = bot["label"]  # as the first run named it (a +HASH included)
        out.append(found)
    return out


def replica(run_dir, name: str | None = None, out: Path | None = None, seed: int | None = None,
            deal_sets: int | None = None, arena=None) -> tuple[dict, Path]:
    """(the plan of the replication of the run in ``run_dir``, its run folder); writes nothing.
    ``name``: default ``NAME-replica`` (``-replica2``, ... when taken); ``out``: default ``runs/NAME``;
    ``deal_sets``: default the first run's number."""
    from engine.game import rules_from_dict

    from harness.players.seeds import fresh_run_seed

    from .tournament import check_out, load_run

    run_dir = Path(run_dir)
    first = load_run(run_dir)
    if seed is not None and seed == first["seed"]:
        raise TournamentError(f"--seed {seed} is the seed of {first['name']}: its replication needs other deals "
                              "(leave --seed out for fresh ones)")
    count = first["deal_sets"] if deal_sets is None else deal_sets
    if count < 1:
        raise TournamentError(f"--deal-sets must be 1 or more, got {count}")
    bots = same_bots(first, arena)
    try:
        variants = [{"id": v["id"], "fields": v["fields"], "rules": rules_from_dict(first["game"], v["rules"])}
                    for v in first["variants"]]
    except (ValueError, KeyError, TypeError) as e:
        raise TournamentError(f"cannot replicate {first['name']}: its rules no longer read ({e})") from None
    for v in variants:
        if v["rules"].variant_id != v["id"]:
            raise TournamentError(f"cannot replicate {first['name']}: variant {v['id']} has another id under this "
                                  "version's rules")
    if name is None:
        name, n = f"{first['name']}-replica", 1
        while (out is None and (Path("runs") / name).exists()):
            n += 1
            name = f"{first['name']}-replica{n}"
    seed = fresh_run_seed() if seed is None else seed
    design = first.get("design") or ("duplicate" if first.get("duplicate", True) else "independent")
    try:
        plan = planning.make_plan(
            name=name, seed=seed, form=first["format"], bots=bots, players=first["players"], deal_sets=count,
            variants=variants, game=first["game"], options=first["options"], kind=first["kind"], design=design,
            design_reason=f"as {first['name']}, which this run replicates on fresh deals")
    except ValueError as e:
        raise TournamentError(str(e)) from None
    shared = set(map(str, plan["deal_seeds"])) & set(map(str, first["deal_seeds"]))
    if shared:  # a chosen seed whose deals meet the first run's: not new deals
        raise TournamentError(f"--seed {seed} repeats {len(shared)} deal seed(s) of {first['name']}: choose another "
                              "(or leave --seed out)")
    if first.get("sprt"):
        plan["sprt"] = dict(first["sprt"])
    plan["replicates"] = {"run": first["name"], "dir": str(run_dir.resolve()), "seed": first["seed"]}
    check_name(name)
    target = out if out is not None else Path("runs") / name
    check_out(target)
    try:
        runfolder.check_outside_bots(target, bots)
    except runfolder.RunFolderError as e:
        raise TournamentError(str(e)) from None
    return plan, target


__all__ = ["REPLICA_OPTIONS", "replica", "same_bots"]
