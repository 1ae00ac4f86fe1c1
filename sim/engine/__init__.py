"""One hand of Kalooki as an explicit phase machine with fully validated turns (docs/RULES.md 1-6).

Phases: DRAW (take the stock or the discard), PLAY (a whole ``Play``: table operations, then one
discard), OVER.  ``apply_draw`` and ``apply_play`` check every rule of the profile and raise
``IllegalTurn`` naming the rule; a rejected play leaves the state exactly as it was.  Every random
choice comes from the numpy Generator passed in, all of it at the deal: the shuffle, then one key per
card (``reshuffle_keys``) that orders the discard pile if it ever becomes the stock.

Seat-keyed stock (``draw_seats``, duplicate tournaments): the deal also gives every game seat a random
key per card, and a stock draw takes the stock card with the drawer's highest key instead of the top
card.  Every stock draw is still a uniformly random card of the stock, whatever was seen before
(the keys of the cards left are exchangeable; a reshuffled stock gets fresh keys), so the game is the
same game, but the cards a seat draws no longer shift when another player takes the discard instead of
the stock: what the seat draws depends on which cards are left, not on how many draws came before.

Table operations in a play are applied in order to a working copy of the table:
``NewMeld`` (a meld from hand or harvested cards), ``LayOff`` (one card onto an end of a run or
into a group), ``Take`` (harvest a card from a table meld: run ends, a four-card group, a shift),
``Split`` (insert a card into a run, splitting it) and ``SwapJoker`` (a natural card for a joker).
At the end every harvested card must be on the table again and every table meld valid.

The package: ``actions`` (what a turn is made of), ``core`` (the rules of melds and of each table
operation, compiled, over meld rows; the profile compiled once for them, the meld search and the bots, ``compiled``), ``turn`` (a whole play validated and applied in one compiled
function: the only copy of the turn's rules, called by ``HandState.apply_play`` and by the compiled
hand loop alike), ``hand`` (a compiled hand's record and the steps that are no player's turn: the
stock renewed, a stock draw, a turn's counters, the invariants; ``HandState`` and the compiled hand
loop call the same functions), ``table`` (a ``Play`` as rows and a refusal worded for the player), ``state``
(``HandState``: the deal, the validated draw and play, the end) and ``loop`` (``play_hand``: a dealt
hand played to its end by the bots handed in, in the compiled loop their classes name, else turn by
turn).  The engine imports no bot and not the meld search.
"""
from .actions import (DRAW_DISCARD, DRAW_STOCK, HIGH, LOW, PHASE_DRAW, PHASE_OVER, PHASE_PLAY, SEAT_KEYS,
                      HandResult, IllegalTurn, LayOff, NewMeld, Play, Split, SwapJoker, Take)
from .state import HandState
from .table import try_ops

__all__ = ["DRAW_DISCARD", "DRAW_STOCK", "HIGH", "LOW", "PHASE_DRAW", "PHASE_OVER", "PHASE_PLAY", "SEAT_KEYS",
           "HandResult", "HandState", "IllegalTurn", "LayOff", "NewMeld", "Play", "Split", "SwapJoker", "Take",
           "try_ops"]
