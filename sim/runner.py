"""The distributed runner: a run is planned as shards of whole games, each played by the serial
``run_shard(spec) -> tables`` and written by whoever played it; Ray is a thin layer over that.
The files' layout, the manifest and the integrity check belong to ``sim.runformat``.

A run is a ``RunConfig`` (profiles, games, seed, out, table compositions, players, workers, shard_games,
events, rule overrides, bot parameters, pairing), validated as a whole into a ``Plan`` before anything is
written.  A run seats one table composition (``--bots``) or a weighted mix of them (``tables``); each
game draws its composition from its own random stream and rotates the seats game by game, as a
tournament does.  A paired run (``paired``) plays game g of every profile from the same deal.
Shard ``i`` of profile ``P`` holds games ``i*shard_games ..`` and lands in
``OUT/{hands,games[,turns]}/profile=P/part-0000i.parquet``.  ``OUT/manifest.json`` is rewritten
atomically after every finished shard; it lists exactly the files that make up the run, so a run
stopped at any point resumes by redoing the shards it lacks (or whose files no longer match it), and
no game is ever recorded twice.  ``run`` executes the shards on Ray workers (each writes its own files
and returns a small summary); ``run_local`` executes the same ``execute_shard`` in this process.
"""
from __future__ import annotations

import contextlib
import dataclasses
import datetime as _dt
import hashlib
import json
import logging
import math
import os
import re
import resource
import signal
import sys
import time
import tomllib
from collections import deque
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path


from . import profiles as PR
from . import runformat, schema, storage
from .errors import UserError, is_interrupt
from .runformat import RUN_FORMAT, shard_path

DEFAULT_SHARD_GAMES = 500
DEFAULT_BOT = "greedy"
MAX_RETRIES = 3  # a task whose worker dies is re-run this many times before the run fails
IN_FLIGHT_PER_WORKER = 2
EVENT_KINDS = ("turns",)
# Test hook: a path; the first Ray task to find it absent creates it and kills its own worker process
# half-way through writing its shard (after its first file), so tests can show a killed worker's
# task is retried and no game is lost or doubled.  Never set outside tests.
FAULT_ENV = "KALOOKI_FAULT_KILL_WORKER_ONCE"

CONFIG_KEYS = {
    "profiles": "a list of profile names, e.g. [\"kalooki40\", \"scala40\"]",
    "games": "a positive integer (games per profile)",
    "seed": "an integer >= 0",
    "out": "an output directory: a path or a URI such as s3://bucket/prefix",
    "bots": "a list of bot names, one per seat (see sim.bots.BOTS)",
    "players": "an integer, within each profile's min_players..max_players",
    "workers": "a positive integer",
    "shard_games": "a positive integer (games per shard)",
    "events": "\"turns\" to record every turn, or \"none\"",
    "sets": "a table of rule parameter = value (every profile), or profile = { parameter = value }",
    "bot_params": "a table of bot name = { parameter = value }",
    "tables": "a list of table compositions { bots = \"a,b,c,d\", weight = 1, name = \"...\" } (name optional)",
    "paired": "true to deal game g of every profile from the same shuffled pack (common deals), or false",
    "duplicate": "true to play each deal once per rotation of the seats (games d*n .. d*n+n-1 share deal d), "
                 "or false",
}
CLI_FLAGS = {"profiles": "--profile", "games": "--games", "seed": "--seed", "out": "--out", "bots": "--bots",
             "players": "--players", "workers": "--workers", "shard_games": "--shard-games",
             "events": "--events", "sets": "--set", "bot_params": "bot_params", "tables": "--tables",
             "paired": "--paired", "duplicate": "duplicate"}


# ----------------------------------------------------------------------------------------------
# configuration

@dataclass(frozen=True)
class TableMix:
    """One table composition of a run: the bots in seat order (rotated game by game), its weight among
    the run's compositions, and the name its games carry in the ``table`` column."""
    name: str
    bots: tuple
    weight: float = 1.0

    def to_json(self) -> dict:
        return {"name": self.name, "bots": list(self.bots), "weight": self.weight}


@dataclass(frozen=True)
class RunConfig:
    """Everything a run is asked to do.  ``sets`` maps profile name -> {parameter: value}."""
    profiles: tuple
    games: int
    seed: int
    out: str
    bots: tuple | None = None
    players: int | None = None
    workers: int | None = None
    shard_games: int = DEFAULT_SHARD_GAMES
    events: bool = False
    sets: dict = field(default_factory=dict)
    bot_params: dict = field(default_factory=dict)
    tables: tuple | None = None  # TableMix entries; None: one composition (bots, else greedy in every seat)
    paired: bool = False
    duplicate: bool = False  # game g is rotation g % n of deal g // n (skill studies)

    def to_json(self) -> dict:
        return {"profiles": list(self.profiles), "games": self.games, "seed": self.seed, "out": self.out,
                "bots": list(self.bots) if self.bots else None, "players": self.players,
                "workers": self.workers, "shard_games": self.shard_games,
                "events": "turns" if self.events else "none",
                "sets": {p: dict(v) for p, v in self.sets.items() if v}, "bot_params": self.bot_params,
                "tables": [t.to_json() for t in self.tables] if self.tables else None, "paired": self.paired,
                **({"duplicate": True} if self.duplicate else {})}


