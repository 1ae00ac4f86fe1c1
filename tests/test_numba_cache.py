"""sim.numba_cache: numba's on-disk cache written by two processes at once (every entry each one saves
is kept, under its own key, with its own data, as warm_up's two compiling processes need), and one
specialization of this package's kernels per argument types, whatever constants they are called with."""
import multiprocessing as mp

import numpy as np
import pytest
from numba import njit

from sim import numba_cache
from numba.core import caching

KEYS = 40


def _save_many(path, who, barrier):
    from sim import numba_cache  # noqa: F401  (the lock, in the spawned process)
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
