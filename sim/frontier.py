"""The strength frontier: every profile played at tables of one bot, once per rung of the bot ladder.

A frontier is one run per rung, each a plain run of the runner (``sim.runner``) at ``DIR/RUNG`` (DIR a
local folder or any URI a run can live at, ``sim.runformat``; every file goes through it) with
every seat the rung's bot, all with the same profiles, games and seed.  A game's random stream depends
only on (seed, profile, game number) (``sim.records``), so game g of a profile starts from the same
deal at every rung: the rungs differ by play, and the analysis pairs them game by game (later hands
of a game follow from the same stream, so they stay alike until play has used it differently,
a stock reshuffle for one).  ``DIR/frontier.json``
says which rungs, in ladder order, and where their runs are; it is written before any rung is played,
so the same command resumes a stopped frontier rung by rung (each rung run resumes as ``simulate``
does, and refuses a rung that holds another run); a frontier.json of another study (``IDENTITY``) is
never replaced.  ``analysis.frontier`` reads it.
"""
from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass

from . import runformat, runner
from .errors import UserError

FRONTIER_FORMAT = "kalooki-lab frontier"
FRONTIER_FILE = "frontier.json"
FRONTIER_DIR = "frontier"  # a run's frontier lives in RUN/frontier (what `kalooki report RUN` reads)
# The bot ladder, weakest first: each rung a player that should beat the one below it.
LADDER = ("greedy", "expert", "lookahead", "search")
PLAYERS = 4
# What makes two frontiers the same study (their rungs may differ: a rung can be added to a frontier).
IDENTITY = ("profiles", "games", "seed", "players", "paired_profiles")


def available_rungs() -> list[str]:
    """The ladder's bots that are registered (``sim.bots.BOTS``), in ladder order."""
    from .bots import BOTS
    return [r for r in LADDER if r in BOTS]


def parse_rungs(text: str | None) -> list[str]:
    """--rungs A,B,...: at least two registered ladder bots, each once, put in ladder order."""
    have = available_rungs()
    if text is None:
        if len(have) < 2:
            raise UserError(f"the bot ladder has {len(have)} registered bot(s) ({', '.join(have)}); a frontier "
                            "needs two rungs or more")
        return have
    names = [n.strip() for n in text.split(",") if n.strip()]
    for n in names:
        if n not in have:
            raise UserError(f"--rungs: {n!r} is not a rung of the bot ladder; allowed: {', '.join(have)} "
                            f"(the ladder {', '.join(LADDER)}, those registered)")
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise UserError(f"--rungs: {twice[0]!r} is named twice; name each rung once")
    if len(names) < 2:
        raise UserError(f"--rungs {text!r}: give two rungs or more, e.g. {','.join(have[:2])}")
    return [r for r in LADDER if r in names]


def frontier_dir(out: str) -> str:
    """Where the frontier goes for --out: ``OUT/frontier`` when OUT holds a run, else OUT itself."""
    loc = runformat.locate(out, "--out")
    try:
        data = runformat.read_bytes(loc.fs, loc.path(runformat.MANIFEST_NAME))
    except OSError:
        data = None
    if data is not None:
        try:
            is_run = json.loads(data).get("format") == runformat.RUN_FORMAT
        except (ValueError, AttributeError):
            is_run = False
        if is_run:
            return runformat.join_uri(out, FRONTIER_DIR)
    return out


@dataclass(frozen=True)
class Frontier:
    out: str
    rungs: tuple
    configs: dict  # rung -> runner.RunConfig
    plans: dict  # rung -> runner.Plan
    players: int

    def document(self, command: str, complete: bool) -> dict:
        first = self.configs[self.rungs[0]]
        return {"format": FRONTIER_FORMAT, "rungs": list(self.rungs),
                "runs": {r: r for r in self.rungs}, "run_ids": {r: p.run_id for r, p in self.plans.items()},
                "profiles": list(self.plans[self.rungs[0]].profiles), "games": first.games, "seed": first.seed,
                "players": self.players,
                "paired_profiles": first.paired, "command": command, "complete": complete}


