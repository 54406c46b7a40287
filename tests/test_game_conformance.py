"""Every registered game keeps the game interface (engine/game.py), whatever its rules.

These tests know no game by name: they read the one registry (``engine.game.get_game``, the games of
``engine/games/``, and their bots through ``bots.registered_bots``), so a third game is covered as soon
as it is declared there. Random playouts with the
game's registered bots check, at every decision: the codecs of views, legal information, decisions
and events round-trip through JSON; a seat's view, legal information and protocol messages stay the
same when everything it cannot see is dealt again (observation hygiene); and the log replays through
the replay model into zones the one viewer can draw.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bots import analysis_only, make_bot, registered_bots
from engine.events import read_lines, replay, to_lines
from engine.game import ROUND_TYPES, GameSpec, Match, game_names, get_game, new_match
from engine.replay import replay_steps
from harness.protocol.messages import SeatStream
from harness.replay.viewer import viewer_html

from protocol_schemas import play_loopback, schema_errors

GAMES = tuple(game_names())
INTERFACE = ("start", "decide", "refused")  # what InProcessPlayer calls
MAX_DECISIONS = 5_000


def again(value):
    return json.loads(json.dumps(value))


@pytest.mark.parametrize("name", GAMES)
def test_the_declaration_is_complete_and_its_rules_round_trip(name):
    spec = get_game(name)
    assert isinstance(spec, GameSpec) and spec.name == name
    assert issubclass(spec.match, Match) and spec.match.game == name
    low, high = spec.players
    assert 1 <= low <= high
    for field in ("make_rules", "rules_from_dict", "deals_from_json", "event_json", "parse_decision",
                  "decision_from_json", "view_from_json", "legal_json", "legal_from_json", "round_values"):
        assert callable(getattr(spec, field)), f"{name} declares no {field}"
    assert "standard" in spec.presets or spec.presets == {}
    for preset in ["standard", *spec.presets]:
        rules = spec.make_rules(preset, {})
        assert isinstance(rules, spec.rules) and rules.game == name
        back = spec.rules_from_dict(again(rules.normalised()))
        assert back.normalised() == rules.normalised() and back.variant_id == rules.variant_id
        assert isinstance(rules.variant_id, str) and rules.variant_id
    assert all(kind in ROUND_TYPES for kind in spec.round_columns.values())
    with pytest.raises(ValueError):
        spec.make_rules("standard", {"players": high + 1})


@pytest.mark.parametrize("name", GAMES)
def test_every_game_has_bots_and_a_reference_among_them(name):
    """Every game declares its bots with itself: each names a Bot class of bots/, the reference among them."""
    b = registered_bots().get(name)
    assert b is not None, f"{name} declares no bots in engine/games/{name}.py"
    assert b.bots and b.reference in b.bots
    for bot_name in b.bots:  # each names a class of bots/ with the interface the players call
        cls = b.bots[bot_name]
        assert cls.__module__.startswith("bots.") and all(callable(getattr(cls, m, None)) for m in INTERFACE), \
            f"{name}: {bot_name} is not a bot class of bots/"
    assert set(registered_bots()) <= set(GAMES)


def cheap(bot):
    if hasattr(bot, "worlds"):  # a search bot: a short budget and no wall clock, so runs repeat
        bot.worlds, bot.cap = 2, None
    return bot


def check_codecs(spec: GameSpec, rules, view, legal: dict, decision) -> None:
    data = again(view.to_json())
    back = spec.view_from_json(data, rules)  # its history stays in JSON form, as the protocol sends it
    assert back.to_json(history=False) == view.to_json(history=False)
    assert again(list(back.events)) == data["history"]
    out = again(spec.legal_json(legal))
    assert spec.legal_json(spec.legal_from_json(out)) == spec.legal_json(legal)
    text = str(decision)
    assert str(spec.parse_decision(text)) == text
    assert str(spec.decision_from_json(again(decision.to_json()))) == text


def check_hygiene(match, seat: int, rng) -> bool:
    """The seat sees the same after the cards it cannot see are dealt again; returns whether anything
    hidden did change (so the check is not vacuous)."""
    twin = match.resampled(seat, rng)
    view, other = match.observe(seat), twin.observe(seat)
    assert other.to_json() == view.to_json() and other.events == view.events
    assert twin.legal(seat) == match.legal(seat)
    mine, theirs = SeatStream(seat, match.players, "full", match.game), SeatStream(seat, twin.players, "full", twin.game)
    assert mine.catch_up(match.events) == theirs.catch_up(twin.events)
    a, b = match.zones(match.replay_part()), twin.zones(twin.replay_part())
    return [h["cards"] for h in a["hands"] if h["seat"] != seat] != [h["cards"] for h in b["hands"] if h["seat"] != seat]


def play(name: str, players: int, seed: int, names: list[str], rounds: int = 2):
    """A match of the game's registered bots, every codec and the hygiene checked on the way."""
    spec = get_game(name)
    rules = spec.make_rules("standard", {"players": players, "rounds": rounds})
    match = new_match(name, rules, seed)
    bots = [cheap(make_bot(names[s], f"{seed}:{s}", name)) for s in range(players)]
    for s, bot in enumerate(bots):
        bot.start(s, rules)
    rng = random.Random(seed)
    changed = checked = 0
    for _ in range(MAX_DECISIONS):
        seat = match.to_move()
        if seat is None:
            break
        view, legal = match.observe(seat), match.legal(seat)
        decision = bots[seat].decide(view, legal)
        check_codecs(spec, rules, view, legal, decision)
        if rng.random() < 0.15:
            changed += check_hygiene(match, seat, rng)
            checked += 1
        outcome = match.apply(seat, decision)
        if not outcome.accepted:
            bots[seat].refused(outcome)
    assert match.is_over, "the match did not end"
    for e in match.events:
        json.dumps(spec.event_json(e))  # every event has a JSON form
    return match, checked, changed


