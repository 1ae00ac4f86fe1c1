"""Analysis on a run written by hand: every metric checked against answers counted on paper.

The hand-made run ``alpha`` (2 players: seat 0 'greedy', seat 1 'cautious') has three games:

game 0 (first dealer seat 1)      game 1 (first dealer seat 0)   game 2 (first dealer seat 1)
  H1 R0 void, 2 reshuffles          H1 seat 0 wins (call)          H1 seat 1 wins (call)
  H1 R1 seat 0 goes Kalooki         H2 stalled (turn_cap)          H2 seat 0 wins, seat 1 is
  H2 seat 1 wins, seat 0 is         game stalled at hand_cap          eliminated; seat 0 wins game
     eliminated and buys in
  H3 seat 1 wins, seat 0 is
     eliminated; seat 1 wins game
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import scipy.stats as sps
from statsmodels.stats.proportion import proportion_confint as sm_proportion_confint

from analysis import load, metrics, stats
from sim import schema
from sim.errors import UserError

pytestmark = pytest.mark.usefixtures("figures_not_rasterised_in_module")  # figures drawn, not rendered: no test reads them

# game, hand, redeal, seat, seat_from_dealer, dealt_jokers, can_open, open_round, open_value,
# open_with_discard, won, win_type, rounds, reshuffles, void, stalled, eliminated, bought_in
N = None
ALPHA_HANDS = [
    (0, 1, 0, 0, 1, 0, True, 2, 40, False, False, N, 20, 2, True, False, False, False),
    (0, 1, 0, 1, 2, 1, False, N, N, N, False, N, 20, 2, True, False, False, False),
    (0, 1, 1, 0, 1, 1, True, 3, 60, False, True, "kalooki", 3, 0, False, False, False, False),
    (0, 1, 1, 1, 2, 0, False, N, N, N, False, N, 3, 0, False, False, False, False),
    (0, 2, 0, 0, 2, 0, False, 5, 42, True, False, N, 5, 1, False, False, True, True),
    (0, 2, 0, 1, 1, 2, True, 1, 55, False, True, "call", 5, 1, False, False, False, False),
    (0, 3, 0, 0, 1, 1, False, 4, 40, False, False, N, 4, 0, False, False, True, False),
    (0, 3, 0, 1, 2, 0, False, 2, 48, True, True, "call", 4, 0, False, False, False, False),
    (1, 1, 0, 0, 2, 0, False, 3, 41, False, True, "call", 6, 0, False, False, False, False),
    (1, 1, 0, 1, 1, 0, True, 2, 44, False, False, N, 6, 0, False, False, False, False),
    (1, 2, 0, 0, 1, 1, False, N, N, N, False, N, 50, 1, False, True, False, False),
    (1, 2, 0, 1, 2, 0, False, N, N, N, False, N, 50, 1, False, True, False, False),
    (2, 1, 0, 0, 1, 0, False, 4, 40, False, False, N, 7, 0, False, False, False, False),
    (2, 1, 0, 1, 2, 1, True, 1, 51, False, True, "call", 7, 0, False, False, False, False),
    (2, 2, 0, 0, 2, 2, True, 1, 70, False, True, "call", 5, 0, False, False, False, False),
    (2, 2, 0, 1, 1, 0, False, N, N, N, False, N, 5, 0, False, False, True, False),
]
# game, seat, hands_played, won, eliminated_count, buy_ins, net_payment, stalled
ALPHA_GAMES = [
    (0, 0, 3, False, 2, 1, -7, False),
    (0, 1, 3, True, 0, 0, 7, False),
    (1, 0, 2, False, 0, 0, 1, True),
    (1, 1, 2, False, 0, 0, -1, True),
    (2, 0, 2, True, 0, 0, 3, False),
    (2, 1, 2, False, 1, 0, -3, False),
]
BOTS = ["greedy", "cautious"]
HAND_FIELDS = ["game_id", "hand_no", "redeal_no", "seat", "seat_from_dealer", "dealt_jokers", "can_open_at_deal",
               "open_round", "open_value", "open_with_discard", "won", "win_type", "rounds", "stock_reshuffles",
               "void", "stalled", "eliminated", "bought_in"]
GAME_FIELDS = ["game_id", "seat", "hands_played", "won", "eliminated_count", "buy_ins", "net_payment", "stalled"]


def _table(table: str, rows: list[dict]) -> pa.Table:
    """A table with every schema column; columns the rows lack get a plain default."""
    arrow_schema = schema.arrow_schema(table)
    columns = {}
    for f in arrow_schema:
        values = [r.get(f.name, _default(f)) for r in rows]
        columns[f.name] = pa.array(values, type=f.type)
    return pa.table(columns, schema=arrow_schema)


def _default(f: pa.Field):
    if pa.types.is_boolean(f.type):
        return False
    if pa.types.is_integer(f.type):
        return 0
    return None


def hands_rows(spec, profile="alpha", bots=BOTS, n_players=2, game_offset=0):
    rows = []
    for values in spec:
        row = dict(zip(HAND_FIELDS, values))
        row.update(profile=profile, run_id="run-test", rules_hash=f"hash-{profile}", engine_version="0.1.0",
                   n_players=n_players, bot=bots[row["seat"]], game_id=row["game_id"] + game_offset)
        if row["open_with_discard"] is None:
            row["open_with_discard"] = False
        row["opened"] = row["open_round"] is not None
        rows.append(row)
    return rows


def games_rows(spec, profile="alpha", bots=BOTS, n_players=2, game_offset=0):
    rows = []
    for values in spec:
        row = dict(zip(GAME_FIELDS, values))
        row.update(profile=profile, run_id="run-test", rules_hash=f"hash-{profile}", engine_version="0.1.0",
                   n_players=n_players, bot=bots[row["seat"]], game_id=row["game_id"] + game_offset)
        rows.append(row)
    return rows


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def write_run(root: Path, shards: dict[str, list[tuple[list[dict], list[dict]]]], *, engine_version="0.1.0",
              complete=True, shards_planned: dict[str, int] | None = None) -> Path:
    """Write a run directory following the runner's layout: shards[profile] = [(hands, games), ...]."""
    root.mkdir(parents=True, exist_ok=True)
    manifest_shards, profiles = [], {}
    for profile, parts in shards.items():
        games_total = 0
        for index, (hands, games) in enumerate(parts):
            files = {}
            for table, rows in (("hands", hands), ("games", games)):
                rel = f"{table}/profile={profile}/part-{index:05d}.parquet"
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                pq.write_table(_table(table, rows), root / rel)
                files[table] = {"path": rel, "rows": len(rows), "sha256": _sha(root / rel)}
            n_games = len({r["game_id"] for r in games})
            manifest_shards.append({"profile": profile, "index": index,
                                    "first_game": min(r["game_id"] for r in games), "n_games": n_games,
                                    "files": files})
            games_total += n_games
        profiles[profile] = {"rules_hash": f"hash-{profile}", "params": {"opening_min": 40, "n_players": 2},
                             "games": games_total, "n_players": 2, "bots": BOTS,
                             "shards_planned": (shards_planned or {}).get(profile, len(parts))}
    manifest = {"format": "kalooki-lab run", "schema_version": schema.SCHEMA_VERSION,
                "engine_version": engine_version, "run_id": "run-test", "created": "2026-11-29T22:00:00Z",
                "command": "kalooki simulate --test", "seed": 1, "config": {}, "package_versions": {"numpy": "x"},
                "profiles": profiles, "shards": manifest_shards, "complete": complete}
    (root / "manifest.json").write_text(json.dumps(manifest, indent=1))
    return root


