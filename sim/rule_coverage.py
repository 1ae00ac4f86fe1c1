"""Which profile parameters change play, and under which other parameters they apply.

A designer reads a rule's effect from the difference it makes.  ``tests/test_rule_sensitivity.py``
plays seeded hands and games with every parameter of every profile at its value and at another,
and requires the recorded outcomes to differ; the names below are the only exceptions it allows:

- ``RULES_NO_BOT_CAN_USE``: parameters no strategy can use, with the reason.  The test checks that
  changing them (within what the seat count allows) leaves every outcome as it was.
- ``APPLIES_ONLY_WHEN``: parameters that take effect only when other parameters have given values
  (stakes only in elimination games, ...).  In a profile where a condition does not hold the test
  checks that the parameter changes nothing, and then checks its effect with the condition met.
- ``MOVES_THE_RULES_FORBID``: moves the bots never make because no parameter allows them.
"""
from __future__ import annotations

RULES_NO_BOT_CAN_USE = {
    "min_players": "bounds the seat count a run may ask for (checked when the run starts); at an allowed "
                   "count it changes no deal, draw, play or payment",
    "max_players": "bounds the seat count a run may ask for (checked when the run starts); at an allowed "
                   "count it changes no deal, draw, play or payment",
}

_ELIMINATION = ("game_end", ("elimination",))
APPLIES_ONLY_WHEN = {  # parameter: the conditions (parameter, values it takes effect under), all needed
    "ace_low_value": (("ace_low", (True,)),),
    "joker_melds": (("jokers", (4, 3)),),  # an all-joker group needs three jokers
    "joker_meld_value": (("joker_melds", (True,)), ("jokers", (4, 3))),
    "max_jokers_per_meld": (("jokers", (2, 3, 4)),),
    "run_end_limit": (("run_add_limit", ("per_end",)),),
    # unopened players may not take the discard at all without discard_pickup_before_opening
    "first_round_free_draw": (("discard_pickup", ("after_opening",)), ("discard_pickup_before_opening", (True,))),
    "stake_initial": (_ELIMINATION,),
    "stake_call": (_ELIMINATION,),
    "stake_kalooki": (_ELIMINATION,),
    "stake_buy_in": (_ELIMINATION, ("max_buy_ins", range(1, 101))),
    "eliminate_above": (_ELIMINATION,),
    "max_buy_ins": (_ELIMINATION,),
    "pay_per_card": (("game_end", ("single_hand",)),),
    "pay_per_joker": (("game_end", ("single_hand",)),),
    "pay_double_on_kalooki": (("game_end", ("single_hand",)),),
    "target_score": (("game_end", ("target",)),),
    "hand_cap": (("game_end", ("elimination", "target")),),  # a single-hand game always ends after one
}

MOVES_THE_RULES_FORBID = {
    "lay off a freed joker": "docs/RULES.md section 3: a joker taken from the table must be played in the same "
                             "turn in a new meld with at least two cards from the player's own hand; no "
                             "parameter allows laying it off onto a table meld, so the bots always start a "
                             "new meld with it",
}


def applies(profile, name: str) -> bool:
    """Does parameter ``name`` take effect under the other parameters of ``profile``?"""
    return all(getattr(profile, other) in values for other, values in APPLIES_ONLY_WHEN.get(name, ()))


def enabling(profile, name: str) -> dict:
    """The changes to ``profile`` that make parameter ``name`` take effect (the first allowed value of
    each condition that does not hold)."""
    return {other: values[0] for other, values in APPLIES_ONLY_WHEN.get(name, ())
            if getattr(profile, other) not in values}
