"""A whole play validated and applied in one compiled function, written once (sim.engine).

A play is a list of operation rows (``ops``, X_* columns) with, for each new meld, its row in
``mrows`` (sim.engine.core's row format), and one discard.  ``apply_turn`` applies the operations in
order to a working copy of the table and the hand (cards freed from the table this turn are spent
first, then the hand), with every rule of docs/RULES.md 3-5 that limits them: the meld and table
operations of ``core``, the opening needed before building on the table, the per-turn limits on
cards added to a run's ends, a freed joker laid again with two cards from the hand, no freed card
kept, every changed meld valid at the end (and cleared of what the turn held, ``core.HOLD``), the
discard, the opening minimum, what a taken discard obliges, going out in the first round, Kalooki.
It answers with a code (``OK`` or the U_* rule broken, with the details in ``err``) and changes
nothing it was given but its output arrays.

``HandState.apply_play`` (the validated Python API: ``play``, transcripts, ``replay``, the fuzz and
scripted-rule tests) encodes a ``Play`` and words a refusal (sim.engine.table); the compiled hand
loop (sim.bots.hand_loop) calls it on every bot's play.  So a rule of a turn is changed in one place.

``rules`` and ``prm`` are the profile's rules and parameter vectors (``core.compiled(profile)``).
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from ..cards import JOKER, N_KINDS
from ..jit.cache import drop_stale
from . import core
from .core import (CARDS, OK, R_FIRST_ROUND_FREE_DRAW, R_GO_OUT_FIRST_ROUND, R_JOKER_TAKE_AT_OPENING,
                   R_KALOOKI_EXEMPT, R_LAYOFFS_COUNT, R_MELD_AT_ONCE, R_OPENING_MIN, R_PICKUP_BEFORE_OPENING,
                   R_RESHUFFLE_ONCE, R_RUN_END_LIMIT, R_TWO_TOTAL, ROW_W, RUN)

MAXT = 48  # table rows (at most 36 melds of three from 108 cards)
DRAW_STOCK, DRAW_DISCARD = 0, 1  # sim.engine.actions

# operations (rows of ops): kind, target meld, card, position (a run's end for a lay-off), extra card
# (a lay-off: the card a joker stands for in a group, -1 for the first missing suit; a joker swap in a
# group: the second missing suit's natural, -1 for none)
X_NEW, X_LAYOFF, X_TAKE, X_SPLIT, X_SWAP = range(5)
X_KIND, X_TARGET, X_CARD, X_POS, X_EXTRA = range(5)
X_W = 5

# the turn's additions to run ends: rows of ``adds``, a column per table row (A_FROM: the run a
# split-off part was cut from, -1 for none)
A_LOW, A_HIGH, A_TOTAL, A_FROM = range(4)

# what a turn counts (res)
(T_ROWS, T_MELDS, T_LAYOFFS, T_JOKERS, T_NEW_VALUE, T_LAYOFF_VALUE, T_PENDING, T_GOING_OUT, T_KALOOKI,
 T_OPENING, T_WITH_TAKEN) = range(11)
T_W = 11
# a refusal's details (err): the operation, the core's code, a card, value or row index
E_OP, E_CODE, E_AUX = range(3)
E_W = 3
# scratch rows: an operation's result, a split's second part, the invalid meld a refusal names, joker slots
W_TMP, W_SECOND, W_BAD, W_SLOTS = range(4)

# what a taken discard obliges (discard_obligation)
OB_NONE, OB_OPEN, OB_MELD = 0, 1, 2

# the rule a play breaks (U_*)
(U_UNKNOWN, U_MELD, U_CARDS, U_NOT_OPENED, U_JOKER_AT_OPENING, U_NO_MELD, U_LAYOFF, U_TAKE, U_SPLIT, U_SWAP,
 U_RUN_ADD_LIMIT, U_RUN_END_LIMIT, U_FULL, U_HARVEST, U_FREED_JOKER, U_TABLE, U_NO_DISCARD,
 U_DISCARD_NOT_HELD, U_DISCARD_TAKEN, U_OPEN_NO_MELD, U_OPENING_MIN, U_PICKUP_OPEN, U_PICKUP_MELD,
 U_FIRST_ROUND) = range(1, 25)
# the rule a draw breaks (D_*)
D_STOCK_EMPTY, D_UNKNOWN, D_PILE_EMPTY, D_BEFORE_OPENING, D_ONLY_COPIES = range(31, 36)


def new_adds() -> np.ndarray:
    """No additions to run ends yet this turn."""
    adds = np.zeros((4, MAXT), np.int64)
    adds[A_FROM, :] = -1
    return adds


# A turn's working arrays (``scratch``): the table after the play (wtab), the hand left, the turn's
# additions to run ends (adds, A_*), the rows laid and the rows changed (flags), the cards freed and not
# yet played again (floating), scratch rows (work, W_*), what the turn counts (res, T_*), a refusal's
# details (err, E_*) and, where a transcript wants them, the rows each operation left (trace).
TurnWork = namedtuple("TurnWork", ("wtab", "hand", "adds", "flags", "floating", "work", "res", "err", "trace"))


@njit(cache=True)
def scratch(wtab, hand):
    """The working arrays of ``apply_turn`` around the caller's table rows ``wtab`` and hand ``hand``
    (an empty trace)."""
    adds = np.zeros((4, MAXT), np.int64)
    adds[A_FROM, :] = -1
    return TurnWork(wtab, hand, adds, np.zeros((2, MAXT), np.int64), np.zeros(N_KINDS, np.int64),
                    np.empty((4, ROW_W), np.int64), np.zeros(T_W, np.int64), np.zeros(E_W, np.int64),
                    np.zeros((0, 2, ROW_W), np.int64))


# ---------------------------------------------------------------------------------------------------
# the stock and the draw
# ---------------------------------------------------------------------------------------------------

@njit(cache=True)
def stock_renewed(rules, reshuffles, n_pile):
    """An exhausted stock: is it renewed from the discard pile (reshuffle_once: once, from a pile of
    two cards or more, its top card staying as the new pile)?  Otherwise the hand is void."""
    return rules[R_RESHUFFLE_ONCE] != 0 and reshuffles == 0 and n_pile >= 2


@njit(cache=True)
def reshuffle_order(keys, n):
    """The renewed stock's order: the pile (bottom first) sorted by the keys drawn at the deal
    (stable, the first n keys); the first card is the new pile, the next the stock's top."""
    return np.argsort(keys[:n], kind="mergesort")


