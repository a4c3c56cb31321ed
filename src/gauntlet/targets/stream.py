"""Streamed answers: Server-Sent Events and NDJSON decoded, each chunk read as strict JSON.

Everything here is pure: bytes in, events or JSON values out, no I/O but the iterator the
caller passes. The HTTP target reads a streamed body through `read_json_stream`, under its own
deadline; `assemble_openai` then turns OpenAI's `chat.completion.chunk`s into the
`chat.completion` a non-streamed request would have got, so both paths map the same answer.

A stream is an answer only when it is whole. A stream that ends without its terminator, a
chunk that is not JSON, an `error` event or error object, a line or a body too long: each is a
`TargetContractError` naming it, and no partial answer is ever returned to be graded.

`SSEDecoder` follows the WHATWG HTML standard's "event stream interpretation" to the letter
(https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation),
with one addition: a cap on how much it will buffer, so a hostile server cannot make it hold
a line, or an event's data, without end.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, NoReturn

from gauntlet import strict_json
from gauntlet.display import clipped, printable
from gauntlet.errors import TargetContractError
from gauntlet.strict_json import json_kind

DEFAULT_MAX_LINE = 1024 * 1024
"""The longest line a decoder buffers (1 MiB), the end-of-line not counted."""

MAX_REPORTED = 200
"""The longest a stream's own error message is quoted."""

DONE = "[DONE]"
"""The data of the event that ends an OpenAI-style SSE stream."""

Framing = Literal["sse", "ndjson"]
"""How a streamed body is cut into chunks: Server-Sent Events, or one JSON text a line."""

_BOM = "\ufeff"
_ASCII_DIGITS = re.compile(r"[0-9]+")
_NDJSON_BLANK = b" \t\r"
"""What a blank NDJSON line may hold: JSON's whitespace (a line feed ends the line)."""

_MISSING = object()
"""A key's value when the key is not there at all (null is a value)."""

_TEXT_DELTAS = ("content", "refusal", "reasoning_content", "reasoning")
"""Delta keys whose fragments are concatenated: the answer, a refusal, and the reasoning text
that DeepSeek, vLLM and llama.cpp's server stream beside it."""


@dataclass(frozen=True, slots=True)
class ServerSentEvent:
    """One dispatched event, as the WHATWG standard builds it.

    `id` and `retry` are the stream's state when the event was dispatched, not only what the
    event's own lines said: the standard keeps the last event ID and the reconnection time
    from one event to the next until a line changes them.
    """

    event: str = "message"
    """The event type: the last `event:` line's value, or "message" when there was none."""
    data: str = ""
    """Every `data:` line's value joined by line feeds."""
    id: str = ""
    """The last event ID: the last `id:` value without a NUL, so far in the stream."""
    retry: int | None = None
    """The reconnection time in milliseconds the stream last set, or `None` if it never did."""


