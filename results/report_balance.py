"""The report's sections on the rules variants: seat advantage, round length, the balance tables of
each variant (folded) and the paired comparisons, said in plain words, with the forest plot of the
metrics that vary (results/report.py puts the page together)."""

from __future__ import annotations

from . import plots, words
from . import report_parts as more
from .page import DASH, Raw, details, esc, figure, interval, note, num, pct, rules_text, section, table, yes_no


def variants_of(doc) -> list[dict]:
    return (doc or {}).get("variants") or []


def seats_section(balance_doc, balance_why, ratings_doc) -> Raw:
    parts = []
    variants = [v for v in variants_of(balance_doc) if v.get("positions")]
    if variants:
        parts.append(figure(plots.by_position(variants),
                            "Share of rounds won by position after the dealer, with 95% intervals computed over "
                            "deal sets; the dashed line is the mean over positions (no seat advantage)."))
        rows = []
        for v in variants:
            chi2 = v.get("chi2") or {}
            imb = v.get("imbalance") or {}
            dealer = v.get("dealer") or {}
            rows.append([v.get("label"), v.get("rounds"), v.get("deal_sets"), num(chi2.get("stat"), 2),
                         _df(chi2.get("df")), num(chi2.get("deff"), 2), num(chi2.get("p"), 4),
                         num(chi2.get("p_adj"), 4), pct(imb.get("value")), interval(imb.get("lo"), imb.get("hi"), pct),
                         pct(dealer.get("rate"))])
        test = [table(["variant", "rounds", "deal sets", "chi-square (Rao–Scott)", "df", "deff", "p (uniform)",
                       "p (Holm over variants)", "seat imbalance", "95% interval", "dealer's share"], rows,
                      {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}),
                Raw("<p class=sub>The test of uniform wins counts deal sets, not rounds, as independent (Rao–Scott "
                    "correction; deff is the mean design effect; when every deal set is alike, deff is 0 and the "
                    "test is Pearson's over all rounds); its p-values are adjusted by Holm over the variants. "
                    "Seat imbalance is the typical distance (root mean square) of a position's win rate from "
                    "the positions' mean, with the part chance adds removed, so runs of any size can be "
                    "compared; 0 is perfectly fair. Its interval resamples whole deal sets.</p>")]
        parts.append(details("Are wins spread evenly over the positions? The test, by variant", test))
    else:
        parts.append(note(f"No round results by position{': ' + balance_why if balance_why else ''}."))
    seats = (ratings_doc or {}).get("seats") or []
    if seats:
        where = f" ({ratings_doc['label']})" if ratings_doc.get("label") else ""
        parts.append(details(f"Seat effects in the rating model{where}", [
            figure(plots.seat_effects(seats), "Seat effects (Elo scale, relative to seat 0 of each table size) with "
                                              "95% intervals."),
            table(["players", "seat", "effect (Elo)", "95% interval"],
                  [[s.get("players", DASH), s.get("seat"), num(s.get("effect")), _seat_interval(s)] for s in seats],
                  {0, 1, 2, 3})]))
    else:
        parts.append(note("The rating model gives no seat effects for these runs."))
    return section("seats", "Seat advantage", parts)


def _df(value) -> str:
    return str(value) if isinstance(value, int) else num(value, 2)


def _seat_interval(seat: dict) -> str:
    if seat.get("lo") == seat.get("hi") == seat.get("effect") == 0:
        return "(the reference)"
    return interval(seat.get("lo"), seat.get("hi"))


def round_length_section(balance_doc, why) -> Raw:
    variants = [v for v in variants_of(balance_doc) if (v.get("turns") or {}).get("hist")]
    if not variants:
        return section("round-length", "Round length", [note(f"No round lengths{': ' + why if why else ''}.")])
    rows = []
    for v in variants:
        t = v["turns"]
        rows.append([v.get("label"), num(t.get("mean")), num(t.get("sd")), num(t.get("median")),
                     num(t.get("p10")), num(t.get("p90"))])
    return section("round-length", "Round length", [
        figure(plots.turn_lengths(variants), "Turns per round, as a share of each variant's rounds."),
        table(["variant", "mean", "sd", "median", "10th percentile", "90th percentile"], rows, {1, 2, 3, 4, 5}),
    ])


