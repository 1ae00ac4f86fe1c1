"""The game's value of a score sheet (an equity table), per profile, and the stakes of one hand.

A game's value to a seat is what it expects from now to the game's end: the net money it will be paid
(stakes, buy-ins paid, the pool it may take) where the profile pays money in an elimination game, the
chance of winning the game in a target game, and the payment of the one hand in a single-hand game.
The table is built as backgammon's match-equity tables were built from play (docs/EQUITY.md):

1. The hands (``HandSamples``): hands dealt with the engine and played to their end by the project's
   bots, for each number of players a hand can be dealt to.  Each gives the winner and win type and
   every seat's penalty (and cards and jokers left), by position from the dealer, and its class
   (``_hand_class``: the positions near the end of the game and the leader, on the sheet it was played at).  The first
   pass plays them at random sheets (``sample_sheet``) with neutral stakes (``collect_hands``); a later
   pass takes every hand of whole games played by the stakes of the pass before (``game_hand_row``,
   ``stakes_from``; the games are played in ``sim.commands.equity``, as this module imports no bot),
   so a hand depends on the sheet through who is dealt in, who deals and its class: the games played
   on draw each hand from the samples of its player count and class.
2. The values (``build_table``): from every point of a grid of sheets (own total and buy-ins left, the
   others' totals, whether they are in and their buy-ins left), games are played on by Monte Carlo
   with hands drawn from the samples and the game's rules applied by ``sim.sheet.record_hand`` (the
   score sheet's rules, which ``sim.game.Ledger`` applies too), every grid point on the same random
   numbers, each row of them played with the sheet turned to every place round the table.  Buy-ins
   inside the model follow the rule of the bot that made the hands: where it buys in by the table (the
   expert's default), the gain the table of the pass before gives (``_record_hand_by_table``; pass 1
   by the pool rule), else the pool rule (``sim.sheet.pool_rule_buys``).  The values are then made
   monotone (``_monotone``).
3. The lookup (``sheet_value``, ``hand_stakes``, ``buy_in_gain``): compiled, multilinear between grid
   points.

Elimination tables hold two arrays, the chance of winning the game ``P`` and the rest of the money
``F`` (stakes, later buy-ins and the later additions to the pool), so that a sheet's value is
``pool * P + F`` whatever its pool.  The opponents enter through their totals, sorted (a table is
symmetric in them), and the sum of their buy-ins left; who deals is averaged over.
"""
from __future__ import annotations

import json
import zipfile
import zlib
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from itertools import combinations_with_replacement, permutations

import numpy as np
from numba import njit

from .engine import HandState
from .engine.loop import play_hand
from . import sheet
from .jit import cache as numba_cache  # noqa: F401  (numba's cache, safe between processes)
from .jit.cache import drop_stale
from .resources import config_file
from .sheet import (C_OVER, C_POOL, C_WINNER, C_WORDS, DECIDE_ALWAYS, DECIDE_POOL_RULE, KIND_ELIMINATION, KIND_SINGLE,
                    KIND_TARGET, KINDS, R_BUY_IN, R_CALL, R_ELIMINATE, R_KALOOKI, R_KIND, R_MAX_BUY_INS, R_N, R_TARGET,
                    buy_in_step, close_hand, count_in, may_buy_in, next_dealer, pay_buy_in, re_enter, record_hand,
                    rules_vector, settle_hand)

# ---- the stakes interface (docs/EQUITY.md)
ST_WIN = 0  # the seat goes out now (a plain go-out)
ST_KALOOKI = 1  # the seat goes out Kalooki
ST_CURVE = 2  # ST_CURVE + x: another seat goes out and this seat takes x penalty points
ST_XMAX = 250  # penalties above ST_XMAX read the value at ST_XMAX
ST_W = ST_CURVE + ST_XMAX + 1

TABLE_VERSION = 1
GRID_POINTS = {KIND_ELIMINATION: 11, KIND_TARGET: 21, KIND_SINGLE: 1}  # totals on the grid, 0..the limit
NMAX = 6  # most players a profile allows

# sample hands by class (HandSamples.mask): the positions near the end of the game and the leader's
# position; a class with fewer hands draws from every hand of its positions near the end, and those
# from every hand dealt to as many
LEADS = NMAX + 1  # the leader's position from the dealer plus one, 0 where no seat leads alone
CLASSES = (1 << NMAX) * LEADS
MIN_CLASS = 40


# ---------------------------------------------------------------------------------------------
# a hand's class: the seats near the end of the game

@njit(cache=True)
def at_risk(r, total):
    """Whether a seat with ``total`` stands near the end of the game, where the stakes of a hand are
    furthest from its own points: in an elimination game above three quarters of ``eliminate_above``; in a
    target game at three quarters of ``target_score`` or more.  Never in a single-hand game."""
    if r[R_KIND] == KIND_ELIMINATION:
        return total * 4 > r[R_ELIMINATE] * 3
    if r[R_KIND] == KIND_TARGET:
        return total * 4 >= r[R_TARGET] * 3
    return False


@njit(cache=True)
def _risk_mask(r, totals, seats, pos_dealer, n_in):
    """The positions near the end of the game: bit q set where the seat at position q from the dealer is
    ``at_risk``; ``seats`` lists the seats dealt in by hand position, the dealer at ``pos_dealer``."""
    m = 0
    for q in range(n_in):
        if at_risk(r, totals[seats[(pos_dealer + q) % n_in]]):
            m |= 1 << q
    return m


@njit(cache=True)
def _leader(r, totals, seats, pos_dealer, n_in):
    """The leader's position from the dealer plus one: the seat dealt in with the lowest total in an
    elimination game, the highest (the nearest the target) in a target game; 0 where two seats share
    it, and always in a single-hand game."""
    if r[R_KIND] == KIND_SINGLE:
        return 0
    sign = 1.0 if r[R_KIND] == KIND_ELIMINATION else -1.0
    best, lead = 0.0, 0
    for q in range(n_in):
        t = sign * totals[seats[(pos_dealer + q) % n_in]]
        if lead == 0 or t < best:
            best, lead = t, q + 1
        elif t == best:
            lead = -1
    return max(lead, 0)


@njit(cache=True)
def _hand_class(r, totals, seats, pos_dealer, n_in):
    """A hand's class: its positions near the end of the game (``_risk_mask``) and its leader
    (``_leader``), ``mask * LEADS + leader``."""
    return _risk_mask(r, totals, seats, pos_dealer, n_in) * LEADS + _leader(r, totals, seats, pos_dealer, n_in)


# ---------------------------------------------------------------------------------------------
# the hands

@dataclass
class HandSamples:
    """Hands played to their end, sorted by the number of players dealt in: rows ``start[k]`` ..
    ``start[k + 1] - 1`` were dealt to k players.  Columns by position from the dealer (0 the dealer,
    1 the player on the dealer's left, ...): ``winner`` (-1 a stalled hand), ``kalooki``, ``penalty``,
    ``cards_left``, ``jokers_left``, and ``mask``, the hand's class (``_hand_class``) on the sheet it was
    played at: which positions stood near the end of the game and which led.  Within a player count the
    rows are sorted by class."""
    start: np.ndarray  # int64 (NMAX + 2,)
    winner: np.ndarray  # int64 (S,)
    kalooki: np.ndarray  # bool (S,)
    penalty: np.ndarray  # int64 (S, NMAX)
    cards_left: np.ndarray
    jokers_left: np.ndarray
    mask: np.ndarray  # int64 (S,)

    def count(self, n_in: int) -> int:
        return int(self.start[n_in + 1] - self.start[n_in])

    def by_class(self) -> np.ndarray:
        """int64 ((NMAX + 1) * CLASSES + 1,): the first row of (players dealt in k, class c) at k * CLASSES + c."""
        n_in = np.repeat(np.arange(NMAX + 1), np.diff(self.start)[:NMAX + 1])
        keys = n_in * CLASSES + self.mask
        return np.searchsorted(keys, np.arange((NMAX + 1) * CLASSES + 1)).astype(np.int64)

    @cached_property
    def played(self) -> tuple:
        """The arguments ``_play_on`` draws hands from, made once: ``start``, ``by_class()``, ``winner``,
        ``kalooki``, and ``penalty``, ``cards_left``, ``jokers_left`` as float64."""
        return (self.start, self.by_class(), self.winner, self.kalooki, self.penalty.astype(np.float64),
                self.cards_left.astype(np.float64), self.jokers_left.astype(np.float64))


