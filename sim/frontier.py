"""The strength frontier: every profile played at tables of one bot, once per rung of the bot ladder.

A frontier is one run per rung, each a plain run of the runner (``sim.runner``) at ``DIR/RUNG`` (DIR a
local folder or any URI a run can live at, ``sim.runformat``; every file goes through it) with
every seat the rung's bot, all with the same profiles, games and seed.  A game's random stream depends
only on (seed, profile, game number) (``sim.records``), so game g of a profile starts from the same
deal at every rung: the rungs differ by play, and the analysis pairs them game by game (later hands
of a game follow from the same stream, so they stay alike until play has used it differently,
a stock reshuffle for one).  A run's frontier lives in ``RUN/frontier`` (``DIR``), which
``kalooki report RUN`` shows.  ``DIR/frontier.json`` says which rungs, in ladder order, and where
their runs are.  The folder follows the rule of every output folder (``sim.storage.claim_output``): a
new frontier is played in the hidden ``RUN/.frontier.partial`` (the same command resumes it there,
rung by rung, each rung run resuming as ``simulate`` does) and moved into place when complete, so
``RUN/frontier`` holds a whole frontier or none; a frontier of the same settings (``IDENTITY``) is
added to in place (a rung not asked for is kept and said), and one of other settings is replaced
only with --force.  ``analysis.frontier`` reads it.
"""
from __future__ import annotations

import contextlib
import dataclasses
import json
from dataclasses import dataclass

from . import runconfig, runexec, runformat, runmanifest, runner, runplan, storage
from .errors import UserError

FRONTIER_FORMAT = "kalooki-lab frontier"
FRONTIER_FILE = "frontier.json"
FRONTIER_DIR = "frontier"  # a run's frontier lives in RUN/frontier (what `kalooki report RUN` reads)
# The bot ladder, weakest first: each rung beats the one below it at the game (games won and, where money
# changes hands, net payment), measured by `kalooki ladder` (``sim.ladder``).  The lookahead, the
# expert judging its discards one draw ahead, is not measured stronger than the expert at the game, so it
# is a bot and not a rung.
LADDER = ("greedy", "expert", "search")
PLAYERS = 4
# What makes two frontiers the same study (their rungs may differ: a rung can be added to a frontier).
IDENTITY = ("profiles", "rules", "games", "seed", "players", "paired_profiles")


def available_rungs() -> list[str]:
    """The ladder's bots that are registered (``sim.bots.BOTS``), in ladder order."""
    from .bots import BOTS
    return [r for r in LADDER if r in BOTS]


def parse_rungs(text: str | None) -> list[str]:
    """--rungs A,B,...: at least two registered ladder bots, each once, put in ladder order (only rungs of
    the ladder: a bot off it, the lookahead for one, has no place in the frontier's order)."""
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
                            f"(the ladder {', '.join(LADDER)}, those registered; each rung beats the one below "
                            "at the game)")
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise UserError(f"--rungs: {twice[0]!r} is named twice; name each rung once")
    if len(names) < 2:
        raise UserError(f"--rungs {text!r}: give two rungs or more, e.g. {','.join(have[:2])}")
    return [r for r in LADDER if r in names]


@dataclass(frozen=True)
class Frontier:
    out: str
    rungs: tuple
    configs: dict  # rung -> runconfig.RunConfig
    plans: dict  # rung -> runplan.Plan
    players: int

    def document(self, command: str, complete: bool) -> dict:
        first = self.configs[self.rungs[0]]
        return {"format": FRONTIER_FORMAT, "rungs": list(self.rungs),
                "runs": {r: r for r in self.rungs}, "run_ids": {r: p.run_id for r, p in self.plans.items()},
                "profiles": list(self.plans[self.rungs[0]].profiles),
                "rules": {n: pp.profile.rules_hash() for n, pp in self.plans[self.rungs[0]].profiles.items()},
                "games": first.games, "seed": first.seed,
                "players": self.players,
                "paired_profiles": first.paired, "command": command, "complete": complete}


DEFAULT_SEED = 1


