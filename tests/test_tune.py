"""`kalooki tune`: the monotone fit and its crossing, the sequential design, the refusals, a study played
through the runner and resumed, and (slow) the 95% interval's coverage on a deal statistic whose true
curve is known."""
import contextlib
import io
import json

import numpy as np
import pandas as pd
import pytest

from analysis import tune as fitting
from analysis.tune_page import study_page
from bench import tune_deals
from sim import profiles, tune
from sim.cli import main
from sim.errors import UserError

# a report's figures drawn but not rendered, but for this file's own (conftest.py)
pytestmark = pytest.mark.usefixtures("figures_not_rasterised_in_module")
RASTERISED = {"games", "tune", "tune_compare"}


def _cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(["tune", *argv])
    return rc, out.getvalue(), err.getvalue()


# ---------------------------------------------------------------------------------------------
# the fit


def test_crossings_inverts_a_monotone_piecewise_linear_curve():
    values = np.array([10, 20, 30])
    curves = np.array([[0.0, 1.0, 2.0], [0.0, 0.5, 2.0], [0.6, 1.0, 2.0], [0.0, 0.2, 0.4]])
    got = fitting.crossings(values, curves, 0.5, increasing=True)
    np.testing.assert_allclose(got, [15.0, 20.0, 10.0, 30.0])  # inside, on a value, censored low and high
    np.testing.assert_allclose(fitting.crossings(values, -curves[:1], -0.5, increasing=False), [15.0])


def _linear_data(slope=-0.01, noise=0.0, values=range(30, 61, 5), games=400, seed=0):
    """Deals whose metric at v is 0.5 + slope * (v - 30) plus per-deal noise common to every value."""
    rng = np.random.default_rng(seed)
    common = rng.normal(0, noise, games)
    data = fitting.Data()
    for v in values:
        data.add(v, np.arange(games), 0.5 + slope * (v - 30) + common, np.ones(games))
    return data


def test_fit_finds_the_crossing_of_a_known_curve_with_paired_deals():
    f = fitting.fit(_linear_data(noise=0.2), "hands_per_game", 0.3, 0.05, 30, 60, boot=100)
    # the noise is the same at every value (common deals), so the crossing is exact: 0.5 - 0.01 (v - 30) = 0.3
    assert not f.increasing
    assert f.crossing == pytest.approx(50 + 100 * np.mean(np.random.default_rng(0).normal(0, 0.2, 400)), abs=1e-9)
    assert f.ci_low <= f.crossing <= f.ci_high
    assert f.bracket == (int(np.floor(f.crossing)), int(np.floor(f.crossing)) + 1)
    assert set(f.equal_values) <= {45, 50, 55}


def test_fit_refuses_a_target_outside_the_range_naming_it():
    f = fitting.fit(_linear_data(noise=0.1), "hands_per_game", 0.9, 0.05, 30, 60, boot=100)
    with pytest.raises(UserError, match=r"outside what opening_min 30\.\.60 gives: .* at 30 to .* at 60"):
        fitting.check(f, "opening_min")


def test_fit_refuses_a_metric_that_turns_back_naming_where():
    data = fitting.Data()
    rng = np.random.default_rng(1)
    noise = rng.normal(0, 0.05, 2000)
    for v, level in zip(range(30, 61, 5), [0.50, 0.45, 0.40, 0.48, 0.35, 0.30, 0.25]):
        data.add(v, np.arange(2000), level + noise, np.ones(2000))
    f = fitting.fit(data, "hands_per_game", 0.42, 0.05, 30, 60, boot=100)
    with pytest.raises(UserError, match=r"not monotone in opening_min over 30\.\.60: .* rises from 40 to 45"):
        fitting.check(f, "opening_min")
    fitting.check(f, "opening_min", monotone=False)  # the range test alone passes


def test_only_ratio_metrics_can_be_tuned():
    assert "hands_per_game" in fitting.tunable_metrics() and "share_never_opened" in fitting.tunable_metrics()
    with pytest.raises(UserError, match="median.*cannot be tuned; allowed: p_can_open_at_deal"):
        fitting.check_metric("median_hands_to_first_elimination")
    with pytest.raises(UserError, match="unknown metric 'hands_per_gam'"):
        fitting.check_metric("hands_per_gam")


# ---------------------------------------------------------------------------------------------
# the design


