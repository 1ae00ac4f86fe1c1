"""The tune study's page: the answer, the figure of the fitted curve against the target, the values
played, the search's stages, and how it was all made, written to HTML, Markdown and CSV from a fit
(``analysis.tune``) and its stages."""
from __future__ import annotations

import numpy as np
import pandas as pd

from . import findings, metrics
from .document import Cell, Document
from .tune import Fit, fmt_estimate, answer_frame, answer_text, equal_text, load_study, metric_kind, values_frame


METHOD_NOTES = [
    "Search: a sequential design over the integer values of the parameter. A coarse set of values spread over the "
    "range is played first, on one block of deals; after each stage the crossing and its 95% interval are "
    "re-estimated, and the next block of deals is played at the integer values inside that interval (at most five, "
    "spread over it, always the two around the current answer). It stops when the interval lies between two "
    "adjacent integers or the game budget is spent. Every value of a stage plays the same block of deals (common "
    "random numbers: game g of block b is dealt from the same seed at every value), so differences along the "
    "parameter are paired. Ideas: the bracketing and inversion of scipy's root finders (brentq), monotone "
    "(isotonic) regression, probabilistic bisection's rule of spending where the answer is still uncertain "
    "(Waeber, Frazier and Henderson 2013), and the fit-then-choose loop of sequential designs such as Ax and "
    "Optuna.",
    "Fit: each played value's estimate is the ratio of the metric's sums over every game played there; the "
    "estimates are fitted by weighted isotonic regression (pool adjacent violators, weights the denominators) in "
    "the direction of the highest value against the lowest, joined linearly between played values, and the answer "
    "is where that curve meets the target. Assumption: the metric is monotone in the parameter over the range; "
    "tune refuses a range where an adjacent step is shown to go the other way, and a target outside every value's "
    "95% interval (tested after every stage). The step test compares adjacent values on the deals played at both "
    "(paired; at least 10), a normal interval with the bootstrap's standard error at 99% Bonferroni-corrected over "
    "the steps, on the coarse first stage and on the final fit.",
    "Intervals: percentile bootstrap over deals: each replicate draws the deals (games keyed by block and game "
    "number) with replacement, the same draw at every value, and repeats the whole fit and crossing. The values' "
    "intervals are the same replicates' 2.5 and 97.5 percentiles. Practically equal: the value's 90% interval lies "
    "inside the target plus or minus the metric's threshold (configs/thresholds.toml): the equivalence test TOST at "
    "5%. The stopping rule looks at the data after each stage; the interval is not corrected for those looks. "
    "Checked on a deal statistic whose true curve is known (docs/PERFORMANCE.md, Tuning a rule to a target): the "
    "interval covered the true answer in 98 of 100 seeded studies.",
]


def plot_tune(ax, frame: pd.DataFrame):
    """The metric's estimate and 95% interval at each played value, the isotonic fit, the target line and
    its practical band, the answer and its 95% interval.  ``frame``: value, estimate, ci_low, ci_high,
    fitted; attrs metric, kind, param, target, threshold, crossing, ci (low, high)."""
    a = frame.attrs
    s = findings.show(a["metric"], a["kind"])
    x = frame["value"].to_numpy(dtype=float)
    y = frame["estimate"].to_numpy(dtype=float) * s.scale
    low = np.clip(y - frame["ci_low"].to_numpy(dtype=float) * s.scale, 0, None)
    high = np.clip(frame["ci_high"].to_numpy(dtype=float) * s.scale - y, 0, None)
    t, thr = a["target"] * s.scale, a["threshold"] * s.scale
    ax.axhspan(t - thr, t + thr, color="#e4e4e4", zorder=0, label="target ± practical threshold")
    ax.axhline(t, color="#b22", linewidth=1, zorder=1, label="target")
    ax.axvspan(a["ci"][0], a["ci"][1], color="#f3d9a6", alpha=0.7, zorder=0, label="answer, 95% interval")
    ax.axvline(a["crossing"], color="#a60", linestyle="--", linewidth=1, zorder=1, label="answer")
    ax.plot(x, frame["fitted"].to_numpy(dtype=float) * s.scale, color="C1", linewidth=1, zorder=2,
            label="isotonic fit")
    ax.errorbar(x, y, yerr=[low, high], fmt="o", color="C0", capsize=3, ms=4, zorder=3,
                label="estimate, 95% interval")
    ax.set_ylabel(s.label + (f" ({s.unit.strip()})" if s.unit.strip() else ""), fontsize="small")
    ax.set_xlabel(a["param"], fontsize="small")
    ax.legend(fontsize="x-small", loc="best")
    ax.grid(alpha=0.3)
    return ax


