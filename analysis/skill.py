"""How much skill decides a profile: strengths of a set of players fitted on their games, and the
share of game results the strengths leave to luck.

Input: the ``games`` table of a duplicate run (``kalooki skill``), where game g is rotation
``g % n`` of deal ``g // n`` (n = the game's players).  Every measure is per profile and is computed
from per-deal counts, so that the intervals can resample deals.

The model.  Bradley-Terry on pairwise results from the finishing order (full rank breaking): in each
game, every pair of seats held by two different players is one head-to-head result, won by the player
with the better ``finish_rank``.  P(i finishes ahead of j) = 1 / (1 + exp(-(r_i - r_j))), ratings r in
log-odds, fitted by maximum likelihood (``scipy.optimize``, trust-region Newton) with a normal prior of standard
deviation ``PRIOR_SD`` on every rating, which keeps the fit finite when one player always finishes
ahead of another and moves it by well under the intervals otherwise; the ratings are centred (mean 0).
The pairwise results of one game are not independent; the intervals are made by resampling whole deals.

The measures (all "players" are the measured set, so compare profiles measured with the same set):

- ``spread``: the rating of the strongest player minus that of the weakest, in log-odds (``elo``:
  the same times 400 / ln 10, Elo points).
- ``adjacent_win``: with the players ordered by rating, the mean over neighbouring pairs of the fitted
  probability that the stronger finishes ahead of the weaker in a game where both play.
- ``luck_share``: the share of the variation in head-to-head results that the fitted strengths do not
  explain: the mean over head-to-head results (pairs of different players at one game) of
  (y - p)^2, y = 1 if the first of the pair finished ahead, p its fitted probability, divided by the
  same mean for a coin flip, 1/4.  1 = the strengths predict nothing (pure chance), 0 = they predict
  every result (the stronger always finishes ahead).
- ``coin_flip_share``: the luck share on a scale a reader knows: the share c of games that would have
  to be decided by a coin flip (a uniformly random finishing order), in a game where otherwise the
  stronger player always finishes ahead, to leave this luck share.  Such a game has
  P(stronger ahead) = 1 - c/2 and so luck share c(2 - c); hence c = 1 - sqrt(1 - luck_share).
- Money (profiles where money changes hands): ``pay_spread``: the highest mean net payment per game of a
  player minus the lowest, in units per game; ``pay_luck_share``: the share of the variance of net
  payment over player-games (each player's payment in each game) not explained by the players'
  means (1 - R^2 of net payment on the player).

Intervals: percentile bootstrap over deals (``BOOT`` replicates by default, from the seed given): each
replicate draws the profile's deals with replacement and refits; the order of the players (who is
strongest, who neighbours whom) stays that of the full-sample fit.

Compared (``measure_difference``, ``compare_fits``: ``kalooki compare``, ``kalooki sweep --skill``,
the study's own profile differences): B minus A per measure over joint replicates, paired by deal
where both sides dealt their deals from the same seed, judged against the ``skill_*`` thresholds.
A study kept beside a run (RUN/skill/) is found by ``find_fit``; ``report_section`` is its part of
the balance report.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd

from . import stats

PRIOR_SD = 10.0  # log-odds; a normal prior on every rating
BOOT = 200
LEVEL = 0.95
ELO_PER_LOGIT = 400.0 / math.log(10.0)

GAMES_COLUMNS = ["profile", "game_id", "n_players", "seat", "bot", "finish_rank", "net_payment"]

MEASURES = {  # name: (unit, denominator)
    "spread": ("log-odds", "the strongest player's rating minus the weakest's"),
    "spread_elo": ("Elo points", "the spread times 400 / ln 10"),
    "adjacent_win": ("probability", "mean over neighbouring pairs (by rating) of P(stronger finishes ahead)"),
    "luck_share": ("share", "head-to-head results of different players at one game; mean (y - p)^2 over 1/4"),
    "coin_flip_share": ("share of games", "games decided by a coin flip in a stronger-always-wins game with "
                                          "this luck share: 1 - sqrt(1 - luck_share)"),
    "pay_spread": ("units per game", "the highest player's mean net payment per game minus the lowest's"),
    "pay_luck_share": ("share", "player-games; residual over total variance of net payment, player means fitted"),
}


class DealCounts:
    """A profile's games reduced to per-deal counts: ``wins[d, i, j]`` head-to-head results in deal d
    where player i finished ahead of player j; ``pay[d, k]`` (player-games, sum, sum of squares) of
    player k's net payment."""

    def __init__(self, players, deals, wins, pay):
        self.players, self.deals, self.wins, self.pay = list(players), np.asarray(deals), wins, pay

    @classmethod
    def of(cls, games: pd.DataFrame, players=None) -> "DealCounts":
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
        rank = g["finish_rank"].to_numpy(np.int64).reshape(-1, n)
        deal_of_game = game_ids // n
        deals, d = np.unique(deal_of_game, return_inverse=True)
        K, D = len(names), len(deals)
        wins = np.zeros((D, K, K), np.float64)
        for a in range(n):
            for b in range(a + 1, n):
                i, j = who[:, a], who[:, b]
                differ = i != j
                a_ahead = rank[:, a] < rank[:, b]
                win = np.where(a_ahead, i, j)[differ]
                lose = np.where(a_ahead, j, i)[differ]
                np.add.at(wins, (d[differ], win, lose), 1.0)
        pay = np.zeros((D, K, 3), np.float64)
        v = g["net_payment"].to_numpy(np.float64).reshape(-1, n)
        for a in range(n):
            np.add.at(pay, (d, who[:, a], 0), 1.0)
            np.add.at(pay, (d, who[:, a], 1), v[:, a])
            np.add.at(pay, (d, who[:, a], 2), v[:, a] ** 2)
        return cls(names, deals, wins, pay)


