"""Every run `kalooki simulate` writes can be reported and compared: one profile or several, one table
composition or two, paired or not, profiles without money or without elimination.  The runs are made
by the real command (in-process, --local, tens of games); each report and comparison must exit 0 and
say what its run can tell, and each comparison the tool cannot make must exit 2 saying what to do."""
from __future__ import annotations

import re

import pandas as pd
import pytest

from analysis import compare, findings
from sim import cli

# every test reads what a report or comparison says; the figures' own tests render them
pytestmark = pytest.mark.usefixtures("figures_not_rasterised")

TABLES = ('players = 4\ntables = [{name = "greedy", bots = "greedy,greedy,greedy,greedy", weight = 1}, '
          '{name = "expert", bots = "expert,expert,expert,expert", weight = 1}]\n')


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("shapes")
    config = root / "tables.toml"
    config.write_text(TABLES)
    made = {
        "one": ["--profile", "kalooki40", "--games", "20", "--seed", "2"],
        # kalooki51 has no money and no elimination; east_coast ends every game after one hand
        "many": ["--profile", "kalooki40", "--profile", "kalooki51", "--profile", "east_coast", "--games", "20",
                 "--seed", "1", "--bots", "greedy,expert,greedy,expert"],
        "tables": ["--config", str(config), "--profile", "kalooki40", "--games", "40", "--seed", "1"],
        "paired": ["--config", str(config), "--profile", "kalooki40", "--profile", "swedish", "--paired",
                   "--games", "40", "--seed", "1"],
    }
    for name, args in made.items():
        assert cli.main(["simulate", *args, "--out", str(root / name), "--local", "-q"]) == 0, name
    return root


def _report(runs, name, capsys) -> tuple[str, pd.DataFrame | None]:
    out = runs / f"report-{name}"
    assert cli.main(["report", str(runs / name), "--out", str(out)]) == 0
    assert "Traceback" not in capsys.readouterr().err
    judged = out / "data" / "differences_from_baseline.csv"
    return (out / "report.md").read_text(), pd.read_csv(judged) if judged.exists() else None


def _findings(markdown: str) -> dict[str, str]:
    """Each topic's finding in full (under Findings in full), after checking that the one-minute list
    under Findings has the same topics, each one line linked to its full text."""
    short = markdown[markdown.index("## Findings\n"):markdown.index("## Headline metrics")]
    lines = dict(re.findall(r"^- \*\*(.+?)\.\*\* (.*)$", short, flags=re.M))
    part = markdown[markdown.index("## Findings in full"):]
    full = dict(re.findall(r'^<a id="finding-[a-z-]+"></a>\*\*(.+?)\.\*\* (.*)$', part, flags=re.M))
    assert list(lines) == list(full) and lines, (lines, full)
    for topic, line in lines.items():
        assert line.endswith(f"[more](#finding-{topic.lower().replace(' ', '-')})") and len(line) < 220, line
    return full


def test_one_profile_at_two_compositions_reports_each_composition(runs, capsys):
    markdown, judged = _report(runs, "tables", capsys)
    assert judged is None  # one profile: no differences from a baseline
    found = _findings(markdown)
    assert found["Play strength"].startswith("Across 2 table compositions (greedy, expert): one profile, so no "
                                             "difference from a baseline")
    assert found["Bot advantage"] == "kalooki40: not measured (no table seats two different bots)."
    by_table = markdown[markdown.index("## By table composition"):markdown.index("## Figures")]
    assert "The run has one profile" in by_table
    assert "| Metric | Profile | greedy | expert |" in by_table and "<details>" not in by_table


def test_several_profiles_with_and_without_money_and_elimination_report(runs, capsys):
    markdown, judged = _report(runs, "many", capsys)
    found = _findings(markdown)
    assert found["Money"].endswith("kalooki51: not applicable (no money changes hands).")
    assert "kalooki51, east_coast: not applicable (no such events)" in found["Elimination"]
    assert found["Bot advantage"].startswith("kalooki40: ")  # greedy and expert share every table
    assert set(judged["profile_b"]) == {"kalooki51", "east_coast"}
    tested = judged[judged["in_family"]]
    assert len(tested) > 10 and tested["verdict"].isin(findings.THREE_WAY).all()
    untested = judged[~judged["in_family"]]
    assert untested["verdict"].isin([findings.NOT_APPLICABLE, findings.NOT_TESTED]).all()
    east = judged[(judged["profile_b"] == "east_coast") & (judged["metric"] == "hands_per_game")].iloc[0]
    assert east["estimate_b"] == 1.0 and east["verdict"] == findings.LOWER
    assert "no practical difference" not in markdown