def read_run_config(path) -> dict:
    """The keys of a run-config TOML file, each checked to be known (values are checked later)."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text())
    except OSError as e:
        raise UserError(f"--config {path}: cannot read the run config: {e.strerror}") from None
    except tomllib.TOMLDecodeError as e:
        raise UserError(f"--config {path}: malformed TOML: {e}") from None
    except UnicodeDecodeError as e:
        raise UserError(f"--config {path}: not a text file ({e})") from None
    for key in data:
        if key not in CONFIG_KEYS:
            raise UserError(f"{path}: unknown key {key!r}; allowed keys: {', '.join(CONFIG_KEYS)}")
    return data


def _bot_names() -> list[str]:
    from .bots import BOTS  # imported late: the bots pull in the compiled meld search
    return sorted(BOTS)


def _bot_name_error(name: str) -> str | None:
    """Why a seat's name names no player (a bot of ``_bot_names`` or a graded one, ``NAME@EPS``)."""
    from .bots import bot_name_error
    return bot_name_error(name)


def _where(key: str, config_path) -> str:
    return f"{config_path}: key {key!r}" if config_path else CLI_FLAGS[key]


def _int(value, key: str, where: str, lo: int, hi: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise UserError(f"{where} = {value!r} must be an integer; allowed: {CONFIG_KEYS[key]}")
    if value < lo or (hi is not None and value > hi):
        allowed = f"{lo}..{hi}" if hi is not None else f">= {lo}"
        raise UserError(f"{where} = {value!r} is not allowed; allowed: {allowed} ({CONFIG_KEYS[key]})")
    return value


def _check_sets_table(table: dict, where: str, run_names: dict) -> dict:
    """{parameter: value} applying to every profile, or {profile: {parameter: value}} -> per profile as
    given (``run_names`` maps each profile as given to its name in the run; either names it here)."""
    if not isinstance(table, dict):
        raise UserError(f"{where} = {table!r} must be a table; allowed: {CONFIG_KEYS['sets']}")
    given = {**{n: p for p, n in run_names.items()}, **{p: p for p in run_names}}
    profile_names = list(run_names)
    common, per_profile = {}, {}
    for key, value in table.items():
        if key in PR.PARAM_NAMES:
            common[key] = value
        elif key in given:
            if not isinstance(value, dict):
                raise UserError(f"{where}: {key} = {value!r} must be a table of rule parameter = value")
            for k in value:
                if k not in PR.PARAM_NAMES:
                    raise UserError(f"{where}: {key}.{k}: unknown rule parameter {k!r}; "
                                    f"allowed: {', '.join(PR.PARAM_NAMES)}")
            per_profile[given[key]] = dict(value)
        else:
            raise UserError(f"{where}: {key!r} is neither a rule parameter nor one of this run's profiles "
                            f"({', '.join(profile_names)}); rule parameters: {', '.join(PR.PARAM_NAMES)}")
    return {p: {**common, **per_profile.get(p, {})} for p in profile_names}


def parse_tables_text(text: str) -> list[dict]:
    """``--tables`` on the command line: compositions separated by ';', each ``[NAME=]BOTS[:WEIGHT]``,
    e.g. ``casual=greedy,greedy,greedy,greedy:1; expert,expert,expert,expert:1``."""
    entries = []
    for part in text.split(";"):
        part = part.strip()
        if not part:
            continue
        entry = {}
        if "=" in part:
            entry["name"], part = (x.strip() for x in part.split("=", 1))
        if ":" in part:
            part, weight = (x.strip() for x in part.rsplit(":", 1))
            try:
                entry["weight"] = float(weight) if any(c in weight for c in ".eE") else int(weight)
            except ValueError:
                raise UserError(f"--tables: weight {weight!r} of {part!r} is not a number; write "
                                "[NAME=]BOTS[:WEIGHT], e.g. casual=greedy,greedy,greedy,greedy:2") from None
        entry["bots"] = part
        entries.append(entry)
    if not entries:
        raise UserError(f"--tables {text!r} names no table composition; write one or more [NAME=]BOTS[:WEIGHT] "
                        "separated by ';', e.g. --tables 'casual=greedy,greedy,greedy,greedy:1; "
                        "expert,expert,expert,expert:3' (or leave --tables out: one table of --bots)")
    return entries


PROFILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]*")


def check_profile_name(name: str, given: str) -> None:
    """A profile's name names its folders in a run (``hands/profile=NAME/``): letters, digits and
    ``_ . + -`` only, so that it is one folder on every filesystem and reads back as itself."""
    if not PROFILE_NAME.fullmatch(name):
        source = "" if given == name else f" (profile {given})"
        raise UserError(f"profile name {name!r}{source} cannot name the run's folders; use letters, digits and "
                        "_ . + - only, starting with a letter or digit (a profile file's name key, else its "
                        "file name)")


