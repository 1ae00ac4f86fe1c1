"""The expert's and the lookahead's compiled draw and discard choice (sim/bots/expert_core.py): the
discard against a direct computation from the meld search, the public record (kept as lists) and the
rules' three-card melds, the feeding risk of counts against the lists in any order, a free discard
taken only when it beats the stock draw's expectation, and the draw's question to ``table_opening``
only where the table can help an opening."""
import functools
import itertools

import numpy as np
import pytest

from sim import meldsearch as MS
from sim import melds as M
from sim import profiles
from sim.bots import expert_core as XC
from sim.bots import forbidden_discard, make_bot, table_opening
from reference_moves import loose_discard, meld_taken_card
from sure_go_out import sure_go_out
from sim.bots.outlook import outlook, unseen_counts
from sim.cards import JOKER, N_KINDS, N_RANKS, cards_str, from_counts
from sim.engine import DRAW_DISCARD, DRAW_STOCK, HandState
from sim.melds import GROUP, RUN


def feed_risks_from_lists(state, me, table):
    """The feeding risk from the next player's pickups and discards as lists, one card at a time."""
    nxt = (me + 1) % state.n
    risk = [0] * N_KINDS
    risk[JOKER] = 10
    for q in state.pickups[nxt]:
        if q == JOKER:
            continue
        qr, qs = q % N_RANKS, q // N_RANKS
        for s in range(4):
            risk[s * N_RANKS + qr] += 1
        for r in range(max(qr - 2, 0), min(qr + 2, N_RANKS - 1) + 1):
            risk[qs * N_RANKS + r] += 1
    for q in state.discards_by[nxt]:
        if q != JOKER and risk[q] > 0:
            risk[q] -= 1
    if state.opened[nxt]:
        for m in table:
            if m.kind == RUN:
                for e in (m.low - 1, m.low + len(m)):
                    if 0 <= e <= M.ACE_HIGH_EXT:
                        risk[m.suit * N_RANKS + M.ext_rank_to_rank(e)] += 2
            elif m.kind == GROUP and m.low >= 0 and len(m) < 4:
                present = {x // N_RANKS for x in m.reps}
                for s in range(4):
                    if s not in present:
                        risk[s * N_RANKS + m.low] += 2
    return risk


@functools.cache
def three_card_melds(profile_name):
    """Every set of three naturals that is a meld (``melds.declare``): three of one rank, or three of
    one suit; no other three cards can be one."""
    p = profiles.load(profile_name)
    same_rank = [[s * N_RANKS + r for s in suits] for r in range(N_RANKS) for suits in
                 itertools.combinations(range(4), 3)]
    same_suit = [[s * N_RANKS + r for r in ranks] for s in range(4) for ranks in
                 itertools.combinations(range(N_RANKS), 3)]
    return {frozenset(t) for t in same_rank + same_suit if M.declare(t, p) is not None}


def partials_from_melds(left, live, profile):
    """(outs, near) per card, from the three-card melds: outs[c] the live copies of the cards that make a
    meld with loose c and another loose natural, near[c] those of the cards that make one with c and any
    third card."""
    melds = three_card_melds(profile.name)
    naturals = sorted({c for c in left if c != JOKER})
    outs, near = [0] * N_KINDS, [0] * N_KINDS
    for c in naturals:
        completing = {x for y in naturals if y != c for x in range(JOKER) if frozenset((c, y, x)) in melds}
        outs[c] = sum(int(live[x]) for x in completing)
        near[c] = sum(int(live[x]) for x in range(JOKER) if x != c and any(c in m and x in m for m in melds))
    return outs, near


def discard_from_search(bot, state, me, hand, forbid, table):
    """The discard computed from the meld search's Python API, the risks above, the three-card melds
    and the stated tie-break."""
    p = state.profile
    left = MS.analyse_deadwood(hand, p).deadwood_left
    loose = sorted(set(left)) or [c for c in range(N_KINDS) if hand[c] > 0]
    loose = [c for c in loose if c != forbid]
    if not loose:
        return loose_discard(hand, state.values, forbid)
    if len(loose) > 1 and JOKER in loose:  # a joker goes only when nothing else can
        loose.remove(JOKER)
    if len(loose) == 1:
        return loose[0]
    risk = feed_risks_from_lists(state, me, table)
    live = unseen_counts(state, me)
    outs, near = partials_from_melds(left, live, p)
    keep = {c: bot.feed_weight * risk[c] + bot.partial_weight * outs[c] for c in loose}
    if bot.name == "expert":
        score = {}
        for c in loose:
            h = hand.copy()
            h[c] -= 1
            score[c] = MS.fast_search(h, p)[1] + keep[c]
    else:
        weight = int(live.sum())
        ahead = np.rint(outlook(hand, p, loose, live) * weight).astype(np.int64)  # the sums, exactly
        score = {c: ahead[i, 0] - bot.out_bonus * ahead[i, 1] + weight * keep[c] for i, c in enumerate(loose)}
    return min(loose, key=lambda c: (score[c], -state.values[c], outs[c], near[c], -c))


def deadwood_after_taking(bot, state, me, h):
    """The deadwood left after taking the top discard (``h``: the hand with it) and throwing the card the
    discard choice would, feeding risk aside; the least deadwood left by any other card where only the
    taken card or no card is loose."""
    p = state.profile
    top = state.discard_top
    dead = MS.analyse_deadwood(h, p)
    loose = sorted(set(dead.deadwood_left) - {top})
    if len(loose) > 1 and JOKER in loose:
        loose.remove(JOKER)
    if not loose:
        return MS.best_discard(h, p, top)[1]
    outs, near = partials_from_melds(dead.deadwood_left, unseen_counts(state, me), p)
    pen = state.values
    keep = {c: bot.partial_weight * outs[c] for c in loose}
    thrown = min(loose, key=lambda c: (keep[c] - pen[c], -pen[c], outs[c], near[c], -c))
    return dead.min_deadwood - pen[thrown]


def goes_out_drawing(state, me, card, src):
    """Whether ``me`` goes out this turn after drawing ``card`` (from the pile where src is
    DRAW_DISCARD), by the rules alone (``sure_go_out``: melds and lay-offs onto the table)."""
    hands = [cards_str(from_counts(h)) for h in state.hands]
    pile = [cards_str([c]) for c in state.discard[:-1]] if src == DRAW_DISCARD else []
    st = HandState.scripted(state.profile, hands, stock="" if src == DRAW_DISCARD else cards_str([card]),
                            discard=" ".join(pile + [cards_str([card])]) if src == DRAW_DISCARD else "2D",
                            current=me, table=list(state.table), opened=list(state.opened))
    st.turns_taken = list(state.turns_taken)
    st.apply_draw(src)
    return sure_go_out(st, me) is not None


def stock_with_go_outs(state, me, unseen, stock):
    """The weighted stock expectation ``stock`` with every draw that goes out counted as a go-out (no
    deadwood) instead of the least deadwood it would leave."""
    p = state.profile
    for x in np.flatnonzero(unseen):
        if goes_out_drawing(state, me, int(x), DRAW_STOCK):
            h = state.hands[me].copy()
            h[x] += 1
            stock -= int(unseen[x]) * MS.best_discard(h, p, -1)[1]
    return stock


def turns(profile_name, names, n_hands, seed):
    """(state, bots) at every turn of hands played on the Python engine, once after the draw
    (``state.phase == "play"``) and once before it."""
    prof = profiles.load(profile_name)
    for k in range(n_hands):
        bots = [make_bot(b, np.random.default_rng([seed, k, i])) for i, b in enumerate(names)]
        st = HandState(prof, len(bots), k % len(bots), np.random.default_rng([seed, k]))
        while st.result is None:
            st.start_turn()
            if st.result is not None:
                break
            me = st.current
            yield st, bots
            st.apply_draw(bots[me].draw(st, me))
            yield st, bots
            st.apply_play(bots[me].play(st, me))


@pytest.mark.parametrize("name", ["kalooki40", "kalooki51", "scala40"])
def test_compiled_discard_is_the_search_and_risk_choice(name):
    rng = np.random.default_rng(5)
    checked = 0
    for st, bots in turns(name, ["lookahead", "expert", "lookahead", "expert"], 4, 11):
        if st.phase != "play":
            continue
        me = st.current
        nxt = (me + 1) % st.n
        hand = st.hands[me].copy()
        forbid = forbidden_discard(st)
        saved = st.pickups[nxt], st.discards_by[nxt]
        # any record of the next player, repeats and jokers included
        st.pickups[nxt] = rng.integers(0, N_KINDS, rng.integers(0, 12)).tolist()
        st.discards_by[nxt] = rng.integers(0, N_KINDS, rng.integers(0, 12)).tolist()
        for bot in bots[:2]:
            assert bot._choose_discard(st, me, hand, forbid, st.table) == discard_from_search(
                bot, st, me, hand, forbid, st.table)
            checked += 1
        st.pickups[nxt], st.discards_by[nxt] = saved
    assert checked > 100


def test_feed_risk_reads_the_record_as_counts_in_any_order():
    rng = np.random.default_rng(6)
    bot = make_bot("expert", np.random.default_rng(0))
    seen_opened = 0
    for st, _ in turns("kalooki40", ["expert"] * 4, 6, 12):
        me = st.current
        nxt = (me + 1) % st.n
        picks = rng.integers(0, N_KINDS, rng.integers(0, 15)).tolist()
        discards = rng.integers(0, N_KINDS, rng.integers(0, 15)).tolist()
        st.pickups[nxt], st.discards_by[nxt] = picks, discards
        expect = feed_risks_from_lists(st, me, st.table)
        st.pickups[nxt], st.discards_by[nxt] = rng.permutation(picks).tolist(), rng.permutation(discards).tolist()
        assert bot._feed_risks(st, me, st.table) == expect
        seen_opened += bool(st.opened[nxt] and st.table)
    assert seen_opened > 0


@pytest.mark.parametrize("name", ["kalooki40", "kalooki51", "east_coast"])
def test_the_draw_asks_table_opening_only_where_the_table_can_help(name):
    p = profiles.load(name)
    helps = p.joker_take_at_opening or p.layoffs_count_for_opening
    asked = taken_free = meld_at_once = go_outs = 0
    for st, bots in turns(name, ["expert", "lookahead", "expert", "greedy"], 8, 13):
        if st.phase != "draw" or bots[st.current].name == "greedy":
            continue
        me = st.current
        bot = bots[me]
        src = XC.decide_draw(st, me, XC.bot_params(bot))
        assert src in (DRAW_STOCK, DRAW_DISCARD, XC.ASK_TABLE_OPENING)
        if src != DRAW_STOCK:
            assert DRAW_DISCARD in st.legal_draws()
        h = st.hands[me].copy()
        if st.discard:
            h[st.discard_top] += 1
        if src == XC.ASK_TABLE_OPENING:
            asked += 1
            # the one question left to Python: the hand cannot open alone with the discard it must open with
            assert helps and st.discard_obligation(me) == "open" and not MS.can_open(h, p)[0]
            found = table_opening(st, me, h, st.discard_top, st.discard_top) is not None
            assert bot.draw(st, me) == (DRAW_DISCARD if found else DRAW_STOCK)
        elif st.opened[me] and st.discard_obligation(me) is None and st.discard:
            # free to take it: it does when that leaves, after the discard it would then make, the margin
            # less deadwood than a stock draw is expected to (sums over the unseen cards, exactly)
            margin = bot.draw_gain if bot.name == "expert" else bot.take_margin
            unseen = unseen_counts(st, me)
            weight = int(unseen.sum())
            stock = round(outlook(st.hands[me], p, [-1], unseen)[0, 0] * weight)
            after = deadwood_after_taking(bot, st, me, h)
            takes = after * weight <= stock - margin * weight and DRAW_DISCARD in st.legal_draws()
            if (src == DRAW_DISCARD) != takes:  # a go-out: one the discard makes, or the stock draws that do
                if src == DRAW_DISCARD:
                    assert goes_out_drawing(st, me, st.discard_top, DRAW_DISCARD)
                else:
                    stock = stock_with_go_outs(st, me, unseen, stock)
                    assert not after * weight <= stock - margin * weight
                go_outs += 1
            taken_free += src == DRAW_DISCARD
        elif st.discard and st.discard_obligation(me) == "meld":
            # a card to meld at once: taken only when it melds (a new meld or a lay-off) with a card left
            found = meld_taken_card(st, h, st.discard_top) is not None
            assert src == (DRAW_DISCARD if found and DRAW_DISCARD in st.legal_draws() else DRAW_STOCK)
            meld_at_once += found
    assert (asked > 0) == bool(helps)
    assert (taken_free > 0) == (p.discard_pickup != "meld_at_once")  # there a taken card is never free
    assert (meld_at_once > 0) == (p.discard_pickup == "meld_at_once")
