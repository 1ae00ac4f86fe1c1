"""Every command that writes keeps the designer's work: run as a user would (the CLI, a profile file
of one's own in a temporary folder), an --out holding something else is refused in one line (status
2) and left as it was unless --force; a study (RUN/frontier/, RUN/skill/, a report's folder) is
written whole and moved into place, so a stop leaves the old one or the new one; a replacement is
said on stderr; a read-only --out ends in one line, never a traceback; a frontier's or a skill
study's --out is the run's folder."""
import contextlib
import dataclasses
import io
import json
import os
import shutil
import subprocess

import pytest

from sim import profiles
from sim.cli import main
from test_cluster import BUCKET, env, s3  # noqa: F401  (module fixtures: moto's S3 server)

pytestmark = pytest.mark.usefixtures("figures_not_rasterised_in_module")  # figures drawn, not rendered: no test reads them

GAMES = ("--games", "4", "--local")
FRONTIER = ("frontier", "--games", "1", "--local", "--rungs", "greedy,expert", "--profile")  # then the profile


def _kalooki(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main([str(a) for a in argv])
    return rc, out.getvalue(), err.getvalue()


def _files(root) -> dict:
    """Every file under ``root`` (hidden ones too) with its bytes."""
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def _one_line(err: str) -> str:
    assert err.endswith("\n") and err.count("\n") == 1 and "Traceback" not in err, err
    return err


@pytest.fixture(scope="module")
def mine(tmp_path_factory):
    """A designer's profile file: kalooki40 with opening_min 51, named mine."""
    path = tmp_path_factory.mktemp("profile") / "mine.toml"
    text = profiles.to_toml(dataclasses.replace(profiles.load("kalooki40"), opening_min=51))
    path.write_text(text.replace('name = "kalooki40"', 'name = "mine"'))
    return path


@pytest.fixture(scope="module")
def two_runs(mine, tmp_path_factory):
    """Two small runs of the profile file (both hold a profile named mine) and a report of the first."""
    root = tmp_path_factory.mktemp("runs")
    for name, seed in (("one", 1), ("two", 2)):
        rc, _, err = _kalooki("simulate", "--profile", mine, *GAMES, "--seed", seed, "--out", root / name, "-q")
        assert rc == 0, err
    rc, _, err = _kalooki("report", root / "one", "--out", root / "R", "-q")
    assert rc == 0, err
    return root


@pytest.fixture(scope="module")
def frontier_run(mine, tmp_path_factory):
    """A run folder holding only a frontier of the profile file: rungs greedy and expert, one game a
    profile and rung, seed 1 (``FRONTIER``); a test that changes it plays on its own copy."""
    run = tmp_path_factory.mktemp("frontier") / "run"
    rc, _, err = _kalooki(*FRONTIER, mine, "--out", run, "-q")
    assert rc == 0, err
    return run


def _make_read_only(path) -> callable:
    """Make the folder ``path`` read-only even for root: a read-only bind mount where ``mount`` works,
    else the immutable attribute (chattr +i); returns the undo.  Skips when neither works here."""
    attempts = (
        (["mount", "--bind", str(path), str(path)], ["mount", "-o", "remount,bind,ro", str(path)],
         ["umount", str(path)]),
        (None, ["chattr", "+i", str(path)], ["chattr", "-i", str(path)]),
    )
    for first, second, undo in attempts:
        done = []
        try:
            for step in (first, second):
                if step:
                    subprocess.run(step, check=True, capture_output=True)
                    done.append(step)
        except (OSError, subprocess.CalledProcessError):
            if len(done) == 1 and first:
                subprocess.run(undo, capture_output=True)
            continue
        try:
            (path / "probe").write_text("x")
        except OSError:
            return lambda: subprocess.run(undo, check=True, capture_output=True)
        (path / "probe").unlink()
        subprocess.run(undo, capture_output=True)
    if os.geteuid() != 0:
        path.chmod(0o555)
        return lambda: path.chmod(0o755)
    pytest.skip("no way to make a read-only folder here as root (no bind mount, no chattr +i)")


@pytest.fixture
def read_only(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    undo = _make_read_only(ro)
    yield ro
    undo()


# ---------------------------------------------------------------------------------------------
# one rule for every --out: refused in one line and left as it was unless --force


def test_compare_refuses_a_report_another_comparison_and_a_run(two_runs):
    one, two, report = two_runs / "one", two_runs / "two", two_runs / "R"
    for out, said in ((report, "already holds the report of run(s)"), (one, "holds a run (manifest.json)")):
        before = _files(out)
        rc, _, err = _kalooki("compare", one, two, "--out", out)
        assert rc == 2 and said in _one_line(err), err
        assert _files(out) == before
    rc, _, err = _kalooki("compare", one, two, "--out", one, "--force")  # a run's data: never replaced
    assert rc == 2 and "holds a run (manifest.json)" in _one_line(err)
    assert (one / "manifest.json").is_file()
    cmp = two_runs / "C"
    rc, printed, err = _kalooki("compare", one, two, "--out", cmp)
    assert rc == 0, err
    assert f"A = mine ({one}), B = mine ({two})" in printed  # both profiles are named mine
    before = _files(cmp)
    rc, _, err = _kalooki("compare", two, one, "--out", cmp)
    assert rc == 2 and "already holds the compare of run(s)" in _one_line(err) and "--force" in err
    assert _files(cmp) == before
    rc, _, err = _kalooki("compare", two, one, "--out", cmp, "--force")
    assert rc == 0 and "replacing the compare of run(s)" in err and "(--force" in err, err
    assert _files(cmp) != before and not [p for p in two_runs.iterdir() if p.name.startswith(".C.")]


def test_a_report_stopped_part_way_leaves_the_old_report(two_runs, monkeypatch):
    from analysis import document
    report = two_runs / "R"
    before = _files(report)

    def stop(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(document, "write_files", stop)
    rc, _, err = _kalooki("report", two_runs / "two", "--out", report, "--force")
    assert rc == 130 and _files(report) == before
    assert not [p for p in two_runs.iterdir() if p.name.startswith(".R.")]


# ---------------------------------------------------------------------------------------------
# a read-only --out: one line, status 2, for every command that writes


def test_a_read_only_out_is_one_line_for_every_writing_command(two_runs, mine, read_only):
    one, two = two_runs / "one", two_runs / "two"
    for argv, flag in (
            (["frontier", "--profile", mine, "--games", "2", "--local", "--rungs", "greedy,expert", "--out",
              read_only / "fr"], "--out"),
            (["compare", one, two, "--out", read_only / "c"], "--out"),
            (["report", one, "--out", read_only / "r"], "--out"),
            (["skill", "--profile", mine, "--players", "expert,greedy", *GAMES, "--out", read_only / "s"], "--out"),
            (["simulate", "--profile", mine, *GAMES, "--seed", "1", "--out", read_only / "x"], "--out"),
            (["sweep", "--profile", mine, "--param", "opening_min=30,40", "--games", "2", "--local", "--runs",
              read_only / "x", "--out", two_runs / "sweep-ro"], "--runs")):
        rc, _, err = _kalooki(*argv, "-q")
        assert rc == 2 and err.startswith(f"kalooki {argv[0]}: error: {flag} "), err
        assert "Read-only file system" in _one_line(err) or "Operation not permitted" in err or "ermission" in err
        assert list(read_only.iterdir()) == []
    assert not (two_runs / "sweep-ro").exists()


# ---------------------------------------------------------------------------------------------
# a frontier's or a skill study's --out is the run's folder, whether or not the run exists yet; a
# profile file's name


def test_studies_go_into_the_run_folder_before_and_after_the_run(mine, tmp_path, monkeypatch):
    """Before the run: a frontier and a skill study of a profile file (named by the profile's name, each
    with its progress bar's label), then the run itself, then a report showing both."""
    from sim import runner
    labels, real = [], runner._progress

    def progress(total, initial, enabled, label="simulate"):
        labels.append(label)
        return real(total, initial, False, label)

    monkeypatch.setattr(runner, "_progress", progress)
    run = tmp_path / "runs" / "default"
    rc, _, err = _kalooki("frontier", "--profile", mine, "--games", "2", "--local", "--rungs", "greedy,expert",
                          "--out", run, "-q")
    assert rc == 0, err
    assert json.loads((run / "frontier" / "frontier.json").read_text())["profiles"] == ["mine"]
    rc, printed, err = _kalooki("skill", "--profile", mine, "--players", "expert,greedy", *GAMES, "--boot", "5",
                                "--out", run, "-q", "--json")
    assert rc == 0, err
    assert list(json.loads(printed)["profiles"]) == ["mine"]
    assert json.loads((run / "skill" / "skill" / "skill.json").read_text())["profiles"] == ["mine"]
    assert labels == ["frontier greedy mine", "frontier expert mine", "skill mine"]
    assert sorted(p.name for p in run.iterdir()) == ["frontier", "skill"]
    rc, _, err = _kalooki("simulate", "--profile", mine, *GAMES, "--seed", "1", "--out", run, "-q")
    assert rc == 0, err  # a run folder holding only its studies is not refused
    rc, _, err = _kalooki("report", run, "--out", tmp_path / "rep", "-q")
    assert rc == 0, err
    html = (tmp_path / "rep" / "report.html").read_text()
    assert 'id="strength-frontier"' in html and "Skill and luck" in html


def test_a_ladder_study_written_first_leaves_the_folder_to_its_run(tmp_path):
    """A ladder played into a new folder says how its report comes; the run simulated there after it is
    not refused, and its report shows the ladder."""
    run = tmp_path / "lad"
    rc, printed, err = _kalooki("ladder", "--profiles", "kalooki40", "--rungs", "expert", "--games", "8", "--local",
                                "--out", run, "-q")
    assert rc == 0, err
    assert f"shows it once `kalooki simulate ... --out {run}` has played a run there" in printed
    rc, _, err = _kalooki("simulate", "--profile", "kalooki40", "--games", "4", "--seed", "1", "--local", "--out", run,
                          "-q")
    assert rc == 0, err
    rc, _, err = _kalooki("report", run, "--out", tmp_path / "rep", "-q")
    assert rc == 0, err
    assert 'id="bot-ladder-at-the-game"' in (tmp_path / "rep" / "report.html").read_text()


def test_frontier_and_skill_help_say_out_is_the_run_folder(capsys):
    for command in ("frontier", "skill"):
        assert main([command, "-h"]) == 0
        text = " ".join(capsys.readouterr().out.split())
        assert f"RUN/{command}" in text and "the run's folder" in text, text


# ---------------------------------------------------------------------------------------------
# no silent replacement of a study; a stop never leaves half a study


def test_a_frontier_keeps_its_rungs_and_a_re_analysis_writes_nothing(mine, frontier_run, tmp_path, monkeypatch):
    from sim import frontier
    # three cheap rungs: the ladder's own third rung, the search, is ~200x slower than greedy
    monkeypatch.setattr(frontier, "LADDER", ("greedy", "expert", "lookahead"))
    run = tmp_path / "run"
    shutil.copytree(frontier_run, run)  # rungs greedy and expert, one game
    argv = ["frontier", "--profile", mine, "--games", "1", "--local", "--out", run]
    doc = run / "frontier" / "frontier.json"
    doc.write_text(json.dumps({k: v for k, v in json.loads(doc.read_text()).items() if k != "rules"}))
    rc, _, err = _kalooki(*argv, "--rungs", "greedy,expert", "-q")  # the rules read from the rungs' manifests
    assert rc == 0, err
    rc, _, err = _kalooki(*argv, "--rungs", "greedy,lookahead")
    assert rc == 0 and "keeping rung(s) expert of the frontier" in err and "adding rung(s) lookahead" in err, err
    assert json.loads(doc.read_text())["rungs"] == ["greedy", "expert", "lookahead"]
    kept, written = _files(run / "frontier"), doc.stat().st_mtime_ns
    rc, _, err = _kalooki(*argv, "--rungs", "greedy,expert")
    assert rc == 0 and "keeping rung(s) lookahead" in err
    assert _files(run / "frontier") == kept and doc.stat().st_mtime_ns == written  # nothing rewritten

    from analysis import frontier as F

    def stop(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(F, "terminal_lines", stop)  # Ctrl-C while the finished frontier is analysed
    rc, _, _ = _kalooki(*argv, "--rungs", "greedy,expert", "-q")
    assert rc == 130
    assert _files(run / "frontier") == kept and json.loads(doc.read_text())["complete"] is True


def test_a_frontier_of_other_settings_is_refused_or_replaced_whole_with_force(mine, frontier_run, tmp_path,
                                                                            monkeypatch):
    run = tmp_path / "run"
    shutil.copytree(frontier_run, run)  # seed 1
    argv = [*FRONTIER, mine, "--out", run]
    old = _files(run / "frontier")
    rc, _, err = _kalooki(*argv, "--seed", "2")
    assert rc == 2 and "already holds a frontier of other settings (seed: 1 there, 2 now)" in _one_line(err)
    assert _files(run / "frontier") == old

    from sim import runner
    real = runner.run

    def stop_at_expert(config, **kwargs):
        if config.out.endswith("expert"):
            raise KeyboardInterrupt("interrupted")
        return real(config, **kwargs)

    monkeypatch.setattr(runner, "run", stop_at_expert)
    rc, _, _ = _kalooki(*argv, "--seed", "2", "--force", "-q")
    assert rc == 130 and _files(run / "frontier") == old  # a stop leaves the old frontier whole
    assert (run / ".frontier.partial" / "greedy" / "manifest.json").is_file()  # and the new one to resume
    monkeypatch.setattr(runner, "run", real)
    rc, _, err = _kalooki(*argv, "--seed", "2", "--force")
    assert rc == 0 and "replacing a frontier in" in err and "(--force: seed: 1 there, 2 now)" in err, err
    assert json.loads((run / "frontier" / "frontier.json").read_text())["seed"] == 2
    assert sorted(p.name for p in run.iterdir()) == ["frontier"]


def test_a_skill_re_fit_says_so_and_a_stopped_fit_leaves_the_old_one(mine, tmp_path, monkeypatch):
    run = tmp_path / "run"
    argv = ["skill", "--profile", mine, "--players", "expert,greedy", *GAMES, "--out", run]
    assert _kalooki(*argv, "--boot", "5", "-q")[0] == 0
    fit = run / "skill" / "skill"
    rc, _, err = _kalooki(*argv, "--boot", "3")
    assert rc == 0 and f"replacing the skill fit in {fit} (boot: 5 there, 3 now)" in err, err
    assert json.loads((fit / "skill.json").read_text())["boot"] == 3
    old = _files(run / "skill")

    from sim import runformat
    real, calls = runformat.write_table, []

    def stop_on_second(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(runformat, "write_table", stop_on_second)
    rc, _, _ = _kalooki(*argv, "--boot", "4", "-q")
    assert rc == 130 and _files(run / "skill") == old
    assert sorted(p.name for p in (run / "skill").iterdir() if p.name.startswith(".")) == []
    monkeypatch.setattr(runformat, "write_table", real)
    rc, _, err = _kalooki(*argv, "--games", "8", "--boot", "3")
    assert rc == 2 and "already holds a skill study of other settings (games: 4 there, 8 now)" in _one_line(err)
    assert _files(run / "skill") == old


# ---------------------------------------------------------------------------------------------
# what is said: the time a study may take, short refusals, defaults, progress labels, the ETA


def test_skill_says_the_time_it_may_take_before_playing(mine, tmp_path, monkeypatch):
    from sim import runplan

    def stop(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(runplan, "make_plan", stop)  # planning a billion games: stopped at once
    rc, _, err = _kalooki("skill", "--profile", mine, "--games", "1000000000", "--workers", "2",
                          "--out", tmp_path / "run")
    assert rc == 130
    first = err.splitlines()[0]
    assert first.startswith("skill: up to 1,000,000,000 games to play") and "days" in first, err
    assert not [p for p in (tmp_path / "run").rglob("*") if p.is_file()]  # nothing played or written


def test_a_different_run_is_refused_in_one_short_line(mine, two_runs):
    one = two_runs / "one"
    before = _files(one)
    tables = "a=expert,expert,expert,expert:1; b=greedy,greedy,greedy,greedy:1"
    rc, _, err = _kalooki("simulate", "--profile", mine, *GAMES, "--seed", "1", "--tables", tables, "--out", one)
    assert rc == 2 and "already holds a different run" in _one_line(err) and "tables (mine)" in err
    assert len(err) < 400 and "weight" not in err, err
    assert _files(one) == before


def test_frontier_defaults_its_seed_and_profiles_as_skill_does():
    from sim import frontier
    from sim.skill import DEFAULT_PROFILES
    study = frontier.plan(None, None, profiles=None, games=2, seed=None, out="somewhere", rungs=["greedy", "expert"])
    assert study.out == os.path.join("somewhere", "frontier")
    assert study.configs["greedy"].seed == 1 and tuple(study.plans["greedy"].profiles) == DEFAULT_PROFILES


def test_the_frontier_says_the_time_left_over_every_rung_by_each_rungs_speed():
    from sim import frontier
    clock = frontier.Clock({"greedy": 10, "search": 10})
    assert clock.start("greedy") is None  # nothing timed yet
    assert clock(5, 5.0) == "frontier: about 9 min left in all"  # 5 greedy games at 1 s, 10 search at 56 s
    assert clock.start("search") == "frontier: about 9 min left in all"
    assert clock(5, 50.0) == "frontier: about 50 s left in all"  # the search rung timed: 10 s a game


@pytest.mark.slow
def test_a_skill_study_in_a_bucket_is_published_whole_and_refitted(mine, s3):  # noqa: F811
    """An object store cannot rename a folder: the study is played in .skill.partial and its files moved
    into RUN/skill one by one, the marks last; a re-fit replaces the fit and says so."""
    import pyarrow.fs as pafs

    from sim import runformat
    run = f"s3://{BUCKET}/keeps/run?{s3}"
    argv = ["skill", "--profile", mine, "--players", "expert,greedy", *GAMES, "--out", run]
    assert _kalooki(*argv, "--boot", "2", "-q")[0] == 0
    rc, _, err = _kalooki(*argv, "--boot", "3")
    assert rc == 0 and "replacing the skill fit in" in err and "(boot: 2 there, 3 now)" in err, err
    loc = runformat.locate(run)
    names = [i.path[len(loc.root) + 1:] for i in loc.fs.get_file_info(pafs.FileSelector(loc.root, recursive=True))
             if i.type == pafs.FileType.File]
    assert "skill/manifest.json" in names and "skill/skill/skill.json" in names
    assert not [n for n in names if ".partial" in n], names
    fit = json.loads(runformat.read_bytes(loc.fs, loc.path("skill/skill/skill.json")))
    assert fit["boot"] == 3 and fit["profiles"] == ["mine"]
    rc, _, err = _kalooki("verify", runformat.join_uri(run, "skill"))
    assert rc == 0, err
