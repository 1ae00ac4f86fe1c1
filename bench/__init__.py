"""Benchmarks of kalooki-lab, kept out of the library packages: speed and memory figures of the meld
search (``bench.meld``), the engine (``bench.engine``), the runner (``bench.runner``) and the report
(``bench.report``).  ``python -m bench`` (what ``make bench`` runs) prints them all; figures are
printed, never asserted.
"""
