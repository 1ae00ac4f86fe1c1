"""The search bot (sim.bots.search, sim.bots.search_core): legal, seeded turns that the Python engine
and the compiled hand loop play alike, hands that do not depend on how a run is cut into shards,
positions where playing the hand forward finds a better discard than the expert's rule and a better
table play than the lookahead's (holding a meld, opening now rather than waiting for a Kalooki,
laying part of its play), one where a single_hand game's money score changes its choice, and free
draws that cannot pay left unsearched."""
import dataclasses

import numpy as np
import pytest

from sim import profiles
from sim.bots import make_bot
from sim.bots import search_core as SC
from sim.cards import parse_cards
from sim.engine import DRAW_STOCK, HandState, core
from sim.records import ShardSpec, play_shard

from test_hand_loop import _copy, assert_same, compare_dealt, play_fast, play_python, random_midhand
from test_table_play import G, K40, R

PROFILES = profiles.available()


@pytest.mark.parametrize("name", PROFILES)
def test_search_tables_match_python(name):
    # every search draw and discard, asked turn by turn on the Python engine and inside the compiled
    # hand loop, with the same stream: the same hands, card for card
    prof = profiles.load(name)
    n = prof.players
    compare_dealt(prof, n, 3, 41, (["search", "lookahead", "expert", "search"] * 2)[:n])


@pytest.mark.parametrize("name", ["kalooki40", "scala40"])
def test_search_from_midhand_states_matches_python(name):
    # small hands, a table laid, short stocks: reshuffles and the ends of a hand with a search seat
    prof = profiles.load(name)
    rng = np.random.default_rng(47)
    reshuffled = 0
    for i in range(12):
        st = random_midhand(prof, 4, rng)
        a, b = _copy(st), _copy(st)
        kinds = ["search", "expert", "search", "lookahead"]
        play_python(a, kinds)
        play_fast(b, kinds)
        assert_same(a, b, f"{name} mid-hand state {i}")
        reshuffled += a.reshuffles
    assert reshuffled > 0


def test_searched_table_plays_match_python(monkeypatch):
    # turns where the search lays nothing though the lookahead would lay something, lays part of the
    # lookahead's play, or opens though the lookahead would wait, played alike both ways (with experts in
    # the other seats of its rollouts: with greedy ones it opens early in none of these hands)
    import test_hand_loop
    monkeypatch.setattr(test_hand_loop, "make_bot", lambda kind, rng: make_bot(kind, rng, {"others": "expert"}))
    held, part, opened = [], [], []
    decide = SC.decide_play

    def watch(state, me, ops, *args):
        out = decide(state, me, ops, *args)
        held.append(bool(ops) and not out[1])
        part.append(bool(ops) and bool(out[1]) and list(out[1]) != list(ops))
        opened.append(not ops and bool(out[1]))
        return out

    monkeypatch.setattr(SC, "decide_play", watch)
    compare_dealt(profiles.load("scala40"), 4, 4, 53, ["search"] * 4)
    assert sum(held) > 0 and sum(part) > 0 and sum(opened) > 0


def test_a_graded_search_matches_python():
    # the graded player's coin and the search's deals read the same stream, in the same order both ways
    compare_dealt(profiles.load("kalooki40"), 4, 3, 5, ["search@0.3", "lookahead", "expert", "search"])


def test_search_with_a_seat_keyed_stock_matches_python():
    # a duplicate tournament's stock: the search deals its own stocks, the real draw follows the keys
    prof = profiles.load("kalooki40")
    kinds = ["search", "lookahead", "search", "expert"]
    for seed in range(2):
        a, b = (HandState(prof, 4, seed % 4, np.random.default_rng([43, seed]), draw_seats=[0, 1, 2, 3])
                for _ in range(2))
        play_python(a, kinds)
        play_fast(b, kinds)
        assert_same(a, b, f"seat-keyed hand {seed}")


