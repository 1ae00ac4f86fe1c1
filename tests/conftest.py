"""The whole suite shares one numba cache: every kernel is compiled (or loaded) once, up front, in two
processes at once from an empty cache (``sim.bots.hand_loop.warm_up``), before the first test."""
import pytest


@pytest.fixture(scope="session", autouse=True)
def compiled_kernels():
    from sim.bots.hand_loop import warm_up
    warm_up()
