"""Table mixes, common deals across profiles and duplicate tournaments (issues 15 and 16).

A run's table composition is drawn per game from the game's own stream, so the data do not depend on
how the games are split; a paired run deals game g of every profile from the same shuffled pack, seat
by seat; a duplicate tournament deals each deck once per rotation of the bots.
"""
from __future__ import annotations

from collections import Counter

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.summaries import write_shard_summary
from sim import cli, profiles, runconfig, runmanifest, runner, runplan
from sim.engine import DRAW_STOCK, HandState, Play
from sim.game import CanonicalDeal
from sim.records import ShardSpec, make_game, play_shard, table_of
from sim.commands.tournament import deal_level
from sim.tournament import play_tournament
from test_runner import assert_same_tables, ray_session, read_tables  # noqa: F401 (a fixture)

pytestmark = pytest.mark.usefixtures("figures_not_rasterised_in_module")  # figures drawn, not rendered: no test reads them

MIX = "fast=greedy,greedy,greedy,greedy:3; one_patient=patient,greedy,greedy,greedy:1"
PROVENANCE = ["run_id", "profile", "rules_hash"]


def first_deal(spec: ShardSpec, game_id: int) -> HandState:
    """The first hand of a game as play_game deals it (dealer drawn first, then the pack)."""
    rng, bots = make_game(spec, game_id)
    n = len(bots)
    dealer = int(rng.integers(n))
    hand_rng = CanonicalDeal(rng, spec.profile, n) if spec.paired else rng
    return HandState(spec.profile, n, dealer, hand_rng, draw_seats=list(range(n)) if spec.duplicate else None)


def spec_for(name: str, seed: int, paired: bool) -> ShardSpec:
    return ShardSpec(profiles.load(name), ["greedy"] * 4, seed=seed, first_game=0, n_games=1, paired=paired,
                     rotate=True)


# ---------------------------------------------------------------------------------------------
# table mixes

def test_mix_is_drawn_by_weight_per_game_and_seats_rotate(tmp_path):
    cfg = runconfig.make_config(None, None, profiles=["kalooki40"], games=12, seed=5, out=str(tmp_path / "a"),
                                shard_games=12, tables=MIX)
    runner.run_local(cfg, summarise=write_shard_summary, progress=False, log=lambda m: None)
    split = runconfig.make_config(None, None, profiles=["kalooki40"], games=12, seed=5, out=str(tmp_path / "b"),
                                  shard_games=5, tables=MIX)
    runner.run_local(split, summarise=write_shard_summary, progress=False, log=lambda m: None)
    a, b = read_tables(tmp_path / "a"), read_tables(tmp_path / "b")
    assert_same_tables(a, b)  # composition and play do not depend on the shard size
    games = a["games"].to_pandas()
    assert set(games["table"]) <= {"fast", "one_patient"}
    for g, rows in games.groupby("game_id"):
        bots = sorted(rows["bot"])
        if rows["table"].iloc[0] == "fast":
            assert bots == ["greedy"] * 4
        else:  # patient sits at seat (-g) % 4: bots[(s + g) % 4] at seat s
            assert bots == ["greedy"] * 3 + ["patient"]
            assert rows[rows["bot"] == "patient"]["seat"].item() == (-g) % 4
    hands = a["hands"].to_pandas()
    per_game = hands.groupby("game_id")["table"].agg(set)
    assert all(len(s) == 1 for s in per_game) and per_game.map(min).to_dict() == \
        games.groupby("game_id")["table"].first().to_dict()


def test_mix_and_pairing_do_not_depend_on_workers(ray_session, tmp_path):
    """Two all-greedy compositions under different names (fast, and the draw shows in the table column)."""
    mix = "north=greedy,greedy,greedy,greedy:1; south=greedy,greedy,greedy,greedy:2"
    args = dict(profiles=["kalooki40", "swedish"], games=12, seed=6, tables=mix, paired=True)
    runner.run_local(runconfig.make_config(None, None, out=str(tmp_path / "local"), shard_games=12, **args),
                     summarise=write_shard_summary, progress=False, log=lambda m: None)
    runner.run(runconfig.make_config(None, None, out=str(tmp_path / "ray"), shard_games=5, workers=2, **args),
               summarise=write_shard_summary, progress=False, log=lambda m: None)
    local, ray = read_tables(tmp_path / "local"), read_tables(tmp_path / "ray")
    assert_same_tables(local, ray)
    games = local["games"].to_pandas()
    assert set(games["table"]) == {"north", "south"}
    by_profile = games.groupby(["game_id", "profile"])["table"].first().unstack()
    assert (by_profile["kalooki40"] == by_profile["swedish"]).all()  # paired: one draw per game number


