"""The plan of a skill study (``kalooki skill``): which players meet at which tables, and the duplicate
run that plays them.

A study seats a set of players (bots and graded bots, ``sim.bots.graded``) at tables of n seats: every
n-player subset of them when there are more than n (each a composition of equal weight; each deal
draws one), the set itself when there are exactly n, and the set repeated in seat order (a,b,a,b)
when there are fewer.  Every deal is played once per rotation of its table's seats from a seat-keyed
stock (``sim.records``' duplicate games: the same cards reach the same seats, only the player holding
them changes), so the players' differences are measured on the same cards.

The run is an ordinary resumable run of ``sim.runner`` (shards, manifest, Ray or in-process) whose
shards are played as duplicate games; its games table is what ``analysis.skill`` fits.
"""
from __future__ import annotations

import dataclasses
import itertools

from .errors import UserError

# The ladder's bots and the expert weakened by known amounts; their order is what the fit measures
# (analysis.skill lists them by fitted rating, each lead over the next with its interval).
DEFAULT_PLAYERS = ("lookahead", "expert", "expert@0.1", "expert@0.3", "greedy")
DEFAULT_PROFILES = ("kalooki40", "british", "swedish", "kalooki51", "east_coast", "scala40")
SEATS = 4
STUDY_DIR = "skill"  # a run's skill study lives in RUN/skill (what `kalooki report RUN` reads)
# A rough speed before anything is timed, for the time said before a study plays: games a second on
# one core with the default players (kalooki skill's defaults, 7,200 games, took 2 minutes on 2
# cores), and each player's time per game relative to the greedy bot's.
GAMES_PER_CORE_S = 30.0
PLAYER_COST = {"greedy": 1.0, "random": 0.5, "expert": 2.1, "lookahead": 5.7, "search": 56.0}  # sim.frontier.RUNG_COST


def tables_for(players, seats: int = SEATS) -> tuple:
    """The runner's table compositions ({name, bots, weight}) that seat ``players`` ``seats`` at a time."""
    players = list(players)
    if len(set(players)) != len(players):
        raise UserError(f"--players {','.join(players)}: a player is named twice; name each once")
    if len(players) < 2:
        raise UserError(f"--players {','.join(players)}: a study needs at least 2 players")
    if len(players) <= seats:
        bots = [players[s % len(players)] for s in range(seats)]
        return ({"name": ",".join(bots), "bots": ",".join(bots), "weight": 1},)
    return tuple({"name": ",".join(c), "bots": ",".join(c), "weight": 1}
                 for c in itertools.combinations(players, seats))


def duplicate_shard(spec):
    """``sim.runner``'s shard function for a study: the shard's games played as duplicate games (game g is
    rotation g % n of deal g // n)."""
    from .records import play_shard
    return play_shard(dataclasses.replace(spec, duplicate=True))


def study_config(profiles, players, games: int, seed: int, out: str, seats: int = SEATS, workers=None,
                 shard_games: int | None = None, sets=None):
    """The run config of a study; ``games`` per profile, a multiple of ``seats`` (whole deals)."""
    from . import runconfig
    if games <= 0 or games % seats:
        raise UserError(f"--games {games}: each deal is played once per rotation of the {seats} seats, so give "
                        f"a positive multiple of {seats}")
    shard = shard_games or min(games, 25 * seats)
    if shard % seats:
        raise UserError(f"--shard-games {shard}: a shard holds whole deals, so give a multiple of {seats}")
    return runconfig.make_config(None, None, profiles=list(profiles), games=games, seed=seed, out=out,
                                 players=seats, workers=workers, shard_games=shard, events=None, sets=sets or [],
                                 tables=list(tables_for(players, seats)), paired=None, duplicate=True)


def run_study(config, *, summarise, local: bool = False, address=None, progress: bool = False, command=None,
              log=None, label: str = "skill", flag: str = "--out"):
    """Play (or resume) a study's run, each shard's summary file written by ``summarise``;
    ``sim.runner.run``'s result."""
    from . import runner
    return runner.run(config, summarise=summarise, local=local, address=address, progress=progress,
                      shard_fn=duplicate_shard,
                      command=command, log=log or (lambda msg: None), label=label, flag=flag)


def _cost(players) -> float:
    return sum(PLAYER_COST.get(p.partition("@")[0].partition(".")[0], 2.0) for p in players) / len(players)


def estimate_line(n_profiles: int, games: int, players, workers: int | None, local: bool) -> str:
    """The time a study may take, said before anything is planned or played: a rough figure from
    ``GAMES_PER_CORE_S`` scaled by the players' ``PLAYER_COST`` (the run times itself once playing)."""
    import os

    from .runner import duration_text
    cores = 1 if local else (workers or os.cpu_count() or 1)
    total = n_profiles * games
    seconds = total / GAMES_PER_CORE_S / cores * _cost(players) / _cost(DEFAULT_PLAYERS)
    return (f"skill: up to {total:,} games to play ({n_profiles} profile(s) x {games:,}); roughly "
            f"{duration_text(seconds)} on {cores} core(s) before it is timed")
