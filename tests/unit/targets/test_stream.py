"""Streamed answers: the WHATWG event-stream rules, NDJSON, each stream failure, and OpenAI chunks.

The SSE decoder is checked rule by rule, then against a reference written the way the
standard reads (decode the whole body, split it into lines, interpret them), for any body cut
into chunks anywhere.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gauntlet.display import masking
from gauntlet.errors import TargetContractError
from gauntlet.targets.contract import ToolCall
from gauntlet.targets.mapping import map_openai
from gauntlet.targets.spec import Absent, OpenAIResponse
from gauntlet.targets.stream import (
    DEFAULT_MAX_LINE,
    Framing,
    NDJSONDecoder,
    ServerSentEvent,
    SSEDecoder,
    _reported,
    assemble_openai,
    openai_is_last,
    read_json_stream,
)

# ---------------------------------------------------------------- references


def whatwg_utf8_decode(data: bytes) -> str:
    """The Encoding Standard's UTF-8 decoder, error mode "replacement", written from its steps.

    The BOM is left in: the standard's "UTF-8 decode" strips it before this runs.
    """
    out: list[str] = []
    code = needed = seen = 0
    lower, upper = 0x80, 0xBF
    position = 0
    while position < len(data):
        byte = data[position]
        if needed == 0:
            position += 1
            if byte <= 0x7F:
                out.append(chr(byte))
            elif 0xC2 <= byte <= 0xDF:
                needed, code = 1, byte & 0x1F
            elif 0xE0 <= byte <= 0xEF:
                lower = 0xA0 if byte == 0xE0 else lower
                upper = 0x9F if byte == 0xED else upper
                needed, code = 2, byte & 0xF
            elif 0xF0 <= byte <= 0xF4:
                lower = 0x90 if byte == 0xF0 else lower
                upper = 0x8F if byte == 0xF4 else upper
                needed, code = 3, byte & 0x7
            else:
                out.append("\ufffd")
            continue
        if not lower <= byte <= upper:
            code = needed = seen = 0
            lower, upper = 0x80, 0xBF
            out.append("\ufffd")
            continue  # the byte is read again, as the start of what follows
        lower, upper = 0x80, 0xBF
        code = (code << 6) | (byte & 0x3F)
        seen += 1
        position += 1
        if seen == needed:
            out.append(chr(code))
            code = needed = seen = 0
    if needed:
        out.append("\ufffd")
    return "".join(out)


def reference_events(body: bytes) -> list[ServerSentEvent]:
    """The events of a whole body, read as the standard's steps say, one after the other."""
    text = whatwg_utf8_decode(body)
    text = text.removeprefix("\ufeff")
    lines = re.split("\r\n|\r|\n", text)
    lines.pop()  # what follows the last line end is no line: the stream ended inside it
    events: list[ServerSentEvent] = []
    data = event_type = last_id = ""
    retry: int | None = None
    for line in lines:
        if line == "":
            if data == "":
                event_type = ""
                continue
            events.append(
                ServerSentEvent(event_type or "message", data.removesuffix("\n"), last_id, retry)
            )
            data = event_type = ""
            continue
        if line.startswith(":"):
            continue
        if ":" in line:
            field, value = line.split(":", 1)
            value = value.removeprefix(" ")
        else:
            field, value = line, ""
        if field == "event":
            event_type = value
        elif field == "data":
            data += value + "\n"
        elif field == "id" and "\x00" not in value:
            last_id = value
        elif field == "retry" and value and all(c in "0123456789" for c in value):
            retry = int(value)
    return events


def sse(*chunks: bytes, max_line: int = DEFAULT_MAX_LINE) -> list[ServerSentEvent]:
    decoder = SSEDecoder(max_line)
    events = [event for chunk in chunks for event in decoder.feed(chunk)]
    return events + decoder.close()


def ndjson(*chunks: bytes, max_line: int = DEFAULT_MAX_LINE) -> list[bytes]:
    decoder = NDJSONDecoder(max_line)
    lines = [line for chunk in chunks for line in decoder.feed(chunk)]
    return lines + decoder.close()


def cut(body: bytes, cuts: Sequence[int]) -> list[bytes]:
    points = [0, *sorted(cuts), len(body)]
    return [body[start:end] for start, end in zip(points, points[1:], strict=False)]


def message(data: str, **fields: Any) -> ServerSentEvent:
    return ServerSentEvent(data=data, **fields)


# ---------------------------------------------------------------- SSE: the WHATWG rules


def test_a_data_line_and_a_blank_line_make_a_message_event() -> None:
    assert sse(b"data: hello\n\n") == [ServerSentEvent("message", "hello", "", None)]


def test_data_lines_are_joined_by_line_feeds() -> None:
    assert sse(b"data: one\ndata: two\ndata: three\n\n") == [message("one\ntwo\nthree")]


def test_only_one_trailing_line_feed_is_removed() -> None:
    assert sse(b"data: a\ndata:\n\n") == [message("a\n")]
    assert sse(b"data:\ndata:\n\n") == [message("\n")]


def test_one_space_after_the_colon_is_removed_and_no_more() -> None:
    assert sse(b"data:x\n\ndata: x\n\ndata:  x\n\ndata:\tx\n\n") == [
        message("x"),
        message("x"),
        message(" x"),
        message("\tx"),
    ]


def test_the_value_is_everything_after_the_first_colon() -> None:
    assert sse(b'data: {"a": "b:c"}\n\n') == [message('{"a": "b:c"}')]


def test_a_line_without_a_colon_is_a_field_with_an_empty_value() -> None:
    assert sse(b"data\n\n") == [message("")]
    assert sse(b"data\ndata\n\n") == [message("\n")]
    assert sse(b"event\ndata: x\n\n") == [message("x")]


def test_a_line_starting_with_a_colon_is_a_comment() -> None:
    assert sse(b": keep-alive\ndata: a\n:data: b\n\n") == [message("a")]
    assert sse(b":\n\n: only comments\n\n") == []


def test_the_event_field_sets_the_type_until_the_event_is_dispatched() -> None:
    assert sse(b"event: delta\ndata: 1\n\ndata: 2\n\n") == [
        ServerSentEvent("delta", "1"),
        ServerSentEvent("message", "2"),
    ]


def test_the_last_event_field_wins() -> None:
    assert sse(b"event: a\nevent: b\ndata: x\n\n") == [ServerSentEvent("b", "x")]


def test_an_empty_event_type_is_a_message() -> None:
    assert sse(b"event:\ndata: x\n\n") == [ServerSentEvent("message", "x")]


def test_a_blank_line_with_no_data_dispatches_nothing_and_forgets_the_type() -> None:
    assert sse(b"event: ping\n\ndata: x\n\n") == [ServerSentEvent("message", "x")]
    assert sse(b"\n\n\r\n\r\r") == []


