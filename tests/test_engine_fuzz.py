"""Stateful fuzzing of the engine: random, mostly illegal turns are rejected with a reason and leave the
state unchanged; the legal ones keep every invariant (hypothesis RuleBasedStateMachine)."""
import numpy as np
from hypothesis import HealthCheck, settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from sim import melds as M
from sim import profiles
from sim.cards import JOKER, N_KINDS
from sim.engine import (DRAW_DISCARD, DRAW_STOCK, HIGH, LOW, PHASE_DRAW, PHASE_OVER, PHASE_PLAY, HandState,
                        IllegalTurn, LayOff, NewMeld, Play, Split, SwapJoker, Take)

PROFILE_NAMES = profiles.available()


def snapshot(s: HandState):
    return (s.hands.tobytes(), tuple(s.table), tuple(s.stock), tuple(s.discard), tuple(s.opened), s.phase,
            s.current, s.drawn_card, s.turn_no, tuple(s.turns_taken))


class EngineMachine(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.state = None
        self.rejected = 0
        self.accepted = 0

    @rule(name=st.sampled_from(PROFILE_NAMES), seed=st.integers(0, 2**31), n=st.integers(2, 6))
    @precondition(lambda self: self.state is None or self.state.phase == PHASE_OVER)
    def deal(self, name, seed, n):
        p = profiles.load(name)
        n = max(p.min_players, min(n, p.max_players))
        self.state = HandState(p, n, seed % n, np.random.default_rng(seed))

    @rule(source=st.sampled_from([DRAW_STOCK, DRAW_DISCARD, 7]))
    @precondition(lambda self: self.state is not None and self.state.phase == PHASE_DRAW)
    def draw(self, source):
        s = self.state
        s.start_turn()
        if s.phase != PHASE_DRAW:
            return
        before = snapshot(s)
        try:
            s.apply_draw(source)
            self.accepted += 1
        except IllegalTurn as e:
            assert e.rule and str(e)
            assert snapshot(s) == before

    @rule(data=st.data())
    @precondition(lambda self: self.state is not None and self.state.phase == PHASE_PLAY)
    def play(self, data):
        s = self.state
        me = s.current
        hand_cards = [c for c in range(N_KINDS) for _ in range(int(s.hands[me, c]))]
        any_card = st.integers(0, 52)
        own = st.sampled_from(hand_cards) if hand_cards else any_card
        card = st.one_of(own, own, any_card)
        n_table = len(s.table)
        target = st.integers(-1, n_table)
        ops = []
        for _ in range(data.draw(st.integers(0, 4))):
            kind = data.draw(st.sampled_from(["meld", "meld", "layoff", "take", "split", "swap"]))
            if kind == "meld":
                cards = data.draw(st.lists(card, min_size=2, max_size=5))
                m = data.draw(st.sampled_from([M.declare_run, M.declare_group]))(cards, s.profile)
                if m is None:  # an invalid meld, built raw
                    m = M.Meld(M.RUN, tuple(cards), tuple(c if c != JOKER else 0 for c in cards), 1)
                ops.append(NewMeld(m))
            elif kind == "layoff":
                ops.append(LayOff(data.draw(target), data.draw(card), data.draw(st.sampled_from([LOW, HIGH]))))
            elif kind == "take":
                ops.append(Take(data.draw(target), data.draw(st.integers(-1, 6))))
            elif kind == "split":
                ops.append(Split(data.draw(target), data.draw(card), data.draw(st.integers(0, 6))))
            else:
                ops.append(SwapJoker(data.draw(target), data.draw(st.integers(0, 5)), data.draw(card),
                                     data.draw(st.one_of(st.just(-1), card))))
        discard = data.draw(st.one_of(st.none(), card))
        before = snapshot(s)
        try:
            s.apply_play(Play(ops, discard))
            self.accepted += 1
        except IllegalTurn as e:
            self.rejected += 1
            assert e.rule and str(e)
            assert snapshot(s) == before, "a rejected play changed the state"
            # keep the game moving with the simplest legal play when the fuzz play was refused
            if s.drawn_from == DRAW_STOCK or s.discard_obligation(me) is None:
                legal = next(c for c in range(N_KINDS) if s.hands[me, c] > 0
                             and not (c == s.drawn_card and s.drawn_from == DRAW_DISCARD))
                s.apply_play(Play([], legal))

    @invariant()
    def invariants_hold(self):
        if self.state is not None:
            self.state.check_invariants()


EngineMachine.TestCase.settings = settings(max_examples=60, stateful_step_count=40, deadline=None,
                                           suppress_health_check=[HealthCheck.too_slow])
TestEngineFuzz = EngineMachine.TestCase
