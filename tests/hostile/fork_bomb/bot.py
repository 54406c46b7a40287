"""Forks until the sandbox refuses; every child tries to fork too. Reports how far it got."""
import json
import os
import sys
import time


def bomb():
    while True:
        try:
            os.fork()
        except OSError:
            time.sleep(0.001)


sys.stdin.readline()
forks, error = 0, ""
while True:
    try:
        pid = os.fork()
    except OSError as e:
        error = str(e)
        break
    if pid == 0:
        bomb()
    forks += 1
print(json.dumps({"ok": True, "forks": forks, "error": error}), flush=True)
bomb()
