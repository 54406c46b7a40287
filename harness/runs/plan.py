"""Planning a run: tables, duplicate deals, seat rotations, variants, match ids, ``run.json``.

Pure functions of their arguments (no Ray, no clock): the same options and seed give the same plan,
byte for byte, so a run can be resumed and any match shown again from its id alone.

- **Tables.** ``round-robin``: every ``players``-combination of the bots. With fewer bots than seats,
  every table seats every bot once and fills the seats left with copies: one table per multiset of
  the extra seats (``fill``). With 3 bots A, B, C at 4 seats: AABC, ABBC, ABCC; with 2 bots: AAAB,
  AABB, ABBB. ``gauntlet``: the challenger at every table, the other seats from the field by the same
  rule (every (players-1)-combination of the field, or the field filled with copies).
- **Designs** (``design``; harness/runs/design.py picks the default by question). **Duplicate deals**:
  every table is played on every deal seed under each cyclic
  rotation of its seating (identical seatings counted once), so every bot gets every hand and every
  seat; the deal set (one deal seed) is the statistical unit. Round k of every match of a deal set,
  void rounds counted, gets the same deal (engine/deal.py, D3). Without them (``duplicate=False``)
  each table plays once per deal set, on its own deal, its seating rotated by the deal set's number
  (**independent**). **Common** (a sweep's default): each table once per deal set on the deal set's
  seed, its rotation drawn from the run's seed, the same for every variant.
- **Variants** (``sweep``): the grid of the ``--vary`` fields, each variant on the same deal seeds.
- **Match ids**: ``v{variant}-d{deal set}-t{table}-r{rotation}``, numbered in plan order.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import secrets
import tempfile
import time
from pathlib import Path

from engine.game import make_rules
from results.files import read_regular_text

from harness.players.seeds import deal_seeds, drawn_rotation, table_seed

PLAN_FILE = "run.json"
PLAN_VERSION = 1
FORMATS = ("round-robin", "gauntlet")
MAX_MATCHES = 1_000_000  # a plan this large is a typo (its run.json would be about 150 MB)


class PlanError(ValueError):
    """Options that make no plan; the message is one line."""


# Variants ------------------------------------------------------------------------------------------

def split_values(text: str) -> list[str]:
    """``51,71,101`` -> ['51', '71', '101']; commas inside brackets do not split
    (``[[5,0]],[[4,1],[5,0]]`` is two values)."""
    values, depth, current = [], 0, []
    for ch in text:
        if ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
            if depth < 0:
                raise PlanError(f"unbalanced brackets in {text!r}")
        if ch == "," and depth == 0:
            values.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
    if depth:
        raise PlanError(f"unbalanced brackets in {text!r}")
    values.append("".join(current).strip())
    return values


def parse_vary(texts) -> list[tuple[str, list]]:
    """``["threshold=51,71", "rising_threshold=false,true"]`` -> [(field, [values...]), ...]."""
    out, seen = [], set()
    for text in texts:
        name, sep, rest = str(text).partition("=")
        name = name.strip()
        if not sep or not name:
            raise PlanError(f"--vary expects FIELD=V1,V2,..., got {text!r}")
        values = split_values(rest)
        if any(v == "" for v in values):
            raise PlanError(f"--vary {name}: an empty value in {rest!r}")
        if name in seen:
            raise PlanError(f"--vary {name} is given twice")
        seen.add(name)
        out.append((name, values))
    return out


def vary_warnings(vary) -> list[str]:
    """One line for each varied field with a single value (it varies nothing: a sweep of one value
    is a tournament, and its comparisons have nothing to compare)."""
    return [f"--vary {name} has one value ({values[0]}): it varies nothing; give two or more, or use --set"
            for name, values in (vary.items() if isinstance(vary, dict) else vary) if len(values) == 1]


def variant_grid(preset: str, overrides: dict, vary: list, players: int, game: str = "ellibir") -> list[dict]:
    """Every variant of the grid: ``{"id", "fields", "rules"}`` (the rules of ``game``). ``vary`` as
    ``parse_vary`` gives it; no ``vary``: the one variant of ``overrides``. ``preset`` may be varied
    too (``preset=standard,tr-wiki``): each variant starts from its own preset. Raises PlanError."""
    for name, _ in vary:
        if name == "players":
            raise PlanError("--vary players: the number of players sets the tables; run one sweep per number")
        if name in overrides:
            raise PlanError(f"{name} is both set and varied: give it once")
    names = [name for name, _ in vary]
    variants, ids = [], set()
    for values in itertools.product(*(v for _, v in vary)):
        fields = dict(zip(names, values))
        chosen = {k: v for k, v in fields.items() if k != "preset"}
        try:
            rules = make_rules(game, fields.get("preset", preset), {**overrides, **chosen, "players": players})
        except ValueError as e:
            raise PlanError(f"variant {_fields_text(fields) or 'rules'}: {e}") from None
        if rules.variant_id in ids:
            raise PlanError(f"variant {_fields_text(fields)} repeats another variant's rules")
        ids.add(rules.variant_id)
        variants.append({"id": rules.variant_id, "fields": fields, "rules": rules})
    return variants


def _fields_text(fields: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in fields.items())


# Tables --------------------------------------------------------------------------------------------

def fill(pool: list, seats: int) -> list[tuple]:
    """The tables of ``seats`` seats drawn from ``pool`` (documented at the top of this module)."""
    if not pool or seats < 1:
        return []
    if len(pool) >= seats:
        return list(itertools.combinations(pool, seats))
    extra = seats - len(pool)
    tables = []
    for copies in itertools.combinations_with_replacement(pool, extra):
        tables.append(tuple(sorted(list(pool) + list(copies), key=pool.index)))
    return tables


def tables(form: str, bots: int, players: int) -> list[tuple]:
    """Seatings (bot indexes in seat order) of the format; the gauntlet's challenger is bot 0."""
    if form == "round-robin":
        return fill(list(range(bots)), players)
    if form == "gauntlet":
        if bots < 2:
            raise PlanError("a gauntlet needs a challenger and at least one other bot")
        return [(0,) + t for t in fill(list(range(1, bots)), players - 1)]
    raise PlanError(f"unknown format {form!r} (formats: {', '.join(FORMATS)})")


