"""`kalooki ladder` and its analysis: refusals, a small study end to end (duplicate deals, the same deals at
every step, resumed without playing again, the same numbers at another shard size, the report's
section), the game credit of a tie at the hand cap, the verdict rule, the measured order, and the
frontier's strong-play rungs read from it."""
import contextlib
import io
import json

import numpy as np
import pandas as pd
import pyarrow.dataset as ds
import pytest

from analysis import frontier as F
from analysis import ladder as L
from sim.cli import main

pytestmark = pytest.mark.usefixtures("figures_not_rasterised_in_module")  # figures drawn, not rendered: no test reads them


def _kalooki(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(list(argv))
    return rc, out.getvalue(), err.getvalue()


# ---------------------------------------------------------------------------------------------
# refusals: one line, status 2, nothing written


@pytest.mark.parametrize("extra, said", [
    (["--rungs", "champion"], "'champion' is not a rung of the bot ladder"),
    (["--rungs", "greedy"], "'greedy' is the bottom rung"),
    (["--rungs", "expert,expert"], "'expert' is named twice"),
    (["--games", "6"], "--games 6: each deal is played once per rotation of the 4 seats"),
    (["--games-at", "search=10"], "--games-at search=10: each deal"),
    (["--games-at", "search"], "write RUNG=N"),
    (["--rungs", "lookahead"], "'lookahead' is not a rung of the bot ladder; allowed: expert, search"),
    (["--rungs", "expert", "--games-at", "search=8"], "'search' is not a rung measured here"),
    (["--profiles", "kalooki40,nosuch"], "nosuch"),
    (["--shard-games", "6"], "--shard-games 6: a shard holds whole deals"),
])
def test_bad_input_is_refused_in_one_line_and_nothing_is_written(tmp_path, extra, said):
    profiles = [] if "--profiles" in extra else ["--profiles", "kalooki40"]
    rc, _, err = _kalooki("ladder", *profiles, "--games", "8", "--out", str(tmp_path / "run"), "--local", *extra)
    assert rc == 2 and said in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "run").exists()


def test_the_ladder_measures_the_expert_against_greedy_and_the_search_against_the_expert(tmp_path):
    """The ladder is greedy < expert < search: the lookahead, not measured stronger than the expert at
    the game, is a bot and not a rung, so no step plays it."""
    from sim import bots, ladder
    rungs = ladder.parse_rungs(None)
    assert rungs == ["expert", "search"] and "lookahead" in bots.BOTS
    study = ladder.plan(profiles=["kalooki40"], rungs=rungs, games={r: 8 for r in rungs}, seed=1,
                        out=str(tmp_path / "run"))
    assert [(s.upper, s.lower) for s in study.steps] == [("expert", "greedy"), ("search", "expert")]
    assert study.steps[1].bots == ["search", "expert", "expert", "expert"]
    assert not (tmp_path / "run").exists()  # planned, nothing written


# ---------------------------------------------------------------------------------------------
# a small study end to end


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    """A one-profile run (the report needs one), then a ladder study of the expert against three greedy
    bots in kalooki40 and kalooki51 into RUN/ladder."""
    root = tmp_path_factory.mktemp("ladder")
    run = root / "run"
    rc, _, err = _kalooki("simulate", "--profile", "kalooki40", "--profile", "kalooki51", "--games", "4", "--seed",
                          "2", "--shard-games", "4", "--out", str(run), "--local", "-q")
    assert rc == 0, err
    rc, printed, err = _kalooki("ladder", "--profiles", "kalooki40,kalooki51", "--rungs", "expert", "--games", "12",
                                "--seed", "7", "--shard-games", "4", "--out", str(run), "--local", "-q")
    assert rc == 0, err
    return root, printed


