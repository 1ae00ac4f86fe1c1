"""The whole suite shares one numba cache: each test process (``make test`` runs one per core, at most
four, with pytest-xdist) compiles or loads every bot's kernels once, up front, before its first test
(``sim.bots.hand_loop.warm_up()``, no bots named: every bot).  From an empty cache the processes
compile at once, each loading what the others have written (``sim.jit.cache`` locks every save and
load)."""
import pytest


@pytest.fixture(scope="session", autouse=True)
def compiled_kernels():
    from sim.bots.hand_loop import warm_up
    warm_up()
