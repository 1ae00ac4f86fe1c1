"""Sweeps: what changes in one profile when one rule parameter changes, from one run per grid value.

The page answers that first: one finding per key metric, from the lowest grid value to the highest
(both estimates with their 95% intervals, the difference with its interval, and whether it passes the
metric's practical threshold of ``configs/thresholds.toml``), with the adjacent step where the metric
moves most when that step is clear; then one table (key metrics x grid values); then one figure of
small multiples against the parameter, the profile's default value marked.

Differences between grid values are :func:`analysis.differences.compare_results`'s: paired by game
(per-game differences) when the runs' manifests say game g of every value was dealt from the same seed
(:func:`analysis.differences.paired_design`: the same seed and profile name, as every sweep point has;
``--paired`` also deals the same cards whatever the deal pattern), Welch's t-test otherwise.  The
lowest-to-highest differences of the key metrics are one Holm family; the adjacent steps of every key
metric are another.  Each change gets one of ``findings.judge``'s three verdicts against the metric's
threshold: it matters (its interval past the threshold), practically unchanged (inside it, by the
equivalence test TOST) or not established, each kind of claim Holm-corrected over its family.

With ``sweep --skill`` every grid value is a skill study: the page adds each skill and luck measure at
every value and its change from the lowest value to the highest (``analysis.skill.compare_fits``).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from sim.errors import UserError

from . import findings, load, metrics, plots, stats
from .differences import check_versions, compare_results, paired_design
from .document import Cell, Document
from .report import METHOD_NOTES
from .terminal import wrap_label

KEY_METRICS = ["p_can_open_at_deal", "mean_open_round", "share_never_opened", "kalooki_per_hand",
               "rounds_per_hand", "hands_per_game", "share_players_eliminated_at_least_once", "dealer_hand_win_rate"]
PAIRED_DESIGN = ("paired by game: game g of every grid value was dealt from the same seed, so each difference is "
                 "the mean of per-game differences (a t interval with one degree of freedom fewer than the games)")
INDEPENDENT_DESIGN = "independent samples: Welch's t-test of two cluster-robust (by game) estimates"
SUMMARY_COLUMNS = ["value"] + metrics.SUMMARY_COLUMNS


@dataclass
class Sweep:
    """One profile's runs over a grid of one parameter, their summaries and differences."""
    profile: str
    param: str
    values: list
    results: dict  # grid value -> metrics.Results
    paired: bool  # differences from per-game differences
    default: object = None  # the profile's value of the parameter (marked in the table and figure)
    common_deals: bool = False  # every run was made with --paired (the same cards whatever the deal pattern)
    skill: dict | None = None  # grid value -> skill.Fit, when every value was played as a skill study
    skill_differences: pd.DataFrame | None = None  # skill.compare_fits of the highest value against the lowest

    @cached_property
    def summary(self) -> pd.DataFrame:
        """Every headline metric at every grid value (long: value, then metrics.summary's columns)."""
        parts = [self.results[v].summary.assign(value=v) for v in self.values]
        return pd.concat(parts, ignore_index=True)[SUMMARY_COLUMNS]

    def label(self, value) -> str:
        return f"{self.param}={value}"


