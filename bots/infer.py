"""Worlds that agree with what greedy opponents did (vbot's ``infer=1``, issue 28).

A greedy opponent's discard is a function of its hand at that moment: the least useful card by
greedy's key (``Greedy.choose_discard``). Its last discard was made from the hand it holds now plus
that card (its plays of that turn came before the discard, and it has not moved since), on the table
as it lay then. So a world whose hand for that seat would have made greedy discard another card is
unlikely: ``Inference.refine`` reweights a sampled world seat by seat, each seat's hand and the
stock redrawn (the cards whose place is known stay) until the hand agrees, at most ``tries`` times
(a systematic sweep of a Gibbs sampler over the seats, one sweep). A hand that does not agree keeps
weight ``eps``. With ``takes`` (vbot's ``infer=2``) a seat that drew from the stock though greedy
could have taken the top discard is weighted by the share of the cards it might have drawn with
which greedy would have left it. The seat's weight also holds mc's ``plausible`` factors (an unopened seat that could
open, an opened seat that still holds a meld), since the redraw replaces the world's own rejection.
"""

from __future__ import annotations

from types import SimpleNamespace

from engine.cards import JOKER, N_IDS
from engine.determinise import _card
from engine.melds import lay_off, make_meld, take_joker
from engine.solver import best_opening

from .base import discardable, layable
from .greedy import Greedy, discard_take
from .mc import COULD_OPEN, OPENED_MELD

EPS = 0.05
TRIES = 20


class Inference:
    """What one view says about each greedy opponent's last discard, and the weighting it gives."""

    def __init__(self, view, knowledge, eps: float = EPS, tries: int = TRIES, takes: bool = False):
        self.view, self.k, self.eps, self.tries = view, knowledge, eps, tries
        self.greedy = Greedy(0)
        n, me = view.players, view.seat
        last = last_discards(view)
        self.seats = []
        for s in range(n):
            if s == me or view.declared[s] or view.hand_sizes[s] == 0:
                continue
            played = view.turn > 1 + (s - view.first) % n
            info = last.get(s)
            if info is None and not played:
                continue
            if info is not None:
                card, table, taken, turn = info
                fake_view = SimpleNamespace(rules=view.rules, marked=list(knowledge.marked[s]))
                legal = {"must_keep": [taken] if taken >= 0 else []}
                info = (card, table, fake_view, legal, turn if takes else None)
            self.seats.append((s, played, info))

    def weight(self, s: int, played: bool, info, hand) -> float:
        view, w = self.view, 1.0
        if played:
            value = best_opening(hand, keep=1)[0]
            if view.opened[s]:
                if value > 0:
                    w *= OPENED_MELD
            elif value >= view.threshold:
                w *= COULD_OPEN
        if info is not None:
            card, table, fake_view, legal, turn = info
            before = hand[:]
            before[card] += 1
            if self.discard(before, view.opened[s], table, fake_view, legal) != card:
                w *= self.eps
            elif turn is not None:
                w *= max(self.eps, self.left_top(before, turn, view.declared[s]))
        return w

    def left_top(self, before, turn, declared: bool) -> float:
        """How likely greedy was to leave the top discard for the stock at the start of that turn. Its
        hand then was ``before`` (after its plays, with the discard) with the cards it laid, less the
        freed jokers and less the card it drew from the stock, unknown: the share of the cards that
        could be that card with which greedy leaves the top (1 when it leaves it holding them all)."""
        top, laid, freed, opened, threshold = turn
        hand = before[:]
        for c in laid:
            hand[c] += 1
        hand[JOKER] -= freed
        if min(hand) < 0 or not takes_top(hand, top, opened, declared, threshold):
            return 1.0
        leaves = 0
        for x in range(N_IDS):
            if hand[x]:
                hand[x] -= 1
                if not takes_top(hand, top, opened, declared, threshold):
                    leaves += hand[x] + 1
                hand[x] += 1
        return leaves / sum(hand)

    def discard(self, hand, opened: bool, table, fake_view, legal) -> int:
        """The card greedy discards from ``hand`` after its plays (``Greedy.finish`` without the fallback)."""
        plan = SimpleNamespace(view=fake_view, legal=legal, hand=hand, table=table, opened=opened, size=sum(hand))
        cards = discardable(fake_view, legal, hand)
        if not cards:
            return -1
        return self.greedy.choose_discard(plan, cards)

    def refine(self, world, rng):
        """``world`` with each opponent's hand (and the stock) redrawn to agree with its last discard."""
        held = self.k.held
        head = 1 if world.cut_lies and world.stock else 0
        for s, played, info in self.seats:
            hand = world.hands[s]
            best_w = self.weight(s, played, info, hand)
            if best_w >= 1.0 or rng.random() < best_w:  # the world's own hand, kept as a first draw
                continue
            best = hand
            free = [c for c in range(N_IDS) for _ in range(hand[c] - held[s][c])]
            need = len(free)
            pool = free + world.stock[head:]
            for _ in range(self.tries):  # redraw until a hand is kept; else the best one seen
                rng.shuffle(pool)
                trial = held[s][:]
                for c in pool[:need]:
                    trial[c] += 1
                w = self.weight(s, played, info, trial)
                kept = rng.random() < w
                if kept or w > best_w:
                    best, best_w, best_rest = trial, w, pool[need:]
                if kept:
                    break
            if best is not hand:
                world.hands[s] = best
                world.stock = world.stock[:head] + best_rest
                world.marked[s] = [c for c in world.marked[s] if best[c] > 0]
        return world


