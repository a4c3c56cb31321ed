"""Adapters onto the one target seam, `AsyncTarget`: Python callables and the toy.

The engine asks through `AsyncTarget` only. A Python target (`--callable`, the toy, a test's
stub) keeps the simple protocol `Target`: a `name` and an `ask(prompt, language)` that may be
a plain function or a coroutine function. `CallableTarget` looks at it once, when it is
adapted, and never again per ask.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import ValidationError

from gauntlet import limits
from gauntlet.errors import Interrupted, TargetContractError, TargetError, describe_raised
from gauntlet.redact import Secret
from gauntlet.targets.contract import (
    DECLARED,
    NATIVE,
    AsyncTarget,
    Conversation,
    Message,
    Provenance,
    Target,
    TargetResponse,
    Traced,
    check_response,
    declared,
    describe_contract_errors,
)

if TYPE_CHECKING:
    from gauntlet.targets.scripted import Scripted


_T = TypeVar("_T")


class TargetRaisedError(TargetError):
    """A Python target's own code raised `raised` (worded by `describe_raised`).

    Args:
        raised: What was raised, as `Type: text`.
    """

    def __init__(self, raised: str) -> None:
        self.raised = raised
        super().__init__(f"the target raised {raised}")


class CallableTarget:
    """A Python target adapted to `AsyncTarget`.

    A coroutine `ask` is awaited; a plain one runs in a pool of `concurrency` threads, so
    `--concurrency` is not capped by asyncio's small default pool. A coroutine `ask_traced`
    (returning a `Traced`, and taking `stop` if it waits to retry), `probe` or `aclose` that
    the target has is used too. Every answer is checked against the contract. Its fields are
    all declared: a Python target returns them itself.

    Whatever the target's code raises while it is asked, probed or closed (`SystemExit`,
    `KeyboardInterrupt`, `GeneratorExit`, its own `CancelledError` or `BaseException`) is a
    `TargetError` worded by `target_raised`: a target cannot end the run. Only a cancellation
    the run asked for (its task is being cancelled) passes as one.

    Args:
        target: The object with `name` and `ask`.
        concurrency: Threads for a plain `ask`.
    """

    def __init__(self, target: Target, *, concurrency: int = 8) -> None:
        self.target = target
        self._name = target.name  # read once: what the results record, whatever it does later
        self._concurrency = max(1, concurrency)
        self._coroutine = inspect.iscoroutinefunction(target.ask)
        self._history = _takes_history(target)
        self._pool: ThreadPoolExecutor | None = None
        self._traced = _coroutine_method(target, "ask_traced")
        self._traced_stop = self._traced is not None and _takes(self._traced, "stop")
        self._probe = _coroutine_method(target, "probe")
        self._close = _coroutine_method(target, "aclose")

    @property
    def name(self) -> str:
        """The Python target's own name, as it was when adapted."""
        return self._name

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
        return self._history

    async def ask_traced(
        self,
        prompt: str,
        language: str,
        history: Sequence[Message] | None = None,
        *,
        stop: asyncio.Event | None = None,  # a Python target does not wait to retry
        conversation: Conversation | None = None,  # it keeps its own state
        tools: Scripted | None = None,  # it calls its own tools, and reports them
    ) -> Traced:
        """Ask once and check the answer against the contract.

        Raises:
            TargetContractError: history is given to a target that takes none, or the answer
                breaks the contract.
            TargetError: the target raised anything (see `target_raised`).
        """
        return await _contained(self._ask(prompt, language, history, stop), stop)

    async def _ask(
        self,
        prompt: str,
        language: str,
        history: Sequence[Message] | None,
        stop: asyncio.Event | None,
    ) -> Traced:
        extra: dict[str, object] = {}
        if history is not None:
            if not self._history:
                raise TargetContractError(
                    f"{self.name} holds no conversations: its ask() takes no `history`, and "
                    "multi-turn cases need ask(prompt, language, history=...)"
                )
            extra["history"] = tuple(history)
        if self._traced is not None:
            if self._traced_stop:
                extra["stop"] = stop
            got = await self._traced(prompt, language, **extra)
            traced = got if isinstance(got, Traced) else Traced(*got)
            response = check_response(traced.response)
            if traced.provenance is DECLARED:
                return traced._replace(response=response, provenance=declared(response))
            return traced._replace(response=response)
        if self._coroutine:
            answer = await self.target.ask(prompt, language, **extra)  # type: ignore[misc]
        else:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(
                    max_workers=self._concurrency, thread_name_prefix="gauntlet-ask"
                )
            loop = asyncio.get_running_loop()
            answer = await loop.run_in_executor(
                self._pool, partial(self.target.ask, prompt, language, **extra)
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
    """`target` itself if it is an `AsyncTarget` already, else adapted by `CallableTarget`."""
    if _is_async_target(target):
        return target  # type: ignore[return-value]
    return CallableTarget(target, concurrency=concurrency)  # type: ignore[arg-type]


def _is_async_target(target: object) -> bool:
    return all(
        hasattr(target, attribute)
        for attribute in ("ask_traced", "probe", "aclose", "provides", "holds_conversations")
    )


def _coroutine_method(target: object, name: str) -> Callable[..., Awaitable[Any]] | None:
    method = getattr(target, name, None)
    return method if inspect.iscoroutinefunction(method) else None


def _takes(method: Callable[..., object], name: str) -> bool:
    try:
        return name in inspect.signature(method).parameters
    except (TypeError, ValueError):  # pragma: no cover - builtins without a signature
        return False


def _takes_history(target: Target) -> bool:
    method = _coroutine_method(target, "ask_traced") or target.ask
    try:
        parameters = inspect.signature(method).parameters.values()
    except (TypeError, ValueError):  # pragma: no cover - builtins without a signature
        return False
    return any(p.name == "history" or p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters)


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
    does `Interrupted` once `stop` is set (a target's `ask_traced` that waits to retry is
    told to stop so), and only then.
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
