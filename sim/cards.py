"""Cards as small integers, hands as count vectors, and the text notation at the edges.

A natural card is ``suit * 13 + rank`` with rank 0..12 for 2..A and suit 0..3 for S H D C; the
joker is 52.  A hand is a length-53 count vector (each natural at most twice, jokers up to the
profile's ``jokers``).  Strings exist only here, for the CLI, transcripts and test messages.
"""
from __future__ import annotations

import numpy as np

from .errors import CardError  # noqa: F401  (raised here; defined with the other user errors)

N_RANKS = 13
N_SUITS = 4
N_NATURAL = 52
JOKER = 52
N_KINDS = 53  # length of a hand count vector
COPIES = 2  # two packs: every natural card exists exactly twice

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "SHDC"
ACE = 12  # rank index of the ace


def card(rank: int, suit: int) -> int:
    return suit * N_RANKS + rank


def rank_of(c: int) -> int:
    return c % N_RANKS


def suit_of(c: int) -> int:
    return c // N_RANKS


def parse_card(text: str) -> int:
    """``'TH'``/``'10h'`` -> card id, ``'JK'`` -> JOKER.  Raises CardError naming what is allowed."""
    t = text.strip().upper()
    if t in ("JK", "JOKER", "*"):
        return JOKER
    if t.startswith("10"):
        t = "T" + t[2:]
    if len(t) != 2 or t[0] not in RANK_CHARS or t[1] not in SUIT_CHARS:
        raise CardError(
            f"bad card {text!r}: write rank then suit, ranks 2-9 T(or 10) J Q K A, suits S H D C, "
            f"or JK for a joker (e.g. TH QS JK 7C)"
        )
    return card(RANK_CHARS.index(t[0]), SUIT_CHARS.index(t[1]))


def card_str(c: int) -> str:
    if c == JOKER:
        return "JK"
    if not 0 <= c < N_NATURAL:
        raise CardError(f"card id {c} is outside 0..52")
    return RANK_CHARS[rank_of(c)] + SUIT_CHARS[suit_of(c)]


def cards_str(cards) -> str:
    return " ".join(card_str(int(c)) for c in cards)


def parse_cards(texts, jokers: int | None = None) -> list[int]:
    """Parse several cards (a string or an iterable of strings) and check they can coexist.

    Every natural exists twice; jokers at most ``jokers`` times when given.
    """
    if isinstance(texts, str):
        texts = texts.split()
    cards = [parse_card(t) for t in texts]
    counts = to_counts(cards, check=False)
    for c in range(N_NATURAL):
        if counts[c] > COPIES:
            raise CardError(f"{card_str(c)} appears {counts[c]} times; each card exists only {COPIES} times (two packs)")
    if jokers is not None and counts[JOKER] > jokers:
        raise CardError(f"{counts[JOKER]} jokers given; this profile's pack has only {jokers}")
    return cards


def to_counts(cards, check: bool = True) -> np.ndarray:
    counts = np.zeros(N_KINDS, dtype=np.int8)
    for c in cards:
        counts[int(c)] += 1
    if check and (counts[:N_NATURAL] > COPIES).any():
        bad = [card_str(c) for c in range(N_NATURAL) if counts[c] > COPIES]
        raise CardError(f"too many copies of {' '.join(bad)}")
    return counts


def from_counts(counts) -> list[int]:
    out: list[int] = []
    for c in range(N_KINDS):
        out.extend([c] * int(counts[c]))
    return out


def full_deck(jokers: int) -> np.ndarray:
    """The shuffled-order-free deck: two of each natural plus the jokers, as card ids."""
    return np.concatenate([np.repeat(np.arange(N_NATURAL, dtype=np.int16), COPIES),
                           np.full(jokers, JOKER, dtype=np.int16)])


def hand_values(ace_value: int, joker_penalty: int) -> np.ndarray:
    """Penalty value of each card id when left in a hand."""
    v = np.zeros(N_KINDS, dtype=np.int32)
    for c in range(N_NATURAL):
        r = rank_of(c)
        v[c] = ace_value if r == ACE else (10 if r >= 8 else r + 2)
    v[JOKER] = joker_penalty
    return v


def rank_value(rank: int, ace_value: int) -> int:
    """Value of a natural rank inside a meld (ace high) or in hand."""
    return ace_value if rank == ACE else (10 if rank >= 8 else rank + 2)
