"""The README and docs/ stay true: the schema tables are the code's, the subcommands and make targets
they name exist, their command examples parse, their links resolve, and the glossary explains every
headline metric."""
import re
import shlex
from pathlib import Path

from sim import schema
from sim.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
DOCUMENTS = [README] + sorted(DOCS.glob("*.md"))
SUBCOMMANDS = {"profiles", "meld", "deals", "play", "tournament", "simulate", "verify", "replay", "report", "compare",
               "sweep"}


def subcommands() -> set[str]:
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    return set(sub.choices)


def test_dataset_schema_tables_match_the_code():
    text = schema.DATASET_DOC.read_text()
    for table in schema.TABLES:
        assert f"<!-- schema:{table} -->\n{schema.markdown(table)}\n<!-- /schema -->" in text, \
            f"docs/DATASET.md's {table} table is stale: run python -m sim.schema"
    assert "<!-- schema:" not in README.read_text(), "the schema tables live in docs/DATASET.md"


def test_the_schema_command_rewrites_a_stale_table(tmp_path):
    doc = tmp_path / "DATASET.md"
    doc.write_text(schema.DATASET_DOC.read_text().replace("| `hand_no` | int32 |", "| `hand_no` | int64 |", 1))
    assert schema.update_document(doc) is True
    assert doc.read_text() == schema.DATASET_DOC.read_text()
    assert schema.update_document(doc) is False


def test_the_readme_lists_every_subcommand_and_only_those():
    shown = set(re.findall(r"^\| `([a-z]+)` \|", README.read_text(), flags=re.M)) & (SUBCOMMANDS | subcommands())
    assert shown == subcommands(), (f"missing from the README's command table: {subcommands() - shown}; "
                                    f"not a subcommand: {shown - subcommands()}")


def test_readme_command_examples_parse():
    """Every example in the command table is accepted by the parser (options and their values)."""
    examples = re.findall(r"^\| `[a-z]+` \|.*\| `(kalooki [^`]*)` \|$", README.read_text(), flags=re.M)
    assert len(examples) >= len(SUBCOMMANDS), examples
    parser = build_parser()
    for example in examples:
        args = parser.parse_args(shlex.split(example)[1:])  # a usage error exits: the test fails
        assert args.func is not None, example


def test_every_kalooki_command_in_the_docs_parses():
    """Every `kalooki ...` in the README and docs/: a real subcommand, and a full example parses as written
    (placeholders in capitals, such as RUN or NAME, stand for the user's own values)."""
    parser, known = build_parser(), subcommands()
    options = {s for a in parser._actions for s in a.option_strings}
    seen = 0
    for doc in DOCUMENTS:
        for span in re.findall(r"`(kalooki\s[^`]*)`", doc.read_text()):
            words = shlex.split(" ".join(span.split()).split(" > ")[0])[1:]
            where = f"{doc.relative_to(ROOT)}: `{span}`"
            if words[0].startswith("-"):
                assert words[0] in options, where
                continue
            assert words[0] in known or words[0] == "COMMAND", where
            if len(words) > 1 and not any(re.fullmatch(r"[A-Z][A-Z_]*", w) for w in words):
                assert parser.parse_args(words).func is not None, where
                seen += 1
    assert seen >= 15


def test_make_targets_named_in_the_docs_exist():
    targets = set(re.findall(r"^([a-z]+):", (ROOT / "Makefile").read_text(), flags=re.M))
    for doc in DOCUMENTS:
        named = set(re.findall(r"(?:`|^)make ([a-z]+)\b", doc.read_text(), flags=re.M))
        assert named <= targets, f"{doc.relative_to(ROOT)} names make targets that do not exist: {named - targets}"
    readme = README.read_text()
    assert "make run " in readme and "make test " in readme


def _anchors(path: Path) -> set[str]:
    """GitHub's anchors of a Markdown file's headings."""
    headings = re.findall(r"^#+ (.+)$", path.read_text(), flags=re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


def test_links_in_the_readme_and_docs_resolve():
    for doc in DOCUMENTS:
        for target in re.findall(r"\]\(([^)\s]+)\)", doc.read_text()):
            if re.match(r"[a-z]+://", target):
                continue
            path, _, anchor = target.partition("#")
            file = (doc.parent / path).resolve() if path else doc
            where = f"{doc.relative_to(ROOT)} links to {target}"
            assert file.is_file() and ROOT in file.parents, where
            if anchor:
                assert anchor in _anchors(file), where


def test_no_wrapped_line_of_prose_starts_a_list_by_accident():
    # "776.1\n+ 6,533.9" in a wrapped paragraph renders as a list item: a sum is never cut before its "+"
    for doc in DOCUMENTS:
        for no, line in enumerate(doc.read_text().splitlines(), 1):
            assert not re.match(r"[+*] \d", line), f"{doc.relative_to(ROOT)}:{no}: {line}"


def test_the_readme_shows_the_committed_report_screenshot():
    assert "](docs/images/report-top.png)" in README.read_text()
    assert (DOCS / "images" / "report-top.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_readme_stays_a_five_minute_read():
    lines = README.read_text().count("\n")
    assert lines <= 260, f"README.md has {lines} lines: keep it for newcomers and put details in docs/"


def test_the_glossary_explains_every_headline_metric_and_threshold():
    from analysis import findings, metrics
    text = (DOCS / "GLOSSARY.md").read_text()
    names = [m for m, _, _ in metrics.HEADLINE] + list(findings.default_thresholds())
    missing = [m for m in names if f"`{m}`" not in text]
    assert not missing, f"docs/GLOSSARY.md does not explain {missing}"
    marks = [findings.ROBUST, findings.DEPENDS, findings.UNSETTLED, findings.NOT_ASSESSED]
    assert all(f"**{mark}**" in text for mark in marks), marks


def test_make_bench_runs_the_benchmarks_folder_the_performance_page_names():
    from bench.__main__ import SECTIONS, parse_args
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^bench: .*\n\t\$\(BIN\)/python -m bench$", makefile, flags=re.M)
    text = (DOCS / "PERFORMANCE.md").read_text()
    assert "`make bench` (`python -m bench`)" in text
    assert parse_args([]).what == "all" and set(SECTIONS) >= {"compile", "meld", "engine", "runner", "report"}
    commands = re.findall(r"`python -m bench ([^`]*)`", text)
    assert len(commands) >= 5
    for command in commands:
        parse_args(shlex.split(command))  # an unknown section or option exits: the test fails


def test_the_performance_page_gives_every_numba_patch_and_each_speed_patch_its_saving():
    """Every patch sim.jit applies is in the numba layer's tables, each one for speed with the share
    of the time it saves, and no patch that is gone."""
    from bench.__main__ import SPEED_PATCHES
    from sim.jit import internals
    text = (DOCS / "PERFORMANCE.md").read_text()
    section = text[text.index("## The numba layer"):]
    rows = dict(re.findall(r"^\| `([a-z-]+)` \|(.*)$", section, flags=re.M))
    assert set(rows) == set(internals.PATCHES), set(rows) ^ set(internals.PATCHES)
    for patch in SPEED_PATCHES:
        assert re.search(r"\d+%", rows[patch]), f"docs/PERFORMANCE.md gives no saving for {patch}"
