"""`gauntlet probe`: one live request through a target file, and what each field became.

A user writing a target file needs to see, before any run, what is sent (secrets masked),
what comes back, and how every field of the contract was read from it: declared, derived by
which rule, or absent, and so which loaded gates could run. `RecordingExchange` wraps the
real exchange to keep the last request and the start of its raw answer (never an OAuth token
endpoint's, which holds the token).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Collection, Sequence
from dataclasses import dataclass, field

from gauntlet.cases.loader import SuiteSet
from gauntlet.display import clipped, masking, printable
from gauntlet.errors import TargetError
from gauntlet.redact import Redactor, Secret, is_credential_name
from gauntlet.run.fields import probe_problems, suite_needs, supply_problems
from gauntlet.targets.configured import build_target
from gauntlet.targets.contract import Conversation, FieldName, Origin, Question, Traced
from gauntlet.targets.exchange import AiohttpExchange, Exchange, Reply, Request, shown_url
from gauntlet.targets.spec import OAuth2ClientCredentials
from gauntlet.targets.target_file import LoadedTarget

RAW_SHOWN = 2000
"""The most characters of the raw answer `probe` prints."""
RAW_KEPT = 64 * 1024
"""The most bytes of the raw answer kept for showing."""


@dataclass
class Exchanged:
    """The last request a `RecordingExchange` sent, and the start of what came back."""

    request: Request | None = None
    status: int | None = None
    reason: str = ""
    raw: bytearray = field(default_factory=bytearray)
    shown: bool = True
    """Whether the answer may be shown: not when it holds credentials (`raw` is then empty)."""


class RecordingExchange:
    """An `Exchange` that keeps the last request and the first bytes of its answer.

    Args:
        inner: The exchange that sends.
        unshown: URLs whose answers are never kept: an OAuth token endpoint's holds the token,
            in a form no redactor may have learned yet (one that is not JSON, say).
    """

    def __init__(self, inner: Exchange, *, unshown: Collection[str] = ()) -> None:
        self.inner = inner
        self.seen = Exchanged()
        self._unshown = frozenset(unshown)

    @property
    def secrets(self) -> tuple[Secret, ...]:
        """The wrapped exchange's."""
        return self.inner.secrets

    @contextlib.asynccontextmanager
    async def send(self, request: Request) -> AsyncIterator[Reply]:
        """Send through the wrapped exchange, keeping what passes."""
        shown = request.url not in self._unshown
        self.seen = Exchanged(request, shown=shown)
        async with self.inner.send(request) as reply:
            self.seen.status, self.seen.reason = reply.status, reply.reason
            chunks = self._tee(reply) if shown else reply.chunks
            yield Reply(reply.status, reply.reason, reply.headers, chunks)

    def _tee(self, reply: Reply) -> _Tee:
        return _Tee(reply, self.seen.raw)

    async def aclose(self) -> None:
        """Close the wrapped exchange."""
        await self.inner.aclose()


class _Tee:
    """`reply.chunks`, keeping the first `RAW_KEPT` bytes as they pass."""

    def __init__(self, reply: Reply, kept: bytearray) -> None:
        self._reply = reply
        self._kept = kept

    def __call__(self) -> AsyncIterator[bytes]:
        return self._chunks()

    async def _chunks(self) -> AsyncIterator[bytes]:
        async for chunk in self._reply.chunks():
            room = RAW_KEPT - len(self._kept)
            if room > 0:
                self._kept += chunk[:room]
            yield chunk


@dataclass
class ProbeReport:
    """What one probe sent, got and made of it."""

    exchanged: Exchanged
    traced: Traced | None
    error: str | None
    problems: list[str]
    """Why a loaded suite could not run against this target; empty when all could."""


def probe_target(
    loaded: LoadedTarget,
    suites: SuiteSet,
    prompt: str,
    language: str,
    redactor: Redactor,
    *,
    exchange: Exchange | None = None,
) -> ProbeReport:
    """Send `prompt` once through the target `loaded` describes, and judge what it supplies.

    The request goes through `exchange` (aiohttp by default), which is closed afterwards.
    """
    auth = loaded.spec.auth
    recording = RecordingExchange(
        exchange if exchange is not None else AiohttpExchange(1),
        unshown=[auth.token_url] if isinstance(auth, OAuth2ClientCredentials) else [],
    )
    target = build_target(loaded, concurrency=1, redactor=redactor, exchange=recording)
    needs = tuple(suite_needs(one) for one in suites.suites)

    async def ask() -> Traced:
        try:
            return await target.ask(Question(prompt, language, conversation=Conversation("probe")))
        finally:
            await target.aclose()

    traced: Traced | None = None
    error = None
    try:
        traced = asyncio.run(ask())
    except TargetError as exc:
        error = str(exc)
    problems = supply_problems(needs, target)
    if traced is not None:
        problems += probe_problems(traced, needs, target.provides(language))
    return ProbeReport(recording.seen, traced, error, problems)


