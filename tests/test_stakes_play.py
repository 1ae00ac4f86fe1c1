"""Stakes-aware play: every hand of a game comes with each seat's row of stakes (what going out and
each penalty taken are worth on the score sheet), the expert, lookahead and search weigh their
choices by it, and a hand without a game (or a neutral row) plays by the hand's own points.  The
draw counts the stock cards that go out (``kalooki play --profile british --seed 8146 --bots
expert,expert,expert,expert``: seat 2 kept 6H against run 7H-QH and took 2S)."""
import numpy as np
import pytest

from sim import meldsearch as MS
from sim import profiles
from sim.bots import expert_core as XC
from sim.bots import search_core as SC
from sim.bots.outlook import NEUTRAL, holding_cost, stakes_ints
from sim.bots.registry import make_bot
from sim.cards import card_str, parse_card as C
from sim.engine import DRAW_DISCARD, DRAW_STOCK, HandState, core
from sim.engine import loop as LOOP
from sim.engine.hand import H_W, H_WIN_TYPE, H_WINNER, WIN_CALL, WIN_KALOOKI
from sim.engine.loop import play_hand
from sim.equity import ST_CURVE, ST_KALOOKI, ST_W, ST_WIN, ST_XMAX, neutral_stakes
from sim.game import hand_stakes, play_game

from test_table_play import R

K40 = profiles.load("kalooki40")
MELDED = "4S 5S 6S 9D 9C 9H "  # a run and a group: every other card of these hands is loose


def cliff(n, at, jump=100.0, win=0.0):
    """Rows whose curve is the points up to ``at`` and ``jump`` more above it (a seat ``at`` points
    from elimination), a go-out worth ``win``."""
    rows = neutral_stakes(n)
    rows[:, ST_CURVE + at + 1:] -= jump
    rows[:, ST_WIN] = rows[:, ST_KALOOKI] = win
    return rows


def test_neutral_rows_are_the_hands_own_points():
    rows = neutral_stakes(3)
    assert rows.shape == (3, ST_W) and rows.dtype == np.float64
    assert rows[:, ST_WIN].tolist() == rows[:, ST_KALOOKI].tolist() == [0.0] * 3
    assert rows[1, ST_CURVE + 37] == -37.0
    srow = stakes_ints(rows)[0]
    assert [holding_cost(srow, d) for d in (0, 5, ST_XMAX, ST_XMAX + 40)] == [0, 5, ST_XMAX, ST_XMAX]
    assert (srow == NEUTRAL).all()


def test_a_game_hands_every_hand_the_rows_of_the_seats_dealt_in(monkeypatch):
    import sim.game as G
    asked = []

    def marked(profile, ledger, bots=()):  # seat s's curve shifted by s, so a row tells whose it is
        rows = neutral_stakes(ledger.n)
        rows[:, ST_WIN] = np.arange(ledger.n) + 100.0 * ledger.hands_played
        asked.append(ledger.hands_played)
        return rows

    monkeypatch.setattr(G, "hand_stakes", marked)
    seen = []
    bots = [make_bot("greedy", np.random.default_rng(i)) for i in range(4)]
    game = play_game(K40, bots, np.random.default_rng(5), on_hand=lambda rec: seen.append(rec))
    played = [r for r in seen if r.sheet is not None]
    assert len(played) == game.ledger.hands_played >= 2
    assert asked == list(range(game.ledger.hands_played))  # once a hand, on the sheet as it stands
    for k, rec in enumerate(played):
        got = rec.state.stakes[:, ST_WIN].tolist()
        assert got == [s + 100.0 * k for s in rec.seats]  # hand position i reads seat seats[i]'s row


def other_table(profile, path):
    """Written to ``path``: the profile's shipped table with every chance of winning squared and 50 stake
    units more expected everywhere (another table for the same rules, whose stakes and buy-ins differ)."""
    import dataclasses

    from sim import equity
    shipped = equity.load_table(profile)
    equity.save(dataclasses.replace(shipped, P=shipped.P ** 2, F=shipped.F + 50.0, _pf=None), path)
    return equity.read(path)


