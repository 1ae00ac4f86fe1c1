"""Table operations: a play's operations applied in order to a working copy of the table, with what
they imply checked (sim.engine)."""
from __future__ import annotations

import numpy as np

from .. import meldsearch as MS
from .. import melds as M
from ..cards import JOKER, card_str, cards_str
from ..melds import RUN, Meld
from . import core
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

    def _rules(self):
        return core.rules_for(self.p), MS.params_of(self.p)

    def lay_off(self, op: LayOff, hand) -> tuple[int, bool]:
        """Lay a card off; (points it adds, whether it came from the hand)."""
        m = self._meld(op.target)
        c = op.card
        rules, prm = self._rules()
        out = np.empty(core.ROW_W, np.int64)
        code, added, _ = core.lay_off_row(core.row_of(m), c, op.end, op.rep, rules, prm, out)
        if code != core.OK:
            where = "low" if op.end == LOW else "high"
            raise IllegalTurn("meld", {
                core.L_LOW_END: lambda: f"nothing below the low end of {m}",
                core.L_HIGH_END: lambda: f"nothing above the high end of {m}",
                core.L_NOT_EXTEND: lambda: f"{card_str(c)} does not extend {m} at the {where} end",
                core.L_ALL_JOKER: lambda: f"only a joker joins the all-joker group {m}",
                core.L_COMPLETE: lambda: f"{m} is already complete",
                core.L_GROUP_SUIT: lambda: f"{card_str(c)} cannot join {m}: a group has one card of each suit",
            }.get(code, lambda: M.check_reason(code, core.meld_of(out), self.p))())
        new = core.meld_of(out)
        harvested = self.spend((c,), hand)
        self.table[op.target] = new
        self.touched.add(op.target)
        self._count_add(op.target, op.end, m)
        return int(added), not harvested

    def take(self, op: Take):
        m = self._meld(op.target)
        i = op.position
        out = np.empty(core.ROW_W, np.int64)
        code, c = core.take_row(core.row_of(m), i, out)
        if code != core.OK:
            raise IllegalTurn("take", {
                core.T_NO_SLOT: lambda: f"{m} has no slot {i}",
                core.T_JOKER: lambda: "a joker is taken only by substituting the natural card it stands for",
                core.T_NOT_END: lambda: f"only the end cards of a run may be taken ({m})",
                core.T_GROUP_NOT_FOUR: lambda: f"a card is taken from a group only when it has four ({m})",
            }.get(code, lambda: f"taking {card_str(int(c))} would leave {core.meld_of(out)}, not a valid meld")())
        self.table[op.target] = core.meld_of(out)
        self.touched.add(op.target)
        self.floating.append(int(c))

    def split(self, op: Split, hand) -> tuple[int, bool]:
        """Insert a card, cutting the run in two; (points of the inserted card, whether it came from the
        hand).  The split-off part carries the run's high end: what was added there this turn still
        counts against run_end_limit (and both parts share run_add_limit's two cards)."""
        m = self._meld(op.target)
        i = op.position
        rules, prm = self._rules()
        first, second = np.empty(core.ROW_W, np.int64), np.empty(core.ROW_W, np.int64)
        code, rep, part_code = core.split_row(core.row_of(m), op.card, i, rules, first, second)
        if code == core.S_PART:
            bad = core.meld_of(first) if core.check_row(first, rules) != core.OK else core.meld_of(second)
            raise IllegalTurn("split", M.check_reason(part_code, bad, self.p))
        if code != core.OK:
            raise IllegalTurn("split", {
                core.S_NOT_RUN: lambda: f"only runs are split ({m})",
                core.S_POSITION: lambda: f"splitting {m} at {i} would leave a part shorter than three",
            }.get(code, lambda: f"{card_str(op.card)} must duplicate {card_str(int(rep))} to split {m} there")())
        harvested = self.spend((op.card,), hand)
        self.table[op.target] = core.meld_of(first)
        self.touched.add(op.target)
        self.table.append(core.meld_of(second))
        k = len(self.table) - 1
        if op.target in self.new_indices:
            self.new_indices.add(k)
        else:
            self.added_high[k] = self.added_high.pop(op.target, 0)
            self.split_from[k] = self.split_from.get(op.target, op.target)
        return int(prm[core.P_EXTV + m.low + i - 1]), not harvested

    def swap_joker(self, op: SwapJoker, hand):
        m = self._meld(op.target)
        i = op.position
        rules, _ = self._rules()
        out = np.empty(core.ROW_W, np.int64)
        code, bad = core.swap_joker_row(core.row_of(m), i, op.card, op.extra, rules, out)
        if code != core.OK:
            rule = {core.J_NO_JOKER: "joker", core.J_RUN_CARD: "joker",
                    core.J_RUN_END: "joker_take_from_run_end"}.get(code, "joker_from_group")
            rep = m.reps[i] if 0 <= i < len(m) else -1
            raise IllegalTurn(rule, {
                core.J_NO_JOKER: lambda: f"slot {i} of {m} holds no joker",
                core.J_RUN_CARD: lambda: f"the joker in {m} stands for {card_str(rep) if rep >= 0 else '-'}; "
                                 f"{card_str(op.card)} cannot replace it",
                core.J_RUN_END: lambda: f"a joker at the end of a run cannot be taken ({m})",
                core.J_ALL_JOKER_GROUP: lambda: f"a joker in the all-joker group {m} is never released",
                core.J_FOUR_GROUP: lambda: f"a joker in a four-card group is never released ({m})",
                core.J_NOT_MISSING: lambda: f"{card_str(int(bad))} is not a natural of a missing suit of {m}",
                core.J_SAME_SUIT: lambda: "the added cards must be of different suits",
                core.J_BOTH: lambda: f"a joker leaves the three-card group {m} only when two missing suits are added "
                             "(both missing suits, or two of three with two jokers)",
                core.J_ONE: lambda: "one natural card of a missing suit takes a joker here",
            }[code]())
        spent = (op.card,) if m.kind == RUN else ((op.card, op.extra) if op.extra >= 0 else (op.card,))
        self.spend(spent, hand)
        self.table[op.target] = core.meld_of(out)
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
