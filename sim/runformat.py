"""The on-disk run format, owned here and only here: where a run's files go, what its manifest holds,
and how a reader or a resuming writer tells an intact file from a damaged one.

A run lives under a root that is a local path or any URI pyarrow's filesystems open
(``file:///abs/run``, ``s3://bucket/run?endpoint_override=127.0.0.1:9000&scheme=http``, ``gs://...``);
every read and write goes through ``pyarrow.fs``.  The root holds ``manifest.json`` and one Parquet
file per shard and table at ``TABLE/profile=P/part-NNNNN.parquet`` (``shard_path``).  The manifest is
the source of truth for which files make up the run: each shard's entry lists, per table, the file's
path (relative to the root), rows and sha256; each profile's entry records the design
(``games_per_deal``: the games played from one deal, n in a duplicate run, 1 otherwise;
:func:`games_per_deal`).  Beside its tables a shard has a ``summary`` file at
``summary/profile=P/part-NNNNN.parquet``: the sufficient statistics the report needs, written once
by the worker that played the shard (``analysis.summaries`` owns its content; this module checks it
like the tables: listed, present, byte for byte, readable Parquet that says it is a summary).  Runs
written before summaries existed have none, and read and verify as before.

Every file is written whole to a hidden temporary name beside its final name (``.tmp-...``, hidden
from pyarrow's dataset discovery) and then moved into place, so a reader or a resumed run sees either
the complete file or nothing (``read_bytes`` reads again when the file was replaced during a read).  Parquet files are serialised in memory first so their sha256 is known
without reading them back.

This module imports only the standard library, pyarrow, ``sim.schema`` and ``sim.errors``, so the
analysis package may use it.
"""
from __future__ import annotations

import hashlib
import json
import os
import posixpath
import socket
import uuid
from dataclasses import dataclass, field
from urllib.parse import urlsplit, urlunsplit

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from . import schema
from .errors import UserError

RUN_FORMAT = "kalooki-lab run"
MANIFEST_NAME = "manifest.json"
MANIFEST_KEYS = ("format", "schema_version", "engine_version", "run_id", "profiles", "shards")
REQUIRED_TABLES = ("hands", "games")  # every shard has these; "turns" only with --events turns
SUMMARY = "summary"  # a shard's summary file (analysis.summaries), listed beside its tables
SUMMARY_METADATA_KEY = "kalooki_summary"  # the summary file's schema metadata: its version, counts, ...
SHARD_DIRS = ("hands", "games", "turns", SUMMARY)  # the folders shard files are written under
GAMES_PER_DEAL = "games_per_deal"  # a profile's manifest entry: games played from one deal (see games_per_deal)
TEMP_PREFIX = ".tmp-"
PARQUET_OPTIONS = {"compression": "zstd", "compression_level": 3}
URI_HELP = "give a local path or a URI such as file:///abs/path or s3://bucket/prefix"


def shard_path(table: str, profile: str, index: int) -> str:
    """Where shard `index` of `profile` keeps `table`, relative to the run's root."""
    return f"{table}/profile={profile}/part-{index:05d}.parquet"


# ----------------------------------------------------------------------------------------------
# locations

class RunFile(str):
    """One file of a run: its URI (or local path) as text, with the filesystem and path that open it."""

    fs: pafs.FileSystem
    path: str

    def __new__(cls, text: str, fs: pafs.FileSystem, path: str):
        self = super().__new__(cls, text)
        self.fs, self.path = fs, path
        return self

    def __reduce__(self):
        return RunFile, (str(self), self.fs, self.path)


@dataclass(frozen=True)
class RunLocation:
    """A run's root: the text the user gave, the filesystem it names and the root's path on it."""
    uri: str
    fs: pafs.FileSystem
    root: str

    @property
    def is_local(self) -> bool:
        return isinstance(self.fs, pafs.LocalFileSystem)

    def path(self, rel: str) -> str:
        """The filesystem path of `rel` (relative to the root)."""
        return posixpath.join(self.root, rel)

    def file(self, rel: str) -> RunFile:
        """`rel` as a RunFile whose text is a URI when the run was given as one (its query kept)."""
        text = join_uri(self.uri, rel) if "://" in self.uri else self.path(rel)
        return RunFile(text, self.fs, self.path(rel))


