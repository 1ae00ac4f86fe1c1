"""The statistics of a difference between two runs, or two profiles: every headline metric's
estimate on each side, the difference B - A with its interval and test, and the verdicts' short labels.

Every estimate is a ratio of per-cluster sums with a cluster-robust standard error (see
:mod:`analysis.summaries`): the clusters are games, or in a duplicate run (a skill study: every deal
played once per rotation of the seats, ``games_per_deal`` in the manifest) deals, the rotations of a
deal together.  The design decides how a difference is estimated (``paired_design``):

- **paired by game** (or **by deal**): both sides were dealt from the same seeds cluster by cluster
  (two runs of the same design with the same seed and the same profile name, e.g. a ``--set`` change,
  every ``sweep`` point or two skill studies of one seed; or two profiles of runs whose manifests say
  ``paired``, written by ``simulate --paired``, with the same seed).  The difference is estimated from
  per-cluster differences of the linearised ratios (game g, or deal d, of A against the same of B,
  ``per_game``), a t-test on clusters - 1 degrees of freedom; the table also gives the unpaired
  interval of the same data and how much narrower the paired one is;
- **independent samples** otherwise: Welch's t-test of the two cluster-robust estimates.

Where the games show no spread at all (a rate of 100% on both sides, or every game equal in both), the
t interval would have no width; the difference's interval is then the square-and-add of the two sides'
own intervals (``square_and_add``), which never have zero width.

One family of tests per table (``compare_results``) is corrected with Holm's method; ``significant``
is the corrected decision at 5%.  The family holds the metrics that can differ: medians, p-values,
near-duplicates (``metrics.METRIC_INFO``), metrics not applicable on either side and metrics constant
in both runs are shown but not tested.  The verdicts against the practical thresholds are
``findings.judge``'s; ``VERDICT_SHORT`` names them in a few letters.

The comparison page (:mod:`analysis.compare`), the report's differences from a baseline, the sweep,
the strength frontier and the tune fit all read their differences from here; this module draws nothing.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from sim.errors import UserError
from sim.runformat import games_per_deal

from . import findings, metrics, stats
from .summaries import CLUSTER

TESTED_KINDS = ("proportion", "mean", "difference")
COLUMNS = ["profile_a", "profile_b", "metric", "kind", "n_a", "estimate_a", "ci_low_a", "ci_high_a", "n_b",
           "estimate_b", "ci_low_b", "ci_high_b", "difference", "diff_ci_low", "diff_ci_high", "diff_se", "diff_df",
           "p_value", "p_adjusted", "significant", "test", "correction", "design", "games_a", "games_b",
           "unpaired_ci_low", "unpaired_ci_high", "width_vs_unpaired", "in_family"]
PAIRED_TEST = ("t-test of per-{unit} differences ({unit} {g} of A against {unit} {g} of B), cluster-robust "
               "ratios")
UNPAIRED_TEST = "Welch t-test of two cluster-robust (by {unit}) estimates"
SQUARE_AND_ADD = ("no spread in the games: the interval is the square-and-add of the two sides' own intervals "
                  "(Newcombe's MOVER)")


def paired_test(unit: str) -> str:
    return PAIRED_TEST.format(unit=unit, g="d" if unit == "deal" else "g")


def unpaired_test(unit_a: str, unit_b: str) -> str:
    return UNPAIRED_TEST.format(unit=unit_a if unit_a == unit_b else f"{unit_a} in A, by {unit_b} in B")


def same_data(dir_a, dir_b, manifest_a: dict, manifest_b: dict) -> bool:
    """Are two runs the same rows?  The same location, or the same run_id (which hashes everything that
    decides a run's rows) with the same shard files (a copy of a run)."""
    if str(dir_a) == str(dir_b) or Path(dir_a).resolve() == Path(dir_b).resolve():
        return True
    return (manifest_a.get("run_id") is not None and manifest_a.get("run_id") == manifest_b.get("run_id")
            and manifest_a.get("shards") == manifest_b.get("shards"))


def check_versions(manifest_a: dict, manifest_b: dict, dir_a, dir_b) -> None:
    for key in ("schema_version", "engine_version"):
        if manifest_a.get(key) != manifest_b.get(key):
            raise UserError(f"runs {dir_a} and {dir_b} have different {key} ({manifest_a.get(key)} vs "
                            f"{manifest_b.get(key)}); their results are not comparable")


def paired_design(manifest_a: dict, manifest_b: dict, profile_a: str, profile_b: str) -> bool:
    """Were game g of A and game g of B dealt from the same seed?  Same seed, the same design (as many
    games to a deal: a duplicate run's game g is a rotation of deal g // n, another run's its own deal),
    and either the same profile name, or both manifests marked paired (simulate --paired keys every
    profile's game g by (seed, g))."""
    if manifest_a.get("seed") is None or manifest_a.get("seed") != manifest_b.get("seed"):
        return False
    if games_per_deal(manifest_a, profile_a) != games_per_deal(manifest_b, profile_b):
        return False
    return profile_a == profile_b or bool(manifest_a.get("paired") and manifest_b.get("paired"))


def per_game(res: metrics.Results, profile: str, metric: str) -> pd.DataFrame:
    """Per-cluster (y, x) of a headline metric's cell, indexed by cluster (the game id, or in a duplicate
    run the deal number: the sums of the deal's rotations), over every cluster of the profile."""
    table = res.run.summary.games_table()
    mine = table[table["profile"] == profile]
    clusters = mine.loc[mine["metric"] == "hands_per_game", CLUSTER].drop_duplicates()
    cell = metrics.headline_cell(metric, metrics.full_table_size(res.run, profile))
    keep = np.ones(len(mine), dtype=bool)
    for key, value in cell.items():
        keep &= (mine[key] == value).to_numpy()
    out = mine.loc[keep, [CLUSTER, "y", "x"]].groupby(CLUSTER).sum()
    return out.reindex(pd.Index(np.sort(clusters.to_numpy()), name=CLUSTER), fill_value=0.0)


def _scale(res: metrics.Results, profile: str, metric: str) -> float:
    """dealer_edge is the dealer's rate times n / (n - 1) (minus a constant)."""
    if metric != "dealer_edge":
        return 1.0
    n = metrics.full_table_size(res.run, profile)
    return n / (n - 1)


def _paired_difference(res_a, res_b, profile_a, profile_b, metric) -> dict | None:
    """Difference B - A from per-cluster differences; None when the two sides hold different clusters."""
    a, b = per_game(res_a, profile_a, metric), per_game(res_b, profile_b, metric)
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


def square_and_add(row: dict) -> tuple[float, float] | None:
    """The interval of B - A from the two sides' own intervals, each end the root of the summed squared
    distances to the ends that bound it (Newcombe's square-and-add, the MOVER of Zou and Donner); None
    where a side has no interval.  Used where the games show no spread at all, so that the difference
    is as uncertain as its two estimates are, never known exactly from a finite sample."""
    ends = [row[k] for k in ("estimate_a", "ci_low_a", "ci_high_a", "estimate_b", "ci_low_b", "ci_high_b")]
    if not np.all(np.isfinite(np.asarray(ends, dtype=float))):
        return None
    ea, la, ha, eb, lb, hb = ends
    diff = eb - ea
    return diff - float(np.hypot(eb - lb, ha - ea)), diff + float(np.hypot(hb - eb, ea - la))


def _metric_rows(res_a: metrics.Results, res_b: metrics.Results, profile_a: str, profile_b: str,
                 paired: bool) -> list[dict]:
    sa = res_a.summary[res_a.summary["profile"] == profile_a].set_index("metric")
    sb = res_b.summary[res_b.summary["profile"] == profile_b].set_index("metric")
    unit_a, unit_b = metrics.cluster_unit(res_a.run, profile_a), metrics.cluster_unit(res_b.run, profile_b)
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
               "diff_ci_low": np.nan, "diff_ci_high": np.nan, "diff_se": np.nan, "diff_df": np.nan,
               "p_value": np.nan, "unpaired_ci_low": np.nan,
               "unpaired_ci_high": np.nan, "width_vs_unpaired": np.nan, "in_family": False,
               "design": f"paired by {unit_a}" if paired else "independent samples"}
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
        se, df, test = se_u, df_u, unpaired_test(unit_a, unit_b)
        if paired:
            found = _paired_difference(res_a, res_b, profile_a, profile_b, metric)
            if found is None:
                row["design"] = f"independent samples (paired seeds, but the runs hold different {unit_a}s)"
            else:
                se, df = found["se"], found["df"]
                row["design"] = f"paired by {unit_a} ({found['games']:,} {unit_a}s)"
                test = paired_test(unit_a)
        constant = diff == 0 and (se == 0 or (se_a == 0 and se_b == 0))  # e.g. equal game by game
        row["diff_ci_low"], row["diff_ci_high"] = diff - t975(df) * se, diff + t975(df) * se
        if not se > 0:  # no spread in the games: the t interval has no width, which no finite sample earns
            moved = square_and_add(row)
            if moved is not None:
                row["diff_ci_low"], row["diff_ci_high"] = moved
                if not se_u > 0:
                    row["unpaired_ci_low"], row["unpaired_ci_high"] = moved
                se = max(diff - moved[0], moved[1] - diff) / t975(df)
                test += "; " + SQUARE_AND_ADD
        if se_u > 0:
            row["width_vs_unpaired"] = se / se_u
        row["diff_se"], row["diff_df"] = se, df  # what the verdict's threshold tests need (findings.judge)
        row["p_value"] = stats.t_test(diff, se, 0.0, df)
        row["test"] = test
        if constant:
            row["test"] += " (constant in both: not in the family)"
        elif not in_info_family:
            row["test"] += " (a near-duplicate of another metric: not in the family)"
        row["in_family"] = bool(in_info_family and not constant)
    return rows


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
    if design.startswith("paired by") and len(ratio):
        design += (f"; paired intervals are {ratio.median():.0%} of the unpaired width of the same data "
                   f"(median over metrics; range {ratio.min():.0%}-{ratio.max():.0%})")
    return design


VERDICT_SHORT = {findings.HIGHER: "B higher", findings.LOWER: "B lower", findings.EQUIVALENT: "equivalent",
                 findings.NOT_ESTABLISHED: "unclear", findings.NOT_APPLICABLE: "n/a", findings.NOT_TESTED: "untested",
                 findings.NO_THRESHOLD: "no thr."}
