"""Tournaments and variant sweeps: options -> a plan (``run.json``) -> Ray tasks -> Parquet parts.

``prepare(config)`` checks the options and plans the run (nothing is written); ``execute`` starts
or joins Ray, writes ``run.json`` (a new run), plays what the plan holds and the run folder does not
(planned minus done), writes each finished task as one part (``results.store.RunStore``), and shows
progress and standings. Ctrl-C (SIGINT) or SIGTERM stops cleanly: nothing new is submitted, tasks
in flight get ``GRACE`` seconds to finish and are written, the rest are cancelled, Ray shuts down,
and the way to resume is printed. ``resume(run_dir)`` finishes a run from its own ``run.json``.

A config file (``--config FILE``, TOML) holds the same options as the flags, which override it::

    bots = ["builtin:greedy", "builtin:pairs", "builtin:random"]
    players = 4            # 2-4; short for set.players
    format = "round-robin" # or "gauntlet", with challenger = "BOT"
    deal_sets = 8
    duplicate = true       # every deal seed under every seat rotation (default: by the question, harness/design.py)
    rounds = 2             # short for set.rounds
    seed = 1
    name = "demo"          # default: FORMAT-SEED
    out = "runs/demo"      # default: runs/NAME
    workers = 2
    address = "auto"       # join a running cluster instead of starting a local Ray
    preset = "standard"
    move_time = 1.0        # also bank, first_time, on_fault, max_refusals, game, arena, quiet
    [set]
    threshold = 71
    [vary]                 # sweep only
    rising_threshold = [false, true]

A gauntlet may stop early by a sequential test (``--sprt``; results/sprt.py): ``sprt = true`` with
``elo0``, ``elo1``, ``alpha``, ``beta`` and optionally ``vs`` (default: the whole field). After every
deal set whose planned matches are all in, the test is checked; once it decides, nothing more is
submitted, the tasks in flight get ``GRACE`` seconds to finish (their matches are stored, but the
test has already decided) before the rest are cancelled, and ``sprt.json``
records the verdict (``run.json`` stays the plan, with the test's settings under ``sprt``). A run
that has decided plays nothing more on ``--resume``. With ``--sprt``, each task is one deal set
(deal sets are played in plan order), so that the test sees whole deal sets early.

``set`` may also be a list of "FIELD=VALUE" strings, ``vary`` a list of "FIELD=V1,V2" strings.
Relative paths are relative to the current folder, as on the command line.
"""

from __future__ import annotations

import math
import os
import re
import signal
import time
import tomllib
from collections import deque
from dataclasses import dataclass, field, fields
from pathlib import Path

from engine.rules import parse_assignment

from . import plan as planning
from . import runfolder
from .arena import short_label
from .design import announce
from .design import choose as choose_design
from .players import MAX_REFUSALS, ON_FAULT
from .protocol import TimeControl
from .runlock import LOCK_FILE
from .seeds import fresh_run_seed

GRACE = 3.0  # seconds tasks in flight get to finish after Ctrl-C or a decided SPRT
TASKS_PER_WORKER = 4  # batches per worker: small enough for steady progress, large enough to amortise a task
MAX_BATCH = 16


class TournamentError(ValueError):
    """Bad options or a run folder that cannot be used; the message is one line."""


@dataclass
class Config:
    """Every option of ``tournament run`` and ``sweep``."""

    kind: str = "tournament"  # or "sweep"
    bots: list = field(default_factory=list)
    format: str = "round-robin"
    challenger: str | None = None
    deal_sets: int = 10
    duplicate: bool | None = None  # None: the design follows the question (harness/design.py)
    game: str = "ellibir"
    preset: str = "standard"
    sets: dict = field(default_factory=dict)  # field -> value (text or TOML value); players and rounds too
    vary: dict = field(default_factory=dict)  # field -> list of values
    move_time: float = TimeControl.move
    bank: float = TimeControl.bank
    first_time: float = TimeControl.first
    on_fault: str = "forfeit"
    max_refusals: int = MAX_REFUSALS
    cpu_limit: float | None = None  # CPU seconds per match for each bot program; None: its clock + a margin
    seed: int | None = None  # None: a fresh 128-bit random seed (harness/seeds.py)
    name: str | None = None
    out: Path | None = None
    workers: int | None = None
    address: str | None = None
    quiet: bool = False
    arena: Path | None = None
    sprt: bool = False  # gauntlet only: stop once the SPRT of the challenger against vs decides
    vs: list | None = None  # the bots the challenger is tested against (default: the field)
    elo0: float | None = None
    elo1: float | None = None
    alpha: float | None = None
    beta: float | None = None


