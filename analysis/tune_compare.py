"""Two tune studies compared: does the value of the parameter that meets the target differ between them?

Two studies can be compared when they ask the same question: the same profile, parameter, metric and
target (:func:`check_comparable`); they may differ in anything else (seed, table mix, players, another
rule, range, budget), and every setting that differs is said.

The statistic (:func:`compare`) is the difference of the two answers, B's crossing minus A's, in values
of the parameter.  Each answer and its 95% interval are the study's own, refitted from its runs as
``kalooki report STUDY`` does (the numbers ``kalooki tune`` printed).  The difference's 95% interval is
a percentile bootstrap over deals: in each of ``BOOT`` replicates both studies' whole fits are repeated
and B's crossing minus A's is taken.

- Common deals: two studies of the same seed, players and rules (the tuned parameter aside), with deals
  paired in both, dealt game g of block b the same cards.  Their deals are then resampled together: one
  draw over every deal either study played, each study weighting its own deals by it, so the deal-to-deal
  noise both answers share cancels in the difference (as the values of one study are compared).
- Otherwise the deals of the two studies are different: each is resampled on its own (two independent
  streams), and the difference's replicates are those of two independent bootstraps.

The verdict: the answers differ where the difference's 95% interval excludes 0, and are not shown to
differ otherwise.  An answer censored at the end of its range (the curve does not reach the target
there) makes the difference a bound, and the page and summary say so.  The page
(:func:`write_tune_compare`), its CSV files and the terminal summary (:func:`terminal_lines`) are made from
a :class:`TuneComparison`.
"""
from __future__ import annotations

import textwrap
from dataclasses import dataclass

import numpy as np
import pandas as pd

from sim.errors import UserError

from . import findings, metrics
from . import tune as T
from .document import Cell, Document

BOOT = T.BOOT  # replicates of the difference
QUESTION = ("profile", "param", "metric", "target")  # what two comparable studies share
COMMON_DEALS = ("seed", "players", "params", "paired")  # what makes their deals the same
SETTINGS = ("seed", "tables", "players", "params", "lo", "hi", "block_games", "budget", "games")


@dataclass
class Side:
    """One study: where it is, its tune.json, its games and its own fit."""
    name: str  # "A" or "B"
    study: str
    doc: dict
    data: T.Data
    fit: T.Fit


@dataclass
class TuneComparison:
    a: Side
    b: Side
    common_deals: bool
    difference: float  # B's crossing minus A's
    ci_low: float
    ci_high: float
    replicates: int
    settings: pd.DataFrame  # setting, a, b: those that differ

    @property
    def param(self) -> str:
        return self.a.doc["param"]

    @property
    def differs(self) -> bool:
        return bool(self.ci_low > 0 or self.ci_high < 0)

    @property
    def censored(self) -> list[Side]:
        return [s for s in (self.a, self.b) if s.fit.censored]


def question_text(doc: dict) -> str:
    return f"{doc.get('param')} in {doc.get('profile')} to {doc.get('metric')} = {doc.get('target'):g}"


def check_comparable(doc_a: dict, doc_b: dict) -> None:
    """UserError (one line) unless the two studies ask the same question (``QUESTION``)."""
    differ = [k for k in QUESTION if doc_a.get(k) != doc_b.get(k)]
    if differ:
        raise UserError(f"cannot compare these tune studies: A tunes {question_text(doc_a)}, B tunes "
                        f"{question_text(doc_b)} (their {' and '.join(differ)} differ); compare two tune studies "
                        "of the same profile, parameter, metric and target")


def on_common_deals(doc_a: dict, doc_b: dict) -> bool:
    """Whether game g of block b is the same deal in both studies (``COMMON_DEALS`` equal, deals paired)."""
    return all(doc_a.get(k) == doc_b.get(k) for k in COMMON_DEALS) and bool(doc_a.get("paired"))


def settings_frame(doc_a: dict, doc_b: dict) -> pd.DataFrame:
    """The settings in which the two studies differ (a rule other than the tuned one by name)."""
    rows = []
    for k in SETTINGS:
        va, vb = doc_a.get(k), doc_b.get(k)
        if k == "params":
            for name in sorted(set(va or {}) | set(vb or {})):
                pa, pb = (va or {}).get(name), (vb or {}).get(name)
                if pa != pb:
                    rows.append({"setting": f"rule {name}", "a": str(pa), "b": str(pb)})
        elif k == "tables":
            ta, tb = _tables_text(va), _tables_text(vb)
            if ta != tb:
                rows.append({"setting": "tables", "a": ta, "b": tb})
        elif va != vb:
            rows.append({"setting": {"lo": "range low", "hi": "range high", "budget": "game budget",
                                     "games": "games played", "block_games": "games per value a stage"}.get(k, k),
                         "a": str(va), "b": str(vb)})
    return pd.DataFrame(rows, columns=["setting", "a", "b"])


