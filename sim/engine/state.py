"""The state of one hand and its validated turns: the deal, the draw, the play, the end (sim.engine)."""
from __future__ import annotations

import numpy as np

from .. import melds as M
from ..cards import JOKER, N_KINDS, card_str, from_counts, full_deck, hand_values
from ..melds import Meld
from . import core
from . import hand as HD
from . import turn as T
from .actions import (
    DRAW_DISCARD, DRAW_STOCK, HandResult, IllegalTurn, PHASE_DRAW, PHASE_OVER, PHASE_PLAY, Play, SEAT_KEYS)
from .table import Turn, table_rows


_PACKS: dict[int, np.ndarray] = {}
_VALUES: dict[tuple[int, int], np.ndarray] = {}
_SLOTS: dict[tuple, np.ndarray] = {}


def _pack(jokers: int) -> np.ndarray:
    """A fresh copy of the unshuffled pack (``cards.full_deck``)."""
    pack = _PACKS.get(jokers)
    if pack is None:
        pack = _PACKS[jokers] = full_deck(jokers)
    return pack.copy()


def _values(ace_value: int, joker_penalty: int) -> np.ndarray:
    """``cards.hand_values``, made once per scoring and shared by every hand: read-only."""
    v = _VALUES.get((ace_value, joker_penalty))
    if v is None:
        v = _VALUES[(ace_value, joker_penalty)] = hand_values(ace_value, joker_penalty)
        v.flags.writeable = False
    return v


def _deal_slots(pattern, size: int, n: int, dealer: int, cutter: int) -> np.ndarray:
    """Where each dealt card goes, in the order the pack is dealt from its top: the receiving hand's
    position times N_KINDS (so that adding the card id gives a cell of the n x N_KINDS count matrix).
    Packets of ``pattern`` (one card at a time without one) go round from the dealer's left; a
    hand that holds a cut joker (``cutter``) is one card short of the pattern and the others are
    finished one card at a time."""
    key = (tuple(pattern or ()), size, n, dealer, cutter)
    slots = _SLOTS.get(key)
    if slots is None:
        sizes = [size] * n
        if cutter >= 0:
            sizes[cutter] -= 1
        order = [(dealer + 1 + i) % n for i in range(n)]
        seq: list[int] = []
        for k in (list(pattern) if pattern else [1] * size):
            for seat in order:
                take = min(k, sizes[seat])
                seq += [seat] * take
                sizes[seat] -= take
        for seat in order:  # a cut-joker hand is one card short of the pattern; finish one at a time
            seq += [seat] * sizes[seat]
            sizes[seat] = 0
        slots = np.array(seq, dtype=np.int64) * N_KINDS
        slots.flags.writeable = False
        if len(_SLOTS) >= 1024:
            _SLOTS.clear()
        _SLOTS[key] = slots
    return slots