def join_uri(base, rel: str) -> str:
    """`rel` under `base`, a local path or a URI (whose query, e.g. endpoint_override, is kept)."""
    base = str(base)
    if "://" not in base:
        return os.path.join(base, rel)
    parts = urlsplit(base)
    return urlunsplit(parts._replace(path=posixpath.join(parts.path.rstrip("/") or "/", rel)))


def base_name(uri) -> str:
    """The last component of a local path's or a URI's path ("run1" for s3://kal/run1?...)."""
    text = str(uri)
    if "://" in text:
        return posixpath.basename(urlsplit(text).path.rstrip("/")) or urlsplit(text).netloc
    return os.path.basename(os.path.abspath(text))


def locate(uri, what: str = "run") -> RunLocation:
    """The location `uri` names: a plain path is local, anything with :// a pyarrow filesystem URI.
    `what` names the argument in the error message (e.g. "--out")."""
    text = str(uri)
    if "://" not in text:
        return RunLocation(text, pafs.LocalFileSystem(), os.path.abspath(text))
    try:
        fs, root = pafs.FileSystem.from_uri(text)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, OSError, ValueError) as e:
        unreachable = unreachable_message(text, e, what)
        if unreachable:
            raise UserError(unreachable) from None
        raise UserError(f"{what} {text!r}: not a filesystem URI pyarrow can open ({e}); {URI_HELP}") from None
    return RunLocation(text, fs, root.rstrip("/") or "/")


ENDPOINT_TIMEOUT_S = 10
NETWORK_ERRORS = ("NETWORK_CONNECTION", "curlCode", "Could not connect", "Couldn't connect")


def endpoint_of(uri: str) -> tuple[str, int] | None:
    """(host, port) of a URI's ``endpoint_override`` (an S3-compatible server), or None without one."""
    from urllib.parse import parse_qs
    parts = urlsplit(uri)
    given = parse_qs(parts.query).get("endpoint_override")
    if not given:
        return None
    scheme = parse_qs(parts.query).get("scheme", ["https"])[0]
    hostport = given[0].split("://", 1)[-1].rstrip("/")
    host, colon, port = hostport.rpartition(":")
    if not colon or not port.isdigit():
        host, port = hostport, "80" if scheme == "http" else "443"
    return host.strip("[]"), int(port)


def unreachable_message(uri: str, error: Exception | None, what: str = "run") -> str | None:
    """The one-line error for a URI whose server cannot be reached (``error``: what pyarrow raised, or
    None to try the ``endpoint_override`` with a connection of our own); None when it can be reached
    or the error is of another kind."""
    endpoint = endpoint_of(uri)
    if error is None:
        if endpoint is None:
            return None
        try:
            socket.create_connection(endpoint, timeout=ENDPOINT_TIMEOUT_S).close()
            return None
        except OSError as e:
            reason = e.strerror or str(e) or type(e).__name__
    elif any(k in str(error) for k in NETWORK_ERRORS):
        reason = str(error).split("Details: ", 1)[-1]
    else:
        return None
    server = (f"the endpoint {endpoint[0]}:{endpoint[1]} (endpoint_override)" if endpoint else
              f"the {urlsplit(uri).scheme}:// service")
    return (f"{what} {uri!r}: {server} could not be reached ({reason}); check that the server is running, "
            "the address and the network")


def check_reachable(loc: RunLocation, what: str = "run") -> None:
    """UserError when the server of ``loc``'s ``endpoint_override`` does not answer: a clear error at
    once instead of the filesystem's retries and a vague one."""
    if "://" in loc.uri:
        message = unreachable_message(loc.uri, None, what)
        if message:
            raise UserError(message)


def open_file(file) -> tuple[pafs.FileSystem, str]:
    """(filesystem, path) of a RunFile, a local path (str or Path) or a file URI."""
    if isinstance(file, RunFile):
        return file.fs, file.path
    text = str(file)
    if "://" not in text:
        return pafs.LocalFileSystem(), os.path.abspath(text)
    return pafs.FileSystem.from_uri(text)


def kind(loc: RunLocation, what: str = "run") -> pafs.FileType:
    """What is at the root: NotFound, File, Directory, or Unknown when it cannot be looked at (a
    UserError when its server cannot be reached)."""
    try:
        return loc.fs.get_file_info(loc.root).type
    except (OSError, pa.ArrowException) as e:
        unreachable = unreachable_message(loc.uri, e, what)
        if unreachable:
            raise UserError(unreachable) from None
        return pafs.FileType.Unknown