SPRT_DEFAULTS = {"elo0": 0.0, "elo1": 5.0, "alpha": 0.05, "beta": 0.05}
SPRT_FILE = "sprt.json"


# Options: config file + flags -----------------------------------------------------------------------

_TYPES = {"bots": list, "players": int, "format": str, "challenger": str, "deal_sets": int, "duplicate": bool,
          "rounds": int, "game": str, "preset": str, "set": (dict, list), "vary": (dict, list),
          "move_time": (int, float), "bank": (int, float), "first_time": (int, float), "on_fault": str,
          "max_refusals": int, "cpu_limit": (int, float), "seed": int, "name": str, "out": str, "workers": int,
          "address": str, "quiet": bool,
          "arena": str, "sprt": bool, "vs": (list, str), "elo0": (int, float), "elo1": (int, float),
          "alpha": (int, float), "beta": (int, float)}
RUN_OPTIONS = ("workers", "address", "quiet")  # the options a resume may take


def load_config(path) -> dict:
    """The options of a TOML config file (keys as in ``Config``; ``-`` may stand for ``_``)."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise TournamentError(f"config file {path}: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise TournamentError(f"config file {path}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as e:
        raise TournamentError(f"config file {path}: bad TOML: {' '.join(str(e).split())}") from None
    out = {}
    for key, value in data.items():
        name = key.replace("-", "_")
        name = {"bot": "bots", "deal_set": "deal_sets"}.get(name, name)
        if name not in _TYPES:
            raise TournamentError(f"config file {path}: unknown option {key!r} (options: {', '.join(_TYPES)})")
        kind = _TYPES[name]
        if isinstance(value, bool) and kind is not bool or not isinstance(value, kind):
            raise TournamentError(f"config file {path}: {key} has the wrong type ({type(value).__name__})")
        out[name] = value
    return out


def _sets_of(source: dict, where: str) -> dict:
    """One source's rules overrides, with ``players`` and ``rounds`` folded in."""
    raw = source.get("set") or {}
    sets = {}
    if isinstance(raw, dict):
        sets.update(raw)
    else:
        for text in raw:
            name, value = parse_assignment(str(text))
            sets[name] = value
    for short in ("players", "rounds"):
        if source.get(short) is not None:
            if short in sets:
                raise TournamentError(f"{where}: give {short} once: --{short} or --set {short}=N, not both")
            sets[short] = source[short]
    return sets


def _vary_of(source: dict) -> dict:
    raw = source.get("vary") or {}
    if isinstance(raw, dict):
        out = {}
        for name, values in raw.items():
            if not isinstance(values, list) or not values:
                raise TournamentError(f"vary.{name}: expected a list of values")
            out[name] = values
        return out
    return dict(planning.parse_vary(raw))


def make_config(kind: str, flags: dict, config_file=None) -> Config:
    """Merge a config file's options with the flags given (``flags``: only those given, named as
    in ``Config``, with ``set`` and ``vary`` lists of text); flags win, field by field for set/vary."""
    file_options = load_config(config_file) if config_file is not None else {}
    sets = _sets_of(file_options, f"config file {config_file}")
    sets.update(_sets_of(flags, "options"))
    vary = _vary_of(file_options)
    vary.update(_vary_of(flags))
    merged = {**file_options, **{k: v for k, v in flags.items() if v is not None}}
    config = Config(kind=kind)
    for f in fields(Config):
        if f.name in merged and f.name not in ("kind", "sets", "vary"):
            setattr(config, f.name, merged[f.name])
    config.sets, config.vary = sets, vary
    for name in ("out", "arena"):
        if getattr(config, name) is not None:
            setattr(config, name, Path(getattr(config, name)))
    return config


# Planning -------------------------------------------------------------------------------------------

