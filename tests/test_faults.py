"""Faults: a driver killed mid-run and resumed, a run interrupted with Ctrl-C and resumed, a Ray worker
killed mid-shard.  Each ends with every game recorded exactly once and tables identical to an
uninterrupted run with the same seed.

Each faulty run is `kalooki simulate` in a subprocess (its own driver and local Ray cluster) in a
session of its own, so every process it started can be reaped afterwards.  The faulty runs are the
``slow`` tier (``make test-slow``): each starts Ray and plays a run twice.  A Ctrl-C that Python
swallows where it lands is shown in the fast tier, in-process and in the Ray loop (one small local Ray).
"""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from analysis.summaries import write_shard_summary
from sim import runexec, runner
from sim.errors import UserError
from test_runner import (GAMES, ROOT, assert_every_game_once, assert_same_tables, cli_args, config,  # noqa: F401
                         ray_session, read_tables, runner_verify, simulate_cmd)

SHARD = 4
PLANNED = 2 * -(-GAMES // SHARD)  # shards in the run


# the Ctrl-C run's games: enough four-game shards that the interrupt lands before the last is written, even
# on a loaded machine (with GAMES the whole run can finish between the first shard and the signal)
CTRL_C_GAMES = 10 * GAMES
CTRL_C_PLANNED = 2 * -(-CTRL_C_GAMES // SHARD)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("ref") / "run"
    runner.run_local(config(out), summarise=write_shard_summary, progress=False)
    return read_tables(out)


@pytest.fixture(scope="module")
def ctrl_c_reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("ref") / "run"
    runner.run_local(config(out, games=CTRL_C_GAMES), summarise=write_shard_summary, progress=False)
    return read_tables(out)


def _session_pids(sid: int) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[3]) == sid:  # field 6 of /proc/PID/stat: the session id
                pids.append(int(entry.name))
    return pids


def _reap_session(sid: int) -> None:
    """Kill what is left of the session the subprocess started (its Ray cluster, after a driver kill)."""
    for _ in range(50):
        pids = _session_pids(sid)
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.1)


def _manifest(out: Path) -> dict | None:
    try:
        return json.loads((out / "manifest.json").read_text())
    except (OSError, ValueError):
        return None


def _with_ctrl_c_at_its_default(argv: list[str]) -> list[str]:
    """``argv`` started with SIGINT at its default disposition, as a shell starts the terminal's foreground
    command.  A command started with SIGINT ignored (this test run in the background of a script, whose
    children inherit that) keeps ignoring it, as every Unix program does, and would never see the Ctrl-C."""
    reset = ("import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
             "os.execv(sys.argv[1], sys.argv[1:])")
    return [sys.executable, "-c", reset, *argv]


def _wait_for_a_shard(proc, out) -> None:
    """Wait until the run at ``out`` has a finished shard in its manifest (the driver still running)."""
    deadline = time.time() + 240
    while time.time() < deadline:
        m = _manifest(out)
        if m and m["shards"]:
            return
        assert proc.poll() is None, proc.stderr.read()
        time.sleep(0.05)
    pytest.fail("no shard finished in time")


@pytest.mark.slow
def test_driver_killed_mid_run_then_resumed(reference, tmp_path):
    out = tmp_path / "run"
    argv = simulate_cmd(*cli_args(out, shard_games=SHARD), "--workers", "1")
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        _wait_for_a_shard(proc, out)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        _reap_session(proc.pid)
        proc.stderr.close()
    m = _manifest(out)
    assert m["complete"] is False and 1 <= len(m["shards"]) < PLANNED, "the kill did not land mid-run"
    assert (out / ".lock").exists()  # the killed driver's lock, stale now: the resumed run takes it over
    done_before = {(s["profile"], s["index"]) for s in m["shards"]}
    resumed = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert f"{len(done_before)} shard(s) already done" in resumed.stderr
    m = _manifest(out)
    assert m["complete"] is True and len(m["shards"]) == PLANNED
    assert done_before <= {(s["profile"], s["index"]) for s in m["shards"]}
    assert runner_verify(out) == []
    assert not list(out.rglob(".tmp-*")) and not (out / ".lock").exists()
    tables = read_tables(out)
    assert_every_game_once(tables)
    assert_same_tables(reference, tables)