def alpha_shards():
    """alpha in two shards: game 0 and games 1-2."""
    hands, games = hands_rows(ALPHA_HANDS), games_rows(ALPHA_GAMES)
    first = ([r for r in hands if r["game_id"] == 0], [r for r in games if r["game_id"] == 0])
    rest = ([r for r in hands if r["game_id"] > 0], [r for r in games if r["game_id"] > 0])
    return [first, rest]


@pytest.fixture
def alpha_run(tmp_path):
    return write_run(tmp_path / "alpha-run", {"alpha": alpha_shards()})


@pytest.fixture
def results(alpha_run):
    return metrics.compute(alpha_run)


def _row(frame, **where):
    mask = np.ones(len(frame), dtype=bool)
    for column, value in where.items():
        mask &= (frame[column] == value).to_numpy()
    assert mask.sum() == 1, f"{mask.sum()} rows match {where}"
    return frame[mask].iloc[0]


def _wilson(k, n):
    ci = sps.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    return ci.low, ci.high


def _cluster(games, y, x):
    """Ratio sum(y)/sum(x) and its cluster-robust standard error, from per-row game ids, by plain numpy."""
    frame = pd.DataFrame({"g": games, "y": np.asarray(y, float), "x": np.asarray(x, float)}).groupby("g").sum()
    frame = frame[frame["x"] > 0]
    r = frame["y"].sum() / frame["x"].sum()
    g = len(frame)
    se = np.sqrt(g / (g - 1) * ((frame["y"] - r * frame["x"]) ** 2).sum()) / frame["x"].sum()
    return r, se, g