@njit(cache=True)
def keyed_draw(keys, ids, lo, hi):
    """A seat-keyed stock (duplicate tournaments): the position, among lo..hi-1, of the stock card
    the drawer takes, the one whose place in the pack (ids) has the drawer's highest key."""
    best = lo
    for j in range(lo + 1, hi):
        if keys[ids[j]] > keys[ids[best]]:
            best = j
    return best


@njit(cache=True)
def draw_code(source, n_stock, n_pile, opened, copies_of_top, held, rules):
    """OK or the D_* rule a draw from ``source`` breaks: an empty stock or pile, the discard taken
    before opening where discard_pickup_before_opening forbids it, or a taken card whose copies are
    all the player would hold (no copy of it may be discarded that turn: no play would be legal)."""
    if source == DRAW_STOCK:
        return OK if n_stock > 0 else D_STOCK_EMPTY
    if source != DRAW_DISCARD:
        return D_UNKNOWN
    if n_pile == 0:
        return D_PILE_EMPTY
    if not opened and rules[R_PICKUP_BEFORE_OPENING] == 0:
        return D_BEFORE_OPENING
    if copies_of_top == held:
        return D_ONLY_COPIES
    return OK


# ---------------------------------------------------------------------------------------------------
# the per-turn limits on run ends (run_end_limit, run_add_limit)
# ---------------------------------------------------------------------------------------------------

@njit(cache=True)
def _root(adds, i):
    f = adds[A_FROM, i]
    return i if f < 0 else f


@njit(cache=True)
def run_add_allowed(adds, i, end, rules):
    """May one more card be added to ``end`` of table run i this turn?  Both parts of a split run
    share run_add_limit's two cards."""
    if rules[R_TWO_TOTAL] != 0:
        return adds[A_TOTAL, _root(adds, i)] < 2
    return adds[A_LOW if end == core.LOW else A_HIGH, i] < rules[R_RUN_END_LIMIT]


@njit(cache=True)
def count_run_add(adds, i, end):
    adds[A_LOW if end == core.LOW else A_HIGH, i] += 1
    adds[A_TOTAL, _root(adds, i)] += 1


