"""docs/RULES.md, the project's own rules: its parameter table matches the profiles, every parameter
is explained in its prose, and nothing in the repository points outside it for the rules."""
import re
import subprocess
from pathlib import Path

from sim import profiles, rulesdoc

ROOT = Path(__file__).resolve().parent.parent
OUTSIDE = ["../" + "shared", "shared/" + "RULES", "/work/" + "shared"]  # spelled in two parts so this file does not match


def test_parameter_table_matches_the_profiles():
    table = rulesdoc.current_table()
    assert table is not None, "docs/RULES.md lost its <!-- params --> markers"
    assert table == rulesdoc.parameter_table(), "docs/RULES.md is out of date: run `python -m sim.rulesdoc`"
    for name in profiles.available():
        assert f"`{name}`" in table.splitlines()[0], f"profile {name} has no column"
    listed = [line.split("`")[1] for line in table.splitlines()[2:]]
    assert listed == profiles.PARAM_NAMES


def test_a_changed_profile_value_shows_in_the_table(monkeypatch):
    k40 = profiles.load("kalooki40")
    monkeypatch.setitem(profiles._CACHE, "kalooki40", k40.replace(opening_min=45))
    row = next(line for line in rulesdoc.parameter_table().splitlines() if line.startswith("| `opening_min`"))
    assert "| **45** |" in row
    assert row != next(line for line in rulesdoc.current_table().splitlines() if line.startswith("| `opening_min`"))


def test_every_parameter_is_explained_in_the_prose():
    text = rulesdoc.RULES_DOC.read_text()
    prose = re.sub(r"<!-- params -->.*?<!-- /params -->", "", text, flags=re.S)
    missing = [k for k in profiles.PARAM_NAMES if f"`{k}`" not in prose and f"`{k} " not in prose]
    assert not missing, f"parameters not explained in docs/RULES.md: {missing}"


def test_nothing_in_the_repository_points_outside_it_for_the_rules():
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    offenders = []
    for rel in files:
        path = ROOT / rel
        if not path.is_file() or path.suffix in (".png", ".parquet", ".gz"):
            continue
        try:
            text = path.read_text()
        except UnicodeDecodeError:
            continue
        if any(pattern in text for pattern in OUTSIDE):
            offenders.append(rel)
    assert not offenders, f"files pointing outside the repository: {offenders}"
