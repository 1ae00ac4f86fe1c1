"""The equity tables (sim.equity, docs/EQUITY.md): the compiled game rules against sim.game.Ledger, the
compiled lookup against a plain-Python interpolation, the values monotone where the rules make them so,
the stakes interface's invariants, the build command's refusals and records, and calibration:
predicted value against the outcome of games the table was not made from."""
import itertools
import subprocess
from pathlib import Path

import numpy as np
import pytest

from analysis.stats import bonferroni_z
from sim import equity as EQ
from sim import sheet as SH
from sim import profiles
from sim.bots import make_bot
from sim.commands.equity import calibration_bins, overall_test, play_points, play_single_points
from sim.engine import HandResult
from sim.game import Ledger

K40 = profiles.load("kalooki40")
TOL = 1e-5  # the tables are stored in single precision
K51 = profiles.load("kalooki51")
EAST = profiles.load("east_coast")


# ---- the compiled rules against the Ledger

def _random_ledger(p, n, rng):
    lg = Ledger(p, n)
    if p.game_end == "elimination":
        lg.in_game = [bool(rng.random() < 0.8) for _ in range(n)]
        if sum(lg.in_game) < 2:
            lg.in_game[:2] = [True, True]
        lg.totals = [int(rng.integers(0, p.eliminate_above + 1)) if lg.in_game[s] else int(rng.integers(151, 300))
                     for s in range(n)]
        lg.buy_ins = [int(rng.integers(0, p.max_buy_ins + 1)) for _ in range(n)]
        extra = p.stake_buy_in * sum(lg.buy_ins) + int(rng.integers(0, 10))  # at least what the buy-ins paid in
        lg.pool += extra
        lg.pool_collected += extra
    else:
        lg.totals = [int(rng.integers(0, p.target_score)) for _ in range(n)]
    lg.hands_played = int(rng.integers(0, p.hand_cap))
    return lg


def _random_hand(n, rng, in_game):
    players = [s for s in range(n) if in_game[s]]
    w = int(rng.choice(players)) if rng.random() > 0.05 else -1
    pen = [0 if s == w else int(rng.integers(0, 160)) for s in range(n)]
    cards = [0 if s == w else int(rng.integers(1, 14)) for s in range(n)]
    jokers = [min(c, int(rng.integers(0, 3))) for c in cards]
    kind = "kalooki" if rng.random() < 0.2 else "call"
    return HandResult(winner=w, win_type=kind if w >= 0 else None, stalled=w < 0, penalties=pen, cards_left=cards,
                      jokers_left=jokers)


def _sheet_arrays_of(lg):
    """A Ledger's sheet as record_hand's arrays: totals, in_game, buy-ins, balances, the scalars."""
    sc = np.zeros(SH.C_WORDS)
    sc[SH.C_POOL], sc[SH.C_HANDS] = lg.pool, lg.hands_played
    return (np.array(lg.totals, dtype=np.float64), np.array(lg.in_game, dtype=np.bool_),
            np.array(lg.buy_ins, dtype=np.int64), np.array(lg.balances, dtype=np.float64), sc)


def _hand_arrays(res):
    """A HandResult as record_hand's arguments after the sheet's."""
    return (res.winner, res.win_type == "kalooki", np.array(res.penalties, dtype=np.float64),
            np.array(res.cards_left, dtype=np.float64), np.array(res.jokers_left, dtype=np.float64))


@pytest.mark.parametrize("name, n", [("kalooki40", 4), ("scala40", 3), ("kalooki51", 4), ("east_coast", 5),
                                     ("swedish", 6)])
def test_compiled_rules_match_the_ledger_on_random_sheets(name, n):
    """record_hand (with the pool rule) against Ledger.record_hand with the expert deciding by the pool rule."""
    p = profiles.load(name)
    rng = np.random.default_rng(44)
    expert = make_bot("expert", np.random.default_rng(0), {"buy_in": 0})
    r = SH.rules_vector(p, n, SH.DECIDE_POOL_RULE)
    for _ in range(1000):
        lg = _random_ledger(p, n, rng)
        if rng.random() < 0.05:
            lg.hands_played = p.hand_cap - 1  # the hand cap
        res = _random_hand(n, rng, lg.in_game)
        totals, in_game, buys, balances, sc = _sheet_arrays_of(lg)
        SH.record_hand(r, totals, in_game, buys, balances, sc, *_hand_arrays(res))
        lg.record_hand(res, lambda s, ledger: expert.buy_in(ledger, s))
        where = f"{name}: {res}"
        assert totals.tolist() == lg.totals, where
        assert in_game.tolist() == lg.in_game, where
        assert buys.tolist() == lg.buy_ins, where
        assert balances.tolist() == lg.balances, where
        assert (sc[SH.C_POOL], bool(sc[SH.C_OVER]), bool(sc[SH.C_STALLED])) == (lg.pool, lg.over, lg.stalled), where
        if lg.over:
            assert sc[SH.C_WINNER] == lg.winner, where