@njit(cache=True)
def split_adds(adds, i, part):
    """Run i was split and ``part`` cut off: it carries the run's high end (what was added there this
    turn still counts)."""
    adds[A_HIGH, part] = adds[A_HIGH, i]
    adds[A_HIGH, i] = 0
    adds[A_FROM, part] = _root(adds, i)


@njit(cache=True)
def obligation(opened, first_round, rules):
    """What a player who takes the discard must do with it that turn: OB_NONE, OB_OPEN (use it in the
    opening melds) or OB_MELD (meld it)."""
    if rules[R_MELD_AT_ONCE] != 0:
        return OB_MELD if opened else OB_OPEN
    if opened or (first_round and rules[R_FIRST_ROUND_FREE_DRAW] != 0):
        return OB_NONE
    return OB_OPEN


# ---------------------------------------------------------------------------------------------------
# the operations
# ---------------------------------------------------------------------------------------------------

@njit(cache=True)
def _spend(c, floating, hand):
    """A card of a new meld or an operation: one freed from the table this turn first (1), else the
    hand (2); 0 if neither holds it."""
    if c < 0 or c >= N_KINDS:
        return 0
    if floating[c] > 0:
        floating[c] -= 1
        return 1
    if hand[c] > 0:
        hand[c] -= 1
        return 2
    return 0


@njit(cache=True)
def _new_meld(row, n, wtab, hand, floating, rules, prm, flags, res, err, slots):
    """A new meld laid from the hand and cards freed this turn; its points from the hand count."""
    code = core.check_row(row, rules)
    if code != OK:
        err[E_CODE] = code
        return U_MELD
    if n >= MAXT:
        return U_FULL
    value = core.meld_value(row, prm)
    nj = 0
    harvested_jokers = 0
    from_hand = 0
    for j in range(row[2]):
        c = row[CARDS + j]
        got = _spend(c, floating, hand)
        if got == 0:
            err[E_AUX] = c
            return U_CARDS
        if got == 2:
            from_hand += 1
        if c == JOKER:
            slots[nj] = core.slot_value(row, j, prm)
            nj += 1
            if got == 1:
                harvested_jokers += 1
        elif got == 1:  # cards taken from the table never count towards the opening
            value -= core.slot_value(row, j, prm)
    if harvested_jokers > 0 and rules[R_JOKER_TAKE_AT_OPENING] == 0:
        # a freed joker counts only where it may be used in the opening; else it fills the most
        # valuable joker slots (the hand is credited with the least)
        s = slots[:nj]
        s.sort()
        for q in range(min(harvested_jokers, nj)):
            value -= s[nj - 1 - q]
    if res[T_PENDING] > 0 and nj > 0 and from_hand >= 2:  # a freed joker laid again with two from the hand
        res[T_PENDING] -= min(nj, res[T_PENDING])
    wtab[n] = row
    wtab[n, core.HOLD] = core.H_NONE  # what the turn holds starts from the table, never from a new meld
    flags[0, n] = 1
    res[T_MELDS] += 1
    res[T_NEW_VALUE] += value
    return OK


