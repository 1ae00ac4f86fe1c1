"""`kalooki sweep`: a grid of runs through the runner; findings, one table and one figure of small multiples."""
import contextlib
import io
import json
import re

import numpy as np
import pandas as pd
import pyarrow.dataset as ds
import pytest
from scipy import stats as sps

from analysis import findings, metrics, plots, stats
from analysis.sweep import KEY_METRICS, end_differences, largest_step, load_sweep
from sim.cli import main

# a report's figures drawn but not rendered, but for this file's own (conftest.py)
pytestmark = pytest.mark.usefixtures("figures_not_rasterised_in_module")
RASTERISED = {"sweep"}

GRID = (30, 45, 60)


def _sweep(runs, out, *extra, seed="2", grid=GRID, games="12"):
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        rc = main(["sweep", "--profile", "kalooki40", "--param", "opening_min=" + ",".join(map(str, grid)),
                   "--games", games, "--seed", seed, "--local", "--runs", str(runs), "--out", str(out), *extra])
    assert rc == 0
    return printed.getvalue()


@pytest.fixture(scope="module")
def paired_sweep(tmp_path_factory):
    """One small --paired sweep over three values, shared by the tests below."""
    root = tmp_path_factory.mktemp("sweep")
    printed = _sweep(root / "runs", root / "rep", "--paired")
    return root, printed


