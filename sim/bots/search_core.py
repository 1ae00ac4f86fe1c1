"""The search bot's decisions, compiled: perfect-information Monte Carlo over the cards it cannot see.

At a choice (a free draw: stock or discard; its turn's table play and discard, once it has drawn)
the search seat takes its candidates, deals ``samples`` determinizations of the unseen cards and
plays every candidate forward on every determinization (the same deals for every candidate: common
random numbers) with the engine's compiled turns (``sim.bots.turn_loop.run_turns``), its own seat
played by the ``rollout`` policy and the others by the ``others`` policy, to the end of the hand or a
``horizon`` of turns.  It picks the candidate with the best total score for its seat.

- **Candidates.**  A discard: the lookahead's choice first, then the other loose cards of the hand
  left after its table play (a joker only when nothing else is loose, never the card just taken from
  the pile), ranked by the expert's keep score (penalty thrown, partial melds kept: the points
  ``expert_core`` weighs), at most ``candidates`` in all.  A table play: where the lookahead's play
  lays something (opens, melds, lays off, or goes out), the play with each of those discards, then
  holding (``hold``): laying nothing this turn and throwing the lookahead's discard for the whole
  hand, so opening now is weighed against waiting to open with more (or for a Kalooki), and a meld
  or lay-off against keeping the cards (a meld laid gives the others somewhere to lay off).  Holding
  is a candidate only where the engine takes it (a discard taken to open or meld with must be used),
  where it leaves more than jokers in the hand (every bot lays its jokers before it is left with
  nothing else) and, against a play that goes out, only where the seat has not opened, the going out is no
  Kalooki and the profile pays a Kalooki more (``sim.engine.core.kalooki_pays_more``): elsewhere going
  out is never worse.  The other way round, where the lookahead waits (for a Kalooki) though its
  hand could open, ``hold`` adds opening now: greedy's play (every meld held laid down, lay-offs)
  with the lookahead's discard for the hand it leaves.  Where the lookahead's play lays several
  things and does not go out, ``partial`` adds at most two parts of it, each with the lookahead's
  discard for the hand it leaves: its melds without its lay-offs and splits onto melds already on
  the table (a lay-off kept can feed the next player or go out later), and, before opening, the
  fewest of its new melds that reach the opening minimum on their own (most points among as few;
  the rest kept out of the others' reach); a part the engine refuses, or one that is the whole
  play, is no candidate.  A draw: the lookahead's draw first, then the other pile, only when the
  discard is free to take (no obligation to open or meld with it) and, where the lookahead draws from
  the stock, the discard is a joker, could make a meld with a card held (``_connects``) or, taken,
  leaves less deadwood (a card that meets nothing and saves nothing is never worth more than a stock
  draw), melds in the least-deadwood partition of the hand with it (a card taken to be left loose is
  no pickup), and, for an opened seat, no stock card could go out (``expert_core.stock_goes_out``).
  The discards searched after the lookahead's never break a pair or two-card run while a loose card
  of equal or higher penalty that makes no partial meld (an isolated card) could go instead: a
  rollout cut short at ``horizon`` turns scores the deadwood left, so it rates a pair's card a few
  points above an isolated one it outranks and seldom sees the pair completed; what feeding the next
  player an isolated card costs is the lookahead's to weigh, in its own choice.  One candidate: no
  search.
- **Determinizations.**  The unseen cards (the pack less its hand, the table and the discard pile) are
  dealt to the other hands, each to its size, the cards an opponent took from the pile and has not
  thrown since staying in its hand, the rest shuffled into the stock.  Each decision that searches
  reads one uniform of the seat's stream (its seeded generator, as the random bot's) and seeds a
  splitmix64 generator with it, so the same seed gives the same choices whoever runs the hand.
- **Score.**  Where the profile's game is ``single_hand`` (east_coast: each hand paid in money), a
  rollout that ends the hand scores the seat's payment by the ledger's rule (``sim.sheet.loser_pays``):
  what the losers pay it when it goes out, minus what it pays when another player does (per card and
  per joker held, doubled after a Kalooki where the profile says so); a void or stalled hand, or one
  stopped at the horizon, scores minus what it would pay for the cards its best melds leave loose.
  Everywhere else (kalooki40, british, swedish and scala40 play by elimination, kalooki51 to a target
  score) a rollout that ends scores ``win_points`` for a win by the seat and minus the penalty of the
  cards it holds when another player goes out; one cut short scores minus the seat's least deadwood.
  Each of those is weighed by the seat's row of stakes (``sim.game.hand_stakes``): a win scores
  ``win_points`` plus the row's ``ST_WIN`` (``ST_KALOOKI`` for a Kalooki), x penalty points held
  cost ``outlook.holding_cost`` (minus the row's curve at x), so near elimination a rollout that leaves
  points above the cliff scores far worse, and where the row values ending the hand more (kalooki40's
  table: an opponent one hand from elimination, no buy-ins left) a rollout that ends it scores more;
  on the neutral row (no game, no table) the scores are the points above.
  A candidate the engine refuses scores ``REFUSED``.  Another candidate replaces the lookahead's
  choice only when its total is higher by more than ``margin`` (points, or money units in a
  single_hand game) a deal; ties go to the earlier candidate.

Both rollout policies are greedy, expert or lookahead (``ROLLOUT_KINDS``); never search, so no search
runs inside another.  Buy-ins are decided in Python (``sim.bots.search.SearchBot.buy_in``: the
pool rule, the rest of the game played on, or the expert's table of game values).
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from ..cards import JOKER, N_KINDS
from ..engine import core
from ..engine import turn as TU
from ..engine.core import R_PICKUP_BEFORE_OPENING
from ..engine.turn import MAXT, OB_NONE
from ..meldsearch import MAX_OUT, OUT_W, P_ACE_LOW, new_workspace, best_discard_except_kernel
from . import expert_core as XC
from . import greedy_core as FG
from ..equity import ST_KALOOKI, ST_WIN
from ..sheet import loser_pays
from ..engine import hand as HD
from ..engine.hand import (H_STATUS, H_WINNER, H_WIN_TYPE, SC_ND, SC_NS, SC_NT, SC_OWN, SC_RESHUFFLES, SC_SP,
                           SC_TURN_NO, WIN_KALOOKI)
from .greedy_core import R_KALOOKI_PAYS_MORE, R_MONEY_PER_HAND, R_PAY_DOUBLE, R_PAY_PER_CARD, R_PAY_PER_JOKER
from .kernels.hands import NO, YES, hand_size, search_hand
from .kernels.plays import DISCARD, MAXOPS, OP_W, STOCK, new_draft, new_scratch, taken_obligation
from .outlook import holding_cost, card_penalty, stakes_matrix, unseen_kernel
from . import kinds
from . import turn_loop as TL
from .kinds import K_EXPERT, K_LOOKAHEAD
from .turn_loop import OWN_DRAW, SC_C, SC_CHOSE, SC_DISC, SC_NX, SC_SRC, SC_WAS_OPEN

# the search's words after the lookahead's in its parameter row (expert_core.X_*)
SX_SAMPLES = XC.X_W
SX_CANDIDATES = XC.X_W + 1
SX_HORIZON = XC.X_W + 2
SX_ROLLOUT = XC.X_W + 3
SX_WIN_POINTS = XC.X_W + 4
SX_MARGIN = XC.X_W + 5
SX_HOLD = XC.X_W + 6
SX_PARTIAL = XC.X_W + 7
SX_OTHERS = XC.X_W + 8
SX_W = XC.X_W + 9
SX_NAMES = XC.X_NAMES + ("samples", "candidates", "horizon", "rollout_kind", "win_points", "margin", "hold",
                         "partial", "others_kind")

ROLLOUT_KINDS = kinds.ROLLOUT_KINDS  # the bots a rollout seats (rollout, others)
ROLLOUT_TABLE = kinds.table().copy()  # the table of kinds the rollouts' turns read (its rollout rows are built in)
OUT_OF_STREAM = -3  # an answer: the seat's stream ran out (the caller draws more and asks again)
REFUSED = -1_000_000  # the score of a candidate the engine refuses
# a table-play candidate: the lookahead's play, nothing laid, opening now, the lookahead's melds without its
# lay-offs, the fewest of its melds that open; the last three are written in a slot of their own (ALT_SLOTS)
PLAY_OWN, PLAY_HOLD, PLAY_OPEN, PLAY_MELDS, PLAY_LEAST = 0, 1, 2, 3, 4
ALT_SLOTS = 3  # slot plays[i] - PLAY_OPEN: opening now (only where the lookahead lays nothing) or a partial play
MAX_LEAST_MELDS = 8  # the fewest melds that open are looked for among at most this many of the lookahead's
UNIT = 1.0 / 9007199254740992.0  # 2**-53

# The search reads the hand as the engine's compiled hand (``sim.engine.hand.Hand``, never written; of the stock
# only its size, of the other hands only their sizes) with its fixed inputs (``HandInputs``), beside these.
# The searching seat: its number, its parameter row (SX_*) and every seat's row of the hand's stakes (its own
# weighs its rollouts' scores and its discards; the others' are read by its rollouts' other seats).
SearchInputs = namedtuple("SearchInputs", ("me", "xp", "stakes"))
# The candidates of one search: each one's draw source or discard (cands) and its table play (plays: PLAY_*),
# an opening's or a partial play's operations in a slot of their own (aops[j]/amrows[j], anx[j] of them;
# j = plays[i] - PLAY_OPEN).
Candidates = namedtuple("Candidates", ("cands", "plays", "aops", "amrows", "anx"))
# What every rollout of one search shares: their fixed inputs (the hand's, with the reshuffle keys each
# determinization draws in ``keys``) and seats (each seat's rollout kind and row, ``_rollout_table``), the seat
# scored, the horizon, the win points and the meld search's workspace the score reads (mv, ws, rec).
Rollout = namedtuple("Rollout", ("inp", "seats", "me", "horizon", "win_points", "work"))
# A determinization's buffers: its generator (a splitmix64 state, ``_seeded``), the cards the seat cannot see,
# the pool they are shuffled in, and the hands and stock dealt.
Deal = namedtuple("Deal", ("rng", "unseen", "pool", "hands", "stock"))


@njit(cache=True)
def _next(rng):
    """splitmix64: the next 64-bit word of the generator whose state is rng[0]."""
    rng[0] += np.uint64(0x9E3779B97F4A7C15)
    z = rng[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def _below(rng, k):
    """A uniform integer in 0..k-1."""
    return np.int64(_next(rng) % np.uint64(k))


@njit(cache=True)
def _seeded(u):
    """A generator seeded by the uniform u in [0, 1) (53 bits of it)."""
    rng = np.empty(1, np.uint64)
    rng[0] = np.uint64(np.int64(u * 9007199254740992.0))
    return rng


@njit(cache=True)
def _deal(h, me, d):
    """A determinization of the hand ``h`` as seat ``me`` sees it, in the buffers ``d`` (a ``Deal``): d.hands
    (the seat's own hand, each other hand dealt to its size from the unseen cards, cards it took from the
    pile and has not thrown since kept in it) and d.stock (the rest, shuffled); returns the stock's size."""
    hands, pick, discby = h.hands, h.pick, h.discby
    rng, pool, out_hands, out_stock = d.rng, d.pool, d.hands, d.stock
    n = hands.shape[0]
    avail = d.unseen.copy()
    need = np.zeros(n, np.int64)
    out_hands[:] = 0
    out_hands[me] = hands[me]
    for o in range(n):
        if o != me:
            need[o] = hand_size(hands[o])
    for o in range(n):
        if o == me:
            continue
        for c in range(N_KINDS):
            k = min(max(pick[o, c] - discby[o, c], 0), avail[c], need[o])
            if k > 0:
                out_hands[o, c] += k
                avail[c] -= k
                need[o] -= k
    m = 0
    for c in range(N_KINDS):
        for _ in range(avail[c]):
            pool[m] = c
            m += 1
    for i in range(m - 1, 0, -1):  # Fisher-Yates
        j = _below(rng, i + 1)
        t = pool[i]
        pool[i] = pool[j]
        pool[j] = t
    p = 0
    for o in range(n):
        if o == me:
            continue
        for _ in range(need[o]):
            out_hands[o, pool[p]] += 1
            p += 1
    out_stock[:m - p] = pool[p:m]
    return m - p


