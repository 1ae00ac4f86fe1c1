"""Arguments shared by subcommands: --profile with --set overrides, --seed, and progress bars."""
from __future__ import annotations

import argparse
import sys

from .. import profiles

SEED_MAX = 2 ** 63 - 1
WIDTH = 100  # terminal columns every printed table keeps within


def add_profile_args(p, multiple: bool = False, default: str | None = "kalooki40"):
    if multiple:
        p.add_argument("--profile", action="append", dest="profiles", metavar="P",
                       help="rule profile, repeatable; see `kalooki profiles` (default: none, or the run "
                            "config's profiles)")
    else:
        p.add_argument("--profile", default=default, metavar="P",
                       help="rule profile name or TOML file (default: %(default)s)")
    p.add_argument("--set", action="append", dest="sets", default=[], metavar="KEY=VALUE",
                   help="override a profile parameter, repeatable, e.g. --set opening_min=51 (default: none)")


def profile_from_args(args) -> profiles.Profile:
    return profiles.resolve(args.profile, args.sets)


def seed(text: str) -> int:
    """argparse type of every --seed: an integer 0..2**63-1 (a usage error, status 2, otherwise)."""
    try:
        value = int(str(text).strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer; allowed: 0..{SEED_MAX}") from None
    if not 0 <= value <= SEED_MAX:
        raise argparse.ArgumentTypeError(f"{value} is out of range; allowed: 0..{SEED_MAX}")
    return value


def add_seed_arg(p, default: int | None = 1, required: bool = False, what: str = "random seed",
                 default_text: str | None = None):
    """--seed, checked by ``seed``; the help says the default (``default_text`` where it is not a number)."""
    said = "required" if required else f"default: {default_text or default}"
    p.add_argument("--seed", type=seed, default=None if required else default, required=required, metavar="S",
                   help=f"{what}, an integer 0..2**63-1 ({said})")


def add_quiet_arg(p):
    p.add_argument("-q", "--quiet", action="store_true",
                   help="no progress bars or progress messages on stderr (default: shown when stderr is a "
                        "terminal; summaries always go to stdout)")


def show_progress(args) -> bool:
    """Progress bars only on a terminal, and never with --quiet."""
    return not getattr(args, "quiet", False) and sys.stderr.isatty()
