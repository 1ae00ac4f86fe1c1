"""Scenario tests for one hand (docs/RULES.md 1, 2, 4, 5, 6), hands written out card by card."""
import pytest

from sim import melds as M
from sim import profiles
from sim.cards import parse_card as C, parse_cards
from sim.engine import (DRAW_DISCARD, DRAW_STOCK, HIGH, LOW, HandState, IllegalTurn, LayOff, NewMeld, Play,
                        PHASE_DRAW, PHASE_OVER, Take)

K40 = profiles.load("kalooki40")
K51 = profiles.load("kalooki51")
H, S, D, CL = 1, 0, 2, 3  # suit ids


def run_of(text, profile=K40):
    m = M.declare_run(parse_cards(text), profile)
    assert m is not None, text
    return m


def group_of(text, profile=K40):
    m = M.declare_group(parse_cards(text), profile)
    assert m is not None, text
    return m


def snapshot(st):
    return (st.hands.copy().tolist(), list(st.table), list(st.stock), list(st.discard), list(st.opened),
            st.phase, st.current, st.drawn_card)


def rejected(st, play, rule):
    before = snapshot(st)
    with pytest.raises(IllegalTurn) as e:
        st.apply_play(play)
    assert e.value.rule == rule, str(e.value)
    assert snapshot(st) == before, "a rejected play changed the state"
    return str(e.value)


# ----------------------------------------------------------------------------- the opening minimum
def test_opening_met_with_joker_counted_as_its_card():
    # Q-JK(=K)-A of hearts is 10+10+11 = 31, 2-3-4 of spades 9: exactly 40
    st = HandState.scripted(K40, ["QH JK AH 2S 3S 4S 9D 9C 5C 6D 8S TC KD", "2C 3C 4C 5D 6S 7C 8C 9H TS JS QS KS AS"],
                            stock="7D 7H", discard="2D", current=0, opened=[False, False])
    st.turns_taken = [3, 3]
    st.apply_draw(DRAW_STOCK)
    qka = run_of("QH JK AH")
    assert qka.reps[1] == C("KH") and M.value(qka, K40) == 31
    st.apply_play(Play([NewMeld(qka), NewMeld(run_of("2S 3S 4S"))], C("KD")))
    assert st.opened[0] and st.stats[0]["open_value"] == 40 and st.stats[0]["open_round"] == 4


def test_opening_missed_is_refused():
    st = HandState.scripted(K40, ["2H 3H 4H 5S 5H 5D 9C 9D KC 7S 8D TC QD", "2C 3C 4C 5C 6S 7C 8C 9H TS JS QS KS AS"],
                            stock="7D", discard="2D", current=0)
    st.turns_taken = [2, 2]
    st.apply_draw(DRAW_STOCK)
    msg = rejected(st, Play([NewMeld(run_of("2H 3H 4H")), NewMeld(group_of("5S 5H 5D"))], C("KC")), "opening_min")
    assert "24" in msg and "40" in msg


def test_layoffs_do_not_count_in_kalooki40():
    table = [run_of("3C 4C 5C")]
    st = HandState.scripted(K40, ["QH KH AH 6C 7C 2D 3S 9D 8S 4D 5S 6S 7D", "2C 3C 4S 5D 6H 7H 8C 9H TS JS QS KS AS"],
                            stock="TD", discard="2S", current=0, table=table, opened=[False, True])
    st.turns_taken = [2, 2]
    st.apply_draw(DRAW_STOCK)
    # 31 of new melds + 6C, 7C built on the table: lay-offs do not count in kalooki40
    play = Play([NewMeld(run_of("QH KH AH")), LayOff(0, C("6C"), HIGH), LayOff(0, C("7C"), HIGH)], C("TD"))
    msg = rejected(st, play, "opening_min")
    assert "do not count" in msg


