"""Keeping numba's on-disk cache honest across modules.

numba invalidates a cached function only when its own source file changes, yet a compiled function
has every njit function it calls compiled into it, from whatever module.  ``drop_stale(kernel, deps)``
is called by a module of kernels as it is imported: when any of the modules its kernels call into
has changed since the cache was written, it drops that module's cached code, so a kernel can never
keep an old copy of a rule or a decision (and differ from the Python path).

Importing this module also makes numba's cache writes safe between processes (``entry-lock``), has
one process at a time compile a function, the others waiting, then loading it (``compile-lock``),
and compiles one specialization of this package's kernels per argument types rather than per
constant argument value (``plain-types``); ``cached_state`` reads from a kernel's index whether the
cache holds code this process would load (``cache-lookup``).  Each patch checks first what it relies
on in numba (``sim.jit.internals``) and is left out, with numba's own behaviour, where that differs.
"""
from __future__ import annotations

import functools
import hashlib
import re
from pathlib import Path

try:
    import fcntl
except ImportError:  # not POSIX: no lock, and hand_loop.warm_up compiles in one process
    fcntl = None

from .internals import checked, has, imported, params, unimportable, uses

caching, compiler_lock, dispatcher, sigutils, types = (
    imported(f"numba.core.{m}") for m in ("caching", "compiler_lock", "dispatcher", "sigutils", "types"))
_MODULES = {"numba.core.caching": caching, "numba.core.compiler_lock": compiler_lock,
            "numba.core.dispatcher": dispatcher, "numba.core.sigutils": sigutils, "numba.core.types": types}


def _entry_lock_differences() -> list[str]:
    """The index file's path and the save and load that the entry lock wraps."""
    d = unimportable(_MODULES) or has(caching, "IndexDataCacheFile")
    if d:
        return d
    index = caching.IndexDataCacheFile
    d = has(index, "save", "load")
    if not d:
        d = params(index.save, "self", "key", "data") + params(index.load, "self", "key")
    return d + uses(index.__init__, "_index_path")


def _compile_lock_differences() -> list[str]:
    """A dispatcher's compile, its cache (a ``caching.Cache`` whose index file has a path), its
    overloads by argument types, and numba's compiler lock."""
    d = _entry_lock_differences() or has(dispatcher, "Dispatcher", "_DispatcherBase") + has(
        caching, "Cache") + has(sigutils, "normalize_signature") + has(compiler_lock, "global_compiler_lock")
    if d:
        return d
    d = has(dispatcher.Dispatcher, "compile", "enable_caching")
    if d:
        return d
    return (params(dispatcher.Dispatcher.compile, "self", "sig") + uses(dispatcher.Dispatcher.compile, "_cache")
            + uses(dispatcher.Dispatcher.enable_caching, "_cache") + uses(caching.Cache.__init__, "_cache_file")
            + uses(dispatcher._DispatcherBase.__init__, "overloads"))


def _plain_types_differences() -> list[str]:
    """The dispatcher's call template (by argument types), its Python function and numba's unliteral."""
    d = unimportable(_MODULES) or has(dispatcher, "_DispatcherBase") + has(types, "unliteral")
    if d:
        return d
    d = has(dispatcher._DispatcherBase, "get_call_template")
    if d:
        return d
    return (params(dispatcher._DispatcherBase.get_call_template, "self", "args", "kws")
            + uses(dispatcher._DispatcherBase.__init__, "py_func"))


def _stale_differences() -> list[str]:
    """A cached kernel's cache (``_cache``) and its directory (``cache_path``)."""
    d = unimportable(_MODULES) or has(dispatcher, "Dispatcher") + has(caching, "Cache")
    if d:
        return d
    d = has(dispatcher.Dispatcher, "enable_caching") + has(caching.Cache, "cache_path")
    return d or uses(dispatcher.Dispatcher.enable_caching, "_cache", "py_func")


# numba's on-disk cache is not safe for two processes writing one function's entries at once
# (numba issue #4807): each reads the function's index, picks the first free data file name and
# writes both, so one process's entry can be lost, or pointed at the other's compiled code.
# hand_loop.warm_up compiles in three processes from an empty cache, so every save and load of an
# entry holds an exclusive lock on a file beside that function's index.  Where numba differs from what
# this relies on, the lock is left out, and so are warm_up's extra processes (``LOCKED``).
LOCKED = fcntl is not None and checked("entry-lock", _entry_lock_differences)


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


# Two processes compiling into one empty cache (warm_up's, two test workers') each compile the
# same function whenever both come to it before either has saved it, and warm_up's processes come
# to the largest bots' functions together.  This saves a fifth of the CPU seconds of warm_up's
# compile from an empty cache (``python -m bench compile --each-patch 2``).  So one process
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


if (LOCKED and checked("compile-lock", _compile_lock_differences)
        and not hasattr(dispatcher.Dispatcher.compile, "__wrapped__")):
    dispatcher.Dispatcher.compile = _one_process_at_a_time(dispatcher.Dispatcher.compile)


_PACKAGE = __name__.split(".")[0]  # this package, whose kernels are compiled for plain argument types (below)


# A kernel called from another with a constant argument (``_push(buf, 0, 2, ...)``) is compiled by
# numba for that constant's literal type, so a function can be compiled, optimised and linked into
# its callers once per constant it is called with.  This package's kernels are compiled for the
# arguments' plain types instead; LLVM still folds the constants where it inlines.  The same numbers
# are computed: only the types a kernel is compiled for change, never its code.  It saves 13% of
# the CPU seconds of warm_up's compile from an empty cache (``python -m bench compile --each-patch 2``).
def _plain_types(get_call_template):
    @functools.wraps(get_call_template)
    def plain(self, args, kws):
        if (self.py_func.__module__ or "").split(".")[0] == _PACKAGE:
            args = tuple(types.unliteral(a) for a in args)
            kws = {k: types.unliteral(v) for k, v in kws.items()}
        return get_call_template(self, args, kws)
    return plain


