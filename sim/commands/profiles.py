"""`kalooki profiles` and `kalooki profiles show NAME`."""
from __future__ import annotations

from .. import profiles


def register(sub):
    p = sub.add_parser("profiles", help="list rule profiles, or show one's every parameter")
    p.add_argument("action", nargs="?", choices=["list", "show"], default="list")
    p.add_argument("name", nargs="?", help="profile to show")
    p.add_argument("--set", action="append", dest="sets", default=[], metavar="KEY=VALUE")
    p.set_defaults(func=run)


def run(args):
    if args.action == "list":
        for name in profiles.available():
            prof = profiles.load(name)
            print(f"{name:12s} {prof.description}")
        return 0
    if not args.name:
        from ..errors import UserError
        raise UserError(f"`profiles show` needs a profile name; available: {', '.join(profiles.available())}")
    prof = profiles.resolve(args.name, args.sets)
    print(f"# rules_hash = {prof.rules_hash()}")
    print(profiles.to_toml(prof), end="")
    return 0
