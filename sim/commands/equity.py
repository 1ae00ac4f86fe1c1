"""`kalooki equity`: build, show and check a profile's equity table (the game's value of a score sheet,
``sim.equity``; docs/EQUITY.md).

``build`` plays the sample hands with the bots (every seat the expert by default) and plays games on
from every grid sheet; ``show`` prints a slice; ``calibrate`` plays whole games the table was not built
from and sets the value it predicts at a sheet against what came of it.
"""
from __future__ import annotations

import argparse
import datetime
import math
import os
import shlex
import tempfile
import time
import zlib
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .. import profiles
from ..errors import UserError
from ..words import counted
from .common import add_profile_args, add_quiet_arg, add_seed_arg, positive_int, profile_from_args, show_progress

if TYPE_CHECKING:  # the annotations' type: sim.equity (compiled, with the engine) is imported where a table is used
    from ..equity import EquityTable

DEFAULT_HANDS = 3000
DEFAULT_SIMS = {"elimination": 1536}  # by game_end; 384 otherwise
DEFAULT_BOT = "expert"
DEFAULT_PASSES = {"elimination": 2}  # by game_end; 1 otherwise
DEFAULT_GAMES = 1500  # whole games the sample hands of a pass after the first come from
DEFAULT_TOLERANCE = 0.002


