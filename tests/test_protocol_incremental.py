"""Requests built incrementally (issue 17): the same bytes on the wire as the full rebuild they replace.

``Rebuilt`` is the request builder as it was before: it turned the whole view, history included, into
JSON on every request and threw the history away for a delta. Every message of many matches of both
games, in both observation modes, must encode to the same bytes from both builders.
"""

from __future__ import annotations

import pytest

from bots import make_bot
from engine import new_match
from engine.game import make_rules
from harness.players.botproc import dumps
from benchmarks.request_bench import Rebuilt  # the builder as it was: the reference
from harness.protocol.messages import SeatStream


GAMES = {
    "ellibir": (["random", "greedy", "pairs"], [("standard", 2), ("tr-wiki", 3), ("standard", 4), ("tr-wiki", 4)]),
    "einundfuenfzig": (["random", "cautious"], [("standard", 2), ("standard", 3), ("standard", 4)]),
}


def play_both(game: str, preset: str, players: int, seed: int, observation: str) -> tuple[int, int]:
    """Plays one match, asking both builders for every message of every seat; returns (requests, histories)."""
    bots, _ = GAMES[game]
    rules = make_rules(game, preset, {"players": players, "rounds": 3})
    match = new_match(game, rules, seed)
    new = [SeatStream(s, players, observation, game) for s in range(players)]
    old = [Rebuilt(s, players, observation, game) for s in range(players)]
    seats = [make_bot(bots[(seed + s) % len(bots)], seed * 10 + s, game) for s in range(players)]
    for s, bot in enumerate(seats):
        bot.start(s, rules)
    requests = histories = seq = 0
    while not match.is_over:
        s = match.to_move()
        view, legal = match.observe(s), match.legal(s)
        seq += 1
        assert [dumps(m) for m in new[s].catch_up(match.events)] == [dumps(m) for m in old[s].catch_up(match.events)]
        for again in range(2):  # the same view asked twice, as after a refused decision
            got = new[s].request(seq, view, legal, 1.0, 5.0, again)
            want = old[s].request(seq, view, legal, 1.0, 5.0, again)
            assert dumps(got) == dumps(want), (game, observation, seed, seq)
            requests += 1
            histories += "view" in got
        outcome = match.apply(s, seats[s].decide(view, legal))
        if not outcome.accepted:
            seats[s].refused(outcome)
    for s in range(players):  # the ends of the match, and a seat that never decided again
        assert [dumps(m) for m in new[s].catch_up(match.events)] == [dumps(m) for m in old[s].catch_up(match.events)]
    return requests, histories


@pytest.mark.parametrize("observation", ["delta", "full"])
@pytest.mark.parametrize("game", sorted(GAMES))
def test_incremental_requests_are_byte_identical_to_the_full_rebuild(game, observation):
    _, tables = GAMES[game]
    requests = histories = 0
    for seed in range(1, 9):
        preset, players = tables[seed % len(tables)]
        r, h = play_both(game, preset, players, seed, observation)
        requests, histories = requests + r, histories + h
    assert requests > 200
    if observation == "full":
        assert histories == requests
    else:
        assert 0 < histories < requests  # deltas, and full views at the rounds' first requests


def test_a_history_sent_earlier_is_not_changed_by_later_requests():
    rules = make_rules("ellibir", "standard", {"players": 2, "rounds": 1})
    match = new_match("ellibir", rules, 7)
    stream = SeatStream(0, 2, "full")
    bots = [make_bot("greedy", s) for s in range(2)]
    for s, bot in enumerate(bots):
        bot.start(s, rules)
    kept = []
    while not match.is_over and len(kept) < 6:
        s = match.to_move()
        view, legal = match.observe(s), match.legal(s)
        if s == 0:
            stream.catch_up(match.events)
            msg = stream.request(len(kept), view, legal, 1.0, 1.0)
            kept.append((dumps(msg), msg))
        match.apply(s, bots[s].decide(view, legal))
    assert len(kept) == 6
    assert all(dumps(msg) == wire for wire, msg in kept)
    assert len(kept[-1][1]["view"]["history"]) > len(kept[0][1]["view"]["history"])
