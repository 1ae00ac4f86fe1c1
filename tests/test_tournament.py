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