def disjoint_rounds(seatings: list[tuple]) -> list[list[int]]:
    """The tables split into rounds in which no bot sits at two tables (first fit, in table order): the
    tables one deal set of the fair design plays on its deal."""
    rounds: list[tuple[list[int], set]] = []
    for t, seating in enumerate(seatings):
        for tables_, seated in rounds:
            if seated.isdisjoint(seating):
                tables_.append(t)
                seated.update(seating)
                break
        else:
            rounds.append(([t], set(seating)))
    return [tables_ for tables_, _ in rounds]


def rotations(seating: tuple) -> list[tuple]:
    """The distinct cyclic rotations: rotation r puts the bot of seat i at seat i+r."""
    out = []
    n = len(seating)
    for r in range(n):
        rotated = tuple(seating[(i - r) % n] for i in range(n))
        if rotated not in out:
            out.append(rotated)
    return out


# The plan ------------------------------------------------------------------------------------------

def project_version() -> str:
    try:
        from importlib.metadata import version

        return version("ellibir")
    except Exception:  # noqa: BLE001  (not installed: a source checkout)
        return "unknown"


def default_name(form: str) -> str:
    """A run name that does not collide: the format, the time (UTC) and four random hex digits."""
    return f"{form}-{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}-{secrets.token_hex(2)}"


