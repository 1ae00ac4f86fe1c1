"""``bench/near_elimination.py``: the table's margins it prints are those the near-elimination test reads,
its sheets are the test's, and a profile without eliminations is refused."""
import re

import numpy as np
import pytest

from bench.near_elimination import main, sheets, table_margin
from sim import equity as EQ
from sim import profiles
from sim.game import Ledger


def test_its_sheets_put_the_near_opponent_out_and_leave_the_far_ones_in():
    p = profiles.load("swedish")
    four = sheets(p, 60.0, 29.0)
    far_now, far_after = four["far"]
    near_now, near_after = four["near"]
    assert far_now.totals == [60.0] * 4 and near_now.totals == [60.0, 90.0, 60.0, 60.0]
    assert far_after.totals == [60.0, 89.0, 89.0, 89.0] and all(far_after.in_game)
    assert near_after.in_game == [True, False, True, True] and near_after.totals[1] == 119.0
    assert all(lg.buy_ins == [p.max_buy_ins] * 4 for lg in (far_now, near_now))
    assert not any(sheets(p, 75.0, 29.0)["far"][1].in_game[1:])  # 104: every other seat over the limit


def test_it_prints_the_tables_margin_and_the_models_for_each_total(capsys):
    p = profiles.load("swedish")
    assert main(["--profile", "swedish", "--games", "3", "--hands", "40", "--rows", "10", "--batches", "2"]) == 0
    out = capsys.readouterr().out
    lines = re.findall(r"at +(\d+): model +([-+][\d.]+) \[ *([-+][\d.]+), *([-+][\d.]+)\] +table +([-+][\d.]+)", out)
    assert [int(t) for t, *_ in lines] == [15, 30, 40, 45, 60, 75]
    table = EQ.load_table(p)
    for t, mean, lo, hi, tab in lines:
        assert float(lo) < float(mean) < float(hi)
        assert float(tab) == pytest.approx(table_margin(p, table, float(t)), abs=0.051)
        far, near = Ledger(p, 4), Ledger(p, 4)
        far.totals, near.totals = [int(t)] * 4, [int(t), 90, int(t), int(t)]
        far.buy_ins = near.buy_ins = [p.max_buy_ins] * 4
        test_margin = EQ.hand_stakes(p, near)[0, EQ.ST_WIN] - EQ.hand_stakes(p, far)[0, EQ.ST_WIN]
        assert np.isclose(table_margin(p, table, float(t)), test_margin)


def test_a_profile_without_eliminations_is_refused(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--profile", "kalooki51"])
    assert e.value.code == 2 and "an elimination profile is wanted" in capsys.readouterr().err
