"""`kalooki tune`: find the value of one integer rule parameter at which a headline metric meets a target,
with a 95% interval, spending a game budget where the answer is decided (the search: ``sim.tune``; the
fit and intervals: ``analysis.tune``; its page: ``analysis.tune_page``).

The study lives in --out (a path or a URI): ``tune.json`` (its settings, stages and answer) and one run
per value and block of deals, ``OUT/NAME=V/block-BBB``, each played and resumed by ``sim.runner``.  The
same command resumes a stopped study (finished runs are kept) and, with the same --block-games, a
larger --games carries the search on.  The page goes to --report (a local folder)."""
from __future__ import annotations

import contextlib
import hashlib
import json
import math
import sys
import time

from .. import profiles
from ..errors import UserError
from .common import (add_ray_args, add_seed_arg, add_table_args, command_line, positive_int, report_dir,
                     show_progress)

TUNE_FORMAT = "kalooki-lab tune"
TUNE_FILE = "tune.json"
KEY_STRIDE = 2 ** 32  # a game's key: block * KEY_STRIDE + game number
IDENTITY = ("format", "profile", "params", "param", "lo", "hi", "metric", "target", "seed", "block_games", "bots",
            "tables", "players", "paired", "shard_games")


def register(sub):
    p = sub.add_parser("tune", help="find the rule value at which a headline metric meets a target, with an interval",
                       description="Searches the integer values of one rule parameter for the one at which a "
                                   "headline metric meets --target: a coarse set of values first, then more "
                                   "games at the values inside the current 95% interval on the answer, every "
                                   "value played on the same deals, until the interval lies between two adjacent "
                                   "values or --games is spent.  Prints the answer, its interval and the values "
                                   "practically equal to the target; writes a page and CSV to --report.")
    p.add_argument("--profile", default="kalooki40", metavar="P",
                   help="rule profile name or TOML file (default: %(default)s)")
    p.add_argument("--set", action="append", dest="sets", default=[], metavar="KEY=VALUE",
                   help="override another profile parameter, repeatable (default: none)")
    p.add_argument("--param", required=True, metavar="NAME=LO:HI",
                   help="the integer parameter and the range searched, e.g. opening_min=30:60 (required)")
    p.add_argument("--target", required=True, metavar="METRIC=VALUE",
                   help="the headline metric and the value wanted, e.g. share_never_opened=0.10 or "
                        "hands_per_game=10 (shares as fractions) (required)")
    p.add_argument("--games", type=positive_int, required=True, metavar="N",
                   help="the game budget over every value and stage (required)")
    p.add_argument("--block-games", type=positive_int, dest="block_games", default=None, metavar="B",
                   help="games per value in each stage (default: --games / 40, at least 10)")
    add_seed_arg(p, default=1)
    add_table_args(p)
    p.add_argument("--players", type=int, default=None, metavar="K", help="players per game (default: the profile's)")
    p.add_argument("--thresholds", metavar="FILE",
                   help="TOML of practical thresholds replacing those of configs/thresholds.toml (default: none)")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="the study's folder: its runs and tune.json, a path or a URI (file:///..., s3://...) "
                        "(default: runs/tune-P-NAME-METRIC)")
    p.add_argument("--report", default=None, metavar="DIR",
                   help="local folder of the page and CSV (default: reports/tune-P-NAME-METRIC)")
    add_ray_args(p, "games per shard (default: a quarter of --block-games)", count=positive_int)
    p.add_argument("--force", action="store_true",
                   help="replace --out or --report even when it holds another study or page (a run's folder is never "
                        "replaced) (default: off)")
    p.set_defaults(func=run)


