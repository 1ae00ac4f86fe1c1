"""The summary-based metrics against plain pandas on whole tables, merging, and the design-aware pieces
(buy-ins allowed, table sizes, not-applicable elimination, paired comparisons)."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import scipy.stats as sps

from analysis import compare, differences, load, metrics, stats, summaries
from bench import report as bench_report

pytestmark = pytest.mark.usefixtures("figures_not_rasterised_in_module")  # figures drawn, not rendered: no test reads them

SPEC = dict(bench_report.DEFAULT_PROFILES["kalooki40"])


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    """A small synthetic run of two profiles in several shards each."""
    root = tmp_path_factory.mktemp("summaries")
    return bench_report.synthesize_run(root / "run", 60_000, seed=3, shard_rows=9_000)


def _tables(run):
    hands = load.load_table(run, "hands")
    games = load.load_table(run, "games")
    for frame in (hands, games):
        frame["profile"] = frame["profile"].astype(str)
    return hands, games


def _allowed_by_rules(hands: pd.DataFrame, max_buy_ins: int) -> pd.Series:
    """RULES.md 6 played out deal by deal: eliminated players decide in turn from the winner's left; a
    buy-in is allowed below max_buy_ins so far and with two players still in."""
    allowed = pd.Series(False, index=hands.index)
    elim = hands[hands["eliminated"]]
    for _, deal in hands[hands.set_index(["game_id", "hand_no", "redeal_no"]).index.isin(
            elim.set_index(["game_id", "hand_no", "redeal_no"]).index)].groupby(["game_id", "hand_no", "redeal_no"]):
        winner = int(deal.loc[deal["won"], "seat"].iloc[0])
        seats = int(deal["seat"].max()) + 1
        still_in = len(deal) - int(deal["eliminated"].sum())
        for step in range(1, seats + 1):
            seat = (winner + step) % seats
            row = deal[(deal["seat"] == seat) & deal["eliminated"]]
            if row.empty:
                continue
            i = row.index[0]
            before = int(row["buy_ins_total"].iloc[0]) - int(row["bought_in"].iloc[0])
            allowed[i] = before < max_buy_ins and still_in >= 2
            still_in += int(row["bought_in"].iloc[0])
    return allowed


def _plain(hands: pd.DataFrame, games: pd.DataFrame, n_full: int, max_buy_ins: int = 2) -> dict:
    """Every headline metric of one profile by plain pandas on whole tables."""
    h, g = hands, games
    played = ~h["void"] & ~h["stalled"]
    opened = played & h["opened"]
    kalooki = h["won"] & (h["win_type"].astype(str) == "kalooki")
    deals = h.drop_duplicates(["game_id", "hand_no", "redeal_no"])
    deals_played = deals[~deals["void"] & ~deals["stalled"]]
    per_game = g.groupby("game_id").agg(hands=("hands_played", "first"), stalled=("stalled", "first"),
                                        elim=("eliminated_count", "max"), buy_ins=("buy_ins", "sum"))
    at_full = h[played & (h["n_players"] == n_full)]
    dealer = at_full[at_full["seat_from_dealer"] == n_full]
    others = at_full[at_full["seat_from_dealer"] != n_full]
    first = at_full[at_full["seat_from_dealer"] == 1]
    allowed = _allowed_by_rules(h, max_buy_ins)
    finished = g[~g["stalled"]]
    return {
        "p_can_open_at_deal": h["can_open_at_deal"].mean(),
        "share_never_opened": (~h.loc[played, "opened"]).mean(),
        "mean_open_round": h.loc[opened, "open_round"].astype(float).mean(),
        "mean_open_value": h.loc[opened, "open_value"].astype(float).mean(),
        "share_open_with_discard": h.loc[opened, "open_with_discard"].mean(),
        "kalooki_per_hand": kalooki.sum() / len(deals_played),
        "kalooki_per_player_hand": kalooki[played].mean(),
        "kalooki_share_of_wins": kalooki[played & h["won"]].mean(),
        "share_players_eliminated_at_least_once": (g["eliminated_count"] > 0).mean(),
        "share_games_with_elimination": (per_game["elim"] > 0).mean(),
        "buy_in_rate": h.loc[allowed, "bought_in"].mean(),
        "buy_ins_per_game": per_game["buy_ins"].mean(),
        "p_win_game_given_bought_in": finished.loc[finished["buy_ins"] > 0, "won"].mean(),
        "hands_per_game": per_game["hands"].mean(),
        "rounds_per_hand": deals_played["rounds"].mean(),
        "reshuffles_per_hand": deals["stock_reshuffles"].mean(),
        "void_hand_share": deals["void"].mean(),
        "stalled_hand_share": deals["stalled"].mean(),
        "stalled_game_share": per_game["stalled"].mean(),
        "dealer_hand_win_rate": dealer["won"].mean(),
        "dealer_edge": dealer["won"].mean() - others["won"].mean(),
        "first_minus_dealer": first["won"].mean() - dealer["won"].mean(),
        "seat_equal_shares_p": sps.chisquare(at_full.groupby("seat_from_dealer")["won"].sum()).pvalue,
    }


def test_every_headline_metric_equals_plain_pandas(synthetic):
    hands, games = _tables(synthetic)
    res = metrics.compute(synthetic)
    for profile, spec in bench_report.DEFAULT_PROFILES.items():
        expected = _plain(hands[hands["profile"] == profile], games[games["profile"] == profile], spec["n_players"])
        got = res.summary[res.summary["profile"] == profile].set_index("metric")
        assert set(got.index) == set(expected) | {"median_hands_to_first_elimination"}
        for metric, value in expected.items():
            assert got.loc[metric, "estimate"] == pytest.approx(value, rel=1e-9, abs=1e-12, nan_ok=True), metric
        # the KM median against statsmodels' SurvfuncRight on one time per game
        h = hands[hands["profile"] == profile]
        firsts = h[h["eliminated"]].groupby("game_id")["hand_no"].min()
        per_game = games[games["profile"] == profile].groupby("game_id")["hands_played"].first()
        times = firsts.reindex(per_game.index).fillna(per_game)
        median = stats.km_median(times, per_game.index.isin(firsts.index))
        row = got.loc["median_hands_to_first_elimination"]
        assert (row["estimate"], row["ci_low"]) == (pytest.approx(median["estimate"], nan_ok=True),
                                                   pytest.approx(median["ci_low"], nan_ok=True))
    assert res.summary.set_index(["profile", "metric"]).loc[("kalooki40", "buy_in_rate"), "n"] > 0
    assert res.summary["unit"].notna().all() and res.summary["denominator"].notna().all()
    assert res.summary["method"].notna().all()


def test_tables_behind_the_figures_equal_plain_pandas(synthetic):
    hands, games = _tables(synthetic)
    res = metrics.compute(synthetic)
    h = hands[hands["profile"] == "kalooki40"]
    played = h[~h["void"] & ~h["stalled"]]
    jokers = res.jokers[res.jokers["profile"] == "kalooki40"]
    expected = played.groupby("dealt_jokers")["won"].agg(["sum", "count"])
    assert jokers["dealt_jokers"].tolist() == expected.index.tolist()
    assert jokers["k"].tolist() == expected["sum"].tolist() and jokers["n"].tolist() == expected["count"].tolist()
    curve = res.opened_by_round[res.opened_by_round["profile"] == "kalooki40"]
    by_round = played.loc[played["opened"], "open_round"].astype(int).value_counts().sort_index()
    assert curve["round"].tolist() == list(range(1, by_round.index.max() + 1))
    assert curve["k"].tolist() == by_round.reindex(curve["round"], fill_value=0).cumsum().tolist()
    assert (curve["n"] == len(played)).all()
    counts = res.hands_per_game[res.hands_per_game["profile"] == "kalooki40"]
    per_game = games[games["profile"] == "kalooki40"].groupby("game_id")["hands_played"].first().value_counts()
    assert dict(zip(counts["hands_played"], counts["games"])) == per_game.to_dict()
    seats = res.seat_rates[(res.seat_rates["profile"] == "kalooki40") & (res.seat_rates["level"] == "hand")]
    assert seats["k"].tolist() == played.groupby("seat_from_dealer")["won"].sum().tolist()
    pay = res.net_payment[(res.net_payment["profile"] == "kalooki40") & (res.net_payment["by"] == "bot")]
    g = games[games["profile"] == "kalooki40"]
    expected = g.groupby(g["bot"].astype(str))["net_payment"].mean()
    assert pay["estimate"].tolist() == pytest.approx(expected.reindex(pay["group"]).tolist())
    bots = res.bot_rates[(res.bot_rates["profile"] == "kalooki40") & (res.bot_rates["level"] == "hand")]
    expected = played.groupby(played["bot"].astype(str))["won"].sum()
    assert bots["k"].tolist() == expected.reindex(bots["bot"]).tolist()


def test_intervals_are_cluster_robust_by_game(synthetic):
    hands, _ = _tables(synthetic)
    h = hands[(hands["profile"] == "kalooki40") & ~hands["void"] & ~hands["stalled"] & hands["opened"]]
    per_game = h.groupby("game_id")["open_round"].agg(["sum", "count"]).astype(float)
    r = per_game["sum"].sum() / per_game["count"].sum()
    g = len(per_game)
    se = np.sqrt(g / (g - 1) * ((per_game["sum"] - r * per_game["count"]) ** 2).sum()) / per_game["count"].sum()
    row = metrics.compute(synthetic).summary.set_index(["profile", "metric"]).loc[("kalooki40", "mean_open_round")]
    assert row["se"] == pytest.approx(se)
    assert row["ci_high"] - row["estimate"] == pytest.approx(sps.t.ppf(0.975, g - 1) * se)
    assert row["games"] == g and "cluster-robust" in row["method"]


def test_shard_summaries_merge_to_the_summary_of_all_rows(synthetic):
    hands, games = _tables(synthetic)
    manifest = load.read_manifest(synthetic)
    whole = summaries.summarise_shard(hands, games, manifest)
    by_shard = summaries.summarise_run(synthetic, manifest, list(manifest["profiles"]))
    assert len(manifest["shards"]) > 4
    a = whole.moments.set_index(summaries.KEYS).sort_index()
    b = by_shard.moments.set_index(summaries.KEYS).sort_index()
    cumulative = a.index.get_level_values("metric") == summaries.CUMULATIVE
    assert a.index.equals(b.index)
    pd.testing.assert_frame_equal(a, b, check_exact=False, rtol=1e-12)
    assert not cumulative.all()
    pd.testing.assert_frame_equal(whole.survival.sort_values(["profile", "time", "event"]).reset_index(drop=True),
                                  by_shard.survival.sort_values(["profile", "time", "event"]).reset_index(drop=True),
                                  check_dtype=False)
    parallel = summaries.summarise_run(synthetic, manifest, list(manifest["profiles"]), workers=2)
    pd.testing.assert_frame_equal(b, parallel.moments.set_index(summaries.KEYS).sort_index())


def _hand(game, hand, seat, n, winner, eliminated=False, bought=False, total=0):
    return {"profile": "p", "game_id": game, "hand_no": hand, "redeal_no": 0, "seat": seat,
            "seat_from_dealer": 1 + seat,
            "n_players": n, "bot": "b", "dealt_jokers": 0, "can_open_at_deal": False, "opened": False,
            "open_round": None, "open_value": None, "open_with_discard": False, "won": seat == winner,
            "win_type": "call" if seat == winner else None, "rounds": 5, "eliminated": eliminated,
            "bought_in": bought, "buy_ins_total": total, "stock_reshuffles": 0, "void": False, "stalled": False}


def test_buy_in_allowed_follows_the_rules():
    rows = [  # four players, seat 1 wins; seats 3, 0 and 2 eliminated (decide in that order: 2, 3, 0)
        _hand(0, 1, 0, 4, 1, eliminated=True, bought=False), _hand(0, 1, 1, 4, 1),
        _hand(0, 1, 2, 4, 1, eliminated=True, bought=True, total=1), _hand(0, 1, 3, 4, 1, eliminated=True, total=0),
        # three players; seat 0 wins, seat 2 eliminated with max_buy_ins = 2 used up
        _hand(1, 1, 0, 3, 0), _hand(1, 1, 1, 3, 0), _hand(1, 1, 2, 3, 0, eliminated=True, total=2),
        # two players: never allowed
        _hand(2, 1, 0, 2, 1, eliminated=True), _hand(2, 1, 1, 2, 1)]
    hands = pd.DataFrame(rows)
    allowed = summaries.buy_in_allowed(hands, max_buy_ins=2, elimination=True)
    # seat 2 decides first: winner only still in (1 < 2) -> not allowed, though the row says bought (kept
    # as recorded); then seat 3: winner + seat 2 back in = 2 -> allowed; then seat 0: allowed
    assert allowed.tolist() == [True, False, False, True, False, False, False, False, False]
    assert not summaries.buy_in_allowed(hands, max_buy_ins=2, elimination=False).any()
    assert allowed.tolist() == _allowed_by_rules(hands.assign(won=hands["won"].astype(bool)), 2).tolist()


def test_dealer_edge_per_table_size_with_the_full_table_as_headline():
    rows = []
    rng = np.random.default_rng(5)
    for game in range(60):
        for hand in range(1, 7):
            n = 4 if hand <= 3 else 2  # the table shrinks as players are knocked out
            winner = int(rng.integers(0, n))
            rows += [_hand(game, hand, s, n, winner) for s in range(n)]
    hands = pd.DataFrame(rows)
    games = pd.DataFrame({"profile": "p", "game_id": np.repeat(np.arange(60), 4), "seat": np.tile(np.arange(4), 60),
                          "n_players": 4, "bot": "b", "hands_played": 6, "won": np.tile([1, 0, 0, 0], 60) == 1,
                          "eliminated_count": 0, "buy_ins": 0, "net_payment": 0, "stalled": False})
    manifest = {"profiles": {"p": {"n_players": 4, "params": {"game_end": "elimination"}}}}
    res = metrics.compute(metrics.RunData.from_frames(manifest, hands, games))
    edge = res.dealer_edge.set_index("n_players")
    assert edge.index.tolist() == [2, 4] and edge["headline"].tolist() == [False, True]
    for n in (2, 4):
        at_n = hands[hands["n_players"] == n]
        d = at_n.loc[at_n["seat_from_dealer"] == n, "won"].mean()
        assert edge.loc[n, "dealer_rate"] == pytest.approx(d)
        assert edge.loc[n, "estimate"] == pytest.approx(d - at_n.loc[at_n["seat_from_dealer"] != n, "won"].mean())
        assert edge.loc[n, "fair"] == 1 / n
    s = res.summary.set_index("metric")
    assert s.loc["dealer_hand_win_rate", "estimate"] == edge.loc[4, "dealer_rate"]
    assert "1/4" in s.loc["dealer_hand_win_rate", "description"]


def test_elimination_metrics_not_applicable_without_elimination(synthetic, tmp_path):
    manifest = load.read_manifest(synthetic)
    manifest["profiles"]["kalooki51"]["params"]["game_end"] = "target"
    manifest["profiles"]["kalooki40"]["params"]["game_end"] = "elimination"
    (synthetic / "manifest.json").write_text(json.dumps(manifest))
    try:
        res = metrics.compute(synthetic)
    finally:
        for profile in ("kalooki40", "kalooki51"):
            del manifest["profiles"][profile]["params"]["game_end"]
        (synthetic / "manifest.json").write_text(json.dumps(manifest))
    s = res.summary.set_index(["profile", "metric"])
    for metric in metrics.ELIMINATION_METRICS:
        row = s.loc[("kalooki51", metric)]
        assert not row["applicable"] and np.isnan(row["estimate"]), metric
        assert row["method"].startswith("not applicable") and "target" in row["method"]
        assert s.loc[("kalooki40", metric), "applicable"]
    assert set(res.survival["profile"]) == {"kalooki40"}
    assert s.loc[("kalooki51", "hands_per_game"), "applicable"]


@pytest.fixture(scope="module")
def paired_runs(tmp_path_factory):
    """Same seed and profile, a higher Kalooki rate in B: the deals match game by game."""
    root = tmp_path_factory.mktemp("paired")
    a = bench_report.synthesize_run(root / "a", 30_000, seed=7, profiles={"kalooki40": SPEC}, shard_rows=8_000)
    b = bench_report.synthesize_run(root / "b", 30_000, seed=7, profiles={"kalooki40": {**SPEC, "kalooki_rate": 0.06}},
                                    shard_rows=8_000)
    c = bench_report.synthesize_run(root / "c", 30_000, seed=8, profiles={"kalooki40": {**SPEC, "kalooki_rate": 0.06}})
    return a, b, c


def test_compare_pairs_runs_of_one_seed_by_game(paired_runs):
    a, b, c = paired_runs
    table = compare.compare(a, b).set_index("metric")
    row = table.loc["kalooki_per_hand"]
    assert row["design"].startswith("paired by game (")
    assert row["diff_ci_high"] - row["diff_ci_low"] < row["unpaired_ci_high"] - row["unpaired_ci_low"]
    assert row["width_vs_unpaired"] < 1
    # the paired standard error by hand: per-game differences of the linearised ratios
    z = []
    for run in (a, b):
        h = load.load_table(run, "hands")
        h = h[~h["void"] & ~h["stalled"]]
        kal = (h["won"] & (h["win_type"].astype(str) == "kalooki")).groupby(h["game_id"]).sum()
        deals = h.drop_duplicates(["game_id", "hand_no", "redeal_no"]).groupby("game_id").size()
        kal = kal.reindex(deals.index, fill_value=0)
        r = kal.sum() / deals.sum()
        z.append((kal - r * deals) / deals.mean())
    u = (z[1] - z[0]).to_numpy()
    se = np.sqrt(np.var(u, ddof=1) / len(u))
    half = sps.t.ppf(0.975, len(u) - 1) * se
    assert (row["diff_ci_low"], row["diff_ci_high"]) == pytest.approx((row["difference"] - half,
                                                                       row["difference"] + half))
    assert row["p_value"] == pytest.approx(2 * sps.t.sf(abs(row["difference"]) / se, len(u) - 1))
    other = compare.compare(a, c).set_index("metric")
    assert (other["design"] == "independent samples").all()
    assert other["width_vs_unpaired"].dropna().eq(1).all()


def test_compare_family_leaves_out_duplicates_and_constants(paired_runs):
    a, b, _ = paired_runs
    table = compare.compare(a, b).set_index("metric")
    assert not table.loc["kalooki_share_of_wins", "in_family"]
    assert not table.loc["dealer_edge", "in_family"]
    assert not table.loc["seat_equal_shares_p", "in_family"]
    assert table.loc["kalooki_per_hand", "in_family"]
    assert not table.loc["mean_open_round", "in_family"]  # B changed only the Kalookis: equal game by game
    family = int(table["in_family"].sum())
    assert f"over {family} tests" in table["correction"].iloc[0]
    # identical columns (hands per game are equal game by game) are constant: not in the family
    assert table.loc["hands_per_game", "difference"] == 0 and not table.loc["hands_per_game", "in_family"]


def test_a_difference_with_no_spread_in_the_games_still_has_an_interval(paired_runs):
    a, b, _ = paired_runs
    table = compare.compare(a, b).set_index("metric")
    row = table.loc["hands_per_game"]  # equal game by game: the paired t interval would be [0, 0]
    assert row["diff_ci_low"] < 0 < row["diff_ci_high"]
    # the square-and-add of the two sides' own intervals, which are the same here
    assert row["diff_ci_high"] == pytest.approx(np.hypot(row["ci_high_b"] - row["estimate_b"],
                                                         row["estimate_a"] - row["ci_low_a"]))
    assert row["diff_ci_low"] == pytest.approx(-np.hypot(row["estimate_b"] - row["ci_low_b"],
                                                         row["ci_high_a"] - row["estimate_a"]))
    assert "square-and-add" in row["test"] and row["p_value"] == 1.0 and not row["in_family"]
    # where the games do spread, the t interval is kept
    assert "square-and-add" not in table.loc["kalooki_per_hand", "test"]
    # a share of 100% on both sides, every game alike: the sides' Wilson intervals give the difference's
    row = {"estimate_a": 1.0, "ci_low_a": 0.99, "ci_high_a": 1.0, "estimate_b": 1.0, "ci_low_b": 0.98,
           "ci_high_b": 1.0}
    assert differences.square_and_add(row) == pytest.approx((-0.02, 0.01))
    assert differences.square_and_add({**row, "ci_low_a": np.nan}) is None


@pytest.mark.slow  # three child processes each writing a whole report: the bench's own study
def test_report_benchmark_entry_point_repeats_shards_into_a_verified_run():
    result = bench_report.run(rows=40_000, base_rows=20_000)
    assert result["rows"] == pytest.approx(40_000, rel=0.1)
    stored, rows = result["from_summaries"], result["from_rows"]
    assert stored["report_wall_s"] > 0 and stored["report_cpu_s"] > 0 and stored["report_peak_rss_mb"] > 0
    assert stored["shards_read_from"] == {"summary file": result["shards"]}  # copies reuse their summaries
    assert rows["shards_read_from"] == {"rows": result["shards"]}
    assert result["same_tables"] is True
