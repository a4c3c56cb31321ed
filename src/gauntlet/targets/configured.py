"""Targets a target file describes: `openai-chat` and `http` (and `gauntlet`, the native one).

`build_target` turns a loaded target file into an `AsyncTarget`. Every kind sends through one
`HttpClient` (deadline, retries, only 2xx an answer, size cap, auth, secrets masked), so the
kinds differ only in the body they build and in how they read the answer: the native
contract, an OpenAI chat completion (whole or streamed as Server-Sent Events), or any JSON
read with the file's JMESPath mapping. Every answer carries each field's provenance.
"""

from __future__ import annotations

import abc
import itertools
import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

from multidict import CIMultiDict, CIMultiDictProxy

from gauntlet.display import printable
from gauntlet.errors import Parameter, TargetContractError, UsageError
from gauntlet.redact import Redactor, Secret, is_credential_name
from gauntlet.strict_json import json_kind, loads
from gauntlet.targets.auth import BearerAuth, OAuth2ClientCredentials
from gauntlet.targets.client import (
    DEFAULT_PACING,
    Authenticator,
    HttpClient,
    HttpSettings,
    Pacing,
    keep_cookies,
    read_capped,
    with_cookies,
)
from gauntlet.targets.contract import (
    PROBE_LANGUAGE,
    AsyncTarget,
    Conversation,
    FieldName,
    FieldSource,
    Message,
    Origin,
    Provenance,
    Question,
    Traced,
    Usage,
)
from gauntlet.targets.exchange import AiohttpExchange, Exchange, Reply, Request, shown_url
from gauntlet.targets.http import (
    PROBE_PROMPT,
    GauntletTarget,
    Header,
    parse_header,
    request_secrets,
)
from gauntlet.targets.mapping import (
    TOOL_CALLS_PATH,
    Mapped,
    described,
    languages_without_phrases,
    map_http,
    map_openai,
    provides,
    render_body,
    search_path,
)
from gauntlet.targets.scripted import Scripted, Turn, openai_tools, run_loop
from gauntlet.targets.spec import BearerAuth as BearerAuthSpec
from gauntlet.targets.spec import (
    GauntletSpec,
    HttpSpec,
    OpenAIChatSpec,
    OpenAIEmbeddingsSpec,
    Placeholder,
    SessionFromHeader,
    SessionFromResponse,
    StreamFormat,
    TargetSpec,
)
from gauntlet.targets.spec import OAuth2ClientCredentials as OAuthSpec
from gauntlet.targets.stream import assemble_openai, openai_is_last, read_json_stream
from gauntlet.targets.target_file import LoadedTarget
from gauntlet.version import __version__

_EXTRA_HEADERS = Parameter("extra_headers")


def build_target(
    loaded: LoadedTarget,
    *,
    concurrency: int = 8,
    redactor: Redactor | None = None,
    exchange: Exchange | None = None,
    pacing: Pacing = DEFAULT_PACING,
    extra_headers: Sequence[Header] = (),
) -> AsyncTarget:
    """The target `loaded` describes, sending through `exchange` (aiohttp by default).

    `extra_headers` (read by `parse_header`) are sent beside the file's own `headers:`; one
    the file also writes is refused, never silently overridden.

    Every secret the file reads is taught to `redactor` now; a token fetched later, as soon
    as it arrives.

    Raises:
        UsageError: a URL, header or proxy that cannot be used.
    """
    redactor = redactor if redactor is not None else Redactor()
    redactor.learn(*loaded.secrets)
    spec = loaded.spec
    headers = _with_extra(_headers(spec.headers, loaded.environ_values), spec, extra_headers)
    for extra in extra_headers:
        redactor.learn(*extra.from_environment)
    settings = HttpSettings(
        timeout=spec.http.timeout, retries=spec.http.retries, max_bytes=spec.http.max_bytes
    )
    exchange = exchange if exchange is not None else AiohttpExchange(concurrency)
    auth = _auth(loaded)
    if isinstance(spec, GauntletSpec):
        native = GauntletTarget(
            spec.url,
            headers=headers,
            settings=settings,
            exchange=exchange,
            auth=auth,
            redactor=redactor,
            pacing=pacing,
        )
        if spec.name is not None:
            native.name = spec.name
        return native
    hints = {404: _v1_hint(spec.base_url)} if isinstance(spec, OpenAIChatSpec) else {}
    client = HttpClient(
        exchange, settings, redactor=redactor, auth=auth, pacing=pacing, hints=hints
    )
    if isinstance(spec, OpenAIChatSpec):
        return OpenAIChatTarget(spec, loaded.system_text, headers, client, auth)
    return HttpTarget(spec, headers, client, auth)