def plan(file_values: dict | None, config_path, *, profiles, games, seed, out, rungs, players=None, workers=None,
         shard_games=None, sets=None) -> Frontier:
    """Every rung's run config and plan, checked before anything is written.  ``out`` is the run's folder
    (or, without it, the run config's out): the frontier goes to ``OUT/frontier``.  A run config lends
    its profiles, games, seed, players, shard size, rule overrides, bot parameters and pairing; its
    tables are replaced by one bot per rung.  Without either, the profiles are the skill study's six
    (``sim.skill.DEFAULT_PROFILES``) and the seed is ``DEFAULT_SEED``."""
    from .skill import DEFAULT_PROFILES
    file_values = {k: v for k, v in (file_values or {}).items() if k not in ("tables", "bots")}
    if out is None:
        if "out" not in file_values:
            raise UserError("no --out given (or a run config with out): name the run's folder; the frontier "
                            f"goes to RUN/{FRONTIER_DIR}")
        out = str(file_values["out"])
    out = runformat.join_uri(out, FRONTIER_DIR)
    file_values.pop("out", None)
    if not profiles and "profiles" not in file_values:
        profiles = list(DEFAULT_PROFILES)
    if seed is None and "seed" not in file_values:
        seed = DEFAULT_SEED
    n = runconfig.make_config(file_values, config_path, profiles=profiles, games=games, seed=seed, out=out,
                              players=players, workers=workers, shard_games=shard_games, sets=sets).players or PLAYERS
    configs, plans = {}, {}
    for rung in rungs:
        cfg = runconfig.make_config(file_values, config_path, profiles=profiles, games=games, seed=seed,
                                    out=runformat.join_uri(out, rung), bots=",".join([rung] * n), players=n,
                                    workers=workers, shard_games=shard_games, sets=sets)
        configs[rung], plans[rung] = cfg, runplan.make_plan(cfg)
    return Frontier(out, tuple(rungs), configs, plans, n)


def read_mark(loc) -> dict | None:
    """A frontier.json as ``sim.storage.claim_output`` reads a mark (None where there is none)."""
    doc = runformat.read_document(loc, FRONTIER_FILE, FRONTIER_FORMAT)
    if doc is None:
        return None
    if "rules" not in doc and doc.get("rungs"):  # the rules as its runs' manifests record them
        data = runformat.read_bytes(loc.fs, loc.path(f"{doc['rungs'][0]}/{runformat.MANIFEST_NAME}"))
        entries = (json.loads(data) if data else {}).get("profiles") or {}
        doc["rules"] = {n: e.get("rules_hash") for n, e in entries.items()}
    return {"kind": "frontier", "identity": {k: doc.get(k) for k in IDENTITY}, "about": "a frontier",
            "rungs": list(doc.get("rungs") or []), "complete": doc.get("complete") is True, "doc": doc}


def ladder_order(rungs, recorded=()) -> list[str]:
    """``rungs`` in ladder order.  A rung off the ladder (one a frontier's document ``recorded`` lists,
    kept when rungs are added) stays where that document put it: just above the ladder rung below it
    there."""
    place, below = {}, -1
    for r in recorded:
        if r in LADDER:
            below = LADDER.index(r)
        else:
            place[r] = below + 0.5
    return sorted(dict.fromkeys(rungs), key=lambda r: LADDER.index(r) if r in LADDER else place.get(r, len(LADDER)))


def _write_document(where: str, frontier: Frontier, rungs, command: str, complete: bool, recorded=()) -> None:
    """``where``/frontier.json (written whole, then moved into place) naming ``rungs`` in ladder order
    (``ladder_order``, ``recorded`` the order of the document it replaces)."""
    loc = runformat.locate(where, "--out")
    doc = frontier.document(command, complete)
    shown = ladder_order(rungs, recorded)
    doc.update(rungs=shown, runs={r: r for r in shown},
               run_ids={r: doc["run_ids"].get(r) or _run_id(where, r) for r in shown})
    runformat.write_bytes_atomic(loc.fs, loc.path(FRONTIER_FILE), (json.dumps(doc, indent=1) + "\n").encode())


def _run_id(where: str, rung: str):
    loc = runformat.locate(runformat.join_uri(where, rung))
    data = runformat.read_bytes(loc.fs, loc.path(runformat.MANIFEST_NAME))
    return json.loads(data).get("run_id") if data else None


# A game's time at each rung relative to the greedy rung's, until a rung is timed: the frontier's
# estimate of the time left scales the last timed rung's speed by these.  From the play table of
# docs/PERFORMANCE.md (expert 1/2.1, lookahead 1/5.7 of the greedy loop's speed) and the README's
# 1,000-game frontier (the search rung 70 minutes against 11 for the three below it).
RUNG_COST = {"greedy": 1.0, "expert": 2.1, "lookahead": 5.7, "search": 56.0}


