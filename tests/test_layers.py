"""The package's layers point one way: no import circle across the files of ``sim/``, the engine imports
nothing of the bots nor the meld search, and the cards and melds nothing of the engine's callers.

Imports are read from the source with ``ast`` (every ``import`` and ``from ... import``, at the top of
a module or inside a function), as an import linter reads them: ``from pkg import mod`` imports the
module ``pkg.mod``, ``from pkg import name`` the package ``pkg``."""
import ast
from pathlib import Path

import pytest

import sim

ROOT = Path(sim.__file__).resolve().parent


def _modules() -> dict:
    out = {}
    for f in ROOT.rglob("*.py"):
        parts = ["sim", *f.relative_to(ROOT).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = f
    return out


MODULES = _modules()


def _imports(name: str, path: Path) -> set:
    """The modules of ``sim`` that module ``name`` imports."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            prefix = ".".join(base + ([node.module] if node.module else []))
            subs = [f"{prefix}.{a.name}" for a in node.names if f"{prefix}.{a.name}" in MODULES]
            found.update(subs)
            if len(subs) < len(node.names):
                found.add(prefix)
    return {m for m in found if m in MODULES and m != name}


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _circles(graph: dict) -> list:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def _describe(comp: list) -> str:
    return "; ".join(f"{m} -> {', '.join(sorted(GRAPH[m] & set(comp)))}" for m in comp)


def test_the_import_reader_sees_the_imports_it_should():
    """The reader itself: a relative import of a submodule, of a package's name, and one inside a function."""
    assert "sim.engine.core" in GRAPH["sim.engine.turn"]  # from . import core
    assert "sim.engine" in GRAPH["sim.bots.base"]  # from ..engine import Play
    assert "sim.bots.registry" in GRAPH["sim.bots.search"]  # inside a method
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set()}) == []


def test_no_import_circle_across_files():
    circles = _circles(GRAPH)
    assert not circles, "import circles: " + " | ".join(_describe(c) for c in circles)


@pytest.mark.parametrize("below, above", [
    ("sim.engine", "sim.bots"),  # the rules engine knows no strategy: the bots are handed in
    ("sim.engine", "sim.meldsearch"),  # the engine reads the meld values it needs from its own core
    ("sim.engine", "sim.game"),
    ("sim.game", "sim.bots"),  # a game is played by the bots handed in
    ("sim.melds", "sim.bots"),
    ("sim.cards", "sim.engine"),
    ("sim.meldsearch", "sim.bots"),
    ("sim.equity", "sim.bots"),  # the game's value of a score sheet: built from the bots' play by its command, read by the bots
    ("sim.equity", "sim.game"),  # the game reads the stakes from it
    ("sim.sheet", "sim.engine"),  # the score sheet's rules know no cards
    ("sim.sheet", "sim.game"),  # the ledger and the equity tables both apply them
    ("sim.sheet", "sim.equity"),
    ("sim.sheet", "sim.bots"),
])
def test_lower_layers_import_nothing_above_them(below, above):
    def within(m, pkg):
        return m == pkg or m.startswith(pkg + ".")
    wrong = sorted(f"{m} -> {d}" for m, deps in GRAPH.items() if within(m, below) for d in deps if within(d, above))
    assert not wrong, f"{below} imports {above}: " + ", ".join(wrong)


# the kernels the bots share (sim/bots/kernels), lowest first: each imports only kernels before it, and
# no other module of sim.bots (every bot's decisions sit above them)
KERNEL_ORDER = ("hands", "plays", "layoffs", "goout", "discards")


def test_the_bots_shared_kernels_sit_below_every_bot():
    kernels = {m for m in MODULES if m.startswith("sim.bots.kernels.")}
    assert sorted(kernels) == sorted(f"sim.bots.kernels.{k}" for k in KERNEL_ORDER), \
        "place every module of sim/bots/kernels in KERNEL_ORDER"
    rank = {f"sim.bots.kernels.{k}": i for i, k in enumerate(KERNEL_ORDER)}
    wrong = sorted(f"{m} -> {d}" for m in kernels for d in GRAPH[m]
                   if d.startswith("sim.bots") and (d not in rank or rank[d] > rank[m]))
    assert not wrong, "a shared kernel imports a bot or a kernel above it: " + ", ".join(wrong)
    assert "sim.bots.kernels.hands" in GRAPH["sim.bots.kernels.goout"]  # the reader sees their imports


