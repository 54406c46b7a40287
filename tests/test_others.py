"""What a candidate turn gives the other seats (bots/others.py, vgreedy's ``room`` and ``feed``): the
lay-off room new melds open (A2) and the chance that the next seat can take the discard (T2, P2)."""

from __future__ import annotations

from collections import Counter

from bots import make_bot
from bots.candidates import play_options
from bots.others import Others, accepted
from bots.vgreedy import VGreedy
from engine import make_rules, new_match
from engine.cards import parse_card
from engine.determinise import read_view
from engine.melds import make_meld


def cards(text: str) -> list:
    return [parse_card(t) for t in text.split()]


def test_accepted_cards_of_a_run_and_a_set_A2():
    run = make_meld("run", cards("5H 6H 7H"))
    full = make_meld("set", cards("9C 9D 9H 9S"))
    three = make_meld("set", cards("KC KD KS"))
    assert accepted([run]) == set(cards("4H 8H"))
    assert accepted([full]) == set()
    assert accepted([run, three]) == set(cards("4H 8H KH"))
    assert accepted([make_meld("run", cards("QS KS AS"))]) == set(cards("JS"))  # the ace is high only (C2)


def positions(seed: int = 5, players: int = 4):
    """(view, legal, greedy bot) at every play decision of an all-greedy round."""
    rules = make_rules("standard", {"players": players, "rounds": 1})
    match = new_match("ellibir", rules, seed)
    bots = [make_bot("greedy", s) for s in range(players)]
    for s, bot in enumerate(bots):
        bot.start(s, rules)
    while not match.is_over:
        seat = match.to_move()
        view, legal = match.observe(seat), match.legal(seat)
        if view.phase == "play":
            yield view, legal, bots[seat], match
        match.apply(seat, bots[seat].decide(view, legal))


def test_room_counts_the_copies_new_melds_open_to_opened_seats_and_feed_is_a_chance():
    checked = 0
    for view, legal, greedy, _match in positions():
        k = read_view(view)
        unseen = Counter(k.unknown)
        others = Others(view, k, unseen)
        assert others.room(view.table) == 0.0  # the table as it stands opens nothing new
        for option in play_options(greedy, view, legal, 10):
            if not hasattr(option, "plan"):
                continue
            p = others.feed(option.card, option.plan.table)
            assert 0.0 <= p <= 1.0
            new = accepted(option.plan.table) - accepted(view.table)
            gone = accepted(view.table) - accepted(option.plan.table)
            expect = sum(others.copies[c] for c in new) - sum(others.copies[c] for c in gone)
            assert abs(others.room(option.plan.table) - expect * others.opened_share) < 1e-9
            checked += 1
    assert checked > 20


def test_a_card_with_no_live_partner_cannot_be_fed_T2():
    """No unseen or held copy of any card that makes a run or set with it: the chance is 0."""
    for view, _legal, _greedy, _match in positions():
        k = read_view(view)
        for s in range(view.players):
            k.held[s] = [0] * 53
        others = Others(view, k, Counter())  # nothing unseen, nothing known held
        assert others.feed(parse_card("7H"), view.table) == 0.0
        break


def test_room_and_feed_at_zero_play_as_vgreedy():
    """The default weights (0) leave vgreedy's turn unchanged; any weight keeps the turn a candidate."""
    rules = make_rules("standard", {"players": 4, "rounds": 1})
    plain, zero, both = VGreedy(3), VGreedy(3, room=0, feed=0), VGreedy(3, room=20, feed=50)
    for bot in (plain, zero, both):
        bot.start(0, rules)
    n = 0
    for view, legal, _greedy, _match in positions(seed=9):
        for bot in (plain, zero, both):
            bot.seat = view.seat
            bot.greedy.seat = view.seat
        turn = plain.play(view, legal)
        assert str(zero.play(view, legal)) == str(turn)
        assert str(both.play(view, legal)) in {str(o.turn()) for o in both.options(view, legal)}
        n += 1
    assert n > 10
