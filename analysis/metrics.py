"""Balance metrics of a run as tidy DataFrames, per profile and, where it means something, per bot.

The run is read shard by shard into a :class:`analysis.summaries.Summary` (per-game sums that add
across shards): each shard's summary file, written once by the worker that played it, or where a
shard has none its rows, so memory does not grow with rows.  Each metric function takes a :class:`RunData`
(or a run directory) and returns a DataFrame with the metric's name, the profile, the group (bot,
seat, round, ...), n, the estimate, its 95% interval and the method.  Definitions follow docs/RULES.md
sections 4-8 and the column meanings in ``sim.schema``:

- a *player-hand* is one row of ``hands``; a *hand* (deal) is one (game_id, hand_no, redeal_no);
- a *played* hand is neither void nor stalled: it has exactly one winner.  Every metric of play
  (opening, Kalookis, wins, rounds) counts played hands only; only the metrics about deals as such
  (P(can open at deal), reshuffles, void and stalled shares) count every deal;
- every interval is clustered by game, or in a duplicate run by deal (:func:`cluster_unit`: the
  manifest's ``games_per_deal`` games of one deal, its rotations, share its cards and are one
  cluster): each estimate is a ratio of sums over clusters with a cluster-robust variance (shares:
  Wilson at the effective n; means and differences: t), and its method names the clusters;
- elimination metrics are "not applicable" where the profile's ``game_end`` is not elimination.

By table composition: :func:`composition_run` views each (profile, table composition) as a profile of
its own (the summary keeps the per-composition sums), so every metric is computed per composition by
the same code; ``Results.by_table`` is the headline table per profile and composition.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property, wraps
from pathlib import Path

import numpy as np
import pandas as pd

from sim.errors import UserError
from sim.runformat import games_per_deal

from . import load, stats
from .summaries import (ALL, CLUSTER, FINAL, NONE, Summary, composition_name, default_table, has_elimination,
                        summarise_run, summarise_shard)

NOT_APPLICABLE = "not applicable: the profile has no elimination (game_end = {})"
# means of counts of events, often rare: their intervals are exact Poisson at an effective count
# (stats.cluster_count), so a sample with few or no events gets a skewed interval or a one-sided bound
COUNTS = {"reshuffles_per_hand", "buy_ins_per_game"}


@dataclass
class RunData:
    """A run's summary (per-game sums of every metric, merged over shards) and its manifest."""
    manifest: dict
    summary: Summary
    profiles: list[str]
    run_dir: Path | None = None
    problems: list[str] = field(default_factory=list)  # verification problems (partial runs)

    @property
    def hand_row_count(self) -> int:
        return sum(self.summary.counts.get(p, {}).get("hand_rows", 0) for p in self.profiles)

    @property
    def game_count(self) -> int:
        return sum(self.summary.counts.get(p, {}).get("games", 0) for p in self.profiles)

    def cells(self, metric: str) -> pd.DataFrame:
        m = self.summary.moments
        return m[(m["metric"] == metric) & m["profile"].isin(self.profiles)]

    def elimination(self, profile: str) -> bool:
        return has_elimination(self.manifest, profile)

    @classmethod
    def from_frames(cls, manifest: dict, hands: pd.DataFrame, games: pd.DataFrame, profiles=None,
                    keep_games: bool = False) -> "RunData":
        """A RunData from hands and games rows in memory (one summary of all of them)."""
        profiles = list(manifest["profiles"]) if profiles is None else list(profiles)
        return cls(manifest, summarise_shard(hands, games, manifest, keep_games), profiles)


def load_run(run_dir, profiles=None, exclude=(), problems=(), keep_games: bool = False) -> RunData:
    """What the metrics need from a run directory: each shard's stored summary, or where it has no
    intact one (or its files are in `exclude`) the summary of its rows; ``summary.read_from`` counts
    the shards read each way."""
    manifest = load.read_manifest(run_dir)
    profiles = load.check_profiles(manifest, profiles)
    summary = summarise_run(run_dir, manifest, profiles, exclude, keep_games, workers=None)
    if sum(summary.counts.get(p, {}).get("hand_rows", 0) for p in profiles) == 0:
        raise UserError(f"run {run_dir} has no readable hands rows for profile(s) {', '.join(profiles)}")
    return RunData(manifest, summary, profiles, Path(str(run_dir)), list(problems))


def failed_verification(run_dir, problems: list[str]) -> UserError:
    listed = "\n  - ".join(problems)
    return UserError(f"run {run_dir} failed verification with {len(problems)} problem(s):\n  - {listed}\n"
                     "rerun the missing shards, or pass --allow-partial for a report marked partial")


def load_verified(run_dir, allow_partial: bool, profiles=None, keep_games: bool = False) -> RunData:
    """The run's data, refusing a run with problems unless allow_partial (unreadable files left out);
    ``keep_games`` keeps the per-game sums a paired comparison needs."""
    check = load.check_run(run_dir)
    if check.problems and not allow_partial:
        raise failed_verification(run_dir, check.problems)
    return load_run(run_dir, profiles=profiles, exclude=check.unreadable, problems=check.problems,
                            keep_games=keep_games)


def cluster_unit(run: RunData, profile: str) -> str:
    """What the profile's intervals are clustered by: "deal" in a duplicate run (the manifest's
    ``games_per_deal`` above 1: the rotations of a deal together), else "game"; a run whose manifest
    does not record its design reads as one game a deal."""
    return "deal" if games_per_deal(run.manifest, profile) > 1 else "game"