@njit(cache=True)
def _rollout(ro, dealt, xops, xmrows, nx, start, force_src, force_disc):
    """The seat's score after playing a determinization (``dealt``, a compiled hand, played on a copy)
    forward from its choice (the module docstring; ``ro``, a ``Rollout``); from START_APPLY the turn
    stopped at ASK_DISCARD lays the first ``nx`` operations of xops/xmrows."""
    h = HD.copy_hand(dealt)
    if start == TL.START_APPLY:
        h.sc[SC_NX] = nx
    pend = TL.Pending(xops.copy(), xmrows.copy(), np.zeros(4, np.int64), np.empty(N_KINDS, np.int8))
    TL.run_turns(ro.inp, h, ro.seats, pend, start, force_src, force_disc, False, ro.horizon)
    mv, ws, rec = ro.work
    return _score(ro.me, h.res, h.hands, ro.inp.values, ro.inp.rp, ro.inp.prm, ro.win_points, mv, ws, rec,
                  ro.seats.stakes[ro.me])


@njit(cache=True)
def _pays(hand, kalooki, rp):
    """What a loser holding ``hand`` pays in a single_hand game (``sim.sheet.loser_pays``)."""
    jk = np.int64(hand[JOKER])
    return loser_pays(hand_size(hand) - jk, jk, kalooki, rp[R_PAY_PER_CARD], rp[R_PAY_PER_JOKER], rp[R_PAY_DOUBLE] != 0)


