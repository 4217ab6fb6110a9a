"""A hostile OpenAI-compatible server for the fault-injection tests: replies that never end, trickle, are huge,
malformed, or echo what the client sent.

It is `FakeOpenAI` (same routes, recording and scripting) with one more knob, ``server.behaviour``, which
decides how every ``POST /v1/chat/completions`` (and ``GET /v1/models`` for ``silent``, ``endless`` and
``trickle``) is answered while it is set:

    * ``endless``: a body that never ends; non-streamed, an unfinished JSON completion whose content keeps
      growing (``ab`` repeated), streamed, one ``"ab"`` chunk after another, as fast as the client reads.
    * ``trickle``: a valid reply sent one byte every ``server.trickle_s`` seconds.
    * ``silent``: the headers never come (the connection stays open).
    * ``stall``: the headers, then the first 9 bytes of a reply one every 0.25 s, then nothing (the connection
      stays open): the last read starts 2 s in and blocks in the socket, which only the deadline's watchdog ends
      before its read timeout.
    * ``huge_error``: a 500 whose error body never ends (``{"error": {"message": "xxxx...``).
    * ``huge``: a complete, valid reply whose content is ``server.huge_text`` (set it; e.g. 5 MB of ``x``).
    * ``deep``: a 200 with a JSON document nested ``server.depth`` levels deep (``[[[[...]]]]``).
    * ``echo``: a 500 whose error message repeats the request's ``Authorization`` header and path with query.
    * None: the scripted `Reply` queue of `FakeOpenAI`.

``GET /v1/files/<id>/content`` (a Batch API download) is answered the same way for ``silent``, ``endless``,
``trickle`` and ``stall``.

``server.script("silent", "endless", None)`` sets the behaviour of the next chat requests one by one, in order
(``server.behaviour`` applies once the script is used up).

Use the ``hostile_openai`` fixture; it stops the server (and every endless writer) after the test.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from typing import Any

import pytest

from tests.support.fake_openai import FakeOpenAI, _error_body, _Handler, _usage, Reply


class HostileOpenAI(FakeOpenAI):
    """`FakeOpenAI` with a `behaviour` (see the module docstring); `stop()` also ends the endless writers."""

    def __init__(self) -> None:
        super().__init__()
        self.behaviour: str | None = None
        self.trickle_s = 0.2
        self.huge_text = ""
        self.depth = 200_000
        self.stopping = threading.Event()
        self.scripted: deque[str | None] = deque()

    def script(self, *behaviours: str | None) -> None:
        """Answer the next chat requests with these behaviours, in order."""
        with self._lock:
            self.scripted.extend(behaviours)

    def next_behaviour(self) -> str | None:
        with self._lock:
            return self.scripted.popleft() if self.scripted else self.behaviour

    def stop(self) -> None:
        self.stopping.set()
        super().stop()


class _HostileHandler(_Handler):
    fake: HostileOpenAI

    def do_GET(self) -> None:
        if self.fake.behaviour in ("silent", "endless", "trickle", "stall") and self.path.startswith(
                ("/v1/models", "/v1/files/")):
            self._read()
            return self._hostile(self.fake.behaviour, {"stream": False})
        return super().do_GET()

    def do_POST(self) -> None:
        if not self.path.startswith("/v1/chat/completions"):
            return super().do_POST()
        behaviour = self.fake.next_behaviour()
        if behaviour is None:
            return super().do_POST()
        request = self._read()
        return self._hostile(behaviour, request.body if isinstance(request.body, dict) else {}, request.headers)

    def _hostile(self, behaviour: str, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        try:
            if behaviour == "silent":
                self.fake.stopping.wait(120)
            elif behaviour == "endless":
                self._endless(bool(body.get("stream")))
            elif behaviour == "trickle":
                self._trickle(json.dumps(_completion_of("trickled reply")).encode())
            elif behaviour == "stall":
                self._headers("application/json")
                for byte in b'{"id":"x"':           # one byte every 0.25 s for 2 s, then nothing
                    if self.fake.stopping.wait(0.25):
                        return
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                self.fake.stopping.wait(120)
            elif behaviour == "huge_error":
                self.send_response(500)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(b'{"error": {"message": "')
                while not self.fake.stopping.is_set():
                    self.wfile.write(b"x" * 65536)
                    self.wfile.flush()
            elif behaviour == "huge":
                self._send(200, json.dumps(_completion_of(self.fake.huge_text)).encode())
            elif behaviour == "deep":
                self._send(200, b"[" * self.fake.depth + b"]" * self.fake.depth)
            elif behaviour == "echo":
                said = f"bad credentials {(headers or {}).get('authorization', '')} for {self.path}"
                self._send(500, _error_body(500, said))
            else:
                raise ValueError(f"unknown behaviour {behaviour!r}")
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up: what the test wants

    def _headers(self, content_type: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.end_headers()
        self.wfile.flush()

    def _endless(self, stream: bool) -> None:
        if stream:
            self._headers("text/event-stream")
            chunk = {"id": "x", "object": "chat.completion.chunk", "created": 0, "model": "fake-vlm",
                     "choices": [{"index": 0, "delta": {"content": "ab"}, "finish_reason": None}]}
            line = f"data: {json.dumps(chunk)}\n\n".encode() * 64
        else:
            self._headers("application/json")
            self.wfile.write(b'{"id":"x","object":"chat.completion","created":0,"model":"fake-vlm",'
                             b'"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant",'
                             b'"content":"')
            line = b"ab" * 4096
        while not self.fake.stopping.is_set():
            self.wfile.write(line)
            self.wfile.flush()

    def _trickle(self, body: bytes) -> None:
        self._headers("application/json")
        for i in range(len(body)):
            if self.fake.stopping.wait(self.fake.trickle_s):
                return
            self.wfile.write(body[i:i + 1])
            self.wfile.flush()


def _completion_of(text: str) -> dict[str, Any]:
    return {"id": "chatcmpl-hostile", "object": "chat.completion", "created": int(time.time()), "model": "fake-vlm",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": _usage(Reply())}


HostileOpenAI.handler_class = _HostileHandler


@pytest.fixture
def hostile_openai():
    """A started `HostileOpenAI` (behaviour None until the test sets it); stopped after the test."""
    server = HostileOpenAI().start()
    try:
        yield server
    finally:
        server.stop()
