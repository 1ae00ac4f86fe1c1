"""numba's compiles less two costs that compute nothing the kernels use.

Importing this module, before the first compile, removes them for the life of the process:

* **Timing the LLVM lock.**  numba has llvmlite call it back on every one of its calls into LLVM
  (about 380,000 in the hand loop's compile from an empty cache) to broadcast an event that every
  compile in progress times, only to record those seconds in the compile's metadata.  Each call into
  LLVM cost 9.5-24 us with it and 4.2 us without; the compile from an empty cache in one process
  took about 3.5% less.  Only numba's own callbacks are removed; the seconds it records read 0.
* **The message of a slice assignment's shape error.**  numba's CPU target raises it with both
  shapes formatted into the text, a function of string formatting compiled anew in every process
  for every pair of dimensions (2.4 s of the compile in one process, again in each of warm_up's).
  The generic target's message is used instead: the same ``ValueError`` ("cannot assign slice from
  input of different size"), without the shapes; the kernels raise it only on a bug.

Neither changes a compiled function's code other than that error's text, nor any computed value.
"""
from __future__ import annotations

from .internals import checked, has, imported, params, unimportable, uses

ffi = imported("llvmlite.binding.ffi")
base = imported("numba.core.base")  # registers numba's LLVM-lock callbacks, removed below
templates = imported("numba.core.typing.templates")
arrayobj = imported("numba.np.arrayobj")


def _lock_timing_differences() -> list[str]:
    """llvmlite's lock, its callbacks and how one is unregistered; numba's registered from its base."""
    d = unimportable({"llvmlite.binding.ffi": ffi, "numba.core.base": base})
    if d:
        return d
    d = has(ffi, "lib", "unregister_lock_callback") + has(getattr(ffi, "lib", None), "_lock")
    if d:
        return d
    d = has(ffi.lib._lock, "_cblist") + params(ffi.unregister_lock_callback, "acq_fn", "rel_fn")
    if not d and not [acq for acq, _ in ffi.lib._lock._cblist if getattr(acq, "__module__", None) == base.__name__]:
        d.append("numba.core.base registers no lock callback")
    return d


def _drop_lock_timing() -> int:
    """Unregister numba's callbacks on llvmlite's lock; how many were removed."""
    found = [(acq, rel) for acq, rel in list(ffi.lib._lock._cblist)
             if getattr(acq, "__module__", None) == base.__name__]
    for acq, rel in found:
        ffi.unregister_lock_callback(acq, rel)
    return len(found)


def _shape_error_differences() -> list[str]:
    """The CPU and generic implementations of the shape error and the template that holds the CPU's."""
    d = unimportable({"numba.core.typing.templates": templates, "numba.np.arrayobj": arrayobj})
    if d:
        return d
    d = has(arrayobj, "ol_raise_with_shape_context_cpu", "ol_raise_with_shape_context_generic",
            "raise_with_shape_context") + has(templates, "builtin_registry")
    if d:
        return d
    if not _shape_templates():
        d.append("no template of raise_with_shape_context holds the CPU target's implementation")
    return d


def _shape_templates() -> list:
    """The templates of ``raise_with_shape_context`` that hold the CPU target's implementation."""
    cpu = arrayobj.ol_raise_with_shape_context_cpu
    return [template for func, fnty in templates.builtin_registry.globals
            if func is arrayobj.raise_with_shape_context
            for template in getattr(fnty, "templates", ()) if getattr(template, "_overload_func", None) is cpu]


def _plain_shape_error() -> int:
    """Have the CPU target's slice-assignment shape error use the generic target's implementation;
    how many templates were changed."""
    found = _shape_templates()
    for template in found:
        template._overload_func = arrayobj.ol_raise_with_shape_context_generic
    return len(found)


LOCK_TIMING_DROPPED = _drop_lock_timing() if checked("lock-timing", _lock_timing_differences) else 0
SHAPE_ERROR_PLAIN = _plain_shape_error() if checked("shape-error", _shape_error_differences) else 0