def test_search_games_do_not_depend_on_shard_size():
    prof = profiles.load("kalooki40")
    bots = ["search", "lookahead", "lookahead", "lookahead"]
    whole = play_shard(ShardSpec(prof, bots, seed=5, first_game=0, n_games=2, rotate=True))
    parts = [play_shard(ShardSpec(prof, bots, seed=5, first_game=g, n_games=1, rotate=True)) for g in (0, 1)]
    for t in ("hands", "games"):
        cut = [p[t].drop_columns([c for c in p[t].column_names if c in ("shard",)]) for p in parts]
        a = whole[t].drop_columns([c for c in whole[t].column_names if c in ("shard",)])
        assert a.num_rows == sum(c.num_rows for c in cut) > 0, t
        assert a.slice(0, cut[0].num_rows).equals(cut[0]), t
        assert a.slice(cut[0].num_rows).equals(cut[1]), t


def position(seed_draw="2D") -> HandState:
    """Seat 0 (not opened: a group of fours, KH, 2C) after drawing 2D; seat 1, opened, holds JH QH (both
    taken from the discard pile: seen) and 5C."""
    st = HandState.scripted(K40, ["4S 4D 4C KH 2C", "JH QH 5C"], stock=f"{seed_draw} 9S 8S 7S", discard="6D",
                            current=0, opened=[False, True], table=[G("5S 5D 5H")])
    st.pickups[1] = parse_cards("JH QH")
    st.apply_draw(DRAW_STOCK)
    return st


def test_search_leaves_feeding_to_the_lookahead_where_a_pair_would_break():
    # The expert's rule weighs KH's feeding risk (two cards the next player took are within two ranks)
    # but still throws it: -10 + 2 x 4 points against the pair 2C 2D, kept for its live cards.  KH is an
    # isolated card as dear as a 2, so the search plays no card of the pair forward and throws the
    # lookahead's KH.  Played forward on 16 deals, breaking the pair scores about a point a deal above
    # throwing KH (the next player, one card from going out, goes out soon either way): less than the
    # deadwood a rollout cut short counts in the pair's favour elsewhere.
    kh = parse_cards("KH")[0]
    for name in ("expert", "lookahead", "search"):
        st = position()
        play = make_bot(name, np.random.default_rng(0)).play(st, 0)
        assert play.discard == kh, name
        st.apply_play(play)  # the engine takes it


def feeding_position() -> HandState:
    """Seat 0 (opened) after drawing KH: 5S 6S 7S QD KH.  Seat 1 (opened) holds 4S 8S, both taken from the
    discard pile (seen), which lay off only onto a spade run through 5-7: nothing on the table takes them."""
    st = HandState.scripted(K40, ["5S 6S 7S QD", "4S 8S"], stock="KH 2C 3C 4C", discard="6D", current=0,
                            opened=[True, True],
                            table=[R("3H 4H 5H"), R("8C 9C 10C"), G("9D 9C 9H"), R("JS QS KS"), R("2D 3D 4D")])
    st.pickups[1] = parse_cards("4S 8S")
    st.apply_draw(DRAW_STOCK)
    return st


def test_search_holds_the_meld_that_would_let_the_next_player_go_out():
    # The lookahead lays 5S 6S 7S; seat 1 then lays off 4S and 8S and goes out, whatever it draws.  Played
    # forward, holding the run keeps seat 1 stuck and leaves seat 0 its next draws to go out with the
    # table's many lay-off places; the search holds.  With hold off it lays the run as the lookahead does.
    lookahead = make_bot("lookahead", np.random.default_rng(0)).play(feeding_position(), 0)
    assert lookahead.ops
    st = feeding_position()
    st.apply_play(lookahead)
    st.apply_draw(make_bot("expert", np.random.default_rng(0)).draw(st, 1))
    st.apply_play(make_bot("expert", np.random.default_rng(0)).play(st, 1))
    assert st.result is not None and st.result.winner == 1
    for seed in range(3):
        st = feeding_position()
        play = make_bot("search", np.random.default_rng(seed)).play(st, 0)
        assert play.ops == []
        st.apply_play(play)  # the engine takes it
        assert st.result is None
        kept = make_bot("search", np.random.default_rng(seed), {"hold": 0}).play(feeding_position(), 0)
        assert kept.ops == lookahead.ops


