"""What the Python side of the bots shares (their decisions are compiled: sim/bots/greedy_core.py,
sim/bots/table_play.py, expert_core.py, random_bot.py)."""
from __future__ import annotations

from ..engine import DRAW_DISCARD


def forbidden_discard(state) -> int:
    """The card no copy of which may be discarded this turn: the one taken from the discard pile."""
    return state.drawn_card if state.drawn_from == DRAW_DISCARD else -1