class SSEDecoder:
    """Server-Sent Events from a body's bytes, chunk by chunk, by the WHATWG rules.

    Chunks may split the stream anywhere (inside a UTF-8 character, between a CR and its LF):
    the events are the same as if the body had come in one piece. Bytes that are not UTF-8 are
    read as U+FFFD, one for each maximal invalid subpart, as the standard's UTF-8 decode does.

    Args:
        max_line: The longest line, and the most data one event may gather, in bytes. A
            stream that passes it is refused, so a hostile server cannot make the decoder
            buffer without end.
    """

    def __init__(self, max_line: int = DEFAULT_MAX_LINE) -> None:
        self.max_line = max_line
        self.last_event_id = ""
        """The last event ID buffer: kept from event to event, as the standard says."""
        self.retry: int | None = None
        """The reconnection time the stream set (milliseconds), if it set one."""
        self._pending = bytearray()
        """The start of a line whose end has not arrived (it holds no CR or LF)."""
        self._after_cr = False
        """The last chunk ended in a CR: an LF that starts the next one ends no second line."""
        self._first_line = True
        self._data: list[str] = []
        self._data_bytes = 0
        self._event_type = ""

    def feed(self, chunk: bytes) -> list[ServerSentEvent]:
        """Decode the next chunk of the body.

        Returns:
            The events that a blank line in this chunk completed, in order.

        Raises:
            TargetContractError: a line, or the data of one event, passed `max_line` bytes.
        """
        if not chunk:
            return []
        if self._after_cr:
            self._after_cr = False
            if chunk.startswith(b"\n"):
                chunk = chunk[1:]  # the LF of a CRLF that the last chunk cut after its CR
        # bytes.splitlines() cuts at CRLF, CR and LF, and at nothing else: the standard's line
        # ends. Without one at the end, the last line goes on in the next chunk.
        lines = chunk.splitlines()
        ended = chunk.endswith((b"\n", b"\r"))
        rest = lines.pop() if lines and not ended else b""
        events: list[ServerSentEvent] = []
        for line in lines:
            event = self._line(self._take_line(line))
            if event is not None:
                events.append(event)
        self._after_cr = chunk.endswith(b"\r")
        self._keep(rest)
        return events

    def close(self) -> list[ServerSentEvent]:
        """End the stream: whatever was not ended by a blank line is discarded.

        The standard says so: an event the stream did not finish is never dispatched. So this
        always returns an empty list; it exists so that both decoders end the same way, and it
        leaves the decoder ready for a new stream (the last event ID and retry are kept).
        """
        self._pending.clear()
        self._after_cr = False
        self._first_line = True
        self._reset_event()
        return []

    def _take_line(self, end: bytes) -> bytes:
        """A whole line: what was kept of it from earlier chunks, then its `end`."""
        if self._pending:
            line = bytes(self._pending) + end
            self._pending.clear()
        else:
            line = end
        if len(line) > self.max_line:
            _line_too_long(self.max_line)
        return line

    def _keep(self, rest: bytes) -> None:
        """Keep the start of a line whose end has not arrived."""
        if rest:
            if len(self._pending) + len(rest) > self.max_line:
                _line_too_long(self.max_line)
            self._pending += rest

    def _line(self, raw: bytes) -> ServerSentEvent | None:
        line = raw.decode("utf-8", errors="replace")
        if self._first_line:
            self._first_line = False
            if line.startswith(_BOM):
                line = line[len(_BOM) :]
        if not line:
            return self._dispatch()
        if line.startswith(":"):
            return None
        field, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if field == "data":
            self._data_bytes += len(raw)
            if self._data_bytes > self.max_line:
                raise TargetContractError(
                    f"stream has an event whose data is longer than {self.max_line:,} bytes"
                )
            self._data.append(value)
        elif field == "event":
            self._event_type = value
        elif field == "id":
            if "\0" not in value:
                self.last_event_id = value
        elif field == "retry" and _ASCII_DIGITS.fullmatch(value):
            self._set_retry(value)
        return None

    def _set_retry(self, digits: str) -> None:
        try:
            self.retry = int(digits.lstrip("0") or "0")
        except ValueError:  # more digits than int() reads (4,300): no time anyone could wait
            return

    def _dispatch(self) -> ServerSentEvent | None:
        if not self._data:
            self._reset_event()
            return None
        event = ServerSentEvent(
            event=self._event_type or "message",
            data="\n".join(self._data),  # each line's LF, less the last one
            id=self.last_event_id,
            retry=self.retry,
        )
        self._reset_event()
        return event

    def _reset_event(self) -> None:
        self._data = []
        self._data_bytes = 0
        self._event_type = ""


class NDJSONDecoder:
    """Lines of newline-delimited JSON from a body's bytes, chunk by chunk.

    A line ends in LF or CRLF (a lone CR is not a line end: JSON text may not hold one raw,
    and NDJSON does not use it). Blank lines, holding nothing but JSON whitespace, are skipped.

    Args:
        max_line: The longest line, in bytes; a stream that passes it is refused.
    """

    def __init__(self, max_line: int = DEFAULT_MAX_LINE) -> None:
        self.max_line = max_line
        self._pending = bytearray()

    def feed(self, chunk: bytes) -> list[bytes]:
        """Decode the next chunk of the body.

        Returns:
            The non-blank lines this chunk completed, without their LF or CRLF.

        Raises:
            TargetContractError: a line passed `max_line` bytes.
        """
        lines: list[bytes] = []
        start = 0
        while (end := chunk.find(b"\n", start)) != -1:
            if self._pending:
                line = bytes(self._pending) + chunk[start:end]
                self._pending.clear()
            else:
                line = chunk[start:end]
            start = end + 1
            self._add(lines, line)
        # One byte more than the cap may wait: the CR of a CRLF that is not counted.
        if len(self._pending) + len(chunk) - start > self.max_line + 1:
            _line_too_long(self.max_line)
        self._pending += chunk[start:]
        return lines

    def close(self) -> list[bytes]:
        """End the stream: a last line without a line feed is still a line.

        Returns:
            That line, if it is not blank.
        """
        lines: list[bytes] = []
        line = bytes(self._pending)
        self._pending.clear()
        self._add(lines, line)
        return lines

    def _add(self, lines: list[bytes], line: bytes) -> None:
        if line.endswith(b"\r"):
            line = line[:-1]
        if len(line) > self.max_line:
            _line_too_long(self.max_line)
        if line.strip(_NDJSON_BLANK):
            lines.append(line)