def _check_tables(tables, where: str) -> tuple:
    """A list of {bots, weight, name} tables (TOML) -> TableMix entries, every one checked."""
    allowed = CONFIG_KEYS["tables"]
    if not isinstance(tables, list) or not tables:
        raise UserError(f"{where} = {tables!r} must be {allowed}")
    out, names = [], set()
    for i, t in enumerate(tables):
        at = f"{where}[{i}]"
        if not isinstance(t, dict):
            raise UserError(f"{at} = {t!r} must be a table {{ bots = \"a,b,c,d\", weight = 1 }}")
        unknown = [k for k in t if k not in ("bots", "weight", "name")]
        if unknown:
            raise UserError(f"{at}: unknown key {unknown[0]!r}; allowed keys: bots, weight, name")
        bots = t.get("bots")
        if isinstance(bots, str):
            bots = [b.strip() for b in bots.split(",")]
        if not isinstance(bots, list) or not bots or not all(isinstance(b, str) and b for b in bots):
            raise UserError(f"{at}: bots = {t.get('bots')!r} must be the bots of one table, one per seat, "
                            "e.g. \"expert,greedy,greedy,greedy\"")
        for b in bots:
            if _bot_name_error(b):
                raise UserError(f"{at}: {_bot_name_error(b)}")
        weight = t.get("weight", 1)
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not math.isfinite(weight) \
                or weight <= 0:
            raise UserError(f"{at}: weight = {weight!r} is not allowed; allowed: a number > 0 "
                            "(its share of the run's games is its weight over the sum of the weights)")
        name = t.get("name", ",".join(bots))
        if not isinstance(name, str) or not name.strip():
            raise UserError(f"{at}: name = {name!r} must be a non-empty string")
        name = name.strip()
        if name in names:
            raise UserError(f"{at}: table name {name!r} is used twice; give each composition its own name")
        names.add(name)
        out.append(TableMix(name, tuple(bots), weight))
    sizes = {len(t.bots) for t in out}
    if len(sizes) > 1:
        raise UserError(f"{where}: the compositions seat different numbers of players ("
                        + ", ".join(f"{t.name!r}: {len(t.bots)}" for t in out) + "); give every one the same "
                        "number of bots, one per seat")
    return tuple(out)


def make_config(file_values: dict | None = None, config_path=None, **cli) -> RunConfig:
    """A checked RunConfig from a run-config file's keys overridden by CLI values (None = not given).

    CLI values: profiles (list), games, seed, out, bots ("a,b,c" or list), players, workers,
    shard_games, events ("turns"/"none"), sets (list of "KEY=VALUE", applied to every profile),
    tables (``parse_tables_text`` syntax or a list of tables), paired (bool), duplicate (bool).  ``--bots``
    is the one-composition shorthand: given as a flag it replaces the file's tables; both as flags is an error.
    """
    file_values = dict(file_values or {})
    unknown = [k for k in cli if k not in CONFIG_KEYS]
    if unknown:
        raise TypeError(f"make_config: unknown option(s) {unknown}")

    def pick(key):
        if cli.get(key) is not None and key != "sets":
            return cli[key], CLI_FLAGS[key]
        if key in file_values:
            return file_values[key], _where(key, config_path)
        return None, CLI_FLAGS[key]

    profiles, where = pick("profiles")
    if isinstance(profiles, str):
        profiles = [profiles]
    if not profiles:
        raise UserError("no profile given: name one or more with --profile P (or profiles = [...] in the run "
                        f"config); available: {', '.join(PR.available())}")
    if not isinstance(profiles, list) or not all(isinstance(p, str) and p for p in profiles):
        raise UserError(f"{where} = {profiles!r} must be {CONFIG_KEYS['profiles']}")
    dup = sorted({p for p in profiles if profiles.count(p) > 1})
    if dup:
        raise UserError(f"{where}: profile {dup[0]!r} is named twice; name each profile once")
    run_names = {}  # profile as given -> its name in the run (a file's is its own: sim.profiles.load)
    for p in profiles:
        name = PR.load(p).name  # unknown profile: ProfileError naming the available ones
        check_profile_name(name, p)
        same = [q for q, n in run_names.items() if n == name]
        if same:
            raise UserError(f"{where}: {same[0]!r} and {p!r} are both profile {name!r}; a run knows each profile "
                            "by its name (its folders, rows and reports): set name = \"...\" in the profile "
                            "file to a name of its own")
        run_names[p] = name

    values = {}
    for key, lo, hi, required in (("games", 1, 10**9, True), ("seed", 0, 2**63 - 1, True),
                                  ("players", 2, 6, False), ("workers", 1, 4096, False),
                                  ("shard_games", 1, 10**9, False)):
        v, where = pick(key)
        if v is None:
            if required:
                raise UserError(f"no {CLI_FLAGS[key]} given (or {key} in the run config); "
                                f"{key} must be {CONFIG_KEYS[key]}")
            continue
        values[key] = _int(v, key, where, lo, hi)

    out, where = pick("out")
    if out is None:
        raise UserError("no --out given (or out in the run config): name the run's output directory")
    if not isinstance(out, str) or not out.strip():
        raise UserError(f"{where} = {out!r} must be {CONFIG_KEYS['out']}")

    bots, where = pick("bots")
    if bots is not None:
        if isinstance(bots, str):
            bots = [b.strip() for b in bots.split(",")]
        if not isinstance(bots, list) or not bots or not all(isinstance(b, str) for b in bots):
            raise UserError(f"{where} = {bots!r} must be {CONFIG_KEYS['bots']}")
        for b in bots:
            if _bot_name_error(b):
                raise UserError(f"{where}: {_bot_name_error(b)}")
        bots = tuple(bots)

    if cli.get("bots") is not None and cli.get("tables") is not None:
        raise UserError("--bots and --tables both given: --bots is the one-composition shorthand; give one of them")
    if "bots" in file_values and "tables" in file_values:
        raise UserError(f"{config_path}: both 'bots' and 'tables' are given; 'bots' is the one-composition "
                        "shorthand, so keep one of them")
    tables = None
    if cli.get("bots") is None:
        tables, where = pick("tables")
        if isinstance(tables, str):
            tables = parse_tables_text(tables)
        if tables is not None:
            tables = _check_tables(tables, where)
            bots = None

    paired, where = pick("paired")
    if paired is None:
        paired = False
    if not isinstance(paired, bool):
        raise UserError(f"{where} = {paired!r} is not allowed; allowed: {CONFIG_KEYS['paired']}")
    duplicate, where = pick("duplicate")
    if duplicate is None:
        duplicate = False
    if not isinstance(duplicate, bool):
        raise UserError(f"{where} = {duplicate!r} is not allowed; allowed: {CONFIG_KEYS['duplicate']}")

    events, where = pick("events")
    if events is None or events in ("none", "", []):
        events = False
    elif events == "turns" or events == ["turns"]:
        events = True
    else:
        raise UserError(f"{where} = {events!r} is not allowed; allowed: {CONFIG_KEYS['events']}")

    sets = {p: {} for p in profiles}
    if "sets" in file_values:
        sets = _check_sets_table(file_values["sets"], _where("sets", config_path), run_names)
    for text in cli.get("sets") or []:
        key, value = PR.parse_override(text)  # unknown key: ProfileError naming the allowed ones
        for p in profiles:
            sets[p][key] = value

    bot_params = file_values.get("bot_params", {})
    where = _where("bot_params", config_path)
    if not isinstance(bot_params, dict):
        raise UserError(f"{where} = {bot_params!r} must be {CONFIG_KEYS['bot_params']}")
    for b, params in bot_params.items():
        if b not in _bot_names():
            raise UserError(f"{where}: unknown bot {b!r}; available: {', '.join(_bot_names())}")
        if not isinstance(params, dict):
            raise UserError(f"{where}: {b} = {params!r} must be a table of parameter = value")
        from .bots import check_params
        check_params(b, params, where)

    return RunConfig(profiles=tuple(profiles), out=out, bots=bots, events=events, sets=sets,
                     bot_params=bot_params, tables=tables, paired=paired, duplicate=duplicate,
                     **values)


