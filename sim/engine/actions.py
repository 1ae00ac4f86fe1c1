"""What a turn is made of: the draw sources, the table operations, a whole play, the result of a hand,
and the error an illegal turn raises (sim.engine)."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..melds import Meld


SEAT_KEYS = 6  # game seats a seat-keyed stock has keys for (sim.profiles: at most six players)
DRAW_STOCK = 0
DRAW_DISCARD = 1
LOW = 0
HIGH = 1

PHASE_DRAW = "draw"
PHASE_PLAY = "play"
PHASE_OVER = "over"


class IllegalTurn(ValueError):
    """A draw or play the rules forbid; ``rule`` names the rule (a profile parameter where one applies)."""

    def __init__(self, rule: str, message: str):
        super().__init__(f"[{rule}] {message}")
        self.rule = rule


# --------------------------------------------------------------------------- table operations
@dataclass(frozen=True)
class NewMeld:
    meld: Meld


@dataclass(frozen=True)
class LayOff:
    target: int  # index of the table meld
    card: int
    end: int = HIGH  # runs: LOW or HIGH end
    rep: int = -1  # a joker's declared card in a group (-1: first missing suit)


@dataclass(frozen=True)
class Take:
    target: int
    position: int  # slot index in the meld (a run end, or any slot of a four-card group)


@dataclass(frozen=True)
class Split:
    target: int
    card: int  # natural card (or joker with rep) inserted
    position: int  # the run is cut after slot position-1; the new card ends the first part and starts the second
    rep: int = -1


@dataclass(frozen=True)
class SwapJoker:
    target: int
    position: int  # the joker's slot
    card: int  # the natural card it stands for (groups: a natural of a missing suit)
    extra: int = -1  # groups under both_missing_suits: the second missing suit's natural


@dataclass
class Play:
    ops: list = field(default_factory=list)
    discard: int | None = None


@dataclass
class HandResult:
    winner: int = -1  # -1: nobody (void or stalled)
    win_type: str | None = None  # "call" | "kalooki"
    void: bool = False
    stalled: bool = False
    penalties: list = field(default_factory=list)
    cards_left: list = field(default_factory=list)
    jokers_left: list = field(default_factory=list)
