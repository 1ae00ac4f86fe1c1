"""`kalooki report RUN`: verify a run (a directory or a URI) and write its balance report (HTML and Markdown)."""
from __future__ import annotations

import sys
from pathlib import Path

from .common import add_force_arg, report_dir, stderr_log
from .tune import mark_at


def register(sub):
    p = sub.add_parser("report", help="verify a run and write its balance report (HTML + Markdown), or the page of a "
                                      "tune study")
    p.add_argument("run_dir", metavar="RUN", help="run written by `kalooki simulate`, or a study of `kalooki tune`: a directory or a URI "
                                                  "(file:///..., s3://bucket/run?endpoint_override=...)")
    p.add_argument("--out", metavar="DIR", help="local output directory (default reports/<last name of RUN>)")
    p.add_argument("--allow-partial", action="store_true",
                   help="report on a run that fails verification, marked partial, leaving out unreadable files "
                        "(default: off)")
    p.add_argument("--baseline", metavar="P",
                   help="profile the others are compared with (default: the run's first profile)")
    p.add_argument("--thresholds", metavar="FILE",
                   help="TOML of practical thresholds replacing those of configs/thresholds.toml (default: none)")
    add_force_arg(p)
    p.set_defaults(func=run)


def default_out(run_dir: str) -> Path:
    from ..runformat import base_name
    return Path("reports") / base_name(run_dir)


def run(args):
    from ..runformat import locate_run, read_manifest

    out = Path(args.out) if args.out else default_out(args.run_dir)
    study = mark_at(args.run_dir)
    if study is not None:  # a `kalooki tune` study: its page (the metric against the parameter, the answer)
        from analysis.tune_page import study_page
        with report_dir(out, "tune", [str(study["doc"].get("study_id"))], args.force, log=stderr_log(args)) as where:
            study_page(args.run_dir, where)
        print(f"wrote {out / 'report.html'}\n  the tune study's page, with report.md, figures/ and data/ beside it "
              f"in {out}/")
        return 0
    run_id = read_manifest(locate_run(args.run_dir)).get("run_id")
    from analysis import load
    from analysis.report import write_report
    if args.allow_partial:
        for problem in load.verify_run(args.run_dir):
            print(f"kalooki report: warning: {problem}", file=sys.stderr)
    with report_dir(out, "report", [str(run_id)], args.force, log=stderr_log(args)) as where:
        write_report(args.run_dir, where, allow_partial=args.allow_partial, baseline=args.baseline,
                     thresholds_file=args.thresholds)
    print(f"wrote {out / 'report.html'}\n  with report.md, figures/ and data/ beside it in {out}/")
    return 0
