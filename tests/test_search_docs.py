"""The flat Monte Carlo example of docs/engine.md runs as written, in both games, and its
decisions are legal and reproducible from its seed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine.game import make_rules, new_match

DOC = Path(__file__).resolve().parent.parent / "docs" / "engine.md"


def example():
    text = DOC.read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    code = next(b for b in blocks if "def flat_monte_carlo" in b)
    assert len([line for line in code.splitlines() if line.strip()]) <= 11  # ten lines and the import of random
    space: dict = {}
    exec(compile(code, str(DOC), "exec"), space)  # noqa: S102  (our own documentation)
    return space["flat_monte_carlo"]


@pytest.mark.parametrize("game,decisions", [("ellibir", 12), ("einundfuenfzig", 10)])
def test_the_documented_flat_monte_carlo_bot_plays_legal_reproducible_decisions(game, decisions):
    flat_monte_carlo = example()
    rules = make_rules(game, "standard", {"players": 3})
    match = new_match(game, rules, 21)
    for _ in range(decisions):
        seat = match.to_move()
        if seat is None:
            break
        view, legal = match.observe(seat), match.legal(seat)
        decision = flat_monte_carlo(view, legal, worlds=4, seed=seat)
        assert str(flat_monte_carlo(view, legal, worlds=4, seed=seat)) == str(decision)
        assert match.apply(seat, decision).accepted
