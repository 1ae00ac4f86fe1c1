"""The README stays true: its schema tables are the code's, its subcommands exist and its examples parse."""
import re
import shlex
from pathlib import Path

from sim import schema
from sim.cli import build_parser

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_schema_tables_match_the_code():
    text = README.read_text()
    for table in schema.TABLES:
        assert schema.markdown(table) in text, f"README's {table} table is stale: run python -m sim.schema"


def test_readme_subcommands_exist():
    text = README.read_text()
    shown = set(re.findall(r"^\| `([a-z]+)` \|", text, flags=re.M)) & {
        "profiles", "meld", "deals", "play", "tournament", "simulate", "verify", "replay", "report", "compare",
        "sweep"}
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    assert shown and shown <= set(sub.choices), shown - set(sub.choices)


def test_make_bench_runs_the_benchmarks_folder_the_readme_names():
    from bench.__main__ import SECTIONS, parse_args
    makefile = (README.parent / "Makefile").read_text()
    assert re.search(r"^bench: .*\n\t\$\(BIN\)/python -m bench$", makefile, flags=re.M)
    assert "`make bench` (`python -m bench`" in README.read_text()
    assert parse_args([]).what == "all" and set(SECTIONS) >= {"meld", "engine", "runner", "report"}
def test_readme_command_examples_parse():
    """Every example in the command table is accepted by the parser (options and their values)."""
    text = README.read_text()
    examples = re.findall(r"^\| `[a-z]+` \|.*\| `(kalooki [^`]*)` \|$", text, flags=re.M)
    assert len(examples) >= 10, examples
    parser = build_parser()
    for example in examples:
        args = parser.parse_args(shlex.split(example)[1:])  # a usage error exits: the test fails
        assert args.func is not None, example
