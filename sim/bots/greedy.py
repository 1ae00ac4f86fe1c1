"""The greedy bot."""
from __future__ import annotations

from ..engine import Play
from . import greedy_core as FG
from .kinds import K_GREEDY
from .base import Bot


class GreedyBot(Bot):
    """Greedy: melds as early and as much as it can.

    It opens as soon as the opening minimum is reachable, with its most valuable opening; once open
    it lays down every meld it holds and lays off every natural card it can, and its jokers too where
    nothing else but one natural card would be left; whenever its hand and the table let it go out
    (new melds and lay-offs, jokers included, and a discard) it does; it takes the discard only when
    that card completes a meld it can lay while keeping a card to discard, or lets it go out (and,
    before opening, only when it opens with it); it discards its highest-value loose card; and it
    always buys back in.

    Its decisions are compiled (``sim.bots.greedy_core``: ``greedy_draw``, ``greedy_play``) and written
    once: the Python engine asks them turn by turn, and a table of greedy and patient bots plays whole
    hands in the compiled hand loop.
    """

    name = "greedy"
    hand_loop = "sim.bots.hand_loop"  # sim.engine.loop.compiled_hand_loop: a table of plain greedy bots plays compiled
    kind = K_GREEDY

    def draw(self, state, me) -> int:
        return FG.decide_draw(state, me, self.kind, FG.bot_params(self))

    def play(self, state, me) -> Play:
        return FG.decide_play(state, me, K_GREEDY, FG.bot_params(self))
