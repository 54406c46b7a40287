"""The bot protocol without processes: messages, schemas, deltas, information hiding, manifests.

Bots run in-process here (``Loopback`` runs ``bots.serve.Client`` behind the real SubprocessPlayer),
so these tests are fast; tests/test_subprocess_bots.py runs real programs in the sandbox and uses
the helpers at the top of this file (schema validation, hidden-state checks).
"""

from __future__ import annotations

import atexit
import bisect
import json
import random
import re
import shutil
import tempfile
from pathlib import Path

import pytest

from bots import make_bot
from bots.serve import Client
from engine.observe import legal_from_json, view_from_json
from engine import make_rules, new_match
from engine.cards import card_str
from engine.events import new_match_from_start
from engine.game import MatchResult, Outcome
from engine.observe import legal_json
from harness.players.manifest import ManifestError, load_manifest
from harness.match.run import run_match

from protocol_schemas import Loopback, loopback_manifest, schema_errors, validators  # noqa: F401  (used by other test modules)
from harness.players.program import BotOptions, SubprocessPlayer
from harness.players.seats import Fault, apply_fault_policy
from harness.players.base import InProcessPlayer
from harness.players.make import make_player
from harness.protocol.messages import (
    FROM_BOT, TO_BOT, Declined, ProtocolError, SeatStream, TimeControl, check_decision_reply, check_hello_reply,
    hello_message, load_schemas, redact_event, view_json,
)



# Helpers (also used by tests/test_subprocess_bots.py) ---------------------------------------------

ROOT = Path(__file__).resolve().parent.parent


def materialise_bots() -> Path:
    """The misbehaving test bots as runnable folders: each bot.toml beside a copy of misbehave.py.

    Made once per test session in a folder readable by the sandbox's uid, removed at exit.
    """
    source = ROOT / "tests" / "protocol_bots"
    out = Path(tempfile.mkdtemp(prefix="ellibir-protocol-bots-"))
    atexit.register(shutil.rmtree, out, True)
    out.chmod(0o755)
    for folder in sorted(p for p in source.iterdir() if p.is_dir()):
        target = out / folder.name
        shutil.copytree(folder, target, ignore=shutil.ignore_patterns("__pycache__"))
        if not (target / "main.py").exists():
            shutil.copy(source / "misbehave.py", target / "main.py")
        for path in [target, *target.iterdir()]:
            path.chmod(0o755 if path.is_dir() else 0o644)
    return out


PROTOCOL_BOTS = materialise_bots()
CARD = re.compile(r"(?:[2-9]|10|[JQKA])[CDHS]|JK")


def hidden_states(events: list) -> dict:
    """Replay a match's log: log length -> (hands as card-id counts per seat, stock top last)."""
    match = new_match_from_start(events[0])

    def snapshot():
        rnd = match.round
        return [list(h) for h in rnd.hands], list(rnd.stock)

    states = {len(match.events): snapshot()}
    for e in events:
        if e.get("e") == "decision":
            match.apply_text(e["seat"], e["text"])
            states[len(match.events)] = snapshot()
    assert len(match.events) == len(events)
    return states


def state_at(states: dict, position: int):
    keys = sorted(states)
    i = bisect.bisect_right(keys, position) - 1
    return states[keys[max(i, 0)]]


def first_seen(events: list, seat: int) -> dict:
    """card string -> the log position after which ``seat`` has seen that card identity: in its own
    hands and draws, or in a public event (never in the match_start event's deals)."""
    out = {}

    def see(card, i):
        out.setdefault(card, i + 1)

    for i, e in enumerate(events):
        if i == 0 or ("to" in e and e["to"] != seat):
            continue
        if e.get("e") == "round_end":
            for card in e["record"]["seats"][seat]["left"]:
                see(card, i)
            continue
        for key in ("card", "cut"):
            if isinstance(e.get(key), int) and e[key] >= 0:
                see(card_str(e[key]), i)
        if isinstance(e.get("cards"), list):
            for c in e["cards"]:
                if isinstance(c, int):
                    see(card_str(c), i)
    return out


