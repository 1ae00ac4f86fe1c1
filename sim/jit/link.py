"""Each compiled function's machine code made once, not once for every function that calls it.

numba links into a compiled function's LLVM module the whole code of every function it calls, and
of theirs, then optimises that module and turns all of it into machine code again.  A kernel deep in
the call tree (the meld search) is so optimised and compiled once at every level above it: the hand
loop's compile from an empty cache spent about 50 s in module optimisation and 50 s in machine-code
generation of its 172 s in one process.

Importing this module changes that for every library compiled after it:

* the functions a library takes from the libraries it calls are linked in ``available_externally``:
  the optimiser may inline them where they are called, as before, but they are not compiled again
  (a call left is a call to the callee's own machine code, resolved by the JIT in this process), and
  the module no longer carries the callees' callees;
* a library's own functions are ``weak_odr``, so that the same function loaded twice (one cache
  entry bundles the code of another) is one symbol, as numba's copies of callees always were;
* a cached function's entry bundles the object code of every library it calls, deepest first, and
  loading it loads those the process does not have yet, so a function loaded from the cache runs
  whatever else the process has compiled or loaded.
* loading from the cache does not first load numba's lowering registries, which only a compile uses
  (and loads itself).

Saved (``python -m bench compile --each-patch 2``, docs/PERFORMANCE.md): the link 57-62% of the
compile from an empty cache, which with numba's own linking takes 2.3-2.6 times as long; the
loading without registries (``warm-loading``) 40% of the warm start, the first hand from a warm
cache in 0.62 s where it took 1.04 s.

The code computed is the same: the optimiser sees the same direct callees it inlines from; only
where the machine code of a function lives changes.  ``KALOOKI_NUMBA_LINK=copy`` keeps numba's own
behaviour (every caller's module carrying a copy of all it calls), as does a numba or llvmlite that
differs from what this module relies on (checked as it is imported; ``sim.jit`` then warns once).
"""
from __future__ import annotations

import hashlib
import itertools
import os

from .internals import checked, has, imported, params, unimportable, uses

ll = imported("llvmlite.binding")
bytecode, caching, codegen = (imported(f"numba.core.{m}") for m in ("bytecode", "caching", "codegen"))
nrt = imported("numba.core.runtime.nrt")
_Lib = getattr(codegen, "CPUCodeLibrary", None)


def _differences() -> list[str]:
    """What differs, in the numba and llvmlite installed, from what this module patches, calls or
    counts on numba's own code doing (``sim.jit.internals``)."""
    missing = unimportable({"llvmlite.binding": ll, "numba.core.bytecode": bytecode, "numba.core.caching": caching,
                            "numba.core.codegen": codegen, "numba.core.runtime.nrt": nrt})
    if missing:
        return missing
    ident, cache, engine = bytecode.FunctionIdentity, caching.Cache, codegen.JitEngine
    d = has(ident, "_unique_ids", "from_function")
    if not isinstance(getattr(ident, "_unique_ids", None), itertools.count):
        d.append("FunctionIdentity._unique_ids is not an itertools.count")
    d += uses(getattr(ident, "from_function", None), "_unique_ids")  # the counter numba names functions by
    d += has(ll.Linkage, "linkonce_odr", "weak_odr", "available_externally", "external")
    d += has(ll, "parse_assembly", "parse_bitcode", "ObjectFileRef", "ExecutionEngine")
    d += has(ll.ObjectFileRef, "from_data") + has(ll.ExecutionEngine, "add_object_file", "finalize_object")
    methods = ("finalize", "_get_module_for_linking", "_optimize_final_module", "_verify_declare_only_symbols",
               "serialize_using_object_code", "_unserialize", "enable_object_caching", "_finalize_final_module")
    d += has(_Lib, *methods) + has(cache, "_load_overload")
    d += has(codegen.JITCPUCodegen, "magic_tuple", "_init")
    d += has(engine, "is_symbol_defined", "finalize_object")
    if d:
        return d
    for name in methods[:5]:
        d += params(getattr(_Lib, name), "self")
    d += params(_Lib._unserialize, "codegen", "state")  # a classmethod: cls bound
    d += params(codegen.JITCPUCodegen.magic_tuple, "self")
    d += params(cache._load_overload, "self", "sig", "target_context")
    # the library's state this module reads and sets
    d += uses(_Lib.__init__, "_linking_libraries", "_final_module", "_shared_module", "_codegen")
    d += uses(_Lib.enable_object_caching, "_object_caching_enabled", "_compiled_object")
    d += uses(codegen.CPUCodegen._init, "_engine") + uses(engine.__init__, "_ee", "_defined_symbols")
    # finalize links each callee's module for linking in, then optimises: the hooks below sit there
    d += uses(_Lib.finalize, "_linking_libraries", "_get_module_for_linking", "_optimize_final_module",
              "_finalize_final_module")
    d += uses(_Lib._finalize_final_module, "_verify_declare_only_symbols")
    # an entry is (name, "object", (object code, the module for linking's bitcode))
    d += uses(_Lib.serialize_using_object_code, "_get_compiled_object", "_get_module_for_linking", "as_bitcode")
    d += uses(_Lib._unserialize, "_set_compiled_object", "_shared_module", "parse_bitcode")
    return d


