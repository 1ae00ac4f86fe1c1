"""Table play, compiled and written once: the expert's harvests, lay-downs, lay-offs and splits, the
openings with the table's help.

Over count vectors and meld rows (the meld search's row format, sim.engine.core):

- ``expert_table_play``: an opened expert's (or lookahead's) turn: going out at once; then up to
  ``max_harvests`` table moves (``list_harvests``: removing an end card of a run of four or more
  or a card of a four-card group, shifting a run, substituting in a three-card group, swapping a
  joker out of a run or a group), each the one that lets it go out, or else lowers its deadwood most
  with the freed card melded again from its hand (``_best_harvest``, ``apply_option``); then its
  melds laid down, lay-offs and splits of runs (``kernels.layoffs.lay_off_hand``, the bots' one lay-off
  finder; the card taken from the discard pile among them, while another card is left to throw),
  trailing operations undone until a card is left to discard, and a taken discard melded where the
  profile obliges it; a play that does not go out gives way to one that does with new melds,
  lay-offs and splits of runs, jokers included (``kernels.goout.go_out_building``).  The discard
  itself is chosen by ``expert_core.discard_choice``.
- ``open_with_table``: an opening that uses the table where the profile allows it (a joker taken by
  substitution, lay-offs that count), for the patient, expert, lookahead and random bots.

Every table move a bot weighs is checked by the engine's own compiled rules (``sim.engine.core``:
lay-off, take, joker swap) with the engine's per-turn run limits (``check_option``); the play is then
validated as any bot's by ``sim.engine.turn.apply_turn``, in the hand loop and the Python engine
alike.  ``expert_play``, ``table_opening`` and ``harvest_options`` are the Python entries.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .. import meldsearch as MS
from .. import melds as M
from ..cards import JOKER, N_KINDS, N_RANKS
from ..engine import HIGH, LOW, Play
from ..engine import core
from ..engine.core import R_GO_OUT_FIRST_ROUND, R_LAYOFFS_COUNT
from ..engine import turn as TU
from ..engine.hand import SC_NT
from ..engine.table import decode, table_rows
from ..engine.turn import (A_FROM, MAXT, OB_MELD, X_CARD, X_EXTRA, X_KIND, X_LAYOFF, X_NEW, X_POS,
                           X_SPLIT, X_SWAP, X_TAKE, X_TARGET, X_W, count_run_add, new_adds, run_add_allowed)
from ..meldsearch import (MAX_OUT, OUT_W, P_OPENING_MIN, full_partition_kernel, reconstruct, new_workspace,
                          best_discard_except_kernel, go_out_kernel)
from ..jit.cache import drop_stale
from . import greedy_core as FG
from .greedy_core import R_TABLE_OPENING
from .kernels.goout import CUT_LOW, SPLIT_AT, go_out, go_out_building, layable_bound
from .kernels.hands import NO, YES, hand_size, has_discard, search_hand
from .kernels.layoffs import lay_off_hand, meld_taken_card
from .kernels.plays import DISCARD, NO_TABLE, Pending, apply_layoff, new_scratch, push_op, taken_obligation

RUN, GROUP = 0, 1

MAX_X = 200  # operations of a play at most

MAX_H = 512  # harvest options at most (a table of 36 melds offers far fewer)
# expert parameters (a row per bot)
E_MAX_HARVESTS = 0

# answers of expert_play
PLAYED, CHOOSE = 0, 1  # the play is complete (discard given) / the caller chooses the discard


# ---------------------------------------------------------------------------------------------------
# small helpers over rows
# ---------------------------------------------------------------------------------------------------

@njit(cache=True)
def _could_meld(hand, t, g1, g2):
    """bots.moves._could_meld: could natural card t meld with two hand cards (less g1, g2)?"""
    have = hand[JOKER]
    r = t % N_RANKS
    s = t // N_RANKS
    for x in range(4):
        c = x * N_RANKS + r
        if x != s and hand[c] > (c == g1) + (c == g2):
            have += 1
    if have >= 2:
        return True
    have = hand[JOKER]
    for d in (-2, -1, 1, 2):
        c = s * N_RANKS + (r + d) % N_RANKS
        if hand[c] > (c == g1) + (c == g2):
            have += 1
    return have >= 2


@njit(cache=True)
def _joker_in_meld_with_two(rows, nr):
    for r in range(nr):
        if rows[r, 2] >= 3:
            for k in range(rows[r, 2]):
                if rows[r, core.CARDS + k] == JOKER:
                    return True
    return False


@njit(cache=True)
def push_meld(ops, mrows, nops, wtab, nt, hand, row):
    """A new meld from the hand: joins the working table (row nt), its cards leave the hand."""
    wtab[nt] = row
    mrows[nops] = row
    for k in range(row[2]):
        hand[row[core.CARDS + k]] -= 1
    return push_op(ops, nops, X_NEW, nt, -1, -1, -1), nt + 1


# ---------------------------------------------------------------------------------------------------
# harvests
# ---------------------------------------------------------------------------------------------------

@njit(cache=True)
def list_harvests(hand, tab, nt, adds, rp, crules, hops, hn, hinfo):
    """bots.moves.harvest_options, in its order: each option's operations (hops[k, :hn[k]]) and
    hinfo[k] = (target, give1, give2, got, end)."""
    k = 0
    for i in range(nt):
        row = tab[i]
        n = row[2]
        nj = core.jokers_in(row)
        can_take = n - nj >= 2
        if row[0] == RUN:
            if can_take and n >= 4:
                for pos in (0, n - 1):
                    c = row[core.CARDS + pos]
                    if c != JOKER and _could_meld(hand, c, -1, -1) and k < MAX_H:
                        hn[k] = push_op(hops[k], 0, X_TAKE, i, -1, pos, -1)
                        hinfo[k, 0], hinfo[k, 1], hinfo[k, 2], hinfo[k, 3], hinfo[k, 4] = i, -1, -1, c, -1
                        k += 1
            for pos in range(n):
                rep = row[core.REPS + pos]
                if row[core.CARDS + pos] == JOKER and hand[rep] > 0 and (
                        0 < pos < n - 1 or crules[core.R_JOKER_TAKE_FROM_RUN_END] != 0) and k < MAX_H:
                    hn[k] = push_op(hops[k], 0, X_SWAP, i, rep, pos, -1)
                    hinfo[k, 0], hinfo[k, 1], hinfo[k, 2], hinfo[k, 3], hinfo[k, 4] = i, rep, -1, JOKER, -1
                    k += 1
            for end in (LOW, HIGH):
                rep = core.run_extension(row, end, rp)
                freed = row[core.CARDS] if end == HIGH else row[core.CARDS + n - 1]
                if rep < 0 or hand[rep] <= 0 or freed == JOKER or not run_add_allowed(adds, i, end, crules) \
                        or not _could_meld(hand, freed, rep, -1) or k >= MAX_H:
                    continue
                m = push_op(hops[k], 0, X_LAYOFF, i, rep, end, -1)
                hn[k] = push_op(hops[k], m, X_TAKE, i, -1, 0 if end == HIGH else n, -1)
                hinfo[k, 0], hinfo[k, 1], hinfo[k, 2], hinfo[k, 3], hinfo[k, 4] = i, rep, -1, freed, end
                k += 1
        elif row[1] >= 0 and n == 3:
            present = 0
            for j in range(n):
                present |= 1 << (row[core.REPS + j] // N_RANKS)
            for s in range(4):
                c = s * N_RANKS + row[1]
                if (present >> s) & 1 or hand[c] <= 0:
                    continue
                for pos in range(3):
                    x = row[core.CARDS + pos]
                    if x != JOKER and _could_meld(hand, x, c, -1) and k < MAX_H:
                        m = push_op(hops[k], 0, X_LAYOFF, i, c, HIGH, -1)
                        hn[k] = push_op(hops[k], m, X_TAKE, i, -1, pos, -1)
                        hinfo[k, 0], hinfo[k, 1], hinfo[k, 2], hinfo[k, 3], hinfo[k, 4] = i, c, -1, x, -1
                        k += 1
            if nj > 0:
                jpos = -1
                natural = 0
                for j in range(n):
                    if row[core.CARDS + j] == JOKER:
                        if jpos < 0:
                            jpos = j
                    else:
                        natural |= 1 << (row[core.CARDS + j] // N_RANKS)
                held = np.empty(4, np.int64)
                nh = 0
                for s in range(4):
                    c = s * N_RANKS + row[1]
                    if not (natural >> s) & 1 and hand[c] > 0:
                        held[nh] = c
                        nh += 1
                if crules[core.R_JOKER_FROM_GROUP_BOTH] == 0:
                    for a in range(nh):
                        if k < MAX_H:
                            hn[k] = push_op(hops[k], 0, X_SWAP, i, held[a], jpos, -1)
                            hinfo[k, 0], hinfo[k, 1], hinfo[k, 2], hinfo[k, 3], hinfo[k, 4] = i, held[a], -1, JOKER, -1
                            k += 1
                else:
                    for a in range(nh):
                        for b in range(a + 1, nh):
                            if k < MAX_H:
                                hn[k] = push_op(hops[k], 0, X_SWAP, i, held[a], jpos, held[b])
                                hinfo[k, 0], hinfo[k, 1], hinfo[k, 2], hinfo[k, 3], hinfo[k, 4] = (
                                    i, held[a], held[b], JOKER, -1)
                                k += 1
        elif can_take and row[1] >= 0 and n == 4:
            for pos in range(4):
                c = row[core.CARDS + pos]
                if c != JOKER and _could_meld(hand, c, -1, -1) and k < MAX_H:
                    hn[k] = push_op(hops[k], 0, X_TAKE, i, -1, pos, -1)
                    hinfo[k, 0], hinfo[k, 1], hinfo[k, 2], hinfo[k, 3], hinfo[k, 4] = i, -1, -1, c, -1
                    k += 1
    return k


@njit(cache=True)
def check_option(tab, hops_k, hn_k, target, adds, rp, crules, prm, out):
    """bots.moves.checked: do the engine's rules allow the option's operations now?  out: the
    target meld after them."""
    out[:] = tab[target]
    tmp = np.empty(core.ROW_W, np.int64)
    for o in range(hn_k):
        kind = hops_k[o, X_KIND]
        if kind == X_LAYOFF:
            was_run = out[0] == RUN
            code, _, _ = core.lay_off_row(out, hops_k[o, X_CARD], hops_k[o, X_POS], np.int64(-1), crules, prm, tmp)
            if code != core.OK:
                return False
            if was_run and not run_add_allowed(adds, target, hops_k[o, X_POS], crules):
                return False
        elif kind == X_TAKE:
            code, _ = core.take_row(out, hops_k[o, X_POS], tmp)
            if code != core.OK:
                return False
        else:
            code, _ = core.swap_joker_row(out, hops_k[o, X_POS], hops_k[o, X_CARD], hops_k[o, X_EXTRA], crules, tmp)
            if code != core.OK:
                return False
        out[:] = tmp
    return True


@njit(cache=True)
def _option_hand(hand, hinfo_k, h, with_got):
    h[:] = hand
    if hinfo_k[1] >= 0:
        h[hinfo_k[1]] -= 1
    if hinfo_k[2] >= 0:
        h[hinfo_k[2]] -= 1
    if with_got:
        h[hinfo_k[3]] += 1


@njit(cache=True)
def _best_harvest(hand, wtab, nt, adds, forbid, keep, values, rp, crules, prm, mv, ws, rec, ops, mrows, nops,
                  ctx):
    """ExpertBot._best_harvest and bots.moves.apply_harvest: the table move that lets the hand go out,
    else the one that lowers its deadwood most with the freed card melded again.  Returns 0 (none),
    1 (made: hand, wtab, adds and ops[nops:ctx[0]] updated, ctx[1] the table rows) or 2 (going out:
    ops and the melds laid, ctx[2] the discard)."""
    hops = np.empty((MAX_H, 2, X_W), np.int64)
    hn = np.zeros(MAX_H, np.int64)
    hinfo = np.empty((MAX_H, 5), np.int64)
    n = list_harvests(hand, wtab, nt, adds, rp, crules, hops, hn, hinfo)
    if n == 0:
        return 0
    _, base, _ = search_hand(hand, prm, mv, ws, rec, NO)
    h = np.empty(N_KINDS, np.int8)
    h2 = np.empty(N_KINDS, np.int8)
    outd = np.empty((MAX_OUT, OUT_W), np.int64)
    best_rows = np.empty((MAX_OUT, OUT_W), np.int64)
    best_meld = np.empty(core.ROW_W, np.int64)
    meld = np.empty(core.ROW_W, np.int64)
    best_h = np.empty(N_KINDS, np.int8)
    best = -1
    best0 = 0
    best1 = 0
    best_nr = 0
    best_out = False
    best_disc = -1
    for k in range(n):
        got = hinfo[k, 3]
        _option_hand(hand, hinfo[k], h, True)
        _, dead, loose = search_hand(h, prm, mv, ws, rec, NO)
        if loose > 1 and (dead >= base or (best >= 0 and best0 < 0)):
            continue
        ok = False
        disc = -1
        if loose <= 1:
            disc = go_out_kernel(h, prm, False)
            ok = disc >= 0
        nr = 0
        if ok and disc != forbid and got != disc:
            h2[:] = h
            h2[disc] -= 1
            _, rows = full_partition_kernel(h2, prm)
            nr = rows.shape[0]
            outd[:nr] = rows
            if got == JOKER and not _joker_in_meld_with_two(outd, nr):
                continue
            s0, s1 = -1, 0
        else:
            _option_hand(hand, hinfo[k], h2, False)
            _, dead_without, _ = search_hand(h2, prm, mv, ws, rec, NO)
            if dead >= base or dead >= dead_without + values[got]:
                continue
            search_hand(h, prm, mv, ws, rec, YES)
            nr = reconstruct(h, prm, rec, np.int64(1), outd)
            h2[:] = h
            for r in range(nr):
                for j in range(outd[r, 2]):
                    h2[outd[r, core.CARDS + j]] -= 1
            if h2[got] > 0 or nr == 0:
                continue
            if got == JOKER and not _joker_in_meld_with_two(outd, nr):
                continue
            if not has_discard(h2, forbid):
                continue
            gain = base - dead
            if gain <= 0:
                continue
            s0, s1 = 0, -gain
        if best < 0 or s0 < best0 or (s0 == best0 and s1 < best1):
            if not check_option(wtab, hops[k], hn[k], hinfo[k, 0], adds, rp, crules, prm, meld):
                continue
            best = k
            best0 = s0
            best1 = s1
            best_h[:] = h
            best_meld[:] = meld
            best_rows[:nr] = outd[:nr]
            best_nr = nr
            best_out = ok and s0 == -1
            best_disc = disc
    if best < 0:
        return 0
    if best_out:
        for o in range(hn[best]):
            nops = push_op(ops, nops, hops[best, o, X_KIND], hops[best, o, X_TARGET], hops[best, o, X_CARD],
                         hops[best, o, X_POS], hops[best, o, X_EXTRA])
        hand[:] = best_h
        wt = nt
        for r in range(best_nr):
            nops, wt = push_meld(ops, mrows, nops, wtab, wt, hand, best_rows[r])
        ctx[0] = nops
        ctx[2] = best_disc
        return 2
    return 1 if apply_option(hand, wtab, nt, adds, hops[best], hn[best], hinfo[best], best_meld, forbid, keep, prm,
                              mv, ws, rec, ops, mrows, nops, ctx) else 0


@njit(cache=True)
def apply_option(hand, wtab, nt, adds, hops_k, hn_k, hinfo_k, meld, forbid, keep, prm, mv, ws, rec, ops, mrows,
                  nops, ctx):
    """bots.moves.apply_harvest for a checked option (``meld``: its target afterwards): the move made
    and the freed card melded again in a new meld from the hand with a card left to discard (hand,
    wtab, adds and ops[nops:ctx[0]] updated, ctx[1] the table rows), or False and nothing changed."""
    h = np.empty(N_KINDS, np.int8)
    h2 = np.empty(N_KINDS, np.int8)
    outd = np.empty((MAX_OUT, OUT_W), np.int64)
    _option_hand(hand, hinfo_k, h, True)
    got = hinfo_k[3]
    search_hand(h, prm, mv, ws, rec, YES)
    nr = reconstruct(h, prm, rec, np.int64(1), outd)
    pick = -1
    for r in range(nr):
        if outd[r, 2] >= 3:
            for j in range(outd[r, 2]):
                if outd[r, core.CARDS + j] == got:
                    pick = r
                    break
        if pick >= 0:
            break
    if pick < 0:
        return False
    h2[:] = h
    for j in range(outd[pick, 2]):
        h2[outd[pick, core.CARDS + j]] -= 1
    if not has_discard(h2, forbid) or hand_size(h2) < keep:
        return False
    for o in range(hn_k):
        nops = push_op(ops, nops, hops_k[o, X_KIND], hops_k[o, X_TARGET], hops_k[o, X_CARD], hops_k[o, X_POS],
                     hops_k[o, X_EXTRA])
    wtab[hinfo_k[0]] = meld
    hand[:] = h
    nops, nt = push_meld(ops, mrows, nops, wtab, nt, hand, outd[pick])
    if hinfo_k[4] >= 0:
        count_run_add(adds, hinfo_k[0], hinfo_k[4])
    ctx[0] = nops
    ctx[1] = nt
    return True


# ---------------------------------------------------------------------------------------------------
# openings with the table's help
# ---------------------------------------------------------------------------------------------------

@njit(cache=True)
def _lay_off_rest(h, t, nt, keep, forbid, hold, rp, crules, prm, ops, nops):
    """_opening_variant's lay_off_rest: lay-offs (no splits, fresh per-turn limits) onto t[:nt], a copy
    of ``hold`` (the taken discard the opening must meld) kept; (ops, points they add)."""
    before = 0
    for i in range(nt):
        before += core.meld_value(t[i], prm)
    adds = np.zeros((4, MAXT), np.int64)
    adds[A_FROM, :] = -1
    ctx = np.zeros(4, np.int64)
    held = hold >= 0 and h[hold] > 0
    if held:  # out of the lay-offs' reach
        h[hold] -= 1
    lay_off_hand(t, nt, h, keep, forbid, adds, rp, crules, prm, ops, nops, ctx, NO, np.int64(40))
    if held:
        h[hold] += 1
    after = 0
    for i in range(nt):
        after += core.meld_value(t[i], prm)
    return ctx[0], after - before


@njit(cache=True)
def _opening_variant(h0, t0, nt, pre, npre, layoffs_first, keep, forbid, must_meld, rp, crules, prm, mv, ws, rec,
                     ops, mrows, hand):
    """bots.moves._opening_variant: one way to open from hand h0 on table t0 after the operations
    pre[:npre] (a joker swap or none): the most valuable melds of the hand, and lay-offs onto the
    table (before or after choosing the melds) where they count.  Returns (found, deadwood after the
    best discard, operations in ops/mrows); hand: the hand left."""
    h = h0.copy()
    t = t0[:max(nt, 1)].copy()
    lops = np.full((MAX_X, X_W), -1, np.int64)
    nl = 0
    layoff_value = 0
    if layoffs_first:
        nl, layoff_value = _lay_off_rest(h, t, nt, keep, forbid, must_meld, rp, crules, prm, lops, np.int64(0))
    rows = np.empty((MAX_OUT, OUT_W), np.int64)
    search_hand(h, prm, mv, ws, rec, YES)
    nr = reconstruct(h, prm, rec, np.int64(0), rows)
    vals = np.empty(nr, np.int64)
    for r in range(nr):
        vals[r] = core.meld_value(rows[r], prm)
    for r in range(1, nr):  # sorted by value, most valuable first (stable)
        j = r
        while j > 0 and vals[j - 1] < vals[j]:
            tmp_row = rows[j].copy()
            rows[j] = rows[j - 1]
            rows[j - 1] = tmp_row
            v = vals[j]
            vals[j] = vals[j - 1]
            vals[j - 1] = v
            j -= 1
    need_joker = npre > 0
    rest = h.copy()
    for r in range(nr):
        for k in range(rows[r, 2]):
            rest[rows[r, core.CARDS + k]] -= 1
    keep_row = np.ones(nr, np.bool_)
    live = nr
    while live > 0 and (not has_discard(rest, forbid) or hand_size(rest) < keep):
        drop = -1
        for r in range(nr - 1, -1, -1):
            if not keep_row[r]:
                continue
            has = False
            for k in range(rows[r, 2]):
                c = rows[r, core.CARDS + k]
                if (must_meld >= 0 and c == must_meld) or (need_joker and c == JOKER):
                    has = True
            if not has:
                drop = r
                break
        if drop < 0:
            return False, 0, 0
        keep_row[drop] = False
        live -= 1
        for k in range(rows[drop, 2]):
            rest[rows[drop, core.CARDS + k]] += 1
    if live == 0:
        return False, 0, 0
    for c in (must_meld, JOKER if need_joker else -1):
        if c < 0:
            continue
        found = False
        for r in range(nr):
            if keep_row[r]:
                for k in range(rows[r, 2]):
                    if rows[r, core.CARDS + k] == c:
                        found = True
        if not found:
            return False, 0, 0
    h[:] = rest
    if not layoffs_first and rp[R_LAYOFFS_COUNT] != 0:
        nl, layoff_value = _lay_off_rest(h, t, nt, keep, forbid, must_meld, rp, crules, prm, lops, np.int64(0))
    value = 0
    for r in range(nr):
        if keep_row[r]:
            value += vals[r]
    if rp[R_LAYOFFS_COUNT] != 0:
        value += layoff_value
    if value < prm[P_OPENING_MIN] or not has_discard(h, forbid) or hand_size(h) < keep:
        return False, 0, 0
    deadwood = best_discard_except_kernel(h, prm, forbid)[1]
    nops = np.int64(0)
    for o in range(npre):
        nops = push_op(ops, nops, pre[o, X_KIND], pre[o, X_TARGET], pre[o, X_CARD], pre[o, X_POS], pre[o, X_EXTRA])
    for r in range(nr):
        if keep_row[r]:
            mrows[nops] = rows[r]
            nops = push_op(ops, nops, X_NEW, nt + r, -1, -1, -1)
    for o in range(nl):
        nops = push_op(ops, nops, lops[o, X_KIND], lops[o, X_TARGET], lops[o, X_CARD], lops[o, X_POS], lops[o, X_EXTRA])
    hand[:] = h
    return True, deadwood, nops


@njit(cache=True)
def open_with_table(hand, tab, nt, forbid, must_meld, keep, rp, crules, prm, mv, ws, rec, ops, mrows, hand_out):
    """bots.moves.table_opening: an opening that uses the table where the profile allows it (a joker
    taken from a table meld by substitution and laid in a new meld, ``joker_take_at_opening``; lay-offs
    counted towards the minimum with a new meld, ``layoffs_count_for_opening``); ``must_meld``: a card
    that must go into a new meld.  The valid opening leaving the least deadwood after the best discard:
    returns its operations' count (0: none) in ops/mrows, the hand left in hand_out."""
    if rp[R_TABLE_OPENING] == 0:
        return 0
    variants = 2 if rp[R_LAYOFFS_COUNT] != 0 else 1
    best = -1
    best_n = 0
    vops = np.full((MAX_X, X_W), -1, np.int64)
    vrows = np.full((MAX_X, OUT_W), -1, np.int64)
    vhand = np.empty(N_KINDS, np.int8)
    pre = np.full((2, X_W), -1, np.int64)
    h = np.empty(N_KINDS, np.int8)
    t = np.full((MAXT, OUT_W), -1, np.int64)
    t[:nt] = tab[:nt]
    # the hand alone, then each joker swap the rules allow now
    hops = np.empty((MAX_H, 2, X_W), np.int64)
    hn = np.zeros(MAX_H, np.int64)
    hinfo = np.empty((MAX_H, 5), np.int64)
    n_opts = 0
    if crules[core.R_JOKER_TAKE_AT_OPENING] != 0:
        adds = np.zeros((4, MAXT), np.int64)
        adds[A_FROM, :] = -1
        n_opts = list_harvests(hand, tab, nt, adds, rp, crules, hops, hn, hinfo)
    meld = np.empty(core.ROW_W, np.int64)
    zero_adds = np.zeros((4, MAXT), np.int64)
    zero_adds[A_FROM, :] = -1
    for s in range(-1, n_opts):
        npre = 0
        h[:] = hand
        t[:nt] = tab[:nt]
        if s >= 0:
            if hinfo[s, 3] != JOKER or not check_option(tab, hops[s], hn[s], hinfo[s, 0], zero_adds, rp, crules, prm, meld):
                continue
            _option_hand(hand, hinfo[s], h, True)
            t[hinfo[s, 0]] = meld
            for o in range(hn[s]):
                pre[o] = hops[s, o]
            npre = hn[s]
        for lf in range(variants):
            ok, dead, n = _opening_variant(h, t, nt, pre, npre, lf == 1, keep, forbid, must_meld, rp, crules, prm,
                                           mv, ws, rec, vops, vrows, vhand)
            if ok and (best < 0 or dead < best):
                best = dead
                best_n = n
                ops[:n] = vops[:n]
                mrows[:n] = vrows[:n]
                hand_out[:] = vhand
    return best_n if best >= 0 else 0


