"""Users' and bots' names told apart ignoring case (migration 0008): a new name equal to another's but
for case is refused by the server with one line and by the database's unique index on lower(name);
the migration keeps the twins an older database holds, marked, and refuses new ones. On SQLite and
on PostgreSQL."""

from __future__ import annotations

import pytest
from sqlalchemy import insert, select, text
from sqlalchemy.exc import IntegrityError

from test_server import PASSWORD, kit_archive, site  # noqa: F401  (site: the fixture)
from test_server_quota import one_line


def test_names_equal_but_for_case_are_refused_by_the_server_and_by_the_database(site):
    from harness.arena.check import CheckReport
    from harness.server.tables import bots, users

    ann, bob = site.user("ann"), site.user("bob")
    for name in ("Ann", "ANN", "aNn"):
        one_line(site.http.post("/api/signup", json={"name": name, "password": PASSWORD}), 400,
                 f"the name {name} is taken: ann differs from it only in case")
    assert site.upload(ann, kit_archive("greedyish")).status_code == 202
    for who in (bob, ann):  # another user passing for ann, or ann herself: one name, one bot
        one_line(site.upload(who, kit_archive("GreedyIsh")), 409, "the name GreedyIsh is taken: greedyish differs")
    folder = site.server.work / "tmp" / "cli"  # a bot entered in the arena from its own machine
    folder.mkdir()
    (folder / "bot.toml").write_text('name = "Solo"\nversion = "1"\ncommand = ["python3", "main.py"]\n')
    (folder / "main.py").write_text("")
    site.server.arena.store(folder, 1, CheckReport(True, [], [], []))
    one_line(site.upload(bob, kit_archive("solo")), 409, "entered in the arena from its own machine (Solo:")
    assert site.column("users", "name") == ["ann", "bob"] and site.column("bots", "name") == ["greedyish"]

    ann_id = site.column("users", "id")[0]
    for table, row in ((users, {"name": "ANN", "password": "x", "admin": False, "created": 0.0}),
                       (bots, {"name": "GREEDYISH", "owner_id": ann_id, "created": 0.0})):
        with pytest.raises(IntegrityError), site.server.db.begin() as conn:  # past the server's own check
            conn.execute(insert(table).values(**row))


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request, tmp_path):
    """The URL of a fresh, empty database of each kind."""
    if request.param == "postgresql":
        return request.getfixturevalue("postgres").new_database()
    return f"sqlite:///{tmp_path / 'server.db'}"


def test_the_migration_keeps_the_twins_an_older_database_holds_and_refuses_new_ones(database, tmp_path):
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import create_engine, event

    from harness.server.accounts import Passwords
    from harness.server.db import MIGRATIONS, _sqlite_pragmas, upgrade
    from harness.server.service import Refused, Server
    from harness.server.settings import Settings
    from harness.server.tables import bots, users

    hashed = Passwords(1, 1024, 1).hash(PASSWORD)
    engine = create_engine(database)
    if engine.dialect.name == "sqlite":  # as the server opens it: foreign keys enforced
        event.listen(engine, "connect", _sqlite_pragmas)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:  # the database as the revision before made it, twins and all
        config.attributes["connection"] = conn
        command.upgrade(config, "0007")
        for name in ("ann", "Ann", "bob", "ANN"):
            conn.execute(text("INSERT INTO users (name, password, admin, created) VALUES (:n, :p, FALSE, 0)"),
                         {"n": name, "p": hashed})
        for name, owner in (("Greedy", 1), ("greedy", 2), ("other", 3)):
            conn.execute(text("INSERT INTO bots (name, owner_id, created) VALUES (:n, :o, 0)"), {"n": name, "o": owner})
        conn.execute(text(f"INSERT INTO tokens (digest, user_id, created, revoked) VALUES ('{'a' * 64}', 2, 0, FALSE)"))
    upgrade(engine)
    with engine.connect() as conn:
        marked = dict(conn.execute(select(users.c.name, users.c.case_twin).order_by(users.c.id)).all())
        assert marked == {"ann": False, "Ann": True, "bob": False, "ANN": True}
        assert dict(conn.execute(select(bots.c.name, bots.c.case_twin)).all()) == {"Greedy": False, "greedy": True,
                                                                           "other": False}
    with pytest.raises(IntegrityError), engine.begin() as conn:
        conn.execute(insert(users).values(name="aNN", password="x", admin=False, created=0.0))
    engine.dispose()
    server = Server(tmp_path / "arena", database, Settings(argon2=(1, 1024, 1)))
    try:
        with pytest.raises(Refused, match="the name BOB is taken: bob differs"):
            server.sign_up("BOB", PASSWORD, "127.0.0.1")
        server.sign_up("carol", PASSWORD, "127.0.0.1")
        assert server.who(server.log_in("Ann", PASSWORD, "127.0.0.1")).user_id == 2  # a twin as it was
    finally:
        server.close()
