"""Sweeps: key metrics of one profile against one rule parameter, from one run per grid value."""
from __future__ import annotations

import pandas as pd

from . import metrics
from .document import Document

KEY_METRICS = [
    ("p_can_open_at_deal", "P(can open at the deal)"),
    ("mean_open_round", "mean turn of the opening"),
    ("share_never_opened", "share of player-hands never opened"),
    ("kalooki_per_hand", "Kalookis per hand"),
    ("rounds_per_hand", "rounds per hand"),
    ("hands_per_game", "hands per game"),
    ("share_players_eliminated_at_least_once", "share of players eliminated at least once per game"),
    ("dealer_hand_win_rate", "dealer's hand win rate"),
]


def sweep_table(runs: dict) -> pd.DataFrame:
    """``runs`` maps a parameter value to a run directory; one row per (value, key metric)."""
    rows = []
    for value, run_dir in runs.items():
        s = metrics.summary(run_dir)
        s = s[s["metric"].isin([m for m, _ in KEY_METRICS])].copy()
        s.insert(0, "value", value)
        rows.append(s)
    return pd.concat(rows, ignore_index=True) if rows else pd.DataFrame()


def plot_metric(ax, frame: pd.DataFrame, metric: str, label: str, param: str):
    d = frame[frame["metric"] == metric].sort_values("value")
    x = d["value"].astype(float).to_numpy()
    y = d["estimate"].astype(float).to_numpy()
    lo = (y - d["ci_low"].astype(float)).clip(lower=0).to_numpy()
    hi = (d["ci_high"].astype(float) - y).clip(lower=0).to_numpy()
    ax.errorbar(x, y, yerr=[lo, hi], marker="o", capsize=3)
    ax.set_title(label)
    ax.set_xlabel(param)
    ax.set_ylabel("estimate (95% interval)")
    ax.grid(alpha=0.3)
    return ax


def write_sweep(frame: pd.DataFrame, profile: str, param: str, out_dir, provenance: list[str]) -> None:
    doc = Document(f"Sweep of {param} in {profile}")
    doc.text(f"Each point is a separate run of profile {profile} with {param} set to the value on the x axis; "
             "error bars are 95% intervals clustered by game (Wilson at the effective n for shares, t for means).")
    doc.bullets(provenance)
    for metric, label in KEY_METRICS:
        if (frame["metric"] == metric).any():
            doc.figure(f"sweep-{metric}", lambda ax, d, m=metric, l=label: plot_metric(ax, d, m, l, param), frame,
                       caption=f"{label} against {param}", width=6.0, height=3.6)
    doc.table(frame[["value", "metric", "n", "estimate", "ci_low", "ci_high", "method"]], caption="All points")
    doc.write(out_dir)
