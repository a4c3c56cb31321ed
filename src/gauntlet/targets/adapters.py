"""Adapters onto the one target seam, `AsyncTarget`: Python callables and the toy.

The engine asks through `AsyncTarget` only, with one `Question` a turn. A Python target
(`--callable`, the toy, a test's stub) keeps the simple protocol `Target`: a `name` and an
`ask(prompt, language[, history])` that may be a plain function or a coroutine function.
`CallableTarget` looks at it once, when it is adapted (`look_at`), and never again per ask.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any, NamedTuple, TypeVar

from pydantic import ValidationError

from gauntlet import limits
from gauntlet.display import unencodable
from gauntlet.errors import Interrupted, TargetContractError, TargetError, describe_raised
from gauntlet.redact import Secret
from gauntlet.targets.contract import (
    NATIVE,
    AsyncTarget,
    Provenance,
    Question,
    Target,
    TargetResponse,
    Traced,
    check_response,
    declared,
    describe_contract_errors,
)

_T = TypeVar("_T")

EXPECTED = "an object with `name: str` and `ask(prompt, language)` returning a TargetResponse"
"""What a Python target is, as every refusal of one says."""


class TargetRaisedError(TargetError):
    """A Python target's own code raised `raised` (worded by `describe_raised`).

    Args:
        raised: What was raised, as `Type: text`.
    """

    def __init__(self, raised: str) -> None:
        self.raised = raised
        super().__init__(f"the target raised {raised}")


class NotATargetError(TargetContractError):
    """What a Python target's object gave is not a target; `problem` says why.

    Args:
        problem: Why, worded to follow what gave the object (` gave a Mute without ...`).
    """

    def __init__(self, problem: str) -> None:
        self.problem = problem
        super().__init__(f"the Python target{problem}")


class Shape(NamedTuple):
    """What the one look at a Python target found: all that is ever read of it per ask."""

    name: str
    ask: Callable[..., Any]
    coroutine: bool
    """Whether `ask` is a coroutine function (awaited), or plain (run in a thread)."""
    history: bool
    """Whether `ask` takes `history` (by that name, or any keyword)."""


def look_at(target: object) -> Shape:
    """Read a Python target's `name` and `ask` once each, and check them.

    The one place that looks at a user's signature: `ask` must be callable as
    `ask(prompt, language)`, and takes history if it names `history` or takes any keyword.

    Raises:
        NotATargetError: the name is not non-empty text UTF-8 can encode, or `ask` is
            missing or cannot be called so.
    """
    what = type(target).__name__
    name = getattr(target, "name", None)
    if not isinstance(name, str) or not name.strip():
        raise NotATargetError(f" gave a {what} without a `name` text; expected {EXPECTED}")
    garbled = unencodable(name)
    if garbled is not None:  # the name is written to the results file
        raise NotATargetError(f" gave a {what} whose `name` {garbled}")
    ask = getattr(target, "ask", None)
    if not callable(ask):
        raise NotATargetError(f" gave a {what} without an `ask` method; expected {EXPECTED}")
    try:
        signature = inspect.signature(ask)
        signature.bind("prompt", "language")
    except (TypeError, ValueError) as exc:
        raise NotATargetError(
            f": {what}.ask cannot be called as ask(prompt, language): {exc}"
        ) from None
    history = any(
        p.name == "history" or p.kind is p.VAR_KEYWORD for p in signature.parameters.values()
    )
    return Shape(name, ask, inspect.iscoroutinefunction(ask), history)


class CallableTarget:
    """A Python target adapted to `AsyncTarget`.

    A coroutine `ask` is awaited; a plain one runs in a pool of `concurrency` threads, so
    `--concurrency` is not capped by asyncio's small default pool. A coroutine `probe` or
    `aclose` that the target has is used too. Every answer is checked against the contract.
    Its fields are all declared: a Python target returns them itself.

    Whatever the target's code raises while it is asked, probed or closed (`SystemExit`,
    `KeyboardInterrupt`, `GeneratorExit`, its own `CancelledError` or `BaseException`) is a
    `TargetError` worded by `target_raised`: a target cannot end the run. Only a cancellation
    the run asked for (its task is being cancelled) passes as one.

    Args:
        target: The object with `name` and `ask`.
        concurrency: Threads for a plain `ask`.

    Raises:
        NotATargetError: `target` is not a target (see `look_at`).
    """

    def __init__(self, target: Target, *, concurrency: int = 8) -> None:
        self.target = target
        # Read once: what the results record and what is asked, whatever it does later.
        self._shape = look_at(target)
        self._concurrency = max(1, concurrency)
        self._pool: ThreadPoolExecutor | None = None
        self._probe = _coroutine_method(target, "probe")
        self._close = _coroutine_method(target, "aclose")

    @property
    def name(self) -> str:
        """The Python target's own name, as it was when adapted."""
        return self._shape.name

    @property
    def secrets(self) -> tuple[Secret, ...]:
        """None: a Python target holds no credentials gauntlet knows of."""
        return ()

    def provides(self, language: str) -> Provenance:  # the same in every language
        """Every field declared: the target returns the contract's fields itself."""
        return NATIVE

    @property
    def holds_conversations(self) -> bool:
        """Whether its `ask` takes `history`."""
        return self._shape.history

    async def ask(self, question: Question) -> Traced:
        """Ask once and check the answer against the contract.

        Only the prompt, the language and (for a multi-turn case) the history reach the
        target: it keeps its own conversation state, calls its own tools and does not wait
        to retry.

        Raises:
            TargetContractError: history is given to a target that takes none, or the answer
                breaks the contract.
            TargetError: the target raised anything (see `target_raised`).
        """
        return await _contained(self._ask(question), question.stop)

    async def _ask(self, question: Question) -> Traced:
        shape = self._shape
        extra: dict[str, object] = {}
        if question.history is not None:
            if not shape.history:
                raise TargetContractError(
                    f"{self.name} holds no conversations: its ask() takes no `history`, and "
                    "multi-turn cases need ask(prompt, language, history=...)"
                )
            extra["history"] = question.history
        if shape.coroutine:
            answer = await shape.ask(question.prompt, question.language, **extra)
        else:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(
                    max_workers=self._concurrency, thread_name_prefix="gauntlet-ask"
                )
            loop = asyncio.get_running_loop()
            answer = await loop.run_in_executor(
                self._pool, partial(shape.ask, question.prompt, question.language, **extra)
            )
            if inspect.isawaitable(answer):
                answer = await answer
        return _traced(answer)

    async def probe(self) -> Traced | None:
        """The target's own `probe`, if it has one; else None (it is in this process).

        Raises:
            TargetError: it raised anything, or its answer breaks the contract.
        """
        if self._probe is None:
            return None
        return await _contained(self._probed(self._probe))

    @staticmethod
    async def _probed(probe: Callable[[], Awaitable[Any]]) -> Traced:
        answer = await probe()
        return answer if isinstance(answer, Traced) else _traced(answer)

    async def aclose(self) -> None:
        """Stop the threads (not waiting for an `ask` that never returns); close the target.

        Raises:
            TargetError: the target's `aclose` raised anything ("closing the target failed").
        """
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
        if self._close is not None:
            close, self._close = self._close, None  # once: a failure is not met again
            try:
                await _contained(_called(close))
            except TargetError as exc:
                raise TargetError(f"closing the target failed: {exc}") from None