# --- loading --------------------------------------------------------------------------------------


def test_load_table_reads_only_asked_columns_and_profiles(alpha_run):
    frame = load.load_table(alpha_run, "hands", columns=["profile", "game_id", "bot", "open_round"])
    assert list(frame.columns) == ["profile", "game_id", "bot", "open_round"]
    assert len(frame) == 16
    assert isinstance(frame["bot"].dtype, pd.CategoricalDtype)
    assert frame["open_round"].isna().sum() == 5
    with pytest.raises(UserError, match="not in this run"):
        load.load_table(alpha_run, "hands", profiles=["beta"])
    with pytest.raises(UserError, match="no column"):
        load.load_table(alpha_run, "hands", columns=["nope"])


def test_missing_or_empty_directory_is_a_user_error(tmp_path):
    with pytest.raises(UserError, match="does not exist"):
        load.read_manifest(tmp_path / "nowhere")
    (tmp_path / "empty").mkdir()
    with pytest.raises(UserError, match="empty"):
        load.verify_run(tmp_path / "empty")
    (tmp_path / "nomanifest" / "hands").mkdir(parents=True)
    with pytest.raises(UserError, match="no manifest.json"):
        load.load_table(tmp_path / "nomanifest", "hands")


def test_verify_accepts_a_sound_run(alpha_run):
    assert load.verify_run(alpha_run) == []


def _manifest(run):
    return json.loads((run / "manifest.json").read_text())


def _save_manifest(run, manifest):
    (run / "manifest.json").write_text(json.dumps(manifest))


def test_verify_catches_a_truncated_file(alpha_run):
    path = alpha_run / "hands/profile=alpha/part-00001.parquet"
    path.write_bytes(path.read_bytes()[:-100])
    problems = load.verify_run(alpha_run)
    assert any("part-00001" in p and "sha256" in p for p in problems)
    assert any("part-00001" in p and "not readable Parquet" in p and "shard 1" in p for p in problems)


def test_verify_catches_a_deleted_file(alpha_run):
    (alpha_run / "games/profile=alpha/part-00000.parquet").unlink()
    problems = load.verify_run(alpha_run)
    assert problems == ["profile alpha shard 0: games file games/profile=alpha/part-00000.parquet is missing"]


def test_verify_catches_an_edited_row_count(alpha_run):
    manifest = _manifest(alpha_run)
    manifest["shards"][1]["files"]["hands"]["rows"] = 99
    _save_manifest(alpha_run, manifest)
    assert load.verify_run(alpha_run) == [
        "profile alpha shard 1: hands file hands/profile=alpha/part-00001.parquet has 8 rows, the manifest says 99"]


