"""Balance metrics of a run as tidy DataFrames, per profile and, where it means something, per bot.

Each metric function takes a :class:`RunData` (the run's hands and games, loaded once with only the
columns the metrics need) and returns a DataFrame with the metric's name, the profile, the group
(bot, seat, round, ...), n, the estimate, its 95% interval and the method.  Definitions follow
docs/RULES.md sections 4-8 and the column meanings in ``sim.schema``:

- a *player-hand* is one row of ``hands``; a *hand* is one (game_id, hand_no, redeal_no) deal;
- a *played* hand is neither void nor stalled: it has exactly one winner;
- proportions carry Wilson intervals and means t intervals, treating the rows counted as
  independent (player-hands of one game are not quite, so the intervals are a little narrow).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np
import pandas as pd

from sim.errors import UserError

from . import load, stats

HAND_COLUMNS = ["profile", "game_id", "hand_no", "redeal_no", "seat", "seat_from_dealer", "n_players", "bot",
                "dealt_jokers", "can_open_at_deal", "opened", "open_round", "open_value", "open_with_discard",
                "won", "win_type", "rounds", "eliminated", "bought_in", "stock_reshuffles", "void", "stalled"]
GAME_COLUMNS = ["profile", "game_id", "seat", "n_players", "bot", "hands_played", "won", "eliminated_count",
                "buy_ins", "net_payment", "stalled"]
_HAND_FLAGS = ["can_open_at_deal", "opened", "open_with_discard", "won", "eliminated", "bought_in", "void",
               "stalled"]
_GAME_FLAGS = ["won", "stalled"]
ALL = "all"  # the group label of a whole profile


@dataclass
class RunData:
    """A run's hands and games (needed columns only), ready for the metric functions."""
    manifest: dict
    hands: pd.DataFrame
    games: pd.DataFrame
    profiles: list[str]
    run_dir: Path | None = None
    problems: list[str] = field(default_factory=list)  # verification problems (partial runs)

    def __post_init__(self):
        self.hands = _prepare(self.hands, _HAND_FLAGS, self.profiles)
        self.games = _prepare(self.games, _GAME_FLAGS, self.profiles)
        h = self.hands
        for name in ("open_round", "open_value"):
            h[name] = h[name].astype("float32")  # nulls (never opened) become NaN
        h["played"] = ~(h["void"] | h["stalled"])
        h["kalooki"] = h["won"] & (h["win_type"] == "kalooki").to_numpy(dtype=bool, na_value=False)

    @cached_property
    def hand_key(self) -> np.ndarray:
        """One int64 per player-hand row, equal for the rows of one deal."""
        h = self.hands
        return _composite_key([h["profile"].cat.codes.to_numpy(), h["game_id"].to_numpy(),
                               h["hand_no"].to_numpy(), h["redeal_no"].to_numpy()])

    @cached_property
    def hand_rows(self) -> pd.DataFrame:
        """One row per deal (void re-deals included) with the hand-level columns."""
        first = ~pd.Series(self.hand_key).duplicated().to_numpy()
        cols = ["profile", "game_id", "hand_no", "redeal_no", "n_players", "rounds", "stock_reshuffles", "void",
                "stalled", "played"]
        return self.hands.loc[first, cols].reset_index(drop=True)

    @cached_property
    def game_rows(self) -> pd.DataFrame:
        """One row per game with the game-level columns (hands_played, stalled, n_players)."""
        g = self.games
        key = _composite_key([g["profile"].cat.codes.to_numpy(), g["game_id"].to_numpy()])
        first = ~pd.Series(key).duplicated().to_numpy()
        return g.loc[first, ["profile", "game_id", "n_players", "hands_played", "stalled"]].reset_index(drop=True)

    @cached_property
    def player_games(self) -> pd.DataFrame:
        """Games rows with the seat_from_dealer each player had in the game's first deal."""
        h = self.hands
        first_deal = (h["hand_no"] == 1) & (h["redeal_no"] == 0)
        start = h.loc[first_deal, ["profile", "game_id", "seat", "seat_from_dealer"]].rename(
            columns={"seat_from_dealer": "start_seat_from_dealer"})
        return self.games.merge(start, on=["profile", "game_id", "seat"], how="left")


