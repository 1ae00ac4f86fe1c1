"""Benchmark of `kalooki report`: synthesise a large schema-valid run, time the report, measure memory,
reading the shards' summary files and (beside it) summarising every shard's rows.

The synthetic run is random but shaped like a real one (games of several hands, void re-deals,
one winner per played hand, the deal rotating clockwise, eliminations and buy-ins, Kalookis), and is
written through ``sim.runformat`` (the runner's layout and manifest, to a local path or any URI), so
the report verifies, loads and analyses it as it would a real run.  The report runs in a child
process so its peak RSS is its own.

    python -m bench.report [ROWS]
"""
from __future__ import annotations

import json
import logging
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

from analysis.summaries import write_shard_summary
from sim import runformat, schema

ROOT = Path(__file__).resolve().parent.parent  # the checkout holding bench/, for the child processes

DEFAULT_PROFILES = {
    "kalooki40": {"n_players": 4, "bots": ["greedy", "greedy", "cautious", "cautious"], "mean_hands": 12,
                  "void_rate": 0.03, "stall_rate": 0.002, "kalooki_rate": 0.04, "eliminate_rate": 0.03,
                  "opening_min": 40},
    "kalooki51": {"n_players": 4, "bots": ["greedy", "greedy", "cautious", "cautious"], "mean_hands": 9,
                  "void_rate": 0.02, "stall_rate": 0.002, "kalooki_rate": 0.0, "eliminate_rate": 0.0,
                  "opening_min": 51},
}


def _strings(value_or_values, indices=None, n=None) -> pa.Array:
    """A string column built from a dictionary (fast for millions of repeated values)."""
    if indices is None:
        indices = np.zeros(n, dtype=np.int8)
        value_or_values = [value_or_values]
    mask = indices < 0
    codes = pa.array(np.where(mask, 0, indices).astype(np.int8), mask=mask if mask.any() else None)
    return pa.DictionaryArray.from_arrays(codes, pa.array(value_or_values, pa.string())).cast(pa.string())


def _within(counts: np.ndarray) -> np.ndarray:
    """0, 1, ..., c-1 for each count c, concatenated."""
    starts = np.repeat(np.cumsum(counts) - counts, counts)
    return np.arange(counts.sum()) - starts


