"""Rule profiles: every rule difference of docs/RULES.md as a named, validated parameter.

A profile is a TOML file under ``configs/profiles/`` (shipped as package data, found through
``sim.resources``) that holds every parameter below.  Loading
checks each key (unknown, missing, wrong type, out of range) and the combination (enough cards to
deal, a hand size that leaves a stock), and names the file, the key, the value and what is allowed.
No code asks which profile it runs: it reads these parameters.
"""
from __future__ import annotations

import dataclasses
import difflib
import hashlib
import json
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path

from .cards import COPIES, N_NATURAL
from .errors import ProfileError
from .resources import config_file, names

PROFILE_DIR = config_file("profiles")  # a Traversable: a folder in the source tree or the installed package


def _p(default, doc, *, lo=None, hi=None, choices=None):
    return field(default=default, metadata={"doc": doc, "lo": lo, "hi": hi, "choices": choices})


@dataclass(frozen=True)
class Profile:
    name: str = _p("custom", "profile name")
    description: str = _p("", "one line shown by `kalooki profiles`")
    # 1. cards
    jokers: int = _p(2, "jokers in the pack (2: 106 cards, 4: 108 cards)", choices=(0, 1, 2, 3, 4))
    ace_low: bool = _p(False, "an ace may also be low in a run (A-2-3), never K-A-2")
    ace_value: int = _p(11, "value of an ace in hand, in a group, and high in a run", lo=1, hi=50)
    ace_low_value: int = _p(1, "value of an ace used low in a run", lo=0, hi=50)
    joker_penalty: int = _p(15, "penalty of a joker left in hand", lo=0, hi=100)
    # 2. melds
    joker_melds: bool = _p(False, "three or four jokers may form a group worth joker_meld_value each")
    joker_meld_value: int = _p(15, "value of each joker in an all-joker group", lo=0, hi=100)
    max_jokers_per_meld: int = _p(13, "most jokers in one meld (13: no limit beyond one natural card)", lo=1, hi=13)
    # 3. table play
    run_end_limit: int = _p(2, "most cards added to the same end of one run in one turn", lo=1, hi=13)
    run_add_limit: str = _p("per_end", "per_end: run_end_limit per end; two_total: at most two cards per run per turn",
                            choices=("per_end", "two_total"))
    joker_take_from_run_end: bool = _p(False, "a joker at either end of a run may be taken by substitution")
    joker_from_group: str = _p("both_missing_suits", "what releases a joker from a three-card group",
                               choices=("both_missing_suits", "one_card"))
    joker_take_at_opening: bool = _p(False, "a joker may be taken from the table while making the initial meld")
    layoffs_count_for_opening: bool = _p(False, "cards built onto table melds count towards the opening (with a new meld)")
    # 4. opening
    opening_min: int = _p(40, "points of new melds needed for the first meld", lo=0, hi=400)
    # 5. a hand
    players: int = _p(4, "default number of players", lo=2, hi=6)
    min_players: int = _p(3, "fewest players allowed", lo=2, hi=6)
    max_players: int = _p(6, "most players allowed", lo=2, hi=6)
    hand_size: int = _p(13, "cards dealt to each player", lo=3, hi=30)
    hand_size_by_players: dict = _p(None, "hand size for particular player counts, e.g. {5 = 13, 6 = 11}")
    deal_pattern: list = _p(None, "packets dealt to each player in turn ([] = one at a time; british [3,2,3,2,3])")
    discard_pickup: str = _p("after_opening", "after_opening: unopened players take the discard only to open with it; "
                             "meld_at_once: anyone takes it only to meld it at once",
                             choices=("after_opening", "meld_at_once"))
    discard_pickup_before_opening: bool = _p(True, "an unopened player may take the discard to open with it at once")
    first_round_free_draw: bool = _p(True, "in each player's first turn either pile may be taken freely")
    go_out_first_round: bool = _p(True, "a player may go out in their first turn")
    stock_exhausted: str = _p("reshuffle_once", "reshuffle_once: discards become the stock once, then void; void: void at once",
                              choices=("reshuffle_once", "void"))
    turn_cap: int = _p(600, "turns after which a hand is stopped and recorded as stalled", lo=10, hi=100000)
    cut_card_joker: bool = _p(False, "a joker shown at the bottom of the cut goes to the cutter, dealt one card less")
    dealer_upcard_swap: bool = _p(False, "after the deal the dealer may take the upcard and discard another")
    kalooki_exempt_from_minimum: bool = _p(False, "a Kalooki need not meet opening_min")
    # 6. scoring and money
    kalooki_double_penalty: bool = _p(False, "after a Kalooki the other players' penalties are doubled")
    stake_initial: int = _p(5, "units each player pays into the pool at the start", lo=0, hi=1000)
    stake_call: int = _p(1, "units each other player pays the winner of a hand", lo=0, hi=1000)
    stake_kalooki: int = _p(2, "units each other player pays a winner by Kalooki", lo=0, hi=1000)
    stake_buy_in: int = _p(5, "units an eliminated player pays into the pool to re-enter", lo=0, hi=1000)
    pay_per_card: int = _p(1, "single_hand games: units each loser pays per card left", lo=0, hi=1000)
    pay_per_joker: int = _p(2, "single_hand games: units each loser pays per joker left", lo=0, hi=1000)
    pay_double_on_kalooki: bool = _p(True, "single_hand games: payments doubled if the winner went Kalooki")
    game_end: str = _p("elimination", "elimination: last player in wins the pool; target: first to target_score; "
                       "single_hand: each hand is a game", choices=("elimination", "target", "single_hand"))
    target_score: int = _p(500, "target games: points that win", lo=1, hi=100000)
    # 7. the game
    eliminate_above: int = _p(150, "a player whose penalty total exceeds this is eliminated", lo=1, hi=100000)
    max_buy_ins: int = _p(2, "most buy-ins per player per game", lo=0, hi=100)
    hand_cap: int = _p(500, "hands after which a game is stopped and recorded as stalled", lo=1, hi=100000)

    # ------------------------------------------------------------------
    def hand_size_for(self, n_players: int) -> int:
        table = self.hand_size_by_players or {}
        return int(table.get(str(n_players), self.hand_size))

    @property
    def deck_size(self) -> int:
        return COPIES * N_NATURAL + self.jokers

    @property
    def buy_ins_allowed(self) -> bool:
        """Whether a player eliminated may buy back in: an elimination game with ``max_buy_ins`` above 0."""
        return self.game_end == "elimination" and self.max_buy_ins > 0

    @property
    def pays_money(self) -> bool:
        """Whether money changes hands (``sim.game.Ledger``): stakes in an elimination game (the buy-in
        stake only where buy-ins are allowed), or each hand's payouts in a single_hand game."""
        if self.game_end == "single_hand":
            return True
        buy_ins = self.max_buy_ins > 0 and self.stake_buy_in > 0
        return self.game_end == "elimination" and bool(self.stake_initial or self.stake_call or self.stake_kalooki
                                                       or buy_ins)

    def params(self) -> dict:
        """Every rule parameter (name and description excluded), JSON-friendly."""
        out = {}
        for f in fields(self):
            if f.name in ("name", "description"):
                continue
            v = getattr(self, f.name)
            out[f.name] = v
        return out

    def rules_hash(self) -> str:
        blob = json.dumps(self.params(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def replace(self, **changes) -> "Profile":
        return validate(dataclasses.replace(self, **changes), source=f"profile {self.name!r}")

    def __hash__(self):  # profiles are used as dict keys for caches
        return hash(self.rules_hash() + self.name)


FIELDS = {f.name: f for f in fields(Profile)}
PARAM_NAMES = [n for n in FIELDS if n not in ("name", "description")]


def meaning(name: str) -> str:
    """The one-line meaning of a parameter, as declared above."""
    return FIELDS[name].metadata["doc"]


def closest(name: str, allowed, n: int = 3) -> str:
    """``"did you mean 'a', 'b'?"`` for a misspelt name (or a pointer to the full list)."""
    near = difflib.get_close_matches(name, list(allowed), n=n, cutoff=0.6)
    if near:
        return "did you mean " + " or ".join(repr(x) for x in near) + "?"
    return "`kalooki profiles show kalooki40` lists every parameter with its meaning"


def _type_name(default) -> str:
    return {bool: "true/false", int: "an integer", str: "a string", dict: "a table", list: "a list of integers"}[
        type(default) if default is not None else dict]


def check_value(key: str, value, source: str):
    f = FIELDS[key]
    meta = f.metadata
    where = f"{source}: key {key!r}"
    if key in ("name", "description"):
        if not isinstance(value, str):
            raise ProfileError(f"{where} = {value!r} must be a string")
        return value
    if key == "hand_size_by_players":
        if not isinstance(value, dict):
            raise ProfileError(f"{where} = {value!r} must be a table of player count = hand size, e.g. {{5 = 13, 6 = 11}}")
        out = {}
        for k, v in value.items():
            if not str(k).isdigit() or not 2 <= int(k) <= 6 or isinstance(v, bool) or not isinstance(v, int) or not 3 <= v <= 30:
                raise ProfileError(f"{where}: entry {k} = {v!r} not allowed; keys are player counts 2-6, values hand sizes 3-30")
            out[str(int(k))] = v
        return out
    if key == "deal_pattern":
        if not isinstance(value, list) or any(isinstance(v, bool) or not isinstance(v, int) or v < 1 for v in value):
            raise ProfileError(f"{where} = {value!r} must be a list of positive integers (packet sizes), e.g. [3, 2, 3, 2, 3]")
        return list(value)
    default = f.default
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise ProfileError(f"{where} = {value!r} must be true or false")
        return value
    if isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ProfileError(f"{where} = {value!r} must be an integer"
                               + (f" in {meta['lo']}..{meta['hi']}" if meta["lo"] is not None else ""))
    elif isinstance(default, str):
        if not isinstance(value, str):
            raise ProfileError(f"{where} = {value!r} must be a string, one of {', '.join(meta['choices'])}")
    if meta["choices"] is not None and value not in meta["choices"]:
        allowed = ", ".join(str(c) for c in meta["choices"])
        raise ProfileError(f"{where} = {value!r} is not allowed; allowed: {allowed}")
    if meta["lo"] is not None and not meta["lo"] <= value <= meta["hi"]:
        raise ProfileError(f"{where} = {value!r} is out of range; allowed: {meta['lo']}..{meta['hi']}")
    return value


def validate(p: Profile, source: str = "profile") -> Profile:
    """Check the combination of parameters (single values are checked when read)."""
    for key in FIELDS:
        check_value(key, getattr(p, key) if getattr(p, key) is not None else
                     ({} if key == "hand_size_by_players" else [] if key == "deal_pattern" else getattr(p, key)), source)
    if p.min_players > p.max_players:
        raise ProfileError(f"{source}: min_players = {p.min_players} exceeds max_players = {p.max_players}")
    if not p.min_players <= p.players <= p.max_players:
        raise ProfileError(f"{source}: key 'players' = {p.players} is outside this profile's "
                           f"{p.min_players}..{p.max_players} players")
    if p.ace_low_value > p.ace_value:
        raise ProfileError(f"{source}: ace_low_value = {p.ace_low_value} exceeds ace_value = {p.ace_value}")
    for n in range(p.min_players, p.max_players + 1):
        check_deal(p, n, source)
    if p.deal_pattern:
        for n in range(p.min_players, p.max_players + 1):
            if sum(p.deal_pattern) != p.hand_size_for(n):
                raise ProfileError(f"{source}: deal_pattern {p.deal_pattern} deals {sum(p.deal_pattern)} cards but the "
                                   f"hand size for {n} players is {p.hand_size_for(n)}")
    return p


def check_deal(p: Profile, n_players: int, source: str = "profile") -> None:
    """More cards dealt than the pack holds (plus the upcard and a stock of at least one) is an error."""
    need = n_players * p.hand_size_for(n_players) + 2
    if need > p.deck_size:
        raise ProfileError(f"{source}: {n_players} players x {p.hand_size_for(n_players)} cards plus an upcard and a "
                           f"stock need {need} cards, but the pack holds {p.deck_size}")


def check_players(p: Profile, n_players: int) -> None:
    if not p.min_players <= n_players <= p.max_players:
        raise ProfileError(f"profile {p.name!r}: {n_players} players is not allowed; allowed: "
                           f"{p.min_players}-{p.max_players}")
    check_deal(p, n_players, f"profile {p.name!r}")


def from_dict(data: dict, source: str) -> Profile:
    unknown = [k for k in data if k not in FIELDS]
    if unknown:
        raise ProfileError(f"{source}: unknown key {unknown[0]!r}; {closest(unknown[0], FIELDS)}")
    missing = [k for k in PARAM_NAMES if k not in data]
    if missing:
        raise ProfileError(f"{source}: missing key {missing[0]!r}; a profile file holds every parameter "
                           f"(see `kalooki profiles show kalooki40`)")
    values = {k: check_value(k, v, source) for k, v in data.items()}
    return validate(Profile(**values), source)


def available() -> list[str]:
    return names("profiles")


def load_file(path) -> Profile:
    """A profile from a TOML file: a path, or a shipped file (an importlib.resources Traversable)."""
    path = path if hasattr(path, "read_text") else Path(path)
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as e:
        raise ProfileError(f"{path}: malformed TOML: {e}") from None
    except OSError as e:
        raise ProfileError(f"{path}: cannot read profile: {e.strerror}") from None
    data.setdefault("name", path.name.removesuffix(".toml"))
    return from_dict(data, str(path))


_CACHE: dict[str, Profile] = {}


def load(name: str) -> Profile:
    """A profile by name (``configs/profiles/NAME.toml``) or by path to a TOML file.

    A file is known by its ``name`` key (its file name without ``.toml`` when it has none), except
    that a file holding a shipped profile's name with other rules is known by its file name
    (``kalooki profiles show kalooki40 --toml > mine.toml``, a rule changed: ``mine``).  So two
    profiles that differ in a rule never share a name, and a run's folders, rows and reports, which
    name each profile, never mix them."""
    if name.endswith(".toml") or "/" in name:
        return _named_apart_from_shipped(load_file(name), Path(name))
    if name not in _CACHE:
        path = PROFILE_DIR / f"{name}.toml"
        if not path.is_file():
            raise ProfileError(f"unknown profile {name!r}; available: {', '.join(available())}")
        _CACHE[name] = load_file(path)
    return _CACHE[name]


def rule_differences(a: Profile, b: Profile) -> list[str]:
    """The rule parameters whose values differ between two profiles, in declaration order."""
    return [k for k in PARAM_NAMES if getattr(a, k) != getattr(b, k)]


def _named_apart_from_shipped(p: Profile, path: Path) -> Profile:
    """``p`` (read from ``path``) under a name no shipped profile with other rules holds."""
    shipped = available()
    if p.name not in shipped or load(p.name).rules_hash() == p.rules_hash():
        return p
    stem = path.name.removesuffix(".toml")
    differ = rule_differences(load(p.name), p)
    if stem in shipped and load(stem).rules_hash() != p.rules_hash():
        raise ProfileError(f"{path}: its name {p.name!r} is a shipped profile's, whose rules differ from "
                           f"this file's ({', '.join(differ[:3])}{', ...' if len(differ) > 3 else ''}), and so "
                           f"is its file name {stem!r}: rename the file (it then names the profile) or set "
                           "name = \"...\" in it to a name of its own")
    return dataclasses.replace(p, name=stem)


def parse_override(text: str, flag: str = "--set"):
    """``KEY=VALUE`` -> (key, value), the value read as a TOML value (bare words as strings).
    ``flag`` is the option the text came from, named in the errors."""
    if "=" not in text:
        raise ProfileError(f"{flag} {text!r}: write KEY=VALUE, e.g. {flag} opening_min=51")
    key, raw = text.split("=", 1)
    key, raw = key.strip(), raw.strip()
    if key not in PARAM_NAMES:
        raise ProfileError(f"{flag}: unknown key {key!r}; {closest(key, PARAM_NAMES)}")
    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw
    return key, value


def with_overrides(p: Profile, sets: list[str] | None, flag: str = "--set") -> Profile:
    if not sets:
        return p
    changes = {}
    for s in sets:
        k, v = parse_override(s, flag)
        changes[k] = check_value(k, v, f"{flag} for profile {p.name!r}")
    return validate(dataclasses.replace(p, **changes), f"profile {p.name!r} with {flag} {' '.join(sets)}")


def resolve(name: str, sets: list[str] | None = None) -> Profile:
    return with_overrides(load(name), sets)


def to_toml(p: Profile) -> str:
    """Every parameter as TOML, in declaration order (what `profiles show` prints)."""
    lines = []
    for f in fields(p):
        v = getattr(p, f.name)
        if f.name == "hand_size_by_players":
            v = v or {}
            body = ", ".join(f"{k} = {val}" for k, val in v.items())
            lines.append(f"{f.name} = {{{(' ' + body + ' ') if body else ''}}}")
            continue
        if f.name == "deal_pattern":
            lines.append(f"{f.name} = {json.dumps(v or [])}")
            continue
        lines.append(f"{f.name} = {json.dumps(v)}")
    return "\n".join(lines) + "\n"
