"""The random bot: its decisions compiled, over a stream of uniform numbers drawn from its generator."""
from __future__ import annotations

import numpy as np
from numba import njit

from .. import meldsearch as MS
from ..cards import N_KINDS
from ..engine import DRAW_DISCARD, DRAW_STOCK, Play, core
from ..engine import turn as TU
from ..engine.core import R_GO_OUT_FIRST_ROUND, R_PICKUP_BEFORE_OPENING
from ..engine.hand import SC_NT
from ..engine.table import decode
from ..engine.turn import OB_NONE, OB_OPEN
from ..meldsearch import MAX_OUT, OUT_W, P_OPENING_MIN, reconstruct
from ..jit.cache import drop_stale
from . import greedy_core as FG
from . import table_play as TP
from .base import Bot
from .kernels.hands import NO, YES, hand_size, has_discard, search_hand
from .kernels.layoffs import lay_off_hand
from .kernels.plays import DISCARD, STOCK, new_scratch, taken_obligation

STREAM_BLOCK = 4096  # uniforms drawn from the bot's generator at a time
OUT_OF_STREAM = -3  # an answer: the stream ran out (the caller draws more and asks again)


@njit(cache=True)
def random_draw(me, hands, opened, turns, discard, nd, rp, stream, pos):
    """RandomBot.draw: the discard with probability one half when it may take it and owes nothing for
    it, else the stock: (source, stream position)."""
    if nd > 0 and (opened[me] != 0 or rp[R_PICKUP_BEFORE_OPENING] != 0):
        top = discard[nd - 1]
        if hands[me, top] != hand_size(hands[me]) and taken_obligation(opened[me] != 0, turns[me], rp) == OB_NONE:
            if pos >= stream.shape[0]:
                return OUT_OF_STREAM, pos
            if stream[pos] < 0.5:
                return DISCARD, pos + 1
            pos += 1
    return STOCK, pos


@njit(cache=True)
def _pick(hand, forbid, u):
    """A card of the hand chosen by u in [0, 1) among every copy held but the forbidden card's."""
    n = 0
    for c in range(N_KINDS):
        if c != forbid:
            n += hand[c]
    k = min(int(u * n), n - 1)
    for c in range(N_KINDS):
        if c != forbid:
            if k < hand[c]:
                return c
            k -= hand[c]
    return -1


@njit(cache=True)
def random_play(inp, h, me, nt, drawn_card, drawn_from, stream, pos, wtab, play, sx):
    """RandomBot.play of player ``me`` of the compiled hand ``h`` (``sim.engine.hand.Hand``, never written;
    its table ``tab[:nt]``), its draw made (``drawn_card`` from ``drawn_from``), with the hand's fixed
    inputs ``inp`` (a ``HandInputs``), reading the uniforms ``stream`` from ``pos`` on: it opens with
    probability one half when it can (with the table's help where the profile allows it and the hand
    alone cannot); once open it tries one table move at random with probability one half (one it can
    meld the freed card of again); then, with probability one half, up to 1-3 random lay-offs and
    splits; and it discards a random card.  Operations in the ``play`` (a ``kernels.plays.Pending``:
    xops[:xctx[0]], table_play's rows; the hand left in whand), wtab the working table, ``sx`` the
    meld search's workspace (a ``kernels.plays.Scratch``); returns (discard, stream position), the
    discard OUT_OF_STREAM when the stream ran out."""
    rp, crules, prm = inp.rp, inp.crules, inp.prm
    hands, opened, turns, tab = h.hands, h.opened, h.turns, h.tab
    ops, mrows, ctx, hand = play.xops, play.xmrows, play.xctx, play.whand
    mv, ws, rec = sx.mv, sx.ws, sx.rec
    need = 6  # uniforms one play can use at most
    if pos + need > stream.shape[0]:
        return OUT_OF_STREAM, pos
    forbid = drawn_card if drawn_from == DISCARD else -1
    keep = 2 if (turns[me] == 0 and rp[R_GO_OUT_FIRST_ROUND] == 0) else 1
    hand[:] = hands[me]
    wtab[:nt] = tab[:nt]
    nw = nt
    nops = np.int64(0)
    was_open = opened[me] != 0
    if not was_open:
        u = stream[pos]
        pos += 1
        if u < 0.5:
            v, _, _ = search_hand(hand, prm, mv, ws, rec, YES)
            if v >= prm[P_OPENING_MIN]:
                rows = np.empty((MAX_OUT, OUT_W), np.int64)
                nr = reconstruct(hand, prm, rec, np.int64(0), rows)
                used = 0
                for r in range(nr):
                    used += rows[r, 2]
                if used < hand_size(hand):
                    for r in range(nr):
                        nops, nw = TP.push_meld(ops, mrows, nops, wtab, nw, hand, rows[r])
            else:
                must = drawn_card if (drawn_from == DISCARD and taken_obligation(NO, turns[me], rp) == OB_OPEN) else -1
                rest = np.empty(N_KINDS, np.int8)
                n = TP.open_with_table(hand, tab, nt, forbid, must, keep, rp, crules, prm, mv, ws, rec, ops, mrows,
                                      rest)
                if n > 0:  # the profile lets it open with the table's help
                    hand[:] = rest
                    ctx[0] = n
                    c = _pick(rest, forbid, stream[pos])
                    return c, pos + 1
    adds = np.zeros((4, TP.MAXT), np.int64)
    adds[TP.A_FROM, :] = -1
    if was_open and nops == 0:
        u = stream[pos]
        pos += 1
        if u < 0.5:  # one table move at random
            hops = np.empty((TP.MAX_H, 2, TP.X_W), np.int64)
            hn = np.zeros(TP.MAX_H, np.int64)
            hinfo = np.empty((TP.MAX_H, 5), np.int64)
            n_opts = TP.list_harvests(hand, wtab, nw, adds, rp, crules, hops, hn, hinfo)
            if n_opts > 0:
                k = min(int(stream[pos] * n_opts), n_opts - 1)
                pos += 1
                meld = np.empty(core.ROW_W, np.int64)
                if TP.check_option(wtab, hops[k], hn[k], hinfo[k, 0], adds, rp, crules, prm, meld):
                    hctx = np.zeros(4, np.int64)
                    if TP.apply_option(hand, wtab, nw, adds, hops[k], hn[k], hinfo[k], meld, forbid, keep, prm, mv,
                                        ws, rec, ops, mrows, nops, hctx):
                        nops = hctx[0]
                        nw = hctx[1]
    if was_open or nops > 0:
        u = stream[pos]
        pos += 1
        if u < 0.5:  # a few lay-offs and splits
            max_ops = 1 + min(int(stream[pos] * 3), 2)
            pos += 1
            lctx = np.zeros(4, np.int64)
            lay_off_hand(wtab, nw, hand, np.int64(1), forbid, adds, rp, crules, prm, ops, nops, lctx, YES, max_ops)
            nops = lctx[0]
            nw = lctx[1]
    if not has_discard(hand, forbid) or hand_size(hand) < keep:  # nothing would be left to discard: meld nothing
        nops = 0
        hand[:] = hands[me]
    ctx[0] = nops
    c = _pick(hand, forbid, stream[pos])
    return c, pos + 1


