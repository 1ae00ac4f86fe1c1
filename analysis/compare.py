"""Two runs, or two profiles, side by side: the comparison page and its terminal table.

Which profiles are compared (the profiles two runs share, each against itself, a one-profile run
against another, or two profiles of one run), whether two runs are the same rows, and the page:
the rules that differ, the findings, the one table of every headline metric with its difference and
verdict, figures and methods.  The differences themselves, their design (paired by game or deal, or
independent samples), tests and Holm family, are :mod:`analysis.differences`'; runs of different
schema or engine versions are refused there.

When both runs hold a skill study of the same players (``analysis.skill.find_fit``), the page adds
their skill and luck measures, each difference from bootstrap replicates over deals
(``analysis.skill.compare_fits``) with its own Holm family.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from sim.errors import UserError

from . import findings, load, metrics, plots, report, skill
from .differences import VERDICT_SHORT, check_versions, compare_results, paired_design, same_data
from .document import Cell, Document
from .terminal import fit_rows



@dataclass
class Comparison:
    table: pd.DataFrame
    a: metrics.Results
    b: metrics.Results
    pairs: list[tuple[str, str]]
    same_run: bool
    notes: list[str] = field(default_factory=list)  # what the reader must know first (profiles left out, ...)


def _pairs(manifest_a: dict, manifest_b: dict | None, profiles, run_a="RUN_A") -> list[tuple[str, str]]:
    """The (profile of A, profile of B) pairs to compare; `manifest_b` None within one run."""
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
        if manifest_b is None and a == b:
            raise UserError(f"--profiles {a},{b} compares a profile of one run with itself: the same games, every "
                            f"difference 0; name two different profiles (the run has {', '.join(names_a)}), or "
                            "give a second run")
        return [(a, b)]
    if manifest_b is None:
        if len(names_a) == 1:
            raise UserError(f"run {run_a} holds one profile ({names_a[0]}); compare it with another run: "
                            f"kalooki compare {run_a} RUN_B")
        if len(names_a) != 2:
            raise UserError(f"run {run_a} holds {len(names_a)} profiles ({', '.join(names_a)}); name the two to "
                            "compare with --profiles A,B, or see every profile against a baseline with "
                            f"kalooki report {run_a}")
        return [(names_a[0], names_a[1])]
    common = [p for p in names_a if p in names_b]
    if common:
        return [(p, p) for p in common]
    if len(names_a) == 1 and len(names_b) == 1:
        return [(names_a[0], names_b[0])]
    raise UserError(f"the runs share no profile (A: {', '.join(names_a)}; B: {', '.join(names_b)}); "
                    "name the pair with --profiles A,B")




def _compare(dir_a, dir_b=None, profiles=None, allow_partial: bool = False) -> Comparison:
    manifest_a = load.read_manifest(dir_a)
    manifest_b = load.read_manifest(dir_b) if dir_b is not None else None
    if dir_b is not None and not (str(dir_a) == str(dir_b) or Path(dir_a).resolve() == Path(dir_b).resolve()):
        check_versions(manifest_a, manifest_b, dir_a, dir_b)
    same_run = dir_b is None or same_data(dir_a, dir_b, manifest_a, manifest_b)
    if dir_b is not None and same_run:
        names = ", ".join(manifest_a["profiles"])
        what = f"RUN_A and RUN_B are the same run {dir_a}" if str(dir_a) == str(dir_b) else \
            f"RUN_B {dir_b} holds the same run as RUN_A {dir_a}"
        if profiles is None:
            instead = (f"two profiles of this one: kalooki compare {dir_a} --profiles A,B (it has {names})"
                       if len(manifest_a["profiles"]) > 1 else f"this one with another run of {names}")
            raise UserError(f"{what} (run_id {manifest_a.get('run_id')}): each profile against itself is the same "
                            f"games, every difference 0. Compare two different runs, or {instead}")
        dir_b, manifest_b = None, None  # two profiles of the one run
    pairs = _pairs(manifest_a, None if same_run else manifest_b, profiles, dir_a)
    notes = []
    if profiles is None and not same_run:
        left_out = [f"A: {p}" for p in manifest_a["profiles"] if p not in {a for a, _ in pairs}] + \
            [f"B: {p}" for p in manifest_b["profiles"] if p not in {b for _, b in pairs}]
        if left_out:
            notes.append(f"Not compared (in one run only): {', '.join(left_out)}; compare one of them with "
                         "--profiles A,B.")
    same_games = not same_run and manifest_a.get("run_id") == manifest_b.get("run_id")
    if same_games:
        notes.append(f"RUN_A and RUN_B were made from the same configuration (run_id {manifest_a.get('run_id')}): "
                     "a profile against itself is the same games, so its differences are 0 and not tested.")
    paired = {(a, b): paired_design(manifest_a, manifest_a if same_run else manifest_b, a, b) for a, b in pairs}
    keep = any(paired.values())
    wanted_a = list(dict.fromkeys(p for p, _ in pairs))
    wanted_b = list(dict.fromkeys(p for _, p in pairs))
    if same_run:
        both = list(dict.fromkeys(wanted_a + wanted_b))
        res_a = res_b = metrics.compute(metrics.load_verified(dir_a, allow_partial, both, keep))
    else:
        res_a = metrics.compute(metrics.load_verified(dir_a, allow_partial, wanted_a, keep))
        res_b = metrics.compute(metrics.load_verified(dir_b, allow_partial, wanted_b, keep))
    table = compare_results(res_a, res_b, pairs, paired)
    if not table["in_family"].any() and not same_games:  # (the same games say why themselves)
        few = table["test"].astype(str).str.contains("too few games").any()
        notes.append("No difference could be tested: " + (
            "a side has fewer than 2 games (games: " + "; ".join(
                f"{a} {int(table.loc[table['profile_a'] == a, 'games_a'].max() or 0):,} vs {b} "
                f"{int(table.loc[table['profile_b'] == b, 'games_b'].max() or 0):,}" for a, b in pairs) + ")"
            if few else "every metric is the same game by game on both sides, not applicable, or not a tested "
                        "kind") + ".")
    return Comparison(table, res_a, res_b, pairs, same_run, notes)


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


def rules_that_differ(cmp: Comparison) -> dict[tuple[str, str], pd.DataFrame]:
    """Per pair, the rule parameters (and the table: players, bots) that differ between A and B."""
    out = {}
    for a, b in cmp.pairs:
        info_a = cmp.a.run.manifest.get("profiles", {}).get(a, {})
        info_b = cmp.b.run.manifest.get("profiles", {}).get(b, {})
        table = lambda info: {**info.get("params", {}), "(table) players": info.get("n_players"),
                              "(table) bots by seat": info.get("bots")}
        out[(a, b)] = report.rule_table({f"A: {a}": table(info_a), f"B: {b}": table(info_b)})
    return out


VERDICT_LEGEND = ("verdict, against the metric's practical threshold (Holm-corrected):\n"
                  "  B higher / B lower: a clear difference, decided by the minimum-effect test against the\n"
                  "    threshold, Holm-adjusted (an interval past the threshold before the correction may not be)\n"
                  "  equivalent: practically equivalent, decided by the equivalence test (TOST), Holm-adjusted\n"
                  "  unclear: not established, the data cannot tell\n"
                  "  untested: a median, a p-value, a near-duplicate, constant on both sides, or too few games")


def headline_grid(judged: pd.DataFrame):
    """The comparison's one table: metric, A, B, B - A with its interval, adjusted p, verdict."""
    header = [Cell("Metric"), Cell("A", "estimate (95% CI)"), Cell("B", "estimate (95% CI)"),
              Cell("B − A", "95% CI"), Cell("p (Holm)", "B = A"), Cell("Verdict", "against the threshold")]
    rows = []
    for r in judged.itertuples(index=False):
        kind = r.kind
        s = findings.show(r.metric, kind)
        cell = lambda est, lo, hi: Cell(" ".join(x for x in (findings.fmt_value(r.metric, est, kind),
                                                             f"({findings.fmt_interval(r.metric, lo, hi, kind)})"
                                                             if findings.fmt_interval(r.metric, lo, hi, kind) else "")
                                                if x))
        stated = r.verdict in findings.STATED
        marked = r.verdict if stated else "equivalent" if r.verdict == findings.EQUIVALENT else ""
        threshold = "" if pd.isna(r.threshold) else (
            f"threshold {findings.fmt_difference(r.metric, r.threshold, np.nan, np.nan, kind).lstrip('+')}")
        rows.append([Cell(s.label, r.metric), cell(r.estimate_a, r.ci_low_a, r.ci_high_a),
                     cell(r.estimate_b, r.ci_low_b, r.ci_high_b),
                     Cell(findings.fmt_difference(r.metric, r.difference, r.diff_ci_low, r.diff_ci_high, kind)
                          .replace("95% CI ", ""), cls=r.verdict if stated else ""),
                     Cell(findings.fmt_p(r.p_adjusted)),
                     Cell(r.verdict, threshold, marked, inline=True)])
    return header, rows


