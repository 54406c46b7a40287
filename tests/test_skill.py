"""The skill study's statistics on small datasets whose answers are worked out by hand, and the
deal-set bootstrap's coverage on a simulated case."""

import math

import numpy as np
import polars as pl
import pytest

from results import skill, skill_play
from results.stats import holm

DESIGN = skill.Design(ladder=("r", "g"), beginners=("r",), fictive="x", restricted=(("g", ("q",)),))


def _rows(variant, deal_set, match, bots, scores, round_index=0, turns=20, void=False, won=None):
    won = won or [s == min(scores) and not void for s in scores]
    return [{"run": "run", "match_id": f"{variant}-{deal_set}-{match}", "variant": variant, "deal_set": deal_set,
             "round_index": round_index, "seat": seat, "bot": bot, "score": score, "position": (seat + 1),
             "turns": turns, "void": void, "won": w}
            for seat, (bot, score, w) in enumerate(zip(bots, scores, won))]


# By hand, two players, one round a match; scores are penalties (lower is better), points are minus them.
#   deal set 0: control r r (10, 20): -15 a round; g in each seat (5, 7): -6, gain 9; x (0, 0): gain 15;
#               q, restricted g, against copies of g (control g g: 4, 6 = -5; q: 9, 11 = -10): loss 5
#   deal set 1: control (30, 10): -20; g (10, 14): -12, gain 8; x (2, 4): gain 17; g g (6, 8) -7, q (9, 9): loss 2
HAND = {0: [(("r", "r"), (10, 20)), (("g", "r"), (5, 30)), (("r", "g"), (30, 7)), (("x", "r"), (0, 9)),
            (("r", "x"), (9, 0)), (("g", "g"), (4, 6)), (("q", "g"), (9, 1)), (("g", "q"), (1, 11))],
        1: [(("r", "r"), (30, 10)), (("g", "r"), (10, 30)), (("r", "g"), (30, 14)), (("x", "r"), (2, 9)),
            (("r", "x"), (9, 4)), (("g", "g"), (6, 8)), (("q", "g"), (9, 1)), (("g", "q"), (1, 9))]}


def hand_rounds(variant="v", shift=0.0):
    rows = []
    for d, tables in HAND.items():
        for i, (bots, scores) in enumerate(tables):
            rows += _rows(variant, d, i, bots, scores)
    frame = pl.DataFrame(rows)
    if shift:  # the same deals, with g gaining ``shift`` more a round against r
        hit = (pl.col("bot") == "g") & pl.col("match_id").str.contains(r"-[12]$")
        frame = frame.with_columns(pl.when(hit).then(pl.col("score") - shift).otherwise(pl.col("score")).cast(pl.Int64))
    return frame


def test_points_and_gaps_by_hand():
    pts = skill.points(hand_rounds().lazy(), DESIGN.pairs())
    units, m = skill.gain_matrix(pts, "v", [("r", "g"), ("r", "x"), ("g", "q")])
    assert units.height == 2
    assert m.tolist() == [[9.0, 15.0, -5.0], [8.0, 17.0, -2.0]]
    got = skill.variant_skill(pts, "v", DESIGN, replicates=200)
    (gap,) = got["gaps"]
    assert (gap["weak"], gap["strong"], gap["estimate"]) == ("r", "g", 8.5)
    assert 8.0 <= gap["lo"] <= gap["hi"] <= 9.0
    (level,) = got["levels"]
    assert level["learning"]["estimate"] == 8.5 and level["chance"]["estimate"] == 7.5
    assert level["estimate"] == pytest.approx(8.5 / 16)
    assert 8 / 17 <= level["lo"] <= level["hi"] <= 9 / 15
    (loss,) = got["restricted"]
    assert (loss["bot"], loss["estimate"]) == ("q", 3.5)


