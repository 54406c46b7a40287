"""Writes to stdout forever without a newline."""
import sys

sys.stdin.readline()
block = b"x" * 65536
while True:
    sys.stdout.buffer.write(block)
