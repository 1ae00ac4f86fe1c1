"""The expert bot."""
from __future__ import annotations

import numpy as np

from .. import meldsearch as MS
from .. import melds as M
from ..cards import JOKER, N_KINDS, N_RANKS
from ..engine import DRAW_DISCARD, DRAW_STOCK, LayOff, NewMeld, Play, SwapJoker
from ..melds import GROUP, RUN
from .moves import (
    TurnAdds, apply_harvest, checked, discardable, find_layoffs, forbidden_discard, go_out, harvest_options,
    joker_in_meld_with_two, keep_cards, lay_down, leaves_a_discard, loose_discard, meld_taken_card, repair,
    table_opening)
from .expert_play import expert_play
from .patient import PatientBot


class ExpertBot(PatientBot):
    """Expert: the whole repertoire of table play, careful draws and discards, and money sense.

    Each turn it searches table rearrangements within a budget (``max_harvests`` moves): it considers
    every way the rules give to free a card from the table (removing an end card of a run of four or
    more or a card of a four-card group; shifting a run by adding a card at one end and taking the
    other end; substituting in a three-card group by adding the missing suit and taking another;
    swapping a joker out of a run or a group with the natural card or cards it stands for) and makes
    the one that lets it go out, or else lowers its deadwood most with the freed card melded again
    from its hand; then it lays down its melds, lays off, and splits runs with cards that duplicate an
    inner card.  It takes the discard when that lowers its deadwood or lets it open; it chooses the
    discard that keeps its own deadwood low and avoids feeding the next player (it remembers what that
    player picked up and discarded, and which cards extend the table for them); it holds back its opening for a
    Kalooki like `patient` while that is within reach and opponents are far from going out (where a
    Kalooki pays more); it opens like `patient`, with the table's help where the profile allows it,
    and takes a discard it can open with that way; it keeps jokers; and it buys back in only when the
    pool is worth the stake.
    """

    name = "expert"

    def __init__(self, rng=None, max_harvests=3, feed_weight=4, draw_gain=2, **params):
        super().__init__(rng, **params)
        self.max_harvests, self.feed_weight, self.draw_gain = max_harvests, feed_weight, draw_gain

    # ---------------------------------------------------------------- draw
    def draw(self, state, me) -> int:
        p = state.profile
        top = state.discard_top
        if top < 0 or DRAW_DISCARD not in state.legal_draws():
            return DRAW_STOCK
        obligation = state.discard_obligation(me)
        h = state.hands[me].copy()
        h[top] += 1
        if obligation == "open":
            if self._waiting(state, me, state.hands[me]):
                return DRAW_STOCK
            ok, ms = MS.can_open(h, p)
            if ok and any(top in m.cards for m in ms) and leaves_a_discard(h, ms, top, 1):
                return DRAW_DISCARD
            if not ok and table_opening(state, me, h, top, top) is not None:
                return DRAW_DISCARD  # it opens with the table's help (a joker taken, lay-offs counted)
            return DRAW_STOCK
        if not state.opened[me] and self._waiting(state, me, state.hands[me]):
            return super().draw(state, me)
        if obligation == "meld":
            return DRAW_DISCARD if meld_taken_card(state, h, top) is not None else DRAW_STOCK
        return DRAW_DISCARD if self._take_discard(state, me, h, top) else DRAW_STOCK

    def _take_discard(self, state, me, h, top) -> bool:
        """Free to take the discard (``h`` is the hand with it): does it lower deadwood enough?"""
        before = MS.fast_search(state.hands[me], state.profile)[1]
        _, after = MS.best_discard(h, state.profile, top)
        return after <= before - self.draw_gain

    # ---------------------------------------------------------------- play
    def play(self, state, me) -> Play:
        if not state.opened[me]:
            return self._discard_smartly(state, me, super().play(state, me))
        play, hand, table = expert_play(state, me, self.max_harvests)  # compiled: sim/bots/expert_play.py
        if table is not None:
            play.discard = self._choose_discard(state, me, hand, forbidden_discard(state), table)
        return play

    # ---------------------------------------------------------------- discards
    def _feed_risks(self, state, me, table) -> list[int]:
        """Risk, for every card, of feeding the next player with it: it matches what that player took
        from the discard pile (same rank, or same suit within two ranks), less once for each time that
        player discarded that very card, or it extends the table for them."""
        nxt = (me + 1) % state.n
        risk = [0] * N_KINDS
        risk[JOKER] = 10
        for q in state.pickups[nxt]:
            if q == JOKER:
                continue
            qr, qs = q % N_RANKS, q // N_RANKS
            for s in range(4):
                risk[s * N_RANKS + qr] += 1
            for r in range(max(qr - 2, 0), min(qr + 2, N_RANKS - 1) + 1):
                risk[qs * N_RANKS + r] += 1
        for q in state.discards_by[nxt]:
            if q != JOKER and risk[q] > 0:
                risk[q] -= 1  # a card they threw away is one they are less likely to want back
        if state.opened[nxt]:
            for m in table:
                if m.kind == RUN:
                    for e in (m.low - 1, m.low + len(m)):
                        if 0 <= e <= M.ACE_HIGH_EXT:
                            risk[m.suit * N_RANKS + M.ext_rank_to_rank(e)] += 2
                elif m.kind == GROUP and m.low >= 0 and len(m) < 4:
                    present = {x // N_RANKS for x in m.reps}
                    for s in range(4):
                        if s not in present:
                            risk[s * N_RANKS + m.low] += 2
        return risk

    @staticmethod
    def _discard_candidates(hand, p, forbid) -> list[int]:
        """The loose cards of a least-deadwood partition (every card if none is loose), ascending,
        never the forbidden card."""
        loose = sorted(set(MS.analyse_deadwood(hand, p).deadwood_left)) or [c for c in range(N_KINDS) if hand[c] > 0]
        return [c for c in loose if c != forbid]

    def _choose_discard(self, state, me, hand, forbid, table) -> int:
        p = state.profile
        loose = self._discard_candidates(hand, p, forbid)
        if not loose:
            return loose_discard(hand, state.values, forbid)
        extra = self.feed_weight * np.array(self._feed_risks(state, me, table), dtype=np.int64)
        extra[JOKER] += 50
        return MS.least_scored_discard(hand, p, loose, extra)  # one compiled search for every candidate

    def _discard_smartly(self, state, me, play: Play) -> Play:
        """Replace an unopened player's discard with the expert's choice (same cards melded)."""
        hand = state.hands[me].copy()
        table = list(state.table)
        for op in play.ops:
            if isinstance(op, NewMeld):
                for c in op.meld.cards:
                    hand[c] -= 1
                table.append(op.meld)
            elif isinstance(op, LayOff):
                hand[op.card] -= 1
            elif isinstance(op, SwapJoker):  # a joker taken to open: it goes into a new meld below
                hand[op.card] -= 1
                if op.extra >= 0:
                    hand[op.extra] -= 1
                hand[JOKER] += 1
        if hand.sum() == 1 or (play.ops and hand.sum() == 0):
            return play
        if hand.sum() <= 1:
            return play
        return Play(play.ops, self._choose_discard(state, me, hand, forbidden_discard(state), table))

    # ---------------------------------------------------------------- money
    def buy_in(self, ledger, seat) -> bool:
        p = ledger.p
        still_in = ledger.players_in()
        pool_after = ledger.pool + p.stake_buy_in
        # a re-entrant starts at the highest total: give it a little less than an equal share
        p_win = 0.75 / (len(still_in) + 1)
        return pool_after * p_win > p.stake_buy_in
