"""The bot ladder measured at the game: each rung of ``sim.frontier.LADDER`` (greedy < expert < search)
against three of the rung below it, in duplicate, in each profile (``kalooki ladder``).  A rung is on
the ladder because it beats the one below at the game, as measured here; the lookahead, stronger than
the expert at the hand, is not measured stronger at the game, so it is a bot and not a rung.

A ladder study is one run per step (``STUDY/UPPER``: the upper rung at one seat, the rung below at the
other three), each an ordinary resumable run of ``sim.runner`` played as duplicate games: game g is
rotation g % 4 of deal g // 4, every rotation of a deal from the same seat-keyed stock (``sim.records``),
so the upper rung meets the same cards from every seat and only who holds them changes (a duplicate
run of the runner: its manifest records the design, and its shards are the skill study's,
``sim.skill.duplicate_shard``).  Every step
uses the same seed, so step s's deal d is step t's deal d: the steps differ by the bots alone.
``STUDY/ladder.json`` names the steps in ladder order, their runs and games, the profiles with their
rules hashes and whether money changes hands in each (``Profile.pays_money``); ``analysis.ladder``
reads it.  The study lives in ``RUN/ladder`` (``kalooki report RUN`` shows it, and the frontier beside
it in ``RUN/frontier`` takes its measured order from it) and follows the rule of every output folder
(``sim.storage.claim_study``): a new study is played in the hidden ``RUN/.ladder.partial`` (the same
command resumes it there, step by step, each run resuming as ``simulate`` does) and moved into place
when complete; a study of the same settings (``IDENTITY``) is resumed in place; one of other settings
is replaced only with --force.
"""
from __future__ import annotations

import contextlib
import dataclasses
import json
from dataclasses import dataclass

from . import frontier, runconfig, runexec, runformat, runner, runplan, storage
from .errors import UserError
from .skill import duplicate_shard

LADDER_FORMAT = "kalooki-lab ladder"
LADDER_FILE = "ladder.json"
LADDER_DIR = "ladder"  # a run's ladder study lives in RUN/ladder (what `kalooki report RUN` reads)
DEFAULT_SEED = 1
SEATS = 4  # the upper rung at one seat, the rung below at the other three
# What makes two ladder studies the same study.
IDENTITY = ("profiles", "rules", "steps", "seed", "players")


@dataclass(frozen=True)
class Step:
    """One rung of the ladder against three of the rung below, ``games`` games per profile."""
    upper: str
    lower: str
    games: int

    @property
    def bots(self) -> list[str]:
        return [self.upper] + [self.lower] * (SEATS - 1)

    @property
    def cost(self) -> float:
        """A game's time relative to four greedy bots' (``sim.frontier.RUNG_COST``)."""
        return sum(frontier.RUNG_COST.get(b, 1.0) for b in self.bots) / len(self.bots)


def parse_rungs(text: str | None) -> list[str]:
    """--rungs A,B,...: the upper rungs to measure, each against the rung below it (so never the bottom
    rung); default every registered rung above the bottom one, in ladder order."""
    have = frontier.available_rungs()
    if len(have) < 2:
        raise UserError(f"the bot ladder has {len(have)} registered bot(s) ({', '.join(have)}); a ladder study "
                        "needs two rungs or more")
    above = have[1:]
    if text is None:
        return above
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise UserError(f"--rungs {text!r}: name one rung or more of {', '.join(above)}")
    for n in names:
        if n == have[0]:
            raise UserError(f"--rungs: {n!r} is the bottom rung, measured only as the rung below {have[1]}; "
                            f"allowed: {', '.join(above)}")
        if n not in have:
            raise UserError(f"--rungs: {n!r} is not a rung of the bot ladder; allowed: {', '.join(above)} (each "
                            f"measured against the rung below it on the ladder {', '.join(have)})")
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise UserError(f"--rungs: {twice[0]!r} is named twice; name each rung once")
    return [r for r in above if r in names]


