"""Keeping numba's on-disk cache honest across modules.

numba invalidates a cached function only when its own source file changes, yet a compiled function
has every njit function it calls compiled into it, from whatever module.  ``drop_stale(kernel, deps)``
is called by a module of kernels as it is imported: when any of the modules its kernels call into
has changed since the cache was written, it drops that module's cached code, so a kernel can never
keep an old copy of a rule or a decision (and differ from the Python path).

Importing this module also makes numba's cache writes safe between processes, has one process at a
time compile a function (the others wait, then load it), compiles one specialization of a kernel
per argument types rather than per constant argument value (below), has each compiled function's
machine code made once (``sim.jit.link``) and drops two costs of numba's compiles that compute
nothing (``sim.jit.trim``).
"""
from __future__ import annotations

import functools
import hashlib
from pathlib import Path

try:
    import fcntl
except ImportError:  # not POSIX: no lock, and hand_loop.warm_up compiles in one process
    fcntl = None

from numba.core import caching, compiler_lock, dispatcher, sigutils, types

from . import link  # noqa: F401  (each function's machine code made once: see that module)
from . import trim  # noqa: F401  (two costs of numba's compiles that compute nothing: see that module)

# numba's on-disk cache is not safe for two processes writing one function's entries at once
# (numba issue #4807): each reads the function's index, picks the first free data file name and
# writes both, so one process's entry can be lost, or pointed at the other's compiled code.
# hand_loop.warm_up compiles in three processes from an empty cache, so every save and load of an
# entry holds an exclusive lock on a file beside that function's index.
LOCKED = fcntl is not None


def _holding(path: str, work):
    """``work()`` with an exclusive lock on the file ``path`` held (released as the file closes), or
    without it where that file cannot be opened (a cache directory nobody can write to: numba's
    own behaviour)."""
    try:
        f = open(path, "a")
    except OSError:
        return work()
    with f:
        fcntl.flock(f, fcntl.LOCK_EX)
        return work()


def _locked(method):
    @functools.wraps(method)
    def locked(self, *args):
        return _holding(self._index_path + ".lock", lambda: method(self, *args))
    return locked


if LOCKED and not hasattr(caching.IndexDataCacheFile.save, "__wrapped__"):
    caching.IndexDataCacheFile.save = _locked(caching.IndexDataCacheFile.save)
    caching.IndexDataCacheFile.load = _locked(caching.IndexDataCacheFile.load)


# Two processes compiling into one empty cache (warm_up's, two test workers') each compiled the
# same function whenever both came to it before either had saved it: the warm-up's two processes
# compiled three of the largest bots' functions twice, 15 s of their 131 s of work.  So one process
# at a time compiles, or loads, a function: it holds an exclusive lock on a file beside the
# function's index from before it looks in the cache until it has saved the compiled code, and
# another process coming to the function waits, then loads what the first saved.  Compiles nest
# only down the call graph, which has no cycle (no kernel calls itself, even through others), so
# no two processes can wait on each other.  numba's own compiler lock is taken first: a thread of
# this process waits there, not on the file, while another thread compiles.
_COMPILING: set = set()  # the lock files this process holds, one per function being compiled


def _one_process_at_a_time(compile_):
    @functools.wraps(compile_)
    def one(self, sig):
        cache = getattr(self, "_cache", None)
        if not isinstance(cache, caching.Cache):  # not cached on disk: nobody else can save it
            return compile_(self, sig)
        args, _ = sigutils.normalize_signature(sig)
        if tuple(args) in self.overloads:
            return compile_(self, sig)
        with compiler_lock.global_compiler_lock:
            path = cache._cache_file._index_path + ".compiling"
            if path in _COMPILING:
                return compile_(self, sig)

            def held():
                _COMPILING.add(path)
                try:
                    return compile_(self, sig)
                finally:
                    _COMPILING.discard(path)
            return _holding(path, held)
    return one


if LOCKED and not hasattr(dispatcher.Dispatcher.compile, "__wrapped__"):
    dispatcher.Dispatcher.compile = _one_process_at_a_time(dispatcher.Dispatcher.compile)


_PACKAGE = __name__.split(".")[0]  # this package, whose kernels are compiled for plain argument types (below)


# A kernel called from another with a constant argument (``_push(buf, 0, 2, ...)``) is compiled by
# numba for that constant's literal type, so a function can be compiled, optimised and linked into
# its callers once per constant it is called with: the warm-up compiled 189 specializations of this
# package's functions, 137 now.  This package's kernels are compiled for the arguments' plain types
# instead; LLVM still folds the constants where it inlines.  The same numbers are computed: only
# the types a kernel is compiled for change, never its code.  The whole warm-up from an empty cache
# in one process took about a sixth less (129 s -> 108 s).
def _plain_types(get_call_template):
    @functools.wraps(get_call_template)
    def plain(self, args, kws):
        if (self.py_func.__module__ or "").split(".")[0] == _PACKAGE:
            args = tuple(types.unliteral(a) for a in args)
            kws = {k: types.unliteral(v) for k, v in kws.items()}
        return get_call_template(self, args, kws)
    return plain


if not hasattr(dispatcher._DispatcherBase.get_call_template, "__wrapped__"):
    dispatcher._DispatcherBase.get_call_template = _plain_types(dispatcher._DispatcherBase.get_call_template)


def drop_stale(kernel, deps) -> None:
    """``kernel``: any cached njit function of the calling module; ``deps``: the modules (objects)
    whose compiled code it includes."""
    try:
        cache_dir = Path(kernel._cache.cache_path)
        stem = Path(kernel.py_func.__code__.co_filename).stem
        text = hashlib.sha256(b"".join(Path(m.__file__).read_bytes() for m in deps)).hexdigest()
        stamp = cache_dir / f"{stem}.deps.stamp"
        if stamp.exists() and stamp.read_text() == text:
            return
        for f in list(cache_dir.glob(f"{stem}.*.nbi")) + list(cache_dir.glob(f"{stem}.*.nbc")):
            f.unlink(missing_ok=True)
        cache_dir.mkdir(parents=True, exist_ok=True)
        stamp.write_text(text)
    except OSError:  # no writable cache: numba compiles in memory
        pass
