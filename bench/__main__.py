"""``python -m bench [all|compile|meld|engine|runner|report]``: print speed and memory figures
(``make bench`` runs them all)."""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

SECTIONS = ["all", "compile", "meld", "engine", "runner", "report"]


def parse_args(argv):
    p = argparse.ArgumentParser(prog="python -m bench", description="print speed and memory figures of the meld "
                                "search, the engine, the runner and the report (never asserted)")
    p.add_argument("what", nargs="?", default="all", choices=SECTIONS)
    p.add_argument("--seconds", type=float, default=10.0, help="time per engine measurement (default %(default)s)")
    p.add_argument("--report-rows", type=lambda s: [int(float(v)) for v in s.split(",")],
                   default=[10_000_000, 100_000_000],
                   help="player-hand rows for the report benchmark, comma-separated (default 1e7,1e8)")
    return p.parse_args(argv)


def _section(title):
    print(f"\n== {title}", flush=True)


def cold_compile() -> None:
    """The first hand in a fresh process with an empty numba cache (meld search + greedy hand loop)."""
    with tempfile.TemporaryDirectory() as cache:
        code = ("import time; t=time.perf_counter(); from sim.fastgreedy import warm_up; warm_up(); "
                "print(f'{time.perf_counter()-t:.1f}')")
        t0 = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", code], env={**os.environ, "NUMBA_CACHE_DIR": cache},
                             capture_output=True, text=True)
    if out.returncode == 0:
        print(f"  first hand from cold: {out.stdout.strip()} s (process {time.perf_counter() - t0:.1f} s); "
              "later processes load the cache in well under a second")
    else:
        print(f"  failed: {out.stderr.strip()[-300:]}")


def engine(seconds: float) -> None:
    from .engine import hands_per_second
    for bots, fast, label in ((("greedy",) * 4, True, "greedy x4, compiled loop"),
                              (("greedy",) * 4, False, "greedy x4, Python engine"),
                              (("expert",) * 4, False, "expert x4, Python engine"),
                              (("lookahead",) * 4, False, "lookahead x4, Python engine")):
        r = hands_per_second(bots=bots, seconds=seconds, fast=fast)
        print(f"  {label:<28} {r['hands_per_s']:>8.1f} hands/s  {r['turns_per_hand']:>5.1f} turns/hand  "
              f"{r['us_per_turn']:>7.1f} us/turn  first hand (compile or cache load) {r['first_hand_s']} s",
              flush=True)


def main(argv=None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    t0 = time.perf_counter()
    if args.what in ("all", "compile"):
        _section("compile from an empty numba cache (meld search + greedy hand loop), in a fresh process")
        cold_compile()
    if args.what in ("all", "meld"):
        _section("meld search (one core, batched)")
        from . import meld
        meld.main([])
    if args.what in ("all", "engine"):
        _section("engine: whole hands per second on one core, in-process, 4-player kalooki40")
        engine(args.seconds)
    if args.what in ("all", "runner"):
        _section("runner: in-process vs Ray, memory, bytes per row")
        from . import runner
        runner.main([])
    if args.what in ("all", "report"):
        from . import report
        for rows in args.report_rows:
            _section(f"report over {rows:,} player-hand rows (synthetic; at most 10 million synthesised, "
                     "then repeated as further shards)")
            print(f"  {report.run(rows=rows)}", flush=True)
    print(f"\nbench total {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