def test_bootstrap_is_seeded():
    m = np.random.default_rng(3).normal(size=(20, 2)) + [1, 2]
    a = skill.bootstrap(m, lambda x: x[..., 0] / x[..., 1], replicates=300, seed=5)
    assert a == skill.bootstrap(m, lambda x: x[..., 0] / x[..., 1], replicates=300, seed=5)
    assert a["lo"] < a["estimate"] < a["hi"]
    assert skill.bootstrap(m[:1], lambda x: x[..., 0])["lo"] != skill.bootstrap(m[:1], lambda x: x[..., 0])["lo"]  # nan


def test_deal_sets_that_do_not_differ_give_no_interval():
    """Three deal sets with the same gain gave "+100.0 [+100.0, +100.0]": an interval of no width, read
    as certainty, where the deal sets showed no spread to measure one by."""
    same = np.tile([100.0, 40.0], (3, 1))
    for statistic in (lambda x: x[..., 0], lambda x: x[..., 0] / x[..., 1]):
        got = skill.bootstrap(same, statistic, replicates=200)
        assert got["deal_sets"] == 3 and got["estimate"] in (100.0, 2.5)
        assert math.isnan(got["lo"]) and math.isnan(got["hi"])
    varied = same + [[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]]
    assert math.isnan(skill.bootstrap(varied, lambda x: x[..., 1], replicates=200)["lo"])  # a constant column: none
    assert skill.bootstrap(varied, lambda x: x[..., 0], replicates=200)["lo"] < 101 < skill.bootstrap(
        varied, lambda x: x[..., 0], replicates=200)["hi"]


def test_missing_table_is_one_line_error():
    pts = skill.points(hand_rounds().lazy(), DESIGN.pairs())
    with pytest.raises(skill.SkillError, match="no deal set of v played both"):
        skill.gain_matrix(pts, "v", [("g", "x")])


def test_bootstrap_coverage_on_a_simulated_case():
    """A gap of 2 points a round with deal-set noise of sd 6, 15 deal sets: the expanded percentile
    interval covers the truth in 93–97% of 600 simulated studies (its nominal 95%, within the
    simulation's error of about 0.9 points). The plain percentile interval covers about 92% here."""
    rng = np.random.default_rng(11)
    hits = 0
    for i in range(600):
        m = rng.normal(2.0, 6.0, size=(15, 1))
        b = skill.bootstrap(m, lambda x: x[..., 0], replicates=1000, seed=i)
        hits += b["lo"] <= 2.0 <= b["hi"]
    assert 0.93 <= hits / 600 <= 0.97
    assert skill.expanded_tail(15) < 0.025 < skill.expanded_tail(10_000) + 1e-3  # wider with few deal sets only


def test_the_sign_flip_test_holds_its_level_on_any_data():
    """Two alike variants: each sign pattern of the differences is as likely as the observed one. Over
    all 2**8 patterns of skewed, tied differences, p <= 0.05 in at most 5% of them (exact, no simulation);
    the interval leaves 0 out exactly when p <= 0.05; too few pairs give no interval."""
    from results import signflip

    d = np.array([40.0, -3.0, 0.5, 2.0, 2.0, 7.0, -1.0, 90.0])
    patterns = signflip.signs(len(d))
    assert len(patterns) == 256 and (patterns[0] == 1).all()
    p = np.array([signflip.p_value(s * d, patterns) for s in patterns])
    assert (p <= 0.05).mean() <= 0.05 and (p <= 0.05).any()
    rng = np.random.default_rng(3)
    for shift in (0.0, 1.0, 2.5, -4.0):
        e = rng.normal(shift, 4.0, size=30)
        p, lo, hi = signflip.test(e, flips=999)
        assert lo < e.mean() < hi and (p <= 0.05) == (lo > 0 or hi < 0), (shift, p, lo, hi)
    p, lo, hi = signflip.test(np.array([1.0, 2.0, 3.0, 4.0, 5.0]))
    assert p == 2 / 32 and math.isnan(lo) and math.isnan(hi)  # the best 5 pairs can do: 2 patterns of 32


