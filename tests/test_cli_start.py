"""The console command starts light: building its parser loads neither the engine nor the analysis."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

HEAVY = ("numba", "sim.engine", "sim.bots", "sim.melds", "sim.meldsearch", "sim.equity", "sim.tournament",
         "sim.game", "pandas", "pyarrow", "scipy", "matplotlib", "ray")


def test_building_the_parser_loads_no_heavy_module():
    """Every command starts by building the parser (every subcommand's options), so `kalooki --help`
    and a command's usage errors answer without loading the compiled engine, the bots, the meld search
    or the data and statistics libraries: a command imports those when it runs.
    Run in a fresh interpreter, as the console command is, so that no other test's imports count."""
    code = ("import sys, sim.cli\n"
            "sim.cli.build_parser()\n"
            f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    loaded = [m for m in done.stdout.strip().split(",") if m]
    assert not loaded, f"building the parser imports {loaded}; import them in the commands' run functions"


def test_version_loads_neither_numpy_nor_the_parser():
    """`kalooki --version` answers before the parser is built: numpy, pyarrow and numba stay unloaded."""
    code = ("import sys; from sim.cli import main; rc = main(['--version']); "
            "print(rc, sorted(m for m in ('numpy', 'pyarrow', 'numba', 'sim.profiles') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    version, loaded = done.stdout.splitlines()
    from sim.version import ENGINE_VERSION, SCHEMA_VERSION
    assert version.startswith("kalooki ") and version.endswith(f"(engine {ENGINE_VERSION}, schema {SCHEMA_VERSION})")
    assert loaded == "0 []", loaded