def test_a_seat_whose_bot_plays_by_its_own_table_reads_its_row_from_it(tmp_path):
    from sim import equity
    from sim.game import Ledger
    own = other_table(K40, tmp_path / "own.npz")
    lg = Ledger(K40, 4)
    lg.totals = [120, 40, 90, 10]
    bots = [make_bot("expert", np.random.default_rng(i)) for i in range(4)]
    bots[2] = make_bot("expert", np.random.default_rng(2), {"game_values": str(tmp_path / "own.npz")})
    assert bots[2].own_table is equity.read_file(str(tmp_path / "own.npz")) and bots[0].own_table is None
    rows, shipped, mine = hand_stakes(K40, lg, bots), equity.hand_stakes(K40, lg), equity.hand_stakes(K40, lg, own)
    assert np.array_equal(rows[[0, 1, 3]], shipped[[0, 1, 3]])
    assert np.array_equal(rows[2], mine[2]) and not np.allclose(rows[2], shipped[2])
    lg.in_game[2] = False  # a seat out of the game: the neutral row, by any table
    assert np.array_equal(hand_stakes(K40, lg, bots)[2], neutral_stakes(4)[2])


def test_a_bot_buys_in_by_its_own_table(tmp_path):
    from sim import equity
    from sim.engine import HandResult
    from sim.game import Ledger
    own = other_table(K40, tmp_path / "own.npz")
    by = {"game_values": str(tmp_path / "own.npz")}
    answers = set()
    for totals in ([140, 0, 0, 0], [140, 140, 140, 130], [140, 100, 60, 20]):
        result = HandResult(winner=3, win_type="call", penalties=[20, 0, 0, 0], cards_left=[4, 1, 1, 0],
                            jokers_left=[0] * 4)  # seat 0 goes over the limit and is asked
        for name in ("expert", "lookahead"):
            seen = {}

            def ask(s, ledger, name=name, seen=seen):
                seen["gains"] = equity.buy_in_gain(K40, ledger, s), equity.buy_in_gain(K40, ledger, s, own)
                seen["answers"] = (make_bot(name, np.random.default_rng(0)).buy_in(ledger, s),
                                   make_bot(name, np.random.default_rng(0), by).buy_in(ledger, s))
                return False

            lg = Ledger(K40, 4)
            lg.totals, lg.dealer = list(totals), 3
            lg.record_hand(result, ask)
            assert seen["answers"] == tuple(g > 0 for g in seen["gains"]), (totals, name, seen)
            answers.add(seen["answers"])
    assert any(shipped != mine for shipped, mine in answers)  # the two tables decide differently somewhere


def test_a_game_without_a_table_of_game_values_plays_by_the_neutral_rows():
    from sim import equity
    from sim.game import Ledger
    other = K40.replace(opening_min=45)  # rules no shipped table was made for
    assert equity.load_table(other) is None
    assert (hand_stakes(other, Ledger(other, 4)) == neutral_stakes(4)).all()
    if equity.load_table(K40) is not None:  # the shipped table's rows: not the neutral ones
        assert not (hand_stakes(K40, Ledger(K40, 4)) == neutral_stakes(4)).all()


def to_play(hand, discard="2D", opened=False):
    """Seat 0 holding ``hand`` after a stock draw, to choose its discard."""
    cards = hand.split()
    st = HandState.scripted(K40, [" ".join(cards[:-1]), "2C 3C 4C 5C 6C"], stock=cards[-1], discard=discard,
                            current=0, opened=[opened, opened])
    st.apply_draw(DRAW_STOCK)
    return st


@pytest.mark.parametrize("name", ["expert", "lookahead"])
def test_near_the_cliff_the_discard_sheds_points_before_keeping_a_pair(name):
    bot = make_bot(name, np.random.default_rng(0))
    st = to_play(MELDED + "KS KH 4C")  # deadwood 24: the pair of kings or the isolated 4C
    assert card_str(bot._choose_discard(st, 0, st.hands[0].copy(), -1, st.table)) == "4C"
    st.stakes = neutral_stakes(2)
    assert card_str(bot._choose_discard(st, 0, st.hands[0].copy(), -1, st.table)) == "4C"
    st.stakes = cliff(2, at=14, jump=300.0)  # 14 points held is safe, 15 eliminates: only a king's discard stays under
    assert card_str(bot._choose_discard(st, 0, st.hands[0].copy(), -1, st.table))[0] == "K"