def _rates(mapping: dict, heading: str, empty: str = "") -> list:
    if not mapping:
        return []
    if empty and all(v.get("rate") is None for v in mapping.values()):
        return [Raw(f"<div><h4>{esc(heading)}</h4>"), note(empty), Raw("</div>")]
    rows = [[key, pct(v.get("rate")), interval(v.get("lo"), v.get("hi"), pct)] for key, v in sorted(mapping.items())]
    return [Raw(f"<div><h4>{esc(heading)}</h4>"), table(["", "rate", "95% interval"], rows, {1, 2}), Raw("</div>")]


def variant_tables(v: dict) -> list:
    """The balance tables of one variant; parts the game does not record are left out."""
    sizes = f"{v.get('matches')} matches, {v.get('rounds')} rounds, {v.get('deal_sets', DASH)} deal sets"
    parts = [Raw(f"<h3>{esc(v.get('label'))}</h3>"),
             Raw(f"<p class=sub>variant <code class=id>{esc(v.get('variant'))}</code>: {esc(sizes)}. "
                 f"Rules: <code>{esc(rules_text(v.get('rules')))}</code></p>")]
    parts += [Raw(f"<p><strong>Warning:</strong> {esc(w)}.</p>") for w in v.get("warnings") or []]
    grid = []
    if v.get("positions"):
        rows = [[p.get("position"), p.get("rounds"), p.get("wins"), pct(p.get("rate")),
                 interval(p.get("lo"), p.get("hi"), pct)] for p in v["positions"]]
        grid += [Raw("<div><h4>Round wins by position</h4>"),
                 table(["position", "rounds with a winner", "wins", "share", "95% interval"], rows, {1, 2, 3, 4}),
                 Raw("</div>")]
    if v.get("seat_wins"):
        rows = [[s.get("seat"), s.get("matches"), s.get("wins"), pct(s.get("rate")),
                 interval(s.get("lo"), s.get("hi"), pct)] for s in v["seat_wins"]]
        grid += [Raw("<div><h4>Match wins by seat</h4>"),
                 table(["seat", "matches", "wins", "rate", "95% interval"], rows, {1, 2, 3, 4}), Raw("</div>")]
    if v.get("seat_scores"):
        rows = [[s.get("seat"), num(s.get("mean")), interval(s.get("lo"), s.get("hi"))] for s in v["seat_scores"]]
        grid += [Raw("<div><h4>Mean score by seat</h4>"), table(["seat", "mean", "95% interval"], rows, {1, 2}),
                 Raw("</div>")]
    void = v.get("void_rate") or {}
    if void:
        grid += _rates({"void rounds": void, **(v.get("void_why") or {})}, "Void rounds, and why")
    grid += _rates(v.get("ends") or {}, "How rounds end")
    grid += _rates(v.get("finish") or {}, "How rounds are won", "No round had a winner.")
    openings = v.get("openings") or {}
    grid += _rates(openings.get("by_method") or {}, "Openings by method", "No seat opened.")
    grid += _rates(openings.get("win_share") or {}, "Round wins of seats that opened, by method",
                   "No seat that opened won a round.")
    if v.get("penalties"):
        rows = [[rule, num(mean, 2)] for rule, mean in sorted(v["penalties"].items())]
        grid += [Raw("<div><h4>Mean penalty by rule</h4>"), table(["rule", "mean per round"], rows, {1}),
                 Raw("</div>")]
    if not grid:
        return parts + [note("No balance statistics for this variant.")]
    if "openings" in v and not openings.get("by_method") and not openings.get("by_turn"):
        grid.append(note("No seat opened in these rounds."))
    return parts + [Raw('<div class="pair">' + "".join(esc(g) for g in grid) + "</div>")]


def p_text(p) -> str:
    return DASH if not plots.finite(p) else "< 0.001" if p < 0.001 else f"{p:.3f}"


VERDICTS = {"shown": "shown", "same": "the same within the margin", "none": "no change shown",
            "lead": "a lead: check on new deals", "untested": "no spread to test"}


