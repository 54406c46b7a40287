"""A minimal Ellibir bot for the harness protocol (docs/protocol.md), standard library only.

It draws from the stock and discards its highest-value card (never a joker, while it has another
card); when the harness refuses a decision, it tries another card. Make it play better by
changing ``draw`` and ``play``: both get the current view and what is legal now.

Run it by hand to see the protocol:  echo '{"type":"hello","seq":1,"protocol":1,"protocols":[1,2],...}' | python3 main.py
"""

import json
import sys

NAME = "starter-python"
VERSION = "1.0"
PROTOCOL = 2  # 2: this process may play many matches (new_match after match_end); 1: one match


def log(text):
    """stderr is the bot's own log: the harness keeps its tail with the match."""
    print(text, file=sys.stderr, flush=True)


def value(card):
    """C3: 2-10 their number, J Q K 10, A 11, the joker 25."""
    if card == "JK":
        return 25
    rank = card[:-1]
    return {"J": 10, "Q": 10, "K": 10, "A": 11}.get(rank) or int(rank)


def discardable(view, legal):
    """The cards of the hand that may be discarded: the hand less the copies in legal["must_keep"]."""
    cards = list(view["hand"])
    for card in legal.get("must_keep", []):
        if card in cards:
            cards.remove(card)
    return cards


# The decisions: change these two to make the bot play ----------------------------------------


def draw(view, legal, avoid):
    """The draw decision (docs/engine.md): draw the top of the stock."""
    return {"draw": "stock"}


def play(view, legal, avoid):
    """The play decision: no plays, discard the highest card not refused already this turn."""
    cards = discardable(view, legal)
    fresh = [c for c in cards if c not in avoid] or cards
    card = max(fresh, key=lambda c: (c != "JK", value(c)))
    return {"plays": [], "discard": card}


# The protocol ---------------------------------------------------------------------------------


class Bot:
    def __init__(self):
        self.seat = None
        self.rules = None
        self.view = None  # the current view, rebuilt from full views and changed fields
        self.history = []  # this round's public events
        self.avoid = set()  # discards refused during this turn
        self.moment = None

    def on_hello(self, msg):
        if PROTOCOL not in msg.get("protocols", [1]) or msg["game"] != "ellibir":
            return {"type": "error", "seq": msg["seq"], "reason": f"{NAME} plays ellibir, protocol {PROTOCOL}"}
        self.seat, self.rules = msg["seat"], msg["rules"]
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
        moment = (msg["round"], msg["turn"], msg["decide"])
        if moment != self.moment:
            self.moment, self.avoid = moment, set()
        decide = draw if msg["decide"] == "draw" else play
        decision = decide(self.view, msg["legal"], self.avoid)
        if "discard" in decision:
            self.avoid.add(decision["discard"])
        return {"type": "decision", "seq": msg["seq"], "decision": decision}

    def on_error(self, msg):
        log(f"refused ({msg['rule']}): {msg['reason']}")

    def on_round_end(self, msg):
        log(f"round {msg['round']}: score {msg['record']['seats'][self.seat]['score']}, totals {msg['totals']}")


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
