"""A shorter report (issue 27, point 7): with its details folded the sweep's page is a fifth of what it
was (34,157 px at 1280 before), every plot fits a 390 px screen, and the forest plot shows only what
varies, in at most three panels, the positions' shares on one scale."""

from __future__ import annotations

from test_report import artifacts, open_page
from results.balance import balance
from results.report_parts import forest_rows
from results.runs import open_runs

MEASURE = """
const doc = document.documentElement;
const svgs = [...document.querySelectorAll('svg')].filter(s => !s.parentElement.closest('svg'))
  .filter(s => s.checkVisibility());
return {height: doc.scrollHeight, overflow: doc.scrollWidth - doc.clientWidth,
        beyond: Math.max(0, ...svgs.map(s => s.getBoundingClientRect().right - doc.clientWidth)), svgs: svgs.length};
"""


def test_the_report_is_short_and_its_plots_fit_a_phone(browser, report_of, sweep_run):
    target = report_of(sweep_run)
    for width, tallest in ((1280, 9000), (390, 11000)):
        browser.resize(width, 900)
        open_page(browser, target, unfold=False)
        page = browser.run(MEASURE)
        assert page["height"] <= tallest and page["overflow"] <= 0, (width, page)
        assert page["svgs"] >= 4 and page["beyond"] <= 0, (width, page)  # no plot cut off or scrolled
        browser.screenshot(artifacts() / f"short-sweep-{width}.png")
        browser.resize(width, 900)
    assert browser.console() == []


def test_the_forest_plot_shows_what_varies_on_shared_scales(sweep_run):
    doc = balance(open_runs([sweep_run]))
    rows = forest_rows(doc)
    said = {c["metric"] for c in doc["comparisons"] if not c["same_as"] and c["lo"] != c["hi"]}
    assert len(rows) == len(said)  # the same figure twice, or the same in every deal set: left out
    panels = list(dict.fromkeys(r["panel"] for r in rows))
    assert len(panels) <= 3 and panels[0] == "shares: percentage points"
    positions = [r for r in rows if r["label"] in ("first player", "position 2", "position 3", "dealer")]
    assert len(positions) == 4 and {r["panel"] for r in positions} == {"shares: percentage points"}
