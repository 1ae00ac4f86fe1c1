"""Graded players: any bot made weaker by a known amount.

A graded player is written ``NAME@EPS`` (``expert@0.3``): the bot ``NAME``, except that each of its
turns is, with probability ``EPS``, the random bot's turn instead (its draw and its whole play: a
random pile, random melds and lay-offs, a random discard; ``sim.bots.random_bot``).  ``EPS`` is
0..1: ``expert@0`` plays exactly as ``expert``, ``expert@1`` exactly as ``random`` on every turn.  The
dealer's upcard swap and the buy-in stay the bot's own.

The coin of each turn is the next uniform of the player's stream (the random bot's stream, drawn
from the player's own generator), so the Python engine here and the compiled hand loop
(``sim.bots.hand_loop``, which reads ``eps`` per seat and flips the same coin at the start of the
turn) give the same turns.
"""
from __future__ import annotations

import functools

import numpy as np

from .random_bot import RandomBot

SEP = "@"


def parse(name: str) -> tuple[str, float | None]:
    """(bot name, eps) of ``NAME@EPS``; (name, None) for a plain bot name.  Raises ValueError with the
    reason when EPS is not a number in 0..1."""
    if SEP not in name:
        return name, None
    base, text = name.split(SEP, 1)
    try:
        eps = float(text)
    except ValueError:
        raise ValueError(f"{text!r} after '{SEP}' is not a number") from None
    if not 0.0 <= eps <= 1.0:
        raise ValueError(f"{text!r} after '{SEP}' is outside 0..1")
    return base, eps


class Graded:
    """The mixin of a graded player: the coin before each turn, the random bot's turn on heads."""

    eps = 0.0
    ensure = RandomBot.ensure
    next_uniform = RandomBot.next_uniform
    random_draw = RandomBot.draw
    random_play = RandomBot.play

    def __init__(self, rng=None, **params):
        super().__init__(rng, **params)
        self.stream = np.empty(0, np.float64)
        self.pos = 0
        self._random_turn = False

    def draw(self, state, me) -> int:
        self._random_turn = self.eps > 0 and self.next_uniform() < self.eps
        return self.random_draw(state, me) if self._random_turn else super().draw(state, me)

    def play(self, state, me):
        return self.random_play(state, me) if self._random_turn else super().play(state, me)


@functools.cache
def graded_class(base: type) -> type:
    """The graded subclass of a bot class (its ``hand_loop`` restated: a subclass does not inherit it)."""
    return type(f"Graded{base.__name__}", (Graded, base), {"name": base.name, "hand_loop": base.__dict__.get(
        "hand_loop")})