def test_the_event_id_is_kept_from_event_to_event() -> None:
    assert sse(b"id: 7\ndata: a\n\ndata: b\n\nid\ndata: c\n\n") == [
        message("a", id="7"),
        message("b", id="7"),
        message("c", id=""),
    ]


def test_an_id_holding_nul_is_ignored() -> None:
    assert sse(b"id: 1\ndata: a\n\nid: 2\x003\ndata: b\n\n") == [
        message("a", id="1"),
        message("b", id="1"),
    ]


def test_an_id_set_without_data_still_counts_for_the_next_event() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"id: 5\n\n") == []
    assert decoder.last_event_id == "5"
    assert decoder.feed(b"data: x\n\n") == [message("x", id="5")]


@pytest.mark.parametrize(
    ("line", "retry"),
    [
        (b"retry: 1500", 1500),
        (b"retry:0", 0),
        (b"retry: 007", 7),
        (b"retry:  1500", None),  # the second space is part of the value
        (b"retry: 15s", None),
        (b"retry: -1", None),
        (b"retry: 1.5", None),
        (b"retry: +1", None),
        (b"retry:", None),
        (b"retry", None),
        ("retry: ١٢".encode(), None),  # digits, but not ASCII digits
        ("retry: ²".encode(), None),
    ],
    ids=ascii,
)
def test_retry_is_set_only_by_ascii_digits(line: bytes, retry: int | None) -> None:
    decoder = SSEDecoder()
    assert decoder.feed(line + b"\ndata: x\n\n") == [message("x", retry=retry)]
    assert decoder.retry == retry


def test_a_bad_retry_keeps_the_last_good_one() -> None:
    assert sse(b"retry: 10\ndata: a\n\nretry: x\ndata: b\n\n") == [
        message("a", retry=10),
        message("b", retry=10),
    ]


def test_a_retry_of_more_digits_than_int_reads_is_ignored() -> None:
    # The trap: int() refuses more than 4,300 digits with a ValueError.
    assert sse(b"retry: 5\nretry: " + b"9" * 5_000 + b"\ndata: x\n\n") == [message("x", retry=5)]


def test_a_retry_with_many_leading_zeros_is_read() -> None:
    assert sse(b"retry: " + b"0" * 5_000 + b"42\ndata: x\n\n") == [message("x", retry=42)]


def test_unknown_fields_are_ignored_and_names_are_case_sensitive() -> None:
    assert sse(b"Data: no\nDATA: no\nfoo: bar\ndata : no\n data: no\ndata: yes\n\n") == [
        message("yes")
    ]


@pytest.mark.parametrize("end", [b"\n", b"\r", b"\r\n"], ids=ascii)
def test_lines_end_in_lf_cr_or_crlf(end: bytes) -> None:
    body = b"data: a" + end + b"data: b" + end + end + b"data: c" + end + end
    assert sse(body) == [message("a\nb"), message("c")]


def test_line_ends_may_be_mixed() -> None:
    assert sse(b"data: a\rdata: b\r\ndata: c\n\r\n") == [message("a\nb\nc")]


def test_cr_then_lf_across_chunks_is_one_line_end() -> None:
    assert sse(b"data: a\r", b"\ndata: b\r", b"\n\r", b"\n") == [message("a\nb")]


def test_cr_then_cr_across_chunks_is_two_line_ends() -> None:
    assert sse(b"data: a\r", b"\rdata: b\r\r") == [message("a"), message("b")]


def test_an_empty_chunk_between_cr_and_lf_changes_nothing() -> None:
    assert sse(b"data: a\r", b"", b"\n\r", b"", b"\n") == [message("a")]


def test_a_leading_byte_order_mark_is_stripped() -> None:
    assert sse(b"\xef\xbb\xbfdata: a\n\n") == [message("a")]


def test_a_byte_order_mark_cut_across_chunks_is_stripped() -> None:
    assert sse(b"\xef", b"\xbb", b"\xbfdata: a\n\n") == [message("a")]


def test_only_one_byte_order_mark_is_stripped() -> None:
    # The second is part of the field name, "\ufeffdata", which no rule knows.
    assert sse(b"\xef\xbb\xbf\xef\xbb\xbfdata: a\n\ndata: b\n\n") == [message("b")]


def test_a_byte_order_mark_after_the_start_is_not_stripped() -> None:
    assert sse(b"\n\xef\xbb\xbfdata: a\n\n") == []
    assert sse(b"data: \xef\xbb\xbfa\n\n") == [message("\ufeffa")]


def test_a_character_cut_across_chunks_is_decoded_whole() -> None:
    body = "data: é€😀\n\n".encode()
    assert all(sse(body[:i], body[i:]) == [message("é€😀")] for i in range(len(body) + 1))


@pytest.mark.parametrize(
    ("raw", "text"),
    [
        (b"\xff", "\ufffd"),
        (b"\xc3", "\ufffd"),
        (b"\xe2\x82", "\ufffd"),  # one replacement for the cut character, not two
        (b"\xe2\x82A", "\ufffdA"),
        (b"\xed\xa0\x80", "\ufffd\ufffd\ufffd"),  # an encoded surrogate
        (b"\xf0\x9f\x98", "\ufffd"),
        (b"\xc0\xaf", "\ufffd\ufffd"),  # an overlong form
        (b"\xf4\x90\x80\x80", "\ufffd" * 4),  # beyond U+10FFFF
    ],
    ids=ascii,
)
def test_bytes_that_are_not_utf8_become_replacement_characters(raw: bytes, text: str) -> None:
    assert sse(b"data: " + raw + b"\n\n") == [message(text)]
    assert whatwg_utf8_decode(raw) == text


def test_an_event_the_stream_did_not_finish_is_discarded() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: a\n\ndata: b\n") == [message("a")]
    assert decoder.close() == []
    assert sse(b"data: a") == []
    assert sse(b"data: a\r\n") == []


def test_close_leaves_the_decoder_ready_for_a_new_stream() -> None:
    decoder = SSEDecoder()
    decoder.feed(b"id: 3\nevent: x\ndata: half")
    decoder.close()
    assert decoder.feed(b"\xef\xbb\xbfdata: b\n\n") == [message("b", id="3")]


def test_a_line_up_to_the_cap_is_read() -> None:
    body = b"data:" + b"x" * 5 + b"\n\n"
    assert sse(body, max_line=10) == [message("x" * 5)]
    assert sse(*[body[i : i + 1] for i in range(len(body))], max_line=10) == [message("x" * 5)]


