"""Reading a run: its manifest, its integrity check and its tables as DataFrames.

A run is a local directory or a URI pyarrow's filesystems open (``s3://bucket/run?...``,
``file:///...``); its layout, manifest and integrity check belong to ``sim.runformat``, which this
module reads through.  Table files are returned as ``sim.runformat.RunFile`` strings (the file's
URI or local path) that ``read_files`` opens on the run's filesystem.
"""
from __future__ import annotations

from collections.abc import Iterable

import pandas as pd
import pyarrow as pa
import pyarrow.dataset as ds

from sim import runformat, schema
from sim.errors import UserError
from sim.runformat import RunCheck, RunFile


def read_manifest(run_dir) -> dict:
    """The run's manifest as a dict; UserError when `run_dir` (a path or URI) is not a readable run."""
    return runformat.read_manifest(runformat.locate_run(run_dir))


def check_run(run_dir) -> RunCheck:
    """verify_run's findings, plus which files a partial report must leave out."""
    return runformat.check_run(run_dir)


def verify_run(run_dir) -> list[str]:
    """Every problem with the run's files as a readable sentence naming the shard and file; [] if none."""
    return check_run(run_dir).problems


def table_files(run_dir, manifest: dict, table: str, profiles=None, exclude=()) -> list[RunFile]:
    """The manifest's files of `table` for `profiles` (all when None) that exist, minus `exclude`
    (manifest-relative paths): RunFile strings (a local path, or a URI when the run was given as one)."""
    return runformat.table_files(runformat.locate(run_dir, "run"), manifest, table, profiles, exclude)


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


def _datasets(paths: Iterable, fmt) -> list[ds.Dataset]:
    """One dataset per filesystem among `paths` (RunFiles, local paths or file URIs), in order."""
    groups: list[tuple] = []
    for p in paths:
        fs, path = runformat.open_file(p)
        if groups and groups[-1][0].equals(fs):
            groups[-1][1].append(path)
        else:
            groups.append((fs, [path]))
    return [ds.dataset(group, filesystem=fs, format=fmt) for fs, group in groups]


def read_files(paths, table: str, columns=None, profiles=None) -> pd.DataFrame:
    """Rows of `table` from `paths` (what table_files returns, or local paths and file URIs) as a
    DataFrame with only `columns` (all schema columns when None)."""
    names = schema.column_names(table)
    columns = list(names if columns is None else columns)
    unknown = [c for c in columns if c not in names]
    if unknown:
        raise UserError(f"{table} has no column(s) {', '.join(unknown)}; columns: {', '.join(names)}")
    paths = list(paths)
    if not paths:
        empty = schema.arrow_schema(table).empty_table().select(columns)
        return pd.DataFrame({c: _to_pandas(empty.column(c)) for c in columns})
    strings = [c for c in columns if pa.types.is_string(schema.arrow_schema(table).field(c).type)]
    fmt = ds.ParquetFileFormat(read_options=ds.ParquetReadOptions(dictionary_columns=strings))
    row_filter = ds.field("profile").isin(list(profiles)) if profiles is not None else None
    parts = [d.to_table(columns=columns, filter=row_filter) for d in _datasets(paths, fmt)]
    return frame_of(parts[0] if len(parts) == 1 else pa.concat_tables(parts), columns)


def frame_of(arrow: pa.Table, columns) -> pd.DataFrame:
    """`columns` of an Arrow table as read_files returns them (a table in memory, e.g. a shard the
    runner has just written, reads the same as its file)."""
    arrow = arrow.select(list(columns))
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