def walk(obj, path=()):
    """Every (path, value) in a JSON document, containers included."""
    yield path, obj
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from walk(v, path + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from walk(v, path + (i,))


FORBIDDEN_KEYS = {"to", "deals", "seed", "hands"}  # and "stock" holding cards


def leaks(message: dict, seat: int, events: list, states: dict, position: int, seen: dict | None = None) -> list[str]:
    """What in ``message`` (sent to ``seat`` when the log had ``position`` events) it may not know.
    ``seen`` is ``first_seen(events, seat)``, computed once per seat."""
    problems = []
    hands, stock = state_at(states, position)
    seen = first_seen(events, seat) if seen is None else seen
    others = [sorted(card_str(c) for c in range(53) for _ in range(h[c])) for s, h in enumerate(hands) if s != seat]
    stock_cards = [card_str(c) for c in stock]
    never = len(events) + 1
    stack = [(message, "")]
    while stack:
        value, key = stack.pop()
        if isinstance(value, dict):
            for k, v in value.items():
                if k in FORBIDDEN_KEYS or (k == "stock" and isinstance(v, list)):
                    problems.append(f"key {k!r}")
                if k not in ("jokers", "options"):  # what table jokers stand for: derived from the table
                    stack.append((v, k))
            if value.get("e") == "penalty" and value.get("seat") != seat and value.get("rule") == "O4":
                if value.get("reason") != "a refused opening":
                    problems.append("another seat's refused opening explained")
        elif isinstance(value, list):
            if len(value) >= 3 and all(isinstance(x, str) for x in value):
                if sorted(value) in others:
                    problems.append(f"another seat's hand under {key!r}")
                if value in (stock_cards, stock_cards[::-1]):
                    problems.append(f"the stock order under {key!r}")
            stack.extend((v, key) for v in value)
        elif isinstance(value, str) and CARD.fullmatch(value) and seen.get(value, never) > position:
            problems.append(f"{value} under {key!r} was never seen by seat {seat}")
    if message.get("type") == "round_end":
        for s, record in enumerate(message["record"]["seats"]):
            if s != seat and "left" in record:
                problems.append(f"seat {s}'s cards left in hand in round_end")
    return problems


def loopback_player(bot: str, observation: str = "delta", record=None, options=BotOptions()):
    client = Client(bot, observation)
    return SubprocessPlayer(loopback_manifest(bot), options, record, process=lambda m, o: Loopback(client))


def play_loopback(rules, seed, bots, observation="delta"):
    """A match of loopback players; returns (result, events, faults, records by seat)."""
    records = {s: [] for s in range(len(bots))}
    players = [loopback_player(b, observation, records[s]) for s, b in enumerate(bots)]
    result, events, faults = run_match("ellibir", rules, seed, players)
    return result, events, faults, records


# Schemas ----------------------------------------------------------------------------------------


def test_every_message_type_has_a_valid_draft_2020_12_schema():
    from jsonschema import Draft202012Validator

    schemas = load_schemas()
    for name, schema in schemas.items():
        Draft202012Validator.check_schema(schema)
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    names = set(schemas)
    assert {f"to_bot.{t}.json" for t in TO_BOT} <= names
    assert {f"from_bot.{t}.json" for t in FROM_BOT} <= names
    assert {"common.json", "to_bot.json", "from_bot.json"} <= names


def test_schemas_ship_as_package_data():
    text = (ROOT / "pyproject.toml").read_text()
    assert '"protocol/schemas/*.json"' in text and "jsonschema" in text


@pytest.mark.parametrize("preset,players,observation", [
    ("standard", 2, "delta"), ("standard", 4, "full"), ("tr-wiki", 3, "delta"), ("tr-wiki", 4, "delta"),
])
def test_every_message_of_a_full_match_fits_its_schema(preset, players, observation):
    rules = make_rules(preset, {"players": players, "rounds": 2})
    bots = ["greedy", "pairs", "random", "pairs"][:players]
    result, events, faults, records = play_loopback(rules, 11, bots, observation)
    assert not faults and result.reason in ("complete", "void_rounds")
    seen, counts = set(), {}
    for seat, record in records.items():
        for direction, _pos, message in record:
            key = (direction, message["type"])
            counts[key] = counts.get(key, 0) + 1
            if counts[key] <= 12 or counts[key] % 15 == 0:  # jsonschema is slow: the first ones, then a sample
                assert not schema_errors("to_bot" if direction == "out" else "from_bot", message), message
            seen.add(key)
    assert {("out", t) for t in TO_BOT if t not in ("error", "new_match")} <= seen  # new_match: test_reuse.py
    assert {("in", "hello"), ("in", "decision")} <= seen


def test_schemas_refuse_what_they_should():
    v = validators()
    good = {"type": "decision", "seq": 3, "decision": {"draw": "stock"}}
    assert v["from_bot.decision.json"].is_valid(good)
    assert v["from_bot.decision.json"].is_valid({"type": "decision", "seq": 3, "text": "discard KS"})
    for bad in ({"type": "decision", "seq": 3}, {"type": "decision", "decision": {"draw": "stock"}},
                {"type": "decision", "seq": 3, "decision": {"draw": "stock"}, "text": "stock"},
                {"type": "decision", "seq": 3, "decision": {"discard": "1H"}},
                {"type": "decision", "seq": 0, "decision": {"draw": "stock"}}):
        assert not v["from_bot.decision.json"].is_valid(bad), bad
    event = {"e": "drawn", "seat": 0, "card": "5H", "to": 0}  # private: never in a message
    assert not v["to_bot.events.json"].is_valid({"type": "events", "events": [event]})


# Deltas ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed,players,preset", [(1, 2, "standard"), (2, 3, "tr-wiki"), (3, 4, "standard"),
                                                 (4, 4, "tr-wiki")])
