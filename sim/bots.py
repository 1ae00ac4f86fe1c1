"""Bots: one protocol, each a documented strategy, acting only through the engine's validated turns.

A bot answers four questions: ``draw(state, me)`` (stock or discard), ``play(state, me)`` (a whole
``Play``: table operations and a discard), ``buy_in(ledger, seat)`` and, in profiles with the East
Coast dealer swap, ``dealer_swap(state, me)``.  Bots read only what a player may see: their own hand,
the table, the discard pile, hand sizes and the public record of pickups and discards.
"""
from __future__ import annotations

import inspect
from typing import NamedTuple

import numpy as np

from . import meldsearch as MS
from . import melds as M
from .cards import JOKER, N_KINDS, N_RANKS, suit_of
from .engine import DRAW_DISCARD, DRAW_STOCK, HIGH, LOW, LayOff, NewMeld, Play, Split, SwapJoker, Take, try_ops
from .lookahead import outlook, unseen_counts
from .melds import GROUP, RUN
from .resources import config_file


def _loose_discard(hand, values, forbidden: int, prefer=None) -> int:
    """The highest-value card of ``prefer`` (or of the hand), never the forbidden card if avoidable."""
    pool = [c for c in (prefer or []) if hand[c] > 0]
    if not pool:
        pool = [c for c in range(N_KINDS) if hand[c] > 0]
    pool.sort(key=lambda c: (-(values[c] if c != JOKER else -1), -c))  # keep jokers: they meld anything
    for c in pool:
        if c != forbidden:
            return c
    return pool[0]


def go_out(hand, p, forbid: int, kalooki: bool = False):
    """(ok, discard, melds) to go out this turn, never discarding the forbidden card."""
    ok, d, ms = (MS.can_kalooki if kalooki else MS.can_go_out)(hand, p)
    if not ok or d != forbid:
        return ok, d, ms
    for c in range(N_KINDS - 1, -1, -1):
        if hand[c] <= 0 or c == forbid:
            continue
        h = hand.copy()
        h[c] -= 1
        res = MS.analyse_deadwood(h, p)
        if res.min_loose == 0 and res.deadwood and not res.deadwood_left:
            if kalooki and not p.kalooki_exempt_from_minimum and sum(M.value(m, p) for m in res.deadwood) < p.opening_min:
                continue
            return True, c, res.deadwood
    return False, None, []


def meld_taken_card(state, hand, taken: int):
    """A play (ops, discard) from ``hand`` (the taken card included) that puts ``taken`` on the table
    with a card left to discard, or None: for profiles where a taken discard must be melded at once."""
    p = state.profile
    for d in sorted({c for c in range(N_KINDS) if hand[c] > 0 and c != taken}, key=lambda c: -state.values[c]):
        h = hand.copy()
        h[d] -= 1
        res = MS.analyse_deadwood(h, p)
        ms = [m for m in res.deadwood if taken in m.cards]
        if ms:
            return [NewMeld(ms[0])], d
    for i, m in enumerate(state.table):
        h = hand.copy()
        ops = find_layoffs(state, h, [m], keep=1)
        if any(op.card == taken for op in ops):
            rest = [c for c in range(N_KINDS) if h[c] > 0 and c != taken]
            if rest:
                return [LayOff(i, op.card, op.end, op.rep) for op in ops], max(rest, key=lambda c: state.values[c])
    return None


def discardable(hand, forbid: int) -> list[int]:
    return [c for c in range(N_KINDS) if hand[c] > 0 and c != forbid]


def _leaves_a_discard(hand, melds, forbid: int, keep: int) -> bool:
    """Laying ``melds`` from ``hand`` keeps ``keep`` cards, one of them not a copy of ``forbid``."""
    rest = hand.copy()
    for m in melds:
        for c in m.cards:
            rest[c] -= 1
    return rest.sum() >= keep and bool(discardable(rest, forbid))


def lay_down(melds, hand, ops: list, table: list) -> None:
    """Lay ``melds`` from ``hand`` as new melds (mutating hand, ops and the working table)."""
    for m in melds:
        for c in m.cards:
            hand[c] -= 1
        ops.append(NewMeld(m))
        table.append(m)


def keep_cards(state, me) -> int:
    """Cards to keep in hand before the discard: two where nobody may go out in the first round."""
    return 2 if (state.first_round(me) and not state.profile.go_out_first_round) else 1


def repair(ops: list, hand, forbid: int, keep: int = 1, fixed: int = 0) -> list:
    """Undo trailing lay-downs, lay-offs and splits (never the first ``fixed`` operations: the opening)
    until a card other than the forbidden one is left to discard (and ``keep`` cards in all)."""
    ops = list(ops)
    while ((not discardable(hand, forbid) or hand.sum() < keep) and len(ops) > fixed
           and isinstance(ops[-1], (NewMeld, LayOff, Split))):
        op = ops.pop()
        for c in (op.meld.cards if isinstance(op, NewMeld) else (op.card,)):
            hand[c] += 1
    return ops


def forbidden_discard(state) -> int:
    """The card no copy of which may be discarded this turn: the one taken from the discard pile."""
    return state.drawn_card if state.drawn_from == DRAW_DISCARD else -1


