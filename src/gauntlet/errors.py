"""The one exception tree and the exit-code contract.

Every exception gauntlet raises on purpose is a `GauntletError`, and the CLI turns every one
of them into exit code 2. Outcomes (a gate that failed, a run that was unscoreable) are data,
never exceptions.

```
GauntletError                 every exception we raise on purpose -> exit 2
├── ConfigError               one located problem: path, line, column, message (+ hint)
│   ├── ConfigSyntaxError       bytes and YAML: encoding, size, duplicate keys, tags, aliases
│   └── ConfigSchemaError       a case file's content breaks the case-file schema
├── ConfigErrors              every ConfigError found in one load, reported together
├── UsageError                flags that cannot go together, or a value the CLI cannot use
├── ResultsError              a results file that cannot be written or read back
├── HistoryError              a run-history file that cannot be opened, read or written
├── Interrupted               a signal stopped the run before any case was asked
└── TargetError               the target could not be asked, or broke the contract
    ├── TargetImportError       --callable could not be imported, or is not a target
    ├── TargetUnreachableError  DNS, connect, TLS: nothing answered
    ├── TargetTimeoutError      no whole answer within the deadline
    └── TargetContractError     an answer that is not a TargetResponse (field named)
```

An error about a value a caller passed names the library's parameter as data (a
`Parameter` among its `parts`): `str()` says `url`, `header` or `spec`, as a caller of the
Python API wrote it, and the command line words the same error with its own option
(`--http-url`, `--header`, `--callable`) through `GauntletError.name_options`.

A `TargetError` raised while one case is asked makes that case *errored*: recorded with the
error as its reason, never dropped and never a pass; the run goes on and its verdict is
withheld. Raised before any case is asked (a `--callable` that is not a target), it stops the
run with exit 2.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import IntEnum
from pathlib import Path
from typing import NamedTuple

from gauntlet.words import plural


class ExitCode(IntEnum):
    """The process exit codes, the contract with CI (see `docs/exit-codes.md`)."""

    PASS = 0
    """Every gate met its threshold and the run was scoreable."""
    GATE_FAILED = 1
    """At least one gate missed its threshold."""
    HARNESS_ERROR = 2
    """The harness could not run or could not finish: bad flags, bad case files, and so on."""
    UNSCOREABLE = 4
    """The target's answers were unreadable and no loaded suite could have failed it for that."""


class Parameter(NamedTuple):
    """A parameter an error is about, named as data so each caller can word it its own way."""

    name: str
    """The library's name for it, such as `url`: what `str()` of the error says."""


class GauntletError(Exception):
    """Base of every exception gauntlet raises on purpose.

    Args:
        parts: The message, in pieces: text, and the `Parameter`s it is about, which read as
            their names until `name_options` words them otherwise.
    """

    def __init__(self, *parts: str | Parameter) -> None:
        self.parts: tuple[str | Parameter, ...] = parts
        super().__init__(self.worded())

    @property
    def parameters(self) -> tuple[str, ...]:
        """The names of the parameters the message is about, in order, each once."""
        return tuple(dict.fromkeys(part.name for part in self.parts if isinstance(part, Parameter)))

    def worded(self, options: Mapping[str, str] | None = None) -> str:
        """The message with each parameter named as `options` says, else by its own name."""
        names = options or {}
        return "".join(
            part if isinstance(part, str) else names.get(part.name, part.name)
            for part in self.parts
        )

    def name_options(self, options: Mapping[str, str]) -> None:
        """Word the parameters in `options` as the options they came from, in place.

        The command line calls this with, say, `{"url": "--http-url"}` on an error from a
        function it gave that option's value to, so its message names the flag the user
        typed. An error about no parameter in `options` is left as it is.
        """
        if not set(self.parameters) & set(options):
            return
        self.parts = tuple(
            options[part.name] if isinstance(part, Parameter) and part.name in options else part
            for part in self.parts
        )
        self.args = (self.worded(),)


class ConfigError(GauntletError):
    """One problem in the input, located as precisely as the input allows.

    Attributes:
        path: The file (or directory) the problem is in, as the user named it.
        line: 1-based line, or `None` for a problem with a directory as a whole.
        column: 1-based column, or `None` with `line`.
        message: What is wrong and why, e.g. ``threshold: must be above 0 and at most 1``.
        hint: An obvious fix, when there is one.
    """

    def __init__(
        self,
        path: str | Path,
        message: str,
        *,
        line: int | None = None,
        column: int | None = None,
        hint: str | None = None,
    ) -> None:
        self.path = str(path)
        self.line = line
        self.column = column
        self.message = message
        self.hint = hint
        super().__init__(self.render())

    @property
    def location(self) -> str:
        """`path:line:column`, or just `path` when the problem has no line."""
        if self.line is None:
            return self.path
        return f"{self.path}:{self.line}:{self.column or 1}"

    def render(self) -> str:
        """The one-line form `path:line:column: message`, plus a hint line when there is one."""
        text = f"{self.location}: {self.message}"
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text


class ConfigSyntaxError(ConfigError):
    """The bytes or the YAML of a case file are refused before any schema is applied."""


class ConfigSchemaError(ConfigError):
    """A case file parsed, but its content breaks the case-file schema or a cross-file rule."""


class ConfigErrors(GauntletError):
    """Every problem found while loading, so a user fixes them in one pass, not one per run."""

    def __init__(self, errors: Iterable[ConfigError]) -> None:
        self.errors: tuple[ConfigError, ...] = tuple(errors)
        if not self.errors:
            raise ValueError("ConfigErrors needs at least one error")
        files = len({error.path for error in self.errors})
        super().__init__(f"{plural(len(self.errors), 'problem')} in {plural(files, 'file')}")


class UsageError(GauntletError):
    """Flags that cannot go together, or a value the command line cannot use."""


class ResultsError(GauntletError):
    """A results file that cannot be written, or read back as one."""


class HistoryError(GauntletError):
    """A run-history file that cannot be opened, read or written, or is not one at all."""


class Interrupted(GauntletError):
    """SIGINT or SIGTERM stopped the run before any case was asked (during the pre-flight).

    A signal once cases are being asked is not an error: the run records the cases it did not
    ask and withholds its verdict. A retry wait that a signal cuts short raises this too; the
    engine records that case as not asked.
    """


class TargetError(GauntletError):
    """The target could not be asked, or its answer broke the target contract."""

    attempts: int = 1
    """How many attempts were made before giving up."""
    waited: float = 0.0
    """Seconds spent waiting between attempts."""


class TargetImportError(TargetError):
    """`--callable module:factory` could not be imported or called, or did not give a target."""


class TargetUnreachableError(TargetError):
    """Nothing answered: the name did not resolve, the connection or TLS failed."""


class TargetTimeoutError(TargetError):
    """No whole answer arrived within the deadline."""


class TargetContractError(TargetError):
    """An answer that is not a `TargetResponse`; the message names the field and the problem."""


def describe_raised(error: BaseException) -> str:
    """`Type: text` of an exception another's code raised, whatever its `__str__` does.

    A target's exception (or any other code's) is hostile input: its `__str__` may raise, even
    `SystemExit`. Such an exception is named by its type and says its text could not be read.
    """
    name = type(error).__name__
    try:
        text = str(error)
    except BaseException as failure:  # its text is the target's code too
        return f"{name} (its text could not be read: {type(failure).__name__})"
    return f"{name}: {text}" if text else name
