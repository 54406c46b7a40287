"""The options of ``tournament run`` and ``sweep``: a config file and flags merged into one ``Config``,
checked before anything is planned.

A config file (``--config FILE``, TOML) holds the same options as the flags, which override it::

    bots = ["builtin:greedy", "builtin:pairs", "builtin:random"]
    players = 4            # 2-4; short for set.players
    format = "round-robin" # or "gauntlet", with challenger = "BOT"
    deal_sets = 8
    duplicate = true       # every deal seed under every seat rotation (default: by the question, harness/runs/design.py)
    design = "fair"        # or duplicate, independent: instead of duplicate; fair: no bot meets a deal twice
    rounds = 2             # short for set.rounds
    seed = 1
    name = "demo"          # default: FORMAT-DATE-TIME-XXXX
    out = "runs/demo"      # default: runs/NAME
    workers = 2
    address = "auto"       # join a running cluster instead of starting a local Ray
    executor = "ray"       # or "local": every match in this process, one at a time (no Ray)
    compact = true         # merge the run's parts into few files at its end (false: --no-compact)
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
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path

from engine.rules import parse_assignment
from results.files import read_regular_text

from . import limits
from . import plan as planning
from harness.players.base import MAX_REFUSALS, ON_FAULT
from harness.protocol.messages import TimeControl

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
    duplicate: bool | None = None  # None: the design follows the question (harness/runs/design.py)
    design: str | None = None  # "duplicate", "independent" or "fair" (tournament run only)
    game: str = "ellibir"
    preset: str | None = None  # None: "standard" (and a --vary preset=... is free to say which)
    sets: dict = field(default_factory=dict)  # field -> value (text or TOML value); players and rounds too
    vary: dict = field(default_factory=dict)  # field -> list of values
    move_time: float = TimeControl.move
    bank: float = TimeControl.bank
    first_time: float = TimeControl.first
    on_fault: str = "forfeit"
    max_refusals: int = MAX_REFUSALS
    cpu_limit: float | None = None  # CPU seconds per match for each bot program; None: its clock + a margin
    seed: int | None = None  # None: a fresh 128-bit random seed (harness/players/seeds.py)
    name: str | None = None
    out: Path | None = None
    workers: int | None = None
    address: str | None = None
    executor: str = "ray"  # or "local" (harness/runs/executors.py)
    compact: bool = True  # the parts merged at the end of the run (results/compact.py); False: left as written
    quiet: bool = False
    arena: Path | None = None
    sprt: bool = False  # gauntlet only: stop once the SPRT of the challenger against vs decides
    vs: list | None = None  # the bots the challenger is tested against (default: the field)
    elo0: float | None = None
    elo1: float | None = None
    alpha: float | None = None
    beta: float | None = None



EXECUTORS = ("ray", "local")
SPRT_DEFAULTS = {"elo0": 0.0, "elo1": 5.0, "alpha": 0.05, "beta": 0.05}


_TYPES = {"bots": list, "players": int, "format": str, "challenger": str, "deal_sets": int, "duplicate": bool,
          "design": str,
          "rounds": int, "game": str, "preset": str, "set": (dict, list), "vary": (dict, list),
          "move_time": (int, float), "bank": (int, float), "first_time": (int, float), "on_fault": str,
          "max_refusals": int, "cpu_limit": (int, float), "seed": int, "name": str, "out": str, "workers": int,
          "address": str, "executor": str, "compact": bool, "quiet": bool,
          "arena": str, "sprt": bool, "vs": (list, str), "elo0": (int, float), "elo1": (int, float),
          "alpha": (int, float), "beta": (int, float)}
RUN_OPTIONS = ("workers", "address", "executor", "compact", "quiet")  # the options a resume may take


def load_config(path) -> dict:
    """The options of a TOML config file (keys as in ``Config``; ``-`` may stand for ``_``)."""
    path = Path(path)
    try:  # a regular file of at most MAX_CONFIG_FILE bytes (not /dev/zero, not a FIFO)
        data = tomllib.loads(read_regular_text(path, limits.MAX_CONFIG_FILE, follow=True))
    except OSError as e:
        raise TournamentError(f"config file {path}: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise TournamentError(f"config file {path}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as e:
        raise TournamentError(f"config file {path}: bad TOML: {' '.join(str(e).split())}") from None
    except RecursionError:
        raise TournamentError(f"config file {path}: nested more than {limits.MAX_JSON_DEPTH} levels deep") from None
    except ValueError:
        raise TournamentError(f"config file {path}: larger than {limits.MAX_CONFIG_FILE} bytes") from None
    if _depth(data) > limits.MAX_JSON_DEPTH:
        raise TournamentError(f"config file {path}: nested more than {limits.MAX_JSON_DEPTH} levels deep")
    out = {}
    for key, value in data.items():
        name = key.replace("-", "_")
        name = {"bot": "bots", "deal_set": "deal_sets"}.get(name, name)
        if name not in _TYPES:
            raise TournamentError(f"config file {path}: unknown option {key!r} (options: {', '.join(_TYPES)})")
        kind = _TYPES[name]
        if isinstance(value, bool) and kind is not bool or not isinstance(value, kind):
            raise TournamentError(f"config file {path}: {key} has the wrong type ({type(value).__name__})")
        if name in ("bots", "vs", "set") and isinstance(value, list) and not all(isinstance(v, str) for v in value):
            raise TournamentError(f"config file {path}: {key} must be a list of strings")
        out[name] = value
    return out


def _depth(value) -> int:
    """How deeply lists and tables nest in a parsed TOML value (a scalar: 0)."""
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


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


def _check_options(c: Config) -> None:
    for option, value in (("--deal-sets", c.deal_sets), ("--workers", c.workers), ("--seed", c.seed),
                          ("--move-time", c.move_time), ("--first-time", c.first_time), ("--bank", c.bank),
                          ("--cpu-limit", c.cpu_limit), ("--max-refusals", c.max_refusals)):
        try:
            limits.check(option, value)
        except planning.PlanError as e:
            raise TournamentError(str(e)) from None
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
    if c.preset is not None and "preset" in c.vary:
        raise TournamentError("preset is both given (--preset) and varied (--vary preset=...): give it once")
    if c.on_fault not in ON_FAULT:
        raise TournamentError(f"--on-fault must be one of {', '.join(ON_FAULT)}, got {c.on_fault!r}")
    if c.executor not in EXECUTORS:
        raise TournamentError(f"--executor must be one of {', '.join(EXECUTORS)}, got {c.executor!r}")
    if c.executor == "local" and c.address is not None:
        raise TournamentError("--address joins a Ray cluster: it is not for --executor local")
    _check_design(c)
    _check_sprt(c)
    if c.name is not None:
        check_name(c.name)


def check_name(name: str) -> None:
    """A run's --name: it names the run's folder under runs/ and its rows."""
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}", name):
        raise TournamentError(f"--name must be 1 to 100 letters, digits, '.', '_' or '-' (starting with a letter or "
                              f"digit), got {name[:120]!r}")


ASKED_DESIGNS = ("duplicate", "independent", "fair")


def _check_design(c: Config) -> None:
    if c.design is None:
        return
    if c.kind != "tournament":
        raise TournamentError("--design is for ellibir tournament run (a sweep plays the same deals per variant)")
    if c.design not in ASKED_DESIGNS:
        raise TournamentError(f"--design must be one of {', '.join(ASKED_DESIGNS)}, got {c.design!r}")
    if c.duplicate is not None:
        raise TournamentError("give either --design or --duplicate/--no-duplicate, not both")


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


def check_plan_values(plan: dict, path) -> None:
    """Every value of a ``run.json`` (its shape already checked, results/integrity.py ``check_plan``)
    within the range the options have: an edited plan is refused whole, in one line, before any task
    starts (a bad clock or bot name would otherwise fail in every task)."""
    from bots import UnknownBot, parse_builtin
    from harness.players.base import ON_FAULT

    options = plan["options"]
    try:
        for option, value in (("--seed", plan["seed"]), ("--deal-sets", plan["deal_sets"]),
                              ("--move-time", options["move_time"]), ("--first-time", options["first_time"]),
                              ("--bank", options["bank"]), ("--max-refusals", options["max_refusals"]),
                              ("--cpu-limit", options.get("cpu_limit"))):
            where = path if option in ("--seed", "--deal-sets") else f"{path}: options"
            limits.check(option, value, str(where))
    except planning.PlanError as e:
        raise TournamentError(f"{e}: the run plan was edited or damaged; restore it") from None
    if options["on_fault"] not in ON_FAULT:
        raise TournamentError(f"{path}: options.on_fault must be one of {', '.join(ON_FAULT)}, got "
                              f"{str(options['on_fault'])[:40]!r}: the run plan was edited or damaged; restore it")
    from bots import analysis_bots
    from contextlib import nullcontext

    from .jobs import analysis_allowed

    for bot in plan["bots"]:
        if bot["kind"] == "builtin":
            try:
                if not bot["label"].startswith("builtin:"):
                    raise UnknownBot("a built-in bot's label starts with builtin:")
                with analysis_bots() if analysis_allowed(plan) else nullcontext():  # a skill study's own fictive bot
                    parse_builtin(bot["label"].removeprefix("builtin:"), plan["game"])
            except UnknownBot as e:
                raise TournamentError(f"{path}: bot {bot['label'][:60]!r}: {e}: the run plan was edited or damaged; "
                                      f"restore it") from None
    if plan.get("sprt") is not None:
        from results.sprt import SprtError, check_parameters

        try:
            check_parameters(**{k: plan["sprt"][k] for k in SPRT_DEFAULTS})
        except SprtError as e:
            raise TournamentError(f"{path}: sprt: {e}: the run plan was edited or damaged; restore it") from None
