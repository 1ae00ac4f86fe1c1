"""sim.jit against a numba whose internals differ from what its patches rely on: each patch, finding
a name it uses renamed in numba or llvmlite, is left out; the package still imports, warns once,
compiles and caches a kernel, and plays the same hands as with every patch applied.

A subprocess renames the internal before importing ``sim`` as a numba release renaming it would:
the attribute on its class or object and every use of it in numba's and llvmlite's own code (the
names a function's code refers to), so numba itself still works; or renames a parameter of the
method a patch wraps.  Hands played with every patch left out at once are ``make test``'s; each patch
left out alone (a process apiece), a patch left out on purpose, and a fresh process loading what another
compiled with every internal renamed are the ``slow`` tier's; every kernel compiled without the patches
is ``make soak``'s.
"""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from sim import profiles
from sim.jit import cache as jit_cache
from sim.jit import internals
from sim.jit import link as jit_link
from sim.records import ShardSpec, play_shard

ROOT = Path(__file__).resolve().parents[1]

# A numba with an internal renamed, then what sim.jit made of it.  argv[1]: the renames, JSON
# [["name", old, new] | ["param", "module:Class.method", old, new], ...]; argv[2]: what to do after
# importing sim: "kernel" (compile or load a small cached kernel) or "hands" (play seeded hands).
_RENAMED_NUMBA = textwrap.dedent('''
    import gc, importlib, json, sys, types, warnings
    import numba, llvmlite.binding  # noqa: F401
    import numba.core.base, numba.core.caching, numba.core.codegen, numba.core.dispatcher  # noqa: F401
    import numba.np.arrayobj, numba.core.typing.templates, numba.core.runtime.nrt  # noqa: F401

    OURS = ("numba", "llvmlite")

    def renamed(code, old, new):
        consts = tuple(renamed(c, old, new) if isinstance(c, types.CodeType) else c for c in code.co_consts)
        return code.replace(co_names=tuple(new if n == old else n for n in code.co_names), co_consts=consts)

    def mentions(code, old):
        return old in code.co_names or any(isinstance(c, types.CodeType) and mentions(c, old) for c in code.co_consts)

    def rename(old, new):
        for obj in gc.get_objects():
            if isinstance(obj, types.FunctionType):
                if (obj.__module__ or "").startswith(OURS) and mentions(obj.__code__, old):
                    obj.__code__ = renamed(obj.__code__, old, new)
            else:
                where = (obj.__name__ if isinstance(obj, types.ModuleType) else obj.__module__
                         if isinstance(obj, type) else type(obj).__module__)
                d = getattr(obj, "__dict__", None)
                ours = isinstance(where, str) and where.startswith(OURS)
                if ours and isinstance(d, (dict, types.MappingProxyType)) and old in d:
                    value = d[old]
                    delattr(obj, old)
                    setattr(obj, new, value)

    def rename_param(where, old, new):
        module, path = where.split(":")
        owner, name = path.rsplit(".", 1)
        func = getattr(getattr(importlib.import_module(module), owner), name)
        code = func.__code__
        func.__code__ = code.replace(co_varnames=tuple(new if n == old else n for n in code.co_varnames))

    for kind, *args in json.loads(sys.argv[1]):
        (rename if kind == "name" else rename_param)(*args)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        import sim.bots.hand_loop  # noqa: F401  (every kernel module: sim.jit and all that use it)
    from sim.jit import cache, internals, link, trim
    out = {"warnings": [(w.category.__name__, str(w.message)) for w in caught
                        if issubclass(w.category, internals.NumbaInternalsWarning)],
           "left_out": sorted(internals.skipped()), "link": link.ENABLED, "locked": cache.LOCKED,
           "compile_wrapped": hasattr(numba.core.dispatcher.Dispatcher.compile, "__wrapped__")}
    if sys.argv[2] == "kernel":
        import numpy as np
        import small_kernel
        out["value"] = int(small_kernel.kernel(np.arange(12, dtype=np.int64)))
        out["hits"] = sum(small_kernel.kernel.stats.cache_hits.values())
        out["state"] = cache.cached_state(small_kernel.kernel)
    else:
        from sim import profiles
        from sim.records import ShardSpec, play_shard
        spec = ShardSpec(profiles.load("kalooki40"), ["greedy"] * 4, seed=11, first_game=0, n_games=2)
        out["hands"] = play_shard(spec)["hands"].to_pylist()
    print(json.dumps(out, default=str))
''')

_SMALL_KERNEL = '''
import numpy as np
from numba import njit


@njit(cache=True)
def part(a, k):
    return a[k] * 3 + np.argsort(a)[0]


@njit(cache=True)
def kernel(a):
    return part(a, 0) + part(a, 5) + np.sum(a)
'''
SMALL_VALUE = (0 + 0) + (15 + 0) + 66

# each patch, and a rename of something it relies on (``sim.jit.internals``); where one rename
# touches what several patches use, each of them is left out
BREAKS = {
    "link": [["name", "_unique_ids", "_function_ids"]],
    "warm-loading": [["name", "_guard_against_spurious_io_errors", "_guarded"]],
    "entry-lock": [["name", "_index_path", "_index_file"]],
    "compile-lock": [["param", "numba.core.dispatcher:Dispatcher.compile", "sig", "signature"]],
    "plain-types": [["param", "numba.core.dispatcher:_DispatcherBase.get_call_template", "kws",
                              "kwargs"]],
    "stale-drop": [["name", "cache_path", "cache_dir"]],
    "cache-lookup": [["name", "_source_stamp", "_stamp"]],
    "shape-error": [["name", "ol_raise_with_shape_context_cpu", "ol_shape_context_cpu"]],
}