def _check_options(c: Config) -> None:
    if c.cpu_limit is not None and not c.cpu_limit >= 1:
        raise TournamentError(f"--cpu-limit must be at least 1 second, got {c.cpu_limit}")
    if c.format not in planning.FORMATS:
        raise TournamentError(f"--format must be one of {', '.join(planning.FORMATS)}, got {c.format!r}")
    if c.format == "gauntlet" and not c.challenger:
        raise TournamentError("--format gauntlet needs --challenger BOT")
    if c.format != "gauntlet" and c.challenger:
        raise TournamentError("--challenger is for --format gauntlet")
    if c.kind == "tournament" and c.vary:
        raise TournamentError("--vary is for sweep, not tournament run")
    if c.kind == "sweep" and not c.vary:
        raise TournamentError("a sweep needs at least one --vary FIELD=V1,V2,...")
    if c.deal_sets < 1:
        raise TournamentError(f"--deal-sets must be 1 or more, got {c.deal_sets}")
    if c.max_refusals < 0:
        raise TournamentError(f"--max-refusals must be 0 or more, got {c.max_refusals}")
    if c.on_fault not in ON_FAULT:
        raise TournamentError(f"--on-fault must be one of {', '.join(ON_FAULT)}, got {c.on_fault!r}")
    if c.workers is not None and c.workers < 1:
        raise TournamentError(f"--workers must be 1 or more, got {c.workers}")
    for option, value, least in (("--move-time", c.move_time, 0), ("--first-time", c.first_time, 0),
                                 ("--bank", c.bank, None)):
        if not (math.isfinite(value) and (value > 0 if least == 0 else value >= 0)):
            raise TournamentError(f"{option} must be a number of seconds {'above 0' if least == 0 else '0 or more'}, "
                                  f"got {value}")
    _check_sprt(c)
    if c.name is not None and not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}", c.name):
        raise TournamentError(f"--name must be letters, digits, '.', '_' or '-', got {c.name!r}")


def _check_sprt(c: Config) -> None:
    given = [f"--{name}" for name in ("vs", *SPRT_DEFAULTS) if getattr(c, name) is not None]
    if not c.sprt:
        if given:
            raise TournamentError(f"{given[0]} is for --sprt")
        return
    if c.format != "gauntlet":
        raise TournamentError("--sprt needs --format gauntlet: the challenger is the bot tested")
    if c.kind != "tournament":
        raise TournamentError("--sprt is for ellibir tournament run, not a sweep")
    from results.sprt import SprtError, check_parameters

    try:
        check_parameters(**sprt_settings(c))
    except SprtError as e:
        raise TournamentError(str(e)) from None


def sprt_settings(c: Config) -> dict:
    """elo0, elo1, alpha, beta: those given, the defaults for the rest."""
    return {name: float(getattr(c, name) if getattr(c, name) is not None else default)
            for name, default in SPRT_DEFAULTS.items()}


def _sprt_plan(c: Config, bots: list[dict]) -> dict:
    """The test's settings as the plan keeps them: the challenger, the bots it is tested against."""
    field = [b["label"] for b in bots[1:]]
    vs = field
    if c.vs:
        specs = [c.vs] if isinstance(c.vs, str) else list(c.vs)
        vs = list(dict.fromkeys(b["label"] for b in resolve_bots(specs, c.arena, c.game)))
        outside = [label for label in vs if label not in field]
        if outside:
            raise TournamentError(f"--vs {outside[0]} is not in the gauntlet's field ({', '.join(field)})")
    return {"bot": bots[0]["label"], "vs": vs, **sprt_settings(c)}


def resolve_bots(specs: list, arena_dir=None, game: str = "ellibir") -> list[dict]:
    """Each bot name resolved by the arena (builtin:NAME of ``game``, a bot folder, a submitted NAME[@VERSION])."""
    from .arena import Arena, ArenaError, resolve_bot

    arena = Arena(arena_dir)
    out = []
    for spec in specs:
        try:
            bot = resolve_bot(spec, arena, game)
        except ArenaError as e:
            raise TournamentError(str(e)) from None
        if bot["kind"] != "builtin":
            bot["folder"] = str(Path(bot["folder"]).resolve())
        out.append(bot)
    distinguish(out)
    if any(b["kind"] != "builtin" for b in out):
        from .sandbox import capabilities, sandbox_available

        if not sandbox_available():
            problem = capabilities().get("problem")
            raise TournamentError(f"bot folders need the sandbox, which cannot run here: {problem}")
    return out


