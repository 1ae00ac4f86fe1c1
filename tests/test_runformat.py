"""The run format's locations: a plain path, a file:// URI and an s3://...?query URI name the same
files, and analysis.load reads a run the same through each (the S3 case runs in test_cluster)."""
from __future__ import annotations

import pickle

import pyarrow as pa
import pyarrow.fs as pafs
import pytest

from analysis import load
from sim import cli, runformat
from sim.errors import UserError
from test_analysis import alpha_shards, write_run

S3 = "s3://kal/run1?endpoint_override=127.0.0.1:5555&scheme=http"


def test_uris_keep_their_query_when_a_file_is_named_under_them():
    assert runformat.join_uri(S3, "hands/profile=a/part-00000.parquet") == (
        "s3://kal/run1/hands/profile=a/part-00000.parquet?endpoint_override=127.0.0.1:5555&scheme=http")
    assert runformat.join_uri("file:///data/run", "manifest.json") == "file:///data/run/manifest.json"
    assert runformat.join_uri("runs/x", "opening_min=40") == "runs/x/opening_min=40"
    assert runformat.base_name(S3) == "run1"
    assert runformat.base_name("file:///data/run/") == "run"
    assert runformat.base_name("runs/k40") == "k40"


def test_a_uri_pyarrow_cannot_open_is_a_user_error(capsys):
    with pytest.raises(UserError, match="not a filesystem URI pyarrow can open"):
        runformat.locate("nosuchscheme://bucket/run", "--out")
    assert cli.main(["verify", "nosuchscheme://bucket/run"]) == 2
    assert "not a filesystem URI" in capsys.readouterr().err


@pytest.mark.parametrize("as_uri", [False, True], ids=["path", "file-uri"])
def test_load_reads_a_run_given_as_a_path_or_a_file_uri(tmp_path, as_uri):
    run = write_run(tmp_path / "alpha-run", {"alpha": alpha_shards()})
    where = f"file://{run}" if as_uri else str(run)
    assert load.verify_run(where) == []
    manifest = load.read_manifest(where)
    files = load.table_files(where, manifest, "hands")
    assert [f.path for f in files] == [str(run / runformat.shard_path("hands", "alpha", i)) for i in (0, 1)]
    assert all(f.startswith("file://") == as_uri for f in files)
    one_by_one = sum(len(load.read_files([f], "hands", ["game_id"])) for f in files)
    assert one_by_one == len(load.read_files(files, "hands", ["game_id"])) == 16
    # plain strings (a path or a file URI) read the same as the RunFiles table_files returns
    assert len(load.read_files([str(f) for f in files], "hands", ["game_id"])) == 16
    assert pickle.loads(pickle.dumps(files[0])).path == files[0].path  # RunFiles travel to Ray tasks
    assert len(load.load_table(where, "games", columns=["game_id"])) == len(load.load_table(run, "games"))


class _ReplacedWhileRead:
    """A file system whose file is replaced by a longer one after its size is first asked for, read
    as an object store reads it: the new object's bytes cut at the size asked for first."""

    def __init__(self, old: bytes, new: bytes):
        self.old, self.new, self.infos = old, new, 0

    def get_file_info(self, path):
        self.infos += 1
        data, when = (self.old, 1) if self.infos == 1 else (self.new, 2)
        return pafs.FileInfo(path, pafs.FileType.File, size=len(data), mtime=when)

    def open_input_stream(self, path):
        return pa.BufferReader(self.new[:len(self.old)] if self.infos == 1 else self.new)


def test_a_file_replaced_while_it_is_read_is_read_again_whole():
    old, new = b'{"shards": [1]}', b'{"shards": [1, 2, 3]}'
    fs = _ReplacedWhileRead(old, new)
    assert runformat.read_bytes(fs, "run/manifest.json") == new
    assert fs.infos == 4  # the cut read was refused, the second one kept
