"""The discard a compiled bot throws when its play chose none: the highest-value card of those left
loose (``loose_discard``), of a least-deadwood reading of the hand (``deadwood_discard``), or the
meld search's best discard (``best_discard``).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ... import meldsearch as MS
from ...cards import JOKER, N_KINDS
from ...meldsearch import reconstruct, best_discard_except_kernel
from ...jit.cache import drop_stale
from .hands import YES, search_hand


@njit(cache=True)
def loose_discard(hand, values, forbid, pref):
    """bots._loose_discard: the highest-value card of pref (counts; the hand if none of it is held),
    jokers last, higher card id first on ties; never a copy of the forbidden card if avoidable."""
    use_pref = False
    for c in range(N_KINDS):
        if pref[c] > 0 and hand[c] > 0:
            use_pref = True
            break
    best = -1
    bv = 0
    top = -1
    tv = 0
    for c in range(N_KINDS - 1, -1, -1):  # ids descending: the first of equal values wins
        if hand[c] <= 0 or (use_pref and pref[c] <= 0):
            continue
        v = values[c] if c != JOKER else -1
        if top < 0 or v > tv:
            top = c
            tv = v
        if c != forbid and (best < 0 or v > bv):
            best = c
            bv = v
    return best if best >= 0 else top


@njit(cache=True)
def best_discard(hand, forbid, prm):
    """bots.best_discard: the card only."""
    return best_discard_except_kernel(hand, prm, forbid)[0]


@njit(cache=True)
def deadwood_discard(hand, forbid, values, prm, mv, ws, rec, out):
    """The bots' discard when they lay nothing: the highest-value loose card of a least-deadwood
    partition (``loose_discard``)."""
    search_hand(hand, prm, mv, ws, rec, YES)
    return recorded_deadwood_discard(hand, forbid, values, prm, rec, out)


@njit(cache=True)
def recorded_deadwood_discard(hand, forbid, values, prm, rec, out):
    """``deadwood_discard`` where rec already holds the search of this hand (``search_hand`` with
    record): its partition rebuilt into out, the highest-value card it leaves loose."""
    nr = reconstruct(hand, prm, rec, np.int64(1), out)
    pref = hand.astype(np.int64)
    for r in range(nr):
        for k in range(out[r, 2]):
            pref[out[r, 3 + k]] -= 1
    return loose_discard(hand, values, forbid, pref)


drop_stale(deadwood_discard, (MS,))
