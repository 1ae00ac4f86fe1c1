"""The state of one hand and its validated turns: the deal, the draw, the play, the end (sim.engine).

``HandState`` holds the engine's compiled hand (``sim.engine.hand.Hand``, ``state.h``, with its fixed
inputs ``state.inp``, a ``HandInputs``) and is the validated Python view over it: the hands, the stock
and its places, the discard pile, the table, who opened, turns taken, the pickups and discards each
player made, the counters and where the hand stands live in the record's arrays and nowhere else.
Its turns are played on the record with the compiled steps the compiled hand loop uses
(``renew_stock``, ``draw_stock``, ``commit_counters``, ``end_turn``, ``invariants``), and the compiled
hand loop (``sim.bots.hand_loop``) plays the same record in place, so nothing is converted either
way.  The public attributes read the record as Python objects when asked (lists, ``Meld``, the
counters as a dict per player); assigning one, or changing the list it gives, writes the record.
"""
from __future__ import annotations

from collections.abc import MutableMapping

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
_KINDS = np.arange(N_KINDS)
_NO_DRAW_KEYS = np.zeros((0, 0, 0), np.float64)  # a stock drawn from the top
_NO_KEYS = np.zeros(0, np.float64)
_NO_SEATS = np.zeros(0, np.int64)


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


class _View(list):
    """A list read from the compiled hand; changing it writes it back through ``store`` (made by ``_view``)."""
    __slots__ = ("_store",)

    def __reduce_ex__(self, protocol):  # a copy or a pickle is a plain list
        return list, (list(self),)


def _writing(name):
    method = getattr(list, name)

    def changed(self, *args):
        out = method(self, *args)
        self._store(list(self))
        return out

    changed.__name__ = name
    return changed


def _view(items, store) -> _View:
    v = _View(items)  # list's own constructor: a bot reads several of these a turn
    v._store = store
    return v


for _name in ("__setitem__", "__delitem__", "__iadd__", "__imul__", "append", "extend", "insert", "pop", "remove",
              "clear", "sort", "reverse"):
    setattr(_View, _name, _writing(_name))

# a player's counters as HandState.stats names them: (S_* word, how a word is read, how a value is written);
# -1 stands for None (not opened)
_OPTIONAL = (lambda w: None if w < 0 else w, lambda v: -1 if v is None else int(v))
_COUNTERS = {
    "melds_laid": (HD.S_MELDS, int, int),
    "cards_laid_off": (HD.S_LAYOFFS, int, int),
    "jokers_taken": (HD.S_JOKERS_TAKEN, int, int),
    "open_round": (HD.S_OPEN_ROUND, *_OPTIONAL),
    "open_value": (HD.S_OPEN_VALUE, *_OPTIONAL),
    "open_layoff_value": (HD.S_OPEN_LAYOFF_VALUE, *_OPTIONAL),
    "open_with_discard": (HD.S_OPEN_WITH_DISCARD, bool, int),
}


class _Counters(MutableMapping):
    """One player's counters, a row of the compiled hand's ``stats`` (``S_*``) read and written by name."""
    __slots__ = ("_row",)

    def __init__(self, row: np.ndarray):
        self._row = row

    def __getitem__(self, key):
        word, read, _ = _COUNTERS[key]
        return read(int(self._row[word]))

    def __setitem__(self, key, value):
        word, _, write = _COUNTERS[key]
        self._row[word] = write(value)

    def __delitem__(self, key):
        raise TypeError("a hand's counters are fixed")

    def __iter__(self):
        return iter(_COUNTERS)

    def __len__(self):
        return len(_COUNTERS)

    def __repr__(self):
        return repr(dict(self))

    def __eq__(self, other):
        return dict(self) == (dict(other) if isinstance(other, MutableMapping) else other)


def _sc_word(k):
    """A word of where the hand stands (``Hand.sc``), read and written as an int."""
    return property(lambda self: int(self.h.sc[k]), lambda self, v: self.h.sc.__setitem__(k, int(v)))


