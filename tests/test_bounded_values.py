"""Every number from a user or a file within a declared range (issue 26): rules fields, built-in bots'
parameters, the options of play and tournaments, config files; a preset given and varied at once.
Each is refused with one line before any work starts, and the docs list the same ranges."""

from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from bots import UnknownBot, builtin_bots, parameters, parse_builtin
from engine import einundfuenfzig_rules, rules as ellibir_rules
from engine.game import make_rules
from engine.rules import ConfigError
from harness.cli.main import app
from harness.cli.play import play_spec
from harness.cli.rules import rules_listing
from harness.runs.limits import RANGES, ranges_table
from harness.runs.options import TournamentError, make_config
from harness.runs.tournament import prepare

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()
TWO = ["builtin:greedy", "builtin:random"]


def one_line(text: str) -> bool:
    return "\n" not in text.strip() and len(text) < 400


# Rules fields ------------------------------------------------------------------------------------

@pytest.mark.parametrize("field, value", [
    ("rounds", 1_000_000), ("rounds", 10**30), ("max_void_rounds", 10**6), ("max_turns", 10**29),
    ("threshold", 2**63), ("threshold", 9223372036854775808), ("max_turns", 0),
])
def test_a_huge_or_64_bit_overflowing_rules_value_is_refused_before_any_match(field, value):
    with pytest.raises(ConfigError) as e:
        make_rules("ellibir", "standard", {field: str(value)})
    assert field in str(e.value) and one_line(str(e.value))
    with pytest.raises(ValueError):  # play: before any bot starts
        play_spec(TWO, "standard", [f"{field}={value}"], None, 1, None, 3)
    with pytest.raises(TournamentError, match=field):  # a run: before anything is planned
        prepare(make_config("tournament", {"bots": TWO, "set": [f"{field}={value}"], "players": 2}))


@settings(max_examples=60, deadline=None)
@given(game=st.sampled_from(["ellibir", "einundfuenfzig"]), data=st.data())
def test_a_rules_field_is_accepted_exactly_within_its_range(game, data):
    ranges = ellibir_rules.RANGES if game == "ellibir" else einundfuenfzig_rules.RANGES
    field = data.draw(st.sampled_from(sorted(ranges)))
    least, most = ranges[field]
    value = data.draw(st.one_of(st.integers(least - 5, most + 5), st.integers(-(2**70), 2**70)))
    overrides = {field: value} if field != "players" else {"players": value}
    if least <= value <= most:
        assert getattr(make_rules(game, "standard", overrides), field) == value
    else:
        with pytest.raises(ConfigError):
            make_rules(game, "standard", overrides)


def test_every_bound_fits_the_64_bit_columns_and_every_match_is_finite():
    for ranges in (ellibir_rules.RANGES, einundfuenfzig_rules.RANGES):
        assert all(0 < least <= most < 2**31 for least, most in ranges.values())
    r = ellibir_rules.RANGES  # turns in the longest match: counted rounds, each after the most void rounds
    assert r["rounds"][1] * r["max_void_rounds"][1] * r["max_turns"][1] < 2**31


def test_pairs_openings_are_bounded_and_a_deep_list_is_one_line():
    for bad in ("[[9,0]]", "[[1,6]]", "[" + ",".join(f"[{1 + i % 8},{i % 6}]" for i in range(17)) + "]",
                "[" * 50_000 + "]" * 50_000):
        with pytest.raises(ConfigError) as e:
            make_rules("ellibir", "standard", {"pairs_openings": bad})
        assert one_line(str(e.value)) and "pairs_openings" in str(e.value)


# The built-in bots' parameters ---------------------------------------------------------------------

@pytest.mark.parametrize("name", ["mc:worlds=10**20", "mc:worlds=100000000000000000000", "mc:worlds=1025",
                                  "mc:batch=0", "mc:cap=nan", "mc:cap=inf", "mc:cap=0", "mc:gate=1e400",
                                  "mc:worlds=off", "mc:infer=2", "outs:discards=0"])
