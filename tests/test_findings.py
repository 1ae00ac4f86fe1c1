"""Findings and practical thresholds: the judging rule on hand-made difference tables, the thresholds
file and its validation, and the findings of synthetic runs whose profiles differ by a known amount
or do not differ at all."""
from __future__ import annotations

import re
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

from scipy import stats as sps

from analysis import compare, findings, metrics, report, stats
from bench import report as bench_report
from sim import cli
from sim.errors import UserError
from test_analysis import alpha_shards, write_run


DF = 10_000  # degrees of freedom of a constructed difference: its 95% interval is +-1.96 standard errors


def _row(metric="kalooki_per_hand", kind="proportion", a=0.040, b=0.050, low=0.004, high=0.016, significant=True,
         df=DF, in_family=True):
    """A compare row of difference b - a whose 95% t interval on `df` degrees of freedom is [low, high]."""
    se = (high - low) / 2 / sps.t.ppf(0.975, df) if np.isfinite(low) and np.isfinite(high) else np.nan
    return {"profile_a": "base", "profile_b": "other", "metric": metric, "kind": kind, "estimate_a": a,
            "estimate_b": b, "difference": b - a, "diff_ci_low": low, "diff_ci_high": high, "diff_se": se,
            "diff_df": df, "p_value": 0.001, "p_adjusted": 0.01, "significant": significant if in_family else None,
            "in_family": in_family and significant is not None}


def _mean_row(d, low, high, metric="mean_open_round", **kw):
    """A difference of means d with 95% interval [low, high] (mean_open_round's threshold is 0.5)."""
    return _row(metric=metric, kind="mean", a=3.0, b=3.0 + d, low=low, high=high, **kw)


def _judge(rows, thresholds=None):
    table = pd.DataFrame(rows)
    table["significant"] = pd.array(table["significant"], dtype="boolean")
    return findings.judge(table, findings.load_thresholds() if thresholds is None else thresholds)


def _verdicts(*rows):
    return list(_judge(list(rows))["verdict"])


# ---------------------------------------------------------------------------------------------
# the judging rule: three verdicts against the threshold


def test_a_difference_whose_interval_lies_past_the_threshold_is_clear():
    judged = _judge([_row(a=0.040, b=0.050, low=0.004, high=0.016)])  # +10 per 1,000 hands; threshold 2
    assert judged.loc[0, "verdict"] == findings.HIGHER
    assert judged.loc[0, "threshold"] == pytest.approx(0.002)
    assert _verdicts(_mean_row(-1.0, -1.2, -0.8)) == [findings.LOWER]
    # past 0 and with its estimate past the threshold, but the interval reaches inside it: not clear
    assert _verdicts(_mean_row(0.7, 0.3, 1.1)) == [findings.NOT_ESTABLISHED]


def test_an_interval_spanning_the_threshold_is_never_read_as_no_difference():
    # a large estimate whose interval also reaches 0, and one whose interval straddles the threshold
    assert _verdicts(_mean_row(1.0, -0.5, 2.5)) == [findings.NOT_ESTABLISHED]
    assert _verdicts(_mean_row(0.4, 0.1, 0.7)) == [findings.NOT_ESTABLISHED]
    assert _verdicts(_mean_row(-0.5, -1.0, 0.0)) == [findings.NOT_ESTABLISHED]


def test_practically_equivalent_is_the_tost_the_90_percent_interval_inside_the_threshold():
    assert _verdicts(_mean_row(0.05, -0.1, 0.2)) == [findings.EQUIVALENT]
    # the 95% interval reaches past +-0.5, the 90% interval (+-1.645 se = +-0.46) does not: equivalent
    assert _verdicts(_mean_row(0.0, -0.55, 0.55)) == [findings.EQUIVALENT]
    # a 90% interval just reaching the threshold (+-1.645 se = +-0.51) is not
    assert _verdicts(_mean_row(0.0, -0.61, 0.61)) == [findings.NOT_ESTABLISHED]


def test_a_real_difference_smaller_than_the_threshold_is_practically_equivalent():
    # clear of 0 (significant against 0), but the whole interval inside the threshold: real but small
    judged = _judge([_mean_row(0.2, 0.1, 0.3)])
    assert bool(judged.loc[0, "significant"]) and judged.loc[0, "verdict"] == findings.EQUIVALENT
    # 0.2 Kalookis per 1,000 hands, clear with a huge sample, threshold 2 per 1,000
    assert _verdicts(_row(a=0.0151, b=0.0153, low=0.0001, high=0.0003)) == [findings.EQUIVALENT]


