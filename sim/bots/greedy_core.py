"""The greedy and patient bots in compiled code, and what the other bots' compiled decisions share
(searching a hand, the loose discard, the discard obligation, the rules vector, the lay-off finder
``_layoffs``, the way out with new melds and lay-offs ``_go_out_building``).

The decisions are written here once, over count vectors and meld rows: ``_greedy_draw`` and
``_greedy_play`` (``bots.GreedyBot``), ``_waiting``, ``_patient_draw`` and ``_patient_play``
(``bots.PatientBot``; where its hand alone cannot open and the profile lets the table help, it
answers TABLE_OPENING and the caller asks ``bots.table_play._table_opening``).  They are used two
ways:

- by the Python engine, one decision at a time: ``decide_draw``/``decide_play``/``waiting`` turn a
  ``HandState`` into arrays and the answer into a ``Play``, which ``HandState.apply_play`` validates
  as any bot's (the expert and lookahead bots reach these through their parents);
- by the compiled hand loop (``sim.bots.hand_loop``), which plays whole hands with them.

They keep the tie-breaks of the Python bots they replaced, down to Python's iteration order
(``meld_taken_card`` sorts a set of card ids: ``_set_order`` reproduces CPython's set order), and call
the compiled kernels of ``sim.meldsearch`` (``_search_ws``/``_reconstruct`` = ``analyse``,
``go_out_kernel``/``_full_partition`` = ``can_go_out``/``can_kalooki``, ``best_discard_except_kernel``)
with the same parameter vector as the Python path.

The kernels are cached on disk by numba; ``numba_cache.drop_stale`` drops the cache when the meld
search or the rules core changes, since numba itself only watches this file.

These bots rearrange the table only to go out (``_go_out_building`` splits runs; no Take or
SwapJoker), so otherwise a table meld only grows at its ends; the table is a matrix of meld rows in
the meldsearch row format (kind, low, n, 14 cards, 14 reps).  The card taken from the discard pile
is laid off, melded or splits a run like any other; only no copy of it is thrown that turn.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .. import meldsearch as MS
from ..cards import JOKER, N_KINDS, N_RANKS
from ..engine import LayOff, NewMeld, Play, Split
from ..engine import core
from ..engine.core import R_GO_OUT_FIRST_ROUND, R_PICKUP_BEFORE_OPENING, meld_value
from ..engine.hand import STATUS_RULES
from ..engine.table import table_rows as _table_rows
from ..engine.turn import (A_FROM, MAXT, OB_MELD, OB_NONE, OB_OPEN, X_CARD, X_EXTRA, X_KIND, X_LAYOFF, X_NEW,
                           X_POS, X_SPLIT, X_TARGET, count_run_add, obligation, run_add_allowed,  # MAXT: table rows
                           split_adds)
from ..melds import Meld
from ..meldsearch import (MAX_OUT, OUT_W, P_JOKER_PENALTY, P_KALOOKI_EXEMPT,
                         P_OPENING_MIN, _full_partition, _reconstruct, _search_ws, _totals, _workspace,
                         best_discard_except_kernel, go_out_kernel)
from ..jit.cache import drop_stale
from . import kinds
from .kinds import K_PATIENT

# rule vector (int64), filled by rules_array(profile): the engine's (sim.engine.core.rules_array,
# its R_* words) and, after them, what the bots derive from the profile
R_KALOOKI_PAYS_MORE = core.R_SIZE  # kalooki_pays_more(profile)
R_TABLE_OPENING = core.R_SIZE + 1  # joker_take_at_opening or layoffs_count_for_opening: table_opening applies
R_MONEY_PER_HAND = core.R_SIZE + 2  # game_end == "single_hand": every hand is paid in money (sim.game.loser_pays)
R_PAY_PER_CARD = core.R_SIZE + 3
R_PAY_PER_JOKER = core.R_SIZE + 4
R_PAY_DOUBLE = core.R_SIZE + 5  # pay_double_on_kalooki
R_SIZE = core.R_SIZE + 6

# the bots' parameters (a row per seat; the kinds in sim.bots.kinds)
B_MAX_MISSING, B_MIN_DRAWS, B_DANGER_CARDS, B_MAX_RISK = range(4)
B_W = 4
B_NAMES = ("max_missing", "min_draws", "danger_cards", "max_risk")
TABLE_OPENING = -2  # a patient play's answer: ask the Python table_opening (profiles with its rules)

STOCK, DISCARD = 0, 1  # engine.DRAW_STOCK, engine.DRAW_DISCARD
LOW, HIGH = 0, 1
RUN, GROUP = 0, 1

MAXOPS = 160
# op rows: the engine's operation rows (sim.engine.turn X_*: kind X_NEW or X_LAYOFF, target row, card,
# end; X_EXTRA -1), and whether a new meld holds the taken card
O_KIND, O_TARGET, O_CARD, O_END, O_TAKEN = X_KIND, X_TARGET, X_CARD, X_POS, X_EXTRA + 1
OP_W = O_TAKEN + 1

# numba compiles a function once per combination of argument types, and a constant passed as an
# argument has a type of its own (its literal value): the compiled decisions pass flags and counts
# to their larger functions through these, or np.int64(...), so each is compiled once
YES, NO = np.bool_(True), np.bool_(False)

# ---------------------------------------------------------------------------------------------
# small helpers
# ---------------------------------------------------------------------------------------------

@njit(cache=True)
def _hsum(h):
    t = 0
    for c in range(h.shape[0]):
        t += h[c]
    return t


@njit(cache=True)
def _row_has(row, c):
    for k in range(row[2]):
        if row[3 + k] == c:
            return True
    return False


@njit(cache=True)
def _uses(rows, nr, c):
    """How many times card c is in the first nr meld rows (engine.table.count_on on a table)."""
    u = 0
    for r in range(nr):
        for k in range(rows[r, 2]):
            if rows[r, 3 + k] == c:
                u += 1
    return u


@njit(cache=True)
def _rows_len(rows, nr):
    t = 0
    for r in range(nr):
        t += rows[r, 2]
    return t


@njit(cache=True)
def _search(h, prm, mv, ws, rec, record):
    """(max_meld_value, min_deadwood, min_loose) as meldsearch.analyse computes them; with record,
    rec then holds what _reconstruct needs for this hand."""
    bv, bd, bl = _search_ws(h, prm, mv, ws, rec, record)
    n, t = _totals(h, prm)
    return bv, t - bd, n - bl


@njit(cache=True)
def _no_melds(h, dead, prm):
    """Whether the min-deadwood partition of h (min_deadwood dead) is sure to hold no meld: nothing
    melds, and every card has a positive penalty (so no meld is worth zero and gets emitted)."""
    _, t = _totals(h, prm)
    return dead == t and (h[JOKER] == 0 or prm[P_JOKER_PENALTY] > 0)


@njit(cache=True)
def _set_insert(table, mask, h):
    # CPython setobject.c: linear probes (9) from hash & mask, then perturbed probing
    i = h & mask
    perturb = h
    while True:
        probes = 9 if i + 9 <= mask else 0
        j = i
        while True:
            if table[j] < 0:
                table[j] = h
                return
            if probes == 0:
                break
            probes -= 1
            j += 1
        perturb >>= 5
        i = (i * 5 + 1 + perturb) & mask


@njit(cache=True)
def _set_order(cand, k, out):
    """The iteration order of the CPython set built by adding the small ints cand[:k] in order
    (``{c for c in range(53) if ...}``); written to out[:k]."""
    table = np.full(256, -1, np.int64)
    tmp = np.empty(256, np.int64)
    mask = 7
    fill = 0
    for idx in range(k):
        _set_insert(table, mask, cand[idx])
        fill += 1
        if fill * 5 >= mask * 3:
            newsize = 8
            while newsize <= fill * 4:
                newsize <<= 1
            m = 0
            for j in range(mask + 1):
                if table[j] >= 0:
                    tmp[m] = table[j]
                    m += 1
            mask = newsize - 1
            for j in range(mask + 1):
                table[j] = -1
            for j in range(m):
                _set_insert(table, mask, tmp[j])
    m = 0
    for j in range(mask + 1):
        if table[j] >= 0:
            out[m] = table[j]
            m += 1
    return m


@njit(cache=True)
def _obligation(opened_me, turns_me, rp):
    """What taking the discard obliges (the engine's rule, sim.engine.turn.obligation)."""
    return obligation(opened_me, turns_me == 0, rp)


@njit(cache=True)
def _loose_discard(hand, values, forbid, pref):
    """bots._loose_discard: the highest-value card of pref (counts; the hand if none of it is held),
    jokers last, higher card id first on ties; never a copy of the forbidden card if avoidable."""
    use_pref = False
    for c in range(N_KINDS):
        if pref[c] > 0 and hand[c] > 0:
            use_pref = True
            break
    best = -1
    bv = 0
    top = -1
    tv = 0
    for c in range(N_KINDS - 1, -1, -1):  # ids descending: the first of equal values wins
        if hand[c] <= 0 or (use_pref and pref[c] <= 0):
            continue
        v = values[c] if c != JOKER else -1
        if top < 0 or v > tv:
            top = c
            tv = v
        if c != forbid and (best < 0 or v > bv):
            best = c
            bv = v
    return best if best >= 0 else top


# ---------------------------------------------------------------------------------------------
# the working table of one play: operations applied in order, undone from the end
# ---------------------------------------------------------------------------------------------

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
def _apply_layoff(tab, i, c, end):
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
def _undo_layoff(tab, i, end):
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
def _add_meld(wtab, ctx, ops, hand, row, taken):
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
    _push(ops, o, X_NEW, wn, -1, HIGH, -1)
    ops[o, O_TAKEN] = has
    ctx[0] = wn + 1
    ctx[1] = o + 1


@njit(cache=True)
def _add_layoff(wtab, ctx, ops, hand, i, c, end):
    o = ctx[1]
    if o >= ops.shape[0]:
        ctx[2] = 9
        return
    _apply_layoff(wtab, i, c, end)
    hand[c] -= 1
    _push(ops, o, X_LAYOFF, i, c, end, -1)
    ops[o, O_TAKEN] = 0
    ctx[1] = o + 1


@njit(cache=True)
def _add_split(wtab, ctx, ops, hand, i, c, pos, rp):
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
    _push(ops, o, X_SPLIT, i, c, pos, -1)
    ops[o, O_TAKEN] = 0
    ctx[0] = wn + 1
    ctx[1] = o + 1


@njit(cache=True)
def _pop_op(wtab, ctx, ops, hand):
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
        _undo_layoff(wtab, ops[o, O_TARGET], ops[o, O_END])
        hand[ops[o, O_CARD]] += 1
    ctx[1] = o


@njit(cache=True)
def _push(ops, nops, kind, target, card, pos, extra):
    ops[nops, X_KIND] = kind
    ops[nops, X_TARGET] = target
    ops[nops, X_CARD] = card
    ops[nops, X_POS] = pos
    ops[nops, X_EXTRA] = extra
    return nops + 1


@njit(cache=True)
def _layoffs(wtab, nt, hand, keep, forbid, adds, rp, crules, prm, ops, nops, ctx, splits, max_ops):
    """The bots' lay-offs: natural hand cards onto the table in table order, both run ends, groups by
    suit, and with ``splits`` a hand card duplicating an inner card of a run splits it; repeated while
    anything changed (``max_ops`` operations at most), leaving ``keep`` cards, one of them not a copy of
    ``forbid`` (the card taken from the discard pile, which may be laid off or split like any other but
    not thrown).  Then, where nothing but jokers would be left in hand after the discard (one natural
    card at most), the jokers too (``_lay_off_jokers``).  ctx[0]: ops, ctx[1]: table rows."""
    size = _hsum(hand)
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
                    _apply_layoff(wtab, i, rep, end)
                    hand[rep] -= 1
                    size -= 1
                    if rep != forbid:
                        free -= 1
                    nops = _push(ops, nops, X_LAYOFF, i, rep, end, -1)
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
                    nops = _push(ops, nops, X_SPLIT, i, c, pos + 1, -1)
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
                        _apply_layoff(wtab, i, c, HIGH)
                        hand[c] -= 1
                        size -= 1
                        if c != forbid:
                            free -= 1
                        suits |= 1 << s
                        nops = _push(ops, nops, X_LAYOFF, i, c, HIGH, -1)
                        made += 1
                        changed = True
                        if size <= keep:
                            ctx[0] = nops
                            ctx[1] = nt
                            return
            i += 1
    if hand[JOKER] > 0 and size - hand[JOKER] <= 1 and made < max_ops:
        most = size - keep if forbid == JOKER else min(size - keep, free - 1)
        nops = _lay_off_jokers(wtab, nt, hand, most, adds, crules, prm, ops, nops, max_ops - made)
    ctx[0] = nops
    ctx[1] = nt


@njit(cache=True)
def _lay_off_jokers(wtab, nt, hand, most, adds, crules, prm, ops, nops, max_ops):
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
                _apply_layoff(wtab, i, JOKER, end)
                hand[JOKER] -= 1
                laid += 1
                nops = _push(ops, nops, X_LAYOFF, i, JOKER, end, -1)
                if row[0] == RUN:
                    count_run_add(adds, i, end)
    return nops


@njit(cache=True)
def _find_layoffs(tab, ntab, hand, keep, forbid, rp, prm, ops, ctx):
    """The greedy bot's lay-offs (``_layoffs`` without splits, the turn's run limits fresh) onto
    tab[:ntab], recorded after ops[:ctx[1]]; at least keep cards are left in hand, one of them not a
    copy of ``forbid``.  Each lay-off spends a hand card, so they fit in ops (MAXOPS rows, far more
    than a hand holds)."""
    adds = np.zeros((4, MAXT), np.int64)  # the engine's run additions this turn (sim.engine.turn.A_*)
    adds[A_FROM, :] = -1
    lctx = np.empty(2, np.int64)
    _layoffs(tab, ntab, hand, keep, forbid, adds, rp, rp, prm, ops, ctx[1], lctx, NO, np.int64(40))
    for o in range(ctx[1], lctx[0]):
        ops[o, O_TAKEN] = 0
    ctx[1] = lctx[0]


@njit(cache=True)
def _leaves_a_discard(hand, rows, nr, forbid, keep, rest):
    """bots.moves.leaves_a_discard: laying rows[:nr] from hand keeps keep cards, one not a copy of forbid."""
    rest[:] = hand
    for r in range(nr):
        for k in range(rows[r, 2]):
            rest[rows[r, 3 + k]] -= 1
    return _hsum(rest) >= keep and _discardable(rest, forbid)


@njit(cache=True)
def _discardable(hand, forbid):
    for c in range(N_KINDS):
        if hand[c] > 0 and c != forbid:
            return True
    return False


# ---------------------------------------------------------------------------------------------
# the greedy bot's helpers (sim/bots/moves.py), on count vectors and meld rows
# ---------------------------------------------------------------------------------------------

@njit(cache=True)
def _go_out(hand, loose, prm, kalooki, forbid, mv, ws, rec, out, hh):
    """bots.go_out: (discard, melds in out[:n], rec overwritten) to go out this turn, or (-1, 0, _).
    loose: min_loose of the hand."""
    if loose > 1:  # going out leaves one card loose at most: no discard can work (exact shortcut)
        return -1, 0, False
    c = go_out_kernel(hand, prm, kalooki)
    if c < 0:
        return -1, 0, False
    if c != forbid:
        hh[:] = hand
        hh[c] -= 1
        _, rows = _full_partition(hh, prm)
        nr = rows.shape[0]
        out[:nr] = rows
        return c, nr, False
    for x in range(N_KINDS - 1, -1, -1):
        if hand[x] <= 0 or x == forbid:
            continue
        hh[:] = hand
        hh[x] -= 1
        _, _, l2 = _search(hh, prm, mv, ws, rec, YES)
        if l2 != 0:
            continue
        nr = _reconstruct(hh, prm, rec, np.int64(1), out)
        if nr == 0 or _rows_len(out, nr) != _hsum(hh):
            continue
        if kalooki and prm[P_KALOOKI_EXEMPT] == 0:
            v = 0
            for r in range(nr):
                v += meld_value(out[r], prm)
            if v < prm[P_OPENING_MIN]:
                continue
        return x, nr, True
    return -1, 0, True


# ---------------------------------------------------------------------------------------------
# going out with the table's help: new melds from the hand and lay-offs, jokers included
# ---------------------------------------------------------------------------------------------

MAX_GO_OPTS = 512  # lay-off options one search weighs at most (a hand of 15 offers far fewer)
MAX_GO_LEAVES = 16384  # combinations of them tried at most
# an option (a row of ``opts``): its table meld, cards laid, jokers the meld still takes after it,
# points laid off, splits made, then up to nine (card, end) pairs in the order they are laid: up to four
# lay-offs onto the run's ends, then up to two splits of the run so extended (the end SPLIT_AT + the
# split's position, the higher split first, so that the lower one still cuts the meld's own row), or
# one split and up to four lay-offs onto the two ends it makes inside the run (the part below's new
# high end HIGH, the part cut off's new low end CUT_LOW)
G_TARGET, G_N, G_ROOM, G_VALUE, G_SPLITS, G_CARDS, G_ENDS = 0, 1, 2, 3, 4, 5, 14
G_SLOTS = 9
G_W = 23
SPLIT_AT = 2  # an end code SPLIT_AT + pos: a split at pos (core.split_row's slot), not a lay-off
CUT_LOW = -1  # an end code: the low end of the part the split just before cut off (the table's last row)


@njit(cache=True)
def _joker_room(row, adds1, crules, prm, work, ends):
    """How many jokers the meld ``row`` takes by lay-offs one after another (a run's low end first,
    then its high end; a three-card group's missing suit; an all-joker group), each allowed by the
    engine's rules (``core.lay_off_row``, and the turn's run limits from the additions ``adds1``, a
    one-run copy of the engine's ``adds``); their ends to ends[:k] and points to ends[4 + j]."""
    cur = work[0]
    nxt = work[1]
    cur[:] = row
    a = adds1.copy()
    k = 0
    while k < 4:
        placed = False
        for end in (LOW, HIGH):
            if cur[0] == RUN:
                if not run_add_allowed(a, 0, end, crules):
                    continue
            elif end == LOW:
                continue
            code, added, _ = core.lay_off_row(cur, JOKER, end, np.int64(-1), crules, prm, nxt)
            if code == core.OK:
                cur[:] = nxt
                if cur[0] == RUN:
                    count_run_add(a, 0, end)
                ends[k] = end
                ends[4 + k] = added
                k += 1
                placed = True
                break
        if not placed:
            break
    return k


@njit(cache=True)
def _held_at(hand, suit, e):
    """Does the hand hold the natural of ``suit`` at extended rank e (0 a low ace, 13 a high ace)?"""
    return 0 <= e <= 13 and hand[suit * N_RANKS + core.ext_rank_to_rank(e)] > 0


@njit(cache=True)
def _go_out_options(hand, tab, nt, crules, prm, opts, first, count, room0, marks):
    """Every way to lay natural cards of the hand off onto each table meld in one turn (a run end:
    the next natural, the next two, or a joker and the natural after it; a three-card group: a
    natural of a missing suit), and to split a run so extended once or twice with cards of the hand
    (a joker standing for the card it duplicates), a split followed where it helps by lay-offs onto
    the ends it makes inside the run (``_split_options``), each allowed by the engine's rules: opts rows (G_*), meld i's at
    first[i]..first[i] + count[i] - 1; room0[i]: jokers meld i takes with none of them; marks[c]:
    natural c is in some option.  Returns the number of options."""
    work = np.empty((4, core.ROW_W), np.int64)
    parts = np.empty((4, core.ROW_W), np.int64)
    ends = np.empty(8, np.int64)
    a = np.zeros((4, 1), np.int64)
    a[A_FROM, 0] = -1
    nj = hand[JOKER]
    k = 0
    for i in range(nt):
        row = tab[i]
        first[i] = k
        a[:, 0] = 0
        a[A_FROM, 0] = -1
        room0[i] = _joker_room(row, a, crules, prm, work, ends) if nj > 0 else 0
        if row[0] == RUN:
            # the naturals one and two slots beyond each end: an option needs the hand to hold them;
            # a split needs a natural of the run's suit within it
            s = row[core.REPS] // N_RANKS
            lo1 = _held_at(hand, s, row[1] - 1)
            lo2 = _held_at(hand, s, row[1] - 2)
            hi1 = _held_at(hand, s, row[1] + row[2])
            hi2 = _held_at(hand, s, row[1] + row[2] + 1)
            splits = nj > 0 and row[2] >= 5  # a joker standing for an inner card may split it
            for e in range(row[1], row[1] + row[2]):
                if _held_at(hand, s, e):
                    splits = True
            if not (lo1 or lo2 or hi1 or hi2 or splits):
                count[i] = 0
                continue
            # at each end: nothing, one natural, two naturals, a joker and a natural, or a joker alone (only
            # before a split: elsewhere ``_place_jokers`` lays a lone joker)
            for lo in range(5):
                for hi in range(5):
                    if ((lo == 0 and hi == 0 and not splits) or k >= MAX_GO_OPTS
                            or (nj == 0 and (lo >= 3 or hi >= 3)) or ((lo == 4 or hi == 4) and not splits)):
                        continue
                    if ((lo in (1, 2) and not lo1) or (lo in (2, 3) and not lo2) or (hi in (1, 2) and not hi1)
                            or (hi in (2, 3) and not hi2)):
                        continue
                    cur = work[2]
                    nxt = work[3]
                    cur[:] = row
                    a[:, 0] = 0
                    a[A_FROM, 0] = -1
                    n = 0
                    value = 0
                    jokers = 0
                    ok = True
                    for side in (LOW, HIGH):
                        kind = lo if side == LOW else hi
                        steps = 0 if kind == 0 else (1 if kind in (1, 4) else 2)
                        for step in range(steps):
                            if not run_add_allowed(a, 0, side, crules):
                                ok = False
                                break
                            c = JOKER if (kind == 4 or (kind == 3 and step == 0)) else -1
                            if c < 0:
                                c = core.run_extension(cur, side, crules)
                            if c < 0:
                                ok = False
                                break
                            code, added, _ = core.lay_off_row(cur, c, side, np.int64(-1), crules, prm, nxt)
                            if code != core.OK:
                                ok = False
                                break
                            cur[:] = nxt
                            count_run_add(a, 0, side)
                            opts[k, G_CARDS + n] = c
                            opts[k, G_ENDS + n] = side
                            n += 1
                            value += added
                            if c == JOKER:
                                jokers += 1
                        if not ok:
                            break
                    if not ok or jokers > nj:
                        continue
                    for j in range(n):  # the hand holds the option's naturals (two ends never need one card twice)
                        c = opts[k, G_CARDS + j]
                        if c != JOKER and hand[c] <= 0:
                            ok = False
                    if not ok:
                        continue
                    base = k
                    if n > 0 and lo != 4 and hi != 4:  # the lay-offs alone
                        for j in range(n):
                            marks[opts[k, G_CARDS + j]] = 1
                        opts[k, G_TARGET] = i
                        opts[k, G_N] = n
                        opts[k, G_VALUE] = value
                        opts[k, G_SPLITS] = 0
                        opts[k, G_ROOM] = _joker_room(cur, a, crules, prm, work, ends) if nj > jokers else 0
                        k += 1
                    if splits:  # then one or two splits of the run they leave
                        k = _split_options(hand, cur, i, opts, base, k, n, value, jokers, crules, prm, marks,
                                           parts)
        elif row[1] >= 0 and row[2] == 3:
            for sx in range(4):
                c = sx * N_RANKS + row[1]
                if hand[c] <= 0 or k >= MAX_GO_OPTS:
                    continue
                code, added, _ = core.lay_off_row(row, c, HIGH, np.int64(-1), crules, prm, work[3])
                if code != core.OK:
                    continue
                marks[c] = 1
                opts[k, G_TARGET] = i
                opts[k, G_N] = 1
                opts[k, G_VALUE] = added
                opts[k, G_SPLITS] = 0
                opts[k, G_CARDS] = c
                opts[k, G_ENDS] = HIGH
                opts[k, G_ROOM] = 0
                k += 1
        count[i] = k - first[i]
    return k


@njit(cache=True)
def _split_options(hand, run, i, opts, base, k, n, value, jokers, crules, prm, marks, parts):
    """``_go_out_options``' splits of table run i as the lay-offs opts[base]'s first n (card, end)
    pairs leave it (``run``; worth ``value``, ``jokers`` of them jokers): each card of the hand (beyond
    those lay-offs) that duplicates an inner card of it, a natural or a joker standing for it, splits
    it into two runs the engine's rules take (``core.split_row``), alone, with a second split of the
    lower part by a natural, or with naturals laid off onto the two ends the split makes
    (``_inner_options``); a joker splits only where it could not simply be laid off onto the run (no
    room left at its ends) or with such lay-offs.  Options from row k on, returns the next free row.
    A split adds the points of the card it duplicates."""
    m = run[2]
    first = parts[0]
    second = parts[1]
    spare_jokers = hand[JOKER] - jokers
    for pos in range(m - 2, 2, -1):
        nat = run[core.REPS + pos - 1]
        held = np.int64(hand[nat])
        for j in range(n):
            if opts[base, G_CARDS + j] == nat:
                held -= 1
        for c in (nat, JOKER):
            if k >= MAX_GO_OPTS:
                break
            if c == nat and (nat == JOKER or held <= 0):
                continue
            if c == JOKER and spare_jokers <= 0:
                continue
            code, _, _ = core.split_row(run, c, pos, crules, first, second)
            if code != core.OK:
                continue
            v1 = prm[core.P_EXTV + run[1] + pos - 1]
            if c != JOKER or _run_full(run, opts, base, n, crules, prm, parts[2]):
                k = _put_split(opts, base, k, i, n, value + v1, c, pos, -1, -1, marks)
            k = _inner_options(hand, first, second, i, opts, base, k, n, value + v1, c, pos, crules, prm, marks,
                               parts)
            if c == JOKER:
                continue
            for pos2 in range(pos - 2, 2, -1):
                c2 = first[core.REPS + pos2 - 1]
                if held - (1 if c2 == c else 0) <= 0 or k >= MAX_GO_OPTS:
                    continue
                code, _, _ = core.split_row(first, c2, pos2, crules, parts[2], parts[3])
                if code == core.OK:
                    k = _put_split(opts, base, k, i, n, value + v1 + prm[core.P_EXTV + first[1] + pos2 - 1], c,
                                   pos, c2, pos2, marks)
    return k


@njit(cache=True)
def _run_full(run, opts, base, n, crules, prm, tmp):
    """Does the run, with opts[base]'s n cards laid onto its ends this turn, take no joker at either
    end (its shape, the joker limit, the turn's run limits)?"""
    if crules[core.R_TWO_TOTAL] != 0 and n >= 2:
        return True
    for end in (LOW, HIGH):
        laid = 0
        for j in range(n):
            if opts[base, G_ENDS + j] == end:
                laid += 1
        if crules[core.R_TWO_TOTAL] == 0 and laid >= crules[core.R_RUN_END_LIMIT]:
            continue
        code, _, _ = core.lay_off_row(run, JOKER, end, np.int64(-1), crules, prm, tmp)
        if code == core.OK:
            return False
    return True


@njit(cache=True)
def _inner_options(hand, first, second, i, opts, base, k, n, value, c, pos, crules, prm, marks, parts):
    """Options of a split of run i at pos by c (its parts ``first``, kept at row i, and ``second``,
    cut off): the lay-offs of opts[base] (n), the split, then naturals of the hand beyond those laid
    onto the ends the split makes, the next one or two above the duplicated card onto first's high
    end, the next one or two below it onto second's low end (``core.lay_off_row``; per_end: each
    a fresh end; two_total: the two cards the run's outer ends left); returns the next free row."""
    s = first[core.REPS] // N_RANKS
    e = first[1] + first[2] - 1  # the extended rank both parts hold
    if not (_held_at(hand, s, e + 1) or _held_at(hand, s, e - 1)):
        return k
    left = crules[core.R_RUN_END_LIMIT]
    if crules[core.R_TWO_TOTAL] != 0:
        left = 2 - n
    cur_hi = parts[2]
    cur_lo = parts[3]
    tmp = np.empty(core.ROW_W, np.int64)
    used = np.zeros(8, np.int64)
    vals = np.zeros(8, np.int64)
    for hi in range(3):
        for lo in range(3):
            if (hi == 0 and lo == 0) or k >= MAX_GO_OPTS:
                continue
            if crules[core.R_TWO_TOTAL] != 0:
                if hi + lo > left:
                    continue
            elif hi > left or lo > left:
                continue
            ok = True
            nu = 0
            cur_hi[:] = first
            cur_lo[:] = second
            for side in (HIGH, LOW):
                cur = cur_hi if side == HIGH else cur_lo
                for _ in range(hi if side == HIGH else lo):
                    x = core.run_extension(cur, side, crules)
                    if x < 0:
                        ok = False
                        break
                    have = np.int64(hand[x]) - (1 if x == c else 0)
                    for j in range(n):
                        if opts[base, G_CARDS + j] == x:
                            have -= 1
                    for j in range(nu):
                        if used[j] == x:
                            have -= 1
                    if have <= 0:
                        ok = False
                        break
                    code, added, _ = core.lay_off_row(cur, x, side, np.int64(-1), crules, prm, tmp)
                    if code != core.OK:
                        ok = False
                        break
                    cur[:] = tmp
                    used[nu] = x
                    vals[nu] = added
                    nu += 1
                if not ok:
                    break
            if not ok:
                continue
            k = _put_split(opts, base, k, i, n, value, c, pos, -1, -1, marks)
            row = k - 1
            v = 0
            for j in range(nu):
                opts[row, G_CARDS + n + 1 + j] = used[j]
                opts[row, G_ENDS + n + 1 + j] = HIGH if j < hi else CUT_LOW
                marks[used[j]] = 1
                v += vals[j]
            opts[row, G_N] = n + 1 + nu
            opts[row, G_VALUE] = value + v
    return k


@njit(cache=True)
def _put_split(opts, base, k, i, n, value, c, pos, c2, pos2, marks):
    """Option row k: the lay-offs of opts[base] (n of them), then a split at pos with c and, where
    c2 >= 0, one at pos2 with c2; returns k + 1."""
    for j in range(n):
        opts[k, G_CARDS + j] = opts[base, G_CARDS + j]
        opts[k, G_ENDS + j] = opts[base, G_ENDS + j]
        marks[opts[base, G_CARDS + j]] = 1
    opts[k, G_CARDS + n] = c
    opts[k, G_ENDS + n] = SPLIT_AT + pos
    marks[c] = 1
    ns = 1
    if c2 >= 0:
        opts[k, G_CARDS + n + 1] = c2
        opts[k, G_ENDS + n + 1] = SPLIT_AT + pos2
        marks[c2] = 1
        ns = 2
    opts[k, G_TARGET] = i
    opts[k, G_N] = n + ns
    opts[k, G_VALUE] = value
    opts[k, G_SPLITS] = ns
    opts[k, G_ROOM] = 0  # no joker is laid onto a split run's parts
    return k + 1


@njit(cache=True)
def _go_out_discard(h, opened, need, forbid, must, prm, mv, ws, rec):
    """The discard after which every other card of h melds in new melds (-1 if none): never a copy
    of ``forbid``; before opening, the new melds must hold ``must`` (when >= 0), and be worth
    ``need`` points (when need > 0), and there must be one."""
    n = _hsum(h)
    if not opened and must >= 0 and h[must] == 0:
        return -1
    if n == 1:
        if not opened:
            return -1
        for c in range(N_KINDS):
            if h[c] > 0 and c != forbid:
                return c
        return -1
    # each natural needs two cards of h it could meld with: such a stray card can only be the discard
    stray = -1
    for c in range(52):
        if h[c] > 0 and not _could_meld_in(h, c):
            if stray >= 0 or h[c] > 1:
                return -1
            stray = c
    if stray < 0:
        _, _, loose = _search(h, prm, mv, ws, rec, NO)
        if loose > 1:
            return -1
    for d in range(N_KINDS - 1, -1, -1):
        if h[d] <= 0 or d == forbid or (d == must and h[d] == 1) or (stray >= 0 and d != stray):
            continue
        h[d] -= 1
        ok = True
        for c in range(52):  # what the discard leaves must hold no stray card either
            if h[c] > 0 and not _could_meld_in(h, c):
                ok = False
                break
        if ok:
            _, _, left = _search(h, prm, mv, ws, rec, NO)
            ok = left == 0
        if ok and not opened and need > 0:
            ok = MS._full_search(h, prm, np.zeros((1, MS.REC_W), np.int64)) >= need
        h[d] += 1
        if ok:
            return d
    return -1


@njit(cache=True)
def _could_meld_in(h, c):
    """Could natural c meld with two other cards of h (same rank in other suits, neighbours of its
    suit within two ranks, jokers)?"""
    have = h[JOKER]
    r = c % N_RANKS
    s = c // N_RANKS
    for x in range(4):
        if x != s and h[x * N_RANKS + r] > 0:
            have += 1
    if have >= 2:
        return True
    have = h[JOKER]
    for d in (-2, -1, 1, 2):
        if h[s * N_RANKS + (r + d) % N_RANKS] > 0:
            have += 1
    return have >= 2


@njit(cache=True)
def _place_jokers(tab, nt, opts, chosen, k, crules, prm, lay, nl):
    """k jokers laid off (rows of lay from nl: target, card, end) onto the melds as the chosen options
    leave them (chosen[i]: meld i's option, -1 none), each meld taking what ``_joker_room`` gives it,
    in table order; returns (rows of lay, points laid off)."""
    work = np.empty((4, core.ROW_W), np.int64)
    ends = np.empty(8, np.int64)
    a = np.zeros((4, 1), np.int64)
    value = 0
    for i in range(nt):
        if k == 0:
            break
        cur = work[2]
        nxt = work[3]
        cur[:] = tab[i]
        a[:, 0] = 0
        a[A_FROM, 0] = -1
        o = chosen[i]
        if o >= 0 and opts[o, G_SPLITS] > 0:
            continue
        if o >= 0:
            for j in range(opts[o, G_N]):
                end = opts[o, G_ENDS + j]
                core.lay_off_row(cur, opts[o, G_CARDS + j], end, np.int64(-1), crules, prm, nxt)
                cur[:] = nxt
                if cur[0] == RUN:
                    count_run_add(a, 0, end)
        room = _joker_room(cur, a, crules, prm, work, ends)
        for j in range(min(room, k)):
            lay[nl, 0] = i
            lay[nl, 1] = JOKER
            lay[nl, 2] = ends[j]
            value += ends[4 + j]
            nl += 1
            k -= 1
    return nl, value


@njit(cache=True)
def _layable_mask(hand, tab, nt, rp):
    """(the natural cards of the hand, a bit each, that lay-offs onto tab[:nt] could place this turn,
    how many of the hand's cards those are): the naturals that fill the slot next to a run's end, or
    the one after it where the next is held or a joker could fill it, a three-card group's missing
    suit, or a card of a run that a duplicate held could split it at (two cards of the run, or of
    what the hand could lay off, on each side: ``_split_options``) or that could go onto an end such a
    split (by a natural or a joker) within two ranks of it makes (a cheap superset: the engine's
    rules decide in ``_go_out_options``)."""
    seen = np.int64(0)
    k = np.int64(0)
    for i in range(nt):
        row = tab[i]
        if row[0] == RUN:
            s = row[core.REPS] // N_RANKS
            for e1, e2 in ((row[1] - 1, row[1] - 2), (row[1] + row[2], row[1] + row[2] + 1)):
                if _held_at(hand, s, e1):
                    c = s * N_RANKS + core.ext_rank_to_rank(e1)
                    if not (seen >> c) & 1:
                        seen |= np.int64(1) << c
                        k += hand[c]
                elif hand[JOKER] == 0:
                    continue
                if rp[core.R_RUN_END_LIMIT] >= 2 and _held_at(hand, s, e2):
                    c = s * N_RANKS + core.ext_rank_to_rank(e2)
                    if not (seen >> c) & 1:
                        seen |= np.int64(1) << c
                        k += hand[c]
            low, high = row[1], row[1] + row[2] - 1
            below = hand[JOKER] > 0 or _held_at(hand, s, low - 1)
            above = hand[JOKER] > 0 or _held_at(hand, s, high + 1)
            for e in range(low, high + 1):
                if not _held_at(hand, s, e):
                    continue
                # it splits the run, or goes onto an end a split within two ranks of it makes inside it
                near = False
                lo_s = low - 2 if below else low  # the run as far as the hand could extend it first
                hi_s = high + 2 if above else high
                for e2 in range(max(e - 2, lo_s + 2), min(e + 2, hi_s - 2) + 1):
                    if e2 != e and (hand[JOKER] > 0 or _held_at(hand, s, e2)):
                        near = True
                if near or ((e - low >= 2 or below) and (high - e >= 2 or above)):
                    c = s * N_RANKS + core.ext_rank_to_rank(e)
                    if not (seen >> c) & 1:
                        seen |= np.int64(1) << c
                        k += hand[c]
        elif row[1] >= 0 and row[2] == 3:
            for sx in range(4):
                c = sx * N_RANKS + row[1]
                if hand[c] > 0 and not (seen >> c) & 1:
                    seen |= np.int64(1) << c
                    k += hand[c]
    return seen, k


@njit(cache=True)
def _layable_bound(hand, tab, nt, rp):
    """At most how many hand cards lay-offs onto tab[:nt] could place this turn: the naturals of
    ``_layable_mask`` and every joker."""
    _, k = _layable_mask(hand, tab, nt, rp)
    return k + hand[JOKER]


@njit(cache=True)
def _kalooki_reach(v, rp):
    """Could a player who has not opened, whose hand's melds are worth v at most, go out this turn?
    Its new melds come from the hand, and must reach opening_min unless lay-offs count towards it or
    a Kalooki is exempt from it."""
    return v >= rp[core.R_OPENING_MIN] or rp[core.R_LAYOFFS_COUNT] != 0 or rp[core.R_KALOOKI_EXEMPT] != 0


@njit(cache=True)
def _stray_cards(hand, tab, nt, rp):
    """How many natural cards of the hand can neither meld with two other cards of it nor fill any
    slot ``_layable_mask`` counts: a way out leaves one such card at most (the discard)."""
    layable, _ = _layable_mask(hand, tab, nt, rp)
    k = 0
    for c in range(52):
        if hand[c] > 0 and not (layable >> c) & 1 and not _could_meld_in(hand, c):
            k += hand[c]
    return k


@njit(cache=True)
def _go_out_building(hand, loose, tab, nt, opened, forbid, must, rp, prm, mv, ws, rec, outv, lay):
    """Going out this turn with new melds from the hand, lay-offs onto the table melds tab[:nt],
    jokers included, and splits of table runs, every lay-off and split one the engine's rules allow
    (``core.lay_off_row``, ``core.split_row`` and the turn's run limits): the combinations of each
    meld's options (``_go_out_options``: a run's end lay-offs, then one or two splits of the run they
    leave, or one split and lay-offs onto the ends it makes inside the run) are tried, and with each, laying off 0.. of the jokers wherever they still go (never onto
    a run split in the play); the cards left must all meld but the discard, which is never a copy of
    ``forbid`` (the card taken from the pile, itself laid, laid off or splitting like any other).
    Before opening, new melds must be laid and reach opening_min (with the points laid off where
    layoffs_count_for_opening; none where kalooki_exempt_from_minimum), holding ``must`` (a taken
    discard that obliges an opening).  ``loose``: the hand's min_loose.  Returns (discard,
    new melds in outv, lay-offs and splits in lay as (target, card, end) rows in the order they are
    made, the end SPLIT_AT + pos for a split at pos, CUT_LOW for the low end of the part it cut off),
    the discard -1 when there is no way out."""
    if nt == 0 or _stray_cards(hand, tab, nt, rp) > 1:
        return -1, 0, 0
    opts = np.empty((MAX_GO_OPTS, G_W), np.int64)
    first = np.empty(nt, np.int64)
    count = np.empty(nt, np.int64)
    room0 = np.empty(nt, np.int64)
    marks = np.zeros(N_KINDS, np.int64)
    nopt = _go_out_options(hand, tab, nt, rp, prm, opts, first, count, room0, marks)
    room_all = 0
    for i in range(nt):
        room_all += room0[i]
    # a way out leaves at most the discard and the cards laid off out of the hand's melds
    layable = hand[JOKER] if (room_all > 0 or marks[JOKER] != 0) else 0  # an end or a split takes them
    for c in range(52):
        if marks[c] != 0:
            layable += hand[c]
    if layable == 0 or loose > layable + 1:
        return -1, 0, 0
    need = 0
    if not opened and rp[core.R_KALOOKI_EXEMPT] == 0:
        need = prm[P_OPENING_MIN]
    # a Kalooki first (new melds alone reach the minimum), then an opening the lay-offs help reach
    for counted in range(2 if (need > 0 and rp[core.R_LAYOFFS_COUNT] != 0) else 1):
        disc, nr, nl = _go_out_combos(hand, tab, nt, opened, forbid, must, need, counted == 1, rp, prm, mv, ws, rec,
                                      outv, lay, opts, first, count, room0, room_all)
        if disc >= 0:
            return disc, nr, nl
    return -1, 0, 0


@njit(cache=True)
def _go_out_combos(hand, tab, nt, opened, forbid, must, need, counted, rp, prm, mv, ws, rec, outv, lay, opts, first,
                   count, room0, room_all):
    """``_go_out_building``'s search over the options' combinations, the lay-offs counted towards the
    opening minimum or not."""
    # the melds with options, tried as an odometer: cur[d] = -1 (none) or an option of meld idx[d]
    idx = np.empty(nt, np.int64)
    nm = 0
    for i in range(nt):
        if count[i] > 0:
            idx[nm] = i
            nm += 1
    cur = np.full(nm + 1, -2, np.int64)
    chosen = np.full(nt, -1, np.int64)
    h = hand.copy()
    room = room_all
    value = 0
    leaves = 0
    d = 0
    while d >= 0:
        if d == nm:
            leaves += 1
            nj = h[JOKER]
            for k in range(min(nj, room), -1, -1):
                h[JOKER] -= k
                need_k = need
                if counted and need > 0:
                    jv = 0
                    if k > 0:
                        _, jv = _place_jokers(tab, nt, opts, chosen, k, rp, prm, lay, np.int64(0))
                    need_k = max(need - value - jv, 1)
                disc = _go_out_discard(h, opened, need_k, forbid, must, prm, mv, ws, rec)
                if disc >= 0:
                    nl = 0
                    for i in range(nt):
                        o = chosen[i]
                        if o >= 0:
                            for j in range(opts[o, G_N]):
                                lay[nl, 0] = i
                                lay[nl, 1] = opts[o, G_CARDS + j]
                                lay[nl, 2] = opts[o, G_ENDS + j]
                                nl += 1
                    nl, _ = _place_jokers(tab, nt, opts, chosen, k, rp, prm, lay, nl)
                    h[disc] -= 1
                    nr = 0
                    if _hsum(h) > 0:
                        _, rows = _full_partition(h, prm)
                        nr = rows.shape[0]
                        outv[:nr] = rows
                    return disc, nr, nl
                h[JOKER] += k
            if leaves >= MAX_GO_LEAVES:
                break
            d -= 1
            continue
        i = idx[d]
        o = cur[d]
        if o >= 0:  # take back this meld's option before trying the next
            for j in range(opts[o, G_N]):
                h[opts[o, G_CARDS + j]] += 1
            room -= opts[o, G_ROOM] - room0[i]
            value -= opts[o, G_VALUE]
            chosen[i] = -1
        o = -1 if o == -2 else (first[i] if o == -1 else o + 1)
        while o >= 0 and o < first[i] + count[i]:
            ok = True
            for j in range(opts[o, G_N]):
                c = opts[o, G_CARDS + j]
                h[c] -= 1
                if h[c] < 0:
                    ok = False
            if ok:
                break
            for j in range(opts[o, G_N]):
                h[opts[o, G_CARDS + j]] += 1
            o += 1
        if o >= first[i] + count[i]:
            cur[d] = -2
            d -= 1
            continue
        cur[d] = o
        if o >= 0:
            room += opts[o, G_ROOM] - room0[i]
            value += opts[o, G_VALUE]
            chosen[i] = o
        d += 1
        cur[d] = -2
    return -1, 0, 0


@njit(cache=True)
def _best_discard(hand, forbid, prm):
    """bots.best_discard: the card only."""
    return best_discard_except_kernel(hand, prm, forbid)[0]


@njit(cache=True)
def _opening_with_discard(hand, forbid, prm, mv, ws, rec, hh, tmp, out):
    """GreedyBot._opening_with_discard: the most valuable opening leaving a card (rows in out)."""
    best_val = -1
    nbest = 0
    for d in range(N_KINDS):
        if hand[d] <= 0 or d == forbid:
            continue
        hh[:] = hand
        hh[d] -= 1
        v, _, _ = _search(hh, prm, mv, ws, rec, YES)
        if v >= prm[P_OPENING_MIN]:
            nr = _reconstruct(hh, prm, rec, np.int64(0), tmp)
            val = 0
            for r in range(nr):
                val += meld_value(tmp[r], prm)
            if val > best_val:
                best_val = val
                out[:nr] = tmp[:nr]
                nbest = nr
    return nbest


@njit(cache=True)
def _meld_taken_card(hand, taken, tab, nt, values, rp, prm, mv, ws, rec, hh, outd, lops, lctx, tab1):
    """bots.meld_taken_card: (kind, discard, index): kind 1 = NewMeld(outd[index]); kind 2 = the
    lay-offs lops[:lctx[1]] onto table meld index; kind 0 = none."""
    cand = np.empty(N_KINDS, np.int64)
    k = 0
    for c in range(N_KINDS):
        if hand[c] > 0 and c != taken:
            cand[k] = c
            k += 1
    order = np.empty(N_KINDS, np.int64)
    _set_order(cand, k, order)
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
        _search(hh, prm, mv, ws, rec, YES)
        nr = _reconstruct(hh, prm, rec, np.int64(1), outd)
        for r in range(nr):
            if _row_has(outd[r], taken):
                return 1, d, r
    for i in range(nt):
        hh[:] = hand
        tab1[0, :] = tab[i]
        lctx[0] = 1
        lctx[1] = 0
        lctx[2] = 0
        _find_layoffs(tab1, np.int64(1), hh, np.int64(1), np.int64(-1), rp, prm, lops, lctx)
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


@njit(cache=True)
def _greedy_draw(me, hands, opened, turns, discard, nd, tab, nt, values, rp, prm, ws_mv, ws_ws, ws_rec, hh, hh2,
                 outv, outd, lops, lctx, tab1):
    """GreedyBot.draw."""
    if nd == 0:
        return STOCK
    if not opened[me] and rp[R_PICKUP_BEFORE_OPENING] == 0:
        return STOCK
    top = discard[nd - 1]
    if hands[me, top] == _hsum(hands[me]):  # HandState._draw_problem: nothing else held to discard
        return STOCK
    ob = _obligation(opened[me] != 0, turns[me], rp)
    hh2[:] = hands[me]
    hh2[top] += 1
    if ob == OB_OPEN:
        v, _, _ = _search(hh2, prm, ws_mv, ws_ws, ws_rec, YES)
        if v < prm[P_OPENING_MIN]:
            return STOCK
        nr = _reconstruct(hh2, prm, ws_rec, np.int64(0), outv)
        if _uses(outv, nr, top) > 0 and _leaves_a_discard(hh2, outv, nr, top, np.int64(1), hh):
            return DISCARD
        return STOCK
    if ob == OB_MELD:
        if opened[me]:
            kind, _, _ = _meld_taken_card(hh2, top, tab, nt, values, rp, prm, ws_mv, ws_ws, ws_rec, hh, outd, lops,
                                          lctx, tab1)
            if kind != 0:
                return DISCARD
        return STOCK
    # take it if it lowers min_loose, unless the min-deadwood partition leaves it loose; the partition
    # (the costly part) is only built when the counts say yes
    _, _, after = _search(hh2, prm, ws_mv, ws_ws, ws_rec, NO)
    _, _, before = _search(hands[me], prm, ws_mv, ws_ws, ws_rec, NO)
    if after >= before:
        return STOCK
    _search(hh2, prm, ws_mv, ws_ws, ws_rec, YES)
    nr = _reconstruct(hh2, prm, ws_rec, np.int64(1), outd)
    if hh2[top] - _uses(outd, nr, top) > 0:
        return STOCK
    # the meld must be layable with a card kept to discard, or let it go out (GreedyBot.draw)
    first = turns[me] == 0
    keep = 2 if (first and rp[R_GO_OUT_FIRST_ROUND] == 0) else 1
    if _leaves_a_discard(hh2, outd, nr, top, keep, hh):
        return DISCARD
    if rp[R_GO_OUT_FIRST_ROUND] == 0 and first:
        return STOCK
    disc, _, _ = _go_out(hh2, after, prm, opened[me] == 0, top, ws_mv, ws_ws, ws_rec, outv, hh)
    return DISCARD if disc >= 0 else STOCK


@njit(cache=True)
def _go_out_with_table(me, hands, opened, turns, tab, nt, drawn_card, drawn_from, loose, rp, prm, mv, ws, rec,
                       outv, lay, wtab, ctx, ops, whand):
    """Going out this turn with new melds and lay-offs, jokers included (``_go_out_building``), for a
    player the rules let go out now whose hand (min_loose ``loose``) passed ``_layable_bound``: the
    play in ops/wtab/whand (ctx as ``_greedy_play``'s, the new melds first), the discard returned;
    -1 and nothing changed where there is no way out."""
    hand = hands[me]
    was_open = opened[me] != 0
    forbid = drawn_card if drawn_from == DISCARD else -1
    must = drawn_card if (drawn_from == DISCARD and _obligation(was_open, turns[me], rp) == OB_OPEN) else -1
    disc, nr, nl = _go_out_building(hand, loose, tab, nt, was_open, forbid, must, rp, prm, mv, ws, rec, outv, lay)
    if disc < 0:
        return -1
    whand[:] = hand
    wtab[:nt] = tab[:nt]
    ctx[0] = nt
    ctx[1] = 0
    for r in range(nr):
        _add_meld(wtab, ctx, ops, whand, outv[r], forbid)
    for j in range(nl):
        if lay[j, 2] >= SPLIT_AT:
            _add_split(wtab, ctx, ops, whand, lay[j, 0], lay[j, 1], lay[j, 2] - SPLIT_AT, rp)
        elif lay[j, 2] == CUT_LOW:  # onto the part the split just made cut off: the last row
            _add_layoff(wtab, ctx, ops, whand, ctx[0] - 1, lay[j, 1], LOW)
        else:
            _add_layoff(wtab, ctx, ops, whand, lay[j, 0], lay[j, 1], lay[j, 2])
    return disc


@njit(cache=True)
def _greedy_play(me, hands, opened, turns, tab, nt, drawn_card, drawn_from, values, rp, prm,
                 mv, ws, rec, hh, outv, outd, tmp, wtab, ctx, ops, whand, lops, lctx, tab1, building):
    """GreedyBot.play: the operations go to ops/wtab (ctx: rows, ops), the hand left to whand;
    returns the discard.  Going out with the hand alone, else the opening, every meld held laid down,
    lay-offs, the taken discard melded where it must be; with ``building``, a play that does not go
    out then gives way to one that does with the table's help (``_go_out_with_table``)."""
    forbid = drawn_card if drawn_from == DISCARD else -1  # no copy of a taken card may be discarded
    taken = drawn_card if drawn_from == DISCARD else -1
    whand[:] = hands[me]
    wtab[:nt] = tab[:nt]
    ctx[0] = nt
    ctx[1] = 0
    first = turns[me] == 0
    may_out = rp[R_GO_OUT_FIRST_ROUND] != 0 or not first
    ob = _obligation(opened[me] != 0, turns[me], rp)
    # one search of the hand as drawn serves go_out's shortcut, the opening and the lay-down, as long
    # as rec still belongs to whand (rec_ok), and the way out with the table (loose0)
    v, dead, loose = _search(whand, prm, mv, ws, rec, YES)
    v0, loose0 = v, loose
    if may_out:  # going out comes first; before opening, only by a Kalooki
        disc, nr, clobbered = _go_out(whand, loose, prm, opened[me] == 0, forbid, mv, ws, rec, outv, hh)
        if disc >= 0:
            for r in range(nr):
                _add_meld(wtab, ctx, ops, whand, outv[r], taken)
            return disc
        if clobbered:
            _search(whand, prm, mv, ws, rec, YES)
    rec_ok = True
    n_open = 0
    disc = -1
    if not opened[me]:
        if v >= prm[P_OPENING_MIN]:
            nr = _reconstruct(whand, prm, rec, np.int64(0), outv)
            if _rows_len(outv, nr) >= _hsum(whand):
                nr = _opening_with_discard(whand, forbid, prm, mv, ws, rec, hh, tmp, outv)
                rec_ok = False
            # the opening must leave a card to discard (two where nobody may go out yet): drop its last
            # melds while what remains still reaches the minimum (GreedyBot.play)
            need = 2 if (first and rp[R_GO_OUT_FIRST_ROUND] == 0) else 1
            while nr > 0:
                hh[:] = whand
                for r in range(nr):
                    for k in range(outv[r, 2]):
                        hh[outv[r, 3 + k]] -= 1
                if _discardable(hh, forbid) and _hsum(hh) >= need:
                    break
                nr -= 1
            if nr > 0:
                total = 0
                for r in range(nr):
                    total += meld_value(outv[r], prm)
                if total < prm[P_OPENING_MIN]:
                    nr = 0
            if nr > 0 and (taken < 0 or _uses(outv, nr, taken) > 0 or ob == OB_NONE):
                for r in range(nr):
                    _add_meld(wtab, ctx, ops, whand, outv[r], taken)
                rec_ok = False
                n_open = ctx[1]
        if ctx[1] == 0:
            if not rec_ok:
                _search(whand, prm, mv, ws, rec, YES)
            nr = _reconstruct(whand, prm, rec, np.int64(1), outd)
            pref = whand.astype(np.int64)
            for r in range(nr):
                for k in range(outd[r, 2]):
                    pref[outd[r, 3 + k]] -= 1
            disc = _loose_discard(whand, values, forbid, pref)
    if disc < 0:
        # lay down every meld held (keeping a card to discard), then lay off
        if not rec_ok:
            v, dead, loose = _search(whand, prm, mv, ws, rec, YES)
        nr = 0 if _no_melds(whand, dead, prm) else _reconstruct(whand, prm, rec, np.int64(1), outd)
        if nr > 0 and _hsum(whand) - _rows_len(outd, nr) >= 1:
            for r in range(nr):
                _add_meld(wtab, ctx, ops, whand, outd[r], taken)
        elif nr > 0:
            d0 = _best_discard(whand, forbid, prm)
            hh[:] = whand
            hh[d0] -= 1
            _search(hh, prm, mv, ws, rec, YES)
            nr2 = _reconstruct(hh, prm, rec, np.int64(1), outd)
            for r in range(nr2):
                _add_meld(wtab, ctx, ops, whand, outd[r], taken)
        keep = 2 if (first and rp[R_GO_OUT_FIRST_ROUND] == 0) else 1
        n_opening = n_open
        _find_layoffs(wtab, ctx[0], whand, keep, forbid, rp, prm, ops, ctx)
        # bots.repair: undo trailing operations (never the opening) until a card (not the forbidden one)
        # is left to discard
        while (not _discardable(whand, forbid) or _hsum(whand) < keep) and ctx[1] > n_opening:
            _pop_op(wtab, ctx, ops, whand)
        if ob == OB_MELD and taken >= 0:
            used = False
            for o in range(ctx[1]):
                if (ops[o, O_KIND] == X_LAYOFF and ops[o, O_CARD] == taken) or (
                        ops[o, O_KIND] == X_NEW and ops[o, O_TAKEN] != 0):
                    used = True
            if not used:
                hh[:] = hands[me]
                kind, dm, idx = _meld_taken_card(hh.copy(), taken, tab, nt, values, rp, prm, mv, ws, rec, hh, outd,
                                                 lops, lctx, tab1)
                if kind != 0:
                    whand[:] = hands[me]
                    wtab[:nt] = tab[:nt]
                    ctx[0] = nt
                    ctx[1] = 0
                    if kind == 1:
                        _add_meld(wtab, ctx, ops, whand, outd[idx], taken)
                    else:
                        for o in range(lctx[1]):
                            _add_layoff(wtab, ctx, ops, whand, idx, lops[o, O_CARD], lops[o, O_END])
                    disc = dm
        if disc < 0:
            disc = _loose_discard(whand, values, forbid, whand.astype(np.int64))
    if building and may_out and ctx[2] == 0 and _hsum(whand) >= 2 and (opened[me] != 0 or _kalooki_reach(v0, rp)):
        # the play does not go out: one with the table's help may (most turns end at this cheap bound)
        bound = _layable_bound(hands[me], tab, nt, rp)
        if bound > 0 and loose0 <= bound + 1:
            out = _go_out_with_table(me, hands, opened, turns, tab, nt, drawn_card, drawn_from, loose0, rp, prm, mv,
                                     ws, rec, outv, lops, wtab, ctx, ops, whand)
            if out >= 0:
                return out
    return disc


@njit(cache=True)
def _deadwood_discard(hand, forbid, values, prm, mv, ws, rec, out):
    """The bots' discard when they lay nothing: the highest-value loose card of a least-deadwood
    partition (``_loose_discard``)."""
    _search(hand, prm, mv, ws, rec, YES)
    nr = _reconstruct(hand, prm, rec, np.int64(1), out)
    pref = hand.astype(np.int64)
    for r in range(nr):
        for k in range(out[r, 2]):
            pref[out[r, 3 + k]] -= 1
    return _loose_discard(hand, values, forbid, pref)


# ---------------------------------------------------------------------------------------------
# the patient bot (sim/bots/patient.py): greedy, but holding its melds while a Kalooki is in reach
# ---------------------------------------------------------------------------------------------

@njit(cache=True)
def _waiting(me, hand, hands, opened, n_stock, rp, bp, prm, mv, ws, rec):
    """PatientBot._waiting: is holding back the opening for a Kalooki worth it?  Only where a Kalooki
    pays more than a call, and only while few cards are missing (loose cards beyond the one discard),
    the stock still offers enough draws (n_stock // players), no opponent who has opened is close to
    going out, and the penalty held in hand is not too high.  bp: this bot's parameters (B_*)."""
    if rp[R_KALOOKI_PAYS_MORE] == 0 or opened[me] != 0:
        return False
    _, dead, loose = _search(hand, prm, mv, ws, rec, NO)
    missing = max(loose - 1, 0)
    n = hands.shape[0]
    if missing > bp[B_MAX_MISSING] or n_stock // max(n, 1) < bp[B_MIN_DRAWS] + missing:
        return False
    for s in range(n):
        if s != me and opened[s] != 0 and _hsum(hands[s]) <= bp[B_DANGER_CARDS]:
            return False
    return dead <= bp[B_MAX_RISK]


@njit(cache=True)
def _patient_draw(me, hands, opened, turns, discard, nd, n_stock, tab, nt, values, rp, prm, bp, ws_mv, ws_ws,
                  ws_rec, hh, hh2, outv, outd, lops, lctx, tab1):
    """PatientBot.draw: while waiting, take the discard only when it leaves no more loose cards (and
    only a discard it is free to take); else greedy's draw."""
    if opened[me] == 0 and _waiting(me, hands[me], hands, opened, n_stock, rp, bp, prm, ws_mv, ws_ws, ws_rec):
        if nd > 0 and rp[R_PICKUP_BEFORE_OPENING] != 0 and _obligation(NO, turns[me], rp) == OB_NONE:
            top = discard[nd - 1]
            if hands[me, top] != _hsum(hands[me]):  # HandState._draw_problem
                hh2[:] = hands[me]
                hh2[top] += 1
                _, _, after = _search(hh2, prm, ws_mv, ws_ws, ws_rec, NO)
                _, _, before = _search(hands[me], prm, ws_mv, ws_ws, ws_rec, NO)
                if after < before + 1:
                    return DISCARD
        return STOCK
    return _greedy_draw(me, hands, opened, turns, discard, nd, tab, nt, values, rp, prm, ws_mv, ws_ws, ws_rec, hh,
                        hh2, outv, outd, lops, lctx, tab1)


@njit(cache=True)
def _patient_play(me, hands, opened, turns, n_stock, tab, nt, drawn_card, drawn_from, values, rp, prm, bp,
                  mv, ws, rec, hh, outv, outd, tmp, wtab, ctx, ops, whand, lops, lctx, tab1):
    """PatientBot.play: an unopened patient goes out where it may (by Kalooki with its hand alone, or
    with the table's help: ``_go_out_with_table``), else holds (no operations, its worst loose card
    discarded) while waiting, unless a taken discard obliges it to open; where its hand alone cannot
    open and the profile lets the table help, it answers TABLE_OPENING (the Python
    ``table_opening`` decides); otherwise it plays greedy's play."""
    if opened[me] == 0:
        hand = hands[me]
        forbid = drawn_card if drawn_from == DISCARD else -1
        may_out = rp[R_GO_OUT_FIRST_ROUND] != 0 or turns[me] != 0
        v, _, loose = _search(hand, prm, mv, ws, rec, YES)
        going_out = False
        if may_out:
            disc, _, _ = _go_out(hand, loose, prm, YES, forbid, mv, ws, rec, outv, hh)
            going_out = disc >= 0  # greedy's play goes out the same way first
            bound = 0 if (going_out or not _kalooki_reach(v, rp)) else _layable_bound(hand, tab, nt, rp)
            if bound > 0 and loose <= bound + 1:
                out = _go_out_with_table(me, hands, opened, turns, tab, nt, drawn_card, drawn_from, loose, rp, prm, mv,
                                         ws, rec, outv, lops, wtab, ctx, ops, whand)
                if out >= 0:
                    return out
        if not going_out:
            taken_needs_open = drawn_from == DISCARD and _obligation(NO, turns[me], rp) == OB_OPEN
            if not taken_needs_open and _waiting(me, hand, hands, opened, n_stock, rp, bp, prm, mv, ws, rec):
                whand[:] = hand
                wtab[:nt] = tab[:nt]
                ctx[0] = nt
                ctx[1] = 0
                return _deadwood_discard(whand, forbid, values, prm, mv, ws, rec, outd)
            if rp[R_TABLE_OPENING] != 0 and v < prm[P_OPENING_MIN]:
                return TABLE_OPENING
            # no way out was found above: greedy's own moves
            return _greedy_play(me, hands, opened, turns, tab, nt, drawn_card, drawn_from, values, rp, prm, mv, ws,
                                rec, hh, outv, outd, tmp, wtab, ctx, ops, whand, lops, lctx, tab1, NO)
    return _greedy_play(me, hands, opened, turns, tab, nt, drawn_card, drawn_from, values, rp, prm,
                        mv, ws, rec, hh, outv, outd, tmp, wtab, ctx, ops, whand, lops, lctx, tab1, YES)


@njit(cache=True)
def _bot_draw(kind, me, hands, opened, turns, discard, nd, n_stock, tab, nt, values, rp, prm, bp, mv, ws, rec, hh,
              hh2, outv, outd, lops, lctx, tab1):
    """The draw of a bot of this kind (K_*)."""
    if kind == K_PATIENT:
        return _patient_draw(me, hands, opened, turns, discard, nd, n_stock, tab, nt, values, rp, prm, bp, mv, ws,
                             rec, hh, hh2, outv, outd, lops, lctx, tab1)
    return _greedy_draw(me, hands, opened, turns, discard, nd, tab, nt, values, rp, prm, mv, ws, rec, hh, hh2,
                        outv, outd, lops, lctx, tab1)


@njit(cache=True)
def _bot_play(kind, me, hands, opened, turns, n_stock, tab, nt, drawn_card, drawn_from, values, rp, prm, bp,
              mv, ws, rec, hh, outv, outd, tmp, wtab, ctx, ops, whand, lops, lctx, tab1):
    """The play of a bot of this kind: operations in ops[:ctx[1]] (rows of wtab), the hand left in
    whand; returns the discard (or TABLE_OPENING)."""
    if kind == K_PATIENT:
        return _patient_play(me, hands, opened, turns, n_stock, tab, nt, drawn_card, drawn_from, values, rp, prm,
                             bp, mv, ws, rec, hh, outv, outd, tmp, wtab, ctx, ops, whand, lops, lctx, tab1)
    return _greedy_play(me, hands, opened, turns, tab, nt, drawn_card, drawn_from, values, rp, prm,
                        mv, ws, rec, hh, outv, outd, tmp, wtab, ctx, ops, whand, lops, lctx, tab1, YES)


# ---------------------------------------------------------------------------------------------
# one decision at a time: the bots' draw and play for the Python engine (sim/bots/greedy.py, patient.py)
# ---------------------------------------------------------------------------------------------

@njit(cache=True)
def draw_kernel(kind, bp, me, hands, opened, turns, discard, n_stock, tab, values, rp, prm):
    """The draw (STOCK or DISCARD) a bot of this kind chooses at the start of its turn."""
    mv, ws, rec = _workspace()
    hh = np.empty(N_KINDS, np.int8)
    hh2 = np.empty(N_KINDS, np.int8)
    outv = np.empty((MAX_OUT, OUT_W), np.int64)
    outd = np.empty((MAX_OUT, OUT_W), np.int64)
    lops = np.zeros((MAXOPS, OP_W), np.int64)
    lctx = np.zeros(4, np.int64)
    tab1 = np.full((1, OUT_W), -1, np.int64)
    return _bot_draw(kind, me, hands, opened, turns, discard, discard.shape[0], n_stock, tab, tab.shape[0], values,
                     rp, prm, bp, mv, ws, rec, hh, hh2, outv, outd, lops, lctx, tab1)


@njit(cache=True)
def play_scratch():
    """The working arrays ``_bot_play`` takes: (mv, ws, rec, hh, whand, outv, outd, tmp, wtab, ctx,
    ops, lops, lctx, tab1)."""
    mv, ws, rec = _workspace()
    return (mv, ws, rec, np.empty(N_KINDS, np.int8), np.empty(N_KINDS, np.int8),
            np.empty((MAX_OUT, OUT_W), np.int64), np.empty((MAX_OUT, OUT_W), np.int64),
            np.empty((MAX_OUT, OUT_W), np.int64), np.full((MAXT, OUT_W), -1, np.int64), np.zeros(4, np.int64),
            np.zeros((MAXOPS, OP_W), np.int64), np.zeros((MAXOPS, OP_W), np.int64), np.zeros(4, np.int64),
            np.full((1, OUT_W), -1, np.int64))


@njit(cache=True)
def play_kernel(kind, bp, me, hands, opened, turns, n_stock, tab0, drawn_card, drawn_from, values, rp, prm):
    """The play a bot of this kind chooses after its draw: (discard, operations (O_* rows), for each
    operation that lays a new meld the meld's row as laid, status (0, or 9: a buffer was full)).
    The discard is TABLE_OPENING when a patient asks for an opening with the table's help."""
    nt = tab0.shape[0]
    tab = np.full((MAXT, OUT_W), -1, np.int64)
    tab[:nt] = tab0
    mv, ws, rec, hh, whand, outv, outd, tmp, wtab, ctx, ops, lops, lctx, tab1 = play_scratch()
    disc = _bot_play(kind, me, hands, opened, turns, n_stock, tab, nt, drawn_card, drawn_from, values, rp, prm, bp,
                     mv, ws, rec, hh, outv, outd, tmp, wtab, ctx, ops, whand, lops, lctx, tab1)
    nops = ctx[1]
    melds = np.full((nops, OUT_W), -1, np.int64)
    if disc == TABLE_OPENING:
        return disc, ops[:0].copy(), melds[:0], ctx[2]
    # each new meld as it was laid: undo the lay-offs from the last operation back (a play's splits
    # follow its new melds, and cut no meld laid in it)
    for o in range(nops - 1, -1, -1):
        if ops[o, O_KIND] == X_LAYOFF:
            _undo_layoff(wtab, ops[o, O_TARGET], ops[o, O_END])
        elif ops[o, O_KIND] == X_NEW:
            melds[o] = wtab[ops[o, O_TARGET]]
    return disc, ops[:nops].copy(), melds, ctx[2]


@njit(cache=True)
def deadwood_discard_kernel(hand, forbid, values, prm):
    mv, ws, rec = _workspace()
    out = np.empty((MAX_OUT, OUT_W), np.int64)
    return _deadwood_discard(hand, forbid, values, prm, mv, ws, rec, out)


@njit(cache=True)
def waiting_kernel(bp, me, hand, hands, opened, n_stock, rp, prm):
    mv, ws, rec = _workspace()
    return _waiting(me, hand, hands, opened, n_stock, rp, bp, prm, mv, ws, rec)


# ---------------------------------------------------------------------------------------------
# Python entry
# ---------------------------------------------------------------------------------------------

drop_stale(draw_kernel, (MS, core, kinds))

_NO_TABLE = np.zeros((0, OUT_W), np.int64)


def bot_params(bot) -> np.ndarray:
    """A bot's parameters as the compiled decisions read them (B_*; zero where it has none)."""
    return np.array([getattr(bot, name, 0) for name in B_NAMES], dtype=np.int64)


# ---------------------------------------------------------------------------------------------
# the Python engine's bots decide here too (one copy of each decision)
# ---------------------------------------------------------------------------------------------

def _turn_arrays(state):
    return (np.array(state.opened, dtype=np.int64), np.array(state.turns_taken, dtype=np.int64),
            _table_rows(state.table) if state.table else _NO_TABLE)


def decide_draw(state, me: int, kind: int, bp: np.ndarray) -> int:
    """The draw (``DRAW_STOCK``/``DRAW_DISCARD``) of a bot of this kind and these parameters."""
    cp = core.compiled(state.profile)
    opened, turns, tab = _turn_arrays(state)
    return int(draw_kernel(kind, bp, me, state.hands, opened, turns, np.array(state.discard, dtype=np.int64),
                           len(state.stock), tab, cp.hand_values, cp.rules, cp.params))


def decide_play(state, me: int, kind: int, bp: np.ndarray):
    """The ``Play`` of a bot of this kind after its draw, or None where a patient asks for an opening
    with the table's help (``bots.moves.table_opening``)."""
    cp = core.compiled(state.profile)
    opened, turns, tab = _turn_arrays(state)
    disc, ops, melds, status = play_kernel(kind, bp, me, state.hands, opened, turns, len(state.stock), tab,
                                           state.drawn_card, state.drawn_from, cp.hand_values, cp.rules, cp.params)
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
    """PatientBot._waiting (``_waiting``) for the Python engine."""
    cp = core.compiled(state.profile)
    return bool(waiting_kernel(bp, me, hand, state.hands, np.array(state.opened, dtype=np.int64), len(state.stock),
                               cp.rules, cp.params))


def deadwood_discard(state, hand, forbid: int) -> int:
    """``_deadwood_discard`` for the Python engine."""
    cp = core.compiled(state.profile)
    return int(deadwood_discard_kernel(np.ascontiguousarray(hand, dtype=np.int8), forbid, cp.hand_values, cp.params))
