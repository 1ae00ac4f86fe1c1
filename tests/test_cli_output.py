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

from sim import profiles
from sim.cli import main

pytestmark = pytest.mark.usefixtures("figures_not_rasterised_in_module")  # figures drawn, not rendered: no test reads them

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
    (["--versoin", "play"], "kalooki", "unrecognized argument: --versoin (did you mean --version?)"),
    (["play", "--sed", "3"], "kalooki play", "unrecognized arguments: --sed 3 (did you mean --seed?)"),
    (["play", "--colour"], "kalooki play", "unrecognized argument: --colour (options: --bots, --game, --help,"),
    (["play", "--seed", "x"], "kalooki play", "argument --seed: 'x' is not an integer; allowed: 0.."),
    (["replay", "runs/x", "--game", "x", "--hand", "1"], "kalooki replay",
     "argument --game: 'x' is not an integer; allowed: 0 or more"),
    (["replay", "runs/x", "--game", "0", "--hand", "0"], "kalooki replay", "argument --hand: 0 is not allowed; allowed: 1"),
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


# ---------------------------------------------------------------------------------------------
# one noun for one thing: "1 card", "1 hand", never "1 cards"

ONE_PLURAL = re.compile(r"(?<![\d.,])(?<!seat )1 (cards|hands|games|deals|players|jokers|turns|seats|parameters differ\b)")


@pytest.mark.parametrize("argv, says", [
    (["play", "--seed", "7", "--bots", "greedy,greedy,random,greedy"], "announces 1 card left"),
    (["play", "--profile", "east_coast", "--game", "--summary", "--seed", "1"], "Game over after 1 hand:"),
    (["meld", "7H"], "hand (1 card, profile kalooki40)"),
    (["deals", "--n", "1", "--seed", "1", "--players", "3"], "(3 players, 13 cards from a pack with 2 jokers), 1 hand,"),
    (["tournament", "--bots", "greedy,greedy,greedy", "--games", "1"], "1 game, "),
    (["tournament", "--bots", "greedy,greedy,greedy", "--games", "3", "--duplicate"], "1 deal, each played"),
    (["profiles", "diff", "kalooki40", "kalooki40", "--set", "opening_min=51"], "1 of "),
])
def test_one_of_a_thing_is_said_in_the_singular(argv, says, capsys):
    rc, out, err = run_cli(capsys, *argv)
    assert rc == 0, err
    assert says in out, out[-500:]
    assert not ONE_PLURAL.search(out), ONE_PLURAL.search(out)[0]
    if argv[:2] == ["profiles", "diff"]:
        assert re.search(r"^1 of \d+ parameters differs between", out, re.M), out


def test_counted_nouns_and_ordinals_are_written_once_for_commands_and_reports():
    """The commands, the transcript and the report's text count with one function (``sim.words``)."""
    from analysis import findings, report
    from sim import transcript, words
    from sim.commands import equity, tournament
    for module in (findings, report, transcript, equity, tournament):
        assert module.counted is words.counted, module.__name__
    assert [words.counted(n, "pass", "passes") for n in (0, 1, 2)] == ["0 passes", "1 pass", "2 passes"]
    assert words.counted(12_000, "game") == "12,000 games"
    assert [words.ordinal(k) for k in (1, 2, 3, 4, 11, 12, 13, 21, 22, 111, 112)] == \
        ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "111th", "112th"]


# ---------------------------------------------------------------------------------------------
# seats: the table's, from 0; places relative to the dealer by order of play; who deals each hand

def _deal_block(out: str) -> tuple[int, list[tuple[int, str]]]:
    """(dealer seat, [(seat, place)] in the printed order) of the first deal in a play transcript."""
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("Dealer: "))
    dealer = int(re.match(r"Dealer: seat (\d+) ", lines[at])[1])
    block = [re.match(r"  seat (\d+) \(\w+\)\s+(\S.*?)\s+dealt \d+: ", line) for line in lines[at + 1:]]
    return dealer, [(int(m[1]), m[2]) for m in block[:next(i for i, m in enumerate(block) if m is None)]]


def test_play_says_who_deals_and_names_places_by_order_of_play(capsys):
    rc, out, err = run_cli(capsys, "play", "--seed", "7", "--bots", "greedy,greedy,random,greedy")
    assert rc == 0, err
    dealer, block = _deal_block(out)
    first = (dealer + 1) % 4
    assert re.search(rf"^Dealer: seat {dealer} \(\w+\), drawn by the seed; seat {first} \(\w+\) is 1st to play$", out, re.M)
    assert block == [((dealer + k) % 4, place) for k, place in
                     enumerate(["1st to play", "2nd to play", "3rd to play", "dealer (plays last)"], 1)]
    first_draw = next(line for line in out.splitlines() if " draws " in line)
    assert first_draw.startswith(f"seat {first} "), "the engine's first player is not the one named 1st to play"
    assert not re.search(r"seat [4-9]", out)


