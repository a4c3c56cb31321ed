"""gauntlet: a merge-blocking evaluation gate for generative-AI features."""

from gauntlet.version import __version__

# Not `typing.TYPE_CHECKING`: importing typing would cost `gauntlet --version` more than
# the rest of its start-up (type checkers treat any `TYPE_CHECKING` name alike).
TYPE_CHECKING = False
if TYPE_CHECKING:  # explicit re-exports (`X as X`) for type checkers; loaded lazily below
    from gauntlet.cases.loader import LoadedSuite as LoadedSuite
    from gauntlet.cases.loader import SuiteSet as SuiteSet
    from gauntlet.cases.loader import load_suites as load_suites
    from gauntlet.cases.loader import parse_suite as parse_suite
    from gauntlet.cases.model import Suite as Suite
    from gauntlet.errors import ConfigError as ConfigError
    from gauntlet.errors import ConfigErrors as ConfigErrors
    from gauntlet.errors import ExitCode as ExitCode
    from gauntlet.errors import GauntletError as GauntletError
    from gauntlet.run.engine import run_gauntlet as run_gauntlet
    from gauntlet.run.results import Results as Results
    from gauntlet.run.results import Verdict as Verdict
    from gauntlet.run.schedule import plan_of as plan_of
    from gauntlet.run.settings import RunSettings as RunSettings
    from gauntlet.targets.contract import Target as Target
    from gauntlet.targets.contract import TargetResponse as TargetResponse

_EXPORTS = {
    "ConfigError": "gauntlet.errors",
    "ConfigErrors": "gauntlet.errors",
    "ExitCode": "gauntlet.errors",
    "GauntletError": "gauntlet.errors",
    "LoadedSuite": "gauntlet.cases.loader",
    "Results": "gauntlet.run.results",
    "RunSettings": "gauntlet.run.settings",
    "Suite": "gauntlet.cases.model",
    "SuiteSet": "gauntlet.cases.loader",
    "Target": "gauntlet.targets.contract",
    "TargetResponse": "gauntlet.targets.contract",
    "Verdict": "gauntlet.run.results",
    "load_suites": "gauntlet.cases.loader",
    "parse_suite": "gauntlet.cases.loader",
    "plan_of": "gauntlet.run.schedule",
    "run_gauntlet": "gauntlet.run.engine",
}

__all__ = [*sorted(_EXPORTS), "__version__"]


def __getattr__(name: str) -> object:
    # Public names load on first use, so `gauntlet --version` does not pay for pydantic
    # models, the HTTP client or the toy.
    if name in _EXPORTS:
        from importlib import import_module

        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(["__version__", *_EXPORTS])
