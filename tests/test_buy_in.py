"""The search bot's buy-in: the rest of the game played on from a copy of the score sheet."""
import dataclasses

import numpy as np
import pytest

from sim import profiles
from sim.bots import make_bot
from sim.engine import HandResult
from sim.game import GameRecord, Ledger, next_dealer, play_on

K40 = profiles.load("kalooki40")  # elimination above 150, stakes 5 in, 1 a hand, 2 a Kalooki, 5 a buy-in


def _eliminating_hand(totals, pool=None):
    """Three players with ``totals``; seat 1 wins the next hand and seat 0, with 20 more, goes out."""
    lg = Ledger(K40, 3)
    lg.totals = list(totals)
    if pool is not None:
        lg.pool = lg.pool_collected = pool
    lg.dealer = 2
    return lg, HandResult(winner=1, win_type="call", penalties=[20, 0, 5], cards_left=[4, 0, 2],
                          jokers_left=[0, 0, 0])


def _offer(totals, bot, pool=None, again=True):
    """Record the hand, asking ``bot`` at seat 0; returns (its answer, its mean gain, the ledger); the
    search's gain is estimated ``again`` from the same point of its stream."""
    lg, result = _eliminating_hand(totals, pool)
    seen = {}

    def decide(s, ledger):
        assert s == 0
        state = (list(ledger.balances), list(ledger.totals), ledger.pool, list(ledger.in_game))
        seen["answer"] = bot.buy_in(ledger, s)
        if bot.name == "search" and again:  # the same estimate again: the bot's stream stands where it stood
            bot.pos -= 1
            seen["gain"] = bot.buy_in_gain(ledger, s)
            assert seen["answer"] == (seen["gain"] > 0)
        # weighing the buy-in plays copies on: the sheet itself is as it was
        assert (list(ledger.balances), list(ledger.totals), ledger.pool, list(ledger.in_game)) == state
        return seen["answer"]

    lg.record_hand(result, decide)
    return seen["answer"], seen.get("gain"), lg


def test_search_buys_in_level_with_the_field_where_the_expert_declines():
    # back in at 5 against 0 and 5, pool 20 after the stake: about a third of the pool (more after
    # later buy-ins) for 5 paid; the expert gives a re-entrant 3/4 of an equal share: 20 * 0.25 = 5, not above 5
    expert, _, _ = _offer([140, 0, 0], make_bot("expert", np.random.default_rng(1)))
    assert expert is False
    answer, gain, lg = _offer([140, 0, 0], make_bot("search", np.random.default_rng(2), {"samples": 400, "buy_in": 1}),
                              again=False)
    assert answer is True
    assert lg.in_game == [True, True, True] and lg.buy_ins == [1, 0, 0] and lg.totals[0] == 5
    assert lg.pool == 20 and lg.sheet[-1].bought_in == [True, False, False]


def test_search_declines_a_buy_in_one_penalty_from_elimination_where_the_expert_buys():
    # back in at 150 (out again at any penalty) against a player at 0: the pool of 45 is seldom won
    expert, _, _ = _offer([140, 0, 145], make_bot("expert", np.random.default_rng(1)), pool=40)
    assert expert is True  # 45 * 0.25 > 5
    for seed in (3, 4):  # at the default budget
        answer, gain, lg = _offer([140, 0, 145], make_bot("search", np.random.default_rng(seed), {"buy_in": 1}),
                                  pool=40)
        assert answer is False and gain < -2
        assert lg.in_game == [False, True, True] and lg.out_order == [0] and lg.buy_ins == [0, 0, 0]
    rule = make_bot("search", np.random.default_rng(3))  # the default: the expert's rule
    answer, _, lg = _offer([140, 0, 145], rule, pool=40, again=False)
    assert answer is True and lg.buy_ins == [1, 0, 0] and len(rule.stream) == 0  # the expert's rule, no games


def test_a_buy_in_setting_a_bot_has_no_rule_for_is_refused():
    from sim.errors import UserError
    with pytest.raises(UserError, match=r"search.buy_in = 3: expected 0 \(the pool rule\), 1 \(play the game on .*\) or 2"):
        make_bot("search", np.random.default_rng(0), {"buy_in": 3})
    for name in ("expert", "lookahead", "expert@0.3"):  # only the search plays the game on
        with pytest.raises(UserError, match=r"buy_in = 1: expected 0 \(the pool rule\) or 2 \(the table of game values"):
            make_bot(name, np.random.default_rng(0), {"buy_in": 1})


def test_search_buys_in_for_nothing_where_no_money_changes_hands():
    free = dataclasses.replace(K40, stake_initial=0, stake_call=0, stake_kalooki=0, stake_buy_in=0)
    lg = Ledger(free, 3)
    lg.totals = [140, 0, 145]
    lg.dealer = 2
    bot = make_bot("search", np.random.default_rng(4), {"buy_in": 1})
    lg.record_hand(HandResult(winner=1, win_type="call", penalties=[20, 0, 5], cards_left=[4, 0, 2],
                              jokers_left=[0, 0, 0]), lambda s, ledger: bot.buy_in(ledger, s))
    assert lg.buy_ins == [1, 0, 0] and len(bot.stream) == 0  # decided without playing anything on


