"""The greedy bot."""
from __future__ import annotations

from .. import meldsearch as MS
from .. import melds as M
from ..cards import N_KINDS
from ..engine import DRAW_DISCARD, DRAW_STOCK, NewMeld, Play
from .base import Bot
from .moves import (
    discardable, find_layoffs, forbidden_discard, go_out, keep_cards, lay_down, leaves_a_discard,
    loose_discard, meld_taken_card, repair)


class GreedyBot(Bot):
    """Greedy: melds as early and as much as it can.

    It opens as soon as the opening minimum is reachable, with its most valuable opening; once open
    it lays down every meld it holds and lays off every card it can; it takes the discard only when
    that card completes a meld it can lay while keeping a card to discard, or lets it go out (and,
    before opening, only when it opens with it); it discards its
    highest-value loose card; and it always buys back in.
    """

    name = "greedy"
    hand_loop = "sim.fastgreedy"  # sim.bots.compiled_hand_loop: a table of plain greedy bots plays compiled

    def draw(self, state, me) -> int:
        top = state.discard_top
        if top < 0 or DRAW_DISCARD not in state.legal_draws():
            return DRAW_STOCK
        p = state.profile
        hand = state.hands[me].copy()
        obligation = state.discard_obligation(me)
        hand[top] += 1
        if obligation == "open":
            ok, ms = MS.can_open(hand, p)
            if ok and any(top in m.cards for m in ms) and leaves_a_discard(hand, ms, top, 1):
                return DRAW_DISCARD
            return DRAW_STOCK
        if obligation == "meld":
            return DRAW_DISCARD if (state.opened[me] and meld_taken_card(state, hand, top) is not None) else DRAW_STOCK
        after = MS.analyse_deadwood(hand, p)
        if top in after.deadwood_left:
            return DRAW_STOCK
        before = MS.analyse_deadwood(state.hands[me], p)
        if after.min_loose >= before.min_loose:
            return DRAW_STOCK
        # the meld it completes must be layable with a card (not a copy of the taken one) kept to discard,
        # or let it go out: else two players can pass a card back and forth for ever (issue 12, hole 7)
        if leaves_a_discard(hand, after.deadwood, top, keep_cards(state, me)):
            return DRAW_DISCARD
        may_out = p.go_out_first_round or not state.first_round(me)
        return DRAW_DISCARD if may_out and go_out(hand, p, top, kalooki=not state.opened[me])[0] else DRAW_STOCK

    def play(self, state, me) -> Play:
        p = state.profile
        hand = state.hands[me].copy()
        forbid = forbidden_discard(state)
        values = state.values
        taken = state.drawn_card if state.drawn_from == DRAW_DISCARD else -1
        ops: list = []
        if not state.opened[me]:
            ok, disc, ms = go_out(hand, p, forbid, kalooki=True)
            if ok and (p.go_out_first_round or not state.first_round(me)):
                return Play([NewMeld(m) for m in ms], disc)
            ok, ms = MS.can_open(hand, p)
            if ok:
                used = sum(len(m) for m in ms)
                if used >= hand.sum():
                    ms = self._opening_with_discard(hand, p, forbid)
                # the opening must leave a card to discard (two where nobody may go out yet): drop its
                # last melds while what remains still reaches the minimum
                ms = list(ms or [])
                while ms:
                    rest = hand.copy()
                    for m in ms:
                        for c in m.cards:
                            rest[c] -= 1
                    if discardable(rest, forbid) and rest.sum() >= keep_cards(state, me):
                        break
                    ms.pop()
                if ms and sum(M.value(m, p) for m in ms) < p.opening_min:
                    ms = []
                if ms and (taken < 0 or any(taken in m.cards for m in ms) or state.discard_obligation(me) is None):
                    for m in ms:
                        for c in m.cards:
                            hand[c] -= 1
                        ops.append(NewMeld(m))
            if not ops:
                return Play([], loose_discard(hand, values, forbid, MS.analyse_deadwood(hand, p).deadwood_left))
        else:
            ok, disc, ms = go_out(hand, p, forbid)
            if ok and (p.go_out_first_round or not state.first_round(me)):
                return Play([NewMeld(m) for m in ms], disc)
        n_opening = len(ops)  # the opening melds (none when already open): repair never takes them back
        table = list(state.table) + [op.meld for op in ops]
        # lay down every meld held (keeping a card to discard), then lay off
        res = MS.analyse_deadwood(hand, p)
        if res.deadwood and (hand.sum() - sum(len(m) for m in res.deadwood)) >= 1:
            lay_down(res.deadwood, hand, ops, table)
        elif res.deadwood:
            disc, _ = MS.best_discard(hand, p, forbid)
            h2 = hand.copy()
            h2[disc] -= 1
            lay_down(MS.analyse_deadwood(h2, p).deadwood, hand, ops, table)
        keep = keep_cards(state, me)
        ops += find_layoffs(state, hand, table, keep=keep, protect=forbid)
        ops = repair(ops, hand, forbid, keep, fixed=n_opening)
        if state.discard_obligation(me) == "meld" and taken >= 0 and not any(
                getattr(op, "card", None) == taken or (isinstance(op, NewMeld) and taken in op.meld.cards) for op in ops):
            fallback = meld_taken_card(state, state.hands[me].copy(), taken)
            if fallback is not None:
                return Play(*fallback)
        left = [c for c in range(N_KINDS) for _ in range(int(hand[c]))]
        return Play(ops, loose_discard(hand, values, forbid, left))

    def _opening_with_discard(self, hand, p, forbid):
        """The most valuable opening that still leaves a card to discard."""
        best, best_val = None, -1
        for d in range(N_KINDS):
            if hand[d] <= 0 or d == forbid:
                continue
            h = hand.copy()
            h[d] -= 1
            ok, ms = MS.can_open(h, p)
            if ok:
                v = sum(M.value(m, p) for m in ms)
                if v > best_val:
                    best, best_val = ms, v
        return best or []
