"""The mc bot (flat determinised Monte Carlo): deterministic per seed, never refused (O4) nor
penalised (O4, A5) across random variants, its heuristic's pick when the gate is shut, and playable
behind the protocol (``ellibir bot check`` on its folder)."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest
from test_properties import random_variant

from bots import make_bot
from bots.mc import MonteCarlo, best, draw_candidates, play_candidates
from engine import new_match

ROOT = Path(__file__).resolve().parent.parent


def play(rules, seed, bots, on_decision=None):
    """Play a match in process; ``on_decision(seat, view, legal, decision)`` sees each decision."""
    match = new_match("ellibir", rules, seed)
    for s, bot in enumerate(bots):
        bot.start(s, rules)
    refused = [0] * rules.players
    while not match.is_over:
        seat = match.to_move()
        view, legal = match.observe(seat), match.legal(seat)
        decision = bots[seat].decide(view, legal)
        if on_decision is not None:
            on_decision(seat, view, legal, decision)
        outcome = match.apply(seat, decision)
        if not outcome.accepted:
            refused[seat] += 1
            bots[seat].refused(outcome)
    return match, refused


def test_mc_is_deterministic_per_seed():
    rng = random.Random(8)
    for seed in range(3):
        rules = random_variant(rng).replace(rounds=1)
        logs = []
        for _ in range(2):
            bots = [MonteCarlo(seed, worlds=3, cap=None)] + [make_bot("greedy", s) for s in range(1, rules.players)]
            match, _ = play(rules, seed, bots)
            logs.append(match.events)
        assert logs[0] == logs[1]


def soak(make, rng_seed: int, matches: int) -> int:
    """One-round matches under random variants, ``make(seed)`` at one seat against greedy: never refused,
    never penalised (O4, A5). Returns the number of its decisions."""
    rng = random.Random(rng_seed)
    decisions = 0
    for seed in range(matches):
        rules = random_variant(rng).replace(rounds=1)
        seat = seed % rules.players
        bots = [make_bot("greedy", s) for s in range(rules.players)]
        bots[seat] = make(f"soak:{seed}")
        match, refused = play(rules, seed, bots)
        assert refused[seat] == 0, f"{bots[seat].name} was refused under {rules}"
        for record in match.result().rounds:
            assert record["seats"][seat]["penalties"] == {}, record["seats"][seat]
        decisions += sum(1 for e in match.events if e["e"] == "decision" and e["seat"] == seat)
    return decisions


def test_mc_is_never_refused_nor_penalised_across_random_variants_O4_A5():
    assert soak(lambda seed: MonteCarlo(seed, worlds=2, cap=None), 13, 16) > 200


@pytest.mark.parametrize("heuristic, outs", [("outs", 1), ("greedy", 0)])
def test_with_the_gate_shut_mc_plays_exactly_like_its_heuristic(heuristic, outs):
    rules = random_variant(random.Random(4)).replace(rounds=1)
    alone, _ = play(rules, 9, [make_bot(heuristic, 0)] + [make_bot("greedy", s) for s in range(1, rules.players)])
    shut, _ = play(rules, 9, [MonteCarlo(0, worlds=2, cap=None, gate=math.inf, outs=outs)]
                   + [make_bot("greedy", s) for s in range(1, rules.players)])
    assert [e for e in shut.events if e["e"] == "decision"] == [e for e in alone.events if e["e"] == "decision"]


@pytest.mark.parametrize("heuristic", ["greedy", "outs"])
def test_candidates_start_with_the_heuristics_pick(heuristic):
    rules = random_variant(random.Random(6)).replace(rounds=1)
    match = new_match("ellibir", rules, 3)
    greedy = make_bot(heuristic, 0)
    greedy.start(match.to_move(), rules)
    for _ in range(40):
        seat = match.to_move()
        if seat is None:
            break
        greedy.start(seat, rules)
        view, legal = match.observe(seat), match.legal(seat)
        pick = greedy.decide(view, legal)
        made = draw_candidates(greedy, view, legal) if view.phase == "draw" else play_candidates(greedy, view, legal)
        assert made[0] == pick and len(set(map(str, made))) == len(made)
        assert match.apply(seat, pick).accepted


def test_the_gate_keeps_the_heuristic_pick_unless_the_gain_is_clear():
    assert best([[0, 0, 0, 0], [1, -1, 1, -1]], 1.0) == 0  # no clear gain
    assert best([[0, 0, 0, 0], [5, 6, 5, 6], [9, 9, 9, -40]], 1.0) == 1
    assert best([[-math.inf, 0], [1, 1], [2, 2]], 1.0) == 2  # the heuristic pick was refused in a world


def test_worlds_come_in_doubling_batches_and_challengers_shown_worse_stop():
    """Greedy's pick is played in every world used; a challenger in a prefix of them; the worlds used
    are the first batch doubled, never beyond the budget; some searches stop early, some go on."""

    class Counting(MonteCarlo):
        def search(self, view, legal, candidates):
            self.calls = {}
            pick = super().search(view, legal, candidates)
            if len(candidates) > 1 and self.calls:
                self.used.append([self.calls.get(i, 0) for i in range(len(candidates))])
            return pick

        def rollout(self, world, decision, rng):
            index = next(i for i, c in enumerate(self.current) if c is decision)
            self.calls[index] = self.calls.get(index, 0) + 1
            return super().rollout(world, decision, rng)

        def draw(self, view, legal):
            self.current = draw_candidates(self.heuristic, view, legal)
            return Counting.search(self, view, legal, self.current)

        def play(self, view, legal):
            self.current = play_candidates(self.heuristic, view, legal)
            return Counting.search(self, view, legal, self.current)

    rules = random_variant(random.Random(5)).replace(rounds=1)
    bot = Counting(3, worlds=32, batch=4, cap=None)
    bot.used = []
    play(rules, 2, [bot] + [make_bot("greedy", s) for s in range(1, rules.players)])
    assert bot.used
    for counts in bot.used:
        assert counts[0] in (4, 8, 16, 32) and all(c <= counts[0] for c in counts[1:])
    assert {counts[0] for counts in bot.used} & {4, 8} and any(c[0] > 4 for c in bot.used)


def test_mc_counts_the_decisions_its_wall_clock_cap_cut_short():
    rules = random_variant(random.Random(2)).replace(rounds=1)
    bot = MonteCarlo(0, worlds=50, cap=0.0)
    play(rules, 1, [bot] + [make_bot("greedy", s) for s in range(1, rules.players)])
    assert bot.capped > 0


def test_the_mc_protocol_folder_passes_bot_check():
    from harness.arena.check import check_bot

    report = check_bot(ROOT / "bots" / "protocol" / "mc", matches=2, players=2, rounds=1)
    assert report.passed, report.text
    assert "0 refused" in report.text


# Bot parameters in names ------------------------------------------------------------------------


def test_a_builtin_name_carries_the_bots_parameters():
    import pytest

    from bots import UnknownBot, parse_builtin

    bot = make_bot("mc:worlds=5:gate=2.5:cap=off", 1)
    assert (bot.worlds, bot.gate, bot.cap) == (5, 2.5, None)
    assert parse_builtin("mc") == ("mc", {})
    for bad, says in [("mc:depth=3", "worlds"), ("mc:worlds=many", "whole number"), ("mc:worlds", "KEY=VALUE"),
                      ("mc:worlds=2:worlds=3", "twice"), ("mc:worlds=-1", "from 0 to 1024"), ("greedy:worlds=2", "none"),
                      ("nobody", "unknown bot")]:
        with pytest.raises(UnknownBot, match=says):
            make_bot(bad)


def test_two_budgets_are_two_bots_for_the_harness():
    import pytest

    from harness.arena.registry import ArenaError, resolve_bot
    from harness.players.base import PlayerError
    from harness.players.make import make_player, parse_player_name

    assert parse_player_name("builtin:mc:worlds=8") == ("builtin", "mc:worlds=8")
    player = make_player("builtin:mc:worlds=8", 0)
    assert player.name == "builtin:mc:worlds=8" and player.bot.worlds == 8
    labels = {resolve_bot(spec, None)["label"] for spec in ("builtin:mc", "builtin:mc:worlds=8")}
    assert len(labels) == 2
    with pytest.raises(PlayerError, match="worlds"):
        parse_player_name("builtin:mc:world=8")
    with pytest.raises(ArenaError, match="worlds"):
        resolve_bot("builtin:mc:world=8", None)


def test_einundfuenfzig_mc_is_deterministic_and_never_refused():
    from engine.game import make_rules, new_match as new_game_match

    for seed in range(4):
        rules = make_rules("einundfuenfzig", "standard", {"players": 2 + seed % 3, "rounds": 2})
        logs = []
        for _ in range(2):
            match = new_game_match("einundfuenfzig", rules, seed)
            bots = [make_bot("mc:worlds=4" if s == 0 else "cautious", f"{seed}:{s}", "einundfuenfzig")
                    for s in range(rules.players)]
            for s, bot in enumerate(bots):
                bot.start(s, rules)
            while not match.is_over:
                seat = match.to_move()
                assert match.apply(seat, bots[seat].decide(match.observe(seat), match.legal(seat))).accepted
            logs.append(match.events)
        assert logs[0] == logs[1]


def test_worlds_where_a_player_who_passed_up_an_opening_still_holds_one_are_unlikely():
    from bots.mc import COULD_OPEN, plausible
    from engine.cards import parse_card
    from engine import make_rules
    from engine.determinise import determinise

    rules = make_rules("standard", {"players": 2, "rounds": 1})
    for deal in range(20):  # a deal where neither seat opened in its first turn
        match = new_match("ellibir", rules, deal)
        bots = [make_bot("greedy", s) for s in range(2)]
        for s, bot in enumerate(bots):
            bot.start(s, rules)
        while match.round.turn < 3:  # both seats have played a turn
            seat = match.to_move()
            assert match.apply(seat, bots[seat].decide(match.observe(seat), match.legal(seat))).accepted
        seat = match.to_move()
        other = 1 - seat
        view = match.observe(seat)
        if not view.opened[other]:
            break
    assert not view.opened[other]
    weight = plausible(view)
    world = determinise(view, random.Random(1))
    hand = world.hands[other]
    size = sum(hand)
    strong = [parse_card(c) for c in ("AS", "AH", "AD", "KS", "KH", "KD", "QS", "QH", "QD")]
    filler = [parse_card(c) for c in ("2C", "5D", "9H", "3S", "7C", "JD", "4H", "6S", "8C", "10D", "2H", "5S")]
    world.hands[other] = [0] * 53
    for c in (strong + filler)[:size]:
        world.hands[other][c] += 1
    assert weight(world) == COULD_OPEN  # three sets worth 93: greedy would have opened (O1)
    world.hands[other] = [0] * 53
    for c in filler[:size] + strong[: max(0, size - len(filler))]:
        world.hands[other][c] += 1
    assert weight(world) == 1.0
