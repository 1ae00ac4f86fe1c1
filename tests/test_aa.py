"""The A/A check: `british` and `kalooki40` differ only in how the cards are dealt (the packet deal
gives the same distribution), so `compare` must flag nothing after its multiple-testing correction.

CI runs a small size; `make soak` (slow) runs the default size of `configs/runs/default.toml`.
"""
import os

import pytest

from analysis.compare import compare
from sim import runner


def _aa(tmp_path, games):
    out = tmp_path / "aa"
    cfg = runner.make_config(None, None, profiles=["kalooki40", "british"], games=games, seed=11, out=str(out),
                             shard_games=max(games // 2, 1))
    runner.run_local(cfg, progress=False, log=lambda m: None)
    table = compare(out, profiles=("kalooki40", "british"))
    tested = table[table["p_value"].notna()]
    assert len(tested) >= 10, "the comparison must test the headline metrics"
    flagged = tested[tested["significant"].astype(bool)]
    assert flagged.empty, flagged[["metric", "estimate_a", "estimate_b", "p_value", "p_adjusted"]].to_string()
    return table


def test_aa_british_vs_kalooki40_flags_nothing(tmp_path):
    _aa(tmp_path, games=int(os.environ.get("KALOOKI_AA_GAMES", "40")))


@pytest.mark.slow
def test_aa_at_default_run_size(tmp_path):
    from pathlib import Path
    default = Path(__file__).resolve().parent.parent / "configs" / "runs" / "default.toml"
    _aa(tmp_path, games=runner.read_run_config(default)["games"])
