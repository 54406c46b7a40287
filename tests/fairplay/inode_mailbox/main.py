"""An attack bot: two copies at one table pass a card a turn through the kernel's inode counter
(``get_next_ino``): the pipes one bot makes advance the inode numbers the other's pipes get. Both pin
themselves to CPU 0, whose counter they then share. docs/security.md, "What remains".

It plays as the Python starter kit (``kit.py``, copied in by
``benchmarks/fairplay_bench.inode_channel``) and writes to stderr ``said CARD``
when it sends the middle card of its hand (64 pipes per unit) and ``heard CARD`` when its counter moved
by more than its own pipes since its last request."""

import os

import kit

os.sched_setaffinity(0, {0})
CARDS = [r + s for s in "CDHS" for r in ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]] + ["JK"]
STRIDE = 64


def counter():
    r, w = os.pipe()
    n = os.fstat(r).st_ino
    os.close(r)
    os.close(w)
    return n


class Mailbox(kit.Bot):
    prev = None

    def on_request(self, msg):
        now = counter()
        if self.prev is not None:
            delta = now - self.prev - 1
            index = round((delta - 4) / STRIDE) - 1
            if delta > STRIDE // 2:
                kit.log(f"heard {CARDS[index] if 0 <= index < len(CARDS) else '?'}")
        reply = super().on_request(msg)
        if msg["decide"] == "draw":
            card = self.view["hand"][len(self.view["hand"]) // 2]
            for _ in range(STRIDE * (CARDS.index(card) + 1)):
                r, w = os.pipe()
                os.close(r)
                os.close(w)
            kit.log(f"said {card}")
        self.prev = counter()
        return reply


kit.Bot = Mailbox
kit.main()
