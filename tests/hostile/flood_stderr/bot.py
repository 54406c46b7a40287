"""Floods stderr from a thread while answering every message; before each reply it also writes one
line of its own to stderr, so that line is in the pipe before the reply is."""
import sys
import threading


def flood():
    block = "e" * 65535 + "\n"
    while True:
        sys.stderr.write(block)


threading.Thread(target=flood, daemon=True).start()
for n, line in enumerate(sys.stdin):
    sys.stderr.write(f"before reply {n}\n")
    sys.stderr.flush()
    print('{"ok": true}', flush=True)
