"""`kalooki skill`: how much skill decides each profile: a duplicate run among a graded set of players,
their Bradley-Terry strengths, and the share of results left to luck, with bootstrap intervals."""
from __future__ import annotations

import argparse
import json
import sys

from ..errors import UserError
from .common import add_force_arg, add_ray_args, add_seed_arg, command_line, show_progress

HELP = """\
Plays --games games per --profile among --players (bots, and bots weakened as NAME@EPS: each turn the
random bot's with probability EPS) in duplicate: every deal once per rotation of its table's seats, the
same cards to the same seats.  More players than seats meet at every subset of them, one drawn per deal.
--out is the run's folder, RUN, whether or not a run is there yet: the study goes to RUN/skill/, its
games as a run like `kalooki simulate`'s (on Ray unless --local) and its fit in RUN/skill/skill/
(players.parquet, measures.parquet, replicates.parquet, skill.json); `kalooki report RUN` shows it.
A new study is played in RUN/.skill.partial/ (a stop leaves it there and the same command resumes it)
and moved into place when complete, so RUN/skill/ holds a whole study or none.  A study of the same
profiles, players, games and seed is fitted again (with another --boot the new fit replaces the old
and says so); one of other settings is refused unless --force.

Per profile, from head-to-head results (every pair of different players at a game; the one finishing
ahead wins; players knocked out for good in the same hand, or level on their totals, share a place: half
a win each) a Bradley-Terry fit gives each player a rating (log-odds; Elo = x 400/ln 10); the players
are listed in the order their ratings put them (measured, never the order named), each with its lead
over the next player down and that lead's interval (the order is established where it lies above 0).  Measures:
spread (strongest minus weakest rating; the pair it spans is named), adjacent_win (mean over
neighbouring players of the chance the stronger finishes ahead), luck_share (mean squared error of the
fitted chances over the head-to-head results, divided by the same for pure chance: 1 = no more than
chance, 0 = the stronger always finishes ahead), coin_flip_share (the share of games a coin flip would
have to decide in a stronger-always-wins game to give the same luck share: 1 - sqrt(1 - luck_share), 1
for pure chance; the one of the two that gets a verdict); with money, pay_spread (units per game) and
pay_luck_share (1 - R^2 of net payment per player-game on the player, over pure chance's).  Chance:
each measure beside its chance benchmark (median and 95% range over 199 refits of the study with each
game's finishing order shuffled among its seats, from --seed) and as its excess over it; every measure
is also refitted without each player.  Intervals: 95% percentile bootstrap over deals (--boot
replicates from --seed, the same deals drawn for every profile).  With several profiles, each profile's
measures minus the first profile's, paired by deal, with intervals from the replicates' differences (*
where they exclude 0), and which profiles reward skill more: a clear coin-flip-share difference (Holm
over the pairs) that leaving out any one player does not reverse.  `kalooki compare` judges such
differences against practical thresholds, between two studies (`kalooki compare RUN_A/skill
RUN_B/skill`) or two profiles of one.  The measures describe this set of players: compare profiles
measured with the same --players."""


def register(sub):
    from ..skill import DEFAULT_PLAYERS, DEFAULT_PROFILES
    p = sub.add_parser("skill", help="measure how much skill decides each profile (ratings, luck share)",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--profile", action="append", dest="profiles", metavar="P",
                   help=f"rule profile, repeatable (default: {', '.join(DEFAULT_PROFILES)})")
    p.add_argument("--set", action="append", dest="sets", default=[], metavar="KEY=VALUE",
                   help="override a profile parameter in every profile, repeatable (default: none)")
    p.add_argument("--players", default=",".join(DEFAULT_PLAYERS), metavar="A,B,...",
                   help="the players, comma-separated: bots or NAME@EPS (default: %(default)s)")
    p.add_argument("--games", type=int, default=1200, metavar="N",
                   help="games per profile, a multiple of the 4 seats: N/4 deals (default: %(default)s)")
    add_seed_arg(p, default=1, what="seed of the deals and of the bootstrap")
    p.add_argument("--out", default="runs/default", metavar="RUN",
                   help="the run's folder, a path or a URI; the study goes to RUN/skill/ (default: %(default)s)")
    p.add_argument("--boot", type=int, default=1000, metavar="B",
                   help="bootstrap replicates over deals, 0 for none (default: %(default)s)")
    add_ray_args(p, "games per shard, a multiple of the 4 seats (default: 100, or --games if fewer)")
    p.add_argument("--json", action="store_true", help="print the measures as one JSON object (default: tables)")
    add_force_arg(p, help="replace a skill study of other settings in RUN/skill (once the new one is complete) "
                          "(default: off)")
    p.set_defaults(func=run)


