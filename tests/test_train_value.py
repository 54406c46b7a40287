"""``ellibir train value`` end to end on the real engine, in seconds: self-play through the local
executor into Parquet parts (resumed part by part), a fit deterministic for the seed, the sealed
weights and their card, loaded and played; a changed file or other features refused in one line."""

from __future__ import annotations

import json

import pytest
from test_mc import play
from typer.testing import CliRunner

from bots import make_bot
from bots.value.model import WeightsError, load, seal
from bots.value.selfplay import SelfPlay
from bots.vgreedy import VGreedy
from engine import make_rules
from harness.cli.main import app
from harness.runs.executors import LocalExecutor
from harness.runs.selfplay import SelfPlayError, play_data, play_part, read_data

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
    assert train(tmp_path / "a", "--fit", "none").exit_code == 0
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
