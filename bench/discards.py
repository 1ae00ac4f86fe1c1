"""Discard quality of each bot, read turn by turn from the game state: how often a card taken from the
discard pile is still loose when the turn ends, and how often a loose discard broke a pair or a
two-card run while an isolated card of equal or higher penalty could have gone instead.

Both measures are written from the rules and the hands alone (``turn_verdict``): a card is *loose*
when the meld search leaves it out of its least-deadwood partition of the hand; two loose naturals
form a *pair* (same rank, different suits) or a *two-card run* (same suit, adjacent ranks: Q-K-A
always, A-2 only where the profile lets an ace be low); a loose natural is *isolated* when it forms
neither, nor a one-gap run (same suit, one rank between), with another loose card.  A partial meld
none of whose completing cards is still live counts as a pair or run all the same, so a bot that
rightly breaks a dead pair is counted too.  No bot is asked how it judges a hand.

``measure`` plays seeded hands at a table of four copies of one bot on the Python engine (every
turn inspected after it is applied); ``python -m bench discards`` prints the shares per bot.
"""
from __future__ import annotations

import argparse
from typing import NamedTuple

import numpy as np

from sim import meldsearch as MS
from sim import profiles
from sim.bots import make_bot
from sim.cards import JOKER, N_KINDS, N_RANKS, hand_values
from sim.engine import DRAW_DISCARD, HandState
from sim.engine.loop import play_hand

BOTS = ("greedy", "patient", "expert", "lookahead", "search")
SHARE = {"search": 4}  # the search plays a quarter of the hands: its hands take 30 times as long as the lookahead's
PROFILES = ("kalooki40", "kalooki51", "scala40")
ACE = N_RANKS - 1


class TurnVerdict(NamedTuple):
    took_discard: bool  # the turn's card came from the discard pile
    taken_loose: bool  # ... and it is still in hand, loose, when the turn ends
    loose_discard: bool  # the discarded card was loose in the hand it left
    broke_partial: bool  # ... it made a pair or a two-card run with another loose card, and an isolated
    #                      card of equal or higher penalty could have been discarded instead


def loose_counts(hand, profile) -> np.ndarray:
    """Count vector of the cards the meld search leaves out of its least-deadwood partition of hand."""
    return np.bincount(np.asarray(MS.analyse_deadwood(np.asarray(hand, dtype=np.int8), profile).deadwood_left,
                                  dtype=np.int64), minlength=N_KINDS)


def _run_steps(a: int, b: int, ace_low: bool) -> int:
    """The fewest rank steps between naturals a and b of one suit along a run (the ace above the king,
    and below the 2 where ace_low); 0 for two copies of one card."""
    ra, rb = a % N_RANKS, b % N_RANKS
    steps = abs(ra - rb)
    if ace_low and ACE in (ra, rb):
        other = rb if ra == ACE else ra
        steps = min(steps, other + 1)  # the ace low, one step below the 2 (rank 0)
    return steps


def partial_kind(a: int, b: int, ace_low: bool) -> str | None:
    """'pair', 'run' (two-card run), 'gap' (one-gap run) or None, for two naturals a and b."""
    if a == JOKER or b == JOKER or a == b:
        return None
    if a % N_RANKS == b % N_RANKS:
        return "pair"
    if a // N_RANKS != b // N_RANKS:
        return None
    return {1: "run", 2: "gap"}.get(_run_steps(a, b, ace_low))


def turn_verdict(profile, hand_at_discard, discard: int, taken: int, held_before: int) -> TurnVerdict:
    """The measures of one turn.  ``hand_at_discard``: counts after the turn's table play, the discard
    still held; ``taken``: the card taken from the discard pile this turn, or -1 for a stock draw;
    ``held_before``: copies of ``taken`` held before the draw."""
    hand = np.asarray(hand_at_discard, dtype=np.int64)
    if hand[discard] <= 0:
        raise ValueError(f"the discard {discard} is not in the hand it leaves")
    final = hand.copy()
    final[discard] -= 1
    taken_loose = False
    if taken >= 0 and final[taken] > held_before:  # the taken copy never left the hand
        taken_loose = loose_counts(final, profile)[taken] > 0
    loose = loose_counts(hand, profile)
    loose_discard = bool(loose[discard] > 0)
    broke = False
    if loose_discard and discard != JOKER:
        values = hand_values(profile.ace_value, profile.joker_penalty)
        others = [c for c in np.flatnonzero(loose) if c != JOKER]
        partner = any(partial_kind(discard, c, profile.ace_low) in ("pair", "run") for c in others)
        if partner:
            pen = values[discard]
            for z in others:
                if z == discard or z == taken or values[z] < pen:
                    continue
                if all(partial_kind(z, c, profile.ace_low) is None for c in others):
                    broke = True
                    break
    return TurnVerdict(taken >= 0, bool(taken_loose), loose_discard, broke)


