"""How much pairing saves: 95% interval widths with and without common deals, at the same number of games.

    .venv/bin/python bench/pairing_gain.py [--bot-games 800] [--profile-games 3000] [--seed 1] [--workers 2]

(a) Bots: ``expert`` against three ``greedy`` bots in kalooki40 (and in east_coast, where each hand
    is a game, to see how much of the luck lies in the cards dealt).  Unpaired: an ordinary tournament of
    N games (seats rotated game by game, a new deal every game); the unit is the game, and the expert's
    hand-win share (hands it won / hands it played in the game) and net payment (units) are averaged
    over games.  Paired: a duplicate tournament of the same N games (N/4 deals, each played in all four
    rotations from a seat-keyed stock, sim.engine); the unit is the deal, each value the expert's
    average over the deal's rotations.  A third row keeps only each game's first hand, which every
    rotation plays from the same cards and the same seat-keyed stock with every seat in: the most a
    duplicate tournament can remove.
(b) Profiles: kalooki40 against swedish and against british, four greedy bots, N games per profile.
    Unpaired: ``simulate`` as before (each profile its own deals); the difference of the means of two
    independent samples of games, Welch interval.  Paired: ``simulate --paired`` (game g of both profiles
    from the same deal); the per-game differences, t interval over games.  Per game: hands per game
    (hands played, re-deals not counted), opening round (mean turn of the opening over the player-hands
    that opened) and Kalookis per hand (Kalooki wins / hands, void and stalled hands left out).

Every interval is a t 95% interval (Welch's for two independent samples).  ``games for the same width``
is how many games each design needs for the paired design's width at N games: the unpaired design
needs N x (unpaired width / paired width)^2 (widths shrink as 1/sqrt(games)).  The factor is itself
an estimate: each comes with a percentile bootstrap 95% interval, the units of each design resampled
independently.  Nothing here is timed.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.dataset as ds
from scipy import stats

from analysis.summaries import write_shard_summary
from sim import profiles, runconfig, runner
from sim.commands.tournament import deal_level
from sim.tournament import play_tournament

Z = 0.95
BOT_PROFILES = ("kalooki40", "east_coast")


def t_width(values) -> float:
    """Width of the t 95% interval of the mean of ``values``."""
    v = np.asarray(values, dtype=float)
    v = v[~np.isnan(v)]
    return 2 * stats.t.ppf(0.5 + Z / 2, v.size - 1) * v.std(ddof=1) / np.sqrt(v.size)


def welch_width(a, b) -> float:
    """Width of Welch's 95% interval of mean(b) - mean(a) for independent samples."""
    a, b = (np.asarray(x, dtype=float) for x in (a, b))
    a, b = a[~np.isnan(a)], b[~np.isnan(b)]
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    df = (va + vb) ** 2 / (va ** 2 / (a.size - 1) + vb ** 2 / (b.size - 1))
    return 2 * stats.t.ppf(0.5 + Z / 2, df) * np.sqrt(va + vb)


BOOTSTRAP = 2000


def _values(x) -> np.ndarray:
    v = np.asarray(x, dtype=float)
    return v[~np.isnan(v)]


def factor_interval(unpaired: list, paired, seed: int) -> tuple[float, float]:
    """95% percentile bootstrap interval of the factor: the unpaired samples (one for a tournament, two
    for independent runs) and the paired sample are resampled independently, each over its own units
    (games, or deals of a duplicate tournament)."""
    rng = np.random.default_rng(seed)
    unpaired, paired = [_values(u) for u in unpaired], _values(paired)
    out = []
    with np.errstate(all="ignore"):
        for _ in range(BOOTSTRAP):
            u = [x[rng.integers(0, x.size, x.size)] for x in unpaired]
            p = paired[rng.integers(0, paired.size, paired.size)]
            wu = t_width(u[0]) if len(u) == 1 else welch_width(*u)
            wp = t_width(p)
            out.append((wu / wp) ** 2 if wp > 0 else np.inf)
    lo, hi = np.nanquantile(out, [0.025, 0.975])
    return float(lo), float(hi)


def row(comparison: str, metric: str, unit: str, n_games: int, estimate: float, unpaired: list, paired,
        seed: int) -> dict:
    """One comparison: ``unpaired`` holds the unpaired design's per-unit values (one sample, or the two
    independent samples whose means are compared), ``paired`` the paired design's."""
    wu = t_width(unpaired[0]) if len(unpaired) == 1 else welch_width(*unpaired)
    wp = t_width(paired)
    factor = (wu / wp) ** 2 if wp > 0 else float("inf")
    lo, hi = factor_interval(unpaired, paired, seed) if wp > 0 else (float("inf"), float("inf"))
    return dict(comparison=comparison, metric=metric, unit=unit, games=n_games, estimate=estimate,
                width_unpaired=wu, width_paired=wp, games_for_same_width_unpaired=n_games * factor,
                games_for_same_width_paired=n_games, factor=factor, factor_lo=lo, factor_hi=hi)


# ---------------------------------------------------------------------------------------------
# (a) expert against three greedy bots

