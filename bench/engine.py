"""Engine throughput: hands per second on one core, whole hands with bots (the deal included), in-process.

``hands_per_second`` plays one table of bots and reports which path its hands took: ``fast=True`` is
the product's path (``sim.engine.loop.play_hand`` takes the compiled hand loop the table's bots name
through ``sim.bots.compiled_hand_loop``, else the Python engine); ``fast=False`` keeps every hand on
the Python engine.  ``measure_tables`` measures the tables that have speed goals, each as a
fraction of the compiled greedy loop's hands/s measured in the same run, and ``baseline_hands_per_second``
times the compiled greedy loop of another commit (extracted with ``git archive``) in a subprocess,
so that a change to the loop can be compared with the loop it replaces on the same machine and load.
``by_turns`` compares the two loops more finely: two persistent processes on one core take turns
playing the same hands, and each pair of turns gives a ratio.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import numpy as np

from sim import profiles
from sim.bots import compiled_hand_loop, make_bot
from sim.engine import HandState, loop
from sim.engine.loop import play_hand

REPO = Path(__file__).resolve().parent.parent
GREEDY = ("greedy",) * 4
MIXED = (("expert", "greedy", "greedy", "greedy"), ("patient", "greedy", "greedy", "greedy"))
SEARCH = ("search",) * 4
TABLES = (GREEDY, ("random",) * 4, ("patient",) * 4, ("expert",) * 4, ("lookahead",) * 4, SEARCH) + MIXED
# The goals for a table of one bot, as a fraction of the compiled greedy loop's hands/s; a mixed
# table's goal is the speed of the table of its slowest bot.
GOALS = {"random": 1 / 2, "patient": 1 / 2, "expert": 1 / 3, "lookahead": 1 / 8, "search": 1 / 300}
# (hands, pairs) of a table timed by turns where the default would take hours: a four-search hand takes
# about as long as 180 greedy ones
BY_TURNS_SIZE = {SEARCH: (4, 24)}
NO_GOAL = dict(goal=None, goal_hands_per_s=None, slowest=None)
ROUNDS = 3  # the compiled greedy loop (and the baseline's) is timed this many times, alternately; median kept


def hands_per_second(profile_name="kalooki40", bots=GREEDY, seconds=10.0, seed=1, fast: bool = False) -> dict:
    """Hands/s of whole hands of one table, after one warm-up hand (compile or cache load: ``first_hand_s``).

    ``fast`` lets the table take the compiled hand loop its bots name, as the product does;
    ``compiled_hands`` says how many of the timed ``hands`` that loop played (the rest ran on the
    Python engine)."""
    prof = profiles.load(profile_name)
    n = len(bots)
    rng = np.random.default_rng(seed)
    players = [make_bot(b, np.random.default_rng(seed + i)) for i, b in enumerate(bots)]
    hand_loop = compiled_hand_loop(players) if fast else None
    compiled = 0
    if hand_loop is not None:
        # Count the hands the loop plays (it returns None when it hands one back to the Python engine):
        # the table's loop object, made afresh each hand, plays through its module's play_hand_fast.
        hand_loop = sys.modules[type(hand_loop).__module__]
        loop_play = hand_loop.play_hand_fast

        def counted(state, *table):
            nonlocal compiled
            result = loop_play(state, *table)
            compiled += result is not None
            return result
        hand_loop.play_hand_fast = counted
    saved = loop.COMPILED
    loop.COMPILED = fast
    try:
        t0 = time.perf_counter()
        play_hand(HandState(prof, n, 0, rng), players, list(range(n)))
        first = time.perf_counter() - t0
        hands = turns = compiled = 0
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            st = HandState(prof, n, hands % n, rng)
            play_hand(st, players, list(range(n)))
            hands += 1
            turns += st.turn_no
        dt = time.perf_counter() - t0
    finally:
        loop.COMPILED = saved
        if hand_loop is not None:
            hand_loop.play_hand_fast = loop_play
    return dict(profile=profile_name, bots=",".join(bots), path="fast" if fast else "python", hands=hands,
                compiled_hands=compiled, seconds=round(dt, 2), hands_per_s=round(hands / dt, 1),
                turns_per_hand=round(turns / max(hands, 1), 1), us_per_turn=round(1e6 * dt / max(turns, 1), 1),
                first_hand_s=round(first, 2))


def path_taken(result: dict) -> str:
    """Which path a measurement's timed hands took: ``compiled``, ``Python engine``, or the share compiled."""
    if result["compiled_hands"] == 0:
        return "Python engine"
    if result["compiled_hands"] == result["hands"]:
        return "compiled"
    return f"compiled {100 * result['compiled_hands'] / result['hands']:.0f}%"


