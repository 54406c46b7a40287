"""The Ellibir rules engine: pure Python, standard library only, no I/O."""

from .cards import JOKER, card_str, card_unicode, parse_card, parse_cards
from .decisions import Draw, Play, Turn, decision_from_json, parse_decision
from .errors import Refusal
from .game import MatchResult, Outcome, new_match
from .rules import ConfigError, Rules, make_rules

__all__ = [
    "JOKER", "card_str", "card_unicode", "parse_card", "parse_cards",
    "Draw", "Play", "Turn", "decision_from_json", "parse_decision",
    "Refusal", "MatchResult", "Outcome", "new_match",
    "ConfigError", "Rules", "make_rules",
]