def nonnegative_float(text: str) -> float:
    """argparse type of a tolerance: a number >= 0 (a usage error otherwise)."""
    try:
        value = float(str(text).strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number; allowed: 0 or more") from None
    if not value >= 0 or math.isinf(value):
        raise argparse.ArgumentTypeError(f"{text} is not allowed; allowed: a finite number, 0 or more")
    return value


def register(sub):
    p = sub.add_parser("equity", help="the game's value of a score sheet: build, show or check a profile's table")
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True

    b = actions.add_parser("build", help="play sample hands and games on from a grid of sheets; write the table")
    add_profile_args(b)
    b.add_argument("--players", type=positive_int, metavar="N",
                   help="players at the table (default: the profile's players)")
    b.add_argument("--hands", type=positive_int, default=DEFAULT_HANDS, metavar="N",
                   help="sample hands with every player dealt in; an elimination game's table plays half as many "
                        "at each smaller count too (default: %(default)s)")
    b.add_argument("--sims", type=positive_int, metavar="M",
                   help="games played on from every grid sheet (default: 1536 in an elimination game, 384 "
                        "otherwise)")
    b.add_argument("--bot", default=DEFAULT_BOT, metavar="NAME",
                   help="the bot in every seat of the sample hands (default: %(default)s)")
    b.add_argument("--passes", type=positive_int, metavar="N",
                   help="most passes: pass 1 plays the sample hands at random sheets with neutral stakes, each "
                        "later one takes them from whole games played by the stakes of the table before "
                        "(default: 2 for an elimination game, else 1)")
    b.add_argument("--games", type=positive_int, default=DEFAULT_GAMES, metavar="N",
                   help="whole games played for the sample hands of each pass after the first "
                        "(default: %(default)s)")
    b.add_argument("--tolerance", type=nonnegative_float, default=DEFAULT_TOLERANCE, metavar="T",
                   help="stop when a pass moves the table's chances of winning by less than T on average over the "
                        "grid's sheets (default: %(default)s)")
    add_seed_arg(b, default=1)
    b.add_argument("--out", metavar="FILE",
                   help="the .npz to write (default: the shipped table's file, configs/equity/PROFILE-Np.npz)")
    b.add_argument("--force", action="store_true", help="replace --out if it exists (default: off)")
    b.set_defaults(func=run_build)

    s = actions.add_parser("show", help="print a slice of a profile's table")
    add_profile_args(s)
    s.add_argument("--table", metavar="FILE", help="a table file (default: the shipped table of the profile)")
    s.set_defaults(func=run_show)

    c = actions.add_parser("calibrate",
                           help="predicted value against the outcome of games the table was not made from")
    add_profile_args(c)
    c.add_argument("--table", metavar="FILE", help="a table file, whose stakes the games are played by "
                                                    "(default: the shipped table of the profile)")
    c.add_argument("--games", type=positive_int, default=400, metavar="N",
                   help="games to play (default: %(default)s)")
    c.add_argument("--bins", type=positive_int, default=5, metavar="B",
                   help="bins of predicted value (default: %(default)s)")
    add_seed_arg(c, default=2)
    c.set_defaults(func=run_calibrate)
    for action in (b, s, c):
        add_quiet_arg(action)


# ---------------------------------------------------------------------------------------------
# build

def bots_for(name: str):
    from ..bots import make_bot, unparametrised_error
    if unparametrised_error(name):
        raise UserError(f"--bot: {unparametrised_error(name)}")

    def make(n_in, rngs):
        return [make_bot(name, rngs[i]) for i in range(n_in)]
    return make


def buys_by_table(bot: str) -> bool:
    """Whether ``bot`` buys back in by the table of game values (``buy_in = 2``: the expert and the
    lookahead; the search so set), so that the games a build plays on let the players buy in as it does."""
    import numpy as np

    from ..bots import make_bot
    from ..bots.expert import BUY_TABLE
    return getattr(make_bot(bot, np.random.default_rng(0)), "buy_in_rule", None) == BUY_TABLE


def buy_in_record(profile, by_table: bool, passes: int) -> str:
    """How the games a build plays on buy back in, as the table's record says it."""
    if not profile.buy_ins_allowed:
        return "none: the profile has no buy-ins"
    if by_table and passes > 1:
        return "the table of the pass before (buy_in_gain) for every seat inside the model, the pool rule in pass 1"
    return "the pool rule (sim.sheet.pool_rule_buys) for every seat inside the model"


def default_passes(profile) -> int:
    return DEFAULT_PASSES.get(profile.game_end, 1)


def default_sims(profile) -> int:
    return DEFAULT_SIMS.get(profile.game_end, 384)


def collect_game_hands(profile, n_players: int, games: int, seed: int, bot: str, table, progress=None):
    """The sample hands of a pass after the first: every hand of ``games`` whole games by ``bot`` in every
    seat, played by the stakes of ``table`` (the pass before), each with its class from the sheet it was
    dealt at (``sim.equity.game_hand_row``).  The games' streams: (seed, profile, game), as ``kalooki
    simulate --seed`` plays them."""
    from .. import equity as EQ
    r = EQ.rules_vector(profile, n_players)
    rows = []
    with EQ.stakes_from(profile, table):
        for game, starts, _ in _games(profile, games, seed, n_players, bot, progress):
            hands = [h for h in game.hands if h.sheet is not None]
            for rec, sheet in zip(hands, starts):
                rows.append(EQ.game_hand_row(r, sheet.totals, rec.seats, rec.dealer, rec.state.result))
    return EQ.samples_from_rows(rows)


def build(profile, n_players: int, hands: int, sims: int, seed: int, bot: str = DEFAULT_BOT,
          command: str = "", progress: bool = False, passes: int | None = None,
          tolerance: float = DEFAULT_TOLERANCE, games: int = DEFAULT_GAMES) -> EquityTable:
    """Build the table to a fixed point: pass 1 plays the sample hands at random sheets with neutral
    stakes and builds a table from them (``sim.equity.build_table``); each later pass takes its sample
    hands from ``games`` whole games (the same seeds) played by the stakes the table of the pass before
    gives (``collect_game_hands``), and builds again, until the table moves by less than ``tolerance``
    (``sim.equity.table_change``, the mean) or ``passes`` passes are made (default ``default_passes``).
    Its making is recorded in ``meta``."""
    from tqdm import tqdm

    from .. import equity as EQ
    from ..schema import ENGINE_VERSION
    profiles.check_players(profile, n_players)
    passes = default_passes(profile) if passes is None else passes
    wanted = sum(EQ.hands_wanted(profile, n_players, hands).values())
    cpu = {"hands": 0.0, "values": 0.0}
    table, changes = None, []
    by_table = buys_by_table(bot)
    for k in range(1, passes + 1):
        t0 = time.process_time()
        if k == 1:
            with tqdm(total=wanted, desc=f"pass {k}: sample hands", unit="hand", disable=not progress,
                      leave=False) as bar:
                first = samples = EQ.collect_hands(profile, n_players, hands, seed, bots_for(bot),
                                                   progress=bar.update)
        else:  # a count of players in the games rarely reach keeps pass 1's hands (sim.equity.filled_from)
            with tqdm(total=games, desc=f"pass {k}: games", unit="game", disable=not progress, leave=False) as bar:
                samples = EQ.filled_from(collect_game_hands(profile, n_players, games, seed, bot, table,
                                                            progress=bar.update), first)
        t1 = time.process_time()
        meta = {"profile": profile.name, "rules_hash": profile.rules_hash(), "players": n_players,
                "command": command, "seed": seed, "hands": hands, "hands_played": int(len(samples.winner)),
                "bot": bot, "engine_version": ENGINE_VERSION,
                "built": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                "buy_in_rule": buy_in_record(profile, by_table, passes),
                "sample_stakes": "pass 1: hands at random sheets, neutral stakes; pass k: the hands of whole "
                                 "games played by pass k-1's stakes", "games": games if passes > 1 else 0}
        with tqdm(desc=f"pass {k}: grid sheets", unit="sheet", disable=not progress, leave=False) as bar:
            new = EQ.build_table(profile, n_players, samples, seed, sims, meta, progress=bar.update,
                                 buy_ins=table if by_table else None)
        cpu["hands"] += t1 - t0
        cpu["values"] += time.process_time() - t1
        if table is not None:
            changes.append(EQ.table_change(new, table))
        table = new
        if changes and changes[-1]["mean"] < tolerance:
            break
    table.meta["passes"] = {"made": k, "most": passes, "tolerance": tolerance, "converged": bool(
        changes and changes[-1]["mean"] < tolerance), "changes": changes}
    table.meta["cpu_s"] = {key: round(v, 1) for key, v in cpu.items()}
    return table


def run_build(args):
    from .. import equity as EQ
    prof = profile_from_args(args)
    n = args.players or prof.players
    try:
        profiles.check_players(prof, n)
    except profiles.ProfileError as e:
        raise UserError(str(e)) from None
    if not args.out and (args.sets or prof.name not in profiles.available()):
        raise UserError("--out FILE is needed for a profile other than a shipped one as it ships (the shipped "
                        "tables are read by profile name and rules)")
    out = Path(args.out) if args.out else Path(str(EQ.shipped_path(prof.name, n)))
    if out.suffix != ".npz":
        raise UserError(f"--out {out}: an equity table is a .npz file; give a name ending in .npz")
    if out.exists() and not args.force:
        raise UserError(f"--out {out} exists; add --force to replace it")
    if not out.parent.is_dir():
        raise UserError(f"--out {out}: no folder {out.parent}")
    bots_for(args.bot)
    sims = default_sims(prof) if args.sims is None else args.sims
    words = ["kalooki", "equity", "build", "--profile", args.profile] + [w for s in args.sets for w in ("--set", s)]
    for flag, value, default in (("--players", args.players, None), ("--hands", args.hands, DEFAULT_HANDS),
                                 ("--sims", sims, default_sims(prof)), ("--bot", args.bot, DEFAULT_BOT),
                                 ("--passes", args.passes, default_passes(prof)),
                                 ("--games", args.games, DEFAULT_GAMES),
                                 ("--tolerance", args.tolerance, DEFAULT_TOLERANCE)):
        if value is not None and value != default:
            words += [flag, str(value)]
    words += ["--seed", str(args.seed)]
    table = build(prof, n, args.hands, sims, args.seed, args.bot, shlex.join(words), show_progress(args),
                  args.passes, args.tolerance, args.games)
    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=f".{out.name}.", suffix=".tmp")
    os.close(fd)
    try:
        EQ.save(table, tmp)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # as a file opened for writing would be (mkstemp's is private)
        os.replace(tmp, out)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    cpu = table.meta["cpu_s"]
    values = (f"{table.meta['sheets']} grid sheets x {sims} games" if "sheets" in table.meta
              else "its one sheet's payments")
    print(f"{out}: {prof.name} at {n} players, {table.meta['hands_played']} sample hands, {values}; "
          f"{_passes_line(table.meta)}; {cpu['hands']} + {cpu['values']} CPU-s")


