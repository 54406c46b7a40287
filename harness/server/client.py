"""The command line's side of the server: ``bot submit --server`` (the folder packed as tar.gz and
uploaded), ``bot list --server`` and ``bot delete --server``."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import httpx2 as httpx

from harness.arena.registry import check_bot_folder
from harness.players.botfiles import pack_folder
from harness.players.manifest import load_manifest


class ClientError(ValueError):
    """The server refused, or cannot be reached: one line."""


def _client(server: str, token: str | None) -> httpx.Client:
    if not server.startswith(("http://", "https://")):
        raise ClientError(f"--server {server!r}: give an http:// or https:// URL")
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.Client(base_url=server.rstrip("/"), headers=headers, timeout=120.0)


def _answer(response) -> dict | list:
    if response.status_code >= 400:
        try:
            detail = response.json().get("error")
        except (ValueError, AttributeError):
            detail = None
        retry = response.headers.get("retry-after")
        raise ClientError(f"the server refused ({response.status_code}): {detail or response.reason_phrase}"
                          + (f" (retry after {retry} s)" if retry else ""))
    return response.json()


def submit(server: str, token: str, folder: Path) -> dict:
    """Upload a bot folder; the server's answer (name, version, hash, status, new)."""
    load_manifest(folder)
    check_bot_folder(load_manifest(folder).folder, folder)
    data = pack_folder(load_manifest(folder).folder)
    try:
        with _client(server, token) as c:
            return _answer(c.post("/api/bots", content=data, headers={"Content-Type": "application/octet-stream"}))
    except httpx.HTTPError as e:
        raise ClientError(f"cannot reach {server}: {e}") from None


def listing(server: str, token: str | None = None) -> list:
    try:
        with _client(server, token) as c:
            return _answer(c.get("/api/bots"))
    except httpx.HTTPError as e:
        raise ClientError(f"cannot reach {server}: {e}") from None


def delete(server: str, token: str, name: str, version: str) -> dict:
    """Delete one of the token's owner's versions; the server's answer (name, version, status, freed,
    cancelled)."""
    try:
        with _client(server, token) as c:
            return _answer(c.delete(f"/api/bots/{quote(name, safe='')}/{quote(version, safe='')}"))
    except httpx.HTTPError as e:
        raise ClientError(f"cannot reach {server}: {e}") from None
