"""Tournaments: seats rotate, results do not depend on the number of processes, the CLI summarises."""
import json

from sim import profiles
from sim.cli import main
from sim.tournament import play_tournament


def test_seats_rotate_and_workers_do_not_matter():
    prof = profiles.load("kalooki40")
    bots = ["expert", "greedy", "random", "patient"]
    one = play_tournament(prof, bots, games=8, seed=4, workers=1, chunk=3)
    two = play_tournament(prof, bots, games=8, seed=4, workers=2, chunk=5)
    assert one["hands"].equals(two["hands"]) and one["games"].equals(two["games"])
    games = one["games"].to_pandas()
    for bot in bots:  # every bot sat in every seat
        assert set(games[games["bot"] == bot]["seat"]) == {0, 1, 2, 3}


def test_tournament_cli_json(capsys):
    rc = main(["tournament", "--profile", "kalooki51", "--bots", "greedy,random,greedy", "--games", "3",
               "--seed", "2", "--json"])
    assert rc == 0
    rows = {r["bot"]: r for r in json.loads(capsys.readouterr().out)}
    assert set(rows) == {"greedy", "random"}
    for r in rows.values():
        assert 0 <= r["hand_win_lo"] <= r["hand_win"] <= r["hand_win_hi"] <= 1
    # the game winners' shares add up over the bots
    assert abs(rows["greedy"]["game_win"] * rows["greedy"]["player_games"]
               + rows["random"]["game_win"] * rows["random"]["player_games"] - 3) < 1e-9


def test_tournament_intervals_are_clustered_by_game():
    # a game's hands share one table and the greedy bot holds three seats of each game: the interval of
    # its share of games won must match a bootstrap over games, not the binomial over player-games
    import numpy as np

    from sim.commands.tournament import summarise
    prof = profiles.load("kalooki40")
    tables = play_tournament(prof, ["patient", "greedy", "greedy", "greedy"], games=60, seed=5)
    rows = summarise(tables).set_index("bot")
    games = tables["games"].to_pandas()
    rng = np.random.default_rng(0)
    ids = games["game_id"].unique()
    wins = games[games["bot"] == "greedy"].groupby("game_id")["won"].agg(["sum", "size"])
    boot = []
    for _ in range(2000):
        pick = wins.loc[rng.choice(ids, ids.size)]
        boot.append(pick["sum"].sum() / pick["size"].sum())
    width = rows.loc["greedy", "game_win_hi"] - rows.loc["greedy", "game_win_lo"]
    boot_width = np.quantile(boot, 0.975) - np.quantile(boot, 0.025)
    p, n = rows.loc["greedy", "game_win"], rows.loc["greedy", "player_games"]
    binomial_width = 2 * 1.96 * np.sqrt(p * (1 - p) / n)
    assert abs(width / boot_width - 1) < 0.3
    assert width < 0.7 * binomial_width  # one winner a game: the greedy seats' results are not independent
    assert rows.loc["greedy", "hand_win"] == tables["hands"].to_pandas().query(
        "bot == 'greedy' and not void and not stalled")["won"].mean()


def _json_run(capsys, argv):
    rc = main(argv + ["--json", "-q"])
    out = capsys.readouterr().out
    return rc, (json.loads(out) if rc == 0 else None)


def test_versus_pairs_the_two_tables_by_deal(capsys):
    import numpy as np
    import scipy.stats as st
    from sim.commands.tournament import deal_level
    base = ["tournament", "--profile", "kalooki40", "--games", "24", "--seed", "5", "--duplicate"]
    rc, both = _json_run(capsys, base + ["--bots", "expert,greedy,greedy,greedy", "--versus", "patient"])
    assert rc == 0
    rc, alone = _json_run(capsys, base + ["--bots", "patient,greedy,greedy,greedy"])
    assert rc == 0
    first = {r["bot"]: r for r in both["bots"]}["expert"]
    other = {r["bot"]: r for r in alone}["patient"]
    paired = both["paired"]
    assert paired["deals"] == 6 and paired["first"] == "expert" and paired["versus"] == "patient"
    for metric in ("hand_win", "hand_win_edge", "game_win", "net_payment"):
        assert abs(paired[metric] - (first[metric] - other[metric])) < 1e-12
    assert paired["money"] is True  # kalooki40 plays for stakes and a pool
    # the interval is over the per-deal differences (deal d against deal d), not the two tables apart
    prof = profiles.load("kalooki40")
    a = deal_level(play_tournament(prof, ["expert", "greedy", "greedy", "greedy"], 24, 5, duplicate=True), 4)
    b = deal_level(play_tournament(prof, ["patient", "greedy", "greedy", "greedy"], 24, 5, duplicate=True), 4)
    d = (a[a["bot"] == "expert"].set_index("deal")["hand_win_edge"]
         - b[b["bot"] == "patient"].set_index("deal")["hand_win_edge"]).to_numpy()
    lo, hi = st.t.interval(0.95, d.size - 1, loc=d.mean(), scale=d.std(ddof=1) / np.sqrt(d.size))
    assert abs(paired["hand_win_edge_lo"] - lo) < 1e-9 and abs(paired["hand_win_edge_hi"] - hi) < 1e-9