class TurnAdds:
    """Cards added to each run end so far this turn, for the per-turn limits (docs/RULES.md section 3:
    ``run_end_limit`` per end, or two in all under ``run_add_limit = "two_total"``)."""

    def __init__(self):
        self.low: dict[int, int] = {}
        self.high: dict[int, int] = {}
        self.total: dict[int, int] = {}  # keyed by the run a split-off part came from
        self.split_from: dict[int, int] = {}

    def allows(self, p, i: int, end: int) -> bool:
        if p.run_add_limit == "two_total":
            return self.total.get(self.split_from.get(i, i), 0) < 2
        return (self.low if end == LOW else self.high).get(i, 0) < p.run_end_limit

    def add(self, i: int, end: int) -> None:
        d = self.low if end == LOW else self.high
        d[i] = d.get(i, 0) + 1
        root = self.split_from.get(i, i)
        self.total[root] = self.total.get(root, 0) + 1

    def split(self, i: int, part: int) -> None:
        """Run i was split and ``part`` cut off: it carries the run's high end (as the engine counts)."""
        self.high[part] = self.high.pop(i, 0)
        self.split_from[part] = self.split_from.get(i, i)

    def dicts(self) -> tuple:
        return self.low, self.high, self.total, self.split_from


def run_extension(m, end: int, p) -> int:
    """The natural card that extends run ``m`` at ``end`` (LOW or HIGH), or -1 if nothing can."""
    e = m.low - 1 if end == LOW else m.low + len(m.cards)
    if e < 0 or e > M.ACE_HIGH_EXT or (e == 0 and not p.ace_low):
        return -1
    if m.low == 0 and e == M.ACE_HIGH_EXT or (e == 0 and m.high == M.ACE_HIGH_EXT):
        return -1  # a run never turns the corner
    return m.suit * N_RANKS + M.ext_rank_to_rank(e)