def test_skill_by_variant_paired_and_in_family():
    a, b = hand_rounds("a"), hand_rounds("b", shift=4)
    pts = skill.points(pl.concat([a, b]).lazy(), DESIGN.pairs())
    (row,) = skill.skill_by_variant(pts, [("a", "b")], DESIGN)
    assert row["metric"] == "skill_gap:g>r" and row["family"] == "primary"
    assert row["diff"] == pytest.approx(4.0)  # g's score falls by 4 in both its tables of both deal sets
    assert row["lo"] == row["hi"] == pytest.approx(4.0) and math.isnan(row["p"])  # no spread: no test
    # with spread, the rows join the family's Holm adjustment like any primary row
    assert holm([0.01, 0.04]).tolist() == pytest.approx([0.02, 0.04])


def _row(diff, lo, hi, significant, rung="builtin:greedy>builtin:random", a="a", b="b"):
    return {"a": a, "b": b, "metric": f"skill_gap:{rung}", "diff": diff, "lo": lo, "hi": hi,
            "significant": significant}


LABELS = {"a": "threshold=51", "b": "threshold=101", "c": "threshold=71"}


def test_the_summary_says_which_variant_rewards_skill_more_either_way():
    wider_at_b = skill.summary_sentence([_row(3.0, 1.0, 5.0, True)], LABELS)
    assert wider_at_b == ("threshold=101 rewards skill more than threshold=51: the gap of greedy over random is 3.0 "
                          "points a round larger at threshold=101 than at threshold=51 [1.0, 5.0].")
    # b - a = -12.5 [-18.2, -6.8]: a's gap is the larger, by 12.5 [6.8, 18.2]
    wider_at_a = skill.summary_sentence([_row(-12.5, -18.2, -6.8, True)], LABELS)
    assert wider_at_a == ("threshold=51 rewards skill more than threshold=101: the gap of greedy over random is 12.5 "
                          "points a round larger at threshold=51 than at threshold=101 [6.8, 18.2].")


def test_the_summary_says_when_the_data_cannot_tell():
    rows = [_row(-11.1, -29.2, 7.0, False), _row(2.0, -1.0, 5.0, False, "builtin:outs>builtin:greedy")]
    said = skill.summary_sentence(rows, LABELS)
    assert said.startswith("The data can't tell which variant rewards skill more")
    assert "the gap of greedy over random, -11.1 points a round [-29.2, +7.0] at threshold=101 against threshold=51" in said
    assert "rewards skill more than" not in said
    assert skill.summary_sentence([], {"a": "threshold=51"}).startswith("Only one variant")
    assert skill.summary_sentence([], LABELS).startswith("No skill gap could be compared between variants")


def test_the_summary_never_says_both_ways_at_once():
    """One rung wider at a, another wider at b: no variant is said to reward skill more; a pair that
    shows nothing is named as such, not left out."""
    rows = [_row(-4.0, -6.0, -2.0, True), _row(3.0, 1.0, 5.0, True, "builtin:outs>builtin:greedy"),
            _row(1.0, -2.0, 4.0, False, a="a", b="c")]
    said = skill.summary_sentence(rows, LABELS)
    assert said.startswith("Neither threshold=51 nor threshold=101 rewards skill more at every level: ")
    assert "the gap of greedy over random is 4.0 points a round larger at threshold=51 than at threshold=101 [2.0, 6.0]" in said
    assert "the gap of outs over greedy is 3.0 points a round larger at threshold=101 than at threshold=51 [1.0, 5.0]" in said
    assert said.endswith("no skill gap differs between threshold=51 and threshold=71 once the comparisons are allowed for.")


def test_a_sign_change_between_skill_levels_is_warned():
    up, down, noise = ({"estimate": e, "lo": lo, "hi": hi} for e, lo, hi in ((3, 1, 5), (-2, -4, -1), (-1, -3, 1)))
    (warn,) = skill.sign_warnings("The first player's edge", [("builtin:random", up), ("builtin:greedy", down)])
    assert warn.startswith("The first player's edge changes sign with skill: it goes up with random and down with greedy")
    assert "random and greedy are each clear of 0" in warn and "is reversed at the other" in warn
    (maybe,) = skill.sign_warnings("x", [("a", up), ("b", noise), ("c", noise)])
    assert "only a is clear of 0" in maybe and "may not hold at b and c" in maybe
    assert skill.sign_warnings("x", [("a", up), ("b", up)]) == []
    assert skill.sign_warnings("x", [("a", {**up, "lo": -1}), ("b", noise)]) == []  # neither clear of 0


