"""Never answers: spins the CPU from the first message on."""
import sys

sys.stdin.readline()
while True:
    pass
