"""Each shard summarised once, by the worker that wrote it: the summary file's exact round trip, and a
report from stored summaries equal to one from rows (tables, compositions, paired compare), with
damaged, missing and older runs read from rows instead."""
from __future__ import annotations

import json

import pandas as pd
import pyarrow.parquet as pq
import pytest

from analysis import compare, load, metrics, summaries
from analysis.summaries import write_shard_summary
from bench import report as bench_report
from sim import runconfig, runformat, runner

pytestmark = pytest.mark.usefixtures("figures_not_rasterised_in_module")  # figures drawn, not rendered: no test reads them

MIX = "fast=greedy,greedy,greedy,greedy:3; one_patient=patient,greedy,greedy,greedy:1"


@pytest.fixture(scope="module")
def paired_run(tmp_path_factory):
    """Two paired profiles at a mix of two compositions, two shards each (so a profile's summary merges
    shards), as `kalooki simulate` writes it."""
    out = tmp_path_factory.mktemp("summary-files") / "run"
    cfg = runconfig.make_config(None, None, profiles=["kalooki40", "swedish"], games=8, seed=5, out=str(out),
                                shard_games=4, tables=MIX, paired=True)
    runner.run_local(cfg, summarise=write_shard_summary, progress=False, log=lambda m: None)
    return out


def _frames_equal(a: summaries.Summary, b: summaries.Summary, games: bool = True) -> None:
    pd.testing.assert_frame_equal(a.moments, b.moments, check_exact=True)
    pd.testing.assert_frame_equal(a.survival.reset_index(drop=True), b.survival.reset_index(drop=True),
                                  check_exact=True)
    assert a.counts == b.counts and a.compositions == b.compositions
    if games:
        pd.testing.assert_frame_equal(a.games_table(), b.games_table(), check_exact=True)


def test_a_summary_file_holds_the_summary_exactly(tmp_path):
    run = bench_report.synthesize_run(tmp_path / "run", 40_000, seed=2, shard_rows=40_000)
    manifest = load.read_manifest(run)
    shard = manifest["shards"][0]
    loc = runformat.locate(run)
    hands = pq.read_table(loc.path(shard["files"]["hands"]["path"]))
    games = pq.read_table(loc.path(shard["files"]["games"]["path"]))
    made = summaries.summarise_tables(hands, games, manifest)
    assert len(made.games_table()) > 0 and len(made.moments) > 0
    entry = runformat.write_table(loc, "elsewhere/summary.parquet", summaries.to_arrow(made, manifest),
                                  summaries.SUMMARY_PARQUET)
    back = summaries.read_shard_summary(loc.file(entry["path"]), manifest, keep_games=True)
    _frames_equal(made, back)
    assert list(back.moments.dtypes) == list(made.moments.dtypes)
    without = summaries.read_shard_summary(loc.file(entry["path"]), manifest, keep_games=False)
    assert without.per_game == [] and without.moments.equals(made.moments)
    # the same as the summary of the shard's file read back, per-game sums included
    from_file = summaries._summarise_files(shard["profile"], loc.file(shard["files"]["hands"]["path"]),
                                           loc.file(shard["files"]["games"]["path"]), manifest, True)
    _frames_equal(made, from_file)
    meta = summaries.summary_metadata(pq.read_schema(loc.path(entry["path"])))
    assert meta["version"] == summaries.SUMMARY_VERSION
    # small beside the rows it stands for: per-game sums included, under a quarter of the shard's Parquet
    rows_bytes = shard["files"]["hands"]["bytes"] + shard["files"]["games"]["bytes"]
    assert entry["bytes"] < rows_bytes / 4, (entry["bytes"], rows_bytes)


def test_a_summary_of_another_version_or_other_rules_is_not_used(tmp_path):
    run = bench_report.synthesize_run(tmp_path / "run", 20_000, seed=4, shard_rows=20_000)
    manifest = load.read_manifest(run)
    file = runformat.locate(run).file(manifest["shards"][0]["files"]["summary"]["path"])
    assert summaries.read_shard_summary(file, manifest, False) is not None
    other_rules = json.loads(json.dumps(manifest))
    other_rules["profiles"][manifest["shards"][0]["profile"]]["params"]["max_buy_ins"] = 7
    assert summaries.read_shard_summary(file, other_rules, False) is None
    other_design = json.loads(json.dumps(manifest))  # clustered otherwise: a duplicate run's deals
    other_design["profiles"][manifest["shards"][0]["profile"]][runformat.GAMES_PER_DEAL] = 4
    assert summaries.read_shard_summary(file, other_design, False) is None
    table = pq.read_table(file)
    meta = summaries.summary_metadata(table.schema)
    stale = table.replace_schema_metadata({runformat.SUMMARY_METADATA_KEY: json.dumps({**meta, "version": summaries.SUMMARY_VERSION - 1})})
    pq.write_table(stale, file)
    assert summaries.read_shard_summary(file, manifest, False) is None