def test_a_bot_rebuilds_the_full_view_from_deltas_and_decides_as_in_process(seed, players, preset):
    """Every request: the view rebuilt from full views, changed fields and events is the full view,
    and the reference bot behind the protocol makes exactly the in-process bot's decision."""
    rules = make_rules(preset, {"players": players, "rounds": 2})
    match = new_match("ellibir", rules, seed)
    names = ["greedy", "pairs", "pairs", "greedy"][:players]
    streams = [SeatStream(s, players) for s in range(players)]
    clients = [Client(n) for n in names]
    same = [make_bot(n, 0) for n in names]
    for s in range(players):
        clients[s].handle(json.loads(json.dumps(hello_message(1, "ellibir", rules, s, TimeControl(), 10**6))))
        same[s].start(s, rules)
    seq, deltas = 1, 0
    while not match.is_over:
        s = match.to_move()
        view, legal = match.observe(s), match.legal(s)
        seq += 1
        messages = streams[s].catch_up(match.events) + [streams[s].request(seq, view, legal, 1.0, 5.0)]
        for m in messages:
            reply = clients[s].handle(json.loads(json.dumps(m)))
        deltas += "changed" in messages[-1]
        assert clients[s].rebuilt() == view_json(view, s)
        expected = same[s].decide(view, legal)
        assert reply["decision"] == expected.to_json()
        outcome = match.apply_json(s, reply["decision"])
        if not outcome.accepted:
            same[s].refused(outcome)
            clients[s].handle({"type": "error", "seq": seq, "rule": outcome.rule, "reason": outcome.reason, "penalty": 0})
    assert deltas > 0


def test_a_delta_carries_only_changed_fields():
    rules = make_rules("standard", {"players": 2, "rounds": 1})
    match = new_match("ellibir", rules, 5)
    seat = match.to_move()
    stream = SeatStream(seat, 2)
    stream.catch_up(match.events)
    first = stream.request(1, match.observe(seat), match.legal(seat), 1, 1)
    assert "view" in first and "changed" not in first
    second = stream.request(2, match.observe(seat), match.legal(seat), 1, 1)
    assert second["changed"] == {}
    hand = first["view"]["hand"]
    match.apply_text(seat, f"discard {hand[-1]}")
    other = 1 - seat
    match.apply_text(other, "stock")
    hand_other = match.observe(other).to_json()["hand"]
    match.apply_text(other, f"discard {hand_other[-1]}")
    messages = stream.catch_up(match.events)
    assert [m["type"] for m in messages] == ["events"]
    kinds = [e["e"] for e in messages[0]["events"]]
    assert kinds == ["discard", "draw", "discard"]  # round_start went out before the first request
    third = stream.request(3, match.observe(seat), match.legal(seat), 1, 1)
    changed = third["changed"]
    assert {"hand", "discards", "turn", "phase", "hand_sizes", "stock_size"} <= set(changed)
    assert "history" not in changed and "totals" not in changed and "table" not in changed


def test_full_observation_sends_the_view_every_time():
    rules = make_rules("standard", {"players": 2, "rounds": 1})
    match = new_match("ellibir", rules, 5)
    seat = match.to_move()
    stream = SeatStream(seat, 2, "full")
    stream.catch_up(match.events)
    for seq in (1, 2):
        assert "view" in stream.request(seq, match.observe(seat), match.legal(seat), 1, 1)


