"""Counted nouns and ordinals in printed text.  Light: the commands, the transcript and the analysis
import it without loading the engine."""
from __future__ import annotations


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and the noun, singular for one: "1 card", "2 cards", "1 parameter differs" needs its own verb."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


def ordinal(k: int) -> str:
    """1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, ..., 21st."""
    return f"{k}{'th' if 10 <= k % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(k % 10, 'th')}"