@njit(cache=True)
def draw_kernel(me, hands, opened, turns, discard, rp, stream, pos):
    return random_draw(me, hands, opened, turns, discard, discard.shape[0], rp, stream, pos)


@njit(cache=True)
def play_kernel(inp, h, me, drawn_card, drawn_from, stream, pos):
    """``random_play`` on a ``HandState``'s own compiled hand ``h`` (never written)."""
    play = TP.new_pending()
    wtab = np.full((TP.MAXT, OUT_W), -1, np.int64)
    disc, pos = random_play(inp, h, me, h.sc[SC_NT], drawn_card, drawn_from, stream, pos, wtab, play, new_scratch())
    n = play.xctx[0]
    return disc, pos, play.xops[:n].copy(), play.xmrows[:n].copy()


drop_stale(play_kernel, (FG, MS, core, TU, TP))


class RandomBot(Bot):
    """Random: a legal turn chosen at random.

    It draws from either allowed pile at random (the discard only when it owes nothing for it), opens
    with probability one half when it can (with the table's help where the profile allows it and the
    hand alone cannot), once open tries one table move at random (a removal, shift, substitution or
    joker swap whose freed card it can meld again), then makes random lay-offs and splits, and
    discards a random card; as dealer it swaps the upcard for a random card half the time.

    Every choice reads the next number of a stream of uniforms drawn from its generator in blocks
    (``stream``, ``pos``), so the compiled decisions above give the same turns in the Python engine
    and in the compiled hand loop (``sim.bots.hand_loop``, which advances ``pos`` for a whole hand).
    """

    name = "random"
    hand_loop = "sim.bots.hand_loop"

    def __init__(self, rng=None, **params):
        super().__init__(rng, **params)
        self.stream = np.empty(0, np.float64)
        self.pos = 0

    def ensure(self, k: int) -> None:
        """At least k uniforms ahead in the stream (more blocks drawn from the generator)."""
        while len(self.stream) - self.pos < k:
            self.stream = np.concatenate([self.stream[self.pos:], self.rng.random(STREAM_BLOCK)])
            self.pos = 0

    def next_uniform(self) -> float:
        """The stream's next uniform (more blocks drawn from the generator where it has none left)."""
        self.ensure(1)
        self.pos += 1
        return float(self.stream[self.pos - 1])

    def draw(self, state, me) -> int:
        self.ensure(64)
        rp = core.compiled(state.profile).rules
        opened, turns = np.array(state.opened, dtype=np.int64), np.array(state.turns_taken, dtype=np.int64)
        src, self.pos = draw_kernel(me, state.hands, opened, turns, np.array(state.discard, dtype=np.int64), rp,
                                    self.stream, self.pos)
        return DRAW_DISCARD if src == DISCARD else DRAW_STOCK

    def play(self, state, me) -> Play:
        self.ensure(64)
        disc, self.pos, ops, mrows = play_kernel(state.inp, state.h, me, state.drawn_card, state.drawn_from,
                                                 self.stream, self.pos)
        return Play(decode(ops, mrows), int(disc))

    def dealer_swap(self, state, me):
        """Half the time, take the upcard and discard a random other card of the hand."""
        if self.next_uniform() < 0.5:
            return None
        hand = state.hands[me]
        cards = [c for c in range(N_KINDS) for _ in range(int(hand[c])) if c != state.discard_top]
        return cards[min(int(self.next_uniform() * len(cards)), len(cards) - 1)] if cards else None