def _passes_line(meta) -> str:
    """How many passes made the table and what the last one changed."""
    ps = meta.get("passes")
    if not isinstance(ps, dict):
        return "one pass, neutral stakes"
    line = counted(ps['made'], 'pass', 'passes') + ("" if ps.get("changes") else ", neutral stakes")
    if ps.get("changes"):
        last = ps["changes"][-1]
        line += (f", the last moving {last['of']} by {last['mean']:.4f} on average ({last['max']:.3f} at most; "
                 f"{'within' if ps['converged'] else 'not within'} the tolerance {ps['tolerance']})")
    return line


# ---------------------------------------------------------------------------------------------
# show

def _table_or_error(prof, path):
    from .. import equity as EQ
    if path:
        try:
            table = EQ.read(path)
        except (ValueError, OSError) as e:
            raise UserError(str(e)) from None
        why = EQ.mismatch(table, prof, table.n)
        if why:
            raise UserError(f"--table {path}: {why}; give its profile with --profile (and --set)")
        return table
    table = EQ.load_table(prof)
    if table is None:
        raise UserError(f"no shipped equity table for profile {prof.name!r} with these rules at {prof.players} "
                        "players; make one with `kalooki equity build` and --out FILE, and name it with --table FILE")
    return table


def run_show(args):
    from .. import equity as EQ
    prof = profile_from_args(args)
    table = _table_or_error(prof, args.table)
    meta = table.meta
    print(f"{prof.name}: equity table at {table.n} players ({table.units})")
    print(f"made by: {meta.get('command')}")
    made = f"  engine {meta.get('engine_version')}, {meta.get('built')}, {meta.get('hands_played')} sample hands by {meta.get('bot')}"
    if "sheets" in meta:
        made += f",\n  {meta['games_per_sheet']} games played on from each of {meta['sheets']} sheets"
    cpu = meta.get("cpu_s")
    if isinstance(cpu, dict):
        made += f"; {cpu.get('hands')} + {cpu.get('values')} CPU-s (hands + values)"
    print(made)
    print(f"  {_passes_line(meta)}")
    print(f"a penalty point on a fresh sheet is worth {table.scale:.4g} (value units)")
    if table.kind == EQ.KIND_SINGLE:
        info = meta.get("single_hand", {})
        print(f"going out: {info.get('win_plain_mean', 0):.2f} units received; Kalooki "
              f"{info.get('win_kalooki_mean', 0):.2f}")
        paid = sorted(info.get("paid_at", {}).items(), key=lambda kv: int(kv[0]))
        print("paid (stake units) at a penalty of " + ", ".join(f"{x}: {v:.1f}" for x, v in paid))
        return
    from ..game import Ledger
    n = table.n
    grid = [int(round(t)) for t in table.grid]
    if table.kind == EQ.KIND_ELIMINATION:
        print("Value to seat 0 in stake units (rows: its total; columns: the others' common total),")
        print(f"every seat in with {prof.max_buy_ins} buy-ins left, pool {n * prof.stake_initial}:")
    else:
        print("Chance seat 0 wins the game (rows: its score; columns: the others' common score):")
    cols = grid[::2]
    print("own \\ others " + "".join(f"{c:>7}" for c in cols))
    for t in grid[::2]:
        cells = []
        for o in cols:
            lg = Ledger(prof, n)
            lg.totals = [t] + [o] * (n - 1)
            cells.append(EQ.sheet_value(prof, lg, 0, table))
        print(f"{t:>12} " + "".join(f"{v:>7.3f}" if table.kind == EQ.KIND_TARGET else f"{v:>7.2f}" for v in cells))
    if table.kind == EQ.KIND_ELIMINATION and n == 4:
        _show_examples(prof, table)


