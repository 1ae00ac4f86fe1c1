"""How much skill decides a profile: strengths of a set of players fitted on their games, and the
share of game results the strengths leave to luck, each against what chance alone gives.

Input: the ``games`` table of a duplicate run (``kalooki skill``), where game g is rotation
``g % n`` of deal ``g // n`` (n = the game's players), and for elimination profiles the ``hands``
table's knock-outs (``load_games``).  Every measure is per profile and is computed from per-deal
counts, so that the intervals can resample deals.

The finishing order (``places``, ``PLACE_NOTE``): the winner first; in an elimination game then those
still in at the end by penalty total, then those knocked out for good, the last knocked out first.
Players knocked out for good in the same hand share a place, as do players level on their totals: a
tie, never decided by seat (the recorded ``finish_rank`` orders them by seat from the hand's winner).

The model.  Bradley-Terry on pairwise results from the finishing order (full rank breaking): in each
game, every pair of seats held by two different players is one head-to-head result, won by the player
with the better place, a half to each where they share one.  P(i finishes ahead of j) =
1 / (1 + exp(-(r_i - r_j))), ratings r in log-odds, fitted by maximum likelihood (Newton's method) with
a normal prior of standard deviation ``PRIOR_SD`` on every rating, which keeps the fit finite when one
player always finishes ahead of another and moves it by well under the intervals otherwise; the
ratings are centred (mean 0).  The pairwise results of one game are not independent; the intervals
are made by resampling whole deals.

The chance benchmark (``chance_null``): the study's games kept (who sat at which game), each game's
places and payments shuffled among its seats, the players refitted, ``CHANCE`` times from a stream of
the profile's seed.  A fit finds some spread in pure chance (about 30 Elo points at 100 deals, less
with more), so every measure is shown beside the benchmark's median and 95% range and as its excess
over the median.

The measures (all "players" are the measured set, so compare profiles measured with the same set):

- ``spread``: the rating of the strongest player minus that of the weakest, in log-odds (``elo``:
  the same times 400 / ln 10, Elo points); ``spans`` names the two players.
- ``adjacent_win``: with the players ordered by rating, the mean over neighbouring pairs of the fitted
  probability that the stronger finishes ahead of the weaker in a game where both play.
- ``luck_share``: the share of the variation in head-to-head results that the fitted strengths do not
  explain beyond what they explain in pure chance: the mean over head-to-head results (pairs of
  different players at one game) of (y - p)^2, y = 1 if the first of the pair finished ahead (1/2 for
  a shared place), p its fitted probability, divided by the same in the chance benchmark (its median;
  the raw value, over a coin flip's 1/4, is ``raw_luck_share``).  1 = no more predicted than in pure
  chance of this size, 0 = the strengths predict every result.
- ``coin_flip_share``: the luck share on a scale a reader knows: the share c of games that would have
  to be decided by a coin flip (a uniformly random finishing order), in a game where otherwise the
  stronger player always finishes ahead, to leave this luck share.  Such a game has
  P(stronger ahead) = 1 - c/2 and so luck share c(2 - c); hence c = 1 - sqrt(1 - luck_share), 1 at
  a luck share of 1 or more: a study of pure chance reads 1 at least half of the time and otherwise
  lies within the benchmark's range.  The luck share and the coin-flip share are one quantity: only
  the coin-flip share is judged (``THRESHOLD_KEYS``).
- Money (profiles where money changes hands): ``pay_spread``: the highest mean net payment per game of a
  player minus the lowest, in units per game; ``pay_luck_share``: the share of the variance of net
  payment over player-games (each player's payment in each game) not explained by the players'
  means (1 - R^2 of net payment on the player), over its median in the chance benchmark.

Intervals: percentile bootstrap over deals (``BOOT`` replicates by default, from the seed given): each
replicate draws the deals with replacement and refits; the order of the players (who is strongest,
who neighbours whom) stays that of the full-sample fit.  A study draws the same deals for every
profile in each replicate, so its replicates are paired by deal across profiles.

The players' order is measured, never assumed: the players are listed by fitted rating, and each
one's lead over the next down (``ahead_of_next``, log-odds) comes with the percentile interval of
that difference over the same replicates; ``order_text`` names the neighbours whose order the
interval establishes and those it does not.

Robustness (``leave_one_out``): every measure refitted without each player in turn, against its own
chance benchmark.  ``profile_ranking``: "skill decides more in X than in Y" only for a clear paired
difference of the coin-flip share (Holm over the pairs of profiles) that no single player's absence
reverses; a clear one that does is named as resting on that player.

Compared (``measure_difference``, ``compare_fits``: ``kalooki compare``, ``kalooki sweep --skill``,
the study's own profile differences): B minus A of each measure's excess over chance over joint
replicates, paired by deal where both sides dealt their deals from the same seed, judged against the
``skill_*`` thresholds, with the players a clear difference rests on.  A study kept beside a run
(RUN/skill/) is found by ``find_fit``; the balance report draws it (``analysis.report.skill_section``).
"""
from __future__ import annotations

import json
import math
import textwrap

import numpy as np
import pandas as pd

from . import stats

PRIOR_SD = 10.0  # log-odds; a normal prior on every rating
BOOT = 1000  # bootstrap replicates over deals by default
LEVEL = 0.95
ELO_PER_LOGIT = 400.0 / math.log(10.0)

GAMES_COLUMNS = ["profile", "game_id", "n_players", "seat", "bot", "finish_rank", "net_payment"]

MEASURES = {  # name: (unit, denominator)
    "spread": ("log-odds", "the strongest player's rating minus the weakest's"),
    "spread_elo": ("Elo points", "the spread times 400 / ln 10"),
    "adjacent_win": ("probability", "mean over neighbouring pairs (by rating) of P(stronger finishes ahead)"),
    "luck_share": ("share", "head-to-head results of different players at one game; mean (y - p)^2 over its "
                            "median in the chance benchmark (1 = pure chance)"),
    "coin_flip_share": ("share of games", "games decided by a coin flip in a stronger-always-wins game with "
                                          "this luck share: 1 - sqrt(1 - luck_share), 1 at a luck share of 1 or more"),
    "pay_spread": ("units per game", "the highest player's mean net payment per game minus the lowest's"),
    "pay_luck_share": ("share", "player-games; residual over total variance of net payment, player means fitted, "
                                "over its median in the chance benchmark (1 = pure chance)"),
}


