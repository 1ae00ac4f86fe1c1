"""Reading a run directory: its manifest, its integrity check and its tables as DataFrames.

A run directory holds ``manifest.json`` and one Parquet file per shard and table under
``TABLE/profile=P/``.  The manifest is the source of truth for which files make up the run; this
module depends only on that layout and on ``sim.schema``.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from sim import schema
from sim.errors import UserError

RUN_FORMAT = "kalooki-lab run"
REQUIRED_TABLES = ("hands", "games")
_MANIFEST_KEYS = ("format", "schema_version", "engine_version", "run_id", "profiles", "shards")


def _run_dir(run_dir) -> Path:
    path = Path(run_dir)
    if not path.exists():
        raise UserError(f"run directory {path} does not exist")
    if not path.is_dir():
        raise UserError(f"{path} is not a directory; a run directory holds manifest.json, hands/ and games/")
    if not any(path.iterdir()):
        raise UserError(f"run directory {path} is empty; expected manifest.json, hands/ and games/ "
                        "written by `kalooki simulate`")
    return path


def read_manifest(run_dir) -> dict:
    """The run's manifest as a dict; UserError when the directory is not a readable run."""
    path = _run_dir(run_dir)
    manifest_path = path / "manifest.json"
    if not manifest_path.is_file():
        raise UserError(f"{path} has no manifest.json, so it is not a kalooki-lab run directory "
                        "(or the run never started)")
    try:
        manifest = json.loads(manifest_path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise UserError(f"{manifest_path} is not readable JSON: {e}") from None
    if not isinstance(manifest, dict):
        raise UserError(f"{manifest_path} must hold a JSON object, not {type(manifest).__name__}")
    missing = [k for k in _MANIFEST_KEYS if k not in manifest]
    if missing:
        raise UserError(f"{manifest_path} lacks {', '.join(missing)}; a run manifest has "
                        f"{', '.join(_MANIFEST_KEYS)}")
    return manifest


@dataclass
class RunCheck:
    """What verify found: human-readable problems and the files that cannot be read at all."""
    problems: list[str] = field(default_factory=list)
    unreadable: set[str] = field(default_factory=set)  # manifest-relative paths


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(1 << 22):
            digest.update(chunk)
    return digest.hexdigest()


def _schema_differences(found: pa.Schema, table: str) -> list[str]:
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


def _check_file(root: Path, where: str, table: str, entry: dict, check: RunCheck) -> None:
    rel = entry.get("path")
    if not rel:
        check.problems.append(f"{where}: the {table} entry has no path")
        return
    path = root / rel
    if not path.is_file():
        check.problems.append(f"{where}: {table} file {rel} is missing")
        check.unreadable.add(rel)
        return
    if "sha256" in entry and sha256_of(path) != entry["sha256"]:
        check.problems.append(f"{where}: {table} file {rel} does not match its sha256 in the manifest "
                              "(changed or truncated after the run wrote it)")
    try:
        parquet = pq.ParquetFile(path)
        rows, found = parquet.metadata.num_rows, parquet.schema_arrow
    except Exception as e:  # any unreadable file is a finding, never a crash
        check.problems.append(f"{where}: {table} file {rel} is not readable Parquet ({type(e).__name__}: {e})")
        check.unreadable.add(rel)
        return
    if "rows" in entry and rows != entry["rows"]:
        check.problems.append(f"{where}: {table} file {rel} has {rows} rows, the manifest says {entry['rows']}")
    diffs = _schema_differences(found, table)
    if diffs:
        check.problems.append(f"{where}: {table} file {rel} does not follow sim.schema ({'; '.join(diffs)})")
        check.unreadable.add(rel)


def check_run(run_dir) -> RunCheck:
    """verify_run's findings, plus which files a partial report must leave out."""
    root = _run_dir(run_dir)
    manifest = read_manifest(root)
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
            for table in REQUIRED_TABLES:
                if table not in files:
                    problems.append(f"{where}: no {table} file listed")
            for table, entry in files.items():
                if table not in schema.TABLES:
                    problems.append(f"{where}: unknown table {table!r} (tables: {', '.join(schema.TABLES)})")
                    continue
                _check_file(root, where, table, entry, check)
    return check


def verify_run(run_dir) -> list[str]:
    """Every problem with the run's files as a readable sentence naming the shard and file; [] if none."""
    return check_run(run_dir).problems


def table_files(run_dir, manifest: dict, table: str, profiles=None, exclude=()) -> list[Path]:
    """The manifest's files of `table` for `profiles` (all when None), minus `exclude` (relative paths)."""
    root = Path(run_dir)
    wanted = set(profiles) if profiles is not None else set(manifest["profiles"])
    paths = []
    for shard in sorted(manifest["shards"], key=lambda s: (str(s.get("profile")), s.get("index", 0))):
        entry = shard.get("files", {}).get(table)
        if shard.get("profile") in wanted and entry and entry.get("path") not in exclude:
            path = root / entry["path"]
            if path.is_file():
                paths.append(path)
    return paths


def check_profiles(manifest: dict, profiles) -> list[str]:
    names = list(manifest["profiles"])
    if profiles is None:
        return names
    profiles = [profiles] if isinstance(profiles, str) else list(profiles)
    unknown = [p for p in profiles if p not in manifest["profiles"]]
    if unknown:
        raise UserError(f"profile(s) {', '.join(unknown)} not in this run; it has {', '.join(names) or 'none'}")
    return profiles


def _to_pandas(column: pa.ChunkedArray) -> pd.Series:
    """Strings become categoricals; columns with nulls keep them as pandas nullable dtypes."""
    if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
        column = column.dictionary_encode()
    if pa.types.is_dictionary(column.type):
        return column.to_pandas()
    if column.null_count and (pa.types.is_integer(column.type) or pa.types.is_boolean(column.type)):
        return column.to_pandas(types_mapper=_nullable_dtype)
    return column.to_pandas()


def _nullable_dtype(arrow_type: pa.DataType):
    if pa.types.is_boolean(arrow_type):
        return pd.BooleanDtype()
    if pa.types.is_integer(arrow_type):
        return pd.api.types.pandas_dtype(str(arrow_type).replace("int", "Int").replace("uInt", "UInt"))
    return None


def read_files(paths: list[Path], table: str, columns=None, profiles=None) -> pd.DataFrame:
    """Rows of `table` from `paths` as a DataFrame with only `columns` (all schema columns when None)."""
    names = schema.column_names(table)
    columns = list(names if columns is None else columns)
    unknown = [c for c in columns if c not in names]
    if unknown:
        raise UserError(f"{table} has no column(s) {', '.join(unknown)}; columns: {', '.join(names)}")
    if not paths:
        empty = schema.arrow_schema(table).empty_table().select(columns)
        return pd.DataFrame({c: _to_pandas(empty.column(c)) for c in columns})
    strings = [c for c in columns if pa.types.is_string(schema.arrow_schema(table).field(c).type)]
    fmt = ds.ParquetFileFormat(read_options=ds.ParquetReadOptions(dictionary_columns=strings))
    dataset = ds.dataset([str(p) for p in paths], format=fmt)
    row_filter = ds.field("profile").isin(list(profiles)) if profiles is not None else None
    arrow = dataset.to_table(columns=columns, filter=row_filter)
    frame = {}
    for name in columns:
        frame[name] = _to_pandas(arrow.column(name))
        arrow = arrow.drop_columns([name])  # free each column once converted
    return pd.DataFrame(frame, copy=False)


def load_table(run_dir, table: str, columns=None, profiles=None) -> pd.DataFrame:
    """One table of the run (`hands`, `games` or `turns`), only the given columns and profiles.

    Strings come back as categoricals; integer and boolean columns holding nulls come back as
    pandas nullable dtypes (Int16, boolean), the others as plain numpy dtypes.
    """
    if table not in schema.TABLES:
        raise UserError(f"unknown table {table!r}; tables: {', '.join(schema.TABLES)}")
    manifest = read_manifest(run_dir)
    profiles = check_profiles(manifest, profiles)
    paths = table_files(run_dir, manifest, table, profiles)
    return read_files(paths, table, columns, profiles)
