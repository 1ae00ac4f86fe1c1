"""The compiler plumbing: numba's on-disk cache made safe between processes (``cache``), each compiled
function's machine code made once (``link``) and a cost of numba's compiles that computes nothing
(``trim``).  Nothing here knows a card or a rule.

Each of them patches private internals of numba or llvmlite, and checks first that what it relies on
is there as it expects (``internals``); where anything differs it is left out, numba's own behaviour
stays, and importing this package warns once (``NumbaInternalsWarning``) naming what differed.
"""
from . import internals
from . import link  # noqa: F401  (first: the cache's patches wrap numba's methods after it has replaced them)
from . import trim  # noqa: F401
from . import cache  # noqa: F401

internals.report()
