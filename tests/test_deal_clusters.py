"""Duplicate runs are clustered by deal: the rotations of a deal share its cards, so a skill study's
headline metrics, their intervals and `compare` count deals, not games.  On constructed rows whose
answer is known (identical rotations give a standard error sqrt((4D - 1) / (D - 1)) times the one by
game, and a Kaplan-Meier band sqrt(4D / (D - 1)) times as wide in log-log; intervals by deal cover the
truth at about 95%, by game far less), then on the engine (a
duplicate run's manifest, its standard error against one computed by hand from its rows by deal, an
old manifest without the design read as before, `compare` paired by deal), and in the slow tier an
A/A of duplicate runs through `compare`."""
import copy
import json
import logging

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from analysis import compare, differences, load, metrics, stats, summaries
from analysis.summaries import write_shard_summary
from sim import runconfig, runformat, runmanifest, runner, runplan
from sim.errors import UserError

pytestmark = pytest.mark.usefixtures("figures_not_rasterised_in_module")  # figures drawn, not rendered: no test reads them

SEATS = 4
TRUE_NEVER_OPENED = float(sps.norm.sf(0.8 / np.sqrt(2)))  # P(cards + own > 0.8), both N(0, 1)


def duplicate_rows(rng, deals: int, first_deal: int = 0, hands: int = 3, own: float = 1.0):
    """Hands and games rows of ``deals`` duplicate deals, each played in 4 rotations: a player-hand
    never opens when its cards (N(0, 1), the same to the same seat in every rotation) plus its own
    luck (N(0, own^2), new in each game) exceed 0.8; with own = 0 the rotations are identical."""
    n = deals * SEATS * hands * SEATS
    deal = np.repeat(np.arange(first_deal, first_deal + deals), SEATS * hands * SEATS)
    rotation = np.tile(np.repeat(np.arange(SEATS), hands * SEATS), deals)
    hand = np.tile(np.repeat(np.arange(1, hands + 1), SEATS), deals * SEATS)
    seat = np.tile(np.arange(SEATS), deals * SEATS * hands)
    cards = rng.normal(size=(deals, hands, SEATS))[deal - first_deal, hand - 1, seat]
    never = cards + own * rng.normal(size=n) > 0.8
    h = pd.DataFrame({"profile": "p", "game_id": deal * SEATS + rotation, "hand_no": hand, "redeal_no": 0,
                      "seat": seat, "seat_from_dealer": 1 + seat, "n_players": SEATS, "bot": "b", "dealt_jokers": 0,
                      "can_open_at_deal": ~never, "opened": ~never, "open_round": np.where(never, np.nan, 3.0),
                      "open_value": np.where(never, np.nan, 50.0), "open_with_discard": False, "won": seat == 0,
                      "win_type": np.where(seat == 0, "call", None), "rounds": 5, "eliminated": False,
                      "bought_in": False, "buy_ins_total": 0, "stock_reshuffles": 0, "void": False, "stalled": False})
    games = np.arange(first_deal * SEATS, (first_deal + deals) * SEATS)
    g = pd.DataFrame({"profile": "p", "game_id": np.repeat(games, SEATS), "seat": np.tile(np.arange(SEATS), games.size),
                      "n_players": SEATS, "bot": "b", "hands_played": hands,
                      "won": np.tile(np.arange(SEATS) == 0, games.size), "eliminated_count": 0, "buy_ins": 0,
                      "net_payment": 0.0, "stalled": False})
    return h, g


def manifest_of(games_per_deal: int | None) -> dict:
    entry = {"n_players": SEATS, "params": {"game_end": "target"}}
    if games_per_deal is not None:
        entry["games_per_deal"] = games_per_deal
    return {"seed": 1, "profiles": {"p": entry}}


def never_opened(h, g, games_per_deal) -> pd.Series:
    run = metrics.RunData.from_frames(manifest_of(games_per_deal), h, g)
    return metrics.opening(run).set_index(["metric", "bot"]).loc[("share_never_opened", summaries.ALL)]