def _tables_text(tables) -> str:
    if not tables:
        return ""
    return "; ".join(f"{t.get('name')} = {','.join(t.get('bots', []))} (weight {t.get('weight')})" for t in tables)


def _side(name: str, study) -> Side:
    data, doc = T.load_data(study)
    f = T.fit(data, doc["metric"], doc["target"], T.study_threshold(doc), doc["lo"], doc["hi"], seed=doc["seed"])
    return Side(name, str(study), doc, data, f)


def compare(study_a, study_b, boot: int = BOOT) -> TuneComparison:
    """Both studies read back (each verified run), checked comparable, and the difference of their answers
    with its bootstrap interval (the module docstring says how)."""
    doc_a, doc_b = T.read_doc(study_a), T.read_doc(study_b)
    check_comparable(doc_a, doc_b)
    a, b = _side("A", study_a), _side("B", study_b)
    common = on_common_deals(doc_a, doc_b)
    seeds = [int(doc_a["seed"]), int(doc_b["seed"])]
    if common:
        keys = np.union1d(T.deal_keys(a.data), T.deal_keys(b.data))
        drawn = T.resample_deals(keys, boot, np.random.default_rng(np.random.SeedSequence([*seeds, 46, 2])))
        weights = lambda own: drawn[:, np.searchsorted(keys, own)]
        weights_a = weights_b = weights
    else:
        def stream(side):
            return lambda own: T.resample_deals(own, boot, np.random.default_rng(
                np.random.SeedSequence([*seeds, 46, 3, side])))
        weights_a, weights_b = stream(0), stream(1)
    refit = lambda s, w: T.fit(s.data, s.doc["metric"], s.doc["target"], s.fit.threshold, s.doc["lo"], s.doc["hi"],
                               weights=w)
    diff = refit(b, weights_b).boot_crossings - refit(a, weights_a).boot_crossings
    low, high = np.quantile(diff, [0.025, 0.975])
    return TuneComparison(a, b, common, float(b.fit.crossing - a.fit.crossing), float(low), float(high), boot,
                          settings_frame(doc_a, doc_b))


# ---------------------------------------------------------------------------------------------
# words


def design_text(c: TuneComparison) -> str:
    how = ("common deals (the same seed, players and rules: game g of block b dealt the same cards in both), "
           "resampled together" if c.common_deals else
           "different deals (their seed, players or rules differ), each study resampled on its own")
    return (f"difference = B - A, in values of {c.param}; 95% percentile bootstrap over deals, {c.replicates} "
            f"replicates of both whole fits, on {how}")


def _signed(x: float) -> str:
    return f"{x:+.2f}"


def difference_text(c: TuneComparison) -> str:
    return f"B - A = {_signed(c.difference)} {c.param} (95% interval {_signed(c.ci_low)} to {_signed(c.ci_high)})"


def verdict_text(c: TuneComparison) -> str:
    said = (f"The answers differ: {difference_text(c)}, an interval that excludes 0" if c.differs else
            f"The answers are not shown to differ: {difference_text(c)}, an interval that includes 0")
    for s in c.censored:
        edge = s.fit.lo if s.fit.censored == "below" else s.fit.hi
        side = "at or below" if s.fit.censored == "below" else "at or above"
        said += (f"; {s.name}'s answer is censored {side} {c.param} = {edge}, the end of its range, so the "
                 "difference is a bound")
    return said + "."


def side_text(s: Side, param: str) -> str:
    return f"{s.name} ({s.study}): {T.answer_text(s.fit, param)}"


# ---------------------------------------------------------------------------------------------
# the page, the CSV and the terminal


