"""No bot misses a sure go-out: going out this turn with its hand alone, with lay-offs onto the table,
with a joker laid off, by splitting a table run, with the card just taken from the discard pile laid
off or splitting a run (docs/RULES.md sections 3-5).

- scripted positions: each bot lays a joker off to go out, lays off the jokers it would otherwise be
  left holding alone, and never lays one where the profile's joker limit forbids it; each goes out
  by splitting a run (with a lay-off, with new melds, with the card it took from the pile, twice in
  one run, with a joker, then laying off onto the ends the split makes inside the run), and lays off
  or splits with the card it took though that card may not be thrown;
- ``sure_go_out`` (tests/sure_go_out.py), the rules-only search the scan judges by, on positions
  written out;
- the scan: seeded hands of every profile at a table of each bot and at a mixed one, played on the
  Python engine exactly as ``kalooki play --profile P --seed S --bots B,B,B,B`` plays them, every turn
  inspected after the draw by ``sure_go_out`` (no bot code, no meld search; splits of table runs and
  the card just taken included): where a way out exists, the bot must go out.  The scan is checked to
  meet ways out by a split and with the card just taken, and two seeded hands whose way out needs a
  split are replayed turn for turn.  The random bot is not held to it: it plays "a legal turn chosen
  at random" (its docstring); nor is the search where it lays nothing before it has opened in a profile that
  pays a Kalooki more and counts lay-offs for the opening: it may hold a plain going out (one that
  needs a lay-off) for a Kalooki (sim.bots.search_core).  A larger scan is marked slow
  (``KALOOKI_BLUNDER_SEEDS`` seeds per table).
"""
import os
from collections import Counter

import numpy as np
import pytest

from sim import profiles
from sim.bots import make_bot
from sim.cards import JOKER, cards_str, from_counts, parse_card as C
from sim.engine import DRAW_DISCARD, DRAW_STOCK, HIGH, LOW, HandState, IllegalTurn, LayOff, NewMeld, Play, Split
from sim.engine.core import compiled, kalooki_pays_more
from sim.engine.loop import play_hand

from sure_go_out import sure_go_out
from test_table_play import G, K40, K51, R

S40 = profiles.load("scala40")
BOTS = ("greedy", "patient", "expert", "lookahead", "search")
PROFILES = profiles.available()


def opened(hand, table, p=K40, draw="KD", discard="2D", source=DRAW_STOCK, opened_before=True):
    """Seat 0 after its draw (from the stock's top ``draw`` or the discard pile's top), having opened."""
    st = HandState.scripted(p, [hand, "2C 3C 4C 5C 6C"], stock=draw, discard=discard, current=0, table=table,
                            opened=[opened_before, True])
    st.apply_draw(source)
    return st


def bot_turn(name, st):
    """The bot's play for seat 0, applied (so validated) by the engine."""
    play = make_bot(name, np.random.default_rng(0)).play(st, 0)
    st.apply_play(play)
    return play


# ------------------------------------------------------------------ the bots, on positions written out
@pytest.mark.parametrize("name", BOTS)
def test_every_bot_lays_a_joker_off_to_go_out(name):
    # 2C melds with nothing; the drawn joker completes group[4S 4H 4D] as the 4C, or ends the club run
    st = opened("2C", [G("4S 4H 4D"), R("7C 8C 9C")], draw="JK")
    play = bot_turn(name, st)
    assert any(isinstance(op, LayOff) and op.card == JOKER for op in play.ops), play
    assert play.discard == C("2C") and st.result is not None and st.result.winner == 0


def test_the_random_bot_lays_its_joker_off_when_its_lay_offs_come_to_it():
    # its uniforms: no table move (0.9), lay off (0.1), up to three operations (0.99), the first card
    st = opened("2C", [G("4S 4H 4D")], draw="JK")
    bot = make_bot("random", np.random.default_rng(0))
    bot.stream = np.array([0.9, 0.1, 0.99, 0.0] + [0.5] * 60)
    play = bot.play(st, 0)
    st.apply_play(play)
    assert [op.card for op in play.ops] == [JOKER] and st.result is not None and st.result.winner == 0