def test_versus_the_same_bot_differs_by_nothing(capsys):
    rc, both = _json_run(capsys, ["tournament", "--profile", "kalooki51", "--games", "12", "--seed", "8",
                                  "--duplicate", "--bots", "expert,greedy,greedy", "--versus", "expert"])
    assert rc == 0
    p = both["paired"]
    for metric in ("hand_win", "hand_win_edge", "game_win", "game_win_edge"):
        # the same games deal by deal, but four deals cannot show that the two bots never differ
        assert p[metric] == 0 and p[f"{metric}_lo"] == -p[f"{metric}_hi"] < 0
    assert p["game_win_hi"] > p["hand_win_hi"]  # a game is a coarser step than a hand
    assert p["money"] is False  # kalooki51 has no stakes: no payment at all, by the rules
    assert p["net_payment"] == p["net_payment_lo"] == p["net_payment_hi"] == 0


def test_a_small_duplicate_run_keeps_shares_within_their_range(capsys):
    rc, rows = _json_run(capsys, ["tournament", "--profile", "kalooki40", "--games", "8", "--seed", "3",
                                  "--duplicate", "--bots", "expert,greedy,greedy,greedy"])
    assert rc == 0
    expert = next(r for r in rows if r["bot"] == "expert")
    # two deals: the t interval of the expert's games won reaches far past 0 and 1, the share cannot
    assert expert["game_win_lo"] == 0.0 and expert["game_win_hi"] == 1.0 and 0 < expert["game_win"] < 1
    for r in rows:
        assert 0 <= r["hand_win_lo"] <= r["hand_win"] <= r["hand_win_hi"] <= 1
        assert -1 <= r["hand_win_edge_lo"] <= r["hand_win_edge_hi"] <= 1
    assert expert["net_payment_hi"] - expert["net_payment_lo"] > 0


def test_versus_refuses_what_it_cannot_pair(capsys):
    base = ["tournament", "--profile", "kalooki40", "--games", "8", "--seed", "1", "-q"]
    cases = [(["--bots", "expert,greedy,greedy,greedy", "--versus", "patient"], "needs --duplicate"),
             (["--bots", "expert,greedy,greedy,greedy", "--duplicate", "--versus", "greedy"], "one seat only"),
             (["--bots", "expert,expert,greedy,greedy", "--duplicate", "--versus", "patient"], "one seat only"),
             (["--bots", "expert,greedy,greedy,greedy", "--duplicate", "--versus", "pat"], "unknown bot"),
             (["--bots", "expert,greedy,greedy,greedy", "--duplicate", "--versus", "patient,random"], "one bot")]
    for argv, said in cases:
        assert main(base + argv) == 2
        err = capsys.readouterr().err
        assert said in err and "Traceback" not in err


def test_versus_params_pairs_two_settings_of_one_bot(capsys, tmp_path):
    other = tmp_path / "other.toml"
    other.write_text("[expert]\ndraw_gain = 30\nfeed_weight = 0\n")
    base = ["tournament", "--profile", "kalooki40", "--games", "12", "--seed", "5", "--duplicate",
            "--bots", "expert,greedy,greedy,greedy"]
    rc, both = _json_run(capsys, base + ["--bot-params", str(other), "--versus-params", "configs/bots.toml"])
    assert rc == 0
    rc, shipped = _json_run(capsys, base)
    assert rc == 0
    first = {r["bot"]: r for r in both["bots"]}["expert"]  # the first table: by other.toml
    plain = {r["bot"]: r for r in shipped}["expert"]
    p = both["paired"]
    assert (p["first"], p["versus"], p["first_params"], p["versus_params"]) == ("expert", "expert", str(other),
                                                                                 "configs/bots.toml")
    for metric in ("hand_win", "hand_win_edge", "game_win", "net_payment"):
        assert abs(p[metric] - (first[metric] - plain[metric])) < 1e-12
    assert p["hand_win"] != 0 or p["net_payment"] != 0  # the second table played by the other settings
    capsys.readouterr()
    assert main(base + ["--bot-params", str(other), "--versus-params", "configs/bots.toml", "-q"]) == 0
    assert f"expert by {other} minus expert by configs/bots.toml in its seat, the same 3 deals" in capsys.readouterr().out