def synthesize_profile(rng: np.random.Generator, name: str, spec: dict, rows: int, run_id: str) -> tuple[dict, dict]:
    """Columns of `hands` (about `rows` rows) and `games` for one profile, as numpy arrays by name."""
    n = spec["n_players"]
    mean_deals = spec["mean_hands"] * (1 + spec["void_rate"])
    n_games = max(1, int(round(rows / (n * mean_deals))))
    hands_played = 1 + rng.poisson(spec["mean_hands"] - 1, n_games)
    hand_game = np.repeat(np.arange(n_games), hands_played)
    hand_no = _within(hands_played) + 1
    redeals = rng.geometric(1 - spec["void_rate"], hand_game.size) - 1
    deal_hand = np.repeat(np.arange(hand_game.size), 1 + redeals)
    redeal_no = _within(1 + redeals)
    void = redeal_no < redeals[deal_hand]
    deal_game = hand_game[deal_hand]
    deal_hand_no = hand_no[deal_hand]
    n_deals = deal_hand.size
    stalled = ~void & (rng.random(n_deals) < spec["stall_rate"])
    played = ~void & ~stalled
    first_dealer = rng.integers(0, n, n_games)
    dealer = (first_dealer[deal_game] + deal_hand_no - 1) % n
    weights = np.ones(n)
    weights[-1] = 1.05  # a small dealer's edge, for the fairness section to find
    winner_sfd = rng.choice(np.arange(1, n + 1), size=n_deals, p=weights / weights.sum())
    winner = (dealer + winner_sfd) % n
    rounds = np.where(void, 15 + rng.poisson(5, n_deals), np.where(stalled, 60, 2 + rng.poisson(7, n_deals)))
    reshuffles = np.where(void, 2, (rng.random(n_deals) < 0.05).astype(int))
    kalooki_deal = played & (rng.random(n_deals) < spec["kalooki_rate"])

    row_deal = np.repeat(np.arange(n_deals), n)
    seat = np.tile(np.arange(n), n_deals)
    size = row_deal.size
    row_dealer = dealer[row_deal]
    sfd = (seat - row_dealer - 1) % n + 1
    won = played[row_deal] & (seat == winner[row_deal])
    jokers = rng.binomial(2, 13 / 108, size)
    max_meld = np.minimum(rng.gamma(4.0, 9.0, size).astype(int) + 10 * jokers, 300)
    can_open = max_meld >= spec["opening_min"]
    row_rounds = rounds[row_deal]
    opened = won | (rng.random(size) < np.where(can_open, 0.9, 0.55))
    open_round = np.where(can_open, 1 + rng.geometric(0.6, size) - 1,
                          rng.integers(1, np.maximum(row_rounds, 1) + 1))
    open_round = np.minimum(open_round, np.maximum(row_rounds, 1))
    open_value = spec["opening_min"] + rng.geometric(0.12, size) - 1
    win_type = np.where(won, np.where(kalooki_deal[row_deal], 1, 0), -1)
    eliminated = played[row_deal] & ~won & (rng.random(size) < spec["eliminate_rate"])
    bought_in = eliminated & (rng.random(size) < 0.5)
    cards_left = np.where(won, 0, rng.integers(1, 14, size))
    penalty = np.where(won, 0, rng.integers(2, 90, size))

    hands = {
        "run_id": _strings(run_id, n=size), "profile": _strings(name, n=size),
        "rules_hash": _strings(f"rules-{name}", n=size), "engine_version": _strings(schema.ENGINE_VERSION, n=size),
        "game_id": deal_game[row_deal], "hand_no": deal_hand_no[row_deal], "redeal_no": redeal_no[row_deal],
        "seat": seat, "seat_from_dealer": sfd, "n_players": np.full(size, n),
        "bot": _strings(spec["bots"], indices=seat), "dealt_jokers": jokers, "dealt_max_meld_value": max_meld,
        "can_open_at_deal": can_open, "opened": opened,
        "open_round": pa.array(open_round.astype(np.int16), mask=~opened),
        "open_value": pa.array(open_value.astype(np.int16), mask=~opened),
        "open_with_discard": opened & (rng.random(size) < 0.2), "melds_laid": rng.integers(0, 5, size),
        "cards_laid_off": rng.integers(0, 4, size), "jokers_taken": rng.integers(0, 2, size), "won": won,
        "win_type": _strings(["call", "kalooki"], indices=win_type), "rounds": row_rounds,
        "cards_left": cards_left, "penalty": penalty, "penalty_total": rng.integers(0, 160, size),
        "eliminated": eliminated, "bought_in": bought_in, "buy_ins_total": rng.integers(0, 3, size),
        "payment": rng.integers(-10, 11, size), "stock_reshuffles": reshuffles[row_deal], "void": void[row_deal],
        "stalled": stalled[row_deal], "table": _strings(",".join(spec["bots"]), n=size),
        "open_layoff_value": pa.array(np.zeros(size, np.int16), mask=~opened),
    }

    game_rows = n_games * n
    game = np.repeat(np.arange(n_games), n)
    game_seat = np.tile(np.arange(n), n_games)
    per_seat = lambda flags: np.bincount(deal_game[row_deal] * n + seat, weights=flags, minlength=game_rows).astype(np.int64)
    game_stalled = rng.random(n_games) < spec["stall_rate"]
    game_winner = rng.integers(0, n, n_games)
    game_won = (game_seat == game_winner[game]) & ~game_stalled[game]
    keys = rng.random(game_rows) + np.where(game_won, -1.0, 0.0)
    rank = np.argsort(np.argsort(keys.reshape(n_games, n), axis=1), axis=1).ravel() + 1
    games = {
        "run_id": _strings(run_id, n=game_rows), "profile": _strings(name, n=game_rows),
        "rules_hash": _strings(f"rules-{name}", n=game_rows),
        "engine_version": _strings(schema.ENGINE_VERSION, n=game_rows),
        "game_id": game, "seat": game_seat, "n_players": np.full(game_rows, n),
        "bot": _strings(spec["bots"], indices=game_seat), "hands_played": hands_played[game], "won": game_won,
        "finish_rank": rank, "eliminated_count": per_seat(eliminated), "buy_ins": per_seat(bought_in),
        "final_penalty_total": rng.integers(0, 200, game_rows), "net_payment": rng.integers(-30, 31, game_rows),
        "kalookis": per_seat(won & (win_type == 1)), "pool": np.repeat(rng.integers(20, 60, n_games), n),
        "stalled": game_stalled[game], "table": _strings(",".join(spec["bots"]), n=game_rows),
    }
    return hands, games


def _arrow(table: str, columns: dict, rows: slice) -> pa.Table:
    arrow_schema = schema.arrow_schema(table)
    arrays = []
    for f in arrow_schema:
        column = columns[f.name][rows]
        arrays.append(column.cast(f.type) if isinstance(column, pa.Array) else pa.array(column, type=f.type))
    return pa.Table.from_arrays(arrays, schema=arrow_schema)


