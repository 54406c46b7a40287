"""Bad input to the commands: one line, a non-zero exit, and nothing of a run lost or changed. Each
test is a case an audit of the command line found (a traceback, a run file overwritten, an input taken
silently), on real runs and files."""

from __future__ import annotations

import json
import re
import shutil
import tomllib
from pathlib import Path

import pytest

from cli_runs import in_process


def refused(done, *says) -> None:
    """Exit code 2, one line on stderr, no traceback, naming each of ``says``."""
    err = done.stderr.strip()
    assert done.returncode == 2, (done.returncode, done.stdout[-2000:], err[-2000:])
    assert "Traceback" not in err and len(err.splitlines()) == 1 and err.startswith("error: "), err
    for text in says:
        assert str(text) in err, err


@pytest.fixture
def run(tmp_path, tournament_run) -> Path:
    """A copy of the shared round robin, to damage."""
    out = tmp_path / "rr"
    shutil.copytree(tournament_run, out)
    return out


def test_replay_html_refuses_to_write_over_a_run_s_own_files(run):
    plan = run / "run.json"
    before = plan.read_bytes()
    match_id = json.loads(before)["matches"][0]["id"]
    refused(in_process("replay", run, match_id, "--html", plan), "run.json", "viewer")
    refused(in_process("replay", run, match_id, "--html", run / "logs" / "m.html"), "logs")
    assert plan.read_bytes() == before and not (run / "logs" / "m.html").exists()


def test_an_unknown_match_id_says_which_ids_the_run_has(tournament_run):
    ids = [m["id"] for m in json.loads((tournament_run / "run.json").read_text())["matches"]]
    for command in ("replay", "rerun"):
        refused(in_process(command, tournament_run, "v0-d03-t1-r2"), "no match 'v0-d03-t1-r2'", f"from {ids[0]} to {ids[-1]}")


def test_report_refuses_a_file_where_its_viewers_folder_goes(tmp_path, tournament_run):
    (tmp_path / "r-matches").write_text("mine")
    refused(in_process("report", tournament_run, "--html", tmp_path / "r.html"), "r-matches", "not a folder")
    assert (tmp_path / "r-matches").read_text() == "mine" and not (tmp_path / "r.html").exists()


def test_rerun_refuses_a_plan_whose_rules_are_for_another_table_size(run):
    plan = json.loads((run / "run.json").read_text())
    plan["variants"][0]["rules"]["players"] = 2  # the matches seat 4
    (run / "run.json").write_text(json.dumps(plan))
    refused(in_process("rerun", run, plan["matches"][0]["id"], "--quiet"), "run.json", "players")


def test_ladder_checks_a_run_as_every_analysis_does(tmp_path, parts_run):
    copied = tmp_path / "copied"
    shutil.copytree(parts_run, copied)
    first = sorted((copied / "matches").glob("*.parquet"))[0]
    shutil.copy(first, first.with_name("a9-00999.parquet"))  # each of its matches stored twice
    (tmp_path / "arena").mkdir()  # an arena without runs
    refused(in_process("ladder", "--arena", tmp_path / "arena", "--run", copied), str(copied), "more than one part")
    cut = tmp_path / "cut"
    shutil.copytree(parts_run, cut)
    part = sorted((cut / "matches").glob("*.parquet"))[0]
    part.write_bytes(part.read_bytes()[:100])
    refused(in_process("ladder", "--arena", tmp_path / "arena", "--run", cut), str(part))
    refused(in_process("ladder", "--arena", tmp_path / "arena", "--run", tmp_path / "nothing"), "no such run folder")
    refused(in_process("ladder", "--arena", tmp_path / "arena", "--run", tmp_path), "not a run folder")