def pair_findings(judged: pd.DataFrame) -> list[tuple[str, str]]:
    """(lead, text) bullets per pair: every clear difference, then what is practically equivalent and
    what is not established."""
    out = []
    for (a, b), rows in judged.groupby(["profile_a", "profile_b"], sort=False):
        stated = rows[rows["verdict"].isin(findings.STATED)]
        for r in stated.itertuples(index=False):
            s = findings.show(r.metric, r.kind)
            out.append((f"{s.label}:", f"B ({b}) {r.verdict} than A ({a}), {findings.fmt_value(r.metric, r.estimate_b, r.kind)}"
                        f" vs {findings.fmt_value(r.metric, r.estimate_a, r.kind)}, "
                        f"{findings.fmt_difference(r.metric, r.difference, r.diff_ci_low, r.diff_ci_high, r.kind)}."))
        lead = "" if len(judged.groupby(["profile_a", "profile_b"])) == 1 else f" ({a} vs {b})"
        for verdict, said in ((findings.EQUIVALENT, "Practically equivalent"),
                              (findings.NOT_ESTABLISHED, "Not established (the data cannot tell)")):
            quiet = rows[rows["verdict"] == verdict]
            if len(quiet):
                names = ", ".join(findings.sentence_label(findings.show(m, k).label)
                                  for m, k in zip(quiet["metric"], quiet["kind"]))
                out.append((f"{said}{lead}:", f"{names}."))
        if not rows["verdict"].isin(findings.THREE_WAY).any():
            out.append((f"Nothing tested{lead}:", "no metric could be judged against its threshold."))
    return out


