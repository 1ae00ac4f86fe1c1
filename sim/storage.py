"""What a driver writing a run does to its --out besides the format (``sim.runformat``): prove it
writable, claim it with a lock file (local paths), and sweep up the temporary files an interrupted
write left behind.
"""
from __future__ import annotations

import json
import os
import socket
import time
import uuid

import pyarrow as pa
import pyarrow.fs as pafs

from .errors import UserError
from .runformat import SHARD_DIRS, TEMP_PREFIX, RunLocation, list_root

LOCK_NAME = ".lock"  # a local run's lock file while a driver writes it (see acquire_lock)


def ensure_writable(loc: RunLocation) -> None:
    """Create the output directory and prove a file can be written there; UserError if not."""
    fs, out = loc.fs, loc.uri
    probe = loc.path(f"{TEMP_PREFIX}probe.{uuid.uuid4().hex[:12]}")
    try:
        fs.create_dir(loc.root, recursive=True)
        with fs.open_output_stream(probe) as f:
            f.write(b"kalooki-lab write probe\n")
        fs.delete_file(probe)
    except (OSError, pa.ArrowException) as e:
        raise UserError(f"--out {out!r} is not writable: {e}; choose a directory you can write to") from None


def is_dir_empty_or_missing(loc: RunLocation) -> bool:
    """No directory, or one holding nothing but a lock file left by an interrupted driver."""
    info = loc.fs.get_file_info(loc.root)
    if info.type == pafs.FileType.NotFound:
        return True
    if info.type != pafs.FileType.Directory:
        return False
    return all(i.base_name == LOCK_NAME for i in list_root(loc))


def acquire_lock(loc: RunLocation) -> str | None:
    """Claim a local --out for this driver with a lock file naming it, so that two drivers never
    write one run at once; the lock's path, or None for a URI (its filesystem gives no atomic
    create-if-absent).  A lock whose process no longer runs on this machine is taken over; one held
    by a live process, or by another machine, is a UserError."""
    if not loc.is_local:
        return None
    out = loc.uri
    path = os.path.join(loc.root, LOCK_NAME)
    mine = {"pid": os.getpid(), "host": socket.gethostname(), "since": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    for _ in range(3):
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            holder = _lock_holder(path)
            if holder is None:
                continue  # gone or stale (removed): try again
            raise UserError(f"--out {out!r} is being written by another kalooki simulate (pid {holder.get('pid')} "
                            f"on {holder.get('host')} since {holder.get('since')}); wait for it to finish or choose "
                            f"another --out. If that process is gone, delete {path}") from None
        except OSError as e:
            raise UserError(f"--out {out!r}: cannot create the lock file {path}: {e}") from None
        with os.fdopen(fd, "w") as f:
            json.dump(mine, f)
        return path
    raise UserError(f"--out {out!r}: could not take the lock file {path}; is another driver starting there?")


def _lock_holder(path: str) -> dict | None:
    """Who holds the lock at path, or None after removing a stale one (or if it is gone)."""
    try:
        with open(path) as f:
            text = f.read()
        age = time.time() - os.path.getmtime(path)
    except FileNotFoundError:
        return None
    try:
        holder = json.loads(text)
        pid, host = int(holder["pid"]), str(holder["host"])
    except (ValueError, KeyError, TypeError):
        if age < 30:
            return {"pid": "?", "host": "?", "since": "just now"}  # being written by a driver starting now
        holder, pid, host = None, None, None  # unreadable and old: stale
    if holder is not None and (host != socket.gethostname() or _alive(pid)):
        return holder
    try:
        os.remove(path)
    except FileNotFoundError:
        pass
    return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists, owned by someone else
    return True


def release_lock(path: str | None) -> None:
    """Remove this driver's lock file (if it is still ours)."""
    if path is None:
        return
    try:
        with open(path) as f:
            if json.load(f).get("pid") != os.getpid():
                return
        os.remove(path)
    except (OSError, ValueError):
        pass


def remove_temp_files(loc: RunLocation, dirs=SHARD_DIRS) -> int:
    """Delete every leftover temporary file of an interrupted write; how many were deleted."""
    fs = loc.fs
    removed = 0
    candidates = []
    try:
        candidates += list_root(loc)
        for d in dirs:
            candidates += fs.get_file_info(pafs.FileSelector(loc.path(d), recursive=True, allow_not_found=True))
    except (OSError, pa.ArrowException):
        return 0
    for info in candidates:
        if info.type == pafs.FileType.File and info.base_name.startswith(TEMP_PREFIX):
            try:
                fs.delete_file(info.path)
                removed += 1
            except (OSError, pa.ArrowException):
                pass
    return removed
