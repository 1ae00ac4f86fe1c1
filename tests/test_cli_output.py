"""What the `kalooki` command prints, run as a user runs it: usage errors in one line, the compile
announced only when it happens, words in the singular where there is one, no escape codes, table
labels whole, and seats numbered from 0 with positions named by order of play."""
from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest

from sim.cli import main

ROOT = Path(__file__).resolve().parent.parent


def run_cli(capsys, *argv):
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


# ---------------------------------------------------------------------------------------------
# usage errors: one line, naming what is allowed, pointing to -h

@pytest.mark.parametrize("argv, prog, says", [
    ([], "kalooki", "the following arguments are required: COMMAND"),
    (["plya"], "kalooki", "invalid choice: 'plya' (choose from 'profiles', 'meld',"),
    (["plya"], "kalooki", "'); did you mean 'play'? "),
    (["tournament", "--bots", "greedy,greedy,greedy"], "kalooki tournament",
     "the following arguments are required: --games"),
    (["play", "--sed", "3"], "kalooki play", "unrecognized arguments: --sed 3 (did you mean --seed?)"),
    (["play", "--colour"], "kalooki play", "unrecognized argument: --colour (options: --bots, --game, --help,"),
    (["play", "--seed", "x"], "kalooki play", "argument --seed: 'x' is not an integer; allowed: 0.."),
    (["profiles", "shwo"], "kalooki profiles", "(choose from 'list', 'show', 'diff'); did you mean 'show'?"),
])
def test_a_usage_error_is_one_line_naming_what_is_allowed(argv, prog, says, capsys):
    rc, out, err = run_cli(capsys, *argv)
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and "usage:" not in err, err
    assert err.startswith(f"{prog}: error: ") and says in err, err
    assert err.rstrip().endswith(f"`{prog} -h` lists the {'commands' if prog == 'kalooki' else 'options'}")


def test_help_still_prints_the_usage_and_every_option(capsys):
    rc, out, err = run_cli(capsys, "play", "-h")
    assert rc == 0 and err == ""
    assert out.startswith("usage: kalooki play [-h]") and "--summary" in out and "-q, --quiet" in out


# ---------------------------------------------------------------------------------------------
# the compile on a cold numba cache: announced on stderr by warm_up's own announcement, not with -q

@pytest.fixture
def cold_cache(tmp_path, monkeypatch):
    """The kernels look absent from the cache (warm_up's stamps kept elsewhere), and warm_up compiles
    (here: loads) them in this process only, so that the test stays small."""
    from sim.bots import hand_loop as HL
    monkeypatch.setattr(HL, "_stamp_path", lambda part: tmp_path / f"{part}.stamp")
    monkeypatch.setattr(HL.os, "cpu_count", lambda: 1)
    return tmp_path


@pytest.mark.parametrize("argv", [
    ["play", "--summary", "--seed", "2"],
    ["tournament", "--bots", "greedy,greedy,greedy", "--games", "1"],
    ["meld", "7H", "8H", "9H"],
])
def test_play_tournament_and_meld_announce_a_compile_on_a_cold_cache_only(argv, cold_cache, capsys):
    rc, out, err = run_cli(capsys, *argv)
    assert rc == 0 and out
    assert re.fullmatch(r"compiling the simulation kernels for [a-z, ]+ tables \(first run only, about .*\)\n",
                        err), err
    rc, again, err = run_cli(capsys, *argv)  # the cache now holds them
    assert rc == 0 and again == out and err == ""


def test_quiet_keeps_the_compile_announcement_off(cold_cache, capsys):
    rc, out, err = run_cli(capsys, "meld", "-q", "7H", "8H", "9H")
    assert rc == 0 and "max meld value: 24" in out and err == ""
    assert (cold_cache / "loop.stamp").exists(), "the kernels were not warmed up"


# ---------------------------------------------------------------------------------------------
# no escape codes: Ray's colorama leaves a reset code (ESC[0m) for the terminal at exit

def _on_a_terminal(code: str) -> tuple[int, bytes]:
    """Run ``code`` in a new Python with stdout and stderr on a pseudo-terminal: (status, bytes shown)."""
    master, slave = pty.openpty()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
    proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.DEVNULL, stdout=slave, stderr=slave,
                            env=env, cwd=ROOT)
    os.close(slave)
    shown = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        shown += chunk
    os.close(master)
    return proc.wait(timeout=120), shown


RAY_STARTED = "import ray.autoscaler._private.cli_logger\n"  # what ray.init loads: colorama, and its exit hook


def test_no_escape_code_at_exit_on_a_terminal_after_ray_started():
    rc, shown = _on_a_terminal(RAY_STARTED)
    assert rc == 0 and b"\x1b[0m" in shown, "Ray's exit hook is gone: this test no longer tests anything"
    rc, shown = _on_a_terminal(RAY_STARTED + "import sys\nfrom sim.cli import main\n"
                               "sys.exit(main(['profiles', '-q']))\n")
    assert rc == 0 and b"kalooki40" in shown
    assert b"\x1b" not in shown, shown[-200:]


def test_no_escape_code_in_output_that_is_not_a_terminal(capsys):
    rc, out, err = run_cli(capsys, "tournament", "--bots", "greedy,greedy,greedy", "--games", "3", "--seed", "4")
    assert rc == 0 and "greedy" in out
    assert "\x1b" not in out + err
