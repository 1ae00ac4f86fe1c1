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
``analysis.tune``, which refuses what it cannot answer).  ``deal_study`` is a cheap stand-in for
``play`` on a deal statistic whose true curve is known (P(the dealt hand can open) against
``opening_min``): ``python -m sim.tune`` checks the interval's coverage and the games saved against a
grid with it (docs/PERFORMANCE.md, tests/test_tune.py).
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
# a cheap study with a known answer: P(the dealt hand can open) against opening_min


class DealStudy:
    """Games of deals only: game g of block b deals ``players`` hands (each from a full shuffled pack),
    and at opening_min = v a hand counts 1 when its best meld value reaches v; the same hands at every
    value, as a tune study's runs deal them.  ``sums(value, block, games)`` gives keys, y, x as the
    study's runs give them for p_can_open_at_deal."""

    def __init__(self, profile, seed: int, players: int | None = None):
        self.profile, self.seed = profile, seed
        self.players = players or profile.players
        self._best: dict = {}

    def best(self, block: int, games: int) -> np.ndarray:
        """games x players best meld values of block ``block``'s deals."""
        if (block, games) not in self._best:
            from . import meldsearch as ms
            rng = np.random.default_rng(np.random.SeedSequence(block_seed(self.seed, block)))
            hands = ms.deal_hands(rng, games * self.players, self.profile.hand_size_for(self.players),
                                  self.profile.jokers)
            self._best[(block, games)] = ms.batch(hands, self.profile)["max_meld_value"].reshape(games, self.players)
        return self._best[(block, games)]

    def sums(self, value: int, block: int, games: int):
        best = self.best(block, games)
        keys = block * 2 ** 32 + np.arange(games, dtype=np.int64)
        return keys, (best >= value).sum(axis=1).astype(np.float64), np.full(games, float(self.players))


def true_curve(profile, lo: int, hi: int, n: int, seed: int) -> np.ndarray:
    """P(a dealt hand's best meld value >= v) for v = lo..hi from ``n`` hands (one pass: the survival
    function of the best meld value)."""
    from . import meldsearch as ms
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), 4646]))
    counts = np.zeros(hi + 2, dtype=np.int64)
    for a in range(0, n, 100_000):
        hands = ms.deal_hands(rng, min(100_000, n - a), profile.hand_size, profile.jokers)
        best = np.minimum(ms.batch(hands, profile)["max_meld_value"], hi + 1)
        counts += np.bincount(best, minlength=hi + 2)
    survival = counts[::-1].cumsum()[::-1] / n  # survival[v] = P(best >= v)
    return survival[lo:hi + 1]


def true_crossing(curve: np.ndarray, lo: int, target: float) -> float:
    """Where the (decreasing) true curve over lo.., joined linearly, meets ``target``."""
    from analysis.tune import crossings
    values = np.arange(lo, lo + len(curve))
    return float(crossings(values, curve[None, :], target, increasing=False)[0])


def deal_tune(profile, lo: int, hi: int, target: float, budget: int, seed: int, block_games: int | None = None,
              threshold: float = 0.03, boot: int = 200):
    """tune on the deal study: (stages, fit)."""
    from analysis import tune as fitting
    study = DealStudy(profile, seed)
    block_games = block_games or default_block_games(budget)
    data = fitting.Data()

    def play(values, block):
        for v in values:
            data.add(v, *study.sums(v, block, block_games))

    def assess():
        f = fitting.fit(data, "p_can_open_at_deal", target, threshold, lo, hi, boot=boot, seed=seed)
        fitting.check(f, "opening_min", monotone=len(data.values) == len(coarse_values(lo, hi)))
        return f

    stages, f = search(lo, hi, budget, block_games, play, assess)
    fitting.check(f, "opening_min")
    return stages, f


def deal_grid(profile, values, games: int, target: float, seed: int, threshold: float = 0.03, boot: int = 200):
    """A grid sweep on the deal study: every value of ``values`` on the same ``games`` deals; its fit."""
    from analysis import tune as fitting
    study = DealStudy(profile, seed)
    data = fitting.Data()
    for v in values:
        data.add(v, *study.sums(v, 0, games))
    return fitting.fit(data, "p_can_open_at_deal", target, threshold, min(values), max(values), boot=boot, seed=seed)


def main(argv=None) -> int:
    """Coverage of tune's 95% interval over seeded repeats on the deal study, and the games a grid sweep
    of every integer needs for the same width (docs/PERFORMANCE.md)."""
    import argparse
    import time

    from scipy.stats import binomtest

    from . import profiles
    p = argparse.ArgumentParser(prog="python -m sim.tune", description=main.__doc__)
    p.add_argument("--profile", default="kalooki40")
    p.add_argument("--lo", type=int, default=30)
    p.add_argument("--hi", type=int, default=60)
    p.add_argument("--target", type=float, default=0.25)
    p.add_argument("--games", type=int, default=4000, help="tune's budget")
    p.add_argument("--repeats", type=int, default=100)
    p.add_argument("--truth-hands", type=int, default=2_000_000)
    p.add_argument("--grid-games", default="400,800,1600", help="games per value of the grid sweeps compared")
    p.add_argument("--grid-repeats", type=int, default=20, help="seeded grid sweeps at each --grid-games")
    args = p.parse_args(argv)
    prof = profiles.load(args.profile)
    t0 = time.perf_counter()
    curve = true_curve(prof, args.lo, args.hi, args.truth_hands, seed=0)
    truth = true_crossing(curve, args.lo, args.target)
    print(f"truth: opening_min = {truth:.3f} from {args.truth_hands:,} hands ({time.perf_counter() - t0:.0f} s)")
    covered, widths, spent = 0, [], []
    for r in range(args.repeats):
        stages, f = deal_tune(prof, args.lo, args.hi, args.target, args.games, seed=1000 + r)
        covered += f.ci_low <= truth <= f.ci_high
        widths.append(f.ci_high - f.ci_low)
        spent.append(sum(s.cost for s in stages))
    ci = binomtest(covered, args.repeats).proportion_ci(method="wilson")
    print(f"tune: coverage {covered}/{args.repeats} = {covered / args.repeats:.1%} (95% Wilson {ci.low:.1%}-"
          f"{ci.high:.1%}); width median {np.median(widths):.3f}, mean {np.mean(widths):.3f}; games spent median "
          f"{np.median(spent):,.0f} (budget {args.games:,})")
    grid = list(range(args.lo, args.hi + 1))
    for g in (int(x) for x in args.grid_games.split(",")):
        fits = [deal_grid(prof, grid, g, args.target, seed=5000 + r) for r in range(args.grid_repeats)]
        w = [f.ci_high - f.ci_low for f in fits]
        print(f"grid of every integer {args.lo}..{args.hi}, {g} games each = {g * len(grid):,} games: width median "
              f"{np.median(w):.3f} over {len(w)} sweeps; {np.mean(w):.3f} mean")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
