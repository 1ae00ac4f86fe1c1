"""Table play (docs/RULES.md section 3): every example of the rules, hands written out."""
import pytest

from sim import melds as M
from sim import profiles
from sim.cards import JOKER, parse_card as C, parse_cards
from sim.engine import (DRAW_DISCARD, DRAW_STOCK, HIGH, LOW, HandState, IllegalTurn, LayOff, NewMeld, Play, Split,
                        SwapJoker, Take)

K40 = profiles.load("kalooki40")
K51 = profiles.load("kalooki51")


def R(text, p=K40):
    m = M.declare_run(parse_cards(text), p)
    assert m is not None
    return m


def G(text, p=K40):
    m = M.declare_group(parse_cards(text), p)
    assert m is not None
    return m


def opened_state(hand, table, p=K40, draw="KD"):
    st = HandState.scripted(p, [hand, "2C 3C 4C 5C 6C"], stock=draw, discard="2D", current=0, table=table,
                            opened=[True, True])
    st.apply_draw(DRAW_STOCK)
    return st


def refuse(st, play, rule):
    before = (st.hands.copy().tolist(), list(st.table))
    with pytest.raises(IllegalTurn) as e:
        st.apply_play(play)
    assert e.value.rule == rule, str(e.value)
    assert (st.hands.tolist(), st.table) == before
    return str(e.value)


def table_str(st):
    return sorted(str(m) for m in st.table)


def test_lay_off_and_take_gives_234_and_555():
    # 3-4-5 on the table, 2, 5, 5 in hand: 2-3-4 and 5-5-5
    st = opened_state("2H 5S 5D 9C", [R("3H 4H 5H")])
    st.apply_play(Play([LayOff(0, C("2H"), LOW), Take(0, 3), NewMeld(G("5H 5S 5D"))], C("9C")))
    assert table_str(st) == ["group[5H 5S 5D]", "run[2H 3H 4H]"]


def test_shift_a_run_frees_the_low_card():
    # 3-4-5 + 6 frees the 3, used at once in 3-3-3
    st = opened_state("6H 3S 3D 9C", [R("3H 4H 5H")])
    st.apply_play(Play([LayOff(0, C("6H"), HIGH), Take(0, 0), NewMeld(G("3H 3S 3D"))], C("9C")))
    assert table_str(st) == ["group[3H 3S 3D]", "run[4H 5H 6H]"]


def test_split_a_run_by_inserting_a_card():
    st = opened_state("8S 9C", [R("6S 7S 8S 9S TS")])
    st.apply_play(Play([Split(0, C("8S"), 3)], C("9C")))
    assert table_str(st) == ["run[6S 7S 8S]", "run[8S 9S TS]"]


def test_split_off_part_keeps_the_run_end_limit():
    # 6H-TH split at 8H; its high end is still the run's: JH QH KH there is one card too many
    st = opened_state("8H JH QH KH 9C", [R("6H 7H 8H 9H TH")])
    refuse(st, Play([Split(0, C("8H"), 3), LayOff(1, C("JH"), HIGH), LayOff(1, C("QH"), HIGH),
                     LayOff(1, C("KH"), HIGH)], C("9C")), "run_end_limit")
    # as when added directly
    refuse(st, Play([LayOff(0, C("JH"), HIGH), LayOff(0, C("QH"), HIGH), LayOff(0, C("KH"), HIGH)], C("9C")),
           "run_end_limit")
    # two added before the split still count after it
    refuse(st, Play([LayOff(0, C("JH"), HIGH), LayOff(0, C("QH"), HIGH), Split(0, C("8H"), 3),
                     LayOff(1, C("KH"), HIGH)], C("9C")), "run_end_limit")
    st.apply_play(Play([Split(0, C("8H"), 3), LayOff(1, C("JH"), HIGH), LayOff(1, C("QH"), HIGH)], C("KH")))
    assert table_str(st) == ["run[6H 7H 8H]", "run[8H 9H TH JH QH]"]
    assert st.stats[0]["cards_laid_off"] == 3


