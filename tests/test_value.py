"""The learned value of a position, V (bots/value/): its features (O1, G1 and card tracking), the
weights file it refuses, deterministic fits, and a whole training in seconds on the real engine
(self-play rows, a fit, a sealed file, loaded and played)."""

from __future__ import annotations

import json
import random
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_mc import play

from bots import make_bot
from bots.value import model
from bots.value.features import FEATURES, HAND, features, hand_row, partials
from bots.value.fit import PAIRS, fit_linear, fit_mlp, predict
from bots.value.model import Value, WeightsError, check, load, save, seal
from bots.value.selfplay import COLUMNS, SelfPlay, play_games
from bots.value.train import auc, fit_columns
from bots.vgreedy import VGreedy
from engine import make_rules, new_match, parse_cards
from engine.cards import counts_of


def hand(text: str) -> list:
    return counts_of(parse_cards(text.split()))


def named(row: list) -> dict:
    return dict(zip(HAND, row))


# Features -----------------------------------------------------------------------------------------


def test_an_unopened_hand_that_can_open_says_so_O1():
    ready = named(hand_row(hand("AS AH AD KS KH KD QS QH QD 2C 5D 9H 3S 7C 4H"), [], False, False, 51, Counter()))
    short = named(hand_row(hand("AS AH AD 2C 5D 9H 3S 7C 4H 8D 6C 10H JS QC KD"), [], False, False, 51, Counter()))
    assert ready["u_meld_value"] == pytest.approx(93 / 51) and ready["u_can_open"] == 1.0 and ready["u_gap"] == 0
    assert short["u_can_open"] == 0.0 and short["u_gap"] == pytest.approx((51 - 33) / 51)
    assert ready["u_left"] == pytest.approx(6 / 15)
    assert ready["o_can_go_out"] == 0.0  # the opened block is zero before opening


def test_a_threshold_above_the_meld_value_leaves_a_gap_O1():
    row = named(hand_row(hand("AS AH AD KS KH KD 2C 5D 9H 3S 7C 4H 8D 6C 10H"), [], False, False, 101, Counter()))
    assert row["u_can_open"] == 0.0 and row["u_gap"] == pytest.approx((101 - 63) / 101)


def test_an_opened_hand_that_can_go_out_says_so_G1():
    row = named(hand_row(hand("5S 6S 7S 9D"), [], True, False, 51, Counter()))
    assert row["o_can_go_out"] == 1.0 and row["u_can_open"] == 0.0 and row["opened"] == 1.0
    assert row["o_left_points"] == pytest.approx(9 / 100)


def test_partials_count_the_unseen_copies_that_complete_them():
    left = sorted(parse_cards("5S 6S 9H 9D".split()))
    unseen = Counter({c: 2 for c in parse_cards(["4S", "7S", "9C", "9S"])})
    unseen[parse_cards(["JK"])[0]] = 1
    sets, runs, outs = partials(left, unseen)
    assert (sets, runs) == (1, 1)
    assert outs == 2 * 4 + 1  # 4S 7S 9C 9S, two copies each, and the joker


def test_the_features_of_a_view_are_one_row_of_the_declared_names():
    rules = make_rules("standard", {"players": 3, "rounds": 1})
    match = new_match("ellibir", rules, 4)
    seat = match.to_move()
    row = features(match.observe(seat))
    assert len(row) == len(FEATURES) and all(isinstance(v, float | int) for v in row)


# The weights file ---------------------------------------------------------------------------------


def tiny_payload(seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(200, len(FEATURES)))
    y = X[:, 0] * 0.5 - X[:, 7] * 0.2 + rng.normal(scale=0.1, size=200)
    return fit_mlp(X, y, hidden=4, epochs=2, seed=seed)


def test_a_changed_weights_file_is_refused_in_one_line(tmp_path):
    path = tmp_path / "w.json"
    save(tiny_payload(), path)
    assert isinstance(load(path), Value)
    data = json.loads(path.read_text())
    data["layers"][0][1][0] += 0.5
    path.write_text(json.dumps(data))
    with pytest.raises(WeightsError, match="hash does not match") as e:
        load(path)
    assert "\n" not in str(e.value)


