"""No channel through the page cache (issue 25), tried with an attack bot in the real sandbox.

``tests/fairplay/cache_mailbox`` leaves its starting hand in the page cache of a big file of /usr and
reads the hand another sandbox left there (``mailbox.py``: a bit is a pair of pages, one read and one
dropped; the reader times both against a page it knows cached). With the host's own /usr bound, 85
to 90 bits of a 90-bit hand crossed, between two bots at one table and from one rotation of a deal to
the next. The sandbox now reads its runtime from a copy on a tmpfs (harness/sandbox/resident.py),
whose pages are always cached: the reader cannot tell any page from its cached control.

The verdicts count bits, not microseconds: what the reader learned, bits right minus bits wrong (a bit
it cannot tell it writes as ``?``; a read slowed by a busy machine makes a bit a coin toss, which nets
nothing), must be at most half the hand's bits, where the host's /usr gave 80 or more; and every mount
a bot can read lies in memory.
"""

from __future__ import annotations

import pytest

from benchmarks.fairplay_bench import MAILBOX_BITS, bits_learned, mailbox_folder, mailbox_places, mailbox_reports
from harness.sandbox.bubblewrap import sandbox_available
from harness.sandbox.resident import closure

needs_sandbox = pytest.mark.skipif(not sandbox_available(), reason="needs the bubblewrap sandbox (root)")
NOTHING = MAILBOX_BITS // 2  # the host's /usr let 85-90 of 90 bits through; a coin toss nets 0 (sd 9.5)


def not_in_memory(places: list[dict]) -> list[str]:
    """The rounds whose mailbox file, or /usr, was not on a tmpfs (the host's /usr bound: a channel),
    each said in one line."""
    return [f"{p.get('file')} on {p.get('file_fs')} (/usr: {p.get('usr_fs')}, mount root {p.get('usr_root')}, "
            f"source {p.get('source')}; process started at tick {p.get('start')})"
            for p in places if p.get("file_fs") != "tmpfs" or p.get("usr_fs") != "tmpfs"]


@needs_sandbox
def test_two_bots_at_one_table_pass_nothing_through_the_page_cache(tmp_path):
    from engine.game import make_rules
    from harness.match.run import MatchSpec, make_players, run_spec

    folder = str(mailbox_folder(tmp_path))
    spec = MatchSpec("ellibir", make_rules("ellibir", "standard", {"players": 2, "rounds": 1}), 7, (folder, folder))
    players = make_players(spec)
    result, _, faults = run_spec(spec, players=players)
    assert faults == [] and result.reason != "unfinished"
    said = [mailbox_reports(p.stderr) for p in players]
    places = [place for p in players for place in mailbox_places(p.stderr)]
    for seat in (0, 1):  # each wrote its hand and listened for the other's
        assert set(said[seat][0]) == {1 - seat} and set(said[seat][1]) == {seat}, said
    assert places and not_in_memory(places) == []
    heard = [bits_learned(said[seat][0][1 - seat], said[1 - seat][1][1 - seat]) for seat in (0, 1)]
    assert max(heard) <= NOTHING, (heard, places)


@needs_sandbox
def test_a_bot_learns_nothing_of_its_opponents_hand_from_the_other_rotation_of_a_deal(tmp_path):
    from benchmarks.reuse_bench import play, plan_of

    folder = str(mailbox_folder(tmp_path))
    plan = plan_of([folder, "builtin:greedy"], deal_sets=1, players=2, overrides={"rounds": 1})
    label = next(b["label"] for b in plan["bots"] if b["kind"] != "builtin")
    results = play(plan)  # one task, processes kept between matches, as a tournament plays them
    assert len(results) == 2 and all(row["termination"] == "complete" for r in results for row in r.matches)
    said, places = {}, []
    for r in results:
        seat = r.seating.index(label)
        heard, wrote = mailbox_reports(r.stderr[seat])
        said[seat] = (heard[1 - seat], wrote[seat])
        places += mailbox_places(r.stderr[seat])
    assert set(said) == {0, 1}  # the bot sat in both seats of the deal
    assert len(places) == 2 and not_in_memory(places) == []
    assert places[0]["start"] != places[1]["start"], places  # a process never meets a deal twice
    heard = [bits_learned(said[seat][0], said[1 - seat][1]) for seat in (0, 1)]
    assert max(heard) <= NOTHING, (heard, places)


ALLOWED_DEVICES = {"/null", "/zero", "/full", "/random", "/urandom"}


@needs_sandbox
def test_every_file_a_bot_can_read_is_in_memory(tmp_path):
    """Not a file of a disk in the bot's view: the runtime, /etc, the interpreter, the bot's folder, the
    engine are tmpfs copies; /proc is the kernel's; devices are the plain ones (no page cache)."""
    import os
    import time

    from harness.players.botproc import BotProcess
    from harness.players.program import engine_binds

    folder = tmp_path / "mounts"
    folder.mkdir()
    (folder / "show.py").write_text("import sys\nfor _ in sys.stdin:\n"
                                    "    print(open('/proc/self/mountinfo').read().replace('\\n', ';'), flush=True)\n")
    for path in (tmp_path, folder, folder / "show.py"):
        os.chmod(path, 0o755)
    bot = BotProcess(folder, ["python3", "show.py"], line_limit=100_000, binds=engine_binds())
    bot.start()
    try:
        os.write(bot._in, b"go\n")
        line = bot._read_line(time.monotonic() + 10, 10).decode()
    finally:
        bot.close()
    mounts = []
    for entry in filter(None, line.strip().split(";")):
        fields, kind = entry.split(" - ", 1)
        mounts.append((fields.split()[4], fields.split()[3], kind.split()[0]))  # (where, root, file system)
    seen = {where for where, _, _ in mounts}
    assert {"/usr", "/bot", "/tmp", "/proc", "/ellibir/engine", "/etc/ld.so.cache"} <= seen, seen
    on_disk = [m for m in mounts if m[2] not in ("tmpfs", "proc") and not (m[2] == "devtmpfs" and m[1] in ALLOWED_DEVICES)]
    assert on_disk == []


def test_the_runtime_takes_each_package_with_what_it_depends_on():
    packages = {
        "node": [["libc"], ["libssl", "libssl-old"], ["python3"]],
        "libssl": [["libc"]],
        "libssl-old": [["libc"]],
        "python3": [["python3.11"]],
        "python3.11": [["libc"]],
        "libc": [["gcc-base"]],
        "gcc-base": [],
        "java-runtime": [["openjdk"]],  # a virtual package: its installed providers
        "openjdk": [["libc"]],
        "unrelated": [],
    }
    assert closure({"node"}, packages) == ["gcc-base", "libc", "libssl", "node", "python3", "python3.11"]
    assert closure({"java-runtime", "missing"}, packages) == ["gcc-base", "java-runtime", "libc", "openjdk"]
