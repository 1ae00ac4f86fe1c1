"""Plain-text tables for a terminal: a row's label wrapped, never cut, so that every line fits a width."""
from __future__ import annotations

import re


def wrap_label(text: str, room: int) -> list[str]:
    """A table's row label, whole, in lines of at most ``room`` columns: broken after an underscore of
    a metric name or at a space, continued two columns in."""
    room, lines, line = max(room, 8), [], ""
    for piece in re.findall(r"[^_ ]+[_ ]*|[_ ]+", text):  # each word with the underscore or spaces after it
        if line and len((line + piece).rstrip()) > room - 2 * bool(lines):
            lines.append(line.rstrip())
            line = ""
        line += piece
        while len(line.rstrip()) > room - 2 * bool(lines):  # a word longer than the room: cut in pieces
            cut = room - 2 * bool(lines)
            lines.append(line[:cut])
            line = line[cut:]
    lines = [x for x in lines + [line.rstrip()] if x] or [""]
    return lines[:1] + ["  " + x for x in lines[1:]]


def fit_rows(cells: list, width: int, gap: int = 2) -> tuple[list, list[int]]:
    """Rows of cells whose first column (the label) is wrapped so that every line fits ``width``
    columns: (lines of cells, the column widths); a wrapped label's further lines hold only it."""
    widths = [max(len(c[i]) for c in cells) for i in range(len(cells[0]))]
    widths[0] = min(widths[0], max(8, width - sum(widths[1:]) - gap * (len(widths) - 1)))
    rows = []
    for c in cells:
        first, *more = wrap_label(c[0], widths[0])
        rows.append([first, *c[1:]])
        rows += [[line] + [""] * (len(c) - 1) for line in more]
    widths[0] = max(len(r[0]) for r in rows)
    return rows, widths


def interval_text(value, low, high, digits: int = 3, sign: bool = False) -> str:
    """``value [low, high]`` at ``digits`` decimals, or more (up to 6) where its ends would print alike: an
    interval of positive width is never shown as one of none ("0.250 [0.2498, 0.2502]", not "[0.250,
    0.250]").  "n/a" for a missing value; "[no interval]" where one value gives no spread to make it from."""
    if value != value:
        return "n/a"
    f = (lambda x, n: f"{x:+.{n}f}") if sign else (lambda x, n: f"{x:.{n}f}")
    if low != low or high != high:
        return f"{f(value, digits)} [no interval]"
    d = digits
    while d < 6 and low != high and float(f"{low:.{d}f}") == float(f"{high:.{d}f}"):  # -0.000 is +0.000
        d += 1
    return f"{f(value, digits)} [{f(low, d)}, {f(high, d)}]"