class DealCounts:
    """A profile's games reduced to per-deal counts: ``wins[d, i, j]`` head-to-head results in deal d
    where player i finished ahead of player j (a tie, two players sharing a place, counts a half to
    each way); ``pay[d, k]`` (player-games, sum, sum of squares) of player k's net payment.  The
    per-game arrays they come from (``who``, ``place``, ``value``: game x seat; ``deal``: each game's
    deal index) are kept for the chance benchmark, which shuffles the places within games."""

    def __init__(self, players, deals, wins, pay, who=None, place=None, value=None, deal=None):
        self.players, self.deals, self.wins, self.pay = list(players), np.asarray(deals), wins, pay
        self.who, self.place, self.value, self.deal = who, place, value, deal

    @classmethod
    def of(cls, games: pd.DataFrame, players=None) -> "DealCounts":
        """From games table rows; the finishing order is ``place`` where the rows carry it (ties equal:
        ``places``), else ``finish_rank``."""
        g = games.sort_values(["game_id", "seat"])
        names = sorted(set(g["bot"].astype(str))) if players is None else list(players)
        index = {p: k for k, p in enumerate(names)}
        unknown = sorted(set(g["bot"].astype(str)) - set(index))
        if unknown:
            raise ValueError(f"players {', '.join(unknown)} are not among {', '.join(names)}")
        sizes = g.groupby("game_id")["seat"].size()
        if sizes.nunique() != 1:
            raise ValueError("games of different sizes in one profile; a skill study seats the same number "
                             "in every game")
        n = int(sizes.iloc[0])
        game_ids = g["game_id"].to_numpy(np.int64).reshape(-1, n)[:, 0]
        who = g["bot"].astype(str).map(index).to_numpy(np.int64).reshape(-1, n)
        place = g["place" if "place" in g else "finish_rank"].to_numpy(np.float64).reshape(-1, n)
        deals, d = np.unique(game_ids // n, return_inverse=True)
        K, D = len(names), len(deals)
        value = g["net_payment"].to_numpy(np.float64).reshape(-1, n)
        return cls(names, deals, pair_wins(who, place, d, D, K), payment_sums(who, value, d, D, K),
                   who, place, value, d)

    def shuffled(self, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """(wins, pay) summed over deals with each game's places and payments shuffled among its seats
        (pure chance, the design kept: who sat at which game)."""
        perm = np.argsort(rng.random(self.place.shape), axis=1)
        place = np.take_along_axis(self.place, perm, axis=1)
        value = np.take_along_axis(self.value, perm, axis=1)
        K = len(self.players)
        zero = np.zeros(len(self.deal), np.int64)
        return pair_wins(self.who, place, zero, 1, K)[0], payment_sums(self.who, value, zero, 1, K)[0]


def pair_wins(who: np.ndarray, place: np.ndarray, deal: np.ndarray, D: int, K: int) -> np.ndarray:
    """wins[d, i, j]: head-to-head results of games (rows of ``who``, ``place``: seat's player and place,
    lower ahead) in deal d where i finished ahead of j; a shared place counts a half to each way."""
    a, b = np.triu_indices(who.shape[1], 1)
    i, j = who[:, a].ravel(), who[:, b].ravel()
    pa, pb = place[:, a].ravel(), place[:, b].ravel()
    dd = np.repeat(deal, len(a))
    differ = i != j
    score = np.where(pa < pb, 1.0, np.where(pa > pb, 0.0, 0.5))[differ]
    i, j, dd = i[differ], j[differ], dd[differ]
    size = D * K * K
    wins = np.bincount((dd * K + i) * K + j, weights=score, minlength=size)
    wins += np.bincount((dd * K + j) * K + i, weights=1.0 - score, minlength=size)
    return wins.reshape(D, K, K)


def payment_sums(who: np.ndarray, value: np.ndarray, deal: np.ndarray, D: int, K: int) -> np.ndarray:
    """pay[d, k] = (player-games, sum, sum of squares) of player k's net payment in deal d."""
    cell = (np.repeat(deal, who.shape[1]) * K + who.ravel())
    v = value.ravel()
    return np.stack([np.bincount(cell, weights=w, minlength=D * K) for w in (np.ones_like(v), v, v * v)],
                    axis=-1).reshape(D, K, 3)


PLACE_NOTE = (
    "Finishing order: the game's winner first; in an elimination game then those still in at the end (a game "
    "stopped at the hand cap) by penalty total, lowest first, then those knocked out for good, the last "
    "knocked out first; players knocked out for good in the same hand share a place, as do players level on "
    "penalty total (or on points in a target game). A shared place is a tie: half a win to each of the pair.")


def places(games: pd.DataFrame, hands: pd.DataFrame | None, game_end: str) -> pd.Series:
    """Each games row's place in its game (1 = winner; ties share the mean of their places), from what
    the run records: for ``game_end`` "elimination" the hand in which each player was knocked out for
    good (``hands``: eliminated and not bought back in), else the final totals (``PLACE_NOTE``)."""
    g = games
    if game_end == "elimination" and hands is None:
        return g["finish_rank"].astype(np.float64)
    total = g["final_penalty_total"].to_numpy(np.float64)
    winner = g["finish_rank"].to_numpy() == 1
    if game_end == "target":
        standing = -total
    elif game_end == "elimination":
        h = hands[hands["eliminated"].astype(bool) & ~hands["bought_in"].astype(bool)]
        out = h.groupby(["game_id", "seat"], observed=True)["hand_no"].max()
        key = pd.MultiIndex.from_arrays([g["game_id"].to_numpy(), g["seat"].to_numpy()])
        out_hand = out.reindex(key).to_numpy(np.float64)
        # still in: ranked by total (below every knocked-out player); knocked out: the later hand ahead
        standing = np.where(np.isnan(out_hand), total, 1e9 - np.nan_to_num(out_hand))
    else:
        standing = total
    standing = np.where(winner, -np.inf, standing)
    return pd.Series(standing, index=g.index).groupby(g["game_id"].to_numpy()).rank(method="average")


def fit_ratings(wins: np.ndarray, prior_sd: float = PRIOR_SD, start: np.ndarray | None = None) -> np.ndarray:
    """Bradley-Terry ratings (log-odds, mean 0) maximising the likelihood of ``wins[i, j]`` (i ahead of j;
    a tie counts half to each) times a normal prior of sd ``prior_sd`` on every rating: Newton's method
    with step halving on the penalised log-likelihood (strictly concave: its gradient and Hessian in
    closed form), from ``start`` (a nearby fit: a bootstrap replicate's full-sample ratings) or 0, until
    no rating moves by 1e-10."""
    K = wins.shape[0]
    lam = 1.0 / prior_sd ** 2
    n = wins + wins.T
    won = wins.sum(axis=1)

    def objective(r):
        diff = r[:, None] - r[None, :]
        # -log sigmoid(diff) = log(1 + exp(-diff)), stably
        return float((wins * np.logaddexp(0.0, -diff)).sum()) + 0.5 * lam * float(r @ r)

    r = np.zeros(K) if start is None else np.asarray(start, np.float64).copy()
    f = objective(r)
    for _ in range(200):
        p = _sigmoid(r[:, None] - r[None, :])
        grad = (n * p).sum(axis=1) - won + lam * r  # expected minus observed wins
        w = n * p * (1.0 - p)
        step = np.linalg.solve(np.diag(w.sum(axis=1)) - w + lam * np.eye(K), grad)
        t = 1.0
        while True:
            trial = r - t * step
            f_trial = objective(trial)
            if f_trial <= f + 1e-12 * abs(f) or t < 1e-8:
                break
            t *= 0.5
        r, f = trial, f_trial
        if float(np.max(np.abs(t * step))) < 1e-10:
            break
    return r - r.mean()


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


CORRECTED = ("luck_share", "coin_flip_share", "pay_luck_share")  # scaled so that pure chance reads 1


def measures_of(wins: np.ndarray, pay: np.ndarray, order: np.ndarray | None, money: bool,
                ratings: np.ndarray | None = None, chance: dict | None = None,
                start: np.ndarray | None = None) -> tuple[np.ndarray, dict]:
    """(ratings, measures) from summed counts; ``order``: the players strongest first (fixed by the
    full-sample fit; None: this fit's own).  ``chance``: the chance benchmark's medians of the raw luck
    shares (``raw_luck_share``: mean (y - p)^2 over 1/4; ``raw_pay_luck_share``), which the luck
    shares are divided by so that pure chance reads 1 (None: divided by 1, the raw values)."""
    r = fit_ratings(wins, start=start) if ratings is None else ratings
    order = np.argsort(-r, kind="stable") if order is None else order
    chance = chance or {}
    out = {}
    out["spread"] = float(r[order[0]] - r[order[-1]])
    out["spread_elo"] = out["spread"] * ELO_PER_LOGIT
    out["adjacent_win"] = float(np.mean(_sigmoid(r[order[:-1]] - r[order[1:]]))) if len(order) > 1 else math.nan
    p = _sigmoid(r[:, None] - r[None, :])
    total = wins.sum()
    raw = float(4.0 * (wins * (1.0 - p) ** 2).sum() / total) if total > 0 else math.nan
    out["raw_luck_share"] = raw
    out["luck_share"] = luck = raw / chance.get("raw_luck_share", 1.0)
    out["coin_flip_share"] = coin_flip_share(luck)
    if money:
        n, s, q = pay[:, 0], pay[:, 1], pay[:, 2]
        seen = n > 0
        means = np.where(seen, s / np.where(seen, n, 1.0), np.nan)
        out["pay_spread"] = float(np.nanmax(means) - np.nanmin(means))
        N, S, Q = n.sum(), s.sum(), q.sum()
        ss_tot = Q - S * S / N
        ss_res = float((q - np.where(seen, s * s / np.where(seen, n, 1.0), 0.0)).sum())
        out["raw_pay_luck_share"] = raw_pay = ss_res / ss_tot if ss_tot > 0 else math.nan
        out["pay_luck_share"] = raw_pay / chance.get("raw_pay_luck_share", 1.0)
    return r, out


def coin_flip_share(luck: float) -> float:
    """The share c of games a coin flip decides, in a game the stronger otherwise always wins, that
    leaves this luck share (c (2 - c) = luck; 1 at a luck share of 1 or more)."""
    return 1.0 - math.sqrt(max(0.0, 1.0 - luck)) if luck == luck else math.nan


def _rescaled(m: dict, chance: dict) -> dict:
    """A replicate's measures (fitted with ``chance`` None) on the corrected scale of ``chance``."""
    out = dict(m)
    out["luck_share"] = m["raw_luck_share"] / chance["raw_luck_share"]
    out["coin_flip_share"] = coin_flip_share(out["luck_share"])
    if "raw_pay_luck_share" in m:
        out["pay_luck_share"] = m["raw_pay_luck_share"] / chance["raw_pay_luck_share"]
    return out


CHANCE = 199  # shuffles of the chance benchmark per profile (odd: the median is one shuffle's value, so that
# the coin-flip share of the median luck share, 1, is the median coin-flip share)
LOO_CHANCE = 99  # of them refitted without each player for the leave-one-out fits


def chance_null(counts: DealCounts, money: bool, shuffles: int, rng: np.random.Generator) -> pd.DataFrame:
    """The chance benchmark: ``shuffles`` times, every game's places (and payments) shuffled among its
    seats, the players refitted and every measure taken as for the study (each shuffle's own strongest
    and weakest): a row per shuffle, the raw luck shares included; the shuffles' summed counts in
    ``attrs["counts"]`` (a list of (wins, pay)) for the leave-one-out fits."""
    rows, kept = [], []
    for _ in range(shuffles):
        W, P = counts.shuffled(rng)
        kept.append((W, P))
        rows.append(measures_of(W, P, None, money)[1])
    out = pd.DataFrame(rows)
    out.attrs["counts"] = kept
    return out


def chance_medians(null: pd.DataFrame) -> dict:
    """The medians of the raw luck shares over the chance benchmark's shuffles (``measures_of``'s
    ``chance``)."""
    return {k: float(np.median(null[k])) for k in ("raw_luck_share", "raw_pay_luck_share") if k in null}


def _seed_sequence(seed) -> np.random.SeedSequence:
    return seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(int(seed))


def chance_stream(seed) -> np.random.Generator:
    """The chance benchmark's own stream from a profile's seed (apart from its bootstrap's)."""
    ss = _seed_sequence(seed)
    return np.random.default_rng(np.random.SeedSequence(ss.entropy, spawn_key=tuple(ss.spawn_key) + (7,)))


def measure(games: pd.DataFrame, players=None, boot: int = BOOT, seed=0, level: float = LEVEL,
            chance: int = CHANCE, weights: np.ndarray | None = None, leave_out: bool = True) -> dict:
    """A profile's fit: ``players`` (a row per player in the fitted order, strongest first: rating with
    its interval, its lead over the next player down with that difference's interval (``ahead_of_next``:
    the order between the two is established where the interval lies above 0), Elo, games, share of
    games won, mean finish rank, mean net payment), ``measures`` (a row per measure: estimate, interval,
    the chance benchmark's median and 95% range, the excess over chance with its interval, unit,
    denominator, and for a spread the two players it spans), ``replicates`` (every bootstrap
    replicate's measures, for differences between profiles), ``chance`` (the benchmark's shuffles) and
    ``leave_one_out`` (every measure refitted without each player, with its own benchmark).
    ``games``: one profile's rows of the games table (``GAMES_COLUMNS``, with ``place`` where ties are
    known).  ``seed`` seeds the bootstrap (unless ``weights``, replicates x deals, are given) and,
    apart, the chance benchmark (``chance`` shuffles; 0: none, the luck shares then raw)."""
    counts = DealCounts.of(games, players)
    money = bool((games["net_payment"] != 0).any())
    W, P = counts.wins.sum(axis=0), counts.pay.sum(axis=0)
    r = fit_ratings(W)
    order = np.argsort(-r, kind="stable")
    null_rng = chance_stream(seed)
    null = chance_null(counts, money, chance, null_rng) if chance else pd.DataFrame()
    refs = chance_medians(null) if chance else {}
    shuffled = null.attrs.get("counts", [])
    null = pd.DataFrame([_rescaled(m, refs) for m in null.to_dict("records")]) if chance else null
    null.attrs["counts"] = shuffled
    _, point = measures_of(W, P, order, money, r, refs)
    rng = np.random.default_rng(_seed_sequence(seed))
    D = len(counts.deals)
    if weights is None:
        weights = np.array([stats.bootstrap_weights(rng, D) for _ in range(boot)]).reshape(boot, D)
    reps, rep_r = [], []
    for b, k in enumerate(weights):
        rb, mb = measures_of(np.tensordot(k, counts.wins, axes=1), np.tensordot(k, counts.pay, axes=1), order, money,
                             chance=refs, start=r)
        rep_r.append(rb)
        reps.append({"replicate": b, **mb})
    boot = len(weights)
    rep = pd.DataFrame(reps, columns=["replicate"] + list(point))
    rep_r = np.array(rep_r).reshape(boot, len(r))

    names = counts.players
    spans = f"{names[order[0]]} to {names[order[-1]]}"
    mrows = []
    for name, est in point.items():
        if name not in MEASURES:
            continue
        lo, hi = stats.percentile_interval(rep[name], level) if boot else (math.nan, math.nan)
        c = float(np.median(null[name])) if chance else math.nan
        c_lo, c_hi = stats.percentile_interval(null[name], level) if chance else (math.nan, math.nan)
        unit, denom = MEASURES[name]
        mrows.append(dict(measure=name, estimate=est, ci_low=lo, ci_high=hi, chance=c, chance_low=c_lo,
                          chance_high=c_hi, excess=est - c, excess_low=lo - c, excess_high=hi - c, unit=unit,
                          denominator=denom, spans=spans if name in ("spread", "spread_elo") else ""))
    if money:
        means = counts.pay.sum(axis=0)
        means = means[:, 1] / np.maximum(means[:, 0], 1)
        for row in mrows:
            if row["measure"] == "pay_spread":
                row["spans"] = f"{names[int(np.argmax(means))]} to {names[int(np.argmin(means))]}"
    g = games.assign(bot=games["bot"].astype(str))
    per = g.groupby("bot").agg(games=("game_id", "size"), won=("finish_rank", lambda x: float((x == 1).mean())),
                               mean_rank=("finish_rank", "mean"), net_payment=("net_payment", "mean"))
    prows = []
    for i, k in enumerate(order):
        name = counts.players[k]
        lo, hi = stats.percentile_interval(rep_r[:, k], level) if boot else (math.nan, math.nan)
        row = per.loc[name] if name in per.index else None
        below = order[i + 1] if i + 1 < len(order) else None  # the next player down the fitted order
        gap = float(r[k] - r[below]) if below is not None else math.nan
        gap_lo, gap_hi = stats.percentile_interval(rep_r[:, k] - rep_r[:, below], level) \
            if boot and below is not None else (math.nan, math.nan)
        prows.append(dict(player=name, strength_rank=len(prows) + 1, rating=float(r[k]), rating_lo=lo, rating_hi=hi,
                          ahead_of_next=gap, ahead_of_next_lo=gap_lo, ahead_of_next_hi=gap_hi,
                          elo=float(r[k] * ELO_PER_LOGIT), games=int(row["games"]) if row is not None else 0,
                          game_win=float(row["won"]) if row is not None else math.nan,
                          mean_finish_rank=float(row["mean_rank"]) if row is not None else math.nan,
                          net_payment=float(row["net_payment"]) if row is not None else math.nan))
    loo = leave_one_out(counts, money, null.attrs.get("counts", [])[:LOO_CHANCE]) \
        if leave_out and len(names) > 2 else pd.DataFrame(columns=LOO_COLUMNS)
    return {"players": pd.DataFrame(prows), "measures": pd.DataFrame(mrows), "replicates": rep,
            "deals": D, "money": money, "counts": counts, "order": order, "chance": refs, "null": null,
            "leave_one_out": loo}


LOO_COLUMNS = ["left_out", "measure", "estimate", "chance", "excess", "spans"]


def leave_one_out(counts: DealCounts, money: bool, shuffled: list) -> pd.DataFrame:
    """Every measure refitted without each player in turn (its head-to-head results and payments left
    out; the games kept for the others), each against its own chance benchmark (the chance benchmark's
    ``shuffled`` counts, (wins, pay) per shuffle, without the player; none: raw luck shares, no
    chance column): a row per (left-out player, measure)."""
    rows = []
    K = len(counts.players)
    W, P = counts.wins.sum(axis=0), counts.pay.sum(axis=0)
    for k in range(K):
        keep = np.array([i for i in range(K) if i != k])
        null = pd.DataFrame([measures_of(Wn[np.ix_(keep, keep)], Pn[keep], None, money)[1] for Wn, Pn in shuffled])
        refs = chance_medians(null) if len(null) else {}
        null = pd.DataFrame([_rescaled(m, refs) for m in null.to_dict("records")]) if len(null) else null
        r, m = measures_of(W[np.ix_(keep, keep)], P[keep], None, money, chance=refs)
        order = np.argsort(-r, kind="stable")
        spans = f"{counts.players[keep[order[0]]]} to {counts.players[keep[order[-1]]]}"
        for name, est in m.items():
            if name in MEASURES:
                c = float(np.median(null[name])) if len(null) else math.nan
                rows.append(dict(left_out=counts.players[k], measure=name, estimate=est, chance=c, excess=est - c,
                                 spans=spans if name in ("spread", "spread_elo") else ""))
    return pd.DataFrame(rows, columns=LOO_COLUMNS)


SKILL_DIR = "skill"
FILES = ("players", "measures", "replicates", "leave_one_out")


def load_games(run, profiles) -> pd.DataFrame:
    """The games rows of ``profiles`` with each player's ``place`` (``places``: ties shared), read from
    the run's games table and, for elimination profiles, the hands in which players were knocked out."""
    from .load import load_table, read_manifest
    games = load_table(run, "games", GAMES_COLUMNS + ["final_penalty_total"], profiles)
    entries = read_manifest(run).get("profiles") or {}
    ends = {p: ((entries.get(p) or {}).get("params") or {}).get("game_end", "elimination") for p in profiles}
    knocked = [p for p in profiles if ends[p] == "elimination"]
    hands = load_table(run, "hands", ["profile", "game_id", "hand_no", "seat", "eliminated", "bought_in"],
                       knocked) if knocked else None
    place = pd.Series(np.nan, index=games.index)
    for p in profiles:
        mine = games["profile"].astype(str) == p
        h = None if hands is None or ends[p] != "elimination" else hands[hands["profile"].astype(str) == p]
        if h is not None:
            h = h.assign(eliminated=h["eliminated"].fillna(False).astype(bool),
                         bought_in=h["bought_in"].fillna(False).astype(bool))
        place[mine] = places(games[mine], h, ends[p])
    return games.assign(place=place)


def _profile_seed(seed: int, profile: str) -> np.random.SeedSequence:
    import zlib
    return np.random.SeedSequence(int(seed), spawn_key=(zlib.crc32(profile.encode()),))


def read_fit_mark(loc) -> dict | None:
    """A fit folder's skill.json as ``sim.storage.claim_output`` reads a mark (None where there is none)."""
    from sim import runformat
    data = runformat.read_bytes(loc.fs, loc.path("skill.json"))
    if data is None:
        return None
    meta = json.loads(data)
    return {"kind": "skill fit", "identity": {}, "about": "the skill fit",
            "settings": {"boot": meta.get("boot"), "seed": meta.get("seed"), "players": meta.get("players"),
                         "profiles": meta.get("profiles")}}


def fit_run(out, profiles, players, boot: int = BOOT, seed: int = 0, command: str = "", run_id=None, log=None,
            force: bool = False) -> dict:
    """Fit every profile of a skill run in ``out`` and write ``OUT/skill/{players,measures,replicates}.parquet``
    and ``OUT/skill/skill.json`` (the fit's settings, the measures' definitions and the files with
    their sha256).  The folder is written whole and moved into place (``sim.storage.write_whole``): a
    fit with other settings (``boot``, ``seed``) replaces the old one with a line to ``log``; a folder
    no fit marked is refused unless ``force``.  The profiles' bootstraps draw the same deals in each
    replicate (one stream from the seed; the study deals deal d alike in every profile), so that the
    stored replicates are paired by deal; the chance benchmark of each profile has its own stream from
    (seed, profile).  Returns the study (``profiles``: name -> ``measure``'s dict)."""
    import pyarrow as pa

    from sim import runformat, storage

    games = load_games(out, profiles)
    study = {"profiles": {}, "players": list(players), "boot": boot, "seed": seed, "level": LEVEL,
             "run_id": run_id, "command": command}
    frames = {k: [] for k in FILES}
    deals = {p: np.unique(g["game_id"].to_numpy() // g["n_players"].to_numpy())
             for p, g in ((p, games[games["profile"].astype(str) == p]) for p in profiles)}
    weights = None  # one draw of deals for every profile that dealt the same deals: replicates paired by deal
    first = deals[profiles[0]]
    if all(np.array_equal(d, first) for d in deals.values()):
        rng = np.random.default_rng(np.random.SeedSequence(int(seed)))
        weights = np.array([stats.bootstrap_weights(rng, len(first)) for _ in range(boot)]).reshape(boot, len(first))
    for prof in profiles:
        g = games[games["profile"].astype(str) == prof]
        if g.empty:
            raise ValueError(f"profile {prof}: no games in {out}")
        res = measure(g, players, boot=boot, seed=_profile_seed(seed, prof), weights=weights)
        study["profiles"][prof] = res
        for k in FILES:
            frames[k].append(res[k].assign(profile=prof))
    study["paired"] = weights is not None
    settings = {"boot": boot, "seed": seed, "players": list(players), "profiles": list(profiles)}
    with storage.write_whole(runformat.join_uri(str(out), SKILL_DIR), "skill fit", {}, read_mark=read_fit_mark,
                             about="the skill fit", settings=settings, force=force, log=log) as output:
        loc = runformat.locate(output.path, "--out")
        files = {}
        for k in FILES:
            frame = pd.concat(frames[k], ignore_index=True)
            frame = frame[["profile"] + [c for c in frame.columns if c != "profile"]]
            table = pa.Table.from_pandas(frame, preserve_index=False)
            files[k] = runformat.write_table(loc, f"{k}.parquet", table)
            files[k]["path"] = f"{SKILL_DIR}/{k}.parquet"
        meta = {"run_id": run_id, "command": command, "players": list(players), "profiles": list(profiles),
                "boot": boot, "seed": seed, "level": LEVEL, "prior_sd": PRIOR_SD,
                "model": "Bradley-Terry on pairwise results from the finishing order (full rank breaking)",
                "interval": "percentile bootstrap over deals",
                "paired": study["paired"], "chance": CHANCE, "leave_one_out_chance": LOO_CHANCE,
                "chance_medians": {p: r["chance"] for p, r in study["profiles"].items()}, "places": PLACE_NOTE,
                "deals": {p: r["deals"] for p, r in study["profiles"].items()},
                "measures": {k: {"unit": u, "denominator": d} for k, (u, d) in MEASURES.items()}, "files": files}
        text = json.dumps(meta, indent=1) + "\n"
        runformat.write_bytes_atomic(loc.fs, loc.path("skill.json"), text.encode())
    return study


def as_json(study: dict) -> dict:
    profs = list(study["profiles"])
    out = {"players": study["players"], "boot": study["boot"], "seed": study["seed"],
           "profiles": {p: {"deals": r["deals"], "money": r["money"],
                            "measures": r["measures"].to_dict(orient="records"),
                            "chance_medians": r.get("chance", {}),
                            "leave_one_out": r["leave_one_out"].to_dict(orient="records"),
                            "players": r["players"].to_dict(orient="records")}
                        for p, r in study["profiles"].items()}}
    if len(profs) > 1 and study["boot"]:
        out["differences"] = {f"{p} - {profs[0]}": differences(study, p, profs[0]).to_dict(orient="records")
                              for p in profs[1:]}
        if study.get("paired"):
            out["ranking"] = study_ranking(study).to_dict(orient="records")
    return _no_nan(out)


def _no_nan(x):
    """JSON has no NaN: an undefined value (an interval without replicates) is null."""
    if isinstance(x, dict):
        return {k: _no_nan(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_no_nan(v) for v in x]
    if isinstance(x, float) and x != x:
        return None
    return x


def _fmt(x, digits=3, sign=False) -> str:
    if x != x:
        return "n/a"
    return f"{x:+.{digits}f}" if sign else f"{x:.{digits}f}"


def order_text(players: pd.DataFrame, profile: str) -> str:
    """'kalooki40, measured order: expert > lookahead (not established) > expert@0.1 > ...': the players
    by fitted rating, each '>' established (the lead's interval above 0) or marked not established."""
    if players is None or not len(players):
        return ""
    names = list(players["player"])
    if "ahead_of_next_lo" not in players:
        return f"{profile}, by fitted rating: {' > '.join(names)} (the leads' intervals are not stored in this fit)"
    parts = [names[0]]
    loose = []
    for (_, a), b in zip(players.iloc[:-1].iterrows(), names[1:]):
        ok = bool(a["ahead_of_next_lo"] > 0)
        parts.append(f"> {b}" if ok else f">? {b}")
        if not ok:
            loose.append(f"{a['player']} over {b}")
    text = f"{profile}, measured order (by fitted rating; >: the lead's 95% interval lies above 0): {' '.join(parts)}"
    if loose:
        text += f"; not established: {', '.join(loose)}"
    return text


def text_lines(study: dict) -> list[str]:
    """The study as text: per profile, the players by rating and the measures, each with its interval."""
    lines = [f"Skill study: players {', '.join(study['players'])}; {int(LEVEL * 100)}% percentile bootstrap "
             f"intervals over deals ({study['boot']} replicates, seed {study['seed']}); chance: median and 95% range "
             f"over {CHANCE} shuffles of each game's finishing order (luck and coin-flip shares scaled so that "
             "chance reads 1)"]
    for prof, r in study["profiles"].items():
        lines.append("")
        lines.append(f"{prof}: {r['deals']} deals, each played in every rotation of its table")
        lines.append(f"  {'player':<14} {'rating (log-odds)':<22} {'ahead of next':<22} {'Elo':>5} {'games':>6} "
                     f"{'won':>5} {'rank':>5}")
        for p in r["players"].itertuples():
            ahead = "" if p.ahead_of_next != p.ahead_of_next else (
                f"{_fmt(p.ahead_of_next, 2, True)} [{_fmt(p.ahead_of_next_lo, 2, True)}, "
                f"{_fmt(p.ahead_of_next_hi, 2, True)}]")
            lines.append(f"  {p.player:<14} " + f"{_fmt(p.rating, 2, True)} [{_fmt(p.rating_lo, 2, True)}, "
                         f"{_fmt(p.rating_hi, 2, True)}]".ljust(22) + f" {ahead:<22} {p.elo:+5.0f} {p.games:>6d} "
                         f"{p.game_win:5.3f} {p.mean_finish_rank:5.2f}")
        lines.extend("  " + x for x in textwrap.wrap(order_text(r["players"], prof), 98))
        lines.append(f"  {'measure':<16} {'estimate [95% interval]':<26} {'chance [95% range]':<24} "
                     f"{'excess over chance':<24} unit")
        for m in r["measures"].itertuples():
            digits = 0 if m.measure == "spread_elo" else (2 if m.unit in ("log-odds", "units per game") else 3)
            lines.append(f"  {m.measure:<16} " + f"{_fmt(m.estimate, digits)} [{_fmt(m.ci_low, digits)}, "
                         f"{_fmt(m.ci_high, digits)}]".ljust(26) + f" {_fmt(m.chance, digits)} "
                         f"[{_fmt(m.chance_low, digits)}, {_fmt(m.chance_high, digits)}]".ljust(25) +
                         f" {_fmt(m.excess, digits, True)} [{_fmt(m.excess_low, digits, True)}, "
                         f"{_fmt(m.excess_high, digits, True)}]".ljust(25) + f" {m.unit}")
        if "spans" in r["measures"]:
            spans = r["measures"].set_index("measure")["spans"].get("spread", "")
            if spans:
                lines.append(f"  the spread spans {spans}")
        loo = r.get("leave_one_out")
        if loo is not None and len(loo):
            one = loo[loo["measure"] == REPORT_MEASURE]
            lines.append("  coin_flip_share without each player: " + ", ".join(
                f"{w} {_fmt(v)}" for w, v in zip(one["left_out"], one["estimate"])))
    profs = list(study["profiles"])
    if len(profs) > 1 and study["boot"]:
        ref = profs[0]
        lines.append("")
        lines.append(f"Each profile minus {ref} (paired by deal, {study['boot']} bootstrap replicates; * = the "
                     "interval excludes 0; verdicts in the JSON and in kalooki compare):")
        for prof in profs[1:]:
            d = differences(study, prof, ref).set_index("measure")
            parts = []
            for name in ("spread", "luck_share", "coin_flip_share"):
                r = d.loc[name]
                digits = 2 if name == "spread" else 3
                parts.append(f"{name} {_fmt(r.difference, digits, True)} [{_fmt(r.ci_low, digits, True)}, "
                             f"{_fmt(r.ci_high, digits, True)}]{'*' if r.separated else ''}")
            lines.append(f"  {prof:<11} " + "; ".join(parts))
        if study.get("paired"):
            ranking = study_ranking(study)
            lines.append("")
            lines.extend(textwrap.wrap(ranking_sentence(ranking, len(profs)), 100))
    return lines


def study_ranking(study: dict) -> pd.DataFrame:
    """``profile_ranking`` of a fitted study (its replicates drawn alike in every profile)."""
    profs = list(study["profiles"])
    tag = lambda k: pd.concat([r[k].assign(profile=p) for p, r in study["profiles"].items()],  # noqa: E731
                              ignore_index=True)
    return profile_ranking(tag("measures"), tag("replicates"), tag("leave_one_out"), profs)


def differences(study: dict, a: str, b: str) -> pd.DataFrame:
    """Profile a minus profile b of a study, per measure: paired by deal (a study deals deal d alike in
    every profile; its replicates drew the same deals in every profile, else ``measure_difference``
    draws them again) with ``study["boot"]`` replicates, ``separated`` when the interval excludes 0, and
    the verdict against the measure's threshold (``judge_differences``)."""
    from analysis import findings
    ra, rb = study["profiles"][b], study["profiles"][a]
    if study.get("paired"):
        rows, reps = difference_rows(ra, rb, ra["replicates"], rb["replicates"], True)
    else:
        rows, reps = measure_difference(ra, rb, True, study["boot"], _pair_seed(study["seed"], b, a))
    rows.insert(0, "profile_b", a)
    rows.insert(0, "profile_a", b)
    judged = judge_differences(rows, {(b, a, m): d for m, d in reps.items()}, findings.default_thresholds())
    judged = judged.rename(columns={"diff_ci_low": "ci_low", "diff_ci_high": "ci_high"})
    judged["separated"] = (judged["ci_low"] > 0) | (judged["ci_high"] < 0)
    judged["unit"] = [MEASURES[m][0] for m in judged["measure"]]
    return judged[["measure", "difference", "ci_low", "ci_high", "separated", "unit", "design", "verdict"]]


# ---------------------------------------------------------------------------------------------
# a study stored beside a run, and two profiles' measures compared (compare, sweep, report)

# configs/thresholds.toml; the Elo spread (the spread in other units) and the luck share (the coin-flip share on
# another scale) are shown beside them, not tested: one verdict per quantity
THRESHOLD_KEYS = {m: f"skill_{m}" for m in MEASURES if m not in ("spread_elo", "luck_share")}
PAIRED = ("paired by deal: both sides dealt deal d from the same seed (a study keys every deal by seed and deal "
          "alone), and each bootstrap replicate resamples the common deals once for both sides")
INDEPENDENT = "independent: each side's deals resampled apart (different seeds or different deals)"
DIFFERENCE_NOTE = (
    "Skill and luck differences: B minus A for each measure, with the 2.5% and 97.5% points of the bootstrap "
    "replicates' differences, " + PAIRED + " when both were played from the same seed, otherwise " + INDEPENDENT +
    ". Verdicts as for every difference, against the measure's practical threshold (configs/thresholds.toml, "
    "skill_*), with the tests read off the B replicates: a clear difference when the minimum-effect test's p, "
    "2 (k + 1) / (B + 1) with k of the B replicates inside the threshold, rejects (the 95% interval lies past "
    "it); practically equivalent when TOST's, (k + 1) / (B + 1) with k the replicates past one side of the "
    "threshold, rejects (the 90% "
    "interval lies inside); each kind Holm-corrected "
    "over every measure compared (the Elo spread is the spread in other units: shown, not tested).")


class Fit:
    """A stored study: ``run`` the study's run (its games table), ``meta`` its skill.json, ``measures``
    its measures.parquet (a row per profile and measure)."""

    def __init__(self, run: str, meta: dict, measures: pd.DataFrame):
        self.run, self.meta, self.measures = run, meta, measures

    def table(self, name: str) -> pd.DataFrame | None:
        """The fit's ``name``.parquet (replicates, leave_one_out, players), None where the fit has none."""
        import pyarrow.parquet as pq

        from sim import runformat
        loc = runformat.locate(self.run, "run")
        path = loc.path(f"{SKILL_DIR}/{name}.parquet")
        if name not in (self.meta.get("files") or {}):
            return None
        return pq.read_table(path, filesystem=loc.fs).to_pandas()

    @property
    def profiles(self) -> list[str]:
        return list(self.meta["profiles"])

    @property
    def players(self) -> list[str]:
        return list(self.meta["players"])


def find_fit(run_dir) -> Fit | None:
    """The skill study of ``run_dir``: the run itself when it is a study's run (``RUN/skill``, its fit in
    ``RUN/skill/skill/``), else the study in its RUN/skill/ (``kalooki skill --out RUN``); None when
    there is neither."""
    import pyarrow.parquet as pq

    from sim import runformat
    for study in (str(run_dir), runformat.join_uri(run_dir, SKILL_DIR)):
        loc = runformat.locate(study, "run")
        text = runformat.read_bytes(loc.fs, loc.path(f"{SKILL_DIR}/skill.json"))
        if text is None:
            continue
        meta = json.loads(text)
        measures = pq.read_table(loc.path(f"{SKILL_DIR}/measures.parquet"), filesystem=loc.fs).to_pandas()
        return Fit(study, meta, measures)
    return None


def _pair_seed(seed: int, a: str, b: str) -> np.random.SeedSequence:
    import zlib
    return np.random.SeedSequence(int(seed), spawn_key=(zlib.crc32(a.encode()), zlib.crc32(b.encode()), 1))


def measure_difference(res_a: dict, res_b: dict, paired: bool, boot: int, seed, level: float = LEVEL
                       ) -> tuple[pd.DataFrame, dict]:
    """B minus A for every measure both profiles have, from two ``measure`` results (their deal counts
    and chance benchmarks): ``paired`` resamples the common deals once for both sides in each replicate
    (it needs the same deals on both, else the sides are resampled apart); ``difference_rows``'s
    (rows, the difference replicates by measure)."""
    ca, cb = res_a["counts"], res_b["counts"]
    paired = paired and np.array_equal(ca.deals, cb.deals)
    rng = np.random.default_rng(seed)
    reps_a, reps_b = [], []
    Da, Db = len(ca.deals), len(cb.deals)
    for _ in range(boot):
        ka = stats.bootstrap_weights(rng, Da)
        kb = ka if paired else stats.bootstrap_weights(rng, Db)
        for c, k, r, reps in ((ca, ka, res_a, reps_a), (cb, kb, res_b, reps_b)):
            reps.append(measures_of(np.tensordot(k, c.wins, axes=1), np.tensordot(k, c.pay, axes=1), r["order"],
                                    r["money"], chance=r.get("chance"))[1])
    return difference_rows(res_a, res_b, pd.DataFrame(reps_a), pd.DataFrame(reps_b), paired, level)


def difference_rows(res_a: dict, res_b: dict, reps_a: pd.DataFrame, reps_b: pd.DataFrame, paired: bool,
                    level: float = LEVEL) -> tuple[pd.DataFrame, dict]:
    """B minus A of every measure's excess over chance (its estimate minus its chance benchmark's median:
    a spread beyond what chance gives a study of this size; the luck shares and the coin-flip share are
    already scaled to chance), from each side's bootstrap replicates (``reps_a``, ``reps_b``: the same
    deals drawn in row b of both when ``paired``); returns (rows, the difference replicates by measure).
    Rows: measure, metric (its threshold's name), unit, each side's excess and interval, difference and
    interval, in_family (tested: one verdict per quantity, the luck share shown beside the coin-flip
    share it is a scale of), design."""
    def table(r):
        m = r["measures"].set_index("measure")
        chance = m["chance"] if "chance" in m else pd.Series(np.nan, index=m.index)
        return m["estimate"], chance.fillna(0.0)
    (pa_, za), (pb_, zb) = table(res_a), table(res_b)
    names = [m for m in MEASURES if m in pa_.index and m in pb_.index and m in reps_a and m in reps_b]
    rows, diffs = [], {}
    for name in names:
        a = reps_a[name].to_numpy(np.float64) - za[name]
        b = reps_b[name].to_numpy(np.float64) - zb[name]
        ea, eb = pa_[name] - za[name], pb_[name] - zb[name]
        diffs[name] = b - a
        (la, ha), (lb, hb), (ld, hd) = (stats.percentile_interval(v, level) for v in (a, b, b - a))
        rows.append(dict(measure=name, metric=THRESHOLD_KEYS.get(name, f"skill_{name}"), kind="skill",
                         unit=MEASURES[name][0], estimate_a=ea, ci_low_a=la, ci_high_a=ha, estimate_b=eb,
                         ci_low_b=lb, ci_high_b=hb, difference=eb - ea, diff_ci_low=ld, diff_ci_high=hd,
                         in_family=name in THRESHOLD_KEYS, design="paired by deal" if paired else "independent",
                         deals_a=res_a["deals"], deals_b=res_b["deals"], replicates=len(a)))
    return pd.DataFrame(rows), diffs


def compare_fits(pairs, thresholds, level: float = LEVEL) -> pd.DataFrame:
    """Every measure of every pair ((fit_a, profile_a, fit_b, profile_b), the same players on both
    sides), B minus A with intervals and verdicts (``findings.judge`` with the bootstrap's tests, one
    Holm family over every measure of every pair), each side's measures as excess over its own chance
    benchmark (``difference_rows``).  Paired by deal when both studies used the same seed;
    the replicates are as many as the larger study's ``boot`` (``BOOT`` when both had none), from the
    seed of A's study and the two profiles' names."""
    parts, reps = [], {}
    for fit_a, a, fit_b, b in pairs:
        res = []
        for fit, prof in ((fit_a, a), (fit_b, b)):  # each with its study's chance benchmark (same seed, same shuffles)
            res.append(measure(load_games(fit.run, [prof]), fit.players, boot=0,
                               seed=_profile_seed(fit.meta.get("seed", 0), prof)))
        seed_a, seed_b = (load_manifest_seed(f.run) for f in (fit_a, fit_b))
        boot = max(int(fit_a.meta.get("boot", 0)), int(fit_b.meta.get("boot", 0))) or BOOT
        rows, diffs = measure_difference(res[0], res[1], seed_a is not None and seed_a == seed_b, boot,
                                         _pair_seed(fit_a.meta.get("seed", 0), a, b), level)
        rows.insert(0, "profile_b", b)
        rows.insert(0, "profile_a", a)
        rows["rests_on"] = [rests_on(res[0]["leave_one_out"], res[1]["leave_one_out"], m, d)
                            for m, d in zip(rows["measure"], rows["difference"])]
        parts.append(rows)
        reps.update({(a, b, m): d for m, d in diffs.items()})
    return judge_differences(pd.concat(parts, ignore_index=True), reps, thresholds)


def rests_on(loo_a: pd.DataFrame, loo_b: pd.DataFrame, name: str, difference: float) -> str:
    """The players without whom B minus A of ``name``'s excess over chance (``difference``) changes
    sign or vanishes, from the two sides' leave-one-out fits; "" when it holds without any one."""
    if not len(loo_a) or not len(loo_b):
        return ""
    a = loo_a[loo_a["measure"] == name].set_index("left_out")["excess"]
    b = loo_b[loo_b["measure"] == name].set_index("left_out")["excess"]
    return ", ".join(str(p) for p in a.index.intersection(b.index) if not (b[p] - a[p]) * difference > 0)


def judge_differences(table: pd.DataFrame, reps: dict, thresholds) -> pd.DataFrame:
    """``table`` (``measure_difference``'s rows with profile_a and profile_b) judged by
    ``findings.judge`` with the bootstrap's tests on ``reps[(profile_a, profile_b, measure)]`` (the
    replicates' differences), one Holm family over every row in_family."""
    from analysis import findings, stats
    judged = findings.judge(table, thresholds, tests=lambda row, t: stats.bootstrap_threshold_tests(
        row.difference, reps[(row.profile_a, row.profile_b, row.measure)], t))
    family = int(judged["p_exceeds"].notna().sum())
    judged["correction"] = f"{stats.CORRECTION_NAME}, over {family} measures (each kind of claim)"
    return judged


def load_manifest_seed(run) -> int | None:
    from .load import read_manifest
    return read_manifest(run).get("seed")


def skill_players_note(fit_a: Fit, fit_b: Fit) -> str | None:
    """Why two studies cannot be compared (their players differ), or None."""
    if fit_a.players != fit_b.players:
        return (f"Skill and luck not compared: the studies measured different players (A: {', '.join(fit_a.players)}; "
                f"B: {', '.join(fit_b.players)}); the measures describe the players, so compare studies made with "
                "the same --players.")
    return None


SKILL_SHOWN = ("spread", "spread_elo", "adjacent_win", "luck_share", "coin_flip_share", "pay_spread", "pay_luck_share")


def fmt_measure(name: str, value, sign: bool = False) -> str:
    """A measure's value in its unit's digits: Elo points whole, log-odds and units per game to 2
    decimals, the rest (probabilities, shares) to 3."""
    digits = 0 if name == "spread_elo" else 2 if MEASURES[name][0] in ("log-odds", "units per game") else 3
    return _fmt(value, digits, sign)


def fmt_estimate(name: str, estimate, low, high) -> str:
    """'0.645 (0.565–0.730)': a measure with its interval."""
    return f"{fmt_measure(name, estimate)} ({fmt_measure(name, low)}–{fmt_measure(name, high)})"


def fmt_change(name: str, difference, low, high) -> str:
    """'+0.156 (+0.064 to +0.237)': a difference with its interval."""
    return f"{fmt_measure(name, difference, True)} ({fmt_measure(name, low, True)} to {fmt_measure(name, high, True)})"


def difference_lines(judged: pd.DataFrame, width: int = 100, labels=None) -> list[str]:
    """The judged skill differences for a terminal: per pair a heading (A and B named by ``labels``,
    else by profile), then measure, A, B, B - A [95% interval] and the verdict."""
    from .differences import VERDICT_SHORT
    lines = []
    for (a, b), rows in judged.groupby(["profile_a", "profile_b"], sort=False):
        a, b = labels or (a, b)
        lines.append(f"Skill and luck, A = {a}, B = {b} ({rows['design'].iloc[0]}, {rows['replicates'].iloc[0]} "
                     "bootstrap replicates)"[:width])
        cells = [("measure", "A", "B", "B - A [95% interval]", "verdict")]
        for r in rows.itertuples(index=False):
            cells.append((r.measure, fmt_measure(r.measure, r.estimate_a), fmt_measure(r.measure, r.estimate_b),
                          f"{fmt_measure(r.measure, r.difference, True)} "
                          f"[{fmt_measure(r.measure, r.diff_ci_low, True)}, "
                          f"{fmt_measure(r.measure, r.diff_ci_high, True)}]",
                          VERDICT_SHORT.get(r.verdict, r.verdict)))
        widths = [max(len(c[i]) for c in cells) for i in range(5)]
        for c in cells:
            lines.append("  ".join([c[0].ljust(widths[0])] + [c[i].rjust(widths[i]) for i in range(1, 4)]
                                   + [c[4]]).rstrip()[:width])
    return lines


REPORT_MEASURE = "coin_flip_share"  # the report's figure and sentence: a scale a reader knows
REPORT_HEADINGS = {"spread_elo": "spread (Elo points)", "adjacent_win": "adjacent win (probability)",
                   "luck_share": "luck share", "coin_flip_share": "coin-flip share",
                   "pay_spread": "pay spread (units per game)"}
REPORT_COLUMNS = tuple(REPORT_HEADINGS)


RANKING_COLUMNS = ["profile_a", "profile_b", "measure", "difference", "diff_ci_low", "diff_ci_high", "verdict",
                   "p_exceeds_adjusted", "correction", "without_each", "rests_on", "more_skill"]


def profile_ranking(measures: pd.DataFrame, replicates: pd.DataFrame, loo: pd.DataFrame | None, profiles: list[str],
                    thresholds=None, measure_name: str = REPORT_MEASURE) -> pd.DataFrame:
    """Every pair of profiles of one study (B minus A of ``measure_name``, from the bootstrap replicates
    paired by deal: row b of each profile's ``replicates`` drew the same deals), judged against the
    measure's practical threshold with Holm over the pairs (``judge_differences``); ``without_each``:
    the difference of the leave-one-out estimates without each player (``loo``), ``rests_on``: the
    players without whom the difference changes sign or vanishes, and ``more_skill``: the profile in
    which skill decides more, named only for a clear difference that no single player's absence
    reverses (else "")."""
    from analysis import findings
    thresholds = findings.default_thresholds() if thresholds is None else thresholds
    est = measures[measures["measure"] == measure_name].set_index("profile")
    reps = {p: g.sort_values("replicate")[measure_name].to_numpy(np.float64)
            for p, g in replicates.groupby("profile", observed=True)}
    rows, diffs = [], {}
    for i, a in enumerate(profiles):
        for b in profiles[i + 1:]:
            if a not in est.index or b not in est.index or a not in reps or b not in reps:
                continue
            d = reps[b] - reps[a]
            lo, hi = stats.percentile_interval(d)
            diffs[(a, b, measure_name)] = d
            rows.append(dict(profile_a=a, profile_b=b, measure=measure_name, metric=f"skill_{measure_name}",
                             kind="skill", unit=MEASURES[measure_name][0], estimate_a=float(est.loc[a, "estimate"]),
                             estimate_b=float(est.loc[b, "estimate"]),
                             difference=float(est.loc[b, "estimate"] - est.loc[a, "estimate"]),
                             diff_ci_low=lo, diff_ci_high=hi, in_family=True))
    if not rows:
        return pd.DataFrame(columns=RANKING_COLUMNS)
    judged = judge_differences(pd.DataFrame(rows), diffs, thresholds)
    judged["correction"] = (f"{stats.CORRECTION_NAME}, over the {len(rows)} pair{'' if len(rows) == 1 else 's'} "
                            "of profiles")
    left = loo[loo["measure"] == measure_name] if loo is not None and len(loo) else None
    without, rests, more = [], [], []
    for r in judged.itertuples(index=False):
        parts, against = [], []
        if left is not None:
            la = left[left["profile"] == r.profile_a].set_index("left_out")["estimate"]
            lb = left[left["profile"] == r.profile_b].set_index("left_out")["estimate"]
            for player in la.index.intersection(lb.index):
                d = float(lb[player] - la[player])
                parts.append(f"{player} {d:+.3f}")
                if not d * r.difference > 0:
                    against.append(str(player))
        without.append("; ".join(parts))
        rests.append(", ".join(against))
        held = r.verdict in findings.STATED and left is not None and not against
        # a lower coin-flip share (or luck share) is more skill; a larger spread or adjacent win, too
        lower_is_more = measure_name in CORRECTED
        b_more = (r.difference < 0) == lower_is_more
        more.append((r.profile_b if b_more else r.profile_a) if held else "")
    judged["without_each"], judged["rests_on"], judged["more_skill"] = without, rests, more
    return judged[RANKING_COLUMNS]


def ranking_sentence(ranking: pd.DataFrame, n_profiles: int) -> str:
    """What the ranking allows one to say: "skill decides more in X than in Y" only for the pairs
    ``profile_ranking`` names, and which clear differences rest on one player."""
    from analysis import findings
    if n_profiles < 2:
        return "One profile measured: nothing to rank it against."
    if not len(ranking):
        return "The profiles could not be ranked: the fit holds no replicates paired by deal."
    stated = ranking[ranking["more_skill"] != ""]
    found = {}
    for r in stated.itertuples(index=False):
        other = r.profile_a if r.more_skill == r.profile_b else r.profile_b
        found.setdefault(r.more_skill, []).append(other)
    fragile = ranking[ranking["verdict"].isin(findings.STATED) & (ranking["more_skill"] == "")]
    rule = (f"paired by deal over every pair of profiles, against the practical threshold of the coin-flip share "
            f"({ranking['correction'].iloc[0]}), and only where leaving out any one player keeps the order")
    if found:
        text = "Skill decides more " + "; ".join(f"in {p} than in {_and(o)}" for p, o in found.items()) + \
               f" (a clear difference, {rule})."
    else:
        text = f"No profile is shown to reward skill more than another ({rule})."
    if len(fragile):
        text += " Clear differences that rest on one player, so not stated: " + "; ".join(
            f"{r.profile_b} against {r.profile_a} (without {r.rests_on} the order does not hold)"
            for r in fragile.itertuples(index=False)) + "."
    return text


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
