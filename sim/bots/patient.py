"""The patient bot."""
from __future__ import annotations

from .. import meldsearch as MS
from ..engine import DRAW_DISCARD, Play
from . import greedy_core as FG
from .kinds import K_GREEDY, K_PATIENT
from .greedy import GreedyBot
from .moves import forbidden_discard
from .table_play import table_opening


class PatientBot(GreedyBot):
    """Patient: plays like greedy, but holds its melds while a Kalooki is within reach.

    Before opening, it judges from the meld search how many cards its hand is missing from melding
    completely, how many draws the stock still offers, whether an opponent who has opened is close to
    going out, and how much penalty it risks holding; while the Kalooki looks reachable it does not
    open (it only draws and discards its worst loose card) and aims to go out in one go.  It holds
    back only where a Kalooki pays more than a call (``kalooki_pays_more``), and never past a turn it
    can go out in (with new melds and lay-offs onto the table too).  Where the profile allows
    it, it opens with the table's help when its hand alone cannot (``table_opening``: lay-offs that
    count, a joker taken from the table), and as dealer it swaps the upcard when that lowers its
    deadwood.  Otherwise it plays exactly like greedy.

    Its draw and play are compiled (``sim.bots.greedy_core``: ``waits_for_kalooki``, ``patient_draw``,
    ``patient_play``), except the opening with the table's help, which is Python.
    """

    name = "patient"
    hand_loop = "sim.bots.hand_loop"  # a table of greedy and patient bots plays whole hands compiled
    kind = K_PATIENT

    def __init__(self, rng=None, max_missing=2, min_draws=3, danger_cards=5, max_risk=60, **params):
        super().__init__(rng, **params)
        self.max_missing, self.min_draws, self.danger_cards, self.max_risk = max_missing, min_draws, danger_cards, max_risk

    def _waiting(self, state, me, hand) -> bool:
        return FG.waiting(state, me, hand, FG.bot_params(self))

    def play(self, state, me) -> Play:
        play = FG.decide_play(state, me, K_PATIENT, FG.bot_params(self))
        if play is not None:
            return play
        # the hand alone cannot open and the profile lets the table help
        taken_needs_open = state.drawn_from == DRAW_DISCARD and state.discard_obligation(me) == "open"
        forbid = forbidden_discard(state)
        found = table_opening(state, me, state.hands[me], forbid, state.drawn_card if taken_needs_open else -1)
        if found is not None:
            ops, rest = found
            return Play(ops, FG.deadwood_discard(state, rest, forbid))
        return FG.decide_play(state, me, K_GREEDY, FG.bot_params(self))

    def dealer_swap(self, state, me):
        """Take the upcard and discard another card when that lowers the hand's least deadwood."""
        up = state.discard_top
        hand = state.hands[me]
        if up < 0:
            return None
        h = hand.copy()
        h[up] += 1
        card, after = MS.best_discard(h, state.profile, up)
        return card if card != up and after < MS.fast_search(hand, state.profile)[1] else None
