"""The replay model: a match log turned into the steps a viewer shows, for any game.

``replay_steps(log)`` takes the lines of an annotated match log (docs/match-log.md: the engine's
events, and optionally the harness's ``harness_*`` events between them) and plays the logged
decisions again on a fresh match. It returns a document:

- ``game``, ``players``, ``bots`` (from ``harness_bots``, else ``seat N``), ``on_fault``, ``variant``
  (the rules as the fields that differ from the standard preset, and the match's length);
- ``rounds``: one per round played (void ones included), in order: ``round`` (0-based, as the steps
  count them), ``void``, ``winners`` (seats), ``outcome`` (who went out and how, or why it was void, in
  the game's words: its text's ``outcome``) and ``short`` (the same in a few words);
- ``steps``: the first is the deal of the first round; then one per logged decision, and one more
  whenever a decision starts a new round (its deal). Each step has ``index``, ``round`` (0-based),
  ``turn`` (a turn is a run of one seat's decisions in a round, counted over the match), ``decision``
  (the decision's number, counted from 0, or None), ``seat``, ``text``, ``outcome`` (``accepted``, or
  the refusal's ``rule`` and ``reason``, and a ``penalty``), ``events`` (the engine events the step
  made, JSON form, each with a readable ``say``: the game's plain words, its text's ``words``, else
  the generic ones of ``say``), ``harness`` (the harness events logged before it:
  faults, takeovers; the last step also gets what follows the last decision), ``played_by`` (the
  reference bot playing a taken-over seat, else None) and ``zones`` (the game's ``zones``: hands,
  piles, melds, counters, caption).

It checks what it replays: the engine must make the events of the log, or ValueError. The engine
knows nothing of HTML; the harness nothing of the games: the zones are the one shape between them.
"""

from __future__ import annotations

import json

from .events import event_json, new_match_from_start

HARNESS = "harness_"


def _same(made: list[dict], logged: list[dict], at: int) -> None:
    """The events the replay made are those the log holds (compared as JSON: tuples as lists)."""
    if json.dumps([event_json(x) for x in made], sort_keys=True) != json.dumps(logged, sort_keys=True):
        raise ValueError(f"the replay differs from the log after decision {at}")


def say(e: dict) -> str:
    """An event in words (any game: unknown kinds are written as their fields)."""
    kind, seat = e.get("e"), e.get("seat")
    who = f"seat {seat}" if seat is not None else ""
    fields = {k: v for k, v in e.items() if k not in ("e", "seat", "to")}
    if kind == "decision":
        return f"{who} decides: {e.get('text')}"
    if kind == "refused":
        pen = f" (penalty {e['penalty']})" if e.get("penalty") else ""
        return f"{who}: refused under {e.get('rule')}: {e.get('reason')}{pen}"
    if kind == "penalty":
        return f"{who}: penalty under {e.get('rule')}" + (f" of {e['points']}" if "points" in e else "")
    if kind == "draw":
        return f"{who} draws from the {e.get('from', 'talon')}" + (f": {e['card']}" if e.get("card") else "")
    if kind == "drawn":
        return f"{who} gets {e.get('card')}"
    if kind == "discard":
        return f"{who} discards {e.get('card')}"
    if kind == "play":
        return f"{who} plays {e.get('card')} for {e.get('value')}: total {e.get('total')}"
    if kind == "round_start":
        return f"round {e.get('number', (e.get('index') or 0) + 1)} is dealt; dealer seat {e.get('dealer')}"
    if kind == "round_end":
        return outcome_words(e.get("record") or e)
    if kind == "match_end":
        return f"the match ends ({e.get('reason')}): " + standing(e.get("totals") or [], e.get("ranks") or [])
    if kind == "match_start":
        rules = e.get("rules") or {}
        return (f"the match begins: {e.get('game')}, {rules.get('players')} players, "
                f"{variant_text(str(e.get('game')), rules)}")
    if kind == "hand":
        return f"{who} is dealt {len(e.get('cards') or [])} cards"
    rest = ", ".join(f"{k} {v if not isinstance(v, list) else ' '.join(map(str, v))}" for k, v in fields.items())
    return f"{who} {kind}{': ' + rest if rest else ''}".strip()


