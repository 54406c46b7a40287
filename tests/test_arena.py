"""The arena (harness/arena/registry.py): ``ellibir bot submit`` checks a bot and stores a read-only,
hash-identified copy; rejected submissions store nothing; ``bot list``; submitted bots are named
NAME or NAME@VERSION wherever bot folders are (``resolve_bot``, players, ``play --arena``)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import tempfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.arena.registry import (
    Arena, ArenaError, CheckFailed, Submission, VersionConflict, content_hash, pin_bots, remove_tree, resolve_bot,
    resolver, using_arena,
)
from harness.cli.main import app
from harness.players.base import PlayerError
from harness.players.program import SubprocessPlayer
from harness.players.make import make_player, parse_player_name
from harness.sandbox.bubblewrap import sandbox_available

from test_protocol import PROTOCOL_BOTS

ROOT = Path(__file__).resolve().parent.parent
KIT = ROOT / "bots" / "kits" / "python"
runner = CliRunner()
needs_sandbox = pytest.mark.skipif(not sandbox_available(), reason="the sandbox (bubblewrap, root) is not available here")


@pytest.fixture
def place():
    """A folder readable by others (the sandbox runs bots as another uid), with ``arena`` in it."""
    top = Path(tempfile.mkdtemp(prefix="ellibir-arena-test-"))
    top.chmod(0o755)
    yield top
    remove_tree(top)


def kit(where: Path, name: str = "mybot", version: str = "1.0", extra: str = "") -> Path:
    """The Python starter kit, renamed; ``extra`` is appended to its main.py (a changed bot)."""
    folder = where / f"src-{name}-{version}{'-changed' if extra else ''}"
    shutil.copytree(KIT, folder)
    (folder / "bot.toml").write_text(f'name = "{name}"\nversion = "{version}"\ncommand = ["python3", "main.py"]\n')
    if extra:
        with open(folder / "main.py", "a") as f:
            f.write(extra)
    return folder


def snapshot(folder: Path) -> dict:
    """Everything under ``folder``: relative path -> (mode, bytes or None)."""
    if not folder.exists():
        return {}
    out = {}
    for top, dirs, files in os.walk(folder):
        for n in dirs + files:
            p = Path(top) / n
            st = p.lstat()
            out[str(p.relative_to(folder))] = (st.st_mode, p.read_bytes() if p.is_file() else None)
    return out


def cli(*args):
    return runner.invoke(app, [str(a) for a in args])


# content_hash --------------------------------------------------------------------------------------


def test_content_hash_is_over_sorted_paths_and_bytes_ignoring_pycache_and_git(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for folder, order in ((a, ("x.py", "sub/y.txt")), (b, ("sub/y.txt", "x.py"))):
        for rel in order:  # made in another order: the same hash
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            (folder / rel).write_bytes(rel.encode() * 3)
    assert content_hash(a) == content_hash(b)
    assert len(content_hash(a)) == 64 and int(content_hash(a), 16) >= 0
    (b / "__pycache__").mkdir()
    (b / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"junk")
    (b / "sub" / ".git").mkdir()
    (b / "sub" / ".git" / "HEAD").write_text("ref")
    assert content_hash(a) == content_hash(b)  # only __pycache__ and .git are ignored
    (b / ".gitignore").write_text("")
    assert content_hash(a) != content_hash(b)
    (b / ".gitignore").unlink()
    (b / "x.py").write_bytes(b"other")
    assert content_hash(a) != content_hash(b)
    (b / "x.py").write_bytes(b"x.py" * 3)
    (b / "x.py").rename(b / "z.py")  # same bytes, another path
    assert content_hash(a) != content_hash(b)


def test_content_hash_of_a_missing_folder_is_an_arena_error(tmp_path):
    with pytest.raises(ArenaError, match="not a folder"):
        content_hash(tmp_path / "nothing")


# Submitting ----------------------------------------------------------------------------------------


@needs_sandbox
def test_a_good_bot_is_stored_read_only_and_hash_identified(place):
    src = kit(place)
    (src / "__pycache__").mkdir()
    (src / "__pycache__" / "main.cpython-311.pyc").write_bytes(b"\0junk")
    arena = Arena(place / "arena")
    s = arena.submit(src)
    assert isinstance(s, Submission) and (s.name, s.version) == ("mybot", "1.0")
    assert s.hash == content_hash(src) == content_hash(s.folder)
    assert s.check["passed"] is True and s.check["matches"] == 3
    assert s.date.endswith("+00:00") and "T" in s.date
    assert s.folder.is_relative_to(arena.root) and not s.folder.is_relative_to(src)
    assert sorted(p.name for p in s.folder.iterdir()) == ["README.md", "bot.toml", "main.py"]  # no __pycache__
    assert (s.folder / "main.py").read_bytes() == (src / "main.py").read_bytes()
    for path in [s.folder.parent, s.folder, *s.folder.rglob("*")]:
        mode = stat.S_IMODE(path.stat().st_mode)
        assert mode == (0o555 if path.is_dir() else 0o444), (path, oct(mode))  # read-only, readable by others
    record = json.loads((s.folder.parent / "submission.json").read_text())
    assert stat.S_IMODE((s.folder.parent / "submission.json").stat().st_mode) == 0o444
    assert {k: record[k] for k in ("name", "version", "hash", "date")} == \
        {"name": "mybot", "version": "1.0", "hash": s.hash, "date": s.date}
    assert record["check"]["passed"] and any("handshake: ok" in line for line in record["check"]["lines"])
    assert not [p for p in arena.root.iterdir() if p.name.startswith(".")]  # no staging left
    assert arena.list() == [s] and arena.find("mybot") == s == arena.find("mybot", "1.0")


@needs_sandbox
def test_executable_files_stay_executable_and_count_in_the_hash(place):
    src = kit(place)
    (src / "run.sh").write_text("#!/bin/sh\nexec python3 main.py\n")
    (src / "run.sh").chmod(0o755)
    (src / "bot.toml").write_text('name = "shbot"\nversion = "1"\ncommand = ["./run.sh"]\n')
    plain = content_hash(src)
    s = Arena(place / "arena").submit(src)
    assert stat.S_IMODE((s.folder / "run.sh").stat().st_mode) == 0o555
    assert s.hash == plain == content_hash(s.folder)
    (src / "run.sh").chmod(0o644)
    assert content_hash(src) != plain


@needs_sandbox
def test_resubmitting_the_same_bot_is_there_already_and_a_changed_one_needs_a_new_version(place):
    arena = Arena(place / "arena")
    src = kit(place)
    first = arena.submit(src)
    before = snapshot(arena.root)
    again, stored = arena.store(src)
    assert again == first and stored is False
    assert arena.store(first.folder) == (first, False)  # the stored copy itself: the same content
    assert snapshot(arena.root) == before
    changed = kit(place, extra="# a change\n")
    with pytest.raises(VersionConflict) as e:
        arena.submit(changed)
    assert "new version" in e.value.reasons[0] and first.hash[:12] in e.value.reasons[0]
    assert snapshot(arena.root) == before
    bumped = kit(place, version="1.1", extra="# a change\n")
    newer = arena.submit(bumped)
    assert newer.hash != first.hash and newer.hash == content_hash(bumped) == content_hash(newer.folder)
    assert [(s.name, s.version) for s in arena.list()] == [("mybot", "1.0"), ("mybot", "1.1")]


@needs_sandbox
@pytest.mark.parametrize("bot,words", [
    ("crash", "crash: "),
    ("decline", "handshake: declined: the bot cannot play: test bot decline plays nothing"),
])
def test_a_bot_failing_its_check_is_rejected_with_its_reasons_and_nothing_is_stored(place, bot, words):
    arena = Arena(place / "arena")
    arena.submit(kit(place))  # an arena with something in it already
    before = snapshot(arena.root)
    with pytest.raises(CheckFailed) as e:
        arena.submit(PROTOCOL_BOTS / bot)
    assert e.value.reasons and all(words in r for r in e.value.reasons)
    assert all("\n" not in r for r in e.value.reasons)
    assert snapshot(arena.root) == before
    empty = Arena(place / "fresh" / "arena")  # an arena that did not exist: it still does not
    with pytest.raises(CheckFailed):
        empty.submit(PROTOCOL_BOTS / bot)
    assert not (place / "fresh").exists()


@pytest.mark.parametrize("manifest,words", [
    ('name = "x"\nversion = "1"\n', "missing field 'command'"),
    ('version = "1"\ncommand = ["python3", "main.py"]\n', "missing field 'name'"),
    ('name = "x y"\nversion = "1"\ncommand = ["a"]\n', "name must be"),
    (None, "no bot.toml"),
])
def test_a_bad_manifest_is_bad_input_and_nothing_is_stored(place, manifest, words):
    src = place / "bad"
    src.mkdir()
    (src / "main.py").write_text("")
    if manifest is not None:
        (src / "bot.toml").write_text(manifest)
    arena = Arena(place / "arena")
    with pytest.raises(ArenaError, match=words) as e:
        arena.submit(src)
    assert not isinstance(e.value, CheckFailed)
    assert not arena.root.exists()
    result = cli("bot", "submit", src, "--arena", arena.root)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0] and lines[0].startswith("error: ")
    assert not arena.root.exists()


def test_symbolic_links_and_an_arena_inside_the_bot_are_refused(place):
    src = kit(place)
    (src / "link").symlink_to("/etc/passwd")
    with pytest.raises(ArenaError, match="symbolic link"):
        Arena(place / "arena").submit(src)
    (src / "link").unlink()
    with pytest.raises(ArenaError, match="inside the bot folder"):
        Arena(src / "arena").submit(src)
    assert not (place / "arena").exists() and not (src / "arena").exists()


def test_an_arena_path_that_is_a_file_is_an_error(place):
    (place / "arena").write_text("")
    with pytest.raises(ArenaError, match="not a folder"):
        Arena(place / "arena").list()
    assert cli("bot", "list", "--arena", place / "arena").exit_code == 2


# The command line ----------------------------------------------------------------------------------


@needs_sandbox
def test_cli_submit_list_and_exit_codes(place):
    where = place / "arena"
    src = kit(place)
    ok = cli("bot", "submit", src, "--arena", where)
    assert ok.exit_code == 0, ok.output
    assert ok.stdout.startswith("submitted mybot 1.0 (hash ") and str(where) in ok.stdout
    same = cli("bot", "submit", src, "--arena", where)
    assert same.exit_code == 0 and "already in the arena" in same.stdout
    before = snapshot(where)
    conflict = cli("bot", "submit", kit(place, extra="# changed\n"), "--arena", where)
    assert conflict.exit_code == 1
    assert conflict.stderr.strip().splitlines() == [line for line in conflict.stderr.strip().splitlines()
                                                    if line.startswith("rejected: ")]
    assert "new version" in conflict.stderr
    crash = cli("bot", "submit", PROTOCOL_BOTS / "crash", "--arena", where)
    assert crash.exit_code == 1 and crash.stderr.count("rejected: ") == 3 and "crash" in crash.stderr
    assert cli("bot", "submit", place / "nothing", "--arena", where).exit_code == 2
    assert snapshot(where) == before

    table = cli("bot", "list", "--arena", where)
    assert table.exit_code == 0
    header, row = table.stdout.strip().splitlines()
    assert header.split()[:6] == ["NAME", "VERSION", "HASH", "DATE", "(UTC)", "RATING"]
    assert header.endswith("RATING (ladder: Elo scale, the reference bot is 1500)")  # the anchor, stated
    stored = Arena(where).find("mybot")
    assert row.split()[:3] == ["mybot", "1.0", stored.hash[:12]] and row.split()[-1] == "\u2014"
    doc = json.loads(cli("bot", "list", "--arena", where, "--json").stdout)
    assert doc == [{**stored.to_json(), "rating": None, "ladders": []}]
    (place / "empty").mkdir()
    assert "no bots in the arena" in cli("bot", "list", "--arena", place / "empty").stdout
    assert json.loads(cli("bot", "list", "--arena", place / "empty", "--json").stdout) == []


@needs_sandbox
def test_the_arena_defaults_to_the_environment_variable(place, monkeypatch):
    monkeypatch.setenv("ELLIBIR_ARENA", str(place / "from-env"))
    assert Arena().root == place / "from-env"
    assert cli("bot", "submit", kit(place)).exit_code == 0
    assert [s.name for s in Arena(place / "from-env").list()] == ["mybot"]
    assert "mybot" in cli("bot", "list").stdout
    monkeypatch.delenv("ELLIBIR_ARENA")
    monkeypatch.chdir(place)
    assert Arena().root == place / "arena"


# Naming bots ---------------------------------------------------------------------------------------


@needs_sandbox
def test_name_at_version_and_the_latest_version(place):
    arena = Arena(place / "arena")
    v2 = arena.submit(kit(place, version="2.0"))
    v10 = arena.submit(kit(place, version="1.10", extra="# 1.10\n"))  # submitted later: the latest
    other = arena.submit(kit(place, name="other", version="0.1"))
    assert arena.find("mybot") == v10 and arena.find("mybot", "2.0") == v2 and arena.find("other") == other
    with pytest.raises(ArenaError, match=r"no version '3'.*versions: 2.0, 1.10"):
        arena.find("mybot", "3")
    with pytest.raises(ArenaError, match="no bot 'nobody'"):
        arena.find("nobody")
    with pytest.raises(ArenaError):
        arena.find("../mybot")
    assert [(s.name, s.version) for s in arena.list()] == [("mybot", "2.0"), ("mybot", "1.10"), ("other", "0.1")]


def test_latest_ties_on_date_are_broken_by_the_version_string(place):
    arena = Arena(place / "arena")
    for version, content in (("1.9", "a"), ("1.10", "b"), ("1.2", "c")):
        entry = arena.root / "tie" / version
        (entry / "bot").mkdir(parents=True)
        (entry / "bot" / "bot.toml").write_text(f'name = "tie"\nversion = "{version}"\ncommand = ["x"]\n')
        (entry / "submission.json").write_text(json.dumps({
            "name": "tie", "version": version, "hash": hashlib.sha256(content.encode()).hexdigest(),
            "date": "2030-01-01T00:00:00+00:00", "check": {"passed": True}}))
    assert arena.find("tie").version == "1.10"
    assert resolve_bot("tie", arena)["label"] == "tie@1.10"


def test_versions_that_are_not_plain_names_are_stored_safely(place):
    from harness.arena.registry import _version_dir

    for version in ("1.0", "..", ".hidden", "a/b", "x y", "ü" * 64):
        name = _version_dir(version)
        assert "/" not in name and not name.startswith(".") and 0 < len(name.encode()) <= 255
    assert _version_dir("1.0-rc.1_b") == "1.0-rc.1_b"
    assert len({_version_dir(v) for v in ("a/b", "a%2Fb", "a b", "a+b")}) == 4


@needs_sandbox
def test_resolve_bot_for_every_kind(place, monkeypatch):
    arena = Arena(place / "arena")
    s = arena.submit(kit(place))
    builtin = resolve_bot("builtin:greedy", arena)
    assert builtin["kind"] == "builtin" and builtin["label"] == "builtin:greedy" and builtin["name"] == "greedy"
    assert builtin["hash"] == "" and builtin["version"]
    folder = resolve_bot(str(KIT), arena)
    assert folder == {"kind": "folder", "label": "starter-python@1.0", "folder": KIT, "name": "starter-python",
                      "version": "1.0", "hash": content_hash(KIT)}
    for spec in ("mybot", "mybot@1.0"):
        assert resolve_bot(spec, arena) == {"kind": "submitted", "label": "mybot@1.0", "folder": s.folder,
                                            "name": "mybot", "version": "1.0", "hash": s.hash}
    for spec in ("nobody", "nobody@1", "builtin:nobody", "mybot@", "@1"):
        with pytest.raises(ArenaError, match="unknown bot"):
            resolve_bot(spec, arena)
    with pytest.raises(ArenaError, match="no version '9'"):
        resolve_bot("mybot@9", arena)
    with pytest.raises(ArenaError, match="unknown bot 'mybot'"):
        resolve_bot("mybot", Arena(place / "elsewhere"))
    # None: the arena of using_arena, else $ELLIBIR_ARENA, else ./arena
    with using_arena(arena):
        assert resolve_bot("mybot", None)["folder"] == s.folder
    monkeypatch.setenv("ELLIBIR_ARENA", str(arena.root))
    assert resolve_bot("mybot", None)["folder"] == s.folder
    monkeypatch.delenv("ELLIBIR_ARENA")
    monkeypatch.chdir(place)
    assert resolve_bot("mybot", None)["folder"] == s.folder
    assert pin_bots(["mybot", "builtin:random", str(KIT), "mybot@1.0"], arena) == \
        ["mybot@1.0", "builtin:random", str(KIT), "mybot@1.0"]


@needs_sandbox
def test_players_accept_submitted_names_where_they_accept_folders(place, monkeypatch):
    """Players know built-in names and folders; the arena's resolver, handed to them, adds submitted names."""
    arena = Arena(place / "arena")
    s = arena.submit(kit(place))
    with pytest.raises(PlayerError, match="not builtin:NAME or a bot folder"):
        make_player("mybot")  # no resolver: players themselves know nothing of the arena
    kind, manifest = parse_player_name("mybot@1.0", resolve=resolver(arena))
    assert kind == "folder" and manifest.folder == s.folder and manifest.name == "mybot"
    player = make_player("mybot", resolve=resolver(arena))
    assert isinstance(player, SubprocessPlayer) and player.manifest.folder == s.folder
    with pytest.raises(PlayerError, match="unknown bot 'nobody'"):
        make_player("nobody", resolve=resolver(arena))
    with using_arena(arena):  # None: the arena of using_arena, else $ELLIBIR_ARENA, else ./arena
        assert make_player("mybot", resolve=resolver()).manifest.folder == s.folder
    monkeypatch.setenv("ELLIBIR_ARENA", str(place / "empty"))
    with pytest.raises(PlayerError, match="unknown bot 'mybot'"):
        make_player("mybot", resolve=resolver())
    with pytest.raises(PlayerError, match="not a bot folder"):
        make_player("./no/such/bot", resolve=resolver())


