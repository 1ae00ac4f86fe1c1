"""Plain-language findings from a run's numbers, and the practical thresholds they are judged by.

A difference between a profile and the baseline is *stated* only when it is statistically clear
(significant after the comparison's Holm correction, its 95% interval excluding 0) and its estimate
is at least the metric's practical threshold (``configs/thresholds.toml``, overridable); otherwise
it reads "no practical difference".  Within a profile, a seat or bot advantage is stated only when
the chi-square test of equal shares rejects (Holm over the profiles) and the largest gap from the
fair share passes its threshold; money only when a mean net payment's Bonferroni-widened interval
excludes 0 and the mean passes its threshold.  Estimates that are NaN read "not applicable".

This module also owns how each headline metric is named in words and how its numbers are shown.
"""
from __future__ import annotations

import functools
import math
import tomllib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats as sps

from sim.errors import UserError
from sim.resources import config_file

from . import stats

THRESHOLDS_FILE = config_file("thresholds.toml")  # configs/thresholds.toml, shipped as package data
ALPHA = 0.05

# verdicts of a difference from the baseline
HIGHER, LOWER = "higher", "lower"
NO_PRACTICAL = "no practical difference"
NOT_APPLICABLE = "not applicable"
NOT_TESTED = "not tested"
NO_THRESHOLD = "no threshold set"
STATED = (HIGHER, LOWER)


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
    "Opening timing", "Kalooki frequency", "Elimination", "Game length", "Seat advantage", "Bot advantage", "Money")
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
    "dealer_edge": Show("Dealer's edge over the other seats", SEAT),
    "first_minus_dealer": Show("First player's win rate minus the dealer's", SEAT),
    "seat_equal_shares_p": Show("Seats equal: chi-square p", SEAT, 1.0, "", "", 3),
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


def judge(diffs: pd.DataFrame, thresholds: dict[str, Threshold]) -> pd.DataFrame:
    """`diffs` (compare's columns: metric, kind, estimate_a/b, difference, diff_ci_low/high,
    significant) with `threshold`, `unit` and `verdict` added: higher / lower (B against A) when the
    difference is significant, its interval excludes 0 and |difference| >= threshold; otherwise
    "no practical difference", "not applicable" (an estimate is NaN), "not tested" (a median, a
    p-value) or "no threshold set"."""
    out = diffs.copy()
    out["threshold"] = [thresholds[m].threshold if m in thresholds else np.nan for m in out["metric"]]
    out["unit"] = [thresholds[m].unit if m in thresholds else "" for m in out["metric"]]
    verdicts = []
    for row in out.itertuples(index=False):
        d, low, high = row.difference, row.diff_ci_low, row.diff_ci_high
        significant = row.significant
        if pd.isna(row.estimate_a) or pd.isna(row.estimate_b) or pd.isna(d):
            verdicts.append(NOT_APPLICABLE)
        elif significant is None or pd.isna(significant):
            verdicts.append(NOT_TESTED)
        elif pd.isna(row.threshold):
            verdicts.append(NO_THRESHOLD)
        elif bool(significant) and (low > 0 or high < 0) and abs(d) >= row.threshold:
            verdicts.append(HIGHER if d > 0 else LOWER)
        else:
            verdicts.append(NO_PRACTICAL)
    out["verdict"] = verdicts
    return out


# ---------------------------------------------------------------------------------------------
# advantages within a profile: seats, bots, money


def group_advantage(rows: pd.DataFrame, threshold: float) -> dict | None:
    """The group (seat, bot) whose win or elimination rate is furthest from its expected rate,
    with the chi-square p-value of equal shares; `rows` has group, k, n, estimate, ci_low, ci_high,
    expected.  None when fewer than two groups have data."""
    rows = rows[rows["n"] > 0]
    if len(rows) < 2:
        return None
    test = stats.equal_shares(rows["k"].to_numpy(float), (rows["n"] * rows["expected"]).to_numpy(float))
    gaps = rows["estimate"] - rows["expected"]
    top = rows.loc[gaps.abs().idxmax()]
    return {"group": top["group"], "estimate": top["estimate"], "ci_low": top["ci_low"], "ci_high": top["ci_high"],
            "expected": top["expected"], "gap": float(top["estimate"] - top["expected"]),
            "p_value": test["p_value"], "threshold": threshold}