def parse_param(text: str, base: profiles.Profile) -> tuple[str, int, int]:
    """--param NAME=LO:HI -> (name, lo, hi), every value of the range checked against the profile."""
    if "=" not in text or ":" not in text.split("=", 1)[1]:
        raise UserError(f"--param {text!r}: write NAME=LO:HI, e.g. opening_min=30:60")
    name, span = (x.strip() for x in text.split("=", 1))
    if name not in profiles.PARAM_NAMES:
        raise UserError(f"--param: unknown parameter {name!r}; {profiles.closest(name, profiles.PARAM_NAMES)}")
    default = getattr(base, name)
    if isinstance(default, bool) or not isinstance(default, int):
        numeric = [n for n in profiles.PARAM_NAMES if type(getattr(base, n)) is int]
        raise UserError(f"--param {name}: only a numeric (integer) parameter can be tuned; {name} is "
                        f"{type(default).__name__}; numeric: {', '.join(numeric)}")
    lo_text, hi_text = (x.strip() for x in span.split(":", 1))
    try:
        lo, hi = int(lo_text), int(hi_text)
    except ValueError:
        raise UserError(f"--param {name}={span}: LO and HI must be integers, e.g. {name}=30:60") from None
    if hi - lo < 2:
        raise UserError(f"--param {name}={span}: give a range of three values or more, LO < HI, e.g. "
                        f"{name}={lo}:{lo + 10}")
    for v in (lo, hi):  # the ends checked first (the clearest error), then every value between
        profiles.with_overrides(base, [f"{name}={v}"], flag="--param")
    for v in range(lo + 1, hi):
        profiles.with_overrides(base, [f"{name}={v}"], flag="--param")
    return name, lo, hi


def parse_target(text: str) -> tuple[str, float]:
    from analysis.tune import check_metric
    if "=" not in text:
        raise UserError(f"--target {text!r}: write METRIC=VALUE, e.g. share_never_opened=0.10")
    metric, value = (x.strip() for x in text.split("=", 1))
    check_metric(metric)
    try:
        target = float(value)
    except ValueError:
        raise UserError(f"--target {metric}={value}: {value!r} is not a number") from None
    if not math.isfinite(target):
        raise UserError(f"--target {metric}={value}: give a finite number")
    return metric, target


class Study:
    """The study's settings, its runs' configs and its document in --out."""

    def __init__(self, args, base, name, lo, hi, metric, target, block_games):
        from .. import runplan
        from ..tune import block_seed
        self.args, self.base, self.name, self.lo, self.hi = args, base, name, lo, hi
        self.metric, self.target, self.block_games = metric, target, block_games
        self.out = args.out or f"runs/tune-{base.name}-{name}-{metric}"
        self.where = self.out  # where the study is written: --out, or its hidden .partial sibling (``claim``)
        self.shard_games = args.shard_games or max(1, math.ceil(block_games / 4))
        self.block_seed = lambda b: block_seed(args.seed, b)
        self.paired = True
        try:  # common deals whatever the deal pattern, where the range keeps the pack and hand size
            runplan.check_pairing({f"{name}={v}": runplan.make_plan(self.config(v, 0)).profiles[base.name]
                                   for v in (lo, hi)})
        except UserError:
            self.paired = False  # game g of block b still drawn from the same seed at every value
        self.plan0 = runplan.make_plan(self.config(lo, 0))

    def config(self, value: int, block: int):
        from .. import runconfig, runformat
        a = self.args
        return runconfig.make_config(None, None, profiles=[a.profile], games=self.block_games,
                                     seed=self.block_seed(block),
                                     out=runformat.join_uri(self.where, f"{self.name}={value}/block-{block:03d}"),
                                     bots=a.bots, players=a.players, workers=a.workers, shard_games=self.shard_games,
                                     sets=list(a.sets) + [f"{self.name}={value}"], tables=a.tables,
                                     paired=getattr(self, "paired", True))

    def identity(self) -> dict:
        pp = self.plan0.profiles[self.base.name]
        params = {k: v for k, v in pp.profile.params().items() if k != self.name}
        return {"format": TUNE_FORMAT, "profile": self.base.name, "params": params, "param": self.name,
                "lo": self.lo, "hi": self.hi, "metric": self.metric, "target": self.target, "seed": self.args.seed,
                "block_games": self.block_games, "bots": list(pp.bots),
                "tables": [t.to_json() for t in pp.tables], "players": pp.n_players, "paired": self.paired,
                "shard_games": self.shard_games}

    @property
    def study_id(self) -> str:
        return hashlib.sha256(json.dumps(self.identity(), sort_keys=True).encode()).hexdigest()[:16]

    def claim(self) -> None:
        """Claim --out by the rule of every output folder (``sim.storage.claim_study``): a study of the same
        settings is resumed or carried on in place; a new one (or, with --force, one replacing a study of
        other settings) is played in the hidden ``.NAME.partial`` beside --out, which the same command
        resumes after a stop, and moved into place when complete (``publish``); anything else is refused."""
        from .. import storage
        identity = {k: v for k, v in self.identity().items() if k in IDENTITY}
        self.output = storage.claim_study(self.out, "tune", identity, read_mark=read_mark, about="a tune study",
                                          force=self.args.force)
        self.where = self.output.path

    def publish(self, log) -> None:
        line = self.output.replacing_line()
        self.output.publish()
        if line:
            log(f"tune: {line}")

    def write(self, stages, fit, command: str, complete: bool, answers=()) -> None:
        """tune.json: the settings, each stage (its block, values, games, seed and the answer after it:
        ``answers``, (crossing, ci_low, ci_high) per stage) and the answer."""
        from .. import runformat
        loc = runformat.locate(self.where, "--out")
        doc = {**self.identity(), "study_id": self.study_id, "command": command, "complete": complete,
               "budget": self.args.games, "games": sum(s.cost for s in stages),
               "stages": [{"block": s.block, "values": list(s.values), "games": s.games,
                           "seed": self.block_seed(s.block), "answer": list(a)} for s, a in zip(stages, answers)],
               "runs": [f"{self.name}={v}/block-{s.block:03d}" for s in stages for v in s.values]}
        if fit is not None:
            doc["answer"] = {"crossing": fit.crossing, "ci_low": fit.ci_low, "ci_high": fit.ci_high,
                             "censored": fit.censored, "bracket": list(fit.bracket) if fit.bracket else None,
                             "equal_values": fit.equal_values, "equal_range": list(fit.equal_range),
                             "threshold": fit.threshold, "increasing": fit.increasing}
        data = (json.dumps(doc, indent=1) + "\n").encode()
        if runformat.read_bytes(loc.fs, loc.path(TUNE_FILE)) != data:  # a re-run with nothing new writes nothing
            runformat.write_bytes_atomic(loc.fs, loc.path(TUNE_FILE), data)


