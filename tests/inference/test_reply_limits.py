"""Reading under a deadline and a cap: the text of a cut JSON body, server-sent events, UTF-8 prefixes."""

from __future__ import annotations

import json

import pytest

from fieldstudio.inference.reply_limits import (Deadline, DeadlinePassed, SseTooLong, iter_sse_events,
                                                partial_content, read_capped, utf8_prefix)


def test_read_capped_stops_at_the_cap_and_says_so():
    body = read_capped([b"abc", b"defg", b"hij"], Deadline.after(60), 5)
    assert (body.data, body.cut) == (b"abcde", True)
    whole = read_capped([b"abc", b"de"], Deadline.after(60), 5)
    assert (whole.data, whole.cut) == (b"abcde", False)


def test_read_capped_checks_the_deadline_after_each_piece():
    with pytest.raises(DeadlinePassed):
        read_capped(iter([b"a"] * 3), Deadline.after(-1), 100)


@pytest.mark.parametrize("cut_at, expected", [
    (len('{"choices":[{"message":{"content":"'), ""),      # cut right after the opening quote
    (len('{"choices":[{"message":{"content":"a\\'), "a"),    # an escape cut in two is dropped
    (len('{"choices":[{"message":{"content":"a\\nb\\u00e'), "a\nb"),
    (len('{"choices":[{"message":{"content":"a\\nb\\u00e9'), "a\nbé"),
])
def test_partial_content_decodes_whole_characters_and_escapes(cut_at, expected):
    whole = '{"choices":[{"message":{"content":"a\\nb\\u00e9 \\"q\\""}}]}'
    assert json.loads(whole)["choices"][0]["message"]["content"] == 'a\nbé "q"'
    assert partial_content(whole.encode()[:cut_at]) == expected


def test_partial_content_drops_a_split_utf8_character_and_half_a_surrogate_pair():
    body = '{"content":"ok €'.encode()                       # € is 3 bytes in UTF-8
    assert partial_content(body[:-1]) == "ok "
    assert partial_content(b'{"content":"x\\ud83d') == "x"   # the high half of an emoji, its low half cut off
    assert partial_content(b'{"id":"no content yet') == ""


def test_sse_events_stop_at_done_and_read_split_lines():
    stream = [b'data: {"a": 1}\n', b"\ndata: {\"a\"", b": 2}\r\n\n: comment\n", b"data: [DONE]\n\ndata: {\"a\": 3}\n"]
    assert list(iter_sse_events(stream, Deadline.after(60), 1000)) == [{"a": 1}, {"a": 2}]


def test_an_sse_line_without_end_is_refused_at_the_cap():
    with pytest.raises(SseTooLong):
        list(iter_sse_events([b"data: " + b"x" * 600, b"x" * 600], Deadline.after(60), 1000))


def test_utf8_prefix_keeps_whole_characters():
    assert utf8_prefix("aé€", 4) == "aé"        # 1 + 2 bytes; the 3-byte € does not fit in the last byte
    assert utf8_prefix("aé€", 6) == "aé€"