@pytest.mark.parametrize("name", BOTS)
def test_the_last_card_laid_off_is_the_joker_when_the_natural_cannot_go(name):
    # 9D goes nowhere, the joker goes onto the run: lay the joker, throw the 9D, out
    st = opened("9D 2S", [R("3S 4S 5S")], draw="JK")
    play = bot_turn(name, st)
    assert play.discard == C("9D") and st.result is not None and st.result.winner == 0, play


@pytest.mark.parametrize("name", BOTS)
def test_a_joker_bridges_a_gap_to_go_out(name):
    # joker as 6C, then 7C: out with the KH discarded
    st = opened("7C KH", [R("3C 4C 5C")], draw="JK")
    play = bot_turn(name, st)
    assert st.result is not None and st.result.winner == 0, play
    assert [op.card for op in play.ops if isinstance(op, LayOff)] == [JOKER, C("7C")], play


@pytest.mark.parametrize("name", BOTS)
def test_a_bot_left_with_only_jokers_lays_them_off(name):
    # one spot for a joker (the group's fourth card); the 9D cannot be played: one joker laid, the 9D
    # thrown, one joker kept rather than two
    st = opened("9D JK", [G("4S 4H 4D")], draw="JK")
    play = bot_turn(name, st)
    assert [op.card for op in play.ops if isinstance(op, LayOff)] == [JOKER], play
    assert play.discard == C("9D") and st.hands[0].tolist() == from_counts_vector("JK")


@pytest.mark.parametrize("name", BOTS)
def test_no_joker_goes_where_the_profile_caps_the_jokers_of_a_meld(name):
    # scala40: one joker per meld; the only meld already holds one, so 2D cannot go out with a joker
    st = opened("2D", [R("7H JK 9H")], p=S40, draw="JK")
    assert sure_go_out(st, 0) is None
    play = bot_turn(name, st)
    assert not any(isinstance(op, LayOff) and op.card == JOKER for op in play.ops), play
    assert st.result is None


@pytest.mark.parametrize("name", BOTS)
def test_an_unopened_bot_goes_out_by_kalooki_with_a_lay_off(name):
    # 59 in new melds (three kings, 9H TH JH) and the 5C laid off onto the table's run: a Kalooki, which
    # the patient, expert and lookahead take rather than hold on (a Kalooki pays double the call here)
    st = HandState.scripted(K40, ["KS KH KD 9H TH JH 5C", "9S 9S 8D 8D 7H 7H 6S 6S"],
                            stock="2S 4H 5H 6D 7D 8C 9C TD JD QD KC AC QS", discard="2D", current=0,
                            table=[R("2C 3C 4C")], opened=[False, False])
    st.turns_taken = [3, 3]
    st.apply_draw(DRAW_STOCK)
    assert sure_go_out(st, 0) is not None
    bot_turn(name, st)
    assert st.result is not None and st.result.winner == 0 and st.result.win_type == "kalooki"


# ------------------------------------------------------------------ going out by a split, the card just taken
def goes_out(name, st):
    play = bot_turn(name, st)
    assert st.result is not None and st.result.winner == 0, play
    return play


@pytest.mark.parametrize("name", BOTS)
def test_every_bot_goes_out_by_splitting_a_run_with_the_card_it_took(name):
    # a kalooki40 position from seeded play: 5S taken from the pile splits 3S-7S, 5H goes onto 6H-JH, 3C
    # is thrown
    st = opened("5H 3C", [R("3S 4S 5S 6S 7S"), R("6H 7H 8H 9H TH JH")], discard="2D 5S", source=DRAW_DISCARD)
    assert sure_go_out(st, 0) is not None
    play = goes_out(name, st)
    assert Split(0, C("5S"), 3) in play.ops and play.discard == C("3C"), play


@pytest.mark.parametrize("name", BOTS)
def test_every_bot_goes_out_by_splitting_a_run_and_laying_new_melds(name):
    # kalooki play --profile kalooki51 --seed 8157 --bots search,lookahead,expert,greedy, turn 10 (seat 1):
    # QC splits TC-AC, 2S 2H JK are laid, 9S thrown
    table = [R("TC JC QC KC AC", K51), G("7S 7H 7D", K51)]
    st = opened("2S 2H JK 9S", table, p=K51, draw="QC")
    assert sure_go_out(st, 0) is not None
    play = goes_out(name, st)
    assert any(isinstance(op, Split) and op.card == C("QC") for op in play.ops), play


