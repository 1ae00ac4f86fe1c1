"""No hand of greedy bots reaches turn_cap.

Two opened players holding two cards each could pass a 2 back and forth for ever if each took the
other's discarded 2 because it "completed" a group of three it could not lay while keeping a card to
discard.  The greedy draw takes a discard only if the meld it completes can be laid with a card kept
to discard, or lets it go out.  A stalled hand is a bug to find, not a statistic: these tests play
many two-player hands on both engine paths and a replayed game where such a deadlock can arise.
"""
import numpy as np
import pytest

from sim import profiles
from sim.bots import GreedyBot
from sim.engine import DRAW_DISCARD, DRAW_STOCK, HandState
from sim.engine import loop as LOOP
from sim.records import ShardSpec, play_shard

K40 = profiles.load("kalooki40")


def test_greedy_does_not_take_a_card_it_could_not_lay_with_a_discard_kept():
    # holding 2H 2S, the 2D on the pile makes three 2s, but laying them leaves nothing to discard
    st = HandState.scripted(K40, ["2H 2S", "2C 9D"], stock="KD QC", discard="5C 2D", current=0, opened=[True, True])
    assert GreedyBot().draw(st, 0) == DRAW_STOCK
    # with a third card it lays the three 2s and discards the other one: then it takes it
    st = HandState.scripted(K40, ["2H 2S 9C", "2C 9D"], stock="KD QC", discard="5C 2D", current=0,
                            opened=[True, True])
    assert GreedyBot().draw(st, 0) == DRAW_DISCARD
    # and where the three 2s let it go out (a discard left beside them) it takes it
    st = HandState.scripted(K40, ["2H 2S 7C 7D 7H KS", "2C 9D"], stock="KD QC", discard="5C 2D", current=0,
                            opened=[True, True])
    assert GreedyBot().draw(st, 0) == DRAW_DISCARD


def _play_two_player_hands(prof, hands, seed, fast):
    saved = LOOP.COMPILED
    LOOP.COMPILED = fast
    stalled = []
    try:
        for h in range(hands):
            st = HandState(prof, 2, h % 2, np.random.default_rng([seed, h]))
            LOOP.play_hand(st, [GreedyBot(), GreedyBot()], [0, 1])
            if st.result.stalled:
                stalled.append(h)
    finally:
        LOOP.COMPILED = saved
    return stalled


@pytest.mark.parametrize("name", profiles.available())
def test_two_player_greedy_hands_never_reach_the_turn_cap(name):
    prof = profiles.load(name)
    assert _play_two_player_hands(prof, 3000, seed=12, fast=True) == []
    assert _play_two_player_hands(prof, 150, seed=13, fast=False) == []


@pytest.mark.parametrize("fast", [True, False])
def test_replayed_deadlock_game_has_no_stalled_hand(fast, monkeypatch):
    # kalooki40, seed 1, game 298 of the default run (four greedy bots): hand 13, dealt to the last two
    # players, was the deadlock
    monkeypatch.setattr(LOOP, "COMPILED", fast)
    spec = ShardSpec(K40, ["greedy"] * 4, seed=1, first_game=298, n_games=1)
    tables = play_shard(spec)
    hands = tables["hands"].to_pydict()
    assert len(set(hands["hand_no"])) >= 10  # a long game: eliminations leave the last hands to two players
    assert not any(hands["stalled"]) and not any(tables["games"].to_pydict()["stalled"])