def test_buy_ins_by_the_table_inside_the_model_match_the_ledger(k40):
    """The games a build plays on for a bot buying in by the table (``_record_hand_by_table``) apply a
    hand as Ledger.record_hand does with every buy-in decided by ``buy_in_gain`` on the same table; some
    buy-ins are taken and some declined."""
    rng = np.random.default_rng(45)
    r = SH.rules_vector(K40, 4, SH.DECIDE_POOL_RULE)
    taken = declined = 0
    for _ in range(1000):
        lg = _random_ledger(K40, 4, rng)
        res = _random_hand(4, rng, lg.in_game)
        totals, in_game, buys, balances, sc = _sheet_arrays_of(lg)
        EQ._record_hand_by_table(r, totals, in_game, buys, balances, sc, *_hand_arrays(res), k40.pf, k40.grid)
        offered = []
        lg.record_hand(res, lambda s, ledger: offered.append(EQ.buy_in_gain(K40, ledger, s, k40) > 0) or offered[-1])
        taken, declined = taken + sum(offered), declined + len(offered) - sum(offered)
        where = f"{res}"
        assert totals.tolist() == lg.totals and in_game.tolist() == lg.in_game, where
        assert buys.tolist() == lg.buy_ins and balances.tolist() == lg.balances, where
        assert (sc[SH.C_POOL], bool(sc[SH.C_OVER])) == (lg.pool, lg.over), where
        if lg.over:
            assert sc[SH.C_WINNER] == lg.winner, where
    assert taken > 20 and declined > 20, (taken, declined)


@pytest.mark.parametrize("value, decider", [(0.0, SH.DECIDE_NEVER), (1e6, SH.DECIDE_ALWAYS)])
def test_a_table_that_never_or_always_pays_a_buy_in_applies_the_sheet_rules_as_never_or_always(value, decider):
    """Buy-ins by a table whose every value is ``value`` (0: the stake is never won back; huge: always)
    change a sheet exactly as record_hand does with buy-ins never or always taken."""
    rng = np.random.default_rng(46)
    table = EQ.load_table(K40)
    pf = np.full_like(table.pf, 0.0)
    pf[..., 1] = value  # F: the money beside pool * P
    for _ in range(300):
        lg = _random_ledger(K40, 4, rng)
        res = _random_hand(4, rng, lg.in_game)
        a, b = _sheet_arrays_of(lg), _sheet_arrays_of(lg)
        EQ._record_hand_by_table(SH.rules_vector(K40, 4), *a, *_hand_arrays(res), pf, table.grid)
        SH.record_hand(SH.rules_vector(K40, 4, decider), *b, *_hand_arrays(res))
        for x, y in zip(a, b):
            assert np.array_equal(x, y), res


def test_the_pool_rule_is_the_experts_by_its_setting():
    rng = np.random.default_rng(3)
    expert = make_bot("expert", np.random.default_rng(0), {"buy_in": 0})
    for _ in range(300):
        lg = _random_ledger(K40, 4, rng)
        seat = int(rng.integers(4))
        lg.in_game[seat] = False
        assert SH.pool_rule_buys(float(lg.pool), len(lg.players_in()), K40.stake_buy_in) == expert.buy_in(lg, seat)


# ---- the shipped tables

@pytest.fixture(scope="module")
def k40():
    table = EQ.load_table(K40)
    assert table is not None, "configs/equity holds no kalooki40 table: `make equity`"
    return table


@pytest.fixture(scope="module")
def k51():
    table = EQ.load_table(K51)
    assert table is not None, "configs/equity holds no kalooki51 table: `make equity`"
    return table


def test_every_shipped_profile_has_a_table_recording_how_it_was_made():
    for name in profiles.available():
        p = profiles.load(name)
        table = EQ.load_table(p)
        assert table is not None, name
        meta = table.meta
        assert meta["profile"] == name and meta["rules_hash"] == p.rules_hash() and meta["players"] == p.players
        assert meta["command"].startswith(f"kalooki equity build --profile {name} ")
        for key in ("seed", "hands", "hands_played", "engine_version", "built", "bot"):
            assert key in meta, (name, key)
        assert table.scale > 0, name


def test_every_shipped_table_records_the_command_its_make_target_runs():
    """``make equity-P`` (dry run) runs, for every shipped profile, the command its table records."""
    root = Path(__file__).resolve().parent.parent
    for name in profiles.available():
        out = subprocess.run(["make", "-n", f"equity-{name}"], cwd=root, capture_output=True, text=True,
                             check=True).stdout
        line = next(ln for ln in out.splitlines() if " equity build " in ln)
        command = "kalooki " + line.split("/kalooki ", 1)[1].replace(" --force", "")
        assert command == EQ.load_table(profiles.load(name)).meta["command"], name


def test_a_table_is_for_its_rules_and_player_count():
    assert EQ.load_table(K40.replace(eliminate_above=120)) is None
    assert EQ.load_table(K40, 3) is None
    lg = Ledger(K40, 3)
    assert np.array_equal(EQ.hand_stakes(K40, lg), EQ.neutral_stakes(3))
    assert EQ.buy_in_gain(K40, lg, 0) == 0.0