@pytest.mark.parametrize("name", BOTS)
def test_every_bot_splits_a_run_twice_to_go_out(name):
    # 5S and 8S both split 3S-TS into 3-4-5, 5-6-7-8, 8-9-10; 2D thrown
    st = opened("5S 8S", [R("3S 4S 5S 6S 7S 8S 9S TS")], draw="2D")
    play = goes_out(name, st)
    assert sorted(op.card for op in play.ops if isinstance(op, Split)) == [C("5S"), C("8S")], play


@pytest.mark.parametrize("name", BOTS)
def test_every_bot_extends_a_run_and_splits_it_to_go_out(name):
    # 8H onto 4H-7H, then 6H splits 4H-8H into 4-5-6 and 6-7-8 (or, for a bot that takes from the table, the
    # 7H taken and melded with 6H 8H)
    st = opened("8H 6H", [R("4H 5H 6H 7H")], draw="KC")
    assert any(isinstance(op, Split) for op in sure_go_out(st, 0).ops)
    play = goes_out(name, st)
    assert play.discard == C("KC"), play


@pytest.mark.parametrize("name", BOTS)
def test_every_bot_lays_a_joker_onto_a_run_it_then_splits_to_go_out(name):
    # kalooki play --profile scala40 --seed 19 --bots greedy,greedy,greedy,greedy, turn 14: the joker ends 6S-9S
    # as the TS, the 8S splits it into 6-7-8 and 8-9-JK, the 3C is thrown (one joker a meld: the joker can go
    # nowhere else that lets the 8S split)
    st = opened("8S 3C", [R("6S 7S 8S 9S", S40), R("JK QD KD", S40)], p=S40, draw="JK")
    assert sure_go_out(st, 0) is not None
    play = goes_out(name, st)
    assert play.discard == C("3C"), play


@pytest.mark.parametrize("name", BOTS)
def test_every_bot_splits_a_run_and_lays_off_onto_the_high_end_the_split_makes(name):
    # 6S splits 3S-9S into 3-4-5-6 and 6-7-8-9; 7S then goes onto 3-4-5-6, an end the split made (7S
    # alone cannot split it: 7-8-9 and 3-4-5-6-7 would leave 6S with no place)
    st = opened("6S 7S", [R("3S 4S 5S 6S 7S 8S 9S")], draw="KC")
    assert sure_go_out(st, 0) is not None
    play = goes_out(name, st)
    assert play.discard == C("KC") and any(isinstance(op, Split) for op in play.ops), play


@pytest.mark.parametrize("name", BOTS)
def test_every_bot_splits_a_run_and_lays_off_onto_the_part_it_cut_off(name):
    # 5S splits 3S-9S into 3-4-5 and 5-6-7-8-9; 4S goes onto the low end of the part cut off, the table's
    # next row (4S can neither split the run nor go onto its ends)
    st = opened("4S 5S", [R("3S 4S 5S 6S 7S 8S 9S")], draw="KC")
    assert LayOff(1, C("4S"), LOW) in sure_go_out(st, 0).ops
    play = goes_out(name, st)
    assert play.discard == C("KC"), play
    if name in ("greedy", "patient"):  # the others may as well take the 3S and meld it with 4S 5S
        assert play.ops == [Split(0, C("5S"), 3), LayOff(1, C("4S"), LOW)], play


@pytest.mark.parametrize("name", BOTS)
def test_every_bot_extends_a_run_splits_it_and_lays_off_onto_the_part_cut_off(name):
    # kalooki play --profile east_coast --seed 3 --bots greedy,greedy,greedy,greedy, turn 16 (seat 2): 2S 2D
    # 2C laid, 8C onto 4C-7C, 6C splits 4C-8C into 4-5-6 and 6-7-8, 5C onto 6-7-8, 5S thrown
    st = opened("2S 5S 2D 2C 5C 6C", [R("4C 5C 6C 7C")], draw="8C")
    assert sure_go_out(st, 0) is not None
    play = goes_out(name, st)
    assert play.discard == C("5S"), play