def find_layoffs(state, hand: np.ndarray, table: list, keep: int = 1, protect: int = -1, max_ops: int = 40,
                 adds: TurnAdds | None = None, splits: bool = False) -> list:
    """Greedy lay-offs of hand cards onto table melds, respecting the per-turn run limits; with
    ``splits``, also a hand card that duplicates an inner card of a run splits it in two.

    Mutates ``hand``, ``table`` (a working copy) and ``adds`` and returns the operations, leaving at
    least ``keep`` cards in hand.  Only natural cards are laid off: jokers stay in hand.
    """
    p = state.profile
    ops = []
    adds = adds if adds is not None else TurnAdds()
    if protect >= 0 and hand[protect] >= 1:
        keep += 1  # the protected card cannot be the discard: keep another one
    size = int(hand.sum())
    changed = True
    while changed and len(ops) < max_ops:
        changed = False
        for i, m in enumerate(table):
            if size <= keep:
                return ops
            if m.kind == RUN:
                for end in (LOW, HIGH):
                    rep = run_extension(m, end, p)
                    if rep < 0 or not adds.allows(p, i, end):
                        continue
                    if hand[rep] > 0 and not (rep == protect and hand[rep] == 1):
                        c = rep
                    else:
                        continue
                    hand[c] -= 1
                    size -= 1
                    if end == LOW:
                        table[i] = m = M.Meld(RUN, (c,) + m.cards, (rep,) + m.reps, m.low - 1)
                    else:
                        table[i] = m = M.Meld(RUN, m.cards + (c,), m.reps + (rep,), m.low)
                    ops.append(LayOff(i, c, end))
                    adds.add(i, end)
                    changed = True
                    if size <= keep:
                        return ops
                if splits:
                    for pos in range(2, len(m.cards) - 2):
                        c = m.reps[pos]
                        if hand[c] <= 0 or (c == protect and hand[c] == 1):
                            continue
                        first = M.Meld(RUN, m.cards[:pos + 1], m.reps[:pos + 1], m.low)
                        second = M.Meld(RUN, (c,) + m.cards[pos + 1:], (c,) + m.reps[pos + 1:], m.low + pos)
                        if M.check(first, p) or M.check(second, p):
                            continue
                        hand[c] -= 1
                        size -= 1
                        table[i] = m = first
                        table.append(second)
                        ops.append(Split(i, c, pos + 1))
                        adds.split(i, len(table) - 1)
                        changed = True
                        if size <= keep:
                            return ops
                        break  # the run changed: its other inner cards are looked at in the next pass
            elif m.low >= 0 and len(m) < 4:
                suits = {suit_of(r) for r in m.reps}
                for s in range(4):
                    c = s * N_RANKS + m.low
                    if s not in suits and hand[c] > 0 and not (c == protect and hand[c] == 1) and len(m) < 4:
                        hand[c] -= 1
                        size -= 1
                        table[i] = m = M.Meld(GROUP, m.cards + (c,), m.reps + (c,), m.low)
                        suits.add(s)
                        ops.append(LayOff(i, c, HIGH))
                        changed = True
                        if size <= keep:
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
    that card completes a meld it can lay while keeping a card to discard, or lets it go out (and,
    before opening, only when it opens with it); it discards its
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
            if ok and any(top in m.cards for m in ms) and _leaves_a_discard(hand, ms, top, 1):
                return DRAW_DISCARD
            return DRAW_STOCK
        if obligation == "meld":
            return DRAW_DISCARD if (state.opened[me] and meld_taken_card(state, hand, top) is not None) else DRAW_STOCK
        after = MS.analyse_deadwood(hand, p)
        if top in after.deadwood_left:
            return DRAW_STOCK
        before = MS.analyse_deadwood(state.hands[me], p)
        if after.min_loose >= before.min_loose:
            return DRAW_STOCK
        # the meld it completes must be layable with a card (not a copy of the taken one) kept to discard,
        # or let it go out: else two players can pass a card back and forth for ever (issue 12, hole 7)
        if _leaves_a_discard(hand, after.deadwood, top, keep_cards(state, me)):
            return DRAW_DISCARD
        may_out = p.go_out_first_round or not state.first_round(me)
        return DRAW_DISCARD if may_out and go_out(hand, p, top, kalooki=not state.opened[me])[0] else DRAW_STOCK

    def play(self, state, me) -> Play:
        p = state.profile
        hand = state.hands[me].copy()
        forbid = forbidden_discard(state)
        values = state.values
        taken = state.drawn_card if state.drawn_from == DRAW_DISCARD else -1
        ops: list = []
        if not state.opened[me]:
            ok, disc, ms = go_out(hand, p, forbid, kalooki=True)
            if ok and (p.go_out_first_round or not state.first_round(me)):
                return Play([NewMeld(m) for m in ms], disc)
            ok, ms = MS.can_open(hand, p)
            if ok:
                used = sum(len(m) for m in ms)
                if used >= hand.sum():
                    ms = self._opening_with_discard(hand, p, forbid)
                # the opening must leave a card to discard (two where nobody may go out yet): drop its
                # last melds while what remains still reaches the minimum
                ms = list(ms or [])
                while ms:
                    rest = hand.copy()
                    for m in ms:
                        for c in m.cards:
                            rest[c] -= 1
                    if discardable(rest, forbid) and rest.sum() >= keep_cards(state, me):
                        break
                    ms.pop()
                if ms and sum(M.value(m, p) for m in ms) < p.opening_min:
                    ms = []
                if ms and (taken < 0 or any(taken in m.cards for m in ms) or state.discard_obligation(me) is None):
                    for m in ms:
                        for c in m.cards:
                            hand[c] -= 1
                        ops.append(NewMeld(m))
            if not ops:
                return Play([], _loose_discard(hand, values, forbid, MS.analyse_deadwood(hand, p).deadwood_left))
        else:
            ok, disc, ms = go_out(hand, p, forbid)
            if ok and (p.go_out_first_round or not state.first_round(me)):
                return Play([NewMeld(m) for m in ms], disc)
        n_opening = len(ops)  # the opening melds (none when already open): repair never takes them back
        table = list(state.table) + [op.meld for op in ops]
        # lay down every meld held (keeping a card to discard), then lay off
        res = MS.analyse_deadwood(hand, p)
        if res.deadwood and (hand.sum() - sum(len(m) for m in res.deadwood)) >= 1:
            lay_down(res.deadwood, hand, ops, table)
        elif res.deadwood:
            disc, _ = MS.best_discard(hand, p, forbid)
            h2 = hand.copy()
            h2[disc] -= 1
            lay_down(MS.analyse_deadwood(h2, p).deadwood, hand, ops, table)
        keep = keep_cards(state, me)
        ops += find_layoffs(state, hand, table, keep=keep, protect=forbid)
        ops = repair(ops, hand, forbid, keep, fixed=n_opening)
        if state.discard_obligation(me) == "meld" and taken >= 0 and not any(
                getattr(op, "card", None) == taken or (isinstance(op, NewMeld) and taken in op.meld.cards) for op in ops):
            fallback = meld_taken_card(state, state.hands[me].copy(), taken)
            if fallback is not None:
                return Play(*fallback)
        left = [c for c in range(N_KINDS) for _ in range(int(hand[c]))]
        return Play(ops, _loose_discard(hand, values, forbid, left))

    def _opening_with_discard(self, hand, p, forbid):
        """The most valuable opening that still leaves a card to discard."""
        best, best_val = None, -1
        for d in range(N_KINDS):
            if hand[d] <= 0 or d == forbid:
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
    with probability one half when it can (with the table's help where the profile allows it and the
    hand alone cannot), once open tries one table move at random (a removal, shift, substitution or
    joker swap whose freed card it can meld again), then makes random lay-offs and splits, and
    discards a random card; as dealer it swaps the upcard for a random card half the time.
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
            elif not ok:
                taken_needs_open = state.drawn_from == DRAW_DISCARD and state.discard_obligation(me) == "open"
                found = table_opening(state, me, hand, forbid, state.drawn_card if taken_needs_open else -1)
                if found is not None:  # the profile lets it open with the table's help
                    ops, rest = found
                    cards = [c for c in discardable(rest, forbid) for _ in range(int(rest[c]))]
                    return Play(ops, cards[int(self.rng.integers(len(cards)))])
        adds = TurnAdds()
        if state.opened[me] and not ops and self.rng.random() < 0.5:
            ops += self._random_harvest(state, me, hand, table, forbid, adds)
        if (state.opened[me] or ops) and self.rng.random() < 0.5:
            ops += find_layoffs(state, hand, table, keep=1, protect=forbid, max_ops=int(self.rng.integers(1, 4)),
                                adds=adds, splits=True)
        if not discardable(hand, forbid) or hand.sum() < keep_cards(state, me):
            ops, hand = [], state.hands[me].copy()  # nothing would be left to discard: meld nothing
        cards = [c for c in range(N_KINDS) for _ in range(int(hand[c])) if c != forbid]
        return Play(ops, cards[int(self.rng.integers(len(cards)))])

    def dealer_swap(self, state, me):
        """Half the time, take the upcard and discard a random other card of the hand."""
        if self.rng.random() < 0.5:
            return None
        hand = state.hands[me]
        cards = [c for c in range(N_KINDS) for _ in range(int(hand[c])) if c != state.discard_top]
        return cards[int(self.rng.integers(len(cards)))] if cards else None

    def _random_harvest(self, state, me, hand, table, forbid, adds) -> list:
        """Try one table move at random (a removal, a shift, a substitution, a joker swap) whose freed
        card can be melded again with cards from the hand; [] if the chosen one cannot."""
        options = list(harvest_options(state, hand, table, adds))
        if not options:
            return []
        return apply_harvest(state, hand, table, options[int(self.rng.integers(len(options)))], forbid, adds)


class Harvest(NamedTuple):
    """Table operations that free one card (or a joker) to be melded again from the hand."""
    ops: tuple  # the operations, in order
    target: int  # the table meld they change
    meld: object  # that meld afterwards (None: not worked out yet, see ``checked``)
    give: tuple  # hand cards they use
    got: int  # the card they free (JOKER: a released joker)
    end: int = -1  # the run end a hand card is added to (a shift), for the per-turn limits


