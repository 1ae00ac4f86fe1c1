"""Mergeable per-shard summaries: what the metrics need from a run, one shard at a time.

Every metric is a ratio R = sum over clusters of y_c / sum over clusters of x_c, where y_c and x_c are
sums over the cluster's rows (player-hands, deals or player-games) of a value and of a count, per
group (bot, table size and seat, jokers dealt, round, ...).  A cluster is a game, or in a duplicate
run (the manifest's ``games_per_deal`` = n > 1: a skill study's games d*n .. d*n+n-1 are the n
rotations of deal d, the same cards to the same seats) the n games of one deal, whose results are
not independent.  A shard summarises its rows once into, per metric cell: the number of clusters with
rows in the cell (the ``games`` column), sum x, sum y, the row-level sum of y^2 (for a standard
deviation), and the sums over clusters of Y^2, X^2 and XY.  These sums add across shards exactly (a
cluster lives in one shard: a duplicate run's shards hold whole deals), so :meth:`Summary.merge` is
addition and the report holds a few thousand numbers however many rows the run has.  The
cross-products give each ratio a cluster-robust variance, the linearisation estimate

    var(R) = C / (C - 1) * sum_c (y_c - R x_c)^2 / (sum_c x_c)^2,   C = clusters in the cell.

Kaplan-Meier of a game's first elimination is a histogram of (hands, event) per game; in a
duplicate run the histogram is kept per cluster (the deal number in its ``cluster`` column, NONE in an
ordinary run), what the band's cluster-robust variance needs (analysis.stats.km_from_counts).  For
``compare`` of paired runs a summary can also keep per-cluster (y_c, x_c) keyed by the cluster (the
game id, or the deal number; ``keep_games=True``); the report never asks for them.

Table compositions: every game is played at one composition (the ``table`` column).  A shard is
summarised per (profile, composition) as if each were its own profile (a *composition profile*,
named by :func:`composition_name`), since games partition a profile exactly (the rotations of a
duplicate deal share its composition); the profile's summary is those summaries added up
(:func:`collapse`), kept with them in ``Summary.by_table``.  Runs written before the column existed
are one composition named from the manifest's bots.

Written once: the worker that plays a shard summarises it (:func:`write_shard_summary`, keyed by
composition profile, per-cluster sums kept) into the shard's ``summary`` file beside its tables
(``summary/profile=P/part-NNNNN.parquet``, listed in the manifest with its rows and sha256 like
them); the report merges those files (:func:`summarise_run`) and summarises a shard from its rows
only where the run has no intact summary of it (older runs, a damaged or missing summary file, a
summary of another format version, or one written under other rules or another ``games_per_deal``
than the manifest's).  The sums are the same numbers either way, merged in the same order, so the
report is the same to the last digit.

Buy-ins: ``bought_in`` is a decision only where the rules allowed one.  RULES.md 6: an eliminated
player may buy in while they have bought in fewer than ``max_buy_ins`` times and at least two players
are still in; players eliminated in one hand decide in turn, starting left of the hand's winner.  The
hands table has no column saying so, so it is derived here from ``buy_ins_total``, ``bought_in``,
``eliminated``, the winner's seat and the profile's ``max_buy_ins`` and ``game_end``.
"""
from __future__ import annotations

import dataclasses
import json
import logging
import os
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from sim import runformat
from sim.profiles import Profile
from sim.runformat import games_per_deal

from . import load

HAND_COLUMNS = ["profile", "game_id", "hand_no", "redeal_no", "seat", "seat_from_dealer", "n_players", "bot",
                "dealt_jokers", "can_open_at_deal", "opened", "open_round", "open_value", "open_with_discard",
                "won", "win_type", "rounds", "eliminated", "bought_in", "buy_ins_total", "stock_reshuffles", "void",
                "stalled", "table"]
GAME_COLUMNS = ["profile", "game_id", "seat", "n_players", "bot", "hands_played", "won", "eliminated_count",
                "buy_ins", "net_payment", "stalled", "table"]
ALL = "all"  # the group label of a whole profile (bot) and of "no group" (n_players, seat, value = -1)
NONE = -1
KEYS = ["metric", "profile", "bot", "n_players", "seat", "value"]
MOMENTS = ["games", "x", "y", "yy_rows", "Y2", "X2", "XY"]  # "games": the clusters (games, or deals) in the cell
CLUSTER = "cluster"  # the per-cluster sums' key: the game id, or in a duplicate run the deal number
SURVIVAL = ["profile", CLUSTER, "time", "event", "games"]  # the first-elimination histogram's columns
_RULE_DEFAULTS = {f.name: f.default for f in dataclasses.fields(Profile)}


def rule(manifest: dict, profile: str, name: str):
    """A profile's rule parameter from the manifest, else the rule's default (sim.profiles)."""
    params = manifest.get("profiles", {}).get(profile, {}).get("params") or {}
    return params.get(name, _RULE_DEFAULTS[name])


def has_elimination(manifest: dict, profile: str) -> bool:
    return rule(manifest, profile, "game_end") == "elimination"


