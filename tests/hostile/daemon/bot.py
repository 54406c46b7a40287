"""Double-forks a grandchild in its own session, meant to outlive the bot, then answers normally."""
import json
import os
import sys
import time

sys.stdin.readline()
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        for fd in (0, 1, 2):
            os.close(fd)
        while True:
            time.sleep(0.05)
    os._exit(0)
os.wait()
print(json.dumps({"ok": True}), flush=True)
for line in sys.stdin:
    print(json.dumps({"ok": True}), flush=True)
