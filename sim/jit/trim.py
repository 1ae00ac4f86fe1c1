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

from llvmlite.binding import ffi
from numba.core import base  # noqa: F401  (registers numba's LLVM-lock callbacks, removed below)
from numba.core.typing import templates
from numba.np import arrayobj


def _drop_lock_timing() -> int:
    """Unregister numba's callbacks on llvmlite's lock; how many were removed."""
    lock = getattr(getattr(ffi, "lib", None), "_lock", None)
    found = [(acq, rel) for acq, rel in list(getattr(lock, "_cblist", ()))
             if getattr(acq, "__module__", None) == base.__name__]
    for acq, rel in found:
        ffi.unregister_lock_callback(acq, rel)
    return len(found)


def _plain_shape_error() -> int:
    """Have the CPU target's slice-assignment shape error use the generic target's implementation;
    how many templates were changed."""
    cpu = getattr(arrayobj, "ol_raise_with_shape_context_cpu", None)
    generic = getattr(arrayobj, "ol_raise_with_shape_context_generic", None)
    if cpu is None or generic is None:  # another numba: left as it is
        return 0
    changed = 0
    for func, fnty in templates.builtin_registry.globals:
        if func is getattr(arrayobj, "raise_with_shape_context", None):
            for template in getattr(fnty, "templates", ()):
                if getattr(template, "_overload_func", None) is cpu:
                    template._overload_func = generic
                    changed += 1
    return changed


LOCK_TIMING_DROPPED = _drop_lock_timing()
SHAPE_ERROR_PLAIN = _plain_shape_error()
