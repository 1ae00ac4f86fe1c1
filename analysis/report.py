"""`write_report`: a run's balance report as one self-contained HTML file and Markdown with PNGs.

The report refuses a run that fails verification unless asked for a partial report, which then
says so at the top and lists the problems.  Sections follow the metric groups of
:mod:`analysis.metrics`; provenance comes from the manifest.
"""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from sim.errors import UserError

from . import load, metrics, plots
from .document import Document

PROPORTION_COLUMNS = ["metric", "profile", "bot", "n", "k", "estimate", "ci_low", "ci_high", "method"]
MEAN_COLUMNS = ["metric", "profile", "bot", "n", "estimate", "sd", "ci_low", "ci_high", "method"]
SUMMARY_COLUMNS = ["profile", "metric", "description", "n", "estimate", "ci_low", "ci_high", "p_value", "method"]
METHOD_NOTES = [
    "Every estimate is a ratio of sums over games, with an interval clustered by game (cluster-robust "
    "linearisation variance from per-game sums): proportions a Wilson 95% interval at the effective n "
    "(n / design effect), means and differences a t 95% interval on games - 1 degrees of freedom. The "
    "summary states each metric's unit, denominator and interval method.",
    "A hand is one deal, (game_id, hand_no, redeal_no); a played hand is neither void nor stalled and has "
    "exactly one winner. Every metric of play counts played hands; P(can open at deal), reshuffles and the "
    "void and stalled shares count every deal.",
    "Seat fairness per table size: chi-square goodness of fit of the winner's seat against 1/n "
    "(scipy.stats.chisquare); the dealer's rate against 1/n by a cluster-robust t-test; the dealer's edge "
    "over the other seats and first player minus dealer as effect sizes. The full table is the headline.",
    "Buy-in rate: buy-ins over the eliminations where the rules allowed one (fewer than max_buy_ins so far "
    "and two players still in). Elimination metrics are not applicable where game_end is not elimination.",
    "Survival: Kaplan-Meier, games without an elimination censored at their hands_played; Greenwood "
    "standard error, pointwise log-log 95% band.",
]


def failed_verification(run_dir, problems: list[str]) -> UserError:
    listed = "\n  - ".join(problems)
    return UserError(f"run {run_dir} failed verification with {len(problems)} problem(s):\n  - {listed}\n"
                     "rerun the missing shards, or pass --allow-partial for a report marked partial")


def load_verified(run_dir, allow_partial: bool, profiles=None) -> metrics.RunData:
    """The run's data, refusing a run with problems unless allow_partial (unreadable files left out)."""
    check = load.check_run(run_dir)
    if check.problems and not allow_partial:
        raise failed_verification(run_dir, check.problems)
    return metrics.load_run(run_dir, profiles=profiles, exclude=check.unreadable, problems=check.problems)


def partial_warning(doc: Document, problems: list[str], run_label: str = "this run") -> None:
    doc.warning("PARTIAL REPORT: the run failed verification",
                f"{run_label} has {len(problems)} problem(s). Files that could not be read were left out; "
                "every figure and table below describes only what remains and may be biased.", problems)


def provenance(doc: Document, manifest: dict, heading: str = "Provenance") -> None:
    doc.heading(heading)
    facts = {k: manifest.get(k) for k in ("run_id", "created", "command", "seed", "engine_version",
                                           "schema_version", "complete")}
    doc.table(pd.DataFrame({"field": list(facts), "value": [str(v) for v in facts.values()]}))
    profiles = manifest.get("profiles", {})
    doc.table(pd.DataFrame([{"profile": name, "rules_hash": info.get("rules_hash"), "games": info.get("games"),
                             "n_players": info.get("n_players"), "bots": ", ".join(map(str, info.get("bots", []))),
                             "shards_planned": info.get("shards_planned")} for name, info in profiles.items()]),
              "Profiles")
    params = {name: info.get("params", {}) for name, info in profiles.items()}
    keys = sorted({k for p in params.values() for k in p})
    if keys:
        doc.table(pd.DataFrame({"parameter": keys, **{name: [json.dumps(p.get(k)) for k in keys]
                                                      for name, p in params.items()}}), "Rule parameters")
    versions = manifest.get("package_versions", {})
    if versions:
        doc.table(pd.DataFrame({"package": list(versions), "version": list(versions.values())}),
                  "Package versions")
    if manifest.get("config"):
        doc.text("Run configuration:")
        doc.code(json.dumps(manifest["config"], indent=2, sort_keys=True))


def seat_rates_for_plot(res: metrics.Results) -> pd.DataFrame:
    """Hand-level seat win rates at each profile's full table size (the figure shows one size)."""
    rates = res.seat_rates[res.seat_rates["level"] == "hand"]
    full = {p: metrics.full_table_size(res.run, p) for p in rates["profile"].unique()}
    return rates[rates["n_players"] == rates["profile"].map(full)]