def _prepare(frame: pd.DataFrame, flags: list[str], profiles: list[str]) -> pd.DataFrame:
    frame = frame.copy(deep=False)
    for name in flags:
        if frame[name].dtype != bool:
            frame[name] = frame[name].fillna(False).astype(bool)  # an unrecorded flag did not happen
    frame["profile"] = frame["profile"].astype("category").cat.set_categories(profiles)
    frame["bot"] = frame["bot"].astype("category")
    return frame


def _composite_key(parts: list[np.ndarray]) -> np.ndarray:
    """Pack non-negative integer columns into one int64 (bit fields), or number the groups if too wide."""
    widths = [int(p.max()).bit_length() if p.size else 1 for p in parts]
    if sum(widths) <= 63 and all((p.min() >= 0) if p.size else True for p in parts):
        key = np.zeros(parts[0].size, dtype=np.int64)
        for part, width in zip(parts, widths):
            key = (key << width) | part.astype(np.int64)
        return key
    return pd.DataFrame({i: p for i, p in enumerate(parts)}).groupby(list(range(len(parts)))).ngroup().to_numpy()


def load_run(run_dir, profiles=None, exclude=(), problems=()) -> RunData:
    """Read what the metrics need from a run directory (files in `exclude` left out)."""
    manifest = load.read_manifest(run_dir)
    profiles = load.check_profiles(manifest, profiles)
    hands = load.read_files(load.table_files(run_dir, manifest, "hands", profiles, exclude), "hands",
                            HAND_COLUMNS, profiles)
    games = load.read_files(load.table_files(run_dir, manifest, "games", profiles, exclude), "games",
                            GAME_COLUMNS, profiles)
    if hands.empty:
        raise UserError(f"run {run_dir} has no readable hands rows for profile(s) {', '.join(profiles)}")
    return RunData(manifest, hands, games, profiles, Path(run_dir), list(problems))


def _as_run(run) -> RunData:
    return run if isinstance(run, RunData) else load_run(run)


# ---------------------------------------------------------------------------------------------
# building blocks


def _tidy(metric: str, frame: pd.DataFrame, front: list[str]) -> pd.DataFrame:
    frame = frame.copy()
    frame.insert(0, "metric", metric)
    for col in ("profile", "bot"):
        if col in frame:
            frame[col] = frame[col].astype(str)
    rest = [c for c in frame.columns if c not in ["metric"] + front]
    return frame[["metric"] + front + rest]


def _profile_and_bot(frame: pd.DataFrame, column: str, metric: str, mean: bool = False) -> pd.DataFrame:
    """`column` per profile (bot = 'all') and per profile and bot: a proportion, or a mean."""
    estimator = stats.grouped_mean if mean else stats.grouped_proportion
    whole = estimator(frame, ["profile"], column, observed=False)  # every profile, even with n = 0
    whole.insert(1, "bot", ALL)
    by_bot = estimator(frame, ["profile", "bot"], column)
    out = pd.concat([whole.astype({"profile": str}), by_bot.astype({"profile": str, "bot": str})],
                    ignore_index=True)
    return _tidy(metric, out, ["profile", "bot"])


def _per_profile(frame: pd.DataFrame, column: str, metric: str, mean: bool = False) -> pd.DataFrame:
    estimator = stats.grouped_mean if mean else stats.grouped_proportion
    return _tidy(metric, estimator(frame, ["profile"], column, observed=False), ["profile"])


# ---------------------------------------------------------------------------------------------
# 1. opening timing


def opening(run) -> pd.DataFrame:
    """P(can open at deal) over every deal; over played player-hands the share never opened; over
    openings in played hands the mean open round, mean open value and share made with the discard."""
    run = _as_run(run)
    h = run.hands
    played = h.loc[h["played"], ["profile", "bot", "opened"]]
    played["never_opened"] = ~played["opened"]
    openings = h.loc[h["played"] & h["opened"], ["profile", "bot", "open_round", "open_value",
                                                 "open_with_discard"]]
    return pd.concat([
        _profile_and_bot(h[["profile", "bot", "can_open_at_deal"]], "can_open_at_deal", "p_can_open_at_deal"),
        _profile_and_bot(played, "never_opened", "share_never_opened"),
        _profile_and_bot(openings, "open_round", "mean_open_round", mean=True),
        _profile_and_bot(openings, "open_value", "mean_open_value", mean=True),
        _profile_and_bot(openings, "open_with_discard", "share_open_with_discard"),
    ], ignore_index=True)


