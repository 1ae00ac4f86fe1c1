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
  the module no longer carries the callees' callees; a callee too large ever to be inlined is not
  linked in at all;
* a library's own functions are ``weak_odr``, so that the same function loaded twice (one cache
  entry bundles the code of another) is one symbol, as numba's copies of callees always were;
* a cached function's entry bundles the object code of every library it calls, deepest first, and
  loading it loads those the process does not have yet, so a function loaded from the cache runs
  whatever else the process has compiled or loaded.
* loading from the cache does not first load numba's lowering registries, which only a compile uses
  (and loads itself): a warm start is a third shorter.

The code computed is the same: the optimiser sees the same direct callees it inlines from; only
where the machine code of a function lives changes.  ``KALOOKI_NUMBA_LINK=copy`` keeps numba's own
behaviour (every caller's module carrying a copy of all it calls).
"""
from __future__ import annotations

import hashlib
import itertools
import os

from llvmlite import binding as ll
from numba.core import bytecode, caching, codegen
from numba.core.runtime import nrt

ENABLED = os.environ.get("KALOOKI_NUMBA_LINK", "once") != "copy"

# A compiled function's symbol is its qualified name, argument types and a number numba counts from 1
# in each process.  Two processes (the warm-up's two, Ray's workers) could then give one name to two
# different functions (numba's sorts are closures of one name), and a bundle loaded where that name is
# defined would call the other's code.  Counting from a random 60-bit start in each process makes the
# names of different processes differ; the number changes no computed value.
if ENABLED and not getattr(bytecode.FunctionIdentity, "_kalooki_ids", False):
    bytecode.FunctionIdentity._unique_ids = itertools.count(int.from_bytes(os.urandom(8), "little") >> 4)
    bytecode.FunctionIdentity._kalooki_ids = True

_KEEP = (ll.Linkage.linkonce_odr, ll.Linkage.weak_odr)  # callee definitions a caller may take as external
_Lib = codegen.CPUCodeLibrary


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


# A callee too large for the optimiser ever to inline it is linked into its callers as nothing at
# all: a caller's own module declares it already, and the call goes to the callee's machine code as
# any call left does.  Linked in, its body was optimised again in every caller only to be dropped
# (the optimiser inlined no function of more than 665 instructions in the warm-up's compile from
# an empty cache, and kept a call to every one of more); left out, the compile took a twentieth
# less.  Size: lines of IR of the library's largest function other than numba's wrappers for
# Python and C callers, which callers never call.
LARGE_LINES = 1000
_WRAPPERS = ("_ZN7cpython", "cfunc.")


class _Linking:
    caller = None  # the library whose finalize is linking its callees in, while it does


def _large(lib) -> bool:
    large = getattr(lib, "_kalooki_large", None)
    if large is None:
        module = _orig_module_for_linking(lib)
        large = lib._kalooki_large = any(
            str(fn).count("\n") > LARGE_LINES for fn in module.functions
            if not fn.is_declaration and fn.linkage in _KEEP and not fn.name.startswith(_WRAPPERS))
    return large


def _module_for_linking(self):
    module = _orig_module_for_linking(self)
    caller = _Linking.caller
    if ENABLED and caller is not None and self in caller._linking_libraries and _large(self):
        empty = getattr(self, "_kalooki_nothing", None)
        if empty is None:
            empty = self._kalooki_nothing = ll.parse_assembly(
                str(self._codegen._create_empty_module(self.name + ".nothing")))
        return empty
    return module


_orig_module_for_linking = _Lib._get_module_for_linking
_orig_finalize = _Lib.finalize
_orig_verify = _Lib._verify_declare_only_symbols
_orig_serialize = _Lib.serialize_using_object_code
_orig_unserialize = _Lib._unserialize.__func__


def _finalize(self):
    if not ENABLED:
        return _orig_finalize(self)
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
    outer, _Linking.caller = _Linking.caller, self
    try:
        return _orig_finalize(self)
    finally:
        _Linking.caller = outer


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
    if not ENABLED:
        return _orig_verify(self)
    engine = self._codegen._engine
    for fn in self._final_module.functions:
        if fn.is_declaration and fn.name.startswith("_ZN5numba") and not engine.is_symbol_defined(fn.name):
            raise AssertionError(f"Symbol {fn.name} not linked properly")


def _serialize(self):
    name, kind, data = _orig_serialize(self)
    if not ENABLED:
        return name, kind, data
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


_orig_magic = codegen.JITCPUCodegen.magic_tuple
_LAYOUT = "kalooki-numba-link-1"  # the bundled entries' layout, in the key of every entry this writes


def _magic_tuple(self):
    """numba keys a cache entry by the machine it was compiled for; the bundled entries are keyed apart
    from numba's own (and from another layout of ours), so that neither is ever loaded by the other:
    an older checkout of this package sharing the cache compiles its own instead of failing to
    unpack a bundle."""
    return (*_orig_magic(self), _LAYOUT) if ENABLED else _orig_magic(self)


if not getattr(_Lib, "_kalooki_link", False):
    _Lib._kalooki_link = True
    codegen.JITCPUCodegen.magic_tuple = _magic_tuple
    _Lib.finalize = _finalize
    _Lib._get_module_for_linking = _module_for_linking
    _Lib._optimize_final_module = _optimize_hook(_Lib._optimize_final_module)
    _Lib._verify_declare_only_symbols = _verify
    _Lib.serialize_using_object_code = _serialize
    _Lib._unserialize = classmethod(_unserialize)
    caching.Cache._load_overload = _load_overload(caching.Cache._load_overload)
    if ENABLED:
        caching.Cache.load_overload = _load_without_registries
