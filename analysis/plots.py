"""Plot helpers: each takes a matplotlib Axes (or a list of Axes, one small multiple a profile) and a
tidy metric table and returns what it was given.

One idea per figure; every profile visible (small multiples where curves would overlap, direct
labels or a legend where they do not); axes trimmed to where the data are; 95% intervals drawn
wherever an estimate is shown.  A profile keeps one colour in every figure: its position among the
categories of the table's ``profile`` column (a plain column: its order of appearance), so callers
pass ``profile`` as a Categorical of every profile to keep colours stable when some are left out.
Figures are made on the Agg canvas, never through pyplot, so nothing depends on a display.
"""
from __future__ import annotations

import io
import math

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator, PercentFormatter

from .findings import EQUIVALENT, HIGHER, LOWER, NOT_ESTABLISHED, play_order_label

BAND_ALPHA = 0.25
OTHERS_GREY = "#c8c8c8"
BASELINE_GREY = "#555555"
TRIM_QUANTILE = 0.99  # axes end where 99% of the data are
PANEL_COLUMNS = 3
DIFFERENCE_LIMIT = 6.0  # the differences dot plot shows +-6 thresholds; further points sit in a margin past it
BEYOND_STEP = 0.45  # the margin's spacing between points past the limit on one row (in thresholds)


def new_figure(width: float = 6.4, height: float = 3.9) -> tuple[Figure, object]:
    """A figure on the Agg canvas with one Axes."""
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig, fig.add_subplot()


def new_panels(n: int, width: float = 6.4, height: float = 3.9, share: str = "both") -> tuple[Figure, list]:
    """A figure with n small multiples (at most PANEL_COLUMNS a row), sharing "both" axes, the "x"
    axis only, or "none"."""
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    cols = min(max(n, 1), PANEL_COLUMNS)
    rows = math.ceil(max(n, 1) / cols)
    grid = fig.subplots(rows, cols, sharex=share in ("both", "x"), sharey=share == "both", squeeze=False).ravel()
    for ax in grid[n:]:
        ax.set_visible(False)
    return fig, list(grid[:max(n, 1)])


def png_bytes(fig: Figure, dpi: int = 100) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()


def profiles_of(frame: pd.DataFrame) -> list[str]:
    """Every profile in colour order: the categories of a Categorical column, else as they appear."""
    column = frame["profile"]
    if isinstance(column.dtype, pd.CategoricalDtype):
        return [str(c) for c in column.cat.categories]
    return [str(p) for p in dict.fromkeys(column)]


def _colour(i: int) -> str:
    return f"C{i % 10}"


def _series(frame: pd.DataFrame):
    """(colour index, label, rows) for each profile present, in colour order."""
    labels = frame["profile"].astype(str)
    for i, label in enumerate(profiles_of(frame)):
        group = frame[labels == label]
        if len(group):
            yield i, label, group


def _dodged(frame: pd.DataFrame, span: float):
    """``_series`` placed side by side: (label, group, colour, x offset, width), the profiles present
    sharing ``span`` around each x position."""
    present = list(_series(frame))
    width = span / max(len(present), 1)
    for j, (i, label, group) in enumerate(present):
        yield label, group, _colour(i), (j - (len(present) - 1) / 2) * width, width


def _percent_axis(ax, axis: str = "y"):
    (ax.yaxis if axis == "y" else ax.xaxis).set_major_formatter(PercentFormatter(1.0, decimals=0))


def _finish(ax, title: str, xlabel: str, ylabel: str, legend: bool = True):
    ax.set_title(title, fontsize="medium")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    if legend and ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize="small")
    return ax


def _panel_labels(axes, title: str, xlabel: str, ylabel: str):
    fig = axes[0].figure
    fig.suptitle(title, fontsize="medium")
    fig.supxlabel(xlabel, fontsize="small")
    fig.supylabel(ylabel, fontsize="small")
    for ax in axes:
        ax.grid(alpha=0.3)
    return axes


def _empty(ax, title: str, why: str):
    ax.text(0.5, 0.5, why, ha="center", va="center", transform=ax.transAxes)
    ax.set_title(title, fontsize="medium")
    ax.set_xticks([])
    ax.set_yticks([])
    return ax


def _interval(group: pd.DataFrame, y: np.ndarray) -> list[np.ndarray]:
    """Error bar lengths below and above `y`; an interval can miss its estimate by rounding (a share
    of 0 or 1), so never negative, and none where the interval is unknown."""
    low = y - group["ci_low"].to_numpy(dtype=float)
    high = group["ci_high"].to_numpy(dtype=float) - y
    return [np.clip(np.nan_to_num(low), 0, None), np.clip(np.nan_to_num(high, posinf=0), 0, None)]


