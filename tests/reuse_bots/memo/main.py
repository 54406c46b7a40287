"""A protocol-2 bot that remembers every hand it was dealt, in every match its process serves, and
says on stderr, once per match, whether it was dealt a hand it held before (it would know the deal).

Arguments (bot.toml's command): ``fault-second`` answers its second match's first request with a
wrong sequence id; ``spin=S`` burns S CPU seconds at each match's first request. The play is the
starter kit's (kit.py, a copy of bots/kits/python/main.py).
"""

import os
import sys
import time

import kit

TOKEN = os.urandom(6).hex()  # this process, as the test tells processes apart
ARGS = sys.argv[1:]
SPIN = next((float(a[5:]) for a in ARGS if a.startswith("spin=")), 0.0)
held: set = set()  # every hand dealt to this process, in any match
matches = 0
repeats = 0


class Memo(kit.Bot):
    def on_hello(self, msg):
        global matches, repeats
        matches, repeats = matches + 1, 0
        self.first = True
        found = sorted(os.listdir("/tmp"))
        with open(f"/tmp/left-by-match-{matches}", "w") as f:
            f.write("a file the next match must not see")
        kit.log(f"token={TOKEN} match={matches} tmp={','.join(found)}")
        reply = super().on_hello(msg)
        return reply

    def on_round_start(self, msg):
        global repeats
        hand = tuple(sorted(msg["hand"]))
        if hand in held:
            repeats += 1
        held.add(hand)
        kit.log(f"token={TOKEN} match={matches} repeats={repeats} held={len(held)}")
        return super().on_round_start(msg)

    def on_request(self, msg):
        if self.first:
            self.first = False
            if "fault-second" in ARGS and matches == 2:
                return {"type": "decision", "seq": msg["seq"] + 7, "decision": {"draw": "stock"}}
            start = time.process_time()
            while time.process_time() - start < SPIN:
                pass
        return super().on_request(msg)


kit.Bot = Memo
kit.main()