def harvest_options(state, hand, table, adds: TurnAdds | None = None):
    """Every way to free a card from the table (docs/RULES.md section 3): remove an end card of a run of
    four or more or any natural of a four-card group; shift a run (add a hand card at one end, take
    the card at the other); substitute in a three-card group (add the missing suit, take another);
    swap a joker out of a run (interior only unless joker_take_from_run_end) or out of a group (by
    joker_from_group) with the natural card(s) it stands for.  A freed natural card is offered only
    if two cards left in the hand could meld with it.  The moves come unchecked (``meld`` None):
    ``checked`` applies the engine's rules to the one chosen."""
    p = state.profile
    for i, m in enumerate(table):
        n = len(m.cards)
        can_take = n - m.n_jokers >= 2  # what is left after a take must still hold a natural card
        if m.kind == RUN:
            if can_take and n >= 4:
                for pos in (0, n - 1):
                    if m.cards[pos] != JOKER and _could_meld(hand, m.cards[pos], ()):
                        yield Harvest((Take(i, pos),), i, None, (), m.cards[pos])
            for pos, c in enumerate(m.cards):
                if c == JOKER and hand[m.reps[pos]] > 0 and (0 < pos < n - 1 or p.joker_take_from_run_end):
                    yield Harvest((SwapJoker(i, pos, m.reps[pos]),), i, None, (m.reps[pos],), JOKER)
            for end in (LOW, HIGH):
                rep = run_extension(m, end, p)
                freed = m.cards[0] if end == HIGH else m.cards[-1]
                if rep < 0 or hand[rep] <= 0 or freed == JOKER or (adds is not None and not adds.allows(p, i, end)) \
                        or not _could_meld(hand, freed, (rep,)):
                    continue
                yield Harvest((LayOff(i, rep, end), Take(i, 0 if end == HIGH else n)), i, None, (rep,), freed, end)
        elif m.low >= 0 and n == 3:
            present = {suit_of(r) for r in m.reps}
            missing = [s * N_RANKS + m.low for s in range(4) if s not in present]
            for c in missing:
                if hand[c] > 0:
                    for pos in range(3):
                        if m.cards[pos] != JOKER and _could_meld(hand, m.cards[pos], (c,)):
                            yield Harvest((LayOff(i, c, HIGH), Take(i, pos)), i, None, (c,), m.cards[pos])
            if JOKER in m.cards:
                pos = m.cards.index(JOKER)
                natural = sorted({suit_of(c) for c in m.cards if c != JOKER})
                missing = [s * N_RANKS + m.low for s in range(4) if s not in natural]
                held = [c for c in missing if hand[c] > 0]
                if p.joker_from_group == "one_card":
                    gives = [(c,) for c in held]
                else:
                    gives = [(a, b) for k, a in enumerate(held) for b in held[k + 1:]]
                for give in gives:
                    yield Harvest((SwapJoker(i, pos, give[0], give[1] if len(give) > 1 else -1),), i, None, give, JOKER)
        elif can_take and m.low >= 0 and n == 4:
            for pos in range(4):
                if m.cards[pos] != JOKER and _could_meld(hand, m.cards[pos], ()):
                    yield Harvest((Take(i, pos),), i, None, (), m.cards[pos])


def _could_meld(hand, t: int, give: tuple) -> bool:
    """Could natural card t form a meld with two cards of the hand (less ``give``)?  True whenever
    it can (a necessary condition: jokers, other suits of its rank, or its suit within two ranks)."""
    have = int(hand[JOKER])
    r, s = t % N_RANKS, t // N_RANKS
    for x in range(4):
        c = x * N_RANKS + r
        if x != s and hand[c] > give.count(c):
            have += 1
    if have >= 2:
        return True
    have = int(hand[JOKER])
    for d in (-2, -1, 1, 2):  # ranks wrap at the ace, which sits next to both the two and the king
        c = s * N_RANKS + (r + d) % N_RANKS
        if hand[c] > give.count(c):
            have += 1
    return have >= 2


def checked(state, table, hand, option: Harvest, adds: TurnAdds | None = None) -> Harvest | None:
    """The option with its meld worked out, if the engine's rules allow its operations now."""
    if option.meld is not None:
        return option
    after = try_ops(table, state.profile, hand, option.ops, adds.dicts() if adds is not None else None)
    return None if after is None else option._replace(meld=after[option.target])


def apply_harvest(state, hand, table, option: Harvest, forbid, adds: TurnAdds | None = None) -> list:
    """Make the harvest and lay the freed card again in a new meld from the hand (mutating hand, table
    and adds), or return [] and change nothing if that is not possible with a card left to discard."""
    p = state.profile
    option = checked(state, table, hand, option, adds)
    if option is None:
        return []
    h = hand.copy()
    for c in option.give:
        h[c] -= 1
    h[option.got] += 1
    res = MS.analyse_deadwood(h, p)
    ms = [m for m in res.deadwood if option.got in m.cards and len(m) >= 3]
    if not ms:
        return []
    rest = h.copy()
    for x in ms[0].cards:
        rest[x] -= 1
    if not discardable(rest, forbid) or rest.sum() < keep_cards(state, state.current):
        return []
    table[option.target] = option.meld
    table.append(ms[0])
    hand[:] = rest
    if adds is not None and option.end >= 0:
        adds.add(option.target, option.end)
    return list(option.ops) + [NewMeld(ms[0])]


