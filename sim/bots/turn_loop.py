"""The turns of a hand, compiled: the loop the hand loop (``sim.bots.hand_loop``) plays a hand with
and the search bot (``sim.bots.search_core``) plays its rollouts with, written once.

``run_turns`` plays turns from the start of a turn (or from a search seat's chosen discard) until the
hand ends, a ``horizon`` of turns has passed, or a search seat has a choice to make (``ask``): it
then returns ``ASK_DRAW`` (at the start of that seat's turn, nothing drawn) or ``ASK_DISCARD`` (the
card drawn, the seat's table play made and held in the operation rows but not applied, the discard
not yet chosen: asked when its bot chose the discard among loose cards or its play lays something),
and the caller resumes it with the choice (``force_src``; ``start=START_APPLY`` with ``force_disc``
and the play the first ``sc[SC_NX]`` rows of the operation rows hold: the seat's own, none to lay
nothing this turn, or another play the caller wrote there).  So the search, which itself plays
hands forward with ``run_turns``, never runs inside it: numba compiles no recursion.  It plays the
engine's compiled hand (``sim.engine.hand.Hand``, changed in place, and its ``HandInputs``) with the
table's ``Seats`` (each seat's kind, parameter row, stream and stakes) and a ``Pending`` play; where the
hand stands travels in its ``sc`` words (``SC_*``: the engine's, and from ``SC_OWN`` on this loop's).  What is the hand's and no player's (the stock renewed, a
stock draw, a turn's counters, the invariants, the record's words) is the engine's
(``sim.engine.hand``, which ``HandState`` uses too), and each play is validated and applied by the
engine's turn (``sim.engine.turn.apply_turn``).  Each seat's decisions read its row of the hand's
stakes (``stakes``: int64, a row per seat, ``outlook.stakes_ints``; the neutral rows for a hand
without a game), and an expert's patient play before it opens holds for a Kalooki by the
``max_risk`` its row gives (``expert_core.risk_limit``).
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from ..cards import N_KINDS
from ..engine import core
from ..engine import turn as TU
from ..meldsearch import OUT_W
from . import expert_core as XC
from . import greedy_core as FG
from . import random_bot as RB
from . import table_play as EP
from ..engine import hand as HD
from ..engine.hand import (SC_CUR, SC_ND, SC_NS, SC_NT, SC_OWN, SC_RESHUFFLES, SC_SP, SC_TURN_NO, SC_W,
                           H_DRAWN_CARD, H_DRAWN_FROM, H_ERR_SEAT, H_STATUS, H_VOID, STATUS_INVARIANT, STATUS_TURN)
from .greedy_core import B_MAX_RISK, TABLE_OPENING, bot_draw, bot_play
from .kernels.discards import deadwood_discard
from .kernels.hands import NO, hand_size
from .kernels.plays import (DISCARD, O_END, O_KIND, O_TARGET, STOCK, Pending, new_draft, new_scratch,  # noqa: F401
                            taken_obligation, undo_layoff)
from .outlook import unseen_kernel
from ..engine.core import R_GO_OUT_FIRST_ROUND, R_TURN_CAP
from ..engine.turn import MAXT, OB_OPEN
from .kinds import K_EXPERT, K_GREEDY, K_PATIENT, K_RANDOM, KT_ASKS, KT_DRAW, KT_PLAY

# run_turns' answers
DONE, ASK_DRAW, ASK_DISCARD, HORIZON = 0, 1, 2, 3
# where run_turns starts: a turn's draw, or the discard of a turn whose draw and table play are made
START_DRAW, START_APPLY = 0, 1
NO_FORCE = -1  # force_src: ask a search seat (when ask is set)
OWN_DRAW = -2  # force_src: the seat's bot draws as it would, unasked (a search that kept the lookahead's draw)

# sc words: the loop's scalars, and a turn stopped at ASK_DISCARD (its drawn card and source, whether the
# seat had opened, its operations' number, the discard its bot would make and whether the bot chose it
# among loose cards)
SC_C, SC_SRC, SC_WAS_OPEN, SC_NX, SC_DISC, SC_CHOSE = range(SC_OWN, SC_OWN + 6)
assert SC_CHOSE < SC_W

# The seats of a compiled hand, read by their decisions: each seat's kind (sim.bots.kinds) and the table
# of kinds (``kinds.table()``), its parameter row (bp: expert_core.X_* words, or search_core.SX_*), a random
# bot's uniforms (streams[i, :slen[i]], read from spos[i] on: spos is advanced), a graded player's chance
# that a turn is the random bot's (eps, 0 for a bot played as it is), each seat's row of the hand's
# stakes (int64, ``outlook.stakes_ints``), and whether the invariants are checked after every turn.
Seats = namedtuple("Seats", ("kinds", "ktable", "bp", "streams", "slen", "spos", "eps", "stakes", "check"))
# A turn stopped at ASK_DISCARD holds its play in a ``Pending`` (kernels.plays): the engine's operation rows
# and new melds' rows (xops, xmrows; their number in xctx[0]) and the hand left (whand).


@njit(cache=True)
def mid_scratch():
    """The arrays a turn stopped at ASK_DISCARD holds its play in (a ``Pending``)."""
    return EP.new_pending()


@njit(cache=True)
def as_xops(tab, nt, wtab, nw, ops, nops, laid, xops, xmrows):
    """greedy_core's play (operation rows ops[:nops], the engine's own row format, and the working table
    wtab[:nw]) as the engine's operation rows, each new meld as it was laid; returns their number."""
    if nops == 0:
        return 0
    _as_laid(tab, nt, wtab, nw, ops, nops, laid)
    for o in range(nops):
        xops[o, :TU.X_W] = ops[o, :TU.X_W]
        if ops[o, O_KIND] == TU.X_NEW:
            xmrows[o] = laid[ops[o, O_TARGET]]
    return nops


