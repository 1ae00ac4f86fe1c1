"""Plain-language findings from a run's numbers, and the practical thresholds they are judged by.

Every difference between a profile and the baseline gets exactly one of three verdicts against its
metric's practical threshold (``configs/thresholds.toml``, overridable):

- a **clear difference** (higher or lower): the minimum-effect test of H0 |difference| <= threshold
  rejects, i.e. its 95% interval lies entirely past +threshold or -threshold;
- **practically equivalent**: the equivalence test (TOST, two one-sided t-tests at 5%) of H0
  |difference| >= threshold rejects, i.e. its 90% interval lies inside plus or minus the threshold;
- **not established**: neither; the data cannot tell.

Both tests are Holm-corrected over the comparison's family (the rows tested against 0 by
:mod:`analysis.differences`), each kind of claim its own family.  A difference clear of 0 but smaller
than the threshold is practically equivalent when its TOST passes, otherwise not established.
Within a profile, a seat or bot advantage and money are judged the same three ways against the fair
share (or 0), with Bonferroni-widened intervals over the groups.  Estimates that are NaN read "not
applicable".  Across table compositions, a difference depends on play strength only where the
compositions are shown to disagree (:data:`ROBUSTNESS_NOTE`).

This module also owns how each headline metric is named in words and how its numbers are shown.
"""
from __future__ import annotations

import functools
import math
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats as sps

from sim.errors import UserError
from sim.resources import config_file
from sim.words import counted

from . import stats

THRESHOLDS_FILE = config_file("thresholds.toml")  # configs/thresholds.toml, shipped as package data
ALPHA = 0.05

# verdicts of a difference from the baseline (B against A)
HIGHER, LOWER = "higher", "lower"
EQUIVALENT = "practically equivalent"
NOT_ESTABLISHED = "not established"
NOT_APPLICABLE = "not applicable"
NOT_TESTED = "not tested"
NO_THRESHOLD = "no threshold set"
STATED = (HIGHER, LOWER)  # a clear difference
THREE_WAY = (HIGHER, LOWER, EQUIVALENT, NOT_ESTABLISHED)  # the verdicts of a difference tested against its threshold
VERDICT_NOTE = (
    "Verdicts: each difference is judged against its metric's practical threshold (configs/thresholds.toml, or "
    "--thresholds FILE) by two tests on the difference's t distribution (its standard error and degrees of "
    "freedom as in its 95% interval). A clear difference (higher / lower): the minimum-effect test of "
    "H0 |difference| <= threshold rejects, i.e. the 95% interval lies entirely past +threshold or -threshold. "
    "Practically equivalent: the equivalence test TOST (two one-sided t-tests at 5%) of H0 |difference| >= "
    "threshold rejects, i.e. the 90% interval lies inside plus or minus the threshold. Not established: "
    "neither, so the data cannot tell; an interval spanning the threshold is never read as no difference. "
    "Each kind of claim is Holm-corrected over the comparison's family (every metric tested against 0), so the "
    "unadjusted interval can lie past the threshold while the verdict is not established. A difference clear "
    "of 0 but smaller than the threshold is practically equivalent when its TOST passes (real but smaller "
    "than a player would notice; the p-value against 0 is still shown), otherwise not established.")


# ---------------------------------------------------------------------------------------------
# thresholds


@dataclass(frozen=True)
class Threshold:
    metric: str
    threshold: float
    unit: str