@dataclass
class Summary:
    """Sufficient statistics of some shards of a run; :meth:`merge` adds two summaries exactly."""
    moments: pd.DataFrame  # KEYS + MOMENTS, one row per metric cell
    survival: pd.DataFrame  # profile, cluster, time, event, games: the first-elimination histogram (per deal
    # in a duplicate run; cluster NONE in an ordinary run)
    counts: dict = field(default_factory=dict)  # profile -> {"hand_rows", "game_rows", "games", "deals"}
    per_game: list = field(default_factory=list)  # frames of (profile, metric, cell keys, cluster, y, x)
    # composition profile name -> (profile, table); set on a summary keyed by composition profiles
    compositions: dict = field(default_factory=dict)
    by_table: "Summary | None" = None  # the same sums per (profile, composition), keyed by composition_name
    # how many shards were read from their stored summary file ("summary file") and from rows ("rows")
    read_from: dict = field(default_factory=dict)

    @classmethod
    def empty(cls) -> "Summary":
        return cls(pd.DataFrame(columns=KEYS + MOMENTS), pd.DataFrame(columns=SURVIVAL))

    def merge(self, other: "Summary") -> "Summary":
        frames = [f for f in (self.moments, other.moments) if len(f)]
        moments = _extend_cumulative(frames)
        moments = (pd.concat(moments, ignore_index=True).groupby(KEYS, sort=True, as_index=False)[MOMENTS].sum()
                   if moments else self.moments)
        survival = [f for f in (self.survival, other.survival) if len(f)]
        survival = (pd.concat(survival, ignore_index=True).groupby(SURVIVAL[:-1], as_index=False)
                    ["games"].sum() if survival else self.survival)
        counts = {p: dict(c) for p, c in self.counts.items()}
        for p, c in other.counts.items():
            mine = counts.setdefault(p, {})
            for k, v in c.items():
                mine[k] = mine.get(k, 0) + v
        if self.by_table is None or other.by_table is None:
            by_table = self.by_table if other.by_table is None else other.by_table
        else:
            by_table = self.by_table.merge(other.by_table)
        read_from = {k: self.read_from.get(k, 0) + other.read_from.get(k, 0)
                     for k in dict.fromkeys([*self.read_from, *other.read_from])}
        return Summary(moments, survival, counts, self.per_game + other.per_game,
                       {**self.compositions, **other.compositions}, by_table, read_from)

    def games_table(self) -> pd.DataFrame:
        """Per-cluster sums (a game's, or a duplicate deal's) kept for paired comparisons (empty unless
        summarised with keep_games)."""
        if not self.per_game:
            return pd.DataFrame(columns=KEYS + [CLUSTER, "y", "x"])
        if len(self.per_game) > 1:  # concatenated once, then kept
            self.per_game[:] = [pd.concat(self.per_game, ignore_index=True)]
        return self.per_game[0]


def composition_name(profile: str, table: str) -> str:
    """The name a (profile, table composition) pair is summarised under."""
    return f"{profile} | {table}"


def default_table(manifest: dict, profile: str) -> str:
    """The composition of a run without a ``table`` column: its bots, comma-separated (as the runner
    names a one-composition run)."""
    bots = manifest.get("profiles", {}).get(profile, {}).get("bots") or []
    return ",".join(map(str, bots)) or "not recorded"


def collapse(by_table: Summary) -> Summary:
    """The per-profile summary of a summary keyed by composition profiles: each renamed to its
    profile and added up (exact: a game is played at one composition), with `by_table` kept."""
    total = Summary.empty()
    for name, (profile, _) in by_table.compositions.items():
        part = Summary(by_table.moments[by_table.moments["profile"] == name].assign(profile=profile),
                       by_table.survival[by_table.survival["profile"] == name].assign(profile=profile),
                       {profile: dict(by_table.counts.get(name, {}))},
                       [f[f["profile"] == name].assign(profile=profile) for f in by_table.per_game])
        total = total.merge(part)
    total.by_table = by_table
    total.read_from = dict(by_table.read_from)
    return total


CUMULATIVE = "opened_by_round"  # the one metric whose cells are cumulative in `value`
FINAL = 1 << 30  # the value of a cumulative metric's "every round" cell


def _extend_cumulative(frames: list[pd.DataFrame]) -> list[pd.DataFrame]:
    """A cumulative metric's cells beyond a summary's last round equal its FINAL cell: add them so the
    summaries align before they are added."""
    if len(frames) < 2:
        return frames
    cum = [f[f["metric"] == CUMULATIVE] for f in frames]
    rounds = [c.loc[c["value"] != FINAL, ["profile", "value"]] for c in cum]
    out = []
    for frame, c in zip(frames, cum):
        extra = []
        for profile, final in c[c["value"] == FINAL].groupby("profile"):
            wanted = set().union(*[r.loc[r["profile"] == profile, "value"] for r in rounds])
            have = set(c.loc[(c["profile"] == profile), "value"])
            missing = sorted(wanted - have)
            if missing:
                extra.append(pd.concat([final.assign(value=v) for v in missing], ignore_index=True))
        out.append(pd.concat([frame] + extra, ignore_index=True) if extra else frame)
    return out


# ---------------------------------------------------------------------------------------------
# one shard


