"""A run's configuration: what a run is asked to do (``RunConfig``, its table compositions ``TableMix``),
read from a run-config TOML file and the command line and checked key by key before anything is planned.

A run is a ``RunConfig`` (profiles, games, seed, out, table compositions, players, workers, shard_games,
events, rule overrides, bot parameters, pairing).  A run seats one table composition (``--bots``) or a
weighted mix of them (``tables``); each game draws its composition from its own random stream and rotates
the seats game by game, as a tournament does.  A paired run (``paired``) plays game g of every profile
from the same deal.  ``sim.runplan`` resolves a config into shards; ``sim.runner`` plays it.

The runner's modules are named ``run*`` beside ``sim.runformat`` (the run's files), so that none of
them shadows the ``config`` and ``plan`` variables their callers are full of.
"""
from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from . import profiles as PR
from .errors import UserError

DEFAULT_SHARD_GAMES = 500
DEFAULT_BOT = "greedy"
EVENT_KINDS = ("turns",)

CONFIG_KEYS = {
    "profiles": "a list of profile names, e.g. [\"kalooki40\", \"scala40\"]",
    "games": "a positive integer (games per profile)",
    "seed": "an integer >= 0",
    "out": "an output directory: a path or a URI such as s3://bucket/prefix",
    "bots": "a list of bot names, one per seat (see sim.bots.BOTS; NAME.SETTING a named setting, NAME@EPS graded)",
    "players": "an integer, within each profile's min_players..max_players",
    "workers": "a positive integer",
    "shard_games": "a positive integer (games per shard)",
    "events": "\"turns\" to record every turn, or \"none\"",
    "sets": "a table of rule parameter = value (every profile), or profile = { parameter = value }",
    "bot_params": "a table of bot name = { parameter = value }, each named setting a sub-table of its bot's "
                  "([bot_params.expert.tuned])",
    "tables": "a list of table compositions { bots = \"a,b,c,d\", weight = 1, name = \"...\" } (name optional)",
    "paired": "true to deal game g of every profile from the same shuffled pack (common deals), or false",
    "duplicate": "true to play each deal once per rotation of the seats (games d*n .. d*n+n-1 share deal d), "
                 "or false",
}
CLI_FLAGS = {"profiles": "--profile", "games": "--games", "seed": "--seed", "out": "--out", "bots": "--bots",
             "players": "--players", "workers": "--workers", "shard_games": "--shard-games",
             "events": "--events", "sets": "--set", "bot_params": "bot_params", "tables": "--tables",
             "paired": "--paired", "duplicate": "duplicate"}


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
    """Why a seat's name names no player (a bot of ``_bot_names``, a named setting ``NAME.SETTING`` or a graded one,
    ``NAME@EPS``)."""
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
    from .bots import check_bot_tables, missing_settings, setting_error
    from .bots.registry import parameter_tables
    check_bot_tables(bot_params, where)
    for label, sub in parameter_tables(bot_params):
        if "game_values" in sub:
            raise UserError(f"{where}: [{label}] game_values: a table of game values holds for one profile's "
                            "rules, so a run config does not take it; `kalooki tournament --bot-params FILE` "
                            "does (one profile)")
    seated = list(bots or []) + [b for t in tables or [] for b in t.bots]
    for name in missing_settings(seated, bot_params):
        if config_path:
            raise UserError(setting_error(name, lambda base, _: f"which the run config lacks ({where}; an empty one "
                                                                 f"plays as {base})", prefix="bot_params."))
        raise UserError(setting_error(name, lambda base, table: "which only a run config gives (`kalooki simulate "
                                      "--config FILE`; `kalooki tournament --bot-params FILE` takes it as "
                                      f"[{table}]): give {base}", prefix="bot_params."))

    return RunConfig(profiles=tuple(profiles), out=out, bots=bots, events=events, sets=sets,
                     bot_params=bot_params, tables=tables, paired=paired, duplicate=duplicate,
                     **values)