def synthesize_run(run_dir, rows: int, seed: int = 0, profiles: dict | None = None,
                   shard_rows: int = 1_000_000, engine_version: str = schema.ENGINE_VERSION, summaries: bool = True):
    """Write a synthetic run of about `rows` hands rows (split evenly over `profiles`) to `run_dir`
    (a local path or a URI), each shard with its summary file as the runner writes it (without, as
    runs were written before summary files, when not `summaries`); `run_dir` back."""
    loc = runformat.locate(run_dir, "run")
    profiles = DEFAULT_PROFILES if profiles is None else profiles
    rng = np.random.default_rng(seed)
    run_id = f"synthetic-{seed}-{rows}"
    manifest_profiles, shards = {}, []
    for name, spec in profiles.items():
        hands, games = synthesize_profile(rng, name, spec, rows // len(profiles), run_id)
        n = spec["n_players"]
        n_games = games["game_id"].size // n
        rows_per_game = np.bincount(hands["game_id"], minlength=n_games)
        cut = np.searchsorted(np.cumsum(rows_per_game), np.arange(shard_rows, rows_per_game.sum(), shard_rows))
        bounds = np.unique(np.concatenate([[0], cut + 1, [n_games]]))
        bounds = bounds[bounds <= n_games]
        row_bounds = np.concatenate([[0], np.cumsum(rows_per_game)])
        params = {"opening_min": spec["opening_min"]}
        for index, (g0, g1) in enumerate(zip(bounds[:-1], bounds[1:])):
            files, arrow = {}, {}
            for table, columns, part in (("hands", hands, slice(row_bounds[g0], row_bounds[g1])),
                                         ("games", games, slice(g0 * n, g1 * n))):
                arrow[table] = _arrow(table, columns, part)
                files[table] = runformat.write_table(loc, runformat.shard_path(table, name, index), arrow[table])
            if not summaries:
                shards.append({"profile": name, "index": index, "first_game": int(g0), "n_games": int(g1 - g0),
                               "files": files})
                continue
            # the shard's summary file, made by the function the runner's worker calls
            files[runformat.SUMMARY] = write_shard_summary(loc, name, index, arrow["hands"], arrow["games"],
                                                           {"profiles": {name: {"params": params}}})
            shards.append({"profile": name, "index": index, "first_game": int(g0), "n_games": int(g1 - g0),
                           "files": files})
        manifest_profiles[name] = {"rules_hash": f"rules-{name}", "params": params,
                                   "games": int(n_games), "n_players": n, "bots": spec["bots"],
                                   "shards_planned": int(len(bounds) - 1)}
    manifest = {"format": runformat.RUN_FORMAT, "schema_version": schema.SCHEMA_VERSION,
                "engine_version": engine_version, "run_id": run_id, "created": "synthetic",
                "command": f"python -m bench.report {rows}", "seed": seed, "config": {"synthetic": True},
                "package_versions": {"numpy": np.__version__, "pyarrow": pa.__version__},
                "profiles": manifest_profiles, "shards": shards, "complete": True}
    runformat.write_manifest(loc, manifest)
    return run_dir


def _report_child(run_dir: str, out_dir: str, from_rows: bool = False) -> None:
    from analysis import summaries
    from analysis.report import write_report
    if from_rows:  # today's path before summary files: every shard's rows read and summarised
        os.environ[summaries.FROM_ROWS_ENV] = "1"
    read_from = {}  # which way each shard was read, from the summariser's log line

    class Noted(logging.Handler):
        def emit(self, record):
            read_from.update(getattr(record, "read_from", {}))
    summaries.log.addHandler(Noted())
    summaries.log.setLevel(logging.INFO)
    start = time.perf_counter()
    write_report(run_dir, out_dir)
    wall = time.perf_counter() - start
    me, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = me.ru_utime + me.ru_stime + workers.ru_utime + workers.ru_stime  # unaffected by other load
    # Linux reports KiB; a worker process's peak is its own (RUSAGE_CHILDREN: the largest worker)
    print(json.dumps({"report_wall_s": round(wall, 2), "report_cpu_s": round(cpu, 2),
                      "report_peak_rss_mb": round(me.ru_maxrss / 1024, 1),
                      "worker_peak_rss_mb": round(workers.ru_maxrss / 1024, 1),
                      "shards_read_from": read_from}))


def replicate_run(source, target, copies: int) -> Path:
    """A local run of `copies` times `source`'s shards (hard links where the filesystem allows, else
    copies), listed as distinct shards: a large run for the report benchmark from a smaller one.  A
    copy's summary file is its source shard's: its tables are the same bytes (the same game ids), so
    summarising them gives that summary exactly."""
    import shutil
    source, target = Path(source), Path(target)
    manifest = json.loads((source / "manifest.json").read_text())
    shards = []
    for copy in range(copies):
        for shard in manifest["shards"]:
            files = {}
            for table, entry in shard["files"].items():
                rel = entry["path"].replace("part-", f"part-c{copy:03d}-")
                (target / rel).parent.mkdir(parents=True, exist_ok=True)
                try:
                    os.link(source / entry["path"], target / rel)
                except OSError:
                    shutil.copyfile(source / entry["path"], target / rel)
                files[table] = {**entry, "path": rel}
            planned = manifest["profiles"][shard["profile"]]["shards_planned"]
            shards.append({**shard, "index": copy * planned + shard["index"], "files": files})
    for info in manifest["profiles"].values():
        info["shards_planned"] = info["shards_planned"] * copies
        info["games"] = info["games"] * copies
    manifest["shards"] = shards
    (target / "manifest.json").write_text(json.dumps(manifest, indent=1))
    return target


def _child(*args: str) -> str:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    done = subprocess.run([sys.executable, "-m", "bench.report", *args], capture_output=True, text=True, env=env)
    if done.returncode:
        raise RuntimeError(f"bench child {args[0]} failed:\n{done.stderr}")
    return done.stdout


def run(rows: int = 10_000_000, seed: int = 0, keep: str | None = None, base_rows: int = 10_000_000,
        from_rows: bool = True) -> dict:
    """Synthesise about `rows` hands rows, run write_report on them reading the shards' summary files;
    its wall and CPU time and peak RSS.  With `from_rows` the same report again summarising every
    shard's rows (the path of runs without summary files), and whether the two reports' tables are
    the same bytes.  Above `base_rows` a run of `base_rows` rows is synthesised (the synthesiser holds
    it in memory) and repeated as distinct shards (local only).  `keep`: where the synthetic run goes
    (a path or a URI), kept afterwards; default a temporary folder.

    Synthesis and each report run in a fresh child process: Linux keeps a process's peak RSS across
    exec, so a child forked from a big parent would report the parent's memory as its own.
    """
    base_rows = min(rows, base_rows)
    copies = max(1, round(rows / base_rows))
    with tempfile.TemporaryDirectory(prefix="kalooki-bench-") as tmp:
        base_dir = str(Path(tmp) / "base") if copies > 1 or not keep else str(keep)
        start = time.perf_counter()
        _child("--synthesize", base_dir, str(base_rows), str(seed))
        run_dir = str(replicate_run(base_dir, keep or Path(tmp) / "run", copies)) if copies > 1 else base_dir
        synth = time.perf_counter() - start
        reports = {"summaries": Path(tmp) / "report-summaries", "rows": Path(tmp) / "report-rows"}
        out = {"from_summaries": json.loads(_child("--report-only", run_dir, str(reports["summaries"]))
                                            .splitlines()[-1])}
        if from_rows:
            out["from_rows"] = json.loads(_child("--report-only", run_dir, str(reports["rows"]), "--from-rows")
                                          .splitlines()[-1])
            out["same_tables"] = _same_files(reports["summaries"] / "data", reports["rows"] / "data")
            out["rows_over_summaries_wall"] = round(out["from_rows"]["report_wall_s"]
                                                    / out["from_summaries"]["report_wall_s"], 1)
        manifest = runformat.read_manifest(runformat.locate_run(run_dir))
        size = lambda kind: round(sum(s["files"][kind]["bytes"] for s in manifest["shards"]
                                      if kind in s["files"]) / 2**20, 1)
        return {"rows": sum(s["files"]["hands"]["rows"] for s in manifest["shards"]),
                "shards": len(manifest["shards"]), "synthesis_s": round(synth, 2),
                "hands_games_parquet_mb": round(size("hands") + size("games"), 1),
                "summary_files_mb": size(runformat.SUMMARY), **out}


def _same_files(a: Path, b: Path) -> bool:
    """The two folders hold the same files, byte for byte (the report's tables as CSV)."""
    names = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    return bool(names) and names == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file()) and all(
        (a / n).read_bytes() == (b / n).read_bytes() for n in names)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--report-only"]:
        _report_child(argv[1], argv[2], from_rows=argv[3:4] == ["--from-rows"])
        return 0
    if argv[:1] == ["--synthesize"]:
        synthesize_run(argv[1], int(argv[2]), int(argv[3]))
        return 0
    rows = int(float(argv[0])) if argv else 10_000_000
    for key, value in run(rows).items():
        print(f"{key:20s} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
