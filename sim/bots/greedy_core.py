"""The greedy and patient bots in compiled code: their draw and play, and their Python entry points.

The decisions are written here once, over count vectors and meld rows: ``greedy_draw`` and
``greedy_play`` (``bots.GreedyBot``), ``waits_for_kalooki``, ``patient_draw`` and ``patient_play``
(``bots.PatientBot``; where its hand alone cannot open and the profile lets the table help, it
answers TABLE_OPENING and the caller asks ``bots.table_play.open_with_table``), chosen by kind in
``bot_draw`` and ``bot_play``.  They are used two ways:

- by the Python engine, one decision at a time: ``decide_draw``/``decide_play``/``waiting`` turn a
  ``HandState`` into arrays and the answer into a ``Play``, which ``HandState.apply_play`` validates
  as any bot's (the expert and lookahead bots reach these through their parents);
- by the compiled hand loop (``sim.bots.hand_loop``), which plays whole hands with them.

What they share with the other bots' compiled decisions (a hand's meld search, the operation rows of
a play, the lay-off search, going out with the table's help, the discards) is in
``sim.bots.kernels``.  They keep the tie-breaks of the Python bots they replaced, down to Python's
iteration order (``kernels.hands.set_order``), and call the meld search with the same parameter
vector as the Python path.  The rules vector the compiled bots read is the engine's with the bots'
words after it (``R_*``, ``rules_array``), and a bot's parameter row is ``B_*``.

The kernels are cached on disk by numba; ``sim.jit.cache.drop_stale`` drops the cache when a module
they call into changes, since numba itself only watches this file.

These bots rearrange the table only to go out (``kernels.goout.go_out_building`` splits runs; no
Take or SwapJoker), so otherwise a table meld only grows at its ends; the table is a matrix of meld
rows in the meldsearch row format (kind, low, n, 14 cards, 14 reps).  The card taken from the
discard pile is laid off, melded or splits a run like any other; only no copy of it is thrown that
turn.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .. import meldsearch as MS
from ..cards import N_KINDS
from ..engine import LayOff, NewMeld, Play, Split
from ..engine import core
from ..engine.core import R_GO_OUT_FIRST_ROUND, R_PICKUP_BEFORE_OPENING, meld_value
from ..engine.hand import SC_ND, SC_NS, SC_NT, SC_SP, STATUS_RULES
from ..engine.turn import OB_MELD, OB_NONE, OB_OPEN, X_LAYOFF, X_NEW, X_SPLIT
from ..melds import Meld
from ..meldsearch import MAX_OUT, OUT_W, P_OPENING_MIN, reconstruct, new_workspace
from ..jit.cache import drop_stale
from . import kinds
from .kernels import discards as KD
from .kernels.discards import best_discard, loose_discard
from .kernels.goout import CUT_LOW, SPLIT_AT, go_out, go_out_building, kalooki_reach, layable_bound
from .kernels.hands import (NO, YES, cards_in_rows, copies_on_rows, has_discard, hand_size, holds_no_meld,
                            leaves_a_discard, opening_with_discard, search_hand)
from .kernels.layoffs import find_layoffs, meld_taken_card
from .kernels.plays import (DISCARD, LOW, O_CARD, O_END, O_KIND, O_TAKEN, O_TARGET, STOCK, add_layoff, add_meld,
                            add_split, new_draft, new_scratch, pop_op, taken_obligation, undo_layoff)
from .kinds import K_PATIENT

# rule vector (int64), filled by rules_array(profile): the engine's (sim.engine.core.rules_array,
# its R_* words) and, after them, what the bots derive from the profile
R_KALOOKI_PAYS_MORE = core.R_SIZE  # kalooki_pays_more(profile)
R_TABLE_OPENING = core.R_SIZE + 1  # joker_take_at_opening or layoffs_count_for_opening: table_opening applies
R_MONEY_PER_HAND = core.R_SIZE + 2  # game_end == "single_hand": every hand is paid in money (sim.sheet.loser_pays)
R_PAY_PER_CARD = core.R_SIZE + 3
R_PAY_PER_JOKER = core.R_SIZE + 4
R_PAY_DOUBLE = core.R_SIZE + 5  # pay_double_on_kalooki
R_SIZE = core.R_SIZE + 6

# the bots' parameters (a row per seat; the kinds in sim.bots.kinds)
B_MAX_MISSING, B_MIN_DRAWS, B_DANGER_CARDS, B_MAX_RISK = range(4)
B_W = 4
B_NAMES = ("max_missing", "min_draws", "danger_cards", "max_risk")
TABLE_OPENING = -2  # a patient play's answer: ask the Python table_opening (profiles with its rules)

# ---------------------------------------------------------------------------------------------
# the greedy bot (sim/bots/greedy.py)
# ---------------------------------------------------------------------------------------------

@njit(cache=True)
def greedy_draw(inp, h, me, nd, nt, sx):
    """GreedyBot.draw, for player ``me`` of the compiled hand ``h`` (``sim.engine.hand.Hand``, never written;
    its discard pile ``discard[:nd]``, its table ``tab[:nt]``) with its fixed inputs ``inp`` (a
    ``HandInputs``); ``sx``: the decision's working arrays (a ``kernels.plays.Scratch``)."""
    values, rp, prm = inp.values, inp.rp, inp.prm
    hands, opened, turns, discard, tab = h.hands, h.opened, h.turns, h.discard, h.tab
    ws_mv, ws_ws, ws_rec, hh, hh2, outv, outd, lops, lctx, tab1 = (sx.mv, sx.ws, sx.rec, sx.hh, sx.hh2, sx.outv,
                                                                     sx.outd, sx.lops, sx.lctx, sx.tab1)
    if nd == 0:
        return STOCK
    if not opened[me] and rp[R_PICKUP_BEFORE_OPENING] == 0:
        return STOCK
    top = discard[nd - 1]
    if hands[me, top] == hand_size(hands[me]):  # HandState._draw_problem: nothing else held to discard
        return STOCK
    ob = taken_obligation(opened[me] != 0, turns[me], rp)
    hh2[:] = hands[me]
    hh2[top] += 1
    if ob == OB_OPEN:
        v, _, _ = search_hand(hh2, prm, ws_mv, ws_ws, ws_rec, YES)
        if v < prm[P_OPENING_MIN]:
            return STOCK
        nr = reconstruct(hh2, prm, ws_rec, np.int64(0), outv)
        if copies_on_rows(outv, nr, top) > 0 and leaves_a_discard(hh2, outv, nr, top, np.int64(1), hh):
            return DISCARD
        return STOCK
    if ob == OB_MELD:
        if opened[me]:
            kind, _, _ = meld_taken_card(hh2, top, tab, nt, values, rp, prm, ws_mv, ws_ws, ws_rec, hh, outd, lops,
                                          lctx, tab1)
            if kind != 0:
                return DISCARD
        return STOCK
    # take it if it lowers min_loose, unless the min-deadwood partition leaves it loose; the partition
    # (the costly part) is only built when the counts say yes
    _, _, after = search_hand(hh2, prm, ws_mv, ws_ws, ws_rec, NO)
    _, _, before = search_hand(hands[me], prm, ws_mv, ws_ws, ws_rec, NO)
    if after >= before:
        return STOCK
    search_hand(hh2, prm, ws_mv, ws_ws, ws_rec, YES)
    nr = reconstruct(hh2, prm, ws_rec, np.int64(1), outd)
    if hh2[top] - copies_on_rows(outd, nr, top) > 0:
        return STOCK
    # the meld must be layable with a card kept to discard, or let it go out (GreedyBot.draw)
    first = turns[me] == 0
    keep = 2 if (first and rp[R_GO_OUT_FIRST_ROUND] == 0) else 1
    if leaves_a_discard(hh2, outd, nr, top, keep, hh):
        return DISCARD
    if rp[R_GO_OUT_FIRST_ROUND] == 0 and first:
        return STOCK
    disc, _, _ = go_out(hh2, after, prm, opened[me] == 0, top, ws_mv, ws_ws, ws_rec, outv, hh)
    return DISCARD if disc >= 0 else STOCK


