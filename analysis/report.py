"""`write_report`: a run's balance report as one self-contained HTML file and Markdown with PNGs.

The report refuses a run that fails verification unless asked for a partial report, which then
says so at the top and lists the problems.  Sections follow the metric groups of
:mod:`analysis.metrics`; provenance comes from the manifest.
"""
from __future__ import annotations

import html
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd

from sim.errors import UserError
from sim.words import counted

from . import findings, load, metrics, plots, skill
from . import frontier as F
from . import ladder as L
from .differences import COLUMNS, compare_results
from .document import Cell, Document, slug

PROPORTION_COLUMNS = ["metric", "profile", "bot", "n", "k", "estimate", "ci_low", "ci_high", "method"]
MEAN_COLUMNS = ["metric", "profile", "bot", "n", "estimate", "sd", "ci_low", "ci_high", "method"]
SUMMARY_COLUMNS = ["profile", "metric", "description", "n", "estimate", "ci_low", "ci_high", "p_value", "method"]
METHOD_NOTES = [
    "Every estimate is a ratio of sums over games, its interval clustered by game (cluster-robust CR1 variance "
    "from per-game sums): shares a Wilson 95% interval at n / design effect, the design effect multiplied by "
    "(t/z)^2 (t on games - 1 degrees of freedom) and at least 1 below 20 games; means a t 95% interval on games "
    "- 1 degrees of freedom, never narrower than the independent one below 20 games, cut at 0 where a mean cannot "
    "be negative; counts of events (reshuffles, buy-ins) an exact Poisson interval at the effective count, and "
    "with no event the bound 0 to 3/n (rule of three); games that all agree leave an interval of some width. In a "
    "duplicate run (a skill study's: every deal played once per rotation of the seats, the same cards to the same "
    "seats) the rotations of a deal are one cluster, and every rule above counts deals where it says games; a "
    "comparison of two duplicate runs of one seed is paired by deal. The summary states each metric's unit, "
    "denominator and interval method.",
    "A hand is one deal, (game_id, hand_no, redeal_no); a played hand is neither void nor stalled and has "
    "exactly one winner. Every metric of play counts played hands; P(can open at deal), reshuffles and the "
    "void and stalled shares count every deal.",
    "Order of play per table size (the winner's place relative to the dealer, seat_from_dealer: 1st to play, ..., "
    "the dealer): chi-square goodness of fit of the winner's place against 1/n "
    "(scipy.stats.chisquare); the dealer's rate against 1/n by a cluster-robust t-test; the dealer's edge "
    "over the other players and the 1st to play minus the dealer as effect sizes. The full table is the headline.",
    "Buy-in rate: buy-ins over the eliminations where the rules allowed one (fewer than max_buy_ins so far "
    "and two players still in). Elimination metrics are not applicable where game_end is not elimination.",
    "Survival: Kaplan-Meier, games without an elimination censored at their hands_played; Greenwood "
    "standard error, pointwise log-log 95% band; the median's interval where the band crosses 1/2, with no "
    "upper end where the last games at risk all end at once. In a duplicate run (the rotations of a deal share "
    "its cards) the standard error is clustered by deal instead: the grouped infinitesimal jackknife (each "
    "deal's games sum their influence on the curve; Lin and Wei's robust variance, as R's survfit with "
    "cluster = deal), times deals / (deals - 1); it equals Greenwood's where every deal is one game.",
    "Differences from the baseline: compare's tests (Welch's t-test of two cluster-robust estimates, or of "
    "per-game differences for a paired run) against 0, one Holm family over every tested metric of every profile "
    "(the p-values shown); each difference is then judged against its threshold (Verdicts). Where the games show "
    "no spread at all (a share of 100% on both sides), the difference's interval is the square-and-add of the two "
    "sides' own intervals (Newcombe's MOVER) rather than a t interval of no width.",
]


VERDICT_NOTES = [findings.VERDICT_NOTE, findings.ADVANTAGE_NOTE]


def partial_warning(doc: Document, problems: list[str], run_label: str = "this run") -> None:
    doc.warning("PARTIAL REPORT: the run failed verification",
                f"{run_label} has {len(problems)} problem(s). Files that could not be read were left out; "
                "every figure and table below describes only what remains and may be biased.", problems)


def rule_table(params: dict[str, dict], differing_only: bool = True) -> pd.DataFrame:
    """Rule parameters as rows, profiles as columns; the parameters that differ come first (only
    those with differing_only).  `params` maps a column name to that profile's parameters."""
    keys = sorted({k for p in params.values() for k in p})
    shown = {k: [json.dumps(p.get(k)) if k in p else "(absent)" for p in params.values()] for k in keys}
    differ = [k for k in keys if len(set(shown[k])) > 1]
    order = differ if differing_only else differ + [k for k in keys if k not in differ]
    return pd.DataFrame({"parameter": order, **{name: [shown[k][i] for k in order]
                                                for i, name in enumerate(params)}})


def provenance(doc: Document, manifest: dict, heading: str = "Provenance") -> None:
    """The run's facts, profiles, rules, packages and configuration, collapsed under `heading`."""
    doc.heading(heading)
    doc.open("details", "Run, profiles, every rule parameter, package versions and configuration")
    facts = {k: manifest.get(k) for k in ("run_id", "created", "command", "seed", "engine_version",
                                           "schema_version", "complete")}
    doc.table(pd.DataFrame({"field": list(facts), "value": [str(v) for v in facts.values()]}))
    profiles = manifest.get("profiles", {})
    doc.table(pd.DataFrame([{"profile": name, "rules_hash": info.get("rules_hash"), "games": info.get("games"),
                             "n_players": info.get("n_players"), "bots": ", ".join(map(str, info.get("bots", []))),
                             "shards_planned": info.get("shards_planned")} for name, info in profiles.items()]),
              "Profiles")
    params = {name: info.get("params", {}) for name, info in profiles.items()}
    if any(params.values()):
        doc.table(rule_table(params, differing_only=False), "Rule parameters (all)")
    versions = manifest.get("package_versions", {})
    if versions:
        doc.table(pd.DataFrame({"package": list(versions), "version": list(versions.values())}),
                  "Package versions")
    if manifest.get("config"):
        doc.text("Run configuration:")
        doc.code(json.dumps(manifest["config"], indent=2, sort_keys=True))
    doc.close("details")




def seat_rates_for_plot(res: metrics.Results) -> pd.DataFrame:
    """Hand-level win rates by order of play at each profile's full table size (the figure shows one size)."""
    rates = res.seat_rates[res.seat_rates["level"] == "hand"]
    full = {p: metrics.full_table_size(res.run, p) for p in rates["profile"].unique()}
    return rates[rates["n_players"] == rates["profile"].map(full)]