def test_a_difference_past_the_threshold_that_fails_holm_is_not_established():
    """Swedish against kalooki40 in a 20-game run: hands per game -4.0 [-6.8, -1.2] against a threshold
    of 0.5 lies past the threshold before correction; in a family of 20 tests it fails Holm, so it is not
    established (never "no difference"); alone, it is a clear difference."""
    swedish = _mean_row(-4.0, -6.8, -1.2, metric="hands_per_game", df=19)
    alone = _judge([swedish])
    assert alone.loc[0, "verdict"] == findings.LOWER and alone.loc[0, "p_exceeds"] < 0.05
    others = [{**_mean_row(0.1, -3.0, 3.2, df=19), "metric": "rounds_per_hand"} for _ in range(19)]
    family = _judge([swedish] + others)
    row = family.loc[0]
    assert row["p_exceeds"] < 0.05 < row["p_exceeds_adjusted"]
    assert row["verdict"] == findings.NOT_ESTABLISHED
    # Holm over the family, each kind of claim on its own
    tested = family["p_exceeds"].to_numpy()
    m = len(tested)
    holm = np.minimum(1, np.maximum.accumulate(np.sort(tested) * (m - np.arange(m))))
    assert np.allclose(np.sort(family["p_exceeds_adjusted"].to_numpy()), holm)


def test_threshold_tests_match_the_intervals_they_stand_for():
    rng = np.random.default_rng(3)
    d, se = rng.normal(0, 1, 2000), rng.uniform(0.05, 1.0, 2000)
    df, threshold = rng.integers(2, 200, 2000).astype(float), rng.uniform(0, 1.5, 2000)
    t95, t90 = sps.t.ppf(0.975, df), sps.t.ppf(0.95, df)
    past = (d - t95 * se > threshold) | (d + t95 * se < -threshold)
    inside = (d - t90 * se > -threshold) & (d + t90 * se < threshold)
    assert ((stats.exceeds_threshold(d, se, df, threshold) < 0.05) == past).all()
    assert ((stats.equivalence_tost(d, se, df, threshold) < 0.05) == inside).all()
    assert past.sum() > 100 and inside.sum() > 100
    assert not (past & inside).any()  # the two claims never both hold
    # no spread: exact answers
    assert list(stats.exceeds_threshold([1.0, 0.2], [0.0, 0.0], [5, 5], 0.5)) == [0.0, 1.0]
    assert list(stats.equivalence_tost([1.0, 0.2], [0.0, 0.0], [5, 5], 0.5)) == [1.0, 0.0]


def test_nan_estimates_are_not_applicable_and_untested_kinds_are_not_tested():
    judged = _judge([_row(metric="buy_in_rate", a=0.6, b=np.nan, low=np.nan, high=np.nan, significant=None),
                     _row(metric="median_hands_to_first_elimination", kind="median", a=7.0, b=4.0, low=np.nan,
                          high=np.nan, significant=None)])
    assert list(judged["verdict"]) == [findings.NOT_APPLICABLE, findings.NOT_TESTED]


def test_the_threshold_decides_and_an_override_changes_the_verdict(tmp_path):
    row = _row(a=0.040, b=0.050, low=0.004, high=0.016)
    strict = tmp_path / "strict.toml"
    strict.write_text("[kalooki_per_hand]\nthreshold = 0.02\n")
    thresholds = findings.load_thresholds(strict)
    assert thresholds["kalooki_per_hand"].threshold == 0.02
    assert thresholds["kalooki_per_hand"].unit.startswith("Kalookis per hand")  # kept from the defaults
    assert thresholds["hands_per_game"] == findings.load_thresholds()["hands_per_game"]  # the rest unchanged
    assert _judge([row], thresholds).loc[0, "verdict"] == findings.EQUIVALENT  # 0.004-0.016 inside +-0.02


def test_difference_findings_state_what_passes_and_name_the_rest():
    rows = [_row(a=0.040, b=0.080, low=0.03, high=0.05),
            {**_row(a=0.040, b=0.0405, low=-0.01, high=0.011), "profile_b": "unclear"},
            {**_row(a=0.040, b=0.0401, low=-0.0005, high=0.0007), "profile_b": "same"}]
    found = findings.difference_findings(_judge(rows), "base")
    assert len(found) == 1 and found[0].topic == findings.KALOOKI and found[0].stated
    text = found[0].text
    assert text.startswith("other: Kalookis per 1,000 hands 80.0 vs 40.0, +40.0 (95% CI +30.0 to +50.0)")
    assert "same: practically equivalent to base" in text
    assert "unclear: no difference from base established either way" in text
    assert "no practical difference" not in text


