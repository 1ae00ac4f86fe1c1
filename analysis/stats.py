"""Intervals and tests, each a thin call into scipy or statsmodels that names the method it used.

Every estimate is reported with a 95% interval; every test result carries a ``test`` string saying
which test produced the p-value.  Nothing here knows about Kalooki.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as sps
from statsmodels.duration.survfunc import SurvfuncRight
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

CONFIDENCE = 0.95
WILSON = "Wilson 95% interval"
T_INTERVAL = "t 95% interval"
CORRECTION = "holm"
CORRECTION_NAME = "Holm (step-down Bonferroni), family-wise error 5%"
CLUSTER_WILSON = ("Wilson 95% interval at the effective n (n / design effect; variance cluster-robust by game, "
                  "corrected for few games by t on games - 1 df; design effect at least 1 unless the games show "
                  "it lower)")
CLUSTER_T = ("t 95% interval, cluster-robust (by game) standard error, df = games - 1; never narrower than the "
             "independent interval unless the games show the design effect below 1")
CLUSTER_POISSON = ("exact Poisson (Garwood) 95% interval at the effective count (count / dispersion; variance "
                   "cluster-robust by game, df = games - 1)")
# the words of the cluster methods above that name the clusters: games, or deals in a duplicate run
CLUSTER_WORDS = (("by game", "by deal"), ("games - 1", "deals - 1"), ("few games", "few deals"),
                 ("the games show", "the deals show"))
TRUSTED_GAMES = 20  # games from which a design effect below 1 is believed (design_effect_floor)
POISSON_NONE = "no event in the sample: one-sided 95% upper bound 3.0 / n (rule of three)"


def clustered_by(method: str, unit: str) -> str:
    """A cluster method's text with its clusters named: as written for games, or for ``unit`` "deal"
    (a duplicate run's rotations of one deal, one cluster; every rule is the same with deals counted)."""
    if unit == "game" or not isinstance(method, str):
        return method
    for game, deal in CLUSTER_WORDS:
        method = method.replace(game, deal)
    return method


def proportion(k, n) -> pd.DataFrame:
    """Estimates k/n with Wilson 95% intervals (statsmodels proportion_confint, method='wilson').

    Vectorised over arrays; n = 0 gives NaN estimate and interval.
    """
    k = np.atleast_1d(np.asarray(k, dtype=float))
    n = np.atleast_1d(np.asarray(n, dtype=float))
    ok = n > 0
    estimate = np.full(k.shape, np.nan)
    low, high = estimate.copy(), estimate.copy()
    if ok.any():
        estimate[ok] = k[ok] / n[ok]
        low[ok], high[ok] = proportion_confint(k[ok], n[ok], alpha=1 - CONFIDENCE, method="wilson")
    return pd.DataFrame({"n": n.astype(np.int64), "k": k.astype(np.int64), "estimate": estimate,
                         "ci_low": low, "ci_high": high, "method": WILSON})


def mean_from_moments(n, mean, sd) -> pd.DataFrame:
    """Means with t 95% intervals (scipy.stats.t.interval) from counts, means and sample sds.

    Vectorised; n < 2 gives a NaN interval (and NaN estimate when n = 0).
    """
    n = np.atleast_1d(np.asarray(n, dtype=float))
    mean = np.atleast_1d(np.asarray(mean, dtype=float))
    sd = np.atleast_1d(np.asarray(sd, dtype=float))
    low, high = np.full(n.shape, np.nan), np.full(n.shape, np.nan)
    ok = n >= 2
    if ok.any():
        sem = sd[ok] / np.sqrt(n[ok])
        lo, hi = sps.t.interval(CONFIDENCE, n[ok] - 1, loc=mean[ok], scale=np.where(sem > 0, sem, 1.0))
        # a zero-width interval when every value is equal (scipy gives NaN for scale 0)
        low[ok] = np.where(sem > 0, lo, mean[ok])
        high[ok] = np.where(sem > 0, hi, mean[ok])
    return pd.DataFrame({"n": n.astype(np.int64), "estimate": np.where(n > 0, mean, np.nan), "sd": sd,
                         "ci_low": low, "ci_high": high, "method": T_INTERVAL})


def mean(values, unit: float | None = None) -> pd.DataFrame:
    """Mean of `values` (NaN dropped) with a t 95% interval; one row.

    ``unit``: the least step a value can take (one game of a deal's rotations, one stake unit).  Where
    every value is equal the sample shows no spread, and its standard deviation is taken as if one value
    had been ``unit`` away from the others (sd = unit / sqrt(n)), so that a finite sample never gives an
    interval of zero width.  Without ``unit`` (a quantity the rules fix, not a sample) equal values give
    one of zero width."""
    values = np.asarray(values, dtype=float)
    values = values[~np.isnan(values)]
    n = values.size
    sd = values.std(ddof=1) if n > 1 else np.nan
    if n > 1 and unit is not None and not sd > 0:
        sd = unit / np.sqrt(n)
    return mean_from_moments(n, values.mean() if n else np.nan, sd)


def equal_shares(observed, expected=None) -> dict:
    """Chi-square goodness-of-fit test of `observed` counts against `expected` (equal shares if None).

    `expected` is rescaled to the observed total, as scipy.stats.chisquare requires.
    """
    observed = np.asarray(observed, dtype=float)
    total = observed.sum()
    name = "chi-square goodness of fit (scipy.stats.chisquare)"
    if observed.size < 2 or total == 0:
        return {"statistic": np.nan, "df": max(observed.size - 1, 0), "p_value": np.nan, "test": name}
    if expected is not None:
        expected = np.asarray(expected, dtype=float)
        expected = expected * total / expected.sum()
    result = sps.chisquare(observed, expected)
    return {"statistic": float(result.statistic), "df": observed.size - 1, "p_value": float(result.pvalue),
            "test": name}


def adjust(p_values, method: str = CORRECTION) -> tuple[np.ndarray, np.ndarray]:
    """Multiple-testing correction (statsmodels multipletests): (reject at 5%, adjusted p). NaN stays NaN."""
    p = np.asarray(p_values, dtype=float)
    reject = np.zeros(p.shape, dtype=bool)
    adjusted = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    if ok.any():
        reject[ok], adjusted[ok], _, _ = multipletests(p[ok], alpha=0.05, method=method)
    return reject, adjusted


def kaplan_meier(durations, observed) -> pd.DataFrame:
    """Kaplan-Meier survival S(t) = P(no event by t) at each event time (statsmodels SurvfuncRight).

    Returns columns time, n_at_risk, events, survival, ci_low, ci_high.  The interval is the pointwise
    95% interval on the log(-log S) scale from the Greenwood standard error.
    """
    durations = np.asarray(durations, dtype=float)
    observed = np.asarray(observed, dtype=bool)
    columns = ["time", "n_at_risk", "events", "survival", "ci_low", "ci_high"]
    if not observed.any():
        return pd.DataFrame(columns=columns).astype(float)
    fit = SurvfuncRight(durations, observed.astype(float))
    s, se = fit.surv_prob, fit.surv_prob_se
    z = sps.norm.ppf(0.5 + CONFIDENCE / 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        spread = z * se / np.abs(s * np.log(s))
        low = np.where((s > 0) & (s < 1), s ** np.exp(spread), np.nan)
        high = np.where((s > 0) & (s < 1), s ** np.exp(-spread), np.nan)
    low = np.where(s == 0, 0.0, low)
    high = np.where(s == 0, np.nan, high)
    return pd.DataFrame({"time": fit.surv_times, "n_at_risk": fit.n_risk.astype(np.int64),
                         "events": fit.n_events.astype(np.int64), "survival": s, "ci_low": low,
                         "ci_high": high})


def _upper_band(survival: np.ndarray, high: np.ndarray) -> np.ndarray:
    """The upper edge of the pointwise band where the median's upper end is read: where every game
    still at risk had the event (S = 0) the log-log band has no upper edge and the data bound S(t) by
    nothing, so it is 1 there (a median interval with no upper end, never one of zero width)."""
    return np.where(np.isnan(high), np.where(survival == 0, 1.0, survival), high)


def km_median(durations, observed) -> dict:
    """Kaplan-Meier median time to event: the first time S(t) <= 1/2, with the 95% interval where the
    pointwise log-log band crosses 1/2 (as R's survfit prints it; Brookmeyer and Crowley).  NaN where S
    never reaches 1/2; an upper bound of inf where the band's upper edge never does, as where the last
    games at risk all have the event at once (see :func:`_upper_band`)."""
    method = "Kaplan-Meier median; 95% interval where the pointwise log-log band crosses 1/2"
    curve = kaplan_meier(durations, observed)
    first = lambda values: float(curve["time"][values <= 0.5].min()) if (values <= 0.5).any() else np.inf
    survival = curve["survival"].to_numpy()
    estimate = first(survival)
    low = first(np.where(np.isnan(curve["ci_low"]), survival, curve["ci_low"]))
    high = first(_upper_band(survival, curve["ci_high"].to_numpy(dtype=float)))
    if np.isinf(estimate):
        estimate = np.nan
    return {"estimate": estimate, "ci_low": low if np.isfinite(low) else np.nan, "ci_high": high, "method": method}


# ---------------------------------------------------------------------------------------------
# ratio estimators over games (clusters), from per-game sums


def ratio_moments(games, x, y, Y2, X2, XY) -> tuple[np.ndarray, np.ndarray]:
    """R = sum y / sum x over games and its cluster-robust (by game) standard error, the linearisation
    estimate sqrt(G / (G - 1) * sum_g (y_g - R x_g)^2) / sum x, from the sums over games of y_g, x_g,
    y_g^2, x_g^2 and x_g y_g.  NaN where x = 0; a NaN standard error where G < 2."""
    games, x, y, Y2, X2, XY = (np.atleast_1d(np.asarray(a, dtype=float)) for a in (games, x, y, Y2, X2, XY))
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(x != 0, y / x, np.nan)
        residual = np.maximum(Y2 - 2 * r * XY + r * r * X2, 0.0)
        se = np.where(games >= 2, np.sqrt(games / (games - 1) * residual) / np.abs(x), np.nan)
    return r, se


def wilson(k, n, z=None):
    """Wilson interval for (possibly fractional) k successes of n (95%, or at the normal quantile z)."""
    z = sps.norm.ppf(0.5 + CONFIDENCE / 2) if z is None else z
    with np.errstate(divide="ignore", invalid="ignore"):
        p = k / n
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return np.clip(centre - half, 0, 1), np.clip(centre + half, 0, 1)


def _z() -> float:
    return float(sps.norm.ppf(0.5 + CONFIDENCE / 2))


def bonferroni_z(intervals: int, alpha: float) -> float:
    """The normal quantile that makes ``intervals`` two-sided intervals miss together with chance at most
    ``alpha`` (Bonferroni: each at ``1 - alpha / intervals``)."""
    return float(sps.norm.ppf(1 - alpha / (2 * intervals)))


def _t(games) -> np.ndarray:
    """The t quantile of a 95% interval on games - 1 degrees of freedom (NaN below 2 games)."""
    g = np.atleast_1d(np.asarray(games, dtype=float))
    out = np.full(g.shape, np.nan)
    ok = g >= 2
    out[ok] = sps.t.ppf(0.5 + CONFIDENCE / 2, g[ok] - 1)
    return out


def design_effect_floor(games) -> np.ndarray:
    """The least design effect an interval may use: 1 (the rows as if independent) below
    TRUSTED_GAMES games, where a cluster-robust variance is too uncertain to show the rows less
    variable than independent ones; 0 (no floor) from TRUSTED_GAMES games on, where an estimate below 1
    is used, widened by the few-games t correction like any other."""
    g = np.atleast_1d(np.asarray(games, dtype=float))
    return np.where(g >= TRUSTED_GAMES, 0.0, 1.0)


def _honest_moments(games, x, y, Y2, X2, XY):
    """(R, var, var_floor): R = y / x, its cluster-robust (CR1) variance G / (G - 1) * RSS / x^2 from
    the games' residual sum of squares RSS = sum_g (y_g - R x_g)^2, and, where every game agrees with
    R (RSS = 0), the variance at RSS = 1: one unit of y, as if one game had one success or one count
    more or less (0 elsewhere).  A variance is taken as at least var_floor, so games that all agree
    still leave an interval of some width."""
    games, x, y, Y2, X2, XY = (np.atleast_1d(np.asarray(a, dtype=float)) for a in (games, x, y, Y2, X2, XY))
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(x != 0, y / x, np.nan)
        rss = np.maximum(Y2 - 2 * r * XY + r * r * X2, 0.0)
        var = np.where(games >= 2, games / (games - 1) * rss / (x * x), np.nan)
        agree = rss <= 1e-9 * np.maximum(Y2, 1.0)  # every game at R: 0 but for rounding
        var_floor = np.where((games >= 2) & agree, games / (games - 1) / (x * x), 0.0)
    return r, var, var_floor


def cluster_proportion(games, x, y, Y2, X2, XY) -> pd.DataFrame:
    """Shares y/x with a Wilson 95% interval at an effective sample size, the rows clustered in games.

    The design effect deff is the cluster-robust (by game, CR1) variance over the binomial p(1-p)/n.
    The interval is Wilson's at n / deff_used, where deff_used is the larger of
    - deff * (t / z)^2, t the 95% quantile on games - 1 degrees of freedom (the few-games correction
      of Korn and Graubard: a design effect estimated from G games is as uncertain as a t on G - 1), and
    - the floor of :func:`design_effect_floor`: 1 below TRUSTED_GAMES games (never narrower than the
      independent Wilson interval where too few games can show the rows less variable than
      independent ones), none from there on.
    A sample whose games all have the same share has its residual sum of squares taken as one row's
    worth (no interval of zero width).  A share of 0 or 1 is Wilson's at n (deff 1).  ``design_effect``
    is the estimate, ``design_effect_used`` the one the interval is made at."""
    r, var, var_floor = _honest_moments(games, x, y, Y2, X2, XY)
    _, se = ratio_moments(games, x, y, Y2, X2, XY)
    x = np.atleast_1d(np.asarray(x, dtype=float))
    g = np.atleast_1d(np.asarray(games, dtype=float))
    z, t = _z(), _t(g)
    with np.errstate(divide="ignore", invalid="ignore"):
        binomial = r * (1 - r) / x
        inner = (binomial > 0) & np.isfinite(se)
        deff = np.where(inner, se * se / binomial, 1.0)
        deff_honest = np.where(inner, np.maximum(var, var_floor) / binomial, 1.0)
        used = np.where(inner, np.maximum(deff_honest * (t / z) ** 2, design_effect_floor(g)), 1.0)
        n_eff = x / used
    low, high = wilson(r * n_eff, n_eff)
    ok = x > 0
    return pd.DataFrame({"n": np.rint(x).astype(np.int64), "k": np.rint(np.atleast_1d(y)).astype(np.int64),
                         "estimate": r, "se": se, "ci_low": np.where(ok, np.minimum(low, r), np.nan),
                         "ci_high": np.where(ok, np.maximum(high, r), np.nan), "design_effect": deff,
                         "design_effect_used": used, "games": g.astype(np.int64), "method": CLUSTER_WILSON})


def within(est: pd.DataFrame, low: float | None = None, high: float | None = None,
           why: str = "the range its true value lies in") -> pd.DataFrame:
    """Intervals met with the range their true value lies in (``low`` to ``high``; None: no end there):
    an end past it is cut there.  The true value lies in the range, so an interval that covers it
    covers it cut: the coverage is kept (a small run's t interval of a count near 0, or of a share near
    1, otherwise reaches past it).  The method of a row cut names the cut and ``why``."""
    est = est.copy()
    below = est["ci_low"] < low if low is not None else pd.Series(False, index=est.index)
    above = est["ci_high"] > high if high is not None else pd.Series(False, index=est.index)
    est.loc[below, "ci_low"] = low
    est.loc[above, "ci_high"] = high
    both = low is not None and high is not None
    for rows, words in ((below & ~above, f"its lower end cut at {low:g}" if low is not None else ""),
                        (above & ~below, f"its upper end cut at {high:g}" if high is not None else ""),
                        (below & above, f"its ends cut at {low:g} and {high:g}" if both else "")):
        est.loc[rows, "method"] = est.loc[rows, "method"] + f", {words} ({why})"
    return est


def at_least_zero(est: pd.DataFrame) -> pd.DataFrame:
    """Intervals of means that cannot be negative with their lower end cut at 0 (``within``)."""
    return within(est, low=0.0, why="a mean that cannot be negative")


def cluster_mean(games, x, y, Y2, X2, XY, yy_rows=None) -> pd.DataFrame:
    """Means (or any ratio) y/x with 95% intervals from the cluster-robust (by game, CR1) standard
    error on games - 1 degrees of freedom; `yy_rows` (row-level sum of squares) gives the rows'
    standard deviation.

    Where the rows are clustered (a game holds more than one row) and `yy_rows` is given, below
    TRUSTED_GAMES games the interval is the wider of the cluster-robust t interval and the independent
    one (z times the rows' standard error; :func:`design_effect_floor`): too few games never narrow
    it below the independent interval.  Games that all have the same mean have their residual sum of squares taken as
    one unit of y (no interval of zero width)."""
    r, var, var_floor = _honest_moments(games, x, y, Y2, X2, XY)
    _, se = ratio_moments(games, x, y, Y2, X2, XY)
    g = np.atleast_1d(np.asarray(games, dtype=float))
    x = np.atleast_1d(np.asarray(x, dtype=float))
    X2 = np.atleast_1d(np.asarray(X2, dtype=float))
    half = _t(g) * np.sqrt(np.maximum(var, var_floor))
    sd = np.full(r.shape, np.nan)
    if yy_rows is not None:
        yy = np.atleast_1d(np.asarray(yy_rows, dtype=float))
        with np.errstate(divide="ignore", invalid="ignore"):
            sd = np.where(x >= 2, np.sqrt(np.maximum(yy - x * r * r, 0) / (x - 1)), np.nan)
            independent = sd * sd / x
            deff = np.where(independent > 0, np.maximum(var, var_floor) / independent, np.nan)
        clustered = (X2 > x) & np.isfinite(deff)  # some game holds more than one row
        floor_half = _z() * np.sqrt(design_effect_floor(g) * independent)
        half = np.where(clustered & np.isfinite(half), np.maximum(half, floor_half), half)
    return pd.DataFrame({"n": np.rint(x).astype(np.int64), "estimate": r, "sd": sd, "se": se, "ci_low": r - half,
                         "ci_high": r + half, "games": g.astype(np.int64), "method": CLUSTER_T})


def cluster_count(games, x, y, Y2, X2, XY, yy_rows=None) -> pd.DataFrame:
    """Mean counts y/x (events per row: reshuffles per deal, buy-ins per game) with an exact Poisson
    (Garwood) 95% interval at an effective count, the rows clustered in games.

    The dispersion phi is the cluster-robust (by game, CR1) variance over the Poisson one, R / x; the
    interval is Garwood's for y / phi_used events in x / phi_used rows, phi_used the larger of phi * (t /
    z)^2 (t on games - 1 degrees of freedom) and :func:`design_effect_floor`, as for a share.  A
    sample with no event at all gets the one-sided bound [0, -ln(0.05) / x] (the rule of three: under 3
    events in x rows at 95%), never [0, 0].  Large counts give the t interval of :func:`cluster_mean`;
    small ones the Poisson's skew."""
    r, var, var_floor = _honest_moments(games, x, y, Y2, X2, XY)
    _, se = ratio_moments(games, x, y, Y2, X2, XY)
    g = np.atleast_1d(np.asarray(games, dtype=float))
    x = np.atleast_1d(np.asarray(x, dtype=float))
    y = np.atleast_1d(np.asarray(y, dtype=float))
    z, t = _z(), _t(g)
    alpha = 1 - CONFIDENCE
    with np.errstate(divide="ignore", invalid="ignore"):
        poisson = r / x
        events = (y > 0) & np.isfinite(var)
        phi = np.where(events, np.maximum(var, var_floor) / poisson, 1.0)
        used = np.where(events, np.maximum(phi * (t / z) ** 2, design_effect_floor(g)), 1.0)
        k_eff, x_eff = y / used, x / used
        low = np.where(y > 0, sps.gamma.ppf(alpha / 2, np.where(y > 0, k_eff, 1.0)) / x_eff, 0.0)
        high = np.where(y > 0, sps.gamma.ppf(1 - alpha / 2, k_eff + 1) / x_eff, -np.log(alpha) / x)
    ok = x > 0
    sd = np.full(r.shape, np.nan)
    if yy_rows is not None:
        yy = np.atleast_1d(np.asarray(yy_rows, dtype=float))
        with np.errstate(divide="ignore", invalid="ignore"):
            sd = np.where(x >= 2, np.sqrt(np.maximum(yy - x * r * r, 0) / (x - 1)), np.nan)
    return pd.DataFrame({"n": np.rint(x).astype(np.int64), "estimate": r, "sd": sd, "se": se,
                         "ci_low": np.where(ok, np.minimum(low, r), np.nan),
                         "ci_high": np.where(ok, np.maximum(high, r), np.nan), "design_effect": phi,
                         "design_effect_used": used, "games": g.astype(np.int64),
                         "method": np.where(y > 0, CLUSTER_POISSON, POISSON_NONE)})


def t_test(estimate, se, null, df) -> float:
    """Two-sided p-value of (estimate - null) / se on df degrees of freedom; with se = 0 the answer is
    exact: 1 when estimate equals null, else 0."""
    if not np.isfinite(estimate) or not np.isfinite(df) or df < 1:
        return np.nan
    if not se > 0:
        return 1.0 if np.isclose(estimate, null, rtol=0, atol=1e-12) else 0.0
    return float(2 * sps.t.sf(abs(estimate - null) / se, df))


def _threshold_arrays(difference, se, df, threshold):
    return np.broadcast_arrays(*(np.atleast_1d(np.asarray(a, dtype=float)) for a in (difference, se, df, threshold)))


def exceeds_threshold(difference, se, df, threshold) -> np.ndarray:
    """p-value of the minimum-effect test of H0: |delta| <= threshold against |delta| > threshold:
    2 * P(T > (|d| - threshold) / se) on df degrees of freedom, at most 1, so p < alpha exactly when
    the two-sided (1 - alpha) t interval d +- t se lies entirely past +threshold or -threshold.
    With se = 0 the answer is exact (0 when |d| > threshold, else 1); NaN where an input is NaN."""
    d, se, df, t = _threshold_arrays(difference, se, df, threshold)
    p = np.full(d.shape, np.nan)
    ok = np.isfinite(d) & np.isfinite(se) & np.isfinite(df) & (df >= 1) & np.isfinite(t)
    exact = ok & ~(se > 0)
    p[exact] = np.where(np.abs(d[exact]) > t[exact], 0.0, 1.0)
    live = ok & (se > 0)
    p[live] = np.minimum(1.0, 2 * sps.t.sf((np.abs(d[live]) - t[live]) / se[live], df[live]))
    return p


def equivalence_tost(difference, se, df, threshold) -> np.ndarray:
    """p-value of the two one-sided tests (TOST) of H0: |delta| >= threshold against |delta| <
    threshold: the larger of P(T > (d + threshold) / se) and P(T < (d - threshold) / se), so p < alpha
    exactly when the (1 - 2 alpha) t interval lies inside (-threshold, +threshold).  With se = 0 the
    answer is exact (0 when |d| < threshold, else 1); NaN where an input is NaN."""
    d, se, df, t = _threshold_arrays(difference, se, df, threshold)
    p = np.full(d.shape, np.nan)
    ok = np.isfinite(d) & np.isfinite(se) & np.isfinite(df) & (df >= 1) & np.isfinite(t)
    exact = ok & ~(se > 0)
    p[exact] = np.where(np.abs(d[exact]) < t[exact], 0.0, 1.0)
    live = ok & (se > 0)
    above = sps.t.sf((d[live] + t[live]) / se[live], df[live])  # H0: delta <= -threshold
    below = sps.t.cdf((d[live] - t[live]) / se[live], df[live])  # H0: delta >= +threshold
    p[live] = np.maximum(above, below)
    return p


def welch_df(se_a, g_a, se_b, g_b) -> float:
    """Welch-Satterthwaite degrees of freedom of a difference of two independent estimates."""
    va, vb = se_a * se_a, se_b * se_b
    denominator = (va * va / (g_a - 1) if g_a > 1 else 0) + (vb * vb / (g_b - 1) if g_b > 1 else 0)
    return (va + vb) ** 2 / denominator if denominator > 0 else float(max(g_a + g_b - 2, 1))


KM_GREENWOOD = "Greenwood standard error, log-log 95% interval (one time per game)"
KM_BY_DEAL = ("cluster-robust standard error over deals (the grouped infinitesimal jackknife: each deal's "
              "games together), log-log 95% interval")


def km_from_counts(time, event, games, cluster=None) -> pd.DataFrame:
    """Kaplan-Meier from a histogram: `games` games ended at `time` with (event) or without (censored)
    the event.  Columns as :func:`kaplan_meier`: log(-log S) 95% band from Greenwood's standard error,
    or, given each row's `cluster` (the deal of a duplicate run), from the cluster-robust variance of
    :func:`_km_cluster_variance`."""
    frame = pd.DataFrame({"time": np.asarray(time, dtype=float), "event": np.asarray(event, dtype=bool),
                          "games": np.asarray(games, dtype=np.int64)})
    columns = ["time", "n_at_risk", "events", "survival", "ci_low", "ci_high"]
    if not (frame["event"] & (frame["games"] > 0)).any():
        return pd.DataFrame(columns=columns).astype(float)
    by_time = frame.pivot_table(index="time", columns="event", values="games", aggfunc="sum", fill_value=0)
    by_time = by_time.reindex(columns=[False, True], fill_value=0).sort_index()
    leaving = by_time[False].to_numpy() + by_time[True].to_numpy()
    at_risk = leaving[::-1].cumsum()[::-1]
    events = by_time[True].to_numpy()
    keep = events > 0
    t, n, d = by_time.index.to_numpy()[keep], at_risk[keep].astype(float), events[keep].astype(float)
    s = np.cumprod(1 - d / n)
    with np.errstate(divide="ignore", invalid="ignore"):
        if cluster is None:
            se = s * np.sqrt(np.cumsum(np.where(n > d, d / (n * (n - d)), 0.0)))  # Greenwood
        else:
            se = np.sqrt(_km_cluster_variance(frame.assign(cluster=np.asarray(cluster)), t, n, d, s))
        z = sps.norm.ppf(0.5 + CONFIDENCE / 2)
        spread = z * se / np.abs(s * np.log(s))
        low = np.where((s > 0) & (s < 1), s ** np.exp(spread), np.nan)
        high = np.where((s > 0) & (s < 1), s ** np.exp(-spread), np.nan)
    low = np.where(s == 0, 0.0, low)
    high = np.where(s == 0, np.nan, high)
    return pd.DataFrame({"time": t, "n_at_risk": n.astype(np.int64), "events": d.astype(np.int64), "survival": s,
                         "ci_low": low, "ci_high": high})


def _km_cluster_variance(frame: pd.DataFrame, t, n, d, s) -> np.ndarray:
    """The cluster-robust variance of the Kaplan-Meier S(t) at the event times `t` (at risk `n`, events
    `d`, estimate `s`): the grouped infinitesimal jackknife (Lin and Wei's sandwich; R's
    ``survfit(..., cluster=)``).  A game's influence on S(t) is
    U(t) = -S(t) * sum over event times t_j <= t of (dN_j * n_j - d_j * at_risk_j) / (n_j * (n_j - d_j)),
    with dN_j its event at t_j and at_risk_j whether it is still at risk; a cluster's influence is the
    sum over its games and var S(t) = C / (C - 1) * sum over clusters of U_c(t)^2 (C clusters, the small-
    sample factor of the other cluster-robust variances).  With one game a cluster the sum is
    Greenwood's variance exactly (but for C / (C - 1)); with n identical games a cluster it is n times
    Greenwood's."""
    clusters, c = np.unique(frame["cluster"].to_numpy(), return_inverse=True)
    c = c.reshape(-1)
    j = np.searchsorted(t, frame["time"].to_numpy())  # the first event time at or after the game's end
    games = frame["games"].to_numpy(dtype=float)
    size = (clusters.size, t.size + 1)
    # at risk at event time t_j: games ending at or after t_j (count at index j, then reverse cumsum)
    at_risk = np.bincount(c * size[1] + j, weights=games, minlength=size[0] * size[1]).reshape(size)
    at_risk = at_risk[:, ::-1].cumsum(axis=1)[:, ::-1][:, :t.size]
    on_time = frame["event"].to_numpy(dtype=bool) & (j < t.size)
    on_time &= t[np.minimum(j, t.size - 1)] == frame["time"].to_numpy()
    events = np.bincount(c[on_time] * t.size + j[on_time], weights=games[on_time],
                         minlength=size[0] * t.size).reshape(size[0], t.size)
    with np.errstate(divide="ignore", invalid="ignore"):
        step = np.where(n > d, (events * n - d * at_risk) / (n * (n - d)), 0.0)
    influence = -s * np.cumsum(step, axis=1)
    factor = clusters.size / (clusters.size - 1) if clusters.size > 1 else 1.0
    return factor * (influence * influence).sum(axis=0)


def km_median_from_curve(curve: pd.DataFrame) -> dict:
    """The Kaplan-Meier median and its interval (see :func:`km_median`) from a curve."""
    method = "Kaplan-Meier median; 95% interval where the pointwise log-log band crosses 1/2"
    first = lambda values: float(curve["time"][values <= 0.5].min()) if (values <= 0.5).any() else np.inf
    survival = curve["survival"].to_numpy(dtype=float)
    estimate = first(survival)
    low = first(np.where(np.isnan(curve["ci_low"].to_numpy(dtype=float)), survival, curve["ci_low"]))
    high = first(_upper_band(survival, curve["ci_high"].to_numpy(dtype=float)))
    if np.isinf(estimate):
        estimate = np.nan
    return {"estimate": estimate, "ci_low": low if np.isfinite(low) else np.nan, "ci_high": high, "method": method}


def bootstrap_threshold_tests(estimate, replicates, threshold) -> tuple[float, float]:
    """(p_exceeds, p_equivalent) of a difference from its B bootstrap replicates: the percentile
    bootstrap's achieved significance levels (Efron and Tibshirani), the counterparts of
    :func:`exceeds_threshold` and :func:`equivalence_tost`, each counted as (k + 1) / (B + 1) (the
    estimate itself one of the B + 1 values; Davison and Hinkley), so never exactly 0.  Minimum-effect
    test of H0 |delta| <= threshold: 2 (k + 1) / (B + 1), k the replicates at or inside the threshold
    on the estimate's side, at most 1; TOST of H0 |delta| >= threshold: the larger of (k + 1) / (B +
    1) over the replicates at or past -threshold and those at or past +threshold.  Either rejects at
    alpha about when the two-sided (1 - alpha), or the (1 - 2 alpha), percentile interval lies past the
    threshold, or inside it.  Resolution 1 / (B + 1): with few replicates the p-values are coarse and
    cannot fall below 2 / (B + 1).  NaN without finite replicates, estimate or threshold."""
    reps = np.asarray(replicates, dtype=float)
    reps = reps[np.isfinite(reps)]
    b = reps.size
    if not b or not np.isfinite(estimate) or not np.isfinite(threshold):
        return np.nan, np.nan
    share = lambda k: (k + 1) / (b + 1)
    inside = (reps <= threshold).sum() if estimate > 0 else (reps >= -threshold).sum()
    p_exceeds = min(1.0, 2 * share(inside)) if estimate != 0 else 1.0
    p_equivalent = max(share((reps <= -threshold).sum()), share((reps >= threshold).sum()))
    return float(p_exceeds), float(p_equivalent)


# ---------------------------------------------------------------------------------------------
# the percentile bootstrap over clusters (deals or games)

PERCENTILE_BOOTSTRAP = "percentile bootstrap 95% interval over games ({boot:,} replicates)"


def bootstrap_weights(rng: np.random.Generator, n: int) -> np.ndarray:
    """One bootstrap replicate of n clusters: how often each is drawn in n draws with replacement."""
    return rng.multinomial(n, np.full(n, 1.0 / n)).astype(np.float64)


def percentile_interval(replicates, level: float = CONFIDENCE) -> tuple[float, float]:
    """The percentile bootstrap interval: the (1 - level) / 2 and 1 - (1 - level) / 2 quantiles of the
    finite replicates; NaN, NaN without any."""
    values = np.asarray(replicates, dtype=np.float64)
    values = values[np.isfinite(values)]
    if not values.size:
        return np.nan, np.nan
    return float(np.quantile(values, (1 - level) / 2)), float(np.quantile(values, 1 - (1 - level) / 2))


def bootstrap_ratio(y, x, weights: np.ndarray) -> pd.DataFrame:
    """sum y / sum x over clusters (games) with its percentile bootstrap 95% interval, the clusters
    resampled by ``weights`` (replicates x clusters, rows of ``bootstrap_weights``).  A ratio of
    non-negative sums stays within the range of the per-cluster values, so its interval never leaves
    it (a mean count's never falls below 0, as a t interval can).  Columns estimate, ci_low, ci_high."""
    y, x = np.asarray(y, dtype=np.float64), np.asarray(x, dtype=np.float64)
    total = x.sum()
    estimate = y.sum() / total if total != 0 else np.nan
    with np.errstate(divide="ignore", invalid="ignore"):
        reps = (weights @ y) / (weights @ x)
    low, high = percentile_interval(reps) if np.isfinite(estimate) else (np.nan, np.nan)
    return pd.DataFrame({"estimate": [estimate], "ci_low": [low], "ci_high": [high]})