def fit_ratings(wins: np.ndarray, prior_sd: float = PRIOR_SD) -> np.ndarray:
    """Bradley-Terry ratings (log-odds, mean 0) maximising the likelihood of ``wins[i, j]`` (i ahead of j)
    times a normal prior of sd ``prior_sd`` on every rating (``scipy.optimize``'s exact trust-region
    Newton method: the problem is convex, with its gradient and Hessian in closed form)."""
    from scipy.optimize import minimize
    K = wins.shape[0]
    lam = 1.0 / prior_sd ** 2
    n = wins + wins.T

    def objective(r):
        diff = r[:, None] - r[None, :]
        # -log sigmoid(diff) = log(1 + exp(-diff)), stably
        nll = float((wins * np.logaddexp(0.0, -diff)).sum()) + 0.5 * lam * float(r @ r)
        p = _sigmoid(diff)
        grad = (n * p).sum(axis=1) - wins.sum(axis=1) + lam * r  # expected minus observed wins
        return nll, grad

    def hessian(r):
        p = _sigmoid(r[:, None] - r[None, :])
        w = n * p * (1.0 - p)
        return np.diag(w.sum(axis=1)) - w + lam * np.eye(K)

    res = minimize(objective, np.zeros(K), jac=True, hess=hessian, method="trust-exact", options={"gtol": 1e-8})
    r = res.x
    return r - r.mean()


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def measures_of(wins: np.ndarray, pay: np.ndarray, order: np.ndarray, money: bool,
                ratings: np.ndarray | None = None) -> tuple[np.ndarray, dict]:
    """(ratings, measures) from summed counts; ``order``: the players strongest first (fixed by the
    full-sample fit)."""
    r = fit_ratings(wins) if ratings is None else ratings
    out = {}
    out["spread"] = float(r[order[0]] - r[order[-1]])
    out["spread_elo"] = out["spread"] * ELO_PER_LOGIT
    out["adjacent_win"] = float(np.mean(_sigmoid(r[order[:-1]] - r[order[1:]]))) if len(order) > 1 else math.nan
    p = _sigmoid(r[:, None] - r[None, :])
    total = wins.sum()
    luck = float(4.0 * (wins * (1.0 - p) ** 2).sum() / total) if total > 0 else math.nan
    out["luck_share"] = luck
    out["coin_flip_share"] = 1.0 - math.sqrt(max(0.0, 1.0 - luck)) if luck == luck else math.nan
    if money:
        n, s, q = pay[:, 0], pay[:, 1], pay[:, 2]
        seen = n > 0
        means = np.where(seen, s / np.where(seen, n, 1.0), np.nan)
        out["pay_spread"] = float(np.nanmax(means) - np.nanmin(means))
        N, S, Q = n.sum(), s.sum(), q.sum()
        ss_tot = Q - S * S / N
        ss_res = float((q - np.where(seen, s * s / np.where(seen, n, 1.0), 0.0)).sum())
        out["pay_luck_share"] = ss_res / ss_tot if ss_tot > 0 else math.nan
    return r, out


