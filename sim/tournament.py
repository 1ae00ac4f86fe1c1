"""Tournaments: the same bots at one table with seats rotated game by game, to rank bot strength."""
from __future__ import annotations

import pyarrow as pa

from .records import ShardSpec, play_shard


def play_tournament(profile, bots: list[str], games: int, seed: int, bot_params=None, progress=None) -> dict:
    """Game g seats bot ``bots[(s + g) % n]`` at seat s; returns concatenated hands and games tables."""
    n = len(bots)
    hands, game_tabs = [], []
    for g in range(games):
        rot = g % n
        seating = [bots[(s + rot) % n] for s in range(n)]
        t = play_shard(ShardSpec(profile, seating, seed=seed, first_game=g, n_games=1, run_id="tournament",
                                 bot_params=bot_params or {}))
        hands.append(t["hands"])
        game_tabs.append(t["games"])
        if progress:
            progress(1)
    return {"hands": pa.concat_tables(hands), "games": pa.concat_tables(game_tabs)}