def load_sweep(runs: dict, param: str, default=None, allow_partial: bool = False, skill: dict | None = None,
               thresholds=None) -> Sweep:
    """`runs` maps each grid value to its run (one profile each, the same in every run); the values are
    sorted.  Per-game sums are kept when every run was dealt from the same seeds as the lowest value's.
    `skill` maps each value to its skill study (``analysis.skill.Fit``): the skill and luck measures of
    the highest value are then compared with the lowest's, judged against `thresholds`."""
    values = sorted(runs)
    manifests = {v: load.read_manifest(runs[v]) for v in values}
    names = {v: list(m["profiles"]) for v, m in manifests.items()}
    profile = names[values[0]][0]
    wrong = [f"{param}={v}: {', '.join(n)}" for v, n in names.items() if n != [profile]]
    if wrong:
        raise UserError(f"a sweep's runs must each hold the one profile {profile}; " + "; ".join(wrong))
    low = manifests[values[0]]
    for v in values[1:]:  # runs of different schema or engine versions are not comparable
        check_versions(low, manifests[v], runs[values[0]], runs[v])
    paired = len(values) > 1 and all(paired_design(low, manifests[v], profile, profile) for v in values[1:])
    results = {v: metrics.compute(metrics.load_verified(runs[v], allow_partial, [profile], paired)) for v in values}
    common_deals = all(bool(m.get("paired")) for m in manifests.values())
    skill_differences = None
    if skill:
        from . import skill as skill_fit
        thresholds = findings.default_thresholds() if thresholds is None else thresholds
        skill_differences = skill_fit.compare_fits([(skill[values[0]], profile, skill[values[-1]], profile)],
                                                   thresholds)
    return Sweep(profile, param, values, results, paired, default, common_deals, skill, skill_differences)


# ---------------------------------------------------------------------------------------------
# differences between grid values


def _difference(sweep: Sweep, a, b) -> pd.DataFrame:
    """compare's rows of value b against value a, the key metrics only, with value_a and value_b."""
    pair = (sweep.profile, sweep.profile)
    rows = compare_results(sweep.results[a], sweep.results[b], [pair], {pair: sweep.paired})
    rows = rows[rows["metric"].isin(KEY_METRICS)].reset_index(drop=True)
    rows.insert(0, "value_b", b)
    rows.insert(0, "value_a", a)
    return rows


def _holm(rows: pd.DataFrame) -> pd.DataFrame:
    """`rows` with p_adjusted, significant and correction redone as one Holm family over its tested rows."""
    out = rows.copy()
    in_family = out["in_family"].to_numpy(dtype=bool) & out["p_value"].notna().to_numpy()
    reject, adjusted = stats.adjust(np.where(in_family, out["p_value"].astype(float), np.nan))
    out["p_adjusted"] = adjusted
    out["significant"] = pd.array(np.where(in_family, reject, None), dtype="boolean")
    out["correction"] = f"{stats.CORRECTION_NAME}, over {int(in_family.sum())} tests"
    return out


def end_differences(sweep: Sweep, thresholds) -> pd.DataFrame:
    """Each key metric from the lowest grid value to the highest: compare's columns (A the lowest, B the
    highest), one Holm family over the key metrics, judged against the thresholds."""
    return findings.judge(_holm(_difference(sweep, sweep.values[0], sweep.values[-1])), thresholds)


def step_differences(sweep: Sweep, thresholds) -> pd.DataFrame:
    """Each key metric between adjacent grid values, one Holm family over every step of every metric,
    judged against the thresholds."""
    steps = [_difference(sweep, a, b) for a, b in zip(sweep.values, sweep.values[1:])]
    return findings.judge(_holm(pd.concat(steps, ignore_index=True)), thresholds)


# ---------------------------------------------------------------------------------------------
# findings


def _threshold_text(row) -> str:
    return findings.fmt_difference(row.metric, row.threshold, np.nan, np.nan, row.kind).lstrip("+")


def _estimate(row, side: str) -> str:
    est, low, high = (getattr(row, f"{c}_{side}") for c in ("estimate", "ci_low", "ci_high"))
    value = findings.fmt_value(row.metric, est, row.kind)
    interval = findings.fmt_interval(row.metric, low, high, row.kind)
    return f"{value} ({interval})" if interval else value


def _short_difference(row) -> str:
    """'+2.9 pp [+1.1, +4.8]': the difference and its 95% interval, without words."""
    text = findings.fmt_difference(row.metric, row.difference, np.nan, np.nan, row.kind)
    if pd.isna(row.diff_ci_low) or pd.isna(row.diff_ci_high):
        return text
    s = findings.show(row.metric, row.kind)
    return text + f" [{row.diff_ci_low * s.scale:+,.{s.digits}f}, {row.diff_ci_high * s.scale:+,.{s.digits}f}]"