@njit(cache=True)
def _score(me, res, hands, values, rp, prm, win_points, mv, ws, rec, srow):
    """The seat's score for a rollout that stopped with ``res`` and ``hands`` (the module docstring),
    by the seat's row of stakes srow."""
    if res[H_STATUS] != 0:
        return REFUSED
    money = rp[R_MONEY_PER_HAND] != 0
    w = res[H_WINNER]
    if w >= 0:
        kalooki = res[H_WIN_TYPE] == WIN_KALOOKI
        if w == me:
            if not money:
                return win_points + srow[ST_KALOOKI if kalooki else ST_WIN]
            got = 0
            for s in range(hands.shape[0]):
                if s != me:
                    got += _pays(hands[s], kalooki, rp)
            return got
        if money:
            return -_pays(hands[me], kalooki, rp)
        pen = 0
        for c in range(N_KINDS):
            pen += hands[me, c] * values[c]
        return -holding_cost(srow, pen)
    _, dead, loose = search_hand(hands[me], prm, mv, ws, rec, YES)
    if money:
        return -loser_pays(loose, 0, False, rp[R_PAY_PER_CARD], rp[R_PAY_PER_JOKER], rp[R_PAY_DOUBLE] != 0)
    return -holding_cost(srow, dead)


@njit(cache=True)
def _rollout_table(xp, n, me):
    """Every seat's rollout kind (the seat's own ``rollout``, the others' ``others``) and parameter row:
    the search's own row, judged as the seat's kind."""
    rkinds = np.full(n, xp[SX_OTHERS], np.int64)
    rkinds[me] = xp[SX_ROLLOUT]
    rbp = np.empty((n, xp.shape[0]), np.int64)
    for s in range(n):
        rbp[s] = xp
        rbp[s, XC.X_KIND] = K_LOOKAHEAD if rkinds[s] == K_LOOKAHEAD else K_EXPERT
    return rkinds, rbp


@njit(cache=True)
def _rollouts(inp, si, n):
    """What the rollouts of one search by the seat ``si`` (a ``SearchInputs``) on a hand of ``n`` seats
    share (a ``Rollout``): the hand's fixed inputs ``inp`` with reshuffle keys of their own, filled by each
    determinization, no seat-keyed draw, and the rollout seats."""
    rkinds, rbp = _rollout_table(si.xp, n, si.me)
    rinp = HD.HandInputs(inp.prm, inp.rp, inp.values, inp.crules, inp.jokers, np.empty(inp.keys.shape[0], np.float64),
                         np.zeros((0, 0, 0), np.float64), np.zeros(n, np.int64))
    seats = TL.Seats(rkinds, ROLLOUT_TABLE, rbp, np.zeros((0, 0), np.float64), np.zeros(n, np.int64),
                     np.zeros(n, np.int64), np.zeros(n, np.float64), si.stakes, False)
    return Rollout(rinp, seats, si.me, si.xp[SX_HORIZON], si.xp[SX_WIN_POINTS], new_workspace())