def report_lines(report: ProbeReport, suites: SuiteSet, redactor: Redactor) -> list[str]:
    """The probe as printed: request, status, raw answer, fields, and which gates could run.

    Every secret `redactor` knows is masked before anything is cut short, so no cut leaves
    part of one to be printed.
    """
    with masking(redactor.text):
        return _report_lines(report, suites, redactor)


def _report_lines(report: ProbeReport, suites: SuiteSet, redactor: Redactor) -> list[str]:
    seen = report.exchanged
    lines = []
    if seen.request is not None:
        request = seen.request
        lines += ["request:", f"  {request.method} {printable(shown_url(request.url))}"]
        for name, value in request.headers.items():
            shown = "[REDACTED]" if is_credential_name(name) else redactor.text(value)
            lines.append(f"  {name}: {printable(shown)}")
        lines += ["  body:", *_indented(redactor.text(_pretty(request.body)))]
    if seen.status is not None:
        lines.append(f"status: {seen.status} {printable(seen.reason)}".rstrip())
    if not seen.shown:
        lines.append("response: not shown (an OAuth token endpoint's answer holds the token)")
    if seen.raw:
        raw = bytes(seen.raw).decode("utf-8", errors="replace")
        lines += [f"response (first {RAW_SHOWN:,} characters at most):"]
        lines += _indented(clipped(redactor.text(raw), RAW_SHOWN))
    if report.error is not None:
        lines.append(f"error: {report.error}")
    if report.traced is not None:
        lines += ["fields:", *_field_lines(report.traced)]
    lines.append("gates:")
    for loaded in suites.suites:
        need = suite_needs(loaded)
        mine = [problem for problem in report.problems if f"suite {need.suite} " in problem]
        # Only an answer shows what a target supplies: without one, no suite is said to run.
        state = "refused" if mine else "can run" if report.traced else _NO_ANSWER
        lines.append(f"  {need.suite} ({need.gate}): {state}")
        lines += [f"    {problem}" for problem in mine]
    return lines


_NO_ANSWER = "not known: the probe got no answer it could read"


def _field_lines(traced: Traced) -> list[str]:
    response = traced.response
    values: dict[FieldName, object] = {
        FieldName.TEXT: response.text,
        FieldName.CITATIONS: list(response.citations),
        FieldName.CONTEXT_IDS: list(response.context_ids),
        FieldName.REFUSED: response.refused,
        FieldName.ESCALATED: response.escalated,
        FieldName.TOOL_CALLS: (
            None
            if response.tool_calls is None
            else [call.model_dump(exclude_none=True) for call in response.tool_calls]
        ),
    }
    lines = []
    for name in FieldName:
        source = traced.provenance.get(name)
        origin = source.origin if source is not None else Origin.ABSENT
        how = origin.value + (f" ({source.rule})" if source is not None and source.rule else "")
        shown = json.dumps(values[name], ensure_ascii=False)
        lines.append(f"  {name}: {clipped(shown, 120)}  <- {how}")
    if traced.answered_text is not None:
        shown = json.dumps(traced.answered_text, ensure_ascii=False)  # as the text line is
        lines.append(f"  (text as sent: {clipped(shown, 120)})")
    if traced.usage is not None:
        lines.append(f"  usage: {traced.usage.model_dump_json()}")
    if traced.first_token_ms is not None:
        lines.append(f"  first streamed chunk after {traced.first_token_ms:,.0f} ms")
    return lines


def _pretty(body: bytes) -> str:
    try:
        return json.dumps(json.loads(body), ensure_ascii=False, indent=2)
    except ValueError:
        return body.decode("utf-8", errors="replace")


def _indented(text: str) -> Sequence[str]:
    return [f"    {line}" for line in text.splitlines()]