def distinguish(bots: list[dict]) -> None:
    """Bot folders labelled ``name@version`` like another bot of different content get ``+HASH`` (8 hex
    digits of their content hash), so two versions never merge under one label."""
    clash = [b for b in bots if b["kind"] == "folder"
             and any(o is not b and o["label"] == b["label"] and o["hash"] != b["hash"] for o in bots)]
    for b in clash:
        b["label"] = f"{b['label']}+{b['hash'][:8]}"


def prepare(c: Config) -> tuple[dict, Path]:
    """Check the options and plan the run; returns (plan, run folder). Writes nothing."""
    _check_options(c)
    sets = dict(c.sets)
    players = sets.pop("players", 4)
    try:
        players = int(players)
    except (TypeError, ValueError):
        raise TournamentError(f"players must be a whole number, got {players!r}") from None
    if not 2 <= players <= 4:
        raise TournamentError(f"--players must be 2 to 4, got {players}")
    specs = list(c.bots)
    if c.format == "gauntlet":
        specs = [c.challenger] + specs
    if not specs or (c.format == "gauntlet" and len(specs) < 2):
        raise TournamentError("give the bots with --bot (the field, for a gauntlet)")
    from .limits import check_run_size

    try:  # the plan's size from the options alone, before any table, variant or deal seed is made
        check_run_size(c.format, len(dict.fromkeys(specs)), players, c.deal_sets, c.vary, c.duplicate, c.workers)
    except planning.PlanError as e:
        raise TournamentError(str(e)) from None
    bots = resolve_bots(specs, c.arena, c.game)
    if c.format == "gauntlet":  # the challenger is not part of its own field
        bots = bots[:1] + [b for b in bots[1:] if b["label"] != bots[0]["label"]]
        if len(bots) < 2:
            raise TournamentError("the gauntlet's field is empty: give other bots than the challenger")
    try:
        variants = planning.variant_grid(c.preset, sets, list(c.vary.items()), players, c.game)
        for v in variants:  # the varied values as the rules hold them (typed, canonical)
            normal = v["rules"].normalised()
            v["fields"] = {k: normal.get(k, value) for k, value in v["fields"].items()}  # preset: its name
        if variants[0]["rules"].game != c.game:
            raise TournamentError(f"unknown game {c.game!r} (known: {variants[0]['rules'].game})")
        seed = fresh_run_seed() if c.seed is None else c.seed
        name = c.name or planning.default_name(c.format)
        options = {"move_time": c.move_time, "bank": c.bank, "first_time": c.first_time,
                   "on_fault": c.on_fault, "max_refusals": c.max_refusals, "cpu_limit": c.cpu_limit}
        design, reason = choose_design(c.kind, c.format, players, len(bots), c.duplicate)
        plan = planning.make_plan(name=name, seed=seed, form=c.format, bots=bots, players=players,
                                  deal_sets=c.deal_sets, variants=variants, game=c.game, options=options, kind=c.kind,
                                  design=design, design_reason=reason)
    except ValueError as e:
        raise TournamentError(str(e)) from None
    if c.sprt:
        plan["sprt"] = _sprt_plan(c, bots)
    run_dir = c.out if c.out is not None else Path("runs") / name
    check_out(run_dir)
    try:
        runfolder.check_outside_bots(run_dir, bots)
    except runfolder.RunFolderError as e:
        raise TournamentError(str(e)) from None
    return plan, run_dir


def check_out(run_dir: Path) -> None:
    """A new run needs a folder that does not exist (or is empty) under a writable parent."""
    if run_dir.exists():
        if not run_dir.is_dir():
            raise TournamentError(f"cannot write the run to {run_dir}: it is not a folder")
        if (run_dir / planning.PLAN_FILE).exists():
            raise TournamentError(f"{run_dir} already holds a run: finish it with --resume {run_dir}, "
                                  f"or choose another --out")
        if any(p.name != LOCK_FILE for p in run_dir.iterdir()):
            raise TournamentError(f"cannot write the run to {run_dir}: the folder is not empty")
        if not os.access(run_dir, os.W_OK | os.X_OK):
            raise TournamentError(f"cannot write the run to {run_dir}: permission denied")
        return
    parent = run_dir.absolute().parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise TournamentError(f"cannot write the run to {run_dir}: {parent} is not a writable folder")


