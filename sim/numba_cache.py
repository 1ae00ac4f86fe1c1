"""Keeping numba's on-disk cache honest across modules.

numba invalidates a cached function only when its own source file changes, yet a compiled function
has every njit function it calls compiled into it, from whatever module.  ``drop_stale(kernel, deps)``
is called by a module of kernels as it is imported: when any of the modules its kernels call into
has changed since the cache was written, it drops that module's cached code, so a kernel can never
keep an old copy of a rule or a decision (and differ from the Python path).
"""
from __future__ import annotations

import hashlib
from pathlib import Path


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