def test_the_patients_max_risk_is_read_through_the_curve():
    assert XC.risk_limit(60, NEUTRAL) == 60
    assert XC.risk_limit(60, stakes_ints(cliff(1, at=14))[0]) == 14
    assert XC.risk_limit(60, stakes_ints(cliff(1, at=-1, jump=70.0))[0]) == -1  # nothing is safe: never hold
    steep = neutral_stakes(1)
    steep[0, ST_CURVE:] *= 2.0  # each point costs two
    assert XC.risk_limit(60, stakes_ints(steep)[0]) == 30


def opened_one_card(hand="6H", table=("7H 8H 9H TH JH QH",), discard="3D 2S", stock="KD 4C"):
    """Seat 0, opened, to draw: ``hand`` against the table, the discard pile's top its last card."""
    return HandState.scripted(K40, [hand, "2C 3C 4C 5C 6C TC"], stock=stock, discard=discard, current=0,
                              table=[R(t) for t in table], opened=[True, True])


@pytest.mark.parametrize("name", ["expert", "lookahead"])
def test_a_discard_is_not_taken_while_every_stock_card_goes_out(name):
    bot = make_bot(name, np.random.default_rng(0))
    st = opened_one_card()  # 6H lays off on 7H-QH: any stock card goes out; 2S taken could not be thrown
    assert bot.draw(st, 0) == DRAW_STOCK
    st.stakes = cliff(2, at=1)  # however dear the 6 points are
    assert bot.draw(st, 0) == DRAW_STOCK


@pytest.mark.parametrize("name", ["expert", "lookahead"])
def test_a_discard_that_goes_out_is_taken(name):
    bot = make_bot(name, np.random.default_rng(0))
    # 5H taken lays off on 7H-QH with 6H (chained), KS thrown: out; the deadwood alone would say keep drawing
    st = opened_one_card(hand="6H KS", discard="3D 5H")
    assert bot.draw(st, 0) == DRAW_DISCARD


@pytest.mark.parametrize("name", ["expert", "lookahead"])
def test_draw_out_counts_a_stock_go_out_at_what_the_row_says_it_is_worth(name):
    # 6H lays off on 7H-QH; KH, 5H or a joker from the stock goes out with it, throwing KS; 2S taken
    # leaves less deadwood than a stock draw is expected to, so on points alone the discard is taken
    st = opened_one_card(hand="6H KS", discard="3D 2S")
    margin = {"take_margin": 2} if name == "lookahead" else {}  # the expert's draw_gain
    plain, counted = (make_bot(name, np.random.default_rng(0), {"draw_out": w, **margin}) for w in (0, 100))
    assert plain.draw(st, 0) == counted.draw(st, 0) == DRAW_DISCARD
    st.stakes = cliff(2, at=ST_XMAX, jump=0.0, win=200.0)  # going out is worth 200 beyond the points it saves
    assert plain.draw(st, 0) == DRAW_DISCARD  # a stock go-out counted as no deadwood only
    assert counted.draw(st, 0) == DRAW_STOCK  # a few stock cards in a hundred go out: worth more than 2S
    st.stakes = cliff(2, at=ST_XMAX, jump=0.0, win=20.0)  # a go-out worth little more: the discard again
    assert counted.draw(st, 0) == DRAW_DISCARD


def test_the_issue_hand_seat_2_draws_from_the_stock_holding_6h_against_7h_to_qh():
    """``kalooki play --profile british --seed 8146 --bots expert,expert,expert,expert`` (the single hand)."""
    prof = profiles.load("british")
    kids = np.random.SeedSequence(8146).spawn(5)
    rng = np.random.default_rng(kids[0])
    bots = [make_bot("expert", np.random.default_rng(k)) for k in kids[1:]]
    seen = []
    own = bots[2].draw

    def watched(state, me):
        src = own(state, me)
        hand = [card_str(c) for c in np.flatnonzero(state.hands[me]) for _ in range(state.hands[me, c])]
        seen.append((hand, card_str(state.discard_top), src))
        return src

    bots[2].draw = watched
    dealer = int(rng.integers(4))
    st = HandState(prof, 4, dealer, rng, record=True)
    play_hand(st, bots, list(range(4)))
    at = [src for hand, top, src in seen if hand == ["6H"] and top == "2S"]
    assert at == [DRAW_STOCK]


