"""The strength frontier read back: each headline metric by rung of the bot ladder, the steps between
rungs, whether each metric has converged, and what that says about the balance report's findings.

A frontier (written by `kalooki frontier`) is one run per rung, every seat the rung's bot, game g
starting from the same deal at every rung (``frontier.json`` names the rungs in ladder order, weakest
first, and their runs), under a local folder or any URI a run can live at (read through
``sim.runformat``).
The metrics are the report's headline metrics (:mod:`analysis.metrics`, same definitions, units,
denominators, and the same cluster-robust intervals for shares), a mean's interval the seeded
percentile bootstrap over games (``bootstrap_means``: a mean count's never falls below 0).  The
figure (the report's ``frontier_section``) leaves out the metrics that are the same at every rung for every
profile (``flat_metrics``) and the report names them under it.  A *step* is a metric at one rung minus the rung below,
estimated from per-game differences (game g at one rung against game g at the other: the same first
deal) with :mod:`analysis.differences`' paired t interval, and judged against the metric's practical threshold
(:func:`analysis.findings.judge`, Holm over every metric and profile of the step).

A metric has **converged** for a profile when the last step (the top rung minus the one below) is
practically equivalent (inside the threshold by the equivalence test, Holm-corrected): climbing the
last rung moved it by less than the threshold; **not converged** when the last step is a clear
difference (past the threshold); **not established** otherwise (the last step cannot be told from
the threshold).  The step before is shown beside it, not used: whether the steps shrink would need a
test of their difference, which the rule does not make.

The rungs' order is the ladder's design (greedy < expert < search: each rung on it because a ladder
study measured it beating the one below at the game; the lookahead, stronger than the expert at the
hand, is not measured stronger at the game, so it is not a rung) until a ladder study
(``analysis.ladder``: each rung against three of the rung below, judged at the game by games won and
money) measures it: the report hands it over from RUN/ladder, `kalooki frontier` from RUN/ladder or
--ladder.  Measured, the rungs that stand for strong play in a profile are the top two of its
measured order (the chain of rungs from the bottom up while each beats the one below at the game);
a rung above that chain is not measured stronger at the game, and its figures describe stronger
hand play, or other play, not stronger game play; the page says so per profile (``order_notes``).

For the report: a difference from the baseline that holds at the two rungs that stand for strong
play in both profiles (the top two of their common measured order; the ladder's top two by design
where no ladder study measures them; none where the measured order holds fewer than two rungs) is
stated *for strong play*, with its size at each of the two rungs and their intervals
(``strong_play``: a verdict certifies a direction, the sizes are those rungs' own, not the report's
mixed tables'); and the report's table composition whose estimates lie closest to the rung measured
strongest in each profile is the one to read for good players.

This module reads the runs' files and their manifests; it never imports the engine or the bots.
"""
from __future__ import annotations

import json
import zlib
from dataclasses import dataclass

import numpy as np
import pandas as pd

from sim import runformat
from sim.errors import UserError

from . import findings, load, metrics, stats

FRONTIER_FORMAT = "kalooki-lab frontier"  # sim.frontier writes it
FRONTIER_FILE = "frontier.json"
FRONTIER_DIR = "frontier"
CONVERGED = "converged"
NOT_CONVERGED = "not converged"
STATUSES = (CONVERGED, NOT_CONVERGED, findings.NOT_ESTABLISHED)
STRONG = findings.STRONG_PLAY
BOOT = 2000  # bootstrap replicates of a mean's interval per profile (cheap: one matrix product a metric)
CONVERGENCE_NOTE = (
    "Strength frontier: each profile played at tables of four of the same bot, once per rung of the bot ladder "
    "(weakest first), game g starting from the same deal at every rung (the same seed, profile and game "
    "number). Each headline metric per rung is the report's estimate (unit and denominator as in the "
    "headline table) with a 95% interval: for a share the report's cluster-robust Wilson interval, for a "
    "difference of shares its cluster-robust t interval, for a mean (each a mean of a non-negative count or value) "
    f"the {BOOT:,}-replicate percentile bootstrap over games, the same resampled games at every rung, seeded from "
    "the frontier's seed and the profile, so that it stays within the per-game values (never below 0, where a t "
    "interval can reach); the figure and frontier_by_rung.csv show these intervals. The figure leaves out a "
    "metric that is the same at every rung for every profile (a flat line says nothing about play strength) and "
    "says which under it. A step is a rung minus the rung below, from per-game differences (game g against game "
    "g: t interval on games - 1 degrees of freedom), judged against the metric's practical threshold like any "
    "difference (Holm over every metric and profile of the step). Converged: the last step (the top rung minus "
    "the one below) is practically equivalent by the equivalence test, Holm-corrected; not converged: the last "
    "step is a clear difference; not established: otherwise (the last step cannot be told from its threshold). "
    "The step before is shown, not used (whether the steps shrink is not tested). The rungs that stand for strong "
    "play: with a ladder study of the run (Bot ladder at the game), the top two of the order measured at the game "
    "common to the two profiles compared (the rungs from the bottom up while each beats the one below), none where "
    "that order holds fewer than two rungs; without one, the ladder's top two by design, said as such. Stated for "
    "strong play: a difference from the baseline with the same verdict at those two rungs (both higher, both "
    "lower, or both practically equivalent), shown with its size and 95% interval at each of the two rungs "
    "(frontier_strong_play.csv: every difference's verdict at each, and the order the rungs come from), not the "
    "report's mixed-table size. The composition to read for good players: the report's table composition whose "
    "estimates lie within one practical threshold of the rung measured strongest in each profile (the top rung "
    "by design without a ladder study) for the largest share of (profile, metric) pairs.")
