"""Issue 28's plans greedy never plays, as vgreedy's and vbot's extra candidates (``least``, ``joker``,
``hold``; bots/candidates.py ``plan_options``): each candidate is a turn the engine accepts without a
penalty (O4, A5), the smallest openings still reach the threshold (O1), a joker kept back stays in
hand, nothing lays down the last card (T4), and the bots stay deterministic per seed."""

from __future__ import annotations

import copy
import random

from test_mc import play
from test_properties import random_variant

from bots import make_bot
from bots.candidates import least_openings, plan_options, play_options
from bots.plan import Plan
from bots.vbot import VBot
from bots.vgreedy import VGreedy
from engine import make_rules, new_match
from engine.cards import JOKER, parse_card
from engine.deal import deal_from_json
from engine.melds import make_meld
from engine.solver import layable_cards

ALL = {"least": 1, "joker": 1, "hold": 1}


def greedy_table(rules) -> list:
    return [make_bot("greedy", s) for s in range(rules.players)]


def test_every_plan_candidate_is_accepted_without_a_penalty_O4_A5():
    """Every extra candidate at every play decision of greedy's matches, applied to a copy of the match:
    accepted, no O4 or A5 penalty, and never laying down the last card (T4)."""
    rng = random.Random(11)
    tried = {"open": 0, "opened": 0}
    for seed in range(4):
        rules = random_variant(rng).replace(rounds=1) if seed % 2 else make_rules("standard", {"players": 4, "rounds": 1})
        match = new_match("ellibir", rules, 40 + seed)
        bots = greedy_table(rules)
        for s, bot in enumerate(bots):
            bot.start(s, rules)
        while not match.is_over:
            seat = match.to_move()
            view, legal = match.observe(seat), match.legal(seat)
            if legal.get("phase") == "play":
                for option in plan_options(bots[seat], view, legal, 10, **ALL):
                    assert sum(option.plan.hand) >= 1  # T4: a card is left to discard
                    trial = copy.deepcopy(match)
                    before = len(trial.events)
                    outcome = trial.apply(seat, option.turn())
                    assert outcome.accepted, (str(option.turn()), str(outcome))
                    assert not [e for e in trial.events[before:] if e["e"] == "penalty"], str(option.turn())
                    tried["opened" if option.opened_before else "open"] += 1
            outcome = match.apply(seat, bots[seat].decide(view, legal))
            assert outcome.accepted
    assert tried["open"] > 5 and tried["opened"] > 50, tried


def test_the_smallest_openings_reach_the_threshold_and_drop_nothing_they_need_O1():
    """K-set 30, a 9-10-J run 29, a 5-set 15: 51 is reached by K + run alone; 60 needs all three (O1)."""
    cards = lambda text: tuple(parse_card(t) for t in text.split())
    melds = [("set", cards("KC KD KH")), ("run", cards("9S 10S JS")), ("set", cards("5C 5D 5H"))]
    assert least_openings(melds, 51) == [[melds[0], melds[1]]]
    assert least_openings(melds, 60) == []  # only the whole list: greedy's own opening
    for subset in least_openings(melds + [("run", cards("QH KH AH"))], 51):
        values = [make_meld(k, cs).value for k, cs in subset]
        assert sum(values) >= 51 and all(sum(values) - v < 51 for v in values)


def test_the_joker_and_least_plans_open_legally_and_keep_cards_back_O1_M4():
    """A hand that opens with its natural cards alone: the joker plan's opening holds no joker (O1), and
    the joker stays in hand for later (M4); the smallest openings lay down fewer cards than greedy's and
    still reach 51 (O1); the engine accepts each without a penalty."""
    rules = make_rules("standard", {"players": 2, "rounds": 1})
    hand = "KC KD KH 9S 10S JS 5C 5D 5H 2D 7C JK 8H 3S 4D"
    match = new_match("ellibir", rules, 3, deals=[deal_from_json(_deal(hand), rules)])
    seat = match.to_move()
    view, legal = match.observe(seat), match.legal(seat)
    greedy = make_bot("greedy", 0)
    greedy.start(seat, rules)
    options = plan_options(greedy, view, legal, 10, joker=1)
    assert options
    for option in options:
        opening = option.plan.plays[0]
        assert opening.kind == "open" and all(JOKER not in cs for _k, cs in opening.melds)
        assert option.plan.hand[JOKER] == 1 and option.card != JOKER
        trial = copy.deepcopy(match)
        assert trial.apply(seat, option.turn()).accepted
    greedy_opening = greedy.play(view, legal).plays[0]
    least = plan_options(greedy, view, legal, 10, least=1)
    assert least
    for option in least:
        opening = option.plan.plays[0]
        assert len(option.plan.plays) == 1 and opening.kind == "open"
        assert sum(make_meld(k, cs).value for k, cs in opening.melds) >= 51
        assert sum(map(len, (cs for _k, cs in opening.melds))) < sum(map(len, (cs for _k, cs in greedy_opening.melds)))
        trial = copy.deepcopy(match)
        before = len(trial.events)
        assert trial.apply(seat, option.turn()).accepted
        assert not [e for e in trial.events[before:] if e["e"] == "penalty"]


