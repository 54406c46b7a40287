"""The bots that use the learned value V: vgreedy (V's expectation over the next draw) and vbot
(rollouts that end in V). Each plays V's best candidate (or, for vbot, vgreedy's pick unless the gate
opens), is deterministic per seed, is never refused nor penalised (O4, A5) across random variants,
and plays behind the protocol (``ellibir bot check`` on its folder). That they read only their view
is checked for every built-in bot in tests/test_view_hygiene.py."""

from __future__ import annotations

import math
import random
from pathlib import Path

from test_mc import play, soak
from test_properties import random_variant

from bots import make_bot
from bots.value.score import Scorer
from bots.vbot import VBot, margin
from bots.vgreedy import VGreedy, play_options
from engine import make_rules, new_match
from engine.cards import JOKER
from engine.decisions import Turn
from engine.scoring import round_scores

ROOT = Path(__file__).resolve().parent.parent


def others(rules, seat: int) -> list:
    bots = [make_bot("greedy", s) for s in range(rules.players)]
    bots[seat] = None
    return bots


def test_vgreedy_plays_the_candidate_v_scores_best():
    rng = random.Random(3)
    checked = left_greedy = 0
    for seed in range(6):
        rules = random_variant(rng).replace(rounds=1)
        bot = VGreedy(seed)
        bots = others(rules, 0)
        bots[0] = bot

        def check(seat, view, legal, decision):
            nonlocal checked, left_greedy
            if seat != 0 or view.phase != "play":
                return
            options = play_options(bot.greedy, view, legal, bot.discards, bot.wait)
            if len(options) < 2:
                return
            scorer = Scorer(bot.value, view)
            scores = [o.score(scorer) for o in options]
            assert str(decision) == str(options[scores.index(max(scores))].turn())
            checked += 1
            left_greedy += str(decision) != str(options[0].turn())

        play(rules, seed, bots, check)
    assert checked > 20 and left_greedy > 0


def test_vgreedy_and_vbot_are_deterministic_per_seed():
    rng = random.Random(8)
    for seed in range(2):
        rules = random_variant(rng).replace(rounds=1)
        for make in (lambda: VGreedy(seed), lambda: VGreedy(seed, rank=1), lambda: VBot(seed, worlds=3, cap=None)):
            logs = []
            for _ in range(2):
                bots = others(rules, 0)
                bots[0] = make()
                match, _ = play(rules, seed, bots)
                logs.append(match.events)
            assert logs[0] == logs[1]


def test_vgreedy_is_never_refused_nor_penalised_across_random_variants_O4_A5():
    assert soak(lambda seed: make_bot("vgreedy", seed), 19, 16) > 200


def test_vbot_is_never_refused_nor_penalised_across_random_variants_O4_A5():
    assert soak(lambda seed: VBot(seed, worlds=2, cap=None), 23, 10) > 100


def test_with_the_gate_shut_vbot_plays_exactly_like_vgreedy():
    rules = random_variant(random.Random(4)).replace(rounds=1)
    alone = others(rules, 0)
    alone[0] = VGreedy(0, hold=1)  # vbot's own vgreedy: the held plans on, as vbot's default
    shut = others(rules, 0)
    shut[0] = VBot(0, worlds=2, cap=None, gate=math.inf)
    a, _ = play(rules, 9, alone)
    b, _ = play(rules, 9, shut)
    assert [e for e in a.events if e["e"] == "decision"] == [e for e in b.events if e["e"] == "decision"]


def test_going_out_is_valued_at_the_rounds_margin_S1_S2_S4():
    """All others unopened: they pay 100 each (S4), doubled when the last discard is a joker (G3, S2),
    and again when the winner opened this turn (G2); the winner -100 (S1)."""
    rules = make_rules("standard", {"players": 3, "rounds": 1})
    match = new_match("ellibir", rules, 1)
    seat = match.to_move()
    view = match.observe(seat)
    scorer = Scorer(VGreedy(0).value, view)
    for opened_before, last, mult in [(True, 0, 1), (True, JOKER, 2), (False, 0, 2), (False, JOKER, 4)]:
        scores = round_scores(seat, [s == seat for s in range(3)], [False] * 3, [0, 0, 0], [0] * 3, [False] * 3, mult)
        assert scorer.going_out(opened_before, last) == margin(scores, seat)


def test_vbot_searches_only_among_vgreedys_best_candidates():
    """Every turn vbot plays is one of its ``top`` best-scored candidates, the first when only one is kept."""
    rules = make_rules("standard", {"players": 4, "rounds": 1})
    for top in (1, 2):
        bot = VBot(2, worlds=4, top=top, cap=None, gate=0.0)
        bots = others(rules, 1)
        bots[1] = bot
        seen = []

        def check(seat, view, legal, decision):
            if seat != 1 or not isinstance(decision, Turn):
                return
            options = bot.own.options(view, legal)
            scorer = Scorer(bot.value, view)
            scores = [o.score(scorer) for o in options]
            ranked = sorted(range(len(options)), key=lambda i: -scores[i])[:top]
            assert str(decision) in {str(options[i].turn()) for i in ranked}
            seen.append(str(decision) == str(options[ranked[0]].turn()))

        play(rules, 5, bots, check)
        assert seen and (top > 1 or all(seen))


def test_the_value_bots_take_their_parameters_in_their_names():
    bot = make_bot("vbot:worlds=5:depth=2:top=4:gate=1.5:cap=off", 1)
    assert (bot.worlds, bot.depth, bot.top, bot.gate, bot.cap) == (5, 2, 4, 1.5, None)
    assert make_bot("vgreedy:discards=3:wait=0", 1).discards == 3


def test_vbots_own_later_turns_in_its_rollouts_take_fhold_fwait_fdisc():
    rules = make_rules("standard", {"players": 4})
    for name, expected in (("vbot", ({"least": 0, "joker": 0, "hold": 0}, 0, 3)),
                           ("vbot:fhold=1:fwait=1:fdisc=7", ({"least": 0, "joker": 0, "hold": 1}, 1, 7))):
        bot = make_bot(name, 1)
        bot.start(2, rules)
        future = bot.policies[2]
        assert isinstance(future, VGreedy) and (future.plans, future.wait, future.discards) == expected
        assert future.value is bot.value and bot.own.plans["hold"] == 1  # its own pick keeps hold either way


def test_the_vgreedy_protocol_folder_passes_bot_check():
    from harness.arena.check import check_bot

    report = check_bot(ROOT / "bots" / "protocol" / "vgreedy", matches=2, players=2, rounds=1)
    assert report.passed, report.text
    assert "0 refused" in report.text


def test_the_vbot_protocol_folder_passes_bot_check():
    from harness.arena.check import check_bot

    report = check_bot(ROOT / "bots" / "protocol" / "vbot", matches=2, players=2, rounds=1)
    assert report.passed, report.text
    assert "0 refused" in report.text
