"""The expert uses the whole repertoire of docs/RULES.md section 3, through validated turns: a split, a
shift, a group substitution and group joker releases under both joker_from_group rules."""
import numpy as np

from sim import melds as M
from sim import meldsearch as ms
from sim import profiles
from sim.bots import make_bot
from sim.bots.table_play import harvest_options
from sim.engine.turn import A_HIGH, new_adds
from sim.cards import JOKER, parse_card as C
from sim.engine import DRAW_DISCARD, DRAW_STOCK, HIGH, HandState, LayOff, NewMeld, Split, SwapJoker, Take, try_ops

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


def test_expert_leaves_the_joker_in_a_closed_group_it_takes_a_card_from():
    # kalooki51: TH taken off TH TD TC JK=TS completes JH QH; the group keeps its joker for the turn
    # (docs/RULES.md 11), so TS does not free it for 8D 9D
    closed = M.group(8, [C("TH"), C("TD"), C("TC"), JOKER], [0])
    st = opened_state("JH QH TS 8D 9D 2C 4S", [closed], p=K51)
    ops = expert_turn(st)
    assert Take(0, 0) in ops and not any(isinstance(op, SwapJoker) for op in ops), ops
    assert table_str(st) == ["group[TD TC JK=TS]", "run[TH JH QH]"]


def test_harvest_options_respect_the_run_limits_and_try_ops_changes_nothing():
    st = opened_state("6H 3S 3D 9C", [R("3H 4H 5H")])
    hand = st.hands[0]
    adds = new_adds()
    assert any(ops[0] == LayOff(0, C("6H"), HIGH) for ops in harvest_options(st, hand, adds))
    adds[A_HIGH, 0] = 2  # two cards already added to the high end this turn: no shift there
    assert not any(ops and isinstance(ops[0], LayOff) for ops in harvest_options(st, hand, adds))
    before_hand, before_table = hand.copy(), list(st.table)
    assert try_ops(st.table, K40, hand, [Take(0, 0)]) is None  # a three-card run gives nothing up
    after = try_ops(st.table, K40, hand, [LayOff(0, C("6H"), HIGH), Take(0, 0)])
    assert str(after[0]) == "run[4H 5H 6H]"
    assert (hand == before_hand).all() and st.table == before_table


# ---------------------------------------------------------------- moves the profile allows the opening
# lay-offs counted towards the opening, a joker taken from the table to open, the dealer's upcard swap,
# and holding back for a Kalooki only where it pays more
EC = profiles.load("east_coast")


def unopened_state(hand, table, p=K51, draw="3D"):
    """Seat 0 has not opened and has drawn (the stock holds nothing more: no Kalooki to wait for)."""
    st = HandState.scripted(p, [hand, "2C 3C 4C 5C 6C"], stock=draw, discard="2D", current=0, table=table,
                            opened=[False, True])
    st.apply_draw(DRAW_STOCK)
    return st


def test_expert_opens_with_lay_offs_where_they_count():
    # K-K-K is 30 from the hand; QC onto the queens and 9H, TH onto the hearts add 29: 59 >= 51
    table = [R("5H 6H 7H 8H", K51), G("QS QH QD", K51)]
    hand = "KS KH KD QC 9H TH 4S 2C"
    for name in ("expert", "lookahead", "patient"):
        st = unopened_state(hand, table)
        play = make_bot(name, np.random.default_rng(0)).play(st, 0)
        st.apply_play(play)
        assert st.opened[0], name
        assert sum(isinstance(op, NewMeld) for op in play.ops) == 1, play.ops
        assert {op.card for op in play.ops if isinstance(op, LayOff)} == {C("QC"), C("9H"), C("TH")}, play.ops
        assert "run[5H 6H 7H 8H 9H TH]" in table_str(st)
    opened = 0
    for seed in range(8):  # random tries to open half the time, and then opens the same way
        st = unopened_state(hand, table)
        st.apply_play(make_bot("random", np.random.default_rng(seed)).play(st, 0))
        opened += st.opened[0]
    assert 0 < opened < 8
    # where lay-offs do not count, 30 from the hand does not open
    st = unopened_state(hand, table, p=K51.replace(layoffs_count_for_opening=False))
    play = make_bot("expert", np.random.default_rng(0)).play(st, 0)
    st.apply_play(play)
    assert play.ops == [] and not st.opened[0]