def test_weights_fitted_on_other_features_are_refused(tmp_path):
    payload = tiny_payload()
    payload["features"] = payload["features"][::-1]
    with pytest.raises(WeightsError, match="other features"):
        check(seal(payload))
    payload = tiny_payload()
    payload["feature_version"] = -1
    with pytest.raises(WeightsError, match="other features"):
        check(seal(payload))


def test_a_shipped_file_must_carry_the_hash_pinned_in_the_code(monkeypatch):
    sealed = seal(tiny_payload())
    monkeypatch.setitem(model.SHIPPED, "pinned.json", "0" * 64)
    with pytest.raises(WeightsError, match="not the one this code ships"):
        check(sealed, "pinned.json")
    monkeypatch.setitem(model.SHIPPED, "pinned.json", sealed["sha256"])
    assert check(sealed, "pinned.json").sha256 == sealed["sha256"]


def test_every_shipped_weights_file_loads_and_is_pinned():
    names = sorted(p.name for p in model.WEIGHTS.glob("*.json"))
    assert names and set(names) == set(model.SHIPPED)
    for name in names:
        assert model.shipped(name).sha256 == model.SHIPPED[name]


def quadratic_payload(seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(300, len(FEATURES)))
    return fit_linear(X, X[:, 0] * X[:, 30] + rng.normal(scale=0.1, size=300), ridge=0.1, pairs=PAIRS)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**6), quadratic=st.booleans())
def test_numpy_and_plain_python_inference_agree(seed, quadratic):
    value = Value(seal(quadratic_payload(seed % 5) if quadratic else tiny_payload(seed % 7)))
    rows = np.random.default_rng(seed).normal(size=(5, len(FEATURES))).tolist()
    assert value(rows) == pytest.approx([value._plain(r) for r in rows], abs=1e-9)
    assert value(rows) == pytest.approx(predict(value.payload, np.asarray(rows)).tolist(), abs=1e-9)


# Fitting ------------------------------------------------------------------------------------------


def test_fits_are_deterministic_for_a_seed_and_differ_across_seeds():
    assert tiny_payload(3) == tiny_payload(3)
    assert tiny_payload(3)["layers"] != tiny_payload(4)["layers"]
    rng = np.random.default_rng(1)
    X = rng.normal(size=(100, len(FEATURES)))
    y = X @ rng.normal(size=len(FEATURES))
    assert fit_linear(X, y, ridge=0.01) == fit_linear(X, y, ridge=0.01)


def test_the_linear_fit_recovers_a_linear_target():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(500, len(FEATURES))) * 3 + 1
    w = rng.normal(size=len(FEATURES))
    y = X @ w + 0.7
    payload = fit_linear(X, y, ridge=1e-6)
    assert np.abs(predict(payload, X) - y).max() < 1e-4


def test_the_quadratic_fit_recovers_a_product_of_two_features():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(400, len(FEATURES)))
    index = {name: i for i, name in enumerate(FEATURES)}
    y = 2 * X[:, index["u_left"]] * X[:, index["stock"]] - X[:, index["jokers"]]
    assert np.abs(predict(fit_linear(X, y, ridge=1e-6, pairs=PAIRS), X) - y).max() < 1e-4
    assert np.abs(predict(fit_linear(X, y, ridge=1e-6), X) - y).max() > 0.5


def test_auc_counts_ordered_pairs():
    assert auc(np.array([0.1, 0.2, 0.9, 0.8]), np.array([0, 0, 1, 1])) == 1.0
    assert auc(np.array([0.5, 0.5]), np.array([0, 1])) == 0.5


# Training end to end --------------------------------------------------------------------------------