def test_split_parts_share_two_total():
    p = K40.replace(run_add_limit="two_total")
    st = opened_state("8H 5H JH QH 9C", [R("6H 7H 8H 9H TH")], p)
    refuse(st, Play([Split(0, C("8H"), 3), LayOff(0, C("5H"), LOW), LayOff(1, C("JH"), HIGH),
                     LayOff(1, C("QH"), HIGH)], C("9C")), "run_add_limit")
    st.apply_play(Play([Split(0, C("8H"), 3), LayOff(0, C("5H"), LOW), LayOff(1, C("JH"), HIGH)], C("QH")))
    assert table_str(st) == ["run[5H 6H 7H 8H]", "run[8H 9H TH JH]"]


def test_the_card_taken_from_the_pile_splits_a_run_or_is_laid_off_but_is_never_thrown():
    # section 5: only no copy of the taken card may be discarded; it is built with like any other card
    def taken_5s():
        st = HandState.scripted(K40, ["5H 3C", "2C 3C 4C 5C 6C"], stock="KD", discard="2D 5S", current=0,
                                table=[R("3S 4S 5S 6S 7S"), R("6H 7H 8H 9H TH JH")], opened=[True, True])
        st.apply_draw(DRAW_DISCARD)
        return st
    st = taken_5s()
    assert "taken from the discard pile" in refuse(st, Play([LayOff(1, C("5H"), LOW)], C("5S")), "discard")
    st.apply_play(Play([Split(0, C("5S"), 3), LayOff(1, C("5H"), LOW)], C("3C")))
    assert st.result.winner == 0 and table_str(st)[-3:] == ["run[3S 4S 5S]", "run[5H 6H 7H 8H 9H TH JH]",
                                                             "run[5S 6S 7S]"]
    st = taken_5s()  # or kept: then it stays in hand, since it cannot go
    st.apply_play(Play([LayOff(1, C("5H"), LOW)], C("3C")))
    assert st.result is None and st.hands[0][C("5S")] == 1


def test_split_refused_when_a_part_is_too_short():
    st = opened_state("7S 9C", [R("6S 7S 8S 9S TS")])
    refuse(st, Play([Split(0, C("7S"), 2)], C("9C")), "split")


def test_group_substitution_takes_a_fourth_suit_and_gives_one_up():
    st = opened_state("7C 7D 8S 9S KD", [G("7S 7H 7D"), R("4H 5H 6H")])
    # add 7C to the group, take 7H, and use it in a new group? use it on the run 4-5-6 -> 4-5-6-7
    st.apply_play(Play([LayOff(0, C("7C"), HIGH), Take(0, 1), LayOff(1, C("7H"), HIGH)], C("KD")))
    assert table_str(st) == ["group[7S 7D 7C]", "run[4H 5H 6H 7H]"]


def test_harvested_card_left_in_hand_is_refused():
    st = opened_state("6H 9C", [R("3H 4H 5H")])
    msg = refuse(st, Play([LayOff(0, C("6H"), HIGH), Take(0, 0)], C("9C")), "harvest")
    assert "3H" in msg


def test_remove_only_from_run_ends_and_four_card_groups():
    st = opened_state("9C", [R("3H 4H 5H 6H"), G("7S 7H 7D")])
    refuse(st, Play([Take(0, 1)], C("9C")), "take")
    refuse(st, Play([Take(1, 0)], C("9C")), "take")


