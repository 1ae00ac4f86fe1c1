"""Readable transcripts of hands and games, from the engine's event log (for people checking rules)."""
from __future__ import annotations

from .cards import card_str, cards_str
from .engine import LayOff, NewMeld, Split, SwapJoker, Take


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


def hand_lines(log, names) -> list[str]:
    """Lines for one hand; ``names[i]`` names hand position i."""
    out = []
    for ev in log:
        kind = ev[0]
        if kind == "deal":
            _, dealer, hands, up = ev
            out.append(f"Dealer: {names[dealer]}")
            for i, h in enumerate(hands):
                out.append(f"  {names[i]:>14} dealt {len(h):2d}: {cards_str(h)}")
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
            out.append(f"    {names[ev[1]]} announces {ev[2]} card{'s' if ev[2] > 1 else ''} left")
        elif kind == "reshuffle":
            out.append(f"  the stock is empty: the discard pile is shuffled into a new stock of {ev[1]}, upcard {card_str(ev[2])}")
        elif kind == "void":
            out.append("  the stock ran out again: the hand is void and will be re-dealt by the same dealer")
        elif kind == "stalled":
            out.append(f"  turn cap reached after {ev[1]} turns: the hand is stalled")
        elif kind == "end":
            res = ev[1]
            if res.winner >= 0:
                out.append(f"{names[res.winner]} goes out ({res.win_type})")
                out.append("Penalties: " + ", ".join(f"{names[i]} {p}" for i, p in enumerate(res.penalties)))
    return out


def table_lines(table) -> list[str]:
    return [f"  #{i}: {m}" for i, m in enumerate(table)]
