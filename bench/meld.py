"""Benchmark of the compiled meld search: batched hands per second on one core.

Cases: 13-, 14- and 15-card hands dealt from the 106-card pack (2 jokers, kalooki40 parameters) and
from the 108-card pack (4 jokers, kalooki51 parameters, same hand sizes); every hand gets both
answers (and min_loose) from one ``meldsearch.batch`` call.  Hands come from a numpy Generator with a
fixed seed.  Reported separately: the first call in a fresh process (numba compile or cache load,
measured in a subprocess), the first batch of each parameter set (the per-suit table still filling),
and the steady state on a fresh batch of hands.

``python -m bench.meld`` prints the table.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from sim import cards as C
from sim import meldsearch as ms
from sim import profiles

CASES = [("kalooki40", 2, 13), ("kalooki40", 2, 14), ("kalooki40", 2, 15),
         ("kalooki51", 4, 13), ("kalooki51", 4, 14), ("kalooki51", 4, 15)]


_FIRST_CALL = r"""
import time, json
t0 = time.perf_counter()
import numpy as np
from sim import meldsearch as ms, profiles
t1 = time.perf_counter()
p = profiles.load("kalooki40")
h = np.zeros((1, 53), np.int8); h[0, :13] = 1
ms.batch(h, p)
t2 = time.perf_counter()
ms.analyse(h[0], p)
t3 = time.perf_counter()
print(json.dumps({"import_s": t1 - t0, "first_batch_s": t2 - t1, "first_analyse_s": t3 - t2}))
"""


def first_call(cold: bool = False) -> dict:
    """Time of the first calls in a fresh process (cold: with an empty numba cache, i.e. compiling)."""
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as tmp:
        if cold:
            env["NUMBA_CACHE_DIR"] = tmp
        out = subprocess.run([sys.executable, "-c", _FIRST_CALL], env=env, capture_output=True, text=True, check=True)
    res = json.loads(out.stdout.strip().splitlines()[-1])
    res["cold"] = cold
    return res


def _time_batch(hands: np.ndarray, profile) -> float:
    t = time.perf_counter()
    ms.batch(hands, profile)
    return time.perf_counter() - t


def run(seconds_budget: float = 15.0, seed: int = 1, cold_compile: bool = False) -> list[dict]:
    """One row per case: steady-state hands/s and us/hand, the first (table-filling) batch, plus a
    first row for the first calls in a fresh process.  Dealing is not timed; the whole run takes
    about seconds_budget (plus the compile when cold_compile)."""
    t_start = time.perf_counter()
    rows = []
    fc = first_call(cold=cold_compile)
    rows.append({"case": "first call (fresh process, " + ("empty numba cache" if cold_compile else "numba cache") + ")",
                 **fc})
    ms.batch(np.zeros((1, 53), np.int8), profiles.load("kalooki40"))  # compiled/loaded in this process too
    rng = np.random.default_rng(seed)
    seen = set()
    for i, (name, jokers, size) in enumerate(CASES):
        prof = profiles.load(name)
        left = seconds_budget - (time.perf_counter() - t_start)
        per_case = max(0.3, left / (len(CASES) - i))
        # the first batch of a parameter set fills the lazy per-suit table
        first = name not in seen
        seen.add(name)
        warm_n = 100_000 if first else 10_000
        warm = ms.deal_hands(rng, warm_n, size, jokers)
        t_warm = _time_batch(warm, prof)
        # steady state on fresh hands; dealing them costs about as much again as searching them
        est = t_warm / warm_n
        n = int(min(1_000_000, max(10_000, 0.4 * per_case / max(est, 1e-7))))
        hands = ms.deal_hands(rng, n, size, jokers)
        dt = _time_batch(hands, prof)
        rows.append({"case": f"{deck_size(jokers)}-card pack, {size} cards ({name} params)",
                     "profile": name, "jokers": jokers, "hand_size": size, "hands": n,
                     "seconds": dt, "hands_per_s": n / dt, "us_per_hand": 1e6 * dt / n,
                     "first_batch_hands": warm_n, "first_batch_us_per_hand": 1e6 * t_warm / warm_n,
                     "first_batch_fills_table": first})
    return rows


def deck_size(jokers: int) -> int:
    return C.COPIES * C.N_NATURAL + jokers


def main(argv=None) -> int:
    import argparse
    ap = argparse.ArgumentParser(prog="python -m bench.meld", description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=15.0, help="time budget of the whole run")
    ap.add_argument("--cold", action="store_true", help="time the first call with an empty numba cache (compiles)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    rows = run(args.seconds, cold_compile=args.cold)
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    fc = rows[0]
    print(f"{fc['case']}: import {fc['import_s']:.2f} s, first batch call {fc['first_batch_s']:.2f} s, "
          f"first analyse {fc['first_analyse_s']:.2f} s")
    print(f"{'case':44s} {'hands':>9s} {'hands/s':>10s} {'us/hand':>8s} {'first batch us/hand':>20s}")
    for r in rows[1:]:
        fill = " (fills table)" if r["first_batch_fills_table"] else ""
        print(f"{r['case']:44s} {r['hands']:9d} {r['hands_per_s']:10.0f} {r['us_per_hand']:8.2f} "
              f"{r['first_batch_us_per_hand']:8.2f}{fill}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