def _python_value(table, totals, in_game, left, pool, seat):
    """Seat's value by plain Python: the others sorted, the 2^(m+1) corners of the cell weighted."""
    K, base = table.K, table.K + 1
    grid = table.grid

    def cell(t):
        t = min(max(t, grid[0]), grid[-1])
        i = min(int(np.searchsorted(grid, t, side="right")) - 1, K - 2)
        return i, (t - grid[i]) / (grid[i + 1] - grid[i])

    elim = table.kind == EQ.KIND_ELIMINATION
    others = [s for s in range(table.n) if s != seat and (in_game[s] or not elim)]
    ob = min(sum(left[s] for s in others), table.P.shape[2] - 1)
    bl = min(left[seat], table.P.shape[1] - 1)
    axes = [cell(totals[seat])] + [cell(totals[s]) for s in others]
    value = 0.0
    for ups in itertools.product((0, 1), repeat=len(axes)):
        w = np.prod([wt if u else 1 - wt for (i, wt), u in zip(axes, ups)])
        idx = [i + u for (i, _), u in zip(axes, ups)]
        opp = sorted(idx[1:]) + [K] * (table.n - 1 - len(others))
        flat = sum(v * base ** j for j, v in enumerate(opp))
        value += w * (pool * table.P[idx[0], bl, ob, flat] + table.F[idx[0], bl, ob, flat])
    return value


def test_the_compiled_lookup_agrees_with_plain_python(k40, k51):
    rng = np.random.default_rng(5)
    for p, table in ((K40, k40), (K51, k51)):
        for _ in range(300):
            lg = _random_ledger(p, 4, rng)
            totals, in_game, left, pool, _ = EQ._sheet_arrays(lg)
            for seat in lg.players_in() if p.game_end == "elimination" else range(4):
                if p.game_end == "elimination" and len(lg.players_in()) == 1:
                    continue
                got = EQ.sheet_value(p, lg, seat, table)
                want = _python_value(table, totals, in_game, left, pool, seat)
                assert got == pytest.approx(want, abs=1e-9), (lg.totals, lg.in_game, seat)


def test_penalty_game_values_are_monotone_and_a_seat_out_has_none(k40):
    """Where no seat has a buy-in left the value does not rise with the seat's own total nor fall with
    another's (with one left a seat re-enters at the highest total of those in, so the rules make it
    neither: docs/EQUITY.md, Monotone)."""
    rng = np.random.default_rng(6)
    for _ in range(200):
        lg = _random_ledger(K40, 4, rng)
        lg.pool += K40.stake_buy_in * (4 * K40.max_buy_ins - sum(lg.buy_ins))  # the pool holds every buy-in paid
        lg.buy_ins = [K40.max_buy_ins] * 4
        seats = lg.players_in()
        if len(seats) < 2:
            continue
        seat, other = seats[0], seats[1]
        base = EQ.sheet_value(K40, lg, seat, k40)
        lg.totals[seat] = min(150, lg.totals[seat] + int(rng.integers(1, 40)))
        assert EQ.sheet_value(K40, lg, seat, k40) <= base + TOL  # non-increasing in its own total
        mine = EQ.sheet_value(K40, lg, seat, k40)
        lg.totals[other] = min(150, lg.totals[other] + int(rng.integers(1, 40)))
        assert EQ.sheet_value(K40, lg, seat, k40) >= mine - TOL  # non-decreasing in another's total
        lg.in_game[other] = False
        assert EQ.sheet_value(K40, lg, other, k40) == 0.0  # out of the game: nothing more paid or won
    lg = Ledger(K40, 4)
    lg.in_game = [True, False, False, False]
    assert EQ.sheet_value(K40, lg, 0, k40) == lg.pool  # the last one in takes the pool
    assert EQ.sheet_chance(K40, lg, 0, k40) == 1.0


def test_the_seats_values_add_up_to_what_the_sheet_holds(k40):
    """From any sheet exactly one seat wins the game and the pool goes to it: the seats' chances sum to 1
    and their values to the pool, within the tables' Monte Carlo and grid error (exact on a fresh sheet)."""
    rng = np.random.default_rng(9)
    chances, values = [], []
    for _ in range(200):
        lg = _random_ledger(K40, 4, rng)
        seats = lg.players_in()
        chances.append(sum(EQ.sheet_chance(K40, lg, s, k40) for s in seats))
        values.append(sum(EQ.sheet_value(K40, lg, s, k40) for s in seats) / lg.pool)
    # measured: chances sum to 0.983 on average, 90% of sheets within 0.050 of 1, values to 0.991 of the
    # pool (docs/EQUITY.md; what is left is the others' buy-ins taken as their sum)
    assert abs(np.mean(chances) - 1) < 0.04 and abs(np.mean(values) - 1) < 0.04
    assert np.percentile(np.abs(np.array(chances) - 1), 90) < 0.1
    fresh = Ledger(K40, 4)
    assert sum(EQ.sheet_chance(K40, fresh, s, k40) for s in range(4)) == pytest.approx(1.0)
    assert sum(EQ.sheet_value(K40, fresh, s, k40) for s in range(4)) == pytest.approx(fresh.pool)


def _sheet_with(p, n_in, rng, left):
    """A kalooki40 sheet at 4 seats with ``n_in`` of them in (at random), their totals uniform over
    0..eliminate_above and ``left`` buy-ins left each; the seats in."""
    lg = Ledger(p, 4)
    seats = sorted(int(s) for s in rng.choice(4, n_in, replace=False))
    lg.in_game = [s in seats for s in range(4)]
    lg.totals = [int(rng.integers(0, p.eliminate_above + 1)) if lg.in_game[s] else p.eliminate_above + 50
                 for s in range(4)]
    lg.buy_ins = [p.max_buy_ins - left if lg.in_game[s] else 0 for s in range(4)]
    lg.pool += p.stake_buy_in * sum(lg.buy_ins)
    return lg, seats


