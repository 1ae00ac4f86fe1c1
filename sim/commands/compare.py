"""`kalooki compare RUN_A [RUN_B]`: headline metrics of two runs or two profiles, tested and corrected,
and their skill and luck measures when both runs hold a skill study (RUN/skill/); or the answers of two
`kalooki tune` studies of the same question (``analysis.tune_compare``).  A run or study is a
directory or a URI (file:///..., s3://bucket/run?endpoint_override=...)."""
from __future__ import annotations

from pathlib import Path

from .common import add_force_arg, report_dir, stderr_log
from .tune import mark_at


def register(sub):
    p = sub.add_parser("compare", help="compare the headline metrics of two runs, or of two profiles of one run "
                                       "(and their skill studies, when both hold one), or the answers of two tune "
                                       "studies")
    p.add_argument("dir_a", metavar="RUN_A", help="run A, or tune study A: a directory or a URI (required)")
    p.add_argument("dir_b", metavar="RUN_B", nargs="?", help="run B, or tune study B of the same profile, parameter, "
                                                              "metric and target: a directory or a URI (default: "
                                                              "compare two profiles within RUN_A)")
    p.add_argument("--profiles", metavar="A,B",
                   help="profile of A and profile of B to compare (default: the profiles both runs hold, each "
                        "against itself; two runs of one profile each; within one run, its two profiles)")
    p.add_argument("--out", metavar="DIR", help="local output directory (default reports/compare-NAME); refused when "
                                                "it holds anything but this comparison, unless --force")
    p.add_argument("--allow-partial", action="store_true",
                   help="compare runs that fail verification, marked partial (default: off)")
    p.add_argument("--thresholds", metavar="FILE",
                   help="TOML of practical thresholds replacing those of configs/thresholds.toml (default: none)")
    add_force_arg(p, "comparison")
    p.set_defaults(func=run)


def default_out(dir_a: str, dir_b: str | None, profiles: str | None) -> Path:
    from ..runformat import base_name
    name = base_name(dir_a)
    if dir_b:
        name += "-vs-" + base_name(dir_b)
    if profiles:
        name += "-" + profiles.replace(",", "-vs-")
    return Path("reports") / f"compare-{name}"


def run(args):
    from ..runformat import locate_run, read_manifest

    out = Path(args.out) if args.out else default_out(args.dir_a, args.dir_b, args.profiles)
    studies = [mark_at(d) for d in (args.dir_a, args.dir_b)]
    if any(studies):
        return _compare_tune(args, out, studies)
    run_ids = [str(read_manifest(locate_run(d)).get("run_id")) for d in (args.dir_a, args.dir_b) if d]
    if args.profiles:
        run_ids.append(f"profiles {args.profiles}")
    from analysis.compare import VERDICT_LEGEND, terminal_table, write_compare
    with report_dir(out, "compare", run_ids, args.force, log=stderr_log(args)) as where:
        table, _ = write_compare(args.dir_a, args.dir_b, args.profiles, where, allow_partial=args.allow_partial,
                                 thresholds_file=args.thresholds)
    html = out / "report.html"
    for note in table.attrs.get("notes", []):
        print(note)
    if args.dir_b:  # two runs may hold profiles of one name: say which run each side is
        pairs = dict.fromkeys(zip(table["profile_a"], table["profile_b"]))
        for a, b in pairs:
            print(f"A = {a} ({args.dir_a}), B = {b} ({args.dir_b})")
    print(terminal_table(table))
    print(f"\ndifference = B - A; p Holm: {table.attrs['correction']}")
    print(f"design: {table.attrs.get('design', '')}")
    print(VERDICT_LEGEND)
    if table.attrs.get("skill_lines"):
        print("\n" + "\n".join(table.attrs["skill_lines"]))
    print(f"wrote {html}\n  with report.md, figures/ and data/ beside it in {out}/")
    return 0


def _compare_tune(args, out: Path, studies: list) -> int:
    """Two tune studies of the same question: each answer, their difference with its interval, a page."""
    from analysis import tune_compare

    from ..errors import UserError
    if args.dir_b is None:
        raise UserError(f"{args.dir_a} is a tune study: give RUN_B, a tune study of the same profile, parameter, "
                        "metric and target, to compare its answer with")
    if not all(studies):
        study, other = (args.dir_a, args.dir_b) if studies[0] else (args.dir_b, args.dir_a)
        raise UserError(f"cannot compare {study} (a tune study) with {other} (not a tune study: a run, or no study); "
                        "compare two tune studies of the same question, or two runs")
    if args.profiles:
        raise UserError("--profiles chooses the profiles of two runs; two tune studies are compared on the profile "
                        "they tuned: leave --profiles out")
    if args.allow_partial or args.thresholds:
        raise UserError(f"{'--allow-partial' if args.allow_partial else '--thresholds'} applies to runs; two tune "
                        "studies are compared on their own runs (verified) and thresholds: leave it out")
    comparison = tune_compare.compare(args.dir_a, args.dir_b)
    ids = [str(m["doc"].get("study_id")) for m in studies]
    with report_dir(out, "compare", ids, args.force, log=stderr_log(args)) as where:
        tune_compare.write_tune_compare(comparison, where, tune_compare.provenance_lines(comparison))
    print("\n".join(tune_compare.terminal_lines(comparison)))
    print(f"wrote {out / 'report.html'}\n  with report.md, figures/ and data/ beside it in {out}/")
    return 0