def _name_clusters(run: RunData, frame: pd.DataFrame) -> pd.DataFrame:
    """``frame``'s methods with the clusters named by deal for the profiles of a duplicate run."""
    if "method" not in frame or "profile" not in frame or not len(frame):
        return frame
    deal = frame["profile"].astype(str).map(lambda p: cluster_unit(run, p) == "deal").to_numpy(dtype=bool)
    if not deal.any():
        return frame
    frame = frame.copy()
    frame.loc[deal, "method"] = [stats.clustered_by(m, "deal") for m in frame.loc[deal, "method"]]
    return frame


def _clusters_named(func):
    """A metric function whose tables' methods name the clusters (:func:`_name_clusters`)."""
    @wraps(func)
    def named(run, *args, **kwargs):
        run = _as_run(run)
        out = func(run, *args, **kwargs)
        return tuple(_name_clusters(run, f) for f in out) if isinstance(out, tuple) else _name_clusters(run, out)
    return named


def _as_run(run) -> RunData:
    return run if isinstance(run, RunData) else load_run(run)


# ---------------------------------------------------------------------------------------------
# building blocks


def _estimates(cells: pd.DataFrame, kind: str) -> pd.DataFrame:
    cells = cells.reset_index(drop=True)
    args = [cells[c] for c in ("games", "x", "y", "Y2", "X2", "XY")]
    if kind == "proportion":
        est = stats.cluster_proportion(*args)
    elif kind == "count":
        est = stats.cluster_count(*args, yy_rows=cells["yy_rows"])
        est.insert(1, "k", pd.array([pd.NA] * len(cells), dtype="Int64"))
    else:
        est = stats.cluster_mean(*args, yy_rows=cells["yy_rows"])
        est.insert(1, "k", pd.array([pd.NA] * len(cells), dtype="Int64"))
    return pd.concat([cells.drop(columns=["metric", "games", "x", "y", "yy_rows", "Y2", "X2", "XY"]), est], axis=1)


def _with_denominator(cells: pd.DataFrame) -> pd.DataFrame:
    """Cells of a share of a categorical: the denominator (games, x, X^2) of every value cell is the
    profile's FINAL cell (every game, whether or not it has rows at that value); XY is a cell's own."""
    final = cells[cells["value"] == FINAL].set_index("profile")
    cells = cells[cells["value"] != FINAL].copy()
    for col in ("games", "x", "X2"):
        cells[col] = cells["profile"].map(final[col]).to_numpy()
    return cells


def _tidy(metric: str, frame: pd.DataFrame, front: list[str]) -> pd.DataFrame:
    frame = frame.copy()
    frame.insert(0, "metric", metric)
    for col in ("profile", "bot"):
        if col in frame:
            frame[col] = frame[col].astype(str)
    rest = [c for c in frame.columns if c not in ["metric"] + front]
    return frame[["metric"] + front + rest]


def _empty_cells(run: RunData, metric: str, profiles) -> pd.DataFrame:
    return pd.DataFrame({"metric": metric, "profile": list(profiles), "bot": ALL, "n_players": NONE, "seat": NONE,
                         "value": NONE, "games": 0, "x": 0.0, "y": 0.0, "yy_rows": 0.0, "Y2": 0.0, "X2": 0.0,
                         "XY": 0.0})


def _profile_and_bot(run: RunData, metric: str, kind: str = "proportion", bots: bool = True,
                     cells_metric: str | None = None) -> pd.DataFrame:
    """`metric` per profile (bot = 'all', every profile even with n = 0) and, with bots, per profile and bot."""
    cells = run.cells(cells_metric or metric)
    whole = cells[cells["bot"] == ALL]
    missing = [p for p in run.profiles if p not in set(whole["profile"])]
    if missing:
        whole = pd.concat([whole, _empty_cells(run, metric, missing)], ignore_index=True)
    order = {p: i for i, p in enumerate(run.profiles)}
    whole = whole.sort_values("profile", key=lambda c: c.map(order))
    parts = [whole]
    if bots:
        parts.append(cells[cells["bot"] != ALL].sort_values(["profile", "bot"], key=lambda c: c.map(order)
                                                             if c.name == "profile" else c))
    if kind == "mean" and metric in COUNTS:
        kind = "count"
    frame = _estimates(pd.concat(parts, ignore_index=True), kind).drop(columns=["n_players", "seat", "value"])
    if kind in ("mean", "count"):  # every headline mean counts turns, points, buy-ins, hands, rounds or reshuffles
        frame = stats.at_least_zero(frame)
    return _tidy(metric, frame, ["profile", "bot"])


def _not_applicable(run: RunData, frame: pd.DataFrame) -> pd.DataFrame:
    """Blank the estimates of profiles without elimination and say why."""
    frame = frame.copy()
    for profile in run.profiles:
        if run.elimination(profile):
            continue
        mine = (frame["profile"] == profile).to_numpy()
        for col in ("estimate", "ci_low", "ci_high", "se", "sd", "design_effect", "design_effect_used"):
            if col in frame:
                frame.loc[mine, col] = np.nan
        game_end = run.manifest["profiles"].get(profile, {}).get("params", {}).get("game_end")
        frame.loc[mine, "method"] = NOT_APPLICABLE.format(game_end)
    return frame


# ---------------------------------------------------------------------------------------------
# 1. opening timing


