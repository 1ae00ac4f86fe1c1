"""`kalooki play`: one hand (or with --game a whole game) printed for a person to check the rules.

Numbering, as in the run tables (README, "Numbering"): seats from 0 (the ``seat`` column), hands and
turns from 1 (``hand_no``, ``turn_no``); a place relative to the dealer is named by order of play
("1st to play" is the dealer's left, the dealer plays last).  Each hand says which seat deals: the
first dealer is drawn from the seed, then the deal passes to the next seat (still in the game).
``--summary`` prints only the result (a hand) or the score sheet (a game).
"""
from __future__ import annotations

import numpy as np

from .. import profiles
from ..errors import UserError
from ..words import counted
from .common import add_profile_args, add_seed_arg, profile_from_args

COL = 8  # width of one seat's column in the score sheet: six seats fit 100 columns


def register(sub):
    p = sub.add_parser("play", help="play one hand (or --game: a whole game) and print its transcript")
    add_profile_args(p)
    add_seed_arg(p, default=1)
    p.add_argument("--bots", default=None, metavar="A,B,...",
                   help="comma-separated bot per seat, seat 0 first (default: greedy at every seat of the "
                        "profile's default players)")
    p.add_argument("--game", action="store_true",
                   help="play a whole game, hand by hand, with the score sheet (default: one hand)")
    p.add_argument("--summary", action="store_true",
                   help="no turns: only the hand's result, or with --game only the score sheet (default: off)")
    p.set_defaults(func=run)


def parse_bots(text: str | None, prof, settings: bool = False) -> list[str]:
    """The players of --bots, one per seat; ``settings``: whether the command takes bot parameters, which
    a named setting (NAME.SETTING) plays by."""
    from ..bots import bot_name_error, unparametrised_error
    names = [b.strip() for b in text.split(",")] if text else ["greedy"] * prof.players
    for b in names:
        error = bot_name_error(b) if settings else unparametrised_error(b)
        if error:
            raise UserError(error)
    profiles.check_players(prof, len(names))
    return names


def seat_labels(names: list[str]) -> list[str]:
    return [f"seat {i} ({n})" for i, n in enumerate(names)]


def result_lines(result, labels) -> list[str]:
    if result.winner < 0:
        return ["nobody went out: the hand is " + ("stalled" if result.stalled else "void")]
    return [f"{labels[result.winner]} goes out ({result.win_type})"] + [
        f"  {labels[i]:<22} penalty {p:4d}" for i, p in enumerate(result.penalties)]


def sheet_columns(prof) -> tuple[bool, bool, bool, bool]:
    """Which parts of the score sheet apply to the profile (sim.game.Ledger's rules): elimination,
    buy-ins, the pool (stakes paid in, with elimination), payments (stakes, or single-hand payouts)."""
    eliminates = prof.game_end == "elimination"
    buy_ins = prof.buy_ins_allowed
    pool = eliminates and (prof.stake_initial > 0 or (buy_ins and prof.stake_buy_in > 0))
    return eliminates, buy_ins, pool, prof.pays_money