def _holm_flags(items: list[dict]) -> None:
    """Holm-adjust the items' p_value in place (p_adjusted) and set clear = adjusted < ALPHA and |gap|
    >= threshold."""
    reject, adjusted = stats.adjust([i["p_value"] for i in items])
    for item, r, a in zip(items, reject, adjusted):
        item["p_adjusted"] = a
        item["clear"] = bool(r) and abs(item["gap"]) >= item["threshold"]


def money_advantage(rows: pd.DataFrame, threshold: float) -> list[dict]:
    """Groups (seats, bots) whose mean net payment per game is clearly away from 0: the t interval
    widened to a Bonferroni family over the groups excludes 0 and |mean| >= threshold."""
    rows = rows[rows["n"] > 1].dropna(subset=["estimate", "ci_low", "ci_high"])
    m = len(rows)
    found = []
    if m == 0:
        return found
    z95, zfam = sps.norm.ppf(0.975), sps.norm.ppf(1 - ALPHA / (2 * m))
    for row in rows.itertuples(index=False):
        half = (row.ci_high - row.ci_low) / 2 * zfam / z95
        if abs(row.estimate) - half > 0 and abs(row.estimate) >= threshold:
            found.append({"group": row.group, "estimate": row.estimate, "ci_low": row.ci_low,
                          "ci_high": row.ci_high})
    return found


# ---------------------------------------------------------------------------------------------
# the findings


@dataclass(frozen=True)
class Finding:
    topic: str
    text: str
    stated: bool  # a difference or advantage is stated (not "no practical difference")


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


def difference_findings(judged: pd.DataFrame, baseline: str, most: int = 2) -> list[Finding]:
    """One finding per topic from the judged differences of each profile (profile_b) from the
    baseline (profile_a): what is stated, the rest as "no practical difference"."""
    out = []
    topic_of = {m: show(m).topic for m in judged["metric"]}
    for topic in (OPENING, KALOOKI, ELIMINATION, LENGTH, SEAT):
        rows = judged[[topic_of[m] == topic for m in judged["metric"]]]
        if rows.empty:
            continue
        parts, quiet, absent = [], [], []
        for profile, mine in rows.groupby("profile_b", sort=False):
            if profile == baseline:
                continue
            clear = mine[mine["verdict"].isin(STATED)]
            if clear.empty:
                (absent if (mine["verdict"] == NOT_APPLICABLE).all() else quiet).append(profile)
                continue
            ranked = clear.assign(size=(clear["difference"].abs() / clear["threshold"])).sort_values(
                "size", ascending=False)
            phrases = [_difference_phrase(r) for r in ranked.head(most).itertuples(index=False)]
            more = len(ranked) - most
            parts.append(f"{profile}: " + "; ".join(phrases) + (f"; and {more} more in the table" if more > 0 else ""))
        stated = bool(parts)
        if quiet:
            parts.append(f"{', '.join(quiet)}: no practical difference from {baseline}")
        if absent:
            parts.append(f"{', '.join(absent)}: not applicable (no such events)")
        if parts:
            lead = "Dealer against the baseline: " if topic == SEAT else ""
            out.append(Finding(topic, lead + ". ".join(parts) + ".", stated))
    return out


def merge(found: list[Finding]) -> list[Finding]:
    """One finding per topic, in TOPICS order (texts joined)."""
    out = []
    for topic in TOPICS + sorted({f.topic for f in found} - set(TOPICS)):
        mine = [f for f in found if f.topic == topic]
        if mine:
            out.append(Finding(topic, " ".join(f.text for f in mine), any(f.stated for f in mine)))
    return out


def _group_text(item: dict, what: str) -> str:
    return (f"{item['group']} {what} {_pct(item['estimate'])} (95% CI {_pct(item['ci_low'])} to "
            f"{_pct(item['ci_high'])}) against a fair {_pct(item['expected'])}")