def play_both_ways(names, stakes, seed):
    """One hand of ``names`` with ``stakes``, in the compiled hand loop and on the Python engine."""
    out = []
    for compiled in (True, False):
        saved = LOOP.COMPILED
        LOOP.COMPILED = compiled
        try:
            st = HandState(K40, len(names), 0, np.random.default_rng(seed))
            res = play_hand(st, [make_bot(n, np.random.default_rng(i)) for i, n in enumerate(names)],
                            list(range(len(names))), stakes=stakes)
        finally:
            LOOP.COMPILED = saved
        out.append((res.winner, res.win_type, st.hands.tolist(), [str(m) for m in st.table], st.turn_no))
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_both_paths_read_the_same_rows(seed):
    names = ["expert", "lookahead", "patient", "expert"]
    rows = cliff(4, at=25, win=30.0)
    rows[1] = neutral_stakes(1)[0]
    fast, slow = play_both_ways(names, rows, seed)
    assert fast == slow


def test_a_neutral_row_plays_as_no_row():
    names = ["lookahead", "expert", "search", "expert"]
    for seed in (4, 5):
        a = HandState(K40, 4, 0, np.random.default_rng(seed))
        play_hand(a, [make_bot(n, np.random.default_rng(i)) for i, n in enumerate(names)], [0, 1, 2, 3])
        b = HandState(K40, 4, 0, np.random.default_rng(seed))
        play_hand(b, [make_bot(n, np.random.default_rng(i)) for i, n in enumerate(names)], [0, 1, 2, 3],
                  stakes=neutral_stakes(4))
        assert (a.result.winner, a.hands.tolist(), a.turn_no) == (b.result.winner, b.hands.tolist(), b.turn_no)


def test_the_search_scores_a_rollout_by_the_row():
    st = HandState.scripted(K40, ["KS QS 4C", "2C 3C 4C 5C 6C"], stock="KD", discard="2D", current=0)
    cp = core.compiled(K40)
    rp, values, prm = cp.rules, cp.hand_values, cp.params
    mv, ws, rec = MS.new_workspace()
    res = np.zeros(H_W, np.int64)
    row = stakes_ints(cliff(1, at=20, win=35.0))[0]
    res[H_WINNER] = 1  # another player goes out: the seat holds 24 points, over the cliff
    assert SC._score(0, res, st.hands, values, rp, prm, 50, mv, ws, rec, NEUTRAL) == -24
    assert SC._score(0, res, st.hands, values, rp, prm, 50, mv, ws, rec, row) == -124
    res[H_WINNER], res[H_WIN_TYPE] = 0, WIN_CALL
    assert SC._score(0, res, st.hands, values, rp, prm, 50, mv, ws, rec, NEUTRAL) == 50
    assert SC._score(0, res, st.hands, values, rp, prm, 50, mv, ws, rec, row) == 85
    res[H_WIN_TYPE] = WIN_KALOOKI
    row2 = row.copy()
    row2[ST_KALOOKI] = 60
    assert SC._score(0, res, st.hands, values, rp, prm, 50, mv, ws, rec, row2) == 110


def go_out_rows(n, win, kalooki):
    """Rows whose curve is the hand's own points, a go-out worth ``win`` and a Kalooki ``kalooki``."""
    rows = neutral_stakes(n)
    rows[:, ST_WIN] = win
    rows[:, ST_KALOOKI] = kalooki
    return rows


def test_a_partial_meld_weighs_as_much_as_the_go_out_is_at_stake():
    """9H JH wait for TH (one copy live, one in the discard pile) beside an isolated 3C, 22 points held.
    Where a go-out is worth what the weights are tuned for (or nothing beyond the points it saves:
    the neutral row), shedding the jack beats the one live card; where going out is worth far more on
    the sheet (an opponent about to go, the pool in reach), the near-run is kept and the 3C goes."""
    bot = make_bot("expert", np.random.default_rng(0))
    st = to_play(MELDED + "9H JH 3C", discard="TH 2D")
    choose = lambda: card_str(bot._choose_discard(st, 0, st.hands[0].copy(), -1, st.table))  # noqa: E731
    assert choose() == "JH"
    st.stakes = go_out_rows(2, 60.0, 60.0)  # a go-out worth out_worth: the weights as tuned
    assert choose() == "JH"
    st.stakes = go_out_rows(2, 200.0, 200.0)  # worth twice as much at stake: keep the live card's chance
    assert choose() == "3C"