def as_async_target(target: Target | AsyncTarget, *, concurrency: int = 8) -> AsyncTarget:
    """`target` itself if it is an `AsyncTarget` already, else adapted by `CallableTarget`.

    Told apart by what only the seam has (`provides`, `holds_conversations`, `probe`,
    `aclose`): both kinds have an `ask`. The command line never comes here with a user's
    object: `--callable` is adapted by `CallableTarget` itself.
    """
    if _is_async_target(target):
        return target  # type: ignore[return-value]
    return CallableTarget(target, concurrency=concurrency)  # type: ignore[arg-type]


def _is_async_target(target: object) -> bool:
    return all(
        hasattr(target, attribute)
        for attribute in ("ask", "probe", "aclose", "provides", "holds_conversations")
    )


def _coroutine_method(target: object, name: str) -> Callable[..., Awaitable[Any]] | None:
    method = getattr(target, name, None)
    return method if inspect.iscoroutinefunction(method) else None


def target_raised(error: BaseException) -> TargetError:
    """What a target's code raising `error` means: a `TargetError` worded for its case.

    A `TargetResponse` that pydantic refused to build in the target's own code breaks the
    contract, and reads as such; anything else is "the target raised" its type and text
    (read safely: see `describe_raised`). A `TargetError` the target raised itself keeps its
    text only: its attributes (`attempts`, `waited`) are the target's to forge.
    """
    if isinstance(error, ValidationError) and any(
        problem["type"] in ("recursion_loop", "recursion_depth_exceeded")
        or "recursion limit" in problem["msg"]
        for problem in error.errors(include_url=False, include_input=False)
    ):
        return TargetContractError(
            limits.TOO_DEEP + ": the target built an answer too deep to check"
        )
    if isinstance(error, ValidationError) and error.title == TargetResponse.__name__:
        return TargetContractError(describe_contract_errors(error))
    if isinstance(error, TargetError):
        try:
            text = str(error)
        except BaseException:  # a subclass of the target's own may do anything
            return TargetRaisedError(describe_raised(error))
        # One of gauntlet's own classes keeps its class; a subclass the target made is ours.
        kind = type(error) if type(error).__module__ == TargetError.__module__ else TargetError
        return kind(text)
    return TargetRaisedError(describe_raised(error))


