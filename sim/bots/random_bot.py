"""The random bot."""
from __future__ import annotations

from .. import meldsearch as MS
from ..cards import N_KINDS
from ..engine import DRAW_DISCARD, DRAW_STOCK, NewMeld, Play
from .base import Bot
from .moves import (
    TurnAdds, apply_harvest, discardable, find_layoffs, forbidden_discard, harvest_options, keep_cards)
from .table_play import table_opening


class RandomBot(Bot):
    """Random: a legal turn chosen at random.

    It draws from either allowed pile at random (the discard only when it owes nothing for it), opens
    with probability one half when it can (with the table's help where the profile allows it and the
    hand alone cannot), once open tries one table move at random (a removal, shift, substitution or
    joker swap whose freed card it can meld again), then makes random lay-offs and splits, and
    discards a random card; as dealer it swaps the upcard for a random card half the time.
    """

    name = "random"

    def draw(self, state, me) -> int:
        legal = state.legal_draws()
        if DRAW_DISCARD in legal and state.discard_obligation(me) is None and self.rng.random() < 0.5:
            return DRAW_DISCARD
        return DRAW_STOCK

    def play(self, state, me) -> Play:
        p = state.profile
        hand = state.hands[me].copy()
        forbid = forbidden_discard(state)
        ops = []
        table = list(state.table)
        if not state.opened[me] and self.rng.random() < 0.5:
            ok, ms = MS.can_open(hand, p)
            if ok and sum(len(m) for m in ms) < hand.sum():
                for m in ms:
                    for c in m.cards:
                        hand[c] -= 1
                    ops.append(NewMeld(m))
                    table.append(m)
            elif not ok:
                taken_needs_open = state.drawn_from == DRAW_DISCARD and state.discard_obligation(me) == "open"
                found = table_opening(state, me, hand, forbid, state.drawn_card if taken_needs_open else -1)
                if found is not None:  # the profile lets it open with the table's help
                    ops, rest = found
                    cards = [c for c in discardable(rest, forbid) for _ in range(int(rest[c]))]
                    return Play(ops, cards[int(self.rng.integers(len(cards)))])
        adds = TurnAdds()
        if state.opened[me] and not ops and self.rng.random() < 0.5:
            ops += self._random_harvest(state, me, hand, table, forbid, adds)
        if (state.opened[me] or ops) and self.rng.random() < 0.5:
            ops += find_layoffs(state, hand, table, keep=1, protect=forbid, max_ops=int(self.rng.integers(1, 4)),
                                adds=adds, splits=True)
        if not discardable(hand, forbid) or hand.sum() < keep_cards(state, me):
            ops, hand = [], state.hands[me].copy()  # nothing would be left to discard: meld nothing
        cards = [c for c in range(N_KINDS) for _ in range(int(hand[c])) if c != forbid]
        return Play(ops, cards[int(self.rng.integers(len(cards)))])

    def dealer_swap(self, state, me):
        """Half the time, take the upcard and discard a random other card of the hand."""
        if self.rng.random() < 0.5:
            return None
        hand = state.hands[me]
        cards = [c for c in range(N_KINDS) for _ in range(int(hand[c])) if c != state.discard_top]
        return cards[int(self.rng.integers(len(cards)))] if cards else None

    def _random_harvest(self, state, me, hand, table, forbid, adds) -> list:
        """Try one table move at random (a removal, a shift, a substitution, a joker swap) whose freed
        card can be melded again with cards from the hand; [] if the chosen one cannot."""
        options = list(harvest_options(state, hand, table, adds))
        if not options:
            return []
        return apply_harvest(state, hand, table, options[int(self.rng.integers(len(options)))], forbid, adds)