@contextlib.contextmanager
def _sweep_figure_not_rendered():
    """For a sweep whose tests read its page's text: the small multiples drawn but not rendered (the
    first test below renders them), each standing as the PNG signature alone."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(plots, "png_bytes", lambda fig, dpi=100: b"\x89PNG\r\n\x1a\n")
        yield


@pytest.fixture(scope="module")
def paired_ends(paired_sweep):
    """The paired sweep's runs loaded again (the profile's default, 40, given) and the differences of
    its end values."""
    root, _ = paired_sweep
    sweep = load_sweep({v: root / "runs" / f"opening_min={v}" for v in GRID}, "opening_min", default=40)
    return sweep, end_differences(sweep, findings.default_thresholds())


def _hands_played(run_dir) -> pd.Series:
    """Hands played per game (the games table has a row per seat), by game_id."""
    games = ds.dataset(run_dir / "games", format="parquet").to_table().to_pandas()
    return games.groupby("game_id")["hands_played"].first().sort_index()


def test_sweep_page_has_findings_one_table_and_one_figure(paired_sweep):
    root, printed = paired_sweep
    for v in GRID:
        assert (root / "runs" / f"opening_min={v}" / "manifest.json").exists()
    html = (root / "rep" / "report.html").read_text()
    assert html.index('id="findings"') < html.index('<table class="grid">') < html.index("<img")
    assert html.count("<table") == 1 and html.count("<img") == 1  # one table, one figure of small multiples
    assert "Design: paired by game" in html and "opening_min=40" not in html  # the columns are the grid's
    assert "profile default" not in html and "the profile&#x27;s default (40)" in html  # 40: not in the grid
    assert (root / "rep" / "figures" / "sweep.png").is_file() and (root / "rep" / "data" / "summary.csv").is_file()
    long = pd.read_csv(root / "rep" / "data" / "summary.csv")
    assert sorted(long["value"].unique()) == list(GRID) and set(KEY_METRICS) <= set(long["metric"])
    lines = printed.splitlines()
    assert all(len(line) <= 100 for line in lines), [line for line in lines if len(line) > 100]
    assert "paired by game" in lines[0] and "seed 2" in lines[0] and lines[-1].startswith("report: ")
    row = next(line for line in lines if line.startswith("Can open with the dealt hand"))
    shares = [float(x) for x in re.findall(r"(\d+\.\d)%", row)[:3]]
    assert shares[0] > shares[2]  # a higher opening minimum is harder to reach at the deal


def test_profile_default_column_is_marked(mix_sweep):
    html = (mix_sweep / "rep" / "report.html").read_text()
    assert "<th>opening_min=40<br><small>profile default</small></th>" in html
    assert "<th>opening_min=60</th>" in html


def test_findings_numbers_equal_a_direct_computation(paired_sweep, paired_ends):
    """The end values' estimates are each run's own summary; hands per game's difference and its paired
    interval are the mean and t interval of per-game differences read straight from the games tables."""
    root, _ = paired_sweep
    runs = {v: root / "runs" / f"opening_min={v}" for v in GRID}
    ends = paired_ends[1].set_index("metric")
    low, high = metrics.summary(runs[30]).set_index("metric"), metrics.summary(runs[60]).set_index("metric")
    for m in KEY_METRICS:
        assert ends.loc[m, "estimate_a"] == pytest.approx(low.loc[m, "estimate"], nan_ok=True)
        assert ends.loc[m, "estimate_b"] == pytest.approx(high.loc[m, "estimate"], nan_ok=True)
        assert ends.loc[m, "difference"] == pytest.approx(high.loc[m, "estimate"] - low.loc[m, "estimate"],
                                                          nan_ok=True)
    per_game = _hands_played(runs[60]) - _hands_played(runs[30])
    n = len(per_game)
    half = sps.t.ppf(0.975, n - 1) * per_game.std(ddof=1) / np.sqrt(n)
    row = ends.loc["hands_per_game"]
    assert row["difference"] == pytest.approx(per_game.mean())
    assert (row["diff_ci_low"], row["diff_ci_high"]) == pytest.approx((per_game.mean() - half, per_game.mean() + half))
    # the page says the same numbers
    text = (root / "rep" / "report.md").read_text()
    findings_text = text[text.index("## Findings"):text.index("## Key metrics")]
    r = ends.loc["p_can_open_at_deal"]
    for value in (r["estimate_a"], r["estimate_b"]):
        assert findings.fmt_value("p_can_open_at_deal", value) in findings_text
    assert findings.fmt_difference("hands_per_game", row["difference"], row["diff_ci_low"],
                                   row["diff_ci_high"], "mean").split(" (")[0] in findings_text


def test_the_largest_step_is_named_only_when_it_is_clear():
    steps = pd.DataFrame({"metric": "hands_per_game", "value_a": [30, 40], "value_b": [40, 50],
                          "difference": [-0.4, -2.0], "diff_ci_low": [-0.9, -2.6], "diff_ci_high": [0.1, -1.4],
                          "significant": pd.array([False, True], dtype="boolean")})
    assert largest_step(steps, "hands_per_game")["value_a"] == 40
    steps.loc[1, "significant"] = False
    assert largest_step(steps, "hands_per_game") is None
    assert largest_step(steps.iloc[:1], "hands_per_game") is None  # one step is the whole change


def test_findings_are_holm_corrected_over_the_key_metrics(paired_ends):
    _, ends = paired_ends
    tested = ends[ends["in_family"]]
    assert set(ends["metric"]) == set(KEY_METRICS)
    m = len(tested)
    holm = np.minimum(1, np.maximum.accumulate(np.sort(tested["p_value"].to_numpy()) * (m - np.arange(m))))
    assert np.allclose(np.sort(tested["p_adjusted"].to_numpy()), holm)
    assert (ends["correction"] == f"{stats.CORRECTION_NAME}, over {m} tests").all()


def test_paired_differences_are_narrower_than_unpaired_on_the_same_data(tmp_path):
    """A one-point step of opening_min leaves most of game g the same at both values: the per-game
    differences give intervals much narrower than the unpaired ones of the same runs."""
    with _sweep_figure_not_rendered():
        _sweep(tmp_path / "runs", tmp_path / "rep", "--paired", grid=(40, 41), games="12")
    sweep = load_sweep({v: tmp_path / "runs" / f"opening_min={v}" for v in (40, 41)}, "opening_min")
    assert sweep.paired
    ends = end_differences(sweep, findings.default_thresholds())
    tested = ends[ends["diff_ci_low"].notna()]
    assert len(tested) == len(KEY_METRICS) and tested["design"].str.startswith("paired by game").all()
    paired, unpaired = tested["diff_ci_high"] - tested["diff_ci_low"], tested["unpaired_ci_high"] - tested[
        "unpaired_ci_low"]
    ratio = (paired / unpaired).set_axis(tested["metric"])
    assert ratio.median() < 0.8 and ratio["p_can_open_at_deal"] < 0.8, ratio  # the deals are common
    html = (tmp_path / "rep" / "report.html").read_text()
    assert "Design: paired by game" in html and "of the unpaired width of the same data" in html
    assert "--paired: the same cards at every value" in html


def test_runs_of_different_seeds_are_compared_as_independent_samples(paired_sweep, tmp_path):
    root, _ = paired_sweep
    other = tmp_path / "opening_min=60"  # a run of another seed, as a sweep of seed 5 makes its grid's runs
    assert main(["simulate", "--profile", "kalooki40", "--set", "opening_min=60", "--games", "12", "--seed", "5",
                 "--local", "--quiet", "--out", str(other)]) == 0
    sweep = load_sweep({30: root / "runs" / "opening_min=30", 60: other}, "opening_min")
    assert not sweep.paired
    ends = end_differences(sweep, findings.default_thresholds()).set_index("metric")
    r = ends.loc["hands_per_game"]
    assert r["design"] == "independent samples"
    assert (r["diff_ci_low"], r["diff_ci_high"]) == pytest.approx((r["unpaired_ci_low"], r["unpaired_ci_high"]))
    a, b = _hands_played(root / "runs" / "opening_min=30"), _hands_played(other)
    welch = sps.ttest_ind(b, a, equal_var=False).confidence_interval(0.95)
    assert (r["diff_ci_low"], r["diff_ci_high"]) == pytest.approx((welch.low, welch.high))


def test_sweep_refuses_bad_grids(tmp_path, capsys):
    for param, msg in [("nonsense=1,2", "unknown parameter"), ("ace_low=1,2", "numeric"),
                       ("opening_min=30,x", "not an integer"), ("opening_min=-5,40", "out of range"),
                       ("opening_min=40", "at least two values"), ("opening_min=40,30,40", "twice")]:
        rc = main(["sweep", "--param", param, "--games", "2", "--local", "--runs", str(tmp_path / "r"),
                   "--out", str(tmp_path / "o")])
        assert rc == 2 and msg in capsys.readouterr().err
        assert not (tmp_path / "r").exists()


@pytest.fixture(scope="module")
def mix_sweep(tmp_path_factory):
    """A --paired sweep at a table mix over the profile's default (40) and 60."""
    root = tmp_path_factory.mktemp("mix")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed), _sweep_figure_not_rendered():
        rc = main(["sweep", "--profile", "kalooki40", "--param", "opening_min=40,60", "--games", "6", "--seed", "3",
                   "--tables", "a=greedy,greedy,greedy,greedy:1; b=greedy,greedy,greedy,patient:1", "--paired",
                   "--local", "--runs", str(root / "runs"), "--out", str(root / "rep")])
    assert rc == 0, printed.getvalue()
    return root