@njit(cache=True)
def harvest_options_kernel(hand, tab, adds, rp, crules):
    hops = np.empty((MAX_H, 2, X_W), np.int64)
    hn = np.zeros(MAX_H, np.int64)
    hinfo = np.empty((MAX_H, 5), np.int64)
    n = list_harvests(hand, tab, tab.shape[0], adds, rp, crules, hops, hn, hinfo)
    return hops[:n].copy(), hn[:n].copy(), hinfo[:n].copy()


@njit(cache=True)
def table_opening_kernel(hand, tab, forbid, must_meld, keep, rp, crules, prm):
    mv, ws, rec = new_workspace()
    ops = np.full((MAX_X, X_W), -1, np.int64)
    mrows = np.full((MAX_X, OUT_W), -1, np.int64)
    rest = np.empty(N_KINDS, np.int8)
    n = open_with_table(hand, tab, tab.shape[0], forbid, must_meld, keep, rp, crules, prm, mv, ws, rec, ops, mrows,
                       rest)
    return n, ops[:n].copy(), mrows[:n].copy(), rest


# ---------------------------------------------------------------------------------------------------
# the play of an opened expert
# ---------------------------------------------------------------------------------------------------

@njit(cache=True)
def expert_table_play(inp, h, me, nt0, drawn_card, drawn_from, max_harvests, wtab, play, sx):
    """ExpertBot.play for player ``me`` of the compiled hand ``h`` (``sim.engine.hand.Hand``, never written;
    its table ``tab[:nt0]``), who has opened, its draw made (``drawn_card`` from ``drawn_from``), with the
    hand's fixed inputs ``inp`` (a ``HandInputs``) and the meld search's workspace of ``sx`` (a
    ``kernels.plays.Scratch``): the operations go to the ``play`` (a ``kernels.plays.Pending``: ops
    xops[:xctx[0]], each new meld's row as laid in xmrows, the hand left in whand), the working table
    (before trailing operations were undone, as the Python bot had it) to wtab[:xctx[1]].  Returns
    (answer, discard): PLAYED, the play is complete; CHOOSE, the caller chooses the discard from the
    hand left.  A play that does not go out gives way to one that does with new melds and lay-offs,
    jokers included (``kernels.goout.go_out_building``)."""
    rp, crules, prm = inp.rp, inp.crules, inp.prm
    hands, turns, tab0 = h.hands, h.turns, h.tab
    ops, mrows, ctx, hand = play.xops, play.xmrows, play.xctx, play.whand
    mv, ws, rec = sx.mv, sx.ws, sx.rec
    answer, disc = _expert_moves(inp, h, me, nt0, drawn_card, drawn_from, max_harvests, wtab, play, sx)
    if hand_size(hand) < 2 or (turns[me] == 0 and rp[R_GO_OUT_FIRST_ROUND] == 0):
        return answer, disc
    h0 = hands[me]
    bound = layable_bound(h0, tab0, nt0, rp)
    loose = ctx[3]  # _expert_moves' search of the hand as drawn
    if bound == 0 or loose > bound + 1:
        return answer, disc
    forbid = drawn_card if drawn_from == DISCARD else -1
    outv = np.empty((MAX_OUT, OUT_W), np.int64)
    lay = np.empty((MAX_X, 3), np.int64)
    out, nr, nl = go_out_building(h0, loose, tab0, nt0, YES, forbid, np.int64(-1), rp, prm, mv, ws, rec, outv, lay)
    if out < 0:
        return answer, disc
    hand[:] = h0
    wtab[:nt0] = tab0[:nt0]
    nt = nt0
    nops = np.int64(0)
    for r in range(nr):
        nops, nt = push_meld(ops, mrows, nops, wtab, nt, hand, outv[r])
    first = np.empty(core.ROW_W, np.int64)
    for j in range(nl):
        if lay[j, 2] >= SPLIT_AT:  # a split: the part cut off joins the table last
            pos = lay[j, 2] - SPLIT_AT
            core.split_row(wtab[lay[j, 0]], lay[j, 1], pos, crules, first, wtab[nt])
            wtab[lay[j, 0]] = first
            nt += 1
            nops = push_op(ops, nops, X_SPLIT, lay[j, 0], lay[j, 1], pos, -1)
        elif lay[j, 2] == CUT_LOW:  # onto the low end of the part just cut off
            apply_layoff(wtab, nt - 1, lay[j, 1], LOW)
            nops = push_op(ops, nops, X_LAYOFF, nt - 1, lay[j, 1], LOW, -1)
        else:
            apply_layoff(wtab, lay[j, 0], lay[j, 1], lay[j, 2])
            nops = push_op(ops, nops, X_LAYOFF, lay[j, 0], lay[j, 1], lay[j, 2], -1)
        hand[lay[j, 1]] -= 1
    ctx[0] = nops
    ctx[1] = nt
    return PLAYED, out