def test_layoff_counting_kalooki51_exact():
    table = [run_of("3C 4C 5C", K51)]
    hands = ["QH KH AH 9S 6C 7C 2D 3D 5S 6S 4H 8H TD JD QD", "2C 3H 4S 5D 6H 7H 8D 9H TS JS QS KS AS 2S 3S"]

    def fresh():
        st = HandState.scripted(K51, hands, stock="KD", discard="2H", current=0, table=table, opened=[False, True])
        st.turns_taken = [2, 2]
        st.apply_draw(DRAW_STOCK)
        return st

    # new run Q-K-A hearts: 10+10+15 = 35; with T-J-Q diamonds 30: 65 opens alone
    # new run Q-K-A (35) + lay-offs 6C, 7C (13) = 48 < 51: refused
    rejected(fresh(), Play([NewMeld(run_of("QH KH AH", K51)), LayOff(0, C("6C"), HIGH), LayOff(0, C("7C"), HIGH)],
                           C("KD")), "opening_min")
    # lay-offs alone, no new meld: refused
    rejected(fresh(), Play([LayOff(0, C("6C"), HIGH)], C("KD")), "not_opened")
    # T-J-Q-K diamonds (40) + lay-offs 6C, 7C (13) = 53 >= 51: counted with a new meld
    st = fresh()
    st.apply_play(Play([NewMeld(run_of("TD JD QD KD", K51)), LayOff(0, C("6C"), HIGH), LayOff(0, C("7C"), HIGH)],
                       C("2D")))
    # recorded apart: 40 of new melds, 13 laid off
    assert st.opened[0] and st.stats[0]["open_value"] == 40 and st.stats[0]["open_layoff_value"] == 13


def test_open_value_records_the_new_melds_and_the_lay_offs_apart():
    # 55 of new melds already open in kalooki51; the 13 laid off after are recorded apart
    table = [run_of("3C 4C 5C", K51)]
    st = HandState.scripted(K51, ["QH KH AH TD JD QD 6C 7C 2S 9S", "2C 3H 4S 5D 6H"], stock="KD", discard="2H",
                            current=0, table=table, opened=[False, True])
    st.turns_taken = [2, 2]
    st.apply_draw(DRAW_STOCK)
    st.apply_play(Play([NewMeld(run_of("QH KH AH", K51)), NewMeld(run_of("TD JD QD KD", K51)),
                        LayOff(0, C("6C"), HIGH), LayOff(0, C("7C"), HIGH)], C("9S")))
    assert st.stats[0]["open_value"] == 35 + 40 and st.stats[0]["open_layoff_value"] == 6 + 7


def harvest_opening(hand):
    # an 8S at the low end of a table run 8S-JS can be taken and melded again
    st = HandState.scripted(K40, [hand, "2C 3H 4S 5D 6H"], stock="KD", discard="2D", current=0,
                            table=[run_of("8S 9S TS JS")], opened=[False, True])
    st.turns_taken = [2, 2]
    st.apply_draw(DRAW_STOCK)
    return st


def test_cards_taken_from_the_table_do_not_count_for_the_opening():
    # 5C 6C 7C (18) and 8S 8H 8D with the 8S taken off the table: the hand gives 18 + 16
    st = harvest_opening("5C 6C 7C 8H 8D 2S 9D")
    msg = rejected(st, Play([NewMeld(run_of("5C 6C 7C")), Take(0, 0), NewMeld(group_of("8S 8H 8D"))], C("KD")),
                   "opening_min")
    assert "34" in msg
    # with Q-K-A of hearts (31) the hand gives 18 + 31 + 16 = 65: open, the 8S not counted
    st = harvest_opening("5C 6C 7C 8H 8D QH KH AH 2S")
    st.apply_play(Play([NewMeld(run_of("5C 6C 7C")), NewMeld(run_of("QH KH AH")), Take(0, 0),
                        NewMeld(group_of("8S 8H 8D"))], C("KD")))
    assert st.opened[0] and st.stats[0]["open_value"] == 65 and st.stats[0]["open_layoff_value"] == 0


def test_a_kalooki_needs_the_minimum_from_the_hand():
    # for a Kalooki: going out at once with 34 from the hand and a harvested 8S is no opening
    st = harvest_opening("5C 6C 7C 8H 8D 2S")
    rejected(st, Play([NewMeld(run_of("5C 6C 7C")), Take(0, 0), NewMeld(group_of("8S 8H 8D"))], C("2S")),
             "opening_min")
    # where a Kalooki is exempt from the minimum, it goes out
    st = harvest_opening("5C 6C 7C 8H 8D")
    st.profile = K40.replace(kalooki_exempt_from_minimum=True)
    st.apply_play(Play([NewMeld(run_of("5C 6C 7C")), Take(0, 0), NewMeld(group_of("8S 8H 8D"))], C("KD")))
    assert st.result.win_type == "kalooki"


EC = profiles.load("east_coast")
EC_TABLE = [run_of("3C 4C 5C", EC), group_of("9S 9H 9D", EC)]


