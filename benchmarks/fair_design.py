"""What the fair design costs in matches against today's rotation (docs/analysis.md, issue 25).

For each deal a challenger plays against copies of the reference bot (greedy) at every seat in turn,
as the rotation design plays a deal set; the reference also plays the deal alone at every seat (the
fair design's control table). From the same matches:

- rotation: a deal set is the challenger at every seat; its score is the mean of its seats' pairwise
  scores against the field (n program matches);
- fair: the challenger at one seat (the deal's number mod n), its score minus the control's in that
  seat, plus 1/2 (one program match, and one control match of built-in bots);
- independent: the challenger at that one seat, alone (one program match).

The figure is the variance of each design's deal-set score per program match, relative to rotation's:
how many times rotation's program matches a design needs for the same precision (an SPRT's length
scales with it). ``python -m benchmarks.fair_design [DEALS]`` prints the table; ``make bench`` runs a
small one.
"""

from __future__ import annotations

import sys

import numpy as np

from engine.game import make_rules
from harness.match.run import MatchSpec, run_spec
from harness.players.seeds import deal_seeds

REFERENCE = "builtin:greedy"


def _score(ranks, seat: int) -> float:
    others = [t for t in range(len(ranks)) if t != seat]
    return float(np.mean([1.0 if ranks[seat] < ranks[t] else 0.5 if ranks[seat] == ranks[t] else 0.0 for t in others]))


def deal_scores(challenger: str, players: int, deals: int, rounds: int = 3, seed: int = 25) -> dict:
    """Per deal: the challenger's score at every seat (``x``, deals x players) and the control's at
    every seat (``c``)."""
    rules = make_rules("ellibir", "standard", {"players": players, "rounds": rounds})
    x, c = np.zeros((deals, players)), np.zeros((deals, players))
    for d, deal_seed in enumerate(deal_seeds(seed, deals)):
        control, _, _ = run_spec(MatchSpec("ellibir", rules, deal_seed, (REFERENCE,) * players))
        c[d] = [_score(control.ranks, s) for s in range(players)]
        for s in range(players):
            seats = [REFERENCE] * players
            seats[s] = challenger
            played, _, _ = run_spec(MatchSpec("ellibir", rules, deal_seed, tuple(seats)))
            x[d, s] = _score(played.ranks, s)
    return {"x": x, "c": c}


def match_costs(x: np.ndarray, c: np.ndarray) -> dict:
    """Program matches each design needs, relative to rotation, for the same precision; and the
    correlation of the challenger's seat with the control's."""
    deals, players = x.shape
    seat = np.arange(deals) % players
    one, control = x[np.arange(deals), seat], c[np.arange(deals), seat]
    rotation = x.mean(axis=1).var(ddof=1) * players  # per program match
    fair = (one - control).var(ddof=1)
    return {"fair": fair / rotation, "independent": one.var(ddof=1) / rotation,
            "rho": float(np.corrcoef(one, control)[0, 1]), "deals": deals}


def study(challenger: str, players: int, deals: int) -> dict:
    scores = deal_scores(challenger, players, deals)
    return match_costs(scores["x"], scores["c"])


def main() -> None:
    deals = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    print("challenger        players  deals  rho   fair/rotation  independent/rotation  (program matches)")
    for challenger in ("builtin:pairs", "builtin:outs"):
        for players in (2, 4):
            r = study(challenger, players, deals)
            print(f"{challenger:<17} {players:>7} {deals:>6}  {r['rho']:.2f}  {r['fair']:>13.2f}  {r['independent']:>20.2f}")


if __name__ == "__main__":
    main()
