"""One-draw look-ahead over the unseen cards, for the ``lookahead`` bot.

What a player cannot see is the stock and the other hands: every card of the pack that is not in
its own hand, on the table or in the discard pile.  For a hand and a candidate discard, the kernel
goes through every card the next draw could bring, weighted by how many copies of it are unseen,
and adds up what the hand would then be worth: the least deadwood after the best discard, and
whether every card but one would meld (the player could go out).  It is the exact expectation of a
one-draw Monte-Carlo look-ahead, so it needs no random numbers.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .. import meldsearch as MS
from ..cards import COPIES, JOKER, N_KINDS
from ..engine.core import ROW_W, row_of
from ..meldsearch import P_HV, P_JOKER_PENALTY, _answers, _discard_order, _workspace
from ..numba_cache import drop_stale


@njit(cache=True)
def _best_discard_deadwood(h, prm, d_all, mv, ws, rec):
    """Least deadwood of h after discarding one card, given d_all = deadwood of h.  Removing a card
    lowers deadwood by at most its penalty, so cards are tried highest penalty first and the search
    stops once no card left can beat the best found."""
    order = _discard_order(h, prm)
    best = -1
    for i in range(order.shape[0]):
        y = order[i]
        pen = prm[P_JOKER_PENALTY] if y == 52 else prm[P_HV + y % 13]
        if best >= 0 and d_all - pen >= best:
            break
        h[y] -= 1
        v, d, l = _answers(h, prm, mv, ws, rec)
        h[y] += 1
        if best < 0 or d < best:
            best = d
            if best == 0:
                break
    return best


@njit(cache=True)
def outlook_kernel(counts, prm, cands, unseen, out):
    """For each candidate discard cands[i] (-1: none): out[i, 0] = sum over unseen cards x,
    weighted by unseen[x], of the least deadwood after the discard, drawing x and discarding the best
    card; out[i, 1] = the weighted number of draws after which all cards but one meld."""
    mv, ws, rec = _workspace()
    h = counts.copy()
    for i in range(cands.shape[0]):
        c = cands[i]
        if c >= 0:
            h[c] -= 1
        total = 0
        outs = 0
        for x in range(53):
            w = unseen[x]
            if w <= 0:
                continue
            h[x] += 1
            v, d, l = _answers(h, prm, mv, ws, rec)
            if l <= 1:
                outs += w
            total += w * _best_discard_deadwood(h, prm, d, mv, ws, rec)
            h[x] -= 1
        if c >= 0:
            h[c] += 1
        out[i, 0] = total
        out[i, 1] = outs


@njit(cache=True)
def unseen_kernel(hand, tab, nt, discard, nd, jokers, out):
    """out = copies of each card not in ``hand``, the first nt meld rows of ``tab`` or discard[:nd]
    (``jokers`` in the pack), never below zero."""
    for c in range(N_KINDS):
        out[c] = COPIES - hand[c]
    out[JOKER] = jokers - hand[JOKER]
    for i in range(nt):
        for k in range(tab[i, 2]):
            out[tab[i, 3 + k]] -= 1
    for i in range(nd):
        out[discard[i]] -= 1
    for c in range(N_KINDS):
        if out[c] < 0:
            out[c] = 0


drop_stale(outlook_kernel, (MS,))


def unseen_counts(state, me: int) -> np.ndarray:
    """Copies of each card that ``me`` cannot see: the pack less its hand, the table and the discards."""
    unseen = np.empty(N_KINDS, dtype=np.int64)
    rows = np.array([row_of(m) for m in state.table], dtype=np.int64).reshape(len(state.table), ROW_W)
    discard = np.array(state.discard, dtype=np.int64)
    unseen_kernel(state.hands[me], rows, rows.shape[0], discard, discard.shape[0], state.profile.jokers, unseen)
    return unseen


def outlook(hand: np.ndarray, profile, cands: list[int], unseen: np.ndarray) -> np.ndarray:
    """(len(cands), 2) floats: expected least deadwood after each candidate discard and one draw,
    and the chance that the draw lets every card but one meld.  A candidate of -1 discards nothing."""
    out = np.zeros((len(cands), 2), dtype=np.int64)
    weight = int(unseen.sum())
    if weight == 0 or not cands:
        return out.astype(np.float64)
    outlook_kernel(hand, MS.params_of(profile), np.asarray(cands, dtype=np.int64), unseen, out)
    return out / weight