def test_first_player_decisiveness_closeness_by_hand():
    # all-g tables, 2 players, 2 rounds a match. Match 0: seat 0 wins round 0 (leads), seat 1 wins the
    # match; match 1: seat 0 leads throughout and wins; position = seat + 1 in both rounds.
    rows = (_rows("v", 0, 0, ("g", "g"), (0, 10)) + _rows("v", 0, 0, ("g", "g"), (30, 0), round_index=1)
            + _rows("v", 1, 1, ("g", "g"), (0, 10)) + _rows("v", 1, 1, ("g", "g"), (0, 10), round_index=1))
    rounds = pl.DataFrame(rows)
    matches = pl.DataFrame([{"run": "run", "match_id": m, "seat": s, "rank": r, "total": t}
                            for m, s, r, t in (("v-0-0", 0, 2, 30), ("v-0-0", 1, 1, 10),
                                               ("v-1-1", 0, 1, 0), ("v-1-1", 1, 2, 20))])
    ctrl = skill_play.controls(rounds.lazy()).collect()
    fp = skill_play.first_player(ctrl, 2)
    assert fp["rate"] == 0.75 and fp["edge"] == pytest.approx(25.0)
    curve = skill_play.decisiveness(rounds.lazy(), matches.lazy())
    assert [(c["round"], c["matches"], c["rate"]) for c in curve] == [(0, 2, 0.5), (1, 2, 1.0)]
    close = skill_play.closeness(rounds.lazy(), matches.lazy())
    assert close["lead_changes"]["mean"] == 0.5 and close["margin"]["mean"] == 20.0


def test_survival_censors_void_rounds():
    turns, ended = np.array([10.0, 20.0, 30.0, 40.0]), np.array([True, True, False, True])
    s = skill_play.survival(turns, ended, at=(15, 25, 35, 45))
    assert [p for _, p in s["curve"]] == pytest.approx([0.75, 0.5, 0.5, 0.0])  # the void at 30 leaves the risk set
    assert s["median"] == 20.0 and s["censored"] == 1
    assert skill_play.logrank((turns, ended), (turns, ended)) == pytest.approx(1.0)
    assert 0 < skill_play.logrank((turns, ended), (turns * 3, ended)) < 1


def test_a_variant_against_itself_on_relabelled_deal_sets_is_rarely_called_different():
    """A/A: one variant's deal sets split at random into two halves called two variants; 200 repeats,
    Holm over two rungs: called different in about 5% of them (the level itself is proved exactly by
    ``test_the_sign_flip_test_holds_its_level_on_any_data``; this runs the benchmark's check)."""
    from benchmarks.skill_aa import aa

    rng = np.random.default_rng(4)
    design = skill.Design(ladder=("r", "g", "o"))
    rows = []
    for d in range(40):
        luck = rng.normal(0, 10)
        rows += [("v", "run", d, "r", None, -50.0 + luck, 4), ("v", "run", d, "r", "g", rng.normal(0, 20) + luck, 4),
                 ("v", "run", d, "g", None, -10.0 + luck, 4), ("v", "run", d, "g", "o", rng.normal(-8, 15) + luck, 4)]
    pts = pl.DataFrame(rows, schema={"variant": pl.String, "run": pl.String, "deal_set": pl.Int64, "field": pl.String,
                                     "challenger": pl.String, "points": pl.Float64, "rounds": pl.Int64}, orient="row")
    got = aa(pts, "v", design, repeats=200, seed=2)
    assert got["pairs"] == 20 and 0 < got["rejected"] <= 0.10  # 5% is its level; 200 repeats leave ±1.5 points