def table_opening(state, me, hand, forbid: int, must_meld: int = -1):
    """An opening that uses the table where the profile allows it: a joker taken from a table meld by
    substitution and laid in a new meld with hand cards (``joker_take_at_opening``), and hand cards
    built onto table melds counted towards the minimum with at least one new meld
    (``layoffs_count_for_opening``).  ``must_meld``: a card that must go into a new meld (a discard
    taken to open).  Returns (operations, hand left) of the valid opening leaving the least deadwood
    after the best discard, or None.  The engine's ``apply_play`` validates the turn as always."""
    p = state.profile
    if not (p.joker_take_at_opening or p.layoffs_count_for_opening):
        return None
    keep = keep_cards(state, me)
    starts = [((), hand, list(state.table))]
    if p.joker_take_at_opening:
        for o in harvest_options(state, hand, state.table):
            o = checked(state, state.table, hand, o) if o.got == JOKER else None
            if o is None:
                continue
            h = hand.copy()
            for c in o.give:
                h[c] -= 1
            h[JOKER] += 1
            t = list(state.table)
            t[o.target] = o.meld
            starts.append((o.ops, h, t))
    best = None
    for pre_ops, h0, t0 in starts:
        for layoffs_first in ((False, True) if p.layoffs_count_for_opening else (False,)):
            found = _opening_variant(state, p, h0, t0, pre_ops, layoffs_first, keep, forbid, must_meld)
            if found is not None and (best is None or found[0] < best[0]):
                best = found
    return None if best is None else best[1:]


def _opening_variant(state, p, h0, t0, pre_ops, layoffs_first: bool, keep: int, forbid: int, must_meld: int):
    """One way to open from hand h0 on table t0 after ``pre_ops`` (a joker swap or nothing): the most
    valuable melds of the hand, and lay-offs onto the table (before or after choosing the melds) where
    they count.  (deadwood after the best discard, ops, hand left) if it reaches the minimum, else None."""
    h = h0.copy()
    table = list(t0)
    layoff_ops: list = []

    def lay_off_rest():
        before = [M.value(m, p) for m in table]
        ops = find_layoffs(state, h, table, keep=keep, protect=must_meld if must_meld >= 0 else forbid)
        layoff_ops.extend(ops)
        return sum(M.value(m, p) - v for m, v in zip(table, before))

    layoff_value = lay_off_rest() if layoffs_first else 0
    ms = sorted(MS.analyse(h, p).opening, key=lambda m: M.value(m, p), reverse=True)
    needed = {c for c in (must_meld, JOKER if pre_ops else -1) if c >= 0}
    rest = h.copy()
    for m in ms:
        for c in m.cards:
            rest[c] -= 1
    while ms and (not discardable(rest, forbid) or rest.sum() < keep):
        drop = next((m for m in reversed(ms) if not needed & set(m.cards)), None)
        if drop is None:
            return None
        ms.remove(drop)
        for c in drop.cards:
            rest[c] += 1
    if not ms or any(not any(c in m.cards for m in ms) for c in needed):
        return None
    h[:] = rest
    if not layoffs_first and p.layoffs_count_for_opening:
        layoff_value = lay_off_rest()
    value = sum(M.value(m, p) for m in ms) + (layoff_value if p.layoffs_count_for_opening else 0)
    if value < p.opening_min or not discardable(h, forbid) or h.sum() < keep:
        return None
    deadwood = MS.best_discard(h, p, forbid)[1]
    return deadwood, list(pre_ops) + [NewMeld(m) for m in ms] + layoff_ops, h


BOTS = {"greedy": GreedyBot, "random": RandomBot}


BOT_CONFIG = config_file("bots.toml")  # configs/bots.toml, shipped as package data (sim.resources)


def tunables(name: str) -> dict:
    """A bot's tunable parameters and their defaults (from its class and its parents)."""
    out = {}
    for cls in BOTS[name].__mro__[::-1]:
        if "__init__" in cls.__dict__:
            for pname, prm in inspect.signature(cls.__init__).parameters.items():
                if prm.default is not inspect.Parameter.empty and pname != "rng":
                    out[pname] = prm.default
    return out


def check_params(name: str, params: dict, where: str = "bot_params") -> dict:
    from .errors import UserError
    allowed = tunables(name)
    for k, v in params.items():
        if k not in allowed:
            raise UserError(f"{where}: bot {name!r} has no parameter {k!r}; allowed: {', '.join(allowed) or 'none'}")
        if isinstance(v, bool) or not isinstance(v, type(allowed[k])):
            raise UserError(f"{where}: {name}.{k} = {v!r} must be {type(allowed[k]).__name__}")
    return params


def make_bot(name: str, rng: np.random.Generator, params: dict | None = None) -> Bot:
    """A bot by name; ``params`` override the tunables of ``configs/bots.toml``."""
    from .errors import UserError
    if name not in BOTS:
        raise UserError(f"unknown bot {name!r}; available: {', '.join(sorted(BOTS))}")
    merged = dict(_file_defaults().get(name, {}))
    merged.update(params or {})
    return BOTS[name](rng, **check_params(name, merged))


_DEFAULTS: dict | None = None


def _file_defaults() -> dict:
    global _DEFAULTS
    if _DEFAULTS is None:
        import tomllib
        from .errors import UserError
        try:
            data = tomllib.loads(BOT_CONFIG.read_text()) if BOT_CONFIG.is_file() else {}
        except tomllib.TOMLDecodeError as e:
            raise UserError(f"{BOT_CONFIG}: malformed TOML: {e}") from None
        for name, params in data.items():
            if name not in BOTS:
                raise UserError(f"{BOT_CONFIG}: unknown bot {name!r}; available: {', '.join(sorted(BOTS))}")
            check_params(name, params, str(BOT_CONFIG))
        _DEFAULTS = data
    return _DEFAULTS


