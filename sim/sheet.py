"""The score sheet's rules, compiled and written once (docs/RULES.md 6-8).

A finished hand applied to a game's sheet: who pays whom (the hand stakes, a single-hand game's
payment by the cards left), the penalties, who is eliminated, who may buy back in and where they
re-enter, when the game ends and who takes the pool, and the hand cap.  The sheet travels as arrays:
``totals``, ``in_game``, ``balances`` (each seat's net payments) and the scalars ``sc`` (``C_*``: pool,
over, winner, hands played, stalled), with the profile's words in the rules vector ``r``
(``rules_vector``, ``R_*``).

Two callers apply these rules and nothing else does: ``sim.game.Ledger``, the sheet of a game played
(which asks each bot whether it buys back in, between ``settle_hand`` and ``close_hand``), and the
games played on by Monte Carlo in ``sim.equity`` (``record_hand``, which buys in by a rule fixed in
the rules vector: never, always, or the pool rule).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .jit import cache as numba_cache  # noqa: F401  (numba's cache, safe between processes)

KIND_ELIMINATION, KIND_TARGET, KIND_SINGLE = 0, 1, 2
KINDS = {"elimination": KIND_ELIMINATION, "target": KIND_TARGET, "single_hand": KIND_SINGLE}

# the rules vector: what the sheet's rules read of the profile, and how buy-ins are decided inside a model
R_KIND, R_N, R_CALL, R_KALOOKI, R_BUY_IN, R_ELIMINATE, R_MAX_BUY_INS, R_TARGET, R_CAP, R_PER_CARD, \
    R_PER_JOKER, R_DOUBLE, R_DECIDER = range(13)
R_WORDS = 13
DECIDE_NEVER, DECIDE_ALWAYS, DECIDE_POOL_RULE = 0, 1, 2
# the sheet's scalars beside its per-seat arrays
C_POOL, C_OVER, C_WINNER, C_HANDS, C_STALLED = range(5)
C_WORDS = 5


def rules_vector(profile, n_players: int, decider: int = DECIDE_POOL_RULE) -> np.ndarray:
    p = profile
    r = np.zeros(R_WORDS, dtype=np.int64)
    r[R_KIND] = KINDS[p.game_end]
    r[R_N] = n_players
    r[R_CALL], r[R_KALOOKI], r[R_BUY_IN] = p.stake_call, p.stake_kalooki, p.stake_buy_in
    r[R_ELIMINATE], r[R_MAX_BUY_INS] = p.eliminate_above, p.max_buy_ins
    r[R_TARGET], r[R_CAP] = p.target_score, p.hand_cap
    r[R_PER_CARD], r[R_PER_JOKER], r[R_DOUBLE] = p.pay_per_card, p.pay_per_joker, int(p.pay_double_on_kalooki)
    r[R_DECIDER] = decider
    return r


@njit(cache=True)
def loser_pays(naturals, jokers, kalooki, pay_per_card, pay_per_joker, double_on_kalooki):
    """What a loser of a ``single_hand`` game pays the winner: ``pay_per_card`` a natural and
    ``pay_per_joker`` a joker left in hand, doubled after a Kalooki under ``pay_double_on_kalooki``.
    The sheet and the search bot's rollouts (sim.bots.search_core) pay by this one rule."""
    mult = 2 if (kalooki and double_on_kalooki) else 1
    return mult * (pay_per_card * naturals + pay_per_joker * jokers)


@njit(cache=True)
def pool_rule_buys(pool, players_in, stake_buy_in):
    """The pool rule, a buy-in without a table of game values (sim.bots.expert.ExpertBot.buy_in): back in
    when the pool after the stake, at a little less than an equal share of the players then in (the
    re-entrant starts at the highest total), is worth more than the stake."""
    return (pool + stake_buy_in) * (0.75 / (players_in + 1)) > stake_buy_in


@njit(cache=True)
def count_in(in_game):
    k = 0
    for s in range(in_game.shape[0]):
        if in_game[s]:
            k += 1
    return k


@njit(cache=True)
def may_buy_in(has_buy_in, in_game):
    """Whether a player just eliminated may buy back in: a buy-in left and two players still in."""
    return has_buy_in and count_in(in_game) >= 2


@njit(cache=True)
def re_enter(totals, in_game, s):
    """A buy-in taken: ``s`` is back in at the highest total of those in (the caller pays the stake into
    the pool and counts the buy-in)."""
    top = -1
    for x in range(totals.shape[0]):
        if in_game[x] and (top < 0 or totals[x] > totals[top]):
            top = x
    totals[s] = totals[top]
    in_game[s] = True


@njit(cache=True)
def buy_in_step(r, totals, in_game, has_buy_in, pool, s, decider):
    """A player just eliminated (out in ``in_game``) is offered a buy-in (``may_buy_in``), taken as
    ``decider`` says (never, always, the pool rule on ``pool``).  Taken, the player re-enters
    (``re_enter``: ``totals`` and ``in_game`` change in place) and True is returned: the caller pays
    the stake into its pool and counts the buy-in."""
    if not may_buy_in(has_buy_in, in_game):
        return False
    if not (decider == DECIDE_ALWAYS or (decider == DECIDE_POOL_RULE
                                         and pool_rule_buys(pool, count_in(in_game), r[R_BUY_IN]))):
        return False
    re_enter(totals, in_game, s)
    return True