@njit(cache=True)
def _go_out_with_table(inp, h, me, nt, drawn_card, drawn_from, loose, sx, draft):
    """Going out this turn with new melds and lay-offs, jokers included (``go_out_building``), for a
    player the rules let go out now whose hand (min_loose ``loose``) passed ``layable_bound``: the
    play in ``draft`` (as ``greedy_play``'s, the new melds first), the discard returned; -1 and nothing
    changed where there is no way out.  The arguments are ``greedy_play``'s."""
    rp, prm = inp.rp, inp.prm
    tab = h.tab
    mv, ws, rec, outv, lay = sx.mv, sx.ws, sx.rec, sx.outv, sx.lops
    wtab, ctx, ops, whand = draft
    hand = h.hands[me]
    was_open = h.opened[me] != 0
    forbid = drawn_card if drawn_from == DISCARD else -1
    must = drawn_card if (drawn_from == DISCARD and taken_obligation(was_open, h.turns[me], rp) == OB_OPEN) else -1
    disc, nr, nl = go_out_building(hand, loose, tab, nt, was_open, forbid, must, rp, prm, mv, ws, rec, outv, lay)
    if disc < 0:
        return -1
    whand[:] = hand
    wtab[:nt] = tab[:nt]
    ctx[0] = nt
    ctx[1] = 0
    for r in range(nr):
        add_meld(wtab, ctx, ops, whand, outv[r], forbid)
    for j in range(nl):
        if lay[j, 2] >= SPLIT_AT:
            add_split(wtab, ctx, ops, whand, lay[j, 0], lay[j, 1], lay[j, 2] - SPLIT_AT, rp)
        elif lay[j, 2] == CUT_LOW:  # onto the part the split just made cut off: the last row
            add_layoff(wtab, ctx, ops, whand, ctx[0] - 1, lay[j, 1], LOW)
        else:
            add_layoff(wtab, ctx, ops, whand, lay[j, 0], lay[j, 1], lay[j, 2])
    return disc