if (checked("plain-types", _plain_types_differences)
        and not hasattr(dispatcher._DispatcherBase.get_call_template, "__wrapped__")):
    dispatcher._DispatcherBase.get_call_template = _plain_types(dispatcher._DispatcherBase.get_call_template)


STALE_DROPPED = checked("stale-drop", _stale_differences,
                        effect="a kernel's cached code is kept when a module it calls changes: delete the "
                               "numba cache (sim/**/__pycache__/*.nbi, *.nbc) after editing the package")


_FROM = re.compile(r"^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)", re.M)
_IMPORT = re.compile(r"^[ \t]*import[ \t]+([\w., \t]+)", re.M)


@functools.lru_cache(maxsize=None)
def _imports(path: str, name: str) -> tuple:
    """The modules of this package that the module ``name`` at ``path`` imports (anywhere in it), by name:
    read from its ``import`` and ``from ... import`` lines (a line in a docstring can only add a module)."""
    package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
    text = Path(path).read_text()
    found = {m.split(" as ")[0].strip() for line in _IMPORT.findall(text) for m in line.split(",")}
    for dots, module, names in _FROM.findall(text):
        if dots:
            parts = package.split(".")
            parts = parts[:len(parts) - len(dots) + 1]
            module = ".".join(parts + ([module] if module else []))
        found.add(module)
        names = re.sub(r"#[^\n]*", "", names).strip().strip("()")
        found.update(f"{module}.{n.split(' as ')[0].strip()}" for n in names.split(","))
    return tuple(sorted(n for n in found if n.split(".")[0] == _PACKAGE))


_ROOT = Path(__file__).resolve().parents[1]  # this package's folder


def _source(name: str) -> str | None:
    """The source file of the package's module ``name``, found without importing anything."""
    base = _ROOT.parent.joinpath(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return str(path)
    return None


def reached(names) -> list:
    """The source files of the modules of this package that the modules ``names`` import, followed to the
    end, ``names`` included, in name order: every module whose code a kernel of ``names`` can have
    compiled into it.  Read from the source, so it does not depend on what a process imported first."""
    found, todo = {}, list(names)
    while todo:
        name = todo.pop()
        if name in found:
            continue
        path = _source(name)
        if path is None:
            continue
        found[name] = path
        todo.extend(_imports(path, name))
    return [found[n] for n in sorted(found)]


def drop_stale(kernel, deps) -> None:
    """``kernel``: any cached njit function of the calling module; ``deps``: the modules (objects)
    whose compiled code it includes, and what they reach (``reached``) with the calling module."""
    if not STALE_DROPPED:
        return
    try:
        cache_dir = Path(kernel._cache.cache_path)
        stem = Path(kernel.py_func.__code__.co_filename).stem
        files = reached([*(m.__name__ for m in deps), kernel.py_func.__module__])
        text = hashlib.sha256(b"".join(Path(f).read_bytes() for f in files)).hexdigest()
        stamp = cache_dir / f"{stem}.deps.stamp"
        if stamp.exists() and stamp.read_text() == text:
            return
        for f in list(cache_dir.glob(f"{stem}.*.nbi")) + list(cache_dir.glob(f"{stem}.*.nbc")):
            f.unlink(missing_ok=True)
        cache_dir.mkdir(parents=True, exist_ok=True)
        stamp.write_text(text)
    except OSError:  # no writable cache: numba compiles in memory
        pass


def _lookup_differences() -> list[str]:
    """A dispatcher's cache and target context, the key an entry is indexed by, and the index read."""
    d = _stale_differences() or has(caching, "IndexDataCacheFile")
    if d:
        return d
    d = has(caching.Cache, "_index_key") + has(caching.IndexDataCacheFile, "_load_index")
    if d:
        return d
    return (params(caching.Cache._index_key, "self", "sig", "codegen") + uses(caching.Cache._index_key, "magic_tuple")
            + params(caching.IndexDataCacheFile._load_index, "self") + uses(caching.Cache.__init__, "_cache_file")
            + uses(caching.IndexDataCacheFile.__init__, "_source_stamp", "_index_path")
            + uses(dispatcher.Dispatcher.__init__, "targetctx"))


LOOKUP = checked("cache-lookup", _lookup_differences,
                 effect="whether a compile is needed cannot be told beforehand: warm_up announces one each time")


def cached_state(kernel) -> str | None:
    """What numba's on-disk cache holds of ``kernel`` that this process would load rather than compile
    (any argument types): a text that changes whenever that code does (numba drops or adds an entry,
    the source it was compiled from changes), "" where it holds none, None where that cannot be
    read.  Only the index is read: nothing is compiled or loaded."""
    if not LOOKUP:
        return None
    try:
        cache = kernel._cache
        if not isinstance(cache, caching.Cache):
            return ""
        here = cache._index_key(None, kernel.targetctx.codegen())[1:]  # this machine, numba and code
        index = cache._cache_file._load_index()
        keys = sorted(repr(key[0]) for key in index if tuple(key[1:]) == tuple(here))
        return repr((cache._cache_file._source_stamp, here, keys)) if keys else ""
    except Exception:  # an unreadable index (numba's loading would find it unreadable too)
        return None