@pytest.mark.parametrize("n_in", [2, 3, 4])
def test_the_chances_of_the_seats_in_sum_to_one_at_each_count_of_players_in(k40, n_in):
    """Exactly one seat wins a kalooki40 game (the winner of a hand is never eliminated by it, and the hand
    cap ends the game with the lowest total in as its winner), so the chances of the seats in sum to 1.
    On sheets where the seats in have as many buy-ins left each (the table's others' buy-ins, a sum spread
    evenly, are then exact): at two players in exactly (the games played on from (a; b) and (b; a) are the
    same games), at three and four within the Monte Carlo's error, on average over 150 sheets."""
    rng = np.random.default_rng(12)
    sums = []
    for i in range(150):
        lg, seats = _sheet_with(K40, n_in, rng, i % (K40.max_buy_ins + 1))
        sums.append(sum(EQ.sheet_chance(K40, lg, s, k40) for s in seats))
    sums = np.array(sums)
    if n_in == 2:
        assert np.abs(sums - 1).max() < 1e-4, sums
    else:
        assert abs(sums.mean() - 1) < 0.025, sums.mean()
        assert np.percentile(np.abs(sums - 1), 90) < 0.08, np.percentile(np.abs(sums - 1), 90)


def test_target_game_chances_are_monotone_and_sum_to_about_one(k51):
    rng = np.random.default_rng(7)
    for _ in range(200):
        lg = _random_ledger(K51, 4, rng)
        chances = [EQ.sheet_value(K51, lg, s, k51) for s in range(4)]
        assert all(0.0 <= c <= 1.0 for c in chances)
        assert sum(chances) == pytest.approx(1.0, abs=0.15)
        lg.totals[0] = min(K51.target_score - 1, lg.totals[0] + int(rng.integers(1, 80)))
        assert EQ.sheet_value(K51, lg, 0, k51) >= chances[0] - TOL  # non-decreasing in its own score
        assert EQ.sheet_value(K51, lg, 1, k51) <= chances[1] + TOL  # non-increasing in another's


def _check_rows(rows, lg, p):
    n = lg.n
    assert rows.shape == (n, EQ.ST_W) and rows.dtype == np.float64 and rows.flags["C_CONTIGUOUS"]
    neutral = EQ.neutral_stakes(n)
    kalooki_pays_more = p.stake_kalooki >= p.stake_call
    for s in range(n):
        row = rows[s]
        curve = row[EQ.ST_CURVE:]
        assert np.all(np.diff(curve) <= 1e-9), (s, lg.totals)
        assert row[EQ.ST_WIN] >= curve[0] - 1e-9
        if kalooki_pays_more:
            assert row[EQ.ST_KALOOKI] >= row[EQ.ST_WIN] - 1e-9
        if p.game_end == "elimination" and not lg.in_game[s]:
            assert np.array_equal(row, neutral[s])


@pytest.mark.parametrize("name", ["kalooki40", "kalooki51", "east_coast", "scala40"])
def test_hand_stakes_keep_the_interface_invariants(name):
    p = profiles.load(name)
    rng = np.random.default_rng(8)
    for _ in range(150):
        lg = _random_ledger(p, p.players, rng)
        _check_rows(EQ.hand_stakes(p, lg), lg, p)


def test_fresh_sheet_stakes_read_like_points(k40):
    """On a fresh sheet the curve falls by about a point a penalty point over the penalties losers take."""
    for p in (K40, K51, EAST):
        rows = EQ.hand_stakes(p, Ledger(p, 4))
        curve = rows[0, EQ.ST_CURVE:]
        slope = -(curve[80] - curve[0]) / 80
        assert 0.4 < slope < 2.5, (p.name, slope)
        assert np.allclose(rows, rows[0])  # a fresh sheet: every seat alike (who deals averaged over)


def _near_elimination_margins(p):
    """Going out against an opponent one hand from elimination (10 points below it, no buy-in left) less going
    out against the same opponent at the seat's own total, in points-equivalents, at each total from 15 up
    to 90 below the near opponent's where the far opponents stay in after a typical loser's penalty (where
    they do not, the go-out ends the game near or far alike, and the margin is only how much weaker the
    near opponent already stands)."""
    near_total = p.eliminate_above - 10
    typical = EQ.load_table(p).typical[4, 0]
    totals = [t for t in (15, 30, 40, 45, 60, 75, 90) if t < near_total and t + typical <= p.eliminate_above]
    assert len(totals) >= 5
    margins = {}
    for total in totals:
        far, near = Ledger(p, 4), Ledger(p, 4)
        far.totals = [total] * 4
        near.totals = [total, near_total, total, total]
        far.buy_ins = near.buy_ins = [p.max_buy_ins] * 4  # no buy-ins left: an elimination is for good
        margins[total] = EQ.hand_stakes(p, near)[0, EQ.ST_WIN] - EQ.hand_stakes(p, far)[0, EQ.ST_WIN]
    return margins


@pytest.mark.parametrize("name", ["kalooki40", "scala40", "swedish"])
def test_the_near_elimination_of_an_opponent_makes_ending_the_hand_worth_more(name):
    """Where the profile's own model shows it from as many games of hands as its table is made from
    (docs/EQUITY.md, Assumptions), going out against an opponent one hand from elimination is worth more
    to a seat than against the same opponent at the seat's own total, at every total checked."""
    margins = _near_elimination_margins(profiles.load(name))
    assert all(m > 0 for m in margins.values()), margins


