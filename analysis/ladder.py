"""The bot ladder measured at the game, read back: for each step (a rung against three of the rung
below, in duplicate; written by `kalooki ladder`, ``sim.ladder``) and profile, the upper rung's hands
won, games won and net payment per game, each with a 95% interval clustered by deal, a verdict per
step, and the order of the rungs the verdicts establish in each profile (``orders``), which the
strength frontier uses for its strong-play statements.

The measures, all of the upper rung (the one seat it holds in each game), over the step's deals:

- ``hand_win``: hands it won over the player-hands it played (void and stalled hands left out);
- ``game_win``: games it won over games played, a game stopped at the hand cap with k players level
  on the winner's total counting 1/k to each of them (a tie is a shared place, as in the skill study;
  the recorded winner of such a game is decided by seat); fair share 1/players (0.25);
- ``net_payment``: its net payment per game in units (pool included), where money changes hands;
- ``pay_edge``: its net payment minus the mean net payment of the other three in the same game, units
  per game (0 for an equal player).

Intervals: the rotations of a deal share its cards, so each deal is one cluster: a share's interval
is Wilson's at the effective sample size (``analysis.stats.cluster_proportion``: the design effect
from the deals, the few-deals t correction, never below the independent interval under 20 deals, no
interval of zero width), a payment's the cluster-robust t interval on deals - 1 degrees of freedom
(``analysis.stats.cluster_mean``, never narrower than the independent one under 20 deals).

The verdict (``verdict``): where money changes hands (elimination and single-hand profiles), the upper
rung *beats the rung below at the game* when its net payment edge's interval lies above 0 and its
games won lie above the fair share; it is *worse* when the edge's interval lies below 0, or its games
won's interval lies below the fair share while the edge's is not above 0.  Where no money changes
hands (a target game), it beats the rung below when its games won's interval lies above the fair
share and is worse when it lies below.  Otherwise the step is *not established*.

The measured order (``orders``): per profile, the chain of rungs from the bottom up while each step
beats the one below; the rung measured strongest is the chain's top.  A rung above a step that is
not established (or worse) is not measured stronger than the chain's top, whatever its own step says.

This module reads the runs' files and ``ladder.json``; it never imports the engine or the bots.
"""
from __future__ import annotations

import json
import textwrap
from dataclasses import dataclass

import numpy as np
import pandas as pd

from sim import runformat
from sim.errors import UserError

from . import load, stats
from .terminal import interval_text

LADDER_FORMAT = "kalooki-lab ladder"  # sim.ladder writes it
LADDER_FILE = "ladder.json"
LADDER_DIR = "ladder"
CSV_FILE = "ladder.csv"  # the measures and verdicts, written beside ladder.json by `kalooki ladder`
BEATS = "beats the rung below"
WORSE = "worse than the rung below"
NOT_ESTABLISHED = "not established"
VERDICTS = (BEATS, NOT_ESTABLISHED, WORSE)
SHORT = {BEATS: "beats", NOT_ESTABLISHED: "not established", WORSE: "worse"}
SHARE_METHOD = ("Wilson 95% interval at the effective n (design effect cluster-robust by deal, the rotations of a "
                "deal one cluster; few-deals t correction on deals - 1 df; never narrower than the independent "
                "interval under 20 deals)")
PAY_METHOD = ("t 95% interval, cluster-robust (by deal) standard error, df = deals - 1; never narrower than the "
              "independent interval under 20 deals")
NOTE = (
    "Bot ladder at the game: each rung of the bot ladder at one seat against three of the rung below, in "
    "duplicate (every deal played once in each rotation of the seats, the same cards to the same seats), the "
    "same deals at every step. Per step and profile, the upper rung's hands won (of its player-hands, void "
    "and stalled hands left out), games won (of its games; a game stopped at the hand cap with players level "
    "on the winner's total counts a share to each) against a fair share of 1/4, and, where money changes "
    "hands, its net payment per game and its edge (its payment minus the mean of the other three's in the same "
    "game), units per game. 95% intervals clustered by deal: shares Wilson at the effective sample size, "
    "payments cluster-robust t on deals - 1 degrees of freedom. Verdict: where money changes hands the rung "
    "beats the one below at the game when the edge's interval lies above 0 and its games won above 1/4 "
    "(worse when the edge's interval lies below 0, or the games won's below 1/4 with the edge not above 0); "
    "in a target game when the games won's interval lies above 1/4 (worse: below); otherwise not "
    "established. The measured order: the rungs from the bottom up while each beats the one below; the "
    "top of that chain is the rung measured strongest.")