# ``KALOOKI_NUMBA_LINK=copy``: numba's own linking, as where the check above finds a difference
ENABLED = os.environ.get("KALOOKI_NUMBA_LINK", "once") != "copy" and checked("link", _differences)


def _registry_differences() -> list[str]:
    """numba's ``Cache.load_overload`` is its target's ``refresh()`` then a guarded ``_load_overload``:
    ``_load_without_registries`` (below) is a copy less the refresh, so it stands in for numba's only
    while numba's uses those names and no other; the refresh starts numba's runtime (the NRT), which
    the copy starts itself."""
    cpu = imported("numba.core.cpu")
    d = has(caching.Cache, "load_overload", "_guard_against_spurious_io_errors") + has(nrt.rtsys, "initialize")
    d += unimportable({"numba.core.cpu": cpu}) or has(cpu, "CPUContext")
    if d:
        return d
    return (params(caching.Cache.load_overload, "self", "sig", "target_context")
            + uses(caching.Cache.load_overload, "refresh", "_guard_against_spurious_io_errors", "_load_overload",
                   exactly=True)
            + uses(cpu.CPUContext.load_additional_registries, "rtsys", "initialize"))


REGISTRIES_SKIPPED = ENABLED and checked("warm-loading", _registry_differences)

# A compiled function's symbol is its qualified name, argument types and a number numba counts from 1
# in each process.  Two processes (the warm-up's two, Ray's workers) could then give one name to two
# different functions (numba's sorts are closures of one name), and a bundle loaded where that name is
# defined would call the other's code.  Counting from a random 60-bit start in each process makes the
# names of different processes differ; the number changes no computed value.  Without this counter
# the link is left out (above): numba's own linking never loads one process's code into another's.
if ENABLED and not getattr(bytecode.FunctionIdentity, "_kalooki_ids", False):
    bytecode.FunctionIdentity._unique_ids = itertools.count(int.from_bytes(os.urandom(8), "little") >> 4)
    bytecode.FunctionIdentity._kalooki_ids = True

# callee definitions a caller may take as external
_KEEP = tuple(getattr(getattr(ll, "Linkage", None), n, None) for n in ("linkonce_odr", "weak_odr"))


class MissingCode(RuntimeError):
    """A cached entry needs machine code that neither its bundle nor this process has."""


def _exported(module) -> list[str]:
    """The functions of a library's module for linking that its object code defines for others."""
    return [f.name for f in module.functions if not f.is_declaration and f.linkage in _KEEP]


def _exports(lib) -> tuple:
    """``_exported`` of a finalized library's module for linking, found once per library (every
    caller's finalize and the library's bundle entry ask for it)."""
    names = getattr(lib, "_kalooki_exports", None)
    if names is None:
        names = lib._kalooki_exports = tuple(_exported(_orig_module_for_linking(lib)))
    return names


def _needed(module) -> list[str]:
    """The compiled functions a library's object code calls and does not define."""
    return [f.name for f in module.functions if f.is_declaration and f.name.startswith("_ZN")]


_LOADED: set = set()  # keys of the bundled objects this process has loaded


def _object(lib):
    """A library's own object code: kept from its compile, or from the cache entry it was loaded from
    (numba hands a loaded object to the JIT and forgets it); None where numba kept none."""
    if getattr(lib, "_object_caching_enabled", False) and lib._compiled_object is not None:
        return lib._compiled_object
    return getattr(lib, "_kalooki_object", None)


def _bundle(lib) -> list:
    """The object code of every library ``lib`` calls, transitively, deepest first: entries of
    (key, object code, the function names it defines, the compiled functions it calls)."""
    out, seen = [], set()

    def visit(dep):
        if id(dep) in seen:
            return
        seen.add(id(dep))
        loaded = getattr(dep, "_kalooki_bundle", None)
        if loaded is not None:  # loaded from the cache: its bundle, then itself
            for entry in loaded:
                if entry[0] not in seen:
                    seen.add(entry[0])
                    out.append(entry)
        else:
            for sub in dep._linking_libraries:
                visit(sub)
        entry = getattr(dep, "_kalooki_entry", None)  # made once per library, however many entries bundle it
        obj = _object(dep) if entry is None else None
        if obj is not None:
            obj = bytes(obj)
            entry = dep._kalooki_entry = (hashlib.sha1(obj).hexdigest(), obj, _exports(dep),
                                          tuple(_needed(_orig_module_for_linking(dep))))
        if entry is not None and entry[0] not in seen:
            seen.add(entry[0])
            out.append(entry)

    for dep in lib._linking_libraries:
        visit(dep)
    return out


# numba's own methods, where they are (the check above has found them before any is called)
_orig_module_for_linking = getattr(_Lib, "_get_module_for_linking", None)
_orig_finalize = getattr(_Lib, "finalize", None)
_orig_serialize = getattr(_Lib, "serialize_using_object_code", None)
_orig_unserialize = getattr(getattr(_Lib, "_unserialize", None), "__func__", None)