def takes_top(hand, top: int, opened: bool, declared: bool, threshold: int) -> bool:
    """Does greedy, holding ``hand``, take ``top`` from the discard pile?"""
    return discard_take(hand, top, opened, declared, threshold) is not None


def last_discards(view) -> dict:
    """Seat -> (its last discard this round, the table as it lay then, the card it took under P1 in
    that turn or -1, and what the turn says of its draw: None, or (the top discard it left for the
    stock though it could take it, the cards it laid in that turn, the jokers it freed, whether it
    had opened before, the threshold then)), read from the view's public events."""
    table, pile, out, taken, turns = [], [], {}, {}, {}
    declared, opened = [False] * view.players, [False] * view.players
    rules = view.rules
    high, discarder, count = 0, -1, 0
    try:
        for e in view.events:
            if "to" in e:
                continue
            kind, s = e.get("e"), e.get("seat", -1)
            if kind == "draw":
                src = e["from"]
                taken[s] = _card(e["card"]) if src == "pair" else -1
                left = -1
                if src == "stock" and pile and count > 0 and not (
                        rules.pairs_discard_block and discarder >= 0 and declared[discarder] and not declared[s]) \
                        and not (rules.layable_discard_dead and layable(pile[-1], table)):
                    left = pile[-1]
                threshold = max(rules.threshold, high + 1) if rules.rising_threshold and high else rules.threshold
                turns[s] = [left, [], 0, opened[s], threshold]
                if src in ("discard", "pair") and pile:
                    pile.pop()
            elif kind == "declare":
                declared[s] = True
            elif kind == "opened":
                opened[s] = True
                if e["method"] == "melds":
                    high = max(high, e["value"])
                else:
                    declared[s] = True
            elif kind == "meld":
                cards = [_card(c) for c in e["cards"]]
                m = make_meld(e["kind"], cards, s)
                m.beside = e.get("beside", -1)
                table.append(m)
                if s in turns:
                    turns[s][1] += cards
            elif kind == "layoff":
                i, c = e["index"], _card(e["card"])
                table[i] = table[i].copy()
                lay_off(table[i], c, e.get("end"))
                if s in turns:
                    turns[s][1].append(c)
            elif kind == "joker":
                i, cards = e["index"], [_card(c) for c in e["cards"]]
                table[i] = table[i].copy()
                take_joker(table[i], cards, rules.set_joker_swap)
                if s in turns:
                    turns[s][1] += cards
                    turns[s][2] += e["freed"]
            elif kind == "discard":
                c = _card(e["card"])
                turn = turns.pop(s, None)
                out[s] = (c, list(table), taken.get(s, -1), tuple(turn) if turn is not None and turn[0] >= 0 else None)
                pile.append(c)
                discarder = s
                count += 1
    except Exception:  # a history this reader does not follow: no inference from discards
        return {}
    return out


__all__ = ["Inference", "last_discards"]