def test_train_value_refuses_a_run_folder_a_file_and_conflicting_executor_options(run, tmp_path):
    before = sorted(p.relative_to(run) for p in run.rglob("*"))
    train = ("train", "value", "--games", 4, "--seed", 1, "--fit", "none", "--quiet")
    refused(in_process(*train, "--out", run), str(run), "run")
    refused(in_process(*train, "--out", run / "run.json"), "not a folder")  # was a NotADirectoryError traceback
    assert sorted(p.relative_to(run) for p in run.rglob("*")) == before
    out = tmp_path / "v"
    refused(in_process(*train, "--out", out, "--executor", "nope"), "--executor")  # was an ExecutorError traceback
    refused(in_process(*train, "--out", out, "--executor", "local", "--address", "auto"), "--address")
    refused(in_process(*train, "--out", out, "--bots", "builtin:greedy"), "builtin:greedy", "without builtin:")
    assert not out.exists()


@pytest.mark.parametrize("command", [["balance"], ["report", "--html", "REPORT"]])
@pytest.mark.parametrize("option", [["--baseline", "threshold=51"], ["--compare", "threshold=51:threshold=71"]])
def test_a_comparison_asked_of_one_variant_is_refused_not_ignored(tmp_path, tournament_run, command, option):
    args = [str(tmp_path / "r.html") if a == "REPORT" else a for a in command]
    refused(in_process(args[0], tournament_run, *args[1:], *option), "one variant")
    assert not (tmp_path / "r.html").exists()


def test_bot_check_refuses_set_players_which_it_ignored():
    """The check plays every table size of --players; a --set players=3 was dropped without a word (and the
    replay command it printed, with that --set, was refused by play)."""
    bot = Path(__file__).resolve().parent / "protocol_bots" / "greedy_full"
    refused(in_process("bot", "check", bot, "--set", "players=3", "--matches", 1), "--set players=3", "--players")


def test_a_refused_trace_file_is_called_the_trace(run, tmp_path):
    """--trace FILE was refused as "the event log", the name of --log's file."""
    done = in_process("play", "--bot", "builtin:greedy", "--bot", "builtin:random", "--seed", 1, "--quiet",
                      "--trace", run / "run.json")
    refused(done, "the trace", "run.json")
    refused(in_process("play", "--bot", "builtin:greedy", "--bot", "builtin:random", "--seed", 1, "--quiet",
                       "--trace", tmp_path), "cannot write the trace")


def _parts_copy(parts_run, tmp_path, name) -> Path:
    out = tmp_path / name
    shutil.copytree(parts_run, out)
    return out


def test_faults_reads_each_part_whole_and_refuses_a_copied_one(tmp_path, parts_run):
    cut = _parts_copy(parts_run, tmp_path, "cut")
    part = sorted((cut / "matches").glob("*.parquet"))[1]
    part.write_bytes(part.read_bytes()[:100])
    refused(in_process("faults", cut), str(part))  # was a traceback
    copied = _parts_copy(parts_run, tmp_path, "copied")
    first = sorted((copied / "matches").glob("*.parquet"))[0]
    shutil.copy(first, first.with_name("a9-00999.parquet"))
    refused(in_process("faults", copied), "more than one part")  # was "no faults", its faults listed twice


def test_a_foreign_parquet_file_among_the_parts_is_one_line(tmp_path, parts_run):
    import pyarrow as pa
    import pyarrow.parquet as pq

    run = _parts_copy(parts_run, tmp_path, "foreign")
    parts = sorted((run / "matches").glob("*.parquet"))
    pq.write_table(pa.table({"x": [1, 2]}), parts[1])  # a Parquet file, but not a part of a run
    match_id = json.loads((run / "run.json").read_text())["matches"][0]["id"]
    for args in (["faults", run], ["replay", run, match_id, "--quiet"], ["ratings", run]):
        refused(in_process(*args), str(parts[1]))


@pytest.mark.parametrize("text", ["{", '{"schema_version": 99}'])
def test_a_resume_refuses_a_damaged_schema_json_even_with_nothing_to_play(run, text):
    (run / "schema.json").write_text(text)
    refused(in_process("tournament", "run", "--resume", run, "--executor", "local", "--quiet"), "schema.json")


