"""The protocol every bot follows (see the package docstring)."""
from __future__ import annotations

import numpy as np

from ..engine import Play


class Bot:
    name = "bot"
    own_table = None  # a table of game values it plays by instead of the profile's (sim.game.hand_stakes)

    def __init__(self, rng: np.random.Generator | None = None, **params):
        self.rng = rng
        self.params = params

    def draw(self, state, me) -> int:
        raise NotImplementedError

    def play(self, state, me) -> Play:
        raise NotImplementedError

    def buy_in(self, ledger, seat) -> bool:
        return True

    def dealer_swap(self, state, me):
        return None