def test_legal_and_view_survive_the_json_round_trip():
    rules = make_rules("tr-wiki", {"players": 3})
    for seed in range(5):
        match = new_match("ellibir", rules, seed)
        seat = match.to_move()
        view, legal = match.observe(seat), match.legal(seat)
        again = view_from_json(json.loads(json.dumps(view.to_json())), rules)
        assert again.to_json() == view.to_json()
        assert legal_json(legal_from_json(json.loads(json.dumps(legal_json(legal))))) == legal_json(legal)


# Information hiding ----------------------------------------------------------------------------


def test_other_seats_refused_openings_are_redacted():
    e = {"e": "penalty", "seat": 1, "rule": "O4", "reason": "O1: R[5H 6H 8H] is not a run"}
    assert redact_event(e, 0)["reason"] == "a refused opening"
    assert redact_event(e, 1)["reason"] == e["reason"]
    a5 = {"e": "penalty", "seat": 1, "rule": "A5", "reason": "KS could be laid off"}
    assert redact_event(a5, 0) == a5


def test_nothing_sent_to_a_bot_reveals_hidden_cards_over_many_matches():
    """Record everything the harness sends each seat; check it against the engine's hidden state then:
    no other hand, no stock order, no card the seat has not seen, no private event, no seed."""
    rng = random.Random(7)
    checked = 0
    for k in range(24):
        players = rng.choice([2, 3, 4])
        preset = rng.choice(["standard", "tr-wiki"])
        overrides = {"players": players, "rounds": rng.choice([1, 2])}
        if preset == "standard" and rng.random() < 0.5:
            overrides.update({"layable_discard_scope": "any", "pairs_layoff": True, "joker_in_cut": True})
        rules = make_rules(preset, overrides)
        bots = [rng.choice(["greedy", "pairs", "greedy", "random"]) for _ in range(players)]
        observation = "full" if k % 4 == 3 else "delta"
        result, events, faults, records = play_loopback(rules, 1000 + k, bots, observation)
        assert not faults
        states = hidden_states(events)
        for seat, record in records.items():
            seen = first_seen(events, seat)
            for direction, position, message in record:
                if direction == "out":
                    problems = leaks(message, seat, events, states, position, seen)
                    assert not problems, (k, seat, message["type"], problems[:3])
                    checked += 1
    assert checked > 2000


def test_the_leak_check_catches_leaks():
    """The checker itself: another seat's hand or the stock in a message is found."""
    rules = make_rules("standard", {"players": 2, "rounds": 1})
    result, events, faults, records = play_loopback(rules, 3, ["greedy", "greedy"])
    states = hidden_states(events)
    direction, position, message = next(r for r in records[0] if r[0] == "out" and r[2]["type"] == "request")
    hands, stock = states[max(k for k in states if k <= position)]
    other = [card_str(c) for c in range(53) for _ in range(hands[1][c])]
    assert leaks({**message, "extra": other}, 0, events, states, position)
    assert leaks({**message, "extra": [card_str(c) for c in stock]}, 0, events, states, position)
    assert leaks({**message, "to": 1}, 0, events, states, position)


# Replies --------------------------------------------------------------------------------------


def test_hello_replies_are_checked():
    assert check_hello_reply({"type": "hello", "seq": 1, "name": "x", "version": "1"}, 1)["observation"] == "delta"
    assert check_hello_reply({"type": "hello", "seq": 1, "name": "x", "version": "1", "observation": "full"}, 1)[
        "observation"] == "full"
    with pytest.raises(Declined, match="no pairs"):
        check_hello_reply({"type": "error", "seq": 1, "reason": "no pairs variants"}, 1)
    for bad, words in [
        ({"type": "hello", "seq": 2, "name": "x", "version": "1"}, "sequence id"),
        ({"type": "hello", "name": "x", "version": "1"}, "sequence id"),
        ({"type": "decision", "seq": 1}, "type"),
        ({"type": "hello", "seq": 1, "version": "1"}, "name"),
        ({"type": "hello", "seq": 1, "name": "x", "version": "1", "observation": "some"}, "observation"),
        ({"type": "hello", "seq": 1, "name": "x", "version": "1", "protocol": 3}, "protocol"),
        ([1, 2], "object"),
    ]:
        with pytest.raises(ProtocolError, match=words):
            check_hello_reply(bad, 1)