@pytest.mark.parametrize(
    "chunks",
    [
        [b"data:" + b"x" * 6 + b"\n\n"],
        [b"data:", b"xxxxxx"],  # refused before the line ends: it is never buffered
        [b": comment that goes on"],
        [b"data: a\n", b"01234567890"],
    ],
    ids=["whole", "growing", "comment", "second-line"],
)
def test_a_line_over_the_cap_is_refused(chunks: list[bytes]) -> None:
    with pytest.raises(TargetContractError) as caught:
        sse(*chunks, max_line=10)
    assert str(caught.value) == "stream has a line longer than 10 bytes"


def test_an_event_gathering_data_over_the_cap_is_refused() -> None:
    decoder = SSEDecoder(max_line=20)
    assert decoder.feed(b"data: 12345\n" * 1) == []
    with pytest.raises(TargetContractError) as caught:
        decoder.feed(b"data: 12345\n")
    assert str(caught.value) == "stream has an event whose data is longer than 20 bytes"


def test_data_counted_for_the_cap_starts_again_with_each_event() -> None:
    assert sse(b"data: 12345\n\n" * 5, max_line=12) == [message("12345")] * 5


def test_the_default_cap_is_one_mebibyte() -> None:
    assert DEFAULT_MAX_LINE == 1024 * 1024
    assert SSEDecoder().max_line == NDJSONDecoder().max_line == DEFAULT_MAX_LINE


# ---------------------------------------------------------------- SSE: any chunking, one answer

_SSE_PIECES = st.sampled_from(
    [
        b"data",
        b"event",
        b"id",
        b"retry",
        b"error",
        b":",
        b": ",
        b" ",
        b"\r",
        b"\n",
        b"\r\n",
        b"\n\n",
        b"x",
        b"12",
        b"[DONE]",
        b'{"a": 1}',
        b"\x00",
        "é€😀".encode(),
        b"\xef\xbb\xbf",
        b"\xff",
        b"\xe2\x82",
        b"\xed\xa0\x80",
        b"\xf0\x9f",
    ]
)

sse_bodies = st.one_of(
    st.lists(_SSE_PIECES, max_size=40).map(b"".join),
    st.lists(st.one_of(_SSE_PIECES, st.binary(max_size=4)), max_size=30).map(b"".join),
)


@given(sse_bodies)
def test_the_decoder_reads_a_whole_body_as_the_standard_does(body: bytes) -> None:
    assert sse(body) == reference_events(body)


@given(sse_bodies, st.data())
def test_any_chunking_gives_the_same_events(body: bytes, data: st.DataObject) -> None:
    cuts = data.draw(st.lists(st.integers(0, len(body)), max_size=12))
    assert sse(*cut(body, cuts)) == sse(body)


@given(sse_bodies)
def test_a_body_fed_byte_by_byte_gives_the_same_events(body: bytes) -> None:
    assert sse(*[body[i : i + 1] for i in range(len(body))]) == sse(body)


@given(sse_bodies, st.data(), st.integers(1, 12))
def test_the_cap_refuses_the_same_bodies_however_they_are_cut(
    body: bytes, data: st.DataObject, cap: int
) -> None:
    cuts = data.draw(st.lists(st.integers(0, len(body)), max_size=12))

    def outcome(*chunks: bytes) -> object:
        try:
            return sse(*chunks, max_line=cap)
        except TargetContractError as error:
            return str(error)

    assert outcome(*cut(body, cuts)) == outcome(body)


@given(st.binary(max_size=40))
def test_pythons_replacement_decoding_is_the_standards(data: bytes) -> None:
    assert data.decode("utf-8", errors="replace") == whatwg_utf8_decode(data)


# ---------------------------------------------------------------- NDJSON


def test_ndjson_lines_end_in_lf_or_crlf() -> None:
    assert ndjson(b'{"a": 1}\n{"b": 2}\r\n[3]\n') == [b'{"a": 1}', b'{"b": 2}', b"[3]"]


def test_ndjson_blank_lines_are_skipped() -> None:
    assert ndjson(b"\n1\n\r\n \t \n2\n  \r\n") == [b"1", b"2"]


def test_ndjson_a_last_line_without_a_line_feed_is_a_line() -> None:
    decoder = NDJSONDecoder()
    assert decoder.feed(b"1\n2") == [b"1"]
    assert decoder.close() == [b"2"]
    assert ndjson(b"1\n  ") == [b"1"]


def test_ndjson_a_lone_cr_ends_no_line() -> None:
    assert ndjson(b"1\r2\n") == [b"1\r2"]


def test_ndjson_crlf_cut_across_chunks_is_one_line_end() -> None:
    assert ndjson(b"1\r", b"\n2\r", b"\n") == [b"1", b"2"]


def test_ndjson_a_line_up_to_the_cap_is_read_however_it_is_cut() -> None:
    body = b"1234567890\r\n"
    assert ndjson(body, max_line=10) == [b"1234567890"]
    assert ndjson(body[:11], body[11:], max_line=10) == [b"1234567890"]


@pytest.mark.parametrize(
    "chunks",
    [[b"12345678901\n"], [b"1234567890", b"12"], [b"12345678901"], [b"1\n", b"12345678901\r\n"]],
    ids=ascii,
)
def test_ndjson_a_line_over_the_cap_is_refused(chunks: list[bytes]) -> None:
    with pytest.raises(TargetContractError) as caught:
        ndjson(*chunks, max_line=10)
    assert str(caught.value) == "stream has a line longer than 10 bytes"


ndjson_bodies = st.lists(
    st.sampled_from([b"1", b"[2]", b'{"a": "\xc3\xa9"}', b"\n", b"\r\n", b"\r", b" ", b"\t"]),
    max_size=30,
).map(b"".join)


@given(ndjson_bodies, st.data())
def test_ndjson_any_chunking_gives_the_same_lines(body: bytes, data: st.DataObject) -> None:
    cuts = data.draw(st.lists(st.integers(0, len(body)), max_size=10))
    expected = [
        line.removesuffix(b"\r")
        for line in body.split(b"\n")
        if line.removesuffix(b"\r").strip(b" \t\r")
    ]
    assert ndjson(*cut(body, cuts)) == ndjson(body) == expected


# ---------------------------------------------------------------- read_json_stream


class Body:
    """An async body that records how far it was read."""

    def __init__(self, *pieces: bytes, log: list[str] | None = None) -> None:
        self.pieces = list(pieces)
        self.read = 0
        self.log = log if log is not None else []

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self

    async def __anext__(self) -> bytes:
        if self.read == len(self.pieces):
            raise StopAsyncIteration
        self.read += 1
        self.log.append(f"piece {self.read}")
        return self.pieces[self.read - 1]