def test_a_copied_sheet_played_on_leaves_the_original_as_it_was():
    lg, result = _eliminating_hand([140, 0, 0])
    lg.record_hand(result, lambda s, ledger: True)
    before = {k: (list(v) if isinstance(v, list) else v) for k, v in lg.__dict__.items()}
    copy = lg.copy()
    rng = np.random.default_rng(5)
    bots = [make_bot("greedy", rng) for _ in range(3)]
    play_on(GameRecord(ledger=copy), K40, bots, rng, next_dealer(K40, copy))
    assert copy.over and copy.hands_played > lg.hands_played and len(copy.sheet) == copy.hands_played - 1
    assert sum(copy.balances) + copy.pool == 0  # payments and the pool still sum to zero
    after = {k: (list(v) if isinstance(v, list) else v) for k, v in lg.__dict__.items()}
    assert after == before


@pytest.mark.parametrize("seed", [11, 12])
def test_games_with_search_seats_replay_identically(seed):
    from sim.game import play_game

    def play():
        bots = [make_bot(b, np.random.default_rng([seed, i])) for i, b in enumerate(["search", "expert", "expert"])]
        g = play_game(K40, bots, np.random.default_rng(seed))
        return [(r.winner, r.totals, r.balances, r.bought_in) for r in g.ledger.sheet]

    assert play() == play()


@pytest.mark.parametrize("gain, buys", [(3.5, True), (-0.5, False)])
def test_the_expert_and_the_lookahead_buy_in_by_the_table_of_game_values(monkeypatch, gain, buys):
    import sys
    import types
    import sim
    asked = []
    fake = types.ModuleType("sim.equity")
    fake.has_table = lambda profile, ledger: True
    fake.buy_in_gain = lambda profile, ledger, seat, table=None: asked.append((seat, ledger.n)) or gain
    monkeypatch.setitem(sys.modules, "sim.equity", fake)
    monkeypatch.setattr(sim, "equity", fake, raising=False)
    lg, _ = _eliminating_hand([140, 60, 30], pool=200)  # a pool the pool rule would buy in for
    assert make_bot("expert", np.random.default_rng(0)).buy_in(lg, 0) is buys
    assert make_bot("lookahead", np.random.default_rng(0)).buy_in(lg, 0) is buys
    assert make_bot("search", np.random.default_rng(0), {"buy_in": 2}).buy_in(lg, 0) is buys  # the expert's rule
    assert asked == [(0, 3)] * 3
    # the pool rule, table or not: the search by default
    assert make_bot("search", np.random.default_rng(0)).buy_in(lg, 0) is True
    assert len(asked) == 3
    # each the other way by its setting
    assert make_bot("expert", np.random.default_rng(0), {"buy_in": 0}).buy_in(lg, 0) is True
    assert make_bot("lookahead", np.random.default_rng(0), {"buy_in": 0}).buy_in(lg, 0) is True
    assert len(asked) == 3
    fake.has_table = lambda profile, ledger: False  # no table for these rules: the pool rule
    for name in ("expert", "lookahead"):
        assert make_bot(name, np.random.default_rng(0)).buy_in(lg, 0) is True
    assert make_bot("search", np.random.default_rng(0), {"buy_in": 2}).buy_in(lg, 0) is True
    assert len(asked) == 3


def test_the_pool_rule_declines_a_buy_in_the_pool_is_not_worth():
    lg, _ = _eliminating_hand([140, 60, 30], pool=0)  # kalooki40, which has a table of game values
    assert make_bot("search", np.random.default_rng(0)).buy_in(lg, 0) is False
    assert make_bot("expert", np.random.default_rng(0), {"buy_in": 0}).buy_in(lg, 0) is False


@pytest.mark.parametrize("totals, used, by_table", [([160, 140, 30, 20], 1, False), ([160, 100, 100, 100], 0, True)])
def test_a_buy_in_by_the_table_in_a_build_reads_the_pass_before_and_never_a_shipped_table(monkeypatch, totals, used,
                                                                                           by_table):
    """Inside a build's pass (``stakes_from``) a bot buying in by the table (the expert, the lookahead)
    reads that pass's table, and with none (pass 1's neutral stakes) the pool rule: what
    `kalooki equity build` makes does not depend on configs/equity. The two sheets are
    ones where the table and the pool rule answer differently."""
    from sim import equity as EQ, sheet
    table = EQ.read(EQ.shipped_path("kalooki40", 4))

    def no_shipped(*args):
        raise AssertionError(f"a shipped table was read: {args}")
    monkeypatch.setattr(EQ, "_load_shipped", no_shipped)
    monkeypatch.setattr(EQ, "_BY_PROFILE", {})
    lg = Ledger(K40, 4)
    lg.totals, lg.buy_ins, lg.in_game = list(totals), [used, 0, 0, 0], [False, True, True, True]
    lg.pool = lg.pool_collected = 4 * K40.stake_initial + used * K40.stake_buy_in
    bots = [make_bot("lookahead", np.random.default_rng(0)),
            make_bot("expert", np.random.default_rng(0))]
    assert (EQ.buy_in_gain(K40, lg, 0, table) > 0) is by_table
    assert sheet.pool_rule_buys(float(lg.pool), 3, K40.stake_buy_in) is not by_table
    for bot in bots:
        with EQ.stakes_from(K40, table):
            assert bot.buy_in(lg, 0) is by_table, bot.name
        with EQ.stakes_from(K40, None):
            assert bot.buy_in(lg, 0) is not by_table, bot.name
