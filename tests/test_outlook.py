"""outlook_kernel, whose shortcuts skip most searches, against the brute-force one-draw look-ahead it
replaced: the same integers for random hands, candidates, unseen counts and rows of stakes (the neutral
row, and curves with a cliff) on every profile."""
import numpy as np
from numba import njit
import pytest

from sim import meldsearch as MS
from sim import profiles
from sim.bots.outlook import NEUTRAL, _isolated, _joker_floor, _outlook_plain, _sane, outlook_kernel, stakes_ints
from sim.cards import COPIES, JOKER, N_KINDS
from sim.engine.core import compiled
from sim.equity import ST_CURVE, ST_XMAX, neutral_stakes
from sim.meldsearch import P_HV, P_JOKER_PENALTY, search_answers, discard_order, new_workspace


@njit(cache=True)
def _reference(counts, prm, cands, unseen, out, srow):
    """The look-ahead as first written: for each candidate and each unseen card a search of the hand
    after the draw, then a search per discard (highest penalty first, stopping once no card left can
    beat the best: removing a card lowers deadwood by at most its penalty); the least deadwood d
    weighed by the row of stakes, minus its curve at d."""
    mv, ws, rec = new_workspace()
    h = counts.copy()
    for i in range(cands.shape[0]):
        c = cands[i]
        if c >= 0:
            h[c] -= 1
        total = 0
        outs = 0
        for x in range(53):
            w = unseen[x]
            if w <= 0:
                continue
            h[x] += 1
            v, d_all, l = search_answers(h, prm, mv, ws, rec)
            if l <= 1:
                outs += w
            order = discard_order(h, prm)
            best = -1
            for k in range(order.shape[0]):
                y = order[k]
                pen = prm[P_JOKER_PENALTY] if y == 52 else prm[P_HV + y % 13]
                if best >= 0 and d_all - pen >= best:
                    break
                h[y] -= 1
                v, d, l = search_answers(h, prm, mv, ws, rec)
                h[y] += 1
                if best < 0 or d < best:
                    best = d
                    if best == 0:
                        break
            total += w * -srow[ST_CURVE + min(best, ST_XMAX)]
            h[x] -= 1
        if c >= 0:
            h[c] += 1
        out[i, 0] = total
        out[i, 1] = outs


def _pack(profile):
    return [c for c in range(JOKER) for _ in range(COPIES)] + [JOKER] * profile.jokers


