"""Answers with something that is not JSON, then JSON that is not an object, then properly."""
import sys

for answer in ("this is not json", "[1, 2, 3]", '{"ok": true}'):
    sys.stdin.readline()
    print(answer, flush=True)