def kalooki_within_reach(state, me, loose: int, deadwood: int, max_missing: int, min_draws: int, danger_cards: int,
                         max_risk: int) -> bool:
    """Is holding back the opening for a Kalooki worth it?  (meld search + the table's state)

    Holding is worth it while few cards are missing (loose cards beyond the one discard), the stock
    still offers enough draws, no opponent who has opened is close to going out, and the penalty
    held in hand is not too high.
    """
    if state.opened[me]:
        return False
    missing = max(loose - 1, 0)
    draws_left = len(state.stock) // max(state.n, 1)
    danger = any(state.opened[s] and state.hand_size(s) <= danger_cards for s in range(state.n) if s != me)
    return missing <= max_missing and draws_left >= min_draws + missing and not danger and deadwood <= max_risk


def kalooki_pays_more(p) -> bool:
    """Does going out by Kalooki pay more than an ordinary call under the profile's scoring?  Doubled
    penalties (``kalooki_double_penalty``), a Kalooki stake above the call stake in elimination games,
    doubled payments in single-hand games (``pay_double_on_kalooki``)."""
    if p.kalooki_double_penalty:
        return True
    if p.game_end == "elimination":
        return p.stake_kalooki > p.stake_call
    return p.game_end == "single_hand" and p.pay_double_on_kalooki


class PatientBot(GreedyBot):
    """Patient: plays like greedy, but holds its melds while a Kalooki is within reach.

    Before opening, it judges from the meld search how many cards its hand is missing from melding
    completely, how many draws the stock still offers, whether an opponent who has opened is close to
    going out, and how much penalty it risks holding; while the Kalooki looks reachable it does not
    open (it only draws and discards its worst loose card) and aims to go out in one go.  It holds
    back only where a Kalooki pays more than a call (``kalooki_pays_more``).  Where the profile allows
    it, it opens with the table's help when its hand alone cannot (``table_opening``: lay-offs that
    count, a joker taken from the table), and as dealer it swaps the upcard when that lowers its
    deadwood.  Otherwise it plays exactly like greedy.
    """

    name = "patient"

    def __init__(self, rng=None, max_missing=2, min_draws=3, danger_cards=5, max_risk=60, **params):
        super().__init__(rng, **params)
        self.max_missing, self.min_draws, self.danger_cards, self.max_risk = max_missing, min_draws, danger_cards, max_risk

    def _waiting(self, state, me, hand) -> bool:
        if not kalooki_pays_more(state.profile):
            return False  # a Kalooki is then only a way out: holding back gains nothing
        _, deadwood, loose = MS.fast_search(hand, state.profile)
        return kalooki_within_reach(state, me, loose, deadwood, self.max_missing, self.min_draws, self.danger_cards,
                                    self.max_risk)

    def draw(self, state, me) -> int:
        if not state.opened[me] and self._waiting(state, me, state.hands[me]):
            top = state.discard_top
            if top >= 0 and DRAW_DISCARD in state.legal_draws() and state.discard_obligation(me) is None:
                h = state.hands[me].copy()
                h[top] += 1
                if MS.fast_search(h, state.profile)[2] < MS.fast_search(state.hands[me], state.profile)[2] + 1:
                    return DRAW_DISCARD
            return DRAW_STOCK
        return super().draw(state, me)

    def play(self, state, me) -> Play:
        p = state.profile
        hand = state.hands[me]
        if not state.opened[me]:
            forbid = forbidden_discard(state)
            ok, disc, ms = go_out(hand, p, forbid, kalooki=True)
            if ok and (p.go_out_first_round or not state.first_round(me)):
                return Play([NewMeld(m) for m in ms], disc)
            taken_needs_open = state.drawn_from == DRAW_DISCARD and state.discard_obligation(me) == "open"
            if not taken_needs_open and self._waiting(state, me, hand):
                res = MS.analyse_deadwood(hand, p)
                return Play([], _loose_discard(hand.copy(), state.values, forbid, res.deadwood_left))
            if not MS.can_open(hand, p)[0]:
                found = table_opening(state, me, hand, forbid, state.drawn_card if taken_needs_open else -1)
                if found is not None:
                    ops, rest = found
                    return Play(ops, _loose_discard(rest, state.values, forbid,
                                                    MS.analyse_deadwood(rest, p).deadwood_left))
        return super().play(state, me)

    def dealer_swap(self, state, me):
        """Take the upcard and discard another card when that lowers the hand's least deadwood."""
        up = state.discard_top
        hand = state.hands[me]
        if up < 0:
            return None
        h = hand.copy()
        h[up] += 1
        card, after = MS.best_discard(h, state.profile, up)
        return card if card != up and after < MS.fast_search(hand, state.profile)[1] else None