COLUMNS = ["profile", "upper", "lower", "deals", "games", "player_hands", "hand_win", "hand_win_lo", "hand_win_hi",
           "game_win", "game_win_lo", "game_win_hi", "fair_share", "money", "net_payment", "net_payment_lo",
           "net_payment_hi", "pay_edge", "pay_edge_lo", "pay_edge_hi", "verdict", "reason", "share_method",
           "payment_method"]


@dataclass
class LadderData:
    path: str
    document: dict
    table: pd.DataFrame  # COLUMNS, a row per (profile, step)

    @property
    def profiles(self) -> list[str]:
        return list(self.document.get("profiles") or [])

    @property
    def rungs(self) -> list[str]:
        steps = self.document.get("steps") or []
        return ([steps[0]["lower"]] if steps else []) + [s["upper"] for s in steps]


def find(path) -> str | None:
    """A ladder study at ``path`` itself or in ``path``/ladder (a run's), as a path or URI like ``path``;
    None when there is none."""
    return runformat.holding(str(path), LADDER_FILE) or find_in_run(path)


def find_in_run(run_dir) -> str | None:
    """The run's ladder study (RUN/ladder holding a ladder.json); None when it has none."""
    return runformat.holding(runformat.join_uri(run_dir, LADDER_DIR), LADDER_FILE)


def read_document(path) -> dict:
    """The ladder.json at ``path`` (a path or URI), checked; UserError naming what is wrong."""
    loc = runformat.locate(path, "ladder")
    where = loc.file(LADDER_FILE)
    try:
        data = runformat.read_bytes(loc.fs, where.path)
    except OSError as e:
        raise UserError(f"{where}: cannot read the ladder study: {e}") from None
    if data is None:
        raise UserError(f"{path}: no ladder study there (no {LADDER_FILE}); `kalooki ladder --out RUN` writes "
                        f"one to RUN/{LADDER_DIR}")
    try:
        doc = json.loads(data)
    except ValueError as e:
        raise UserError(f"{where} is not readable JSON: {e}") from None
    if not isinstance(doc, dict) or doc.get("format") != LADDER_FORMAT:
        raise UserError(f"{where} is not a kalooki-lab ladder study (no \"format\": {LADDER_FORMAT!r})")
    if not isinstance(doc.get("steps"), list) or not doc["steps"]:
        raise UserError(f"{where}: a ladder study lists one step or more")
    if doc.get("complete") is not True:
        raise UserError(f"ladder study {path} is not complete (stopped early); run its command again to finish it: "
                        f"{doc.get('command', 'kalooki ladder ...')}")
    return doc


def load_ladder(path) -> LadderData:
    """Every step's run, verified, measured (``measure_step``) and judged (``verdict``)."""
    path = str(path)
    doc = read_document(path)
    rows = []
    for step in doc["steps"]:
        run_dir = runformat.join_uri(path, str(step.get("run", step["upper"])))
        problems = load.verify_run(run_dir)
        if problems:
            raise UserError(f"ladder step {step['upper']} ({run_dir}) fails verification: {problems[0]}"
                            + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""))
        games = load.load_table(run_dir, "games", ["profile", "game_id", "seat", "n_players", "bot", "won",
                                                   "final_penalty_total", "net_payment", "stalled"])
        hands = load.load_table(run_dir, "hands", ["profile", "game_id", "bot", "won", "void", "stalled"])
        for profile in doc["profiles"]:
            g = games[games["profile"].astype(str) == profile]
            h = hands[hands["profile"].astype(str) == profile]
            money = bool((doc.get("money") or {}).get(profile, (g["net_payment"] != 0).any()))
            row = {"profile": profile, "upper": step["upper"], "lower": step["lower"],
                   **measure_step(g, h, step["upper"], money)}
            row["verdict"], row["reason"] = verdict(row)
            rows.append(row)
    return LadderData(path, doc, pd.DataFrame(rows, columns=COLUMNS))


