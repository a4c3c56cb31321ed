"""Defaults and bounds shared by the command line and the engine, in a module cheap to import."""

DEFAULT_CONCURRENCY = 8
"""Cases asked at once."""
DEFAULT_TIMEOUT = 30.0
"""Seconds for one HTTP attempt's whole exchange."""
DEFAULT_RETRIES = 2
"""HTTP retries after connect errors, timeouts, 429 and 502/503/504."""
MAX_REPEAT = 100
"""The most asks per case: a suite's `repeat` and `pass_k`, and `gauntlet run --repeat`.

Every ask is kept in the results file, so a slip such as `repeat: 1000000` must be refused,
not run. A hundred asks that all pass already put a case's failure rate below 4% (the 95%
Wilson bound); past that, more cases say more than more asks."""