def read(
    body: Body | bytes,
    framing: Framing = "sse",
    *,
    max_bytes: int = 1 << 20,
    is_last: Callable[[Any], bool] | None = None,
    on_first_data: Callable[[], None] | None = None,
    max_line: int = DEFAULT_MAX_LINE,
) -> list[Any]:
    pieces = body if isinstance(body, Body) else Body(body)
    return asyncio.run(
        read_json_stream(
            pieces,
            framing,
            max_bytes=max_bytes,
            is_last=is_last,
            on_first_data=on_first_data,
            max_line=max_line,
        )
    )


def refusal(body: Body | bytes, framing: Framing = "sse", **options: Any) -> str:
    with pytest.raises(TargetContractError) as caught:
        read(body, framing, **options)
    return str(caught.value)


def is_dict(chunk: Any) -> bool:
    return isinstance(chunk, dict)


def is_done(chunk: Any) -> bool:
    return isinstance(chunk, dict) and chunk.get("done") is True


def test_sse_chunks_are_read_as_json_until_done() -> None:
    body = Body(b'data: {"n": 1}\n\n: ping\n\ndata: [2,\ndata: 3]\n\n', b"data: [DONE]\n\n")
    assert read(body) == [{"n": 1}, [2, 3]]


def test_sse_reading_stops_at_done() -> None:
    body = Body(b"data: 1\n\ndata: [DONE]\n\ndata: not json\n\n", b"\xff" * 100)
    assert read(body) == [1]
    assert body.read == 1


def test_sse_events_of_any_type_but_error_are_chunks() -> None:
    body = b'event: delta\ndata: {"t": "a"}\n\nevent: done\ndata: {"t": "b"}\n\ndata: [DONE]\n\n'
    assert read(body) == [{"t": "a"}, {"t": "b"}]


def test_sse_done_must_be_exactly_done() -> None:
    assert refusal(b"data: [DONE] \n\n") == (
        "stream chunk 0 is not JSON: Expecting value at line 1, column 2 (body starts '[DONE] ')"
    )


def test_sse_a_last_chunk_then_usage_then_done_keeps_the_usage() -> None:
    # OpenAI's stream_options.include_usage: usage comes after the finish_reason chunk.
    body = (
        b'data: {"choices": [{"index": 0, "delta": {"content": "Hi"}, "finish_reason": null}]}\n\n'
        b'data: {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}\n\n'
        b'data: {"choices": [], "usage": {"total_tokens": 3}}\n\n'
        b"data: [DONE]\n\n"
    )
    chunks = read(body, is_last=openai_is_last)
    assert [chunk.get("usage") for chunk in chunks] == [None, None, {"total_tokens": 3}]


def test_sse_a_body_ending_after_the_last_chunk_without_done_is_whole() -> None:
    body = b'data: {"done": false}\n\ndata: {"done": true}\n\ndata: {"after": 1}\n\n'
    assert read(body, is_last=is_done) == [{"done": False}, {"done": True}, {"after": 1}]


def test_sse_a_body_ending_with_neither_terminator_is_refused() -> None:
    body = b'data: {"done": false}\n\n'
    assert refusal(body, is_last=is_done) == (
        "stream ended without its terminator (no `data: [DONE]` and no last chunk)"
    )
    assert refusal(body) == "stream ended without its terminator (no `data: [DONE]`)"
    assert refusal(b"") == "stream ended without its terminator (no `data: [DONE]`)"


def test_sse_a_done_event_the_stream_did_not_finish_is_no_terminator() -> None:
    assert refusal(b"data: 1\n\ndata: [DONE]\n") == (
        "stream ended without its terminator (no `data: [DONE]`)"
    )


def test_sse_without_is_last_only_done_terminates() -> None:
    assert refusal(b'data: {"done": true}\n\n') == (
        "stream ended without its terminator (no `data: [DONE]`)"
    )


def test_ndjson_reading_stops_at_the_last_chunk_which_is_returned() -> None:
    body = Body(b'{"done": false}\n{"done": true}\nnot json\n', b"\xff")
    assert read(body, "ndjson", is_last=is_done) == [{"done": False}, {"done": True}]
    assert body.read == 1


def test_ndjson_a_last_line_without_a_line_feed_can_end_the_stream() -> None:
    assert read(b'{"done": false}\r\n\r\n{"done": true}', "ndjson", is_last=is_done) == [
        {"done": False},
        {"done": True},
    ]


def test_ndjson_a_body_ending_without_its_last_chunk_is_refused() -> None:
    assert refusal(b'{"done": false}\n', "ndjson", is_last=is_done) == (
        "stream ended without its terminator (no last chunk)"
    )


def test_ndjson_needs_is_last() -> None:
    with pytest.raises(ValueError, match=r"^NDJSON has no terminator of its own: pass is_last$"):
        read(b"1\n", "ndjson")


def test_an_unknown_framing_is_a_value_error() -> None:
    with pytest.raises(ValueError, match=r"^unknown stream framing 'jsonl'"):
        read(b"1\n", "jsonl", is_last=is_done)  # type: ignore[arg-type]


def test_a_stream_up_to_max_bytes_is_read() -> None:
    body = b"data: 1\n\ndata: [DONE]\n\n"
    assert read(Body(body[:10], body[10:]), max_bytes=len(body)) == [1]


def test_a_stream_over_max_bytes_is_refused_before_the_piece_is_read() -> None:
    body = Body(b"data: 1\n\n", b"data: [DONE]\n\n", b"never read")
    assert refusal(body, max_bytes=22) == "stream is larger than 22 bytes"
    assert body.read == 2


def test_max_bytes_is_written_with_thousands_separators() -> None:
    assert refusal(b"x" * 2_000, max_bytes=1_500) == "stream is larger than 1,500 bytes"


def test_a_line_over_max_line_is_refused() -> None:
    assert refusal(b"data: " + b"1" * 20 + b"\n\n", max_line=16) == (
        "stream has a line longer than 16 bytes"
    )
    assert refusal(b"1" * 20 + b"\n", "ndjson", is_last=is_done, max_line=16) == (
        "stream has a line longer than 16 bytes"
    )


@pytest.mark.parametrize(
    ("event", "said"),
    [
        (b'{"error": {"message": "Overloaded", "type": "overloaded_error"}}', "Overloaded"),
        (b'{"type": "error", "error": {"type": "x", "message": "quota"}}', "quota"),
        (b'{"message": "bad gateway"}', "bad gateway"),
        (b'{"error": "boom"}', "boom"),
        (b'{"error": {"code": 500}}', '{"code":500}'),
        (b'"no capacity"', "no capacity"),
        (b"42", "42"),
        (b"upstream went away", "upstream went away"),
    ],
    ids=ascii,
)
def test_an_error_event_is_refused_with_its_message(event: bytes, said: str) -> None:
    body = b"data: 1\n\nevent: error\ndata: " + event + b"\n\ndata: [DONE]\n\n"
    assert refusal(body) == f"stream reported an error: {said}"