def test_a_crafted_sprt_verdict_is_not_believed_on_resume(tmp_path):
    """sprt.json said H1 without its numbers bearing it out: a resume took the test as decided and played
    nothing more (and a record without the test's fields was a KeyError traceback)."""
    run = tmp_path / "g"
    in_process("tournament", "run", "--format", "gauntlet", "--challenger", "builtin:greedy", "--bot", "builtin:random",
               "--players", 2, "--deal-sets", 3, "--rounds", 1, "--seed", 1, "--executor", "local", "--quiet",
               "--sprt", "--elo0", 0, "--elo1", 200, "--no-compact", "--out", run)
    record = json.loads((run / "sprt.json").read_text())
    assert record["verdict"] == "continue"
    for table in ("matches", "rounds", "logs"):
        sorted((run / table).iterdir())[-1].unlink()  # the last task's part: matches to play again
    (run / "sprt.json").write_text(json.dumps({**record, "verdict": "H1"}))
    done = in_process("tournament", "run", "--resume", run, "--executor", "local", "--quiet")
    assert done.returncode == 0 and "6 of 6 planned matches" in done.stdout and "decided" not in done.stdout, done
    (run / "sprt.json").write_text('{"verdict": "H0"}')
    done = in_process("tournament", "run", "--resume", run, "--executor", "local", "--quiet")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done