def waiting_position() -> HandState:
    """Seat 0 (not opened) after drawing 2D: KH KD KS QH QD QS 7C 8C 2D, a Kalooki two cards away with
    twelve draws in the stock.  Seat 1 (opened) holds 3H 4H 5H 8S 9S 10S, all taken from the discard
    pile (seen): two runs, out on its next turn whatever it draws."""
    st = HandState.scripted(K40, ["KH KD KS QH QD QS 7C 8C", "3H 4H 5H 8S 9S 10S"],
                            stock="2D 9D 8D 7D 6D 4D 3D 2S 3S 4S 6C JD", discard="6H", current=0,
                            opened=[False, True], table=[G("5S 5D 5C")])
    st.pickups[1] = parse_cards("3H 4H 5H 8S 9S 10S")
    st.apply_draw(DRAW_STOCK)
    return st


def test_search_opens_where_waiting_for_a_kalooki_loses():
    # Seat 1 has six cards, one more than the lookahead's danger count, so the lookahead waits for a
    # Kalooki (loose 7C 8C 2D, within two cards) and seat 1 goes out next turn: seat 0 pays 75.  Played
    # forward, opening now with the kings and queens pays 15 or less in every deal: the search opens.
    # With hold off, opening now is no candidate and it waits as the lookahead does.
    lookahead = make_bot("lookahead", np.random.default_rng(0)).play(waiting_position(), 0)
    assert lookahead.ops == []
    st = waiting_position()
    st.apply_play(lookahead)
    st.apply_draw(make_bot("expert", np.random.default_rng(0)).draw(st, 1))
    st.apply_play(make_bot("expert", np.random.default_rng(0)).play(st, 1))
    assert st.result is not None and st.result.winner == 1 and st.result.penalties[0] == 75
    for seed in range(3):
        st = waiting_position()
        play = make_bot("search", np.random.default_rng(seed)).play(st, 0)
        assert len(play.ops) == 2
        st.apply_play(play)  # the engine takes it: an opening of 60
        assert st.opened[0] and sum(st.hands[0]) == 2
        waited = make_bot("search", np.random.default_rng(seed), {"hold": 0}).play(waiting_position(), 0)
        assert waited.ops == []


def opening_position() -> HandState:
    """Seat 0 (not opened) after drawing AH: KH KD KS QH QD QS 5S 6S 7S 10D AH.  Seat 1 (opened) holds 4S JC,
    both taken from the discard pile (seen): JC lays off on 8C 9C 10C, 4S only onto a spade run through
    5-7; the table's ten melds leave many other cards a place."""
    table = [R("8C 9C 10C"), G("9D 9C 9H"), R("3H 4H 5H"), R("6D 7D 8D"), G("JD JS JH"), R("2D 3D 4D"),
             R("4C 5C 6C"), R("10H JH QH"), R("8S 9S 10S"), G("3C 3D 3S")]
    st = HandState.scripted(K40, ["KH KD KS QH QD QS 5S 6S 7S 10D", "4S JC"], stock="AH 2S 7H", discard="6H",
                            current=0, opened=[False, True], table=table)
    st.pickups[1] = parse_cards("4S JC")
    st.apply_draw(DRAW_STOCK)
    return st


