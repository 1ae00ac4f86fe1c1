"""kalooki-lab simulation: cards, rule profiles, meld search, the engine, bots and the runner."""

# Kernels compile at numba's own LLVM optimisation level (3, or NUMBA_OPT where the user sets it).
# Since each function's machine code is made once (sim/jit/link.py), the level costs little compile
# time (about 4 s of 60 from an empty cache, against a fifth of it when numba re-optimised every
# callee at every level), and level 1 left the look-ahead table about a ninth slower.
