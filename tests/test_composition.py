"""Reports by table composition: metrics per (profile, composition) equal plain pandas, the profile's
summary is its compositions added up, and the robustness mark of a difference from the baseline
(one composition reversing it, every composition agreeing, a single composition)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from scipy import stats as sps

from analysis import findings, metrics, report, summaries
from bench import report as bench_report

SPEC = dict(bench_report.DEFAULT_PROFILES["kalooki40"])
TABLES = {"casual": ["greedy"] * 4, "strong": ["expert"] * 4}


def _frames(rng, profile: str, table: str, spec: dict, rows: int, first_game: int) -> tuple[pd.DataFrame, ...]:
    """Synthetic hands and games of one profile at one composition, game ids from first_game."""
    spec = {**spec, "bots": TABLES[table]}
    hands, games = bench_report.synthesize_profile(rng, profile, spec, rows, "synthetic")
    out = []
    for name, columns in (("hands", hands), ("games", games)):
        n = len(columns["game_id"])
        frame = bench_report._arrow(name, columns, slice(0, n)).to_pandas()
        frame["game_id"] += first_game
        frame["table"] = table
        out.append(frame)
    return tuple(out)


def _run(specs: dict[tuple[str, str], dict], rows: int = 24_000, seed: int = 1, paired: bool = False):
    """RunData from frames: specs maps (profile, table) to a synthesizer spec."""
    rng = np.random.default_rng(seed)
    hands, games, first = [], [], {}
    for (profile, table), spec in specs.items():
        h, g = _frames(rng, profile, table, spec, rows, first.get(profile, 0))
        first[profile] = int(g["game_id"].max()) + 1
        hands.append(h)
        games.append(g)
    profiles = list(dict.fromkeys(p for p, _ in specs))
    manifest = {"seed": seed, "paired": paired, "profiles": {p: {
        "params": {"opening_min": SPEC["opening_min"]}, "n_players": 4, "bots": TABLES["casual"],
        "tables": [{"name": t, "bots": TABLES[t], "weight": 1} for t in dict.fromkeys(t for q, t in specs if q == p)]}
        for p in profiles}}
    cat = lambda frames: pd.concat(frames, ignore_index=True)
    return metrics.RunData.from_frames(manifest, cat(hands), cat(games)), cat(hands), cat(games)


def test_by_table_estimates_equal_plain_pandas_and_add_up_to_the_profile():
    run, hands, games = _run({("base", "casual"): SPEC, ("base", "strong"): {**SPEC, "mean_hands": 8},
                              ("other", "casual"): {**SPEC, "kalooki_rate": 0.1}}, rows=4_000)
    res = metrics.compute(run)
    by = res.by_table.set_index(["profile", "table", "metric"])
    assert metrics.tables_of(run) == ["casual", "strong"]
    assert set(by.index.droplevel(2)) == {("base", "casual"), ("base", "strong"), ("other", "casual")}
    for (profile, table), h in hands.groupby(["profile", "table"]):
        g = games[(games["profile"] == profile) & (games["table"] == table)]
        played = h[~h["void"] & ~h["stalled"]]
        deals = played.drop_duplicates(["game_id", "hand_no", "redeal_no"])
        kalooki = (played["won"] & (played["win_type"] == "kalooki")).sum()
        hands_per_game = g.drop_duplicates("game_id")["hands_played"].mean()
        assert by.loc[(profile, table, "kalooki_per_hand"), "estimate"] == pytest.approx(kalooki / len(deals))
        assert by.loc[(profile, table, "hands_per_game"), "estimate"] == pytest.approx(hands_per_game)
        assert by.loc[(profile, table, "share_never_opened"), "estimate"] == pytest.approx(
            (~played["opened"]).mean())
        assert by.loc[(profile, table, "hands_per_game"), "games"] == g["game_id"].nunique()
    # the profile's cells are its compositions' cells added up, exactly (the cumulative metric's cells
    # past a composition's last round are its FINAL cell, so a plain sum leaves them out)
    whole = run.summary.moments.set_index(summaries.KEYS)
    by_table = run.summary.by_table.moments
    parts = by_table[by_table["metric"] != summaries.CUMULATIVE].assign(
        profile=lambda m: m["profile"].map(lambda c: run.summary.by_table.compositions[c][0]))
    parts = parts.groupby(summaries.KEYS)[summaries.MOMENTS].sum()
    mine = whole.loc[parts.index, summaries.MOMENTS]
    assert np.allclose(mine.to_numpy(dtype=float), parts.to_numpy(dtype=float))
    summary = res.summary.set_index(["profile", "metric"])
    assert summary.loc[("base", "hands_per_game"), "estimate"] == pytest.approx(
        games[games["profile"] == "base"].drop_duplicates("game_id")["hands_played"].mean())


def _judged(run):
    res = metrics.compute(run)
    judged, by_table = report.judge_with_robustness(res, "base", findings.load_thresholds())
    return res, judged.set_index("metric"), by_table


def test_one_composition_reversing_a_difference_is_marked_as_depending_on_play_strength(figures_not_rasterised):
    # games last 16 hands against 12 at casual tables, 8 against 12 at strong ones: opposite directions
    run, _, _ = _run({("base", "casual"): SPEC, ("base", "strong"): SPEC,
                      ("other", "casual"): {**SPEC, "mean_hands": 16}, ("other", "strong"): {**SPEC, "mean_hands": 8}},
                     rows=4_000)
    res, judged, by_table = _judged(run)
    mark = judged.loc["hands_per_game", "robustness"]
    assert mark.startswith(findings.DEPENDS), mark
    assert "casual +" in mark and "strong -" in mark
    rows = by_table[by_table["metric"] == "hands_per_game"].set_index("table")
    assert rows.loc["casual", "difference"] > 2 and rows.loc["strong", "difference"] < -2
    found = report.findings_list(res, judged.reset_index(), "base", findings.load_thresholds())
    assert found[0].topic == "Play strength" and "depend on play strength" in found[0].text
    assert "hands per game" in found[0].text.lower()
    html = report.build_report(res, "base").to_html()
    assert "By table composition" in html and "⚠</small>" in html


def test_differences_that_agree_at_every_composition_are_robust(figures_not_rasterised):
    run, _, _ = _run({("base", "casual"): SPEC, ("base", "strong"): SPEC,
                      ("other", "casual"): {**SPEC, "mean_hands": 16}, ("other", "strong"): {**SPEC, "mean_hands": 16}},
                     rows=4_000)
    res, judged, _ = _judged(run)
    assert judged.loc["hands_per_game", "verdict"] == findings.HIGHER
    assert judged.loc["hands_per_game", "robustness"] == findings.ROBUST
    found = report.findings_list(res, judged.reset_index(), "base", findings.load_thresholds())
    assert "no difference from the baseline is shown to depend on play strength" in found[0].text
    assert "Clear differences that hold at every composition: other hands per game" in found[0].text


def test_a_single_composition_says_robustness_is_not_assessed_once(figures_not_rasterised):
    run, _, _ = _run({("base", "casual"): SPEC, ("other", "casual"): {**SPEC, "mean_hands": 16}}, rows=4_000)
    res, judged, by_table = _judged(run)
    assert by_table.empty and set(judged["robustness"]) == {findings.ONE_TABLE}
    html = report.build_report(res, "base").to_html()
    assert html.count("robustness not assessed") == 1 and "By table composition" not in html


def _by_table(metric: str, kind: str, *diffs, profile: str = "other") -> pd.DataFrame:
    """Judged per-composition rows of one difference: (table, difference, 95% interval half-width), each
    on 500 games a side (a t interval on 10,000 degrees of freedom), one Holm family over them."""
    z = sps.t.ppf(0.975, 10_000)
    rows = pd.DataFrame([{"table": t, "profile_a": "base", "profile_b": profile, "metric": metric, "kind": kind,
                          "estimate_a": 1.0, "estimate_b": 1.0 + d, "difference": d, "diff_ci_low": d - h,
                          "diff_ci_high": d + h, "diff_se": h / z, "diff_df": 10_000.0, "p_value": 0.01,
                          "in_family": True, "games_a": 500, "games_b": 500} for t, d, h in diffs])
    return findings.judge(rows, findings.load_thresholds())


def _mark(metric, kind, *diffs):
    return findings.robustness_mark(_by_table(metric, kind, *diffs), metric, kind)


def test_compositions_shown_to_disagree_depend_on_play_strength():
    hands = lambda *d: _mark("hands_per_game", "mean", *d)  # threshold 0.5 hands
    # clear in opposite directions
    assert hands(("casual", 2.0, 0.3), ("strong", -2.0, 0.3)) == (
        f"{findings.DEPENDS}: at casual +2.00, higher; at strong -2.00, lower")
    # clear at one composition, practically equivalent at the other: the size changes, not the direction
    # (no play strength known for these compositions, so not said to follow it)
    assert hands(("casual", 2.0, 0.3), ("strong", 0.05, 0.2)) == (
        f"{findings.SAME_DIRECTION}: at casual +2.00, higher; at strong +0.05, practically equivalent")
    # the same verdict, but 3.0 apart with that gap clearly past the threshold: the size changes
    assert hands(("casual", 5.0, 0.3), ("strong", 2.0, 0.3)) == (
        f"{findings.SAME_DIRECTION}: at casual +5.00, higher; at strong +2.00, higher")
    # one contradiction among three compositions: the two named
    three = hands(("casual", 2.0, 0.3), ("mixed", 0.5, 4.0), ("strong", -2.0, 0.3))
    assert three == f"{findings.DEPENDS}: at casual +2.00, higher; at strong -2.00, lower"


def test_compositions_that_establish_nothing_never_depend_on_play_strength():
    """Swedish against kalooki40, Kalookis per 1,000 hands (threshold 2): greedy -1.7 [-3.6, +0.2], expert
    -0.6 [-2.2, +1.0], lookahead +2.2 [-0.3, +4.7]: no composition establishes anything, and the gap
    between greedy and lookahead (3.9, its interval reaching inside the threshold) does not either."""
    rows = _by_table("kalooki_per_hand", "proportion", ("greedy", -0.0017, 0.0019), ("expert", -0.0006, 0.0016),
                     ("lookahead", 0.0022, 0.0025))
    assert set(rows["verdict"]) == {findings.NOT_ESTABLISHED}
    gaps = findings.composition_gaps(rows)
    assert len(gaps) == 3 and not gaps["apart"].any()
    assert findings.robustness_mark(rows, "kalooki_per_hand", "proportion") == findings.NOWHERE
    judged = findings.judge(pd.DataFrame([{**rows.iloc[0].to_dict(), "difference": 0.0, "estimate_b": 1.0,
                                           "diff_ci_low": -0.0011, "diff_ci_high": 0.0011,
                                           "diff_se": 0.0011 / 1.96}]).drop(columns=["table"]),
                            findings.load_thresholds())
    marked = findings.robustness(judged, rows, ["greedy", "expert", "lookahead"])
    assert marked.loc[0, "robustness"] == findings.NOWHERE
    found = findings.robustness_finding(marked, ["greedy", "expert", "lookahead"])
    assert "no difference from the baseline is shown to depend on play strength" in found.text
    assert "1 not established at any composition" in found.text and not found.stated


def test_robust_unsettled_and_not_assessed_marks():
    hands = lambda *d: _mark("hands_per_game", "mean", *d)
    assert hands(("casual", 2.0, 0.3), ("strong", 2.2, 0.3)) == findings.ROBUST
    assert hands(("casual", 0.05, 0.2), ("strong", -0.05, 0.2)) == findings.ROBUST  # equivalent at both
    assert hands(("casual", 2.0, 0.3), ("strong", 1.0, 2.0)) == (
        f"{findings.UNSETTLED}: casual higher; strong {findings.NOT_ESTABLISHED}")
    few = _by_table("hands_per_game", "mean", ("casual", 2.0, 0.3), ("strong", -2.0, 0.3)).assign(games_b=[500, 10])
    assert findings.robustness_mark(few, "hands_per_game", "mean").startswith(findings.NOT_ASSESSED)


def test_an_old_run_without_a_table_column_is_one_composition_named_from_its_bots(tmp_path):
    run_dir = bench_report.synthesize_run(tmp_path / "run", 20_000, seed=2, profiles={"kalooki40": SPEC},
                                          summaries=False)  # an old run: no summary files either
    import pyarrow.parquet as pq
    for path in (tmp_path / "run").rglob("*.parquet"):
        table = pq.read_table(path)
        pq.write_table(table.drop_columns(["table"]), path)
    res = metrics.compute(metrics.load_run(run_dir))
    assert set(res.by_table["table"]) == {",".join(SPEC["bots"])}
    assert metrics.tables_of(res.run) == [",".join(SPEC["bots"])]


def test_a_run_read_shard_by_shard_has_the_by_table_numbers_of_all_its_rows_at_once(tmp_path):
    import pyarrow.parquet as pq
    # the rows are rewritten below, so the run is written without summary files (they would hold the old rows)
    run_dir = bench_report.synthesize_run(tmp_path / "run", 12_000, seed=4, shard_rows=3_000, summaries=False)
    for path in (tmp_path / "run").rglob("*.parquet"):  # games alternate between two compositions
        table = pq.read_table(path)
        names = np.where(table.column("game_id").to_numpy() % 3 == 0, "strong", "casual")
        pq.write_table(table.set_column(table.schema.get_field_index("table"), "table", pa.array(names)), path)
    sharded = metrics.compute(metrics.load_run(run_dir)).by_table
    hands, games = (metrics.load.load_table(run_dir, t) for t in ("hands", "games"))
    manifest = metrics.load.read_manifest(run_dir)
    whole = metrics.compute(metrics.RunData.from_frames(manifest, hands, games)).by_table
    assert len(manifest["shards"]) > 2 and set(sharded["table"]) == {"casual", "strong"}
    key = ["profile", "table", "metric"]
    a, b = sharded.set_index(key).sort_index(), whole.set_index(key).sort_index()
    assert a.index.equals(b.index)
    assert np.allclose(a["estimate"].astype(float), b["estimate"].astype(float), equal_nan=True)
    assert np.allclose(a["ci_high"].astype(float), b["ci_high"].astype(float), equal_nan=True)


def test_a_paired_run_keeping_per_game_sums_pairs_the_differences_within_each_composition():
    specs = {("base", "casual"): SPEC, ("base", "strong"): SPEC, ("other", "casual"): {**SPEC, "kalooki_rate": 0.08},
             ("other", "strong"): {**SPEC, "kalooki_rate": 0.08}}
    plain, hands, games = _run(specs, rows=6_000, paired=True)  # game g of each profile: same composition
    run = metrics.RunData.from_frames(plain.manifest, hands, games, keep_games=True)
    diffs = report.table_differences(metrics.compute(run), "base")
    tested = diffs[diffs["p_value"].notna()]
    assert set(tested["table"]) == {"casual", "strong"}
    assert tested["design"].str.startswith("paired by game").all(), set(tested["design"])
    unpaired = report.table_differences(metrics.compute(plain), "base")  # no per-game sums kept
    assert unpaired.loc[unpaired["p_value"].notna(), "design"].eq("independent samples").all()
