"""Answers three messages, then exits with code 7."""
import sys

for n in range(3):
    sys.stdin.readline()
    print('{"ok": true}', flush=True)
sys.stdin.readline()
print("giving up", file=sys.stderr, flush=True)
sys.exit(7)
