"""A run on a cluster, stored in S3, as a cluster user would make it: a two-node Ray cluster on this
host and moto's S3 server on loopback, both started and stopped here.  `kalooki simulate --address`
writes to an s3:// URI; a worker is killed mid-shard (Ray re-runs its task) and the driver is killed
mid-run (re-running the command resumes it); then `verify`, `report` and `compare` read the bucket,
and the tables equal those of a local in-process run with the same seed.  `frontier`, `skill` and
`tune` play on the same cluster into the bucket, and `report` shows their sections.  `replay`, verify's
damage report and `sweep` use small runs in the bucket.  The cluster studies are the ``slow`` tier
(``make test-slow``); the small runs in the bucket are ``make test``'s.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq
import pytest

from analysis.summaries import write_shard_summary
from sim import cli, runconfig, runexec, runformat, runner

ROOT = Path(__file__).resolve().parent.parent
PROFILE = "kalooki40"
GAMES, SHARD, SEED = 400, 8, 5  # 50 shards of greedy games (the compiled hand loop): seconds of play
PLANNED = GAMES // SHARD
BUCKET = "kal"
SORT_KEYS = {"hands": ["game_id", "hand_no", "redeal_no", "seat"], "games": ["game_id", "seat"]}
# Test values only: moto accepts any credentials.  Ray's cluster mode off makes every Ray process
# (nodes, workers, drivers) take 127.0.0.1 as this host's address, so nothing listens beyond loopback.
ENV = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1",
       "AWS_EC2_METADATA_DISABLED": "true", "RAY_USAGE_STATS_ENABLED": "0",
       "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for_port(port: int, proc: subprocess.Popen, seconds: float = 60) -> None:
    deadline = time.time() + seconds
    while time.time() < deadline:
        assert proc.poll() is None, "moto's S3 server exited at start-up"
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    pytest.fail(f"moto's S3 server did not listen on 127.0.0.1:{port}")


@pytest.fixture(scope="module")
def env():
    """The test values above, and a Ray temp folder of this module's own: the cluster's sessions and
    its address file stay there, so no other Ray user on this host joins the cluster by mistake."""
    ray_tmp = tempfile.mkdtemp(prefix="kal-ray-")  # short: Ray's socket paths must stay under 107 bytes
    try:
        with pytest.MonkeyPatch.context() as mp:
            for key, value in ENV.items():
                mp.setenv(key, value)
            mp.setenv("RAY_TMPDIR", ray_tmp)
            yield
    finally:
        shutil.rmtree(ray_tmp, ignore_errors=True)


@pytest.fixture(scope="module")
def s3(env):
    """moto's S3 server on 127.0.0.1 with an empty bucket; the endpoint's URI query."""
    pytest.importorskip("moto.server")
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_for_port(port, proc)
        pafs.S3FileSystem(endpoint_override=f"127.0.0.1:{port}", scheme="http", region="us-east-1",
                          allow_bucket_creation=True).create_dir(BUCKET)
        yield f"endpoint_override=127.0.0.1:{port}&scheme=http"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    """The reference: the same run played in this process, to a local directory."""
    out = tmp_path_factory.mktemp("local") / "run"
    runner.run_local(runconfig.make_config(None, None, profiles=[PROFILE], games=GAMES, seed=SEED, out=str(out),
                                           shard_games=SHARD), summarise=write_shard_summary, progress=False)
    return out


@pytest.fixture(scope="module")
def cluster(env, tmp_path_factory):
    """A head node and a worker node of one CPU each; every worker they start finds the fault hook
    set, so the first shard task to write a file kills its worker (once: the marker file)."""
    ray_cluster_utils = pytest.importorskip("ray.cluster_utils")
    marker = tmp_path_factory.mktemp("fault") / "killed-once"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(runexec.FAULT_ENV, str(marker))
        node = {"num_cpus": 1, "node_ip_address": "127.0.0.1", "object_store_memory": 100 * 2**20}
        c = ray_cluster_utils.Cluster(initialize_head=True, head_node_args={**node, "include_dashboard": False})
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv(runexec.FAULT_ENV, str(marker))
            c.add_node(**node)
        c.wait_for_nodes()
        yield c.address, marker
    finally:
        c.shutdown()


def _simulate(address: str, out: str) -> list[str]:
    return [sys.executable, "-m", "sim.cli", "simulate", "--no-progress", "--address", address, "--profile", PROFILE,
            "--games", str(GAMES), "--seed", str(SEED), "--shard-games", str(SHARD), "--out", out]


def _manifest(loc: runformat.RunLocation) -> dict | None:
    try:
        data = runformat.read_bytes(loc.fs, loc.path(runformat.MANIFEST_NAME))
    except (OSError, pa.ArrowException):
        return None
    return json.loads(data) if data else None


def _tables(run) -> dict[str, pa.Table]:
    """Every table of a run (path or URI), read through the run format, sorted by its key."""
    loc = runformat.locate_run(run)
    manifest = runformat.read_manifest(loc)
    out = {}
    for table, keys in SORT_KEYS.items():
        files = runformat.table_files(loc, manifest, table)
        assert len(files) == PLANNED, (table, len(files))
        parts = [pq.read_table(f.path, filesystem=f.fs) for f in files]
        out[table] = pa.concat_tables(parts).sort_by([(k, "ascending") for k in keys])
    return out


@pytest.mark.slow
def test_simulate_on_a_cluster_into_s3_survives_a_killed_worker_and_driver(s3, local_run, cluster, tmp_path,
                                                                            capsys, monkeypatch):
    address, marker = cluster
    uri = f"s3://{BUCKET}/run1?{s3}"
    loc = runformat.locate(uri)
    argv = _simulate(address, uri)
    with open(tmp_path / "driver.err", "w+") as err:
        driver = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)
        try:
            deadline = time.time() + 240
            while time.time() < deadline:
                m = _manifest(loc)
                if m and m["shards"]:
                    break
                if driver.poll() is not None:
                    err.seek(0)
                    pytest.fail(f"the driver exited early ({driver.returncode}): {err.read()[-3000:]}")
                time.sleep(0.05)
            else:
                pytest.fail("no shard finished in time")
            os.killpg(driver.pid, signal.SIGKILL)
        finally:
            driver.wait(timeout=30)
    # A shard lands in the manifest only after passing the fault hook, so a worker was killed by now.
    assert marker.exists(), "no worker was killed"
    m = _manifest(loc)
    assert m["complete"] is False and 1 <= len(m["shards"]) < PLANNED, "the driver kill did not land mid-run"
    done_before = {s["index"] for s in m["shards"]}

    resumed = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert "shard(s) already done" in resumed.stderr
    m = _manifest(loc)
    assert m["complete"] is True and len(m["shards"]) == PLANNED
    assert done_before <= {s["index"] for s in m["shards"]}

    capsys.readouterr()
    assert cli.main(["verify", uri]) == 0
    assert f"{GAMES} games" in capsys.readouterr().out
    assert _tables(uri) == _tables(local_run)  # every game once, the same rows as the local run

    assert cli.main(["report", uri, "--out", str(tmp_path / "report")]) == 0
    assert (tmp_path / "report" / "report.html").is_file()
    monkeypatch.chdir(tmp_path)  # the default report folders go under ./reports
    assert cli.main(["compare", uri, str(local_run)]) == 0
    assert (tmp_path / "reports" / "compare-run1-vs-run" / "report.html").is_file()


def test_replay_and_verify_read_a_small_run_in_the_bucket(s3, capsys):
    """replay prints a hand from the bucket; a damaged object there is named by verify (exit 1)."""
    uri = f"s3://{BUCKET}/small?{s3}"
    assert cli.main(["simulate", "--no-progress", "--local", "--profile", PROFILE, "--games", "4",
                     "--seed", "1", "--shard-games", "2", "--events", "turns", "--out", uri]) == 0
    capsys.readouterr()
    assert cli.main(["replay", uri, "--game", "3", "--hand", "1"]) == 0
    text = capsys.readouterr().out
    assert f"{PROFILE}  game 3  hand 1" in text and "drew" in text and "result:" in text
    loc = runformat.locate(uri)
    rel = runformat.shard_path("hands", PROFILE, 1)
    data = runformat.read_bytes(loc.fs, loc.path(rel))
    runformat.write_bytes_atomic(loc.fs, loc.path(rel), data[:-50])
    capsys.readouterr()
    assert cli.main(["verify", uri]) == 1
    assert f"{rel} does not match its sha256" in capsys.readouterr().out
    assert cli.main(["verify", f"s3://{BUCKET}/nothing-here?{s3}"]) == 2
    assert "does not exist" in capsys.readouterr().err


@pytest.mark.slow
def test_sweep_keeps_its_runs_in_the_bucket(s3, tmp_path, capsys):
    runs = f"s3://{BUCKET}/sweep?{s3}"
    assert cli.main(["sweep", "--profile", PROFILE, "--param", "opening_min=30,60", "--games", "4", "--seed", "2",
                     "--local", "--runs", runs, "--out", str(tmp_path / "rep")]) == 0
    for value in (30, 60):
        point = runformat.join_uri(runs, f"opening_min={value}")
        assert point == f"s3://{BUCKET}/sweep/opening_min={value}?{s3}"
        manifest = runformat.read_manifest(runformat.locate_run(point))
        assert manifest["profiles"][PROFILE]["params"]["opening_min"] == value
    assert (tmp_path / "rep" / "report.html").is_file()


# The studies on the cluster, each as small as its command accepts: two cheap rungs of the ladder, two
# cheap players, a tune study of one coarse stage.  The tune arguments are those of test_tune's study in
# a bucket, so the same answer is known to be reachable from five games a value.
STUDY_GAMES, STUDY_SEED = 8, 2
TUNE = ["--param", "opening_min=30:60", "--target", "p_can_open_at_deal=0.2", "--games", "25", "--block-games", "5",
        "--shard-games", "5", "--seed", "4"]


def _kalooki(*argv: str, seconds: float = 300) -> subprocess.CompletedProcess:
    """`kalooki ARGV` in a process of its own with this module's environment (ENV and its RAY_TMPDIR),
    so that its Ray driver, like the nodes and their workers, takes 127.0.0.1 as this host's address:
    Ray reads RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER when first imported, which in this test process may have
    been before ENV was set.  A command still running after ``seconds`` is killed with its process group
    and fails the test, naming it."""
    with subprocess.Popen([sys.executable, "-m", "sim.cli", *argv], cwd=ROOT, env={**os.environ, **ENV},
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          start_new_session=True) as proc:
        try:
            out, err = proc.communicate(timeout=seconds)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            pytest.fail(f"kalooki {argv[0]} did not finish in {seconds:.0f} s: {err[-3000:]}")
    assert proc.returncode == 0, f"kalooki {' '.join(argv)} exited {proc.returncode}: {err[-3000:]}"
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def _json(uri: str, name: str) -> dict:
    loc = runformat.locate(uri)
    data = runformat.read_bytes(loc.fs, loc.path(name))
    assert data is not None, f"{name} is not in {uri}"
    return json.loads(data)


@pytest.mark.slow
def test_frontier_skill_and_tune_on_a_cluster_into_s3_and_their_report(s3, cluster, tmp_path, capsys):
    """A run, its frontier and its skill study, and a tune study, each played on the two-node cluster
    (--address; the runner never falls back to a local Ray, so success means the cluster played them)
    into the bucket; `report RUN` shows the frontier's and the skill study's sections read from the bucket,
    `report STUDY` the tune study's page, and the tune study's answer is the one an in-process study of the
    same settings finds (and `compare` of the two finds no difference)."""
    address, _ = cluster
    run = f"s3://{BUCKET}/studies?{s3}"
    study = f"s3://{BUCKET}/tune?{s3}"
    on_cluster = ["--address", address, "-q"]
    _kalooki("simulate", *on_cluster, "--profile", PROFILE, "--games", str(STUDY_GAMES), "--seed", str(STUDY_SEED),
             "--shard-games", "4", "--out", run)
    frontier = _kalooki("frontier", *on_cluster, "--profile", PROFILE, "--games", str(STUDY_GAMES),
                        "--seed", str(STUDY_SEED), "--rungs", "greedy,expert", "--shard-games", "4", "--out", run)
    assert "frontier: " in frontier.stdout and "greedy" in frontier.stdout and "expert" in frontier.stdout
    skill = _kalooki("skill", *on_cluster, "--profile", PROFILE, "--players", "greedy,random", "--games", "16",
                     "--seed", str(STUDY_SEED), "--boot", "20", "--shard-games", "8", "--out", run)
    assert "the spread spans greedy to random" in skill.stdout
    tuned = _kalooki("tune", *on_cluster, *TUNE, "--out", study, "--report", str(tmp_path / "tune-report"))
    assert "meets 0.2 at opening_min" in tuned.stdout

    doc = _json(runformat.join_uri(run, "frontier"), "frontier.json")
    assert doc["rungs"] == ["greedy", "expert"]
    for rung in doc["rungs"]:
        manifest = _json(runformat.join_uri(run, f"frontier/{rung}"), runformat.MANIFEST_NAME)
        assert manifest["complete"] and sum(s["n_games"] for s in manifest["shards"]) == STUDY_GAMES
    skill_run = _json(runformat.join_uri(run, "skill"), runformat.MANIFEST_NAME)
    assert skill_run["complete"] and "--address" in skill_run["command"]
    assert _json(runformat.join_uri(run, "skill"), "skill/skill.json")
    tune_doc = _json(study, "tune.json")
    assert tune_doc["complete"] and tune_doc["stages"][0]["values"] == [30, 38, 45, 52, 60]
    for name in tune_doc["runs"]:
        manifest = _json(runformat.join_uri(study, name), runformat.MANIFEST_NAME)
        assert manifest["complete"] and "--address" in manifest["command"]

    capsys.readouterr()
    assert cli.main(["report", run, "--out", str(tmp_path / "report"), "-q"]) == 0
    html = (tmp_path / "report" / "report.html").read_text()
    assert 'id="strength-frontier"' in html and 'id="skill-and-luck"' in html
    assert "could not be read" not in html  # the frontier's section itself, not the note of a failed read
    assert "greedy" in html and "expert" in html and "random" in html
    assert cli.main(["report", study, "--out", str(tmp_path / "tune-page"), "-q"]) == 0
    assert "tune study" in capsys.readouterr().out
    assert (tmp_path / "tune-page" / "data" / "values.csv").read_text() == \
        (tmp_path / "tune-report" / "data" / "values.csv").read_text()

    here = str(tmp_path / "tune-local")
    assert cli.main(["tune", *TUNE, "--local", "-q", "--out", here, "--report", str(tmp_path / "local-report")]) == 0
    local_doc = json.loads((Path(here) / "tune.json").read_text())
    assert (local_doc["answer"], local_doc["stages"]) == (tune_doc["answer"], tune_doc["stages"])
    assert cli.main(["compare", study, here, "--out", str(tmp_path / "compare"), "-q"]) == 0  # the same deals
    difference = pd.read_csv(tmp_path / "compare" / "data" / "answers.csv").set_index("side").loc["B - A"]
    assert (difference["answer"], difference["ci_low"], difference["ci_high"]) == (0, 0, 0)
