"""The target contract: what a target is, and the response it must give for every prompt."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Literal, NamedTuple, Protocol, TypedDict, runtime_checkable

from pydantic import BaseModel, ConfigDict, StrictBool, StrictStr, ValidationError

from gauntlet.errors import TargetContractError


class TargetResponse(BaseModel):
    """What a target answered and what it reports having done.

    Every field is required: the harness checks what a target says and never infers it.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    text: StrictStr
    """The answer as the user would see it."""
    citations: tuple[StrictStr, ...]
    """Ids of the sources the answer cites."""
    context_ids: tuple[StrictStr, ...]
    """Ids of the sources the target retrieved for this prompt (what it could cite)."""
    refused: StrictBool
    """The target declined to answer."""
    escalated: StrictBool
    """The target routed the user to a human (a crisis line, staff)."""


class Message(TypedDict):
    """One earlier message of a conversation, as multi-turn cases pass them in `history`."""

    role: Literal["user", "assistant"]
    content: str


class Traced(NamedTuple):
    """A response with how it was obtained: attempts made and seconds waited between them."""

    response: TargetResponse
    attempts: int
    waited: float


@runtime_checkable
class Target(Protocol):
    """Anything with a `name` that answers a prompt in a language.

    `ask` may be a plain function or a coroutine function; the engine awaits the latter and
    runs the former in a worker thread.
    """

    name: str

    def ask(self, prompt: str, language: str) -> TargetResponse | Awaitable[TargetResponse]:
        """Answer `prompt`, written in the BCP 47 `language`.

        A target that holds conversations also takes `history`: the earlier messages of a
        multi-turn case (the user's and its own answers), as a tuple of `Message`. It is
        passed only for multi-turn cases, so a single-turn target needs no such parameter.
        """
        ...


def check_response(value: object) -> TargetResponse:
    """Accept a `TargetResponse`, or a mapping with exactly its fields and types.

    Nothing is inferred: a missing field, an extra field or a wrong type is a contract error
    that names the field.

    Raises:
        TargetContractError: `value` is neither.
    """
    if isinstance(value, TargetResponse):
        return value
    if not isinstance(value, dict):
        raise TargetContractError(
            f"expected a TargetResponse (or a mapping of its fields), got {type(value).__name__}"
        )
    try:
        return TargetResponse.model_validate(value)
    except ValidationError as exc:
        raise TargetContractError(describe_contract_errors(exc)) from None


def describe_contract_errors(exc: ValidationError) -> str:
    """One sentence per contract problem, each naming its field."""
    problems = []
    for error in exc.errors(include_url=False):
        field = ".".join(str(part) for part in error["loc"]) or "response"
        match error["type"]:
            case "missing":
                problems.append(f"{field}: missing")
            case "extra_forbidden":
                problems.append(f"{field}: not a field of the contract")
            case _:
                problems.append(f"{field}: {error['msg'].lower()}, got {error['input']!r:.60}")
    return "target contract broken: " + "; ".join(problems)