def list_root(loc: RunLocation) -> list[pafs.FileInfo]:
    return loc.fs.get_file_info(pafs.FileSelector(loc.root, recursive=False, allow_not_found=True))


# ----------------------------------------------------------------------------------------------
# bytes in and out

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


READ_ATTEMPTS = 5


def holding(where: str, name: str) -> str | None:
    """``where`` (a path or URI) when the folder there holds the file ``name`` (a study's frontier.json,
    ladder.json), else None; an unreachable folder is None too, for its readers to say."""
    loc = locate(where, "run")
    try:
        found = read_bytes(loc.fs, loc.path(name))
    except OSError:
        return None
    return where if found is not None else None


def read_document(loc, name: str, fmt: str) -> dict | None:
    """The JSON document ``name`` in the folder at ``loc`` when its "format" is ``fmt`` (a study's
    frontier.json, tune.json), else None."""
    data = read_bytes(loc.fs, loc.path(name))
    if data is None:
        return None
    doc = json.loads(data)
    return doc if isinstance(doc, dict) and doc.get("format") == fmt else None


def read_bytes(fs: pafs.FileSystem, path: str) -> bytes | None:
    """The file's bytes, or None when there is no such file.  On an object store a reader asks for the
    object's size and then its bytes, so a file moved into place in between (a manifest rewritten by
    a running driver) reads as the new object cut at the old one's length: the read counts only when
    the file's size and time are the same after it as before, and is repeated until they are."""
    for _ in range(READ_ATTEMPTS):
        before = fs.get_file_info(path)
        if before.type != pafs.FileType.File:
            return None
        with fs.open_input_stream(path) as f:
            data = f.read()
        after = fs.get_file_info(path)
        if (after.type, after.size, after.mtime) == (before.type, before.size, before.mtime):
            return data
    raise OSError(f"{path} changed every time it was read ({READ_ATTEMPTS} reads)")


def sha256_of(fs: pafs.FileSystem, path: str) -> str | None:
    """sha256 of the file's bytes, or None when there is no such file."""
    if fs.get_file_info(path).type != pafs.FileType.File:
        return None
    digest = hashlib.sha256()
    with fs.open_input_stream(path) as f:
        while chunk := f.read(1 << 22):
            digest.update(chunk)
    return digest.hexdigest()


def write_table(loc: RunLocation, rel: str, table: pa.Table | list[pa.Table], options: dict | None = None) -> dict:
    """Write `table` as Parquet to `rel` atomically; its manifest entry (path, rows, sha256, bytes).
    A list of tables of one schema is written one after the other, each starting its own row groups;
    `options` add to (or replace) PARQUET_OPTIONS (e.g. column encodings)."""
    parts = table if isinstance(table, list) else [table]
    sink = pa.BufferOutputStream()
    with pq.ParquetWriter(sink, parts[0].schema, **{**PARQUET_OPTIONS, **(options or {})}) as writer:
        for part in parts:
            writer.write_table(part)
    data = sink.getvalue().to_pybytes()
    write_bytes_atomic(loc.fs, loc.path(rel), data)
    return {"path": rel, "rows": sum(p.num_rows for p in parts), "sha256": hashlib.sha256(data).hexdigest(),
            "bytes": len(data)}


# ----------------------------------------------------------------------------------------------
# the manifest

def write_manifest(loc: RunLocation, manifest: dict) -> None:
    """Write the manifest atomically, its shards in (profile, index) order."""
    manifest["shards"].sort(key=lambda s: (s["profile"], s["index"]))
    write_bytes_atomic(loc.fs, loc.path(MANIFEST_NAME), (json.dumps(manifest, indent=1) + "\n").encode())


def locate_run(uri) -> RunLocation:
    """The location of an existing run, for readers; UserError when there is nothing there to read."""
    loc = locate(uri, "run")
    check_reachable(loc)
    found = kind(loc)
    if found == pafs.FileType.NotFound:
        raise UserError(f"run directory {loc.uri} does not exist")
    if found == pafs.FileType.File:
        raise UserError(f"{loc.uri} is not a directory; a run directory holds {MANIFEST_NAME}, hands/ and games/")
    if found == pafs.FileType.Unknown:
        raise UserError(f"run directory {loc.uri} cannot be read; check the path or the URI and its credentials")
    if not list_root(loc):
        raise UserError(f"run directory {loc.uri} is empty; expected {MANIFEST_NAME}, hands/ and games/ "
                        "written by `kalooki simulate`")
    return loc


