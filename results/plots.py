"""The report's plots: matplotlib figures (Agg, no pyplot state) returned as inline SVG text.

Every function takes plain numbers and names (parts of the ``ratings`` and ``balance`` documents)
and returns one ``<svg>`` element, ready to be placed in an HTML page. Text is kept as SVG text
(``svg.fonttype = none``), so the files stay small; matplotlib escapes it as XML. Names from the
data go through ``plain`` first, because a ``$`` would otherwise start matplotlib's math mode.
"""

from __future__ import annotations

import io
import math

import matplotlib

matplotlib.use("Agg")

from matplotlib.figure import Figure  # noqa: E402

STYLE = {
    "svg.fonttype": "none",
    "svg.hashsalt": "ellibir-report",  # the same data gives the same file
    "font.family": "sans-serif",
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
}
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22", "#17becf")
INK = "#333333"  # series that are not variants (seat effects, comparisons): never a variant's colour
MARKERS = ("o", "s", "^", "D", "v")
WIDTH = 7.0  # inches; the page scales the SVG to its column


def plain(text, longest: int = 36) -> str:
    """``text`` as matplotlib shows it literally (no math mode), its end only when it is long."""
    text = str(text)
    if len(text) > longest:
        text = "\u2026" + text[-(longest - 1):]
    return text.replace("$", r"\$")


def finite(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _value(x) -> float:
    return float(x) if finite(x) else math.nan


def _errors(rows, centre: str) -> tuple[list, list]:
    """Asymmetric error bar lengths (below, above) of rows with ``lo``/``hi`` around ``centre``."""
    low, high = [], []
    for row in rows:
        c, lo, hi = _value(row.get(centre)), _value(row.get("lo")), _value(row.get("hi"))
        low.append(max(c - lo, 0.0) if math.isfinite(c - lo) else 0.0)
        high.append(max(hi - c, 0.0) if math.isfinite(hi - c) else 0.0)
    return low, high


def _figure(height: float) -> tuple[Figure, object]:
    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=(WIDTH, max(height, 1.6)), layout="constrained")
        return fig, fig.add_subplot()


def to_svg(fig: Figure) -> str:
    """The figure as one ``<svg>`` element (no XML prolog or doctype)."""
    buf = io.StringIO()
    with matplotlib.rc_context(STYLE):
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
    text = buf.getvalue()
    return text[text.index("<svg"):].strip()


def leaderboard(bots: list[dict]) -> str:
    """Each bot's rating with its 95% interval, strongest at the top."""
    rows = list(reversed(bots))
    fig, ax = _figure(0.35 * len(rows) + 1.0)
    y = range(len(rows))
    ax.errorbar([_value(b.get("rating")) for b in rows], y, xerr=_errors(rows, "rating"), fmt="o",
                color=INK, ecolor=INK, capsize=3, markersize=5)
    ax.set_yticks(list(y), [plain(b.get("bot", "")) for b in rows])
    ax.set_xlabel("rating (Elo scale), 95% interval")
    ax.grid(axis="y", visible=False)
    return to_svg(fig)


def heatmap(names: list[str], matrix: list[list[float]], label: str) -> str:
    """A square matrix (row against column) as a heat map, with the values written in the cells."""
    n = len(names)
    fig, ax = _figure(0.45 * n + 1.8)
    with matplotlib.rc_context(STYLE):
        image = ax.imshow(matrix, cmap="RdBu", vmin=0.0, vmax=1.0, aspect="auto")
        fig.colorbar(image, ax=ax, shrink=0.9)
    ax.set_title(plain(label, 80), fontsize=9)
    shown = [plain(name) for name in names]
    ax.set_xticks(range(n), shown, rotation=30, ha="right")
    ax.set_yticks(range(n), shown)
    ax.grid(False)
    for i, row in enumerate(matrix):
        for j, value in enumerate(row):
            if finite(value):
                ink = "white" if abs(value - 0.5) > 0.3 else "black"
                ax.text(j, i, f"{value:.2f}", ha="center", va="center", color=ink, fontsize=8)
    ax.set_xlabel("against")
    return to_svg(fig)


def colour_of(variant: dict, index: int) -> str:
    """A variant's colour: its ``colour`` when the report gave it one (the same in every plot), else by index."""
    return variant.get("colour") or COLOURS[index % len(COLOURS)]


def _legend_below(ax, columns: int = 2) -> None:
    """A legend under the axes, in a font that stays legible when the figure is shown narrow."""
    ax.legend(fontsize=10, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=columns, frameon=False)