def parse_games_at(items, rungs: list[str], games: int) -> dict:
    """--games-at RUNG=N (repeatable) -> {rung: games}: every rung's games per profile, --games where not
    given; each a positive multiple of the seats (whole deals)."""
    out = {r: games for r in rungs}
    for item in items or []:
        name, sep, value = (x.strip() for x in str(item).partition("="))
        if not sep:
            raise UserError(f"--games-at {item!r}: write RUNG=N, e.g. search=40")
        if name not in rungs:
            raise UserError(f"--games-at {item!r}: {name!r} is not a rung measured here; rungs: {', '.join(rungs)}")
        try:
            out[name] = int(value)
        except ValueError:
            raise UserError(f"--games-at {item!r}: {value!r} is not an integer; allowed: a positive multiple of "
                            f"{SEATS}") from None
    for rung, n in out.items():
        if n <= 0 or n % SEATS:
            flag = "--games" if n == games else f"--games-at {rung}="
            raise UserError(f"{flag}{'' if flag.endswith('=') else ' '}{n}: each deal is played once per rotation "
                            f"of the {SEATS} seats, so give a positive multiple of {SEATS}")
    return out


def default_shard_games(step: Step) -> int:
    """Games per shard: about 25 greedy games' time (a slow step in small shards, so that Ray's workers
    share it), whole deals, at most the step's games."""
    deals = max(1, round(25 / step.cost))
    return min(step.games, SEATS * deals)


@dataclass(frozen=True)
class Ladder:
    out: str
    steps: tuple  # Step, in ladder order
    configs: dict  # upper rung -> runconfig.RunConfig
    plans: dict  # upper rung -> runplan.Plan
    money: dict  # profile -> whether money changes hands
    game_end: dict  # profile -> its game_end rule

    def document(self, command: str, complete: bool) -> dict:
        first = self.plans[self.steps[0].upper]
        return {"format": LADDER_FORMAT,
                "steps": [{"upper": s.upper, "lower": s.lower, "games": s.games, "run": s.upper} for s in self.steps],
                "run_ids": {u: p.run_id for u, p in self.plans.items()},
                "profiles": list(first.profiles),
                "rules": {n: pp.profile.rules_hash() for n, pp in first.profiles.items()},
                "money": dict(self.money), "game_end": dict(self.game_end),
                "seed": self.configs[self.steps[0].upper].seed, "players": SEATS,
                "command": command, "complete": complete}

    def identity(self) -> dict:
        doc = self.document("", True)
        doc["steps"] = [[s["upper"], s["lower"], s["games"]] for s in doc["steps"]]
        return {k: doc[k] for k in IDENTITY}


def plan(*, profiles, rungs, games: dict, seed: int, out: str, workers=None, shard_games=None, sets=None) -> Ladder:
    """Every step's run config and plan, checked before anything is written; ``out`` is the run's folder
    (the study goes to ``OUT/ladder``), ``games`` {upper rung: games per profile}."""
    have = frontier.available_rungs()
    where = runformat.join_uri(out, LADDER_DIR)
    steps = tuple(Step(r, have[have.index(r) - 1], games[r]) for r in rungs)
    if shard_games is not None and shard_games % SEATS:
        raise UserError(f"--shard-games {shard_games}: a shard holds whole deals, so give a multiple of {SEATS}")
    configs, plans = {}, {}
    for s in steps:
        cfg = runconfig.make_config(None, None, profiles=list(profiles), games=s.games, seed=seed,
                                    out=runformat.join_uri(where, s.upper), players=SEATS, workers=workers,
                                    shard_games=shard_games or default_shard_games(s), events=None, sets=sets or [],
                                    tables=[{"name": ",".join(s.bots), "bots": ",".join(s.bots), "weight": 1}],
                                    paired=None, duplicate=True)
        configs[s.upper], plans[s.upper] = cfg, runplan.make_plan(cfg)
    first = plans[steps[0].upper]
    money = {n: bool(pp.profile.pays_money) for n, pp in first.profiles.items()}
    ends = {n: pp.profile.game_end for n, pp in first.profiles.items()}
    return Ladder(where, steps, configs, plans, money, ends)