def _res_word(k):
    """A result word of the hand (``Hand.res``), read and written as an int."""
    return property(lambda self: int(self.h.res[k]), lambda self, v: self.h.res.__setitem__(k, int(v)))


def _listed(name: str, read, store, doc: str) -> property:
    """A public attribute ``name``: a list ``read(state)`` makes from the record when asked (kept in the
    state's ``_views`` until the record changes), written back by ``store(state, items)`` when set or when
    the list it gave is changed."""
    def get(self):
        v = self._views.get(name)
        if v is None:
            v = self._views[name] = _view(read(self), lambda items: store(self, items))
        return v

    return property(get, store, doc=doc)


def _card_lists(name: str, field: str, doc: str) -> property:
    """A public attribute ``name`` (``_listed``): a list of cards per player, read from the record's count
    rows ``Hand.<field>`` (in card order)."""
    def store(self, lists):
        self._changed()
        _set_counts(getattr(self.h, field), lists)

    return _listed(name, lambda self: [np.repeat(_KINDS, row).tolist() for row in getattr(self.h, field)], store, doc)


def _input(name):
    """One of the hand's random keys or the seats they are read by: set at the deal (or by a test), and
    read into the record's fixed inputs (``inp``) when next asked."""
    slot = "_" + name

    def put(self, value):
        self.__dict__[slot] = value
        self.__dict__["_inp"] = None
    return property(lambda self: self.__dict__[slot], put)


