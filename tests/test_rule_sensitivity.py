"""Every rule in a profile changes play: for each parameter of each profile, seeded hands (or games)
played with the parameter at its value and at another value record different outcomes.

Hand rules are played by an ``expert`` bot in every seat (the strongest bot but for ``lookahead``,
which makes the same table moves and is several times slower), hand by hand from seed 0, until a
hand's record (its transcript and every player's opening statistics) differs, at most ``MAX_HANDS``
hands.  Game rules (money, elimination, targets, caps) are played as whole games by ``greedy`` bots
(the compiled loop: whole expert games for every profile would not fit the test's time), at most
``MAX_GAMES`` games (single-hand games: ``MAX_HANDS``), comparing the score sheets.  A rule whose
effect seeded hands of the full profile reach too rarely is compared in a situation that makes it
common (``SITUATIONS``, the same on both sides).  The only exceptions are the names of
``sim.rule_coverage``: a parameter no bot can use must leave every outcome unchanged, and a parameter
that applies only under another parameter's value must change nothing without it and change outcomes
with it.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from sim import profiles
from sim.bots import make_bot
from sim.engine import HandState
from sim.game import play_game, play_hand
from sim.profiles import PARAM_NAMES, ProfileError, check_players
from sim.rule_coverage import APPLIES_ONLY_WHEN, MOVES_THE_RULES_FORBID, RULES_NO_BOT_CAN_USE, applies, enabling

PROFILES = profiles.available()
MAX_HANDS = 40
MAX_GAMES = 4
SAME_HANDS, SAME_GAMES = 3, 2  # where a parameter must change nothing: the seeds compared
GAME_RULES = {"stake_initial", "stake_call", "stake_kalooki", "stake_buy_in", "pay_per_card", "pay_per_joker",
              "pay_double_on_kalooki", "game_end", "target_score", "eliminate_above", "max_buy_ins", "hand_cap"}

# Rules whose effect needs a situation that seeded hands of the full profile reach too rarely for a
# short test: both sides of the comparison are dealt this many cards (with these other changes), so
# only the rule under test differs.  Short hands make first-turn go-outs and Kalookis common (with no
# opening minimum for the first-round rule); long hands bring jokers together and more lay-offs; six
# players with 17 cards leave a stock of a few cards; an all-joker group is chosen when it is worth
# more than the cards the jokers would stand for; jokers are left in hand (and their penalty paid) when
# opening is hard (the bots never discard a joker and meld every joker they can).
SITUATIONS = {"go_out_first_round": (3, {"opening_min": 0}), "kalooki_double_penalty": (7, {}),
              "kalooki_exempt_from_minimum": (9, {}), "stake_kalooki": (7, {}), "pay_double_on_kalooki": (7, {}),
              "cut_card_joker": (5, {}), "stock_exhausted": (17, {"players": 6}),
              "joker_melds": (24, {"joker_meld_value": 25}), "joker_meld_value": (24, {}),
              "max_jokers_per_meld": (24, {}), "run_add_limit": (20, {}),
              "joker_penalty": (None, {"opening_min": 100})}
# A joker at the bottom of the pack is dealt in about one hand in 50; the experts' hands reach a joker
# taken from a run's middle, or a Kalooki worth less than the opening minimum in 9-card hands, more
# rarely than once in 40.
SEEDS = {"cut_card_joker": 200, "joker_take_from_run_end": 100, "kalooki_exempt_from_minimum": 100}
# Rules that act only on a deal of some shape: of the seeds above, only those whose deal has that shape
# on either side are played (on any other seed both sides deal alike, and the rule reads nothing later).
DEALT_SHAPE = {"cut_card_joker": lambda state: any(event[0] == "cut_joker" for event in state.log)}


def situation(p, name) -> dict:
    if name not in SITUATIONS:
        return {}
    size, extra = SITUATIONS[name]
    if size is None:
        return dict(extra)
    players = extra.get("players", p.players)
    return {"hand_size": size, "hand_size_by_players": {}, "deal_pattern": [], "max_players": players,
            "min_players": min(p.min_players, players), **extra}


def alternative(p, name):
    """(changes made on both sides, another value of ``name``) for profile ``p``."""
    v = getattr(p, name)
    meta = profiles.FIELDS[name].metadata
    both = situation(p, name)
    if name == "jokers":
        return both, 4 if v == 2 else 2
    if name == "hand_size":
        if p.deal_pattern:
            both["deal_pattern"] = []
        return both, v - 2
    if name == "hand_size_by_players":
        if p.deal_pattern:
            both["deal_pattern"] = []
        return both, {**(v or {}), str(p.players): p.hand_size_for(p.players) - 2}
    if name == "deal_pattern":
        if v:
            return both, []
        if p.hand_size_by_players:
            both["hand_size_by_players"] = {}
        return both, [p.hand_size]
    if name == "players":
        return both, v - 1 if v - 1 >= p.min_players else v + 1
    if isinstance(v, bool):
        return both, not v
    if meta["choices"] is not None:
        return both, next(c for c in meta["choices"] if c != v)
    special = {"turn_cap": 10, "hand_cap": 1, "max_buy_ins": 0 if v else 2, "run_end_limit": 1 if v > 1 else 2,
               "max_jokers_per_meld": 1 if v > 1 else 13, "ace_low_value": 10,
               "joker_penalty": 1 if v > 1 else 15, "joker_meld_value": 40 if v < 40 else 15, "eliminate_above": v // 2,
               "target_score": v // 2, "opening_min": v - 15}
    if name in special:
        return both, special[name]
    return both, v + 4 if v + 4 <= meta["hi"] else v - 4


def dealt(p, seed: int) -> HandState:
    """The hand dealt from ``seed``, not yet played."""
    n = p.players
    return HandState(p, n, seed % n, np.random.default_rng(seed), record=True)


_HANDS: dict = {}


def hand_record(p, seed: int) -> str:
    """One hand dealt from ``seed`` and played by experts: its transcript and opening statistics."""
    key = (p.rules_hash(), seed)
    if key not in _HANDS:
        n = p.players
        state = dealt(p, seed)
        bots = [make_bot("expert", np.random.default_rng([seed, i])) for i in range(n)]
        play_hand(state, bots, list(range(n)))
        _HANDS[key] = repr((state.log, state.stats))
    return _HANDS[key]


_GAMES: dict = {}


def game_record(p, seed: int) -> str:
    """One game from ``seed`` played by greedy bots: its score sheet and winner."""
    key = (p.rules_hash(), seed)
    if key not in _GAMES:
        bots = [make_bot("greedy", np.random.default_rng([seed, i])) for i in range(p.players)]
        game = play_game(p, bots, np.random.default_rng(seed))
        _GAMES[key] = repr(([dataclasses.astuple(r) for r in game.ledger.sheet], game.ledger.winner))
    return _GAMES[key]


def first_difference(a, b, name, same: bool = False) -> int | None:
    """The first seed whose recorded outcome differs between profiles a and b (None: none did);
    ``same``: only the few seeds compared where nothing should differ."""
    if name in GAME_RULES:
        record, count = game_record, SAME_GAMES if same else MAX_GAMES
        if a.game_end == "single_hand" and not same:
            count = MAX_HANDS  # a game of one hand
    else:
        record, count = hand_record, SAME_HANDS if same else SEEDS.get(name, MAX_HANDS)
    seeds = range(count)
    if name in DEALT_SHAPE and not same:
        shaped = DEALT_SHAPE[name]
        seeds = [s for s in seeds if shaped(dealt(a, s)) or shaped(dealt(b, s))]
    return next((s for s in seeds if record(a, s) != record(b, s)), None)


CASES = [(prof, name) for prof in PROFILES for name in PARAM_NAMES if name not in RULES_NO_BOT_CAN_USE]


@pytest.mark.parametrize("prof,name", CASES)
def test_every_rule_changes_recorded_outcomes(prof, name):
    p = profiles.load(prof)
    if not applies(p, name):
        # where the rule does not apply it must change nothing; its effect is checked where it does
        _, alt = alternative(p, name)
        assert first_difference(p, p.replace(**{name: alt}), name, same=True) is None, (
            f"{prof}: {name} changed outcomes although rule_coverage says it applies only when "
            f"{APPLIES_ONLY_WHEN[name]}")
        p = p.replace(**enabling(p, name))
    both, alt = alternative(p, name)
    base = p.replace(**both) if both else p
    other = base.replace(**{name: alt})
    assert first_difference(base, other, name) is not None, (
        f"{prof}: {name} = {getattr(base, name)!r} and {alt!r} recorded the same outcomes in every seeded "
        f"{'game' if name in GAME_RULES else 'hand'} compared (situation: {both or 'the profile as it is'})")


@pytest.mark.parametrize("prof", PROFILES)
def test_rules_no_bot_can_use_change_nothing(prof):
    p = profiles.load(prof)
    n = p.players
    for name in RULES_NO_BOT_CAN_USE:
        alt = {"min_players": 2 if p.min_players > 2 else n, "max_players": n}[name]
        other = p.replace(**{name: alt})
        assert other != p
        assert first_difference(p, other, "players", same=True) is None, f"{prof}: {name} changed how a hand is played"
        assert first_difference(p, other, "game_end", same=True) is None, f"{prof}: {name} changed how a game is played"
    with pytest.raises(ProfileError, match="not allowed"):
        check_players(p.replace(max_players=n, min_players=min(p.min_players, n)), n + 1)


def test_the_coverage_lists_name_real_parameters_with_reasons():
    for name, reason in RULES_NO_BOT_CAN_USE.items():
        assert name in PARAM_NAMES and len(reason) > 20
    for name, conditions in APPLIES_ONLY_WHEN.items():
        assert name in PARAM_NAMES and conditions
        for cond, values in conditions:
            assert cond in PARAM_NAMES and cond != name and len(values) >= 1
            profiles.load("kalooki40").replace(**{cond: values[0]})  # an allowed value
    assert all(len(reason) > 20 for reason in MOVES_THE_RULES_FORBID.values())


def test_the_readme_names_the_rules_no_bot_can_use():
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent
    text = (root / "README.md").read_text()
    assert "sim/rule_coverage.py" in text
    assert all(f"`{name}`" in text for name in RULES_NO_BOT_CAN_USE)
    # the design guide's recipe for a new parameter names the lists this test allows as exceptions
    recipe = (root / "docs" / "DESIGN.md").read_text().split("### Add a rule parameter")[1].split("\n### ")[0]
    assert all(name in recipe for name in ("sim/rule_coverage.py", "tests/test_rule_sensitivity.py",
                                           "APPLIES_ONLY_WHEN", "RULES_NO_BOT_CAN_USE"))
