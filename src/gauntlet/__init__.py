"""gauntlet: a merge-blocking evaluation gate for generative-AI features."""

from gauntlet.cases.loader import LoadedSuite, SuiteSet, load_suites, parse_suite
from gauntlet.cases.model import Suite
from gauntlet.errors import ConfigError, ConfigErrors, ExitCode, GauntletError

__version__ = "0.1.0"

__all__ = [
    "ConfigError",
    "ConfigErrors",
    "ExitCode",
    "GauntletError",
    "LoadedSuite",
    "Suite",
    "SuiteSet",
    "__version__",
    "load_suites",
    "parse_suite",
]