class HandState:
    """The state of one hand, a view over its compiled record (``sim.engine.hand.Hand``, ``self.h``, beside
    its ``HandInputs``, ``self.inp``).  Read by bots (their own hand, the table, the discard pile, counts)."""

    def __init__(self, profile, n_players: int, dealer: int, rng: np.random.Generator, record: bool = False,
                 draw_seats: list[int] | None = None):
        """``draw_seats``: the game seat of each hand position, for a seat-keyed stock; None: draw from the top."""
        self._setup(profile, n_players, dealer, rng, record)
        self.draw_seats = list(draw_seats) if draw_seats is not None else None
        self._deal()

    def _setup(self, profile, n: int, dealer: int, rng, record: bool):
        self.profile = profile
        self.n = n
        self.dealer = dealer
        self.rng = rng
        self.record = record
        self.log: list[tuple] = []
        self.values = _values(profile.ace_value, profile.joker_penalty)
        self.rules = core.compiled(profile).rules
        self.h = HD.empty_hand(n, profile.deck_size + 8)
        self._reshuffle_keys = self._draw_keys = self._draw_seats = self._inp = None
        self._melds: list[Meld] | None = []  # the table's rows as melds, made when asked after they change
        self._views: dict[str, _View] = {}  # the attributes read since the record last changed (_changed)
        self.stakes = None  # a row of stakes per hand position (sim.engine.loop.play_hand), None: the hand's points
        self.result: HandResult | None = None
        self.held_before_draw = 0
        self.phase = PHASE_DRAW

    reshuffle_keys = _input("reshuffle_keys")  # one key per card of the pack, ordering a reshuffled pile
    draw_keys = _input("draw_keys")  # a seat-keyed stock's keys (stock generation, game seat, card), or None
    draw_seats = _input("draw_seats")  # the game seat of each hand position on a seat-keyed stock, or None

    @property
    def inp(self) -> HD.HandInputs:
        """The record's fixed inputs (``HandInputs``): the profile compiled once (``core.compiled``: its
        parameter vector, rules vector and card values, which the engine, the meld search and the bots
        all read), the pack's jokers and the hand's keys."""
        inp = self._inp
        if inp is None:
            p = self.profile
            cp = core.compiled(p)
            keyed = self._draw_keys is not None
            inp = self._inp = HD.HandInputs(
                cp.params, cp.rules, cp.hand_values, cp.rules, p.jokers, self._reshuffle_keys,
                self._draw_keys if keyed else _NO_DRAW_KEYS,
                np.array(self._draw_seats, dtype=np.int64) if keyed else _NO_SEATS)
        return inp

    # ------------------------------------------------------------------ dealing
    def _deal(self):
        p = self.profile
        deck = _pack(p.jokers)
        self.rng.shuffle(deck)
        # every random draw of the hand is made here, so a compiled hand loop can replay it exactly
        self.reshuffle_keys = self.rng.random(p.deck_size)
        # seat-keyed stock: keys per (stock generation, game seat, card), as many whoever is still in, so
        # every hand of a game draws the same number of randoms and hand k is dealt alike in every rotation
        self.draw_keys = self.rng.random((2, SEAT_KEYS, p.deck_size)) if self._draw_seats is not None else None
        h = self.h
        end = len(deck)  # deck[0] is the top card
        cutter = -1
        if p.cut_card_joker and deck[-1] == JOKER:
            cutter = (self.dealer - 1) % self.n  # the player right of the dealer cuts
            h.hands[cutter, JOKER] += 1
            end -= 1
            self._log("cut_joker", cutter)
        slots = _deal_slots(p.deal_pattern, p.hand_size_for(self.n), self.n, self.dealer, cutter)
        pos = len(slots)
        h.hands[:] += np.bincount(slots + deck[:pos], minlength=self.n * N_KINDS).reshape(
            self.n, N_KINDS).astype(np.int8)
        h.discard[0] = deck[pos]
        ns = end - pos - 1
        h.stock[:ns] = deck[pos + 1:end]  # drawing order: the top first
        if self._draw_keys is not None:  # each stock card's place in the shuffled pack, which its keys are read by
            h.ids[:ns] = np.arange(pos + 1, end)
        sc = h.sc
        sc[HD.SC_NS], sc[HD.SC_ND], sc[HD.SC_CUR] = ns, 1, (self.dealer + 1) % self.n
        if self.record:  # the dealt hands as card lists only where someone reads the log
            self._log("deal", self.dealer, [from_counts(x) for x in h.hands], int(deck[pos]))

    @classmethod
    def scripted(cls, profile, hands, stock="", discard="", dealer=None, current=0, opened=None, table=(),
                 rng=None, record=False):
        """A hand set up card by card (tests, examples): ``hands`` as card strings per player.

        ``stock`` is listed top card first; ``discard`` bottom first (its last card is the top).
        """
        from ..cards import parse_cards
        self = cls.__new__(cls)
        n = len(hands)
        self._setup(profile, n, (current - 1) % n if dealer is None else dealer,
                    rng if rng is not None else np.random.default_rng(0), record)
        for i, x in enumerate(hands):
            for c in parse_cards(x):
                self.h.hands[i, c] += 1
        self.table = list(table)
        self.opened = list(opened) if opened is not None else [False] * n
        self.turns_taken = [1 if o else 0 for o in self.opened]
        self.stock = parse_cards(stock)[::-1]
        self.discard = parse_cards(discard)
        self.current = current
        self.reshuffle_keys = self.rng.random(profile.deck_size)
        self.draw_seats = self.draw_keys = None
        return self

    def __copy__(self):
        """A copy that plays on without changing this one: its own record."""
        c = self.__class__.__new__(self.__class__)
        c.__dict__.update(self.__dict__)
        c.h = HD.copy_hand.py_func(self.h)  # the engine's copy run as Python (numba's dispatch of a Hand costs more)
        c._views = {}
        c._melds = None if self._melds is None else list(self._melds)
        c.log = list(self.log)
        return c

    def dealer_swap(self, card: int | None):
        """East Coast: right after the deal the dealer may take the upcard and discard another."""
        if card is None:
            return
        if not self.profile.dealer_upcard_swap:
            raise IllegalTurn("dealer_upcard_swap", "this profile has no dealer swap of the upcard")
        d = self.dealer
        up = self.discard_top
        h = self.hands[d].copy()
        h[up] += 1
        if h[card] <= 0:
            raise IllegalTurn("dealer_upcard_swap", f"dealer does not hold {card_str(card)}")
        if card == up:
            return
        h[card] -= 1
        self.hands[d] = h
        self.h.discard[self.h.sc[HD.SC_ND] - 1] = card
        self._changed("discard")
        self._log("dealer_swap", d, up, card)

    def _log(self, *event):
        if self.record:
            self.log.append(event)

    def _changed(self, *names):
        """The record changed: the attributes ``names`` (all where none is named) are read from it again."""
        if names:
            for name in names:
                self._views.pop(name, None)
        else:
            self._views.clear()

    # ------------------------------------------------------------------ the record, read and written
    current = _sc_word(HD.SC_CUR)  # the hand position to play
    turn_no = _sc_word(HD.SC_TURN_NO)  # turns played so far
    reshuffles = _sc_word(HD.SC_RESHUFFLES)  # stocks renewed from the discard pile so far
    drawn_card = _res_word(HD.H_DRAWN_CARD)  # the card drawn this turn (-1: none yet)
    drawn_from = _res_word(HD.H_DRAWN_FROM)  # where from (DRAW_STOCK, DRAW_DISCARD; -1: none yet)

    @property
    def hands(self) -> np.ndarray:
        """The hands, a count vector per player (the record's own array: writing it writes the hand)."""
        return self.h.hands

    @hands.setter
    def hands(self, value):
        self.h.hands[:] = value

    def _room(self, size: int):
        """A record whose stock and pile hold ``size`` cards (a scripted hand's, set by hand)."""
        h = self.h
        if size > h.stock.shape[0]:
            cap = size + 8
            grow = [np.zeros(cap, np.int64) for _ in range(3)]
            for new, old in zip(grow, (h.stock, h.ids, h.discard)):
                new[:old.shape[0]] = old
            self.h = h._replace(stock=grow[0], ids=grow[1], discard=grow[2])

    def _set_stock(self, cards):
        self._changed()
        cards = list(cards)
        sc = self.h.sc
        old = self.h.ids[sc[HD.SC_SP]:sc[HD.SC_NS]].copy()
        self._room(len(cards))
        ns = len(cards)
        self.h.stock[:ns] = cards[::-1]
        if old.shape[0] >= ns:  # the places the cards left keep, a card taken from the top taking its own
            self.h.ids[:ns] = old[old.shape[0] - ns:]
        sc[HD.SC_SP], sc[HD.SC_NS] = 0, ns

    stock = _listed("stock", lambda self: self.h.stock[self.h.sc[HD.SC_SP]:self.h.sc[HD.SC_NS]][::-1].tolist(),
                    _set_stock, "The stock's cards, the last one the top.")

    @property
    def stock_ids(self) -> list | None:
        """On a seat-keyed stock, each stock card's place in the shuffled pack, as ``stock`` lists them;
        None where the stock is drawn from the top."""
        if self._draw_keys is None:
            return None
        v = self._views.get("stock_ids")
        if v is None:
            sc = self.h.sc
            v = self._views["stock_ids"] = _view(self.h.ids[sc[HD.SC_SP]:sc[HD.SC_NS]][::-1].tolist(), self._set_ids)
        return v

    @stock_ids.setter
    def stock_ids(self, places):
        if places is not None:
            self._set_ids(places)

    def _set_ids(self, places):
        self._changed()
        sc = self.h.sc
        places = list(places)
        self._room(sc[HD.SC_SP] + len(places))
        self.h.ids[sc[HD.SC_SP]:sc[HD.SC_SP] + len(places)] = places[::-1]

    def _set_discard(self, cards):
        self._changed()
        cards = list(cards)
        self._room(len(cards))
        self.h.discard[:len(cards)] = cards
        self.h.sc[HD.SC_ND] = len(cards)

    discard = _listed("discard", lambda self: self.h.discard[:self.h.sc[HD.SC_ND]].tolist(), _set_discard,
                      "The discard pile, bottom first (its last card is the top).")

    def _table(self) -> list[Meld]:
        """The table's melds, read from its rows once after they change."""
        melds = self._melds
        if melds is None:
            rows = self.h.tab[:self.h.sc[HD.SC_NT]].tolist()
            melds = self._melds = [Meld(r[0], tuple(r[core.CARDS:core.CARDS + r[2]]),
                                        tuple(r[core.REPS:core.REPS + r[2]]), r[1]) for r in rows]
        return melds

    def _set_table(self, melds):
        self._changed()
        melds = list(melds)
        if len(melds) > T.MAXT:
            raise IllegalTurn("table", f"a table of more than {T.MAXT} melds")
        self.h.tab[:] = -1
        if melds:
            self.h.tab[:len(melds)] = table_rows(melds)
        self.h.sc[HD.SC_NT] = len(melds)
        self._melds = melds

    table = _listed("table", _table, _set_table, "The table's melds (``Meld``), in the order of their rows.")

    def _set_opened(self, flags):
        self._changed()
        self.h.opened[:] = [bool(x) for x in flags]

    opened = _listed("opened", lambda self: [x != 0 for x in self.h.opened.tolist()], _set_opened,
                     "Whether each player has opened.")

    def _set_turns(self, turns):
        self._changed()
        self.h.turns[:] = turns
        self.h.stats[:, HD.S_TURNS] = turns

    turns_taken = _listed("turns_taken", lambda self: self.h.turns.tolist(), _set_turns,
                          "Each player's turns taken so far.")

    def _set_stats(self, rows):
        self._changed()
        for s, d in enumerate(rows):
            if not (isinstance(d, _Counters) and d._row is self.h.stats[s]):
                counters = _Counters(self.h.stats[s])
                counters.update(d)

    stats = _listed("stats", lambda self: [_Counters(row) for row in self.h.stats], _set_stats,
                    "Each player's counters by name (melds_laid, cards_laid_off, jokers_taken, and the opening's "
                    "open_round, open_value, open_layoff_value, open_with_discard), read from and written to the "
                    "record's ``stats`` rows.")

    pickups = _card_lists("pickups", "pick", "The cards each player took from the discard pile (public), in card "
                                             "order: the record's counts.")
    discards_by = _card_lists("discards_by", "discby", "The cards each player discarded (public), in card order: "
                                                        "the record's counts.")

    # ------------------------------------------------------------------ views
    def hand(self, seat: int) -> np.ndarray:
        return self.h.hands[seat]

    def hand_size(self, seat: int) -> int:
        return int(self.h.hands[seat].sum())

    @property
    def discard_top(self) -> int:
        nd = self.h.sc[HD.SC_ND]
        return int(self.h.discard[nd - 1]) if nd > 0 else -1

    def first_round(self, seat: int) -> bool:
        return bool(self.h.turns[seat] == 0)

    def table_counts(self) -> np.ndarray:
        c = np.zeros(N_KINDS, dtype=np.int16)
        for m in self._table():
            for x in m.cards:
                c[x] += 1
        return c

    def total_cards(self) -> int:
        sc = self.h.sc
        return (int(self.h.hands.sum()) + int(sc[HD.SC_NS] - sc[HD.SC_SP]) + int(sc[HD.SC_ND])
                + int(self.h.tab[:sc[HD.SC_NT], 2].sum()))

    # ------------------------------------------------------------------ draw
    def start_turn(self):
        """Handle an exhausted stock before the player chooses (reshuffle once, or void): the compiled
        hand's ``renew_stock``."""
        h, sc = self.h, self.h.sc
        if self.phase != PHASE_DRAW or sc[HD.SC_SP] < sc[HD.SC_NS]:
            return
        ns = HD.renew_stock(self.rules, self._reshuffle_keys, sc[HD.SC_RESHUFFLES], h.discard, sc[HD.SC_ND], h.stock,
                            h.ids)
        self._changed("stock", "stock_ids", "discard")
        if ns >= 0:
            sc[HD.SC_SP], sc[HD.SC_NS], sc[HD.SC_ND] = 0, ns, 1
            sc[HD.SC_RESHUFFLES] += 1
            self._log("reshuffle", int(ns), int(h.discard[0]))
        else:
            h.res[HD.H_VOID] = 1
            self._finish(self._outcome())
            self._log("void", "stock exhausted")

    def legal_draws(self) -> list[int]:
        return [src for src in (DRAW_STOCK, DRAW_DISCARD) if self._draw_problem(src) is None]

    def discard_obligation(self, seat: int) -> str | None:
        """What a player who takes the discard now must do with it: None, 'open' or 'meld'."""
        ob = T.obligation(bool(self.h.opened[seat]), self.first_round(seat), self.rules)
        return (None, "open", "meld")[ob]

    def _draw_problem(self, source: int) -> IllegalTurn | None:
        """Why drawing from ``source`` is illegal now (``sim.engine.turn.draw_code``), or None."""
        if self.phase != PHASE_DRAW:
            return IllegalTurn("phase", f"not the draw phase ({self.phase})")
        sc = self.h.sc
        me = sc[HD.SC_CUR]
        hand = self.h.hands[me]
        top = self.discard_top
        code = T.draw_code(source, int(sc[HD.SC_NS] - sc[HD.SC_SP]), int(sc[HD.SC_ND]), bool(self.h.opened[me]),
                           int(hand[top]) if top >= 0 else 0, int(hand.sum()), self.rules)
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
        """The stock card a draw by ``seat`` takes, taken (the compiled hand's ``draw_stock``: the top
        one, or on a seat-keyed stock the drawer's highest key)."""
        sc = self.h.sc
        keys = _NO_KEYS if self._draw_keys is None else \
            self._draw_keys[min(int(sc[HD.SC_RESHUFFLES]), 1), self._draw_seats[seat]]
        c = int(HD.draw_stock(keys, self.h.stock, self.h.ids, sc[HD.SC_SP], sc[HD.SC_NS]))
        sc[HD.SC_SP] += 1
        self._changed("stock", "stock_ids")
        return c

    def apply_draw(self, source: int) -> int:
        self._check_draw(source)
        h, sc = self.h, self.h.sc
        seat = int(sc[HD.SC_CUR])
        self._changed("stock", "stock_ids", "discard", "pickups")
        if source == DRAW_STOCK:
            c = self._pop_stock(seat)
        else:
            sc[HD.SC_ND] -= 1
            c = int(h.discard[sc[HD.SC_ND]])
            h.pick[seat, c] += 1
        self.held_before_draw = int(h.hands[seat, c])
        h.hands[seat, c] += 1
        h.res[HD.H_DRAWN_CARD], h.res[HD.H_DRAWN_FROM] = c, source
        self.phase = PHASE_PLAY
        self._log("draw", seat, "stock" if source == DRAW_STOCK else "discard", c)
        return c

    # ------------------------------------------------------------------ play
    def apply_play(self, play: Play):
        """Validate the whole play (``sim.engine.turn.apply_turn``, every rule of the turn compiled and
        written once); commit only if every rule holds, else raise the rule it broke, state unchanged.
        The commit writes the record as the compiled hand loop does: its counters by ``commit_counters``,
        the end of the turn by ``end_turn``."""
        if self.phase != PHASE_PLAY:
            raise IllegalTurn("phase", f"not the play phase ({self.phase})")
        h, sc = self.h, self.h.sc
        seat = int(sc[HD.SC_CUR])
        turns_before = int(h.turns[seat])
        turn = Turn(self._table(), self.profile, h.hands[seat], play.ops, record=self.record)
        code = turn.play(play.discard, self.drawn_card, self.drawn_from, bool(h.opened[seat]), turns_before == 0)
        if code != T.OK:
            raise turn.refusal(code)
        # commit
        self._changed()
        h.hands[seat] = turn.hand
        if play.ops:  # the play changed the table
            nt = int(turn.res[T.T_ROWS])
            h.tab[:nt] = turn.wtab[:nt]
            sc[HD.SC_NT] = nt
            self._melds = turn.table_after()
        going_out = HD.commit_counters(h.stats, seat, turn.res, turns_before)
        if turn.res[T.T_OPENING]:
            h.opened[seat] = 1
        if self.record:
            for o, op in enumerate(play.ops):
                self._log("op", seat, op, turn.melds_left(o))
        self.last_turn = (seat, self.drawn_from, self.drawn_card, play)
        h.discard[sc[HD.SC_ND]] = play.discard
        sc[HD.SC_ND] += 1
        h.discby[seat, play.discard] += 1
        self._log("discard", seat, play.discard)
        h.turns[seat] += 1
        sc[HD.SC_TURN_NO] += 1
        left = int(h.hands[seat].sum())
        if 1 <= left <= 3:
            self._log("announce", seat, left)
        ended = HD.end_turn(h.res, seat, going_out, turn.res[T.T_KALOOKI] != 0, sc[HD.SC_TURN_NO],
                            self.rules[core.R_TURN_CAP])
        if not going_out:
            sc[HD.SC_CUR] = (seat + 1) % self.n
            self.phase = PHASE_DRAW
        if ended:
            self._finish(self._outcome())
            if not going_out:
                self._log("stalled", int(sc[HD.SC_TURN_NO]))

    # ------------------------------------------------------------------ end of hand
    def played_out(self) -> HandResult:
        """The record played to its end in place by the compiled hand loop (sim.bots.hand_loop): the
        table is read again from its rows when asked, and the hand ends as its result words say."""
        self._melds = None
        self._changed()
        return self._finish(self._outcome())

    def _outcome(self) -> HandResult:
        """How the hand ended, read from the record's result words (``end_turn``, a void stock)."""
        res = self.h.res
        if res[HD.H_VOID]:
            return HandResult(void=True)
        if res[HD.H_STALLED]:
            return HandResult(stalled=True)
        return HandResult(winner=int(res[HD.H_WINNER]),
                          win_type="kalooki" if res[HD.H_WIN_TYPE] == HD.WIN_KALOOKI else "call")

    def _finish(self, result: HandResult) -> HandResult:
        p = self.profile
        hands = self.h.hands
        result.cards_left = hands.sum(axis=1, dtype=np.int64).tolist()
        result.jokers_left = hands[:, JOKER].tolist()
        if result.winner >= 0:
            mult = 2 if (result.win_type == "kalooki" and p.kalooki_double_penalty) else 1
            held = (hands.astype(np.int64) @ core.compiled(self.profile).hand_values).tolist()
            result.penalties = [0 if s == result.winner else mult * v for s, v in enumerate(held)]
        else:
            result.penalties = [0] * self.n
        self.result = result
        self.phase = PHASE_OVER
        self._log("end", result)
        return result

    # ------------------------------------------------------------------ checks (tests, soak)
    def check_invariants(self):
        """Every card of the pack exactly once in a hand, on the table, in the stock or in the discard
        pile, no negative count, every table meld valid (``sim.engine.hand.invariants`` over the record,
        which the compiled hand loop checks too), and a seat-keyed stock's places each once; an
        AssertionError names what broke."""
        p = self.profile
        h, sc = self.h, self.h.sc
        sp, ns = int(sc[HD.SC_SP]), int(sc[HD.SC_NS])
        if self._draw_keys is not None:
            assert len(set(h.ids[sp:ns].tolist())) == ns - sp, "stock places out of step"
        code = HD.invariants(h.hands, h.tab, sc[HD.SC_NT], h.stock, sp, ns, h.discard, sc[HD.SC_ND], p.jokers,
                             self.rules)
        if code == HD.INV_MELD:
            bad = next(m for m in self._table() if M.check(m, p) is not None)
            raise AssertionError(f"invalid table meld {bad}: {M.check(bad, p)}")
        assert code != HD.INV_NEGATIVE, "negative count in a hand"
        assert code != HD.INV_CARDS, (f"a card is missing or duplicated ({self.total_cards()} cards, "
                                      f"{2 * 52 + p.jokers} in the pack)")


def _set_counts(counts: np.ndarray, lists):
    """A count matrix (a row per player) written from lists of cards, one per player."""
    counts[:] = 0
    for i, cards in enumerate(lists):
        np.add.at(counts[i], np.asarray(list(cards), dtype=np.int64), 1)