def sheet_lines(game, prof, names: list[str]) -> list[str]:
    """The score sheet: one row per hand scored, a column per seat, the net payments below; the marks,
    the pool and the payments only where the profile has elimination, buy-ins, a pool and payments."""
    lg = game.ledger
    n = len(names)
    eliminates, buy_ins, pool, payments = sheet_columns(prof)
    what = "points" if prof.game_end == "target" else "penalty totals"
    marks = ["* eliminated"] * eliminates + ["+ bought back in"] * buy_ins
    lines = ["Seats: " + ", ".join(f"{i} {b}" for i, b in enumerate(names)),
             f"Deal: hand 1 by seat {game.hands[0].dealer} (drawn by the seed), each later hand by {next_seat(prof)}",
             f"Score sheet: {what} after each hand" + (f" ({', '.join(marks)})" if marks else ""),
             f"{'hand':>4}  {'dealer':<6}  {'winner':<17}" + "".join(f"{'seat ' + str(s):>{COL}}" for s in range(n))
             + (f"{'pool':>{COL}}" if pool else "")]
    for rec in game.hands:
        row = rec.sheet
        if row is None:  # a void deal, re-dealt: nothing scored
            continue
        who = f"seat {row.winner} ({row.win_type})" if row.winner >= 0 else "stalled"
        cells = "".join(f"{str(row.totals[s]) + ('*' if row.eliminated[s] else '') + ('+' if row.bought_in[s] else ''):>{COL}}"
                        for s in range(n))
        lines.append(f"{rec.hand_no:>4}  {'seat ' + str(rec.dealer):<6}  {who:<17}{cells}"
                     + (f"{row.pool:>{COL}}" if pool else ""))
    if payments:
        lines.append(f"{'net':>4}  {'':<6}  {'payments':<17}" + "".join(f"{lg.balances[s]:>+{COL}d}" for s in range(n)))
    lines.append(f"Game over after {counted(lg.hands_played, 'hand')}: seat {lg.winner} ({names[lg.winner]}) wins"
                 + (" (stalled at the hand cap)" if lg.stalled else ""))
    return lines


def next_seat(prof) -> str:
    """Who deals the next hand, as sim.game.next_dealer chooses (a void hand is re-dealt by its dealer)."""
    return "the next seat still in" if prof.game_end == "elimination" else "the next seat"


def dealt_how(rec, prof) -> str:
    """How hand record ``rec``'s dealer came to deal."""
    if rec.redeal_no:
        return "re-dealing the void hand"
    return "drawn by the seed" if rec.hand_no == 1 else next_seat(prof)


def run(args):
    prof = profile_from_args(args)
    names = parse_bots(args.bots, prof)
    # the engine and the bots only once the arguments are good: parsing them stays light
    from .. import runner
    from ..bots import make_bot
    from ..engine import HandState
    from ..engine.loop import play_hand
    from ..game import play_game
    from ..transcript import dealer_line, hand_lines, table_lines
    runner.warm_up(names, announce=not args.quiet)  # on a cold numba cache: says so, as simulate does
    ss = np.random.SeedSequence(args.seed)
    kids = ss.spawn(1 + len(names))
    rng = np.random.default_rng(kids[0])
    bots = [make_bot(n, np.random.default_rng(k)) for n, k in zip(names, kids[1:])]
    labels = seat_labels(names)
    print(f"Profile {prof.name} (rules {prof.rules_hash()}), seed {args.seed}, {len(names)} players")
    if not args.game:
        dealer = int(rng.integers(len(names)))
        st = HandState(prof, len(names), dealer, rng, record=True)
        result = play_hand(st, bots, list(range(len(names))))
        if args.summary:
            print(dealer_line(dealer, labels, "drawn by the seed"))
            print("\n".join(result_lines(result, labels)))
            return 0
        print("\n".join(hand_lines(st.log, labels, "drawn by the seed")))
        print("Table at the end:")
        print("\n".join(table_lines(st.table)) or "  (empty)")
        return 0
    game = play_game(prof, bots, rng, record=True)  # the same game with or without --summary
    if not args.summary:
        for rec, log in zip(game.hands, game.transcript):
            hand_labels = [labels[s] for s in rec.seats]
            print(f"\n=== Hand {rec.hand_no}" + (f" (re-deal {rec.redeal_no})" if rec.redeal_no else ""))
            print("\n".join(hand_lines(log, hand_labels, dealt_how(rec, prof))))
            if rec.sheet is not None:
                row = rec.sheet
                print("Score sheet:")
                _, _, pool, payments = sheet_columns(prof)
                for s in range(len(names)):
                    print(f"  {labels[s]:<22} total {row.totals[s]:4d}"
                          + (f"  balance {row.balances[s]:+4d}" if payments else "")
                          + ("  ELIMINATED" if row.eliminated[s] else "") + ("  bought in" if row.bought_in[s] else ""))
                if pool:
                    print(f"  pool {row.pool}")
        print()
    print("\n".join(sheet_lines(game, prof, names)))
    return 0
