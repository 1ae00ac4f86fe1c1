"""Table operations: a play's operations applied in order to a working copy of the table, with what
they imply checked (sim.engine)."""
from __future__ import annotations

import numpy as np

from .. import melds as M
from ..cards import JOKER, N_RANKS, card_str, cards_str, rank_of, suit_of
from ..melds import GROUP, RUN, Meld
from .actions import IllegalTurn, LOW, LayOff, NewMeld, Split, SwapJoker, Take


def melds_left(op, table) -> tuple:
    """The (index, meld) pairs a table operation has just left on ``table`` (for transcripts)."""
    if isinstance(op, NewMeld):
        return ()
    if isinstance(op, Split):
        return (op.target, table[op.target]), (len(table) - 1, table[-1])
    return ((op.target, table[op.target]),)


def try_ops(table: list, profile, hand: np.ndarray, ops, adds=None) -> list | None:
    """The table after the table operations ``ops`` (lay-offs, takes, splits, joker swaps; no new
    melds) under the engine's own rules, or None if one breaks a rule.  ``table`` and ``hand`` are not
    changed.  ``adds`` (low, high, total dicts of cards added to run ends earlier in the turn, and
    optionally the dict naming the run each split-off part came from) carries the per-turn run limits.  For bots weighing table moves; ``apply_play`` still validates the turn."""
    work = TableWork(list(table), profile)
    if adds is not None:
        work.added_low, work.added_high, work.added_total = dict(adds[0]), dict(adds[1]), dict(adds[2])
        if len(adds) > 3:
            work.split_from = dict(adds[3])
    h = hand.copy()
    try:
        for op in ops:
            if isinstance(op, LayOff):
                work.lay_off(op, h)
            elif isinstance(op, Take):
                work.take(op)
            elif isinstance(op, Split):
                work.split(op, h)
            elif isinstance(op, SwapJoker):
                work.swap_joker(op, h)
            else:
                raise IllegalTurn("play", f"not a table operation: {op!r}")
    except IllegalTurn:
        return None
    return work.table


def count_on(table, c) -> int:
    return sum(m.cards.count(c) for m in table)


def harvested_value(m: Meld, harvested: list, p) -> int:
    """Points of the slots of new meld ``m`` filled by cards taken from the table this turn: they never
    count towards the opening.  A joker freed by a swap counts where joker_take_at_opening lets it be
    used in the opening; otherwise it is taken to fill the most valuable joker slot (the hand is
    credited with the least)."""
    out = 0
    joker_slots = sorted((M.slot_value(m, k, p) for k, c in enumerate(m.cards) if c == JOKER), reverse=True)
    for c in harvested:
        if c == JOKER:
            if not p.joker_take_at_opening and joker_slots:
                out += joker_slots.pop(0)
        else:
            out += M.slot_value(m, m.cards.index(c), p)
    return out