def test_decision_replies_are_checked():
    assert check_decision_reply({"type": "decision", "seq": 4, "decision": {"draw": "stock"}}, 4) == {"draw": "stock"}
    assert check_decision_reply({"type": "decision", "seq": 4, "text": "stock"}, 4) == "stock"
    for bad, words in [
        ({"type": "decision", "seq": 3, "decision": {}}, "stale"),
        ({"type": "decision", "seq": 9, "decision": {}}, "never sent"),
        ({"type": "decision", "seq": True, "decision": {}}, "sequence id"),
        ({"type": "decision", "seq": 4}, "exactly one"),
        ({"type": "decision", "seq": 4, "decision": {}, "text": "stock"}, "exactly one"),
        ({"type": "decision", "seq": 4, "decision": "stock"}, "object"),
        ({"type": "hello", "seq": 4}, "type"),
    ]:
        with pytest.raises(ProtocolError, match=words):
            check_decision_reply(bad, 4)


def test_refusals_reach_the_bot_and_it_decides_again_under_a_new_sequence_id():
    class Wrong(Client):
        """Discards a card it does not hold once per turn, then plays as greedy."""

        def on_request(self, msg):
            reply = super().on_request(msg)
            if msg["decide"] == "play" and msg["refusals"] == 0:
                absent = next(c for c in ("AS", "AH", "AD", "AC", "KS") if c not in self.state["hand"])
                reply["decision"] = {"discard": absent}
            return reply

    record = []
    client = Wrong("greedy")
    player = SubprocessPlayer(loopback_manifest("wrong"), BotOptions(), record, process=lambda m, o: Loopback(client))
    rules = make_rules("standard", {"players": 2, "rounds": 1})
    result, events, faults = run_match("ellibir", rules, 2, [player, make_player("builtin:greedy", 1)])
    assert not faults
    out = [m for d, _p, m in record if d == "out"]
    errors = [m for m in out if m["type"] == "error"]
    assert errors and all(e["rule"] == "T4" and "not in your hand" in e["reason"] for e in errors)
    seqs = [m["seq"] for m in out if m["type"] in ("hello", "request")]
    assert seqs == list(range(1, len(seqs) + 1))
    first = errors[0]
    retry = next(m for m in out if m["type"] == "request" and m["seq"] == first["seq"] + 1)
    assert retry["refusals"] == 1 and first["refusals"] == 1 and first["max_refusals"] == 3


# Fault policy ---------------------------------------------------------------------------------


def test_forfeit_ranks_faulty_seats_last_and_fallback_keeps_the_totals_order():
    result = MatchResult("ellibir", [10, -50, 30, 0], [3, 1, 4, 2])
    faults = [Fault(1, "x", "timeout", "late", 5), Fault(3, "y", "crash", "gone", 9)]
    forfeit = apply_fault_policy(result, faults, "forfeit", 4)
    assert forfeit.ranks == [1, 4, 2, 4] and forfeit.totals == result.totals
    assert apply_fault_policy(result, faults, "fallback", 4).ranks == result.ranks
    assert apply_fault_policy(result, [], "forfeit", 4).ranks == result.ranks
    with pytest.raises(ValueError):
        apply_fault_policy(result, faults, "ignore", 4)


def test_in_process_faults_follow_the_policy_too():
    class Crashing(InProcessPlayer):
        def decide(self, view, legal):
            raise RuntimeError("boom")

    rules = make_rules("standard", {"players": 2, "rounds": 1})
    for on_fault in ("forfeit", "fallback"):
        players = [Crashing(make_bot("greedy", 0), "test:crashing"), make_player("builtin:random", 1)]
        result, _events, faults = run_match("ellibir", rules, 4, players, on_fault=on_fault)
        assert [f.kind for f in faults] == ["crash"]
        if on_fault == "forfeit":
            assert result.ranks[0] == 2


def test_error_messages_name_the_rule_and_reason():
    from harness.protocol.messages import error_message

    m = error_message(7, Outcome(False, "T2", "the taken discard is not in a meld", 50), 1, 3)
    assert m == {"type": "error", "seq": 7, "rule": "T2", "reason": "the taken discard is not in a meld",
                 "penalty": 50, "refusals": 1, "max_refusals": 3}
    assert not schema_errors("to_bot", m)


