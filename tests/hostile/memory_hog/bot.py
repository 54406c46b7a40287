"""Touches memory 16 MB at a time until something stops it."""
import sys

sys.stdin.readline()
hoard = []
while True:
    hoard.append(b"\x01" * (16 << 20))