class _Cells:
    """Collects the metric cells of one shard: per-cluster sums by bincount, then moments over clusters.

    Rows are handed in with their game's index; ``cluster_of`` maps a game's index to its cluster's (the
    identity where every game is its own deal, the deal's in a duplicate run), ``cluster_ids`` names
    the clusters (game ids, or deal numbers)."""

    def __init__(self, profile: str, cluster_ids: np.ndarray, cluster_of: np.ndarray, keep_games: bool):
        self.profile, self.game_ids, self.keep_games = profile, cluster_ids, keep_games
        self.n_games, self.cluster_of = cluster_ids.size, cluster_of
        self.parts: list[pd.DataFrame] = []
        self.per_game: list[pd.DataFrame] = []

    def add(self, metric: str, game: np.ndarray, y, x=None, *, bot=None, bot_names=None, n_players=None, seat=None,
            value=None, x_by_game: bool = False, with_all: bool = True, keep: bool = True):
        """Cells of `metric` over the rows given: y and x (default 1) per row, grouped by the keys given.

        With bot codes, cells per bot and (with_all) for every bot together.  x_by_game: the
        denominator is the game's total x over every group (shares of a categorical)."""
        y = np.asarray(y)
        x = None if x is None else np.asarray(x, dtype=np.float64)
        if bot is not None:
            only_bot = n_players is None and seat is None and value is None and not x_by_game
            if with_all and not only_bot:
                self.add(metric, game, y, x, n_players=n_players, seat=seat, value=value, x_by_game=x_by_game,
                         keep=keep)
            self._add(metric, game, y, x, {"bot": bot}, bot_names, n_players, seat, value, x_by_game, keep=keep,
                      with_all=with_all and only_bot)
            return
        self._add(metric, game, y, x, {}, None, n_players, seat, value, x_by_game, keep)

    def _add(self, metric, game, y, x, extra, bot_names, n_players, seat, value, x_by_game, keep, with_all=False):
        game = self.cluster_of[game]
        keys = {"bot": extra.get("bot"), "n_players": n_players, "seat": seat, "value": value}
        present = {k: np.asarray(v, dtype=np.int64) for k, v in keys.items() if v is not None}
        if present:
            combos, code = _dense_groups(list(present.values()))
        else:
            combos, code = np.zeros((1, 0), dtype=np.int64), np.zeros(game.size, dtype=np.int64)
        n_cells = len(combos)
        flat = game * n_cells + code
        size = self.n_games * n_cells
        Y = np.bincount(flat, weights=y, minlength=size).reshape(self.n_games, n_cells)
        if y.dtype == bool:  # y * y = y
            yy = Y.sum(axis=0)
        else:
            y = y.astype(np.float64, copy=False)
            yy = np.bincount(code, weights=y * y, minlength=n_cells)
        count = lambda index, length: np.bincount(index, weights=x, minlength=length).astype(np.float64, copy=False)
        if x_by_game:
            # the denominator is the game's total: a FINAL cell carries it, since a shard without rows in
            # a cell still has games in its denominator
            X = np.repeat(count(game, self.n_games)[:, None], n_cells + 1, axis=1)
            Y = np.hstack([Y, Y.sum(axis=1, keepdims=True)])
            yy = np.append(yy, 0.0)
            combos = np.vstack([combos, np.full((1, combos.shape[1]), FINAL)])
        else:
            X = count(flat, size).reshape(self.n_games, n_cells)
        if with_all:  # every bot together: the per-bot sums of each game added up (no second pass)
            self._moments(metric, np.zeros((1, 0), dtype=np.int64), [], None, Y.sum(axis=1, keepdims=True),
                          X.sum(axis=1, keepdims=True), np.atleast_1d(yy.sum()), keep)
        self._moments(metric, combos, list(present), bot_names, Y, X, yy, keep and not with_all and not extra,
                      denominator_last=x_by_game)

    def add_cumulative(self, metric: str, game: np.ndarray, value: np.ndarray, x: np.ndarray):
        """Running counts: cell v counts the rows with 1 <= value <= v, over the game's total x; a FINAL
        cell counts every row with value >= 1 (it stands for every v past the last)."""
        game = self.cluster_of[game]
        event = value >= 1
        last = int(value[event].max()) if event.any() else 0
        size = self.n_games * (last + 1)
        Y = np.bincount(game[event] * (last + 1) + value[event], minlength=size).reshape(self.n_games, last + 1)
        Y = np.cumsum(Y, axis=1)[:, 1:].astype(np.float64)
        Y = np.hstack([Y, Y[:, -1:] if last else np.zeros((self.n_games, 1))])
        X = np.repeat(np.bincount(game, weights=x, minlength=self.n_games)[:, None], last + 1, axis=1)
        combos = np.append(np.arange(1, last + 1), FINAL)[:, None]
        self._moments(metric, combos, ["value"], None, Y, X, np.zeros(last + 1), keep=False)

    def _moments(self, metric, combos, names, bot_names, Y, X, yy, keep, denominator_last=False):
        present_games = X != 0
        frame = pd.DataFrame({"metric": metric, "profile": self.profile,
                              "games": present_games.sum(axis=0), "x": X.sum(axis=0), "y": Y.sum(axis=0),
                              "yy_rows": yy, "Y2": (Y * Y).sum(axis=0), "X2": (X * X).sum(axis=0),
                              "XY": (X * Y).sum(axis=0)})
        if denominator_last:  # only the FINAL cell carries the denominator (the game's total)
            frame.loc[frame.index[:-1], ["games", "x", "X2"]] = 0
        for i, name in enumerate(names):
            frame[name] = combos[:, i]
        if "bot" in names:
            frame["bot"] = np.asarray(bot_names, dtype=object)[frame["bot"].to_numpy()]
        for name in ("bot", "n_players", "seat", "value"):
            if name not in frame:
                frame[name] = ALL if name == "bot" else NONE
        self.parts.append(frame[KEYS + MOMENTS])
        if self.keep_games and keep:
            g, c = np.nonzero(present_games | (Y != 0))
            cells = frame.iloc[c][KEYS].reset_index(drop=True)
            cells[CLUSTER] = self.game_ids[g]
            cells["y"], cells["x"] = Y[g, c], X[g, c]
            self.per_game.append(cells)

    def frame(self) -> pd.DataFrame:
        out = pd.concat(self.parts, ignore_index=True)
        return out[(out["games"] > 0) | (out["y"] != 0)].reset_index(drop=True)