def test_verify_catches_a_schema_mismatch(alpha_run):
    rel = "hands/profile=alpha/part-00000.parquet"
    table = pq.read_table(alpha_run / rel)
    table = table.set_column(table.schema.get_field_index("rounds"), "rounds",
                             table.column("rounds").cast(pa.int64()))
    pq.write_table(table.drop_columns(["penalty"]), alpha_run / rel)
    manifest = _manifest(alpha_run)
    manifest["shards"][0]["files"]["hands"]["sha256"] = _sha(alpha_run / rel)
    _save_manifest(alpha_run, manifest)
    [problem] = load.verify_run(alpha_run)
    assert "shard 0" in problem and rel in problem
    assert "missing column penalty" in problem and "column rounds is int64, schema says int16" in problem


def test_verify_catches_missing_shards_and_incomplete_runs(tmp_path):
    run = write_run(tmp_path / "r", {"alpha": alpha_shards()[:1]}, complete=False, shards_planned={"alpha": 2})
    problems = load.verify_run(run)
    assert any("complete" in p for p in problems)
    assert any("shard(s) 1 of 2 planned" in p for p in problems)


# --- statistics -----------------------------------------------------------------------------------


def test_wilson_interval_matches_scipy():
    est = stats.proportion([3, 0, 7], [8, 0, 7])
    for i, (k, n) in enumerate([(3, 8), (7, 7)]):
        row = est.iloc[[0, 2][i]]
        assert row["ci_low"] == pytest.approx(_wilson(k, n)[0], abs=1e-12)
        assert row["ci_high"] == pytest.approx(_wilson(k, n)[1], abs=1e-12)
    assert np.isnan(est.loc[1, "estimate"]) and np.isnan(est.loc[1, "ci_low"])


def test_kaplan_meier_with_censoring():
    # times 1,2,2+,3,4+,5: S(1) = 5/6, S(2) = 5/6 * 4/5 (the censored 2 is still at risk at 2),
    # S(3) = S(2) * 2/3 (the 4+ is at risk at 3, not at 5), S(5) = 0
    curve = stats.kaplan_meier([1, 2, 2, 3, 4, 5], [1, 1, 0, 1, 0, 1])
    assert curve["time"].tolist() == [1, 2, 3, 5]
    assert curve["n_at_risk"].tolist() == [6, 5, 3, 1]
    assert curve["survival"].to_numpy() == pytest.approx([5 / 6, 2 / 3, 4 / 9, 0])


def test_holm_correction_matches_statsmodels_by_hand():
    reject, adjusted = stats.adjust([0.01, 0.04, 0.03, np.nan])
    assert adjusted[:3] == pytest.approx([0.03, 0.06, 0.06])
    assert reject.tolist() == [True, False, False, False]


# --- metrics: the hand-made answers ---------------------------------------------------------------


def test_opening_metrics(results):
    o = results.opening
    row = _row(o, metric="p_can_open_at_deal", bot="all")
    assert (row["k"], row["n"], row["estimate"]) == (6, 16, 3 / 8)
    # per game (can open, player-hands): (3, 8), (1, 4), (2, 4); the interval is Wilson at n / deff
    r, se, g = _cluster([0] * 8 + [1] * 4 + [2] * 4, [1, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0], [1] * 16)
    assert (row["se"], row["games"]) == (pytest.approx(se), 3)
    # 3 games, fewer than TRUSTED_GAMES: the design effect with the t correction (df 2), at least 1
    deff = se ** 2 / (r * (1 - r) / 16)
    n_eff = 16 / max(deff * (sps.t.ppf(0.975, 2) / sps.norm.ppf(0.975)) ** 2, 1.0)
    k_eff = r * n_eff
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(
        sm_proportion_confint(k_eff, n_eff, method="wilson"))
    assert _row(o, metric="p_can_open_at_deal", bot="greedy")["estimate"] == 3 / 8
    assert _row(o, metric="share_never_opened", bot="all")["estimate"] == pytest.approx(2 / 12)
    assert _row(o, metric="share_never_opened", bot="cautious")["estimate"] == pytest.approx(2 / 6)
    assert _row(o, metric="mean_open_value", bot="all")["estimate"] == pytest.approx(49.1)
    assert _row(o, metric="mean_open_round", bot="all")["estimate"] == pytest.approx(2.6)
    values = [60, 42, 55, 40, 48, 41, 44, 40, 51, 70]
    r, se, g = _cluster([0, 0, 0, 0, 0, 1, 1, 2, 2, 2], values, [1] * 10)
    row = _row(o, metric="mean_open_value", bot="all")
    half = sps.t.ppf(0.975, g - 1) * se
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((r - half, r + half))
    assert row["sd"] == pytest.approx(np.std(values, ddof=1))
    assert _row(o, metric="share_open_with_discard", bot="all")["estimate"] == pytest.approx(2 / 10)