def _with_extra(
    headers: list[Header], spec: TargetSpec, extra_headers: Sequence[Header]
) -> list[Header]:
    """The file's headers and then `extra_headers`, none of which may set one twice.

    An extra `Authorization` is refused when the file authenticates: the authenticator sets
    it on every request, so the value typed would be replaced.
    """
    written = {header.name.lower() for header in headers}
    auth_owner = _auth_owner(spec)
    for extra in extra_headers:
        if auth_owner is not None and extra.name.lower() == "authorization":
            raise UsageError(
                _EXTRA_HEADERS,
                f" and the target file's `{auth_owner}` both set {extra.name}: write it once",
            )
        if extra.name.lower() in written:
            raise UsageError(
                _EXTRA_HEADERS, f" and the target file both set {extra.name}: write it once"
            )
        written.add(extra.name.lower())
    return [*headers, *extra_headers]


def _headers(written: Mapping[str, str], environ: Mapping[str, str]) -> list[Header]:
    return [parse_header(f"{name}: {value}", environ) for name, value in written.items()]


def _auth_owner(spec: TargetSpec) -> str | None:
    """The key of the file that sets `Authorization` on every request; None when none does."""
    if isinstance(spec, OpenAIChatSpec) and spec.api_key_env is not None:
        return "api_key_env"
    return "auth" if spec.auth is not None else None


def _auth(loaded: LoadedTarget) -> Authenticator | None:
    return authenticator(loaded.spec, loaded.environ_values)


def authenticator(
    spec: TargetSpec | OpenAIEmbeddingsSpec, environ: Mapping[str, str]
) -> Authenticator | None:
    """What authorizes each request of the file `spec`, its secrets read from `environ`.

    One place for every target file's kind, an embedder's among them (`api_key_env`, `auth`).
    """
    if isinstance(spec, OpenAIChatSpec | OpenAIEmbeddingsSpec) and spec.api_key_env is not None:
        return BearerAuth(environ[spec.api_key_env], what=f"the value of {spec.api_key_env}")
    match spec.auth:
        case None:
            return None
        case BearerAuthSpec(token_env=name):
            return BearerAuth(environ[name], what=f"the value of {name}")
        case OAuthSpec() as oauth:
            return OAuth2ClientCredentials(
                oauth.token_url,
                environ[oauth.client_id_env],
                environ[oauth.client_secret_env],
                scope=oauth.scope,
                refresh_before=oauth.refresh_before,
            )
        case _:  # pragma: no cover - the models allow no other
            raise AssertionError(spec.auth)


