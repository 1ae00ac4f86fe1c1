"""The compiled meld search against a slow, obviously correct reference written here.

The reference lists every valid meld the hand can form (each run and group declaration, jokers
included, built as ``sim.melds.Meld`` and accepted by ``melds.check``, scored by ``melds.value``)
and searches every partition exhaustively: the lowest natural card left is either loose or in one
of the listed melds that contain it; leftover jokers are loose or an all-joker group.  Sub-hands are
memoised (the best of a sub-hand does not depend on how it was reached), which keeps it exhaustive.
"""
from __future__ import annotations

import itertools
from functools import lru_cache

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from sim import cards as C
from sim import melds as M
from sim import meldsearch as ms
from sim import profiles
from sim.engine.core import compiled

NEG = float("-inf")
K40 = profiles.load("kalooki40")
K51 = profiles.load("kalooki51")
SCALA = profiles.load("scala40")
EAST = profiles.load("east_coast")


# ------------------------------------------------------------------------------------------
# reference
# ------------------------------------------------------------------------------------------

def candidate_melds(counts, profile):
    """Every valid meld (Meld objects) that the hand's cards can form."""
    J = int(counts[C.JOKER])
    kmax = min(J, profile.max_jokers_per_meld)
    out = {}

    def add(m):
        if M.check(m, profile) is None:
            out[(m.kind, m.cards, m.reps, m.low)] = m

    for s in range(4):
        for lo in range(0, 14):
            for n in range(3, 14):
                hi = lo + n - 1
                if hi > 13:
                    break
                reps = [s * 13 + M.ext_rank_to_rank(e) for e in range(lo, hi + 1)]
                avail = [i for i, r in enumerate(reps) if counts[r] > 0]
                forced = n - len(avail)
                if forced > kmax:
                    continue
                for t in range(0, kmax - forced + 1):
                    for jset in itertools.combinations(avail, t):
                        seq = [C.JOKER if (i in jset or i not in avail) else reps[i] for i in range(n)]
                        add(M.run(s, lo, seq))
    for r in range(13):
        present = [s for s in range(4) if counts[s * 13 + r] > 0]
        for size in range(1, len(present) + 1):
            for suits in itertools.combinations(present, size):
                missing = [s for s in range(4) if s not in suits]
                for k in range(0, min(kmax, len(missing)) + 1):
                    if 3 <= size + k <= 4:
                        add(M.group(r, [s * 13 + r for s in suits] + [C.JOKER] * k, missing[:k]))
    if profile.joker_melds:
        for n in (3, 4):
            if J >= n:
                add(M.joker_group(n))
    return list(out.values())


def reference(counts, profile):
    """(max_meld_value, min_deadwood, min_loose, best value of a partition melding every card)."""
    counts = tuple(int(x) for x in counts)
    hv = C.hand_values(profile.ace_value, profile.joker_penalty)
    cands = candidate_melds(np.array(counts), profile)
    use = []
    for m in cands:
        u = [0] * 53
        for c in m.cards:
            u[c] += 1
        use.append((m, tuple(u), M.value(m, profile), sum(int(hv[c]) for c in m.cards), len(m.cards)))
    by_card = {c: [x for x in use if x[1][c] > 0] for c in range(52)}

    @lru_cache(maxsize=None)
    def best(rem):
        # returns (value, melded penalty, melded cards, full-partition value)
        low = next((c for c in range(52) if rem[c] > 0), None)
        if low is None:
            J = rem[C.JOKER]
            res = [0, 0, 0, 0 if J == 0 else NEG]
            if profile.joker_melds:
                for n in (3, 4):
                    if J >= n:
                        res[0] = max(res[0], n * profile.joker_meld_value)
                        res[1] = max(res[1], n * profile.joker_penalty)
                        res[2] = max(res[2], n)
                        if J == n:
                            res[3] = max(res[3], n * profile.joker_meld_value)
            return tuple(res)
        r = list(rem)
        r[low] -= 1
        sub = best(tuple(r))
        res = [sub[0], sub[1], sub[2], NEG]
        for m, u, v, d, l in by_card[low]:
            if all(rem[c] >= u[c] for c in range(53)):
                left = tuple(rem[c] - u[c] for c in range(53))
                sb = best(left)
                res[0] = max(res[0], v + sb[0])
                res[1] = max(res[1], d + sb[1])
                res[2] = max(res[2], l + sb[2])
                res[3] = max(res[3], v + sb[3])
        return tuple(res)

    v, d, l, full = best(counts)
    total = sum(int(hv[c]) * counts[c] for c in range(53))
    return v, total - d, sum(counts) - l, full


