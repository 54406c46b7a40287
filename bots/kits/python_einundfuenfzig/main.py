"""A minimal Einundfünfzig bot for the harness protocol (docs/protocol.md), standard library only.

Each turn it puts on the pile the card worth the most that keeps the total below 51 (a 7 counts 7
when that is safe, else 1); when every card reaches 51 it plays its lowest. As the first player
facing a face-up 7 it counts that 7 as 1. When the harness refuses a decision, it tries another
card. Make it play better by changing ``play``: it gets the current view and what is legal now.
"""

import json
import sys

NAME = "starter-python-einundfuenfzig"
VERSION = "1.0"
PROTOCOL = 2  # 2: this process may play many matches (new_match after match_end); 1: one match
GAME = "einundfuenfzig"
LIMIT = 51
VALUES = {"A": 1, "K": 4, "Q": 3, "J": 2, "10": -1, "9": 0, "8": 8}  # E1; a 7 counts 1 or 7


def log(text):
    """stderr is the bot's own log: the harness keeps its tail with the match."""
    print(text, file=sys.stderr, flush=True)


def values(card):
    rank = card[:-1]
    return [1, 7] if rank == "7" else [VALUES[rank]]


# The decision: change this to make the bot play ------------------------------------------------


def play(view, legal, avoid):
    """The card to put on the pile: {"card": C}, with "value" for a 7 and "start" when asked (E2)."""
    start = 1 if legal["start_choice"] else None
    total = legal["total"] + (start or 0)
    cards = [c for c in legal["cards"] if c not in avoid] or legal["cards"]
    options = [(v, c) for c in cards for v in values(c)]
    safe = [o for o in options if total + o[0] < LIMIT]
    value, card = max(safe) if safe else min(options)
    decision = {"card": card}
    if card.startswith("7"):
        decision["value"] = value
    if start is not None:
        decision["start"] = start
    return decision


# The protocol ---------------------------------------------------------------------------------


class Bot:
    def __init__(self):
        self.seat = None
        self.view = None  # the current view, rebuilt from full views and changed fields
        self.history = []  # this game's public events
        self.avoid = set()  # cards refused during this turn
        self.moment = None

    def on_hello(self, msg):
        if PROTOCOL not in msg.get("protocols", [1]) or msg["game"] != GAME:
            return {"type": "error", "seq": msg["seq"], "reason": f"{NAME} plays {GAME}, protocol {PROTOCOL}"}
        self.seat = msg["seat"]
        return {"type": "hello", "seq": msg["seq"], "name": NAME, "version": VERSION, "protocol": PROTOCOL}

    def on_match_end(self, msg):
        # Protocol 2: a new_match may follow, so do not exit; the loop ends when stdin closes.
        log(f"match over: ranks {msg['ranks']}")

    def on_new_match(self, msg):
        # The next match in this process: nothing of the last one carries over but what you keep on
        # purpose (the harness never shows a process the same deals twice).
        self.__init__()
        return self.on_hello(msg)

    def on_round_start(self, msg):
        self.view, self.history = None, []

    def on_events(self, msg):
        self.history.extend(msg["events"])

    def on_request(self, msg):
        if "view" in msg:
            self.view = msg["view"]
        else:
            self.view.update(msg["changed"])
        moment = (msg["round"], msg["turn"])
        if moment != self.moment:
            self.moment, self.avoid = moment, set()
        decision = play(self.view, msg["legal"], self.avoid)
        self.avoid.add(decision["card"])
        return {"type": "decision", "seq": msg["seq"], "decision": decision}

    def on_error(self, msg):
        log(f"refused ({msg['rule']}): {msg['reason']}")

    def on_round_end(self, msg):
        record = msg["record"]
        log(f"game {msg['round']}: seat {record['loser']} lost at {record['final_total']}, totals {msg['totals']}")


def main():
    bot = Bot()
    for line in sys.stdin:
        if not line.strip():
            continue
        msg = json.loads(line)
        handler = getattr(bot, "on_" + msg["type"], None)
        reply = handler(msg) if handler else None
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