def _errorbars(ax, x, group, color, label, offset=0.0, scale=1.0, filled=True, horizontal=False):
    y = group["estimate"].to_numpy(dtype=float)
    bars = [b * scale for b in _interval(group, y)]
    pos = np.asarray(x, dtype=float) + offset
    face = color if filled else "white"
    if horizontal:
        ax.errorbar(y * scale, pos, xerr=bars, fmt="o", color=color, mfc=face, capsize=3, label=label)
    else:
        ax.errorbar(pos, y * scale, yerr=bars, fmt="o", color=color, mfc=face, capsize=3, label=label, ms=5)


def trimmed_end(x: np.ndarray, cumulative: np.ndarray, quantile: float = TRIM_QUANTILE) -> float:
    """The first x where a cumulative share reaches `quantile` of its final value."""
    if x.size == 0:
        return 1.0
    final = cumulative[-1]
    reached = np.nonzero(cumulative >= quantile * final)[0]
    return float(x[reached[0]] if reached.size else x[-1])


# ---------------------------------------------------------------------------------------------
# opening


def opening_cdf(axes, curve: pd.DataFrame):
    """Small multiples of P(opened by round k) with its 95% band, one a profile, the other profiles
    in grey and the baseline (the first profile) dashed; x ends where 99% of openings are made."""
    title = "Share of player-hands opened by round k (95% Wilson band)"
    if curve.empty:
        _empty(axes[0], title, "no openings recorded")
        return axes
    series = list(_series(curve))
    end = max(trimmed_end(g["round"].to_numpy(), g["estimate"].to_numpy()) for _, _, g in series)
    steps = {}
    for i, label, group in series:
        x = np.concatenate([[0], group["round"].to_numpy(dtype=float)])
        steps[label] = (x, np.concatenate([[0], group["estimate"]]), np.concatenate([[0], group["ci_low"]]),
                        np.concatenate([[0], group["ci_high"]]), i)
    baseline = series[0][1]
    for ax, (i, label, _) in zip(axes, series):
        for other, (x, y, *_rest) in steps.items():
            if other != label:
                dashed = other == baseline
                ax.step(x, y, where="post", color=BASELINE_GREY if dashed else OTHERS_GREY,
                        linestyle="--" if dashed else "-", linewidth=1.0, zorder=1)
        x, y, low, high, colour = steps[label]
        ax.fill_between(x, low, high, step="post", color=_colour(colour), alpha=BAND_ALPHA, linewidth=0)
        ax.step(x, y, where="post", color=_colour(colour), linewidth=1.8, zorder=3)
        ax.set_title(label, fontsize="small", color=_colour(colour))
    axes[0].set_xlim(0, end + 0.5)
    axes[0].set_ylim(0, 1)
    _percent_axis(axes[0])
    axes[0].xaxis.set_major_locator(MaxNLocator(integer=True))
    if len(series) > 1:
        axes[0].legend(handles=[Line2D([], [], color=BASELINE_GREY, linestyle="--", label=f"{baseline} (baseline)"),
                                Line2D([], [], color=OTHERS_GREY, label="other profiles")],
                       fontsize="x-small", loc="lower right")
    return _panel_labels(axes, title, "the player's turn in the hand, k", "opened by turn k")


# ---------------------------------------------------------------------------------------------
# Kalooki


def kalooki_frequency(ax, frame: pd.DataFrame):
    """Kalookis per 1,000 non-void hands per profile, a dot with its Wilson 95% interval, on an axis
    that starts at 0 (metric 'kalooki_per_hand')."""
    title = "Kalookis per 1,000 hands (95% Wilson intervals)"
    rows = frame[frame["metric"] == "kalooki_per_hand"]
    if "bot" in rows:
        rows = rows[rows["bot"].astype(str) == "all"]
    if rows.empty:
        return _empty(ax, title, "no hands")
    labels = []
    for j, (i, label, group) in enumerate(_series(rows)):
        _errorbars(ax, [j], group, _colour(i), None, scale=1000, horizontal=True)
        est, high = group["estimate"].iloc[0], group["ci_high"].iloc[0]
        if pd.notna(est):
            ax.annotate(f"{est * 1000:.1f}", (np.nan_to_num(high, nan=est) * 1000, j), xytext=(6, 0),
                        textcoords="offset points", va="center", fontsize="small")
        labels.append(f"{label}\n{int(group['n'].iloc[0]):,} hands")
    ax.set_yticks(range(len(labels)), labels, fontsize="small")
    ax.set_ylim(len(labels) - 0.5, -0.5)
    right = np.nanmax(rows["ci_high"].to_numpy(dtype=float)) * 1000 if rows["ci_high"].notna().any() else 1.0
    ax.set_xlim(0, max(right * 1.2, 1e-3))
    return _finish(ax, title, "Kalookis per 1,000 non-void hands", "", legend=False)