# ------------------------------------------------------------------------------------------
# checks shared by the tests
# ------------------------------------------------------------------------------------------

def hand(text):
    return C.to_counts(C.parse_cards(text))


def check_partition(counts, melds_, left, profile):
    used = np.zeros(53, dtype=np.int64)
    for m in melds_:
        assert M.check(m, profile) is None, (str(m), M.check(m, profile))
        for c in m.cards:
            used[c] += 1
    for c in left:
        used[c] += 1
    assert (used == counts).all(), f"partition {[str(m) for m in melds_]} + {C.cards_str(left)} is not the hand"


def check_hand(counts, profile):
    v, d, l, full = reference(counts, profile)
    got = ms.search(counts, profile)
    assert got == (v, d, l), f"{C.cards_str(C.from_counts(counts))} [{profile.name}]: kernel {got} reference {(v, d, l)}"
    res = ms.analyse(counts, profile)
    assert (res.max_meld_value, res.min_deadwood, res.min_loose) == (v, d, l)
    hv = C.hand_values(profile.ace_value, profile.joker_penalty)
    check_partition(counts, res.opening, res.opening_left, profile)
    assert sum(M.value(m, profile) for m in res.opening) == v
    check_partition(counts, res.deadwood, res.deadwood_left, profile)
    assert sum(int(hv[c]) for c in res.deadwood_left) == d
    fp = ms.full_partition(counts, profile)
    if full == NEG:
        assert fp is None
        assert l > 0
    else:
        assert l == 0
        fv, fm = fp
        assert fv == full
        check_partition(counts, fm, [], profile)
        assert sum(M.value(m, profile) for m in fm) == full
    return v, d, l


# ------------------------------------------------------------------------------------------
# hand-written hands
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text,profile,expect", [
    ("7H 8H 9H", K40, (24, 0, 0)),
    ("JK 8H 9H", K40, (27, 0, 0)),  # 8-9-T beats 7-8-9
    ("QH KH JK", K40, (31, 0, 0)),  # joker at the top end: the ace
    ("7H 7H JK", K40, (0, 29, 3)),  # two 7H never share a group; no run either
    ("7H 7S JK JK", K40, (28, 0, 0)),  # 7H 7S + two jokers for the missing suits
    ("QH KH AH", K40, (31, 0, 0)),
    ("AH 2H 3H", K40, (0, 16, 3)),  # ace high only
    ("AH 2H 3H", K51, (6, 0, 0)),  # ace low worth 1 in the run
    ("KH AH 2H", K51, (0, 27, 3)),  # never K-A-2 (ace 15 in hand)
    ("JK JK JK", EAST, (45, 0, 0)),  # east coast joker group, 15 each
    ("JK JK JK", K51, (0, 75, 3)),
    ("5H JK JK", SCALA, (0, 55, 3)),  # scala40: one joker per meld
    ("5H 6H JK", SCALA, (18, 0, 0)),
    ("5H 6H 7H 8H 9H 5S 5D", K40, (45, 0, 0)),  # 5-9 run (35) vs 6-9 + 5 group (30+15)
    ("2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS", K40, (95, 0, 0)),  # a 13-card run
    ("2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS JK", K40, (105, 0, 0)),  # split so the joker fits
    ("5H 6H 7H 5H 6H 7H", K40, (36, 0, 0)),  # the same run twice (two packs)
    ("5H 6H 7H 5H JK 7H", K40, (36, 0, 0)),  # joker = 6H while 6H is in the other run
    # a joker declared as a card the hand holds, whose natural is used elsewhere or left out
    ("2D 8D 9D TD QD KD AD JK JK JK", K40, (91, 0, 0)),  # JK=AD in Q-K-A while AD groups with jokers
    ("8D 9D TD QD JK JK JK JK", K51, (82, 0, 0)),  # JK=TD in T-A while TD ends 8-9-T
    ("2H 3H 6H AH AH JK JK JK", SCALA, (12, 31, 2)),  # A-2-JK and A-JK-3, one joker each
    ("2D 3D 4D 6D 6D 8D TD KD KD JK JK JK JK", SCALA, (51, 51, 4)),
])
def test_tricky_hands(text, profile, expect):
    counts = hand(text)
    assert check_hand(counts, profile) == expect


