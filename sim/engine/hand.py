"""A hand's compiled record and the steps of a hand that are not a player's turn, compiled, written once
(sim.engine).

A compiled hand is one record, ``Hand``: a named tuple of every array a hand changes as it is played
(the hands, the counters, the result, the stock, the pile, the table, who opened, turns, pickups and
discards, and ``sc``, the words of where it stands, ``SC_*``), made by ``new_hand`` and copied by
``copy_hand``, beside ``HandInputs``, the arrays it reads and never writes (the profile's vectors, the
reshuffle and draw keys); numba passes each to compiled code as one argument.  Its counters are per
player ``S_*`` (a row of ``stats``), its result words ``H_*`` (how it ended, where it stands, and the
status of a hand the loop could not play).  The steps: ``renew_stock`` (an exhausted stock renewed from the discard pile, ordered by the
keys drawn at the deal, or the hand void), ``draw_stock`` (the card a stock draw takes: the top one,
or on a seat-keyed stock the drawer's highest key), ``commit_counters`` (a validated turn's
counters), ``end_turn`` (whether a turn ends the hand: its player out, or the turn cap) and
``invariants`` (every card of the pack once, no negative count, every table meld valid).
``HandState`` (sim.engine.state) holds one ``Hand`` (made by ``empty_hand`` at its deal) and plays it
with these steps; the compiled hand loop plays that same ``Hand`` in place, and every rollout of the
search bot a copy, through ``sim.bots.turn_loop.run_turns``, which renews, draws, commits and checks
with the same functions.

The stock here is an array in drawing order (``stock[sp:ns]``, the top at ``sp``) with each card's
place in the shuffled pack beside it (``ids``, read on a seat-keyed stock); the discard pile is
``discard[:nd]``, bottom first; the table is ``tab[:nt]``, meld rows (sim.engine.core).
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from ..cards import N_KINDS
from ..jit.cache import drop_stale
from . import core
from . import turn as T

# per-player counters (a row of stats): the opening (whether, the player's round, its value, the value of
# lay-offs counted in it, whether it used the taken discard), melds laid, cards laid off, jokers taken,
# turns taken
(S_OPENED, S_OPEN_ROUND, S_OPEN_VALUE, S_OPEN_WITH_DISCARD, S_MELDS, S_LAYOFFS, S_JOKERS_TAKEN, S_TURNS,
 S_OPEN_LAYOFF_VALUE) = range(9)
S_W = 9
# a hand's result words
(H_STATUS, H_RESHUFFLES, H_WINNER, H_WIN_TYPE, H_VOID, H_STALLED, H_TURN_NO, H_CURRENT, H_DRAWN_CARD,
 H_DRAWN_FROM, H_ERR_SEAT) = range(11)
H_W = 16
WIN_NONE, WIN_CALL, WIN_KALOOKI = 0, 1, 2

# statuses (result[H_STATUS], with the seat in result[H_ERR_SEAT]): 0 = the hand was played;
# otherwise why not: STATUS_TURN + the engine's code (sim.engine.turn.U_*) for a play the rules refuse
STATUS_TURN = 20
STATUS_INVARIANT = 12
STATUS_RULES = {9: "table or operation buffer full", STATUS_INVARIANT: "an invariant broke",
                13: "a random bot's stream ran out (the Python engine plays the hand)"}

# invariants' answers: OK, or what broke
INV_NEGATIVE, INV_MELD, INV_CARDS = 1, 2, 3

# where a hand stands (words of Hand.sc): the stock's pointer and size (stock[sp:ns]), the pile's and the
# table's sizes, the turn number, the reshuffles so far, the seat to play; the words from SC_OWN on are
# the compiled loop's own (a turn stopped between its draw and its discard, sim.bots.turn_loop)
SC_SP, SC_NS, SC_ND, SC_NT, SC_TURN_NO, SC_RESHUFFLES, SC_CUR = range(7)
SC_OWN = 7
SC_W = 13

# A compiled hand: every array a hand changes as it is played, changed in place.  hands (n x 53 int8
# counts), stats (n x S_W), res (H_W), stock and ids (the stock in drawing order and each card's place
# in the shuffled pack, stock[sp:ns]), discard (the pile, discard[:nd], bottom first), tab (table meld
# rows, tab[:nt]), opened and turns (per player), pick and discby (n x 53: the cards each player took
# from and threw to the pile), sc (where the hand stands: SC_* words).  numba passes it to compiled
# functions as one argument; ``new_hand`` makes one, ``copy_hand`` copies one (a rollout's).
Hand = namedtuple("Hand", ("hands", "stats", "res", "stock", "ids", "discard", "tab", "opened", "turns", "pick",
                           "discby", "sc"))
# A compiled hand's fixed inputs, read and never written while it is played: prm, rp, values and crules
# (the profile's arrays, sim.engine.core.compiled: its params, rules, hand_values and rules), jokers (the
# pack's), keys (the hand's reshuffle keys), draw_keys and draw_seats (a seat-keyed stock: the keys of
# each seat before and after a reshuffle, the game seat of each position; draw_keys of size 0 draws
# from the top).
HandInputs = namedtuple("HandInputs", ("prm", "rp", "values", "crules", "jokers", "keys", "draw_keys",
                                       "draw_seats"))


@njit(cache=True)
def renew_stock(rules, keys, reshuffles, discard, nd, stock, ids):
    """An exhausted stock at the start of a turn: renewed (``sim.engine.turn.stock_renewed``), the pile
    ``discard[:nd]`` ordered by the hand's ``keys`` (``reshuffle_order``) gives its first card to a
    new pile of one (``discard[0]``) and the others to the stock (``stock[:ns]``, drawing order, ``ids``
    their places from the new stock's bottom).  Returns ns, or -1 where the hand is void."""
    if not T.stock_renewed(rules, reshuffles, nd):
        return -1
    pile = discard[:nd][T.reshuffle_order(keys, nd)]
    discard[0] = pile[0]
    ns = nd - 1
    stock[:ns] = pile[1:]
    for j in range(ns):
        ids[j] = ns - 1 - j
    return ns


@njit(cache=True)
def draw_stock(keys, stock, ids, sp, ns):
    """The card a stock draw takes from ``stock[sp:ns]``: the top one, or, where the drawer's seat has
    keys (``keys.size > 0``: a seat-keyed stock), the one whose place has its highest key, first
    brought to the top, the others keeping their order.  The caller moves sp past it."""
    if keys.size > 0:
        best = T.keyed_draw(keys, ids, sp, ns)
        c = stock[best]
        t = ids[best]
        for k in range(best, sp, -1):
            stock[k] = stock[k - 1]
            ids[k] = ids[k - 1]
        stock[sp] = c
        ids[sp] = t
    return stock[sp]


@njit(cache=True)
def commit_counters(stats, me, tres, turns_before):
    """Player ``me``'s counters after a validated turn (``tres``: ``sim.engine.turn.apply_turn``'s T_*
    words), played in its round ``turns_before`` + 1; returns whether the turn goes out."""
    if tres[T.T_OPENING] != 0:
        stats[me, S_OPENED] = 1
        stats[me, S_OPEN_ROUND] = turns_before + 1
        stats[me, S_OPEN_VALUE] = tres[T.T_NEW_VALUE]
        stats[me, S_OPEN_LAYOFF_VALUE] = tres[T.T_LAYOFF_VALUE]
        stats[me, S_OPEN_WITH_DISCARD] = tres[T.T_WITH_TAKEN]
    stats[me, S_MELDS] += tres[T.T_MELDS]
    stats[me, S_LAYOFFS] += tres[T.T_LAYOFFS]
    stats[me, S_JOKERS_TAKEN] += tres[T.T_JOKERS]
    stats[me, S_TURNS] = turns_before + 1
    return tres[T.T_GOING_OUT] != 0


@njit(cache=True)
def end_turn(res, me, going_out, kalooki, turn_no, turn_cap):
    """After player ``me``'s validated turn, the hand's ``turn_no``-th: whether the hand ends, written to
    its result words ``res``: ``me`` went out (H_WINNER, and H_WIN_TYPE: WIN_KALOOKI or WIN_CALL), or
    ``turn_cap`` turns are played (H_STALLED).  A hand that goes on clears the card drawn (H_DRAWN_*)."""
    if going_out:
        res[H_WINNER] = me
        res[H_WIN_TYPE] = WIN_KALOOKI if kalooki else WIN_CALL
        return True
    res[H_DRAWN_CARD] = -1
    res[H_DRAWN_FROM] = -1
    if turn_no >= turn_cap:
        res[H_STALLED] = 1
        return True
    return False


@njit(cache=True)
def invariants(hands, tab, nt, stock, sp, ns, discard, nd, jokers, rules):
    """OK, or what broke (INV_*): a negative count in a hand, an invalid table meld, a card of the pack
    not exactly once in a hand, on the table, in the stock or in the discard pile (two of each
    natural, the pack's jokers)."""
    counts = np.zeros(N_KINDS, np.int64)
    for s in range(hands.shape[0]):
        for c in range(N_KINDS):
            if hands[s, c] < 0:
                return INV_NEGATIVE
            counts[c] += hands[s, c]
    for i in range(nt):
        if core.check_row(tab[i], rules) != core.OK:
            return INV_MELD
        for k in range(tab[i, 2]):
            counts[tab[i, core.CARDS + k]] += 1
    for j in range(sp, ns):
        counts[stock[j]] += 1
    for j in range(nd):
        counts[discard[j]] += 1
    for c in range(N_KINDS - 1):
        if counts[c] != 2:
            return INV_CARDS
    return core.OK if counts[N_KINDS - 1] == jokers else INV_CARDS


@njit(cache=True)
def set_position(sc, sp, ns, nd, nt, turn_no, reshuffles, cur):
    """Write where a hand stands into its scalar row ``sc``: the stock's pointer and size, the pile's and
    the table's sizes, the turn number, the reshuffles so far and the seat to play."""
    sc[SC_SP] = sp
    sc[SC_NS] = ns
    sc[SC_ND] = nd
    sc[SC_NT] = nt
    sc[SC_TURN_NO] = turn_no
    sc[SC_RESHUFFLES] = reshuffles
    sc[SC_CUR] = cur


@njit(cache=True)
def new_hand(hands0, stock0, ids0, discard0, table0, opened0, turns0, pick0, discby0, current, reshuffles, turn_no):
    """A compiled hand at the start of ``current``'s turn, from copies of what it holds: the hands, the
    stock in drawing order (ids0: its places, or size 0 where no draw reads them), the pile, the table's
    rows, opened, turns, pick, discby, the reshuffles so far and the turn number.  Its counters start
    at no opening and each player's turns so far, its result at no winner and nothing drawn."""
    n = hands0.shape[0]
    stats = np.zeros((n, S_W), np.int64)
    for s in range(n):
        stats[s, S_OPEN_ROUND] = -1
        stats[s, S_OPEN_VALUE] = -1
        stats[s, S_TURNS] = turns0[s]
    res = np.zeros(H_W, np.int64)
    res[H_WINNER] = -1
    res[H_DRAWN_CARD] = -1
    res[H_DRAWN_FROM] = -1
    ns = stock0.shape[0]
    nd = discard0.shape[0]
    deck = ns + nd + 8  # the stock and the pile never hold more between them than at the start
    stock = np.empty(deck, np.int64)
    stock[:ns] = stock0
    ids = np.zeros(deck, np.int64)
    if ids0.size > 0:
        ids[:ns] = ids0
    discard = np.empty(deck, np.int64)
    discard[:nd] = discard0
    tab = np.full((T.MAXT, core.ROW_W), -1, np.int64)
    nt = table0.shape[0]
    tab[:nt] = table0
    sc = np.zeros(SC_W, np.int64)
    set_position(sc, 0, ns, nd, nt, turn_no, reshuffles, current)
    return Hand(hands0.copy(), stats, res, stock, ids, discard, tab, opened0.copy(), turns0.copy(), pick0.copy(),
                discby0.copy(), sc)


_EMPTY: dict[tuple[int, int], Hand] = {}


def empty_hand(n: int, cap: int) -> Hand:
    """A compiled hand for ``n`` players with nothing dealt, whose stock and pile hold up to ``cap`` cards
    each: no opening (its ``S_OPEN_*`` words -1), no winner and nothing drawn, an empty table (rows of
    -1), where it stands all zero.  Each call gives new arrays (copies of one kept per shape)."""
    blank = _EMPTY.get((n, cap))
    if blank is None:
        stats = np.zeros((n, S_W), np.int64)
        stats[:, [S_OPEN_ROUND, S_OPEN_VALUE, S_OPEN_LAYOFF_VALUE]] = -1
        res = np.zeros(H_W, np.int64)
        res[[H_WINNER, H_DRAWN_CARD, H_DRAWN_FROM]] = -1
        blank = Hand(np.zeros((n, N_KINDS), np.int8), stats, res, np.zeros(cap, np.int64), np.zeros(cap, np.int64),
                     np.zeros(cap, np.int64), np.full((T.MAXT, core.ROW_W), -1, np.int64), np.zeros(n, np.int64),
                     np.zeros(n, np.int64), np.zeros((n, N_KINDS), np.int64), np.zeros((n, N_KINDS), np.int64),
                     np.zeros(SC_W, np.int64))
        if len(_EMPTY) >= 64:
            _EMPTY.clear()
        _EMPTY[(n, cap)] = blank
    return Hand(*[a.copy() for a in blank])


@njit(cache=True)
def copy_hand(h):
    """A copy of the compiled hand ``h`` that plays on without changing it (a rollout's)."""
    return Hand(h.hands.copy(), h.stats.copy(), h.res.copy(), h.stock.copy(), h.ids.copy(), h.discard.copy(),
                h.tab.copy(), h.opened.copy(), h.turns.copy(), h.pick.copy(), h.discby.copy(), h.sc.copy())


drop_stale(invariants, (core, T))