def read_manifest(loc: RunLocation) -> dict:
    """The run's manifest as a dict; UserError when it is missing, unreadable or lacks a key."""
    where = loc.file(MANIFEST_NAME)
    try:
        data = read_bytes(loc.fs, where.path)
    except (OSError, pa.ArrowException) as e:
        raise UserError(f"{where}: cannot read it: {e}") from None
    if data is None:
        raise UserError(f"{loc.uri} has no {MANIFEST_NAME}, so it is not a kalooki-lab run directory "
                        "(or the run never started)")
    try:
        manifest = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise UserError(f"{where} is not readable JSON: {e}") from None
    if not isinstance(manifest, dict):
        raise UserError(f"{where} must hold a JSON object, not {type(manifest).__name__}")
    missing = [k for k in MANIFEST_KEYS if k not in manifest]
    if missing:
        raise UserError(f"{where} lacks {', '.join(missing)}; a run manifest has {', '.join(MANIFEST_KEYS)}")
    return manifest


def manifest_to_resume(loc: RunLocation, is_empty, flag: str = "--out") -> dict | None:
    """The manifest already at a writer's --out: None for a new or empty place (``is_empty(loc)``
    decides what empty means); UserError for anything that is not a run of this format, naming
    ``flag``, the option that gave the place."""
    out = loc.uri
    check_reachable(loc, flag)
    found = kind(loc, flag)
    if found == pafs.FileType.NotFound:
        return None
    if found == pafs.FileType.File:
        raise UserError(f"{flag} {out!r} is a file; give a directory for the run")
    if found == pafs.FileType.Unknown:
        raise UserError(f"{flag} {out!r} cannot be read; give a directory you can read and write")
    try:
        data = read_bytes(loc.fs, loc.path(MANIFEST_NAME))
    except (OSError, pa.ArrowException) as e:
        raise UserError(f"{flag} {out!r}: cannot read {MANIFEST_NAME}: {e}") from None
    if data is None:
        if is_empty(loc):
            return None
        raise UserError(f"{flag} {out!r} is not empty and holds no {MANIFEST_NAME}, so it is not a kalooki-lab run; "
                        "give a new or empty directory (or an earlier run's directory to resume it)")
    try:
        manifest = json.loads(data)
        assert isinstance(manifest, dict) and manifest.get("format") == RUN_FORMAT
    except (ValueError, AssertionError):
        raise UserError(f"{flag} {out!r}: {MANIFEST_NAME} is not a kalooki-lab run manifest (unreadable JSON or "
                        f"no \"format\": {RUN_FORMAT!r}); move it away to start the run again there") from None
    if not isinstance(manifest.get("shards"), list) or not isinstance(manifest.get("profiles"), dict):
        raise UserError(f"{flag} {out!r}: {MANIFEST_NAME} lacks its shards list or profiles table; "
                        "move it away to start the run again there")
    return manifest


def games_per_deal(manifest: dict, profile: str) -> int:
    """How many of the profile's games share a deal: the run's design, from the profile's manifest entry.

    A duplicate run (``"duplicate": true``; skill studies) plays deal d once per rotation of its n seats,
    games d*n .. d*n+n-1, and records ``games_per_deal`` = n; any other run 1 (every game its own deal).
    A manifest written before the design was recorded has no such entry and reads as 1.  The games of a
    deal are one cluster to an analysis, and a shard holds whole deals."""
    value = (manifest.get("profiles", {}).get(profile) or {}).get(GAMES_PER_DEAL, 1)
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 1 else 1


def design_problems(manifest: dict) -> list[str]:
    """What is wrong with the manifest's record of its design: a ``games_per_deal`` that is not a positive
    integer, or a shard that does not hold whole deals."""
    problems = []
    for name, info in (manifest.get("profiles") or {}).items():
        value = (info or {}).get(GAMES_PER_DEAL, 1)
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            problems.append(f"profile {name}: {GAMES_PER_DEAL} is {value!r}; it must be a positive integer "
                            "(the games played from one deal)")
            continue
        if value == 1:
            continue
        for shard in manifest.get("shards") or []:
            first, n = shard.get("first_game"), shard.get("n_games")
            if shard.get("profile") == name and isinstance(first, int) and isinstance(n, int) and (first % value
                                                                                                  or n % value):
                problems.append(f"profile {name} shard {shard.get('index')}: games {first}..{first + n - 1} are not "
                                f"whole deals of {value} games ({GAMES_PER_DEAL} = {value})")
    return problems