def measure(games: pd.DataFrame, players=None, boot: int = BOOT, seed: int = 0, level: float = LEVEL) -> dict:
    """A profile's fit: ``players`` (a row per player: rating with its interval, Elo, games, share of
    games won, mean finish rank, mean net payment), ``measures`` (a row per measure: estimate, interval,
    unit, denominator) and ``replicates`` (every bootstrap replicate's measures, for differences
    between profiles).  ``games``: one profile's rows of the games table (``GAMES_COLUMNS``)."""
    counts = DealCounts.of(games, players)
    money = bool((games["net_payment"] != 0).any())
    W, P = counts.wins.sum(axis=0), counts.pay.sum(axis=0)
    r = fit_ratings(W)
    order = np.argsort(-r, kind="stable")
    _, point = measures_of(W, P, order, money, r)
    rng = np.random.default_rng(seed)
    D = len(counts.deals)
    reps, rep_r = [], []
    for b in range(boot):
        k = stats.bootstrap_weights(rng, D)
        rb, mb = measures_of(np.tensordot(k, counts.wins, axes=1), np.tensordot(k, counts.pay, axes=1), order, money)
        rep_r.append(rb)
        reps.append({"replicate": b, **mb})
    rep = pd.DataFrame(reps)
    rep_r = np.array(rep_r).reshape(boot, len(r))

    mrows = []
    for name, est in point.items():
        lo, hi = stats.percentile_interval(rep[name], level) if boot else (math.nan, math.nan)
        unit, denom = MEASURES[name]
        mrows.append(dict(measure=name, estimate=est, ci_low=lo, ci_high=hi, unit=unit, denominator=denom))
    g = games.assign(bot=games["bot"].astype(str))
    per = g.groupby("bot").agg(games=("game_id", "size"), won=("finish_rank", lambda x: float((x == 1).mean())),
                               mean_rank=("finish_rank", "mean"), net_payment=("net_payment", "mean"))
    prows = []
    for k in order:
        name = counts.players[k]
        lo, hi = stats.percentile_interval(rep_r[:, k], level) if boot else (math.nan, math.nan)
        row = per.loc[name] if name in per.index else None
        prows.append(dict(player=name, strength_rank=len(prows) + 1, rating=float(r[k]), rating_lo=lo, rating_hi=hi,
                          elo=float(r[k] * ELO_PER_LOGIT), games=int(row["games"]) if row is not None else 0,
                          game_win=float(row["won"]) if row is not None else math.nan,
                          mean_finish_rank=float(row["mean_rank"]) if row is not None else math.nan,
                          net_payment=float(row["net_payment"]) if row is not None else math.nan))
    return {"players": pd.DataFrame(prows), "measures": pd.DataFrame(mrows), "replicates": rep,
            "deals": D, "money": money, "counts": counts, "order": order}