@njit(cache=True)
def play_greedy(inp, h, me, nt, drawn_card, drawn_from, sx, draft, building):
    """GreedyBot.play of player ``me`` of the compiled hand ``h`` (``sim.engine.hand.Hand``, never written;
    its table ``tab[:nt]``), its draw made (``drawn_card`` from ``drawn_from``), with the hand's fixed
    inputs ``inp`` (a ``HandInputs``) and the decision's working arrays ``sx`` (a ``kernels.plays.Scratch``):
    the operations go to the ``draft`` (a ``kernels.plays.Draft``: ops/wtab, ctx: rows, ops), the hand
    left to its whand; returns the discard.  Going out with the hand alone, else the opening, every meld
    held laid down, lay-offs, the taken discard melded where it must be; with ``building``, a play that
    does not go out then gives way to one that does with the table's help (``_go_out_with_table``)."""
    values, rp, prm = inp.values, inp.rp, inp.prm
    hands, opened, turns, tab = h.hands, h.opened, h.turns, h.tab
    mv, ws, rec, hh, outv, outd, tmp, lops, lctx, tab1 = (sx.mv, sx.ws, sx.rec, sx.hh, sx.outv, sx.outd, sx.tmp,
                                                           sx.lops, sx.lctx, sx.tab1)
    wtab, ctx, ops, whand = draft
    forbid = drawn_card if drawn_from == DISCARD else -1  # no copy of a taken card may be discarded
    taken = drawn_card if drawn_from == DISCARD else -1
    whand[:] = hands[me]
    wtab[:nt] = tab[:nt]
    ctx[0] = nt
    ctx[1] = 0
    first = turns[me] == 0
    may_out = rp[R_GO_OUT_FIRST_ROUND] != 0 or not first
    ob = taken_obligation(opened[me] != 0, turns[me], rp)
    # one search of the hand as drawn serves go_out's shortcut, the opening and the lay-down, as long
    # as rec still belongs to whand (rec_ok), and the way out with the table (loose0)
    v, dead, loose = search_hand(whand, prm, mv, ws, rec, YES)
    v0, loose0 = v, loose
    if may_out:  # going out comes first; before opening, only by a Kalooki
        disc, nr, clobbered = go_out(whand, loose, prm, opened[me] == 0, forbid, mv, ws, rec, outv, hh)
        if disc >= 0:
            for r in range(nr):
                add_meld(wtab, ctx, ops, whand, outv[r], taken)
            return disc
        if clobbered:
            search_hand(whand, prm, mv, ws, rec, YES)
    rec_ok = True
    n_open = 0
    disc = -1
    if not opened[me]:
        if v >= prm[P_OPENING_MIN]:
            nr = reconstruct(whand, prm, rec, np.int64(0), outv)
            if cards_in_rows(outv, nr) >= hand_size(whand):
                nr = opening_with_discard(whand, forbid, prm, mv, ws, rec, hh, tmp, outv)
                rec_ok = False
            # the opening must leave a card to discard (two where nobody may go out yet): drop its last
            # melds while what remains still reaches the minimum (GreedyBot.play)
            need = 2 if (first and rp[R_GO_OUT_FIRST_ROUND] == 0) else 1
            while nr > 0:
                hh[:] = whand
                for r in range(nr):
                    for k in range(outv[r, 2]):
                        hh[outv[r, 3 + k]] -= 1
                if has_discard(hh, forbid) and hand_size(hh) >= need:
                    break
                nr -= 1
            if nr > 0:
                total = 0
                for r in range(nr):
                    total += meld_value(outv[r], prm)
                if total < prm[P_OPENING_MIN]:
                    nr = 0
            if nr > 0 and (taken < 0 or copies_on_rows(outv, nr, taken) > 0 or ob == OB_NONE):
                for r in range(nr):
                    add_meld(wtab, ctx, ops, whand, outv[r], taken)
                rec_ok = False
                n_open = ctx[1]
        if ctx[1] == 0:
            if not rec_ok:
                search_hand(whand, prm, mv, ws, rec, YES)
            disc = KD.recorded_deadwood_discard(whand, forbid, values, prm, rec, outd)
    if disc < 0:
        # lay down every meld held (keeping a card to discard), then lay off
        if not rec_ok:
            v, dead, loose = search_hand(whand, prm, mv, ws, rec, YES)
        nr = 0 if holds_no_meld(whand, dead, prm) else reconstruct(whand, prm, rec, np.int64(1), outd)
        if nr > 0 and hand_size(whand) - cards_in_rows(outd, nr) >= 1:
            for r in range(nr):
                add_meld(wtab, ctx, ops, whand, outd[r], taken)
        elif nr > 0:
            d0 = best_discard(whand, forbid, prm)
            hh[:] = whand
            hh[d0] -= 1
            search_hand(hh, prm, mv, ws, rec, YES)
            nr2 = reconstruct(hh, prm, rec, np.int64(1), outd)
            for r in range(nr2):
                add_meld(wtab, ctx, ops, whand, outd[r], taken)
        keep = 2 if (first and rp[R_GO_OUT_FIRST_ROUND] == 0) else 1
        n_opening = n_open
        find_layoffs(wtab, ctx[0], whand, keep, forbid, rp, prm, ops, ctx)
        # bots.repair: undo trailing operations (never the opening) until a card (not the forbidden one)
        # is left to discard
        while (not has_discard(whand, forbid) or hand_size(whand) < keep) and ctx[1] > n_opening:
            pop_op(wtab, ctx, ops, whand)
        if ob == OB_MELD and taken >= 0:
            used = False
            for o in range(ctx[1]):
                if (ops[o, O_KIND] == X_LAYOFF and ops[o, O_CARD] == taken) or (
                        ops[o, O_KIND] == X_NEW and ops[o, O_TAKEN] != 0):
                    used = True
            if not used:
                hh[:] = hands[me]
                kind, dm, idx = meld_taken_card(hh.copy(), taken, tab, nt, values, rp, prm, mv, ws, rec, hh, outd,
                                                 lops, lctx, tab1)
                if kind != 0:
                    whand[:] = hands[me]
                    wtab[:nt] = tab[:nt]
                    ctx[0] = nt
                    ctx[1] = 0
                    if kind == 1:
                        add_meld(wtab, ctx, ops, whand, outd[idx], taken)
                    else:
                        for o in range(lctx[1]):
                            add_layoff(wtab, ctx, ops, whand, idx, lops[o, O_CARD], lops[o, O_END])
                    disc = dm
        if disc < 0:
            disc = loose_discard(whand, values, forbid, whand.astype(np.int64))
    if building and may_out and ctx[2] == 0 and hand_size(whand) >= 2 and (opened[me] != 0 or kalooki_reach(v0, rp)):
        # the play does not go out: one with the table's help may (most turns end at this cheap bound)
        bound = layable_bound(hands[me], tab, nt, rp)
        if bound > 0 and loose0 <= bound + 1:
            out = _go_out_with_table(inp, h, me, nt, drawn_card, drawn_from, loose0, sx, draft)
            if out >= 0:
                return out
    return disc




