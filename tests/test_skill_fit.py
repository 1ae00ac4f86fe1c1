"""analysis.skill on constructed games whose answer is known: pure chance, a stronger player who always
finishes ahead, a coin-flip-diluted game, and payments with a known share of variance."""
import math

import numpy as np
import pandas as pd
import pytest

from analysis import skill as S


def _games(orders, players_at, payments=None, profile="p"):
    """Rows of the games table: game g seats players_at[g] (one per seat) finishing in ``orders[g]``
    (finish rank of each seat)."""
    rows = []
    for g, (ranks, who) in enumerate(zip(orders, players_at)):
        for seat, (r, b) in enumerate(zip(ranks, who)):
            pay = 0 if payments is None else payments[g][seat]
            rows.append(dict(profile=profile, game_id=g, n_players=len(who), seat=seat, bot=b, finish_rank=r,
                             net_payment=pay))
    return pd.DataFrame(rows)


def _diluted(games, c, rng, seats=("A", "B", "A", "B")):
    """Two players, two seats each; with probability c the finishing order is a coin flip (uniformly
    random), else both A seats finish ahead of both B seats."""
    orders = []
    for _ in range(games):
        if rng.random() < c:
            orders.append(list(rng.permutation(4) + 1))
        else:
            a_ranks = list(rng.permutation(2) + 1)
            b_ranks = list(rng.permutation(2) + 3)
            orders.append([a_ranks[0], b_ranks[0], a_ranks[1], b_ranks[1]])
    return _games(orders, [seats] * games)


def _by_measure(res):
    return res["measures"].set_index("measure")


def test_pure_chance_gives_no_skill():
    rng = np.random.default_rng(5)
    players = ["w", "x", "y", "z"]
    games = _games([list(rng.permutation(4) + 1) for _ in range(2000)], [players] * 2000)
    m = _by_measure(S.measure(games, boot=100, seed=1))
    assert m.loc["luck_share", "estimate"] > 0.99
    assert m.loc["coin_flip_share", "estimate"] > 0.9
    for name in ("adjacent_win",):
        assert m.loc[name, "ci_low"] <= 0.5 + 0.05
    assert m.loc["spread", "estimate"] < 0.25


def test_stronger_always_ahead_gives_maximal_skill():
    players = ["s1", "s2", "s3", "s4"]
    rng = np.random.default_rng(2)
    seatings = [list(rng.permutation(players)) for _ in range(200)]
    orders = [[players.index(b) + 1 for b in seat] for seat in seatings]  # s1 always first, s4 last
    res = S.measure(_games(orders, seatings), boot=50, seed=1)
    m = _by_measure(res)
    assert m.loc["luck_share", "estimate"] < 0.01
    assert m.loc["coin_flip_share", "estimate"] < 0.1
    assert m.loc["adjacent_win", "estimate"] > 0.99
    assert list(res["players"]["player"]) == players  # strongest first


@pytest.mark.parametrize("c", [0.2, 0.6])
def test_coin_flip_share_recovers_the_dilution(c):
    res = S.measure(_diluted(3000, c, np.random.default_rng(int(c * 10))), boot=200, seed=3)
    m = _by_measure(res)
    lo, hi = m.loc["coin_flip_share", "ci_low"], m.loc["coin_flip_share", "ci_high"]
    assert lo <= c <= hi, (c, lo, hi)
    assert m.loc["coin_flip_share", "estimate"] == pytest.approx(c, abs=0.05)
    assert m.loc["adjacent_win", "estimate"] == pytest.approx(1 - c / 2, abs=0.03)


def test_payment_luck_share_is_the_unexplained_variance():
    rng = np.random.default_rng(4)
    n = 4000
    seatings = [["A", "B", "C", "D"]] * n
    effect = {"A": 1.0, "B": 1.0, "C": -1.0, "D": -1.0}  # variance 1
    payments = [[effect[b] + rng.normal(0, 1) for b in s] for s in seatings]  # noise variance 1
    orders = [list(rng.permutation(4) + 1) for _ in range(n)]
    m = _by_measure(S.measure(_games(orders, seatings, payments), boot=50, seed=1))
    assert m.loc["pay_luck_share", "estimate"] == pytest.approx(0.5, abs=0.03)
    assert m.loc["pay_spread", "estimate"] == pytest.approx(2.0, abs=0.15)


def test_no_money_no_payment_measures():
    rng = np.random.default_rng(1)
    games = _games([list(rng.permutation(4) + 1) for _ in range(40)], [["a", "b", "c", "d"]] * 40)
    assert "pay_luck_share" not in set(S.measure(games, boot=5)["measures"]["measure"])


