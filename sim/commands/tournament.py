"""`kalooki tournament`: bots at one table, seats rotated; shares of hands and games won, net payment."""
from __future__ import annotations

import json

from analysis.terminal import interval_text as iv

from ..errors import UserError
from ..words import counted
from .common import add_profile_args, add_seed_arg, positive_int, profile_from_args, show_progress
from .play import next_seat, parse_bots


def register(sub):
    p = sub.add_parser("tournament", help="play bots against each other with seats rotated and rank them")
    add_profile_args(p)
    p.add_argument("--bots", required=True, metavar="A,B,...",
                   help="comma-separated bots, one per seat, e.g. expert,greedy,greedy,greedy; NAME.SETTING is a "
                        "named setting of a bot, playing by the [NAME.SETTING] table of --bot-params (required)")
    p.add_argument("--games", type=positive_int, required=True, metavar="N",
                   help="games to play, at least 1 (required)")
    add_seed_arg(p, default=1)
    p.add_argument("--bot-params", dest="bot_params", metavar="FILE",
                   help="TOML of [bot] parameter = value tables like configs/bots.toml, and a [bot.SETTING] table "
                        "per named setting seated (default: the parameters in configs/bots.toml)")
    p.add_argument("--workers", type=positive_int, default=1, metavar="W",
                   help="processes to play in, at least 1; results do not depend on it (default: %(default)s)")
    p.add_argument("--duplicate", action="store_true",
                   help="play each deal once per rotation of the bots (the same cards to the same seats); "
                        "--games must be a multiple of the seats; intervals over deals (default: off)")
    p.add_argument("--versus", metavar="BOT",
                   help="with --duplicate: play the same deals again with BOT in the first bot's place and print "
                        "the first bot's hands won, edge, games won and net payment minus BOT's, paired by deal; the "
                        "first bot and BOT must each hold one seat only (default: off)")
    p.add_argument("--versus-params", dest="versus_params", metavar="FILE",
                   help="with --duplicate: the bot parameters of a second table played on the same deals (a TOML "
                        "file as for --bot-params; configs/bots.toml gives the shipped ones); without --versus the "
                        "first bot plays there again by them, so the paired differences compare two settings of "
                        "one bot (default: the first table's)")
    p.add_argument("--json", action="store_true",
                   help="print one JSON list of per-bot rows; with --versus or --versus-params, an object of "
                        "those rows and the paired differences (default: a table)")
    p.set_defaults(func=run)


def seating(prof) -> str:
    """How the bots are seated and who deals (sim.records.seating, sim.game.play_game), in the README's
    numbering."""
    return ("Seats from 0, rotated every game: game 0 seats the bots in --bots order from seat 0, and each later\n"
            "game moves every bot one seat down. Who deals: a game's first dealer is drawn, then the deal passes\n"
            f"to {next_seat(prof)} after each hand.")


def read_bot_params(path, flag: str = "--bot-params") -> dict:
    if not path:
        return {}
    import tomllib
    from ..bots import check_bot_tables
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except OSError as e:
        raise UserError(f"{flag} {path}: cannot read: {e.strerror}") from None
    except tomllib.TOMLDecodeError as e:
        raise UserError(f"{flag} {path}: malformed TOML: {e}") from None
    return check_bot_tables(data, f"{flag} {path}")


def check_game_values(params: dict, prof, n_players: int, flag: str, path) -> None:
    """Each ``game_values`` file among ``params`` (a bot's table or a named setting's) holds a table of game
    values for ``prof``'s rules at ``n_players``.  A relative path is read from the parameters file's
    folder; each is made absolute in ``params``, so the processes that play read the same file."""
    import os

    from .. import equity as EQ
    from ..bots.registry import parameter_tables
    folder = os.path.dirname(os.path.abspath(path)) if path else os.getcwd()
    for label, sub in parameter_tables(params):
        value = sub.get("game_values")
        if not value:
            continue
        full = os.path.join(folder, os.path.expanduser(value))
        where = f"{flag} {path}: [{label}] game_values = {value!r}"
        try:
            found = EQ.read_file(full)
        except (ValueError, OSError) as e:
            raise UserError(f"{where}: {e}; give a file written by `kalooki equity build --out FILE`") from None
        why = EQ.mismatch(found, prof, n_players)
        if why:
            raise UserError(f"{where}: {why}; make one with `kalooki equity build --profile {prof.name} "
                            f"--players {n_players} --out FILE`")
        sub["game_values"] = full