class _FileTarget(abc.ABC):
    """What the two kinds of target file share: the client, secrets, provenance, asking."""

    holds_conversations = True
    """History is sent (as messages, or through `{{ history }}`) for multi-turn cases."""

    def __init__(
        self,
        url: str,
        spec: HttpSpec | OpenAIChatSpec,
        headers: Sequence[Header],
        client: HttpClient,
        auth: Authenticator | None,
        body: Any = None,
    ) -> None:
        self._auth = auth
        parts = urlsplit(url)
        self.url = url
        self.name = spec.name or f"{parts.scheme}://{parts.netloc}{parts.path or '/'}"
        self._client = client
        self._response = spec.response
        self._clock = client.pacing.clock
        self._static = provides(spec.response)
        # Learned as the request is made: the URL and headers as they travel, and any value
        # a body names like a credential (the body is sent as the file wrote it).
        self._request_secrets = tuple(
            dict.fromkeys((*request_secrets(url, headers), *body_secrets(body)))
        )
        client.redactor.learn(*self._request_secrets)
        self._headers = CIMultiDictProxy(
            CIMultiDict(
                {"Content-Type": "application/json", "User-Agent": f"gauntlet/{__version__}"}
                | {header.name: header.value for header in headers}
            )
        )

    @property
    def secrets(self) -> tuple[Secret, ...]:
        """What the request carries (see `request_secrets`), and the client's credentials."""
        auth = self._auth.secrets if self._auth is not None else ()
        exchange = self._client.exchange.secrets
        return tuple(dict.fromkeys((*self._request_secrets, *auth, *exchange)))

    def provides(self, language: str) -> Provenance:
        """The file's mapping, with a phrase rule that has no phrases for `language` absent."""
        missing = languages_without_phrases(self._response, [language])
        return {
            **self._static,
            **{
                field: FieldSource(origin=Origin.ABSENT, rule=f"no phrases for {language}")
                for field in missing
            },
        }

    async def probe(self) -> Traced:
        """One ask before the suite, so a broken target or mapping fails fast."""
        return await self.ask(
            Question(PROBE_PROMPT, PROBE_LANGUAGE, conversation=Conversation("probe"))
        )

    @abc.abstractmethod
    async def ask(self, question: Question) -> Traced:
        """Ask one turn; see `AsyncTarget`."""

    async def aclose(self) -> None:
        """Close the connections."""
        await self._client.aclose()

    async def _ask(
        self,
        request: Request,
        read: Callable[[Reply, list[float]], Any],
        question: Question,
    ) -> tuple[Any, int, float, CIMultiDictProxy[str], float | None]:
        conversation = question.conversation
        if conversation is not None and conversation.cookies:
            request = with_cookies(request, conversation.cookies)
        started = self._clock()
        first: list[float] = []

        def attempt(reply: Reply) -> Any:
            # Each attempt starts clean: the first token is that of the answer that was read
            # (timed from the first request, retry waits included), never a failed attempt's.
            first.clear()
            return read(reply, first)

        called = await self._client.call(request, attempt, stop=question.stop)
        if conversation is not None:
            keep_cookies(conversation.cookies, called.headers)
        first_ms = round((first[0] - started) * 1000, 3) if first else None
        return called.value, called.attempts, called.waited, called.headers, first_ms

    def _mark(self, first: list[float]) -> Callable[[], None]:
        def mark() -> None:
            if not first:
                first.append(self._clock())

        return mark


_VERSIONED = re.compile(r"/(?:v[0-9]+[a-z0-9]*|openai)(?:/|$)")
"""A path that names an API version (`/v1`, `/v1beta`) or Azure's `/openai/...`."""


def _v1_hint(base_url: str) -> str:
    """What a 404 from an OpenAI-compatible `base_url` without a version should say: try `/v1`.

    Said only where the path names no version: a 404 from `.../v1/wrong` is another slip.
    """
    parts = urlsplit(base_url)
    if _VERSIONED.search(parts.path):
        return ""
    better = urlunsplit(parts._replace(path=parts.path.rstrip("/") + "/v1"))
    return (
        "; an OpenAI-compatible server answers under /v1: did you mean "
        f"`base_url: {shown_url(better)}`?"
    )


def completions_url(base_url: str) -> str:
    """`<base_url>/chat/completions`, the base URL's query kept after the path.

    Azure OpenAI wants its `?api-version=...` on every request: a base URL that carries one
    keeps it where a query belongs, not in the middle of the path.
    """
    parts = urlsplit(base_url)
    path = parts.path.rstrip("/") + "/chat/completions"
    return urlunsplit(parts._replace(path=path))


LOOP_TOOL_CALLS = FieldSource(
    origin=Origin.DECLARED,
    rule=f"`{TOOL_CALLS_PATH}` of every turn, answered by the scripted tool loop",
)
"""Where a scripted loop's trajectory comes from: the model's calls, the case's results."""


