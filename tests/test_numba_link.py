"""sim.jit.link: each compiled function's machine code is made once, in its own library; a caller
keeps its callees external, a cached entry bundles their code, and whatever order a fresh process
loads cached functions in, each computes what numba's own linking computes."""
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from sim.jit import link as numba_link

ROOT = Path(__file__).resolve().parents[1]

# eight fresh processes compiling and loading the cache (about 18 CPU-seconds): the slow tier
pytestmark = pytest.mark.slow

_MODULE = """
import numpy as np
from numba import njit
import sim.jit.link  # noqa: F401

@njit(cache=True)
def bottom(x):
    s = 0
    for i in range(x.size):
        s += x[i] * (i % 7)
    return s

@njit(cache=True)
def middle(x):
    return bottom(x) + bottom(x[::2]) + np.argsort(x)[0]

@njit(cache=True)
def top(x):
    t = 0
    for k in range(3):
        t += middle(x + k)
    return t
"""

_RUN = """
import json, os, pickle, sys
import numpy as np
import linkmod
order, out = sys.argv[1].split(","), {}
x = np.arange(40, dtype=np.int64)[::-1].copy()
for name in order:
    fn = getattr(linkmod, name)
    out[name] = int(fn(x))
    out[name + "_hits"] = sum(fn.stats.cache_hits.values())
lib = linkmod.top.overloads[linkmod.top.signatures[0]].library
mod = lib._final_module if not hasattr(lib, "_kalooki_object") else lib._shared_module
# the callees' own definitions (numba's optimiser may inline bottom into middle and drop it)
callees = [f for f in mod.functions if "bottom" in f.name or "middle" in f.name]
out["top_defines_callees"] = any(not f.is_declaration for f in callees)
out["top_name"] = linkmod.top.overloads[linkmod.top.signatures[0]].fndesc.mangled_name
# loading skips numba's lowering registries (numba.np.linalg among them, which imports scipy's)
out["registries_loaded"] = "numba.np.linalg" in sys.modules
if os.environ.get("LINKTEST_LATE"):
    from numba import njit
    @njit
    def late(y):  # compiled after the loads: its compile loads the registries itself
        return np.argmin(y) + len(sorted([3, 1, 2]))
    out["late"] = int(late(x))
    out["registries_after"] = "numba.np.linalg" in sys.modules
if len(sys.argv) > 2:  # the top's entry without its bundle, for a process that has nothing loaded
    name, kind, data = lib.serialize_using_object_code()
    pickle.dump((name, kind, (data[0], data[1], ())), open(sys.argv[2], "wb"))
print(json.dumps(out))
"""


def _run(tmp_path, order, *extra, link="once", late=False):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "KALOOKI_NUMBA_LINK": link,
           "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)]), "LINKTEST_LATE": "1" if late else ""}
    (tmp_path / "run.py").write_text(_RUN)
    r = subprocess.run([sys.executable, str(tmp_path / "run.py"), order, *extra], env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


ORDERS = ("top,middle,bottom", "middle,top,bottom", "bottom,top,middle", "bottom,middle,top")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Every process the checks read, started once for the module (each compile is seconds): numba's
    linking, ours, ours loading the cache in every order, and a second process compiling afresh; the
    first of ours also writes its top's entry without the bundle (``stripped.pkl``)."""
    root = tmp_path_factory.mktemp("link")
    (root / "linkmod.py").write_text(textwrap.dedent(_MODULE))
    runs = {"copy": _run(root, "top,middle,bottom", link="copy"),
            "fresh": _run(root, "top,middle,bottom", str(root / "stripped.pkl")),
            "copy again": _run(root, "top", link="copy"),
            "orders": {order: _run(root, order, late=order == "middle,top,bottom") for order in ORDERS}}
    shutil.rmtree(root / "cache")
    runs["another"] = _run(root, "top")
    runs["stripped"] = root / "stripped.pkl"
    return runs


def test_callers_keep_their_callees_external_and_compute_what_numba_computes(runs):
    copy, fresh = runs["copy"], runs["fresh"]
    assert copy["top_defines_callees"]  # numba's own linking: the caller carries the callee's code
    assert not fresh["top_defines_callees"]  # here the callee's code stays in the callee's library
    for name in ("top", "middle", "bottom"):
        assert fresh[name] == copy[name]
    assert fresh["top_hits"] == 0  # numba's entries in the same cache are keyed apart: never loaded here
    assert runs["copy again"]["top_hits"] == 1  # nor ours by numba's linking
    # fresh processes loading the cache in every order: the same values, from the cache
    late_runs = 0
    for order, loaded in runs["orders"].items():
        for name in ("top", "middle", "bottom"):
            assert loaded[name] == copy[name], order
            assert loaded[name + "_hits"] == 1, order
        assert not loaded["registries_loaded"], order
        if "late" in loaded:  # a function compiled after the loads compiles (loading the registries)
            assert loaded["late"] == 39 + 3 and loaded["registries_after"], order
            late_runs += 1
    assert late_runs == 1
    # two processes compiling the same function name it differently (a bundle never stands in for
    # another process's function of the same name)
    assert runs["another"]["top_name"] != fresh["top_name"]


def test_an_entry_that_lacks_code_it_calls_is_a_cache_miss(runs):
    stripped = runs["stripped"]
    code = ("import pickle, sys; import sim.jit.link as L; from numba.core.registry import cpu_target\n"
            "cg = cpu_target.target_context.codegen()\n"
            "try:\n    cg.unserialize_library(pickle.load(open(sys.argv[1], 'rb')))\nexcept L.MissingCode as e:\n"
            "    print('missing', e)\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    r = subprocess.run([sys.executable, "-c", code, str(stripped)], env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.startswith("missing") and "middle" in r.stdout

    def raises(*_):
        raise numba_link.MissingCode("x")
    assert numba_link._load_overload(raises)(None, None, None) is None  # numba then compiles it afresh
    with pytest.raises(KeyError):
        numba_link._load_overload(lambda *_: {}["other errors pass"])(None, None, None)
