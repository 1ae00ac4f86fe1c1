"""Readable transcripts of hands and games, from the engine's event log (for people checking rules).

Seats are the table's, counted from 0 as in the data's ``seat`` column.  A place relative to the
dealer is named by order of play (``play_order``): the dealer's left plays first ("1st to play"), and
so on round the table to the dealer, who plays last.
"""
from __future__ import annotations

import textwrap

from .cards import card_str, cards_str
from .engine import LayOff, NewMeld, Split, SwapJoker, Take
from .words import counted, ordinal


def play_order(k: int, n: int) -> str:
    """The name of place ``k`` (1..n, the data's ``seat_from_dealer``) in the order of play of ``n``
    players: "1st to play" (the dealer's left), "2nd to play", ..., "dealer (plays last)"."""
    return "dealer (plays last)" if k == n else f"{ordinal(k)} to play"


def dealer_line(dealer: int, names, how: str = "") -> str:
    """Who deals (``how``: how the dealer was chosen) and who plays first; ``names[i]`` names hand
    position i (the seats dealt in, in seat order)."""
    return (f"Dealer: {names[dealer]}" + (f", {how}" if how else "")
            + f"; {names[(dealer + 1) % len(names)]} is 1st to play")


def op_text(op, changed=()) -> str:
    """One table operation in words; ``changed`` (index, meld) pairs: the melds it left (from the log)."""
    if isinstance(op, NewMeld):
        return f"lays {op.meld}"
    left = " and ".join(f"#{i} {m}" for i, m in changed)
    if isinstance(op, LayOff):
        return f"lays off {card_str(op.card)} on meld #{op.target}" + (f", now {left}" if left else "")
    if isinstance(op, Take):
        return f"takes slot {op.position} of meld #{op.target}" + (f", leaving {left}" if left else "")
    if isinstance(op, Split):
        return f"splits meld #{op.target} at {op.position} with {card_str(op.card)}" + (f" into {left}" if left else "")
    if isinstance(op, SwapJoker):
        extra = f" and {card_str(op.extra)}" if op.extra >= 0 else ""
        return f"takes the joker of meld #{op.target} with {card_str(op.card)}{extra}" + (f", leaving {left}" if left else "")
    return repr(op)


def hand_lines(log, names, how: str = "", width: int = 100) -> list[str]:
    """Lines for one hand; ``names[i]`` names hand position i; ``how``: how the dealer was chosen; the
    penalties' line wrapped at ``width`` columns."""
    out = []
    for ev in log:
        kind = ev[0]
        if kind == "deal":
            _, dealer, hands, up = ev
            n, wide = len(hands), max(len(name) for name in names)
            out.append(dealer_line(dealer, names, how))
            for k in range(1, n + 1):  # in the order of play, from the dealer's left
                i = (dealer + k) % n
                out.append(f"  {names[i]:<{wide}}  {play_order(k, n):<19}  dealt {len(hands[i]):2d}: {cards_str(hands[i])}")
            out.append(f"  upcard {card_str(up)}")
        elif kind == "cut_joker":
            out.append(f"  {names[ev[1]]} cut a joker to the bottom and keeps it")
        elif kind == "dealer_swap":
            out.append(f"  dealer {names[ev[1]]} takes the upcard {card_str(ev[2])} and puts {card_str(ev[3])} in its place")
        elif kind == "draw":
            out.append(f"{names[ev[1]]} draws {card_str(ev[3])} from the {ev[2]}")
        elif kind == "op":
            out.append(f"    {op_text(ev[2], ev[3])}")
        elif kind == "discard":
            out.append(f"    discards {card_str(ev[2])}")
        elif kind == "announce":
            out.append(f"    {names[ev[1]]} announces {counted(ev[2], 'card')} left")
        elif kind == "reshuffle":
            out.append(f"  the stock is empty: the discard pile is shuffled into a new stock of {ev[1]}, upcard {card_str(ev[2])}")
        elif kind == "void":
            out.append("  the stock ran out again: the hand is void and will be re-dealt by the same dealer")
        elif kind == "stalled":
            out.append(f"  turn cap reached after {counted(ev[1], 'turn')}: the hand is stalled")
        elif kind == "end":
            res = ev[1]
            if res.winner >= 0:
                out.append(f"{names[res.winner]} goes out ({res.win_type})")
                each = ", ".join(f"{names[i]} {p}".replace(" ", "\xa0") for i, p in enumerate(res.penalties))
                out += [line.replace("\xa0", " ") for line in  # broken between seats only
                        textwrap.wrap("Penalties: " + each, width, subsequent_indent="  ", break_long_words=False)]
    return out


def table_lines(table) -> list[str]:
    return [f"  #{i}: {m}" for i, m in enumerate(table)]
