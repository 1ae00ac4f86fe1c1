"""The state of one hand and its validated turns: the deal, the draw, the play, the end (sim.engine)."""
from __future__ import annotations

import numpy as np

from .. import melds as M
from ..cards import JOKER, N_KINDS, card_str, from_counts, full_deck, hand_values
from ..melds import Meld
from .actions import (
    DRAW_DISCARD, DRAW_STOCK, HandResult, IllegalTurn, LayOff, NewMeld, PHASE_DRAW, PHASE_OVER, PHASE_PLAY,
    Play, SEAT_KEYS, Split, SwapJoker, Take)
from .table import TableWork, count_on, harvested_value, melds_left


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
        self.values = hand_values(profile.ace_value, profile.joker_penalty)
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
        deck = full_deck(p.jokers)
        self.rng.shuffle(deck)
        # every random draw of the hand is made here, so a compiled hand loop can replay it exactly
        self.reshuffle_keys = self.rng.random(p.deck_size)
        # seat-keyed stock: keys per (stock generation, game seat, card), as many whoever is still in, so
        # every hand of a game draws the same number of randoms and hand k is dealt alike in every rotation
        self.draw_keys = self.rng.random((2, SEAT_KEYS, p.deck_size)) if self.draw_seats is not None else None
        deck = [int(c) for c in deck]  # deck[0] is the top card
        size = p.hand_size_for(self.n)
        sizes = [size] * self.n
        order = [(self.dealer + 1 + i) % self.n for i in range(self.n)]
        if p.cut_card_joker and deck[-1] == JOKER:
            cutter = (self.dealer - 1) % self.n  # the player right of the dealer cuts
            self.hands[cutter, JOKER] += 1
            deck.pop()
            sizes[cutter] -= 1
            self._log("cut_joker", cutter)
        pos = 0
        packets = list(p.deal_pattern) if p.deal_pattern else [1] * size
        for k in packets:
            for seat in order:
                take = min(k, sizes[seat])
                for c in deck[pos:pos + take]:
                    self.hands[seat, c] += 1
                pos += take
                sizes[seat] -= take
        # a cut-joker hand is one card short of the pattern; finish one at a time
        for seat in order:
            for c in deck[pos:pos + sizes[seat]]:
                self.hands[seat, c] += 1
            pos += sizes[seat]
            sizes[seat] = 0
        self.discard = [deck[pos]]
        self.stock = deck[pos + 1:][::-1]  # stock[-1] is the top
        # seat-keyed: each stock card's place in the shuffled pack, which its keys are looked up by
        self.stock_ids = list(range(len(deck) - 1, pos, -1)) if self.draw_keys is not None else None
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
        self.values = hand_values(profile.ace_value, profile.joker_penalty)
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
        p = self.profile
        if p.stock_exhausted == "reshuffle_once" and self.reshuffles == 0 and len(self.discard) >= 2:
            # the new order: the pile sorted by the keys drawn at the deal (stable, first len(pile) keys)
            pile = np.array(self.discard, dtype=np.int16)
            pile = [int(c) for c in pile[np.argsort(self.reshuffle_keys[:len(pile)], kind="stable")]]
            self.discard = [pile[0]]
            self.stock = pile[1:][::-1]
            if self.draw_keys is not None:
                self.stock_ids = list(range(len(self.stock)))
            self.reshuffles += 1
            self._log("reshuffle", len(self.stock), self.discard[-1])
        else:
            self._finish(HandResult(void=True))
            self._log("void", "stock exhausted")

    def legal_draws(self) -> list[int]:
        return [src for src in (DRAW_STOCK, DRAW_DISCARD) if self._draw_problem(src) is None]

    def discard_obligation(self, seat: int) -> str | None:
        """What a player who takes the discard now must do with it: None, 'open' or 'meld'."""
        p = self.profile
        if p.discard_pickup == "meld_at_once":
            return "open" if not self.opened[seat] else "meld"
        if self.opened[seat] or (self.first_round(seat) and p.first_round_free_draw):
            return None
        return "open"

    def _draw_problem(self, source: int) -> IllegalTurn | None:
        """Why drawing from ``source`` is illegal now, or None."""
        if self.phase != PHASE_DRAW:
            return IllegalTurn("phase", f"not the draw phase ({self.phase})")
        if source == DRAW_STOCK:
            return None if self.stock else IllegalTurn("stock_exhausted", "the stock is empty")
        if source != DRAW_DISCARD:
            return IllegalTurn("draw", f"unknown draw source {source}")
        if not self.discard:
            return IllegalTurn("draw", "the discard pile is empty")
        if not self.opened[self.current] and not self.profile.discard_pickup_before_opening:
            return IllegalTurn("discard_pickup_before_opening", "a player who has not opened may not take the discard")
        top = self.discard[-1]
        if self.hands[self.current, top] == self.hands[self.current].sum():
            # no copy of a taken card may be discarded that turn: with nothing else held, no play would be legal
            return IllegalTurn("discard", f"every card held is {card_str(top)}: taking another leaves nothing "
                               "that may be discarded")
        return None

    def _check_draw(self, source: int):
        problem = self._draw_problem(source)
        if problem is not None:
            raise problem

    def _pop_stock(self, seat: int) -> int:
        """The stock card a draw takes: the top one, or on a seat-keyed stock the drawer's highest key."""
        if self.draw_keys is None:
            return self.stock.pop()
        keys = self.draw_keys[min(self.reshuffles, 1), self.draw_seats[seat]]
        j = max(range(len(self.stock)), key=lambda i: keys[self.stock_ids[i]])
        self.stock_ids.pop(j)
        return self.stock.pop(j)

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
        """Validate the whole play against a working copy; commit only if every rule holds."""
        if self.phase != PHASE_PLAY:
            raise IllegalTurn("phase", f"not the play phase ({self.phase})")
        seat = self.current
        p = self.profile
        hand = self.hands[seat].copy()
        table = list(self.table)
        work = TableWork(table, p)
        was_open = self.opened[seat]
        new_value = 0  # points of the cards from the hand in melds laid this turn (docs/RULES.md 4)
        layoff_value = 0  # points of the cards from the hand built onto melds already on the table
        new_melds = []
        n_layoff = 0
        jokers_taken = 0
        snapshots = []  # with record: per operation, the (index, meld) pairs it left
        for op in play.ops:
            if isinstance(op, NewMeld):
                m = op.meld
                reason = M.check(m, p)
                if reason:
                    raise IllegalTurn("meld", reason)
                harvested = work.spend(m.cards, hand)
                if work.freed_jokers_pending:
                    work.place_freed_jokers(m, len(m.cards) - len(harvested))
                table.append(m)
                work.new_indices.add(len(table) - 1)
                new_melds.append(m)
                new_value += M.value(m, p) - harvested_value(m, harvested, p)
            else:
                # section 3 play needs an opening: made before this turn, or being made (a new meld laid
                # earlier in this turn; the minimum is checked at the end).  A joker may be taken before
                # any new meld only where joker_take_at_opening allows it.
                if not (was_open or new_melds):
                    if not isinstance(op, SwapJoker):
                        raise IllegalTurn("not_opened", "a player who has not opened may not build on the table; "
                                          "lay the opening melds first")
                    if not p.joker_take_at_opening:
                        raise IllegalTurn("joker_take_at_opening", "a player who has not opened may not take a "
                                          "joker before laying a new meld")
                if isinstance(op, LayOff):
                    added, from_hand = work.lay_off(op, hand)
                    if op.target in work.new_indices:  # a meld laid this turn grows: still a new meld
                        new_value += added if from_hand else 0
                    else:
                        n_layoff += 1
                        layoff_value += added if from_hand else 0
                elif isinstance(op, Take):
                    work.take(op)
                elif isinstance(op, Split):
                    added, from_hand = work.split(op, hand)
                    n_layoff += 1
                    layoff_value += added if from_hand else 0
                elif isinstance(op, SwapJoker):
                    work.swap_joker(op, hand)
                    jokers_taken += 1
                else:
                    raise IllegalTurn("play", f"unknown operation {op!r}")
            if self.record:
                snapshots.append(melds_left(op, table))
        work.finish()
        # the opening
        if play.discard is None:
            raise IllegalTurn("discard", "every turn ends with a discard; melding every card without one is not a way out")
        if hand[play.discard] <= 0:
            raise IllegalTurn("discard", f"discard {card_str(play.discard)} is not in the hand")
        if self.drawn_from == DRAW_DISCARD and play.discard == self.drawn_card:
            # whatever copies are held: a turn never gives back the card it took (docs/RULES.md 5)
            raise IllegalTurn("discard", f"{card_str(play.discard)} was taken from the discard pile this turn; "
                              "no copy of it may be discarded in the same turn")
        hand[play.discard] -= 1
        going_out = int(hand.sum()) == 0
        opening_now = not was_open and bool(play.ops)
        exempt = going_out and not was_open and p.kalooki_exempt_from_minimum
        # a Kalooki needs opening_min of new melds from the hand that turn, whatever lay-offs count
        kalooki = going_out and not was_open and (new_value >= p.opening_min or exempt)
        if opening_now:
            if not new_melds:
                raise IllegalTurn("opening_min", "the first meld must include a new meld from hand")
            counted = new_value + (layoff_value if p.layoffs_count_for_opening else 0)
            if counted < p.opening_min and not exempt:
                extra = " (lay-offs counted)" if p.layoffs_count_for_opening and layoff_value else \
                    (" (lay-offs do not count)" if layoff_value else "")
                raise IllegalTurn("opening_min", f"opening melds are worth {counted} from the hand{extra}; "
                                  f"at least {p.opening_min} are needed (cards taken from the table never count)")
        # what a player who took the discard must do with it
        if self.drawn_from == DRAW_DISCARD:
            obligation = self.discard_obligation(seat)
            c = self.drawn_card
            if obligation == "open":
                if not (opening_now and any(c in m.cards for m in new_melds)):
                    raise IllegalTurn("discard_pickup", f"{card_str(c)} taken from the discard pile must be used at "
                                      "once in the player's initial meld")
            elif obligation == "meld":
                if count_on(table, c) <= count_on(self.table, c):
                    raise IllegalTurn("discard_pickup", f"{card_str(c)} taken from the discard pile must be melded at once")
        if going_out and self.first_round(seat) and not p.go_out_first_round:
            raise IllegalTurn("go_out_first_round", "nobody may go out in the first round")
        # commit
        self.hands[seat] = hand
        self.table = table
        st = self.stats[seat]
        if opening_now:
            self.opened[seat] = True
            st["open_round"] = self.turns_taken[seat] + 1
            st["open_value"] = new_value
            st["open_layoff_value"] = layoff_value
            st["open_with_discard"] = self.drawn_from == DRAW_DISCARD and any(self.drawn_card in m.cards for m in new_melds)
        st["melds_laid"] += len(new_melds)
        st["cards_laid_off"] += n_layoff
        st["jokers_taken"] += jokers_taken
        for op, changed in zip(play.ops, snapshots):
            self._log("op", seat, op, changed)
        self.last_turn = (seat, self.drawn_from, self.drawn_card, play)
        self.discard.append(play.discard)
        self.discards_by[seat].append(play.discard)
        self._log("discard", seat, play.discard)
        self.turns_taken[seat] += 1
        self.turn_no += 1
        left = int(hand.sum())
        if 1 <= left <= 3:
            self._log("announce", seat, left)
        if going_out:
            self._finish(HandResult(winner=seat, win_type="kalooki" if kalooki else "call"))
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
        result.cards_left = [self.hand_size(s) for s in range(self.n)]
        result.jokers_left = [int(self.hands[s, JOKER]) for s in range(self.n)]
        if result.winner >= 0:
            mult = 2 if (result.win_type == "kalooki" and p.kalooki_double_penalty) else 1
            result.penalties = [0 if s == result.winner else mult * int(self.hands[s].astype(np.int32) @ self.values)
                                for s in range(self.n)]
        else:
            result.penalties = [0] * self.n
        self.result = result
        self.phase = PHASE_OVER
        self._log("end", result)

    # ------------------------------------------------------------------ checks (tests, soak)
    def check_invariants(self):
        p = self.profile
        deck = 2 * 52 + p.jokers
        total = self.total_cards()
        assert total == deck, f"card count {total} != {deck}"
        counts = self.hands.sum(axis=0).astype(np.int32)
        if self.draw_keys is not None:
            assert len(self.stock_ids) == len(self.stock) == len(set(self.stock_ids)), "stock places out of step"
        for c in self.stock + self.discard:
            counts[c] += 1
        counts += self.table_counts()
        assert (counts[:52] == 2).all() and counts[JOKER] == p.jokers, "a card is missing or duplicated"
        assert (self.hands >= 0).all(), "negative count in a hand"
        for m in self.table:
            r = M.check(m, p)
            assert r is None, f"invalid table meld {m}: {r}"