FIGURE_KINDS = ("proportion", "mean", "difference")
MEAN_METHOD = (stats.PERCENTILE_BOOTSTRAP.format(boot=BOOT) + ", the same resampled games at every rung, seeded "
               "from the frontier's seed and the profile")


@dataclass
class FrontierData:
    path: str  # a local path or a URI
    document: dict
    rungs: list[str]
    results: dict  # rung -> metrics.Results (per-game sums kept)
    ladder: object = None  # analysis.ladder.LadderData: the rungs' order measured at the game, or None

    @property
    def profiles(self) -> list[str]:
        return list(self.document.get("profiles") or self.results[self.rungs[0]].run.profiles)

    @property
    def orders(self) -> dict:
        """{profile: analysis.ladder.Order} of the profiles the ladder study measured ({} without one)."""
        from .ladder import orders
        return orders(self.ladder) if self.ladder is not None else {}

    def chain(self, profile: str) -> list[str] | None:
        """The frontier's rungs that the ladder measures in order at the game in ``profile``, bottom up
        (each beats the one below), or None where no ladder study measures the profile."""
        order = self.orders.get(profile)
        return None if order is None else [r for r in order.chain if r in self.rungs]

    def strong_rungs(self, *profiles: str) -> list[str]:
        """The two rungs that stand for strong play in ``profiles`` (every profile without arguments):
        the top two of the measured order common to them (the shortest of their chains: every chain
        climbs the same ladder from its bottom), [] where it holds fewer than two rungs; the ladder's
        top two by design where a profile's order is not measured (``measured`` says which)."""
        chains = [self.chain(p) for p in (profiles or self.profiles)]
        if any(c is None for c in chains):
            return self.rungs[-2:]
        common = min(chains, key=len)
        return common[-2:] if len(common) >= 2 else []

    def measured(self, *profiles: str) -> bool:
        """Does a ladder study measure the order of the rungs in every one of ``profiles``?"""
        return all(self.chain(p) is not None for p in (profiles or self.profiles))

    def strongest(self, profile: str) -> str:
        """The rung measured strongest at the game in ``profile``; the top rung by design where the order
        is not measured."""
        chain = self.chain(profile)
        return chain[-1] if chain else self.rungs[-1]

    @property
    def top_two(self) -> list[str]:
        return self.strong_rungs()

    def order_summary(self) -> str:
        """``order_notes`` in a few sentences for the findings: each profile's measured order, each rung
        not measured stronger named once with its profiles, and the profiles not measured."""
        from .ladder import summary
        if self.ladder is None:
            return self.order_notes()[0]
        missing = [p for p in self.profiles if p not in self.orders]
        return (summary(self.ladder, self.profiles) + (f" Not measured at the game: {', '.join(missing)} (the "
                                                       "ladder's order by design)." if missing else "")).strip()

    def order_notes(self) -> list[str]:
        """What the frontier's profiles' orders are, plainly: a sentence per profile measured (the order
        and every rung not measured stronger than the one below), and one for those not measured."""
        if self.ladder is None:
            return [f"No ladder study beside this frontier: the rungs' order ({' < '.join(self.rungs)}) is the "
                    "ladder's design, not measured at the game, so its top rungs stand for strong play by "
                    "assumption (`kalooki ladder --out RUN` measures it)."]
        out = [o.text() for p, o in self.orders.items() if p in self.profiles]
        missing = [p for p in self.profiles if p not in self.orders]
        if missing:
            out.append(f"The ladder study does not measure {', '.join(missing)}: there the rungs' order is the "
                       "ladder's design, not measured at the game.")
        return out


