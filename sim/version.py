"""The engine and schema versions, on their own so that ``kalooki --version`` imports nothing heavy.

Bump ``ENGINE_VERSION`` whenever results for the same seed can change (rules, bots, RNG use, recorded
columns); ``SCHEMA_VERSION`` whenever the dataset's tables change (``sim/schema.py``)."""

ENGINE_VERSION = "0.22.0"
SCHEMA_VERSION = 2
