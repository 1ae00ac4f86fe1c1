"""`kalooki bench [meld|engine|runner|report|all]`: speed and memory figures (printed, never asserted)."""
from __future__ import annotations

import importlib
import time


def register(sub):
    p = sub.add_parser("bench", help="print speed and memory figures (meld search, engine, runner, report)")
    p.add_argument("what", nargs="?", default="all", choices=["all", "compile", "meld", "engine", "runner", "report"],
                   help="which figures (default: %(default)s)")
    p.add_argument("--seconds", type=float, default=10.0, help="time per engine measurement (default: %(default)s)")
    p.add_argument("--report-rows", type=int, default=10_000_000,
                   help="player-hand rows for the report benchmark (default: %(default)s)")
    p.set_defaults(func=run)


def _section(title):
    print(f"\n== {title}", flush=True)


def run(args):
    t0 = time.perf_counter()
    if args.what in ("all", "compile"):
        _section("compile from an empty numba cache (meld search + greedy hand loop), in a fresh process")
        import os
        import subprocess
        import sys
        import tempfile
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
    if args.what in ("all", "meld"):
        _section("meld search (one core, batched)")
        importlib.import_module("sim.bench_meld").main([])
    if args.what in ("all", "engine"):
        _section("engine: whole hands per second on one core, in-process, 4-player kalooki40")
        from ..bench_engine import hands_per_second
        for bots, fast, label in ((("greedy",) * 4, True, "greedy x4, compiled loop"),
                                  (("greedy",) * 4, False, "greedy x4, Python engine"),
                                  (("expert",) * 4, False, "expert x4, Python engine"),
                                  (("lookahead",) * 4, False, "lookahead x4, Python engine")):
            r = hands_per_second(bots=bots, seconds=args.seconds, fast=fast)
            print(f"  {label:<28} {r['hands_per_s']:>8.1f} hands/s  {r['turns_per_hand']:>5.1f} turns/hand  "
                  f"{r['us_per_turn']:>7.1f} us/turn  first hand (compile or cache load) {r['first_hand_s']} s",
                  flush=True)
    if args.what in ("all", "runner"):
        _section("runner: in-process vs Ray, memory, bytes per row")
        try:
            importlib.import_module("sim.bench_runner").main([])
        except ModuleNotFoundError as e:
            print(f"  not available: {e}")
    if args.what in ("all", "report"):
        _section(f"report over {args.report_rows:,} player-hand rows")
        try:
            mod = importlib.import_module("analysis.bench_report")
        except ModuleNotFoundError as e:
            print(f"  not available: {e}")
        else:
            r = mod.run(rows=args.report_rows)
            print(f"  {r}")
    print(f"\nbench total {time.perf_counter() - t0:.1f} s")
    return 0
