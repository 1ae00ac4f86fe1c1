"""The `kalooki` command behaves like a good tool: --version, --quiet and help with defaults on every
option, progress only on a terminal, summaries on stdout, tables within 100 columns, one numbering
of games, hands and seats, `profiles show/diff`, a private local Ray, and a wheel that works when
installed outside the repository."""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import sysconfig
import tempfile
import tomllib
from pathlib import Path

import pyarrow.dataset as ds
import pytest

from analysis.summaries import write_shard_summary
from sim import cards, errors, profiles, runconfig, runexec, runner, schema
from sim.cli import build_parser, main
from sim.commands import common

pytestmark = pytest.mark.usefixtures("figures_not_rasterised_in_module")  # figures drawn, not rendered: no test reads them

ROOT = Path(__file__).resolve().parent.parent
WIDTH = common.WIDTH


def run_cli(capsys, *argv):
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def subparsers() -> dict[str, argparse.ArgumentParser]:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def assert_fits(text: str, width: int = WIDTH):
    long = [line for line in text.splitlines() if len(line) > width]
    assert not long, f"{len(long)} line(s) wider than {width} columns, e.g. {long[0]!r}"


# ---------------------------------------------------------------------------------------------
# the parser: --version, --quiet, help texts

def test_version(capsys):
    rc, out, _ = run_cli(capsys, "--version")
    assert rc == 0
    assert re.fullmatch(rf"kalooki \S+ \(engine {re.escape(schema.ENGINE_VERSION)}, schema "
                        rf"{schema.SCHEMA_VERSION}\)\n", out), out


def test_every_subcommand_takes_quiet_and_every_option_says_its_default():
    missing = []
    for name, p in subparsers().items():
        options = [a for a in p._actions if a.option_strings and not isinstance(a, argparse._HelpAction)]
        assert any("--quiet" in a.option_strings for a in options), f"{name} has no --quiet"
        for a in options:
            text = a.help or ""
            if "default" not in text and "required" not in text:
                missing.append(f"{name} {a.option_strings[-1]}: {text!r}")
            if a.required:
                assert "required" in text, f"{name} {a.option_strings[-1]}: say it is required"
    assert not missing, "options whose help does not say the default:\n" + "\n".join(missing)


def test_user_errors_share_one_base():
    assert issubclass(profiles.ProfileError, errors.UserError)
    assert issubclass(cards.CardError, errors.UserError)
    assert profiles.ProfileError is errors.ProfileError and cards.CardError is errors.CardError


def test_progress_only_on_a_terminal_and_never_with_quiet(monkeypatch):
    class Tty:
        def __init__(self, tty):
            self.tty = tty

        def isatty(self):
            return self.tty

        def write(self, s):
            return len(s)

        def flush(self):
            pass

    monkeypatch.setattr(sys, "stderr", Tty(True))
    assert common.show_progress(argparse.Namespace(quiet=False))
    assert not common.show_progress(argparse.Namespace(quiet=True))
    assert not runner._progress(10, 0, True).disable
    monkeypatch.setattr(sys, "stderr", Tty(False))
    assert not common.show_progress(argparse.Namespace(quiet=False))
    assert runner._progress(10, 0, True).disable  # the runner's bar, whoever asks for it


def test_tournament_summary_on_stdout_no_bar_off_a_terminal_and_fits(capsys):
    rc, out, err = run_cli(capsys, "tournament", "--bots", "greedy,random,greedy", "--games", "3", "--seed", "2")
    assert rc == 0, err
    assert "Tournament: profile kalooki40" in out and "greedy" in out and "random" in out
    assert err == "", f"stderr is not a terminal here, so no progress: {err!r}"
    assert_fits(out)


def test_simulate_summary_goes_to_stdout(tmp_path, capsys):
    rc, out, err = run_cli(capsys, "simulate", "--local", "--profile", "kalooki40", "--games", "2", "--seed", "1",
                           "--out", tmp_path / "run")
    assert rc == 0, err
    assert out.startswith("done: 2 games") and str(tmp_path / "run") in out
    assert "done:" not in err
    rc, out, err = run_cli(capsys, "simulate", "--local", "--profile", "kalooki40", "--games", "2", "--seed", "1",
                           "--out", tmp_path / "run", "--quiet")
    assert rc == 0 and out.startswith("nothing to do: all 1 shard(s)") and err == ""


