"""The expert bot."""
from __future__ import annotations

import numpy as np

from .. import meldsearch as MS
from .. import melds as M
from ..cards import JOKER, N_KINDS, N_RANKS
from ..engine import DRAW_DISCARD, DRAW_STOCK, LayOff, NewMeld, Play, SwapJoker
from ..melds import GROUP, RUN
from . import expert_core as XC
from .moves import (
    TurnAdds, apply_harvest, checked, discardable, find_layoffs, forbidden_discard, go_out, harvest_options,
    joker_in_meld_with_two, keep_cards, lay_down, leaves_a_discard, loose_discard, meld_taken_card, repair,
    table_opening)
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
    core_kind = XC.K_EXPERT  # its draw and discard choice in sim.bots.expert_core

    def __init__(self, rng=None, max_harvests=3, feed_weight=4, draw_gain=2, **params):
        super().__init__(rng, **params)
        self.max_harvests, self.feed_weight, self.draw_gain = max_harvests, feed_weight, draw_gain

    # ---------------------------------------------------------------- draw
    def draw(self, state, me) -> int:
        """Compiled (``expert_core._expert_draw``), except the opening with the table's help."""
        src = XC.decide_draw(state, me, XC.bot_params(self))
        if src != XC.ASK_TABLE_OPENING:
            return src
        top = state.discard_top
        h = state.hands[me].copy()
        h[top] += 1
        # it takes the discard when it opens with it with the table's help (a joker taken, lay-offs counted)
        return DRAW_DISCARD if table_opening(state, me, h, top, top) is not None else DRAW_STOCK

    # ---------------------------------------------------------------- play
    def play(self, state, me) -> Play:
        p = state.profile
        if not state.opened[me]:
            return self._discard_smartly(state, me, super().play(state, me))
        hand = state.hands[me].copy()
        forbid = forbidden_discard(state)
        ok, disc, ms = go_out(hand, p, forbid)
        if ok and (p.go_out_first_round or not state.first_round(me)):
            return Play([NewMeld(m) for m in ms], disc)
        table = list(state.table)
        ops: list = []
        adds = TurnAdds()
        for _ in range(self.max_harvests):
            best = self._best_harvest(state, me, hand, table, forbid, adds)
            if best is None:
                break
            h_ops, hand, table, out = best
            ops += h_ops
            if out is not None:  # the harvest lets it go out
                return Play(ops + [NewMeld(m) for m in out[1]], out[0])
        res = MS.analyse_deadwood(hand, p)
        if res.deadwood and hand.sum() - sum(len(m) for m in res.deadwood) >= 1:
            lay_down(res.deadwood, hand, ops, table)
        keep = keep_cards(state, me)
        ops += find_layoffs(state, hand, table, keep=keep, protect=forbid, adds=adds, splits=True)
        ops = repair(ops, hand, forbid, keep)
        taken = state.drawn_card if state.drawn_from == DRAW_DISCARD else -1
        if state.discard_obligation(me) == "meld" and not any(
                getattr(op, "card", None) == taken or (isinstance(op, NewMeld) and taken in op.meld.cards) for op in ops):
            fallback = meld_taken_card(state, state.hands[me].copy(), taken)
            if fallback is not None:
                return Play(*fallback)
        return Play(ops, self._choose_discard(state, me, hand, forbid, table))

    def _best_harvest(self, state, me, hand, table, forbid, adds):
        """The table move (see ``harvest_options``) that lets it go out, else the one that lowers its
        deadwood most with the freed card melded again: (ops, hand, table, None or (discard, melds))."""
        p = state.profile
        base = MS.fast_search(hand, p)[1]
        best = None
        options = list(harvest_options(state, hand, table, adds))
        if not options:
            return None
        n = len(options)
        hands = np.repeat(hand[None, :], 2 * n, axis=0)  # each move's hand with and without the freed card
        for k, o in enumerate(options):
            for c in o.give:
                hands[k, c] -= 1
                hands[n + k, c] -= 1
            hands[k, o.got] += 1
        answers = MS.fast_batch(hands, p).tolist()  # one compiled search for every candidate
        for k, o in enumerate(options):
            h = hands[k]
            got = o.got
            _, dead, loose = answers[k]
            if loose > 1 and (dead >= base or (best is not None and best[0][0] < 0)):
                continue  # cannot go out, and no better than what the hand has (or a way out is known)
            ok, disc, ms = MS.can_go_out(h, p) if loose <= 1 else (False, None, [])
            if ok and disc != forbid and got != disc:  # the freed card must be melded, not discarded
                if got == JOKER and not joker_in_meld_with_two(ms):
                    continue
                score = (-1, 0)
            else:
                if dead >= base or dead >= answers[n + k][1] + state.values[got]:
                    continue  # no gain, or the freed card would not be melded in a least-deadwood partition
                res = MS.analyse_deadwood(h, p)
                if got in res.deadwood_left or not res.deadwood:
                    continue
                if got == JOKER and not joker_in_meld_with_two(res.deadwood):
                    continue
                rest = h.copy()
                for mm in res.deadwood:
                    for x in mm.cards:
                        rest[x] -= 1
                if not discardable(rest, forbid):
                    continue
                gain = base - res.min_deadwood
                if gain <= 0:
                    continue
                score = (0, -gain)
                ms = res.deadwood
            if best is None or score < best[0]:
                o = checked(state, table, hand, o, adds)
                if o is None:
                    continue  # the rules do not allow this move now
                best = (score, o, h.copy(), ms, ok and score[0] == -1, disc)
        if best is None:
            return None
        score, o, h, ms, going_out, disc = best
        if going_out:
            return list(o.ops), h, table, (disc, ms)
        hand, table = hand.copy(), list(table)
        ops = apply_harvest(state, hand, table, o, forbid, adds)
        return (ops, hand, table, None) if ops else None

    # ---------------------------------------------------------------- discards
    def _feed_risks(self, state, me, table) -> list[int]:
        """Risk, for every card, of feeding the next player with it: it matches what that player took
        from the discard pile (same rank, or same suit within two ranks), less once for each time that
        player discarded that very card, or it extends the table for them (``expert_core._feed_risks``)."""
        return XC.feed_risks(state, me, table).tolist()

    @staticmethod
    def _discard_candidates(hand, p, forbid) -> list[int]:
        """The loose cards of a least-deadwood partition (every card if none is loose), ascending,
        never the forbidden card."""
        return XC.discard_candidates(hand, p, forbid)

    def _choose_discard(self, state, me, hand, forbid, table) -> int:
        """The discard from ``hand`` (``table``: the table after this turn's operations), compiled
        (``expert_core._choose_discard``): the candidate leaving the least deadwood plus its feeding risk."""
        return XC.choose_discard(state, me, hand, forbid, table, XC.bot_params(self))

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
