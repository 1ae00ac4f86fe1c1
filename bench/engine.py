"""Engine throughput: hands per second on one core, whole hands with bots, in-process.

Two figures for the same all-greedy table: the Python engine with the Python bots (the reference),
and the compiled greedy hand loop that ``sim.engine.loop.play_hand`` uses for such tables (``sim.fastgreedy``).
Both count the whole hand, the deal included; ``first_hand_s`` is the time to the first hand (meld
search compile or cache load for the Python path, the hand loop's for the fast one).
"""
from __future__ import annotations

import time

import numpy as np

from sim import profiles
from sim.bots import make_bot
from sim.engine import HandState, loop
from sim.engine.loop import play_hand


def hands_per_second(profile_name="kalooki40", bots=("greedy",) * 4, seconds=10.0, seed=1, fast: bool = False) -> dict:
    """Hands/s of whole hands; ``fast`` lets all-greedy tables take the compiled hand loop."""
    prof = profiles.load(profile_name)
    n = len(bots)
    rng = np.random.default_rng(seed)
    players = [make_bot(b, np.random.default_rng(seed + i)) for i, b in enumerate(bots)]
    saved = loop.FAST_GREEDY
    loop.FAST_GREEDY = fast
    try:
        # warm-up: compile the meld search (and the hand loop) and fill caches
        t0 = time.perf_counter()
        play_hand(HandState(prof, n, 0, rng), players, list(range(n)))
        first = time.perf_counter() - t0
        hands = turns = 0
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            st = HandState(prof, n, hands % n, rng)
            play_hand(st, players, list(range(n)))
            hands += 1
            turns += st.turn_no
        dt = time.perf_counter() - t0
    finally:
        loop.FAST_GREEDY = saved
    return dict(profile=profile_name, bots=",".join(bots), path="fast" if fast else "python", hands=hands,
                seconds=round(dt, 2), hands_per_s=round(hands / dt, 1), turns_per_hand=round(turns / max(hands, 1), 1),
                us_per_turn=round(1e6 * dt / max(turns, 1), 1), first_hand_s=round(first, 2))


def main():
    for bots in (("greedy",) * 4,):
        print(hands_per_second(bots=bots))
        print(hands_per_second(bots=bots, fast=True))


if __name__ == "__main__":
    main()