def mark_at(where: str | None) -> dict | None:
    """The mark of a `kalooki tune` study at ``where`` (its tune.json), or None where there is none; a
    UserError at once where its server cannot be reached (not after the filesystem's retries)."""
    if not where:
        return None
    from ..runformat import check_reachable, locate
    loc = locate(where)
    check_reachable(loc)
    try:
        return read_mark(loc)
    except (OSError, ValueError):
        return None


def read_mark(loc) -> dict | None:
    """A tune.json as ``sim.storage.claim_output`` reads a mark (None where there is none)."""
    from .. import runformat
    doc = runformat.read_document(loc, TUNE_FILE, TUNE_FORMAT)
    if doc is None:
        return None
    return {"kind": "tune", "identity": {k: doc.get(k) for k in IDENTITY}, "about": "a tune study", "doc": doc}


def _command(args) -> str:
    return command_line("tune", args, (("--param", args.param), ("--target", args.target), ("--games", args.games),
                                       ("--block-games", args.block_games), ("--seed", args.seed),
                                       ("--bots", args.bots), ("--tables", args.tables),
                                       ("--players", args.players), ("--thresholds", args.thresholds),
                                       ("--out", args.out), ("--report", args.report), ("--workers", args.workers),
                                       ("--address", args.address), ("--shard-games", args.shard_games)),
                        (("--local", args.local),))