def example_sheets(prof) -> list:
    """(label, totals, buy-ins used) of the sheets ``show`` prices, in fractions of eliminate_above."""
    top, b = prof.eliminate_above, prof.max_buy_ins

    def at(f):
        return int(round(f * top))
    return [("fresh", [0] * 4, [0] * 4),
            (f"0 against three at {at(.4)}; none left, they {b}", [0] + [at(.4)] * 3, [b, 0, 0, 0]),
            (f"{at(.8)} against three at {at(.4)}; none left, they {b}", [at(.8)] + [at(.4)] * 3, [b, 0, 0, 0]),
            (f"all at {at(.27)}; {b} left each but seat 1, none", [at(.27)] * 4, [0, b, 0, 0]),
            (f"{at(.27)} against one at {at(.93)} with none left, two at {at(.27)}",
             [at(.27), at(.93), at(.27), at(.27)], [0, b, 0, 0])]


def _show_examples(prof, table):
    """Seat 0's value, chance and stakes (points-equivalents) on a few sheets; the pool holds every stake
    and buy-in paid."""
    from .. import equity as EQ
    from ..game import Ledger
    print("Seat 0 on a few sheets (totals; buy-ins left; the pool holds every stake and buy-in paid):")
    print("its value, chance of winning, and stakes in points-equivalents: going out, taking 0, 25, 50 points")
    print(f"  {'sheet':<54} {'value':>6} {'chance':>6}{'out':>6}{'0 pts':>6}{'25':>6}{'50':>6}")
    for label, totals, used in example_sheets(prof):
        lg = Ledger(prof, 4)
        lg.totals, lg.buy_ins = totals, used
        lg.pool += prof.stake_buy_in * sum(used)
        row = EQ.hand_stakes(prof, lg, table)[0]
        value, chance = EQ.sheet_value(prof, lg, 0, table), EQ.sheet_chance(prof, lg, 0, table)
        stakes = "".join(f"{row[c]:>6.0f}" for c in (EQ.ST_WIN, EQ.ST_CURVE, EQ.ST_CURVE + 25, EQ.ST_CURVE + 50))
        print(f"  {label:<54} {value:>6.2f} {chance:>6.3f}{stakes}")


