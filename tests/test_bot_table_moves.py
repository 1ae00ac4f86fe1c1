"""The expert uses the whole repertoire of docs/RULES.md section 3, through validated turns: a split, a
shift, a group substitution and group joker releases under both joker_from_group rules."""
import numpy as np

from sim.bots import TurnAdds, harvest_options, make_bot
from sim.cards import JOKER, parse_card as C
from sim.engine import HIGH, LayOff, NewMeld, Split, SwapJoker, Take, try_ops

from test_table_play import G, K40, K51, R, opened_state, table_str


def expert_turn(st):
    """The expert's play for seat 0, applied (so validated) by the engine; its operations."""
    play = make_bot("expert", np.random.default_rng(0)).play(st, 0)
    st.apply_play(play)
    return play.ops


def test_expert_splits_a_run_with_a_duplicate_inner_card():
    st = opened_state("8S 2C 5H", [R("6S 7S 8S 9S TS")])
    ops = expert_turn(st)
    assert any(isinstance(op, Split) and op.card == C("8S") for op in ops), ops
    assert "run[6S 7S 8S]" in table_str(st) and "run[8S 9S TS]" in table_str(st)


def test_expert_shifts_a_run_to_free_its_low_card():
    st = opened_state("6H 3S 3D 2C 9D", [R("3H 4H 5H")])
    ops = expert_turn(st)
    assert ops[:2] == [LayOff(0, C("6H"), HIGH), Take(0, 0)], ops
    assert "group[3S 3H 3D]" in table_str(st) and "run[4H 5H 6H]" in table_str(st)


def test_expert_substitutes_in_a_group_to_complete_a_run():
    st = opened_state("7C 8H 9H 2C 4D", [G("7S 7H 7D")])
    ops = expert_turn(st)
    assert isinstance(ops[0], LayOff) and ops[0].card == C("7C") and isinstance(ops[1], Take), ops
    assert "run[7H 8H 9H]" in table_str(st) and "group[7S 7D 7C]" in table_str(st)


def test_expert_releases_a_group_joker_with_both_missing_suits():
    st = opened_state("7D 7C 8S 9S 2C 4D", [G("7S 7H JK")])  # kalooki40: both_missing_suits
    ops = expert_turn(st)
    assert isinstance(ops[0], SwapJoker) and {ops[0].card, ops[0].extra} == {C("7D"), C("7C")}, ops
    assert any(isinstance(op, NewMeld) and JOKER in op.meld.cards for op in ops)


def test_expert_releases_a_group_joker_with_one_card_in_north_america():
    st = opened_state("7C 8D 9D 2C 4S QH", [G("7S 7H JK", K51)], p=K51)  # one_card
    ops = expert_turn(st)
    assert isinstance(ops[0], SwapJoker) and ops[0].card == C("7C") and ops[0].extra < 0, ops
    assert any(isinstance(op, NewMeld) and JOKER in op.meld.cards for op in ops)


def test_harvest_options_respect_the_run_limits_and_try_ops_changes_nothing():
    st = opened_state("6H 3S 3D 9C", [R("3H 4H 5H")])
    hand = st.hands[0]
    adds = TurnAdds()
    assert any(o.ops[0] == LayOff(0, C("6H"), HIGH) for o in harvest_options(st, hand, st.table, adds))
    adds.add(0, HIGH)
    adds.add(0, HIGH)  # two cards already added to the high end this turn: no shift there
    assert not any(o.ops and isinstance(o.ops[0], LayOff) for o in harvest_options(st, hand, st.table, adds))
    before_hand, before_table = hand.copy(), list(st.table)
    assert try_ops(st.table, K40, hand, [Take(0, 0)]) is None  # a three-card run gives nothing up
    after = try_ops(st.table, K40, hand, [LayOff(0, C("6H"), HIGH), Take(0, 0)])
    assert str(after[0]) == "run[4H 5H 6H]"
    assert (hand == before_hand).all() and st.table == before_table
