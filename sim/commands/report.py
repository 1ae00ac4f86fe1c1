"""`kalooki report DIR`: verify a run and write its balance report (HTML and Markdown)."""
from __future__ import annotations

import sys
from pathlib import Path


def register(sub):
    p = sub.add_parser("report", help="verify a run and write its balance report (HTML + Markdown)")
    p.add_argument("run_dir", metavar="DIR", help="run directory written by `kalooki simulate`")
    p.add_argument("--out", metavar="DIR", help="output directory (default reports/<name of DIR>)")
    p.add_argument("--allow-partial", action="store_true",
                   help="report on a run that fails verification, marked partial, leaving out unreadable files "
                        "(default: off)")
    p.set_defaults(func=run)


def default_out(run_dir: str) -> Path:
    return Path("reports") / Path(run_dir).resolve().name


def run(args):
    from analysis import load
    from analysis.report import write_report

    out = Path(args.out) if args.out else default_out(args.run_dir)
    if args.allow_partial:
        for problem in load.verify_run(args.run_dir):
            print(f"kalooki report: warning: {problem}", file=sys.stderr)
    html = write_report(args.run_dir, out, allow_partial=args.allow_partial)
    print(f"wrote {html}, {out / 'report.md'} and {out / 'figures'}/")
    return 0