def outcome_words(record: dict, short: bool = False) -> str:
    """How a round ended, from the keys every game's round record has (``void``, ``winner`` or ``winners``,
    ``end``): a sentence, or a few words for a list of rounds (``short``). A game says more in its text's
    ``outcome`` (engine/match_text.py)."""
    winners = record.get("winners") or ([record["winner"]] if record.get("winner", -1) >= 0 else [])
    who = " and ".join(f"seat {s}" for s in winners)
    if record.get("void"):
        why = f" ({str(record['end']).replace('_', ' ')})" if record.get("end") else ""
        return f"void{why}" if short else f"The round is void{why}: it does not count."
    if not winners:
        return "no winner" if short else "The round ends without a winner."
    return f"{who} won" if short else f"{who[:1].upper()}{who[1:]} won the round."


PLACES = {1: "first", 2: "second", 3: "third", 4: "fourth"}


def standing(totals: list, ranks: list) -> str:
    """"seat 1 first (total -400), seat 0 second (114), ..." from a match's totals and ranks."""
    if not ranks:
        return f"totals {totals}"
    order = sorted(range(len(ranks)), key=lambda s: (ranks[s], s))
    said = []
    for s in order:
        total = f" ({'total ' if not said else ''}{totals[s]})" if s < len(totals) else ""
        said.append(f"seat {s} {PLACES.get(ranks[s], f'rank {ranks[s]}')}{total}")
    return ", ".join(said)


def say_harness(e: dict) -> str:
    kind = e.get("e", "")[len(HARNESS):]
    if kind == "fault":
        return f"FAULT seat {e.get('seat')} ({e.get('bot')}): {e.get('kind')}: {e.get('reason')}"
    if kind == "takeover":
        first = (e.get("from_decision") or 0) + 1  # the log counts from 0, the viewer from 1
        return f"seat {e.get('seat')} ({e.get('bot')}) is taken over by {e.get('by')} from decision {first}"
    if kind == "result":
        return (f"result after the fault policy ({e.get('on_fault')}): "
                f"{standing(e.get('totals') or [], e.get('ranks') or [])}; {e.get('reason')}")
    if kind == "bots":
        return "bots: " + ", ".join(map(str, e.get("bots") or []))
    return kind.replace("_", " ")


HIDDEN = ("stock",)  # events that show nothing a viewer needs (the stock's order)


def _events(made: list[dict], words=None) -> list[dict]:
    """The events in JSON form, each with its words: the game's own (``words``, its text's ``words``), else
    ``say``'s."""
    out = []
    for x in made:
        if x.get("e") in HIDDEN:
            continue
        e = event_json(x)
        out.append({**e, "say": (words(e) if words else None) or say(e)})
    return out


def _text_of(game: str):
    """The game's text class (engine/match_text.py), for its words; None for a game not registered."""
    from .game import get_game

    try:
        return get_game(game).text
    except Exception:  # noqa: BLE001  (an unknown game replays with the generic words)
        return None


def variant_text(game: str, rules: dict) -> str:
    """The rules of a match as the fields that differ from the game's standard preset ("standard rules",
    or "threshold=71, exhausted=score"), then its length ("4 rounds")."""
    from .game import make_rules

    players = rules.get("players")
    try:
        standard = make_rules(game, "standard", {"players": players}).normalised()
    except Exception:  # noqa: BLE001
        standard = {}
    differ = [f"{k}={json.dumps(v, separators=(',', ':')) if not isinstance(v, str) else v}"
              for k, v in rules.items() if k not in ("players", "rounds") and standard.get(k, v) != v]
    length = f"{rules['rounds']} rounds" if isinstance(rules.get("rounds"), int) else ""
    return ", ".join(differ or ["standard rules"]) + (f"; {length}" if length else "")


