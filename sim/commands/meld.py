"""`kalooki meld CARD ...`: the best melds of a hand, for the opening and for the least deadwood.

`kalooki meld --batch FILE` does the same for one hand per line of FILE (blank lines skipped);
every line is read and checked before anything is written.
"""
from __future__ import annotations

import json
import sys
import textwrap
from typing import TYPE_CHECKING

from .. import cards as C
from ..errors import UserError
from ..words import counted
from .common import WIDTH, add_profile_args, profile_from_args

if TYPE_CHECKING:  # the annotations' type: the search itself is imported where a hand is searched
    from ..meldsearch import MeldResult

MAX_HAND = 30  # the largest hand a profile can deal


def register(sub):
    p = sub.add_parser("meld", help="best melds of a hand: largest meld value (opening) and least deadwood",
                       description="Exact meld search for a hand, e.g. `kalooki meld 7H JK=8H 9H KS KD KC`. "
                                   "A joker may be written JK or JK=<card>; the search chooses what it stands for.")
    add_profile_args(p)
    p.add_argument("cards", nargs="*", metavar="CARD", help="cards: rank 2-9 T J Q K A then suit S H D C, or JK")
    p.add_argument("--batch", metavar="FILE",
                   help="one hand per line (cards separated by spaces); '-' reads stdin (default: none, the "
                        "hand is given as CARD arguments)")
    p.add_argument("--json", action="store_true", help="JSON output, one object per hand (default: text)")
    p.set_defaults(func=run)


def parse_hand(tokens, profile) -> list[int]:
    """Card ids of a hand; ``JK=8H`` is a joker (the declared card is checked, then left to the search)."""
    texts = []
    for t in tokens:
        if t.upper().startswith("JK="):
            C.parse_card(t[3:])  # a bad declaration is still an error
            t = "JK"
        texts.append(t)
    ids = C.parse_cards(texts, jokers=profile.jokers)
    if not ids:
        raise UserError("no cards given; write a hand like `7H 8H 9H KS KD KC JK`")
    if len(ids) > MAX_HAND:
        raise UserError(f"{len(ids)} cards given; a hand holds at most {MAX_HAND}")
    return ids


def meld_json(m, profile) -> dict:
    from .. import melds as M
    return {"kind": M.KIND_NAMES[m.kind],
            "cards": [C.card_str(c) for c in m.cards],
            "declared": [C.card_str(r) if r >= 0 else None for r in m.reps],
            "value": M.value(m, profile)}


def result_json(res: MeldResult, profile) -> dict:
    from .. import melds as M
    hv = C.hand_values(profile.ace_value, profile.joker_penalty)
    value = sum(M.value(m, profile) for m in res.opening)
    return {
        "max_meld_value": res.max_meld_value,
        "min_deadwood": res.min_deadwood,
        "min_loose": res.min_loose,
        "opening": {"melds": [meld_json(m, profile) for m in res.opening],
                    "left": [C.card_str(c) for c in res.opening_left],
                    "value": value,
                    "can_open": value >= profile.opening_min},
        "deadwood": {"melds": [meld_json(m, profile) for m in res.deadwood],
                     "left": [C.card_str(c) for c in res.deadwood_left],
                     "deadwood": int(sum(int(hv[c]) for c in res.deadwood_left))},
    }


def _text(ids, res: MeldResult, profile) -> str:
    from .. import melds as M

    def meld_line(m):
        return f"    {M.KIND_NAMES[m.kind]:5s} {str(m)[len(M.KIND_NAMES[m.kind]) + 1:-1]:40s} {M.value(m, profile):4d}"

    can = res.max_meld_value >= profile.opening_min
    lines = [*textwrap.wrap(f"hand ({counted(len(ids), 'card')}, profile {profile.name}): {C.cards_str(sorted(ids))}", WIDTH,
                            subsequent_indent="    "),
             f"max meld value: {res.max_meld_value} (opening minimum {profile.opening_min}: "
             f"{'can open' if can else 'cannot open'})"]
    lines += [meld_line(m) for m in res.opening]
    lines.append(f"    left: {C.cards_str(res.opening_left) or '-'}")
    lines.append(f"min deadwood: {res.min_deadwood} (fewest cards left: {res.min_loose})")
    lines += [meld_line(m) for m in res.deadwood]
    lines.append(f"    left: {C.cards_str(res.deadwood_left) or '-'}")
    return "\n".join(lines)


def _read_batch(path: str, profile) -> list[list[int]]:
    try:
        text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()
    except OSError as e:
        raise UserError(f"--batch {path}: cannot read: {e.strerror}") from None
    hands = []
    for no, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            hands.append(parse_hand(line.split(), profile))
        except (C.CardError, UserError) as e:
            raise UserError(f"{path}: line {no}: {e}") from None
    return hands


def warm_up_meld_search(args) -> None:
    """The meld search is compiled with the hand loop: on a cold numba cache, compile it as simulate
    does, saying so on stderr (not with --quiet)."""
    from .. import runner
    runner.warm_up(["greedy"], announce=not args.quiet)


def run(args):
    from .. import meldsearch as ms  # the search only when the command runs: parsing stays light
    profile = profile_from_args(args)
    if args.batch is not None:
        if args.cards:
            raise UserError("give either cards or --batch FILE, not both")
        hands = _read_batch(args.batch, profile)
        warm_up_meld_search(args)
        out = []
        for ids in hands:
            res = ms.analyse(C.to_counts(ids), profile)
            if args.json:
                out.append(json.dumps({"hand": [C.card_str(c) for c in ids], **result_json(res, profile)}))
            else:
                out.append(f"{res.max_meld_value:4d} {res.min_deadwood:4d} {res.min_loose:3d}  {C.cards_str(ids)}")
        if out:
            print("\n".join(out))
        return 0
    if not args.cards:
        raise UserError("no cards given; write a hand like `kalooki meld 7H 8H 9H KS KD KC JK` or use --batch FILE")
    ids = parse_hand(args.cards, profile)
    warm_up_meld_search(args)
    res = ms.analyse(C.to_counts(ids), profile)
    if args.json:
        print(json.dumps(result_json(res, profile)))
    else:
        print(_text(ids, res, profile))
    return 0
