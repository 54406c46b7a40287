"""``make arena``'s entry: a user ``organiser`` signed up on a fresh server, and the bot folders given
uploaded by them. ``python -m harness.server.demo URL FOLDER...``; it waits up to a minute for the
server to answer."""

from __future__ import annotations

import secrets
import sys
import time

import httpx2 as httpx

from .client import submit


def main(url: str, folders: list) -> None:
    password = secrets.token_urlsafe(16)
    with httpx.Client(base_url=url, timeout=30) as http:
        for _attempt in range(120):
            try:
                http.post("/api/signup", json={"name": "organiser", "password": password}).raise_for_status()
                break
            except httpx.TransportError:
                time.sleep(0.5)  # the server is starting
        token = http.post("/api/login", json={"name": "organiser", "password": password}).json()["token"]
    for folder in folders:
        answer = submit(url, token, folder)
        print(f"entered {answer['name']} {answer['version']}: {answer['status']}")
    print(f"the organiser's password: {password}; browse {url}/")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