def plan(file_values: dict | None, config_path, *, profiles, games, seed, out, rungs, players=None, workers=None,
         shard_games=None, sets=None) -> Frontier:
    """Every rung's run config and plan, checked before anything is written.  A run config lends its
    profiles, games, seed, players, shard size, rule overrides, bot parameters and pairing; its tables
    are replaced by one bot per rung, and its out by ``OUT/frontier``."""
    file_values = {k: v for k, v in (file_values or {}).items() if k not in ("tables", "bots")}
    if out is None:
        if "out" not in file_values:
            raise UserError("no --out given (or a run config with out): name the frontier's directory")
        out = runformat.join_uri(str(file_values["out"]), FRONTIER_DIR)
    else:
        out = frontier_dir(out)
    file_values.pop("out", None)
    n = runner.make_config(file_values, config_path, profiles=profiles, games=games, seed=seed, out=out,
                           players=players, workers=workers, shard_games=shard_games, sets=sets).players or PLAYERS
    configs, plans = {}, {}
    for rung in rungs:
        cfg = runner.make_config(file_values, config_path, profiles=profiles, games=games, seed=seed,
                                 out=runformat.join_uri(out, rung), bots=",".join([rung] * n), players=n,
                                 workers=workers, shard_games=shard_games, sets=sets)
        configs[rung], plans[rung] = cfg, runner.make_plan(cfg)
    return Frontier(out, tuple(rungs), configs, plans, n)


def write_document(frontier: Frontier, command: str, complete: bool) -> None:
    loc = runformat.locate(frontier.out, "--out")
    runformat.check_reachable(loc, "--out")
    found = runformat.kind(loc, "--out")
    if found == runformat.pafs.FileType.File:
        raise UserError(f"--out {frontier.out!r} is a file; give a directory for the frontier")
    is_dir = found == runformat.pafs.FileType.Directory
    old = runformat.read_bytes(loc.fs, loc.path(FRONTIER_FILE)) if is_dir else None
    others = [i for i in runformat.list_root(loc) if runformat.base_name(i.path) not in frontier.rungs] if is_dir else []
    if old is None and others:
        raise UserError(f"--out {frontier.out!r} is not empty and holds no {FRONTIER_FILE}, so it is not a "
                        "kalooki-lab frontier; give a new or empty directory (or an earlier frontier to resume it)")
    if old is not None:
        try:
            found = json.loads(old)
            assert isinstance(found, dict) and found.get("format") == FRONTIER_FORMAT
        except (ValueError, AssertionError):
            raise UserError(f"--out {frontier.out!r}: {FRONTIER_FILE} is not a kalooki-lab frontier; move it away "
                            "to start the frontier there") from None
        mine = frontier.document(command, complete)
        diffs = [f"{key}: {json.dumps(found.get(key))} there, {json.dumps(mine[key])} now" for key in IDENTITY
                 if found.get(key) != mine[key]]
        if diffs:
            raise UserError(f"--out {frontier.out!r} already holds another frontier; settings that differ: "
                            f"{'; '.join(diffs)}. Re-run with that frontier's settings to resume it, or choose "
                            "another --out")
    runformat.write_bytes_atomic(loc.fs, loc.path(FRONTIER_FILE),
                                 (json.dumps(frontier.document(command, complete), indent=1) + "\n").encode())


def run(frontier: Frontier, *, command: str, local: bool = False, address: str | None = None,
        progress: bool = False, log=None) -> dict:
    """Play (or resume) every rung's run, the kernels compiled and Ray started once; the frontier's
    document, marked complete."""
    log = log or (lambda msg: None)
    for rung in frontier.rungs:  # a rung's --out that holds another run: refused before anything is played
        loc = runformat.locate(frontier.configs[rung].out, "--out")
        old = runformat.manifest_to_resume(loc, runner.storage.is_dir_empty_or_missing)
        diffs = runner.config_differences(old, frontier.plans[rung]) if old is not None else []
        if diffs:
            raise UserError(f"--out {frontier.out!r}: rung {rung} already holds a different run (run_id "
                            f"{old.get('run_id')}); settings that differ: {'; '.join(diffs)}. Re-run with that "
                            "frontier's settings to resume it, or choose another --out")
    write_document(frontier, command, complete=False)
    runner.warm_up(frontier.rungs, announce=progress)
    with contextlib.nullcontext() if local else runner.ray_session(frontier.configs[frontier.rungs[0]].workers,
                                                                  address, frontier.out):
        for rung in frontier.rungs:
            log(f"frontier rung {rung}: {','.join([rung] * frontier.players)} at every table")
            runner.run(frontier.configs[rung], local=local, progress=progress, log=log,
                       command=f"{command}  # rung {rung}")
    write_document(frontier, command, complete=True)
    return frontier.document(command, True)