def test_search_opens_with_fewer_melds_where_the_last_would_let_the_next_player_go_out():
    # Seat 1 is two cards from going out, so the lookahead opens with all it holds: kings, queens and
    # 5S 6S 7S, and seat 1 then lays off 4S and JC and goes out whatever it draws.  Laying nothing keeps
    # 78 points in hand against the chance that seat 1's draw finds a place on the table.  The fewest
    # melds that open (kings and queens, 60) keep the run out of seat 1's reach and the penalty held
    # low: played forward, that beats both, and the search lays two melds.  Without the partial
    # candidates it can only lay all three or none.
    lookahead = make_bot("lookahead", np.random.default_rng(0)).play(opening_position(), 0)
    assert len(lookahead.ops) == 3
    st = opening_position()
    st.apply_play(lookahead)
    st.apply_draw(make_bot("expert", np.random.default_rng(0)).draw(st, 1))
    st.apply_play(make_bot("expert", np.random.default_rng(0)).play(st, 1))
    assert st.result is not None and st.result.winner == 1
    run = parse_cards("5S 6S 7S")
    for seed in range(3):
        st = opening_position()
        play = make_bot("search", np.random.default_rng(seed)).play(st, 0)
        assert len(play.ops) == 2 and all(c not in op.meld.cards for op in play.ops for c in run)
        st.apply_play(play)  # the engine takes it: an opening of 60
        assert st.opened[0] and st.result is None
        whole_or_none = make_bot("search", np.random.default_rng(seed), {"partial": 0}).play(opening_position(), 0)
        assert len(whole_or_none.ops) in (0, 3)


def layoff_position() -> HandState:
    """Seat 0 (opened) after drawing AH: QD QC QH QS 8H 10D AH.  Seat 1 (opened) holds 9H JC, both taken
    from the discard pile (seen): JC lays off on 8C 9C 10C, 9H only onto 5H 6H 7H once 8H extends it;
    the table's ten melds leave many other cards a place."""
    table = [R("8C 9C 10C"), G("4H 4S 4D"), R("5H 6H 7H"), R("6D 7D 8D"), G("JD JS JH"), R("2D 3D 4D"),
             R("4C 5C 6C"), R("8S 9S 10S"), G("3C 3D 3S"), G("KC KD KS")]
    st = HandState.scripted(K40, ["QD QC QH QS 8H 10D", "9H JC"], stock="AH 2S 7H", discard="6H", current=0,
                            opened=[True, True], table=table)
    st.pickups[1] = parse_cards("9H JC")
    st.apply_draw(DRAW_STOCK)
    return st


def test_search_keeps_the_lay_off_that_would_let_the_next_player_go_out():
    # The lookahead lays the four queens and lays 8H off on 5H 6H 7H; seat 1 then lays off 9H and JC
    # and goes out whatever it draws.  Laying nothing keeps the queens' 40 points in hand against the
    # chance that seat 1's draw finds a place on the table.  The melds without the lay-off keep 9H
    # stuck and the penalty held low: played forward, that beats both, and the search lays the queens
    # alone.  Without the partial candidates it can only lay both or nothing.
    lookahead = make_bot("lookahead", np.random.default_rng(0)).play(layoff_position(), 0)
    assert [type(op).__name__ for op in lookahead.ops] == ["NewMeld", "LayOff"]
    st = layoff_position()
    st.apply_play(lookahead)
    st.apply_draw(make_bot("expert", np.random.default_rng(0)).draw(st, 1))
    st.apply_play(make_bot("expert", np.random.default_rng(0)).play(st, 1))
    assert st.result is not None and st.result.winner == 1
    for seed in range(3):
        st = layoff_position()
        play = make_bot("search", np.random.default_rng(seed)).play(st, 0)
        assert play.ops == lookahead.ops[:1]
        st.apply_play(play)  # the engine takes it
        assert st.result is None and st.hands[0, parse_cards("8H")[0]] == 1
        whole_or_none = make_bot("search", np.random.default_rng(seed), {"partial": 0}).play(layoff_position(), 0)
        assert len(whole_or_none.ops) in (0, 2)