def test_a_bot_parameter_out_of_its_range_is_refused_with_its_range(name):
    with pytest.raises(UnknownBot) as e:
        parse_builtin(name)
    key = name.split(":")[1].split("=")[0]
    assert f"{key} must be" in str(e.value) and " from " in str(e.value) and one_line(str(e.value))
    with pytest.raises(TournamentError, match=key):  # a run names it: refused before planning
        prepare(make_config("tournament", {"bots": [f"builtin:{name}", "builtin:greedy"], "players": 2}))


@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_a_bot_parameter_is_accepted_exactly_within_its_range(data):
    game, bot, key, _default, _allowed = data.draw(st.sampled_from(parameters()))
    param = builtin_bots(game)[bot].PARAMS[key]
    value = data.draw(st.one_of(st.integers(-10, 2000).map(str), st.floats(allow_nan=True).map(repr),
                                st.sampled_from(["off", "none", "", "1e3", "0x10", "1_0"])))
    try:
        parsed = parse_builtin(f"{bot}:{key}={value}", game)[1][key]
    except UnknownBot:
        return
    assert parsed is None and param.off or param.least <= parsed <= param.most


# Options --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("option, value", [
    ("--move-time", "1e9"), ("--move-time", "inf"), ("--bank", "1e300"), ("--first-time", "-1"),
    ("--max-refusals", "1000000000"), ("--cpu-limit", "inf"), ("--seed", "-1"), ("--seed", str(2**128)),
])
def test_play_refuses_an_option_out_of_its_range(option, value):
    done = runner.invoke(app, ["play", "--bot", TWO[0], "--bot", TWO[1], "--quiet", option, value])
    assert done.exit_code == 2 and done.stderr.startswith(f"error: {option} must be"), done.output
    assert one_line(done.stderr)


@pytest.mark.parametrize("key, value", [("move_time", 1e9), ("cpu_limit", float("inf")), ("max_refusals", 10**9),
                                        ("seed", -5), ("seed", 2**129), ("bank", -1.0), ("workers", 0)])
def test_a_run_refuses_an_option_out_of_its_range(key, value):
    with pytest.raises(TournamentError, match=key.replace("_", "-")) as e:
        prepare(make_config("tournament", {"bots": TWO, "players": 2, key: value}))
    assert one_line(str(e.value))


def test_a_preset_given_and_varied_is_refused_like_a_field_set_and_varied():
    with pytest.raises(TournamentError, match="preset is both given"):
        prepare(make_config("sweep", {"bots": TWO, "players": 2, "preset": "tr-wiki",
                                      "vary": ["preset=standard,tr-wiki"]}))
    plan, _ = prepare(make_config("sweep", {"bots": TWO, "players": 2, "vary": ["preset=standard,tr-wiki"],
                                            "deal_sets": 1}))
    assert [v["fields"]["preset"] for v in plan["variants"]] == ["standard", "tr-wiki"]


def test_a_sprt_gauntlet_with_huge_deal_sets_is_refused_from_the_options_alone(monkeypatch):
    """Two players head to head play duplicate deals: the options alone show 2,000,000 matches (before,
    the plan was built, a gigabyte and more, and then refused)."""
    from harness.runs import plan as planning

    def never(**_):
        raise AssertionError("the plan was built before the options were refused")

    monkeypatch.setattr(planning, "make_plan", never)
    with pytest.raises(TournamentError, match="would hold up to 2000000 matches"):
        prepare(make_config("tournament", {"format": "gauntlet", "challenger": TWO[0], "bots": [TWO[1]],
                                           "players": 2, "deal_sets": 1_000_000, "sprt": True}))


# Config files -----------------------------------------------------------------------------------------

def _config(tmp_path, text: str) -> Path:
    path = tmp_path / "run.toml"
    path.write_text(text)
    return path


