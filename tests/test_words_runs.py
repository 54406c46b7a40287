"""The summary in words checked against its tables on constructed runs (issue 27, point 3): a sweep of
exhausted=void against exhausted=score at threshold 101 (rounds without a winner), the shared sweep
of thresholds 51 and 71 (void and exhausted the same figure; a null result on 6 deal sets)."""

from __future__ import annotations

import pytest

from conftest import run_cli, shared
from results import words
from results.balance import balance
from results.report_balance import comparison_rows
from results.runs import open_runs

VERDICT_WORDS = {"shown": "At ", "no change shown": "no change shown", "the same within the margin": "is the same at",
                 "a lead: check on new deals": "may differ", "no spread to test": "in every deal set"}


@pytest.fixture(scope="module")
def exhausted_sweep(tmp_path_factory):
    def make(top):
        run_cli("sweep", "--executor", "local", "--vary", "exhausted=void,score", "--set", "threshold=101",
                "--bot", "builtin:greedy", "--bot", "builtin:pairs", "--players", 2, "--deal-sets", 12, "--rounds", 2,
                "--seed", 7, "--workers", 1, "--name", "exhausted", "--out", top / "exhausted", "--quiet")

    return balance(open_runs([shared(tmp_path_factory, "exhausted_sweep", make) / "exhausted"]))


def check_against_table(doc: dict) -> int:
    """Each row of the comparison table has one sentence (none when it is the same figure as another),
    with the row's difference, interval and verdict."""
    said = iter(words.variant_sentences(doc))
    checked = 0
    for row, c in zip(comparison_rows(doc), doc["comparisons"]):
        a, b, quantity, _, _, _, _, difference, _, _, verdict = row
        if verdict.startswith("the same figure as"):
            assert c["same_as"], row
            continue
        text = next(said).text
        assert a in text and b in text and quantity.lower() in text.lower(), (row, text)
        assert VERDICT_WORDS[verdict] in text and difference.split(" [")[0] in text, (row, text)
        assert "Real difference" not in text and "not a verdict" not in text and "…" not in text
        checked += 1
    assert next(said, None) is None
    return checked


def test_seat_shares_are_shares_of_the_rounds_that_have_a_winner(exhausted_sweep):
    """Under exhausted=score an exhausted stock ends a round without a winner: the positions' shares
    are of the rounds with one, so they add up to 100% (they added up to less, and every seat seemed
    to win less)."""
    by_label = {v["label"]: v for v in exhausted_sweep["variants"]}
    scored = by_label["exhausted=score"]
    played = scored["rounds"] - round(scored["void_rate"]["rate"] * scored["rounds"])
    assert scored["positions"][0]["rounds"] < played  # some played rounds had no winner
    for v in exhausted_sweep["variants"]:
        assert sum(p["rate"] for p in v["positions"]) == pytest.approx(1.0), v["label"]


def test_the_words_of_the_exhausted_sweep_are_its_tables(exhausted_sweep):
    assert check_against_table(exhausted_sweep) >= 8
    top = words.headline(None, exhausted_sweep)
    assert 3 <= len(top) <= 5
    assert any(s.figures.get("metric") == "win_p1" for s in top)  # the designer's first question, never cut


def test_one_quantity_one_verdict_and_a_null_result_said_with_its_precision(sweep_run):
    doc = balance(open_runs([sweep_run]))
    rows = {c["metric"]: c for c in doc["comparisons"]}
    assert rows["exhausted"]["same_as"] == "void"  # every exhausted round is void under exhausted=void
    assert rows["pen_A5"]["same_as"] is None  # two penalties that never happen are not one quantity
    assert check_against_table(doc) >= 8
    top = words.headline(None, doc)
    assert not any(s.figures["verdict"] == "shown" for s in top)  # 6 deal sets show nothing
    assert all("no change shown" in s.text for s in top)
    assert any("any change lies within ±" in s.text and "deal sets" in s.text for s in top)