def _round_entry(part_index: int, record: dict, text) -> dict:
    """A round of the match for the viewer's list: whether it was void, who won, its outcome in words."""
    outcome = getattr(text, "outcome", None) or outcome_words
    winners = record.get("winners") or ([record["winner"]] if record.get("winner", -1) >= 0 else [])
    return {"round": part_index, "void": bool(record.get("void")), "winners": winners,
            "outcome": outcome(record), "short": outcome(record, short=True)}


def replay_steps(log: list[dict]) -> dict:
    """The replay document of ``log`` (see the module's docstring); raises ValueError on a bad log."""
    if not log or log[0].get("e") != "match_start":
        raise ValueError("a match log starts with a match_start event")
    match = new_match_from_start(log[0])
    engine = [e for e in log if not str(e.get("e", "")).startswith(HARNESS)]
    bots_line = next((e for e in log if e.get("e") == HARNESS + "bots"), None)
    players = match.players
    doc = {"game": log[0].get("game", "ellibir"), "players": players,
           "bots": list(bots_line["bots"]) if bots_line else [f"seat {s}" for s in range(players)],
           "on_fault": (bots_line or {}).get("on_fault"), "steps": [], "rounds": []}
    doc["variant"] = variant_text(doc["game"], log[0].get("rules") or {})
    text = _text_of(doc["game"])
    words = getattr(text, "words", None)
    steps = doc["steps"]
    part = match.replay_part()

    def add(**fields) -> None:
        steps.append({"index": len(steps), "round": part.index, "turn": fields.pop("turn"), "decision": None,
                      "seat": None, "text": None, "outcome": None, "events": [], "harness": [], "played_by": None,
                      **fields, "zones": match.zones(part)})

    made = len(match.events)
    _same(match.events, engine[:made], -1)
    add(turn=0, events=_events(match.events[:made], words))
    pending, takeovers, decisions, turn, last_seat = [], {}, 0, 0, None
    logged_at = made  # engine events of the log checked so far
    for e in log[1:]:
        kind = str(e.get("e", ""))
        if kind.startswith(HARNESS):
            if kind == HARNESS + "bots":
                continue
            pending.append({**e, "say": say_harness(e)})
            if kind == HARNESS + "takeover":
                takeovers[e.get("seat")] = (e.get("by"), e.get("from_decision", 0))
            continue
        if kind != "decision":
            continue
        seat = e["seat"]
        if match.is_over:
            raise ValueError(f"decision {decisions} comes after the end of the match")
        if seat != last_seat or match.replay_part() is not part:
            turn += 1
        last_seat, part = seat, match.replay_part()
        outcome = match.apply_text(seat, e["text"])
        new = match.events[made:]
        _same(new, engine[logged_at:logged_at + len(new)], decisions)
        made, logged_at = len(match.events), logged_at + len(new)
        for x in new:
            if x.get("e") == "round_end":
                doc["rounds"].append(_round_entry(part.index, x.get("record") or {}, text))
        taken = takeovers.get(seat)
        add(turn=turn, decision=decisions, seat=seat, text=e["text"], events=_events(new, words), harness=pending,
            outcome={"accepted": outcome.accepted, "rule": outcome.rule, "reason": outcome.reason,
                     "penalty": outcome.penalty},
            played_by=taken[0] if taken and decisions >= taken[1] else None)
        pending, decisions = [], decisions + 1
        if not match.is_over and match.replay_part() is not part:  # the decision ended the round: the next deal
            part, last_seat = match.replay_part(), None
            first = next(i for i in range(len(new) - 1, -1, -1) if new[i].get("e") == "round_start")
            steps[-1]["events"] = _events(new[:first], words)
            add(turn=turn, events=_events(new[first:], words))
    if logged_at != len(engine):
        raise ValueError(f"the log has {len(engine) - logged_at} engine event(s) the replay did not make")
    if pending:
        steps[-1]["harness"] = steps[-1]["harness"] + pending
    return doc


__all__ = ["outcome_words", "replay_steps", "say", "say_harness", "standing", "variant_text"]