def _open_round_counts(run: RunData) -> tuple[pd.DataFrame, pd.Series]:
    h = run.hands
    played = h.loc[h["played"], ["profile", "opened", "open_round"]]
    denominators = played.groupby("profile", observed=True).size()
    opened = played.loc[played["opened"] & played["open_round"].notna()]
    counts = opened.groupby(["profile", "open_round"], observed=True).size().unstack(fill_value=0)
    return counts, denominators


def open_round_distribution(run) -> pd.DataFrame:
    """Distribution of open_round among openings in played hands: share of openings at each round."""
    run = _as_run(run)
    counts, _ = _open_round_counts(run)
    long = counts.stack().rename("k").reset_index()
    long = long[long["k"] > 0]
    long["n"] = long.groupby("profile", observed=True)["k"].transform("sum")
    est = stats.proportion(long["k"], long["n"])
    out = pd.concat([long[["profile", "open_round"]].reset_index(drop=True), est], axis=1)
    out["open_round"] = out["open_round"].astype(int)
    return _tidy("open_round_share", out, ["profile", "open_round"])


def opened_by_round(run) -> pd.DataFrame:
    """Cumulative P(opened by round k), k = 1..the profile's last open round; the denominator is every
    played player-hand (so the curve ends at 1 - share never opened)."""
    run = _as_run(run)
    counts, denominators = _open_round_counts(run)
    parts = []
    for profile, row in counts.iterrows():  # one iteration per profile
        last = int(row[row > 0].index.max())
        by_round = row.reindex(np.arange(1, last + 1), fill_value=0)
        k = by_round.cumsum().to_numpy()
        est = stats.proportion(k, np.full(k.size, denominators[profile]))
        est.insert(0, "round", np.arange(1, last + 1))
        est.insert(0, "profile", profile)
        parts.append(est)
    if not parts:
        return pd.DataFrame(columns=["metric", "profile", "round", "n", "k", "estimate", "ci_low", "ci_high",
                                     "method"])
    return _tidy("p_opened_by_round", pd.concat(parts, ignore_index=True), ["profile", "round"])


# ---------------------------------------------------------------------------------------------
# 2. Kalooki frequency


def kalooki_frequency(run) -> pd.DataFrame:
    """Kalookis per hand (non-void deals), per player-hand (non-void rows) and as a share of wins."""
    run = _as_run(run)
    h = run.hands
    deals = run.hand_rows.loc[~run.hand_rows["void"], ["profile"]].groupby("profile", observed=False).size()
    kalooki_rows = h["kalooki"].to_numpy() & ~h["void"].to_numpy()
    kalooki_deals = pd.DataFrame({"profile": h.loc[kalooki_rows, "profile"], "key": run.hand_key[kalooki_rows]})
    k = kalooki_deals.drop_duplicates().groupby("profile", observed=True).size().reindex(deals.index, fill_value=0)
    per_hand = pd.concat([pd.DataFrame({"profile": deals.index.astype(str), "bot": ALL}),
                          stats.proportion(k.to_numpy(), deals.to_numpy())], axis=1)
    nonvoid = h.loc[~h["void"], ["profile", "bot", "kalooki"]]
    wins = h.loc[h["won"] & ~h["void"], ["profile", "bot", "kalooki"]]
    return pd.concat([
        _tidy("kalooki_per_hand", per_hand, ["profile", "bot"]),
        _profile_and_bot(nonvoid, "kalooki", "kalooki_per_player_hand"),
        _profile_and_bot(wins, "kalooki", "kalooki_share_of_wins"),
    ], ignore_index=True)


# ---------------------------------------------------------------------------------------------
# 3. elimination


def _first_elimination(run: RunData) -> pd.DataFrame:
    """Per game: hands until the first elimination (event) or hands_played (censored)."""
    h = run.hands
    first = h.loc[h["eliminated"], ["profile", "game_id", "hand_no"]].groupby(
        ["profile", "game_id"], observed=True)["hand_no"].min().rename("first_elimination").reset_index()
    games = run.game_rows.merge(first, on=["profile", "game_id"], how="left")
    games["event"] = games["first_elimination"].notna()
    games["time"] = games["first_elimination"].fillna(games["hands_played"]).astype(float)
    return games