@njit(cache=True)
def _as_laid(tab, nt, wtab, nw, ops, nops, out):
    """out: the table before the play and the play's new melds as they were laid (lay-offs onto them
    later in the play undone), as ``ExpertBot._discard_smartly`` reads it; returns its rows."""
    w2 = wtab[:nw].copy()
    for o in range(nops - 1, -1, -1):
        if ops[o, O_KIND] == TU.X_LAYOFF:
            undo_layoff(w2, ops[o, O_TARGET], ops[o, O_END])
    out[:nt] = tab[:nt]
    out[nt:nw] = w2[nt:nw]
    return nw


@njit(cache=True)
def run_turns(inp, h, seats, pend, start, force_src, force_disc, ask, horizon):
    """Play turns of the compiled hand ``h`` (``sim.engine.hand.Hand``, changed in place; its fixed inputs
    ``inp``, a ``HandInputs``), each seat's turn made of the decisions its kind's row of the table of
    kinds names (``seats``, a ``Seats``), until it ends (DONE; h.res says how, res[H_STATUS] != 0 when a
    play broke a rule), ``horizon`` turns have been played (HORIZON; 0: no horizon) or, with ``ask``, a
    search seat has a choice (ASK_DRAW, ASK_DISCARD; the module docstring).  The first turn's draw is
    ``force_src`` (NO_FORCE: the bot's, asked; OWN_DRAW: the bot's, unasked); from START_APPLY the first
    turn is the one stopped at ASK_DISCARD, its play the first sc[SC_NX] rows of ``pend`` (a
    ``Pending``), and ``force_disc`` its discard."""
    prm, rp, values, crules, jokers, keys, draw_keys, draw_seats = inp
    hands, stats, res, stock, ids, discard, tab, opened, turns, pick, discby, sc = h
    kinds, ktable, bp, streams, slen, spos, eps, stakes, check = seats
    xops, xmrows, xctx, whand = pend
    n = hands.shape[0]
    sp = sc[SC_SP]
    ns = sc[SC_NS]
    nd = sc[SC_ND]
    nt = sc[SC_NT]
    turn_no = sc[SC_TURN_NO]
    reshuffles = sc[SC_RESHUFFLES]
    cur = sc[SC_CUR]
    keyed = draw_keys.size > 0
    no_keys = np.empty(0, np.float64)  # a stock drawn from the top
    stop = turn_no + horizon if horizon > 0 else -1
    sx = new_scratch()
    mv, ws, rec, hh, hh2, outv, outd, lops, lctx, tab1 = (sx.mv, sx.ws, sx.rec, sx.hh, sx.hh2, sx.outv, sx.outd,
                                                           sx.lops, sx.lctx, sx.tab1)
    draft = new_draft(whand)
    wtab, ctx, ops, _ = draft
    unseen = np.zeros(N_KINDS, np.int64)
    ftab = np.full((MAXT, OUT_W), -1, np.int64)
    tw = TU.scratch(wtab, whand)
    tres = tw.res
    answer_code = DONE
    first = True
    while True:
        me = cur
        kind = kinds[me]
        xp = bp[me]
        srow = stakes[me]
        draw = ktable[kind, KT_DRAW]
        play = ktable[kind, KT_PLAY]
        asks = ktable[kind, KT_ASKS] != 0
        if first and start == START_APPLY:  # the turn stopped at ASK_DISCARD: its play, with the chosen discard
            c = sc[SC_C]
            src = sc[SC_SRC]
            was_open = sc[SC_WAS_OPEN] != 0
            xctx[0] = sc[SC_NX]
            disc = force_disc
        else:
            if stop >= 0 and turn_no >= stop:
                answer_code = HORIZON
                break
            # start_turn: an exhausted stock is reshuffled once (discard order by the hand's keys) or voids
            if sp == ns:
                renewed = HD.renew_stock(crules, keys, reshuffles, discard, nd, stock, ids)
                if renewed < 0:
                    res[H_VOID] = 1
                    break
                ns = renewed
                sp = 0
                nd = 1
                reshuffles += 1
            # a graded player: the random bot's turn on heads (the coin is read first, once a turn)
            if eps[me] > 0.0 and not (first and force_src != NO_FORCE):
                if spos[me] >= slen[me]:
                    res[H_STATUS] = 13
                    res[H_ERR_SEAT] = me
                    break
                if streams[me, spos[me]] < eps[me]:
                    draw = K_RANDOM
                    play = K_RANDOM
                    asks = False
                spos[me] += 1
            if ask and asks and not (first and force_src != NO_FORCE):
                answer_code = ASK_DRAW  # the caller resumes with OWN_DRAW or a source
                break
            if first and force_src >= 0:
                src = force_src
            elif draw == K_RANDOM:
                src, spos[me] = RB.random_draw(me, hands, opened, turns, discard, nd, rp, streams[me, :slen[me]],
                                                spos[me])
                if src == RB.OUT_OF_STREAM:
                    res[H_STATUS] = 13
                    res[H_ERR_SEAT] = me
                    break
            elif draw == K_EXPERT:
                src = XC.draw_expert(inp, h, me, nd, ns - sp, nt, xp, sx, srow)
                if src == XC.ASK_TABLE_OPENING:  # does the discard open with the table's help?
                    top = discard[nd - 1]
                    hh2[:] = hands[me]
                    hh2[top] += 1
                    keep = 2 if (turns[me] == 0 and rp[R_GO_OUT_FIRST_ROUND] == 0) else 1
                    nx = EP.open_with_table(hh2, tab, nt, top, top, keep, rp, crules, prm, mv, ws, rec, xops, xmrows,
                                           whand)
                    src = DISCARD if nx > 0 else STOCK
            else:  # K_GREEDY, K_PATIENT
                src = bot_draw(draw, inp, h, me, nd, ns - sp, nt, xp, sx)
            top = discard[nd - 1] if nd > 0 else 0
            code = TU.draw_code(src, ns - sp, nd, opened[me] != 0, hands[me, top] if nd > 0 else 0, hand_size(hands[me]),
                                crules)
            if code != TU.OK:
                res[H_STATUS] = STATUS_TURN + code
                res[H_ERR_SEAT] = me
                break
            if src == STOCK:
                c = HD.draw_stock(draw_keys[1 if reshuffles > 0 else 0, draw_seats[me]] if keyed else no_keys, stock,
                                  ids, sp, ns)
                sp += 1
            else:
                nd -= 1
                c = discard[nd]
                pick[me, c] += 1
            hands[me, c] += 1
            res[H_DRAWN_CARD] = c
            res[H_DRAWN_FROM] = src
            ctx[2] = 0
            was_open = opened[me] != 0
            forbid = c if src == DISCARD else -1
            nxt = (me + 1) % n
            if play == K_EXPERT:  # what it cannot see as its play starts: the stock and the other hands
                unseen_kernel(hands[me], tab, nt, discard, nd, jokers, unseen)
            keep = 2 if (turns[me] == 0 and rp[R_GO_OUT_FIRST_ROUND] == 0) else 1
            chose = False  # the bot chose its discard among loose cards (a search seat's choice to make)
            xplay = False  # a play already in the engine's operation rows (xops), else greedy_core's (ops)
            nops = 0
            if play == K_RANDOM:
                xplay = True
                disc, spos[me] = RB.random_play(inp, h, me, nt, c, src, streams[me, :slen[me]], spos[me], ftab, pend,
                                                 sx)
                status = 13 if disc == RB.OUT_OF_STREAM else 0
                if status != 0:
                    xctx[0] = 0
            elif play == K_EXPERT and was_open:
                # ExpertBot.play of an opened player: its table play, then its discard choice
                xplay = True
                answer, disc = EP.expert_table_play(inp, h, me, nt, c, src, xp[XC.X_MAX_HARVESTS], ftab, pend, sx)
                if answer == EP.CHOOSE:
                    chose = True
                    disc = XC.discard_choice(whand, forbid, ftab, xctx[1], pick[nxt], discby[nxt], opened[nxt] != 0,
                                              unseen, xp, values, prm, mv, ws, rec, outd, srow)
                status = 0
            else:  # K_GREEDY, K_PATIENT, or K_EXPERT before opening: the patient's play
                pxp = xp
                if play == K_EXPERT:  # its max_risk read through the stakes
                    pxp = xp.copy()
                    pxp[B_MAX_RISK] = XC.risk_limit(xp[B_MAX_RISK], srow)
                disc = bot_play(K_PATIENT if play == K_EXPERT else play, inp, h, me, ns - sp, nt, c, src, pxp, sx,
                                 draft)
                status = ctx[2]
                if disc == TABLE_OPENING:  # PatientBot.play: the hand alone cannot open; can the table help?
                    must = c if (src == DISCARD and taken_obligation(NO, turns[me], rp) == OB_OPEN) else -1
                    nx = EP.open_with_table(hands[me], tab, nt, forbid, must, keep, rp, crules, prm, mv, ws, rec, xops,
                                           xmrows, whand)
                    if nx > 0:
                        xplay = True
                        xctx[0] = nx
                        disc = deadwood_discard(whand, forbid, values, prm, mv, ws, rec, outd)
                    else:
                        ctx[2] = 0
                        disc = bot_play(np.int64(K_GREEDY), inp, h, me, ns - sp, nt, c, src, pxp, sx, draft)
                        status = ctx[2]
                if not xplay:
                    nops = ctx[1]
                if play == K_EXPERT and status == 0 and hand_size(whand) >= 2:
                    # ExpertBot._discard_smartly: the patient's play, the expert's discard (feeding risks read on
                    # the table with the new melds as laid)
                    if xplay:
                        nf = nt
                        ftab[:nt] = tab[:nt]
                        for o in range(xctx[0]):
                            if xops[o, TU.X_KIND] == TU.X_NEW:
                                ftab[nf] = xmrows[o]
                                nf += 1
                    else:
                        nf = _as_laid(tab, nt, wtab, ctx[0], ops, nops, ftab)
                    chose = True
                    disc = XC.discard_choice(whand, forbid, ftab, nf, pick[nxt], discby[nxt], opened[nxt] != 0, unseen,
                                              xp, values, prm, mv, ws, rec, outd, srow)
            if status != 0:
                res[H_STATUS] = status
                res[H_ERR_SEAT] = me
                break
            if not xplay:  # greedy_core's operation rows as the engine's (new melds as laid)
                xctx[0] = as_xops(tab, nt, wtab, ctx[0], ops, ctx[1], ftab, xops, xmrows)
            if ask and asks and (chose or xctx[0] > 0):
                # the caller chooses the discard and whether to lay the play, and resumes at START_APPLY
                sc[SC_C] = c
                sc[SC_SRC] = src
                sc[SC_WAS_OPEN] = 1 if was_open else 0
                sc[SC_NX] = xctx[0]
                sc[SC_DISC] = disc
                sc[SC_CHOSE] = 1 if chose else 0
                answer_code = ASK_DISCARD
                break
        # the play, validated and applied by the engine's one copy of the turn's rules
        code = TU.apply_turn(tab, nt, hands[me], xops, xmrows, xctx[0], disc, c, src, was_open, turns[me] == 0,
                             crules, prm, tw)
        if code != TU.OK:
            res[H_STATUS] = STATUS_TURN + code
            res[H_ERR_SEAT] = me
            break
        # commit
        hands[me, :] = whand
        if xctx[0] > 0:  # the play changed the table
            nt = tres[TU.T_ROWS]
            tab[:nt] = wtab[:nt]
        going_out = HD.commit_counters(stats, me, tres, turns[me])
        if tres[TU.T_OPENING] != 0:
            opened[me] = 1
        discard[nd] = disc
        nd += 1
        discby[me, disc] += 1
        turns[me] += 1
        turn_no += 1
        if check and HD.invariants(hands, tab, nt, stock, sp, ns, discard, nd, jokers, crules) != core.OK:
            res[H_STATUS] = STATUS_INVARIANT
            res[H_ERR_SEAT] = me
            break
        ended = HD.end_turn(res, me, going_out, tres[TU.T_KALOOKI] != 0, turn_no, rp[R_TURN_CAP])
        if not going_out:
            cur = (me + 1) % n
        if ended:
            break
        first = False
    HD.set_position(sc, sp, ns, nd, nt, turn_no, reshuffles, cur)
    return answer_code


_ZERO_COUNTS: dict[int, np.ndarray] = {}


def card_counts(lists) -> np.ndarray:
    """Lists of cards, one per player (the pickups or discards of a ``HandState``), as a count matrix
    (where every list is empty, one zero matrix shared by every caller: never written, the kernels copy it)."""
    if not any(lists):  # a fresh hand (the kernel copies what it is given)
        zero = _ZERO_COUNTS.get(len(lists))
        if zero is None:
            zero = _ZERO_COUNTS[len(lists)] = np.zeros((len(lists), N_KINDS), np.int64)
        return zero
    out = np.zeros((len(lists), N_KINDS), np.int64)
    for i, cards in enumerate(lists):
        for c in cards:
            out[i, c] += 1
    return out


from .. import meldsearch as _MS  # noqa: E402
from ..jit.cache import drop_stale  # noqa: E402
from . import kinds as _kinds, outlook as _outlook  # noqa: E402

drop_stale(run_turns, (FG, XC, EP, RB, HD, TU, core, _MS, _outlook, _kinds))
