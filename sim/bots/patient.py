"""The patient bot."""
from __future__ import annotations

from .. import meldsearch as MS
from ..engine import DRAW_DISCARD, DRAW_STOCK, NewMeld, Play
from .greedy import GreedyBot
from .moves import forbidden_discard, go_out, kalooki_pays_more, kalooki_within_reach, loose_discard, table_opening


class PatientBot(GreedyBot):
    """Patient: plays like greedy, but holds its melds while a Kalooki is within reach.

    Before opening, it judges from the meld search how many cards its hand is missing from melding
    completely, how many draws the stock still offers, whether an opponent who has opened is close to
    going out, and how much penalty it risks holding; while the Kalooki looks reachable it does not
    open (it only draws and discards its worst loose card) and aims to go out in one go.  It holds
    back only where a Kalooki pays more than a call (``kalooki_pays_more``).  Where the profile allows
    it, it opens with the table's help when its hand alone cannot (``table_opening``: lay-offs that
    count, a joker taken from the table), and as dealer it swaps the upcard when that lowers its
    deadwood.  Otherwise it plays exactly like greedy.
    """

    name = "patient"

    def __init__(self, rng=None, max_missing=2, min_draws=3, danger_cards=5, max_risk=60, **params):
        super().__init__(rng, **params)
        self.max_missing, self.min_draws, self.danger_cards, self.max_risk = max_missing, min_draws, danger_cards, max_risk

    def _waiting(self, state, me, hand) -> bool:
        if not kalooki_pays_more(state.profile):
            return False  # a Kalooki is then only a way out: holding back gains nothing
        _, deadwood, loose = MS.fast_search(hand, state.profile)
        return kalooki_within_reach(state, me, loose, deadwood, self.max_missing, self.min_draws, self.danger_cards,
                                    self.max_risk)

    def draw(self, state, me) -> int:
        if not state.opened[me] and self._waiting(state, me, state.hands[me]):
            top = state.discard_top
            if top >= 0 and DRAW_DISCARD in state.legal_draws() and state.discard_obligation(me) is None:
                h = state.hands[me].copy()
                h[top] += 1
                if MS.fast_search(h, state.profile)[2] < MS.fast_search(state.hands[me], state.profile)[2] + 1:
                    return DRAW_DISCARD
            return DRAW_STOCK
        return super().draw(state, me)

    def play(self, state, me) -> Play:
        p = state.profile
        hand = state.hands[me]
        if not state.opened[me]:
            forbid = forbidden_discard(state)
            ok, disc, ms = go_out(hand, p, forbid, kalooki=True)
            if ok and (p.go_out_first_round or not state.first_round(me)):
                return Play([NewMeld(m) for m in ms], disc)
            taken_needs_open = state.drawn_from == DRAW_DISCARD and state.discard_obligation(me) == "open"
            if not taken_needs_open and self._waiting(state, me, hand):
                res = MS.analyse_deadwood(hand, p)
                return Play([], loose_discard(hand.copy(), state.values, forbid, res.deadwood_left))
            if not MS.can_open(hand, p)[0]:
                found = table_opening(state, me, hand, forbid, state.drawn_card if taken_needs_open else -1)
                if found is not None:
                    ops, rest = found
                    return Play(ops, loose_discard(rest, state.values, forbid,
                                                    MS.analyse_deadwood(rest, p).deadwood_left))
        return super().play(state, me)

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