@pytest.mark.slow
def test_ctrl_c_ends_with_one_line_and_the_same_command_resumes(ctrl_c_reference, tmp_path):
    """SIGINT to the command's whole process group, as a terminal's Ctrl-C sends it, once a shard is written."""
    out = tmp_path / "run"
    argv = simulate_cmd(*cli_args(out, games=CTRL_C_GAMES, shard_games=SHARD), "--workers", "1")
    proc = subprocess.Popen(_with_ctrl_c_at_its_default(argv), cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        _wait_for_a_shard(proc, out)
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        _reap_session(proc.pid)
    m = _manifest(out)
    written = len(m["shards"])
    assert m["complete"] is False and 1 <= written < CTRL_C_PLANNED, \
        f"the interrupt did not land mid-run: {written} of {CTRL_C_PLANNED} shards, exit status {proc.returncode}; {err}"
    assert proc.returncode == 130, err
    assert "Traceback" not in err and err.count("kalooki simulate:") == 1, err
    assert err.splitlines()[-1] == (f"kalooki simulate: interrupted: {written} of {CTRL_C_PLANNED} shards written "
                                    f"to {out}; run the same command again to resume")
    assert not list(out.rglob(".tmp-*")) and not (out / ".lock").exists()
    resumed = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert f"{written} shard(s) already done" in resumed.stderr
    assert runner_verify(out) == []
    tables = read_tables(out)
    assert_every_game_once(tables, games=CTRL_C_GAMES)
    assert_same_tables(ctrl_c_reference, tables)


@pytest.fixture
def ctrl_c_raises():
    """SIGINT handled by Python's own handler for the test, as in a command started from a terminal
    (this test run may have been started with SIGINT ignored)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


class _CtrlCInDel:
    """Raises SIGINT in this thread from its ``__del__``: the handler runs there (``raise_signal`` runs it
    before returning), and Python reports the KeyboardInterrupt it raises as unraisable and goes on, as
    it does in any finaliser or callback."""

    def __del__(self):
        signal.raise_signal(signal.SIGINT)


def _shards_that_ctrl_c(sent: list, signal_fn) -> object:
    """A shard function that plays each shard and sends a Ctrl-C (``signal_fn``) while playing the first."""
    def shard_fn(spec):
        tables = runexec.run_shard(spec)
        if not sent:
            signal_fn()
        sent.append(spec.first_game)
        return tables
    return shard_fn


def _ctrl_c_in_a_finaliser():
    finaliser = _CtrlCInDel()
    del finaliser


# the in-process Ctrl-C runs: four shards, one game each
IN_PROCESS = dict(games=2, shard_games=1)
IN_PROCESS_PLANNED = 4


def test_a_ctrl_c_python_swallows_still_ends_the_run_after_the_shard(ctrl_c_raises, tmp_path, monkeypatch):
    out = tmp_path / "run"
    swallowed = []
    monkeypatch.setattr(sys, "unraisablehook", swallowed.append)
    played = []
    with pytest.raises(KeyboardInterrupt) as info:
        runner.run_local(config(out, **IN_PROCESS), summarise=write_shard_summary, progress=False,
                         shard_fn=_shards_that_ctrl_c(played, _ctrl_c_in_a_finaliser))
    assert [a.exc_type for a in swallowed] == [KeyboardInterrupt], "the Ctrl-C was not swallowed where it landed"
    assert len(played) == 1, "the run went on after the Ctrl-C"
    assert info.value.args == (f"interrupted: 1 of {IN_PROCESS_PLANNED} shards written to {out}; run the same "
                               "command again to resume",)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # the run's handler is gone
    m = _manifest(out)
    assert m["complete"] is False and len(m["shards"]) == 1
    assert not list(out.rglob(".tmp-*")) and not (out / ".lock").exists()
    resumed = runner.run_local(config(out, **IN_PROCESS), summarise=write_shard_summary, progress=False)
    assert resumed.shards_kept == 1 and resumed.shards_run == IN_PROCESS_PLANNED - 1
    assert runner_verify(out) == []
    assert_every_game_once(read_tables(out), games=IN_PROCESS["games"])


def test_a_ctrl_c_python_swallows_ends_the_ray_loop_at_its_next_check(ctrl_c_raises, ray_session, tmp_path,
                                                                      monkeypatch):
    """The driver's loop over Ray tasks: a Ctrl-C swallowed where it landed (here while the driver
    records the first shard) ends the loop at its next check, with the shards recorded kept."""
    out = tmp_path / "run"
    swallowed = []
    monkeypatch.setattr(sys, "unraisablehook", swallowed.append)
    write_manifest = runner.runmanifest.write_manifest

    def recorded(loc, manifest):
        write_manifest(loc, manifest)
        if len(manifest["shards"]) == 1 and not swallowed:
            _ctrl_c_in_a_finaliser()

    monkeypatch.setattr(runner.runmanifest, "write_manifest", recorded)
    with pytest.raises(KeyboardInterrupt) as info:
        runner.run(config(out, workers=1, **IN_PROCESS), summarise=write_shard_summary, progress=False)
    assert [a.exc_type for a in swallowed] == [KeyboardInterrupt], "the Ctrl-C was not swallowed where it landed"
    assert info.value.args == (f"interrupted: 1 of {IN_PROCESS_PLANNED} shards written to {out}; run the same "
                               "command again to resume",)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # the loop's handler is gone
    m = _manifest(out)
    assert m["complete"] is False and len(m["shards"]) == 1
    assert not (out / ".lock").exists()


def test_a_run_started_with_ctrl_c_ignored_keeps_ignoring_it(tmp_path):
    """The convention of every Unix program (a job a script puts in the background, nohup): the run
    does not take SIGINT over."""
    out = tmp_path / "run"
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        played = []
        runner.run_local(config(out, **IN_PROCESS), summarise=write_shard_summary, progress=False,
                         shard_fn=_shards_that_ctrl_c(played, lambda: signal.raise_signal(signal.SIGINT)))
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, previous)
    assert len(played) == IN_PROCESS_PLANNED and _manifest(out)["complete"] is True


def test_a_second_driver_is_refused_while_another_writes(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    holder = subprocess.Popen(["sleep", "120"])
    try:
        lock = {"pid": holder.pid, "host": socket.gethostname(), "since": "2026-11-30T00:00:00"}
        (out / ".lock").write_text(json.dumps(lock))
        with pytest.raises(UserError, match=f"being written by another kalooki simulate \\(pid {holder.pid}"):
            runner.run_local(config(out), summarise=write_shard_summary, progress=False)
        assert sorted(p.name for p in out.iterdir()) == [".lock"]  # nothing written
    finally:
        holder.kill()
        holder.wait()
    # its process gone, the lock is stale: the run goes ahead and leaves no lock behind
    runner.run_local(config(out), summarise=write_shard_summary, progress=False)
    assert _manifest(out)["complete"] is True and not (out / ".lock").exists()


@pytest.mark.slow
def test_worker_killed_mid_shard_is_retried(reference, tmp_path):
    out = tmp_path / "run"
    marker = tmp_path / "killed-once"
    env = dict(os.environ, **{runexec.FAULT_ENV: str(marker)})
    proc = subprocess.Popen(simulate_cmd(*cli_args(out, shard_games=SHARD), "--workers", "2"), cwd=ROOT,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        _, err = proc.communicate(timeout=300)
    finally:
        _reap_session(proc.pid)
    assert proc.returncode == 0, err
    assert marker.exists(), "no worker was killed"
    killed_pid = int(marker.read_text())
    m = _manifest(out)
    assert m["complete"] is True and len(m["shards"]) == PLANNED
    assert runner_verify(out) == []
    tables = read_tables(out)
    assert_every_game_once(tables)
    assert_same_tables(reference, tables)
    assert killed_pid > 0
