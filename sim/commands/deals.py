"""`kalooki deals`: how often a freshly dealt hand can open at once, or meld every card.

Deals N independent hands of the profile's hand size (each from a full shuffled pack), seeded from
``--seed`` through ``numpy.random.SeedSequence``; hands are dealt and searched in batches.
Fractions come with 95% Wilson intervals (scipy).
"""
from __future__ import annotations

import json

import numpy as np

from .. import profiles
from ..errors import UserError
from ..words import counted
from .common import add_profile_args, add_seed_arg, profile_from_args
from .meld import warm_up_meld_search

MAX_N = 1_000_000_000
BATCH = 100_000


def register(sub):
    p = sub.add_parser("deals", help="fraction of random deals that can open at once or meld every card")
    add_profile_args(p)
    p.add_argument("--n", required=True, metavar="N", help=f"hands to deal, 1..{MAX_N} (required)")
    add_seed_arg(p, required=True)
    p.add_argument("--players", metavar="K",
                   help="players at the table: sets the hand size (default: the profile's players)")
    p.add_argument("--json", action="store_true", help="print one JSON object (default: text)")
    p.set_defaults(func=run)


def _int_arg(name: str, text: str, lo: int, hi: int) -> int:
    try:
        v = int(str(text).strip())
    except ValueError:
        raise UserError(f"{name} {text!r} is not an integer; allowed: {lo}..{hi}") from None
    if not lo <= v <= hi:
        raise UserError(f"{name} {v} is out of range; allowed: {lo}..{hi}")
    return v


def proportion(k: int, n: int) -> dict:
    from scipy.stats import binomtest
    ci = binomtest(int(k), int(n)).proportion_ci(confidence_level=0.95, method="wilson")
    return {"k": int(k), "n": int(n), "fraction": k / n, "ci95": [float(ci.low), float(ci.high)]}


def deal_stats(profile, n: int, seed: int, players: int) -> dict:
    from .. import meldsearch as ms  # the search only when hands are dealt: parsing stays light
    hand_size = profile.hand_size_for(players)
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    opened = full = 0
    value_sum = 0
    for a in range(0, n, BATCH):
        b = min(n, a + BATCH)
        hands = ms.deal_hands(rng, b - a, hand_size, profile.jokers)
        res = ms.batch(hands, profile)
        opened += int((res["max_meld_value"] >= profile.opening_min).sum())
        full += int((res["min_loose"] == 0).sum())
        value_sum += int(res["max_meld_value"].astype(np.int64).sum())
    return {"profile": profile.name, "rules_hash": profile.rules_hash(), "n": n, "seed": seed,
            "players": players, "hand_size": hand_size, "jokers": profile.jokers,
            "opening_min": profile.opening_min,
            "can_open": proportion(opened, n), "full_meld": proportion(full, n),
            "mean_max_meld_value": value_sum / n}


def run(args):
    profile = profile_from_args(args)
    n = _int_arg("--n", args.n, 1, MAX_N)
    seed = args.seed
    players = profile.players if args.players is None else _int_arg("--players", args.players, 1, 1000)
    profiles.check_players(profile, players)
    warm_up_meld_search(args)
    st = deal_stats(profile, n, seed, players)
    if args.json:
        print(json.dumps(st))
        return 0
    print(f"profile {st['profile']} ({counted(st['players'], 'player')}, {counted(st['hand_size'], 'card')} from a "
          f"pack with {counted(st['jokers'], 'joker')}), {counted(n, 'hand')}, seed {seed}")
    print(f"  {'share of hands that':38s} {'percent':>9s}  {'95% Wilson interval':22s}  hands")
    for key, label in (("can_open", f"can open at once (meld value >= {st['opening_min']})"),
                       ("full_meld", "can meld every card")):
        p = st[key]
        ci = f"[{100 * p['ci95'][0]:.4f}, {100 * p['ci95'][1]:.4f}]"
        print(f"  {label:38s} {100 * p['fraction']:8.4f}%  {ci:22s}  {p['k']}/{p['n']}")
    print(f"  {'mean max meld value':38s} {st['mean_max_meld_value']:9.2f}")
    return 0