def check_zones(z: dict, players: int) -> None:
    """The one shape engine/replay.py promises and harness/replay/assets/viewer.js draws."""
    assert isinstance(z["caption"], str)
    assert [h["seat"] for h in z["hands"]] == list(range(players))
    assert all(isinstance(c, str) for h in z["hands"] for c in h["cards"])
    for p in z["piles"]:
        assert isinstance(p["id"], str) and isinstance(p["label"], str) and isinstance(p["face_down"], bool)
        assert all(isinstance(c, str) for c in p["cards"])
    for m in z["melds"]:
        assert isinstance(m["label"], str) and all(isinstance(c, str) for c in m["cards"])
        assert m["owner"] is None or 0 <= m["owner"] < players
    assert all(isinstance(c["label"], str) and type(c["value"]) is int for c in z["counters"])
    assert z["to_move"] is None or 0 <= z["to_move"] < players
    assert again(z) == z


def cards_of(z: dict) -> Counter:
    out = Counter()
    for group in ("hands", "piles", "melds"):
        for x in z[group]:
            out.update(x["cards"])
    return out


def check_replay(match) -> None:
    log = read_lines(to_lines(match.events))
    replay(log)  # the engine makes the same events again
    doc = replay_steps(log)
    decisions = [e["text"] for e in log if e["e"] == "decision"]
    assert [s["text"] for s in doc["steps"] if s["decision"] is not None] == decisions
    per_round = {}
    for step in doc["steps"]:
        check_zones(step["zones"], match.players)
        cards = per_round.setdefault(step["round"], cards_of(step["zones"]))
        assert cards_of(step["zones"]) == cards, f"cards appeared or vanished at step {step['index']}"
    assert any(e["e"] == "match_end" for e in doc["steps"][-1]["events"])
    page = viewer_html(log, "conformance")
    assert page.count('id="replay-data"') == 1
    check_text(match, log)


