"""Every shape of run `kalooki simulate` writes is one `verify` finds sound and `report` and `compare`
read: a profile file, a profile file beside the shipped profile it was copied from, one profile at two
table compositions, a paired run, and a run in an S3 bucket (moto's server on loopback, as in
test_cluster.py).  A profile's name in a run is its own: a copied profile with a rule changed never
shares a folder, a row or a shard file with the profile it copies, and an edited profile file cannot
be resumed into the run its old rules wrote.  A report directory holding another run's report is
not replaced unless asked.
"""
from __future__ import annotations

import dataclasses
import json

import pyarrow.dataset as ds
import pytest

from sim import profiles, runformat
from sim.cli import main
from sim.errors import UserError
from sim.commands import common
from test_cluster import BUCKET, env, s3  # noqa: F401  (module fixtures: moto's S3 server)

pytestmark = pytest.mark.usefixtures("figures_not_rasterised_in_module")  # figures drawn, not rendered: no test reads them

GAMES, SHARD, SEED = 6, 3, 4
TWO_TABLES = ('tables = [{bots = "greedy,greedy,greedy,greedy", weight = 1}, '
              '{bots = "expert,expert,expert,expert", weight = 1}]\n')


def _copy_of_kalooki40(path, **changes):
    """kalooki40 as `kalooki profiles show kalooki40 --toml` writes it (its name key included), with
    ``changes`` to its rules."""
    path.write_text(profiles.to_toml(dataclasses.replace(profiles.load("kalooki40"), **changes)))
    return path


@pytest.fixture(scope="module")
def mine(tmp_path_factory):
    """A designer's variant: kalooki40 copied, opening_min 51, the file still says name = "kalooki40"."""
    path = _copy_of_kalooki40(tmp_path_factory.mktemp("profile") / "mine.toml", opening_min=51)
    assert 'name = "kalooki40"' in path.read_text()
    return path


def _simulate(out, *args) -> None:
    assert main(["simulate", "--local", "--quiet", "--games", str(GAMES), "--seed", str(SEED),
                 "--shard-games", str(SHARD), "--out", str(out), *args]) == 0


@pytest.fixture(scope="module")
def shapes(mine, tmp_path_factory):
    """The local shapes: name -> (run, the profiles to compare: within the run, or against another run)."""
    root = tmp_path_factory.mktemp("shapes")
    two_tables = root / "two_tables.toml"
    two_tables.write_text(f'profiles = ["kalooki40"]\n{TWO_TABLES}')
    _simulate(root / "file", "--profile", str(mine))
    _simulate(root / "file_and_shipped", "--profile", str(mine), "--profile", "kalooki40")
    _simulate(root / "two_tables", "--config", str(two_tables))
    _simulate(root / "paired", "--profile", str(mine), "--profile", "kalooki40", "--paired")
    return {"profile file": (root / "file", [str(root / "two_tables"), "--profiles", "mine,kalooki40"]),
            "profile file and shipped": (root / "file_and_shipped", ["--profiles", "mine,kalooki40"]),
            "two table compositions": (root / "two_tables", [str(root / "file"), "--profiles", "kalooki40,mine"]),
            "paired": (root / "paired", ["--profiles", "kalooki40,mine"])}


SHAPES = ["profile file", "profile file and shipped", "two table compositions", "paired"]