def test_simulate_of_a_complete_run_starts_no_ray(tmp_path, capsys, monkeypatch):
    rc, out, err = run_cli(capsys, "simulate", "--local", "--profile", "kalooki40", "--games", "2", "--seed", "1",
                           "--out", tmp_path / "run")
    assert rc == 0, err

    def no_ray(*args, **kwargs):
        raise AssertionError("Ray started for a run with nothing to play")
    monkeypatch.setattr(runexec, "start_ray", no_ray)
    rc, out, err = run_cli(capsys, "simulate", "--profile", "kalooki40", "--games", "2", "--seed", "1",
                           "--out", tmp_path / "run")
    assert rc == 0 and out.startswith("nothing to do: all 1 shard(s)"), err


# ---------------------------------------------------------------------------------------------
# seeds and --set: refused with status 2 by every command (the full table is in test_bad_input.py)

@pytest.mark.parametrize("seed", ["-1", "1.5", "x"])
@pytest.mark.parametrize("argv", [["play"], ["tournament", "--bots", "greedy,greedy,greedy", "--games", "1"],
                                  ["deals", "--n", "10"], ["simulate", "--profile", "kalooki40", "--games", "1"],
                                  ["sweep", "--param", "opening_min=30,40", "--games", "1"]],
                         ids=lambda a: a[0] if isinstance(a, list) else None)
def test_bad_seeds_exit_2_in_every_command(argv, seed, tmp_path, capsys):
    out = tmp_path / "out"
    extra = ["--out", out] if argv[0] == "simulate" else ["--runs", out, "--out", out] if argv[0] == "sweep" else []
    rc, _, err = run_cli(capsys, *argv, *extra, "--seed", seed)
    assert rc == 2, err
    assert "--seed" in err and "allowed: 0.." in err and "Traceback" not in err
    assert not out.exists()


def test_unknown_set_key_suggests_the_closest_names(capsys):
    rc, _, err = run_cli(capsys, "play", "--set", "opening_mn=51")
    assert rc == 2
    assert "unknown key 'opening_mn'; did you mean 'opening_min'?" in err
    assert "hand_cap" not in err, "the whole list of parameters is printed"


# ---------------------------------------------------------------------------------------------
# play: numbering and --summary

def test_play_numbers_seats_from_0_like_the_tables(capsys):
    rc, out, err = run_cli(capsys, "play", "--seed", "7", "--bots", "greedy,greedy,random,greedy")
    assert rc == 0, err
    assert "seat 0 (greedy)" in out and "seat 3 (greedy)" in out
    assert "seat 4" not in out and not re.search(r"\bP\d\b", out)


def test_play_game_summary_is_the_score_sheet_only(capsys):
    argv = ["play", "--profile", "kalooki40", "--seed", "3", "--game",
            "--bots", "greedy,random,greedy,greedy,random,greedy"]
    rc, full, err = run_cli(capsys, *argv)
    assert rc == 0, err
    rc, summary, err = run_cli(capsys, *argv, "--summary")
    assert rc == 0, err
    assert "draws" not in summary and "dealt" not in summary and "=== Hand" not in summary
    lines = summary.splitlines()
    assert lines[0].startswith("Profile kalooki40") and lines[1].startswith("Seats: 0 greedy, 1 random")
    assert any(re.match(r"\s+1  seat \d  seat \d \((call|kalooki)\)", line) for line in lines), summary
    assert lines[-1].startswith("Game over after") and lines[-2].startswith(" net          payments")
    assert full.endswith("\n".join(lines[1:]) + "\n"), "the summary is not the full run's score sheet"
    assert_fits(summary)


