"""``python -m bench [all|compile|meld|engine|discards|runner|report]``: print speed and memory figures,
and the bots' discard measures (``make bench`` runs them all)."""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import textwrap
import time

SECTIONS = ["all", "compile", "meld", "engine", "discards", "runner", "report"]


def parse_args(argv):
    p = argparse.ArgumentParser(prog="python -m bench", description="print speed and memory figures of the meld "
                                "search, the engine, the runner and the report, and the bots' discard measures "
                                "(never asserted)")
    p.add_argument("what", nargs="?", default="all", choices=SECTIONS)
    p.add_argument("--seconds", type=float, default=10.0, help="time per engine measurement (default %(default)s)")
    p.add_argument("--baseline", default="none", metavar="REV",
                   help="git commit whose compiled greedy loop the engine section times beside this tree's, "
                        "alternately and then by turns on one core, in subprocesses with its own numba cache "
                        "(default %(default)s: skipped)")
    p.add_argument("--discard-hands", type=int, default=200, metavar="N",
                   help="hands per bot and profile for the discard measures, the search a quarter "
                        "(default %(default)s)")
    p.add_argument("--each-patch", type=int, default=0, metavar="ROUNDS",
                   help="compile: also time the compile from an empty cache with each of sim.jit's speed patches "
                        "left out in turn, alternating with all applied, ROUNDS rounds (a few minutes a round)")
    p.add_argument("--report-rows", type=lambda s: [int(float(v)) for v in s.split(",")],
                   default=[10_000_000, 100_000_000],
                   help="player-hand rows for the report benchmark, comma-separated (default 1e7,1e8)")
    return p.parse_args(argv)


def _section(title):
    print(f"\n== {title}", flush=True)


COLD_AIM_S, WARM_AIM_S = 60.0, 1.0  # the first hand from an empty cache, and from a warm one

# the first hand's parts: numpy's and numba's imports, the package's imports, then warm_up (the kernels a
# table of argv[1]'s bots needs, or every bot's for "all", compiled or loaded, one hand of each; numba's
# lowering registries, scipy's import among them, are loaded there by a compile or by numba's own cache
# loading, not by sim.jit.link's)
_FIRST_HAND = ("import sys, time; t=[time.perf_counter()]; import numpy, numba; t.append(time.perf_counter()); "
               "from sim.bots.hand_loop import warm_up; t.append(time.perf_counter()); "
               "warm_up(None if sys.argv[1] == 'all' else sys.argv[1].split(',')); t.append(time.perf_counter()); "
               "print(*(f'{b - a:.3f}' for a, b in zip(t, t[1:])))")

# the patches whose saving is in the compile from an empty cache (--each-patch); warm-loading's is in the
# warm start, which each run also times
SPEED_PATCHES = ("link", "compile-lock", "plain-types", "shape-error", "warm-loading")


def _first_hand(cache: str, bots: str = "all", off: str = "") -> dict | str:
    """A fresh process's first hand with the numba cache ``cache`` and the patches ``off`` left out:
    its parts' seconds, the whole process's wall and CPU seconds; the error text where it failed."""
    # Python's own bytecode cache as a user's Python keeps it: written on the first run and read after
    # (PYTHONDONTWRITEBYTECODE, where set, would have every warm start compile the package's source)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "KALOOKI_NUMBA_LINK")}
    env.update(NUMBA_CACHE_DIR=cache, KALOOKI_NUMBA_OFF=off)
    t0, cpu0 = time.perf_counter(), _children_cpu()
    out = subprocess.run([sys.executable, "-c", _FIRST_HAND, bots], capture_output=True, text=True, env=env)
    wall, cpu = time.perf_counter() - t0, _children_cpu() - cpu0
    if out.returncode != 0:
        return out.stderr.strip()[-300:]
    parts = [float(x) for x in out.stdout.strip().splitlines()[-1].split()]
    return {"parts": parts, "first_hand": sum(parts), "wall": wall, "cpu": cpu}


