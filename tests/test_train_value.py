"""``ellibir train value`` end to end on the real engine, in seconds: self-play through the local
executor into Parquet parts (resumed part by part), a fit deterministic for the seed, the sealed
weights and their card, loaded and played; a changed file or other features refused in one line; the
generation test (the new weights as a sandboxed bot folder in an SPRT gauntlet), and the protocol
loop's ``--weights``."""

from __future__ import annotations

import json

import numpy as np
import pytest
from test_mc import play
from typer.testing import CliRunner

from bots import make_bot
from bots.serve import Client, _weights
from bots.serve import main as serve_main
from bots.value.model import WEIGHTS, WeightsError, load, save, seal, shipped
from bots.value.selfplay import SelfPlay
from bots.vgreedy import VGreedy
from engine import make_rules
from harness.cli.main import app
from harness.runs.executors import LocalExecutor
from harness.protocol.messages import TimeControl, hello_message
from harness.runs.selfplay import SelfPlayError, play_data, play_part, read_data
from harness.sandbox.bubblewrap import sandbox_available

runner = CliRunner()
TINY = ["--games", "8", "--seed", "3", "--set", "players=3", "--set", "rounds=1", "--fit", "linear", "--quiet"]


def train(out, *more):
    return runner.invoke(app, ["train", "value", "--out", str(out), *TINY, *more])


def test_train_value_plays_fits_and_writes_weights_a_bot_plays_with(tmp_path):
    first = train(tmp_path / "a")
    assert first.exit_code == 0, first.output
    summary = json.loads(first.stdout)
    assert summary["played"] == {"games": 8, "played": 8, "parts": 1, "seconds": summary["played"]["seconds"]}
    weights = load(tmp_path / "a" / "value.json")
    card = (tmp_path / "a" / "card.md").read_text()
    assert weights.sha256 in card and "rules: standard with players=3" in card and "ellibir train value" in card

    again = train(tmp_path / "a")  # resumes: nothing left to play, the same fit
    assert again.exit_code == 0 and json.loads(again.stdout)["played"]["played"] == 0
    other = json.loads((tmp_path / "a" / "value.json").read_text())
    assert other["layers"] == weights.payload["layers"]

    rules = make_rules("standard", {"players": 3, "rounds": 1})
    _match, refused = play(rules, 4, [VGreedy(0, value=weights), make_bot("greedy", 1), make_bot("vbot:worlds=2", 2)])
    assert refused == [0, 0, 0]


def test_a_folder_of_another_data_set_is_refused_in_one_line(tmp_path):
    first = runner.invoke(app, ["train", "value", "--out", str(tmp_path / "a"), *TINY[:-3], "--fit", "none"])
    assert first.exit_code == 0
    result = runner.invoke(app, ["train", "value", "--out", str(tmp_path / "a"), *TINY[:-3], "--noise", "0.2",
                                 "--fit", "none"])
    assert result.exit_code == 2 and "another data set (noise differ)" in result.output
    assert result.output.strip().count("\n") == 0
    bad = runner.invoke(app, ["train", "value", "--out", str(tmp_path / "b"), "--games", "2", "--set", "colour=red"])
    assert bad.exit_code == 2 and "unknown rules field" in bad.output


def test_self_play_resumes_part_by_part_with_the_same_rows(tmp_path):
    spec = SelfPlay(overrides={"players": 2, "rounds": 1}, seed=4)
    play_data(tmp_path / "whole", spec, 6, LocalExecutor(play_part), chunk=2)
    play_data(tmp_path / "cut", spec, 6, LocalExecutor(play_part), chunk=2)
    (tmp_path / "cut" / "part-0000002.parquet").unlink()
    with pytest.raises(SelfPlayError, match="2 of 3 parts"):
        read_data(tmp_path / "cut")
    assert play_data(tmp_path / "cut", spec, 6, LocalExecutor(play_part), chunk=2)["played"] == 2
    whole, cut = read_data(tmp_path / "whole")[1], read_data(tmp_path / "cut")[1]
    assert all((whole[k] == cut[k]).all() for k in whole)