async def read_json_stream(
    chunks: AsyncIterable[bytes],
    framing: Framing,
    *,
    max_bytes: int,
    is_last: Callable[[Any], bool] | None = None,
    on_first_data: Callable[[], None] | None = None,
    max_line: int = DEFAULT_MAX_LINE,
) -> list[Any]:
    """Read a streamed body whole: every chunk as strict JSON, or an error saying what broke.

    Each SSE event's data, or each NDJSON line, is one chunk, numbered from 0 in the order
    returned ("stream chunk 0" is the first). The stream must end with its terminator:

    - SSE: an event whose data is exactly `[DONE]` ends it; reading stops there and nothing
      after it is read. A chunk for which `is_last` is true (OpenAI: a `finish_reason`) is a
      terminator too, but reading goes on, to `[DONE]` or the end of the body: OpenAI sends
      the usage chunk after the `finish_reason` chunk and before `[DONE]`
      (`stream_options.include_usage`). So a body that ends after an `is_last` chunk without
      `[DONE]` is whole; one that ends with neither is not.
    - NDJSON: the first chunk for which `is_last` is true ends it (and is returned); reading
      stops there.

    Args:
        chunks: The body's bytes, in pieces of any size (aiohttp's `iter_any()`).
        framing: "sse" or "ndjson".
        max_bytes: The most bytes read before the stream is refused; the bytes are counted
            as they arrive, and a piece that would pass the cap is refused whole.
        is_last: Says whether a chunk is the stream's last (for SSE, a terminator besides
            `[DONE]`). Required for NDJSON, which has no terminator of its own.
        on_first_data: Called once, when the first JSON chunk arrives: the caller records
            the time to first token.
        max_line: The longest line (and, for SSE, the most data in one event) accepted.

    Returns:
        The JSON chunks in order, the `is_last` chunk included; never a partial stream.

    Raises:
        ValueError: NDJSON framing without `is_last`, or an unknown framing.
        TargetContractError: the stream passed `max_bytes` or `max_line`; it reported an
            error (an SSE `error` event, or a chunk that is an object with an `error` key
            that is not null); a chunk is not strict JSON (its number and start are quoted);
            or the stream ended without its terminator.
    """
    if framing == "ndjson" and is_last is None:
        raise ValueError("NDJSON has no terminator of its own: pass is_last")
    if framing not in ("sse", "ndjson"):
        raise ValueError(f"unknown stream framing {framing!r}: expected 'sse' or 'ndjson'")
    reader = _StreamReader(framing, is_last, on_first_data, max_line)
    received = 0
    async for piece in chunks:
        received += len(piece)
        if received > max_bytes:
            raise TargetContractError(f"stream is larger than {max_bytes:,} bytes")
        if reader.feed(piece):
            return reader.chunks
    reader.close()
    if not reader.terminated:
        raise TargetContractError(f"stream ended without its terminator ({reader.looked_for})")
    return reader.chunks