def cold_compile(each_patch: int = 0) -> None:
    """The first hand in a fresh process with an empty numba cache, then in a second fresh process with
    the cache the first one wrote: for a table of every bot (what the test suite compiles), for a
    table of greedy bots (what a greedy run compiles), and for every bot with numba's own linking
    (``KALOOKI_NUMBA_OFF=link``: every caller's module carrying a copy of all it calls), the
    baseline of the same run.  ``each_patch``: then that many rounds of the compile from an empty
    cache with all patches applied and with each of ``SPEED_PATCHES`` left out in turn, alternating
    (the machine's speed drifts between runs minutes apart)."""
    print("  LLVM optimisation level " + (f"NUMBA_OPT={os.environ['NUMBA_OPT']} (set by the user)"
                                         if "NUMBA_OPT" in os.environ else "3 (numba's default)"))
    first = {}
    for bots, off, title in (("all", "", "every bot, all patches applied (sim.jit)"),
                             ("greedy", "", "greedy bots only, all patches applied"),
                             ("all", "link", "every bot, numba's own linking, KALOOKI_NUMBA_OFF=link (baseline)")):
        print(f"  {title}:")
        with tempfile.TemporaryDirectory() as cache:
            for label, aim in (("empty cache", COLD_AIM_S), ("warm cache", WARM_AIM_S)):
                r = _first_hand(cache, bots, off)
                if isinstance(r, str):
                    print(f"    {label}: failed: {r}")
                    return
                first[bots, off, label] = t = r["first_hand"]
                parts = r["parts"]
                print(f"    {label + ':':<13} first hand {t:6.2f} s (whole process {r['wall']:5.1f} s, "
                      f"CPU {r['cpu']:5.1f} s)   aim < {aim:g} s: {'aim met' if t < aim else 'aim missed'}", flush=True)
                print(f"    {'':<13} = numpy and numba imported {parts[0]:.2f} s + the package imported "
                      f"{parts[1]:.2f} s + warm_up {parts[2]:.2f} s")
    for label in ("empty cache", "warm cache"):
        print(f"  {label}: {_ratio(first['all', 'link', label] / first['all', '', label])} numba's own linking's "
              f"speed; greedy bots only {_ratio(first['all', '', label] / first['greedy', '', label])} every bot's")
    print("  (CPU: user and system seconds of the process and of the warm-up's children beside it:\n"
          "   the work done, which the wall time hides where the processes overlap)")
    if each_patch:
        _each_patch(each_patch)


def _each_patch(rounds: int) -> None:
    """What each patch saves: the compile from an empty cache (every bot) and the warm start with it
    left out, beside all applied, in alternating runs; medians of ``rounds``."""
    import statistics
    configs = ("",) + SPEED_PATCHES
    runs = {off: [] for off in configs}
    print(f"  each patch left out in turn, {rounds} round(s) of alternating runs, every bot, empty then warm cache:")
    for k in range(rounds):
        for off in configs:
            with tempfile.TemporaryDirectory() as cache:
                cold, warm = _first_hand(cache, "all", off), _first_hand(cache, "all", off)
            if isinstance(cold, str) or isinstance(warm, str):
                print(f"    {off or 'none'} left out: failed: {cold if isinstance(cold, str) else warm}")
                return
            runs[off].append((cold["wall"], cold["cpu"], warm["first_hand"]))
            print(f"    round {k + 1}, {off or 'none':<24} left out: empty cache {cold['wall']:6.1f} s "
                  f"(CPU {cold['cpu']:6.1f} s), warm first hand {warm['first_hand']:5.2f} s", flush=True)
    med = {off: [statistics.median(r[i] for r in runs[off]) for i in range(3)] for off in configs}
    base = med[""]
    print(f"    {'left out':<24} {'empty cache':>11} {'CPU':>7} {'warm':>6}   saving of the patch, as a share of "
          f"the compile (or warm start) without it: wall, CPU; warm")
    for off in configs:
        w, c, h = med[off]
        saving = "" if not off else (f"{(w - base[0]) / w:+.0%}, {(c - base[1]) / c:+.0%}; "
                                     f"{(h - base[2]) / h:+.0%}")
        print(f"    {off or 'none':<24} {w:9.1f} s {c:6.1f} s {h:5.2f} s   {saving}")


def _children_cpu() -> float:
    """User and system seconds of the finished child processes so far (and of theirs); nan where the
    platform does not count them."""
    try:
        import resource
    except ImportError:
        return float("nan")
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _ratio(r: float) -> str:
    """A speed as a fraction of the reference: 1/8.2, or 1.03x at or above it."""
    if r >= 0.995:
        return f"{r:.2f}x"
    return f"1/{1 / r:.1f}" if r > 0.01 else f"1/{1 / r:.0f}"


