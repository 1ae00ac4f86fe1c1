"""`kalooki play --game`: the score sheet shows elimination marks, the pool and payments only for a
profile whose rules have them (sim.game.Ledger)."""
import pytest

from sim import cli


def _sheet(profile, capsys) -> list[str]:
    assert cli.main(["play", "--profile", profile, "--game", "--summary", "--seed", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    return lines[lines.index(next(x for x in lines if x.startswith("Score sheet"))):]


@pytest.mark.parametrize("profile, eliminates, pool, payments", [
    ("kalooki40", True, True, True),  # elimination, buy-ins and stakes into the pool
    ("kalooki51", False, False, False),  # first to 500 points: no elimination, no stakes
    ("east_coast", False, False, True),  # each hand a game, paid per card left
])
def test_the_score_sheet_shows_only_what_the_profile_has(profile, eliminates, pool, payments, capsys):
    sheet = _sheet(profile, capsys)
    head, columns = sheet[0], sheet[1].split()
    assert ("* eliminated" in head) == eliminates and ("+ bought back in" in head) == eliminates
    assert ("pool" in columns) == pool
    assert columns[:3] == ["hand", "dealer", "winner"] and columns[3:7] == ["seat", "0", "seat", "1"]
    assert any(line.startswith(" net          payments") for line in sheet) == payments
    assert sheet[-1].startswith("Game over after ")
