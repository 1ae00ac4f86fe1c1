"""The report, the comparison and their CLI commands, on hand-made and small synthetic runs."""
from __future__ import annotations

import base64
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from analysis import compare, load, metrics, report
from bench import report as bench_report
from sim import cli
from sim.errors import UserError
from test_analysis import alpha_shards, write_run


class _Page(HTMLParser):
    """Collects tags, image sources and text, and checks every opened tag that needs closing is closed."""
    VOID = {"meta", "img", "br", "hr", "link", "input"}

    def __init__(self):
        super().__init__()
        self.stack, self.images, self.text, self.errors = [], [], [], []

    def handle_starttag(self, tag, attrs):
        if tag == "img":
            self.images.append(dict(attrs)["src"])
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack.pop() != tag:
            self.errors.append(tag)

    def handle_data(self, data):
        self.text.append(data)


def _parse(path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    page.close()
    assert page.errors == [] and page.stack == [], "unbalanced HTML"
    return page


@pytest.fixture
def alpha_run(tmp_path):
    return write_run(tmp_path / "alpha-run", {"alpha": alpha_shards()})


# The report's figures are rendered by the first test below and a comparison's by
# test_compare_flags_a_large_real_difference; the other tests read the pages' text
# (figures_not_rasterised, conftest.py).
REPORT_FIGURES = ["opening_cdf.png", "kalooki_frequency.png", "survival.png", "hands_per_game.png",
                  "seat_advantage.png", "eliminated_by_group.png", "payments_by_group.png", "jokers.png"]


def test_report_writes_a_self_contained_html_and_markdown(alpha_run, tmp_path):
    out = tmp_path / "out"
    html = report.write_report(alpha_run, out)
    page = _parse(html)
    assert len(page.images) == len(REPORT_FIGURES)  # one profile: no differences from a baseline to draw
    for src in page.images:
        assert src.startswith("data:image/png;base64,")
        assert base64.b64decode(src.split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"
    text = " ".join(page.text)
    for expected in ("Play model", "Contents", "Findings", "Findings in full", "Headline metrics", "Figures",
                     "Details", "Opening timing",
                     "Kalooki frequency", "Elimination", "Game shape", "Fairness", "Jokers", "run-test",
                     "kalooki simulate --test", "hash-alpha", "opening_min"):
        assert expected in text, expected
    assert "PARTIAL" not in text
    raw = Path(html).read_text()
    toc = raw[raw.index('<nav class="toc">'):raw.index("</nav>")]
    assert toc.count("<a ") >= 4 and "</a><a" not in toc  # the contents line wraps between its links
    md = (out / "report.md").read_text()
    assert "![" in md and "(figures/opening_cdf.png)" in md
    assert sorted(p.name for p in (out / "figures").iterdir()) == sorted(REPORT_FIGURES)
    assert {p.name for p in (out / "data").iterdir()} >= {"opened_by_round.csv", "survival.csv", "summary.csv"}
    assert not [p for p in out.rglob(".*tmp*")], "temporary files left behind"


def test_report_refuses_an_incomplete_run_unless_partial(tmp_path, figures_not_rasterised):
    run = write_run(tmp_path / "r", {"alpha": alpha_shards()[:1]}, complete=False, shards_planned={"alpha": 2})
    with pytest.raises(UserError, match="(?s)failed verification.*shard\\(s\\) 1 of 2 planned.*--allow-partial"):
        report.write_report(run, tmp_path / "out")
    assert not (tmp_path / "out").exists(), "a refused report wrote something"
    html = report.write_report(run, tmp_path / "out", allow_partial=True)
    text = " ".join(_parse(html).text)
    assert "PARTIAL REPORT" in text and "shard(s) 1 of 2 planned" in text
    assert "> **PARTIAL REPORT" in (tmp_path / "out/report.md").read_text()


def test_partial_report_leaves_out_an_unreadable_file(tmp_path, figures_not_rasterised):
    run = write_run(tmp_path / "r", {"alpha": alpha_shards()})
    (run / "hands/profile=alpha/part-00001.parquet").write_bytes(b"not parquet")
    with pytest.raises(UserError, match="(?s)failed verification.*part-00001.*not readable Parquet"):
        report.write_report(run, tmp_path / "out")
    html = report.write_report(run, tmp_path / "out", allow_partial=True)
    text = " ".join(_parse(html).text)
    assert "PARTIAL REPORT" in text and "part-00001" in text
    assert "8 player-hand rows" in text  # only game 0's rows remain


def test_report_cli_exit_status(alpha_run, tmp_path, capsys, monkeypatch, figures_not_rasterised):
    (tmp_path / "empty").mkdir()
    assert cli.main(["report", str(tmp_path / "empty")]) == 2
    assert "empty" in capsys.readouterr().err
    (tmp_path / "nomanifest/hands").mkdir(parents=True)
    assert cli.main(["report", str(tmp_path / "nomanifest")]) == 2
    assert "no manifest.json" in capsys.readouterr().err
    monkeypatch.chdir(tmp_path)
    assert cli.main(["report", str(alpha_run)]) == 0
    assert (tmp_path / "reports/alpha-run/report.html").is_file()


def test_compare_refuses_different_engine_versions(tmp_path):
    a = write_run(tmp_path / "a", {"alpha": alpha_shards()})
    b = write_run(tmp_path / "b", {"alpha": alpha_shards()}, engine_version="0.2.0")
    with pytest.raises(UserError, match="engine_version"):
        compare.compare(a, b)


@pytest.fixture(scope="module")
def synthetic_runs(tmp_path_factory):
    """Two small synthetic runs of the same profile: equal except for the Kalooki rate."""
    root = tmp_path_factory.mktemp("synthetic")
    spec = dict(bench_report.DEFAULT_PROFILES["kalooki40"])
    low = bench_report.synthesize_run(root / "low", 40_000, seed=1, profiles={"kalooki40": spec},
                                      shard_rows=15_000)
    high = bench_report.synthesize_run(root / "high", 40_000, seed=2,
                                       profiles={"kalooki40": {**spec, "kalooki_rate": 0.12}})
    return low, high


def test_compare_flags_a_large_real_difference(synthetic_runs, tmp_path):
    low, high = synthetic_runs
    assert load.verify_run(low) == [] and load.verify_run(high) == []
    table, html = compare.write_compare(low, high, out_dir=tmp_path / "cmp")
    rows = table.set_index("metric")
    assert bool(rows.loc["kalooki_per_hand", "significant"])
    assert rows.loc["kalooki_per_hand", "difference"] == pytest.approx(0.08, abs=0.02)
    assert rows.loc["kalooki_per_hand", "diff_ci_low"] > 0
    assert "Holm" in rows.loc["kalooki_per_hand", "correction"]
    assert "Welch" in rows.loc["kalooki_per_hand", "test"] and "cluster-robust" in rows.loc["hands_per_game", "test"]
    assert rows.loc["kalooki_per_hand", "design"] == "independent samples"  # seeds 1 and 2
    page = _parse(html)
    assert len(page.images) == 7  # the differences dot plot and six figures
    text = " ".join(page.text)
    assert text.index("Rules that differ") < text.index("Findings") < text.index("Headline metrics")
    assert re.search(r"Kalookis per 1,000 hands:\s+B \(kalooki40\) higher than A \(kalooki40\), 1\d\d\.\d vs", text)
    assert (tmp_path / "cmp/data/comparison.csv").is_file()
    assert rows.loc["kalooki_per_hand", "verdict"] == "higher"


def test_identical_datasets_differ_by_nothing_and_compare_refuses_a_run_with_its_copy(synthetic_runs, tmp_path,
                                                                                      capsys):
    low, _ = synthetic_runs
    copy = tmp_path / "copy"
    import shutil
    shutil.copytree(low, copy)
    res_a, res_b = (metrics.compute(metrics.load_run(d)) for d in (low, copy))
    table = compare.compare_results(res_a, res_b, [("kalooki40", "kalooki40")])
    tested = table[table["kind"].isin(["proportion", "mean"])]
    assert not tested["significant"].fillna(False).any()
    assert (tested["difference"].dropna() == 0).all()
    assert (tested["p_value"].dropna() == 1).all()
    # the command refuses it: every test would be "untested", which says nothing
    for b in (copy, low):
        out = tmp_path / f"cmp-{b.name}"
        assert cli.main(["compare", str(low), str(b), "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert "the same run" in err and "or this one with another run of kalooki40" in err and "Traceback" not in err
        assert err.count("\n") == 1 and not out.exists()


def test_compare_two_profiles_of_one_run_and_the_cli(tmp_path, capsys, monkeypatch, figures_not_rasterised):
    from test_analysis import ALPHA_GAMES, ALPHA_HANDS, games_rows, hands_rows
    beta = [(hands_rows(ALPHA_HANDS, profile="beta"), games_rows(ALPHA_GAMES, profile="beta"))]
    run = write_run(tmp_path / "two", {"alpha": alpha_shards(), "beta": beta})
    table = compare.compare(run, None, "alpha,beta")
    assert set(table["profile_a"]) == {"alpha"} and set(table["profile_b"]) == {"beta"}
    assert not table["significant"].fillna(False).any()
    with pytest.raises(UserError, match="two profile names"):
        compare.compare(run, None, "alpha")
    monkeypatch.chdir(tmp_path)
    assert cli.main(["compare", str(run), "--profiles", "alpha,beta"]) == 0
    printed = capsys.readouterr().out
    assert "p_can_open_at_deal" in printed and "Holm" in printed
    assert (tmp_path / "reports/compare-two-alpha-vs-beta/report.html").is_file()


def test_compare_refuses_a_profile_against_itself_within_one_run(alpha_run):
    with pytest.raises(UserError, match="--profiles alpha,alpha compares a profile of one run with itself"):
        compare.compare(alpha_run, None, "alpha,alpha")


@pytest.mark.slow  # three child processes; the slow tier's entry-point test covers its repeated-shards path
def test_bench_report_runs_end_to_end():
    result = bench_report.run(rows=20_000)
    assert result["rows"] == pytest.approx(20_000, rel=0.1)
    stored = result["from_summaries"]
    assert stored["report_wall_s"] > 0 and stored["report_peak_rss_mb"] > 0
    assert result["same_tables"] is True


def test_error_bars_survive_rounding_at_zero_and_one():
    # Wilson intervals of k = 0 or k = n can miss the estimate by ~1e-17; the figure must still draw
    import pandas as pd

    from analysis import plots
    frame = pd.DataFrame({"profile": ["p", "p"], "dealt_jokers": [0, 4], "n": [3, 3], "k": [0, 3],
                          "estimate": [0.0, 1.0], "ci_low": [5.5e-17, 0.43], "ci_high": [0.56, 1.0 - 1e-16]})
    fig, ax = plots.new_figure()
    assert plots.win_by_jokers(ax, frame) is ax