def _random_case(rng, profile):
    """A hand of 2-16 cards (half the time drawn from a few ranks of two suits, so that it melds),
    candidates among its cards with or without -1, unseen counts of the rest with random zeros."""
    pack = _pack(profile)
    if rng.random() < 0.5:
        suits = rng.choice(4, size=2, replace=False)
        lo = int(rng.integers(0, 8))
        pack = [c for c in pack if c == JOKER or (c // 13 in suits and lo <= c % 13 < lo + 6)]
    n = int(rng.integers(2, 17))
    n = min(n, len(pack))
    hand = np.zeros(N_KINDS, np.int64)
    for c in rng.choice(np.array(pack), size=n, replace=False):
        hand[c] += 1
    held = np.flatnonzero(hand)
    k = int(rng.integers(1, min(9, held.size) + 1))
    cands = sorted(rng.choice(held, size=k, replace=False).tolist())
    if rng.random() < 0.4:
        cands = [-1] + cands
    unseen = np.zeros(N_KINDS, np.int64)
    for c in range(JOKER):
        unseen[c] = rng.integers(0, COPIES - hand[c] + 1)
    unseen[JOKER] = rng.integers(0, max(profile.jokers - hand[JOKER], 0) + 1)
    unseen[rng.random(N_KINDS) < 0.2] = 0
    return hand, np.array(cands, np.int64), unseen


def _random_row(rng):
    """The neutral row half the time, else a curve with a cliff of random height at a random place."""
    row = neutral_stakes(1)
    if rng.random() < 0.5:
        row[0, ST_CURVE + int(rng.integers(0, 80)):] -= rng.uniform(1, 200)
    return stakes_ints(row)[0]


@pytest.mark.parametrize("cases", [pytest.param(1000, id="1000"), pytest.param(3000, id="3000", marks=pytest.mark.slow)])
def test_outlook_kernel_matches_brute_force(cases):
    rng = np.random.default_rng(13)
    names = profiles.available()
    compared = 0
    for t in range(cases):
        profile = profiles.load(names[t % len(names)])
        prm = compiled(profile).params
        hand, cands, unseen = _random_case(rng, profile)
        srow = _random_row(rng)
        got = np.zeros((cands.size, 2), np.int64)
        want = np.zeros((cands.size, 2), np.int64)
        outlook_kernel(hand, prm, cands, unseen, got, srow)
        _reference(hand, prm, cands, unseen, want, srow)
        assert np.array_equal(got, want), (profile.name, hand.tolist(), cands.tolist(), unseen.tolist(), got, want)
        compared += cands.size
    assert compared > 2 * cases


def test_odd_inputs_take_the_brute_force():
    """A candidate the hand does not hold, or an unseen copy of a card held twice, is not for the
    shortcuts (_sane says no: the kernel runs _outlook_plain, the search per draw and discard, which
    matches the reference).  Such hands are not searched here: their counts fall outside the meld
    search's table."""
    hand = np.zeros(N_KINDS, np.int64)
    hand[[0, 1, 2, 15, 30]] = 1
    unseen = np.ones(N_KINDS, np.int64)
    assert _sane(hand, np.array([-1, 0, 30], np.int64), unseen)
    assert not _sane(hand, np.array([-1, 0, 40], np.int64), unseen)
    assert not _sane(hand, np.array([-2], np.int64), unseen)
    hand[2] = 2
    assert not _sane(hand, np.array([2], np.int64), unseen)
    unseen[2] = 0
    assert _sane(hand, np.array([2], np.int64), unseen)
    rng = np.random.default_rng(5)
    names = profiles.available()
    for t in range(60):
        profile = profiles.load(names[t % len(names)])
        prm = compiled(profile).params
        hand, cands, unseen = _random_case(rng, profile)
        got = np.zeros((cands.size, 2), np.int64)
        want = np.zeros((cands.size, 2), np.int64)
        mv, ws, rec = new_workspace()
        _outlook_plain(hand, prm, cands, unseen, got, mv, ws, rec, NEUTRAL)
        _reference(hand, prm, cands, unseen, want, NEUTRAL)
        assert np.array_equal(got, want)


def test_isolated_cards():
    """A natural is isolated only when no meld of the hand plus it could hold it."""
    hand = np.zeros(N_KINDS, np.int64)
    hand[[13, 2]] = 1  # the 2 of the second suit, the 4 of the first
    assert _isolated(hand, 26)  # a 2 of the third suit: a pair, no group
    assert _isolated(hand, 0)  # the 2 of the first suit: 2-4 lacks the 3
    assert _isolated(hand, 7)  # a 9 far from everything
    hand[3] = 1  # the 5 of the first suit
    assert not _isolated(hand, 1)  # the 3: 3-4-5
    assert not _isolated(hand, 4)  # the 6: 4-5-6
    hand[39] = 1  # the 2 of the fourth suit
    assert not _isolated(hand, 26)  # a group of three 2s
    low = np.zeros(N_KINDS, np.int64)
    low[[0, 1]] = 1  # the 2 and 3 of the first suit
    assert not _isolated(low, 12)  # A-2-3
    assert _isolated(low, 11)  # the king: K-A-2 is no run
    low[JOKER] = 1
    assert not _isolated(low, 3)  # 3-joker-5
    assert not _isolated(low, 13)  # 2-2-joker
    assert _isolated(low, 7)
    low[JOKER] = 2
    assert not _isolated(low, 7)  # a natural and two jokers


def test_joker_floor_is_a_lower_bound():
    """_joker_floor never exceeds the deadwood of the hand less a joker: random hands with jokers, and
    one whose best partition less a joker is a group of four with two jokers."""
    rng = np.random.default_rng(31)
    names = profiles.available()
    checked = 0
    for t in range(3000):
        profile = profiles.load(names[t % len(names)])
        if profile.jokers == 0:
            continue
        prm = compiled(profile).params
        hand, _, _ = _random_case(rng, profile)
        hand[JOKER] = max(hand[JOKER], int(rng.integers(1, profile.jokers + 1)))
        floor = _joker_floor(hand, prm, MS.search_kernel(hand, prm)[1])
        hand[JOKER] -= 1
        assert floor <= MS.search_kernel(hand, prm)[1], (profile.name, hand.tolist())
        checked += floor >= 0
    assert checked > 1000
    profile = next(p for p in map(profiles.load, names) if p.jokers >= 3 and p.max_jokers_per_meld >= 3)
    prm = compiled(profile).params
    hand = np.zeros(N_KINDS, np.int64)
    hand[[0, 13]] = 1  # two 2s
    hand[JOKER] = 3
    floor = _joker_floor(hand, prm, MS.search_kernel(hand, prm)[1])
    hand[JOKER] -= 1
    assert MS.search_kernel(hand, prm)[1] == 0  # 2 2 joker joker
    assert floor == 0