def test_british_near_elimination_margin_stays_within_the_grids_error_of_its_model():
    """British's own model shows the margin on some samples of hands and not on others (docs/EQUITY.md,
    Assumptions), so its table is held only to what the model allows: no margin below zero by more than
    twice the grid's Monte Carlo standard deviation (a model margin's 2.4 points-equivalents over batches of
    16,000 games, scaled to the table's games a sheet)."""
    p = profiles.load("british")
    games = EQ.load_table(p).meta["games_per_sheet"]
    sd = 2.4 * (16000 / games) ** 0.5
    margins = _near_elimination_margins(p)
    assert all(m > -2 * sd for m in margins.values()), (margins, sd)


def test_a_seat_pushed_out_with_no_buy_in_left_keeps_only_what_the_rules_give(k40):
    """At 140 with no buy-in left, any penalty over 10 ends the seat's game: the curve is flat from there,
    at the stake it pays and the value it gives up."""
    lg = Ledger(K40, 4)
    lg.totals, lg.buy_ins = [140, 60, 60, 60], [2, 0, 0, 0]
    lg.pool += K40.stake_buy_in * 2
    row = EQ.hand_stakes(K40, lg, k40)[0]
    q = k40.typical[4, 2]
    stake = (1 - q) * K40.stake_call + q * K40.stake_kalooki
    out = (-stake - EQ.sheet_value(K40, lg, 0, k40)) / k40.scale
    flat = row[EQ.ST_CURVE + 11]
    assert np.allclose(row[EQ.ST_CURVE + 11:], flat)
    # out of the game, or lower where staying in at 150 was worth less (the curve never rises with x)
    assert flat == pytest.approx(min(out, row[EQ.ST_CURVE + 10]))


def test_buy_in_gain_reads_the_table(k40):
    lg = Ledger(K40, 4)
    lg.totals = [151, 30, 40, 50]
    lg.in_game = [False, True, True, True]
    gain = EQ.buy_in_gain(K40, lg, 0, k40)
    after = lg.copy()
    after.re_enter(0)
    value = EQ.sheet_value(K40, after, 0, k40)
    assert gain == pytest.approx(value - K40.stake_buy_in)
    lg.in_game = [False, True, False, False]  # one other in: no buy-in is offered, the stake would be lost
    assert not lg.may_buy_in(0) and EQ.buy_in_gain(K40, lg, 0, k40) == -K40.stake_buy_in
    assert EQ.buy_in_gain(K51, Ledger(K51, 4), 0) == 0.0
    assert EQ.buy_in_gain(EAST, Ledger(EAST, 4), 0) == 0.0


# ---- the build command

