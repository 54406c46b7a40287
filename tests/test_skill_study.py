"""Issue 29, the harness side: ``ellibir study skill`` plans, runs and resumes; ``balance`` gives its
skill objects; the restricted bots; the clairvoyant bot refused on every path a person enters a run."""

from __future__ import annotations

import json
import shutil

import pytest

from bots import UnknownBot, analysis_bots, make_bot
from cli_runs import in_process
from conftest import ROOT, shared
from typer_cli import cli, one_line_error

CLAIR = "builtin:clairvoyant"


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    """random and greedy on two variants, 2 players, 2 deal sets, one round: 20 matches, played by the
    local executor in this process (a study runs on Ray through the runner every run uses: Ray itself
    is tested by tests/test_tournament.py and the E4 sweep), each task's part kept as written; made
    once for the session's workers (``conftest.shared``) and read only: a test that resumes it
    resumes a copy."""
    top = shared(tmp_path_factory, "skill_study", make_study)
    return top / "study", (top / "said.txt").read_text()


def make_study(top) -> None:
    done = in_process("study", "skill", "--ladder", "builtin:random,builtin:greedy", "--no-restricted", "--vary",
                      "threshold=51,101", "--players", 2, "--deal-sets", 2, "--rounds", 1, "--seed", 3, "--workers", 2,
                      "--executor", "local", "--no-compact", "--quiet", "--out", top / "study")
    assert done.returncode == 0, done.stderr
    (top / "said.txt").write_text(done.stdout + done.stderr)


def copy_of(played, tmp_path):
    out = tmp_path / "study"
    shutil.copytree(played, out)
    (out / ".lock").unlink(missing_ok=True)
    return out


def test_the_study_plans_its_tables_and_says_its_precision(study):
    out, said = study
    plan = json.loads((out / "run.json").read_text())
    assert plan["kind"] == "skill" and plan["skill"]["fictive"] == CLAIR
    assert plan["skill"]["beginners"] == ["builtin:random"]
    tables = {tuple(m["seating"]) for m in plan["matches"] if m["variant"] == plan["variants"][0]["id"]
              and m["deal_set"] == 0}
    want = {("builtin:random",) * 2, ("builtin:greedy", "builtin:random"), ("builtin:random", "builtin:greedy"),
            (CLAIR, "builtin:random"), ("builtin:random", CLAIR)}
    assert tables == want
    assert "skill: about ±" in said and "points a round on each skill gap with 2 deal sets" in said and "takes about" in said


