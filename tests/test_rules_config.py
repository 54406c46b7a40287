"""The rules configuration: validation, presets, the variant id (RULES.md "Presets")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine import ConfigError, make_rules
from engine.rules import PRESETS, Rules, rules_from_dict

TR_WIKI = {
    "deal": "fourteen",
    "joker_in_cut": True,
    "direction": "clockwise",
    "pairs_openings": [[4, 1], [5, 1], [6, 0], [7, 0]],
    "pairs_discard_block": True,
    "pairs_layoff": True,
    "set_joker_swap": "all",
    "joker_take_from": "others",
    "layable_discard_dead": True,
}

DEFAULTS = {
    "players": 4, "rounds": 11, "partners": False, "max_void_rounds": 20, "max_turns": 1000,
    "deal": "fifteen", "joker_in_cut": False, "direction": "anticlockwise", "exhausted": "void",
    "threshold": 51, "rising_threshold": False, "pairs_openings": [[4, 1], [5, 0]], "star_bonus": False,
    "set_joker_swap": "one", "joker_take_from": "any", "pairs_layoff": False,
    "layable_discard_scope": "opened", "layable_discard_dead": False, "pairs_discard_block": False,
}


def _config_error(preset="standard", **overrides) -> str:
    with pytest.raises(ConfigError) as e:
        make_rules(preset, overrides)
    text = str(e.value)
    assert text and "\n" not in text, f"a ConfigError is one line: {text!r}"
    return text


def test_standard_preset_is_every_default():
    assert make_rules("standard").normalised() == DEFAULTS
    assert make_rules().normalised() == DEFAULTS
    assert Rules().normalised() == DEFAULTS


def test_tr_wiki_preset():
    r = make_rules("tr-wiki")
    assert r.normalised() == {**DEFAULTS, **TR_WIKI}
    assert r.pairs_openings == ((4, 1), (5, 1), (6, 0), (7, 0))


def test_preset_plus_overrides_is_a_valid_variant():
    r = make_rules("tr-wiki", {"players": 2, "threshold": 101, "deal": "fifteen"})
    assert (r.players, r.threshold, r.deal, r.set_joker_swap) == (2, 101, "fifteen", "all")


def test_unknown_field_is_a_one_line_ConfigError():
    assert "colour" in _config_error(colour="red")


def test_unknown_preset_is_a_one_line_ConfigError():
    assert "nope" in _config_error("nope")


def test_X2_partners_without_4_players_is_refused():
    assert "partners" in _config_error(partners=True, players=3)
    assert "partners" in _config_error(partners=True, players=2)
    assert make_rules("standard", {"partners": True}).partners


@pytest.mark.parametrize("threshold", [0, -51])
def test_O1_threshold_below_1_is_refused(threshold):
    assert "threshold" in _config_error(threshold=threshold)
    assert make_rules("standard", {"threshold": 1}).threshold == 1


@pytest.mark.parametrize("value", [
    "[[5,0],[4,1]",  # not JSON
    "5",
    [[5]],
    [[5, 0, 1]],
    [[0, 2]],  # a pairs opening needs at least one pair
    [[5, -1]],
    [[5, 0], [5, 0]],  # repeated
    [["5", 0]],
    [[True, 0]],
    [5, 0],
    {"pairs": 5},
])
def test_O2_malformed_pairs_openings_is_refused(value):
    assert "pairs_openings" in _config_error(pairs_openings=value)


def test_O2_pairs_openings_accepts_json_text_and_lists():
    assert make_rules("standard", {"pairs_openings": "[[6,0],[7,0]]"}).pairs_openings == ((6, 0), (7, 0))
    assert make_rules("standard", {"pairs_openings": [[5, 1]]}).pairs_openings == ((5, 1),)


@pytest.mark.parametrize("field,value", [
    ("players", 1), ("players", 5), ("rounds", 0), ("max_void_rounds", 0), ("max_turns", 0),
    ("deal", "sixteen"), ("direction", "up"), ("exhausted", "maybe"), ("set_joker_swap", "two"),
    ("joker_take_from", "mine"), ("layable_discard_scope", "none"), ("players", "four"),
    ("star_bonus", "perhaps"), ("partners", 1), ("threshold", 51.5),
])
def test_X1_bad_field_values_are_one_line_ConfigErrors(field, value):
    assert field in _config_error(**{field: value})


@pytest.mark.parametrize("players", [2, 3, 4])
def test_X1_players_2_to_4(players):
    assert make_rules("standard", {"players": players}).players == players


def test_string_values_are_coerced_as_given_on_a_command_line():
    r = make_rules("standard", {"players": "3", "star_bonus": "true", "rising_threshold": "no"})
    assert (r.players, r.star_bonus, r.rising_threshold) == (3, True, False)


def test_variant_id_is_stable_and_differs_between_variants():
    a = make_rules("standard")
    assert a.variant_id == make_rules("standard", {}).variant_id == Rules().variant_id
    assert len(a.variant_id) == 16 and int(a.variant_id, 16) >= 0
    b = make_rules("tr-wiki")
    assert b.variant_id == make_rules("standard", TR_WIKI).variant_id
    ids = {a.variant_id, b.variant_id}
    for field, value in (("threshold", 71), ("players", 3), ("star_bonus", True), ("exhausted", "score"),
                         ("pairs_openings", [[5, 0], [4, 1], [6, 0]]), ("max_turns", 999)):
        ids.add(make_rules("standard", {field: value}).variant_id)
    assert len(ids) == 8
    # the id is a function of the full normalised configuration, and it survives a round trip
    assert rules_from_dict(json.loads(json.dumps(b.normalised()))).variant_id == b.variant_id
    # overriding a field with its default value is the same variant
    assert make_rules("standard", {"threshold": 51}).variant_id == a.variant_id


def test_variant_id_is_the_same_in_another_process():
    """Stable: no dependence on the process (hash randomisation, dict order)."""
    root = Path(__file__).resolve().parent.parent
    code = "from engine import make_rules; print(make_rules('tr-wiki').variant_id, make_rules().variant_id)"
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == [make_rules("tr-wiki").variant_id, make_rules().variant_id]


def test_presets_are_exactly_standard_and_tr_wiki():
    assert set(PRESETS) == {"standard", "tr-wiki"}


def test_O2_order_of_pairs_openings_does_not_change_the_variant():
    """The combinations are a set: the normalised form sorts them, so the variant id ignores their order."""
    a = make_rules("standard", {"pairs_openings": [[5, 0], [4, 1]]})
    b = make_rules("standard", {"pairs_openings": [[4, 1], [5, 0]]})
    assert a.normalised() == b.normalised() and a.variant_id == b.variant_id