# ----------------------------------------------------------------------------------------------
# integrity

@dataclass
class RunCheck:
    """What a check of a run found: readable problems and the files that cannot be read at all (with
    the summary of every shard that has a problem: a report summarises that shard's rows instead)."""
    problems: list[str] = field(default_factory=list)
    unreadable: set[str] = field(default_factory=set)  # manifest-relative paths


def schema_differences(found: pa.Schema, table: str) -> list[str]:
    """How a file's schema departs from sim.schema's for `table` ([] when it follows it)."""
    expected = schema.arrow_schema(table)
    found_types = {f.name: f.type for f in found}
    expected_types = {f.name: f.type for f in expected}
    diffs = [f"missing column {n}" for n in expected_types if n not in found_types]
    diffs += [f"unexpected column {n}" for n in found_types if n not in expected_types]
    diffs += [f"column {n} is {found_types[n]}, schema says {t}"
              for n, t in expected_types.items() if n in found_types and found_types[n] != t]
    if not diffs and list(found_types) != list(expected_types):
        diffs.append("columns are in a different order from sim.schema")
    return diffs


def check_file(loc: RunLocation, where: str, table: str, entry: dict, check: RunCheck) -> None:
    """Add to `check` what is wrong with one file the manifest lists: missing, another sha256 or row
    count than the manifest says, not Parquet, or not sim.schema's columns."""
    rel = entry.get("path") if isinstance(entry, dict) else None
    if not rel:
        check.problems.append(f"{where}: the {table} entry has no path")
        return
    path = loc.path(rel)
    try:
        digest = sha256_of(loc.fs, path)
    except (OSError, pa.ArrowException) as e:
        check.problems.append(f"{where}: {table} file {rel} cannot be read ({e})")
        check.unreadable.add(rel)
        return
    if digest is None:
        check.problems.append(f"{where}: {table} file {rel} is missing")
        check.unreadable.add(rel)
        return
    if "sha256" in entry and digest != entry["sha256"]:
        check.problems.append(f"{where}: {table} file {rel} does not match its sha256 in the manifest "
                              "(changed or truncated after the run wrote it)")
    try:
        with loc.fs.open_input_file(path) as f:
            parquet = pq.ParquetFile(f)
            rows, found = parquet.metadata.num_rows, parquet.schema_arrow
    except Exception as e:  # any unreadable file is a finding, never a crash
        check.problems.append(f"{where}: {table} file {rel} is not readable Parquet ({type(e).__name__}: {e})")
        check.unreadable.add(rel)
        return
    if "rows" in entry and rows != entry["rows"]:
        check.problems.append(f"{where}: {table} file {rel} has {rows} rows, the manifest says {entry['rows']}")
    if table == SUMMARY:
        if SUMMARY_METADATA_KEY.encode() not in (found.metadata or {}):
            check.problems.append(f"{where}: {table} file {rel} is Parquet but not a shard summary "
                                  f"(its schema has no {SUMMARY_METADATA_KEY!r} metadata)")
            check.unreadable.add(rel)
        return
    diffs = schema_differences(found, table)
    if diffs:
        check.problems.append(f"{where}: {table} file {rel} does not follow sim.schema ({'; '.join(diffs)})")
        check.unreadable.add(rel)


def shard_is_intact(loc: RunLocation, entry: dict, tables: tuple) -> bool:
    """The shard lists exactly `tables` and its summary, each at its shard_path with a sha256 and row
    count, and every file is there, byte for byte what the manifest says, in sim.schema (what a resumed
    run keeps; a shard written without a summary is played again)."""
    files = entry.get("files")
    if not isinstance(files, dict) or set(files) != set(tables) | {SUMMARY}:
        return False
    for name in files:
        f = files[name]
        if (not isinstance(f, dict) or f.get("path") != shard_path(name, entry["profile"], entry["index"])
                or "sha256" not in f or "rows" not in f):
            return False
        check = RunCheck()
        check_file(loc, "", name, f, check)
        if check.problems:
            return False
    return True