class HandState:
    """The state of one hand.  Read by bots (their own hand, the table, the discard pile, counts)."""

    def __init__(self, profile, n_players: int, dealer: int, rng: np.random.Generator, record: bool = False,
                 draw_seats: list[int] | None = None):
        """``draw_seats``: the game seat of each hand position, for a seat-keyed stock; None: draw from the top."""
        self.profile = profile
        self.draw_seats = list(draw_seats) if draw_seats is not None else None
        self.n = n_players
        self.dealer = dealer
        self.rng = rng
        self.record = record
        self.log: list[tuple] = []
        self.values = _values(profile.ace_value, profile.joker_penalty)
        self.hands = np.zeros((n_players, N_KINDS), dtype=np.int8)
        self.table: list[Meld] = []
        self.opened = [False] * n_players
        self.turns_taken = [0] * n_players
        self.stats = [dict(melds_laid=0, cards_laid_off=0, jokers_taken=0, open_round=None, open_value=None,
                           open_layoff_value=None, open_with_discard=False) for _ in range(n_players)]
        self.pickups: list[list[int]] = [[] for _ in range(n_players)]  # public: cards each took from the discard
        self.discards_by: list[list[int]] = [[] for _ in range(n_players)]
        self.reshuffles = 0
        self.turn_no = 0
        self.result: HandResult | None = None
        self.drawn_card = -1
        self.drawn_from = -1
        self.held_before_draw = 0
        self.phase = PHASE_DRAW
        self._deal()

    # ------------------------------------------------------------------ dealing
    def _deal(self):
        p = self.profile
        deck = _pack(p.jokers)
        self.rng.shuffle(deck)
        # every random draw of the hand is made here, so a compiled hand loop can replay it exactly
        self.reshuffle_keys = self.rng.random(p.deck_size)
        # seat-keyed stock: keys per (stock generation, game seat, card), as many whoever is still in, so
        # every hand of a game draws the same number of randoms and hand k is dealt alike in every rotation
        self.draw_keys = self.rng.random((2, SEAT_KEYS, p.deck_size)) if self.draw_seats is not None else None
        end = len(deck)  # deck[0] is the top card
        cutter = -1
        if p.cut_card_joker and deck[-1] == JOKER:
            cutter = (self.dealer - 1) % self.n  # the player right of the dealer cuts
            self.hands[cutter, JOKER] += 1
            end -= 1
            self._log("cut_joker", cutter)
        slots = _deal_slots(p.deal_pattern, p.hand_size_for(self.n), self.n, self.dealer, cutter)
        pos = len(slots)
        self.hands += np.bincount(slots + deck[:pos], minlength=self.n * N_KINDS).reshape(
            self.n, N_KINDS).astype(np.int8)
        self.discard = [int(deck[pos])]
        self.stock = deck[end - 1:pos:-1].tolist()  # stock[-1] is the top
        # seat-keyed: each stock card's place in the shuffled pack, which its keys are looked up by
        self.stock_ids = list(range(end - 1, pos, -1)) if self.draw_keys is not None else None
        self.current = (self.dealer + 1) % self.n
        if self.record:  # the dealt hands as card lists only where someone reads the log
            self._log("deal", self.dealer, [from_counts(h) for h in self.hands], self.discard[-1])

    @classmethod
    def scripted(cls, profile, hands, stock="", discard="", dealer=None, current=0, opened=None, table=(),
                 rng=None, record=False):
        """A hand set up card by card (tests, examples): ``hands`` as card strings per player.

        ``stock`` is listed top card first; ``discard`` bottom first (its last card is the top).
        """
        from ..cards import parse_cards
        self = cls.__new__(cls)
        n = len(hands)
        self.profile, self.n = profile, n
        self.dealer = (current - 1) % n if dealer is None else dealer
        self.rng = rng if rng is not None else np.random.default_rng(0)
        self.record, self.log = record, []
        self.values = _values(profile.ace_value, profile.joker_penalty)
        self.hands = np.zeros((n, N_KINDS), dtype=np.int8)
        for i, h in enumerate(hands):
            for c in parse_cards(h):
                self.hands[i, c] += 1
        self.table = list(table)
        self.opened = list(opened) if opened is not None else [False] * n
        self.turns_taken = [1 if o else 0 for o in self.opened]
        self.stats = [dict(melds_laid=0, cards_laid_off=0, jokers_taken=0, open_round=None, open_value=None,
                           open_layoff_value=None, open_with_discard=False) for _ in range(n)]
        self.pickups = [[] for _ in range(n)]
        self.discards_by = [[] for _ in range(n)]
        self.reshuffles = 0
        self.turn_no = 0
        self.result = None
        self.drawn_card = self.drawn_from = -1
        self.held_before_draw = 0
        self.phase = PHASE_DRAW
        self.stock = parse_cards(stock)[::-1]
        self.discard = parse_cards(discard)
        self.current = current
        self.reshuffle_keys = self.rng.random(profile.deck_size)
        self.draw_seats = self.draw_keys = self.stock_ids = None
        return self

    def dealer_swap(self, card: int | None):
        """East Coast: right after the deal the dealer may take the upcard and discard another."""
        if card is None:
            return
        if not self.profile.dealer_upcard_swap:
            raise IllegalTurn("dealer_upcard_swap", "this profile has no dealer swap of the upcard")
        d = self.dealer
        up = self.discard[-1]
        h = self.hands[d].copy()
        h[up] += 1
        if h[card] <= 0:
            raise IllegalTurn("dealer_upcard_swap", f"dealer does not hold {card_str(card)}")
        if card == up:
            return
        h[card] -= 1
        self.hands[d] = h
        self.discard[-1] = card
        self._log("dealer_swap", d, up, card)

    def _log(self, *event):
        if self.record:
            self.log.append(event)

    # ------------------------------------------------------------------ views
    def hand(self, seat: int) -> np.ndarray:
        return self.hands[seat]

    def hand_size(self, seat: int) -> int:
        return int(self.hands[seat].sum())

    @property
    def discard_top(self) -> int:
        return self.discard[-1] if self.discard else -1

    def first_round(self, seat: int) -> bool:
        return self.turns_taken[seat] == 0

    def table_counts(self) -> np.ndarray:
        c = np.zeros(N_KINDS, dtype=np.int16)
        for m in self.table:
            for x in m.cards:
                c[x] += 1
        return c

    def total_cards(self) -> int:
        return int(self.hands.sum()) + len(self.stock) + len(self.discard) + sum(len(m) for m in self.table)

    # ------------------------------------------------------------------ draw
    def start_turn(self):
        """Handle an exhausted stock before the player chooses (reshuffle once, or void)."""
        if self.phase != PHASE_DRAW or self.stock:
            return
        pile = np.array(self.discard, dtype=np.int64)
        stock = np.empty(len(pile), np.int64)
        ids = np.empty(len(pile), np.int64)
        ns = HD.renew_stock(core.compiled(self.profile).rules, self.reshuffle_keys, self.reshuffles, pile, len(pile), stock,
                            ids)
        if ns >= 0:
            self.discard = [int(pile[0])]
            self.stock = stock[ns - 1::-1].tolist() if ns else []  # the list's last card is the top
            if self.draw_keys is not None:
                self.stock_ids = ids[ns - 1::-1].tolist() if ns else []
            self.reshuffles += 1
            self._log("reshuffle", len(self.stock), self.discard[-1])
        else:
            self._finish(HandResult(void=True))
            self._log("void", "stock exhausted")

    def legal_draws(self) -> list[int]:
        return [src for src in (DRAW_STOCK, DRAW_DISCARD) if self._draw_problem(src) is None]

    def discard_obligation(self, seat: int) -> str | None:
        """What a player who takes the discard now must do with it: None, 'open' or 'meld'."""
        ob = T.obligation(bool(self.opened[seat]), self.first_round(seat), core.compiled(self.profile).rules)
        return (None, "open", "meld")[ob]

    def _draw_problem(self, source: int) -> IllegalTurn | None:
        """Why drawing from ``source`` is illegal now (``sim.engine.turn.draw_code``), or None."""
        if self.phase != PHASE_DRAW:
            return IllegalTurn("phase", f"not the draw phase ({self.phase})")
        hand = self.hands[self.current]
        top = self.discard[-1] if self.discard else -1
        code = T.draw_code(source, len(self.stock), len(self.discard), bool(self.opened[self.current]),
                           int(hand[top]) if top >= 0 else 0, int(hand.sum()), core.compiled(self.profile).rules)
        if code == T.OK:
            return None
        return {
            T.D_STOCK_EMPTY: lambda: IllegalTurn("stock_exhausted", "the stock is empty"),
            T.D_UNKNOWN: lambda: IllegalTurn("draw", f"unknown draw source {source}"),
            T.D_PILE_EMPTY: lambda: IllegalTurn("draw", "the discard pile is empty"),
            T.D_BEFORE_OPENING: lambda: IllegalTurn("discard_pickup_before_opening",
                                                    "a player who has not opened may not take the discard"),
            T.D_ONLY_COPIES: lambda: IllegalTurn("discard", f"every card held is {card_str(top)}: taking another "
                                                 "leaves nothing that may be discarded"),
        }[code]()

    def _check_draw(self, source: int):
        problem = self._draw_problem(source)
        if problem is not None:
            raise problem

    def _pop_stock(self, seat: int) -> int:
        """The stock card a draw takes: the top one, or on a seat-keyed stock the drawer's highest key."""
        if self.draw_keys is None:
            return self.stock.pop()
        stock = np.array(self.stock[::-1], dtype=np.int64)  # top first, as the compiled loop holds it
        ids = np.array(self.stock_ids[::-1], dtype=np.int64)
        c = int(HD.draw_stock(self.draw_keys[min(self.reshuffles, 1), self.draw_seats[seat]], stock, ids, 0,
                              len(stock)))
        self.stock = stock[:0:-1].tolist()
        self.stock_ids = ids[:0:-1].tolist()
        return c

    def apply_draw(self, source: int) -> int:
        self._check_draw(source)
        seat = self.current
        if source == DRAW_STOCK:
            c = self._pop_stock(seat)
        else:
            c = self.discard.pop()
            self.pickups[seat].append(c)
        self.held_before_draw = int(self.hands[seat, c])
        self.hands[seat, c] += 1
        self.drawn_card, self.drawn_from = c, source
        self.phase = PHASE_PLAY
        self._log("draw", seat, "stock" if source == DRAW_STOCK else "discard", c)
        return c

    # ------------------------------------------------------------------ play
    def apply_play(self, play: Play):
        """Validate the whole play (``sim.engine.turn.apply_turn``, every rule of the turn compiled and
        written once); commit only if every rule holds, else raise the rule it broke, state unchanged."""
        if self.phase != PHASE_PLAY:
            raise IllegalTurn("phase", f"not the play phase ({self.phase})")
        seat = self.current
        p = self.profile
        was_open = self.opened[seat]
        turn = Turn(self.table, p, self.hands[seat], play.ops, record=self.record)
        code = turn.play(play.discard, self.drawn_card, self.drawn_from, was_open, self.first_round(seat))
        if code != T.OK:
            raise turn.refusal(code)
        res = turn.res.tolist()
        # commit
        self.hands[seat] = turn.hand
        self.table = turn.table_after()
        st = self.stats[seat]
        if res[T.T_OPENING]:
            self.opened[seat] = True
            st["open_round"] = self.turns_taken[seat] + 1
            st["open_value"] = res[T.T_NEW_VALUE]
            st["open_layoff_value"] = res[T.T_LAYOFF_VALUE]
            st["open_with_discard"] = bool(res[T.T_WITH_TAKEN])
        st["melds_laid"] += res[T.T_MELDS]
        st["cards_laid_off"] += res[T.T_LAYOFFS]
        st["jokers_taken"] += res[T.T_JOKERS]
        if self.record:
            for o, op in enumerate(play.ops):
                self._log("op", seat, op, turn.melds_left(o))
        self.last_turn = (seat, self.drawn_from, self.drawn_card, play)
        self.discard.append(play.discard)
        self.discards_by[seat].append(play.discard)
        self._log("discard", seat, play.discard)
        self.turns_taken[seat] += 1
        self.turn_no += 1
        left = int(self.hands[seat].sum())
        if 1 <= left <= 3:
            self._log("announce", seat, left)
        if res[T.T_GOING_OUT]:
            self._finish(HandResult(winner=seat, win_type="kalooki" if res[T.T_KALOOKI] else "call"))
            return
        self.current = (seat + 1) % self.n
        self.phase = PHASE_DRAW
        self.drawn_card = self.drawn_from = -1
        if self.turn_no >= p.turn_cap:
            self._finish(HandResult(stalled=True))
            self._log("stalled", self.turn_no)

    # ------------------------------------------------------------------ end of hand
    def _finish(self, result: HandResult):
        p = self.profile
        result.cards_left = self.hands.sum(axis=1, dtype=np.int64).tolist()
        result.jokers_left = self.hands[:, JOKER].tolist()
        if result.winner >= 0:
            mult = 2 if (result.win_type == "kalooki" and p.kalooki_double_penalty) else 1
            held = (self.hands.astype(np.int64) @ self.values).tolist()
            result.penalties = [0 if s == result.winner else mult * v for s, v in enumerate(held)]
        else:
            result.penalties = [0] * self.n
        self.result = result
        self.phase = PHASE_OVER
        self._log("end", result)

    # ------------------------------------------------------------------ checks (tests, soak)
    def check_invariants(self):
        """Every card of the pack exactly once in a hand, on the table, in the stock or in the discard
        pile, no negative count, every table meld valid (``sim.engine.hand.invariants``, which the
        compiled hand loop checks too), and a seat-keyed stock's places in step with its cards; an
        AssertionError names what broke."""
        p = self.profile
        if self.draw_keys is not None:
            assert len(self.stock_ids) == len(self.stock) == len(set(self.stock_ids)), "stock places out of step"
        rows = table_rows(self.table) if self.table else np.zeros((0, core.ROW_W), np.int64)
        stock = np.array(self.stock, dtype=np.int64)
        discard = np.array(self.discard, dtype=np.int64)
        code = HD.invariants(self.hands, rows, len(rows), stock, 0, len(stock), discard, len(discard), p.jokers,
                             core.compiled(p).rules)
        if code == HD.INV_MELD:
            bad = next(m for m in self.table if M.check(m, p) is not None)
            raise AssertionError(f"invalid table meld {bad}: {M.check(bad, p)}")
        assert code != HD.INV_NEGATIVE, "negative count in a hand"
        assert code != HD.INV_CARDS, (f"a card is missing or duplicated ({self.total_cards()} cards, "
                                      f"{2 * 52 + p.jokers} in the pack)")