def east_coast_out(hand):
    st = HandState.scripted(EC, [hand, "2S 3H 4D 5D 6H"], stock="KD", discard="2H", current=0, table=EC_TABLE,
                            opened=[False, True])
    st.turns_taken = [2, 2]
    st.apply_draw(DRAW_STOCK)
    return st


def test_east_coast_kalooki_needs_the_minimum_in_new_melds():
    # 37 of new melds and 24 laid off open (lay-offs count in east_coast) and go out, but
    # a Kalooki needs 51 of new melds that turn: it is a plain call, not paid double
    lay = [LayOff(0, C("6C"), HIGH), LayOff(0, C("7C"), HIGH), LayOff(0, C("2C"), LOW), LayOff(1, C("9C"), HIGH)]
    st = east_coast_out("4S 5S 6S 7S 5H 5D 5C 6C 7C 2C 9C")
    st.apply_play(Play([NewMeld(run_of("4S 5S 6S 7S", EC)), NewMeld(group_of("5H 5D 5C", EC))] + lay, C("KD")))
    assert st.result.winner == 0 and st.result.win_type == "call"
    assert st.stats[0]["open_value"] == 37 and st.stats[0]["open_layoff_value"] == 24
    # 55 of new melds and the same lay-offs: a Kalooki
    st = east_coast_out("TS JS QS KS 5H 5D 5C 6C 7C 2C 9C")
    st.apply_play(Play([NewMeld(run_of("TS JS QS KS", EC)), NewMeld(group_of("5H 5D 5C", EC))] + lay, C("KD")))
    assert st.result.win_type == "kalooki" and st.stats[0]["open_value"] == 40 + 15


# ----------------------------------------------------------------------------- the draw rules
def two_player(profile=K40, turns=(0, 0), opened=(False, False), discard="2D 9H"):
    return HandState.scripted(profile, ["7S 7H 7D 8C 9C TC QS KS AS 4D 5D 6D 2C",
                                        "3C 3H 4S 5S 6S 8H 9S TS JS 2H 3S 4H 5H"],
                              stock="JD QD KD AD", discard=discard, current=0, opened=list(opened))


def test_first_round_either_pile():
    st = two_player()
    assert st.first_round(0)
    st.apply_draw(DRAW_DISCARD)  # first round: free
    st.apply_play(Play([], C("2C")))
    assert st.phase == PHASE_DRAW and st.current == 1


def test_unopened_player_refused_discard_unless_it_opens():
    st = two_player(discard="2D 9D")
    st.turns_taken = [1, 1]
    st.apply_draw(DRAW_DISCARD)  # takes 9D without opening with it: refused at the play
    rejected(st, Play([], C("2C")), "discard_pickup")
    # opening that does not use the taken card is refused too
    rejected(st, Play([NewMeld(run_of("QS KS AS")), NewMeld(group_of("7S 7H 7D"))], C("2C")), "discard_pickup")


def test_unopened_player_may_take_the_discard_to_open_with_it():
    st = two_player(discard="2D 7C")
    st.turns_taken = [1, 1]
    st.apply_draw(DRAW_DISCARD)
    st.apply_play(Play([NewMeld(group_of("7S 7H 7D 7C")), NewMeld(run_of("QS KS AS"))], C("2C")))
    assert st.opened[0] and st.stats[0]["open_with_discard"]


def test_taken_discard_may_not_be_discarded():
    st = two_player(discard="2D 5C")
    st.apply_draw(DRAW_DISCARD)
    rejected(st, Play([], C("5C")), "discard")


def test_taken_discard_may_not_be_thrown_back_even_with_a_second_copy():
    # holding 2C and taking the other 2C, throwing a 2C back would leave hand and pile
    # as they were; the seeds forbid exactly this
    st = two_player(discard="2D 2C")
    st.apply_draw(DRAW_DISCARD)
    assert st.hands[0, C("2C")] == 2
    msg = rejected(st, Play([], C("2C")), "discard")
    assert "no copy" in msg
    st.apply_play(Play([], C("KS")))  # any other card is fine
    assert st.discard[-1] == C("KS")