def _unclear_reason(row) -> str:
    """Why a change is not established: its interval reaches both sides of the threshold, or it lies
    past (or inside) the threshold only before the Holm correction."""
    if pd.isna(row.diff_ci_low):
        return "no interval"
    t = row.threshold
    if row.diff_ci_low > t or row.diff_ci_high < -t:
        return "past the threshold before the Holm correction, not after"
    return f"the interval reaches past ±{_threshold_text(row)}"


def largest_step(steps: pd.DataFrame, metric: str) -> object | None:
    """The adjacent step where `metric` moves most, when it is clear (significant after the steps' Holm
    correction, interval excluding 0); None otherwise or with a single step."""
    mine = steps[steps["metric"] == metric]
    if len(mine) < 2 or mine["difference"].isna().all():
        return None
    top = mine.loc[mine["difference"].abs().idxmax()]
    clear = not pd.isna(top["significant"]) and bool(top["significant"]) and (
        top["diff_ci_low"] > 0 or top["diff_ci_high"] < 0)
    return top if clear else None


def sweep_findings(sweep: Sweep, ends: pd.DataFrame, steps: pd.DataFrame) -> list[tuple[str, str]]:
    """(lead, text) bullets: each key metric whose change from the lowest to the highest value matters,
    then those practically unchanged, those not established and those not tested or not applicable
    (each listed together)."""
    lo, hi = sweep.values[0], sweep.values[-1]
    out, same, unclear, untested, absent = [], [], [], [], []
    order = ends.sort_values("metric", key=lambda c: c.map(KEY_METRICS.index), kind="stable")
    for row in order.itertuples(index=False):
        label = findings.show(row.metric, row.kind).label
        diff = findings.fmt_difference(row.metric, row.difference, row.diff_ci_low, row.diff_ci_high, row.kind)
        if row.verdict in findings.STATED:
            text = (f"{'rises' if row.verdict == findings.HIGHER else 'falls'} from {_estimate(row, 'a')} at "
                    f"{sweep.label(lo)} to {_estimate(row, 'b')} at {sweep.label(hi)}: {diff}, past the practical "
                    f"threshold of {_threshold_text(row)}.")
            step = largest_step(steps, row.metric)
            if step is not None:
                share = step["difference"] / row.difference if row.difference else np.nan
                text += (f" It moves most between {step['value_a']} and {step['value_b']}: "
                         f"{findings.fmt_difference(row.metric, step['difference'], step['diff_ci_low'], step['diff_ci_high'], row.kind)}"
                         + (f", {share:.0%} of the whole change." if np.isfinite(share) else "."))
            elif len(sweep.values) > 2:
                text += " No single step between adjacent values is clear on its own."
            out.append((f"{label}:", text))
        elif row.verdict == findings.NOT_APPLICABLE:
            absent.append(findings.sentence_label(label))
        elif row.verdict == findings.EQUIVALENT:
            same.append(f"{findings.sentence_label(label)} {_estimate(row, 'a')} to {_estimate(row, 'b')}, "
                        f"{_short_difference(row)}")
        elif row.verdict == findings.NOT_ESTABLISHED:
            unclear.append(f"{findings.sentence_label(label)} {_estimate(row, 'a')} to {_estimate(row, 'b')}, "
                           f"{_short_difference(row)} ({_unclear_reason(row)})")
        else:
            untested.append(f"{findings.sentence_label(label)} ({row.verdict})")
    if same:
        out.append((f"Practically unchanged from {sweep.label(lo)} to {hi} (inside the threshold, TOST):",
                    "; ".join(same) + "."))
    if unclear:
        out.append((f"Not established from {sweep.label(lo)} to {hi} (the data cannot tell):",
                    "; ".join(unclear) + "."))
    if untested:
        out.append(("Not tested:", ", ".join(untested) + " (the same game by game, or no threshold)."))
    if absent:
        out.append(("Not applicable:", ", ".join(absent) + " (the profile has no elimination)."))
    return out