@njit(cache=True)
def _evaluate(inp, h, pend, si, cand, k, by_src, u):
    """The index of the best of cand.cands[:k] (a ``Candidates``) for the seat ``si`` over the
    determinizations of the hand ``h`` seeded by u: draw sources when by_src (from the start of the seat's
    turn), else discards (from its turn stopped at ASK_DISCARD, h.sc's SC_OWN words), each with its table
    play (cand.plays[i]: the lookahead's in pend.xops/xmrows, nothing, or the cand.anx[j] operations of
    cand.aops[j]/cand.amrows[j], j = plays[i] - PLAY_OPEN)."""
    me, xp, sc = si.me, si.xp, h.sc
    nd, nt = sc[SC_ND], sc[SC_NT]
    deck_size = inp.keys.shape[0]
    d = Deal(_seeded(u), np.zeros(N_KINDS, np.int64), np.empty(deck_size + 8, np.int64), np.empty_like(h.hands),
             np.empty(deck_size + 8, np.int64))
    ro = _rollouts(inp, si, h.hands.shape[0])
    unseen_kernel(h.hands[me], h.tab, nt, h.discard, nd, inp.jokers, d.unseen)
    rkeys = ro.inp.keys
    start = TL.START_DRAW if by_src else TL.START_APPLY
    own_nx = 0 if by_src else sc[SC_NX]
    total = np.zeros(k, np.int64)
    samples = max(xp[SX_SAMPLES], 1)
    no_ids = np.zeros(0, np.int64)
    for _ in range(samples):
        ns = _deal(h, me, d)
        for j in range(deck_size):  # the rollout's reshuffle order, unseen too
            rkeys[j] = (_next(d.rng) >> np.uint64(11)) * UNIT
        dealt = HD.new_hand(d.hands, d.stock[:ns], no_ids, h.discard[:nd], h.tab[:nt], h.opened, h.turns, h.pick,
                            h.discby, me, sc[SC_RESHUFFLES], sc[SC_TURN_NO])
        if not by_src:
            dealt.sc[SC_OWN:] = sc[SC_OWN:]
        for i in range(k):
            fsrc = cand.cands[i] if by_src else TL.NO_FORCE
            fdisc = -1 if by_src else cand.cands[i]
            play = cand.plays[i]
            if play >= PLAY_OPEN:
                j = play - PLAY_OPEN
                px, pm, nx = cand.aops[j], cand.amrows[j], cand.anx[j]
            else:
                px, pm, nx = pend.xops, pend.xmrows, (0 if play == PLAY_HOLD else own_nx)
            total[i] += _rollout(ro, dealt, px, pm, nx, start, fsrc, fdisc)
    best = 0  # the lookahead's choice, unless another beats it by the margin on average
    need = total[0] + xp[SX_MARGIN] * samples
    for i in range(1, k):
        if total[i] > total[best] and total[i] > need:
            best = i
    return best


@njit(cache=True)
def _connects(hand, c, ace_low):
    """Whether the hand holds a natural that could make a meld with the natural c
    (``expert_core.could_partner``: the expert's partial melds)."""
    for x in range(JOKER):
        if hand[x] > 0 and XC.could_partner(c, x, ace_low):
            return True
    return False


@njit(cache=True)
def _partner(c, left, ace_low, gap):
    """A loose natural (left: counts) that makes a pair (same rank) or a two-card run (same suit,
    adjacent ranks; the ace above the king, and below the 2 where ace_low) with the natural c, or with
    ``gap`` also a one-gap run; -1 where none does."""
    r, s = c % 13, c // 13
    for x in range(JOKER):
        if left[x] <= 0 or x == c:
            continue
        rx, sx = x % 13, x // 13
        if rx == r:
            return x
        if sx != s:
            continue
        steps = abs(rx - r)
        if ace_low and (rx == 12 or r == 12):
            steps = min(steps, (r if rx == 12 else rx) + 1)
        if steps == 1 or (gap and steps == 2):
            return x
    return -1