@njit(cache=True)
def _expert_moves(inp, h, me, nt0, drawn_card, drawn_from, max_harvests, wtab, play, sx):
    """The opened expert's own moves (``expert_table_play``, whose arguments it takes): going out with the hand
    alone, harvests, its melds laid down, lay-offs and splits, the taken discard melded where it must be."""
    values, rp, crules, prm = inp.values, inp.rp, inp.crules, inp.prm
    hands, turns, tab0 = h.hands, h.turns, h.tab
    ops, mrows, ctx, hand = play.xops, play.xmrows, play.xctx, play.whand
    mv, ws, rec = sx.mv, sx.ws, sx.rec
    nt = nt0
    wtab[:nt] = tab0[:nt]
    hand[:] = hands[me]
    hh = np.empty(N_KINDS, np.int8)
    outv = np.empty((MAX_OUT, OUT_W), np.int64)
    nops = np.int64(0)
    forbid = drawn_card if drawn_from == DISCARD else -1
    first = turns[me] == 0
    may_out = rp[R_GO_OUT_FIRST_ROUND] != 0 or not first
    keep = 2 if (first and rp[R_GO_OUT_FIRST_ROUND] == 0) else 1
    _, _, loose = search_hand(hand, prm, mv, ws, rec, YES)
    ctx[3] = loose
    disc, nr, _ = go_out(hand, loose, prm, NO, forbid, mv, ws, rec, outv, hh)
    if disc >= 0 and may_out:
        for r in range(nr):
            nops, nt = push_meld(ops, mrows, nops, wtab, nt, hand, outv[r])
        ctx[0] = nops
        ctx[1] = nt
        return PLAYED, disc
    adds = np.zeros((4, MAXT), np.int64)
    adds[A_FROM, :] = -1
    hctx = np.zeros(4, np.int64)
    for _ in range(max_harvests):
        res = _best_harvest(hand, wtab, nt, adds, forbid, keep, values, rp, crules, prm, mv, ws, rec, ops, mrows,
                            nops, hctx)
        if res == 0:
            break
        nops = hctx[0]
        if res == 2:
            ctx[0] = nops
            ctx[1] = nt
            return PLAYED, hctx[2]
        nt = hctx[1]
    # lay down the melds held (a card kept to discard), then lay off and split
    search_hand(hand, prm, mv, ws, rec, YES)
    nr = reconstruct(hand, prm, rec, np.int64(1), outv)
    used = 0
    for r in range(nr):
        used += outv[r, 2]
    if nr > 0 and hand_size(hand) - used >= 1:
        for r in range(nr):
            nops, nt = push_meld(ops, mrows, nops, wtab, nt, hand, outv[r])
    hctx[0] = nops
    hctx[1] = nt
    lay_off_hand(wtab, nt, hand, keep, forbid, adds, rp, crules, prm, ops, nops, hctx, YES, np.int64(40))
    nops = hctx[0]
    nt = hctx[1]
    ctx[1] = nt
    # bots.moves.repair: undo trailing lay-downs, lay-offs and splits until a card (not the forbidden
    # one) is left to discard; the working table is left as it was (as the Python bot's)
    while (not has_discard(hand, forbid) or hand_size(hand) < keep) and nops > 0 and ops[nops - 1, X_KIND] in (
            X_NEW, X_LAYOFF, X_SPLIT):
        nops -= 1
        if ops[nops, X_KIND] == X_NEW:
            for j in range(mrows[nops, 2]):
                hand[mrows[nops, core.CARDS + j]] += 1
        else:
            hand[ops[nops, X_CARD]] += 1
    ctx[0] = nops
    taken = drawn_card if drawn_from == DISCARD else -1
    if taken >= 0 and taken_obligation(YES, turns[me], rp) == OB_MELD:
        used_taken = False
        for o in range(nops):
            k = ops[o, X_KIND]
            if (k == X_LAYOFF or k == X_SPLIT or k == X_SWAP) and ops[o, X_CARD] == taken:
                used_taken = True
            if k == X_NEW:
                for j in range(mrows[o, 2]):
                    if mrows[o, core.CARDS + j] == taken:
                        used_taken = True
        if not used_taken:
            h0 = hands[me].copy()
            lops = np.zeros((160, 6), np.int64)
            lctx = np.zeros(4, np.int64)
            tab1 = np.full((1, OUT_W), -1, np.int64)
            outd = np.empty((MAX_OUT, OUT_W), np.int64)
            kind, d, idx = meld_taken_card(h0.copy(), taken, tab0, nt0, values, rp, prm, mv, ws, rec, hh, outd,
                                            lops, lctx, tab1)
            if kind != 0:
                nops = np.int64(0)
                hand[:] = h0
                if kind == 1:
                    nops, _ = push_meld(ops, mrows, nops, wtab, nt, hand, outd[idx])
                else:
                    for o in range(lctx[1]):
                        nops = push_op(ops, nops, X_LAYOFF, idx, lops[o, 2], lops[o, 3], -1)
                        hand[lops[o, 2]] -= 1
                ctx[0] = nops
                return PLAYED, d
    return CHOOSE, -1