def _dense_groups(columns: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of small-integer key columns (sorted) and each row's group number, in linear
    time: the keys are packed in a mixed radix and counted (np.unique(axis=0) sorts, far slower)."""
    if len(columns) == 1 and columns[0].size:  # one key: its values are the groups
        lo = int(columns[0].min())
        shifted = columns[0] - lo
        seen = np.bincount(shifted)
        present = np.flatnonzero(seen)
        lookup = np.cumsum(seen > 0) - 1
        return (present + lo)[:, None], lookup[shifted]
    lows = [int(c.min()) if c.size else 0 for c in columns]
    spans = [int(c.max()) - lo + 1 if c.size else 1 for c, lo in zip(columns, lows)]
    packed = np.zeros(columns[0].size, dtype=np.int64)
    for c, lo, span in zip(columns, lows, spans):
        packed = packed * span + (c - lo)
    seen = np.bincount(packed, minlength=int(np.prod(spans)))
    present = np.flatnonzero(seen)
    lookup = np.cumsum(seen > 0) - 1
    combos = np.empty((present.size, len(columns)), dtype=np.int64)
    rest = present.copy()
    for i in range(len(columns) - 1, -1, -1):
        combos[:, i] = rest % spans[i] + lows[i]
        rest //= spans[i]
    return combos, lookup[packed]


def _bool(column: pd.Series) -> np.ndarray:
    if column.dtype == bool:
        return column.to_numpy()
    return column.fillna(False).to_numpy(dtype=bool)


def _ints(column: pd.Series, fill: int = 0) -> np.ndarray:
    if column.dtype.kind in "iu":
        return column.to_numpy(dtype=np.int64)
    return column.astype("Float64").fillna(fill).to_numpy(dtype=np.int64)


def _codes(column: pd.Series) -> tuple[np.ndarray, list[str]]:
    cat = column.astype("category")
    return cat.cat.codes.to_numpy(dtype=np.int64), [str(c) for c in cat.cat.categories]


def _deal_starts(game: np.ndarray, hand_no: np.ndarray, redeal_no: np.ndarray) -> np.ndarray:
    """True at one row of each deal (game, hand_no, redeal_no)."""
    key = (game.astype(np.int64) << 34) | (hand_no.astype(np.int64) << 16) | redeal_no.astype(np.int64)
    if key.size == 0:
        return np.zeros(0, dtype=bool)
    if np.all(key[1:] >= key[:-1]):
        return np.concatenate([[True], key[1:] != key[:-1]])
    first = np.zeros(key.size, dtype=bool)
    first[np.unique(key, return_index=True)[1]] = True
    return first


def buy_in_allowed(hands: pd.DataFrame, max_buy_ins: int, elimination: bool) -> np.ndarray:
    """Per player-hand: eliminated, and the rules let the player buy back in (see the module docstring)."""
    eliminated = _bool(hands["eliminated"])
    allowed = np.zeros(len(hands), dtype=bool)
    if not elimination or max_buy_ins <= 0 or not eliminated.any():
        return allowed
    bought = _bool(hands["bought_in"])
    before = _ints(hands["buy_ins_total"]) - bought.astype(np.int64)
    deal = pd.DataFrame({"game_id": hands["game_id"].to_numpy(), "hand_no": hands["hand_no"].to_numpy(),
                         "redeal_no": hands["redeal_no"].to_numpy()})
    won = _bool(hands["won"])
    winners = deal[won].assign(winner=hands["seat"].to_numpy()[won])
    rows = np.flatnonzero(eliminated)
    out = deal.iloc[rows].assign(row=rows, seat=hands["seat"].to_numpy()[rows].astype(np.int64),
                                 n=hands["n_players"].to_numpy()[rows].astype(np.int64), bought=bought[rows])
    out = out.merge(winners, on=["game_id", "hand_no", "redeal_no"], how="left")
    winner = out["winner"].fillna(-1).to_numpy(dtype=np.int64)
    out["order"] = (out["seat"].to_numpy() - winner - 1) % 128  # clockwise from the winner's left
    out = out.sort_values(["game_id", "hand_no", "redeal_no", "order"])
    by_deal = out.groupby(["game_id", "hand_no", "redeal_no"], sort=False)
    eliminated_in_deal = by_deal["row"].transform("size").to_numpy()
    bought_earlier = by_deal["bought"].cumsum().to_numpy() - out["bought"].to_numpy()
    still_in = out["n"].to_numpy() - eliminated_in_deal + bought_earlier
    ok = (still_in >= 2) & (before[out["row"].to_numpy()] < max_buy_ins)
    allowed[out["row"].to_numpy()[ok]] = True
    return allowed


def summarise_shard(hands: pd.DataFrame, games: pd.DataFrame, manifest: dict | None = None,
                    keep_games: bool = False) -> Summary:
    """The sufficient statistics of one shard's hands and games rows (several profiles and table
    compositions are summarised one by one), per profile, with the same per composition in
    ``by_table``.  `manifest` supplies the profile's rules."""
    return collapse(summarise_by_table(hands, games, manifest, keep_games))


def _keys(frame: pd.DataFrame, manifest: dict) -> tuple[np.ndarray, list[tuple[str, str]]]:
    """Each row's (profile, table) pair as a code into the list of pairs (codes, not strings per row)."""
    profile, profiles = _codes(frame["profile"])
    if "table" in frame and frame["table"].notna().all():
        table, tables = _codes(frame["table"])
    else:  # written before the table column (or without it filled): the profile's bots
        table, tables = profile, [default_table(manifest, p) for p in profiles]
    combos, code = _dense_groups([profile, table]) if len(frame) else (np.zeros((0, 2), np.int64), profile)
    return code, [(profiles[p], tables[t]) for p, t in combos]


def summarise_by_table(hands: pd.DataFrame, games: pd.DataFrame, manifest: dict | None = None,
                       keep_games: bool = False) -> Summary:
    """The sufficient statistics of one shard's rows keyed by composition profile (see the module
    docstring); ``compositions`` maps each name to its (profile, table)."""
    manifest = manifest or {}
    (h_code, h_pairs), (g_code, g_pairs) = _keys(hands, manifest), _keys(games, manifest)
    total = Summary.empty()
    for profile, table in dict.fromkeys(h_pairs + g_pairs):
        parts = []
        for frame, code, pairs in ((hands, h_code, h_pairs), (games, g_code, g_pairs)):
            if len(pairs) == 1 and pairs[0] == (profile, table):
                parts.append(frame.reset_index(drop=True))
            else:
                mine = code == pairs.index((profile, table)) if (profile, table) in pairs else np.zeros(len(frame), bool)
                parts.append(frame[mine].reset_index(drop=True))
        name = composition_name(profile, table)
        rules = {**manifest, "profiles": {name: manifest.get("profiles", {}).get(profile, {})}}
        part = _summarise_profile(name, parts[0], parts[1], rules, keep_games)
        part.compositions = {name: (profile, table)}
        total = total.merge(part)
    return total


