"""A run's shards executed: one shard played, written and summarised by whoever plays it
(``execute_shard``, the same code in a Ray worker and in this process), and many shards run here
(``execute_local``) or on Ray workers (``execute_ray``, a bounded number in flight, a killed worker's
task retried), with Ray started or joined for the drivers that play runs (``start_ray``, ``ray_session``).
Both loops see every Ctrl-C (``interrupts``): one that lands where Python swallows the exception still
ends the run at the loop's next check.

Ray is a thin layer: ``run_shard(spec) -> tables`` is serial.  Each worker writes its own files and
returns a small summary.  A shard's summary file is written by the step its job carries
(``ShardJob.summarise``), chosen by the command that starts the run, so the runner reads and writes
the run format but imports nothing of ``analysis``.
"""
from __future__ import annotations

import contextlib
import logging
import os
import resource
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from . import runformat
from .errors import UserError, is_interrupt
from .runformat import shard_path

MAX_RETRIES = 3  # a task whose worker dies is re-run this many times before the run fails
IN_FLIGHT_PER_WORKER = 2
WAIT_S = 0.2  # the Ray loop's longest wait between checks for a Ctrl-C
# Test hook: a path; the first Ray task to find it absent creates it and kills its own worker process
# half-way through writing its shard (after its first file), so tests can show a killed worker's
# task is retried and no game is lost or doubled.  Never set outside tests.
FAULT_ENV = "KALOOKI_FAULT_KILL_WORKER_ONCE"

# A shard's summary step: (location, profile name, shard index, hands table, games table, the shard's
# profile metadata) -> the summary file's manifest entry (``analysis.summaries.write_shard_summary``).
# It travels to Ray workers inside the job, so it must pickle: a module-level function.
SummaryStep = Callable[[runformat.RunLocation, str, int, object, object, dict], dict]


# ----------------------------------------------------------------------------------------------
# one shard: play, write, summarise (the same code in a Ray worker and in-process)

@dataclass(frozen=True)
class ShardJob:
    spec: object  # sim.records.ShardSpec
    index: int
    out: str
    tables: tuple
    summarise: SummaryStep  # writes the shard's summary file beside its tables


def run_shard(spec):
    """The serial unit: play the shard's games and return its tables (sim.records.play_shard)."""
    from .records import play_shard
    return play_shard(spec)


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _fault_point() -> None:
    marker = os.environ.get(FAULT_ENV)
    if not marker:
        return
    try:
        fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return
    os.write(fd, f"{os.getpid()}\n".encode())
    os.close(fd)
    os.kill(os.getpid(), signal.SIGKILL)


def execute_shard(job: ShardJob, shard_fn=None, in_worker: bool = False) -> dict:
    """Play one shard, write its files and its summary file atomically, and return the small summary
    the driver records."""
    t0, c0 = time.perf_counter(), time.process_time()
    spec = job.spec
    try:
        tables = (shard_fn or run_shard)(spec)
    except Exception as e:
        e.add_note(f"while playing shard {job.index} of profile {spec.profile.name} "
                   f"(games {spec.first_game}..{spec.first_game + spec.n_games - 1})")
        raise
    played = time.perf_counter() - t0
    loc = runformat.locate(job.out, "--out")
    files = {}
    for name in job.tables:
        files[name] = runformat.write_table(loc, shard_path(name, spec.profile.name, job.index), tables[name])
        if in_worker:
            _fault_point()
    # the shard summarised once, here, for every report to read instead of its rows (data flows engine ->
    # records -> summaries; the step is the command's, and analysis never imports the engine)
    files[runformat.SUMMARY] = job.summarise(loc, spec.profile.name, job.index, tables["hands"], tables["games"],
                                             {"profiles": {spec.profile.name: {
                                                 "params": spec.profile.params(),
                                                 runformat.GAMES_PER_DEAL: len(spec.bots) if spec.duplicate else 1}}})
    hands = tables["hands"]
    n_hands = hands.group_by(["game_id", "hand_no", "redeal_no"]).aggregate([]).num_rows if hands.num_rows else 0
    return {"profile": spec.profile.name, "index": job.index, "first_game": spec.first_game,
            "n_games": spec.n_games, "files": files, "hands": n_hands,
            "seconds": round(time.perf_counter() - t0, 3), "play_seconds": round(played, 3),
            "cpu_seconds": round(time.process_time() - c0, 3),
            "peak_rss_mb": round(_peak_rss_mb(), 1), "pid": os.getpid()}


def _ray_shard(job: ShardJob, shard_fn) -> dict:
    return execute_shard(job, shard_fn, in_worker=True)


# ----------------------------------------------------------------------------------------------
# Ray, started or joined once for a driver

RAY_CONNECT_TIMEOUT_S = 10


def _check_reachable(address: str) -> None:
    """UserError unless ``host:port`` (or ``ray://host:port``) accepts a connection: ray.init would
    otherwise retry an unreachable cluster for ever.  Ray's own words (``auto``, ``local``) pass."""
    import socket
    hostport = address.split("://", 1)[1] if "://" in address else address
    if address in ("auto", "local"):
        return
    host, _, port = hostport.rstrip("/").rpartition(":")
    host = host.strip("[]")  # an IPv6 literal, [::1]:6379
    if not host or not port.isdigit():
        raise UserError(f"--address {address!r} (or RAY_ADDRESS) is not HOST:PORT or ray://HOST:PORT; "
                        "leave both unset to run on a private local Ray")
    try:
        socket.create_connection((host, int(port)), timeout=RAY_CONNECT_TIMEOUT_S).close()
    except OSError as e:
        raise UserError(f"cannot join the Ray cluster at {address!r} (--address or RAY_ADDRESS): nothing answers "
                        f"there ({e}); leave both unset to run on a private local Ray") from None