def find(run_dir) -> str | None:
    """The run's frontier (RUN/frontier holding a frontier.json), as a path or URI like ``run_dir``;
    None when it has none."""
    return runformat.holding(runformat.join_uri(run_dir, FRONTIER_DIR), FRONTIER_FILE)


def read_document(path) -> dict:
    """The frontier.json at ``path`` (a path or URI), checked; UserError naming what is wrong."""
    loc = runformat.locate(path, "run")
    where = loc.file(FRONTIER_FILE)
    try:
        data = runformat.read_bytes(loc.fs, where.path)
    except OSError as e:
        raise UserError(f"{where}: cannot read the frontier: {e}") from None
    if data is None:
        raise UserError(f"{where}: cannot read the frontier: no such file")
    try:
        doc = json.loads(data)
    except ValueError as e:
        raise UserError(f"{where} is not readable JSON: {e}") from None
    if not isinstance(doc, dict) or doc.get("format") != FRONTIER_FORMAT:
        raise UserError(f"{where} is not a kalooki-lab frontier (no \"format\": {FRONTIER_FORMAT!r})")
    rungs = doc.get("rungs")
    if not isinstance(rungs, list) or len(rungs) < 2 or not isinstance(doc.get("runs"), dict):
        raise UserError(f"{where}: a frontier lists two rungs or more and the run of each")
    if doc.get("complete") is not True:
        raise UserError(f"frontier {path} is not complete (stopped early); run its command again to finish it: "
                        f"{doc.get('command', 'kalooki frontier ...')}")
    return doc


def load_frontier(path, ladder=None) -> FrontierData:
    """Every rung's run, verified, with per-game sums kept (the steps are paired by game); ``ladder``
    (``analysis.ladder.LadderData``) gives the rungs' order measured at the game."""
    path = str(path)
    doc = read_document(path)
    results = {}
    for rung in doc["rungs"]:
        run_dir = runformat.join_uri(path, str(doc["runs"].get(rung, rung)))
        problems = load.verify_run(run_dir)
        if problems:
            raise UserError(f"frontier rung {rung} ({run_dir}) fails verification: {problems[0]}"
                            + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""))
        results[rung] = metrics.compute(metrics.load_run(run_dir, keep_games=True))
    return FrontierData(path, doc, list(doc["rungs"]), results, ladder)


# ---------------------------------------------------------------------------------------------
# the numbers


BY_RUNG_COLUMNS = ["profile", "rung", "metric", "kind", "estimate", "ci_low", "ci_high", "n", "games", "method",
                   "unit", "denominator", "applicable"]


def by_rung(fr: FrontierData) -> pd.DataFrame:
    """Every headline metric per profile and rung (long; the report's summary columns plus `rung`), a
    mean's interval the percentile bootstrap over games (``bootstrap_means``)."""
    parts = [res.summary.assign(rung=rung) for rung, res in fr.results.items()]
    return bootstrap_means(fr, pd.concat(parts, ignore_index=True)[BY_RUNG_COLUMNS])


def _bootstrap_stream(seed, profile: str) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(int(seed or 0), spawn_key=(zlib.crc32(b"frontier"),
                                                                                    zlib.crc32(profile.encode()))))


