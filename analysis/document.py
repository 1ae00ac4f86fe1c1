"""A report as a list of blocks rendered twice: one self-contained HTML file and Markdown + PNGs.

The report and the comparison build a :class:`Document`; this module owns the formatting of
numbers and tables, the page style, and writing the outputs so that nothing is left half-written.
"""
from __future__ import annotations

import base64
import html
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from . import plots

PAGE_WIDTH_PX = 1320  # the page's content width; two figures side by side fill it at 100 dpi
_STYLE = """
body { font-family: system-ui, sans-serif; max-width: %dpx; margin: 1em auto; padding: 0 1em; color: #222;
       line-height: 1.35; }
h1 { font-size: 1.5em; margin: 0.3em 0; } h2 { font-size: 1.2em; margin: 1em 0 0.4em;
       border-bottom: 1px solid #ddd; } h3 { font-size: 1em; margin: 0.8em 0 0.3em; }
table { border-collapse: collapse; margin: 0.3em 0 0.8em; font-size: 0.85em; }
th, td { border: 1px solid #ccc; padding: 0.1em 0.45em; text-align: right; vertical-align: top; }
th { overflow-wrap: anywhere; } table.frame td { overflow-wrap: anywhere; }
table.frame td:first-child, table.frame th:first-child { overflow-wrap: normal; white-space: nowrap; }
div.table { max-width: 100%%; overflow-x: auto; }
table.grid { font-size: 0.74em; line-height: 1.2; } table.grid td:not(:first-child) { white-space: nowrap; }
table.grid td small { white-space: normal; }
th { background: #f0f0f0; } td:first-child, th:first-child { text-align: left; }
td small, th small { color: #777; font-family: ui-monospace, monospace; font-size: 0.85em; }
td.higher { background: #fde2c8; } td.lower { background: #cfe3f7; } td.na { color: #999; }
td.equivalent { background: #e5f2e5; }
td.base { background: #f4f4f4; }
img { max-width: 100%%; } .caption, figcaption { color: #555; font-size: 0.85em; }
figure { margin: 0.3em 0; } .figs { display: grid; grid-template-columns: 1fr 1fr; gap: 0.6em 1.2em; }
.figs figure.wide { grid-column: 1 / span 2; }
nav.toc { font-size: 0.9em; } nav.toc a { margin-right: 1.2em; white-space: nowrap; }
ul.findings li { margin: 0.25em 0; } p.finding { margin: 0.4em 0; }
.play { background: #f6f8fa; border-left: 4px solid #6a8; padding: 0.4em 0.8em; }
details { margin: 0.3em 0; } details > summary { cursor: pointer; color: #245; }
.partial { border: 3px solid #c00; background: #fee; padding: 0.5em 1em; margin: 1em 0; }
.partial h2 { color: #c00; margin-top: 0.3em; } pre { background: #f6f6f6; padding: 0.5em; overflow-x: auto; }
""" % PAGE_WIDTH_PX


@dataclass(frozen=True)
class Cell:
    """A cell of a grid table: its text, a note in small print after it, and a CSS class."""
    text: str
    note: str = ""
    cls: str = ""
    inline: bool = False  # the note on the same line (else below)