def test_replay_prints_the_table_numbers(tmp_path, capsys):
    out = tmp_path / "run"
    cfg = runconfig.make_config(None, None, profiles=["kalooki40"], games=2, seed=3, out=str(out), events="turns")
    runner.run_local(cfg, summarise=write_shard_summary, progress=False, log=lambda m: None)
    rc, text, err = run_cli(capsys, "replay", out, "--game", "1", "--hand", "2")
    assert rc == 0, err
    hands = ds.dataset(str(out / "hands"), format="parquet").to_table().to_pylist()
    rows = [r for r in hands if r["game_id"] == 1 and r["hand_no"] == 2]
    assert rows, "game 1 has a hand 2"
    assert "game 1  hand 2" in text
    assert {int(s) for s in re.findall(r"seat (\d) ", text)} == {r["seat"] for r in rows}


# ---------------------------------------------------------------------------------------------
# profiles list / show / diff

def test_profiles_show_prints_every_parameter_with_its_meaning(capsys):
    rc, out, err = run_cli(capsys, "profiles", "show", "kalooki51")
    assert rc == 0, err
    prof = profiles.load("kalooki51")
    for name in profiles.PARAM_NAMES:
        line = next((l for l in out.splitlines() if l.startswith(name + " ")), None)
        assert line is not None, f"{name} missing"
        meaning_start = profiles.meaning(name).split()[0]
        assert meaning_start in line, line
    assert re.search(r"^opening_min\s+51\s", out, flags=re.M)
    assert re.search(r"^ace_low\s+true\s", out, flags=re.M) and prof.ace_low is True
    assert_fits(out)


def test_profiles_show_toml_is_a_loadable_profile(tmp_path, capsys):
    rc, out, _ = run_cli(capsys, "profiles", "show", "scala40", "--toml")
    assert rc == 0
    path = tmp_path / "copy.toml"
    path.write_text(out)
    assert profiles.load(str(path)).params() == profiles.load("scala40").params()


def test_profiles_diff_lists_exactly_the_parameters_that_differ(capsys):
    a, b = profiles.load("kalooki40"), profiles.load("scala40")
    differ = [k for k in profiles.PARAM_NAMES if a.params()[k] != b.params()[k]]
    rc, out, err = run_cli(capsys, "profiles", "diff", "kalooki40", "scala40")
    assert rc == 0, err
    shown = [l.split()[0] for l in out.splitlines()[2:] if l and not l.startswith(" ")]
    assert shown == differ
    assert re.search(r"^eliminate_above\s+150\s+100\s+a player whose", out, flags=re.M), out
    assert f"{len(differ)} of {len(profiles.PARAM_NAMES)} parameters differ" in out
    assert_fits(out)
    rc, out, _ = run_cli(capsys, "profiles", "diff", "kalooki40", "kalooki40", "--set", "opening_min=41")
    assert rc == 0 and re.search(r"^opening_min\s+40\s+41\s", out, flags=re.M)
    rc, out, _ = run_cli(capsys, "profiles", "diff", "british", "british")
    assert rc == 0 and "same rules" in out


def test_profiles_list_fits(capsys):
    rc, out, _ = run_cli(capsys, "profiles")
    assert rc == 0
    assert [l.split()[0] for l in out.splitlines()[1:] if not l.startswith(" ")] == profiles.available()
    assert_fits(out)


def test_profiles_usage_errors(capsys):
    assert run_cli(capsys, "profiles", "diff", "kalooki40")[0] == 2
    rc, _, err = run_cli(capsys, "profiles", "show")
    assert rc == 2 and "available: british" in err


def test_deals_fits(capsys):
    rc, out, err = run_cli(capsys, "deals", "--n", "2000", "--seed", "1")
    assert rc == 0, err
    assert "can open at once" in out
    assert_fits(out)


# ---------------------------------------------------------------------------------------------
# Ray: without --address a private local Ray; a start-up failure writes nothing

