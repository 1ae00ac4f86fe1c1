"""`kalooki play`: one hand (or with --game a whole game) printed for a person to check the rules."""
from __future__ import annotations

import numpy as np

from .. import profiles
from ..bots import make_bot
from ..engine import HandState
from ..errors import UserError
from ..game import play_game, play_hand
from ..transcript import hand_lines, table_lines
from .common import add_profile_args, profile_from_args


def register(sub):
    p = sub.add_parser("play", help="play one hand (or --game: a whole game) and print its transcript")
    add_profile_args(p)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--bots", default=None, help="comma-separated bot per seat (default: greedy at every seat)")
    p.add_argument("--game", action="store_true", help="play a whole game, hand by hand with the score sheet")
    p.set_defaults(func=run)


def parse_bots(text: str | None, prof) -> list[str]:
    from ..bots import BOTS
    names = [b.strip() for b in text.split(",")] if text else ["greedy"] * prof.players
    for b in names:
        if b not in BOTS:
            raise UserError(f"unknown bot {b!r}; available: {', '.join(sorted(BOTS))}")
    profiles.check_players(prof, len(names))
    return names


def run(args):
    prof = profile_from_args(args)
    names = parse_bots(args.bots, prof)
    ss = np.random.SeedSequence(args.seed)
    kids = ss.spawn(1 + len(names))
    rng = np.random.default_rng(kids[0])
    bots = [make_bot(n, np.random.default_rng(k)) for n, k in zip(names, kids[1:])]
    labels = [f"P{i + 1} ({n})" for i, n in enumerate(names)]
    print(f"Profile {prof.name} (rules {prof.rules_hash()}), seed {args.seed}, {len(names)} players")
    if not args.game:
        dealer = int(rng.integers(len(names)))
        st = HandState(prof, len(names), dealer, rng, record=True)
        play_hand(st, bots, list(range(len(names))))
        print("\n".join(hand_lines(st.log, labels)))
        print("Table at the end:")
        print("\n".join(table_lines(st.table)) or "  (empty)")
        return 0
    game = play_game(prof, bots, rng, record=True)
    lg = game.ledger
    for rec, log in zip(game.hands, game.transcript):
        hand_labels = [labels[s] for s in rec.seats]
        print(f"\n=== Hand {rec.hand_no}" + (f" (re-deal {rec.redeal_no})" if rec.redeal_no else ""))
        print("\n".join(hand_lines(log, hand_labels)))
        if rec.sheet is not None:
            row = rec.sheet
            print("Score sheet:  " + " | ".join(
                f"{labels[s]} total {row.totals[s]} balance {row.balances[s]:+d}"
                + (" ELIMINATED" if row.eliminated[s] else "") + (" bought in" if row.bought_in[s] else "")
                for s in range(len(names))) + f" | pool {row.pool}")
    print(f"\nGame over after {lg.hands_played} hands: {labels[lg.winner]} wins"
          + (" (stalled at the hand cap)" if lg.stalled else ""))
    print("Net payments: " + ", ".join(f"{labels[s]} {lg.balances[s]:+d}" for s in range(len(names))))
    return 0
