"""sim.jit.cache: numba's on-disk cache written by two processes at once (every entry each one saves
is kept, under its own key, with its own data, as warm_up's compiling processes need), a function
two processes come to at once compiled by one of them only, one specialization of this package's
kernels per argument types, whatever constants they are called with; the cache read to tell whether
a compile is needed, and warm_up compiling and announcing only what a run's bots need; and
sim.jit.trim's cut."""
import multiprocessing as mp
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from numba import njit

from sim.jit import cache as numba_cache
from numba.core import caching

KEYS = 40
ROOT = Path(__file__).resolve().parents[1]


def _save_many(path, who, barrier):
    from sim.jit import cache as numba_cache  # noqa: F401  (the lock, in the spawned process)
    f = caching.IndexDataCacheFile(path, "fn", ("stamp", 1))
    barrier.wait()
    for k in range(KEYS):
        f.save((who, k), f"{who}:{k}")


@pytest.mark.skipif(not numba_cache.LOCKED, reason="no POSIX file locks here: warm_up compiles in one process")
def test_two_processes_saving_one_function_keep_every_entry(tmp_path):
    ctx = mp.get_context("spawn")
    barrier = ctx.Barrier(2)
    procs = [ctx.Process(target=_save_many, args=(str(tmp_path), who, barrier)) for who in ("a", "b")]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    f = caching.IndexDataCacheFile(str(tmp_path), "fn", ("stamp", 1))
    for who in ("a", "b"):
        for k in range(KEYS):
            assert f.load((who, k)) == f"{who}:{k}"
    assert len(list(tmp_path.glob("fn.*.nbc"))) == 2 * KEYS


_CALLER = """
def inner(a, k):
    return a[k] + k

def outer(a):
    return inner(a, 0) + inner(a, 1) + inner(a, a.shape[0] - 1)
"""


def _kernels(module: str):
    """inner and outer compiled as if written in ``module``: outer calls inner with two constants."""
    space = {"__name__": module}
    exec(compile(_CALLER, f"<{module}>", "exec"), space)
    inner = njit(space["inner"])
    space["inner"] = inner
    return inner, njit(space["outer"])


def test_kernels_of_this_package_compile_once_whatever_constants_they_are_called_with():
    a = np.arange(5, dtype=np.int64)
    inner, outer = _kernels("sim.bots.example")
    assert outer(a) == (0 + 0) + (1 + 1) + (4 + 4)
    assert len(inner.signatures) == 1  # int64 for every call
    other_inner, other_outer = _kernels("elsewhere")  # numba's own behaviour, left alone outside sim
    assert other_outer(a) == outer(a)
    assert len(other_inner.signatures) == 3  # Literal[int](0), Literal[int](1), int64


_SLOW_TO_COMPILE = '''
import numpy as np
from numba import njit


@njit(cache=True)
def kernel(a):
    b = np.sort(a)
    c = np.argsort(a)
    return b[0] + c[-1] + np.cumsum(b)[-1] + np.unique(a).shape[0]
'''


def _compile_once(cache_dir, module_dir, barrier, out):
    import os
    import sys
    os.environ["NUMBA_CACHE_DIR"] = cache_dir  # before numba is imported, in the spawned process
    sys.path.insert(0, module_dir)
    from sim.jit import cache as numba_cache  # noqa: F401  (one process at a time compiles a function)
    import slow_kernel
    barrier.wait()
    value = slow_kernel.kernel(np.arange(9, 0, -1, dtype=np.int64))
    stats = slow_kernel.kernel.stats
    out.put((int(value), sum(stats.cache_misses.values()), sum(stats.cache_hits.values())))


@pytest.mark.slow
@pytest.mark.skipif(not numba_cache.LOCKED, reason="no POSIX file locks here: warm_up compiles in one process")
def test_two_processes_coming_to_one_function_at_once_compile_it_once(tmp_path):
    """Started together on an empty cache, one process compiles the function and the other waits
    for it and loads it, where both compiled it before (the second compile was the warm-up's 15 s
    of duplicated work)."""
    (tmp_path / "mod").mkdir()
    (tmp_path / "mod" / "slow_kernel.py").write_text(_SLOW_TO_COMPILE)
    ctx = mp.get_context("spawn")
    barrier, out = ctx.Barrier(2), ctx.Queue()
    procs = [ctx.Process(target=_compile_once, args=(str(tmp_path / "cache"), str(tmp_path / "mod"), barrier, out))
             for _ in range(2)]
    for p in procs:
        p.start()
    results = [out.get(timeout=300) for _ in procs]
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    expected = 1 + 0 + 45 + 9  # smallest + the largest's index (9, first) + the sum + distinct values
    assert [r[0] for r in results] == [expected, expected]
    assert sorted((misses, hits) for _, misses, hits in results) == [(0, 1), (1, 0)]


def test_compiles_do_without_the_formatted_shape_error():
    """sim.jit.trim: a slice assigned from an array of another size still raises numba's ValueError,
    with the generic target's message."""
    from sim.jit import trim as numba_trim
    assert numba_trim.SHAPE_ERROR_PLAIN >= 1

    @njit
    def assign(a, b):
        a[0:3] = b
        return a

    with pytest.raises(ValueError, match="cannot assign slice from input of different size"):
        assign(np.zeros(5), np.zeros(4))
    assert list(assign(np.zeros(5), np.ones(3))) == [1, 1, 1, 0, 0]