class _StreamReader:
    """The state of one `read_json_stream`: the decoder, the chunks read, the terminator."""

    def __init__(
        self,
        framing: Framing,
        is_last: Callable[[Any], bool] | None,
        on_first_data: Callable[[], None] | None,
        max_line: int,
    ) -> None:
        self._decoder = SSEDecoder(max_line) if framing == "sse" else NDJSONDecoder(max_line)
        self._is_last = is_last
        self._on_first_data = on_first_data
        self.chunks: list[Any] = []
        self.terminated = False
        """A terminator was seen: `[DONE]`, or a chunk `is_last` accepted."""

    @property
    def looked_for(self) -> str:
        """The terminators this stream could have ended with, for the message when it did not."""
        if isinstance(self._decoder, NDJSONDecoder):
            return "no last chunk"
        if self._is_last is None:
            return "no `data: [DONE]`"
        return "no `data: [DONE]` and no last chunk"

    def feed(self, piece: bytes) -> bool:
        """Read one piece of the body; true when reading must stop."""
        if isinstance(self._decoder, SSEDecoder):
            return any(self._event(event) for event in self._decoder.feed(piece))
        return any(self._chunk(line) for line in self._decoder.feed(piece))

    def close(self) -> None:
        """The body ended: an NDJSON line without its line feed is still read."""
        if isinstance(self._decoder, SSEDecoder):
            self._decoder.close()  # an event the stream did not finish is discarded
            return
        for line in self._decoder.close():
            self._chunk(line)

    def _event(self, event: ServerSentEvent) -> bool:
        if event.event == "error":
            _reported_error(_reported_in(event.data))
        if event.data == DONE:
            self.terminated = True
            return True
        self._chunk(event.data)
        return False  # an SSE stream goes on after its last chunk, for [DONE] or usage

    def _chunk(self, data: bytes | str) -> bool:
        """Read one chunk; true when `is_last` says it is the last (NDJSON stops there)."""
        value = strict_json.loads(data, what=f"stream chunk {len(self.chunks)}")
        if isinstance(value, dict) and value.get("error") is not None:
            _reported_error(_reported(value))
        if not self.chunks and self._on_first_data is not None:
            self._on_first_data()
        self.chunks.append(value)
        if self._is_last is not None and self._is_last(value):
            self.terminated = True
            return True
        return False


def _reported_error(said: str) -> NoReturn:
    if not said:
        raise TargetContractError("stream reported an error, with no message")
    raise TargetContractError(f"stream reported an error: {said}")


def _reported_in(data: str) -> str:
    """What an SSE `error` event says: its JSON error's message, or its data as it is."""
    try:
        value = strict_json.loads(data, what="error event")
    except TargetContractError:
        return _quoted(data)
    return _reported(value)


def _reported(value: Any) -> str:
    """An error's message: `{"error": {"message": ...}}`, `{"error": "..."}`, or the JSON.

    The `error` keys are followed in a loop, not by recursion: a hostile stream may nest them
    as deep as the JSON reader allows.
    """
    while isinstance(value, dict) and value.get("error") is not None:
        value = value["error"]
    if isinstance(value, dict) and isinstance(value.get("message"), str):
        return _quoted(value["message"])
    if isinstance(value, str):
        return _quoted(value)
    try:
        shown = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except RecursionError:  # a value built deeper than the JSON writer goes
        shown = f"(a JSON {json_kind(value)} nested too deeply to show)"
    return _quoted(shown)


def _quoted(text: str) -> str:
    """Untrusted text as a message may hold it: secrets masked, cut short, on one line."""
    return printable(clipped(text, MAX_REPORTED))


def _line_too_long(limit: int) -> NoReturn:
    raise TargetContractError(f"stream has a line longer than {limit:,} bytes")


# ---------------------------------------------------------------- OpenAI chat completions


def openai_is_last(chunk: Any) -> bool:
    """Whether an OpenAI `chat.completion.chunk` finishes the answer.

    True when its choice with index 0 has a `finish_reason` that is a non-empty string: a
    server that never sends `data: [DONE]` still ends its answer this way. Anything else,
    malformed chunks included, is false (`assemble_openai` names what is malformed).
    """
    if not isinstance(chunk, dict):
        return False
    choices = chunk.get("choices")
    if not isinstance(choices, list):
        return False
    return any(
        isinstance(choice, dict)
        and _is_int(choice.get("index"))
        and choice["index"] == 0
        and isinstance(choice.get("finish_reason"), str)
        and choice["finish_reason"] != ""
        for choice in choices
    )