SKILL_DIR = "skill"
FILES = ("players", "measures", "replicates")


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
    no fit marked is refused unless ``force``.  Each profile's bootstrap has its own stream from (seed,
    profile).  Returns the study (``profiles``: name -> ``measure``'s dict)."""
    import pyarrow as pa

    from sim import runformat, storage

    from .load import load_table
    games = load_table(out, "games", GAMES_COLUMNS, profiles)
    study = {"profiles": {}, "players": list(players), "boot": boot, "seed": seed, "level": LEVEL,
             "run_id": run_id, "command": command}
    frames = {k: [] for k in FILES}
    for prof in profiles:
        g = games[games["profile"].astype(str) == prof]
        if g.empty:
            raise ValueError(f"profile {prof}: no games in {out}")
        res = measure(g, players, boot=boot, seed=_profile_seed(seed, prof))
        study["profiles"][prof] = res
        for k in FILES:
            frames[k].append(res[k].assign(profile=prof))
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
                            "players": r["players"].to_dict(orient="records")}
                        for p, r in study["profiles"].items()}}
    if len(profs) > 1 and study["boot"]:
        out["differences"] = {f"{p} - {profs[0]}": differences(study, p, profs[0]).to_dict(orient="records")
                              for p in profs[1:]}
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


def text_lines(study: dict) -> list[str]:
    """The study as text: per profile, the players by rating and the measures, each with its interval."""
    lines = [f"Skill study: players {', '.join(study['players'])}; {int(LEVEL * 100)}% percentile bootstrap "
             f"intervals over deals ({study['boot']} replicates, seed {study['seed']})"]
    for prof, r in study["profiles"].items():
        lines.append("")
        lines.append(f"{prof}: {r['deals']} deals, each played in every rotation of its table")
        lines.append(f"  {'player':<14} {'rating (log-odds)':<26} {'Elo':>6} {'games':>6} {'won':>6} {'mean rank':>9}")
        for p in r["players"].itertuples():
            lines.append(f"  {p.player:<14} {_fmt(p.rating, 2, True)} [{_fmt(p.rating_lo, 2, True)}, "
                         f"{_fmt(p.rating_hi, 2, True)}]".ljust(43) + f" {p.elo:+6.0f} {p.games:>6d} "
                         f"{p.game_win:6.3f} {p.mean_finish_rank:9.2f}")
        for m in r["measures"].itertuples():
            digits = 0 if m.measure == "spread_elo" else (2 if m.unit in ("log-odds", "units per game") else 3)
            lines.append(f"  {m.measure:<16} {_fmt(m.estimate, digits)} [{_fmt(m.ci_low, digits)}, "
                         f"{_fmt(m.ci_high, digits)}] {m.unit}")
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
    return lines


def differences(study: dict, a: str, b: str) -> pd.DataFrame:
    """Profile a minus profile b of a study, per measure: paired by deal (a study deals deal d alike in
    every profile; ``measure_difference``) with ``study["boot"]`` replicates, ``separated`` when the
    interval excludes 0, and the verdict against the measure's threshold (``judge_differences``)."""
    from analysis import findings
    rows, reps = measure_difference(study["profiles"][b], study["profiles"][a], True, study["boot"],
                                    _pair_seed(study["seed"], b, a))
    rows.insert(0, "profile_b", a)
    rows.insert(0, "profile_a", b)
    judged = judge_differences(rows, {(b, a, m): d for m, d in reps.items()}, findings.default_thresholds())
    judged = judged.rename(columns={"diff_ci_low": "ci_low", "diff_ci_high": "ci_high"})
    judged["separated"] = (judged["ci_low"] > 0) | (judged["ci_high"] < 0)
    judged["unit"] = [MEASURES[m][0] for m in judged["measure"]]
    return judged[["measure", "difference", "ci_low", "ci_high", "separated", "unit", "design", "verdict"]]


# ---------------------------------------------------------------------------------------------
# a study stored beside a run, and two profiles' measures compared (compare, sweep, report)

THRESHOLD_KEYS = {m: f"skill_{m}" for m in MEASURES if m != "spread_elo"}  # configs/thresholds.toml
PAIRED = ("paired by deal: both sides dealt deal d from the same seed (a study keys every deal by seed and deal "
          "alone), and each bootstrap replicate resamples the common deals once for both sides")
