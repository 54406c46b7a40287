"""Information hygiene: an in-process bot's View holds what the protocol would send its seat and
nothing more, so every built-in bot of every game decides the same when the other hands and the
stock (talon) are dealt again consistently with what it knows, and the hidden log entries changed.
"""

from __future__ import annotations

import copy
import random

import pytest

from bots import analysis_only, registered_bots
from engine.game import make_rules, new_match

CASES = [(game, name) for game, b in sorted(registered_bots().items()) for name in sorted(b.bots)
         if not analysis_only(name, game)]  # the clairvoyant bot sees every hand: that is what it is for
CASES.append(("ellibir", "vbot:infer=2:room=5:feed=10"))  # worlds read from the others' discards, charges for what they may hold
CASES.append(("ellibir", "vgreedy:rank=1"))  # scored by the match situation: the totals and the rounds left
SEEDS = range(12)


def rules_for(game: str, rng: random.Random):
    if game == "ellibir":
        values = {"players": rng.randint(2, 4), "joker_in_cut": rng.random() < 0.5,
                  "deal": rng.choice(["fifteen", "fourteen"]), "threshold": rng.choice([1, 51]),
                  "layable_discard_scope": rng.choice(["opened", "any"])}
        return make_rules(game, rng.choice(["standard", "tr-wiki"]), values)
    return make_rules(game, "standard", {"players": rng.randint(2, 4)})


@pytest.mark.parametrize("game,name", CASES)
def test_builtin_bots_decide_the_same_on_every_world_of_their_view(game, name):
    from bots import make_bot, reference_bot

    checked = 0
    for seed in SEEDS:
        rng = random.Random(f"{game}:{name}:{seed}")
        rules = rules_for(game, rng)
        match = new_match(game, rules, seed)
        bots = [make_bot(name, f"{seed}:{s}", game) for s in range(rules.players)]
        movers = list(bots)
        for s, bot in enumerate(bots):
            bot.start(s, rules)
            if hasattr(bot, "worlds"):  # a search bot: a short budget, no wall clock, checked where greedy leads
                bot.worlds, bot.cap = 3, None
                movers[s] = make_bot(reference_bot(game), f"{seed}:{s}", game)
                movers[s].start(s, rules)
            if hasattr(bot, "depth"):  # a bot that looks ahead over its own turns: one of them
                bot.depth, bot.top = 1, 2
            for scorer in (bot, getattr(bot, "own", None)):  # a bot that scores turns by a learned value:
                if hasattr(scorer, "draws"):  # over a few of its discards and a few sampled draws
                    scorer.discards, scorer.draws = 3, 4
        stop = rng.randint(0, 60 if game == "ellibir" else 12)
        for step in range(stop + 1):
            seat = match.to_move()
            if seat is None:
                break
            view, legal = match.observe(seat), match.legal(seat)
            if step == stop or rng.random() < 0.1:
                twin = match.resampled(seat, rng)  # hidden cards dealt again, others' log entries changed
                other = twin.observe(seat)
                assert other.to_json() == view.to_json() and other.events == view.events
                assert twin.legal(seat) == legal
                mine = copy.deepcopy(bots[seat]).decide(view, legal)
                theirs = copy.deepcopy(bots[seat]).decide(other, twin.legal(seat))
                assert str(mine) == str(theirs), f"{name} decided differently on another world of its view"
                checked += 1
            outcome = match.apply(seat, movers[seat].decide(view, legal))
            if not outcome.accepted:
                movers[seat].refused(outcome)
    assert checked >= len(SEEDS)


def test_a_view_holds_no_event_private_to_another_seat():
    rules = make_rules("ellibir", "standard", {"players": 3})
    match = new_match("ellibir", rules, 7)
    view = match.observe(1)
    assert {e.get("to", 1) for e in view.events} == {1}
    assert not any(e["e"] == "stock" for e in view.events)
    assert [e["seat"] for e in view.events if e["e"] == "hand"] == [1]
    assert not hasattr(view, "log")
