"""Issue 27, the harness side: the one rating convention in ``ratings``, the report and the ladder; the report told
what ``balance`` and ``ratings`` are told; every warning said where it is computed; the SPRT's distance to a verdict
and its symmetric bounds; a run replicated on fresh deals and its findings checked."""

from __future__ import annotations

import json
import shutil

import pytest

from conftest import run_cli, shared
from typer_cli import cli, one_line_error


@pytest.fixture(scope="module")
def no_greedy(tmp_path_factory):
    """pairs against random: a run without the reference bot (2 players, 4 deal sets)."""
    def make(top):
        run_cli("tournament", "run", "--executor", "local", "--bot", "builtin:pairs", "--bot", "builtin:random",
                "--players", 2, "--rounds", 1, "--deal-sets", 4, "--seed", 6, "--quiet", "--out", top / "pr")

    return shared(tmp_path_factory, "no_greedy", make) / "pr"


# ratings: the convention, one leaderboard per table size and rules, the pooling warnings -------------------------


def test_ratings_put_the_reference_bot_at_1500_else_the_mean_and_say_which(tournament_run, no_greedy):
    done = cli("ratings", tournament_run)
    assert done.exit_code == 0, done.output
    first = done.stdout.splitlines()[0]
    assert "builtin:greedy (the reference bot) is 1500 where it played, else the mean of the rated bots" in first
    assert "4 players, standard rules: Elo scale (theta*400/ln 10): builtin:greedy is 1500 (the reference bot)" \
        in done.stdout
    doc = json.loads(cli("ratings", no_greedy, "--json").stdout)
    [board] = doc["leaderboards"]
    assert board["anchor"] is None and board["scale"].endswith(
        "the mean of the rated bots is 1500 (builtin:greedy did not play here)")
    assert sum(b["rating"] for b in board["bots"]) / 2 == pytest.approx(1500)
    asked = json.loads(cli("ratings", tournament_run, "--anchor", "builtin:pairs", "--json").stdout)
    [board] = asked["leaderboards"]
    assert board["anchor"] == "builtin:pairs" and board["scale"].endswith("builtin:pairs is 1500")
    assert {b["bot"]: b["rating"] for b in board["bots"]}["builtin:pairs"] == pytest.approx(1500)


def test_ratings_rate_each_variant_apart_and_print_the_pooling_warnings(tournament_run, sweep_run, tmp_path):
    again = tmp_path / "again"
    shutil.copytree(sweep_run, again)  # the same deal seeds: counted twice
    done = cli("ratings", sweep_run, again, tournament_run)
    assert done.exit_code == 0, done.output
    lines = done.stdout.splitlines()
    assert "2 leaderboards" in lines[0]
    warnings = [ln for ln in lines if ln.startswith("warning: ")]
    assert any("played by different bots" in w for w in warnings)
    assert any("share 6 deal seeds" in w for w in warnings)
    assert "4 players, standard rules: Elo scale" in done.stdout and "4 players, threshold=71: Elo scale" in done.stdout
    doc = json.loads(cli("ratings", sweep_run, again, tournament_run, "--json").stdout)
    assert [b["label"] for b in doc["leaderboards"]] == ["4 players, standard rules", "4 players, threshold=71"]
    assert len(doc["warnings"]) == 2 and all(b["anchor"] == "builtin:greedy" for b in doc["leaderboards"])


# balance and sprt: the warnings, the distance to a verdict, symmetric bounds --------------------------------------


def test_balance_prints_the_documents_warnings_and_the_pooling_warnings(sweep_run, tmp_path):
    again = tmp_path / "again"
    shutil.copytree(sweep_run, again)
    done = cli("balance", sweep_run, again)
    assert done.exit_code == 0, done.output
    said = [ln for ln in done.stdout.splitlines() if ln.startswith("warning: ")]
    assert len(said) == 1 and "share 6 deal seeds" in said[0]
    doc = json.loads(cli("balance", sweep_run, again, "--json").stdout)
    assert doc["warnings"] == [said[0].removeprefix("warning: ")]
    alone = cli("balance", sweep_run)  # a threshold names no opening method: never "a rule never in play"
    assert "warning:" not in alone.stdout and "never came into play" not in alone.stdout