def test_a_part_of_a_play_renumbers_the_rows_it_builds_on():
    # A play of 3 table rows: a split of row 0 (adding row 3), a new meld (row 4), a lay-off onto it and
    # a lay-off onto the split's new part.  Without the split the meld is row 3, its lay-off follows it,
    # and the lay-off onto the part left out goes too.
    from sim.engine import turn as TU
    ops = np.full((4, TU.X_W), -1, np.int64)
    ops[:, TU.X_KIND] = [TU.X_SPLIT, TU.X_NEW, TU.X_LAYOFF, TU.X_LAYOFF]
    ops[:, TU.X_TARGET] = [0, -1, 4, 3]
    mrows = np.full((4, 8), -1, np.int64)
    mrows[1] = 7
    out_ops, out_mrows = np.full_like(ops, -1), np.full_like(mrows, -1)
    keep = np.array([False, True, True, True])
    m = SC._subset(3, ops, mrows, 4, keep, out_ops, out_mrows)
    assert m == 2
    assert out_ops[:m, TU.X_KIND].tolist() == [TU.X_NEW, TU.X_LAYOFF] and out_ops[1, TU.X_TARGET] == 3
    assert (out_mrows[0] == 7).all()


EAST = profiles.load("east_coast")


def losing_position(p) -> HandState:
    """Seat 0 (opened) after drawing 9S: KH KD 2C 9S, the 9S to lay off on the group of nines.  Seat 1
    (opened) holds 4H 8H, both seen taken from the pile, which lay off at the two ends of 5H 6H 7H."""
    st = HandState.scripted(p, ["KH KD 2C", "4H 8H"], stock="9S 2S 3S 4S", discard="6D", current=0,
                            opened=[True, True], table=[R("5H 6H 7H", p), G("9D 9C 9H", p)])
    st.pickups[1] = parse_cards("4H 8H")
    st.apply_draw(DRAW_STOCK)
    return st


def test_a_single_hand_game_is_searched_for_its_money():
    # Seat 1 goes out next turn whatever seat 0 does.  In east_coast's money each card left costs one
    # unit, whichever card it is: seat 0 pays 2 units however it discards, so nothing beats the
    # lookahead's discard (2C, keeping the pair of kings).  Scored in penalty points (the same rules,
    # a target game), a king kept costs 10 against 2C's 2: the same search throws a king.
    two_clubs, kings = parse_cards("2C")[0], parse_cards("KH KD")
    assert make_bot("lookahead", np.random.default_rng(0)).play(losing_position(EAST), 0).discard == two_clubs
    points = dataclasses.replace(EAST, game_end="target")
    for seed in range(3):
        money = make_bot("search", np.random.default_rng(seed)).play(losing_position(EAST), 0)
        assert money.discard == two_clubs
        assert make_bot("search", np.random.default_rng(seed)).play(losing_position(points), 0).discard in kings


def test_the_ledger_and_the_search_pay_by_one_rule():
    from sim.game import Ledger
    from sim.engine import HandResult
    ledger = Ledger(EAST, 3)
    ledger.record_hand(HandResult(winner=0, win_type="kalooki", penalties=[0, 30, 40], cards_left=[0, 4, 6],
                                  jokers_left=[0, 1, 0]))
    assert ledger.balances == [2 * (3 + 2) + 2 * 6, -2 * (3 + 2), -2 * 6]
    rp = core.compiled(EAST).rules
    hand = np.zeros(53, np.int8)
    hand[:3] = 1
    hand[52] = 1
    assert SC._pays(hand, True, rp) == -ledger.balances[1]


def test_same_seed_same_choices_and_the_stream_is_its_own():
    st = HandState(K40, 4, 0, np.random.default_rng(3))
    a = make_bot("search", np.random.default_rng(9))
    b = make_bot("search", np.random.default_rng(9))
    st.start_turn()
    np.random.seed(0)
    da = a.draw(st, st.current)
    np.random.random(5)  # the global generator is no part of its choices
    db = b.draw(st, st.current)
    assert da == db and a.pos == b.pos