def design_text(sweep: Sweep, ends: pd.DataFrame) -> str:
    if not sweep.paired:
        return f"Design: {INDEPENDENT_DESIGN}."
    ratio = ends["width_vs_unpaired"].dropna()
    gain = (f"; the paired intervals are {ratio.median():.0%} of the unpaired width of the same data (median over "
            f"the key metrics, range {ratio.min():.0%}-{ratio.max():.0%})" if len(ratio) else "")
    deals = (" (--paired: the same cards at every value whatever the deal pattern)" if sweep.common_deals else "")
    return f"Design: {PAIRED_DESIGN}{deals}{gain}."


# ---------------------------------------------------------------------------------------------
# the table and the figure


def sweep_grid(sweep: Sweep, ends: pd.DataFrame):
    """Key metrics as rows, grid values as columns, estimate (95% interval) in each cell; the highest
    value's cell marked ▲/▼ with its difference from the lowest when that change matters, ≈ when it is
    practically unchanged."""
    summary = sweep.summary
    summary = summary[summary["metric"].isin(KEY_METRICS)]
    verdict = {r.metric: r for r in ends.itertuples(index=False)}
    header = [Cell("Metric", "denominator")] + [
        Cell(sweep.label(v), "profile default" if v == sweep.default else "") for v in sweep.values]
    rows = []
    for metric in KEY_METRICS:
        mine = summary[summary["metric"] == metric].set_index("value")
        if mine.empty:
            continue
        kind = mine["kind"].iloc[0]
        row = [Cell(findings.show(metric, kind).label, mine["denominator"].iloc[0])]
        for v in sweep.values:
            r = mine.loc[v]
            value = findings.fmt_value(metric, r["estimate"], kind)
            if value == findings.NOT_APPLICABLE:
                row.append(Cell(value, cls="na"))
                continue
            interval = findings.fmt_interval(metric, r["ci_low"], r["ci_high"], kind)
            text = f"{value} ({interval})" if interval else value
            judged = verdict.get(metric)
            if v == sweep.values[-1] and judged is not None and judged.verdict in findings.STATED:
                arrow = "▲" if judged.verdict == findings.HIGHER else "▼"
                diff = findings.fmt_difference(metric, judged.difference, np.nan, np.nan, kind)
                row.append(Cell(text, f"{arrow} {diff}", judged.verdict, inline=True))
            elif v == sweep.values[-1] and judged is not None and judged.verdict == findings.EQUIVALENT:
                row.append(Cell(text, "≈", "equivalent", inline=True))
            else:
                row.append(Cell(text, cls="base" if v == sweep.values[0] else ""))
        rows.append(row)
    return header, rows