def skill_measure(ax, frame: pd.DataFrame):
    """One skill measure per profile (``analysis.skill``'s measures rows: profile, estimate, ci_low,
    ci_high), a dot with its 95% bootstrap interval on a 0-100% axis; attrs ``title`` and ``xlabel``."""
    title = frame.attrs.get("title", "")
    if frame.empty:
        return _empty(ax, title, "no skill study")
    labels = []
    for j, (i, label, group) in enumerate(_series(frame)):
        _errorbars(ax, [j], group, _colour(i), None, horizontal=True)
        est, high = group["estimate"].iloc[0], group["ci_high"].iloc[0]
        if pd.notna(est):
            ax.annotate(f"{est:.0%}", (np.nan_to_num(high, nan=est), j), xytext=(6, 0), textcoords="offset points",
                        va="center", fontsize="small")
        labels.append(label)
    ax.set_yticks(range(len(labels)), labels, fontsize="small")
    ax.set_ylim(len(labels) - 0.5, -0.5)
    ax.set_xlim(0, 1)
    _percent_axis(ax, "x")
    return _finish(ax, title, frame.attrs.get("xlabel", ""), "", legend=False)


# ---------------------------------------------------------------------------------------------
# elimination


def survival(ax, curve: pd.DataFrame):
    """Kaplan-Meier P(no elimination yet) by hands played, with the 95% band; profiles without a
    single elimination are left out and named; x ends where 99% of the shown games have had one."""
    title = "Games with nobody eliminated yet, by hands played (Kaplan-Meier)"
    if curve.empty:
        return _empty(ax, title, "no games")
    shown, left_out, end = [], [], 0.0
    for i, label, group in _series(curve):
        if group["events"].sum() == 0:
            left_out.append(label)
            continue
        shown.append((i, label, group))
        x = group["time"].to_numpy(dtype=float)
        end = max(end, trimmed_end(x, 1 - group["survival"].to_numpy(dtype=float)))
    if not shown:
        return _empty(ax, title, "no profile had an elimination")
    for i, label, group in shown:
        x = group["time"].to_numpy(dtype=float)
        ax.fill_between(x, group["ci_low"].fillna(group["survival"]), group["ci_high"].fillna(group["survival"]),
                        step="post", color=_colour(i), alpha=BAND_ALPHA, linewidth=0)
        ax.step(x, group["survival"], where="post", color=_colour(i), label=label, linewidth=1.6)
    ax.set_xlim(0, end + 1)
    ax.set_ylim(0, 1.02)
    _percent_axis(ax)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    if left_out:
        ax.text(0.99, 0.97, "not shown (no elimination):\n" + ", ".join(left_out), transform=ax.transAxes,
                ha="right", va="top", fontsize="x-small", color="#555")
    _finish(ax, title, "hands played in the game", "games with no elimination yet")
    ax.legend(fontsize="small", loc="lower left")
    return ax


def by_group(axes, frame: pd.DataFrame, ylabel: str, percent: bool, reference: float | None):
    """Panels 'by seat' and 'by bot' of an estimate per group with 95% intervals, profiles side by
    side; `frame` has by, group, profile, estimate, ci_low, ci_high."""
    kinds = [k for k in ("seat", "bot") if k in set(frame["by"])]
    for ax, by in zip(axes, kinds):
        rows = frame[frame["by"] == by]
        groups = list(dict.fromkeys(rows.sort_values(["order", "group"], kind="stable")["group"].astype(str)
                                    if "order" in rows else sorted(rows["group"].astype(str))))
        position = {g: j for j, g in enumerate(groups)}
        for label, group, colour, offset, _ in _dodged(rows, 0.7):
            _errorbars(ax, [position[g] for g in group["group"].astype(str)], group, colour, label, offset)
        ax.set_xticks(range(len(groups)), [_tick(g) for g in groups], fontsize="small")
        ax.set_xlim(-0.6, len(groups) - 0.4)
        ax.set_title(f"by {'order of play in the first deal' if by == 'seat' else 'bot'}", fontsize="small")
        if reference is not None:
            ax.axhline(reference, color="grey", linewidth=1)
        if percent:
            _percent_axis(ax)
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
    if kinds:
        axes[0].legend(fontsize="x-small")
    return axes


