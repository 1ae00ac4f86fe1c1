"""`kalooki profiles [list]`, `kalooki profiles show NAME` and `kalooki profiles diff A B`.

`show` prints every parameter with its value and its one-line meaning (declared in sim/profiles.py);
`diff` prints the parameters whose values differ.  Both fit WIDTH columns.
"""
from __future__ import annotations

import json
import textwrap

from .. import profiles
from ..errors import UserError
from .common import WIDTH


def register(sub):
    p = sub.add_parser("profiles", help="list rule profiles; show one's parameters; diff two",
                       description="`kalooki profiles` lists the profiles; `kalooki profiles show NAME` prints "
                                   "every parameter with its value and meaning; `kalooki profiles diff A B` "
                                   "prints the parameters that differ.  NAME may also be a profile TOML file.")
    p.add_argument("action", nargs="?", choices=["list", "show", "diff"], default="list",
                   help="list, show or diff (default: list)")
    p.add_argument("names", nargs="*", metavar="NAME", help="profile to show, or the two profiles to diff")
    p.add_argument("--set", action="append", dest="sets", default=[], metavar="KEY=VALUE",
                   help="override a parameter of the profile shown, or of B in a diff, repeatable "
                        "(default: none)")
    p.add_argument("--toml", action="store_true",
                   help="show: print the profile as a TOML file holding every parameter, to copy and "
                        "edit (default: off)")
    p.set_defaults(func=run)


def value_text(v) -> str:
    """A parameter value as it is written in a profile file."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k} = {x}" for k, x in v.items()) + "}"
    if v is None:
        return "(none)"
    return json.dumps(v) if isinstance(v, str) else str(v)


def params_of(prof) -> dict:
    out = prof.params()
    out["hand_size_by_players"] = out["hand_size_by_players"] or {}
    out["deal_pattern"] = out["deal_pattern"] or []
    return out


def table(header: list[str], rows: list[list[str]], width: int = WIDTH) -> list[str]:
    """Columns sized to their content; the last (the meaning) wrapped to fit ``width``."""
    cols = len(header)
    widths = [max(len(r[i]) for r in [header] + rows) for i in range(cols - 1)]
    indent = sum(widths) + 2 * (cols - 1)
    room = max(20, width - indent)
    lines = []
    for r in [header] + rows:
        head = "".join(f"{r[i]:<{widths[i]}}  " for i in range(cols - 1))
        wrapped = textwrap.wrap(r[-1], room) or [""]
        lines.append((head + wrapped[0]).rstrip())
        lines += [" " * indent + w for w in wrapped[1:]]
    return lines


def _one(names, what: str) -> str:
    if len(names) != 1:
        raise UserError(f"`profiles {what}` takes one profile name, got {len(names)}; "
                        f"available: {', '.join(profiles.available())}")
    return names[0]


def run(args):
    if args.action == "list":
        if args.names:
            raise UserError(f"`profiles list` takes no names (got {' '.join(args.names)}); "
                            "`profiles show NAME` shows one")
        rows = [[name, profiles.load(name).description] for name in profiles.available()]
        print("\n".join(table(["profile", "what it is"], rows)))
        return 0
    if args.action == "show":
        prof = profiles.resolve(_one(args.names, "show"), args.sets)
        if args.toml:
            print(f"# rules_hash = {prof.rules_hash()}")
            print(profiles.to_toml(prof), end="")
            return 0
        print(f"profile {prof.name} (rules_hash {prof.rules_hash()})")
        print("\n".join(textwrap.wrap(prof.description, WIDTH)))
        print()
        rows = [[k, value_text(v), profiles.meaning(k)] for k, v in params_of(prof).items()]
        print("\n".join(table(["parameter", "value", "meaning"], rows)))
        return 0
    # diff
    if len(args.names) != 2:
        raise UserError(f"`profiles diff` takes two profile names, got {len(args.names)}; "
                        f"available: {', '.join(profiles.available())}")
    a = profiles.load(args.names[0])
    b = profiles.resolve(args.names[1], args.sets)
    pa, pb = params_of(a), params_of(b)
    differ = [k for k in pa if pa[k] != pb[k]]
    if not differ:
        print(f"{a.name} and {b.name} have the same rules (rules_hash {a.rules_hash()})")
        return 0
    rows = [[k, value_text(pa[k]), value_text(pb[k]), profiles.meaning(k)] for k in differ]
    print(f"{len(differ)} of {len(pa)} parameters {'differs' if len(differ) == 1 else 'differ'} between {a.name} and {b.name}:")
    print("\n".join(table(["parameter", a.name, b.name, "meaning"], rows)))
    return 0