def comparison_rows(doc) -> list[list]:
    """The comparison table's rows, in the words and numbers of the summary's sentences."""
    labels = {v.get("variant"): v.get("label") for v in variants_of(doc)}
    players = len((variants_of(doc) or [{}])[0].get("positions") or []) or None
    rows = []
    for c in doc.get("comparisons") or []:
        a, b = labels.get(c.get("a"), c.get("a")), labels.get(c.get("b"), c.get("b"))
        said = words.comparison_sentence(c, a, b, players)
        level_a, level_b = words.levels(c)
        verdict = f"the same figure as {words.subject(c['same_as'], players)}" if c.get("same_as") else \
            VERDICTS[said.figures["verdict"]]
        rows.append([a, b, words.subject(c["metric"], players), c.get("family"), c.get("n"), level_a, level_b,
                     words.difference(c), p_text(c.get("p")), p_text(c.get("p_adj")), verdict])
    return rows


def comparison_table(doc) -> list:
    comparisons = doc.get("comparisons") or []
    if not comparisons:
        return [note("Only one variant, or no variants played on the same deals: no paired comparisons.")]
    correction = {"holm": "Holm", "bh": "Benjamini–Hochberg"}.get(doc.get("correction"), "Holm")
    margin = doc.get("margin") or {}
    said = (f"{doc.get('pairs_note') or 'compared pairs'}. Planned questions (each position's share of the rounds "
            f"with a winner, void rounds, the turns of a round) are adjusted by {correction} as one family; the "
            "turns and deals of a match and the winner's margin as another (Holm); the rest is exploratory "
            "(Benjamini–Hochberg among themselves), a lead at most. Differences of shares are in percentage "
            "points, of lengths as ratios, each with its 95% interval over deal sets")
    said += ("; equivalence margins " + ", ".join(f"{m} ±{v:g}" for m, v in margin.items()) if margin
             else "; no equivalence margin given")
    return [Raw("<h3>Paired comparisons between variants (same deals)</h3>"),
            Raw(f"<p class=sub>{esc(said)}.</p>"),
            table(["variant A", "variant B", "quantity", "family", "deal sets", "A", "B", "difference B − A [95%]",
                   "p", "p adjusted", "verdict"], comparison_rows(doc), {4, 5, 6, 7, 8, 9})]


def match_table(doc) -> list:
    """Per variant: deals and turns of a match, the winner's margin, lead changes and comebacks."""
    rows = []
    for v in variants_of(doc):
        m = v.get("match") or {}
        if not m:
            continue
        cells = [v.get("label")]
        for key, digits in (("deals", 1), ("turns", 0), ("margin", 1), ("lead_changes", 2)):
            f = m.get(key) or {}
            cells += [f"{num(f.get('mean'), digits)} [{num(f.get('lo'), digits)}, {num(f.get('hi'), digits)}]"]
        back = m.get("comebacks") or {}
        cells += [num(m.get("spread")), pct(back.get("rate")) if back else DASH]
        rows.append(cells)
    if not rows:
        return []
    return [Raw("<h3>Matches</h3>"),
            table(["variant", "deals a match", "turns a match", "winner's margin", "lead changes",
                   "spread of totals (sd)", "won from behind at half time"], rows, {1, 2, 3, 4, 5, 6})]


def balance_section(doc, why) -> Raw:
    if doc is None:
        return section("balance", "Variant balance", [note(f"No balance statistics: {why}")])
    parts = []
    forest = more.forest_figure(doc)
    compared = comparison_table(doc)
    if forest:
        parts.append(forest)
    parts += compared[:2] + ([details("Every comparison in a table", compared[2:])] if len(compared) > 2
                             else compared[2:])
    parts += match_table(doc)
    tables = []
    for v in variants_of(doc):
        tables.append(details(f"{v.get('label')}: every table", variant_tables(v)[1:]))
    parts += [Raw("<h3>Each variant</h3>")] + tables if tables else [note("No variants with results.")]
    opened = [v for v in variants_of(doc) if (v.get("openings") or {}).get("by_turn")]
    if opened:
        parts.append(details("Openings by turn", [figure(plots.opening_turns(opened), "When seats open: the turn of "
                                                         "the round, as a share of each variant's openings.")]))
    return section("balance", "Variant balance", parts)


__all__ = ["balance_section", "comparison_rows", "comparison_table", "match_table", "round_length_section",
           "seats_section", "variant_tables", "variants_of"]