def test_joker_from_run_end_refused_by_default_and_allowed_in_variant():
    # 3-4-JK (the joker stands for 5): taken with the 5 and laid with 7-7
    table = [M.run(1, 2, [C("3H"), C("4H"), JOKER])]
    assert table[0].reps[2] == C("5H")
    st = opened_state("5H 7S 7C 9C", table)
    refuse(st, Play([SwapJoker(0, 2, C("5H")), NewMeld(M.group(5, [C("7S"), C("7C"), JOKER], [1]))], C("9C")),
           "joker_take_from_run_end")
    p = K40.replace(joker_take_from_run_end=True)
    st = opened_state("5H 7S 7C 9C", table, p)
    st.apply_play(Play([SwapJoker(0, 2, C("5H")), NewMeld(M.group(5, [C("7S"), C("7C"), JOKER], [1]))], C("9C")))
    assert table_str(st) == ["group[7S 7C JK=7H]", "run[3H 4H 5H]"]
    assert st.stats[0]["jokers_taken"] == 1


def test_interior_joker_taken_and_must_go_into_a_new_meld_with_two_hand_cards():
    table = [M.run(1, 2, [C("3H"), JOKER, C("5H")])]
    st = opened_state("4H 7S 7C 9C", table)
    # keeping the joker is refused
    refuse(st, Play([SwapJoker(0, 1, C("4H"))], C("9C")), "harvest")
    # laying it off onto a meld is refused: it must go in a new meld with two cards from the hand
    st2 = opened_state("4H 9C 2S", table + [R("6S 7S 8S")])
    refuse(st2, Play([SwapJoker(0, 1, C("4H")), LayOff(1, JOKER, HIGH)], C("9C")), "joker")
    st.apply_play(Play([SwapJoker(0, 1, C("4H")), NewMeld(M.group(5, [C("7S"), C("7C"), JOKER], [1]))], C("9C")))
    assert table_str(st) == ["group[7S 7C JK=7H]", "run[3H 4H 5H]"]


def test_swap_needs_the_exact_card():
    table = [M.run(1, 2, [C("3H"), JOKER, C("5H")])]
    st = opened_state("4S 7S 7C 9C", table)
    refuse(st, Play([SwapJoker(0, 1, C("4S")), NewMeld(M.group(5, [C("7S"), C("7C"), JOKER], [1]))], C("9C")), "joker")


def test_group_joker_needs_both_missing_suits():
    table = [M.group(5, [C("7S"), C("7H"), JOKER], [2])]  # joker = 7D
    st = opened_state("7D 7C 9S 9H 2C", table)
    refuse(st, Play([SwapJoker(0, 2, C("7D")), NewMeld(M.group(7, [C("9S"), C("9H"), JOKER], [2]))], C("2C")),
           "joker_from_group")
    st.apply_play(Play([SwapJoker(0, 2, C("7D"), C("7C")), NewMeld(M.group(7, [C("9S"), C("9H"), JOKER], [2]))],
                       C("2C")))
    assert table_str(st) == ["group[7S 7H 7D 7C]", "group[9S 9H JK=9D]"]


def test_two_joker_group_frees_one_joker():
    table = [M.group(5, [C("7S"), JOKER, JOKER], [1, 2])]  # jokers = 7H, 7D
    st = opened_state("7H 7C 9S 9H 2C", table)
    st.apply_play(Play([SwapJoker(0, 1, C("7H"), C("7C")), NewMeld(M.group(7, [C("9S"), C("9H"), JOKER], [2]))],
                       C("2C")))
    assert table_str(st) == ["group[7S 7H 7C JK=7D]", "group[9S 9H JK=9D]"]


def test_four_card_group_joker_never_released():
    table = [M.group(5, [C("7S"), C("7H"), C("7C"), JOKER], [2])]
    st = opened_state("7D 9S 9H 2C", table)
    refuse(st, Play([SwapJoker(0, 3, C("7D")), NewMeld(M.group(7, [C("9S"), C("9H"), JOKER], [2]))], C("2C")),
           "joker_from_group")


CLOSED = M.group(5, [C("7H"), C("7S"), C("7D"), JOKER], [3])  # 7H 7S 7D JK=7C
NINES = M.group(7, [C("9S"), C("9H"), JOKER], [2])  # a freed joker laid again with two cards from the hand