def slug(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-")


@dataclass
class Document:
    title: str
    blocks: list[tuple] = field(default_factory=list)
    figures: dict[str, bytes] = field(default_factory=dict)  # file name -> PNG
    files: dict[str, bytes] = field(default_factory=dict)  # other files next to the report (CSV)

    def heading(self, text: str, level: int = 2):
        self.blocks.append(("heading", level, text))

    def text(self, text: str):
        self.blocks.append(("text", text))

    def findings(self, items: list[tuple[str, str, str]]):
        """The one-minute list: (lead in bold, one line, anchor of the full text) per item."""
        self.blocks.append(("findings", list(items)))

    def anchored(self, anchor: str, lead: str, text: str):
        """A paragraph with an anchor to link to, its lead in bold."""
        self.blocks.append(("anchored", anchor, lead, text))

    def bullets(self, items: list):
        """Items are text, or (lead, text) pairs with the lead in bold."""
        self.blocks.append(("bullets", [i if isinstance(i, tuple) else ("", i) for i in items]))

    def warning(self, title: str, text: str, items: list[str]):
        self.blocks.append(("warning", title, text, list(items)))

    def code(self, text: str):
        self.blocks.append(("code", text))

    def toc(self):
        """A table of contents of the level-2 headings, wherever they are."""
        self.blocks.append(("toc",))

    def html(self, text: str, markdown: str = ""):
        """A paragraph of trusted HTML (built here from escaped parts); `markdown` for the .md."""
        self.blocks.append(("html", text, markdown))

    def open(self, kind: str, label: str = ""):
        """Start a collapsible section (kind 'details', `label` its summary) or a figure grid ('figs')."""
        self.blocks.append(("open", kind, label))

    def close(self, kind: str):
        self.blocks.append(("close", kind))

    def attach(self, name: str, frame: pd.DataFrame, label: str):
        """Write `frame` as data/NAME.csv next to the report and link it."""
        self.files[f"data/{name}.csv"] = frame.to_csv(index=False).encode("utf-8")
        self.blocks.append(("link", f"data/{name}.csv", label))

    def grid(self, header: list[Cell], rows: list[list[Cell]], caption: str = ""):
        """A table of formatted cells (notes in small print, classes for marking)."""
        self.blocks.append(("grid", list(header), [list(r) for r in rows], caption))

    def table(self, frame: pd.DataFrame, caption: str = "", columns: list[str] | None = None):
        frame = frame if columns is None else frame[[c for c in columns if c in frame.columns]]
        self.blocks.append(("table", format_frame(frame), caption))

    def figure(self, name: str, draw, data, caption: str = "", width: float = 6.4, height: float = 3.4,
               panels: int | None = None, wide: bool = False, share: str = "both"):
        """Draw `data` with the plot helper `draw(ax, data)` (or `draw(axes, data)` on `panels` small
        multiples) and add it as figures/NAME.png; `wide` spans both columns of a figure grid."""
        if panels is None:
            fig, ax = plots.new_figure(width, height)
            draw(ax, data)
        else:
            fig, axes = plots.new_panels(panels, width, height, share)
            draw(axes, data)
        self.figures[f"{name}.png"] = plots.png_bytes(fig)
        self.blocks.append(("figure", f"{name}.png", caption, wide))

    def to_html(self) -> str:
        out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
               f"<title>{html.escape(self.title)}</title><style>{_STYLE}</style></head><body>",
               f"<h1>{html.escape(self.title)}</h1>"]
        for block in self.blocks:
            kind = block[0]
            if kind == "heading":
                out.append(f'<h{block[1]} id="{slug(block[2])}">{html.escape(block[2])}</h{block[1]}>')
            elif kind == "toc":
                links = " ".join(f'<a href="#{slug(b[2])}">{html.escape(b[2])}</a>' for b in self.blocks
                                if b[0] == "heading" and b[1] == 2)
                out.append(f'<nav class="toc"><b>Contents:</b> {links}</nav>')
            elif kind == "html":
                out.append(f"<p>{block[1]}</p>")
            elif kind == "open":
                out.append(f"<details><summary>{html.escape(block[2])}</summary>" if block[1] == "details"
                           else f'<div class="{html.escape(block[1])}">')
            elif kind == "close":
                out.append("</details>" if block[1] == "details" else "</div>")
            elif kind == "link":
                out.append(f'<p><a href="{html.escape(block[1])}">{html.escape(block[2])}</a> (CSV)</p>')
            elif kind == "grid":
                out.append(_grid_html(block[1], block[2], block[3]))
            elif kind == "text":
                out.append(f"<p>{html.escape(block[1])}</p>")
            elif kind == "bullets":
                out.append("<ul>" + "".join(f"<li>{f'<b>{html.escape(lead)}</b> ' if lead else ''}{html.escape(i)}</li>"
                                            for lead, i in block[1]) + "</ul>")
            elif kind == "findings":
                out.append('<ul class="findings">' + "".join(
                    f'<li><b>{html.escape(lead)}</b> {html.escape(text)} <a href="#{html.escape(anchor)}">more</a></li>'
                    for lead, text, anchor in block[1]) + "</ul>")
            elif kind == "anchored":
                out.append(f'<p class="finding" id="{html.escape(block[1])}"><b>{html.escape(block[2])}</b> '
                           f"{html.escape(block[3])}</p>")
            elif kind == "warning":
                items = "".join(f"<li>{html.escape(i)}</li>" for i in block[3])
                out.append(f'<div class="partial"><h2>{html.escape(block[1])}</h2><p>{html.escape(block[2])}</p>'
                           f"<ul>{items}</ul></div>")
            elif kind == "code":
                out.append(f"<pre>{html.escape(block[1])}</pre>")
            elif kind == "table":
                if block[2]:
                    out.append(f'<p class="caption">{html.escape(block[2])}</p>')
                out.append('<div class="table">' + block[1].to_html(index=False, border=0, escape=True, na_rep="",
                                                                     classes="frame") + "</div>")
            elif kind == "figure":
                data = base64.b64encode(self.figures[block[1]]).decode("ascii")
                alt = html.escape(block[2] or block[1])
                wide = ' class="wide"' if block[3] else ""
                out.append(f'<figure{wide}><img alt="{alt}" src="data:image/png;base64,{data}">'
                           f"<figcaption class=\"caption\">{html.escape(block[2])}</figcaption></figure>")
        out.append("</body></html>")
        return "\n".join(out) + "\n"

    def to_markdown(self, figures_dir: str = "figures") -> str:
        out = [f"# {self.title}", ""]
        for block in self.blocks:
            kind = block[0]
            if kind == "heading":
                out += ["#" * block[1] + " " + block[2], ""]
            elif kind == "toc":
                out += ["Contents: " + " · ".join(f"[{b[2]}](#{slug(b[2])})" for b in self.blocks
                                                  if b[0] == "heading" and b[1] == 2), ""]
            elif kind == "html":
                out += [block[2], ""]
            elif kind == "open":
                out += ([f"<details><summary>{html.escape(block[2])}</summary>", ""] if block[1] == "details" else [])
            elif kind == "close":
                out += (["</details>", ""] if block[1] == "details" else [])
            elif kind == "link":
                out += [f"[{block[2]}]({block[1]}) (CSV)", ""]
            elif kind == "grid":
                if block[3]:
                    out += [f"*{block[3]}*", ""]
                out += [_grid_markdown(block[1], block[2]), ""]
            elif kind == "text":
                out += [block[1], ""]
            elif kind == "bullets":
                out += [f"- **{lead}** {i}" if lead else f"- {i}" for lead, i in block[1]] + [""]
            elif kind == "findings":
                out += [f"- **{lead}** {text} [more](#{anchor})" for lead, text, anchor in block[1]] + [""]
            elif kind == "anchored":
                out += [f'<a id="{block[1]}"></a>**{block[2]}** {block[3]}', ""]
            elif kind == "warning":
                out += [f"> **{block[1]}**", ">", f"> {block[2]}", ">"] + [f"> - {i}" for i in block[3]] + [""]
            elif kind == "code":
                out += ["```", block[1], "```", ""]
            elif kind == "table":
                if block[2]:
                    out += [f"*{block[2]}*", ""]
                out += [markdown_table(block[1]), ""]
            elif kind == "figure":
                out += [f"![{block[2] or block[1]}]({figures_dir}/{block[1]})", ""]
        return "\n".join(out)

    def write(self, out_dir) -> Path:
        """Write out_dir/report.html, out_dir/report.md and out_dir/figures/*.png; see write_files."""
        files = {f"figures/{name}": png for name, png in self.figures.items()}
        files.update(self.files)
        files["report.md"] = self.to_markdown().encode("utf-8")
        files["report.html"] = self.to_html().encode("utf-8")
        write_files(out_dir, files)
        return Path(out_dir) / "report.html"


