"""The game level (docs/RULES.md 6-8): the score sheet, elimination, buy-ins, the pool, targets."""
from sim import profiles
from sim.engine import HandResult
from sim.game import Ledger

K40 = profiles.load("kalooki40")


def hand(winner, win_type, penalties, n=4):
    return HandResult(winner=winner, win_type=win_type, penalties=list(penalties), cards_left=[0] * n,
                      jokers_left=[0] * n)


def always(seat, ledger):
    return True


def test_seeds_worked_example_on_the_score_sheet():
    # players 1..4 are seats 0..3; stakes 5 / 1 / 2 / 5
    lg = Ledger(K40, 4)
    assert lg.pool == 20 and lg.balances == [-5, -5, -5, -5]
    r1 = lg.record_hand(hand(2, "call", [40, 60, 0, 30]), always)  # hand 1: player 3 wins by a call
    assert r1.payments == [-6, -6, 3 - 5, -6] and r1.balances == [-6, -6, -2, -6]
    lg.record_hand(hand(0, "call", [0, 50, 20, 45]), always)  # hand 2
    r3 = lg.record_hand(hand(2, "kalooki", [30, 35, 0, 25]), always)  # hand 3: player 3 goes Kalooki, each pays 2
    assert r3.payments == [-2, -2, 6, -2]
    assert r3.totals == [70, 145, 20, 100]
    r4 = lg.record_hand(hand(0, "call", [0, 20, 10, 40]), always)  # hand 4: player 2 eliminated, buys in with 5
    assert r4.eliminated == [False, True, False, False] and r4.bought_in == [False, True, False, False]
    assert r4.totals[1] == 140  # reset to the highest total among the players still in
    assert r4.pool == 25 and r4.payments == [3, -1 - 5, -1, -1]
    r5 = lg.record_hand(hand(2, "call", [90, 20, 0, 15]), always)  # hand 5: three players over 150
    assert r5.eliminated == [True, True, False, True] and r5.bought_in == [False] * 4
    assert lg.over and lg.winner == 2 and lg.pool == 0
    assert lg.balances == [-3, -16, 30, -11] and sum(lg.balances) == 0
    assert lg.finish_ranks()[2] == 1
    for row in lg.sheet:  # payments always sum to zero with the pool
        assert sum(row.balances) + row.pool == 0


def test_buy_ins_limited_and_refused_when_declined():
    p = K40.replace(max_buy_ins=1)
    lg = Ledger(p, 3)
    lg.record_hand(hand(0, "call", [0, 151, 10], 3), always)
    assert lg.buy_ins == [0, 1, 0] and lg.in_game == [True, True, True]
    lg.record_hand(hand(0, "call", [0, 200, 10], 3), always)
    assert lg.buy_ins == [0, 1, 0] and lg.in_game == [True, False, True]  # no second buy-in allowed
    lg2 = Ledger(K40, 3)
    lg2.record_hand(hand(0, "call", [0, 151, 10], 3), lambda s, l: False)
    assert lg2.in_game == [True, False, True] and lg2.buy_ins == [0, 0, 0]


def test_several_eliminated_decide_from_left_of_the_winner():
    asked = []

    def decider(seat, ledger):
        asked.append(seat)
        return True

    lg = Ledger(K40, 4)
    lg.record_hand(hand(2, "call", [160, 10, 0, 155]), decider)
    assert asked == [3, 0]
    # both declining: they leave the game in the reverse of the turn they were asked in (`out_order`)
    lg = Ledger(K40, 4)
    lg.record_hand(hand(2, "call", [160, 10, 0, 155]), lambda seat, ledger: False)
    assert lg.out_order == [0, 3] and lg.sheet[-1].eliminated == [True, False, False, True]
    # three of four out: fewer than two players are left in, so nobody may buy in and the game ends
    asked.clear()
    lg = Ledger(K40, 4)
    lg.record_hand(hand(2, "call", [160, 170, 0, 155]), decider)
    assert asked == [] and lg.over and lg.winner == 2


def test_swedish_eliminated_at_101():
    sw = profiles.load("swedish")
    lg = Ledger(sw, 3)
    lg.record_hand(hand(0, "call", [0, 100, 101], 3), lambda s, l: False)
    assert lg.in_game == [True, True, False]


def test_north_american_game_reaches_500():
    na = profiles.load("kalooki51")
    lg = Ledger(na, 3)
    assert lg.pool == 0
    for _ in range(4):
        lg.record_hand(hand(1, "call", [60, 0, 60], 3))
    assert not lg.over and lg.totals[1] == 480
    lg.record_hand(hand(1, "call", [10, 0, 15], 3))
    assert lg.over and lg.winner == 1 and lg.totals[1] == 505 and lg.balances == [0, 0, 0]


def test_east_coast_single_hand_payments_doubled_on_kalooki():
    ec = profiles.load("east_coast")
    lg = Ledger(ec, 3)
    r = HandResult(winner=0, win_type="call", penalties=[0, 30, 40], cards_left=[0, 3, 4], jokers_left=[0, 1, 0])
    lg.record_hand(r)
    assert lg.over and lg.balances == [2 + 2 + 4, -(2 + 2), -4]
    lg2 = Ledger(ec, 3)
    r.win_type = "kalooki"
    lg2.record_hand(r)
    assert lg2.balances == [16, -8, -8]


def test_a_profile_pays_money_exactly_where_the_sheet_moves_money():
    # Profile.pays_money (read by the search's buy-ins, `play`'s sheet and `tournament`) against the
    # ledger: every shipped profile and variants without stakes, with only a buy-in stake, without buy-ins
    variants = [profiles.load(n) for n in profiles.available()]
    variants += [K40.replace(stake_initial=0, stake_call=0, stake_kalooki=0, stake_buy_in=0),
                 K40.replace(stake_initial=0, stake_call=0, stake_kalooki=0),
                 K40.replace(stake_initial=0, stake_call=0, stake_kalooki=0, max_buy_ins=0),
                 profiles.load("kalooki51").replace(stake_call=3)]
    seen = set()
    for p in variants:
        lg = Ledger(p, 4)
        # three losers go over the line, then a fourth hand: stakes, buy-ins and the pool all move
        for w in range(4):
            lost = [0 if s == w else 1 for s in range(4)]
            lg.record_hand(HandResult(winner=w, win_type="kalooki" if w == 3 else "call",
                                      penalties=[x * (p.eliminate_above // 2 + 1) for x in lost],
                                      cards_left=[3 * x for x in lost], jokers_left=lost), always)
            if lg.over:
                break
        moved = any(lg.balances) or lg.pool > 0
        assert p.pays_money == moved, p
        seen.add(moved)
    assert seen == {True, False}
