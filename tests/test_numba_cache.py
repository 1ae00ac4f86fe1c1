"""numba's on-disk cache written by two processes at once (sim.numba_cache): every entry each one saves
is kept, under its own key, with its own data, as warm_up's two compiling processes need."""
import multiprocessing as mp

import pytest

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
