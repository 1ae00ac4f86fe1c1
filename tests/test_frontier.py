"""`kalooki frontier` and its analysis: refusals, a small frontier end to end (same deals at every rung,
resumed as a run is), one in an S3 bucket (moto's server on loopback, as in test_cluster.py) resumed,
refused where another study is and reported, Ray started once through the runner, the convergence rule
on constructed steps, the report with and without one, and what its figure shows: a mean's bootstrap
interval over games, and the metrics flat at every rung left out and named."""
import contextlib
import io
import json

import numpy as np
import pandas as pd
import pyarrow.dataset as ds
import pytest

from analysis import findings
from analysis import frontier as F
from sim.cli import main
from test_cluster import BUCKET, env, s3  # noqa: F401  (module fixtures: moto's S3 server)

RUNGS = ("greedy", "expert")  # the search, the ladder's third rung, is ~200x slower than greedy

# a report's figures drawn but not rendered, but for the frontier's own (conftest.py)
pytestmark = pytest.mark.usefixtures("figures_not_rasterised_in_module")
RASTERISED = {"frontier"}


def _kalooki(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(list(argv))
    return rc, out.getvalue(), err.getvalue()


# ---------------------------------------------------------------------------------------------
# refusals: one line, status 2, nothing written


@pytest.mark.parametrize("rungs, said", [
    ("greedy,champion", "'champion' is not a rung of the bot ladder; allowed: greedy, expert, search"),
    ("greedy,expert,lookahead", "'lookahead' is not a rung of the bot ladder; allowed: greedy, expert, search"),
    ("greedy,greedy", "'greedy' is named twice"),
    ("expert", "give two rungs or more"),
    ("greedy,random", "'random' is not a rung of the bot ladder"),
])
def test_bad_rungs_are_refused_in_one_line(tmp_path, rungs, said):
    rc, _, err = _kalooki("frontier", "--profile", "kalooki40", "--games", "2", "--rungs", rungs,
                          "--out", str(tmp_path / "fr"), "--local")
    assert rc == 2 and said in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "fr").exists()


def test_a_folder_that_is_not_a_frontier_is_refused(tmp_path):
    (tmp_path / "frontier").mkdir()
    (tmp_path / "frontier" / "notes.txt").write_text("mine")
    rc, _, err = _kalooki("frontier", "--profile", "kalooki40", "--games", "2", "--seed", "1", "--rungs", "greedy,expert",
                          "--out", str(tmp_path), "--local")
    assert rc == 2 and "holds files no kalooki frontier marked as its own" in err and len(err.strip().splitlines()) == 1
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["frontier", "notes.txt"]


def test_bad_profile_and_missing_out_are_refused(tmp_path):
    rc, _, err = _kalooki("frontier", "--profile", "nosuch", "--games", "2", "--seed", "1", "--out", str(tmp_path / "fr"), "--local")
    assert rc == 2 and "nosuch" in err and not (tmp_path / "fr").exists()
    rc, _, err = _kalooki("frontier", "--profile", "kalooki40", "--games", "2", "--seed", "1", "--local")
    assert rc == 2 and "no --out given" in err


# ---------------------------------------------------------------------------------------------
# a small run with a frontier, shared by the tests below


@pytest.fixture(scope="module")
def run_with_frontier(tmp_path_factory):
    """A two-profile run at two table compositions, and its report once a frontier of two rungs (4
    games a profile and rung, one shard each) is played into RUN/frontier (given the run's folder as
    --out)."""
    root = tmp_path_factory.mktemp("frontier")
    run = root / "run"
    tables = "greedy=greedy,greedy,greedy,greedy:1; expert=expert,expert,expert,expert:1"
    rc, _, err = _kalooki("simulate", "--profile", "kalooki40", "--profile", "scala40", "--games", "8",
                          "--seed", "5", "--tables", tables, "--shard-games", "8", "--out", str(run), "--local", "-q")
    assert rc == 0, err
    assert F.find(run) is None  # no frontier yet: the report has no section to show
    rc, printed, err = _kalooki("frontier", "--profile", "kalooki40", "--profile", "scala40", "--games", "4",
                                "--seed", "5", "--shard-games", "4", "--rungs", ",".join(RUNGS), "--out", str(run),
                                "--local", "-q")
    assert rc == 0, err
    rc, _, err = _kalooki("report", str(run), "--out", str(root / "with"), "-q")
    assert rc == 0, err
    return root, printed