# ---------------------------------------------------------------------------------------------
# the patient bot (sim/bots/patient.py): greedy, but holding its melds while a Kalooki is in reach
# ---------------------------------------------------------------------------------------------

@njit(cache=True)
def waits_for_kalooki(me, hand, hands, opened, n_stock, rp, bp, prm, mv, ws, rec):
    """PatientBot._waiting: is holding back the opening for a Kalooki worth it?  Only where a Kalooki
    pays more than a call, and only while few cards are missing (loose cards beyond the one discard),
    the stock still offers enough draws (n_stock // players), no opponent who has opened is close to
    going out, and the penalty held in hand is not too high.  bp: this bot's parameters (B_*)."""
    if rp[R_KALOOKI_PAYS_MORE] == 0 or opened[me] != 0:
        return False
    _, dead, loose = search_hand(hand, prm, mv, ws, rec, NO)
    missing = max(loose - 1, 0)
    n = hands.shape[0]
    if missing > bp[B_MAX_MISSING] or n_stock // max(n, 1) < bp[B_MIN_DRAWS] + missing:
        return False
    for s in range(n):
        if s != me and opened[s] != 0 and hand_size(hands[s]) <= bp[B_DANGER_CARDS]:
            return False
    return dead <= bp[B_MAX_RISK]