@_clusters_named
def opening(run) -> pd.DataFrame:
    """P(can open at deal) over every player-hand dealt; over played player-hands the share never
    opened; over openings in played hands the mean open round, mean open value and share made with
    the discard."""
    run = _as_run(run)
    return pd.concat([
        _profile_and_bot(run, "p_can_open_at_deal"),
        _profile_and_bot(run, "share_never_opened"),
        _profile_and_bot(run, "mean_open_round", "mean"),
        _profile_and_bot(run, "mean_open_value", "mean"),
        _profile_and_bot(run, "share_open_with_discard"),
    ], ignore_index=True)


@_clusters_named
def open_round_distribution(run) -> pd.DataFrame:
    """Distribution of open_round among openings in played hands: share of openings at each round."""
    run = _as_run(run)
    cells = _with_denominator(run.cells("open_round_share")).sort_values(["profile", "value"])
    out = _estimates(cells, "proportion").rename(columns={"value": "open_round"})
    out = out.drop(columns=["bot", "n_players", "seat"])
    out["open_round"] = out["open_round"].astype(int)
    return _tidy("open_round_share", out, ["profile", "open_round"])


@_clusters_named
def opened_by_round(run) -> pd.DataFrame:
    """Cumulative P(opened by round k), k = 1..the profile's last open round; the denominator is every
    played player-hand (so the curve ends at 1 - share never opened)."""
    run = _as_run(run)
    cells = run.cells("opened_by_round")
    cells = cells[(cells["value"] != FINAL) & (cells["value"] >= 1)].sort_values(["profile", "value"])
    if cells.empty:
        return pd.DataFrame(columns=["metric", "profile", "round", "n", "k", "estimate", "ci_low", "ci_high",
                                     "method"])
    out = _estimates(cells, "proportion").rename(columns={"value": "round"}).drop(columns=["bot", "n_players", "seat"])
    out["round"] = out["round"].astype(int)
    return _tidy("p_opened_by_round", out, ["profile", "round"])


# ---------------------------------------------------------------------------------------------
# 2. Kalooki frequency


@_clusters_named
def kalooki_frequency(run) -> pd.DataFrame:
    """Kalookis per played hand, per played player-hand and as a share of wins (played hands)."""
    run = _as_run(run)
    return pd.concat([
        _profile_and_bot(run, "kalooki_per_hand", bots=False),
        _profile_and_bot(run, "kalooki_per_player_hand"),
        _profile_and_bot(run, "kalooki_share_of_wins"),
    ], ignore_index=True)


# ---------------------------------------------------------------------------------------------
# 3. elimination


@_clusters_named
def elimination(run) -> pd.DataFrame:
    """Share of players eliminated at least once in their game (over player-games), share of games with
    an elimination, the buy-in rate (buy-ins over the eliminations where the rules allowed one), the
    share of eliminations where a buy-in was allowed, buy-ins per game, P(win game | bought in at least
    once) and P(win game | never bought in) over games that were not stalled, and the median number of
    hands until a game's first elimination (Kaplan-Meier).  Not applicable without elimination."""
    run = _as_run(run)
    frames = [
        _profile_and_bot(run, "share_players_eliminated_at_least_once", bots=False),
        _profile_and_bot(run, "share_games_with_elimination", bots=False),
        _profile_and_bot(run, "buy_in_rate"),
        _profile_and_bot(run, "buy_in_allowed_share"),
        _profile_and_bot(run, "buy_ins_per_game", "mean", bots=False),
        _profile_and_bot(run, "p_win_game_given_bought_in"),
        _profile_and_bot(run, "p_win_game_given_never_bought_in"),
    ]
    medians = []
    for profile in run.profiles:
        curve = _km_curve(run, profile)
        games = run.summary.survival
        games = games[games["profile"] == profile]
        row = {"profile": profile, "bot": ALL, "n": int(games["games"].sum()),
               "k": int(games.loc[games["event"].astype(bool), "games"].sum()), "games": int(games["games"].sum())}
        row.update(stats.km_median_from_curve(curve) if len(curve) else
                   {"estimate": np.nan, "ci_low": np.nan, "ci_high": np.nan, "method": "Kaplan-Meier median"})
        if cluster_unit(run, profile) == "deal" and len(curve):
            row["method"] += "; the band from the " + stats.KM_BY_DEAL
        medians.append(row)
    frames.append(_tidy("median_hands_to_first_elimination", pd.DataFrame(medians), ["profile", "bot"]))
    out = pd.concat(frames, ignore_index=True)
    return _not_applicable(run, out)


def _km_curve(run: RunData, profile: str) -> pd.DataFrame:
    """The profile's Kaplan-Meier curve; its band clustered by deal in a duplicate run (the histogram kept
    per deal), Greenwood's (games independent) otherwise."""
    h = run.summary.survival
    h = h[h["profile"] == profile]
    by_deal = cluster_unit(run, profile) == "deal" and CLUSTER in h and (h[CLUSTER] != NONE).all()
    return stats.km_from_counts(h["time"], h["event"].astype(bool), h["games"],
                                h[CLUSTER].to_numpy() if by_deal else None)