def test_mix_shares_follow_the_weights_and_depend_on_the_game_alone():
    spec = ShardSpec(profiles.load("kalooki40"), ["greedy"] * 4, seed=9, first_game=0, n_games=1,
                     tables=(("a", ("greedy",) * 4, 3), ("b", ("expert",) * 4, 1)))
    names = [table_of(spec, g)[0] for g in range(4000)]
    assert names == [table_of(spec, g)[0] for g in range(4000)]
    share = Counter(names)["a"] / 4000
    assert abs(share - 0.75) < 0.03, share  # 0.75 +- 4.4 binomial sd
    other = ShardSpec(profiles.load("swedish"), ["greedy"] * 4, seed=9, first_game=0, n_games=1, tables=spec.tables)
    assert [table_of(other, g)[0] for g in range(200)] != names[:200]  # unpaired: keyed by profile too
    paired = [ShardSpec(profiles.load(p), ["greedy"] * 4, seed=9, first_game=0, n_games=1, tables=spec.tables,
                        paired=True) for p in ("kalooki40", "swedish")]
    assert [table_of(paired[0], g) for g in range(200)] == [table_of(paired[1], g) for g in range(200)]


def _write(tmp_path, text):
    path = tmp_path / "run.toml"
    path.write_text('profiles = ["kalooki40"]\nseed = 1\ngames = 2\n' + text)
    return str(path)


BAD_MIXES = [
    ("unknown bot", 'tables = [{bots = "greedy,wizard,greedy,greedy", weight = 1}]', "unknown bot 'wizard'"),
    ("zero weight", 'tables = [{bots = "greedy,greedy,greedy,greedy", weight = 0}]', "weight = 0 is not allowed"),
    ("negative weight", 'tables = [{bots = "greedy,greedy,greedy,greedy", weight = -2}]', "allowed: a number > 0"),
    ("text weight", 'tables = [{bots = "greedy,greedy,greedy,greedy", weight = "1"}]', "weight = '1' is not allowed"),
    ("sizes differ", 'tables = [{bots = "greedy,greedy,greedy,greedy"}, {bots = "expert,expert,expert"}]',
     "the compositions seat different numbers of players"),
    ("players differ", 'players = 5\ntables = [{bots = "greedy,greedy,greedy,greedy"}]',
     "table 'greedy,greedy,greedy,greedy' seats 4 bots"),
    ("name twice", 'tables = [{bots = "greedy,greedy,greedy,greedy", name = "x"}, '
                   '{bots = "expert,expert,expert,expert", name = "x"}]', "table name 'x' is used twice"),
    ("unknown key", 'tables = [{bots = "greedy,greedy,greedy,greedy", weigth = 1}]', "unknown key 'weigth'"),
    ("bots and tables", 'bots = ["greedy", "greedy", "greedy", "greedy"]\n'
                        'tables = [{bots = "greedy,greedy,greedy,greedy"}]', "both 'bots' and 'tables' are given"),
    ("paired not a bool", 'paired = "yes"', "paired' = 'yes' is not allowed"),
]


@pytest.mark.parametrize("label,text,message", BAD_MIXES, ids=[c[0] for c in BAD_MIXES])
def test_bad_mixes_exit_2_and_write_nothing(label, text, message, tmp_path, capsys):
    out = tmp_path / "out"
    rc = cli.main(["simulate", "--no-progress", "--local", "--config", _write(tmp_path, text), "--out", str(out)])
    err = capsys.readouterr().err
    assert rc == 2, err
    assert message in err, err
    assert "Traceback" not in err and not out.exists()


def test_tables_flag_and_bots_flag_exclude_each_other(tmp_path, capsys):
    out = tmp_path / "out"
    rc = cli.main(["simulate", "--no-progress", "--profile", "kalooki40", "--games", "2", "--seed", "1", "--out",
                   str(out), "--bots", "greedy,greedy,greedy,greedy", "--tables", "greedy,greedy,greedy,greedy:1"])
    assert rc == 2 and "--bots and --tables both given" in capsys.readouterr().err and not out.exists()
    rc = cli.main(["simulate", "--no-progress", "--profile", "kalooki40", "--games", "2", "--seed", "1", "--out",
                   str(out), "--tables", "greedy,greedy,greedy,greedy:lots"])
    assert rc == 2 and "weight 'lots'" in capsys.readouterr().err and not out.exists()


