"""The runner: identical tables however a run is split, bad input refused before anything is written,
damaged runs named by verify and repaired by a re-run, unwritable or full outputs reported cleanly.

One Ray session serves the module (a module fixture); runs that need a fresh driver go through the
`kalooki simulate` command in a subprocess.
"""
from __future__ import annotations

import errno
import functools
import hashlib
import json
import logging
import os
import re
import shutil
import time
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from analysis import summaries
from analysis.summaries import write_shard_summary
from sim import cli, profiles, runconfig, runexec, runformat, runner, runplan, schema
from sim.errors import UserError

ROOT = Path(__file__).resolve().parent.parent
PROFILES = ["kalooki40", "east_coast"]
GAMES = 20
SORT_KEYS = {"hands": ["profile", "game_id", "hand_no", "redeal_no", "seat"],
             "games": ["profile", "game_id", "seat"],
             "turns": ["profile", "game_id", "hand_no", "redeal_no", "turn_no"]}


# ---------------------------------------------------------------------------------------------
# helpers (test_faults uses them too)

def config(out, **kw) -> runconfig.RunConfig:
    args = dict(profiles=PROFILES, games=GAMES, seed=7, out=str(out), shard_games=GAMES)
    args.update(kw)
    return runconfig.make_config(None, None, **args)


def read_tables(run_dir, tables=("hands", "games")) -> dict[str, pa.Table]:
    """Each table of a run, from the files its manifest lists, sorted by its key."""
    manifest = json.loads((Path(run_dir) / "manifest.json").read_text())
    out = {}
    for t in tables:
        parts = [pq.read_table(Path(run_dir) / s["files"][t]["path"])
                 for s in sorted(manifest["shards"], key=lambda s: (s["profile"], s["index"]))]
        out[t] = pa.concat_tables(parts).sort_by([(k, "ascending") for k in SORT_KEYS[t]])
    return out


def assert_same_tables(a: dict, b: dict):
    for t in a:
        assert a[t].schema.equals(b[t].schema), t
        assert a[t].num_rows == b[t].num_rows, (t, a[t].num_rows, b[t].num_rows)
        assert a[t].equals(b[t]), f"{t} tables differ"


def assert_every_game_once(tables: dict, profiles=PROFILES, games=GAMES):
    g = tables["games"]
    for p in profiles:
        rows = g.filter(pc.equal(g["profile"], p))
        ids = rows["game_id"].to_pylist()
        seats = rows["n_players"][0].as_py()
        assert sorted(set(ids)) == list(range(games)), p
        assert len(ids) == games * seats, f"{p}: some game recorded twice or a seat missing"


def simulate_cmd(*args) -> list[str]:
    return [sys.executable, "-m", "sim.cli", "simulate", "--no-progress", *args]


def cli_args(out, games=GAMES, shard_games=GAMES, seed=7, profiles=PROFILES) -> list[str]:
    args = []
    for p in profiles:
        args += ["--profile", p]
    return args + ["--games", str(games), "--seed", str(seed), "--shard-games", str(shard_games), "--out", str(out)]


def snapshot(path: Path) -> dict:
    if not path.exists():
        return {}
    return {str(p.relative_to(path)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(path.rglob("*")) if p.is_file()}


# ---------------------------------------------------------------------------------------------
# fixtures

@pytest.fixture(scope="module")
def ray_session():
    ray = pytest.importorskip("ray")
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.ERROR, log_to_driver=False,
             object_store_memory=200 * 1024 * 1024)
    yield ray
    ray.shutdown()
    runexec._REMOTE = None


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The run played in-process in one shard per profile, written through a file:// URI."""
    out = tmp_path_factory.mktemp("ref") / "run"
    runner.run_local(config(f"file://{out}"), summarise=write_shard_summary, progress=False)
    return out, read_tables(out)


# ---------------------------------------------------------------------------------------------
# identical output however the work is split