ANALYSIS_ROOT = ROOT.parent / "analysis"
# analysis's modules, lowest first: each imports only modules before it in this list (DESIGN.md, the layers)
ANALYSIS_ORDER = (
    "terminal", "stats", "load", "summaries", "metrics", "findings",  # reading a run, estimates, verdicts, words
    "differences",  # the statistics of a difference between two runs or two profiles
    "ladder", "skill", "frontier", "tune",  # the fits: studies read back and measured
    "plots", "document",  # figures, and a page rendered to HTML and Markdown
    "report", "compare", "sweep", "tune_page", "tune_compare",  # the pages
)


def _analysis_graph(root: Path) -> dict:
    """{module: the modules of analysis it imports}, read from every ``import`` and ``from ... import``,
    at the top of the module or inside a function (``from . import x``, ``from .x import y``,
    ``from analysis import x``, ``import analysis.x``)."""
    names = {f.stem for f in root.glob("*.py") if f.stem != "__init__"}
    graph = {}
    for name in names:
        path = root / f"{name}.py"
        found = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                found.update(a.name.split(".")[1] for a in node.names if a.name.startswith("analysis."))
            elif isinstance(node, ast.ImportFrom) and (node.level == 1 or (node.module or "").split(".")[0] == "analysis"):
                module = (node.module or "") if node.level else (node.module or "").partition(".")[2]
                found.update([module.split(".")[0]] if module else [a.name for a in node.names])
        graph[name] = {m for m in found if m in names and m != name}
    return graph


def test_analysis_layers_point_one_way():
    """No import circle among analysis's modules, none imports a module above it in ``ANALYSIS_ORDER``
    (a fit imports no page, figure or document code; the statistics of differences no page), and every
    module has its place in the order."""
    graph = _analysis_graph(ANALYSIS_ROOT)
    assert "differences" in graph["frontier"] and "ladder" in graph["frontier"]  # imports inside functions are read
    assert _circles({"a": {"b"}, "b": {"a"}}) == [["a", "b"]]
    assert sorted(graph) == sorted(ANALYSIS_ORDER), "place every module of analysis in ANALYSIS_ORDER"
    circles = _circles(graph)
    assert not circles, "import circles in analysis: " + " | ".join(
        "; ".join(f"{m} -> {', '.join(sorted(graph[m] & set(c)))}" for m in c) for c in circles)
    rank = {m: i for i, m in enumerate(ANALYSIS_ORDER)}
    upward = sorted(f"analysis.{m} -> analysis.{d}" for m, deps in graph.items() for d in deps if rank[d] > rank[m])
    assert not upward, "imports that run up the layers of analysis: " + ", ".join(upward)


def _top_level_imports(path: Path) -> set:
    """Every module an absolute import of ``path`` names (``import a.b``, ``from a.b import c``: ``a.b``)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module)
    return found


RUNNER = ("sim.runner", "sim.runconfig", "sim.runplan", "sim.runexec", "sim.runmanifest")


def test_sim_outside_its_commands_imports_no_analysis():
    """Reports sit above the runs: a run's per-shard summary step (``analysis.summaries``) is handed to the
    runner by the command that starts it, so no module of ``sim`` outside ``sim/commands`` imports
    ``analysis``."""
    wrong = sorted(f"{m} -> {', '.join(sorted(d for d in _top_level_imports(p) if d.split('.')[0] == 'analysis'))}"
                   for m, p in MODULES.items() if not m.startswith("sim.commands")
                   and any(d.split(".")[0] == "analysis" for d in _top_level_imports(p)))
    assert wrong == [], "sim imports analysis outside sim/commands: " + "; ".join(wrong)
    assert any(d.startswith("analysis.") for d in _top_level_imports(MODULES["sim.commands.simulate"]))  # the reader


def test_the_runner_is_split_by_job_without_a_circle():
    """The runner's modules: config, plan, manifest and shard execution below the driver (``sim.runner``);
    each imports only those below it, none imports the driver, and no circle joins them."""
    below = {"sim.runconfig": set(), "sim.runplan": {"sim.runconfig"}, "sim.runexec": set(),
             "sim.runmanifest": {"sim.runconfig", "sim.runplan"}}
    for name, allowed in below.items():
        used = GRAPH[name] & set(RUNNER)
        assert used <= allowed, f"{name} imports {', '.join(sorted(used - allowed))} of the runner's modules"
    assert GRAPH["sim.runner"] >= {"sim.runplan", "sim.runexec", "sim.runmanifest"}
    assert not [c for c in _circles(GRAPH) if set(c) & set(RUNNER)]
    callers = sorted(m for m, deps in GRAPH.items() if deps & set(RUNNER) and m not in RUNNER)
    assert "sim.runner" not in {d for m in RUNNER for d in GRAPH[m]}, "a runner module imports the driver"
    assert callers, "the import reader found no caller of the runner"