@_clusters_named
def first_elimination_survival(run) -> pd.DataFrame:
    """Kaplan-Meier curve of hands until a game's first elimination, per profile with elimination:
    S(t) = P(nobody eliminated in hands 1..t).  Games without an elimination are censored at
    hands_played.  Each profile's curve starts with t = 0, S = 1.  Profiles without elimination have
    no curve (not applicable)."""
    run = _as_run(run)
    parts = []
    for profile in run.profiles:
        if not run.elimination(profile):
            continue
        h = run.summary.survival
        h = h[h["profile"] == profile]
        n = int(h["games"].sum())
        curve = _km_curve(run, profile)
        start = pd.DataFrame({"time": [0.0], "n_at_risk": [n], "events": [0], "survival": [1.0], "ci_low": [1.0],
                              "ci_high": [1.0]})
        curve = pd.concat([start, curve], ignore_index=True) if len(curve) else start
        last = float(h["time"].max()) if n else 0.0
        if last > curve["time"].iloc[-1]:  # the curve holds until the last game ends (censored)
            at_risk = int(h.loc[h["time"] >= last, "games"].sum())
            end = curve.iloc[[-1]].assign(time=last, n_at_risk=at_risk, events=0)
            curve = pd.concat([curve, end], ignore_index=True)
        curve.insert(0, "profile", profile)
        parts.append(curve)
    if not parts:  # typed, so that it joins another run's curves as numbers (compare's overlays)
        return pd.DataFrame({"metric": pd.Series(dtype=str), "profile": pd.Series(dtype=str),
                             "time": pd.Series(dtype=float), "n_at_risk": pd.Series(dtype=np.int64),
                             "events": pd.Series(dtype=np.int64), "survival": pd.Series(dtype=float),
                             "ci_low": pd.Series(dtype=float), "ci_high": pd.Series(dtype=float),
                             "method": pd.Series(dtype=str)})
    out = pd.concat(parts, ignore_index=True)
    out["method"] = ["Kaplan-Meier, " + (stats.KM_BY_DEAL if cluster_unit(run, p) == "deal" else stats.KM_GREENWOOD)
                     for p in out["profile"]]
    return _tidy("survival_no_elimination", out, ["profile", "time"])


# ---------------------------------------------------------------------------------------------
# 4. game shape


@_clusters_named
def game_shape(run) -> pd.DataFrame:
    """Hands per game, rounds per played hand, stock reshuffles per deal, shares of void and stalled
    deals, share of stalled games."""
    run = _as_run(run)
    frames = [
        _profile_and_bot(run, "hands_per_game", "mean", bots=False),
        _profile_and_bot(run, "rounds_per_hand", "mean", bots=False),
        _profile_and_bot(run, "reshuffles_per_hand", "mean", bots=False),
        _profile_and_bot(run, "void_hand_share", bots=False),
        _profile_and_bot(run, "stalled_hand_share", bots=False),
        _profile_and_bot(run, "stalled_game_share", bots=False),
    ]
    return pd.concat(frames, ignore_index=True).drop(columns=["bot"])


def hands_per_game_counts(run) -> pd.DataFrame:
    """How many games lasted each number of hands, per profile, and their share of the profile's games."""
    run = _as_run(run)
    cells = _with_denominator(run.cells("hands_per_game_hist")).sort_values(["profile", "value"])
    out = pd.DataFrame({"profile": cells["profile"].astype(str).to_numpy(),
                        "hands_played": cells["value"].astype(int).to_numpy(),
                        "games": np.rint(cells["y"]).astype(np.int64).to_numpy()})
    out["share"] = out["games"] / out.groupby("profile")["games"].transform("sum")
    return out


# ---------------------------------------------------------------------------------------------
# 5. fairness


@_clusters_named
def seat_win_rates(run) -> pd.DataFrame:
    """Win rate by seat_from_dealer, per profile and table size: of played hands (level 'hand'), and
    of finished games by the seat in the game's first deal (level 'game')."""
    run = _as_run(run)
    parts = []
    for level in ("hand", "game"):
        cells = run.cells(f"win_rate_by_seat_{level}").sort_values(["profile", "n_players", "seat"])
        est = _estimates(cells, "proportion").drop(columns=["bot", "value"]).rename(
            columns={"seat": "seat_from_dealer"})
        est.insert(1, "level", level)
        parts.append(est)
    out = pd.concat(parts, ignore_index=True)
    out["n_players"] = out["n_players"].astype(int)
    out["seat_from_dealer"] = out["seat_from_dealer"].astype(int)
    out["expected"] = 1.0 / out["n_players"]
    return _tidy("win_rate_by_seat", out, ["profile", "level", "n_players", "seat_from_dealer"])


@_clusters_named
def seat_tests(run, rates: pd.DataFrame | None = None) -> pd.DataFrame:
    """Chi-square test of the winner's seat against equal shares, per profile, level and table size
    (one-sample: the expected wins of each seat are its share of the hands or games)."""
    rates = seat_win_rates(run) if rates is None else rates
    rows = []
    for (profile, level, n_players), group in rates.groupby(["profile", "level", "n_players"], sort=True):
        test = stats.equal_shares(group["k"], group["n"])  # expected wins proportional to seats' hands
        rows.append({"metric": "seat_equal_shares", "profile": profile, "level": level,
                     "n_players": int(n_players), "n": int(group["k"].sum()), **test})
    return pd.DataFrame(rows, columns=["metric", "profile", "level", "n_players", "n", "statistic", "df", "p_value",
                                       "test"])


DEALER_TEST = ("t-test of the dealer's rate against 1/n, cluster-robust (by game) standard error; the edge is "
               "the dealer's rate minus the other seats' at one table size (they sum to one: edge = "
               "(n d - 1) / (n - 1))")