class OpenAIChatTarget(_FileTarget):
    """An OpenAI-compatible `/v1/chat/completions` server, whole answers or streamed."""

    def __init__(
        self,
        spec: OpenAIChatSpec,
        system: str | None,
        headers: Sequence[Header],
        client: HttpClient,
        auth: Authenticator | None = None,
    ) -> None:
        super().__init__(
            completions_url(spec.base_url), spec, headers, client, auth, spec.extra_body
        )
        self._spec = spec
        self._system = system if system is not None else spec.system
        if spec.stream:
            self._headers = _with(self._headers, "Accept", "text/event-stream")

    def body(self, prompt: str, history: Sequence[Message] | None) -> dict[str, Any]:
        """The request body: the model, the messages, the settings and `extra_body`."""
        spec = self._spec
        messages: list[dict[str, str]] = []
        if self._system is not None:
            messages.append({"role": "system", "content": self._system})
        messages += [
            {"role": message["role"], "content": message["content"]} for message in history or ()
        ]
        messages.append({"role": "user", "content": prompt})
        body: dict[str, Any] = {"model": spec.model, "messages": messages, "stream": spec.stream}
        if spec.temperature is not None:
            body["temperature"] = spec.temperature
        if spec.max_tokens is not None:
            body["max_tokens"] = spec.max_tokens
        if spec.stream and spec.stream_usage:
            # Without it, a stream never says what it used: the pack's tokens would be empty.
            body["stream_options"] = {"include_usage": True}
        return body | spec.extra_body

    async def ask(self, question: Question) -> Traced:
        """Ask one turn; see `AsyncTarget`. With the question's `tools`, run the tool loop.

        Raises:
            TargetError: no answer, or one that breaks the file's mapping (named); with
                `tools`, also a model still calling tools after `max_steps` turns.
        """
        tools, language = question.tools, question.language
        if tools is not None and tools.tools:
            return await self._loop(question, tools)
        body = self.body(question.prompt, question.history)
        request = Request("POST", self.url, self._headers, _json(body))

        async def read(reply: Reply, first: list[float]) -> tuple[Mapped, Usage | None]:
            completion = await self._completion(reply, first)
            mapped = map_openai(
                self._spec.response, completion, language, streamed=self._spec.stream
            )
            return mapped, _usage(completion)

        (mapped, usage), attempts, waited, _, first_ms = await self._ask(request, read, question)
        return _traced(mapped, attempts, waited, usage, first_ms)

    async def _loop(self, question: Question, scripted: Scripted) -> Traced:
        """Play the case's tools for the model (see `gauntlet.targets.scripted`)."""
        base = self.body(question.prompt, question.history)
        offered = openai_tools(scripted.tools)

        async def ask(messages: list[dict[str, Any]], step: int) -> Turn:
            body = {**base, "messages": messages, "tools": offered}
            choice = self._spec.tool_choice
            if step == 0 and choice is not None:
                body["tool_choice"] = choice if isinstance(choice, str) else choice.model_dump()
            request = Request("POST", self.url, self._headers, _json(body))
            completion, attempts, waited, _, first_ms = await self._ask(
                request, self._completion, question
            )
            return Turn(completion, attempts, waited, _usage(completion), first_ms)

        def finish(completion: Mapping[str, Any]) -> Mapped:
            return map_openai(
                self._spec.response, completion, question.language, streamed=self._spec.stream
            )

        loop = await run_loop(scripted, base["messages"], ask, finish)
        mapped = loop.final
        return Traced(
            mapped.response.model_copy(update={"tool_calls": loop.calls}),
            loop.attempts,
            loop.waited,
            provenance={**mapped.provenance, FieldName.TOOL_CALLS: LOOP_TOOL_CALLS},
            usage=loop.usage,
            first_token_ms=loop.first_token_ms,
            answered_text=mapped.answered_text,
            finish_reason=mapped.finish_reason,
        )

    async def _completion(self, reply: Reply, first: list[float]) -> Mapping[str, Any]:
        limit = self._client.settings.max_bytes
        if not self._spec.stream:
            return _object(loads(await read_capped(reply, limit)), "response")
        _expect_event_stream(reply)
        chunks = await read_json_stream(
            reply.chunks(),
            "sse",
            max_bytes=limit,
            is_last=openai_is_last,
            on_first_data=self._mark(first),
        )
        completion = assemble_openai(chunks)
        if completion["choices"][0]["finish_reason"] is None:
            # `data: [DONE]` alone is not enough: llama-cpp-python, interrupted by another
            # request, sends it after a stream it cut short. Every answer that ended says why.
            raise TargetContractError(
                "stream ended without a finish_reason for choices[0], so the answer may have "
                f"been cut short; {CUT_STREAM_HINT}"
            )
        return completion