def plot_games(ax, frame: pd.DataFrame):
    """Games played at each value (``frame``: value, games; attrs param)."""
    ax.bar(frame["value"].to_numpy(dtype=float), frame["games"].to_numpy(dtype=float), width=0.8, color="C0")
    ax.set_ylabel("games played", fontsize="small")
    ax.set_xlabel(frame.attrs["param"], fontsize="small")
    ax.grid(alpha=0.3, axis="y")
    return ax


def build_tune(f: Fit, profile: str, param: str, stages: pd.DataFrame, provenance: list[str]) -> Document:
    kind = metric_kind(f.metric)
    label = findings.show(f.metric, kind).label
    doc = Document(f"Tune {param} in {profile}: {f.metric} = {f.target:g}")
    doc.text(f"Which value of {param}, searched over {f.lo}..{f.hi}, makes the metric “{label}” equal "
             f"{fmt_estimate(f.metric, f.target)} (denominator: {metrics.METRIC_INFO[f.metric][2]}), bots playing bots: "
             f"{int(f.table['games'].sum()):,} games in {len(stages)} stages.")
    doc.toc()
    doc.heading("Answer")
    doc.bullets([answer_text(f, param) + ".", equal_text(f, param) + ".",
                 f"The metric {'rises' if f.increasing else 'falls'} with {param} over the range; the interval is "
                 f"a percentile bootstrap over deals ({f.replicates} replicates of the whole fit)."])
    doc.heading("Figure")
    frame = f.table.copy()
    frame.attrs.update(metric=f.metric, kind=kind, param=param, target=f.target, threshold=f.threshold,
                       crossing=f.crossing, ci=(f.ci_low, f.ci_high))
    doc.figure("tune", plot_tune, frame,
               f"{label} against {param}: estimate and 95% interval at each value played, the isotonic fit, the "
               "target (red) and its practical band (grey), the answer (dashed) and its 95% interval (shaded).")
    doc.figure("games", plot_games, frame, f"Games played at each value of {param}: the search spends them where "
               "the answer is decided.")
    doc.heading("Values played")
    header = [Cell(param), Cell("games"), Cell(label, "estimate [95% interval]"), Cell("fitted"),
              Cell("practically equal", "90% interval inside the band")]
    rows = []
    for r in f.table.itertuples(index=False):
        rows.append([Cell(str(int(r.value))), Cell(f"{int(r.games):,}"),
                     Cell(fmt_estimate(f.metric, r.estimate, r.ci_low, r.ci_high)),
                     Cell(findings.fmt_value(f.metric, r.fitted, kind)),
                     Cell("yes" if r.practically_equal else "", cls="equivalent" if r.practically_equal else "")])
    doc.grid(header, rows, f"Every value of {param} played, in order; intervals: percentile bootstrap over deals.")
    doc.attach("values", values_frame(f), "Every value played: games, estimate, intervals, fit")
    doc.attach("answer", answer_frame(f, param), "The answer, its interval and where the metric is practically "
                                                 "equal to the target")
    doc.attach("stages", stages, "The search's stages: the values each played and the answer after it")
    doc.table(stages, f"The search, stage by stage: the values of {param} played on each block of deals, the games, "
                      "and the answer with its 95% interval after the stage")
    doc.heading("Methods and provenance")
    doc.open("details", "How the values were chosen, how the answer and its interval were made, and the runs")
    doc.bullets(METHOD_NOTES)
    doc.bullets(provenance)
    doc.close("details")
    return doc


def study_page(study, out_dir) -> object:
    """Write a tune study's page and CSV (``write_tune``) to the local folder ``out_dir``; the HTML path.
    For ``kalooki report STUDY``."""
    f, stages, doc = load_study(study)
    provenance = [f"profile {doc['profile']}, {doc['param']} {doc['lo']}..{doc['hi']}, seed {doc['seed']}; target "
                  f"{doc['metric']} = {doc['target']:g}, practically equal within ±{f.threshold:g}",
                  f"{doc['games']:,} games of a budget of {doc['budget']:,}, {doc['block_games']} per value in each "
                  "stage" + ("" if doc.get("complete") else " (the study is not finished)"),
                  f"study {doc.get('study_id')} in {study}", f"command: {doc.get('command')}"]
    return write_tune(f, doc["profile"], doc["param"], stages, out_dir, provenance)


def write_tune(f: Fit, profile: str, param: str, stages: pd.DataFrame, out_dir, provenance: list[str]):
    """Write out_dir/report.html, report.md, figures/tune.png and data/{values,answer,stages}.csv; the HTML path."""
    return build_tune(f, profile, param, stages, provenance).write(out_dir)