def test_the_cache_lookup_reads_what_a_fresh_process_would_load(tmp_path):
    """cached_state: "" before a kernel is compiled, a text once its entry is saved, another text once a
    second entry is; nothing is compiled by asking."""
    (tmp_path / "mod").mkdir()
    (tmp_path / "mod" / "lookup_kernel.py").write_text(
        "from numba import njit\n\n\n@njit(cache=True)\ndef kernel(a):\n    return a[0] + a.shape[0]\n")
    code = ("import sys, numpy as np; sys.path.insert(0, sys.argv[1]); from sim.jit import cache\n"
            "import lookup_kernel as m\n"
            "print(repr(cache.cached_state(m.kernel)), len(m.kernel.signatures))\n"
            "m.kernel(np.arange(3, dtype=np.int64)) if sys.argv[2] == 'int' else m.kernel(np.arange(3.0))\n"
            "print(repr(cache.cached_state(m.kernel)))\n")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}

    def run(kind):
        r = subprocess.run([sys.executable, "-c", code, str(tmp_path / "mod"), kind], env=env, capture_output=True,
                           text=True, timeout=300)
        assert r.returncode == 0, r.stderr[-2000:]
        before, after = r.stdout.strip().splitlines()
        return before, after

    before, after = run("int")
    assert before == "'' 0" and after not in ("''", "None")
    again, same = run("int")
    assert again == f"{after} 0" and same == after  # loaded, not compiled: the state as it was
    _, more = run("float")
    assert more not in (after, "''", "None")


def test_warm_up_compiles_and_announces_only_the_parts_the_cache_lacks(tmp_path, monkeypatch, capsys):
    """With the suite's cache warm, warm_up is silent; a part whose stamp is missing (a bot never warmed
    up for) is announced on stderr, compiled or loaded, and stamped, and silent the next time."""
    from sim.bots import hand_loop as HL
    assert HL.warm_up(["greedy", "expert"], announce=True) < 30
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(HL, "_stamp_path", lambda part: tmp_path / f"{part}.stamp")
    assert HL._cold_parts(("greedy", "expert")) == ["loop", "expert"]
    HL.warm_up(["expert"], announce=True)
    err = capsys.readouterr().err
    assert err.startswith("compiling the simulation kernels for greedy, expert tables (first run only, about ")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["expert.stamp", "loop.stamp"]
    assert HL._cold_parts(("greedy", "expert")) == [] and HL._cold_parts(("random",)) == ["random"]
    HL.warm_up(("expert", "greedy"), announce=True)
    assert capsys.readouterr().err == ""
    (tmp_path / "expert.stamp").write_text("what the cache held before an edit")
    assert HL._cold_parts(("greedy", "expert")) == ["expert"]


def test_the_compile_estimate_grows_with_the_bots_and_with_other_work_on_the_cores(monkeypatch):
    """On an idle machine the estimate is the parts' CPU seconds over the overlap of warm_up's
    processes (one process on one core); other work runnable beside it makes it longer, and the
    announcement says the cores are shared."""
    from sim.bots import hand_loop as HL
    monkeypatch.setattr(HL.os, "cpu_count", lambda: 2)
    every, cpu = list(HL._PARTS), sum(HL._PART_CPU_S.values())
    assert HL._compile_estimate(every) == pytest.approx(cpu / HL._OVERLAP)
    assert HL._compile_estimate(["loop"]) < HL._compile_estimate(every)
    idle, busy, busier = (HL._compile_estimate(every, others) for others in (0.0, 2.0, 7.0))
    assert idle < busy < busier
    assert busier == pytest.approx(cpu * HL._SHARED_CPU / (2 * 3 / (7 + 3)))  # 3 processes' fair share
    monkeypatch.setattr(HL, "_others_running", lambda: 0.2)
    assert HL._announcement(("greedy", "expert"), ["loop", "expert"]) == (
        "compiling the simulation kernels for greedy, expert tables (first run only, about 50 s on 2 cores)")
    monkeypatch.setattr(HL, "_others_running", lambda: 7.0)
    assert HL._announcement(("greedy",), ["loop"]).endswith("about 4 min on 2 cores, shared with other work)")
    monkeypatch.setattr(HL.os, "cpu_count", lambda: 1)
    assert HL._compile_estimate(every) == pytest.approx(cpu)


def test_warm_up_takes_bot_names_and_refuses_an_unknown_one():
    from sim.bots import BOTS
    from sim.bots import hand_loop as HL
    assert HL._warm_bots(None) == tuple(BOTS)
    assert HL._warm_bots("expert") == ("greedy", "expert")
    assert HL._warm_bots(["lookahead", "random", "random"]) == ("greedy", "random", "lookahead")
    with pytest.raises(ValueError, match="unknown bot 'grredy'; available: greedy, random"):
        HL.warm_up(["grredy"])


def test_a_kernels_cache_is_dropped_when_any_module_it_reaches_changes():
    # The hand loop's kernels compile in code from modules it reaches only through others (the random
    # bot through the turns, the equity table through the search): every one is in its stamp, read from
    # the sources, so a change to any of them drops the loop's cached code.  The engine reaches no bot.
    files = {str(p).split("/sim/", 1)[1] for p in numba_cache.reached(["sim.bots.hand_loop"])}
    assert {"bots/random_bot.py", "bots/expert_core.py", "bots/outlook.py", "equity.py", "engine/hand.py",
            "meldsearch.py"} <= files
    engine = {str(p).split("/sim/", 1)[1] for p in numba_cache.reached(["sim.engine.turn"])}
    assert "engine/turn.py" in engine and not any(f.startswith("bots/") for f in engine)
    assert numba_cache.reached(["sim.no_such_module"]) == []
