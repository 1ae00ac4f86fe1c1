"""What each patch of numba's private internals relies on, checked before it is applied.

A patch lists the names it patches, calls or reads (``has``), the parameters of each method it
replaces or wraps (``params``) and, where it counts on what a numba method does (calls another, sets
an attribute, reads a counter), the names that method's code uses (``uses``: read from its code
object, no source needed, so the check costs microseconds).  Where anything differs in the numba or
llvmlite installed, the patch is not applied: numba's own behaviour stays, and ``sim.jit`` warns
once naming what differed (``report``).

``KALOOKI_NUMBA_OFF=link,compile-lock`` (any of ``PATCHES``, comma-separated) leaves patches out on
purpose, without a warning: for measuring what each saves (``python -m bench compile --each-patch``)
or for ruling one out.
"""
from __future__ import annotations

import importlib
import inspect
import os
import warnings

# every patch, by the name KALOOKI_NUMBA_OFF and the warning use
PATCHES = {
    "link": "each compiled function's machine code made once (sim.jit.link)",
    "warm-loading": "a cached function loaded without numba's lowering registries (sim.jit.link)",
    "entry-lock": "numba's cache entries saved and loaded under a lock (sim.jit.cache)",
    "compile-lock": "one process at a time compiling a function (sim.jit.cache)",
    "plain-types": "this package's kernels compiled once per argument types (sim.jit.cache)",
    "stale-drop": "a kernel's cache dropped when a module it calls changes (sim.jit.cache)",
    "cache-lookup": "the cache's index read to tell whether a compile is needed (sim.jit.cache)",
    "shape-error": "the slice-shape error's formatted message dropped (sim.jit.trim)",
}
OFF_ENV = "KALOOKI_NUMBA_OFF"


def _off() -> set[str]:
    return {p.strip() for p in os.environ.get(OFF_ENV, "").split(",") if p.strip()}


class NumbaInternalsWarning(UserWarning):
    """numba or llvmlite differs from what a patch of ``sim.jit`` relies on: numba's own behaviour is used."""


def _name(obj) -> str:
    return getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None) or type(obj).__name__


def has(obj, *names: str) -> list[str]:
    """The attributes of ``obj`` among ``names`` that it lacks."""
    return [f"{_name(obj)}.{n} is missing" for n in names if not hasattr(obj, n)]


def params(func, *names: str) -> list[str]:
    """A difference where ``func``'s parameters are not exactly ``names``."""
    try:
        got = tuple(inspect.signature(func).parameters)
    except (TypeError, ValueError):
        return [f"{_name(func)} has no signature to check"]
    return [] if got == names else [f"{_name(func)}{_signature(got)} where {_signature(names)} was expected"]


def _signature(names) -> str:
    return "(" + ", ".join(names) + ")"


def uses(func, *names: str, exactly: bool = False) -> list[str]:
    """The names among ``names`` that ``func``'s code does not use (attributes, globals, methods);
    ``exactly``: and those it uses beyond them (for a method a patch stands in for with a copy)."""
    code = getattr(getattr(func, "__func__", func), "__code__", None)
    if code is None:
        return [f"{_name(func)} has no code to check"]
    used = set(code.co_names)
    for const in code.co_consts:  # names used in the comprehensions and nested functions it defines
        if inspect.iscode(const):
            used.update(const.co_names)
    out = [f"{_name(func)} no longer uses {n}" for n in names if n not in used]
    if exactly:
        out += [f"{_name(func)} now uses {n}" for n in sorted(used - set(names))]
    return out


def imported(name: str):
    """The module ``name``, or None where it cannot be imported (a patch's check then says so)."""
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def unimportable(modules: dict) -> list[str]:
    """A difference for each module of ``modules`` (dotted name -> ``imported``'s answer) that is None."""
    return [f"{name} cannot be imported" for name, m in modules.items() if m is None]


_LEFT_OUT: dict[str, tuple[str, str]] = {}  # patch -> (what differed, what leaving it out changes)


def checked(patch: str, differences, effect: str = "compiles take longer") -> bool:
    """Whether ``patch`` may be applied: ``differences()`` (what differs from what it relies on) is
    empty.  Otherwise, or where the check itself fails, the patch is left out and recorded, with
    ``effect`` (what numba's own behaviour means here), for the one warning (``report``)."""
    if patch in _off():
        return False
    try:
        found = list(differences())
    except Exception as e:  # a check reaching for something gone: that is a difference too
        found = [f"the check failed: {type(e).__name__}: {e}"]
    if found:
        why = "; ".join(found[:3]) + (f" (and {len(found) - 3} more)" if len(found) > 3 else "")
        _LEFT_OUT[patch] = (why, effect)
    return not found


_REPORTED = False


def report() -> None:
    """Warn once per process when any patch was left out, naming each, what differed and what
    numba's own behaviour means there.  Results are the same either way."""
    global _REPORTED
    if _REPORTED:
        return
    _REPORTED = True
    unknown = sorted(_off() - set(PATCHES))
    if unknown:
        warnings.warn(f"{OFF_ENV}: unknown patch {unknown[0]!r}; known: {', '.join(PATCHES)}", NumbaInternalsWarning,
                      stacklevel=2)
    if not _LEFT_OUT:
        return
    import llvmlite
    import numba
    parts = "; ".join(f"{patch} ({effect}): {why}" for patch, (why, effect) in _LEFT_OUT.items())
    warnings.warn(f"numba {numba.__version__} / llvmlite {llvmlite.__version__} differ from what sim.jit "
                  f"relies on, so numba's own behaviour is kept for {', '.join(_LEFT_OUT)}; the hands "
                  f"played are the same. {parts}", NumbaInternalsWarning, stacklevel=2)


def skipped() -> dict[str, str]:
    """The patches left out in this process, each with what differed."""
    return {patch: why for patch, (why, _) in _LEFT_OUT.items()}