def test_versus_params_of_the_same_settings_differ_by_nothing(capsys):
    rc, both = _json_run(capsys, ["tournament", "--profile", "kalooki51", "--games", "12", "--seed", "8",
                                  "--duplicate", "--bots", "expert,greedy,greedy", "--versus-params",
                                  "configs/bots.toml"])
    assert rc == 0
    p = both["paired"]
    for metric in ("hand_win", "hand_win_edge", "game_win", "game_win_edge"):
        assert p[metric] == 0 and p[f"{metric}_lo"] < 0 < p[f"{metric}_hi"]


def test_versus_params_refuses_what_it_cannot_pair(capsys, tmp_path):
    base = ["tournament", "--profile", "kalooki40", "--games", "8", "--seed", "1", "-q"]
    missing = tmp_path / "none.toml"
    cases = [(["--bots", "expert,greedy,greedy,greedy", "--versus-params", "configs/bots.toml"], "needs --duplicate"),
             (["--bots", "expert,expert,greedy,greedy", "--duplicate", "--versus-params", "configs/bots.toml"],
              "one seat only"),
             (["--bots", "expert,greedy,greedy,greedy", "--duplicate", "--versus-params", str(missing)],
              f"--versus-params {missing}: cannot read")]
    for argv, said in cases:
        assert main(base + argv) == 2
        err = capsys.readouterr().err
        assert said in err and err.count("\n") == 1, err


# named settings: two settings of one bot at one table (NAME.SETTING, its [NAME.SETTING] table)

def _hands_but_names(tables):
    """The hands and games played, less the columns that name the players (bot, table)."""
    return tuple(tables[t].drop_columns([c for c in ("bot", "table") if c in tables[t].column_names])
                 for t in ("hands", "games"))


def test_a_named_setting_plays_by_its_bots_parameters_then_its_own():
    """A named setting with an empty table plays exactly as its bot; one with a table plays as its bot
    given those parameters; it takes its bot's run parameters beneath its own, a graded player its bot's."""
    from sim.bots import params_for
    prof = profiles.load("kalooki40")
    seats = ["greedy", "greedy", "greedy"]
    plain = play_tournament(prof, ["expert"] + seats, games=4, seed=6)
    same = play_tournament(prof, ["expert.same"] + seats, games=4, seed=6, bot_params={"expert": {"same": {}}})
    assert all(a.equals(b) for a, b in zip(_hands_but_names(plain), _hands_but_names(same)))
    assert set(same["games"].column("bot").to_pylist()) == {"expert.same", "greedy"}
    tuned = {"draw_gain": 30, "feed_weight": 0}
    by_file = play_tournament(prof, ["expert"] + seats, games=4, seed=6, bot_params={"expert": tuned})
    named = play_tournament(prof, ["expert.t"] + seats, games=4, seed=6, bot_params={"expert": {"t": tuned}})
    assert all(a.equals(b) for a, b in zip(_hands_but_names(by_file), _hands_but_names(named)))
    assert not plain["hands"].equals(by_file["hands"])  # the settings change the play on these deals
    graded = play_tournament(prof, ["expert@0"] + seats, games=4, seed=6, bot_params={"expert": tuned})
    assert all(a.equals(b) for a, b in zip(_hands_but_names(by_file), _hands_but_names(graded)))
    table = {"expert": {"draw_gain": 30, "t": {"feed_weight": 0, "draw_gain": 5}}}
    assert params_for(table, "expert") == {"draw_gain": 30}
    assert params_for(table, "expert.t") == {"draw_gain": 5, "feed_weight": 0}
    assert params_for(table, "expert.t@0.2") == {"draw_gain": 5, "feed_weight": 0}
    assert params_for(table, "expert@0.2") == {"draw_gain": 30}
    assert params_for(table, "greedy") == {}