def seat_rates_named(res: metrics.Results) -> pd.DataFrame:
    """The win rates by seat_from_dealer with `position`, the place named by order of play."""
    rates = res.seat_rates
    named = [findings.play_order_label(k, n) for k, n in zip(rates["seat_from_dealer"], rates["n_players"])]
    out = rates.copy()
    out.insert(out.columns.get_loc("seat_from_dealer") + 1, "position", named)
    return out


def ordered(frame: pd.DataFrame, profiles: list[str]) -> pd.DataFrame:
    """`frame` with profile as a Categorical of every profile, so each keeps its colour in every figure."""
    return frame.assign(profile=pd.Categorical(frame["profile"].astype(str), categories=profiles))


def pick_baseline(profiles: list[str], baseline: str | None) -> str:
    if baseline is None:
        return profiles[0]
    if baseline not in profiles:
        raise UserError(f"--baseline {baseline!r} is not a profile of the run; choose one of {', '.join(profiles)}")
    return baseline


def baseline_differences(res: metrics.Results, baseline: str) -> pd.DataFrame:
    """Every other profile's headline metrics against the baseline's (compare's rows and tests, one
    Holm family over all of them; per-game differences when the run is paired and its per-game sums
    were kept); empty with compare's columns for a one-profile run."""
    pairs = [(baseline, p) for p in res.run.profiles if p != baseline]
    paired = bool(res.run.manifest.get("paired")) and bool(res.run.summary.per_game)
    return compare_results(res, res, pairs, {pair: paired for pair in pairs}) if pairs else \
        pd.DataFrame(columns=COLUMNS)


def table_differences(res: metrics.Results, baseline: str) -> pd.DataFrame:
    """Every other profile against the baseline within each table composition (compare's rows and
    tests on the composition profiles, one Holm family over all of them; per-game differences when the
    run is paired and its per-game sums were kept), with `table` and the real profile names."""
    comp = res.compositions
    names = comp.run.manifest["compositions"]
    of = {(p, t): name for name, (p, t) in names.items()}
    pairs = [(of[(baseline, t)], of[(p, t)]) for p in res.run.profiles if p != baseline
             for t in metrics.tables_of(res.run) if (baseline, t) in of and (p, t) in of]
    if not pairs:
        return pd.DataFrame(columns=["table"] + COLUMNS)
    paired = bool(res.run.manifest.get("paired")) and bool(comp.run.summary.per_game)
    out = compare_results(comp, comp, pairs, {pair: paired for pair in pairs})
    out.insert(0, "table", out["profile_a"].map(lambda c: names[c][1]))
    for side in ("profile_a", "profile_b"):
        out[side] = out[side].map(lambda c: names[c][0])
    return out


def play_model(res: metrics.Results) -> tuple[str, str]:
    """The play model in one paragraph (HTML, Markdown): which bots at which tables (with the share of
    games each table composition was drawn with), how many games and hands each profile played."""
    info = res.run.manifest.get("profiles", {})
    tables = {}
    for p in res.run.profiles:
        n = metrics.full_table_size(res.run, p)
        mix = info.get(p, {}).get("tables") or [{"name": ",".join(info.get(p, {}).get("bots", [])) or "not recorded",
                                                 "bots": info.get(p, {}).get("bots", []), "weight": 1}]
        total = sum(float(t.get("weight", 1)) for t in mix)
        parts = []
        for t in mix:
            bots = [str(b) for b in t.get("bots", [])]
            who = f"{len(bots)} x {bots[0]}" if bots and len(set(bots)) == 1 else ",".join(bots)
            name = "" if t.get("name") == ",".join(bots) else f"{t.get('name')}: "
            share = f" ({float(t.get('weight', 1)) / total:.0%} of games)" if len(mix) > 1 else ""
            parts.append(f"{name}{who}{share}")
        tables.setdefault(f"{n}-player tables, " + "; ".join(parts), []).append(p)
    where = " | ".join(f"{', '.join(ps)}: {t}" for t, ps in tables.items()) if len(tables) > 1 else \
        next(iter(tables)) if tables else "no profiles"
    counts = res.run.summary.counts
    played = "; ".join(f"{p} {counted(int(counts.get(p, {}).get('games', 0)), 'game')}, "
                       f"{counted(int(counts.get(p, {}).get('deals', 0)), 'deal')}, "
                       f"{counted(int(counts.get(p, {}).get('hand_rows', 0)), 'player-hand row')}"
                       for p in res.run.profiles)
    text = (f"Every number below comes from bots playing bots, not people. Tables: {where}. {DEAL_TEXT} "
            f"Played: {played}.")
    return f"<b>Play model.</b> {html.escape(text)}", f"**Play model.** {text}"


DEAL_TEXT = (
    "Seats are the table's places counted from 0 (the data's seat); the bots rotate one seat game by game. The "
    "first hand's dealer is drawn from the game's random stream; the deal then passes to the left, to the player "
    "who played first, skipping players who are out, and a void deal is dealt again by the same dealer. Places "
    "relative to the dealer are named by order of play: 1st to play (left of the dealer), 2nd to play, ..., "
    "dealer (plays last).")


