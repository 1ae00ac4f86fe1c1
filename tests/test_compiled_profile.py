"""A profile compiled once (``sim.engine.core.compiled``): the arrays the engine, the meld search and the
bots read, made once per profile object and written from the profile's parameters in one place; what a
meld counts written once (``core.slot_value``), which every count of a meld's value adds up."""
import dataclasses

import numpy as np
import pytest

from sim import cards as C
from sim import melds as M
from sim import meldsearch as MS
from sim import profiles
from sim.bots import greedy_core as FG
from sim.engine import core
from sim.engine.core import compiled

NAMES = profiles.available()


def test_made_once_per_profile_and_read_by_every_layer():
    p = profiles.load("kalooki40")
    cp = compiled(p)
    assert compiled(p) is cp
    assert cp.rules.dtype == np.int64 and cp.rules.size == core.R_WORDS
    assert cp.params.dtype == np.int32 and cp.params.size == core.HEADER_W + core.SEARCH_TABLE_W
    assert cp.hand_values.dtype == np.int64
    assert np.array_equal(cp.hand_values, C.hand_values(p.ace_value, p.joker_penalty))
    same = dataclasses.replace(p)  # another object with the same rules: its own arrays, the same table
    assert compiled(same) is not cp and compiled(same).params is cp.params
    assert np.array_equal(compiled(same).rules, cp.rules)


def test_a_profile_in_use_keeps_sharing_its_table_after_other_headers():
    """Other headers compiled in between (more than the shared vectors kept) do not part a profile in use
    from a new object with its rules: using it keeps its vector the one they share."""
    p = dataclasses.replace(profiles.load("kalooki40"), opening_min=41)
    cp = compiled(p)
    for i in range(core._PARAMS_MAX + 2):
        compiled(dataclasses.replace(p, opening_min=50 + i))
        assert compiled(p) is cp
    assert compiled(dataclasses.replace(p)).params is cp.params


def test_a_changed_profile_never_reads_another_profiles_arrays():
    """Profiles made and dropped one after another (more than the cache keeps) each read their own words."""
    base = profiles.load("kalooki40")
    for i in range(300):
        p = dataclasses.replace(base, turn_cap=100 + i, opening_min=30 + i % 3, ace_low_value=i % 2)
        cp = compiled(p)
        assert cp.rules[core.R_TURN_CAP] == p.turn_cap
        assert cp.rules[core.R_OPENING_MIN] == p.opening_min == cp.params[core.P_OPENING_MIN]
        assert cp.params[core.P_EXTV + core.ACE_LOW_EXT] == p.ace_low_value


@pytest.mark.parametrize("name", NAMES)
def test_the_words_say_what_the_profile_says(name):
    p = profiles.load(name)
    cp = compiled(p)
    r, h = cp.rules, cp.params
    assert (r[core.R_OPENING_MIN], r[core.R_MAX_JOKERS], r[core.R_RUN_END_LIMIT], r[core.R_TURN_CAP]) == (
        p.opening_min, p.max_jokers_per_meld, p.run_end_limit, p.turn_cap)
    assert r[core.R_KALOOKI_PAYS_MORE] == int(core.kalooki_pays_more(p))
    assert (r[core.R_PAY_PER_CARD], r[core.R_PAY_PER_JOKER]) == (p.pay_per_card, p.pay_per_joker)
    assert (h[core.P_ACE_VALUE], h[core.P_JOKER_PENALTY], h[core.P_JOKER_MELD_VALUE], h[core.P_OPENING_MIN]) == (
        p.ace_value, p.joker_penalty, p.joker_meld_value, p.opening_min)
    assert h[core.P_KMAX] == min(p.max_jokers_per_meld, core.MAX_JOKERS)
    assert [h[core.P_EXTV + e] for e in range(14)] == (
        [p.ace_low_value] + [C.rank_value(M.ext_rank_to_rank(e), p.ace_value) for e in range(1, 14)])
    assert [h[core.P_HV + k] for k in range(13)] == [C.rank_value(k, p.ace_value) for k in range(13)]


def test_the_bots_read_the_scoring_words_where_the_rules_vector_holds_them():
    assert (FG.R_KALOOKI_PAYS_MORE, FG.R_TABLE_OPENING, FG.R_MONEY_PER_HAND, FG.R_PAY_PER_CARD, FG.R_PAY_PER_JOKER,
            FG.R_PAY_DOUBLE, FG.R_SIZE) == (core.R_KALOOKI_PAYS_MORE, core.R_TABLE_OPENING, core.R_MONEY_PER_HAND,
                                            core.R_PAY_PER_CARD, core.R_PAY_PER_JOKER, core.R_PAY_DOUBLE, core.R_WORDS)
    assert MS.HDR == core.HEADER_W and MS.N_PAT * MS.ENTRY == 2 * core.SEARCH_TABLE_W


def _melds(p, n_hands=60, seed=3):
    rng = np.random.default_rng(seed)
    for counts in MS.deal_hands(rng, n_hands, 20, min(p.jokers, 4)):
        yield from MS.analyse(counts, p).deadwood


@pytest.mark.parametrize("name", NAMES)
def test_a_melds_value_is_the_sum_of_what_its_slots_count_and_a_lay_off_adds_its_slot(name):
    p = profiles.load(name)
    cp = compiled(p)
    out = np.empty(core.ROW_W, np.int64)
    seen = 0
    for m in _melds(p):
        row = M.row_of(m)
        slots = [int(core.slot_value(row, k, cp.params)) for k in range(len(m))]
        assert M.value(m, p) == core.meld_value(row, cp.params) == sum(slots), str(m)
        if m.kind == M.RUN:
            for end in (core.LOW, core.HIGH):
                c = core.run_extension(row, end, cp.rules)
                if c < 0:
                    continue
                code, added, _ = core.lay_off_row(row, c, end, -1, cp.rules, cp.params, out)
                if code != core.OK:
                    continue
                seen += 1
                assert added == core.slot_value(out, 0 if end == core.LOW else len(m), cp.params)
                assert core.meld_value(out, cp.params) == core.meld_value(row, cp.params) + added
        elif m.low >= 0 and len(m) == 3:
            suits = {r // C.N_RANKS for r in m.reps}
            c = next(s for s in range(4) if s not in suits) * C.N_RANKS + m.low
            code, added, _ = core.lay_off_row(row, c, core.HIGH, -1, cp.rules, cp.params, out)
            assert code == core.OK
            seen += 1
            assert added == core.slot_value(row, 0, cp.params) == cp.params[core.P_HV + m.low]
            assert core.meld_value(out, cp.params) == core.meld_value(row, cp.params) + added
    assert seen > 10
