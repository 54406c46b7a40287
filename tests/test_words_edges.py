"""What the commands say on edge-case runs made by the tool itself: bots that split every deal set, a
run in which nobody ever opens, three players on two deal sets, a gauntlet decided by the SPRT. Every
sentence must be what its numbers support: no bot called strongest that is not told apart from the
next, no "-0.0", no share of zero rounds, no interval below the least value a figure can take, no
SPRT verdict stronger than the test."""

from __future__ import annotations

import pytest

from cli_runs import in_process
from conftest import run_cli, shared
from results import words
from results.balance import balance
from results.ratings import ratings
from results.report_parts import sprt_docs, sprt_section
from results.runs import open_runs

TWO = ("--executor", "local", "--quiet", "--players", 2, "--rounds", 1, "--seed", 5)


def made(tmp_path_factory, name: str, *args) -> str:
    def make(top):
        run_cli(*args, "--name", name, "--out", top / name)

    return str(shared(tmp_path_factory, f"edges-{name}", make) / name)


@pytest.fixture(scope="module")
def tied(tmp_path_factory):
    """greedy and pairs split each of their 3 deal sets: one match each, the same 0.5 score everywhere."""
    return made(tmp_path_factory, "tied", "tournament", "run", *TWO, "--bot", "builtin:greedy", "--bot", "builtin:pairs",
                "--deal-sets", 3)


@pytest.fixture(scope="module")
def void(tmp_path_factory):
    """Nobody can open (threshold 1000, no pairs opening within reach): every round void, every match a tie."""
    return made(tmp_path_factory, "void", "tournament", "run", *TWO, "--bot", "builtin:greedy", "--bot", "builtin:pairs",
                "--deal-sets", 3, "--set", "threshold=1000", "--set", "pairs_openings=[[8,5]]",
                "--set", "max_void_rounds=1")


@pytest.fixture(scope="module")
def three(tmp_path_factory):
    """Three players, two deal sets: Student's t on one degree of freedom."""
    return made(tmp_path_factory, "three", "tournament", "run", "--executor", "local", "--quiet", "--players", 3,
                "--rounds", 1, "--seed", 5, "--bot", "builtin:greedy", "--bot", "builtin:pairs", "--bot", "builtin:random",
                "--deal-sets", 2)


def test_no_bot_is_called_strongest_when_it_is_not_told_apart_from_the_next(tied):
    doc = ratings(open_runs([tied]), reference="builtin:greedy")
    first, pair = words.bot_sentences(doc)
    assert "cannot be told apart" in pair.text
    assert not first.text.startswith("Strongest"), first.text  # main: "Strongest: builtin:greedy"
    assert "No bot is shown strongest" in first.text
    assert "the scale's anchor" in first.text and "1,500.0 – 1,500.0" not in first.text  # the anchor has no interval


def test_an_even_score_is_zero_not_minus_zero(tied):
    for bounds in (("--elo0", 0, "--elo1", 20), ("--elo0", -5, "--elo1", 5)):
        out = in_process("sprt", tied, "--bot", "greedy", "--vs", "pairs", *bounds).stdout
        assert "score" in out and "0.5000" in out
        assert "-0.0" not in out, out  # main: "Elo (95%) -0.0" and, for -5/5, "LLR -0.000"
    assert in_process("sprt", tied, "--bot", "greedy", "--vs", "pairs", "--json").stdout.count('"elo": 0.0') == 1