class TableWork:
    """A working copy of the table during one play: applies operations and tracks what they imply."""

    def __init__(self, table: list, profile):
        self.table = table
        self.p = profile
        self.floating: list[int] = []  # harvested cards not yet played again
        self.freed_jokers = 0
        self.freed_jokers_pending = 0
        self.added_low: dict[int, int] = {}
        self.added_high: dict[int, int] = {}
        self.added_total: dict[int, int] = {}  # keyed by the run a split-off part came from (split_from)
        self.split_from: dict[int, int] = {}  # split-off part -> the table run it was cut from
        self.new_indices: set[int] = set()  # melds laid from the hand this turn (no per-turn limits)
        self.touched: set[int] = set()  # table melds changed this turn (new ones are checked when laid)

    def spend(self, cards, hand) -> list:
        """Take cards from the harvested pool first, then the hand; return the harvested ones used."""
        harvested = []
        floating = list(self.floating)
        h = hand.copy()
        for c in cards:
            if c in floating:
                floating.remove(c)
                harvested.append(c)
            elif h[c] > 0:
                h[c] -= 1
            else:
                raise IllegalTurn("cards", f"{card_str(c)} is neither in the hand nor taken from the table this turn")
        self.floating = floating
        hand[:] = h
        return harvested

    def place_freed_jokers(self, m: Meld, from_hand: int):
        njk = m.cards.count(JOKER)
        if njk and from_hand >= 2:
            used = min(njk, self.freed_jokers_pending)
            self.freed_jokers_pending -= used

    def _meld(self, idx) -> Meld:
        if not 0 <= idx < len(self.table):
            raise IllegalTurn("table", f"there is no table meld {idx}")
        return self.table[idx]

    def _count_add(self, idx, end, m):
        lim = self.p.run_end_limit
        if idx in self.new_indices:
            return
        if m.kind == RUN:
            d = self.added_low if end == LOW else self.added_high
            d[idx] = d.get(idx, 0) + 1
            if self.p.run_add_limit == "two_total":
                root = self.split_from.get(idx, idx)  # both parts of a split run share its two cards
                self.added_total[root] = self.added_total.get(root, 0) + 1
                if self.added_total[root] > 2:
                    raise IllegalTurn("run_add_limit", f"at most two cards in total may be added to {m} in one turn")
            elif d[idx] > lim:
                raise IllegalTurn("run_end_limit", f"at most {lim} cards may be added to the same end of {m} in "
                                  "one turn; lay longer additions as a new run")

    def lay_off(self, op: LayOff, hand) -> tuple[int, bool]:
        """Lay a card off; (points it adds, whether it came from the hand)."""
        m = self._meld(op.target)
        c = op.card
        if m.kind == RUN:
            if op.end == LOW:
                e = m.low - 1
                if e < 0:
                    raise IllegalTurn("meld", f"nothing below the low end of {m}")
            else:
                e = m.low + len(m)
                if e > M.ACE_HIGH_EXT:
                    raise IllegalTurn("meld", f"nothing above the high end of {m}")
            rep = m.suit * N_RANKS + M.ext_rank_to_rank(e)
            if c != JOKER and c != rep:
                raise IllegalTurn("meld", f"{card_str(c)} does not extend {m} at the {'low' if op.end == LOW else 'high'} end")
            if op.end == LOW:
                new = Meld(RUN, (c,) + m.cards, (rep,) + m.reps, e)
            else:
                new = Meld(RUN, m.cards + (c,), m.reps + (rep,), m.low)
            added = M.ext_value(e, self.p)
        else:
            if m.low < 0:
                if c != JOKER:
                    raise IllegalTurn("meld", f"only a joker joins the all-joker group {m}")
                new = Meld(GROUP, m.cards + (c,), m.reps + (-1,), -1)
                added = self.p.joker_meld_value
            else:
                suits = {suit_of(r) for r in m.reps}
                if c == JOKER:
                    rep = op.rep if op.rep >= 0 else next((s * N_RANKS + m.low for s in range(4) if s not in suits), -1)
                    if rep < 0:
                        raise IllegalTurn("meld", f"{m} is already complete")
                else:
                    rep = c
                if rank_of(rep) != m.low or suit_of(rep) in suits:
                    raise IllegalTurn("meld", f"{card_str(c)} cannot join {m}: a group has one card of each suit")
                new = Meld(GROUP, m.cards + (c,), m.reps + (rep,), m.low)
                added = M.value(new, self.p) - M.value(m, self.p)
        reason = M.check(new, self.p)
        if reason:
            raise IllegalTurn("meld", reason)
        harvested = self.spend((c,), hand)
        self.table[op.target] = new
        self.touched.add(op.target)
        self._count_add(op.target, op.end, m)
        return added, not harvested

    def take(self, op: Take):
        m = self._meld(op.target)
        i = op.position
        if not 0 <= i < len(m):
            raise IllegalTurn("take", f"{m} has no slot {i}")
        c = m.cards[i]
        if c == JOKER:
            raise IllegalTurn("take", "a joker is taken only by substituting the natural card it stands for")
        if m.kind == RUN:
            if i not in (0, len(m) - 1):
                raise IllegalTurn("take", f"only the end cards of a run may be taken ({m})")
            if i == 0:
                new = Meld(RUN, m.cards[1:], m.reps[1:], m.low + 1)
            else:
                new = Meld(RUN, m.cards[:-1], m.reps[:-1], m.low)
        else:
            new = Meld(GROUP, m.cards[:i] + m.cards[i + 1:], m.reps[:i] + m.reps[i + 1:], m.low)
            if len(m) != 4:
                raise IllegalTurn("take", f"a card is taken from a group only when it has four ({m})")
        if len(new) < 3 or not any(x != JOKER for x in new.cards):
            raise IllegalTurn("take", f"taking {card_str(c)} would leave {new}, not a valid meld")
        self.table[op.target] = new
        self.touched.add(op.target)
        self.floating.append(c)

    def split(self, op: Split, hand) -> tuple[int, bool]:
        """Insert a card, cutting the run in two; (points of the inserted card, whether it came from the
        hand).  The split-off part carries the run's high end: what was added there this turn still
        counts against run_end_limit (and both parts share run_add_limit's two cards)."""
        m = self._meld(op.target)
        if m.kind != RUN:
            raise IllegalTurn("split", f"only runs are split ({m})")
        i = op.position
        if not 3 <= i <= len(m) - 2:
            raise IllegalTurn("split", f"splitting {m} at {i} would leave a part shorter than three")
        rep = m.reps[i - 1]
        if op.card != JOKER and op.card != rep:
            raise IllegalTurn("split", f"{card_str(op.card)} must duplicate {card_str(rep)} to split {m} there")
        first = Meld(RUN, m.cards[:i], m.reps[:i], m.low)
        second = Meld(RUN, (op.card,) + m.cards[i:], (rep,) + m.reps[i:], m.low + i - 1)
        for part in (first, second):
            r = M.check(part, self.p)
            if r:
                raise IllegalTurn("split", r)
        harvested = self.spend((op.card,), hand)
        self.table[op.target] = first
        self.touched.add(op.target)
        self.table.append(second)
        k = len(self.table) - 1
        if op.target in self.new_indices:
            self.new_indices.add(k)
        else:
            self.added_high[k] = self.added_high.pop(op.target, 0)
            self.split_from[k] = self.split_from.get(op.target, op.target)
        return M.ext_value(m.low + i - 1, self.p), not harvested

    def swap_joker(self, op: SwapJoker, hand):
        p = self.p
        m = self._meld(op.target)
        i = op.position
        if not 0 <= i < len(m) or m.cards[i] != JOKER:
            raise IllegalTurn("joker", f"slot {i} of {m} holds no joker")
        rep = m.reps[i]
        if m.kind == RUN:
            if op.card != rep:
                raise IllegalTurn("joker", f"the joker in {m} stands for {card_str(rep)}; "
                                  f"{card_str(op.card)} cannot replace it")
            if i in (0, len(m) - 1) and not p.joker_take_from_run_end:
                raise IllegalTurn("joker_take_from_run_end", f"a joker at the end of a run cannot be taken ({m})")
            new = Meld(RUN, m.cards[:i] + (op.card,) + m.cards[i + 1:], m.reps, m.low)
            spent = (op.card,)
        else:
            if m.low < 0:
                raise IllegalTurn("joker_from_group", f"a joker in the all-joker group {m} is never released")
            if len(m) == 4:
                raise IllegalTurn("joker_from_group", f"a joker in a four-card group is never released ({m})")
            naturals = [c for c in m.cards if c != JOKER]
            present = {suit_of(c) for c in naturals}
            missing = [s for s in range(4) if s not in present]
            added = [op.card] + ([op.extra] if op.extra >= 0 else [])
            for c in added:
                if c == JOKER or rank_of(c) != m.low or suit_of(c) not in missing:
                    raise IllegalTurn("joker_from_group", f"{card_str(c)} is not a natural of a missing suit of {m}")
            if len({suit_of(c) for c in added}) != len(added):
                raise IllegalTurn("joker_from_group", "the added cards must be of different suits")
            if p.joker_from_group == "both_missing_suits":
                if len(added) != 2:
                    raise IllegalTurn("joker_from_group", f"a joker leaves the three-card group {m} only when two "
                                      "missing suits are added (both missing suits, or two of three with two jokers)")
                left_suits = [s for s in missing if s not in {suit_of(c) for c in added}]
                cards_new = naturals + added
                reps_new = list(cards_new)
                if m.n_jokers == 2:
                    cards_new.append(JOKER)
                    reps_new.append(left_suits[0] * N_RANKS + m.low)
            else:  # one_card: a single natural of a missing suit takes the joker
                if len(added) != 1:
                    raise IllegalTurn("joker_from_group", "one natural card of a missing suit takes a joker here")
                others = [k for k, c in enumerate(m.cards) if c == JOKER and k != i]
                cards_new = naturals + added + [JOKER] * len(others)
                left = [s for s in missing if s != suit_of(op.card)]
                reps_new = naturals + added + [left[k] * N_RANKS + m.low for k in range(len(others))]
            new = Meld(GROUP, tuple(cards_new), tuple(reps_new), m.low)
            spent = tuple(added)
        self.spend(spent, hand)
        self.table[op.target] = new
        self.touched.add(op.target)
        self.floating.append(JOKER)
        self.freed_jokers += 1
        self.freed_jokers_pending += 1

    def finish(self):
        if self.floating:
            raise IllegalTurn("harvest", f"{cards_str(self.floating)} taken from the table must be played again in "
                              "the same turn, never kept in hand")
        if self.freed_jokers_pending:
            raise IllegalTurn("joker", "a freed joker must be laid in a new meld with at least two cards from the hand")
        for i in sorted(self.touched):
            r = M.check(self.table[i], self.p)
            if r:
                raise IllegalTurn("table", f"at the end of the turn every table meld must be valid: {r}")
