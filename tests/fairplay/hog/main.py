"""An attacker on the clock: at the handshake it starts HOGS children that spin for ever, each in a
session of its own (out of its process group), to starve whoever is thinking; then it plays greedy."""

import os
import sys

for root in ("/ellibir", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")):
    if os.path.isfile(os.path.join(root, "engine", "__init__.py")):
        sys.path.insert(0, os.path.abspath(root))
        break

from bots.serve import Client, serve  # noqa: E402

HOGS = 3


class Hog(Client):
    def on_hello(self, msg):
        for _ in range(HOGS):
            if os.fork() == 0:
                os.setsid()
                while True:
                    pass
        return super().on_hello(msg)


serve(Hog("greedy", "delta"), sys.stdin, sys.stdout)
