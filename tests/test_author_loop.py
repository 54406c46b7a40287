"""The bot author's loop (issue 15), with real bot programs in the sandbox: every protocol line and
stderr line in a trace, stderr on the terminal, a /tmp that survives the match, faults in the
annotated match log and in the replay, the flush hint."""

from __future__ import annotations

import json
import re

import pytest

from engine import make_rules
from harness.match.log import Recorder, read as read_annotated
from harness.match.run import MatchSpec, make_players, run_spec
from harness.protocol.messages import TimeControl
from harness.sandbox.bubblewrap import sandbox_available
from harness.players.trace import Trace, Taps, with_notes

from author_bots import AUTHOR_BOTS
from cli_runs import UNHURRIED, in_process

pytestmark = pytest.mark.skipif(not sandbox_available(), reason="the sandbox (bubblewrap, root) is not available")
CLOCK = TimeControl(move=1.0, bank=1.0, first=5.0)
LINE = re.compile(r"^(\d\d:\d\d:\d\d\.\d{6}) seat (\d) (\S+) ([<>!#]) (.*)$")


def traced(bots, tmp_path, seed=3, clock=CLOCK, keep_tmp=None, on_fault="forfeit"):
    rules = make_rules("standard", {"players": len(bots), "rounds": 1})
    spec = MatchSpec("ellibir", rules, seed, tuple(str(b) for b in bots), time=clock, on_fault=on_fault)
    path = tmp_path / "trace.txt"
    taps = Taps([Trace.open(str(path))])
    records = {seat: [] for seat in range(len(bots))}
    recorder = Recorder(then=with_notes(taps))
    try:
        players = make_players(spec, records, trace=taps, keep_tmp=keep_tmp)
        result, events, faults = run_spec(spec, on_event=recorder, players=players)
    finally:
        taps.close()
    lines = [LINE.match(line) for line in path.read_text().splitlines()]
    assert all(lines), "every trace line has a time, a seat, a bot and a direction"
    return result, faults, records, [m.groups() for m in lines], recorder


def test_the_trace_holds_every_line_both_ways_exactly_with_stderr_interleaved(tmp_path):
    _result, faults, records, lines, _rec = traced([AUTHOR_BOTS["crash"], "builtin:greedy"], tmp_path)
    assert [f.kind for f in faults] == ["crash"]
    sent = [json.loads(text) for _t, seat, _b, d, text in lines if d == ">"]
    got = [json.loads(text) for _t, seat, _b, d, text in lines if d == "<"]
    assert sent == [m for d, _p, m in records[0] if d == "out"]  # every message sent, in order, none missing
    assert got == [m for d, _p, m in records[0] if d == "in"]
    assert {(seat, bot) for _t, seat, bot, _d, _x in lines} == {("0", "author-crash@1")}
    order = [(d, text) for _t, _s, _b, d, text in lines]
    last_request = max(i for i, (d, text) in enumerate(order) if d == ">" and '"type":"request"' in text)
    message = order.index(("!", "author bot crash: KeyError: 'melds' -- giving up"))
    assert message > last_request  # stderr in the place where it happened
    note = next(i for i, (d, text) in enumerate(order) if d == "#" and text.startswith("fault crash"))
    assert note > message
    times = [t for t, *_ in lines]
    assert times == sorted(times)


def test_the_trace_keeps_a_malformed_reply_as_it_was_sent(tmp_path):
    bot = AUTHOR_BOTS["noflush"].parent / "notjson"
    bot.mkdir()
    (bot / "main.py").write_text("import sys\nfor line in sys.stdin:\n    print('{not json at all', flush=True)\n")
    (bot / "bot.toml").write_text('name = "notjson"\nversion = "1"\ncommand = ["python3", "main.py"]\n')
    for p in (bot, bot / "main.py", bot / "bot.toml"):
        p.chmod(0o755)
    _result, faults, _records, lines, _rec = traced([bot, "builtin:greedy"], tmp_path)
    assert faults[0].kind == "malformed"
    assert ("0", "notjson@1", "<", "{not json at all") in [line[1:] for line in lines]


def test_a_bot_that_never_flushes_is_told_so(tmp_path):
    _result, faults, _records, lines, _rec = traced([AUTHOR_BOTS["noflush"], "builtin:greedy"], tmp_path,
                                                    clock=TimeControl(move=0.2, bank=0.0, first=1.0))
    assert [f.kind for f in faults] == ["timeout"]
    assert "no output at all: does the bot flush stdout" in faults[0].reason
    assert not [line for line in lines if line[3] == "<"]