class ExpertBot(PatientBot):
    """Expert: the whole repertoire of table play, careful draws and discards, and money sense.

    Each turn it searches table rearrangements within a budget (``max_harvests`` moves): it considers
    every way the rules give to free a card from the table (removing an end card of a run of four or
    more or a card of a four-card group; shifting a run by adding a card at one end and taking the
    other end; substituting in a three-card group by adding the missing suit and taking another;
    swapping a joker out of a run or a group with the natural card or cards it stands for) and makes
    the one that lets it go out, or else lowers its deadwood most with the freed card melded again
    from its hand; then it lays down its melds, lays off, and splits runs with cards that duplicate an
    inner card.  It takes the discard when that lowers its deadwood or lets it open; it chooses the
    discard that keeps its own deadwood low and avoids feeding the next player (it remembers what that
    player picked up and discarded, and which cards extend the table for them); it holds back its opening for a
    Kalooki like `patient` while that is within reach and opponents are far from going out (where a
    Kalooki pays more); it opens like `patient`, with the table's help where the profile allows it,
    and takes a discard it can open with that way; it keeps jokers; and it buys back in only when the
    pool is worth the stake.
    """

    name = "expert"

    def __init__(self, rng=None, max_harvests=3, feed_weight=4, draw_gain=2, **params):
        super().__init__(rng, **params)
        self.max_harvests, self.feed_weight, self.draw_gain = max_harvests, feed_weight, draw_gain

    # ---------------------------------------------------------------- draw
    def draw(self, state, me) -> int:
        p = state.profile
        top = state.discard_top
        if top < 0 or DRAW_DISCARD not in state.legal_draws():
            return DRAW_STOCK
        obligation = state.discard_obligation(me)
        h = state.hands[me].copy()
        h[top] += 1
        if obligation == "open":
            if self._waiting(state, me, state.hands[me]):
                return DRAW_STOCK
            ok, ms = MS.can_open(h, p)
            if ok and any(top in m.cards for m in ms) and _leaves_a_discard(h, ms, top, 1):
                return DRAW_DISCARD
            if not ok and table_opening(state, me, h, top, top) is not None:
                return DRAW_DISCARD  # it opens with the table's help (a joker taken, lay-offs counted)
            return DRAW_STOCK
        if not state.opened[me] and self._waiting(state, me, state.hands[me]):
            return super().draw(state, me)
        if obligation == "meld":
            return DRAW_DISCARD if meld_taken_card(state, h, top) is not None else DRAW_STOCK
        return DRAW_DISCARD if self._take_discard(state, me, h, top) else DRAW_STOCK

    def _take_discard(self, state, me, h, top) -> bool:
        """Free to take the discard (``h`` is the hand with it): does it lower deadwood enough?"""
        before = MS.fast_search(state.hands[me], state.profile)[1]
        _, after = MS.best_discard(h, state.profile, top)
        return after <= before - self.draw_gain

    # ---------------------------------------------------------------- play
    def play(self, state, me) -> Play:
        p = state.profile
        if not state.opened[me]:
            return self._discard_smartly(state, me, super().play(state, me))
        hand = state.hands[me].copy()
        forbid = forbidden_discard(state)
        ok, disc, ms = go_out(hand, p, forbid)
        if ok and (p.go_out_first_round or not state.first_round(me)):
            return Play([NewMeld(m) for m in ms], disc)
        table = list(state.table)
        ops: list = []
        adds = TurnAdds()
        for _ in range(self.max_harvests):
            best = self._best_harvest(state, me, hand, table, forbid, adds)
            if best is None:
                break
            h_ops, hand, table, out = best
            ops += h_ops
            if out is not None:  # the harvest lets it go out
                return Play(ops + [NewMeld(m) for m in out[1]], out[0])
        res = MS.analyse_deadwood(hand, p)
        if res.deadwood and hand.sum() - sum(len(m) for m in res.deadwood) >= 1:
            lay_down(res.deadwood, hand, ops, table)
        keep = keep_cards(state, me)
        ops += find_layoffs(state, hand, table, keep=keep, protect=forbid, adds=adds, splits=True)
        ops = repair(ops, hand, forbid, keep)
        taken = state.drawn_card if state.drawn_from == DRAW_DISCARD else -1
        if state.discard_obligation(me) == "meld" and not any(
                getattr(op, "card", None) == taken or (isinstance(op, NewMeld) and taken in op.meld.cards) for op in ops):
            fallback = meld_taken_card(state, state.hands[me].copy(), taken)
            if fallback is not None:
                return Play(*fallback)
        return Play(ops, self._choose_discard(state, me, hand, forbid, table))

    def _best_harvest(self, state, me, hand, table, forbid, adds):
        """The table move (see ``harvest_options``) that lets it go out, else the one that lowers its
        deadwood most with the freed card melded again: (ops, hand, table, None or (discard, melds))."""
        p = state.profile
        base = MS.fast_search(hand, p)[1]
        best = None
        options = list(harvest_options(state, hand, table, adds))
        if not options:
            return None
        n = len(options)
        hands = np.repeat(hand[None, :], 2 * n, axis=0)  # each move's hand with and without the freed card
        for k, o in enumerate(options):
            for c in o.give:
                hands[k, c] -= 1
                hands[n + k, c] -= 1
            hands[k, o.got] += 1
        answers = MS.fast_batch(hands, p).tolist()  # one compiled search for every candidate
        for k, o in enumerate(options):
            h = hands[k]
            got = o.got
            _, dead, loose = answers[k]
            if loose > 1 and (dead >= base or (best is not None and best[0][0] < 0)):
                continue  # cannot go out, and no better than what the hand has (or a way out is known)
            ok, disc, ms = MS.can_go_out(h, p) if loose <= 1 else (False, None, [])
            if ok and disc != forbid and got != disc:  # the freed card must be melded, not discarded
                if got == JOKER and not _joker_in_meld_with_two(ms):
                    continue
                score = (-1, 0)
            else:
                if dead >= base or dead >= answers[n + k][1] + state.values[got]:
                    continue  # no gain, or the freed card would not be melded in a least-deadwood partition
                res = MS.analyse_deadwood(h, p)
                if got in res.deadwood_left or not res.deadwood:
                    continue
                if got == JOKER and not _joker_in_meld_with_two(res.deadwood):
                    continue
                rest = h.copy()
                for mm in res.deadwood:
                    for x in mm.cards:
                        rest[x] -= 1
                if not discardable(rest, forbid):
                    continue
                gain = base - res.min_deadwood
                if gain <= 0:
                    continue
                score = (0, -gain)
                ms = res.deadwood
            if best is None or score < best[0]:
                o = checked(state, table, hand, o, adds)
                if o is None:
                    continue  # the rules do not allow this move now
                best = (score, o, h.copy(), ms, ok and score[0] == -1, disc)
        if best is None:
            return None
        score, o, h, ms, going_out, disc = best
        if going_out:
            return list(o.ops), h, table, (disc, ms)
        hand, table = hand.copy(), list(table)
        ops = apply_harvest(state, hand, table, o, forbid, adds)
        return (ops, hand, table, None) if ops else None

    # ---------------------------------------------------------------- discards
    def _feed_risks(self, state, me, table) -> list[int]:
        """Risk, for every card, of feeding the next player with it: it matches what that player took
        from the discard pile (same rank, or same suit within two ranks), less once for each time that
        player discarded that very card, or it extends the table for them."""
        nxt = (me + 1) % state.n
        risk = [0] * N_KINDS
        risk[JOKER] = 10
        for q in state.pickups[nxt]:
            if q == JOKER:
                continue
            qr, qs = q % N_RANKS, q // N_RANKS
            for s in range(4):
                risk[s * N_RANKS + qr] += 1
            for r in range(max(qr - 2, 0), min(qr + 2, N_RANKS - 1) + 1):
                risk[qs * N_RANKS + r] += 1
        for q in state.discards_by[nxt]:
            if q != JOKER and risk[q] > 0:
                risk[q] -= 1  # a card they threw away is one they are less likely to want back
        if state.opened[nxt]:
            for m in table:
                if m.kind == RUN:
                    for e in (m.low - 1, m.low + len(m)):
                        if 0 <= e <= M.ACE_HIGH_EXT:
                            risk[m.suit * N_RANKS + M.ext_rank_to_rank(e)] += 2
                elif m.kind == GROUP and m.low >= 0 and len(m) < 4:
                    present = {x // N_RANKS for x in m.reps}
                    for s in range(4):
                        if s not in present:
                            risk[s * N_RANKS + m.low] += 2
        return risk

    @staticmethod
    def _discard_candidates(hand, p, forbid) -> list[int]:
        """The loose cards of a least-deadwood partition (every card if none is loose), ascending,
        never the forbidden card."""
        loose = sorted(set(MS.analyse_deadwood(hand, p).deadwood_left)) or [c for c in range(N_KINDS) if hand[c] > 0]
        return [c for c in loose if c != forbid]

    def _choose_discard(self, state, me, hand, forbid, table) -> int:
        p = state.profile
        loose = self._discard_candidates(hand, p, forbid)
        if not loose:
            return _loose_discard(hand, state.values, forbid)
        extra = self.feed_weight * np.array(self._feed_risks(state, me, table), dtype=np.int64)
        extra[JOKER] += 50
        return MS.least_scored_discard(hand, p, loose, extra)  # one compiled search for every candidate

    def _discard_smartly(self, state, me, play: Play) -> Play:
        """Replace an unopened player's discard with the expert's choice (same cards melded)."""
        hand = state.hands[me].copy()
        table = list(state.table)
        for op in play.ops:
            if isinstance(op, NewMeld):
                for c in op.meld.cards:
                    hand[c] -= 1
                table.append(op.meld)
            elif isinstance(op, LayOff):
                hand[op.card] -= 1
            elif isinstance(op, SwapJoker):  # a joker taken to open: it goes into a new meld below
                hand[op.card] -= 1
                if op.extra >= 0:
                    hand[op.extra] -= 1
                hand[JOKER] += 1
        if hand.sum() == 1 or (play.ops and hand.sum() == 0):
            return play
        if hand.sum() <= 1:
            return play
        return Play(play.ops, self._choose_discard(state, me, hand, forbidden_discard(state), table))

    # ---------------------------------------------------------------- money
    def buy_in(self, ledger, seat) -> bool:
        p = ledger.p
        still_in = ledger.players_in()
        pool_after = ledger.pool + p.stake_buy_in
        # a re-entrant starts at the highest total: give it a little less than an equal share
        p_win = 0.75 / (len(still_in) + 1)
        return pool_after * p_win > p.stake_buy_in


class LookaheadBot(ExpertBot):
    """Lookahead: the expert, with its draws and discards judged one draw ahead over the unseen cards.

    The unseen cards are the pack less its own hand, the table and the discard pile (the stock and
    the other hands).  For each loose card it could discard, it goes through every card the next draw
    could bring, weighted by the unseen copies, and scores the discard by the expected least
    deadwood after that draw (and the best discard), less ``out_bonus`` times the chance that the draw
    lets it meld every card but one, plus the expert's feeding risk.  It takes a discard it is free
    to take when the least deadwood with it is at least ``take_margin`` below what a stock draw is
    expected to leave.  Everything else (table play, opening, buy-ins) is the expert's.  This is the
    exact expectation of a one-draw Monte-Carlo look-ahead, so it uses no random numbers.
    """

    name = "lookahead"

    def __init__(self, rng=None, out_bonus=20, take_margin=2, **params):
        super().__init__(rng, **params)
        self.out_bonus, self.take_margin = out_bonus, take_margin

    def _take_discard(self, state, me, h, top) -> bool:
        _, after = MS.best_discard(h, state.profile, top)
        stock = outlook(state.hands[me], state.profile, [-1], unseen_counts(state, me))[0, 0]
        return after <= stock - self.take_margin

    def _choose_discard(self, state, me, hand, forbid, table) -> int:
        loose = self._discard_candidates(hand, state.profile, forbid)
        if len(loose) <= 1:
            return loose[0] if loose else _loose_discard(hand, state.values, forbid)
        ahead = outlook(hand, state.profile, loose, unseen_counts(state, me))
        risk = self._feed_risks(state, me, table)
        scores = [(ahead[i, 0] - self.out_bonus * ahead[i, 1] + self.feed_weight * risk[c]
                   + (50 if c == JOKER else 0), -c) for i, c in enumerate(loose)]
        return loose[scores.index(min(scores))]


def _joker_in_meld_with_two(ms) -> bool:
    return any(JOKER in m.cards and len(m) >= 3 for m in ms)


BOTS.update({"patient": PatientBot, "expert": ExpertBot, "lookahead": LookaheadBot})
