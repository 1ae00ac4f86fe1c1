"""The bots by name: ``BOTS`` (name -> class, read from the table of kinds, ``sim.bots.kinds``), their
tunable parameters (``configs/bots.toml``, overridden per run) and ``make_bot``."""
from __future__ import annotations

import functools
import inspect
from collections.abc import Mapping

import numpy as np

from ..resources import config_file
from . import graded, kinds
from .base import Bot


class _Bots(Mapping):
    """name -> bot class, in the order of the table of kinds (``sim.bots.kinds``), each class imported
    when first asked for."""

    def __getitem__(self, name: str):
        return kinds.resolve(kinds.KINDS[name].bot)

    def __iter__(self):
        return iter(list(kinds.KINDS))

    def __len__(self) -> int:
        return len(kinds.KINDS)


BOTS = _Bots()


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