def _tick(group: str) -> str:
    """A place by order of play as a short tick label: '1st to play' -> '1st', 'dealer (plays last)' ->
    'dealer'; other groups (bots) as they are."""
    return group.replace(" to play", "").replace(" (plays last)", "")


def eliminated_by_group(axes, frame: pd.DataFrame):
    """Share of player-games with an elimination, by seat and by bot (findings.elimination_by_group)."""
    if frame.empty:
        _empty(axes[0], "Who is eliminated", "no eliminations")
        return axes
    by_group(axes, frame, "player-games with an elimination", True, None)
    axes[0].figure.suptitle("Who is eliminated (95% Wilson intervals)", fontsize="medium")
    return axes


def payments_by_group(axes, frame: pd.DataFrame):
    """Mean net payment per game by seat and by bot, t 95% intervals, 0 marked (metrics.net_payment)."""
    if frame.empty:
        _empty(axes[0], "Who wins money", "no money changes hands")
        return axes
    frame = frame.assign(by=np.where(frame["by"] == "bot", "bot", "seat"))
    by_group(axes, frame, "mean net payment per game (units)", False, 0.0)
    axes[0].figure.suptitle("Who wins money: mean net payment per game (95% t intervals)", fontsize="medium")
    return axes


# ---------------------------------------------------------------------------------------------
# game length, seats, jokers


def hands_per_game(axes, counts: pd.DataFrame):
    """Small multiples of the share of games by hands played, one a profile, with the mean marked;
    x ends where 99% of every profile's games have ended.  Draw it on panels sharing x only: one
    profile's spike (every game one hand) must not flatten the others."""
    title = "Hands per game (share of games)"
    if counts.empty:
        _empty(axes[0], title, "no games")
        return axes
    series = list(_series(counts))
    end = max(trimmed_end(g["hands_played"].to_numpy(dtype=float), g["share"].cumsum().to_numpy())
              for _, _, g in series)
    for ax, (i, label, group) in zip(axes, series):
        x = group["hands_played"].to_numpy(dtype=float)
        ax.bar(x, group["share"], width=0.85, color=_colour(i))
        mean = float((x * group["games"]).sum() / group["games"].sum())
        ax.axvline(mean, color="black", linewidth=1, linestyle=":")
        ax.text(0.97, 0.93, f"mean {mean:.1f}\n{int(group['games'].sum()):,} games", transform=ax.transAxes,
                ha="right", va="top", fontsize="x-small")
        ax.set_title(label, fontsize="small", color=_colour(i))
    axes[0].set_xlim(0.4, end + 0.6)
    axes[0].xaxis.set_major_locator(MaxNLocator(nbins=5, integer=True))
    for ax in axes:
        _percent_axis(ax)
    return _panel_labels(axes, title, "hands played in the game (re-deals not counted)", "games")


def seat_advantage(ax, rates: pd.DataFrame):
    """Hand win rate by order of play (seat_from_dealer: 1st to play, ..., the dealer) minus the fair
    share 1/n, in percentage points, with 95% intervals, profiles side by side; `rates` is
    metrics.seat_win_rates at one level and one table size per profile."""
    title = "Hand win rate minus the fair share, by order of play"
    if rates.empty:
        return _empty(ax, title, "no played hands")
    shifted = rates.assign(estimate=rates["estimate"] - rates["expected"], ci_low=rates["ci_low"] - rates["expected"],
                           ci_high=rates["ci_high"] - rates["expected"])
    for label, group, colour, offset, _ in _dodged(shifted, 0.7):
        _errorbars(ax, group["seat_from_dealer"], group, colour, label, offset, scale=100)
    ax.axhline(0, color="grey", linewidth=1)
    places = sorted({int(k) for k in rates["seat_from_dealer"]})
    sizes = set(rates["n_players"].astype(int)) if "n_players" in rates else {max(places)}
    names = [_tick(play_order_label(k, next(iter(sizes)))) if len(sizes) == 1 else
             ("/".join(sorted({_tick(play_order_label(k, n)) for n in sizes if k <= n})))
             for k in places]
    ax.set_xticks(places, names)
    _finish(ax, title, "order of play in the hand (the dealer plays last)", "win rate − fair share (pp)")
    ax.legend(fontsize="x-small", ncols=2)
    return ax


