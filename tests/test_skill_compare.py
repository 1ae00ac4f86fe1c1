"""Skill and luck compared: two profiles' measures differenced over bootstrap replicates (paired by deal
or independent) and judged against their thresholds, on constructed games whose answer is known; then
on the engine through `compare` (two skill studies, two profiles of one), `sweep --skill` and the
balance report's section (present with a study, absent without)."""
import contextlib
import io
import json

import numpy as np
import pandas as pd
import pytest

from analysis import findings, stats
from analysis import skill as S
from sim.cli import main
from test_skill_fit import _diluted

# a report's figures drawn but not rendered, but for the skill study's own (conftest.py)
pytestmark = pytest.mark.usefixtures("figures_not_rasterised_in_module")
RASTERISED = {"skill_coin_flip_share"}


def _judged(a, b, paired, boot=200, seed=1):
    rows, reps = S.measure_difference(a, b, paired, boot, seed)
    rows.insert(0, "profile_b", "b")
    rows.insert(0, "profile_a", "a")
    return S.judge_differences(rows, {(("a", "b", m)): d for m, d in reps.items()},
                               findings.default_thresholds()).set_index("measure")


def test_bootstrap_tests_read_the_percentile_intervals():
    rng = np.random.default_rng(3)
    past = rng.normal(1.0, 0.1, 1000)  # 95% interval about 0.8-1.2
    # no replicate inside the threshold: p = 2 (0 + 1) / (1000 + 1), never 0
    assert stats.bootstrap_threshold_tests(1.0, past, 0.5)[0] == pytest.approx(2 / 1001)
    assert stats.bootstrap_threshold_tests(1.0, past, 1.0)[0] > 0.5
    assert stats.bootstrap_threshold_tests(-1.0, -past, 0.5)[0] == pytest.approx(2 / 1001)
    near = rng.normal(0.0, 0.1, 1000)
    assert stats.bootstrap_threshold_tests(0.0, near, 0.5)[1] == pytest.approx(1 / 1001)  # 90% interval inside
    assert stats.bootstrap_threshold_tests(0.0, near, 0.1)[1] > 0.1
    assert all(np.isnan(stats.bootstrap_threshold_tests(0.1, [np.nan], 0.5)))


def test_more_luck_is_a_clear_difference_against_the_thresholds():
    rng = np.random.default_rng(21)
    lucky = S.measure(_diluted(2000, 0.8, rng), boot=0)
    skilled = S.measure(_diluted(2000, 0.2, rng), boot=0)
    d = _judged(lucky, skilled, paired=False)
    assert d.loc["coin_flip_share", "difference"] == pytest.approx(-0.6, abs=0.08)
    assert d.loc["coin_flip_share", "diff_ci_high"] < -findings.default_thresholds()["skill_coin_flip_share"].threshold
    assert d.loc["coin_flip_share", "verdict"] == findings.LOWER
    assert d.loc["adjacent_win", "verdict"] == findings.HIGHER
    assert d.loc["spread_elo", "verdict"] == findings.NOT_TESTED  # the spread in other units
    assert set(d["design"]) == {"independent"}
    assert d.loc["luck_share", "verdict"] == findings.NOT_TESTED  # the coin-flip share on another scale
    assert "over 3 measures" in d["correction"].iloc[0]  # no money: no pay measures


def test_the_same_deals_paired_differ_by_nothing_and_are_practically_equivalent():
    """Two sides holding the same games: paired, every replicate resamples the same deals on both, so
    every difference is 0; apart, the replicates differ and the interval has width."""
    games = _diluted(800, 0.5, np.random.default_rng(22))
    a, b = S.measure(games, boot=0), S.measure(games, boot=0)
    paired = _judged(a, b, paired=True)
    assert set(paired["design"]) == {"paired by deal"}
    assert (paired["diff_ci_low"] == 0).all() and (paired["diff_ci_high"] == 0).all()
    assert paired.loc["coin_flip_share", "verdict"] == findings.EQUIVALENT
    apart = _judged(a, b, paired=False)
    assert apart.loc["coin_flip_share", "diff_ci_high"] - apart.loc["coin_flip_share", "diff_ci_low"] > 0.02


def test_paired_needs_the_same_deals():
    rng = np.random.default_rng(23)
    a = S.measure(_diluted(400, 0.5, rng), boot=0)
    b = S.measure(_diluted(800, 0.5, rng), boot=0)  # twice the deals
    assert set(_judged(a, b, paired=True, boot=20)["design"]) == {"independent"}


# ---------------------------------------------------------------------------------------------
# on the engine


