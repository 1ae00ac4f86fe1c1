"""`kalooki tune`'s search: which values of one integer rule parameter to play, on which deals, and when
to stop, so that games are spent where the value meeting a target is still in doubt.

The search is a sequential design over the integers ``lo..hi``.  Stage 0 plays a coarse set of values
spread over the range (both ends included); every later stage plays the integer values inside the
current 95% interval on the answer (at most ``MAX_VALUES``, spread over it, always the two around the
answer).  Stage ``s`` plays block ``s`` of deals at each of its values: game g of block b is dealt from
the same seed at every value (``block_seed``), so values are compared on common deals.  It stops when
the interval lies between two adjacent integers (the bracket is decided) or the game budget cannot pay
for another stage.

This module knows neither how games are played nor how the answer is estimated: ``search`` is handed
``play(values, block)`` (the command plays runs through ``sim.runner``) and ``assess()`` (the fit of
``analysis.tune``, which refuses what it cannot answer).  ``bench/tune_deals.py`` hands it a cheap
stand-in for both, on a deal statistic whose true curve is known, to check the interval's coverage.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .errors import UserError

COARSE = 5  # values of stage 0
MAX_VALUES = 5  # most values of a later stage
MAX_STAGES = 200
BLOCKS_IN_BUDGET = 8  # the default block: the budget over this many coarse stages


@dataclass(frozen=True)
class Stage:
    """One stage of the search: block ``block`` of deals played at ``values``, ``games`` games each."""
    block: int
    values: tuple
    games: int

    @property
    def cost(self) -> int:
        return len(self.values) * self.games


def block_seed(seed: int, block: int) -> int:
    """The run seed of block ``block`` of a study seeded ``seed`` (0..2**63-1, the same at every value)."""
    state = np.random.SeedSequence([int(seed), 46, int(block)]).generate_state(2, dtype=np.uint32)
    return (int(state[0]) << 31 | int(state[1]) >> 1) & (2 ** 63 - 1)


def default_block_games(budget: int) -> int:
    return max(10, budget // (BLOCKS_IN_BUDGET * COARSE))


def coarse_values(lo: int, hi: int, n: int = COARSE) -> tuple:
    """``n`` integers spread evenly over lo..hi, both ends included (every integer when fewer)."""
    if hi - lo + 1 <= n:
        return tuple(range(lo, hi + 1))
    return tuple(sorted({int(round(v)) for v in np.linspace(lo, hi, n)}))


def next_values(lo: int, hi: int, crossing: float, ci_low: float, ci_high: float, limit: int = MAX_VALUES) -> tuple:
    """The integers inside [ci_low, ci_high] (widened to integers, within lo..hi), at most ``limit`` spread
    over it plus the two integers around ``crossing``."""
    clip = lambda v: int(min(hi, max(lo, v)))
    near = {clip(math.floor(crossing)), clip(math.ceil(crossing))}
    if len(near) == 1:  # on an integer or at an end: its neighbour inward too
        v = next(iter(near))
        near.add(v + 1 if v < hi else v - 1)
    a = clip(math.floor(ci_low)) if np.isfinite(ci_low) else lo
    b = clip(math.ceil(ci_high)) if np.isfinite(ci_high) else hi
    inside = set(range(a, b + 1))
    if len(inside) > limit:
        inside = {int(round(v)) for v in np.linspace(a, b, limit)}
    return tuple(sorted(inside | near))


def trim_to_budget(values: tuple, crossing: float, games: int, left: int) -> tuple:
    """``values`` cut to what ``left`` games pay for at ``games`` each, the nearest to ``crossing`` kept;
    () when fewer than two can be paid for."""
    n = left // games
    if n >= len(values):
        return values
    if n < 2:
        return ()
    nearest = sorted(values, key=lambda v: (abs(v - crossing), v))[:n]
    return tuple(sorted(nearest))


def search(lo: int, hi: int, budget: int, block_games: int, play, assess, on_stage=None):
    """Run the sequential design: ``play(values, block)`` plays a stage, ``assess()`` fits every game
    played so far (an object with crossing, ci_low, ci_high, decided), ``on_stage(stage, fit, spent)``
    hears of each.  Returns (stages, the last fit)."""
    first = Stage(0, coarse_values(lo, hi), block_games)
    if first.cost > budget:
        raise UserError(f"--games {budget}: the first stage alone plays {len(first.values)} values x "
                        f"{block_games} games = {first.cost}; give --games {first.cost} or more, or a smaller "
                        "--block-games")
    stages, spent, stage = [], 0, first
    while True:
        play(stage.values, stage.block)
        stages.append(stage)
        spent += stage.cost
        fit = assess()
        if on_stage is not None:
            on_stage(stage, fit, spent)
        if fit.decided or len(stages) >= MAX_STAGES:
            break
        values = next_values(lo, hi, fit.crossing, fit.ci_low, fit.ci_high)
        values = trim_to_budget(values, fit.crossing, block_games, budget - spent)
        if not values:
            break
        stage = Stage(len(stages), values, block_games)
    return stages, fit


# ---------------------------------------------------------------------------------------------