def start_ray(workers: int | None, address: str | None, out: str = "") -> tuple[bool, int]:
    """Start (or join) Ray for a driver that plays runs (simulate, skill, frontier, sweep); (whether
    this call started it, workers to keep busy).  Ray already started in this process is kept as it is.

    Only ``address`` (--address) or ``RAY_ADDRESS`` joins a cluster.  Otherwise Ray starts a private
    local instance (``address="local"``), whatever cluster another program has registered on this
    machine (a running one, or a stale ``/tmp/ray/ray_current_cluster`` file): a plain `simulate`
    never joins, or fails on, a cluster nobody asked for."""
    import ray
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    started = False
    if not ray.is_initialized():
        address = address or os.environ.get("RAY_ADDRESS") or None
        if address:
            _check_reachable(address)
            try:
                ray.init(address=address, logging_level=logging.ERROR, log_to_driver=False)
            except (ConnectionError, ValueError, RuntimeError, TimeoutError) as e:
                raise UserError(f"cannot join the Ray cluster at {address!r} (--address or RAY_ADDRESS): {e}; "
                                "leave both unset to run on a private local Ray") from None
        else:
            ray.init(address="local", num_cpus=workers or os.cpu_count() or 1, include_dashboard=False,
                     logging_level=logging.ERROR, log_to_driver=False,
                     object_store_memory=200 * 1024 * 1024)
        started = True
    if workers is None:
        workers = max(1, int(ray.cluster_resources().get("CPU", 1)))
    if out and "://" not in out and len([n for n in ray.nodes() if n.get("Alive")]) > 1:
        print(f"warning: --out {out!r} is a local path but the Ray cluster has several nodes; each worker writes "
              "its shards on its own node. Use a shared filesystem or a URI (s3://..., gs://...)", file=sys.stderr)
    return started, workers


@contextlib.contextmanager
def ray_session(workers: int | None, address: str | None = None, out: str = ""):
    """Ray started or joined (``start_ray``) for the block, so that several runs share one start;
    shut down after it when this call started it.  Yields the workers to keep busy."""
    started, workers = start_ray(workers, address, out)
    try:
        yield workers
    finally:
        if started:
            import ray
            ray.shutdown()


# ----------------------------------------------------------------------------------------------
# Ctrl-C during a run

class Interrupts:
    """The Ctrl-Cs (SIGINT) received while a run's shards are dispatched."""

    def __init__(self):
        self.count = 0

    def check(self) -> None:
        """KeyboardInterrupt if a Ctrl-C came: the loops call this between their steps."""
        if self.count:
            raise KeyboardInterrupt


@contextlib.contextmanager
def interrupts():
    """For the block, each Ctrl-C raises KeyboardInterrupt where it lands, as Python's own handler
    does, and is counted, so that a loop's next ``check`` raises it again when it landed where Python
    swallows an exception (a ``__del__``, a callback): no Ctrl-C is lost.  Yields the ``Interrupts``.

    Only over Python's own handler, in the main thread: a SIGINT the command was started ignoring (a
    job a script put in the background, ``nohup``) stays ignored, as in every Unix program, and a
    handler a caller installed is theirs.  The handler before is restored after the block."""
    seen = Interrupts()
    if threading.current_thread() is not threading.main_thread() \
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield seen
        return

    def on_sigint(signum, frame):
        seen.count += 1
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        yield seen
    finally:
        signal.signal(signal.SIGINT, previous)


# ----------------------------------------------------------------------------------------------
# many shards: here, or on Ray workers

def execute_local(jobs, shard_fn, on_done):
    """Run jobs one after another in this process; ``on_done`` is told each shard's summary."""
    with interrupts() as seen:
        for job in jobs:
            seen.check()
            on_done(execute_shard(job, shard_fn))
        seen.check()


_REMOTE = None


def execute_ray(jobs, shard_fn, on_done, workers: int):
    """Run jobs on Ray, at most IN_FLIGHT_PER_WORKER x workers at once; errors raised after the rest finish.
    A Ctrl-C ends the loop at its next check (``interrupts``), at most WAIT_S apart while it waits."""
    import ray
    from ray.exceptions import RayError, RayTaskError
    global _REMOTE
    if _REMOTE is None:
        _REMOTE = ray.remote(num_cpus=1, max_retries=MAX_RETRIES)(_ray_shard)
    queue = deque(jobs)
    in_flight: dict = {}
    limit = max(1, IN_FLIGHT_PER_WORKER * workers)
    failure = None
    try:
        with interrupts() as seen:
            while queue or in_flight:
                seen.check()
                while queue and failure is None and len(in_flight) < limit:
                    job = queue.popleft()
                    in_flight[_REMOTE.remote(job, shard_fn)] = job
                if not in_flight:
                    break
                done, _ = ray.wait(list(in_flight), num_returns=1, timeout=WAIT_S)
                for ref in done:
                    job = in_flight.pop(ref)
                    try:
                        summary = ray.get(ref)
                    except RayTaskError as e:  # a write error is the user's to fix; anything else is a bug
                        cause = getattr(e, "cause", None)
                        failure = failure or (job, cause if isinstance(cause, OSError) else e)
                        continue
                    except RayError as e:  # the worker died more often than max_retries allows, etc.
                        failure = failure or (job, e)
                        continue
                    on_done(summary)
            seen.check()
    except BaseException as e:
        # On Ctrl-C the tasks end with this driver (Ray cancels an owner's tasks when it goes); cancelling
        # them too races the workers' own ends and can abort Ray's core worker.
        if not is_interrupt(e):
            for ref in in_flight:
                ray.cancel(ref, force=True)
        raise
    if failure is not None:
        raise failure[1]