@pytest.mark.parametrize("p,hand,ops", [
    # kalooki40: 7H taken off the group, then given back with 7C as its two missing suits
    (K40, "7C 9S 9H 2C", [Take(0, 0), SwapJoker(0, 2, C("7H"), C("7C"))]),
    # kalooki51: 7H taken, 7C given for the joker, 7H laid back
    (K51, "7C 9S 9H 2C", [Take(0, 0), SwapJoker(0, 2, C("7C")), LayOff(0, C("7H"))]),
    # the card taken laid elsewhere, the joker swapped with a second 7H and 7C from the hand
    (K40, "7H 7C 9S 9H 2C", [Take(0, 0), LayOff(1, C("7H"), HIGH), SwapJoker(0, 2, C("7H"), C("7C"))]),
], ids=["kalooki40", "kalooki51", "taken-card-elsewhere"])
def test_a_closed_group_keeps_its_joker_for_the_turn_a_card_is_taken_from_it(p, hand, ops):
    st = opened_state(hand, [CLOSED, R("4H 5H 6H", p)], p)
    msg = refuse(st, Play(ops + [NewMeld(NINES)], C("2C")), "joker_from_group")
    assert "closed" in msg and "group[7S 7D JK=7C]" in msg


def test_a_two_joker_group_gives_up_one_joker_a_turn_where_both_missing_suits_are_needed():
    table = [M.group(5, [C("7S"), JOKER, JOKER], [1, 2])]  # jokers = 7H, 7D
    eights = M.group(6, [C("8S"), C("8H"), JOKER], [2])
    # the first swap leaves 7S 7H 7C JK=7D, closed: taking 7S back and giving it with 7D does not free the other
    st = opened_state("7H 7C 7D 9S 9H 8S 8H 2C", table)
    msg = refuse(st, Play([SwapJoker(0, 1, C("7H"), C("7C")), Take(0, 0), SwapJoker(0, 2, C("7S"), C("7D")),
                           NewMeld(NINES), NewMeld(eights)], C("2C")), "joker_from_group")
    assert "closed" in msg
    # where one card takes a group joker, each swap leaves a three-card group: both jokers come out
    st = opened_state("7H 7D 9S 9H 8S 8H 2C", table, K51)
    st.apply_play(Play([SwapJoker(0, 1, C("7H")), SwapJoker(0, 2, C("7D")), NewMeld(NINES), NewMeld(eights)],
                       C("2C")))
    assert table_str(st) == ["group[7S 7H 7D]", "group[8S 8H JK=8D]", "group[9S 9H JK=9D]"]
    assert st.stats[0]["jokers_taken"] == 2


def test_joker_swaps_the_closed_group_ruling_leaves_alone():
    # a three-card group closed by the player's own lay-off: its missing suits still come from the hand,
    # as in the direct swap (7H and 7C given, 7S taken back and given as a missing suit)
    st = opened_state("7H 7C 9S 9H 2C", [M.group(5, [C("7S"), C("7D"), JOKER], [3])])
    st.apply_play(Play([LayOff(0, C("7H")), Take(0, 0), SwapJoker(0, 1, C("7S"), C("7C")), NewMeld(NINES)],
                       C("2C")))
    assert table_str(st) == ["group[7D 7H 7S 7C]", "group[9S 9H JK=9D]"]
    # a joker at a run end where the profile allows it, in the turn a card is taken off a closed group
    p = K40.replace(joker_take_from_run_end=True)
    st = opened_state("5H 6H 9S 9H 2C", [CLOSED, M.run(1, 2, [C("3H"), C("4H"), JOKER])], p)
    st.apply_play(Play([SwapJoker(1, 2, C("5H")), LayOff(1, C("6H"), HIGH), Take(0, 0), LayOff(1, C("7H"), HIGH),
                        NewMeld(NINES)], C("2C")))
    assert table_str(st) == ["group[7S 7D JK=7C]", "group[9S 9H JK=9D]", "run[3H 4H 5H 6H 7H]"]