def test_a_varied_threshold_is_never_a_rule_out_of_play():
    from results.pooling import unexercised

    variants = [{"label": f"threshold={t}, rising_threshold={r}", "rules": {"threshold": t, "rising_threshold": r},
                 "openings": {"by_method": {"melds": {"rate": 0.5}, "pairs": {"rate": 0.0}}}}
                for t, r in ((51, False), (101, True))]
    assert unexercised({"variants": variants}) == []


def test_sprt_says_how_far_it_is_from_a_verdict_and_warns_of_symmetric_bounds(tournament_run):
    done = cli("sprt", tournament_run, "--bot", "builtin:pairs", "--vs", "builtin:greedy", "--elo1", "20")
    assert done.exit_code == 0, done.output
    assert "deal sets still needed" in done.stdout and "warning" not in done.stderr
    doc = json.loads(cli("sprt", tournament_run, "--bot", "builtin:pairs", "--vs", "builtin:greedy", "--elo1", "20",
                         "--json").stdout)
    from results.report_parts import remaining_text

    assert remaining_text(doc).split(",")[0] in " ".join(done.stdout.split())
    twins = cli("sprt", tournament_run, "--bot", "builtin:pairs", "--vs", "builtin:greedy", "--elo0", "-5",
                "--elo1", "5")
    assert twins.exit_code == 0
    assert "warning: --elo0 -5 --elo1 5 are symmetric about 0" in twins.stderr and "never decides" in twins.stderr


def test_a_gauntlet_with_symmetric_bounds_is_warned_before_it_plays(tmp_path):
    done = run_cli("tournament", "run", "--executor", "local", "--format", "gauntlet", "--challenger",
                   "builtin:pairs", "--bot", "builtin:greedy", "--players", 2, "--rounds", 1, "--deal-sets", 1,
                   "--sprt", "--elo0", "-10", "--elo1", "10", "--seed", 3, "--quiet", "--out", tmp_path / "g")
    said = done.stderr.splitlines()
    warned = [i for i, ln in enumerate(said) if "symmetric about 0" in ln]
    planned = [i for i, ln in enumerate(said) if ln.startswith("plan: ")]
    assert warned and planned and warned[0] < planned[0]  # said when the bounds are chosen, before anything plays


# report: told what balance and ratings are told ---------------------------------------------------------------------


def test_the_report_takes_the_comparisons_the_margins_and_the_anchor(sweep_run, tmp_path, monkeypatch):
    from harness.replay import viewer

    monkeypatch.setattr(viewer, "report_viewers", lambda runs, path: {})  # the viewers: test_report_words.py
    target = tmp_path / "r.html"
    done = cli("report", sweep_run, "--html", target, "--baseline", "threshold=51", "--margin", "0.05",
               "--margin", "turns=2", "--exploratory", "--anchor", "builtin:pairs")
    assert done.exit_code == 0, done.output
    page = target.read_text()
    assert "builtin:pairs is 1500" in page and "builtin:greedy is 1500" not in page
    assert "each variant against the baseline threshold=51" in page
    assert "adjusted by Benjamini–Hochberg as one family" in page and "turns ±2" in page
    plain = tmp_path / "plain.html"
    assert cli("report", sweep_run, "--html", plain).exit_code == 0
    text = plain.read_text()
    assert "builtin:greedy is 1500 (the reference bot)" in text and "no equivalence margin given" in text


