"""`kalooki ladder`: each rung of the bot ladder against three of the rung below, in duplicate, measured
at the game (hands won, games won, net payment), with a verdict per rung (the study: ``sim.ladder``;
the measures and verdicts: ``analysis.ladder``)."""
from __future__ import annotations

import argparse
import sys

from ..errors import UserError
from .common import add_force_arg, add_ray_args, add_seed_arg, command_line, positive_int, show_progress

DEFAULT_PROFILES = ("kalooki40", "kalooki51", "scala40")
DEFAULT_GAMES = 400

HELP = """\
Plays each rung of the bot ladder (greedy < expert < search, those registered) at one seat against
three of the rung below (expert vs 3 greedy, search vs 3 expert), in each --profiles, in duplicate:
every deal once in each rotation of the seats, the same cards to the same seats, the same deals at
every step.  --out is the run's folder, RUN, whether or not a run is there yet: the study goes to
RUN/ladder/ (one run per step, RUN/ladder/UPPER, on Ray unless --local, and ladder.json); `kalooki
report RUN` shows it, and the strength frontier in RUN/frontier takes its measured order from it.  A
new study is played in RUN/.ladder.partial/ (a stop leaves it there and the same command resumes it)
and moved into place when complete; one of other settings is replaced only with --force.  The same seed
gives the same numbers whatever the workers.

Per step and profile, of the upper rung: hands won (of its player-hands), games won (of its games; a
game stopped at the hand cap with players level on the winner's total shares the win), net payment per
game and its edge over the other three (units a game) where money changes hands, each with a 95%
interval clustered by deal (the rotations of a deal share its cards).  Verdict: where money changes
hands the rung beats the one below at the game when the edge's interval lies above 0 and its games won
above the fair share 0.25; in a target game (no money) when the games won's interval lies above 0.25;
worse when the evidence lies the other way; otherwise not established.  The measured order: the rungs
from the bottom up while each beats the one below.  Each rung is on the ladder because it beats the one
below at the game; the lookahead, the expert judging its discards one draw ahead, is not measured stronger
than the expert at the game, so it is a bot (tables, the skill study) and not a rung."""


def register(sub):
    p = sub.add_parser("ladder", help="measure each rung of the bot ladder against the one below at the game "
                                      "(games won, money)",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--profiles", dest="profile_list", default=",".join(DEFAULT_PROFILES), metavar="A,B,...",
                   help="rule profiles, comma-separated (default: %(default)s)")
    p.add_argument("--set", action="append", dest="sets", default=[], metavar="KEY=VALUE",
                   help="override a profile parameter in every profile, repeatable (default: none)")
    p.add_argument("--rungs", metavar="A,B,...",
                   help="the upper rungs to measure, each against the rung below it (default: every registered "
                        "rung above greedy: expert, search)")
    p.add_argument("--games", type=positive_int, default=DEFAULT_GAMES, metavar="N",
                   help="games per profile and rung, a multiple of the 4 seats: N/4 deals (default: %(default)s)")
    p.add_argument("--games-at", action="append", dest="games_at", default=[], metavar="RUNG=N",
                   help="games per profile for one rung instead of --games, repeatable, e.g. search=40 (a step with the "
                        "search is about ten times slower than the others: docs/PERFORMANCE.md, Bot strength) "
                        "(default: none)")
    add_seed_arg(p, default=1, what="seed of the deals, the same at every step")
    p.add_argument("--out", default="runs/default", metavar="RUN",
                   help="the run's folder, a path or a URI; the study goes to RUN/ladder/ (default: %(default)s)")
    add_ray_args(p, "games per shard, a multiple of the 4 seats (default: about 25 greedy games' time, "
                    "at most the rung's games)", count=positive_int)
    add_force_arg(p, help="replace a ladder study of other settings in RUN/ladder (once the new one is complete) "
                          "(default: off)")
    p.set_defaults(func=run)


def _command(args) -> str:
    return command_line("ladder", args, (("--profiles", args.profile_list), ("--rungs", args.rungs),
                                         ("--games", args.games),
                                         *(("--games-at", g) for g in args.games_at), ("--seed", args.seed),
                                         ("--out", args.out), ("--workers", args.workers),
                                         ("--address", args.address), ("--shard-games", args.shard_games)),
                        (("--local", args.local),))


def parse_profiles(text: str) -> list[str]:
    names = [n.strip() for n in str(text).split(",") if n.strip()]
    if not names:
        raise UserError(f"--profiles {text!r}: name one profile or more, e.g. kalooki40,kalooki51")
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise UserError(f"--profiles: {twice[0]!r} is named twice; name each profile once")
    return names


def run(args):
    from analysis.summaries import write_shard_summary

    from .. import ladder
    rungs = ladder.parse_rungs(args.rungs)
    games = ladder.parse_games_at(args.games_at, rungs, args.games)
    study = ladder.plan(profiles=parse_profiles(args.profile_list), rungs=rungs, games=games, seed=args.seed,
                        out=args.out, workers=args.workers, shard_games=args.shard_games, sets=args.sets)
    quiet = args.quiet

    def log(msg):  # each step's progress and closing line (stdout keeps the table)
        if not quiet:
            print(msg, file=sys.stderr)

    ladder.run(study, command=_command(args), summarise=write_shard_summary, local=args.local, address=args.address,
               progress=show_progress(args), log=log, force=args.force)
    from analysis.ladder import CSV_FILE, load_ladder, terminal_lines, write_csv
    measured = load_ladder(study.out)
    write_csv(measured)
    print("\n".join(terminal_lines(measured)))
    from .. import runformat
    shown = (f"`kalooki report {args.out}` shows it"
             if runformat.holding(str(args.out), runformat.MANIFEST_NAME) else
             f"`kalooki report {args.out}` shows it once `kalooki simulate ... --out {args.out}` has played a run "
             "there")
    print(f"ladder: {study.out} (ladder.json, {CSV_FILE}, a run per step; {shown})")
    return 0
