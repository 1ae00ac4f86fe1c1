"""kalooki-lab simulation: cards, rule profiles, meld search, the engine, bots and the runner."""

import os

# LLVM optimisation level 1 for every compiled kernel unless the user chose one (NUMBA_OPT): the hand
# loop compiles about a fifth faster from an empty cache than at numba's default 3 and plays as fast
# (``python -m bench compile`` and ``python -m bench engine``).  Set before numba is imported, and
# inherited by the warm-up's child process and by Ray's local workers.
NUMBA_OPT_DEFAULTED = "NUMBA_OPT" not in os.environ
os.environ.setdefault("NUMBA_OPT", "1")
