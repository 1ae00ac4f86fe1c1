"""The compiled hand loop (sim.bots.hand_loop) against its reference, the Python engine: the same hands,
tables, stats and results, hand by hand and game by game, for tables of greedy bots, of patient bots and
of both.  The bots decide in compiled code on both paths (``decide_draw``/``decide_play`` for the
Python engine), so this pins the loop's own part: the deal and the stock, reshuffles, what it checks
of each play (``HandState.apply_play`` is the reference), the statistics and the end of the hand.

Dealt hands cover the ordinary play of every profile; random mid-hand states (small hands, a table
already laid, short stocks) reach the rare branches of the bots (going out around a forbidden
discard, an opening that would use every card, undoing lay-offs to keep a discard, melding a taken
discard at once) and the ends of a hand (reshuffle, void, turn cap).
"""
import numpy as np
import pytest

from sim.bots import hand_loop as HL
from sim.bots.kernels.hands import set_order
from sim import meldsearch as MS
from sim import melds as M
from sim import profiles
from sim.bots import GreedyBot, RandomBot, make_bot
from sim.cards import full_deck
from sim.engine import HandState
from sim.engine import loop as LOOP
from sim.records import ShardSpec, play_shard

PROFILES = profiles.available()
# Hands (or mid-hand states) compared per profile by each test (per table, for the strong and mixed tables):
# enough that each test reaches, in each profile, every line of the Python reference (sim.engine's hand,
# the bots' Python side) that larger sizes (up to 2.5 times these) reach: among them the cut joker's deal
# (east_coast), reshuffles and a void stock.
SIZES = dict(seat_keyed_dealt=48, seat_keyed_midhand=60, strong_dealt=24, strong_midhand=36, dealt=150, midhand=60,
             variant=48)


def snapshot(st: HandState) -> dict:
    r = st.result
    return dict(hands=st.hands.tolist(), opened=list(st.opened), stats=[dict(d) for d in st.stats],
                turns_taken=list(st.turns_taken), reshuffles=st.reshuffles, turn_no=st.turn_no, phase=st.phase,
                current=st.current, table=[(m.kind, m.cards, m.reps, m.low) for m in st.table],
                stock=list(st.stock), stock_ids=st.stock_ids and list(st.stock_ids), discard=list(st.discard),
                result=(r.winner, r.win_type, r.void, r.stalled, r.penalties, r.cards_left, r.jokers_left))


def table(st: HandState, kinds=None) -> list:
    """The bots of a table: all greedy, or by name (bots with a compiled hand loop) in hand-position order
    (the random bot's generator seeded by its position)."""
    if kinds is None:
        return [GreedyBot() for _ in range(st.n)]
    return [make_bot(k, np.random.default_rng([7, i])) for i, k in enumerate(kinds)]


def play_python(st: HandState, kinds=None):
    saved = LOOP.COMPILED
    LOOP.COMPILED = False
    try:
        LOOP.play_hand(st, table(st, kinds), list(range(st.n)))
    finally:
        LOOP.COMPILED = saved


def all_cards(st: HandState) -> list:
    counts = st.hands.sum(axis=0).astype(np.int64) + st.table_counts()
    for c in st.stock + st.discard:
        counts[c] += 1
    return counts.tolist()


def play_fast(st: HandState, kinds=None):
    bots = table(st, kinds)
    if st.profile.dealer_upcard_swap:  # as sim.engine.loop.play_hand does first
        swap = bots[st.dealer].dealer_swap(st, st.dealer)
        if swap is not None:
            st.dealer_swap(swap)
    loop = HL.table_loop(bots)
    assert loop.can_play_fast(st)
    before = all_cards(st)
    assert loop.play_hand_fast(st) is not None, "the fast path found a play that breaks a rule"
    assert all_cards(st) == before, "the fast path lost or made cards"
    for m in st.table:
        assert M.check(m, st.profile) is None, f"invalid table meld {m}"
    if st.total_cards() == st.profile.deck_size:
        st.check_invariants()
    assert (st.hands >= 0).all() and st.phase == "over" and st.result is not None