def test_frontier_plays_every_rung_from_the_same_deals(run_with_frontier):
    root, printed = run_with_frontier
    where = root / "run" / "frontier"
    doc = json.loads((where / "frontier.json").read_text())
    assert doc["rungs"] == list(RUNGS) and doc["complete"] is True and doc["games"] == 4
    first_hands = {}
    for rung in RUNGS:
        manifest = json.loads((where / rung / "manifest.json").read_text())
        assert manifest["complete"] is True and manifest["seed"] == 5
        hands = ds.dataset(where / rung / "hands", format="parquet").to_table().to_pandas()
        assert set(hands["bot"]) == {rung}
        first = hands[(hands["hand_no"] == hands.groupby("game_id")["hand_no"].transform("min"))
                      & (hands["redeal_no"] == 0)]
        first_hands[rung] = first.sort_values(["profile", "game_id", "seat"])[
            ["profile", "game_id", "seat", "dealt_jokers", "dealt_max_meld_value"]].reset_index(drop=True)
    pd.testing.assert_frame_equal(first_hands["greedy"], first_hands["expert"])
    lines = printed.splitlines()
    assert all(len(line) <= 100 for line in lines if not line.startswith("frontier: "))
    assert "rungs greedy < expert" in lines[0] and any(line.startswith("Converged:") for line in lines)
    assert any(line.startswith("hands_per_game") for line in lines)


def test_frontier_resumes_without_playing_again(run_with_frontier):
    root, _ = run_with_frontier
    where = root / "run" / "frontier"
    shards = lambda: {r: json.loads((where / r / "manifest.json").read_text())["shards"] for r in RUNGS}
    before = shards()
    rc, _, err = _kalooki("frontier", "--profile", "kalooki40", "--profile", "scala40", "--games", "4",
                          "--seed", "5", "--shard-games", "4", "--rungs", ",".join(RUNGS), "--out", str(root / "run"),
                          "--local", "-q")
    assert rc == 0, err
    assert shards() == before  # every shard kept, none played again
    rc, _, err = _kalooki("frontier", "--profile", "kalooki40", "--profile", "scala40", "--games", "7",
                          "--seed", "5", "--shard-games", "3", "--rungs", ",".join(RUNGS), "--out", str(root / "run"),
                          "--local", "-q")
    assert rc == 2 and "already holds a frontier of other settings (games: 4 there, 7 now)" in err
    assert len(err.strip().splitlines()) == 1
    assert shards() == before  # every shard kept, none played again


def test_report_shows_the_frontier_only_when_the_run_has_one(run_with_frontier):
    root, _ = run_with_frontier
    html = (root / "with" / "report.html").read_text()
    assert 'id="strength-frontier"' in html and "Strong play." in html
    assert "For good players read the " in html and "table composition" in html
    assert len((root / "with" / "figures" / "frontier.png").read_bytes()) > 10_000  # a rendered PNG
    conv = pd.read_csv(root / "with" / "data" / "frontier_convergence.csv")
    assert set(conv["profile"]) == {"kalooki40", "scala40"}
    assert set(conv["status"]) <= set(F.STATUSES) | {findings.NOT_APPLICABLE, findings.NOT_TESTED}
    by_rung = pd.read_csv(root / "with" / "data" / "frontier_by_rung.csv")
    assert list(dict.fromkeys(by_rung["rung"])) == list(RUNGS)
    steps = pd.read_csv(root / "with" / "data" / "frontier_steps.csv")
    tested = steps[steps["diff_ci_low"].notna()]
    assert len(tested) and tested["design"].str.startswith("paired by game").all()


def test_an_incomplete_frontier_is_said_and_left_out(run_with_frontier, tmp_path):
    import shutil
    root, _ = run_with_frontier
    run = tmp_path / "run"
    shutil.copytree(root / "run", run)
    doc = json.loads((run / "frontier" / "frontier.json").read_text())
    (run / "frontier" / "frontier.json").write_text(json.dumps({**doc, "complete": False}))
    rc, _, err = _kalooki("report", str(run), "--out", str(tmp_path / "rep"), "-q")
    assert rc == 0, err
    html = (tmp_path / "rep" / "report.html").read_text()
    assert "could not be read, so this section is left out" in html and "not complete" in html
    assert not (tmp_path / "rep" / "figures" / "frontier.png").exists()
    assert "★" not in html and "Strong play." not in html  # nothing stated for strong play without a frontier