# Running --------------------------------------------------------------------------------------------

def pack_bots(plan: dict) -> dict:
    """label -> packed files of every folder or submitted bot, checked against the planned hash."""
    from .arena import ArenaError, content_hash
    from .distributed import pack_folder

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


def batches(matches: list, slots: int, by_deal_set: bool = False) -> list[list]:
    """Consecutive slices of ``matches``; ``by_deal_set``: one deal set (of one variant) per batch,
    split only if it holds more than ``MAX_BATCH`` matches."""
    if by_deal_set:
        out: list = []
        for m in matches:
            last = out[-1][-1] if out else None
            same = last is not None and (last["variant"], last["deal_set"]) == (m["variant"], m["deal_set"])
            if same and len(out[-1]) < MAX_BATCH:
                out[-1].append(m)
            else:
                out.append([m])
        return out
    size = max(1, min(MAX_BATCH, math.ceil(len(matches) / max(1, slots * TASKS_PER_WORKER))))
    return [matches[i:i + size] for i in range(0, len(matches), size)]


class Standings:
    """Mean rank per bot (and variant), from match rows."""

    def __init__(self):
        self.sums: dict = {}

    def add(self, rows) -> None:
        for r in rows:
            key = (r["variant"], r["bot"])
            s = self.sums.setdefault(key, [0, 0, 0])
            s[0] += r["rank"]
            s[1] += 1
            s[2] += r.get("faults", 0) > 0

    def text(self, plan: dict) -> str:
        if not self.sums:
            return ""
        by_bot: dict = {}  # a sweep's bar shows each bot over every variant
        for (variant, bot), (total, n, faults) in self.sums.items():
            s = by_bot.setdefault(bot, [0, 0, 0])
            s[0] += total
            s[1] += n
            s[2] += faults
        order = sorted(by_bot.items(), key=lambda kv: (kv[1][0] / kv[1][1], kv[0]))
        return "  ".join(f"{short_label(bot)} {total / n:.2f}" + (f" ({faults} faults)" if faults else "")
                         for bot, (total, n, faults) in order)


class _Stop:
    """Signal handler: the first SIGINT/SIGTERM asks to stop; a second one interrupts at once."""

    def __init__(self):
        self.signal = 0
        self.decided = False  # the sequential test has decided: stop, without waiting for tasks in flight

    def __call__(self, signum, frame):
        if self.signal:
            raise KeyboardInterrupt
        self.signal = signum


@dataclass
class Outcome:
    planned: int
    done: int  # matches in the run folder at the end
    played: int  # matches written by this call
    failed: int  # matches of tasks that failed after their retries
    stopped: int  # 0, or the signal that stopped the run
    errors: list
    elapsed: float = 0.0  # seconds from the first task submitted to the last one written (Ray's start excluded)
    sprt: dict | None = None  # the sequential test's state at the end (runs with --sprt)

    @property
    def decided(self) -> bool:
        return self.sprt is not None and self.sprt["verdict"] != "continue"

    @property
    def exit_code(self) -> int:
        if self.decided:
            return 0
        if self.stopped:
            return 128 + self.stopped
        return 0 if self.done == self.planned else 1


def execute(plan: dict, run_dir: Path, *, new: bool, workers: int | None = None, address: str | None = None,
            quiet: bool = False, console=None) -> Outcome:
    """Play the planned matches not yet in ``run_dir`` on Ray (see the module's docstring)."""
    try:
        with runfolder.locked(run_dir, new):  # one process at a time plays in a run folder
            return _execute(plan, run_dir, new=new, workers=workers, address=address, quiet=quiet, console=console)
    except runfolder.RunFolderError as e:
        raise TournamentError(str(e)) from None


