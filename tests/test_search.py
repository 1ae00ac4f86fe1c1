"""The search bot (sim.bots.search, sim.bots.search_core): legal, seeded turns that the Python engine
and the compiled hand loop play alike, hands that do not depend on how a run is cut into shards,
and a position where playing the hand forward finds a better discard than the expert's rule."""
import numpy as np
import pytest

from sim import profiles
from sim.bots import make_bot
from sim.cards import parse_cards
from sim.engine import DRAW_STOCK, HandState
from sim.records import ShardSpec, play_shard

from test_hand_loop import _copy, assert_same, compare_dealt, play_fast, play_python, random_midhand
from test_table_play import G, K40

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


def test_search_keeps_the_card_that_would_let_the_next_player_go_out():
    # The expert's rule weighs KH's feeding risk (two cards the next player took are within two ranks)
    # but still throws it: -10 + 2 x 4 points against the pair 2C 2D, kept for its live cards.  The
    # next player then takes KH, melds JH QH KH and goes out, whatever the unseen cards are; played
    # forward, the search sees that in every deal and breaks the pair instead.
    kh = parse_cards("KH")[0]
    for name in ("expert", "lookahead"):
        assert make_bot(name, np.random.default_rng(0)).play(position(), 0).discard == kh, name
    for seed in range(3):
        st = position()
        play = make_bot("search", np.random.default_rng(seed)).play(st, 0)
        assert play.discard != kh
        st.apply_play(play)  # the engine takes it
        assert st.result is None


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
    with pytest.raises(UserError, match="samples"):
        make_bot("search", np.random.default_rng(0), {"samples": 0})
