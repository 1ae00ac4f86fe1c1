"""`kalooki frontier` and its analysis: refusals, a small frontier end to end (same deals at every rung,
resumed as a run is), the convergence rule on constructed steps, and the report with and without one."""
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

RUNGS = ("greedy", "expert", "lookahead")


def _kalooki(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(list(argv))
    return rc, out.getvalue(), err.getvalue()


# ---------------------------------------------------------------------------------------------
# refusals: one line, status 2, nothing written


@pytest.mark.parametrize("rungs, said", [
    ("greedy,champion", "'champion' is not a rung of the bot ladder; allowed: greedy, expert, lookahead"),
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
    (tmp_path / "notes.txt").write_text("mine")
    rc, _, err = _kalooki("frontier", "--profile", "kalooki40", "--games", "2", "--seed", "1", "--rungs", "greedy,expert",
                          "--out", str(tmp_path), "--local")
    assert rc == 2 and "not empty and holds no frontier.json" in err and len(err.strip().splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_bad_profile_and_missing_out_are_refused(tmp_path):
    rc, _, err = _kalooki("frontier", "--profile", "nosuch", "--games", "2", "--seed", "1", "--out", str(tmp_path / "fr"), "--local")
    assert rc == 2 and "nosuch" in err and not (tmp_path / "fr").exists()
    rc, _, err = _kalooki("frontier", "--profile", "kalooki40", "--games", "2", "--seed", "1", "--local")
    assert rc == 2 and "no --out given" in err


# ---------------------------------------------------------------------------------------------
# a small run with a frontier, shared by the tests below


@pytest.fixture(scope="module")
def run_with_frontier(tmp_path_factory):
    """A two-profile run at two table compositions, its report before and after a frontier of three
    rungs is played into RUN/frontier (given the run's folder as --out)."""
    root = tmp_path_factory.mktemp("frontier")
    run = root / "run"
    tables = "greedy=greedy,greedy,greedy,greedy:1; expert=expert,expert,expert,expert:1"
    rc, _, err = _kalooki("simulate", "--profile", "kalooki40", "--profile", "scala40", "--games", "8",
                          "--seed", "5", "--tables", tables, "--shard-games", "4", "--out", str(run), "--local", "-q")
    assert rc == 0, err
    rc, _, err = _kalooki("report", str(run), "--out", str(root / "plain"), "-q")
    assert rc == 0, err
    rc, printed, err = _kalooki("frontier", "--profile", "kalooki40", "--profile", "scala40", "--games", "6",
                                "--seed", "5", "--shard-games", "3", "--rungs", ",".join(RUNGS), "--out", str(run),
                                "--local", "-q")
    assert rc == 0, err
    rc, _, err = _kalooki("report", str(run), "--out", str(root / "with"), "-q")
    assert rc == 0, err
    return root, printed


def test_frontier_plays_every_rung_from_the_same_deals(run_with_frontier):
    root, printed = run_with_frontier
    where = root / "run" / "frontier"
    doc = json.loads((where / "frontier.json").read_text())
    assert doc["rungs"] == list(RUNGS) and doc["complete"] is True and doc["games"] == 6
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
    pd.testing.assert_frame_equal(first_hands["greedy"], first_hands["lookahead"])
    lines = printed.splitlines()
    assert all(len(line) <= 100 for line in lines if not line.startswith("frontier: "))
    assert "rungs greedy < expert < lookahead" in lines[0] and any(line.startswith("Converged:") for line in lines)
    assert any(line.startswith("hands_per_game") for line in lines)


def test_frontier_resumes_without_playing_again(run_with_frontier):
    root, _ = run_with_frontier
    where = root / "run" / "frontier"
    shards = lambda: {r: json.loads((where / r / "manifest.json").read_text())["shards"] for r in RUNGS}
    before = shards()
    rc, _, err = _kalooki("frontier", "--profile", "kalooki40", "--profile", "scala40", "--games", "6",
                          "--seed", "5", "--shard-games", "3", "--rungs", ",".join(RUNGS), "--out", str(where),
                          "--local", "-q")
    assert rc == 0, err
    assert shards() == before  # every shard kept, none played again
    rc, _, err = _kalooki("frontier", "--profile", "kalooki40", "--profile", "scala40", "--games", "7",
                          "--seed", "5", "--shard-games", "3", "--rungs", ",".join(RUNGS), "--out", str(where),
                          "--local", "-q")
    assert rc == 2 and "already holds a different run" in err and len(err.strip().splitlines()) == 1
    assert shards() == before  # every shard kept, none played again


def test_report_shows_the_frontier_only_when_the_run_has_one(run_with_frontier):
    root, _ = run_with_frontier
    plain = (root / "plain" / "report.html").read_text()
    assert "Strength frontier" not in plain and "★" not in plain
    html = (root / "with" / "report.html").read_text()
    assert 'id="strength-frontier"' in html and "Strong play." in html
    assert "For good players read the " in html and "table composition" in html
    assert (root / "with" / "figures" / "frontier.png").is_file()
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


# ---------------------------------------------------------------------------------------------
# the convergence rule on constructed steps


def _step(verdict, difference):
    return {"verdict": verdict, "difference": difference}


@pytest.mark.parametrize("last, before, status", [
    (_step(findings.EQUIVALENT, 0.1), _step(findings.HIGHER, 2.0), F.CONVERGED),
    (_step(findings.EQUIVALENT, -0.3), _step(findings.EQUIVALENT, 0.1), F.CONVERGED),
    (_step(findings.EQUIVALENT, 0.4), _step(findings.NOT_ESTABLISHED, 0.2), findings.NOT_ESTABLISHED),
    (_step(findings.HIGHER, 1.5), _step(findings.HIGHER, 3.0), F.NOT_CONVERGED),
    (_step(findings.LOWER, -1.5), _step(findings.EQUIVALENT, 0.0), F.NOT_CONVERGED),
    (_step(findings.NOT_ESTABLISHED, 0.4), _step(findings.HIGHER, 3.0), findings.NOT_ESTABLISHED),
    (_step(findings.EQUIVALENT, 0.1), None, findings.NOT_ESTABLISHED),
    (_step(findings.NOT_APPLICABLE, np.nan), None, findings.NOT_APPLICABLE),
])
def test_convergence_status(last, before, status):
    assert F.convergence_status(last, before)[0] == status


def test_convergence_reads_the_last_two_steps_of_each_profile_and_metric():
    rows = []
    for profile, (first, second) in {"a": ((findings.HIGHER, 2.0), (findings.EQUIVALENT, 0.1)),
                                     "b": ((findings.HIGHER, 2.0), (findings.HIGHER, 1.8)),
                                     "c": ((findings.EQUIVALENT, 0.1), (findings.NOT_ESTABLISHED, 0.6))}.items():
        for step, (verdict, diff) in (("greedy → expert", first), ("expert → lookahead", second)):
            rows.append({"step": step, "profile": profile, "metric": "hands_per_game", "kind": "mean",
                         "verdict": verdict, "difference": diff, "diff_ci_low": diff - 0.2,
                         "diff_ci_high": diff + 0.2, "threshold": 0.5, "unit": "hands"})
    conv = F.convergence(pd.DataFrame(rows), list(RUNGS)).set_index("profile")
    assert conv.loc["a", "status"] == F.CONVERGED and conv.loc["a", "previous_difference"] == 2.0
    assert conv.loc["b", "status"] == F.NOT_CONVERGED and conv.loc["b", "last_step"] == "expert → lookahead"
    assert conv.loc["c", "status"] == findings.NOT_ESTABLISHED
    assert "3 pairs" not in F.counts_text(conv.reset_index())
    assert F.counts_text(conv.reset_index()).startswith("1 converged, 1 not converged and 1 not established of 3")


def test_a_run_config_lends_its_profiles_and_seed_and_its_out_becomes_out_frontier():
    from sim import frontier, runner
    from sim.commands.simulate import config_path
    values = runner.read_run_config(config_path("default"))
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
    found = findings.strong_play_finding(judged, ["expert", "lookahead"], "For good players read the expert one.")
    assert found.stated and "(expert and lookahead at every seat)" in found.text
    assert "1 of the differences that depend on play strength holds at both" in found.text
    assert "kalooki51 hands per game (mean) higher" in found.text and "swedish" not in found.text
    assert found.text.endswith("For good players read the expert one.")
    quiet = findings.strong_play_finding(judged.assign(strong_play=""), ["expert", "lookahead"])
    assert not quiet.stated and "none of the differences that depend on play strength holds at both" in quiet.text


def test_a_registered_search_bot_becomes_the_top_rung(monkeypatch):
    from sim import bots, frontier
    assert frontier.parse_rungs(None) == [r for r in frontier.LADDER if r in bots.BOTS]
    monkeypatch.setitem(bots.BOTS, "search", bots.BOTS["lookahead"])
    assert frontier.parse_rungs(None)[-2:] == ["lookahead", "search"]
    assert frontier.parse_rungs("search,greedy,expert") == ["greedy", "expert", "search"]  # ladder order