def hand_seed(seed: int, profile_name: str, n_in: int, index: int) -> np.random.SeedSequence:
    """A sample hand's stream: (seed, profile, players dealt in, hand number) alone."""
    return np.random.SeedSequence(int(seed), spawn_key=(zlib.crc32(profile_name.encode()), 0, int(n_in), int(index)))


def hands_wanted(profile, n_players: int, hands: int) -> dict:
    """Hands to play for each count of players dealt in: ``hands`` with every player in, half that with
    each smaller count an elimination game reaches (down to two)."""
    if profile.game_end != "elimination":
        return {n_players: hands}
    return {k: (hands if k == n_players else max(1, hands // 2)) for k in range(2, n_players + 1)}


def collect_hands(profile, n_players: int, hands: int, seed: int, make_bots, progress=None,
                  table: EquityTable | None = None) -> HandSamples:
    """Play the sample hands (``hands_wanted``) with ``make_bots(n_in, rngs) -> bots``; each hand from its
    own seed (``hand_seed``), its dealer drawn from its stream, at a sheet drawn from its stream
    (``sample_sheet``), the bots handed that sheet's stakes by ``table`` (``hand_stakes``; neutral
    stakes without a table).  A hand played by a table's stakes has its sheet's class (``_hand_class``);
    one played by neutral stakes depends on no sheet and has class 0, so that every sheet draws from all
    of them (``_sample_range``: a class with too few hands falls back to all hands dealt to as many)."""
    r = rules_vector(profile, n_players)
    rows = []
    for n_in, count in sorted(hands_wanted(profile, n_players, hands).items()):
        for i in range(count):
            children = hand_seed(seed, profile.name, n_in, i).spawn(2 + n_in)
            rng = np.random.default_rng(children[0])
            totals, in_game, left, pool = sample_sheet(profile, n_players, n_in, np.random.default_rng(children[-1]))
            stakes = None  # the neutral rows
            if table is not None and table.kind == KIND_SINGLE:
                stakes = np.ascontiguousarray(table.rows[:n_in])
            elif table is not None:
                rows_all = neutral_stakes(n_players)
                _stakes(table.pf, table.grid, table.rules, table.typical, table.scale, totals, in_game, left, pool,
                        rows_all)
                stakes = np.ascontiguousarray(rows_all[:n_in])
            while True:  # a void hand is dealt again from the same stream, as a game re-deals it
                dealer = int(rng.integers(n_in))
                state = HandState(profile, n_in, dealer, rng)
                bots = make_bots(n_in, [np.random.default_rng(c) for c in children[1:1 + n_in]])
                for seat, bot in enumerate(bots):
                    bot.seat_in_game = seat  # as sim.game.play_on seats them
                result = play_hand(state, bots, list(range(n_in)), None, stakes)
                if not result.void:
                    break
            rel = [(dealer + k) % n_in for k in range(n_in)]  # hand position of each position from the dealer
            w = result.winner
            cls = 0 if table is None else int(_hand_class(r, totals, np.arange(n_in, dtype=np.int64), dealer, n_in))
            rows.append((n_in, (w - dealer) % n_in if w >= 0 else -1, result.win_type == "kalooki",
                         [result.penalties[q] for q in rel], [result.cards_left[q] for q in rel],
                         [result.jokers_left[q] for q in rel], cls))
            if progress:
                progress(1)
    return samples_from_rows(rows)


def game_hand_row(r, totals, seats, dealer: int, result) -> tuple:
    """A hand of a whole game as a sample row (``samples_from_rows``): ``totals`` the sheet it was dealt
    at (by game seat), ``seats`` the game seats dealt in by hand position, ``dealer`` the game seat that
    dealt, ``result`` its ``HandResult`` (by hand position); its class from that sheet."""
    k = len(seats)
    pos_dealer = list(seats).index(dealer)
    rel = [(pos_dealer + q) % k for q in range(k)]  # hand position of each position from the dealer
    w = result.winner if result.winner is not None else -1
    mask = int(_hand_class(r, np.asarray(totals, dtype=np.float64), np.asarray(seats, dtype=np.int64), pos_dealer, k))
    return (k, (w - pos_dealer) % k if w >= 0 else -1, result.win_type == "kalooki",
            [result.penalties[q] for q in rel], [result.cards_left[q] for q in rel],
            [result.jokers_left[q] for q in rel], mask)


@contextmanager
def stakes_from(profile, table: EquityTable | None):
    """Within the block, ``hand_stakes`` and ``sheet_value`` called without a table read ``table`` for
    this profile object (None: the neutral rows) instead of the shipped one: the games a later pass of
    the build takes its sample hands from are played by the stakes of the pass before."""
    key = id(profile)
    before = _BY_PROFILE.get(key)
    _BY_PROFILE[key] = (profile, table.n if table is not None else int(profile.players), table)
    try:
        yield
    finally:
        if before is None:
            _BY_PROFILE.pop(key, None)
        else:
            _BY_PROFILE[key] = before


def sample_sheet(profile, n_players: int, n_in: int, rng: np.random.Generator):
    """The sheet a sample hand is played at: seats 0..n_in-1 in (an elimination game's others out), each
    total drawn uniformly from the grid's range (0..``eliminate_above``; a target game 0..``target_score``
    - 1), each seat in with 0..``max_buy_ins`` buy-ins used, the pool every stake and buy-in paid.
    (totals, in_game, buy-ins left, pool) as the compiled stakes read them."""
    kind = KINDS[profile.game_end]
    totals = np.zeros(n_players)
    in_game = np.zeros(n_players, dtype=np.bool_)
    in_game[:n_in] = True
    left = np.zeros(n_players, dtype=np.int64)
    pool = 1.0
    if kind == KIND_SINGLE:
        return totals, np.ones(n_players, dtype=np.bool_), left, pool
    top = profile.eliminate_above if kind == KIND_ELIMINATION else profile.target_score - 1
    totals[:n_in] = rng.integers(0, top + 1, size=n_in)
    if kind == KIND_ELIMINATION:
        b = profile.max_buy_ins if profile.stake_buy_in >= 0 else 0
        used = rng.integers(0, b + 1, size=n_in)
        left[:n_in] = b - used
        if profile.pays_money:
            pool = float(n_players * profile.stake_initial + profile.stake_buy_in * used.sum())
    else:
        in_game[:] = True
    return totals, in_game, left, pool


def samples_from_rows(rows) -> HandSamples:
    """``HandSamples`` from rows (players dealt in, winner, kalooki, penalties, cards left, jokers left,
    class), the per-position lists by position from the dealer."""
    rows = sorted(rows, key=lambda row: (row[0], row[6]))
    s = len(rows)
    pen, cards, jokers = (np.zeros((s, NMAX), dtype=np.int64) for _ in range(3))
    for i, row in enumerate(rows):
        k = row[0]
        pen[i, :k], cards[i, :k], jokers[i, :k] = row[3], row[4], row[5]
    n_in = np.array([row[0] for row in rows], dtype=np.int64)
    start = np.searchsorted(n_in, np.arange(NMAX + 2)).astype(np.int64)
    return HandSamples(start, np.array([row[1] for row in rows], dtype=np.int64),
                       np.array([row[2] for row in rows], dtype=np.bool_), pen, cards, jokers,
                       np.array([row[6] for row in rows], dtype=np.int64))


def sample_rows(samples: HandSamples, n_in: int) -> list:
    """The rows (``samples_from_rows``) of the hands dealt to ``n_in`` players."""
    return [(n_in, int(samples.winner[i]), bool(samples.kalooki[i]), samples.penalty[i, :n_in].tolist(),
             samples.cards_left[i, :n_in].tolist(), samples.jokers_left[i, :n_in].tolist(), int(samples.mask[i]))
            for i in range(samples.start[n_in], samples.start[n_in + 1])]


def filled_from(samples: HandSamples, fallback: HandSamples) -> HandSamples:
    """``samples`` with ``fallback``'s hands added at each count of players dealt in where it holds fewer
    than ``MIN_CLASS`` hands (games that rarely reach a count of players in)."""
    rows = []
    for k in range(NMAX + 1):
        rows += sample_rows(samples, k)
        if samples.count(k) < MIN_CLASS:
            rows += sample_rows(fallback, k)
    return samples_from_rows(rows)


# ---------------------------------------------------------------------------------------------
# games played on from a sheet, by Monte Carlo

@njit(cache=True)
def _sample_range(start, by_class, n_in, near_mask, lead):
    """The sample rows (first, count) a hand dealt to ``n_in`` is drawn from: those of its class (the
    positions near the end ``near_mask``, the leader ``lead``); where they are fewer than ``MIN_CLASS``,
    those with the same positions near the end, whoever leads; where those are fewer too, every hand
    dealt to as many."""
    near = n_in * CLASSES + near_mask * LEADS
    first = by_class[near + lead]
    count = by_class[near + lead + 1] - first
    if count < MIN_CLASS:
        first = by_class[near]
        count = by_class[near + LEADS] - first
    if count < MIN_CLASS:
        first = start[n_in]
        count = start[n_in + 1] - first
    return first, count


@njit(cache=True)
def _play_on(r, totals0, in0, buys0, pool0, start, by_class, s_winner, s_kalooki, s_pen, s_cards, s_jokers,
             u_hand, u_dealer, seat, rotate, PF_b, grid_b, by_table):
    """Games played on from one sheet with hands drawn from the samples, each on a row of uniforms:
    ``u_hand[row]`` (hand h draws sample ``u_hand[row, h % H]``) and ``u_dealer[row]`` (the first dealer
    among those in).  With ``rotate`` every row is played once for each seat in, the sheet turned 0..k-1
    places round the k seats in (the seats out stay where they are: the deal and the buy-ins pass them
    by), so that the luck of a row's hands falls on every seat in alike (on a sheet where every seat in
    stands alike, each wins exactly 1/k of the games).  The players eliminated buy back in by the pool
    rule, or with ``by_table`` by the gain the table ``PF_b`` on ``grid_b`` gives (``_record_hand_by_table``).
    Returns the share of games ``seat`` won and its mean net payment from now on."""
    n = r[R_N]
    rows, horizon = u_hand.shape
    ins = np.empty(n, dtype=np.int64)  # the seats in, in order round the table
    k_in = 0
    for s in range(n):
        if in0[s]:
            ins[k_in] = s
            k_in += 1
    games = rows * k_in if rotate else rows
    totals = np.empty(n)
    in_game = np.empty(n, dtype=np.bool_)
    buys = np.empty(n, dtype=np.int64)
    balances = np.empty(n)
    pen = np.empty(n)
    cards = np.empty(n)
    jokers = np.empty(n)
    sc = np.zeros(C_WORDS)
    seats = np.empty(n, dtype=np.int64)
    wins = 0.0
    money = 0.0
    for g in range(games):
        row = g // k_in if rotate else g
        shift = g % k_in if rotate else 0
        for s in range(n):
            totals[s] = totals0[s]
            in_game[s] = in0[s]
            buys[s] = buys0[s]
        me = seat
        for j in range(k_in):  # seat in j takes the place of the seat in j + shift
            to = ins[(j + shift) % k_in]
            totals[to] = totals0[ins[j]]
            buys[to] = buys0[ins[j]]
            if ins[j] == seat:
                me = to
        balances[:] = 0.0
        sc[:] = 0.0
        sc[C_POOL] = pool0
        n_in = count_in(in_game)
        pick = int(u_dealer[row] * n_in)
        dealer = -1
        k = 0
        for s in range(n):
            if in_game[s]:
                if k == pick:
                    dealer = s
                k += 1
        h = 0
        while sc[C_OVER] == 0:
            n_in = 0
            pos_dealer = 0
            for s in range(n):
                if in_game[s] or r[R_KIND] != KIND_ELIMINATION:
                    if s == dealer:
                        pos_dealer = n_in
                    seats[n_in] = s
                    n_in += 1
            first, count = _sample_range(start, by_class, n_in, _risk_mask(r, totals, seats, pos_dealer, n_in),
                                         _leader(r, totals, seats, pos_dealer, n_in))
            i = first + min(int(u_hand[row, h % horizon] * count), count - 1)
            h += 1
            pen[:] = 0.0
            cards[:] = 0.0
            jokers[:] = 0.0
            for q in range(n_in):  # position q from the dealer is hand position (pos_dealer + q) % n_in
                s = seats[(pos_dealer + q) % n_in]
                pen[s] = s_pen[i, q]
                cards[s] = s_cards[i, q]
                jokers[s] = s_jokers[i, q]
            w = -1 if s_winner[i] < 0 else seats[(pos_dealer + s_winner[i]) % n_in]
            if by_table:
                _record_hand_by_table(r, totals, in_game, buys, balances, sc, w, s_kalooki[i], pen, cards, jokers,
                                      PF_b, grid_b)
            else:
                record_hand(r, totals, in_game, buys, balances, sc, w, s_kalooki[i], pen, cards, jokers)
            dealer = next_dealer(r, dealer, in_game, sc[C_OVER] != 0)
        if sc[C_WINNER] == me:
            wins += 1.0
        money += balances[me]
    return wins / games, money / games


@njit(cache=True)
def _record_hand_by_table(r, totals, in_game, buy_ins, balances, sc, winner, kalooki, penalties, cards_left,
                          jokers_left, PF, grid):
    """``sim.sheet.record_hand`` with each buy-in taken by the table ``PF`` on ``grid``: back in when the
    money expected after the stake is above 0 (``buy_in_gain``, as a bot buying in by the table
    decides), in turn from the winner's left."""
    offers = np.empty(r[R_N], dtype=np.int64)
    for k in range(settle_hand(r, totals, in_game, balances, sc, winner, kalooki, penalties, cards_left, jokers_left,
                               offers)):
        s = offers[k]
        if may_buy_in(buy_ins[s] < r[R_MAX_BUY_INS], in_game) and _reentry_gain(
                PF, grid, r, totals, in_game, np.maximum(r[R_MAX_BUY_INS] - buy_ins, 0), sc[C_POOL], s) > 0:
            re_enter(totals, in_game, s)
            pay_buy_in(r, buy_ins, balances, sc, s)
    close_hand(r, totals, in_game, balances, sc, winner)


@njit(cache=True)
def _play_grid(r, grid, states, pools, start, by_class, s_winner, s_kalooki, s_pen, s_cards, s_jokers, u_hand, u_dealer,
               p_out, f_out, PF_b, grid_b, by_table):
    """``_play_on`` from every sheet of ``states`` (rows: seat 0's grid index and buy-ins used, then each
    other seat's grid index, -1 out, then each other seat's buy-ins used)."""
    n = r[R_N]
    totals = np.empty(n)
    in_game = np.empty(n, dtype=np.bool_)
    buys = np.empty(n, dtype=np.int64)
    for row in range(states.shape[0]):
        totals[0] = grid[states[row, 0]]
        in_game[0] = True
        buys[0] = states[row, 1]
        for j in range(1, n):
            gi = states[row, 1 + j]
            in_game[j] = gi >= 0
            totals[j] = grid[gi] if gi >= 0 else 0.0
            buys[j] = states[row, n + j]
        win, money = _play_on(r, totals, in_game, buys, pools[row], start, by_class, s_winner, s_kalooki, s_pen, s_cards,
                              s_jokers, u_hand, u_dealer, 0, True, PF_b, grid_b, by_table)
        p_out[row] = win
        f_out[row] = money - win * pools[row]  # the pool now enters the value as pool * P


def played_on_value(profile, samples: HandSamples, ledger, seat: int, rows: int, seed, buy_ins=None) -> float:
    """The seat's value of the sheet as a table's model makes it, without the grid: games played on from
    the sheet itself with hands drawn from ``samples``, as ``build_table`` plays each grid sheet (``rows``
    rows of uniforms from ``seed``, a seed or a ``numpy.random.SeedSequence``, each played with the sheet
    turned to every place round the seats in); the eliminated buy back in by the gain the table
    ``buy_ins`` gives, or by the pool rule where it is None.  In the units of ``sheet_value``: money from
    now on where the profile pays money in an elimination game, else the chance of winning the game.
    Beside ``sheet_value`` it shows what the grid adds: its Monte Carlo and its reading between points."""
    kind = KINDS[profile.game_end]
    if kind == KIND_SINGLE or ledger.over:
        raise ValueError("a single-hand game, or a game over, has no sheet to play on from")
    r = rules_vector(profile, ledger.n)
    totals = np.asarray(ledger.totals, dtype=np.float64)
    in_game = np.asarray(ledger.in_game if kind == KIND_ELIMINATION else [True] * ledger.n, dtype=np.bool_)
    if kind == KIND_ELIMINATION and not in_game[seat]:
        return 0.0
    if kind == KIND_ELIMINATION and count_in(in_game) == 1:
        return float(ledger.pool) if profile.pays_money else 1.0
    rng = np.random.default_rng(seed)
    u_hand = rng.random((rows, min(int(profile.hand_cap), 400)))
    u_dealer = rng.random(rows)
    by_table = buy_ins is not None and kind == KIND_ELIMINATION
    PF_b, grid_b = (buy_ins.pf, buy_ins.grid) if by_table else (np.zeros((1, 1, 1, 1, 2)), np.zeros(1))
    win, money = _play_on(r, totals, in_game, np.asarray(ledger.buy_ins, dtype=np.int64), float(ledger.pool),
                          *samples.played, u_hand, u_dealer, seat, True, PF_b, grid_b, by_table)
    return float(money) if kind == KIND_ELIMINATION and profile.pays_money else float(win)


# ---------------------------------------------------------------------------------------------
# the table

@dataclass
class EquityTable:
    """A profile's table.  Elimination and target games: ``P`` (chance of winning the game) and ``F``
    (money other than the pool now) of seat 0 with shape ``(K, B + 1, OB + 1, (K + 1) ** (n - 1))``:
    own total's grid index, own buy-ins left, the others' buy-ins left summed over those in, the
    others' grid indices as a mixed-radix number (index K: out), symmetric in the others.  Single-hand
    games: the stakes rows of a fresh sheet in ``rows``.  ``meta``: how it was made."""
    kind: int
    n: int
    grid: np.ndarray  # float64 (K,)
    P: np.ndarray
    F: np.ndarray
    rules: np.ndarray  # rules_vector
    # float64 (NMAX + 1, 3) by players dealt in: a loser's mean penalty after a plain win, after a Kalooki;
    # the chance a won hand is won Kalooki
    typical: np.ndarray
    scale: float  # equity per penalty point on a fresh sheet (value units per point)
    rows: np.ndarray  # float64 (n, ST_W): single-hand games' stakes rows (points-equivalents)
    meta: dict = field(default_factory=dict)
    _pf: np.ndarray | None = field(default=None, repr=False)

    @property
    def pf(self) -> np.ndarray:
        """P and F side by side (last axis), as the compiled lookup reads them: one place in memory per
        grid sheet.  Made on first use; a table's P and F are not changed after that."""
        if self._pf is None:
            self._pf = np.ascontiguousarray(np.stack([self.P, self.F], axis=-1))
        return self._pf

    @property
    def K(self) -> int:
        return len(self.grid)

    @property
    def max_buy_ins(self) -> int:
        return self.P.shape[1] - 1

    @property
    def units(self) -> str:
        return "chance of winning the game" if self.kind == KIND_TARGET else "stake units expected from now on"


def table_change(new: EquityTable, old: EquityTable) -> dict:
    """How far a table moved from another made the same way: elimination and target tables, the mean and
    largest absolute change in the chance of winning ``P`` over the grid's sheets; a single-hand table,
    in its stakes rows (points-equivalents)."""
    a, b = (new.rows, old.rows) if new.kind == KIND_SINGLE else (new.P, old.P)
    d = np.abs(a - b)
    return {"mean": float(d.mean()), "max": float(d.max()), "of": "rows" if new.kind == KIND_SINGLE else "P"}


def _radix_index(tup, base: int) -> int:
    return int(sum(int(v) * base ** j for j, v in enumerate(tup)))


def _canonical(K: int, m: int) -> np.ndarray:
    """For each mixed-radix tuple of m indices in 0..K, the index of the same tuple sorted."""
    base = K + 1
    out = np.empty(base ** m, dtype=np.int64)
    for flat in range(base ** m):
        tup = [(flat // base ** j) % base for j in range(m)]
        out[flat] = _radix_index(sorted(tup), base)
    return out


def _states(kind: int, n: int, K: int, B: int):
    """The grid's sheets for the Monte Carlo: (state rows for _play_grid, table indices, derived pools'
    buy-ins count).  The others' buy-ins left are spread over those in as evenly as may be, the larger
    shares to the higher totals."""
    m = n - 1
    rows, where, used = [], [], []
    values = range(K + 1) if kind == KIND_ELIMINATION else range(K)
    for tup in combinations_with_replacement(values, m):  # sorted: the outs (index K) last
        k_in = sum(1 for v in tup if v < K)
        if kind == KIND_ELIMINATION and k_in == 0:
            continue  # the game is over: seat 0 has won
        for ob in range((B * k_in) + 1 if kind == KIND_ELIMINATION else 1):
            share = [ob // k_in + (1 if j >= k_in - ob % k_in else 0) for j in range(k_in)] if k_in else []
            others_used = [B - share[j] if j < k_in else 0 for j in range(m)]
            for i in range(K):
                for bl in range(B + 1):
                    rows.append([i, B - bl] + [v if v < K else -1 for v in tup] + others_used)
                    where.append((i, bl, ob, _radix_index(tup, K + 1)))
                    used.append((B - bl) + sum(others_used))
    return np.array(rows, dtype=np.int64), where, np.array(used, dtype=np.int64)


def _typical(samples: HandSamples) -> np.ndarray:
    out = np.zeros((NMAX + 1, 3))
    for k in range(2, NMAX + 1):
        lo, hi = samples.start[k], samples.start[k + 1]
        if hi <= lo:
            continue
        won = samples.winner[lo:hi] >= 0
        kal = samples.kalooki[lo:hi] & won
        for col, mask in ((0, won & ~kal), (1, kal)):
            pens = [samples.penalty[lo + i, q] for i in np.flatnonzero(mask) for q in range(k)
                    if q != samples.winner[lo + i]]
            out[k, col] = float(np.mean(pens)) if pens else 0.0
        out[k, 1] = out[k, 1] if kal.any() else out[k, 0]
        out[k, 2] = kal.sum() / max(1, won.sum())
    return out


def build_table(profile, n_players: int, samples: HandSamples, seed: int, games_per_sheet: int = 256,
                meta: dict | None = None, progress=None, buy_ins: EquityTable | None = None) -> EquityTable:
    """The table of ``profile`` at ``n_players`` from the sample hands, ``games_per_sheet`` games played
    on from every grid sheet, all on the uniforms of (seed, profile).  The players eliminated in those
    games buy back in by the pool rule, or by the gain the table ``buy_ins`` gives (the pass before's,
    where the bot whose hands these are buys in by the table)."""
    kind = KINDS[profile.game_end]
    for k in (hands_wanted(profile, n_players, 1) if kind == KIND_ELIMINATION else [n_players]):
        if samples.count(k) == 0:
            raise ValueError(f"no sample hand was dealt to {k} players")
    typical = _typical(samples)
    r = rules_vector(profile, n_players)
    meta = dict(meta or {})
    if kind == KIND_SINGLE:
        grid = np.zeros(1)
        table = EquityTable(kind, n_players, grid, np.zeros((1, 1, 1, 1)), np.zeros((1, 1, 1, 1)), r, typical,
                            1.0, np.zeros((n_players, ST_W)), meta)
        table.rows, table.scale, meta["single_hand"] = _single_hand_rows(profile, n_players, samples)
        return table
    K = GRID_POINTS[kind]
    B = profile.max_buy_ins if (kind == KIND_ELIMINATION and profile.stake_buy_in >= 0) else 0
    top = profile.eliminate_above if kind == KIND_ELIMINATION else profile.target_score - 1
    grid = np.linspace(0.0, float(top), K)
    states, where, used = _states(kind, n_players, K, B)
    pools = (n_players * profile.stake_initial + profile.stake_buy_in * used).astype(np.float64) \
        if kind == KIND_ELIMINATION else np.zeros(len(states))
    rng = np.random.default_rng(np.random.SeedSequence(int(seed), spawn_key=(zlib.crc32(profile.name.encode()), 1)))
    horizon = min(int(profile.hand_cap), 400)
    rows = -(-games_per_sheet // n_players)  # each row of uniforms played with the sheet at every turn
    games_per_sheet = rows * n_players
    u_hand = rng.random((rows, horizon))
    u_dealer = rng.random(rows)
    p_raw = np.empty(len(states))
    f_raw = np.empty(len(states))
    by_table = buy_ins is not None and kind == KIND_ELIMINATION
    PF_b, grid_b = (buy_ins.pf, buy_ins.grid) if by_table else (np.zeros((1, 1, 1, 1, 2)), np.zeros(1))
    step = max(1, len(states) // 50)
    for lo in range(0, len(states), step):
        hi = min(lo + step, len(states))
        _play_grid(r, grid, states[lo:hi], pools[lo:hi], *samples.played, u_hand, u_dealer, p_raw[lo:hi], f_raw[lo:hi],
                   PF_b, grid_b, by_table)
        if progress:
            progress(hi - lo)
    m = n_players - 1
    shape = (K, B + 1, B * m + 1, (K + 1) ** m)
    P = np.zeros(shape)
    F = np.zeros(shape)
    filled = np.zeros(shape, dtype=bool)
    for (i, bl, ob, flat), pv, fv in zip(where, p_raw, f_raw):
        P[i, bl, ob, flat], F[i, bl, ob, flat], filled[i, bl, ob, flat] = pv, fv, True
    if kind == KIND_ELIMINATION:  # every other seat out: seat 0 has won, and the pool is its
        P[:, :, 0, _radix_index([K] * m, K + 1)] = 1.0
        filled[:, :, 0, _radix_index([K] * m, K + 1)] = True
    canon = _canonical(K, m)
    P, F = P[..., canon], F[..., canon]
    filled = filled[..., canon]
    raw_P = P.copy()
    P = _monotone(P, K, m, kind, filled)
    meta["monotone_change"] = {"P_max": float(np.abs(P - raw_P)[filled].max()),
                               "P_mean": float(np.abs(P - raw_P)[filled].mean())}
    if kind == KIND_ELIMINATION and profile.pays_money:
        # the value at the pool the sheet's buy-ins make (constant along every axis made monotone; a real
        # sheet's pool is at least that) made monotone, and F what is left of it beside pool * P
        pool_ref = _reference_pools(profile, n_players, K, B)
        raw_V = pool_ref * raw_P + F
        V = _monotone(raw_V, K, m, kind, filled)
        F = V - pool_ref * P
        meta["monotone_change"].update(V_max=float(np.abs(V - raw_V)[filled].max()),
                                       V_mean=float(np.abs(V - raw_V)[filled].mean()))
    else:  # no money: the value is the chance of winning the game (read with pool 1)
        F = np.zeros_like(F)
    meta["sheets"] = int(len(states))
    meta["games_per_sheet"] = int(games_per_sheet)
    table = EquityTable(kind, n_players, grid, P, F, r, typical, 1.0, np.zeros((n_players, ST_W)), meta)
    table.scale = _fresh_scale(profile, table, samples)
    return table


def _reference_pools(profile, n: int, K: int, B: int) -> np.ndarray:
    """For every entry of a table, the pool its sheet's buy-ins make: every stake, and a buy-in for
    each one used by the seat and by the others in (none by those out); broadcastable to the table."""
    m = n - 1
    base = K + 1
    k_in = np.array([sum(1 for j in range(m) if (flat // base ** j) % base < K) for flat in range(base ** m)])
    bl = np.arange(B + 1)[:, None, None]
    ob = np.arange(B * m + 1)[None, :, None]
    used = (B - bl) + (B * k_in[None, None, :] - ob)
    return (n * profile.stake_initial + profile.stake_buy_in * np.maximum(used, 0))[None].astype(np.float64)


def _monotone(V, K: int, m: int, kind: int, filled) -> np.ndarray:
    """The table made monotone where the rules make it so: in a penalty game non-increasing in the own
    total where the seat has no buy-in left, and non-decreasing in each other total where no seat has one
    left; in a target game the reverse, everywhere.  Along each axis in
    turn, the mean of the lowest monotone curve above the values and the highest below (each keeps the
    axes already done monotone, and so does their mean); then the mean over the orders of the others,
    which keeps it monotone and makes it symmetric again.  Sheets not on the grid keep their values."""
    base = K + 1
    full = V.reshape(V.shape[:3] + (base,) * m)
    sign_own = -1.0 if kind == KIND_ELIMINATION else 1.0

    def envelope(a, axis, sign):
        a = np.moveaxis(a, axis, -1).copy()
        live = a[..., :K] * sign  # made non-decreasing, then signed back
        up = np.maximum.accumulate(live, axis=-1)
        down = np.minimum.accumulate(live[..., ::-1], axis=-1)[..., ::-1]
        a[..., :K] = sign * (up + down) / 2
        return np.moveaxis(a, -1, axis)

    # where the rules make it so: a buy-in re-enters at the highest total of those in, so with one left a
    # seat near elimination can stand better than one further from it, and an opponent near elimination
    # be worth more to it
    bl = np.arange(V.shape[1])[:, None]
    ob = np.arange(V.shape[2])[None, :]
    own_axis = np.repeat(bl == 0, V.shape[2], axis=1)
    others_axes = (bl == 0) & (ob == 0)
    shape = (1,) + own_axis.shape + (1,) * m
    if kind != KIND_ELIMINATION:  # no buy-ins: every axis
        own_axis[:] = True
        others_axes[:] = True
    out = np.where(own_axis.reshape(shape), envelope(full, 0, sign_own), full)
    for j in range(m):
        out = np.where(others_axes.reshape(shape), envelope(out, 3 + j, -sign_own), out)
    perms = list(permutations(range(m)))
    out = sum(np.transpose(out, (0, 1, 2) + tuple(3 + q for q in p)) for p in perms) / len(perms)
    out = out.reshape(V.shape)
    return np.where(filled, out, V)


# ---------------------------------------------------------------------------------------------
# the lookup (compiled)

@njit(cache=True)
def _cell(grid, t):
    """(lower grid index, weight of the upper) of total t, clamped to the grid."""
    K = grid.shape[0]
    if t <= grid[0]:
        return 0, 0.0
    if t >= grid[K - 1]:
        return K - 2, 1.0
    step = grid[1] - grid[0]
    i = min(int((t - grid[0]) / step), K - 2)
    return i, (t - grid[i]) / step


@njit(cache=True)
def _lookup(PF, fw, grid, totals, counted, seat, bl, ob, pool):
    """The value (``pool * P + fw * F``, from ``PF``: P and F side by side) to ``seat`` at its total, ``bl`` buy-ins left, the others' buy-ins
    left ``ob`` and the totals of the others ``counted`` (those in), multilinear between grid points.
    Allocates nothing: it runs a few hundred times a hand."""
    K = grid.shape[0]
    base = K + 1
    n = totals.shape[0]
    bl = min(max(bl, 0), PF.shape[1] - 1)
    ob = min(max(ob, 0), PF.shape[2] - 1)
    i0, w0 = _cell(grid, totals[seat])
    m = 0
    for s in range(n):
        if s != seat and counted[s]:
            m += 1
    out_part = 0
    power = 1
    for j in range(n - 1):
        if j >= m:
            out_part += K * power  # the others out: index K, after those in
        power *= base
    total = 0.0
    for corner in range(1 << (m + 1)):
        w = w0 if corner & 1 else 1.0 - w0
        if w == 0.0:
            continue
        i = i0 + (corner & 1)
        flat = out_part
        j = 0
        power = 1
        for s in range(n):
            if s == seat or not counted[s]:
                continue
            c, wt = _cell(grid, totals[s])
            up = (corner >> (j + 1)) & 1
            w *= wt if up else 1.0 - wt
            flat += (c + up) * power
            power *= base
            j += 1
        if w == 0.0:
            continue
        total += w * (pool * PF[i, bl, ob, flat, 0] + fw * PF[i, bl, ob, flat, 1])
    return total


@njit(cache=True)
def _seat_value(PF, fw, grid, r, totals, in_game, buys_left, pool, seat):
    """A seat's value of a sheet: its expected money from now on (elimination) or chance of winning
    (target); a seat out of an elimination game has none to come."""
    n = totals.shape[0]
    elimination = r[R_KIND] == KIND_ELIMINATION
    if elimination:
        if not in_game[seat]:
            return 0.0
        if count_in(in_game) == 1:
            return pool
    elif r[R_KIND] == KIND_TARGET:
        pool = 1.0  # the value is the chance of winning (F is 0)
        if totals[seat] >= r[R_TARGET]:
            return 1.0
        for s in range(n):
            if s != seat and totals[s] >= r[R_TARGET]:
                return 0.0
    ob = 0
    for s in range(n):
        if s != seat and (in_game[s] or not elimination):
            ob += buys_left[s]
    if elimination:
        return _lookup(PF, fw, grid, totals, in_game, seat, buys_left[seat], ob, pool)
    return _lookup(PF, fw, grid, totals, np.ones(n, dtype=np.bool_), seat, buys_left[seat], ob, pool)


@njit(cache=True)
def _after_others(r, totals, in_game, buys_left, pool, skip_a, skip_b, add):
    """The others (all but ``skip_a`` and ``skip_b``) take ``add`` penalty points each; those pushed out
    buy back in by the pool rule (sim.game's order aside).  Changes the arrays in place, returns the pool."""
    n = totals.shape[0]
    if r[R_KIND] != KIND_ELIMINATION:
        return pool
    for s in range(n):
        if in_game[s] and s != skip_a and s != skip_b:
            totals[s] += add
    for s in range(n):
        if in_game[s] and s != skip_a and s != skip_b and totals[s] > r[R_ELIMINATE]:
            in_game[s] = False
            if buy_in_step(r, totals, in_game, buys_left[s] > 0, pool, s, DECIDE_POOL_RULE):
                pool += r[R_BUY_IN]
                buys_left[s] -= 1
    return pool


@njit(cache=True)
def _reentry_gain(PF, grid, r, totals, in_game, buys_left, pool, seat):
    """``buy_in_gain`` of a seat just eliminated (out in ``in_game``, a buy-in left): its value back in at
    the highest total of those in, the stake paid into ``pool``, minus the stake."""
    t = totals.copy()
    inn = in_game.copy()
    b = buys_left.copy()
    buy_in_step(r, t, inn, True, pool, seat, DECIDE_ALWAYS)
    b[seat] -= 1
    return _seat_value(PF, 1.0, grid, r, t, inn, b, pool + r[R_BUY_IN], seat) - r[R_BUY_IN]


@njit(cache=True)
def _own_reentry(PF, grid, r, totals, in_game, buys_left, pool, seat):
    """The seat's value just eliminated: back in at the highest total of those in for the stake, when
    that gains (``buy_in_gain`` > 0), else nothing more."""
    if r[R_KIND] != KIND_ELIMINATION or not may_buy_in(buys_left[seat] > 0, in_game):  # the seat itself is out
        return 0.0
    return max(_reentry_gain(PF, grid, r, totals, in_game, buys_left, pool, seat), 0.0)


@njit(cache=True)
def _stakes(PF, grid, r, typical, scale, totals, in_game, buys_left, pool, out):
    """``hand_stakes``' rows of the seats in (the rows of the others are left as they are)."""
    n = totals.shape[0]
    kind = r[R_KIND]
    K = grid.shape[0]
    n_in = n
    if kind == KIND_ELIMINATION:
        n_in = count_in(in_game)
    typ_plain = typical[n_in, 0]
    typ_kal = typical[n_in, 1]
    q_kal = typical[n_in, 2]
    lose_stake = 0.0
    if kind == KIND_ELIMINATION:
        lose_stake = (1.0 - q_kal) * r[R_CALL] + q_kal * r[R_KALOOKI]
    profile_v = np.empty(K)
    for seat in range(n):
        if kind == KIND_ELIMINATION and not in_game[seat]:
            continue
        now = _seat_value(PF, 1.0, grid, r, totals, in_game, buys_left, pool, seat)
        for st in range(2):  # the seat goes out, plainly or Kalooki
            t = totals.copy()
            inn = in_game.copy()
            b = buys_left.copy()
            add = typ_kal if st == 1 else typ_plain
            paid = 0.0
            if kind == KIND_ELIMINATION:
                paid = (n_in - 1) * (r[R_KALOOKI] if st == 1 else r[R_CALL])
                pl = _after_others(r, t, inn, b, pool, seat, seat, add)
            else:
                t[seat] += add * (n - 1)
                pl = pool
            out[seat, ST_WIN + st] = paid + _seat_value(PF, 1.0, grid, r, t, inn, b, pl, seat) - now
        curve = np.zeros(ST_XMAX + 1)
        others = 0
        for w in range(n):
            if w == seat or (kind == KIND_ELIMINATION and not in_game[w]):
                continue
            others += 1
            t = totals.copy()
            inn = in_game.copy()
            b = buys_left.copy()
            if kind == KIND_ELIMINATION:
                pl = _after_others(r, t, inn, b, pool, seat, w, typ_plain)
                # the seat's value over its own total, others fixed: the grid, then the elimination
                first, _ = _cell(grid, totals[seat])  # the curve reads its own total and above
                for k in range(first, K):
                    t[seat] = grid[k]
                    profile_v[k] = _seat_value(PF, 1.0, grid, r, t, inn, b, pl, seat)
                inn[seat] = False
                out_value = _own_reentry(PF, grid, r, t, inn, b, pl, seat)
                inn[seat] = True
                for x in range(ST_XMAX + 1):
                    tx = totals[seat] + x
                    if tx > r[R_ELIMINATE]:
                        v = out_value
                    else:
                        i, wt = _cell(grid, tx)
                        v = (1.0 - wt) * profile_v[i] + wt * profile_v[i + 1]
                    curve[x] += v - lose_stake
            else:
                for s in range(n):
                    if s != seat and s != w:
                        t[w] += typ_plain
                base_w = t[w]
                # the seat's value over the winner's total, the rest fixed
                first, _ = _cell(grid, base_w)  # the curve reads the winner's total and above
                for k in range(first, K):
                    t[w] = grid[k]
                    profile_v[k] = _seat_value(PF, 1.0, grid, r, t, inn, b, pool, seat)
                for x in range(ST_XMAX + 1):
                    tw = base_w + x
                    if tw >= r[R_TARGET]:
                        v = 0.0
                    else:
                        i, wt = _cell(grid, tw)
                        v = (1.0 - wt) * profile_v[i] + wt * profile_v[i + 1]
                    curve[x] += v
        for x in range(ST_XMAX + 1):
            v = curve[x] / max(others, 1) - now
            if x > 0:
                v = min(v, out[seat, ST_CURVE + x - 1])  # non-increasing (the seat's own buy-in rule)
            out[seat, ST_CURVE + x] = v
        out[seat, ST_WIN] = max(out[seat, ST_WIN], out[seat, ST_CURVE])
        if r[R_KALOOKI] >= r[R_CALL]:
            out[seat, ST_KALOOKI] = max(out[seat, ST_KALOOKI], out[seat, ST_WIN])
        for c in range(ST_W):
            out[seat, c] /= scale


def _sheet_arrays(ledger):
    n = ledger.n
    max_b = ledger.p.max_buy_ins
    totals = np.asarray(ledger.totals, dtype=np.float64)
    in_game = np.asarray(ledger.in_game, dtype=np.bool_)
    left = np.asarray([max(0, max_b - b) for b in ledger.buy_ins], dtype=np.int64)
    pool = float(ledger.pool) if ledger.p.pays_money else 1.0  # no money: the value is the chance of winning
    return totals, in_game, left, pool, n


def _fresh_scale(profile, table: EquityTable, samples: HandSamples) -> float:
    """The value of a penalty point on a fresh sheet: the least-squares slope through 0 of the fall in
    seat 0's curve below its value at 0 points, the points weighted as losers take them with every
    player in."""
    n = table.n
    totals = np.zeros(n)
    in_game = np.ones(n, dtype=np.bool_)
    left = np.full(n, table.max_buy_ins, dtype=np.int64)
    pool = 0.0
    if table.kind == KIND_ELIMINATION:
        pool = float(n * profile.stake_initial) if profile.pays_money else 1.0
    out = np.zeros((n, ST_W))
    _stakes(table.pf, table.grid, table.rules, table.typical, 1.0, totals, in_game, left, pool, out)
    lo, hi = samples.start[n], samples.start[n + 1]
    pens = [samples.penalty[i, q] for i in range(lo, hi) if samples.winner[i] >= 0 for q in range(n)
            if q != samples.winner[i]]
    weight = np.bincount(np.minimum(np.array(pens, dtype=np.int64), ST_XMAX), minlength=ST_XMAX + 1).astype(float)
    x = np.arange(ST_XMAX + 1, dtype=float)
    fall = out[0, ST_CURVE] - out[0, ST_CURVE:]
    slope = float(np.sum(weight * fall * x) / np.sum(weight * x * x))
    return slope if slope > 0 else 1.0


def _single_hand_rows(profile, n: int, samples: HandSamples):
    """A single-hand game's stakes on its one sheet: the mean payment received going out plainly and
    Kalooki, and the mean paid at each penalty (pooled over neighbouring penalties until 40 hands lie
    in the window, then made non-decreasing), less the mean (0: seats averaged over who deals); divided by
    the least-squares slope of the paid curve."""
    lo, hi = samples.start[n], samples.start[n + 1]
    got = {0: [], 1: []}
    pens, paid = [], []
    mult_k = 2 if profile.pay_double_on_kalooki else 1
    for i in range(lo, hi):
        w = samples.winner[i]
        if w < 0:
            continue
        kal = bool(samples.kalooki[i])
        mult = mult_k if kal else 1
        total = 0
        for q in range(n):
            if q == w:
                continue
            j = samples.jokers_left[i, q]
            amount = mult * (profile.pay_per_card * (samples.cards_left[i, q] - j) + profile.pay_per_joker * j)
            total += amount
            pens.append(min(int(samples.penalty[i, q]), ST_XMAX))
            paid.append(amount)
        got[int(kal)].append(total)
    pens, paid = np.array(pens), np.array(paid, dtype=float)
    curve = np.empty(ST_XMAX + 1)
    for x in range(ST_XMAX + 1):
        width = 0
        while True:
            sel = np.abs(pens - x) <= width
            if sel.sum() >= 40 or width > ST_XMAX:
                break
            width += 1
        curve[x] = paid[sel].mean() if sel.any() else 0.0
    curve = np.maximum.accumulate(curve)
    xs = np.arange(ST_XMAX + 1, dtype=float)
    weight = np.bincount(pens, minlength=ST_XMAX + 1).astype(float)
    fall = curve - curve[0]
    scale = float(np.sum(weight * fall * xs) / np.sum(weight * xs * xs))
    scale = scale if scale > 0 else 1.0
    win = float(np.mean(got[0])) if got[0] else 0.0
    kal = float(np.mean(got[1])) if got[1] else win * mult_k
    row = np.empty(ST_W)
    row[ST_WIN], row[ST_KALOOKI] = win, max(kal, win)
    row[ST_CURVE:] = -curve
    rows = np.tile(row / scale, (n, 1))
    info = {"win_plain_mean": win, "win_kalooki_mean": kal,
            "paid_at": {str(x): float(curve[x]) for x in (0, 25, 50, 100, 150, 200, 250)}}
    return rows, scale, info


# ---------------------------------------------------------------------------------------------
# files

def shipped_path(profile_name: str, n_players: int):
    return config_file("equity", f"{profile_name}-{n_players}p.npz")


def save(table: EquityTable, path) -> None:
    """Written to ``path`` (a .npz); the others' symmetric copies are dropped (made again on reading)."""
    K, m = table.K, table.n - 1
    keep = np.zeros(table.P.shape[3], dtype=bool)
    if table.kind != KIND_SINGLE:
        canon = _canonical(K, m)
        keep[np.unique(canon)] = True
    P = np.where(keep, table.P, 0.0).astype(np.float32)
    F = np.where(keep, table.F, 0.0).astype(np.float32)
    with open(path, "wb") as fh:
        np.savez_compressed(fh, version=np.int64(TABLE_VERSION), kind=np.int64(table.kind), n=np.int64(table.n),
                            grid=table.grid, P=P, F=F, rules=table.rules, typical=table.typical,
                            scale=np.float64(table.scale), rows=table.rows,
                            meta=np.array(json.dumps(table.meta, sort_keys=True)))


def read(path) -> EquityTable:
    """A table from a .npz written by ``save`` (ValueError if it is not one)."""
    try:
        with np.load(path, allow_pickle=False) as z:
            version = int(z["version"])
            if version != TABLE_VERSION:
                raise ValueError(f"{getattr(path, 'name', path)}: an equity table of version {version}; this "
                                 f"build reads version {TABLE_VERSION}: make it again with `kalooki equity build`")
            kind, n = int(z["kind"]), int(z["n"])
            grid = z["grid"].astype(np.float64)
            P, F = z["P"].astype(np.float64), z["F"].astype(np.float64)
            table = EquityTable(kind, n, grid, P, F, z["rules"].astype(np.int64), z["typical"].astype(np.float64),
                                float(z["scale"]), np.ascontiguousarray(z["rows"], dtype=np.float64),
                                json.loads(str(z["meta"])))
    except FileNotFoundError:
        raise ValueError(f"{getattr(path, 'name', path)}: no such file") from None
    except ValueError as e:
        if "an equity table of version" in str(e):
            raise
        raise ValueError(f"{getattr(path, 'name', path)}: not an equity table written by `kalooki equity build`") \
            from None
    except (OSError, KeyError, EOFError, zlib.error, zipfile.BadZipFile):
        raise ValueError(f"{getattr(path, 'name', path)}: not an equity table written by `kalooki equity build`") \
            from None
    if kind != KIND_SINGLE:
        canon = _canonical(len(grid), n - 1)
        table.P = np.ascontiguousarray(P[..., canon])
        table.F = np.ascontiguousarray(F[..., canon])
    return table


@lru_cache(maxsize=None)
def _load_shipped(name: str, rules_hash: str, n_players: int):
    path = shipped_path(name, n_players)
    if not path.is_file():
        return None
    with path.open("rb") as fh:
        table = read(fh)
    if table.meta.get("rules_hash") != rules_hash:
        return None
    return table


@lru_cache(maxsize=8)
def read_file(path: str) -> EquityTable:
    """``read``, once per path in a process (a bot playing by its own table reads it once, not per game)."""
    return read(path)


def mismatch(table: EquityTable, profile, n_players: int) -> str | None:
    """Why ``table`` is not a table for ``profile``'s rules at ``n_players`` players (None where it is):
    a table's values hold for the rules and the number of players its games were played with."""
    if table.meta.get("rules_hash") != profile.rules_hash():
        made = table.meta.get("profile")
        rules = (f"other rules of profile {made!r} than these" if made == profile.name else
                 f"the rules of profile {made!r}, not of {profile.name!r}")
        return f"it was made for {rules} (made by: {table.meta.get('command')})"
    if table.n != n_players:
        return f"it was made for {table.n} players, not {n_players}"
    return None


def load_table(profile, n_players: int | None = None) -> EquityTable | None:
    """The shipped table for the profile's name and rules at ``n_players`` (default: the profile's
    players), or None (no such table, or one made for other rules).  Cached."""
    return _load_shipped(profile.name, profile.rules_hash(), int(n_players or profile.players))


# ---------------------------------------------------------------------------------------------
# the stakes interface

def neutral_stakes(n_players: int, profile=None) -> np.ndarray:
    """The hand's own points: going out 0, taking x points -x (what the bots weigh without a sheet)."""
    out = np.zeros((n_players, ST_W))
    out[:, ST_CURVE:] = -np.arange(ST_XMAX + 1, dtype=np.float64)
    return out


_BY_PROFILE: dict = {}  # id(profile) -> (profile, n, table): the shipped table found once per profile object


def _table_for(profile, ledger, table):
    if table is None:
        known = _BY_PROFILE.get(id(profile))
        if known is None or known[0] is not profile or known[1] != ledger.n:
            known = (profile, ledger.n, load_table(profile, ledger.n))
            if len(_BY_PROFILE) > 64:  # it holds its profiles (so no id is reused while held): kept small
                _BY_PROFILE.clear()
            _BY_PROFILE[id(profile)] = known
        table = known[2]
    if table is None or table.n != ledger.n:
        return None
    return table


def has_table(profile, ledger) -> bool:
    """Whether ``sheet_value``, ``hand_stakes`` and ``buy_in_gain`` read a table for this game: the shipped
    one for its profile and players, or, inside ``stakes_from``, the table a build's pass plays by."""
    return _table_for(profile, ledger, None) is not None


def sheet_value(profile, ledger, seat: int, table: EquityTable | None = None) -> float | None:
    """The seat's value of the sheet as it stands at the start of a hand (``EquityTable.units``); None
    without a table.  Single-hand games: 0 (seats averaged over who deals)."""
    table = _table_for(profile, ledger, table)
    if table is None:
        return None
    if table.kind == KIND_SINGLE:
        return 0.0
    totals, in_game, left, pool, _ = _sheet_arrays(ledger)
    return float(_seat_value(table.pf, 1.0, table.grid, table.rules, totals, in_game, left, pool, seat))


def sheet_chance(profile, ledger, seat: int, table: EquityTable | None = None) -> float | None:
    """The seat's chance of winning the game from the sheet as it stands (None without a table, or in a
    single-hand game)."""
    table = _table_for(profile, ledger, table)
    if table is None or table.kind == KIND_SINGLE:
        return None
    totals, in_game, left, _, _ = _sheet_arrays(ledger)
    return float(_seat_value(table.pf, 0.0, table.grid, table.rules, totals, in_game, left, 1.0, seat))


def hand_stakes(profile, ledger, table: EquityTable | None = None) -> np.ndarray:
    """(n, ST_W), C-contiguous: for each seat at the start of a hand the change in its game value for each
    outcome of the hand, in points-equivalents (the change divided by ``table.scale``, the value of a
    penalty point on a fresh sheet).  Seats out of the game, other player counts and profiles without a
    table: the neutral rows."""
    out = neutral_stakes(ledger.n)
    table = _table_for(profile, ledger, table)
    if table is None or ledger.over:
        return out
    if table.kind == KIND_SINGLE:
        return np.ascontiguousarray(table.rows.copy())
    totals, in_game, left, pool, _ = _sheet_arrays(ledger)
    _stakes(table.pf, table.grid, table.rules, table.typical, table.scale, totals, in_game, left, pool, out)
    return out


def buy_in_gain(profile, ledger, seat: int, table: EquityTable | None = None) -> float:
    """Money expected from buying back in now (the stake paid, back in at the highest total of those in)
    minus money expected from leaving (0: out of the game nothing more is paid or won): ``_reentry_gain``,
    as the games played on inside the table decide.  0.0 where the profile has no buy-ins or no table;
    minus the stake where fewer than two others are in (no buy-in is offered then)."""
    if profile.game_end != "elimination" or profile.max_buy_ins <= 0:
        return 0.0
    table = _table_for(profile, ledger, table)
    if table is None or table.kind != KIND_ELIMINATION:
        return 0.0
    totals, in_game, left, pool, _ = _sheet_arrays(ledger)
    in_game[seat] = False
    return float(_reentry_gain(table.pf, table.grid, table.rules, totals, in_game, left, pool, seat))


drop_stale(_play_on, (sheet,))