def test_opened_by_round_curve(results):
    curve = results.opened_by_round
    assert curve["round"].tolist() == [1, 2, 3, 4, 5]
    assert curve["k"].tolist() == [3, 5, 7, 9, 10]
    assert (curve["n"] == 12).all()
    dist = results.open_round_distribution
    assert dist["k"].tolist() == [3, 2, 2, 2, 1] and (dist["n"] == 10).all()


def test_kalooki_frequency(results):
    k = results.kalooki
    # played hands only (the stalled hand of game 1 and the void deal of game 0 are left out)
    assert _row(k, metric="kalooki_per_hand")[["k", "n"]].tolist() == [1, 6]
    assert _row(k, metric="kalooki_per_player_hand", bot="all")[["k", "n"]].tolist() == [1, 12]
    assert _row(k, metric="kalooki_share_of_wins", bot="all")[["k", "n"]].tolist() == [1, 6]
    assert _row(k, metric="kalooki_share_of_wins", bot="greedy")["estimate"] == pytest.approx(1 / 3)
    assert _row(k, metric="kalooki_share_of_wins", bot="cautious")["estimate"] == 0


def test_elimination(results):
    e = results.elimination
    row = _row(e, metric="share_players_eliminated_at_least_once")
    assert (row["k"], row["n"]) == (2, 6)
    assert _row(e, metric="share_games_with_elimination")["estimate"] == pytest.approx(2 / 3)
    # two players: an eliminated player never has two others still in, so no buy-in was ever allowed
    # (the hand-made buy-in of game 0 breaks that rule, and is not counted as a decision)
    assert _row(e, metric="buy_in_rate", bot="all")[["k", "n"]].tolist() == [0, 0]
    assert _row(e, metric="buy_in_allowed_share", bot="all")[["k", "n"]].tolist() == [0, 3]
    assert _row(e, metric="buy_ins_per_game")[["n", "estimate"]].tolist() == [3, pytest.approx(1 / 3)]
    assert _row(e, metric="p_win_game_given_bought_in", bot="all")[["k", "n"]].tolist() == [0, 1]
    assert _row(e, metric="p_win_game_given_never_bought_in", bot="all")[["k", "n"]].tolist() == [2, 3]
    assert _row(e, metric="median_hands_to_first_elimination")["estimate"] == 2
    # games 0 and 2 eliminate at hand 2, game 1 is censored at 2: S(2) = 1 - 2/3
    s = results.survival
    assert s["time"].tolist() == [0, 2]
    assert s["survival"].tolist() == pytest.approx([1, 1 / 3])
    assert s["n_at_risk"].tolist() == [3, 3]


def test_no_elimination_reports_zeros_with_n(tmp_path):
    hands = [r for r in hands_rows(ALPHA_HANDS) if r["game_id"] == 1]
    run = write_run(tmp_path / "r", {"alpha": [(hands, [r for r in games_rows(ALPHA_GAMES) if r["game_id"] == 1])]})
    e = metrics.elimination(run)
    row = _row(e, metric="share_players_eliminated_at_least_once")
    assert (row["n"], row["estimate"]) == (2, 0)
    assert _row(e, metric="buy_in_rate", bot="all")["n"] == 0
    curve = metrics.first_elimination_survival(run)  # flat at 1 until the game ends after 2 hands
    assert curve[["time", "survival", "n_at_risk"]].values.tolist() == [[0, 1, 1], [2, 1, 1]]


