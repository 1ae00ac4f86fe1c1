"""HandState as a view over the engine's compiled hand (sim.engine.hand.Hand): what a turn writes to
the record, attributes that write back, a copy with its own record, the end of a turn, and the
compiled hand loop playing the state's own record in place."""
import copy

import numpy as np
import pytest

from sim import melds as M
from sim import profiles
from sim.bots import GreedyBot
from sim.bots import hand_loop as HL
from sim.cards import parse_card as C, parse_cards
from sim.engine import DRAW_DISCARD, DRAW_STOCK, HandState, NewMeld, Play
from sim.engine import hand as HD
from sim.engine import loop as LOOP

K40 = profiles.load("kalooki40")
CAP = 12


def scripted():
    return HandState.scripted(K40, ["QH KH AH 2S 3S 4S 9D 9C 5C 6D 8S TC KD", "2C 3C 4C 5D 6S 7C 8C 9H TS JS QS KS AS"],
                              stock="7D 7H 8H", discard="2D 9S", current=0, opened=[False, False])


def test_a_turn_is_written_to_the_record():
    st = scripted()
    st.turns_taken = [3, 3]
    h = st.h
    assert st.apply_draw(DRAW_STOCK) == C("7D")
    assert h.sc[HD.SC_NS] - h.sc[HD.SC_SP] == 2 and h.res[HD.H_DRAWN_CARD] == C("7D")
    st.apply_play(Play([NewMeld(M.declare_run(parse_cards("QH KH AH"), K40)),
                        NewMeld(M.declare_run(parse_cards("2S 3S 4S"), K40))], C("KD")))
    assert h.sc[HD.SC_NT] == 2 and h.tab[:2, 2].tolist() == [3, 3] and h.tab[2, 0] == -1
    assert h.discard[:h.sc[HD.SC_ND]].tolist() == parse_cards("2D 9S KD") == st.discard
    assert h.opened.tolist() == [1, 0] and h.turns.tolist() == [4, 3] and h.sc[HD.SC_CUR] == 1
    assert h.stats[0, HD.S_OPEN_VALUE] == 40 and h.stats[0, HD.S_OPEN_ROUND] == 4 and h.stats[0, HD.S_MELDS] == 2
    assert st.stats[0]["open_value"] == 40 and st.stats[1]["open_value"] is None
    assert h.res[HD.H_DRAWN_CARD] == -1 and st.drawn_card == -1


def test_attributes_and_the_lists_they_give_write_the_record():
    st = HandState(K40, 4, 0, np.random.default_rng(5))
    h = st.h
    size, top = len(st.stock), st.stock[-1]
    assert st.stock.pop() == top
    assert h.sc[HD.SC_NS] - h.sc[HD.SC_SP] == size - 1 and h.stock[h.sc[HD.SC_SP]] == st.stock[-1]
    st.stock.append(top)  # back on top: the pack whole again
    assert st.stock[-1] == top
    st.check_invariants()
    st.turns_taken[2] = 5
    assert h.turns[2] == 5 and h.stats[2, HD.S_TURNS] == 5 and not st.first_round(2)
    st.stats[1]["melds_laid"] += 2
    st.stats[1].update(open_round=3, open_with_discard=True)
    assert h.stats[1, HD.S_MELDS] == 2 and h.stats[1, HD.S_OPEN_ROUND] == 3 and st.stats[1]["open_with_discard"]
    st.opened[3] = True
    assert h.opened.tolist() == [0, 0, 0, 1] and st.opened == [False, False, False, True]
    st.current, st.turn_no, st.reshuffles = 2, 7, 1
    assert h.sc[HD.SC_CUR] == 2 and h.sc[HD.SC_TURN_NO] == 7 and h.sc[HD.SC_RESHUFFLES] == 1


def test_a_copy_plays_on_its_own_record():
    st = HandState(K40, 4, 0, np.random.default_rng(5))
    before = (st.hands.copy(), list(st.stock), list(st.discard), st.current)
    c = copy.copy(st)
    c.start_turn()
    card = c.apply_draw(DRAW_STOCK)
    c.apply_play(Play([], card))
    assert c.turn_no == 1 and c.current != st.current
    assert np.array_equal(st.hands, before[0]) and st.stock == before[1] and st.discard == before[2]
    assert st.current == before[3] and st.turn_no == 0
    st.check_invariants()
    c.check_invariants()


def test_end_turn_says_how_a_turn_ends_the_hand():
    res = np.zeros(HD.H_W, np.int64)
    res[[HD.H_WINNER, HD.H_DRAWN_CARD, HD.H_DRAWN_FROM]] = [-1, 7, 0]
    assert not HD.end_turn(res, 1, False, False, 5, 6)
    assert res[HD.H_DRAWN_CARD] == -1 and res[HD.H_WINNER] == -1 and res[HD.H_STALLED] == 0
    assert HD.end_turn(res, 2, False, False, 6, 6) and res[HD.H_STALLED] == 1 and res[HD.H_WINNER] == -1
    res[:] = 0
    res[HD.H_DRAWN_CARD] = 9
    assert HD.end_turn(res, 3, True, True, 6, 6)
    assert res[HD.H_WINNER] == 3 and res[HD.H_WIN_TYPE] == HD.WIN_KALOOKI and res[HD.H_STALLED] == 0
    assert res[HD.H_DRAWN_CARD] == 9  # the card the winner drew stays as the hand's last draw


