"""A game of Kalooki: a series of hands with penalties, elimination, buy-ins and money (docs/RULES.md 6-8).

``Ledger`` is the score sheet of a game: it applies the game-level rules, written once and compiled
in ``sim.sheet`` (who pays whom, who is eliminated, who may buy back in, when the game ends), keeps
the sheet's rows, and asks the bots whether they buy back in; it knows nothing of cards.  ``play_game`` deals hands with the engine, lets the bots play them, and feeds the ledger;
``play_on`` plays a game on from a ledger as it stands (a copy, for a bot weighing a buy-in).
Payments and the pool always sum to zero.

At the start of every hand the game hands the table its stakes: for each seat dealt in, a row of what
each outcome of the hand is worth to it on this score sheet (``sim.equity.hand_stakes``, with the
layout ``sim.equity.ST_*``; a bot playing by a table of its own gets its row from that one), which the
stakes-aware bots weigh their choices by.  Where the profile has no table every row is neutral
(``sim.equity.neutral_stakes``: the hand's own points, exactly what a bot optimises without a score
sheet), and so is every row of a hand played without a game.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .engine import HandResult, HandState
from .engine.loop import play_hand
from . import equity, sheet
from .jit import cache as numba_cache  # noqa: F401  (numba's cache, safe between processes)


def hand_stakes(profile, ledger, bots=()) -> np.ndarray:
    """Every game seat's row of stakes for the next hand on ``ledger`` (``sim.equity.hand_stakes``:
    neutral rows where the profile has no table), C-contiguous float64.  A seat whose bot plays by a
    table of its own (``bots[s].own_table``, a bot's ``game_values`` setting) gets its row from that
    table."""
    rows = np.ascontiguousarray(equity.hand_stakes(profile, ledger), dtype=np.float64)
    for s, bot in enumerate(bots):
        own = getattr(bot, "own_table", None)
        if own is not None and ledger.in_game[s] and not ledger.over:
            rows[s] = equity.hand_stakes(profile, ledger, own)[s]
    return rows


@dataclass
class SheetRow:
    hand_no: int
    winner: int
    win_type: str | None
    penalties: list
    totals: list
    balances: list
    pool: int
    payments: list
    eliminated: list
    bought_in: list


class Ledger:
    """The score sheet of one game: penalty totals (or points), payment balances and the pool."""

    def __init__(self, profile, n_players: int):
        self.p = profile
        self.n = n_players
        self.totals = [0] * n_players
        self.balances = [0] * n_players
        self.pool = 0
        self.pool_collected = 0  # every stake and buy-in paid in (the pool the winner takes)
        self.in_game = [True] * n_players
        self.buy_ins = [0] * n_players
        self.eliminations = [0] * n_players
        self.kalookis = [0] * n_players
        self.out_order: list[int] = []  # seats in the order they left the game for good
        self.hands_played = 0
        self.over = False
        self.winner = -1
        self.stalled = False
        self.sheet: list[SheetRow] = []
        self.pending_payments = [0] * n_players
        self.dealer = -1  # the seat that dealt the hand being recorded
        self._offered: list[int] = []  # eliminated by the hand being recorded, in turn from the winner's left
        self._offers: list[int] = []  # those of them not yet offered a buy-in
        self._bought = [False] * n_players
        self._rules = sheet.rules_vector(profile, n_players, sheet.DECIDE_NEVER)  # the bots decide buy-ins
        if profile.game_end == "elimination" and profile.stake_initial:
            for s in range(n_players):
                self._pay_pool(s, profile.stake_initial)

    def _pay_pool(self, seat, amount):
        self.balances[seat] -= amount
        self.pending_payments[seat] -= amount
        self.pool += amount
        self.pool_collected += amount

    def players_in(self) -> list[int]:
        return [s for s in range(self.n) if self.in_game[s]]

    def _arrays(self):
        """The sheet as the compiled rules read it (``sim.sheet``): totals, who is in, balances, scalars."""
        sc = np.zeros(sheet.C_WORDS)
        sc[sheet.C_POOL], sc[sheet.C_OVER], sc[sheet.C_WINNER] = self.pool, self.over, self.winner
        sc[sheet.C_HANDS], sc[sheet.C_STALLED] = self.hands_played, self.stalled
        return (np.array(self.totals, dtype=np.float64), np.array(self.in_game, dtype=np.bool_),
                np.array(self.balances, dtype=np.float64), sc)

    def _take(self, totals, in_game, balances, sc):
        """The compiled rules' result written back; what each seat paid or was paid goes on its row."""
        for s in range(self.n):
            self.pending_payments[s] += int(balances[s]) - self.balances[s]
        self.totals = [int(t) for t in totals]
        self.in_game = in_game.tolist()
        self.balances = [int(b) for b in balances]
        self.pool, self.over, self.winner = int(sc[sheet.C_POOL]), bool(sc[sheet.C_OVER]), int(sc[sheet.C_WINNER])
        self.hands_played, self.stalled = int(sc[sheet.C_HANDS]), bool(sc[sheet.C_STALLED])

    def record_hand(self, result: HandResult, buy_in_decider=None) -> SheetRow:
        """Apply one finished hand (``sim.sheet.settle_hand``).  ``buy_in_decider(seat, ledger) -> bool``
        is asked in turn."""
        self._hand = result
        self._bought = [False] * self.n
        w = result.winner
        kalooki = result.win_type == "kalooki"
        if w >= 0 and kalooki:
            self.kalookis[w] += 1
        arrays = self._arrays()
        offers = np.empty(self.n, dtype=np.int64)
        out = sheet.settle_hand(self._rules, *arrays, w, kalooki, np.array(result.penalties, dtype=np.float64),
                                np.array(result.cards_left, dtype=np.float64),
                                np.array(result.jokers_left, dtype=np.float64), offers)
        self._take(*arrays)
        self._offered = offers[:out].tolist()  # in the order they are offered a buy-in
        self._offers = list(self._offered)
        self._eliminated_now = [s in self._offered for s in range(self.n)]
        for s in self._offers:
            self.eliminations[s] += 1
        return self.finish_hand(buy_in_decider)

    def may_buy_in(self, seat: int) -> bool:
        """Whether a player eliminated by this hand may buy back in now (``sim.sheet.may_buy_in``: a
        buy-in left and two players still in)."""
        return bool(sheet.may_buy_in(self.buy_ins[seat] < self.p.max_buy_ins, np.array(self.in_game, dtype=np.bool_)))

    def re_enter(self, seat: int) -> None:
        """A buy-in: back in at the highest total of those still in (``sim.sheet.re_enter``), the stake
        into the pool (``sim.sheet.pay_buy_in``)."""
        arrays = self._arrays()
        totals, in_game, balances, sc = arrays
        buy_ins = np.array(self.buy_ins, dtype=np.int64)
        sheet.re_enter(totals, in_game, seat)
        sheet.pay_buy_in(self._rules, buy_ins, balances, sc, seat)
        self.pool_collected += int(self._rules[sheet.R_BUY_IN])
        self._take(*arrays)
        self.buy_ins = buy_ins.tolist()
        self._bought[seat] = True

    def finish_hand(self, buy_in_decider=None) -> SheetRow:
        """The rest of ``record_hand``: offer the buy-ins not yet offered, in turn from the winner's left,
        then close the hand (who left for good; ``sim.sheet.close_hand``: the game's end, the hand cap)
        and write its sheet row.  A copy taken while a player decides (``copy``) finishes the hand with
        its own deciders."""
        while self._offers:
            s = self._offers.pop(0)
            if self.may_buy_in(s) and buy_in_decider is not None and buy_in_decider(s, self):
                self.re_enter(s)
        result, eliminated_now = self._hand, self._eliminated_now
        w = result.winner
        for s in self._offered[::-1]:  # eliminated by this hand and not back in
            if not self.in_game[s]:
                self.out_order.append(s)
        arrays = self._arrays()
        sheet.close_hand(self._rules, *arrays, w)
        self._take(*arrays)
        row = SheetRow(self.hands_played, w, result.win_type, list(result.penalties), list(self.totals),
                       list(self.balances), self.pool, list(self.pending_payments), eliminated_now,
                       list(self._bought))
        self.sheet.append(row)
        self.pending_payments = [0] * self.n
        return row

    def copy(self) -> "Ledger":
        """The sheet as it stands, without its rows: a game played on from here (``play_on``) leaves
        this one as it is."""
        other = Ledger.__new__(Ledger)
        for k, v in self.__dict__.items():
            setattr(other, k, list(v) if isinstance(v, list) else v)
        other.sheet = []
        return other

    def finish_ranks(self) -> list[int]:
        """1 = winner; then the others, those who stayed longest (or scored best) first."""
        rank = [0] * self.n
        if self.p.game_end == "elimination":
            order = [self.winner] + [s for s in self.players_in() if s != self.winner]
            order += [s for s in reversed(self.out_order) if s not in order]
            order += [s for s in range(self.n) if s not in order]
        elif self.p.game_end == "target":
            order = [self.winner] + sorted((s for s in range(self.n) if s != self.winner), key=lambda s: (-self.totals[s], s))
        else:
            order = [self.winner] + sorted((s for s in range(self.n) if s != self.winner), key=lambda s: (self.totals[s], s))
        for r, s in enumerate(order, 1):
            rank[s] = r
        return rank


@dataclass
class HandRecord:
    hand_no: int
    redeal_no: int
    dealer: int
    n_players: int
    seats: list  # seats dealt in
    dealt_jokers: list
    dealt_counts: list  # count vectors at the deal, for dealt_max_meld_value
    state: HandState
    sheet: SheetRow | None


@dataclass
class GameRecord:
    hands: list = field(default_factory=list)
    ledger: Ledger | None = None
    transcript: list = field(default_factory=list)


class CanonicalDeal:
    """The hand's random stream, dealing as if one card at a time whatever the profile's deal_pattern.

    It draws exactly what the plain stream draws (so the stock, the upcard and every later hand are the
    same), then moves the shuffled cards so that dealing them in the profile's packets gives each seat
    the cards it would get one at a time.  The pack is uniformly shuffled, so each profile's
    distribution of hands is unchanged; paired runs use it so that profiles that differ only in the
    deal pattern receive the same cards seat by seat.
    """

    def __init__(self, rng: np.random.Generator, profile, n_players: int):
        self.rng = rng
        self.order = _packet_positions(profile, n_players)

    def shuffle(self, deck):
        self.rng.shuffle(deck)
        if self.order is not None:
            size = len(self.order)
            canonical = deck[:size].copy()
            deck[self.order] = canonical

    def random(self, *args, **kwargs):
        return self.rng.random(*args, **kwargs)

    def integers(self, *args, **kwargs):
        return self.rng.integers(*args, **kwargs)


def _packet_positions(profile, n: int):
    """``order[i]``: where the deal puts the i-th card of a one-at-a-time deal (None: the same place).

    Position j*n + k of a one-at-a-time deal is card j of the k-th player dealt to; the packet deal
    (sim.engine.HandState._deal, no cut-card joker) gives that player its cards in packets instead."""
    if not profile.deal_pattern or profile.cut_card_joker:
        return None
    size = profile.hand_size_for(n)
    left = [size] * n
    got: list[list[int]] = [[] for _ in range(n)]
    pos = 0
    for packet in list(profile.deal_pattern):
        for k in range(n):
            take = min(packet, left[k])
            got[k] += range(pos, pos + take)
            pos += take
            left[k] -= take
    for k in range(n):
        got[k] += range(pos, pos + left[k])
        pos += left[k]
    return np.array([got[k][j] for j in range(size) for k in range(n)], dtype=np.int64)


def play_game(profile, bots, rng: np.random.Generator, record: bool = False, on_turn=None, on_hand=None,
              hand_ctx: dict | None = None, canonical_deal: bool = False, seat_keyed: bool = False) -> GameRecord:
    """Play one whole game.  ``bots`` has one bot per seat; every random choice comes from ``rng``.
    ``canonical_deal``: deal as if one card at a time whatever the deal pattern (``CanonicalDeal``).
    ``seat_keyed``: every hand draws from a seat-keyed stock keyed by game seat (sim.engine)."""
    game = GameRecord(ledger=Ledger(profile, len(bots)))
    dealer = int(rng.integers(len(bots)))
    play_on(game, profile, bots, rng, dealer, record, on_turn, on_hand, hand_ctx, canonical_deal, seat_keyed)
    return game


def next_dealer(profile, ledger: Ledger) -> int:
    """The deal passes clockwise from the hand's dealer (``ledger.dealer``) to the next seat still in."""
    return int(sheet.next_dealer(ledger._rules, ledger.dealer,
                                 np.array(ledger.in_game, dtype=np.bool_), ledger.over))


def play_on(game: GameRecord, profile, bots, rng, dealer: int, record: bool = False, on_turn=None, on_hand=None,
            hand_ctx: dict | None = None, canonical_deal: bool = False, seat_keyed: bool = False) -> None:
    """Play ``game`` on from its ledger, ``dealer`` dealing the next hand, until the game ends
    (``play_game``'s arguments; a search bot plays a copied ledger on to weigh a buy-in)."""
    n = len(bots)
    ledger = game.ledger
    hand_no = ledger.hands_played
    while not ledger.over:
        hand_no += 1
        redeal = 0
        stakes = hand_stakes(profile, ledger, bots)  # what each outcome of this hand is worth to each seat
        while True:
            seats = ledger.players_in() if profile.game_end == "elimination" else list(range(n))
            pos_dealer = seats.index(dealer) if dealer in seats else 0
            hand_rng = CanonicalDeal(rng, profile, len(seats)) if canonical_deal else rng
            state = HandState(profile, len(seats), pos_dealer, hand_rng, record=record,
                              draw_seats=seats if seat_keyed else None)
            if hand_ctx is not None:
                hand_ctx.update(hand_no=hand_no, redeal_no=redeal, seats=seats)
            dealt = state.hands.copy()
            hand_bots = [bots[s] for s in seats]
            for b, s in zip(hand_bots, seats):
                b.seat_in_game = s
            result = play_hand(state, hand_bots, seats, on_turn, stakes[seats])
            rec = HandRecord(hand_no, redeal, seats[pos_dealer], len(seats), seats,
                             [int(h[52]) for h in dealt], dealt, state, None)
            if record:
                game.transcript.append(state.log)
            if result.void:
                game.hands.append(rec)
                if on_hand:
                    on_hand(rec)
                redeal += 1
                continue
            break
        # map hand positions back to seats
        full = HandResult(winner=seats[result.winner] if result.winner >= 0 else -1, win_type=result.win_type,
                          stalled=result.stalled, penalties=[0] * n, cards_left=[0] * n, jokers_left=[0] * n)
        for i, s in enumerate(seats):
            full.penalties[s] = result.penalties[i]
            full.cards_left[s] = result.cards_left[i]
            full.jokers_left[s] = result.jokers_left[i]
        ledger.dealer = seats[pos_dealer]
        rec.sheet = ledger.record_hand(full, lambda s, lg: bots[s].buy_in(lg, s))
        game.hands.append(rec)
        if on_hand:
            on_hand(rec)
        dealer = next_dealer(profile, ledger)
