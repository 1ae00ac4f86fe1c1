"""The compiled kernels the bots share, over count vectors and meld rows (``sim.meldsearch``'s row
format), each module below the next:

- ``hands``: a hand against meld rows and the meld search as the bots call it (its size, the copies
  of a card on rows, its least-deadwood reading, a card that could still meld, a discard left, the
  opening that leaves one, CPython's set order as the decisions' tie-break);
- ``plays``: a play being built (the draw's sources, a taken discard's obligation, the operation
  rows and the working table they are applied to and undone from);
- ``layoffs``: the lay-off search (naturals onto run ends and into groups, splits of runs, jokers)
  and melding a card taken from the discard pile;
- ``goout``: going out this turn, with the hand alone or with the table's help;
- ``discards``: the discard thrown when a play chose none.

A bot's own decisions live in its module (``greedy_core``, ``expert_core``, ``table_play``,
``random_bot``, ``search_core``) and call these; the engine's rules they obey are
``sim.engine.core`` and ``sim.engine.turn``'s.
"""