def advantage_findings(seat: dict[str, dict | None], bot: dict[str, dict | None], eliminated: dict[str, dict | None],
                       money: dict[str, list[dict] | None]) -> list[Finding]:
    """Findings on seat and bot advantage, who is eliminated and money, per profile; each dict maps
    profile -> group_advantage (or money_advantage) result, None where not measurable."""
    out = []
    for topic, table, what in ((SEAT, seat, "wins"), (BOT, bot, "wins"), (ELIMINATION, eliminated, "is eliminated in")):
        measured = [i for i in table.values() if i is not None]
        _holm_flags(measured)
        stated = [f"{p}: {_group_text(i, what)}" for p, i in table.items() if i is not None and i["clear"]]
        quiet = [p for p, i in table.items() if i is not None and not i["clear"]]
        missing = [p for p, i in table.items() if i is None]
        parts = list(stated)
        if quiet:
            biggest = max((abs(table[p]["gap"]) for p in quiet), default=0.0)
            what_quiet = {SEAT: "no practical seat advantage", BOT: "no practical bot advantage",
                          ELIMINATION: "no seat eliminated clearly more or less than its share"}[topic]
            parts.append(f"{', '.join(quiet)}: {what_quiet} (largest gap {biggest * 100:.1f} pp)")
        if missing:
            parts.append(f"{', '.join(missing)}: not measured ("
                         + ("every seat plays the same bot" if topic == BOT else "no such events") + ")")
        text = "; ".join(parts) + "."
        lead = {ELIMINATION: "Who is eliminated: ", SEAT: "Seats within each profile: "}.get(topic, "")
        out.append(Finding(topic, lead + text, bool(stated)))
    parts, stated_any, quiet, missing = [], False, [], []
    for profile, items in money.items():
        if items is None:
            missing.append(profile)
        elif items:
            stated_any = True
            parts.append(f"{profile}: " + ", ".join(
                f"{i['group']} {i['estimate']:+.2f} units a game (95% CI {i['ci_low']:+.2f} to {i['ci_high']:+.2f})"
                for i in items))
        else:
            quiet.append(profile)
    if quiet:
        parts.append(f"{', '.join(quiet)}: no seat or bot gains or loses money in practice")
    if missing:
        parts.append(f"{', '.join(missing)}: not applicable (no money changes hands)")
    out.append(Finding(MONEY, "; ".join(parts) + ".", stated_any))
    return out


# ---------------------------------------------------------------------------------------------
# the rows behind the within-profile findings (and the by-seat / by-bot figures)


def _seat_label(seat: int, n_players: int) -> str:
    return f"seat {seat} (dealer)" if seat == n_players else f"seat {seat}"


def seat_rows(res, profile: str, full: int) -> pd.DataFrame:
    """Hand win rate by seat_from_dealer at the profile's full table size, with the fair share 1/n."""
    r = res.seat_rates
    r = r[(r["profile"] == profile) & (r["level"] == "hand") & (r["n_players"] == full)]
    return r.assign(group=[_seat_label(int(s), full) for s in r["seat_from_dealer"]])


def bot_rows(res, profile: str) -> pd.DataFrame:
    """Hand win rate by bot, with the rate expected if every seat were equally likely to win."""
    r = res.bot_rates
    return r[(r["profile"] == profile) & (r["level"] == "hand")].assign(group=lambda f: f["bot"].astype(str))


def elimination_by_group(res) -> pd.DataFrame:
    """Share of player-games in which the player was eliminated at least once, by the seat in the
    game's first deal and by bot, per profile (``metrics.eliminated_by_group``)."""
    from . import metrics
    return metrics.eliminated_by_group(res.run)


def money_rows(res, profile: str, by: str) -> pd.DataFrame | None:
    """Mean net payment per game by seat ('seat') or bot ('bot'); None when no money changes hands."""
    r = res.net_payment
    r = r[(r["profile"] == profile) & ((r["by"] == "bot") == (by == "bot"))]
    if r.empty or ((r["estimate"].fillna(0) == 0) & (r["sd"].fillna(0) == 0)).all():
        return None
    return r


