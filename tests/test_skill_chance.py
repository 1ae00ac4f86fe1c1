"""The skill measures against chance, on constructed finishing orders whose answer is known: a game of
pure chance reads a coin-flip share of 1 and no excess at two study sizes; a ranking of profiles is
stated only from a clear paired difference that no single player's absence reverses; players knocked
out for good in the same hand share a place (half a win each)."""
import numpy as np
import pandas as pd
import pytest

from analysis import findings
from analysis import skill as S
from test_skill_fit import _games

PLAYERS = ["a", "b", "c", "d", "e"]


def _study(strengths: dict, deals: int, rng, profile="p"):
    """A duplicate-like study: each deal seats four of the five players, played in its four rotations;
    each game's finishing order drawn by Plackett-Luce from exp(strength) (all equal: pure chance)."""
    seatings, orders = [], []
    for _ in range(deals):
        four = list(rng.permutation(list(strengths))[:4])
        for rot in range(4):
            seats = four[rot:] + four[:rot]
            w = np.exp([strengths[p] for p in seats])
            finish = rng.choice(4, size=4, replace=False, p=w / w.sum())  # seats in finishing order
            ranks = np.empty(4, int)
            ranks[finish] = np.arange(1, 5)
            seatings.append(seats)
            orders.append(list(ranks))
    return _games(orders, seatings, profile=profile)


def _m(res):
    return res["measures"].set_index("measure")


@pytest.mark.parametrize("deals", [50, 200])
def test_pure_chance_reads_one_coin_flip_share_and_no_excess(deals):
    """Scaled to chance, a game of pure chance reads a coin-flip share of exactly 1 about half of the
    time (its luck share at or above the benchmark's median) and otherwise lies within the benchmark's
    range; over 1/4 (unscaled) it reads below 1 (about 0.93 at 50 deals, 0.96 at 200)."""
    flat = dict.fromkeys(PLAYERS, 0.0)
    coin, raw_coin, excess, chance, inside = [], [], [], [], 0
    for seed in range(8):
        res = S.measure(_study(flat, deals, np.random.default_rng(seed)), PLAYERS, boot=0, seed=seed, chance=99,
                        leave_out=False)
        m = _m(res)
        coin.append(m.loc["coin_flip_share", "estimate"])
        raw_coin.append(S.coin_flip_share(m.loc["luck_share", "estimate"] * res["chance"]["raw_luck_share"]))
        excess.append(m.loc["spread_elo", "excess"])
        chance.append(m.loc["spread_elo", "chance"])
        inside += m.loc["coin_flip_share", "chance_low"] <= coin[-1] <= m.loc["coin_flip_share", "chance_high"]
        assert m.loc["coin_flip_share", "chance"] == 1.0  # the benchmark's own median reads 1
        assert m.loc["luck_share", "chance"] == 1.0
        assert m.loc["coin_flip_share", "excess"] == coin[-1] - 1.0
    assert sum(c == 1.0 for c in coin) >= 2, coin
    assert inside >= 7, coin
    assert np.mean(coin) - np.mean(raw_coin) > 0.01 and np.mean(raw_coin) < 0.975
    assert np.mean(coin) > 0.95
    # a spread of tens of Elo points is what chance gives; its excess over chance is about 0
    assert np.median(chance) > 10
    assert abs(np.mean(excess)) < 0.5 * np.median(chance), (excess, chance)


def test_the_chance_benchmark_shrinks_with_size_and_is_seeded():
    flat = dict.fromkeys(PLAYERS, 0.0)
    small = S.measure(_study(flat, 50, np.random.default_rng(1)), PLAYERS, boot=0, seed=3, chance=59, leave_out=False)
    large = S.measure(_study(flat, 400, np.random.default_rng(1)), PLAYERS, boot=0, seed=3, chance=59, leave_out=False)
    assert _m(large).loc["spread", "chance"] < 0.7 * _m(small).loc["spread", "chance"]
    again = S.measure(_study(flat, 50, np.random.default_rng(1)), PLAYERS, boot=0, seed=3, chance=59, leave_out=False)
    other = S.measure(_study(flat, 50, np.random.default_rng(1)), PLAYERS, boot=0, seed=4, chance=59, leave_out=False)
    pd.testing.assert_frame_equal(small["measures"], again["measures"])
    assert _m(small).loc["spread", "chance"] != _m(other).loc["spread", "chance"]


