"""Adapters onto the one target seam, `AsyncTarget`: Python callables and the toy.

The engine asks through `AsyncTarget` only. A Python target (`--callable`, the toy, a test's
stub) keeps the simple protocol `Target`: a `name` and an `ask(prompt, language)` that may be
a plain function or a coroutine function. `CallableTarget` looks at it once, when it is
adapted, and never again per ask.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import TYPE_CHECKING, Any

from gauntlet.errors import TargetContractError
from gauntlet.redact import Secret
from gauntlet.targets.contract import (
    DECLARED,
    NATIVE,
    AsyncTarget,
    Conversation,
    Message,
    Provenance,
    Target,
    Traced,
    check_response,
    declared,
)

if TYPE_CHECKING:
    from gauntlet.targets.scripted import Scripted


class CallableTarget:
    """A Python target adapted to `AsyncTarget`.

    A coroutine `ask` is awaited; a plain one runs in a pool of `concurrency` threads, so
    `--concurrency` is not capped by asyncio's small default pool. A coroutine `ask_traced`
    (returning a `Traced`, and taking `stop` if it waits to retry), `probe` or `aclose` that
    the target has is used too. Every answer is checked against the contract. Its fields are
    all declared: a Python target returns them itself.

    Args:
        target: The object with `name` and `ask`.
        concurrency: Threads for a plain `ask`.
    """

    def __init__(self, target: Target, *, concurrency: int = 8) -> None:
        self.target = target
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
        """The Python target's own name."""
        return self.target.name

    @property
    def secrets(self) -> tuple[Secret, ...]:
        """None: a Python target holds no credentials gauntlet knows of."""
        return ()

    def provides(self, language: str) -> Provenance:  # noqa: ARG002 - the same in every language
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
        stop: asyncio.Event | None = None,  # noqa: ARG002 - a Python target does not wait to retry
        conversation: Conversation | None = None,  # noqa: ARG002 - it keeps its own state
        tools: Scripted | None = None,  # noqa: ARG002 - it calls its own tools, and reports them
    ) -> Traced:
        """Ask once and check the answer against the contract.

        Raises:
            TargetContractError: history is given to a target that takes none, or the answer
                breaks the contract.
        """
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
        """The target's own `probe`, if it has one; else None (it is in this process)."""
        if self._probe is None:
            return None
        answer = await self._probe()
        return answer if isinstance(answer, Traced) else _traced(answer)

    async def aclose(self) -> None:
        """Stop the threads (not waiting for an `ask` that never returns); close the target."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
        if self._close is not None:
            await self._close()


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


def _traced(answer: object) -> Traced:
    """A native answer checked against the contract, with what it reported."""
    response = check_response(answer)
    return Traced(response, provenance=declared(response))