# ---------------------------------------------------------------------------------------------
# the convergence rule on constructed steps


def _step(verdict, difference):
    return {"verdict": verdict, "difference": difference}


@pytest.mark.parametrize("last, before, status", [
    (_step(findings.EQUIVALENT, 0.1), _step(findings.HIGHER, 2.0), F.CONVERGED),
    (_step(findings.EQUIVALENT, -0.3), _step(findings.EQUIVALENT, 0.1), F.CONVERGED),
    (_step(findings.EQUIVALENT, 0.4), _step(findings.NOT_ESTABLISHED, 0.2), F.CONVERGED),
    (_step(findings.HIGHER, 1.5), _step(findings.HIGHER, 3.0), F.NOT_CONVERGED),
    (_step(findings.LOWER, -1.5), _step(findings.EQUIVALENT, 0.0), F.NOT_CONVERGED),
    (_step(findings.NOT_ESTABLISHED, 0.4), _step(findings.HIGHER, 3.0), findings.NOT_ESTABLISHED),
    (_step(findings.EQUIVALENT, 0.1), None, F.CONVERGED),
    (_step(findings.NOT_APPLICABLE, np.nan), None, findings.NOT_APPLICABLE),
])
def test_convergence_status(last, before, status):
    assert F.convergence_status(last, before)[0] == status


def test_convergence_reads_the_last_two_steps_of_each_profile_and_metric():
    rows = []
    for profile, (first, second) in {"a": ((findings.HIGHER, 2.0), (findings.EQUIVALENT, 0.1)),
                                     "b": ((findings.HIGHER, 2.0), (findings.HIGHER, 1.8)),
                                     "c": ((findings.EQUIVALENT, 0.1), (findings.NOT_ESTABLISHED, 0.6))}.items():
        for step, (verdict, diff) in (("greedy → expert", first), ("expert → search", second)):
            rows.append({"step": step, "profile": profile, "metric": "hands_per_game", "kind": "mean",
                         "verdict": verdict, "difference": diff, "diff_ci_low": diff - 0.2,
                         "diff_ci_high": diff + 0.2, "threshold": 0.5, "unit": "hands"})
    conv = F.convergence(pd.DataFrame(rows), ["greedy", "expert", "search"]).set_index("profile")
    assert conv.loc["a", "status"] == F.CONVERGED and conv.loc["a", "previous_difference"] == 2.0
    assert conv.loc["b", "status"] == F.NOT_CONVERGED and conv.loc["b", "last_step"] == "expert → search"
    assert conv.loc["c", "status"] == findings.NOT_ESTABLISHED
    assert "3 pairs" not in F.counts_text(conv.reset_index())
    assert F.counts_text(conv.reset_index()).startswith("1 converged, 1 not converged and 1 not established of 3")


def test_a_run_config_lends_its_profiles_and_seed_and_its_out_becomes_out_frontier():
    from sim import frontier, runconfig
    from sim.commands.simulate import config_path
    values = runconfig.read_run_config(config_path("default"))
    study = frontier.plan(values, "default", profiles=None, games=3, seed=None, out=None, rungs=["greedy", "expert"])
    assert study.out == "runs/default/frontier" and study.players == 4
    for rung in ("greedy", "expert"):
        cfg = study.configs[rung]
        assert cfg.profiles == tuple(values["profiles"]) and cfg.seed == values["seed"] and cfg.games == 3
        assert cfg.tables is None and cfg.bots == (rung,) * 4 and cfg.out == f"runs/default/frontier/{rung}"
    assert study.plans["greedy"].run_id != study.plans["expert"].run_id


