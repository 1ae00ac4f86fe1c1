"""`kalooki simulate`: play many games over Ray workers (or in-process) into a resumable Parquet run."""
from __future__ import annotations

import sys
from pathlib import Path

from .. import resources
from .common import add_profile_args, add_ray_args, add_seed_arg, command_line, show_progress


def register(sub):
    p = sub.add_parser("simulate", help="simulate games on Ray workers and write the run's Parquet dataset",
                       description="Play --games games of each --profile, split into shards of whole games "
                                   "over Ray workers, into OUT/{hands,games[,turns]}/profile=P/part-NNNNN.parquet "
                                   "and OUT/manifest.json.  Re-running the same command resumes an interrupted "
                                   "run; a run config (--config FILE or the name of a shipped one: default, "
                                   "smoke) holds the same keys, flags override it.  Progress goes to stderr "
                                   "(a bar only on a terminal), the summary to stdout.")
    add_profile_args(p, multiple=True)
    p.add_argument("--config", metavar="FILE",
                   help="run config TOML, a path or a shipped name (default, smoke: configs/runs/NAME.toml); "
                        "flags override its keys (default: none)")
    p.add_argument("--games", type=int, metavar="N", help="games per profile (default: the run config's)")
    add_seed_arg(p, default=None, what="run seed (a game depends only on seed, profile and game number)",
                 default_text="the run config's")
    p.add_argument("--out", metavar="DIR",
                   help="output directory: a path or a URI (file:///..., s3://...) (default: the run config's)")
    p.add_argument("--bots", metavar="A,B,C,D", help="one table: a bot per seat, seats rotated game by game "
                   "(default: greedy in every seat)")
    p.add_argument("--tables", metavar="MIX",
                   help="a weighted mix of table compositions, ';'-separated [NAME=]BOTS[:WEIGHT], e.g. "
                        "'casual=greedy,greedy,greedy,greedy:1; strong=expert,expert,expert,expert:1' "
                        "(each game draws one; seats rotate game by game) (default: --bots)")
    p.add_argument("--paired", action="store_true", default=None,
                   help="common deals: game g of every profile is dealt from the same shuffled pack "
                        "(profiles must share the pack, players, hand size) (default: off)")
    p.add_argument("--players", type=int, metavar="K", help="players per game (default: the profile's)")
    add_ray_args(p, "games per shard (default: 500)")
    p.add_argument("--events", metavar="turns",
                   help="'turns' also records every turn, for `kalooki replay` (default: none)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar; --quiet also drops the messages on stderr (default: off)")
    p.set_defaults(func=run)


def _command(args) -> str:
    return command_line("simulate", args, (("--games", args.games), ("--seed", args.seed), ("--out", args.out),
                                           ("--bots", args.bots), ("--players", args.players),
                                           ("--workers", args.workers), ("--address", args.address),
                                           ("--shard-games", args.shard_games), ("--events", args.events),
                                           ("--tables", args.tables)),
                        (("--paired", args.paired), ("--local", args.local)))


def config_path(text: str):
    """--config: a file, else the name of a shipped run config (``configs/runs/NAME.toml``)."""
    if Path(text).exists() or "/" in text or text.endswith(".toml"):
        return text
    shipped = resources.config_file("runs", f"{text}.toml")
    return shipped if shipped.is_file() else text  # a missing file: read_run_config names it


SUMMARY_LINES = ("done:", "nothing to do:")  # how the runner's closing line starts


def _log(msg: str, quiet: bool) -> None:
    """The run's closing summary goes to stdout; what happens on the way (resuming...) to stderr."""
    if msg.startswith(SUMMARY_LINES):
        print(msg)
    elif not quiet:
        print(msg, file=sys.stderr)


def run(args):
    from analysis.summaries import write_shard_summary

    from .. import runconfig, runner
    file_values = runconfig.read_run_config(config_path(args.config)) if args.config else None
    config = runconfig.make_config(file_values, args.config, profiles=args.profiles, games=args.games,
                                   seed=args.seed, out=args.out, bots=args.bots, players=args.players,
                                   workers=args.workers, shard_games=args.shard_games, events=args.events,
                                   sets=args.sets, tables=args.tables, paired=args.paired)
    runner.run(config, summarise=write_shard_summary, local=args.local, address=args.address,
               progress=show_progress(args) and not args.no_progress, command=_command(args),
               log=lambda msg: _log(msg, args.quiet))

    return 0