def test_a_group_closed_in_one_turn_gives_up_its_joker_in_a_later_one():
    st = HandState.scripted(K40, ["7H 7C 9S 9H 2C QC", "2S 3S 4S"], stock="KD 8C 8D", discard="2D", current=0,
                            table=[CLOSED, R("4H 5H 6H")], opened=[True, True])
    st.apply_draw(DRAW_STOCK)
    st.apply_play(Play([Take(0, 0), LayOff(1, C("7H"), HIGH)], C("2C")))
    st.apply_draw(DRAW_STOCK)
    st.apply_play(Play([], C("8C")))
    st.apply_draw(DRAW_STOCK)
    st.apply_play(Play([SwapJoker(0, 2, C("7H"), C("7C")), NewMeld(NINES)], C("QC")))
    assert table_str(st) == ["group[7S 7D 7H 7C]", "group[9S 9H JK=9D]", "run[4H 5H 6H 7H]"]


def test_one_card_takes_a_group_joker_in_north_america():
    table = [M.group(5, [C("7S"), C("7H"), JOKER], [2], )]
    st = opened_state("7C 9S 9H 2C", table, K51)
    st.apply_play(Play([SwapJoker(0, 2, C("7C")), NewMeld(M.group(7, [C("9S"), C("9H"), JOKER], [2]))], C("2C")))
    assert table_str(st) == ["group[7S 7H 7C]", "group[9S 9H JK=9D]"]


def test_joker_take_at_opening_north_america():
    table = [M.run(1, 2, [C("3H"), JOKER, C("5H")], )]
    hand = "4H QS KS AS QD KD 2C"
    st = HandState.scripted(K51, [hand, "2S 3S"], stock="9C", discard="2D", current=0, table=table,
                            opened=[False, True])
    st.turns_taken = [2, 2]
    st.apply_draw(DRAW_STOCK)
    # 35 (Q-K-A spades) + Q-K-JK diamonds (10+10+15) = 70 >= 51, the joker taken while opening
    jk_run = M.run(2, 11, [C("QD"), C("KD"), JOKER])
    st.apply_play(Play([SwapJoker(0, 1, C("4H")), NewMeld(R("QS KS AS", K51)), NewMeld(jk_run)], C("2C")))
    assert st.opened[0] and st.stats[0]["open_value"] == 70
    st40 = HandState.scripted(K40, [hand, "2S 3S"], stock="9C", discard="2D", current=0, table=table,
                              opened=[False, True])
    st40.turns_taken = [2, 2]
    st40.apply_draw(DRAW_STOCK)
    refuse(st40, Play([SwapJoker(0, 1, C("4H")), NewMeld(R("QS KS AS")), NewMeld(jk_run)], C("2C")),
           "joker_take_at_opening")


def unopened_state(hand, table, p=K40):
    st = HandState.scripted(p, [hand, "2S 3S"], stock="9C", discard="2D", current=0, table=table,
                            opened=[False, True])
    st.turns_taken = [2, 2]
    st.apply_draw(DRAW_STOCK)
    return st


def test_joker_swap_allowed_in_the_opening_turn_once_the_opening_is_laid():
    # section 3 play is allowed in the opening turn once the opening melds are down: a joker swap
    # as well as lay-offs, takes and splits
    table = [M.run(1, 2, [C("3H"), JOKER, C("5H")])]
    hand = "QS KS AS TD JD QD 4H 7S 7C 2C"
    jk_group = M.group(5, [C("7S"), C("7C"), JOKER], [1])
    opening = [NewMeld(R("QS KS AS")), NewMeld(R("TD JD QD"))]  # 31 + 30
    st = unopened_state(hand, table)
    st.apply_play(Play(opening + [SwapJoker(0, 1, C("4H")), NewMeld(jk_group)], C("2C")))
    assert st.opened[0] and table_str(st) == ["group[7S 7C JK=7H]", "run[3H 4H 5H]", "run[QS KS AS]",
                                              "run[TD JD QD]"]
    # the freed joker does not count for the opening here (joker_take_at_opening = false): 61 + 7 + 7
    assert st.stats[0]["open_value"] == 31 + 30 + 14 and st.stats[0]["jokers_taken"] == 1
    # before any new meld the swap is still refused
    st = unopened_state(hand, table)
    refuse(st, Play([SwapJoker(0, 1, C("4H")), NewMeld(jk_group)] + opening, C("2C")), "joker_take_at_opening")


