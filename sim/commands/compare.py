"""`kalooki compare DIR_A [DIR_B]`: headline metrics of two runs or two profiles, tested and corrected."""
from __future__ import annotations

from pathlib import Path

SHOWN = ["profile_a", "profile_b", "metric", "estimate_a", "estimate_b", "difference", "diff_ci_low",
         "diff_ci_high", "p_adjusted", "significant"]


def register(sub):
    p = sub.add_parser("compare", help="compare the headline metrics of two runs, or of two profiles of one run")
    p.add_argument("dir_a", metavar="DIR_A", help="run directory A")
    p.add_argument("dir_b", metavar="DIR_B", nargs="?", help="run directory B (default: compare within DIR_A)")
    p.add_argument("--profiles", metavar="A,B", help="profile of A and profile of B to compare")
    p.add_argument("--out", metavar="DIR", help="output directory (default reports/compare-NAME)")
    p.add_argument("--allow-partial", action="store_true", help="compare runs that fail verification (marked partial)")
    p.set_defaults(func=run)


def default_out(dir_a: str, dir_b: str | None, profiles: str | None) -> Path:
    name = Path(dir_a).resolve().name
    if dir_b:
        name += "-vs-" + Path(dir_b).resolve().name
    if profiles:
        name += "-" + profiles.replace(",", "-vs-")
    return Path("reports") / f"compare-{name}"


def run(args):
    from analysis.compare import write_compare
    from analysis.document import format_frame

    out = Path(args.out) if args.out else default_out(args.dir_a, args.dir_b, args.profiles)
    table, html = write_compare(args.dir_a, args.dir_b, args.profiles, out, allow_partial=args.allow_partial)
    print(format_frame(table[SHOWN]).to_string(index=False))
    print(f"\nsignificant: {table.attrs['correction']}; difference = B - A")
    print(f"design: {table.attrs.get('design', '')}")
    print(f"wrote {html}, {out / 'report.md'} and {out / 'figures'}/")
    return 0
