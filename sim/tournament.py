"""Tournaments: the same bots at one table with seats rotated game by game, to rank bot strength.

Game g seats bot ``bots[(s + g) % n]`` at seat s.  Chunks of games may be played in several
processes; every game depends only on (seed, profile, game number), so the tables are the same
whatever the number of workers.
"""
from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor

import pyarrow as pa

from .records import ShardSpec, play_shard


def _chunk(spec: ShardSpec):
    return play_shard(spec)


def play_tournament(profile, bots: list[str], games: int, seed: int, bot_params=None, progress=None,
                    workers: int = 1, chunk: int = 20) -> dict:
    specs = [ShardSpec(profile, list(bots), seed=seed, first_game=g, n_games=min(chunk, games - g),
                       run_id="tournament", bot_params=bot_params or {}, rotate=True)
             for g in range(0, games, chunk)]
    results = []
    if workers <= 1:
        for spec in specs:
            results.append(play_shard(spec))
            if progress:
                progress(spec.n_games)
    else:
        with ProcessPoolExecutor(workers) as pool:
            for spec, res in zip(specs, pool.map(_chunk, specs)):
                results.append(res)
                if progress:
                    progress(spec.n_games)
    return {k: pa.concat_tables([r[k] for r in results]) for k in ("hands", "games")}
