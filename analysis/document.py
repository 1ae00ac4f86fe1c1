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

_STYLE = """
body { font-family: system-ui, sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.2em; font-size: 0.85em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: right; }
th { background: #f0f0f0; } td:first-child, th:first-child { text-align: left; }
img { max-width: 100%; } .caption { color: #555; font-size: 0.9em; }
.partial { border: 3px solid #c00; background: #fee; padding: 0.5em 1em; margin: 1em 0; }
.partial h2 { color: #c00; margin-top: 0.3em; } pre { background: #f6f6f6; padding: 0.5em; overflow-x: auto; }
"""


@dataclass
class Document:
    title: str
    blocks: list[tuple] = field(default_factory=list)
    figures: dict[str, bytes] = field(default_factory=dict)  # file name -> PNG

    def heading(self, text: str, level: int = 2):
        self.blocks.append(("heading", level, text))

    def text(self, text: str):
        self.blocks.append(("text", text))

    def bullets(self, items: list[str]):
        self.blocks.append(("bullets", list(items)))

    def warning(self, title: str, text: str, items: list[str]):
        self.blocks.append(("warning", title, text, list(items)))

    def code(self, text: str):
        self.blocks.append(("code", text))

    def table(self, frame: pd.DataFrame, caption: str = "", columns: list[str] | None = None):
        frame = frame if columns is None else frame[[c for c in columns if c in frame.columns]]
        self.blocks.append(("table", format_frame(frame), caption))

    def figure(self, name: str, draw, data, caption: str = "", width: float = 7.0, height: float = 4.0):
        """Draw `data` with the plot helper `draw(ax, data)` and add it as figures/NAME.png."""
        fig, ax = plots.new_figure(width, height)
        draw(ax, data)
        self.figures[f"{name}.png"] = plots.png_bytes(fig)
        self.blocks.append(("figure", f"{name}.png", caption))

    def to_html(self) -> str:
        out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
               f"<title>{html.escape(self.title)}</title><style>{_STYLE}</style></head><body>",
               f"<h1>{html.escape(self.title)}</h1>"]
        for block in self.blocks:
            kind = block[0]
            if kind == "heading":
                out.append(f"<h{block[1]}>{html.escape(block[2])}</h{block[1]}>")
            elif kind == "text":
                out.append(f"<p>{html.escape(block[1])}</p>")
            elif kind == "bullets":
                out.append("<ul>" + "".join(f"<li>{html.escape(i)}</li>" for i in block[1]) + "</ul>")
            elif kind == "warning":
                items = "".join(f"<li>{html.escape(i)}</li>" for i in block[3])
                out.append(f'<div class="partial"><h2>{html.escape(block[1])}</h2><p>{html.escape(block[2])}</p>'
                           f"<ul>{items}</ul></div>")
            elif kind == "code":
                out.append(f"<pre>{html.escape(block[1])}</pre>")
            elif kind == "table":
                if block[2]:
                    out.append(f'<p class="caption">{html.escape(block[2])}</p>')
                out.append(block[1].to_html(index=False, border=0, escape=True, na_rep=""))
            elif kind == "figure":
                data = base64.b64encode(self.figures[block[1]]).decode("ascii")
                alt = html.escape(block[2] or block[1])
                out.append(f'<figure><img alt="{alt}" src="data:image/png;base64,{data}">'
                           f"<figcaption class=\"caption\">{html.escape(block[2])}</figcaption></figure>")
        out.append("</body></html>")
        return "\n".join(out) + "\n"

    def to_markdown(self, figures_dir: str = "figures") -> str:
        out = [f"# {self.title}", ""]
        for block in self.blocks:
            kind = block[0]
            if kind == "heading":
                out += ["#" * block[1] + " " + block[2], ""]
            elif kind == "text":
                out += [block[1], ""]
            elif kind == "bullets":
                out += [f"- {i}" for i in block[1]] + [""]
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
        files["report.md"] = self.to_markdown().encode("utf-8")
        files["report.html"] = self.to_html().encode("utf-8")
        write_files(out_dir, files)
        return Path(out_dir) / "report.html"


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
