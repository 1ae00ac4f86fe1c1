"""A dealt hand played to its end by a table of bots (sim.engine): in the compiled hand loop the bots'
registry names for the table (``sim.bots.compiled_hand_loop``), else turn by turn through the validated
``HandState`` API.  This module imports no bot."""
from __future__ import annotations

import os

from .actions import HandResult, IllegalTurn
from .state import HandState

# A hand whose bots all name one compiled hand loop (sim.bots.compiled_hand_loop; today every bot names
# sim.bots.hand_loop), and whose turns nobody watches, is played in that loop, which gives exactly the
# Python engine's results.  KALOOKI_PYTHON_ENGINE=1 (or COMPILED = False) keeps every hand on the
# Python path (tests, debugging).
COMPILED = os.environ.get("KALOOKI_PYTHON_ENGINE", "").strip().lower() not in ("1", "true", "yes")


class BotError(RuntimeError):
    """A bot submitted an illegal turn (bots must only make legal turns)."""


def play_hand(state: HandState, bots, seats: list[int], on_turn=None) -> HandResult:
    """Play a dealt hand to its end; ``bots[i]`` plays hand position i (seat ``seats[i]``)."""
    if state.profile.dealer_upcard_swap:
        d = state.dealer
        swap = bots[d].dealer_swap(state, d)
        if swap is not None:
            state.dealer_swap(swap)
    loop = _compiled_loop(bots) if COMPILED and on_turn is None and not state.record else None  # a TableLoop
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


def _compiled_loop(bots):
    from ..bots import compiled_hand_loop  # imported late: the bots pull in the compiled meld search
    return compiled_hand_loop(bots)