def check_settings(bots, params: dict, flag: str, path) -> None:
    """Every named setting among ``bots`` (``NAME.SETTING``) has its table in the parameters it plays by."""
    from ..bots import missing_settings, setting_error
    for name in missing_settings(bots, params):
        where = f"which {flag} {path} lacks" if path else f"and no {flag} file was given"
        raise UserError(setting_error(name, lambda base, _: f"{where} (an empty table plays as {base})"))


def _game_sums(frame, value: str) -> tuple:
    """(games, sum x, sum y, sum y_g^2, sum x_g^2, sum x_g y_g) over games of y = ``value`` summed over the
    game's rows and x = the number of rows: what analysis.stats needs for an interval clustered by game."""
    per = frame.groupby("game_id")[value].agg(["sum", "size"])
    y, x = per["sum"].to_numpy(float), per["size"].to_numpy(float)
    return len(per), x.sum(), y.sum(), (y * y).sum(), (x * x).sum(), (x * y).sum()


def summarise(tables):
    """Per bot: shares of its player-hands and player-games won (a game stopped at the hand cap with k
    players level on the winner's total counting 1/k to each), Kalooki wins per player-hand and net
    payment per player-game.  The rows of one game are not independent (one winner per hand and per
    game, and a bot may hold several seats), so every interval is clustered by game: shares get a Wilson
    interval at the design-effect sample size, the payment a t interval on the cluster-robust error."""
    import pandas as pd

    from analysis.ladder import game_credit
    from analysis.stats import cluster_mean, cluster_proportion
    hands = tables["hands"].to_pandas()
    hands = hands[~hands["void"] & ~hands["stalled"]].assign(
        kalooki=lambda h: h["won"] & (h["win_type"] == "kalooki"))
    games = tables["games"].to_pandas()
    games = games.assign(credit=game_credit(games))  # a game stopped level: its win shared
    rows = []
    for bot in sorted(set(hands["bot"])):
        h = hands[hands["bot"] == bot]
        g = games[games["bot"] == bot]
        hw = cluster_proportion(*_game_sums(h, "won")).iloc[0]
        gw = cluster_proportion(*_game_sums(g, "credit")).iloc[0]
        pay = cluster_mean(*_game_sums(g, "net_payment")).iloc[0]
        kal = cluster_proportion(*_game_sums(h, "kalooki")).iloc[0]
        rows.append(dict(bot=bot, player_hands=len(h), hand_win=hw.estimate, hand_win_lo=hw.ci_low,
                         hand_win_hi=hw.ci_high, player_games=len(g), game_win=gw.estimate, game_win_lo=gw.ci_low,
                         game_win_hi=gw.ci_high, net_payment=pay.estimate, net_payment_lo=pay.ci_low,
                         net_payment_hi=pay.ci_high, kalooki_rate=kal.estimate))
    return pd.DataFrame(rows)