@njit(cache=True)
def new_pending():
    """A ``kernels.plays.Pending`` of MAX_X operation rows, empty."""
    return Pending(np.full((MAX_X, X_W), -1, np.int64), np.full((MAX_X, OUT_W), -1, np.int64), np.zeros(4, np.int64),
                   np.empty(N_KINDS, np.int8))


@njit(cache=True)
def expert_play_kernel(inp, h, me, drawn_card, drawn_from, max_harvests):
    """``expert_table_play`` for the Python engine, on a ``HandState``'s own compiled hand ``h`` (never written):
    (answer, discard, ops, new meld rows, hand left, the working table's rows)."""
    wtab = np.full((MAXT, OUT_W), -1, np.int64)
    play = new_pending()
    answer, disc = expert_table_play(inp, h, me, h.sc[SC_NT], drawn_card, drawn_from, max_harvests, wtab, play,
                                new_scratch())
    nops = play.xctx[0]
    return answer, disc, play.xops[:nops].copy(), play.xmrows[:nops].copy(), play.whand, wtab[:play.xctx[1]].copy()


drop_stale(expert_play_kernel, (FG, MS, core, TU))


def expert_play(state, me: int, max_harvests: int):
    """(Play or None, hand left, working table as melds): the Play when complete, else None and the
    caller chooses the discard from the hand left with the working table."""
    answer, disc, ops, mrows, hand, table = expert_play_kernel(state.inp, state.h, me, state.drawn_card,
                                                               state.drawn_from, max_harvests)
    out = decode(ops, mrows)
    if answer == PLAYED:
        return Play(out, int(disc)), hand, None
    return Play(out), hand, [M.meld_of(r) for r in table]


