"""Engine speed under random play, against a trivial draw/discard loop timed in the same run."""

from __future__ import annotations

import random
import time

from engine.cards import full_deck
from engine.deal import deal_from_seed
from engine.decisions import STOCK, Turn
from engine.ellibir import Round
from engine.rules import Rules


def _discard_choice(rng: random.Random, hand: list) -> int:
    while True:
        c = rng.randrange(53)
        if hand[c]:
            return c


def engine_actions(seconds: float = 2.0, seed: int = 1) -> float:
    """Engine actions/s: each round is dealt, then drawn and discarded until the stock runs out."""
    rules = Rules()
    rng = random.Random(seed)
    actions, index = 0, 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        rnd = Round(rules, deal_from_seed(rules, seed, index, index % 4), index)
        index += 1
        apply = rnd.apply
        while not rnd.over:
            seat = rnd.seat
            if rnd.phase == "draw":
                apply(seat, STOCK)
            else:
                apply(seat, Turn((), _discard_choice(rng, rnd.hands[seat])))
            actions += 1
    return actions / (time.perf_counter() - start)


def trivial_actions(seconds: float = 2.0, seed: int = 1) -> float:
    """The ceiling: a bare loop that deals, draws and discards with plain lists and no rules."""
    rng = random.Random(seed)
    actions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        deck = full_deck()
        rng.shuffle(deck)
        hands = [[0] * 53 for _ in range(4)]
        for i in range(57):
            hands[i % 4][deck.pop()] += 1
        pile = []
        seat, drawing = 0, False
        while True:
            hand = hands[seat]
            if drawing:
                if not deck:
                    break
                hand[deck.pop()] += 1
                drawing = False
            else:
                c = _discard_choice(rng, hand)
                hand[c] -= 1
                pile.append(c)
                seat = (seat + 1) % 4
                drawing = True
            actions += 1
    return actions / (time.perf_counter() - start)