@njit(cache=True)
def apply_ops(w, nt, ops, mrows, nops, was_open, rules, prm):
    """Apply the operations ``ops[:nops]`` in order to the table ``w.wtab[:nt]`` and ``w.hand`` (both
    changed in place; ``w`` a ``TurnWork``), with the turn's run additions so far in ``w.adds`` and the
    rows laid this turn flagged in ``w.flags[0]``; ``w.flags[1]`` gets the rows changed, ``w.floating``
    the cards freed and not yet played again, w.res the counts (T_*).  w.trace[o] (when given): the rows
    operation o left at its target and, for a split, at the part cut off.  Returns OK or the U_* code,
    with w.err[E_OP] the operation."""
    wtab, hand, adds, flags, floating, work, res, err, trace = w
    n = nt
    tmp = work[W_TMP]
    second = work[W_SECOND]
    for o in range(nops):
        err[E_OP] = o
        kind = ops[o, X_KIND]
        t = ops[o, X_TARGET]
        card = ops[o, X_CARD]
        pos = ops[o, X_POS]
        if kind == X_NEW:
            code = _new_meld(mrows[o], n, wtab, hand, floating, rules, prm, flags, res, err, work[W_SLOTS])
            if code != OK:
                return code, n
            n += 1
            continue
        if kind < X_NEW or kind > X_SWAP:
            return U_UNKNOWN, n
        # building on the table needs an opening: made before this turn or being made (a new meld laid
        # earlier in the play); a joker may be taken first only where joker_take_at_opening allows it
        if not (was_open or res[T_MELDS] > 0):
            if kind != X_SWAP:
                return U_NOT_OPENED, n
            if rules[R_JOKER_TAKE_AT_OPENING] == 0:
                return U_JOKER_AT_OPENING, n
        if t < 0 or t >= n:
            err[E_AUX] = t
            return U_NO_MELD, n
        if kind == X_LAYOFF:
            was_run = wtab[t, 0] == RUN
            code, added, _ = core.lay_off_row(wtab[t], card, pos, ops[o, X_EXTRA], rules, prm, tmp)
            if code != OK:
                err[E_CODE] = code
                work[W_BAD] = tmp
                return U_LAYOFF, n
            got = _spend(card, floating, hand)
            if got == 0:
                err[E_AUX] = card
                return U_CARDS, n
            wtab[t] = tmp
            flags[1, t] = 1
            if flags[0, t] != 0:  # a meld laid this turn grows: still a new meld, no per-turn limit
                res[T_NEW_VALUE] += added if got == 2 else 0
            else:
                if was_run:
                    if not run_add_allowed(adds, t, pos, rules):
                        return (U_RUN_ADD_LIMIT if rules[R_TWO_TOTAL] != 0 else U_RUN_END_LIMIT), n
                    count_run_add(adds, t, pos)
                res[T_LAYOFFS] += 1
                res[T_LAYOFF_VALUE] += added if got == 2 else 0
        elif kind == X_TAKE:
            code, c = core.take_row(wtab[t], pos, tmp)
            if code != OK:
                err[E_CODE] = code
                err[E_AUX] = c
                work[W_BAD] = tmp
                return U_TAKE, n
            wtab[t] = tmp
            flags[1, t] = 1
            floating[c] += 1
        elif kind == X_SPLIT:
            added = core.slot_value(wtab[t], pos - 1, prm) if wtab[t, 0] == RUN and 1 <= pos <= wtab[t, 2] else 0
            code, rep, part_code = core.split_row(wtab[t], card, pos, rules, tmp, second)
            if code != OK:
                err[E_CODE] = code
                err[E_AUX] = part_code if code == core.S_PART else rep
                if code == core.S_PART:
                    work[W_BAD] = tmp if core.check_row(tmp, rules) != OK else second
                return U_SPLIT, n
            got = _spend(card, floating, hand)
            if got == 0:
                err[E_AUX] = card
                return U_CARDS, n
            if n >= MAXT:
                return U_FULL, n
            wtab[t] = tmp
            flags[1, t] = 1
            wtab[n] = second
            if flags[0, t] != 0:
                flags[0, n] = 1
            else:
                split_adds(adds, t, n)
            n += 1
            res[T_LAYOFFS] += 1
            res[T_LAYOFF_VALUE] += added if got == 2 else 0
        else:
            is_group = wtab[t, 0] != RUN
            code, bad = core.swap_joker_row(wtab[t], pos, card, ops[o, X_EXTRA], rules, tmp)
            if code != OK:
                err[E_CODE] = code
                err[E_AUX] = bad
                return U_SWAP, n
            if _spend(card, floating, hand) == 0:
                err[E_AUX] = card
                return U_CARDS, n
            extra = ops[o, X_EXTRA]
            if is_group and extra >= 0 and _spend(extra, floating, hand) == 0:
                err[E_AUX] = extra
                return U_CARDS, n
            wtab[t] = tmp
            flags[1, t] = 1
            floating[JOKER] += 1
            res[T_PENDING] += 1
            res[T_JOKERS] += 1
        if trace.shape[0] > o:
            trace[o, 0] = wtab[t]
            if kind == X_SPLIT:
                trace[o, 1] = wtab[n - 1]
    err[E_OP] = -1
    return OK, n


@njit(cache=True)
def _count(rows, nr, c):
    k = 0
    for i in range(nr):
        for j in range(rows[i, 2]):
            if rows[i, CARDS + j] == c:
                k += 1
    return k


