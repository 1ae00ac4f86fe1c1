"""Melds on the table: runs and groups with declared joker representations, and their rules.

A meld is a kind (RUN or GROUP), its physical cards in order, and for each slot the natural card
that slot represents (``reps``).  Runs are ordered low to high and carry ``low``, the extended rank
of their first slot: 0 is a low ace, 1..12 are the ranks 2..K, 13 is a high ace.  Groups carry their
rank in ``low``; an all-joker group (``joker_melds``) has rank -1 and represents nothing (-1).
A meld is also a row of int64 words, as the compiled rules (``sim.engine.core``), the meld search and
the bots hold it: ``row_of`` and ``meld_of`` convert, in the row layout ``sim.engine.core`` declares
(kind, low, n, the cards, the declared cards).  Validity is ``sim.engine.core.check_row``, worded
here for the player (``check``, ``check_reason``); a meld's value is the rules' own count
(``sim.engine.core.meld_value``, the sum of its slots' ``slot_value``) over the profile's meld values, the
words of its compiled parameters (``sim.engine.core.compiled``) the meld search reads too.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .cards import ACE, JOKER, N_RANKS, card_str, rank_of, suit_of, SUIT_CHARS

RUN = 0
GROUP = 1
KIND_NAMES = {RUN: "run", GROUP: "group"}
ACE_LOW_EXT = 0
ACE_HIGH_EXT = 13


def ext_rank_to_rank(e: int) -> int:
    return ACE if e in (ACE_LOW_EXT, ACE_HIGH_EXT) else e - 1


def rank_to_ext(r: int) -> int:
    return ACE_HIGH_EXT if r == ACE else r + 1


@dataclass(frozen=True)
class Meld:
    kind: int
    cards: tuple  # physical card ids (JOKER for a joker), runs ordered low -> high
    reps: tuple  # represented natural card per slot; -1 only in an all-joker group
    low: int  # runs: extended rank of the first slot; groups: rank (-1 for all jokers)

    def __len__(self):
        return len(self.cards)

    @property
    def n_jokers(self) -> int:
        return self.cards.count(JOKER)

    @cached_property  # bots ask for it in their inner loops
    def suit(self) -> int:
        return suit_of(self.reps[0]) if self.kind == RUN else -1

    @property
    def high(self) -> int:
        return self.low + len(self.cards) - 1

    def slot_ext(self, i: int) -> int:
        return self.low + i

    def __str__(self):
        parts = []
        for c, r in zip(self.cards, self.reps):
            parts.append(f"JK={card_str(r)}" if c == JOKER and r >= 0 else card_str(c))
        return f"{KIND_NAMES[self.kind]}[{' '.join(parts)}]"


def run(suit: int, low: int, cards) -> Meld:
    """A run of ``suit`` whose first slot is extended rank ``low``; jokers represent their slot."""
    cards = tuple(int(c) for c in cards)
    reps = tuple(suit * N_RANKS + ext_rank_to_rank(low + i) for i in range(len(cards)))
    return Meld(RUN, cards, reps, low)


def group(rank: int, cards, joker_suits=()) -> Meld:
    """A group of ``rank``; each joker (in order) represents the suit given in ``joker_suits``."""
    cards = tuple(int(c) for c in cards)
    js = list(joker_suits)
    reps = []
    for c in cards:
        if c == JOKER:
            reps.append(js.pop(0) * N_RANKS + rank if rank >= 0 else -1)
        else:
            reps.append(c)
    return Meld(GROUP, cards, tuple(reps), rank)


def joker_group(n: int) -> Meld:
    return Meld(GROUP, (JOKER,) * n, (-1,) * n, -1)


def row_of(m: Meld) -> np.ndarray:
    """A meld as a row (at most ``core.MAX_SLOTS`` cards)."""
    row = np.full(core.ROW_W, -1, np.int64)
    k = len(m.cards)
    row[0], row[1], row[2] = m.kind, m.low, k
    row[core.CARDS:core.CARDS + k] = m.cards
    row[core.REPS:core.REPS + k] = m.reps
    return row


def meld_of(row) -> Meld:
    """The meld a row holds."""
    r = row.tolist()
    k = r[2]
    return Meld(r[0], tuple(r[core.CARDS:core.CARDS + k]), tuple(r[core.REPS:core.REPS + k]), r[1])


def check(m: Meld, profile) -> str | None:
    """None if ``m`` is a valid meld under ``profile``, else the reason (naming the rule).  The rule is
    ``sim.engine.core.check_row``; this words its answer."""
    n = len(m.cards)
    if len(m.reps) != n:
        return "meld: one declared card per slot"
    if n > core.MAX_SLOTS:
        return f"meld: {m} has {n} cards; a run has at most {core.MAX_SLOTS}, a group at most 4"
    code = core.check_row(row_of(m), core.compiled(profile).rules)
    return None if code == core.OK else check_reason(code, m, profile)


def check_reason(code: int, m: Meld, profile) -> str:
    """The reason, naming the rule, for a meld code of ``sim.engine.core`` (X_*)."""
    n = len(m.cards)
    if code == core.X_MAX_JOKERS:
        return f"max_jokers_per_meld: {m.n_jokers} jokers in {m}, at most {profile.max_jokers_per_meld} allowed"
    if code == core.X_DECLARED:
        c, r = next((c, r) for c, r in zip(m.cards, m.reps) if c != JOKER and c != r)
        return f"meld: natural card {card_str(c)} declared as {card_str(r) if r >= 0 else '-'}"
    return {core.X_RUN_SHORT: f"run: {m} has {n} cards, a run needs 3 or more",
            core.X_RUN_NO_NATURAL: f"run: {m} has no natural card",
            core.X_RUN_PAST_ACE: f"run: {m} runs past the ace",
            core.X_ACE_LOW: f"ace_low: {m} uses a low ace (A-2-3), not allowed in this profile",
            core.X_RUN_CORNER: f"run: {m} uses the ace at both ends (K-A-2 is never a run)",
            core.X_RUN_NOT_CONSECUTIVE: f"run: {m} is not consecutive ranks of one suit",
            core.X_GROUP_SIZE: f"group: {m} has {n} cards, a group has 3 or 4",
            core.X_JOKER_MELDS: f"joker_melds: {m} is all jokers; a meld needs a natural card in this profile",
            core.X_ALL_JOKER_DECLARED: "group: an all-joker group represents no card",
            core.X_GROUP_RANKS: f"group: {m} mixes ranks",
            core.X_GROUP_SUITS: f"group: {m} repeats a suit; a group's cards are all of different suits",
            }.get(code, f"meld: unknown kind {m.kind}")


def value(m: Meld, profile) -> int:
    """Points of a meld for the opening minimum: jokers count as the card they represent
    (``sim.engine.core.meld_value``, the rules' own count, over the profile's meld values)."""
    return int(core.meld_value(row_of(m), core.compiled(profile).params))


def declare_run(cards, profile) -> Meld | None:
    """Best valid run declaration for a set of physical cards (jokers fill gaps or ends), or None."""
    cards = [int(c) for c in cards]
    naturals = sorted(c for c in cards if c != JOKER)
    nj = len(cards) - len(naturals)
    if not naturals:
        return None
    s = suit_of(naturals[0])
    if any(suit_of(c) != s for c in naturals):
        return None
    n = len(cards)
    best = None
    for low in range(0, ACE_HIGH_EXT + 1):
        if low + n - 1 > ACE_HIGH_EXT:
            break
        slots = [s * N_RANKS + ext_rank_to_rank(low + i) for i in range(n)]
        pool = list(naturals)
        seq = []
        for rep in slots:
            if rep in pool:
                pool.remove(rep)
                seq.append(rep)
            else:
                seq.append(JOKER)
        if pool or seq.count(JOKER) != nj:
            continue
        m = run(s, low, seq)
        if check(m, profile) is None and (best is None or value(m, profile) > value(best, profile)):
            best = m
    return best


def declare_group(cards, profile) -> Meld | None:
    cards = [int(c) for c in cards]
    naturals = [c for c in cards if c != JOKER]
    if not naturals:
        m = joker_group(len(cards))
        return m if check(m, profile) is None else None
    r = rank_of(naturals[0])
    used = {suit_of(c) for c in naturals}
    missing = [s for s in range(4) if s not in used]
    nj = len(cards) - len(naturals)
    m = group(r, naturals + [JOKER] * nj, missing[:nj]) if nj <= len(missing) else None
    return m if m is not None and check(m, profile) is None else None


def declare(cards, profile) -> Meld | None:
    """The most valuable valid meld made of exactly these physical cards, or None."""
    options = [m for m in (declare_run(cards, profile), declare_group(cards, profile)) if m is not None]
    return max(options, key=lambda m: value(m, profile)) if options else None


def suit_name(s: int) -> str:
    return SUIT_CHARS[s]


# The compiled rules of melds and their row layout, imported below this module's definitions: importing
# sim.engine runs its package, whose modules import Meld from here.
from .engine import core  # noqa: E402
