"""Arguments shared by subcommands: --profile with --set overrides."""
from __future__ import annotations

from .. import profiles


def add_profile_args(p, multiple: bool = False, default: str | None = "kalooki40"):
    if multiple:
        p.add_argument("--profile", action="append", dest="profiles", metavar="P",
                       help="rule profile (repeatable); see `kalooki profiles`")
    else:
        p.add_argument("--profile", default=default, metavar="P", help="rule profile (default %(default)s)")
    p.add_argument("--set", action="append", dest="sets", default=[], metavar="KEY=VALUE",
                   help="override a profile parameter (repeatable), e.g. --set opening_min=51")


def profile_from_args(args) -> profiles.Profile:
    return profiles.resolve(args.profile, args.sets)