def headline_grid(summary: pd.DataFrame, judged: pd.DataFrame, profiles: list[str], baseline: str,
                  seats: dict | None = None):
    """The one table: metrics as rows, profiles as columns, estimate and interval in each cell; a cell
    whose difference from the baseline is clear marked higher / lower with the difference, one that is
    practically equivalent marked ≈, one not established left plain.  ``seats``: each profile's
    judged advantage by order of play (findings.within_profile_judgments' "seat"): a chi-square
    p-value below 5% beside no practical advantage says why (findings.detectable_note)."""
    verdict = {(r.profile_b, r.metric): r for r in judged.itertuples(index=False)}
    seats = seats or {}
    header = [Cell("Metric")] + [Cell(p, "baseline" if p == baseline and len(profiles) > 1 else "") for p in profiles]
    rows = []
    for metric, group in summary.groupby("metric", sort=False):
        first = group.iloc[0]
        kind = first.get("kind", "proportion")
        s = findings.show(metric, kind, first.get("description"))
        row = [Cell(s.label, metric)]
        by_profile = group.set_index("profile")
        for p in profiles:
            if p not in by_profile.index:
                row.append(Cell("", cls="na"))
                continue
            r = by_profile.loc[p]
            value = findings.fmt_value(metric, r["estimate"], kind)
            interval = findings.fmt_interval(metric, r["ci_low"], r["ci_high"], kind)
            if value == findings.NOT_APPLICABLE:
                row.append(Cell(value, cls="na"))
                continue
            text = f"{value} ({interval})" if interval else value
            judged_row = verdict.get((p, metric))
            note = findings.detectable_note(seats.get(p)) if metric == "seat_equal_shares_p" else ""
            if note:
                row.append(Cell(text, "detectable, below the threshold" if seats[p].get("equivalent") else
                                "detectable, not shown past the threshold", "detectable"))
                continue
            if p == baseline:
                row.append(Cell(text, cls="base"))
            elif judged_row is not None and judged_row.verdict in findings.STATED:
                arrow = "▲" if judged_row.verdict == findings.HIGHER else "▼"
                diff = findings.fmt_difference(metric, judged_row.difference, np.nan, np.nan, kind)
                row.append(Cell(text, f"{arrow} {diff}{_strength_note(judged_row)}", judged_row.verdict))
            elif judged_row is not None and judged_row.verdict == findings.EQUIVALENT:
                row.append(Cell(text, f"≈{_strength_note(judged_row)}", "equivalent", inline=True))
            elif judged_row is not None and _strength_note(judged_row):
                row.append(Cell(text, _strength_note(judged_row).strip(), inline=True))
            else:
                row.append(Cell(text))
        rows.append(row)
    return header, rows


def _strength_note(judged_row) -> str:
    """' ⚠' on a cell whose difference changes direction with the composition; ' ★' on one that
    changes with the composition (in direction or size) where the frontier's top two rungs agree on
    it (stated for strong play)."""
    mark = getattr(judged_row, "robustness", "")
    if not findings.varies(mark):
        return ""
    if getattr(judged_row, "strong_play", ""):
        return " ★"
    return " ⚠" if str(mark).startswith(findings.DEPENDS) else ""


def findings_list(res: metrics.Results, judged: pd.DataFrame, baseline: str, thresholds,
                  strong_play: list | None = None, within: dict | None = None) -> list:
    """Every topic's finding (findings.Finding: its one line and its full text); ``within``:
    findings.within_profile_judgments' result (computed here when None)."""
    full = {p: metrics.full_table_size(res.run, p) for p in res.run.profiles}
    found = findings.difference_findings(judged, baseline) if len(judged) else []
    strength = [findings.robustness_finding(judged, metrics.tables_of(res.run))] if "robustness" in judged else []
    strength += strong_play or []
    return strength + findings.merge(found + findings.within_profile_findings(res, res.run.profiles, full,
                                                                               thresholds, within))


def finding_anchor(topic: str) -> str:
    return "finding-" + slug(topic)


def write_findings(doc: Document, found: list) -> None:
    """The one-minute list: each topic's one line, linked to its full text under Findings in full."""
    doc.findings([(f"{f.topic}.", f.short or f.text, finding_anchor(f.topic)) for f in found])


def findings_in_full(doc: Document, found: list) -> None:
    doc.heading("Findings in full")
    doc.text("Each topic's finding with every profile, its numbers and intervals; the one-line answers are under "
             "Findings.")
    for f in found:
        doc.anchored(finding_anchor(f.topic), f"{f.topic}.", f.text)