@njit(cache=True)
def patient_draw(inp, h, me, nd, n_stock, nt, bp, sx):
    """PatientBot.draw: while waiting, take the discard only when it leaves no more loose cards (and
    only a discard it is free to take); else greedy's draw.  ``n_stock``: the cards left in the stock;
    ``bp``: this bot's parameters (B_*); the others are ``greedy_draw``'s."""
    rp, prm = inp.rp, inp.prm
    hands, opened, turns, discard = h.hands, h.opened, h.turns, h.discard
    ws_mv, ws_ws, ws_rec, hh2 = sx.mv, sx.ws, sx.rec, sx.hh2
    if opened[me] == 0 and waits_for_kalooki(me, hands[me], hands, opened, n_stock, rp, bp, prm, ws_mv, ws_ws, ws_rec):
        if nd > 0 and rp[R_PICKUP_BEFORE_OPENING] != 0 and taken_obligation(NO, turns[me], rp) == OB_NONE:
            top = discard[nd - 1]
            if hands[me, top] != hand_size(hands[me]):  # HandState._draw_problem
                hh2[:] = hands[me]
                hh2[top] += 1
                _, _, after = search_hand(hh2, prm, ws_mv, ws_ws, ws_rec, NO)
                _, _, before = search_hand(hands[me], prm, ws_mv, ws_ws, ws_rec, NO)
                if after < before + 1:
                    return DISCARD
        return STOCK
    return greedy_draw(inp, h, me, nd, nt, sx)


