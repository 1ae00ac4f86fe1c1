"""Bots: one protocol, each a documented strategy, acting only through the engine's validated turns.

A bot answers four questions: ``draw(state, me)`` (stock or discard), ``play(state, me)`` (a whole
``Play``: table operations and a discard), ``buy_in(ledger, seat)`` and, in profiles with the East
Coast dealer swap, ``dealer_swap(state, me)``.  Bots read only what a player may see: their own hand,
the table, the discard pile, hand sizes and the public record of pickups and discards.

The package holds one strategy per module (``greedy`` and ``patient``, whose compiled decisions are in
``sim.bots.greedy_core``, ``random_bot``, ``expert`` and ``lookahead``, whose draws and discards are in
``expert_core``, and ``search``, whose searches are in ``search_core``), the compiled play they share (``table_play``: harvests, lay-offs, splits, openings
with the table's help; ``outlook``: the look-ahead), the compiled hand loop of their tables
(``hand_loop``), and here the registry: ``BOTS`` (name -> class), the loader of their parameters
(``configs/bots.toml``, overridden per run), ``make_bot`` and ``compiled_hand_loop``, through which a
table of bots chooses how its hands are played.  The game loop (sim.engine.loop) knows no particular
bot.
"""
from __future__ import annotations

import functools
import importlib
import inspect

import numpy as np

from .greedy_core import kalooki_pays_more
from ..resources import config_file
from . import graded
from .base import Bot
from .expert import ExpertBot
from .greedy import GreedyBot
from .lookahead import LookaheadBot
from .moves import forbidden_discard
from .patient import PatientBot
from .random_bot import RandomBot
from .search import SearchBot
from .table_play import table_opening

__all__ = ["BOTS", "BOT_CONFIG", "Bot", "ExpertBot", "GreedyBot", "LookaheadBot", "PatientBot", "RandomBot",
           "SearchBot", "bot_name_error", "check_params", "compiled_hand_loop", "forbidden_discard", "kalooki_pays_more",
           "make_bot", "table_opening", "tunables"]

BOTS = {cls.name: cls for cls in (GreedyBot, RandomBot, PatientBot, ExpertBot, LookaheadBot, SearchBot)}


BOT_CONFIG = config_file("bots.toml")  # configs/bots.toml, shipped as package data (sim.resources)


def tunables(name: str) -> dict:
    """A bot's tunable parameters and their defaults (from its class and its parents)."""
    return dict(_tunables(name))


@functools.cache
def _tunables(name: str) -> dict:  # read once per bot: every game makes its bots (make_bot checks params)
    out = {}
    for cls in BOTS[name].__mro__[::-1]:
        if "__init__" in cls.__dict__:
            for pname, prm in inspect.signature(cls.__init__).parameters.items():
                if prm.default is not inspect.Parameter.empty and pname != "rng":
                    out[pname] = prm.default
    return out


def check_params(name: str, params: dict, where: str = "bot_params") -> dict:
    from ..errors import UserError
    allowed = _tunables(name)
    for k, v in params.items():
        if k not in allowed:
            raise UserError(f"{where}: bot {name!r} has no parameter {k!r}; allowed: {', '.join(allowed) or 'none'}")
        if isinstance(v, bool) or not isinstance(v, type(allowed[k])):
            raise UserError(f"{where}: {name}.{k} = {v!r} must be {type(allowed[k]).__name__}")
    return params


def bot_name_error(name: str) -> str | None:
    """Why ``name`` names no player (None if it does): a bot of ``BOTS`` or a graded one, ``NAME@EPS``
    (``sim.bots.graded``)."""
    try:
        base, _ = graded.parse(name)
    except ValueError as e:
        return f"graded player {name!r}: {e}; write NAME@EPS with EPS in 0..1, e.g. expert@0.3"
    if base not in BOTS:
        return (f"unknown bot {name!r}; available: {', '.join(sorted(BOTS))}, or one of them weakened as "
                "NAME@EPS (EPS in 0..1: the share of its turns played at random, e.g. expert@0.3)")
    return None


def make_bot(name: str, rng: np.random.Generator, params: dict | None = None) -> Bot:
    """A bot by name (``NAME@EPS``: graded, ``sim.bots.graded``); ``params`` override the tunables of
    ``configs/bots.toml`` (a graded player takes its bot's)."""
    from ..errors import UserError
    error = bot_name_error(name)
    if error:
        raise UserError(error)
    base, eps = graded.parse(name)
    merged = dict(_file_defaults().get(base, {}))
    merged.update(params or {})
    if eps is None:
        return BOTS[base](rng, **check_params(base, merged))
    bot = graded.graded_class(BOTS[base])(rng, **check_params(base, merged))
    bot.eps = eps
    return bot


_DEFAULTS: dict | None = None


def _file_defaults() -> dict:
    global _DEFAULTS
    if _DEFAULTS is None:
        import tomllib
        from ..errors import UserError
        try:
            data = tomllib.loads(BOT_CONFIG.read_text()) if BOT_CONFIG.is_file() else {}
        except tomllib.TOMLDecodeError as e:
            raise UserError(f"{BOT_CONFIG}: malformed TOML: {e}") from None
        for name, params in data.items():
            if name not in BOTS:
                raise UserError(f"{BOT_CONFIG}: unknown bot {name!r}; available: {', '.join(sorted(BOTS))}")
            check_params(name, params, str(BOT_CONFIG))
        _DEFAULTS = data
    return _DEFAULTS


def compiled_hand_loop(bots):
    """The compiled hand loop that plays a whole hand at this table, or None: the Python engine then asks
    each bot for each turn.  A bot class names its loop in ``hand_loop`` (a module whose ``table_loop(bots)``
    gives an object with ``can_play_fast(state)`` and ``play_hand_fast(state)``); a subclass does not
    inherit it, and a bot with parameters of its own set is played turn by turn.  Every bot of the
    hand must name the same loop (today every bot names ``sim.bots.hand_loop``)."""
    key = tuple(map(id, bots))
    hit = _LOOPS.get(key)
    if hit is not None and all(a is b for a, b in zip(hit[0], bots)):
        return hit[1]
    loops = {type(b).__dict__.get("hand_loop") if not b.params else None for b in bots}
    loop = None if len(loops) != 1 or None in loops else importlib.import_module(loops.pop()).table_loop(bots)
    if len(_LOOPS) >= 256:
        _LOOPS.clear()
    _LOOPS[key] = (tuple(bots), loop)  # holding the bots keeps their ids
    return loop


_LOOPS: dict = {}  # the bots' ids -> (the bots, their table's loop): a table asks once a hand
