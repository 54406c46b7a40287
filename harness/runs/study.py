"""The skill study (``ellibir study skill``): a sweep's options plus a ladder of bots, planned as
control and challenger tables on common deal sets (the statistics are results/skill.py).

For every variant and deal set, on the deal set's one seed: for each field bot F, the all-F control
table, and for each challenger C of F, C in every seat against copies of F. The challengers
(``results.skill.Design.pairs``): each rung of the ladder over the one below; over each beginner
(random and greedy, when on the ladder), the strongest bot of the ladder and the clairvoyant bot;
over the pairs bot, each restricted bot (one mechanic taken away), and pairs over greedy (so that every
bot of the study is rated on one scale).

The clairvoyant bot is added here, by the study, never by name: the names a person gives (``--ladder``)
are resolved like any run's, where an analysis-only bot is refused (``bots.parse_builtin``); the
study resolves its own fictive player inside ``bots.analysis_bots()``, and the plan's ``skill.fictive``
is the one analysis-only bot its tasks may make (``jobs.Job.analysis``).
"""

from __future__ import annotations

from bots import analysis_bots

from .options import Config, TournamentError

FICTIVE = "builtin:clairvoyant"
BEGINNERS = ("builtin:random", "builtin:greedy")
RESTRICTED_BASE = "builtin:pairs"
RESTRICTED = tuple(f"builtin:restricted:{m}=1" for m in ("pairs", "take", "layoff", "swap", "discard"))
REASON = ("a skill study: on each deal set's seed, the all-F control of each field bot F and each challenger of F "
          "in every seat against copies of F (results/skill.py)")


def design_of(ladder: list[str], fictive: bool = True, restricted: bool = True):
    """The ``results.skill.Design`` of a ladder (labels, weakest first)."""
    from results.skill import Design

    if len(ladder) < 2:
        raise TournamentError("--ladder needs two bots or more, weakest first (e.g. builtin:random,builtin:greedy)")
    if len(set(ladder)) != len(ladder):
        raise TournamentError("--ladder names a bot twice")
    beginners = tuple(b for b in BEGINNERS if b in ladder and b != ladder[-1])
    # the restricted bots' base plays against copies of greedy (or the ladder's first bot), so that every bot of
    # the study is rated on one scale with the ladder's
    link = ("builtin:greedy" if "builtin:greedy" in ladder else ladder[0], RESTRICTED_BASE)
    return Design(tuple(ladder), beginners, FICTIVE if fictive and beginners else None,
                  ((RESTRICTED_BASE, RESTRICTED),) if restricted else (),
                  (link,) if restricted and RESTRICTED_BASE not in ladder else ())


def seatings(design, players: int) -> list[tuple[str, ...]]:
    """The tables of one deal set: each field's control, then its challengers in every seat."""
    out = []
    for field in design.fields():
        out.append((field,) * players)
        for f, challenger in design.pairs():
            if f == field:
                out += [tuple(challenger if i == seat else field for i in range(players)) for seat in range(players)]
    return out


def prepare_study(c: Config, ladder: list[str], fictive: bool = True, restricted: bool = True) -> tuple[dict, object]:
    """(plan, run folder) of a skill study: ``c`` as a sweep's options (``vary`` may be empty)."""
    from .tournament import prepare, resolve_bots

    from bots import builtin_bots

    people = [b["label"] for b in resolve_bots(ladder, c.arena, c.game)]  # an analysis-only bot is refused here
    known = builtin_bots(c.game)  # another game may have no clairvoyant or restricted bots: the study goes without
    design = design_of(people, fictive and "clairvoyant" in known, restricted and "restricted" in known)
    labels = list(dict.fromkeys(label for pair in design.pairs() for label in pair))
    from .plan import default_name

    c.name = c.name or default_name("skill")
    c.kind = "sweep" if c.vary else "tournament"
    c.format, c.challenger, c.bots, c.design, c.duplicate, c.sprt = "round-robin", None, labels[:1], None, None, False
    plan, run_dir = prepare(c)
    with analysis_bots():
        bots = resolve_bots(labels, c.arena, c.game)
    players = int(plan["players"])
    tables = seatings(design, players)
    matches = []
    wd, wt = len(str(plan["deal_sets"] - 1)), len(str(len(tables) - 1))
    for vi, variant in enumerate(plan["variants"]):
        for d, seed in enumerate(plan["deal_seeds"]):
            for t, seats in enumerate(tables):
                matches.append({"id": f"v{vi}-d{d:0{wd}d}-t{t:0{wt}d}-r0", "variant": variant["id"], "deal_set": d,
                                "deal_seed": seed, "table": t, "rotation": 0, "seating": list(seats)})
    from .plan import MAX_MATCHES
    if len(matches) > MAX_MATCHES:
        raise TournamentError(f"the study has {len(matches)} matches, more than {MAX_MATCHES}")
    from .plan import _bot_json

    plan.update({"kind": "skill", "format": "round-robin", "challenger": None, "duplicate": True,
                 "design": "duplicate", "design_reason": REASON, "bots": [_bot_json(b) for b in bots],
                 "matches": matches, "skill": design.to_dict()})
    return plan, run_dir


__all__ = ["BEGINNERS", "FICTIVE", "RESTRICTED", "design_of", "prepare_study", "seatings"]
