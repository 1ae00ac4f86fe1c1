"""Bots: one protocol, each a documented strategy, acting only through the engine's validated turns.

A bot answers four questions: ``draw(state, me)`` (stock or discard), ``play(state, me)`` (a whole
``Play``: table operations and a discard), ``buy_in(ledger, seat)`` and, in profiles with the East
Coast dealer swap, ``dealer_swap(state, me)``.  Bots read only what a player may see: their own hand,
the table, the discard pile, hand sizes and the public record of pickups and discards.

The package holds one strategy per module (``greedy`` and ``patient``, whose compiled decisions are in
``sim.bots.greedy_core``, ``random_bot``, ``expert`` and ``lookahead``, whose draws and discards are in
``expert_core``, and ``search``, whose searches are in ``search_core``), the compiled play they share
(``table_play``: harvests, lay-offs, splits, openings with the table's help; ``outlook``: the
look-ahead), the table of bot kinds (``kinds``: every bot's name, kind number, class, parameter row
and compiled decisions), the compiled turns and hand loop of their tables (``turn_loop``,
``hand_loop``), and the registry (``registry``: ``BOTS``, name -> class, read from the table of kinds;
the loader of their parameters, ``configs/bots.toml``, overridden per run; ``make_bot``).  The hand
is played by ``sim.engine.loop.play_hand``, in the compiled hand loop a table's bots name
(``compiled_hand_loop``) or turn by turn.
"""
from __future__ import annotations

from ..engine.loop import compiled_hand_loop
from ..engine.core import kalooki_pays_more
from .base import Bot
from .expert import ExpertBot
from .greedy import GreedyBot
from .lookahead import LookaheadBot
from .moves import forbidden_discard
from .patient import PatientBot
from .random_bot import RandomBot
from .search import SearchBot
from .registry import (BOT_CONFIG, BOTS, bot_name_error, check_bot_tables, check_params, make_bot,
                       missing_settings, params_for, setting_error, split_name, tunables,
                       unparametrised_error)
from .table_play import table_opening

__all__ = ["BOTS", "BOT_CONFIG", "Bot", "ExpertBot", "GreedyBot", "LookaheadBot", "PatientBot", "RandomBot",
           "SearchBot", "bot_name_error", "check_bot_tables", "check_params", "compiled_hand_loop",
           "forbidden_discard", "kalooki_pays_more", "make_bot", "missing_settings", "params_for", "setting_error",
           "split_name", "table_opening", "tunables", "unparametrised_error"]