def _cell_html(cell: Cell, tag: str) -> str:
    cls = f' class="{html.escape(cell.cls)}"' if cell.cls else ""
    note = f"{' ' if cell.inline else '<br>'}<small>{html.escape(cell.note)}</small>" if cell.note else ""
    return f"<{tag}{cls}>{html.escape(cell.text)}{note}</{tag}>"


def _grid_html(header: list[Cell], rows: list[list[Cell]], caption: str) -> str:
    out = [f'<p class="caption">{html.escape(caption)}</p>'] if caption else []
    out.append('<div class="table"><table class="grid"><thead><tr>' + "".join(_cell_html(c, "th") for c in header)
               + "</tr></thead><tbody>")
    out += ["<tr>" + "".join(_cell_html(c, "td") for c in row) + "</tr>" for row in rows]
    out.append("</tbody></table></div>")
    return "\n".join(out)


def _grid_markdown(header: list[Cell], rows: list[list[Cell]]) -> str:
    text = lambda c: c.text + (f" `{c.note}`" if c.note else "")
    return markdown_table(pd.DataFrame([[text(c) for c in row] for row in rows], columns=[text(c) for c in header]))


def write_files(out_dir, files: dict[str, bytes]) -> None:
    """Write every file to a temporary name first, then rename them all into place (in order), so a
    failure leaves earlier outputs as they were and never a half-written file."""
    out_dir = Path(out_dir)
    staged = []
    try:
        for rel, data in files.items():
            path = out_dir / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
            tmp.write_bytes(data)
            staged.append((tmp, path))
    except BaseException:
        for tmp, _ in staged:
            tmp.unlink(missing_ok=True)
        raise
    for tmp, path in staged:
        os.replace(tmp, path)


def format_value(value) -> str:
    if value is None or value is pd.NA or value is pd.NaT:
        return ""
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}" if abs(int(value)) >= 10_000 else str(int(value))
    if isinstance(value, (float, np.floating)):
        if math.isnan(value):
            return ""
        if math.isinf(value):
            return "∞" if value > 0 else "-∞"
        if value == 0:
            return "0"
        if float(value).is_integer() and abs(value) < 1e6:
            return str(int(value))
        return f"{value:.4g}" if 1e-4 <= abs(value) < 1e6 else f"{value:.3g}"
    return str(value)


def format_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """Every cell as display text: 4 significant digits, no NaN, thousands separators on counts."""
    return pd.DataFrame({c: [format_value(v) for v in frame[c].tolist()] for c in frame.columns},
                        columns=frame.columns, dtype=object)


def markdown_table(frame: pd.DataFrame) -> str:
    cell = lambda v: str(v).replace("|", "\\|").replace("\n", " ")
    lines = ["| " + " | ".join(cell(c) for c in frame.columns) + " |",
             "|" + "|".join("---" for _ in frame.columns) + "|"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join(lines)
