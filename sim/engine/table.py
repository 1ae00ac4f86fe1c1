"""The Python face of the compiled turn (sim.engine.turn): a play's operations as rows, the table as
rows, and a refusal worded for the player (sim.engine).

No rule is written here: ``turn.apply_turn`` and ``turn.apply_ops`` decide, with ``core``'s meld
and table operations; this module turns their codes into the ``IllegalTurn`` the player reads,
naming the rule (a profile parameter where one applies).
"""
from __future__ import annotations

import numpy as np

from .. import melds as M
from ..cards import N_KINDS, card_str, cards_str
from . import core
from . import turn as T
from .actions import IllegalTurn, LOW, LayOff, NewMeld, Split, SwapJoker, Take

_LAST_ROWS: list = [(), None]  # the last table asked for (its melds, held) and its rows


def table_rows(table) -> np.ndarray:
    """The table's melds as rows (``core``'s row format); not to be written to.  A turn asks for the
    same table several times (the bot's decisions, the validation), so the last answer is kept while
    the melds are the same objects."""
    melds, rows = _LAST_ROWS
    if rows is not None and len(melds) == len(table) and all(a is b for a, b in zip(melds, table)):
        return rows
    rows = np.full((len(table), core.ROW_W), -1, np.int64)
    for i, m in enumerate(table):
        k = len(m.cards)
        rows[i, 0], rows[i, 1], rows[i, 2] = m.kind, m.low, k
        rows[i, core.CARDS:core.CARDS + k] = m.cards
        rows[i, core.REPS:core.REPS + k] = m.reps
    _LAST_ROWS[:] = tuple(table), rows
    return rows


def _card(c, what: str) -> int:
    if not isinstance(c, (int, np.integer)) or not -1 <= int(c) < N_KINDS:
        raise IllegalTurn("cards", f"{what} {c!r} is not a card")
    return int(c)


def encode(ops) -> tuple[np.ndarray, np.ndarray]:
    """A play's operations as rows (``turn.X_*``) and, for each new meld, its row."""
    rows = np.full((len(ops), T.X_W), -1, np.int64)
    mrows = np.full((len(ops), core.ROW_W), -1, np.int64)
    for o, op in enumerate(ops):
        r = rows[o]
        if isinstance(op, NewMeld):
            m = op.meld
            if len(m.reps) != len(m.cards):
                raise IllegalTurn("meld", "meld: one declared card per slot")
            if len(m.cards) > core.MAX_SLOTS:
                raise IllegalTurn("meld", f"meld: {m} has {len(m.cards)} cards; a run has at most {core.MAX_SLOTS}, "
                                  "a group at most 4")
            for c in m.cards:
                _card(c, "card")
            r[T.X_KIND] = T.X_NEW
            mrows[o] = M.row_of(m)
        elif isinstance(op, LayOff):
            r[:] = T.X_LAYOFF, op.target, _card(op.card, "card"), op.end, op.rep
        elif isinstance(op, Take):
            r[:] = T.X_TAKE, op.target, -1, op.position, -1
        elif isinstance(op, Split):
            r[:] = T.X_SPLIT, op.target, _card(op.card, "card"), op.position, -1
        elif isinstance(op, SwapJoker):
            r[:] = T.X_SWAP, op.target, _card(op.card, "card"), op.position, _card(op.extra, "extra card")
        else:
            raise IllegalTurn("play", f"unknown operation {op!r}")
    return rows, mrows


def decode(ops, mrows) -> list:
    """Operation rows as the engine's operations."""
    out = []
    for o, row in zip(ops.tolist(), mrows.tolist()):
        kind = o[T.X_KIND]
        if kind == T.X_NEW:
            out.append(NewMeld(M.meld_of(np.asarray(row))))
        elif kind == T.X_LAYOFF:
            out.append(LayOff(o[T.X_TARGET], o[T.X_CARD], o[T.X_POS], o[T.X_EXTRA]))
        elif kind == T.X_TAKE:
            out.append(Take(o[T.X_TARGET], o[T.X_POS]))
        elif kind == T.X_SPLIT:
            out.append(Split(o[T.X_TARGET], o[T.X_CARD], o[T.X_POS]))
        else:
            out.append(SwapJoker(o[T.X_TARGET], o[T.X_POS], o[T.X_CARD], o[T.X_EXTRA]))
    return out


