"""Golden playthroughs pin the engine's and bots' behaviour: a change to these transcripts is a
change of results for a given seed, which must be deliberate (bump schema.ENGINE_VERSION, then
regenerate with KALOOKI_REGENERATE_GOLDEN=1)."""
import os
from pathlib import Path

import pytest

from sim.cli import main

GOLDEN = Path(__file__).resolve().parent / "golden"
CASES = {
    "play_kalooki40_seed7.txt": ["play", "--profile", "kalooki40", "--seed", "7", "--bots", "greedy,greedy,random,greedy"],
    "game_scala40_seed3.txt": ["play", "--profile", "scala40", "--seed", "3", "--bots", "expert,patient,greedy,random",
                               "--game"],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_playthrough(name, capsys):
    assert main(CASES[name]) == 0
    out = capsys.readouterr().out
    path = GOLDEN / name
    if os.environ.get("KALOOKI_REGENERATE_GOLDEN"):
        path.write_text(out)
    assert out == path.read_text(), f"{name} changed: a behaviour change needs a new ENGINE_VERSION"