def test_the_manifest_records_the_mix_and_pairing(tmp_path):
    cfg = runconfig.make_config(None, None, profiles=["kalooki40", "british"], games=2, seed=1,
                                out=str(tmp_path / "m"), tables=MIX, paired=True)
    plan = runplan.make_plan(cfg)
    m = runmanifest.new_manifest(plan, "cmd")
    assert m["paired"] is True and m["config"]["paired"] is True
    assert m["config"]["tables"] == [{"name": "fast", "bots": ["greedy"] * 4, "weight": 3},
                                     {"name": "one_patient", "bots": ["patient", "greedy", "greedy", "greedy"],
                                      "weight": 1}]
    assert m["profiles"]["british"]["tables"] == m["config"]["tables"]
    unpaired = runplan.make_plan(runconfig.make_config(None, None, profiles=["kalooki40", "british"], games=2, seed=1,
                                                       out=str(tmp_path / "m"), tables=MIX))
    assert unpaired.run_id != plan.run_id
    assert any(d.startswith("paired") for d in runmanifest.config_differences(m, unpaired))


# ---------------------------------------------------------------------------------------------
# common deals

@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**40), game=st.integers(0, 10**6), other=st.sampled_from(["british", "swedish"]))
def test_paired_profiles_that_share_a_pack_get_the_same_cards_seat_by_seat(seed, game, other):
    a, b = first_deal(spec_for("kalooki40", seed, True), game), first_deal(spec_for(other, seed, True), game)
    assert a.dealer == b.dealer
    assert np.array_equal(a.hands, b.hands)  # british and swedish deal 3-2-3-2-3, kalooki40 one at a time
    assert a.discard == b.discard and a.stock == b.stock
    assert np.array_equal(a.reshuffle_keys, b.reshuffle_keys)
    u, v = first_deal(spec_for("kalooki40", seed, False), game), first_deal(spec_for(other, seed, False), game)
    assert not np.array_equal(u.hands, v.hands)  # unpaired: each profile its own deal


def test_the_canonical_deal_keeps_the_plain_deal_of_one_card_at_a_time_profiles():
    spec = spec_for("kalooki40", 3, False)
    for g in range(5):
        plain = first_deal(spec, g)
        rng, _ = make_game(spec, g)
        dealer = int(rng.integers(4))
        canonical = HandState(spec.profile, 4, dealer, CanonicalDeal(rng, spec.profile, 4))
        assert np.array_equal(plain.hands, canonical.hands) and plain.stock == canonical.stock


def test_paired_kalooki40_and_british_play_identical_games():
    """british is kalooki40 with a packet deal: paired, they play the same games card for card (an exact A/A)."""
    tables = {}
    for name in ("kalooki40", "british"):
        spec = ShardSpec(profiles.load(name), ["greedy"] * 4, seed=21, first_game=0, n_games=6, paired=True,
                         rotate=True)
        tables[name] = {t: v.drop_columns(PROVENANCE) for t, v in play_shard(spec).items()}
    for t in ("hands", "games"):
        assert tables["kalooki40"][t].equals(tables["british"][t]), t


def test_paired_run_data_do_not_depend_on_shard_size(tmp_path):
    runs = {}
    for shard in (4, 3):
        cfg = runconfig.make_config(None, None, profiles=["kalooki40", "swedish"], games=4, seed=2,
                                    out=str(tmp_path / f"s{shard}"), shard_games=shard, paired=True)
        runner.run_local(cfg, summarise=write_shard_summary, progress=False, log=lambda m: None)
        runs[shard] = read_tables(tmp_path / f"s{shard}")
    assert_same_tables(runs[4], runs[3])
    g = runs[4]["games"]
    assert g.filter(pc.equal(g["profile"], "swedish")).num_rows == 16