@pytest.mark.slow  # several Ray sessions of 2 workers: the slow tier
def test_workers_and_shard_sizes_give_identical_tables(reference, ray_session, tmp_path):
    ref_dir, ref = reference
    assert_every_game_once(ref)
    two = tmp_path / "two"
    res = runner.run(config(two, workers=2, shard_games=5), summarise=write_shard_summary, progress=False)
    assert res.shards_run == 2 * 4
    one = tmp_path / "one"
    proc = subprocess.run(simulate_cmd(*cli_args(one, shard_games=7), "--workers", "1"),
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "hands/s on 1 worker" in proc.stdout  # the run's summary
    assert re.search(r"before playing: [\d.]+ s compiling or loading the kernels, [\d.]+ s starting Ray$", proc.stdout,
                     re.M), proc.stdout
    # the time left, said once on stderr though it is no terminal
    assert len(re.findall(r"^about \d+ (?:s|min) left at [\d,]+ hands/s \(\d+ of 40 games to play, timed on the "
                          r"first 1 shard\(s\)\)$", proc.stderr, re.M)) == 1, proc.stderr
    for d in (two, one):
        assert_same_tables(ref, read_tables(d))
        assert runner_verify(d) == []
    m = json.loads((two / "manifest.json").read_text())
    assert m["complete"] is True and m["run_id"] == json.loads((ref_dir / "manifest.json").read_text())["run_id"]
    assert m["profiles"]["kalooki40"]["shards_planned"] == 4
    assert set(m["package_versions"]) >= {"numpy", "numba", "ray", "pyarrow", "pandas", "kalooki-lab"}


def test_the_kernels_are_compiled_before_ray_starts_and_timed_apart(tmp_path, monkeypatch):
    steps = []

    def warm_up(bots=None, *, announce=False):
        steps.append(("compile", tuple(sorted(bots)), announce))
        time.sleep(1.0)

    def start_ray(workers, address, out=""):
        steps.append("ray")
        return False, 1

    def execute(jobs, shard_fn, on_done, workers):
        runexec.execute_local(jobs, shard_fn, on_done)
    monkeypatch.setattr(runner, "warm_up", warm_up)
    monkeypatch.setattr(runexec, "start_ray", start_ray)
    monkeypatch.setattr(runexec, "execute_ray", execute)
    said = []
    result = runner.run(config(tmp_path / "run", profiles=["kalooki40"], games=2, shard_games=1),
                        summarise=write_shard_summary, progress=False, log=said.append)
    assert steps == [("compile", ("greedy",), True), "ray"]  # only the run's bots, a cold compile announced
    assert result.compile_seconds >= 1.0 and result.startup_seconds < 1.0
    assert result.seconds < result.compile_seconds + 60  # the compile is not in the playing time
    assert re.search(r"before playing: 1\.\d s compiling or loading the kernels, 0\.\d s starting Ray$", said[-1]), said


def _recorded_summary(loc, profile, index, hands, games, meta, *, calls):
    calls.append((profile, index, hands.num_rows, len(set(games.column("game_id").to_pylist())),
                  meta["profiles"][profile]["params"]["jokers"]))
    return write_shard_summary(loc, profile, index, hands, games, meta)


def test_each_shard_is_summarised_by_the_step_the_caller_hands_in(tmp_path):
    calls = []
    summarise = functools.partial(_recorded_summary, calls=calls)
    res = runner.run_local(config(tmp_path / "run", profiles=["kalooki40"], games=4, shard_games=2),
                           summarise=summarise, progress=False, log=lambda m: None)
    assert sorted(c[:2] for c in calls) == [("kalooki40", 0), ("kalooki40", 1)]
    jokers = profiles.load("kalooki40").jokers
    assert all(c[2] > 0 and c[3] == 2 and c[4] == jokers for c in calls)  # the shard's own tables and rules
    m = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert all(runformat.SUMMARY in s["files"] for s in m["shards"]) and res.shards_run == 2


def test_duration_text_reads_like_a_person_would_say_it():
    assert [runner.duration_text(s) for s in (0.2, 40, 89, 150, 3600, 7800, 47 * 3600, 5 * 86400)] == [
        "1 s", "40 s", "89 s", "2 min", "60 min", "2 h 10 min", "47 h 0 min", "5.0 days"]


def runner_verify(run_dir) -> list[str]:
    from analysis.load import verify_run
    return verify_run(run_dir)


def test_layout_and_schema(reference):
    ref_dir, _ = reference
    m = json.loads((ref_dir / "manifest.json").read_text())
    assert m["format"] == "kalooki-lab run" and m["schema_version"] == schema.SCHEMA_VERSION
    for s in m["shards"]:
        for t, f in s["files"].items():
            assert f["path"] == f"{t}/profile={s['profile']}/part-{s['index']:05d}.parquet"
            expected = summaries.SUMMARY_SCHEMA if t == runformat.SUMMARY else schema.arrow_schema(t)
            assert pq.read_schema(ref_dir / f["path"]).equals(expected)
        assert set(s["files"]) == {"hands", "games", runformat.SUMMARY}
    assert not [p for p in ref_dir.rglob(".tmp-*")]


# ---------------------------------------------------------------------------------------------
# bad input: exit 2, a message naming the problem, nothing written

def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


BAD_INPUT = [
    ("unknown profile", ["--profile", "nope"], "unknown profile 'nope'"),
    ("unknown --set key", ["--profile", "kalooki40", "--set", "bogus=1"], "unknown key 'bogus'"),
    ("wrong type", ["--profile", "kalooki40", "--set", "opening_min=lots"], "must be an integer"),
    ("negative games", ["--profile", "kalooki40", "--games", "-5"], "--games = -5 is not allowed"),
    ("zero shard games", ["--profile", "kalooki40", "--shard-games", "0"], "--shard-games = 0 is not allowed"),
    ("zero workers", ["--profile", "kalooki40", "--workers", "0"], "--workers = 0 is not allowed"),
    ("1 player", ["--profile", "kalooki40", "--players", "1"], "--players = 1 is not allowed"),
    ("7 players", ["--profile", "kalooki40", "--players", "7"], "--players = 7 is not allowed"),
    ("players below the profile's minimum", ["--profile", "kalooki40", "--players", "2"],
     "2 players is not allowed; allowed: 3-6"),
    ("opening_min below 0", ["--profile", "kalooki40", "--set", "opening_min=-1"], "'opening_min' = -1 is out of range"),
    ("more cards than the pack", ["--profile", "kalooki40", "--set", "hand_size=30", "--players", "6"],
     "but the pack holds"),
    ("bots != players", ["--profile", "kalooki40", "--bots", "greedy,greedy,greedy", "--players", "4"],
     "one bot per seat"),
    ("unknown bot on the command line", ["--profile", "kalooki40", "--bots", "greedy,wizard,greedy,greedy"],
     "unknown bot 'wizard'"),
    ("malformed run config", ["--config", "{bad_toml}"], "malformed TOML"),
    ("run config naming an unknown bot", ["--config", "{unknown_bot}"], "unknown bot 'wizard'"),
    ("unknown run-config key", ["--config", "{unknown_key}"], "unknown key 'gamez'"),
    ("run-config value of the wrong type", ["--config", "{bool_games}"], "key 'games' = True must be an integer"),
    ("per-profile sets for a profile not in the run", ["--config", "{sets_other}"],
     "'east_coast' is neither a rule parameter nor one of this run's profiles"),
    ("events not known", ["--profile", "kalooki40", "--events", "everything"], "--events = 'everything' is not allowed"),
    ("empty --tables", ["--profile", "kalooki40", "--tables", ""],
     "--tables '' names no table composition; write one or more [NAME=]BOTS[:WEIGHT] separated by ';', "
     "e.g. --tables 'casual=greedy,greedy,greedy,greedy:1; expert,expert,expert,expert:3'"),
    ("--tables of separators only", ["--profile", "kalooki40", "--tables", " ; "], "names no table composition"),
    ("a profile name that cannot name a folder", ["--profile", "{odd_name}"],
     "cannot name the run's folders; use letters, digits and _ . + - only"),
]


@pytest.mark.parametrize("label,argv,message", BAD_INPUT, ids=[c[0] for c in BAD_INPUT])
def test_bad_input_exits_2_and_writes_nothing(label, argv, message, tmp_path, capsys):
    configs = {
        "bad_toml": _write(tmp_path, "bad.toml", "profiles = [\"kalooki40\"\ngames = 3\n"),
        "unknown_bot": _write(tmp_path, "bot.toml", "profiles = [\"kalooki40\"]\nseed = 1\ngames = 3\nbots = [\"greedy\", \"wizard\", "
                              "\"greedy\", \"greedy\"]\n"),
        "unknown_key": _write(tmp_path, "key.toml", "profiles = [\"kalooki40\"]\nseed = 1\ngames = 3\ngamez = 3\n"),
        "bool_games": _write(tmp_path, "bool.toml", "profiles = [\"kalooki40\"]\nseed = 1\ngames = true\n"),
        "sets_other": _write(tmp_path, "sets.toml", "profiles = [\"kalooki40\"]\nseed = 1\ngames = 3\n[sets.east_coast]\nopening_min = 51\n"),
        "odd_name": _write(tmp_path, "odd.toml", profiles.to_toml(profiles.load("kalooki40")).replace(
            'name = "kalooki40"', 'name = "my variant"')),
    }
    out = tmp_path / "out"
    argv = [a.format(**configs) for a in argv]
    base = {"--out": str(out)} if "--config" in argv else {"--games": "3", "--seed": "1", "--out": str(out)}
    for flag, value in base.items():
        if flag not in argv:
            argv += [flag, value]
    rc = cli.main(["simulate", "--no-progress", *argv])
    err = capsys.readouterr().err
    assert rc == 2, err
    assert message in err, err
    assert not out.exists()


def test_different_config_on_an_existing_run_is_refused(reference, capsys):
    ref_dir, _ = reference
    before = snapshot(ref_dir)
    rc = cli.main(["simulate", "--no-progress", *cli_args(f"file://{ref_dir}", seed=8, games=GAMES + 1)])
    err = capsys.readouterr().err
    assert rc == 2
    assert "already holds a different run" in err and "games: 20 there, 21 now" in err and "seed: 7 there, 8 now" in err
    assert snapshot(ref_dir) == before


def test_a_run_made_by_another_engine_version_is_refused_with_what_to_do(reference, tmp_path, capsys):
    ref_dir, _ = reference
    out = tmp_path / "old"
    shutil.copytree(ref_dir, out)
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["engine_version"] = "0.0.1"
    (out / "manifest.json").write_text(json.dumps(manifest))
    before = snapshot(out)
    rc = cli.main(["simulate", "--no-progress", *cli_args(out)])
    err = capsys.readouterr().err
    assert rc == 2 and 'engine_version: "0.0.1" there' in err and "cannot be resumed: move or delete it" in err
    assert snapshot(out) == before


def test_run_configs_in_the_repo_are_valid():
    for path in sorted((ROOT / "configs" / "runs").glob("*.toml")):
        plan = runplan.make_plan(runconfig.make_config(runconfig.read_run_config(path), path))
        assert plan.total_games > 0, path
    smoke = runconfig.make_config(runconfig.read_run_config(ROOT / "configs/runs/smoke.toml"), "smoke.toml",
                                  games=2, out="elsewhere")
    assert smoke.games == 2 and smoke.out == "elsewhere" and smoke.events  # flags override the file


# ---------------------------------------------------------------------------------------------
# damage: verify names it, a re-run repairs it

def test_verify_names_damage_and_rerun_repairs_it(reference, tmp_path, capsys):
    _, ref = reference
    out = tmp_path / "run"
    cfg = config(out, shard_games=4)
    runner.run_local(cfg, summarise=write_shard_summary, progress=False)
    assert cli.main(["verify", str(out)]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    by_key = {(s["profile"], s["index"]): s for s in manifest["shards"]}
    truncated = out / by_key[("kalooki40", 1)]["files"]["hands"]["path"]
    truncated.write_bytes(truncated.read_bytes()[:-100])
    deleted = out / by_key[("east_coast", 2)]["files"]["games"]["path"]
    deleted.unlink()
    edited = by_key[("east_coast", 0)]
    edited["files"]["hands"]["rows"] += 1
    (out / "manifest.json").write_text(json.dumps(manifest))
    capsys.readouterr()
    assert cli.main(["verify", str(out)]) == 1
    report = capsys.readouterr().out
    assert "hands/profile=kalooki40/part-00001.parquet does not match its sha256" in report
    assert "games/profile=east_coast/part-00002.parquet is missing" in report
    assert "hands/profile=east_coast/part-00000.parquet has" in report and "the manifest says" in report
    res = runner.run_local(cfg, summarise=write_shard_summary, progress=False)
    assert res.shards_run == 3 and res.shards_kept == 7
    assert cli.main(["verify", str(out)]) == 0
    assert_same_tables(ref, read_tables(out))


def test_verify_on_a_directory_that_is_not_a_run(tmp_path, capsys):
    (tmp_path / "x").write_text("hello")
    assert cli.main(["verify", str(tmp_path)]) == 2
    assert "no manifest.json" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------
# unwritable and full outputs

def test_unwritable_output(tmp_path, capsys, monkeypatch):
    def started(*args, **kwargs):
        raise AssertionError("kernels loaded or Ray started for an --out that cannot be written")
    with monkeypatch.context() as m:  # refused before either
        m.setattr(runner, "warm_up", started)
        m.setattr(runexec, "start_ray", started)
        rc = cli.main(["simulate", "--no-progress", *cli_args("/proc/forbidden/run", games=2)])
    err = capsys.readouterr().err
    assert rc == 2 and "is not writable" in err and "/proc/forbidden/run" in err
    a_file = tmp_path / "file"
    a_file.write_text("x")
    rc = cli.main(["simulate", "--no-progress", *cli_args(a_file, games=2)])
    assert rc == 2 and "is a file" in capsys.readouterr().err
    assert a_file.read_text() == "x"


def test_the_early_write_check_leaves_nothing_behind(tmp_path):
    from sim import storage
    storage.refuse_unwritable(runformat.locate(str(tmp_path / "a" / "b" / "run")))
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "kept").mkdir()
    storage.refuse_unwritable(runformat.locate(str(tmp_path / "kept")))
    assert [p.name for p in tmp_path.iterdir()] == ["kept"] and not list((tmp_path / "kept").iterdir())


class _FullDisk:
    """A filesystem that runs out of space half-way through its `fail_at`-th Parquet file."""

    def __init__(self, fs, fail_at: int):
        self._fs, self._fail_at, self._parts = fs, fail_at, 0

    def __getattr__(self, name):
        return getattr(self._fs, name)

    def open_output_stream(self, path):
        stream = self._fs.open_output_stream(path)
        if ".parquet." in path:
            self._parts += 1
            if self._parts == self._fail_at:
                return _HalfWriter(stream)
        return stream


class _HalfWriter:
    def __init__(self, stream):
        self._s = stream

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._s.close()

    def write(self, data):
        self._s.write(data[: len(data) // 2])
        raise OSError(errno.ENOSPC, "No space left on device")


def test_full_disk_mid_run_keeps_earlier_shards_and_leaves_no_partial_files(reference, tmp_path, monkeypatch, capsys):
    _, ref = reference
    out = tmp_path / "run"
    real = runformat.locate
    fs = {}

    def failing_locate(uri, what="run"):
        loc = real(uri, what)
        fs.setdefault("fs", _FullDisk(loc.fs, fail_at=4))  # shard 0: hands, games, summary pass; shard 1: hands fails
        return runformat.RunLocation(loc.uri, fs["fs"], loc.root)

    monkeypatch.setattr(runformat, "locate", failing_locate)
    with pytest.raises(UserError, match="No space left on device"):
        runner.run_local(config(out, profiles=["kalooki40"], shard_games=7), summarise=write_shard_summary,
                         progress=False)
    monkeypatch.undo()
    assert not list(out.rglob(".tmp-*")), "a half-written temporary file was left behind"
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["complete"] is False and [s["index"] for s in manifest["shards"]] == [0]
    problems = runner_verify(out)
    assert any("shard(s) 1, 2 of 3 planned are not in the manifest" in p for p in problems), problems
    assert not any("shard 0" in p for p in problems), problems
    runner.run_local(config(out, profiles=["kalooki40"], shard_games=7), summarise=write_shard_summary, progress=False)
    assert runner_verify(out) == []
    # the same games as in the two-profile reference (only the run_id differs: another run)
    ref_k40 = {t: v.filter(pc.equal(v["profile"], "kalooki40")).drop_columns(["run_id"]) for t, v in ref.items()}
    assert_same_tables(ref_k40, {t: v.drop_columns(["run_id"]) for t, v in read_tables(out).items()})


# ---------------------------------------------------------------------------------------------
# turns and replay

def test_events_and_replay(tmp_path, capsys):
    out = tmp_path / "run"
    rc = cli.main(["simulate", "--no-progress", "--local", "--profile", "kalooki40", "--games", "2", "--seed", "3",
                   "--out", str(out), "--events", "turns"])
    assert rc == 0
    turns = read_tables(out, ("turns",))["turns"]
    assert turns.num_rows > 0 and set(turns["game_id"].to_pylist()) == {0, 1}
    capsys.readouterr()
    assert cli.main(["replay", str(out), "--game", "1", "--hand", "1"]) == 0
    text = capsys.readouterr().out
    assert "kalooki40  game 1  hand 1" in text and "seat 0" in text and "drew" in text and "result:" in text
    assert cli.main(["replay", str(out), "--game", "5", "--hand", "1"]) == 2
    assert "games 0..1" in capsys.readouterr().err


def test_replay_needs_turns(reference, capsys):
    ref_dir, _ = reference
    assert cli.main(["replay", str(ref_dir), "--game", "0", "--hand", "1", "--profile", "kalooki40"]) == 2
    assert "--events turns" in capsys.readouterr().err