def win_by_jokers(ax, frame: pd.DataFrame):
    """P(win the hand | jokers dealt) with 95% intervals; `frame` is metrics.win_by_jokers."""
    title = "Hand win rate by jokers dealt (95% Wilson intervals)"
    if frame.empty:
        return _empty(ax, title, "no played hands")
    for label, group, colour, offset, _ in _dodged(frame, 0.6):
        _errorbars(ax, group["dealt_jokers"], group, colour, label, offset)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    _percent_axis(ax)
    _finish(ax, title, "jokers in the dealt hand", "hands won")
    ax.legend(fontsize="x-small", ncols=2)
    return ax


# ---------------------------------------------------------------------------------------------
# differences from the baseline


VERDICT_MARKERS = {  # verdict -> (marker, filled, legend text)
    HIGHER: ("o", True, "filled circle: clear difference (past the threshold)"),
    LOWER: ("o", True, None),
    EQUIVALENT: ("s", False, "open square: practically equivalent (inside it, TOST)"),
    NOT_ESTABLISHED: ("X", True, "cross: not established (the data cannot tell)"),
}


def differences(ax, frame: pd.DataFrame):
    """Each profile's difference from the baseline on every judged metric, in units of the metric's
    practical threshold, with its 95% interval; the grey band is plus or minus one threshold.  The
    marker is the verdict (VERDICT_MARKERS): a filled circle a clear difference, an open square
    practically equivalent, a cross not established.  `frame` has label, profile, difference,
    diff_ci_low, diff_ci_high, threshold, verdict; points past +-DIFFERENCE_LIMIT sit on the edge.
    ``frame.attrs["title"]`` replaces the title (compare: "B - A")."""
    title = frame.attrs.get("title", "Difference from the baseline, in practical thresholds (95% intervals)")
    rows = frame[frame["threshold"] > 0].dropna(subset=["difference"])
    if rows.empty:
        return _empty(ax, title, "no differences to show (one profile, or nothing measurable)")
    labels = list(dict.fromkeys(rows.sort_values("order", kind="stable")["label"] if "order" in rows else rows["label"]))
    position = {m: j for j, m in enumerate(labels)}
    ax.axvspan(-1, 1, color="#eeeeee", zorder=0)
    ax.axvline(0, color="grey", linewidth=1)
    lim = DIFFERENCE_LIMIT
    handles = []
    beyond = {}  # (metric row, side) -> points already placed past the edge, so each gets its own place
    for label, group, colour, offset, _ in _dodged(rows, 0.75):
        y = np.array([position[m] for m in group["label"]], dtype=float) + offset
        t = group["threshold"].to_numpy(dtype=float)
        x = group["difference"].to_numpy(dtype=float) / t
        low = np.clip(group["diff_ci_low"].to_numpy(dtype=float) / t, -lim, lim)
        high = np.clip(group["diff_ci_high"].to_numpy(dtype=float) / t, -lim, lim)
        ax.hlines(y, np.nan_to_num(low, nan=x), np.nan_to_num(high, nan=x), color=colour, linewidth=1.2)
        verdict = group["verdict"].astype(str).to_numpy()
        far = np.abs(x) > lim
        for name, (marker, filled, _) in VERDICT_MARKERS.items():
            mine = (verdict == name) & ~far
            if mine.any():
                ax.scatter(x[mine], y[mine], marker=marker, s=26 if marker == "o" else 30, zorder=3,
                           facecolor=colour if filled else "white", edgecolor=colour, linewidth=1.2)
        for i in np.flatnonzero(far):  # past the edge: a triangle pointing out, staggered in the margin
            side = 1.0 if x[i] > 0 else -1.0
            key = (round(float(y[i] - offset)), side)
            j = beyond.get(key, 0)
            beyond[key] = j + 1
            filled = VERDICT_MARKERS.get(verdict[i], ("o", True, None))[1]
            ax.scatter([side * (lim + BEYOND_STEP * (j + 0.6))], [y[i]], marker=">" if side > 0 else "<", s=34,
                       zorder=4, facecolor=colour if filled else "white", edgecolor=colour, linewidth=1.2)
        handles.append(Line2D([], [], marker="o", linestyle="", color=colour, label=label))
    ax.set_yticks(range(len(labels)), labels, fontsize="small")
    ax.set_ylim(len(labels) - 0.5, -0.5)
    most = max(beyond.values(), default=0)
    margin = BEYOND_STEP * (most + 0.2) if most else 0.3
    ax.set_xlim(-lim - margin, lim + margin)
    if most:
        for side in (-1, 1):
            ax.axvline(side * lim, color="grey", linewidth=0.8, linestyle=":")
            ax.axvspan(side * lim, side * (lim + margin), color="#f6f6f6", zorder=0)
    ticks = [t for t in ax.get_xticks() if abs(t) <= lim]
    ax.set_xticks(ticks)
    _finish(ax, title, "difference ÷ practical threshold (grey band: within one threshold; "
                       f"beyond ±{lim:g}: a triangle in the margin, one place per profile, not to scale)", "",
            legend=False)
    for marker, filled, text in VERDICT_MARKERS.values():
        if text:
            handles.append(Line2D([], [], marker=marker, linestyle="", color="grey",
                                  mfc="grey" if filled else "white", label=text))
    if most:
        handles.append(Line2D([], [], marker=">", linestyle="", color="grey", label=f"triangle: beyond ±{lim:g}"))
    handles.append(Line2D([], [], linestyle="", label="verdicts Holm-corrected: an interval past\n"
                                                      "the threshold can still be not established"))
    ax.legend(handles=handles, fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return ax


# ---------------------------------------------------------------------------------------------
# the strength frontier


def frontier(axes, frame: pd.DataFrame):
    """Small multiples, one a metric: each profile's estimate at each rung of the bot ladder (x, weakest
    first) with its 95% interval, the profiles dodged and joined by a line.  `frame` has label, rung,
    profile, estimate, ci_low, ci_high and scale (the metric's display scale: 100 for a share in %);
    ``frame.attrs["limits"]`` ({label: (low, high)} in display units, analysis.frontier.shared_limits)
    sets a panel's scale, and an interval running past it ends at the edge with a triangle."""
    title = "Headline metrics by rung of the bot ladder (every seat the rung's bot; 95% intervals)"
    labels = list(dict.fromkeys(frame["label"])) if len(frame) else []
    if not labels:
        _empty(axes[0], title, "no metric to show")
        return axes
    rungs = list(dict.fromkeys(frame["rung"]))
    x_of = {r: i for i, r in enumerate(rungs)}
    handles = {}
    limits = frame.attrs.get("limits", {})
    for ax, label in zip(axes, labels):
        mine = frame[frame["label"] == label]
        lo, hi = limits.get(label, (np.nan, np.nan))
        pad = 0.06 * (hi - lo) if np.isfinite(lo) and np.isfinite(hi) and hi > lo else np.nan
        for name, group, colour, offset, _ in _dodged(mine, 0.5):
            x = np.array([x_of[r] for r in group["rung"]], dtype=float)
            scale = float(group["scale"].iloc[0])
            ax.plot(x + offset, group["estimate"].to_numpy(dtype=float) * scale, color=colour, linewidth=0.8,
                    alpha=0.6)
            if np.isfinite(pad):  # the interval ends at the panel's edge, a triangle showing it goes on
                top, bottom = hi + pad, lo - pad
                group = group.assign(ci_low=np.maximum(group["ci_low"], bottom / scale),
                                     ci_high=np.minimum(group["ci_high"], top / scale))
                up = (mine.loc[group.index, "ci_high"].to_numpy(dtype=float) * scale) > top
                down = (mine.loc[group.index, "ci_low"].to_numpy(dtype=float) * scale) < bottom
                ax.scatter(x[up] + offset, np.full(up.sum(), top), marker="^", color=colour, s=22, zorder=4,
                           clip_on=False)
                ax.scatter(x[down] + offset, np.full(down.sum(), bottom), marker="v", color=colour, s=22, zorder=4,
                           clip_on=False)
            _errorbars(ax, x, group, colour, None, offset=offset, scale=scale)
            handles.setdefault(name, Line2D([], [], marker="o", color=colour, label=name))
        if np.isfinite(pad):
            ax.set_ylim(lo - pad, hi + pad)
        ax.set_title(label, fontsize="x-small")
        ax.set_xticks(range(len(rungs)), rungs, fontsize="x-small")
        ax.tick_params(axis="x", labelbottom=True)  # every panel names its rungs, not only the bottom row
        ax.tick_params(axis="y", labelsize="x-small")
    _panel_labels(axes, title, "", "")  # the rungs are the x ticks; the legend takes the bottom
    axes[0].figure.legend(handles=list(handles.values()), loc="outside lower center", ncols=min(len(handles), 6),
                          fontsize="small", frameon=False)
    return axes
