"""The outs bot: among greedy's first discards it keeps the hand with the most unseen cards that
would let it open (O1) or go out (G1) on the next draw; never refused nor penalised (O4, A5) across
random variants; playable behind the protocol (``ellibir bot check`` on its folder)."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

from test_mc import play, soak
from test_properties import random_variant

from bots import make_bot
from bots.greedy import Greedy
from bots.outs import Outs, cheap_order, outs
from bots.plan import Plan
from engine.decisions import Turn
from engine.determinise import read_view

ROOT = Path(__file__).resolve().parent.parent


def test_outs_keeps_the_hand_with_the_most_outs_O1_G1():
    """At each of its discards the pick is among greedy's first six and has the most outs of them;
    over the soak it leaves greedy's pick for a better one often (so the look-ahead is doing work)."""
    rng = random.Random(21)
    checked, left_greedy = 0, 0
    for seed in range(12):
        rules = random_variant(rng).replace(rounds=1, rising_threshold=False)
        seat = seed % rules.players
        bot, shadow = Outs(seed), Greedy(seed)
        bots = [make_bot("greedy", s) for s in range(rules.players)]
        bots[seat] = bot
        shadow.start(seat, rules)

        def check(s, view, legal, decision):
            nonlocal checked, left_greedy
            if s != seat or not isinstance(decision, Turn) or legal.get("phase") != "play":
                return
            plan = Plan(view, legal)
            if plan.opened or bot.open(plan):
                bot.after_open(plan)
            if plan.size <= 2 or plan.hand[decision.discard] == 0:
                return
            order = cheap_order(bot, plan, [c for c in range(len(plan.hand)) if plan.hand[c]])[:6]
            if len(order) < 2 or decision.discard not in order:
                return
            unseen = Counter(read_view(view).unknown)
            counts = {c: outs(plan, c, unseen) for c in order}
            assert counts[decision.discard] == max(counts.values())
            checked += 1
            left_greedy += decision.discard != order[0]

        _, refused = play(rules, seed, bots, check)
    assert checked > 60
    assert left_greedy > 5


def test_outs_is_never_refused_nor_penalised_across_random_variants_O4_A5():
    assert soak(lambda seed: make_bot("outs", seed), 17, 24) > 300


def test_outs_takes_its_parameter_in_its_name():
    assert make_bot("outs:discards=10", 0).discards == 10


def test_the_outs_protocol_folder_passes_bot_check():
    from harness.arena.check import check_bot

    report = check_bot(ROOT / "bots" / "protocol" / "outs", matches=2, players=2, rounds=1)
    assert report.passed, report.text
