"""Random-play invariants for every profile, and determinism (docs/RULES.md 1-8 as invariants).

``make test`` plays a few thousand hands; ``make soak`` (KALOOKI_SOAK_HANDS=100000) plays 100,000
hands per profile with the same checks after every turn, on the Python engine (every bot, the random
one included) and in the compiled hand loop (every bot that has one: greedy, patient, expert,
lookahead).
"""
import os
import random

import numpy as np
import pytest

from sim import profiles
from sim.bots import make_bot
from sim.bots import hand_loop as HL
from sim.cards import hand_values
from sim.engine import HandState, SwapJoker, Split, Take
from sim.game import play_game, play_hand
from sim.records import ShardSpec, play_shard

PROFILES = profiles.available()
CI_HANDS = int(os.environ.get("KALOOKI_CI_HANDS", "400"))  # per profile, on the Python engine
COMPILED_CI_HANDS = 400  # per profile, in the compiled hand loop (the same compiled turn as the engine's)


def play_checked_hands(prof, n_hands, seed, bots=("random", "greedy", "patient", "expert")):
    """Play n_hands single hands (player counts cycling over the profile's range), checking every
    invariant after every turn; return a summary."""
    counts = list(range(prof.min_players, prof.max_players + 1))
    rng = np.random.default_rng(seed)
    tables = {n: [make_bot(bots[i % len(bots)], np.random.default_rng(seed * 1000 + i)) for i in range(n)]
              for n in counts}
    values = hand_values(prof.ace_value, prof.joker_penalty)
    summary = dict(hands=0, wins=0, kalookis=0, void=0, stalled=0, turns=0, table_moves=0)
    for h in range(n_hands):
        n = counts[h % len(counts)]
        players = tables[n]
        st = HandState(prof, n, h % n, rng)
        st.check_invariants()

        def check(state):
            state.check_invariants()
            summary["turns"] += 1
            summary["table_moves"] += sum(isinstance(op, (Take, SwapJoker, Split)) for op in state.last_turn[3].ops)

        res = play_hand(st, players, list(range(n)), on_turn=check)
        assert st.result is not None and st.phase == "over"
        summary["hands"] += 1
        if res.void:
            summary["void"] += 1
            assert res.penalties == [0] * n
        elif res.stalled:
            summary["stalled"] += 1
        else:
            summary["wins"] += 1
            summary["kalookis"] += res.win_type == "kalooki"
            mult = 2 if res.win_type == "kalooki" and prof.kalooki_double_penalty else 1
            for s in range(n):
                expect = 0 if s == res.winner else mult * int(st.hands[s].astype(np.int64) @ values)
                assert res.penalties[s] == expect
            assert st.hand_size(res.winner) == 0
    return summary


@pytest.mark.parametrize("name", PROFILES)
def test_random_play_invariants(name):
    prof = profiles.load(name)
    s = play_checked_hands(prof, CI_HANDS, seed=11)
    assert s["wins"] > 0.5 * s["hands"], s  # most hands end with someone going out
    assert s["stalled"] == 0, s  # a hand that reaches turn_cap is a bug to find (docs/RULES.md 9), not a statistic
    assert s["table_moves"] > 0, s  # the bots rearrange the table (takes, shifts, joker swaps)


def play_compiled_hands(prof, n_hands, seed, bots=("lookahead", "expert", "patient", "greedy", "random")):
    """Play n_hands single hands through the engine's hand loop, which takes the compiled loop for these
    bots, with the compiled loop's invariants checked after every turn (``hand_loop.CHECK``: it raises
    InvariantBroken); the seats rotate over ``bots``.  A play the compiled loop refused (a bot broke a
    rule) is counted."""
    counts = list(range(prof.min_players, prof.max_players + 1))
    rng = np.random.default_rng(seed)
    summary = dict(hands=0, wins=0, kalookis=0, void=0, stalled=0, refused=0, turns=0, jokers_taken=0)
    orig = HL.play_hand_fast

    def counted(state, *args):
        result = orig(state, *args)
        summary["refused"] += result is None
        return result
    saved = HL.CHECK
    HL.CHECK, HL.play_hand_fast = True, counted
    try:
        for h in range(n_hands):
            n = counts[h % len(counts)]
            players = [make_bot(bots[(h + i) % len(bots)], np.random.default_rng([seed, h, i])) for i in range(n)]
            st = HandState(prof, n, h % n, rng)
            res = play_hand(st, players, list(range(n)))
            st.check_invariants()
            summary["hands"] += 1
            summary["turns"] += st.turn_no
            summary["void"] += res.void
            summary["stalled"] += res.stalled
            summary["wins"] += res.winner >= 0
            summary["kalookis"] += res.win_type == "kalooki"
            summary["jokers_taken"] += sum(d["jokers_taken"] for d in st.stats)
    finally:
        HL.CHECK, HL.play_hand_fast = saved, orig
    return summary


