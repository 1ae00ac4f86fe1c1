"""Tuning one rule parameter to a target: where a headline metric meets a value the designer asks for.

The data are per-game sums (y_g, x_g) of one headline metric at each value of the parameter that was
played, every game keyed by its deal (``key``): the same key at two values is the same deal, so the
values are compared on common deals.  A metric is a ratio of sums over games, sum y / sum x
(``analysis.summaries``), so only the headline metrics of kind proportion or mean can be tuned.

The fit (:func:`fit`):

- each played value's estimate is its ratio over every game played there;
- the metric is assumed monotone in the parameter over the range searched; its direction is the sign
  of the highest value's estimate minus the lowest's, and the estimates are fitted by weighted
  isotonic regression (pool adjacent violators, weights the denominators sum x, so a pooled stretch is
  the ratio of its pooled sums; scipy's ``optimize.isotonic_regression``);
- the answer is where the fitted curve, joined linearly between played values, meets the target
  (the inverse of a monotone piecewise-linear curve, as scipy's ``brentq`` would find on it; censored
  at the range's end when the curve does not reach the target there);
- its 95% interval is the percentile bootstrap over deals: every replicate draws the deals (keys) with
  replacement, the same draw at every value (the pairing kept), and repeats the whole fit -> crossing;
  the per-value intervals are the same replicates' percentiles;
- practically equal: a played value whose 90% bootstrap interval lies within the target plus or minus
  the metric's threshold of ``configs/thresholds.toml`` (the equivalence test, TOST at 5%); the fitted
  range where the curve lies within that band is reported beside them.

What it cannot answer it refuses (:func:`check`): a target outside every played value's 95% interval
(the range it saw, with its intervals), or a metric shown not monotone: an adjacent step of played
values whose paired interval (on the deals played at both, 99% Bonferroni-corrected over the steps) lies
wholly against the direction (where).

A study read back (:func:`load_study`), its tables (:func:`values_frame`, :func:`answer_frame`,
:func:`stages_frame`) and the terminal summary (:func:`terminal_lines`) are made here; the page that
shows them is ``analysis.tune_page``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace

import numpy as np
import pandas as pd

from sim.errors import UserError

from . import findings, metrics, stats

BOOT = 400  # bootstrap replicates of the whole fit
TUNABLE_KINDS = ("proportion", "mean")
EQUIVALENCE_LEVEL = 0.90  # TOST at 5%: the 90% interval inside the band
TUNE_DOC = "tune.json"


def tunable_metrics() -> list[str]:
    """Headline metrics that are a ratio of per-game sums (kinds proportion and mean), in headline order."""
    return [m for m, _, _ in metrics.HEADLINE if metrics.METRIC_INFO[m][0] in TUNABLE_KINDS]


def check_metric(metric: str) -> str:
    """``metric`` if it can be tuned; UserError naming the allowed ones otherwise."""
    allowed = tunable_metrics()
    if metric in allowed:
        return metric
    if metric in metrics.METRIC_INFO:
        kind = metrics.METRIC_INFO[metric][0]
        raise UserError(f"--target {metric}: a {kind} is not a ratio of per-game sums, so it cannot be tuned; "
                        f"allowed: {', '.join(allowed)}")
    from sim.profiles import closest
    raise UserError(f"--target: unknown metric {metric!r}; {closest(metric, allowed)}")


def metric_kind(metric: str) -> str:
    return metrics.METRIC_INFO[metric][0]


def run_sums(run_dir, profile: str, metric: str) -> pd.DataFrame:
    """Per-game (y, x) of ``metric`` in one run of ``profile`` (verified first), indexed by game_id."""
    from .differences import per_game
    data = metrics.load_verified(run_dir, False, [profile], keep_games=True)
    if metric in metrics.ELIMINATION_METRICS and not data.elimination(profile):
        game_end = data.manifest["profiles"][profile]["params"].get("game_end")
        raise UserError(f"--target {metric}: not applicable, profile {profile} has no elimination "
                        f"(game_end = {game_end})")
    return per_game(SimpleNamespace(run=data), profile, metric)


# ---------------------------------------------------------------------------------------------
# the fit


@dataclass
class Data:
    """Per-game sums at each played value: value -> DataFrame(key, y, x), keys naming deals."""
    by_value: dict = field(default_factory=dict)

    def add(self, value: int, keys, y, x) -> None:
        part = pd.DataFrame({"key": np.asarray(keys, dtype=np.int64), "y": np.asarray(y, dtype=np.float64),
                             "x": np.asarray(x, dtype=np.float64)})
        old = self.by_value.get(value)
        self.by_value[value] = part if old is None else pd.concat([old, part], ignore_index=True)

    @property
    def values(self) -> list:
        return sorted(self.by_value)

    def games(self, value) -> int:
        return len(self.by_value[value])


@dataclass
class Fit:
    """The fitted curve and the crossing; every interval a percentile bootstrap over deals."""
    metric: str
    target: float
    threshold: float
    lo: int
    hi: int
    table: pd.DataFrame  # value, games, estimate, ci_low, ci_high, eq_low, eq_high, fitted, practically_equal
    increasing: bool
    crossing: float  # the fitted curve meets the target here (lo or hi when censored)
    ci_low: float
    ci_high: float
    censored: str  # "", "below" (at or below lo), "above" (at or above hi)
    equal_range: tuple  # (a, b): where the fitted curve lies within target +- threshold (NaN if nowhere)
    steps: pd.DataFrame  # adjacent played values: value_a, value_b, difference, ci_low, ci_high (Bonferroni)
    replicates: int
    boot_crossings: np.ndarray = field(default=None, repr=False)  # the crossing in each bootstrap replicate

    @property
    def equal_values(self) -> list:
        return [int(v) for v in self.table.loc[self.table["practically_equal"], "value"]]

    @property
    def bracket(self) -> tuple | None:
        """The two adjacent integers around the crossing (None when it falls on one or is censored)."""
        if self.censored or float(self.crossing).is_integer():
            return None
        k = int(np.floor(self.crossing))
        return k, k + 1

    @property
    def decided(self) -> bool:
        """The 95% interval lies between two adjacent integers (or on one): the bracket is known."""
        if not (np.isfinite(self.ci_low) and np.isfinite(self.ci_high)):
            return False
        return np.ceil(self.ci_high) - np.floor(self.ci_low) <= 1 and not self.censored


def crossings(values: np.ndarray, curves: np.ndarray, target: float, increasing: bool) -> np.ndarray:
    """Where each row of ``curves`` (monotone in ``increasing``'s direction at ``values``), joined
    linearly, first meets ``target``; values[0] when it starts past the target, values[-1] when it
    never reaches it."""
    g = np.atleast_2d(curves) if increasing else -np.atleast_2d(curves)
    t = target if increasing else -target
    x = np.asarray(values, dtype=np.float64)
    reached = g >= t
    first = np.argmax(reached, axis=1)
    out = np.where(reached.any(axis=1), np.nan, x[-1])
    at_start = reached[:, 0]
    out[at_start] = x[0]
    inner = reached.any(axis=1) & ~at_start
    rows = np.nonzero(inner)[0]
    i = first[rows]
    g0, g1 = g[rows, i - 1], g[rows, i]
    out[rows] = x[i - 1] + (t - g0) / (g1 - g0) * (x[i] - x[i - 1])
    return out


def _isotonic(rows: np.ndarray, weights: np.ndarray, increasing: bool) -> np.ndarray:
    from scipy.optimize import isotonic_regression
    out = np.empty_like(rows)
    for r in range(rows.shape[0]):
        w = np.where(weights[r] > 0, weights[r], 1e-12)
        out[r] = isotonic_regression(rows[r], weights=w, increasing=increasing).x
    return out


def deal_keys(data: Data) -> np.ndarray:
    """Every deal (key) played at some value, sorted: the columns of a bootstrap's weights."""
    return np.unique(np.concatenate([data.by_value[v]["key"].to_numpy() for v in data.values]))


def resample_deals(keys: np.ndarray, boot: int, rng: np.random.Generator) -> np.ndarray:
    """``boot`` x len(keys) bootstrap weights: each replicate draws the deals with replacement (how many
    times each is drawn)."""
    n = len(keys)
    return rng.multinomial(n, np.full(n, 1.0 / n), size=boot).astype(np.float64)


def fit(data: Data, metric: str, target: float, threshold: float, lo: int, hi: int, *, boot: int = BOOT,
        seed: int = 0, weights=None) -> Fit:
    """The monotone fit of the metric on the parameter and its crossing of ``target``, with percentile
    bootstrap intervals over deals (``boot`` replicates from ``seed``; or ``weights(keys)``, the weights
    of ``deal_keys(data)`` in each replicate, as two studies on common deals are resampled together)."""
    values = data.values
    keys = deal_keys(data)
    n_keys = len(keys)
    Y = np.zeros((n_keys, len(values)))
    X = np.zeros((n_keys, len(values)))
    P = np.zeros((n_keys, len(values)), dtype=bool)  # deal k played at value j
    for j, v in enumerate(values):
        part = data.by_value[v].groupby("key")[["y", "x"]].sum()
        idx = np.searchsorted(keys, part.index.to_numpy())
        Y[idx, j], X[idx, j], P[idx, j] = part["y"].to_numpy(), part["x"].to_numpy(), True
    if weights is None:
        W = resample_deals(keys, boot, np.random.default_rng(np.random.SeedSequence([int(seed), 46])))
    else:
        W = np.asarray(weights(keys), dtype=np.float64)
        boot = len(W)
    W = np.vstack([np.ones(n_keys), W])  # row 0: the data as they are
    with np.errstate(divide="ignore", invalid="ignore"):
        sy, sx = W @ Y, W @ X
        ratio = sy / sx
    est, reps = ratio[0], ratio[1:]
    if not np.all(np.isfinite(est)):
        empty = [v for v, e in zip(values, est) if not np.isfinite(e)]
        raise UserError(f"{metric} has no denominator at {', '.join(map(str, empty))} (no game counted in it); "
                        "choose a metric these games measure")
    increasing = bool(est[-1] >= est[0])
    reps = np.where(np.isfinite(reps), reps, est)  # a value with no counted game in a replicate: its estimate
    curves = _isotonic(np.vstack([est, reps]), np.vstack([sx[0], np.where(np.isfinite(sx[1:]), sx[1:], 0)]),
                       increasing)
    theta = crossings(values, curves, target, increasing)
    ci = np.quantile(theta[1:], [0.025, 0.975])
    pct = lambda q: np.quantile(reps, q, axis=0)
    half = (1 - EQUIVALENCE_LEVEL) / 2
    table = pd.DataFrame({"value": values, "games": [data.games(v) for v in values], "estimate": est,
                          "ci_low": pct(0.025), "ci_high": pct(0.975), "eq_low": pct(half),
                          "eq_high": pct(1 - half), "fitted": curves[0]})
    table["practically_equal"] = (table["eq_low"] >= target - threshold) & (table["eq_high"] <= target + threshold)
    censored = ""
    if theta[0] == values[0] and not _meets(curves[0][0], target):
        censored = "below" if increasing else "above"
    elif theta[0] == values[-1] and not _meets(curves[0][-1], target):
        censored = "above" if increasing else "below"
    band = sorted(float(crossings(values, curves[:1], t, increasing)[0]) for t in (target - threshold,
                                                                                  target + threshold))
    inside = np.abs(curves[0] - target) <= threshold
    equal_range = tuple(band) if inside.any() or band[0] < band[1] else (np.nan, np.nan)
    steps = _steps(values, W, Y, X, P)
    return Fit(metric, float(target), float(threshold), lo, hi, table, increasing, float(theta[0]), float(ci[0]),
               float(ci[1]), censored, equal_range, steps, boot, theta[1:])


def _meets(value: float, target: float) -> bool:
    return bool(np.isclose(value, target, rtol=0, atol=1e-12))


MONOTONE_ALPHA = 0.01  # family-wise error of refusing a range as not monotone (Bonferroni over the steps)
MIN_COMMON_GAMES = 10  # a step is tested only on at least this many deals played at both values


def _steps(values, W, Y, X, P) -> pd.DataFrame:
    """Each adjacent pair of played values, on the deals played at both (paired): the difference of the
    metric, its standard error (the bootstrap replicates' standard deviation) and a normal interval at
    1 - MONOTONE_ALPHA, Bonferroni-corrected over the pairs tested.  Pairs with fewer than
    MIN_COMMON_GAMES common deals are left untested (NaN)."""
    rows = []
    for a in range(len(values) - 1):
        common = P[:, a] & P[:, a + 1]
        n = int(common.sum())
        d = se = np.nan
        if n >= MIN_COMMON_GAMES:
            w = W[:, common]
            with np.errstate(divide="ignore", invalid="ignore"):
                ra = (w @ Y[common, a]) / (w @ X[common, a])
                rb = (w @ Y[common, a + 1]) / (w @ X[common, a + 1])
            diff = rb - ra
            d = diff[0]
            se = np.nanstd(diff[1:], ddof=1)
        rows.append({"value_a": values[a], "value_b": values[a + 1], "common_games": n, "difference": d, "se": se})
    out = pd.DataFrame(rows, columns=["value_a", "value_b", "common_games", "difference", "se"])
    tested = max(1, int(out["se"].notna().sum()))
    z = stats.bonferroni_z(tested, MONOTONE_ALPHA)
    out["ci_low"] = out["difference"] - z * out["se"]
    out["ci_high"] = out["difference"] + z * out["se"]
    return out


def fmt_estimate(metric: str, value, low=None, high=None) -> str:
    kind = metric_kind(metric)
    text = findings.fmt_value(metric, value, kind)
    if low is not None:
        text += f" [{findings.fmt_interval(metric, low, high, kind)}]"
    return text


def check(f: Fit, param: str, monotone: bool = True) -> None:
    """Refuse (UserError) what the fit cannot answer: a target outside every played value's 95% interval,
    or (``monotone``) a step of adjacent values shown to go against the metric's direction over the range."""
    t = f.table
    label = findings.show(f.metric, metric_kind(f.metric)).label.lower()
    if f.target < t["ci_low"].min() or f.target > t["ci_high"].max():
        first, last = t.iloc[0], t.iloc[-1]
        raise UserError(
            f"--target {f.metric}={f.target:g} is outside what {param} {f.lo}..{f.hi} gives: {label} "
            f"{fmt_estimate(f.metric, first.estimate, first.ci_low, first.ci_high)} at {int(first.value)} to "
            f"{fmt_estimate(f.metric, last.estimate, last.ci_low, last.ci_high)} at {int(last.value)} (95% intervals, "
            f"{int(first.games)} and {int(last.games)} games); widen --param or choose a target in that range")
    wrong = f.steps[(f.steps["ci_high"] < 0) if f.increasing else (f.steps["ci_low"] > 0)]
    if monotone and len(wrong):
        s = wrong.iloc[0]
        way = "falls" if f.increasing else "rises"
        trend = "rises" if f.increasing else "falls"
        raise UserError(
            f"{f.metric} is not monotone in {param} over {f.lo}..{f.hi}: it {trend} from {int(t.iloc[0].value)} to "
            f"{int(t.iloc[-1].value)} but {way} from {int(s.value_a)} to {int(s.value_b)} by "
            f"{findings.fmt_difference(f.metric, s.difference, np.nan, np.nan, metric_kind(f.metric))} "
            f"({findings.fmt_interval(f.metric, s.ci_low, s.ci_high, metric_kind(f.metric))}, "
            f"{1 - MONOTONE_ALPHA:.0%} Bonferroni, on {int(s.common_games)} common deals); "
            f"tune assumes one direction: narrow --param to one side of {int(s.value_a)}..{int(s.value_b)}")


# ---------------------------------------------------------------------------------------------
# words


def answer_text(f: Fit, param: str) -> str:
    """The answer in one sentence: the crossing, its interval, the bracket or the value met."""
    interval = f"95% interval {f.ci_low:.2f}–{f.ci_high:.2f}"
    if f.censored:
        edge = f.lo if f.censored == "below" else f.hi
        side = "at or below" if f.censored == "below" else "at or above"
        return f"{f.metric} meets {f.target:g} {side} {param} = {edge}, the end of the range searched ({interval})"
    where = (f"between {param} = {f.bracket[0]} and {f.bracket[1]}" if f.bracket
             else f"at {param} = {int(f.crossing)}")
    return f"{f.metric} meets {f.target:g} at {param} ≈ {f.crossing:.2f} ({interval}): {where}"


def equal_text(f: Fit, param: str) -> str:
    band = f"{fmt_estimate(f.metric, f.target - f.threshold)}–{fmt_estimate(f.metric, f.target + f.threshold)}"
    shown = f.equal_values
    said = (f"shown practically equal (90% interval inside {band}) at {param} = {', '.join(map(str, shown))}"
            if shown else f"no value played is shown practically equal (90% interval inside {band})")
    a, b = f.equal_range
    if np.isfinite(a) and np.isfinite(b):
        said += f"; the fitted curve lies in that band for {param} ≈ {a:.1f}–{b:.1f}"
    return said


def values_frame(f: Fit) -> pd.DataFrame:
    """Every played value: games, estimate, 95% and 90% intervals, the fitted curve, practically equal."""
    out = f.table.copy()
    out.insert(0, "metric", f.metric)
    out["target"] = f.target
    out["threshold"] = f.threshold
    return out


def answer_frame(f: Fit, param: str) -> pd.DataFrame:
    lo_b, hi_b = f.bracket or (np.nan, np.nan)
    return pd.DataFrame([{"param": param, "metric": f.metric, "target": f.target, "threshold": f.threshold,
                          "crossing": f.crossing, "ci_low": f.ci_low, "ci_high": f.ci_high, "censored": f.censored,
                          "bracket_low": lo_b, "bracket_high": hi_b,
                          "equal_values": " ".join(map(str, f.equal_values)),
                          "equal_range_low": f.equal_range[0], "equal_range_high": f.equal_range[1],
                          "direction": "increasing" if f.increasing else "decreasing",
                          "games": int(f.table["games"].sum()), "replicates": f.replicates}])


def load_study(study) -> tuple[Fit, pd.DataFrame, dict]:
    """A tune study folder (a path or URI holding tune.json and its runs) read back: the fit of every game
    it played (the same numbers the command printed), its stages as a table and its document."""
    data, doc = load_data(study)
    f = fit(data, doc["metric"], doc["target"], study_threshold(doc), doc["lo"], doc["hi"], seed=doc["seed"])
    return f, stages_frame(doc["stages"]), doc


def study_threshold(doc: dict) -> float:
    """The practical threshold a study was judged by (its answer's), else the shipped one of its metric."""
    threshold = (doc.get("answer") or {}).get("threshold")
    return findings.default_thresholds()[doc["metric"]].threshold if threshold is None else threshold


def read_doc(study) -> dict:
    """A tune study's tune.json (a path or URI), refused (UserError) where there is none with a finished stage."""
    import json

    from sim import runformat
    loc = runformat.locate(str(study), "tune study")
    raw = runformat.read_bytes(loc.fs, loc.path(TUNE_DOC))
    try:
        doc = json.loads(raw) if raw is not None else None
        assert isinstance(doc, dict) and doc.get("format") == "kalooki-lab tune" and doc.get("stages")
    except (ValueError, AssertionError):
        raise UserError(f"{study}: no kalooki-lab tune study with a finished stage here ({TUNE_DOC})") from None
    return doc


def load_data(study) -> tuple[Data, dict]:
    """Every game a tune study played (its runs, verified), as the fit takes them, and its tune.json."""
    from sim import runformat
    doc = read_doc(study)
    data = Data()
    for stage in doc["stages"]:
        for v in stage["values"]:
            sums = run_sums(runformat.join_uri(str(study), f"{doc['param']}={v}/block-{stage['block']:03d}"),
                            doc["profile"], doc["metric"])
            data.add(v, stage["block"] * 2 ** 32 + sums.index.to_numpy(), sums["y"], sums["x"])
    return data, doc


def stages_frame(stages: list[dict]) -> pd.DataFrame:
    """The search's stages (tune.json's entries) as a table: the block, the values played on it, the games,
    and the answer with its 95% interval after the stage."""
    rows = []
    for s in stages:
        answer = list(s.get("answer") or []) + [np.nan] * 3
        rows.append({"stage": s["block"], "values": " ".join(map(str, s["values"])), "games_each": s["games"],
                     "games": s["games"] * len(s["values"]), "answer": answer[0], "ci_low": answer[1],
                     "ci_high": answer[2]})
    return pd.DataFrame(rows, columns=["stage", "values", "games_each", "games", "answer", "ci_low", "ci_high"])


def terminal_lines(f: Fit, param: str, width: int = 100) -> list[str]:
    """The values played (one line each, at most 20: the nearest to the answer) and the answer."""
    t = f.table
    shown = t.iloc[np.argsort(np.abs(t["value"].to_numpy() - f.crossing), kind="stable")[:20]].sort_values("value")
    lines = [f"{param:>14s}  {'games':>7s}  {f.metric + ' [95% interval]':38s}  {'fitted':>8s}  equal"]
    for r in shown.itertuples(index=False):
        estimate = fmt_estimate(f.metric, r.estimate, r.ci_low, r.ci_high)
        lines.append(f"{int(r.value):>14d}  {int(r.games):>7,d}  {estimate:38s}"
                     f"  {findings.fmt_value(f.metric, r.fitted, metric_kind(f.metric)):>8s}  "
                     f"{'≈' if r.practically_equal else ''}")
    if len(shown) < len(t):
        lines.append(f"({len(t) - len(shown)} values further from the answer in the CSV)")
    import textwrap
    lines = [line[:width] for line in lines]
    for text in (answer_text(f, param), equal_text(f, param)):
        lines += textwrap.wrap(text, width, subsequent_indent="  ")
    return lines
