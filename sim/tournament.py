"""Tournaments: the same bots at one table with seats rotated game by game, to rank bot strength.

Game g seats bot ``bots[(s + g) % n]`` at seat s.  Chunks of games may be played in several
processes; every game depends only on (seed, profile, game number), so the tables are the same
whatever the number of workers.

A duplicate tournament (``duplicate=True``) plays each deal once per rotation of the bots: games
``d*n .. d*n + n-1`` are rotations 0..n-1 of deal d, all from deal d's random stream (the same shuffled
pack, the same first dealer, the same seat-by-seat bot streams), so in every rotation the same cards
reach the same seats and only the bot holding them changes.  The stock is seat-keyed (sim.engine): a
stock draw takes the card the drawer's seat ranks highest among those left, a uniformly random stock
card as in any game, so the cards a seat draws stay the same across rotations even after the bots play
differently (from the top of a stock, one discard taken instead of a stock card would shift every later
draw of every seat).  Its estimates are averages over deals of each bot's per-deal average over the
rotations (``sim.commands.tournament.deal_level``), with t intervals over deals: the luck of the
cards, which every bot met once per seat, drops out of the interval.
"""
from __future__ import annotations

import signal
from concurrent.futures import ProcessPoolExecutor

import pyarrow as pa

from .errors import is_interrupt
from .records import ShardSpec, play_shard
from .words import counted


def _chunk(spec: ShardSpec):
    return play_shard(spec)


def play_tournament(profile, bots: list[str], games: int, seed: int, bot_params=None, progress=None,
                    workers: int = 1, chunk: int = 20, duplicate: bool = False) -> dict:
    """The hands and games tables of ``games`` games (with ``duplicate``, games // len(bots) deals)."""
    if duplicate and games % len(bots):
        raise ValueError(f"a duplicate tournament plays whole deals: games ({games}) must be a multiple of "
                         f"the {len(bots)} seats")
    specs = [ShardSpec(profile, list(bots), seed=seed, first_game=g, n_games=min(chunk, games - g),
                       run_id="tournament", bot_params=bot_params or {}, rotate=True, duplicate=duplicate)
             for g in range(0, games, chunk)]
    results = []
    try:
        if workers <= 1:
            for spec in specs:
                results.append(play_shard(spec))
                if progress:
                    progress(spec.n_games)
        else:
            pool = ProcessPoolExecutor(workers, initializer=_leave_interrupts_to_the_parent)
            try:
                for spec, res in zip(specs, pool.map(_chunk, specs)):
                    results.append(res)
                    if progress:
                        progress(spec.n_games)
            finally:
                pool.shutdown(wait=True, cancel_futures=True)  # on an interrupt: the chunks under way only
    except BaseException as e:
        if not is_interrupt(e):
            raise
        played = sum(spec.n_games for spec in specs[:len(results)])
        raise KeyboardInterrupt(f"interrupted after {played} of {counted(games, 'game')}; a tournament writes nothing, "
                                "so run it again to play it") from None
    return {k: pa.concat_tables([r[k] for r in results]) for k in ("hands", "games")}


def _leave_interrupts_to_the_parent() -> None:
    """A pool worker ignores Ctrl-C (the terminal sends it to every process of the command): the parent
    stops the tournament and says so in one line, with no traceback from each worker."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