def test_a_bot_ten_times_slower_than_its_limit_times_out_with_its_stderr(tmp_path):
    clock = TimeControl(move=0.2, bank=0.0, first=30.0)  # the bot sleeps 2.0 s late: ten times the move time
    _result, faults, _records, lines, _rec = traced([AUTHOR_BOTS["slow"], "builtin:greedy"], tmp_path, clock=clock)
    assert [f.kind for f in faults] == ["timeout"]
    assert "flush" not in faults[0].reason  # it did answer before
    assert "author bot slow: request" in faults[0].stderr


def test_keep_tmp_leaves_the_bots_debug_files(tmp_path):
    keep = tmp_path / "keep"
    _result, faults, *_ = traced([AUTHOR_BOTS["tmpfile"], AUTHOR_BOTS["polite"]], tmp_path, keep_tmp=keep)
    assert not faults
    written = (keep / "seat-0" / "debug.txt").read_text().splitlines()
    assert len(written) > 3 and written[0].startswith("request ")
    assert (keep / "seat-1").is_dir() and not list((keep / "seat-1").iterdir())  # polite writes nothing


def test_the_annotated_log_names_the_fault_and_the_takeover_and_replays(tmp_path):
    _result, faults, _records, _lines, recorder = traced([AUTHOR_BOTS["rule"], "builtin:greedy"], tmp_path)
    assert [f.kind for f in faults] == ["illegal_action"]
    events, notes = read_annotated(recorder.text())
    kinds = [n["e"] for n in notes]
    assert kinds == ["harness_bots", "harness_fault", "harness_takeover", "harness_result"]
    bots, fault, takeover, result = notes
    assert bots["bots"] == ["author-rule@1", "builtin:greedy"] and bots["on_fault"] == "forfeit"
    assert fault["seat"] == 0 and fault["kind"] == "illegal_action" and "T4" in fault["reason"]
    assert takeover["by"] == "builtin:greedy" and takeover["from_decision"] == fault["decision"]
    assert result["ranks"][0] == 2 and result["faulty"] == [0]
    at = events.index(fault)
    before = [e for e in events[:at] if e["e"] == "refused"]
    assert len(before) == 4  # the fault comes right after the refusal that made it
    decisions_before = sum(1 for e in events[:at] if e["e"] == "decision")
    assert decisions_before == fault["decision"]


def test_play_shows_stderr_marks_the_taken_over_seat_and_ranks_by_the_fault_policy(tmp_path):
    log = tmp_path / "match.jsonl"
    done = in_process("play", "--bot", "builtin:greedy", "--bot", AUTHOR_BOTS["crash"], "--seed", 3, "--rounds", 1,
                      "--show-stderr", "--log", log)
    assert done.returncode == 0, done.stderr
    assert re.search(r"seat 1 author-crash@1 ! author bot crash: KeyError", done.stderr)
    assert "seat 1 author-crash@1 [greedy plays]" in done.stdout
    ranking = done.stdout[done.stdout.index("Final ranking"):]
    rows = re.findall(r"^\s+(\d) │ seat (\d)", ranking, re.M)
    assert rows == [("1", "0"), ("2", "1")]  # forfeit: the faulty bot last, whatever its total
    assert "fault policy forfeit" in ranking
    again = in_process("replay", log)
    assert again.returncode == 0, again.stderr
    assert "fault: seat 1 author-crash@1: crash" in again.stdout and "[greedy plays]" in again.stdout
    assert re.findall(r"^\s+(\d) │ seat (\d)", again.stdout[again.stdout.index("Final ranking"):], re.M) == rows


def test_play_trace_to_the_terminal_and_keep_tmp_checks(tmp_path):
    done = in_process("play", "--bot", AUTHOR_BOTS["polite"], "--bot", "builtin:greedy", "--seed", 4, "--rounds", 1,
                      "--trace", "-", "--quiet")
    assert done.returncode == 0, done.stderr
    assert re.search(r"seat 0 author-polite@1 > \{\"type\":\"hello\"", done.stderr)
    assert re.search(r"seat 0 author-polite@1 < \{", done.stderr)
    full = tmp_path / "full"
    full.mkdir()
    (full / "x").write_text("x")
    bad = in_process("play", "--bot", AUTHOR_BOTS["polite"], "--bot", "builtin:greedy", "--keep-tmp", full)
    assert bad.returncode == 2 and "not empty" in bad.stderr


# bot check ------------------------------------------------------------------------------------------

