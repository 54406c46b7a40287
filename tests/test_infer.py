"""vbot's ``infer``: worlds that agree with each greedy opponent's last discard (1) and its draw in
that turn (2) (bots/infer.py). Greedy's true hands always agree, the redrawn worlds keep every card
the view places, and vbot with ``infer`` is deterministic and never refused nor penalised."""

from __future__ import annotations

import random
from collections import Counter

from test_mc import play, soak
from test_properties import random_variant

from bots import make_bot
from bots.infer import Inference
from bots.vbot import VBot
from engine import new_match
from engine.determinise import determinise, read_view


def greedy_match(rules, seed, on_view):
    """A match of greedy bots; ``on_view(match, view)`` sees seat 0's every play view."""
    match = new_match("ellibir", rules, seed)
    bots = [make_bot("greedy", s) for s in range(rules.players)]
    for s, bot in enumerate(bots):
        bot.start(s, rules)
    while not match.is_over:
        seat = match.to_move()
        view, legal = match.observe(seat), match.legal(seat)
        if seat == 0 and view.phase == "play":
            on_view(match, view)
        match.apply(seat, bots[seat].decide(view, legal))


def test_greedys_true_hands_agree_with_its_last_discard_and_random_ones_often_do_not():
    rng = random.Random(5)
    agree = checked = random_agree = random_checked = 0
    true_draw, random_draw = [], []
    for seed in range(12):
        rules = random_variant(rng).replace(rounds=1)

        def on_view(match, view):
            nonlocal agree, checked, random_agree, random_checked
            k = read_view(view)
            inference, draws = Inference(view, k), Inference(view, k, takes=True)
            draw = random.Random(seed)
            for (s, _played, info), (_s, _p, with_draw) in zip(inference.seats, draws.seats):
                if info is None:
                    continue
                checked += 1
                agree += inference.weight(s, False, info, match.round.hands[s]) == 1.0
                true_draw.append(draws.weight(s, False, with_draw, match.round.hands[s]))
                for _ in range(5):
                    world = determinise(view, draw, knowledge=k)
                    random_checked += 1
                    random_agree += inference.weight(s, False, info, world.hands[s]) == 1.0
                    random_draw.append(draws.weight(s, False, with_draw, world.hands[s]))

        greedy_match(rules, seed, on_view)
    assert checked > 100 and agree == checked
    assert random_agree < 0.6 * random_checked
    # the draw's share: the true hand is never ruled out by its discard, and it is more likely than a random one
    assert min(true_draw) > 0.05 and sum(true_draw) / len(true_draw) > 0.9
    assert sum(true_draw) / len(true_draw) > sum(random_draw) / len(random_draw) + 0.3


def test_refined_worlds_keep_what_the_view_places():
    rng = random.Random(6)
    for seed in range(6):
        rules = random_variant(rng).replace(rounds=1)

        def on_view(match, view):
            k = read_view(view)
            inference = Inference(view, k)
            draw = random.Random(seed)
            for _ in range(3):
                world = inference.refine(determinise(view, draw, knowledge=k), draw)
                assert world.hands[view.seat] == view.hand
                assert [sum(h) for h in world.hands] == view.hand_sizes
                assert len(world.stock) == view.stock_size
                if view.cut >= 0:
                    assert world.stock[0] == view.cut
                for s in range(view.players):
                    assert all(world.hands[s][c] >= k.held[s][c] for c in range(len(k.held[s])))
                cards = Counter(c for h in world.hands for c in range(len(h)) for _ in range(h[c]))
                cards.update(world.stock)
                cards.update(world.discards)
                cards.update(c for m in world.table for c in m.cards)
                assert max(cards.values()) <= 2

        greedy_match(rules, seed, on_view)


def seed_level(seed: str) -> int:
    return 1 + int(seed.rsplit(":", 1)[1]) % 2  # soak's seeds are "soak:N": infer=1 and 2 in turn


def test_vbot_with_infer_is_deterministic_and_never_refused_nor_penalised_O4_A5():
    rules = random_variant(random.Random(8)).replace(rounds=1)
    logs = []
    for _ in range(2):
        bots = [VBot(1, worlds=3, cap=None, infer=2)] + [make_bot("greedy", s) for s in range(1, rules.players)]
        match, _ = play(rules, 1, bots)
        logs.append(match.events)
    assert logs[0] == logs[1]
    assert soak(lambda seed: VBot(seed, worlds=2, cap=None, infer=seed_level(seed)), 29, 8) > 80
    assert make_bot("vbot:infer=1:eps=0.1", 1).infer == 1 and make_bot("vbot", 1).infer == 0