def test_a_variant_effect_on_the_first_player_that_flips_with_skill_is_warned():
    from results.skill_balance import edge_warnings

    def variant(vid, edges):
        return {"variant": vid, "label": vid, "skill": {"play": [
            {"level": lvl, "first_player": {"edge": e, "edge_lo": e - 1, "edge_hi": e + 1}} for lvl, e in edges]}}

    a = variant("t51", [("builtin:random", 0.0), ("builtin:greedy", 5.0)])
    b = variant("t101", [("builtin:random", 6.0), ("builtin:greedy", -1.0)])
    (warn,) = edge_warnings([a, b], [("t51", "t101")])
    assert "from t51 to t101 changes sign with skill" in warn and "up with random" in warn and "down with greedy" in warn
    assert edge_warnings([a, variant("t101", [("builtin:random", 1.0), ("builtin:greedy", 6.0)])], [("t51", "t101")]) == []


def test_the_plan_line_of_a_study_says_what_a_margin_takes():
    from results.precision import GAIN_SD, gap_deal_sets, gap_half_width, skill_precision

    assert gap_half_width(1, 100) == pytest.approx(1.959964 * GAIN_SD / 10, rel=1e-4)
    assert gap_deal_sets(2.0, 1) == math.ceil((1.959964 * GAIN_SD / 2) ** 2)
    assert gap_deal_sets(2.0, 4) == math.ceil(gap_deal_sets(2.0, 1) / 4)  # more rounds, fewer deal sets
    line = skill_precision({"deal_sets": 100, "variants": [{"rules": {"rounds": 1}}]})
    assert line.startswith(f"skill: about ±{gap_half_width(1, 100):.1f} points a round on each skill gap with 100 deal sets")


def test_the_in_short_summary_leads_with_the_skill_sentence_and_says_gaps_in_points_a_round():
    from results import words

    gap = {"a": "a", "b": "b", "metric": "skill_gap:builtin:greedy>builtin:random", "family": "primary", "n": 30,
           "mean_a": 31.4, "mean_b": 18.9, "diff": -12.5, "lo": -18.2, "hi": -6.8, "p": 0.0002, "p_adj": 0.002,
           "significant": True, "same_as": None}
    first = {**gap, "metric": "win_p1", "mean_a": 0.30, "mean_b": 0.31, "diff": 0.01, "lo": -0.03, "hi": 0.05,
             "p": 0.6, "p_adj": 1.0, "significant": False}
    doc = {"variants": [{"variant": "a", "label": "threshold=51", "positions": [{}] * 4},
                        {"variant": "b", "label": "threshold=101", "positions": [{}] * 4}],
           "comparisons": [first, gap], "skill": {"summary": skill.summary_sentence([gap], LABELS)},
           "warnings": ["What threshold=101 does to the skill gap ... changes sign with skill: ..."]}
    said = words.summary(None, doc)
    top = [s.text for s in said if s.kind == "headline"]
    assert top[0].startswith("threshold=51 rewards skill more than threshold=101: the gap of greedy over random is 12.5 "
                             "points a round larger at threshold=51")
    assert len(top) == 2 and "first player's share" in top[1]  # the gap is said once, by the skill sentence
    (detail,) = [s.text for s in said if s.kind == "variants" and "skill gap" in s.text]
    assert detail == ("At threshold=101, the skill gap of greedy over random (points a round) is 18.9, against 31.4 at "
                      "threshold=51: -12.5 points a round [-18.2, -6.8].")
    assert any(s.kind == "warning" and "changes sign with skill" in s.text for s in said)


def test_a_skill_level_outside_0_to_1_is_said_for_what_it_is():
    def level(learning, chance):
        return {"beginner": "builtin:random", "best": "builtin:greedy", "fictive": "builtin:clairvoyant",
                "learning": {"estimate": learning}, "chance": {"estimate": chance}}

    above = skill.level_note(level(34.3, -8.6))  # 34.3 / 25.7 = 1.33
    assert above.startswith("above 1 with beginner random: clairvoyant gains less than greedy over copies of random "
                            "(chance effect -8.6 points a round), so it is no upper bound here")
    assert skill.level_note(level(-2.0, 10.0)).startswith("below 0 with beginner random: greedy makes less")
    assert skill.level_note(level(0.3, 46.4)) is None