def test_every_headline_metric_has_a_threshold_or_is_untested():
    thresholds = findings.load_thresholds()
    for metric, _, _ in metrics.HEADLINE:
        assert metric in thresholds or metrics.KINDS.get(metric) == "test", metric
        assert findings.show(metric).topic in findings.TOPICS
    for name in ("seat_win_rate_gap", "bot_win_rate_gap", "net_payment_per_game"):
        assert thresholds[name].threshold > 0 and thresholds[name].unit


def _seats(estimates, half, n=10_000):
    """Hand win rates by order of play (1st to play, ..., the dealer), each on n hands."""
    return pd.DataFrame({"group": [findings.play_order_label(i + 1, len(estimates)) for i in range(len(estimates))],
                         "n": [n] * len(estimates), "k": [round(e * n) for e in estimates], "estimate": estimates,
                         "ci_low": [e - half for e in estimates], "ci_high": [e + half for e in estimates],
                         "expected": [1 / len(estimates)] * len(estimates)})


def test_places_relative_to_the_dealer_are_named_by_order_of_play():
    assert [findings.play_order_label(k, 4) for k in (1, 2, 3, 4)] == [
        "1st to play", "2nd to play", "3rd to play", "dealer (plays last)"]
    assert findings.play_order_label(4, 6) == "4th to play" and findings.play_order_label(2, 2) == "dealer (plays last)"
    assert findings.play_order_label(11, 12) == "11th to play"
    assert findings.play_order_label(12, 12).startswith("dealer")


def test_seat_advantage_is_judged_three_ways():
    clear = findings.group_advantage(_seats([0.25, 0.25, 0.25, 0.31], 0.01), 0.01)
    assert clear["group"] == "dealer (plays last)" and clear["gap"] == pytest.approx(0.06)
    assert clear["p_value"] < 1e-6
    assert findings.group_advantage(_seats([0.25], 0.01), 0.01) is None
    equal = findings.group_advantage(_seats([0.251, 0.249, 0.252, 0.248], 0.004), 0.01)
    wide = findings.group_advantage(_seats([0.24, 0.26, 0.25, 0.25], 0.03), 0.01)
    seat = findings.advantage_findings({"a": clear, "b": equal, "c": wide}, {"a": None, "b": None, "c": None},
                                       {"a": None, "b": None, "c": None}, {"a": None, "b": None, "c": None})[0]
    assert (clear["clear"], equal["equivalent"], wide["clear"], wide["equivalent"]) == (True, True, False, False)
    assert seat.stated and "a: dealer (plays last) wins 31.0%" in seat.text
    assert "b: no practical advantage by order of play (every position within 1.0 pp of its share" in seat.text
    assert "c: an advantage by order of play is not established (largest gap 1.0 pp; the intervals reach past" \
        in seat.text
    assert not re.search(r"\bseat \d", seat.text), seat.text  # places relative to the dealer are never "seat N"
    assert seat.short == "a: dealer (plays last) wins 31.0% of hands against a fair 25.0%; a clear advantage in 1 " \
                         "of 3 profiles."


