"""The engine benchmark's bookkeeping (never its speeds): which path a table's hands took, each table's
goal, the baseline commit's extraction or the note that replaces it, and the turn-taking comparison
(its shape, its refusal of a tree without its own code, and which table each goal is timed against)."""
import subprocess

import numpy as np

from bench import engine as bench_engine
from bench.engine import GREEDY, Baseline, goal, hands_per_second, path_taken
from sim.bots import compiled_hand_loop, make_bot


def test_hands_per_second_reports_the_path_the_product_gives_each_table():
    for bots in (GREEDY, ("random",) * 4, ("patient", "greedy", "greedy", "greedy")):
        players = [make_bot(b, np.random.default_rng(i)) for i, b in enumerate(bots)]
        product = hands_per_second(bots=bots, seconds=0.05, fast=True)
        assert product["hands"] > 0
        if compiled_hand_loop(players) is None:
            assert product["compiled_hands"] == 0 and path_taken(product) == "Python engine", bots
        else:
            assert product["compiled_hands"] > 0 and path_taken(product).startswith("compiled"), bots
    python = hands_per_second(bots=GREEDY, seconds=0.05, fast=False)
    assert python["compiled_hands"] == 0 and path_taken(python) == "Python engine"
    assert path_taken(dict(hands=4, compiled_hands=4)) == "compiled"
    assert path_taken(dict(hands=4, compiled_hands=1)) == "compiled 25%"


def test_goals_are_shares_of_the_greedy_loop_and_a_mixed_table_its_slowest_bot():
    figures = {GREEDY: 3000.0, ("expert",) * 4: 280.0, ("patient",) * 4: 1600.0}
    assert goal(("expert",) * 4, figures)["goal_hands_per_s"] == 1000.0
    assert goal(("lookahead",) * 4, figures)["goal"] == ">= 1/8"
    assert goal(("random",) * 4, figures)["goal_hands_per_s"] == 1500.0
    mixed = goal(("expert", "greedy", "greedy", "greedy"), figures)
    assert (mixed["slowest"], mixed["goal_hands_per_s"]) == ("expert x4", 280.0)
    assert goal(("patient", "greedy", "greedy", "greedy"), figures)["slowest"] == "patient x4"
    assert goal(("lookahead", "greedy", "greedy", "greedy"), figures)["goal"] is None  # lookahead x4 not measured


def test_baseline_extracts_a_known_commit_and_names_why_it_cannot(tmp_path):
    in_git = subprocess.run(["git", "-C", str(bench_engine.REPO), "rev-parse", "HEAD"], capture_output=True)
    head = Baseline("HEAD")
    note = head.open()
    tree = head.tree
    try:
        if in_git.returncode == 0:
            committed = subprocess.run(["git", "-C", str(bench_engine.REPO), "show", "HEAD:bench/engine.py"],
                                       capture_output=True, check=True).stdout
            assert note is None and (tree / "bench" / "engine.py").read_bytes() == committed
        else:
            assert "not a git checkout" in note
    finally:
        head.close()
    assert tree is None or not tree.exists()
    if in_git.returncode == 0:
        assert "does not know the revision 'no-such-rev'" in Baseline("no-such-rev").open()
    assert "is not a git checkout" in Baseline("HEAD", repo=tmp_path).open()


def test_by_turns_times_two_trees_on_the_same_hands_and_names_why_it_cannot(tmp_path):
    r = bench_engine.by_turns({"a": (bench_engine.REPO, {}), "b": (bench_engine.REPO, {}, ("random",) * 4)},
                              hands=2, pairs=4)
    assert isinstance(r, dict), r
    assert (r["pairs"], r["hands"], len(r["ratios"])) == (4, 2, 4)
    assert r["ratios"] == sorted(r["ratios"]) and all(x > 0 for x in r["ratios"])
    assert r["quartiles"][0] <= r["median"] <= r["quartiles"][1]
    assert r["pinned"] is None or isinstance(r["pinned"], int)
    # a tree that has no sim of its own (here, not even the bench) gives a reason, not a figure
    missing = bench_engine.by_turns({"a": (bench_engine.REPO, {}), "empty": (tmp_path, {})}, hands=2, pairs=2)
    assert isinstance(missing, str) and missing.startswith("empty "), missing


def test_tables_by_turns_sets_each_table_against_its_goal(monkeypatch):
    speed = {"greedy x4": 1.0, "random x4": 1.2, "patient x4": 0.9, "expert x4": 0.5, "lookahead x4": 0.1,
             "search x4": 0.004, "expert,greedy,greedy,greedy": 0.7, "patient,greedy,greedy,greedy": 0.85}
    asked = []

    def fake(trees, hands, pairs):
        (a, _), (b, _) = trees.items()
        asked.append((a, b))
        return dict(median=speed[b] / speed[a], quartiles=(0, 9), ratios=[], pairs=pairs, hands=hands, pinned=None)
    monkeypatch.setattr(bench_engine, "by_turns", fake)
    rows = {r["table"]: r for r in bench_engine.tables_by_turns(hands=1, pairs=1)}
    assert set(rows) == set(speed) - {"greedy x4"}
    assert rows["expert x4"]["against"] == "greedy x4" and rows["expert x4"]["goal"] == 1 / 3
    assert rows["expert x4"]["met"] and not rows["lookahead x4"]["met"]  # 1/10 against a goal of 1/8
    # the search's table: its goal 1/300 of the greedy loop, timed in fewer and smaller pairs
    search = rows["search x4"]
    assert (search["goal"], search["met"], search["hands"], search["pairs"]) == (1 / 300, True, 4, 24)
    # a mixed table is timed against its slowest bot's table, and must be at least as fast
    assert rows["expert,greedy,greedy,greedy"]["against"] == "expert x4" and rows["expert,greedy,greedy,greedy"]["met"]
    patient = rows["patient,greedy,greedy,greedy"]
    assert (patient["against"], patient["met"]) == ("patient x4", False)  # 0.85 < 0.9
    assert ("greedy x4", "greedy x4") not in asked
