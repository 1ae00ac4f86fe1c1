"""Findings and practical thresholds: the judging rule on hand-made difference tables, the thresholds
file and its validation, and the findings of synthetic runs whose profiles differ by a known amount
or do not differ at all."""
from __future__ import annotations

import re
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

from analysis import compare, findings, metrics, report
from bench import report as bench_report
from sim import cli
from sim.errors import UserError
from test_analysis import alpha_shards, write_run


def _row(metric="kalooki_per_hand", kind="proportion", a=0.040, b=0.050, low=0.004, high=0.016, significant=True):
    return {"profile_a": "base", "profile_b": "other", "metric": metric, "kind": kind, "estimate_a": a,
            "estimate_b": b, "difference": b - a, "diff_ci_low": low, "diff_ci_high": high,
            "p_value": 0.001, "p_adjusted": 0.01, "significant": significant}


def _judge(rows, thresholds=None):
    table = pd.DataFrame(rows)
    table["significant"] = pd.array(table["significant"], dtype="boolean")
    return findings.judge(table, findings.load_thresholds() if thresholds is None else thresholds)


# ---------------------------------------------------------------------------------------------
# the judging rule


def test_a_clear_difference_past_the_threshold_is_stated():
    judged = _judge([_row(a=0.040, b=0.050, low=0.004, high=0.016)])  # +10 per 1,000 hands; threshold 2
    assert judged.loc[0, "verdict"] == findings.HIGHER
    assert judged.loc[0, "threshold"] == pytest.approx(0.002)
    lower = _judge([_row(metric="mean_open_round", kind="mean", a=3.5, b=2.5, low=-1.2, high=-0.8)])
    assert lower.loc[0, "verdict"] == findings.LOWER


def test_a_significant_difference_smaller_than_the_threshold_is_no_practical_difference():
    # 0.2 Kalookis per 1,000 hands, significant with a huge sample: not a practical difference
    judged = _judge([_row(a=0.0151, b=0.0153, low=0.0001, high=0.0003)])
    assert judged.loc[0, "verdict"] == findings.NO_PRACTICAL


def test_a_large_difference_that_is_not_clear_is_no_practical_difference():
    not_significant = _judge([_row(a=0.040, b=0.050, low=-0.002, high=0.022, significant=False)])
    assert not_significant.loc[0, "verdict"] == findings.NO_PRACTICAL
    # flagged significant but the interval still touches 0: not stated either
    touching = _judge([_row(a=0.040, b=0.050, low=0.0, high=0.02, significant=True)])
    assert touching.loc[0, "verdict"] == findings.NO_PRACTICAL


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
    assert _judge([row], thresholds).loc[0, "verdict"] == findings.NO_PRACTICAL


def test_difference_findings_state_what_passes_and_name_the_rest():
    rows = [_row(a=0.040, b=0.080, low=0.03, high=0.05),
            {**_row(a=0.040, b=0.0405, low=-0.01, high=0.011, significant=False), "profile_b": "quiet"}]
    found = findings.difference_findings(_judge(rows), "base")
    assert len(found) == 1 and found[0].topic == findings.KALOOKI and found[0].stated
    text = found[0].text
    assert text.startswith("other: Kalookis per 1,000 hands 80.0 vs 40.0, +40.0 (95% CI +30.0 to +50.0)")
    assert "quiet: no practical difference from base" in text


def test_every_headline_metric_has_a_threshold_or_is_untested():
    thresholds = findings.load_thresholds()
    for metric, _, _ in metrics.HEADLINE:
        assert metric in thresholds or metrics.KINDS.get(metric) == "test", metric
        assert findings.show(metric).topic in findings.TOPICS
    for name in ("seat_win_rate_gap", "bot_win_rate_gap", "net_payment_per_game"):
        assert thresholds[name].threshold > 0 and thresholds[name].unit


def test_group_advantage_and_money():
    fair = pd.DataFrame({"group": ["seat 1", "seat 2", "seat 3", "seat 4 (dealer)"], "n": [10_000] * 4,
                         "k": [2500, 2500, 2500, 3100], "estimate": [0.25, 0.25, 0.25, 0.31],
                         "ci_low": [0.24, 0.24, 0.24, 0.30], "ci_high": [0.26, 0.26, 0.26, 0.32],
                         "expected": [0.25] * 4})
    top = findings.group_advantage(fair, 0.01)
    assert top["group"] == "seat 4 (dealer)" and top["gap"] == pytest.approx(0.06) and top["p_value"] < 1e-6
    assert findings.group_advantage(fair.iloc[:1], 0.01) is None
    money = pd.DataFrame({"group": ["seat 1", "seat 2"], "n": [1000, 1000], "estimate": [2.0, -0.3],
                          "ci_low": [1.5, -0.9], "ci_high": [2.5, 0.3], "sd": [8.0, 9.0]})
    assert [m["group"] for m in findings.money_advantage(money, 1.0)] == ["seat 1"]
    assert findings.money_advantage(money, 3.0) == []  # clear, but smaller than the threshold


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
    # nothing else was changed: the other topics report no practical difference
    for topic in (findings.OPENING, findings.LENGTH):
        assert found[topic].text == "more: no practical difference from base.", found[topic].text


def test_two_profiles_played_alike_show_no_practical_difference(two_profile_runs):
    judged, found = _findings_of(two_profile_runs[1])
    assert not judged["verdict"].isin(findings.STATED).any()
    for topic in (findings.OPENING, findings.KALOOKI, findings.ELIMINATION, findings.LENGTH):
        assert found[topic].text.startswith("twin: no practical difference from base."), found[topic].text
        assert not found[topic].stated
    assert "no practical bot advantage" in found[findings.BOT].text


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


def test_the_report_has_a_contents_list_and_one_table_of_profiles_by_metrics(two_profile_runs, tmp_path):
    res = two_profile_runs[0]
    out = tmp_path / "out"
    report.build_report(res, "more").write(out)
    page = _Tables()
    html = (out / "report.html").read_text()
    page.feed(html)
    assert page.toc == ["#findings", "#headline-metrics", "#figures", "#details", "#rules-that-differ", "#methods",
                        "#provenance"]
    for anchor in page.toc:
        assert f'id="{anchor[1:]}"' in html
    grids = [t for t in page.tables if t["class"] == "grid"]
    assert len(grids) == 1 and grids[0]["rows"] == 1 + len(metrics.HEADLINE)
    assert html.index("Play model") < html.index("Contents") < html.index('id="findings"')
    # the baseline given is the marked column; 'base' has fewer Kalookis, marked lower
    assert re.search(r"<th>more<br><small>baseline</small></th>", html)
    assert re.search(r'<td class="lower">[\d.]+ \([\d.]+–[\d.]+\) <small>▼ -[\d.]+</small></td>', html)
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