def write_csv(ladder: LadderData) -> str:
    """The table (``COLUMNS``) as ``CSV_FILE`` in the study's folder, written whole; its location."""
    loc = runformat.locate(ladder.path, "ladder")
    runformat.write_bytes_atomic(loc.fs, loc.path(CSV_FILE), ladder.table.to_csv(index=False).encode())
    return str(loc.file(CSV_FILE))


# ---------------------------------------------------------------------------------------------
# the numbers


def game_credit(games: pd.DataFrame) -> pd.Series:
    """Each games row's share of its game's win: 1 for the winner, 0 for the others, except in a game
    stopped at the hand cap (``stalled``) where k players are level on the winner's final total (penalty
    total, or points in a target game): 1/k to each of them."""
    g = games
    won = g["won"].astype(bool).to_numpy()
    total = g["final_penalty_total"].to_numpy(np.float64)
    gid = g["game_id"].to_numpy()
    winner_total = pd.Series(np.where(won, total, np.nan), index=g.index).groupby(gid).transform("max").to_numpy()
    stalled = g["stalled"].astype(bool).to_numpy()
    level = np.where(stalled, total == winner_total, won)
    k = pd.Series(level.astype(float), index=g.index).groupby(gid).transform("sum").to_numpy()
    return pd.Series(np.where(level & (k > 0), 1.0 / np.maximum(k, 1), 0.0), index=g.index)


def _sums(per_deal: pd.DataFrame, y: str, x: str) -> tuple:
    yv, xv = per_deal[y].to_numpy(float), per_deal[x].to_numpy(float)
    return len(per_deal), xv.sum(), yv.sum(), (yv * yv).sum(), (xv * xv).sum(), (xv * yv).sum()


