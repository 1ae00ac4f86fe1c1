"""Going out this turn: with the hand alone (``go_out``), or with new melds from the hand, lay-offs
onto the table's melds, jokers included, and splits of table runs (``go_out_building``).

``go_out_building`` weighs each table meld's options (a run's end lay-offs, then one or two splits
of the run they leave, or one split and lay-offs onto the two ends it makes inside the run; a
group's missing suit), tries their combinations as an odometer with 0.. of the jokers laid wherever
they still go, and asks the meld search whether the cards left all meld but the discard.  Every
lay-off and split is one the engine's rules allow (``core.lay_off_row``, ``core.split_row`` and the
turn's run limits).  Cheap bounds come first, since most turns end there: ``layable_bound`` (at
most how many hand cards the table could take), ``stray_cards`` (cards that can neither meld nor be
laid off) and ``kalooki_reach`` (whether an unopened player could reach the opening minimum).
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from ... import meldsearch as MS
from ...cards import JOKER, N_KINDS, N_RANKS
from ...engine import core
from ...engine.core import meld_value
from ...engine.turn import A_FROM, count_run_add, run_add_allowed
from ...meldsearch import P_KALOOKI_EXEMPT, P_OPENING_MIN, full_partition_kernel, reconstruct, go_out_kernel
from ...jit.cache import drop_stale
from .hands import NO, YES, cards_in_rows, could_meld, hand_size, search_hand
from .layoffs import lay_onto_end
from .plays import HIGH, LOW, RUN

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
# The options of one go-out search (``_go_out_options``): their rows (opts), each table meld's first
# option and their number (first, count), the jokers each meld takes as it stands (room0) and in all
# (room_all).
GoOutOptions = namedtuple("GoOutOptions", ("opts", "first", "count", "room0", "room_all"))


@njit(cache=True)
def go_out(hand, loose, prm, kalooki, forbid, mv, ws, rec, out, hh):
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
        _, rows = full_partition_kernel(hh, prm)
        nr = rows.shape[0]
        out[:nr] = rows
        return c, nr, False
    for x in range(N_KINDS - 1, -1, -1):
        if hand[x] <= 0 or x == forbid:
            continue
        hh[:] = hand
        hh[x] -= 1
        _, _, l2 = search_hand(hh, prm, mv, ws, rec, YES)
        if l2 != 0:
            continue
        nr = reconstruct(hh, prm, rec, np.int64(1), out)
        if nr == 0 or cards_in_rows(out, nr) != hand_size(hh):
            continue
        if kalooki and prm[P_KALOOKI_EXEMPT] == 0:
            v = 0
            for r in range(nr):
                v += meld_value(out[r], prm)
            if v < prm[P_OPENING_MIN]:
                continue
        return x, nr, True
    return -1, 0, True


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
            laid, added = lay_onto_end(cur, JOKER, end, crules, prm, nxt)
            if laid:
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
                            ok, added = lay_onto_end(cur, c, side, crules, prm, nxt)
                            if not ok:
                                break
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
            v1 = core.slot_value(run, pos - 1, prm)  # the split card's slot, counted once more
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
                    k = _put_split(opts, base, k, i, n, value + v1 + core.slot_value(first, pos2 - 1, prm), c,
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
                    ok, added = lay_onto_end(cur, x, side, crules, prm, tmp)
                    if not ok:
                        break
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
    n = hand_size(h)
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
        if h[c] > 0 and not could_meld(h, c):
            if stray >= 0 or h[c] > 1:
                return -1
            stray = c
    if stray < 0:
        _, _, loose = search_hand(h, prm, mv, ws, rec, NO)
        if loose > 1:
            return -1
    for d in range(N_KINDS - 1, -1, -1):
        if h[d] <= 0 or d == forbid or (d == must and h[d] == 1) or (stray >= 0 and d != stray):
            continue
        h[d] -= 1
        ok = True
        for c in range(52):  # what the discard leaves must hold no stray card either
            if h[c] > 0 and not could_meld(h, c):
                ok = False
                break
        if ok:
            _, _, left = search_hand(h, prm, mv, ws, rec, NO)
            ok = left == 0
        if ok and not opened and need > 0:
            ok = MS.full_search(h, prm, np.zeros((1, MS.REC_W), np.int64)) >= need
        h[d] += 1
        if ok:
            return d
    return -1


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
def layable_bound(hand, tab, nt, rp):
    """At most how many hand cards lay-offs onto tab[:nt] could place this turn: the naturals of
    ``_layable_mask`` and every joker."""
    _, k = _layable_mask(hand, tab, nt, rp)
    return k + hand[JOKER]


@njit(cache=True)
def kalooki_reach(v, rp):
    """Could a player who has not opened, whose hand's melds are worth v at most, go out this turn?
    Its new melds come from the hand, and must reach opening_min unless lay-offs count towards it or
    a Kalooki is exempt from it."""
    return v >= rp[core.R_OPENING_MIN] or rp[core.R_LAYOFFS_COUNT] != 0 or rp[core.R_KALOOKI_EXEMPT] != 0


@njit(cache=True)
def stray_cards(hand, tab, nt, rp):
    """How many natural cards of the hand can neither meld with two other cards of it nor fill any
    slot ``_layable_mask`` counts: a way out leaves one such card at most (the discard)."""
    layable, _ = _layable_mask(hand, tab, nt, rp)
    k = 0
    for c in range(52):
        if hand[c] > 0 and not (layable >> c) & 1 and not could_meld(hand, c):
            k += hand[c]
    return k


@njit(cache=True)
def go_out_building(hand, loose, tab, nt, opened, forbid, must, rp, prm, mv, ws, rec, outv, lay):
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
    if nt == 0 or stray_cards(hand, tab, nt, rp) > 1:
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
        disc, nr, nl = _go_out_combos(hand, tab, nt, opened, forbid, must, need, counted == 1, rp, prm, (mv, ws, rec),
                                      outv, lay, GoOutOptions(opts, first, count, room0, room_all))
        if disc >= 0:
            return disc, nr, nl
    return -1, 0, 0


@njit(cache=True)
def _go_out_combos(hand, tab, nt, opened, forbid, must, need, counted, rp, prm, work, outv, lay, options):
    """``go_out_building``'s search over the options' combinations (``options``, a ``GoOutOptions``), the
    lay-offs counted towards the opening minimum or not; ``work``: the meld search's workspace
    (mv, ws, rec)."""
    mv, ws, rec = work
    opts, first, count, room0, room_all = options
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
                    if hand_size(h) > 0:
                        _, rows = full_partition_kernel(h, prm)
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


drop_stale(go_out_building, (MS, core))
