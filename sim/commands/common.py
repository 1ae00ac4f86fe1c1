"""Arguments shared by subcommands: --profile with --set overrides, --seed, positive counts, progress
bars, the command line a run records, and the report directories' rule (``report_dir``: the rule of
every output folder, ``sim.storage.write_whole``, with a report's mark)."""
from __future__ import annotations

import argparse
import contextlib
import json
import shlex
import sys
from pathlib import Path

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


def add_table_args(p):
    """--bots and --tables of the commands that play a grid of rule values (sweep, tune)."""
    p.add_argument("--bots", default=None, metavar="A,B,...",
                   help="bot per seat, one composition, seats rotated (default: greedy in every seat)")
    p.add_argument("--tables", default=None, metavar="MIX",
                   help="a weighted mix of table compositions, as in simulate: "
                        "'[NAME=]BOTS[:WEIGHT]; ...' (each game draws one; seats rotate) (default: --bots)")


def add_quiet_arg(p):
    p.add_argument("-q", "--quiet", action="store_true",
                   help="no progress bars or progress messages on stderr (default: shown when stderr is a "
                        "terminal; summaries always go to stdout)")


def show_progress(args) -> bool:
    """Progress bars only on a terminal, and never with --quiet."""
    return not getattr(args, "quiet", False) and sys.stderr.isatty()


def positive_int(text: str) -> int:
    """argparse type of a count (games, workers, shard size): an integer >= 1 (a usage error otherwise)."""
    try:
        value = int(str(text).strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer; allowed: 1 or more") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not allowed; allowed: 1 or more")
    return value


# A report directory's mark: which command wrote it, for which runs (their run_ids).  A directory is
# replaced only by a report of the same kind and runs, or with --force.
REPORT_MARK = ".kalooki-report.json"


def add_force_arg(p, what: str = "report", help: str | None = None):
    p.add_argument("--force", action="store_true",
                   help=help or f"replace --out even when it holds something other than this {what} of the same "
                                "run(s); a run's own folder is never replaced (default: off)")


def _report_mark(loc) -> dict | None:
    """What a report directory's mark says, in ``sim.storage.claim_output``'s terms."""
    from ..runformat import read_bytes
    data = read_bytes(loc.fs, loc.path(REPORT_MARK))
    found = json.loads(data) if data is not None else None
    if not isinstance(found, dict) or "kind" not in found:
        return None
    runs = [str(r) for r in found.get("runs", [])]
    return {"kind": found["kind"], "identity": {"runs": runs},
            "about": f"the {found['kind']} of run(s) {', '.join(runs)}"}


@contextlib.contextmanager
def report_dir(out, kind: str, run_ids: list[str], force: bool = False, log=None):
    """Write this ``kind`` of report (report, compare, sweep) of ``run_ids`` to the local folder ``out``
    by the rule of every output folder (``sim.storage.write_whole``): refused (UserError) when ``out``
    holds anything else, another run's report or files no report of this tool marked as its own,
    unless ``force``; never into a run's folder.  Yields the folder to write in (a hidden sibling of
    ``out``), moved into place with its mark when the block ends; a stop or an error leaves ``out`` as
    it was.  ``log`` gets the line that says a report of other runs is replaced."""
    from ..storage import write_whole
    out = Path(out)
    runs = [str(r) for r in run_ids]
    with write_whole(str(out), kind, {"runs": runs}, read_mark=_report_mark, force=force, log=log,
                     about=f"the {kind} of run(s) {', '.join(runs)}", mark_name=REPORT_MARK) as output:
        where = Path(output.path)
        yield where
        (where / REPORT_MARK).write_text(json.dumps({"kind": kind, "runs": runs}) + "\n")


def stderr_log(args):
    """Where a command's progress lines go: stderr, nothing with --quiet."""
    quiet = getattr(args, "quiet", False)
    return (lambda msg: None) if quiet else (lambda msg: print(msg, file=sys.stderr))


def command_line(name: str, args, options=(), switches=()) -> str:
    """The command as typed, for manifests and reproduce lines: ``kalooki NAME``, then ``--config``,
    each ``--profile`` (or the one ``profile`` of a one-profile command) and ``--set`` given, each of ``options`` ((flag, value) pairs) that is set and
    each of ``switches`` ((flag, on) pairs) that is on."""
    parts = ["kalooki", name]
    if getattr(args, "config", None):
        parts += ["--config", args.config]
    profiles = getattr(args, "profiles", None) or ([args.profile] if getattr(args, "profile", None) else [])
    for prof in profiles:
        parts += ["--profile", prof]
    for s in args.sets or []:
        parts += ["--set", s]
    for flag, value in options:
        if value is not None:
            parts += [flag, str(value)]
    parts += [flag for flag, on in switches if on]
    return shlex.join(parts)


def add_ray_args(p, shard_help: str, count=int):
    """--workers, --address, --shard-games and --local: where a run's shards are played (``count``
    parses the two counts)."""
    p.add_argument("--workers", type=count, metavar="W", help="Ray workers (default: every core)")
    p.add_argument("--address", metavar="ADDR",
                   help="join this Ray cluster (default: $RAY_ADDRESS if set, else a private local Ray)")
    p.add_argument("--shard-games", type=count, dest="shard_games", metavar="M", help=shard_help)
    p.add_argument("--local", action="store_true", help="play every shard in this process, without Ray (default: off)")
