"""`kalooki frontier`: play each profile at tables of one bot per rung of the bot ladder (game g starts
from the same deal at every rung) and print how each headline metric moves from rung to rung and
whether it has converged."""
from __future__ import annotations

import sys

from .common import add_force_arg, add_ray_args, add_seed_arg, command_line, positive_int, show_progress
from .simulate import config_path


def register(sub):
    from ..skill import DEFAULT_PROFILES
    p = sub.add_parser("frontier", help="play every profile at one-bot tables per rung of the bot ladder and say "
                                        "where the metrics stop moving",
                       description="Plays --games games of each --profile at tables of four of the same bot, once "
                                   "per rung of the bot ladder (greedy, expert, search: those registered; each "
                                   "rung beats the one below at the game, measured by `kalooki ladder`; the "
                                   "lookahead, not measured stronger than the expert at the game, is not a rung), "
                                   "game g starting from the same deal at every rung, into RUN/frontier/RUNG (one "
                                   "run each) and RUN/frontier/frontier.json, RUN being --out (the run's folder, whether or not the run exists yet; `kalooki report RUN` "
                                   "shows the frontier).  A new frontier is played in RUN/.frontier.partial and "
                                   "moved into place when complete, so a stop never leaves half a frontier and the "
                                   "same command resumes it; a frontier of the same settings is added to (rungs "
                                   "not in --rungs are kept); one of other settings is replaced only with --force.  "
                                   "Prints each headline metric by rung and whether it has converged, and the rungs' "
                                   "order at the game: measured by a ladder study (--ladder, or RUN/ladder), else "
                                   "the ladder's design, said as such.")
    p.add_argument("--profile", action="append", dest="profiles", metavar="P",
                   help=f"rule profile, repeatable (default: the run config's profiles, else "
                        f"{', '.join(DEFAULT_PROFILES)})")
    p.add_argument("--set", action="append", dest="sets", default=[], metavar="KEY=VALUE",
                   help="override a profile parameter, repeatable (default: none)")
    p.add_argument("--config", metavar="FILE",
                   help="run config TOML, a path or a shipped name (default, paired, smoke): its profiles, games, "
                        "seed, players, rule overrides and bot parameters; its tables are replaced by the rungs "
                        "(default: none)")
    p.add_argument("--games", type=positive_int, metavar="N", help="games per profile and rung (default: the run "
                                                                    "config's)")
    add_seed_arg(p, default=None, what="run seed, the same at every rung", default_text="the run config's, else 1")
    p.add_argument("--rungs", metavar="A,B,...",
                   help="the ladder's rungs to play, two or more, only rungs of the ladder (a bot off it, such as the "
                        "lookahead, is not a rung) (default: every registered bot of greedy, expert, search)")
    p.add_argument("--players", type=int, metavar="K", help="players per table (default: the run config's, else 4)")
    p.add_argument("--out", metavar="RUN", help="the run's folder: a path or a URI (file:///..., s3://...); the "
                                                "frontier goes to RUN/frontier (default: the run config's out)")
    p.add_argument("--ladder", metavar="STUDY",
                   help="a ladder study (`kalooki ladder`: its folder, or a run's folder holding one in RUN/ladder) "
                        "whose order of the rungs, measured at the game, decides which rungs stand for strong play "
                        "(default: RUN/ladder where it exists, else the ladder's order by design, said as such)")
    add_force_arg(p, help="replace a frontier of other settings in RUN/frontier (once the new one is complete) "
                          "(default: off)")
    add_ray_args(p, "games per shard (default: the run config's, else 500)", count=positive_int)
    p.set_defaults(func=run)


def _command(args) -> str:
    return command_line("frontier", args, (("--games", args.games), ("--seed", args.seed), ("--rungs", args.rungs),
                                           ("--players", args.players), ("--out", args.out),
                                           ("--shard-games", args.shard_games)), (("--local", args.local),))


def run(args):
    from analysis import ladder as measured_ladder
    from analysis.summaries import write_shard_summary

    from .. import frontier, runconfig
    from ..errors import UserError
    ladder_at = None
    if args.ladder is not None:  # checked before anything is played
        ladder_at = measured_ladder.find(args.ladder)
        if ladder_at is None:
            raise UserError(f"--ladder {args.ladder}: no ladder study there (no ladder.json in it or in "
                            f"{args.ladder}/ladder); `kalooki ladder --out RUN` writes one to RUN/ladder")
        measured_ladder.read_document(ladder_at)
    rungs = frontier.parse_rungs(args.rungs)
    file_values = runconfig.read_run_config(config_path(args.config)) if args.config else None
    study = frontier.plan(file_values, args.config, profiles=args.profiles, games=args.games, seed=args.seed,
                          out=args.out, rungs=rungs, players=args.players, workers=args.workers,
                          shard_games=args.shard_games, sets=args.sets)
    quiet = args.quiet

    def log(msg):  # each rung's progress and closing line (stdout keeps the frontier's table)
        if not quiet:
            print(msg, file=sys.stderr)

    frontier.run(study, command=_command(args), summarise=write_shard_summary, local=args.local, address=args.address,
                 progress=show_progress(args), log=log, force=args.force)
    from analysis.frontier import load_frontier, terminal_lines
    if ladder_at is None:
        ladder_at = measured_ladder.find_in_run(args.out if args.out else str(file_values["out"]))
    order = measured_ladder.load_ladder(ladder_at) if ladder_at is not None else None
    print("\n".join(terminal_lines(load_frontier(study.out, ladder=order))))
    print(f"frontier: {study.out}")
    return 0
