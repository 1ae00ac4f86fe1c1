"""Exact meld search: the best melds a hand can make, for the opening and for deadwood.

For a hand (count vector of naturals plus jokers) under a profile this module computes exactly

- ``max_meld_value``: the largest total value of disjoint valid melds (jokers worth the card they
  are declared as, a low ace ``ace_low_value``, an all-joker group ``joker_meld_value`` a joker);
  the opening minimum is checked against it;
- ``min_deadwood``: the smallest penalty (``cards.hand_values``) of the cards left out;
- ``min_loose``: the fewest cards left out (0: everything melds);

and, for one hand at a time, partitions achieving them as ``sim.melds.Meld`` objects.

Method (decomposition).  Groups with two or more naturals are the only
melds that couple suits, so the search enumerates every choice of such groups (plus an all-joker
group where ``joker_melds``), and scores what is left suit by suit from a per-suit table indexed by
the suit's base-3 count pattern (3**13 patterns).  A table entry holds, for each objective (value,
melded penalty, melded cards) and each number of jokers 0..4 the suit may use, the best the suit's
runs and one-natural groups (natural + 2 or 3 jokers) can do.  The jokers are then split between the
suits by a small max-plus convolution.  Table entries are filled lazily (a self-recursive exact
recursion: the lowest card of the suit is loose, in a one-natural group, or in a run, where every
other slot of the run is a natural or a joker) and kept for the life of the process.

The table lives inside the profile's parameter vector (``sim.engine.core.compiled(profile).params``):
the kernels receive nothing but the hand and that vector, which holds the profile's parameters in its
first ``HDR`` int32 words (the P_* words of ``sim.engine.core``, written there once with the rest of the
compiled profile) and the lazily filled table (int16 entries) after them.  Profiles with the same
parameters share one vector, so every caller in a process fills and reuses the same table (about 50 MB
of zero pages reserved; 35-50 MB get touched by random deals).  Build it in the process that uses it.

Compiled kernels (arrays and scalars only, callable from other ``@njit`` code; counts = 53 counts,
params = ``compiled(profile).params``):

- ``search_kernel(counts, params) -> (max_meld_value, min_deadwood, min_loose)``
- ``max_meld_value_kernel``, ``min_deadwood_kernel``, ``min_loose_kernel`` (one number each)
- ``batch_kernel(hands, params, out)``: ``out[i] = search_kernel(hands[i], params)``
- ``best_discard_kernel(counts, params) -> (card, deadwood after)``
- ``go_out_kernel(counts, params, kalooki) -> discard card or -1``

Cost grows with the hand: random 13-15 card deals take about a microsecond; a hand of 20+ cards of
one suit takes seconds the first time its suit patterns are met.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from numba import njit
from numba.typed import Dict
from numba import types

from . import cards as C
from . import melds as M
from .engine import core
from .engine.core import (MAX_JOKERS, P_ACE_LOW, P_EXTV, P_HV, P_JOKER_MELD_VALUE, P_JOKER_MELDS, P_JOKER_PENALTY,
                          P_KALOOKI_EXEMPT, P_KMAX, P_OPENING_MIN, compiled)
from .jit import cache as numba_cache  # noqa: F401  (numba's cache, safe between processes)

N_PAT = 3 ** 13  # base-3 count patterns of one suit
ENTRY = 2 * core.SEARCH_TABLE_W // N_PAT  # int16 words per table entry: 3 objectives x 5 joker counts + a filled flag
HDR = core.HEADER_W  # int32 words of parameters before the table
TAB = 2 * HDR  # int16 offset of the table inside params.view(int16)
OBJ_VALUE, OBJ_MELDED_PENALTY, OBJ_MELDED_CARDS = 0, 1, 2
NEG = -(1 << 40)

POW3 = np.array([3 ** i for i in range(14)], dtype=np.int64)
BITS = np.array([bin(i).count("1") for i in range(16)], dtype=np.int64)

# workspace layout for the search (int64 words)
W_CNT = 0  # 52 natural counts, updated as groups are chosen
W_P = 56  # 4 suit patterns
W_OFF = 60  # 4 table offsets
W_ACC = 64  # 5 convolution accumulators
W_G = 72  # 3 objective totals of the chosen groups
W_BEST = 76  # 3 best totals
W_CH = 80  # chosen move indices (stack)
MAX_GROUPS = 40  # more than any hand can lay (108 cards / 3)
W_SIZE = W_CH + MAX_GROUPS
MAX_MOVES = 13 * 21
REC_W = 2 + 3 * MAX_GROUPS  # recorded choice: n groups, all-joker group size, (rank, suit mask, jokers) each
OUT_W = 32  # a meld row: kind, low, n, 14 physical cards, 14 declared cards, and a last word the search
# leaves at -1 (the engine's HOLD: sim.engine.core)
MAX_OUT = 40


# ---------------------------------------------------------------------------------------------
# one suit: candidate melds containing the lowest card, and the lazily filled table
# ---------------------------------------------------------------------------------------------

@njit(cache=True)
def _add_option(buf, n, sub, k, v, d, l, desc):
    if n < buf.shape[0]:
        buf[n, 0] = sub
        buf[n, 1] = k
        buf[n, 2] = v
        buf[n, 3] = d
        buf[n, 4] = l
        buf[n, 5] = desc
    return n + 1


@njit(cache=True)
def _suit_options(P, prm, buf, d, opt):
    """Every meld of one suit (pattern P > 0) holding the suit's lowest natural, as rows of buf:
    (pattern left, jokers used, value, melded penalty, melded cards, description).

    Description: bit 0 = one-natural group; runs: bits 1-4 low extended rank, 5-8 high, 9-22 the
    slots (by extended rank) filled by jokers.  Returns how many there are (rows beyond buf's
    length are counted, not written).  d (13) and opt (14) are scratch.
    """
    kmax = prm[P_KMAX]
    jp = prm[P_JOKER_PENALTY]
    x = P
    for r in range(13):
        d[r] = x % 3
        x //= 3
    r0 = 0
    while d[r0] == 0:
        r0 += 1
    hv0 = prm[P_HV + r0]
    base = P - POW3[r0]
    n = 0
    for k in range(2, 4):  # the natural with 2 or 3 jokers as a group
        if k <= kmax:
            n = _add_option(buf, n, base, k, (k + 1) * hv0, hv0 + k * jp, k + 1, 1)
    if r0 == 12:  # only aces left: runs of an ace and jokers
        v = prm[P_EXTV + 13]
        jm = 0
        for lo in range(12, 0, -1):  # high: jokers at lo..12, the ace at 13
            v += prm[P_EXTV + lo]
            jm |= 1 << lo
            k = 13 - lo
            if k > kmax:
                break
            if k >= 2:
                n = _add_option(buf, n, base, k, v, hv0 + k * jp, k + 1, (lo << 1) | (13 << 5) | (jm << 9))
        if prm[P_ACE_LOW] != 0:  # low: the ace at 0, jokers at 1..hi
            v = prm[P_EXTV + 0]
            jm = 0
            for hi in range(1, 13):
                v += prm[P_EXTV + hi]
                jm |= 1 << hi
                k = hi
                if k > kmax:
                    break
                if k >= 2:
                    n = _add_option(buf, n, base, k, v, hv0 + k * jp, k + 1, (0 << 1) | (hi << 5) | (jm << 9))
        return n
    e0 = r0 + 1
    lo_min = 0 if prm[P_ACE_LOW] != 0 else 1
    for lo in range(e0, lo_min - 1, -1):
        ace_opt = lo == 0 and d[12] > 0
        f = e0 - lo
        fmask = 0
        vbelow = 0
        for e in range(lo, e0):
            fmask |= 1 << e
            vbelow += prm[P_EXTV + e]
        nopt = 0
        if ace_opt:
            f -= 1
            fmask &= ~1
            opt[0] = 0
            nopt = 1
        if f > kmax:
            break
        v = vbelow
        top = min(13, lo + 12)
        for hi in range(e0, top + 1):
            v += prm[P_EXTV + hi]
            if hi > e0:
                av = d[hi - 1] > 0 if hi <= 12 else d[12] > 0
                if av:
                    opt[nopt] = hi
                    nopt += 1
                else:
                    f += 1
                    fmask |= 1 << hi
            if f > kmax:
                break
            length = hi - lo + 1
            if length < 3:
                continue
            tmax = min(kmax - f, nopt)
            sm = 0
            t = 0
            while True:  # subsets sm of the optional slots that take a joker, |sm| <= tmax
                sub = base
                natd = hv0
                jm = fmask
                for i in range(nopt):
                    e = opt[i]
                    rk = 12 if (e == 0 or e == 13) else e - 1
                    if (sm >> i) & 1:
                        jm |= 1 << e
                    else:
                        sub -= POW3[rk]
                        natd += prm[P_HV + rk]
                k = f + t
                n = _add_option(buf, n, sub, k, v, natd + k * jp, length, (lo << 1) | (hi << 5) | (jm << 9))
                if t == 0:
                    if tmax == 0:
                        break
                    t = 1
                    sm = 1
                else:
                    c = sm & -sm
                    rr = sm + c
                    nx = (((rr ^ sm) >> 2) // c) | rr
                    if nx >= (1 << nopt):
                        t += 1
                        if t > tmax:
                            break
                        sm = (1 << t) - 1
                    else:
                        sm = nx
    return n


@njit(cache=True)
def _options_into(P, prm, buf, d, opt):
    """(rows, count) of _suit_options, in buf when it is large enough, else in a new array."""
    n = _suit_options(P, prm, buf, d, opt)
    if n > buf.shape[0]:
        buf = np.empty((n, 6), np.int64)
        _suit_options(P, prm, buf, d, opt)
    return buf, n


@njit(cache=True)
def _options(P, prm):
    return _options_into(P, prm, np.empty((48, 6), np.int64), np.empty(13, np.int64), np.empty(14, np.int64))


@njit(cache=True)
def _suit_entry(tab, P, prm):
    """Offset (int16 words) of the filled table entry of suit pattern P."""
    off = TAB + P * ENTRY
    if tab[off + 15] != 0:
        return off
    best = np.zeros(15, np.int64)
    if P != 0:
        x = P
        r0 = 0
        while x % 3 == 0:
            x //= 3
            r0 += 1
        soff = _suit_entry(tab, P - POW3[r0], prm)  # the lowest card loose
        for i in range(15):
            best[i] = tab[soff + i]
        buf, n = _options(P, prm)
        for i in range(n):
            soff = _suit_entry(tab, buf[i, 0], prm)
            k = buf[i, 1]
            for o in range(3):
                g = buf[i, 2 + o]
                for j in range(k, MAX_JOKERS + 1):
                    v = g + tab[soff + o * 5 + j - k]
                    if v > best[o * 5 + j]:
                        best[o * 5 + j] = v
    for i in range(15):
        tab[off + i] = best[i]
    tab[off + 15] = 1
    return off


@njit(cache=True)
def _suit_full(P, prm, memo):
    """Exact joker counts 0..4: best value of partitions of suit pattern P that meld every card."""
    if P in memo:
        return memo[P]
    out = np.full(MAX_JOKERS + 1, NEG, np.int64)
    if P == 0:
        out[0] = 0
    else:
        buf, n = _options(P, prm)
        for i in range(n):
            fs = _suit_full(buf[i, 0], prm, memo)
            k = buf[i, 1]
            for j in range(k, MAX_JOKERS + 1):
                if fs[j - k] > NEG:
                    v = buf[i, 2] + fs[j - k]
                    if v > out[j]:
                        out[j] = v
    memo[P] = out
    return out


# ---------------------------------------------------------------------------------------------
# the whole hand: groups with two or more naturals, then the suits
# ---------------------------------------------------------------------------------------------

@njit(cache=True)
def _gen_moves(counts, prm, mv):
    """Every group of two or more naturals (distinct suits) plus jokers the hand could lay:
    rows (rank, suit mask, jokers, value, melded penalty, melded cards)."""
    kmax = prm[P_KMAX]
    jp = prm[P_JOKER_PENALTY]
    J = counts[52]
    nm = 0
    for r in range(13):
        m = 0
        for s in range(4):
            if counts[s * 13 + r] > 0:
                m |= 1 << s
        if BITS[m] < 2:
            continue
        h = prm[P_HV + r]
        for g in range(3, 16):
            if (g & ~m) != 0:
                continue
            nn = BITS[g]
            if nn < 2:
                continue
            for k in range(0, 5 - nn):
                if nn + k < 3 or k > kmax or k > J:
                    continue
                mv[nm, 0] = r
                mv[nm, 1] = g
                mv[nm, 2] = k
                mv[nm, 3] = (nn + k) * h
                mv[nm, 4] = nn * h + k * jp
                mv[nm, 5] = nn + k
                nm += 1
    return nm


@njit(cache=True)
def _conv(tab, ws, o, jr):
    """Best total of objective o over the 4 suits using at most jr jokers (entries at ws[W_OFF:])."""
    if jr == 0:
        return (tab[ws[W_OFF] + o * 5] + tab[ws[W_OFF + 1] + o * 5]
                + tab[ws[W_OFF + 2] + o * 5] + tab[ws[W_OFF + 3] + o * 5])
    b = ws[W_OFF] + o * 5
    for j in range(jr + 1):
        ws[W_ACC + j] = tab[b + j]
    for s in range(1, 4):
        b = ws[W_OFF + s] + o * 5
        for j in range(jr, -1, -1):
            m = ws[W_ACC + j] + tab[b]
            for i in range(j):
                v = ws[W_ACC + i] + tab[b + j - i]
                if v > m:
                    m = v
            ws[W_ACC + j] = m
    return ws[W_ACC + jr]


@njit(inline="always")  # written into each evaluation: called at every node, a call was measurably slower
def _suit_offsets(tab, prm, ws):
    """Where each suit's pattern (ws[W_P:W_P + 4]) has its entry in the suit table, built on first
    use, for _conv: ws[W_OFF:W_OFF + 4]."""
    for s in range(4):
        p = ws[W_P + s]
        off = TAB + p * ENTRY
        if tab[off + 15] == 0:
            off = _suit_entry(tab, p, prm)
        ws[W_OFF + s] = off


@njit(cache=True)
def _evaluate(tab, prm, ws, mv, jb, sp, rec, record):
    _suit_offsets(tab, prm, ws)
    aj = 0
    while aj <= jb:
        for o in range(3):
            if o == 0:
                ga = aj * prm[P_JOKER_MELD_VALUE]
            elif o == 1:
                ga = aj * prm[P_JOKER_PENALTY]
            else:
                ga = aj
            v = ws[W_G + o] + ga + _conv(tab, ws, o, jb - aj)
            if v > ws[W_BEST + o]:
                ws[W_BEST + o] = v
                if record:
                    rec[o, 0] = sp
                    rec[o, 1] = aj
                    for i in range(sp):
                        m = ws[W_CH + i]
                        rec[o, 2 + 3 * i] = mv[m, 0]
                        rec[o, 3 + 3 * i] = mv[m, 1]
                        rec[o, 4 + 3 * i] = mv[m, 2]
        if prm[P_JOKER_MELDS] == 0:
            break
        aj = 3 if aj == 0 else aj + 1


@njit(cache=True)
def _evaluate_deadwood(tab, prm, ws, jb, o_hi):
    """_evaluate for objectives 1 (melded penalty) .. o_hi - 1 only, recording nothing: what the
    look-ahead needs of the thousands of hands it searches (sim/bots/outlook.py)."""
    _suit_offsets(tab, prm, ws)
    aj = 0
    while aj <= jb:
        for o in range(1, o_hi):
            ga = aj * prm[P_JOKER_PENALTY] if o == 1 else aj
            v = ws[W_G + o] + ga + _conv(tab, ws, o, jb - aj)
            if v > ws[W_BEST + o]:
                ws[W_BEST + o] = v
        if prm[P_JOKER_MELDS] == 0:
            break
        aj = 3 if aj == 0 else aj + 1


@njit(cache=True)
def search_ws(counts, prm, mv, ws, rec, record):
    """Best (value, melded penalty, melded cards) of the hand; with record, the best group choice
    of each objective goes to rec."""
    search_walk(counts, prm, mv, ws, rec, record)
    return ws[W_BEST], ws[W_BEST + 1], ws[W_BEST + 2]


@njit(inline="always")  # written into search_ws and the look-ahead's _melded, each with its evaluation
def search_walk(counts, prm, mv, ws, rec, record, deadwood_upto=None):
    """The meld search's depth-first walk over every set of group moves the hand can lay, evaluating
    each: the best of the three objectives go to ws[W_BEST:W_BEST + 3] (_evaluate; with record the
    choice is recorded in rec), or, given ``deadwood_upto``, objectives 1 .. deadwood_upto - 1 alone
    (_evaluate_deadwood).  Each caller has the walk written in with its own evaluation alone (the
    other branch is decided by the argument's type)."""
    tab = prm.view(np.int16)
    for s in range(4):
        p = 0
        for r in range(12, -1, -1):
            p = p * 3 + counts[s * 13 + r]
        ws[W_P + s] = p
    for c in range(52):
        ws[W_CNT + c] = counts[c]
    for o in range(3):
        ws[W_G + o] = 0
        ws[W_BEST + o] = NEG
    nm = _gen_moves(counts, prm, mv)
    jb = np.int64(counts[52])
    if deadwood_upto is None:
        _evaluate(tab, prm, ws, mv, jb, 0, rec, record)
    else:
        _evaluate_deadwood(tab, prm, ws, jb, deadwood_upto)
    sp = 0
    nxt = 0
    while True:
        nxt = _next_fitting(mv, nxt, nm, ws, W_CNT, jb)
        if nxt < nm:
            _shift_group(mv, nxt, ws, W_CNT, W_P, -1)
            jb -= mv[nxt, 2]
            for o in range(3):
                ws[W_G + o] += mv[nxt, 3 + o]
            ws[W_CH + sp] = nxt
            sp += 1
            if deadwood_upto is None:
                _evaluate(tab, prm, ws, mv, jb, sp, rec, record)
            else:
                _evaluate_deadwood(tab, prm, ws, jb, deadwood_upto)
        else:
            if sp == 0:
                break
            sp -= 1
            m = ws[W_CH + sp]
            _shift_group(mv, m, ws, W_CNT, W_P, 1)
            jb += mv[m, 2]
            for o in range(3):
                ws[W_G + o] -= mv[m, 3 + o]
            nxt = m + 1


@njit(cache=True)
def _next_fitting(mv, nxt, nm, cnt, c0, jb):
    """The first group move from nxt on that the naturals cnt[c0:c0+52] and jb jokers can lay; nm if none."""
    while nxt < nm:
        r = mv[nxt, 0]
        g = mv[nxt, 1]
        ok = mv[nxt, 2] <= jb
        if ok:
            for s in range(4):
                if (g >> s) & 1 and cnt[c0 + s * 13 + r] == 0:
                    ok = False
                    break
        if ok:
            return nxt
        nxt += 1
    return nm


@njit(cache=True)
def _shift_group(mv, m, cnt, c0, p0, sign):
    """Take (sign -1) or give back (+1) the naturals of group move m: counts cnt[c0:c0+52] and suit
    patterns cnt[p0:p0+4] (the same array)."""
    r = mv[m, 0]
    g = mv[m, 1]
    for s in range(4):
        if (g >> s) & 1:
            cnt[c0 + s * 13 + r] += sign
            cnt[p0 + s] += sign * POW3[r]


@njit(cache=True)
def hand_totals(counts, prm):
    """(cards in hand, their total penalty)."""
    n = 0
    t = 0
    for c in range(52):
        k = counts[c]
        n += k
        t += k * prm[P_HV + c % 13]
    n += counts[52]
    t += counts[52] * prm[P_JOKER_PENALTY]
    return n, t


@njit(cache=True)
def new_workspace():
    return np.empty((MAX_MOVES, 6), np.int64), np.empty(W_SIZE, np.int64), np.zeros((3, REC_W), np.int64)


@njit(cache=True)
def search_answers(counts, prm, mv, ws, rec):
    bv, bd, bl = search_ws(counts, prm, mv, ws, rec, False)
    n, t = hand_totals(counts, prm)
    return bv, t - bd, n - bl


@njit(cache=True)
def search_kernel(counts, params):
    """(max_meld_value, min_deadwood, min_loose) of one hand (counts: 53 counts)."""
    mv, ws, rec = new_workspace()
    return search_answers(counts, params, mv, ws, rec)


@njit(cache=True)
def max_meld_value_kernel(counts, params):
    return search_kernel(counts, params)[0]


@njit(cache=True)
def min_deadwood_kernel(counts, params):
    return search_kernel(counts, params)[1]


@njit(cache=True)
def min_loose_kernel(counts, params):
    return search_kernel(counts, params)[2]


@njit(cache=True)
def batch_kernel(hands, params, out):
    """out[i] = (max_meld_value, min_deadwood, min_loose) of hands[i]; one core, one call."""
    mv, ws, rec = new_workspace()
    for i in range(hands.shape[0]):
        v, d, l = search_answers(hands[i], params, mv, ws, rec)
        out[i, 0] = v
        out[i, 1] = d
        out[i, 2] = l


# ---------------------------------------------------------------------------------------------
# melding every card (going out, Kalooki): best value over the partitions that leave nothing
# ---------------------------------------------------------------------------------------------

@njit(cache=True)
def full_search(counts, prm, rec):
    """Largest value of a partition of the whole hand into melds (NEG if none); best choice of
    groups to rec[0]."""
    mv = np.empty((MAX_MOVES, 6), np.int64)
    nm = _gen_moves(counts, prm, mv)
    memo = Dict.empty(key_type=types.int64, value_type=types.int64[:])
    cnt = np.zeros(56, np.int64)  # the 52 natural counts, then the 4 suit patterns
    P = cnt[52:]
    for c in range(52):
        cnt[c] = counts[c]
        P[c // 13] += counts[c] * POW3[c % 13]
    ch = np.empty(MAX_GROUPS, np.int64)
    vals = np.empty((4, MAX_JOKERS + 1), np.int64)
    jb = np.int64(counts[52])
    gv = np.int64(0)
    best = NEG
    sp = 0
    nxt = 0
    evaluate = True
    while True:
        if evaluate:
            for s in range(4):
                f = _suit_full(P[s], prm, memo)
                for j in range(MAX_JOKERS + 1):
                    vals[s, j] = f[j]
            aj = 0
            while aj <= jb:
                bsum, split = _split_jokers(vals, jb - aj, True)
                if bsum > NEG:
                    v = gv + aj * prm[P_JOKER_MELD_VALUE] + bsum
                    if v > best:
                        best = v
                        rec[0, 0] = sp
                        rec[0, 1] = aj
                        for i in range(sp):
                            m = ch[i]
                            rec[0, 2 + 3 * i] = mv[m, 0]
                            rec[0, 3 + 3 * i] = mv[m, 1]
                            rec[0, 4 + 3 * i] = mv[m, 2]
                if prm[P_JOKER_MELDS] == 0:
                    break
                aj = 3 if aj == 0 else aj + 1
        evaluate = False
        nxt = _next_fitting(mv, nxt, nm, cnt, 0, jb)
        if nxt < nm:
            _shift_group(mv, nxt, cnt, 0, 52, -1)
            jb -= mv[nxt, 2]
            gv += mv[nxt, 3]
            ch[sp] = nxt
            sp += 1
            evaluate = True
        else:
            if sp == 0:
                break
            sp -= 1
            m = ch[sp]
            _shift_group(mv, m, cnt, 0, 52, 1)
            jb += mv[m, 2]
            gv -= mv[m, 3]
            nxt = m + 1
    return best


# ---------------------------------------------------------------------------------------------
# partitions: replay the recorded group choice, split the jokers, walk each suit's table back
# ---------------------------------------------------------------------------------------------

@njit(cache=True)
def _emit_group(out, nout, rank, g, k):
    row = out[nout]
    row[:] = -1
    row[0] = 1
    row[1] = rank
    i = 0
    for s in range(4):
        if (g >> s) & 1:
            row[3 + i] = s * 13 + rank
            row[17 + i] = s * 13 + rank
            i += 1
    for s in range(4):
        if k == 0:
            break
        if not (g >> s) & 1:
            row[3 + i] = 52
            row[17 + i] = s * 13 + rank if rank >= 0 else -1
            i += 1
            k -= 1
    row[2] = i
    return nout + 1


@njit(cache=True)
def _emit_option(out, nout, suit, r0, k, desc):
    row = out[nout]
    row[:] = -1
    if desc & 1:
        return _emit_group(out, nout, r0, 1 << suit, k)
    lo = (desc >> 1) & 15
    hi = (desc >> 5) & 15
    jm = desc >> 9
    row[0] = 0
    row[1] = lo
    row[2] = hi - lo + 1
    for e in range(lo, hi + 1):
        rk = 12 if (e == 0 or e == 13) else e - 1
        rep = suit * 13 + rk
        row[17 + e - lo] = rep
        row[3 + e - lo] = 52 if (jm >> e) & 1 else rep
    return nout + 1


@njit(cache=True)
def _replay_groups(counts, rec, o, out, P):
    """Emit the recorded groups (and all-joker group) of rec[o]; P gets the suit patterns left.
    Returns (rows emitted, jokers left)."""
    for s in range(4):
        P[s] = 0
    for c in range(52):
        P[c // 13] += counts[c] * POW3[c % 13]
    jb = np.int64(counts[52])
    nout = 0
    for i in range(rec[o, 0]):
        r = rec[o, 2 + 3 * i]
        g = rec[o, 3 + 3 * i]
        k = rec[o, 4 + 3 * i]
        for s in range(4):
            if (g >> s) & 1:
                P[s] -= POW3[r]
        jb -= k
        nout = _emit_group(out, nout, r, g, k)
    aj = rec[o, 1]
    if aj > 0:
        nout = _emit_group(out, nout, -1, 0, aj)
        jb -= aj
    return nout, jb


@njit(cache=True)
def _split_jokers(vals, jb, exact):
    """(best sum, jokers per suit): at most jb jokers in all (exactly jb if exact) maximising the
    sum of vals[s, j] (NEG: impossible)."""
    best = NEG
    split = np.zeros(4, np.int64)
    for a in range(min(jb, MAX_JOKERS) + 1):
        for b in range(min(jb - a, MAX_JOKERS) + 1):
            for c in range(min(jb - a - b, MAX_JOKERS) + 1):
                for d in range(min(jb - a - b - c, MAX_JOKERS) + 1):
                    if exact and a + b + c + d != jb:
                        continue
                    if vals[0, a] <= NEG or vals[1, b] <= NEG or vals[2, c] <= NEG or vals[3, d] <= NEG:
                        continue
                    v = vals[0, a] + vals[1, b] + vals[2, c] + vals[3, d]
                    if v > best:
                        best = v
                        split[0] = a
                        split[1] = b
                        split[2] = c
                        split[3] = d
    return best, split


@njit(cache=True)
def _lowest_rank(p):
    r0 = 0
    while p % 3 == 0:
        p //= 3
        r0 += 1
    return r0


@njit(cache=True)
def reconstruct(counts, prm, rec, o, out):
    """Melds (rows of out) of the best partition for objective o, from the table.  Returns the
    number of rows."""
    tab = prm.view(np.int16)
    P = np.zeros(4, np.int64)
    nout, jb = _replay_groups(counts, rec, o, out, P)
    vals = np.empty((4, MAX_JOKERS + 1), np.int64)
    for s in range(4):
        off = _suit_entry(tab, P[s], prm)
        for j in range(MAX_JOKERS + 1):
            vals[s, j] = tab[off + o * 5 + j]
    _, split = _split_jokers(vals, jb, False)
    buf0 = np.empty((256, 6), np.int64)
    d = np.empty(13, np.int64)
    opt = np.empty(14, np.int64)
    for s in range(4):
        p = P[s]
        j = split[s]
        while p != 0:
            r0 = _lowest_rank(p)
            target = tab[_suit_entry(tab, p, prm) + o * 5 + j]
            buf, n = _options_into(p, prm, buf0, d, opt)
            found = -1
            for i in range(n):
                k = buf[i, 1]
                if k <= j and buf[i, 2 + o] + tab[_suit_entry(tab, buf[i, 0], prm) + o * 5 + j - k] == target:
                    found = i
                    break
            if found >= 0:
                nout = _emit_option(out, nout, s, r0, buf[found, 1], buf[found, 5])
                j -= buf[found, 1]
                p = buf[found, 0]
            else:
                p -= POW3[r0]  # the lowest card is loose
    return nout


@njit(cache=True)
def _reconstruct_full(counts, prm, rec, out):
    """Melds of the most valuable partition melding every card (rec from full_search)."""
    P = np.zeros(4, np.int64)
    nout, jb = _replay_groups(counts, rec, 0, out, P)
    memo = Dict.empty(key_type=types.int64, value_type=types.int64[:])
    vals = np.empty((4, MAX_JOKERS + 1), np.int64)
    for s in range(4):
        f = _suit_full(P[s], prm, memo)
        for j in range(MAX_JOKERS + 1):
            vals[s, j] = f[j]
    _, split = _split_jokers(vals, jb, True)
    for s in range(4):
        p = P[s]
        j = split[s]
        while p != 0:
            target = _suit_full(p, prm, memo)[j]
            buf, n = _options(p, prm)
            for i in range(n):
                k = buf[i, 1]
                if k <= j:
                    sv = _suit_full(buf[i, 0], prm, memo)[j - k]
                    if sv > NEG and buf[i, 2] + sv == target:
                        nout = _emit_option(out, nout, s, _lowest_rank(p), k, buf[i, 5])
                        j -= k
                        p = buf[i, 0]
                        break
    return nout


@njit(cache=True)
def _partition_kernel(counts, prm, o):
    """The three answers, the melds of a partition achieving objective o (0: the most valuable
    melds, 1: the least deadwood) and the card ids left out of it."""
    mv, ws, rec = new_workspace()
    bv, bd, bl = search_ws(counts, prm, mv, ws, rec, True)
    n, t = hand_totals(counts, prm)
    out = np.empty((MAX_OUT, OUT_W), np.int64)
    nr = reconstruct(counts, prm, rec, o, out)
    return bv, t - bd, n - bl, out[:nr], _left_ids(counts, out, nr)


@njit(cache=True)
def _left_ids(counts, rows, nrows):
    """Card ids of the hand not in the first nrows meld rows, ascending."""
    left = np.empty(53, np.int64)
    for c in range(53):
        left[c] = counts[c]
    for i in range(nrows):
        for k in range(rows[i, 2]):
            left[rows[i, 3 + k]] -= 1
    total = 0
    for c in range(53):
        total += left[c]
    out = np.empty(total, np.int64)
    j = 0
    for c in range(53):
        for _ in range(left[c]):
            out[j] = c
            j += 1
    return out


@njit(cache=True)
def discard_order(counts, prm):
    """Distinct cards of the hand, highest penalty first, then highest card id."""
    order = np.empty(53, np.int64)
    n = 0
    for c in range(52, -1, -1):
        if counts[c] > 0:
            order[n] = c
            n += 1
    pen = np.empty(n, np.int64)
    for i in range(n):
        c = order[i]
        pen[i] = prm[P_JOKER_PENALTY] if c == 52 else prm[P_HV + c % 13]
    # stable insertion sort by penalty, descending (ids already descending)
    for i in range(1, n):
        c = order[i]
        p = pen[i]
        j = i - 1
        while j >= 0 and pen[j] < p:
            order[j + 1] = order[j]
            pen[j + 1] = pen[j]
            j -= 1
        order[j + 1] = c
        pen[j + 1] = p
    return order[:n]


@njit(cache=True)
def deadwood_after(counts, params, cards):
    """Least deadwood of the hand after discarding each of ``cards`` (one search each)."""
    mv, ws, rec = new_workspace()
    h = counts.copy()
    out = np.empty(cards.shape[0], np.int64)
    for i in range(cards.shape[0]):
        c = cards[i]
        h[c] -= 1
        out[i] = search_answers(h, params, mv, ws, rec)[1]
        h[c] += 1
    return out


@njit(cache=True)
def _first_least(values):
    """The index of the first of the least values (``np.argmin``, whose numba code lives in a module
    that imports scipy when a cached function using it is loaded: a quarter second of every start)."""
    best = 0
    for i in range(1, values.shape[0]):
        if values[i] < values[best]:
            best = i
    return best


@njit(cache=True)
def best_discard_kernel(counts, params):
    """(card, deadwood after) of the discard leaving the least deadwood; ties go to the higher
    penalty card, then the higher card id.  (-1, 0) for an empty hand."""
    order = discard_order(counts, params)
    if order.shape[0] == 0:
        return -1, 0
    after = deadwood_after(counts, params, order)
    i = _first_least(after)
    return order[i], after[i]


@njit(cache=True)
def best_discard_except_kernel(counts, params, forbid):
    """best_discard_kernel, but never a copy of ``forbid`` (the card taken from the discard pile): then
    the other card leaving the least deadwood (ties: the lowest id); the kernel's answer if no other
    card is left."""
    c, d = best_discard_kernel(counts, params)
    if c != forbid:
        return c, d
    others = np.empty(53, np.int64)
    n = 0
    for x in range(53):
        if counts[x] > 0 and x != forbid:
            others[n] = x
            n += 1
    if n == 0:
        return c, d
    after = deadwood_after(counts, params, others[:n])
    i = _first_least(after)
    return others[i], after[i]


@njit(cache=True)
def least_scored_discard_kernel(counts, params, cands, extra):
    """The candidate card minimising (deadwood after discarding it + extra[card]); ties go to the
    higher card id.  -1 when there are no candidates."""
    after = deadwood_after(counts, params, cands)
    best = -1
    best_s = 0
    for i in range(cands.shape[0]):
        c = cands[i]
        s = after[i] + extra[c]
        if best < 0 or s < best_s or (s == best_s and c > best):
            best = c
            best_s = s
    return best


@njit(cache=True)
def go_out_kernel(counts, params, kalooki):
    """The discard (-1 if none) after which every other card melds; with kalooki, also worth
    at least opening_min (unless kalooki_exempt_from_minimum).  Discards are tried highest penalty
    first, then highest id."""
    mv, ws, rec = new_workspace()
    v, d, l = search_answers(counts, params, mv, ws, rec)
    if l > 1:
        return -1  # a discard frees at most one loose card: two or more loose cards cannot all meld
    order = discard_order(counts, params)
    h = counts.copy()
    rec1 = np.zeros((1, REC_W), np.int64)
    for i in range(order.shape[0]):
        c = order[i]
        h[c] -= 1
        v, d, l = search_answers(h, params, mv, ws, rec)
        ok = l == 0
        if ok and kalooki and params[P_KALOOKI_EXEMPT] == 0:
            ok = full_search(h, params, rec1) >= params[P_OPENING_MIN]
        h[c] += 1
        if ok:
            return c
    return -1


@njit(cache=True)
def full_partition_kernel(counts, prm):
    rec = np.zeros((1, REC_W), np.int64)
    best = full_search(counts, prm, rec)
    out = np.empty((MAX_OUT, OUT_W), np.int64)
    if best <= NEG:
        return best, out[:0]
    n = _reconstruct_full(counts, prm, rec, out)
    return best, out[:n]


# ---------------------------------------------------------------------------------------------
# Python API
# ---------------------------------------------------------------------------------------------

@dataclass
class MeldResult:
    max_meld_value: int
    min_deadwood: int
    min_loose: int
    opening: list = field(default_factory=list)  # melds of a max-value partition
    opening_left: list = field(default_factory=list)  # card ids left out of it
    deadwood: list = field(default_factory=list)  # melds of a min-deadwood partition
    deadwood_left: list = field(default_factory=list)


@njit(cache=True)
def _counts_ok(counts):
    for c in range(52):
        if counts[c] < 0 or counts[c] > 2:
            return False
    return 0 <= counts[52] <= MAX_JOKERS


def as_counts(hand) -> np.ndarray:
    """A hand as a contiguous int8 count vector (53 counts), from a count vector or card ids."""
    if type(hand) is np.ndarray and hand.dtype == np.int8 and hand.shape == (C.N_KINDS,) and hand.flags.c_contiguous:
        if not _counts_ok(hand):  # the engine's and the bots' own vectors: nothing to convert
            _check_counts(hand)
        return hand
    if isinstance(hand, np.ndarray) and hand.shape == (C.N_KINDS,):
        counts = np.ascontiguousarray(hand, dtype=np.int8)  # no copy when it already is one
        if hand.dtype != np.int8 and not np.array_equal(hand, counts):
            raise C.CardError("card counts out of range")
    else:
        ids = [int(c) for c in np.asarray(hand).reshape(-1)]
        if any(not 0 <= c < C.N_KINDS for c in ids):
            raise C.CardError(f"card ids must be 0..{C.N_KINDS - 1}")
        counts = C.to_counts(ids, check=False)
    if not _counts_ok(counts):
        _check_counts(counts)
    return counts


def _check_counts(counts: np.ndarray) -> None:
    if (counts < 0).any():
        raise C.CardError("negative card count in hand")
    if (counts[:C.N_NATURAL] > C.COPIES).any():
        bad = [C.card_str(c) for c in range(C.N_NATURAL) if counts[c] > C.COPIES]
        raise C.CardError(f"too many copies of {' '.join(bad)}; each card exists only {C.COPIES} times")
    if counts[C.JOKER] > MAX_JOKERS:
        raise C.CardError(f"{counts[C.JOKER]} jokers; the meld search handles at most {MAX_JOKERS}")


def _melds_from_rows(rows) -> list:
    out = []
    for row in rows.tolist():
        n = row[2]
        out.append(M.Meld(row[0], tuple(row[3:3 + n]), tuple(row[17:17 + n]), row[1]))
    return out


def deal_hands(rng: np.random.Generator, n: int, hand_size: int, jokers: int, chunk: int = 50_000) -> np.ndarray:
    """n independent random hands (n x 53 int8 counts) of hand_size cards, each dealt from a full
    shuffled pack with ``jokers`` jokers (the first hand_size cards of a uniform random order)."""
    deck = C.full_deck(jokers).astype(np.int64)
    if not 0 <= hand_size <= deck.size:
        raise ValueError(f"hand_size {hand_size} outside 0..{deck.size}")
    out = np.empty((n, C.N_KINDS), dtype=np.int8)
    for a in range(0, n, chunk):
        b = min(n, a + chunk)
        keys = rng.random((b - a, deck.size))
        idx = np.argpartition(keys, hand_size - 1, axis=1)[:, :hand_size] if hand_size else np.zeros((b - a, 0), np.int64)
        flat = (np.arange(b - a, dtype=np.int64)[:, None] * C.N_KINDS + deck[idx]).ravel()
        out[a:b] = np.bincount(flat, minlength=(b - a) * C.N_KINDS).reshape(b - a, C.N_KINDS)
    return out


def fast_search(counts: np.ndarray, profile) -> tuple[int, int, int]:
    """``search`` for trusted hands (the engine's own int8 count vectors): no conversion or checks."""
    return search_kernel(counts, compiled(profile).params)


def fast_batch(hands: np.ndarray, profile) -> np.ndarray:
    """``batch`` for trusted hands (a C-contiguous int8 (n, 53) array from the engine or bots):
    an (n, 3) array of max_meld_value, min_deadwood, min_loose, with no conversion or checks."""
    out = np.empty((hands.shape[0], 3), dtype=np.int32)
    batch_kernel(hands, compiled(profile).params, out)
    return out


def search(counts, profile) -> tuple[int, int, int]:
    """(max_meld_value, min_deadwood, min_loose) of one hand."""
    v, d, l = search_kernel(as_counts(counts), compiled(profile).params)
    return int(v), int(d), int(l)


def max_meld_value(counts, profile) -> int:
    return search(counts, profile)[0]


def min_deadwood(counts, profile) -> int:
    return search(counts, profile)[1]


def min_loose(counts, profile) -> int:
    return search(counts, profile)[2]


def batch(hands: np.ndarray, profile) -> dict:
    """Both answers (and min_loose) for each row of hands (n x 53 counts), in one compiled call."""
    hands = np.ascontiguousarray(np.asarray(hands), dtype=np.int8)
    if hands.ndim != 2 or hands.shape[1] != C.N_KINDS:
        raise ValueError(f"hands must have shape (n, {C.N_KINDS}), got {hands.shape}")
    if hands.size and (hands.min() < 0 or hands[:, :C.N_NATURAL].max() > C.COPIES or hands[:, C.JOKER].max() > MAX_JOKERS):
        raise C.CardError(f"hands hold a negative count, a natural more than {C.COPIES} times or more than "
                          f"{MAX_JOKERS} jokers")
    out = np.empty((hands.shape[0], 3), dtype=np.int32)
    batch_kernel(hands, compiled(profile).params, out)
    return {"max_meld_value": out[:, 0].copy(), "min_deadwood": out[:, 1].copy(), "min_loose": out[:, 2].copy()}


class Deadwood(NamedTuple):
    """``analyse`` without the opening partition (half the work): what the bots ask for."""
    max_meld_value: int
    min_deadwood: int
    min_loose: int
    deadwood: list  # melds of a min-deadwood partition
    deadwood_left: list


_ANALYSED: dict = {}  # (params id, objective, hand bytes) -> answers and partition; bots ask about one hand often
_ANALYSED_MAX = 50_000
OPENING, DEADWOOD = 0, 1  # the two objectives of a partition


def _cached(counts, profile, o: int) -> tuple | None:
    """The cached ``_partition`` of a count vector already answered (None if it was not)."""
    if type(counts) is np.ndarray and counts.dtype == np.int8 and counts.shape == (C.N_KINDS,):
        return _ANALYSED.get((id(compiled(profile).params), o, counts.tobytes()))
    return None


def _partition(counts, profile, o: int) -> tuple:
    """(max value, min deadwood, min loose, melds, cards left) for objective o, cached.  A count
    vector already answered skips the checks."""
    hit = _cached(counts, profile, o)
    if hit is not None:
        return hit
    counts = as_counts(counts)
    prm = compiled(profile).params
    v, d, l, rows, left = _partition_kernel(counts, prm, o)
    hit = (int(v), int(d), int(l), tuple(_melds_from_rows(rows)), tuple(left.tolist()))
    if len(_ANALYSED) >= _ANALYSED_MAX:
        _ANALYSED.clear()
    _ANALYSED[(id(prm), o, counts.tobytes())] = hit
    return hit


def analyse(counts, profile) -> MeldResult:
    """Both answers with a partition achieving each (melds pass ``melds.check``)."""
    v, d, l, opening, opening_left = _partition(counts, profile, OPENING)
    deadwood, deadwood_left = _partition(counts, profile, DEADWOOD)[3:]
    return MeldResult(v, d, l, list(opening), list(opening_left), list(deadwood), list(deadwood_left))


def analyse_deadwood(counts, profile) -> Deadwood:
    """The answers and a least-deadwood partition, as in ``analyse``."""
    v, d, l, deadwood, left = _partition(counts, profile, DEADWOOD)
    return Deadwood(v, d, l, list(deadwood), list(left))


def can_open(counts, profile) -> tuple[bool, list]:
    """Whether the hand's best melds reach opening_min, and those melds ([] when they do not)."""
    hit = _cached(counts, profile, OPENING)
    if hit is None:
        counts = as_counts(counts)
        if search_kernel(counts, compiled(profile).params)[0] < profile.opening_min:
            return False, []  # no need to lay out the melds
        hit = _partition(counts, profile, OPENING)
    if hit[0] < profile.opening_min:
        return False, []
    return True, list(hit[3])


def best_discard(counts, profile, forbid: int = -1) -> tuple[int, int]:
    """(card, deadwood after) of the discard that leaves the least deadwood (ties: higher penalty,
    then higher card id).  No copy of ``forbid`` is chosen while another card is left:
    then the other card leaving the least deadwood is (ties: the lowest id)."""
    counts = as_counts(counts)
    if counts.sum() == 0:
        raise ValueError("an empty hand has nothing to discard")
    c, d = best_discard_except_kernel(counts, compiled(profile).params, forbid)
    return int(c), int(d)


def least_scored_discard(counts, profile, cands: list[int], extra: np.ndarray) -> int:
    """For trusted hands: the card of ``cands`` minimising deadwood after discarding it plus
    ``extra[card]`` (int64, 53 entries); ties go to the higher id; -1 for no candidates."""
    return int(least_scored_discard_kernel(counts, compiled(profile).params, np.asarray(cands, dtype=np.int64), extra))


def full_partition(counts, profile) -> tuple[int, list] | None:
    """(value, melds) of the most valuable partition melding every card, or None if none does."""
    counts = as_counts(counts)
    v, rows = full_partition_kernel(counts, compiled(profile).params)
    if v <= NEG:
        return None
    return int(v), _melds_from_rows(rows)


def _go_out(counts, profile, kalooki: bool):
    counts = as_counts(counts)
    prm = compiled(profile).params
    c = int(go_out_kernel(counts, prm, kalooki))
    if c < 0:
        return False, None, []
    rest = counts.copy()
    rest[c] -= 1
    v, rows = full_partition_kernel(rest, prm)
    return True, c, _melds_from_rows(rows)


def can_go_out(counts, profile) -> tuple[bool, int | None, list]:
    """Hand after the draw: (True, discard, melds) if some card can be discarded and all the rest
    melded (the most valuable such melds); a card always remains to discard.  Discards are tried
    highest penalty first, then highest card id."""
    return _go_out(counts, profile, False)


def can_kalooki(counts, profile) -> tuple[bool, int | None, list]:
    """As can_go_out, with the melds worth at least opening_min unless kalooki_exempt_from_minimum."""
    return _go_out(counts, profile, True)