def by_position(variants: list[dict]) -> str:
    """Round win rate by position after the dealer, with Wilson intervals, one series per variant."""
    fig, ax = _figure(3.4)
    k = len(variants)
    players, rates = 0, []
    for i, variant in enumerate(variants):
        rows = variant.get("positions") or []
        players = max(players, len(rows))
        rates += [r["rate"] for r in rows if finite(r.get("rate"))]
        shift = (i - (k - 1) / 2) * min(0.12, 0.6 / max(k, 1))
        x = [row["position"] + shift for row in rows]
        ax.errorbar(x, [_value(r.get("rate")) for r in rows], yerr=_errors(rows, "rate"), fmt="o", capsize=3,
                    markersize=4, color=colour_of(variant, i), label=plain(variant.get("label", ""), 60))
    if players:
        level = sum(rates) / len(rates) if rates else 1 / players  # 1/n when every round has one winner
        ax.axhline(level, color="grey", linestyle="--", linewidth=1, label="no seat advantage")
        ax.set_xticks(range(1, players + 1))
    ax.set_xlabel("position after the dealer (the dealer plays last)")
    ax.set_ylabel("share of rounds won")
    _legend_below(ax)
    return to_svg(fig)


def seat_effects(seats: list[dict]) -> str:
    """The rating model's seat effects (Elo scale) with their 95% intervals, one series per table size."""
    fig, ax = _figure(2.4)
    sizes = sorted({s.get("players") for s in seats}, key=lambda n: (n is None, n))
    width = 0.5 / max(1, len(sizes))
    for k, size in enumerate(sizes):
        mine = [s for s in seats if s.get("players") == size]
        shift = (k - (len(sizes) - 1) / 2) * width
        ax.errorbar([s["seat"] + shift for s in mine], [_value(s.get("effect")) for s in mine],
                    yerr=_errors(mine, "effect"), fmt=MARKERS[k % len(MARKERS)], capsize=3, markersize=5,
                    color=INK, label=None if size is None else f"{size} players")
    ax.axhline(0, color="grey", linestyle="--", linewidth=1)
    ax.set_xticks(sorted({s["seat"] for s in seats}))
    ax.set_xlabel("seat")
    ax.set_ylabel("seat effect (Elo)")
    if len(sizes) > 1:
        _legend_below(ax, len(sizes))
    return to_svg(fig)


def binned(pairs, bins: int = 30) -> tuple[list[float], list[float], int]:
    """(bin starts, shares, bin width) of ``[[value, count], ...]``, in at most ``bins`` equal bins."""
    pairs = [(int(v), int(c)) for v, c in pairs if c]
    total = sum(c for _, c in pairs)
    if not total:
        return [], [], 1
    low, high = min(v for v, _ in pairs), max(v for v, _ in pairs)
    width = max(1, math.ceil((high - low + 1) / bins))
    counts = [0] * ((high - low) // width + 1)
    for v, c in pairs:
        counts[(v - low) // width] += c
    return [low + i * width for i in range(len(counts))], [c / total for c in counts], width


def shares(series: list[tuple], xlabel: str, ylabel: str) -> str:
    """Distributions of whole numbers (``[[value, count], ...]`` per named series, optionally with a
    colour) as step lines of shares."""
    fig, ax = _figure(3.4)
    widths = set()
    for i, (name, pairs, *colour) in enumerate(series):
        starts, values, width = binned(pairs)
        if not starts:
            continue
        widths.add(width)
        x = starts + [starts[-1] + width]
        ax.stairs(values, x, color=(colour[0] if colour and colour[0] else COLOURS[i % len(COLOURS)]), linewidth=1.5,
                  label=plain(name, 60))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel + (f" (bins of {max(widths)})" if widths and max(widths) > 1 else ""))
    _legend_below(ax)
    return to_svg(fig)


def turn_lengths(variants: list[dict]) -> str:
    """The distribution of round length in turns, one line per variant, as shares of its rounds."""
    return shares([(v.get("label", ""), (v.get("turns") or {}).get("hist") or [], v.get("colour")) for v in variants],
                  "turns in the round", "share of rounds")


def opening_turns(variants: list[dict]) -> str:
    """The turn of each opening, one line per variant, as shares of its openings."""
    return shares([(v.get("label", ""), (v.get("openings") or {}).get("by_turn") or [], v.get("colour"))
                   for v in variants],
                  "turn of the round at which a seat opened", "share of openings")


def forest(rows: list[dict], width: float = 5.0) -> str:
    """Differences with their 95% intervals, one row per comparison (``label``, ``panel``, ``diff``,
    ``lo``, ``hi``, ``significant``; ``unit`` names a panel's scale), one panel per quantity; rows
    of one panel share its scale (the seats' shares are one panel). Differences shown filled, the
    others hollow; the line at 0 is no difference. ``metric`` stands in for ``panel`` when absent."""
    panels = list(dict.fromkeys(r.get("panel") or r.get("metric") for r in rows))
    heights = [sum(1 for r in rows if (r.get("panel") or r.get("metric")) == m) for m in panels]
    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=(width, max(1.6, 0.3 * sum(heights) + 0.85 * len(panels))), layout="constrained")
        axes = fig.subplots(len(panels), 1, squeeze=False, gridspec_kw={"height_ratios": [h + 1.6 for h in heights]})
    for ax, panel in zip(axes[:, 0], panels):
        mine = list(reversed([r for r in rows if (r.get("panel") or r.get("metric")) == panel]))
        y = list(range(len(mine)))
        for i, r in enumerate(mine):
            filled = bool(r.get("significant"))
            ax.errorbar([_value(r.get("diff"))], [i], xerr=_errors([r], "diff"), fmt="o", capsize=3,
                        markersize=5, color=INK, markerfacecolor=INK if filled else "white")
        ax.axvline(0, color="grey", linestyle="--", linewidth=1)
        ax.set_yticks(y, [plain(r.get("label", ""), 28) for r in mine], fontsize=9)
        ax.set_ylim(-0.7, len(mine) - 0.3)
        ax.grid(axis="y", visible=False)
        unit = next((r.get("unit") for r in mine if r.get("unit")), "")
        ax.set_title(plain(panel, 60) + (f" ({plain(unit, 30)})" if unit else ""), fontsize=9, loc="left")
    return to_svg(fig)


