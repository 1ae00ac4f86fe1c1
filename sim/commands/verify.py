"""`kalooki verify RUN`: check a run's files (a directory or a URI) against its manifest and the schema."""
from __future__ import annotations


def register(sub):
    p = sub.add_parser("verify", help="check a run (directory or URI): every shard present, intact, in the schema",
                       description="Print every problem with a run's files (missing, truncated or changed part "
                                   "files, a manifest that does not match them).  Exit status 0: clean; "
                                   "1: problems found (re-running the run's command repairs them); 2: not a run.")
    p.add_argument("dir", metavar="RUN", help="run written by `kalooki simulate`: a directory or a URI "
                                              "(file:///..., s3://bucket/run?endpoint_override=...)")
    p.set_defaults(func=run)


def run(args):
    from .. import runformat
    loc = runformat.locate_run(args.dir)
    manifest = runformat.read_manifest(loc)  # not a run: UserError, exit 2
    problems = runformat.check_run(loc).problems
    for line in problems:
        print(line)
    if problems:
        print(f"{args.dir}: {len(problems)} problem(s); re-run `{manifest.get('command', 'kalooki simulate ...')}` "
              "to repair the shards it can")
        return 1
    shards = manifest.get("shards", [])
    games = sum(s.get("n_games", 0) for s in shards)
    rows = sum(s.get("files", {}).get("hands", {}).get("rows", 0) for s in shards)
    print(f"{args.dir}: ok: run {manifest.get('run_id')}, {len(manifest.get('profiles', {}))} profile(s), "
          f"{len(shards)} shard(s), {games} games, {rows} hand rows")
    return 0
