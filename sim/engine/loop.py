"""A dealt hand played to its end by a table of bots (sim.engine): in the compiled hand loop the bots
name (``compiled_hand_loop``), else turn by turn through the validated ``HandState`` API.  The bots are
handed in; this module imports none of them.

A hand may come with its stakes (``sim.game.hand_stakes``: a row per hand position of what each
outcome is worth on the score sheet); they are kept as ``state.stakes`` for the bots that weigh them,
and a hand without them leaves ``state.stakes`` None (the hand's own points)."""
from __future__ import annotations

import importlib
import os

from .actions import HandResult, IllegalTurn
from .state import HandState

# A hand whose bots all name one compiled hand loop (each bot class's ``hand_loop``; every bot of
# sim.bots names sim.bots.hand_loop), and whose turns nobody watches, is played in that loop, which gives
# exactly the Python engine's results.  KALOOKI_PYTHON_ENGINE=1 (or COMPILED = False) keeps every hand on
# the Python path (tests, debugging).
COMPILED = os.environ.get("KALOOKI_PYTHON_ENGINE", "").strip().lower() not in ("1", "true", "yes")


class BotError(RuntimeError):
    """A bot submitted an illegal turn (bots must only make legal turns)."""


def play_hand(state: HandState, bots, seats: list[int], on_turn=None, stakes=None) -> HandResult:
    """Play a dealt hand to its end; ``bots[i]`` plays hand position i (seat ``seats[i]``), ``stakes[i]``
    its row of stakes (None: the neutral rows)."""
    state.stakes = stakes
    if state.profile.dealer_upcard_swap:
        d = state.dealer
        swap = bots[d].dealer_swap(state, d)
        if swap is not None:
            state.dealer_swap(swap)
    loop = compiled_hand_loop(bots) if COMPILED and on_turn is None and not state.record else None
    if loop is not None and loop.can_play_fast(state):
        result = loop.play_hand_fast(state)
        if result is not None:
            return result  # else a play broke a rule: the Python path below names it
    while state.result is None:
        state.start_turn()
        if state.result is not None:
            break
        me = state.current
        bot = bots[me]
        src = bot.draw(state, me)
        try:
            state.apply_draw(src)
        except IllegalTurn as e:
            raise BotError(f"{bot.name} in position {me}: illegal draw: {e}") from None
        play = bot.play(state, me)
        try:
            state.apply_play(play)
        except IllegalTurn as e:
            raise BotError(f"{bot.name} in position {me}: illegal play: {e}") from None
        if on_turn is not None:
            on_turn(state)
    return state.result


def compiled_hand_loop(bots):
    """The compiled hand loop that plays a whole hand at this table, or None: the Python engine then asks
    each bot for each turn.  A bot class names its loop in ``hand_loop`` (a module whose ``table_loop(bots)``
    gives an object with ``can_play_fast(state)`` and ``play_hand_fast(state)``); a subclass does not
    inherit it, and a bot with parameters of its own set is played turn by turn.  Every bot of the
    hand must name the same loop."""
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
