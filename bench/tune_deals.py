"""A check of `kalooki tune` where the truth is known: P(a dealt hand can open) against opening_min.

The metric depends on the deal alone, so a "game" here is four dealt hands and its true curve over
opening_min is the survival function of a dealt hand's best meld value.  ``deal_tune`` runs tune's own
search (``sim.tune.search``) and fit (``analysis.tune``) on it; ``python -m bench.tune_deals`` measures
the 95% interval's coverage over seeded studies and the games a grid of every integer needs for the
same width (docs/PERFORMANCE.md; tests/test_tune.py runs a small one).
"""
from __future__ import annotations

import numpy as np

from analysis import tune as fitting
from analysis.tune import crossings
from sim.tune import block_seed, coarse_values, default_block_games, search


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
            from sim import meldsearch as ms
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
    from sim import meldsearch as ms
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
    values = np.arange(lo, lo + len(curve))
    return float(crossings(values, curve[None, :], target, increasing=False)[0])


def deal_tune(profile, lo: int, hi: int, target: float, budget: int, seed: int, block_games: int | None = None,
              threshold: float = 0.03, boot: int = 200):
    """tune on the deal study: (stages, fit)."""
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

    from sim import profiles
    p = argparse.ArgumentParser(prog="python -m bench.tune_deals", description=main.__doc__)
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
