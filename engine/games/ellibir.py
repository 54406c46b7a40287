"""Ellibir (51), the rules of docs/rules.md, and its built-in bots (docs/bots.md)."""

from __future__ import annotations

from ..deal import deals_from_json
from ..decisions import decision_from_json, parse_decision
from ..ellibir_match import ROUND_COLUMNS, EllibirMatch, round_values
from ..game import GameSpec, register
from ..match_text import EllibirText
from ..observe import legal_from_json, legal_json, public_event_json, view_from_json
from ..rules import PRESETS, Rules, make_rules, rules_from_dict
from ..scoring import PENALTY

GAME = register(GameSpec(
    name="ellibir", match=EllibirMatch, rules=Rules, players=(2, 4), presets=PRESETS, make_rules=make_rules,
    rules_from_dict=rules_from_dict, deals_from_json=deals_from_json, event_json=public_event_json,
    parse_decision=parse_decision, decision_from_json=decision_from_json, view_from_json=view_from_json,
    legal_json=legal_json, legal_from_json=legal_from_json, round_columns=ROUND_COLUMNS, round_values=round_values,
    penalty_points={"O4": PENALTY, "A5": PENALTY}, text=EllibirText,
    bots={"random": "bots.random_bot:RandomBot", "greedy": "bots.greedy:Greedy", "pairs": "bots.pairs:PairsBot",
          "outs": "bots.outs:Outs", "mc": "bots.mc:MonteCarlo", "vgreedy": "bots.vgreedy:VGreedy", "vbot": "bots.vbot:VBot",
          "restricted": "bots.restricted:Restricted", "clairvoyant": "bots.clairvoyant:Clairvoyant"},
    reference="greedy", field=("pairs", "random"),
))
