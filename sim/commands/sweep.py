"""`kalooki sweep`: run a grid of values of one profile parameter through the runner and plot key metrics."""
from __future__ import annotations

import contextlib
import sys
from pathlib import Path

from .. import profiles
from ..errors import UserError
from ..skill import DEFAULT_PLAYERS
from .common import add_force_arg, add_seed_arg, add_table_args, command_line, positive_int, report_dir, show_progress


def register(sub):
    p = sub.add_parser("sweep", help="run a grid of one rule parameter and plot the key metrics against it")
    p.add_argument("--profile", default="kalooki40", metavar="P", help="rule profile (default: %(default)s)")
    p.add_argument("--param", required=True, metavar="NAME=V1,V2,...",
                   help="the integer parameter and its values, e.g. opening_min=30,35,40,45,50 (required)")
    p.add_argument("--set", action="append", dest="sets", default=[], metavar="KEY=VALUE",
                   help="override another profile parameter, repeatable (default: none)")
    p.add_argument("--games", type=positive_int, required=True, metavar="N", help="games per grid value (required)")
    add_seed_arg(p, default=1)
    add_table_args(p)
    p.add_argument("--paired", action="store_true",
                   help="common deals: game g of every grid value is dealt from the same shuffled pack "
                        "(default: off)")
    p.add_argument("--players", type=int, default=None, metavar="K", help="players per game (default: the profile's)")
    p.add_argument("--workers", type=positive_int, default=None, metavar="W", help="Ray workers (default: every core)")
    p.add_argument("--shard-games", type=positive_int, dest="shard_games", default=None, metavar="M",
                   help="games per shard (default: 500)")
    p.add_argument("--runs", default=None, metavar="DIR", help="where the runs go, one per value under it: a "
                                                               "directory or a URI (default: runs/sweep-P-NAME, "
                                                               "P the profile's name)")
    p.add_argument("--out", default=None, metavar="DIR", help="local report folder (default: reports/sweep-P-NAME)")
    p.add_argument("--skill", nargs="?", const=",".join(DEFAULT_PLAYERS), default=None, metavar="A,B,...",
                   help="play each value as a skill study among these players (as `kalooki skill --players`; "
                        "alone: %(const)s) and compare the skill and luck measures of the lowest and highest value "
                        "(default: off, --bots or --tables play)")
    p.add_argument("--boot", type=int, default=None, metavar="B",
                   help="with --skill: bootstrap replicates over deals (default: 200)")
    p.add_argument("--local", action="store_true", help="play in this process, without Ray (default: off)")
    add_force_arg(p, "sweep")
    p.set_defaults(func=run)


def parse_grid(text: str, base: profiles.Profile) -> tuple[str, list]:
    if "=" not in text:
        raise UserError(f"--param {text!r}: write NAME=V1,V2,..., e.g. opening_min=30,35,40")
    name, values = text.split("=", 1)
    name = name.strip()
    if name not in profiles.PARAM_NAMES:
        raise UserError(f"--param: unknown parameter {name!r}; {profiles.closest(name, profiles.PARAM_NAMES)}")
    default = getattr(base, name)
    if isinstance(default, bool) or not isinstance(default, int):
        raise UserError(f"--param {name}: only numeric (integer) parameters can be swept; {name} is "
                        f"{type(default).__name__}")
    grid = []
    for v in values.split(","):
        try:
            grid.append(int(v))
        except ValueError:
            raise UserError(f"--param {name}: {v!r} is not an integer") from None
    if len(grid) < 2:
        raise UserError(f"--param {name}: give at least two values to sweep, e.g. {name}={grid[0]},{grid[0] + 5}")
    twice = sorted({v for v in grid if grid.count(v) > 1})
    if twice:
        raise UserError(f"--param {name}: {twice[0]} is given twice; give each value once")
    for v in grid:  # validate every grid point before running anything
        profiles.with_overrides(base, [f"{name}={v}"], flag="--param")
    return name, grid


def skill_players(args) -> list[str] | None:
    """--skill's players, checked with the options a skill study replaces; None without --skill."""
    from ..bots import bot_name_error
    if args.skill is None:
        if args.boot is not None:
            raise UserError("--boot: the bootstrap is --skill's; add --skill to measure skill at each value")
        return None
    for flag, value in (("--bots", args.bots), ("--tables", args.tables), ("--players", args.players)):
        if value is not None:
            raise UserError(f"{flag} with --skill: a skill study seats its players itself (4 seats, every subset of "
                            "them); give the players to --skill")
    if args.paired:
        raise UserError("--paired with --skill: a skill study already deals deal d of every value from the same "
                        "seed; drop --paired")
    if args.boot is not None and args.boot < 0:
        raise UserError(f"--boot {args.boot}: must be 0 or a positive integer")
    players = [b.strip() for b in args.skill.split(",") if b.strip()]
    for b in players:
        if bot_name_error(b):
            raise UserError(f"--skill: {bot_name_error(b)}")
    return players


