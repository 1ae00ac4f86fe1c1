"""The bots by name: ``BOTS`` (name -> class, read from the table of kinds, ``sim.bots.kinds``), their
tunable parameters (``configs/bots.toml``, overridden per run) and ``make_bot``.

A player is named by its bot, optionally one of its *named settings*, and a grade:
``NAME[.SETTING][@EPS]``.  ``expert`` plays by configs/bots.toml's ``[expert]`` and a run's ``[expert]``
parameters; ``expert.tuned`` is the same bot playing by those and then the run's ``[expert.tuned]``
table (in TOML a sub-table of ``[expert]``), so two settings of one bot can sit at one table; ``@EPS``
grades either (``sim.bots.graded``).  A named setting's table must be given (an empty one plays as its
bot): a name with no table is more likely a typing slip than a wish."""
from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable, Mapping

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


SETTING_SEP = "."
_SETTING = re.compile(r"[A-Za-z0-9_-]+")


def split_name(name: str) -> tuple[str, str | None, float | None]:
    """(bot, setting name or None, eps or None) of ``NAME[.SETTING][@EPS]``.  Raises ValueError with the
    reason when EPS is not a number in 0..1 or SETTING holds other than letters, digits, ``_`` and ``-``."""
    player, eps = graded.parse(name)
    base, dot, label = player.partition(SETTING_SEP)
    if dot and not _SETTING.fullmatch(label):
        raise ValueError(f"setting name {label!r} after '{SETTING_SEP}' must be letters, digits, '_' or '-'")
    return base, (label if dot else None), eps


def check_params(name: str, params: dict, where: str = "bot_params") -> dict:
    """``params`` (parameter -> value) are ``name``'s tunables, each of its default's type."""
    from ..errors import UserError
    allowed = _tunables(name)
    for k, v in params.items():
        if k not in allowed:
            raise UserError(f"{where}: bot {name!r} has no parameter {k!r}; allowed: {', '.join(allowed) or 'none'}")
        if isinstance(v, bool) or not isinstance(v, type(allowed[k])):
            raise UserError(f"{where}: {name}.{k} = {v!r} must be {type(allowed[k]).__name__}")
    return params


def check_bot_tables(data: dict, where: str) -> dict:
    """A run's bot parameters: ``{bot: {parameter: value, ..., SETTING: {parameter: value}}}``, a table per
    registered bot holding its parameters and a sub-table per named setting (``[expert.tuned]`` in TOML)."""
    from ..errors import UserError
    for name, params in data.items():
        if name not in BOTS or not isinstance(params, dict):
            raise UserError(f"{where}: {name!r} is not a bot table; bots: {', '.join(sorted(BOTS))} (a named "
                            f"setting's table is [BOT.SETTING], e.g. [expert.tuned])")
        check_params(name, {k: v for k, v in params.items() if not isinstance(v, dict)}, where)
        for label, sub in params.items():
            if isinstance(sub, dict):
                if not _SETTING.fullmatch(label):
                    raise UserError(f"{where}: [{name}.{label}]: a setting name must be letters, digits, '_' or '-'")
                if any(isinstance(v, dict) for v in sub.values()):
                    raise UserError(f"{where}: [{name}.{label}] holds a table; a named setting holds parameters only")
                check_params(name, sub, f"{where} [{name}.{label}]")
    return data


def parameter_tables(bot_params: dict):
    """(label, table) of every table of parameters in ``bot_params``: each bot's (``expert``) and each named
    setting's (``expert.tuned``), the setting's as given (not merged with its bot's)."""
    for name, params in bot_params.items():
        yield name, params
        for label, sub in params.items():
            if isinstance(sub, dict):
                yield f"{name}{SETTING_SEP}{label}", sub


def params_for(bot_params: dict | None, name: str) -> dict:
    """The parameters a player plays by beyond configs/bots.toml: its bot's table in ``bot_params``
    (named settings' sub-tables left out), then, for a named setting, its own sub-table over them."""
    base, label, _ = split_name(name)
    table = (bot_params or {}).get(base) or {}
    out = {k: v for k, v in table.items() if not isinstance(v, dict)}
    if label is not None:
        out.update(table.get(label) or {})
    return out


def missing_settings(names, bot_params: dict | None) -> list[str]:
    """The named settings among player ``names`` that ``bot_params`` gives no table."""
    out = []
    for name in names:
        base, label, _ = split_name(name)
        if label is not None and not isinstance(((bot_params or {}).get(base) or {}).get(label), dict):
            out.append(name)
    return out


def bot_name_error(name: str) -> str | None:
    """Why ``name`` names no player (None if it does): a bot of ``BOTS``, a named setting ``NAME.SETTING`` or a
    graded one, ``NAME@EPS`` (``sim.bots.graded``)."""
    try:
        base, _, _ = split_name(name)
    except ValueError as e:
        return (f"player {name!r}: {e}; write NAME, NAME.SETTING (a named setting) or NAME@EPS with EPS in "
                "0..1, e.g. expert@0.3")
    if base not in BOTS:
        return (f"unknown bot {name!r}; available: {', '.join(sorted(BOTS))}, one of them by a named setting as "
                "NAME.SETTING (a [NAME.SETTING] table of the bot parameters), or one weakened as NAME@EPS (EPS "
                "in 0..1: the share of its turns played at random, e.g. expert@0.3)")
    return None


def setting_error(name: str, why: Callable[[str, str], str], prefix: str = "") -> str:
    """Why the named setting ``name`` (``NAME.SETTING``) cannot play: it plays by a ``[PREFIX NAME.SETTING]``
    table, and ``why(base, table)`` (the bot's name, ``NAME.SETTING``) says where that table is missing or
    goes."""
    base, label, _ = split_name(name)
    return f"{name} is a named setting of {base}: it plays by a [{prefix}{base}.{label}] table, " + why(
        base, f"{base}.{label}")


def unparametrised_error(name: str) -> str | None:
    """Why ``name`` names no player of a command that takes no bot parameters (``bot_name_error``, or a
    named setting, which only parameters give)."""
    error = bot_name_error(name)
    if error is None and split_name(name)[1] is not None:
        error = setting_error(name, lambda base, _: "which this command does not take (`kalooki tournament "
                              f"--bot-params FILE` and a run config's bot_params give one): give {base}")
    return error


def make_bot(name: str, rng: np.random.Generator, params: dict | None = None) -> Bot:
    """A player by name (``NAME[.SETTING][@EPS]``: a graded one, ``sim.bots.graded``); ``params`` override
    the tunables of configs/bots.toml's table of its bot (a named setting's, ``params_for``, come merged)."""
    from ..errors import UserError
    error = bot_name_error(name)
    if error:
        raise UserError(error)
    base, _, eps = split_name(name)
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
            if params.get("game_values"):
                raise UserError(f"{BOT_CONFIG}: [{name}] game_values = {params['game_values']!r}: a table of game values "
                                "holds for one profile's rules, so the shipped parameters keep \"\" (the profile's "
                                "own table); `kalooki tournament --bot-params FILE` takes one")
        _DEFAULTS = data
    return _DEFAULTS