@njit(cache=True)
def search_draw(inp, h, si, stream, pos):
    """The search seat's draw at the start of its turn in the hand ``h`` (``sim.engine.hand.Hand``, read and
    never written; its fixed inputs ``inp``; the seat ``si``, a ``SearchInputs``; its uniforms ``stream``,
    read at ``pos``): (STOCK, DISCARD or OWN_DRAW, the stream's position); OWN_DRAW where the discard is
    not free to take (the lookahead's draw then decides), OUT_OF_STREAM when the stream ran out."""
    me, xp = si.me, si.xp
    prm, rp, values, crules, jokers = inp.prm, inp.rp, inp.values, inp.crules, inp.jokers
    hands, discard, tab, opened, turns, sc = h.hands, h.discard, h.tab, h.opened, h.turns, h.sc
    nd, nt = sc[SC_ND], sc[SC_NT]
    n_stock = sc[SC_NS] - sc[SC_SP]
    if nd == 0 or n_stock == 0:
        return OWN_DRAW, pos
    top = discard[nd - 1]
    was_open = opened[me] != 0
    if not was_open and rp[R_PICKUP_BEFORE_OPENING] == 0:
        return OWN_DRAW, pos
    if taken_obligation(was_open, turns[me], rp) != OB_NONE:
        return OWN_DRAW, pos
    if TU.draw_code(DISCARD, n_stock, nd, was_open, hands[me, top], hand_size(hands[me]), crules) != TU.OK:
        return OWN_DRAW, pos
    if pos >= stream.shape[0]:
        return OUT_OF_STREAM, pos
    cands = np.empty(2, np.int64)
    sx = new_scratch()
    mv, ws, rec = sx.mv, sx.ws, sx.rec
    own = XC.draw_expert(inp, h, me, nd, n_stock, nt, xp, sx, si.stakes[me])
    if own != DISCARD:
        taken = hands[me].copy()
        taken[top] += 1
        # a natural that meets nothing in the hand and, taken, leaves no less deadwood is not searched
        if top != JOKER and not _connects(hands[me], top, prm[P_ACE_LOW] != 0):
            if best_discard_except_kernel(taken, prm, top)[1] >= search_hand(hands[me], prm, mv, ws, rec, YES)[1]:
                return OWN_DRAW, pos
        # nor one its hand would leave loose, nor any where a stock draw could go out
        loose = np.empty(N_KINDS, np.int64)
        left = np.empty(N_KINDS, np.int64)
        XC.loose_candidates(taken, -1, prm, mv, ws, rec, np.empty((MAX_OUT, OUT_W), np.int64), loose, left)
        if left[top] > 0:
            return OWN_DRAW, pos
        if was_open and XC.stock_goes_out(hands[me], tab, nt, discard, nd, jokers, rp, prm, mv, ws, rec):
            return OWN_DRAW, pos
    cands[0] = DISCARD if own == DISCARD else STOCK  # the lookahead's draw first
    cands[1] = STOCK if own == DISCARD else DISCARD
    pend = TL.mid_scratch()  # no play: each candidate's rollout starts at the draw
    cand = Candidates(cands, np.zeros(2, np.int64), pend.xops.reshape((1,) + pend.xops.shape),
                      pend.xmrows.reshape((1,) + pend.xmrows.shape), np.zeros(1, np.int64))
    best = _evaluate(inp, h, pend, si, cand, 2, True, stream[pos])
    return cands[best], pos + 1


@njit(cache=True)
def discard_candidates(inp, h, si, whand, forbid, default, cands):
    """The discards the seat ``si`` searches in the hand ``h`` (module docstring) in cands, from whand (the
    hand left after the table play), never forbid, the lookahead's ``default`` first; returns their number."""
    me, xp, prm = si.me, si.xp, inp.prm
    mv, ws, rec = new_workspace()
    out = np.empty((MAX_OUT, OUT_W), np.int64)
    loose = np.empty(N_KINDS, np.int64)
    left = np.empty(N_KINDS, np.int64)
    nl, _ = XC.loose_candidates(whand, forbid, prm, mv, ws, rec, out, loose, left)
    if nl > 1 and loose[nl - 1] == JOKER:
        nl -= 1
    cands[0] = default
    k = 1
    if nl < 2 or xp[SX_CANDIDATES] < 2:
        return k
    unseen = np.zeros(N_KINDS, np.int64)
    unseen_kernel(h.hands[me], h.tab, h.sc[SC_NT], h.discard, h.sc[SC_ND], inp.jokers, unseen)
    keep = np.empty(N_KINDS, np.int64)
    outs = np.empty(N_KINDS, np.int64)
    near = np.empty(N_KINDS, np.int64)
    XC.keep_points(left, unseen, xp, prm, keep, outs, near)
    taken = np.zeros(N_KINDS, np.bool_)
    taken[default] = True
    ace_low = prm[P_ACE_LOW] != 0
    isolated = -1  # the highest penalty of a loose natural (never the card just taken) that makes no partial meld
    for i in range(nl):
        c = loose[i]
        if c != JOKER and _partner(c, left, ace_low, True) < 0:
            isolated = max(isolated, card_penalty(prm, c))
    while k < xp[SX_CANDIDATES]:
        best = -1
        for i in range(nl):
            c = loose[i]
            if taken[c]:
                continue
            # never a card of a pair or two-card run while an isolated card as dear could go instead
            if c != JOKER and isolated >= card_penalty(prm, c) and _partner(c, left, ace_low, False) >= 0:
                continue
            if best < 0 or XC.ranks_first(keep[c] - card_penalty(prm, c), card_penalty(prm, c), outs[c], near[c], c,
                                     keep[best] - card_penalty(prm, best), card_penalty(prm, best), outs[best], near[best], best):
                best = c
        if best < 0:
            break
        taken[best] = True
        cands[k] = best
        k += 1
    return k


@njit(cache=True)
def _turn(inp, h, me, ops, mrows, nx, disc):
    """The engine's word on the seat's turn stopped at ASK_DISCARD in the hand ``h`` (h.sc's SC_OWN words)
    laying ops[:nx]/mrows[:nx] and throwing ``disc``: (it is taken, it goes out, it goes out in a Kalooki)."""
    mid = h.sc
    wtab = np.full((MAXT, OUT_W), -1, np.int64)
    wh = np.empty(N_KINDS, np.int8)
    tw = TU.scratch(wtab, wh)
    tres = tw.res
    code = TU.apply_turn(h.tab, mid[SC_NT], h.hands[me], ops, mrows, nx, disc, mid[SC_C], mid[SC_SRC],
                         mid[SC_WAS_OPEN] != 0, h.turns[me] == 0, inp.crules, inp.prm, tw)
    ok = code == TU.OK
    return ok, ok and tres[TU.T_GOING_OUT] != 0, ok and tres[TU.T_KALOOKI] != 0