def measure_step(games: pd.DataFrame, hands: pd.DataFrame, upper: str, money: bool) -> dict:
    """One profile's measures of a step's upper rung (``upper``: its bot name), each with its 95%
    interval clustered by deal (game g is rotation g % n of deal g // n)."""
    n = int(games["n_players"].max()) if len(games) else 4
    g = games.assign(credit=game_credit(games), deal=games["game_id"] // n)
    others = g[g["bot"].astype(str) != upper].groupby("game_id")["net_payment"].mean()
    mine = g[g["bot"].astype(str) == upper].copy()
    mine["edge"] = mine["net_payment"].to_numpy(float) - others.reindex(mine["game_id"]).to_numpy(float)
    mine["one"] = 1.0
    mine["pay"] = mine["net_payment"].astype(float)
    per = mine.groupby("deal").agg(games=("one", "sum"), credit=("credit", "sum"), pay=("pay", "sum"),
                                   edge=("edge", "sum"))
    h = hands[~hands["void"].astype(bool) & ~hands["stalled"].astype(bool) & (hands["bot"].astype(str) == upper)]
    hper = h.assign(deal=h["game_id"] // n, won=h["won"].astype(float), one=1.0).groupby("deal").agg(
        hands=("one", "sum"), won=("won", "sum"))
    hw = stats.cluster_proportion(*_sums(hper, "won", "hands")).iloc[0]
    gw = stats.cluster_proportion(*_sums(per, "credit", "games")).iloc[0]
    out = {"deals": int(len(per)), "games": int(per["games"].sum()), "player_hands": int(hper["hands"].sum()),
           "hand_win": hw.estimate, "hand_win_lo": hw.ci_low, "hand_win_hi": hw.ci_high,
           "game_win": gw.estimate, "game_win_lo": gw.ci_low, "game_win_hi": gw.ci_high, "fair_share": 1.0 / n,
           "money": money, "share_method": SHARE_METHOD, "payment_method": PAY_METHOD if money else ""}
    for name, column in (("net_payment", "pay"), ("pay_edge", "edge")):
        if money:
            rows_sq = float((mine[column] ** 2).sum())
            m = stats.cluster_mean(*_sums(per, column, "games"), yy_rows=rows_sq).iloc[0]
            out.update({name: m.estimate, f"{name}_lo": m.ci_low, f"{name}_hi": m.ci_high})
        else:
            out.update({name: np.nan, f"{name}_lo": np.nan, f"{name}_hi": np.nan})
    return out


def verdict(row: dict) -> tuple[str, str]:
    """(verdict, reason) of one step in one profile (the module docstring's rule)."""
    fair = row["fair_share"]
    games = f"games won {interval_text(row['game_win'], row['game_win_lo'], row['game_win_hi'])}"
    if not row["money"]:
        if row["game_win_lo"] > fair:
            return BEATS, f"{games}: its interval lies above the fair share {fair:.2f}"
        if row["game_win_hi"] < fair:
            return WORSE, f"{games}: its interval lies below the fair share {fair:.2f}"
        return NOT_ESTABLISHED, f"{games}: its interval holds the fair share {fair:.2f}"
    edge = (f"net payment edge {interval_text(row['pay_edge'], row['pay_edge_lo'], row['pay_edge_hi'], 2, True)} "
            "units a game")
    if row["pay_edge_lo"] > 0 and row["game_win"] > fair:
        return BEATS, f"{edge}, above 0, and {games}, above the fair share {fair:.2f}"
    if row["pay_edge_hi"] < 0:
        return WORSE, f"{edge}: its interval lies below 0"
    if row["game_win_hi"] < fair and row["pay_edge_lo"] <= 0:
        return WORSE, f"{games}: its interval lies below the fair share {fair:.2f}, and the {edge} is not above 0"
    if row["pay_edge_lo"] > 0:
        return NOT_ESTABLISHED, f"{edge}, above 0, but {games}, not above the fair share {fair:.2f}"
    return NOT_ESTABLISHED, f"{edge}: its interval holds 0"


@dataclass
class Order:
    """A profile's measured order: ``chain`` the rungs from the bottom up while each beats the one below
    (``strongest`` its top), ``steps`` {upper rung: verdict} in ladder order and ``notes`` one sentence per
    rung not measured stronger than the one below."""
    profile: str
    chain: list
    steps: dict
    notes: list

    @property
    def strongest(self) -> str:
        return self.chain[-1]

    @property
    def established(self) -> bool:
        """Is any rung measured stronger than the bottom one?"""
        return len(self.chain) > 1

    def text(self) -> str:
        said = " < ".join(self.chain)
        lead = (f"{self.profile}: measured at the game, {said}; the rung measured strongest is the {self.strongest}"
                if self.established else f"{self.profile}: no rung is measured stronger than the {self.chain[0]} "
                                         "at the game")
        return lead + "".join(f"; {n}" for n in self.notes) + "."


def orders(ladder: LadderData) -> dict:
    """{profile: Order} from the ladder's verdicts (the module docstring's rule)."""
    out = {}
    for profile in ladder.profiles:
        mine = ladder.table[ladder.table["profile"] == profile]
        chain, steps, notes, broken = [], {}, [], False
        for r in mine.itertuples(index=False):
            if not chain:
                chain.append(r.lower)
            steps[r.upper] = r.verdict
            if r.verdict == BEATS and not broken and chain[-1] == r.lower:
                chain.append(r.upper)
                continue
            broken = broken or r.verdict != BEATS
            notes.append(not_stronger_sentence(r, profile))
        out[profile] = Order(profile, chain, steps, notes)
    return out


def not_stronger_sentence(r, profile: str) -> str:
    """'the search is not measured stronger than the expert at the game in kalooki51: ...'."""
    word = {NOT_ESTABLISHED: "not measured stronger than", WORSE: "measured weaker than"}.get(r.verdict)
    if word is None:  # beats its own rung below, but a step below it is not established
        return (f"the {r.upper} beats the {r.lower} at the game in {profile}, but the {r.lower} is not measured "
                f"stronger than the rungs below, so the {r.upper} is not placed above them")
    hands = r.hand_win_lo > r.fair_share
    what = ("its rung's figures describe stronger hand play, not stronger game play (it wins "
            f"{r.hand_win:.3f} of its hands against a fair share of {r.fair_share:.2f})" if hands else
            "its rung's figures describe different play, not stronger play")
    return f"the {r.upper} is {word} the {r.lower} at the game in {profile}: {what}"


def summary(ladder: LadderData, profiles=None) -> str:
    """The measured order of ``profiles`` (every profile the study measured by default) in a few
    sentences, each rung not measured stronger than the one below named once with the profiles where
    it is not: 'Measured at the game (Bot ladder at the game): kalooki40 greedy < expert < search; ... The
    search is not measured stronger than the expert at the game in kalooki51 and scala40: ...'."""
    found = orders(ladder)
    names = [p for p in (profiles or ladder.profiles) if p in found]
    if not names:
        return ""
    text = ("Measured at the game (Bot ladder at the game): "
            + "; ".join(f"{p} {' < '.join(found[p].chain)}" for p in names) + ".")
    table = ladder.table
    placed = [r.upper in found[r.profile].chain if r.profile in found else True for r in table.itertuples()]
    rows = table[table["profile"].isin(names) & ~pd.Series(placed, index=table.index, dtype=bool)]
    said = {}  # (claim without its profile, reason without its figures) -> profiles
    for r in rows.itertuples(index=False):
        claim, _, reason = not_stronger_sentence(r, r.profile).partition(": ")
        key = (claim.replace(f" in {r.profile}", ""), reason.split(" (it wins")[0])
        said.setdefault(key, []).append(r.profile)
    for (claim, reason), where in said.items():
        text += f" {claim[0].upper()}{claim[1:]} in {_and(where)}" + (f": {reason}." if reason else ".")
    return text


def _and(names: list) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


# ---------------------------------------------------------------------------------------------
# words and tables


def display_table(ladder: LadderData) -> pd.DataFrame:
    """The page's table: a row per profile and step, every measure with its interval."""
    rows = []
    order = {p: i for i, p in enumerate(ladder.profiles)}
    table = ladder.table.sort_values("profile", key=lambda c: c.map(order), kind="stable")
    for r in table.itertuples(index=False):
        money = bool(r.money)
        rows.append({"profile": r.profile, "step": f"{r.upper} vs 3 {r.lower}", "deals": r.deals,
                     "hands won": interval_text(r.hand_win, r.hand_win_lo, r.hand_win_hi),
                     "games won": interval_text(r.game_win, r.game_win_lo, r.game_win_hi),
                     "net payment per game": interval_text(r.net_payment, r.net_payment_lo, r.net_payment_hi, 2, True)
                     if money else "no money changes hands",
                     "edge in net payment": interval_text(r.pay_edge, r.pay_edge_lo, r.pay_edge_hi, 2, True)
                     if money else "",
                     "verdict": r.verdict})
    return pd.DataFrame(rows)


def terminal_lines(ladder: LadderData, width: int = 100) -> list[str]:
    """Per profile: each step's upper rung, its hands won, games won and edge in net payment with their
    intervals, and the verdict; then the measured order."""
    doc = ladder.document
    steps = ", ".join(f"{s['upper']} vs 3 {s['lower']} {s['games']:,}" for s in doc["steps"])
    lines = textwrap.wrap(f"Ladder at the game: {len(ladder.profiles)} profile(s), seed {doc.get('seed')}, games per "
                          f"profile: {steps}. Duplicate: each deal in every rotation of the seats. Of the upper rung: "
                          "its shares of its hands and games won (fair share 0.25) and its edge in net payment "
                          "(units a game over the other three's mean); 95% intervals clustered by deal.", width)
    order = orders(ladder)
    head = f"{'rung':<10} {'deals':>5}  {'hands won':<19}  {'games won':<19}  {'edge in net payment':<22}  verdict"
    for profile in ladder.profiles:
        lines += ["", profile, head]
        for r in ladder.table[ladder.table["profile"] == profile].itertuples(index=False):
            edge = interval_text(r.pay_edge, r.pay_edge_lo, r.pay_edge_hi, 2, True) if r.money else "no money"
            cell = lambda v, lo, hi: f"{v:.3f} [{lo:.3f},{hi:.3f}]"  # noqa: E731
            lines.append(f"{r.upper:<10} {r.deals:>5}  {cell(r.hand_win, r.hand_win_lo, r.hand_win_hi):<19}  "
                         f"{cell(r.game_win, r.game_win_lo, r.game_win_hi):<19}  {edge.replace(', ', ','):<22}  "
                         f"{SHORT[r.verdict]}"[:width])
        lines += textwrap.wrap(order[profile].text(), width)
    return lines