def judge_with_robustness(res: metrics.Results, baseline: str, thresholds) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The judged differences from the baseline with their robustness mark, and the same differences
    judged within each table composition."""
    judged = findings.judge(baseline_differences(res, baseline), thresholds)
    tables = metrics.tables_of(res.run)
    by_table = findings.judge(table_differences(res, baseline), thresholds) if len(tables) > 1 and len(judged) \
        else findings.judge(pd.DataFrame(columns=["table"] + COLUMNS), thresholds)
    return findings.robustness(judged, by_table, tables, findings.table_strength(res.run.manifest)), by_table


def composition_section(doc: Document, res: metrics.Results, judged: pd.DataFrame, by_table_diffs: pd.DataFrame,
                        baseline: str) -> None:
    """'By table composition' (runs of several compositions): the differences that depend on play
    strength, the unsettled and those established nowhere, then per metric group a profiles x
    compositions table (collapsed, except for a run of one profile), and the long tables as CSV."""
    tables = metrics.tables_of(res.run)
    if len(tables) < 2:  # the findings say so once
        return
    doc.heading("By table composition")
    shares = res.by_table[res.by_table["metric"] == "hands_per_game"].groupby("table", sort=False)["games"].sum()
    games = ", ".join(f"{t} {int(shares.get(t, 0)):,}" for t in tables)
    if judged.empty:
        doc.text(f"Games at each table composition, every profile together: {games}. The run has one profile, so "
                 "there is no difference from a baseline to judge at each composition; its estimates at each "
                 "composition follow.")
    else:
        doc.text("Each profile's difference from the baseline " + baseline + " judged again within each table "
                 f"composition (games, every profile together: {games}). Where two compositions are shown to "
                 "disagree, a difference depends on play strength when its direction changes, and is larger or "
                 "smaller with stronger play (or the same direction at every table) when only its size changes; "
                 "robust where every composition reaches the same verdict (Methods).")
    has = lambda mark: judged["robustness"].astype(str).str.startswith(mark) if "robustness" in judged else \
        pd.Series(False, index=judged.index)
    depends, unsettled = judged[has(findings.VARIES)], judged[has(findings.UNSETTLED)]
    nowhere = judged[has(findings.NOWHERE)]
    if len(depends) > VISIBLE_ROWS:  # a long list: collapsed, the findings name the first of each profile
        doc.open("details", f"{len(depends)} differences from the baseline change with play strength")
    if len(depends):
        doc.grid(*robustness_grid(depends, by_table_diffs, tables), "Differences from the baseline that change "
                 "with play strength: in direction (depends on play strength; ⚠ in the headline table) or in size "
                 "only.")
    elif len(judged):
        doc.text("No difference from the baseline is shown to change with play strength.")
    if len(depends) > VISIBLE_ROWS:
        doc.close("details")
    for rows, label in ((unsettled, "established at some compositions only (unsettled)"),
                        (nowhere, "not established at any composition")):
        if len(rows):
            doc.open("details", f"{len(rows)} difference{'' if len(rows) == 1 else 's'} {label}")
            doc.grid(*robustness_grid(rows, by_table_diffs, tables))
            doc.close("details")
    by_table = res.by_table
    collapsed = len(judged) > 0  # a one-profile run of several compositions is here to be read by composition
    if collapsed:
        doc.open("details", "Every headline metric by profile and composition, one table a metric group; CSV files")
    for topic in (findings.OPENING, findings.KALOOKI, findings.ELIMINATION, findings.LENGTH, findings.SEAT):
        metrics_here = [m for m, _, _ in metrics.HEADLINE if findings.show(m).topic == topic]
        mine = by_table[by_table["metric"].isin(metrics_here)]
        if mine.empty or mine["estimate"].isna().all():
            continue
        doc.grid(*composition_grid(mine, res.run.profiles, tables), f"{topic}: estimate (95% interval) per "
                 "profile (rows) and table composition (columns).")
    doc.attach("by_table", by_table, "Every headline metric per profile and table composition (long format)")
    if len(by_table_diffs):
        doc.attach("differences_by_table", by_table_diffs, "Every difference from the baseline within each "
                   "table composition, tested and judged")
    if collapsed:
        doc.close("details")


VISIBLE_ROWS = 12  # the most rows of differences depending on play strength shown open


def robustness_grid(marked: pd.DataFrame, by_table_diffs: pd.DataFrame, tables: list[str]):
    """Metric, profile, the difference over every table and within each composition (each with its
    verdict), the mark."""
    header = [Cell("Metric"), Cell("Profile"), Cell("All tables", "B − A, verdict")] + \
        [Cell(t, "B − A (95% CI), verdict") for t in tables] + [Cell("Robustness")]
    diffs = {(r.profile_b, r.metric, r.table): r for r in by_table_diffs.itertuples(index=False)}
    rows = []
    for r in marked.itertuples(index=False):
        s = findings.show(r.metric, r.kind)
        row = [Cell(s.label, r.metric), Cell(r.profile_b),
               Cell(findings.fmt_difference(r.metric, r.difference, np.nan, np.nan, r.kind), r.verdict)]
        for t in tables:
            d = diffs.get((r.profile_b, r.metric, t))
            row.append(Cell(findings.fmt_difference(r.metric, d.difference, d.diff_ci_low, d.diff_ci_high, r.kind)
                            .replace("95% CI ", ""), d.verdict) if d is not None else Cell(""))
        name = findings.mark_name(r.robustness)
        row.append(Cell(name, cls=findings.HIGHER if name == findings.DEPENDS else ""))
        rows.append(row)
    return header, rows


def composition_grid(by_table: pd.DataFrame, profiles: list[str], tables: list[str]):
    """Metrics x profiles as rows, compositions as columns, estimate (interval) in each cell."""
    header = [Cell("Metric"), Cell("Profile")] + [Cell(t) for t in tables]
    cells = {(r.metric, r.profile, r.table): r for r in by_table.itertuples(index=False)}
    rows = []
    for metric in dict.fromkeys(by_table["metric"]):
        kind = by_table.loc[by_table["metric"] == metric, "kind"].iloc[0]
        s = findings.show(metric, kind)
        for i, p in enumerate(profiles):
            row = [Cell(s.label if i == 0 else "", metric if i == 0 else ""), Cell(p)]
            for t in tables:
                r = cells.get((metric, p, t))
                if r is None:
                    row.append(Cell("", cls="na"))
                    continue
                value = findings.fmt_value(metric, r.estimate, kind)
                interval = findings.fmt_interval(metric, r.ci_low, r.ci_high, kind)
                row.append(Cell(f"{value} ({interval})" if interval else value,
                                cls="na" if value == findings.NOT_APPLICABLE else ""))
            rows.append(row)
    return header, rows


def differences_for_plot(judged: pd.DataFrame) -> pd.DataFrame:
    """The judged differences as the dot plot wants them: label in words, profile, the verdict (one of
    findings.THREE_WAY; rows with none are left out)."""
    if judged.empty:
        return pd.DataFrame(columns=["label", "profile", "difference", "diff_ci_low", "diff_ci_high", "threshold",
                                     "verdict"])
    order = {m: i for i, m in enumerate(dict.fromkeys(judged["metric"]))}
    out = judged.assign(label=[findings.show(m, k).label for m, k in zip(judged["metric"], judged["kind"])],
                        order=judged["metric"].map(order), profile=judged["profile_b"])
    return out[out["verdict"].isin(findings.THREE_WAY)]


def figures(doc: Document, res: metrics.Results, judged: pd.DataFrame, baseline: str) -> None:
    profiles = res.run.profiles
    n = len(profiles)
    rows = -(-n // plots.PANEL_COLUMNS)
    diffs = differences_for_plot(judged)
    doc.open("figs")
    if len(diffs):
        n_metrics = diffs["label"].nunique()
        doc.figure("differences", plots.differences, ordered(diffs, profiles),
                   f"Each profile against the baseline {baseline}: the difference divided by the metric's practical "
                   "threshold, with its 95% interval; the grey band is plus or minus one threshold. Filled circle: a "
                   "clear difference (past the threshold); square: practically equivalent (inside it, TOST); cross: "
                   f"not established. A difference past ±{plots.DIFFERENCE_LIMIT:g} thresholds is a triangle in the "
                   "grey margin, pointing out, each profile in its own place (not to scale; its value is in "
                   "differences_from_baseline.csv). Verdicts are Holm-corrected (Methods).",
                   width=13.0, height=0.12 * n_metrics * max(1.0, (n - 1) / 3) + 1.0, wide=True)
    doc.figure("opening_cdf", plots.opening_cdf, ordered(res.opened_by_round, profiles),
               "Share of played player-hands opened by turn k, one panel a profile with its 95% band; the baseline "
               "dashed and the other profiles grey for reference. Player-hands never opened keep a curve below 100%.",
               height=1.55 * rows + 0.9, panels=n)
    doc.figure("kalooki_frequency", plots.kalooki_frequency, ordered(res.kalooki, profiles),
               "Kalookis per 1,000 non-void hands with 95% Wilson intervals; the axis starts at 0.",
               height=0.36 * n + 1.1)
    doc.figure("survival", plots.survival, ordered(res.survival, profiles),
               "Share of games with nobody eliminated yet after each hand (Kaplan-Meier, 95% band); games that "
               "ended without an elimination are censored. Profiles without any elimination are not drawn.")
    doc.figure("hands_per_game", plots.hands_per_game, ordered(res.hands_per_game, profiles),
               "How many hands a game lasts, one panel a profile (dotted: the mean; each panel its own y scale).",
               height=1.55 * rows + 0.9, panels=n, share="x")
    doc.figure("seat_advantage", plots.seat_advantage, ordered(seat_rates_for_plot(res), profiles),
               "Hand win rate by order of play (1st to play, left of the dealer, ..., the dealer, who plays last) "
               "minus the fair share 1/n at the full table, 95% Wilson intervals: above 0 that place wins more than "
               "its share.")
    multi_bot = any(findings.bots_meet(res, p) for p in profiles)
    panels = 2 if multi_bot else 1
    by = findings.elimination_by_group(res)
    by = by if multi_bot else by[by["by"] == "seat"]
    eliminated = by[by.groupby("profile")["k"].transform("sum") > 0]
    bots_note = "" if multi_bot else " No table seats two different bots, so there is no by-bot panel."
    doc.figure("eliminated_by_group", plots.eliminated_by_group, ordered(eliminated, profiles),
               "Share of player-games in which the player was eliminated at least once, by order of play in the "
               f"game's first deal{' and by bot' if multi_bot else ''} (profiles without elimination left out)."
               f"{bots_note}",
               width=6.4, height=3.3, panels=panels, share="none")
    pay = findings.net_payment(res)
    pay = pay if multi_bot else pay[pay["by"] != "bot"]
    moving = pay.groupby("profile")["sd"].transform(lambda s: s.fillna(0).abs().sum()) > 0
    doc.figure("payments_by_group", plots.payments_by_group, ordered(pay[moving], profiles),
               "Mean net payment per game (stake units) by order of play in the game's first deal"
               f"{' and by bot' if multi_bot else ''}, 95% t intervals; 0 is break-even (profiles without "
               f"stakes left out).{bots_note}", width=6.4, height=3.3, panels=panels, share="none")
    doc.close("figs")


def details(doc: Document, res: metrics.Results) -> None:
    """Every metric table, collapsed, and the long distributions as CSV next to the report."""
    o = res.opening
    doc.heading("Details")
    doc.text("Each group's tables, by profile and by bot; click to open. Long distributions are CSV files next "
             "to the report (data/).")
    doc.open("details", "Opening timing: proportions, round and value, by bot")
    doc.table(o[o["metric"].isin(["p_can_open_at_deal", "share_never_opened", "share_open_with_discard"])],
              "Opening proportions", PROPORTION_COLUMNS)
    doc.table(o[o["metric"].isin(["mean_open_round", "mean_open_value"])],
              "Opening round and value (openings in played hands)", MEAN_COLUMNS)
    doc.attach("opened_by_round", res.opened_by_round, "P(opened by round k) per profile")
    doc.attach("open_round_distribution", res.open_round_distribution, "Distribution of the opening round")
    doc.close("details")
    doc.open("details", "Kalooki frequency by bot")
    doc.table(res.kalooki, "Kalookis per hand, per player-hand and as a share of wins, by bot", PROPORTION_COLUMNS)
    doc.close("details")
    doc.open("details", "Elimination and buy-ins")
    doc.table(res.elimination, "Elimination and buy-ins", ["metric", "profile", "bot", "n", "k", "estimate", "ci_low",
                                                           "ci_high", "method"])
    doc.attach("survival", res.survival, "Kaplan-Meier survival table")
    doc.attach("eliminated_by_group", findings.elimination_by_group(res),
               "Eliminations by order of play in the first deal and by bot")
    doc.close("details")
    doc.open("details", "Game shape")
    doc.table(res.shape, "Game shape", ["metric", "profile", "n", "k", "estimate", "ci_low", "ci_high", "method"])
    doc.attach("hands_per_game", res.hands_per_game, "Games by hands played")
    doc.close("details")
    doc.open("details", "Fairness: order of play, dealer, bots, payments")
    tests = res.seat_tests
    doc.table(tests, "Equal wins by order of play (per level and table size): "
              + "; ".join(dict.fromkeys(tests["test"].astype(str))) if len(tests) else "",
              ["profile", "level", "n_players", "n", "statistic", "df", "p_value"])
    edge = res.dealer_edge
    doc.table(edge.rename(columns={"first_minus_dealer": "first_minus_dealer (1st to play)"}) if len(edge) else edge,
              "Dealer's edge per table size: the dealer's hand win rate minus the other players' (estimate, 95% "
              "ci_low to ci_high, p_value); first_minus_dealer: the 1st to play's rate minus the dealer's (fmd_ci: "
              "its interval). " + "; ".join(dict.fromkeys(edge["test"].astype(str))) if len(edge) else "",
              ["profile", "n_players", "dealer_rate", "others_rate", "estimate", "ci_low", "ci_high", "p_value",
               "first_minus_dealer (1st to play)", "fmd_ci_low", "fmd_ci_high"])
    bot_tests = res.bot_tests
    doc.table(bot_tests, "Wins by bot against equal skill: "
              + "; ".join(dict.fromkeys(bot_tests["test"].astype(str))) if len(bot_tests) else "",
              ["profile", "level", "n", "statistic", "df", "p_value"])
    doc.attach("win_rate_by_seat", seat_rates_named(res), "Win rate by order of play (seat_from_dealer; position "
               "names it)")
    doc.attach("win_rate_by_bot", res.bot_rates, "Win rate by bot")
    doc.attach("net_payment", findings.net_payment(res), "Mean net payment per game by order of play in the first "
               "deal and by bot")
    doc.close("details")
    doc.open("details", "Jokers")
    doc.figure("jokers", plots.win_by_jokers, ordered(res.jokers, res.run.profiles),
               "P(win the hand | jokers dealt), played hands, 95% Wilson intervals.")
    doc.table(res.jokers, "P(win the hand | dealt_jokers = j)",
              ["profile", "dealt_jokers", "n", "k", "estimate", "ci_low", "ci_high", "method"])
    doc.close("details")
    doc.attach("summary", res.summary, "Every headline metric (long format)")


def convergence_grid(conv: pd.DataFrame, profiles: list[str]):
    header = [Cell("Metric")] + [Cell(p, "last step; status") for p in profiles]
    rows = []
    keyed = conv.set_index(["profile", "metric"])
    for metric in dict.fromkeys(conv["metric"]):
        kind = conv.loc[conv["metric"] == metric, "kind"].iloc[0]
        s = findings.show(metric, kind)
        row = [Cell(s.label, metric)]
        for p in profiles:
            if (p, metric) not in keyed.index:
                row.append(Cell(""))
                continue
            r = keyed.loc[(p, metric)]
            cls = {F.CONVERGED: findings.EQUIVALENT, F.NOT_CONVERGED: findings.HIGHER}.get(r["status"], "")
            diff = findings.fmt_difference(metric, r["last_difference"], np.nan, np.nan, kind)
            row.append(Cell(diff if r["status"] != findings.NOT_APPLICABLE else "", r["status"], cls))
        rows.append(row)
    return header, rows


def frontier_section(doc: Document, fr: F.FrontierData, thresholds, by_table: pd.DataFrame | None = None,
            strong: pd.DataFrame | None = None, judged: pd.DataFrame | None = None) -> None:
    """The report's "Strength frontier": what was played, the figure, the convergence table, the
    composition to read for good players, the rungs' order at the game (measured, or said to be by
    design), the differences that hold for strong play with their sizes at the two rungs that stand
    for it, and the data as CSV.  ``judged``: the report's differences from the baseline
    (with `strong_play` and `robustness`), to count the ★ marks."""
    table = F.by_rung(fr)
    step_table = F.steps(fr, thresholds)
    conv = F.convergence(step_table, fr.rungs)
    d = fr.document
    doc.heading("Strength frontier")
    doc.text(f"Every profile played again at tables of {d.get('players', 4)} of the same bot, once per rung of the "
             f"bot ladder ({' < '.join(fr.rungs)}), {d.get('games'):,} games per profile and rung, seed "
             f"{d.get('seed')}, game g starting from the same deal at every rung, so the rungs differ by play. A metric has "
             "converged when the last step (the top rung minus the one below) is shown inside its practical "
             "threshold by the equivalence test (Methods); the step before is shown, not tested. "
             + F.counts_text(conv) + ". Convergence reads the rungs in the ladder's order by design; which rungs "
             "stand for strong play is read from their order measured at the game:")
    for note in fr.order_notes():
        doc.text(note)
    if by_table is not None and len(by_table):
        text = F.composition_text(F.closest_composition(by_table, fr, thresholds), fr)
        if text:
            doc.text(text)
    if strong is not None and len(strong):
        doc.text(F.strong_text(strong, judged))
        held = F.strong_table(strong)
        if len(held):
            doc.table(held, "Differences from the baseline that hold at the two rungs that stand for strong play (the "
                      "top two of the order measured at the game in both profiles, or of the ladder's design where "
                      "it is not measured): the verdict at both, and the difference with its 95% interval at each "
                      "rung (every seat that rung's bot): the size for strong play, where the headline table's is "
                      "the report's mixed tables'.")
        doc.attach("frontier_strong_play", strong, "Every difference from the baseline judged at each of the two "
                   "rungs that stand for strong play: difference, 95% interval and verdict per rung, the order they "
                   "come from, and whether it holds for strong play")
    frame = F.figure_frame(table)
    flat = F.flat_metrics(frame)
    kinds = dict(zip(frame["metric"], frame["kind"]))
    frame = frame[~frame["metric"].isin(list(flat))]
    negligible = F.negligible_metrics(frame, thresholds)
    frame = frame[~frame["metric"].isin(list(negligible))].copy()
    limits, clipped = F.shared_limits(frame)
    frame.attrs["limits"] = limits
    frame.attrs["clipped"] = {label: list(who) for label, who in clipped.items()}
    n = frame["label"].nunique()
    rows = -(-max(n, 1) // plots.PANEL_COLUMNS)
    doc.open("figs")
    doc.figure("frontier", lambda axes, data: plots.frontier(axes, data), frame,
               "Each headline metric (panels) by rung (x, weakest first; every seat the rung's bot), per profile "
               "(colours), with its 95% interval (units as in the headline table): shares cluster-robust Wilson, "
               f"differences of shares cluster-robust t, means percentile bootstrap over games ({F.BOOT:,} "
               f"replicates; Methods). Reproduce: {d.get('command')}",
               width=13.0, height=1.7 * rows + 1.2, panels=n, wide=True, share="x")
    doc.close("figs")
    if clipped:
        doc.text(F.clipped_text(clipped))
    if flat:
        doc.text(F.flat_text(flat, kinds))
    if negligible:
        doc.text(F.negligible_text(negligible, kinds, thresholds))
    doc.grid(*convergence_grid(conv, fr.profiles), f"Convergence per metric and profile: the last step "
             f"({fr.rungs[-2]} → {fr.rungs[-1]}, paired by game) and its status; green: converged, orange: not "
             "converged, unmarked: not established (or not judged).")
    doc.attach("frontier_by_rung", table, "Every headline metric per profile and rung")
    doc.attach("frontier_steps", step_table, "Every step between rungs, paired by game, tested and judged")
    doc.attach("frontier_convergence", conv, "Convergence per profile and metric")


def ladder_section(doc: Document, ladder: L.LadderData) -> None:
    """The report's "Bot ladder at the game": what was played, the table, the measured order per
    profile, the data as CSV."""
    d = ladder.document
    doc.heading("Bot ladder at the game")
    doc.text(f"Each rung of the bot ladder ({' < '.join(ladder.rungs)} by design) at one seat against three of the "
             "rung below, every deal played in each rotation of the seats (the same cards to the same seats), seed "
             f"{d.get('seed')}: " + ", ".join(f"{s['upper']} vs 3 {s['lower']} {s['games']:,} games" for s in
                                               d["steps"]) + " per profile, the same deals at every step. A rung "
             "beats the one below at the game where money changes hands when its net payment edge's 95% interval "
             "lies above 0 and its games won above the fair share 0.25; in a target game when its games won's "
             "interval lies above 0.25.")
    doc.table(L.display_table(ladder), "The upper rung's hands won (of its player-hands), games won (of its games, fair "
              "share 0.25), net payment per game and its edge over the other three (units a game, where money changes "
              "hands), each with its 95% interval clustered by deal, and the verdict (Methods, glossary: bot ladder at "
              f"the game). Reproduce: {d.get('command')}")
    for o in L.orders(ladder).values():
        doc.text(o.text())
    doc.attach("ladder", ladder.table, "Every step and profile: the measures with their intervals, the verdict and "
               "its reason")


def skill_section(doc: Document, fit: skill.Fit) -> None:
    """The balance report's "Skill and luck" section: the study in one sentence, one figure (each
    profile's coin-flip share with its interval), one sentence on which profiles reward skill more
    (only where the intervals separate), and the measures per profile."""
    m = fit.measures
    meta = fit.meta
    deals = meta.get("deals", {})
    doc.heading("Skill and luck")
    doc.text(f"How much good play decides each profile: a skill study of {', '.join(fit.players)} in duplicate "
             f"games ({', '.join(f'{p} {deals.get(p, 0):,}' for p in fit.profiles)} deals, each played in every "
             "rotation of its table). The coin-flip share is the share of games a coin flip would have to decide, in "
             "a game the stronger player otherwise always wins, to leave as much to luck, scaled so that a game of "
             "pure chance reads 1: lower means skill decides more. Players knocked out in the same hand share a "
             "place (half a win each). 95% percentile bootstrap intervals over deals "
             f"({meta.get('boot')} replicates, the same deals drawn for every profile). The measures describe these "
             "players; the terms are in the glossary.")
    rows = m[m["measure"] == skill.REPORT_MEASURE][["profile", "estimate", "ci_low", "ci_high"]].reset_index(drop=True)
    rows = rows.assign(profile=pd.Categorical(rows["profile"].astype(str), categories=fit.profiles))
    rows.attrs.update(title="Share of games left to a coin flip (95% bootstrap intervals)",
                      xlabel="coin-flip share (lower: skill decides more)")
    doc.figure("skill_coin_flip_share", plots.skill_measure, rows,
               "Each profile's coin-flip share with its 95% bootstrap interval over deals.",
               height=0.36 * len(rows) + 1.1)
    replicates, loo = fit.table("replicates"), fit.table("leave_one_out")
    ranking = skill.profile_ranking(m, replicates, loo, fit.profiles) if meta.get("paired") and replicates is not None \
        else pd.DataFrame(columns=skill.RANKING_COLUMNS)
    doc.text(skill.ranking_sentence(ranking, len(fit.profiles)))
    table = m[m["measure"].isin(skill.REPORT_COLUMNS)]
    cells = {(r.profile, r.measure): r for r in table.itertuples(index=False)}
    shown = [c for c in skill.REPORT_COLUMNS if c in set(table["measure"])]

    def cell(p, c):
        if (p, c) not in cells:
            return ""
        r = cells[(p, c)]
        text = skill.fmt_estimate(c, r.estimate, r.ci_low, r.ci_high)
        low, high = getattr(r, "chance_low", math.nan), getattr(r, "chance_high", math.nan)
        if pd.isna(low):  # a fit without a chance benchmark
            return text
        if c in skill.CORRECTED:  # scaled to chance: its median reads 1, its range says how low chance alone reads
            return text + f"; chance reads {skill.fmt_measure(c, low)}–{skill.fmt_measure(c, high)}"
        return text + f"; chance {skill.fmt_measure(c, r.chance)} ({skill.fmt_measure(c, low)}–{skill.fmt_measure(c, high)})"

    spans = {r.profile: r.spans for r in m[m["measure"] == "spread"].itertuples(index=False)} if "spans" in m else {}
    frame = pd.DataFrame([{"profile": p, **{skill.REPORT_HEADINGS[c]: cell(p, c) for c in shown},
                           "spread spans": spans.get(p, "")} for p in fit.profiles])
    doc.table(frame, "Estimate (95% interval) per profile, and beside it the chance benchmark: the median and 95% "
              f"range of the measure over {meta.get('chance', skill.CHANCE)} studies of the same games with each game's "
              "finishing order shuffled among its seats (pure chance, this design and size); the luck share and the "
              "coin-flip share are scaled so that pure chance reads 1. Spread spans: the strongest and the weakest "
              "player of the profile, the pair its spread measures. Pay spread only where money changes hands. "
              f"Made by: {meta.get('command') or 'kalooki skill'}")
    players = fit.table("players")
    if players is not None and len(players):
        shown = players.assign(
            rating=[f"{x * skill.ELO_PER_LOGIT:+.0f} Elo ({lo * skill.ELO_PER_LOGIT:+.0f} to {hi * skill.ELO_PER_LOGIT:+.0f})"
                    for x, lo, hi in zip(players["rating"], players["rating_lo"], players["rating_hi"])],
            lead=[("" if x != x else f"{x * skill.ELO_PER_LOGIT:+.0f} Elo ({lo * skill.ELO_PER_LOGIT:+.0f} to "
                   f"{hi * skill.ELO_PER_LOGIT:+.0f})" + ("" if lo > 0 else ", not established"))
                  for x, lo, hi in zip(*(players.get(c, pd.Series(math.nan, index=players.index))
                                         for c in ("ahead_of_next", "ahead_of_next_lo", "ahead_of_next_hi")))])
        doc.table(shown.rename(columns={"strength_rank": "place", "lead": "ahead of the next"})[
            ["profile", "place", "player", "rating", "ahead of the next", "game_win"]],
            "The players in the order their fitted ratings put them, per profile (measured, not assumed): the rating "
            "with its 95% bootstrap interval over deals, and the lead over the next player down with the interval "
            "of that difference over the same replicates; the order of two neighbours is established where that "
            "interval lies above 0. game_win: share of the player's games won.")
        for prof in fit.profiles:
            text = skill.order_text(players[players["profile"] == prof].reset_index(drop=True), prof)
            if text:
                doc.text(text + ".")
    if loo is not None and len(loo):
        one = loo[loo["measure"] == skill.REPORT_MEASURE]
        full = {r.profile: r.estimate for r in m[m["measure"] == skill.REPORT_MEASURE].itertuples(index=False)}
        grid = pd.DataFrame([{"profile": p, "all players": skill.fmt_measure(skill.REPORT_MEASURE, full.get(p, math.nan)),
                              **{f"without {w}": skill.fmt_measure(skill.REPORT_MEASURE, v) for w, v in
                                 one[one["profile"] == p].set_index("left_out")["estimate"].items()}}
                             for p in fit.profiles])
        doc.table(grid, "Coin-flip share refitted without each player in turn (the games kept, that player's "
                  "head-to-head results left out; each against its own chance benchmark): a ranking of profiles "
                  "is stated only where it holds in every column.")
        doc.attach("skill_leave_one_out", loo, "Every skill measure refitted without each player")
    if len(ranking):
        doc.attach("skill_profile_ranking", ranking, "Every pair of profiles' coin-flip-share difference, tested, "
                   "and without each player")


def build_report(res: metrics.Results, baseline: str | None = None, thresholds=None, frontier=None,
                 frontier_problem: str | None = None, skill_fit=None, ladder=None,
                 ladder_problem: str | None = None) -> Document:
    """The balance report; with `frontier` (analysis.frontier.FrontierData) its Strength frontier section,
    and the differences that depend on play strength stated for strong play where its top two rungs
    agree; `frontier_problem`: why the run's frontier could not be read (said, the section left out);
    ``skill_fit`` (``analysis.skill.Fit``) adds its Skill and luck section; ``ladder``
    (``analysis.ladder.LadderData``) its Bot ladder at the game section (``ladder_problem``: why it
    could not be read)."""
    manifest = res.run.manifest
    profiles = res.run.profiles
    baseline = pick_baseline(profiles, baseline)
    thresholds = findings.default_thresholds() if thresholds is None else thresholds
    judged, by_table_diffs = judge_with_robustness(res, baseline, thresholds)
    strong, strong_found = None, []
    if frontier is not None and len(judged):
        strong = F.strong_play(frontier, baseline, thresholds)
        if len(strong):
            judged = judged.merge(strong[["profile_b", "metric", "strong_play", "strong_rungs"]],
                                  on=["profile_b", "metric"], how="left")
            judged[["strong_play", "strong_rungs"]] = judged[["strong_play", "strong_rungs"]].fillna("")
        closest = F.closest_composition(res.by_table, frontier, thresholds) \
            if len(metrics.tables_of(res.run)) > 1 else None
        strong_found = [findings.strong_play_finding(judged, frontier.top_two,
                                                     F.composition_text(closest, frontier)
                                                     if closest is not None else "",
                                                     order=frontier.order_summary())]
    doc = Document(f"Kalooki balance report: run {manifest.get('run_id')}")
    if res.run.problems:
        partial_warning(doc, res.run.problems)
    doc.html(*play_model(res))
    doc.toc()
    full = {p: metrics.full_table_size(res.run, p) for p in profiles}
    within = findings.within_profile_judgments(res, profiles, full, thresholds)
    found = findings_list(res, judged, baseline, thresholds, strong_found, within)
    doc.heading("Findings")
    verdicts = ("a clear difference (its interval past the threshold), practically equivalent (inside it, by an "
                "equivalence test) or not established (the data cannot tell); Holm-corrected, see Methods")
    if len(profiles) > 1:
        doc.text(f"Against the baseline {baseline}, each difference is one of three verdicts against the metric's "
                 f"practical threshold (configs/thresholds.toml): {verdicts}.")
    else:
        doc.text(f"One profile, {baseline}: no other profile to set it against. Its order of play, bots and money are "
                 f"judged against their fair shares, each one of three verdicts against the practical threshold "
                 f"(configs/thresholds.toml): {verdicts}.")
    write_findings(doc, found)
    doc.heading("Headline metrics")
    tables_note = "; ⚠: the difference changes direction with play strength (By table composition)" \
        if len(metrics.tables_of(res.run)) > 1 else ""
    if tables_note and strong is not None:
        tables_note += "; ★: it changes with play strength, but the two frontier rungs that stand for strong play " \
                       "agree on it (stated for strong play under Findings)"
    seats_note = (" Equal wins by order of play marked detectable: the chi-square test finds the places unequal, but "
                  "the difference is below the practical threshold (or not shown past it), so it is not a practical "
                  "advantage (Findings in full, Order of play).")
    doc.grid(*headline_grid(res.summary, judged, profiles, baseline, within["seat"]),
             f"Estimate (95% interval) per profile, against the baseline {baseline}: ▲ higher / ▼ lower (coloured, "
             "with the difference): a clear difference past the practical threshold; ≈: practically equivalent; "
             f"unmarked: not established{tables_note}. Code names in small print.{seats_note}" if len(profiles) > 1
             else f"Estimate (95% interval) of every headline metric. Code names in small print.{seats_note}")
    if len(judged):
        doc.attach("differences_from_baseline", judged, "Every difference from the baseline, tested and judged")
    findings_in_full(doc, found)
    composition_section(doc, res, judged, by_table_diffs, baseline)
    if frontier is not None:
        frontier_section(doc, frontier, thresholds, res.by_table if len(metrics.tables_of(res.run)) > 1 else None,
                         strong, judged=judged)
    elif frontier_problem:
        doc.heading("Strength frontier")
        doc.text(f"The run's frontier could not be read, so this section is left out: {frontier_problem}")
    if ladder is not None:
        ladder_section(doc, ladder)
    elif ladder_problem:
        doc.heading("Bot ladder at the game")
        doc.text(f"The run's ladder study could not be read, so this section is left out: {ladder_problem}")
    if skill_fit is not None:
        skill_section(doc, skill_fit)
    doc.heading("Figures")
    figures(doc, res, judged, baseline)
    details(doc, res)
    params = {p: manifest.get("profiles", {}).get(p, {}).get("params", {}) for p in profiles}
    if len(profiles) > 1 and any(params.values()):
        differ = rule_table(params)
        doc.heading("Rules that differ")
        doc.open("details", f"{len(differ)} rule parameters differ between the profiles (every parameter under "
                            "Provenance)")
        doc.table(differ)
        doc.close("details")
    doc.heading("Methods")
    doc.open("details", "How each number was made")
    doc.bullets(METHOD_NOTES + VERDICT_NOTES + [findings.ROBUSTNESS_NOTE]
                + ([F.CONVERGENCE_NOTE] if frontier is not None else []) + ([L.NOTE] if ladder is not None else []))
    doc.close("details")
    provenance(doc, manifest)
    return doc


def write_report(run_dir, out_dir, allow_partial: bool = False, baseline: str | None = None,
                 thresholds_file=None) -> Path:
    """Verify, analyse and write out_dir/report.html, out_dir/report.md, out_dir/figures/ and
    out_dir/data/*.csv; returns the HTML path.  UserError naming the problems when verification
    fails and allow_partial is False, or when the baseline or the thresholds file is wrong.  A skill
    study of the run (RUN/skill/, ``analysis.skill.find_fit``) adds a Skill and luck section, a ladder
    study (RUN/ladder/, ``analysis.ladder.find_in_run``) a Bot ladder at the game section and the
    frontier's measured order."""
    if Path(out_dir).resolve() == Path(run_dir).resolve():
        raise UserError(f"the report would be written into the run directory {run_dir}; choose another --out")
    thresholds = findings.load_thresholds(thresholds_file)
    paired = bool(load.read_manifest(run_dir).get("paired"))  # then differences are per game: keep the sums
    res = metrics.compute(metrics.load_verified(run_dir, allow_partial, keep_games=paired))
    lad, lad_problem = None, None
    where = L.find_in_run(run_dir)
    if where is not None:
        try:
            lad = L.load_ladder(where)
        except UserError as e:
            lad_problem = str(e)
    fr, problem = None, None
    where = F.find(run_dir)
    if where is not None:
        try:
            fr = F.load_frontier(where, ladder=lad)
        except UserError as e:
            problem = str(e)
    return build_report(res, baseline, thresholds, fr, problem, skill.find_fit(run_dir), lad,
                        lad_problem).write(out_dir)