def _execute(plan: dict, run_dir: Path, *, new: bool, workers: int | None, address: str | None, quiet: bool,
             console) -> Outcome:
    from rich.console import Console

    from results.store import RunStore

    from .distributed import ClusterError, Pool, connect, shutdown

    console = console or Console(stderr=True, highlight=False)
    store = RunStore(run_dir)
    if not new:
        runfolder.check_stored(store)
    done = set() if new else store.done_match_ids()
    todo = [m for m in plan["matches"] if m["id"] not in done]
    watch = sequential_test(plan)
    if watch is not None and not new:
        recorded = resume_sprt(plan, watch, store)
        if recorded is not None:  # decided earlier: nothing more to play
            return Outcome(len(plan["matches"]), len(done), 0, 0, 0, [], sprt=recorded)
    if not todo:  # a finished run: nothing to start Ray for
        return Outcome(len(plan["matches"]), len(done), 0, 0, 0, [], sprt=watch and watch.state)
    packs = pack_bots(plan)
    try:
        slots = connect(workers, address)
    except ClusterError as e:
        raise TournamentError(str(e)) from None
    except KeyboardInterrupt:  # Ctrl-C while Ray starts: nothing is written yet
        shutdown()
        raise
    if new:  # the plan's size, design and reason; unless quiet, a pilot's time estimate
        try:
            announce(plan, job_of(plan), packs, len(todo), slots, quiet, console)
        except KeyboardInterrupt:  # nothing is written yet
            shutdown()
            raise
    stop = _Stop()  # from here on Ctrl-C stops cleanly: the plan is written whole, or not at all
    handlers = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        if new:
            try:
                run_dir.mkdir(parents=True, exist_ok=True)
                planning.write_plan(run_dir, plan)
            except OSError as e:
                raise TournamentError(f"cannot write the run to {run_dir}: {e.strerror or e}") from None
        attempt = next_attempt(store)
        queue = deque((f"a{attempt}-{n:05d}", batch)
                      for n, batch in enumerate(batches(todo, slots, by_deal_set=watch is not None)))
        schema_rules = _schema_rules(plan)
        standings = Standings()
        if done:
            standings.add(_stored_rows(store))
        outcome = Outcome(len(plan["matches"]), len(done), 0, 0, 0, [])
        pool = Pool(job_of(plan), packs, 2 * slots)
        started = time.monotonic()
        with _progress(console, quiet, plan, outcome) as bar:

            def finish(items) -> None:
                for task_id, batch, results, error in items:
                    if error is None:
                        try:
                            written = write(store, task_id, schema_rules, results, done)
                        except (ValueError, OSError) as e:  # the part is not written: its matches stay to do
                            error = f"cannot write its part: {e}"
                    if error is not None:
                        outcome.failed += len(batch)
                        outcome.errors.append(f"task {task_id} ({len(batch)} matches) failed: {error}")
                        if not quiet:
                            console.print(f"error: task {task_id} failed: {error}", markup=False)
                        continue
                    standings.add(r for res in written for r in res["matches"])
                    outcome.played += len(written)
                    outcome.done = len(done)
                    text = standings.text(plan)
                    if watch is not None:
                        state = watch.add(r for res in written for r in res["matches"])
                        stop.decided = watch.decided
                        text += f"  LLR {state['llr']:.2f} [{state['lower']:.2f}, {state['upper']:.2f}]"
                    bar(outcome, text, time.monotonic() - started)

            _play(pool, queue, stop, finish)
        outcome.stopped = stop.signal
        outcome.done = len(done)
        outcome.elapsed = time.monotonic() - started
        decided = watch is not None and watch.decided
        if (outcome.done == outcome.planned or decided) and not outcome.stopped:  # its submitted bots' ratings
            from .arena import record_run_ratings

            problem = record_run_ratings(plan, run_dir)
            if problem:
                console.print(f"warning: ratings not recorded in the arena: {problem}", markup=False)
        if not outcome.stopped and outcome.played:  # few large files instead of many parts (results/compact.py)
            problem = runfolder.compact_after_run(store)
            if problem:
                console.print(f"warning: {problem}", markup=False)
        if watch is not None:
            outcome.sprt = watch.state
            write_sprt(run_dir, watch.state, outcome)
        return outcome
    finally:
        for sig, old in handlers.items():
            signal.signal(sig, old)
        shutdown()


