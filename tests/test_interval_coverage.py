"""Coverage of the report's 95% intervals, checked from outside: many small seeded runs against a
large one.

One run of greedy tables plays KALOOKI_COVERAGE_GAMES games (default 2,000) of kalooki40 (elimination,
a Kaplan-Meier median, buy-ins) and of kalooki51 (rarer reshuffles and void deals) in shards of 20
games; every game is dealt from its own seed key, so each shard is an independent 20-game run and each
five shards in a row an independent 100-game run.  The runs are split in two halves; each half's runs
are judged against the estimate of the other half pooled (a large run they share no game with).  For
every headline proportion, mean, count, median and difference: no interval of zero width, and the
share of runs whose interval covers the pooled estimate close to 95%: its own Wilson 95% interval
(over the runs) overlaps 93-97%.  Metrics whose pooled value is 0 or 1 (an event that never or always
happens) are covered trivially and only checked for width.  ``python tests/test_interval_coverage.py
[GAMES]`` prints the table.
"""
from __future__ import annotations

import os
import sys

import numpy as np
import pandas as pd
import pytest

from analysis import load, metrics, stats, summaries
from analysis.summaries import write_shard_summary
from sim import runconfig, runner

PROFILES = ("kalooki40", "kalooki51")
SHARD = 20
KINDS = ("proportion", "mean", "median", "difference")
BAND = (0.93, 0.97)


def play(out, games: int, seed: int = 45) -> None:
    cfg = runconfig.make_config(None, None, profiles=list(PROFILES), games=games, seed=seed, out=str(out),
                                shard_games=SHARD)
    runner.run_local(cfg, summarise=write_shard_summary, progress=False, log=lambda m: None)


def _shards(run_dir, profile) -> tuple[dict, list[summaries.Summary]]:
    """The run's manifest and each shard's summary (per profile), in shard order."""
    manifest = load.read_manifest(run_dir)
    parts = []
    for name, files, _ in summaries._shard_sources(run_dir, manifest, [profile], ()):
        stored = files[summaries.runformat.SUMMARY]
        part = summaries.read_shard_summary(stored, manifest, False) if stored is not None else None
        if part is None:
            part = summaries._summarise_files(name, files["hands"], files["games"], manifest, False)
        parts.append(summaries.collapse(part))
    return manifest, parts


def _as_profiles(manifest: dict, profile: str, runs: list[list[summaries.Summary]]) -> metrics.RunData:
    """Many runs in one RunData, run i as the profile 'P#i', so one metrics call estimates them all."""
    names = [f"{profile}#{i}" for i in range(len(runs))]
    moments, survival, counts = [], [], {}
    for name, parts in zip(names, runs):
        total = summaries.Summary.empty()
        for part in parts:
            total = total.merge(summaries.Summary(part.moments, part.survival, part.counts))
        moments.append(total.moments.assign(profile=name))
        survival.append(total.survival.assign(profile=name))
        counts[name] = total.counts[profile]
    info = manifest["profiles"][profile]
    summary = summaries.Summary(pd.concat(moments, ignore_index=True), pd.concat(survival, ignore_index=True), counts)
    return metrics.RunData({**manifest, "profiles": {n: info for n in names}}, summary, names)


def _headline(run: metrics.RunData) -> pd.DataFrame:
    """The headline table (metrics.Results.summary) without the tables it does not read."""
    rates = metrics.seat_win_rates(run)
    empty = pd.DataFrame()
    res = metrics.Results(run=run, opening=metrics.opening(run), opened_by_round=empty,
                          open_round_distribution=empty, kalooki=metrics.kalooki_frequency(run),
                          elimination=metrics.elimination(run), survival=empty, shape=metrics.game_shape(run),
                          hands_per_game=empty, seat_rates=rates, seat_tests=metrics.seat_tests(run, rates),
                          dealer_edge=metrics.dealer_edge(run), bot_rates=empty, bot_tests=empty, net_payment=empty,
                          jokers=empty)
    return res.summary


def coverage(run_dir, profile: str, run_games: int) -> pd.DataFrame:
    """Per headline metric: the runs of `run_games` games, how many of their intervals cover the other
    half's pooled estimate, the coverage's Wilson 95% interval, zero-width intervals and the median
    width."""
    manifest, shards = _shards(run_dir, profile)
    per = run_games // SHARD
    runs = [shards[i:i + per] for i in range(0, len(shards) - per + 1, per)]
    halves = (runs[0::2], runs[1::2])
    judged = []
    for mine, other in ((0, 1), (1, 0)):
        pooled = _headline(_as_profiles(manifest, profile, [[s for run in halves[other] for s in run]]))
        est = _headline(_as_profiles(manifest, profile, halves[mine]))
        est = est[est["kind"].isin(KINDS) & est["applicable"].astype(bool)].copy()
        est["truth"] = est["metric"].map(pooled.set_index("metric")["estimate"])
        judged.append(est)
    t = pd.concat(judged, ignore_index=True)
    low, high = t["ci_low"].astype(float), t["ci_high"].astype(float)
    t["covered"] = (low <= t["truth"]) & (t["truth"] <= high)
    t["zero_width"] = high - low == 0
    t["width"] = high - low
    out = t.groupby("metric", sort=False).agg(kind=("kind", "first"), truth=("truth", "mean"),
                                              runs=("covered", "size"), covering=("covered", "sum"),
                                              zero_width=("zero_width", "sum"), width=("width", "median"))
    out["coverage"] = out["covering"] / out["runs"]
    ci = stats.proportion(out["covering"], out["runs"])
    out["coverage_low"], out["coverage_high"] = ci["ci_low"].to_numpy(), ci["ci_high"].to_numpy()
    # an event that never or always happens: every interval of a share at 0 or 1 covers it
    out["trivial"] = (out["kind"] == "proportion") & ((out["truth"] <= 0) | (out["truth"] >= 1))
    return out


@pytest.fixture(scope="module")
def coverage_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("coverage") / "run"
    play(out, int(os.environ.get("KALOOKI_COVERAGE_GAMES", "2000")))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("run_games", [20, 100])
def test_intervals_cover_about_95_percent_and_never_have_zero_width(coverage_run, profile, run_games):
    table = coverage(coverage_run, profile, run_games)
    shown = table.to_string(float_format=lambda v: f"{v:.3f}")
    assert (table["zero_width"] == 0).all(), shown
    live = table[~table["trivial"]]
    assert len(live) >= 12, shown
    off = live[(live["coverage_high"] < BAND[0]) | (live["coverage_low"] > BAND[1])]
    assert off.empty, f"coverage outside {BAND} at {run_games} games:\n{shown}"


if __name__ == "__main__":
    import tempfile
    from pathlib import Path

    pd.set_option("display.width", 200)
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    with tempfile.TemporaryDirectory() as tmp:
        play(Path(tmp) / "run", games)
        for profile in PROFILES:
            for size in (20, 100):
                print(f"{profile}, runs of {size} games")
                print(coverage(Path(tmp) / "run", profile, size).to_string(float_format=lambda v: f"{v:.3f}"))