def table_opening(state, me: int, hand, forbid: int, must_meld: int = -1):
    """An opening that uses the table where the profile allows it (``open_with_table``): (operations,
    hand left) of the valid opening leaving the least deadwood after the best discard, or None."""
    cp = core.compiled(state.profile)
    if cp.rules[R_TABLE_OPENING] == 0:
        return None
    keep = 2 if (state.turns_taken[me] == 0 and not state.profile.go_out_first_round) else 1
    tab = table_rows(state.table) if state.table else NO_TABLE
    n, ops, mrows, rest = table_opening_kernel(np.ascontiguousarray(hand, dtype=np.int8), tab, forbid, must_meld,
                                               keep, cp.rules, cp.rules, cp.params)
    return (decode(ops, mrows), rest) if n > 0 else None


def harvest_options(state, hand, adds=None) -> list:
    """Every table move ``list_harvests`` offers now, as lists of the engine's operations, in its
    order; ``adds``: the turn's additions to run ends (``new_adds``)."""
    rules = core.compiled(state.profile).rules
    tab = table_rows(state.table) if state.table else NO_TABLE
    hops, hn, _ = harvest_options_kernel(np.ascontiguousarray(hand, dtype=np.int8), tab,
                                         new_adds() if adds is None else adds, rules, rules)
    empty = np.zeros((0, OUT_W), np.int64)
    return [decode(hops[k, :hn[k]], np.full((hn[k], OUT_W), -1, np.int64) if hn[k] else empty) for k in range(len(hn))]