def test_a_freed_joker_counts_for_the_opening_only_where_it_may_be_taken_to_open():
    table = [M.run(1, 2, [C("3H"), JOKER, C("5H")])]
    # kalooki40: Q-K-A (31) and 3S 3C with the freed joker as 3H: 31 + 6 from the hand, the joker not counted
    st = unopened_state("QS KS AS 4H 3S 3C 2C 9D", table)
    msg = refuse(st, Play([NewMeld(R("QS KS AS")), SwapJoker(0, 1, C("4H")),
                           NewMeld(M.group(1, [C("3S"), C("3C"), JOKER], [1]))], C("2C")), "opening_min")
    assert "37" in msg
    # kalooki51 (joker_take_at_opening): 35 + 7S 7C and the joker as 7H = 56; 49 without the joker
    st = unopened_state("QS KS AS 4H 7S 7C 2C 9D", table, K51)
    st.apply_play(Play([NewMeld(R("QS KS AS", K51)), SwapJoker(0, 1, C("4H")),
                        NewMeld(M.group(5, [C("7S"), C("7C"), JOKER], [1]))], C("2C")))
    assert st.opened[0] and st.stats[0]["open_value"] == 35 + 21


def test_scala40_one_joker_per_meld_and_no_going_out_in_first_round():
    s40 = profiles.load("scala40")
    two = M.run(0, 5, [C("6S"), JOKER, JOKER])
    assert "max_jokers_per_meld" in M.check(two, s40)
    st = HandState.scripted(s40, ["7S 7H 7D QS KS AS", "2C 3C"], stock="9C", discard="3D", current=0)
    st.apply_draw(DRAW_STOCK)
    refuse(st, Play([NewMeld(G("7S 7H 7D", s40)), NewMeld(R("QS KS AS", s40))], C("9C")), "go_out_first_round")


def test_east_coast_joker_group():
    ec = profiles.load("east_coast")
    jg = M.joker_group(3)
    assert M.check(jg, ec) is None and M.check(jg, K40) is not None
    assert M.value(jg, ec) == 45


def test_east_coast_cut_card_joker_goes_to_the_cutter():
    import numpy as np
    ec = profiles.load("east_coast")
    found = 0
    for seed in range(400):
        st = HandState(ec, 4, 1, np.random.default_rng(seed), record=True)
        sizes = [st.hand_size(s) for s in range(4)]
        cut = [e for e in st.log if e[0] == "cut_joker"]
        if cut:
            found += 1
            cutter = cut[0][1]
            assert cutter == 0  # the player right of the dealer (seat 1)
            assert sizes == [15, 15, 15, 15]  # a hand of 15 either way: the joker plus 14 dealt
            assert st.hands[cutter, JOKER] >= 1
        else:
            assert sizes == [15] * 4
        st.check_invariants()
    assert 5 < found < 40  # about 4 jokers in 108: the bottom card is a joker ~3.7% of deals


def test_east_coast_dealer_may_swap_the_upcard():
    ec = profiles.load("east_coast")
    st = HandState.scripted(ec, ["2C 3C", "7S 8S", "9H TH", "KD 5D"], stock="2S 3S", discard="4D", dealer=3,
                            current=0)
    st.dealer_swap(C("KD"))
    assert st.discard[-1] == C("KD") and st.hands[3, C("4D")] == 1 and st.hands[3, C("KD")] == 0
    with pytest.raises(IllegalTurn):
        HandState.scripted(K40, ["2C 3C", "7S 8S"], stock="2S", discard="4D", dealer=1, current=0).dealer_swap(C("3C"))