def test_a_small_p_value_beside_no_practical_advantage_says_why():
    # 200,000 hands a place, 1st to play 0.5 pp above its share: the chi-square test detects it, but every
    # place lies within the 1 pp threshold, so no practical advantage
    small = findings.group_advantage(_seats([0.255, 0.245, 0.255, 0.245], 0.002, n=200_000), 0.01)
    wide = findings.group_advantage(_seats([0.27, 0.24, 0.25, 0.24], 0.013, n=200_000), 0.01)
    quiet = findings.group_advantage(_seats([0.251, 0.249, 0.25, 0.25], 0.004), 0.01)
    seat = findings.advantage_findings({"s": small, "w": wide, "q": quiet}, {}, {}, {})[0]
    assert small["p_value"] < 0.001 and small["equivalent"] and not small["clear"]
    assert wide["p_value"] < 0.001 and not (wide["clear"] or wide["equivalent"])
    assert quiet["p_value"] > 0.05
    assert findings.detectable_note(small) == (
        "chi-square p <0.001: statistically detectable, but every position is within the practical threshold of "
        "1.0 pp of its share (largest gap 0.5 pp), so not a practical advantage")
    assert findings.detectable_note(wide).startswith("chi-square p <0.001: statistically detectable, but no "
                                                     "position's gap is shown past the practical threshold of 1.0 pp")
    assert findings.detectable_note(quiet) == "" and findings.detectable_note(None) == ""
    assert "s, q: no practical advantage by order of play" in seat.text
    assert "s, chi-square p <0.001: statistically detectable, but every position is within" in seat.text
    assert "w, chi-square p <0.001: statistically detectable, but no position's gap" in seat.text
    assert "q, chi-square" not in seat.text
    # the headline table's p-value of equal wins by order of play carries the same word, never bare
    summary = pd.DataFrame({"profile": ["s", "w", "q"], "metric": ["seat_equal_shares_p"] * 3, "kind": ["test"] * 3,
                            "n": [800_000] * 3, "estimate": [small["p_value"], wide["p_value"], quiet["p_value"]],
                            "ci_low": [np.nan] * 3, "ci_high": [np.nan] * 3, "description": [""] * 3})
    judged = pd.DataFrame(columns=["profile_b", "metric", "verdict", "difference", "kind"])
    _, rows = report.headline_grid(summary, judged, ["s", "w", "q"], "s",
                                   {"s": small, "w": wide, "q": quiet})
    cells = rows[0][1:]
    assert (cells[0].note, cells[0].cls) == ("detectable, below the threshold", "detectable")
    assert (cells[1].note, cells[1].cls) == ("detectable, not shown past the threshold", "detectable")
    assert cells[2].note == "" and cells[2].cls != "detectable"


def test_money_is_judged_three_ways():
    money = pd.DataFrame({"group": ["seat 1", "seat 2"], "n": [1000, 1000], "estimate": [2.0, -0.3],
                          "ci_low": [1.5, -0.9], "ci_high": [2.5, 0.3], "sd": [8.0, 9.0]})
    clear = findings.money_advantage(money, 1.0)  # 2.0, Bonferroni-widened interval about 1.43 to 2.57
    assert [m["group"] for m in clear["clear"]] == ["seat 1"] and not clear["equivalent"]
    unclear = findings.money_advantage(money, 1.5)  # the widened interval reaches inside 1.5
    assert unclear["clear"] == [] and not unclear["equivalent"]
    small = findings.money_advantage(money, 3.0)  # every 90% interval inside +-3
    assert small["clear"] == [] and small["equivalent"]
    found = findings.advantage_findings({}, {}, {}, {"x": clear, "y": unclear, "z": small, "w": None})[-1]
    text = found.text
    assert text.startswith("x: seat 1 +2.00 units a game")
    assert found.short == "Largest: seat 1 in x +2.00 units a game; a clear gain or loss in 1 of 4 profiles."
    assert "z: no seat or bot gains or loses money in practice" in text
    assert "y: who gains or loses money is not established" in text and "w: not applicable" in text


# ---------------------------------------------------------------------------------------------
# the thresholds file


@pytest.mark.parametrize("content, message", [
    ("[kalooki_per_hand\nthreshold = 1", "not valid TOML"),
    ("[no_such_metric]\nthreshold = 1\n", r"unknown metric \[no_such_metric\]; allowed: .*kalooki_per_hand"),
    ("[kalooki_per_hand]\nthreshold = -0.1\n", r"\[kalooki_per_hand\]: threshold must be a number >= 0, got -0.1"),
    ("[kalooki_per_hand]\nthreshold = \"big\"\n", "threshold must be a number >= 0, got 'big'"),
    ("[kalooki_per_hand]\nthreshold = 0.1\nunits = \"x\"\n", "unknown key\\(s\\) units; allowed: threshold, unit"),
    ("kalooki_per_hand = 0.1\n", "expected a table with threshold = NUMBER"),
])
def test_a_bad_thresholds_file_is_refused_with_what_is_wrong(tmp_path, content, message):
    path = tmp_path / "t.toml"
    path.write_text(content)
    with pytest.raises(UserError, match=message):
        findings.load_thresholds(path)


def test_a_missing_thresholds_file_is_refused(tmp_path):
    with pytest.raises(UserError, match="does not exist"):
        findings.load_thresholds(tmp_path / "nope.toml")


