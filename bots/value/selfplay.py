"""Self-play data for V: matches of built-in bots with some noise, one row per play moment of every
seat (its features, bots/value/features.py) with what the round then gave that seat (the targets).

``play_games(spec, first, count)`` plays games ``first .. first+count-1`` of a data set and returns
its rows as columns (name -> list). A game is a pure function of (spec, its index), so a data set
can be played in any order, in batches, on any worker, and resumed: the batches a harness executor
plays are these index ranges.
"""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass, field

from engine import make_rules, new_match
from engine.decisions import STOCK

from .features import FEATURES, features

META = ("game", "round", "seat", "turn_number", "bot")
TARGETS = ("margin", "win", "score", "void")
COLUMNS = META + FEATURES + TARGETS


@dataclass(frozen=True)
class SelfPlay:
    """A self-play data set: the rules (a preset and field overrides), the bots drawn for each seat,
    how often a seat plays a random candidate instead of its bot's decision, and the seed."""

    preset: str = "standard"
    overrides: dict = field(default_factory=dict)
    bots: tuple = ("greedy", "outs")
    noise: float = 0.1
    seed: int = 0

    def rules(self):
        return make_rules(self.preset, dict(self.overrides))

    def to_json(self) -> dict:
        out = asdict(self)
        out["bots"] = list(self.bots)
        return out

    @classmethod
    def of_json(cls, data: dict) -> "SelfPlay":
        return cls(**{**data, "overrides": dict(data["overrides"]), "bots": tuple(data["bots"])})


def play_games(spec: SelfPlay, first: int, count: int, make=None) -> dict:
    """The rows of games ``first`` to ``first + count - 1`` of ``spec``, as columns."""
    from bots import make_bot

    make = make or make_bot
    rules = spec.rules()
    out = {name: [] for name in COLUMNS}
    for game in range(first, first + count):
        for row in play_game(spec, rules, game, make):
            for name, v in zip(COLUMNS, row):
                out[name].append(v)
    return out


def play_game(spec: SelfPlay, rules, game: int, make) -> list:
    rng = random.Random(f"selfplay:{spec.seed}:{game}")
    names = [rng.choice(spec.bots) for _ in range(rules.players)]
    bots = [Noisy(make(n, f"{spec.seed}:{game}:{s}"), spec.noise, f"{spec.seed}:{game}:{s}") for s, n in enumerate(names)]
    match = new_match("ellibir", rules, f"{spec.seed}:{game}")
    for s, bot in enumerate(bots):
        bot.start(s, rules)
    rows, pending, index = [], [], 0
    while not match.is_over:
        seat = match.to_move()
        view, legal = match.observe(seat), match.legal(seat)
        if view.phase == "play":
            pending.append([game, view.round_index, seat, view.turn, names[seat]] + features(view))
        outcome = match.apply(seat, bots[seat].decide(view, legal))
        if not outcome.accepted:
            bots[seat].refused(outcome)
        records = match.records
        while index < len(records):
            rows += [row + targets(records[index], row[2]) for row in pending if row[1] == records[index]["index"]]
            pending = [row for row in pending if row[1] != records[index]["index"]]
            index += 1
    return rows


def targets(record: dict, seat: int) -> list:
    """What the round gave ``seat``: its margin (the others' mean score minus its own, in points),
    whether it went out, its score, whether the round was void."""
    scores = [s["score"] for s in record["seats"]]
    others = [v for s, v in enumerate(scores) if s != seat]
    margin = sum(others) / len(others) - scores[seat]
    return [margin, float(record["winner"] == seat), float(scores[seat]), float(record["void"])]


class Noisy:
    """A bot that, with probability ``noise``, plays a random candidate turn of greedy's (other
    discards, waiting to open) or draws from the stock instead of taking the discard."""

    def __init__(self, bot, noise: float, seed):
        from bots.greedy import Greedy

        self.bot = bot
        self.noise = noise
        self.rng = random.Random(f"noise:{seed}")
        self.greedy = Greedy(seed)

    def start(self, seat: int, rules) -> None:
        self.bot.start(seat, rules)
        self.greedy.start(seat, rules)

    def refused(self, outcome) -> None:
        self.bot.refused(outcome)

    def decide(self, view, legal: dict):
        decision = self.bot.decide(view, legal)
        if self.noise <= 0 or self.rng.random() >= self.noise:
            return decision
        if view.phase == "draw":
            return STOCK if decision.source == "take" else decision
        from bots.candidates import play_options

        options = play_options(self.greedy, view, legal, 4)
        return self.rng.choice(options).turn()


__all__ = ["COLUMNS", "META", "Noisy", "SelfPlay", "TARGETS", "play_games"]