@pytest.mark.parametrize("damage", ["not gzip", "not JSON", "cut"])
def test_compact_refuses_a_damaged_log_part_and_changes_nothing(tmp_path, parts_run, damage):
    import gzip

    run = _parts_copy(parts_run, tmp_path, "logs")
    log = sorted((run / "logs").glob("*.jsonl.gz"))[1]
    data = {"not gzip": b"not gzip", "not JSON": gzip.compress(b"garbage\n"),
            "cut": log.read_bytes()[: log.stat().st_size // 2]}[damage]
    log.write_bytes(data)
    before = {p: p.read_bytes() for p in run.rglob("*") if p.is_file()}
    refused(in_process("compact", run), str(log), "nothing was compacted")  # it merged the damage under a new name
    assert {p: p.read_bytes() for p in run.rglob("*") if p.is_file()} == before


def test_a_match_stored_without_its_log_is_not_called_unplayed(tmp_path, parts_run):
    run = _parts_copy(parts_run, tmp_path, "nologs")
    shutil.rmtree(run / "logs")
    match_id = json.loads((run / "run.json").read_text())["matches"][0]["id"]
    refused(in_process("replay", run, match_id), "event log is missing")
    refused(in_process("replay", run, match_id, "--html", tmp_path / "m.html"), "event log is missing")
    done = in_process("rerun", run, match_id, "--quiet")
    assert done.returncode == 0 and "without its event log" in done.stdout and "not played" not in done.stdout
    done = in_process("compact", run)  # the logs folder gone: the parts are merged, the matches kept
    assert done.returncode == 0, done.stderr
    assert in_process("ratings", run).returncode == 0


def test_serve_refuses_a_port_it_cannot_listen_on_in_one_line(tmp_path):
    """A port out of range was a uvicorn traceback; a port in use or a host that does not resolve, two
    "ERROR:" lines with exit code 3, after the database and the arena were made."""
    import socket

    arena = tmp_path / "arena"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        refused(in_process("serve", "--arena", arena, "--port", port), "cannot listen", "in use")
    refused(in_process("serve", "--arena", arena, "--port", 99999), "--port")
    refused(in_process("serve", "--arena", arena, "--host", "256.1.1.1", "--port", port), "cannot listen")
    assert not arena.exists()


def test_ratings_refuses_a_negative_bootstrap_seed_naming_the_option(tournament_run):
    refused(in_process("ratings", tournament_run, "--bootstrap", 10, "--seed", -1), "--seed")


def test_replay_refuses_a_fifo_or_a_device_instead_of_waiting_for_ever(tmp_path):
    """replay LOG read a FIFO (waiting for a writer for ever) or /dev/zero (until memory ran out)."""
    import os

    fifo = tmp_path / "log.fifo"
    os.mkfifo(fifo)
    log = tmp_path / "m.jsonl"
    assert in_process("play", "--bot", "builtin:greedy", "--bot", "builtin:random", "--seed", 1, "--quiet",
                      "--log", log).returncode == 0
    for args in ([fifo], ["/dev/zero"], [fifo, "--html", tmp_path / "v.html"],
                 [log, "--html", tmp_path / "v.html", "--trace", fifo]):
        refused(in_process("replay", *args), "not a regular file")
    assert not (tmp_path / "v.html").exists()


@pytest.mark.parametrize("spec", ["fifo", "[]"])
def test_train_value_refuses_a_data_folder_whose_spec_is_not_one(tmp_path, spec):
    """DIR/data/spec.json as a FIFO waited for ever; as a JSON list it was an AttributeError traceback."""
    import os

    data = tmp_path / "v" / "data"
    data.mkdir(parents=True)
    if spec == "fifo":
        os.mkfifo(data / "spec.json")
    else:
        (data / "spec.json").write_text(spec)
    done = in_process("train", "value", "--out", tmp_path / "v", "--games", 4, "--seed", 1, "--fit", "none", "--quiet")
    refused(done, "spec.json", "not a data set's spec")
    assert sorted(p.name for p in data.iterdir()) == ["spec.json"]


@pytest.mark.parametrize("table", ["matches", "logs"])
def test_a_file_where_a_table_folder_belongs_is_refused_before_any_task(tmp_path, parts_run, table):
    """A file named matches made every reader report "no results" and compact "nothing to compact"; a file
    named logs let a resume play every match and then fail to write each part."""
    run = _parts_copy(parts_run, tmp_path, "run")
    shutil.rmtree(run / table)
    (run / table).write_text("")
    for part in ("matches", "rounds"):
        for p in sorted((run / part).glob("*.parquet"))[-1:]:
            p.unlink()  # a resume has work to do
    refused(in_process("tournament", "run", "--resume", run, "--executor", "local", "--quiet"), str(run / table))
    if table == "matches":
        for args in (["ratings", run], ["faults", run], ["compact", run]):
            refused(in_process(*args), str(run / table), "not a folder")


def test_a_new_run_inside_another_run_s_tables_is_refused(run):
    """--out RUN/matches/x.parquet made a folder among RUN's parts: every reader of RUN refused it after."""
    inner = run / "matches" / "x.parquet"
    done = in_process("tournament", "run", "--bot", "builtin:greedy", "--bot", "builtin:random", "--players", 2,
                      "--deal-sets", 1, "--rounds", 1, "--executor", "local", "--quiet", "--out", inner)
    refused(done, str(inner), "inside the run folder")
    assert not inner.exists() and in_process("ratings", run).returncode == 0


def test_play_refuses_one_file_for_log_and_trace_and_keeps_a_trace_when_refused(tmp_path):
    """--log F --trace F: the log written at the end replaced the trace. A refused --keep-tmp left the
    --trace file emptied (it was opened first)."""
    bot = Path(__file__).resolve().parent / "protocol_bots" / "greedy_full"
    same = tmp_path / "same.txt"
    play = ("play", "--bot", bot, "--bot", "builtin:random", "--seed", 1, "--rounds", 1, "--quiet")
    refused(in_process(*play, "--log", same, "--trace", tmp_path / "." / "same.txt"), "--log and --trace")
    refused(in_process(*play, "--log", "-"), "--log -")  # it wrote a file named - where --trace - is the terminal
    assert not (Path.cwd() / "-").exists()
    assert not same.exists()
    kept = tmp_path / "kept.trace"
    kept.write_text("an earlier trace\n")
    refused(in_process(*play, "--trace", kept, "--keep-tmp", kept), "--keep-tmp")
    assert kept.read_text() == "an earlier trace\n"


def test_an_output_file_that_is_an_input_of_the_same_command_is_refused(tmp_path):
    """replay LOG --html LOG replaced the log by its viewer (and --html TRACE --trace TRACE the trace);
    play --deal F --log F replaced the deal file by the log."""
    log = tmp_path / "m.jsonl"
    assert in_process("play", "--bot", "builtin:greedy", "--bot", "builtin:random", "--seed", 1, "--quiet",
                      "--log", log).returncode == 0
    kept = log.read_bytes()
    refused(in_process("replay", log, "--html", log), "the log")
    trace = tmp_path / "m.trace"
    trace.write_text("")
    refused(in_process("replay", log, "--html", trace, "--trace", trace), "--trace")
    assert log.read_bytes() == kept and trace.read_text() == ""
    cards = [r + s for s in "CDHS" for r in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")] * 2
    cards += ["JK", "JK"]
    deal = tmp_path / "deal.json"
    deal.write_text(json.dumps({"dealer": 0, "hands": [cards[:14], cards[14:29]], "stock": cards[29:]}))
    before = deal.read_text()
    refused(in_process("play", "--bot", "builtin:greedy", "--bot", "builtin:random", "--seed", 1, "--rounds", 1,
                       "--quiet", "--deal", deal, "--log", deal), "--deal")
    assert deal.read_text() == before


def test_an_output_inside_a_bot_folder_of_the_match_is_refused(tmp_path):
    """play --trace BOT/main.py wrote the trace over the bot's program (the bot then crashed)."""
    bot = tmp_path / "bot"
    shutil.copytree(Path(__file__).resolve().parent / "protocol_bots" / "greedy_full", bot)
    before = {p.name: p.read_bytes() for p in bot.iterdir()}
    play = ("play", "--bot", bot, "--bot", "builtin:random", "--seed", 1, "--rounds", 1, "--quiet")
    for option, path in (("--trace", bot / "main.py"), ("--log", bot / "m.jsonl"), ("--keep-tmp", bot / "tmp")):
        refused(in_process(*play, option, path), option, "inside the bot folder")
    refused(in_process("bot", "check", bot, "--trace", bot / "main.py"), "inside the bot folder")
    assert {p.name: p.read_bytes() for p in bot.iterdir()} == before


def test_balance_of_a_skill_study_of_one_deal_set_shows_its_edge_without_an_interval(tmp_path):
    """One deal set gives the first player's edge no interval: balance was a TypeError traceback."""
    run = tmp_path / "skill"
    done = in_process("study", "skill", "--ladder", "builtin:random,builtin:greedy", "--vary", "threshold=51",
                      "--players", 2, "--deal-sets", 1, "--rounds", 1, "--seed", 2, "--executor", "local", "--quiet",
                      "--out", run)
    assert done.returncode == 0, done.stderr[-2000:]
    done = in_process("balance", run)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert "play by skill level" in done.stdout


def test_html_dash_is_refused_not_written_as_a_file_named_dash(tournament_run, tmp_path, monkeypatch):
    """report --html - wrote a file named - and a folder --matches; replay --html - a file named -."""
    monkeypatch.chdir(tmp_path)
    match_id = json.loads((tournament_run / "run.json").read_text())["matches"][0]["id"]
    refused(in_process("report", tournament_run, "--html", "-"), "--html -")
    refused(in_process("replay", tournament_run, match_id, "--html", "-"), "--html -")
    assert list(tmp_path.iterdir()) == []


def test_a_name_too_long_is_one_line_and_says_the_limit(tournament_run, tmp_path):
    """report --html with a file name over the system's limit was an OSError traceback; --name of 300
    letters was refused as not letters."""
    long = "a" * 300
    refused(in_process("report", tournament_run, "--html", tmp_path / f"{long}.html"), "too long")
    for args in (["ratings", tmp_path / long], ["bots", tmp_path / long], ["replay", tmp_path / long],
                 ["ratings", tournament_run, "--csv", tmp_path / f"{long}.csv"]):
        refused(in_process(*args), "too long")
    refused(in_process("tournament", "run", "--bot", "builtin:greedy", "--bot", "builtin:random", "--players", 2,
                       "--deal-sets", 1, "--executor", "local", "--quiet", "--name", long, "--out", tmp_path / "r"),
            "1 to 100")


# The audit's five last defects --------------------------------------------------------------------------------

BOTS = Path(__file__).resolve().parent / "protocol_bots"


def _versioned(tmp_path, version: str) -> Path:
    bot = tmp_path / "bot"
    shutil.copytree(BOTS / "greedy_full", bot)
    manifest = (bot / "bot.toml").read_text()
    line = f"version = {json.dumps(version)}"
    (bot / "bot.toml").write_text(re.sub(r'(?m)^version = ".*"$', lambda _: line, manifest))
    assert tomllib.loads((bot / "bot.toml").read_text())["version"] == version
    return bot


@pytest.mark.parametrize("version", ["../1", "1/2", "..", ".hidden", "a\\b", "1.0+3f116acf", "1,0"])
def test_a_version_that_names_a_path_or_a_content_hash_is_refused_wherever_bot_toml_is_read(tmp_path, version):
    """A version of "../1" was a label to play, tournaments and bot check, and refused only by submit;
    "1.0+3f116acf" passed as the content hash that tells two bots of one label apart, and "1,0" could not
    be named in a list of bots."""
    bot = _versioned(tmp_path, version)
    out, arena = tmp_path / "run", tmp_path / "arena"
    for args in (("play", "--bot", bot, "--bot", "builtin:random", "--seed", 1, "--rounds", 1, "--quiet"),
                 ("tournament", "run", "--bot", bot, "--bot", "builtin:random", "--players", 2, "--deal-sets", 1,
                  "--rounds", 1, "--executor", "local", "--quiet", "--out", out),
                 ("bot", "check", bot, "--matches", 1),
                 ("bot", "submit", bot, "--arena", arena)):
        refused(in_process(*args), "bot.toml", "version", repr(version))
    assert not out.exists() and not arena.exists()


def test_every_bot_folder_of_the_project_has_a_version_the_rule_allows():
    from harness.players.manifest import load_manifest

    root = Path(__file__).resolve().parent.parent
    folders = [p.parent for top in ("bots", "tests") for p in (root / top).rglob("bot.toml")]
    assert len(folders) > 40
    for folder in folders:
        load_manifest(folder)


def test_an_empty_bot_name_is_refused_naming_the_option(tmp_path):
    """play --bot "" said "no bot.toml in ." (an empty path is the current folder)."""
    refused(in_process("play", "--bot", "", "--bot", "builtin:random"), "--bot", "empty")
    refused(in_process("play", "--bot=", "--bot", "builtin:random"), "--bot", "empty")
    refused(in_process("tournament", "run", "--format", "gauntlet", "--challenger", " ", "--bot", "builtin:greedy",
                       "--executor", "local", "--out", tmp_path / "r"), "--challenger", "empty")
    refused(in_process("bot", "check", ""), "PATH", "empty")
    config = tmp_path / "t.toml"
    config.write_text('bots = ["", "builtin:greedy"]\nplayers = 2\ndeal_sets = 1\n')  # where no option is named
    refused(in_process("tournament", "run", "--config", config, "--executor", "local", "--out", tmp_path / "r"),
            "an empty bot name")
    assert not (tmp_path / "r").exists()


def test_a_missing_arena_is_refused_by_bot_list_and_ladder(tmp_path, monkeypatch):
    """bot list --arena /nonexistent said "no bots" and ladder "no runs to rate", both with exit 0."""
    gone = tmp_path / "nowhere"
    for args in (("bot", "list"), ("bot", "list", "--json"), ("ladder",), ("ladder", "--json")):
        refused(in_process(*args, "--arena", gone), str(gone), "no such folder")
    monkeypatch.setenv("ELLIBIR_ARENA", str(gone))
    refused(in_process("bot", "list"), str(gone), "no such folder")
    assert not gone.exists()
    empty = tmp_path / "empty"
    empty.mkdir()  # an arena without bots or runs: as before
    listed = in_process("bot", "list", "--arena", empty)
    assert listed.returncode == 0 and "no bots in the arena" in listed.stdout
    assert json.loads(in_process("bot", "list", "--arena", empty, "--json").stdout) == []
    laddered = in_process("ladder", "--arena", empty)
    assert laddered.returncode == 0 and "no runs to rate" in laddered.stdout
    monkeypatch.delenv("ELLIBIR_ARENA")
    monkeypatch.chdir(tmp_path)  # the default ./arena, not made yet: no bots (the first submit makes it)
    listed = in_process("bot", "list")
    assert listed.returncode == 0 and "no bots in the arena" in listed.stdout


SMALL = ("--players", 2, "--deal-sets", 1, "--rounds", 1, "--executor", "local", "--quiet", "--out", "OUT")


@pytest.mark.parametrize("args, option", [
    (("play", "--bot", "builtin:greedy", "--bot", "builtin:random", "--rounds", 1, "--quiet", "--seed", 1, "--seed", 2),
     "--seed"),
    (("tournament", "run", "--bot", "builtin:greedy", "--bot", "builtin:random", *SMALL, "--players", 3), "--players"),
    (("sweep", "--vary", "threshold=51,71", "--bot", "builtin:greedy", "--bot", "builtin:random", *SMALL,
      "--duplicate", "--no-duplicate"), "--duplicate/--no-duplicate"),
    (("study", "skill", "--ladder", "builtin:random,builtin:greedy", "--vary", "threshold=51", *SMALL, "--seed", 1,
      "--seed", 2), "--seed"),
    (("ratings", "RUN", "--anchor", "builtin:greedy", "--anchor", "builtin:pairs"), "--anchor"),
    (("bot", "list", "--json", "--json"), "--json"),
    (("train", "value", "--out", "OUT", "--games", 2, "--games", 4, "--seed", 1, "--fit", "none", "--executor", "local",
      "--quiet"), "--games"),
])
def test_an_option_that_takes_one_value_given_twice_is_refused(tmp_path, tournament_run, args, option):
    """The last value was kept silently (--seed 1 --seed 2 played seed 2)."""
    args = [tournament_run if a == "RUN" else tmp_path / "out" if a == "OUT" else a for a in args]
    refused(in_process(*args), f"{option} is given 2 times")
    assert list(tmp_path.iterdir()) == []


def test_repeatable_options_stay_repeatable():
    done = in_process("play", "--bot", "builtin:greedy", "--bot", "builtin:random", "--set", "threshold=71",
                      "--set", "rounds=1", "--seed", 1, "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["rules"]["threshold"] == 71


def test_every_command_refuses_an_option_given_twice():
    """Each command of the app is made by harness/cli/commands.py's class, a command added later too."""
    import typer.main

    from harness.cli.commands import OnceCommand
    from harness.cli.main import app

    def leaves(group, path=()):
        for name, command in group.commands.items():
            if hasattr(command, "commands"):
                yield from leaves(command, (*path, name))
            else:
                yield (*path, name), command

    found = dict(leaves(typer.main.get_command(app)))
    assert len(found) > 20
    assert [path for path, command in found.items() if not isinstance(command, OnceCommand)] == []
