"""Bots: one protocol, each a documented strategy, acting only through the engine's validated turns.

A bot answers four questions: ``draw(state, me)`` (stock or discard), ``play(state, me)`` (a whole
``Play``: table operations and a discard), ``buy_in(ledger, seat)`` and, in profiles with the East
Coast dealer swap, ``dealer_swap(state, me)``.  Bots read only what a player may see: their own hand,
the table, the discard pile, hand sizes and the public record of pickups and discards.
"""
from __future__ import annotations

import numpy as np

from . import meldsearch as MS
from . import melds as M
from .cards import JOKER, N_KINDS, N_RANKS, suit_of
from .engine import DRAW_DISCARD, DRAW_STOCK, HIGH, LOW, LayOff, NewMeld, Play
from .melds import GROUP, RUN


def _loose_discard(hand, values, forbidden: int, prefer=None) -> int:
    """The highest-value card of ``prefer`` (or of the hand), never the forbidden card if avoidable."""
    pool = [c for c in (prefer or []) if hand[c] > 0]
    if not pool:
        pool = [c for c in range(N_KINDS) if hand[c] > 0]
    pool.sort(key=lambda c: (-(values[c] if c != JOKER else -1), -c))  # keep jokers: they meld anything
    for c in pool:
        if c != forbidden or hand[c] > 1:
            return c
    return pool[0]


def forbidden_discard(state) -> int:
    return state.drawn_card if state.drawn_from == DRAW_DISCARD and state.held_before_draw == 0 else -1


def find_layoffs(state, hand: np.ndarray, table: list, keep: int = 1, protect: int = -1, max_ops: int = 40) -> list:
    """Greedy lay-offs of hand cards onto table melds, respecting the per-turn run limits.

    Mutates ``hand`` and ``table`` (a working copy) and returns the LayOff operations, leaving at
    least ``keep`` cards in hand.  Jokers are laid off only when nothing else can be.
    """
    p = state.profile
    ops = []
    low_adds: dict[int, int] = {}
    high_adds: dict[int, int] = {}
    total_adds: dict[int, int] = {}
    changed = True
    while changed and len(ops) < max_ops:
        changed = False
        for i, m in enumerate(table):
            if hand.sum() <= keep:
                return ops
            if m.kind == RUN:
                for end in (LOW, HIGH):
                    e = m.low - 1 if end == LOW else m.low + len(m)
                    if e < 0 or e > M.ACE_HIGH_EXT or (e == 0 and not p.ace_low):
                        continue
                    if m.low == 0 and e == M.ACE_HIGH_EXT or (e == 0 and m.high == M.ACE_HIGH_EXT):
                        continue
                    adds = low_adds if end == LOW else high_adds
                    if p.run_add_limit == "two_total":
                        if total_adds.get(i, 0) >= 2:
                            continue
                    elif adds.get(i, 0) >= p.run_end_limit:
                        continue
                    rep = m.suit * N_RANKS + M.ext_rank_to_rank(e)
                    if hand[rep] > 0 and not (rep == protect and hand[rep] == 1):
                        c = rep
                    else:
                        continue
                    hand[c] -= 1
                    if end == LOW:
                        table[i] = m = M.Meld(RUN, (c,) + m.cards, (rep,) + m.reps, e)
                    else:
                        table[i] = m = M.Meld(RUN, m.cards + (c,), m.reps + (rep,), m.low)
                    ops.append(LayOff(i, c, end))
                    adds[i] = adds.get(i, 0) + 1
                    total_adds[i] = total_adds.get(i, 0) + 1
                    changed = True
                    if hand.sum() <= keep:
                        return ops
            elif m.low >= 0 and len(m) < 4:
                suits = {suit_of(r) for r in m.reps}
                for s in range(4):
                    c = s * N_RANKS + m.low
                    if s not in suits and hand[c] > 0 and not (c == protect and hand[c] == 1) and len(m) < 4:
                        hand[c] -= 1
                        table[i] = m = M.Meld(GROUP, m.cards + (c,), m.reps + (c,), m.low)
                        suits.add(s)
                        ops.append(LayOff(i, c, HIGH))
                        changed = True
                        if hand.sum() <= keep:
                            return ops
    return ops


class Bot:
    name = "bot"

    def __init__(self, rng: np.random.Generator | None = None, **params):
        self.rng = rng
        self.params = params

    def draw(self, state, me) -> int:
        raise NotImplementedError

    def play(self, state, me) -> Play:
        raise NotImplementedError

    def buy_in(self, ledger, seat) -> bool:
        return True

    def dealer_swap(self, state, me):
        return None