def table_name(bots) -> str:
    return f"{bots[0]} x{len(bots)}" if len(set(bots)) == 1 else ",".join(bots)


def goal(bots, figures: dict) -> dict:
    """The goal of a table other than the greedy one: ``goal`` (what it is, or None where the table has
    none), ``goal_hands_per_s`` (the hands/s it asks for) and ``slowest`` (a mixed table's slowest bot's
    table, whose figure is its goal).  ``figures`` maps each measured table to its hands/s;
    ``figures[GREEDY]`` is the compiled greedy loop's."""
    if len(set(bots)) == 1:
        share = GOALS.get(bots[0])
        if share is None:
            return NO_GOAL
        return dict(NO_GOAL, goal=f">= 1/{1 / share:g}", goal_hands_per_s=share * figures[GREEDY])
    alone = [tuple([b] * len(bots)) for b in set(bots)]
    if not all(t in figures for t in alone):
        return NO_GOAL
    slowest = min(alone, key=lambda t: figures[t])
    return dict(goal=f">= {table_name(slowest)}", goal_hands_per_s=figures[slowest], slowest=table_name(slowest))


def measure_tables(seconds: float, greedy_loop: list[dict], on_result=None) -> list[dict]:
    """Every table of ``TABLES`` on the product's path, plus the greedy table on the Python engine.

    ``greedy_loop`` are the compiled greedy loop's measurements already made (their median is the
    reference, not measured again: the first result, ``reference`` True).  Each result gains ``table``,
    ``reference``, ``ratio`` (to the reference) and ``goal``'s keys; ``on_result`` is called on each as
    it comes, to print it."""
    reference = dict(median_result(greedy_loop), table=table_name(GREEDY), reference=True, ratio=1.0, **NO_GOAL)
    figures = {GREEDY: reference["hands_per_s"]}
    results = [reference]
    if on_result:
        on_result(reference)
    plan = [(GREEDY, False)] + [(bots, True) for bots in TABLES if bots != GREEDY]
    for bots, fast in plan:
        r = hands_per_second(bots=bots, seconds=seconds, fast=fast)
        if fast:
            figures[bots] = r["hands_per_s"]
        r.update(table=table_name(bots), reference=False, ratio=r["hands_per_s"] / figures[GREEDY],
                 **(goal(bots, figures) if fast else NO_GOAL))
        results.append(r)
        if on_result:
            on_result(r)
    return results


