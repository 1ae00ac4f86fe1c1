"""Going out against an opponent one hand from elimination: an equity table's margin against its own model's.

    .venv/bin/python bench/near_elimination.py --profile kalooki40 [--games 1500] [--rows 4000] [--batches 10]
        [--seeds 1] [--hands 3000] [--table FILE]

At each total T the near-elimination test checks (tests/test_equity.py; docs/EQUITY.md, Assumptions), a
seat at T going out against an opponent 10 points below elimination (no buy-in left anywhere), minus
going out against the same opponent at T: the change in the seat's value when it goes out (the others
take the typical loser's penalty, those pushed over the limit are out), near minus far, in
points-equivalents (divided by the table's scale).  The table's margin is what
``sim.equity.hand_stakes`` reads from the grid (the shipped table's, or with ``--table`` that file's).
The model's is the same four values played on from each sheet itself (``sim.equity.played_on_value``),
``--rows`` rows of uniforms a batch shared by the four sheets (every row played in each rotation of the
seats in), ``--batches`` batches of new uniforms: mean and t 95% interval over batches.  Its sample
hands are made as the table's last pass makes them: every hand of ``--games`` whole games of four
experts playing by the table's stakes (``kalooki equity build``'s games, on the streams of each seed of
``--seeds``), pass 1's hands at random sheets (``--hands``, seed 1) filling the counts of players those
games rarely reach.  With several seeds, each seed's sample gives its own model: how far the margins
move with the hands drawn.  Nothing here is timed.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sim import equity as EQ  # noqa: E402
from sim import profiles  # noqa: E402
from sim.commands.equity import bots_for, collect_game_hands  # noqa: E402
from sim.game import Ledger  # noqa: E402

TOTALS = (15, 30, 40, 45, 60, 75, 90)  # the totals of the test, those below the near opponent's


def sheets(profile, total: float, typical: float) -> dict:
    """The four sheets of a margin at ``total``: far and near, now and after the seat goes out."""
    near_total = profile.eliminate_above - 10
    out = {}
    for label, totals in (("far", [total] * 4), ("near", [total, near_total, total, total])):
        now = Ledger(profile, 4)
        now.totals = list(map(float, totals))
        now.buy_ins = [profile.max_buy_ins] * 4  # no buy-ins left: an elimination is for good
        after = now.copy()
        totals, in_game = np.array(after.totals), np.array(after.in_game, dtype=np.bool_)
        # the others take the typical penalty as hand_stakes weighs a go-out (no buy-in left to take)
        EQ._after_others(EQ.rules_vector(profile, 4), totals, in_game, np.zeros(4, dtype=np.int64),
                         float(after.pool), 0, 0, typical)
        after.totals, after.in_game = totals.tolist(), in_game.tolist()
        out[label] = (now, after)
    return out


def model_margins(profile, samples, table, total: float, rows: int, batches: int) -> np.ndarray:
    four = sheets(profile, total, table.typical[4, 0])
    margins = []
    for b in range(batches):
        seed = np.random.SeedSequence([int(total * 100), b])

        def gain(label):
            now, after = four[label]
            return (EQ.played_on_value(profile, samples, after, 0, rows, seed)
                    - EQ.played_on_value(profile, samples, now, 0, rows, seed))

        margins.append((gain("near") - gain("far")) / table.scale)
    return np.array(margins)


def table_margin(profile, table, total: float) -> float:
    four = sheets(profile, total, table.typical[4, 0])
    return float(EQ.hand_stakes(profile, four["near"][0], table)[0, EQ.ST_WIN]
                 - EQ.hand_stakes(profile, four["far"][0], table)[0, EQ.ST_WIN])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--profile", default="kalooki40")
    ap.add_argument("--games", type=int, default=1500, help="whole games of sample hands a seed (the build's default)")
    ap.add_argument("--rows", type=int, default=4000, help="rows of uniforms a batch (each played in every rotation)")
    ap.add_argument("--batches", type=int, default=10)
    ap.add_argument("--seeds", default="1", help="seeds of the sample games, comma-separated")
    ap.add_argument("--hands", type=int, default=3000, help="pass 1's hands at random sheets (the build's default)")
    ap.add_argument("--table", metavar="FILE", help="the table to check (default: the shipped one)")
    a = ap.parse_args(argv)
    profile = profiles.load(a.profile)
    if profile.game_end != "elimination" or profile.max_buy_ins < 0:
        ap.error(f"--profile {a.profile}: an elimination profile is wanted")
    table = EQ.read(a.table) if a.table else EQ.load_table(profile, 4)
    if table is None or table.n != 4 or table.meta.get("profile") != profile.name:
        ap.error(f"--profile {a.profile}: no table of it at four players" + (f" in {a.table}" if a.table else ""))
    first = EQ.collect_hands(profile, 4, a.hands, 1, bots_for("expert"))
    totals = [t for t in TOTALS if t < profile.eliminate_above - 10]
    print(f"{profile.name}: going out against the near opponent minus against the far one, points-equivalents "
          f"(scale {table.scale:.4f}); the model: mean [t 95%] over {a.batches} batches of {a.rows * 4:,} games "
          f"a sheet")
    for seed in (int(s) for s in a.seeds.split(",")):
        samples = EQ.filled_from(collect_game_hands(profile, 4, a.games, seed, "expert", table), first)
        print(f"sample hands of {a.games:,} games, seed {seed}: {len(samples.winner):,} hands")
        for total in totals:
            m = model_margins(profile, samples, table, float(total), a.rows, a.batches)
            half = stats.t.ppf(0.975, len(m) - 1) * m.std(ddof=1) / np.sqrt(len(m))
            print(f"  at {total:>3}: model {m.mean():+6.1f} [{m.mean() - half:+6.1f}, {m.mean() + half:+6.1f}]   "
                  f"table {table_margin(profile, table, float(total)):+6.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
