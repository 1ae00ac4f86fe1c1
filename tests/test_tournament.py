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