# ----------------------------------------------------------------------------------------------
# the plan: resolved profiles, seats and shards

@dataclass(frozen=True)
class ProfilePlan:
    profile: PR.Profile  # its name is the profile's name in the run
    n_players: int
    tables: tuple  # TableMix entries, each with n_players bots
    shards: tuple  # (index, first_game, n_games)
    source: str | None = None  # the profile file it was read from; None for a shipped profile

    @property
    def bots(self) -> tuple:
        """The seats of a one-composition run; else every bot the mix seats, each once."""
        if len(self.tables) == 1:
            return self.tables[0].bots
        return tuple(sorted({b for t in self.tables for b in t.bots}))


@dataclass(frozen=True)
class Plan:
    config: RunConfig
    profiles: dict  # name in the run -> ProfilePlan
    run_id: str

    @property
    def tables(self) -> tuple:
        return ("hands", "games", "turns") if self.config.events else ("hands", "games")

    @property
    def total_games(self) -> int:
        return self.config.games * len(self.profiles)


def _apply_sets(p: PR.Profile, sets: dict) -> PR.Profile:
    if not sets:
        return p
    source = f"profile {p.name!r} with " + ", ".join(f"{k}={v!r}" for k, v in sets.items())
    changes = {k: PR._check_value(k, v, source) for k, v in sets.items()}  # profiles' own per-key check
    return PR.validate(dataclasses.replace(p, **changes), source)


def data_identity(profile_entries: dict, games: int, seed: int, events: bool, bot_params: dict,
                  paired: bool = False, duplicate: bool = False) -> dict:
    """What determines the rows of a run (the run_id hashes this; a duplicate run's design too)."""
    return {"engine_version": schema.ENGINE_VERSION, "schema_version": schema.SCHEMA_VERSION,
            "games": games, "seed": seed, "events": "turns" if events else "none", "bot_params": bot_params,
            "paired": paired, **({"duplicate": True} if duplicate else {}),
            "profiles": {n: {"params": e["params"], "n_players": e["n_players"],
                             "tables": [t.to_json() for t in e["tables"]]}
                         for n, e in sorted(profile_entries.items())}}


def deal_signature(profile: PR.Profile, n_players: int) -> dict:
    """What two profiles must share to be dealt game g from the same shuffled pack, seat by seat.

    The deal pattern is not in it: a paired run deals every profile as if one card at a time (see
    ``sim.game.deal_rng``), which leaves each profile's distribution of hands unchanged because the pack
    is uniformly shuffled."""
    return {"pack": f"{profile.deck_size} cards ({profile.jokers} jokers)", "players": n_players,
            "hand size": profile.hand_size_for(n_players), "cut_card_joker": profile.cut_card_joker}