def elimination(run) -> pd.DataFrame:
    """Share of players eliminated per game (mean over games), share of games with an elimination,
    the buy-in rate (share of eliminations followed by a buy-in), P(win game | bought in at least
    once) and P(win game | never bought in) over games that were not stalled, and the median number
    of hands until a game's first elimination (Kaplan-Meier)."""
    run = _as_run(run)
    g = run.games.loc[:, ["profile", "game_id", "bot", "eliminated_count", "buy_ins", "won", "stalled"]]
    g["was_eliminated"] = g["eliminated_count"] > 0
    per_game = g.groupby(["profile", "game_id"], observed=True)["was_eliminated"].agg(["mean", "any"]).reset_index()
    per_game = per_game.rename(columns={"mean": "share_eliminated", "any": "any_eliminated"})
    h = run.hands
    eliminations = h.loc[h["eliminated"], ["profile", "bot", "bought_in"]]
    finished = g.loc[~g["stalled"]]
    frames = [
        _per_profile(per_game, "share_eliminated", "share_players_eliminated_per_game", mean=True),
        _per_profile(per_game, "any_eliminated", "share_games_with_elimination"),
        _profile_and_bot(eliminations, "bought_in", "buy_in_rate"),
        _profile_and_bot(finished.loc[finished["buy_ins"] > 0], "won", "p_win_game_given_bought_in"),
        _profile_and_bot(finished.loc[finished["buy_ins"] == 0], "won", "p_win_game_given_never_bought_in"),
    ]
    survival = _first_elimination(run)
    medians = []
    for profile in run.profiles:
        games = survival.loc[survival["profile"] == profile]
        med = stats.km_median(games["time"], games["event"])
        medians.append({"profile": profile, "n": len(games), "k": int(games["event"].sum()), **med})
    frames.append(_tidy("median_hands_to_first_elimination", pd.DataFrame(medians), ["profile"]))
    out = pd.concat(frames, ignore_index=True)
    out["bot"] = out["bot"].fillna(ALL)
    return out


def first_elimination_survival(run) -> pd.DataFrame:
    """Kaplan-Meier curve of hands until a game's first elimination, per profile: S(t) = P(nobody
    eliminated in hands 1..t).  Games without an elimination are censored at hands_played.  Each
    profile's curve starts with t = 0, S = 1."""
    run = _as_run(run)
    survival = _first_elimination(run)
    parts = []
    for profile in run.profiles:
        games = survival.loc[survival["profile"] == profile]
        curve = stats.kaplan_meier(games["time"], games["event"])
        start = pd.DataFrame({"time": [0.0], "n_at_risk": [len(games)], "events": [0], "survival": [1.0],
                              "ci_low": [1.0], "ci_high": [1.0]})
        curve = pd.concat([start, curve], ignore_index=True) if len(curve) else start
        last = float(games["time"].max()) if len(games) else 0.0
        if last > curve["time"].iloc[-1]:  # the curve holds until the last game ends (censored)
            end = curve.iloc[[-1]].assign(time=last, n_at_risk=int((games["time"] >= last).sum()), events=0)
            curve = pd.concat([curve, end], ignore_index=True)
        curve.insert(0, "profile", profile)
        parts.append(curve)
    out = pd.concat(parts, ignore_index=True)
    out["method"] = "Kaplan-Meier (statsmodels SurvfuncRight), log-log 95% interval"
    return _tidy("survival_no_elimination", out, ["profile", "time"])


# ---------------------------------------------------------------------------------------------
# 4. game shape


def game_shape(run) -> pd.DataFrame:
    """Hands per game, rounds per played hand, stock reshuffles per deal, shares of void and stalled
    deals, share of stalled games."""
    run = _as_run(run)
    deals = run.hand_rows
    games = run.game_rows
    return pd.concat([
        _per_profile(games, "hands_played", "hands_per_game", mean=True),
        _per_profile(deals.loc[deals["played"]], "rounds", "rounds_per_hand", mean=True),
        _per_profile(deals, "stock_reshuffles", "reshuffles_per_hand", mean=True),
        _per_profile(deals, "void", "void_hand_share"),
        _per_profile(deals, "stalled", "stalled_hand_share"),
        _per_profile(games, "stalled", "stalled_game_share"),
    ], ignore_index=True)