def read_mark(loc) -> dict | None:
    """A ladder.json as ``sim.storage.claim_output`` reads a mark (None where there is none)."""
    doc = runformat.read_document(loc, LADDER_FILE, LADDER_FORMAT)
    if doc is None:
        return None
    identity = {k: doc.get(k) for k in IDENTITY}
    identity["steps"] = [[s.get("upper"), s.get("lower"), s.get("games")] for s in doc.get("steps") or []]
    return {"kind": "ladder study", "identity": identity, "about": "a ladder study",
            "complete": doc.get("complete") is True, "doc": doc}


def _write_document(where: str, ladder: Ladder, command: str, complete: bool) -> None:
    loc = runformat.locate(where, "--out")
    doc = ladder.document(command, complete)
    runformat.write_bytes_atomic(loc.fs, loc.path(LADDER_FILE), (json.dumps(doc, indent=1) + "\n").encode())


def estimate_line(ladder: Ladder, workers: int | None, local: bool) -> str:
    """The time the study may take before anything is timed: the greedy table's speed
    (``sim.skill.GAMES_PER_CORE_S``) scaled by each step's ``Step.cost``."""
    import os

    from .skill import GAMES_PER_CORE_S
    cores = 1 if local else (workers or os.cpu_count() or 1)
    n = len(ladder.plans[ladder.steps[0].upper].profiles)
    seconds = sum(n * s.games * s.cost for s in ladder.steps) / GAMES_PER_CORE_S / cores
    total = sum(n * s.games for s in ladder.steps)
    return (f"ladder: up to {total:,} games to play ({n} profile(s); "
            + ", ".join(f"{s.upper} vs 3 {s.lower} {s.games:,}" for s in ladder.steps)
            + f" per profile); roughly {runner.duration_text(seconds)} on {cores} core(s) before it is timed")


def run(ladder: Ladder, *, command: str, summarise: runexec.SummaryStep, local: bool = False,
        address: str | None = None, progress: bool = False, log=None, force: bool = False) -> dict:
    """Play (or resume) every step, the kernels compiled and Ray started once, by the rule of every
    output folder (``sim.storage.claim_study``); returns the study's document.  ``progress``: each
    step's bar, with the time left over every step still to play; ``summarise`` writes each shard's
    summary file (``sim.runner.run``)."""
    log = log or (lambda msg: None)
    output = storage.claim_study(ladder.out, "ladder study", ladder.identity(), read_mark=read_mark,
                                 about="a ladder study", force=force)
    if output.in_place and output.found.get("complete"):
        log(f"ladder: the study in {ladder.out} is complete; nothing to play")
        return output.found["doc"]
    log(estimate_line(ladder, ladder.configs[ladder.steps[0].upper].workers, local))
    where = output.path
    configs = {s.upper: dataclasses.replace(ladder.configs[s.upper], out=runformat.join_uri(where, s.upper))
               for s in ladder.steps}
    if not output.in_place:
        _write_document(where, ladder, command, complete=False)
    runner.warm_up({b for s in ladder.steps for b in s.bots}, announce=progress)
    cost = {s.upper: s.cost for s in ladder.steps}
    clock = frontier.Clock({s.upper: ladder.plans[s.upper].total_games for s in ladder.steps},
                           cost=lambda u: cost[u], what="ladder")
    with contextlib.nullcontext() if local else runexec.ray_session(configs[ladder.steps[0].upper].workers,
                                                                  address, where):
        for s in ladder.steps:
            left = clock.start(s.upper)
            log(f"ladder step {s.upper} vs 3 {s.lower}: {','.join(s.bots)} in every rotation of each deal"
                + (f"; {left}" if left else ""))
            runner.run(configs[s.upper], summarise=summarise, local=local, progress=progress, log=log,
                       shard_fn=duplicate_shard,
                       command=f"{command}  # step {s.upper}", label=f"ladder {s.upper} {{profile}}", eta=clock)
    _write_document(where, ladder, command, complete=True)
    line = output.replacing_line()
    output.publish()
    if line:
        log(f"ladder: {line}")
    return read_mark(runformat.locate(ladder.out))["doc"]