def _cli(*argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = main(list(argv))
    return rc, out.getvalue()


@pytest.fixture(scope="module")
def studies(tmp_path_factory):
    """Two tiny studies of east_coast and kalooki40 from one seed (one with a rule changed), a third
    with other players, and a plain run holding a study in its skill/ folder."""
    root = tmp_path_factory.mktemp("skillcmp")
    common = ["--players", "expert,random", "--games", "16", "--boot", "100", "--local", "-q", "--seed", "3"]
    for name, extra in (("base", []), ("changed", ["--set", "opening_min=60"])):
        rc, _ = _cli("skill", "--profile", "east_coast", "--profile", "kalooki40", *common, *extra,
                     "--out", str(root / name))
        assert rc == 0
    rc, _ = _cli("skill", "--profile", "east_coast", "--players", "expert,greedy", "--games", "8", "--boot", "10",
                 "--local", "-q", "--out", str(root / "others"))
    assert rc == 0
    assert _cli("simulate", "--profile", "east_coast", "--games", "4", "--seed", "1", "--local", "-q", "--out",
                str(root / "plain"))[0] == 0
    return root


def test_compare_of_two_skill_studies_shows_differences_intervals_and_verdicts(studies, figures_not_rasterised):
    rc, printed = _cli("compare", str(studies / "base" / "skill"), str(studies / "changed" / "skill"), "--out", str(studies / "cmp"))
    assert rc == 0
    assert "Skill and luck, A = east_coast, B = east_coast (paired by deal, 100 bootstrap replicates)" in printed
    table = pd.read_csv(studies / "cmp" / "data" / "skill_differences.csv")
    assert set(table["profile_a"]) == {"east_coast", "kalooki40"}
    assert table[["difference", "diff_ci_low", "diff_ci_high"]].notna().all().all()
    assert (table["diff_ci_low"] <= table["diff_ci_high"]).all()
    assert set(table["verdict"]) <= set(findings.THREE_WAY) | {findings.NOT_TESTED}
    assert set(table["design"]) == {"paired by deal"}  # one seed: deal d dealt alike in both
    headline = pd.read_csv(studies / "cmp" / "data" / "comparison.csv")  # the runs' metrics, clustered by deal
    tested = headline[headline["p_value"].notna()]
    assert len(tested) and tested["design"].str.startswith("paired by deal (4 deals)").all(), set(tested["design"])
    assert "Skill and luck" in (studies / "cmp" / "report.html").read_text()


def test_compare_two_profiles_of_one_study(studies, figures_not_rasterised):
    rc, printed = _cli("compare", str(studies / "base" / "skill"), "--profiles", "east_coast,kalooki40", "--out",
                       str(studies / "cmp1"))
    assert rc == 0
    assert "Skill and luck, A = east_coast, B = kalooki40 (paired by deal" in printed


def test_compare_of_studies_with_other_players_says_so_and_leaves_skill_out(studies, figures_not_rasterised):
    rc, printed = _cli("compare", str(studies / "base" / "skill"), str(studies / "others" / "skill"), "--out", str(studies / "cmp2"))
    assert rc == 0
    assert "Skill and luck not compared: the studies measured different players" in printed
    assert not (studies / "cmp2" / "data" / "skill_differences.csv").exists()


def test_report_has_the_skill_section_only_with_a_study(studies):
    plain = studies / "plain"
    assert _cli("report", str(plain), "--out", str(studies / "rep0"))[0] == 0
    assert "Skill and luck" not in (studies / "rep0" / "report.md").read_text()
    assert _cli("skill", "--profile", "east_coast", "--players", "expert,random", "--games", "8", "--boot", "20",
                "--local", "-q", "--out", str(plain))[0] == 0
    assert _cli("report", str(plain), "--out", str(studies / "rep1"))[0] == 0
    text = (studies / "rep1" / "report.md").read_text()
    assert "## Skill and luck" in text and "figures/skill_coin_flip_share.png" in text
    figure = (studies / "rep1" / "figures" / "skill_coin_flip_share.png").read_bytes()
    assert figure[:4] == b"\x89PNG" and len(figure) > 5_000  # rendered
    section = text.split("## Skill and luck")[1].split("\n## ")[0]
    assert "east_coast" in section and "One profile measured" in section
    assert "in the order their fitted ratings put them" in section  # measured, not the order named
    assert "east_coast, measured order (by fitted rating" in section and "by design" not in section
    assert _cli("report", str(studies / "base" / "skill"), "--out", str(studies / "rep2"))[0] == 0  # a study run itself
    assert "## Skill and luck" in (studies / "rep2" / "report.md").read_text()


def test_sweep_with_skill_measures_every_value_and_judges_the_change(tmp_path, figures_not_rasterised):
    rc, printed = _cli("sweep", "--profile", "east_coast", "--param", "opening_min=30,60", "--games", "16",
                       "--skill", "expert,random", "--boot", "50", "--local", "-q", "--runs", str(tmp_path / "runs"),
                       "--out", str(tmp_path / "rep"))
    assert rc == 0
    assert "Skill and luck, A = opening_min=30, B = opening_min=60 (paired by deal, 50 bootstrap replicates)" \
        in printed
    for v in (30, 60):
        meta = json.loads((tmp_path / "runs" / f"opening_min={v}" / "skill" / "skill.json").read_text())
        assert meta["players"] == ["expert", "random"] and meta["boot"] == 50
    table = pd.read_csv(tmp_path / "rep" / "data" / "skill_differences.csv")
    assert table[["diff_ci_low", "diff_ci_high"]].notna().all().all()
    assert "## Skill and luck" in (tmp_path / "rep" / "report.md").read_text()


@pytest.mark.parametrize("args, says", [
    (["--skill", "expert,random", "--bots", "greedy"], "--bots with --skill"),
    (["--skill", "expert,random", "--paired"], "--paired with --skill"),
    (["--skill", "expert,wizard"], "unknown bot 'wizard'"),
    (["--boot", "10"], "--boot: the bootstrap is --skill's"),
])
def test_sweep_skill_bad_input_is_one_line(tmp_path, capsys, args, says):
    rc = main(["sweep", "--profile", "east_coast", "--param", "opening_min=30,60", "--games", "8", "--local", "-q",
               "--runs", str(tmp_path / "runs"), "--out", str(tmp_path / "rep"), *args])
    assert rc == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1
    assert not (tmp_path / "runs").exists() and not (tmp_path / "rep").exists()
