"""The harness's cost of one decision request early and late in a round (issue 17: flat, no growth with the
round's history), for the request builder of harness/protocol/messages.py and, as the baseline, the full rebuild it
replaced (the whole view turned into JSON for every request, history included, then dropped for a delta)."""

from __future__ import annotations

import time

from bots import make_bot
from engine import make_rules, new_match
from harness.protocol.messages import SeatStream, view_json


class Rebuilt(SeatStream):
    """The builder before issue 17 (tests/test_protocol_incremental.py checks both send the same bytes)."""

    def request(self, seq, view, legal, limit, bank, refusals=0):
        current = view_json(view, self.seat)
        msg = {"type": "request", "seq": seq, "decide": legal.get("phase", view.phase),
               "round": view.round_index, "turn": view.turn}
        history = current.pop("history")
        if self.full or self.last is None or view.round_index != self.round:
            msg["view"] = {**current, "history": history}
        else:
            last = self.last
            msg["changed"] = {k: v for k, v in current.items() if last.get(k) != v}
        self.last = current
        self.round = view.round_index
        msg["legal"] = self.legal_json(legal)
        msg["time"] = {"limit": round(limit, 3), "bank": round(max(bank, 0.0), 3)}
        msg["refusals"] = refusals
        return msg


class StateOnly(SeatStream):
    """The floor: the view's own fields (no history) and the legal decisions in JSON form, nothing else.
    They grow over a round with the table and the pile, whatever the builder does."""

    def request(self, seq, view, legal, limit, bank, refusals=0):
        return {"view": view.to_json(history=False), "legal": self.legal_json(legal)}


def recorded_decisions(seeds=range(1, 7), players: int = 4) -> list:
    """Matches of greedy bots: per match, each decision as (seat, view, legal, events so far, part), where
    part says whether the decision lies in the first quarter of its round's turns (0), the last (2) or between (1)."""
    out = []
    for seed in seeds:
        rules = make_rules("standard", {"players": players, "rounds": 2})
        match = new_match("ellibir", rules, seed)
        bots = [make_bot("greedy", seed * 10 + s) for s in range(players)]
        for s, bot in enumerate(bots):
            bot.start(s, rules)
        steps = []
        while not match.is_over:
            s = match.to_move()
            view, legal = match.observe(s), match.legal(s)
            steps.append([s, view, legal, len(match.events), view.round_index])
            outcome = match.apply(s, bots[s].decide(view, legal))
            if not outcome.accepted:
                bots[s].refused(outcome)
        by_round: dict = {}
        for step in steps:
            by_round.setdefault(step[4], []).append(step)
        for steps_of_round in by_round.values():
            n = len(steps_of_round)
            for i, step in enumerate(steps_of_round):
                step[4] = 0 if i < n / 4 else 2 if i >= 3 * n / 4 else 1
        out.append((players, match.events, steps))
    return out


def _one_pass(kind, recorded, observation: str, sums: list, counts: list) -> None:
    clock = time.process_time_ns
    for players, events, steps in recorded:
        streams = [kind(s, players, observation) for s in range(players)]
        log: list = []
        for seq, (s, view, legal, upto, part) in enumerate(steps):
            log.extend(events[len(log):upto])
            start = clock()
            streams[s].catch_up(log)
            streams[s].request(seq, view, legal, 1.0, 5.0)
            sums[part] += clock() - start
            counts[part] += 1


def request_costs(passes: int = 12) -> dict:
    """Mean CPU µs per decision (catch_up and request) in the first and last quarter of the rounds' turns,
    for both builders and both observation modes, measured in interleaved passes over the same decisions."""
    recorded = recorded_decisions()
    kinds = {"incremental": SeatStream, "rebuilt": Rebuilt, "state": StateOnly}
    totals = {(k, o): ([0, 0, 0], [0, 0, 0]) for k in kinds for o in ("delta", "full")}
    for _ in range(passes):
        for observation in ("delta", "full"):
            for name, kind in kinds.items():
                _one_pass(kind, recorded, observation, *totals[(name, observation)])
    out = {}
    for (name, observation), (sums, counts) in totals.items():
        early, late = sums[0] / counts[0] / 1000, sums[2] / counts[2] / 1000
        out[(name, observation)] = {"early_us": early, "late_us": late, "ratio": late / early}
    return out


def main() -> None:
    for (name, observation), r in request_costs().items():
        print(f"{name:12} {observation:5}: early {r['early_us']:.1f} µs, late {r['late_us']:.1f} µs, "
              f"late/early {r['ratio']:.2f}")


if __name__ == "__main__":
    main()