def check_pairing(plans: dict) -> None:
    """Refuse a paired run whose profiles cannot be dealt the same cards, naming what differs."""
    items = list(plans.items())
    for name, pp in items:
        if pp.profile.cut_card_joker and pp.profile.deal_pattern:
            raise UserError(f"--paired: profile {name!r} has cut_card_joker with a deal_pattern "
                            f"{pp.profile.deal_pattern}; a paired run deals one card at a time and cannot "
                            "pair that deal: drop --paired or set deal_pattern=[]")
    first_name, first = items[0]
    ref = deal_signature(first.profile, first.n_players)
    for name, pp in items[1:]:
        sig = deal_signature(pp.profile, pp.n_players)
        diffs = [f"{k}: {ref[k]} in {first_name}, {sig[k]} in {name}" for k in ref if ref[k] != sig[k]]
        if diffs:
            raise UserError(f"--paired: profiles {first_name!r} and {name!r} cannot be dealt the same cards ("
                            + "; ".join(diffs) + "). Paired profiles must share the pack, the number of "
                            "players, the hand size and cut_card_joker; run the others in a separate run")


def make_plan(config: RunConfig) -> Plan:
    """Resolve every profile, seat and shard; every bad-input error is raised here, before any write."""
    plans = {}
    mix = config.tables
    for given in config.profiles:
        prof = _apply_sets(PR.load(given), config.sets.get(given, {}))
        name = prof.name
        if config.players is not None:
            n, src = config.players, f"--players {config.players}"
        elif mix:
            k = len(mix[0].bots)
            n, src = k, f"the tables seat {k} bots each, so {k} players"
        elif config.bots:
            n, src = len(config.bots), f"--bots lists {len(config.bots)} bots, so {len(config.bots)} players"
        else:
            n, src = prof.players, f"profile {name!r} default players = {prof.players}"
        try:
            PR.check_players(prof, n)
        except PR.ProfileError as e:
            raise UserError(f"{src}: {e}") from None
        if mix:
            tables = mix
            for t in tables:
                if len(t.bots) != n:
                    raise UserError(f"table {t.name!r} seats {len(t.bots)} bots ({','.join(t.bots)}) but the games "
                                    f"have {n} players (players = {n}); give one bot per seat")
        else:
            bots = tuple(config.bots) if config.bots else (DEFAULT_BOT,) * n
            if len(bots) != n:
                raise UserError(f"--bots lists {len(bots)} bots ({','.join(bots)}) but the games have {n} players "
                                f"(players = {n}); give one bot per seat")
            tables = (TableMix(",".join(bots), bots, 1),)
        m = config.shard_games
        if config.duplicate and (config.games % n or m % n):
            raise UserError(f"a duplicate run plays each deal once per rotation of its {n} seats, and a shard holds "
                            f"whole deals: games ({config.games}) and shard_games ({m}) must be multiples of {n}")
        shards = tuple((i, i * m, min(m, config.games - i * m)) for i in range(math.ceil(config.games / m)))
        plans[name] = ProfilePlan(prof, n, tables, shards, None if given == name else given)
    if config.paired:
        check_pairing(plans)
    entries = {n: {"params": pp.profile.params(), "n_players": pp.n_players, "tables": pp.tables}
               for n, pp in plans.items()}
    ident = data_identity(entries, config.games, config.seed, config.events, config.bot_params, config.paired,
                          config.duplicate)
    run_id = hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:16]
    return Plan(config, plans, run_id)


# ----------------------------------------------------------------------------------------------
# one shard: play, write, summarise (the same code in a Ray worker and in-process)

@dataclass(frozen=True)
class ShardJob:
    spec: object  # sim.records.ShardSpec
    index: int
    out: str
    tables: tuple


def run_shard(spec):
    """The serial unit: play the shard's games and return its tables (sim.records.play_shard)."""
    from .records import play_shard
    return play_shard(spec)


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _fault_point() -> None:
    marker = os.environ.get(FAULT_ENV)
    if not marker:
        return
    try:
        fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return
    os.write(fd, f"{os.getpid()}\n".encode())
    os.close(fd)
    os.kill(os.getpid(), signal.SIGKILL)


def execute_shard(job: ShardJob, shard_fn=None, in_worker: bool = False) -> dict:
    """Play one shard, write its files and its summary file atomically, and return the small summary
    the driver records."""
    t0, c0 = time.perf_counter(), time.process_time()
    spec = job.spec
    try:
        tables = (shard_fn or run_shard)(spec)
    except Exception as e:
        e.add_note(f"while playing shard {job.index} of profile {spec.profile.name} "
                   f"(games {spec.first_game}..{spec.first_game + spec.n_games - 1})")
        raise
    played = time.perf_counter() - t0
    loc = runformat.locate(job.out, "--out")
    files = {}
    for name in job.tables:
        files[name] = runformat.write_table(loc, shard_path(name, spec.profile.name, job.index), tables[name])
        if in_worker:
            _fault_point()
    # the shard summarised once, here, for every report to read instead of its rows (data flows engine ->
    # records -> summaries; analysis never imports the engine)
    from analysis.summaries import write_shard_summary
    files[runformat.SUMMARY] = write_shard_summary(loc, spec.profile.name, job.index, tables["hands"],
                                                   tables["games"], {"profiles": {spec.profile.name: {
                                                       "params": spec.profile.params(),
                                                       runformat.GAMES_PER_DEAL: (len(spec.bots) if spec.duplicate
                                                                                  else 1)}}})
    hands = tables["hands"]
    n_hands = hands.group_by(["game_id", "hand_no", "redeal_no"]).aggregate([]).num_rows if hands.num_rows else 0
    return {"profile": spec.profile.name, "index": job.index, "first_game": spec.first_game,
            "n_games": spec.n_games, "files": files, "hands": n_hands,
            "seconds": round(time.perf_counter() - t0, 3), "play_seconds": round(played, 3),
            "cpu_seconds": round(time.process_time() - c0, 3),
            "peak_rss_mb": round(_peak_rss_mb(), 1), "pid": os.getpid()}