def test_strong_play_finding_states_what_holds_at_the_top_two_rungs():
    judged = pd.DataFrame({
        "profile_b": ["kalooki51", "scala40", "swedish"],
        "metric": ["hands_per_game", "kalooki_per_hand", "mean_open_round"], "kind": ["mean", "proportion", "mean"],
        "verdict": [findings.HIGHER, findings.NOT_ESTABLISHED, findings.LOWER],
        "robustness": [findings.DEPENDS + ": at greedy +3.7", findings.ROBUST, findings.DEPENDS + ": at expert -1"],
        "strong_play": [f"{findings.HIGHER} {findings.STRONG_PLAY}", f"{findings.EQUIVALENT} {findings.STRONG_PLAY}", ""]})
    found = findings.strong_play_finding(judged, ["expert", "search"], "For good players read the expert one.")
    assert found.stated and "(expert and search at every seat)" in found.text
    assert "1 of the differences that vary with play strength holds at both" in found.text
    assert "kalooki51 hands per game (mean) higher" in found.text and "swedish" not in found.text
    assert found.text.endswith("For good players read the expert one.")
    quiet = findings.strong_play_finding(judged.assign(strong_play=""), ["expert", "search"])
    assert not quiet.stated and "none of the differences that vary with play strength holds at both" in quiet.text


def test_the_rungs_are_the_registered_bots_of_the_ladder_in_its_order(monkeypatch):
    from sim import bots, frontier
    assert frontier.LADDER == ("greedy", "expert", "search")  # the lookahead is a bot, not a rung
    assert "lookahead" in bots.BOTS
    assert frontier.parse_rungs(None) == ["greedy", "expert", "search"]
    assert frontier.parse_rungs("search,greedy,expert") == ["greedy", "expert", "search"]  # ladder order
    assert frontier.parse_rungs("search,expert") == ["expert", "search"]
    monkeypatch.setattr(bots, "BOTS", {name: cls for name, cls in bots.BOTS.items() if name != "search"})
    assert frontier.parse_rungs(None) == ["greedy", "expert"]  # a rung not registered is left out


def test_a_kept_rung_off_the_ladder_stays_where_its_frontier_put_it():
    from sim import frontier
    assert frontier.ladder_order(["search", "greedy", "expert"]) == ["greedy", "expert", "search"]
    recorded = ["greedy", "expert", "lookahead"]  # a frontier written with the lookahead as a rung
    assert frontier.ladder_order(recorded + ["search"], recorded) == ["greedy", "expert", "lookahead", "search"]
    assert frontier.ladder_order(["lookahead", "greedy"], ["lookahead"]) == ["lookahead", "greedy"]


# ---------------------------------------------------------------------------------------------
# where a frontier lives: any URI a run can live at, refused where another study is


def _objects(uri: str) -> dict:
    """Every file under `uri` with its bytes (the bucket's objects), by path."""
    import pyarrow.fs as pafs
    from sim import runformat
    loc = runformat.locate(uri)
    infos = loc.fs.get_file_info(pafs.FileSelector(loc.root, recursive=True, allow_not_found=True))
    return {i.path: runformat.read_bytes(loc.fs, i.path) for i in infos if i.type == pafs.FileType.File}