def test_report_and_compare_cli_refuse_bad_thresholds_and_baseline(tmp_path, capsys):
    run = write_run(tmp_path / "run", {"alpha": alpha_shards()})
    bad = tmp_path / "bad.toml"
    bad.write_text("[kalooki_per_hand]\nthreshold = -1\n")
    out = tmp_path / "out"
    assert cli.main(["report", str(run), "--out", str(out), "--thresholds", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "bad.toml" in err and "threshold must be a number >= 0" in err and "Traceback" not in err
    assert not out.exists(), "a refused report wrote something"
    assert cli.main(["report", str(run), "--out", str(out), "--baseline", "beta"]) == 2
    assert "--baseline 'beta' is not a profile of the run; choose one of alpha" in capsys.readouterr().err
    assert not out.exists()
    assert cli.main(["compare", str(run), "--profiles", "alpha,alpha", "--out", str(out),
                     "--thresholds", str(tmp_path / "missing.toml")]) == 2
    assert "missing.toml does not exist" in capsys.readouterr().err
    assert not out.exists()


# ---------------------------------------------------------------------------------------------
# runs whose profiles differ by a known amount, and runs where they do not


@pytest.fixture(scope="module")
def two_profile_runs(tmp_path_factory):
    """One run where 'more' has three times the Kalooki rate of 'base' (0.04 vs 0.12 a played hand),
    and one where 'twin' is played to the same specification as 'base'."""
    root = tmp_path_factory.mktemp("findings")
    spec = dict(bench_report.DEFAULT_PROFILES["kalooki40"])
    differ = bench_report.synthesize_run(root / "differ", 60_000, seed=5,
                                         profiles={"base": spec, "more": {**spec, "kalooki_rate": 0.12}})
    same = bench_report.synthesize_run(root / "same", 60_000, seed=6, profiles={"base": spec, "twin": dict(spec)})
    return metrics.compute(differ), metrics.compute(same)


def _findings_of(res):
    thresholds = findings.load_thresholds()
    judged = findings.judge(report.baseline_differences(res, "base"), thresholds)
    return judged.set_index("metric"), {f.topic: f for f in report.findings_list(res, judged, "base", thresholds)}


def test_a_known_kalooki_difference_is_found_with_its_interval(two_profile_runs):
    judged, found = _findings_of(two_profile_runs[0])
    row = judged.loc["kalooki_per_hand"]
    assert row["verdict"] == findings.HIGHER
    assert row["difference"] == pytest.approx(0.08, abs=0.015)  # 0.12 - 0.04 of played hands, ~97% played
    assert row["diff_ci_low"] < row["difference"] < row["diff_ci_high"]
    text = found[findings.KALOOKI].text
    match = re.search(r"more: Kalookis per 1,000 hands ([\d.]+) vs ([\d.]+), \+([\d.]+) \(95% CI \+([\d.]+) to "
                      r"\+([\d.]+)\)", text)
    assert match, text
    assert float(match.group(3)) == pytest.approx(80, abs=15)
    assert float(match.group(4)) < float(match.group(3)) < float(match.group(5))
    assert found[findings.KALOOKI].stated
    # nothing else was changed: no clear difference in the other topics, most shown practically equivalent
    for topic in (findings.OPENING, findings.LENGTH):
        assert not found[topic].stated and found[topic].text.startswith("more: practically equivalent")
    assert found[findings.OPENING].text == "more: practically equivalent to base.", found[findings.OPENING].text


def test_two_profiles_played_alike_show_no_clear_difference_and_equivalence_where_the_data_suffice(two_profile_runs):
    judged, found = _findings_of(two_profile_runs[1])
    assert not judged["verdict"].isin(findings.STATED).any()
    for topic in (findings.OPENING, findings.KALOOKI, findings.ELIMINATION, findings.LENGTH):
        assert not found[topic].stated, found[topic].text
    assert found[findings.OPENING].text == "twin: practically equivalent to base.", found[findings.OPENING].text
    # about 15,000 hands a profile: a Kalooki rate near 40 per 1,000 has a standard error near 2 per 1,000,
    # its threshold, so equal rates cannot be shown equivalent: not established, never "no difference"
    kalooki = judged.loc["kalooki_per_hand"]
    assert kalooki["verdict"] == findings.NOT_ESTABLISHED
    assert kalooki["diff_ci_high"] - kalooki["diff_ci_low"] > 2 * kalooki["threshold"]
    assert found[findings.KALOOKI].text.startswith("twin: no difference from base established either way")


class _Tables(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tables, self.in_nav, self.toc = [], False, []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table":
            self.tables.append({"class": attrs.get("class"), "rows": 0, "cells": []})
        elif tag == "tr" and self.tables:
            self.tables[-1]["rows"] += 1
        elif tag == "nav":
            self.in_nav = True
        elif tag == "a" and self.in_nav:
            self.toc.append(attrs["href"])

    def handle_endtag(self, tag):
        if tag == "nav":
            self.in_nav = False


def test_the_report_has_a_contents_list_and_one_table_of_profiles_by_metrics(two_profile_runs, tmp_path,
                                                                          figures_not_rasterised):
    res = two_profile_runs[0]
    out = tmp_path / "out"
    report.build_report(res, "more").write(out)
    page = _Tables()
    html = (out / "report.html").read_text()
    page.feed(html)
    assert page.toc == ["#findings", "#headline-metrics", "#findings-in-full", "#figures", "#details",
                        "#rules-that-differ", "#methods", "#provenance"]
    for anchor in page.toc:
        assert f'id="{anchor[1:]}"' in html
    grids = [t for t in page.tables if t["class"] == "grid"]
    assert len(grids) == 1 and grids[0]["rows"] == 1 + len(metrics.HEADLINE)
    assert html.index("Play model") < html.index("Contents") < html.index('id="findings"')
    # the baseline given is the marked column; 'base' has fewer Kalookis, marked lower
    assert re.search(r"<th>more<br><small>baseline</small></th>", html)
    assert re.search(r'<td class="lower">[\d.]+ \([\d.]+–[\d.]+\)<br><small>▼ -[\d.]+</small></td>', html)
    assert "differences.png" in " ".join(report.build_report(res).figures)
    # every table outside the one grid is collapsed inside <details>
    body = html[html.index('id="details"'):]
    assert body.count("<details>") >= 6


def test_compare_terminal_table_fits_100_columns(two_profile_runs):
    res = two_profile_runs[0]
    table = compare.compare_results(res, res, [("base", "more")])
    judged = findings.judge(table, findings.load_thresholds())
    text = compare.terminal_table(judged)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 100
    assert lines[0] == "A = base, B = more"
    kalooki = next(line for line in lines if line.startswith("kalooki_per_hand "))
    assert kalooki.rstrip().endswith("B higher")
    assert len([line for line in lines if line.split() and line.split()[0] in dict(
        (m, 1) for m, _, _ in metrics.HEADLINE)]) == len(metrics.HEADLINE)


def test_the_one_table_reads_not_applicable_for_nan_estimates():
    summary = pd.DataFrame({
        "profile": ["base", "other", "base", "other"],
        "metric": ["buy_in_rate", "buy_in_rate", "hands_per_game", "hands_per_game"],
        "kind": ["proportion", "proportion", "mean", "mean"], "n": [200, 0, 300, 300],
        "estimate": [0.6, np.nan, 16.1, 19.6], "ci_low": [0.53, np.nan, 15.6, 18.9],
        "ci_high": [0.67, np.nan, 16.6, 20.3], "description": ["", "", "", ""]})
    judged = _judge([_row("buy_in_rate", a=0.6, b=np.nan, low=np.nan, high=np.nan, significant=None),
                     _row("hands_per_game", "mean", a=16.1, b=19.6, low=2.7, high=4.3)])
    header, rows = report.headline_grid(summary, judged, ["base", "other"], "base")
    assert [c.text for c in header] == ["Metric", "base", "other"] and header[1].note == "baseline"
    buy_in, hands = rows
    assert (buy_in[0].text, buy_in[0].note) == ("Eliminations followed by a buy-in", "buy_in_rate")
    assert buy_in[1].text == "60.0% (53.0–67.0)" and buy_in[1].cls == "base"
    assert (buy_in[2].text, buy_in[2].cls) == (findings.NOT_APPLICABLE, "na")
    assert (hands[2].text, hands[2].note, hands[2].cls) == ("19.60 (18.90–20.30)", "▲ +3.50", findings.HIGHER)


# ---------------------------------------------------------------------------------------------
# play strength: a difference that changes direction, and one that changes only in size


def _compositions(metric: str, kind: str, *diffs) -> pd.DataFrame:
    """Judged per-composition rows of one difference: (table, difference, 95% half-width), 500 games a side."""
    z = sps.t.ppf(0.975, DF)
    rows = pd.DataFrame([{"table": t, "profile_a": "base", "profile_b": "other", "metric": metric, "kind": kind,
                          "estimate_a": 10.0, "estimate_b": 10.0 + d, "difference": d, "diff_ci_low": d - h,
                          "diff_ci_high": d + h, "diff_se": h / z, "diff_df": float(DF), "p_value": 0.01,
                          "in_family": True, "games_a": 500, "games_b": 500} for t, d, h in diffs])
    return findings.judge(rows, findings.load_thresholds())


STRENGTH = {"greedy": 0.0, "expert": 1.0, "lookahead": 1.0}  # three compositions' play strengths, given


def _mark_of(*diffs, strength=STRENGTH):
    return findings.robustness_mark(_compositions("hands_per_game", "mean", *diffs), "hands_per_game", "mean",
                                    strength=strength)


def test_a_difference_higher_at_every_table_is_labelled_by_how_its_size_goes_not_as_depending():
    # kalooki51 hands per game in the sample run: +3.2, +11.0, +4.5, all higher (threshold 0.5 hands)
    mark = _mark_of(("greedy", 3.15, 0.4), ("expert", 11.02, 0.4), ("lookahead", 4.49, 0.5))
    assert mark == (f"{findings.LARGER}: at greedy +3.15, higher; at expert +11.02, higher; "
                    "at lookahead +4.49, higher"), mark
    # the same sizes read the other way round
    assert _mark_of(("greedy", 11.0, 0.4), ("expert", 3.2, 0.4), ("lookahead", 4.5, 0.5)).startswith(
        findings.SMALLER)
    # lower at every table, more so with stronger play: larger in the direction established
    assert _mark_of(("greedy", -1.4, 0.3), ("expert", -9.6, 0.4)).startswith(findings.LARGER)
    # not in step with play strength (or no strength known): the same direction at every table
    assert _mark_of(("greedy", 5.0, 0.3), ("expert", 2.0, 0.3), ("lookahead", 8.0, 0.3)).startswith(
        findings.SAME_DIRECTION)
    assert _mark_of(("casual", 5.0, 0.3), ("strong", 2.0, 0.3), strength=None).startswith(findings.SAME_DIRECTION)
    # clear at one table, crossing 0 but not established at the other, no strength order: size differs
    assert _mark_of(("casual", 5.0, 0.3), ("strong", -0.3, 1.5), strength=None).startswith(findings.SIZE_DIFFERS)
    for mark in (findings.LARGER, findings.SMALLER, findings.SAME_DIRECTION, findings.SIZE_DIFFERS):
        assert findings.varies(mark) and not mark.startswith(findings.DEPENDS)


def test_depends_on_play_strength_is_kept_for_a_change_of_direction():
    assert _mark_of(("greedy", 2.0, 0.3), ("expert", -2.0, 0.3)) == (
        f"{findings.DEPENDS}: at greedy +2.00, higher; at expert -2.00, lower")
    # none clear, but two differences of opposite sign shown further apart than the threshold
    assert _mark_of(("greedy", 1.5, 1.2), ("expert", -1.5, 1.2)).startswith(findings.DEPENDS)
    # clear at one table and practically equivalent at another: the size changes, not the direction
    assert _mark_of(("greedy", 0.05, 0.2), ("expert", 2.0, 0.3)).startswith(findings.LARGER)
    assert findings.robustness_mark(_compositions("hands_per_game", "mean", ("a", 2.0, 0.3), ("b", 2.1, 0.3)),
                                    "hands_per_game", "mean") == findings.ROBUST


def test_table_strength_is_the_mean_rung_of_the_bots_and_follows_the_frontier_ladder():
    from sim import frontier
    assert findings.STRENGTH_LADDER == frontier.LADDER
    assert findings.STRENGTH_LADDER == ("greedy", "expert", "search")
    manifest = {"profiles": {"p": {"tables": [
        {"name": "greedy", "bots": ["greedy"] * 4}, {"name": "expert", "bots": ["expert"] * 4},
        {"name": "search", "bots": ["search", "expert", "expert", "greedy"]},
        {"name": "lookahead", "bots": ["lookahead", "expert", "expert", "greedy"]},  # the lookahead plays as the expert
        {"name": "odd", "bots": ["random", "greedy", "greedy", "greedy"]}]}}}  # random: off the ladder
    assert findings.table_strength(manifest) == {"greedy": 0.0, "expert": 1.0, "search": 1.0, "lookahead": 0.75}


def _marked(*marks):
    """Judged differences of one profile with the given robustness marks, spread in thresholds 1, 2, ..."""
    rows = pd.DataFrame([{**_row("hands_per_game", "mean", a=10.0, b=10.0 + i, low=i - 0.3, high=i + 0.3),
                          "profile_b": "kalooki51"} for i in range(1, len(marks) + 1)])
    judged = _judge(list(rows.to_dict("records")))
    return judged.assign(robustness=list(marks), spread_in_thresholds=[float(i) for i in range(1, len(marks) + 1)])


def test_the_play_strength_finding_tells_direction_from_size_in_one_line():
    size = _marked(f"{findings.LARGER}: at greedy +3.15, higher; at expert +11.02, higher; at lookahead +4.49, higher")
    found = findings.robustness_finding(size, ["greedy", "expert", "lookahead"])
    assert found.short == ("No difference changes direction with the table; 1 changes in size (largest: kalooki51 "
                           "hands per game, mean: +3.15 at greedy to +4.49 at lookahead, larger with stronger "
                           "play)."), found.short
    assert "no difference from the baseline changes direction with play strength" in found.text
    assert "(larger with stronger play: at greedy +3.15" in found.text
    both = _marked(f"{findings.DEPENDS}: at greedy +2.00, higher; at expert -2.00, lower", size.loc[0, "robustness"])
    found = findings.robustness_finding(both, ["greedy", "expert", "lookahead"])
    assert found.short.startswith("1 difference changes direction with the table (e.g. kalooki51 hands per game, "
                                  "mean: -2.00 at expert to +2.00 at greedy); 1 more only in size."), found.short
    assert "depend on play strength (their direction changes" in found.text


def test_a_one_table_run_says_it_cannot_speak_to_play_strength():
    judged = _marked(findings.ONE_TABLE).assign(strong_play=[f"{findings.HIGHER} {findings.STRONG_PLAY}"])
    found = findings.robustness_finding(judged, ["expert"])
    assert found.short == "One table composition (expert): this run cannot speak to play strength."
    strong = findings.strong_play_finding(judged, ["lookahead", "search"])
    assert "none" not in strong.text and "holds at both" not in strong.text
    assert strong.text.startswith("This run plays one table composition, so it cannot speak to play strength")
    assert "clear differences from the baseline at both (1): kalooki51 hands per game (mean) higher" in strong.text
    assert strong.short.startswith("This run cannot speak to play strength, the frontier can: 1 clear difference "
                                   "from the baseline at lookahead and search")


def test_every_one_line_finding_is_short_and_the_full_text_stays():
    judged = _judge([_row(a=0.040, b=0.080, low=0.03, high=0.05),
                     {**_row(a=0.040, b=0.0401, low=-0.0005, high=0.0007), "profile_b": "same"},
                     _mean_row(-1.0, -1.2, -0.8), {**_mean_row(-0.05, -0.1, 0.0), "profile_b": "same"}])
    found = findings.merge(findings.difference_findings(judged, "base"))
    assert {f.topic for f in found} == {findings.KALOOKI, findings.OPENING}
    kalooki = next(f for f in found if f.topic == findings.KALOOKI)
    assert kalooki.short == "Largest: other Kalookis per 1,000 hands 80.0 vs 40.0 (+40.0)."
    assert kalooki.text.startswith("other: Kalookis per 1,000 hands 80.0 vs 40.0, +40.0 (95% CI +30.0 to +50.0)")
    for f in found:
        assert len(f.short) <= 160 and f.short.count(". ") == 0, f.short


def test_the_order_of_play_line_leads_with_the_places_unless_the_dealer_clearly_differs_from_the_baseline():
    unclear = _judge([_row("dealer_hand_win_rate", a=0.25, b=0.251, low=-0.02, high=0.022)])
    clear = _judge([_row("dealer_hand_win_rate", a=0.25, b=0.30, low=0.03, high=0.07)])
    places = findings.advantage_findings({"other": findings.group_advantage(_seats([0.24, 0.26, 0.25, 0.25], 0.03),
                                                                             0.01)}, {}, {}, {})
    line = lambda judged: next(f for f in findings.merge(findings.difference_findings(judged, "base") + places)
                               if f.topic == findings.SEAT).short
    assert line(unclear) == "No clear advantage by order of play: not established in 1 profile."
    assert line(clear) == ("Dealer against the baseline, largest: other dealer's hand win rate 30.0% vs 25.0% "
                           "(+5.0 pp).")