def within_profile_findings(res, profiles: list[str], full_sizes: dict[str, int],
                            thresholds: dict[str, Threshold]) -> list[Finding]:
    """Seat advantage, bot advantage, who is eliminated and money, per profile."""
    gap = lambda name: thresholds[name].threshold if name in thresholds else 0.0
    seat, bot, eliminated, money = {}, {}, {}, {}
    by_group = elimination_by_group(res)
    for p in profiles:
        seat[p] = group_advantage(seat_rows(res, p, full_sizes[p]), gap("seat_win_rate_gap"))
        bots = bot_rows(res, p)
        bot[p] = group_advantage(bots, gap("bot_win_rate_gap")) if len(bots) > 1 else None
        e = by_group[(by_group["profile"] == p) & (by_group["by"] == "seat")]
        eliminated[p] = group_advantage(e, gap("seat_win_rate_gap")) if e["k"].sum() > 0 else None
        rows = [money_rows(res, p, "seat"), money_rows(res, p, "bot") if len(bots) > 1 else None]
        rows = [r for r in rows if r is not None]
        money[p] = money_advantage(pd.concat(rows), gap("net_payment_per_game")) if rows else None
    return advantage_findings(seat, bot, eliminated, money)


# ---------------------------------------------------------------------------------------------
# robustness across table compositions (play strength)


ROBUST = "robust"
DEPENDS = "depends on play strength"
UNSETTLED = "unsettled"
NOT_ASSESSED = "not assessed"
ONE_TABLE = "one table composition: robustness not assessed"
MIN_GAMES = 30  # games on each side before a composition's difference counts
ROBUSTNESS_NOTE = (
    "Robustness across table compositions: each profile's difference from the baseline is computed again "
    "within each composition (the same tests, one Holm family over every composition). A composition counts "
    f"when its difference was tested with at least {MIN_GAMES} games on each side. Two compositions disagree "
    "when their differences point clearly in opposite directions (each 95% interval excluding 0) or differ by "
    "at least the metric's practical threshold with that gap clear at 95% (compositions are different games, "
    "so its standard error is the root sum of squares). \"robust\": no two disagree and every two are within "
    "the threshold of each other; \"depends on play strength\": some two disagree (named, with their "
    "differences); \"unsettled\": differences a threshold or more apart that the data cannot yet tell from "
    "noise; \"not assessed\": fewer than two compositions count.")


def _clear_direction(row) -> int:
    if row.diff_ci_low > 0:
        return 1
    if row.diff_ci_high < 0:
        return -1
    return 0


Z95 = float(sps.norm.ppf(0.975))


def _se(row) -> float:
    """The standard error behind a difference's 95% interval (its half-width over z; a t interval's
    is a little wider, so this errs towards calling a gap unclear)."""
    return (row.diff_ci_high - row.diff_ci_low) / 2 / Z95


def _counted(rows: pd.DataFrame) -> pd.DataFrame:
    """The compositions with enough data: tested, at least MIN_GAMES games on each side."""
    return rows[rows["p_value"].notna() & rows["diff_ci_low"].notna()
                & (rows["games_a"].fillna(0) >= MIN_GAMES) & (rows["games_b"].fillna(0) >= MIN_GAMES)]


def robustness_mark(rows: pd.DataFrame, metric: str, kind: str, threshold: float) -> str:
    """The robustness of one difference from its per-composition rows (compare's columns plus
    `table`): see ROBUSTNESS_NOTE."""
    counted = _counted(rows)
    if len(counted) < 2:
        return f"{NOT_ASSESSED}: {len(counted)} composition{'' if len(counted) == 1 else 's'} with enough data"
    if pd.isna(threshold):
        return f"{NOT_ASSESSED}: no threshold set"
    items = list(counted.itertuples(index=False))
    disagree, wide = set(), False
    for i, a in enumerate(items):
        for b in items[i + 1:]:
            gap = abs(a.difference - b.difference)
            opposite = _clear_direction(a) * _clear_direction(b) < 0
            gap_clear = gap - Z95 * float(np.hypot(_se(a), _se(b))) > 0
            if opposite or (gap >= threshold and gap_clear):
                disagree.update({a.table, b.table})
            elif gap >= threshold:
                wide = True
    named = lambda tables: " vs ".join(
        f"{r.table} {fmt_difference(metric, r.difference, np.nan, np.nan, kind)}"
        for r in sorted((r for r in items if r.table in tables), key=lambda r: -r.difference))
    if disagree:
        return f"{DEPENDS}: {named(disagree)}"
    if wide:
        return f"{UNSETTLED}: {named({r.table for r in items})} (a threshold or more apart, not clearly)"
    return ROBUST