@pytest.mark.slow
def test_a_frontier_in_a_bucket_resumes_refuses_other_studies_and_is_reported(s3, tmp_path):  # noqa: F811
    from sim import runformat
    from test_run_shapes import _copy_of_kalooki40
    mine = _copy_of_kalooki40(tmp_path / "mine.toml", opening_min=51)
    run = f"s3://{BUCKET}/with-frontier/run?{s3}"
    common = ("--games", "2", "--shard-games", "2", "--local", "-q")  # one shard a rung: few objects to move
    rc, _, err = _kalooki("simulate", "--profile", str(mine), "--seed", "3", "--out", run, *common)
    assert rc == 0, err
    rc, printed, err = _kalooki("frontier", "--profile", str(mine), "--seed", "3", "--rungs", "greedy,expert",
                                "--out", run, *common)
    assert rc == 0, err
    where = runformat.join_uri(run, "frontier")
    assert printed.rstrip().endswith(f"frontier: {where}")
    loc = runformat.locate(where)
    doc = json.loads(runformat.read_bytes(loc.fs, loc.path("frontier.json")))
    assert doc["complete"] is True and doc["rungs"] == ["greedy", "expert"] and doc["profiles"] == ["mine"]
    played = _objects(where)
    assert any("/greedy/hands/profile=mine/" in p for p in played) and any("/expert/games/" in p for p in played)

    rc, _, err = _kalooki("frontier", "--profile", str(mine), "--seed", "3", "--rungs", "greedy,expert",
                          "--out", run, *common)
    assert rc == 0, err
    after = _objects(where)
    assert {p: b for p, b in after.items() if not p.endswith(".json")} == \
        {p: b for p, b in played.items() if not p.endswith(".json")}  # nothing played again

    (tmp_path / "edited").mkdir()
    edited = _copy_of_kalooki40(tmp_path / "edited" / "mine.toml", opening_min=55)
    for argv, said in ((("--profile", str(mine), "--seed", "4"), "seed: 3 there, 4 now"),
                       (("--profile", str(edited), "--seed", "3"), "(rules)")):
        rc, _, err = _kalooki("frontier", "--rungs", "greedy,expert", "--out", run, *argv, *common)
        assert rc == 2 and "already holds a frontier of other settings" in err and said in err, err
        assert len(err.strip().splitlines()) == 1, err
        assert _objects(where) == after  # not a shard, not frontier.json touched

    rc, _, err = _kalooki("report", run, "--out", str(tmp_path / "report"), "-q")
    assert rc == 0, err
    html = (tmp_path / "report" / "report.html").read_text()
    assert 'id="strength-frontier"' in html and "could not be read" not in html
    assert (tmp_path / "report" / "figures" / "frontier.png").is_file()
    by_rung = pd.read_csv(tmp_path / "report" / "data" / "frontier_by_rung.csv")
    assert list(dict.fromkeys(by_rung["rung"])) == ["greedy", "expert"] and set(by_rung["profile"]) == {"mine"}


def test_a_frontier_of_another_study_is_not_replaced(tmp_path):
    from sim import profiles as PR
    where = tmp_path / "frontier"
    where.mkdir()
    other = {"format": F.FRONTIER_FORMAT, "rungs": ["lookahead", "search"],
             "runs": {"lookahead": "lookahead", "search": "search"}, "profiles": ["kalooki40"], "games": 6,
             "rules": {"kalooki40": PR.load("kalooki40").rules_hash()},
             "seed": 9, "players": 4, "paired_profiles": False, "complete": True}
    (where / "frontier.json").write_text(json.dumps(other))
    rc, _, err = _kalooki("frontier", "--profile", "kalooki40", "--games", "6", "--seed", "5", "--rungs",
                          "greedy,expert", "--out", str(tmp_path), "--local", "-q")
    assert rc == 2 and "already holds a frontier of other settings" in err and "seed: 9 there, 5 now" in err, err
    assert len(err.strip().splitlines()) == 1
    assert sorted(p.name for p in where.iterdir()) == ["frontier.json"]
    assert json.loads((where / "frontier.json").read_text()) == other


def test_frontier_starts_ray_once_through_the_runner_for_every_rung(tmp_path, monkeypatch):
    import ray

    from sim import runexec
    starts, shutdowns = [], []

    def start_ray(workers, address, out=""):
        starts.append(out)
        return len(starts) == 1, 1  # the frontier's call starts Ray; each rung's run finds it started

    monkeypatch.setattr(runexec, "start_ray", start_ray)
    monkeypatch.setattr(runexec, "execute_ray", lambda jobs, fn, on_done, workers:
                        runexec.execute_local(jobs, fn, on_done))
    monkeypatch.setattr(ray, "shutdown", lambda: shutdowns.append(True))
    out = tmp_path / "fr"
    rc, _, err = _kalooki("frontier", "--profile", "kalooki40", "--games", "2", "--seed", "1", "--rungs",
                          "greedy,expert", "--out", str(out), "-q")
    assert rc == 0, err
    partial = tmp_path / "fr" / ".frontier.partial"  # played there, then moved into place
    assert starts == [str(partial), str(partial / "greedy"), str(partial / "expert")] and shutdowns == [True]
    assert json.loads((out / "frontier" / "frontier.json").read_text())["complete"] is True


# ---------------------------------------------------------------------------------------------
# what the figure and its intervals can say