@pytest.mark.parametrize("name", BOTS)
def test_every_bot_splits_a_run_with_a_joker_to_go_out(name):
    # scala40, one joker a meld: 3S-9S holds one, so the drawn joker goes onto no end; standing for the 7S
    # it splits the run into 3S 4S JK 6S 7S and JK 8S 9S, a joker each
    st = opened("JK", [R("3S 4S JK 6S 7S 8S 9S", S40)], p=S40, draw="KC")
    assert any(isinstance(op, Split) and op.card == JOKER for op in sure_go_out(st, 0).ops)
    play = goes_out(name, st)
    assert any(isinstance(op, Split) and op.card == JOKER for op in play.ops) and play.discard == C("KC"), play


@pytest.mark.parametrize("name", BOTS)
def test_every_bot_splits_a_run_with_a_joker_and_lays_off_onto_the_end_it_makes(name):
    # the joker standing for the QS splits TS-AS into T-J-Q and JK-K-A; KS then goes onto T-J-Q (no end of
    # TS-AS takes the KS, and KS cannot split it: K-A is no run)
    st = opened("JK KS", [R("TS JS QS KS AS")], draw="4D")
    assert any(isinstance(op, Split) and op.card == JOKER for op in sure_go_out(st, 0).ops)
    play = goes_out(name, st)
    assert play.discard == C("4D"), play
    if name in ("greedy", "patient"):  # the others may as well take the AS and meld JK KS AS
        assert play.ops == [Split(0, JOKER, 3), LayOff(0, C("KS"), HIGH)], play


def test_the_engine_takes_the_splits_sure_go_out_finds():
    # the ways a split goes out (docs/RULES.md section 3: a split inserts a duplicate, and a joker stands for
    # any card; each part is then a run of the table), each as a play the engine validates: a lay-off onto
    # the part below's new high end, onto the part cut off (the table's next row), and a joker as the
    # duplicate, the joker limit held for each part
    for hand, table, p, want in [
            ("6S 7S", [R("3S 4S 5S 6S 7S 8S 9S")], K40, [Split(0, C("6S"), 4), LayOff(0, C("7S"), HIGH)]),
            ("4S 5S", [R("3S 4S 5S 6S 7S 8S 9S")], K40, [Split(0, C("5S"), 3), LayOff(1, C("4S"), LOW)]),
            ("JK", [R("3S 4S JK 6S 7S 8S 9S", S40)], S40, [Split(0, JOKER, 3)]),
            ("JK KS", [R("TS JS QS KS AS")], K40, [Split(0, JOKER, 3), LayOff(0, C("KS"), HIGH)])]:
        st = opened(hand, table, p=p, draw="2D")
        play = sure_go_out(st, 0)
        assert play is not None, hand
        st.apply_play(play)
        assert st.result is not None and st.result.winner == 0, (hand, play)
        st = opened(hand, table, p=p, draw="2D")
        st.apply_play(Play(want, C("2D")))
        assert st.result is not None and st.result.winner == 0, (hand, want)
    # each part keeps the joker limit: in scala40 a joker standing for the 5S may not split 3S-9S when the
    # part it starts would hold the 7S's joker too
    table = [R("3S 4S 5S 6S JK 8S 9S", S40)]
    st = opened("JK", table, p=S40, draw="2D")
    with pytest.raises(IllegalTurn):
        st.apply_play(Play([Split(0, JOKER, 3)], C("2D")))


@pytest.mark.parametrize("name", BOTS)
def test_every_bot_lays_off_the_card_it_took(name):
    # 8D taken goes onto 5D-7D; the KS is thrown: out (it may not throw the 8D back)
    st = opened("KS", [R("5D 6D 7D")], discard="2C 8D", source=DRAW_DISCARD)
    play = goes_out(name, st)
    assert play.ops == [LayOff(0, C("8D"), play.ops[0].end)] and play.discard == C("KS"), play


@pytest.mark.parametrize("name", ("expert", "lookahead"))
def test_the_card_taken_splits_a_run_though_the_hand_does_not_go_out(name):
    # 5S taken splits 3S-7S; KH QC stay, and one of them is thrown: the card taken is not held at the end
    st = opened("KH QC", [R("3S 4S 5S 6S 7S")], discard="2D 5S", source=DRAW_DISCARD)
    play = bot_turn(name, st)
    assert Split(0, C("5S"), 3) in play.ops and st.hands[0][C("5S")] == 0, play