def answers_frame(c: TuneComparison) -> pd.DataFrame:
    """Each study's answer and its interval, and the difference B - A with its interval."""
    rows = []
    for s in (c.a, c.b):
        lo_b, hi_b = s.fit.bracket or (np.nan, np.nan)
        rows.append({"side": s.name, "study": s.study, "study_id": s.doc.get("study_id"), "param": c.param,
                     "metric": s.fit.metric, "target": s.fit.target, "answer": s.fit.crossing,
                     "ci_low": s.fit.ci_low, "ci_high": s.fit.ci_high, "censored": s.fit.censored,
                     "bracket_low": lo_b, "bracket_high": hi_b, "games": int(s.fit.table["games"].sum()),
                     "seed": s.doc.get("seed"), "complete": bool(s.doc.get("complete")),
                     "interval": "the study's own: percentile bootstrap over its deals"})
    rows.append({"side": "B - A", "study": "", "study_id": "", "param": c.param, "metric": c.a.fit.metric,
                 "target": c.a.fit.target, "answer": c.difference, "ci_low": c.ci_low, "ci_high": c.ci_high,
                 "censored": ",".join(s.name for s in c.censored), "bracket_low": np.nan, "bracket_high": np.nan,
                 "games": sum(r["games"] for r in rows), "seed": "", "complete": all(r["complete"] for r in rows),
                 "interval": design_text(c)})
    return pd.DataFrame(rows)


def values_frame(c: TuneComparison) -> pd.DataFrame:
    """Every value each study played: games, estimate, intervals and fitted curve, by side."""
    parts = []
    for s in (c.a, c.b):
        part = T.values_frame(s.fit)
        part.insert(0, "side", s.name)
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


def plot_tune_compare(ax, frame: pd.DataFrame):
    """Both studies' estimates and 95% intervals at each value played, their isotonic fits, the target line
    and its practical band, and each answer with its 95% interval.  ``frame``: side, value, estimate,
    ci_low, ci_high, fitted; attrs metric, kind, param, target, threshold, answers ({side: (crossing, low,
    high)})."""
    a = frame.attrs
    s = findings.show(a["metric"], a["kind"])
    t, thr = a["target"] * s.scale, a["threshold"] * s.scale
    ax.axhspan(t - thr, t + thr, color="#e4e4e4", zorder=0, label="target ± practical threshold")
    ax.axhline(t, color="#b22", linewidth=1, zorder=1, label="target")
    for i, (side, part) in enumerate(frame.groupby("side", sort=True)):
        color, shift = f"C{i}", (i - 0.5) * 0.3  # the two studies' points side by side at a shared value
        crossing, low, high = a["answers"][side]
        ax.axvspan(low, high, color=color, alpha=0.15, zorder=0)
        ax.axvline(crossing, color=color, linestyle="--", linewidth=1, zorder=1)
        x = part["value"].to_numpy(dtype=float)
        y = part["estimate"].to_numpy(dtype=float) * s.scale
        err = [np.clip(y - part["ci_low"].to_numpy(dtype=float) * s.scale, 0, None),
               np.clip(part["ci_high"].to_numpy(dtype=float) * s.scale - y, 0, None)]
        ax.plot(x, part["fitted"].to_numpy(dtype=float) * s.scale, color=color, linewidth=1, zorder=2)
        ax.errorbar(x + shift, y, yerr=err, fmt="o", color=color, capsize=3, ms=4, zorder=3,
                    label=f"{side}: estimate, 95% interval; fit; answer (dashed) and its 95% interval (shaded)")
    ax.set_ylabel(s.label + (f" ({s.unit.strip()})" if s.unit.strip() else ""), fontsize="small")
    ax.set_xlabel(a["param"], fontsize="small")
    ax.legend(fontsize="x-small", loc="best")
    ax.grid(alpha=0.3)
    return ax