@pytest.mark.parametrize("data", [b"", b'""', b'{"error": ""}', b'{"message": ""}'], ids=ascii)
def test_an_error_event_without_a_message_says_so(data: bytes) -> None:
    assert refusal(b"event: error\ndata: " + data + b"\n\n") == (
        "stream reported an error, with no message"
    )


@pytest.mark.parametrize(
    ("chunk", "said"),
    [
        (b'{"error": {"message": "Rate limit reached", "code": 429}}', "Rate limit reached"),
        (b'{"error": "model not loaded"}', "model not loaded"),
        (b'{"error": {"error": {"message": "nested"}}}', "nested"),
        (b'{"error": true}', "true"),
        (b'{"error": ["a", 1]}', '["a",1]'),
        (b'{"error": {"message": 5}}', '{"message":5}'),
    ],
    ids=ascii,
)
def test_an_error_object_is_refused_with_its_message(chunk: bytes, said: str) -> None:
    assert refusal(b"data: " + chunk + b"\n\ndata: [DONE]\n\n") == (
        f"stream reported an error: {said}"
    )
    assert refusal(chunk + b"\n", "ndjson", is_last=is_done) == (
        f"stream reported an error: {said}"
    )


def test_an_error_key_that_is_null_is_no_error() -> None:
    assert read(b'data: {"error": null, "n": 1}\n\ndata: [DONE]\n\n') == [{"error": None, "n": 1}]


def test_an_error_after_the_last_chunk_is_still_refused() -> None:
    body = b'data: {"done": true}\n\nevent: error\ndata: late\n\n'
    assert refusal(body, is_last=is_done) == "stream reported an error: late"


def test_a_reported_error_is_cut_short_on_one_line() -> None:
    said = refusal(b'data: {"error": "line one\\nline two ' + b"z" * 300 + b'"}\n\n')
    assert said == "stream reported an error: line one\\nline two " + "z" * 181 + "…"


def test_a_reported_error_is_masked() -> None:
    body = b'data: {"error": "bad key sk-live-0123456789abcdef"}\n\n'
    with masking(lambda text: text.replace("sk-live-0123456789abcdef", "***")):
        said = refusal(body)
    assert said == "stream reported an error: bad key ***"


def test_an_error_too_deep_to_show_is_named_by_its_kind() -> None:
    nested: list[Any] = []
    for _ in range(100_000):
        nested = [nested]
    assert _reported({"error": nested}) == "(a JSON array nested too deeply to show)"


@pytest.mark.parametrize(
    ("body", "framing", "said"),
    [
        (
            b"data: 1\n\ndata: {oops}\n\n",
            "sse",
            "stream chunk 1 is not JSON: Expecting property name enclosed in double quotes at "
            "line 1, column 2 (body starts '{oops}')",
        ),
        (
            b"data:\n\n",
            "sse",
            "stream chunk 0 is not JSON: Expecting value at line 1, column 1 (body starts '')",
        ),
        (
            b'data: {"a": 1, "a": 2}\n\n',
            "sse",
            "stream chunk 0 has the key 'a' twice",
        ),
        (b"data: [NaN]\n\n", "sse", "stream chunk 0 holds NaN, which JSON does not allow"),
        (
            b"1\n2\n\xff\n",
            "ndjson",
            "stream chunk 2 is not UTF-8 JSON: invalid start byte at byte 0",
        ),
        (
            b"1\n[1, 2\n",
            "ndjson",
            "stream chunk 1 is not JSON: Expecting ',' delimiter at line 1, column 6 "
            "(body starts '[1, 2')",
        ),
    ],
    ids=["syntax", "empty-data", "duplicate-key", "nan", "not-utf8", "ndjson-syntax"],
)
def test_a_chunk_that_is_not_strict_json_is_refused_by_its_number(
    body: bytes, framing: Framing, said: str
) -> None:
    assert refusal(body, framing, is_last=is_done) == said


def test_a_chunk_decoded_with_replacements_is_quoted_as_decoded() -> None:
    assert refusal(b"data: \xff{\n\n") == (
        "stream chunk 0 is not JSON: Expecting value at line 1, column 1 (body starts '\ufffd{')"
    )


def test_on_first_data_is_called_once_when_the_first_chunk_arrives() -> None:
    log: list[str] = []
    body = Body(
        b": hello\n\n",
        b"data: 1\n\ndata: 2\n\n",
        b"data: 3\n\n",
        b"data: [DONE]\n\n",
        log=log,
    )
    assert read(body, on_first_data=lambda: log.append("first data")) == [1, 2, 3]
    assert log == ["piece 1", "piece 2", "first data", "piece 3", "piece 4"]


def test_on_first_data_is_not_called_without_a_chunk() -> None:
    calls: list[None] = []
    assert read(b"data: [DONE]\n\n", on_first_data=lambda: calls.append(None)) == []
    assert calls == []


def test_on_first_data_is_called_for_ndjson() -> None:
    calls: list[None] = []
    assert read(b"{}\n", "ndjson", is_last=is_dict, on_first_data=lambda: calls.append(None)) == [
        {}
    ]
    assert calls == [None]


def test_a_stream_cut_into_any_pieces_reads_the_same() -> None:
    body = (
        '\ufeffdata: {"t": "é€"}\r\n\r\n: ping\r\ndata: {"t": "😀"}\r\rdata: [DONE]\r\n\r\n'
    ).encode()
    whole = read(body)
    assert whole == [{"t": "é€"}, {"t": "😀"}]
    for size in (1, 2, 3, 5, 7):
        pieces = [body[i : i + size] for i in range(0, len(body), size)]
        assert read(Body(*pieces)) == whole


# ---------------------------------------------------------------- OpenAI chunks


ABSENT = Absent(absent=True)


def chunk(
    delta: dict[str, Any] | None = None, finish_reason: str | None = None, **top: Any
) -> dict[str, Any]:
    choice = {"index": 0, "delta": delta if delta is not None else {}}
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": "smollm2",
        "choices": [{**choice, "finish_reason": finish_reason}],
        **top,
    }


def test_content_is_assembled_into_a_chat_completion() -> None:
    chunks = [
        chunk({"role": "assistant", "content": "", "refusal": None}),
        chunk({"content": "Open "}),
        chunk({"content": "9 to 5."}),
        chunk({}, "stop"),
    ]
    assert assemble_openai(chunks) == {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1700000000,
        "model": "smollm2",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "Open 9 to 5.", "refusal": None},
                "finish_reason": "stop",
            }
        ],
    }


def test_the_assembled_completion_lists_id_model_and_object_first() -> None:
    assert list(assemble_openai([chunk({"content": "a"}, "stop")])) == [
        "id",
        "model",
        "object",
        "choices",
        "created",
    ]