INDEPENDENT = "independent: each side's deals resampled apart (different seeds or different deals)"
DIFFERENCE_NOTE = (
    "Skill and luck differences: B minus A for each measure, with the 2.5% and 97.5% points of the bootstrap "
    "replicates' differences, " + PAIRED + " when both were played from the same seed, otherwise " + INDEPENDENT +
    ". Verdicts as for every difference, against the measure's practical threshold (configs/thresholds.toml, "
    "skill_*), with the tests read off the B replicates: a clear difference when the minimum-effect test's p, "
    "2 k / B with k the replicates inside the threshold, rejects (the 95% interval lies past it); practically "
    "equivalent when TOST's, k / B with k the replicates past one side of the threshold, rejects (the 90% "
    "interval lies inside); each kind Holm-corrected "
    "over every measure compared (the Elo spread is the spread in other units: shown, not tested).")


class Fit:
    """A stored study: ``run`` the study's run (its games table), ``meta`` its skill.json, ``measures``
    its measures.parquet (a row per profile and measure)."""

    def __init__(self, run: str, meta: dict, measures: pd.DataFrame):
        self.run, self.meta, self.measures = run, meta, measures

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
    """B minus A for every measure both profiles have, from two ``measure`` results (their deal counts):
    ``paired`` resamples the common deals once for both sides in each replicate (it needs the same deals
    on both, else the sides are resampled apart); returns (rows, the difference replicates by measure).
    Rows: measure, metric (its threshold's name), unit, each side's estimate and interval, difference and
    interval, in_family, design."""
    ca, cb = res_a["counts"], res_b["counts"]
    paired = paired and np.array_equal(ca.deals, cb.deals)
    point = lambda r: dict(zip(r["measures"]["measure"], r["measures"]["estimate"]))  # noqa: E731
    pa_, pb_ = point(res_a), point(res_b)
    names = [m for m in MEASURES if m in pa_ and m in pb_]
    rng = np.random.default_rng(seed)
    reps_a, reps_b = {m: [] for m in names}, {m: [] for m in names}
    Da, Db = len(ca.deals), len(cb.deals)
    for _ in range(boot):
        ka = stats.bootstrap_weights(rng, Da)
        kb = ka if paired else stats.bootstrap_weights(rng, Db)
        for c, k, r, reps in ((ca, ka, res_a, reps_a), (cb, kb, res_b, reps_b)):
            _, m = measures_of(np.tensordot(k, c.wins, axes=1), np.tensordot(k, c.pay, axes=1), r["order"], r["money"])
            for name in names:
                reps[name].append(m[name])
    rows, diffs = [], {}
    for name in names:
        a, b = np.asarray(reps_a[name]), np.asarray(reps_b[name])
        diffs[name] = b - a
        (la, ha), (lb, hb), (ld, hd) = (stats.percentile_interval(v, level) for v in (a, b, b - a))
        rows.append(dict(measure=name, metric=THRESHOLD_KEYS.get(name, name), kind="skill", unit=MEASURES[name][0],
                         estimate_a=pa_[name], ci_low_a=la, ci_high_a=ha, estimate_b=pb_[name], ci_low_b=lb,
                         ci_high_b=hb, difference=pb_[name] - pa_[name], diff_ci_low=ld, diff_ci_high=hd,
                         in_family=name in THRESHOLD_KEYS, design="paired by deal" if paired else "independent",
                         deals_a=Da, deals_b=Db, replicates=boot))
    return pd.DataFrame(rows), diffs


def compare_fits(pairs, thresholds, level: float = LEVEL) -> pd.DataFrame:
    """Every measure of every pair ((fit_a, profile_a, fit_b, profile_b), the same players on both
    sides), B minus A with intervals and verdicts (``findings.judge`` with the bootstrap's tests, one
    Holm family over every measure of every pair).  Paired by deal when both studies used the same seed;
    the replicates are as many as the larger study's ``boot`` (``BOOT`` when both had none), from the
    seed of A's study and the two profiles' names."""
    from .load import load_table
    parts, reps = [], {}
    for fit_a, a, fit_b, b in pairs:
        res = []
        for fit, prof in ((fit_a, a), (fit_b, b)):
            games = load_table(fit.run, "games", GAMES_COLUMNS, [prof])
            res.append(measure(games, fit.players, boot=0))
        seed_a, seed_b = (load_manifest_seed(f.run) for f in (fit_a, fit_b))
        boot = max(int(fit_a.meta.get("boot", 0)), int(fit_b.meta.get("boot", 0))) or BOOT
        rows, diffs = measure_difference(res[0], res[1], seed_a is not None and seed_a == seed_b, boot,
                                         _pair_seed(fit_a.meta.get("seed", 0), a, b), level)
        rows.insert(0, "profile_b", b)
        rows.insert(0, "profile_a", a)
        parts.append(rows)
        reps.update({(a, b, m): d for m, d in diffs.items()})
    return judge_differences(pd.concat(parts, ignore_index=True), reps, thresholds)


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
    from analysis.compare import VERDICT_SHORT
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