def test_balance_gives_each_variant_a_skill_object(study):
    out, _ = study
    result = cli("balance", out, "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    for v in doc["variants"]:
        s = v["skill"]
        (gap,) = s["gaps"]
        (level,) = s["levels"]
        assert (gap["weak"], gap["strong"]) == ("builtin:random", "builtin:greedy")
        for figure in (gap, level, level["learning"], level["chance"]):
            assert {"estimate", "lo", "hi"} <= set(figure)
        trace = {r["bot"]: r for r in s["trace"]["rungs"]}
        assert list(trace) == ["builtin:random", "builtin:greedy"] and trace["builtin:greedy"]["rating"] == 1500
        assert trace["builtin:random"]["lo"] < trace["builtin:random"]["rating"] < trace["builtin:greedy"]["rating"]
    rows = [r for r in doc["comparisons"] if r["metric"].startswith("skill_gap:")]
    assert rows and all(r["family"] == "primary" for r in rows)
    assert doc["skill"]["summary"]
    text = cli("balance", out).stdout
    assert "skill gaps" in text and "skill level" in text and f"skill: {doc['skill']['summary']}" in text
    for v in doc["variants"]:  # the skill trace: each rung's Elo, as in the JSON
        random = next(r for r in v["skill"]["trace"]["rungs"] if r["bot"] == "builtin:random")
        assert f"skill trace ({v['label']})" in text and f"{random['rating']:.0f}" in text
    for warning in doc["warnings"]:  # the sign-change warnings among them
        assert f"warning: {warning}" in text


def test_the_study_resumes_like_any_run(study, tmp_path):
    out = copy_of(study[0], tmp_path)
    result = cli("study", "skill", "--resume", out, "--executor", "local", "--quiet")
    assert result.exit_code == 0, result.output
    assert "(0 played now)" in result.stdout


def test_a_study_that_lost_a_task_resumes_it_to_the_same_rows(study, tmp_path):
    """The study (played on Ray) loses the files of one task with a clairvoyant table, as a run killed
    before it wrote them: ``--resume`` plays exactly those matches again, here in this process, to the
    rows Ray's workers wrote."""
    import polars as pl

    from cli_runs import assert_complete
    from results.schema import TIMING_COLUMNS

    played, _ = study
    out = copy_of(played, tmp_path)
    parts = {p.name: pl.read_parquet(p) for p in sorted((out / "matches").glob("*.parquet"))}
    lost = min((name for name, t in parts.items() if (t["bot"] == CLAIR).any()), key=lambda n: parts[n].height)
    gone = set(parts[lost]["match_id"])
    assert 0 < len(gone) < len(json.loads((out / "run.json").read_text())["matches"])
    for table, suffix in (("matches", ".parquet"), ("rounds", ".parquet"), ("logs", ".jsonl.gz")):
        (out / table / lost.replace(".parquet", suffix)).unlink()
    again = cli("study", "skill", "--resume", out, "--executor", "local", "--quiet")
    assert again.exit_code == 0, again.output
    assert f"({len(gone)} played now)" in again.stdout
    assert_complete(out)

    def rows(folder):  # decision times differ from run to run; every other column agrees
        return (pl.read_parquet(folder / "matches").drop(TIMING_COLUMNS).sort("match_id", "seat"),
                pl.read_parquet(folder / "rounds").sort("match_id", "round_index", "seat"))

    assert all(a.equals(b) for a, b in zip(rows(out), rows(played)))


def test_a_ladder_of_one_bot_is_one_line():
    one_line_error(cli("study", "skill", "--ladder", "builtin:greedy"), "--ladder needs two bots or more")


# The clairvoyant bot: refused wherever a person names it ---------------------------------------------------------


def test_the_clairvoyant_bot_is_refused_by_name_and_allowed_only_in_a_study():
    with pytest.raises(UnknownBot, match="for analysis only"):
        make_bot("clairvoyant")
    with analysis_bots():
        bot = make_bot("clairvoyant")
    assert bot.ANALYSIS_ONLY


@pytest.mark.parametrize("args", [
    ["play", "--bot", CLAIR, "--bot", "builtin:greedy"],
    ["tournament", "run", "--bot", CLAIR, "--bot", "builtin:greedy", "--executor", "local"],
    ["tournament", "run", "--format", "gauntlet", "--challenger", CLAIR, "--bot", "builtin:greedy"],
    ["sweep", "--vary", "threshold=51,71", "--bot", CLAIR, "--bot", "builtin:greedy"],
    ["study", "skill", "--ladder", f"builtin:random,{CLAIR}"],
])
def test_every_command_that_starts_a_run_refuses_it(args, tmp_path):
    one_line_error(cli(*args, "--out", tmp_path / "run") if args[0] != "play" else cli(*args), "for analysis only")


def test_an_edited_plan_that_names_it_is_refused_on_resume(tmp_path):
    from harness.runs.options import TournamentError, check_plan_values

    plan = {"game": "ellibir", "kind": "tournament", "seed": 1, "deal_sets": 1,
            "options": {"move_time": 1.0, "first_time": 5.0, "bank": 10.0, "max_refusals": 3, "on_fault": "forfeit"},
            "bots": [{"kind": "builtin", "label": CLAIR}]}
    with pytest.raises(TournamentError, match="for analysis only"):
        check_plan_values(plan, tmp_path / "run.json")
    plan.update(kind="skill", skill={"fictive": CLAIR})  # a skill study's own fictive player
    check_plan_values(plan, tmp_path / "run.json")
    plan["skill"]["fictive"] = None  # a study that did not add it
    with pytest.raises(TournamentError, match="for analysis only"):
        check_plan_values(plan, tmp_path / "run.json")


def test_the_ladder_refuses_a_skill_study(study, tmp_path):
    out, _ = study
    (tmp_path / "arena").mkdir()  # an arena without runs
    one_line_error(cli("ladder", "--arena", tmp_path / "arena", "--run", out), "is a skill study")


def test_a_bot_folder_that_serves_it_fails_bot_check(tmp_path):
    """bot check and the arena's submit play a folder behind the protocol: the serve loop names the
    bot, and the name is refused there too, so the folder fails its check."""
    kit = tmp_path / "kit"
    shutil.copytree(ROOT / "bots" / "protocol" / "greedy", kit)
    main = kit / "main.py"
    main.write_text(main.read_text().replace('main(["greedy"]', 'main(["clairvoyant"]'))
    result = cli("bot", "check", kit, "--matches", 1, "--players", 2)
    assert result.exit_code == 1, result.output
    assert "for analysis only" in result.output


# The restricted bots ------------------------------------------------------------------------------------------


def test_restricted_bots_take_one_mechanic_away_each():
    from bots.restricted import MECHANICS

    for m in MECHANICS:
        bot = make_bot(f"restricted:{m}=1")
        assert bot.without == {m}
    assert make_bot("restricted").without == set()
    with pytest.raises(UnknownBot, match="must be a whole number from 0 to 1"):
        make_bot("restricted:take=2")


# The report's skill section, in Chromium at desktop and phone widths ------------------------------------------

SKILL_PAGE = """
const s = document.getElementById('skill');
document.querySelectorAll('#skill details').forEach(d => { d.open = true; });
const doc = document.documentElement;
const wide = [...s.querySelectorAll('svg, .scroll')].filter(e => !e.parentElement.closest('svg'))
  .map(e => e.getBoundingClientRect().right - doc.clientWidth);
return {height: s.getBoundingClientRect().height, text: s.innerText, svgs: s.querySelectorAll('figure svg').length,
        tables: s.querySelectorAll('table').length, beyond: Math.max(0, ...wide), overflow: doc.scrollWidth - doc.clientWidth,
        nav: !!document.querySelector('nav a[href="#skill"]'),
        summary: document.querySelector('#summary li[data-kind="headline"]').innerText};
"""


def test_the_report_has_a_skill_section_at_desktop_and_phone_widths(study, tmp_path, browser):
    from test_report import artifacts
    from results.report import write_report

    out, _ = study
    target = write_report([out], tmp_path / "skill.html")
    summary = json.loads(cli("balance", out, "--json").stdout)["skill"]["summary"]
    for width in (1280, 390):
        browser.resize(width, 900)
        browser.open(target.resolve().as_uri())
        page = browser.run(SKILL_PAGE)
        assert page["nav"] and page["height"] > 200, page
        assert "rewards skill more" in page["text"] and "skill level" in page["text"].lower(), page["text"][:300]
        assert page["summary"].startswith(summary), page["summary"][:300]  # In short leads with it
        assert page["svgs"] >= 1 and page["tables"] >= 4, page  # the trace; gaps, levels, play, per variant
        assert page["overflow"] <= 0 and page["beyond"] <= 0, (width, page)
        browser.screenshot(artifacts() / f"skill-{width}.png")
    assert browser.console() == []