def run(args):
    from .. import runconfig, runformat, runplan, skill
    base = profiles.resolve(args.profile, args.sets)
    name, grid = parse_grid(args.param, base)
    players = skill_players(args)
    runs_dir = args.runs or f"runs/sweep-{base.name}-{name}"
    out_dir = args.out or f"reports/sweep-{base.name}-{name}"
    configs = {}
    for v in grid:
        out, sets = runformat.join_uri(runs_dir, f"{name}={v}"), list(args.sets) + [f"{name}={v}"]
        if players is not None:
            configs[v] = skill.study_config([args.profile], players, args.games, args.seed, out, workers=args.workers,
                                            shard_games=args.shard_games, sets=sets)
            continue
        configs[v] = runconfig.make_config(None, None, profiles=[args.profile], games=args.games, seed=args.seed,
                                           out=out, bots=args.bots, players=args.players,
                                           workers=args.workers, shard_games=args.shard_games,
                                           sets=sets, tables=args.tables, paired=args.paired or None)
    plans = {v: runplan.make_plan(cfg) for v, cfg in configs.items()}
    if args.paired:  # the grid values must be dealt alike, as the profiles of a paired run
        runplan.check_pairing({f"{name}={v}": plan.profiles[base.name] for v, plan in plans.items()})
    log = (lambda msg: None) if args.quiet else (lambda msg: print(msg, file=sys.stderr))
    with report_dir(out_dir, "sweep", [plan.run_id for plan in plans.values()], args.force, log=log) as where:
        _run_sweep(args, base, name, grid, configs, runs_dir, where, players)
    print(f"report: {Path(out_dir) / 'report.html'}")
    return 0


def _run_sweep(args, base, name, grid, configs, runs_dir, out_dir, players=None):
    """Play (or resume) every grid value's run (a skill study each with ``players``), then write the
    sweep's report to ``out_dir``."""
    from analysis.summaries import write_shard_summary

    from .. import runexec, runner, runplan, skill
    log = (lambda msg: None) if args.quiet else (lambda msg: print(msg, file=sys.stderr))
    runner.warm_up(announce=not args.quiet)  # before Ray, as simulate does, so that neither is timed as the other
    with contextlib.nullcontext() if args.local else runexec.ray_session(args.workers):
        for v, cfg in configs.items():
            log(f"sweep {name}={v}")
            if players is None:
                runner.run(cfg, summarise=write_shard_summary, local=args.local, progress=show_progress(args),
                           log=log, flag="--runs",
                           label=f"sweep {name}={v}")
            else:
                skill.run_study(cfg, summarise=write_shard_summary, local=args.local, progress=show_progress(args),
                                log=log, flag="--runs",
                                label=f"sweep {name}={v}")
    from analysis.sweep import load_sweep, terminal_lines, write_sweep
    command = command_line("sweep", args, (("--param", args.param), ("--games", args.games), ("--seed", args.seed),
                                           ("--tables", args.tables), ("--bots", args.bots),
                                           ("--skill", ",".join(players) if players is not None else None),
                                           ("--boot", args.boot)), (("--paired", args.paired),))
    studies = None
    if players is not None:
        from analysis import skill as fit
        boot = fit.BOOT if args.boot is None else args.boot
        for v, cfg in configs.items():
            fit.fit_run(cfg.out, [base.name], players, boot=boot, seed=args.seed,
                        command=f"{command} ({name}={v})",
                        run_id=runplan.make_plan(cfg).run_id, log=log)
        studies = {v: fit.find_fit(cfg.out) for v, cfg in configs.items()}
    sweep = load_sweep({v: cfg.out for v, cfg in configs.items()}, name, default=getattr(base, name), skill=studies)
    first = configs[grid[0]]
    seats = ("tables " + "; ".join(f"{t.name} = {','.join(t.bots)} (weight {t.weight})" for t in first.tables)
             if first.tables else f"bots {','.join(runplan.make_plan(first).profiles[base.name].bots)}")
    facts = f"profile {base.name}, {args.games} games per value, seed {args.seed}"
    design = "paired by game" if sweep.paired else "independent samples"
    ends, page = write_sweep(sweep, out_dir, [
        facts, f"{seats}; seats rotated game by game",
        "common deals across the values (--paired): game g of every value dealt the same cards" if args.paired
        else "no --paired: game g of every value drawn from the same seed (the deal differs only where the "
             "parameter changes it)",
        f"differences: {design}", f"runs in {runs_dir}", f"command: {command}"])
    print(f"{facts}, {design}{' (--paired)' if args.paired else ''}"[:100])
    print("\n".join(terminal_lines(sweep, ends)))
    if sweep.skill_differences is not None:
        from analysis.skill import difference_lines
        print("\n".join(difference_lines(sweep.skill_differences,
                                          labels=(sweep.label(sweep.values[0]), sweep.label(sweep.values[-1])))))
    return page