@njit(cache=True)
def _checked_discard(inp, h, si, left, ftab, nf, ops, mrows, nx):
    """The lookahead's discard for the seat ``si`` from ``left``, the hand the play ops[:nx]/mrows[:nx]
    leaves (feeding risks read on the table ftab[:nf] it leaves), or -1 where it finds none or the engine
    refuses the turn."""
    me, mid = si.me, h.sc
    nxt = (me + 1) % h.hands.shape[0]
    forbid = mid[SC_C] if mid[SC_SRC] == DISCARD else -1
    mv, ws, rec = new_workspace()
    unseen = np.zeros(N_KINDS, np.int64)
    unseen_kernel(h.hands[me], h.tab, mid[SC_NT], h.discard, mid[SC_ND], inp.jokers, unseen)
    disc = XC.discard_choice(left.copy(), forbid, ftab, nf, h.pick[nxt], h.discby[nxt], h.opened[nxt] != 0, unseen,
                              si.xp, inp.values, inp.prm, mv, ws, rec, np.empty((MAX_OUT, OUT_W), np.int64),
                              si.stakes[me])
    if disc < 0 or not _turn(inp, h, me, ops, mrows, nx, disc)[0]:
        return -1
    return disc


@njit(cache=True)
def _open_now(inp, h, si, axops, axmrows):
    """Where the lookahead waits though the seat ``si`` could open: greedy's opening in axops/axmrows and
    the lookahead's discard for the hand it leaves, (the discard, the operations' number); (-1, 0) where
    greedy lays nothing or the engine refuses the play."""
    me, mid, tab = si.me, h.sc, h.tab
    nt = mid[SC_NT]
    draft = new_draft(np.empty(N_KINDS, np.int8))
    wtab, ctx, ops, whand = draft
    disc = FG.play_greedy(inp, h, me, nt, mid[SC_C], mid[SC_SRC], new_scratch(), draft, NO)
    if ctx[2] != 0 or ctx[1] == 0:
        return -1, 0
    laid = np.full((MAXT, OUT_W), -1, np.int64)
    nx = TL.as_xops(tab, nt, wtab, ctx[0], ops, ctx[1], laid, axops, axmrows)
    if hand_size(whand) >= 2:  # as the lookahead discards after a patient's play (turn_loop.run_turns)
        disc = _checked_discard(inp, h, si, whand, laid, ctx[0], axops, axmrows, nx)
    elif disc >= 0 and not _turn(inp, h, me, axops, axmrows, nx, disc)[0]:
        disc = -1
    if disc < 0:
        return -1, 0
    return disc, nx


@njit(cache=True)
def _subset(nt, xops, xmrows, nx, keep, out_ops, out_mrows):
    """The operations o of xops[:nx] with keep[o] (and none that builds on a meld left out) in out_ops/
    out_mrows, their targets renumbered for the rows left out; returns their number."""
    rowmap = np.full(MAXT + nx + 1, -1, np.int64)  # a row as the whole play numbers it -> as the part does
    for r in range(nt):
        rowmap[r] = r
    old_n = nt
    new_n = nt
    m = 0
    for o in range(nx):
        kind = xops[o, TU.X_KIND]
        kept = keep[o]
        if kind != TU.X_NEW and rowmap[xops[o, TU.X_TARGET]] < 0:
            kept = False
        if kept:
            out_ops[m] = xops[o]
            out_mrows[m] = xmrows[o]
            if kind != TU.X_NEW:
                out_ops[m, TU.X_TARGET] = rowmap[xops[o, TU.X_TARGET]]
            m += 1
        if kind == TU.X_NEW or kind == TU.X_SPLIT:  # a row added to the table
            rowmap[old_n] = new_n if kept else -1
            old_n += 1
            if kept:
                new_n += 1
    return m


@njit(cache=True)
def _partial_discard(inp, h, si, pops, pmrows, pn):
    """The seat ``si``'s discard for the partial play pops[:pn]/pmrows[:pn]: the lookahead's rule on the
    hand it leaves (feeding risks read on the table with its new melds laid); -1 where the engine refuses
    the play."""
    me, mid, tab = si.me, h.sc, h.tab
    nt = mid[SC_NT]
    wtab = np.full((MAXT, OUT_W), -1, np.int64)
    wh = np.empty(N_KINDS, np.int8)
    tw = TU.scratch(wtab, wh)
    if TU.apply_turn(tab, nt, h.hands[me], pops, pmrows, pn, -1, mid[SC_C], mid[SC_SRC], mid[SC_WAS_OPEN] != 0,
                     h.turns[me] == 0, inp.crules, inp.prm, tw) != TU.U_NO_DISCARD or hand_size(wh) < 2:
        return -1
    ftab = np.full((MAXT, OUT_W), -1, np.int64)
    ftab[:nt] = tab[:nt]
    nf = nt
    for o in range(pn):
        if pops[o, TU.X_KIND] == TU.X_NEW:
            ftab[nf] = pmrows[o]
            nf += 1
    return _checked_discard(inp, h, si, wh, ftab, nf, pops, pmrows, pn)


