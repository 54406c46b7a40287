"""The built-in bots play every variant without being refused (O4), and the harness keeps matches going."""

from __future__ import annotations

import random
from collections import Counter

from bots import builtin_bots, make_bot
from bots.base import Bot
from bots.pairs import count_pairs
from engine import make_rules, new_match
from engine.cards import JOKER, card_str, counts_of, full_deck, parse_cards
from engine.deal import deals_from_json
from engine.decisions import Turn
from harness.match.run import run_match
from harness.players.base import InProcessPlayer
from harness.players.make import make_player

CHOICES = {
    "deal": ["fifteen", "fourteen"],
    "joker_in_cut": [True, False],
    "direction": ["anticlockwise", "clockwise"],
    "exhausted": ["void", "score"],
    "threshold": [51, 71, 101],
    "rising_threshold": [True, False],
    "star_bonus": [True, False],
    "set_joker_swap": ["one", "all"],
    "joker_take_from": ["any", "others"],
    "pairs_layoff": [True, False],
    "layable_discard_scope": ["opened", "any"],
    "layable_discard_dead": [True, False],
    "pairs_discard_block": [True, False],
    "pairs_openings": [[[5, 0], [4, 1]], [[4, 1], [5, 1], [6, 0], [7, 0]], [[3, 0]], [[2, 1]]],
}


def random_rules(rng: random.Random, players: int):
    """A random variant: either preset, any fields overridden, partners when four play (X2)."""
    overrides = {"players": players, "rounds": 2, "max_void_rounds": 3}
    if players == 4 and rng.random() < 0.3:
        overrides["partners"] = True
    for name, values in CHOICES.items():
        if rng.random() < 0.4:
            overrides[name] = rng.choice(values)
    return make_rules(rng.choice(["standard", "tr-wiki"]), overrides)


def play(names, rules, seed):
    """One match through the harness; returns (result, refusals by bot name, faults, decisions)."""
    refusals, seats = Counter(), list(names)
    decisions = Counter()

    def count(e):
        if e["e"] == "refused":
            refusals[seats[e["seat"]]] += 1
        elif e["e"] == "decision":
            decisions[seats[e["seat"]]] += 1

    players = [make_player(f"builtin:{n}", f"{seed}:{i}") for i, n in enumerate(names)]
    result, _events, faults = run_match("ellibir", rules, seed, players, on_event=count)
    return result, refusals, faults, decisions


def play_many(pool, matches: int, seed: int):
    rng = random.Random(seed)
    refusals, decisions, faults, rounds = Counter(), Counter(), [], 0
    for k in range(matches):
        n = rng.randint(2, 4)
        names = [rng.choice(pool) for _ in range(n)]
        result, r, f, d = play(names, random_rules(rng, n), k)
        assert result.reason in ("complete", "void_rounds")
        refusals += r
        decisions += d
        faults += f
        rounds += len(result.rounds)
    return refusals, decisions, faults, rounds


def test_random_bot_is_never_refused_under_any_variant_O4():
    refusals, decisions, faults, rounds = play_many(["random"], 60, seed=1)
    print(f"\nrandom: {rounds} rounds, {decisions['random']} decisions, {refusals['random']} refusals")
    assert refusals["random"] == 0 and not faults


def test_greedy_and_pairs_are_rarely_refused_under_any_variant_O4():
    refusals, decisions, faults, rounds = play_many(["random", "greedy", "pairs"], 120, seed=2)
    print(f"\n{rounds} rounds; refusals {dict(refusals)} of decisions {dict(decisions)}")
    assert refusals["random"] == 0
    for name in ("greedy", "pairs"):
        assert decisions[name] > 1000
        assert refusals[name] <= decisions[name] // 1000
    assert not faults


def test_greedy_wins_most_rounds_against_three_random_bots():
    rules = make_rules("standard", {"players": 4, "rounds": 1, "max_void_rounds": 1})
    out = scored = won_scored = 0
    deals = 200
    for seed in range(deals):
        record = play(["greedy", "random", "random", "random"], rules, seed)[0].rounds[0]
        out += record["winner"] == 0
        if not record["void"]:
            scored += 1
            won_scored += record["winner"] == 0
    print(f"\ngreedy vs 3 random, {deals} deals: greedy went out in {out} ({out / deals:.0%}); "
          f"{scored} rounds scored, greedy won {won_scored}; the others went out in none; "
          f"{deals - scored} rounds void (T5: stock exhausted)")
    assert won_scored == scored == out
    assert out >= deals // 5