@pytest.mark.parametrize("name", PROFILES)
def test_compiled_play_invariants(name):
    prof = profiles.load(name)
    s = play_compiled_hands(prof, COMPILED_CI_HANDS, seed=12)
    assert s["refused"] == 0 and s["stalled"] == 0, s
    assert s["wins"] > 0.5 * s["hands"], s
    assert s["jokers_taken"] > 0, s  # the experts' joker swaps are played compiled


def test_a_broken_invariant_stops_the_compiled_hand():
    # the check is live: a card made from nothing, or an invalid meld on the table (its cards taken
    # from the stock, so the count still adds up), stops the hand after the first turn
    from sim import melds as M
    prof = profiles.load("kalooki40")
    bots = [make_bot("greedy", None) for _ in range(4)]
    st = HandState(prof, 4, 0, np.random.default_rng(3))
    HL.table_loop(bots, check=True).play_hand_fast(st)  # a sound hand passes
    made = HandState(prof, 4, 0, np.random.default_rng(3))
    made.hands[2, int(np.argmax(made.hands[2]))] += 1
    with pytest.raises(HL.InvariantBroken):
        HL.table_loop(bots, check=True).play_hand_fast(made)
    bad = HandState(prof, 4, 0, np.random.default_rng(3))
    cards = [bad.stock.pop() for _ in range(3)]
    bad.table = [M.Meld(M.GROUP, tuple(cards), tuple(cards), cards[0] % 13)]  # three stock cards: not a meld
    assert M.check(bad.table[0], prof) is not None
    with pytest.raises(HL.InvariantBroken):
        HL.table_loop(bots, check=True).play_hand_fast(bad)


@pytest.mark.parametrize("name", PROFILES)
def test_whole_games_end_with_one_winner_and_money_conserved(name):
    prof = profiles.load(name)
    for g in range(3):
        rng = np.random.default_rng(g)
        bots = [make_bot("greedy", np.random.default_rng(100 + i)) for i in range(prof.players)]
        game = play_game(prof, bots, rng)
        lg = game.ledger
        assert lg.over and 0 <= lg.winner < prof.players
        assert sum(lg.balances) + lg.pool == 0 and lg.pool == 0
        assert max(lg.buy_ins) <= prof.max_buy_ins
        for row in lg.sheet:
            assert sum(row.balances) + row.pool == 0
        assert sum(1 for r in lg.finish_ranks() if r == 1) == 1


def test_same_seed_same_records_and_global_rng_untouched():
    prof = profiles.load("kalooki40")
    spec = ShardSpec(prof, ["greedy", "random", "greedy", "random"], seed=5, first_game=0, n_games=3)
    a = play_shard(spec)

    # calls to the global RNGs between turns must change nothing
    import sim.game as G
    orig = G.play_hand

    def noisy(state, bots, seats, on_turn=None, *rest, **kw):
        def hook(st):
            random.random()
            np.random.random()
            if on_turn:
                on_turn(st)
        return orig(state, bots, seats, hook, *rest, **kw)

    G.play_hand = noisy
    try:
        random.seed(123)
        np.random.seed(123)
        b = play_shard(spec)
    finally:
        G.play_hand = orig
    assert a["hands"].equals(b["hands"]) and a["games"].equals(b["games"])
    c = play_shard(ShardSpec(prof, spec.bots, seed=6, first_game=0, n_games=3))
    assert not a["hands"].equals(c["hands"])


def test_games_do_not_depend_on_the_shard_they_are_played_in():
    prof = profiles.load("kalooki40")
    bots = ["greedy"] * 4
    whole = play_shard(ShardSpec(prof, bots, seed=9, first_game=0, n_games=4))
    part = play_shard(ShardSpec(prof, bots, seed=9, first_game=2, n_games=2))
    import pyarrow.compute as pc
    tail = whole["hands"].filter(pc.greater_equal(whole["hands"]["game_id"], 2))
    assert tail.equals(part["hands"])


@pytest.mark.soak
@pytest.mark.parametrize("name", PROFILES)
def test_soak(name):
    n = int(os.environ.get("KALOOKI_SOAK_HANDS", "100000"))
    prof = profiles.load(name)
    s = play_checked_hands(prof, n, seed=2026)
    print(f"\nsoak {name}: {s}")
    assert s["hands"] == n and s["stalled"] == 0, s


@pytest.mark.soak
@pytest.mark.parametrize("name", PROFILES)
def test_soak_compiled(name):
    n = int(os.environ.get("KALOOKI_SOAK_HANDS", "100000"))
    prof = profiles.load(name)
    s = play_compiled_hands(prof, n, seed=2027)
    print(f"\nsoak (compiled hand loop) {name}: {s}")
    assert s["hands"] == n and s["refused"] == 0 and s["stalled"] == 0, s