def test_bot_check_shows_the_stderr_of_the_match_that_failed():
    done = in_process("bot", "check", AUTHOR_BOTS["crash_seat1"], "--matches", 3)
    assert done.returncode == 1, done.stdout
    blocks = re.split(r"^(?=match \d)", done.stdout, flags=re.M)[1:]
    assert [b.split(":", 2)[1].strip().startswith("ok") for b in blocks] == [True, False, True]
    failed = blocks[1]
    assert "crash: closed its output; exited with code 3" in failed
    assert "author bot crash_seat1: seat 1" in failed and "seat 0" not in failed.split("stderr of this match")[1]
    assert "KeyError: 'melds'" in failed
    assert "stderr of this match" not in blocks[0] + blocks[2]


def test_bot_check_lists_refusals_times_and_the_command_that_plays_the_match_again(tmp_path):
    done = in_process("bot", "check", AUTHOR_BOTS["rule_once"], "--matches", 1, "--set", "threshold=71", "--seed", 11,
                      "--move-time", 5, "--rounds", 1)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert re.search(r"^  refused \(T4\): .*not in your hand", out, re.M)
    times = re.search(r"time per decision: median ([\d.]+) ms, max ([\d.]+) ms \(limit 5 s a decision, "
                      r"10 s the first, bank 10 s\)", out)
    assert times and float(times[1]) <= float(times[2]) < 5000
    command = re.search(r"again, traced: (ellibir play .*)$", out, re.M)[1]
    assert "--set threshold=71" in command and "--seed 11" in command and "--trace -" in command
    # the command plays the same match: the same refusal in the trace
    again = in_process(*command.split()[1:])
    assert again.returncode == 0, again.stderr
    assert re.search(r"seat 0 author-rule_once@1 > \{\"type\":\"error\".*\"rule\":\"T4\"", again.stderr)


def test_bot_check_flags_a_hello_that_names_another_bot_and_traces(tmp_path):
    path = tmp_path / "check.txt"
    done = in_process("bot", "check", AUTHOR_BOTS["misname"], "--matches", 1, "--trace", path)
    assert done.returncode == 0, done.stdout
    assert "warning: the bot calls itself someone-else 9.9 in hello, its bot.toml says author-misname 1" in done.stdout
    lines = path.read_text().splitlines()
    assert any(" < " in line and '"someone-else"' in line for line in lines)
    assert any(" ! author bot misname: starting" in line for line in lines)


def test_bot_check_says_a_silent_bot_may_not_flush():
    done = in_process("bot", "check", AUTHOR_BOTS["noflush"], "--matches", 1, "--first-time", 1, "--bank", 0)
    assert done.returncode == 1
    assert "handshake: timeout" in done.stdout and "no output at all: does the bot flush stdout" in done.stdout
    assert "Does its runtime start within" in done.stdout  # a JVM compiling its source: over a second


def test_every_decision_example_in_the_protocol_doc_reads():
    """docs/protocol.md shows the JSON form of decisions: every example is one the harness reads."""
    from pathlib import Path

    from engine.decisions import decision_from_json

    text = (Path(__file__).resolve().parent.parent / "docs" / "protocol.md").read_text()
    block = text[text.index('```json\n{"draw": "stock"}') + 8:]
    block = block[:block.index("```")]
    examples, pending = [], ""
    for line in block.splitlines():
        pending += line
        try:
            examples.append(json.loads(pending))
            pending = ""
        except ValueError:
            continue
    assert not pending and len(examples) == 6
    shown = [str(decision_from_json(d)) for d in examples]
    assert shown[2] == "open R[5H JK 7H] S[9C 9D 9S]; layoff 3 8H; discard KS"
    assert shown[4] == "declare; claim 7C; discard 3D shown"


def test_a_perl_bot_with_json_pp_passes_bot_check_in_the_sandbox(tmp_path):
    """docs/protocol.md says Perl with JSON::PP runs in the sandbox: a bot written in it passes."""
    import shutil
    from pathlib import Path

    source = Path(__file__).resolve().parent / "author_bots" / "perl"
    bot = tmp_path / "perlbot"
    shutil.copytree(source, bot)
    for p in [tmp_path, bot, *bot.iterdir()]:
        p.chmod(0o755)
    done = in_process("bot", "check", bot, "--matches", 2, "--rounds", 1, "--trace", tmp_path / "perl.trace", *UNHURRIED)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count(": ok,") == 2 and done.stdout.rstrip().endswith("PASS")
    trace = (tmp_path / "perl.trace").read_text()
    assert "seat 0 perlbot@1 ! perl bot: hello, seat 0" in trace
