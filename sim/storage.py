"""Where a run's files live: a local path or any URI pyarrow's filesystems understand.

Every file is written whole to a hidden temporary name beside its final name and then moved into
place, so a reader (or a resumed run) sees either the complete file or nothing.  Temporary names
start with ``.tmp-`` (hidden from pyarrow's dataset discovery) and are swept up by ``remove_temp_files``.
Parquet files are serialised in memory first so their sha256 is known without reading them back.
"""
from __future__ import annotations

import hashlib
import json
import os
import posixpath
import socket
import time
import uuid

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from .errors import UserError

TEMP_PREFIX = ".tmp-"
LOCK_NAME = ".lock"  # a local run's lock file while a driver writes it (see acquire_lock)
PARQUET_OPTIONS = {"compression": "zstd", "compression_level": 3}


def resolve_out(out: str) -> tuple[pafs.FileSystem, str]:
    """(filesystem, root path on it) for --out: a plain path is local, anything with :// a URI."""
    if "://" in out:
        try:
            fs, root = pafs.FileSystem.from_uri(out)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, OSError, ValueError) as e:
            raise UserError(f"--out {out!r}: not a filesystem URI pyarrow can open ({e}); "
                            "give a local path or e.g. file:///abs/path, s3://bucket/prefix") from None
        return fs, root.rstrip("/") or "/"
    return pafs.LocalFileSystem(), os.path.abspath(out)


def join(root: str, *parts: str) -> str:
    return posixpath.join(root, *parts)


def _temp_name(path: str) -> str:
    head, tail = posixpath.split(path)
    return posixpath.join(head, f"{TEMP_PREFIX}{tail}.{uuid.uuid4().hex[:12]}")


def write_bytes_atomic(fs: pafs.FileSystem, path: str, data: bytes) -> None:
    """Write `data` to a temporary name beside `path`, then move it over `path`."""
    tmp = _temp_name(path)
    try:
        fs.create_dir(posixpath.dirname(path), recursive=True)
        with fs.open_output_stream(tmp) as f:
            f.write(data)
        fs.move(tmp, path)
    except BaseException:
        try:
            fs.delete_file(tmp)
        except Exception:
            pass  # it was never created, or the filesystem is gone: nothing more we can do
        raise


def parquet_bytes(table: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, **PARQUET_OPTIONS)
    return sink.getvalue().to_pybytes()


def write_parquet_atomic(fs: pafs.FileSystem, root: str, rel: str, table: pa.Table) -> dict:
    """Write `table` to root/rel atomically; its manifest entry (path, rows, sha256, bytes)."""
    data = parquet_bytes(table)
    write_bytes_atomic(fs, join(root, rel), data)
    return {"path": rel, "rows": table.num_rows, "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}


def read_bytes(fs: pafs.FileSystem, path: str) -> bytes | None:
    """The file's bytes, or None when there is no such file."""
    if fs.get_file_info(path).type != pafs.FileType.File:
        return None
    with fs.open_input_stream(path) as f:
        return f.read()


def sha256_of(fs: pafs.FileSystem, path: str) -> str | None:
    """sha256 of the file's bytes, or None when there is no such file."""
    if fs.get_file_info(path).type != pafs.FileType.File:
        return None
    digest = hashlib.sha256()
    with fs.open_input_stream(path) as f:
        while chunk := f.read(1 << 22):
            digest.update(chunk)
    return digest.hexdigest()


def parquet_rows_and_schema(fs: pafs.FileSystem, path: str) -> tuple[int, pa.Schema] | None:
    try:
        with fs.open_input_file(path) as f:
            meta = pq.ParquetFile(f)
            return meta.metadata.num_rows, meta.schema_arrow
    except Exception:  # any unreadable file just means "redo this shard"
        return None


def ensure_writable(fs: pafs.FileSystem, root: str, out: str) -> None:
    """Create the output directory and prove a file can be written there; UserError if not."""
    probe = join(root, f"{TEMP_PREFIX}probe.{uuid.uuid4().hex[:12]}")
    try:
        fs.create_dir(root, recursive=True)
        with fs.open_output_stream(probe) as f:
            f.write(b"kalooki-lab write probe\n")
        fs.delete_file(probe)
    except (OSError, pa.ArrowException) as e:
        raise UserError(f"--out {out!r} is not writable: {e}; choose a directory you can write to") from None


def is_dir_empty_or_missing(fs: pafs.FileSystem, root: str) -> bool:
    """No directory, or one holding nothing but a lock file left by an interrupted driver."""
    info = fs.get_file_info(root)
    if info.type == pafs.FileType.NotFound:
        return True
    if info.type != pafs.FileType.Directory:
        return False
    return all(i.base_name == LOCK_NAME for i in fs.get_file_info(pafs.FileSelector(root, recursive=False)))


def acquire_lock(fs: pafs.FileSystem, root: str, out: str) -> str | None:
    """Claim a local --out for this driver with a lock file naming it, so that two drivers never
    write one run at once; the lock's path, or None for a URI (its filesystem gives no atomic
    create-if-absent).  A lock whose process no longer runs on this machine is taken over; one held
    by a live process, or by another machine, is a UserError."""
    if not isinstance(fs, pafs.LocalFileSystem):
        return None
    path = os.path.join(root, LOCK_NAME)
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


def path_kind(fs: pafs.FileSystem, root: str) -> pafs.FileType:
    try:
        return fs.get_file_info(root).type
    except (OSError, pa.ArrowException):
        return pafs.FileType.Unknown


def remove_temp_files(fs: pafs.FileSystem, root: str, dirs=("hands", "games", "turns")) -> int:
    """Delete every leftover temporary file of an interrupted write; how many were deleted."""
    removed = 0
    candidates = []
    try:
        candidates += [i for i in fs.get_file_info(pafs.FileSelector(root, recursive=False))]
        for d in dirs:
            candidates += fs.get_file_info(pafs.FileSelector(join(root, d), recursive=True, allow_not_found=True))
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
