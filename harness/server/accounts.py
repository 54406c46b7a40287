"""Accounts and tokens: passwords hashed with argon2, API tokens random and stored as their sha256
only. A token names a user (the command line) or a worker (``ellibir worker``), never both."""

from __future__ import annotations

import functools
import hashlib
import re
import secrets

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import func, insert, or_, select, update

from .tables import tokens, users, workers

USER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{1,31}")
MIN_PASSWORD, MAX_PASSWORD = 10, 200
PREFIX = "ellibir_"


class Passwords:
    """argon2 with the server's costs (Settings.argon2); an unknown name is verified against a dummy
    hash, so that it takes as long as a known one."""

    def __init__(self, time_cost: int, memory_kib: int, parallelism: int):
        self.hasher = PasswordHasher(time_cost=time_cost, memory_cost=memory_kib, parallelism=parallelism)

    @functools.cached_property
    def dummy(self) -> str:
        return self.hasher.hash("a password nobody has")

    def hash(self, password: str) -> str:
        return self.hasher.hash(password)

    def verify(self, stored: str | None, password: str) -> bool:
        try:
            return self.hasher.verify(stored or self.dummy, password) and stored is not None
        except (VerificationError, InvalidHashError):
            return False


class AccountError(ValueError):
    """Bad account input: one line."""


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).hexdigest()


def new_token() -> str:
    return PREFIX + secrets.token_urlsafe(32)


def check_user_name(name: str) -> str:
    if not isinstance(name, str) or not USER_NAME.fullmatch(name):
        raise AccountError("a name is 2 to 32 letters, digits, '_', '.' or '-', starting with a letter or digit")
    return name


def check_password(password: str) -> str:
    if not isinstance(password, str) or not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise AccountError(f"a password is {MIN_PASSWORD} to {MAX_PASSWORD} characters")
    return password


def sign_up(conn, name: str, hashed: str, now: float) -> int:
    """A new user with the argon2 hash ``hashed`` of their password (never an admin: ``make_admin``)."""
    check_user_name(name)
    taken = conn.execute(select(users.c.name).where(func.lower(users.c.name) == name.lower())).first()
    if taken is not None:
        raise AccountError(taken_name(name, taken.name))
    return conn.execute(insert(users).values(name=name, password=hashed, admin=False,
                                             created=now)).inserted_primary_key[0]


def taken_name(name: str, taken: str) -> str:
    """The refusal of a new user's or bot's name equal to ``taken`` ignoring case (the database's index
    on lower(name) refuses it too)."""
    if name == taken:
        return f"the name {name} is taken"
    return f"the name {name} is taken: {taken} differs from it only in case, and names are told apart ignoring case"


def make_admin(conn, name: str) -> None:
    if not conn.execute(update(users).where(users.c.name == str(name)).values(admin=True)).rowcount:
        raise AccountError(f"no user {name}: they sign up first")


def password_of(conn, name: str) -> tuple:
    """(the user's id, their password's hash), or (None, None) for an unknown name."""
    row = conn.execute(select(users.c.id, users.c.password).where(users.c.name == str(name))).first()
    return (row.id, row.password) if row else (None, None)


def issue_token(conn, now: float, user_id: int | None = None, worker_id: int | None = None,
                life: float | None = None, idle: float | None = None) -> str:
    """A new token, lasting ``life`` seconds (None: until revoked) and, unused, ``idle`` seconds."""
    token = new_token()
    conn.execute(insert(tokens).values(digest=digest(token), user_id=user_id, worker_id=worker_id, created=now,
                                       revoked=False, expires=None if life is None else now + life,
                                       idle=None if idle is None else now + idle))
    return token


def touch(conn, token: str, idle_until: float) -> None:
    """A session used: it lasts unused until ``idle_until``."""
    conn.execute(update(tokens).where(tokens.c.digest == digest(token)).values(idle=idle_until))


def add_worker(conn, name: str, now: float, volunteer: bool = False) -> str:
    """A new worker (``volunteer``: one whose results are checked) and its token (shown once)."""
    check_user_name(name)
    if conn.execute(select(workers.c.id).where(workers.c.name == name)).first() is not None:
        raise AccountError(f"a worker named {name} exists")
    worker_id = conn.execute(insert(workers).values(name=name, created=now, volunteer=volunteer,
                                                    flagged="")).inserted_primary_key[0]
    return issue_token(conn, now, worker_id=worker_id)


def who(conn, token: str | None, now: float):
    """(user id, worker id, idle) of a token that is neither revoked nor expired at ``now``, or None."""
    if not token or not token.startswith(PREFIX) or len(token) > 200:
        return None
    return conn.execute(select(tokens.c.user_id, tokens.c.worker_id, tokens.c.idle)
                        .where(tokens.c.digest == digest(token), tokens.c.revoked.is_(False),
                               or_(tokens.c.expires.is_(None), tokens.c.expires > now),
                               or_(tokens.c.idle.is_(None), tokens.c.idle > now))).first()
