"""A turn's play as the compiled bots build it: the draw's sources, what taking the discard
obliges, and the working table of one play.

A play is a list of operation rows (``O_*``: the engine's ``X_*`` rows of ``sim.engine.turn``, and
whether a new meld holds the taken card) applied in order to a working copy of the table (rows in
the meld search's row format) and of the hand, and undone from the end: ``add_meld``,
``add_layoff``, ``add_split`` and ``pop_op``; ``apply_layoff`` and ``undo_layoff`` change one row.
``Draft`` bundles the arrays of one play being built, ``Pending`` a play in the engine's operation
rows, ``Scratch`` the working arrays of one decision (``new_draft``, ``new_scratch``); ``turn_arrays`` reads from a ``HandState`` the arrays a compiled
decision takes.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from ... import meldsearch as MS
from ...cards import JOKER, N_KINDS, N_RANKS
from ...engine import core
from ...engine.table import table_rows
from ...engine.turn import (MAXT, X_CARD, X_EXTRA, X_KIND, X_LAYOFF, X_NEW, X_POS, X_SPLIT, X_TARGET,  # MAXT: table rows
                            obligation)
from ...meldsearch import MAX_OUT, OUT_W, new_workspace
from ...jit.cache import drop_stale

STOCK, DISCARD = 0, 1  # engine.DRAW_STOCK, engine.DRAW_DISCARD
LOW, HIGH = 0, 1
RUN, GROUP = 0, 1

MAXOPS = 160
# op rows: the engine's operation rows (sim.engine.turn X_*: kind X_NEW or X_LAYOFF, target row, card,
# end; X_EXTRA -1), and whether a new meld holds the taken card
O_KIND, O_TARGET, O_CARD, O_END, O_TAKEN = X_KIND, X_TARGET, X_CARD, X_POS, X_EXTRA + 1
OP_W = O_TAKEN + 1

NO_TABLE = np.zeros((0, OUT_W), np.int64)

# A play being built: the working table (wtab[:ctx[0]], the table's rows first), the operation rows
# (ops[:ctx[1]], O_*), ctx (its rows, its operations, a status: 9 where a buffer was full) and the hand
# left (whand).  numba passes it to compiled functions as one argument.
Draft = namedtuple("Draft", ("wtab", "ctx", "ops", "whand"))
# A play in the engine's own operation rows (sim.engine.turn X_*: xops, each new meld's row as laid in
# xmrows; their number in xctx[0]) and the hand it leaves (whand): the table play's and the random bot's,
# and a turn the compiled loop stopped at its discard (sim.bots.turn_loop).
Pending = namedtuple("Pending", ("xops", "xmrows", "xctx", "whand"))
# The working arrays of one decision: the meld search's workspace (mv, ws, rec), two hands (hh, hh2),
# three sets of meld rows (outv, outd, tmp), a lay-off search's operation rows and context (lops, lctx)
# and a table of one row (tab1).  Nothing in them outlives the decision.
Scratch = namedtuple("Scratch", ("mv", "ws", "rec", "hh", "hh2", "outv", "outd", "tmp", "lops", "lctx", "tab1"))


@njit(cache=True)
def taken_obligation(opened_me, turns_me, rp):
    """What taking the discard obliges (the engine's rule, sim.engine.turn.obligation)."""
    return obligation(opened_me, turns_me == 0, rp)


@njit(cache=True)
def _laid_rep(row, c, end):
    """The card that c stands for when laid off onto an end of the run ``row`` (or into the group
    ``row``): a natural itself; a joker the slot it fills, in a group the first missing suit (the
    engine's reading of a lay-off that names none), in an all-joker group nothing (-1)."""
    if c != JOKER:
        return c
    if row[0] == RUN:
        e = row[1] - 1 if end == LOW else row[1] + row[2]
        return (row[core.REPS] // N_RANKS) * N_RANKS + core.ext_rank_to_rank(e)
    if row[1] < 0:
        return -1
    suits = 0
    for k in range(row[2]):
        suits |= 1 << (row[core.REPS + k] // N_RANKS)
    for s in range(4):
        if not (suits >> s) & 1:
            return s * N_RANKS + row[1]
    return -1


@njit(cache=True)
def apply_layoff(tab, i, c, end):
    """Card c (a natural, or a joker standing for the slot it fills) onto an end of run i, or into
    group i, as a lay-off the engine's rules have allowed."""
    row = tab[i]
    n = row[2]
    rep = _laid_rep(row, c, end)
    if row[0] == RUN and end == LOW:
        for k in range(n, 0, -1):
            row[core.CARDS + k] = row[core.CARDS + k - 1]
            row[core.REPS + k] = row[core.REPS + k - 1]
        row[core.CARDS] = c
        row[core.REPS] = rep
        row[1] -= 1
    else:
        row[core.CARDS + n] = c
        row[core.REPS + n] = rep
    row[2] = n + 1


@njit(cache=True)
def undo_layoff(tab, i, end):
    """The last card laid off onto an end of run i (or into group i) taken back off the row."""
    row = tab[i]
    n = row[2]
    if row[0] == RUN and end == LOW:
        for k in range(n - 1):
            row[3 + k] = row[4 + k]
            row[17 + k] = row[18 + k]
        row[1] += 1
    row[2 + n] = -1
    row[16 + n] = -1
    row[2] = n - 1


@njit(cache=True)
def add_meld(wtab, ctx, ops, hand, row, taken):
    """A NewMeld: the row joins the working table, its cards leave the hand."""
    wn = ctx[0]
    o = ctx[1]
    if wn >= wtab.shape[0] or o >= ops.shape[0]:
        ctx[2] = 9
        return
    for k in range(OUT_W):
        wtab[wn, k] = row[k]
    has = 0
    for k in range(row[2]):
        c = row[3 + k]
        hand[c] -= 1
        if c == taken:
            has = 1
    push_op(ops, o, X_NEW, wn, -1, HIGH, -1)
    ops[o, O_TAKEN] = has
    ctx[0] = wn + 1
    ctx[1] = o + 1


@njit(cache=True)
def add_layoff(wtab, ctx, ops, hand, i, c, end):
    """A LayOff: card c onto an end of row i of the working table (``apply_layoff``), c leaves the hand."""
    o = ctx[1]
    if o >= ops.shape[0]:
        ctx[2] = 9
        return
    apply_layoff(wtab, i, c, end)
    hand[c] -= 1
    push_op(ops, o, X_LAYOFF, i, c, end, -1)
    ops[o, O_TAKEN] = 0
    ctx[1] = o + 1


@njit(cache=True)
def add_split(wtab, ctx, ops, hand, i, c, pos, rp):
    """A Split: run i cut at ``pos`` by card c (``core.split_row``, which the search that chose it has
    checked), the part cut off a new row of the working table, c leaves the hand."""
    wn = ctx[0]
    o = ctx[1]
    if wn >= wtab.shape[0] or o >= ops.shape[0]:
        ctx[2] = 9
        return
    first = np.empty(core.ROW_W, np.int64)
    core.split_row(wtab[i], c, pos, rp, first, wtab[wn])
    wtab[i] = first
    hand[c] -= 1
    push_op(ops, o, X_SPLIT, i, c, pos, -1)
    ops[o, O_TAKEN] = 0
    ctx[0] = wn + 1
    ctx[1] = o + 1


@njit(cache=True)
def pop_op(wtab, ctx, ops, hand):
    """The last operation of the play undone: its cards back in the hand, the working table as before it."""
    o = ctx[1] - 1
    if ops[o, O_KIND] == X_NEW:
        wn = ctx[0] - 1
        row = wtab[wn]
        for k in range(row[2]):
            hand[row[3 + k]] += 1
        ctx[0] = wn
    elif ops[o, O_KIND] == X_SPLIT:  # the part cut off is the last row: joined back onto run i
        wn = ctx[0] - 1
        row = wtab[ops[o, O_TARGET]]
        n = row[2]
        part = wtab[wn]
        for k in range(1, part[2]):
            row[core.CARDS + n + k - 1] = part[core.CARDS + k]
            row[core.REPS + n + k - 1] = part[core.REPS + k]
        row[2] = n + part[2] - 1
        part[:] = -1
        hand[ops[o, O_CARD]] += 1
        ctx[0] = wn
    else:
        undo_layoff(wtab, ops[o, O_TARGET], ops[o, O_END])
        hand[ops[o, O_CARD]] += 1
    ctx[1] = o


@njit(cache=True)
def push_op(ops, nops, kind, target, card, pos, extra):
    """Operation row nops written (the engine's ``X_*`` words); returns the next free row."""
    ops[nops, X_KIND] = kind
    ops[nops, X_TARGET] = target
    ops[nops, X_CARD] = card
    ops[nops, X_POS] = pos
    ops[nops, X_EXTRA] = extra
    return nops + 1


@njit(cache=True)
def new_draft(whand):
    """A ``Draft`` whose hand left is ``whand``, its table and operations empty."""
    return Draft(np.full((MAXT, OUT_W), -1, np.int64), np.zeros(4, np.int64), np.zeros((MAXOPS, OP_W), np.int64),
                 whand)


@njit(cache=True)
def new_scratch():
    """A ``Scratch``: the working arrays of one decision."""
    mv, ws, rec = new_workspace()
    return Scratch(mv, ws, rec, np.empty(N_KINDS, np.int8), np.empty(N_KINDS, np.int8),
                   np.empty((MAX_OUT, OUT_W), np.int64), np.empty((MAX_OUT, OUT_W), np.int64),
                   np.empty((MAX_OUT, OUT_W), np.int64), np.zeros((MAXOPS, OP_W), np.int64), np.zeros(4, np.int64),
                   np.full((1, OUT_W), -1, np.int64))


def turn_arrays(state):
    """(opened, turns taken, the table's meld rows) of a ``HandState``, as the compiled decisions read them."""
    return (np.array(state.opened, dtype=np.int64), np.array(state.turns_taken, dtype=np.int64),
            table_rows(state.table) if state.table else NO_TABLE)


drop_stale(add_split, (core, MS))
