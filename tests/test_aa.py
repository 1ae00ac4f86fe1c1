"""The A/A check: `british` and `kalooki40` differ only in how the cards are dealt (the packet deal
gives the same distribution), so `compare` must flag nothing after its multiple-testing correction.

CI runs a small size; `make soak` (slow) runs the default size of `configs/runs/default.toml`, and
200 A/A comparisons of small runs of one profile, each metric flagged (p < 0.05, before correction)
close to 5% of the time (`python tests/test_aa.py 200` prints the rates).
"""
import os

import pytest

from analysis.compare import compare
from analysis.summaries import write_shard_summary
from sim import runconfig, runner

pytestmark = pytest.mark.usefixtures("figures_not_rasterised_in_module")  # figures drawn, not rendered: no test reads them


def _aa(tmp_path, games):
    out = tmp_path / "aa"
    cfg = runconfig.make_config(None, None, profiles=["kalooki40", "british"], games=games, seed=11, out=str(out),
                                shard_games=max(games // 2, 1))
    runner.run_local(cfg, summarise=write_shard_summary, progress=False, log=lambda m: None)
    table = compare(out, profiles=("kalooki40", "british"))
    tested = table[table["in_family"]]
    assert len(tested) >= 10, "the comparison must test the headline metrics"
    flagged = tested[tested["significant"].astype(bool)]
    assert flagged.empty, flagged[["metric", "estimate_a", "estimate_b", "p_value", "p_adjusted"]].to_string()
    return table


def test_aa_british_vs_kalooki40_flags_nothing(tmp_path):
    _aa(tmp_path, games=int(os.environ.get("KALOOKI_AA_GAMES", "40")))


@pytest.mark.soak
def test_aa_at_default_run_size(tmp_path):
    from pathlib import Path
    default = Path(__file__).resolve().parent.parent / "configs" / "runs" / "default.toml"
    _aa(tmp_path, games=runconfig.read_run_config(default)["games"])


def aa_flag_rates(tmp_path, comparisons: int = 200, games: int = 50, seed: int = 2026, profile: str = "kalooki40"):
    """`comparisons` A/A comparisons of two small runs of `games` games each of one profile: a run of
    2 x comparisons shards of `games` games (every game dealt from its own seed key, so two shards are
    two independent runs of the profile), compared pairwise with compare's statistics.  Returns the
    share of comparisons each tested metric flags at p < 0.05 before correction, and the comparisons'
    tables."""
    import numpy as np
    import pandas as pd

    from analysis import compare as cmp
    from analysis import load, metrics, summaries

    out = tmp_path / "aa-many"
    cfg = runconfig.make_config(None, None, profiles=[profile], games=2 * comparisons * games, seed=seed, out=str(out),
                                shard_games=games)
    runner.run_local(cfg, summarise=write_shard_summary, progress=False, log=lambda m: None)
    manifest = load.read_manifest(out)
    results = []
    for name, hands, games_file in summaries._shard_files(out, manifest, [profile], ()):
        summary = summaries.collapse(summaries._summarise_files(name, hands, games_file, manifest, False))
        results.append(metrics.compute(metrics.RunData(manifest, summary, [profile])))
    tables = [cmp.compare_results(a, b, [(profile, profile)]) for a, b in zip(results[0::2], results[1::2])]
    both = pd.concat(tables, ignore_index=True)
    tested = both[both["p_value"].notna() & both["in_family"]]
    rates = tested.groupby("metric")["p_value"].agg(flag_rate=lambda p: float(np.mean(p < 0.05)), tests="count")
    # calibration of the standard error itself: the spread of the 200 differences over the typical
    # standard error the test used (1 when the standard errors are right)
    se = (tested["diff_ci_high"] - tested["diff_ci_low"]) / (2 * 1.96)
    spread = tested.assign(se2=se ** 2).groupby("metric").agg(sd=("difference", "std"), se2=("se2", "mean"))
    rates["sd_over_se"] = spread["sd"] / np.sqrt(spread["se2"])
    return rates, both


@pytest.mark.soak
def test_aa_flags_about_five_percent_per_metric(tmp_path):
    """200 A/A comparisons: each metric is flagged (p < 0.05, before correction) close to 5% of the
    time.  With 200 comparisons a true 5% rate lands in [1%, 10.5%] with probability above 99%."""
    comparisons = int(os.environ.get("KALOOKI_AA_COMPARISONS", "200"))
    rates, _ = aa_flag_rates(tmp_path, comparisons=comparisons)
    print("\n" + rates.to_string())
    print(f"mean flag rate over {len(rates)} metrics: {rates['flag_rate'].mean():.3f}")
    common = rates[rates["tests"] >= 0.9 * comparisons]  # rare events (stalled hands) are often constant
    assert len(common) >= 12, rates
    assert common["flag_rate"].between(0.01, 0.105).all(), rates
    assert 0.03 <= common["flag_rate"].mean() <= 0.075, rates
    assert common["sd_over_se"].between(0.8, 1.2).all(), rates


if __name__ == "__main__":  # python tests/test_aa.py [COMPARISONS]: print the A/A flag rates
    import sys
    import tempfile
    from pathlib import Path
    with tempfile.TemporaryDirectory() as tmp:
        rates, _ = aa_flag_rates(Path(tmp), comparisons=int(sys.argv[1]) if len(sys.argv) > 1 else 200)
        print(rates.to_string())
        print(f"mean flag rate over {len(rates)} metrics: {rates['flag_rate'].mean():.3f}")
