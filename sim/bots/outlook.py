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
from ..meldsearch import (ENTRY, NEG, P_HV, P_JOKER_MELDS, P_JOKER_PENALTY, TAB, W_BEST, W_CH, W_CNT, W_G, W_OFF,
                          W_P, _answers, _conv, _discard_order, _gen_moves, _next_fitting, _shift_group,
                          _suit_entry, _totals, _workspace)
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
        pen = _pen(prm, y)
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
def _pen(prm, y):
    return prm[P_JOKER_PENALTY] if y == JOKER else prm[P_HV + y % 13]


# ---------------------------------------------------------------------------------------------
# the meld search for the deadwood (and loose cards) alone
# ---------------------------------------------------------------------------------------------

@njit(cache=True)
def _evaluate_dl(tab, prm, ws, jb, o_hi):
    """meldsearch._evaluate for objectives 1 (melded penalty) .. o_hi - 1 only, recording nothing."""
    for s in range(4):
        p = ws[W_P + s]
        off = TAB + p * ENTRY
        if tab[off + 15] == 0:
            off = _suit_entry(tab, p, prm)
        ws[W_OFF + s] = off
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
def _melded(counts, prm, mv, ws, o_hi):
    """meldsearch._search_ws without the value objective: (most melded penalty, most melded cards;
    the latter only when o_hi is 3).  The objectives are maximised independently there, so these are
    the very numbers _answers derives the deadwood and loose cards from."""
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
    _evaluate_dl(tab, prm, ws, jb, o_hi)
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
            _evaluate_dl(tab, prm, ws, jb, o_hi)
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
    return ws[W_BEST + 1], ws[W_BEST + 2]


@njit(cache=True)
def _deadwood(h, prm, mv, ws):
    """The least deadwood of h, as _answers(h)[1]."""
    bd, _ = _melded(h, prm, mv, ws, 2)
    n, t = _totals(h, prm)
    return t - bd


@njit(cache=True)
def _deadwood_loose(h, prm, mv, ws):
    """(least deadwood, fewest loose cards) of h, as _answers(h)[1:]."""
    bd, bl = _melded(h, prm, mv, ws, 3)
    n, t = _totals(h, prm)
    return t - bd, n - bl


# ---------------------------------------------------------------------------------------------
# the look-ahead
# ---------------------------------------------------------------------------------------------

@njit(cache=True)
def _isolated(h, x):
    """True when natural x can be in no meld of the hand h + x (h holding at most one copy of x):
    no second joker, no two other suits of its rank (one with a joker), no two cards of its suit
    that run with it (one within two ranks with a joker).  Neighbouring ranks are taken round the
    ace both ways, which only ever says "not isolated" too often.  Then every partition of h + x
    leaves x loose: its deadwood is h's plus x's penalty, it has one more loose card, and h + x
    less a card y != x has the deadwood of h less y plus x's penalty."""
    jokers = h[JOKER]
    if jokers >= 2 or h[x] >= 2:
        return False
    r = x % 13
    s = x // 13
    suits = 0
    for t in range(4):
        if t != s and h[t * 13 + r] > 0:
            suits += 1
    if suits + jokers >= 2:
        return False
    b = s * 13
    m2 = h[b + (r + 11) % 13] > 0
    m1 = h[b + (r + 12) % 13] > 0
    p1 = h[b + (r + 1) % 13] > 0
    p2 = h[b + (r + 2) % 13] > 0
    if jokers > 0:
        return not (m2 or m1 or p1 or p2)
    return not ((m2 and m1) or (m1 and p1) or (p1 and p2))


@njit(cache=True)
def _loose_in(h, y):
    """True when card y of h is loose in every partition of h (``_isolated`` with y taken out)."""
    if y == JOKER:
        return False
    h[y] -= 1
    iso = _isolated(h, y)
    h[y] += 1
    return iso


@njit(cache=True)
def _sane(counts, cands):
    """Inputs the shortcuts of outlook_kernel hold for: at most two copies of each natural, no
    negative count, every candidate -1 or a card of the hand."""
    for c in range(N_KINDS):
        if counts[c] < 0 or (c != JOKER and counts[c] > 2):
            return False
    for i in range(cands.shape[0]):
        c = cands[i]
        if c < -1 or c >= N_KINDS or (c >= 0 and counts[c] <= 0):
            return False
    return True


@njit(cache=True)
def _outlook_plain(counts, prm, cands, unseen, out, mv, ws, rec):
    """outlook_kernel by brute force: a search per draw and per discard after it."""
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
def _less_one(h, prm, d_h, y, a, memo, seen, now, mv, ws):
    """Deadwood of h less card y, given d_h = deadwood of h.  h is a hand less card a (JOKER + 1:
    none); memo[a, y] holds the answer where seen[a, y] == now, and serves memo[y, a] too, since
    the hand less a and y is the hand less y and a.  A card loose in every partition of h leaves
    d_h less its penalty with no search."""
    if _loose_in(h, y):
        return d_h - _pen(prm, y)
    if seen[a, y] == now:
        return memo[a, y]
    h[y] -= 1
    d = _deadwood(h, prm, mv, ws)
    h[y] += 1
    memo[a, y] = d
    seen[a, y] = now
    if a <= JOKER:
        memo[y, a] = d
        seen[y, a] = now
    return d