def _start(renames, what, tmp_path, cache_dir=None, off=""):
    source = tmp_path / "small_kernel.py"
    if not source.exists():  # written once: numba's cache keys an entry by its source file's time stamp
        source.write_text(_SMALL_KERNEL)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)]), internals.OFF_ENV: off}
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = str(cache_dir)
    return subprocess.Popen([sys.executable, "-c", _RENAMED_NUMBA, json.dumps(renames), what], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _result(proc) -> dict:
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err[-3000:]
    return json.loads(out.strip().splitlines()[-1])


def test_the_patches_apply_on_the_numba_installed():
    assert internals.skipped() == {}
    assert jit_link.ENABLED and jit_link.REGISTRIES_SKIPPED and jit_cache.STALE_DROPPED and jit_cache.LOOKUP


@pytest.mark.slow
def test_a_patch_left_out_on_purpose_is_numbas_own_behaviour_without_a_warning(tmp_path):
    r = _result(_start([], "kernel", tmp_path, tmp_path / "cache", off="compile-lock"))
    assert (r["warnings"], r["left_out"], r["compile_wrapped"]) == ([], [], False)
    assert (r["value"], r["link"]) == (SMALL_VALUE, True)
    r = _result(_start([], "kernel", tmp_path, tmp_path / "cache", off="link,compile-locks"))
    assert not r["link"] and r["compile_wrapped"] and r["hits"] == 0  # the link's entries are keyed apart
    assert [m for _, m in r["warnings"]] == [
        f"KALOOKI_NUMBA_OFF: unknown patch 'compile-locks'; known: {', '.join(internals.PATCHES)}"]


@pytest.mark.slow
def test_a_renamed_internal_leaves_its_patch_out_with_one_warning(tmp_path):
    """Every patch at once, each in its own process (two at a time): the package imports, one warning
    names the patch and what differed, and a cached kernel compiles, runs and is cached."""
    results, running = {}, {}
    for patch, renames in BREAKS.items():
        if len(running) == 2:
            done = next(iter(running))
            results[done] = _result(running.pop(done))
        where = tmp_path / patch.replace(" ", "_")
        where.mkdir()
        running[patch] = _start(renames, "kernel", where, where / "cache")
    for patch, proc in running.items():
        results[patch] = _result(proc)
    for patch, r in results.items():
        assert len(r["warnings"]) == 1, (patch, r["warnings"])
        message = r["warnings"][0][1]
        assert patch in r["left_out"] and patch in message, (patch, r)
        assert "numba's own behaviour is kept" in message
        assert r["value"] == SMALL_VALUE, patch
        assert r["hits"] == 0, patch  # compiled (an empty cache) ...
        if "cache-lookup" not in r["left_out"]:
            assert r["state"], patch  # ... and saved: the cache holds it for the next process
    assert not results["link"]["link"] and results["compile-lock"]["link"]
    assert not results["entry-lock"]["locked"]
    assert results["shape-error"]["left_out"] == ["shape-error"]


# the compile lock is applied only with the entry lock, the warm loading only with the link
BUILT_ON = {"compile-lock": "entry-lock", "warm-loading": "link"}


def _left_out(broken) -> set:
    """The patches left out, and so named in the warning, where the internals of ``broken`` are renamed."""
    return {p for p in broken if BUILT_ON.get(p) not in broken}


@pytest.mark.slow
def test_with_every_internal_renamed_a_fresh_process_loads_what_another_compiled(tmp_path):
    renames = [r for rs in BREAKS.values() for r in rs]
    first = _result(_start(renames, "kernel", tmp_path, tmp_path / "cache"))
    assert set(first["left_out"]) == _left_out(BREAKS)
    assert len(first["warnings"]) == 1
    second = _result(_start(renames, "kernel", tmp_path, tmp_path / "cache"))
    assert (first["value"], first["hits"]) == (SMALL_VALUE, 0)
    assert (second["value"], second["hits"]) == (SMALL_VALUE, 1)


def _hands() -> list:
    spec = ShardSpec(profiles.load("kalooki40"), ["greedy"] * 4, seed=11, first_game=0, n_games=2)
    return play_shard(spec)["hands"].to_pylist()


def test_hands_played_with_the_patches_left_out_are_the_same(tmp_path):
    """Every patch but the link left out, the hand loop loaded from the suite's cache: the same hand
    records as with every patch applied.  (With the link left out too, numba compiles every kernel
    afresh with its own linking: the slow test below.)"""
    renames = [r for patch, rs in BREAKS.items() if patch != "link" for r in rs]
    r = _result(_start(renames, "hands", tmp_path))
    assert set(r["left_out"]) == _left_out(set(BREAKS) - {"link"}) and r["link"]
    assert len(r["hands"]) >= 2
    assert json.loads(json.dumps(_hands(), default=str)) == r["hands"]


@pytest.mark.soak
def test_hands_played_with_every_patch_left_out_are_the_same(tmp_path):
    """Every patch left out, numba compiling every kernel the hands need with its own linking into an
    empty cache (minutes): the same hand records as with every patch applied."""
    renames = [r for rs in BREAKS.values() for r in rs]
    r = _result(_start(renames, "hands", tmp_path, tmp_path / "cache"))
    assert set(r["left_out"]) == _left_out(BREAKS) and not r["link"]
    assert json.loads(json.dumps(_hands(), default=str)) == r["hands"]
