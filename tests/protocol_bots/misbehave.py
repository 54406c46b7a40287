"""A test bot that plays the simplest legal game, then misbehaves as its bot.toml says.

A sandboxed bot sees only its own folder, so the tests copy this file into each bot's folder as
main.py (test_protocol.materialise_bots); the folders here hold only their bot.toml.
Usage: python3 main.py MODE [ARG...]; the misbehaviour starts at the request numbered AT (3).
  wrong_seq   answers with the previous sequence id
  twice       answers twice
  not_json    answers with a line that is not JSON
  long_line   answers with a line of ARG bytes
  slow        sleeps ARG seconds before each of the first ARG2 answers (all of them without ARG2)
  stubborn    discards a card it does not hold, again after every refusal
  bloat N     answers every play request with an opening of about N bytes that the rules refuse
  crash       writes to stderr and exits with code 3
  decline     answers the handshake with an error
  polite      never misbehaves
"""

import json
import sys
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "polite"
ARGS = sys.argv[2:]
AT = 3
CARDS = [r + s for s in "CDHS" for r in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")] + ["JK"]


def say(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def decide(view, legal):
    if legal["phase"] == "draw":
        return {"draw": "stock"}
    hand = list(view["hand"])
    for card in legal["must_keep"]:
        hand.remove(card)
    return {"discard": hand[-1]}


def main():
    print(f"test bot {MODE}: starting", file=sys.stderr, flush=True)
    view, requests = None, 0
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg["type"]
        if kind == "hello":
            if MODE == "decline":
                say({"type": "error", "seq": msg["seq"], "reason": "test bot decline plays nothing"})
                continue
            say({"type": "hello", "seq": msg["seq"], "name": f"test-{MODE}", "version": "0"})
        elif kind == "request":
            requests += 1
            view = msg["view"] if "view" in msg else {**view, **msg["changed"]}
            reply = {"type": "decision", "seq": msg["seq"], "decision": decide(view, msg["legal"])}
            late = requests >= AT
            if MODE == "slow" and (len(ARGS) < 2 or requests <= int(ARGS[1])):
                time.sleep(float(ARGS[0]))
            if MODE == "bloat" and msg["decide"] == "play":
                cards = ["2C"] * (int(ARGS[0]) // 7)  # each card takes 6 bytes: "2C", 
                reply["decision"] = {"plays": [{"type": "open", "melds": [{"kind": "run", "cards": cards}]}],
                                     "discard": reply["decision"]["discard"]}
            elif MODE == "stubborn" and msg["decide"] == "play":
                reply["decision"] = {"discard": next(c for c in CARDS if c not in view["hand"])}
            elif late and MODE == "wrong_seq":
                reply["seq"] = msg["seq"] - 1
            elif late and MODE == "twice":
                sys.stdout.write((json.dumps(reply) + "\n") * 2)
                sys.stdout.flush()
                continue
            elif late and MODE == "not_json":
                sys.stdout.write("this is not JSON\n")
                sys.stdout.flush()
                continue
            elif late and MODE == "long_line":
                sys.stdout.write("x" * int(ARGS[0]) + "\n")
                sys.stdout.flush()
                continue
            elif late and MODE == "crash":
                print(f"test bot {MODE}: dying on purpose", file=sys.stderr, flush=True)
                sys.exit(3)
            say(reply)
        elif kind == "error":
            print(f"test bot {MODE}: refused {msg['rule']}: {msg['reason']}", file=sys.stderr, flush=True)
        elif kind == "match_end":
            return


main()
