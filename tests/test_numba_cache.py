"""sim.jit.cache: numba's on-disk cache written by two processes at once (every entry each one saves
is kept, under its own key, with its own data, as warm_up's compiling processes need), a function
two processes come to at once compiled by one of them only, one specialization of this package's
kernels per argument types, whatever constants they are called with; and sim.jit.trim's two cuts."""
import multiprocessing as mp

import numpy as np
import pytest
from numba import njit

from sim.jit import cache as numba_cache
from numba.core import caching

KEYS = 40


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


def test_compiles_do_without_the_lock_timing_and_the_formatted_shape_error():
    """sim.jit.trim: numba's callbacks on every call into LLVM are gone, and a slice assigned from
    an array of another size still raises numba's ValueError, with the generic target's message."""
    from llvmlite.binding import ffi
    from numba.core import base
    from sim.jit import trim as numba_trim
    assert numba_trim.SHAPE_ERROR_PLAIN >= 1
    assert not [acq for acq, _ in ffi.lib._lock._cblist if getattr(acq, "__module__", None) == base.__name__]

    @njit
    def assign(a, b):
        a[0:3] = b
        return a

    with pytest.raises(ValueError, match="cannot assign slice from input of different size"):
        assign(np.zeros(5), np.zeros(4))
    assert list(assign(np.zeros(5), np.ones(3))) == [1, 1, 1, 0, 0]
