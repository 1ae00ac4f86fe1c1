"""The lookahead bot."""
from __future__ import annotations

from .kinds import K_LOOKAHEAD
from .expert import BUY_TABLE, ExpertBot


class LookaheadBot(ExpertBot):
    """Lookahead: the expert, with its discards judged one draw ahead over the unseen cards.

    The unseen cards are the pack less its own hand, the table and the discard pile (the stock and
    the other hands).  For each loose card it could discard, it goes through every card the next draw
    could bring, weighted by the unseen copies, and scores the discard by the expected least
    deadwood after that draw (and the best discard), less ``out_bonus`` times the chance that the draw
    lets it meld every card but one, plus the expert's feeding risk and its ``partial_weight`` points
    for each unseen card that would complete a pair, two-card run or one-gap run the card makes with
    another loose card (what the partial meld is worth beyond the next draw); ties break as the
    expert's.  It takes a discard it is free to take as the expert does, with ``take_margin`` for the
    expert's ``draw_gain``.  Everything else (table play, opening) is the expert's.

    It weighs the score sheet as the expert does: the deadwood after each draw by what that many
    penalty points cost on the sheet (its row of stakes), and a one-draw chance of going out by
    ``out_bonus`` plus what going out is worth on the sheet beyond the points it saves.  Where the
    profile has a table of game values (``sim.equity``) it buys back in when the money expected from
    buying in beats leaving (``buy_in_gain``, as the expert does), elsewhere by the pool rule
    (``buy_in = 0``: the pool rule everywhere).  The outlook is the exact expectation of a one-draw
    Monte-Carlo look-ahead, so it uses no random numbers.

    Its draw and discard choice are the expert's compiled ones (``sim.bots.expert_core``) with the
    lookahead's judgement (``K_LOOKAHEAD``; the outlook is ``sim.bots.outlook.outlook_kernel``).
    """

    name = "lookahead"
    hand_loop = "sim.bots.hand_loop"  # a table of greedy, patient, expert and lookahead bots plays compiled
    core_kind = K_LOOKAHEAD

    def __init__(self, rng=None, out_bonus=20, take_margin=5, partial_weight=5, draw_out=0, buy_in=BUY_TABLE,
                 **params):
        super().__init__(rng, partial_weight=partial_weight, draw_out=draw_out, buy_in=buy_in, **params)
        self.out_bonus, self.take_margin = out_bonus, take_margin