def test_identical_rotations_have_the_standard_error_of_one_game_a_deal():
    """Four identical rotations of D deals: by game the residuals are counted four times over 4D games;
    by deal once over D deals of four times the sums, so var(deal) / var(game) = (4D - 1) / (D - 1)."""
    deals = 25
    h, g = duplicate_rows(np.random.default_rng(1), deals, own=0.0)
    by_deal, by_game = never_opened(h, g, 4), never_opened(h, g, 1)
    assert by_deal["games"] == deals and by_game["games"] == SEATS * deals
    assert by_deal["estimate"] == by_game["estimate"]
    assert by_deal["se"] / by_game["se"] == pytest.approx(np.sqrt((4 * deals - 1) / (deals - 1)), rel=1e-9)
    # and by hand: CR1 over the deals' sums
    y = h.assign(deal=h["game_id"] // SEATS, never=~h["opened"]).groupby("deal")["never"].agg(["sum", "size"])
    r = y["sum"].sum() / y["size"].sum()
    se = np.sqrt(deals / (deals - 1) * ((y["sum"] - r * y["size"]) ** 2).sum()) / y["size"].sum()
    assert by_deal["se"] == pytest.approx(se, rel=1e-12)
    assert "by deal" in by_deal["method"] and "deals - 1" in by_deal["method"]
    assert "by game" in by_game["method"]


def elimination_rows(rng, deals: int, rotations: int = SEATS) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Hands and games rows of ``deals`` duplicate deals whose rotations are identical in what the
    Kaplan-Meier counts: each deal's first elimination (seat 0, at hand 1 to 8) or, in a fifth of the
    deals, none (censored at the game's 8 hands), the same in every rotation."""
    first = rng.integers(1, 9, deals)
    censored = rng.random(deals) < 0.2
    game = np.arange(deals * rotations)
    deal = game // rotations
    hands = 8
    rows = pd.MultiIndex.from_product([game, np.arange(1, hands + 1), np.arange(SEATS)],
                                      names=["game_id", "hand_no", "seat"]).to_frame(index=False)
    d = rows["game_id"].to_numpy() // rotations
    eliminated = (rows["seat"].to_numpy() == 0) & (rows["hand_no"].to_numpy() == first[d]) & ~censored[d]
    h = rows.assign(profile="p", redeal_no=0, seat_from_dealer=rows["seat"] + 1, n_players=SEATS, bot="b",
                    dealt_jokers=0, can_open_at_deal=True, opened=True, open_round=3.0, open_value=50.0,
                    open_with_discard=False, won=rows["seat"] == 1, win_type=np.where(rows["seat"] == 1, "call", None),
                    rounds=5, eliminated=eliminated, bought_in=False, buy_ins_total=0, stock_reshuffles=0, void=False,
                    stalled=False)
    g = pd.DataFrame({"profile": "p", "game_id": np.repeat(game, SEATS), "seat": np.tile(np.arange(SEATS), game.size),
                      "n_players": SEATS, "bot": "b", "hands_played": hands,
                      "won": np.tile(np.arange(SEATS) == 1, game.size),
                      "eliminated_count": np.tile(np.arange(SEATS) == 0, game.size) & ~censored[np.repeat(deal, SEATS)],
                      "buy_ins": 0, "net_payment": 0.0, "stalled": False})
    return h, g


def _elimination_run(h, g, games_per_deal) -> metrics.RunData:
    manifest = {"seed": 1, "profiles": {"p": {"n_players": SEATS, "params": {"game_end": "elimination",
                                                                              "max_buy_ins": 0}}}}
    if games_per_deal > 1:
        manifest["profiles"]["p"]["games_per_deal"] = games_per_deal
    return metrics.RunData.from_frames(manifest, h, g)


def _log_log_spread(curve: pd.DataFrame) -> np.ndarray:
    """z * se of log(-log S) at each time of a curve, read back from its lower band S^exp(spread)."""
    inside = (curve["survival"] > 0) & (curve["survival"] < 1)
    c = curve[inside]
    return np.log(np.log(c["ci_low"].to_numpy(float)) / np.log(c["survival"].to_numpy(float)))


def test_identical_rotations_widen_the_km_band_by_the_square_root_of_the_rotations():
    """Four identical rotations of D deals: counted as 4D games the band is Greenwood's on 4D games;
    clustered by deal, each deal's influence is four times a game's, so its variance is 4 D / (D - 1)
    times that (the log-log spread sqrt of that), the band of the D deals alone (one game each) but for
    the factor D / (D - 1).  The median's interval widens with it, and the methods say how it is made."""
    deals = 60
    h, g = elimination_rows(np.random.default_rng(3), deals)
    by_deal, by_game = _elimination_run(h, g, SEATS), _elimination_run(h, g, 1)
    curve_deal = metrics.first_elimination_survival(by_deal)
    curve_game = metrics.first_elimination_survival(by_game)
    assert curve_deal["survival"].tolist() == curve_game["survival"].tolist()
    ratio = _log_log_spread(curve_deal) / _log_log_spread(curve_game)
    assert len(ratio) >= 5 and ratio == pytest.approx(np.sqrt(SEATS * deals / (deals - 1)), rel=1e-9)
    one = h["game_id"] % SEATS == 0  # one rotation of each deal: D independent games
    alone = metrics.first_elimination_survival(_elimination_run(h[one], g[g["game_id"] % SEATS == 0], 1))
    assert _log_log_spread(curve_deal) == pytest.approx(_log_log_spread(alone) * np.sqrt(deals / (deals - 1)),
                                                        rel=1e-9)
    assert "clustered" not in curve_game["method"].iloc[0] and "Greenwood" in curve_game["method"].iloc[0]
    assert "over deals" in curve_deal["method"].iloc[0] and "Greenwood" not in curve_deal["method"].iloc[0]

    median = lambda run: (metrics.elimination(run).set_index("metric").loc["median_hands_to_first_elimination"])
    m_deal, m_game = median(by_deal), median(by_game)
    assert m_deal["estimate"] == m_game["estimate"]
    assert m_deal["ci_high"] - m_deal["ci_low"] > m_game["ci_high"] - m_game["ci_low"]
    assert m_deal["ci_low"] <= m_game["ci_low"] and m_deal["ci_high"] >= m_game["ci_high"]
    assert "over deals" in m_deal["method"] and "over deals" not in m_game["method"]
    for method in (m_deal["method"], *curve_deal["method"]):
        assert "narrower" not in method and "as if" not in method


def test_an_ordinary_runs_km_band_is_greenwoods_on_its_games():
    """One game a deal: the histogram is kept whole (no clusters) and the band is statsmodels'
    Greenwood log-log band on one time per game, as :func:`stats.kaplan_meier` makes it."""
    h, g = elimination_rows(np.random.default_rng(4), 80, rotations=1)
    run = _elimination_run(h, g, 1)
    assert (run.summary.survival[summaries.CLUSTER] == summaries.NONE).all()
    curve = metrics.first_elimination_survival(run)
    firsts = h[h["eliminated"]].groupby("game_id")["hand_no"].min()
    games = g.groupby("game_id")["hands_played"].first()
    expected = stats.kaplan_meier(firsts.reindex(games.index).fillna(games), games.index.isin(firsts.index))
    got = curve[curve["time"].isin(expected["time"])].drop_duplicates("time").reset_index(drop=True)
    for column in ("survival", "ci_low", "ci_high"):
        np.testing.assert_allclose(got[column].to_numpy(float), expected[column].to_numpy(float), rtol=1e-9)
    assert curve["method"].iloc[0] == "Kaplan-Meier, " + stats.KM_GREENWOOD


def _moments(y: np.ndarray, x: np.ndarray) -> list[np.ndarray]:
    """(clusters, x, y, Y2, X2, XY) per sample from cluster sums (samples x clusters)."""
    return [np.full(y.shape[0], y.shape[1]), x.sum(1), y.sum(1), (y * y).sum(1), (x * x).sum(1), (x * y).sum(1)]


def test_intervals_by_deal_cover_the_truth_at_about_95_percent():
    """2,000 duplicate samples of 30 deals (the rotations share the cards, each game adds its own luck,
    12 player-hands a game), through the cluster-robust Wilson interval every share gets: by deal it
    covers the true share at about 95%; by game, too narrow by the rotations' correlation, far less."""
    rng = np.random.default_rng(45)
    samples, deals, per_game = 2000, 30, 12
    cards = rng.normal(size=(samples, deals, 1, per_game))
    never = cards + rng.normal(size=(samples, deals, SEATS, per_game)) > 0.8  # rotations on axis 2
    y_game = never.sum(axis=3).reshape(samples, deals * SEATS).astype(float)
    x_game = np.full(y_game.shape, float(per_game))
    y_deal, x_deal = y_game.reshape(samples, deals, SEATS).sum(2), x_game.reshape(samples, deals, SEATS).sum(2)
    cover = {}
    for unit, (y, x) in {"deal": (y_deal, x_deal), "game": (y_game, x_game)}.items():
        est = stats.cluster_proportion(*_moments(y, x))
        cover[unit] = float(((est["ci_low"] <= TRUE_NEVER_OPENED) & (TRUE_NEVER_OPENED <= est["ci_high"])).mean())
    assert 0.93 <= cover["deal"] <= 0.97, cover  # a true 95% lands here with probability above 0.99
    assert cover["game"] < 0.88, cover


def test_a_manifest_records_the_design_and_an_old_one_reads_as_one_game_a_deal():
    assert runformat.games_per_deal({"profiles": {"p": {}}}, "p") == 1
    assert runformat.games_per_deal({"profiles": {"p": {"games_per_deal": 4}}}, "p") == 4
    assert runformat.games_per_deal({"profiles": {}}, "p") == 1
    bad = {"profiles": {"p": {"games_per_deal": 0}, "q": {"games_per_deal": 4}},
           "shards": [{"profile": "q", "index": 0, "first_game": 0, "n_games": 6}]}
    problems = runformat.design_problems(bad)
    assert len(problems) == 2 and "games_per_deal is 0" in problems[0] and "not whole deals" in problems[1]
    assert runformat.design_problems({"profiles": {"p": {}}, "shards": [{"profile": "p", "first_game": 3,
                                                                         "n_games": 5}]}) == []


def test_a_skill_study_is_a_duplicate_run_in_its_manifest(tmp_path):
    from sim import skill
    plan = runplan.make_plan(skill.study_config(["kalooki40"], ["expert", "greedy"], 16, 1, str(tmp_path / "s")))
    m = runmanifest.new_manifest(plan, "cmd")
    assert m["duplicate"] is True and m["profiles"]["kalooki40"]["games_per_deal"] == SEATS
    plain = runmanifest.new_manifest(runplan.make_plan(runconfig.make_config(
        None, None, profiles=["kalooki40"], games=16, seed=1, out=str(tmp_path / "p"))), "cmd")
    assert plain["duplicate"] is False and plain["profiles"]["kalooki40"]["games_per_deal"] == 1
    assert plain["run_id"] != m["run_id"]


def test_compare_pairs_only_runs_of_one_design():
    dup, plain = manifest_of(4), manifest_of(None)
    assert compare.paired_design(dup, copy.deepcopy(dup), "p", "p")
    assert compare.paired_design(plain, copy.deepcopy(plain), "p", "p")
    assert not compare.paired_design(dup, plain, "p", "p")  # game g is not the same deal in both


# ---------------------------------------------------------------------------------------------
# on the engine

TABLE = "expert,greedy,random,greedy"


def _duplicate_run(out, seed=3, games=80, sets=(), table=TABLE):
    cfg = runconfig.make_config(None, None, profiles=["kalooki40"], games=games, seed=seed, out=str(out),
                                shard_games=40, tables=[{"bots": table}], players=SEATS, duplicate=True,
                                sets=list(sets))
    runner.run_local(cfg, summarise=write_shard_summary, progress=False, log=lambda m: None)
    return cfg


def _se_by_hand(run_dir, games_per_deal) -> float:
    """share_never_opened's cluster-robust standard error from the rows, clustered by game_id // k."""
    h = load.load_table(run_dir, "hands")
    h = h[~h["void"] & ~h["stalled"]].assign(c=lambda f: f["game_id"] // games_per_deal, never=lambda f: ~f["opened"])
    y = h.groupby("c")["never"].agg(["sum", "size"])
    r, c = y["sum"].sum() / y["size"].sum(), len(y)
    return float(np.sqrt(c / (c - 1) * ((y["sum"] - r * y["size"]) ** 2).sum()) / y["size"].sum())


def _km_by_hand(run_dir, games_per_deal) -> pd.DataFrame:
    """The first-elimination curve from the rows, one time per game, its band clustered by game_id // k."""
    h, g = load.load_table(run_dir, "hands"), load.load_table(run_dir, "games")
    firsts = h[h["eliminated"].fillna(False).astype(bool)].groupby("game_id")["hand_no"].min()
    games = g.groupby("game_id")["hands_played"].first()
    times = firsts.reindex(games.index).fillna(games)
    return stats.km_from_counts(times, games.index.isin(firsts.index), np.ones(len(games), dtype=np.int64),
                                games.index.to_numpy() // games_per_deal)


@pytest.fixture(scope="module")
def duplicate_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("dup") / "run"
    cfg = _duplicate_run(out)
    return out, cfg


def test_a_duplicate_run_is_clustered_by_deal(duplicate_run, tmp_path, caplog):
    out, cfg = duplicate_run
    manifest = load.read_manifest(out)
    assert manifest["duplicate"] is True and manifest["profiles"]["kalooki40"]["games_per_deal"] == SEATS
    assert not runformat.check_run(out).problems
    res = metrics.compute(metrics.load_run(out))
    row = res.summary.set_index("metric").loc["share_never_opened"]
    assert res.run.summary.read_from == {"summary file": 2}
    assert row["games"] == 80 // SEATS and "by deal" in row["method"]
    assert row["se"] == pytest.approx(_se_by_hand(out, SEATS), rel=1e-9)
    assert row["se"] > _se_by_hand(out, 1)  # the rotations share their cards: by game understates it
    # the Kaplan-Meier band too: the stored histogram is per deal, the band the one by deal from the rows
    assert set(res.run.summary.survival[summaries.CLUSTER]) == set(range(80 // SEATS))
    expected = _km_by_hand(out, SEATS)
    assert len(expected) >= 3
    got = res.survival[res.survival["time"].isin(expected["time"])].drop_duplicates("time")
    np.testing.assert_allclose(got["ci_low"].to_numpy(float), expected["ci_low"].to_numpy(float), rtol=1e-9)
    assert "over deals" in res.survival["method"].iloc[0]

    # the same run with a manifest written before the design was recorded reads as one game a deal;
    # its summary files (made by deal) cannot stand for that, so the shards are read from rows, said once
    old = tmp_path / "old"
    import shutil
    shutil.copytree(out, old)
    stripped = json.loads((old / "manifest.json").read_text())
    del stripped["duplicate"], stripped["profiles"]["kalooki40"]["games_per_deal"]
    (old / "manifest.json").write_text(json.dumps(stripped))
    with caplog.at_level(logging.WARNING, logger="analysis.summaries"):
        old_res = metrics.compute(metrics.load_run(old))
    warned = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warned) == 1 and "2 of 2 shard summary file(s)" in warned[0] and "\n" not in warned[0]
    old_row = old_res.summary.set_index("metric").loc["share_never_opened"]
    assert old_res.run.summary.read_from == {"rows": 2}
    assert old_row["games"] == 80 and "by game" in old_row["method"]
    assert old_row["estimate"] == row["estimate"]
    assert old_row["se"] == pytest.approx(_se_by_hand(old, 1), rel=1e-9)
    assert (old_res.run.summary.survival[summaries.CLUSTER] == summaries.NONE).all()
    assert old_res.survival["method"].iloc[0] == "Kaplan-Meier, " + stats.KM_GREENWOOD

    # a run whose manifest predates the design is resumed, not refused, by the same configuration
    logged = []
    runner.run_local(dataclass_replace(cfg, out=str(old)), summarise=write_shard_summary, progress=False,
                     log=logged.append)
    assert logged and logged[-1].startswith("nothing to do")


def dataclass_replace(cfg, **changes):
    import dataclasses
    return dataclasses.replace(cfg, **changes)


def test_a_duplicate_run_refuses_part_deals(tmp_path):
    with pytest.raises(UserError, match="whole deals"):
        runplan.make_plan(runconfig.make_config(None, None, profiles=["kalooki40"], games=80, seed=1, out=str(tmp_path),
                                                shard_games=30, players=SEATS, duplicate=True))


def test_compare_of_two_duplicate_runs_pairs_them_by_deal(duplicate_run, tmp_path):
    out, _ = duplicate_run
    other = tmp_path / "other"
    _duplicate_run(other, sets=["opening_min=45"])  # the same seed: the same deals, another rule
    table = compare.compare(out, other).set_index("metric")
    row = table.loc["share_never_opened"]
    assert row["design"] == f"paired by deal ({80 // SEATS} deals)"
    assert "per-deal differences" in row["test"]
    assert row["diff_df"] == 80 // SEATS - 1
    a, b = (differences.per_game(metrics.compute(metrics.load_run(r, keep_games=True)), "kalooki40", "share_never_opened")
            for r in (out, other))
    assert a.index.name == "cluster" and a.index.tolist() == list(range(80 // SEATS))


@pytest.mark.slow
def test_an_aa_of_duplicate_runs_covers_zero_at_about_95_percent(tmp_path):
    """80 A/A comparisons of two independent duplicate runs of 10 deals (shards of one run, each with
    deals of its own) through `compare`: each tested metric's 95% interval of the difference covers 0
    about 95% of the time (with 80 comparisons a true 95% stays above 80% with probability above
    0.9999); clustered by game (the manifest without its design) the intervals are too narrow by the
    rotations' correlation, most for P(can open at deal), which the cards alone decide, the same in
    every rotation."""
    pairs, games = 80, 40
    out = tmp_path / "aa"
    _duplicate_run(out, seed=45, games=2 * pairs * games, table="greedy,random,greedy,random")
    manifest = load.read_manifest(out)
    old = copy.deepcopy(manifest)
    del old["duplicate"], old["profiles"]["kalooki40"]["games_per_deal"]
    coverage = {}
    for label, man in (("deal", manifest), ("game", old)):
        results = []
        for name, hands, games_file in summaries._shard_files(out, man, ["kalooki40"], ()):
            s = summaries.collapse(summaries._summarise_files(name, hands, games_file, man, False))
            results.append(metrics.compute(metrics.RunData(man, s, ["kalooki40"])))
        both = pd.concat([compare.compare_results(a, b, [("kalooki40", "kalooki40")])
                          for a, b in zip(results[0::2], results[1::2])], ignore_index=True)
        tested = both[both["p_value"].notna() & both["in_family"]]
        covers = (tested["diff_ci_low"] <= 0) & (tested["diff_ci_high"] >= 0)
        coverage[label] = covers.groupby(tested["metric"]).mean()
    print("\n" + pd.DataFrame(coverage).to_string())
    assert 0.92 <= coverage["deal"].mean() <= 0.985, coverage["deal"]
    assert coverage["deal"].min() >= 0.8, coverage["deal"]
    assert coverage["game"]["p_can_open_at_deal"] < 0.85, coverage["game"]
