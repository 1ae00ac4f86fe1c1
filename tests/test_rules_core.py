"""The compiled rules of melds and table operations (sim.engine.core) and the engine's use of them:
``melds.check`` and the engine's turn (sim.engine.turn, worded by sim.engine.table) call the same
functions as the compiled hand loops."""
import numpy as np
import pytest

from sim import meldsearch as MS
from sim import melds as M
from sim import profiles
from sim.cards import JOKER, full_deck, parse_cards
from sim.engine import core
from sim.engine.actions import IllegalTurn, LayOff, Split, SwapJoker, Take
from sim.engine.table import apply_ops, try_ops

K40 = profiles.load("kalooki40")


def test_row_layout_and_parameter_words_are_the_meld_search_s():
    assert core.ROW_W == MS.OUT_W
    assert (core.P_EXTV, core.P_HV, core.P_JOKER_MELD_VALUE) == (MS.P_EXTV, MS.P_HV, MS.P_JOKER_MELD_VALUE)


def test_rows_round_trip_and_values_agree():
    rng = np.random.default_rng(0)
    for name in profiles.available():
        p = profiles.load(name)
        for _ in range(40):
            deck = full_deck(p.jokers)
            rng.shuffle(deck)
            counts = np.bincount(deck[:20], minlength=53).astype(np.int8)
            for m in MS.analyse(counts, p).deadwood:
                row = M.row_of(m)
                assert M.meld_of(row) == m
                assert core.check_row(row, core.compiled(p).rules) == core.OK
                assert core.meld_value(row, core.compiled(p).params) == M.value(m, p)


@pytest.mark.parametrize("meld,changes,rule", [
    (M.run(0, 0, parse_cards("AS 2S 3S")), {}, "ace_low"),
    (M.run(0, 0, parse_cards("AS 2S 3S")), dict(ace_low=True), None),
    (M.run(0, 12, parse_cards("KS AS JK")), {}, "run"),  # past the ace
    (M.run(0, 3, [JOKER, JOKER, 4]), dict(max_jokers_per_meld=1), "max_jokers_per_meld"),
    (M.run(0, 3, [JOKER, JOKER, 4]), dict(max_jokers_per_meld=2), None),
    (M.joker_group(3), dict(joker_melds=False), "joker_melds"),
    (M.group(5, parse_cards("7S 7H 7S")), {}, "group"),  # a suit twice
    (M.Meld(M.GROUP, (5, 18, 31), (5, 18, 30), 5), {}, "meld"),  # a natural declared as another card
])
def test_check_names_the_rule(meld, changes, rule):
    reason = M.check(meld, K40.replace(**changes))
    assert (reason is None) if rule is None else reason.startswith(rule + ":"), reason


def random_case(p, rng):
    deck = full_deck(max(p.jokers, 2)).astype(np.int64)
    rng.shuffle(deck)
    counts = np.bincount(deck[:int(rng.integers(8, 30))], minlength=53).astype(np.int8)
    table = list(MS.analyse(counts, p).deadwood)
    if rng.random() < 0.3:  # a group with a joker
        r, s = int(rng.integers(13)), int(rng.integers(4))
        table.append(M.group(r, [s * 13 + r, JOKER, (s + 2) % 4 * 13 + r], [(s + 1) % 4]))
    hand = np.bincount(deck[30:45], minlength=53).astype(np.int8)
    return table, hand