def build_comparison(cmp: Comparison, dir_a, dir_b, judged: pd.DataFrame | None = None,
                     skill_judged: pd.DataFrame | None = None) -> Document:
    """The comparison page: the rules that differ first, findings, the one table, the skill and luck
    measures (when both runs hold a skill study), figures, details."""
    judged = findings.judge(cmp.table, findings.default_thresholds()) if judged is None else judged
    ma, mb = cmp.a.run.manifest, cmp.b.run.manifest
    what = "; ".join(f"A = {a}, B = {b}" for a, b in cmp.pairs)
    doc = Document(f"Kalooki comparison: {what}")
    for label, res in (("run A", cmp.a), ("run B", cmp.b)) if not cmp.same_run else (("the run", cmp.a),):
        if res.run.problems:
            report.partial_warning(doc, res.run.problems, label)
    doc.text(f"A: run {ma.get('run_id')} ({dir_a}). B: run {mb.get('run_id')} ({dir_b or dir_a}). "
             "Difference = B - A. Generated by `kalooki compare`; do not edit by hand.")
    for note in cmp.notes:
        doc.text(note)
    doc.toc()
    doc.heading("Rules that differ")
    for (a, b), differ in rules_that_differ(cmp).items():
        if differ.empty:
            doc.text(f"A ({a}) and B ({b}) have the same rule parameters, players and bots.")
        else:
            doc.table(differ, f"A = {a}, B = {b}: {len(differ)} setting(s) differ")
    doc.heading("Findings")
    doc.text("Each difference is one of three verdicts against the metric's practical threshold "
             "(configs/thresholds.toml, or --thresholds FILE): a clear difference (its interval past the threshold), "
             "practically equivalent (inside it, by an equivalence test) or not established (the data cannot tell); "
             "Holm-corrected, see Methods.")
    doc.bullets(pair_findings(judged))
    doc.heading("Headline metrics")
    doc.text(f"Design: {cmp.table.attrs['design']}.")
    doc.text(f"Significance: {cmp.table.attrs['correction']} (paired: t-test of per-game differences, per-deal in "
             "a duplicate run; independent: Welch's t-test of cluster-robust estimates). Medians, p-values, "
             "near-duplicates, metrics not applicable on a side and metrics constant in both runs are shown but not "
             "tested (in_family).")
    for (a, b), rows in judged.groupby(["profile_a", "profile_b"], sort=False):
        doc.grid(*headline_grid(rows), f"A = {a}, B = {b}")
    doc.attach("comparison", judged, "The whole comparison table (every column)")
    if skill_judged is not None:
        skill_section(doc, skill_judged)
    overlay = lambda pick: _overlay(cmp.a, cmp.b, cmp.pairs, pick)
    doc.heading("Figures")
    doc.open("figs")
    diffs = report.differences_for_plot(judged.assign(profile_b=[f"{a} → {b}" for a, b in
                                                                 zip(judged["profile_a"], judged["profile_b"])]))
    diffs.attrs["title"] = "B − A, in practical thresholds (95% intervals)"
    if len(diffs):
        doc.figure("differences", plots.differences, diffs,
                   "B - A divided by the metric's practical threshold, with its 95% interval; the grey band is plus "
                   "or minus one threshold. Filled circle: a clear difference; square: practically equivalent; "
                   "cross: not established.",
                   width=13.0, height=0.17 * diffs["label"].nunique() + 1.0, wide=True)
    n = 2 * len(cmp.pairs)
    rows = -(-n // plots.PANEL_COLUMNS)
    doc.figure("opening_cdf", plots.opening_cdf, overlay(lambda r: r.opened_by_round),
               "P(opened by turn k), one panel each, 95% band; A dashed in the others.", height=1.55 * rows + 0.9,
               panels=n)
    doc.figure("kalooki_frequency", plots.kalooki_frequency, overlay(lambda r: r.kalooki),
               "Kalookis per 1,000 hands, 95% Wilson intervals.", height=0.36 * n + 1.1)
    doc.figure("survival", plots.survival, overlay(lambda r: r.survival),
               "Games with nobody eliminated yet (Kaplan-Meier, 95% band); profiles without elimination left out.")
    doc.figure("hands_per_game", plots.hands_per_game, overlay(lambda r: r.hands_per_game), "Hands per game.",
               height=1.55 * rows + 0.9, panels=n, share="x")
    doc.figure("seat_advantage", plots.seat_advantage, overlay(report.seat_rates_for_plot),
               "Hand win rate minus the fair share, by seat, 95% intervals.")
    doc.figure("jokers", plots.win_by_jokers, overlay(lambda r: r.jokers), "P(win | jokers dealt).")
    doc.close("figs")
    doc.heading("Methods")
    doc.open("details", "How each number was made")
    doc.bullets(report.METHOD_NOTES + [findings.VERDICT_NOTE] + ([skill.DIFFERENCE_NOTE] if skill_judged is not None
                                                                 else []))
    doc.close("details")
    report.provenance(doc, ma, "Provenance: run A" if not cmp.same_run else "Provenance")
    if not cmp.same_run:
        report.provenance(doc, mb, "Provenance: run B")
    return doc




def terminal_table(judged: pd.DataFrame, width: int = 100) -> str:
    """The comparison for a terminal, every line at most `width` columns: per pair a heading, then
    metric (a long name wrapped, never cut), A, B, B - A [95% CI], Holm-adjusted p and the verdict."""
    lines = []
    for (a, b), rows in judged.groupby(["profile_a", "profile_b"], sort=False):
        lines.append(f"A = {a}, B = {b}"[:width])
        cells = [("metric", "A", "B", "B - A [95% CI]", "p Holm", "verdict")]
        for r in rows.itertuples(index=False):
            diff = findings.fmt_difference(r.metric, r.difference, np.nan, np.nan, r.kind)
            if not (pd.isna(r.diff_ci_low) or pd.isna(r.diff_ci_high)):
                s = findings.show(r.metric, r.kind)
                diff += f" [{r.diff_ci_low * s.scale:+.{s.digits}f}, {r.diff_ci_high * s.scale:+.{s.digits}f}]"
            cells.append((r.metric, findings.fmt_value(r.metric, r.estimate_a, r.kind).replace(findings.NOT_APPLICABLE, "n/a"),
                          findings.fmt_value(r.metric, r.estimate_b, r.kind).replace(findings.NOT_APPLICABLE, "n/a"),
                          diff.replace(findings.NOT_APPLICABLE, "n/a"), findings.fmt_p(r.p_adjusted),
                          VERDICT_SHORT.get(r.verdict, r.verdict)))
        rows, widths = fit_rows(cells, width)
        for c in rows:
            line = "  ".join([c[0].ljust(widths[0])] + [c[i].rjust(widths[i]) for i in range(1, 5)]
                             + [c[5].ljust(widths[5])]).rstrip()
            lines.append(line[:width])
        lines.append("")
    return "\n".join(lines).rstrip("\n")


def skill_comparison(cmp: Comparison, dir_a, dir_b, thresholds) -> pd.DataFrame | None:
    """The skill and luck measures of each compared pair, when both runs hold a skill study
    (``skill.find_fit``) of the same players covering the pair's profiles: ``skill.compare_fits``'s
    judged table; None otherwise, with the reason added to the comparison's notes."""
    fit_a = skill.find_fit(dir_a)
    fit_b = fit_a if cmp.same_run or dir_b is None else skill.find_fit(dir_b)
    if fit_a is None and fit_b is None:
        return None
    if fit_a is None or fit_b is None:
        cmp.notes.append(f"Skill and luck not compared: only run {'A' if fit_b is None else 'B'} holds a skill study "
                         "(kalooki skill --out RUN).")
        return None
    differ = skill.skill_players_note(fit_a, fit_b)
    if differ:
        cmp.notes.append(differ)
        return None
    pairs = [(fit_a, a, fit_b, b) for a, b in cmp.pairs if a in fit_a.profiles and b in fit_b.profiles]
    missing = [f"{a} vs {b}" for a, b in cmp.pairs if a not in fit_a.profiles or b not in fit_b.profiles]
    if missing:
        cmp.notes.append(f"Skill and luck not compared for {', '.join(missing)}: a side's skill study does not hold "
                         "the profile.")
    return skill.compare_fits(pairs, thresholds) if pairs else None


def skill_section(doc: Document, judged: pd.DataFrame) -> None:
    """The comparison's skill and luck measures: one table per pair (A, B, B - A with its interval,
    verdict), its design and the measures' thresholds."""
    doc.heading("Skill and luck")
    designs = "; ".join(f"{a} vs {b}: {rows['design'].iloc[0]}, {rows['replicates'].iloc[0]} replicates"
                        for (a, b), rows in judged.groupby(["profile_a", "profile_b"], sort=False))
    doc.text("How much skill decides each side, for the same set of players (kalooki skill; the measures in the "
             "glossary): each measure's excess over its side's chance benchmark (the measure minus what the same "
             "games with their finishing orders shuffled give; the luck shares and the coin-flip share scaled so "
             "that pure chance reads 1) with its 95% bootstrap interval over deals, the difference B - A with its "
             f"interval ({designs}) and its verdict against the measure's practical threshold, "
             f"{judged['correction'].iloc[0]}; the luck share is the coin-flip share on another scale, shown, not "
             "tested. A clear difference says skill decides more on one side (less luck, a larger spread or a "
             "higher adjacent win) only where leaving out any one player keeps its sign; otherwise its verdict "
             "names the player it rests on.")
    for (a, b), rows in judged.groupby(["profile_a", "profile_b"], sort=False):
        header = [Cell("Measure", "unit"), Cell("A", "estimate (95% CI)"), Cell("B", "estimate (95% CI)"),
                  Cell("B − A", "95% CI"), Cell("Verdict", "against the threshold")]
        cells = []
        for r in rows.itertuples(index=False):
            stated = r.verdict in findings.STATED
            threshold = "" if pd.isna(r.threshold) else f"threshold {skill.fmt_measure(r.measure, r.threshold)}"
            cells.append([Cell(r.measure, skill.MEASURES[r.measure][0]),
                          Cell(skill.fmt_estimate(r.measure, r.estimate_a, r.ci_low_a, r.ci_high_a)),
                          Cell(skill.fmt_estimate(r.measure, r.estimate_b, r.ci_low_b, r.ci_high_b)),
                          Cell(skill.fmt_change(r.measure, r.difference, r.diff_ci_low, r.diff_ci_high),
                               cls=r.verdict if stated else ""),
                          Cell(r.verdict + (f", rests on {r.rests_on}" if stated and getattr(r, "rests_on", "")
                                            else ""), threshold, r.verdict if stated else
                               "equivalent" if r.verdict == findings.EQUIVALENT else "", inline=True)])
        doc.grid(header, cells, f"A = {a}, B = {b}")
    doc.attach("skill_differences", judged, "Every skill and luck measure's difference, tested and judged")


def write_compare(dir_a, dir_b=None, profiles=None, out_dir="reports/compare", allow_partial: bool = False,
                  thresholds_file=None):
    """Compare and write out_dir/report.html, report.md, figures/ and data/comparison.csv; returns
    (table, HTML path), the table with the judged columns threshold, unit and verdict added; when both
    runs hold a skill study, its measures' differences too (``skill_comparison``), their terminal lines
    in the table's ``attrs["skill_lines"]``."""
    thresholds = findings.load_thresholds(thresholds_file)
    cmp = _compare(dir_a, dir_b, profiles, allow_partial)
    judged = findings.judge(cmp.table, thresholds)
    skill_judged = skill_comparison(cmp, dir_a, dir_b, thresholds)
    judged.attrs.update(cmp.table.attrs)
    judged.attrs["notes"] = cmp.notes
    judged.attrs["skill_lines"] = skill.difference_lines(skill_judged) if skill_judged is not None else []
    return judged, build_comparison(cmp, dir_a, dir_b, judged, skill_judged).write(out_dir)