def test_a_skilful_game_reads_its_excess():
    steep = {"a": 1.5, "b": 0.75, "c": 0.0, "d": -0.75, "e": -1.5}
    m = _m(S.measure(_study(steep, 200, np.random.default_rng(2)), PLAYERS, boot=50, seed=1, chance=59,
                     leave_out=False))
    assert m.loc["spread", "excess"] == pytest.approx(3.0 - m.loc["spread", "chance"], abs=0.5)
    assert m.loc["spread", "excess_low"] > 1.5
    assert m.loc["coin_flip_share", "estimate"] < 0.8 and m.loc["coin_flip_share", "excess"] < -0.2


def _ranked(profiles: dict, deals=250, seed=5):
    """``profile_ranking`` of a study of several profiles, each drawn from its strengths, the bootstrap
    replicates drawing the same deals in every profile (paired by deal)."""
    rng = np.random.default_rng(seed)
    weights = np.array([rng.multinomial(deals, np.full(deals, 1 / deals)) for _ in range(200)], float)
    study = {"players": PLAYERS, "boot": 200, "seed": seed, "paired": True, "profiles": {
        name: S.measure(_study(s, deals, np.random.default_rng(seed + k), name), PLAYERS, seed=k, chance=59,
                        weights=weights) for k, (name, s) in enumerate(profiles.items())}}
    return S.study_ranking(study).set_index(["profile_a", "profile_b"]), study


def test_a_ranking_that_rests_on_one_player_is_not_stated():
    """x: four equal players and one who always finishes last; y: skill spread over all five.  x leaves
    less to chance only because of e: without e, x is pure chance."""
    ranking, study = _ranked({"x": {"a": 0.0, "b": 0.0, "c": 0.0, "d": 0.0, "e": -6.0},
                              "y": {"a": 0.6, "b": 0.3, "c": 0.0, "d": -0.3, "e": -0.6}})
    r = ranking.loc[("x", "y")]
    assert r["verdict"] == findings.HIGHER  # y's coin-flip share higher: a clear difference on all players
    assert r["rests_on"] == "e" and r["more_skill"] == ""
    text = S.ranking_sentence(ranking.reset_index(), 2)
    assert "Skill decides more" not in text and "rest on one player" in text and "without e" in text
    loo = study["profiles"]["x"]["leave_one_out"].set_index(["left_out", "measure"])
    assert loo.loc[("e", "coin_flip_share"), "estimate"] > 0.9  # x without e: chance


def test_a_ranking_that_holds_without_any_one_player_is_stated():
    ranking, _ = _ranked({"even": {"a": 1.5, "b": 0.75, "c": 0.0, "d": -0.75, "e": -1.5},
                          "chance": dict.fromkeys(PLAYERS, 0.0),
                          "twin": dict.fromkeys(PLAYERS, 0.0)})
    assert ranking.loc[("even", "chance"), "more_skill"] == "even"
    assert ranking.loc[("even", "chance"), "rests_on"] == ""
    assert ranking.loc[("chance", "twin"), "more_skill"] == ""  # two games of chance: no ranking
    text = S.ranking_sentence(ranking.reset_index(), 3)
    assert "Skill decides more in even than in chance and twin" in text
    assert "over the 3 pairs of profiles" in text


def test_luck_share_and_coin_flip_share_get_one_verdict():
    rng = np.random.default_rng(8)
    a = S.measure(_study({"a": 1, "b": 0.5, "c": 0, "d": -0.5, "e": -1}, 200, rng), PLAYERS, boot=0, chance=39)
    b = S.measure(_study(dict.fromkeys(PLAYERS, 0.0), 200, rng), PLAYERS, boot=0, chance=39)
    rows, reps = S.measure_difference(a, b, False, 200, 1)  # 2 / 201 passes Holm over 3
    rows.insert(0, "profile_b", "b")
    rows.insert(0, "profile_a", "a")
    judged = S.judge_differences(rows, {("a", "b", m): d for m, d in reps.items()},
                                 findings.default_thresholds()).set_index("measure")
    assert judged.loc["luck_share", "verdict"] == findings.NOT_TESTED
    assert judged.loc["coin_flip_share", "verdict"] == findings.HIGHER


# ---------------------------------------------------------------------------------------------
# ties