# refusals worded the same whatever the play: (rule, message)
_PLAIN = {
    T.U_NOT_OPENED: ("not_opened", "a player who has not opened may not build on the table; lay the opening melds "
                     "first"),
    T.U_JOKER_AT_OPENING: ("joker_take_at_opening", "a player who has not opened may not take a joker before laying "
                           "a new meld"),
    T.U_FREED_JOKER: ("joker", "a freed joker must be laid in a new meld with at least two cards from the hand"),
    T.U_NO_DISCARD: ("discard", "every turn ends with a discard; melding every card without one is not a way out"),
    T.U_OPEN_NO_MELD: ("opening_min", "the first meld must include a new meld from hand"),
    T.U_FIRST_ROUND: ("go_out_first_round", "nobody may go out in the first round"),
}


class Turn:
    """One play checked by ``turn.apply_turn`` (or its table operations alone by ``turn.apply_ops``):
    the working arrays, and after the call the table, hand and counts it left."""

    def __init__(self, table: list, profile, hand: np.ndarray, ops, record: bool = False):
        self.table, self.p, self.ops = table, profile, list(ops)
        self.xops, self.mrows = encode(self.ops)
        self.tab = table_rows(table)
        self.nt = len(table)
        self.hand0 = hand
        cp = core.compiled(profile)
        self.rules, self.prm = cp.rules, cp.params
        w = T.scratch(np.full((T.MAXT, core.ROW_W), -1, np.int64), np.empty(N_KINDS, np.int8))
        if record:
            w = w._replace(trace=np.full((len(self.ops), 2, core.ROW_W), -1, np.int64))
        self.w = w
        self.wtab, self.hand, self.adds, self.flags, self.floating = w.wtab, w.hand, w.adds, w.flags, w.floating
        self.work, self.res, self.err, self.trace = w.work, w.res, w.err, w.trace

    def play(self, disc, drawn_card: int, drawn_from: int, was_open: bool, first_round: bool) -> int:
        if disc is not None:
            disc = _card(disc, "discard")
        self._disc, self._drawn = disc, drawn_card
        return T.apply_turn(self.tab, self.nt, self.hand0, self.xops, self.mrows, len(self.ops),
                            -1 if disc is None else disc, drawn_card, drawn_from, was_open, first_round, self.rules,
                            self.prm, self.w)

    def table_ops(self, adds=None) -> int:
        """The operations alone (a player who has opened), from the turn's run additions ``adds``."""
        self.wtab[:self.nt] = self.tab
        self.hand[:] = self.hand0
        if adds is not None:
            self.adds[:] = adds
        code, n = T.apply_ops(self.w, self.nt, self.xops, self.mrows, len(self.ops), True, self.rules, self.prm)
        self.res[T.T_ROWS] = n
        return code

    def table_after(self) -> list:
        """The table the play left: unchanged melds kept, changed and new ones rebuilt from rows."""
        if not self.ops:
            return list(self.table)
        n = int(self.res[T.T_ROWS])
        touched = self.flags[1]
        return [self.table[i] if i < self.nt and not touched[i] else M.meld_of(self.wtab[i]) for i in range(n)]

    def melds_left(self, o: int) -> tuple:
        """The (index, meld) pairs operation o left on the table (for transcripts)."""
        row = self.xops[o]
        if row[T.X_KIND] == T.X_NEW:
            return ()
        t = int(row[T.X_TARGET])
        first = (t, M.meld_of(self.trace[o, 0]))
        if row[T.X_KIND] == T.X_SPLIT:
            return first, (self._index_of_part(o), M.meld_of(self.trace[o, 1]))
        return (first,)

    def _index_of_part(self, o: int) -> int:
        """The row a split's part was cut off to: one more than the rows before it."""
        n = self.nt
        for k in range(o + 1):
            if self.xops[k, T.X_KIND] in (T.X_NEW, T.X_SPLIT):
                n += 1
        return n - 1

    # ------------------------------------------------------------------ the refusal, worded
    def refusal(self, code: int) -> IllegalTurn:
        if code in _PLAIN:
            return IllegalTurn(*_PLAIN[code])
        p, err = self.p, self.err
        o = int(err[T.E_OP])
        op = self.ops[o] if 0 <= o < len(self.ops) else None
        aux = int(err[T.E_AUX])
        sub = int(err[T.E_CODE])

        def target():
            return M.meld_of(self.wtab[op.target])

        if code == T.U_MELD:
            return IllegalTurn("meld", M.check_reason(sub, op.meld, p))
        if code == T.U_CARDS:
            return IllegalTurn("cards", f"{card_str(aux)} is neither in the hand nor taken from the table this turn")
        if code == T.U_NO_MELD:
            return IllegalTurn("table", f"there is no table meld {aux}")
        if code == T.U_FULL:
            return IllegalTurn("table", f"a table of more than {T.MAXT} melds")
        if code == T.U_LAYOFF:
            m, c = target(), op.card
            where = "low" if op.end == LOW else "high"
            return IllegalTurn("meld", {
                core.L_LOW_END: lambda: f"nothing below the low end of {m}",
                core.L_HIGH_END: lambda: f"nothing above the high end of {m}",
                core.L_NOT_EXTEND: lambda: f"{card_str(c)} does not extend {m} at the {where} end",
                core.L_ALL_JOKER: lambda: f"only a joker joins the all-joker group {m}",
                core.L_COMPLETE: lambda: f"{m} is already complete",
                core.L_GROUP_SUIT: lambda: f"{card_str(c)} cannot join {m}: a group has one card of each suit",
            }.get(sub, lambda: M.check_reason(sub, M.meld_of(self.work[T.W_BAD]), p))())
        if code == T.U_TAKE:
            m, i = target(), op.position
            return IllegalTurn("take", {
                core.T_NO_SLOT: lambda: f"{m} has no slot {i}",
                core.T_JOKER: lambda: "a joker is taken only by substituting the natural card it stands for",
                core.T_NOT_END: lambda: f"only the end cards of a run may be taken ({m})",
                core.T_GROUP_NOT_FOUR: lambda: f"a card is taken from a group only when it has four ({m})",
            }.get(sub, lambda: f"taking {card_str(aux)} would leave {M.meld_of(self.work[T.W_BAD])}, not a valid "
                               "meld")())
        if code == T.U_SPLIT:
            m, i = target(), op.position
            if sub == core.S_PART:
                return IllegalTurn("split", M.check_reason(aux, M.meld_of(self.work[T.W_BAD]), p))
            return IllegalTurn("split", {
                core.S_NOT_RUN: lambda: f"only runs are split ({m})",
                core.S_POSITION: lambda: f"splitting {m} at {i} would leave a part shorter than three",
            }.get(sub, lambda: f"{card_str(op.card)} must duplicate {card_str(aux)} to split {m} there")())
        if code == T.U_SWAP:
            m, i = target(), op.position
            rule = {core.J_NO_JOKER: "joker", core.J_RUN_CARD: "joker",
                    core.J_RUN_END: "joker_take_from_run_end"}.get(sub, "joker_from_group")
            rep = m.reps[i] if 0 <= i < len(m) else -1
            return IllegalTurn(rule, {
                core.J_NO_JOKER: lambda: f"slot {i} of {m} holds no joker",
                core.J_RUN_CARD: lambda: f"the joker in {m} stands for {card_str(rep) if rep >= 0 else '-'}; "
                                 f"{card_str(op.card)} cannot replace it",
                core.J_RUN_END: lambda: f"a joker at the end of a run cannot be taken ({m})",
                core.J_ALL_JOKER_GROUP: lambda: f"a joker in the all-joker group {m} is never released",
                core.J_FOUR_GROUP: lambda: f"a joker in a four-card group is never released ({m})",
                core.J_NOT_MISSING: lambda: f"{card_str(aux)} is not a natural of a missing suit of {m}",
                core.J_SAME_SUIT: lambda: "the added cards must be of different suits",
                core.J_BOTH: lambda: f"a joker leaves the three-card group {m} only when two missing suits are added "
                             "(both missing suits, or two of three with two jokers)",
                core.J_ONE: lambda: "one natural card of a missing suit takes a joker here",
                core.J_CLOSED_THIS_TURN: lambda: f"{m} was a four-card group with a joker (closed) earlier in this "
                                         "turn; taking a card from it does not release its joker in the same turn",
            }[sub]())
        if code == T.U_RUN_ADD_LIMIT:
            return IllegalTurn("run_add_limit", f"at most two cards in total may be added to {target()} in one turn")
        if code == T.U_RUN_END_LIMIT:
            return IllegalTurn("run_end_limit", f"at most {p.run_end_limit} cards may be added to the same end of "
                               f"{target()} in one turn; lay longer additions as a new run")
        if code == T.U_HARVEST:
            left = [c for c in range(N_KINDS) for _ in range(int(self.floating[c]))]
            return IllegalTurn("harvest", f"{cards_str(left)} taken from the table must be played again in the "
                               "same turn, never kept in hand")
        if code == T.U_TABLE:
            reason = M.check_reason(sub, M.meld_of(self.wtab[aux]), p)
            return IllegalTurn("table", f"at the end of the turn every table meld must be valid: {reason}")
        if code == T.U_DISCARD_NOT_HELD:
            return IllegalTurn("discard", f"discard {card_str(self._disc)} is not in the hand")
        if code == T.U_DISCARD_TAKEN:
            return IllegalTurn("discard", f"{card_str(self._disc)} was taken from the discard pile this turn; no copy "
                               "of it may be discarded in the same turn")
        if code == T.U_OPENING_MIN:
            layoff_value = int(self.res[T.T_LAYOFF_VALUE])
            extra = " (lay-offs counted)" if p.layoffs_count_for_opening and layoff_value else \
                (" (lay-offs do not count)" if layoff_value else "")
            return IllegalTurn("opening_min", f"opening melds are worth {aux} from the hand{extra}; at least "
                               f"{p.opening_min} are needed (cards taken from the table never count)")
        if code == T.U_PICKUP_OPEN:
            return IllegalTurn("discard_pickup", f"{card_str(self._drawn)} taken from the discard pile must be used "
                               "at once in the player's initial meld")
        if code == T.U_PICKUP_MELD:
            return IllegalTurn("discard_pickup", f"{card_str(self._drawn)} taken from the discard pile must be "
                               "melded at once")
        return IllegalTurn("play", f"unknown operation {op!r}")