def robustness(judged: pd.DataFrame, by_table: pd.DataFrame, tables: list[str]) -> pd.DataFrame:
    """`judged` (each profile against the baseline) with a `robustness` column from `by_table`
    (the same differences within each composition, with a `table` column): one mark per row."""
    out = judged.copy()
    if len(tables) < 2:
        out["robustness"] = ONE_TABLE
        return out
    groups = {key: rows for key, rows in by_table.groupby(["profile_a", "profile_b", "metric"], sort=False)}
    marks, spreads = [], []
    for row in out.itertuples(index=False):
        rows = groups.get((row.profile_a, row.profile_b, row.metric))
        if row.verdict in (NOT_APPLICABLE, NOT_TESTED) or rows is None:
            marks.append(f"{NOT_ASSESSED}: {row.verdict}" if row.verdict in (NOT_APPLICABLE, NOT_TESTED)
                         else f"{NOT_ASSESSED}: no composition data")
            spreads.append(np.nan)
            continue
        marks.append(robustness_mark(rows, row.metric, row.kind, row.threshold))
        counted = _counted(rows)["difference"]
        spreads.append((counted.max() - counted.min()) / row.threshold if len(counted) > 1 and row.threshold > 0
                       else np.nan)
    out["robustness"] = marks
    out["spread_in_thresholds"] = spreads  # the largest gap between compositions' differences / threshold
    return out


def robustness_finding(judged: pd.DataFrame, tables: list[str], most: int = 2) -> Finding:
    """The findings' first line: which differences from the baseline depend on play strength."""
    if len(tables) < 2:
        return Finding("Play strength", f"{ONE_TABLE[0].upper()}{ONE_TABLE[1:]} (every game at {tables[0] if tables else 'one table'}).",
                       False)
    depends = judged[judged["robustness"].str.startswith(DEPENDS)]
    depends = depends.assign(stated=depends["verdict"].isin(STATED)).sort_values(
        ["stated", "spread_in_thresholds"], ascending=False, kind="stable")  # the most telling first
    stated_robust = judged[judged["verdict"].isin(STATED) & (judged["robustness"] == ROBUST)]
    parts = []
    for profile in dict.fromkeys(judged["profile_b"]):
        rows = depends[depends["profile_b"] == profile]
        if rows.empty:
            continue
        items = [f"{sentence_label(show(r.metric, r.kind).label)} ({r.robustness[len(DEPENDS) + 2:]})"
                 for r in rows.head(most).itertuples(index=False)]
        more = len(rows) - most
        parts.append(f"{profile}: " + "; ".join(items)
                     + (f"; and {more} more under By table composition" if more > 0 else ""))
    lead = f"Across {len(tables)} table compositions ({', '.join(tables)}): "
    if parts:
        text = lead + "these differences from the baseline depend on play strength: " + ". ".join(parts) + "."
    else:
        text = lead + "no difference from the baseline clearly depends on play strength."
    if len(stated_robust):
        named = [f"{r.profile_b} {sentence_label(show(r.metric, r.kind).label)}"
                 for r in stated_robust.itertuples(index=False)]
        text += " Stated differences that hold at every composition: " + ", ".join(named[:2 * most]) + (
            f" and {len(named) - 2 * most} more" if len(named) > 2 * most else "") + "."
    unsettled = int(judged["robustness"].str.startswith(UNSETTLED).sum())
    if unsettled:
        text += (f" {unsettled}{' more' if parts else ''} differ{'s' if unsettled == 1 else ''} between compositions "
                 "by a threshold or more, not clearly (unsettled).")
    return Finding("Play strength", text, bool(parts))