def test_design_spends_inside_the_interval_and_keeps_the_bracket():
    assert tune.coarse_values(30, 60) == (30, 38, 45, 52, 60)
    assert tune.coarse_values(1, 3) == (1, 2, 3)
    assert tune.next_values(30, 60, 41.4, 40.2, 42.7) == (40, 41, 42, 43)
    wide = tune.next_values(30, 60, 44.5, 35.1, 55.0)
    assert {44, 45} <= set(wide) and len(wide) <= tune.MAX_VALUES + 2 and min(wide) == 35 and max(wide) == 55
    assert tune.next_values(30, 60, 30.0, 30.0, 31.5) == (30, 31, 32)  # censored at the end: its neighbour too
    assert tune.trim_to_budget((40, 41, 42, 43), 41.4, 100, 250) == (41, 42)
    assert tune.trim_to_budget((40, 41, 42, 43), 41.4, 100, 150) == ()
    assert tune.block_seed(1, 3) == tune.block_seed(1, 3) != tune.block_seed(1, 4) != tune.block_seed(2, 3)


def test_search_on_deals_is_seeded_and_within_budget():
    prof = profiles.load("kalooki40")
    a_stages, a = tune_deals.deal_tune(prof, 30, 60, 0.20, 1500, seed=7, boot=100)
    b_stages, b = tune_deals.deal_tune(prof, 30, 60, 0.20, 1500, seed=7, boot=100)
    assert a_stages == b_stages and (a.crossing, a.ci_low, a.ci_high) == (b.crossing, b.ci_low, b.ci_high)
    assert sum(s.cost for s in a_stages) <= 1500
    assert a_stages[0].values == (30, 38, 45, 52, 60)
    near = sum(s.games for s in a_stages for v in s.values if abs(v - 41.6) <= 5)  # the truth is near 41.6
    assert near >= 0.6 * sum(s.cost for s in a_stages)  # most games spent near the answer, not on a grid
    assert 38 < a.crossing < 45 and a.ci_low < a.crossing < a.ci_high


@pytest.mark.slow
def test_interval_covers_the_true_answer_in_at_least_90_percent_of_repeats():
    """P(the dealt hand can open) against opening_min: the truth from a million hands, 60 seeded studies."""
    prof = profiles.load("kalooki40")
    truth = tune_deals.true_crossing(tune_deals.true_curve(prof, 30, 60, 1_000_000, seed=0), 30, 0.20)
    covered = 0
    for r in range(60):
        _, f = tune_deals.deal_tune(prof, 30, 60, 0.20, 4000, seed=1000 + r)
        covered += f.ci_low <= truth <= f.ci_high
    assert covered >= 54, f"the 95% interval covered the truth {truth:.3f} in {covered} of 60 studies"


# ---------------------------------------------------------------------------------------------
# the command


def test_bad_input_is_one_line_and_status_2(tmp_path):
    cases = [
        (["--param", "opening_mn=30:60", "--target", "hands_per_game=10"], "unknown parameter 'opening_mn'"),
        (["--param", "deal_pattern=1:3", "--target", "hands_per_game=10"], "only a numeric (integer) parameter"),
        (["--param", "opening_min=30,60", "--target", "hands_per_game=10"], "write NAME=LO:HI"),
        (["--param", "opening_min=60:30", "--target", "hands_per_game=10"], "LO < HI"),
        (["--param", "opening_min=30:500", "--target", "hands_per_game=10"], "opening_min"),
        (["--param", "opening_min=30:60", "--target", "hands_per_gme=10"], "unknown metric"),
        (["--param", "opening_min=30:60", "--target", "dealer_edge=0"], "cannot be tuned"),
        (["--param", "opening_min=30:60", "--target", "hands_per_game=ten"], "is not a number"),
        (["--profile", "east_coast", "--param", "opening_min=30:60", "--target", "share_games_with_elimination=0.5"],
         "has no elimination"),
    ]
    for argv, message in cases:
        rc, out, err = _cli(*argv, "--games", "100", "--local", "--out", str(tmp_path / "s"),
                            "--report", str(tmp_path / "r"))
        assert rc == 2, argv
        assert message in err and err.count("\n") == 1 and "Traceback" not in err, (argv, err)
    assert not (tmp_path / "s").exists() and not (tmp_path / "r").exists()


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    root = tmp_path_factory.mktemp("tune")
    argv = ["--param", "opening_min=30:60", "--target", "p_can_open_at_deal=0.2", "--games", "60",
            "--block-games", "6", "--shard-games", "6", "--seed", "3", "--local", "--out", str(root / "study"),
            "--report", str(root / "report")]
    rc, out, err = _cli(*argv)
    assert rc == 0, err
    return root, argv, out