def _ray_shard(job: ShardJob, shard_fn) -> dict:
    return execute_shard(job, shard_fn, in_worker=True)


# ----------------------------------------------------------------------------------------------
# the manifest

def package_versions() -> dict:
    out = {}
    for pkg in ("numpy", "numba", "ray", "pyarrow", "pandas", "kalooki-lab"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = None
    out["python"] = sys.version.split()[0]
    return out


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def manifest_entry(summary: dict) -> dict:
    keep = ("profile", "index", "first_game", "n_games", "files", "hands", "seconds")
    return {k: summary[k] for k in keep if k in summary}


def new_manifest(plan: Plan, command: str, created: str | None = None) -> dict:
    c = plan.config
    return {
        "format": RUN_FORMAT, "schema_version": schema.SCHEMA_VERSION, "engine_version": schema.ENGINE_VERSION,
        "run_id": plan.run_id, "created": created or _now(), "updated": _now(), "command": command,
        "seed": c.seed, "paired": c.paired, "duplicate": c.duplicate, "config": c.to_json(),
        "package_versions": package_versions(),
        "profiles": {n: {"rules_hash": pp.profile.rules_hash(), "params": pp.profile.params(), "games": c.games,
                         "n_players": pp.n_players, "bots": list(pp.bots), "shards_planned": len(pp.shards),
                         runformat.GAMES_PER_DEAL: pp.n_players if c.duplicate else 1,
                         "tables": [t.to_json() for t in pp.tables],
                         **({"source": pp.source} if pp.source else {})}
                     for n, pp in plan.profiles.items()},
        "shards": [], "complete": False,
    }


def write_manifest(loc: runformat.RunLocation, manifest: dict) -> None:
    manifest["updated"] = _now()
    runformat.write_manifest(loc, manifest)


def _identity_of_manifest(m: dict) -> dict:
    """The comparable settings of an existing run (flattened so a difference names its key)."""
    cfg = m.get("config", {})
    out = {"engine_version": m.get("engine_version"), "schema_version": m.get("schema_version"),
           "profiles": sorted(m.get("profiles", {})), "games": cfg.get("games"), "seed": cfg.get("seed"),
           "events": cfg.get("events"), "shard_games": cfg.get("shard_games"), "bot_params": cfg.get("bot_params"),
           "paired": bool(cfg.get("paired"))}
    if "duplicate" in m:  # a run written before the design was recorded is not asked about it
        out["duplicate"] = bool(m["duplicate"])
    for name, e in m.get("profiles", {}).items():
        out[f"players ({name})"] = e.get("n_players")
        out[f"bots ({name})"] = list(e.get("bots") or [])
        out[f"tables ({name})"] = e.get("tables")
        for k, v in (e.get("params") or {}).items():
            out[(name, k)] = v
    return out


def _identity_of_plan(plan: Plan) -> dict:
    return _identity_of_manifest(new_manifest(plan, ""))


def config_differences(old: dict, plan: Plan) -> list[str]:
    """What differs between the run at --out (``old``) and the plan, one line per setting; a profile
    whose rules differ is one line naming its rules hashes and the parameters that differ."""
    a, b = _identity_of_manifest(old), _identity_of_plan(plan)
    if "duplicate" not in a:
        b.pop("duplicate", None)
    plain = {k: v for k, v in a.items() if not isinstance(k, tuple)}, {k: v for k, v in b.items() if not isinstance(k, tuple)}
    diffs, rules = storage.differences(*plain), {}
    for key in [k for k in b if isinstance(k, tuple)] + [k for k in a if isinstance(k, tuple) and k not in b]:
        # a rule of a profile in both runs (the profiles line names the others)
        if a.get(key) != b.get(key) and key[0] in old.get("profiles", {}) and key[0] in plan.profiles:
            rules.setdefault(key[0], []).append(f"{key[1]} {json.dumps(a.get(key))} there, {json.dumps(b.get(key))} now")
    for name, changes in rules.items():
        hashes = [m.get("profiles", {}).get(name, {}).get("rules_hash") for m in (old, new_manifest(plan, ""))]
        diffs.append(f"profile {name}'s rules (rules_hash {hashes[0]} there, {hashes[1]} now): "
                     + ", ".join(changes[:storage.DIFFERENCES_SHOWN])
                     + (f" and {len(changes) - storage.DIFFERENCES_SHOWN} more" if len(changes) > storage.DIFFERENCES_SHOWN
                        else ""))
    return diffs


def intact_shards(loc: runformat.RunLocation, old: dict | None, plan: Plan) -> list[dict]:
    """The old manifest's shard entries that are planned and whose files are intact (one per shard)."""
    if not old:
        return []
    planned = {(n, i): (first, k) for n, pp in plan.profiles.items() for i, first, k in pp.shards}
    kept, seen = [], set()
    for e in old["shards"]:
        try:
            key = (e["profile"], e["index"])
            ok = (key not in seen and planned.get(key) == (e.get("first_game"), e.get("n_games"))
                  and runformat.shard_is_intact(loc, e, plan.tables))
        except (KeyError, TypeError):
            ok = False
        if ok:
            kept.append(e)
            seen.add(key)
    return kept


# ----------------------------------------------------------------------------------------------
# running

def warm_up(bots=None, *, announce: bool = False) -> None:
    """Compile (or load) the kernels the run's ``bots`` need (None: every bot) once here, so workers
    load them from the disk cache instead of each compiling them (``sim.bots.hand_loop.warm_up``: the
    hand loop and the Python engine's decisions, in up to three processes at once from an empty
    cache).  A graded player (``NAME@EPS``) needs its bot's kernels and the random bot's."""
    from .bots.hand_loop import warm_up
    if bots is not None:
        names = set()
        for b in bots:
            base, graded, _ = str(b).partition("@")
            names.add(base)
            if graded:
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


RAY_CONNECT_TIMEOUT_S = 10


def _check_reachable(address: str) -> None:
    """UserError unless ``host:port`` (or ``ray://host:port``) accepts a connection: ray.init would
    otherwise retry an unreachable cluster for ever.  Ray's own words (``auto``, ``local``) pass."""
    import socket
    hostport = address.split("://", 1)[1] if "://" in address else address
    if address in ("auto", "local"):
        return
    host, _, port = hostport.rstrip("/").rpartition(":")
    host = host.strip("[]")  # an IPv6 literal, [::1]:6379
    if not host or not port.isdigit():
        raise UserError(f"--address {address!r} (or RAY_ADDRESS) is not HOST:PORT or ray://HOST:PORT; "
                        "leave both unset to run on a private local Ray")
    try:
        socket.create_connection((host, int(port)), timeout=RAY_CONNECT_TIMEOUT_S).close()
    except OSError as e:
        raise UserError(f"cannot join the Ray cluster at {address!r} (--address or RAY_ADDRESS): nothing answers "
                        f"there ({e}); leave both unset to run on a private local Ray") from None


def start_ray(workers: int | None, address: str | None, out: str = "") -> tuple[bool, int]:
    """Start (or join) Ray for a driver that plays runs (simulate, skill, frontier, sweep); (whether
    this call started it, workers to keep busy).  Ray already started in this process is kept as it is.

    Only ``address`` (--address) or ``RAY_ADDRESS`` joins a cluster.  Otherwise Ray starts a private
    local instance (``address="local"``), whatever cluster another program has registered on this
    machine (a running one, or a stale ``/tmp/ray/ray_current_cluster`` file): a plain `simulate`
    never joins, or fails on, a cluster nobody asked for."""
    import ray
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    started = False
    if not ray.is_initialized():
        address = address or os.environ.get("RAY_ADDRESS") or None
        if address:
            _check_reachable(address)
            try:
                ray.init(address=address, logging_level=logging.ERROR, log_to_driver=False)
            except (ConnectionError, ValueError, RuntimeError, TimeoutError) as e:
                raise UserError(f"cannot join the Ray cluster at {address!r} (--address or RAY_ADDRESS): {e}; "
                                "leave both unset to run on a private local Ray") from None
        else:
            ray.init(address="local", num_cpus=workers or os.cpu_count() or 1, include_dashboard=False,
                     logging_level=logging.ERROR, log_to_driver=False,
                     object_store_memory=200 * 1024 * 1024)
        started = True
    if workers is None:
        workers = max(1, int(ray.cluster_resources().get("CPU", 1)))
    if out and "://" not in out and len([n for n in ray.nodes() if n.get("Alive")]) > 1:
        print(f"warning: --out {out!r} is a local path but the Ray cluster has several nodes; each worker writes "
              "its shards on its own node. Use a shared filesystem or a URI (s3://..., gs://...)", file=sys.stderr)
    return started, workers


@contextlib.contextmanager
def ray_session(workers: int | None, address: str | None = None, out: str = ""):
    """Ray started or joined (``start_ray``) for the block, so that several runs share one start;
    shut down after it when this call started it.  Yields the workers to keep busy."""
    started, workers = start_ray(workers, address, out)
    try:
        yield workers
    finally:
        if started:
            import ray
            ray.shutdown()


def _progress(total: int, initial: int, enabled: bool, label: str = "simulate"):
    """The games bar, named by ``label``: drawn only when asked for and stderr is a terminal (never into
    a log file)."""
    from tqdm import tqdm
    return tqdm(total=total, initial=initial, unit="game", desc=label, file=sys.stderr,
                disable=not (enabled and sys.stderr.isatty()), dynamic_ncols=True, smoothing=0.1)


def _execute_local(jobs, shard_fn, on_done):
    for job in jobs:
        on_done(execute_shard(job, shard_fn))


_REMOTE = None


def _execute_ray(jobs, shard_fn, on_done, workers: int):
    """Run jobs on Ray, at most IN_FLIGHT_PER_WORKER x workers at once; errors raised after the rest finish."""
    import ray
    from ray.exceptions import RayError, RayTaskError
    global _REMOTE
    if _REMOTE is None:
        _REMOTE = ray.remote(num_cpus=1, max_retries=MAX_RETRIES)(_ray_shard)
    queue = deque(jobs)
    in_flight: dict = {}
    limit = max(1, IN_FLIGHT_PER_WORKER * workers)
    failure = None
    try:
        while queue or in_flight:
            while queue and failure is None and len(in_flight) < limit:
                job = queue.popleft()
                in_flight[_REMOTE.remote(job, shard_fn)] = job
            if not in_flight:
                break
            done, _ = ray.wait(list(in_flight), num_returns=1)
            for ref in done:
                job = in_flight.pop(ref)
                try:
                    summary = ray.get(ref)
                except RayTaskError as e:  # a write error is the user's to fix; anything else is a bug
                    cause = getattr(e, "cause", None)
                    failure = failure or (job, cause if isinstance(cause, OSError) else e)
                    continue
                except RayError as e:  # the worker died more often than max_retries allows, etc.
                    failure = failure or (job, e)
                    continue
                on_done(summary)
    except BaseException as e:
        # On Ctrl-C the tasks end with this driver (Ray cancels an owner's tasks when it goes); cancelling
        # them too races the workers' own ends and can abort Ray's core worker.
        if not is_interrupt(e):
            for ref in in_flight:
                ray.cancel(ref, force=True)
        raise
    if failure is not None:
        raise failure[1]


def run(config: RunConfig, *, local: bool = False, address: str | None = None, progress: bool = True,
        shard_fn=None, command: str | None = None, log=None, flag: str = "--out", label: str = "simulate",
        eta=None) -> RunResult:
    """Plan, check --out, resume what an earlier run left, play the missing shards, complete the manifest.

    An interrupt (Ctrl-C) ends the run as a ``KeyboardInterrupt`` whose message says how many shards
    are written and that the same command resumes the run (the finished shards are in the manifest).
    ``flag`` names the option that gave ``config.out`` in errors (--out, or a sweep's --runs);
    ``label`` starts the progress bar ("simulate", "skill {profile}": the profile of the shard that
    finished last); ``eta`` (optional) is
    told each finished shard's (games, seconds) and says the time left instead of the run itself
    (a frontier's estimate over all its rungs)."""
    log = log if log is not None else (lambda msg: print(msg, file=sys.stderr))
    plan = make_plan(config)
    loc = runformat.locate(config.out, flag)
    old = runformat.manifest_to_resume(loc, storage.is_dir_empty_or_missing, flag)
    if old is not None:
        diffs = config_differences(old, plan)
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
    kept = intact_shards(loc, old, plan) if old is not None and old.get("complete") else None
    if kept is not None and len(kept) == sum(len(pp.shards) for pp in plan.profiles.values()):
        local = True
    else:
        kept = None  # something to play: checked again once this driver holds --out
    try:
        # The kernels before Ray, so that neither's time is taken for the other's; Ray before anything
        # is written, so that a start-up failure (a bad --address) leaves nothing, not even the directory.
        compile_seconds = 0.0
        if kept is None:
            t = time.perf_counter()
            warm_up({b for pp in plan.profiles.values() for t in pp.tables for b in t.bots}, announce=True)
            compile_seconds = time.perf_counter() - t
        ray_started, ray_workers, ray_seconds = False, 1, 0.0
        if not local:
            t = time.perf_counter()
            ray_started, ray_workers = start_ray(config.workers, address, config.out)
            ray_seconds = time.perf_counter() - t
        try:
            storage.ensure_writable(loc, flag)
            lock = storage.acquire_lock(loc, flag)
            try:
                return _run_claimed(config, plan, loc, old, local=local, ray_workers=ray_workers,
                                    ray_seconds=ray_seconds, compile_seconds=compile_seconds, progress=progress,
                                    shard_fn=shard_fn, command=command, log=log, kept=kept, flag=flag,
                                    label=label, eta=eta)
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
                 ray_seconds, compile_seconds, progress, shard_fn, command, log, kept=None, flag="--out",
                 label="simulate", eta=None) -> RunResult:
    """``run`` once this driver holds --out: resume, play the missing shards, complete the manifest.
    ``kept``: every shard, intact, when ``run`` has already checked them (nothing to play)."""
    storage.remove_temp_files(loc)
    kept = intact_shards(loc, old, plan) if kept is None else kept
    manifest = new_manifest(plan, command or _command_line(config), created=(old or {}).get("created"))
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
            jobs.append(ShardJob(spec, index, config.out, plan.tables))
    # Profiles interleaved (a steadier rate and time left), short last shards at the end.
    jobs.sort(key=lambda j: (j.spec.n_games < config.shard_games, j.index))
    planned = sum(len(pp.shards) for pp in plan.profiles.values())
    result = RunResult(out=config.out, manifest=manifest, shards_kept=len(kept), compile_seconds=compile_seconds)
    if not jobs and old is not None and old.get("complete") is True and len(kept) == len(old["shards"]):
        result.manifest = old  # complete and intact: nothing is played and nothing written
        log(f"nothing to do: all {len(kept)} shard(s) of run {plan.run_id} in {config.out} are complete and intact")
        return result
    try:
        write_manifest(loc, manifest)
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
        manifest["shards"].append(manifest_entry(summary))
        write_manifest(loc, manifest)
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
            _execute_ray(jobs, shard_fn, on_done, result.workers)
        elif jobs:
            _execute_local(jobs, shard_fn, on_done)
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
    write_manifest(loc, manifest)
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
