"""Floods stderr from a thread while answering every message."""
import sys
import threading


def flood():
    block = "e" * 65535 + "\n"
    while True:
        sys.stderr.write(block)


threading.Thread(target=flood, daemon=True).start()
for line in sys.stdin:
    print('{"ok": true}', flush=True)