def _elimination_game():
    """One game of four seats: seat 1 knocked out in hand 3 (after buying back in once, in hand 2);
    seats 0 and 3 knocked out for good together in hand 5; seat 2 wins.  The recorded finish ranks put
    seat 3 ahead of seat 0 (by seat from the winner)."""
    games = pd.DataFrame({"profile": "p", "game_id": 0, "n_players": 4, "seat": [0, 1, 2, 3],
                          "bot": ["w", "x", "y", "z"], "finish_rank": [3, 4, 1, 2],
                          "final_penalty_total": [120, 110, 40, 130], "net_payment": 0})
    rows = []
    for hand in range(1, 6):
        for seat in range(4):
            out = (seat == 1 and hand in (2, 3)) or (seat in (0, 3) and hand == 5)
            rows.append(dict(profile="p", game_id=0, hand_no=hand, seat=seat, eliminated=out,
                             bought_in=seat == 1 and hand == 2))
    return games, pd.DataFrame(rows)


def test_simultaneous_knockouts_share_a_place_and_count_half_each():
    games, hands = _elimination_game()
    place = S.places(games, hands, "elimination")
    assert list(place) == [2.5, 4.0, 1.0, 2.5]
    counts = S.DealCounts.of(games.assign(place=place), ["w", "x", "y", "z"])
    W = counts.wins.sum(axis=0)
    assert W[0, 3] == 0.5 and W[3, 0] == 0.5  # w and z: half a win each
    assert W[3, 1] == 1.0 and W[1, 3] == 0.0  # z went out after x
    assert W[2].sum() == 3.0  # the winner ahead of all three
    recorded = S.DealCounts.of(games, ["w", "x", "y", "z"]).wins.sum(axis=0)
    assert recorded[3, 0] == 1.0  # by the recorded rank the seat order decided it


def test_players_level_on_totals_share_a_place():
    games = pd.DataFrame({"profile": "p", "game_id": 0, "n_players": 4, "seat": [0, 1, 2, 3],
                          "bot": ["w", "x", "y", "z"], "finish_rank": [1, 2, 3, 4],
                          "final_penalty_total": [0, 30, 30, 50], "net_payment": 0})
    assert list(S.places(games, None, "single_hand")) == [1.0, 2.5, 2.5, 4.0]
    target = games.assign(final_penalty_total=[500, 300, 300, 100])
    assert list(S.places(target, None, "target")) == [1.0, 2.5, 2.5, 4.0]
    # an elimination game stopped at the hand cap: those still in by penalty total, not by seat
    stalled = games.assign(finish_rank=[1, 2, 3, 4], final_penalty_total=[10, 80, 60, 60])
    hands = pd.DataFrame({"profile": "p", "game_id": 0, "hand_no": 1, "seat": [0, 1, 2, 3],
                          "eliminated": False, "bought_in": False})
    assert list(S.places(stalled, hands, "elimination")) == [1.0, 4.0, 2.5, 2.5]


def test_two_players_always_tied_get_equal_ratings():
    rng = np.random.default_rng(3)
    orders, seatings = [], []
    for _ in range(200):
        seats = list(rng.permutation(["t1", "t2", "s", "w"]))
        place = {"s": 1, "t1": 2.5, "t2": 2.5, "w": 4}  # t1 and t2 always knocked out together
        seatings.append(seats)
        orders.append([place[p] for p in seats])
    games = _games(orders, seatings).rename(columns={"finish_rank": "place"}).assign(finish_rank=1)
    res = S.measure(games, ["s", "t1", "t2", "w"], boot=0, chance=0, leave_out=False)
    r = res["players"].set_index("player")["rating"]
    assert r["t1"] == pytest.approx(r["t2"], abs=1e-9)
    assert r["s"] > r["t1"] > r["w"]


def test_compare_names_the_player_a_difference_rests_on():
    loo_a = pd.DataFrame({"left_out": ["p", "q", "r"], "measure": "spread", "excess": [1.0, 1.0, 0.2]})
    loo_b = pd.DataFrame({"left_out": ["p", "q", "r"], "measure": "spread", "excess": [1.5, 1.4, 0.1]})
    assert S.rests_on(loo_a, loo_b, "spread", 0.5) == "r"  # without r, B's spread is no larger
    assert S.rests_on(loo_a, loo_b.assign(excess=[1.5, 1.4, 0.3]), "spread", 0.5) == ""
    assert S.rests_on(loo_a.iloc[:0], loo_b, "spread", 0.5) == ""  # two players: no leave-one-out fits
