"""Reading a model's reply under a deadline and a size cap.

The HTTP layer only knows a timeout per read: a server that sends one byte every few seconds, or never stops
sending, keeps a plain read going for ever, and a reply of any size is held whole in memory. Here the bytes of
a reply are read piece by piece (``httpx``'s ``iter_bytes``): the call's `Deadline` is checked after every piece,
and at `max_bytes` the reading stops and the reply counts as cut. What was read of a cut JSON body still gives
the assistant's text (`partial_content`); a streamed reply's server-sent events are parsed here too
(`iter_sse_events`), so that the deadline is checked per piece of bytes, not per complete event.

Nothing here talks to a server; `fieldstudio.inference.client` does, and turns `DeadlinePassed` into a
``ModelCallError`` of kind ``deadline``.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from typing import Any, Iterable, Iterator


class DeadlinePassed(Exception):
    """The call's overall deadline passed while its reply was still being read."""


@dataclass(frozen=True)
class Deadline:
    """The moment (``time.monotonic()`` seconds) by which a call must end, and the seconds it was given."""

    ends: float
    seconds: float

    @classmethod
    def after(cls, seconds: float) -> Deadline:
        return cls(time.monotonic() + seconds, seconds)

    def remaining(self) -> float:
        """Seconds left (negative once passed)."""
        return self.ends - time.monotonic()

    def check(self) -> None:
        """Raises DeadlinePassed once the deadline has passed."""
        if self.remaining() <= 0:
            raise DeadlinePassed()


@dataclass(frozen=True)
class CappedBody:
    """The bytes read of one reply body; `cut` when reading stopped at the cap (more was coming)."""

    data: bytes
    cut: bool


def read_capped(pieces: Iterable[bytes], deadline: Deadline, max_bytes: int) -> CappedBody:
    """Read `pieces` (a response's ``iter_bytes()``) until the end, the deadline or `max_bytes`.

    Returns at most `max_bytes` bytes; `cut` is True when the body was longer. Raises DeadlinePassed when the
    deadline passes first (checked after each piece, so a trickle of single bytes is stopped too).
    """
    buffer = bytearray()
    for piece in pieces:
        room = max_bytes - len(buffer)
        if len(piece) > room:
            buffer += piece[:room]
            return CappedBody(bytes(buffer), True)
        buffer += piece
        deadline.check()
    return CappedBody(bytes(buffer), False)


_CONTENT_KEY = re.compile(rb'"content"\s*:\s*"')
#: The longest prefix of a JSON string's body made of whole characters and whole escapes.
_STRING_BODY = re.compile(r'(?:[^"\\]+|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*')


def partial_content(body: bytes) -> str:
    """The assistant's text in the first part of a chat completion's JSON body cut short.

    The text is the value of the first ``"content"`` string in `body`, up to where the body was cut (an escape
    or a UTF-8 character split by the cut is dropped); "" when the cut came before any content.
    """
    found = _CONTENT_KEY.search(body)
    if found is None:
        return ""
    rest = body[found.end():].decode("utf-8", errors="ignore")
    prefix = _STRING_BODY.match(rest).group(0)  # always matches (possibly empty)
    try:
        text = json.loads('"' + prefix + '"')
    except ValueError:  # a control character the server should have escaped: keep what precedes it
        return ""
    if text and "\ud800" <= text[-1] <= "\udbff":  # half of a surrogate pair cut in two
        text = text[:-1]
    return text


class SseTooLong(Exception):
    """One server-sent event line grew past the reply's size cap without ending."""


def iter_sse_events(pieces: Iterable[bytes], deadline: Deadline, max_line_bytes: int) -> Iterator[Any]:
    """The JSON payloads of the ``data:`` lines of a server-sent-events stream, as parsed objects.

    Stops at ``data: [DONE]`` or the end of the stream. Checks `deadline` after every piece of bytes
    (DeadlinePassed) and refuses a line longer than `max_line_bytes` (SseTooLong); a ``data:`` line that is not
    JSON raises ValueError.
    """
    pending = bytearray()
    for piece in pieces:
        pending += piece
        while True:
            newline = pending.find(b"\n")
            if newline < 0:
                break
            line = bytes(pending[:newline]).rstrip(b"\r")
            del pending[:newline + 1]
            if not line.startswith(b"data:"):
                continue                       # comments, event names, ids, blank separators
            payload = line[5:].strip()
            if payload == b"[DONE]":
                return
            if payload:
                yield json.loads(payload)
        if len(pending) > max_line_bytes:
            raise SseTooLong()
        deadline.check()
    line = bytes(pending).rstrip(b"\r")
    if line.startswith(b"data:") and line[5:].strip() not in (b"", b"[DONE]"):
        yield json.loads(line[5:].strip())


def utf8_prefix(text: str, max_bytes: int) -> str:
    """The longest prefix of `text` whose UTF-8 encoding fits in `max_bytes` (whole characters only)."""
    encoded = text.encode("utf-8", errors="surrogatepass")
    if len(encoded) <= max_bytes:
        return text
    return encoded[:max_bytes].decode("utf-8", errors="ignore")
