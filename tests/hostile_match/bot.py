"""The Python starter kit (copied beside this file as kit.py) that turns hostile at its Nth request.

Usage: python3 bot.py BEHAVIOUR N [ARG]. Probing behaviours (network, snoop, write, daemon) write
what they saw to stderr, one line starting with "probe:", and then go on playing legally.
"""

import os
import socket
import sys
import time

import kit

BEHAVIOUR, AT = sys.argv[1], int(sys.argv[2])
ARG = sys.argv[3] if len(sys.argv) > 3 else ""


def probe(name, action):
    try:
        action()
        kit.log(f"probe: {name}: succeeded")
    except Exception as e:  # the point is to see it fail
        kit.log(f"probe: {name}: failed: {type(e).__name__}")


def fork_bomb():
    while True:
        try:
            os.fork()
        except OSError:
            time.sleep(0.001)


def misbehave():
    if BEHAVIOUR == "spin":
        while True:
            pass
    if BEHAVIOUR == "sleep":
        time.sleep(3600)
    if BEHAVIOUR == "crash":
        kit.log("crashing mid-match")
        sys.exit(5)
    if BEHAVIOUR == "flood_stdout":
        while True:
            sys.stdout.write("x" * 65536)
    if BEHAVIOUR == "flood_stderr":
        for _ in range(2000):
            sys.stderr.write("noise " * 2000 + "\n")
    if BEHAVIOUR == "fork_bomb":
        fork_bomb()
    if BEHAVIOUR == "memory_hog":
        hoard = []
        while True:
            hoard.append(b"\x01" * (16 << 20))
    if BEHAVIOUR == "network":
        probe("connect", lambda: socket.create_connection(("127.0.0.1", int(ARG)), timeout=1).close())
    if BEHAVIOUR == "snoop":
        for path in ARG.split(","):
            probe(f"read {path}", lambda: open(path, "rb").read(1))
    if BEHAVIOUR == "write":
        for path in ARG.split(","):
            probe(f"write {path}", lambda: open(path, "w").write("x"))
    if BEHAVIOUR == "daemon":
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                for fd in (0, 1, 2):
                    os.close(fd)
                while True:
                    time.sleep(0.05)
            os._exit(0)
        os.wait()
        kit.log("probe: daemon: forked")


requests = 0
on_request = kit.Bot.on_request


def hostile_request(self, msg):
    global requests
    requests += 1
    if requests == AT:
        misbehave()
    return on_request(self, msg)


kit.Bot.on_request = hostile_request
kit.main()