def test_a_game_says_which_seat_deals_each_hand_and_the_deal_passes_to_the_next_seat(capsys):
    argv = ["play", "--profile", "scala40", "--seed", "1", "--bots", "expert,patient,greedy,random", "--game"]
    rc, out, err = run_cli(capsys, *argv)
    assert rc == 0, err
    dealers = [int(d) for d in re.findall(r"^Dealer: seat (\d+) ", out, re.M)]
    limit = profiles.load("scala40").eliminate_above
    in_game, passed_by = [True] * 4, 0
    for h, block in enumerate(re.split(r"^=== Hand \d+$", out, flags=re.M)[1:]):
        if h:  # the next seat still in after the last dealer, the seats out passed by
            after = [(dealers[h - 1] + k) % 4 for k in range(1, 5)]
            assert dealers[h] == next(s for s in after if in_game[s]), (h, dealers, in_game)
            passed_by += dealers[h] != after[0]
        for seat, total in re.findall(r"^  seat (\d) \(\w+\)\s+total\s+(\d+)", block, re.M):
            in_game[int(seat)] = int(total) <= limit
    assert len(dealers) >= 2 and passed_by  # the game passes the deal by a seat out
    assert re.search(r"^Dealer: seat \d \(\w+\), the next seat still in; seat \d \(\w+\) is 1st to play$", out, re.M)
    sheet = out[out.index("\nDeal: "):]
    assert sheet.startswith(f"\nDeal: hand 1 by seat {dealers[0]} (drawn by the seed), each later hand by the next seat")
    rows = re.findall(r"^\s+(\d+)  seat (\d)  seat \d \(", sheet, re.M)
    assert [int(d) for _, d in rows] == dealers, "the score sheet's dealer column is not the transcript's"


def test_tournament_says_how_seats_rotate_and_who_deals(capsys):
    rc, out, err = run_cli(capsys, "tournament", "--bots", "expert,greedy,greedy", "--games", "2", "--seed", "1")
    assert rc == 0, err
    assert "Seats from 0, rotated every game: game 0 seats the bots in --bots order from seat 0" in out
    assert "a game's first dealer is drawn, then the deal passes\nto the next seat still in after each hand." in out
    rc, out, err = run_cli(capsys, "tournament", "--profile", "kalooki51", "--bots", "expert,greedy,greedy",
                           "--games", "1", "--seed", "1")
    assert rc == 0 and "\nto the next seat after each hand." in out, err  # no elimination: every seat stays in


@pytest.fixture(scope="module")
def turns_run(tmp_path_factory):
    from analysis.summaries import write_shard_summary
    from sim import runconfig, runner
    out = tmp_path_factory.mktemp("replay") / "run"
    cfg = runconfig.make_config(None, None, profiles=["kalooki40"], games=2, seed=3, out=str(out), events="turns",
                                bots=["expert", "greedy", "lookahead", "random"])
    runner.run_local(cfg, summarise=write_shard_summary, progress=False, log=lambda m: None)
    return out


def test_replay_says_which_seat_deals_and_each_seats_place_in_the_order_of_play(turns_run, capsys):
    import pyarrow.dataset as ds
    rows = [r for r in ds.dataset(str(turns_run / "hands"), format="parquet").to_table().to_pylist()
            if r["game_id"] == 1 and r["hand_no"] == 2 and r["redeal_no"] == 0]
    rc, out, err = run_cli(capsys, "replay", turns_run, "--game", "1", "--hand", "2")
    assert rc == 0, err
    dealer = next(r["seat"] for r in rows if r["seat_from_dealer"] == len(rows))
    assert f"\n-- deal 0: seat {dealer} deals\n" in out
    places = re.findall(r"^   seat (\d) (\w+)\s+(\S.*)$", out, re.M)
    names = {1: "1st to play", 2: "2nd to play", 3: "3rd to play", 4: "dealer (plays last)"}
    assert places == [(str(r["seat"]), r["bot"], names[r["seat_from_dealer"]])
                      for r in sorted(rows, key=lambda r: r["seat_from_dealer"])]
    left = {r["seat"]: r["cards_left"] for r in rows}
    assert 1 in left.values(), "this hand no longer leaves a seat one card: choose another"
    for seat, n in left.items():
        assert re.search(rf"^  seat {seat} \w+\s+(won|penalty \d+, {n} {'card' if n == 1 else 'cards'} left)", out, re.M)
    assert not ONE_PLURAL.search(out)


