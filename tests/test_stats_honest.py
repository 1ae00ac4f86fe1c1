"""The interval functions of analysis.stats at the edges a small run reaches: games that all agree,
samples with no event, design effects below 1 from few games, few games at all, bootstrap p-values
from replicates that never cross.  Each answer is checked against a formula written here or against
the independent interval it must never undercut; one check simulates clustered rare counts and counts
how often the interval covers the rate they were drawn with."""
import numpy as np
import pytest
import scipy.stats as sps

from analysis import stats

Z = sps.norm.ppf(0.975)


def _sums(y_by_game, x_by_game):
    """The per-game sums cluster_* take: games, x, y, Y2, X2, XY."""
    y, x = np.asarray(y_by_game, dtype=float), np.asarray(x_by_game, dtype=float)
    return len(y), x.sum(), y.sum(), (y * y).sum(), (x * x).sum(), (x * y).sum()


def _wilson(k, n):
    return stats.wilson(np.float64(k), np.float64(n))


def test_games_that_all_agree_leave_an_interval_at_least_wilsons():
    # 4 games of 4 player-games, 3 eliminated in each: the cluster-robust variance is 0
    est = stats.cluster_proportion(*_sums([3, 3, 3, 3], [4, 4, 4, 4])).iloc[0]
    low, high = _wilson(12, 16)
    assert est["estimate"] == 0.75
    assert est["ci_high"] - est["ci_low"] > 0
    # fewer games than TRUSTED_GAMES: never narrower than Wilson on the 16 rows
    assert est["ci_low"] <= low + 1e-12 and est["ci_high"] >= high - 1e-12
    assert est["design_effect"] == 0.0 and est["design_effect_used"] >= 1.0


def test_many_games_that_agree_still_leave_some_width():
    est = stats.cluster_proportion(*_sums([3] * 200, [4] * 200)).iloc[0]
    assert 0 < est["ci_high"] - est["ci_low"] < np.subtract(*_wilson(600, 800)[::-1])
    assert est["ci_low"] < 0.75 < est["ci_high"]


def test_a_design_effect_below_one_from_few_games_does_not_narrow_wilson():
    # 5 games whose shares barely vary: the estimated design effect is far below 1
    y, x = [20, 21, 19, 20, 20], [50, 52, 48, 50, 50]
    est = stats.cluster_proportion(*_sums(y, x)).iloc[0]
    assert est["design_effect"] < 0.1
    low, high = _wilson(sum(y), sum(x))
    assert est["ci_low"] <= low + 1e-12 and est["ci_high"] >= high - 1e-12


def test_from_trusted_games_on_a_design_effect_below_one_narrows_it():
    rng = np.random.default_rng(5)
    g = 60
    x = np.full(g, 4)
    y = np.where(rng.random(g) < 0.2, 4, 3)  # 3 of 4 or 4 of 4: far less spread than binomial
    est = stats.cluster_proportion(*_sums(y, x)).iloc[0]
    assert g >= stats.TRUSTED_GAMES and est["design_effect"] < 0.5
    low, high = _wilson(y.sum(), x.sum())
    assert est["ci_high"] - est["ci_low"] < high - low
    # at the design effect times (t / z)^2: Korn and Graubard's few-games correction
    t = sps.t.ppf(0.975, g - 1)
    n_eff = x.sum() / (est["design_effect"] * (t / Z) ** 2)
    assert (est["ci_low"], est["ci_high"]) == pytest.approx(_wilson(est["estimate"] * n_eff, n_eff), abs=1e-12)


def test_few_games_widen_a_share_by_t_on_games_minus_one():
    y, x = [10, 30, 5, 40, 15], [50, 50, 50, 50, 50]  # strongly clustered: design effect above 1
    est = stats.cluster_proportion(*_sums(y, x)).iloc[0]
    assert est["design_effect"] > 1
    t = sps.t.ppf(0.975, 4)
    assert est["design_effect_used"] == pytest.approx(est["design_effect"] * (t / Z) ** 2, rel=1e-9)
    n_eff = 250 / est["design_effect_used"]
    assert (est["ci_low"], est["ci_high"]) == pytest.approx(_wilson(0.4 * n_eff, n_eff), abs=1e-12)


def test_a_share_of_zero_is_wilson_on_every_row():
    est = stats.cluster_proportion(*_sums([0] * 10, [7] * 10)).iloc[0]
    assert est["ci_low"] == 0 and est["ci_high"] == pytest.approx(_wilson(0, 70)[1])


def test_a_count_with_no_event_gets_the_rule_of_three():
    est = stats.cluster_count(*_sums([0] * 20, [15] * 20)).iloc[0]
    assert est["estimate"] == 0 and est["ci_low"] == 0
    assert est["ci_high"] == pytest.approx(-np.log(0.05) / 300)  # about 3 / n
    assert est["method"] == stats.POISSON_NONE


def test_a_count_with_a_few_events_is_exact_poisson_at_least():
    # 2 events in 300 deals, in two games: independent Poisson's Garwood interval is the floor
    y = [1, 1] + [0] * 18
    est = stats.cluster_count(*_sums(y, [15] * 20)).iloc[0]
    low = sps.chi2.ppf(0.025, 4) / 2 / 300
    high = sps.chi2.ppf(0.975, 6) / 2 / 300
    assert est["ci_low"] <= low + 1e-12 and est["ci_high"] >= high - 1e-12
    assert est["method"] == stats.CLUSTER_POISSON