def measure(bot: str, profile_name: str, hands: int, seed: int = 1) -> dict:
    """Counts over ``hands`` hands at a table of four ``bot``s (hand k dealt from seed [seed, k]):
    ``taken`` discards taken and ``taken_loose`` of them loose at the turn's end; ``loose`` loose
    discards and ``broke`` of them breaking a pair or two-card run; ``loose_unopened`` and
    ``broke_unopened`` the same for players who had not opened when they discarded."""
    prof = profiles.load(profile_name)
    counts = dict(taken=0, taken_loose=0, loose=0, broke=0, loose_unopened=0, broke_unopened=0, turns=0)
    for k in range(hands):
        players = [make_bot(bot, np.random.default_rng([seed, k, i])) for i in range(4)]
        st = HandState(prof, 4, k % 4, np.random.default_rng([seed, k]))
        opened_before = list(st.opened)  # as the turn being inspected began

        def on_turn(state):
            seat, src, card, play = state.last_turn
            at_discard = state.hands[seat].astype(np.int64)
            at_discard[play.discard] += 1
            v = turn_verdict(prof, at_discard, play.discard, card if src == DRAW_DISCARD else -1,
                             state.held_before_draw)
            was_open = opened_before[seat]
            counts["turns"] += 1
            counts["taken"] += v.took_discard
            counts["taken_loose"] += v.taken_loose
            counts["loose"] += v.loose_discard
            counts["broke"] += v.broke_partial
            if not was_open:
                counts["loose_unopened"] += v.loose_discard
                counts["broke_unopened"] += v.broke_partial
            opened_before[:] = state.opened

        play_hand(st, players, list(range(4)), on_turn=on_turn)
    return counts


def share(k: int, n: int) -> str:
    return f"{k / n:.3f} ({k:,}/{n:,})" if n else "- (0/0)"


def main(argv=None) -> None:
    p = argparse.ArgumentParser(prog="python -m bench.discards", description=__doc__.split("\n\n")[0])
    p.add_argument("--hands", type=int, default=200, help="hands per bot and profile (default %(default)s)")
    p.add_argument("--seed", type=int, default=1, help="seed of the deals (default %(default)s)")
    p.add_argument("--profiles", default=",".join(PROFILES), help="comma-separated (default %(default)s)")
    p.add_argument("--bots", default=",".join(BOTS), help="comma-separated (default %(default)s)")
    args = p.parse_args(argv)
    n = args.hands
    fewer = ", ".join(f"{b} {max(n // k, 1)}" for b, k in SHARE.items() if b in args.bots.split(","))
    print(f"  {n} hands a bot and profile{f' ({fewer})' if fewer else ''}, four of the bot at the table, deals from "
          f"seed {args.seed}; shares with\n"
          f"  (count/denominator); 'broke': a loose discard that broke a pair or two-card run while an isolated\n"
          f"  card of equal or higher penalty was loose too")
    print(f"  {'profile':<10} {'bot':<10} {'taken discards loose at turn end':<34} "
          f"{'loose discards that broke':<28} {'the same, unopened':<26}")
    for name in args.profiles.split(","):
        for bot in args.bots.split(","):
            c = measure(bot, name, max(n // SHARE.get(bot, 1), 1), args.seed)
            print(f"  {name:<10} {bot:<10} {share(c['taken_loose'], c['taken']):<34} "
                  f"{share(c['broke'], c['loose']):<28} {share(c['broke_unopened'], c['loose_unopened']):<26}",
                  flush=True)


if __name__ == "__main__":
    main()