def apply_ops(table: list, profile, hand: np.ndarray, ops, adds=None) -> tuple[list, np.ndarray, list]:
    """The table operations ``ops`` (no new melds; a player who has opened) applied in order under the
    engine's rules: (table, hand left, cards freed and not yet played again), or IllegalTurn.
    ``table`` and ``hand`` are not changed; ``adds``: the turn's run additions so far (``turn.A_*``
    rows, ``turn.new_adds``)."""
    t = Turn(table, profile, hand, ops)
    if any(isinstance(op, NewMeld) for op in t.ops):
        raise IllegalTurn("play", "not a table operation: a new meld")
    code = t.table_ops(adds)
    if code != T.OK:
        raise t.refusal(code)
    return t.table_after(), t.hand.copy(), [c for c in range(N_KINDS) for _ in range(int(t.floating[c]))]


def try_ops(table: list, profile, hand: np.ndarray, ops, adds=None) -> list | None:
    """The table after the table operations ``ops`` (lay-offs, takes, splits, joker swaps; no new
    melds) under the engine's own rules, or None if one breaks a rule.  ``table`` and ``hand`` are not
    changed.  ``adds``: the turn's additions to run ends so far (``turn.A_*`` rows) for the per-turn run
    limits.  For bots weighing table moves; ``apply_play`` still validates the turn."""
    try:
        return apply_ops(table, profile, hand, ops, adds)[0]
    except IllegalTurn:
        return None