def test_a_large_count_is_about_the_cluster_t_interval():
    rng = np.random.default_rng(2)
    x = np.full(400, 12)
    y = rng.poisson(3.0, 400)
    count = stats.cluster_count(*_sums(y, x)).iloc[0]
    mean = stats.cluster_mean(*_sums(y, x)).iloc[0]
    assert count["ci_high"] - count["ci_low"] == pytest.approx(mean["ci_high"] - mean["ci_low"], rel=0.02)


def test_means_that_all_agree_are_not_zero_width():
    est = stats.cluster_mean(*_sums([30, 30, 30], [10, 10, 10]), yy_rows=[270.0]).iloc[0]
    assert est["estimate"] == 3 and est["ci_high"] - est["ci_low"] > 0


def test_a_plain_mean_of_equal_values_takes_one_step_of_spread():
    """Equal values with their least step given: the interval of values one of which had been a step off."""
    est = stats.mean([0.25, 0.25, 0.25, 0.25], unit=0.25).iloc[0]
    off = np.array([0.25, 0.25, 0.25, 0.5])
    half = sps.t.ppf(0.975, 3) * off.std(ddof=1) / 2
    assert est["estimate"] == 0.25 and est["ci_high"] - 0.25 == pytest.approx(half) and est["ci_low"] < 0.25
    assert stats.mean([1.0, 2.0, 4.0], unit=0.25).iloc[0]["sd"] == pytest.approx(np.std([1, 2, 4], ddof=1))
    fixed = stats.mean([0.0, 0.0, 0.0]).iloc[0]  # no step given: a quantity the rules fix, known exactly
    assert fixed["ci_low"] == fixed["ci_high"] == 0


def test_a_clustered_mean_from_few_games_is_no_narrower_than_the_independent_one():
    # 4 games whose means agree although their rows vary: the cluster variance is tiny
    rows = [np.array([1, 5, 3, 7, 4]), np.array([7, 1, 4, 5, 3]), np.array([3, 3, 5, 4, 5]), np.array([4, 4, 4, 4, 4])]
    y = [r.sum() for r in rows]
    yy = sum((r * r).sum() for r in rows)
    est = stats.cluster_mean(*_sums(y, [5] * 4), yy_rows=[yy]).iloc[0]
    sd = np.concatenate(rows).std(ddof=1)
    assert est["ci_high"] - est["ci_low"] >= 2 * Z * sd / np.sqrt(20) - 1e-12


def test_design_effect_floor():
    assert stats.design_effect_floor([1, 4, stats.TRUSTED_GAMES - 1, stats.TRUSTED_GAMES, 500]).tolist() == \
        [1.0, 1.0, 1.0, 0.0, 0.0]


def test_rare_clustered_counts_are_covered_about_95_percent_of_the_time():
    """20 games of 15 deals, events at a rate of 0.3 per game or less and clustered (a game's rate
    drawn from a gamma with shape 2): the interval covers the rate it was drawn with in 92.5% or more of
    4,000 samples at every rate, and is never of zero width (the rule of three covers a sample with no
    event)."""
    rng = np.random.default_rng(45)
    samples, games, deals = 4000, 20, 15
    for per_deal in (0.002, 0.01, 0.02):
        game_rate = rng.gamma(2.0, per_deal * deals / 2.0, (samples, games))
        y = rng.poisson(game_rate).astype(float)
        x = np.full((samples, games), float(deals))
        est = stats.cluster_count(np.full(samples, games), x.sum(1), y.sum(1), (y * y).sum(1), (x * x).sum(1),
                                  (x * y).sum(1))
        covered = ((est["ci_low"] <= per_deal) & (per_deal <= est["ci_high"])).mean()
        assert covered >= 0.925, (per_deal, covered)
        assert (est["ci_high"] - est["ci_low"] > 0).all()


def test_km_median_of_games_that_all_end_at_once_has_no_upper_end():
    found = stats.km_median([5, 5, 5, 5], [1, 1, 1, 1])
    assert found["estimate"] == 5 and found["ci_low"] == 5 and found["ci_high"] == np.inf


def test_bootstrap_p_values_are_never_zero():
    reps = np.linspace(0.9, 1.1, 999)  # every replicate past the threshold 0.5
    p_exceeds, p_equivalent = stats.bootstrap_threshold_tests(1.0, reps, 0.5)
    assert p_exceeds == pytest.approx(2 / 1000) and p_equivalent == 1.0
    p_exceeds, p_equivalent = stats.bootstrap_threshold_tests(0.0, reps - 1.0, 0.5)
    assert p_equivalent == pytest.approx(1 / 1000)


def test_km_band_clustered_one_game_a_cluster_is_greenwoods():
    """The grouped infinitesimal jackknife with every game its own cluster is Greenwood's variance times
    C / (C - 1); with each game's time given twice in one cluster it is twice that."""
    rng = np.random.default_rng(7)
    time, event = rng.integers(1, 10, 50).astype(float), rng.random(50) < 0.7
    ones = np.ones(50, dtype=np.int64)
    greenwood = stats.km_from_counts(time, event, ones)
    clustered = stats.km_from_counts(time, event, ones, np.arange(50))
    twice = stats.km_from_counts(time, event, 2 * ones, np.arange(50))
    inside = (greenwood["survival"] > 0) & (greenwood["survival"] < 1)
    spread = lambda c: np.log(np.log(c["ci_low"][inside]) / np.log(c["survival"][inside])).to_numpy()
    assert spread(clustered) == pytest.approx(spread(greenwood) * np.sqrt(50 / 49), rel=1e-9)
    doubled_greenwood = stats.km_from_counts(time, event, 2 * ones)  # 100 independent games
    assert spread(twice) == pytest.approx(spread(doubled_greenwood) * np.sqrt(2 * 50 / 49), rel=1e-9)
