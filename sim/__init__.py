"""kalooki-lab simulation: cards, rule profiles, meld search, the engine, bots and the runner."""