def hands_per_game_counts(run) -> pd.DataFrame:
    """How many games lasted each number of hands, per profile, and their share of the profile's games."""
    run = _as_run(run)
    counts = run.game_rows.groupby(["profile", "hands_played"], observed=True).size().rename("games").reset_index()
    counts["share"] = counts["games"] / counts.groupby("profile", observed=True)["games"].transform("sum")
    counts["profile"] = counts["profile"].astype(str)
    return counts


# ---------------------------------------------------------------------------------------------
# 5. fairness


def seat_win_rates(run) -> pd.DataFrame:
    """Win rate by seat_from_dealer, per profile and table size: of played hands (level 'hand'), and
    of finished games by the seat in the game's first deal (level 'game')."""
    run = _as_run(run)
    h = run.hands
    hands = stats.grouped_proportion(h.loc[h["played"], ["profile", "n_players", "seat_from_dealer", "won"]],
                                     ["profile", "n_players", "seat_from_dealer"], "won")
    hands.insert(1, "level", "hand")
    pg = run.player_games
    pg = pg.loc[~pg["stalled"] & pg["start_seat_from_dealer"].notna(),
                ["profile", "n_players", "start_seat_from_dealer", "won"]]
    pg = pg.rename(columns={"start_seat_from_dealer": "seat_from_dealer"})
    pg["seat_from_dealer"] = pg["seat_from_dealer"].astype(int)
    games = stats.grouped_proportion(pg, ["profile", "n_players", "seat_from_dealer"], "won")
    games.insert(1, "level", "game")
    out = pd.concat([hands, games], ignore_index=True)
    out["expected"] = 1.0 / out["n_players"]
    return _tidy("win_rate_by_seat", out, ["profile", "level", "n_players", "seat_from_dealer"])


def seat_tests(run, rates: pd.DataFrame | None = None) -> pd.DataFrame:
    """Chi-square test of equal win shares across seats, per profile, level and table size."""
    rates = seat_win_rates(run) if rates is None else rates
    rows = []
    for (profile, level, n_players), group in rates.groupby(["profile", "level", "n_players"], sort=True):
        test = stats.equal_shares(group["k"], group["n"])  # expected wins proportional to seats' hands
        rows.append({"metric": "seat_equal_shares", "profile": profile, "level": level,
                     "n_players": int(n_players), "n": int(group["k"].sum()), **test})
    return pd.DataFrame(rows)


def dealer_edge(run) -> pd.DataFrame:
    """Hand win rate of the dealer (seat_from_dealer == n_players) minus that of the other seats,
    over played player-hands, with a 95% interval and Fisher's exact test."""
    run = _as_run(run)
    h = run.hands.loc[run.hands["played"], ["profile", "seat_from_dealer", "n_players", "won"]]
    h["dealer"] = h["seat_from_dealer"] == h["n_players"]
    counts = h.groupby(["profile", "dealer"], observed=True)["won"].agg(["sum", "count"])
    rows = []
    for profile in run.profiles:
        get = lambda d: tuple(int(x) for x in counts.loc[(profile, d)]) if (profile, d) in counts.index else (0, 0)
        (k_d, n_d), (k_r, n_r) = get(True), get(False)
        test = stats.two_proportions(k_r, n_r, k_d, n_d)
        rows.append({"metric": "dealer_edge", "profile": profile, "dealer_k": k_d, "dealer_n": n_d,
                     "dealer_rate": k_d / n_d if n_d else np.nan, "others_k": k_r, "others_n": n_r,
                     "others_rate": k_r / n_r if n_r else np.nan, "estimate": test["difference"],
                     "ci_low": test["ci_low"], "ci_high": test["ci_high"], "p_value": test["p_value"],
                     "test": test["test"]})
    return pd.DataFrame(rows)


