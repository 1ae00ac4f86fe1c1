"""The `kalooki` console command: one subcommand per module in ``sim.commands``.

Every subcommand gets ``-q/--quiet`` here; every ``UserError`` (profile, card and other bad input)
and every usage error argparse finds is printed as one line and ends the command with status 2, an
interrupt (Ctrl-C) with status 130.  The command prints no colour, so no escape code either.
"""
from __future__ import annotations

import argparse
import atexit
import difflib
import importlib
import re
import sys

from .errors import UserError, is_interrupt

INTERRUPTED = 130  # the shell's status for a command ended by SIGINT (128 + 2)
# Subcommand modules, in the order `kalooki -h` lists them.
COMMANDS = ["profiles", "meld", "deals", "play", "tournament", "simulate", "verify", "replay",
            "report", "compare", "sweep", "skill", "frontier", "ladder", "tune", "equity"]


def version_text() -> str:
    from importlib import metadata

    from .version import ENGINE_VERSION, SCHEMA_VERSION
    try:
        package = metadata.version("kalooki-lab")
    except metadata.PackageNotFoundError:  # a source tree used without installing it
        package = "(not installed)"
    return f"kalooki {package} (engine {ENGINE_VERSION}, schema {SCHEMA_VERSION})"


class _Version(argparse.Action):
    """--version anywhere before the command (``main`` answers a leading one before building the parser)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(version_text())
        parser.exit()


class Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors, like every other error of the command:
    ``kalooki CMD: error: MESSAGE; `kalooki CMD -h` lists ...`` and status 2, no usage block."""

    def error(self, message: str):
        wrong = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)$", message)
        close = difflib.get_close_matches(wrong[1], re.findall(r"'([^']*)'", wrong[2]), 1) if wrong else []
        if close:
            message += f"; did you mean '{close[0]}'?"
        lists = f"`{self.prog} -h` lists the {'commands' if self.prog == 'kalooki' else 'options'}"
        self.exit(2, f"{self.prog}: error: {message}{' ' if message.endswith('?') else '; '}{lists}\n")


def unrecognized(parser: argparse.ArgumentParser, extra: list[str]) -> str:
    """The usage error for arguments ``parser`` does not take: the closest option to each misspelt
    one, or the options it takes."""
    options = sorted({o for a in parser._actions for o in a.option_strings if o.startswith("--")})
    message = f"unrecognized argument{'s' if len(extra) > 1 else ''}: {' '.join(extra)}"
    flags = [e.split("=", 1)[0] for e in extra if e.startswith("-")]
    close = [m for f in flags for m in difflib.get_close_matches(f, options, 1)]
    if close:
        return message + f" (did you mean {' or '.join(dict.fromkeys(close))}?)"
    return message + (f" (options: {', '.join(options)})" if flags else "")


def build_parser() -> argparse.ArgumentParser:
    from .commands.common import add_quiet_arg

    parser = Parser(prog="kalooki", description="Simulate Kalooki rule variants and report how the rules shape the game.")
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
    given = list(sys.argv[1:] if argv is None else argv)
    if given == ["--version"]:  # answered without importing the commands (numpy, pyarrow)
        print(version_text())
        return 0
    try:
        parser = build_parser()
        try:
            args, extra = parser.parse_known_args(argv)
            if extra:  # named by the parser that was given them: `kalooki` before the command, else the command's
                before = given[:given.index(args.command)] if args.command in given else []
                owner = parser if any(e in before for e in extra) else _subparsers(parser)[args.command]
                owner.error(unrecognized(owner, extra))
        except SystemExit as e:  # -h, --version, usage errors: status 0 or 2, message already printed
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
    finally:
        _no_colour_reset()


def _subparsers(parser) -> dict:
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices


def _no_colour_reset() -> None:
    """Starting Ray loads the colorama it bundles, which registers a reset code (ESC[0m) to write to
    the terminal at exit; this command prints no colour, so it leaves that hook out."""
    colorama = sys.modules.get("colorama.initialise")
    if colorama is not None and hasattr(colorama, "reset_all"):
        atexit.unregister(colorama.reset_all)


if __name__ == "__main__":
    sys.exit(main())
