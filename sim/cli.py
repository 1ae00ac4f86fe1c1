"""The `kalooki` console command: one subcommand per module in ``sim.commands``.

Every subcommand gets ``-q/--quiet`` here; every ``UserError`` (profile, card and other bad input)
is printed as one line and ends the command with status 2, an interrupt (Ctrl-C) with status 130.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from .commands.common import add_quiet_arg
from .errors import UserError, is_interrupt

INTERRUPTED = 130  # the shell's status for a command ended by SIGINT (128 + 2)
# Subcommand modules, in the order `kalooki -h` lists them.
COMMANDS = ["profiles", "meld", "deals", "play", "tournament", "simulate", "verify", "replay",
            "report", "compare", "sweep", "skill", "frontier"]


def version_text() -> str:
    from importlib import metadata

    from .schema import ENGINE_VERSION, SCHEMA_VERSION
    try:
        package = metadata.version("kalooki-lab")
    except metadata.PackageNotFoundError:  # a source tree used without installing it
        package = "(not installed)"
    return f"kalooki {package} (engine {ENGINE_VERSION}, schema {SCHEMA_VERSION})"


class _Version(argparse.Action):
    """--version, computed only when asked (it imports the schema)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(version_text())
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kalooki", description="Simulate Kalooki rule variants and report how the rules shape the game.")
    parser.add_argument("--version", action=_Version,
                        help="print the package, engine and schema versions and exit")
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
    for p in sub.choices.values():
        if not any("--quiet" in a.option_strings for a in p._actions):
            add_quiet_arg(p)
    return parser


def main(argv: list[str] | None = None) -> int:
    command = None
    try:
        parser = build_parser()
        try:
            args = parser.parse_args(argv)
        except SystemExit as e:  # argparse's usage errors: status 2, message already printed
            return int(e.code or 0)
        command = args.command
        try:
            rc = args.func(args)
        except UserError as e:
            print(f"kalooki {command}: error: {e}", file=sys.stderr)
            return 2
        except BrokenPipeError:
            return 0
        return int(rc or 0)
    except BaseException as e:  # Ctrl-C: one line (what is written and how to go on), no traceback
        if not is_interrupt(e):
            raise
        said = isinstance(e, KeyboardInterrupt) and e.args
        print(f"kalooki{' ' + command if command else ''}: {e.args[0] if said else 'interrupted'}", file=sys.stderr)
        return INTERRUPTED

if __name__ == "__main__":
    sys.exit(main())