def bot_win_shares(run) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per bot: win rate of played player-hands and of finished player-games, its share of all wins,
    and the rate expected if every seat were equally likely to win (the mean of 1/n_players over the
    bot's rows); plus a chi-square test per profile and level of wins against those expectations."""
    run = _as_run(run)
    h = run.hands.loc[run.hands["played"], ["profile", "bot", "n_players", "won"]]
    g = run.games.loc[~run.games["stalled"], ["profile", "bot", "n_players", "won"]]
    parts, tests = [], []
    for level, frame in (("hand", h), ("game", g)):
        frame = frame.assign(fair=1.0 / frame["n_players"].astype(float))
        agg = frame.groupby(["profile", "bot"], observed=True).agg(k=("won", "sum"), n=("won", "count"),
                                                                    fair=("fair", "sum")).reset_index()
        est = stats.proportion(agg["k"], agg["n"])
        out = pd.concat([agg[["profile", "bot"]], est], axis=1)
        out.insert(2, "level", level)
        out["expected"] = agg["fair"] / agg["n"]
        out["share_of_wins"] = agg["k"] / agg.groupby("profile", observed=True)["k"].transform("sum")
        parts.append(out)
        for profile, group in agg.groupby("profile", observed=True):
            test = stats.equal_shares(group["k"], group["fair"])
            tests.append({"metric": "bot_equal_skill", "profile": str(profile), "level": level,
                          "n": int(group["k"].sum()), **test})
    return _tidy("win_rate_by_bot", pd.concat(parts, ignore_index=True), ["profile", "bot", "level"]), \
        pd.DataFrame(tests)


def net_payment(run) -> pd.DataFrame:
    """Mean net_payment per game (units) by the seat in the game's first deal and by bot."""
    run = _as_run(run)
    pg = run.player_games
    by_seat = stats.grouped_mean(pg.loc[pg["start_seat_from_dealer"].notna()],
                                 ["profile", "start_seat_from_dealer"], "net_payment")
    by_seat = by_seat.rename(columns={"start_seat_from_dealer": "group"})
    by_seat["group"] = "seat " + by_seat["group"].astype(int).astype(str)
    by_seat.insert(1, "by", "start seat_from_dealer")
    by_bot = stats.grouped_mean(pg, ["profile", "bot"], "net_payment").rename(columns={"bot": "group"})
    by_bot["group"] = by_bot["group"].astype(str)
    by_bot.insert(1, "by", "bot")
    return _tidy("mean_net_payment_per_game", pd.concat([by_seat, by_bot], ignore_index=True),
                 ["profile", "by", "group"])


# ---------------------------------------------------------------------------------------------
# 6. jokers


def win_by_jokers(run) -> pd.DataFrame:
    """P(win the hand | dealt_jokers = j) over played player-hands, per profile."""
    run = _as_run(run)
    h = run.hands.loc[run.hands["played"], ["profile", "dealt_jokers", "won"]]
    out = stats.grouped_proportion(h, ["profile", "dealt_jokers"], "won")
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
    ("kalooki_per_hand", "kalooki", "Kalookis per non-void hand"),
    ("kalooki_per_player_hand", "kalooki", "Kalookis per non-void player-hand"),
    ("kalooki_share_of_wins", "kalooki", "share of hand wins that are Kalookis"),
    ("share_players_eliminated_per_game", "elimination", "mean share of a game's players eliminated"),
    ("share_games_with_elimination", "elimination", "share of games with at least one elimination"),
    ("buy_in_rate", "elimination", "share of eliminations followed by a buy-in"),
    ("p_win_game_given_bought_in", "elimination", "P(win game | bought in at least once)"),
    ("median_hands_to_first_elimination", "elimination", "median hands until a game's first elimination (KM)"),
    ("hands_per_game", "shape", "mean hands per game (re-deals not counted)"),
    ("rounds_per_hand", "shape", "mean rounds per played hand"),
    ("reshuffles_per_hand", "shape", "mean stock reshuffles per deal"),
    ("void_hand_share", "shape", "share of deals that were void"),
    ("stalled_hand_share", "shape", "share of deals stopped at turn_cap"),
    ("stalled_game_share", "shape", "share of games stopped at hand_cap"),
    ("dealer_hand_win_rate", "fairness", "hand win rate of the dealer"),
    ("dealer_edge", "fairness", "dealer's hand win rate minus the other seats'"),
    ("seat_equal_shares_p", "fairness", "p-value, chi-square of equal hand wins by seat at the full table"),
]
KINDS = {"mean_open_round": "mean", "mean_open_value": "mean", "share_players_eliminated_per_game": "mean",
         "hands_per_game": "mean", "rounds_per_hand": "mean", "reshuffles_per_hand": "mean",
         "median_hands_to_first_elimination": "median", "dealer_edge": "difference",
         "seat_equal_shares_p": "test"}


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
        return _summary(self)


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
        n = int(run.hands.loc[run.hands["profile"] == profile, "n_players"].max())
    return int(n)


