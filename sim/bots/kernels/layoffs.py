"""The bots' lay-off search: which hand cards go onto the table's melds this turn.

``lay_off_hand`` lays natural cards onto run ends and into groups by suit and, where asked, splits
runs with a duplicate of an inner card, then the jokers (``lay_off_jokers``), always keeping a card
to discard; ``find_layoffs`` is the greedy bot's call of it (no splits, the turn's run limits
fresh).  ``lay_onto_end`` lays one card onto a meld row's end where the engine's rules take it, as
the go-out search (``sim.bots.kernels.goout``) weighs its options.  ``meld_taken_card`` finds the
new meld or the lay-offs that use a card taken from the discard pile.  Every lay-off is one the
engine's rules allow (``sim.engine.core``, ``sim.engine.turn``'s run limits).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ...cards import JOKER, N_KINDS, N_RANKS
from ...engine import core
from ...engine.turn import (A_FROM, MAXT, X_LAYOFF, X_SPLIT, count_run_add, run_add_allowed,  # MAXT: table rows
                            split_adds)
from ...meldsearch import reconstruct
from ...jit.cache import drop_stale
from .hands import NO, YES, hand_size, row_has, search_hand, set_order
from .plays import HIGH, LOW, O_CARD, O_TAKEN, RUN, apply_layoff, push_op


@njit(cache=True)
def lay_onto_end(row, c, end, crules, prm, tmp):
    """Card c laid off onto an end of the meld ``row`` in place, where the engine's rules take it
    there (``core.lay_off_row``; tmp: a scratch row): (laid, points added)."""
    code, added, _ = core.lay_off_row(row, c, end, np.int64(-1), crules, prm, tmp)
    if code != core.OK:
        return False, 0
    row[:] = tmp
    return True, added


@njit(cache=True)
def lay_off_hand(wtab, nt, hand, keep, forbid, adds, rp, crules, prm, ops, nops, ctx, splits, max_ops):
    """The bots' lay-offs: natural hand cards onto the table in table order, both run ends, groups by
    suit, and with ``splits`` a hand card duplicating an inner card of a run splits it; repeated while
    anything changed (``max_ops`` operations at most), leaving ``keep`` cards, one of them not a copy of
    ``forbid`` (the card taken from the discard pile, which may be laid off or split like any other but
    not thrown).  Then, where nothing but jokers would be left in hand after the discard (one natural
    card at most), the jokers too (``lay_off_jokers``).  ctx[0]: ops, ctx[1]: table rows."""
    size = hand_size(hand)
    free = size - (hand[forbid] if forbid >= 0 else 0)  # cards that may be the discard
    made = 0
    changed = True
    while changed and made < max_ops:
        changed = False
        i = 0
        while i < nt:
            if size <= keep:
                ctx[0] = nops
                ctx[1] = nt
                return
            row = wtab[i]
            if row[0] == RUN:
                for end in (LOW, HIGH):
                    rep = core.run_extension(row, end, rp)
                    if rep < 0 or not run_add_allowed(adds, i, end, crules):
                        continue
                    if hand[rep] <= 0 or (rep != forbid and free <= 1):
                        continue
                    apply_layoff(wtab, i, rep, end)
                    hand[rep] -= 1
                    size -= 1
                    if rep != forbid:
                        free -= 1
                    nops = push_op(ops, nops, X_LAYOFF, i, rep, end, -1)
                    made += 1
                    count_run_add(adds, i, end)
                    changed = True
                    if size <= keep:
                        ctx[0] = nops
                        ctx[1] = nt
                        return
                n = row[2] if splits else 0
                for pos in range(2, n - 2):
                    c = row[core.REPS + pos]
                    if hand[c] <= 0 or (c != forbid and free <= 1):
                        continue
                    first = np.empty(core.ROW_W, np.int64)
                    second = np.empty(core.ROW_W, np.int64)
                    code, _, _ = core.split_row(row, c, pos + 1, crules, first, second)
                    if code != core.OK or nt >= MAXT:
                        continue
                    hand[c] -= 1
                    size -= 1
                    if c != forbid:
                        free -= 1
                    wtab[i] = first
                    wtab[nt] = second
                    nt += 1
                    nops = push_op(ops, nops, X_SPLIT, i, c, pos + 1, -1)
                    made += 1
                    split_adds(adds, i, nt - 1)
                    changed = True
                    if size <= keep:
                        ctx[0] = nops
                        ctx[1] = nt
                        return
                    break
            elif row[1] >= 0 and row[2] < 4:
                suits = 0
                for j in range(row[2]):
                    suits |= 1 << (row[core.REPS + j] // N_RANKS)
                for s in range(4):
                    c = s * N_RANKS + row[1]
                    if not (suits >> s) & 1 and hand[c] > 0 and row[2] < 4 and (c == forbid or free > 1):
                        apply_layoff(wtab, i, c, HIGH)
                        hand[c] -= 1
                        size -= 1
                        if c != forbid:
                            free -= 1
                        suits |= 1 << s
                        nops = push_op(ops, nops, X_LAYOFF, i, c, HIGH, -1)
                        made += 1
                        changed = True
                        if size <= keep:
                            ctx[0] = nops
                            ctx[1] = nt
                            return
            i += 1
    if hand[JOKER] > 0 and size - hand[JOKER] <= 1 and made < max_ops:
        most = size - keep if forbid == JOKER else min(size - keep, free - 1)
        nops = lay_off_jokers(wtab, nt, hand, most, adds, crules, prm, ops, nops, max_ops - made)
    ctx[0] = nops
    ctx[1] = nt


@njit(cache=True)
def lay_off_jokers(wtab, nt, hand, most, adds, crules, prm, ops, nops, max_ops):
    """Up to ``most`` jokers of the hand laid off in table order wherever the engine's rules take one
    (``core.lay_off_row``: a run end, a three-card group's missing suit, an all-joker group; within
    max_jokers_per_meld and the turn's run limits ``adds``); returns the operations' count."""
    tmp = np.empty(core.ROW_W, np.int64)
    laid = 0
    for i in range(nt):
        for end in (LOW, HIGH):
            while laid < most and laid < max_ops and hand[JOKER] > 0:
                row = wtab[i]
                if row[0] == RUN:
                    if not run_add_allowed(adds, i, end, crules):
                        break
                elif end == LOW:
                    break
                code, _, _ = core.lay_off_row(row, JOKER, end, np.int64(-1), crules, prm, tmp)
                if code != core.OK:
                    break
                apply_layoff(wtab, i, JOKER, end)
                hand[JOKER] -= 1
                laid += 1
                nops = push_op(ops, nops, X_LAYOFF, i, JOKER, end, -1)
                if row[0] == RUN:
                    count_run_add(adds, i, end)
    return nops


@njit(cache=True)
def find_layoffs(tab, ntab, hand, keep, forbid, rp, prm, ops, ctx):
    """The greedy bot's lay-offs (``lay_off_hand`` without splits, the turn's run limits fresh) onto
    tab[:ntab], recorded after ops[:ctx[1]]; at least keep cards are left in hand, one of them not a
    copy of ``forbid``.  Each lay-off spends a hand card, so they fit in ops (MAXOPS rows, far more
    than a hand holds)."""
    adds = np.zeros((4, MAXT), np.int64)  # the engine's run additions this turn (sim.engine.turn.A_*)
    adds[A_FROM, :] = -1
    lctx = np.empty(2, np.int64)
    lay_off_hand(tab, ntab, hand, keep, forbid, adds, rp, rp, prm, ops, ctx[1], lctx, NO, np.int64(40))
    for o in range(ctx[1], lctx[0]):
        ops[o, O_TAKEN] = 0
    ctx[1] = lctx[0]


@njit(cache=True)
def meld_taken_card(hand, taken, tab, nt, values, rp, prm, mv, ws, rec, hh, outd, lops, lctx, tab1):
    """bots.meld_taken_card: (kind, discard, index): kind 1 = NewMeld(outd[index]); kind 2 = the
    lay-offs lops[:lctx[1]] onto table meld index; kind 0 = none."""
    cand = np.empty(N_KINDS, np.int64)
    k = 0
    for c in range(N_KINDS):
        if hand[c] > 0 and c != taken:
            cand[k] = c
            k += 1
    order = np.empty(N_KINDS, np.int64)
    set_order(cand, k, order)
    for i in range(1, k):  # sorted(..., key=-value): stable insertion sort
        c = order[i]
        v = values[c]
        j = i - 1
        while j >= 0 and values[order[j]] < v:
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = c
    for i in range(k):
        d = order[i]
        hh[:] = hand
        hh[d] -= 1
        search_hand(hh, prm, mv, ws, rec, YES)
        nr = reconstruct(hh, prm, rec, np.int64(1), outd)
        for r in range(nr):
            if row_has(outd[r], taken):
                return 1, d, r
    for i in range(nt):
        hh[:] = hand
        tab1[0, :] = tab[i]
        lctx[0] = 1
        lctx[1] = 0
        lctx[2] = 0
        find_layoffs(tab1, np.int64(1), hh, np.int64(1), np.int64(-1), rp, prm, lops, lctx)
        hit = False
        for o in range(lctx[1]):
            if lops[o, O_CARD] == taken:
                hit = True
        if hit:
            best = -1
            for c in range(N_KINDS):
                if hh[c] > 0 and c != taken and (best < 0 or values[c] > values[best]):
                    best = c
            if best >= 0:
                return 2, best, i
    return 0, -1, -1


drop_stale(lay_off_hand, (core,))