def test_no_chunks_assemble_to_an_empty_answer() -> None:
    assert assemble_openai([]) == {
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": None},
                "finish_reason": None,
            }
        ],
    }


def test_a_refusal_is_assembled_and_content_stays_none() -> None:
    chunks = [
        chunk({"role": "assistant", "content": None, "refusal": ""}),
        chunk({"refusal": "I can't "}),
        chunk({"refusal": "help with that."}),
        chunk({}, "stop"),
    ]
    message = assemble_openai(chunks)["choices"][0]["message"]
    assert message == {"role": "assistant", "content": None, "refusal": "I can't help with that."}


def test_tool_calls_split_over_fragments_are_merged_by_index() -> None:
    chunks = [
        chunk({"role": "assistant", "content": None, "tool_calls": [
            {"index": 0, "id": "call_a", "type": "function",
             "function": {"name": "lookup", "arguments": ""}},
        ]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"id": '}}]}),
        chunk({"tool_calls": [
            {"index": 1, "id": "call_b", "type": "function",
             "function": {"name": "escalate", "arguments": "{}"}},
            {"index": 0, "function": {"arguments": '"RB-001"}'}},
        ]}),
        chunk({"tool_calls": [{"index": 0, "id": "", "function": {"name": "lookup"}}]}),
        chunk({"tool_calls": [{"index": 1, "id": "call_b", "type": "function",
                               "function": {"name": "escalate"}}]}),
        chunk({"tool_calls": None}, "tool_calls"),
    ]  # fmt: skip
    assert assemble_openai(chunks)["choices"][0] == {
        "index": 0,
        "message": {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_a",
                    "type": "function",
                    "function": {"name": "lookup", "arguments": '{"id": "RB-001"}'},
                },
                {
                    "id": "call_b",
                    "type": "function",
                    "function": {"name": "escalate", "arguments": "{}"},
                },
            ],
        },
        "finish_reason": "tool_calls",
    }


@pytest.mark.parametrize(
    ("fragment", "path"),
    [
        ({"index": 0, "id": "call_z"}, "id"),
        ({"index": 0, "type": "x"}, "type"),
        ({"index": 0, "function": {"name": "transfer_funds"}}, "function.name"),
        ({"index": 0, "id": "call_a", "function": {"name": "other"}}, "function.name"),
    ],
    ids=["id", "type", "name", "same-id-other-name"],
)
def test_a_fragment_that_gives_a_tool_call_another_id_or_name_is_a_contract_error(
    fragment: dict[str, Any], path: str
) -> None:
    # Trap: the first value wins, so a stream that renames a call after the first fragment
    # has the call recorded under a name it never settled on, and nobody is told.
    chunks = [
        chunk({"tool_calls": [{"index": 0, "id": "call_a", "type": "function",
                               "function": {"name": "lookup", "arguments": "{}"}}]}),
        chunk({"tool_calls": [{"index": 0, "id": "call_a", "function": {"name": "lookup"}}]}),
        chunk({"tool_calls": [fragment]}),
    ]  # fmt: skip
    with pytest.raises(TargetContractError) as caught:
        assemble_openai(chunks)
    assert str(caught.value) == (
        f"stream chunk 2: choices[0].delta.tool_calls[0].{path} differs from the one an "
        "earlier chunk gave this tool call"
    )


_JSON_LEAF = st.none() | st.booleans() | st.integers(-1000, 1000) | st.text(max_size=8)
_ARGUMENTS = st.dictionaries(
    st.text(min_size=1, max_size=6),
    st.recursive(_JSON_LEAF, lambda inner: st.lists(inner, max_size=3), max_leaves=4),
    max_size=4,
)


def _fragments(text: str, cuts: list[int]) -> list[str]:
    points = sorted({0, len(text), *(cut % (len(text) + 1) for cut in cuts)})
    return [text[start:end] for start, end in itertools.pairwise(points)] or [""]


def _streamed(message: dict[str, Any], cuts: list[int]) -> list[dict[str, Any]]:
    """`message`'s tool calls as a server streams them: name first, arguments in pieces."""
    chunks = [chunk({"role": "assistant", "content": None})]
    for index, call in enumerate(message["tool_calls"]):
        function = call["function"]
        head = {"index": index, "id": call["id"], "type": "function"}
        chunks.append(chunk({"tool_calls": [{**head, "function": {"name": function["name"]}}]}))
        for piece in _fragments(function["arguments"], cuts):
            fragment = {"index": index, "function": {"arguments": piece}}
            chunks.append(chunk({"tool_calls": [fragment]}))
    chunks.append(chunk({}, "tool_calls"))
    return chunks


