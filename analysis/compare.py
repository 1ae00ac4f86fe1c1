"""Two runs, or two profiles, side by side: every headline metric, its difference and a test.

Proportions are compared with Fisher's exact test (Newcomb interval for the difference), means with
Welch's t-test.  One family of tests per comparison is corrected with Holm's method; ``significant``
is the corrected decision at 5%.  Medians, the dealer's edge and p-values are shown side by side but
not tested.  Runs of different schema or engine versions are refused: their numbers do not compare.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from sim.errors import UserError

from . import load, metrics, plots, report, stats
from .document import Document

TESTED_KINDS = ("proportion", "mean")
COLUMNS = ["profile_a", "profile_b", "metric", "kind", "n_a", "estimate_a", "ci_low_a", "ci_high_a", "n_b",
           "estimate_b", "ci_low_b", "ci_high_b", "difference", "diff_ci_low", "diff_ci_high", "p_value",
           "p_adjusted", "significant", "test", "correction"]


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


def _metric_rows(res_a: metrics.Results, res_b: metrics.Results, profile_a: str, profile_b: str) -> list[dict]:
    sa = res_a.summary[res_a.summary["profile"] == profile_a].set_index("metric")
    sb = res_b.summary[res_b.summary["profile"] == profile_b].set_index("metric")
    samples_a = samples_b = None
    rows = []
    for metric, _, _ in metrics.HEADLINE:
        a, b = sa.loc[metric], sb.loc[metric]
        kind = a["kind"]
        row = {"profile_a": profile_a, "profile_b": profile_b, "metric": metric, "kind": kind,
               "n_a": a["n"], "estimate_a": a["estimate"], "ci_low_a": a["ci_low"], "ci_high_a": a["ci_high"],
               "n_b": b["n"], "estimate_b": b["estimate"], "ci_low_b": b["ci_low"], "ci_high_b": b["ci_high"],
               "difference": b["estimate"] - a["estimate"]}
        if kind == "proportion":
            row.update(stats.two_proportions(int(a["k"]), int(a["n"]), int(b["k"]), int(b["n"])))
        elif kind == "mean":
            if samples_a is None:
                samples_a = metrics.mean_samples(res_a.run, profile_a)
                samples_b = metrics.mean_samples(res_b.run, profile_b)
            row.update(stats.two_means(samples_a[metric], samples_b[metric]))
        else:
            if kind == "test":
                row["difference"] = np.nan  # a difference of p-values means nothing
            row.update({"ci_low": np.nan, "ci_high": np.nan, "p_value": np.nan,
                        "test": f"not tested (a {kind}); shown side by side"})
        row["diff_ci_low"], row["diff_ci_high"] = row.pop("ci_low"), row.pop("ci_high")
        rows.append(row)
    return rows


def _compare(dir_a, dir_b=None, profiles=None, allow_partial: bool = False) -> Comparison:
    manifest_a = load.read_manifest(dir_a)
    manifest_b = load.read_manifest(dir_b) if dir_b is not None else None
    same_run = dir_b is None or Path(dir_a).resolve() == Path(dir_b).resolve()
    if not same_run:
        _check_versions(manifest_a, manifest_b, dir_a, dir_b)
    pairs = _pairs(manifest_a, None if same_run else manifest_b, profiles)
    wanted_a = list(dict.fromkeys(p for p, _ in pairs))
    wanted_b = list(dict.fromkeys(p for _, p in pairs))
    if same_run:
        both = list(dict.fromkeys(wanted_a + wanted_b))
        res_a = res_b = metrics.compute(report.load_verified(dir_a, allow_partial, both))
    else:
        res_a = metrics.compute(report.load_verified(dir_a, allow_partial, wanted_a))
        res_b = metrics.compute(report.load_verified(dir_b, allow_partial, wanted_b))
    return Comparison(family_table(res_a, res_b, pairs), res_a, res_b, pairs, same_run)


def family_table(res_a: metrics.Results, res_b: metrics.Results, pairs: list[tuple[str, str]]) -> pd.DataFrame:
    """The headline rows of every pair (A profile of res_a, B profile of res_b), tested as one family
    corrected with Holm's method (the report's differences from its baseline use it too)."""
    rows = [row for a, b in pairs for row in _metric_rows(res_a, res_b, a, b)]
    table = pd.DataFrame(rows)
    tested = table["kind"].isin(TESTED_KINDS).to_numpy()
    reject, adjusted = stats.adjust(np.where(tested, table["p_value"].astype(float), np.nan))
    table["p_adjusted"] = adjusted
    in_family = tested & table["p_value"].notna().to_numpy()
    table["significant"] = pd.array(np.where(in_family, reject, None), dtype="boolean")  # NA: not tested
    family = int(in_family.sum())
    table["correction"] = f"{stats.CORRECTION_NAME}, over {family} tests"
    table.attrs["correction"] = table["correction"].iloc[0] if len(table) else stats.CORRECTION_NAME
    return table[COLUMNS]


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
    doc.text(f"Significance: {cmp.table.attrs['correction']} (proportions: Fisher's exact test; means: Welch's "
             "t-test). Rows that are medians, differences or p-values are shown but not tested.")
    doc.heading("Headline metrics")
    doc.table(cmp.table, "", [c for c in COLUMNS if c not in ("correction",)])
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