def test_sweep_takes_a_table_mix_and_common_deals(mix_sweep):
    runs, out = mix_sweep / "runs", mix_sweep / "rep"
    tables = {}
    for v in (40, 60):
        m = json.loads((runs / f"opening_min={v}" / "manifest.json").read_text())
        assert m["config"]["paired"] is True and [t["name"] for t in m["config"]["tables"]] == ["a", "b"]
        g = ds.dataset(runs / f"opening_min={v}" / "games", format="parquet").to_table().to_pandas()
        tables[v] = g.groupby("game_id")["table"].first()
    assert tables[40].equals(tables[60])  # paired: game g draws the same composition at every grid value
    page = (out / "report.md").read_text()
    assert "tables a = greedy,greedy,greedy,greedy (weight 1)" in page and "--paired" in page


def test_sweep_refuses_common_deals_over_a_pack_parameter(tmp_path, capsys):
    rc = main(["sweep", "--profile", "kalooki40", "--param", "jokers=2,4", "--games", "2", "--paired", "--local",
               "--runs", str(tmp_path / "r"), "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert rc == 2 and "cannot be dealt the same cards" in err and "pack: 106 cards" in err, err
    assert not (tmp_path / "r").exists()


def test_sweep_findings_give_each_change_one_of_three_verdicts():
    from analysis.sweep import Sweep, sweep_findings

    def row(metric, kind, a, d, half):
        se = half / sps.t.ppf(0.975, 500)
        return {"profile_a": "kalooki40", "profile_b": "kalooki40", "metric": metric, "kind": kind,
                "estimate_a": a, "ci_low_a": np.nan, "ci_high_a": np.nan, "estimate_b": a + d, "ci_low_b": np.nan,
                "ci_high_b": np.nan, "difference": d, "diff_ci_low": d - half, "diff_ci_high": d + half,
                "diff_se": se, "diff_df": 500.0, "in_family": True}
    ends = findings.judge(pd.DataFrame([row("hands_per_game", "mean", 15.0, -3.0, 0.5),  # past the threshold 0.5
                                        row("rounds_per_hand", "mean", 9.0, 0.05, 0.2),  # inside it
                                        row("mean_open_round", "mean", 3.0, 0.6, 0.9)]),  # spans it
                          findings.default_thresholds())
    assert list(ends["verdict"]) == [findings.LOWER, findings.EQUIVALENT, findings.NOT_ESTABLISHED]
    sweep = Sweep("kalooki40", "opening_min", [30, 51], {}, paired=False)
    leads = dict(sweep_findings(sweep, ends, ends.iloc[0:0]))
    assert leads["Hands per game, mean:"].startswith("falls from 15.00 at opening_min=30 to 12.00 at opening_min=51")
    assert leads["Practically unchanged from opening_min=30 to 51 (inside the threshold, TOST):"].startswith(
        "rounds per played hand, mean 9.00 to 9.05")
    unclear = leads["Not established from opening_min=30 to 51 (the data cannot tell):"]
    assert unclear.startswith("opening turn, mean 3.00 to 3.60") and "the interval reaches past ±0.50" in unclear