@given(
    calls=st.lists(st.tuples(_ARGUMENTS, st.booleans()), min_size=1, max_size=3),
    cuts=st.lists(st.integers(0, 200), max_size=6),
)
def test_streamed_tool_calls_map_exactly_as_the_same_answer_not_streamed(
    calls: list[tuple[dict[str, Any], bool]], cuts: list[int]
) -> None:
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": f"call_{index}",
                "type": "function",
                "function": {
                    "name": f"tool_{index}",
                    "arguments": json.dumps(arguments, indent=2 if spaced else None),
                },
            }
            for index, (arguments, spaced) in enumerate(calls)
        ],
    }
    whole = {"choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}]}
    streamed = assemble_openai(_streamed(message, cuts))
    assert streamed["choices"][0]["message"] == message
    spec = OpenAIResponse(citations=ABSENT, context_ids=ABSENT, escalated=ABSENT)
    once = map_openai(spec, whole, "en")
    assert map_openai(spec, streamed, "en", streamed=True) == once
    assert once.response.tool_calls == tuple(
        ToolCall(id=f"call_{index}", name=f"tool_{index}", arguments=arguments)
        for index, (arguments, _) in enumerate(calls)
    )


@pytest.mark.parametrize(
    "arguments", ['{"a": 1', '{"a": 1, "a": 2}', '{"a": NaN}', "[]", "", "null"]
)
def test_streamed_arguments_that_are_not_an_object_are_refused_as_unstreamed_ones_are(
    arguments: str,
) -> None:
    call = {"id": "call_0", "type": "function", "function": {"name": "f", "arguments": arguments}}
    message = {"role": "assistant", "content": None, "tool_calls": [call]}
    whole = {"choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}]}
    spec = OpenAIResponse(citations=ABSENT, context_ids=ABSENT, escalated=ABSENT)
    with pytest.raises(TargetContractError) as once:
        map_openai(spec, whole, "en")
    with pytest.raises(TargetContractError) as streamed:
        map_openai(spec, assemble_openai(_streamed(message, [1, 3])), "en", streamed=True)
    assert str(streamed.value) == str(once.value)
    assert str(once.value).startswith(
        "tool_calls: `choices[0].message.tool_calls[0].function.arguments` (call 'call_0') is "
        "not a JSON object: "
    )


def test_tool_calls_come_in_index_order_with_only_the_keys_that_were_sent() -> None:
    # A reader's own defaults (a missing `type` is "function") must apply as they would to
    # an answer that was not streamed, so nothing a fragment did not send is filled in.
    chunks = [
        chunk({"tool_calls": [{"index": 2, "function": {"arguments": "b"}}]}),
        chunk({"tool_calls": [{"index": 2, "function": {"arguments": None}}]}),
        chunk({"tool_calls": [{"index": 0, "id": "", "function": None, "extra": 1}]}),
        chunk({"tool_calls": [{"index": 0, "id": "call_0", "extra": None}]}),
        chunk({"tool_calls": [{"index": 1, "type": None, "function": {"arguments": None}}]}),
    ]
    assert assemble_openai(chunks)["choices"][0]["message"]["tool_calls"] == [
        {"id": "call_0", "extra": 1},
        {"type": None, "function": {"arguments": None}},
        {"function": {"arguments": "b"}},
    ]


def test_a_tool_call_fragments_other_function_keys_are_kept() -> None:
    chunks = [chunk({"tool_calls": [{"index": 0, "function": {"name": "f", "strict": True}}]})]
    assert assemble_openai(chunks)["choices"][0]["message"]["tool_calls"] == [
        {"function": {"name": "f", "strict": True}}
    ]


def test_a_refusal_key_is_there_only_when_a_delta_sent_it() -> None:
    # A refusal sent as null declares "no refusal"; one never sent declares nothing.
    def message(*deltas: dict[str, Any]) -> dict[str, Any]:
        completion = assemble_openai([chunk(delta) for delta in deltas])
        return completion["choices"][0]["message"]  # type: ignore[no-any-return]

    assert message({"content": "a"}) == {"role": "assistant", "content": "a"}
    assert message({"content": "a", "refusal": None}) == {
        "role": "assistant",
        "content": "a",
        "refusal": None,
    }
    assert message({"refusal": None}, {"refusal": "No."}) == {
        "role": "assistant",
        "content": None,
        "refusal": "No.",
    }


def test_empty_tool_calls_lists_leave_no_tool_calls_key() -> None:
    chunks = [chunk({"content": "a", "tool_calls": []}), chunk({"tool_calls": None}, "stop")]
    assert "tool_calls" not in assemble_openai(chunks)["choices"][0]["message"]


def test_a_usage_only_last_chunk_gives_the_usage() -> None:
    usage = {"prompt_tokens": 9, "completion_tokens": 2, "total_tokens": 11}
    chunks = [
        chunk({"content": "Hi"}, usage=None),
        chunk({}, "stop", usage=None),
        {"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": [], "usage": usage},
    ]
    completion = assemble_openai(chunks)
    assert completion["usage"] == usage
    assert completion["choices"][0]["finish_reason"] == "stop"
    assert completion["choices"][0]["message"]["content"] == "Hi"


def test_a_key_that_only_ever_came_as_null_is_none() -> None:
    completion = assemble_openai([chunk({"content": "a"}, usage=None, system_fingerprint=None)])
    assert completion["usage"] is None
    assert completion["system_fingerprint"] is None


def test_other_keys_take_the_last_value_that_is_not_null() -> None:
    chunks = [
        chunk({"content": "a", "context": {"citations": ["x"]}}, system_fingerprint="fp_1"),
        chunk({"content": "b", "context": {"citations": ["y"]}}, system_fingerprint=None),
        chunk({"context": None}, "stop", service_tier="default"),
    ]
    completion = assemble_openai(chunks)
    assert completion["system_fingerprint"] == "fp_1"
    assert completion["service_tier"] == "default"
    assert completion["choices"][0]["message"] == {
        "role": "assistant",
        "content": "ab",
        "context": {"citations": ["y"]},
    }


def test_the_role_from_a_delta_is_kept() -> None:
    message = assemble_openai([chunk({"role": "tool", "content": "x"})])["choices"][0]["message"]
    assert message["role"] == "tool"


def test_reasoning_text_is_concatenated_like_content() -> None:
    chunks = [
        chunk({"reasoning_content": "Think"}),
        chunk({"reasoning_content": "ing.", "content": None}),
        chunk({"reasoning": "R", "content": "Done."}),
        chunk({"reasoning": "S"}, "stop"),
    ]
    message = assemble_openai(chunks)["choices"][0]["message"]
    assert message == {
        "role": "assistant",
        "content": "Done.",
        "reasoning_content": "Thinking.",
        "reasoning": "RS",
    }


def test_the_finish_reason_is_the_last_that_is_not_empty() -> None:
    chunks = [chunk({}, "length"), chunk({}, ""), chunk({}, None)]
    assert assemble_openai(chunks)["choices"][0]["finish_reason"] == "length"


def test_only_the_choice_with_index_zero_is_assembled() -> None:
    chunks = [
        {"choices": [{"index": 1, "delta": {"content": "other"}, "finish_reason": None}]},
        {"choices": [{"index": 0, "delta": {"content": "mine"}, "finish_reason": "stop"}]},
        {"choices": [{"index": 1, "delta": {"content": 5}, "finish_reason": 7}]},
    ]
    assert assemble_openai(chunks)["choices"] == [
        {
            "index": 0,
            "message": {"role": "assistant", "content": "mine"},
            "finish_reason": "stop",
        }
    ]


def test_logprobs_are_concatenated_and_other_choice_keys_kept() -> None:
    chunks = [
        {"choices": [{"index": 0, "delta": {"content": "a"}, "logprobs": None}]},
        {"choices": [{"index": 0, "delta": {"content": "b"},
                      "logprobs": {"content": [{"token": "b"}], "refusal": None},
                      "content_filter_results": {"hate": {"filtered": False}}}]},
        {"choices": [{"index": 0, "delta": {"content": "c"},
                      "logprobs": {"content": [{"token": "c"}], "refusal": None},
                      "content_filter_results": None}]},
    ]  # fmt: skip
    choice = assemble_openai(chunks)["choices"][0]
    assert choice["logprobs"] == {"content": [{"token": "b"}, {"token": "c"}], "refusal": None}
    assert choice["content_filter_results"] == {"hate": {"filtered": False}}
    assert choice["message"]["content"] == "abc"


@given(st.text(), st.data())
def test_content_cut_into_any_fragments_is_assembled_whole(text: str, data: st.DataObject) -> None:
    cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=8)))
    points = [0, *cuts, len(text)]
    fragments = [text[a:b] for a, b in zip(points, points[1:], strict=False)]
    chunks = [chunk({"content": fragment}) for fragment in fragments]
    assert assemble_openai(chunks)["choices"][0]["message"]["content"] == text


