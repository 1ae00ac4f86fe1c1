"""The bots' shared moves as they were written in Python before the bots were compiled (going out,
melding a taken discard, lay-offs, harvesting the table): kept here only as an independent reference
the tests compare the compiled decisions with (sim/bots/table_play.py, sim/bots/greedy_core.py)."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sim import meldsearch as MS
from sim import melds as M
from sim.cards import JOKER, N_KINDS, N_RANKS, suit_of
from sim.engine import DRAW_DISCARD, HIGH, LOW, LayOff, NewMeld, Split, SwapJoker, Take, try_ops
from sim.engine import turn as T
from sim.melds import GROUP, RUN


def loose_discard(hand, values, forbidden: int, prefer=None) -> int:
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


def leaves_a_discard(hand, melds, forbid: int, keep: int) -> bool:
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

    def array(self) -> np.ndarray:
        """As the engine's rows of run additions (sim.engine.turn.A_*)."""
        out = T.new_adds()
        rows = (T.A_LOW, self.low), (T.A_HIGH, self.high), (T.A_TOTAL, self.total), (T.A_FROM, self.split_from)
        for row, d in rows:
            for i, k in d.items():
                out[row, i] = k
        return out


def run_extension(m, end: int, p) -> int:
    """The natural card that extends run ``m`` at ``end`` (LOW or HIGH), or -1 if nothing can."""
    e = m.low - 1 if end == LOW else m.low + len(m.cards)
    if e < 0 or e > M.ACE_HIGH_EXT or (e == 0 and not p.ace_low):
        return -1
    if m.low == 0 and e == M.ACE_HIGH_EXT or (e == 0 and m.high == M.ACE_HIGH_EXT):
        return -1  # a run never turns the corner
    return m.suit * N_RANKS + M.ext_rank_to_rank(e)


def find_layoffs(state, hand: np.ndarray, table: list, keep: int = 1, forbid: int = -1, max_ops: int = 40,
                 adds: TurnAdds | None = None, splits: bool = False) -> list:
    """Greedy lay-offs of hand cards onto table melds, respecting the per-turn run limits; with
    ``splits``, also a hand card that duplicates an inner card of a run splits it in two.

    Mutates ``hand``, ``table`` (a working copy) and ``adds`` and returns the operations, leaving at
    least ``keep`` cards in hand, one of them not a copy of ``forbid`` (the card taken from the
    discard pile: laid off like any other, never thrown).  Natural cards first; then, where nothing
    but jokers would be left besides one natural card at most, the jokers, in table order wherever a
    valid meld results.
    """
    p = state.profile
    ops = []
    adds = adds if adds is not None else TurnAdds()
    size = int(hand.sum())

    def spendable(c):  # the last card that may be thrown stays
        return hand[c] > 0 and (c == forbid or size - (hand[forbid] if forbid >= 0 else 0) > 1)
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
                    if spendable(rep):
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
                        if not spendable(c):
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
                    if s not in suits and spendable(c) and len(m) < 4:
                        hand[c] -= 1
                        size -= 1
                        table[i] = m = M.Meld(GROUP, m.cards + (c,), m.reps + (c,), m.low)
                        suits.add(s)
                        ops.append(LayOff(i, c, HIGH))
                        changed = True
                        if size <= keep:
                            return ops
    if hand[JOKER] and size - hand[JOKER] <= 1:
        most = size - keep if forbid in (-1, JOKER) else min(size - keep, size - int(hand[forbid]) - 1)
        ops += _lay_off_jokers(p, hand, table, adds, most, max_ops - len(ops))
    return ops


def _lay_off_jokers(p, hand, table: list, adds: TurnAdds, most: int, max_ops: int) -> list:
    ops = []
    for i in range(len(table)):
        for end in (LOW, HIGH):
            while len(ops) < min(most, max_ops) and hand[JOKER]:
                m = table[i]
                if m.kind == RUN:
                    if not adds.allows(p, i, end):
                        break
                    e = m.low - 1 if end == LOW else m.high + 1
                    if not 0 <= e <= M.ACE_HIGH_EXT:
                        break
                    rep = m.suit * N_RANKS + M.ext_rank_to_rank(e)
                    new = (M.Meld(RUN, (JOKER,) + m.cards, (rep,) + m.reps, e) if end == LOW else
                           M.Meld(RUN, m.cards + (JOKER,), m.reps + (rep,), m.low))
                elif end == LOW or len(m) >= 4:
                    break
                elif m.low < 0:
                    new = M.Meld(GROUP, m.cards + (JOKER,), m.reps + (-1,), -1)
                else:
                    rep = next(s * N_RANKS + m.low for s in range(4) if s not in {suit_of(r) for r in m.reps})
                    new = M.Meld(GROUP, m.cards + (JOKER,), m.reps + (rep,), m.low)
                if M.check(new, p):
                    break
                hand[JOKER] -= 1
                table[i] = new
                ops.append(LayOff(i, JOKER, end))
                if m.kind == RUN:
                    adds.add(i, end)
    return ops


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
    after = try_ops(table, state.profile, hand, option.ops, adds.array() if adds is not None else None)
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


def joker_in_meld_with_two(ms) -> bool:
    return any(JOKER in m.cards and len(m) >= 3 for m in ms)
