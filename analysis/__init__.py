"""kalooki-lab analysis: load a run's dataset, compute balance metrics with intervals, report."""
