"""A hand's count vector against meld rows, and the meld search as the bots call it.

The questions every compiled bot asks of its own hand: how many cards it holds (``hand_size``), how
many copies of a card meld rows hold (``copies_on_rows``, ``cards_in_rows``, ``row_has``), its
least-deadwood reading (``search_hand``: the meld search's ``analyse`` over a reused workspace, and
whether that reading holds no meld, ``holds_no_meld``), whether a natural card could still meld
with two others of it (``could_meld``: a partial meld), whether laying rows leaves a card to throw
(``leaves_a_discard``, ``has_discard``), the most valuable opening that leaves a discard
(``opening_with_discard``), and the iteration order of a CPython set of card ids (``set_order``),
which the compiled decisions keep as their tie-break.  Cards are small integers and a hand a count
vector (``sim.cards``); a meld row is the meld search's (kind, low, n, 14 cards, 14 reps).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ... import meldsearch as MS
from ...cards import JOKER, N_KINDS, N_RANKS
from ...engine.core import meld_value
from ...meldsearch import P_JOKER_PENALTY, P_OPENING_MIN, reconstruct, search_ws, hand_totals
from ...jit.cache import drop_stale

# numba compiles a function once per combination of argument types, and a constant passed as an
# argument has a type of its own (its literal value): the compiled decisions pass flags and counts
# to their larger functions through these, or np.int64(...), so each is compiled once
YES, NO = np.bool_(True), np.bool_(False)


@njit(cache=True)
def hand_size(h):
    """How many cards the count vector h holds."""
    t = 0
    for c in range(h.shape[0]):
        t += h[c]
    return t


@njit(cache=True)
def row_has(row, c):
    """Does the meld row hold card c (itself, not a joker standing for it)?"""
    for k in range(row[2]):
        if row[3 + k] == c:
            return True
    return False


@njit(cache=True)
def copies_on_rows(rows, nr, c):
    """How many times card c is in the first nr meld rows (engine.table.count_on on a table)."""
    u = 0
    for r in range(nr):
        for k in range(rows[r, 2]):
            if rows[r, 3 + k] == c:
                u += 1
    return u


@njit(cache=True)
def cards_in_rows(rows, nr):
    """How many cards the first nr meld rows hold."""
    t = 0
    for r in range(nr):
        t += rows[r, 2]
    return t


@njit(cache=True)
def search_hand(h, prm, mv, ws, rec, record):
    """(max_meld_value, min_deadwood, min_loose) as meldsearch.analyse computes them; with record,
    rec then holds what reconstruct needs for this hand."""
    bv, bd, bl = search_ws(h, prm, mv, ws, rec, record)
    n, t = hand_totals(h, prm)
    return bv, t - bd, n - bl


@njit(cache=True)
def holds_no_meld(h, dead, prm):
    """Whether the min-deadwood partition of h (min_deadwood dead) is sure to hold no meld: nothing
    melds, and every card has a positive penalty (so no meld is worth zero and gets emitted)."""
    _, t = hand_totals(h, prm)
    return dead == t and (h[JOKER] == 0 or prm[P_JOKER_PENALTY] > 0)


@njit(cache=True)
def _set_insert(table, mask, h):
    # CPython setobject.c: linear probes (9) from hash & mask, then perturbed probing
    i = h & mask
    perturb = h
    while True:
        probes = 9 if i + 9 <= mask else 0
        j = i
        while True:
            if table[j] < 0:
                table[j] = h
                return
            if probes == 0:
                break
            probes -= 1
            j += 1
        perturb >>= 5
        i = (i * 5 + 1 + perturb) & mask


@njit(cache=True)
def set_order(cand, k, out):
    """The iteration order of the CPython set built by adding the small ints cand[:k] in order
    (``{c for c in range(53) if ...}``); written to out[:k]."""
    table = np.full(256, -1, np.int64)
    tmp = np.empty(256, np.int64)
    mask = 7
    fill = 0
    for idx in range(k):
        _set_insert(table, mask, cand[idx])
        fill += 1
        if fill * 5 >= mask * 3:
            newsize = 8
            while newsize <= fill * 4:
                newsize <<= 1
            m = 0
            for j in range(mask + 1):
                if table[j] >= 0:
                    tmp[m] = table[j]
                    m += 1
            mask = newsize - 1
            for j in range(mask + 1):
                table[j] = -1
            for j in range(m):
                _set_insert(table, mask, tmp[j])
    m = 0
    for j in range(mask + 1):
        if table[j] >= 0:
            out[m] = table[j]
            m += 1
    return m


@njit(cache=True)
def could_meld(h, c):
    """Could natural c meld with two other cards of h (same rank in other suits, neighbours of its
    suit within two ranks, jokers)?"""
    have = h[JOKER]
    r = c % N_RANKS
    s = c // N_RANKS
    for x in range(4):
        if x != s and h[x * N_RANKS + r] > 0:
            have += 1
    if have >= 2:
        return True
    have = h[JOKER]
    for d in (-2, -1, 1, 2):
        if h[s * N_RANKS + (r + d) % N_RANKS] > 0:
            have += 1
    return have >= 2


@njit(cache=True)
def leaves_a_discard(hand, rows, nr, forbid, keep, rest):
    """bots.moves.leaves_a_discard: laying rows[:nr] from hand keeps keep cards, one not a copy of forbid."""
    rest[:] = hand
    for r in range(nr):
        for k in range(rows[r, 2]):
            rest[rows[r, 3 + k]] -= 1
    return hand_size(rest) >= keep and has_discard(rest, forbid)


@njit(cache=True)
def has_discard(hand, forbid):
    """Does the hand hold a card that is not a copy of ``forbid`` (one it may throw)?"""
    for c in range(N_KINDS):
        if hand[c] > 0 and c != forbid:
            return True
    return False


@njit(cache=True)
def opening_with_discard(hand, forbid, prm, mv, ws, rec, hh, tmp, out):
    """GreedyBot._opening_with_discard: the most valuable opening leaving a card (rows in out)."""
    best_val = -1
    nbest = 0
    for d in range(N_KINDS):
        if hand[d] <= 0 or d == forbid:
            continue
        hh[:] = hand
        hh[d] -= 1
        v, _, _ = search_hand(hh, prm, mv, ws, rec, YES)
        if v >= prm[P_OPENING_MIN]:
            nr = reconstruct(hh, prm, rec, np.int64(0), tmp)
            val = 0
            for r in range(nr):
                val += meld_value(tmp[r], prm)
            if val > best_val:
                best_val = val
                out[:nr] = tmp[:nr]
                nbest = nr
    return nbest


drop_stale(search_hand, (MS,))
