"""Reading a model's reply under a deadline and a size cap.

The HTTP layer only knows a timeout per read: a server that sends one byte every few seconds, or never stops
sending, keeps a plain read going for ever, and a reply of any size is held whole in memory. Here the bytes of
a reply are read piece by piece (``httpx``'s ``iter_bytes``): the call's `Deadline` is checked after every piece,
and at `max_bytes` the reading stops and the reply counts as cut. What was read of a cut JSON body still gives
the assistant's text (`partial_content`); a streamed reply's server-sent events are parsed here too
(`iter_sse_events`), so that the deadline is checked per piece of bytes, not per complete event.

A read that blocks (a server that sends the headers and a few bytes, then nothing) is not stopped by checking
between pieces: the `Watchdog` shuts the connection's socket down when the deadline passes, so that the blocked
read returns at once, and a call ends within `DEADLINE_MARGIN_S` of its deadline, not one read timeout later. An
error reply's body is read no further than `ERROR_BODY_CAP_BYTES` (`CappedStream`).

Nothing here talks to a server; `fieldstudio.inference.client` does, and turns `DeadlinePassed` into a
``ModelCallError`` of kind ``deadline``.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from dataclasses import dataclass
from typing import Any, Iterable, Iterator

#: How long after its deadline a call may still take to end: the watchdog thread waking up and the read's error
#: finding its way out (measured well under 0.1 s; the margin allows for a loaded machine).
DEADLINE_MARGIN_S = 0.5
#: The most of an error reply's (non-2xx) body that is read: an error message needs far less.
ERROR_BODY_CAP_BYTES = 65_536


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


class Watchdog:
    """Ends the replies of one attempt at the call's deadline, even a read blocked in the socket.

    `watch(sock)` arms a timer that shuts the socket down (both ways) when the deadline passes; the blocked read
    then returns at once (an end of stream or an error), and `fired` tells the caller that it was the deadline.
    `stop()` disarms every timer (at the end of the attempt, before the connection goes back to the pool).
    """

    def __init__(self, deadline: Deadline):
        self.deadline = deadline
        self.fired = False
        self._stopped = False
        self._timers: list[threading.Timer] = []
        self._lock = threading.Lock()

    def watch(self, sock: socket.socket) -> None:
        """Shut `sock` down when the deadline passes, unless `stop` comes first."""
        def fire() -> None:
            with self._lock:
                if self._stopped:
                    return
                self.fired = True
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass                                   # already closed: nothing is blocked on it

        timer = threading.Timer(max(self.deadline.remaining(), 0.0), fire)
        timer.daemon = True
        with self._lock:
            if self._stopped:
                return
            self._timers.append(timer)
        timer.start()

    def stop(self) -> None:
        """Disarm every timer; a timer already running finishes without effect."""
        with self._lock:
            self._stopped = True
            timers, self._timers = self._timers, []
        for timer in timers:
            timer.cancel()


class CappedStream:
    """An HTTP response's byte stream (``httpx``'s ``SyncByteStream``: iterable, ``close()``) read no further than
    `cap` bytes: what the SDK reads of an error reply, which it reads whole."""

    def __init__(self, stream: Any, cap: int):
        self.stream, self.cap = stream, cap

    def __iter__(self) -> Iterator[bytes]:
        left = self.cap
        for piece in self.stream:
            if len(piece) >= left:
                yield piece[:left]
                return
            left -= len(piece)
            yield piece

    def close(self) -> None:
        self.stream.close()


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