def test_game_shape(results):
    s = results.shape
    assert _row(s, metric="hands_per_game")["estimate"] == pytest.approx(7 / 3)
    assert _row(s, metric="rounds_per_hand")[["n", "estimate"]].tolist() == [6, 5]
    assert _row(s, metric="reshuffles_per_hand")[["n", "estimate"]].tolist() == [8, 0.5]
    assert _row(s, metric="void_hand_share")[["k", "n"]].tolist() == [1, 8]
    assert _row(s, metric="stalled_hand_share")[["k", "n"]].tolist() == [1, 8]
    assert _row(s, metric="stalled_game_share")[["k", "n"]].tolist() == [1, 3]
    assert results.hands_per_game[["hands_played", "games"]].values.tolist() == [[2, 2], [3, 1]]


def test_a_mean_count_gets_an_exact_poisson_interval_at_its_effective_count(results, alpha_run):
    # three games: the t interval of reshuffles per deal (df = 2) would reach below 0; a count's
    # interval is Garwood's at y / phi events in x / phi deals, phi the dispersion, at least 1 with
    # fewer than TRUSTED_GAMES games
    hands = load.load_table(alpha_run, "hands", columns=["game_id", "hand_no", "redeal_no", "stock_reshuffles"])
    deals = hands.drop_duplicates(["game_id", "hand_no", "redeal_no"])
    r, se, g = _cluster(deals["game_id"], deals["stock_reshuffles"], np.ones(len(deals)))
    assert r - sps.t.ppf(0.975, g - 1) * se < 0
    y, x = deals["stock_reshuffles"].sum(), len(deals)
    phi = se ** 2 / (r / x)
    used = max(phi * (sps.t.ppf(0.975, g - 1) / sps.norm.ppf(0.975)) ** 2, 1.0)
    row = _row(results.shape, metric="reshuffles_per_hand")
    assert row["estimate"] == pytest.approx(r)
    assert row["ci_low"] == pytest.approx(sps.gamma.ppf(0.025, y / used) / (x / used))
    assert row["ci_high"] == pytest.approx(sps.gamma.ppf(0.975, y / used + 1) / (x / used))
    assert row["method"] == stats.CLUSTER_POISSON


def test_a_mean_that_cannot_be_negative_keeps_its_interval_at_or_above_0():
    est = stats.at_least_zero(stats.cluster_mean(3, 30.0, 2.0, 4.0, 300.0, 20.0))  # 2 counts in one game of 3
    assert est["ci_low"].iloc[0] == 0 and "cut at 0" in est["method"].iloc[0]
    wide = stats.at_least_zero(stats.cluster_mean(3, 30.0, 300.0, 30100.0, 300.0, 3000.0))
    assert wide["ci_low"].iloc[0] > 0 and "cut" not in wide["method"].iloc[0]


def test_an_interval_is_met_with_its_range_and_its_method_names_the_cut():
    shares = pd.concat([stats.mean([1.0, 1.0, 0.5]), stats.mean([0.0, 0.5, 1.0]), stats.mean([0.4, 0.5, 0.6]),
                        stats.mean([0.0, 0.0, 0.5])], ignore_index=True)
    cut = stats.within(shares, 0.0, 1.0, why="a share")
    raw = shares[["ci_low", "ci_high"]].to_numpy()
    assert raw[0, 1] > 1 and raw[1, 0] < 0 < 1 < raw[1, 1] and raw[3, 0] < 0 < 0.5 < raw[3, 1] < 1
    assert cut["ci_high"].tolist()[:2] == [1.0, 1.0] and cut["ci_low"].tolist()[1] == 0.0
    assert cut["method"].tolist() == [stats.T_INTERVAL + ", its upper end cut at 1 (a share)",
                                      stats.T_INTERVAL + ", its ends cut at 0 and 1 (a share)", stats.T_INTERVAL,
                                      stats.T_INTERVAL + ", its lower end cut at 0 (a share)"]
    assert cut.iloc[2].equals(shares.iloc[2]) and cut.iloc[3]["ci_high"] == shares.iloc[3]["ci_high"]
    assert stats.within(shares)["method"].tolist() == [stats.T_INTERVAL] * 4  # no range: nothing cut


