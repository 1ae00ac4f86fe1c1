"""The suite's tiers, and the compiled kernels every test process shares.

Tiers (markers declared in pyproject.toml; ``make test`` selects neither marker):

- unmarked, ``make test``: every check of behaviour, in parallel (pytest-xdist, whole test files to a
  process: ``--dist loadfile``).  Its budget is five minutes on 2 idle cores (420 CPU-seconds), so a
  new test plays the smallest seeded run that can still fail on what it guards, and shares what
  several tests of its file compute (a module-scoped fixture, made once since the file's tests share
  a process) instead of computing it again.
- ``@pytest.mark.slow``, ``make test-slow``, run by CI after ``make test``: studies of faults and of a
  cluster that start Ray clusters or ``kalooki simulate`` subprocesses, kill drivers or workers and
  resume runs; the studies, sweeps and runs written to an S3 bucket (moto's server, one a test file);
  fresh processes compiling kernels or the package (the numba cache's and link's cross-process checks,
  an installed wheel); tens of seconds each, about twenty minutes in all.  A test goes here when it
  costs more than about fifteen seconds on an idle core, or starts such a server or cluster, and no
  smaller run asserts the same thing; a smaller version of the same behaviour stays unmarked where one
  exists (a small run in the bucket read back: ``test_cluster``; the hands played with numba's
  internals renamed: ``test_numba_fallback``).
- ``@pytest.mark.soak``, ``make soak`` only, never in CI: soaks and statistical studies sized by
  settings such as ``KALOOKI_SOAK_HANDS`` (hundreds of thousands of hands, hundreds of A/A
  comparisons), minutes to hours.

The whole suite shares one numba cache: each test process (``make test`` runs one per core, at most
four) compiles or loads every bot's kernels once, up front, before its first test
(``sim.bots.hand_loop.warm_up()``, no bots named: every bot).  From an empty cache the processes
compile at once, each loading what the others have written (``sim.jit.cache`` locks every save and
load).

Each test starts with the objects of the tests before it frozen (``gc.collect()``, then ``gc.freeze()``):
the cyclic collector then walks only what the test itself makes, not the hundreds of thousands of
objects of numba's compiled kernels, pandas and matplotlib that every test process holds.  A full
collection over that heap costs a tenth of a second, and statsmodels' Holm correction
(``analysis.stats.adjust``) runs one at every call.  An object is still freed when its last reference
goes; only a reference cycle made unreachable after its test stays in memory."""
import gc

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    gc.collect()
    gc.freeze()


@pytest.fixture(scope="session", autouse=True)
def compiled_kernels():
    from sim.bots.hand_loop import warm_up
    warm_up()


@pytest.fixture
def figures_not_rasterised(monkeypatch):
    """Reports whose figures are drawn (every plot helper runs on its data) but not rendered to PNG:
    for a test that reads a report's text, tables or findings.  Rendering is most of a report's cost
    (constrained layout and the Agg raster, about a third of a second a figure).  Each figure is
    rendered by the tests of its page: ``test_analysis_report`` the report's and a comparison's,
    ``test_skill_compare`` the skill study's, and ``test_frontier``, ``test_sweep`` and ``test_tune``
    their own (``RASTERISED``).  Each figure not rendered stands as the PNG signature alone."""
    _not_rasterised(monkeypatch)


@pytest.fixture(scope="module")
def figures_not_rasterised_in_module(request):
    """``figures_not_rasterised`` for a whole test file, its module-scoped fixtures included
    (``pytestmark = pytest.mark.usefixtures(...)``), but for the figures its ``RASTERISED`` names (a
    set of ``Document.figure`` names, empty where the file sets none): those are rendered, for the
    file's tests of its own figure (``test_frontier``: ``frontier.png``)."""
    with pytest.MonkeyPatch.context() as patch:
        _not_rasterised(patch, getattr(request.module, "RASTERISED", frozenset()))
        yield


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _not_rasterised(patch: pytest.MonkeyPatch, rasterised=frozenset()) -> None:
    from analysis import document, plots
    real_png, real_figure = plots.png_bytes, document.Document.figure
    drawing = []  # the name of the figure a Document is drawing

    def figure(self, name, *args, **kwargs):
        drawing.append(name)
        try:
            return real_figure(self, name, *args, **kwargs)
        finally:
            drawing.pop()

    patch.setattr(document.Document, "figure", figure)
    patch.setattr(plots, "png_bytes", lambda fig, dpi=100: real_png(fig, dpi) if drawing and drawing[-1] in rasterised
                  else PNG_SIGNATURE)