@njit(cache=True)
def outlook_kernel(counts, prm, cands, unseen, out):
    """For each candidate discard cands[i] (-1: none): out[i, 0] = sum over unseen cards x,
    weighted by unseen[x], of the least deadwood after the discard, drawing x and discarding the best
    card; out[i, 1] = the weighted number of draws after which all cards but one meld.

    Exact, with far fewer searches than one per draw and discard.  With g the hand after the
    discard: discarding the drawn card leaves g (searched once); a drawn natural that can meld with
    nothing in g + x (``_isolated``) leaves min(deadwood(g), pen(x) + least deadwood of g less a
    card), and g + x less y likewise when x is isolated in g - y + x; a card y loose in every
    partition of a hand leaves its deadwood less pen(y) (and ends the highest-penalty-first scan);
    hands less two cards are searched once for the candidates that share them."""
    mv, ws, rec = _workspace()
    if not _sane(counts, cands):
        _outlook_plain(counts, prm, cands, unseen, out, mv, ws, rec)
        return
    h = counts.copy()
    nc = cands.shape[0]
    none = JOKER + 1
    # deadwood of h less a and y (memo_g, seen_g) and of h + x less a and y (memo_x, seen_x == x + 1)
    memo_g = np.empty((N_KINDS + 1, N_KINDS), np.int64)
    seen_g = np.zeros((N_KINDS + 1, N_KINDS), np.int64)
    memo_x = np.empty((N_KINDS + 1, N_KINDS), np.int64)
    seen_x = np.zeros((N_KINDS + 1, N_KINDS), np.int64)
    g_d = np.empty(nc, np.int64)
    g_l = np.empty(nc, np.int64)
    g_best = np.full(nc, -2, np.int64)  # least deadwood of g less one card: -2 not yet, -1 g is empty
    for i in range(nc):
        c = cands[i]
        if c >= 0:
            h[c] -= 1
        g_d[i], g_l[i] = _deadwood_loose(h, prm, mv, ws)
        if c >= 0:
            h[c] += 1
    totals = np.zeros(nc, np.int64)
    outs = np.zeros(nc, np.int64)
    h_dl = np.full(2, -1, np.int64)  # the hand itself, after drawing the candidate back
    for x in range(53):
        w = unseen[x]
        if w <= 0:
            continue
        px = _pen(prm, x)
        for i in range(nc):
            c = cands[i]
            a = none
            if c >= 0:
                h[c] -= 1
                a = c
            if x != JOKER and _isolated(h, x):
                if g_l[i] == 0:
                    outs[i] += w
                if g_best[i] == -2:
                    order = _discard_order(h, prm)
                    gb = -1
                    for k in range(order.shape[0]):
                        y = order[k]
                        if gb >= 0 and g_d[i] - _pen(prm, y) >= gb:
                            break
                        d = _less_one(h, prm, g_d[i], y, a, memo_g, seen_g, 1, mv, ws)
                        if gb < 0 or d < gb:
                            gb = d
                            if gb == 0:
                                break
                    g_best[i] = gb
                best = g_d[i]
                if g_best[i] >= 0 and px + g_best[i] < best:
                    best = px + g_best[i]
                totals[i] += w * best
            else:
                h[x] += 1
                if x == c:
                    if h_dl[0] < 0:
                        h_dl[0], h_dl[1] = _deadwood_loose(h, prm, mv, ws)
                    d_all = h_dl[0]
                    l_all = h_dl[1]
                else:
                    d_all, l_all = _deadwood_loose(h, prm, mv, ws)
                if l_all <= 1:
                    outs[i] += w
                best = g_d[i]  # discarding x again
                if best > 0:
                    xo = _discard_order(h, prm)
                    for k in range(xo.shape[0]):
                        y = xo[k]
                        if y == x:
                            continue
                        if d_all - _pen(prm, y) >= best:
                            break
                        h[y] -= 1
                        h[x] -= 1
                        iso = x != JOKER and _isolated(h, x)
                        h[y] += 1
                        if iso:  # h is g here
                            d = px + _less_one(h, prm, g_d[i], y, a, memo_g, seen_g, 1, mv, ws)
                            h[x] += 1
                        else:
                            h[x] += 1
                            d = _less_one(h, prm, d_all, y, a, memo_x, seen_x, x + 1, mv, ws)
                        if d < best:
                            best = d
                            if best == 0:
                                break
                totals[i] += w * best
                h[x] -= 1
            if c >= 0:
                h[c] += 1
    for i in range(nc):
        out[i, 0] = totals[i]
        out[i, 1] = outs[i]


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
