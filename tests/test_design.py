"""The design follows the question (harness/runs/design.py, harness/runs/plan.py): the default by kind of run,
the override, the "common" design of a sweep, and the plan line with a pilot's estimate on a real run."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest

from cli_runs import in_process

from engine.game import make_rules
from harness.runs import plan as planning
from harness.runs.design import choose, has_copies, plan_line
from harness.runs.estimate import Estimate, estimate_line


@pytest.mark.parametrize("kind, form, players, bots, given, design, says", [
    ("sweep", "round-robin", 4, 2, None, "common", "rules sweep"),
    ("tournament", "gauntlet", 2, 2, None, "duplicate", "1.7-2.2x fewer matches"),
    ("tournament", "round-robin", 2, 5, None, "duplicate", "head to head"),
    ("tournament", "round-robin", 4, 3, None, "independent", "copies of a bot"),
    ("tournament", "gauntlet", 4, 2, None, "duplicate", "0.24-0.30x"),
    ("tournament", "gauntlet", 3, 2, None, "duplicate", "every seat"),
    ("tournament", "gauntlet", 4, 3, None, "independent", "copies of a bot"),
    ("tournament", "round-robin", 4, 5, None, "duplicate", "every hand from every seat"),
    ("sweep", "round-robin", 4, 2, True, "duplicate", "--duplicate"),
    ("tournament", "gauntlet", 2, 2, False, "independent", "--no-duplicate"),
])
def test_the_default_design_follows_the_question_and_can_be_overridden(kind, form, players, bots, given, design, says):
    got, reason = choose(kind, form, players, bots, given)
    assert got == design and says in reason


def test_copies_at_a_table():
    assert has_copies("round-robin", 3, 4) and not has_copies("round-robin", 4, 4)
    assert has_copies("gauntlet", 3, 4) and not has_copies("gauntlet", 4, 4) and not has_copies("gauntlet", 2, 2)


def _bots(*names):
    return [{"label": f"builtin:{n}", "kind": "builtin", "name": n} for n in names]


def _variants(*thresholds):
    return [{"id": f"t{t}", "fields": {"threshold": t}, "rules": make_rules("ellibir", "standard", {"threshold": t})}
            for t in thresholds]


def test_the_common_design_plays_one_drawn_rotation_per_deal_set_the_same_for_every_variant():
    plan = planning.make_plan(name="s", seed=7, form="round-robin", bots=_bots("greedy", "pairs", "random"),
                              players=4, deal_sets=20, variants=_variants(51, 71), kind="sweep", design="common",
                              design_reason="why")
    assert plan["design"] == "common" and plan["duplicate"] is False and plan["design_reason"] == "why"
    assert len(plan["matches"]) == 2 * 20 * 3  # each table once per deal set and variant
    by_variant = {}
    for m in plan["matches"]:
        by_variant.setdefault(m["variant"], []).append((m["deal_set"], m["table"], m["rotation"], m["deal_seed"],
                                                        tuple(m["seating"])))
        assert m["deal_seed"] == plan["deal_seeds"][m["deal_set"]]
    assert by_variant["t51"] == by_variant["t71"]  # the same deals and seats for both variants
    rotations = Counter(r for _, _, r, _, _ in by_variant["t51"])
    assert len(rotations) == 4  # drawn, not always the same
    again = planning.make_plan(name="s", seed=7, form="round-robin", bots=_bots("greedy", "pairs", "random"),
                               players=4, deal_sets=20, variants=_variants(51, 71), kind="sweep", design="common")
    assert again["matches"] == plan["matches"]
    other = planning.make_plan(name="s", seed=8, form="round-robin", bots=_bots("greedy", "pairs", "random"),
                               players=4, deal_sets=20, variants=_variants(51, 71), kind="sweep", design="common")
    assert [m["rotation"] for m in other["matches"]] != [m["rotation"] for m in plan["matches"]]
    old = planning.make_plan(name="s", seed=7, form="round-robin", bots=_bots("greedy", "pairs", "random"),
                             players=4, deal_sets=2, variants=_variants(51), duplicate=True)
    assert "design" not in old and old["duplicate"] is True and len(old["matches"]) == 2 * 12
    with pytest.raises(planning.PlanError, match="unknown design"):
        planning.make_plan(name="s", seed=7, form="round-robin", bots=_bots("greedy", "pairs"), players=2,
                           deal_sets=2, variants=_variants(51), design="shuffled")


def test_plan_and_estimate_lines():
    plan = planning.make_plan(name="s", seed=7, form="round-robin", bots=_bots("greedy", "pairs", "random"),
                              players=4, deal_sets=5, variants=_variants(51, 71), kind="sweep", design="common",
                              design_reason="a reason")
    assert plan_line(plan) == ("plan: 30 matches (2 variants x 5 deal sets x 3 per deal set); design: the same deals "
                               "for every variant, one seat rotation per deal set drawn at random (a reason)")
    pilot = Estimate(2)
    for task in ([0.9, 0.5], [0.7, 0.5]):  # each task's first match is 0.3 s longer
        pilot.add(task, "the pilot")
    assert estimate_line(pilot, 300, 8) == (
        "estimate: about 76 s for 300 matches on 2 workers (a pilot of 4 matches on fresh deals on the workers: "
        "0.50 s a match (+0.30 s for a task's first); the progress bar estimates again from the run's own matches)")
    assert "about 10 min" in estimate_line(pilot, 2400, 1) and "at least 2.8 h" in estimate_line(pilot, 40000, 1,
                                                                                                  whole=False)


def test_a_real_sweep_says_its_design_and_its_estimate_before_playing(tmp_path):
    out = tmp_path / "sweep"
    done = in_process("sweep", "--executor", "local", "--vary", "threshold=51,71", "--bot", "builtin:greedy", "--bot", "builtin:pairs", "--players", 4,
                      "--deal-sets", 2, "--rounds", 1, "--seed", 3, "--workers", 1, "--out", out)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    (said,) = [ln for ln in lines if ln.startswith("plan: ")]
    assert said.startswith("plan: 12 matches (2 variants x 2 deal sets x 3 per deal set); design: the same deals")
    (estimate,) = [ln for ln in lines if ln.startswith("estimate: ")]
    assert re.search(r"for 12 matches on 1 worker \(a pilot of \d+ matches on fresh deals", estimate)
    (precision,) = [ln for ln in lines if ln.startswith("precision: ")]
    assert precision.startswith("precision: ±") and "variant against variant with 2 deal sets" in precision
    plan = json.loads((out / "run.json").read_text())
    assert plan["design"] == "common" and len(plan["matches"]) == 12
    quiet = in_process("tournament", "run", "--executor", "local", "--bot", "builtin:greedy", "--bot", "builtin:pairs", "--players", 2,
                       "--deal-sets", 1, "--rounds", 1, "--workers", 1, "--out", tmp_path / "duel", "--quiet")
    assert quiet.returncode == 0, quiet.stderr
    assert "design: duplicate deals, every seat rotation (two players head to head" in quiet.stderr
    assert "estimate:" not in quiet.stderr  # quiet: no pilot
    assert "precision: none" in quiet.stderr and "none between greedy and pairs (2 matches a deal set)" in quiet.stderr