@njit(cache=True)
def _least_opening(inp, h, me, xops, xmrows, pops, pmrows):
    """The fewest of the lookahead's new melds (most points among as few) that reach the opening minimum
    on their own, with its joker takes, in pops/pmrows; returns their operations' number, 0 where no
    smaller set than the whole opens (or the play has more than MAX_LEAST_MELDS melds)."""
    mid, tab, hands, prm, crules = h.sc, h.tab, h.hands, inp.prm, inp.crules
    nt = mid[SC_NT]
    nx = mid[SC_NX]
    melds = np.empty(nx, np.int64)
    m = 0
    for o in range(nx):
        if xops[o, TU.X_KIND] == TU.X_NEW:
            melds[m] = o
            m += 1
    if m < 2 or m > MAX_LEAST_MELDS:
        return 0
    keep = np.zeros(nx, np.bool_)
    wtab = np.full((MAXT, OUT_W), -1, np.int64)
    wh = np.empty(N_KINDS, np.int8)
    tw = TU.scratch(wtab, wh)
    tres = tw.res
    best_mask, best_size, best_value = -1, m, -1
    for mask in range(1, (1 << m) - 1):
        size = 0
        for b in range(m):
            if (mask >> b) & 1:
                size += 1
        if size > best_size:
            continue
        for o in range(nx):  # joker takes and swaps are kept: a freed joker is laid again in a kept meld
            kind = xops[o, TU.X_KIND]
            keep[o] = kind == TU.X_TAKE or kind == TU.X_SWAP
        for b in range(m):
            if (mask >> b) & 1:
                keep[melds[b]] = True
        pn = _subset(nt, xops, xmrows, nx, keep, pops, pmrows)
        if TU.apply_turn(tab, nt, hands[me], pops, pmrows, pn, -1, mid[SC_C], mid[SC_SRC], False, False, crules, prm,
                         tw) != TU.U_NO_DISCARD:
            continue
        value = tres[TU.T_NEW_VALUE]
        if value < crules[core.R_OPENING_MIN]:
            continue
        if size < best_size or value > best_value:
            best_mask, best_size, best_value = mask, size, value
    if best_mask < 0:
        return 0
    for o in range(nx):
        kind = xops[o, TU.X_KIND]
        keep[o] = kind == TU.X_TAKE or kind == TU.X_SWAP
    for b in range(m):
        if (best_mask >> b) & 1:
            keep[melds[b]] = True
    return _subset(nt, xops, xmrows, nx, keep, pops, pmrows)


@njit(cache=True)
def _melds_only(h, xops, xmrows, pops, pmrows):
    """The lookahead's play without its lay-offs and splits onto melds already on the table (its new
    melds, what they grow by this turn and its joker takes kept) in pops/pmrows; returns its operations'
    number, 0 where that lays no meld or all of the play."""
    nt = h.sc[SC_NT]
    nx = h.sc[SC_NX]
    keep = np.zeros(nx, np.bool_)
    melds = 0
    dropped = False
    for o in range(nx):
        kind = xops[o, TU.X_KIND]
        onto_old = (kind == TU.X_LAYOFF or kind == TU.X_SPLIT) and xops[o, TU.X_TARGET] < nt
        keep[o] = not onto_old
        dropped = dropped or onto_old
        if kind == TU.X_NEW:
            melds += 1
    if melds == 0 or not dropped:
        return 0
    return _subset(nt, xops, xmrows, nx, keep, pops, pmrows)


@njit(cache=True)
def play_candidates(inp, h, pend, si, cand):
    """The table plays and discards the seat ``si`` searches in the hand ``h``, its turn stopped at
    ASK_DISCARD (h.sc's SC_OWN words; the lookahead's play in pend.xops/xmrows, pend.whand the hand it
    leaves; module docstring): discards in cand.cands, their plays in cand.plays (PLAY_*; an opening's or
    a partial play's operations in cand.aops/amrows/anx, slot PLAY_* - PLAY_OPEN); returns their number,
    the lookahead's own first."""
    me, xp, mid = si.me, si.xp, h.sc
    hands, xops, xmrows = h.hands, pend.xops, pend.xmrows
    cands, plays, aops, amrows, anx = cand
    default = mid[SC_DISC]
    if mid[SC_CHOSE] != 0:
        forbid = mid[SC_C] if mid[SC_SRC] == DISCARD else -1
        k = discard_candidates(inp, h, si, pend.whand, forbid, default, cands)
    else:
        cands[0] = default
        k = 1
    plays[:] = PLAY_OWN
    anx[:] = 0
    if mid[SC_NX] > 0 and (xp[SX_HOLD] != 0 or xp[SX_PARTIAL] != 0):
        _, out, kalooki = _turn(inp, h, me, xops, xmrows, mid[SC_NX], default)
        # holding against going out only where a Kalooki held for pays more (the module docstring)
        if xp[SX_HOLD] != 0 and not (out and (mid[SC_WAS_OPEN] != 0 or kalooki or inp.rp[R_KALOOKI_PAYS_MORE] == 0)):
            hd = _checked_discard(inp, h, si, hands[me], h.tab, mid[SC_NT], xops, xmrows, 0)
            # never held: a play whose holding would leave the hand nothing but jokers (they are laid first)
            if hd >= 0 and hands[me, JOKER] < hand_size(hands[me]) - 1:
                cands[k] = hd
                plays[k] = PLAY_HOLD
                k += 1
        if xp[SX_PARTIAL] != 0 and not out:
            for play in (PLAY_MELDS, PLAY_LEAST):
                j = play - PLAY_OPEN
                if play == PLAY_MELDS:
                    pn = _melds_only(h, xops, xmrows, aops[j], amrows[j])
                elif mid[SC_WAS_OPEN] == 0:
                    pn = _least_opening(inp, h, me, xops, xmrows, aops[j], amrows[j])
                else:
                    pn = 0
                if pn == 0:
                    continue
                pd = _partial_discard(inp, h, si, aops[j], amrows[j], pn)
                if pd >= 0:
                    cands[k] = pd
                    plays[k] = play
                    anx[j] = pn
                    k += 1
    elif xp[SX_HOLD] != 0 and mid[SC_WAS_OPEN] == 0:
        od, anx[0] = _open_now(inp, h, si, aops[0], amrows[0])
        if od >= 0:
            cands[k] = od
            plays[k] = PLAY_OPEN
            k += 1
    return k