def separation_sentence(rows: pd.DataFrame) -> str:
    """Which profiles reward skill more, only where their intervals of ``REPORT_MEASURE`` separate (one
    lies entirely below the other: fewer games left to a coin flip); ``rows``: measures rows of one
    measure (profile, estimate, ci_low, ci_high)."""
    rows = rows.dropna(subset=["ci_low", "ci_high"]).sort_values("estimate", kind="stable")
    found = []
    for r in rows.itertuples(index=False):
        less = [str(o.profile) for o in rows.itertuples(index=False) if r.ci_high < o.ci_low]
        if less:
            found.append(f"in {r.profile} than in {_and(less)}")
    if len(rows) < 2:
        return "One profile measured: nothing to rank it against."
    if not found:
        return ("The profiles' coin-flip-share intervals all overlap: at this budget the data do not say which "
                "variant rewards skill more.")
    return (f"Skill decides more {'; '.join(found)} (their coin-flip-share intervals do not overlap); where "
            "intervals overlap the data do not rank the profiles.")


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def report_section(doc, fit: Fit) -> None:
    """The balance report's "Skill and luck" section: the study in one sentence, one figure (each
    profile's coin-flip share with its interval), one sentence on which profiles reward skill more
    (only where the intervals separate), and the measures per profile."""
    from . import plots
    m = fit.measures
    meta = fit.meta
    deals = meta.get("deals", {})
    doc.heading("Skill and luck")
    doc.text(f"How much good play decides each profile: a skill study of {', '.join(fit.players)} in duplicate "
             f"games ({', '.join(f'{p} {deals.get(p, 0):,}' for p in fit.profiles)} deals, each played in every "
             "rotation of its table). The coin-flip share is the share of games a coin flip would have to decide, in "
             "a game the stronger player otherwise always wins, to leave as much to luck: lower means skill decides "
             f"more. 95% percentile bootstrap intervals over deals ({meta.get('boot')} replicates). The measures "
             "describe these players; the terms are in the glossary.")
    rows = m[m["measure"] == REPORT_MEASURE][["profile", "estimate", "ci_low", "ci_high"]].reset_index(drop=True)
    rows = rows.assign(profile=pd.Categorical(rows["profile"].astype(str), categories=fit.profiles))
    rows.attrs.update(title="Share of games left to a coin flip (95% bootstrap intervals)",
                      xlabel="coin-flip share (lower: skill decides more)")
    doc.figure("skill_coin_flip_share", plots.skill_measure, rows,
               "Each profile's coin-flip share with its 95% bootstrap interval over deals.",
               height=0.36 * len(rows) + 1.1)
    doc.text(separation_sentence(rows))
    table = m[m["measure"].isin(REPORT_COLUMNS)]
    cells = {(r.profile, r.measure): r for r in table.itertuples(index=False)}
    shown = [c for c in REPORT_COLUMNS if c in set(table["measure"])]
    frame = pd.DataFrame([{"profile": p, **{REPORT_HEADINGS[c]: fmt_estimate(c, *(getattr(cells[(p, c)], k) for k in (
        "estimate", "ci_low", "ci_high"))) if (p, c) in cells else "" for c in shown}} for p in fit.profiles])
    doc.table(frame, "Estimate (95% interval) per profile; pay spread only where money changes hands. Made by: "
              f"{meta.get('command') or 'kalooki skill'}")