def plot_sweep(axes, frame: pd.DataFrame):
    """One small multiple a key metric: estimate and 95% interval against the parameter, the grey band
    the practical threshold either side of the lowest value's estimate, the dashed line the profile's
    default value.  `frame`: value, metric, kind, estimate, ci_low, ci_high, threshold; attrs param,
    default."""
    param, default = frame.attrs["param"], frame.attrs.get("default")
    values = sorted(frame["value"].unique())
    for ax, metric in zip(axes, dict.fromkeys(frame["metric"])):
        d = frame[frame["metric"] == metric].sort_values("value")
        s = findings.show(metric, d["kind"].iloc[0])
        x = d["value"].to_numpy(dtype=float)
        y = d["estimate"].to_numpy(dtype=float) * s.scale
        low = np.clip(np.nan_to_num(y - d["ci_low"].to_numpy(dtype=float) * s.scale), 0, None)
        high = np.clip(np.nan_to_num(d["ci_high"].to_numpy(dtype=float) * s.scale - y), 0, None)
        threshold = d["threshold"].iloc[0] * s.scale
        if np.isfinite(threshold) and np.isfinite(y[0]):
            ax.axhspan(y[0] - threshold, y[0] + threshold, color="#e4e4e4", zorder=0)
        if default is not None:
            ax.axvline(float(default), color="#555555", linestyle="--", linewidth=1, zorder=1)
        ax.errorbar(x, y, yerr=[low, high], fmt="-o", color="C0", capsize=3, ms=4, zorder=2)
        ax.set_title(s.label + (f" ({s.unit.strip()})" if s.unit.strip() else ""), fontsize="small")
        ax.grid(alpha=0.3)
        ax.tick_params(labelsize="small")
        ax.set_xticks(values, [f"{v}\ndefault" if v == default else str(v) for v in values])
    for ax in axes[-plots.PANEL_COLUMNS:]:  # the lowest panel of each column keeps its tick labels (a hidden slot may be below)
        ax.tick_params(labelbottom=True)
    fig = axes[0].figure
    fig.supxlabel(param, fontsize="small")
    return axes


def plot_frame(sweep: Sweep, ends: pd.DataFrame) -> pd.DataFrame:
    """The key metrics that apply, one row a grid value, with their thresholds (what plot_sweep draws)."""
    summary = sweep.summary
    frame = summary[summary["metric"].isin(KEY_METRICS) & summary["applicable"].astype(bool)
                    & summary["estimate"].notna()]
    frame = frame.assign(threshold=frame["metric"].map(dict(zip(ends["metric"], ends["threshold"]))))
    frame = frame.sort_values(["metric", "value"], key=lambda c: c.map(KEY_METRICS.index) if c.name == "metric"
                              else c, kind="stable").reset_index(drop=True)
    frame.attrs.update(param=sweep.param, default=sweep.default)
    return frame


# ---------------------------------------------------------------------------------------------
# the page


SWEEP_NOTES = [
    "Each grid value is a separate run of the profile with the parameter set to that value; every other rule, "
    "the table and the number of games are the same.",
    "Findings: each key metric at the highest grid value against the lowest, one of three verdicts against the "
    "metric's practical threshold (configs/thresholds.toml), Holm-corrected over the key metrics: the change "
    "matters (the minimum-effect test rejects: its 95% interval lies past the threshold), practically unchanged "
    "(the equivalence test TOST rejects: its 90% interval lies inside plus or minus the threshold) or not "
    "established (neither). Where it moves most: the largest step between adjacent grid values, named when it "
    "is significant against 0 after one Holm correction over every step of every key metric.",
]


