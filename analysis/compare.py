"""Two runs, or two profiles, side by side: every headline metric, its difference and a test.

Every estimate is a ratio of per-game sums with a cluster-robust (by game) standard error (see
:mod:`analysis.summaries`).  The design decides how a difference is estimated:

- **paired by game**: both sides were dealt from the same seeds game by game (two runs with the same
  seed and the same profile name, e.g. a ``--set`` change or every ``sweep`` point; or two profiles of
  runs whose manifests say ``paired``, written by ``simulate --paired``, with the same seed).  The
  difference is estimated from per-game differences of the linearised ratios (game g of A against
  game g of B), a t-test on games - 1 degrees of freedom; the table also gives the unpaired interval
  of the same data and how much narrower the paired one is;
- **independent samples** otherwise: Welch's t-test of the two cluster-robust estimates.

One family of tests per comparison is corrected with Holm's method; ``significant`` is the corrected
decision at 5%.  The family holds the metrics that can differ: medians, p-values, near-duplicates
(``metrics.METRIC_INFO``), metrics not applicable on either side and metrics constant in both runs
are shown but not tested.  Runs of different schema or engine versions are refused.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from sim.errors import UserError

from . import load, metrics, plots, report, stats
from .document import Document

TESTED_KINDS = ("proportion", "mean", "difference")
COLUMNS = ["profile_a", "profile_b", "metric", "kind", "n_a", "estimate_a", "ci_low_a", "ci_high_a", "n_b",
           "estimate_b", "ci_low_b", "ci_high_b", "difference", "diff_ci_low", "diff_ci_high", "p_value",
           "p_adjusted", "significant", "test", "correction", "design", "games_a", "games_b", "unpaired_ci_low",
           "unpaired_ci_high", "width_vs_unpaired", "in_family"]
PAIRED_TEST = "t-test of per-game differences (game g of A against game g of B), cluster-robust ratios"
UNPAIRED_TEST = "Welch t-test of two cluster-robust (by game) estimates"


@dataclass
class Comparison:
    table: pd.DataFrame
    a: metrics.Results
    b: metrics.Results
    pairs: list[tuple[str, str]]
    same_run: bool


def _pairs(manifest_a: dict, manifest_b: dict | None, profiles) -> list[tuple[str, str]]:
    names_a = list(manifest_a["profiles"])
    names_b = list((manifest_b or manifest_a)["profiles"])
    if profiles is not None:
        if isinstance(profiles, str):
            profiles = [p.strip() for p in profiles.split(",")]
        if len(profiles) != 2:
            raise UserError(f"--profiles takes two profile names, A,B; got {','.join(profiles)!r}")
        a, b = profiles
        load.check_profiles(manifest_a, [a])
        load.check_profiles(manifest_b or manifest_a, [b])
        return [(a, b)]
    if manifest_b is None:
        if len(names_a) != 2:
            raise UserError(f"comparing within one run needs --profiles A,B (the run has {', '.join(names_a)})")
        return [(names_a[0], names_a[1])]
    common = [p for p in names_a if p in names_b]
    if common:
        return [(p, p) for p in common]
    if len(names_a) == 1 and len(names_b) == 1:
        return [(names_a[0], names_b[0])]
    raise UserError(f"the runs share no profile (A: {', '.join(names_a)}; B: {', '.join(names_b)}); "
                    "name the pair with --profiles A,B")


def _check_versions(manifest_a: dict, manifest_b: dict, dir_a, dir_b) -> None:
    for key in ("schema_version", "engine_version"):
        if manifest_a.get(key) != manifest_b.get(key):
            raise UserError(f"runs {dir_a} and {dir_b} have different {key} ({manifest_a.get(key)} vs "
                            f"{manifest_b.get(key)}); their results are not comparable")


def paired_design(manifest_a: dict, manifest_b: dict, profile_a: str, profile_b: str) -> bool:
    """Were game g of A and game g of B dealt from the same seed?  Same seed and either the same profile
    name, or both manifests marked paired (simulate --paired keys every profile's game g by (seed, g))."""
    if manifest_a.get("seed") is None or manifest_a.get("seed") != manifest_b.get("seed"):
        return False
    return profile_a == profile_b or bool(manifest_a.get("paired") and manifest_b.get("paired"))


def _per_game(res: metrics.Results, profile: str, metric: str) -> pd.DataFrame:
    """Per-game (y, x) of a headline metric's cell, indexed by game_id, over every game of the profile."""
    table = res.run.summary.games_table()
    mine = table[table["profile"] == profile]
    games = mine.loc[mine["metric"] == "hands_per_game", "game_id"].drop_duplicates()
    cell = metrics.headline_cell(metric, metrics.full_table_size(res.run, profile))
    keep = np.ones(len(mine), dtype=bool)
    for key, value in cell.items():
        keep &= (mine[key] == value).to_numpy()
    out = mine.loc[keep, ["game_id", "y", "x"]].groupby("game_id").sum()
    return out.reindex(pd.Index(np.sort(games.to_numpy()), name="game_id"), fill_value=0.0)


def _scale(res: metrics.Results, profile: str, metric: str) -> float:
    """dealer_edge is the dealer's rate times n / (n - 1) (minus a constant)."""
    if metric != "dealer_edge":
        return 1.0
    n = metrics.full_table_size(res.run, profile)
    return n / (n - 1)


def _paired_difference(res_a, res_b, profile_a, profile_b, metric) -> dict | None:
    """Difference B - A from per-game differences; None when the two sides hold different games."""
    a, b = _per_game(res_a, profile_a, metric), _per_game(res_b, profile_b, metric)
    if len(a) < 2 or not a.index.equals(b.index):
        return None
    z = []
    for side, res, profile in ((a, res_a, profile_a), (b, res_b, profile_b)):
        x_total = side["x"].sum()
        if x_total == 0:
            return None
        r = side["y"].sum() / x_total
        z.append(_scale(res, profile, metric) * (side["y"] - r * side["x"]).to_numpy() / (x_total / len(side)))
    u = z[1] - z[0]
    n = len(u)
    se = float(np.sqrt(np.var(u, ddof=1) / n))
    return {"se": se, "df": n - 1, "games": n}


def _metric_rows(res_a: metrics.Results, res_b: metrics.Results, profile_a: str, profile_b: str,
                 paired: bool) -> list[dict]:
    sa = res_a.summary[res_a.summary["profile"] == profile_a].set_index("metric")
    sb = res_b.summary[res_b.summary["profile"] == profile_b].set_index("metric")
    t975 = lambda df: stats.sps.t.ppf(0.5 + stats.CONFIDENCE / 2, df)
    rows = []
    for metric, _, _ in metrics.HEADLINE:
        a, b = sa.loc[metric], sb.loc[metric]
        kind = a["kind"]
        in_info_family = metrics.METRIC_INFO[metric][3]
        row = {"profile_a": profile_a, "profile_b": profile_b, "metric": metric, "kind": kind,
               "n_a": a["n"], "estimate_a": a["estimate"], "ci_low_a": a["ci_low"], "ci_high_a": a["ci_high"],
               "n_b": b["n"], "estimate_b": b["estimate"], "ci_low_b": b["ci_low"], "ci_high_b": b["ci_high"],
               "difference": b["estimate"] - a["estimate"], "games_a": a["games"], "games_b": b["games"],
               "diff_ci_low": np.nan, "diff_ci_high": np.nan, "p_value": np.nan, "unpaired_ci_low": np.nan,
               "unpaired_ci_high": np.nan, "width_vs_unpaired": np.nan, "in_family": False,
               "design": "paired by game" if paired else "independent samples"}
        rows.append(row)
        if kind == "test":
            row["difference"] = np.nan  # a difference of p-values means nothing
        if kind not in TESTED_KINDS:
            row["test"] = f"not tested (a {kind}); shown side by side"
            continue
        if not (a["applicable"] and b["applicable"]):
            row["test"] = "not tested: not applicable (no elimination) on " + \
                ("both sides" if not (a["applicable"] or b["applicable"]) else "one side")
            continue
        se_a, se_b = float(a["se"]), float(b["se"])
        g_a, g_b = float(a["games"] or 0), float(b["games"] or 0)
        diff = row["difference"]
        if not (np.isfinite(diff) and np.isfinite(se_a) and np.isfinite(se_b)):
            row["test"] = "not tested: too few games or no rows on one side"
            continue
        se_u = float(np.hypot(se_a, se_b))
        df_u = stats.welch_df(se_a, g_a, se_b, g_b)
        row["unpaired_ci_low"], row["unpaired_ci_high"] = diff - t975(df_u) * se_u, diff + t975(df_u) * se_u
        se, df, test = se_u, df_u, UNPAIRED_TEST
        if paired:
            found = _paired_difference(res_a, res_b, profile_a, profile_b, metric)
            if found is None:
                row["design"] = "independent samples (paired seeds, but the runs hold different games)"
            else:
                se, df = found["se"], found["df"]
                row["design"] = f"paired by game ({found['games']:,} games)"
                test = PAIRED_TEST
        row["diff_ci_low"], row["diff_ci_high"] = diff - t975(df) * se, diff + t975(df) * se
        if se_u > 0:
            row["width_vs_unpaired"] = se / se_u
        row["p_value"] = stats.t_test(diff, se, 0.0, df)
        row["test"] = test
        constant = diff == 0 and (se == 0 or (se_a == 0 and se_b == 0))  # e.g. equal game by game
        if constant:
            row["test"] += " (constant in both: not in the family)"
        elif not in_info_family:
            row["test"] += " (a near-duplicate of another metric: not in the family)"
        row["in_family"] = bool(in_info_family and not constant)
    return rows


def _load(run_dir, allow_partial: bool, profiles, keep_games: bool) -> metrics.RunData:
    """report.load_verified, keeping per-game sums when a paired comparison needs them."""
    check = load.check_run(run_dir)
    if check.problems and not allow_partial:
        raise report.failed_verification(run_dir, check.problems)
    return metrics.load_run(run_dir, profiles=profiles, exclude=check.unreadable, problems=check.problems,
                            keep_games=keep_games)


def compare_results(res_a: metrics.Results, res_b: metrics.Results, pairs, paired: dict | None = None
                    ) -> pd.DataFrame:
    """The comparison table of computed results; `paired` maps a pair to whether its design is paired
    (the results must then keep per-game sums)."""
    paired = paired or {}
    rows = [row for a, b in pairs for row in _metric_rows(res_a, res_b, a, b, paired.get((a, b), False))]
    table = pd.DataFrame(rows)
    in_family = table["in_family"].to_numpy(dtype=bool) & table["p_value"].notna().to_numpy()
    reject, adjusted = stats.adjust(np.where(in_family, table["p_value"].astype(float), np.nan))
    table["p_adjusted"] = adjusted
    table["in_family"] = in_family
    table["significant"] = pd.array(np.where(in_family, reject, None), dtype="boolean")  # NA: not tested
    family = int(in_family.sum())
    table["correction"] = f"{stats.CORRECTION_NAME}, over {family} tests"
    table.attrs["correction"] = table["correction"].iloc[0] if len(table) else stats.CORRECTION_NAME
    designs = table.drop_duplicates(["profile_a", "profile_b"])
    table.attrs["design"] = "; ".join(f"{r.profile_a} vs {r.profile_b}: "
                                      f"{_design_line(table, r.profile_a, r.profile_b)}"
                                      for r in designs.itertuples())
    return table[COLUMNS]


def _design_line(table: pd.DataFrame, a: str, b: str) -> str:
    mine = table[(table["profile_a"] == a) & (table["profile_b"] == b)]
    tested = mine[mine["p_value"].notna()]
    design = tested["design"].mode().iloc[0] if len(tested) else mine["design"].iloc[0]
    ratio = tested["width_vs_unpaired"].dropna()
    if design.startswith("paired by game") and len(ratio):
        design += (f"; paired intervals are {ratio.median():.0%} of the unpaired width of the same data "
                   f"(median over metrics; range {ratio.min():.0%}-{ratio.max():.0%})")
    return design


def _compare(dir_a, dir_b=None, profiles=None, allow_partial: bool = False) -> Comparison:
    manifest_a = load.read_manifest(dir_a)
    manifest_b = load.read_manifest(dir_b) if dir_b is not None else None
    same_run = dir_b is None or Path(dir_a).resolve() == Path(dir_b).resolve()
    if not same_run:
        _check_versions(manifest_a, manifest_b, dir_a, dir_b)
    pairs = _pairs(manifest_a, None if same_run else manifest_b, profiles)
    paired = {(a, b): paired_design(manifest_a, manifest_a if same_run else manifest_b, a, b) for a, b in pairs}
    keep = any(paired.values())
    wanted_a = list(dict.fromkeys(p for p, _ in pairs))
    wanted_b = list(dict.fromkeys(p for _, p in pairs))
    if same_run:
        both = list(dict.fromkeys(wanted_a + wanted_b))
        res_a = res_b = metrics.compute(_load(dir_a, allow_partial, both, keep))
    else:
        res_a = metrics.compute(_load(dir_a, allow_partial, wanted_a, keep))
        res_b = metrics.compute(_load(dir_b, allow_partial, wanted_b, keep))
    return Comparison(compare_results(res_a, res_b, pairs, paired), res_a, res_b, pairs, same_run)


def compare(dir_a, dir_b=None, profiles=None, allow_partial: bool = False) -> pd.DataFrame:
    """Headline metrics of profile A (run dir_a) and profile B (run dir_b, or dir_a) side by side.

    Without `profiles`: the profiles the two runs share, each against itself, or a one-profile run
    against another; within one run, its two profiles.  Columns: both estimates with 95% intervals,
    difference (B - A) with its 95% interval, p_value, test, p_adjusted and significant after Holm
    correction over every tested row (named in the `correction` column).
    """
    return _compare(dir_a, dir_b, profiles, allow_partial).table


def _overlay(res_a: metrics.Results, res_b: metrics.Results, pairs, pick) -> pd.DataFrame:
    """One table with profiles relabelled 'A: name' and 'B: name' for overlaid figures."""
    parts = []
    for side, res, names in (("A", res_a, [a for a, _ in pairs]), ("B", res_b, [b for _, b in pairs])):
        frame = pick(res)
        frame = frame[frame["profile"].isin(names)].copy()
        frame["profile"] = f"{side}: " + frame["profile"].astype(str)
        parts.append(frame)
    return pd.concat(parts, ignore_index=True)


def build_comparison(cmp: Comparison, dir_a, dir_b) -> Document:
    ma, mb = cmp.a.run.manifest, cmp.b.run.manifest
    what = "; ".join(f"A = {a}, B = {b}" for a, b in cmp.pairs)
    doc = Document(f"Kalooki comparison: {what}")
    for label, res in (("run A", cmp.a), ("run B", cmp.b)) if not cmp.same_run else (("the run", cmp.a),):
        if res.run.problems:
            report.partial_warning(doc, res.run.problems, label)
    doc.text(f"A: run {ma.get('run_id')} ({dir_a}). B: run {mb.get('run_id')} ({dir_b or dir_a}). "
             "Difference = B - A. Generated by `kalooki compare`; do not edit by hand.")
    doc.text(f"Design: {cmp.table.attrs['design']}.")
    doc.text(f"Significance: {cmp.table.attrs['correction']} (paired: t-test of per-game differences; independent: "
             "Welch's t-test of cluster-robust estimates). Medians, p-values, near-duplicates, metrics not "
             "applicable on a side and metrics constant in both runs are shown but not tested (in_family).")
    doc.heading("Headline metrics")
    doc.table(cmp.table, "", [c for c in COLUMNS if c not in ("correction", "unpaired_ci_low", "unpaired_ci_high",
                                                               "games_a", "games_b")])
    overlay = lambda pick: _overlay(cmp.a, cmp.b, cmp.pairs, pick)
    doc.heading("Figures")
    doc.figure("opening_cdf", plots.opening_cdf, overlay(lambda r: r.opened_by_round), "P(opened by round k).")
    doc.figure("kalooki_frequency", plots.kalooki_frequency, overlay(lambda r: r.kalooki), "Kalookis per hand.")
    doc.figure("survival", plots.survival, overlay(lambda r: r.survival), "Hands until the first elimination.")
    doc.figure("seat_advantage", plots.seat_advantage, overlay(report.seat_rates_for_plot), "Win rate by seat.")
    doc.figure("hands_per_game", plots.hands_per_game, overlay(lambda r: r.hands_per_game), "Hands per game.")
    doc.figure("jokers", plots.win_by_jokers, overlay(lambda r: r.jokers), "P(win | jokers dealt).")
    doc.heading("Methods")
    doc.bullets(report.METHOD_NOTES)
    report.provenance(doc, ma, "Provenance: run A" if not cmp.same_run else "Provenance")
    if not cmp.same_run:
        report.provenance(doc, mb, "Provenance: run B")
    return doc


def write_compare(dir_a, dir_b=None, profiles=None, out_dir="reports/compare", allow_partial: bool = False):
    """Compare and write out_dir/report.html, report.md and figures/; returns (table, HTML path)."""
    cmp = _compare(dir_a, dir_b, profiles, allow_partial)
    return cmp.table, build_comparison(cmp, dir_a, dir_b).write(out_dir)