def test_a_tiny_training_from_self_play_to_play(tmp_path):
    """Self-play rows on the real engine, a fit, a sealed file, loaded and played without refusal."""
    spec = SelfPlay(overrides={"players": 3, "rounds": 1}, noise=0.2, seed=5)
    columns = play_games(spec, 0, 12)
    assert set(columns) == set(COLUMNS) and len(columns["game"]) > 50
    assert set(columns["game"]) == set(range(12))
    margins = {}
    for g, r, s, m in zip(columns["game"], columns["round"], columns["seat"], columns["margin"]):
        margins.setdefault((g, r), {})[s] = m
    assert all(abs(sum(by_seat.values())) < 1e-6 for by_seat in margins.values() if len(by_seat) == 3)
    assert play_games(spec, 4, 2)["margin"] == [m for g, m in zip(columns["game"], columns["margin"]) if g in (4, 5)]
    arrays = {k: np.asarray(v) for k, v in columns.items()}
    payload = fit_columns(arrays, "mlp", seed=1, hidden=4, epochs=2)
    assert payload == fit_columns(arrays, "mlp", seed=1, hidden=4, epochs=2)
    assert payload["card"]["rows"] == len(columns["game"]) and "holdout_r2" in payload["card"]
    path = tmp_path / "tiny.json"
    save(payload, path)
    rules = make_rules("standard", {"players": 3, "rounds": 1})
    bots = [VGreedy(0, value=load(path)), make_bot("greedy", 1), make_bot("greedy", 2)]
    _match, refused = play(rules, 3, bots)
    assert refused == [0, 0, 0]


def test_self_play_rows_are_a_function_of_the_spec_and_the_game():
    spec = SelfPlay(overrides={"players": 2, "rounds": 1}, seed=9)
    a, b = play_games(spec, 0, 3), play_games(spec, 0, 3)
    assert a == b
    random.seed(12345)  # the global generator plays no part
    assert play_games(spec, 0, 3) == a
    assert play_games(SelfPlay(overrides={"players": 2, "rounds": 1}, seed=10), 0, 3) != a


def test_a_bot_plays_each_variant_with_the_model_trained_on_it(tmp_path, monkeypatch):
    """A model records the rules it was trained on; the bot picks the shipped one for the rules it
    plays (the length of a match aside), and the standard one otherwise."""
    standard, high = tiny_payload(1), tiny_payload(2)
    standard["rules"] = model.rules_key(make_rules("standard", {"rounds": 3}))
    high["rules"] = model.rules_key(make_rules("standard", {"threshold": 101}))
    pins = {"standard.json": save(standard, tmp_path / "standard.json"), "high.json": save(high, tmp_path / "high.json")}
    monkeypatch.setattr(model, "WEIGHTS", tmp_path)
    monkeypatch.setattr(model, "SHIPPED", pins)
    monkeypatch.setattr(model, "_LOADED", {})
    assert model.for_rules(make_rules("standard", {"threshold": 101, "rounds": 5})).sha256 == pins["high.json"]
    assert model.for_rules(make_rules("standard", {"threshold": 71})).sha256 == pins["standard.json"]
    bot = VGreedy(0)
    bot.start(0, make_rules("standard", {"threshold": 101}))
    assert bot.value.sha256 == pins["high.json"]


def test_an_earlier_generation_is_named_by_its_number(tmp_path, monkeypatch):
    current, first = tiny_payload(1), tiny_payload(2)
    pins = {"standard.json": save(current, tmp_path / "standard.json"),
            "standard.g1.json": save(first, tmp_path / "standard.g1.json")}
    monkeypatch.setattr(model, "WEIGHTS", tmp_path)
    monkeypatch.setattr(model, "SHIPPED", pins)
    monkeypatch.setattr(model, "_LOADED", {})
    rules = make_rules("standard", {"players": 4})
    assert make_bot("vgreedy").value.sha256 == pins["standard.json"]
    assert make_bot("vgreedy:gen=1").value.sha256 == pins["standard.g1.json"]
    assert make_bot("vbot:gen=1").value.sha256 == pins["standard.g1.json"]
    assert model.for_rules(rules).sha256 == pins["standard.json"]
    with pytest.raises(WeightsError, match="no generation 2"):
        make_bot("vgreedy:gen=2")