def test_a_self_play_not_finished_reads_its_whole_parts_when_asked(tmp_path):
    spec = SelfPlay(overrides={"players": 2, "rounds": 1}, seed=4)
    play_data(tmp_path / "whole", spec, 6, LocalExecutor(play_part), chunk=2)
    play_data(tmp_path / "cut", spec, 6, LocalExecutor(play_part), chunk=2)
    (tmp_path / "cut" / "part-0000004.parquet").unlink()
    whole, cut = read_data(tmp_path / "whole")[1], read_data(tmp_path / "cut", partial=True)[1]
    games = np.unique(cut["game"])
    assert games.tolist() == [0, 1, 2, 3]
    kept = np.isin(whole["game"], games)
    assert all((whole[k][kept] == cut[k]).all() for k in whole)
    for part in (tmp_path / "cut").glob("part-*.parquet"):
        part.unlink()
    with pytest.raises(SelfPlayError, match="0 of 3 parts"):
        read_data(tmp_path / "cut", partial=True)


def test_weights_changed_or_fitted_on_other_features_are_refused_in_one_line(tmp_path):
    assert train(tmp_path / "a").exit_code == 0
    path = tmp_path / "a" / "value.json"
    payload = json.loads(path.read_text())
    payload["layers"][0][1][0] += 0.5
    path.write_text(json.dumps(payload))
    with pytest.raises(WeightsError, match="hash does not match") as e:
        load(path)
    assert "\n" not in str(e.value)
    payload["features"] = payload["features"][:-1] + ["something_else"]
    path.write_text(json.dumps(seal(payload)))
    with pytest.raises(WeightsError, match="other features") as e:
        load(path)
    assert "\n" not in str(e.value)


needs_sandbox = pytest.mark.skipif(not sandbox_available(), reason="the sandbox (bubblewrap, root) is not available here")


@needs_sandbox
def test_the_generation_test_plays_the_new_weights_sandboxed_and_puts_its_verdict_on_the_card(tmp_path):
    out = tmp_path / "g"
    args = ["train", "value", "--out", str(out), "--games", "8", "--seed", "3", "--set", "players=2", "--set",
            "rounds=1", "--fit", "linear", "--quiet", "--sprt", "1"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["sprt"]["verdict"] == "continue"  # one deal set: below the least the test decides on
    assert (summary["sprt"]["deal_sets"], summary["sprt"]["matches"]) == (1, 2)
    tested = json.loads((out / "sprt" / "sprt.json").read_text())
    assert tested["bot"] == f"vgreedy-trained@{summary['sha256'][:12]}" and tested["vs"] == "builtin:vgreedy"
    card = (out / "card.md").read_text()
    assert "## Generation test" in card and "not accepted" in card and "--sprt 1 --against builtin:vgreedy" in card
    assert "after 1 deal set (2 matches), Elo " in card and "no interval (one deal set)" in card  # not "unbounded"

    again = runner.invoke(app, args)  # the same command: the test resumes, nothing left to play
    assert again.exit_code == 0 and json.loads(again.stdout)["sprt"] == summary["sprt"]
    more = runner.invoke(app, args[:-1] + ["2"])
    assert more.exit_code == 2 and "holds another test" in more.output and more.output.strip().count("\n") == 0


def test_generation_test_options_are_checked_before_playing(tmp_path):
    for extra, said in ((["--fit", "none", "--sprt", "2"], "give a fit"),
                        (["--sprt", "2", "--against", "builtin:nosuch"], "nosuch"),
                        (["--sprt", "2", "--elo0", "5", "--elo1", "5"], "must be above --elo0")):
        result = runner.invoke(app, ["train", "value", "--out", str(tmp_path / "x"), "--games", "2", *extra])
        assert result.exit_code == 2 and said in result.output, result.output
        assert result.output.strip().count("\n") == 0
    assert not (tmp_path / "x").exists()


def test_serve_gives_a_value_bot_the_weights_named_and_refuses_changed_ones(tmp_path, capsys):
    payload = json.loads((WEIGHTS / "standard.json").read_text())
    payload["layers"][0][1][0] += 0.5  # another model than the shipped one
    path = tmp_path / "value.json"
    save(payload, path)
    value = _weights("vgreedy", str(path))
    client = Client("vgreedy", value=value)
    rules = make_rules("standard", {"players": 2, "rounds": 1})
    client.handle(json.loads(json.dumps(hello_message(1, "ellibir", rules, 0, TimeControl(), 10**6))))
    assert client.bot.value is value and client.bot.value.sha256 != shipped("standard.json").sha256

    changed = json.loads(path.read_text())
    changed["layers"][0][1][0] += 0.5  # the hash no longer matches
    path.write_text(json.dumps(changed))
    for name, said in (("vgreedy", "hash does not match"), ("greedy", "takes no weights")):
        with pytest.raises(SystemExit) as e:
            serve_main([name, f"--weights={path}"])
        err = capsys.readouterr().err
        assert e.value.code == 2 and said in err and err.count("\n") == 1