def assemble_openai(chunks: Sequence[Any]) -> dict[str, Any]:
    """The `chat.completion` that OpenAI `chat.completion.chunk`s add up to.

    The rule throughout: beyond `object`, `choices`, and the message's `role` and `content`
    and the choice's `finish_reason` that every completion has, the assembled completion
    holds a key only where some chunk sent it. So whoever reads it tells "sent as null" from
    "never sent" exactly as for an answer that was not streamed: a `refusal` that came as
    null declares "no refusal", one that never came declares nothing; a tool call's missing
    `type` is not filled in.

    Only the choice with index 0 is assembled. Its message has `role` ("assistant" unless a
    delta says otherwise); `content`, the concatenation of its fragments, or `None` when no
    fragment was a string; `refusal`, `reasoning_content` and `reasoning` the same way, when
    a delta sent the key; `tool_calls`, merged by their `index` and listed in index order
    (`id`, `type` and `function.name` from the first fragment that gives them a non-empty
    value, which a later fragment may repeat or leave empty but not change; `function.arguments`
    concatenated), or no `tool_calls` key when none came; and any
    other delta key, the last non-null value winning (Azure's `context`). The choice's
    `finish_reason` is the last non-empty one (`None` if none), its `logprobs` lists are
    concatenated, and its other keys, like every top-level key but `choices` and `object`,
    take the last non-null value (`None` when the key only came as null); so `usage` is the
    usage-only final chunk's.

    Args:
        chunks: The JSON chunks of one stream, in order, as `read_json_stream` returns them.

    Returns:
        `{"id", "model", "object": "chat.completion", "choices": [...], "usage", ...}`, each
        key there only when a chunk had it (`object` and `choices` always).

    Raises:
        TargetContractError: a chunk is malformed, or gives a tool call another id, type or
            name than an earlier one; the message names the chunk and the path, e.g. "stream
            chunk 4: choices[0].delta.content is a number, not text".
    """
    top: dict[str, Any] = {}
    choice = _Choice()
    for number, chunk in enumerate(chunks):
        if not isinstance(chunk, dict):
            raise TargetContractError(
                f"stream chunk {number} is a JSON {json_kind(chunk)}, not an object"
            )
        shape = _Shape(number)
        choices = shape.typed(chunk.get("choices", _MISSING), "choices", list)
        for key, value in chunk.items():
            if key not in ("choices", "object"):
                _last_non_null(top, key, value)
        for position, entry in enumerate(choices):
            path = f"choices[{position}]"
            entry = shape.typed(entry, path, dict)
            index = entry.get("index", _MISSING)
            if not _is_int(index):
                shape.wrong(index, f"{path}.index", "an integer")
            if index == 0:
                choice.add(entry, shape, path)
    named: dict[str, Any] = {key: top.pop(key) for key in ("id", "model") if key in top}
    return {**named, "object": "chat.completion", "choices": [choice.assembled()], **top}


class _Shape:
    """Type checks for one chunk, each failure naming the chunk and the path."""

    def __init__(self, number: int) -> None:
        self.number = number

    def wrong(self, value: Any, path: str, expected: str) -> NoReturn:
        if value is _MISSING:
            raise TargetContractError(f"stream chunk {self.number}: {path} is missing")
        kind = json_kind(value)
        found = kind if kind == "null" else f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}"
        raise TargetContractError(f"stream chunk {self.number}: {path} is {found}, not {expected}")

    def typed(self, value: Any, path: str, kind: type[Any]) -> Any:
        """`value` when it is a `kind` (dict or list); otherwise a contract error."""
        if not isinstance(value, kind):
            self.wrong(value, path, "an object" if kind is dict else "an array")
        return value

    def text(self, value: Any, path: str) -> str | None:
        """`value` when it is a string or null; otherwise a contract error."""
        if value is not None and not isinstance(value, str):
            self.wrong(value, path, "text")
        return value