def test_simulate_writes_a_summary_per_shard_and_verify_checks_it(paired_run):
    manifest = load.read_manifest(paired_run)
    assert len(manifest["shards"]) == 4
    for shard in manifest["shards"]:
        entry = shard["files"][runformat.SUMMARY]
        assert entry["path"] == runformat.shard_path("summary", shard["profile"], shard["index"])
        assert entry["rows"] > 0 and len(entry["sha256"]) == 64
    assert load.verify_run(paired_run) == []
    assert all(runformat.shard_is_intact(runformat.locate(paired_run), s, ("hands", "games"))
               for s in manifest["shards"])


def _report_tables(run, **kwargs) -> dict[str, pd.DataFrame]:
    res = metrics.compute(metrics.load_run(run, **kwargs))
    tables = {name: getattr(res, name) for name in res.__dataclass_fields__ if name != "run"}
    tables["summary"], tables["by_table"] = res.summary, res.by_table
    tables["compositions"] = res.compositions.summary
    return tables, res.run.summary.read_from


def _assert_same_tables(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for name in a:
        pd.testing.assert_frame_equal(a[name], b[name], check_exact=True, obj=name)


@pytest.fixture(scope="module")
def paired_report(paired_run):
    """The paired run's report tables read from its summary files, and where its shards were read from."""
    return _report_tables(paired_run)


@pytest.fixture(scope="module")
def paired_compare(paired_run):
    """compare's table of the paired run's two profiles, from its summary files (paired by game)."""
    return compare.compare(paired_run)


def test_the_report_from_summaries_equals_the_report_from_rows(paired_run, paired_report, paired_compare,
                                                             monkeypatch):
    stored, read_from = paired_report
    assert read_from == {"summary file": 4}
    by_uri, read_from = _report_tables(f"file://{paired_run}")  # through a pyarrow filesystem URI
    assert read_from == {"summary file": 4}
    _assert_same_tables(stored, by_uri)
    monkeypatch.setenv(summaries.FROM_ROWS_ENV, "1")
    rows, read_from = _report_tables(paired_run)
    assert read_from == {"rows": 4}
    _assert_same_tables(stored, rows)
    assert len(stored["compositions"]) > len(stored["summary"])  # two compositions per profile
    from_rows = compare.compare(paired_run)  # paired by game: per-game sums, from rows
    monkeypatch.delenv(summaries.FROM_ROWS_ENV)
    from_files = paired_compare
    assert from_files["test"].str.contains("per-game differences").any()
    pd.testing.assert_frame_equal(from_files, from_rows, check_exact=True)


def test_a_damaged_summary_is_found_by_verify_and_its_shard_read_from_rows(paired_run, paired_report, tmp_path):
    import shutil
    run = tmp_path / "damaged"
    shutil.copytree(paired_run, run)
    manifest = load.read_manifest(run)
    rel = manifest["shards"][2]["files"]["summary"]["path"]
    data = bytearray((run / rel).read_bytes())
    data[len(data) // 2] ^= 0xFF
    (run / rel).write_bytes(bytes(data))
    problems = load.verify_run(run)
    assert len(problems) == 1 and rel in problems[0] and "sha256" in problems[0]
    check = load.check_run(run)
    assert rel in check.unreadable
    partial, read_from = _report_tables(run, exclude=check.unreadable, problems=check.problems)
    assert read_from == {"summary file": 3, "rows": 1}
    _assert_same_tables(partial, paired_report[0])
    (run / rel).unlink()  # missing: a problem, and the shard read from rows
    check = load.check_run(run)
    assert any("missing" in p and rel in p for p in check.problems)
    _, read_from = _report_tables(run, exclude=check.unreadable)
    assert read_from == {"summary file": 3, "rows": 1}


def test_a_run_written_without_summaries_reports_and_verifies_from_rows(paired_run, paired_report, paired_compare,
                                                                        tmp_path):
    import shutil
    run = tmp_path / "older"
    shutil.copytree(paired_run, run)
    manifest = load.read_manifest(run)
    for shard in manifest["shards"]:
        del shard["files"][runformat.SUMMARY]
    shutil.rmtree(run / "summary")
    (run / "manifest.json").write_text(json.dumps(manifest))
    assert load.verify_run(run) == []
    older, read_from = _report_tables(run)
    assert read_from == {"rows": 4}
    _assert_same_tables(older, paired_report[0])
    pd.testing.assert_frame_equal(compare.compare(run), paired_compare, check_exact=True)
    # a resumed run plays such shards again, so that every shard ends with its summary
    loc = runformat.locate(run)
    assert not any(runformat.shard_is_intact(loc, s, ("hands", "games")) for s in manifest["shards"])
