"""Einundfünfzig, the children's card game of rules E1-E4 (docs/rules.md), and its built-in bots."""

from __future__ import annotations

from ..einundfuenfzig import (
    ROUND_COLUMNS, EinundfuenfzigMatch, deals_from_json, event_json, legal_from_json, legal_json, parse_play,
    play_from_json, round_values, view_from_json,
)
from ..einundfuenfzig_rules import GAME as NAME, PRESETS, Rules, make_rules, rules_from_dict
from ..einundfuenfzig_text import EinundfuenfzigText
from ..game import GameSpec, register

GAME = register(GameSpec(
    name=NAME, match=EinundfuenfzigMatch, rules=Rules, players=(2, 4), presets=PRESETS, make_rules=make_rules,
    rules_from_dict=rules_from_dict, deals_from_json=deals_from_json, event_json=event_json, parse_decision=parse_play,
    decision_from_json=play_from_json, view_from_json=view_from_json, legal_json=legal_json,
    legal_from_json=legal_from_json, round_columns=ROUND_COLUMNS, round_values=round_values, text=EinundfuenfzigText,
    bots={"random": "bots.einundfuenfzig:RandomBot", "cautious": "bots.einundfuenfzig:Cautious",
          "mc": "bots.einundfuenfzig:MonteCarlo"},
    reference="cautious", field=("random",),
))