class _Text:
    """A text sent in fragments: `None` until a fragment is a string, then their concatenation."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    def add(self, fragment: str | None) -> None:
        if fragment is not None:
            self.parts.append(fragment)

    def value(self) -> str | None:
        return "".join(self.parts) if self.parts else None


class _Choice:
    """The choice with index 0, assembled fragment by fragment."""

    def __init__(self) -> None:
        self.texts: dict[str, _Text] = {"content": _Text()}
        """Each text delta key sent, even only as null; `content` always."""
        self.tool_calls: dict[int, _ToolCall] = {}
        self.delta_keys: dict[str, Any] = {}
        self.finish_reason: str | None = None
        self.logprobs: dict[str, Any] | None = None
        self.choice_keys: dict[str, Any] = {}

    def add(self, entry: Mapping[str, Any], shape: _Shape, path: str) -> None:
        for key, value in entry.items():
            if key == "delta":
                self._delta(shape.typed(value, f"{path}.delta", dict), shape, f"{path}.delta")
            elif key == "finish_reason":
                reason = shape.text(value, f"{path}.finish_reason")
                if reason:
                    self.finish_reason = reason
            elif key == "logprobs":
                self._logprobs(value, shape, f"{path}.logprobs")
            elif key != "index":
                _last_non_null(self.choice_keys, key, value)

    def _delta(self, delta: Mapping[str, Any], shape: _Shape, path: str) -> None:
        for key, value in delta.items():
            if key in _TEXT_DELTAS:
                self.texts.setdefault(key, _Text()).add(shape.text(value, f"{path}.{key}"))
            elif key == "tool_calls":
                if value is not None:
                    fragments = shape.typed(value, f"{path}.tool_calls", list)
                    for position, fragment in enumerate(fragments):
                        self._tool_call(fragment, shape, f"{path}.tool_calls[{position}]")
            else:
                _last_non_null(self.delta_keys, key, value)

    def _tool_call(self, fragment: Any, shape: _Shape, path: str) -> None:
        fragment = shape.typed(fragment, path, dict)
        index = fragment.get("index", _MISSING)
        if not _is_int(index):
            shape.wrong(index, f"{path}.index", "an integer")
        call = self.tool_calls.setdefault(index, _ToolCall())
        call.add(fragment, shape, path)

    def _logprobs(self, value: Any, shape: _Shape, path: str) -> None:
        if value is None:
            return
        value = shape.typed(value, path, dict)
        merged = self.logprobs if self.logprobs is not None else {}
        for key, part in value.items():
            if isinstance(part, list) and isinstance(merged.get(key), list):
                merged[key] = [*merged[key], *part]
            else:
                _last_non_null(merged, key, part)
        self.logprobs = merged

    def assembled(self) -> dict[str, Any]:
        texts = {key: text.value() for key, text in self.texts.items()}
        message: dict[str, Any] = {"role": "assistant", **texts, **self.delta_keys}
        if self.tool_calls:
            message["tool_calls"] = [
                self.tool_calls[index].assembled() for index in sorted(self.tool_calls)
            ]
        choice: dict[str, Any] = {"index": 0, "message": message}
        if self.logprobs is not None:
            choice["logprobs"] = self.logprobs
        choice |= self.choice_keys
        choice["finish_reason"] = self.finish_reason
        return choice


class _ToolCall:
    """One tool call, merged from the fragments that share its index.

    A key is in the merged call only when a fragment sent it, so a reader's own default (a
    missing `type` read as "function") applies as it would to a call that was not streamed.
    """

    def __init__(self) -> None:
        self.call: dict[str, Any] = {}
        self.function: dict[str, Any] | None = None
        """The function's keys but `arguments`; `None` until a fragment has a `function`."""
        self.arguments: _Text | None = None
        """`None` until a fragment has `function.arguments`, even a null one."""

    def add(self, fragment: Mapping[str, Any], shape: _Shape, path: str) -> None:
        for key, value in fragment.items():
            if key in ("id", "type"):
                _first_given(self.call, key, shape, f"{path}.{key}", value)
            elif key == "function":
                if value is not None:
                    self._function(shape.typed(value, f"{path}.function", dict), shape, path)
            elif key != "index":
                _last_non_null(self.call, key, value)

    def _function(self, function: Mapping[str, Any], shape: _Shape, path: str) -> None:
        kept = self.function if self.function is not None else {}
        self.function = kept
        for key, value in function.items():
            if key == "name":
                _first_given(kept, key, shape, f"{path}.function.name", value)
            elif key == "arguments":
                self.arguments = self.arguments or _Text()
                self.arguments.add(shape.text(value, f"{path}.function.arguments"))
            else:
                _last_non_null(kept, key, value)

    def assembled(self) -> dict[str, Any]:
        call: dict[str, Any] = {key: self.call[key] for key in ("id", "type") if key in self.call}
        if self.function is not None:
            function = dict(self.function)
            if self.arguments is not None:
                function["arguments"] = self.arguments.value()
            call["function"] = function
        return call | self.call


def _last_non_null(into: dict[str, Any], key: str, value: Any) -> None:
    """Keep `value` under `key` unless it is null and a value is already there."""
    if value is not None or key not in into:
        into[key] = value


def _first_given(into: dict[str, Any], key: str, shape: _Shape, path: str, value: Any) -> None:
    """Keep the first non-empty `value` of a key that later fragments may repeat or leave empty.

    A later fragment that gives another non-empty value is a contract error: which of two ids
    or names the call had is not for a reader to choose.
    """
    given = shape.text(value, path)
    if key not in into or (not into[key] and given):
        into[key] = given
    elif given and given != into[key]:
        raise TargetContractError(
            f"stream chunk {shape.number}: {path} differs from the one an earlier chunk gave "
            "this tool call"
        )


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
