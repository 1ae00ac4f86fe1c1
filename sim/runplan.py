"""A run's plan: its ``RunConfig`` resolved, before anything is written, into each profile's rules,
players, table compositions and shards, and the run id that hashes what determines its rows.

Shard ``i`` of profile ``P`` holds games ``i*shard_games ..``; every bad-input error of a run (a profile,
its players, its seats, a paired or duplicate design that cannot be dealt) is raised by ``make_plan``.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from dataclasses import dataclass

from . import profiles as PR
from . import schema
from .errors import UserError
from .runconfig import DEFAULT_BOT, RunConfig, TableMix


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
    changes = {k: PR.check_value(k, v, source) for k, v in sets.items()}  # profiles' own per-key check
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