def test_a_capped_hand_stalls_on_the_record():
    st = HandState(K40.replace(turn_cap=CAP), 4, 0, np.random.default_rng(5), record=True)
    for _ in range(CAP):
        st.start_turn()
        card = st.apply_draw(DRAW_STOCK)
        st.apply_play(Play([], card))
    assert st.result is not None and st.result.stalled and st.result.winner == -1
    assert st.h.res[HD.H_STALLED] == 1 and st.turn_no == CAP
    assert st.current == (1 + CAP) % 4  # dealer 0: seat 1 played first
    assert [e[0] for e in st.log[-2:]] == ["end", "stalled"]
    st.check_invariants()


def test_pickups_and_discards_are_the_records_counts():
    st = scripted()
    st.pickups[1] = parse_cards("JH 4S JH")
    assert st.h.pick[1, C("JH")] == 2 and st.h.pick[1, C("4S")] == 1 and st.h.pick[0].sum() == 0
    assert sorted(st.pickups[1]) == st.pickups[1] == sorted(parse_cards("JH 4S JH"))
    st.discards_by = [parse_cards("2D"), []]
    assert st.h.discby[0, C("2D")] == 1 and st.discards_by == [[C("2D")], []]
    st.opened = [True, True]
    st.turns_taken = [3, 3]
    st.start_turn()
    assert st.apply_draw(DRAW_DISCARD) == C("9S")
    assert st.pickups[0] == [C("9S")] and st.h.pick[0, C("9S")] == 1
    st.apply_play(Play([], C("KD")))
    assert st.discards_by[0] == sorted([C("2D"), C("KD")])


# the words of a compiled hand both paths leave alike: how the hand ended, and the card last drawn
RESULT_WORDS = [HD.H_STATUS, HD.H_WINNER, HD.H_WIN_TYPE, HD.H_VOID, HD.H_STALLED, HD.H_DRAWN_CARD, HD.H_DRAWN_FROM]


def live(h: HD.Hand) -> dict:
    """What a compiled hand holds, its buffers cut to their sizes."""
    sp, ns, nd, nt = (int(v) for v in h.sc[[HD.SC_SP, HD.SC_NS, HD.SC_ND, HD.SC_NT]])
    return dict(hands=h.hands.tolist(), stats=h.stats.tolist(), res=h.res[RESULT_WORDS].tolist(),
                stock=h.stock[sp:ns].tolist(), discard=h.discard[:nd].tolist(), tab=h.tab[:nt].tolist(),
                opened=h.opened.tolist(), turns=h.turns.tolist(), pick=h.pick.tolist(), discby=h.discby.tolist(),
                sc=h.sc[:HD.SC_OWN].tolist())


@pytest.mark.parametrize("name", ["kalooki40", "scala40"])
def test_the_compiled_loop_plays_the_states_own_record(name, monkeypatch):
    # both paths leave the same record; the compiled one writes into the arrays the state holds
    prof = profiles.load(name)
    for h in range(12):
        a = HandState(prof, 4, h % 4, np.random.default_rng([11, h]))
        b = HandState(prof, 4, h % 4, np.random.default_rng([11, h]))
        monkeypatch.setattr(LOOP, "COMPILED", False)
        LOOP.play_hand(a, [GreedyBot() for _ in range(4)], list(range(4)))
        monkeypatch.setattr(LOOP, "COMPILED", True)
        arrays = list(b.h)
        assert HL.table_loop([GreedyBot() for _ in range(4)]).play_hand_fast(b) is b.result
        assert all(x is y for x, y in zip(b.h, arrays)), "the compiled loop played another record"
        assert live(a.h) == live(b.h), f"{name} hand {h}"
        assert (a.result.winner, a.result.penalties, a.pickups, a.discards_by) == \
            (b.result.winner, b.result.penalties, b.pickups, b.discards_by)
        b.check_invariants()


def test_a_refused_compiled_hand_leaves_the_record_as_it_was(monkeypatch):
    st = HandState(K40, 4, 0, np.random.default_rng(5))
    before = live(st.h)

    def refusing(inp, h, seats):  # a kernel that plays on and then meets a play the rules refuse
        h.hands[0, :] = 0
        h.sc[HD.SC_TURN_NO] = 9
        h.res[HD.H_STATUS] = HD.STATUS_TURN + 1

    monkeypatch.setattr(HL, "play_hand_kernel", refusing)
    assert HL.play_hand_fast(st) is None
    assert live(st.h) == before and st.result is None and st.phase == "draw"


def test_attributes_read_before_a_turn_are_read_again_after_it():
    st = scripted()
    st.turns_taken = [3, 3]
    stock, discard, opened, turns, table = st.stock, st.discard, st.opened, st.turns_taken, st.table
    assert st.stock is stock  # read once while the record is unchanged
    assert st.apply_draw(DRAW_STOCK) == stock[-1] and st.stock == stock[:-1]
    st.apply_play(Play([NewMeld(M.declare_run(parse_cards("QH KH AH"), K40)),
                        NewMeld(M.declare_run(parse_cards("2S 3S 4S"), K40))], C("KD")))
    assert st.opened == [True, False] and st.turns_taken == [4, 3] and len(st.table) == 2
    assert st.discard == discard + [C("KD")]
    assert (opened, turns, table) == ([False, False], [3, 3], [])  # what was read before the turn
    c = copy.copy(st)
    c.opened[1] = True  # a copy's lists write its own record
    assert c.opened == [True, True] and st.opened == [True, False] and st.h.opened[1] == 0
