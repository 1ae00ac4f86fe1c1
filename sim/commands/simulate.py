"""`kalooki simulate`: play many games over Ray workers (or in-process) into a resumable Parquet run."""
from __future__ import annotations

import shlex

from .common import add_profile_args


def register(sub):
    p = sub.add_parser("simulate", help="simulate games on Ray workers and write the run's Parquet dataset",
                       description="Play --games games of each --profile, split into shards of whole games "
                                   "over Ray workers, into OUT/{hands,games[,turns]}/profile=P/part-NNNNN.parquet "
                                   "and OUT/manifest.json.  Re-running the same command resumes an interrupted "
                                   "run; a run config (--config FILE) holds the same keys, flags override it.")
    add_profile_args(p, multiple=True)
    p.add_argument("--config", metavar="FILE", help="run config TOML (configs/runs/*.toml); flags override its keys")
    p.add_argument("--games", type=int, metavar="N", help="games per profile")
    p.add_argument("--seed", type=int, metavar="S", help="run seed (a game depends only on seed, profile, game number)")
    p.add_argument("--out", metavar="DIR", help="output directory: a path or a URI (file:///..., s3://...)")
    p.add_argument("--bots", metavar="A,B,C,D", help="one table: a bot per seat, seats rotated game by game "
                   "(default greedy in every seat)")
    p.add_argument("--tables", metavar="MIX",
                   help="a weighted mix of table compositions, ';'-separated [NAME=]BOTS[:WEIGHT], e.g. "
                        "'casual=greedy,greedy,greedy,greedy:1; strong=expert,expert,expert,expert:1' "
                        "(each game draws one; seats rotate game by game)")
    p.add_argument("--paired", action="store_true", default=None,
                   help="common deals: game g of every profile is dealt from the same shuffled pack "
                        "(profiles must share the pack, players, hand size)")
    p.add_argument("--players", type=int, metavar="K", help="players per game (default: the profile's)")
    p.add_argument("--workers", type=int, metavar="W", help="Ray workers (default: every core)")
    p.add_argument("--address", metavar="ADDR", help="join this Ray cluster (default: $RAY_ADDRESS, else a local one)")
    p.add_argument("--shard-games", type=int, dest="shard_games", metavar="M",
                   help="games per shard (default 500)")
    p.add_argument("--events", metavar="turns", help="also record every turn (the turns table, for `kalooki replay`)")
    p.add_argument("--local", action="store_true", help="play every shard in this process, without Ray")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def _command(args) -> str:
    parts = ["kalooki", "simulate"]
    if args.config:
        parts += ["--config", args.config]
    for prof in args.profiles or []:
        parts += ["--profile", prof]
    for s in args.sets or []:
        parts += ["--set", s]
    for flag, value in (("--games", args.games), ("--seed", args.seed), ("--out", args.out),
                        ("--bots", args.bots), ("--players", args.players), ("--workers", args.workers),
                        ("--address", args.address), ("--shard-games", args.shard_games),
                        ("--events", args.events), ("--tables", args.tables)):
        if value is not None:
            parts += [flag, str(value)]
    if args.paired:
        parts.append("--paired")
    if args.local:
        parts.append("--local")
    return shlex.join(parts)


def run(args):
    from .. import runner
    file_values = runner.read_run_config(args.config) if args.config else None
    config = runner.make_config(file_values, args.config, profiles=args.profiles, games=args.games,
                                seed=args.seed, out=args.out, bots=args.bots, players=args.players,
                                workers=args.workers, shard_games=args.shard_games, events=args.events,
                                sets=args.sets, tables=args.tables, paired=args.paired)
    runner.run(config, local=args.local, address=args.address, progress=not args.no_progress,
               command=_command(args))
    return 0