@pytest.mark.parametrize(
    ("bad", "said"),
    [
        ([1, 2], "stream chunk 1 is a JSON array, not an object"),
        ("data", "stream chunk 1 is a JSON string, not an object"),
        ({"id": "x"}, "stream chunk 1: choices is missing"),
        ({"choices": None}, "stream chunk 1: choices is null, not an array"),
        ({"choices": {"0": {}}}, "stream chunk 1: choices is an object, not an array"),
        ({"choices": ["x"]}, "stream chunk 1: choices[0] is a string, not an object"),
        ({"choices": [{"delta": {}}]}, "stream chunk 1: choices[0].index is missing"),
        (
            {"choices": [{"index": 0}, {"index": "1"}]},
            "stream chunk 1: choices[1].index is a string, not an integer",
        ),
        (
            {"choices": [{"index": True}]},
            "stream chunk 1: choices[0].index is a boolean, not an integer",
        ),
        (
            {"choices": [{"index": 0.0}]},
            "stream chunk 1: choices[0].index is a number, not an integer",
        ),
        (
            {"choices": [{"index": 0, "delta": "hi"}]},
            "stream chunk 1: choices[0].delta is a string, not an object",
        ),
        (
            {"choices": [{"index": 0, "delta": None}]},
            "stream chunk 1: choices[0].delta is null, not an object",
        ),
        (
            {"choices": [{"index": 0, "delta": {"content": 5}}]},
            "stream chunk 1: choices[0].delta.content is a number, not text",
        ),
        (
            {"choices": [{"index": 0, "delta": {"content": ["a"]}}]},
            "stream chunk 1: choices[0].delta.content is an array, not text",
        ),
        (
            {"choices": [{"index": 0, "delta": {"refusal": False}}]},
            "stream chunk 1: choices[0].delta.refusal is a boolean, not text",
        ),
        (
            {"choices": [{"index": 0, "finish_reason": 1}]},
            "stream chunk 1: choices[0].finish_reason is a number, not text",
        ),
        (
            {"choices": [{"index": 0, "logprobs": []}]},
            "stream chunk 1: choices[0].logprobs is an array, not an object",
        ),
        (
            {"choices": [{"index": 0, "delta": {"tool_calls": {"index": 0}}}]},
            "stream chunk 1: choices[0].delta.tool_calls is an object, not an array",
        ),
        (
            {"choices": [{"index": 0, "delta": {"tool_calls": [None]}}]},
            "stream chunk 1: choices[0].delta.tool_calls[0] is null, not an object",
        ),
        (
            {"choices": [{"index": 0, "delta": {"tool_calls": [{"id": "call_1"}]}}]},
            "stream chunk 1: choices[0].delta.tool_calls[0].index is missing",
        ),
        (
            {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0}, {"index": None}]}}]},
            "stream chunk 1: choices[0].delta.tool_calls[1].index is null, not an integer",
        ),
        (
            {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": 7}]}}]},
            "stream chunk 1: choices[0].delta.tool_calls[0].id is a number, not text",
        ),
        (
            {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "type": {}}]}}]},
            "stream chunk 1: choices[0].delta.tool_calls[0].type is an object, not text",
        ),
        (
            {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": "f"}]}}]},
            "stream chunk 1: choices[0].delta.tool_calls[0].function is a string, not an object",
        ),
        (
            {
                "choices": [
                    {
                        "index": 0,
                        "delta": {"tool_calls": [{"index": 0, "function": {"name": ["f"]}}]},
                    }
                ]
            },
            "stream chunk 1: choices[0].delta.tool_calls[0].function.name is an array, not text",
        ),
        (
            {
                "choices": [
                    {
                        "index": 0,
                        "delta": {
                            "tool_calls": [{"index": 0, "function": {"arguments": {"a": 1}}}]
                        },
                    }
                ]
            },
            "stream chunk 1: choices[0].delta.tool_calls[0].function.arguments is an object, "
            "not text",
        ),
    ],
)
def test_a_malformed_chunk_is_named_by_its_number_and_path(bad: Any, said: str) -> None:
    with pytest.raises(TargetContractError) as caught:
        assemble_openai([chunk({"content": "fine"}), bad])
    assert str(caught.value) == said


def test_a_later_fragment_is_type_checked_even_when_the_first_gave_the_value() -> None:
    chunks = [
        chunk({"tool_calls": [{"index": 0, "id": "call_1", "function": {"name": "f"}}]}),
        chunk({"tool_calls": [{"index": 0, "id": 1}]}),
    ]
    with pytest.raises(TargetContractError) as caught:
        assemble_openai(chunks)
    assert (
        str(caught.value)
        == "stream chunk 1: choices[0].delta.tool_calls[0].id is a number, not text"
    )


@pytest.mark.parametrize(
    ("value", "last"),
    [
        (chunk({}, "stop"), True),
        (chunk({}, "length"), True),
        (chunk({}, "content_filter"), True),
        (chunk({"content": "a"}, None), False),
        (chunk({}, ""), False),
        ({"choices": [{"index": 0, "finish_reason": 1}]}, False),
        ({"choices": [{"index": 1, "finish_reason": "stop"}]}, False),
        ({"choices": [{"index": True, "finish_reason": "stop"}]}, False),
        ({"choices": [{"finish_reason": "stop"}]}, False),
        ({"choices": [{"index": 1}, {"index": 0, "finish_reason": "stop"}]}, True),
        ({"choices": [], "usage": {}}, False),
        ({"choices": None}, False),
        ({"choices": ["stop"]}, False),
        ({}, False),
        ([{"finish_reason": "stop"}], False),
        ("[DONE]", False),
    ],
    ids=ascii,
)
def test_openai_is_last_when_choice_zero_has_a_finish_reason(value: Any, last: bool) -> None:
    assert openai_is_last(value) is last


def test_a_streamed_openai_answer_reads_and_assembles_end_to_end() -> None:
    events = [
        chunk({"role": "assistant", "content": "", "refusal": None}),
        chunk({"content": "Riverbend opens at 9 "}),
        chunk({"content": "[RB-001]."}),
        chunk({}, "stop"),
        {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1700000000,
         "model": "smollm2", "choices": [], "usage": {"total_tokens": 12}},
    ]  # fmt: skip
    body = b"".join(b"data: " + json.dumps(event).encode() + b"\n\n" for event in events)
    chunks = read(Body(body, b"data: [DONE]\n\n"), is_last=openai_is_last)
    assert assemble_openai(chunks) == {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1700000000,
        "model": "smollm2",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": "Riverbend opens at 9 [RB-001].",
                    "refusal": None,
                },
                "finish_reason": "stop",
            }
        ],
        "usage": {"total_tokens": 12},
    }