def test_every_accepted_operation_leaves_valid_melds_and_keeps_the_cards():
    # random operations, many of them near-legal; whatever TableWork accepts must leave valid melds
    # (the core's own meld check) and move exactly the cards the operation names
    rng = np.random.default_rng(3)
    accepted = {}
    for name in profiles.available():
        p = profiles.load(name).replace(joker_take_from_run_end=True)
        for _ in range(1500):
            table, hand = random_case(p, rng)
            if not table:
                continue
            i = int(rng.integers(len(table)))
            m = table[i]
            kind = int(rng.integers(4))
            if kind == 0:
                end = int(rng.integers(2))
                if m.kind == M.RUN:
                    e = min(max(m.low - 1 if end == 0 else m.low + len(m), 0), 13)
                    c = (m.reps[0] // 13) * 13 + M.ext_rank_to_rank(e)
                else:
                    c = int(rng.integers(4)) * 13 + max(m.low, 0)
                op = LayOff(i, JOKER if rng.random() < 0.2 else c, end)
            elif kind == 1:
                op = Take(i, int(rng.integers(len(m))))
            elif kind == 2:
                pos = int(rng.integers(3, len(m) - 1)) if len(m) >= 5 else 3
                op = Split(i, m.reps[min(pos, len(m)) - 1], pos)
            else:
                js = [j for j, x in enumerate(m.cards) if x == JOKER] or [0]
                c = m.reps[js[0]] if m.kind == M.RUN else int(rng.integers(4)) * 13 + max(m.low, 0)
                op = SwapJoker(i, js[0], c)
            card = getattr(op, "card", -1)
            if card >= 0:
                hand[card] += 1
            try:
                after, h, freed = apply_ops(table, p, hand, [op])
            except IllegalTurn as e:
                assert e.rule and str(e)
                continue
            accepted[kind] = accepted.get(kind, 0) + 1
            changed = [j for j in range(len(after)) if j >= len(table) or after[j] is not table[j]]
            assert changed and all(after[j] == table[j] for j in range(len(table)) if j not in changed)
            for j in changed:
                assert M.check(after[j], p) is None, (op, after[j])
            before = sum(len(mm) for mm in table) + int(hand.sum())
            assert before == sum(len(mm) for mm in after) + int(h.sum()) + len(freed)
    assert all(accepted.get(k, 0) >= 20 for k in range(4)), accepted


def test_every_code_of_the_compiled_turn_is_worded_for_the_player():
    # each rule the compiled turn (sim.engine.turn) can answer with, for a play of each operation kind,
    # becomes an IllegalTurn naming a rule, never an error of the wording itself
    from sim.engine import turn as T
    from sim.engine.actions import NewMeld
    from sim.engine.table import Turn
    run = M.declare_run(parse_cards("5H 6H 7H 8H"), K40)
    group = M.Meld(M.GROUP, tuple(parse_cards("9C 9D")) + (JOKER,), tuple(parse_cards("9C 9D 9S")), 7)
    ops = {"meld": NewMeld(run), "layoff": LayOff(0, parse_cards("9H")[0]), "take": Take(0, 0),
           "split": Split(0, parse_cards("6H")[0], 2), "swap": SwapJoker(1, 2, parse_cards("9S")[0])}
    hand = np.zeros(53, np.int8)
    subs = {T.U_MELD: core.X_RUN_SHORT, T.U_LAYOFF: core.L_NOT_EXTEND, T.U_TAKE: core.T_NOT_END,
            T.U_SPLIT: core.S_POSITION, T.U_SWAP: core.J_NO_JOKER, T.U_TABLE: core.X_RUN_SHORT}
    codes = [v for k, v in vars(T).items() if k.startswith("U_")]
    assert sorted(codes) == list(range(1, len(codes) + 1))
    # the operations each code can come from (the others: any play)
    source = {T.U_MELD: ["meld"], T.U_LAYOFF: ["layoff"], T.U_RUN_ADD_LIMIT: ["layoff"], T.U_RUN_END_LIMIT: ["layoff"],
              T.U_TAKE: ["take"], T.U_SPLIT: ["split"], T.U_SWAP: ["swap"],
              T.U_NO_MELD: ["layoff", "take", "split", "swap"], T.U_NOT_OPENED: ["layoff", "take", "split"],
              T.U_JOKER_AT_OPENING: ["swap"]}
    rules = set()
    for code in codes:
        for name in source.get(code, list(ops)):
            op = ops[name]
            turn = Turn([run, group], K40, hand, [op])
            turn.play(parse_cards("2C")[0], parse_cards("KS")[0], 1, True, False)  # after taking the discard
            turn.err[:] = (0, subs.get(code, 0), 0)
            e = turn.refusal(code)
            assert isinstance(e, IllegalTurn) and e.rule and str(e), (name, code)
            rules.add(e.rule)
    assert len(rules) >= 15, rules


def test_the_compiled_turn_keeps_a_closed_group_s_joker_for_the_turn():
    # the hand loop's own call (sim.bots.hand_loop): turn.apply_turn on rows, one set of scratch arrays
    # reused from turn to turn, no Python engine in between
    from sim.cards import N_KINDS
    from sim.engine import turn as T
    K51 = profiles.load("kalooki51")
    c = dict(zip("7H 7S 7D 7C 9S 9H 2C KD".split(), parse_cards("7H 7S 7D 7C 9S 9H 2C KD")))
    closed = M.group(5, [c["7H"], c["7S"], c["7D"], JOKER], [3])
    open_group = M.group(5, [c["7S"], c["7D"], JOKER], [3])
    nines = M.row_of(M.group(7, [c["9S"], c["9H"], JOKER], [2]))
    scratch = T.scratch(np.full((T.MAXT, core.ROW_W), -1, np.int64), np.empty(N_KINDS, np.int8))

    def turn(p, group, ops, held):
        tab = np.full((T.MAXT, core.ROW_W), -1, np.int64)
        tab[0] = M.row_of(group)
        xops = np.array(ops + [(T.X_NEW, -1, -1, -1, -1)], np.int64)
        mrows = np.full((len(xops), core.ROW_W), -1, np.int64)
        mrows[-1] = nines
        hand = np.zeros(N_KINDS, np.int8)
        for name in held.split():
            hand[c[name]] += 1
        code = T.apply_turn(tab, 1, hand, xops, mrows, len(xops), c["2C"], c["KD"], T.DRAW_STOCK, True, False,
                            core.rules_array(p), core.compiled(p).params, scratch)
        err = scratch.err
        return code, int(err[T.E_OP]), int(err[T.E_CODE])

    swap40 = (T.X_SWAP, 0, c["7H"], 2, c["7C"])
    swap51 = (T.X_SWAP, 0, c["7C"], 2, -1)
    take = (T.X_TAKE, 0, -1, 0, -1)
    lay_back = (T.X_LAYOFF, 0, c["7H"], core.HIGH, -1)
    refused = (T.U_SWAP, 1, core.J_CLOSED_THIS_TURN)
    assert turn(K40, closed, [take, swap40], "7C 9S 9H 2C KD") == refused
    assert turn(K51, closed, [take, swap51, lay_back], "7C 9S 9H 2C KD") == refused
    # the direct swaps on the three-card group, with the same scratch arrays: nothing carried over
    assert turn(K40, open_group, [swap40], "7H 7C 9S 9H 2C KD")[0] == T.OK
    assert turn(K51, open_group, [swap51, lay_back], "7H 7C 9S 9H 2C KD")[0] == T.OK
    # a card taken off the closed group in one turn: the table the turn leaves holds nothing for the next
    tab = np.full((T.MAXT, core.ROW_W), -1, np.int64)
    tab[0] = M.row_of(closed)
    tab[1] = M.row_of(M.declare_run(parse_cards("4H 5H 6H"), K40))
    hand = np.zeros(N_KINDS, np.int8)
    hand[[c["2C"], c["KD"]]] = 1
    xops = np.array([take, (T.X_LAYOFF, 1, c["7H"], core.HIGH, -1)], np.int64)
    assert T.apply_turn(tab, 2, hand, xops, np.full((2, core.ROW_W), -1, np.int64), 2, c["2C"], c["KD"],
                        T.DRAW_STOCK, True, False, core.rules_array(K40), core.compiled(K40).params, scratch) == T.OK
    wtab = scratch.wtab
    assert M.meld_of(wtab[0]) == M.group(5, [c["7S"], c["7D"], JOKER], [3])
    assert (wtab[:2, core.HOLD] == core.H_NONE).all()
    # the table operations alone, as the bots weigh them (table.apply_ops, try_ops): the same rule
    ops = [Take(0, 0), SwapJoker(0, 2, c["7C"]), LayOff(0, c["7H"])]
    hand = np.zeros(N_KINDS, np.int8)
    hand[c["7C"]] = 1
    with pytest.raises(IllegalTurn) as e:
        apply_ops([closed], K51, hand, ops)
    assert e.value.rule == "joker_from_group" and "closed" in str(e.value)
    assert try_ops([closed], K51, hand, ops) is None
    hand[c["7H"]] = 1
    assert try_ops([open_group], K51, hand, ops[1:]) is not None


def test_every_refused_joker_swap_is_worded_for_the_player():
    from sim.engine import turn as T
    from sim.engine.table import Turn
    group = M.group(5, parse_cards("7S 7D") + [JOKER], [3])
    turn = Turn([group], K40, np.zeros(53, np.int8), [SwapJoker(0, 2, parse_cards("7C")[0])])
    assert turn.table_ops() == T.U_SWAP
    codes = [v for k, v in vars(core).items() if k.startswith("J_")]
    assert sorted(codes) == list(range(core.J_NO_JOKER, core.J_NO_JOKER + len(codes)))
    for code in codes:
        turn.err[:] = (0, code, parse_cards("7C")[0])
        e = turn.refusal(T.U_SWAP)
        assert e.rule in ("joker", "joker_take_from_run_end", "joker_from_group") and str(e), code


def test_the_table_operations_hold_a_closed_group_s_jokers_for_the_turn():
    # the rows the operations leave carry the hold, so whoever chains them (the turn, a bot weighing
    # moves on its working table) meets the same rule
    K51 = profiles.load("kalooki51")
    c = dict(zip("7H 7S 7D 7C".split(), parse_cards("7H 7S 7D 7C")))
    prm = core.compiled(K40).params
    out, out2, out3 = (np.empty(core.ROW_W, np.int64) for _ in range(3))

    def held(row):
        return int(row[core.HOLD])

    for p, swap_with in ((K40, (c["7H"], c["7C"])), (K51, (c["7C"], -1))):
        rules = core.rules_array(p)
        closed = M.row_of(M.group(5, [c["7H"], c["7S"], c["7D"], JOKER], [3]))
        assert held(closed) == core.H_NONE
        assert core.take_row(closed, 0, out) == (core.OK, c["7H"]) and held(out) == core.H_HELD
        assert core.swap_joker_row(out, 2, *swap_with, rules, out2) == (core.J_CLOSED_THIS_TURN, -1)
        # 7H laid back: a closed group again, still held once another card is taken
        assert core.lay_off_row(out, c["7H"], core.HIGH, -1, rules, prm, out2)[0] == core.OK
        assert held(out2) == core.H_HELD
        assert core.take_row(out2, 0, out3)[0] == core.OK and held(out3) == core.H_HELD
        # a group the player closed by a lay-off this turn is open again once a card is taken from it
        open_group = M.row_of(M.group(5, [c["7S"], c["7D"], JOKER], [3]))
        assert core.lay_off_row(open_group, c["7H"], core.HIGH, -1, rules, prm, out)[0] == core.OK
        assert held(out) == core.H_LAID
        assert core.take_row(out, 0, out2) == (core.OK, c["7S"]) and held(out2) == core.H_NONE
        first = c["7S"] if p is K40 else c["7C"]
        assert core.swap_joker_row(out2, 1, first, c["7C"] if p is K40 else -1, rules, out3) == (core.OK, -1)
    # a two-joker group that gives up one joker for both missing suits is closed and held
    rules = core.rules_array(K40)
    two = M.row_of(M.group(5, [c["7S"], JOKER, JOKER], [1, 2]))
    assert core.swap_joker_row(two, 1, c["7H"], c["7C"], rules, out) == (core.OK, -1) and held(out) == core.H_HELD
    assert core.take_row(out, 0, out2)[0] == core.OK
    assert core.swap_joker_row(out2, 2, c["7S"], c["7D"], rules, out3) == (core.J_CLOSED_THIS_TURN, -1)
    # where one card takes a group joker, each swap leaves three cards and nothing is held
    rules = core.rules_array(K51)
    assert core.swap_joker_row(two, 1, c["7H"], -1, rules, out) == (core.OK, -1) and held(out) == core.H_NONE
    assert core.swap_joker_row(out, 2, c["7D"], -1, rules, out2) == (core.OK, -1)