def test_objectives_need_different_partitions():
    # value: the joker makes an ace group (33) and 4H 5H 7H 8H stay out (24 deadwood);
    # deadwood: the joker fills 6H (run 4-8, worth only 30) and the two aces stay out (22)
    counts = hand("AS AD JK 4H 5H 7H 8H")
    assert check_hand(counts, K40) == (33, 22, 2)
    res = ms.analyse(counts, K40)
    assert [m.kind for m in res.opening] == [M.GROUP]
    assert [m.kind for m in res.deadwood] == [M.RUN]
    assert sorted(res.deadwood_left) == sorted(C.parse_cards("AS AD"))
    # and with aces low: A-2-3 melds the ace for deadwood but is worth little
    check_hand(hand("AH 2H 3H AS AD KS KD JK"), K51)


def test_duplicates_from_both_packs_in_two_melds():
    for p in (K40, K51):
        # 7H twice: one in the four-suit group, the other starts 7-8-9
        assert check_hand(hand("7H 7S 7D 7H 7S 7C 8H 9H"), p) == (52, 7, 1)
        res = ms.analyse(hand("7H 7S 7D 7H 7S 7C 8H 9H"), p)
        assert sum(m.cards.count(C.parse_card("7H")) for m in res.opening) == 2
        # the same run twice plus a group
        assert check_hand(hand("7H 7S 7D 7H 7S 7C 8H 9H 8H 9H"), p) == (69, 7, 1)


def test_full_meld_hands():
    counts = hand("2H 3H 4H 5H 6H 7S 7D 7C 9C TC JC QC KC JK")  # 14 cards, all meld
    v, d, l = check_hand(counts, K40)
    assert (d, l) == (0, 0)
    ok, disc, melds_ = ms.can_go_out(counts, K40)
    assert ok
    rest = counts.copy()
    rest[disc] -= 1
    check_partition(rest, melds_, [], K40)


def test_scala40_one_joker_per_meld():
    counts = hand("5H 6H JK JK 9S 9D")
    check_hand(counts, SCALA)
    res = ms.analyse(counts, SCALA)
    assert all(m.n_jokers <= 1 for m in res.opening + res.deadwood)


def test_east_coast_joker_groups():
    counts = hand("JK JK JK JK 2C 9D")
    v, d, l = check_hand(counts, EAST)
    assert v == 60 and l == 0  # value: four jokers (60); deadwood: 2C+JK+JK and 9D+JK+JK
    counts = hand("JK JK JK AH AS")
    check_hand(counts, EAST)


def test_ace_low_in_run_worth_ace_low_value():
    res = ms.analyse(hand("AH 2H 3H 4H"), K51)
    assert res.max_meld_value == 1 + 2 + 3 + 4
    assert res.opening[0].low == M.ACE_LOW_EXT


# ------------------------------------------------------------------------------------------
# random hands against the reference
# ------------------------------------------------------------------------------------------

PROFILE_VARIANTS = [
    K40, K51, SCALA, EAST,
    K40.replace(ace_low=True),
    K51.replace(max_jokers_per_meld=2, joker_penalty=0),
    EAST.replace(ace_value=15, joker_meld_value=40, max_jokers_per_meld=3),
    K40.replace(ace_value=1, ace_low_value=1, joker_penalty=0),
]