@njit(cache=True)
def end_game(sc, balances, winner):
    """The game is over: ``winner`` takes the pool."""
    sc[C_OVER] = 1
    sc[C_WINNER] = winner
    if sc[C_POOL] != 0:
        balances[winner] += sc[C_POOL]
        sc[C_POOL] = 0


@njit(cache=True)
def settle_hand(r, totals, in_game, balances, sc, winner, kalooki, penalties, cards_left, jokers_left,
                offers):
    """A finished hand's payments and penalties (``winner`` -1: a hand nobody won, which changes only
    the count of hands).  Elimination: each player in pays the winner the hand's stake (the Kalooki
    stake after a Kalooki) and takes his penalty; those above ``eliminate_above`` are out, written in
    ``offers`` (n long) in the order they are offered a buy-in, in turn from the winner's left.  Target:
    the winner scores the others' penalties and ends the game at the target.  Single hand: each loser
    pays by ``loser_pays`` and the game ends.  Everything changes in place; returns how many players
    the hand eliminated (the first entries of ``offers``)."""
    n = r[R_N]
    sc[C_HANDS] += 1
    if winner < 0:
        return 0
    kind = r[R_KIND]
    out = 0
    if kind == KIND_ELIMINATION:
        stake = r[R_KALOOKI] if kalooki else r[R_CALL]
        for s in range(n):
            if in_game[s] and s != winner:
                balances[s] -= stake
                balances[winner] += stake
                totals[s] += penalties[s]
        for k in range(n):
            s = (winner + 1 + k) % n
            if in_game[s] and totals[s] > r[R_ELIMINATE]:
                in_game[s] = False
                offers[out] = s
                out += 1
    elif kind == KIND_TARGET:
        got = 0.0
        for s in range(n):
            got += penalties[s]
        totals[winner] += got
        if totals[winner] >= r[R_TARGET]:
            end_game(sc, balances, winner)
    else:
        for s in range(n):
            if s != winner:
                amount = loser_pays(cards_left[s] - jokers_left[s], jokers_left[s], kalooki, r[R_PER_CARD],
                                    r[R_PER_JOKER], r[R_DOUBLE] != 0)
                balances[s] -= amount
                balances[winner] += amount
                totals[s] += penalties[s]
        end_game(sc, balances, winner)
    return out


@njit(cache=True)
def close_hand(r, totals, in_game, balances, sc, winner):
    """After the buy-ins: an elimination game with one player left (or none) ends, the last one in
    (else the hand's winner) taking the pool; a game still on at ``hand_cap`` hands is stalled and
    ends, won by the lowest total of those in (the highest score in a target game; the lower seat on
    a tie)."""
    n = r[R_N]
    kind = r[R_KIND]
    if winner >= 0 and kind == KIND_ELIMINATION and count_in(in_game) <= 1:
        last = winner
        for s in range(n):
            if in_game[s]:
                last = s
        end_game(sc, balances, last)
    if sc[C_OVER] == 0 and sc[C_HANDS] >= r[R_CAP]:
        sc[C_STALLED] = 1
        best = -1
        for s in range(n):
            if kind == KIND_TARGET:
                if best < 0 or totals[s] > totals[best]:
                    best = s
            elif in_game[s] and (best < 0 or totals[s] < totals[best]):
                best = s
        end_game(sc, balances, best)


@njit(cache=True)
def pay_buy_in(r, buy_ins, balances, sc, s):
    """A player back in (``buy_in_step``) pays the buy-in's stake into the pool; ``buy_ins`` counts it."""
    balances[s] -= r[R_BUY_IN]
    sc[C_POOL] += r[R_BUY_IN]
    buy_ins[s] += 1


@njit(cache=True)
def record_hand(r, totals, in_game, buy_ins, balances, sc, winner, kalooki, penalties, cards_left, jokers_left):
    """One finished hand applied to a sheet whose buy-ins follow ``r[R_DECIDER]`` (never, always, the
    pool rule): ``settle_hand``, the buy-ins offered in the turn it gives (``buy_in_step``;
    ``buy_ins`` counts those used, the stakes go into the pool), then ``close_hand``."""
    offers = np.empty(r[R_N], dtype=np.int64)
    for k in range(settle_hand(r, totals, in_game, balances, sc, winner, kalooki, penalties, cards_left, jokers_left,
                               offers)):
        s = offers[k]
        if buy_in_step(r, totals, in_game, buy_ins[s] < r[R_MAX_BUY_INS], sc[C_POOL], s, r[R_DECIDER]):
            pay_buy_in(r, buy_ins, balances, sc, s)
    close_hand(r, totals, in_game, balances, sc, winner)


@njit(cache=True)
def next_dealer(r, dealer, in_game, over):
    """The deal passes clockwise from ``dealer`` to the next seat still in (any next seat outside an
    elimination game, or once the game is over)."""
    n = r[R_N]
    nxt = (dealer + 1) % n
    while r[R_KIND] == KIND_ELIMINATION and not in_game[nxt] and not over:
        nxt = (nxt + 1) % n
    return nxt