def _finalize(self):
    if not self._object_caching_enabled:  # numba's own subroutines: keep their object code too
        self.enable_object_caching()
    own = set()
    for fn in self._final_module.functions:
        if not fn.is_declaration:
            own.add(fn.name)
            if fn.linkage == ll.Linkage.external:
                fn.linkage = ll.Linkage.weak_odr
    external = set()
    for dep in self._linking_libraries:
        if _object(dep) is not None:
            external.update(_exports(dep))
    self._kalooki_external = external - own
    return _orig_finalize(self)


def _optimize_hook(optimize):
    def run(self):
        external = getattr(self, "_kalooki_external", None)
        if external:
            for fn in self._final_module.functions:
                if fn.name in external and not fn.is_declaration and fn.linkage in _KEEP:
                    fn.linkage = ll.Linkage.available_externally
        return optimize(self)
    return run


def _verify(self):
    """numba checks that no numba function is left undefined; one defined in this process's JIT
    (a callee's own code) is not."""
    engine = self._codegen._engine
    for fn in self._final_module.functions:
        if fn.is_declaration and fn.name.startswith("_ZN5numba") and not engine.is_symbol_defined(fn.name):
            raise AssertionError(f"Symbol {fn.name} not linked properly")


def _serialize(self):
    name, kind, data = _orig_serialize(self)
    bundle = getattr(self, "_kalooki_bundle", None)
    if bundle is None:
        bundle = _bundle(self)
    return name, kind, (*data, tuple(bundle))


def _unserialize(cls, codegen_, state):
    name, kind, data = state
    if kind != "object" or len(data) != 3:
        return _orig_unserialize(cls, codegen_, state)
    obj, shared, bundle = data
    engine = codegen_._engine
    if not all(isinstance(entry, tuple) and len(entry) == 4 for entry in bundle):
        raise MissingCode(f"{name}: a cache entry of another layout")
    # Everything the entry's code calls must be in its bundle or in this process before any of it
    # reaches the JIT (which aborts the process on a symbol it cannot resolve).
    have = set(engine._defined_symbols)
    needed = set(_needed(ll.parse_bitcode(shared)))
    for _key, _obj, names, calls in bundle:
        have.update(names)
        needed.update(calls)
    if not needed <= have:
        raise MissingCode(f"{name}: cached code calls {min(needed - have)}, which its entry does not hold")
    fresh = False
    for key, dep_obj, names, _calls in bundle:
        if key in _LOADED or (names and all(engine.is_symbol_defined(n) for n in names)):
            continue
        # straight into the JIT as an object file: no library, no module and no object-cache lookup
        # (which numba's own loading does once per library, over every module the JIT holds); the code
        # stays loaded for the life of the process
        engine._ee.add_object_file(ll.ObjectFileRef.from_data(dep_obj))
        engine._defined_symbols.update(names)
        _LOADED.add(key)
        fresh = True
    if fresh:
        engine.finalize_object()  # every bundled object's calls resolved at once
    lib = _orig_unserialize(cls, codegen_, (name, kind, (obj, shared)))
    lib._kalooki_object = obj
    lib._kalooki_bundle = list(bundle)
    return lib


def _load_overload(load):
    """A cache entry that cannot be loaded whole is a cache miss: the function is compiled again."""
    def run(self, sig, target_context):
        try:
            return load(self, sig, target_context)
        except MissingCode:
            return None
    return run


def _load_without_registries(self, sig, target_context):
    """numba's ``Cache.load_overload`` less its first step, the target's ``refresh()``: loading every
    lowering registry (a fifth of a second, scipy's import among it) that only compiling uses, and
    every compile still does first (numba's ``CompilerBase``).  Loaded code needs only numba's runtime
    (the NRT), started here as ``refresh`` would."""
    nrt.rtsys.initialize(target_context)
    with self._guard_against_spurious_io_errors():
        return self._load_overload(sig, target_context)


_orig_magic = getattr(codegen.JITCPUCodegen, "magic_tuple", None)
_LAYOUT = "kalooki-numba-link-1"  # the bundled entries' layout, in the key of every entry this writes


def _magic_tuple(self):
    """numba keys a cache entry by the machine it was compiled for; the bundled entries are keyed apart
    from numba's own (and from another layout of ours), so that neither is ever loaded by the other:
    an older checkout of this package sharing the cache compiles its own instead of failing to
    unpack a bundle."""
    return (*_orig_magic(self), _LAYOUT)


if ENABLED and not getattr(_Lib, "_kalooki_link", False):
    _Lib._kalooki_link = True
    codegen.JITCPUCodegen.magic_tuple = _magic_tuple
    _Lib.finalize = _finalize
    _Lib._optimize_final_module = _optimize_hook(_Lib._optimize_final_module)
    _Lib._verify_declare_only_symbols = _verify
    _Lib.serialize_using_object_code = _serialize
    _Lib._unserialize = classmethod(_unserialize)
    caching.Cache._load_overload = _load_overload(caching.Cache._load_overload)
    if REGISTRIES_SKIPPED:
        caching.Cache.load_overload = _load_without_registries
