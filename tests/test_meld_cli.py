"""`kalooki meld` and `kalooki deals`, called in-process through sim.cli.main."""
from __future__ import annotations

import json

import pytest

from sim import cards as C
from sim import melds as M
from sim import meldsearch as ms
from sim import profiles
from sim.cli import main


def run_cli(capsys, *argv):
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_meld_json_shape(capsys):
    rc, out, err = run_cli(capsys, "meld", "--json", "7H", "JK=8H", "9H", "KS", "KD", "KC", "2C")
    assert rc == 0, err
    obj = json.loads(out)
    assert set(obj) == {"max_meld_value", "min_deadwood", "min_loose", "opening", "deadwood"}
    assert (obj["max_meld_value"], obj["min_deadwood"], obj["min_loose"]) == (54, 2, 1)
    assert set(obj["opening"]) == {"melds", "left", "value", "can_open"}
    assert set(obj["deadwood"]) == {"melds", "left", "deadwood"}
    assert obj["opening"]["value"] == 54 and obj["opening"]["can_open"] is True
    assert obj["opening"]["left"] == ["2C"] and obj["deadwood"]["deadwood"] == 2
    p = profiles.load("kalooki40")
    for m in obj["opening"]["melds"] + obj["deadwood"]["melds"]:
        assert set(m) == {"kind", "cards", "declared", "value"}
        assert m["kind"] in ("run", "group")
        cards_ = [C.parse_card(c) for c in m["cards"]]
        reps = [C.parse_card(c) for c in m["declared"]]
        if m["kind"] == "run":
            meld = M.run(C.suit_of(reps[0]), M.rank_to_ext(C.rank_of(reps[0])), cards_)
        else:
            meld = M.Meld(M.GROUP, tuple(cards_), tuple(reps), C.rank_of(reps[0]))
        assert M.check(meld, p) is None
        assert M.value(meld, p) == m["value"]
    run_ = [m for m in obj["opening"]["melds"] if m["kind"] == "run"][0]
    assert run_["cards"] == ["7H", "JK", "9H"] and run_["declared"] == ["7H", "8H", "9H"]


def test_meld_text(capsys):
    rc, out, err = run_cli(capsys, "meld", "--profile", "kalooki51", "AH", "2H", "3H", "KS")
    assert rc == 0
    assert "max meld value: 6" in out and "cannot open" in out


def test_meld_profile_override(capsys):
    rc, out, _ = run_cli(capsys, "meld", "--json", "--set", "ace_low=true", "AH", "2H", "3H")
    assert json.loads(out)["max_meld_value"] == 6


@pytest.mark.parametrize("bad,named", [("1H", "1H"), ("ZZ", "ZZ"), ("JK=1H", "1H")])
def test_meld_bad_card_exits_2(capsys, bad, named):
    rc, out, err = run_cli(capsys, "meld", "7H", bad, "9H")
    assert rc == 2 and out == ""
    assert named in err


def test_meld_too_many_copies_and_jokers(capsys):
    rc, _, err = run_cli(capsys, "meld", "7H", "7H", "7H")
    assert rc == 2 and "7H" in err
    rc, _, err = run_cli(capsys, "meld", "JK", "JK", "JK", "5H")  # kalooki40 has 2 jokers
    assert rc == 2 and "joker" in err


def test_meld_no_cards(capsys):
    rc, _, err = run_cli(capsys, "meld")
    assert rc == 2 and "no cards" in err


def test_meld_batch(tmp_path, capsys):
    f = tmp_path / "hands.txt"
    f.write_text("7H 8H 9H\n\nKS KD KC JK 2C\nAS\n")
    rc, out, err = run_cli(capsys, "meld", "--batch", str(f), "--json")
    assert rc == 0, err
    lines = out.strip().splitlines()
    assert len(lines) == 3
    objs = [json.loads(x) for x in lines]
    assert [o["max_meld_value"] for o in objs] == [24, 40, 0]
    assert objs[1]["min_deadwood"] == 2 and objs[2]["min_loose"] == 1
    p = profiles.load("kalooki40")
    for o, hand in zip(objs, ["7H 8H 9H", "KS KD KC JK 2C", "AS"]):
        assert ms.search(C.to_counts(C.parse_cards(hand)), p) == (o["max_meld_value"], o["min_deadwood"], o["min_loose"])


def test_meld_batch_bad_line_names_line_and_writes_nothing(tmp_path, capsys):
    f = tmp_path / "hands.txt"
    f.write_text("7H 8H 9H\n\nKS KD XX\n")
    rc, out, err = run_cli(capsys, "meld", "--batch", str(f), "--json")
    assert rc == 2 and out == ""
    assert "line 3" in err and "XX" in err


def test_meld_batch_missing_file(tmp_path, capsys):
    rc, out, err = run_cli(capsys, "meld", "--batch", str(tmp_path / "nope.txt"))
    assert rc == 2 and "nope.txt" in err


def test_deals_json(capsys):
    rc, out, err = run_cli(capsys, "deals", "--n", "2000", "--seed", "1", "--json")
    assert rc == 0, err
    obj = json.loads(out)
    assert obj["n"] == 2000 and obj["hand_size"] == 13
    for key in ("can_open", "full_meld"):
        p = obj[key]
        assert p["n"] == 2000 and 0 <= p["k"] <= 2000
        assert 0.0 <= p["ci95"][0] <= p["fraction"] <= p["ci95"][1] <= 1.0
    assert 0.1 < obj["can_open"]["fraction"] < 0.35  # about 22% of 13-card kalooki40 deals open
    assert obj["mean_max_meld_value"] > 0
    rc, out2, _ = run_cli(capsys, "deals", "--n", "2000", "--seed", "1", "--json")
    assert out2 == out  # deterministic for a seed
    rc, out3, _ = run_cli(capsys, "deals", "--n", "2000", "--seed", "2", "--json")
    assert out3 != out


def test_deals_players_sets_hand_size(capsys):
    rc, out, err = run_cli(capsys, "deals", "--profile", "kalooki51", "--n", "500", "--seed", "3", "--players", "6", "--json")
    assert rc == 0, err
    assert json.loads(out)["hand_size"] == 11


@pytest.mark.parametrize("argv,named", [
    (["--n", "-5", "--seed", "1"], "--n"),
    (["--n", "0", "--seed", "1"], "--n"),
    (["--n", "abc", "--seed", "1"], "--n"),
    (["--n", "10", "--seed", "-1"], "--seed"),
    (["--n", "10", "--seed", "1", "--players", "9"], "players"),
])
def test_deals_bad_args_exit_2(capsys, argv, named):
    rc, out, err = run_cli(capsys, "deals", *argv)
    assert rc == 2 and out == ""
    assert named in err


def test_meld_text_fits_100_columns(capsys):
    hand = "QH JK AH 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS 2H 3H 4H 5H 6H 7H 8H 9H TH JH".split()
    rc, out, err = run_cli(capsys, "meld", "--profile", "kalooki51", *hand)
    assert rc == 0, err
    assert max(len(line) for line in out.splitlines()) <= 100
    assert "JH QH AH JK" in out and out.startswith("hand (25 cards, profile kalooki51): 2S")
