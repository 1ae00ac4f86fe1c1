"""The parameter table of docs/RULES.md, generated from the profile declarations and files.

Every rule parameter (``profiles.PARAM_NAMES``, in declaration order) with its one-line meaning and
its value in each profile of ``configs/profiles/``.  The table sits in docs/RULES.md between
``<!-- params -->`` and ``<!-- /params -->``; ``python -m sim.rulesdoc`` rewrites it, and
tests/test_rules_doc.py fails when the document and the profiles disagree.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from . import profiles

RULES_DOC = Path(__file__).resolve().parent.parent / "docs" / "RULES.md"
# the order the document discusses them in; any other profile file follows, by name
PROFILE_ORDER = ["kalooki40", "british", "swedish", "kalooki51", "east_coast", "scala40"]
_SECTION = re.compile(r"(<!-- params -->\n).*?(<!-- /params -->)", re.S)


def profile_names() -> list[str]:
    found = profiles.available()
    return [n for n in PROFILE_ORDER if n in found] + [n for n in found if n not in PROFILE_ORDER]


def _cell(value) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {v}" for k, v in value.items()) + "}" if value else "{}"
    if isinstance(value, (bool, list)):
        return json.dumps(value)
    return str(value)


def parameter_table() -> str:
    """Markdown: one row per parameter (meaning, default, each profile's value); a value that differs
    from the declared default is in bold."""
    names = profile_names()
    loaded = [profiles.load(n) for n in names]
    rows = ["| parameter | meaning | default | " + " | ".join(f"`{n}`" for n in names) + " |",
            "|---|---|---|" + "---|" * len(names)]
    for key in profiles.PARAM_NAMES:
        f = profiles.FIELDS[key]
        default = f.default if f.default is not None else ({} if key == "hand_size_by_players" else [])
        cells = []
        for p in loaded:
            v = getattr(p, key)
            v = v if v is not None else type(default)()
            cells.append(_cell(v) if v == default else f"**{_cell(v)}**")
        rows.append(f"| `{key}` | {f.metadata['doc']} | {_cell(default)} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def current_table(path: Path = RULES_DOC) -> str | None:
    """The table now in the document, or None if its markers are missing."""
    m = _SECTION.search(path.read_text())
    return m.group(0)[len("<!-- params -->\n"):-len("<!-- /params -->")].rstrip("\n") if m else None


def update(path: Path = RULES_DOC) -> bool:
    """Rewrite the table in the document; True if it changed."""
    text = path.read_text()
    new = _SECTION.sub(lambda m: m.group(1) + parameter_table() + "\n" + m.group(2), text)
    if new != text:
        path.write_text(new)
    return new != text


if __name__ == "__main__":
    print(f"{RULES_DOC} updated" if update() else f"{RULES_DOC} already up to date")