class Lines:
    def __init__(self):
        self.lines, self.tables = [], []

    def line(self, text, style=None):
        assert isinstance(text, str) and (style is None or isinstance(style, str))
        self.lines.append(text)

    def table(self, columns, rows, right=()):
        assert all(len(r) == len(columns) and all(isinstance(x, str) for x in r) for r in rows)
        assert set(right) <= set(columns)
        self.tables.append(rows)


def check_text(match, log) -> None:
    """The game's words for people (GameSpec.text) read its log, in engine form and in JSON form alike."""
    spec = get_game(match.game)
    if spec.text is None:
        return
    said = []
    for events in (match.events, log):
        out = Lines()
        text = spec.text(out, lambda seat: f"seat {seat}")
        for e in events:
            text(e)
        text.flush()
        assert out.lines and len(out.tables) == len(match.result().rounds)  # a table per round played
        said.append(out.lines)
    assert said[0] == said[1]


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), name=st.sampled_from(GAMES), seed=st.integers(0, 10**6))
def test_random_playouts_with_the_registered_bots_keep_the_interface(data, name, seed):
    spec = get_game(name)
    players = data.draw(st.integers(*spec.players), label="players")
    playable = sorted(b for b in registered_bots()[name].bots if not analysis_only(b, name))  # clairvoyant: a study's own
    names = data.draw(st.lists(st.sampled_from(playable), min_size=players, max_size=players),
                      label="bots")
    match, _, _ = play(name, players, seed, names, rounds=1)
    check_replay(match)


@pytest.mark.parametrize("name", GAMES)
def test_hygiene_checks_do_change_what_the_seat_cannot_see(name):
    """The hygiene check is not vacuous: the hidden cards it deals again do differ."""
    spec = get_game(name)
    checked = changed = 0
    for seed in range(4):
        names = [registered_bots()[name].reference] * spec.players[1]
        match, c, ch = play(name, spec.players[1], seed, names, rounds=1)
        checked, changed = checked + c, changed + ch
        check_replay(match)
    assert checked >= 4 and changed >= checked // 2


def served_bots(name: str) -> list[str]:
    """The game's bots that the protocol loop serves as they are: those without a search budget."""
    b = registered_bots()[name]
    return sorted(n for n in b.bots if "worlds" not in getattr(b.bots[n], "PARAMS", {}) and not analysis_only(n, name))


MESSAGES = {("to_bot", kind) for kind in ("hello", "match_start", "round_start", "events", "request", "round_end",
                                           "match_end")} | {("from_bot", "hello"), ("from_bot", "decision")}


@pytest.mark.parametrize("observation", ["delta", "full"])
@pytest.mark.parametrize("name", GAMES)
def test_every_message_of_a_played_match_fits_the_protocol_schemas(name, observation):
    """A match of the game's bots over the protocol (in this process, as JSON both ways): every message
    each way fits its schema (the game's own, else the shared one). Deltas at the fewest and the most
    seats; full views (every request carries the whole round) at the fewest."""
    spec = get_game(name)
    bots = served_bots(name)
    assert bots, f"{name}: no bot to serve over the protocol"
    seen = set()
    low, high = spec.players
    for players in sorted({low, high}) if observation == "delta" else [low]:
        rules = spec.make_rules("standard", {"players": players, "rounds": 1})
        seating = [bots[seat % len(bots)] for seat in range(players)]
        result, _events, faults, records = play_loopback(name, rules, 17 + players, seating, observation)
        assert not faults, faults
        for record in records.values():
            for direction, _position, message in record:
                way = "to_bot" if direction == "out" else "from_bot"
                first = (way, message["type"]) not in seen  # the union schema once per kind: the slow part
                assert not schema_errors(way, message, name, first), (message, schema_errors(way, message, name))
                seen.add((way, message["type"]))
    assert MESSAGES <= seen, MESSAGES - seen