def is_cancelling() -> bool:
    """Whether the running task is being cancelled: a `CancelledError` now is the run's own.

    A target that raises `CancelledError` itself (not cancelled by the run) is not cancelling.
    """
    try:
        task = asyncio.current_task()
    except RuntimeError:  # pragma: no cover - no loop: nothing of ours cancels
        return False
    return task is not None and task.cancelling() > 0


async def _contained(work: Coroutine[Any, Any, _T], stop: asyncio.Event | None = None) -> _T:
    """`work` (a target's code) awaited in a task of its own, anything it raises a `TargetError`.

    Its own task, because asyncio delivers an exception set on a future the code awaited
    (one from a thread, say) by throwing it into the task's outermost coroutine, and a
    `GeneratorExit` thrown so skips every handler between: it lands in `_caught` here, not in
    the engine. `SystemExit` and `KeyboardInterrupt` that left a task would leave the event
    loop too. A cancellation of the caller's task cancels this one, and passes as one; so
    does `Interrupted` once `stop` is set (a target that waits to retry is told to stop so),
    and only then.
    """
    return await asyncio.ensure_future(_caught(work, stop))


async def _called(method: Callable[[], Awaitable[_T]]) -> _T:
    return await method()


async def _caught(work: Coroutine[Any, Any, _T], stop: asyncio.Event | None) -> _T:
    try:
        return await work
    except Interrupted as exc:
        if stop is not None and stop.is_set():
            raise
        raise target_raised(exc) from None  # no stop was asked: it is the target's own
    except BaseException as exc:  # a target cannot end the run
        raise _unless_cancelled(exc) from None


def _unless_cancelled(error: BaseException) -> TargetError:
    """`target_raised(error)`, unless it is the run's own cancellation: then raised again."""
    if isinstance(error, asyncio.CancelledError) and is_cancelling():
        raise error
    return target_raised(error)


def _traced(answer: object) -> Traced:
    """A native answer checked against the contract, with what it reported."""
    response = check_response(answer)
    return Traced(response, provenance=declared(response))