@st.composite
def hands(draw):
    profile = draw(st.sampled_from(PROFILE_VARIANTS))
    n = draw(st.integers(13, 16))
    jokers = draw(st.integers(0, min(4, n)))
    # concentrate the naturals on a few suits and ranks some of the time: meld-rich hands
    suits = draw(st.sets(st.integers(0, 3), min_size=1, max_size=4))
    lo = draw(st.integers(0, 12))
    width = draw(st.integers(max(3, -(-(n - jokers) // (2 * len(suits)))), 13))
    ranks = [(lo + i) % 13 for i in range(width)]
    pool = [s * 13 + r for s in sorted(suits) for r in ranks] * 2
    k = n - jokers
    if k > len(pool):
        pool = list(range(52)) * 2
    picked = draw(st.permutations(pool))[:k]
    counts = C.to_counts(picked)
    counts[C.JOKER] = jokers
    return counts, profile


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hands())
def test_random_hands_match_reference(hp):
    counts, profile = hp
    check_hand(counts, profile)


def test_random_deals_match_reference():
    rng = np.random.default_rng(11)
    for profile, jokers, sizes in ((K40, 2, (13, 14)), (K51, 4, (15, 16))):
        deck = C.full_deck(jokers)
        for i in range(12):
            h = C.to_counts(rng.choice(deck, sizes[i % 2], replace=False))
            check_hand(h, profile)


# ------------------------------------------------------------------------------------------
# batch, helpers
# ------------------------------------------------------------------------------------------

def deal(rng, n, size, jokers):
    deck = C.full_deck(jokers)
    out = np.zeros((n, 53), dtype=np.int8)
    for i in range(n):
        for c in rng.choice(deck, size, replace=False):
            out[i, c] += 1
    return out


def test_batch_equals_single_hand():
    rng = np.random.default_rng(3)
    for profile in (K40, SCALA, EAST):
        hs = deal(rng, 300, 14, profile.jokers)
        b = ms.batch(hs, profile)
        for i in range(len(hs)):
            assert (b["max_meld_value"][i], b["min_deadwood"][i], b["min_loose"][i]) == ms.search(hs[i], profile)


def test_kernels_callable_from_compiled_code():
    from numba import njit
    prm = compiled(K40).params

    @njit
    def total(hs, prm):
        t = 0
        for i in range(hs.shape[0]):
            t += ms.max_meld_value_kernel(hs[i], prm) + ms.min_deadwood_kernel(hs[i], prm)
        return t

    hs = deal(np.random.default_rng(1), 20, 13, 2)
    b = ms.batch(hs, K40)
    assert total(hs, prm) == int(b["max_meld_value"].sum() + b["min_deadwood"].sum())


def brute_best_discard(counts, profile):
    hv = C.hand_values(profile.ace_value, profile.joker_penalty)
    best = None
    for c in range(53):
        if counts[c] == 0:
            continue
        h = counts.copy()
        h[c] -= 1
        d = ms.min_deadwood(h, profile)
        key = (d, -int(hv[c]), -c)
        if best is None or key < best[0]:
            best = (key, c, d)
    return best[1], best[2]


def test_best_discard():
    rng = np.random.default_rng(7)
    for profile in (K40, K51):
        for h in deal(rng, 40, 14, profile.jokers):
            assert ms.best_discard(h, profile) == brute_best_discard(h, profile)
    assert ms.best_discard(hand("5H 6H 7H KS"), K40) == (C.parse_card("KS"), 0)
    # tie between two loose cards of equal deadwood: the higher penalty goes
    card, d = ms.best_discard(hand("5H 6H 7H 2S 2D"), K40)
    assert d == 2 and card == C.parse_card("2D")


def test_can_go_out_and_kalooki():
    h = hand("5H 6H 7H 8S 8D 8C KS")
    ok, disc, melds_ = ms.can_go_out(h, K40)
    assert ok and disc == C.parse_card("KS")
    ok, disc, melds_ = ms.can_kalooki(h, K40)  # 18 + 24 = 42 >= 40
    assert ok
    h = hand("2H 3H 4H 2S 2D 2C KS")  # 9 + 6 = 15 < 40
    assert ms.can_go_out(h, K40)[0]
    assert not ms.can_kalooki(h, K40)[0]
    assert ms.can_kalooki(h, K40.replace(kalooki_exempt_from_minimum=True))[0]
    # all cards meld but none is left to discard: not a way out
    assert not ms.can_go_out(hand("5H 6H 7H"), K40)[0]
    assert ms.can_go_out(hand("5H 6H 7H 7H"), K40)[0]
    # full partition with the most value decides Kalooki, not the best-value partial one
    h = hand("QH KH AH JK 2C 3C 4C 9D")
    ok, disc, melds_ = ms.can_kalooki(h, K40)
    rest = h.copy()
    if ok:
        rest[disc] -= 1
        check_partition(rest, melds_, [], K40)


def test_can_go_out_matches_reference():
    rng = np.random.default_rng(9)
    for h in deal(rng, 30, 8, 2):
        expect = None
        for c in range(53):
            if h[c]:
                r = h.copy()
                r[c] -= 1
                v, d, l, full = reference(r, K40)
                if l == 0:
                    expect = True
        ok = ms.can_go_out(h, K40)[0]
        assert ok == bool(expect)


def test_can_open():
    ok, melds_ = ms.can_open(hand("TH JH QH KS KD KC 2C"), K40)
    assert ok and sum(M.value(m, K40) for m in melds_) == 60
    ok, melds_ = ms.can_open(hand("2H 3H 4H 9C"), K40)
    assert not ok and melds_ == []


def test_analyse_deadwood_matches_analyse_and_can_open_matches_search():
    """The bots' half-analysis and can_open's shortcut give what the full analysis gives."""
    rng = np.random.default_rng(5)
    for p in (K40, profiles.load("kalooki51"), profiles.load("scala40")):
        for h in ms.deal_hands(rng, 300, 14, 4):
            h = h.copy()
            full = ms.analyse(h, p)
            half = ms.analyse_deadwood(h, p)
            assert (half.max_meld_value, half.min_deadwood, half.min_loose) == \
                (full.max_meld_value, full.min_deadwood, full.min_loose)
            assert half.deadwood == full.deadwood and half.deadwood_left == full.deadwood_left
            ok, melds_ = ms.can_open(h, p)
            assert ok == (full.max_meld_value >= p.opening_min)
            assert melds_ == (full.opening if ok else [])


def test_bad_hands_rejected():
    h = np.zeros(53, dtype=np.int8)
    h[5] = 3
    with pytest.raises(C.CardError):
        ms.search(h, K40)
    with pytest.raises(ValueError):
        ms.batch(np.zeros((3, 52), dtype=np.int8), K40)


def test_profiles_with_the_same_search_parameters_share_one_table():
    a = compiled(K40).params
    assert a is compiled(profiles.load("british")).params  # same search parameters
    assert a.dtype == np.int32 and a[ms.P_OPENING_MIN] == 40 and a.size == ms.HDR + ms.N_PAT * ms.ENTRY // 2
    assert compiled(K51).params is not a


def test_best_discard_with_a_forbidden_card_and_scored_discards_match_plain_searches():
    """The compiled discard choices give what one search per candidate gives."""
    rng = np.random.default_rng(9)
    for h in ms.deal_hands(rng, 300, 15, 4):
        h = h.copy()
        held = [c for c in range(C.N_KINDS) if h[c] > 0]
        after = {}
        for c in held:
            r = h.copy()
            r[c] -= 1
            after[c] = ms.search(r, K40)[1]
        forbid = int(rng.choice(held))
        c, d = ms.best_discard(h, K40, forbid)
        assert d == after[c] and (c != forbid or len(held) == 1)  # no copy of the forbidden card
        others = [x for x in held if x != forbid] or held
        assert d == min(after[x] for x in others)
        extra = rng.integers(0, 20, C.N_KINDS)
        cands = sorted(rng.choice(held, size=min(5, len(held)), replace=False).tolist())
        best = ms.least_scored_discard(h, K40, cands, extra)
        assert best == min(cands, key=lambda x: (after[x] + extra[x], -x))
    assert ms.least_scored_discard(h, K40, [], extra) == -1
