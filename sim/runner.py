"""The runner: a run driven from its config to a complete manifest.  ``run`` plans the run
(``sim.runplan``), checks and holds --out, resumes what an earlier run left (``sim.runmanifest``),
compiles the kernels once, plays the missing shards here or on Ray (``sim.runexec``) and rewrites
``OUT/manifest.json`` atomically after every finished shard; ``run_local`` plays every shard in this
process.

A run is planned as shards of whole games, each played by the serial ``run_shard(spec) -> tables`` and
written by whoever played it.  Shard ``i`` of profile ``P`` lands in
``OUT/{hands,games[,turns]}/profile=P/part-0000i.parquet``, with its summary file written by the step
the command hands in (``summarise``).  The manifest lists exactly the files that make up the run, so
a run stopped at any point resumes by redoing the shards it lacks (or whose files no longer match
it), and no game is ever recorded twice.

The runner is split by job: ``sim.runconfig`` (what a run is asked to do), ``sim.runplan`` (its
profiles, seats, shards and run id), ``sim.runexec`` (shards played and written, here or on Ray),
``sim.runmanifest`` (the manifest and what a resume keeps); this module ties them together.  The
files' layout and the integrity check belong to ``sim.runformat``.
"""
from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass, field

from . import runexec, runformat, runmanifest, runplan, storage
from .errors import UserError, is_interrupt
from .runconfig import RunConfig
from .runexec import ShardJob, SummaryStep
from .runplan import Plan


def warm_up(bots=None, *, announce: bool = False) -> None:
    """Compile (or load) the kernels the run's ``bots`` need (None: every bot) once here, so workers
    load them from the disk cache instead of each compiling them (``sim.bots.hand_loop.warm_up``: the
    hand loop and the Python engine's decisions, in up to three processes at once from an empty
    cache).  A named setting (``NAME.SETTING``) needs its bot's kernels, a graded player (``NAME@EPS``) its bot's
    and the random bot's."""
    from .bots import split_name
    from .bots.hand_loop import warm_up
    if bots is not None:
        names = set()
        for b in bots:
            base, _, eps = split_name(str(b))
            names.add(base)
            if eps is not None:
                names.add("random")
        bots = sorted(names)
    warm_up(bots, announce=announce)


@dataclass
class RunResult:
    out: str
    manifest: dict
    games: int = 0  # games played by this invocation
    hands: int = 0
    hand_rows: int = 0
    seconds: float = 0.0  # wall time of this invocation's playing, Ray's start-up included
    startup_seconds: float = 0.0  # starting or joining Ray
    compile_seconds: float = 0.0  # compiling (or loading) the kernels, before Ray: not in ``seconds``
    shards_run: int = 0
    shards_kept: int = 0
    workers: int = 1
    summaries: list = field(default_factory=list)

    @property
    def hands_per_s(self) -> float:
        """Hands per second once Ray is up (its start-up is reported apart)."""
        busy = self.seconds - self.startup_seconds
        return self.hands / busy if busy > 0 else 0.0


def _command_line(config: RunConfig) -> str:
    import shlex
    parts = ["kalooki", "simulate"]
    for p in config.profiles:
        parts += ["--profile", p]
    common = None
    for p, s in config.sets.items():
        common = s if common is None else {k: v for k, v in common.items() if s.get(k) == v}
    for k, v in (common or {}).items():
        parts += ["--set", f"{k}={json.dumps(v) if not isinstance(v, bool) else str(v).lower()}"]
    parts += ["--games", str(config.games), "--seed", str(config.seed), "--out", config.out]
    if config.bots:
        parts += ["--bots", ",".join(config.bots)]
    if config.tables:
        parts += ["--tables", "; ".join(f"{t.name}={','.join(t.bots)}:{t.weight}" for t in config.tables)]
    if config.paired:
        parts.append("--paired")
    if config.players:
        parts += ["--players", str(config.players)]
    parts += ["--shard-games", str(config.shard_games)]
    if config.events:
        parts += ["--events", "turns"]
    return shlex.join(parts)


def _progress(total: int, initial: int, enabled: bool, label: str = "simulate"):
    """The games bar, named by ``label``: drawn only when asked for and stderr is a terminal (never into
    a log file)."""
    from tqdm import tqdm
    return tqdm(total=total, initial=initial, unit="game", desc=label, file=sys.stderr,
                disable=not (enabled and sys.stderr.isatty()), dynamic_ncols=True, smoothing=0.1)