def assert_same(a: HandState, b: HandState, what: str):
    sa, sb = snapshot(a), snapshot(b)
    diff = [k for k in sa if sa[k] != sb[k]]
    assert not diff, f"{what}: fast path differs in {diff}: python {[sa[k] for k in diff]} fast {[sb[k] for k in diff]}"


def compare_dealt(prof, n, hands, seed, kinds=None):
    summary = dict(wins=0, kalookis=0, void=0, stalled=0, reshuffles=0)
    for h in range(hands):
        a = HandState(prof, n, h % n, np.random.default_rng([seed, h]))
        b = HandState(prof, n, h % n, np.random.default_rng([seed, h]))
        play_python(a, kinds)
        play_fast(b, kinds)
        assert_same(a, b, f"{prof.name} {n} players, hand {h}")
        r = a.result
        summary["wins"] += r.winner >= 0
        summary["kalookis"] += r.win_type == "kalooki"
        summary["void"] += r.void
        summary["stalled"] += r.stalled
        summary["reshuffles"] += a.reshuffles
    return summary


@pytest.mark.parametrize("name", PROFILES)
def test_seat_keyed_stocks_match_python(name):
    # duplicate tournaments draw from a seat-keyed stock (sim.engine): the kernel takes the
    # same card as HandState._pop_stock and leaves the stock in the same order, reshuffles included
    prof = profiles.load(name)
    reshuffled = 0
    for h in range(SIZES["seat_keyed_dealt"]):
        n = 2 + h % 3
        seats = [int(s) for s in np.random.default_rng(h).permutation(6)[:n]]  # positions are game seats
        a = HandState(prof, n, h % n, np.random.default_rng([7, h]), draw_seats=seats)
        b = HandState(prof, n, h % n, np.random.default_rng([7, h]), draw_seats=seats)
        play_python(a)
        play_fast(b)
        assert_same(a, b, f"{name} seat-keyed, {n} players, hand {h}")
    rng = np.random.default_rng(zlib_seed(name) + 1)
    # short stocks: the reshuffled stock gets the second generation of keys
    for i in range(SIZES["seat_keyed_midhand"]):
        n = int(rng.integers(prof.min_players, prof.max_players + 1))
        st = random_midhand(prof, n, rng)
        st.draw_seats = [int(s) for s in rng.permutation(6)[:n]]
        st.draw_keys = rng.random((2, 6, prof.deck_size))
        st.stock_ids = [int(x) for x in rng.permutation(prof.deck_size)[:len(st.stock)]]
        a, b = _copy(st), _copy(st)
        play_python(a)
        play_fast(b)
        assert_same(a, b, f"{name} seat-keyed mid-hand state {i}")
        reshuffled += a.reshuffles
    assert reshuffled > 0


def test_every_table_of_compiled_bots_plays_compiled_in_every_profile():
    for name in PROFILES:
        prof = profiles.load(name)
        for bot in ("greedy", "patient", "expert", "lookahead", "random"):
            st = HandState(prof, prof.players, 0, np.random.default_rng(0))
            assert HL.table_loop(table(st, [bot] + ["greedy"] * (prof.players - 1))).can_play_fast(st)


STRONG = ("patient", "expert", "lookahead", "random")


@pytest.mark.parametrize("name", PROFILES)
def test_strong_and_mixed_tables_match_python(name):
    # every bot that plays compiled, alone and mixed: the expert's harvests, splits and joker swaps,
    # the lookahead's judgement over the unseen cards, the discard choices that read the public record
    prof = profiles.load(name)
    n = prof.players
    for kinds, seed in ((["patient"] * n, 31), (["expert"] * n, 33), (["random"] * n, 34),
                        ((["lookahead", "expert", "patient", "random"] * 2)[:n], 32)):
        compare_dealt(prof, n, SIZES["strong_dealt"], seed, kinds)
    rng = np.random.default_rng(zlib_seed(name) + 2)
    for i in range(SIZES["strong_midhand"]):
        k = int(rng.integers(prof.min_players, prof.max_players + 1))
        st = random_midhand(prof, k, rng)
        kinds = [(("greedy",) + STRONG)[int(x)] for x in rng.integers(0, 5, k)]
        a, b = _copy(st), _copy(st)
        play_python(a, kinds)
        play_fast(b, kinds)
        assert_same(a, b, f"{name} mid-hand state {i}, {kinds}")