def engine(seconds: float, baseline: str | None) -> None:
    from . import engine as bench_engine
    from .engine import ROUNDS
    current, base, note, turns = bench_engine.greedy_loop_against_baseline(seconds, baseline)
    print(f"  the compiled greedy loop, this tree{f' vs {baseline}' if base else ''}: {ROUNDS} runs"
          f"{' each, alternately' if base else ''}; median")
    now = bench_engine.median_result(current)
    print(f"    {'this tree':<11} {now['hands_per_s']:>8.1f} hands/s   runs "
          + " ".join(f"{r['hands_per_s']:.1f}" for r in current))
    if base:
        then = bench_engine.median_result(base)
        print(f"    {baseline[:11]:<11} {then['hands_per_s']:>8.1f} hands/s   runs "
              + " ".join(f"{r['hands_per_s']:.1f}" for r in base))
        print(f"    this tree / {baseline} = {now['hands_per_s'] / then['hands_per_s']:.2f}x")
        if turns is not None:
            # runs seconds apart on a machine whose speed drifts cannot resolve a few percent; turns can
            lo, hi = turns["quartiles"]
            where = f"pinned to core {turns['pinned']}" if turns["pinned"] is not None else "not pinned"
            print(f"    by turns (two persistent processes, {where}, taking turns on the same hands; "
                  f"{turns['pairs']} pairs of {turns['hands']} hands):")
            print(f"    this tree / {baseline} = {turns['median']:.3f}x median [quartiles {lo:.3f}, {hi:.3f}]   "
                  f"goal >= 1x (not slower): {'goal met' if turns['median'] >= 1 else 'goal missed'}")
        else:
            met = now["hands_per_s"] >= then["hands_per_s"]
            print(f"    goal >= 1x (not slower), by the runs' medians: {'goal met' if met else 'goal missed'}")
        print(f"    {baseline} compiled its kernels into an empty cache of its own: first hand "
              f"{base[0]['first_hand_s']:.1f} s (not timed)")
    if note:
        print(f"    {note}")
    print(f"  {'table':<28} {'path':<13} {'hands/s':>8} {'us/turn':>7} {'of greedy':<9} {'goal':<13} verdict")

    def row(r):
        ratio = "1x (ref)" if r["reference"] else _ratio(r["ratio"])
        verdict = ("reference" if r["reference"] else "" if r["goal"] is None
                   else "goal met" if r["hands_per_s"] >= r["goal_hands_per_s"] else "goal missed")
        print(f"  {r['table']:<28} {bench_engine.path_taken(r):<13} {r['hands_per_s']:>8.1f} "
              f"{r['us_per_turn']:>7.1f} {ratio:<9} {r['goal'] or '-':<13} {verdict}".rstrip(), flush=True)
        if r["slowest"]:
            print(f"  {'':<28} slowest bot's table: {r['slowest']} at {r['goal_hands_per_s']:.1f} hands/s "
                  f"({_ratio(r['goal_hands_per_s'] / now['hands_per_s'])})")

    results = bench_engine.measure_tables(seconds, current, row)
    hands, pairs = 50, 100
    print(f"  the goals by turns (two persistent processes of this tree pinned to one core, taking turns on the same\n"
          f"  hands, {pairs} pairs of {hands} hands; this decides them: the runs above, seconds apart, can miss a\n"
          f"  goal by the machine's drift):")
    for r in bench_engine.tables_by_turns(hands, pairs):
        head = f"    {r['table'] + ' against ' + r['against'] + ':':<50}"
        if "error" in r:
            print(f"{head} {r['error']}")
            continue
        lo, hi = r["quartiles"]
        goal_text = "-" if r["goal"] is None else f">= {_ratio(r['goal'])}"
        verdict = "" if r["met"] is None else "goal met" if r["met"] else "goal missed"
        print(f"{head} {_ratio(r['median']):>7} [quartiles {_ratio(lo)}, {_ratio(hi)}]  goal {goal_text:<9} "
              f"{verdict}".rstrip(), flush=True)
    firsts = ", ".join(f"{r['table']}{'' if r['path'] == 'fast' else ' (Python engine)'} "
                       f"{(current[0] if r['reference'] else r)['first_hand_s']:.1f} s" for r in results)
    print(textwrap.fill(f"first hand of each table, compile or cache load (not timed): {firsts}", width=98, initial_indent="  ", subsequent_indent="    "))


def main(argv=None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    t0 = time.perf_counter()
    if args.what in ("all", "compile"):
        _section("compile: first hand (warm_up: the hand loop and what the Python engine asks), fresh process, "
                 "empty then warm cache")
        cold_compile(args.each_patch)
    if args.what in ("all", "meld"):
        _section("meld search (one core, batched)")
        from . import meld
        meld.main([])
    if args.what in ("all", "engine"):
        _section(f"engine: whole hands/s (deal included), 4-player kalooki40, one core, in-process, "
                 f"{args.seconds:g} s a figure")
        engine(args.seconds, None if args.baseline.lower() in ("", "none") else args.baseline)
    if args.what in ("all", "discards"):
        _section("discards: taken discards left loose, pairs and two-card runs broken (Python engine, per bot)")
        from . import discards
        discards.main(["--hands", str(args.discard_hands)])
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
