"""The lookahead bot: its one-draw expectation against plain searches, what it counts as unseen, and
legal play on every profile."""
import os

import numpy as np
import pytest

from sim import meldsearch as ms
from sim import profiles
from sim.bots import LookaheadBot, make_bot
from sim.cards import COPIES, JOKER, N_KINDS
from sim.engine import HandState
from sim.bots.outlook import outlook, unseen_counts

from test_random_play import play_checked_hands

K40 = profiles.load("kalooki40")


def reference(hand, profile, cand, unseen):
    """Expected least deadwood after discarding cand, one draw and the best discard; chance of a
    draw after which all but one card melds.  One plain search per hand considered."""
    h = hand.copy()
    if cand >= 0:
        h[cand] -= 1
    total = outs = 0
    for x in range(N_KINDS):
        if unseen[x] == 0:
            continue
        h[x] += 1
        outs += unseen[x] * (ms.search(h, profile)[2] <= 1)
        best = None
        for y in range(N_KINDS):
            if h[y] > 0:
                h[y] -= 1
                d = ms.search(h, profile)[1]
                h[y] += 1
                best = d if best is None else min(best, d)
        total += unseen[x] * best
        h[x] -= 1
    return total / unseen.sum(), outs / unseen.sum()


@pytest.mark.parametrize("name", ["kalooki40", "kalooki51", "scala40"])
def test_outlook_is_the_exact_one_draw_expectation(name):
    p = profiles.load(name)
    rng = np.random.default_rng(3)
    for hand in ms.deal_hands(rng, 12, 13, p.jokers):
        hand = hand.copy()
        unseen = np.full(N_KINDS, COPIES, dtype=np.int64)
        unseen[JOKER] = p.jokers
        unseen -= hand
        unseen[rng.choice(N_KINDS, 20)] = 0  # some cards seen elsewhere
        cands = [-1] + sorted(set(rng.choice(np.flatnonzero(hand), 3).tolist()))
        got = outlook(hand, p, cands, unseen)
        for i, c in enumerate(cands):
            exp_d, exp_out = reference(hand, p, c, unseen)
            assert got[i, 0] == pytest.approx(exp_d) and got[i, 1] == pytest.approx(exp_out)


def test_unseen_cards_are_the_stock_and_the_other_hands():
    st = HandState(K40, 4, 0, np.random.default_rng(4))
    for me in range(4):
        unseen = unseen_counts(st, me)
        expect = st.hands.sum(axis=0).astype(np.int64) - st.hands[me]
        for c in st.stock:
            expect[c] += 1
        assert (unseen == expect).all()
        assert unseen.sum() == K40.deck_size - st.hand_size(me) - len(st.discard)


def test_lookahead_is_configurable_and_uses_no_random_numbers():
    bot = make_bot("lookahead", np.random.default_rng(0), {"out_bonus": 5})
    assert isinstance(bot, LookaheadBot) and bot.out_bonus == 5 and bot.take_margin == 5
    plain = LookaheadBot(np.random.default_rng(0))  # the class's own defaults are the shipped file's
    assert (plain.take_margin, plain.partial_weight, plain.out_bonus) == (bot.take_margin, bot.partial_weight, 20)
    # the same hands whatever its own generator: only the deal's randomness matters
    logs = []
    for bot_seed in (1, 2):
        rng = np.random.default_rng(8)
        bots = [make_bot("lookahead", np.random.default_rng(bot_seed)), make_bot("expert", np.random.default_rng(3))]
        st = HandState(K40, 2, 0, rng, record=True)
        from sim.game import play_hand
        play_hand(st, bots, [0, 1])
        logs.append(st.log)
    assert logs[0] == logs[1]


@pytest.mark.parametrize("name", profiles.available())
def test_lookahead_plays_legal_turns(name):
    prof = profiles.load(name)
    n = int(os.environ.get("KALOOKI_LOOKAHEAD_HANDS", "150"))
    s = play_checked_hands(prof, n, seed=21, bots=("lookahead", "expert", "greedy", "random"))
    assert s["hands"] == n and s["wins"] > 0.5 * n, s


@pytest.mark.soak
@pytest.mark.parametrize("name", profiles.available())
def test_lookahead_soak(name):
    """`make soak`: a tenth of the soak size per profile with the lookahead bot at every table."""
    n = int(os.environ.get("KALOOKI_SOAK_HANDS", "100000")) // 10
    s = play_checked_hands(profiles.load(name), n, seed=2027, bots=("lookahead", "expert", "greedy", "random"))
    print(f"\nlookahead soak {name}: {s}")
    assert s["hands"] == n and s["stalled"] == 0, s
