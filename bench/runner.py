"""Benchmarks of the runner: kalooki40 with four greedy bots, in-process and on Ray.

What it measures: dealt hands per second for one core in-process (``execute_shard`` as the Ray task
runs it, Parquet writing included), the same on Ray with one and with two workers (and the ratios),
the peak resident memory of each worker process, and the Parquet bytes per ``hands`` row.  Compile
time is left out of the rates (every process plays a warm-up game first) and reported apart; Ray's
start-up is reported apart too.  ``python -m bench.runner [games]`` prints the table.
"""
from __future__ import annotations

import logging
import os
import shutil
import sys
import tempfile
import time

from analysis.summaries import write_shard_summary
from sim import profiles, runexec

PROFILE = "kalooki40"
BOTS = ("greedy",) * 4


def _jobs(out: str, games: int, shard_games: int, first: int = 0) -> list:
    from sim.records import ShardSpec
    p = profiles.load(PROFILE)
    jobs = []
    for index, start in enumerate(range(first, first + games, shard_games)):
        n = min(shard_games, first + games - start)
        spec = ShardSpec(profile=p, bots=list(BOTS), seed=1, first_game=start, n_games=n, run_id="bench")
        jobs.append(runexec.ShardJob(spec, index, out, ("hands", "games"), write_shard_summary))
    return jobs


def _rate(summaries: list, seconds: float) -> dict:
    hands = sum(s["hands"] for s in summaries)
    rows = sum(s["files"]["hands"]["rows"] for s in summaries)
    hand_bytes = sum(s["files"]["hands"]["bytes"] for s in summaries)
    rss = {}
    for s in summaries:
        rss[s["pid"]] = max(rss.get(s["pid"], 0.0), s["peak_rss_mb"])
    cpu = sum(s["cpu_seconds"] for s in summaries)
    return {"hands": hands, "hand_rows": rows, "seconds": seconds, "hands_per_s": hands / seconds,
            "hands_per_cpu_s": hands / cpu if cpu > 0 else float("nan"),
            "games_per_s": sum(s["n_games"] for s in summaries) / seconds,
            "bytes_per_hand_row": hand_bytes / rows if rows else float("nan"),
            "peak_rss_mb": max(rss.values()) if rss else float("nan"), "processes": len(rss)}


def bench_in_process(games: int = 120, shard_games: int = 120) -> dict:
    """Hands/s of execute_shard in this process (one core), after a warm-up game compiles the kernels."""
    out = tempfile.mkdtemp(prefix="kalooki-bench-")
    try:
        t = time.perf_counter()
        runexec.execute_shard(_jobs(out, 1, 1, first=10**6)[0])
        warm = time.perf_counter() - t
        t = time.perf_counter()
        summaries = [runexec.execute_shard(j) for j in _jobs(out, games, shard_games)]
        res = _rate(summaries, time.perf_counter() - t)
        res["warmup_s"] = warm
        return res
    finally:
        shutil.rmtree(out, ignore_errors=True)


def bench_ray(workers: int, games: int = 120, shard_games: int = 20) -> dict:
    """Hands/s on a fresh local Ray cluster of `workers` CPUs (workers warmed up first)."""
    import ray
    out = tempfile.mkdtemp(prefix="kalooki-bench-")
    try:
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        t = time.perf_counter()
        ray.init(num_cpus=workers, include_dashboard=False, logging_level=logging.ERROR, log_to_driver=False,
                 object_store_memory=200 * 1024 * 1024)
        init_s = time.perf_counter() - t
        t = time.perf_counter()
        warm = []
        runexec.execute_ray(_jobs(out, workers, 1, first=10**6), None, warm.append, workers)
        warm_s = time.perf_counter() - t
        summaries = []
        t = time.perf_counter()
        runexec.execute_ray(_jobs(out, games, shard_games), None, summaries.append, workers)
        res = _rate(summaries, time.perf_counter() - t)
        res.update(ray_init_s=init_s, warmup_s=warm_s)
        return res
    finally:
        if ray.is_initialized():
            ray.shutdown()
        shutil.rmtree(out, ignore_errors=True)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    games = int(argv[0]) if argv else 2000
    shard = max(games // 20, 1)  # coarse tasks: 20 shards
    load = os.getloadavg()[0]
    rows = [("in-process, 1 core", bench_in_process(games, shard)),
            ("Ray, 1 worker", bench_ray(1, games, shard)),
            ("Ray, 2 workers", bench_ray(2, games, shard)),
            (f"Ray, 2 workers, {4 * games} games", bench_ray(2, 4 * games, 4 * shard))]
    base = rows[0][1]["hands_per_s"]
    print(f"runner benchmark: {PROFILE}, bots {','.join(BOTS)}, {games} games each (last row 4x); shards of {shard} games; "
          f"{os.cpu_count()} cores, load average {load:.2f} at the start (other work slows the wall-clock rates)")
    print(f"{'mode':20s} {'hands/s':>8s} {'games/s':>8s} {'x in-proc':>9s} {'hands/cpu-s':>11s} {'warm-up s':>9s} "
          f"{'ray init s':>10s} {'peak RSS MB':>11s} {'B/hand row':>10s}")
    for name, r in rows:
        print(f"{name:20s} {r['hands_per_s']:8.1f} {r['games_per_s']:8.2f} {r['hands_per_s'] / base:9.2f} "
              f"{r['hands_per_cpu_s']:11.1f} {r['warmup_s']:9.1f} {r.get('ray_init_s', float('nan')):10.1f} "
              f"{r['peak_rss_mb']:11.0f} {r['bytes_per_hand_row']:10.1f}")
    print("peak RSS: the largest of the processes that played (in-process: this driver); "
          "B/hand row: Parquet (zstd) bytes of the hands files over their rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