@pytest.mark.parametrize("profiles_, reason", [
    (["kalooki40", "kalooki51"], "pack: 106 cards (2 jokers) in kalooki40, 108 cards (4 jokers) in kalooki51"),
    (["kalooki51", "scala40"], "hand size: 15 in kalooki51, 13 in scala40"),
    (["kalooki51", "east_coast"], "cut_card_joker: False in kalooki51, True in east_coast"),
])
def test_paired_profiles_that_cannot_share_a_deal_are_refused(profiles_, reason, tmp_path, capsys):
    argv = ["simulate", "--no-progress", "--local", "--paired", "--games", "2", "--seed", "1", "--out", str(tmp_path / "o")]
    for p in profiles_:
        argv += ["--profile", p]
    rc = cli.main(argv)
    err = capsys.readouterr().err
    assert rc == 2 and reason in err and "cannot be dealt the same cards" in err, err
    assert not (tmp_path / "o").exists()


# ---------------------------------------------------------------------------------------------
# duplicate tournaments

def seat_keyed(seed: int, keyed: bool = True) -> HandState:
    """A four-player kalooki40 hand dealt by seat 0, its stock seat-keyed (or drawn from the top)."""
    return HandState(profiles.load("kalooki40"), 4, 0, np.random.default_rng(seed),
                     draw_seats=[0, 1, 2, 3] if keyed else None)


def draw_place(state: HandState) -> tuple[int, int]:
    """Draw from the stock for the player to move and discard the card drawn; returns (the rank of the
    drawn card's place in the pack among the stock's places, the stock's size before the draw)."""
    state.start_turn()
    before = sorted(state.stock_ids)
    c = state.apply_draw(DRAW_STOCK)
    (gone,) = set(before) - set(state.stock_ids)
    state.apply_play(Play([], c))
    state.check_invariants()
    return before.index(gone), len(before)