# ---------------------------------------------------------------------------------------------
# terminal tables: every line within 100 columns, every metric name or label whole (wrapped, never cut)

def _first_column(lines: list[str], header: str, width: int | None = None, end: str = "") -> list[str]:
    """The row labels of the table under each ``header`` line (in its first ``width`` columns, or up to
    two spaces): a label's further lines (two columns in, nothing else on them) joined to it; a blank
    line or one starting with ``end`` closes a table."""
    names, inside = [], False
    for line in lines:
        if line.startswith(header):
            inside = True
        elif not line.strip() or (end and line.startswith(end)):
            inside = False
        elif inside and line.startswith("  ") and names:
            names[-1] += line.strip() if names[-1].endswith("_") else " " + line.strip()
        elif inside:
            names.append(line[:width].strip() if width else re.split(r"\s{2,}", line)[0])
    return names


def test_compare_prints_every_metric_name_whole_within_100_columns(tmp_path, capsys):
    from analysis import metrics
    run = tmp_path / "run"
    assert main(["simulate", "--local", "-q", "--profile", "kalooki40", "--profile", "scala40", "--games", "3",
                 "--seed", "1", "--out", str(run)]) == 0
    capsys.readouterr()
    rc, out, err = run_cli(capsys, "compare", run, "--profiles", "kalooki40,scala40", "--out", tmp_path / "cmp")
    assert rc == 0, err
    assert max(len(line) for line in out.splitlines() if str(tmp_path) not in line) <= 100  # a path is a path
    names = _first_column(out.splitlines(), "metric ")
    assert "share_players_eliminated_at_least_once" in names and set(names) <= set(metrics.METRIC_INFO), names


def test_frontier_prints_every_metric_name_whole(tmp_path, capsys):
    from analysis import metrics
    rc, out, err = run_cli(capsys, "frontier", "--profile", "kalooki40", "--games", "1", "--seed", "1",
                           "--rungs", "greedy,expert", "--local", "-q", "--out", tmp_path / "run")
    assert rc == 0, err
    assert out.startswith("1 profile(s), 1 game per profile and rung, seed 1, rungs greedy < expert")
    assert max(len(line) for line in out.splitlines() if str(tmp_path) not in line) <= 100  # a path is a path
    names = _first_column(out.splitlines(), "metric ")
    assert "share_players_eliminated_at_least_once" in names and set(names) <= set(metrics.METRIC_INFO), names


def test_sweep_prints_every_label_whole(tmp_path, capsys):
    from analysis import findings, metrics, sweep
    rc, out, err = run_cli(capsys, "sweep", "--profile", "kalooki40", "--param", "opening_min=40,51", "--games", "1",
                           "--seed", "1", "--local", "-q", "--runs", tmp_path / "runs", "--out", tmp_path / "sweep")
    assert rc == 0, err
    assert max(len(line) for line in out.splitlines() if str(tmp_path) not in line) <= 100  # a path is a path
    labels = {findings.show(m, metrics.METRIC_INFO[m][0]).label for m in sweep.KEY_METRICS}
    names = _first_column(out.splitlines(), "metric ", width=30, end="verdict of the change")
    assert "Players eliminated at least once in a game" in names and set(names) <= labels, names


@pytest.mark.parametrize("room", [12, 20, 38])
def test_a_wrapped_label_keeps_every_character_and_fits(room):
    from analysis.terminal import fit_rows, wrap_label
    name = "share_players_eliminated_at_least_once"
    lines = wrap_label(name, room)
    assert all(len(line) <= room for line in lines) and "".join(x.strip() for x in lines) == name
    assert len(lines) == (1 if room >= len(name) else len(lines))
    rows, widths = fit_rows([("metric", "A", "verdict"), (name, "75.0%", "B higher")], 30)
    assert all(len("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()) <= 30 for r in rows)


def test_a_six_seat_game_transcript_fits_100_columns(capsys):
    rc, out, err = run_cli(capsys, "play", "--profile", "kalooki40", "--seed", "3", "--game",
                           "--bots", "greedy,random,greedy,greedy,random,greedy")
    assert rc == 0, err
    assert max(map(len, out.splitlines())) <= 100
    penalties = out[out.index("\nPenalties: "):].splitlines()[1:3]
    assert penalties[1].startswith("  seat "), "the six seats' penalties are not continued on a second line"