def test_patients_hold_where_greedy_opens():
    # the patient's own decisions are in play in the compiled loop: on the same deals, a table of
    # patients opens later and goes out by Kalooki more often than a table of greedy bots
    prof = profiles.load("kalooki40")
    rounds = {"greedy": [], "patient": []}
    kalookis = {"greedy": 0, "patient": 0}
    for h in range(120):
        for kind in rounds:
            st = HandState(prof, 4, h % 4, np.random.default_rng([41, h]))
            play_fast(st, [kind] * 4)
            rounds[kind] += [d["open_round"] for d in st.stats if d["open_round"] is not None]
            kalookis[kind] += st.result.win_type == "kalooki"
    assert np.mean(rounds["patient"]) > np.mean(rounds["greedy"])
    assert kalookis["patient"] > kalookis["greedy"]


def test_set_order_mirrors_cpython_sets():
    rng = np.random.default_rng(0)
    out = np.empty(53, np.int64)
    for _ in range(3000):
        k = int(rng.integers(0, 54))
        cards = np.sort(rng.choice(53, size=k, replace=False)).astype(np.int64)
        chosen = set(cards.tolist())
        expect = list({c for c in range(53) if c in chosen})
        m = set_order(cards, k, out)
        assert out[:m].tolist() == expect


@pytest.mark.parametrize("name", PROFILES)
def test_dealt_hands_match_python(name):
    prof = profiles.load(name)
    counts = sorted({prof.min_players, prof.players, prof.max_players})
    total = dict(wins=0, void=0)
    for n in counts:
        s = compare_dealt(prof, n, SIZES["dealt"] // len(counts), seed=20 + n)
        total["wins"] += s["wins"]
        total["void"] += s["void"]
    assert total["wins"] > 0


@pytest.mark.parametrize("name,changes", [
    ("kalooki40", dict(run_add_limit="two_total", run_end_limit=1)),
    ("kalooki40", dict(stock_exhausted="void")),
    ("kalooki40", dict(first_round_free_draw=False, go_out_first_round=False)),
    ("kalooki40", dict(kalooki_exempt_from_minimum=True, opening_min=70)),
    ("kalooki40", dict(turn_cap=30)),
    ("kalooki40", dict(discard_pickup="meld_at_once")),
    ("kalooki51", dict(joker_penalty=0, kalooki_double_penalty=True, max_jokers_per_meld=2, joker_melds=True)),
    ("east_coast", dict(discard_pickup_before_opening=False, layoffs_count_for_opening=False)),
    ("scala40", dict(opening_min=0)),
])
def test_rule_variants_match_python(name, changes):
    prof = profiles.load(name).replace(**changes)
    s = compare_dealt(prof, prof.players, SIZES["variant"], seed=7)
    if "turn_cap" in changes:
        assert s["stalled"] > 0
    if changes.get("stock_exhausted") == "void":
        assert s["void"] > 0 and s["reshuffles"] == 0


def random_midhand(prof, n, rng) -> HandState:
    """A state at the start of a turn: a table of valid melds, small hands, a short stock."""
    deck = full_deck(prof.jokers).astype(np.int64)
    rng.shuffle(deck)
    pos = 0
    table = []
    t = int(rng.integers(0, 19))
    if t:
        counts = np.bincount(deck[:t], minlength=53).astype(np.int8)
        res = MS.analyse(counts, prof)
        table = list(res.deadwood)
        left = res.deadwood_left
        deck = np.concatenate([deck[t:], np.array(left, dtype=np.int64)])
        rng.shuffle(deck)
    st = HandState.scripted(prof, [""] * n, rng=rng)
    for s in range(n):
        k = int(rng.integers(1, 9))
        for c in deck[pos:pos + k]:
            st.hands[s, c] += 1
        pos += k
    k = int(rng.integers(1, 8))
    st.discard = [int(c) for c in deck[pos:pos + k]]
    pos += k
    stock = [int(c) for c in deck[pos:]]
    st.stock = stock
    st.table = table
    st.opened = [bool(rng.random() < 0.6) for _ in range(n)]
    st.turns_taken = [int(rng.integers(1, 4)) if o else int(rng.integers(0, 3)) for o in st.opened]
    for s in range(n):
        if st.opened[s]:
            st.stats[s].update(open_round=st.turns_taken[s], open_value=prof.opening_min)
    st.current = int(rng.integers(n))
    st.dealer = (st.current - 1) % n
    st.reshuffles = int(rng.random() < 0.3)
    st.turn_no = int(rng.integers(0, 10))
    st.check_invariants()
    return st


@pytest.mark.parametrize("name", PROFILES)
def test_midhand_states_match_python(name):
    prof = profiles.load(name)
    rng = np.random.default_rng(zlib_seed(name))
    for i in range(SIZES["midhand"]):
        n = int(rng.integers(prof.min_players, prof.max_players + 1))
        st = random_midhand(prof, n, rng)
        a = _copy(st)
        b = _copy(st)
        play_python(a)
        play_fast(b)
        assert_same(a, b, f"{name} mid-hand state {i}")


def zlib_seed(name):
    import zlib
    return zlib.crc32(name.encode())


def _copy(st: HandState) -> HandState:
    import copy
    c = copy.copy(st)
    c.hands = st.hands.copy()
    c.table = list(st.table)
    c.stock = list(st.stock)
    c.stock_ids = st.stock_ids and list(st.stock_ids)
    c.discard = list(st.discard)
    c.opened = list(st.opened)
    c.turns_taken = list(st.turns_taken)
    c.stats = [dict(d) for d in st.stats]
    c.pickups = [list(x) for x in st.pickups]
    c.discards_by = [list(x) for x in st.discards_by]
    return c


@pytest.mark.parametrize("name", PROFILES)
def test_whole_games_give_the_same_tables(name, monkeypatch):
    prof = profiles.load(name)
    spec = ShardSpec(prof, ["greedy"] * prof.players, seed=3, first_game=0, n_games=2)
    calls = []
    orig = HL.play_hand_fast

    def counting(state, *bots):
        calls.append(1)
        return orig(state, *bots)

    monkeypatch.setattr(HL, "play_hand_fast", counting)
    fast = play_shard(spec)
    assert calls, "the fast path was not used for an all-greedy shard"
    monkeypatch.setattr(LOOP, "COMPILED", False)
    n_calls = len(calls)
    slow = play_shard(spec)
    assert len(calls) == n_calls
    assert fast["hands"].equals(slow["hands"]) and fast["games"].equals(slow["games"])


def test_only_unwatched_hands_of_plain_bots_take_the_fast_path(monkeypatch):
    calls = []
    monkeypatch.setattr(HL, "play_hand_fast", lambda state, *bots: calls.append(1))
    prof = profiles.load("kalooki40")
    rng = np.random.default_rng(1)
    # a bot with parameters of its own plays turn by turn; so do watched and recorded hands
    LOOP.play_hand(HandState(prof, 4, 0, rng), [GreedyBot()] * 3 + [RandomBot(np.random.default_rng(2), extra=1)],
                   list(range(4)))
    LOOP.play_hand(HandState(prof, 4, 0, rng), [GreedyBot()] * 4, list(range(4)), on_turn=lambda st: None)
    LOOP.play_hand(HandState(prof, 4, 0, rng, record=True), [GreedyBot()] * 4, list(range(4)))
    assert not calls
    # a refusal (None) from the fast path leaves the hand to the Python path
    st = HandState(prof, 4, 0, rng)
    res = LOOP.play_hand(st, [GreedyBot()] * 4, list(range(4)))
    assert calls == [1] and res is st.result and st.phase == "over"


def _scripted(name, hands, stock, discard, opened, turns, table=(), changes=None):
    prof = profiles.load(name)
    if changes:
        prof = prof.replace(**changes)
    st = HandState.scripted(prof, hands, stock=stock, discard=discard, current=0, opened=opened, table=table,
                            rng=np.random.default_rng(5))
    st.turns_taken = list(turns)
    return st


def _first_play(st: HandState):
    """The reference's first turn (seat, source, card, Play), played on the Python path."""
    a = _copy(st)
    seen = []
    LOOP.play_hand(a, [GreedyBot() for _ in range(a.n)], list(range(a.n)),
                on_turn=lambda s: seen.append(s.last_turn) if not seen else None)
    return seen[0]


# rare branches of GreedyBot.play, each set up by hand; the expected first turn pins that the branch
# is reached, then the whole rest of the hand is compared
SCENARIOS = {
    # meld_at_once: the taken ace is go_out's first choice of discard but may not be discarded: go out with AD
    "go_out_around_forbidden_discard": (
        dict(name="east_coast", hands=["AS AH AD KS KH KC", "2C 5S 9H 3D 7D"], stock="4C 6H 8S TD JC QS 2D 3H",
             discard="5D AC", opened=[True, True], turns=[2, 2]),
        lambda t: t[1] == 1 and t[2] == 51 and t[3].discard == 38 and len(t[3].ops) == 2),
    # every card melds but nothing could be discarded after them: lay the melds left by the best discard
    "melds_leave_no_discard": (
        dict(name="kalooki40", hands=["7S 7H 7D 8S 8H", "2C 5S 9H 3D JD"], stock="8D 4C 6H 8C TD JC QS 2D 3H 4H",
             discard="2C", opened=[True, True], turns=[2, 2]),
        lambda t: t[1] == 0 and len(t[3].ops) == 1),
    # three 2s with nothing left to discard: the 2D on the pile is not taken
    "no_take_without_a_discard_left": (
        dict(name="kalooki40", hands=["2H 2S", "2C 9D"], stock="KD QC 4H 6S 8C TD JC QS 2D 3H 4C",
             discard="5C 2D", opened=[True, True], turns=[5, 5]),
        lambda t: t[1] == 0 and t[2] == 37),
    # no going out in the first round: keep two cards, so the last opening meld is taken back
    "repair_takes_back_a_meld": (
        dict(name="scala40", hands=["QS QH QD KS KH KD 5C 6C 7C", "2C 5S 9H 3D JD"],
             stock="9D 4C 6H 8C TD JC QS 2D 3H 4H", discard="2H", opened=[False, False], turns=[0, 0]),
        lambda t: t[2] == 33 and len(t[3].ops) == 2),
}


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_rare_branches_match_python(scenario):
    setup, expect = SCENARIOS[scenario]
    st = _scripted(**setup)
    assert expect(_first_play(st)), _first_play(st)
    a, b = _copy(st), _copy(st)
    play_python(a)
    play_fast(b)
    assert_same(a, b, scenario)


def test_no_lay_off_past_the_ace():
    from sim.melds import run
    # a run 2S..AS: a low ace would make K-A-2; the player's second AS stays in hand
    table = [run(0, 1, range(0, 13))]
    st = _scripted("kalooki51", ["AS 5D 9C", "2C 5S 9H 3D JD"], stock="4C 6H 8C TD JC QS 2D 3H 4H 7H",
                   discard="8H", opened=[True, True], turns=[2, 2], table=table)
    a, b = _copy(st), _copy(st)
    play_python(a)
    play_fast(b)
    assert_same(a, b, "run to the ace")


def test_environment_switch_forces_the_python_path():
    import os
    import subprocess
    import sys
    env = dict(os.environ, KALOOKI_PYTHON_ENGINE="1")
    out = subprocess.run([sys.executable, "-c", "import sim.engine.loop as g; print(g.COMPILED)"], env=env,
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