def make_plan(*, name: str, seed: int, form: str, bots: list[dict], players: int, deal_sets: int,
              variants: list[dict], game: str = "ellibir", options: dict | None = None,
              kind: str = "tournament", duplicate: bool = True, design: str | None = None,
              design_reason: str | None = None, control: dict | None = None) -> dict:
    """The whole run as one JSON-ready document (what ``run.json`` holds).

    ``bots``: what ``harness.arena.registry.resolve_bot`` gives, one dict per bot (labels unique; for a
    gauntlet the challenger first). ``variants``: ``variant_grid``. ``options``: how matches are
    played (move_time, bank, first_time, on_fault, max_refusals). ``duplicate`` False: each table
    plays once per deal set, on a deal of its own, its seating rotated by the deal set's number.
    ``design`` (harness/runs/design.py), when given, decides instead: "duplicate", "independent" (as
    ``duplicate`` False), "common" (each table once per deal set on the deal set's own seed, the
    same for every variant, its rotation drawn at random per deal set and table) or "fair" (``fair``:
    no bot meets a deal twice; ``control`` is the reference bot of its control tables).
    """
    design = design or ("duplicate" if duplicate else "independent")
    if design not in ("duplicate", "independent", "common", "fair"):
        raise PlanError(f"unknown design {design!r}")
    if design == "fair":
        return fair_plan(name=name, seed=seed, form=form, bots=bots, players=players, deal_sets=deal_sets,
                         variants=variants, game=game, options=options, kind=kind, control=control,
                         design_reason=design_reason)
    duplicate = design == "duplicate"
    _check_size(players, deal_sets, bots)
    labels = _labels(bots)
    seatings = tables(form, len(bots), players)
    per_table = [rotations(t) for t in seatings]
    count = len(variants) * deal_sets * (sum(map(len, per_table)) if duplicate else len(seatings))
    if count > MAX_MATCHES:
        raise PlanError(f"the plan has {count} matches, more than {MAX_MATCHES}")
    seeds = deal_seeds(seed, deal_sets)
    drawn = {(d, t): _drawn_rotation(seed, d, t, len(rots)) for d in range(deal_sets)
             for t, rots in enumerate(per_table)} if design == "common" else {}
    wd, wt = len(str(deal_sets - 1)), len(str(len(seatings) - 1))
    matches = []
    for vi, variant in enumerate(variants):
        for d, deal_seed in enumerate(seeds):
            for t, rots in enumerate(per_table):
                if design == "common":
                    chosen = [(drawn[(d, t)], rots[drawn[(d, t)]])]
                else:
                    chosen = list(enumerate(rots)) if duplicate else [(d % len(rots), rots[d % len(rots)])]
                for r, seats in chosen:
                    matches.append({
                        "id": f"v{vi}-d{d:0{wd}d}-t{t:0{wt}d}-r{r}",
                        "variant": variant["id"],
                        "deal_set": d,
                        "deal_seed": table_seed(seed, d, t) if design == "independent" else deal_seed,
                        "table": t,
                        "rotation": r,
                        "seating": [labels[i] for i in seats],
                    })
    head = {"duplicate": duplicate,
            **({"design": design, "design_reason": design_reason} if design_reason or design == "common" else {})}
    return _document(name, seed, form, game, players, deal_sets, kind, head, seeds, bots, variants, options, matches)


def _check_size(players: int, deal_sets: int, bots: list) -> None:
    if not 2 <= players <= 4:
        raise PlanError(f"--players must be 2 to 4, got {players}")
    if deal_sets < 1:
        raise PlanError(f"--deal-sets must be 1 or more, got {deal_sets}")
    if not bots:
        raise PlanError("give at least one bot (--bot)")


def _labels(bots: list[dict]) -> list[str]:
    labels = [b["label"] for b in bots]
    for label in labels:
        if labels.count(label) > 1:
            raise PlanError(f"bot {label!r} is given twice")
    return labels


def _document(name, seed, form, game, players, deal_sets, kind, head, seeds, bots, variants, options, matches) -> dict:
    return {
        "plan_version": PLAN_VERSION,
        "project_version": project_version(),
        "kind": kind,
        "name": name,
        "seed": seed,
        "format": form,
        "challenger": bots[0]["label"] if form == "gauntlet" else None,
        "game": game,
        "players": players,
        "deal_sets": deal_sets,
        **head,
        "deal_seeds": seeds,
        "bots": [_bot_json(b) for b in bots],
        "variants": [{"id": v["id"], "fields": v["fields"], "rules": v["rules"].normalised()} for v in variants],
        "options": dict(options or {}),
        "matches": matches,
    }