def test_bootstrap_is_seeded_and_resamples_deals():
    games = _diluted(400, 0.5, np.random.default_rng(9))
    a = S.measure(games, boot=30, seed=7)["measures"]
    b = S.measure(games, boot=30, seed=7)["measures"]
    c = S.measure(games, boot=30, seed=8)["measures"]
    pd.testing.assert_frame_equal(a, b)
    assert not np.allclose(a["ci_low"].to_numpy(), c["ci_low"].to_numpy(), equal_nan=True)


def test_difference_separates_only_distinct_games():
    rng = np.random.default_rng(11)
    lucky = S.measure(_diluted(2000, 0.8, rng), boot=200, seed=1)
    skilled = S.measure(_diluted(2000, 0.2, rng), boot=200, seed=2)
    same = S.measure(_diluted(2000, 0.8, rng), boot=200, seed=3)
    def separated(a, b):  # b minus a, the two sides' deals resampled apart
        d = S.measure_difference(a, b, paired=False, boot=200, seed=4)[0].set_index("measure").loc["coin_flip_share"]
        return d["difference"], d["diff_ci_low"] > 0 or d["diff_ci_high"] < 0
    change, apart = separated(skilled, lucky)
    assert apart and change > 0.4
    assert not separated(same, lucky)[1]


def test_ratings_fit_matches_a_logistic_regression():
    """The Bradley-Terry fit is the maximum of the pairwise logistic likelihood (the prior aside)."""
    wins = np.array([[0, 30, 40], [20, 0, 25], [10, 15, 0]], float)
    r = S.fit_ratings(wins, prior_sd=1e6)
    # the score equations: for each player, wins = expected wins
    p = 1 / (1 + np.exp(-(r[:, None] - r[None, :])))
    n = wins + wins.T
    assert np.allclose(wins.sum(axis=1), (n * p).sum(axis=1), atol=1e-4)
    assert math.isclose(r.sum(), 0.0, abs_tol=1e-9)


def test_study_text_and_json_compare_profiles():
    import json
    rng = np.random.default_rng(12)
    study = {"players": ["A", "B"], "boot": 100, "seed": 1,
             "profiles": {"lucky": S.measure(_diluted(1500, 0.9, rng), boot=100, seed=1),
                          "skilled": S.measure(_diluted(1500, 0.1, rng), boot=100, seed=2)}}
    text = "\n".join(S.text_lines(study))
    assert "Each profile minus lucky" in text
    line = text.splitlines()[-1]
    assert line.strip().startswith("skilled")
    assert "coin_flip_share -0." in line and line.endswith("]*")
    data = S.as_json(study)
    json.dumps(data, allow_nan=False)  # intervals without replicates would be null, never NaN
    diff = {d["measure"]: d for d in data["differences"]["skilled - lucky"]}
    assert diff["coin_flip_share"]["separated"] and diff["coin_flip_share"]["difference"] < -0.6


def test_the_players_come_in_their_measured_order_with_each_lead_and_its_interval():
    """Listed by fitted rating, not by the order the players were named in; a lead whose interval lies
    above 0 is an established order, a pair that plays alike is not."""
    rng = np.random.default_rng(11)
    names = ["weak", "twin_a", "twin_b", "strong"]  # named weakest first: the fit must not keep this order
    strength = {"weak": 0.0, "twin_a": 1.0, "twin_b": 1.0, "strong": 3.0}
    seatings, orders = [], []
    for _ in range(600):
        seat = list(rng.permutation(names))
        score = [strength[b] + rng.gumbel() for b in seat]
        ranks = np.argsort(np.argsort(-np.array(score))) + 1
        seatings.append(seat)
        orders.append(list(ranks))
    res = S.measure(_games(orders, seatings), boot=100, seed=2, chance=0, leave_out=False)
    p = res["players"]
    assert p["player"].iloc[0] == "strong" and p["player"].iloc[-1] == "weak"
    assert (np.diff(p["rating"].to_numpy()) <= 0).all()
    assert p["ahead_of_next"].iloc[:-1].to_numpy() == pytest.approx(-np.diff(p["rating"].to_numpy()))
    assert p["ahead_of_next_lo"].iloc[0] > 0 and p["ahead_of_next_lo"].iloc[2] > 0  # strong > twin, twin > weak
    assert p["ahead_of_next_lo"].iloc[1] < 0 < p["ahead_of_next_hi"].iloc[1]  # the twins: not established
    assert math.isnan(p["ahead_of_next"].iloc[-1])
    text = S.order_text(p, "p")
    assert text.startswith("p, measured order (by fitted rating") and "strong > twin" in text
    assert "not established: twin" in text and "> weak" in text