def test_expert_takes_a_joker_from_the_table_to_open_where_allowed():
    # A-A-A is 45 (aces 15); the joker under 6D makes K-K-JK (30): 75 >= 51
    table = [R("5D JK 7D 8D", K51)]
    hand = "6D AS AH AD KS KH 4C 2C"
    st = unopened_state(hand, table, p=K51.replace(layoffs_count_for_opening=False))
    play = make_bot("expert", np.random.default_rng(0)).play(st, 0)
    st.apply_play(play)
    assert play.ops[0] == SwapJoker(0, 1, C("6D")), play.ops
    assert st.opened[0] and any(JOKER in m.cards and C("KS") in m.cards for m in st.table)
    assert "run[5D 6D 7D 8D]" in table_str(st)
    st = unopened_state(hand, table, p=K51.replace(layoffs_count_for_opening=False, joker_take_at_opening=False))
    play = make_bot("expert", np.random.default_rng(0)).play(st, 0)
    st.apply_play(play)
    assert play.ops == [] and not st.opened[0]


def test_expert_takes_the_discard_it_can_open_with_by_taking_a_joker():
    # after the first round the discard may be taken only to open with it: 6C makes 6C-7C-8C (21) and
    # the table's joker K-K-JK (30): 51
    table = [R("5D JK 7D 8D", K51)]
    p = K51.replace(layoffs_count_for_opening=False)
    st = HandState.scripted(p, ["6D KS KH 7C 8C AS 2S 9H", "2C 3C 4C 5C 6H"], stock="3D", discard="6C",
                            current=0, table=table, opened=[False, True])
    st.turns_taken[0] = 1
    bot = make_bot("expert", np.random.default_rng(0))
    assert st.discard_obligation(0) == "open"
    assert bot.draw(st, 0) == DRAW_DISCARD
    st.apply_draw(DRAW_DISCARD)
    st.apply_play(bot.play(st, 0))
    assert st.opened[0] and any(C("6C") in m.cards for m in st.table)


def test_dealer_swaps_the_upcard_when_it_lowers_the_deadwood():
    hand = "2S 3S 5H 5D 9C TC KD 8H 4C 7D JS QH 6C AD 3H"
    for up, takes in (("4S", True), ("AC", False)):  # AC: as loose as the AD it would replace
        st = HandState.scripted(EC, [hand, "2C 3C 4C 5C 6C 7C 8C 9D TD JD QD KH AC 2H 3C"], stock="9S",
                                discard=up, dealer=0, current=1)
        bot = make_bot("expert", np.random.default_rng(0))
        before = ms.fast_search(st.hands[0], EC)[1]
        card = bot.dealer_swap(st, 0)
        if not takes:
            assert card is None
            continue
        st.dealer_swap(card)
        assert st.hands[0][C(up)] == 1 and st.discard_top == card != C(up)
        assert ms.fast_search(st.hands[0], EC)[1] < before
    assert make_bot("greedy", np.random.default_rng(0)).dealer_swap(st, 0) is None  # greedy keeps its deal
    swaps = [make_bot("random", np.random.default_rng(seed)).dealer_swap(st, 0) for seed in range(8)]
    assert None in swaps and any(c is not None for c in swaps) and all(c is None or st.hands[0][c] > 0 and c != st.discard_top
                                                 for c in swaps)


def test_patient_holds_back_for_a_kalooki_only_where_it_pays_more():
    from sim.bots import kalooki_pays_more
    assert [kalooki_pays_more(profiles.load(n)) for n in ("kalooki40", "kalooki51", "east_coast")] == [True, False, True]
    hand = "KS KH KD QS QH QD 5C 6C 7C 9D TD JD 2S"  # melds all but 2S and the draw: a Kalooki is near
    for p, waits in ((K40, True), (K40.replace(stake_kalooki=1), False),
                     (K40.replace(stake_kalooki=1, kalooki_double_penalty=True), True)):
        for name in ("patient", "expert"):
            st = HandState.scripted(p, [hand, "2C 3C 4C 5C 6C 7H 8H 9S TS JS"],
                                    stock="4H 8S 8D 3S 3D 4D 6S 7S 9H 2H 5S AD",
                                    discard="2D", current=0, opened=[False, True])
            st.turns_taken[0] = 1
            st.apply_draw(DRAW_STOCK)
            play = make_bot(name, np.random.default_rng(0)).play(st, 0)
            assert (play.ops == []) == waits, (name, p.stake_kalooki, play.ops)