def bot_gain(profile: str, games: int, seed: int, workers: int) -> list[dict]:
    prof = profiles.load(profile)
    bots = ["expert", "greedy", "greedy", "greedy"]
    plain = play_tournament(prof, bots, games, seed, workers=workers)
    dup = play_tournament(prof, bots, games, seed, workers=workers, duplicate=True)
    def expert_hands(tables):  # the expert's player-hands, void and stalled hands left out
        h = tables["hands"].to_pandas()
        return h[~h["void"] & ~h["stalled"] & (h["bot"] == "expert")]

    def first_hands(h):
        return h[(h["hand_no"] == 1) & (h["redeal_no"] == 0)]

    hands = expert_hands(plain)
    per_game_share = hands.groupby("game_id")["won"].mean()
    g = plain["games"].to_pandas()
    per_game_pay = g[g["bot"] == "expert"].set_index("game_id")["net_payment"]
    per_deal = deal_level(dup, len(bots))
    e = per_deal[per_deal["bot"] == "expert"]
    # the limit of the design: a game's first hand is dealt alike, with the same seat-keyed stock, in
    # every rotation, and every seat is still in, so the only difference between rotations is where the
    # expert sits (and what its play changes from its first turn)
    first = first_hands(hands).groupby("game_id")["won"].mean()
    dh = first_hands(expert_hands(dup))
    first_dup = dh.assign(deal=dh["game_id"] // len(bots)).groupby("deal")["won"].mean()
    name = f"expert vs 3 greedy ({profile})"
    return [row(name, "expert hand-win share", "share of its hands", games, e["hand_win"].mean(),
                [per_game_share], e["hand_win"], seed),
            row(name, "expert net payment per game", "units per game", games, e["net_payment"].mean(),
                [per_game_pay], e["net_payment"], seed),
            row(name, "expert hand-win share, first hands only", "share of first hands", games,
                first_dup.mean(), [first], first_dup, seed)]


# ---------------------------------------------------------------------------------------------
# (b) kalooki40 against swedish and british

def per_game_metrics(run_dir: Path) -> pd.DataFrame:
    """One row per (profile, game): hands per game, mean opening round, Kalookis per hand."""
    games = ds.dataset(run_dir / "games", format="parquet", partitioning="hive").to_table(
        columns=["profile", "game_id", "hands_played"]).to_pandas()
    hands = ds.dataset(run_dir / "hands", format="parquet", partitioning="hive").to_table(
        columns=["profile", "game_id", "hand_no", "redeal_no", "open_round", "won", "win_type", "void",
                 "stalled"]).to_pandas()
    games["profile"] = games["profile"].astype(str)
    hands["profile"] = hands["profile"].astype(str)
    played = hands[~hands["void"] & ~hands["stalled"]]
    key = ["profile", "game_id"]
    kalookis = played.assign(k=played["won"] & (played["win_type"] == "kalooki")).groupby(key)["k"].sum()
    n_hands = played.drop_duplicates(key + ["hand_no", "redeal_no"]).groupby(key).size()
    out = games.drop_duplicates(key).set_index(key)[["hands_played"]].rename(columns={"hands_played": "hands_per_game"})
    out["opening_round"] = played.groupby(key)["open_round"].mean()
    out["kalookis_per_hand"] = kalookis / n_hands
    return out.reset_index()


METRICS = [("hands_per_game", "hands per game", "hands"), ("opening_round", "opening round", "turns"),
           ("kalookis_per_hand", "Kalookis per hand", "share of hands")]


def simulate(out: Path, games: int, seed: int, paired: bool, workers: int) -> pd.DataFrame:
    cfg = runconfig.make_config(None, None, profiles=["kalooki40", "swedish", "british"], games=games, seed=seed,
                                out=str(out), shard_games=max(1, games // (2 * workers)), workers=workers,
                                paired=paired)
    runner.run(cfg, summarise=write_shard_summary, local=workers <= 1, progress=False,
               log=lambda m: print(m, file=sys.stderr))
    return per_game_metrics(out)


def profile_gain(games: int, seed: int, workers: int, root: Path) -> list[dict]:
    unpaired = simulate(root / "unpaired", games, seed, False, workers)
    paired = simulate(root / "paired", games, seed, True, workers)
    rows = []
    for other in ("swedish", "british"):
        a = paired[paired["profile"] == "kalooki40"].set_index("game_id")
        b = paired[paired["profile"] == other].set_index("game_id")
        ua = unpaired[unpaired["profile"] == "kalooki40"]
        ub = unpaired[unpaired["profile"] == other]
        for col, label, unit in METRICS:
            diff = (b[col] - a[col]).dropna()
            rows.append(row(f"{other} - kalooki40", label, unit, games, diff.mean(),
                            [ua[col], ub[col]], diff, seed))
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bot-games", type=int, default=800, help="games of each tournament (a multiple of 4)")
    ap.add_argument("--profile-games", type=int, default=3000, help="games per profile of each run")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    args = ap.parse_args(argv)
    if args.bot_games % 4 or args.bot_games < 8 or args.profile_games < 2:
        ap.error("--bot-games must be a multiple of 4 (>= 8) and --profile-games >= 2")
    t0 = time.perf_counter()
    rows = [r for p in BOT_PROFILES for r in bot_gain(p, args.bot_games, args.seed, args.workers)]
    with tempfile.TemporaryDirectory() as tmp:
        rows += profile_gain(args.profile_games, args.seed, args.workers, Path(tmp))
    frame = pd.DataFrame(rows)
    pd.set_option("display.width", 200)
    shown = frame.assign(**{c: frame[c].round(4) for c in ("estimate", "width_unpaired", "width_paired")},
                         factor=frame["factor"].round(2), factor_lo=frame["factor_lo"].round(2),
                         factor_hi=frame["factor_hi"].round(2),
                         games_for_same_width_unpaired=frame["games_for_same_width_unpaired"].round(0))
    print(shown.drop(columns=["unit"]).to_string(index=False))
    print(f"\n95% interval widths at the same number of games; factor = (unpaired width / paired width)^2 = "
          f"how many times more games the unpaired design needs, with a {BOOTSTRAP}-resample percentile "
          f"bootstrap 95% interval (units resampled within each design); seed {args.seed}; "
          f"{time.perf_counter() - t0:.0f} s")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1, default=float) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