def test_two_settings_of_one_bot_share_a_duplicate_table(capsys, tmp_path):
    params = tmp_path / "two.toml"
    params.write_text("[expert.cautious]\ndraw_gain = 30\nfeed_weight = 0\n")
    rc, rows = _json_run(capsys, ["tournament", "--profile", "kalooki40", "--games", "8", "--seed", "3", "--duplicate",
                                  "--bots", "expert.cautious,expert,expert,expert", "--bot-params", str(params)])
    assert rc == 0
    by = {r["bot"]: r for r in rows}
    assert set(by) == {"expert.cautious", "expert"}
    assert abs(by["expert.cautious"]["hand_win_edge"] + by["expert"]["hand_win_edge"]) < 1e-9  # each the other minus it
    capsys.readouterr()
    assert main(["tournament", "--profile", "kalooki40", "--games", "8", "--seed", "3", "--duplicate", "-q",
                 "--bots", "expert.cautious,expert,expert,expert", "--bot-params", str(params)]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.startswith("bot ") and "games won" in line)
    row = next(line for line in out.splitlines() if line.startswith("expert.cautious "))
    assert header.index("hands won") == row.index("0.") == len("expert.cautious") + 2  # the column widens


def test_a_named_setting_without_its_table_or_with_a_bad_one_is_refused(capsys, tmp_path):
    base = ["tournament", "--profile", "kalooki40", "--games", "4", "--seed", "1", "-q"]
    nested = tmp_path / "nested.toml"
    nested.write_text("[expert.a.b]\ndraw_gain = 3\n")
    badparam = tmp_path / "badparam.toml"
    badparam.write_text("[expert.a]\nwin_points = 3\n")
    other = tmp_path / "other.toml"
    other.write_text("[expert.b]\n")
    cases = [(["--bots", "expert.a,greedy,greedy,greedy"],
              "it plays by a [expert.a] table, and no --bot-params file was given"),
             (["--bots", "expert.a,greedy,greedy,greedy", "--bot-params", str(other)],
              f"expert.a is a named setting of expert: it plays by a [expert.a] table, which --bot-params {other} "
              f"lacks (an empty table plays as expert)"),
             (["--bots", "expert.a,greedy,greedy,greedy", "--bot-params", str(nested)], "[expert.a] holds a table"),
             (["--bots", "expert.a,greedy,greedy,greedy", "--bot-params", str(badparam)],
              "bot 'expert' has no parameter 'win_points'"),
             (["--bots", "expert.a b,greedy,greedy,greedy"], "setting name 'a b'"),
             (["--bots", "expertt.a,greedy,greedy,greedy"], "unknown bot 'expertt.a'")]
    for argv, said in cases:
        assert main(base + argv) == 2, argv
        err = capsys.readouterr().err
        assert said in err and err.count("\n") == 1, err


def test_an_a_a_table_prints_no_interval_of_zero_width(capsys, tmp_path):
    """A bot against a named setting that plays exactly as it: every deal gives the same values, the
    intervals are narrow but not of zero width, and none is printed as if it were."""
    import re

    from analysis.terminal import interval_text
    params = tmp_path / "same.toml"
    params.write_text("[expert.same]\n")
    assert main(["tournament", "--profile", "kalooki40", "--games", "40", "--seed", "3", "--duplicate", "-q",
                 "--bots", "expert.same,expert,expert,expert", "--bot-params", str(params)]) == 0
    out = capsys.readouterr().out
    ends = re.findall(r"\[([-+]?\d+\.\d+), ([-+]?\d+\.\d+)\]", out)
    assert len(ends) == 10, out  # hands won, its edge, games won, net payment, its edge: two bots each
    assert all(float(lo) < float(hi) for lo, hi in ends), out
    assert interval_text(0.0, -1.5e-5, 1.5e-5, 3, True) == "+0.000 [-0.00002, +0.00002]"
    assert interval_text(0.25, 0.2, 0.3) == "0.250 [0.200, 0.300]"
    assert interval_text(0.25, 0.25, 0.25) == "0.250 [0.250, 0.250]"  # only a true zero width prints as one
    assert interval_text(float("nan"), 0, 1) == "n/a"
    assert interval_text(52.0, float("nan"), float("nan"), 2, True) == "+52.00 [no interval]"


# a player by a table of game values of its own ([NAME.SETTING] game_values = FILE)