@njit(cache=True)
def patient_play(inp, h, me, n_stock, nt, drawn_card, drawn_from, bp, sx, draft):
    """PatientBot.play: an unopened patient goes out where it may (by Kalooki with its hand alone, or
    with the table's help: ``_go_out_with_table``), else holds (no operations, its worst loose card
    discarded) while waiting, unless a taken discard obliges it to open; where its hand alone cannot
    open and the profile lets the table help, it answers TABLE_OPENING (the caller asks
    ``table_play.table_opening``); otherwise it plays greedy's play.  ``n_stock``: the cards left in
    the stock; ``bp``: this bot's parameters (B_*); the others are ``play_greedy``'s."""
    values, rp, prm = inp.values, inp.rp, inp.prm
    hands, opened, turns, tab = h.hands, h.opened, h.turns, h.tab
    mv, ws, rec, hh, outv, outd = sx.mv, sx.ws, sx.rec, sx.hh, sx.outv, sx.outd
    wtab, ctx, ops, whand = draft
    if opened[me] == 0:
        hand = hands[me]
        forbid = drawn_card if drawn_from == DISCARD else -1
        may_out = rp[R_GO_OUT_FIRST_ROUND] != 0 or turns[me] != 0
        v, _, loose = search_hand(hand, prm, mv, ws, rec, YES)
        going_out = False
        if may_out:
            disc, _, _ = go_out(hand, loose, prm, YES, forbid, mv, ws, rec, outv, hh)
            going_out = disc >= 0  # greedy's play goes out the same way first
            bound = 0 if (going_out or not kalooki_reach(v, rp)) else layable_bound(hand, tab, nt, rp)
            if bound > 0 and loose <= bound + 1:
                out = _go_out_with_table(inp, h, me, nt, drawn_card, drawn_from, loose, sx, draft)
                if out >= 0:
                    return out
        if not going_out:
            taken_needs_open = drawn_from == DISCARD and taken_obligation(NO, turns[me], rp) == OB_OPEN
            if not taken_needs_open and waits_for_kalooki(me, hand, hands, opened, n_stock, rp, bp, prm, mv, ws, rec):
                whand[:] = hand
                wtab[:nt] = tab[:nt]
                ctx[0] = nt
                ctx[1] = 0
                return KD.deadwood_discard(whand, forbid, values, prm, mv, ws, rec, outd)
            if rp[R_TABLE_OPENING] != 0 and v < prm[P_OPENING_MIN]:
                return TABLE_OPENING
            # no way out was found above: greedy's own moves
            return play_greedy(inp, h, me, nt, drawn_card, drawn_from, sx, draft, NO)
    return play_greedy(inp, h, me, nt, drawn_card, drawn_from, sx, draft, YES)


@njit(cache=True)
def bot_draw(kind, inp, h, me, nd, n_stock, nt, bp, sx):
    """The draw of a bot of this kind (K_*): ``patient_draw``'s arguments."""
    if kind == K_PATIENT:
        return patient_draw(inp, h, me, nd, n_stock, nt, bp, sx)
    return greedy_draw(inp, h, me, nd, nt, sx)


@njit(cache=True)
def bot_play(kind, inp, h, me, n_stock, nt, drawn_card, drawn_from, bp, sx, draft):
    """The play of a bot of this kind (``patient_play``'s arguments): operations in ops[:ctx[1]] (rows of
    wtab), the hand left in whand, of the ``draft``; returns the discard (or TABLE_OPENING)."""
    if kind == K_PATIENT:
        return patient_play(inp, h, me, n_stock, nt, drawn_card, drawn_from, bp, sx, draft)
    return play_greedy(inp, h, me, nt, drawn_card, drawn_from, sx, draft, YES)


# ---------------------------------------------------------------------------------------------
# one decision at a time: the bots' draw and play for the Python engine (sim/bots/greedy.py, patient.py)
# ---------------------------------------------------------------------------------------------

@njit(cache=True)
def draw_kernel(kind, bp, inp, h, me):
    """The draw (STOCK or DISCARD) a bot of this kind chooses at the start of player ``me``'s turn in the
    compiled hand ``h`` (a ``HandState``'s, never written)."""
    sc = h.sc
    return bot_draw(kind, inp, h, me, sc[SC_ND], sc[SC_NS] - sc[SC_SP], sc[SC_NT], bp, new_scratch())


