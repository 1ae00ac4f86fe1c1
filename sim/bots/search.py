"""The search bot."""
from __future__ import annotations

import numpy as np

from ..engine import DRAW_DISCARD, DRAW_STOCK, Play
from . import search_core as SC
from .kinds import K_LOOKAHEAD
from .expert import BUY_PLAY_ON, BUY_POOL, BUY_TABLE
from .lookahead import LookaheadBot

STREAM_BLOCK = 4096  # uniforms drawn from the bot's generator at a time


class SearchBot(LookaheadBot):
    """Search: the lookahead, with its free draws, its table play and its discards chosen by playing
    the hand forward.

    At a free draw (the discard is there to take and nothing obliges it to open or meld with it, and,
    where the lookahead would draw from the stock, it is a joker, meets a card held or, taken, leaves
    less deadwood, melds with the hand it joins, and no stock card would let it go out), at every discard it chooses among loose cards and at every turn whose play lays
    something, it deals ``samples`` hands of the cards it cannot see, consistent with what it has
    seen (its hand, the table, the discard pile, the cards each opponent took from the pile and has
    not thrown since, each hand's size), and plays each candidate forward on every deal, its own seat
    played by its ``rollout`` bot and the others by its ``others`` bot (each ``greedy``, ``expert``
    or ``lookahead``), to the end of the hand or ``horizon`` turns (0: the end).  A rollout scores
    ``win_points`` plus what going out is worth on the score sheet when it wins the hand, minus what
    the penalty held costs on the sheet when another player goes out, minus what its least deadwood
    costs when the hand is cut short (its row of stakes, ``sim.game.hand_stakes``; a hand without a
    game scores the points; in a ``single_hand`` game, the money it receives or pays,
    ``sim.bots.search_core``); the candidate with the best total is played when it beats the
    lookahead's own choice by more than ``margin`` points a deal, else the lookahead's.  Its discard
    candidates are the lookahead's choice and the other loose cards the expert ranks next, never a
    card of a pair or two-card run while an isolated card as dear is loose (what an isolated card
    feeds the next player is weighed by the lookahead's own choice), ``candidates`` in all; where the
    lookahead's play lays something, ``hold`` adds laying nothing this turn (with the lookahead's discard for the whole hand): opening now against waiting, a meld or
    lay-off against keeping the cards, and, where a Kalooki pays more, a plain going out against
    holding for one; where the lookahead waits for a Kalooki though it could open, it adds opening
    now.  Where the lookahead's play lays several things and does not go out, ``partial`` adds
    laying part of it: its melds without its lay-offs onto the table, and, before opening, only the
    fewest of its melds that open.  It buys back in by the pool rule, or with ``buy_in = 2`` as the
    expert and the lookahead do (by the table of game values), or with ``buy_in = 1`` weighs a buy-in by
    playing the rest of the game on.  Everything else (the draws it must make) is
    the lookahead's.

    Every deal comes from its own stream of uniforms (one per decision that searches, seeding a
    compiled generator), so the Python engine and the compiled hand loop (``sim.bots.hand_loop``)
    play the same turns; the compiled search is ``sim.bots.search_core``.
    """

    name = "search"
    hand_loop = "sim.bots.hand_loop"
    core_kind = K_LOOKAHEAD  # its first table play and its candidates' order are the lookahead's
    buy_in_rules = (BUY_POOL, BUY_PLAY_ON, BUY_TABLE)

    def __init__(self, rng=None, samples=16, candidates=3, horizon=5, rollout="expert", others="greedy", win_points=50,
                 margin=0, hold=1, buy_in=BUY_POOL, partial=1, partial_weight=15, **params):
        super().__init__(rng, buy_in=buy_in, partial_weight=partial_weight, **params)
        from ..errors import UserError
        for pname, value in (("rollout", rollout), ("others", others)):
            if value not in SC.ROLLOUT_KINDS:
                raise UserError(f"search.{pname} = {value!r}: expected one of {', '.join(SC.ROLLOUT_KINDS)}")
        for pname, value, least in (("samples", samples, 1), ("candidates", candidates, 1), ("horizon", horizon, 0)):
            if value < least:
                raise UserError(f"search.{pname} = {value}: must be at least {least}")
        if hold not in (0, 1):
            raise UserError(f"search.hold = {hold}: expected 1 (also play forward laying nothing) or 0")
        if partial not in (0, 1):
            raise UserError(f"search.partial = {partial}: expected 1 (also play forward laying part of the play) or 0")
        self.samples, self.candidates, self.horizon, self.win_points = samples, candidates, horizon, win_points
        self.rollout, self.margin, self.hold = rollout, margin, hold
        self.partial = partial
        self.rollout_kind = SC.ROLLOUT_KINDS[rollout]
        self.others, self.others_kind = others, SC.ROLLOUT_KINDS[others]
        self.stream = np.empty(0, np.float64)
        self.pos = 0
        self._choice = None

    def ensure(self, k: int) -> None:
        """At least k uniforms ahead in the stream (more blocks drawn from the generator)."""
        while len(self.stream) - self.pos < k:
            self.stream = np.concatenate([self.stream[self.pos:], self.rng.random(STREAM_BLOCK)])
            self.pos = 0

    def draw(self, state, me) -> int:
        self.ensure(1)
        src, self.pos = SC.decide_draw(state, me, SC.bot_params(self), self.stream, self.pos)
        if src == SC.OWN_DRAW:
            return super().draw(state, me)
        return DRAW_DISCARD if src == SC.DISCARD else DRAW_STOCK

    def play(self, state, me) -> Play:
        self._choice = None
        play = super().play(state, me)  # the lookahead's; _choose_discard notes a discard to search
        chose = self._choice is not None
        if not chose and not play.ops:
            return play
        hand, default = self._choice if chose else (state.hands[me], play.discard)
        self._choice = None
        self.ensure(1)
        disc, ops, self.pos = SC.decide_play(state, me, play.ops, hand, default, chose, SC.bot_params(self),
                                             self.stream, self.pos)
        return Play(ops, disc)

    def buy_in(self, ledger, seat) -> bool:
        """With ``buy_in = 0`` (the default), the pool rule.  With ``buy_in = 2``, the expert's
        rule: the table of game values where the profile has one (``sim.equity.buy_in_gain``),
        else the pool rule.  With ``buy_in = 1``, buy back in when the money it expects from the rest of
        the game, stake paid, is above 0 (``buy_in_gain``); where no money changes hands a buy-in costs
        nothing and can only keep its chance of winning the game, so it buys in.

        The table values a buy-in for an expert among experts (the players its games were made by), not
        for the search: against three experts, on the same deals, the table's rule wins fewer of
        kalooki40's games for money not shown to differ (docs/PERFORMANCE.md, Buy-ins).  Sixteen games
        played on tell a buy-in's worth only roughly: against the pool rule they too won fewer games
        for money not shown to differ.  So the pool rule is the default."""
        if self.buy_in_rule != BUY_PLAY_ON:
            return super().buy_in(ledger, seat)
        if not ledger.p.pays_money:
            return True
        return self.buy_in_gain(ledger, seat) > 0

    def buy_in_gain(self, ledger, seat) -> float:
        """The mean change in its balance, in stake units, over ``samples`` games played on bought in.

        Out of the game its money is settled, so staying out is worth exactly 0.  Each game is played on
        from the sheet as it stands (``sim.game.play_on``), the stake paid, every other seat played by its
        ``rollout`` bot and its own by the lookahead (the strongest bot quick enough to play whole games
        for it: judged by the rollout bot's play, its chances after a buy-in would be underrated), each
        game from its own stream seeded by one uniform of the bot's; later buy-ins are those bots'."""
        from ..game import GameRecord, next_dealer, play_on
        from .registry import make_bot
        p = ledger.p
        self.ensure(1)
        root = np.random.SeedSequence(int(self.stream[self.pos] * 2 ** 53))
        self.pos += 1
        before = ledger.balances[seat]
        gain = 0
        for child in root.spawn(self.samples):
            rng = np.random.default_rng(child)
            bots = [make_bot("lookahead" if s == seat else self.rollout, rng) for s in range(ledger.n)]
            lg = ledger.copy()
            lg.re_enter(seat)
            lg.finish_hand(lambda s, other: bots[s].buy_in(other, s))
            if not lg.over:
                play_on(GameRecord(ledger=lg), p, bots, rng, next_dealer(p, lg))
            gain += lg.balances[seat] - before
        return gain / self.samples

    def _choose_discard(self, state, me, hand, forbid, table) -> int:
        default = super()._choose_discard(state, me, hand, forbid, table)
        self._choice = (np.asarray(hand, dtype=np.int8).copy(), default)
        return default