def test_a_paired_run_at_two_compositions_reports_and_compares(runs, capsys):
    markdown, judged = _report(runs, "paired", capsys)
    assert "## By table composition" in markdown and _findings(markdown)["Play strength"].startswith(
        "Across 2 table compositions (greedy, expert): ")
    assert judged["design"].str.startswith("paired by game").any()
    assert cli.main(["compare", str(runs / "paired"), "--out", str(runs / "cmp-paired")]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("A = kalooki40, B = swedish")
    assert "design: kalooki40 vs swedish: paired by game" in printed
    assert "unclear: not established" in printed


def test_two_runs_compare_their_common_profile_and_name_what_one_side_lacks(runs, capsys):
    assert cli.main(["compare", str(runs / "paired"), str(runs / "one"), "--out", str(runs / "cmp-po")]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[:2] == ["Not compared (in one run only): A: swedish; compare one of them with --profiles A,B.",
                           f"A = kalooki40 ({runs / 'paired'}), B = kalooki40 ({runs / 'one'})"]
    page = (runs / "cmp-po" / "report.md").read_text()
    assert "Not compared (in one run only): A: swedish" in page


def test_a_run_made_again_from_the_same_configuration_is_compared_saying_it_is_the_same_games(runs, tmp_path):
    import json
    import shutil
    again = tmp_path / "again"
    shutil.copytree(runs / "one", again)
    manifest = json.loads((again / "manifest.json").read_text())
    for shard in manifest["shards"]:
        shard["seconds"] += 1.0  # made again: the same rows, other timings
    (again / "manifest.json").write_text(json.dumps(manifest))
    made = compare._compare(runs / "one", again)
    assert made.notes == [f"RUN_A and RUN_B were made from the same configuration (run_id {manifest['run_id']}): "
                          "a profile against itself is the same games, so its differences are 0 and not tested."]
    assert not made.table["in_family"].any()


@pytest.mark.parametrize("args, message", [
    (["many"], "run {many} holds 3 profiles (kalooki40, kalooki51, east_coast); name the two to compare with "
               "--profiles A,B, or see every profile against a baseline with kalooki report {many}"),
    (["one"], "run {one} holds one profile (kalooki40); compare it with another run: kalooki compare {one} RUN_B"),
    (["one", "one"], "RUN_A and RUN_B are the same run {one} (run_id "),
    (["many", "many"], "Compare two different runs, or two profiles of this one: kalooki compare {many} "
                       "--profiles A,B (it has kalooki40, kalooki51, east_coast)"),
    (["many", "--profiles", "east_coast,east_coast"], "--profiles east_coast,east_coast compares a profile of one "
                                                      "run with itself"),
])
def test_compare_refuses_what_says_nothing_and_says_what_to_do(runs, capsys, args, message):
    named = {name: str(runs / name) for name in ("one", "many")}
    argv = [named.get(a, a) for a in args]
    out = runs / "refused"
    assert cli.main(["compare", *argv, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert message.format(**named) in err and "Traceback" not in err
    assert not out.exists()


def test_a_run_of_one_game_says_what_it_cannot_test(tmp_path):
    run = tmp_path / "tiny"
    assert cli.main(["simulate", "--profile", "kalooki40", "--profile", "swedish", "--games", "1", "--seed", "1",
                     "--out", str(run), "--local", "-q"]) == 0
    made = compare._compare(run)
    assert made.notes == ["No difference could be tested: a side has fewer than 2 games (games: kalooki40 1 vs "
                          "swedish 1)."]
    from analysis import metrics, report
    res = metrics.compute(metrics.load_run(run))
    thresholds = findings.load_thresholds()
    judged, _ = report.judge_with_robustness(res, "kalooki40", thresholds)
    found = {f.topic: f.text for f in report.findings_list(res, judged, "kalooki40", thresholds)}
    assert found[findings.OPENING] == "swedish: not tested (fewer than 2 games on a side)."
    assert found[findings.MONEY] == "kalooki40, swedish: not measured (fewer than 2 games)."