def test_sure_go_out_finds_splits_and_the_engine_accepts_them():
    st = opened("5H 3C", [R("3S 4S 5S 6S 7S"), R("6H 7H 8H 9H TH JH")], discard="2D 5S", source=DRAW_DISCARD)
    play = sure_go_out(st, 0)
    assert play.discard == C("3C") and Split(0, C("5S"), 3) in play.ops
    st = opened("5S 8S", [R("3S 4S 5S 6S 7S 8S 9S TS")], draw="2D")
    play = sure_go_out(st, 0)
    assert [op for op in play.ops if isinstance(op, Split)] == [Split(0, C("8S"), 6), Split(0, C("5S"), 3)]
    # a part of two is no run: 4S cannot split 3S-6S
    st = opened("4S", [R("3S 4S 5S 6S")], draw="2D")
    assert sure_go_out(st, 0) is None
    # a joker's slot splits with the natural it stands for: 3S 4S JK=5S | 5S 6S 7S
    st = opened("5S", [R("3S 4S JK 6S 7S")], draw="2D")
    assert Split(0, C("5S"), 3) in sure_go_out(st, 0).ops


def test_the_lay_off_finder_matches_the_reference_jokers_included():
    # small hands (jokers among them) against the tables of seeded hands: the compiled lay-offs
    # (kernels.layoffs.lay_off_hand) and tests/reference_moves.find_layoffs lay the same cards in the same places,
    # half the time with a card of the hand taken from the pile (laid off like any other, never the last
    # card that could be thrown)
    from sim.bots import greedy_core as FG
    from sim.bots.kernels.hands import NO
    from sim.bots.kernels.layoffs import lay_off_hand
    from sim.bots.kernels.plays import MAXOPS, OP_W
    from sim.engine.table import table_rows
    from sim.engine.turn import MAXT, X_CARD, X_KIND, X_LAYOFF, X_POS, X_TARGET, new_adds
    from sim.meldsearch import OUT_W
    from reference_moves import find_layoffs

    rng = np.random.default_rng(7)
    compared = jokers_laid = 0
    for profile in ("kalooki40", "kalooki51", "scala40", "east_coast"):
        st = HandState(profiles.load(profile), 4, 0, np.random.default_rng(3))
        bots = [make_bot("greedy", np.random.default_rng(i)) for i in range(4)]
        tables = []
        play_hand(st, bots, [0, 1, 2, 3], on_turn=lambda s: tables.append(list(s.table)))
        cp = compiled(st.profile)
        rp, prm = cp.rules, cp.params
        for table in tables[len(tables) // 2::3]:
            for _ in range(8):
                hand = np.zeros(53, np.int8)
                for c in rng.choice(52, int(rng.integers(0, 3)), replace=False):
                    hand[c] += 1
                hand[JOKER] = int(rng.integers(1, 3))
                forbid = int(rng.choice(np.flatnonzero(hand))) if rng.random() < 0.5 else -1
                want = find_layoffs(st, hand.copy(), list(table), keep=1, forbid=forbid)
                wtab = np.full((MAXT, OUT_W), -1, np.int64)
                wtab[:len(table)] = table_rows(table)
                ops = np.zeros((MAXOPS, OP_W), np.int64)
                ctx = np.zeros(4, np.int64)
                lay_off_hand(wtab, len(table), hand.copy(), np.int64(1), np.int64(forbid), new_adds(), rp, rp, prm, ops,
                             np.int64(0), ctx, NO, np.int64(40))
                got = [LayOff(int(o[X_TARGET]), int(o[X_CARD]), int(o[X_POS])) for o in ops[:ctx[0]]
                       if o[X_KIND] == X_LAYOFF]
                assert got == want, (profile, cards_str(from_counts(hand)), [str(m) for m in table])
                compared += 1
                jokers_laid += sum(op.card == JOKER for op in got)
    assert compared > 100 and jokers_laid > 20, (compared, jokers_laid)


def from_counts_vector(text):
    h = np.zeros(53, np.int8)
    for t in text.split():
        h[C(t)] += 1
    return h.tolist()


# ------------------------------------------------------------------ the rules-only search the scan uses
def test_sure_go_out_finds_a_joker_laid_off_and_the_engine_accepts_it():
    st = opened("2C", [G("4S 4H 4D")], draw="JK")
    play = sure_go_out(st, 0)
    assert play is not None and play.discard == C("2C") and play.ops == [LayOff(0, JOKER, play.ops[0].end, C("4C"))]


def test_sure_go_out_never_discards_the_taken_card():
    # 9D taken from the discard pile may not be thrown back, and goes nowhere: no way out
    st = opened("JK", [G("4S 4H 4D")], discard="2D 9D", source=DRAW_DISCARD)
    assert sure_go_out(st, 0) is None
    st = opened("JK", [G("4S 4H 4D")], draw="9D")
    assert sure_go_out(st, 0) is not None


def test_sure_go_out_keeps_to_the_turns_run_limits():
    # 4C at the low end, 8C 9C at the high end: out under per_end, one card too many under two_total
    st = opened("4C 8C 9C", [R("5C 6C 7C")], draw="KH")
    assert sure_go_out(st, 0) is not None
    st = opened("4C 8C 9C", [R("5C 6C 7C")], p=K40.replace(run_add_limit="two_total"), draw="KH")
    assert sure_go_out(st, 0) is None


def test_sure_go_out_before_opening_needs_the_minimum_in_new_melds():
    table = [R("2C 3C 4C")]
    st = opened("KS KH KD 9H TH JH 5C", table, draw="2S", opened_before=False)
    st.turns_taken[0] = 3
    play = sure_go_out(st, 0)  # 30 + 29 in new melds, the 5C laid off after them
    assert play is not None and isinstance(play.ops[0], NewMeld) and isinstance(play.ops[-1], LayOff)
    st = opened("3S 3H 3D 9H TH JH 5C", table, draw="2S", opened_before=False)
    st.turns_taken[0] = 3
    assert sure_go_out(st, 0) is None  # 9 + 29 < 40
    # where lay-offs count (kalooki51: 51 with a new meld), the 8C laid off makes up the difference
    table = [R("5C 6C 7C", K51)]
    st = opened("5S 5H 5D 9H TH JH 8C", table, p=K51, draw="2S", opened_before=False)
    st.turns_taken[0] = 3
    assert sure_go_out(st, 0) is not None  # 15 + 29 + 8
    st = opened("4S 4H 4D 9H TH JH 8C", table, p=K51, draw="2S", opened_before=False)
    st.turns_taken[0] = 3
    assert sure_go_out(st, 0) is None  # 12 + 29 + 8 < 51


def test_sure_go_out_respects_the_first_round_rule():
    st = opened("2C", [G("4S 4H 4D", S40)], p=S40, draw="JK")
    st.turns_taken[0] = 0
    assert sure_go_out(st, 0) is None  # scala40: nobody goes out in the first round
    st.turns_taken[0] = 1
    assert sure_go_out(st, 0) is not None


# ------------------------------------------------------------------ the scan
class Watched:
    """A bot whose every play is judged first: after its draw, does a sure go-out exist?"""

    def __init__(self, bot, seen):
        self.bot, self.seen = bot, seen
        self.name = bot.name

    def dealer_swap(self, state, me):
        return self.bot.dealer_swap(state, me)

    def draw(self, state, me):
        return self.bot.draw(state, me)

    def play(self, state, me):
        self.seen[state.turn_no] = (sure_go_out(state, me), cards_str(from_counts(state.hands[me])),
                                    [str(m) for m in state.table], bool(state.opened[me]),
                                    state.drawn_card if state.drawn_from == DRAW_DISCARD else -1)
        return self.bot.play(state, me)


def uses_taken(play, taken: int) -> bool:
    """Does the play lay the card taken from the pile (in a new meld, a lay-off or a split)?"""
    return taken >= 0 and any(taken in op.meld.cards if isinstance(op, NewMeld) else op.card == taken
                              for op in play.ops)


def split_kinds(play, n_table: int) -> set[str]:
    """What a way out does with table runs: "split", "joker_split" (a joker the duplicate),
    "inner_end" (a lay-off onto an end a split made inside a run: onto a run after its split, or onto
    a part cut off)."""
    kinds, split, row = set(), set(), n_table
    for op in play.ops:
        if isinstance(op, NewMeld):
            row += 1
        elif isinstance(op, Split):
            kinds.add("split")
            if op.card == JOKER:
                kinds.add("joker_split")
            split.update((op.target, row))
            row += 1
        elif isinstance(op, LayOff) and op.target in split:
            kinds.add("inner_end")
    return kinds


def scan(profile: str, seed: int, names: list[str], tally=None) -> list[str]:
    """Play the hand ``kalooki play --profile profile --seed seed --bots names`` plays, each turn
    watched: a line for each sure go-out a bot (random aside) did not take.  ``tally`` (a Counter)
    counts the ways out found (``ways_out``), those that split a run (``by_split``) and those that
    lay the card just taken from the pile (``taken``), and, of those by a split, those with a joker as
    the duplicate (``joker_split``) or a lay-off onto an end a split made (``inner_end``); and the
    ways out missed (``missed``, and by kind ``missed_<kind>``)."""
    prof = profiles.load(profile)
    kids = np.random.SeedSequence(seed).spawn(1 + len(names))
    rng = np.random.default_rng(kids[0])
    bots = [make_bot(n, np.random.default_rng(k)) for n, k in zip(names, kids[1:])]
    seen: dict = {}
    watched = [b if b.name == "random" else Watched(b, seen) for b in bots]
    st = HandState(prof, len(names), int(rng.integers(len(names))), rng)
    missed = []

    def judge(state):
        seat, _, _, play = state.last_turn
        found = seen.pop(state.turn_no - 1, None)
        if found is None or found[0] is None:
            return
        witness, hand, table, was_open, taken = found
        if tally is not None:
            tally["ways_out"] += 1
            kinds = split_kinds(witness, len(table))
            tally["by_split"] += "split" in kinds
            tally["joker_split"] += "joker_split" in kinds
            tally["inner_end"] += "inner_end" in kinds
            tally["taken"] += uses_taken(witness, taken)
        if state.result is not None and state.result.winner == seat:
            return
        if (names[seat] == "search" and not was_open and not play.ops and kalooki_pays_more(prof)
                and prof.layoffs_count_for_opening):
            return  # holding for a Kalooki, played forward (module docstring)
        if tally is not None:
            tally["missed"] += 1
            for kind in split_kinds(witness, len(table)):
                tally["missed_" + kind] += 1
        missed.append(f"kalooki play --profile {profile} --seed {seed} --bots {','.join(names)}: turn "
                      f"{state.turn_no}, seat {seat} ({names[seat]}) holds {hand} after its draw and could go out "
                      f"({witness}) on table {table}, but played {play}")

    play_hand(st, watched, list(range(len(names))), on_turn=judge)
    return missed


# a table of each bot alone, the search aside (one seat of it, in the mixed table, keeps the scan to
# seconds)
TABLES = [[b] * 4 for b in BOTS if b != "search"] + [["patient", "expert", "lookahead", "search"]]


def run_scan(seeds, tally=None) -> tuple[int, list[str]]:
    hands, missed = 0, []
    for profile in PROFILES:
        for names in TABLES:
            for seed in seeds:
                missed += scan(profile, seed, names, tally)
                hands += 1
    return hands, missed


@pytest.mark.parametrize("seeds", [pytest.param(3, id="3-seeds"), pytest.param(10, id="10-seeds", marks=pytest.mark.slow)])
def test_no_bot_misses_a_sure_go_out(seeds):
    # the scan judges ways out by splits and with the card just taken too: it meets both
    tally = Counter()
    hands, missed = run_scan(range(seeds), tally)
    assert hands == len(PROFILES) * len(TABLES) * seeds
    assert not missed, f"{len(missed)} sure go-outs missed in {hands} hands:\n" + "\n".join(missed[:20])
    assert tally["by_split"] > 0 and tally["taken"] > 0, tally


@pytest.mark.soak
def test_no_bot_misses_a_sure_go_out_in_a_larger_scan():
    hands, missed = run_scan(range(10, 10 + int(os.environ.get("KALOOKI_BLUNDER_SEEDS", "200"))))
    assert not missed, f"{len(missed)} sure go-outs missed in {hands} hands:\n" + "\n".join(missed[:20])


def turns_of(profile: str, seed: int, names: list[str]):
    """The hand ``kalooki play --profile profile --seed seed --bots names`` plays: its turns as (turn
    number as the command counts them from 1, seat, card drawn, whence, play), and its result."""
    prof = profiles.load(profile)
    kids = np.random.SeedSequence(seed).spawn(1 + len(names))
    rng = np.random.default_rng(kids[0])
    bots = [make_bot(n, np.random.default_rng(k)) for n, k in zip(names, kids[1:])]
    st = HandState(prof, len(names), int(rng.integers(len(names))), rng)
    turns = []
    play_hand(st, bots, list(range(len(names))),
              on_turn=lambda s: turns.append((s.turn_no, s.last_turn[0], s.last_turn[2], s.last_turn[1],
                                              s.last_turn[3])))
    return turns, st.result


@pytest.mark.parametrize("profile, seed, names, turn, seat, card", [
    # QC splits TC-AC, 2S 2H JK are laid, 9S is thrown
    ("kalooki51", 8157, "search,lookahead,expert,greedy", 10, 1, "QC")])
def test_the_seeded_ways_out_by_a_split_are_taken(profile, seed, names, turn, seat, card):
    turns, result = turns_of(profile, seed, names.split(","))
    assert result.winner == seat and len(turns) == turn, (result, len(turns))
    _, who, _, _, play = turns[-1]
    assert who == seat and any(isinstance(op, Split) and op.card == C(card) for op in play.ops), play


# ------------------------------------------------------------------ end of the go-out tests (sure_go_out judges)


# ---------------------------------------------------------------------------------------------
# the draw: a discard taken and kept loose while the stock offered a sure go-out
# ---------------------------------------------------------------------------------------------

def stock_out_chance(state, me) -> float:
    """The chance that a stock draw lets ``me`` (to draw) surely go out this turn (``sure_go_out``),
    over the cards it cannot see, each copy alike."""
    from sim.bots.outlook import unseen_counts
    unseen = unseen_counts(state, me)
    hands = [cards_str(from_counts(h)) for h in state.hands]
    out = 0
    for x in np.flatnonzero(unseen):
        st = HandState.scripted(state.profile, hands, stock=cards_str([int(x)]), discard=cards_str(state.discard),
                                current=me, table=list(state.table), opened=list(state.opened))
        st.turns_taken = list(state.turns_taken)
        st.apply_draw(DRAW_STOCK)
        if sure_go_out(st, me) is not None:
            out += int(unseen[x])
    return out / max(int(unseen.sum()), 1)


def thrown_away(profile: str, seed: int, names: list[str]) -> list[str]:
    """Play the hand ``kalooki play --profile profile --seed seed --bots names`` plays: a line for each
    free discard taken by an opened player and still in its hand when its turn ends (not melded, not
    laid off, not gone out with) while a stock draw would have gone out with a chance above a quarter."""
    prof = profiles.load(profile)
    kids = np.random.SeedSequence(seed).spawn(1 + len(names))
    rng = np.random.default_rng(kids[0])
    bots = [make_bot(n, np.random.default_rng(k)) for n, k in zip(names, kids[1:])]
    pending = {}
    for b in bots:
        def draw(state, me, _own=b.draw):
            src = _own(state, me)
            if src == DRAW_DISCARD and state.opened[me] and state.discard_obligation(me) is None:
                chance = stock_out_chance(state, me)
                if chance > 0.25:
                    pending[state.turn_no] = (me, state.discard_top, chance, cards_str(from_counts(state.hands[me])))
            return src
        b.draw = draw
    st = HandState(prof, len(names), int(rng.integers(len(names))), rng)
    found = []

    def judge(state):
        hit = pending.pop(state.turn_no - 1, None)
        if hit is None:
            return
        me, taken, chance, hand = hit
        if state.hands[me, taken] > 0 and not (state.result is not None and state.result.winner == me):
            found.append(f"kalooki play --profile {profile} --seed {seed} --bots {','.join(names)}: turn "
                         f"{state.turn_no}, seat {me} ({names[me]}) holding {hand} took {cards_str([taken])} and "
                         f"kept it though a stock draw went out with chance {chance:.2f}")

    play_hand(st, bots, list(range(len(names))), on_turn=judge)
    return found


def test_no_expert_keeps_a_taken_discard_while_the_stock_would_likely_go_out():
    found = []
    for profile in ("british", "kalooki40", "kalooki51"):
        for names in (["expert"] * 4, ["lookahead"] * 4):
            for seed in [8146] + list(range(12)):
                found += thrown_away(profile, seed, names)
    assert not found, f"{len(found)} discards kept against a likely go-out:\n" + "\n".join(found[:20])