def test_a_copied_profile_is_named_after_its_file_in_every_part_of_the_run(shapes, mine):
    run, _ = shapes["profile file and shipped"]
    manifest = json.loads((run / "manifest.json").read_text())
    assert list(manifest["profiles"]) == ["mine", "kalooki40"]
    assert manifest["profiles"]["mine"]["source"] == str(mine) and "source" not in manifest["profiles"]["kalooki40"]
    assert manifest["profiles"]["mine"]["params"]["opening_min"] == 51
    assert manifest["profiles"]["kalooki40"]["params"]["opening_min"] == 40
    assert manifest["profiles"]["mine"]["rules_hash"] != manifest["profiles"]["kalooki40"]["rules_hash"]
    for table in ("hands", "games", "summary"):
        assert sorted(p.name for p in (run / table).iterdir()) == ["profile=kalooki40", "profile=mine"]
    paths = [f["path"] for s in manifest["shards"] for f in s["files"].values()]
    assert len(paths) == len(set(paths)) == 2 * (GAMES // SHARD) * 3  # two profiles, 3 files a shard, none shared
    rows = ds.dataset(run / "games", format="parquet", partitioning="hive").to_table(columns=["profile"])
    assert sorted(set(rows["profile"].to_pylist())) == ["kalooki40", "mine"]


@pytest.mark.parametrize("shape", SHAPES)
def test_verify_finds_every_shape_sound(shapes, shape, capsys):
    run, _ = shapes[shape]
    rc = main(["verify", str(run)])
    out = capsys.readouterr().out
    assert rc == 0 and ": ok: run " in out, out


@pytest.mark.parametrize("shape", SHAPES)
def test_report_reads_every_shape(shapes, shape, tmp_path, capsys):
    run, _ = shapes[shape]
    rc = main(["report", str(run), "--out", str(tmp_path / "report")])
    captured = capsys.readouterr()
    assert rc == 0, captured.err
    assert (tmp_path / "report" / "report.html").is_file()


@pytest.mark.parametrize("shape", SHAPES)
def test_compare_reads_every_shape(shapes, shape, tmp_path, capsys):
    run, against = shapes[shape]
    rc = main(["compare", str(run), *against, "--out", str(tmp_path / "compare")])
    captured = capsys.readouterr()
    assert rc == 0, captured.err
    assert (tmp_path / "compare" / "report.html").is_file()


@pytest.mark.slow
def test_a_run_in_a_bucket_verifies_reports_and_compares(s3, mine, tmp_path, capsys):  # noqa: F811
    run = f"s3://{BUCKET}/shapes/file_and_shipped?{s3}"
    _simulate(run, "--profile", str(mine), "--profile", "kalooki40")
    assert main(["verify", run]) == 0
    assert main(["report", run, "--out", str(tmp_path / "report")]) == 0
    assert main(["compare", run, "--profiles", "kalooki40,mine", "--out", str(tmp_path / "compare")]) == 0
    capsys.readouterr()
    loc = runformat.locate_run(run)
    assert sorted(runformat.read_manifest(loc)["profiles"]) == ["kalooki40", "mine"]


def test_a_profile_file_sweeps_under_its_own_name(mine, tmp_path, capsys):
    rc = main(["sweep", "--profile", str(mine), "--param", "hand_size=12,13", "--games", "4", "--seed", "1",
               "--local", "--quiet", "--runs", str(tmp_path / "runs"), "--out", str(tmp_path / "sweep")])
    out = capsys.readouterr().out
    assert rc == 0 and "profile mine," in out, out
    for v in (12, 13):
        manifest = json.loads((tmp_path / "runs" / f"hand_size={v}" / "manifest.json").read_text())
        assert list(manifest["profiles"]) == ["mine"]
        assert manifest["profiles"]["mine"]["params"]["opening_min"] == 51
        assert manifest["profiles"]["mine"]["params"]["hand_size"] == v


def test_an_edited_profile_file_is_not_resumed_into_the_run_of_its_old_rules(shapes, mine, tmp_path, capsys):
    run, _ = shapes["profile file"]
    before = {p: p.read_bytes() for p in run.rglob("*") if p.is_file()}
    edited = _copy_of_kalooki40(tmp_path / "mine.toml", opening_min=55)
    rc = main(["simulate", "--local", "--games", str(GAMES), "--seed", str(SEED), "--shard-games", str(SHARD),
               "--out", str(run), "--profile", str(edited)])
    err = capsys.readouterr().err
    assert rc == 2
    assert "already holds a different run" in err and "profile mine's rules (rules_hash" in err
    assert "opening_min 51 there, 55 now" in err and "give the new rules another --out" in err
    assert {p: p.read_bytes() for p in run.rglob("*") if p.is_file()} == before


def test_profiles_that_would_share_a_name_in_a_run_are_refused(mine, tmp_path, capsys):
    other = tmp_path / "other"
    other.mkdir()
    _copy_of_kalooki40(other / "mine.toml", opening_min=55)
    copy = _copy_of_kalooki40(tmp_path / "copy.toml")  # the shipped rules, the shipped name
    named_like_shipped = _copy_of_kalooki40(tmp_path / "kalooki40.toml", opening_min=55)
    out = tmp_path / "run"
    for profiles_given, message in (
            ([str(mine), str(other / "mine.toml")], "are both profile 'mine'"),
            (["kalooki40", str(copy)], "are both profile 'kalooki40'"),
            ([str(named_like_shipped)], "its name 'kalooki40' is a shipped profile's")):
        argv = ["simulate", "--local", "--games", "2", "--seed", "1", "--out", str(out)]
        for p in profiles_given:
            argv += ["--profile", p]
        rc = main(argv)
        err = capsys.readouterr().err
        assert rc == 2 and message in err and err.count("\n") == 1, err
        assert not out.exists()


def test_a_report_directory_of_another_run_is_kept_unless_forced(shapes, tmp_path, capsys):
    run, _ = shapes["paired"]
    run_id = json.loads((run / "manifest.json").read_text())["run_id"]
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / common.REPORT_MARK).write_text(json.dumps({"kind": "report", "runs": ["0123456789abcdef"]}))
    (theirs / "report.md").write_text("another run's report\n")
    unmarked = tmp_path / "unmarked"
    unmarked.mkdir()
    (unmarked / "notes.txt").write_text("mine\n")
    for out, held in ((theirs, "the report of run(s) 0123456789abcdef"),
                      (unmarked, f"files no kalooki report marked as its own ({common.REPORT_MARK})")):
        before = {p.name: p.read_bytes() for p in out.iterdir()}
        rc = main(["report", str(run), "--out", str(out)])
        err = capsys.readouterr().err
        assert rc == 2 and held in err and f"not the report of run(s) {run_id}" in err and "--force" in err, err
        assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    rc = main(["sweep", "--param", "opening_min=30,40", "--games", "2", "--local", "--runs", str(tmp_path / "runs"),
               "--out", str(unmarked)])
    err = capsys.readouterr().err
    assert rc == 2 and "--out" in err and "--force" in err, err
    assert not (tmp_path / "runs").exists(), "the sweep played before it checked its report directory"


def test_a_report_directory_is_replaced_by_the_same_runs_report_or_with_force(tmp_path):
    out = tmp_path / "report"
    with common.report_dir(out, "report", ["aaaa"]) as where:
        (where / "report.md").write_text("first\n")
    with common.report_dir(out, "report", ["aaaa"]) as where:  # the same run: its own report is replaced
        (where / "report.md").write_text("second\n")
    assert (out / "report.md").read_text() == "second\n"
    with pytest.raises(UserError, match="already holds the report of run.s. aaaa"):
        with common.report_dir(out, "report", ["bbbb"]):
            pass
    with pytest.raises(UserError, match="already holds the report of run.s. aaaa, not the sweep"):
        with common.report_dir(out, "sweep", ["aaaa"]):
            pass
    with common.report_dir(out, "report", ["bbbb"], force=True):
        pass
    assert json.loads((out / common.REPORT_MARK).read_text()) == {"kind": "report", "runs": ["bbbb"]}
    fresh = tmp_path / "fresh"
    with pytest.raises(RuntimeError):
        with common.report_dir(fresh, "report", ["cccc"]):
            raise RuntimeError("the report failed")
    assert not fresh.exists(), "a report that failed left a new directory behind"