@njit(cache=True)
def apply_turn(tab, nt, hand0, ops, mrows, nops, disc, drawn_card, drawn_from, was_open, first_round, rules, prm, w):
    """A whole play (``ops[:nops]``, then the discard ``disc``, -1 for none) by a player holding
    ``hand0`` after drawing ``drawn_card`` from ``drawn_from``, against the table ``tab[:nt]``: every
    rule checked (module docstring), in the working arrays ``w`` (a ``TurnWork`` from ``scratch``).
    w.wtab[:w.res[T_ROWS]] gets the table after it, w.hand the hand left, w.res what it counts (T_*:
    new melds, lay-offs and splits onto melds not laid this turn, jokers taken, the points from the hand
    in new melds and in lay-offs, going out, Kalooki, opening now, the taken discard in a new meld).
    Returns OK or the U_* rule broken (details in w.err).  A play of no operations leaves the table as
    it was and w.wtab untouched (the usual turn: a draw and a discard)."""
    wtab, hand, adds, flags, floating, res, err = w.wtab, w.hand, w.adds, w.flags, w.floating, w.res, w.err
    hand[:] = hand0
    res[:] = 0
    err[:] = 0
    err[E_OP] = -1
    n = nt
    if nops > 0:
        wtab[:nt] = tab[:nt]
        rows = min(nt + nops + 1, MAXT)  # each operation adds a row at most
        adds[:, :rows] = 0
        adds[A_FROM, :rows] = -1
        flags[:, :rows] = 0
        floating[:] = 0
        code, n = apply_ops(w, nt, ops, mrows, nops, was_open, rules, prm)
        res[T_ROWS] = n
        if code != OK:
            return code
        err[E_OP] = -1
        for c in range(N_KINDS):
            if floating[c] != 0:
                return U_HARVEST  # freed cards are played again the same turn, never kept in hand
        if res[T_PENDING] != 0:
            return U_FREED_JOKER
        for i in range(n):
            if flags[1, i] != 0:
                wtab[i, core.HOLD] = core.H_NONE  # a group's past in this turn binds no later turn
                code = core.check_row(wtab[i], rules)
                if code != OK:
                    err[E_CODE] = code
                    err[E_AUX] = i
                    return U_TABLE
    res[T_ROWS] = n
    # the discard
    if disc < 0:
        return U_NO_DISCARD
    if disc >= N_KINDS or hand[disc] <= 0:
        return U_DISCARD_NOT_HELD
    if drawn_from == DRAW_DISCARD and disc == drawn_card:
        return U_DISCARD_TAKEN  # whatever copies are held: a turn never gives back the card it took
    hand[disc] -= 1
    left = 0
    for c in range(N_KINDS):
        left += hand[c]
    going_out = left == 0
    opening_now = not was_open and nops > 0
    exempt = going_out and not was_open and rules[R_KALOOKI_EXEMPT] != 0
    # a Kalooki needs opening_min of new melds from the hand that turn, whatever lay-offs count
    kalooki = going_out and not was_open and (res[T_NEW_VALUE] >= rules[R_OPENING_MIN] or exempt)
    with_taken = False
    if drawn_from == DRAW_DISCARD:
        for o in range(nops):
            if ops[o, X_KIND] == X_NEW:
                for k in range(mrows[o, 2]):
                    if mrows[o, CARDS + k] == drawn_card:
                        with_taken = True
    res[T_GOING_OUT] = 1 if going_out else 0
    res[T_KALOOKI] = 1 if kalooki else 0
    res[T_OPENING] = 1 if opening_now else 0
    res[T_WITH_TAKEN] = 1 if with_taken else 0
    if opening_now:
        if res[T_MELDS] == 0:
            return U_OPEN_NO_MELD
        counted = res[T_NEW_VALUE] + (res[T_LAYOFF_VALUE] if rules[R_LAYOFFS_COUNT] != 0 else 0)
        if counted < rules[R_OPENING_MIN] and not exempt:
            err[E_AUX] = counted
            return U_OPENING_MIN
    if drawn_from == DRAW_DISCARD:
        ob = obligation(was_open, first_round, rules)
        if ob == OB_OPEN:
            if not (opening_now and with_taken):
                return U_PICKUP_OPEN
        elif ob == OB_MELD:
            if nops == 0 or _count(wtab, n, drawn_card) <= _count(tab, nt, drawn_card):
                return U_PICKUP_MELD
    if going_out and first_round and rules[R_GO_OUT_FIRST_ROUND] == 0:
        return U_FIRST_ROUND
    return OK


drop_stale(apply_turn, (core,))
