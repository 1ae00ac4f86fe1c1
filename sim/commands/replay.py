"""`kalooki replay RUN --game G --hand H`: print one recorded hand turn by turn (needs --events turns).

Seats are the table's, from 0 (the ``seat`` column); each deal says which seat deals and names the
seats' places by order of play (``seat_from_dealer``: "1st to play" is the dealer's left)."""
from __future__ import annotations

import argparse

from ..errors import UserError
from ..words import counted


def number(lowest: int):
    """argparse type of a game (from 0) or hand (from 1) number: a usage error naming what is allowed."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer; allowed: {lowest} or more") from None
        if value < lowest:
            raise argparse.ArgumentTypeError(f"{value} is not allowed; allowed: {lowest} or more")
        return value
    return parse


def register(sub):
    p = sub.add_parser("replay", help="print one hand of a run turn by turn (runs made with --events turns)")
    p.add_argument("dir", metavar="RUN",
                   help="run written by `kalooki simulate --events turns`: a directory or a URI (required)")
    p.add_argument("--game", type=number(0), required=True, metavar="G",
                   help="game number, from 0 as the game_id column (required)")
    p.add_argument("--hand", type=number(1), required=True, metavar="H",
                   help="hand number in the game, from 1 as the hand_no column (required)")
    p.add_argument("--profile", metavar="P", help="profile (default: the run's only profile; needed when it has several)")
    p.set_defaults(func=run)


def _files(args, loc, manifest, table, profile):
    """The files of `table` of the shard holding game args.game (RunFiles on the run's filesystem)."""
    from .. import runformat
    files = []
    for shard in manifest["shards"]:
        if shard.get("profile") != profile:
            continue
        if not shard.get("first_game", 0) <= args.game < shard.get("first_game", 0) + shard.get("n_games", 0):
            continue
        entry = shard.get("files", {}).get(table)
        if entry is None:
            raise UserError(f"run {args.dir} has no {table} table: replay needs a run made with --events turns")
        file = loc.file(entry["path"])
        if not runformat.exists(file):
            raise UserError(f"{file} is missing; `kalooki verify {args.dir}` lists what is wrong")
        files.append(file)
    return files


def _rows(files, table, game, hand):
    import pyarrow.dataset as ds
    from .. import schema
    if not files:
        return []
    data = ds.dataset([f.path for f in files], filesystem=files[0].fs, format="parquet",
                      schema=schema.arrow_schema(table))
    t = data.to_table(filter=(ds.field("game_id") == game) & (ds.field("hand_no") == hand))
    keys = ["redeal_no", "turn_no"] if table == "turns" else ["redeal_no", "seat"]
    return t.sort_by([(k, "ascending") for k in keys]).to_pylist()


def run(args):
    from .. import runformat
    loc = runformat.locate_run(args.dir)
    manifest = runformat.read_manifest(loc)
    names = list(manifest["profiles"])
    profile = args.profile
    if profile is None:
        if len(names) != 1:
            raise UserError(f"run {args.dir} has profiles {', '.join(names)}: choose one with --profile")
        profile = names[0]
    if profile not in manifest["profiles"]:
        raise UserError(f"--profile {profile!r} is not in run {args.dir}; it has {', '.join(names)}")
    games = manifest["profiles"][profile].get("games", 0)
    if not 0 <= args.game < games:
        raise UserError(f"--game {args.game}: profile {profile} of this run has games 0..{games - 1}")
    turns = _rows(_files(args, loc, manifest, "turns", profile), "turns", args.game, args.hand)
    hands = _rows(_files(args, loc, manifest, "hands", profile), "hands", args.game, args.hand)
    if not turns and not hands:
        raise UserError(f"game {args.game} of profile {profile} has no hand {args.hand} "
                        "(hands are numbered from 1; the game may have ended sooner)")
    from ..transcript import play_order  # it imports the engine: only once there is a hand to print
    wide = max((len(r["bot"]) for r in hands), default=0)
    print(f"{profile}  game {args.game}  hand {args.hand}  (run {manifest['run_id']}, seed {manifest.get('seed')})")
    redeal = None
    for t in turns:
        if t["redeal_no"] != redeal:
            redeal = t["redeal_no"]
            dealt = sorted((r for r in hands if r["redeal_no"] == redeal), key=lambda r: r["seat_from_dealer"])
            print(f"\n-- deal {redeal}" + (" (re-deal after a void hand)" if redeal else "")
                  + (f": seat {dealt[-1]['seat']} deals" if dealt else ""))
            for r in dealt:
                print(f"   seat {r['seat']} {r['bot']:<{wide}}  {play_order(r['seat_from_dealer'], len(dealt))}")
        src = "stock  " if t["draw"] == "stock" else "discard"
        line = f"{t['turn_no']:4d}  seat {t['seat']}  {src} drew {t['drawn']:<4s}"
        if t["actions"]:
            line += f"  {t['actions']}"
        line += f"  discard {t['discard']}" if t["discard"] is not None else "  goes out"
        print(line)
        print(f"{'':6s}hand: {t['hand_after'] or '(empty)'}")
    print("\nresult:")
    for r in hands:
        if r["redeal_no"] != (redeal if redeal is not None else r["redeal_no"]):
            continue
        what = (f"won ({r['win_type']})" if r["won"] else f"penalty {r['penalty']}, {counted(r['cards_left'], 'card')} left")
        opened = f"opened in round {r['open_round']} with {r['open_value']}" if r["opened"] else "never opened"
        print(f"  seat {r['seat']} {r['bot']:<{wide}}  {what}; {opened}; total {r['penalty_total']}"
              + ("; void hand" if r["void"] else "") + ("; stalled" if r["stalled"] else ""))
    return 0