__all__ = ["binned", "by_position", "colour_of", "forest", "heatmap", "leaderboard", "opening_turns", "plain", "seat_effects", "shares",
           "to_svg", "turn_lengths"]


def skill_trace(series: list[tuple]) -> str:
    """The Elo of each rung of a skill ladder (weakest first), one line per variant: ``(label, colour,
    [(rung, rating, lo, hi), ...])``."""
    fig, ax = _figure(3.4)
    rungs: list[str] = []
    for name, colour, points in series:
        for rung, *_ in points:
            if rung not in rungs:
                rungs.append(rung)
    for i, (name, colour, points) in enumerate(series):
        shown = [(rungs.index(r), v, lo, hi) for r, v, lo, hi in points if finite(v)]
        if not shown:
            continue
        x = [p[0] + (i - (len(series) - 1) / 2) * 0.05 for p in shown]
        y = [p[1] for p in shown]
        err = [[max(0.0, v - lo) if finite(lo) else 0.0 for _, v, lo, _ in shown],
               [max(0.0, hi - v) if finite(hi) else 0.0 for _, v, _, hi in shown]]
        ax.errorbar(x, y, yerr=err, fmt="-o", capsize=3, markersize=4, color=colour or COLOURS[i % len(COLOURS)],
                    label=plain(name, 60))
    ax.set_xticks(range(len(rungs)))
    ax.set_xticklabels([plain(r.removeprefix("builtin:"), 14) for r in rungs], rotation=20, fontsize=8)
    ax.set_ylabel("Elo (reference bot 1500)")
    _legend_below(ax)
    return to_svg(fig)


STYLES = ("-", "--", ":", "-.")


def survival(series: list[tuple]) -> str:
    """Kaplan–Meier curves of round length: ``(label, colour, style index, [[turns, still going], ...])``."""
    fig, ax = _figure(3.4)
    for i, (name, colour, style, steps) in enumerate(series):
        if not steps:
            continue
        x = [0.0] + [t for t, _ in steps]
        y = [1.0] + [p for _, p in steps]
        ax.step(x, y, where="post", color=colour or COLOURS[i % len(COLOURS)], linestyle=STYLES[style % len(STYLES)],
                linewidth=1.4, label=plain(name, 60))
    ax.set_xlabel("turns")
    ax.set_ylabel("rounds still going (void censored)")
    ax.set_ylim(0, 1.02)
    _legend_below(ax)
    return to_svg(fig)
