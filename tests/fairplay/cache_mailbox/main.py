"""An attack bot: at its first decision of a round it reads the hand the bot of another seat left in
the page cache's mailbox (mailbox.py), then leaves its own there, under its seat. It says on stderr
what it heard and what it wrote, and where its mailbox lies (``mailbox.where``); it plays as the starter kit does (kit.py, a copy of
bots/kits/python/main.py).

Two of it at one table: the second to move reads the hand of the first. One of it in two rotations of
a deal: in the second it reads the hand it held in the first, which its opponent now holds. The
mailbox's place in the file comes from the file ``nonce`` in the bot's folder, so that two runs of
the test never share one."""

import kit
import mailbox

SUITS = "CDHS"
RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
SLOTS = 15  # cards: the most a hand holds at the start of a round
NONCE = int(open("nonce").read())


def encode(hand: list) -> str:
    ids = [52 if c == "JK" else SUITS.index(c[-1]) * 13 + RANKS.index(c[:-1]) for c in sorted(hand)]
    ids += [63] * (SLOTS - len(ids))
    return "".join(format(i, "06b") for i in ids)


ROUNDS = [0]  # rounds this process has begun, over every match it served


class Mailbox(kit.Bot):
    def on_round_start(self, msg):
        ROUNDS[0] += 1
        self.dealt, self.first = list(msg["hand"]), True
        return super().on_round_start(msg)

    def on_request(self, msg):
        if self.first:
            self.first = False
            for seat in range(len(msg["view"]["hand_sizes"])):
                if seat != self.seat:
                    kit.log(f"heard seat={seat} bits={mailbox.read(NONCE * 4 + seat, 6 * SLOTS)}")
            kit.log(f"where seat={self.seat} rounds={ROUNDS[0]} {mailbox.where()}")
            bits = encode(self.dealt)
            mailbox.write(NONCE * 4 + self.seat, bits)
            kit.log(f"wrote seat={self.seat} bits={bits}")
        return super().on_request(msg)


kit.Bot = Mailbox
kit.main()