class Clock:
    """The time left over every rung still to play: the rung being played at its measured speed, each
    later rung at the last measured speed scaled by ``cost`` (a rung's time per game, relative;
    ``RUNG_COST`` by default; a ladder study's steps give their own).  Called by the runner after each
    shard with (games played in this rung, seconds)."""

    def __init__(self, games: dict, cost=None, what: str = "frontier"):
        self.games = dict(games)  # rung -> games to play, in the order they are played
        self.current, self.per_game = None, None  # the rung being played; the last measured s/game and its rung
        self.cost, self.what = cost or _cost, what  # a rung's time per game relative to the others'; the study

    def start(self, rung: str) -> str | None:
        self.current = rung
        return self.left(rung, 0, None)

    def left(self, rung: str, done: int, per_game) -> str | None:
        if per_game is None:
            if self.per_game is None:
                return None
            per_game = self.per_game[0] * self.cost(rung) / self.cost(self.per_game[1])
        rungs = list(self.games)
        seconds = max(0, self.games[rung] - done) * per_game
        seconds += sum(self.games[r] * per_game * self.cost(r) / self.cost(rung) for r in rungs[rungs.index(rung) + 1:])
        return f"{self.what}: about {runner.duration_text(seconds)} left in all"

    def __call__(self, done: int, elapsed: float) -> str | None:
        if not done:
            return None
        self.per_game = (elapsed / done, self.current)
        return self.left(self.current, done, elapsed / done)


def _cost(rung: str) -> float:
    return RUNG_COST.get(rung, 1.0)


def _label(rung: str) -> str:
    return f"frontier {rung} {{profile}}"


def run(frontier: Frontier, *, command: str, summarise: runexec.SummaryStep, local: bool = False,
        address: str | None = None, progress: bool = False, log=None, force: bool = False) -> dict:
    """Play (or resume) the frontier's rungs, the kernels compiled and Ray started once, by the rule of
    every output folder (``sim.storage.claim_study``): a new frontier, or one replacing a frontier of
    other settings (``force``), is played in the hidden ``.frontier.partial`` beside ``RUN/frontier``
    (a stop leaves it there for the same command to resume) and moved into place when complete; a
    frontier of the same settings is added to in place, its rungs kept, frontier.json rewritten
    whole only once a new rung is complete (a re-run with nothing to play writes nothing).
    ``summarise`` writes each shard's summary file (``sim.runner.run``).  Returns the frontier's
    document."""
    log = log or (lambda msg: None)
    identity = {k: v for k, v in frontier.document(command, True).items() if k in IDENTITY}
    output = storage.claim_study(frontier.out, "frontier", identity, read_mark=read_mark, about="a frontier",
                                 force=force)
    recorded = []
    if output.in_place:
        old = output.found
        recorded = old["rungs"]
        kept = [r for r in old["rungs"] if r not in frontier.rungs] if old["complete"] else []
        to_play = [r for r in frontier.rungs if not (old["complete"] and r in old["rungs"])]
        if kept:
            log(f"frontier: keeping rung(s) {', '.join(kept)} of the frontier in {frontier.out} (not in --rungs)")
        if to_play and old["complete"]:
            log(f"frontier: adding rung(s) {', '.join(to_play)} to the frontier in {frontier.out}")
        where, rungs = frontier.out, (old["rungs"] if old["complete"] else []) + to_play
    else:
        where, to_play, rungs = output.staging.uri, list(frontier.rungs), list(frontier.rungs)
    configs = {r: dataclasses.replace(frontier.configs[r], out=runformat.join_uri(where, r)) for r in to_play}
    for rung in to_play:  # a rung's folder that holds another run: refused before anything is played
        loc = runformat.locate(configs[rung].out, "--out")
        old_run = runformat.manifest_to_resume(loc, storage.is_dir_empty_or_missing)
        diffs = runmanifest.config_differences(old_run, frontier.plans[rung]) if old_run is not None else []
        if diffs:
            raise UserError(f"--out {frontier.out!r}: rung {rung} already holds a different run (run_id "
                            f"{old_run.get('run_id')}); settings that differ: {storage.differences_text(diffs)}. "
                            "Re-run with that frontier's settings to resume it, or choose another --out")
    if not to_play:
        return output.found["doc"]
    if not output.in_place:
        _write_document(where, frontier, rungs, command, complete=False)
    runner.warm_up(to_play, announce=progress)
    clock = Clock({r: frontier.plans[r].total_games for r in to_play})
    with contextlib.nullcontext() if local else runexec.ray_session(frontier.configs[to_play[0]].workers,
                                                                  address, where):
        for rung in to_play:
            left = clock.start(rung)
            log(f"frontier rung {rung}: {','.join([rung] * frontier.players)} at every table"
                + (f"; {left}" if left else ""))
            runner.run(configs[rung], summarise=summarise, local=local, progress=progress, log=log,
                       command=f"{command}  # rung {rung}", label=_label(rung),
                       eta=clock)
    _write_document(where, frontier, rungs, command, complete=True, recorded=recorded)
    line = output.replacing_line()
    output.publish()
    if line:
        log(f"frontier: {line}")
    return read_mark(runformat.locate(frontier.out))["doc"]