def test_held_plans_never_discard_a_card_that_could_be_laid_off_A5():
    """A held-back card that fits the table is never the discard of a held plan (A5 would cost 50)."""
    rng = random.Random(2)
    checked = 0
    for seed in range(3):
        rules = make_rules("standard", {"players": 3, "rounds": 1})
        bots = greedy_table(rules)

        def check(seat, view, legal, decision):
            nonlocal checked
            if legal.get("phase") != "play" or not legal["opened"]:
                return
            for option in plan_options(bots[seat], view, legal, 10, hold=1):
                hand = option.plan.hand
                if sum(hand) > 1:
                    assert option.card not in layable_cards(hand, option.plan.table)
                    checked += 1

        play(rules, seed + rng.randint(0, 99), bots, check)
    assert checked > 20


def test_with_the_plans_on_the_value_bots_are_deterministic_per_seed():
    rules = make_rules("standard", {"players": 3, "rounds": 1})
    for make in (lambda: VGreedy(1, **ALL), lambda: VBot(1, worlds=1, top=2, cap=None, **ALL)):
        logs = []
        for _ in range(2):
            bots = greedy_table(rules)
            bots[1] = make()
            match, refused = play(rules, 6, bots)
            assert refused[1] == 0
            logs.append(match.events)
        assert logs[0] == logs[1]


def test_the_plans_are_named_in_the_bots_names_and_only_vbots_hold_is_on_by_default():
    assert VGreedy(0).plans == {"least": 0, "joker": 0, "hold": 0}
    assert make_bot("vgreedy:least=1:joker=1:hold=1", 1).plans == ALL
    assert make_bot("vbot", 1).own.plans == {"least": 0, "joker": 0, "hold": 1}
    assert make_bot("vbot:hold=0:joker=1", 1).own.plans == {"least": 0, "joker": 1, "hold": 0}
    future = make_bot("vbot", 1)
    future.start(0, make_rules("standard", {"players": 4, "rounds": 1}))
    assert future.policies[0].plans == {"least": 0, "joker": 0, "hold": 0}  # its rollouts' own turns


def test_with_a_plan_on_vgreedy_plays_the_candidate_v_scores_best():
    """The plans only add candidates: greedy's are all still there, first, and V picks among all."""
    rules = make_rules("standard", {"players": 4, "rounds": 1})
    bot = VGreedy(4, hold=1)
    bots = greedy_table(rules)
    bots[0] = bot
    from bots.value.score import Scorer

    added = 0

    def check(seat, view, legal, decision):
        nonlocal added
        if seat != 0 or view.phase != "play":
            return
        base = [str(o.turn()) for o in play_options(bot.greedy, view, legal, bot.discards, bot.wait)]
        options = bot.options(view, legal)
        assert [str(o.turn()) for o in options[:len(base)]] == base
        added += len(options) - len(base)
        if len(options) > 1:
            scorer = Scorer(bot.value, view)
            scores = [o.score(scorer) for o in options]
            assert str(decision) == str(options[scores.index(max(scores))].turn())

    play(rules, 3, bots, check)
    assert added > 0


def _deal(first_hand: str) -> dict:
    """A two-player deal (D3's deal file form) whose first player holds ``first_hand``."""
    from engine.cards import N_IDS, card_str

    mine = first_hand.split()
    pool = [card_str(c) for c in range(N_IDS - 1) for _ in range(2)] + ["JK", "JK"]
    for c in mine:
        pool.remove(c)
    rng = random.Random(0)
    rng.shuffle(pool)
    return {"dealer": 1, "hands": [mine, pool[:14]], "stock": pool[14:]}
