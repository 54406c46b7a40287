"""``bot check`` against bots with one defect each (tests/defect_bots/defect.py, the starter kit with one
thing wrong): what the check must catch because a tournament or the arena would charge the bot for it.
One-round matches in the sandbox; the clock is short where a defect is a missing answer."""

from __future__ import annotations

import re

import pytest

from defect_bots import defect_bot
from harness.arena.check import check_bot
from harness.protocol.messages import TimeControl
from harness.sandbox.bubblewrap import sandbox_available

pytestmark = pytest.mark.skipif(not sandbox_available(), reason="needs the bubblewrap sandbox (root)")
KIT = defect_bot.__globals__["KIT"].parent


@pytest.fixture
def scratch(tmp_path):
    tmp_path.chmod(0o755)
    return tmp_path


def test_the_check_plays_a_protocol_2_bot_in_one_kept_process_as_a_tournament_does():
    report = check_bot(KIT, matches=3, rounds=1, seed=5)
    assert report.passed, report.text
    kept = [line for line in report.lines if "in the process of the match before: protocol 2" in line]
    assert len(kept) == 2, report.text


def test_a_bot_without_a_new_match_handler_fails_with_what_to_fix(scratch):
    report = check_bot(defect_bot(scratch, "second_match"), players=2, rounds=1, matches=2, seed=5,
                       time_control=TimeControl(move=1.0, bank=0.5, first=1.0))
    assert not report.passed
    assert "timeout: no reply to new_match" in report.failures[0]
    assert "answer new_match as hello" in report.failures[0]


def test_a_bot_that_prints_to_stdout_at_match_end_fails_whichever_way_the_line_lands(scratch):
    report = check_bot(defect_bot(scratch, "stdout_end"), players=2, rounds=1, matches=2, seed=5)
    assert not report.passed
    assert ("wrote to stdout after match_end ('match over" in report.failures[0]
            or "malformed: not JSON: b'match over" in report.failures[0]), report.text


def test_the_last_match_seats_the_bot_last_where_an_off_by_one_on_the_next_seat_crashes(scratch):
    report = check_bot(defect_bot(scratch, "last_seat"), rounds=1, seed=5)  # 2, 3, 4 players
    assert not report.passed
    assert report.failures[0].startswith("match 3 (4 players, seat 3, 1 round, seed 7"), report.text
    assert "IndexError" in report.stderr


def test_the_check_seats_the_arena_s_field_where_a_bot_meets_pairs_laid_by_others(scratch):
    """A bot that knows only runs and sets passed a check against copies of greedy, which never lays
    pairs, then faulted in 5 of 8 tournament matches beside pairs. The check seats the game's field:
    greedy, then pairs, then random."""
    report = check_bot(defect_bot(scratch, "pair_meld"), seed=5)
    assert not report.passed, report.text
    assert "KeyError: 'pair'" in report.stderr, report.stderr
    assert any("--bot builtin:pairs" in line for line in report.lines + report.failures), report.text


def test_the_submission_check_plays_past_the_first_round(scratch):
    """The arena's check of an upload played one round a table size, so a bot that breaks from round 2
    on passed it and then faulted in every ladder match."""
    from harness.arena.registry import CheckFailed, check_submission

    with pytest.raises(CheckFailed) as failed:
        check_submission(defect_bot(scratch, "round2"))
    assert "IndexError" in failed.value.report.stderr


def test_memory_that_grows_each_match_in_a_kept_process_is_a_warning_with_the_match_it_would_crash_in(scratch):
    """A kept process serves up to 50 matches; a bot keeping 40 MB more each match passed the check's 3
    and died out of memory about the twelfth match of a tournament."""
    from harness.arena.check import memory_warning
    from harness.sandbox.cgroups import cgroup_parent

    mib = 2**20
    assert memory_warning([(1, 100 * mib), (1, 101 * mib), (1, 103 * mib)]) == ""  # the allocator's drift
    assert memory_warning([(1, 100 * mib), (2, 140 * mib), (1, 105 * mib)]) == ""  # 5 MiB a match: 81 more
    assert "in about its match 10," in memory_warning([(1, 100 * mib), (1, 150 * mib), (1, 200 * mib)])  # 500 after 9
    assert "in about its match 47," in memory_warning([(1, 100 * mib), (1, 109 * mib)])  # 514 MiB after match 47
    assert memory_warning([(1, 100 * mib), (1, 108 * mib)]) == ""  # 508 MiB after match 50: it never passes
    if cgroup_parent("memory") is None:
        pytest.skip("the sandbox has no memory cgroup here to read a process's memory from")
    report = check_bot(defect_bot(scratch, "leak"), rounds=1, seed=5)
    grows = [w for w in report.warnings if w.startswith("memory grew by")]
    assert len(grows) == 1 and re.search(r"passes the 512 MiB limit in about its match 1[0-5],", grows[0]), report.text
    assert not any("memory" in w for w in check_bot(KIT, rounds=1, seed=5).warnings)