def test_a_report_told_something_impossible_says_so_and_writes_nothing(sweep_run, tmp_path):
    target = tmp_path / "r.html"
    one_line_error(cli("report", sweep_run, "--html", target, "--compare", "threshold=51:threshold=99"),
                   "'threshold=99' names no variant")
    one_line_error(cli("report", sweep_run, "--html", target, "--margin", "turns=x"), "--margin")
    one_line_error(cli("report", sweep_run, "--html", target, "--margin", "nothing=2"), "no such metric")
    one_line_error(cli("report", sweep_run, "--html", target, "--margin", "0.02", "--margin", "0.05"), "given twice")
    one_line_error(cli("balance", sweep_run, "--margin", "turns=2", "--margin", " turns=3"), "given twice")
    one_line_error(cli("report", sweep_run, "--html", target, "--anchor", "nobody"), "unknown anchor 'nobody'")
    one_line_error(cli("report", sweep_run, "--html", target, "--compare", "threshold=51:threshold=71",
                       "--baseline", "threshold=51"), "not both")
    assert list(tmp_path.iterdir()) == []  # no report, and no viewers either


# the ladder and the arena's record: the same convention --------------------------------------------------------------


def test_a_ladder_without_the_reference_bot_is_on_the_mean_and_says_so(tournament_run, no_greedy):
    from harness.arena.ladder import ladders

    found = {(e["players"], e["name"]): e for e in ladders([tournament_run, no_greedy])}
    two = found[(2, "standard")]
    assert "problem" not in two and two["anchor"] is None and two["reference"] == "builtin:greedy"
    assert two["scale"].endswith("the mean of the rated bots is 1500 (builtin:greedy did not play here)")
    assert sum(b["rating"] for b in two["bots"]) / len(two["bots"]) == pytest.approx(1500)
    four = found[(4, "standard")]
    assert four["anchor"] == "builtin:greedy" and four["scale"].endswith("builtin:greedy is 1500 (the reference bot)")
    (no_greedy.parent / "arena").mkdir(exist_ok=True)  # an arena without runs
    text = cli("ladder", "--arena", no_greedy.parent / "arena", "--run", no_greedy)
    assert text.exit_code == 0 and "the mean of the rated bots is 1500" in " ".join(text.stdout.split())


# replication on fresh deals ----------------------------------------------------------------------------------------


def test_a_sweep_replicated_on_fresh_deals_is_compared_with_the_first(sweep_run, tmp_path):
    first = json.loads((sweep_run / "run.json").read_text())
    out = tmp_path / "again"
    done = run_cli("sweep", "--replicate", sweep_run, "--executor", "local", "--quiet", "--out", out)
    assert f"ellibir balance {sweep_run.resolve()} {out}" in done.stdout
    plan = json.loads((out / "run.json").read_text())
    assert plan["replicates"] == {"run": "sweep", "dir": str(sweep_run.resolve()), "seed": first["seed"]}
    assert [v["id"] for v in plan["variants"]] == [v["id"] for v in first["variants"]]
    assert [b["label"] for b in plan["bots"]] == [b["label"] for b in first["bots"]]
    for key in ("kind", "format", "players", "deal_sets", "design", "options"):
        assert plan[key] == first[key], key
    assert not set(plan["deal_seeds"]) & set(first["deal_seeds"]) and plan["seed"] != first["seed"]
    assert len(plan["matches"]) == len(first["matches"])
    compared = cli("balance", sweep_run, out)
    assert compared.exit_code == 0, compared.output
    assert "replication: again replays sweep on fresh deals" in compared.stdout
    doc = json.loads(cli("balance", sweep_run, out, "--json").stdout)
    [entry] = doc["replication"]
    assert entry["first"] == "sweep" and entry["replica"] == "again" and isinstance(entry["findings"], list)
    rated = json.loads(cli("ratings", sweep_run, out, "--json").stdout)
    [entry] = rated["replication"]
    assert {r["bot"] for r in entry["bots"]} == {"builtin:pairs"}  # greedy is 1500 in both
    assert all(r["agree"] in (True, False) for r in entry["bots"])