@njit(cache=True)
def play_kernel(kind, bp, inp, h, me, drawn_card, drawn_from):
    """The play a bot of this kind chooses after player ``me``'s draw in the compiled hand ``h`` (a
    ``HandState``'s, never written): (discard, operations (O_* rows), for each operation that lays a new
    meld the meld's row as laid, status (0, or 9: a buffer was full)).  The discard is TABLE_OPENING when
    a patient asks for an opening with the table's help."""
    sc = h.sc
    draft = new_draft(np.empty(N_KINDS, np.int8))
    wtab, ctx, ops, _ = draft
    disc = bot_play(kind, inp, h, me, sc[SC_NS] - sc[SC_SP], sc[SC_NT], drawn_card, drawn_from, bp, new_scratch(),
                     draft)
    nops = ctx[1]
    melds = np.full((nops, OUT_W), -1, np.int64)
    if disc == TABLE_OPENING:
        return disc, ops[:0].copy(), melds[:0], ctx[2]
    # each new meld as it was laid: undo the lay-offs from the last operation back (a play's splits
    # follow its new melds, and cut no meld laid in it)
    for o in range(nops - 1, -1, -1):
        if ops[o, O_KIND] == X_LAYOFF:
            undo_layoff(wtab, ops[o, O_TARGET], ops[o, O_END])
        elif ops[o, O_KIND] == X_NEW:
            melds[o] = wtab[ops[o, O_TARGET]]
    return disc, ops[:nops].copy(), melds, ctx[2]


@njit(cache=True)
def deadwood_discard_kernel(hand, forbid, values, prm):
    mv, ws, rec = new_workspace()
    out = np.empty((MAX_OUT, OUT_W), np.int64)
    return KD.deadwood_discard(hand, forbid, values, prm, mv, ws, rec, out)


@njit(cache=True)
def waiting_kernel(bp, me, hand, hands, opened, n_stock, rp, prm):
    mv, ws, rec = new_workspace()
    return waits_for_kalooki(me, hand, hands, opened, n_stock, rp, bp, prm, mv, ws, rec)


# ---------------------------------------------------------------------------------------------
# Python entry
# ---------------------------------------------------------------------------------------------

drop_stale(draw_kernel, (MS, core, kinds))



def bot_params(bot) -> np.ndarray:
    """A bot's parameters as the compiled decisions read them (B_*; zero where it has none)."""
    return np.array([getattr(bot, name, 0) for name in B_NAMES], dtype=np.int64)


# ---------------------------------------------------------------------------------------------
# the Python engine's bots decide here too (one copy of each decision)
# ---------------------------------------------------------------------------------------------

def decide_draw(state, me: int, kind: int, bp: np.ndarray) -> int:
    """The draw (``DRAW_STOCK``/``DRAW_DISCARD``) of a bot of this kind and these parameters."""
    return int(draw_kernel(kind, bp, state.inp, state.h, me))


def decide_play(state, me: int, kind: int, bp: np.ndarray):
    """The ``Play`` of a bot of this kind after its draw, or None where a patient asks for an opening
    with the table's help (``bots.moves.table_opening``)."""
    disc, ops, melds, status = play_kernel(kind, bp, state.inp, state.h, me, state.drawn_card, state.drawn_from)
    if status != 0:
        raise RuntimeError(f"compiled play: {STATUS_RULES.get(int(status), status)}")
    if disc == TABLE_OPENING:
        return None
    out = []
    for o, row in zip(ops.tolist(), melds.tolist()):
        if o[O_KIND] == X_NEW:
            k = row[2]
            out.append(NewMeld(Meld(row[0], tuple(row[3:3 + k]), tuple(row[17:17 + k]), row[1])))
        elif o[O_KIND] == X_SPLIT:
            out.append(Split(o[O_TARGET], o[O_CARD], o[O_END]))
        else:
            out.append(LayOff(o[O_TARGET], o[O_CARD], o[O_END]))
    return Play(out, int(disc))


def waiting(state, me: int, hand: np.ndarray, bp: np.ndarray) -> bool:
    """PatientBot._waiting (``waits_for_kalooki``) for the Python engine."""
    cp = core.compiled(state.profile)
    return bool(waiting_kernel(bp, me, hand, state.hands, np.array(state.opened, dtype=np.int64), len(state.stock),
                               cp.rules, cp.params))


def deadwood_discard(state, hand, forbid: int) -> int:
    """``kernels.discards.deadwood_discard`` for the Python engine."""
    cp = core.compiled(state.profile)
    return int(deadwood_discard_kernel(np.ascontiguousarray(hand, dtype=np.int8), forbid, cp.hand_values, cp.params))