def run(config: RunConfig, *, summarise: SummaryStep, local: bool = False, address: str | None = None,
        progress: bool = True, shard_fn=None, command: str | None = None, log=None, flag: str = "--out",
        label: str = "simulate", eta=None) -> RunResult:
    """Plan, check --out, resume what an earlier run left, play the missing shards, complete the manifest.

    An interrupt (Ctrl-C) ends the run as a ``KeyboardInterrupt`` whose message says how many shards
    are written and that the same command resumes the run (the finished shards are in the manifest).
    ``summarise`` writes each shard's summary file (``sim.runexec.SummaryStep``; the command's choice,
    ``analysis.summaries.write_shard_summary``) and travels to the workers with the shard.
    ``flag`` names the option that gave ``config.out`` in errors (--out, or a sweep's --runs);
    ``label`` starts the progress bar ("simulate", "skill {profile}": the profile of the shard that
    finished last); ``eta`` (optional) is
    told each finished shard's (games, seconds) and says the time left instead of the run itself
    (a frontier's estimate over all its rungs)."""
    log = log if log is not None else (lambda msg: print(msg, file=sys.stderr))
    plan = runplan.make_plan(config)
    loc = runformat.locate(config.out, flag)
    old = runformat.manifest_to_resume(loc, storage.is_dir_empty_or_missing, flag)
    if old is not None:
        diffs = runmanifest.config_differences(old, plan)
        if diffs:
            hint = ("It was made by another engine version, so it cannot be resumed: move or delete it, or "
                    "choose another --out" if any(d.startswith("engine_version") for d in diffs) else
                    "A profile's rules differ from those its data were played with: give the new rules "
                    "another --out (or the profile another name), or put them back to resume that run"
                    if any(d.startswith("profile ") for d in diffs) else
                    "Re-run with that run's settings to resume it, or choose another --out")
            raise UserError(f"{flag} {config.out!r} already holds a different run (run_id {old.get('run_id')}); "
                            f"settings that differ: {storage.differences_text(diffs)}. {hint}")
    # A complete run with every shard intact has nothing to play: no kernels to load, no Ray to start.
    kept = runmanifest.intact_shards(loc, old, plan) if old is not None and old.get("complete") else None
    if kept is not None and len(kept) == sum(len(pp.shards) for pp in plan.profiles.values()):
        local = True
    else:
        kept = None  # something to play: checked again once this driver holds --out
    try:
        # The kernels before Ray, so that neither's time is taken for the other's; Ray before anything
        # is written, so that a start-up failure (a bad --address) leaves nothing, not even the directory;
        # an unwritable local --out refused before either.
        compile_seconds = 0.0
        if kept is None:
            storage.refuse_unwritable(loc, flag)
            t = time.perf_counter()
            warm_up({b for pp in plan.profiles.values() for t in pp.tables for b in t.bots}, announce=True)
            compile_seconds = time.perf_counter() - t
        ray_started, ray_workers, ray_seconds = False, 1, 0.0
        if not local:
            t = time.perf_counter()
            ray_started, ray_workers = runexec.start_ray(config.workers, address, config.out)
            ray_seconds = time.perf_counter() - t
        try:
            storage.ensure_writable(loc, flag)
            lock = storage.acquire_lock(loc, flag)
            try:
                return _run_claimed(config, plan, loc, old, local=local, ray_workers=ray_workers,
                                    ray_seconds=ray_seconds, compile_seconds=compile_seconds, progress=progress,
                                    shard_fn=shard_fn, summarise=summarise, command=command, log=log, kept=kept,
                                    flag=flag, label=label, eta=eta)
            finally:
                storage.release_lock(lock)
        finally:
            if ray_started:
                import ray
                ray.shutdown()
    except BaseException as e:
        if not is_interrupt(e) or isinstance(e, KeyboardInterrupt) and e.args:
            raise
        raise KeyboardInterrupt(f"interrupted before playing: nothing was written to {config.out}; run the same "
                                "command again to start (or resume) the run") from None


def duration_text(seconds: float) -> str:
    """A rough duration for a person: "40 s", "12 min", "2 h 10 min", "3.5 days"."""
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    minutes = round(seconds / 60)
    if minutes < 90:
        return f"{minutes} min"
    if minutes < 48 * 60:
        return f"{minutes // 60} h {minutes % 60} min"
    return f"{seconds / 86400:.1f} days"