def bootstrap_means(fr: FrontierData, table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with every applicable mean's interval replaced by the percentile bootstrap over games
    (``BOOT`` replicates): every mean here is a mean of a non-negative count or value, and its t
    interval can reach below 0 where the bootstrap's stays within the per-game values.  The replicates
    of a profile come from one stream of the frontier's seed and the profile, and resample the same
    games at every rung and for every metric (game g is the same deal at every rung)."""
    from .differences import per_game
    out = table.copy()
    weights = {}
    for i in out.index[(out["kind"] == "mean") & out["applicable"].astype(bool) & out["estimate"].notna()]:
        profile, rung, metric = out.at[i, "profile"], out.at[i, "rung"], out.at[i, "metric"]
        games = per_game(fr.results[rung], profile, metric)
        if len(games) < 2:
            continue
        key = (profile, len(games))
        if key not in weights:
            rng = _bootstrap_stream(fr.document.get("seed"), profile)
            weights[key] = np.array([stats.bootstrap_weights(rng, len(games)) for _ in range(BOOT)])
        found = stats.bootstrap_ratio(games["y"].to_numpy(), games["x"].to_numpy(), weights[key]).iloc[0]
        out.loc[i, ["ci_low", "ci_high", "method"]] = [found["ci_low"], found["ci_high"], MEAN_METHOD]
    return out


def steps(fr: FrontierData, thresholds) -> pd.DataFrame:
    """Every step (a rung minus the rung below) per profile and metric, paired by game and judged
    against the metric's threshold: compare's and judge's columns plus `step`, `lower` and `upper`."""
    from .differences import compare_results
    parts = []
    for lower, upper in zip(fr.rungs, fr.rungs[1:]):
        a, b = fr.results[lower], fr.results[upper]
        pairs = [(p, p) for p in fr.profiles if p in a.run.profiles and p in b.run.profiles]
        table = compare_results(a, b, pairs, {pair: True for pair in pairs})
        judged = findings.judge(table, thresholds)
        judged.insert(0, "step", f"{lower} → {upper}")
        judged.insert(1, "lower", lower)
        judged.insert(2, "upper", upper)
        parts.append(judged)
    out = pd.concat(parts, ignore_index=True)
    return out.rename(columns={"profile_a": "profile"}).drop(columns=["profile_b"])


def convergence_status(last: dict, before: dict | None = None) -> tuple[str, str]:
    """(status, reason) of one metric from its last step (a dict with `verdict`, findings.judge's):
    converged when it is practically equivalent, not converged when it is a clear difference.  The
    step before (``before``) is not used: the rule makes no test of whether the steps shrink."""
    verdict = last["verdict"]
    if verdict in (findings.NOT_APPLICABLE, findings.NOT_TESTED, findings.NO_THRESHOLD):
        return verdict, f"the last step is {verdict}"
    if verdict in findings.STATED:
        return NOT_CONVERGED, f"the last step is a clear difference ({verdict}), past the practical threshold"
    if verdict == findings.EQUIVALENT:
        return CONVERGED, "the last step is inside the practical threshold (equivalence test)"
    return findings.NOT_ESTABLISHED, "the last step cannot be told from the practical threshold"


CONVERGENCE_COLUMNS = ["profile", "metric", "kind", "status", "reason", "last_step", "last_difference",
                       "last_ci_low", "last_ci_high", "last_verdict", "previous_difference", "previous_verdict",
                       "threshold", "unit"]


def convergence(step_table: pd.DataFrame, rungs: list[str]) -> pd.DataFrame:
    """Per profile and metric: whether it has converged (``convergence_status``), with the last step and
    the step before."""
    rows = []
    last_step = f"{rungs[-2]} → {rungs[-1]}"
    before_step = f"{rungs[-3]} → {rungs[-2]}" if len(rungs) > 2 else None
    keyed = {(r["step"], r["profile"], r["metric"]): r for r in step_table.to_dict("records")}
    for profile in dict.fromkeys(step_table["profile"]):
        for metric, _, _ in metrics.HEADLINE:
            last = keyed.get((last_step, profile, metric))
            if last is None:
                continue
            before = keyed.get((before_step, profile, metric)) if before_step else None
            status, reason = convergence_status(last, before)
            rows.append({"profile": profile, "metric": metric, "kind": last["kind"], "status": status,
                         "reason": reason, "last_step": last_step, "last_difference": last["difference"],
                         "last_ci_low": last["diff_ci_low"], "last_ci_high": last["diff_ci_high"],
                         "last_verdict": last["verdict"],
                         "previous_difference": before["difference"] if before else np.nan,
                         "previous_verdict": before["verdict"] if before else "",
                         "threshold": last["threshold"], "unit": last["unit"]})
    return pd.DataFrame(rows, columns=CONVERGENCE_COLUMNS)


STRONG_COLUMNS = ["profile_b", "metric", "kind", "strong_play", "strong_rungs", "order", "lower", "upper",
                  "difference_lower", "ci_low_lower", "ci_high_lower", "verdict_lower", "difference_upper",
                  "ci_low_upper", "ci_high_upper", "verdict_upper"]
MEASURED, BY_DESIGN, NO_ORDER = "measured at the game", "the ladder's design", "not established at the game"


def strong_play(fr: FrontierData, baseline: str, thresholds) -> pd.DataFrame:
    """Each profile's difference from the baseline judged at each of the two rungs that stand for strong
    play in the baseline and that profile (``FrontierData.strong_rungs``: the top two of their common
    order measured at the game, or the ladder's top two by design where a ladder study does not measure
    them), within each rung's run as the report judges it, and `strong_play`: "higher/lower for strong
    play" when both rungs find the same clear difference, "practically equivalent for strong play" when
    both find it equivalent, "" otherwise, or where the measured order holds fewer than two rungs (no
    rung measured stronger than the bottom one: ``order`` says "not established at the game").  Beside
    it, at each of the two rungs (``lower``, ``upper``), the difference with its 95% interval and verdict
    (``difference_lower``, ...: the size for strong play is those rungs', not the report's mixed
    tables').  Empty when the frontier lacks the baseline."""
    from .differences import compare_results
    if baseline not in fr.profiles:
        return pd.DataFrame(columns=STRONG_COLUMNS)
    judged = {}

    def judged_at(rung):
        if rung not in judged:
            res = fr.results[rung]
            pairs = [(baseline, p) for p in res.run.profiles if p != baseline]
            paired = bool(res.run.manifest.get("paired"))
            judged[rung] = findings.judge(compare_results(res, res, pairs, {pair: paired for pair in pairs}),
                                          thresholds).set_index(["profile_b", "metric"]) if pairs else None
        return judged[rung]

    rows = []
    for profile in fr.profiles:
        if profile == baseline:
            continue
        rungs = fr.strong_rungs(baseline, profile)
        order = MEASURED if fr.measured(baseline, profile) else BY_DESIGN
        if len(rungs) < 2:
            rungs, order = fr.rungs[-2:], NO_ORDER  # shown at the top two by design, stated for neither
        low, high = judged_at(rungs[0]), judged_at(rungs[1])
        if low is None or high is None:
            continue
        for key in high.index:
            if key[0] != profile or key not in low.index:
                continue
            a, b = low.loc[key], high.loc[key]
            mark = ""
            if order != NO_ORDER and a["verdict"] == b["verdict"] and \
                    a["verdict"] in findings.STATED + (findings.EQUIVALENT,):
                mark = f"{a['verdict']} {STRONG}"
            row = {"profile_b": key[0], "metric": key[1], "kind": b.get("kind", ""), "strong_play": mark,
                   "strong_rungs": " and ".join(rungs) if order != NO_ORDER else "", "order": order,
                   "lower": rungs[0], "upper": rungs[1]}
            for side, j in (("lower", a), ("upper", b)):
                row.update({f"difference_{side}": j["difference"], f"ci_low_{side}": j["diff_ci_low"],
                            f"ci_high_{side}": j["diff_ci_high"], f"verdict_{side}": j["verdict"]})
            rows.append(row)
    return pd.DataFrame(rows, columns=STRONG_COLUMNS)


def closest_composition(by_table: pd.DataFrame, fr: FrontierData, thresholds) -> pd.DataFrame:
    """Per table composition of the report's run: for how many (profile, metric) pairs its estimate lies
    within one practical threshold of the frontier's strongest rung in that profile (``FrontierData.
    strongest``: measured at the game where a ladder study measures it), and the median distance in
    thresholds; the closest first (the composition to read for good players)."""
    top = pd.concat([fr.results[fr.strongest(p)].summary.pipe(lambda t, p=p: t[t["profile"] == p])
                     for p in fr.profiles], ignore_index=True).set_index(["profile", "metric"])
    rows = []
    for table, mine in by_table.groupby("table", sort=False):
        distances = []
        for r in mine.itertuples(index=False):
            t = thresholds.get(r.metric)
            if t is None or t.threshold <= 0 or (r.profile, r.metric) not in top.index:
                continue
            other = top.loc[(r.profile, r.metric), "estimate"]
            if pd.isna(r.estimate) or pd.isna(other) or r.kind not in FIGURE_KINDS:
                continue
            distances.append(abs(float(r.estimate) - float(other)) / t.threshold)
        if distances:
            d = np.asarray(distances)
            rows.append({"table": table, "pairs": len(d), "within_one_threshold": float((d <= 1).mean()),
                         "median_distance": float(np.median(d))})
    out = pd.DataFrame(rows, columns=["table", "pairs", "within_one_threshold", "median_distance"])
    return out.sort_values(["within_one_threshold", "median_distance"], ascending=[False, True],
                           kind="stable").reset_index(drop=True)


# ---------------------------------------------------------------------------------------------
# words, tables, figure


def figure_frame(table: pd.DataFrame) -> pd.DataFrame:
    """The figure's rows: metrics that can move with play (tested kinds, in compare's family), applicable."""
    keep = [m for m, _, _ in metrics.HEADLINE if metrics.METRIC_INFO[m][3] and metrics.METRIC_INFO[m][0] in FIGURE_KINDS]
    rows = table[table["metric"].isin(keep) & table["estimate"].notna()].copy()
    rows["order"] = rows["metric"].map({m: i for i, m in enumerate(keep)})
    rows = rows.sort_values("order", kind="stable")
    rows["label"] = [findings.show(m, k).label + (" (%)" if findings.show(m, k).unit == "%" else "")
                     for m, k in zip(rows["metric"], rows["kind"])]
    rows["scale"] = [findings.show(m, k).scale for m, k in zip(rows["metric"], rows["kind"])]
    profiles = list(dict.fromkeys(table["profile"]))
    rows["profile"] = pd.Categorical(rows["profile"], categories=profiles)
    return rows


def flat_metrics(frame: pd.DataFrame) -> dict:
    """The figure's metrics whose estimate is the same at every rung for every profile: {metric: {profile:
    value}} (the figure leaves them out: a flat line tells nothing about play strength)."""
    flat = {}
    for metric, mine in frame.groupby("metric", sort=False):
        spread = mine.groupby("profile", observed=True)["estimate"].agg(["min", "max"])
        if (spread["min"] == spread["max"]).all():
            flat[metric] = {str(p): float(v) for p, v in spread["min"].items()}
    return flat


def negligible_metrics(frame: pd.DataFrame, thresholds) -> dict:
    """The figure's metrics (not flat) whose estimate lies in [0, threshold) at every rung for every
    profile: {metric: largest estimate}.  No step between two such values can reach the practical
    threshold, so the panel would show lines at zero in practice; the figure leaves them out."""
    out = {}
    for metric, mine in frame.groupby("metric", sort=False):
        t = thresholds.get(metric)
        if t is None or t.threshold <= 0:
            continue
        est = mine["estimate"].to_numpy(dtype=float)
        if len(est) and (est >= 0).all() and (est < t.threshold).all():
            out[metric] = float(est.max())
    return out


def negligible_text(negligible: dict, kinds: dict, thresholds) -> str:
    """Under the figure: the metrics left out as zero in practice at every rung."""
    names = "; ".join(f"{findings.sentence_label(findings.show(m, kinds[m]).label)} (at most "
                      f"{findings.fmt_value(m, v, kinds[m])} at any rung, threshold "
                      f"{findings.fmt_value(m, thresholds[m].threshold, kinds[m])})" for m, v in negligible.items())
    return (f"Left out of the figure, zero in practice at every rung for every profile (below the practical "
            f"threshold, so no step could reach it): {names}. Their rows are in frontier_by_rung.csv.")


CLIP_FACTOR = 2.0  # a profile's intervals that widen a panel's scale this many times over are clipped


def shared_limits(frame: pd.DataFrame) -> tuple[dict, dict]:
    """Per panel (label): the y-limits (display units) the profiles share, and the profiles whose
    intervals are clipped to them, with their highest interval end.  A profile's intervals are left
    out of the shared scale when, with every estimate kept, they widen the panel more than
    CLIP_FACTOR times (one profile's few hands per game giving a 0-300 interval must not flatten the
    others); the estimates always set the scale."""
    limits, clipped = {}, {}
    for label, mine in frame.groupby("label", sort=False):
        scale = mine["scale"].to_numpy(dtype=float)
        est = mine["estimate"].to_numpy(dtype=float) * scale
        low = np.where(np.isfinite(mine["ci_low"].to_numpy(dtype=float)), mine["ci_low"].to_numpy(dtype=float),
                       mine["estimate"].to_numpy(dtype=float)) * scale
        high = np.where(np.isfinite(mine["ci_high"].to_numpy(dtype=float)), mine["ci_high"].to_numpy(dtype=float),
                        mine["estimate"].to_numpy(dtype=float)) * scale
        profile = mine["profile"].astype(str).to_numpy()
        kept = set(profile)
        span = lambda keep: (min(np.nanmin(est), np.nanmin(low[np.isin(profile, list(keep))], initial=np.inf)),
                             max(np.nanmax(est), np.nanmax(high[np.isin(profile, list(keep))], initial=-np.inf)))
        while len(kept) > 1:
            lo, hi = span(kept)
            widest = max(kept, key=lambda p: float(np.nanmax(high[profile == p] - low[profile == p])))
            lo2, hi2 = span(kept - {widest})
            if (hi - lo) <= CLIP_FACTOR * max(hi2 - lo2, 1e-12) or (hi2 - lo2) <= 0:
                break
            kept.discard(widest)
            clipped.setdefault(label, {})[widest] = float(np.nanmax(high[profile == widest]))
        limits[label] = span(kept)
    return limits, clipped


def clipped_text(clipped: dict) -> str:
    """Under the figure: whose intervals run past a panel's shared scale."""
    parts = "; ".join(f"{', '.join(f'{p} (up to {v:,.3g})' for p, v in who.items())} in {label}"
                      for label, who in clipped.items())
    return (f"Intervals clipped at the panel's edge (a triangle marks where they go on): {parts}. They are so wide "
            "(few hands or games behind each estimate) that on a shared scale they would flatten every other "
            "profile; frontier_by_rung.csv holds them in full.")


def flat_text(flat: dict, kinds: dict) -> str:
    """Under the figure: which metrics it leaves out and why."""
    def values(metric):
        found = {findings.fmt_value(metric, v, kinds[metric]) for v in flat[metric].values()}
        if len(found) == 1:
            return found.pop() if len(flat[metric]) == 1 else f"{found.pop()} for every profile"
        return ", ".join(f"{p} {findings.fmt_value(metric, v, kinds[metric])}" for p, v in flat[metric].items())
    names = "; ".join(f"{findings.sentence_label(findings.show(m, kinds[m]).label)} ({values(m)})" for m in flat)
    profiles = list(dict.fromkeys(p for values_ in flat.values() for p in values_))
    who = "every profile" if len(profiles) > 1 else profiles[0]
    return (f"Left out of the figure, the same at every rung for {who}, so a panel would show only flat "
            f"lines: {names}. Their rows are in the convergence table and frontier_by_rung.csv.")


def counts_text(conv: pd.DataFrame) -> str:
    judged = conv[conv["status"].isin(STATUSES)]
    n = {s: int((judged["status"] == s).sum()) for s in STATUSES}
    return (f"{n[CONVERGED]} converged, {n[NOT_CONVERGED]} not converged and {n[findings.NOT_ESTABLISHED]} not "
            f"established of {len(judged)} (profile, metric) pairs judged")


def strongest_text(fr: FrontierData) -> str:
    """'the rung measured strongest at the game in each profile (kalooki40 search, scala40 expert)', or
    the top rung by design where the order is not measured."""
    if not fr.measured():
        return (f"the frontier's top rung by design ({fr.rungs[-1]} at every seat; its order is not measured at the "
                "game)")
    which = ", ".join(f"{p} {fr.strongest(p)}" for p in fr.profiles)
    return f"the frontier's rung measured strongest at the game in each profile ({which}, at every seat)"


def composition_text(closest: pd.DataFrame, fr: FrontierData) -> str:
    if closest.empty:
        return ""
    best = closest.iloc[0]
    others = "; ".join(f"{r.table} {r.within_one_threshold:.0%}" for r in closest.iloc[1:].itertuples(index=False))
    return (f"For good players read the {best['table']} table composition: its estimates lie within one practical "
            f"threshold of {strongest_text(fr)} for {best['within_one_threshold']:.0%} of "
            f"{int(best['pairs'])} (profile, metric) pairs (median distance {best['median_distance']:.2f} "
            "thresholds)" + (f"; {others}" if others else "") + ".")


def terminal_lines(fr: FrontierData, thresholds=None, width: int = 100) -> list[str]:
    """Per profile: each tested headline metric at every rung, the last step and its status, every line
    at most ``width`` columns (a long metric name wrapped, never cut)."""
    from .terminal import fit_rows
    thresholds = findings.default_thresholds() if thresholds is None else thresholds
    table = by_rung(fr)
    conv = convergence(steps(fr, thresholds), fr.rungs).set_index(["profile", "metric"])
    doc = fr.document
    games = doc.get("games")
    lines = [f"{len(fr.profiles)} profile(s), {games} game{'' if games == 1 else 's'} per profile and rung, seed "
             f"{doc.get('seed')}, rungs {' < '.join(fr.rungs)} (by design)"[:width]]
    cols = fr.rungs + ["last step", "status"]
    for profile in fr.profiles:
        lines.append("")
        lines.append(profile)
        cells = [["metric"] + cols]
        mine = figure_frame(table[table["profile"] == profile])
        for metric in dict.fromkeys(mine["metric"]):
            kind = metrics.METRIC_INFO[metric][0]
            est = mine[mine["metric"] == metric].set_index("rung")["estimate"]
            c = conv.loc[(profile, metric)] if (profile, metric) in conv.index else None
            cells.append([metric] + [findings.fmt_value(metric, est.get(r), kind) for r in fr.rungs]
                         + ([findings.fmt_difference(metric, c["last_difference"], np.nan, np.nan, kind),
                             c["status"]] if c is not None else ["", ""]))
        rows, widths = fit_rows(cells, width)
        for row in rows:
            line = "  ".join([row[0].ljust(widths[0])] + [row[i].rjust(widths[i]) for i in range(1, len(row) - 1)]
                             + [row[-1]])
            lines.append(line[:width])
    lines.append("")
    lines.append(f"Converged: {counts_text(conv.reset_index())}."[:width])
    import textwrap
    for note in fr.order_notes():
        lines += textwrap.wrap(note, width)
    return lines


def strong_text(strong: pd.DataFrame, judged: pd.DataFrame | None = None) -> str:
    """How many differences from the baseline hold at the two rungs that stand for strong play (each
    pair of profiles' own: ``strong_rungs``), and how many of them the headline table marks ★ (those
    that also change with the table composition: ``judged``, the report's differences with
    `strong_play` and `robustness`; without it the number marked is not said)."""
    held = strong[strong["strong_play"] != ""]
    rungs = sorted(set(held["strong_rungs"])) if len(held) else sorted(set(strong["strong_rungs"]) - {""})
    where = (f"the two rungs that stand for strong play ({'; '.join(rungs)})" if rungs else
             "the two rungs that stand for strong play")
    text = (f"Of the {len(strong)} differences from the baseline, {len(held)} "
            f"{'holds' if len(held) == 1 else 'hold'} at {where}: the same "
            "verdict at both, with its size at each rung in the table below (every difference's verdict at each "
            "rung in frontier_strong_play.csv).")
    if judged is not None and {"strong_play", "robustness"} <= set(judged.columns):
        marked = int(((judged["strong_play"].fillna("") != "") & judged["robustness"].map(findings.varies)).sum())
        text += (f" {marked} of them {'changes' if marked == 1 else 'change'} with the table composition in this run: "
                 "stated for strong play in the findings and marked ★ in the headline table.")
    else:
        text += (" Those of them that change with the table composition in this run are stated for strong play in "
                 "the findings and marked ★ in the headline table.")
    return text


def strong_table(strong: pd.DataFrame) -> pd.DataFrame:
    """The differences that hold at the two rungs that stand for strong play, each with its size and 95%
    interval at each."""
    held = strong[strong["strong_play"] != ""]

    def fmt(r, side):
        return findings.fmt_difference(r["metric"], r[f"difference_{side}"], r[f"ci_low_{side}"], r[f"ci_high_{side}"],
                                       r["kind"] or "proportion")

    return pd.DataFrame([{"profile": r["profile_b"], "metric": r["metric"],
                          "verdict at both": r["strong_play"].replace(" " + STRONG, ""),
                          "rungs (order)": f"{r['lower']} < {r['upper']} ({r['order']})",
                          "at the lower rung": fmt(r, "lower"), "at the upper rung": fmt(r, "upper")}
                         for _, r in held.iterrows()],
                        columns=["profile", "metric", "verdict at both", "rungs (order)", "at the lower rung",
                                 "at the upper rung"])