def test_budget_is_checked():
    from sim.errors import UserError
    with pytest.raises(UserError, match="rollout"):
        make_bot("search", np.random.default_rng(0), {"rollout": "search"})
    with pytest.raises(UserError, match="others"):
        make_bot("search", np.random.default_rng(0), {"others": "patient"})
    with pytest.raises(UserError, match="samples"):
        make_bot("search", np.random.default_rng(0), {"samples": 0})
    with pytest.raises(UserError, match="hold"):
        make_bot("search", np.random.default_rng(0), {"hold": 2})
    with pytest.raises(UserError, match="partial"):
        make_bot("search", np.random.default_rng(0), {"partial": -1})


def test_rollouts_play_its_own_seat_by_rollout_and_the_others_by_others():
    from sim.bots import expert_core as XC
    from sim.bots.kinds import K_EXPERT, K_GREEDY, K_LOOKAHEAD
    bot = make_bot("search", np.random.default_rng(0), {"rollout": "lookahead", "others": "expert"})
    kinds, rows = SC._rollout_table(SC.bot_params(bot), 4, 2)
    assert list(kinds) == [K_EXPERT, K_EXPERT, K_LOOKAHEAD, K_EXPERT]
    assert list(rows[:, XC.X_KIND]) == [K_EXPERT, K_EXPERT, K_LOOKAHEAD, K_EXPERT]
    default = make_bot("search", np.random.default_rng(0))
    assert (default.rollout, default.others) == ("expert", "greedy")
    assert list(SC._rollout_table(SC.bot_params(default), 3, 1)[0]) == [K_GREEDY, K_EXPERT, K_GREEDY]


def test_a_discard_connects_to_the_hand_as_the_expert_counts_partial_melds():
    from sim.cards import parse_card, to_counts
    hand = to_counts(parse_cards(["2C", "9H"]))
    assert SC._connects(hand, parse_card("9S"), False)  # a pair
    assert SC._connects(hand, parse_card("JH"), False)  # a one-gap run
    assert not SC._connects(hand, parse_card("QH"), True)
    assert not SC._connects(hand, parse_card("KC"), True)  # K-A-2 is no run in any profile
    assert SC._connects(hand, parse_card("AC"), True)  # A-2 where the ace may be low ...
    assert not SC._connects(hand, parse_card("AC"), False)  # ... and nothing where it may not


def draw_position(top: str) -> HandState:
    """Seat 0 (opened) to draw, holding 5S 6S 7S QD 9C (19 points loose), ``top`` on the discard pile."""
    return HandState.scripted(K40, ["5S 6S 7S QD 9C", "4H 8D 2C"], stock="KH 2D 3C 4C", discard=top, current=0,
                              opened=[True, True], table=[G("9D 9S 9H")])


@pytest.mark.parametrize("top, searched", [("KC", False), ("QC", False), ("JD", False), ("4S", True)])
def test_search_weighs_no_free_discard_that_meets_nothing_and_saves_nothing(top, searched):
    # KC makes no meld with any card held (no king, no club within two ranks) and, taken, leaves 19 points
    # loose as before: a stock draw does at least as well, so the draw is the lookahead's, unsearched (the
    # stream is not read).  QC (a pair with QD) and JD (a near-run with QD) would be loose in the hand
    # they join: no pickup either.  4S extends the run: it is played forward.
    bot = make_bot("search", np.random.default_rng(0))
    bot.ensure(1)
    src, pos = SC.decide_draw(draw_position(top), 0, SC.bot_params(bot), bot.stream, bot.pos)
    assert (pos == bot.pos + 1) == searched
    assert searched or src == SC.OWN_DRAW


