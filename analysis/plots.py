"""Plot helpers: each takes a matplotlib Axes and a tidy metric table and returns the Axes.

Every helper draws one series per value of the table's ``profile`` column, so the same helper makes
a report's per-profile figure and a comparison's overlay (compare relabels profiles "A: ...",
"B: ...").  Figures are made with :func:`new_figure` on the Agg canvas, never through pyplot, so
nothing depends on a display or on global backend state.
"""
from __future__ import annotations

import io

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator, PercentFormatter

BAND_ALPHA = 0.2


def new_figure(width: float = 7.0, height: float = 4.0) -> tuple[Figure, object]:
    """A figure on the Agg canvas with one Axes."""
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig, fig.add_subplot()


def png_bytes(fig: Figure, dpi: int = 100) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()


def _series(frame: pd.DataFrame):
    for i, (label, group) in enumerate(frame.groupby("profile", sort=False)):
        yield i, str(label), group, f"C{i % 10}"


def _dodged(frame: pd.DataFrame, span: float):
    """``_series`` placed side by side: (label, group, colour, x offset, width), the profiles sharing
    ``span`` around each x position."""
    n = len(dict.fromkeys(frame["profile"]))
    width = span / max(n, 1)
    for i, label, group, color in _series(frame):
        yield label, group, color, (i - (n - 1) / 2) * width, width


def _percent_axis(ax, axis: str = "y"):
    (ax.yaxis if axis == "y" else ax.xaxis).set_major_formatter(PercentFormatter(1.0))


def _finish(ax, title: str, xlabel: str, ylabel: str, legend: bool = True):
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    if legend and ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize="small")
    return ax


def _empty(ax, title: str, why: str):
    ax.text(0.5, 0.5, why, ha="center", va="center", transform=ax.transAxes)
    ax.set_title(title)
    ax.set_xticks([])
    ax.set_yticks([])
    return ax


def opening_cdf(ax, curve: pd.DataFrame):
    """Cumulative P(opened by round k) with its 95% band; `curve` is metrics.opened_by_round."""
    title = "Share of player-hands opened by round k"
    if curve.empty:
        return _empty(ax, title, "no openings recorded")
    for _, label, group, color in _series(curve):
        x = np.concatenate([[0], group["round"].to_numpy()])
        y = np.concatenate([[0], group["estimate"].to_numpy()])
        ax.step(x, y, where="post", color=color, label=label)
        ax.fill_between(x, np.concatenate([[0], group["ci_low"]]), np.concatenate([[0], group["ci_high"]]),
                        step="post", color=color, alpha=BAND_ALPHA, linewidth=0)
    _percent_axis(ax)
    ax.set_ylim(0, 1)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    return _finish(ax, title, "player's turn in the hand, k (rounds)", "opened by round k (% of player-hands)")


def _errorbars(ax, x, group, color, label, width=0.0):
    y = group["estimate"].to_numpy(dtype=float)
    low = y - group["ci_low"].to_numpy(dtype=float)
    high = group["ci_high"].to_numpy(dtype=float) - y
    # an interval can miss its estimate by rounding (a share of 0 or 1): never draw a negative bar
    low, high = np.clip(np.nan_to_num(low), 0, None), np.clip(np.nan_to_num(high), 0, None)
    ax.errorbar(np.asarray(x, dtype=float) + width, y, yerr=[low, high], fmt="o", color=color, capsize=4,
                label=label)


def kalooki_frequency(ax, frame: pd.DataFrame):
    """Kalookis per non-void hand per profile with Wilson 95% intervals (metric 'kalooki_per_hand')."""
    title = "Kalooki frequency (95% Wilson intervals)"
    rows = frame[frame["metric"] == "kalooki_per_hand"].reset_index(drop=True)
    if rows.empty:
        return _empty(ax, title, "no hands")
    for i, label, group, color in _series(rows):
        _errorbars(ax, [i], group, color, f"{label} (n = {int(group['n'].iloc[0]):,} hands)")
    ax.set_xticks(range(len(rows)), rows["profile"].astype(str), rotation=15)
    ax.set_xlim(-0.5, len(rows) - 0.5)
    _percent_axis(ax)
    return _finish(ax, title, "profile", "Kalookis per hand (%)")


def survival(ax, curve: pd.DataFrame):
    """Kaplan-Meier P(no elimination yet) by hands played; `curve` is metrics.first_elimination_survival."""
    title = "Hands until a game's first elimination (Kaplan-Meier)"
    if curve.empty:
        return _empty(ax, title, "no games")
    for _, label, group, color in _series(curve):
        x = group["time"].to_numpy(dtype=float)
        ax.step(x, group["survival"], where="post", color=color, label=label)
        ax.fill_between(x, group["ci_low"].fillna(group["survival"]), group["ci_high"].fillna(group["survival"]),
                        step="post", color=color, alpha=BAND_ALPHA, linewidth=0)
    _percent_axis(ax)
    ax.set_ylim(0, 1.02)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    return _finish(ax, title, "hands played in the game", "games with no elimination yet (%)")


def seat_advantage(ax, rates: pd.DataFrame):
    """Hand win rate by seat_from_dealer with 95% intervals and the fair share 1/n as a dashed line;
    `rates` is metrics.seat_win_rates restricted to one level and one table size per profile."""
    title = "Hand win rate by seat (1 = left of the dealer, n = the dealer)"
    if rates.empty:
        return _empty(ax, title, "no played hands")
    for label, group, color, offset, _ in _dodged(rates, 0.6):
        _errorbars(ax, group["seat_from_dealer"], group, color, label, offset)
    for n in sorted(rates["n_players"].unique()):
        ax.axhline(1 / n, color="grey", linestyle="--", linewidth=1, label=f"fair share 1/{n}")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    _percent_axis(ax)
    return _finish(ax, title, "seat_from_dealer", "hands won (% of hands played in the seat)")


def hands_per_game(ax, counts: pd.DataFrame):
    """Distribution of hands per game (share of games); `counts` is metrics.hands_per_game_counts."""
    title = "Hands per game"
    if counts.empty:
        return _empty(ax, title, "no games")
    for label, group, color, offset, width in _dodged(counts, 0.8):
        ax.bar(group["hands_played"].to_numpy(dtype=float) + offset, group["share"], width=width, color=color,
               label=f"{label} ({int(group['games'].sum()):,} games)")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    _percent_axis(ax)
    return _finish(ax, title, "hands played in the game (re-deals not counted)", "games (%)")


def win_by_jokers(ax, frame: pd.DataFrame):
    """P(win the hand | jokers dealt) with 95% intervals; `frame` is metrics.win_by_jokers."""
    title = "Hand win rate by jokers dealt (95% Wilson intervals)"
    if frame.empty:
        return _empty(ax, title, "no played hands")
    for label, group, color, offset, _ in _dodged(frame, 0.4):
        _errorbars(ax, group["dealt_jokers"], group, color, label, offset)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    _percent_axis(ax)
    return _finish(ax, title, "jokers in the dealt hand", "hands won (%)")