def _run_claimed(config: RunConfig, plan: Plan, loc: runformat.RunLocation, old: dict | None, *, local, ray_workers,
                 ray_seconds, compile_seconds, progress, shard_fn, summarise, command, log, kept=None,
                 flag="--out", label="simulate", eta=None) -> RunResult:
    """``run`` once this driver holds --out: resume, play the missing shards, complete the manifest.
    ``kept``: every shard, intact, when ``run`` has already checked them (nothing to play)."""
    storage.remove_temp_files(loc)
    kept = runmanifest.intact_shards(loc, old, plan) if kept is None else kept
    manifest = runmanifest.new_manifest(plan, command or _command_line(config), created=(old or {}).get("created"))
    manifest["shards"] = list(kept)
    done_keys = {(e["profile"], e["index"]) for e in kept}
    jobs = []
    from .records import ShardSpec
    for name, pp in plan.profiles.items():
        for index, first, n in pp.shards:
            if (name, index) in done_keys:
                continue
            spec = ShardSpec(profile=pp.profile, bots=list(pp.tables[0].bots), seed=config.seed,
                             first_game=first, n_games=n, run_id=plan.run_id, events=config.events,
                             bot_params=config.bot_params, rotate=True, paired=config.paired,
                             duplicate=config.duplicate, tables=tuple((t.name, t.bots, t.weight) for t in pp.tables))
            jobs.append(ShardJob(spec, index, config.out, plan.tables, summarise))
    # Profiles interleaved (a steadier rate and time left), short last shards at the end.
    jobs.sort(key=lambda j: (j.spec.n_games < config.shard_games, j.index))
    planned = sum(len(pp.shards) for pp in plan.profiles.values())
    result = RunResult(out=config.out, manifest=manifest, shards_kept=len(kept), compile_seconds=compile_seconds)
    if not jobs and old is not None and old.get("complete") is True and len(kept) == len(old["shards"]):
        result.manifest = old  # complete and intact: nothing is played and nothing written
        log(f"nothing to do: all {len(kept)} shard(s) of run {plan.run_id} in {config.out} are complete and intact")
        return result
    try:
        runmanifest.write_manifest(loc, manifest)
    except (OSError, runformat.pa.ArrowException) as e:
        raise UserError(f"{flag} {config.out!r}: cannot write manifest.json: {e}") from None
    if kept and jobs:
        log(f"resuming run {plan.run_id} in {config.out}: {len(kept)} shard(s) already done, {len(jobs)} to play")
    kept_games = sum(e["n_games"] for e in kept)
    bar = _progress(plan.total_games, kept_games, progress and bool(jobs),
                    label.format(profile=jobs[0].spec.profile.name) if jobs else label)
    t0 = time.perf_counter() - ray_seconds  # Ray, started by ``run`` before anything was written, counts
    t_play = time.perf_counter()
    # the time left is said once, when every worker has finished a shard (or no shard is left to wait for)
    first_wave = min(len(jobs), ray_workers if not local else 1)

    def on_done(summary):
        manifest["shards"].append(runmanifest.manifest_entry(summary))
        runmanifest.write_manifest(loc, manifest)
        result.summaries.append(summary)
        result.games += summary["n_games"]
        result.hands += summary["hands"]
        result.hand_rows += summary["files"]["hands"]["rows"]
        result.shards_run += 1
        bar.update(summary["n_games"])
        if "{profile}" in label:  # the profile whose shard just finished (profiles are interleaved)
            bar.set_description(label.format(profile=summary["profile"]), refresh=False)
        elapsed = time.perf_counter() - t_play
        overall = eta(result.games, elapsed) if eta is not None and elapsed > 0 else None
        bar.set_postfix_str(", ".join(t for t in (f"{result.hands / elapsed:.0f} hands/s" if elapsed > 0 else "",
                                                   overall) if t))
        games_left = plan.total_games - kept_games - result.games
        if result.shards_run == first_wave and games_left > 0 and elapsed > 0:
            bar.clear()
            log(f"about {duration_text(games_left * elapsed / result.games)} left at "
                f"{result.hands / elapsed:,.0f} hands/s ({games_left:,} of {plan.total_games - kept_games:,} "
                f"games to play, timed on the first {result.shards_run} shard(s))"
                + (f"; {overall}" if overall else ""))
            bar.refresh()

    try:
        if jobs and not local:
            result.workers = ray_workers
            result.startup_seconds = ray_seconds
            runexec.execute_ray(jobs, shard_fn, on_done, result.workers)
        elif jobs:
            runexec.execute_local(jobs, shard_fn, on_done)
        result.seconds = time.perf_counter() - t0
    except OSError as e:
        storage.remove_temp_files(loc)
        raise UserError(f"writing the run to {flag} {config.out!r} failed: {e}. The {len(manifest['shards'])} "
                        "shard(s) finished are kept and listed in manifest.json; free space or fix the "
                        "location, then re-run the same command to finish") from None
    except BaseException as e:
        storage.remove_temp_files(loc)
        if is_interrupt(e):
            raise KeyboardInterrupt(f"interrupted: {len(manifest['shards'])} of {planned} shards written to "
                                    f"{config.out}; run the same command again to resume") from None
        raise
    finally:
        bar.close()
    manifest["complete"] = True
    runmanifest.write_manifest(loc, manifest)
    if jobs:
        before = [f"{compile_seconds:.1f} s compiling or loading the kernels"]
        if not local:
            before.append(f"{result.startup_seconds:.1f} s starting Ray")
        log(f"done: {result.games} games, {result.hands} hands ({result.hand_rows} hand rows) in "
            f"{result.seconds - result.startup_seconds:.1f} s = {result.hands_per_s:.0f} hands/s"
            + (f" on {result.workers} worker(s)" if not local else " in-process")
            + (f" ({len(kept)} shard(s) kept from before)" if kept else "") + f" -> {config.out}"
            + f"; before playing: {', '.join(before)}")
    else:
        log(f"nothing to do: all {len(kept)} shard(s) of run {plan.run_id} in {config.out} are complete and intact")
    return result


def run_local(config: RunConfig, **kwargs) -> RunResult:
    """The same run, every shard played in this process (tests, debugging, bench)."""
    return run(config, local=True, **kwargs)