def _play(pool, queue: deque, stop: _Stop, finish) -> None:
    """Keep the pool full until the queue is empty or a stop is asked; then give the tasks in flight
    ``GRACE`` seconds, and cancel the rest. ``finish`` receives every finished task."""
    try:
        while (queue or pool.running) and not stop.signal and not stop.decided:
            while queue and not pool.full:
                pool.submit(*queue.popleft())
            finish(pool.wait(0.25))
        if stop.decided or stop.signal:  # let the tasks in flight finish (cancelling a task as it
            # completes can abort Ray's driver); only those still running after GRACE are cancelled
            deadline = time.monotonic() + GRACE
            while pool.running and time.monotonic() < deadline:
                finish(pool.wait(0.25))
            pool.cancel()
    except KeyboardInterrupt:  # a second Ctrl-C: stop waiting
        stop.signal = stop.signal or signal.SIGINT
        pool.cancel()


def sequential_test(plan: dict):
    """The plan's SPRT (results/sprt.py) with nothing seen yet, or None for a run without one."""
    if not plan.get("sprt"):
        return None
    from results.sprt import SequentialTest

    t = plan["sprt"]
    return SequentialTest(plan["matches"], t["bot"], t["vs"], t["elo0"], t["elo1"], t["alpha"], t["beta"])


def read_sprt(run_dir: Path) -> dict | None:
    """The run's ``sprt.json``, or None when there is none (or it cannot be read)."""
    import json

    try:
        doc = json.loads((Path(run_dir) / SPRT_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) and "verdict" in doc else None


def resume_sprt(plan: dict, watch, store) -> dict | None:
    """Bring the test of a resumed run up to date with its stored matches, deal set by deal set in
    plan order; returns its state when it has decided (now or in ``sprt.json``), else None."""
    recorded = read_sprt(store.root)
    if recorded is not None and recorded["verdict"] != "continue":
        return recorded
    from results.sprt import SequentialTest

    watch.add(store.scan("matches").select(*SequentialTest.COLUMNS).collect().iter_rows(named=True))
    if not watch.decided:
        return None
    write_sprt(store.root, watch.state, Outcome(len(plan["matches"]), len(store.done_match_ids()), 0, 0, 0, []))
    return watch.state


def write_sprt(run_dir: Path, state: dict, outcome: "Outcome") -> None:
    """Record the test in ``sprt.json`` (replaced atomically): its state, and the matches planned and
    stored when the run stopped."""
    import json
    import tempfile

    doc = {**state, "planned_matches": outcome.planned, "stored_matches": outcome.done}
    fd, tmp = tempfile.mkstemp(prefix=".sprt.", suffix=".json.tmp", dir=run_dir)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(json.dumps(doc, indent=1) + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, Path(run_dir) / SPRT_FILE)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def job_of(plan: dict) -> dict:
    """What every task needs besides its matches."""
    return {
        "run": plan["name"],
        "game": plan["game"],
        "variants": {v["id"]: v["rules"] for v in plan["variants"]},
        "options": plan["options"],
        "bots": {b["label"]: b for b in plan["bots"]},
    }


def _schema_rules(plan: dict):
    from engine.game import rules_from_dict

    return rules_from_dict(plan["game"], plan["variants"][0]["rules"])


def write(store, task_id: str, rules, results: list, done: set) -> list:
    """Write one task's matches as a part (leaving out any already stored); returns those written."""
    fresh = [r for r in results if r["id"] not in done]
    if not fresh:
        return []
    store.write_part(task_id, rules, [row for r in fresh for row in r["matches"]],
                     [row for r in fresh for row in r["rounds"]], {r["id"]: r["log"] for r in fresh})
    done.update(r["id"] for r in fresh)
    from .faultlog import save_stderr

    try:
        save_stderr(store.root, task_id, fresh)  # the bots' own logs: losing them loses no result
    except OSError:
        pass
    return fresh


def _stored_rows(store) -> list:
    return store.scan("matches").select("variant", "bot", "rank", "faults").collect().to_dicts()


class _progress:
    """A rich progress bar (matches done/planned, rate, ETA, standings); nothing when quiet."""

    def __init__(self, console, quiet: bool, plan: dict, outcome: Outcome):
        self.console, self.quiet, self.plan, self.outcome = console, quiet, plan, outcome
        self.progress = None

    def __enter__(self):
        if self.quiet:
            return lambda *args: None
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self.progress = Progress(
            TextColumn("{task.description}"), BarColumn(bar_width=16), MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}"), TextColumn("ETA"), TimeRemainingColumn(compact=True),
            TextColumn("{task.fields[standings]}"),
            console=self.console, transient=False,
        )
        self.progress.start()
        self.task = self.progress.add_task(self.plan["name"], total=self.outcome.planned,
                                           completed=self.outcome.done, rate="", standings="")
        return self.update

    def update(self, outcome: Outcome, standings: str, elapsed: float) -> None:
        rate = outcome.played / elapsed if elapsed > 0 else 0.0
        self.progress.update(self.task, completed=outcome.done, rate=f"{rate:.1f}/s", standings=standings)

    def __exit__(self, *exc):
        if self.progress is not None:
            self.progress.stop()
        return False