def _summarise_profile(profile: str, h: pd.DataFrame, g: pd.DataFrame, manifest: dict,
                       keep_games: bool) -> Summary:
    hand_ids = h["game_id"].to_numpy(dtype=np.int64)
    game_ids_rows = g["game_id"].to_numpy(dtype=np.int64)
    both = np.concatenate([hand_ids, game_ids_rows])
    low, high = (int(both.min()), int(both.max())) if both.size else (0, -1)
    if high - low < 4 * max(game_ids_rows.size, hand_ids.size // 2, 1):  # a shard's games are a range
        present = np.zeros(high - low + 1, dtype=bool)
        present[both - low] = True
        ids = np.flatnonzero(present) + low
        index = np.cumsum(present) - 1
        hg, gg = index[hand_ids - low], index[game_ids_rows - low]
    else:
        ids, inverse = np.unique(both, return_inverse=True)
        hg, gg = inverse[:hand_ids.size], inverse[hand_ids.size:]
    # the clusters: a game, or in a duplicate run the games of one deal (a shard holds whole deals)
    deals, cluster_of = np.unique(ids // games_per_deal(manifest, profile), return_inverse=True)
    cells = _Cells(profile, deals, cluster_of.reshape(-1), keep_games)
    elimination = has_elimination(manifest, profile)

    # --- player-hands
    void, stalled = _bool(h["void"]), _bool(h["stalled"])
    played = ~void & ~stalled
    won = _bool(h["won"])
    opened = _bool(h["opened"])
    kalooki = won & (h["win_type"] == "kalooki").to_numpy(dtype=bool, na_value=False)
    bot, bots = _codes(h["bot"])
    n_players = h["n_players"].to_numpy(dtype=np.int64)
    sfd = h["seat_from_dealer"].to_numpy(dtype=np.int64)
    hand_no, redeal_no = h["hand_no"].to_numpy(), h["redeal_no"].to_numpy()
    first = _deal_starts(hg, hand_no, redeal_no)

    cells.add("p_can_open_at_deal", hg, _bool(h["can_open_at_deal"]), bot=bot, bot_names=bots)
    p = played
    cells.add("share_never_opened", hg[p], ~opened[p], bot=bot[p], bot_names=bots)
    open_round = h["open_round"].astype("Float64").to_numpy(dtype=np.float64, na_value=np.nan)
    open_value = h["open_value"].astype("Float64").to_numpy(dtype=np.float64, na_value=np.nan)
    o = played & opened
    r = o & ~np.isnan(open_round)
    cells.add("mean_open_round", hg[r], open_round[r], bot=bot[r], bot_names=bots)
    v = o & ~np.isnan(open_value)
    cells.add("mean_open_value", hg[v], open_value[v], bot=bot[v], bot_names=bots)
    cells.add("share_open_with_discard", hg[o], _bool(h["open_with_discard"])[o], bot=bot[o], bot_names=bots)
    cells.add("open_round_share", hg[r], np.ones(r.sum()), value=open_round[r].astype(np.int64), x_by_game=True)
    cells.add_cumulative(CUMULATIVE, hg[p], np.where(r, np.nan_to_num(open_round), 0).astype(np.int64)[p],
                         np.ones(p.sum()))

    pd_ = played & first  # played deals
    cells.add("kalooki_per_hand", hg, kalooki.astype(float), pd_.astype(float))
    cells.add("kalooki_per_player_hand", hg[p], kalooki[p], bot=bot[p], bot_names=bots)
    w = played & won
    cells.add("kalooki_share_of_wins", hg[w], kalooki[w], bot=bot[w], bot_names=bots)

    cells.add("rounds_per_hand", hg[pd_], h["rounds"].to_numpy()[pd_])
    cells.add("reshuffles_per_hand", hg[first], h["stock_reshuffles"].to_numpy()[first])
    cells.add("void_hand_share", hg[first], void[first])
    cells.add("stalled_hand_share", hg[first], stalled[first])

    cells.add("win_rate_by_seat_hand", hg[p], won[p], n_players=n_players[p], seat=sfd[p])
    dealer = sfd == n_players
    effect = np.where(won & (sfd == 1), 1.0, 0.0) - np.where(won & dealer, 1.0, 0.0)
    cells.add("first_minus_dealer", hg[p], effect[p], (dealer & played)[p], n_players=n_players[p])
    cells.add("p_win_hand_by_dealt_jokers", hg[p], won[p], value=h["dealt_jokers"].to_numpy()[p])
    cells.add("win_rate_by_bot_hand", hg[p], won[p], bot=bot[p], bot_names=bots, with_all=False)
    cells.add("fair_share_by_bot_hand", hg[p], 1.0 / n_players[p], bot=bot[p], bot_names=bots, with_all=False)

    eliminated, bought = _bool(h["eliminated"]), _bool(h["bought_in"])
    allowed = buy_in_allowed(h, int(rule(manifest, profile, "max_buy_ins")), elimination)
    cells.add("buy_in_rate", hg[allowed], bought[allowed], bot=bot[allowed], bot_names=bots)
    cells.add("buy_in_allowed_share", hg[eliminated], allowed[eliminated], bot=bot[eliminated], bot_names=bots)

    # --- player-games
    g_stalled, g_won = _bool(g["stalled"]), _bool(g["won"])
    g_bot, g_bots = _codes(g["bot"])
    g_first = _deal_starts(gg, np.zeros_like(gg), np.zeros_like(gg))  # one row of each game
    hands_played = g["hands_played"].to_numpy(dtype=np.float64)
    cells.add("hands_per_game", gg[g_first], hands_played[g_first])
    cells.add("stalled_game_share", gg[g_first], g_stalled[g_first])
    cells.add("hands_per_game_hist", gg[g_first], np.ones(g_first.sum()), value=hands_played[g_first].astype(np.int64),
              x_by_game=True, keep=False)
    was_eliminated = g["eliminated_count"].to_numpy() > 0
    cells.add("share_players_eliminated_at_least_once", gg, was_eliminated)
    cells.add("share_games_with_elimination", gg, np.bincount(gg, weights=was_eliminated,
                                                              minlength=ids.size)[gg] * g_first > 0, g_first)
    buy_ins = g["buy_ins"].to_numpy(dtype=np.float64)
    cells.add("buy_ins_per_game", gg, buy_ins, g_first)
    fin = ~g_stalled
    b = fin & (buy_ins > 0)
    cells.add("p_win_game_given_bought_in", gg[b], g_won[b], bot=g_bot[b], bot_names=g_bots)
    nb = fin & (buy_ins == 0)
    cells.add("p_win_game_given_never_bought_in", gg[nb], g_won[nb], bot=g_bot[nb], bot_names=g_bots)
    g_n = g["n_players"].to_numpy(dtype=np.int64)
    cells.add("win_rate_by_bot_game", gg[fin], g_won[fin], bot=g_bot[fin], bot_names=g_bots, with_all=False)
    cells.add("fair_share_by_bot_game", gg[fin], 1.0 / g_n[fin], bot=g_bot[fin], bot_names=g_bots, with_all=False)

    # the seat each player had in the game's first deal
    start = (hand_no == 1) & (redeal_no == 0)
    seat_count = int(max(h["seat"].max() if len(h) else 0, g["seat"].max() if len(g) else 0)) + 1
    start_sfd = np.zeros(ids.size * seat_count, dtype=np.int64)
    start_sfd[hg[start] * seat_count + h["seat"].to_numpy(dtype=np.int64)[start]] = sfd[start]
    g_sfd = start_sfd[gg * seat_count + g["seat"].to_numpy(dtype=np.int64)]
    known = g_sfd > 0
    s = fin & known
    cells.add("win_rate_by_seat_game", gg[s], g_won[s], n_players=g_n[s], seat=g_sfd[s])
    pay = g["net_payment"].to_numpy(dtype=np.float64)
    cells.add("net_payment_by_seat", gg[known], pay[known], seat=g_sfd[known])
    cells.add("net_payment_by_bot", gg, pay, bot=g_bot, bot_names=g_bots, with_all=False)
    cells.add("eliminated_by_seat", gg[known], was_eliminated[known], seat=g_sfd[known])
    cells.add("eliminated_by_bot", gg, was_eliminated, bot=g_bot, bot_names=g_bots, with_all=False)

    # --- first elimination per game (Kaplan-Meier histogram)
    first_elim = np.full(ids.size, np.iinfo(np.int64).max)
    np.minimum.at(first_elim, hg[eliminated], hand_no[eliminated].astype(np.int64))
    game_hands = np.zeros(ids.size)
    game_hands[gg[g_first]] = hands_played[g_first]
    has_game = np.zeros(ids.size, dtype=bool)
    has_game[gg] = True
    event = first_elim < np.iinfo(np.int64).max
    time_ = np.where(event, first_elim, game_hands)[has_game]
    # per deal in a duplicate run (its band is clustered by deal), one histogram in an ordinary run
    cluster = deals[cluster_of.reshape(-1)][has_game] if games_per_deal(manifest, profile) > 1 else NONE
    survival = (pd.DataFrame({CLUSTER: cluster, "time": time_.astype(float), "event": event[has_game]})
                .groupby([CLUSTER, "time", "event"], as_index=False).size().rename(columns={"size": "games"}))
    survival[CLUSTER] = survival[CLUSTER].astype(np.int64)
    survival.insert(0, "profile", profile)

    counts = {profile: {"hand_rows": len(h), "game_rows": len(g), "games": int(g_first.sum()),
                        "deals": int(first.sum())}}
    return Summary(cells.frame(), survival, counts, cells.per_game)


# ---------------------------------------------------------------------------------------------
# a shard's summary file

SUMMARY_VERSION = 3  # bumped whenever the stored sums or their layout change; other versions are not read
RULES_READ = ("game_end", "max_buy_ins")  # the rule parameters a summary depends on (see summarise_by_table)
PARTS = {"moments": KEYS + MOMENTS, "survival": SURVIVAL,
         "per_game": KEYS + [CLUSTER, "y", "x"]}
# one long table: `part` says which frame a row belongs to; the other columns are the frames' own
SUMMARY_SCHEMA = pa.schema([("part", pa.string()), ("metric", pa.string()), ("profile", pa.string()),
                            ("bot", pa.string()), ("n_players", pa.int64()), ("seat", pa.int64()),
                            ("value", pa.int64()), (CLUSTER, pa.int64()), ("time", pa.float64()),
                            ("event", pa.bool_()), ("games", pa.int64()), ("x", pa.float64()), ("y", pa.float64()),
                            ("yy_rows", pa.float64()), ("Y2", pa.float64()), ("X2", pa.float64()),
                            ("XY", pa.float64())])
# per-cluster sums are most of a summary file: cluster ids as deltas (they ascend within a cell), the sums
# with their bytes split by position (small whole numbers mostly); about half the size of the defaults
SUMMARY_PARQUET = {"use_dictionary": [f.name for f in SUMMARY_SCHEMA if f.name not in (CLUSTER, "x", "y")],
                   "column_encoding": {CLUSTER: "DELTA_BINARY_PACKED", "x": "BYTE_STREAM_SPLIT",
                                       "y": "BYTE_STREAM_SPLIT"}}
log = logging.getLogger("analysis.summaries")


def to_arrow(summary: Summary, manifest: dict | None = None) -> list[pa.Table]:
    """A summary keyed by composition profile (what :func:`summarise_by_table` returns) as the parts of
    its file: one table per part (moments, survival, per-game sums), each starting its own row groups so
    a reader skips the per-game sums it does not need.  Counts, compositions, the rules the sums were
    made under (`manifest`'s), the games a cluster holds (``games_per_deal``) and SUMMARY_VERSION go in the
    schema's metadata."""
    if summary.by_table is not None:
        raise ValueError("store a shard's summary keyed by composition profile, before collapse()")
    manifest = manifest or {}
    meta = {"version": SUMMARY_VERSION, "counts": summary.counts,
            "compositions": {n: list(pt) for n, pt in summary.compositions.items()},
            "rules": {n: {r: rule(manifest, p, r) for r in RULES_READ} for n, (p, _) in summary.compositions.items()},
            "games_per_deal": {n: games_per_deal(manifest, p) for n, (p, _) in summary.compositions.items()}}
    schema = SUMMARY_SCHEMA.with_metadata({runformat.SUMMARY_METADATA_KEY: json.dumps(meta)})
    frames = {"moments": summary.moments, "survival": summary.survival, "per_game": summary.games_table()}
    tables = []
    for part, columns in PARTS.items():
        frame = frames[part]
        n = len(frame)
        arrays = []
        for f in SUMMARY_SCHEMA:
            if f.name == "part":
                arrays.append(pa.array([part] * n, pa.string()))
            elif f.name in columns:
                arrays.append(pa.array(frame[f.name].to_numpy(), f.type) if n else pa.array([], f.type))
            else:
                arrays.append(pa.nulls(n, f.type))
        tables.append(pa.Table.from_arrays(arrays, schema=schema))
    return tables


def from_arrow(table: pa.Table, keep_games: bool = True) -> Summary:
    """The summary a file of :func:`to_arrow`'s parts holds (per-game sums only with keep_games)."""
    meta = summary_metadata(table.schema)
    if meta is None or meta.get("version") != SUMMARY_VERSION:
        raise ValueError(f"not a summary of format version {SUMMARY_VERSION}")
    part = table.column("part").to_numpy(zero_copy_only=False)
    frames = {}
    for name, columns in PARTS.items():
        rows = table.filter(pa.array(part == name)).select(columns)
        frames[name] = pd.DataFrame({c: rows.column(c).to_pandas() for c in columns}, columns=columns)
    per_game = [frames["per_game"]] if keep_games and len(frames["per_game"]) else []
    return Summary(frames["moments"], frames["survival"], meta["counts"], per_game,
                   {n: tuple(pt) for n, pt in meta["compositions"].items()})


def summary_metadata(schema: pa.Schema) -> dict | None:
    """The metadata of a summary file's schema (version, counts, compositions, rules, games_per_deal), or
    None."""
    raw = (schema.metadata or {}).get(runformat.SUMMARY_METADATA_KEY.encode())
    return json.loads(raw) if raw else None


def summarise_tables(hands: pa.Table, games: pa.Table, manifest: dict) -> Summary:
    """One shard's summary, keyed by composition profile with its per-game sums, from its Arrow tables
    in memory (the same frames a reader of its files gets)."""
    return summarise_by_table(load.frame_of(hands, HAND_COLUMNS), load.frame_of(games, GAME_COLUMNS), manifest,
                              keep_games=True)


def write_shard_summary(loc: runformat.RunLocation, profile: str, index: int, hands: pa.Table, games: pa.Table,
                        manifest: dict) -> dict:
    """Summarise a shard's tables and write the summary file beside them (atomically, through
    sim.runformat); its manifest entry (path, rows, sha256, bytes).  `manifest` needs only the
    profile's ``params`` (``{"profiles": {profile: {"params": ...}}}``)."""
    summary = summarise_tables(hands, games, manifest)
    return runformat.write_table(loc, runformat.shard_path(runformat.SUMMARY, profile, index),
                                 to_arrow(summary, manifest), SUMMARY_PARQUET)


def read_shard_summary(file, manifest: dict, keep_games: bool) -> Summary | None:
    """A shard's stored summary, or None when it cannot stand for the shard's rows (see
    :func:`usable_summary`)."""
    try:
        fs, path = runformat.open_file(file)
        with fs.open_input_file(path) as f:
            parquet = pq.ParquetFile(f)
            if not _usable(file, parquet, manifest):
                return None
            wanted = [i for i in range(parquet.num_row_groups)
                      if keep_games or _row_group_part(parquet, i) != "per_game"]
            table = parquet.read_row_groups(wanted) if wanted else parquet.schema_arrow.empty_table()
        return from_arrow(table, keep_games)
    except Exception as e:  # a damaged file is never fatal: the shard's rows are read instead
        log.info("%s: cannot read the summary (%s: %s); summarising the shard's rows", file, type(e).__name__, e)
        return None


def usable_summary(file, manifest: dict) -> bool:
    """Whether a summary file can stand for its shard's rows, from its footer alone: readable, of this
    SUMMARY_VERSION, and made under the rules and the clusters (``games_per_deal``) `manifest` gives its
    profile now."""
    try:
        fs, path = runformat.open_file(file)
        with fs.open_input_file(path) as f:
            return _usable(file, pq.ParquetFile(f), manifest)
    except Exception as e:  # a damaged file is never fatal: the shard's rows are read instead
        log.info("%s: cannot read the summary (%s: %s); summarising the shard's rows", file, type(e).__name__, e)
        return False


def _usable(file, parquet: pq.ParquetFile, manifest: dict) -> bool:
    meta = summary_metadata(parquet.schema_arrow)
    if meta is None or meta.get("version") != SUMMARY_VERSION:
        log.info("%s: not a summary of format version %s; summarising the shard's rows", file, SUMMARY_VERSION)
        return False
    for name, (profile, _) in meta["compositions"].items():
        now = {r: rule(manifest, profile, r) for r in RULES_READ}
        if meta["rules"].get(name) != now:
            log.info("%s: summarised under %s, the manifest now says %s; summarising the shard's rows",
                     file, meta["rules"].get(name), now)
            return False
        clusters = games_per_deal(manifest, profile)
        if meta["games_per_deal"].get(name) != clusters:
            log.info("%s: summarised with %s game(s) a cluster, the manifest now says %s; summarising the shard's "
                     "rows", file, meta["games_per_deal"].get(name), clusters)
            return False
    return True


def _row_group_part(parquet: pq.ParquetFile, index: int) -> str | None:
    """The part a row group holds (each part starts its own row groups), from the column statistics."""
    stats = parquet.metadata.row_group(index).column(0).statistics
    if stats is None or not stats.has_min_max or stats.min != stats.max:
        return None
    return stats.min


# ---------------------------------------------------------------------------------------------
# a run, shard by shard

PARALLEL_ROWS = 5_000_000  # summarising rows in several processes pays above this many player-hand rows
FROM_ROWS_ENV = "KALOOKI_REPORT_FROM_ROWS"  # set to 1: ignore stored summaries (benchmarks, checks)


def parallel_workers(rows: int) -> int:
    """Processes to summarise `rows` player-hand rows in (KALOOKI_REPORT_WORKERS overrides): one per
    core, at most 4, above PARALLEL_ROWS rows."""
    if "KALOOKI_REPORT_WORKERS" in os.environ:
        return max(1, int(os.environ["KALOOKI_REPORT_WORKERS"]))
    return min(os.cpu_count() or 1, 4) if rows > PARALLEL_ROWS else 1


def _shard_sources(run_dir, manifest: dict, profiles, exclude) -> list[tuple[str, dict, int]]:
    """(profile, {hands, games, summary: RunFile or None}, hands rows) per manifest shard that has a
    hands or games file."""
    tables = ("hands", "games", runformat.SUMMARY)
    loc = runformat.locate(run_dir, "run")
    return [(shard["profile"], files, (shard.get("files", {}).get("hands") or {}).get("rows", 0))
            for shard, files in runformat.shards_with_files(loc, manifest, tables, profiles, exclude)
            if files["hands"] is not None or files["games"] is not None]


def _shard_files(run_dir, manifest: dict, profiles, exclude) -> list[tuple[str, object, object]]:
    """(profile, hands file or None, games file or None) per manifest shard that has either."""
    return [(p, f["hands"], f["games"]) for p, f, _ in _shard_sources(run_dir, manifest, profiles, exclude)]


def summarise_run(run_dir, manifest: dict, profiles, exclude=(), keep_games: bool = False,
                  workers: int | None = 1, from_rows: bool | None = None) -> Summary:
    """Merge every shard of `profiles` (files in `exclude` left out), in shard order: its stored
    summary where it has an intact one and both its tables are read, else the summary of its rows.
    Memory stays that of one shard.  `workers` processes summarise rows (None: parallel_workers of the
    rows to summarise); `from_rows` ignores stored summaries (default: KALOOKI_REPORT_FROM_ROWS)."""
    if from_rows is None:
        from_rows = os.environ.get(FROM_ROWS_ENV, "") not in ("", "0")
    sources = []  # per shard: (its summary file or None, the arguments to summarise its rows, its rows)
    stale = 0  # summary files that cannot stand for their shards (another version, rules or design)
    for profile, files, rows in _shard_sources(run_dir, manifest, profiles, exclude):
        stored = files[runformat.SUMMARY]
        whole = files["hands"] is not None and files["games"] is not None  # a summary stands for both
        if from_rows or stored is None or not whole:
            stored = None
        elif not usable_summary(stored, manifest):
            stored, stale = None, stale + 1
        sources.append((stored, (profile, files["hands"], files["games"], manifest, keep_games), rows))
    jobs = [(args, rows) for stored, args, rows in sources if stored is None]
    if workers is None:
        workers = parallel_workers(sum(rows for _, rows in jobs))
    by_table = Summary.empty()  # merged per composition profile, collapsed once at the end
    pool = None
    if workers > 1 and len(jobs) > 1:
        from concurrent.futures import ProcessPoolExecutor
        pool = ProcessPoolExecutor(workers)
        from_jobs = pool.map(_summarise_files, *zip(*[args for args, _ in jobs]))
    else:
        from_jobs = (_summarise_files(*args) for args, _ in jobs)
    try:
        for stored, args, _ in sources:  # in shard order, whichever way each was summarised: the same sums
            if stored is None:
                part, way = next(from_jobs), "rows"
            else:
                part, way = read_shard_summary(stored, manifest, keep_games), "summary file"
                if part is None:  # its footer was fine, the rest is not: its rows, here
                    part, way = _summarise_files(*args), "rows"
            part.read_from = {way: 1}
            by_table = by_table.merge(part)
    finally:
        if pool is not None:
            pool.shutdown()
    total = collapse(by_table)
    for profile in profiles:  # every profile has its counts, even with no readable rows
        total.counts.setdefault(profile, {"hand_rows": 0, "game_rows": 0, "games": 0, "deals": 0})
    log.info("summarised %d shard(s) from their summary files and %d from rows",
             total.read_from.get("summary file", 0), total.read_from.get("rows", 0),
             extra={"read_from": dict(total.read_from)})
    if stale:
        log.warning("%s: %d of %d shard summary file(s) cannot stand for their shards (another summary version, "
                    "other rules or another design than the manifest's, or damaged), so those shards were "
                    "summarised from their rows: the same numbers, more slowly", run_dir, stale, len(sources))
    return total


def _read(path, table: str, columns: list[str], profile: str) -> pd.DataFrame:
    """The shard file's rows; a file written before the ``table`` column existed is read without it."""
    paths = [path] if path is not None else []
    try:
        return load.read_files(paths, table, columns, [profile])
    except pa.ArrowInvalid:
        return load.read_files(paths, table, [c for c in columns if c != "table"], [profile])


def _summarise_files(profile, hands_path, games_path, manifest, keep_games) -> Summary:
    """One shard's summary keyed by composition profile."""
    hands = _read(hands_path, "hands", HAND_COLUMNS, profile)
    games = _read(games_path, "games", GAME_COLUMNS, profile)
    if hands.empty and games.empty:
        return Summary.empty()
    return summarise_by_table(hands, games, manifest, keep_games)