def build_tune_compare(c: TuneComparison, provenance: list[str]) -> Document:
    a, b, param = c.a, c.b, c.param
    metric, kind = a.fit.metric, T.metric_kind(a.fit.metric)
    label = findings.show(metric, kind).label
    doc = Document(f"Compare tune studies: {param} in {a.doc['profile']}, {metric} = {a.fit.target:g}")
    doc.text(f"Two studies of the same question, which value of {param} makes the metric “{label}” equal "
             f"{T.fmt_estimate(metric, a.fit.target)} (denominator: {metrics.METRIC_INFO[metric][2]}): do their answers "
             "differ?")
    doc.toc()
    doc.heading("Answer")
    doc.bullets([side_text(a, param) + ".", side_text(b, param) + ".", verdict_text(c),
                 f"How: {design_text(c)}. Each answer's interval is its study's own (as `kalooki tune` printed it)."])
    doc.heading("Figure")
    frame = values_frame(c)
    frame.attrs.update(metric=metric, kind=kind, param=param, target=a.fit.target, threshold=a.fit.threshold,
                       answers={s.name: (s.fit.crossing, s.fit.ci_low, s.fit.ci_high) for s in (a, b)})
    doc.figure("tune_compare", plot_tune_compare, frame,
               f"{label} against {param} in both studies: each value's estimate and 95% interval, the isotonic fit, "
               "the target (red) and its practical band (grey), each answer (dashed) and its 95% interval (shaded).")
    doc.heading("Answers")
    header = [Cell(""), Cell("study"), Cell(f"answer: {param}", "95% interval"), Cell("bracket"), Cell("games")]
    rows = []
    for s in (a, b):
        bracket = f"{s.fit.bracket[0]}–{s.fit.bracket[1]}" if s.fit.bracket else (
            f"censored {s.fit.censored}" if s.fit.censored else "")
        answer = f"{s.fit.crossing:.2f} [{s.fit.ci_low:.2f}, {s.fit.ci_high:.2f}]"
        rows.append([Cell(s.name), Cell(s.study), Cell(answer), Cell(bracket),
                     Cell(f"{int(s.fit.table['games'].sum()):,}")])
    rows.append([Cell("B - A"), Cell(""), Cell(f"{_signed(c.difference)} [{_signed(c.ci_low)}, {_signed(c.ci_high)}]",
                                               cls="higher" if c.differs else ""), Cell(""), Cell("")])
    doc.grid(header, rows, f"Each study's answer and 95% interval (its own), and the difference B - A in values of "
                           f"{param} ({'common deals, resampled together' if c.common_deals else 'independent deals'})")
    doc.attach("answers", answers_frame(c), "Both answers, their intervals, and the difference with its interval")
    doc.attach("values", values_frame(c), "Every value each study played: games, estimate, intervals, fit")
    doc.heading("Settings that differ")
    if len(c.settings):
        doc.table(c.settings.rename(columns={"a": "A", "b": "B"}), "The settings of the two studies that are not the "
                                                                   "same (their question is)")
    else:
        doc.text("None: the two studies have the same settings.")
    doc.heading("Methods and provenance")
    doc.open("details", "How the difference and its interval were made, and the studies")
    doc.bullets([
        "Each answer: where the study's monotone (isotonic) fit of the metric on the parameter meets the target, "
        "with the study's own 95% percentile bootstrap interval over its deals, refitted from its runs "
        "(`kalooki report STUDY` gives the same numbers).",
        f"The difference: B's answer minus A's. Its 95% interval: the 2.5 and 97.5 percentiles of B's crossing minus "
        f"A's over {c.replicates} bootstrap replicates, each repeating both studies' whole fits. Studies of the same "
        "seed, players and rules (the tuned parameter aside) play the same deals, so one draw over every deal either "
        "played weights both (paired, as the values of one study are); otherwise each study is resampled on its "
        "own. The answers differ where the interval excludes 0. An answer censored at its range's end makes the "
        "difference a bound.",
        "The stopping rule of each search looked at its data after every stage; the intervals are not corrected "
        "for those looks."])
    doc.bullets(provenance)
    doc.close("details")
    return doc


def write_tune_compare(c: TuneComparison, out_dir, provenance: list[str]):
    """Write out_dir/report.html, report.md, figures/tune_compare.png and data/{answers,values}.csv; the HTML path."""
    return build_tune_compare(c, provenance).write(out_dir)


def provenance_lines(c: TuneComparison) -> list[str]:
    return [f"{s.name}: study {s.doc.get('study_id')} in {s.study}; {s.doc.get('games'):,} games, seed "
            f"{s.doc.get('seed')}{'' if s.doc.get('complete') else ' (not finished)'}; command: {s.doc.get('command')}"
            for s in (c.a, c.b)]


def terminal_lines(c: TuneComparison, width: int = 100) -> list[str]:
    """The one-screen summary: the question, each answer, the difference and its verdict, what differs."""
    lines = [f"tune studies compared: {question_text(c.a.doc)}"]
    for s in (c.a, c.b):
        lines += textwrap.wrap(side_text(s, c.param), width, subsequent_indent="  ")
    lines += textwrap.wrap(verdict_text(c), width, subsequent_indent="  ")
    lines += textwrap.wrap(design_text(c), width, subsequent_indent="  ")
    if len(c.settings):
        lines += textwrap.wrap("settings that differ (A vs B): " + "; ".join(
            f"{r.setting} {r.a} vs {r.b}" for r in c.settings.itertuples(index=False)), width, subsequent_indent="  ")
    else:
        lines.append("settings that differ: none")
    return lines
