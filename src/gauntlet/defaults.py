"""Defaults shared by the command line and the engine, in a module cheap to import."""

DEFAULT_CONCURRENCY = 8
"""Cases asked at once."""
DEFAULT_TIMEOUT = 30.0
"""Seconds for one HTTP attempt's whole exchange."""
DEFAULT_RETRIES = 2
"""HTTP retries after connect errors, timeouts, 429 and 502/503/504."""
