"""The target file's models: how to reach a deployed feature and read what it answered.

A target file (`gauntlet run --target target.yaml`) is one YAML mapping whose `kind` is
`gauntlet` (the native contract), `openai-chat` (any OpenAI-compatible chat completions
server) or `http` (any JSON API, through a body template and a JMESPath response mapping);
a file of kind `openai-embeddings` describes an embedder instead (`--embedder`), reached the
same way.
Nothing is guessed: every field of the contract is either read from the answer (declared by
the target), derived by a rule the file writes out, or declared absent; a gate that needs a
field nobody supplies is refused before the first ask.

These models only describe the file; `gauntlet.targets.target_file` loads one with located
errors, and `gauntlet.targets.configured` builds the target it describes.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Iterator
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    JsonValue,
    StringConstraints,
    Tag,
    TypeAdapter,
    ValidationError,
    ValidatorFunctionWrapHandler,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from gauntlet.cases.file_words import kind_of
from gauntlet.cases.model import LANGUAGE_PATTERN, Marker
from gauntlet.defaults import DEFAULT_RETRIES, DEFAULT_TIMEOUT
from gauntlet.patterns import PatternError, user_pattern
from gauntlet.record import FieldDocstrings, Record

# `FieldName` lives with the contract it names; older imports of it from here still work.
from gauntlet.targets.contract import FieldName as FieldName

TARGET_FILE_VERSION = 1
"""The target file format's version; a file says which it is written for."""

DEFAULT_MAX_BYTES = 1024 * 1024
"""Largest decoded response body accepted (1 MiB): an answer, not a download."""


class Placeholder(StrEnum):
    """What a request body's string leaf may name as `{{ name }}`."""

    PROMPT = "prompt"
    LANGUAGE = "language"
    HISTORY = "history"
    """The earlier messages of a conversation, as `[{"role", "content"}, ...]`."""
    SESSION_ID = "session_id"
    """The server's session id (see `session`), or null before it has given one."""
    CASE_ID = "case_id"


PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
"""A placeholder in a body's string leaf: `{{ prompt }}`, spaces inside optional."""

CITATIONS_PATTERN_FIELD = "citations.from_text"
"""The field a citation pattern is written in, as its errors name it."""
ENV_REFERENCE = re.compile(r"\$\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)\}")
"""`${NAME}` in a header value: replaced by the environment variable's value."""

ENV_NAME_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]*$"
HEADER_NAME_PATTERN = r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$"
"""An HTTP header name: RFC 9110's token characters."""
URL_PATTERN = r"^https?://[^\s]+$"


@functools.cache
def _jmespath_functions() -> dict[str, Any]:
    """JMESPath's built-in functions by name, each with its signature."""
    import jmespath.functions

    table: dict[str, Any] = jmespath.functions.Functions().FUNCTION_TABLE
    return table


def _functions(node: Any) -> Iterator[tuple[str, int]]:
    """Every function an expression's parse tree calls: (its name, how many arguments)."""
    if isinstance(node, dict):
        if node.get("type") == "function_expression":
            yield node["value"], len(node["children"])
        for child in node.get("children", ()):
            yield from _functions(child)


def _check_call(name: str, given: int) -> None:
    """Refuse a call jmespath would only refuse when it is applied to an answer."""
    functions = _jmespath_functions()
    if name not in functions:
        close = difflib.get_close_matches(name, functions, n=1)
        raise PydanticCustomError(
            "jmespath_function",
            "not a JMESPath expression: no function named {name}(){close}",
            {"name": name, "close": f"; did you mean {close[0]}()?" if close else ""},
        )
    signature = functions[name]["signature"]
    variadic = bool(signature) and bool(signature[-1].get("variadic"))
    if given < len(signature) or (given > len(signature) and not variadic):
        count = len(signature)
        wanted = f"{'at least ' if variadic else ''}{count} argument{'s' * (count != 1)}"
        raise PydanticCustomError(
            "jmespath_arity",
            "not a JMESPath expression: {name}() takes {wanted}, not {given}",
            {"name": name, "wanted": wanted, "given": given},
        )


