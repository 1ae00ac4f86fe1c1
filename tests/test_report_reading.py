"""What a reader sees: the Findings as one line per topic linked to the finding in full, places at the
table named one way (seats from 0, places relative to the dealer by order of play), the frontier
figure on a scale the profiles share only where that reads, points past the differences figure's
edge kept apart, and tables no wider than the page."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from analysis import document, findings, frontier, plots, report
from analysis.document import Cell, Document
from test_analysis import alpha_shards, write_run


@pytest.fixture(scope="module")
def alpha_page(tmp_path_factory):
    """The report of the hand-made run alpha: its HTML, Markdown and output folder."""
    root = tmp_path_factory.mktemp("reading")
    run = write_run(root / "alpha-run", {"alpha": alpha_shards()})
    out = root / "out"
    report.write_report(run, out)
    return (out / "report.html").read_text(), (out / "report.md").read_text(), out


# ---------------------------------------------------------------------------------------------
# Findings in a minute


def test_each_finding_is_one_line_linked_to_its_full_text(alpha_page):
    html, markdown, _ = alpha_page
    listed = re.search(r'<ul class="findings">(.*?)</ul>', html, flags=re.S).group(1)
    items = re.findall(r'<li><b>(.+?)\.</b> (.*?) <a href="#(finding-[a-z-]+)">more</a></li>', listed)
    assert [topic for topic, _, _ in items] == ["Play strength", "Elimination", "Order of play", "Bot advantage",
                                                "Money"], items
    for topic, line, anchor in items:
        assert anchor == "finding-" + document.slug(topic)
        assert len(line) <= 160 and line.endswith(".") and ". " not in line, line  # one short sentence
        full = re.search(rf'<p class="finding" id="{anchor}"><b>{re.escape(topic)}\.</b> (.*?)</p>', html)
        assert full and len(full.group(1)) > len(line), anchor
    assert dict((t, line) for t, line, _ in items)["Play strength"] == (
        "One table composition (greedy,cautious): this run cannot speak to play strength.")
    assert html.index('<ul class="findings">') < html.index('id="headline-metrics"') < html.index(
        'id="findings-in-full"')
    assert re.search(r"^- \*\*Money\.\*\* .+ \[more\]\(#finding-money\)$", markdown, flags=re.M)
    assert '<a id="finding-money"></a>**Money.**' in markdown


# ---------------------------------------------------------------------------------------------
# seats: counted from 0; a place relative to the dealer named by order of play


def test_the_report_never_calls_a_place_relative_to_the_dealer_seat_n_and_says_how_the_deal_passes(alpha_page):
    html, markdown, out = alpha_page
    text = re.sub(r"<[^>]+>", " ", html)
    assert not re.search(r"\bseat \d+ (\(dealer\)|wins)", text)
    assert report.DEAL_TEXT in markdown
    assert "Seats are the table's places counted from 0" in report.DEAL_TEXT
    assert "the deal then passes to the left" in report.DEAL_TEXT
    rates = pd.read_csv(out / "data" / "win_rate_by_seat.csv")
    expected = [findings.play_order_label(k, n) for k, n in zip(rates["seat_from_dealer"], rates["n_players"])]
    assert rates["position"].tolist() == expected and "dealer (plays last)" in expected
    payments = pd.read_csv(out / "data" / "net_payment.csv")
    places = payments.loc[payments["by"] != "bot", "group"]
    assert len(places) and places.str.match(r"^(\d+(st|nd|rd|th) to play|dealer \(plays last\))$").all(), places
    eliminated = pd.read_csv(out / "data" / "eliminated_by_group.csv")
    assert not eliminated.loc[eliminated["by"] == "seat", "group"].str.startswith("seat").any()


def test_the_figure_of_wins_by_order_of_play_labels_its_places_in_words():
    rates = pd.DataFrame({"profile": ["p"] * 4, "seat_from_dealer": [1, 2, 3, 4], "n_players": [4] * 4,
                          "estimate": [0.27, 0.25, 0.24, 0.24], "ci_low": [0.26, 0.24, 0.23, 0.23],
                          "ci_high": [0.28, 0.26, 0.25, 0.25], "expected": [0.25] * 4})
    fig, ax = plots.new_figure()
    plots.seat_advantage(ax, rates)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1st", "2nd", "3rd", "dealer"]
    assert "order of play" in ax.get_xlabel() and "seat" not in ax.get_title()


# ---------------------------------------------------------------------------------------------
# the frontier figure


def _frontier_frame(rows) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=["label", "metric", "profile", "rung", "estimate", "ci_low", "ci_high"])
    frame["scale"] = 1000.0
    frame["kind"] = "proportion"
    frame["profile"] = pd.Categorical(frame["profile"], categories=list(dict.fromkeys(frame["profile"])))
    return frame


def test_a_profile_whose_intervals_would_flatten_the_others_is_clipped_and_named():
    # east_coast's one-hand games: Kalookis per 1,000 hands with intervals up to 310
    rows = [("Kalookis per 1,000 hands", "kalooki_per_hand", p, r, e, lo, hi)
            for p, r, e, lo, hi in [("kalooki40", "greedy", 0.013, 0.004, 0.039),
                                    ("kalooki40", "expert", 0.022, 0.009, 0.049),
                                    ("kalooki51", "greedy", 0.016, 0.007, 0.037),
                                    ("kalooki51", "expert", 0.015, 0.008, 0.027),
                                    ("east_coast", "greedy", 0.05, 0.0, 0.31), ("east_coast", "expert", 0.05, 0.0, 0.31)]]
    frame = _frontier_frame(rows)
    limits, clipped = frontier.shared_limits(frame)
    low, high = limits["Kalookis per 1,000 hands"]
    assert low == pytest.approx(4.0) and high == pytest.approx(50.0)  # the others' intervals and every estimate
    assert clipped == {"Kalookis per 1,000 hands": {"east_coast": pytest.approx(310.0)}}
    text = frontier.clipped_text(clipped)
    assert "east_coast (up to 310) in Kalookis per 1,000 hands" in text
    frame.attrs["limits"] = limits
    fig, axes = plots.new_panels(1)
    plots.frontier(axes, frame)
    bottom, top = axes[0].get_ylim()
    assert top < 60 and bottom > -5
    markers = [c for c in axes[0].collections if len(c.get_offsets()) and c.get_offsets()[0][1] >= top - 1e-9]
    assert markers, "an interval clipped at the top ends in a triangle"
    # profiles on comparable scales are not clipped
    calm = _frontier_frame([r for r in rows if r[2] != "east_coast"])
    assert frontier.shared_limits(calm)[1] == {}


def test_panels_zero_in_practice_at_every_rung_are_left_out_and_named():
    thresholds = findings.load_thresholds()
    frame = _frontier_frame(
        [("Void deals (re-dealt) (%)", "void_hand_share", "kalooki40", r, e, 0.0, 0.02)
         for r, e in (("greedy", 0.0096), ("expert", 0.0))]
        + [("Stock reshuffles per deal, mean", "reshuffles_per_hand", "kalooki40", r, e, 0.0, 0.12)
           for r, e in (("greedy", 0.084), ("expert", 0.0))])
    left_out = frontier.negligible_metrics(frame, thresholds)
    assert left_out == {"void_hand_share": pytest.approx(0.0096)}  # below its 1 pp threshold at every rung
    text = frontier.negligible_text(left_out, {"void_hand_share": "proportion"}, thresholds)
    assert text.startswith("Left out of the figure, zero in practice at every rung for every profile")
    assert "void deals (re-dealt) (at most 1.0% at any rung, threshold 1.0%)" in text


# ---------------------------------------------------------------------------------------------
# differences past the figure's edge


def test_differences_past_the_edge_each_get_their_own_place():
    frame = pd.DataFrame({
        "label": ["Hands per game, mean"] * 3 + ["Opening turn, mean"] * 3,
        "profile": pd.Categorical(["a", "b", "c"] * 2, categories=["a", "b", "c"]),
        "difference": [-6.3, -6.2, -12.5, 0.1, 0.2, 0.0], "diff_ci_low": [-6.5, -6.4, -13.0, -0.1, 0.0, -0.2],
        "diff_ci_high": [-6.1, -6.0, -12.0, 0.3, 0.4, 0.2], "threshold": [0.5] * 6,
        "verdict": [findings.LOWER] * 3 + [findings.EQUIVALENT] * 3})
    fig, ax = plots.new_figure()
    plots.differences(ax, frame)
    beyond = [tuple(c.get_offsets()[0]) for c in ax.collections
              if len(c.get_offsets()) and abs(c.get_offsets()[0][0]) > plots.DIFFERENCE_LIMIT]
    assert len(beyond) == 3
    xs = sorted(x for x, _ in beyond)
    assert all(x < -plots.DIFFERENCE_LIMIT for x in xs) and len(set(np.round(xs, 6))) == 3
    assert min(b - a for a, b in zip(xs, xs[1:])) >= plots.BEYOND_STEP - 1e-9
    assert ax.get_xlim()[0] < xs[0]  # every one inside the drawn area


# ---------------------------------------------------------------------------------------------
# tables no wider than the page


def test_every_table_sits_in_a_box_that_keeps_it_within_the_page():
    doc = Document("t")
    wide = pd.DataFrame({f"a_very_long_column_name_{i}": [1.5, 2.5] for i in range(20)})
    doc.table(wide, "wide")
    doc.grid([Cell("Metric"), Cell("p")], [[Cell("x"), Cell("1.0 (0.5–1.5)", "▲ +1.0")]], "grid")
    page = doc.to_html()
    tables = re.findall(r"(.{0,20})<table", page)
    assert len(tables) == 2 and all(t.endswith('<div class="table">') for t in tables), tables
    style = page[page.index("<style>"):page.index("</style>")]
    assert "div.table { max-width: 100%; overflow-x: auto; }" in style
    assert re.search(r"\bth \{ overflow-wrap: anywhere; \}", style)  # headers wrap, so tables narrow first
    assert "table.frame td { overflow-wrap: anywhere; }" in style
    assert f"max-width: {document.PAGE_WIDTH_PX}px" in style


def test_the_dealer_edge_table_keeps_to_the_columns_a_reader_needs(alpha_page):
    html, _, _ = alpha_page
    caption = html.index("Dealer&#x27;s edge per table size")
    table = html[html.index("<table", caption):html.index("</table>", caption)]
    header = re.findall(r"<th>(.*?)</th>", table)
    assert len(header) <= 11 and "test" not in header and "dealer_k" not in header, header