def _summary(res: Results) -> pd.DataFrame:
    columns = ["profile", "metric", "kind", "n", "k", "estimate", "ci_low", "ci_high", "p_value", "method",
               "description"]
    pools = [res.opening, res.kalooki, res.elimination, res.shape]
    tables = pd.concat([p[p["bot"] == ALL] if "bot" in p else p for p in pools], ignore_index=True)
    rates = res.seat_rates
    rows = []
    for profile in res.run.profiles:
        mine = tables[tables["profile"] == profile].set_index("metric")
        full = full_table_size(res.run, profile)
        for metric, _, description in HEADLINE:
            row = {"profile": profile, "metric": metric, "kind": KINDS.get(metric, "proportion"),
                   "description": description}
            if metric in mine.index:
                found = mine.loc[metric]
                row.update({c: found.get(c) for c in ("n", "k", "estimate", "ci_low", "ci_high", "method")})
            elif metric == "dealer_hand_win_rate":
                dealer = rates[(rates["profile"] == profile) & (rates["level"] == "hand")
                               & (rates["seat_from_dealer"] == rates["n_players"])]
                k, n = int(dealer["k"].sum()), int(dealer["n"].sum())
                row.update(stats.proportion(k, n).iloc[0].to_dict())
            elif metric == "dealer_edge":
                edge = res.dealer_edge[res.dealer_edge["profile"] == profile].iloc[0]
                row.update({"n": edge["dealer_n"] + edge["others_n"], "estimate": edge["estimate"],
                            "ci_low": edge["ci_low"], "ci_high": edge["ci_high"], "p_value": edge["p_value"],
                            "method": edge["test"]})
            elif metric == "seat_equal_shares_p":
                test = res.seat_tests[(res.seat_tests["profile"] == profile) & (res.seat_tests["level"] == "hand")
                                      & (res.seat_tests["n_players"] == full)]
                if len(test):
                    t = test.iloc[0]
                    row.update({"n": t["n"], "estimate": t["p_value"], "p_value": t["p_value"],
                                "method": f"{t['test']}, {full} seats, df {t['df']}"})
                row["description"] += f" ({full} players)"
            rows.append(row)
    out = pd.DataFrame(rows, columns=columns)
    out["n"] = out["n"].fillna(0).astype(np.int64)
    out["k"] = out["k"].astype("Float64").astype("Int64")
    return out


def summary(run) -> pd.DataFrame:
    """One row per headline metric per profile: kind, n, k (successes, proportions), estimate, 95%
    interval, p-value (tests) and the method."""
    return compute(run).summary


def mean_samples(run: RunData, profile: str) -> dict[str, np.ndarray]:
    """The values behind each 'mean' headline metric of a profile (compare's Welch tests need them)."""
    h = run.hands
    mine = (h["profile"] == profile).to_numpy()
    openings = mine & h["played"].to_numpy() & h["opened"].to_numpy()
    deals = run.hand_rows[run.hand_rows["profile"] == profile]
    games = run.game_rows[run.game_rows["profile"] == profile]
    g = run.games[run.games["profile"] == profile]
    share = (g["eliminated_count"] > 0).groupby(g["game_id"]).mean()
    return {
        "mean_open_round": h["open_round"].to_numpy()[openings],
        "mean_open_value": h["open_value"].to_numpy()[openings],
        "share_players_eliminated_per_game": share.to_numpy(dtype=float),
        "hands_per_game": games["hands_played"].to_numpy(dtype=float),
        "rounds_per_hand": deals.loc[deals["played"], "rounds"].to_numpy(dtype=float),
        "reshuffles_per_hand": deals["stock_reshuffles"].to_numpy(dtype=float),
    }