def test_greedy_scores_best_in_most_rounds_when_exhausted_rounds_count_T5():
    rules = make_rules("standard", {"players": 4, "rounds": 1, "max_void_rounds": 1, "exhausted": "score"})
    best = 0
    deals = 100
    for seed in range(deals):
        scores = [s["score"] for s in play(["greedy", "random", "random", "random"], rules, seed)[0].rounds[0]["seats"]]
        best += scores[0] < min(scores[1:])
    print(f"\ngreedy vs 3 random under exhausted=score: lowest round score in {best} of {deals} deals")
    assert best > deals // 2


def pairs_deal(hand_text: str) -> dict:
    """A two-player deal: seat 1 (first to play, 15 cards) holds ``hand_text`` and single cards."""
    hand = parse_cards(hand_text)
    deck = full_deck()
    for c in hand:
        deck.remove(c)
    filler = [c for c in sorted(set(deck)) if c not in hand and c != JOKER][: 15 - len(hand)]
    for c in filler:
        deck.remove(c)
    return {"dealer": 0, "hands": [names(deck[:14]), names(hand + filler)], "stock": names(deck[14:])}


def names(cards) -> list:
    return [card_str(c) for c in cards]


def first_decision(hand_text: str):
    rules = make_rules("standard", {"players": 2})
    match = new_match("ellibir", rules, 0, deals_from_json(pairs_deal(hand_text), rules))
    bot = make_bot("pairs", 0)
    bot.start(1, rules)
    assert match.to_move() == 1
    decision = bot.decide(match.observe(1), match.legal(1))
    assert match.apply(1, decision).accepted
    return match.observe(1), decision


def test_pairs_bot_declares_when_dealt_three_pairs_P1():
    view, decision = first_decision("2C 2C 7H 7H QS QS")
    assert count_pairs(counts_of(parse_cards("2C 2C 7H 7H QS QS"))) == 3
    assert view.declared[1] and decision.plays[0].kind == "declare"


def test_pairs_bot_counts_a_joker_and_a_card_as_a_pair_M3():
    assert count_pairs(counts_of(parse_cards("2C 2C 7H 7H QS JK"))) == 3
    view, _ = first_decision("2C 2C 7H 7H QS JK")
    assert view.declared[1]


def test_pairs_bot_plays_greedy_with_fewer_pairs():
    view, decision = first_decision("2C 2C 7H 7H")
    assert count_pairs(counts_of(parse_cards("2C 2C 7H 7H"))) == 2
    assert not view.declared[1] and all(p.kind != "declare" for p in decision.plays)


def test_pairs_bot_declares_in_every_round_it_is_dealt_three_pairs():
    rng = random.Random(3)
    checked = declared = 0
    for k in range(40):
        players = [make_player("builtin:pairs", f"{k}:{i}") for i in range(3)]
        _result, events, _faults = run_match("ellibir", random_rules(rng, 3), k, players)
        dealt = {}
        for e in events:
            if e["e"] == "hand":
                dealt[e["seat"]] = e["cards"]
            elif e["e"] == "round_end" and e["record"]["turns"] > 3:  # every seat has played
                for seat, s in enumerate(e["record"]["seats"]):
                    want = count_pairs(counts_of(dealt[seat])) >= 3
                    assert s["declared"] == want
                    checked += 1
                    declared += want
    print(f"\npairs bot: {declared} of {checked} dealt hands had three pairs or more, all declared")
    assert declared > 0


class Stubborn(Bot):
    """Always asks for something the engine refuses."""

    name = "stubborn"

    def decide(self, view, legal):
        return Turn((), 0) if legal["phase"] == "draw" else Turn((), -5)


def test_a_bot_refused_too_often_is_replaced_and_the_match_completes_O4():
    rules = make_rules("standard", {"players": 2, "rounds": 1})
    players = [InProcessPlayer(Stubborn(), "test:stubborn"), make_player("builtin:random", 1)]
    result, _events, faults = run_match("ellibir", rules, 5, players, max_refusals=3)
    assert result.reason in ("complete", "void_rounds")
    assert len(faults) == 1
    fault = faults[0]
    assert fault.seat == 0 and fault.kind == "illegal_action" and "more than 3 refusals" in fault.reason


class Crashing(Bot):
    name = "crashing"

    def decide(self, view, legal):
        raise RuntimeError("boom")


def test_a_crashing_bot_is_a_fault_not_an_error():
    rules = make_rules("standard", {"players": 2, "rounds": 1})
    players = [InProcessPlayer(Crashing(), "test:crashing"), make_player("builtin:greedy", 1)]
    result, _events, faults = run_match("ellibir", rules, 5, players)
    assert [f.kind for f in faults] == ["crash"] and "boom" in faults[0].reason
    assert result.reason in ("complete", "void_rounds")


