"""A test bot in the shape of a new author's first bot: plays the simplest legal game, then goes wrong
the way its command line says (the tests of issue 15: tests/test_author_loop.py).

A sandboxed bot sees only its own folder, so the tests copy this file into each bot's folder as
main.py. Usage: python3 main.py MODE [ARG]; the trouble starts at request AT (3).
  polite      never goes wrong; writes one stderr line per request
  crash       writes a message to stderr and exits with code 3
  rule        discards a card it does not hold, always (refused, then a fault)
  rule_once   discards a card it does not hold once per round, then plays on
  slow S      sleeps S seconds before every reply from request AT on
  noflush     writes its replies without flushing them
  tmpfile     writes a debug file in /tmp at every request
  misname     answers hello with another name and version than its bot.toml's
  crash_seat1 crashes like crash, but only when it sits in seat 1
  bad_open N  tries to open with three cards that are no meld, once a round in its first N rounds
              of a match (each try refused with an O4 penalty of 50 points), then plays on
  slow_late S N  sleeps S seconds before a reply once the stock holds fewer than N cards
"""

import json
import os
import sys
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "polite"
ARG = sys.argv[2] if len(sys.argv) > 2 else ""
AT = 3
CARDS = [r + s for s in "CDHS" for r in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")] + ["JK"]


def say(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    if MODE != "noflush":
        sys.stdout.flush()


def decide(view, legal):
    if legal["phase"] == "draw":
        return {"draw": "stock"}
    hand = list(view["hand"])
    for card in legal["must_keep"]:
        hand.remove(card)
    return {"discard": hand[-1]}


def bad_opening(view, legal):
    """An opening of the first three cards as a run: never a meld worth the threshold."""
    hand = list(view["hand"])
    return {"plays": [{"type": "open", "melds": [{"kind": "run", "cards": hand[:3]}]}],
            "discard": decide(view, legal)["discard"]}


def main():
    print(f"author bot {MODE}: starting", file=sys.stderr, flush=True)
    view, requests, broken_rounds, seat = None, 0, set(), -1
    rounds_seen = set()
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg["type"]
        if kind == "hello":
            seat = msg["seat"]
            print(f"author bot {MODE}: seat {seat}", file=sys.stderr, flush=True)
            name, version = ("someone-else", "9.9") if MODE == "misname" else (f"author-{MODE}", "1")
            say({"type": "hello", "seq": msg["seq"], "name": name, "version": version})
        elif kind == "request":
            requests += 1
            view = msg["view"] if "view" in msg else {**view, **msg["changed"]}
            reply = {"type": "decision", "seq": msg["seq"], "decision": decide(view, msg["legal"])}
            print(f"author bot {MODE}: request {msg['seq']} ({msg['decide']})", file=sys.stderr, flush=True)
            late = requests >= AT
            if late and (MODE == "crash" or (MODE == "crash_seat1" and seat == 1)):
                print("author bot crash: KeyError: 'melds' -- giving up", file=sys.stderr, flush=True)
                sys.exit(3)
            if MODE == "slow" and late:
                time.sleep(float(ARG))
            if MODE == "slow_late" and view["stock_size"] < int(sys.argv[3]):
                time.sleep(float(ARG))
            rounds_seen.add(msg["round"])
            if (MODE == "bad_open" and msg["decide"] == "play" and msg["round"] not in broken_rounds
                    and len(rounds_seen) <= int(ARG) and msg["refusals"] == 0 and not view["opened"][seat]):
                broken_rounds.add(msg["round"])
                reply["decision"] = bad_opening(view, msg["legal"])
            if MODE == "tmpfile":
                with open(os.path.join(os.environ.get("TMPDIR", "/tmp"), "debug.txt"), "a") as f:
                    f.write(f"request {msg['seq']}\n")
            wrong = MODE == "rule" or (MODE == "rule_once" and msg["round"] not in broken_rounds)
            if wrong and msg["decide"] == "play":
                broken_rounds.add(msg["round"])
                reply["decision"] = {"discard": next(c for c in CARDS if c not in view["hand"])}
            say(reply)
        elif kind == "error":
            print(f"author bot {MODE}: refused {msg['rule']}: {msg['reason']}", file=sys.stderr, flush=True)
        elif kind == "match_end":
            return



main()
