"""numba's compiles less a cost that computes nothing the kernels use: the message of a slice
assignment's shape error.

numba's CPU target raises that error with both shapes formatted into the text, a function of string
formatting compiled anew in every process for every pair of dimensions, in many small calls into
LLVM that numba's callbacks on llvmlite's lock each time.  Importing this module, before the first
compile, has the CPU target use the generic target's implementation instead: the same
``ValueError`` ("cannot assign slice from input of different size"), without the shapes; the
kernels raise it only on a bug.  No other code and no computed value changes.  It saves 11% of the
CPU seconds of warm_up's compile of every bot's kernels from an empty cache (``python -m bench
compile --each-patch 2``, docs/PERFORMANCE.md).
"""
from __future__ import annotations

from .internals import checked, has, imported, unimportable

templates = imported("numba.core.typing.templates")
arrayobj = imported("numba.np.arrayobj")


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


SHAPE_ERROR_PLAIN = _plain_shape_error() if checked("shape-error", _shape_error_differences) else 0