def test_a_player_by_its_own_table_meets_the_shipped_players_on_the_same_deals(capsys, tmp_path, monkeypatch):
    from sim import equity
    from test_stakes_play import other_table
    prof = profiles.load("kalooki40")
    (tmp_path / "tables").mkdir()
    other_table(prof, tmp_path / "tables" / "own.npz")
    shipped = equity.shipped_path("kalooki40", 4).resolve()
    (tmp_path / "tables" / "own.toml").write_text('[expert.t]\ngame_values = "own.npz"\n')  # read from its folder
    (tmp_path / "same.toml").write_text(f'[expert.t]\ngame_values = "{shipped}"\n')
    (tmp_path / "plain.toml").write_text("[expert.t]\n")
    monkeypatch.chdir(tmp_path)  # a relative game_values is read from the parameters file's folder, not from here
    base = ["tournament", "--profile", "kalooki40", "--games", "16", "--seed", "6", "--duplicate",
            "--bots", "expert.t,expert,expert,greedy", "--versus-params", "plain.toml", "--workers", "2"]
    rc, same = _json_run(capsys, base + ["--bot-params", "same.toml"])
    assert rc == 0
    for metric in ("hand_win", "game_win", "net_payment"):  # the shipped table named as a file plays as it does
        assert same["paired"][metric] == 0, metric
    rc, own = _json_run(capsys, base + ["--bot-params", "tables/own.toml"])
    assert rc == 0
    assert any(own["paired"][m] != 0 for m in ("hand_win", "game_win", "net_payment"))  # its own stakes, its play


def test_a_table_of_game_values_not_for_the_game_is_refused_in_one_line(capsys, tmp_path):
    from sim import equity
    k51 = equity.shipped_path("kalooki51", 4).resolve()
    (tmp_path / "text.npz").write_text("no table")
    cases = [("none.npz", "kalooki40", 4, "none.npz: no such file"),
             ("text.npz", "kalooki40", 4, "not an equity table written by `kalooki equity build`"),
             (str(k51), "kalooki40", 4, "it was made for the rules of profile 'kalooki51', not of 'kalooki40'"),
             (str(equity.shipped_path("kalooki40", 4).resolve()), "kalooki40", 3, "made for 4 players, not 3")]
    for value, name, seats, says in cases:
        params = tmp_path / "p.toml"
        params.write_text(f'[expert.t]\ngame_values = "{value}"\n')
        bots = ",".join(["expert.t"] + ["greedy"] * (seats - 1))
        assert main(["tournament", "--profile", name, "--games", "4", "--bots", bots, "--bot-params", str(params),
                     "-q"]) == 2
        err = capsys.readouterr().err
        assert says in err and "[expert.t] game_values" in err and err.count("\n") == 1, err
    (tmp_path / "plain.toml").write_text("[expert.t]\n")
    params.write_text(f'[expert.t]\ngame_values = "{k51}"\n')
    assert main(["tournament", "--profile", "kalooki40", "--games", "4", "--duplicate", "--bots",
                 "expert.t,greedy,greedy,greedy", "--bot-params", str(tmp_path / "plain.toml"),
                 "--versus-params", str(params), "-q"]) == 2
    err = capsys.readouterr().err
    assert f"--versus-params {params}: [expert.t] game_values" in err and "rules of profile 'kalooki51'" in err, err


def test_the_shipped_parameters_name_no_table_of_game_values(tmp_path, monkeypatch):
    import numpy as np
    import pytest

    from sim.bots import registry
    from sim.errors import UserError
    edited = tmp_path / "bots.toml"
    edited.write_text('[expert]\ngame_values = "t.npz"\n')
    monkeypatch.setattr(registry, "BOT_CONFIG", edited)
    monkeypatch.setattr(registry, "_DEFAULTS", None)
    with pytest.raises(UserError, match=r"\[expert\] game_values = 't.npz': a table of game values holds for one "
                                        r"profile's rules, so the shipped parameters keep"):
        registry.make_bot("expert", np.random.default_rng(0))


def test_one_game_or_one_deal_prints_no_interval_rather_than_nan(capsys):
    for extra in ([], ["--duplicate", "--versus-params", "configs/bots.toml"]):
        assert main(["tournament", "--profile", "kalooki40", "--games", "4" if extra else "1", "--bots",
                     "expert,greedy,greedy,greedy", "-q", *extra]) == 0
        out = capsys.readouterr().out
        assert "nan" not in out.lower() and "[no interval]" in out, out