def _command(args) -> str:
    return command_line("skill", args, (("--players", args.players), ("--games", args.games), ("--seed", args.seed),
                                        ("--out", args.out), ("--boot", args.boot), ("--workers", args.workers),
                                        ("--address", args.address), ("--shard-games", args.shard_games)),
                        (("--local", args.local),))


def read_study_mark(loc) -> dict | None:
    """A skill study's folder (its run's manifest and its fit) as ``sim.storage.claim_output`` reads a
    mark; None where no run of a study is."""
    from .. import runformat
    data = runformat.read_bytes(loc.fs, loc.path(runformat.MANIFEST_NAME))
    if data is None:
        return None
    manifest = json.loads(data)
    entries = manifest.get("profiles") or {}
    tables = next(iter(entries.values()), {}).get("tables") or []
    players = list(dict.fromkeys(b for t in tables for b in t.get("bots", [])))
    config = manifest.get("config") or {}
    return {"kind": "skill study", "about": "a skill study",
            "identity": {"profiles": list(entries), "players": players, "games": config.get("games"),
                         "seed": config.get("seed"), "rules": {n: e.get("rules_hash") for n, e in entries.items()}}}


def run(args):
    from .. import profiles, runformat, skill, storage
    from ..bots import unparametrised_error
    players = [b.strip() for b in args.players.split(",") if b.strip()]
    for b in players:
        if unparametrised_error(b):
            raise UserError(f"--players: {unparametrised_error(b)}")
    if args.boot < 0:
        raise UserError(f"--boot {args.boot}: must be 0 or a positive integer")
    given = args.profiles or list(skill.DEFAULT_PROFILES)
    final = runformat.join_uri(args.out, skill.STUDY_DIR)
    config = skill.study_config(given, players, args.games, args.seed, final, workers=args.workers,
                                shard_games=args.shard_games, sets=args.sets)
    log = (lambda msg: None) if args.quiet else (lambda msg: print(msg, file=sys.stderr))
    rules = [profiles.resolve(p, args.sets) for p in given]
    names = [p.name for p in rules]  # the profiles' names (a profile file's, not its path), as the run records them
    identity = {"profiles": names, "players": players, "games": args.games, "seed": args.seed,
                "rules": {p.name: p.rules_hash() for p in rules}}
    output = storage.claim_study(final, "skill study", identity, read_mark=read_study_mark, about="a skill study",
                                 force=args.force)
    log(skill.estimate_line(len(given), args.games, players, args.workers, args.local))
    where = output.path
    import dataclasses

    from analysis.summaries import write_shard_summary
    result = skill.run_study(dataclasses.replace(config, out=where), summarise=write_shard_summary,
                             local=args.local, address=args.address,
                             progress=show_progress(args), command=_command(args), log=log,
                             label="skill {profile}")
    from analysis import skill as fit
    study = fit.fit_run(where, names, players, boot=args.boot, seed=args.seed, command=_command(args),
                        run_id=result.manifest.get("run_id"), log=log, force=args.force)
    line = output.replacing_line()
    output.publish()
    if line:
        log(f"skill: {line}")
    if args.json:
        print(json.dumps(fit.as_json(study)))
    else:
        print("\n".join(fit.text_lines(study)))
    return 0