# ---------------------------------------------------------------------------------------------
# calibrate

def _games(profile, games: int, seed: int, n: int, bot: str, progress=None):
    """The calibration's games, by ``bot`` in every seat: for each, (the finished game, the sheets at its
    hand starts, the first included, and the generator that draws the point's hand and seat).  The
    games' streams: (seed, profile, game) as in a run (sim.records.make_game); the draws of hand and
    seat from (seed, profile, 2)."""
    from ..game import GameRecord, Ledger, play_on
    from ..records import ShardSpec, make_game
    spec = ShardSpec(profile, [bot] * n, seed=seed, first_game=0, n_games=games)
    pick = np.random.default_rng(np.random.SeedSequence(int(seed), spawn_key=(zlib.crc32(profile.name.encode()), 2)))
    for g in range(games):
        rng, bots = make_game(spec, g)
        game = GameRecord(ledger=Ledger(profile, n))
        starts = [game.ledger.copy()]

        def on_hand(rec, game=game, starts=starts):
            if rec.sheet is not None and not game.ledger.over:
                starts.append(game.ledger.copy())

        dealer = int(rng.integers(n))  # as sim.game.play_game draws the first dealer
        play_on(game, profile, bots, rng, dealer, on_hand=on_hand)
        yield game, starts, pick
        if progress:
            progress(1)


def play_points(profile, games: int, seed: int, table, bot: str = DEFAULT_BOT, progress=None) -> np.ndarray:
    """One point a game (``_games``, played by the stakes of ``table``): at a hand start drawn uniformly
    among the game's hands (the first included), a seat drawn among those in.  Columns: the predicted
    value then (``sheet_value``), the predicted chance of winning (``sheet_chance``), whether it won the
    game, its net payment from then to the end, the hand start's number, the game."""
    from .. import equity as EQ
    out = []
    with EQ.stakes_from(profile, table):
        for g, (game, starts, pick) in enumerate(_games(profile, games, seed, table.n, bot, progress)):
            lg = game.ledger
            h = int(pick.integers(len(starts)))
            sheet = starts[h]
            seats_in = [s for s in range(table.n) if sheet.in_game[s]]
            s = seats_in[int(pick.integers(len(seats_in)))]
            out.append((EQ.sheet_value(profile, sheet, s, table), EQ.sheet_chance(profile, sheet, s, table),
                        float(lg.winner == s), float(lg.balances[s] - sheet.balances[s]), h, g))
    return np.array(out, dtype=np.float64)


def play_single_points(profile, games: int, seed: int, table, bot: str = DEFAULT_BOT, progress=None) -> np.ndarray:
    """A single-hand game's check (``_games``, played by the stakes of ``table``): one seat a game drawn
    at random; the payment the table predicts from how its hand ended (going out plainly or Kalooki, or
    the penalty it took) and the payment it got."""
    from .. import equity as EQ
    out = []
    with EQ.stakes_from(profile, table):
        for game, _, pick in _games(profile, games, seed, table.n, bot, progress):
            final = [h for h in game.hands if h.sheet is not None][-1]
            res = final.state.result
            s = int(pick.integers(table.n))
            pos = final.seats.index(s)
            if res.winner == pos:
                col = EQ.ST_KALOOKI if res.win_type == "kalooki" else EQ.ST_WIN
            else:
                col = EQ.ST_CURVE + min(int(res.penalties[pos]), EQ.ST_XMAX)
            out.append((table.rows[s, col] * table.scale, float(game.ledger.balances[s])))
    return np.array(out, dtype=np.float64)