class GreedyBot(Bot):
    """Greedy: melds as early and as much as it can.

    It opens as soon as the opening minimum is reachable, with its most valuable opening; once open
    it lays down every meld it holds and lays off every card it can; it takes the discard only when
    that card completes a meld (and, before opening, only when it opens with it); it discards its
    highest-value loose card; and it always buys back in.
    """

    name = "greedy"

    def draw(self, state, me) -> int:
        top = state.discard_top
        if top < 0 or DRAW_DISCARD not in state.legal_draws():
            return DRAW_STOCK
        p = state.profile
        hand = state.hands[me].copy()
        obligation = state.discard_obligation(me)
        hand[top] += 1
        if obligation == "open":
            ok, ms = MS.can_open(hand, p)
            if ok and any(top in m.cards for m in ms) and sum(len(m) for m in ms) < hand.sum():
                return DRAW_DISCARD
            return DRAW_STOCK
        after = MS.analyse(hand, p)
        if top in after.deadwood_left:
            return DRAW_STOCK
        before = MS.analyse(state.hands[me], p)
        return DRAW_DISCARD if after.min_loose < before.min_loose else DRAW_STOCK

    def play(self, state, me) -> Play:
        p = state.profile
        hand = state.hands[me].copy()
        forbid = forbidden_discard(state)
        values = state.values
        taken = state.drawn_card if state.drawn_from == DRAW_DISCARD else -1
        ops: list = []
        if not state.opened[me]:
            ok, disc, ms = MS.can_kalooki(hand, p)
            if ok and disc != forbid and (p.go_out_first_round or not state.first_round(me)):
                return Play([NewMeld(m) for m in ms], disc)
            ok, ms = MS.can_open(hand, p)
            if ok:
                used = sum(len(m) for m in ms)
                if used >= hand.sum():
                    ms = self._opening_with_discard(hand, p, forbid)
                if ms and (taken < 0 or any(taken in m.cards for m in ms) or state.discard_obligation(me) is None):
                    for m in ms:
                        for c in m.cards:
                            hand[c] -= 1
                        ops.append(NewMeld(m))
            if not ops:
                return Play([], _loose_discard(hand, values, forbid, MS.analyse(hand, p).deadwood_left))
        else:
            ok, disc, ms = MS.can_go_out(hand, p)
            if ok and disc != forbid and (p.go_out_first_round or not state.first_round(me)):
                return Play([NewMeld(m) for m in ms], disc)
        table = list(state.table) + [op.meld for op in ops]
        # lay down every meld held (keeping a card to discard), then lay off
        res = MS.analyse(hand, p)
        if res.deadwood and (hand.sum() - sum(len(m) for m in res.deadwood)) >= 1:
            for m in res.deadwood:
                for c in m.cards:
                    hand[c] -= 1
                ops.append(NewMeld(m))
                table.append(m)
        elif res.deadwood:
            disc, _ = MS.best_discard(hand, p)
            h2 = hand.copy()
            h2[disc] -= 1
            for m in MS.analyse(h2, p).deadwood:
                for c in m.cards:
                    hand[c] -= 1
                ops.append(NewMeld(m))
                table.append(m)
        ops += find_layoffs(state, hand, table, keep=1, protect=forbid)
        if state.discard_obligation(me) == "meld" and taken >= 0 and not any(
                getattr(op, "card", None) == taken or (isinstance(op, NewMeld) and taken in op.meld.cards) for op in ops):
            pass  # engine will refuse; greedy only takes a card it can meld, so this does not happen
        left = [c for c in range(N_KINDS) for _ in range(int(hand[c]))]
        return Play(ops, _loose_discard(hand, values, forbid, left))

    def _opening_with_discard(self, hand, p, forbid):
        """The most valuable opening that still leaves a card to discard."""
        best, best_val = None, -1
        for d in range(N_KINDS):
            if hand[d] <= 0 or (d == forbid and hand[d] == 1):
                continue
            h = hand.copy()
            h[d] -= 1
            ok, ms = MS.can_open(h, p)
            if ok:
                v = sum(M.value(m, p) for m in ms)
                if v > best_val:
                    best, best_val = ms, v
        return best or []


class RandomBot(Bot):
    """Random: a legal turn chosen at random.

    It draws from either allowed pile at random (the discard only when it owes nothing for it), opens
    with probability one half when it can, then makes random lay-offs, and discards a random card.
    """

    name = "random"

    def draw(self, state, me) -> int:
        legal = state.legal_draws()
        if DRAW_DISCARD in legal and state.discard_obligation(me) is None and self.rng.random() < 0.5:
            return DRAW_DISCARD
        return DRAW_STOCK

    def play(self, state, me) -> Play:
        p = state.profile
        hand = state.hands[me].copy()
        forbid = forbidden_discard(state)
        ops = []
        table = list(state.table)
        if not state.opened[me] and self.rng.random() < 0.5:
            ok, ms = MS.can_open(hand, p)
            if ok and sum(len(m) for m in ms) < hand.sum():
                for m in ms:
                    for c in m.cards:
                        hand[c] -= 1
                    ops.append(NewMeld(m))
                    table.append(m)
        if (state.opened[me] or ops) and self.rng.random() < 0.5:
            ops += find_layoffs(state, hand, table, keep=1, protect=forbid, max_ops=int(self.rng.integers(1, 4)))
        cards = [c for c in range(N_KINDS) for _ in range(int(hand[c])) if not (c == forbid and hand[c] == 1)]
        disc = cards[int(self.rng.integers(len(cards)))] if cards else forbid
        return Play(ops, disc)


BOTS = {"greedy": GreedyBot, "random": RandomBot}


def make_bot(name: str, rng: np.random.Generator, params: dict | None = None) -> Bot:
    from .errors import UserError
    if name not in BOTS:
        raise UserError(f"unknown bot {name!r}; available: {', '.join(sorted(BOTS))}")
    return BOTS[name](rng, **(params or {}))