def test_a_mean_counts_interval_is_the_bootstrap_over_games_and_never_below_zero():
    from analysis import stats
    y = np.array([0.0] * 9 + [3.0])  # reshuffles in each of 10 games of one deal each
    x = np.ones(10)
    t = stats.cluster_mean(10, x.sum(), y.sum(), (y * y).sum(), (x * x).sum(), (x * y).sum()).iloc[0]
    assert t["ci_low"] < 0  # what the t interval says of a count
    rng = np.random.default_rng(7)
    weights = np.array([stats.bootstrap_weights(rng, 10) for _ in range(1000)])
    found = stats.bootstrap_ratio(y, x, weights).iloc[0]
    assert found["estimate"] == pytest.approx(0.3)
    assert 0.0 == found["ci_low"] < found["estimate"] < found["ci_high"] <= 3.0
    again = stats.bootstrap_ratio(y, x, weights).iloc[0]
    assert (again["ci_low"], again["ci_high"]) == (found["ci_low"], found["ci_high"])


def test_the_by_rung_table_and_figure_show_the_bootstrap_intervals_of_means(run_with_frontier):
    root, _ = run_with_frontier
    csv = pd.read_csv(root / "with" / "data" / "frontier_by_rung.csv")
    means = csv[(csv["kind"] == "mean") & csv["estimate"].notna()]
    assert len(means) and means["method"].str.startswith("percentile bootstrap 95% interval over games").all()
    assert (means["ci_low"] >= 0).all()
    assert (means["ci_low"] <= means["estimate"] + 1e-12).all()
    assert (means["estimate"] <= means["ci_high"] + 1e-12).all()
    shares = csv[csv["kind"] == "proportion"]
    assert not shares["method"].str.contains("bootstrap").any()  # shares keep the report's Wilson intervals
    fr = F.load_frontier(root / "run" / "frontier")
    table = F.by_rung(fr)  # the same seeded replicates: the report's CSV again, and the figure's rows
    pd.testing.assert_frame_equal(table[["ci_low", "ci_high"]].reset_index(drop=True),
                                  csv[["ci_low", "ci_high"]].astype(float), check_dtype=False)
    frame = F.figure_frame(table).set_index(["profile", "rung", "metric"])
    keyed = table.set_index(["profile", "rung", "metric"])
    for key, row in frame.iterrows():
        assert (row["ci_low"], row["ci_high"]) == (keyed.loc[key, "ci_low"], keyed.loc[key, "ci_high"])
    html = (root / "with" / "report.html").read_text()
    assert "percentile bootstrap over games" in html  # the Methods note and the figure's caption say how


def test_the_figure_leaves_out_a_metric_flat_at_every_rung_and_says_so(run_with_frontier):
    frame = pd.DataFrame({
        "metric": ["void_hand_share"] * 4 + ["hands_per_game"] * 4 + ["stalled_game_share"] * 4,
        "kind": ["proportion"] * 4 + ["mean"] * 4 + ["proportion"] * 4,
        "profile": ["a", "a", "b", "b"] * 3, "rung": ["greedy", "expert"] * 6,
        "estimate": [0.0, 0.0, 0.0, 0.0, 10.0, 12.0, 11.0, 11.0, 0.0, 0.0, 0.01, 0.02]})
    flat = F.flat_metrics(frame)
    assert flat == {"void_hand_share": {"a": 0.0, "b": 0.0}}  # one profile flat is not enough
    text = F.flat_text(flat, {"void_hand_share": "proportion"})
    assert text.startswith("Left out of the figure, the same at every rung for every profile")
    assert "void deals (re-dealt) (0.0% for every profile)" in text

    root, _ = run_with_frontier
    csv = pd.read_csv(root / "with" / "data" / "frontier_by_rung.csv")
    shown = F.figure_frame(csv)
    flat = F.flat_metrics(shown)
    html = (root / "with" / "report.html").read_text()
    assert flat, "the small frontier has a metric flat at every rung (no void deal, no stopped game)"
    left_out = html[html.index("Left out of the figure"):].split("</p>")[0]
    for metric in dict.fromkeys(shown["metric"]):
        kind = shown.loc[shown["metric"] == metric, "kind"].iloc[0]
        label = findings.sentence_label(findings.show(metric, kind).label)
        assert (label in left_out) == (metric in flat), metric