def test_taken_card_melded_still_forbids_discarding_its_twin():
    # the taken 7C goes into a group; the 7C held before may still not be thrown back this turn
    st = HandState.scripted(K40, ["7S 7H 7C 2C 9D", "3C 4C 5C 6C"], stock="KD", discard="2D 7C", current=0,
                            opened=[True, True])
    st.apply_draw(DRAW_DISCARD)
    group = M.group(5, [C("7S"), C("7H"), C("7C")])
    rejected(st, Play([NewMeld(group)], C("7C")), "discard")
    st.apply_play(Play([NewMeld(group)], C("9D")))
    assert st.hands[0, C("7C")] == 1


def test_discard_not_taken_when_every_card_held_is_a_copy_of_it():
    # one 5C left and a 5C on the pile: taking it would leave no card that may be discarded
    st = HandState.scripted(K40, ["5C", "3C 4C 5D 6C"], stock="KD", discard="2D 5C", current=0, opened=[True, True])
    assert st.legal_draws() == [DRAW_STOCK]
    with pytest.raises(IllegalTurn) as e:
        st.apply_draw(DRAW_DISCARD)
    assert e.value.rule == "discard"


def test_scala40_never_takes_the_discard_before_opening():
    s40 = profiles.load("scala40")
    st = two_player(profile=s40)
    assert DRAW_DISCARD not in st.legal_draws()
    with pytest.raises(IllegalTurn) as e:
        st.apply_draw(DRAW_DISCARD)
    assert e.value.rule == "discard_pickup_before_opening"


# ----------------------------------------------------------------------------- runs and groups
def test_run_extension_limit_per_end():
    table = [run_of("4H 5H 6H")]
    st = HandState.scripted(K40, ["2H 3H 7H 8H 9H KC KS", "2C 3C 4C 5C 6C 7C 8C"], stock="QD", discard="2D",
                            current=0, table=table, opened=[True, True])
    st.apply_draw(DRAW_STOCK)
    # 4-5-6 takes 2-3 and 7 in one turn
    ok = Play([LayOff(0, C("3H"), LOW), LayOff(0, C("2H"), LOW), LayOff(0, C("7H"), HIGH)], C("QD"))
    st2 = HandState.scripted(K40, ["2H 3H 7H 8H 9H KC KS", "2C 3C 4C 5C 6C 7C 8C"], stock="QD", discard="2D",
                             current=0, table=table, opened=[True, True])
    st2.apply_draw(DRAW_STOCK)
    # but not 7-8-9 at the same end
    msg = rejected(st2, Play([LayOff(0, C("7H"), HIGH), LayOff(0, C("8H"), HIGH), LayOff(0, C("9H"), HIGH)], C("QD")),
                   "run_end_limit")
    assert "2" in msg
    st.apply_play(ok)
    assert str(st.table[0]) == "run[2H 3H 4H 5H 6H 7H]"


def test_two_total_variant():
    p = K40.replace(run_add_limit="two_total")
    st = HandState.scripted(p, ["2H 3H 7H KC KS", "2C 3C 4C 5C 6C"], stock="QD", discard="2D", current=0,
                            table=[run_of("4H 5H 6H")], opened=[True, True])
    st.apply_draw(DRAW_STOCK)
    rejected(st, Play([LayOff(0, C("3H"), LOW), LayOff(0, C("2H"), LOW), LayOff(0, C("7H"), HIGH)], C("QD")),
             "run_add_limit")


def test_qka_valid_a23_only_with_ace_low():
    assert M.check(run_of("QS KS AS"), K40) is None
    a23 = M.run(0, 0, parse_cards("AS 2S 3S"))
    assert "ace_low" in M.check(a23, K40)
    assert M.check(a23, K51) is None and M.value(a23, K51) == 1 + 2 + 3
    assert M.declare_run(parse_cards("AS 2S 3S"), K40) is None
    kA2 = M.run(0, 12, parse_cards("KS AS 2S"))
    assert M.check(kA2, K51) is not None  # K-A-2 is never a run


def test_group_refuses_duplicate_suit_and_joker_for_present_suit():
    assert M.declare_group(parse_cards("7H 7H 7S"), K40) is None
    bad = M.Meld(M.GROUP, (C("7H"), C("7H"), C("7S")), (C("7H"), C("7H"), C("7S")), 5)
    assert "suit" in M.check(bad, K40)
    assert M.declare_group(parse_cards("7H 7H JK"), K40) is None
    assert M.check(group_of("7H 7S JK"), K40) is None