@needs_sandbox
def test_a_submitted_bot_plays_by_name(place):
    where = place / "arena"
    assert cli("bot", "submit", kit(place), "--arena", where).exit_code == 0
    result = cli("play", "--bot", "mybot", "--bot", "builtin:greedy", "--arena", where, "--rounds", "1", "--seed", "3",
                 "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["bots"] == ["mybot@1.0", "builtin:greedy"]  # pinned: the version that played
    assert doc["faults"] == [] and doc["reason"] in ("complete", "void_rounds")
    shown = cli("play", "--bot", "mybot@1.0", "--bot", "builtin:greedy", "--arena", where, "--rounds", "1", "--quiet")
    assert shown.exit_code == 0 and "mybot@1.0" in shown.stdout
    for bot, words in (("nobody", "unknown bot 'nobody'"), ("mybot@2", "no version '2'")):
        bad = cli("play", "--bot", bot, "--bot", "builtin:greedy", "--arena", where)
        assert bad.exit_code == 2 and len(bad.stderr.strip().splitlines()) == 1 and words in bad.stderr
    elsewhere = cli("play", "--bot", "mybot", "--bot", "builtin:greedy", "--arena", place / "elsewhere")
    assert elsewhere.exit_code == 2 and "unknown bot 'mybot'" in elsewhere.stderr