@_clusters_named
def dealer_edge(run) -> pd.DataFrame:
    """Per profile and table size (played hands): the dealer's hand win rate (seat_from_dealer ==
    n_players) against its fair share 1/n, the edge over the other seats (dealer's rate minus theirs),
    and the effect size first player minus dealer, all with cluster-robust (by game) intervals.
    `headline` marks the profile's full table."""
    run = _as_run(run)
    rates = run.cells("win_rate_by_seat_hand")
    effect = run.cells("first_minus_dealer")
    rows = []
    for profile in run.profiles:
        full = full_table_size(run, profile)
        mine = rates[rates["profile"] == profile]
        for n in sorted(mine["n_players"].unique()):
            at_n = mine[mine["n_players"] == n]
            dealer = at_n[at_n["seat"] == n]
            if dealer.empty:
                continue
            d = _estimates(dealer, "proportion").iloc[0]
            k_r, n_r = int(round(at_n.loc[at_n["seat"] != n, "y"].sum())), int(round(at_n.loc[at_n["seat"] != n,
                                                                                                  "x"].sum()))
            scale = n / (n - 1)
            t_half = d["se"] * scale * stats.sps.t.ppf(0.975, max(d["games"] - 1, 1))
            edge = d["estimate"] * scale - 1 / (n - 1)
            e = effect[(effect["profile"] == profile) & (effect["n_players"] == n)]
            fmd = _estimates(e, "mean").iloc[0] if len(e) else None
            rows.append({"metric": "dealer_edge", "profile": profile, "n_players": int(n), "headline": n == full,
                         "dealer_k": int(d["k"]), "dealer_n": int(d["n"]), "dealer_rate": d["estimate"],
                         "dealer_ci_low": d["ci_low"], "dealer_ci_high": d["ci_high"], "fair": 1 / n,
                         "others_k": k_r, "others_n": n_r, "others_rate": k_r / n_r if n_r else np.nan,
                         "estimate": edge, "ci_low": edge - t_half, "ci_high": edge + t_half,
                         "p_value": stats.t_test(d["estimate"], d["se"], 1 / n, d["games"] - 1),
                         "test": DEALER_TEST, "games": int(d["games"]),
                         "first_minus_dealer": fmd["estimate"] if fmd is not None else np.nan,
                         "fmd_ci_low": fmd["ci_low"] if fmd is not None else np.nan,
                         "fmd_ci_high": fmd["ci_high"] if fmd is not None else np.nan,
                         "fmd_p_value": stats.t_test(fmd["estimate"], fmd["se"], 0, fmd["games"] - 1)
                         if fmd is not None else np.nan})
    return pd.DataFrame(rows)


