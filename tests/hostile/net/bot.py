"""Tries to connect to {"host", "port"}; reports what it saw on stdout and stderr."""
import json
import socket
import sys

for line in sys.stdin:
    msg = json.loads(line)
    seen = {}
    try:
        with socket.create_connection((msg["host"], msg["port"]), timeout=2) as s:
            s.sendall(b"hello from the bot\n")
        seen["connect"] = "connected"
    except OSError as e:
        seen["connect"] = repr(e)
    for name in ("AF_INET", "AF_INET6", "AF_PACKET", "AF_NETLINK"):
        try:
            socket.socket(getattr(socket, name), socket.SOCK_RAW if name == "AF_PACKET" else socket.SOCK_DGRAM).close()
            seen[name] = "opened"
        except OSError as e:
            seen[name] = repr(e)
    print(json.dumps(seen), file=sys.stderr, flush=True)
    print(json.dumps({"ok": True, "seen": seen}), flush=True)