def _jmespath(expression: str) -> str:
    # Here, not at the top: only a target file's response paths are JMESPath.
    import jmespath
    import jmespath.exceptions

    try:
        parsed = jmespath.compile(expression)
    except jmespath.exceptions.IncompleteExpressionError:
        raise PydanticCustomError(
            "jmespath", "not a JMESPath expression: it ends before it is complete"
        ) from None
    except jmespath.exceptions.ParseError as exc:  # a LexerError too, which says more
        why = exc.message if isinstance(exc, jmespath.exceptions.LexerError) else exc.msg
        raise PydanticCustomError(
            "jmespath",
            "not a JMESPath expression: {why} at character {at}",
            {"why": why, "at": exc.lex_position + 1},
        ) from None
    for name, given in _functions(parsed.parsed):
        _check_call(name, given)
    return expression


def _regex(pattern: str) -> str:
    """A citation pattern, compiled by the engine that will run it (`gauntlet.patterns`)."""
    try:
        compiled = user_pattern(pattern, CITATIONS_PATTERN_FIELD)
    except PatternError as exc:
        raise PydanticCustomError("regex", "{why}", {"why": str(exc)}) from None
    if compiled.groups > 1:
        raise PydanticCustomError(
            "regex_groups",
            "has {groups} capturing groups; use one, around the id (or none: the whole match)",
            {"groups": compiled.groups},
        )
    if compiled.matches_empty():
        raise PydanticCustomError(
            "regex_empty", "matches the empty string, so it would find an id everywhere"
        )
    return pattern


NonEmptyText = Annotated[str, StringConstraints(min_length=1)]
JMESPath = Annotated[NonEmptyText, AfterValidator(_jmespath)]
"""A JMESPath expression, checked when the file is loaded."""
Pattern = Annotated[NonEmptyText, AfterValidator(_regex)]
EnvName = Annotated[str, StringConstraints(pattern=ENV_NAME_PATTERN)]
"""The name of an environment variable that holds a secret."""
HeaderName = Annotated[str, StringConstraints(pattern=HEADER_NAME_PATTERN)]
HttpUrl = Annotated[str, StringConstraints(pattern=URL_PATTERN)]
LanguageTag = Annotated[str, StringConstraints(pattern=LANGUAGE_PATTERN)]
"""A BCP 47 tag, as case files write a case's `language`."""
Phrase = Annotated[Marker, StringConstraints(max_length=500)]
"""A phrase matched as case files' markers are: one that shows nothing could never be found."""


def _at(*path: str) -> dict[str, Any]:
    """The context that locates a rule across keys at the key that breaks it (`path`)."""
    return {"key_path": path}


class Http(Record):
    """How patiently and how much gauntlet reads from the target."""

    timeout: Annotated[float, Field(gt=0, le=3600)] = DEFAULT_TIMEOUT
    """Seconds for one attempt's whole exchange, a stream's last byte included."""
    retries: Annotated[int, Field(ge=0, le=10)] = DEFAULT_RETRIES
    """Retries after connect errors, timeouts, 429 and 502/503/504."""
    max_bytes: Annotated[int, Field(gt=0, le=64 * 1024 * 1024)] = DEFAULT_MAX_BYTES
    """Largest decoded body (or whole stream) accepted."""


class BearerAuth(Record):
    """`Authorization: Bearer <token>`, the token read from the environment."""

    kind: Literal["bearer"]
    token_env: EnvName
    """The environment variable that holds the token."""


class OAuth2ClientCredentials(Record):
    """An OAuth 2.0 client-credentials token, fetched before the first ask and refreshed."""

    kind: Literal["oauth2-client-credentials"]
    token_url: HttpUrl
    """Where the token is asked for (RFC 6749 section 4.4)."""
    client_id_env: EnvName
    """The environment variable that holds the client id."""
    client_secret_env: EnvName
    """The environment variable that holds the client secret."""
    scope: NonEmptyText | None = None
    """The scope to ask for, if the server wants one."""
    refresh_before: Annotated[float, Field(ge=0, le=3600)] = 30.0
    """Seconds before the token's `expires_in` runs out that a new one is fetched."""


Auth = Annotated[BearerAuth | OAuth2ClientCredentials, Field(discriminator="kind")]


class Absent(Record):
    """The target does not report this field, and nothing derives it."""

    absent: Literal[True]
    """Always true: a gate that needs the field is refused before the first ask."""