# ----------------------------------------------------------------------------- going out, Kalooki
def test_going_out_by_discarding_the_last_card():
    st = HandState.scripted(K40, ["7S 7H 7D", "2C 3C 4C AS JK"], stock="9C", discard="2D", current=0,
                            opened=[True, True])
    st.apply_draw(DRAW_STOCK)
    st.apply_play(Play([NewMeld(group_of("7S 7H 7D"))], C("9C")))
    assert st.phase == PHASE_OVER and st.result.winner == 0 and st.result.win_type == "call"
    # the loser's penalty: 2+3+4 + ace 11 + joker 15
    assert st.result.penalties == [0, 35]


def test_melding_every_card_without_a_discard_is_refused():
    st = HandState.scripted(K40, ["7S 7H 7D", "2C 3C 4C"], stock="7C", discard="2D", current=0, opened=[True, True])
    st.apply_draw(DRAW_STOCK)
    msg = rejected(st, Play([NewMeld(group_of("7S 7H 7D 7C"))], None), "discard")
    assert "without" in msg


def test_kalooki_of_thirteen_cards():
    hand = "2H 3H 4H 7S 7H 7D 9C 9D 9S JC QC KC"  # plus 6D: 13 dealt cards
    melds = [run_of("2H 3H 4H"), group_of("7S 7H 7D"), group_of("9C 9D 9S"), run_of("JC QC KC AC")]
    assert sum(len(m) for m in melds) == 13
    # the loser: 2+3+4+5+6+7+8+9 + 10+10+10+10 + 11 = 95
    st2 = HandState.scripted(K40, [hand + " 6D", "2C 3C 4C 5C 6C 7C 8C 9H TS JS QS KS AS"], stock="AC",
                             discard="2D", current=0)
    st2.turns_taken = [2, 2]
    st2.apply_draw(DRAW_STOCK)
    st2.apply_play(Play([NewMeld(m) for m in melds], C("6D")))
    assert st2.result.win_type == "kalooki" and st2.result.winner == 0
    assert st2.result.penalties == [0, 95]


def test_kalooki_double_penalty_variant():
    p = K40.replace(kalooki_double_penalty=True)
    st = HandState.scripted(p, ["7S 7H 7D QS KS AS", "2C 3C"], stock="9C", discard="3D", current=0)
    st.turns_taken = [2, 2]
    st.apply_draw(DRAW_STOCK)
    st.apply_play(Play([NewMeld(group_of("7S 7H 7D")), NewMeld(run_of("QS KS AS"))], C("9C")))
    assert st.result.win_type == "kalooki" and st.result.penalties == [0, 2 * (2 + 3)]


# ----------------------------------------------------------------------------- the stock running out
def test_stock_runs_out_once_reshuffle_then_void():
    st = HandState.scripted(K40, ["7S 7H 2D 9C", "2C 3C 4C KD"], stock="5S", discard="8D 8S 8H", current=0,
                            opened=[True, True])
    st.apply_draw(DRAW_STOCK)
    st.apply_play(Play([], C("5S")))
    st.start_turn()  # player 1 faces an empty stock: the discard pile becomes the stock
    assert st.reshuffles == 1 and len(st.discard) == 1 and len(st.stock) == 3
    assert st.result is None
    st.apply_draw(DRAW_STOCK)
    st.apply_play(Play([], C("KD")))
    while st.stock:
        st.start_turn()
        st.apply_draw(DRAW_STOCK)
        me = st.current
        st.apply_play(Play([], int(next(c for c in range(53) if st.hands[me, c] > 0 and c != st.drawn_card))))
    st.start_turn()  # second exhaustion: void
    assert st.result.void and st.phase == PHASE_OVER and st.result.penalties == [0, 0]


def test_stock_exhausted_void_variant():
    p = K40.replace(stock_exhausted="void")
    st = HandState.scripted(p, ["7S 7H", "2C 3C"], stock="", discard="8D 8S 8H", current=0)
    st.start_turn()
    assert st.result.void and st.reshuffles == 0


# ----------------------------------------------------------------------------- penalties
@pytest.mark.parametrize("profile,expected", [(K40, 11 + 15 + 5 + 10), (K51, 15 + 25 + 5 + 10)])
def test_penalty_values(profile, expected):
    st = HandState.scripted(profile, ["7S 7H 7D", "AS JK 5D QC"], stock="9C", discard="2D", current=0,
                            opened=[True, True])
    st.apply_draw(DRAW_STOCK)
    st.apply_play(Play([NewMeld(group_of("7S 7H 7D", profile))], C("9C")))
    assert st.result.penalties == [0, expected]
