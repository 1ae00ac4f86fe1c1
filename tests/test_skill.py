"""`kalooki skill` on the engine: the study's tables, known cases (two names for one player: no skill;
the expert against the random bot: mostly skill), the command's files, resumption and refusals,
and an A/A (one profile, two seeds: the measures agree within their intervals)."""
import json

import pandas as pd
import pytest

from analysis import findings, skill as S
from sim.cli import main
from sim.errors import UserError
from sim.skill import tables_for

pytestmark = pytest.mark.usefixtures("figures_not_rasterised_in_module")  # figures drawn, not rendered: no test reads them


def _skill(tmp_path, *args, out="run"):
    argv = ["skill", "--local", "-q", "--out", str(tmp_path / out), "--json", *args]
    return main(argv)


def _measures(capsys):
    data = json.loads(capsys.readouterr().out)
    return {p: {m["measure"]: m for m in r["measures"]} for p, r in data["profiles"].items()}


def test_tables_seat_every_subset_or_repeat_a_short_set():
    assert [t["bots"] for t in tables_for(["a", "b", "c", "d", "e"])] == [
        "a,b,c,d", "a,b,c,e", "a,b,d,e", "a,c,d,e", "b,c,d,e"]
    assert [t["bots"] for t in tables_for(["a", "b"])] == ["a,b,a,b"]
    with pytest.raises(UserError, match="named twice"):
        tables_for(["a", "a", "b"])


def test_two_names_for_one_player_show_no_skill(tmp_path, capsys):
    """expert and expert@0 play alike: in every deal each holds each seat equally often, so every
    head-to-head result is matched by its mirror."""
    assert _skill(tmp_path, "--profile", "east_coast", "--players", "expert,expert@0", "--games", "24",
                  "--boot", "20") == 0
    m = _measures(capsys)["east_coast"]
    assert m["spread"]["estimate"] == pytest.approx(0.0, abs=1e-6)
    assert m["spread"]["ci_high"] == pytest.approx(0.0, abs=1e-6)
    assert m["luck_share"]["estimate"] >= 1.0  # no more predicted than by chance
    assert m["coin_flip_share"]["estimate"] == 1.0
    assert m["adjacent_win"]["estimate"] == pytest.approx(0.5, abs=1e-6)


def test_the_expert_against_random_play_is_mostly_skill(tmp_path, capsys):
    """32 kalooki40 games: the expert finishes ahead of the random bot far more often than chance gives, and
    chance explains far less of the results than in the chance benchmark (each measure's interval clear of
    the benchmark's)."""
    assert _skill(tmp_path, "--profile", "kalooki40", "--players", "expert,random", "--games", "32",
                  "--boot", "50") == 0
    m = _measures(capsys)["kalooki40"]
    assert m["adjacent_win"]["ci_low"] > max(0.75, m["adjacent_win"]["chance_high"])
    assert m["luck_share"]["ci_high"] < min(0.75, m["luck_share"]["chance_low"])
    assert m["spread"]["ci_low"] > 1.0


def test_files_resume_and_refit_the_same(tmp_path, capsys):
    args = ["--profile", "east_coast", "--players", "expert,expert@0.5,greedy", "--games", "16", "--boot", "10"]
    assert _skill(tmp_path, *args) == 0
    first = capsys.readouterr().out
    skill_dir = tmp_path / "run" / "skill" / "skill"
    meta = json.loads((skill_dir / "skill.json").read_text())
    assert set(meta["files"]) == {"players", "measures", "replicates", "leave_one_out"}
    assert meta["deals"] == {"east_coast": 4}
    players = pd.read_parquet(skill_dir / "players.parquet")
    assert sorted(players["player"]) == ["expert", "expert@0.5", "greedy"]
    assert len(pd.read_parquet(skill_dir / "replicates.parquet")) == 10
    assert _skill(tmp_path, *args) == 0  # the run is complete: nothing replayed, the same fit
    assert capsys.readouterr().out == first


@pytest.mark.parametrize("args, says", [
    (["--games", "6"], "--games 6: each deal is played once per rotation of the 4 seats"),
    (["--players", "expert"], "at least 2 players"),
    (["--players", "expert,expert@5"], "outside 0..1"),
    (["--players", "expert,wizard"], "unknown bot 'wizard'"),
    (["--boot", "-1"], "--boot -1"),
    (["--shard-games", "6"], "--shard-games 6"),
])
def test_bad_input_is_refused_before_anything_is_written(tmp_path, capsys, args, says):
    assert _skill(tmp_path, "--profile", "east_coast", "--games", "8", *args) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1
    assert not (tmp_path / "run").exists()


@pytest.mark.slow
def test_aa_two_seeds_agree_within_their_intervals(tmp_path, capsys):
    args = ["--profile", "kalooki40", "--players", "expert,expert@0.3,greedy", "--games", "400", "--boot", "200"]
    runs = []
    for seed in ("1", "2"):
        assert _skill(tmp_path, *args, "--seed", seed, out=f"seed{seed}") == 0
        runs.append(_measures(capsys)["kalooki40"])
    fits = [S.find_fit(tmp_path / f"seed{s}") for s in ("1", "2")]
    pair = [(fits[0], "kalooki40", fits[1], "kalooki40")]
    diff = S.compare_fits(pair, findings.default_thresholds()).set_index("measure")
    assert (diff["design"] == "independent").all()
    for name in ("spread", "adjacent_win", "luck_share", "coin_flip_share"):
        a, b = runs[0][name], runs[1][name]
        assert a["ci_low"] <= b["ci_high"] and b["ci_low"] <= a["ci_high"], name
        assert diff.loc[name, "diff_ci_low"] <= 0 <= diff.loc[name, "diff_ci_high"], name