def test_build_writes_a_table_that_records_its_making_and_refuses_to_overwrite(tmp_path, capsys):
    from sim.cli import main
    out = tmp_path / "t.npz"
    assert main(["equity", "build", "--profile", "kalooki51", "--hands", "40", "--sims", "4", "--passes", "3",
                 "--games", "3", "--seed", "9", "--out", str(out), "-q"]) == 0
    table = EQ.read(out)
    assert table.meta["command"] == ("kalooki equity build --profile kalooki51 --hands 40 --sims 4 --passes 3 "
                                     "--games 3 --seed 9")
    assert table.meta["seed"] == 9 and table.meta["games_per_sheet"] == 4 and table.meta["games"] == 3
    assert table.meta["hands_played"] > 3  # the last pass: every hand of its 3 games
    passes = table.meta["passes"]
    assert 2 <= passes["made"] <= passes["most"] == 3 and len(passes["changes"]) == passes["made"] - 1
    assert passes["converged"] == (passes["changes"][-1]["mean"] < passes["tolerance"])
    assert passes["converged"] or passes["made"] == passes["most"]
    before = out.read_bytes()
    capsys.readouterr()
    assert main(["equity", "build", "--profile", "kalooki51", "--hands", "40", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--force" in err
    assert out.read_bytes() == before
    assert main(["equity", "show", "--profile", "kalooki51", "--table", str(out)]) == 0
    assert "Chance seat 0 wins" in capsys.readouterr().out


def test_a_table_is_made_without_reading_any_shipped_table(tmp_path, monkeypatch):
    """`make equity` makes the same table whatever tables configs/equity holds: every pass plays by
    neutral stakes or the pass before's table, never a shipped one."""
    from sim.cli import main

    def no_shipped(*args):
        raise AssertionError(f"a shipped table was read while making one: {args}")
    monkeypatch.setattr(EQ, "_load_shipped", no_shipped)
    monkeypatch.setattr(EQ, "_BY_PROFILE", {})
    out = tmp_path / "t.npz"
    assert main(["equity", "build", "--profile", "british", "--hands", "40", "--sims", "2", "--games", "3",
                 "--seed", "9", "--out", str(out), "-q"]) == 0
    assert EQ.read(out).meta["passes"]["made"] == 2


@pytest.mark.parametrize("bot, by_table", [("greedy", False), ("expert", True)])
def test_the_games_played_on_let_the_players_buy_in_as_the_bot_that_made_the_hands_does(tmp_path, monkeypatch,
                                                                                          bot, by_table):
    """Pass 1 plays its games on with buy-ins by the pool rule; a later pass, where the bot buys in by
    the table (the expert, the lookahead), by the table of the pass before, and the table records which."""
    from sim.cli import main
    seen = []
    build = EQ.build_table

    def spy(*args, buy_ins=None, **kw):
        table = build(*args, buy_ins=buy_ins, **kw)
        seen.append((buy_ins, table))
        return table
    monkeypatch.setattr(EQ, "build_table", spy)
    out = tmp_path / "t.npz"
    assert main(["equity", "build", "--profile", "british", "--hands", "40", "--sims", "2", "--games", "3",
                 "--seed", "9", "--bot", bot, "--out", str(out), "-q"]) == 0
    assert [b for b, _ in seen] == [None, seen[0][1] if by_table else None]
    assert EQ.read(out).meta["buy_in_rule"].startswith("the table of the pass before" if by_table else "the pool rule")


@pytest.mark.parametrize("args, says", [
    (["--out", "x.txt"], ".npz"),
    (["--players", "9"], "players"),
    (["--bot", "nobody"], "nobody"),
    (["--hands", "0"], "--hands"),
    (["--passes", "0"], "--passes"),
    (["--tolerance", "-1"], "--tolerance"),
    (["--profile", "nosuch"], "nosuch"),
])
def test_build_refuses_bad_input_in_one_line(tmp_path, monkeypatch, capsys, args, says):
    from sim.cli import main
    monkeypatch.chdir(tmp_path)
    argv = ["equity", "build"] + ([] if "--profile" in args else ["--profile", "kalooki51"]) + args
    argv += [] if "--out" in args else ["--out", str(tmp_path / "t.npz")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and says in err, err
    assert not list(tmp_path.iterdir())


def test_build_without_out_is_for_a_shipped_profile_as_it_ships(tmp_path, monkeypatch, capsys):
    from sim.cli import main
    monkeypatch.chdir(tmp_path)
    assert main(["equity", "build", "--profile", "kalooki40", "--set", "opening_min=51"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--out" in err


@pytest.mark.parametrize("content, says", [(None, "no such file"), (b"not a table", "not an equity table"),
                                           ("npz", "not an equity table")])
def test_show_refuses_a_file_that_is_no_table_in_one_line(tmp_path, capsys, content, says):
    from sim.cli import main
    path = tmp_path / "t.npz"
    if content == "npz":
        np.savez(path, a=np.zeros(3))
    elif content is not None:
        path.write_bytes(content)
    assert main(["equity", "show", "--profile", "kalooki40", "--table", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and says in err, err


@pytest.mark.parametrize("command", ["show", "calibrate"])
def test_a_table_made_for_other_rules_is_refused_in_one_line(capsys, command):
    from sim.cli import main
    k51 = str(EQ.shipped_path("kalooki51", 4))
    assert main(["equity", command, "--profile", "kalooki40", "--table", k51, "--games", "2"][:6 if command == "show"
                                                                                             else 8]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "made for the rules of profile 'kalooki51', not of 'kalooki40'" in err, err
    assert main(["equity", command, "--profile", "kalooki40", "--set", "opening_min=45", "--table",
                 str(EQ.shipped_path("kalooki40", 4)), "--games", "2"][:8 if command == "show" else 10]) == 2
    assert "made for other rules of profile 'kalooki40' than these" in capsys.readouterr().err


def test_samples_and_values_depend_on_the_seed_alone():
    from sim.commands.equity import bots_for
    a = EQ.collect_hands(K51, 4, 12, 3, bots_for("expert"))
    b = EQ.collect_hands(K51, 4, 12, 3, bots_for("expert"))
    c = EQ.collect_hands(K51, 4, 12, 4, bots_for("expert"))
    assert np.array_equal(a.penalty, b.penalty) and not np.array_equal(a.penalty, c.penalty)


def test_sample_hands_are_played_by_the_stakes_of_the_table_before(k40):
    """The same seeds with and without a table: the same deals and sheets, and the bots, handed the
    table's stakes at each hand's sheet, end some hands otherwise.  A hand played by stakes has its
    sheet's class; one played by neutral stakes does not depend on its sheet and has none."""
    from collections import Counter
    from sim.commands.equity import bots_for
    neutral = EQ.collect_hands(K40, 4, 60, 5, bots_for("expert"))
    staked = EQ.collect_hands(K40, 4, 60, 5, bots_for("expert"), table=k40)
    assert np.array_equal(neutral.start, staked.start)
    assert not neutral.mask.any() and len(set(staked.mask.tolist())) > 3

    def hands(s):  # rows are sorted by class, so compare the hands as a multiset
        return Counter(zip(s.winner.tolist(), map(tuple, s.penalty.tolist()), map(tuple, s.cards_left.tolist())))

    same = sum((hands(neutral) & hands(staked)).values())
    assert 0 < same < len(neutral.winner)


def test_every_class_of_hands_played_by_neutral_stakes_draws_from_every_hand_dealt_to_as_many():
    r = SH.rules_vector(K51, 4)
    from sim.commands.equity import bots_for
    s = EQ.collect_hands(K51, 4, 200, 5, bots_for("greedy"))  # enough for classes of MIN_CLASS hands
    by_class = s.by_class()
    rng = np.random.default_rng(1)
    for _ in range(50):
        totals = rng.integers(0, K51.target_score, 4).astype(np.float64)
        seats = np.arange(4, dtype=np.int64)
        pos = int(rng.integers(4))
        first, count = EQ._sample_range(s.start, by_class, 4, EQ._risk_mask(r, totals, seats, pos, 4),
                                        EQ._leader(r, totals, seats, pos, 4))
        assert (first, count) == (s.start[4], 200)


def test_the_shipped_elimination_tables_take_their_later_hands_from_games():
    """An elimination game's shipped table is made in two passes or more, each after the first taking
    its sample hands from whole games played by the stakes of the pass before: hands played at random
    sheets, neutral or by stakes, underrate the favourites (docs/EQUITY.md, Assumptions)."""
    for name in profiles.available():
        p = profiles.load(name)
        meta = EQ.load_table(p).meta
        if p.game_end == "elimination":
            assert meta["passes"]["made"] >= 2 and meta["games"] > 0, name
            assert meta["hands_played"] > meta["games"], name


@pytest.fixture(scope="module")
def k40_hands():
    from sim.commands.equity import bots_for
    return EQ.collect_hands(K40, 4, 60, 5, bots_for("greedy"))


def test_a_sheet_played_on_from_itself_shares_its_pool_among_seats_alike(k40_hands):
    """Every row is played in each rotation of the seats in, so where they stand alike each takes a
    quarter of what the pool holds (the stakes between them sum to nothing); a seat out has nothing to
    come, the last seat in has the pool."""
    lg = Ledger(K40, 4)
    lg.totals, lg.buy_ins = [40.0] * 4, [1] * 4
    lg.pool += 4 * K40.stake_buy_in
    assert EQ.played_on_value(K40, k40_hands, lg, 2, 50, 7) == pytest.approx(lg.pool / 4)
    lg.totals[1] = 120.0
    lg.in_game[3] = False
    a, b = (EQ.played_on_value(K40, k40_hands, lg, 0, 50, s) for s in (7, 8))
    assert a == EQ.played_on_value(K40, k40_hands, lg, 0, 50, 7) and a != b  # from the seed alone
    assert EQ.played_on_value(K40, k40_hands, lg, 3, 50, 7) == 0.0
    lg.in_game = [False, True, False, False]
    assert EQ.played_on_value(K40, k40_hands, lg, 1, 50, 7) == lg.pool


def test_a_hand_of_a_game_is_a_sample_by_position_from_the_dealer():
    """Game seats 0, 2, 3 dealt in (seat 1 out), seat 3 dealing and seat 0 going out: by position from
    the dealer the winner is 1 and the penalties read dealer, its left, ...; seat 2 at 120 is at risk."""
    r = SH.rules_vector(K40, 4)
    result = HandResult(winner=0, win_type="call", stalled=False, penalties=[0, 17, 40], cards_left=[0, 3, 5],
                        jokers_left=[0, 0, 1])
    row = EQ.game_hand_row(r, [10, 200, 120, 30], [0, 2, 3], 3, result)
    assert row[:3] == (3, 1, False)
    assert row[3] == [40, 0, 17] and row[4] == [5, 0, 3] and row[5] == [1, 0, 0]
    assert row[6] == (1 << 2) * EQ.LEADS + 1 + 1  # position 2 from the dealer is seat 2; seat 0 leads at 10
    fallback = EQ.samples_from_rows([(2, 0, False, [0, 9], [0, 2], [0, 0], 0)] * EQ.MIN_CLASS)
    filled = EQ.filled_from(EQ.samples_from_rows([row]), fallback)
    assert filled.count(3) == 1 and filled.count(2) == EQ.MIN_CLASS


def test_games_played_by_a_table_handed_in_read_its_stakes(k40):
    lg = Ledger(K40, 4)
    lg.totals = [20, 130, 140, 60]
    staked = EQ.hand_stakes(K40, lg)
    assert not np.array_equal(staked, EQ.neutral_stakes(4))
    with EQ.stakes_from(K40, None):
        assert np.array_equal(EQ.hand_stakes(K40, lg), EQ.neutral_stakes(4))
    assert np.array_equal(EQ.hand_stakes(K40, lg), staked)


def test_a_hands_class_marks_the_seats_near_the_end_of_the_game_and_the_leader():
    r = SH.rules_vector(K40, 4)
    assert not EQ.at_risk(r, 112.0) and EQ.at_risk(r, 113.0)  # above three quarters of 150
    totals = np.array([120.0, 0.0, 150.0, 10.0])
    seats = np.arange(4, dtype=np.int64)
    assert EQ._risk_mask(r, totals, seats, 0, 4) == 0b0101
    assert EQ._risk_mask(r, totals, seats, 2, 4) == 0b0101  # position 0 the dealer, seat 2
    assert EQ._risk_mask(r, totals, seats, 1, 4) == 0b1010
    # the leader: the lowest total (seat 1) in an elimination game, by position from the dealer plus one
    assert [EQ._leader(r, totals, seats, d, 4) for d in range(4)] == [2, 1, 4, 3]
    assert EQ._hand_class(r, totals, seats, 1, 4) == 0b1010 * EQ.LEADS + 1
    assert EQ._leader(r, np.array([120.0, 10.0, 150.0, 10.0]), seats, 0, 4) == 0  # a shared lead: none
    r51 = SH.rules_vector(K51, 4)
    assert EQ.at_risk(r51, 375.0) and not EQ.at_risk(r51, 374.0)  # three quarters of 500
    # a target game's leader: the highest score (seat 2), the nearest the target
    assert [EQ._leader(r51, totals, seats, d, 4) for d in range(4)] == [3, 2, 1, 4]
    assert EQ._leader(r51, np.array([150.0, 10.0, 150.0, 10.0]), seats, 0, 4) == 0  # a shared lead: none
    assert EQ._leader(SH.rules_vector(profiles.load("east_coast"), 4), totals, seats, 0, 4) == 0  # one hand
    rows = [(4, 0, False, [0, 1, 2, 3], [0, 1, 1, 1], [0, 0, 0, 0], c) for c in (5, 0, 5, 3)]
    rows.append((3, 1, False, [1, 0, 2], [1, 0, 1], [0, 0, 0], 0))
    s = EQ.samples_from_rows(rows)
    assert s.start[3] == 0 and s.start[4] == 1 and s.start[5] == 5
    by = s.by_class()
    assert [by[4 * EQ.CLASSES + c + 1] - by[4 * EQ.CLASSES + c] for c in (0, 3, 5)] == [1, 1, 2]
    assert by[3 * EQ.CLASSES] == 0 and by[3 * EQ.CLASSES + 1] == 1


def test_a_hand_is_drawn_from_its_class_then_its_seats_near_the_end_then_any():
    def rows(cls, k):
        return [(4, 0, False, [0, 5, 5, 5], [0, 3, 3, 3], [0, 0, 0, 0], cls)] * k

    level, led, near = 0, 3, 0b0011 * EQ.LEADS  # no leader; position 2 leads; positions 0, 1 near the end

    def drawn(samples, near_mask, lead):
        s = EQ.samples_from_rows(samples)
        first, count = EQ._sample_range(s.start, s.by_class(), 4, near_mask, lead)
        return set(s.mask[first:first + count].tolist()), count

    full = rows(level, EQ.MIN_CLASS) + rows(led, EQ.MIN_CLASS) + rows(near, EQ.MIN_CLASS)
    assert drawn(full, 0, 0) == ({level}, EQ.MIN_CLASS)
    assert drawn(full, 0, 3) == ({led}, EQ.MIN_CLASS)
    thin = rows(level, EQ.MIN_CLASS - 1) + rows(led, 5) + rows(near, EQ.MIN_CLASS)
    assert drawn(thin, 0, 0) == ({level, led}, EQ.MIN_CLASS + 4)  # the same seats near the end, any leader
    thinner = rows(level, 10) + rows(led, 10) + rows(near, EQ.MIN_CLASS)
    assert drawn(thinner, 0, 0) == ({level, led, near}, EQ.MIN_CLASS + 20)  # any hand dealt to four
    assert drawn(thinner, 0b0011, 0) == ({near}, EQ.MIN_CLASS)


# ---- calibration

def _calibration_covers(p, table, games, seed, bins):
    """Each bin's interval of each measure (games won; money where it is paid) covers the prediction, at a
    level that is 99% over all of them together, and each measure's bins pass a chi-square test at 1%
    shared between the measures."""
    points = play_points(p, games, seed, table)
    assert table.meta["seed"] != seed
    checks = [(points[:, 1], points[:, 2], False)]
    if p.pays_money and p.game_end == "elimination":
        checks.append((points[:, 0], points[:, 3], True))
    z = bonferroni_z(bins * len(checks), 0.01)  # 99% over every interval together
    out = []
    for predicted, observed, money in checks:
        rows = calibration_bins(predicted, observed, bins, money, z)
        out.append(rows)
        assert all(r["covers"] for r in rows), (p.name, money, rows)
        assert overall_test(rows)[2] > 0.01 / len(checks), (p.name, money, rows)
    return out


def test_calibrated_on_games_the_table_was_not_made_from(k40):
    """60 kalooki40 games by the expert (seed 2), one sheet a game: in each of 2 bins of predicted value
    the observed share of games won (Wilson) and mean money from the sheet on (t) cover the prediction
    (``_calibration_covers``).  The slow tier checks more games and bins."""
    _calibration_covers(K40, k40, 60, 2, 2)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["kalooki40", "kalooki51", "scala40", "british", "swedish"])
def test_calibrated_on_many_games(name):
    """400 games by the expert (seed 2), one sheet a game, 4 bins (``_calibration_covers``)."""
    p = profiles.load(name)
    _calibration_covers(p, EQ.load_table(p), 400, 2, 4)


def test_the_calibration_games_are_played_by_the_table_checked(k40, monkeypatch):
    """The bots of the calibration's games read the stakes and buy-in gains of the table checked, never a
    shipped one: a table made with other settings is checked on the games it describes."""
    east = EQ.load_table(EAST)

    def no_shipped(*args):
        raise AssertionError(f"a shipped table was read: {args}")
    monkeypatch.setattr(EQ, "_load_shipped", no_shipped)
    monkeypatch.setattr(EQ, "_BY_PROFILE", {})
    points = play_points(K40, 4, 2, k40)
    assert points.shape == (4, 6) and np.all(np.isfinite(points))
    assert len(play_single_points(EAST, 2, 2, east)) == 2


def test_single_hand_payments_calibrated():
    """200 east_coast games (seed 2): the payment predicted from how a seat's hand ended against the
    payment it got, in 3 bins, each bin's t interval covering (99% over the three together)."""
    table = EQ.load_table(EAST)
    points = play_single_points(EAST, 200, 2, table)
    rows = calibration_bins(points[:, 0], points[:, 1], 3, True, bonferroni_z(3, 0.01))
    assert all(r["covers"] for r in rows), rows