# Manifests ------------------------------------------------------------------------------------


def write_manifest(tmp_path, text):
    folder = tmp_path / "bot"
    folder.mkdir(exist_ok=True)
    (folder / "bot.toml").write_text(text)
    return folder


def test_a_manifest_is_read():
    m = load_manifest(ROOT / "bots" / "kits" / "python")
    assert m.name == "starter-python" and m.command == ("python3", "main.py") and not m.uses_engine
    assert load_manifest(ROOT / "bots" / "protocol" / "greedy").uses_engine
    assert m.games == ("ellibir",)  # the default
    assert load_manifest(ROOT / "bots" / "protocol" / "random").games == ("ellibir", "einundfuenfzig")


BAD_MANIFESTS = {
    "invalid TOML": ('name = "x\n', "invalid TOML"),
    "missing command": ('name = "x"\nversion = "1"\n', "missing field 'command'"),
    "missing name": ('version = "1"\ncommand = ["a"]\n', "missing field 'name'"),
    "unknown field": ('name = "x"\nversion = "1"\ncommand = ["a"]\ncolour = "red"\n', "unknown field 'colour'"),
    "bad name": ('name = "my bot!"\nversion = "1"\ncommand = ["a"]\n', "name must be"),
    "command a string": ('name = "x"\nversion = "1"\ncommand = "python3 main.py"\n', "command must be a non-empty list"),
    "empty command": ('name = "x"\nversion = "1"\ncommand = []\n', "command must be a non-empty list"),
    "empty part": ('name = "x"\nversion = "1"\ncommand = ["python3", ""]\n', "every part of command"),
    "version a number": ('name = "x"\nversion = 1\ncommand = ["a"]\n', "version must be"),
    "uses_engine a string": ('name = "x"\nversion = "1"\ncommand = ["a"]\nuses_engine = "yes"\n', "uses_engine"),
    "notes a list": ('name = "x"\nversion = "1"\ncommand = ["a"]\nnotes = []\n', "notes must be"),
    "games a string": ('name = "x"\nversion = "1"\ncommand = ["a"]\ngames = "ellibir"\n', "games must be"),
    "games empty": ('name = "x"\nversion = "1"\ncommand = ["a"]\ngames = []\n', "games must be"),
    "unknown game": ('name = "x"\nversion = "1"\ncommand = ["a"]\ngames = ["chess"]\n', "unknown game 'chess'"),
}


@pytest.mark.parametrize("case", sorted(BAD_MANIFESTS))
def test_bad_manifests_give_one_line_errors(case, tmp_path):
    text, words = BAD_MANIFESTS[case]
    with pytest.raises(ManifestError) as info:
        load_manifest(write_manifest(tmp_path, text))
    message = str(info.value)
    assert words in message and "\n" not in message and "bot.toml" in message


def test_missing_folders_and_manifests(tmp_path):
    with pytest.raises(ManifestError, match="does not exist"):
        load_manifest(tmp_path / "nowhere")
    with pytest.raises(ManifestError, match="no bot.toml"):
        load_manifest(tmp_path)
    (tmp_path / "file").write_text("x")
    with pytest.raises(ManifestError, match="not a folder"):
        load_manifest(tmp_path / "file")


# The documentation ----------------------------------------------------------------------------


def test_every_transcript_line_in_docs_protocol_fits_its_schema():
    """docs/protocol.md writes harness messages as '> {...}' and bot messages as '< {...}'."""
    text = (ROOT / "docs" / "protocol.md").read_text().split("\n## Einundfünfzig\n")[0]  # its own test
    lines = re.findall(r"^([<>]) (\{.*\})$", text, flags=re.M)
    assert len(lines) >= 15
    kinds = set()
    for arrow, body in lines:
        message = json.loads(body)
        direction = "to_bot" if arrow == ">" else "from_bot"
        assert not schema_errors(direction, message), (body[:80], schema_errors(direction, message))
        kinds.add((direction, message["type"]))
    assert {("to_bot", t) for t in TO_BOT} <= kinds
    assert {("from_bot", t) for t in FROM_BOT} <= kinds


def test_docs_protocol_links_the_rules_and_the_engine():
    text = (ROOT / "docs" / "protocol.md").read_text()
    assert "rules.md" in text and "engine.md" in text