def deal_level(tables: dict, n_seats: int):
    """One row per (deal, bot) of a duplicate tournament: the bot's averages over the deal's rotations.

    ``hand_win``: hands won / player-hands the bot played in the deal's games (void and stalled hands
    left out); ``game_win``, ``net_payment`` (units per game) and ``kalooki_rate`` (Kalooki wins per
    player-hand) likewise per deal, a game stopped at the hand cap with k players level on the winner's
    total counting 1/k to each of them (``analysis.ladder.game_credit``; the recorded winner of such a
    game is decided by seat).  ``*_edge``: the bot's value minus the mean of the other bots' values
    in the same deal (the bots' edges sum to zero in every deal)."""
    import pandas as pd

    from analysis.ladder import game_credit  # a game stopped level shared, as the ladder counts it
    hands = tables["hands"].to_pandas()
    hands = hands[~hands["void"] & ~hands["stalled"]].assign(deal=lambda h: h["game_id"] // n_seats)
    games = tables["games"].to_pandas().assign(deal=lambda g: g["game_id"] // n_seats)
    h = hands.assign(kalooki=hands["win_type"] == "kalooki").groupby(["deal", "bot"]).agg(
        player_hands=("won", "size"), hands_won=("won", "sum"), kalookis=("kalooki", "sum"))
    games = games.assign(credit=game_credit(games))
    g = games.groupby(["deal", "bot"]).agg(player_games=("won", "size"), game_win=("credit", "mean"),
                                           net_payment=("net_payment", "mean"))
    out = g.join(h, how="left").reset_index()
    out["hand_win"] = out["hands_won"] / out["player_hands"]
    out["kalooki_rate"] = out["kalookis"] / out["player_hands"]
    bots = out["bot"].unique()
    for metric in ("hand_win", "game_win", "net_payment"):
        wide = out.pivot(index="deal", columns="bot", values=metric)
        others = {b: wide.drop(columns=b).mean(axis=1) if len(bots) > 1 else wide[b] * float("nan") for b in bots}
        edge = pd.DataFrame({b: wide[b] - others[b] for b in bots}).stack().rename(f"{metric}_edge")
        out = out.join(edge, on=["deal", "bot"])
    return out


def deal_units(per_deal, money: bool) -> dict:
    """The least step of each deal-level value of one bot (``analysis.stats.mean``'s ``unit``): one hand
    of its hands in a deal, one game of its games, one stake unit in one game (none where no money
    changes hands: every payment is 0 by the rules, not by chance)."""
    hands, games = float(per_deal["player_hands"].mean()), float(per_deal["player_games"].mean())
    return {"hand_win": 1 / hands, "kalooki_rate": 1 / hands, "game_win": 1 / games,
            "net_payment": 1 / games if money else None}


def share_range(metric: str, difference: bool = False) -> tuple[float | None, float | None]:
    """The range a deal-level value lies in: a share (hands or games won) 0 to 1, its edge or a
    difference of two -1 to 1; a payment's unbounded."""
    if metric.startswith("net_payment"):
        return None, None
    return (-1.0 if difference or metric.endswith("_edge") else 0.0), 1.0


def deal_mean(values, metric: str, units: dict, difference: bool = False) -> tuple[float, float, float]:
    """(estimate, low, high): the mean over deals of ``values`` (one a deal) of ``metric``, its t 95%
    interval made with the metric's step (``deal_units``) and met with its range (``share_range``,
    ``analysis.stats.within``), which keeps its coverage."""
    from analysis.stats import mean, within
    low, high = share_range(metric, difference)
    m = within(mean(values, units[metric.removesuffix("_edge")]), low, high).iloc[0]
    return m.estimate, m.ci_low, m.ci_high


def summarise_duplicate(tables, n_seats: int, money: bool = True):
    """The summary's columns from deal-level values: each estimate is the mean over deals of the bot's
    per-deal average over the rotations, with a t 95% interval over deals, a share's within its range
    (``share_range``); ``*_edge`` is the bot minus the other bots, per deal, likewise.  Where every deal
    gives the same value the interval is made as if one deal had been one step away (``deal_units``), so
    no interval of a sample has zero width (a payment where no money changes hands is 0 by the rules)."""
    import pandas as pd

    per_deal = deal_level(tables, n_seats)
    rows = []
    for bot, d in per_deal.groupby("bot", sort=True):
        row = dict(bot=bot, deals=len(d), player_hands=int(d["player_hands"].sum()),
                   player_games=int(d["player_games"].sum()))
        units = deal_units(d, money)
        for metric in ("hand_win", "game_win", "net_payment", "kalooki_rate", "hand_win_edge", "game_win_edge",
                       "net_payment_edge"):
            row[metric], low, high = deal_mean(d[metric].to_numpy(), metric, units)
            if metric != "kalooki_rate":
                row[f"{metric}_lo"], row[f"{metric}_hi"] = low, high
        rows.append(row)
    return pd.DataFrame(rows)


def run(args):
    from tqdm import tqdm

    from ..tournament import play_tournament
    prof = profile_from_args(args)
    bots = parse_bots(args.bots, prof, settings=True)
    if args.duplicate and args.games % len(bots):
        raise UserError(f"--games {args.games} with --duplicate: each deal is played once per rotation of the "
                        f"{len(bots)} bots, so give a multiple of {len(bots)}")
    versus = _versus_bots(args, bots)
    bot_params = read_bot_params(args.bot_params)
    versus_params = read_bot_params(args.versus_params, "--versus-params") if args.versus_params else bot_params
    check_settings(bots, bot_params, "--bot-params", args.bot_params)
    check_game_values(bot_params, prof, len(bots), "--bot-params", args.bot_params)
    if args.versus_params:
        check_game_values(versus_params, prof, len(bots), "--versus-params", args.versus_params)
    if versus:
        check_settings(versus, versus_params, *(("--versus-params", args.versus_params) if args.versus_params
                                                else ("--bot-params", args.bot_params)))
    from .. import runner
    runner.warm_up(bots + (versus or []), announce=not args.quiet)  # on a cold numba cache: says so, as simulate does
    total = args.games * (2 if versus else 1)
    with tqdm(total=total, unit="game", disable=not show_progress(args), leave=False) as bar:
        tables = play_tournament(prof, bots, args.games, args.seed, progress=bar.update,
                                 workers=args.workers, bot_params=bot_params, duplicate=args.duplicate)
        other = play_tournament(prof, versus, args.games, args.seed, progress=bar.update, workers=args.workers,
                                bot_params=versus_params, duplicate=True) if versus else None
    if args.duplicate:
        return _print_duplicate(args, prof, bots, tables, other, versus[0] if versus else None)
    df = summarise(tables)
    if args.json:
        print(json.dumps(df.to_dict(orient="records")))
        return 0
    n_hands = len({(r["game_id"], r["hand_no"], r["redeal_no"]) for r in
                   tables["hands"].select(["game_id", "hand_no", "redeal_no"]).to_pylist()})
    print(f"Tournament: profile {prof.name}, seed {args.seed}, bots {','.join(bots)}")
    print(seating(prof))
    print(f"{counted(args.games, 'game')}, {counted(n_hands, 'hand')}; shares of each bot's player-hands and player-games (n);")
    print("mean net payment per game in units; 95% intervals clustered by game (Wilson at the design-effect")
    print("sample size for shares, t on the cluster-robust standard error for the payment)")
    w = _name_width(df)
    print(f"{'bot':<{w}}  {'hands won':<20}  {'n':>7}  {'games won':<20}  {'n':>6}  net payment per game")
    no_money = not prof.pays_money  # a profile without stakes (kalooki51)
    for r in df.itertuples():
        pay = "no money changes hands" if no_money else \
            iv(r.net_payment, r.net_payment_lo, r.net_payment_hi, 2, True)
        print(f"{r.bot:<{w}}  {iv(r.hand_win, r.hand_win_lo, r.hand_win_hi):<20}  {r.player_hands:>7d}"
              f"  {iv(r.game_win, r.game_win_lo, r.game_win_hi):<20}  {r.player_games:>6d}  {pay}")
    return 0


def _name_width(df) -> int:
    """The bot column's width: 10, or the longest name seated (a named setting makes it longer)."""
    return max([10, *(len(str(b)) for b in df["bot"])])


def _versus_bots(args, bots):
    """The second table's bots for --versus (BOT in the first bot's seat; with --versus-params alone the
    first bot again), or None without either."""
    if args.versus is None and args.versus_params is None:
        return None
    flag = "--versus" if args.versus is not None else "--versus-params"
    if not args.duplicate:
        raise UserError(f"{flag} compares two players on the same deals: it needs --duplicate")
    first = bots[0]
    versus = [first]  # --versus-params alone: the first bot again, by the other parameters
    if args.versus is not None:
        from ..bots import bot_name_error
        versus = [args.versus.strip()]
        if "," in args.versus:
            raise UserError(f"--versus {args.versus}: give one bot, e.g. --versus lookahead")
        if bot_name_error(versus[0]):
            raise UserError(f"--versus: {bot_name_error(versus[0])}")
    if first in bots[1:] or versus[0] in bots[1:]:
        raise UserError(f"{flag} {args.versus or args.versus_params}: the first bot ({first}) and the bot "
                        "compared with it must each hold one seat only, so that each deal's difference is one "
                        f"seat's; bots: {','.join(bots)}")
    return versus + bots[1:]


def paired_difference(tables, other, n_seats: int, first: str, versus: str, money: bool) -> dict:
    """The first bot's per-deal hands won, edge in hands won, games won, edge in games won and net payment
    (units a game) minus ``versus``'s at the other table (the same deals), each a mean over deals with a
    t 95% interval over deals (``deal_units`` where every deal gives the same difference); ``money``:
    whether the profile pays money (``Profile.pays_money``)."""
    a = deal_level(tables, n_seats).set_index(["deal", "bot"]).xs(first, level="bot")
    b = deal_level(other, n_seats).set_index(["deal", "bot"]).xs(versus, level="bot")
    out = dict(first=first, versus=versus, deals=int(len(a)))
    out["money"] = money
    units = deal_units(a, money)
    for metric in ("hand_win", "hand_win_edge", "game_win", "game_win_edge", "net_payment"):
        per_deal = (a[metric] - b[metric]).to_numpy()
        out[metric], out[f"{metric}_lo"], out[f"{metric}_hi"] = deal_mean(per_deal, metric, units, difference=True)
    return out


def _print_duplicate(args, prof, bots, tables, other=None, versus=None):
    df = summarise_duplicate(tables, len(bots), prof.pays_money)
    paired = (paired_difference(tables, other, len(bots), bots[0], versus, prof.pays_money)
              if other is not None else None)
    if paired is not None:  # the settings each side played by
        paired["first_params"] = args.bot_params or "configs/bots.toml"
        paired["versus_params"] = args.versus_params or paired["first_params"]
    if args.json:
        rows = df.to_dict(orient="records")
        print(json.dumps(rows if paired is None else {"bots": rows, "paired": paired}))
        return 0
    deals = args.games // len(bots)
    print(f"Duplicate tournament: profile {prof.name}, seed {args.seed}, bots {','.join(bots)}")
    print(seating(prof))
    print(f"{counted(deals, 'deal')}, each played in all {len(bots)} rotations ({args.games} games). Per deal, each bot's")
    print("average over the rotations; means over deals with t 95% intervals over deals (a share's within")
    print("0 to 1); edge = the bot minus the other bots")
    w = _name_width(df)
    print(f"{'bot':<{w}}  {'hands won':<20}  {'edge in hands won':<23}  {'games won':<20}")
    for r in df.itertuples():
        print(f"{r.bot:<{w}}  {iv(r.hand_win, r.hand_win_lo, r.hand_win_hi):<20}"
              f"  {iv(r.hand_win_edge, r.hand_win_edge_lo, r.hand_win_edge_hi, 3, True):<23}"
              f"  {iv(r.game_win, r.game_win_lo, r.game_win_hi)}")
    if prof.pays_money:
        print(f"{'bot':<{w}}  {'net payment per game':<26}  {'edge in net payment':<26}")
        for r in df.itertuples():
            print(f"{r.bot:<{w}}  {iv(r.net_payment, r.net_payment_lo, r.net_payment_hi, 2, True):<26}"
                  f"  {iv(r.net_payment_edge, r.net_payment_edge_lo, r.net_payment_edge_hi, 2, True)}")
    else:  # a profile without stakes (kalooki51)
        print("no money changes hands")
    if paired is not None:
        p = paired
        first, versus = p["first"], p["versus"]
        if args.versus_params:  # two settings: say which side played by which
            first, versus = f"{first} by {p['first_params']}", f"{versus} by {p['versus_params']}"
        print(f"{first} minus {versus} in its seat, the same {counted(p['deals'], 'deal')} (paired by deal; t 95% "
              "intervals over deals):")
        print("; ".join(f"{label} {iv(p[m], p[m + '_lo'], p[m + '_hi'], 3, True)}" for label, m in
                        (("hands won", "hand_win"), ("edge in hands won", "hand_win_edge"),
                         ("games won", "game_win"), ("edge in games won", "game_win_edge"))))
        if p["money"]:
            print(f"net payment per game {iv(p['net_payment'], p['net_payment_lo'], p['net_payment_hi'], 2, True)} "
                  "units")
    return 0