def median_result(results: list[dict]) -> dict:
    """The measurement with the median hands/s (the lower middle one of an even count)."""
    ordered = sorted(results, key=lambda r: r["hands_per_s"])
    return ordered[(len(ordered) - 1) // 2]


class Baseline:
    """The compiled greedy loop of another commit, timed in a fresh process of the same python.

    ``open()`` extracts the commit into a temporary directory (``git archive REV``) and returns None,
    or a one-line reason why there is no baseline (not a git checkout, unknown revision, ...).
    Each ``measure`` runs that tree's ``bench.engine.hands_per_second`` on its own numba cache in a
    temporary directory: the first compiles the tree's kernels (its ``first_hand_s``), later ones load
    them.  ``close()`` removes both directories."""

    CODE = ("import json, sys, sim\n"
            "from bench.engine import hands_per_second\n"
            "r = hands_per_second(bots=('greedy',) * 4, fast=True, seconds=float(sys.argv[1]))\n"
            "r['sim_file'] = sim.__file__\n"
            "print(json.dumps(r))\n")

    def __init__(self, rev: str, repo: Path = REPO):
        self.rev, self.repo = rev, repo
        self.commit = None
        self.tree = None  # the extracted commit, while open
        self._dir = None

    def open(self) -> str | None:
        try:
            found = subprocess.run(["git", "-C", str(self.repo), "rev-parse", "--verify", "--quiet",
                                    f"{self.rev}^{{commit}}"], capture_output=True, text=True)
        except OSError as e:
            return f"no baseline: git cannot be run ({e.strerror})"
        if found.returncode != 0:
            inside = subprocess.run(["git", "-C", str(self.repo), "rev-parse", "--git-dir"], capture_output=True)
            if inside.returncode != 0:
                return f"no baseline: {self.repo} is not a git checkout"
            return f"no baseline: git does not know the revision {self.rev!r} (--baseline takes a commit)"
        self.commit = found.stdout.strip()
        self._dir = tempfile.TemporaryDirectory(prefix="kalooki-baseline-")
        tree = self.tree = Path(self._dir.name) / "tree"
        tree.mkdir()
        archive = subprocess.Popen(["git", "-C", str(self.repo), "archive", "--format=tar", self.commit],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        with tarfile.open(fileobj=archive.stdout, mode="r|") as tar:
            tar.extractall(tree, filter="data")
        archive.stdout.close()
        if archive.wait() != 0:
            self.close()
            return f"no baseline: git archive {self.rev} failed: {archive.stderr.read().decode().strip()[-200:]}"
        if not (tree / "bench" / "engine.py").exists():
            self.close()
            return f"no baseline: {self.rev} has no bench/engine.py to time its greedy loop with"
        (Path(self._dir.name) / "numba-cache").mkdir()
        return None

    @property
    def cache(self) -> Path:
        """The baseline's own numba cache directory (while open)."""
        return Path(self._dir.name) / "numba-cache"

    def measure(self, seconds: float) -> dict | str:
        """One measurement of the baseline's compiled greedy loop (a dict as ``hands_per_second``'s), or
        a one-line reason it failed."""
        tree, cache = self.tree, self.cache
        env = {**os.environ, "PYTHONPATH": str(tree), "NUMBA_CACHE_DIR": str(cache)}
        env.pop("KALOOKI_PYTHON_ENGINE", None)
        try:
            out = subprocess.run([sys.executable, "-c", self.CODE, str(seconds)], cwd=tree, env=env,
                                 capture_output=True, text=True, timeout=seconds + 900)
        except subprocess.TimeoutExpired:
            return f"baseline {self.rev} did not finish within {seconds + 900:.0f} s"
        if out.returncode != 0:
            last = (out.stderr.strip().splitlines() or ["(no message)"])[-1]
            return f"baseline {self.rev} failed: {last[:200]}"
        result = json.loads(out.stdout.strip().splitlines()[-1])
        if not Path(result["sim_file"]).resolve().is_relative_to(tree.resolve()):
            return f"baseline {self.rev} imported sim from {result['sim_file']}, not from its own tree"
        return result

    def close(self) -> None:
        if self._dir is not None:
            self._dir.cleanup()
            self._dir = self.tree = None


def greedy_loop_against_baseline(seconds: float, rev: str | None, rounds: int = ROUNDS, turn_hands: int = 50,
                                 turn_pairs: int = 200):
    """The compiled greedy loop of this tree and (if ``rev``) of the commit ``rev``, timed alternately
    ``rounds`` times each (current, baseline, current, ...), then by turns (``by_turns``: this tree's
    speed as a multiple of the baseline's, ``turn_pairs`` pairs of ``turn_hands`` hands).  Returns
    (current results, baseline results, a note when the baseline was skipped or failed, else None,
    the by-turns result or None)."""
    current, base, turns = [], [], None
    baseline = Baseline(rev) if rev else None
    note = baseline.open() if baseline is not None else None
    timing = baseline is not None and note is None
    try:
        for _ in range(rounds):
            current.append(hands_per_second(bots=GREEDY, seconds=seconds, fast=True))
            if timing:
                r = baseline.measure(seconds)
                if isinstance(r, str):
                    note, timing = r, False
                else:
                    base.append(r)
        if timing:
            turns = by_turns({rev: (baseline.tree, {"NUMBA_CACHE_DIR": str(baseline.cache)}), "this tree": (REPO, {})},
                             turn_hands, turn_pairs)
            if isinstance(turns, str):
                note, turns = turns, None
    finally:
        if baseline is not None:
            baseline.close()
    return current, base, note, turns


# A persistent process for ``by_turns``: it warms its tree's hand loop for its table (argv[3]), says
# where its ``sim`` comes from, then for each seed read plays ``hands`` whole hands of that table from
# that seed and prints the CPU seconds they took.  It uses only what every tree with the compiled hand loop has.
TURNS_CODE = """
import json, os, sys, time
import numpy as np
import sim
from bench.engine import hands_per_second
from sim import profiles
from sim.bots import make_bot
from sim.engine import HandState
from sim.engine.loop import play_hand
cpu, hands, bots = int(sys.argv[1]), int(sys.argv[2]), tuple(sys.argv[3].split(","))
if cpu >= 0:
    os.sched_setaffinity(0, {cpu})
hands_per_second(bots=bots, fast=True, seconds=0.5)  # compile or load the kernels; warm
prof = profiles.load("kalooki40")
n = len(bots)
print(json.dumps({"sim_file": sim.__file__}), flush=True)
for line in sys.stdin:
    rng = np.random.default_rng(int(line))
    players = [make_bot(b, np.random.default_rng(1 + i)) for i, b in enumerate(bots)]
    t0 = time.process_time()
    for h in range(hands):
        play_hand(HandState(prof, n, h % n, rng), players, list(range(n)))
    print(time.process_time() - t0, flush=True)
"""


def by_turns(trees: dict, hands: int = 60, pairs: int = 100) -> dict | str:
    """Two tables timed by turns: each in a persistent process (``trees``: label -> (tree, environment
    additions[, bots: the table, four greedy bots if not given]), two of them), both pinned to one
    core where the platform allows; pair k has each play ``hands`` hands dealt from seed k, the first
    label first in even pairs and second in odd ones.  Returns ``ratios`` (per pair, the first's CPU
    seconds over the second's: the second's speed as a multiple of the first's, sorted), their
    ``median`` and ``quartiles``, ``pairs``, ``hands`` and ``pinned`` (the core, or None); or a
    one-line reason it could not be done."""
    labels = list(trees)
    if len(labels) != 2:
        raise ValueError("by_turns compares two trees")
    cpu = max(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else -1
    procs, errs = {}, {}
    try:
        for label, (tree, extra, *bots) in trees.items():
            env = {**os.environ, **extra, "PYTHONPATH": str(tree)}
            env.pop("KALOOKI_PYTHON_ENGINE", None)
            errs[label] = tempfile.TemporaryFile(mode="w+")
            table = ",".join(bots[0] if bots else GREEDY)
            procs[label] = subprocess.Popen([sys.executable, "-c", TURNS_CODE, str(cpu), str(hands), table],
                                            cwd=tree, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                            stderr=errs[label], text=True)
        for label, (tree, *_) in trees.items():
            line = procs[label].stdout.readline()
            if not line:
                procs[label].wait(timeout=30)
                errs[label].seek(0)
                last = (errs[label].read().strip().splitlines() or ["(no message)"])[-1]
                return f"{label} did not start: {last[:200]}"
            sim_file = Path(json.loads(line)["sim_file"]).resolve()
            if not sim_file.is_relative_to(Path(tree).resolve()):
                return f"{label} imported sim from {sim_file}, not from its own tree"
        seconds = {label: [] for label in labels}
        for k in range(pairs):
            for label in (labels if k % 2 == 0 else labels[::-1]):
                try:
                    procs[label].stdin.write(f"{k}\n")
                    procs[label].stdin.flush()
                    line = procs[label].stdout.readline()
                except OSError:  # its end of the pipe closed
                    line = ""
                if not line:
                    return f"{label} stopped after {k} pairs"
                seconds[label].append(float(line))
    finally:
        for p in procs.values():  # a closed stdin ends its loop
            try:
                p.stdin.close()
            except OSError:
                pass
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        for f in errs.values():
            f.close()
    ratios = sorted(a / b for a, b in zip(*(seconds[label] for label in labels)))

    def at(q):
        return ratios[round(q * (len(ratios) - 1))]
    return dict(ratios=ratios, median=float(np.median(ratios)), quartiles=(at(0.25), at(0.75)), pairs=pairs,
                hands=hands, pinned=cpu if cpu >= 0 else None)


def tables_by_turns(hands: int = 50, pairs: int = 100) -> list[dict]:
    """Each table of ``TABLES`` but the greedy one timed by turns (``by_turns``) against the table its
    goal is set by, in this tree: a one-bot table against the compiled greedy loop (its goal a share
    of it), a mixed table against the slowest of its bots' own tables as timed here against the greedy
    loop (its goal that table's speed).  Each result: ``table``, ``against``, ``goal`` (the speed
    ratio asked for, or None), ``met`` (the median ratio reaches it, or None) and ``by_turns``'s keys,
    or ``error`` (a reason)."""
    out, of_greedy = [], {GREEDY: 1.0}
    for bots in TABLES:
        if bots == GREEDY:
            continue
        if len(set(bots)) == 1:
            against, need = GREEDY, GOALS.get(bots[0])
        else:
            alone = [tuple([b] * len(bots)) for b in sorted(set(bots))]
            known = [t for t in alone if t in of_greedy]
            if len(known) < len(alone):
                continue
            against, need = min(known, key=lambda t: of_greedy[t]), 1.0
        size = BY_TURNS_SIZE.get(bots, (hands, pairs))
        r = by_turns({table_name(against): (REPO, {}, against), table_name(bots): (REPO, {}, bots)}, *size)
        row = dict(table=table_name(bots), against=table_name(against), goal=need)
        if isinstance(r, str):
            out.append(dict(row, error=r, met=None))
            continue
        if against == GREEDY:
            of_greedy[bots] = r["median"]
        out.append(dict(row, **r, met=None if need is None else r["median"] >= need))
    return out


def main():
    for r in measure_tables(10.0, [hands_per_second(bots=GREEDY, fast=True)]):
        print(r)


if __name__ == "__main__":
    main()