CUT_STREAM_HINT = (
    "llama-cpp-python's server cuts a stream short when another request arrives unless it is "
    "started with `--interrupt_requests False` (another server may have a setting of its own); "
    "`stream: false` in the target file asks for whole answers instead"
)
"""What a stream cut short says of the setting that cuts it, on the one server known to."""


class HttpTarget(_FileTarget):
    """Any JSON API: the file's body template out, its JMESPath mapping back."""

    def __init__(
        self,
        spec: HttpSpec,
        headers: Sequence[Header],
        client: HttpClient,
        auth: Authenticator | None = None,
    ) -> None:
        super().__init__(spec.url, spec, headers, client, auth, spec.body)
        self._spec = spec
        if spec.response.stream is StreamFormat.SSE:
            self._headers = _with(self._headers, "Accept", "text/event-stream")

    def body(
        self,
        prompt: str,
        language: str,
        history: Sequence[Message] | None,
        conversation: Conversation | None,
    ) -> Any:
        """The file's body with every placeholder filled as a JSON value."""
        values: dict[Placeholder, Any] = {
            Placeholder.PROMPT: prompt,
            Placeholder.LANGUAGE: language,
            Placeholder.HISTORY: [dict(message) for message in history or ()],
            Placeholder.SESSION_ID: conversation.session_id if conversation else None,
            Placeholder.CASE_ID: conversation.case_id if conversation else None,
        }
        return render_body(self._spec.body, values)

    async def ask(self, question: Question) -> Traced:
        """Ask one turn; see `AsyncTarget`. Its `tools` are ignored: the API calls its own.

        Raises:
            TargetError: no answer, or one that breaks the file's mapping (named).
        """
        conversation, language = question.conversation, question.language
        headers = self._headers
        session = self._spec.session
        if session is not None and session.header and conversation and conversation.session_id:
            headers = _with(headers, session.header, conversation.session_id)
        body = _json(self.body(question.prompt, language, question.history, conversation))
        request = Request(self._spec.method, self.url, headers, body)

        async def read(reply: Reply, first: list[float]) -> tuple[Mapped, Any]:
            return await self._read(reply, language, first)

        (mapped, document), attempts, waited, reply_headers, first_ms = await self._ask(
            request, read, question
        )
        if session is not None and conversation is not None and conversation.session_id is None:
            conversation.session_id = _session_id(session, document, reply_headers)
        return _traced(mapped, attempts, waited, None, first_ms)

    async def _read(self, reply: Reply, language: str, first: list[float]) -> tuple[Mapped, Any]:
        response = self._spec.response
        limit = self._client.settings.max_bytes
        if response.stream is None:
            document = loads(await read_capped(reply, limit))
            return map_http(response, document, language), document
        framing: Literal["sse", "ndjson"] = (
            "sse" if response.stream is StreamFormat.SSE else "ndjson"
        )
        if framing == "sse":
            _expect_event_stream(reply)
        done = response.done
        chunks = await read_json_stream(
            reply.chunks(),
            framing,
            max_bytes=limit,
            is_last=_is_done(done) if done else None,
            on_first_data=self._mark(first),
        )
        if not chunks:
            raise TargetContractError("the stream held no chunk")
        text = "".join(self._pieces(chunks))
        return map_http(response, chunks[-1], language, text=text), chunks[-1]

    def _pieces(self, chunks: Sequence[Any]) -> list[str]:
        pieces = []
        for number, chunk in enumerate(chunks):  # numbered from 0, as the stream reader does
            piece = search_path(self._spec.response.text, chunk, FieldName.TEXT)
            if piece is None:
                continue
            if not isinstance(piece, str):
                raise TargetContractError(
                    f"text: JMESPath `{self._spec.response.text}` found {described(piece)} "
                    f"in stream chunk {number}, not text"
                )
            pieces.append(piece)
        return pieces


