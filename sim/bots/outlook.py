"""One-draw look-ahead over the unseen cards, for the ``lookahead`` bot.

What a player cannot see is the stock and the other hands: every card of the pack that is not in
its own hand, on the table or in the discard pile.  For a hand and a candidate discard, the kernel
goes through every card the next draw could bring, weighted by how many copies of it are unseen,
and adds up what the hand would then be worth: the least deadwood after the best discard, and
whether every card but one would meld (the player could go out).  It is the exact expectation of a
one-draw Monte-Carlo look-ahead, so it needs no random numbers.  Most of the hands it would search
differ only by cards that can meld with nothing, so it searches the rest once and adds those cards'
penalties (``outlook_kernel``); ``_outlook_plain`` is the search per draw and discard it stands for.

The deadwood after each draw is weighed by the seat's stakes (``sim.game.hand_stakes``): a row of
whole points-equivalents (``stakes_ints``), where holding d penalty points when another player goes
out costs ``holding_cost(srow, d)``, minus the row's curve at d.  The neutral row (``NEUTRAL``) costs d,
the hand's own points; near elimination points above the cliff cost far more.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .. import meldsearch as MS
from ..cards import COPIES, JOKER, N_KINDS
from ..engine.core import ROW_W, compiled
from ..equity import ST_CURVE, ST_W, ST_XMAX, neutral_stakes
from ..melds import row_of
from ..meldsearch import P_HV, P_JOKER_PENALTY, P_KMAX, W_BEST, search_answers, discard_order, hand_totals, search_walk, new_workspace
from ..jit.cache import drop_stale


def stakes_ints(rows) -> np.ndarray:
    """Rows of stakes (floats, ``sim.game.hand_stakes``) as the compiled decisions read them: int64,
    rounded to whole points-equivalents; None gives one neutral row."""
    if rows is None:
        return NEUTRAL
    return np.ascontiguousarray(np.rint(rows), dtype=np.int64)


NEUTRAL = np.rint(neutral_stakes(1)[0]).astype(np.int64)  # the neutral row: the hand's own points
NEUTRAL.flags.writeable = False


def stakes_matrix(state) -> np.ndarray:
    """Every hand position's row of ``state.stakes`` as int64 (``stakes_ints``; the neutral rows where the
    hand has none)."""
    rows = getattr(state, "stakes", None)
    if rows is None:
        return np.ascontiguousarray(np.broadcast_to(NEUTRAL, (state.n, ST_W)))
    return stakes_ints(rows)


@njit(cache=True)
def holding_cost(srow, d):
    """What holding d penalty points costs when another player goes out, by the stakes row srow (minus
    its curve at d; d above ST_XMAX reads ST_XMAX)."""
    return -srow[ST_CURVE + min(max(d, 0), ST_XMAX)]


@njit(cache=True)
def best_discard_deadwood(h, prm, d_all, mv, ws, rec):
    """Least deadwood of h after discarding one card, given d_all = deadwood of h.  Removing a card
    lowers deadwood by at most its penalty, so cards are tried highest penalty first and the search
    stops once no card left can beat the best found."""
    order = discard_order(h, prm)
    best = -1
    for i in range(order.shape[0]):
        y = order[i]
        pen = card_penalty(prm, y)
        if best >= 0 and d_all - pen >= best:
            break
        h[y] -= 1
        v, d, l = search_answers(h, prm, mv, ws, rec)
        h[y] += 1
        if best < 0 or d < best:
            best = d
            if best == 0:
                break
    return best


@njit(cache=True)
def card_penalty(prm, y):
    return prm[P_JOKER_PENALTY] if y == JOKER else prm[P_HV + y % 13]


# ---------------------------------------------------------------------------------------------
# the meld search for the deadwood (and loose cards) alone
# ---------------------------------------------------------------------------------------------

@njit(cache=True)
def _melded(counts, prm, mv, ws, o_hi):
    """The meld search without the value objective: (most melded penalty, most melded cards; the
    latter only when o_hi is 3).  The objectives are maximised independently there, so these are
    the very numbers search_answers derives the deadwood and loose cards from."""
    search_walk(counts, prm, mv, ws, mv, False, o_hi)  # mv stands in for the record it does not keep
    return ws[W_BEST + 1], ws[W_BEST + 2]


@njit(cache=True)
def _deadwood(h, prm, mv, ws):
    """The least deadwood of h, as search_answers(h)[1]."""
    bd, _ = _melded(h, prm, mv, ws, np.int64(2))
    n, t = hand_totals(h, prm)
    return t - bd


@njit(cache=True)
def _deadwood_loose(h, prm, mv, ws):
    """(least deadwood, fewest loose cards) of h, as search_answers(h)[1:]."""
    bd, bl = _melded(h, prm, mv, ws, np.int64(3))
    n, t = hand_totals(h, prm)
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
def _sane(counts, cands, unseen):
    """Inputs the shortcuts of outlook_kernel hold for: no negative count, at most two copies of
    each natural even after the draw, every candidate -1 or a card of the hand."""
    for c in range(N_KINDS):
        if counts[c] < 0 or (c != JOKER and counts[c] + (unseen[c] > 0) > COPIES):
            return False
    for i in range(cands.shape[0]):
        c = cands[i]
        if c < -1 or c >= N_KINDS or (c >= 0 and counts[c] <= 0):
            return False
    return True


@njit(cache=True)
def _outlook_plain(counts, prm, cands, unseen, out, mv, ws, rec, srow):
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
            v, d, l = search_answers(h, prm, mv, ws, rec)
            if l <= 1:
                outs += w
            total += w * holding_cost(srow, best_discard_deadwood(h, prm, d, mv, ws, rec))
            h[x] -= 1
        if c >= 0:
            h[c] += 1
        out[i, 0] = total
        out[i, 1] = outs


@njit(cache=True)
def _joker_floor(h, prm, d_h):
    """A lower bound on the deadwood of h less one of its jokers, d_h being the deadwood of h.  Take a
    least-deadwood partition of h less the joker.  If one of its melds can take one more joker (a run
    short of 13 cards, a group short of four, a meld with fewer jokers than a meld may hold), the
    joker put there makes a partition of h no worse, so that deadwood is at least d_h.  If none can,
    its melds are groups of four, which meld at most the naturals of the ranks that could make one
    and the other jokers.  -1 (no bound) when h holds more jokers than one meld may take or 10
    naturals of one suit (a run of 13 could not take one)."""
    jokers = h[JOKER]
    if jokers > prm[P_KMAX]:
        return -1
    for s in range(4):
        k = 0
        for r in range(13):
            k += h[s * 13 + r]
        if k >= 10:
            return -1
    others = jokers - 1
    _, t = hand_totals(h, prm)
    u = 0
    for r in range(13):
        suits = 0
        cnt = 0
        for s in range(4):
            if h[s * 13 + r] > 0:
                suits += 1
                cnt += h[s * 13 + r]
        if suits > 0 and suits + others >= 4:
            u += cnt * prm[P_HV + r]
    if u > 0:
        u += others * prm[P_JOKER_PENALTY]
    f = t - prm[P_JOKER_PENALTY] - u
    return d_h if d_h < f else f


@njit(cache=True)
def _split_loose(f, prm, core, iso, stats):
    """Split hand f into iso, its cards loose in every partition (``_loose_in``), and core, the rest.
    stats: [0] cards in iso, [1] their penalty, [2] the highest penalty in iso and [3] the second
    highest (a second copy counts; -1: none), [4] the highest penalty in core (-1: core empty)."""
    stats[0] = 0
    stats[1] = 0
    stats[2] = -1
    stats[3] = -1
    stats[4] = -1
    for k in range(N_KINDS):
        n = f[k]
        if n > 0 and k != JOKER and _loose_in(f, k):
            iso[k] = n
            core[k] = 0
            p = card_penalty(prm, k)
            stats[0] += n
            stats[1] += n * p
            for _ in range(n):
                if p > stats[2]:
                    stats[3] = stats[2]
                    stats[2] = p
                elif p > stats[3]:
                    stats[3] = p
        else:
            iso[k] = 0
            core[k] = n
            if n > 0 and card_penalty(prm, k) > stats[4]:
                stats[4] = card_penalty(prm, k)


@njit(cache=True)
def _less_one(core, prm, y, slot, now, single, s_seen, mv, ws):
    """(deadwood, loose cards) of core less card y, kept in single[slot, y] for the stamp now."""
    if s_seen[slot, y] != now:
        core[y] -= 1
        single[slot, y, 0], single[slot, y, 1] = _deadwood_loose(core, prm, mv, ws)
        core[y] += 1
        s_seen[slot, y] = now
    return single[slot, y, 0], single[slot, y, 1]


@njit(cache=True)
def _less_two(core, prm, a, b, slot, now, pair, p_seen, mv, ws):
    """Deadwood of core less cards a and b, kept in pair[slot, a, b] and pair[slot, b, a]."""
    if p_seen[slot, a, b] != now:
        core[a] -= 1
        core[b] -= 1
        d = _deadwood(core, prm, mv, ws)
        core[a] += 1
        core[b] += 1
        pair[slot, a, b] = d
        pair[slot, b, a] = d
        p_seen[slot, a, b] = now
        p_seen[slot, b, a] = now
    return pair[slot, a, b]


@njit(cache=True)
def outlook_kernel(counts, prm, cands, unseen, out, srow):
    """For each candidate discard cands[i] (-1: none): out[i, 0] = sum over unseen cards x,
    weighted by unseen[x], of the cost (``holding_cost`` by the stakes row srow; the neutral row: the points)
    of the least deadwood after the discard, drawing x and discarding the best card; out[i, 1] = the
    weighted number of draws after which all cards but one meld.

    Exact (the brute force, ``_outlook_plain``, gives the same integers), with far fewer searches.
    For each draw x the hand f = counts + x splits into I, its cards loose in every partition
    (``_loose_in``: they stay loose in every part of f), and the core; only core hands are searched.
    f less c and y has the deadwood pen(I) + deadwood(core less those of c, y that are core cards)
    less the penalties of those in I, and I's cards are loose.  The core is most often the same for
    every draw (a drawn card that melds with nothing joins I): then its searches serve every draw.
    A hand less two cards serves both candidates (c, y) and (y, c); discards are tried highest
    penalty first and stop once none left can do better, the joker last and only when
    ``_joker_floor`` leaves it a chance.  Odd inputs (``_sane``) take the brute force.
    """
    mv, ws, rec = new_workspace()
    if not _sane(counts, cands, unseen):
        _outlook_plain(counts, prm, cands, unseen, out, mv, ws, rec, srow)
        return
    big = np.int64(1) << 40
    h = counts.copy()
    nc = cands.shape[0]
    core = np.empty(N_KINDS, np.int8)
    iso = np.empty(N_KINDS, np.int8)
    stats = np.empty(5, np.int64)
    base = np.empty(N_KINDS, np.int8)  # the core of the hand before the draw: slot 0, for every draw
    _split_loose(h, prm, base, iso, stats)
    # per slot (0: the core is base, 1: this draw's own core, stamped x + 1): the core's deadwood
    # and loose cards, its least deadwood less one card, the core less one card, less two cards
    whole = np.empty((2, 2), np.int64)
    w_seen = np.zeros(2, np.int64)
    least = np.empty(2, np.int64)
    l_seen = np.zeros(2, np.int64)
    single = np.empty((2, N_KINDS, 2), np.int64)
    s_seen = np.zeros((2, N_KINDS), np.int64)
    pair = np.empty((2, N_KINDS, N_KINDS), np.int64)
    p_seen = np.zeros((2, N_KINDS, N_KINDS), np.int64)
    totals = np.zeros(nc, np.int64)
    outs = np.zeros(nc, np.int64)
    for x in range(N_KINDS):
        w = unseen[x]
        if w <= 0:
            continue
        h[x] += 1
        _split_loose(h, prm, core, iso, stats)
        h[x] -= 1
        n_i, p_i, m1, m2, top_core = stats[0], stats[1], stats[2], stats[3], stats[4]
        slot = 0
        now = 1
        for k in range(N_KINDS):
            if core[k] != base[k]:
                slot = 1
                now = x + 1
                break
        for i in range(nc):
            c = cands[i]
            if c < 0 or iso[c] > 0:  # the core stays whole
                pc = 0 if c < 0 else card_penalty(prm, c)
                m = m1 if c < 0 or pc != m1 else m2  # the highest penalty left in I
                if w_seen[slot] != now:
                    whole[slot, 0], whole[slot, 1] = _deadwood_loose(core, prm, mv, ws)
                    w_seen[slot] = now
                d_core = whole[slot, 0]
                if whole[slot, 1] + n_i - (0 if c < 0 else 1) <= 1:
                    outs[i] += w
                best = big if m < 0 else d_core - m  # discard from I
                if best > 0 and top_core >= 0 and d_core - top_core < best:  # a core card may do better
                    if l_seen[slot] != now:
                        order = discard_order(core, prm)
                        b = big
                        for k in range(order.shape[0]):  # the naturals, then the joker
                            y = order[k]
                            if y == JOKER:
                                continue
                            if d_core - card_penalty(prm, y) >= b:
                                break
                            d, _ = _less_one(core, prm, y, slot, now, single, s_seen, mv, ws)
                            if d < b:
                                b = d
                                if b == 0:
                                    break
                        if (b > 0 and core[JOKER] > 0 and d_core - card_penalty(prm, JOKER) < b
                                and _joker_floor(core, prm, d_core) < b):
                            d, _ = _less_one(core, prm, JOKER, slot, now, single, s_seen, mv, ws)
                            if d < b:
                                b = d
                        least[slot] = b
                        l_seen[slot] = now
                    if least[slot] < best:
                        best = least[slot]
                totals[i] += w * holding_cost(srow, p_i - pc + best)
            else:  # c is a core card
                d_c, l_c = _less_one(core, prm, c, slot, now, single, s_seen, mv, ws)
                if l_c + n_i <= 1:
                    outs[i] += w
                best = big if m1 < 0 else d_c - m1
                if best > 0:
                    core[c] -= 1
                    order = discard_order(core, prm)
                    for k in range(order.shape[0]):  # the naturals, then the joker
                        y = order[k]
                        if y == JOKER:
                            continue
                        py = card_penalty(prm, y)
                        if d_c - py >= best:
                            break
                        if _loose_in(core, y):
                            d = d_c - py
                        else:
                            core[c] += 1
                            d = _less_two(core, prm, c, y, slot, now, pair, p_seen, mv, ws)
                            core[c] -= 1
                        if d < best:
                            best = d
                            if best == 0:
                                break
                    if (best > 0 and core[JOKER] > 0 and d_c - card_penalty(prm, JOKER) < best
                            and _joker_floor(core, prm, d_c) < best):
                        core[c] += 1
                        d = _less_two(core, prm, c, JOKER, slot, now, pair, p_seen, mv, ws)
                        core[c] -= 1
                        if d < best:
                            best = d
                    core[c] += 1
                totals[i] += w * holding_cost(srow, p_i + best)
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


def outlook(hand: np.ndarray, profile, cands: list[int], unseen: np.ndarray, srow=None) -> np.ndarray:
    """(len(cands), 2) floats: expected least deadwood (its cost by the stakes row ``srow``, int64;
    None: the neutral row, the points) after each candidate discard and one draw, and the chance that
    the draw lets every card but one meld.  A candidate of -1 discards nothing."""
    out = np.zeros((len(cands), 2), dtype=np.int64)
    weight = int(unseen.sum())
    if weight == 0 or not cands:
        return out.astype(np.float64)
    outlook_kernel(hand, compiled(profile).params, np.asarray(cands, dtype=np.int64), unseen, out,
                   NEUTRAL if srow is None else srow)
    return out / weight