def metric_sections(doc: Document, res: metrics.Results) -> None:
    """The six metric groups, each with tables and figures."""
    o = res.opening
    proportions = o[o["metric"].isin(["p_can_open_at_deal", "share_never_opened", "share_open_with_discard"])]
    means = o[o["metric"].isin(["mean_open_round", "mean_open_value"])]
    doc.heading("1. Opening timing")
    doc.text("Can a player open at the deal, how soon do they open, and with how much. P(can open at deal) "
             "counts every deal; the rest count played hands.")
    doc.figure("opening_cdf", plots.opening_cdf, res.opened_by_round,
               "Cumulative share of played player-hands opened by round k, 95% Wilson band.")
    doc.table(proportions, "Opening proportions", PROPORTION_COLUMNS)
    doc.table(means, "Opening round and value (openings in played hands)", MEAN_COLUMNS)
    doc.table(res.opened_by_round, "P(opened by round k); denominator: every played player-hand",
              ["profile", "round", "n", "k", "estimate", "ci_low", "ci_high"])
    doc.table(res.open_round_distribution, "Distribution of the opening round among openings",
              ["profile", "open_round", "k", "n", "estimate", "ci_low", "ci_high"])

    doc.heading("2. Kalooki frequency")
    doc.text("A Kalooki is going out by melding the whole hand in one turn with nothing melded before.")
    doc.figure("kalooki_frequency", plots.kalooki_frequency, res.kalooki, "Kalookis per non-void hand.")
    doc.table(res.kalooki, "Kalookis per hand, per player-hand and as a share of wins, by bot", PROPORTION_COLUMNS)

    doc.heading("3. Elimination")
    doc.text("Eliminations, buy-ins, and how long games run before the first elimination. With no "
             "elimination in a profile the shares are 0 with their n.")
    doc.figure("survival", plots.survival, res.survival,
               "Kaplan-Meier share of games with nobody eliminated yet; games without one are censored.")
    e = res.elimination
    doc.table(e, "Elimination and buy-ins", ["metric", "profile", "bot", "n", "k", "estimate", "ci_low", "ci_high",
                                              "method"])
    doc.table(res.survival, "Survival table", ["profile", "time", "n_at_risk", "events", "survival", "ci_low",
                                               "ci_high"])

    doc.heading("4. Game shape")
    doc.figure("hands_per_game", plots.hands_per_game, res.hands_per_game, "Share of games by hands played.")
    doc.table(res.shape, "Game shape", ["metric", "profile", "n", "k", "estimate", "ci_low", "ci_high", "method"])

    doc.heading("5. Fairness")
    doc.text("Does the seat relative to the dealer, or the bot, change the chance of winning?")
    doc.figure("seat_advantage", plots.seat_advantage, seat_rates_for_plot(res),
               "Hand win rate by seat at the full table, 95% Wilson intervals; dashed: the fair share.")
    doc.table(res.seat_tests, "Equal shares by seat (per level and table size)",
              ["profile", "level", "n_players", "n", "statistic", "df", "p_value", "test"])
    doc.table(res.dealer_edge, "Dealer's edge per table size: dealer's hand win rate minus the other seats'",
              ["profile", "n_players", "dealer_k", "dealer_n", "dealer_rate", "others_k", "others_n", "others_rate",
               "estimate", "ci_low", "ci_high", "p_value", "first_minus_dealer", "fmd_ci_low", "fmd_ci_high", "test"])
    doc.table(res.seat_rates, "Win rate by seat_from_dealer (games: the seat in the game's first deal)",
              ["profile", "level", "n_players", "seat_from_dealer", "n", "k", "estimate", "ci_low", "ci_high",
               "expected"])
    doc.table(res.bot_rates, "Win rate by bot; expected: if every seat were equally likely to win",
              ["profile", "bot", "level", "n", "k", "estimate", "ci_low", "ci_high", "expected", "share_of_wins"])
    doc.table(res.bot_tests, "Wins by bot against equal skill",
              ["profile", "level", "n", "statistic", "df", "p_value", "test"])
    doc.table(res.net_payment, "Mean net payment per game (units)",
              ["profile", "by", "group", "n", "estimate", "sd", "ci_low", "ci_high", "method"])

    doc.heading("6. Jokers")
    doc.figure("jokers", plots.win_by_jokers, res.jokers, "P(win the hand | jokers dealt), played hands.")
    doc.table(res.jokers, "P(win the hand | dealt_jokers = j)",
              ["profile", "dealt_jokers", "n", "k", "estimate", "ci_low", "ci_high", "method"])


def build_report(res: metrics.Results) -> Document:
    manifest = res.run.manifest
    doc = Document(f"Kalooki balance report: run {manifest.get('run_id')}")
    if res.run.problems:
        partial_warning(doc, res.run.problems)
    doc.text(f"Profiles: {', '.join(res.run.profiles)}. {res.run.hand_row_count:,} player-hand rows, "
             f"{res.run.game_count:,} games. Generated by `kalooki report`; do not edit by hand.")
    doc.heading("Summary")
    doc.table(res.summary, "Headline metrics with 95% intervals", SUMMARY_COLUMNS)
    metric_sections(doc, res)
    doc.heading("Methods")
    doc.bullets(METHOD_NOTES)
    provenance(doc, manifest)
    return doc


def write_report(run_dir, out_dir, allow_partial: bool = False) -> Path:
    """Verify, analyse and write out_dir/report.html, out_dir/report.md and out_dir/figures/; returns the
    HTML path.  UserError naming the problems when verification fails and allow_partial is False."""
    if Path(out_dir).resolve() == Path(run_dir).resolve():
        raise UserError(f"the report would be written into the run directory {run_dir}; choose another --out")
    res = metrics.compute(load_verified(run_dir, allow_partial))
    return build_report(res).write(out_dir)
