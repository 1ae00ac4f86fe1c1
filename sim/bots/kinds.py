"""The table of bot kinds: every bot, one row each, and the one numbering the compiled code reads.

A row names the bot (``name``, what ``--bots`` accepts), its kind number (what the compiled hand
loop holds per seat), its class (``module:Class``, imported when first asked for), the function that
writes its parameter row (``module:function``: the words the compiled decisions read, ``X_*`` of
``sim.bots.expert_core`` or ``SX_*`` of ``sim.bots.search_core``), and the compiled decisions its
turn is made of, each named by the kind that owns it:

- ``draw``: ``K_GREEDY``/``K_PATIENT`` (``greedy_core.bot_draw``), ``K_EXPERT``
  (``expert_core.expert_draw``, the expert's or the lookahead's judgement by the row's ``X_KIND``)
  or ``K_RANDOM`` (``random_bot.random_draw``);
- ``play``: ``K_GREEDY``/``K_PATIENT`` (``greedy_core.bot_play``), ``K_EXPERT`` (the table play of
  ``table_play.expert_table_play`` once opened, else the patient's play, then the expert's discard
  ``expert_core.discard_choice``) or ``K_RANDOM`` (``random_bot.random_play``);
- ``asks``: the hand loop stops at the seat's choices and its caller decides them
  (``sim.bots.search_core``: the search plays hands forward with the same loop, and numba compiles
  no recursion);
- ``rollout``: it may play a search bot's rollouts (``ROLLOUT_KINDS``).

``table()`` is the table as the compiled loop reads it (a row per kind number: draw, play, asks),
handed to ``sim.bots.turn_loop.run_turns`` beside each seat's kind.  The warm-up's parts
(``sim.bots.hand_loop``) and the search's rollout kinds are read from here.  A new compiled bot is its
module (its class, whose Python ``draw`` and ``play`` call the same compiled decisions) and a row
here (``add`` for one defined elsewhere); docs/DESIGN.md has the recipe.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

K_GREEDY, K_PATIENT, K_EXPERT, K_LOOKAHEAD, K_RANDOM, K_SEARCH = range(6)

# the compiled table's columns
KT_DRAW, KT_PLAY, KT_ASKS = range(3)
KT_W = 3
DECISIONS = (K_GREEDY, K_PATIENT, K_EXPERT, K_RANDOM)  # the draws and plays the compiled loop makes


class Kind(NamedTuple):
    name: str
    number: int
    bot: str  # "module:Class"
    params: str  # "module:function": the bot's parameter row as the compiled decisions read it
    draw: int  # a kind of DECISIONS: whose compiled draw it makes
    play: int  # a kind of DECISIONS: whose compiled play it makes
    asks: bool = False  # the loop's caller decides its choices (sim.bots.search_core)
    rollout: bool = False  # it may play a search bot's rollouts
    warm_cpu_s: float = 0.0  # CPU seconds to compile the entry points the Python engine asks of it beyond the
    # hand loop's (sim.bots.hand_loop.warm_up's part of its own; 0: none)


_EXPERT_ROW = "sim.bots.expert_core:bot_params"
ROWS = (
    Kind("greedy", K_GREEDY, "sim.bots.greedy:GreedyBot", _EXPERT_ROW, K_GREEDY, K_GREEDY, rollout=True),
    Kind("random", K_RANDOM, "sim.bots.random_bot:RandomBot", _EXPERT_ROW, K_RANDOM, K_RANDOM, warm_cpu_s=2.0),
    Kind("patient", K_PATIENT, "sim.bots.patient:PatientBot", _EXPERT_ROW, K_PATIENT, K_PATIENT, warm_cpu_s=0.5),
    Kind("expert", K_EXPERT, "sim.bots.expert:ExpertBot", _EXPERT_ROW, K_EXPERT, K_EXPERT, rollout=True,
         warm_cpu_s=6.0),
    Kind("lookahead", K_LOOKAHEAD, "sim.bots.lookahead:LookaheadBot", _EXPERT_ROW, K_EXPERT, K_EXPERT, rollout=True,
         warm_cpu_s=2.5),
    Kind("search", K_SEARCH, "sim.bots.search:SearchBot", "sim.bots.search_core:bot_params", K_EXPERT, K_EXPERT,
         asks=True, warm_cpu_s=8.0),
)

KINDS: dict[str, Kind] = {}  # name -> row, in the table's order (the order BOTS lists the bots in)
_TABLE: list = []  # table()'s array, made once after each change


def add(kind: Kind) -> None:
    """Add a row (a bot defined outside this module: the built-in ones are ``ROWS``)."""
    if kind.name in KINDS or any(k.number == kind.number for k in KINDS.values()):
        raise ValueError(f"bot kind {kind.name!r} (number {kind.number}): the name or number is taken")
    if kind.draw not in DECISIONS or kind.play not in DECISIONS:
        raise ValueError(f"bot kind {kind.name!r}: draw and play must each be one of the kinds {DECISIONS}")
    KINDS[kind.name] = kind
    _TABLE.clear()


def remove(name: str) -> None:
    """Take a row added with ``add`` out again."""
    if any(k.name == name for k in ROWS):
        raise ValueError(f"bot kind {name!r} is built in")
    del KINDS[name]
    _TABLE.clear()


def table() -> np.ndarray:
    """The table as the compiled hand loop reads it: row k the draw, play and asks of kind number k."""
    if not _TABLE:
        t = np.full((max(k.number for k in KINDS.values()) + 1, KT_W), -1, np.int64)
        for k in KINDS.values():
            t[k.number] = (k.draw, k.play, int(k.asks))
        t.flags.writeable = False
        _TABLE.append(t)
    return _TABLE[0]


def number(name: str) -> int:
    return KINDS[name].number


def resolve(path: str):
    """The object a row names as ``module:name``."""
    import importlib
    module, _, attr = path.partition(":")
    return getattr(importlib.import_module(module), attr)


for _row in ROWS:
    add(_row)

ROLLOUT_KINDS = {k.name: k.number for k in ROWS if k.rollout}  # a search bot's rollout and others bots