def test_seat_fairness(results):
    rates = results.seat_rates
    hand = rates[rates["level"] == "hand"]
    assert hand["k"].tolist() == [2, 4] and hand["n"].tolist() == [6, 6]
    test = _row(results.seat_tests, level="hand")
    assert test["p_value"] == pytest.approx(sps.chisquare([2, 4]).pvalue)
    assert "chisquare" in test["test"]
    game = rates[rates["level"] == "game"]
    assert game["k"].tolist() == [1, 1] and game["n"].tolist() == [2, 2]
    edge = results.dealer_edge.iloc[0]
    assert (edge["n_players"], edge["headline"]) == (2, True)
    assert edge["estimate"] == pytest.approx(4 / 6 - 2 / 6)
    # the dealer (seat_from_dealer 2) in played hands, per game (wins of hands): 1 of 3, 1 of 1, 2 of 2
    r, se, g = _cluster([0, 0, 0, 1, 2, 2], [0, 0, 1, 1, 1, 1], [1] * 6)
    assert edge["dealer_rate"] == pytest.approx(r)
    assert edge["p_value"] == pytest.approx(2 * sps.t.sf(abs(r - 0.5) / se, g - 1))
    # first player minus dealer per played hand: the two rates sum to one at two players
    assert edge["first_minus_dealer"] == pytest.approx((1 - r) - r)


def test_bot_shares_and_payments(results):
    bots = results.bot_rates
    assert _row(bots, bot="greedy", level="hand")[["k", "n"]].tolist() == [3, 6]
    assert _row(bots, bot="greedy", level="hand")["expected"] == 0.5
    assert _row(bots, bot="cautious", level="game")["share_of_wins"] == 0.5
    pay = results.net_payment
    assert _row(pay, by="bot", group="greedy")["estimate"] == pytest.approx(-1)
    assert _row(pay, by="start seat_from_dealer", group="seat 1")["estimate"] == pytest.approx((-7 - 1 + 3) / 3)


def test_win_by_dealt_jokers(results):
    j = results.jokers
    assert j[["dealt_jokers", "k", "n"]].values.tolist() == [[0, 2, 7], [1, 2, 3], [2, 2, 2]]


def test_summary_one_row_per_headline_metric_per_profile(tmp_path):
    beta = [(hands_rows(ALPHA_HANDS, profile="beta"), games_rows(ALPHA_GAMES, profile="beta"))]
    run = write_run(tmp_path / "two", {"alpha": alpha_shards(), "beta": beta})
    table = metrics.summary(run)
    assert len(table) == 2 * len(metrics.HEADLINE)
    assert set(table["profile"]) == {"alpha", "beta"}
    alpha = table[table["profile"] == "alpha"].set_index("metric")
    assert alpha.loc["p_can_open_at_deal", "estimate"] == 3 / 8
    assert alpha.loc["dealer_hand_win_rate", "estimate"] == pytest.approx(4 / 6)
    assert alpha.loc["seat_equal_shares_p", "p_value"] == pytest.approx(sps.chisquare([2, 4]).pvalue)
    assert table["method"].notna().all()


def test_a_run_without_elimination_has_a_typed_empty_survival_curve_that_joins_and_plots(results):
    # compare overlays A's curves with B's; B without elimination must not turn A's numbers into objects
    import copy

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from analysis import plots
    manifest = copy.deepcopy(results.run.manifest)
    for info in manifest["profiles"].values():
        info.setdefault("params", {})["game_end"] = "target"
    none = metrics.first_elimination_survival(metrics.RunData(manifest, results.run.summary, results.run.profiles))
    assert none.empty and none["survival"].dtype == float and none["ci_low"].dtype == float
    both = pd.concat([results.survival.assign(profile="A: " + results.survival["profile"]),
                      none.assign(profile="B: none")], ignore_index=True)
    assert both["ci_high"].dtype == float and both["time"].dtype == float
    fig, ax = plt.subplots()
    try:
        plots.survival(ax, both)
        assert ax.get_legend() is not None
    finally:
        plt.close(fig)
