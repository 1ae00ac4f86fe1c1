"""The compiler plumbing: numba's on-disk cache made safe between processes (``cache``), each compiled
function's machine code made once (``link``) and two costs of numba's compiles that compute nothing
(``trim``).  Nothing here knows a card or a rule."""