@njit(cache=True)
def search_play(inp, h, pend, si, stream, pos):
    """The search seat's table play and discard in the hand ``h`` (``sim.engine.hand.Hand``, read and
    never written; its fixed inputs ``inp``; the seat ``si``, a ``SearchInputs``; its uniforms ``stream``,
    read at ``pos``), its draw made and its turn stopped at ASK_DISCARD (h.sc's SC_OWN words: run_turns';
    ``pend``, a ``turn_loop.Pending``: the lookahead's play in pend.xops/xmrows, pend.whand the hand it
    leaves): (the discard, the play (PLAY_*), its operations' number, the stream's position), an opening
    or partial play chosen written over pend.xops/xmrows; OUT_OF_STREAM when the stream ran out."""
    mid, xops, xmrows = h.sc, pend.xops, pend.xmrows
    default = mid[SC_DISC]
    cand = Candidates(np.empty(N_KINDS + 4, np.int64), np.zeros(N_KINDS + 4, np.int64),
                      np.full((ALT_SLOTS,) + xops.shape, -1, np.int64), np.full((ALT_SLOTS,) + xmrows.shape, -1, np.int64),
                      np.zeros(ALT_SLOTS, np.int64))
    k = play_candidates(inp, h, pend, si, cand)
    if k < 2:
        return default, PLAY_OWN, mid[SC_NX], pos
    if pos >= stream.shape[0]:
        return OUT_OF_STREAM, PLAY_OWN, mid[SC_NX], pos
    best = _evaluate(inp, h, pend, si, cand, k, False, stream[pos])
    play = cand.plays[best]
    if play >= PLAY_OPEN:
        j = play - PLAY_OPEN
        n = cand.anx[j]
        xops[:n] = cand.aops[j, :n]
        xmrows[:n] = cand.amrows[j, :n]
        return cand.cands[best], play, n, pos + 1
    return cand.cands[best], play, (0 if play == PLAY_HOLD else mid[SC_NX]), pos + 1


# ---------------------------------------------------------------------------------------------
# Python entry
# ---------------------------------------------------------------------------------------------

def bot_params(bot) -> np.ndarray:
    """A search bot's parameters as the compiled decisions read them (SX_*)."""
    return np.array([getattr(bot, name, 0) for name in SX_NAMES], dtype=np.int64)


def seen(state):
    """``state`` as the compiled search reads it, at the turn of the seat to play, as the compiled hand loop
    hands it over: (its fixed inputs, the state's ``HandInputs``; a copy of its compiled hand, a ``Hand``,
    its SC_OWN words zero, for the caller to write the turn's words into).  The search reads of the stock
    only its size, of the other hands only their sizes, and no seat-keyed draw (its rollouts draw from the
    top of stocks of their own)."""
    h = HD.copy_hand(state.h)
    h.sc[SC_OWN:] = 0
    return state.inp, h


def decide_draw(state, me: int, xp: np.ndarray, stream: np.ndarray, pos: int) -> tuple[int, int]:
    """(STOCK, DISCARD or OWN_DRAW, the stream's position after it): ``search_draw`` on ``state``."""
    inp, h = seen(state)
    src, pos = search_draw(inp, h, SearchInputs(me, xp, stakes_matrix(state)), stream, pos)
    return int(src), int(pos)


def decide_play(state, me: int, ops, hand, default: int, chose: bool, xp: np.ndarray, stream: np.ndarray,
                pos: int) -> tuple[int, list, int]:
    """(the discard, the table play (engine operations), the stream's position after it): ``search_play``
    for the play ``ops`` (engine operations) that leaves ``hand``, whose bot would discard ``default``
    (``chose``: choosing it among loose cards)."""
    from ..engine.table import decode, encode
    inp, h = seen(state)
    pend = TL.mid_scratch()
    rows, mrows = encode(ops)
    pend.xops[:len(rows)] = rows
    pend.xmrows[:len(rows), :mrows.shape[1]] = mrows
    pend.whand[:] = hand
    mid = h.sc
    mid[SC_C] = state.drawn_card
    mid[SC_SRC] = DISCARD if state.drawn_from == DISCARD else STOCK
    mid[SC_WAS_OPEN] = int(bool(state.opened[me]))
    mid[SC_NX] = len(rows)
    mid[SC_DISC] = default
    mid[SC_CHOSE] = int(chose)
    disc, play, nx, pos = search_play(inp, h, pend, SearchInputs(me, xp, stakes_matrix(state)), stream, pos)
    if play >= PLAY_OPEN:
        return int(disc), decode(pend.xops[:nx], pend.xmrows[:nx]), int(pos)
    return int(disc), ([] if play == PLAY_HOLD else list(ops)), int(pos)


import sys  # noqa: E402

from .. import meldsearch as _MS  # noqa: E402
from ..engine import hand as _HD  # noqa: E402
from ..jit.cache import drop_stale  # noqa: E402
from . import outlook as _outlook  # noqa: E402

drop_stale(_next, (FG, XC, TL, core, TU, _MS, _HD, _outlook, kinds, sys.modules[loser_pays.py_func.__module__]))