def _env_without_ray_address(tmp: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    env["RAY_TMPDIR"] = tmp  # a cluster file of our own, not the machine's /tmp/ray
    return env


def _closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


@pytest.mark.slow
def test_simulate_ignores_a_stale_cluster_file_and_runs_on_its_own_local_ray(tmp_path):
    with tempfile.TemporaryDirectory(prefix="kr") as tmp:  # short: Ray's socket paths must stay short
        (Path(tmp) / "ray").mkdir()
        (Path(tmp) / "ray" / "ray_current_cluster").write_text(f"127.0.0.1:{_closed_port()}\n")
        out = tmp_path / "run"
        proc = subprocess.run([sys.executable, "-m", "sim.cli", "simulate", "--profile", "kalooki40", "--games", "2",
                               "--seed", "1", "--workers", "1", "--out", str(out)], cwd=ROOT,
                              env=_env_without_ray_address(tmp), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "on 1 worker(s)" in proc.stdout, proc.stdout
    assert main(["verify", str(out)]) == 0


def test_simulate_with_a_dead_address_exits_2_and_writes_nothing(tmp_path):
    out = tmp_path / "run"
    address = f"127.0.0.1:{_closed_port()}"
    with tempfile.TemporaryDirectory(prefix="kr") as tmp:
        proc = subprocess.run([sys.executable, "-m", "sim.cli", "simulate", "--profile", "kalooki40", "--games", "2",
                               "--seed", "1", "--out", str(out), "--address", address], cwd=ROOT,
                              env=_env_without_ray_address(tmp), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert f"cannot join the Ray cluster at '{address}'" in proc.stderr and "Traceback" not in proc.stderr
    assert not out.exists(), "a failed start-up left a run directory"
    rc = main(["simulate", "--profile", "kalooki40", "--games", "2", "--seed", "1", "--out", str(out),
               "--address", "not an address"])
    assert rc == 2 and not out.exists()


def test_an_s3_endpoint_where_nothing_listens_is_named_in_one_line_and_nothing_is_written(tmp_path, capsys,
                                                                                         monkeypatch):
    for key, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                       "AWS_EC2_METADATA_DISABLED": "true"}.items():
        monkeypatch.setenv(key, value)  # test values: nothing answers at the endpoint anyway
    endpoint = f"127.0.0.1:{_closed_port()}"
    run = f"s3://kal/run?endpoint_override={endpoint}&scheme=http"
    said = f"the endpoint {endpoint} (endpoint_override) could not be reached"
    monkeypatch.chdir(tmp_path)
    for argv in (["simulate", "--local", "--profile", "kalooki40", "--games", "2", "--seed", "1", "--out", run],
                 ["verify", run], ["report", run, "--out", "report"],
                 ["compare", run, "--profiles", "kalooki40,kalooki40", "--out", "compare"]):
        rc, out, err = run_cli(capsys, *argv)
        assert rc == 2 and said in err and err.count("\n") == 1, (argv, err)
    assert list(tmp_path.iterdir()) == [], "a refused command wrote something"


def test_an_interrupt_is_recognised_through_the_error_numba_wraps_it_in():
    try:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as e:
            raise SystemError("CPUDispatcher(...) returned a result with an exception set") from e
    except SystemError as e:
        wrapped = e
    assert errors.is_interrupt(wrapped) and errors.is_interrupt(KeyboardInterrupt())
    assert not errors.is_interrupt(SystemError("no interrupt")) and not errors.is_interrupt(ValueError())


def test_a_tournament_interrupted_says_so_in_one_line(monkeypatch, capsys):
    from sim import tournament
    played = []

    def progress(n):
        played.append(n)
        if len(played) == 2:
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt, match=r"^interrupted after 40 of 200 games; a tournament writes nothing"):
        tournament.play_tournament(profiles.load("kalooki40"), ["greedy"] * 4, 200, 1, progress=progress, workers=2)
    real = tournament.play_tournament
    monkeypatch.setattr(tournament, "play_tournament", lambda *a, **k: real(*a, **{**k, "progress": progress}))
    played.clear()
    rc, out, err = run_cli(capsys, "tournament", "--bots", "greedy,greedy,greedy,greedy", "--games", "200")
    assert rc == 130 and out == ""
    assert err == "kalooki tournament: interrupted after 40 of 200 games; a tournament writes nothing, so run it " \
                  "again to play it\n"


# ---------------------------------------------------------------------------------------------
# packaging

def test_pyproject_lists_every_code_package():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    listed = set(data["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for top in ("sim", "analysis")
             for p in (ROOT / top).rglob("__init__.py")}
    assert found <= listed, f"add {sorted(found - listed)} to [tool.setuptools] packages in pyproject.toml"
    shipped = {f"sim.configs.{d.name}" for d in (ROOT / "configs").iterdir() if d.is_dir()}
    assert shipped <= listed


@pytest.mark.slow
def test_the_wheel_installed_elsewhere_finds_its_profiles(tmp_path):
    """pip wheel, install into a fresh venv (its dependencies from this one), run from outside the repo."""
    wheels, venv, elsewhere = tmp_path / "wheels", tmp_path / "venv", tmp_path / "elsewhere"
    elsewhere.mkdir()
    src = tmp_path / "src"  # a copy: building writes build/ and *.egg-info next to the sources
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "sim", "analysis", "configs"):
        copy = shutil.copytree if (ROOT / name).is_dir() else shutil.copy
        copy(ROOT / name, src / name, **({"ignore": shutil.ignore_patterns("__pycache__")}
                                         if (ROOT / name).is_dir() else {}))
    build = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(src)]
    # with this environment's setuptools and wheel if it has them, else in pip's isolated build env
    if subprocess.run(build + ["--no-build-isolation"], capture_output=True, timeout=300).returncode != 0:
        subprocess.run(build, check=True, capture_output=True, timeout=300)
    (wheel,) = wheels.glob("kalooki_lab-*.whl")
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)],
                   check=True, timeout=120)
    py = venv / "bin" / "python"
    site = subprocess.run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    # numpy, numba, ray ... come from this test's environment (appended after the venv's own packages)
    (Path(site) / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-deps", str(wheel)],
                   check=True, capture_output=True, timeout=300)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",)}
    kalooki = str(venv / "bin" / "kalooki")
    code = ("import sim, sim.resources as r; print(sim.__file__); print(r.config_root()); "
            "print(r.names('runs'), r.config_file('bots.toml').is_file() and r.config_file('thresholds.toml').is_file())")
    where = subprocess.run([py, "-c", code], cwd=elsewhere, env=env, capture_output=True, text=True,
                           check=True).stdout
    assert str(venv) in where and str(ROOT) not in where, where
    shipped = sorted(f.stem for f in (ROOT / "configs" / "runs").glob("*.toml"))
    assert f"{shipped} True" in where, where
    listed = subprocess.run([kalooki, "profiles"], cwd=elsewhere, env=env, capture_output=True, text=True)
    assert listed.returncode == 0, listed.stderr
    assert [l.split()[0] for l in listed.stdout.splitlines()[1:] if not l.startswith(" ")] == profiles.available()
    shown = subprocess.run([kalooki, "profiles", "show", "kalooki40"], cwd=elsewhere, env=env,
                           capture_output=True, text=True)
    assert shown.returncode == 0, shown.stderr
    assert re.search(r"^opening_min\s+40\s+points of new melds", shown.stdout, flags=re.M), shown.stdout


def test_simulate_config_by_the_name_of_a_shipped_run_config(tmp_path, capsys):
    out = tmp_path / "run"
    rc, _, err = run_cli(capsys, "simulate", "--config", "smoke", "--local", "--profile", "kalooki40", "--games", "1",
                         "--out", out)
    assert rc == 0, err
    config = json.loads((out / "manifest.json").read_text())["config"]
    smoke = tomllib.loads((ROOT / "configs" / "runs" / "smoke.toml").read_text())
    assert (config["seed"], config["shard_games"], config["events"]) == (smoke["seed"], smoke["shard_games"], "turns")
    rc, _, err = run_cli(capsys, "simulate", "--config", "nosuch", "--out", tmp_path / "other")
    assert rc == 2 and "nosuch" in err and not (tmp_path / "other").exists()
