"""Graded players (sim.bots.graded): NAME@EPS plays NAME's turns, or with probability EPS the random
bot's, the same in the compiled hand loop and on the Python engine."""
import numpy as np
import pytest

from sim import profiles
from sim.bots import bot_name_error, compiled_hand_loop, make_bot
from sim.cli import main
from sim.errors import UserError
from sim.records import ShardSpec, play_shard


def _play(bots, games=8, profile="kalooki40", seed=3):
    spec = ShardSpec(profiles.load(profile), list(bots), seed=seed, first_game=0, n_games=games, rotate=True,
                     duplicate=True)
    return play_shard(spec)


def _outcomes(tables):
    g = tables["games"].to_pandas()
    return g[["game_id", "seat", "finish_rank", "net_payment", "final_penalty_total", "hands_played"]]


def test_eps_zero_plays_exactly_as_the_bot():
    plain = _outcomes(_play(["expert", "greedy", "expert", "greedy"]))
    graded = _outcomes(_play(["expert@0", "greedy@0.0", "expert", "greedy"]))
    assert plain.equals(graded)


def test_graded_tables_play_the_same_compiled_and_on_the_python_engine(monkeypatch):
    import sim.engine.loop as loop
    bots = ["expert", "expert@0.3", "greedy@0.5", "random@0.2"]
    assert compiled_hand_loop([make_bot(b, np.random.default_rng(0)) for b in bots]) is not None
    compiled = _play(bots, games=8)
    monkeypatch.setattr(loop, "COMPILED", False)
    python = _play(bots, games=8)
    assert compiled["games"].equals(python["games"])
    assert compiled["hands"].equals(python["hands"])


def test_random_turns_change_the_play():
    plain = _outcomes(_play(["expert"] * 4, games=4))
    graded = _outcomes(_play(["expert@0.5"] * 4, games=4))
    assert not plain.equals(graded)


@pytest.mark.parametrize("name, says", [("expert@1.5", "outside 0..1"), ("expert@x", "not a number"),
                                        ("wizard@0.1", "unknown bot 'wizard@0.1'"), ("expert@", "not a number")])
def test_bad_graded_names_are_refused(name, says):
    assert says in bot_name_error(name)
    with pytest.raises(UserError, match="0..1|unknown bot"):
        make_bot(name, np.random.default_rng(0))


def test_cli_refuses_a_bad_graded_player(capsys):
    assert main(["play", "--bots", "expert,expert@2,greedy,greedy"]) == 2
    err = capsys.readouterr().err
    assert "expert@2" in err and "0..1" in err and "\n" == err[-1] and err.count("\n") == 1
