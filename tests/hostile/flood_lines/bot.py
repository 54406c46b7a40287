"""Answers the first message with an endless stream of replies."""
import sys

sys.stdin.readline()
block = b'{"ok": true}\n' * 4096
while True:
    sys.stdout.buffer.write(block)
