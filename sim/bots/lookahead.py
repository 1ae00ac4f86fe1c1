"""The lookahead bot."""
from __future__ import annotations

from .. import meldsearch as MS
from ..cards import JOKER
from .expert import ExpertBot
from .moves import loose_discard
from .outlook import outlook, unseen_counts


class LookaheadBot(ExpertBot):
    """Lookahead: the expert, with its draws and discards judged one draw ahead over the unseen cards.

    The unseen cards are the pack less its own hand, the table and the discard pile (the stock and
    the other hands).  For each loose card it could discard, it goes through every card the next draw
    could bring, weighted by the unseen copies, and scores the discard by the expected least
    deadwood after that draw (and the best discard), less ``out_bonus`` times the chance that the draw
    lets it meld every card but one, plus the expert's feeding risk.  It takes a discard it is free
    to take when the least deadwood with it is at least ``take_margin`` below what a stock draw is
    expected to leave.  Everything else (table play, opening, buy-ins) is the expert's.  This is the
    exact expectation of a one-draw Monte-Carlo look-ahead, so it uses no random numbers.
    """

    name = "lookahead"

    def __init__(self, rng=None, out_bonus=20, take_margin=2, **params):
        super().__init__(rng, **params)
        self.out_bonus, self.take_margin = out_bonus, take_margin

    def _take_discard(self, state, me, h, top) -> bool:
        _, after = MS.best_discard(h, state.profile, top)
        stock = outlook(state.hands[me], state.profile, [-1], unseen_counts(state, me))[0, 0]
        return after <= stock - self.take_margin

    def _choose_discard(self, state, me, hand, forbid, table) -> int:
        loose = self._discard_candidates(hand, state.profile, forbid)
        if len(loose) <= 1:
            return loose[0] if loose else loose_discard(hand, state.values, forbid)
        ahead = outlook(hand, state.profile, loose, unseen_counts(state, me))
        risk = self._feed_risks(state, me, table)
        scores = [(ahead[i, 0] - self.out_bonus * ahead[i, 1] + self.feed_weight * risk[c]
                   + (50 if c == JOKER else 0), -c) for i, c in enumerate(loose)]
        return loose[scores.index(min(scores))]