def test_a_replication_takes_only_where_and_how_to_play(sweep_run, tournament_run, tmp_path):
    one_line_error(cli("sweep", "--replicate", sweep_run, "--players", 2, "--out", tmp_path / "x"), "not players")
    one_line_error(cli("tournament", "run", "--replicate", sweep_run, "--out", tmp_path / "x"),
                   "is a sweep: replicate it with ellibir sweep --replicate")
    seed = json.loads((tournament_run / "run.json").read_text())["seed"]
    one_line_error(cli("tournament", "run", "--replicate", tournament_run, "--seed", seed, "--out", tmp_path / "x"),
                   "its replication needs other deals")
    assert not (tmp_path / "x").exists()


def test_a_bot_folder_changed_since_the_run_cannot_be_replicated(tmp_path):
    from harness.runs.options import TournamentError
    from harness.runs.replicate import same_bots

    plan = {"name": "r", "game": "ellibir", "bots": [
        {"kind": "builtin", "label": "builtin:greedy", "name": "greedy", "version": "x", "hash": ""}]}
    assert [b["label"] for b in same_bots(plan)] == ["builtin:greedy"]
    from conftest import ROOT

    kit = tmp_path / "kit"
    shutil.copytree(ROOT / "bots" / "protocol" / "greedy", kit)
    plan["bots"].append({"kind": "folder", "label": "greedy@1", "name": "greedy", "version": "1", "hash": "0" * 64,
                         "folder": str(kit)})
    with pytest.raises(TournamentError, match="changed since it played"):
        same_bots(plan)


def test_findings_are_confirmed_reversed_or_not_on_the_replica():
    from results.replication import finding_sentence, findings

    def row(metric, diff, lo, hi, p, significant=False, family="primary"):
        return {"a": "v0", "b": "v1", "metric": metric, "family": family, "diff": diff, "lo": lo, "hi": hi, "p": p,
                "n": 20, "mean_a": 0.3, "mean_b": 0.3 + diff, "significant": significant}

    variants = [{"variant": "v0", "label": "threshold=51"}, {"variant": "v1", "label": "threshold=101"}]
    first = {"variants": variants, "comparisons": [
        row("void", 0.30, 0.25, 0.35, 1e-6, True), row("win_p1", 0.06, 0.02, 0.10, 0.004, True),
        row("win_p2", -0.05, -0.09, -0.01, 0.01, True), row("exhausted", 0.02, 0.01, 0.03, 0.01, family="exploratory"),
        row("turns", 0.1, -0.2, 0.4, 0.5)]}
    replica = {"variants": variants, "comparisons": [
        row("void", 0.31, 0.26, 0.36, 1e-6), row("win_p1", 0.01, -0.02, 0.04, 0.5),
        row("win_p2", 0.05, 0.02, 0.08, 0.001), row("exhausted", 0.02, 0.01, 0.03, 0.02), row("turns", 0.0, -1, 1, 1)]}
    got = {r["metric"]: r for r in findings(first, replica)}
    assert set(got) == {"void", "win_p1", "win_p2", "exhausted"}  # "turns" showed nothing to confirm
    assert got["void"]["verdict"] == "confirmed" and not got["void"]["outside"]
    assert got["win_p1"]["verdict"] == "not confirmed" and got["win_p1"]["outside"]  # 6 points: too large
    assert got["win_p2"]["verdict"] == "opposite"
    assert got["exhausted"]["verdict"] == "confirmed" and got["exhausted"]["replica"]["p_adj"] == pytest.approx(0.04)
    said = finding_sentence(got["win_p1"])
    assert said.startswith("The first player's share") and "not confirmed on new deals" in said
    assert "+6.0 points [+2.0, +10.0]" in said and "act on the pooled figure" in said


def test_a_margin_of_every_rate_leaves_the_match_level_figures_alone():
    """``--margin 0.02`` (the README's example) is two points on every rate, never 0.02 deals or turns of a match."""
    from results.balance import margins

    got = margins(0.02, ["win_p1", "void", "turns", "match_turns", "match_deals", "match_margin", "pen_O4"])
    assert got == {"win_p1": 0.02, "void": 0.02}
    assert margins({"rates": 0.02, "match_deals": 0.5}, ["void", "match_deals"]) == {"void": 0.02, "match_deals": 0.5}
