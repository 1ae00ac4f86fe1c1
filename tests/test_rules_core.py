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
from sim.engine.table import apply_ops

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
                row = core.row_of(m)
                assert core.meld_of(row) == m
                assert core.check_row(row, core.rules_for(p)) == core.OK
                assert core.meld_value(row, MS.params_of(p)) == M.value(m, p)


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
