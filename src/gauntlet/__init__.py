"""gauntlet: a merge-blocking evaluation gate for generative-AI features."""

__version__ = "0.1.0"

from gauntlet.cases.loader import LoadedSuite, SuiteSet, load_suites, parse_suite  # noqa: E402
from gauntlet.cases.model import Suite  # noqa: E402
from gauntlet.errors import ConfigError, ConfigErrors, ExitCode, GauntletError  # noqa: E402
from gauntlet.run.engine import run_gauntlet  # noqa: E402
from gauntlet.run.results import Results, Verdict  # noqa: E402
from gauntlet.targets.contract import Target, TargetResponse  # noqa: E402

__all__ = [
    "ConfigError",
    "ConfigErrors",
    "ExitCode",
    "GauntletError",
    "LoadedSuite",
    "Results",
    "Suite",
    "SuiteSet",
    "Target",
    "TargetResponse",
    "Verdict",
    "__version__",
    "load_suites",
    "parse_suite",
    "run_gauntlet",
]