def test_study_writes_its_runs_answer_page_and_csv(study):
    root, _, out = study
    doc = json.loads((root / "study" / "tune.json").read_text())
    assert not [p.name for p in root.iterdir() if p.name.startswith(".")]  # played aside, then moved into place
    assert doc["complete"] and doc["param"] == "opening_min" and doc["paired"]
    assert doc["games"] <= 60 and doc["stages"][0]["values"] == [30, 38, 45, 52, 60]
    for name in doc["runs"]:
        assert (root / "study" / name / "manifest.json").is_file()
    answer = doc["answer"]
    assert 30 <= answer["ci_low"] <= answer["crossing"] <= answer["ci_high"] <= 60
    values = pd.read_csv(root / "report" / "data" / "values.csv")
    assert values["games"].sum() == doc["games"]
    assert (root / "report" / "report.html").is_file() and (root / "report" / "figures" / "tune.png").is_file()
    assert "meets 0.2 at opening_min" in out and len(out.splitlines()) <= 30
    again, stages, _ = fitting.load_study(root / "study")  # what `report STUDY` draws: the same answer
    assert (again.crossing, again.ci_low, again.ci_high) == (answer["crossing"], answer["ci_low"], answer["ci_high"])
    assert stages["games"].sum() == doc["games"]
    page = study_page(root / "study", root / "again")
    assert page.is_file() and (root / "again" / "data" / "values.csv").read_text() == \
        (root / "report" / "data" / "values.csv").read_text()


def test_report_of_a_study_writes_its_page_and_refuses_another_folder(study, capsys):
    root, _, _ = study
    from sim import cli
    assert cli.main(["report", str(root / "study"), "--out", str(root / "page"), "-q"]) == 0
    assert "tune study" in capsys.readouterr().out
    assert (root / "page" / "data" / "values.csv").read_text() == (root / "report" / "data" / "values.csv").read_text()
    (root / "mine").mkdir()
    (root / "mine" / "notes.txt").write_text("mine")
    assert cli.main(["report", str(root / "study"), "--out", str(root / "mine"), "-q"]) == 2
    assert "already holds" in capsys.readouterr().err
    assert [p.name for p in (root / "mine").iterdir()] == ["notes.txt"]


def test_study_resumes_without_playing_and_refuses_other_settings(study):
    root, argv, out = study
    before = {p: p.stat().st_mtime_ns for p in (root / "study").rglob("*.parquet")}
    rc, again, _ = _cli(*argv)
    assert rc == 0 and again.splitlines()[3:] == out.splitlines()[3:]  # the same answer; nothing replayed
    assert {p: p.stat().st_mtime_ns for p in (root / "study").rglob("*.parquet")} == before
    other = [a if a != "p_can_open_at_deal=0.2" else "p_can_open_at_deal=0.25" for a in argv]
    rc, _, err = _cli(*other)
    assert rc == 2 and "already holds a tune study of other settings" in err and "target" in err


def test_target_outside_the_range_is_refused_with_the_range_seen(tmp_path):
    rc, _, err = _cli("--param", "opening_min=30:60", "--target", "p_can_open_at_deal=0.9", "--games", "25",
                      "--block-games", "5", "--shard-games", "5", "--local", "--out", str(tmp_path / "s"),
                      "--report", str(tmp_path / "r"))
    assert rc == 2 and "outside what opening_min 30..60 gives" in err and " at 30 to " in err
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no study, no hidden folder, no page


@pytest.fixture()
def s3_uri(monkeypatch):
    """An empty bucket on moto's S3 server on loopback (test credentials only); a study URI in it."""
    import socket
    import subprocess
    import sys
    import time
    pytest.importorskip("moto.server")
    import pyarrow.fs as pafs
    for key, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                       "AWS_DEFAULT_REGION": "us-east-1", "AWS_EC2_METADATA_DISABLED": "true"}.items():
        monkeypatch.setenv(key, value)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert proc.poll() is None and time.time() < deadline, "moto's S3 server did not start"
                time.sleep(0.1)
        pafs.S3FileSystem(endpoint_override=f"127.0.0.1:{port}", scheme="http", region="us-east-1",
                          allow_bucket_creation=True).create_dir("kal")
        yield f"s3://kal/tune?endpoint_override=127.0.0.1:{port}&scheme=http"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.mark.slow
def test_a_study_in_a_bucket_is_read_back_and_resumed(s3_uri, tmp_path):
    argv = ["--param", "opening_min=30:60", "--target", "p_can_open_at_deal=0.2", "--games", "25", "--block-games",
            "5", "--shard-games", "5", "--seed", "4", "--local", "--out", s3_uri, "--report", str(tmp_path / "r")]
    rc, out, err = _cli(*argv)
    assert rc == 0, err
    f, stages, doc = fitting.load_study(s3_uri)
    assert doc["complete"] and list(stages["values"]) == ["30 38 45 52 60"]
    assert f"≈ {f.crossing:.2f} (95% interval {f.ci_low:.2f}–{f.ci_high:.2f})" in out
    rc, again, _ = _cli(*argv)
    assert rc == 0 and "0 played now" in again and again.splitlines()[3:] == out.splitlines()[3:]


