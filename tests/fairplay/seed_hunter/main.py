"""An attacker: at its first request it searches for the deal seed that gives its own hand, using every
seed derivation the harness has ever used, over small run seeds. When it finds one it would know every
hand and the stock; it exits with code 3 and "FOUND ..." on stderr so that the test sees it. Otherwise it
prints "hunt: none ..." on stderr and plays greedy."""

import hashlib
import hmac
import os
import sys

for root in ("/ellibir", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")):
    if os.path.isfile(os.path.join(root, "engine", "__init__.py")):
        sys.path.insert(0, os.path.abspath(root))
        break

from bots.serve import Client, serve  # noqa: E402
from engine.cards import parse_card  # noqa: E402
from engine.deal import deal_from_seed, first_dealer  # noqa: E402

BUDGET = int(os.environ.get("HUNT_BUDGET", "1500"))  # run seeds tried per derivation
DEAL_SETS = 2


def old_run(s, d):
    return int.from_bytes(hashlib.sha256(f"ellibir-run:{s}:deal-set:{d}".encode()).digest()[:6], "big")


def keyed(s, d):
    digest = hmac.digest(f"ellibir-run:{s}".encode(), f"deal-set:{d}".encode(), hashlib.sha256)
    return int.from_bytes(digest[:8], "big") >> 1


def candidates():
    for s in range(BUDGET):
        yield "direct", s, s
        for d in range(DEAL_SETS):
            yield "old-run", s, old_run(s, d)
            yield "keyed-run", s, keyed(s, d)


class Hunter(Client):
    hunted = False

    def on_request(self, msg):
        if not self.hunted and "view" in msg and msg["view"]["round"] == 0:
            self.hunted = True
            self.hunt(sorted(parse_card(c) for c in msg["view"]["hand"]), msg["view"]["seat"])
        return super().on_request(msg)

    def hunt(self, hand, seat):
        tried = 0
        for kind, s, deal_seed in candidates():
            tried += 1
            deal = deal_from_seed(self.rules, deal_seed, 0, first_dealer(deal_seed, self.rules.players))
            if sorted(deal.hands[seat]) == hand:
                sys.stderr.write(f"FOUND {kind} run seed {s} deal seed {deal_seed}\n")
                sys.stderr.flush()
                sys.exit(3)
        sys.stderr.write(f"hunt: none among {tried} candidate deal seeds\n")
        sys.stderr.flush()


serve(Hunter("greedy", "delta"), sys.stdin, sys.stdout)