# Results --------------------------------------------------------------------------------------------

def standings_tables(plan: dict, run_dir: Path) -> list:
    """The standings of the matches stored in ``run_dir``: one table per variant, bots by mean rank
    (a bot's copies at a table count one seat each)."""
    import polars as pl
    from rich.table import Table

    from results.store import RunStore

    frame = (RunStore(run_dir).scan("matches")
             .group_by("variant", "bot")
             .agg(pl.len().alias("seats"), pl.col("rank").mean().alias("mean_rank"),
                  (pl.col("rank") == 1).mean().alias("wins"), pl.col("total").mean().alias("mean_total"),
                  (pl.col("faults") > 0).sum().alias("faults"))
             .collect())
    rows = frame.sort("mean_rank", "bot").to_dicts()
    tables = []
    for variant in plan["variants"]:
        title = f"Standings: {plan['name']}"
        if len(plan["variants"]) > 1:
            title += f"\n{variant_name(variant)}"
        table = Table(title=title)
        for column, justify in (("bot", "left"), ("seats", "right"), ("mean rank", "right"), ("wins", "right"),
                                ("mean total", "right"), ("faults", "right")):
            table.add_column(column, justify=justify)
        for r in rows:
            if r["variant"] == variant["id"]:
                table.add_row(r["bot"], str(r["seats"]), f"{r['mean_rank']:.3f}", f"{100 * r['wins']:.1f}%",
                              f"{r['mean_total']:.1f}", str(r["faults"]))
        if table.row_count:
            tables.append(table)
    return tables


def variant_name(variant: dict) -> str:
    """``threshold=71, rising_threshold=true``: the varied fields (the id when none are)."""
    import json

    return ", ".join(f"{k}={json.dumps(v)}" for k, v in variant["fields"].items()) or variant["id"]


def resume_command(run_dir: Path) -> str:
    return f"ellibir tournament run --resume {run_dir}"


def load_run(run_dir: Path) -> dict:
    """The run's ``run.json``, checked (results/integrity.py): a damaged or edited plan is one line."""
    from results.integrity import check_plan

    try:
        plan = planning.read_plan(run_dir)
        check_plan(plan, Path(run_dir) / planning.PLAN_FILE)
    except ValueError as e:
        raise TournamentError(str(e)) from None
    return plan


def replay_match(run_dir: Path, match_id: str):
    """(events of the replayed match, the seating's bot labels) of a stored match."""
    from results.store import RunStore

    from .annotated import read

    plan = load_run(run_dir)
    try:
        planned = planning.find_match(plan, match_id)
    except planning.PlanError as e:
        raise TournamentError(str(e)) from None
    try:
        text = RunStore(run_dir).read_log(match_id)
    except KeyError:
        raise TournamentError(f"match {match_id} is planned but not played yet: finish the run with "
                              f"{resume_command(run_dir)}") from None
    try:
        events, _notes = read(text)
    except Exception as e:  # noqa: BLE001  (a damaged log)
        raise TournamentError(f"the log of match {match_id} does not replay: {e}") from None
    return events, planned["seating"]