def run(args):
    from .. import runexec, runner
    from ..tune import default_block_games, search
    from analysis import findings
    from analysis import tune as fitting
    from analysis.tune_page import write_tune
    from analysis.summaries import write_shard_summary
    base = profiles.resolve(args.profile, args.sets)
    name, lo, hi = parse_param(args.param, base)
    metric, target = parse_target(args.target)
    from analysis.metrics import ELIMINATION_METRICS
    if metric in ELIMINATION_METRICS and base.game_end != "elimination":
        raise UserError(f"--target {metric}: not applicable, profile {base.name} has no elimination (game_end = "
                        f"{base.game_end}); choose a metric of its games")
    if args.bots is not None and args.tables is not None:
        raise UserError("--bots and --tables both given: --bots is the one-composition shorthand; give one of them")
    threshold = findings.load_thresholds(args.thresholds)[metric].threshold
    block_games = args.block_games or default_block_games(args.games)
    study = Study(args, base, name, lo, hi, metric, target, block_games)
    report = args.report or f"reports/tune-{base.name}-{name}-{metric}"
    command = _command(args)
    study.claim()
    log = (lambda msg: None) if args.quiet else (lambda msg: print(msg, file=sys.stderr))
    data = fitting.Data()
    stages_done: list = []
    answers: list = []  # (crossing, ci_low, ci_high) after each stage
    clock = {"games": 0, "seconds": 0.0}
    t_start = time.perf_counter()
    from tqdm import tqdm
    bar = tqdm(total=args.games, unit="game", desc="tune", file=sys.stderr, dynamic_ncols=True,
               disable=not show_progress(args))

    def play(values, block):
        for v in values:
            cfg = study.config(v, block)
            t = time.perf_counter()
            result = runner.run(cfg, summarise=write_shard_summary, local=args.local, address=args.address,
                                progress=False, log=lambda msg: None, command=f"{command}  # {name}={v}, block {block}")
            if result.games:
                clock["games"] += result.games
                clock["seconds"] += time.perf_counter() - t
            sums = fitting.run_sums(cfg.out, base.name, metric)
            data.add(v, block * KEY_STRIDE + sums.index.to_numpy(), sums["y"], sums["x"])
            bar.update(cfg.games)

    def assess():  # the range after every stage; monotone on the coarse first stage (and the final fit, below)
        f = fitting.fit(data, metric, target, threshold, lo, hi, seed=args.seed)
        fitting.check(f, name, monotone=not stages_done)
        return f

    def on_stage(stage, f, spent):
        stages_done.append(stage)
        answers.append((f.crossing, f.ci_low, f.ci_high))
        study.write(stages_done, f, command, complete=False, answers=answers)
        left = args.games - spent
        eta = (f"; at most about {runner.duration_text(left * clock['seconds'] / clock['games'])} left "
               f"({left:,} games of the budget)" if clock["games"] and left > 0 and not f.decided else "")
        bar.clear()
        log(f"tune stage {stage.block}: {name} = {', '.join(map(str, stage.values))}, {stage.games} games each; "
            f"answer {f.crossing:.2f} [{f.ci_low:.2f}, {f.ci_high:.2f}]{eta}")
        bar.refresh()

    runner.warm_up({b for t in study.plan0.profiles[base.name].tables for b in t.bots}, announce=not args.quiet)
    if not study.output.in_place:
        study.write([], None, command, complete=False)  # the staging folder's mark, for the same command to resume
    try:
        with contextlib.nullcontext() if args.local else runexec.ray_session(args.workers, args.address, study.out):
            stages, f = search(lo, hi, args.games, block_games, play, assess, on_stage)
        fitting.check(f, name)
    except UserError:
        study.output.discard()  # a question it cannot answer: a new study's hidden folder goes, --out is as it was
        raise
    finally:
        bar.close()
    study.write(stages, f, command, complete=True, answers=answers)
    study.publish(log)
    seconds = time.perf_counter() - t_start
    stage_rows = fitting.stages_frame([{"block": s.block, "values": list(s.values), "games": s.games,
                                        "answer": list(a)} for s, a in zip(stages, answers)])
    spent = sum(s.cost for s in stages)
    seats = ("tables " + "; ".join(f"{t.name} = {','.join(t.bots)} (weight {t.weight})"
                                   for t in study.plan0.profiles[base.name].tables))
    facts = f"profile {base.name}, {name} {lo}..{hi}, seed {args.seed}"
    wanted = f"target {metric} = {target:g}, practically equal within ±{threshold:g}"
    provenance = [f"{facts}; {wanted}", f"{seats}; seats rotated game by game",
                  f"{spent:,} games of a budget of {args.games:,}, {block_games} per value in each stage; "
                  + ("common deals: game g of block b dealt the same cards at every value" if study.paired else
                     "game g of block b drawn from the same seed at every value (the parameter changes the deal, so "
                     "the cards can differ)"),
                  f"study {study.study_id} in {study.out} (tune.json and one run per value and block)",
                  f"command: {command}"]
    with report_dir(report, "tune", [study.study_id], args.force) as where:  # written whole, then moved into place
        write_tune(f, base.name, name, stage_rows, where, provenance)
    from pathlib import Path
    page = Path(report) / "report.html"
    print(facts)
    print(wanted)
    print(f"{spent:,} games in {len(stages)} stages ({'decided' if f.decided else 'budget spent'}); "
          f"{clock['games']:,} played now, in {runner.duration_text(seconds)}")
    print("\n".join(fitting.terminal_lines(f, name)))
    print(f"report: {page}")
    return 0