@pytest.mark.parametrize("case, says", [
    ("huge", "larger than 1048576 bytes"),
    ("deep array", "nested more than 32"),
    ("deep table", "nested more than 32"),
    ("deeper than Python", "nested more than 32"),
    ("cpu_limit inf", "--cpu-limit must be"),
    ("bots not strings", "bots must be a list of strings"),
    ("vs not strings", "vs must be a list of strings"),
])
def test_a_config_file_is_capped_in_size_and_depth_and_checked_whole(tmp_path, case, says):
    texts = {
        "huge": "# " + "x" * (1 << 20) + "\n",
        "deep array": "bots = " + "[" * 40 + "]" * 40 + "\n",
        "deep table": "[set]\nthreshold = " + "{a = " * 40 + "1" + "}" * 40 + "\n",
        "deeper than Python": "bots = " + "[" * 5000 + "]" * 5000 + "\n",
        "cpu_limit inf": 'bots = ["builtin:greedy", "builtin:random"]\ncpu_limit = inf\n',
        "bots not strings": "bots = [1, 2]\n",
        "vs not strings": 'bots = ["builtin:greedy"]\nvs = [3]\n',
    }
    path = _config(tmp_path, texts[case])
    with pytest.raises(TournamentError, match=re.escape(says)) as e:
        prepare(make_config("tournament", {}, path))
    assert one_line(str(e.value))


def _limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


@pytest.mark.parametrize("what", ["fifo", "/dev/zero"])
def test_a_config_file_that_is_not_a_file_is_refused_at_once(tmp_path, what):
    path = Path(what) if what.startswith("/") else tmp_path / "run.toml"
    if what == "fifo":
        os.mkfifo(path)
    done = subprocess.run([sys.executable, "-m", "harness", "tournament", "run", "--config", str(path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60,  # before: waited for a writer for ever, or
                          preexec_fn=_limit_memory)  # read /dev/zero until the memory was gone
    assert done.returncode == 2 and "not a regular file" in done.stderr and one_line(done.stderr)


# The docs are made from the declarations -------------------------------------------------------------

def test_the_docs_list_the_declared_ranges():
    tournaments = (ROOT / "docs" / "tournaments.md").read_text()
    assert ranges_table() in tournaments, ranges_table()
    rules_doc = (ROOT / "docs" / "rules.md").read_text()
    for game in ("ellibir", "einundfuenfzig"):
        for f in rules_listing(game)["fields"]:
            row = next(line for line in rules_doc.splitlines() if line.startswith(f"| `{f['name']}` |")
                       and (game == "ellibir") == (line.count("|") == 6))
            assert row.rstrip().endswith(f"| {f['allowed']} |"), (row, f["allowed"])
    bots_doc = (ROOT / "docs" / "bots.md").read_text()
    for game, bot, key, default, allowed in parameters():
        assert f"| {game} | `{bot}` | `{key}` | {default} | {allowed} |" in bots_doc


def test_the_docs_list_every_key_of_a_config_file():
    import re

    from harness.runs.options import _TYPES

    tournaments = (ROOT / "docs" / "tournaments.md").read_text()
    rows = {key for line in tournaments.splitlines() if line.startswith("| `")
            for key in re.findall(r"`\[?(\w+)\]?`", line.split("|")[1])}
    assert set(_TYPES) - rows == set()


@pytest.mark.parametrize("command, options", [
    (["play"], ["--move-time", "--bank", "--first-time", "--max-refusals", "--cpu-limit", "--line-limit", "--seed"]),
    (["tournament", "run"], ["--deal-sets", "--workers", "--seed", "--move-time", "--bank", "--first-time",
                             "--max-refusals", "--cpu-limit"]),
    (["bot", "check"], ["--matches", "--move-time", "--bank", "--first-time", "--seed"]),
    (["train", "value"], ["--games", "--seed", "--noise", "--workers"]),
])
def test_help_states_each_option_s_range(command, options):
    text = " ".join(runner.invoke(app, [*command, "--help"], env={"COLUMNS": "400"}).stdout.replace("│", " ").split())
    for option in options:
        assert RANGES[option].text() in text, option
