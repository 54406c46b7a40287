"""A test bot (the Python starter kit, copied beside this file as kit.py) that works after the match:
with ``spin`` (protocol 2) it spins from ``match_end`` until its next message comes, and writes to
stderr how much CPU that took; with ``linger`` (protocol 1) it stays after its stdin ends, until killed."""

import select
import sys
import time

import kit

MODE = sys.argv[1]
kit.PROTOCOL = 2 if MODE == "spin" else 1


class AfterEnd(kit.Bot):
    def on_match_end(self, msg):
        if MODE != "spin":
            return
        start = time.process_time()
        while not select.select([sys.stdin], [], [], 0)[0]:
            pass
        kit.log(f"after match_end: {time.process_time() - start:.3f} s of CPU")


kit.Bot = AfterEnd
kit.main()
if MODE == "linger":
    time.sleep(3600)
