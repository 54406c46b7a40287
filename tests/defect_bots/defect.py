"""The Python starter kit (kit.py, a copy of bots/kits/python/main.py) with ONE defect an author might
ship, chosen by the command line: ``python3 main.py MODE`` (tests/defect_bots.py makes the folders).

  four_players   keeps a list per seat sized for three seats: crashes when seat 3 plays (4 players)
  three_players  a partner table written for 2 and 4 players: crashes at 3 players
  last_seat      "the seat before me" from a table of three entries: crashes only in seat 3
  seat0          checks its hand against hand_sizes[0], as if it always sat in seat 0
  round2         notes per round in a list made at hello with one entry: crashes in round 2
  second_match   protocol 2 without a new_match handler: crashes when its process is kept
  stdout_end     prints its result to stdout at match_end: under protocol 2 the next match's reply
  slowdown       recounts the whole match's events at every decision (quadratic): times out late
  leak           keeps 40 MB more every match in a kept process: out of memory after about 12
  pair_meld      counts the table's melds by kind and knows only runs and sets: crashes when a
                 pairs opener lays pairs down
  outside_file   reads an opening book from outside its folder (/work/book.json), no fallback
  retry_same     ignores must_keep and answers a refusal with the same decision (declares pairs
                 and takes discards into pairs: the taken card may not be discarded, P1)
"""

import json
import sys

import kit

MODE = sys.argv[1]
SLOW = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
kept = []  # leak: what the process keeps from match to match


class Defect(kit.Bot):
    def on_hello(self, msg):
        reply = super().on_hello(msg)
        self.players = msg["players"]
        self.per_seat = [0, 0, 0]
        self.round_notes = [[]]
        self.match_events = []
        if MODE == "three_players":
            self.partner = {2: None, 4: (self.seat + 2) % 4}[self.players]
        if MODE == "last_seat":
            self.before = [self.players - 1, 0, 1][self.seat]
        if MODE == "leak":
            kept.append(bytearray(b"x" * (40 << 20)))
        if MODE == "outside_file":
            with open("/work/book.json") as f:
                self.book = json.load(f)
        return reply

    def on_events(self, msg):
        super().on_events(msg)
        self.match_events.extend(msg["events"])
        for e in msg["events"]:
            if MODE == "four_players" and "seat" in e:
                self.per_seat[e["seat"]] += 1

    def on_request(self, msg):
        if MODE == "round2":
            self.round_notes[msg["round"]].append(msg["decide"])
        if MODE == "slowdown":
            cards = [e.get("card") for e in self.match_events]
            seen = 0
            for _ in range(int(SLOW)):
                for i, a in enumerate(cards):
                    for b in cards[:i]:
                        seen += a == b
        reply = super().on_request(msg)
        view = self.view
        if MODE == "seat0":
            assert len(view["hand"]) == view["hand_sizes"][0], "my hand and hand_sizes disagree"
        if MODE == "pair_meld":
            count = {"run": 0, "set": 0}
            for meld in view["table"]:
                count[meld["kind"]] += 1
        if MODE == "retry_same":
            reply["decision"] = self.pairs_play(msg, view, msg["legal"])
        return reply

    def pairs_play(self, msg, view, legal):
        """Goes for pairs (P1) with four pairs or more; takes a discard that pairs a card."""
        hand = view["hand"]
        pairs = sum(1 for c in set(hand) if hand.count(c) >= 2)
        if msg["decide"] == "draw":
            if view["declared"][self.seat] and legal["draw"].get("pair"):
                return {"draw": "pair"}
            return {"draw": "stock"}
        plays = [{"type": "declare"}] if legal.get("can_declare") and pairs >= 4 else []
        card = max(hand, key=lambda c: (c != "JK", kit.value(c)))  # must_keep not read
        return {"plays": plays, "discard": card}

    def on_match_end(self, msg):
        if MODE == "stdout_end":
            print(f"match over: ranks {msg['ranks']}")  # meant for stderr
            sys.stdout.flush()
            return None
        return super().on_match_end(msg)


if MODE == "second_match":
    del kit.Bot.on_new_match  # the kit's loop ignores a message without a handler: no reply

kit.Bot = Defect
kit.main()