def test_the_median_row_of_balance_names_its_percentiles(tied, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # the row's label on one line
    out = in_process("balance", tied).stdout
    # main printed "turns: median" beside "40.0 [35.2, 44.8]": its "[p10, p90]" was read as rich markup and
    # dropped, so the percentiles read as the median's 95% interval
    assert "turns: median (10th, 90th percentile)" in out


def test_no_first_player_share_of_rounds_that_nobody_won(void):
    doc = balance(open_runs([void]))
    assert doc["variants"][0]["void_rate"]["rate"] == 1.0
    top = [s.text for s in words.headline(None, doc)]
    assert any("no round had a winner" in t.lower() for t in top), top
    assert not any("wins – of the rounds" in t for t in top), top  # main: "The first player wins – of the rounds..."
    said = [s.text for s in words.warnings(None, doc)]
    assert "100% of the rounds are void: you may be measuring the bots" in said[0], said  # not "rounds of all"


def test_a_run_nobody_opened_in_says_so_instead_of_empty_tables(void, monkeypatch, tmp_path):
    monkeypatch.setenv("COLUMNS", "200")
    out = in_process("balance", void).stdout
    # main: a table of dashes for how rounds are won, header rows without a row for the openings
    assert "how rounds are won (share of non-void rounds): no round had a winner" in out
    assert "openings by method (share of seat-rounds): no seat opened" in out
    assert "0.0 – 0.0" not in out  # every total 0: no interval, not one of no width
    seats = balance(open_runs([void]))["variants"][0]["seat_scores"]
    assert all(s["mean"] == 0 and s["lo"] is None and s["hi"] is None for s in seats), seats
    from results.report import write_report

    page = write_report([void], tmp_path / "void.html").read_text()
    assert "No seat opened in these rounds." in page and "No round had a winner." in page


def test_the_standings_say_when_a_first_place_is_shared(void, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")  # a terminal's default width, and a pipe's
    said = in_process("tournament", "run", "--resume", void, "--quiet").stdout
    assert " penalties " in said  # the short breakdown's header whole (main: "penaltie" over "s")
    out = " ".join(said.split())
    assert "100.0%" in out  # every seat finished first, shared: every match a tie
    assert "6 of 6 matches" in out and "shared" in out, out


def test_match_intervals_stay_above_zero(three):
    doc = balance(open_runs([three]))
    match = doc["variants"][0]["match"]
    for figure in ("deals", "turns", "margin", "lead_changes"):
        assert match[figure]["lo"] >= 0, (figure, match[figure])  # main: turns -123, deals -1.0 on two deal sets
    assert match["turns"]["hi"] > match["turns"]["mean"] > match["turns"]["lo"]


def test_sprt_interval_on_two_deal_sets_uses_students_t(three):
    """Two deal sets scoring 2/3 and 1: the normal quantile gave greedy a lower bound of +4.6 Elo over pairs;
    Student's t on one degree of freedom reaches past every score, so there is no finite bound."""
    from results.sprt import sprt

    result = sprt(open_runs([three]), "builtin:greedy", "builtin:pairs", 0, 20)
    assert result["deal_sets"] == 2 and result["score"] == pytest.approx(5 / 6)
    assert result["elo_lo"] is None and result["elo_hi"] is None


@pytest.fixture(scope="module")
def decided(tmp_path_factory):
    def make(top):
        return run_cli("tournament", "run", *TWO, "--format", "gauntlet", "--challenger", "builtin:greedy",
                       "--bot", "builtin:random", "--deal-sets", 14, "--sprt", "--elo0", 0, "--elo1", 200,
                       "--name", "decided", "--out", top / "decided").stdout

    folder = shared(tmp_path_factory, "edges-decided", lambda top: (top / "said.txt").write_text(make(top)))
    return str(folder / "decided"), (folder / "said.txt").read_text()


def test_an_sprt_verdict_says_what_the_test_shows_and_no_more(decided):
    """H1 accepted with elo0 0 and elo1 200 says greedy is stronger than random: the test would accept H1 about
    half the time for a true difference of 100, so "at least 200 Elo stronger" is more than it shows."""
    run, said = decided
    assert "H1 accepted: greedy is stronger than random" in said, said
    out = in_process("sprt", run, "--bot", "greedy", "--vs", "random", "--elo0", 0, "--elo1", 200).stdout
    assert "H1 accepted: greedy is stronger than random" in out and "at least" not in out, out
    page = sprt_section(sprt_docs(open_runs([run])))  # the report's SPRT section, as HTML
    assert "builtin:greedy is stronger than builtin:random (H1 accepted)" in page and "at least" not in page


def test_one_deal_set_is_said_in_the_singular(tmp_path_factory, monkeypatch):
    one = made(tmp_path_factory, "one", "tournament", "run", *TWO, "--bot", "builtin:greedy", "--bot", "builtin:pairs",
               "--deal-sets", 1)
    said = [s.text for s in words.warnings(None, balance(open_runs([one])))]
    assert any(t.startswith("Only 1 deal set: too few") for t in said), said  # main: "Only 1 deal sets"
    monkeypatch.setenv("COLUMNS", "200")
    out = in_process("ratings", one).stdout
    assert "1 deal set; share" in out and "1 deal sets" not in out, out
    top = " ".join(s.text for s in words.headline(None, balance(open_runs([one]))))
    assert "deals (no interval)" in top and "[–" not in top, top  # main: "1.0 deals [–, –]"