@_clusters_named
def bot_win_shares(run) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per bot: win rate of played player-hands and of finished player-games, its share of all wins,
    and the rate expected if every seat were equally likely to win (the mean of 1/n_players over the
    bot's rows); plus a chi-square test per profile and level of wins against those expectations."""
    run = _as_run(run)
    parts, tests = [], []
    for level in ("hand", "game"):
        cells = run.cells(f"win_rate_by_bot_{level}").sort_values(["profile", "bot"]).reset_index(drop=True)
        fair = run.cells(f"fair_share_by_bot_{level}").set_index(["profile", "bot"])
        est = _estimates(cells, "proportion").drop(columns=["n_players", "seat", "value"])
        est.insert(2, "level", level)
        key = pd.MultiIndex.from_frame(cells[["profile", "bot"]])
        fair_sum = fair["y"].reindex(key).to_numpy()
        est["expected"] = fair_sum / cells["x"].to_numpy()
        est["share_of_wins"] = est["k"] / est.groupby("profile")["k"].transform("sum")
        parts.append(est)
        for profile, group in est.assign(fair=fair_sum).groupby("profile"):
            test = stats.equal_shares(group["k"], group["fair"])
            tests.append({"metric": "bot_equal_skill", "profile": str(profile), "level": level,
                          "n": int(group["k"].sum()), **test})
    return _tidy("win_rate_by_bot", pd.concat(parts, ignore_index=True), ["profile", "bot", "level"]), \
        pd.DataFrame(tests, columns=["metric", "profile", "level", "n", "statistic", "df", "p_value", "test"])


@_clusters_named
def net_payment(run) -> pd.DataFrame:
    """Mean net_payment per player-game (units) by the seat in the game's first deal and by bot."""
    run = _as_run(run)
    by_seat = _estimates(run.cells("net_payment_by_seat").sort_values(["profile", "seat"]), "mean")
    by_seat = by_seat.assign(group="seat " + by_seat["seat"].astype(int).astype(str), by="start seat_from_dealer")
    by_bot = _estimates(run.cells("net_payment_by_bot").sort_values(["profile", "bot"]), "mean")
    by_bot = by_bot.assign(group=by_bot["bot"].astype(str), by="bot")
    out = pd.concat([by_seat, by_bot], ignore_index=True).drop(columns=["bot", "n_players", "seat", "value", "k"])
    return _tidy("mean_net_payment_per_game", out, ["profile", "by", "group"])


@_clusters_named
def eliminated_by_group(run) -> pd.DataFrame:
    """Share of player-games in which the player was eliminated at least once, by the seat in the
    game's first deal ("seat") and by bot ("bot"), per profile; expected: the profile's overall share.
    Denominator: the player-games of the group; intervals clustered by game."""
    run = _as_run(run)
    parts = []
    for by, metric, key in (("seat", "eliminated_by_seat", "seat"), ("bot", "eliminated_by_bot", "bot")):
        cells = run.cells(metric)
        if cells.empty:
            continue
        rates = _estimates(cells.sort_values(["profile", key]), "proportion")
        if by == "seat":
            rates["seat_from_dealer"] = rates["seat"].astype(int)
            rates["group"] = "seat " + rates["seat_from_dealer"].astype(str)
        else:
            rates["group"] = rates["bot"].astype(str)
        rates.insert(1, "by", by)
        total = rates.groupby("profile")[["k", "n"]].transform("sum")
        rates["expected"] = total["k"] / total["n"]
        parts.append(rates.drop(columns=[c for c in ("bot", "n_players", "seat", "value") if c in rates]))
    if not parts:
        return pd.DataFrame(columns=["profile", "by", "group", "n", "k", "estimate", "ci_low", "ci_high", "expected"])
    return pd.concat(parts, ignore_index=True)


# ---------------------------------------------------------------------------------------------
# 6. jokers


@_clusters_named
def win_by_jokers(run) -> pd.DataFrame:
    """P(win the hand | dealt_jokers = j) over played player-hands, per profile."""
    run = _as_run(run)
    cells = run.cells("p_win_hand_by_dealt_jokers").sort_values(["profile", "value"])
    out = _estimates(cells, "proportion").rename(columns={"value": "dealt_jokers"}).drop(
        columns=["bot", "n_players", "seat"])
    out["dealt_jokers"] = out["dealt_jokers"].astype(int)
    return _tidy("p_win_hand_by_dealt_jokers", out, ["profile", "dealt_jokers"])


# ---------------------------------------------------------------------------------------------
# summary


# (metric, where it comes from, what it means); the summary and compare use this order
HEADLINE = [
    ("p_can_open_at_deal", "opening", "P(the dealt hand can open), every deal"),
    ("share_never_opened", "opening", "share of played player-hands never opened"),
    ("mean_open_round", "opening", "mean turn of the opening (openings in played hands)"),
    ("mean_open_value", "opening", "mean points of the opening melds"),
    ("share_open_with_discard", "opening", "share of openings made with the discard"),
    ("kalooki_per_hand", "kalooki", "Kalookis per played hand"),
    ("kalooki_per_player_hand", "kalooki", "Kalookis per played player-hand"),
    ("kalooki_share_of_wins", "kalooki", "share of hand wins that are Kalookis"),
    ("share_players_eliminated_at_least_once", "elimination", "share of player-games eliminated at least once"),
    ("share_games_with_elimination", "elimination", "share of games with at least one elimination"),
    ("buy_in_rate", "elimination", "share of eliminations with a buy-in allowed that were followed by one"),
    ("buy_ins_per_game", "elimination", "mean buy-ins per game"),
    ("p_win_game_given_bought_in", "elimination", "P(win game | bought in at least once)"),
    ("median_hands_to_first_elimination", "elimination", "median hands until a game's first elimination (KM)"),
    ("hands_per_game", "shape", "mean hands per game (re-deals not counted)"),
    ("rounds_per_hand", "shape", "mean rounds per played hand"),
    ("reshuffles_per_hand", "shape", "mean stock reshuffles per deal"),
    ("void_hand_share", "shape", "share of deals that were void"),
    ("stalled_hand_share", "shape", "share of deals stopped at turn_cap"),
    ("stalled_game_share", "shape", "share of games stopped at hand_cap"),
    ("dealer_hand_win_rate", "fairness", "hand win rate of the dealer at the full table"),
    ("dealer_edge", "fairness", "dealer's hand win rate minus the other seats' at the full table"),
    ("first_minus_dealer", "fairness", "first player's hand win rate minus the dealer's at the full table"),
    ("seat_equal_shares_p", "fairness", "p-value, chi-square of the winner's seat against 1/n at the full table"),
]
PLAYED_HANDS = "played player-hands (void and stalled hands left out)"
# metric -> (kind, unit, denominator, in compare's Holm family); near-duplicates stay out of the family:
# kalooki_per_player_hand and kalooki_share_of_wins are kalooki_per_hand over n players and over one winner
# per played hand, dealer_edge is the dealer's rate rescaled
METRIC_INFO = {
    "p_can_open_at_deal": ("proportion", "share", "every player-hand dealt (void and stalled deals included)", True),
    "share_never_opened": ("proportion", "share", PLAYED_HANDS, True),
    "mean_open_round": ("mean", "turns (the player's turn in the hand)", "openings in played hands", True),
    "mean_open_value": ("mean", "points", "openings in played hands", True),
    "share_open_with_discard": ("proportion", "share", "openings in played hands", True),
    "kalooki_per_hand": ("proportion", "Kalookis per hand", "played hands (deals)", True),
    "kalooki_per_player_hand": ("proportion", "Kalookis per player-hand", PLAYED_HANDS, False),
    "kalooki_share_of_wins": ("proportion", "share", "hand wins (one per played hand)", False),
    "share_players_eliminated_at_least_once": ("proportion", "share", "player-games", True),
    "share_games_with_elimination": ("proportion", "share", "games", True),
    "buy_in_rate": ("proportion", "share", "eliminations where a buy-in was allowed (fewer than max_buy_ins so "
                    "far and two players still in)", True),
    "buy_ins_per_game": ("mean", "buy-ins per game", "games", True),
    "p_win_game_given_bought_in": ("proportion", "share", "finished player-games with a buy-in", True),
    "median_hands_to_first_elimination": ("median", "hands", "games (no elimination: censored at hands_played)",
                                          False),
    "hands_per_game": ("mean", "hands per game", "games", True),
    "rounds_per_hand": ("mean", "rounds per hand", "played hands (deals)", True),
    "reshuffles_per_hand": ("mean", "reshuffles per deal", "every deal (void and stalled included)", True),
    "void_hand_share": ("proportion", "share", "every deal", True),
    "stalled_hand_share": ("proportion", "share", "every deal", True),
    "stalled_game_share": ("proportion", "share", "games", True),
    "dealer_hand_win_rate": ("proportion", "share", "the dealer's played player-hands at the full table", True),
    "dealer_edge": ("difference", "difference of shares", "played hands at the full table", False),
    "first_minus_dealer": ("difference", "difference of shares", "played hands at the full table", True),
    "seat_equal_shares_p": ("test", "p-value", "hand wins at the full table", False),
}
KINDS = {m: info[0] for m, info in METRIC_INFO.items() if info[0] != "proportion"}
ELIMINATION_METRICS = {m for m, group, _ in HEADLINE if group == "elimination"}


@dataclass
class Results:
    """Every metric table of a run, computed once (what the report and compare draw on)."""
    run: RunData
    opening: pd.DataFrame
    opened_by_round: pd.DataFrame
    open_round_distribution: pd.DataFrame
    kalooki: pd.DataFrame
    elimination: pd.DataFrame
    survival: pd.DataFrame
    shape: pd.DataFrame
    hands_per_game: pd.DataFrame
    seat_rates: pd.DataFrame
    seat_tests: pd.DataFrame
    dealer_edge: pd.DataFrame
    bot_rates: pd.DataFrame
    bot_tests: pd.DataFrame
    net_payment: pd.DataFrame
    jokers: pd.DataFrame

    @cached_property
    def summary(self) -> pd.DataFrame:
        return _name_clusters(self.run, _summary(self))

    @cached_property
    def compositions(self) -> "Results":
        """The same metrics with each (profile, table composition) as a profile (:func:`composition_run`)."""
        return compute(composition_run(self.run))

    @cached_property
    def by_table(self) -> pd.DataFrame:
        """The headline metrics per profile and table composition (long: profile, table, metric, the
        estimate and its interval, n, games, ...), the profiles and compositions in run order."""
        comp = self.compositions
        names = comp.run.manifest["compositions"]
        out = comp.summary.rename(columns={"profile": "composition"})
        out.insert(0, "table", out["composition"].map(lambda c: names[c][1]))
        out.insert(0, "profile", out["composition"].map(lambda c: names[c][0]))
        return out[BY_TABLE_COLUMNS].reset_index(drop=True)


BY_TABLE_COLUMNS = ["profile", "table", "metric", "kind", "estimate", "ci_low", "ci_high", "n", "k", "games", "se",
                    "p_value", "applicable", "method", "unit", "denominator", "composition"]


def tables_of(run: RunData) -> list[str]:
    """The run's table compositions in order: each profile's manifest mix, then any others seen."""
    by_table = run.summary.by_table
    if by_table is None:  # a summary made without compositions: each profile's bots
        return list(dict.fromkeys(default_table(run.manifest, p) for p in run.profiles))
    seen = [t for p, t in by_table.compositions.values() if p in run.profiles]
    named = [str(t.get("name")) for p in run.profiles
             for t in run.manifest.get("profiles", {}).get(p, {}).get("tables") or []]
    return list(dict.fromkeys([t for t in named if t in seen] + sorted(seen)))


def composition_run(run: RunData) -> RunData:
    """The run with each (profile, table composition) as a profile named ``"profile | table"``: its
    rules those of the profile, its bots those of the composition.  ``manifest["compositions"]`` maps
    each name to (profile, table); the order is by profile, then by composition."""
    by_table = run.summary.by_table
    if by_table is None:  # a summary made without compositions: each profile one, named from its bots
        s = run.summary
        names = {p: composition_name(p, default_table(run.manifest, p)) for p in s.counts}
        rename = lambda frame: frame.assign(profile=frame["profile"].map(names))
        by_table = Summary(rename(s.moments), rename(s.survival), {names[p]: c for p, c in s.counts.items()},
                           [rename(f) for f in s.per_game], {n: (p, default_table(run.manifest, p))
                                                              for p, n in names.items()})
    order = {t: i for i, t in enumerate(tables_of(run))}
    pairs = sorted(((name, pt) for name, pt in by_table.compositions.items() if pt[0] in run.profiles),
                   key=lambda item: (run.profiles.index(item[1][0]), order.get(item[1][1], len(order))))
    profiles = run.manifest.get("profiles", {})
    entries = {}
    for name, (profile, table) in pairs:
        info = dict(profiles.get(profile, {}))
        mix = {str(t.get("name")): t for t in info.get("tables") or []}
        if table in mix:
            info["bots"] = list(mix[table].get("bots", info.get("bots", [])))
        entries[name] = info
    manifest = {**run.manifest, "profiles": entries, "compositions": dict(pairs)}
    summary = Summary(by_table.moments, by_table.survival, by_table.counts, by_table.per_game, dict(pairs))
    return RunData(manifest, summary, [name for name, _ in pairs], run.run_dir, list(run.problems))


def compute(run) -> Results:
    run = _as_run(run)
    seat_rates = seat_win_rates(run)
    bot_rates, bot_tests = bot_win_shares(run)
    return Results(run=run, opening=opening(run), opened_by_round=opened_by_round(run),
                   open_round_distribution=open_round_distribution(run), kalooki=kalooki_frequency(run),
                   elimination=elimination(run), survival=first_elimination_survival(run),
                   shape=game_shape(run), hands_per_game=hands_per_game_counts(run), seat_rates=seat_rates,
                   seat_tests=seat_tests(run, seat_rates), dealer_edge=dealer_edge(run), bot_rates=bot_rates,
                   bot_tests=bot_tests, net_payment=net_payment(run), jokers=win_by_jokers(run))


def full_table_size(run: RunData, profile: str) -> int:
    """The profile's table size: the manifest's n_players, else the largest seen in its hands."""
    n = run.manifest["profiles"].get(profile, {}).get("n_players")
    if n is None:
        seen = run.cells("win_rate_by_seat_hand")
        seen = seen.loc[seen["profile"] == profile, "n_players"]
        n = int(seen.max()) if len(seen) else 0
    return int(n)


def headline_cell(metric: str, full: int) -> dict:
    """Which summary cell a headline metric reads: its cell metric and keys (compare's per-game sums)."""
    if metric == "dealer_hand_win_rate" or metric == "dealer_edge":
        return {"metric": "win_rate_by_seat_hand", "bot": ALL, "n_players": full, "seat": full, "value": NONE}
    if metric == "first_minus_dealer":
        return {"metric": "first_minus_dealer", "bot": ALL, "n_players": full, "seat": NONE, "value": NONE}
    return {"metric": metric, "bot": ALL, "n_players": NONE, "seat": NONE, "value": NONE}


SUMMARY_COLUMNS = ["profile", "metric", "kind", "n", "k", "estimate", "ci_low", "ci_high", "p_value", "method",
                   "description", "unit", "denominator", "games", "se", "applicable"]


def _summary(res: Results) -> pd.DataFrame:
    pools = [res.opening, res.kalooki, res.elimination, res.shape]
    tables = pd.concat([p[p["bot"] == ALL] if "bot" in p else p for p in pools], ignore_index=True)
    rates = res.seat_rates
    rows = []
    for profile in res.run.profiles:
        mine = tables[tables["profile"] == profile].set_index("metric")
        full = full_table_size(res.run, profile)
        edge = res.dealer_edge
        edge = edge[(edge["profile"] == profile) & (edge["n_players"] == full)] if len(edge) else edge
        for metric, _, description in HEADLINE:
            kind, unit, denominator, _ = METRIC_INFO[metric]
            row = {"profile": profile, "metric": metric, "kind": kind, "description": description, "unit": unit,
                   "denominator": denominator, "applicable": True}
            if metric in ELIMINATION_METRICS and not res.run.elimination(profile):
                row["applicable"] = False
            if metric in mine.index:
                found = mine.loc[metric]
                row.update({c: found.get(c) for c in ("n", "k", "estimate", "ci_low", "ci_high", "method", "games",
                                                      "se")})
            elif metric == "dealer_hand_win_rate":
                dealer = rates[(rates["profile"] == profile) & (rates["level"] == "hand")
                               & (rates["n_players"] == full) & (rates["seat_from_dealer"] == full)]
                if len(dealer):
                    d = dealer.iloc[0]
                    row.update({c: d[c] for c in ("n", "k", "estimate", "ci_low", "ci_high", "method", "games",
                                                  "se")})
                    row["p_value"] = edge.iloc[0]["p_value"] if len(edge) else np.nan
                    row["method"] += f"; p: {DEALER_TEST.split(';')[0]}"
                row["description"] += f" ({full} players; fair share 1/{full})"
            elif metric == "dealer_edge" and len(edge):
                e = edge.iloc[0]
                row.update({"n": e["dealer_n"] + e["others_n"], "estimate": e["estimate"], "ci_low": e["ci_low"],
                            "ci_high": e["ci_high"], "p_value": e["p_value"], "games": e["games"],
                            "se": (e["ci_high"] - e["ci_low"]) / 2 / stats.sps.t.ppf(0.975, max(e["games"] - 1, 1)),
                            "method": stats.CLUSTER_T + "; " + DEALER_TEST})
            elif metric == "first_minus_dealer" and len(edge):
                e = edge.iloc[0]
                row.update({"n": e["dealer_n"], "estimate": e["first_minus_dealer"], "ci_low": e["fmd_ci_low"],
                            "ci_high": e["fmd_ci_high"], "p_value": e["fmd_p_value"], "games": e["games"],
                            "se": (e["fmd_ci_high"] - e["fmd_ci_low"]) / 2
                            / stats.sps.t.ppf(0.975, max(e["games"] - 1, 1)),
                            "method": stats.CLUSTER_T + "; p: t-test against 0"})
                row["description"] += f" ({full} players)"
            elif metric == "seat_equal_shares_p":
                test = res.seat_tests[(res.seat_tests["profile"] == profile) & (res.seat_tests["level"] == "hand")
                                      & (res.seat_tests["n_players"] == full)]
                if len(test):
                    t = test.iloc[0]
                    row.update({"n": t["n"], "estimate": t["p_value"], "p_value": t["p_value"],
                                "method": f"{t['test']}, {full} seats, df {t['df']}"})
                row["description"] += f" ({full} players)"
            rows.append(row)
    out = pd.DataFrame(rows, columns=SUMMARY_COLUMNS)
    out["n"] = out["n"].fillna(0).astype(np.int64)
    out["k"] = out["k"].astype("Float64").astype("Int64")
    out["games"] = out["games"].astype("Float64").astype("Int64")
    return out


def summary(run) -> pd.DataFrame:
    """One row per headline metric per profile: kind, n, k (successes, proportions), estimate, 95%
    interval, p-value (tests), the interval method, unit, denominator and games (clusters)."""
    return compute(run).summary