# ---------------------------------------------------------------------------------------------
# compare


@pytest.fixture(scope="module")
def other_seed(tmp_path_factory):
    """The study's question on other deals (seed 5): one coarse stage."""
    root = tmp_path_factory.mktemp("tune-other")
    rc, _, err = _cli("--param", "opening_min=30:60", "--target", "p_can_open_at_deal=0.2", "--games", "30",
                      "--block-games", "6", "--shard-games", "6", "--seed", "5", "--local", "-q",
                      "--out", str(root / "study"), "--report", str(root / "report"))
    assert rc == 0, err
    return root / "study"


def _compare(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(["compare", *argv, "-q"])
    return rc, out.getvalue(), err.getvalue()


def test_compare_of_two_studies_gives_both_answers_and_their_difference(study, other_seed, tmp_path):
    root, _, _ = study
    rc, out, err = _compare(str(root / "study"), str(other_seed), "--out", str(tmp_path / "c"))
    assert rc == 0, err
    answers = pd.read_csv(tmp_path / "c" / "data" / "answers.csv").set_index("side")
    for side, where in (("A", root / "study"), ("B", other_seed)):  # each answer the study's own
        own = json.loads((where / "tune.json").read_text())["answer"]
        assert tuple(answers.loc[side, ["answer", "ci_low", "ci_high"]]) == (own["crossing"], own["ci_low"],
                                                                             own["ci_high"])
    d = answers.loc["B - A"]
    assert d["answer"] == pytest.approx(answers.loc["B", "answer"] - answers.loc["A", "answer"])
    assert d["ci_low"] < d["answer"] < d["ci_high"]  # other deals: the two sides' noise adds up
    assert "each study resampled on its own" in d["interval"]
    assert "settings that differ (A vs B): seed 3 vs 5" in out and f"B - A = {d['answer']:+.2f} opening_min" in out
    said = "The answers differ" if d["ci_low"] > 0 or d["ci_high"] < 0 else "The answers are not shown to differ"
    assert said in out and said in (tmp_path / "c" / "report.html").read_text()
    assert (tmp_path / "c" / "figures" / "tune_compare.png").is_file() and len(out.splitlines()) <= 20
    values = pd.read_csv(tmp_path / "c" / "data" / "values.csv")
    spent = {side: sum(len(st["values"]) * st["games"] for st in json.loads((where / "tune.json").read_text())["stages"])
             for side, where in (("A", root / "study"), ("B", other_seed))}
    assert values.groupby("side")["games"].sum().to_dict() == spent  # every game each study played


def test_compare_resamples_common_deals_together(study, tmp_path):
    """A study against a copy of itself: the same deals, resampled together, differ by exactly 0 in every
    replicate (resampled apart, the interval would be as wide as the two answers' together)."""
    import shutil
    root, _, _ = study
    shutil.copytree(root / "study", tmp_path / "copy")
    rc, out, err = _compare(str(root / "study"), str(tmp_path / "copy"), "--out", str(tmp_path / "c"))
    assert rc == 0, err
    d = pd.read_csv(tmp_path / "c" / "data" / "answers.csv").set_index("side").loc["B - A"]
    assert (d["answer"], d["ci_low"], d["ci_high"]) == (0, 0, 0) and "common deals" in d["interval"]
    assert "The answers are not shown to differ" in out and "settings that differ: none" in out


def test_compare_refuses_studies_of_other_questions_and_a_run(study, tmp_path):
    import shutil
    root, _, _ = study
    a = str(root / "study")
    for key, value in (("target", 0.25), ("param", "opening_max"), ("metric", "share_never_opened"),
                       ("profile", "scala40")):
        shutil.copytree(root / "study", tmp_path / key)
        doc = json.loads((tmp_path / key / "tune.json").read_text())
        doc[key] = value
        (tmp_path / key / "tune.json").write_text(json.dumps(doc))
        rc, _, err = _compare(a, str(tmp_path / key), "--out", str(tmp_path / "c"))
        assert rc == 2 and f"their {key} differ" in err and err.count("\n") == 1, err
    run = str(root / "study" / "opening_min=30" / "block-000")  # a study's run is a run, not a study
    for argv, message in (([a, run], "not a tune study"), ([run, a], "not a tune study"), ([a], "give RUN_B"),
                          ([a, a, "--profiles", "kalooki40,kalooki40"], "leave --profiles out")):
        rc, _, err = _compare(*argv, "--out", str(tmp_path / "c"))
        assert rc == 2 and message in err and err.count("\n") == 1 and "Traceback" not in err, (argv, err)
    assert not (tmp_path / "c").exists()
