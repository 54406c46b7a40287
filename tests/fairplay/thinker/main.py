"""A victim that thinks: before each decision it burns a fixed amount of CPU time (THINK seconds, from
argv), then plays greedy. On stderr it reports the wall time each think took."""

import os
import sys
import time

for root in ("/ellibir", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")):
    if os.path.isfile(os.path.join(root, "engine", "__init__.py")):
        sys.path.insert(0, os.path.abspath(root))
        break

from bots.serve import Client, serve  # noqa: E402

THINK = float(sys.argv[1]) if len(sys.argv) > 1 else 0.1


class Thinker(Client):
    def on_request(self, msg):
        wall, cpu = time.monotonic(), time.process_time()
        while time.process_time() - cpu < THINK:
            pass
        sys.stderr.write(f"think {time.monotonic() - wall:.4f}\n")
        sys.stderr.flush()
        return super().on_request(msg)


serve(Thinker("greedy", "delta"), sys.stdin, sys.stdout)