def body_secrets(body: Any) -> list[Secret]:
    """Each text a body template gives a key named like a credential, as written and as sent.

    A body is sent as the file wrote it (no `${VAR}` is read into it), so a credential in it
    is written in the file; it is still never shown. Text with a placeholder is the case's.
    """
    found: list[Secret] = []
    if isinstance(body, dict):
        for key, value in body.items():
            if isinstance(value, str) and is_credential_name(key) and "{{" not in value:
                found.append(Secret(value, f"the body's {key}"))
            else:
                found += body_secrets(value)
    elif isinstance(body, list):
        for item in body:
            found += body_secrets(item)
    return found


def _is_done(expression: str) -> Callable[[Any], bool]:
    """Whether a stream's chunk is its last, as the file's `done` expression says.

    Only `true` ends the stream, and only `false` or nothing (null) goes on: read by
    truthiness, `"done": "false"` would end it early and leave the chunks after it unread.
    """
    numbers = itertools.count()

    def is_done(chunk: Any) -> bool:
        number = next(numbers)  # numbered from 0, as the stream reader does
        found = search_path(expression, chunk, "done")
        if found is not None and not isinstance(found, bool):
            raise TargetContractError(
                f"done: JMESPath `{printable(expression)}` found {described(found)} "
                f"in stream chunk {number}, not true or false"
            )
        return found is True

    return is_done


def _session_id(
    session: SessionFromResponse | SessionFromHeader, document: Any, headers: Mapping[str, str]
) -> str:
    if isinstance(session, SessionFromHeader):
        value = headers.get(session.from_header)
        if not value:
            raise TargetContractError(
                f"session: the answer has no {session.from_header} header to continue the "
                "conversation with"
            )
        return value
    found = search_path(session.from_response, document, "session")
    if not isinstance(found, str) or not found:
        raise TargetContractError(
            f"session: JMESPath `{session.from_response}` found {described(found)}, "
            "not a session id (non-empty text)"
        )
    return found


def _traced(
    mapped: Mapped, attempts: int, waited: float, usage: Usage | None, first_ms: float | None
) -> Traced:
    return Traced(
        mapped.response,
        attempts,
        waited,
        provenance=mapped.provenance,
        usage=usage,
        first_token_ms=first_ms,
        answered_text=mapped.answered_text,
        finish_reason=mapped.finish_reason,
    )


def _usage(completion: Mapping[str, Any]) -> Usage | None:
    """The `usage` an OpenAI answer reports, counts that are not whole numbers left out."""
    usage = completion.get("usage")
    if not isinstance(usage, dict):
        return None

    def count(name: str) -> int | None:
        value = usage.get(name)
        return (
            value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None
        )

    return Usage(
        prompt_tokens=count("prompt_tokens"),
        completion_tokens=count("completion_tokens"),
        total_tokens=count("total_tokens"),
    )


def _object(value: object, what: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise TargetContractError(f"{what} is a JSON {json_kind(value)}, not an object")
    return value


def _expect_event_stream(reply: Reply) -> None:
    kind = reply.headers.get("content-type", "")
    if not kind.split(";")[0].strip().lower() == "text/event-stream":
        raise TargetContractError(
            f"asked for a stream, but the answer is {kind or 'of no content type'}, "
            "not text/event-stream"
        )


def _with(headers: Mapping[str, str], name: str, value: str) -> CIMultiDictProxy[str]:
    merged = CIMultiDict(headers)
    merged[name] = value
    return CIMultiDictProxy(merged)


def _json(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


__all__ = ["OpenAIChatTarget", "HttpTarget", "build_target", "completions_url"]