def searched_discards(hand: str, default: str) -> list[str]:
    """The discards the search plays forward for seat 0 (opened) holding ``hand`` after its draw, the
    lookahead's choice ``default`` first."""
    from sim.bots.outlook import stakes_matrix
    from sim.cards import card_str
    st = HandState.scripted(K40, [hand, "2C 3C 4C 5C 6C"], stock="", discard="2D", current=0, opened=[True, True])
    inp, h = SC.seen(st)
    cands = np.empty(60, np.int64)
    si = SC.SearchInputs(0, SC.bot_params(make_bot("search", np.random.default_rng(0))), stakes_matrix(st))
    k = SC.discard_candidates(inp, h, si, st.hands[0].copy(), -1, parse_cards(default)[0], cands)
    return [card_str(c) for c in cands[:k]]


def test_search_breaks_no_pair_for_an_isolated_card_of_its_penalty():
    melded = "4S 5S 6S 9D 9C 9H "
    # QD (10, isolated) is the lookahead's discard; a king of the pair KS KH is no alternative
    assert searched_discards(melded + "KS KH QD 4C", "QD") == ["QD", "4C"]
    # nor with 4C the lookahead's discard and QD still loose
    assert searched_discards(melded + "KS KH QD 4C", "4C") == ["4C", "QD"]
    # with no isolated card as dear as a king, breaking the kings is weighed
    assert searched_discards(melded + "KS KH 7D 4C", "7D") in (["7D", "4C", "KS"], ["7D", "4C", "KH"])


def test_search_keeps_a_pair_where_an_isolated_card_as_dear_is_loose():
    # Late in a kalooki40 hand (the deal of bench.discards' hand 8, seed 1): seat 0, not opened, draws 8S to
    # 4S 5S QS 2H TH QH 8D 8D TD AD QC KC AC.  QC-KC-AC is its only meld; 8S-8D and QS-QH are pairs, 4S-5S
    # a two-card run, AD (11 points) is isolated but lays off on the table for the next player, who has
    # opened.  The lookahead throws 2H; a rollout cut short scores the deadwood left, so an 8 of the pair
    # rated 6 points above 2H on every deal and was thrown.  Judged from the rules (bench.discards), not by
    # the search's scores: what it throws is loose and breaks no pair or two-card run while an isolated
    # card as dear is loose.
    from bench.discards import turn_verdict
    table = [G("JH JD JC"), R("TH JH QH KH AH"), R("6H 7H 8H"), R("9D TD JD QD KD"), R("5S 6S 7S 8S 9S"),
             G("AS AH AD"), R("6D 7D JK 9D"), R("4C 5C JK 7C")]
    hands = ["4S 5S QS 2H TH QH 8D 8D TD AD QC KC AC", "2S 5C", "4S 7S 2C", "3S 2H"]
    for seed in range(3):
        st = HandState.scripted(K40, hands, stock="8S 6S 5H 9H 2D 5D 6C 3H TS JS KS 8C", current=0,
                                discard="9C 9S KC 8C 7D 6D 7H KH 4D TC 3D 9C 2S 8H 3D",
                                opened=[False, True, True, True], table=table)
        st.turns_taken = [4, 4, 4, 4]
        st.turn_no = 16
        st.pickups = [[], [], parse_cards("QD"), parse_cards("AS")]
        st.discards_by = [parse_cards(t) for t in ("9S 7D KH 9C", "QD 6D 4D 2S", "KC AS TC 8H", "8C 7H 3D 3D")]
        bot = make_bot("search", np.random.default_rng(seed))
        assert bot.draw(st, 0) == DRAW_STOCK
        st.apply_draw(DRAW_STOCK)
        play = bot.play(st, 0)
        assert not play.ops
        verdict = turn_verdict(K40, st.hands[0].astype(np.int64), play.discard, -1, 0)
        assert verdict.loose_discard and not verdict.broke_partial, (seed, play.discard)