def test_every_deal_is_played_in_each_rotation_with_the_upper_rung_at_one_seat(study):
    root, printed = study
    where = root / "run" / "ladder"
    doc = json.loads((where / "ladder.json").read_text())
    assert doc["complete"] is True and doc["steps"] == [{"upper": "expert", "lower": "greedy", "games": 12,
                                                          "run": "expert"}]
    assert doc["money"] == {"kalooki40": True, "kalooki51": False}
    manifest = json.loads((where / "expert" / "manifest.json").read_text())
    assert manifest["complete"] is True and manifest["config"]["duplicate"] is True
    games = ds.dataset(where / "expert" / "games", format="parquet").to_table().to_pandas()
    hands = ds.dataset(where / "expert" / "hands", format="parquet").to_table().to_pandas()
    for _, g in games.groupby(["profile", "game_id"]):
        assert sorted(g["bot"]) == ["expert", "greedy", "greedy", "greedy"]
    upper = games[games["bot"] == "expert"].assign(deal=lambda g: g["game_id"] // 4)
    assert (upper.groupby(["profile", "deal"])["seat"].nunique() == 4).all()  # every seat once a deal
    first = hands[(hands["hand_no"] == 1) & (hands["redeal_no"] == 0)].assign(deal=lambda h: h["game_id"] // 4)
    for _, d in first.groupby(["profile", "deal"]):  # the same cards to the same seats in every rotation
        assert d.groupby("seat")["dealt_max_meld_value"].nunique().max() == 1
        assert d["game_id"].nunique() == 4
    lines = printed.splitlines()
    assert all(len(line) <= 100 for line in lines if not line.startswith("ladder: "))
    assert any(line.startswith("expert ") and "no money" in line for line in lines)  # kalooki51's row
    assert any(line.startswith("kalooki40: ") for line in lines)
    table = pd.read_csv(where / "ladder.csv")
    assert list(table.columns) == L.COLUMNS and len(table) == 2 and set(table["deals"]) == {3}


def test_the_study_resumes_without_playing_and_the_numbers_do_not_depend_on_the_shard_size(study, tmp_path):
    root, printed = study
    where = root / "run" / "ladder"
    before = json.loads((where / "expert" / "manifest.json").read_text())["shards"]
    rc, again, err = _kalooki("ladder", "--profiles", "kalooki40,kalooki51", "--rungs", "expert", "--games", "12",
                              "--seed", "7", "--shard-games", "4", "--out", str(root / "run"), "--local")
    assert rc == 0 and "nothing to play" in err, err
    assert json.loads((where / "expert" / "manifest.json").read_text())["shards"] == before
    assert again == printed
    rc, other, err = _kalooki("ladder", "--profiles", "kalooki40,kalooki51", "--rungs", "expert", "--games", "12",
                              "--seed", "7", "--shard-games", "12", "--out", str(tmp_path), "--local", "-q")
    assert rc == 0, err
    strip = lambda text: [line for line in text.splitlines() if not line.startswith("ladder: ")]  # noqa: E731
    assert strip(other) == strip(printed)


def test_a_study_of_other_settings_is_refused_without_force(study):
    root, _ = study
    rc, _, err = _kalooki("ladder", "--profiles", "kalooki40", "--rungs", "expert", "--games", "8", "--seed", "7",
                          "--out", str(root / "run"), "--local")
    assert rc == 2 and "--force" in err and len(err.strip().splitlines()) == 1, err


def test_the_report_of_the_run_shows_the_ladder(study):
    root, _ = study
    rc, _, err = _kalooki("report", str(root / "run"), "--out", str(root / "report"), "-q")
    assert rc == 0, err
    page = (root / "report" / "report.md").read_text()
    assert "## Bot ladder at the game" in page and "expert vs 3 greedy" in page
    assert "kalooki51: " in page and (root / "report" / "data" / "ladder.csv").exists()


def test_the_frontier_beside_the_ladder_takes_its_order_from_it(study, tmp_path):
    root, _ = study
    run = root / "run"
    rc, _, err = _kalooki("frontier", "--profile", "kalooki40", "--games", "2", "--rungs", "greedy,expert",
                          "--ladder", str(tmp_path / "nothing"), "--out", str(run), "--local")
    assert rc == 2 and "--ladder" in err and "no ladder study there" in err and len(err.strip().splitlines()) == 1
    assert not (run / "frontier").exists()
    rc, printed, err = _kalooki("frontier", "--profile", "kalooki40", "--profile", "kalooki51", "--games", "2",
                                "--seed", "7", "--rungs", "greedy,expert", "--out", str(run), "--local", "-q")
    assert rc == 0, err
    order = L.orders(L.load_ladder(run / "ladder"))
    flat = " ".join(printed.split())
    for profile in ("kalooki40", "kalooki51"):
        assert " ".join(order[profile].text().split()) in flat  # the order measured at the game, said plainly
    assert "by assumption" not in flat
    fr = F.load_frontier(run / "frontier", ladder=L.load_ladder(run / "ladder"))
    for profile in ("kalooki40", "kalooki51"):
        assert fr.strongest(profile) == order[profile].strongest
        assert fr.strong_rungs(profile) == (["greedy", "expert"] if order[profile].established else [])


# ---------------------------------------------------------------------------------------------
# the numbers, on rows whose answer is known


def _games(rows):
    return pd.DataFrame(rows, columns=["game_id", "seat", "n_players", "bot", "won", "final_penalty_total",
                                       "net_payment", "stalled"])


def test_a_tie_on_the_winners_total_at_the_hand_cap_shares_the_win():
    g = _games([(0, 0, 4, "a", True, 10, 0, True), (0, 1, 4, "b", False, 10, 0, True),
                (0, 2, 4, "c", False, 30, 0, True), (0, 3, 4, "d", False, 10, 0, True),
                (1, 0, 4, "a", False, 10, 0, False), (1, 1, 4, "b", True, 10, 0, False),
                (1, 2, 4, "c", False, 30, 0, False), (1, 3, 4, "d", False, 40, 0, False)])
    credit = L.game_credit(g).to_numpy()
    assert credit == pytest.approx([1 / 3, 1 / 3, 0, 1 / 3, 0, 1, 0, 0])  # level totals: a tie only at the cap


def test_the_measures_are_the_upper_rungs_and_clustered_by_deal():
    rows, hands = [], []
    rng = np.random.default_rng(0)
    for gid in range(40):  # 10 deals of 4 rotations; the upper rung "u" wins 2 of each deal's 4 games
        winner = gid % 4 if (gid % 4) < 2 else (gid + 1) % 4
        for seat in range(4):
            bot = "u" if seat == gid % 4 else "l"
            pay = 30 if seat == winner else -10
            rows.append((gid, seat, 4, bot, seat == winner, 0, pay, False))
            hands.append((gid, bot, bool(rng.random() < 0.4), False, False))
    g = _games(rows)
    h = pd.DataFrame(hands, columns=["game_id", "bot", "won", "void", "stalled"])
    m = L.measure_step(g, h, "u", money=True)
    assert m["deals"] == 10 and m["games"] == 40 and m["game_win"] == pytest.approx(0.5)
    assert m["net_payment"] == pytest.approx((2 * 30 - 2 * 10) / 4)
    # its edge: its payment minus the mean of the other three's in the same game
    assert m["pay_edge"] == pytest.approx(np.mean([30 - (-10), -10 - (30 - 20) / 3] * 20))
    assert m["game_win_lo"] < 0.5 < m["game_win_hi"] and m["pay_edge_lo"] < m["pay_edge"] < m["pay_edge_hi"]
    # every deal alike: the interval is never of zero width
    assert m["game_win_hi"] - m["game_win_lo"] > 0.05


def _row(**kw):
    base = dict(fair_share=0.25, money=True, game_win=0.3, game_win_lo=0.26, game_win_hi=0.34, pay_edge=1.0,
                pay_edge_lo=0.2, pay_edge_hi=1.8)
    base.update(kw)
    return base


@pytest.mark.parametrize("row, verdict", [
    (_row(), L.BEATS),
    (_row(game_win=0.24, game_win_lo=0.20), L.NOT_ESTABLISHED),  # money above 0, games won not above 0.25
    (_row(pay_edge_lo=-0.5), L.NOT_ESTABLISHED),
    (_row(pay_edge=-1.0, pay_edge_lo=-1.8, pay_edge_hi=-0.1), L.WORSE),
    (_row(game_win=0.2, game_win_lo=0.17, game_win_hi=0.23, pay_edge_lo=-0.5), L.WORSE),
    (_row(money=False), L.BEATS),
    (_row(money=False, game_win_lo=0.24), L.NOT_ESTABLISHED),
    (_row(money=False, game_win=0.2, game_win_lo=0.17, game_win_hi=0.23), L.WORSE),
])
def test_the_verdict_rule(row, verdict):
    assert L.verdict(row)[0] == verdict


def _ladder(verdicts: dict, profiles=("kalooki40",)):
    """A LadderData whose steps have the given verdicts per profile ({profile: [(upper, lower, verdict)]})."""
    rows = []
    for p in profiles:
        for upper, lower, v in verdicts[p]:
            rows.append({c: np.nan for c in L.COLUMNS} | dict(profile=p, upper=upper, lower=lower, verdict=v,
                                                             hand_win=0.3, hand_win_lo=0.28, fair_share=0.25,
                                                             money=True))
    steps = [{"upper": u, "lower": lo, "games": 8, "run": u} for u, lo, _ in verdicts[profiles[0]]]
    return L.LadderData("x", {"profiles": list(profiles), "steps": steps, "seed": 1}, pd.DataFrame(rows))


def test_the_measured_order_stops_at_the_first_step_not_established():
    lad = _ladder({"kalooki40": [("expert", "greedy", L.BEATS), ("search", "expert", L.NOT_ESTABLISHED)]})
    o = L.orders(lad)["kalooki40"]
    assert o.chain == ["greedy", "expert"] and o.strongest == "expert"
    assert ("the search is not measured stronger than the expert at the game in kalooki40: its rung's figures "
            "describe stronger hand play, not stronger game play") in o.text()
    said = L.summary(lad)
    assert said.startswith("Measured at the game (Bot ladder at the game): kalooki40 greedy < expert.")
    assert "The search is not measured stronger than the expert at the game in kalooki40: its rung's" in said
    # a rung that beats the one below is not placed above a step not established below it
    lad = _ladder({"kalooki40": [("expert", "greedy", L.NOT_ESTABLISHED), ("search", "expert", L.BEATS)]})
    o = L.orders(lad)["kalooki40"]
    assert o.chain == ["greedy"] and not o.established
    assert "the expert is not measured stronger than the greedy at the game in kalooki40" in o.text()
    assert "the search beats the expert at the game in kalooki40, but the expert is not measured" in o.text()
    said = L.summary(lad)
    assert said.endswith("so the search is not placed above them in kalooki40.")
    none = L.orders(_ladder({"kalooki40": [("expert", "greedy", L.WORSE)]}))["kalooki40"]
    assert not none.established and "no rung is measured stronger than the greedy" in none.text()
    assert "measured weaker than the greedy" in none.text()


def test_the_frontiers_strong_rungs_are_the_top_of_the_order_measured_in_both_profiles():
    lad = _ladder({"kalooki40": [("expert", "greedy", L.BEATS), ("search", "expert", L.NOT_ESTABLISHED)],
                   "kalooki51": [("expert", "greedy", L.BEATS), ("search", "expert", L.BEATS)],
                   "scala40": [("expert", "greedy", L.NOT_ESTABLISHED), ("search", "expert", L.BEATS)]},
                  profiles=("kalooki40", "kalooki51", "scala40"))
    doc = {"profiles": ["kalooki40", "kalooki51", "scala40", "british"]}
    fr = F.FrontierData("x", doc, ["greedy", "expert", "search"], {}, lad)
    assert fr.strong_rungs("kalooki51") == ["expert", "search"] and fr.strongest("kalooki51") == "search"
    assert fr.strong_rungs("kalooki40", "kalooki51") == ["greedy", "expert"]
    assert fr.strong_rungs("scala40") == [] and fr.strongest("kalooki40") == "expert"
    assert fr.strong_rungs("british") == ["expert", "search"] and not fr.measured("british")
    notes = " ".join(fr.order_notes())
    assert "does not measure british" in notes
    assert "kalooki51: measured at the game, greedy < expert < search" in notes
    summary = fr.order_summary()
    assert "The search is not measured stronger than the expert at the game in kalooki40:" in summary
    assert summary.endswith("Not measured at the game: british (the ladder's order by design).")
    plain = F.FrontierData("x", doc, ["greedy", "expert", "search"], {})
    assert "not measured at the game" in plain.order_notes()[0] and plain.top_two == ["expert", "search"]
