"""Round and match scoring (S1-S7, X1, X2). Low is good."""

from __future__ import annotations

PENALTY = 50
OUT_SCORE = -100
NOT_OPENED = 100
STAR = -100


def multiplier(g2: bool, g3: bool, g4: bool, others_opened: bool) -> int:
    """S2: doubled for G4, for G3, and for G2 when no other player had opened."""
    return 2 ** (int(g4) + int(g3) + int(g2 and not others_opened))


def round_scores(
    winner: int,
    opened: list,
    declared: list,
    left_values: list,
    penalties: list,
    stars: list,
    mult: int,
) -> list[int]:
    """Scores of a scored round; ``winner`` is -1 for an exhausted round scored as all losers (T5)."""
    scores = []
    for seat, was_opened in enumerate(opened):
        if seat == winner:
            base = OUT_SCORE
        else:
            base = mult * (left_values[seat] if was_opened else NOT_OPENED)
            if declared[seat]:
                base *= 2
        scores.append(base + PENALTY * penalties[seat] + (STAR if stars[seat] else 0))
    return scores


def competition_ranks(totals: list) -> list[int]:
    """X1: the lowest total ranks first; equal totals share a rank (1, 1, 3)."""
    return [1 + sum(1 for other in totals if other < t) for t in totals]


def match_ranks(totals: list, partners: bool) -> list[int]:
    """X1/X2: with partners, seats 0+2 and 1+3 are ranked by their summed totals."""
    if not partners:
        return competition_ranks(totals)
    teams = [totals[0] + totals[2], totals[1] + totals[3]]
    team_rank = competition_ranks(teams)
    # Each seat gets its team's rank, counted over seats: a team ranked second takes ranks 3 and 4.
    return [1 if team_rank[s % 2] == 1 else 3 for s in range(4)]