def test_a_refused_bot_falls_back_to_the_simplest_decision():
    rules = make_rules("standard", {"players": 2})
    match = new_match("ellibir", rules, 0)
    seat = match.to_move()
    bot = make_bot("greedy", 0)
    bot.start(seat, rules)
    view, legal = match.observe(seat), match.legal(seat)
    bot.decide(view, legal)
    bot.refused(None)
    again = bot.decide(view, legal)
    assert isinstance(again, Turn) and again.plays == ()
    assert match.apply(seat, again).accepted


def test_bots_are_registered_and_seeded_independently():
    assert set(builtin_bots("ellibir")) == {"random", "greedy", "pairs", "outs", "mc", "vgreedy", "vbot", "restricted", "clairvoyant"}
    a, b = make_bot("random", 7), make_bot("random", 7)
    assert [a.rng.random() for _ in range(3)] == [b.rng.random() for _ in range(3)]


# What the bots' speed-ups rely on ---------------------------------------------------------------


def _meld_state(m) -> tuple:
    return m.kind, list(m.cards), m.base, m.owner, m.beside


def test_bots_never_change_the_view_they_decide_on():
    """Plans share the view's melds until they change one (copy on write): the view stays as given."""
    rng = random.Random(11)
    checked = 0
    for k in range(24):
        n = rng.randint(2, 4)
        rules = random_rules(rng, n)
        match = new_match("ellibir", rules, 500 + k)
        bots = [make_bot(rng.choice(["greedy", "pairs"]), k * 10 + s) for s in range(n)]
        for s, bot in enumerate(bots):
            bot.start(s, rules)
        while not match.is_over:
            seat = match.to_move()
            view, legal = match.observe(seat), match.legal(seat)
            before = ([_meld_state(m) for m in view.table], view.hand[:])
            decision = bots[seat].decide(view, legal)
            assert ([_meld_state(m) for m in view.table], view.hand) == before
            checked += 1
            outcome = match.apply(seat, decision)
            if not outcome.accepted:
                bots[seat].refused(outcome)
    assert checked > 1000


def _forms_meld(cards) -> bool:
    from itertools import permutations

    from engine.errors import Refusal
    from engine.melds import make_meld

    for kind in ("set", "run"):
        for order in set(permutations(cards)):
            try:
                make_meld(kind, order)
                return True
            except Refusal:
                pass
    return False


def test_meldable_says_whether_some_three_cards_with_the_card_make_a_run_or_set_M1_M2_M4():
    """``meldable`` (used to skip hopeless searches) against brute force on small pools; and no best
    opening ever holds a card it calls unmeldable."""
    from itertools import combinations

    from engine.solver import best_opening, meldable

    rng = random.Random(3)
    pool = [s * 13 + r for s in (0, 1, 2) for r in (0, 1, 2, 3, 11, 12)] * 2 + [JOKER, JOKER]
    seen = Counter()
    for _ in range(150):
        cards = rng.sample(pool, rng.randint(3, 9))
        hand = counts_of(cards)
        _value, melds = best_opening(hand)
        in_melds = {c for _kind, cs in melds for c in cs}
        for c in set(cards) - {JOKER}:
            rest = list(cards)
            rest.remove(c)
            expected = any(_forms_meld((c, x, y)) for x, y in combinations(rest, 2))
            assert meldable(hand, c) == expected, (card_str(c), [card_str(x) for x in cards])
            assert expected or c not in in_melds
            seen[expected] += 1
    assert seen[True] > 100 and seen[False] > 100


def test_meld_copies_keep_every_field_and_swap_options_follow_changes_A4():
    from dataclasses import fields

    from engine.melds import lay_off, make_meld, swap_options, take_joker

    run = make_meld("run", parse_cards("5H JK 7H"), owner=2)
    run.beside = 1
    assert swap_options(run, "one") == [(parse_cards("6H")[0],)]
    copy = run.copy()
    assert [getattr(copy, f.name) for f in fields(copy)] == [getattr(run, f.name) for f in fields(run)]
    assert copy.cards is not run.cards
    lay_off(copy, parse_cards("JK")[0], "high")
    assert swap_options(copy, "one") == [(parse_cards("6H")[0],), (parse_cards("8H")[0],)]
    assert swap_options(run, "one") == [(parse_cards("6H")[0],)]  # the original is untouched
    assert take_joker(run, parse_cards("6H"), "one") == 1 and swap_options(run, "one") == []
    some = make_meld("set", parse_cards("9C JK JK"))
    assert swap_options(some, "one") == [(parse_cards("9D")[0],), (parse_cards("9H")[0],), (parse_cards("9S")[0],)]
    assert swap_options(some, "all") == [tuple(parse_cards("9D 9H 9S"))]
    options = swap_options(some, "one")
    options.clear()  # the caller's list: the meld's remembered options stay
    assert len(swap_options(some, "one")) == 3