def calibration_bins(predicted: np.ndarray, observed: np.ndarray, bins: int, money: bool,
                     z: float = 1.959964) -> list[dict]:
    """Points binned by predicted value into equal-count bins.  A chance: the observed share with its
    Wilson interval; money: the observed mean with its t interval; both at the normal quantile ``z``
    (1.96: 95%), over the points of the bin (one a game, so independent)."""
    from scipy import stats

    from analysis.stats import wilson
    order = np.argsort(predicted, kind="stable")
    rows = []
    for part in np.array_split(order, bins):
        k = len(part)
        if k == 0:
            continue
        row = {"points": k, "predicted": float(predicted[part].mean()), "observed": float(observed[part].mean())}
        if money:
            q = stats.t.ppf(stats.norm.cdf(z), k - 1) if k > 1 else float("nan")
            half = q * observed[part].std(ddof=1) / math.sqrt(k) if k > 1 else float("nan")
            row["lo"], row["hi"] = row["observed"] - half, row["observed"] + half
        else:
            row["lo"], row["hi"] = (float(end) for end in wilson(float(observed[part].sum()), k, z))
        row["covers"] = bool(row["lo"] <= row["predicted"] <= row["hi"])
        # the bin's term of the overall test: (observed - predicted)^2 over the variance of the observed mean
        var = (predicted[part].mean() * (1 - predicted[part].mean()) / k if not money
               else (observed[part].var(ddof=1) / k if k > 1 else float("nan")))
        row["chi2"] = float((row["observed"] - row["predicted"]) ** 2 / var) if var > 0 else 0.0
        rows.append(row)
    return rows


def overall_test(rows) -> tuple:
    """(statistic, degrees of freedom, p): the bins' chi2 terms summed against chi-square with one degree
    of freedom a bin (a Hosmer-Lemeshow test on points the table was not fitted to)."""
    from scipy import stats
    stat = float(sum(r["chi2"] for r in rows))
    return stat, len(rows), float(stats.chi2.sf(stat, len(rows)))


def run_calibrate(args):
    from tqdm import tqdm

    from .. import equity as EQ
    prof = profile_from_args(args)
    table = _table_or_error(prof, args.table)
    t0 = time.process_time()
    if table.kind == EQ.KIND_SINGLE:
        with tqdm(total=args.games, desc="games", unit="game", disable=not show_progress(args), leave=False) as bar:
            points = play_single_points(prof, args.games, args.seed, table, progress=bar.update)
        print(f"{prof.name}: {args.games} single-hand games by {DEFAULT_BOT} (seed {args.seed}; the table: seed "
              f"{table.meta.get('seed')}), one seat a game drawn at random; {time.process_time() - t0:.0f} CPU-s")
        print("  payment (stake units) predicted from how the seat's hand ended: mean, 95% t interval")
        _print_bins(calibration_bins(points[:, 0], points[:, 1], args.bins, True))
        return
    with tqdm(total=args.games, desc="games", unit="game", disable=not show_progress(args), leave=False) as bar:
        points = play_points(prof, args.games, args.seed, table, progress=bar.update)
    print(f"{prof.name}: {args.games} games by {DEFAULT_BOT} (seed {args.seed}; the table: seed "
          f"{table.meta.get('seed')}), one sheet a game (a hand start and a seat in, drawn at random); "
          f"{time.process_time() - t0:.0f} CPU-s")
    checks = [("game won: share, 95% Wilson interval", points[:, 1], points[:, 2], False)]
    if table.kind == EQ.KIND_ELIMINATION and prof.pays_money:
        checks.insert(0, ("net payment from the sheet to the game's end, stake units: mean, 95% t interval",
                          points[:, 0], points[:, 3], True))
    for label, predicted, observed, money in checks:
        print(f"  {label}")
        _print_bins(calibration_bins(predicted, observed, args.bins, money))


def _print_bins(rows):
    print(f"  {'points':>7} {'predicted':>10} {'observed':>10}  interval")
    for row in rows:
        print(f"  {row['points']:>7} {row['predicted']:>10.3f} {row['observed']:>10.3f}  "
              f"[{row['lo']:.3f}, {row['hi']:.3f}]{'' if row['covers'] else '  (misses)'}")
    stat, df, p = overall_test(rows)
    print(f"  all bins: chi-square {stat:.2f} on {df} degrees of freedom, p = {p:.3f}")