def build_sweep(sweep: Sweep, provenance: list[str], thresholds=None) -> tuple[Document, pd.DataFrame]:
    """The sweep page and its judged lowest-to-highest differences."""
    thresholds = findings.default_thresholds() if thresholds is None else thresholds
    ends = end_differences(sweep, thresholds)
    steps = step_differences(sweep, thresholds) if len(sweep.values) > 2 else ends.iloc[0:0]
    lo, hi = sweep.values[0], sweep.values[-1]
    doc = Document(f"Sweep of {sweep.param} in {sweep.profile}")
    if any(r.run.problems for r in sweep.results.values()):
        problems = [f"{sweep.label(v)}: {p}" for v, r in sweep.results.items() for p in r.run.problems]
        doc.warning("PARTIAL REPORT: runs failed verification", "Files that could not be read were left out; every "
                    "number below describes only what remains and may be biased.", problems)
    default = "" if sweep.default is None else f" (the profile's default: {sweep.default})"
    doc.text(f"What changes in {sweep.profile} when {sweep.param} goes from {lo} to {hi}{default}: one run per "
             f"value ({', '.join(map(str, sweep.values))}), bots playing bots.")
    doc.toc()
    doc.heading("Findings")
    doc.text(f"From {sweep.label(lo)} to {sweep.label(hi)}, each key metric with its 95% interval and one of three "
             "verdicts against the metric's practical threshold (configs/thresholds.toml): it matters (the interval "
             "past the threshold), practically unchanged (inside it, by an equivalence test) or not established; "
             "Holm-corrected over the key metrics. " + design_text(sweep, ends))
    doc.bullets(sweep_findings(sweep, ends, steps))
    doc.heading("Key metrics")
    doc.grid(*sweep_grid(sweep, ends), f"Estimate (95% interval) at each value of {sweep.param}, its unit in the "
             f"metric's name and its denominator in small print. At {hi}: ▲/▼ the change from {lo} matters (the "
             "difference after the arrow); ≈ practically unchanged; unmarked: not established.")
    doc.attach("summary", sweep.summary, "Every headline metric at every grid value (long format)")
    doc.attach("differences_lowest_to_highest", ends, f"Every key metric's difference from {lo} to {hi}, tested "
               "and judged")
    if len(steps):
        doc.attach("differences_adjacent", steps, "Every key metric's difference between adjacent values")
    doc.heading("Figure")
    frame = plot_frame(sweep, ends)
    panels = frame["metric"].nunique()
    if panels:
        rows = -(-panels // plots.PANEL_COLUMNS)
        left_out = [findings.sentence_label(findings.show(m).label) for m in KEY_METRICS
                    if m not in set(frame["metric"])]
        doc.figure("sweep", plot_sweep, frame,
                   f"Each key metric against {sweep.param}: estimate and 95% interval at each grid value; grey band: "
                   f"the practical threshold either side of the value at {lo} (a point outside it differs by more "
                   "than the threshold)"
                   + (f"; dashed line: the profile's default ({sweep.default})" if sweep.default is not None else "")
                   + (f". Not drawn (not applicable): {', '.join(left_out)}." if left_out else "."),
                   width=13.0, height=2.3 * rows + 0.6, panels=panels, share="x")
    if sweep.skill_differences is not None:
        skill_section(doc, sweep)
    doc.heading("Methods and provenance")
    doc.open("details", "How each number was made, and how the runs were made")
    doc.bullets(SWEEP_NOTES + [design_text(sweep, ends)] + METHOD_NOTES[:2]
                + ([skill_notes()] if sweep.skill_differences is not None else []))
    doc.bullets(provenance)
    doc.close("details")
    return doc, ends


def skill_notes() -> str:
    from .skill import DIFFERENCE_NOTE
    return DIFFERENCE_NOTE


def skill_section(doc: Document, sweep: Sweep) -> None:
    """The skill and luck measures at every grid value (estimate and 95% bootstrap interval), then the
    change from the lowest value to the highest, each measure with its verdict."""
    from .skill import MEASURES, fmt_change, fmt_estimate
    diffs = sweep.skill_differences
    lo, hi = sweep.values[0], sweep.values[-1]
    players = ", ".join(sweep.skill[lo].players)
    doc.heading("Skill and luck")
    doc.text(f"Each value played as a skill study among {players} (duplicate games; the measures in the glossary). "
             f"From {sweep.label(lo)} to {sweep.label(hi)}: {diffs['design'].iloc[0]}, "
             f"{diffs['replicates'].iloc[0]} bootstrap replicates over deals; verdicts against each measure's "
             f"practical threshold, {diffs['correction'].iloc[0]}. Less luck, a larger spread or a higher adjacent "
             "win: skill decides more.")
    verdict = {r.measure: r for r in diffs.itertuples(index=False)}
    header = [Cell("Measure", "unit")] + [Cell(sweep.label(v), "profile default" if v == sweep.default else "")
                                          for v in sweep.values] + [Cell(f"{hi} − {lo}", "95% CI, verdict")]
    rows = []
    for name in diffs["measure"]:
        r = verdict[name]
        row = [Cell(name, MEASURES[name][0])]
        for v in sweep.values:
            m = sweep.skill[v].measures
            m = m[(m["profile"] == sweep.profile) & (m["measure"] == name)]
            if m.empty:
                row.append(Cell("", cls="na"))
                continue
            e = m.iloc[0]
            row.append(Cell(fmt_estimate(name, e["estimate"], e["ci_low"], e["ci_high"])))
        stated = r.verdict in findings.STATED
        row.append(Cell(fmt_change(name, r.difference, r.diff_ci_low, r.diff_ci_high), r.verdict,
                        r.verdict if stated else "equivalent" if r.verdict == findings.EQUIVALENT else "",
                        inline=True))
        rows.append(row)
    doc.grid(header, rows, f"Estimate (95% bootstrap interval over deals) at each value of {sweep.param}; the last "
             f"column the change from {lo} to {hi} with its interval and verdict.")
    doc.attach("skill_differences", diffs, f"Every skill and luck measure's change from {lo} to {hi}, judged")


def write_sweep(sweep: Sweep, out_dir, provenance: list[str], thresholds=None) -> tuple[pd.DataFrame, object]:
    """Write out_dir/report.html, report.md, figures/sweep.png and data/*.csv; returns the judged
    lowest-to-highest differences and the HTML path."""
    doc, ends = build_sweep(sweep, provenance, thresholds)
    return ends, doc.write(out_dir)


TERMINAL_MARKS = {findings.HIGHER: "▲", findings.LOWER: "▼", findings.EQUIVALENT: "≈",
                  findings.NOT_ESTABLISHED: "?"}
TERMINAL_LEGEND = ("verdict of the change against the metric's practical threshold, Holm-corrected:\n"
                   "  ▲/▼ it matters (interval past the threshold); ≈ practically unchanged (inside it, TOST);\n"
                   "  ? not established (the data cannot tell); - not tested or not applicable")


def terminal_lines(sweep: Sweep, ends: pd.DataFrame, width: int = 100) -> list[str]:
    """Key metrics (rows) at each grid value and the change from the lowest to the highest value with
    its verdict, every line at most `width` columns (the grid values split over several blocks when
    they do not fit; a long label wrapped, never cut), then the verdicts' legend."""
    label_width, cell, change_width = 30, 7, 16
    summary = sweep.summary.set_index(["metric", "value"])
    verdict = {r.metric: r for r in ends.itertuples(index=False)}
    shown = [m for m in KEY_METRICS if (m, sweep.values[0]) in summary.index]
    per_block = max(1, (width - label_width - change_width) // cell)
    blocks = [sweep.values[i:i + per_block] for i in range(0, len(sweep.values), per_block)]
    lines = []
    for i, block in enumerate(blocks):
        last = i == len(blocks) - 1
        head = "metric".ljust(label_width) + "".join(str(v).rjust(cell) for v in block)
        lines.append(head + ("  change, verdict" if last else ""))
        for m in shown:
            kind = summary.loc[(m, block[0]), "kind"]
            label, *more = wrap_label(findings.show(m, kind).label, label_width - 1)
            cells = "".join(findings.fmt_value(m, summary.loc[(m, v), "estimate"], kind)
                            .replace(findings.NOT_APPLICABLE, "n/a").rjust(cell) for v in block)
            line = label.ljust(label_width) + cells
            if last:
                r = verdict[m]
                diff = findings.fmt_difference(m, r.difference, np.nan, np.nan, kind).replace(findings.NOT_APPLICABLE,
                                                                                               "n/a")
                mark = TERMINAL_MARKS.get(r.verdict, "-")
                line += f"  {diff} {mark}"
            lines.append(line[:width])
            lines += more
    return lines + TERMINAL_LEGEND.splitlines()