def test_a_seat_keyed_stock_draw_is_a_uniform_card_of_the_stock_whatever_came_before():
    # the stock is face down and shuffled (docs/RULES.md), so every draw must be a uniformly random card of it
    # given all that was seen; here each seat's first and second draws, 3,000 hands, chi-square tests
    from scipy import stats
    first, second = [], []
    for seed in range(3000):
        st = seat_keyed(seed)
        places = [draw_place(st) for _ in range(5)]  # seat 1 draws, 2, 3, 0, then seat 1 again
        first.append(places[0][0] * 6 // places[0][1])
        second.append(places[4][0] * 6 // places[4][1])
    for bins in (first, second):
        assert stats.chisquare(np.bincount(bins, minlength=6)).pvalue > 1e-3
    table = np.zeros((6, 6))
    np.add.at(table, (first, second), 1)
    assert stats.chi2_contingency(table).pvalue > 1e-3  # the second draw does not depend on the first


def test_a_taken_discard_does_not_shift_what_the_next_seat_draws_from_a_seat_keyed_stock():
    # seat 1 draws the stock in one world and takes the discard in the other: on a seat-keyed stock seat 2
    # then draws the very same card (unless seat 1 drew it); from the top of the stock it gets another
    def gone(state: HandState, seat: int) -> int:
        before = list(state.stock_ids)
        state._pop_stock(seat)
        (place,) = set(before) - set(state.stock_ids)
        return place
    same = 0
    for seed in range(200):
        a, b = seat_keyed(seed), seat_keyed(seed)
        by_1 = gone(a, 1)
        in_a, in_b = gone(a, 2), gone(b, 2)
        assert in_a == in_b or by_1 == in_b
        same += in_a == in_b
    assert same >= 190
    shifted = 0
    for seed in range(200):
        a, b = seat_keyed(seed, keyed=False), seat_keyed(seed, keyed=False)
        a._pop_stock(1)
        shifted += a._pop_stock(2) != b._pop_stock(2)
    assert shifted >= 180  # the same card only where the two top cards are copies


def test_duplicate_rotations_get_the_same_cards_at_the_same_seats():
    prof = profiles.load("kalooki40")
    bots = ["patient", "greedy", "greedy", "greedy"]
    spec = ShardSpec(prof, bots, seed=8, first_game=0, n_games=1, rotate=True, duplicate=True)
    for deal in range(3):
        states = [first_deal(spec, deal * 4 + r) for r in range(4)]
        for s in states[1:]:
            assert s.dealer == states[0].dealer and np.array_equal(s.hands, states[0].hands)
            assert s.stock == states[0].stock and s.stock_ids == states[0].stock_ids
            assert np.array_equal(s.draw_keys, states[0].draw_keys)  # each seat's keys, in every rotation
        other = first_deal(spec, (deal + 1) * 4)
        assert not np.array_equal(other.hands, states[0].hands)
    t = play_tournament(prof, bots, games=8, seed=8, duplicate=True, chunk=3)
    games = t["games"].to_pandas()
    for g, rows in games.groupby("game_id"):  # rotation g % 4: the patient bot moves one seat back a game
        assert rows[rows["bot"] == "patient"]["seat"].item() == (-(g % 4)) % 4
    first = t["hands"].to_pandas().query("hand_no == 1 and redeal_no == 0").assign(deal=lambda h: h["game_id"] // 4)
    dealt = first.groupby(["deal", "seat"])[["dealt_jokers", "dealt_max_meld_value", "seat_from_dealer"]].nunique()
    assert (dealt == 1).all().all()  # every rotation of a deal: the same hands at the same seats, the same dealer


def test_duplicate_aa_identical_bots_play_identical_rotations_and_edges_sum_to_zero(capsys):
    prof = profiles.load("kalooki40")
    t = play_tournament(prof, ["greedy"] * 4, games=8, seed=3, duplicate=True)
    hands = t["hands"].to_pandas().assign(deal=lambda h: h["game_id"] // 4, rot=lambda h: h["game_id"] % 4)
    cols = [c for c in hands.columns if c not in ("game_id", "rot")]
    for deal, rows in hands.groupby("deal"):  # the same bot in every seat: the rotations are one game
        ref = rows[rows["rot"] == 0][cols].reset_index(drop=True)
        for r in (1, 2, 3):
            assert rows[rows["rot"] == r][cols].reset_index(drop=True).equals(ref)
    mixed = play_tournament(prof, ["patient", "greedy", "greedy", "greedy"], games=8, seed=3, duplicate=True)
    per_deal = deal_level(mixed, 4)
    seats = per_deal["bot"].map({"patient": 1, "greedy": 3})
    money = (per_deal["net_payment"] * seats).groupby(per_deal["deal"]).sum()
    assert np.allclose(money, 0)  # every deal's payments, pool included, sum to zero over the seats
    for metric in ("hand_win_edge", "net_payment_edge"):  # the bots' edges cancel deal by deal
        assert np.allclose(per_deal.groupby("deal")[metric].sum(), 0)
    # game 0 stopped at the hand cap with the patient level on the winner's total: the win is shared
    games = mixed["games"].to_pandas()
    first = games["game_id"] == 0
    winner_total = games.loc[first & games["won"], "final_penalty_total"].item()
    patient = first & (games["bot"] == "patient")
    games.loc[first, "stalled"] = True
    games.loc[first, "won"] = games.loc[first, "seat"] == (games.loc[patient, "seat"].item() + 1) % 4
    games.loc[first, "final_penalty_total"] = winner_total + 5
    games.loc[(first & games["won"]) | patient, "final_penalty_total"] = winner_total
    level = deal_level({**mixed, "games": pa.Table.from_pandas(games, preserve_index=False)}, 4)
    shared = (games.loc[games["game_id"].between(1, 3) & (games["bot"] == "patient"), "won"].sum() + 0.5) / 4
    # half of game 0 to the patient, whoever the seat order named
    assert level.set_index(["deal", "bot"]).loc[(0, "patient"), "game_win"] == pytest.approx(shared)


def test_duplicate_cli_refuses_a_partial_deal_and_reports_intervals_over_deals(capsys):
    rc = cli.main(["tournament", "--profile", "kalooki40", "--bots", "greedy,greedy,greedy,patient", "--games", "6",
                   "--duplicate"])
    assert rc == 2 and "give a multiple of 4" in capsys.readouterr().err
    rc = cli.main(["tournament", "--profile", "kalooki40", "--bots", "greedy,greedy,greedy,patient", "--games", "8",
                   "--seed", "4", "--duplicate", "--json"])
    assert rc == 0
    import json
    rows = {r["bot"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["patient"]["deals"] == rows["greedy"]["deals"] == 2
    for r in rows.values():
        assert r["net_payment_lo"] <= r["net_payment"] <= r["net_payment_hi"]
    assert abs(rows["patient"]["net_payment"] + 3 * rows["greedy"]["net_payment"]) < 1e-9
