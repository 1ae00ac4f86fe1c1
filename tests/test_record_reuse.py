"""The search bot reads a HandState's own compiled record (``search_core.seen``: a copy of ``state.h`` and
``state.inp``, as the compiled hand loop hands them over): it finds there every array it reads as a hand
built afresh from the state's public attributes gives them, and decides alike from either."""
import copy

import numpy as np
import pytest

from sim import profiles
from sim.bots import make_bot
from sim.bots import search_core as SC
from sim.bots import turn_loop as TL
from sim.bots.kernels.plays import turn_arrays
from sim.engine import HandState, core
from sim.engine import hand as HD

from test_hand_loop import random_midhand

NO_DRAW_KEYS = np.zeros((0, 0, 0), np.float64)
NO_IDS = np.zeros(0, np.int64)


def built(state):
    """(HandInputs, Hand) built afresh from the state's public attributes: the stock from its list, no
    seat-keyed draw, the counters and result words of a new hand."""
    cp = core.compiled(state.profile)
    opened, turns, tab = turn_arrays(state)
    inp = HD.HandInputs(cp.params, cp.rules, cp.hand_values, cp.rules, state.profile.jokers, state.reshuffle_keys,
                        NO_DRAW_KEYS, NO_IDS)
    h = HD.new_hand(state.hands, np.array(state.stock[::-1], dtype=np.int64), NO_IDS,
                    np.array(state.discard, dtype=np.int64), tab, opened, turns, TL.card_counts(state.pickups),
                    TL.card_counts(state.discards_by), state.current, state.reshuffles, state.turn_no)
    return inp, h


def assert_reads_alike(got, want, what):
    """Every input and record array the search reads is the same in ``got`` and ``want`` ((inp, h) pairs).
    It reads no seat-keyed draw inputs (its rollouts draw from the top of stocks of their own), no
    counters or result words (its rollouts start from ``new_hand``'s), no stock places and of the stock
    only its size, so those may differ."""
    (inp, h), (rinp, rh) = got, want
    for f in ("prm", "rp", "values", "crules", "keys"):
        assert np.array_equal(getattr(inp, f), getattr(rinp, f)), f"{what}: inp.{f}"
    assert inp.jokers == rinp.jokers, what
    for f in ("hands", "opened", "turns", "pick", "discby", "tab"):
        a, b = getattr(h, f), getattr(rh, f)
        assert a.dtype == b.dtype and np.array_equal(a, b), f"{what}: h.{f}"
    sc, rsc = h.sc, rh.sc
    for w in (HD.SC_ND, HD.SC_NT, HD.SC_TURN_NO, HD.SC_RESHUFFLES, HD.SC_CUR):
        assert sc[w] == rsc[w], f"{what}: sc word {w}"
    assert np.array_equal(sc[HD.SC_OWN:], rsc[HD.SC_OWN:]), f"{what}: the compiled loop's own words"
    assert np.array_equal(h.stock[sc[HD.SC_SP]:sc[HD.SC_NS]], rh.stock[rsc[HD.SC_SP]:rsc[HD.SC_NS]]), f"{what}: stock"
    assert np.array_equal(h.discard[:sc[HD.SC_ND]], rh.discard[:rsc[HD.SC_ND]]), f"{what}: discard"


def played_states(prof, seed, keyed, kinds=("greedy", "expert", "lookahead", "greedy")):
    """Copies of a hand played on the Python engine, at every draw and every play until it ends (every
    third one kept)."""
    n = prof.players
    st = HandState(prof, n, seed % n, np.random.default_rng([61, seed]), draw_seats=list(range(n)) if keyed else None)
    bots = [make_bot(k, np.random.default_rng(i)) for i, k in enumerate(kinds[:n])]
    out, k = [], 0
    while st.result is None:
        st.start_turn()
        if st.result is not None:
            break
        me = st.current
        if k % 3 == 0:
            out.append(copy.copy(st))
        st.apply_draw(bots[me].draw(st, me))
        if k % 3 == 1:
            out.append(copy.copy(st))
        st.apply_play(bots[me].play(st, me))
        k += 1
    return out


@pytest.mark.parametrize("name", profiles.available())
def test_the_record_holds_what_a_hand_built_from_the_attributes_holds(name):
    prof = profiles.load(name)
    seen = 0
    for seed in range(3):
        for st in played_states(prof, seed, keyed=seed == 1):
            assert_reads_alike(SC.seen(st), built(st), f"{name} hand {seed} turn {st.turn_no} {st.phase}")
            seen += 1
    rng = np.random.default_rng(67)
    for i in range(8):  # small hands, a table laid, short stocks
        st = random_midhand(prof, 4, rng)
        assert_reads_alike(SC.seen(st), built(st), f"{name} mid-hand state {i}")
    assert seen > 30


def test_seen_copies_the_record():
    st = HandState(profiles.load("kalooki40"), 4, 0, np.random.default_rng(3))
    before = [a.copy() for a in st.h]
    inp, h = SC.seen(st)
    assert inp is st.inp
    for a in h:
        a[...] = 7
    assert all(np.array_equal(a, b) for a, b in zip(st.h, before))


def test_the_search_decides_alike_from_the_record_and_from_the_attributes(monkeypatch):
    # every search decision of a few hands on the Python engine, made from seen(state) and from a hand
    # built from the state's attributes with the same stream position: the same answer, the same
    # table play written
    seen, draw, play = SC.seen, SC.search_draw, SC.search_play
    ref = {}
    asked = {"draw": 0, "play": 0, "searched": 0}

    def seen_both(state):
        got, ref["want"] = seen(state), built(state)
        assert_reads_alike(got, ref["want"], f"turn {state.turn_no}")
        return got

    def draw_both(inp, h, si, stream, pos):
        want = draw(*ref["want"], si, stream, pos)
        got = draw(inp, h, si, stream, pos)
        assert tuple(got) == tuple(want)
        asked["draw"] += 1
        asked["searched"] += got[1] > pos
        return got

    def play_both(inp, h, pend, si, stream, pos):
        rinp, rh = ref["want"]
        rh.sc[HD.SC_OWN:] = h.sc[HD.SC_OWN:]  # the turn's words decide_play wrote
        rpend = TL.Pending(*(a.copy() for a in pend))
        want = play(rinp, rh, rpend, si, stream, pos)
        got = play(inp, h, pend, si, stream, pos)
        assert tuple(got) == tuple(want)
        assert all(np.array_equal(a, b) for a, b in zip(pend, rpend))
        asked["play"] += 1
        asked["searched"] += got[3] > pos
        return got

    monkeypatch.setattr(SC, "seen", seen_both)
    monkeypatch.setattr(SC, "search_draw", draw_both)
    monkeypatch.setattr(SC, "search_play", play_both)
    for name, seed, keyed in (("kalooki40", 0, False), ("scala40", 1, True)):
        played_states(profiles.load(name), seed, keyed, ("search", "expert", "search", "lookahead"))
    assert asked["draw"] > 10 and asked["play"] > 10 and asked["searched"] > 10, asked