def check_run(uri: RunLocation | str) -> RunCheck:
    """Every problem with a run: its manifest against this format, each shard planned and listed once,
    every listed file present, intact and in the schema; plus which files a partial report must leave out."""
    loc = uri if isinstance(uri, RunLocation) else locate_run(uri)
    manifest = read_manifest(loc)
    check = RunCheck()
    problems = check.problems
    if manifest["format"] != RUN_FORMAT:
        problems.append(f"manifest format is {manifest['format']!r}, expected {RUN_FORMAT!r}")
    if manifest["schema_version"] != schema.SCHEMA_VERSION:
        problems.append(f"run schema_version is {manifest['schema_version']}, this analysis reads "
                        f"schema_version {schema.SCHEMA_VERSION}")
    if manifest.get("complete") is not True:
        problems.append("the manifest does not say the run is complete (complete is not true): "
                        "the run is still going or stopped early")
    problems += design_problems(manifest)
    profiles = manifest["profiles"]
    shards_by_profile: dict[str, list[dict]] = {}
    for i, shard in enumerate(manifest["shards"]):
        name = shard.get("profile")
        if name not in profiles:
            problems.append(f"shard entry {i} names profile {name!r}, which the manifest's profiles lack")
            continue
        shards_by_profile.setdefault(name, []).append(shard)
    for name, info in profiles.items():
        shards = shards_by_profile.get(name, [])
        indices = [s.get("index") for s in shards]
        planned = info.get("shards_planned")
        missing = []
        if planned is not None:
            missing = sorted(set(range(planned)) - set(indices))
            if missing:
                problems.append(f"profile {name}: shard(s) {', '.join(map(str, missing))} of {planned} planned "
                                "are not in the manifest")
        duplicated = sorted({i for i in indices if indices.count(i) > 1}, key=str)
        if duplicated:
            problems.append(f"profile {name}: shard(s) {', '.join(map(str, duplicated))} listed more than once")
        if planned is not None and not missing and "games" in info:
            recorded = sum(s.get("n_games", 0) for s in shards)
            if recorded != info["games"]:
                problems.append(f"profile {name}: shards hold {recorded} games, {info['games']} were planned")
        for shard in shards:
            where = f"profile {name} shard {shard.get('index')}"
            files = shard.get("files", {})
            found_before = len(problems)
            for table in REQUIRED_TABLES:
                if table not in files:
                    problems.append(f"{where}: no {table} file listed")
            for table, entry in files.items():
                if table not in schema.TABLES and table != SUMMARY:
                    problems.append(f"{where}: unknown table {table!r} (tables: {', '.join(schema.TABLES)}; "
                                    f"and the shard's {SUMMARY})")
                    continue
                check_file(loc, where, table, entry, check)
            summary = files.get(SUMMARY)
            if len(problems) > found_before and isinstance(summary, dict) and summary.get("path"):
                # the summary stands for the shard's files as written: with any of them in doubt a
                # partial report summarises the rows it can read instead
                check.unreadable.add(summary["path"])
    return check


# ----------------------------------------------------------------------------------------------
# listing

def shards_with_files(loc: RunLocation, manifest: dict, tables, profiles=None,
                      exclude=()) -> list[tuple[dict, dict]]:
    """Per manifest shard of `profiles` (all when None), in (profile, shard) order: (its manifest entry,
    {table: RunFile or None}) for each of `tables`, None where the manifest lists no such file, it is
    in `exclude` (manifest-relative paths) or it does not exist."""
    wanted = set(profiles) if profiles is not None else set(manifest["profiles"])
    out = []
    for shard in sorted(manifest["shards"], key=lambda s: (str(s.get("profile")), s.get("index", 0))):
        if shard.get("profile") not in wanted:
            continue
        files = {}
        for table in tables:
            entry = shard.get("files", {}).get(table)
            file = loc.file(entry["path"]) if entry and entry.get("path") not in exclude else None
            files[table] = file if file is not None and exists(file) else None
        out.append((shard, files))
    return out


def shard_files(loc: RunLocation, manifest: dict, tables, profiles=None, exclude=()) -> list[tuple[str, dict]]:
    """shards_with_files with each shard named by its profile: (profile, {table: RunFile or None})."""
    return [(shard["profile"], files) for shard, files in shards_with_files(loc, manifest, tables, profiles, exclude)]


def table_files(loc: RunLocation, manifest: dict, table: str, profiles=None, exclude=()) -> list[RunFile]:
    """The files of `table` the manifest lists for `profiles` (all when None) that exist, in (profile,
    shard) order, minus `exclude` (manifest-relative paths)."""
    return [f[table] for _, f in shard_files(loc, manifest, (table,), profiles, exclude) if f[table] is not None]


def exists(file: RunFile) -> bool:
    return file.fs.get_file_info(file.path).type == pafs.FileType.File