class CitationsFromText(Record):
    """Citations read from markers in the answer, such as `[RB-001]`."""

    from_text: Pattern
    """A regular expression; its one group (or the whole match) is the cited id."""
    remove_from_text: bool = False
    """Cut each marker out of the text the gates read (the answer as sent is kept too)."""


class DecisionFromText(Record):
    """A refusal or escalation read from phrases in the answer, per language.

    Matched as the gates match markers: NFKC, case-folded, whitespace collapsed.
    """

    from_text: dict[LanguageTag, Annotated[list[Phrase], Field(min_length=1)]]
    """Phrases per case language (`en`, `es`, ...); an answer holding one is the decision."""

    @field_validator("from_text")
    @classmethod
    def _some_language(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        if not value:
            raise PydanticCustomError("no_language", "name at least one language's phrases")
        seen: dict[str, str] = {}
        for tag in value:
            first = seen.setdefault(tag.lower(), tag)
            if first != tag:  # tags are compared without regard to case, so one would be lost
                raise PydanticCustomError(
                    "same_language",
                    "'{first}' and '{tag}' are the same language; give its phrases once",
                    {"first": first, "tag": tag},
                )
        return value


JMESPATH_TAG = "JMESPath"
"""The tag of a union's text branch; a model branch is tagged with its class's name."""


def _by_shape(
    expected: str, *keyed: tuple[str, type[BaseModel]], otherwise: type[BaseModel]
) -> Discriminator:
    """Choose a union's branch from the value's shape, so an error speaks of that branch only.

    Text is a JMESPath expression; a mapping goes to the first branch whose key it holds
    (`keyed`), else to `otherwise`; a model instance to its own class. Anything else is one
    error saying what the field takes (`expected`), not one error per branch.
    """

    def shape(value: Any) -> str | None:
        if isinstance(value, str):
            return JMESPATH_TAG
        if isinstance(value, BaseModel):
            return type(value).__name__
        if isinstance(value, dict):
            chosen = next((model for key, model in keyed if key in value), otherwise)
            return chosen.__name__
        return None

    return Discriminator(shape, custom_error_type="shape", custom_error_message=expected)


KEY_AS_TEXT = "key_as_text"
"""The error of a JMESPath string that is a key of one of its field's mapping forms."""


def _not_a_key(forms: dict[str, str]) -> AfterValidator:
    """Refuse a bare JMESPath identifier that is a key of one of the field's mapping forms.

    `context_ids: absent` is valid JMESPath (a field named `absent`), but it is far likelier
    `{absent: true}` with the braces left out, and read as JMESPath it makes a target that
    reports nothing look as if it reports something. A field really named so is written as
    a quoted identifier (`'"absent"'`), which is not refused. `forms` maps each key to the
    form it belongs to, as the hint shows it.
    """

    def check(expression: str) -> str:
        key = expression.strip()
        if key in forms:
            raise PydanticCustomError(
                KEY_AS_TEXT,
                "'{key}' would read a field named {key} from the answer",
                {"key": key, "form": forms[key]},
            )
        return expression

    return AfterValidator(check)


_ABSENT_FORM = "{absent: true}"
_CITATION_FORM = "{from_text: <regular expression>}"
_DECISION_FORM = "{from_text: {<language>: [<phrase>, ...]}}"
# Every key of every mapping form, with the form it belongs to (a test keeps these whole).
_ABSENT_KEYS = {"absent": _ABSENT_FORM}
_CITATION_KEYS = {
    **_ABSENT_KEYS,
    "from_text": _CITATION_FORM,
    "remove_from_text": "{from_text: <regular expression>, remove_from_text: true}",
}
_DECISION_KEYS = {**_ABSENT_KEYS, "from_text": _DECISION_FORM}

# A field is read with a JMESPath expression (a string), derived, or absent.
TextSource = JMESPath
_Absent = Annotated[Absent, Tag("Absent")]
CitationsSource = Annotated[
    Annotated[JMESPath, _not_a_key(_CITATION_KEYS), Tag(JMESPATH_TAG)]
    | Annotated[CitationsFromText, Tag("CitationsFromText")]
    | _Absent,
    _by_shape(
        "a JMESPath string, {from_text: <regular expression>} or {absent: true}",
        ("absent", Absent),
        otherwise=CitationsFromText,
    ),
]
IdsSource = Annotated[
    Annotated[JMESPath, _not_a_key(_ABSENT_KEYS), Tag(JMESPATH_TAG)] | _Absent,
    _by_shape("a JMESPath string or {absent: true}", otherwise=Absent),
]
DecisionSource = Annotated[
    Annotated[JMESPath, _not_a_key(_DECISION_KEYS), Tag(JMESPATH_TAG)]
    | Annotated[DecisionFromText, Tag("DecisionFromText")]
    | _Absent,
    _by_shape(
        "a JMESPath string, {from_text: {<language>: [<phrase>, ...]}} or {absent: true}",
        ("absent", Absent),
        otherwise=DecisionFromText,
    ),
]
ToolCallsSource = IdsSource


class StreamFormat(StrEnum):
    """How a streamed body is framed."""

    SSE = "sse"
    """Server-Sent Events: each event's `data` is one JSON chunk; `data: [DONE]` ends it."""
    NDJSON = "ndjson"
    """One JSON chunk per line."""


class HttpResponse(Record):
    """Where each contract field is in an `http` target's JSON answer."""

    text: TextSource
    """JMESPath to the answer's text. In a stream: to each chunk's piece of it."""
    citations: CitationsSource
    """The ids the answer cites: JMESPath to a list of text, a rule, or absent."""
    context_ids: IdsSource
    """The ids of what the target retrieved: JMESPath to a list of text, or absent."""
    refused: DecisionSource
    """Whether the target refused: JMESPath to a boolean, phrases, or absent."""
    escalated: DecisionSource
    """Whether the target handed over to a person: JMESPath to a boolean, phrases, or absent."""
    tool_calls: ToolCallsSource = Absent(absent=True)
    """The tools the target called, in order: JMESPath to a list, or absent."""
    stream: StreamFormat | None = None
    """Read the body as a stream of JSON chunks; fields but `text` come from the last one."""
    done: JMESPath | None = None
    """In a stream: true on the last chunk (besides SSE's `[DONE]`)."""
    finish_reason: JMESPath | None = None
    """JMESPath to why the answer ended (`length`: cut at the server's token limit), read
    like the other fields (in a stream, from the last chunk). Left out: not reported."""

    @model_validator(mode="after")
    def _done_needs_stream(self) -> HttpResponse:
        if self.done is not None and self.stream is None:
            raise PydanticCustomError(
                "done_without_stream",
                "applies only to a stream (`stream: sse|ndjson`)",
                _at("done"),
            )
        if self.stream is StreamFormat.NDJSON and self.done is None:
            raise PydanticCustomError(
                "ndjson_without_done",
                "an ndjson stream has no terminator of its own: say which chunk is the last "
                "with `done: <JMESPath>`",
                _at("stream"),
            )
        return self


class OpenAIResponse(Record):
    """The fields an OpenAI-compatible answer has no place for, and how to get them.

    `text`, `tool_calls` and `refused` are read from the answer (`message.content`,
    `message.tool_calls`, `message.refusal` and `finish_reason: content_filter`); phrases given
    for `refused` add to the declared refusal, never replace it.
    """

    citations: CitationsSource
    """The ids the answer cites: JMESPath into the answer, a rule over its text, or absent."""
    context_ids: IdsSource
    """The ids of what the target retrieved: JMESPath into the answer, or absent."""
    refused: DecisionFromText | None = None
    """Phrases that also count as a refusal, besides the one the answer declares."""
    escalated: DecisionSource
    """Whether the target handed over to a person: JMESPath, phrases, or absent."""


class SessionFromResponse(Record):
    """The server's session id, read from its first answer with JMESPath."""

    from_response: JMESPath
    """Where the id is in the answer's JSON."""
    header: HeaderName | None = None
    """Send it back in this header, besides `{{ session_id }}` in the body."""


class SessionFromHeader(Record):
    """The server's session id, read from a header of its first answer."""

    from_header: HeaderName
    """The header of the answer that holds the id."""
    header: HeaderName | None = None
    """Send it back in this header, besides `{{ session_id }}` in the body."""


Session = Annotated[
    Annotated[SessionFromResponse, Tag("SessionFromResponse")]
    | Annotated[SessionFromHeader, Tag("SessionFromHeader")],
    _by_shape(
        "{from_response: <JMESPath>} or {from_header: <header name>}",
        ("from_header", SessionFromHeader),
        otherwise=SessionFromResponse,
    ),
]


class _Common(Record):
    version: Literal[1]
    """The target file format: 1."""
    name: Annotated[str, StringConstraints(min_length=1, max_length=80)] | None = None
    """What the results and the evidence pack call this target (default: from the URL)."""
    headers: dict[HeaderName, str] = {}
    """Sent with every request; `${VAR}` in a value is read from the environment."""
    auth: Auth | None = None
    """How to authenticate, with secrets read from the environment."""
    http: Http = Http()
    """Deadline, retries and size cap of each request."""


class GauntletSpec(_Common):
    """A feature that already speaks gauntlet's own contract."""

    kind: Literal["gauntlet"]
    url: HttpUrl
    """Where `POST {"prompt", "language", "history"}` is sent."""


class NamedFunction(Record):
    """The function a forced `tool_choice` names."""

    name: NonEmptyText
    """The tool's name, as the case file declares it."""


class NamedToolChoice(Record):
    """OpenAI's forced choice of one tool: `{type: function, function: {name: NAME}}`.

    Servers that ignore `required` honour it (llama.cpp's server generates the call under a
    grammar built from the tool's schema), so a small model can be made to use its tools.
    """

    type: Literal["function"]
    function: NamedFunction


_OWNED_BODY_KEYS = {
    "model": "`model`",
    "messages": "`system` and each case's prompt and history",
    "stream": "`stream`",
}
"""Request fields an openai-chat target file sets itself, and from what."""


class OpenAIChatSpec(_Common):
    """Any OpenAI-compatible `/v1/chat/completions` server."""

    kind: Literal["openai-chat"]
    base_url: HttpUrl
    """Up to `/v1`: requests go to `<base_url>/chat/completions`."""
    model: NonEmptyText
    """The model name the server expects."""
    system: str | None = None
    """The system prompt, inline."""
    system_file: NonEmptyText | None = None
    """The system prompt, from a file beside the target file."""
    temperature: Annotated[float, Field(ge=0, le=2)] | None = None
    """Sent when given; otherwise the server's default applies."""
    max_tokens: Annotated[int, Field(gt=0)] | None = None
    """Sent when given; otherwise the server's default applies."""
    stream: bool = False
    """Ask for the answer as Server-Sent Events, and record the time to the first token."""
    stream_usage: bool = True
    """With `stream`, send `stream_options: {include_usage: true}` so the stream ends with the
    tokens used (OpenAI, vLLM, llama.cpp and LiteLLM honour it). Set false for a server that
    refuses the field; its tokens are then "not reported". Never sent without `stream`; an
    `extra_body.stream_options` is sent as written instead."""
    api_key_env: EnvName | None = None
    """Send `Authorization: Bearer $NAME`."""
    tool_choice: Literal["auto", "required"] | NamedToolChoice | None = None
    """For a case with scripted tools: sent on the scripted loop's first turn (`required`:
    the model must call a tool before answering; `{type: function, function: {name: NAME}}`:
    it must call that one, for servers that ignore `required`). Later turns leave the choice
    to the server, so the model can give its final answer. Left out: never sent."""
    extra_body: dict[str, JsonValue] = {}
    """More request fields (`seed`, `parallel_tool_calls`, ...), sent as written. For a case
    with scripted tools, the case's `tools` replace any given here."""
    response: OpenAIResponse
    """The fields an OpenAI-compatible answer has no place for."""

    @field_validator("tool_choice", mode="wrap")
    @classmethod
    def _one_tool_choice_error(cls, value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        # Two forms make two errors for one mistake; say once what may be written.
        try:
            return handler(value)
        except ValidationError:
            raise PydanticCustomError(
                "tool_choice",
                "{shown} is not {expected}",
                {
                    "shown": kind_of(value),
                    "expected": "'auto', 'required' or {type: function, function: {name: NAME}}",
                },
            ) from None

    @model_validator(mode="after")
    def _one_of_each(self) -> OpenAIChatSpec:
        if self.system is not None and self.system_file is not None:
            raise PydanticCustomError(
                "two_systems", "give `system` or `system_file`, not both", _at("system_file")
            )
        if self.api_key_env is not None and self.auth is not None:
            raise PydanticCustomError(
                "two_auths", "give `api_key_env` or `auth`, not both", _at("api_key_env")
            )
        if self.tool_choice is not None and "tool_choice" in self.extra_body:
            raise PydanticCustomError(
                "two_tool_choices",
                "give `tool_choice` or `extra_body.tool_choice`, not both",
                _at("extra_body", "tool_choice"),
            )
        owned = [key for key in self.extra_body if key in _OWNED_BODY_KEYS]
        if owned:
            raise PydanticCustomError(
                "extra_body_owned",
                "gauntlet sets `{key}` itself, from {owner}",
                {
                    "key": owned[0],
                    "owner": _OWNED_BODY_KEYS[owned[0]],
                    **_at("extra_body", owned[0]),
                },
            )
        return self


class HttpSpec(_Common):
    """Any JSON API: a body template out, a JMESPath mapping back."""

    kind: Literal["http"]
    url: HttpUrl
    """Where the body is sent."""
    method: Literal["POST", "PUT"] = "POST"
    body: dict[str, JsonValue]
    """The request body. A string leaf may hold placeholders; one that is exactly one
    placeholder takes the value with its JSON type."""
    response: HttpResponse
    """Where each field of the contract is in the answer."""
    session: Session | None = None
    """A server-side conversation: where its id comes from, sent back on the next turn."""


MAX_EMBEDDINGS_BATCH = 2048
"""The most texts one `/v1/embeddings` request may carry (OpenAI's own limit)."""


class OpenAIEmbeddingsSpec(_Common):
    """Any OpenAI-compatible `/v1/embeddings` server: an embedder, not a target.

    Given to `--embedder`, never to `--target`: it turns texts into vectors for similarity.
    """

    kind: Literal["openai-embeddings"]
    url: HttpUrl
    """Up to `/v1` (requests go to `<url>/embeddings`), or the whole `.../embeddings` URL."""
    model: NonEmptyText
    """The model name the server expects (the fingerprint records the one it answers with)."""
    dimensions: Annotated[int, Field(ge=1, le=65536)] | None = None
    """Sent when given, for models that can shorten their vectors; every vector must have it."""
    encoding_format: Literal["float", "base64"] = "float"
    """How the server sends each vector: JSON numbers, or base64 of little-endian float32."""
    batch: Annotated[int, Field(ge=1, le=MAX_EMBEDDINGS_BATCH)] = 64
    """Texts per request."""
    api_key_env: EnvName | None = None
    """Send `Authorization: Bearer $NAME`."""

    @model_validator(mode="after")
    def _one_auth(self) -> OpenAIEmbeddingsSpec:
        if self.api_key_env is not None and self.auth is not None:
            raise PydanticCustomError(
                "two_auths", "give `api_key_env` or `auth`, not both", _at("api_key_env")
            )
        return self


TargetKind = Literal["toy", "callable", "gauntlet", "openai-chat", "http"]
"""How a run reached its target, one word from the target file (or flag) to the results:
`gauntlet` is the native contract (a target file of kind `gauntlet`, or `--http-url`),
`openai-chat` and `http` are target files of those kinds, `toy` and `callable` are the
targets `--toy-defect` and `--callable` name. Each file kind is `<Kind>Spec` and builds a
`<Kind>Target`."""

TargetSpec = GauntletSpec | OpenAIChatSpec | HttpSpec
"""A validated target file of one of the three kinds that describe a target."""
TargetFileSpec = TargetSpec | OpenAIEmbeddingsSpec
"""A validated target file of any kind: a target's, or an embedder's (`openai-embeddings`)."""
TargetFile = Annotated[TargetFileSpec, Field(discriminator="kind")]
TARGET_FILE_ADAPTER: TypeAdapter[TargetFileSpec] = TypeAdapter(
    TargetFile, config=ConfigDict(defer_build=True)
)
"""Built on first use, as the records are: a run without a target file never builds it."""


def target_file_schema() -> dict[str, Any]:
    """The JSON Schema of a target file, as `gauntlet schema target` prints it."""
    schema = TARGET_FILE_ADAPTER.json_schema(schema_generator=FieldDocstrings)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "gauntlet target file"
    return schema