def _read_toml(path) -> dict:
    try:
        with path.open("rb") as f:
            return tomllib.load(f)
    except FileNotFoundError:
        raise UserError(f"thresholds file {path} does not exist") from None
    except IsADirectoryError:
        raise UserError(f"thresholds file {path} is a directory, not a TOML file") from None
    except OSError as err:
        raise UserError(f"thresholds file {path} cannot be read: {err.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise UserError(f"thresholds file {path} is not valid TOML: {err}") from None


def _parse(path: Path, table: dict, defaults: dict[str, Threshold] | None) -> dict[str, Threshold]:
    """The thresholds of one file; with `defaults`, only their metrics are allowed and a missing
    unit is the default's."""
    out = {}
    for metric, entry in table.items():
        where = f"thresholds file {path}, [{metric}]"
        if defaults is not None and metric not in defaults:
            raise UserError(f"thresholds file {path}: unknown metric [{metric}]; allowed: "
                            f"{', '.join(sorted(defaults))}")
        if not isinstance(entry, dict):
            raise UserError(f"{where}: expected a table with threshold = NUMBER (and unit = \"...\"), "
                            f"got {entry!r}")
        extra = set(entry) - {"threshold", "unit"}
        if extra:
            raise UserError(f"{where}: unknown key(s) {', '.join(sorted(extra))}; allowed: threshold, unit")
        value = entry.get("threshold")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
            raise UserError(f"{where}: threshold must be a number >= 0, got {value!r}")
        unit = entry.get("unit", defaults[metric].unit if defaults is not None else "")
        if not isinstance(unit, str):
            raise UserError(f"{where}: unit must be a string, got {unit!r}")
        out[metric] = Threshold(metric, float(value), unit)
    return out


@functools.cache
def _defaults() -> tuple[Threshold, ...]:
    return tuple(_parse(THRESHOLDS_FILE, _read_toml(THRESHOLDS_FILE), None).values())


def default_thresholds() -> dict[str, Threshold]:
    """The thresholds of configs/thresholds.toml, by metric."""
    return {t.metric: t for t in _defaults()}


def load_thresholds(path=None) -> dict[str, Threshold]:
    """The default thresholds, with those of the TOML file at `path` (if given) replacing them.

    UserError naming the file and the entry when the file is missing, not TOML, names an unknown
    metric or gives a threshold that is not a number >= 0."""
    thresholds = default_thresholds()
    if path is not None:
        path = Path(path)
        thresholds.update(_parse(path, _read_toml(path), thresholds))
    return thresholds


# ---------------------------------------------------------------------------------------------
# how metrics are named and shown


@dataclass(frozen=True)
class Show:
    """A metric in words: its label, its topic, and values shown as value * scale + unit."""
    label: str
    topic: str
    scale: float = 100.0
    unit: str = "%"
    diff_unit: str = " pp"
    digits: int = 1


def _mean(label, topic, digits=2):
    return Show(label, topic, 1.0, "", "", digits)


OPENING, KALOOKI, ELIMINATION, LENGTH, SEAT, BOT, MONEY = (
    "Opening timing", "Kalooki frequency", "Elimination", "Game length", "Order of play", "Bot advantage", "Money")
TOPICS = [OPENING, KALOOKI, ELIMINATION, LENGTH, SEAT, BOT, MONEY]
SHOW = {
    "p_can_open_at_deal": Show("Can open with the dealt hand", OPENING),
    "share_never_opened": Show("Never opened in a played hand", OPENING),
    "mean_open_round": _mean("Opening turn, mean", OPENING),
    "mean_open_value": _mean("Opening meld points, mean", OPENING, 1),
    "share_open_with_discard": Show("Openings made with the discard", OPENING),
    "kalooki_per_hand": Show("Kalookis per 1,000 hands", KALOOKI, 1000.0, "", "", 1),
    "kalooki_per_player_hand": Show("Kalookis per 1,000 player-hands", KALOOKI, 1000.0, "", "", 2),
    "kalooki_share_of_wins": Show("Hand wins that are Kalookis", KALOOKI),
    "share_players_eliminated_at_least_once": Show("Players eliminated at least once in a game", ELIMINATION),
    "share_games_with_elimination": Show("Games with an elimination", ELIMINATION),
    "buy_in_rate": Show("Eliminations followed by a buy-in", ELIMINATION),
    "buy_ins_per_game": _mean("Buy-ins per game, mean", ELIMINATION, 2),
    "p_win_game_given_bought_in": Show("Game win rate after a buy-in", ELIMINATION),
    "median_hands_to_first_elimination": _mean("Hands to first elimination, median", ELIMINATION, 0),
    "hands_per_game": _mean("Hands per game, mean", LENGTH),
    "rounds_per_hand": _mean("Rounds per played hand, mean", LENGTH),
    "reshuffles_per_hand": _mean("Stock reshuffles per deal, mean", LENGTH, 3),
    "void_hand_share": Show("Void deals (re-dealt)", LENGTH),
    "stalled_hand_share": Show("Deals stopped at the turn cap", LENGTH, digits=2),
    "stalled_game_share": Show("Games stopped at the hand cap", LENGTH, digits=2),
    "dealer_hand_win_rate": Show("Dealer's hand win rate", SEAT),
    "dealer_edge": Show("Dealer's edge over the other players", SEAT),
    "first_minus_dealer": Show("1st to play's win rate minus the dealer's", SEAT),
    "seat_equal_shares_p": Show("Equal wins by order of play: chi-square p", SEAT, 1.0, "", "", 3),
}


def show(metric: str, kind: str = "proportion", description: str | None = None) -> Show:
    """How `metric` is named and shown; a metric this module does not know is shown by its kind."""
    if metric in SHOW:
        return SHOW[metric]
    label = description or metric.replace("_", " ")
    return Show(label, "", digits=1) if kind == "proportion" else Show(label, "", 1.0, "", "", 3)


def _number(x: float, digits: int) -> str:
    return f"{x:,.{digits}f}"


def fmt_value(metric: str, value, kind: str = "proportion") -> str:
    s = show(metric, kind)
    if value is None or pd.isna(value):
        return NOT_APPLICABLE
    if math.isinf(value):
        return "∞"
    return _number(value * s.scale, s.digits) + s.unit


def fmt_interval(metric: str, low, high, kind: str = "proportion") -> str:
    """'lo–hi' in the metric's unit (not repeated), '' when there is no interval."""
    s = show(metric, kind)
    if low is None or pd.isna(low) or high is None or pd.isna(high):
        return ""
    hi = "∞" if math.isinf(high) else _number(high * s.scale, s.digits)
    return f"{_number(low * s.scale, s.digits)}{' to ' if low < 0 or high < 0 else '–'}{hi}"


def fmt_difference(metric: str, diff, low, high, kind: str = "proportion") -> str:
    """'+2.1 pp (95% CI 1.0 to 3.2)'."""
    s = show(metric, kind)
    if diff is None or pd.isna(diff):
        return NOT_APPLICABLE
    text = f"{diff * s.scale:+,.{s.digits}f}{s.diff_unit}"
    if not (pd.isna(low) or pd.isna(high)):
        text += f" (95% CI {low * s.scale:+,.{s.digits}f} to {high * s.scale:+,.{s.digits}f})"
    return text


def fmt_p(p) -> str:
    if p is None or pd.isna(p):
        return ""
    return "<0.001" if p < 0.001 else f"{p:.3f}"


# ---------------------------------------------------------------------------------------------
# judging differences from the baseline


def judge(diffs: pd.DataFrame, thresholds: dict[str, Threshold], tests=None) -> pd.DataFrame:
    """`diffs` (compare's columns: metric, kind, estimate_a/b, difference, diff_se, diff_df,
    in_family) with `threshold`, `unit`, the threshold tests' p-values (`p_exceeds`, `p_equivalent`,
    each with its Holm-adjusted `_adjusted`, one family over the rows in_family) and `verdict`:
    higher / lower (B against A) when the difference is clearly past the threshold, "practically
    equivalent" when it is clearly inside it, "not established" otherwise (VERDICT_NOTE); "not
    applicable" where an estimate is NaN, "not tested" outside the family (a median, a p-value, a
    near-duplicate, constant on both sides), "no threshold set" where the metric has none.
    ``tests``: a function (row, threshold) -> (p_exceeds, p_equivalent) for differences whose tests
    are not t tests on diff_se and diff_df (a bootstrap's), used instead."""
    out = diffs.copy()
    out["threshold"] = [thresholds[m].threshold if m in thresholds else np.nan for m in out["metric"]]
    out["unit"] = [thresholds[m].unit if m in thresholds else "" for m in out["metric"]]
    d = out["difference"].to_numpy(dtype=float)
    threshold = out["threshold"].to_numpy(dtype=float)
    applicable = out["estimate_a"].notna().to_numpy() & out["estimate_b"].notna().to_numpy() & np.isfinite(d)
    in_family = out["in_family"].fillna(False).to_numpy(dtype=bool)
    tested = applicable & in_family & np.isfinite(threshold)
    if tests is not None:
        found = [tests(row, t) if ok else (np.nan, np.nan)
                 for row, t, ok in zip(out.itertuples(index=False), threshold, tested)]
        out["p_exceeds"] = [f[0] for f in found]
        out["p_equivalent"] = [f[1] for f in found]
    else:
        se, df = out["diff_se"].to_numpy(dtype=float), out["diff_df"].to_numpy(dtype=float)
        nan = np.full(len(out), np.nan)
        out["p_exceeds"] = np.where(tested, stats.exceeds_threshold(d, se, df, threshold) if len(out) else nan,
                                    np.nan)
        out["p_equivalent"] = np.where(tested, stats.equivalence_tost(d, se, df, threshold) if len(out) else nan,
                                       np.nan)
    exceeds, out["p_exceeds_adjusted"] = stats.adjust(out["p_exceeds"])
    equivalent, out["p_equivalent_adjusted"] = stats.adjust(out["p_equivalent"])
    verdicts = []
    for i in range(len(out)):
        if not applicable[i]:
            verdicts.append(NOT_APPLICABLE)
        elif not in_family[i]:
            verdicts.append(NOT_TESTED)
        elif not np.isfinite(threshold[i]):
            verdicts.append(NO_THRESHOLD)
        elif exceeds[i]:
            verdicts.append(HIGHER if d[i] > 0 else LOWER)
        elif equivalent[i]:
            verdicts.append(EQUIVALENT)
        else:
            verdicts.append(NOT_ESTABLISHED)
    out["verdict"] = verdicts
    return out


# ---------------------------------------------------------------------------------------------
# advantages within a profile: seats, bots, money


Z95 = float(sps.norm.ppf(0.975))


def _standard_errors(rows: pd.DataFrame) -> np.ndarray:
    """Each row's standard error: its `se` column, else its 95% interval's half-width over z."""
    half = (rows["ci_high"].to_numpy(dtype=float) - rows["ci_low"].to_numpy(dtype=float)) / 2 / Z95
    se = rows["se"].to_numpy(dtype=float) if "se" in rows else np.full(len(rows), np.nan)
    return np.where(np.isfinite(se), se, half)


def group_advantage(rows: pd.DataFrame, threshold: float) -> dict | None:
    """The group (seat, bot) whose win or elimination rate is furthest from its expected rate, with
    the chi-square p-value of equal shares and every group's gap and standard error (for
    ``advantage_findings``); `rows` has group, k, n, estimate, ci_low, ci_high, expected (and se).
    None when fewer than two groups have data."""
    rows = rows[rows["n"] > 0]
    if len(rows) < 2:
        return None
    test = stats.equal_shares(rows["k"].to_numpy(float), (rows["n"] * rows["expected"]).to_numpy(float))
    gaps = (rows["estimate"] - rows["expected"]).to_numpy(dtype=float)
    i = int(np.nanargmax(np.abs(gaps)))
    top = rows.iloc[i]
    return {"group": top["group"], "estimate": top["estimate"], "ci_low": top["ci_low"], "ci_high": top["ci_high"],
            "expected": top["expected"], "gap": float(gaps[i]), "p_value": test["p_value"], "threshold": threshold,
            "gaps": gaps, "se": _standard_errors(rows)}


def _judge_groups(items: list[dict]) -> None:
    """Judge the profiles' group advantages in place (see ADVANTAGE_NOTE): p_adjusted (Holm over the
    profiles' chi-square tests); clear when it rejects and the furthest group's interval, Bonferroni-
    widened over every group of every profile, lies past its fair share plus or minus the threshold;
    equivalent when every group's 1 - 2 alpha / profiles interval lies inside it."""
    reject, adjusted = stats.adjust([i["p_value"] for i in items])
    groups = sum(len(i["gaps"]) for i in items)
    z_past = stats.bonferroni_z(max(groups, 1), ALPHA)
    z_inside = sps.norm.ppf(1 - ALPHA / max(len(items), 1))
    for item, r, a in zip(items, reject, adjusted):
        gaps, se, threshold = item["gaps"], item["se"], item["threshold"]
        top = int(np.nanargmax(np.abs(gaps)))
        item["p_adjusted"] = a
        item["clear"] = bool(r) and bool(abs(gaps[top]) - z_past * se[top] > threshold)
        item["equivalent"] = not item["clear"] and bool(np.all(np.abs(gaps) + z_inside * se < threshold))


def money_advantage(rows: pd.DataFrame, threshold: float) -> dict | None:
    """Mean net payment per game by group (seats, bots) against 0 (the game is zero-sum): `clear` the
    groups whose 95% interval, Bonferroni-widened over the groups, lies entirely past plus or minus
    the threshold; `equivalent` when every group's 90% interval lies inside it (TOST, each group at
    5%: all must pass); `largest` the largest |mean|; `measured` False when no group has an interval
    (fewer than 2 games)."""
    rows = rows[rows["n"] > 1].dropna(subset=["estimate", "ci_low", "ci_high"])
    m = len(rows)
    if m == 0:
        return {"clear": [], "equivalent": False, "largest": np.nan, "threshold": threshold, "measured": False}
    se = _standard_errors(rows)
    mean = rows["estimate"].to_numpy(dtype=float)
    zfam, z_inside = stats.bonferroni_z(m, ALPHA), sps.norm.ppf(1 - ALPHA)
    clear = [{"group": row.group, "estimate": row.estimate, "ci_low": row.ci_low, "ci_high": row.ci_high}
             for row, e, s in zip(rows.itertuples(index=False), mean, se) if abs(e) - zfam * s > threshold]
    equivalent = not clear and bool(np.all(np.abs(mean) + z_inside * se < threshold))
    return {"clear": clear, "equivalent": equivalent, "largest": float(np.max(np.abs(mean))), "threshold": threshold,
            "measured": True}


# ---------------------------------------------------------------------------------------------
# the findings


@dataclass(frozen=True)
class Finding:
    """A topic's finding: ``short``, one line with its single most important difference (the Findings
    list, read in a minute), and ``text``, the finding in full (lower in the page)."""
    topic: str
    text: str
    stated: bool  # a clear difference or advantage is stated
    short: str = ""
    weight: float = 0.0  # the short line's difference in practical thresholds (merge keeps the largest; < 0: secondary)


def _pct(x) -> str:
    return f"{x * 100:.1f}%"


def sentence_label(label: str) -> str:
    return label if label.startswith("Kalooki") else label[0].lower() + label[1:]


def _difference_phrase(row) -> str:
    kind = row.kind
    a = fmt_value(row.metric, row.estimate_a, kind)
    b = fmt_value(row.metric, row.estimate_b, kind)
    return (f"{sentence_label(show(row.metric, kind).label)} {b} vs {a}, "
            f"{fmt_difference(row.metric, row.difference, row.diff_ci_low, row.diff_ci_high, kind)}")


def _short_difference(row) -> str:
    """'kalooki51 can open with the dealt hand 38.8% vs 22.2% (+16.5 pp)'."""
    kind = row.kind
    return (f"{row.profile_b} {sentence_label(show(row.metric, kind).label)} "
            f"{fmt_value(row.metric, row.estimate_b, kind)} vs {fmt_value(row.metric, row.estimate_a, kind)} "
            f"({fmt_difference(row.metric, row.difference, np.nan, np.nan, kind)})")


def _difference_short(rows: pd.DataFrame, baseline: str) -> tuple[str, float]:
    """The one line of a topic's differences from the baseline: the largest clear difference (in
    thresholds) and how many there are, else how many are equivalent and not established."""
    rows = rows[rows["profile_b"] != baseline]
    clear = rows[rows["verdict"].isin(STATED)]
    if len(clear):
        size = clear["difference"].abs() / clear["threshold"]
        top = clear.loc[size.idxmax()]
        others = len(clear) - 1
        more = (f"; {counted(len(clear), 'clear difference')} in {counted(clear['profile_b'].nunique(), 'profile')}"
                if others else "")
        return f"Largest: {_short_difference(top)}{more}.", float(size.max())
    equivalent = int((rows["verdict"] == EQUIVALENT).sum())
    unknown = int((rows["verdict"] == NOT_ESTABLISHED).sum())
    if equivalent or unknown:
        counts = [f"{equivalent} practically equivalent" for _ in [0] if equivalent] + \
            [f"{unknown} not established" for _ in [0] if unknown]
        return f"No clear difference from {baseline}: {' and '.join(counts)}.", 0.0
    return "Not applicable (no such events).", 0.0


def _labels(rows: pd.DataFrame) -> str:
    """The metrics' labels in a list: 'hands per game (mean), void deals (re-dealt)'."""
    label = lambda m, k: sentence_label(show(m, k).label).replace(", mean", " (mean)").replace(", median", " (median)")
    return ", ".join(label(m, k) for m, k in zip(rows["metric"], rows["kind"]))


def difference_findings(judged: pd.DataFrame, baseline: str, most: int = 2) -> list[Finding]:
    """One finding per topic from the judged differences of each profile (profile_b) from the
    baseline (profile_a): the clear differences first, then what is practically equivalent and what
    is not established (profiles alike in a topic named together)."""
    out = []
    topic_of = {m: show(m).topic for m in judged["metric"]}
    for topic in (OPENING, KALOOKI, ELIMINATION, LENGTH, SEAT):
        rows = judged[[topic_of[m] == topic for m in judged["metric"]]]
        if rows.empty:
            continue
        parts, alike, absent, untested = [], {}, [], []
        for profile, mine in rows.groupby("profile_b", sort=False):
            if profile == baseline:
                continue
            clear = mine[mine["verdict"].isin(STATED)]
            equivalent = mine[mine["verdict"] == EQUIVALENT]
            unknown = mine[mine["verdict"] == NOT_ESTABLISHED]
            if clear.empty and equivalent.empty and unknown.empty:
                if (mine["verdict"] == NOT_APPLICABLE).all():
                    absent.append(profile)
                elif "test" in mine and mine["test"].astype(str).str.contains("too few games").any():
                    untested.append(profile)
                continue
            if clear.empty and (equivalent.empty or unknown.empty):  # one verdict over the topic
                alike.setdefault(EQUIVALENT if unknown.empty else NOT_ESTABLISHED, []).append(profile)
                continue
            phrases = []
            if len(clear):
                ranked = clear.assign(size=(clear["difference"].abs() / clear["threshold"])).sort_values(
                    "size", ascending=False)
                phrases = [_difference_phrase(r) for r in ranked.head(most).itertuples(index=False)]
                more = len(ranked) - most
                if more > 0:
                    phrases.append(f"and {more} more clear difference{'s' if more > 1 else ''} in the table")
            if len(equivalent):
                phrases.append(f"practically equivalent: {_labels(equivalent)}")
            if len(unknown):
                phrases.append(f"not established: {_labels(unknown)}")
            parts.append(f"{profile}: " + "; ".join(phrases))
        stated = any(v in STATED for v in rows["verdict"]) and bool(parts)
        if alike.get(EQUIVALENT):
            parts.append(f"{', '.join(alike[EQUIVALENT])}: practically equivalent to {baseline}")
        if alike.get(NOT_ESTABLISHED):
            parts.append(f"{', '.join(alike[NOT_ESTABLISHED])}: no difference from {baseline} established either "
                         "way (the intervals reach past the thresholds)")
        if absent:
            parts.append(f"{', '.join(absent)}: not applicable (no such events)")
        if untested:
            parts.append(f"{', '.join(untested)}: not tested (fewer than 2 games on a side)")
        if parts:
            lead = "Dealer against the baseline: " if topic == SEAT else ""
            short, weight = _difference_short(rows, baseline)
            if topic == SEAT:  # the dealer against the baseline leads the topic only when it states a difference
                short = f"Dealer against the baseline, {short[0].lower()}{short[1:]}"
                weight = weight if stated else -1.0
            out.append(Finding(topic, lead + ". ".join(parts) + ".", stated, short, weight))
    return out


def merge(found: list[Finding]) -> list[Finding]:
    """One finding per topic, in TOPICS order: the texts joined, the one line of the finding that
    states the largest difference (a stated one before any other)."""
    out = []
    for topic in TOPICS + sorted({f.topic for f in found} - set(TOPICS)):
        mine = [f for f in found if f.topic == topic]
        if mine:
            lead = max(mine, key=lambda f: (f.stated, f.weight))
            out.append(Finding(topic, " ".join(f.text for f in mine), any(f.stated for f in mine),
                               lead.short or mine[0].short, lead.weight))
    return out


def _group_text(item: dict, what: str) -> str:
    return (f"{item['group']} {what} {_pct(item['estimate'])} (95% CI {_pct(item['ci_low'])} to "
            f"{_pct(item['ci_high'])}) against a fair {_pct(item['expected'])}")


ADVANTAGE_NOTE = (
    "Advantage by order of play and by bot, who is eliminated: per profile, the chi-square test of equal shares "
    "(Holm over the profiles) and each group's rate against its fair share. The order of play is a player's place "
    "relative to the dealer in the hand (1st to play, left of the dealer, ..., the dealer, who plays last), the "
    "data's seat_from_dealer; a seat is a place at the table, counted from 0 (the data's seat). An advantage is "
    "stated when the test rejects and the furthest group's interval, Bonferroni-widened over every group of every "
    "profile, lies past its fair share plus or minus the threshold; no practical advantage when every group's "
    "interval at 1 - 2 x 5% / profiles lies inside it (TOST for each group, all must pass); otherwise not "
    "established. A small chi-square p-value beside no practical advantage is no contradiction: the test detects "
    "any difference, however small, while the verdict asks whether one is larger than the practical threshold. "
    "Money: a group's mean net payment per game against 0, stated when its 95% interval, Bonferroni-widened over "
    "the groups, lies past plus or minus the threshold; no one gains or loses in practice when every group's 90% "
    "interval lies inside it; otherwise not established. These intervals use the cluster-robust standard error "
    "and the normal distribution.")


def detectable_note(item: dict | None, group: str = "position") -> str:
    """Why a chi-square p-value below 5% stands beside a verdict that states no advantage ('' when it
    does not): the test detects a difference that is below the practical threshold (no practical
    advantage) or not shown to pass it (not established).  ``item``: a judged group_advantage."""
    if item is None or item.get("clear") or not item["p_value"] < ALPHA:
        return ""
    threshold, largest = item["threshold"] * 100, abs(item["gap"]) * 100
    if item.get("equivalent"):
        return (f"chi-square p {fmt_p(item['p_value'])}: statistically detectable, but every {group} is within the "
                f"practical threshold of {threshold:.1f} pp of its share (largest gap {largest:.1f} pp), so not a "
                "practical advantage")
    return (f"chi-square p {fmt_p(item['p_value'])}: statistically detectable, but no {group}'s gap is shown past "
            f"the practical threshold of {threshold:.1f} pp (largest {largest:.1f} pp), so no practical advantage "
            "is established")


def _advantage_short(topic: str, table: dict, stated: list[str]) -> tuple[str, float]:
    """A within-profile topic's one line: the largest stated advantage, else the verdicts counted."""
    what = {SEAT: "wins", BOT: "wins", ELIMINATION: "is eliminated in"}[topic]
    unit = {SEAT: " of hands", BOT: " of hands", ELIMINATION: " of games"}[topic]
    measured = {p: i for p, i in table.items() if i is not None}
    if stated:
        p, top = max(((p, i) for p, i in measured.items() if i["clear"]),
                     key=lambda pi: abs(pi[1]["gap"]) / max(pi[1]["threshold"], 1e-12))
        short = (f"{p}: {top['group']} {what} {_pct(top['estimate'])}{unit} against a fair {_pct(top['expected'])}"
                 + (f"; a clear advantage in {len(stated)} of {len(table)} profiles" if len(table) > 1 else "") + ".")
        return (f"Who is eliminated: {short}" if topic == ELIMINATION else short,
                abs(top["gap"]) / max(top["threshold"], 1e-12))
    if not measured:
        return ("Not measured (no table seats two different bots)." if topic == BOT else
                "Not measured (no such events)."), 0.0
    equivalent = sum(1 for i in measured.values() if i["equivalent"])
    unknown = len(measured) - equivalent
    noun = {SEAT: "advantage by order of play", BOT: "bot advantage",
            ELIMINATION: "position eliminated more or less than its share"}[topic]
    counts = [f"none in practice in {counted(equivalent, 'profile')}" for _ in [0] if equivalent] + \
        [f"not established in {counted(unknown, 'profile')}" for _ in [0] if unknown]
    short = f"No clear {noun}: {' and '.join(counts)}."
    return (f"Who is eliminated: n{short[1:]}" if topic == ELIMINATION else short), 0.0


def advantage_findings(seat: dict[str, dict | None], bot: dict[str, dict | None], eliminated: dict[str, dict | None],
                       money: dict[str, dict | None]) -> list[Finding]:
    """Findings on advantage by order of play and by bot, who is eliminated and money, per profile;
    each dict maps profile -> group_advantage (or money_advantage) result, None where not measurable."""
    out = []
    for topic, table, what in ((SEAT, seat, "wins"), (BOT, bot, "wins"), (ELIMINATION, eliminated, "is eliminated in")):
        measured = [i for i in table.values() if i is not None]
        _judge_groups(measured)
        stated = [f"{p}: {_group_text(i, what)}" for p, i in table.items() if i is not None and i["clear"]]
        equivalent = [p for p, i in table.items() if i is not None and i["equivalent"]]
        unknown = [p for p, i in table.items() if i is not None and not (i["clear"] or i["equivalent"])]
        missing = [p for p, i in table.items() if i is None]
        parts = list(stated)
        largest = lambda names: max(abs(table[p]["gap"]) for p in names) * 100
        threshold = lambda names: table[names[0]]["threshold"] * 100
        group = "bot" if topic == BOT else "position"
        detectable = lambda names: [f"{p}, {detectable_note(table[p], group)}" for p in names
                                    if topic != ELIMINATION and detectable_note(table[p], group)]
        if equivalent:
            said = {SEAT: "no practical advantage by order of play", BOT: "no practical bot advantage",
                    ELIMINATION: "no position eliminated more or less than its share in practice"}[topic]
            parts.append(f"{', '.join(equivalent)}: {said} (every {group} within {threshold(equivalent):.1f} pp of "
                         f"its share; largest gap {largest(equivalent):.1f} pp)"
                         + "".join(f"; {d}" for d in detectable(equivalent)))
        if unknown:
            said = {SEAT: "an advantage by order of play is not established", BOT: "bot advantage not established",
                    ELIMINATION: "a position eliminated more or less than its share: not established"}[topic]
            parts.append(f"{', '.join(unknown)}: {said} (largest gap {largest(unknown):.1f} pp; the intervals reach "
                         f"past the threshold of {threshold(unknown):.1f} pp)"
                         + "".join(f"; {d}" for d in detectable(unknown)))
        if missing:
            parts.append(f"{', '.join(missing)}: not measured ("
                         + ("no table seats two different bots" if topic == BOT else "no such events") + ")")
        text = "; ".join(parts) + "."
        lead = {ELIMINATION: "Who is eliminated (by order of play in the game's first deal): ",
                SEAT: "Order of play within each profile (hand win rate by place relative to the dealer): "}.get(
            topic, "")
        short, weight = _advantage_short(topic, table, stated)
        out.append(Finding(topic, lead + text, bool(stated), short, weight))
    parts, stated_any, equivalent, unknown, missing, too_few = [], False, [], [], [], []
    top = None  # (profile, group, size in thresholds) of the largest clear gain or loss
    for profile, found in money.items():
        if found is None:
            missing.append(profile)
        elif not found.get("measured", True):
            too_few.append(profile)
        elif found["clear"]:
            stated_any = True
            parts.append(f"{profile}: " + ", ".join(
                f"{i['group']} {i['estimate']:+.2f} units a game (95% CI {i['ci_low']:+.2f} to {i['ci_high']:+.2f})"
                for i in found["clear"]))
            for i in found["clear"]:
                size = abs(i["estimate"]) / max(found["threshold"], 1e-12)
                if top is None or size > top[2]:
                    top = (profile, i, size)
        elif found["equivalent"]:
            equivalent.append(profile)
        else:
            unknown.append(profile)
    if equivalent:
        parts.append(f"{', '.join(equivalent)}: no seat or bot gains or loses money in practice")
    if unknown:
        parts.append(f"{', '.join(unknown)}: who gains or loses money is not established (largest mean "
                     f"{max(money[p]['largest'] for p in unknown):.2f} units a game; the intervals reach past the "
                     f"threshold of {money[unknown[0]]['threshold']:.2f})")
    if too_few:
        parts.append(f"{', '.join(too_few)}: not measured (fewer than 2 games)")
    if missing:
        parts.append(f"{', '.join(missing)}: not applicable (no money changes hands)")
    gaining = sum(1 for f in money.values() if f is not None and f.get("clear"))
    if top is not None:
        short = (f"Largest: {top[1]['group']} in {top[0]} {top[1]['estimate']:+.2f} units a game"
                 + (f"; a clear gain or loss in {gaining} of {len(money)} profiles" if len(money) > 1 else "") + ".")
    elif equivalent or unknown:
        counts = [f"none in practice in {counted(len(equivalent), 'profile')}" for _ in [0] if equivalent] + \
            [f"not established in {counted(len(unknown), 'profile')}" for _ in [0] if unknown]
        short = f"No clear gain or loss: {' and '.join(counts)}."
    else:
        short = "Not applicable (no money changes hands)." if missing else "Not measured (fewer than 2 games)."
    out.append(Finding(MONEY, "; ".join(parts) + ".", stated_any, short, top[2] if top else 0.0))
    return out


# ---------------------------------------------------------------------------------------------
# the rows behind the within-profile findings (and the figures by order of play and by bot)


def play_order_label(position: int, n_players: int) -> str:
    """A place relative to the dealer (the data's seat_from_dealer: 1 left of the dealer, ..., n the
    dealer) by order of play: '1st to play', '2nd to play', ..., 'dealer (plays last)'."""
    position, n_players = int(position), int(n_players)
    if position == n_players:
        return "dealer (plays last)"
    suffix = "th" if 10 <= position % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(position % 10, "th")
    return f"{position}{suffix} to play"


def seat_rows(res, profile: str, full: int) -> pd.DataFrame:
    """Hand win rate by order of play (seat_from_dealer) at the profile's full table size, with the
    fair share 1/n; `group` names the place ('1st to play', ..., 'dealer (plays last)')."""
    r = res.seat_rates
    r = r[(r["profile"] == profile) & (r["level"] == "hand") & (r["n_players"] == full)]
    return r.assign(group=[play_order_label(int(s), full) for s in r["seat_from_dealer"]])


def bot_rows(res, profile: str) -> pd.DataFrame:
    """Hand win rate by bot, with the rate expected if every seat were equally likely to win."""
    r = res.bot_rates
    return r[(r["profile"] == profile) & (r["level"] == "hand")].assign(group=lambda f: f["bot"].astype(str))


def _first_deal_groups(frame: pd.DataFrame, full: dict[str, int], seat_by: str) -> pd.DataFrame:
    """``frame``'s rows by place in the game's first deal (`by` == ``seat_by``; their group 'seat K',
    K the seat_from_dealer) named by order of play at the profile's full table, with `order` (K; the
    bots after) to sort them by."""
    frame = frame.copy()
    mine = (frame["by"] == seat_by).to_numpy()
    position = pd.to_numeric(frame["group"].astype(str).str.extract(r"(\d+)$")[0], errors="coerce")
    frame["order"] = np.where(mine, position, np.inf)
    frame.loc[mine, "group"] = [play_order_label(int(k), full.get(str(p), int(k)))
                                for k, p in zip(position[mine], frame.loc[mine, "profile"])]
    return frame


def elimination_by_group(res) -> pd.DataFrame:
    """Share of player-games in which the player was eliminated at least once, by order of play in the
    game's first deal ('1st to play', ..., 'dealer (plays last)') and by bot, per profile
    (``metrics.eliminated_by_group``)."""
    from . import metrics
    full = {p: metrics.full_table_size(res.run, p) for p in res.run.profiles}
    return _first_deal_groups(metrics.eliminated_by_group(res.run), full, "seat")


def net_payment(res) -> pd.DataFrame:
    """Mean net payment per game by order of play in the game's first deal (named as in
    ``play_order_label``) and by bot (``metrics.net_payment``)."""
    from . import metrics
    full = {p: metrics.full_table_size(res.run, p) for p in res.run.profiles}
    return _first_deal_groups(res.net_payment, full, "start seat_from_dealer")


def money_rows(res, profile: str, by: str) -> pd.DataFrame | None:
    """Mean net payment per game by order of play in the first deal ('seat') or bot ('bot'); None when
    no money changes hands."""
    r = net_payment(res)
    r = r[(r["profile"] == profile) & ((r["by"] == "bot") == (by == "bot"))]
    if r.empty or ((r["estimate"].fillna(0) == 0) & (r["sd"].fillna(0) == 0)).all():
        return None
    return r


def bots_meet(res, profile: str) -> bool:
    """Does some table of the profile seat two different bots?  Only then can one bot win more than
    its fair share (at a table of one bot, that bot wins every hand).  The manifest's table mix, else
    the bots seen in the rows."""
    info = res.run.manifest.get("profiles", {}).get(profile, {})
    tables = info.get("tables") or ([{"bots": info["bots"]}] if info.get("bots") else [])
    if tables:
        return any(len(set(map(str, t.get("bots", [])))) > 1 for t in tables)
    return len(bot_rows(res, profile)) > 1


def within_profile_judgments(res, profiles: list[str], full_sizes: dict[str, int],
                             thresholds: dict[str, Threshold]) -> dict[str, dict]:
    """Per topic ('seat', 'bot', 'eliminated', 'money'), each profile's judged group_advantage (or
    money_advantage) result, None where not measurable: what ``advantage_findings`` words and the
    headline table's p-value of equal shares by order of play is read beside."""
    gap = lambda name: thresholds[name].threshold if name in thresholds else 0.0
    seat, bot, eliminated, money = {}, {}, {}, {}
    by_group = elimination_by_group(res)
    for p in profiles:
        seat[p] = group_advantage(seat_rows(res, p, full_sizes[p]), gap("seat_win_rate_gap"))
        bots = bot_rows(res, p)
        bot[p] = group_advantage(bots, gap("bot_win_rate_gap")) if bots_meet(res, p) else None
        e = by_group[(by_group["profile"] == p) & (by_group["by"] == "seat")]
        eliminated[p] = group_advantage(e, gap("seat_win_rate_gap")) if e["k"].sum() > 0 else None
        rows = [money_rows(res, p, "seat"), money_rows(res, p, "bot") if bots_meet(res, p) else None]
        rows = [r for r in rows if r is not None]
        money[p] = money_advantage(pd.concat(rows), gap("net_payment_per_game")) if rows else None
    for table in (seat, bot, eliminated):
        _judge_groups([i for i in table.values() if i is not None])
    return {"seat": seat, "bot": bot, "eliminated": eliminated, "money": money}


def within_profile_findings(res, profiles: list[str], full_sizes: dict[str, int],
                            thresholds: dict[str, Threshold], judged: dict[str, dict] | None = None) -> list[Finding]:
    """Advantage by order of play and by bot, who is eliminated and money, per profile (``judged``:
    within_profile_judgments' result, computed here when None)."""
    judged = within_profile_judgments(res, profiles, full_sizes, thresholds) if judged is None else judged
    return advantage_findings(judged["seat"], judged["bot"], judged["eliminated"], judged["money"])


# ---------------------------------------------------------------------------------------------
# robustness across table compositions (play strength)


ROBUST = "robust"
DEPENDS = "depends on play strength"  # the direction changes between compositions
LARGER = "larger with stronger play"
SMALLER = "smaller with stronger play"
SAME_DIRECTION = "same direction at every table"
SIZE_DIFFERS = "size differs by table"
SIZE_ONLY = (LARGER, SMALLER, SAME_DIRECTION, SIZE_DIFFERS)  # shown to differ in size, not in direction
VARIES = (DEPENDS,) + SIZE_ONLY  # every mark of a difference shown to change with the composition
UNSETTLED = "unsettled"
NOWHERE = "not established at any composition"
NOT_ASSESSED = "not assessed"
ONE_TABLE = "one table composition: robustness not assessed"
MIN_GAMES = 30  # games on each side before a composition's difference counts
# Weakest first: sim.frontier.LADDER's rungs, each measured beating the one below at the game
# (`kalooki ladder`).
STRENGTH_LADDER = ("greedy", "expert", "search")
# A bot off the ladder that plays at the strength of a rung: the lookahead, the expert judging its
# discards one draw ahead, is not measured stronger than the expert at the game (docs/PERFORMANCE.md, Bot
# strength), so it counts as the expert.
PLAYS_AS = {"lookahead": "expert"}
ROBUSTNESS_NOTE = (
    "Robustness across table compositions: each profile's difference from the baseline is computed and judged "
    "again within each composition (the same tests and three verdicts, each kind of claim one Holm family over "
    f"every composition). A composition counts when its difference was tested with at least {MIN_GAMES} games "
    "on each side. Two compositions are shown to disagree when their verdicts contradict each other (higher at "
    "one and lower or practically equivalent at the other) or when the gap between their differences lies past "
    "the metric's practical threshold (the minimum-effect test on the gap, whose standard error is the root sum "
    "of squares since compositions are different games, Holm over every gap tested). Where some two disagree: "
    "\"depends on play strength\" when the direction changes (clearly higher at one composition and clearly lower "
    "at another, or, where none is clear, differences of opposite sign shown apart); otherwise the size changes "
    "but not the direction, and the mark says how: \"larger with stronger play\" or \"smaller with stronger "
    "play\" when every stronger composition's difference (in the direction established) is at least as large, or "
    "at most as large, as every weaker one's (a composition's play strength: the mean rung of its bots on the "
    f"ladder {' < '.join(STRENGTH_LADDER)}, the lookahead counted as the expert, which it is not measured to "
    "beat at the game), \"same direction at every table\" when the sizes do not follow play "
    "strength (or a composition seats a bot off the ladder) and every difference has the same sign, \"size "
    "differs by table\" when some difference not established crosses 0. The disagreement is tested; the way the "
    "size goes is read from the estimates. Where none disagree: \"robust\": every composition reaches the same "
    "verdict (all higher, all lower or all practically equivalent); \"unsettled\": some compositions establish a "
    "verdict and the others cannot tell; \"not established at any composition\": none establishes anything, which "
    "is never read as depending on play strength; \"not assessed\": fewer than two compositions count.")
GAP_COLUMNS = ["profile_a", "profile_b", "metric", "table_a", "table_b", "gap", "se", "df", "threshold", "p_exceeds",
               "p_exceeds_adjusted", "apart"]


def varies(mark) -> bool:
    """Is this robustness mark one of a difference shown to change with the composition (VARIES)?"""
    return str(mark).startswith(VARIES)


def mark_name(mark) -> str:
    """The mark's name without its details ('depends on play strength', 'robust', ...)."""
    mark = str(mark)
    return next((m for m in VARIES + (UNSETTLED, NOWHERE, ROBUST, NOT_ASSESSED) if mark.startswith(m)), mark)


def table_strength(manifest: dict) -> dict[str, float]:
    """Each table composition's play strength: the mean rung of its bots on STRENGTH_LADDER (0 the
    weakest; a bot of PLAYS_AS at its rung); a composition seating any other bot off the ladder is left out."""
    rank = {bot: i for i, bot in enumerate(STRENGTH_LADDER)}
    rank.update({bot: rank[rung] for bot, rung in PLAYS_AS.items()})
    out = {}
    for info in manifest.get("profiles", {}).values():
        for t in info.get("tables") or []:
            bots = [str(b) for b in t.get("bots", [])]
            if bots and all(b in rank for b in bots) and t.get("name"):
                out[str(t["name"])] = float(np.mean([rank[b] for b in bots]))
    return out


def _counted(rows: pd.DataFrame) -> pd.DataFrame:
    """The compositions with enough data: judged against the threshold, at least MIN_GAMES games on
    each side."""
    return rows[rows["verdict"].isin(THREE_WAY) & rows["diff_ci_low"].notna()
                & (rows["games_a"].fillna(0) >= MIN_GAMES) & (rows["games_b"].fillna(0) >= MIN_GAMES)]


def composition_gaps(by_table: pd.DataFrame) -> pd.DataFrame:
    """Every two counted compositions of one difference (profile_a, profile_b, metric): the gap
    between their differences tested against the metric's threshold (stats.exceeds_threshold on
    Satterthwaite's degrees of freedom), Holm over every gap; `apart` where it rejects."""
    rows = []
    if len(by_table):
        for (a, b, metric), group in _counted(by_table).groupby(["profile_a", "profile_b", "metric"], sort=False):
            items = list(group.itertuples(index=False))
            for i, x in enumerate(items):
                for y in items[i + 1:]:
                    vx, vy = x.diff_se ** 2, y.diff_se ** 2
                    parts = vx * vx / x.diff_df + vy * vy / y.diff_df
                    df = (vx + vy) ** 2 / parts if parts > 0 else min(x.diff_df, y.diff_df)
                    rows.append({"profile_a": a, "profile_b": b, "metric": metric, "table_a": x.table,
                                 "table_b": y.table, "gap": x.difference - y.difference,
                                 "se": float(np.hypot(x.diff_se, y.diff_se)), "df": df, "threshold": x.threshold})
    out = pd.DataFrame(rows, columns=GAP_COLUMNS[:9])
    p = stats.exceeds_threshold(out["gap"], out["se"], out["df"], out["threshold"]) if len(out) else np.array([])
    out["p_exceeds"] = p
    apart, out["p_exceeds_adjusted"] = stats.adjust(p)
    out["apart"] = apart
    return out


def _contradict(a: str, b: str) -> bool:
    """Two compositions' verdicts that cannot both be true of one difference."""
    return (a in STATED and b in STATED and a != b) or (bool({a, b} & set(STATED)) and EQUIVALENT in (a, b))


def _shift(items: list, disagree: set, strength: dict | None) -> str:
    """The mark of a difference whose compositions disagree (ROBUSTNESS_NOTE): the direction changes
    (DEPENDS), or only the size (larger / smaller with stronger play, same direction at every table,
    size differs by table)."""
    stated = {r.verdict for r in items if r.verdict in STATED}
    named = [r for r in items if r.table in disagree]
    signs = {np.sign(r.difference) for r in named} - {0.0}
    if len(stated) == 2 or (not stated and len(signs) == 2):
        return DEPENDS
    direction = 1.0 if HIGHER in stated else -1.0 if LOWER in stated else (signs.pop() if signs else 1.0)
    size = {r.table: direction * r.difference for r in items}
    known = strength is not None and all(r.table in strength for r in items)
    if known:
        ordered = [(strength[a], strength[b], size[a], size[b]) for a in size for b in size
                   if strength[a] < strength[b]]
        if ordered and all(sa <= sb for _, _, sa, sb in ordered) and any(sa < sb for _, _, sa, sb in ordered):
            return LARGER
        if ordered and all(sa >= sb for _, _, sa, sb in ordered) and any(sa > sb for _, _, sa, sb in ordered):
            return SMALLER
    return SAME_DIRECTION if all(s > 0 for s in size.values()) else SIZE_DIFFERS


def robustness_mark(rows: pd.DataFrame, metric: str, kind: str, gaps: pd.DataFrame | None = None,
                    strength: dict | None = None) -> str:
    """The robustness of one difference from its per-composition rows (findings.judge's columns plus
    `table`) and the gap tests between them (composition_gaps' rows of this difference; computed
    here when None); ``strength``: each composition's play strength (table_strength), which orders a
    change of size: see ROBUSTNESS_NOTE."""
    counted = _counted(rows)
    if len(counted) < 2:
        return f"{NOT_ASSESSED}: {len(counted)} composition{'' if len(counted) == 1 else 's'} with enough data"
    gaps = composition_gaps(counted) if gaps is None else gaps
    items = list(counted.itertuples(index=False))
    disagree = set()
    for i, a in enumerate(items):
        for b in items[i + 1:]:
            if _contradict(a.verdict, b.verdict):
                disagree.update({a.table, b.table})
    for g in gaps[gaps["apart"].astype(bool)].itertuples(index=False):
        disagree.update({g.table_a, g.table_b})
    if disagree:
        mark = _shift(items, disagree, strength)
        if mark == DEPENDS:
            named = sorted((r for r in items if r.table in disagree), key=lambda r: -r.difference)
        elif strength is not None and all(r.table in strength for r in items):
            named = sorted(items, key=lambda r: strength[r.table])  # weakest first
        else:
            named = sorted(items, key=lambda r: -r.difference)
        return f"{mark}: " + "; ".join(
            f"at {r.table} {fmt_difference(metric, r.difference, np.nan, np.nan, kind)}, {r.verdict}" for r in named)
    verdicts = {r.table: r.verdict for r in items}
    established = {t: v for t, v in verdicts.items() if v != NOT_ESTABLISHED}
    if not established:
        return NOWHERE
    if len(established) == len(verdicts) and len(set(established.values())) == 1:
        return ROBUST
    by_verdict = {}
    for t, v in verdicts.items():
        by_verdict.setdefault(v, []).append(t)
    return f"{UNSETTLED}: " + "; ".join(f"{', '.join(ts)} {v}" for v, ts in by_verdict.items())


def robustness(judged: pd.DataFrame, by_table: pd.DataFrame, tables: list[str],
               strength: dict | None = None) -> pd.DataFrame:
    """`judged` (each profile against the baseline) with a `robustness` column from `by_table`
    (the same differences judged within each composition, with a `table` column): one mark per row,
    and `spread_in_thresholds`, the largest gap between counted compositions' differences over the
    threshold; ``strength``: each composition's play strength (table_strength)."""
    out = judged.copy()
    if len(tables) < 2:
        out["robustness"] = ONE_TABLE
        return out
    groups = {key: rows for key, rows in by_table.groupby(["profile_a", "profile_b", "metric"], sort=False)} \
        if len(by_table) else {}
    gaps = composition_gaps(by_table)
    gaps_of = {key: rows for key, rows in gaps.groupby(["profile_a", "profile_b", "metric"], sort=False)}
    no_gaps = gaps.iloc[0:0]
    marks, spreads = [], []
    for row in out.itertuples(index=False):
        key = (row.profile_a, row.profile_b, row.metric)
        rows = groups.get(key)
        if row.verdict not in THREE_WAY or rows is None:
            marks.append(f"{NOT_ASSESSED}: {row.verdict}" if row.verdict not in THREE_WAY
                         else f"{NOT_ASSESSED}: no composition data")
            spreads.append(np.nan)
            continue
        marks.append(robustness_mark(rows, row.metric, row.kind, gaps_of.get(key, no_gaps), strength))
        counted = _counted(rows)["difference"]
        spreads.append((counted.max() - counted.min()) / row.threshold if len(counted) > 1 and row.threshold > 0
                       else np.nan)
    out["robustness"] = pd.Series(marks, index=out.index, dtype=object)
    out["spread_in_thresholds"] = pd.Series(spreads, index=out.index, dtype=float)
    return out


def _label_of(r) -> str:
    return sentence_label(show(r.metric, r.kind).label)


def _listed(rows: pd.DataFrame, most: int, with_mark: bool) -> str:
    """'kalooki51: hands per game, mean (larger with stronger play: at greedy +3.15, higher; ...); ...',
    profile by profile, at most `most` a profile."""
    parts = []
    for profile in dict.fromkeys(rows["profile_b"]):
        mine = rows[rows["profile_b"] == profile]
        items = []
        for r in mine.head(most).itertuples(index=False):
            name = mark_name(r.robustness)
            detail = str(r.robustness)[len(name) + 2:]
            items.append(f"{_label_of(r)} ({name}: {detail})" if with_mark else f"{_label_of(r)} ({detail})")
        more = len(mine) - most
        parts.append(f"{profile}: " + "; ".join(items) + (f"; and {more} more under By table composition"
                                                          if more > 0 else ""))
    return ". ".join(parts)


def _telling_first(rows: pd.DataFrame) -> pd.DataFrame:
    return rows.assign(stated=rows["verdict"].isin(STATED)).sort_values(
        ["stated", "spread_in_thresholds"], ascending=False, kind="stable")


def _short_shift(r) -> str:
    """'kalooki51 hands per game, mean: +3.15 at greedy to +11.02 at expert'."""
    found = re.findall(r"at (\S+) ([+-][\d,]*\d(?:\.\d+)?(?: pp)?)", str(r.robustness))
    if not found:
        return f"{r.profile_b} {_label_of(r)}"
    low, high = min(found, key=lambda f: float(f[1].replace(",", "").replace(" pp", ""))), \
        max(found, key=lambda f: float(f[1].replace(",", "").replace(" pp", "")))
    if mark_name(r.robustness) in (LARGER, SMALLER):
        low, high = found[0], found[-1]  # weakest to strongest
    return f"{r.profile_b} {_label_of(r)}: {low[1]} at {low[0]} to {high[1]} at {high[0]}"


def robustness_finding(judged: pd.DataFrame, tables: list[str], most: int = 2) -> Finding:
    """The findings' first line: which differences from the baseline change direction with play
    strength, which change only in size, and which hold at every composition."""
    if len(tables) < 2:
        where = tables[0] if tables else "one table"
        short = f"One table composition ({where}): this run cannot speak to play strength."
        return Finding("Play strength", f"Every game at {where}: one table composition, so this run cannot speak to "
                       "play strength (robustness not assessed). A run with a table mix (several compositions) judges "
                       "each difference again at each.", False, short)
    lead = f"Across {len(tables)} table compositions ({', '.join(tables)}): "
    if judged.empty:
        short = "One profile: no difference from a baseline to set against play strength."
        return Finding("Play strength", lead + "one profile, so no difference from a baseline to set against play "
                       "strength; each composition's numbers are under By table composition.", False, short)
    marks = judged["robustness"].astype(str)
    depends = _telling_first(judged[marks.str.startswith(DEPENDS)])
    sized = _telling_first(judged[marks.str.startswith(SIZE_ONLY)])
    stated_robust = judged[judged["verdict"].isin(STATED) & (marks == ROBUST)]
    sentences = []
    if len(depends):
        sentences.append("these differences from the baseline depend on play strength (their direction changes "
                         "between compositions): " + _listed(depends, most, False))
    if len(sized):
        sentences.append(("these" if not len(depends) else "These") + " change in size but not in direction: "
                         + _listed(sized, most, True))
    if not sentences:
        text = lead + "no difference from the baseline is shown to depend on play strength."
    elif not len(depends):
        text = lead + "no difference from the baseline changes direction with play strength; " + sentences[0] + "."
    else:
        text = lead + ". ".join(sentences) + "."
    if len(stated_robust):
        named = [f"{r.profile_b} {_label_of(r)}" for r in stated_robust.itertuples(index=False)]
        text += " Clear differences that hold at every composition: " + ", ".join(named[:2 * most]) + (
            f" and {len(named) - 2 * most} more" if len(named) > 2 * most else "") + "."
    unsettled, nowhere = int(marks.str.startswith(UNSETTLED).sum()), int((marks == NOWHERE).sum())
    too_few = int(marks.str.contains(r"^not assessed: \d+ composition", regex=True).sum())
    counts = [f"{n} established at some compositions only (unsettled)" for n in [unsettled] if n] + \
        [f"{n} not established at any composition" for n in [nowhere] if n] + \
        [f"{n} not assessed (fewer than two compositions with {MIN_GAMES} games a side)" for n in [too_few] if n]
    if counts:
        text += f" Of the other differences, {', '.join(counts[:-1]) + ' and ' if len(counts) > 1 else ''}{counts[-1]}."
    if len(depends):
        top = next(depends.itertuples(index=False))
        short = (f"{counted(len(depends), 'difference changes', 'differences change')} direction with the table "
                 f"(e.g. {_short_shift(top)})"
                 + (f"; {len(sized)} more only in size" if len(sized) else "") + ".")
    elif len(sized):
        top = next(sized.itertuples(index=False))
        short = (f"No difference changes direction with the table; {len(sized)} "
                 f"change{'s' if len(sized) == 1 else ''} in size (largest: "
                 f"{_short_shift(top)}, {mark_name(top.robustness)}).")
    else:
        short = "No difference from the baseline is shown to change with play strength."
    weight = float(max(depends["spread_in_thresholds"].max() if len(depends) else 0.0, 0.0))
    return Finding("Play strength", text, bool(len(depends) or len(sized)), short, weight)


STRONG_PLAY = "for strong play"  # analysis.frontier marks a difference "<verdict> for strong play"


def strong_play_finding(judged: pd.DataFrame, top_two: list[str], composition: str = "", most: int = 3,
                        order: str = "") -> Finding:
    """The frontier's word on play strength: the differences that vary with play strength but hold at
    the two rungs that stand for strong play (`strong_play`, analysis.frontier: the top two of the
    rungs' order measured at the game, each profile's own in `strong_rungs` where the rows carry it,
    else ``top_two``), stated for strong play, the composition to read for good players
    (`composition`, a sentence) and what the rungs' order rests on (``order``: measured at the game,
    with every rung not measured stronger than the one below, or the ladder's design).  A run of one
    table composition cannot speak to play strength; the frontier's clear differences are then named
    on their own."""
    rungs = " and ".join(top_two)
    if "strong_rungs" in judged and (judged["strong_rungs"].fillna("") != "").any():
        by = judged[judged["strong_rungs"].fillna("") != ""].drop_duplicates("profile_b")
        found = list(dict.fromkeys(by["strong_rungs"]))
        rungs = found[0] if len(found) == 1 else "; ".join(f"{r.profile_b} {r.strong_rungs}"
                                                          for r in by.itertuples(index=False))
    lead = f"At the two rungs that stand for strong play ({rungs} at every seat): "
    if "strong_play" not in judged:
        return Finding("Strong play", lead + "the frontier holds none of these profiles' differences from the "
                       "baseline. " + composition + (" " + order if order else ""), False,
                       "The frontier holds none of these profiles' differences.")
    marks = judged["robustness"].astype(str) if "robustness" in judged else pd.Series("", index=judged.index)
    one_table = bool(len(marks)) and (marks == ONE_TABLE).all()
    held = judged[(judged["strong_play"] != "") & marks.map(varies)]
    name = lambda r: f"{r.profile_b} {_labels(pd.DataFrame({'metric': [r.metric], 'kind': [r.kind]}))}"
    parts = [f"{name(r)} {r.strong_play.replace(' ' + STRONG_PLAY, '')}" for r in held.itertuples(index=False)]
    if one_table:
        text = ("This run plays one table composition, so it cannot speak to play strength; the frontier can. "
                + lead[0].upper() + lead[1:])
    elif parts:
        text = (lead + f"{len(parts)} of the differences that vary with play strength "
                f"{'holds' if len(parts) == 1 else 'hold'} at both, so for strong "
                "play: " + "; ".join(parts[:most]) + (f"; and {len(parts) - most} more (★ in the headline table)"
                                                      if len(parts) > most else "") + ".")
    else:
        text = lead + "none of the differences that vary with play strength holds at both."
    clear = judged[judged["strong_play"].astype(str).str.startswith(STATED)]
    named = [f"{name(r)} {r.strong_play.split(' ')[0]}" for r in clear.itertuples(index=False)]
    if len(clear):
        text += (f"clear differences from the baseline at both ({len(named)}): " if one_table else
                 f" Clear differences from the baseline at both rungs ({len(named)}): ") + ", ".join(
            named[:2 * most]) + (f" and {len(named) - 2 * most} more" if len(named) > 2 * most else "") + "."
    elif one_table:
        text += "no clear difference from the baseline at both."
    if composition:
        text += " " + composition
    if order:
        text += " " + order
    if parts and not one_table:
        short = (f"{counted(len(parts), 'difference')} that {'varies' if len(parts) == 1 else 'vary'} with play "
                 f"strength {'holds' if len(parts) == 1 else 'hold'} at {rungs} (e.g. {parts[0]}).")
    elif named:
        short = f"{counted(len(named), 'clear difference')} from the baseline at {rungs} (e.g. {named[0]})."
    else:
        short = f"No clear difference from the baseline at {rungs}."
    if one_table:
        short = "This run cannot speak to play strength, the frontier can: " + short[0].lower() + short[1:]
    return Finding("Strong play", text, bool(len(clear)), short)
