"""The expert's and the lookahead's draw and discard choice, compiled, written once.

``ExpertBot`` and ``LookaheadBot`` (sim/bots/expert.py, lookahead.py) call the Python wrappers at the
bottom (``decide_draw``, ``choose_discard``, ``feed_risks``, ``discard_candidates``); a compiled hand
loop calls the numba functions directly:

- ``draw_expert(inp, h, me, nd, n_stock, nt, xp, sx, srow)`` (the engine's compiled ``Hand`` and its
  ``HandInputs``, the working arrays in a ``kernels.plays.Scratch``): ``STOCK``, ``DISCARD`` or
  ``ASK_TABLE_OPENING``, which means "ask ``bots.moves.table_opening`` whether the discard opens with
  the table's help" (only where the profile lets the table help an opening: the rules word
  ``greedy_core.R_TABLE_OPENING``); the arguments are those of ``greedy_core.patient_draw``, with
  ``xp`` (``X_*`` words) for ``bp`` and the seat's row of stakes ``srow``;
- ``discard_choice(hand, forbid, tab, nt, pick, disc, nxt_opened, unseen, xp, values, prm, mv, ws, rec,
  out, srow)``: the card to discard from ``hand`` (int8 counts, after the turn's operations; never a copy of
  ``forbid`` while another card is loose), where ``tab[:nt]`` is the table as it stands after those
  operations, ``pick`` and ``disc`` count the cards the next player took from and threw to the discard
  pile this hand (int64, 53), ``nxt_opened`` whether that player has opened, and ``unseen`` the copies
  of each card the player cannot see (``outlook.unseen_kernel`` over the hand and table at the start of
  the play and the discard pile: the stock and the other hands).

``xp`` is the bot's parameter row: the patient's ``B_*`` words first (``greedy_core.B_W``), then
``X_KIND`` (the kind whose judgement it uses, ``sim.bots.kinds``: ``K_EXPERT`` or ``K_LOOKAHEAD``),
``X_DRAW_GAIN``, ``X_FEED_WEIGHT``, ``X_OUT_BONUS``,
``X_TAKE_MARGIN``, ``X_MAX_HARVESTS``, ``X_PARTIAL_WEIGHT``, ``X_OUT_WORTH`` and ``X_DRAW_OUT``.  ``srow`` is the seat's row of stakes
(``outlook.stakes_ints`` of ``sim.game.hand_stakes``: whole points-equivalents).

**The stakes.**  Every deadwood the expert and the lookahead weigh is weighed by what it costs on
the score sheet, ``outlook.holding_cost(srow, d)`` (minus the row's curve at d), and going out by the row's
``ST_WIN``; on the neutral row (a hand without a game, a profile without a table) the cost of d
points is d and a go-out is worth nothing more than the points it saves, so play is the hand's.
Near elimination, points above the cliff cost far more: the discard sheds them before keeping a
partial meld, the draw prizes the points a discard saves, and the patient's ``max_risk`` (while it
holds its opening for a Kalooki) is read through the curve too (``risk_limit``: the most deadwood
whose cost is within ``max_risk``), so it opens sooner.  What a card is kept for (``partial_weight`` per live card
completing its partial meld, ``feed_weight`` per unit of feeding risk) is kept for the hand's end, the
player's own go-out or the next player's: those points weigh as much as ending the hand is at stake,
the row's go-out less its curve at the hand's deadwood (``ST_WIN + holding_cost(srow, d)``), against
``out_worth + d`` (a sheet where a go-out is worth ``out_worth`` points-equivalents beyond the points it
saves, the weights' own), within a half and twice (``_at_stake``).  So where going out is worth more
(kalooki40's table: an opponent one hand from elimination, no buy-ins left) it keeps its chances and
its safe discards longer, and where it is worth less it sheds points.  A row whose go-out is worth no
more than the points it saves (the neutral row) leaves both as they are.  Where the row values a go-out more,
the lookahead's ``out_bonus`` grows by it.  The draw looks one
draw ahead on both sides (the discard taken, or a stock card), so a stock card that goes out counts
as leaving no deadwood (``holding_cost(srow, 0)``) and, beyond that, ``draw_out`` percent of what the
row says going out is worth more (``ST_WIN + holding_cost(srow, 0)``; ``draw_out`` is 100 for the
expert as shipped, 0 for the lookahead and the search: configs/bots.toml says why); the discard's own
chances of going out a turn later are not counted.

**The draw.**  A discard the player is free to take is taken when the deadwood left after taking it
and throwing the card its discard choice would throw (the choice below, feeding risk aside: so not a
card of a pair or near-run it means to keep) is at least the margin (the expert's ``draw_gain``, the
lookahead's ``take_margin``) below the least deadwood a stock draw is expected to leave: the exact
expectation over the unseen cards (``outlook.outlook_kernel``), where an opened player's draws that
go out (with melds and lay-offs onto the table: ``kernels.goout.go_out``, ``go_out_building``) count
as leaving no deadwood, not as the deadwood they would leave, less their ``draw_out`` share of the
go-out's worth; a discard that goes out at once is always taken.  Two bounds spare most of those
searches: no draw leaves more deadwood than the hand holds now (the drawn card can be thrown back),
nor more than the hand with the drawn card kept loose and its dearest loose card thrown; a discard
that does not beat the second by the margin is refused at once.  A discard the rules oblige the
player to open or to meld with is taken only when it can.

**The discard.**  The candidates are the loose cards of a least-deadwood partition (every card if none
is loose), a joker only when no other card is one.  Each is scored, in deadwood points, by what holding the rest is worth: the expert by the
deadwood left after discarding it (the hand's less the card's penalty, for a loose card), the
lookahead by its one-draw outlook (the expected least deadwood after the next draw, less
``out_bonus`` times the chance of melding all but one card); to either is added what the card is
kept for (read through the stakes, ``_at_stake``): ``feed_weight`` points per unit of its feeding risk and ``partial_weight`` points per live card that would complete a partial meld it makes with another
loose card (a pair of one rank in two suits, a two-card run, a one-gap run; live: a copy the player
cannot see).  So an isolated card goes before a card of a pair or near-run of the same penalty, and a
partial meld with more live cards to complete it is broken later.  The least score is thrown; ties go
to the higher penalty, then to the card with fewer live cards completing its partial melds, then to the
card with fewer live neighbours (its rank in other suits, its suit within two ranks: its chances of
making a partial meld later), and between cards alike in all of these (the two cards of a pair with
equally live neighbours) to the higher card id.

The feeding risk reads the next player's pickups and discards as counts: each pickup adds to the cards
near it, and each discard of a card takes one off that card's risk, never below zero; since the
discards are applied after every pickup and each touches only its own card, the order of either list
does not matter.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .. import meldsearch as MS
from ..cards import JOKER, N_KINDS, N_RANKS
from ..equity import ST_CURVE, ST_WIN, ST_XMAX
from ..engine import core
from ..engine.core import R_PICKUP_BEFORE_OPENING
from ..engine.hand import SC_ND, SC_NS, SC_NT, SC_SP
from ..engine.table import table_rows
from ..engine.turn import OB_MELD, OB_OPEN
from ..meldsearch import (MAX_OUT, OUT_W, P_OPENING_MIN, deadwood_after, reconstruct, new_workspace,
                         best_discard_except_kernel)
from ..jit.cache import drop_stale
from . import greedy_core as FG
from . import kinds
from . import outlook
from .kinds import K_LOOKAHEAD
from .greedy_core import B_MAX_RISK, B_NAMES, B_W, R_TABLE_OPENING, patient_draw, waits_for_kalooki
from .kernels.discards import loose_discard
from .kernels.goout import go_out, go_out_building, layable_bound, stray_cards
from .kernels.hands import NO, YES, copies_on_rows, hand_size, leaves_a_discard, search_hand
from .kernels.layoffs import meld_taken_card
from .kernels.plays import DISCARD, MAXOPS, NO_TABLE, OP_W, STOCK, new_scratch, taken_obligation
from .outlook import NEUTRAL, best_discard_deadwood, holding_cost, card_penalty, outlook_kernel, stakes_matrix, unseen_kernel

ASK_TABLE_OPENING = -2  # the draw's answer where only bots.moves.table_opening can tell

X_KIND = B_W  # sim.bots.kinds: K_LOOKAHEAD judges as the lookahead, any other kind as the expert
X_DRAW_GAIN = B_W + 1
X_FEED_WEIGHT = B_W + 2
X_OUT_BONUS = B_W + 3
X_TAKE_MARGIN = B_W + 4
X_MAX_HARVESTS = B_W + 5  # read by the table play (sim/bots/table_play.py)
X_PARTIAL_WEIGHT = B_W + 6
X_OUT_WORTH = B_W + 7
X_DRAW_OUT = B_W + 8
X_W = B_W + 9
X_NAMES = B_NAMES + ("core_kind", "draw_gain", "feed_weight", "out_bonus", "take_margin", "max_harvests",
                     "partial_weight", "out_worth", "draw_out")

RUN, GROUP = 0, 1  # sim.melds
ACE, ACE_HIGH_EXT = 12, 13
CARDS, REPS = 3, 17  # meld row words (sim.engine.core)
JOKER_RISK = 10  # a joker is never safe to hand over


@njit(cache=True)
def _feed_risks(tab, nt, pick, disc, nxt_opened, risk):
    """risk[c] = the risk of feeding the next player with card c: one for each card they took from the
    discard pile of its rank, one for each of its suit within two ranks, less one for each copy of c
    they threw away (never below zero); two more where it extends a table meld and they have opened."""
    for c in range(N_KINDS):
        risk[c] = 0
    risk[JOKER] = JOKER_RISK
    for q in range(JOKER):
        k = pick[q]
        if k <= 0:
            continue
        qr = q % N_RANKS
        qs = q // N_RANKS
        for s in range(4):
            risk[s * N_RANKS + qr] += k
        for r in range(max(qr - 2, 0), min(qr + 2, N_RANKS - 1) + 1):
            risk[qs * N_RANKS + r] += k
    for q in range(JOKER):
        if disc[q] > 0:
            risk[q] = max(risk[q] - disc[q], 0)
    if nxt_opened:
        for i in range(nt):
            kind = tab[i, 0]
            low = tab[i, 1]
            n = tab[i, 2]
            if kind == RUN:
                suit = tab[i, REPS] // N_RANKS
                for e in (low - 1, low + n):
                    if 0 <= e <= ACE_HIGH_EXT:
                        rank = ACE if (e == 0 or e == ACE_HIGH_EXT) else e - 1
                        risk[suit * N_RANKS + rank] += 2
            elif kind == GROUP and low >= 0 and n < 4:
                present = 0
                for k in range(n):
                    present |= 1 << (tab[i, REPS + k] // N_RANKS)
                for s in range(4):
                    if (present >> s) & 1 == 0:
                        risk[s * N_RANKS + low] += 2


@njit(cache=True)
def loose_candidates(hand, forbid, prm, mv, ws, rec, out, cands, left):
    """The loose cards of a least-deadwood partition of hand (every card held if none is loose),
    ascending, never forbid, into cands; left = the loose cards' counts (all zero if none is loose).
    Returns (how many candidates, the hand's least deadwood)."""
    _, dead, _ = search_hand(hand, prm, mv, ws, rec, YES)
    nr = reconstruct(hand, prm, rec, np.int64(1), out)
    for c in range(N_KINDS):
        left[c] = hand[c]
    for r in range(nr):
        for k in range(out[r, 2]):
            left[out[r, CARDS + k]] -= 1
    any_loose = False
    for c in range(N_KINDS):
        if left[c] > 0:
            any_loose = True
    n = 0
    for c in range(N_KINDS):
        if (left[c] > 0 if any_loose else hand[c] > 0) and c != forbid:
            cands[n] = c
            n += 1
    return n, dead


@njit(cache=True)
def _run_ends(suit, ea, eb, ace_low, mark):
    """Mark the cards that make a run of three with two cards of one suit at extended ranks ea, eb
    (0: the ace low, 1..12: 2..K, 13: the ace high): the two ends of a two-card run, the middle of a
    one-gap run.  K-A-2 is never a run."""
    lo = min(ea, eb)
    hi = max(ea, eb)
    if hi - lo == 1:
        ends = (lo - 1, hi + 1)
    elif hi - lo == 2:
        ends = (lo + 1, -1)
    else:
        return
    for e in ends:
        if (e >= 1 or (e == 0 and ace_low)) and e <= ACE_HIGH_EXT:
            mark[suit * N_RANKS + (ACE if (e == 0 or e == ACE_HIGH_EXT) else e - 1)] = True


@njit(cache=True)
def _partials(left, live, prm, outs, near):
    """For each natural c loose in left (counts): outs[c] = the live copies (live[x]) of the cards x
    that make a meld with c and one other loose natural (a pair's two missing suits, a two-card run's
    two ends, a one-gap run's middle card), each such card counted once; a joker completes any of
    them alike and is not counted.  near[c] = the live copies of the cards that could ever make a
    partial meld with c: its rank in the other suits, its suit within two ranks."""
    ace_low = prm[MS.P_ACE_LOW] != 0
    mark = np.zeros(N_KINDS, np.bool_)
    for c in range(N_KINDS):
        outs[c] = 0
        near[c] = 0
    for c in range(JOKER):
        if left[c] <= 0:
            continue
        r = c % N_RANKS
        s = c // N_RANKS
        mark[:] = False
        for y in range(JOKER):
            if left[y] <= 0 or y == c:
                continue
            ry = y % N_RANKS
            sy = y // N_RANKS
            if ry == r:
                for t in range(4):
                    if t != s and t != sy:
                        mark[t * N_RANKS + r] = True
            elif sy == s:
                low_a = 0 if (r == ACE and ace_low) else -1  # the ace's place below the 2
                low_b = 0 if (ry == ACE and ace_low) else -1
                for ea in (r + 1, low_a):
                    for eb in (ry + 1, low_b):
                        if ea >= 0 and eb >= 0:
                            _run_ends(s, ea, eb, ace_low, mark)
        k = 0
        for x in range(JOKER):
            if mark[x]:
                k += live[x]
        outs[c] = k
        k = 0
        for x in range(JOKER):
            if could_partner(c, x, ace_low):
                k += live[x]
        near[c] = k


@njit(cache=True)
def could_partner(c, x, ace_low):
    """Whether the naturals c and x could make a partial meld together: x is c's rank in another suit,
    or c's suit within two ranks (the ace also below the 2 where ``ace_low``: the profile's runs)."""
    r, s = c % N_RANKS, c // N_RANKS
    rx, sx = x % N_RANKS, x // N_RANKS
    if rx == r:
        return sx != s
    if sx != s:
        return False
    gap = abs(rx - r)
    if ace_low and (rx == ACE or r == ACE):
        gap = min(gap, (r if rx == ACE else rx) + 1)
    return gap <= 2


@njit(cache=True)
def keep_points(left, unseen, xp, prm, keep, outs, near):
    """keep[c] = the points card c is kept for apart from its feeding risk: ``partial_weight`` per
    unseen card completing a partial meld of it (``_partials`` over the loose cards ``left``, which
    also fills outs and near)."""
    _partials(left, unseen, prm, outs, near)
    for c in range(N_KINDS):
        keep[c] = xp[X_PARTIAL_WEIGHT] * outs[c]


@njit(cache=True)
def _at_stake(srow, dead, out_worth):
    """(num, den): the factor num/den by which the points a card is kept for (a partial meld's live cards,
    the feeding risk) are read through the stakes while the hand holds ``dead`` points.  Both are kept for
    the hand's ending: a partial meld for the player's own go-out, a safe discard against the next
    player's.  So they weigh as what ending the hand is at stake on the sheet, the row's go-out less its
    curve at ``dead`` (``ST_WIN + holding_cost``), against that of a sheet where a go-out is worth ``out_worth``
    points-equivalents beyond the points it saves (``out_worth + dead``, the sheet the weights are tuned
    on), within a half and twice.  A row whose go-out is worth nothing beyond the points it saves (the
    neutral row, a hand without a game) leaves them as they are: (1, 1)."""
    if srow[ST_WIN] <= srow[ST_CURVE] or out_worth <= 0:
        return 1, 1
    d = min(max(dead, 0), ST_XMAX)
    den = out_worth + d
    num = min(max(srow[ST_WIN] + holding_cost(srow, d), (den + 1) // 2), 2 * den)
    return num, den


@njit(cache=True)
def ranks_first(s, p, o, nb, c, bs, bp, bo, bnb, bc):
    """Whether candidate c (score s, penalty p, partial outs o, live neighbours nb) goes before the
    best so far (bc, -1: none): the lower score, then the higher penalty, then the fewer outs, then
    the fewer live neighbours, then the higher card id."""
    if bc < 0 or s != bs:
        return bc < 0 or s < bs
    if p != bp:
        return p > bp
    if o != bo:
        return o < bo
    if nb != bnb:
        return nb < bnb
    return c > bc


@njit(cache=True)
def discard_choice(hand, forbid, tab, nt, pick, disc, nxt_opened, unseen, xp, values, prm, mv, ws, rec, out, srow):
    """The card the expert (or the lookahead, by xp[X_KIND]) discards: see the module docstring."""
    cands = np.empty(N_KINDS, np.int64)
    left = np.empty(N_KINDS, np.int64)
    n, dead = loose_candidates(hand, forbid, prm, mv, ws, rec, out, cands, left)
    if n == 0:
        return loose_discard(hand, values, forbid, hand.astype(np.int64))
    if n > 1 and cands[n - 1] == JOKER:  # a joker goes only when nothing else can (candidates ascend)
        n -= 1
    if n == 1:
        return cands[0]
    risk = np.empty(N_KINDS, np.int64)
    _feed_risks(tab, nt, pick, disc, nxt_opened, risk)
    keep = np.empty(N_KINDS, np.int64)  # points held against discarding each card
    outs = np.empty(N_KINDS, np.int64)
    near = np.empty(N_KINDS, np.int64)
    keep_points(left, unseen, xp, prm, keep, outs, near)
    num, den = _at_stake(srow, dead, xp[X_OUT_WORTH])  # both read through the stakes
    for c in range(N_KINDS):
        keep[c] = (keep[c] + xp[X_FEED_WEIGHT] * risk[c]) * num // den
    score = np.empty(n, np.int64)
    if xp[X_KIND] != K_LOOKAHEAD:
        if left[cands[0]] > 0:  # a loose card leaves the deadwood less its own penalty, no search needed
            for i in range(n):
                score[i] = holding_cost(srow, dead - card_penalty(prm, cands[i])) + keep[cands[i]]
        else:
            after = deadwood_after(hand, prm, cands[:n])
            for i in range(n):
                score[i] = holding_cost(srow, after[i]) + keep[cands[i]]
    else:
        weight = 0
        for c in range(N_KINDS):
            weight += unseen[c]
        ahead = np.zeros((n, 2), np.int64)
        if weight > 0:
            outlook_kernel(hand, prm, cands[:n], unseen, ahead, srow)
        scale = max(weight, 1)  # scores in 1/weight points: the expectations exactly, as integers
        bonus = max(xp[X_OUT_BONUS] + srow[ST_WIN], 0)  # a go-out within one draw, worth more where the row says
        for i in range(n):
            score[i] = ahead[i, 0] - bonus * ahead[i, 1] + scale * keep[cands[i]]
    best = -1
    bi = 0
    for i in range(n):
        c = cands[i]
        b = cands[bi]
        if ranks_first(score[i], card_penalty(prm, c), outs[c], near[c], c, score[bi], card_penalty(prm, b), outs[b], near[b], best):
            best = c
            bi = i
    return best


@njit(cache=True)
def draw_expert(inp, h, me, nd, n_stock, nt, xp, sx, srow):
    """ExpertBot.draw: before opening, where the discard obliges it to open, take it only when it opens
    with it (keeping a card to discard), or ask table_opening; a patient wait keeps the patient's draw;
    a taken card that must be melded at once, take it when it melds; a free discard, take it when the
    deadwood after the discard it would then make is the margin (``draw_gain``, the lookahead's
    ``take_margin``) below the deadwood a stock draw is expected to leave (the module docstring).
    The arguments are ``greedy_core.patient_draw``'s, with ``xp`` (``X_*`` words) for ``bp`` and the
    seat's row of stakes ``srow``."""
    jokers, values, rp, prm = inp.jokers, inp.values, inp.rp, inp.prm
    hands, opened, turns, discard, tab = h.hands, h.opened, h.turns, h.discard, h.tab
    mv, ws, rec, hh, hh2, outv, outd, lops, lctx, tab1 = (sx.mv, sx.ws, sx.rec, sx.hh, sx.hh2, sx.outv, sx.outd,
                                                           sx.lops, sx.lctx, sx.tab1)
    if nd == 0:
        return STOCK
    if not opened[me] and rp[R_PICKUP_BEFORE_OPENING] == 0:
        return STOCK
    top = discard[nd - 1]
    hand = hands[me]
    if hand[top] == hand_size(hand):  # HandState._draw_problem: nothing else held to discard
        return STOCK
    bp = xp[:B_W].copy()
    bp[B_MAX_RISK] = risk_limit(xp[B_MAX_RISK], srow)
    ob = taken_obligation(opened[me] != 0, turns[me], rp)
    hh2[:] = hand
    hh2[top] += 1
    if ob == OB_OPEN:
        if waits_for_kalooki(me, hand, hands, opened, n_stock, rp, bp, prm, mv, ws, rec):
            return STOCK
        v, _, _ = search_hand(hh2, prm, mv, ws, rec, YES)
        if v >= prm[P_OPENING_MIN]:
            nr = reconstruct(hh2, prm, rec, np.int64(0), outv)
            if copies_on_rows(outv, nr, top) > 0 and leaves_a_discard(hh2, outv, nr, top, np.int64(1), hh):
                return DISCARD
            return STOCK
        return ASK_TABLE_OPENING if rp[R_TABLE_OPENING] != 0 else STOCK
    if not opened[me] and waits_for_kalooki(me, hand, hands, opened, n_stock, rp, bp, prm, mv, ws, rec):
        return patient_draw(inp, h, me, nd, n_stock, nt, bp, sx)
    if ob == OB_MELD:
        kind, _, _ = meld_taken_card(hh2, top, tab, nt, values, rp, prm, mv, ws, rec, hh, outd, lops, lctx, tab1)
        return DISCARD if kind != 0 else STOCK
    hs = np.empty(N_KINDS, np.int8)
    if opened[me] != 0 and _goes_out(hh2, top, tab, nt, rp, prm, mv, ws, rec, outd, lops, hs):
        return DISCARD  # it goes out with it this turn
    unseen = np.empty(N_KINDS, np.int64)
    unseen_kernel(hand, tab, nt, discard, nd, jokers, unseen)
    # the deadwood left after taking it and throwing the card the discard choice would throw (its
    # feeding risk aside): a loose card that is no partial meld's before one that is
    cands = np.empty(N_KINDS, np.int64)
    left = np.empty(N_KINDS, np.int64)
    n, dead = loose_candidates(hh2, top, prm, mv, ws, rec, outd, cands, left)
    if n > 1 and cands[n - 1] == JOKER:
        n -= 1
    if n > 0 and left[cands[0]] > 0:
        keep = np.empty(N_KINDS, np.int64)
        outs = np.empty(N_KINDS, np.int64)
        near = np.empty(N_KINDS, np.int64)
        keep_points(left, unseen, xp, prm, keep, outs, near)
        num, den = _at_stake(srow, dead, xp[X_OUT_WORTH])
        for c in range(N_KINDS):
            keep[c] = keep[c] * num // den
        best = -1
        bi = 0
        for i in range(n):
            c = cands[i]
            b = cands[bi]
            if ranks_first(keep[c] - card_penalty(prm, c), card_penalty(prm, c), outs[c], near[c], c, keep[b] - card_penalty(prm, b),
                      card_penalty(prm, b), outs[b], near[b], best):
                best = c
                bi = i
        after = dead - card_penalty(prm, best)
    else:
        after = best_discard_except_kernel(hh2, prm, top)[1]
    margin = xp[X_TAKE_MARGIN] if xp[X_KIND] == K_LOOKAHEAD else xp[X_DRAW_GAIN]
    _, before, _ = search_hand(hand, prm, mv, ws, rec, YES)
    taken = holding_cost(srow, after)
    if taken > holding_cost(srow, before) - margin:  # no stock draw leaves more than the hand's deadwood
        return STOCK
    weight = 0
    for c in range(N_KINDS):
        weight += unseen[c]
    if weight == 0:
        return DISCARD
    # A bound on the expectation without a search per draw: after drawing x the hand may keep x loose
    # and throw its dearest loose card (penalty top_loose) or x itself.
    nr = reconstruct(hand, prm, rec, np.int64(1), outv)
    hh[:] = hand
    for r in range(nr):
        for k in range(outv[r, 2]):
            hh[outv[r, CARDS + k]] -= 1
    top_loose = 0
    for c in range(N_KINDS):
        if hh[c] > 0:
            top_loose = max(top_loose, card_penalty(prm, c))
    bound = 0  # (a go-out costs no more than the deadwood it would leave: the row's win is at least its curve at 0)
    for c in range(N_KINDS):
        bound += unseen[c] * holding_cost(srow, before - max(top_loose - card_penalty(prm, c), 0))
    if taken * weight > bound - margin * weight:
        return STOCK
    ahead = np.zeros((1, 2), np.int64)
    outlook_kernel(hand, prm, np.full(1, -1, np.int64), unseen, ahead, srow)
    stock = ahead[0, 0]
    # a go-out's worth beyond leaving no deadwood, the share draw_out (percent) of it counted
    out_more = xp[X_DRAW_OUT] * max(srow[ST_WIN] + holding_cost(srow, 0), 0) // 100
    if opened[me] != 0:  # the draws that go out: no deadwood left, not the deadwood they would leave
        for x in range(N_KINDS):
            if unseen[x] <= 0:
                continue
            hh2[:] = hand
            hh2[x] += 1
            if _goes_out(hh2, -1, tab, nt, rp, prm, mv, ws, rec, outd, lops, hs):
                _, d_all, _ = search_hand(hh2, prm, mv, ws, rec, NO)
                stock -= unseen[x] * (holding_cost(srow, best_discard_deadwood(hh2, prm, d_all, mv, ws, rec))
                                      - holding_cost(srow, 0) + out_more)
    return DISCARD if taken * weight <= stock - margin * weight else STOCK


@njit(cache=True)
def _goes_out(h, forbid, tab, nt, rp, prm, mv, ws, rec, outv, lay, hh):
    """Whether an opened player holding h (its draw made) can go out this turn, throwing any card but
    ``forbid``: every card but the discard melded in the hand (``kernels.goout.go_out``) or melded and
    laid off onto the table tab[:nt] (``go_out_building``).  Most hands end at the cheap bound: more
    than one card that can neither meld nor lay off."""
    if stray_cards(h, tab, nt, rp) > 1:
        return False
    _, _, loose = search_hand(h, prm, mv, ws, rec, NO)
    if go_out(h, loose, prm, NO, forbid, mv, ws, rec, outv, hh)[0] >= 0:
        return True
    bound = layable_bound(h, tab, nt, rp)
    if nt == 0 or bound == 0 or loose > bound + 1:
        return False
    return go_out_building(h, loose, tab, nt, True, forbid, -1, rp, prm, mv, ws, rec, outv, lay)[0] >= 0


@njit(cache=True)
def stock_goes_out(hand, tab, nt, discard, nd, jokers, rp, prm, mv, ws, rec):
    """Whether any card an opened player cannot see, drawn from the stock, lets it go out (``_goes_out``)."""
    unseen = np.empty(N_KINDS, np.int64)
    unseen_kernel(hand, tab, nt, discard, nd, jokers, unseen)
    h = hand.copy()
    hs = np.empty(N_KINDS, np.int8)
    outv = np.empty((MAX_OUT, OUT_W), np.int64)
    lay = np.zeros((MAXOPS, OP_W), np.int64)
    for x in range(N_KINDS):
        if unseen[x] <= 0:
            continue
        h[x] += 1
        out = _goes_out(h, -1, tab, nt, rp, prm, mv, ws, rec, outv, lay, hs)
        h[x] -= 1
        if out:
            return True
    return False


@njit(cache=True)
def risk_limit(max_risk, srow):
    """The patient's ``max_risk`` read through the stakes: the most deadwood whose cost (``holding_cost``) is
    within ``max_risk`` points-equivalents (the neutral row: ``max_risk`` itself), -1 where none is."""
    best = -1
    for d in range(ST_XMAX + 1):
        if holding_cost(srow, d) > max_risk:
            break
        best = d
    return max_risk if best == ST_XMAX and max_risk > ST_XMAX else best


# ---------------------------------------------------------------------------------------------
# entries for the Python engine, one decision at a time
# ---------------------------------------------------------------------------------------------

@njit(cache=True)
def draw_kernel(inp, h, me, xp, srow):
    sc = h.sc
    return draw_expert(inp, h, me, sc[SC_ND], sc[SC_NS] - sc[SC_SP], sc[SC_NT], xp, new_scratch(), srow)


@njit(cache=True)
def discard_kernel(hand, forbid, tab, pick, disc, nxt_opened, unseen, xp, values, prm, srow):
    mv, ws, rec = new_workspace()
    out = np.empty((MAX_OUT, OUT_W), np.int64)
    return discard_choice(hand, forbid, tab, tab.shape[0], pick, disc, nxt_opened, unseen, xp, values, prm,
                           mv, ws, rec, out, srow)


@njit(cache=True)
def feed_risks_kernel(tab, pick, disc, nxt_opened):
    risk = np.empty(N_KINDS, np.int64)
    _feed_risks(tab, tab.shape[0], pick, disc, nxt_opened, risk)
    return risk


@njit(cache=True)
def candidates_kernel(hand, forbid, prm):
    mv, ws, rec = new_workspace()
    out = np.empty((MAX_OUT, OUT_W), np.int64)
    cands = np.empty(N_KINDS, np.int64)
    left = np.empty(N_KINDS, np.int64)
    n, _ = loose_candidates(hand, forbid, prm, mv, ws, rec, out, cands, left)
    return cands[:n].copy()


drop_stale(draw_kernel, (MS, core, FG, kinds, outlook))


# ---------------------------------------------------------------------------------------------
# Python entry
# ---------------------------------------------------------------------------------------------

def bot_params(bot) -> np.ndarray:
    """An expert's (or lookahead's) parameters as the compiled decisions read them (X_*; zero where
    it has none)."""
    return np.array([getattr(bot, name, 0) for name in X_NAMES], dtype=np.int64)


def _card_counts(cards) -> np.ndarray:
    return np.bincount(np.asarray(cards, dtype=np.int64), minlength=N_KINDS)


def _rows(table) -> np.ndarray:
    return table_rows(table) if table else NO_TABLE


def stakes_row(state, me: int) -> np.ndarray:
    """Hand position ``me``'s row of stakes (``state.stakes``, int64; the neutral row where the hand has none)."""
    return NEUTRAL if getattr(state, "stakes", None) is None else stakes_matrix(state)[me]


def decide_draw(state, me: int, xp: np.ndarray) -> int:
    """``DRAW_STOCK``, ``DRAW_DISCARD`` or ``ASK_TABLE_OPENING``."""
    return int(draw_kernel(state.inp, state.h, me, xp, stakes_row(state, me)))


def max_risk_for(state, me: int, max_risk: int) -> int:
    """The patient's ``max_risk`` as hand position ``me``'s stakes read it (``risk_limit``)."""
    return int(risk_limit(max_risk, stakes_row(state, me)))


def feed_risks(state, me: int, table) -> np.ndarray:
    """The risk of feeding the next player with each card (``_feed_risks``), on the table ``table``."""
    nxt = (me + 1) % state.n
    return feed_risks_kernel(_rows(table), _card_counts(state.pickups[nxt]), _card_counts(state.discards_by[nxt]),
                             bool(state.opened[nxt]))


def discard_candidates(hand, profile, forbid: int) -> list[int]:
    """The cards the discard is chosen from (``loose_candidates``)."""
    return candidates_kernel(np.asarray(hand, dtype=np.int8), forbid, core.compiled(profile).params).tolist()


def choose_discard(state, me: int, hand, forbid: int, table, xp: np.ndarray) -> int:
    """The discard from ``hand`` (after the turn's operations, ``table`` the table after them)."""
    from .outlook import unseen_counts
    cp = core.compiled(state.profile)
    values, prm = cp.hand_values, cp.params
    nxt = (me + 1) % state.n
    unseen = unseen_counts(state, me)
    return int(discard_kernel(np.asarray(hand, dtype=np.int8), forbid, _rows(table),
                              _card_counts(state.pickups[nxt]), _card_counts(state.discards_by[nxt]),
                              bool(state.opened[nxt]), unseen, xp, values, prm, stakes_row(state, me)))