def fair_plan(*, name: str, seed: int, form: str, bots: list[dict], players: int, deal_sets: int, variants: list[dict],
              game: str, options: dict | None, kind: str, control: dict | None, design_reason: str | None) -> dict:
    """The fair design: no bot meets a deal twice. The format's tables are split into rounds of tables
    that share no bot (``disjoint_rounds``); deal set d plays round d mod R, every table of it on the
    deal set's seed, at seat rotation (d div R) mod its rotations, so that a bot's seat cycles. Each
    deal set also plays its deal at a control table where ``control`` (a built-in reference bot, which
    carries nothing from one match to the next) holds every seat: a bot's result is compared with the
    control's in its seat (results/fair.py). One variant only: variants would share their deals."""
    from results.fair import control_id  # polars, which the command line does not load to start

    if len(variants) != 1:
        raise PlanError("the fair design plays each deal once: it takes one variant (no --vary)")
    if control is None or control.get("kind") != "builtin":
        raise PlanError("the fair design needs a built-in reference bot for its control tables")
    _check_size(players, deal_sets, bots)
    labels = _labels(bots)
    seatings = tables(form, len(bots), players)
    per_table = [rotations(t) for t in seatings]
    rounds = disjoint_rounds(seatings)
    count = sum(len(rounds[d % len(rounds)]) + 1 for d in range(deal_sets))
    if count > MAX_MATCHES:
        raise PlanError(f"the plan has {count} matches, more than {MAX_MATCHES}")
    seeds = deal_seeds(seed, deal_sets)
    wd, wt = len(str(deal_sets - 1)), len(str(len(seatings) - 1))
    variant, matches = variants[0]["id"], []
    for d, deal_seed in enumerate(seeds):
        for t in rounds[d % len(rounds)]:
            r = d // len(rounds) % len(per_table[t])
            matches.append({"id": f"v0-d{d:0{wd}d}-t{t:0{wt}d}-r{r}", "variant": variant, "deal_set": d,
                            "deal_seed": deal_seed, "table": t, "rotation": r,
                            "seating": [labels[i] for i in per_table[t][r]]})
        matches.append({"id": control_id(0, d, wd), "variant": variant, "deal_set": d, "deal_seed": deal_seed,
                        "table": len(seatings), "rotation": 0, "seating": [control["label"]] * players,
                        "control": True})
    everyone = bots if control["label"] in labels else [*bots, control]
    head = {"duplicate": False, "design": "fair", "design_reason": design_reason, "control": control["label"]}
    return _document(name, seed, form, game, players, deal_sets, kind, head, seeds, everyone, variants, options,
                     matches)


def _drawn_rotation(seed: int, deal_set: int, table: int, count: int) -> int:
    """The seat rotation a deal set plays at a table under the "common" design: drawn from the run's
    seed (a keyed hash, like the deal seeds), the same for every variant."""
    return drawn_rotation(seed, deal_set, table, count)


def _bot_json(bot: dict) -> dict:
    return {k: (str(v) if isinstance(v, Path) else v) for k, v in bot.items()}


def plan_text(plan: dict) -> str:
    """``run.json``'s text: indented, one match per line."""
    head = json.dumps({k: v for k, v in plan.items() if k != "matches"}, indent=1, ensure_ascii=False)
    lines = ",\n".join("  " + json.dumps(m, ensure_ascii=False) for m in plan["matches"])
    return head[:-2] + ',\n "matches": [\n' + lines + "\n ]\n}\n"


def write_plan(run_dir, plan: dict) -> Path:
    """Write ``run.json`` into ``run_dir`` atomically (temporary file, then rename); never overwrites."""
    run_dir = Path(run_dir)
    path = run_dir / PLAN_FILE
    if path.exists():
        raise PlanError(f"{run_dir} already holds a run ({PLAN_FILE}); finish it with --resume {run_dir}")
    fd, tmp = tempfile.mkstemp(prefix=".run.", suffix=".json.tmp", dir=run_dir)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(plan_text(plan))
            f.flush()
            os.fsync(f.fileno())
        os.link(tmp, path)  # fails if run.json appeared meanwhile: never overwrite a plan
    finally:
        os.unlink(tmp)
    return path


def read_plan(run_dir) -> dict:
    path = Path(run_dir) / PLAN_FILE
    try:
        plan = json.loads(read_regular_text(path))
    except FileNotFoundError:
        raise PlanError(f"{run_dir} holds no run ({PLAN_FILE} is missing)") from None
    except (OSError, ValueError) as e:
        raise PlanError(f"{path}: {getattr(e, 'strerror', None) or e}") from None
    if not isinstance(plan, dict) or plan.get("plan_version") != PLAN_VERSION or "matches" not in plan:
        raise PlanError(f"{path} is not a run plan of version {PLAN_VERSION}")
    return plan


def find_match(plan: dict, match_id: str) -> dict:
    for m in plan["matches"]:
        if m["id"] == match_id:
            return m
    ids = [m["id"] for m in plan["matches"]]
    listed = f": its {len(ids)} match ids run from {ids[0]} to {ids[-1]} (run.json lists them)" if ids else ""
    raise PlanError(f"no match {match_id!r} in the run {plan.get('name')!r}{listed}")
