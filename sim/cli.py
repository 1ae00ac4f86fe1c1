"""The `kalooki` console command: one subcommand per module in ``sim.commands``."""
from __future__ import annotations

import argparse
import importlib
import sys

from .cards import CardError
from .errors import UserError
from .profiles import ProfileError

# Subcommand modules, in the order `kalooki -h` lists them.
COMMANDS = ["profiles", "meld", "deals", "play", "tournament", "simulate", "verify", "replay",
            "report", "compare", "sweep"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kalooki", description="Simulate Kalooki rule variants and report how the rules shape the game.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMANDS:
        try:
            mod = importlib.import_module(f"sim.commands.{name}")
        except ModuleNotFoundError as e:
            if e.name == f"sim.commands.{name}":
                continue  # not built yet
            raise
        mod.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse's usage errors: status 2, message already printed
        return int(e.code or 0)
    try:
        rc = args.func(args)
    except (UserError, ProfileError, CardError) as e:
        print(f"kalooki {args.command}: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    return int(rc or 0)


if __name__ == "__main__":
    sys.exit(main())
