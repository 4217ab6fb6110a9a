"""A local OpenAI-compatible HTTP server for tests (loopback only, port chosen by the OS).

Serves ``POST /v1/chat/completions`` and ``GET /v1/models``; every other path answers 404 with the text
``404 page not found`` (as Ollama and other Go servers do), so a base URL without ``/v1`` can be tested.

How it answers:
    * ``server.queue(Reply(...), ...)`` scripts the next replies in order; when the queue is empty
      ``server.responder(request) -> Reply`` decides (default: ``Reply(text=server.default_text)``).
    * A `Reply` sets the status, the text, usage present or absent, headers (e.g. ``Retry-After``),
      a raw body (e.g. malformed JSON), a delay in seconds and an error message.
    * ``server.latency_s`` delays every reply; ``server.text_only`` rejects image parts with 400;
      ``server.max_images`` rejects requests with more images (as vLLM does by default);
      ``server.json_mode = False`` rejects ``response_format``; ``server.stream_options_supported = False``
      rejects ``stream_options``; ``server.require_key`` answers 401 unless the right bearer key is sent.
    * ``"stream": true`` gives SSE chunks; with ``stream_options.include_usage`` a final chunk with
      ``"choices": []`` and the usage follows (unless the reply has ``usage=False``).

Every request is recorded in ``server.requests`` (method, path, lower-cased headers, JSON body).

Use the ``fake_openai`` fixture (started and stopped per test)::

    def test_x(fake_openai):
        fake_openai.queue(Reply(text="hi"))
        ... base_url=fake_openai.base_url ...
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

import pytest


@dataclass
class Reply:
    """One scripted answer.

    Attributes:
        status: HTTP status; not 200 gives an OpenAI-style error body with `error_message`.
        text: the assistant's text (200 only).
        usage: include token usage (False: no ``usage`` key at all).
        prompt_tokens, completion_tokens: the usage numbers reported.
        reasoning_tokens, cached_tokens: reported in the ``*_tokens_details`` objects when not None.
        headers: extra response headers, e.g. ``{"Retry-After": "0.3"}``.
        body: raw response body sent as is (e.g. malformed JSON); overrides everything else.
        delay_s: seconds to wait before answering (on top of the server's latency).
        error_message: message of the error body for non-200 statuses.
        chunk_size: characters per streamed content chunk.
    """

    status: int = 200
    text: str = "ok"
    usage: bool = True
    prompt_tokens: int = 5
    completion_tokens: int = 1
    reasoning_tokens: int | None = None
    cached_tokens: int | None = None
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | str | None = None
    delay_s: float = 0.0
    error_message: str | None = None
    chunk_size: int = 2


@dataclass
class RecordedRequest:
    """One request the server received. `headers` has lower-cased names; `body` is the parsed JSON or None."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    raw: bytes

    def image_urls(self) -> list[str]:
        """The ``image_url.url`` of every image part in the messages."""
        urls = []
        for message in (self.body or {}).get("messages", []) if isinstance(self.body, dict) else []:
            content = message.get("content")
            if isinstance(content, list):
                for part in content:
                    if isinstance(part, dict) and part.get("type") == "image_url":
                        image_url = part.get("image_url")
                        urls.append(image_url.get("url", "") if isinstance(image_url, dict) else str(image_url))
        return urls

    @property
    def has_image(self) -> bool:
        return bool(self.image_urls())


class FakeOpenAI:
    """The server; `start()` binds 127.0.0.1 on a free port and serves in a daemon thread."""

    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self.replies: deque[Reply | Callable[[RecordedRequest], Reply]] = deque()
        self.responder: Callable[[RecordedRequest], Reply] = lambda request: Reply(text=self.default_text)
        self.default_text = "ok"
        self.latency_s = 0.0
        self.text_only = False
        self.text_only_message = "image input is not supported by this server"
        self.max_images: int | None = None
        self.json_mode = True
        self.stream_options_supported = True
        self.require_key: str | None = None
        self.models = ["fake-vlm"]
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -----------------------------------------------------------------------------

    #: The request handler class (a subclass adds routes, e.g. tests.support.fake_batch_api).
    handler_class: type = None  # type: ignore[assignment]  # set below, after _Handler

    def start(self) -> FakeOpenAI:
        server = self

        class Handler(self.handler_class):
            fake = server

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._httpd.block_on_close = False
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02},
                                        name="fake-openai", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return self._httpd.server_address[1]

    @property
    def root(self) -> str:
        """``http://127.0.0.1:PORT`` (no ``/v1``: requests under it answer 404)."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1``."""
        return self.root + "/v1"

    # -- scripting -----------------------------------------------------------------------------

    def queue(self, *replies: Reply | Callable[[RecordedRequest], Reply]) -> None:
        """Answer the next requests with these replies, in order."""
        with self._lock:
            self.replies.extend(replies)

    def chat_requests(self) -> list[RecordedRequest]:
        """The recorded POSTs to /v1/chat/completions."""
        return [r for r in self.requests if r.method == "POST" and r.path == "/v1/chat/completions"]

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def _next_reply(self, request: RecordedRequest) -> Reply:
        with self._lock:
            scripted = self.replies.popleft() if self.replies else None
        if scripted is None:
            return self.responder(request)
        return scripted(request) if callable(scripted) else scripted


def tool_reply(name: str, **arguments: str) -> Reply:
    """A completion whose message is one tool call (raw body, as an OpenAI server sends it)."""
    body = {"id": "c", "object": "chat.completion", "created": 0, "model": "fake-vlm",
            "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                "role": "assistant", "content": None,
                "tool_calls": [{"id": "call_1", "type": "function",
                                "function": {"name": name, "arguments": json.dumps(arguments)}}]}}],
            "usage": {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}}
    return Reply(body=json.dumps(body))


def _error_body(status: int, message: str) -> bytes:
    kind = {400: "invalid_request_error", 401: "authentication_error", 404: "not_found_error",
            429: "rate_limit_error"}.get(status, "server_error")
    return json.dumps({"error": {"message": message, "type": kind, "param": None, "code": None}}).encode()


class _Handler(BaseHTTPRequestHandler):
    fake: FakeOpenAI
    protocol_version = "HTTP/1.0"          # one request per connection; the body ends when we close

    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
        return

    # -- plumbing ------------------------------------------------------------------------------

    def _read(self) -> RecordedRequest:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except json.JSONDecodeError:
            body = None
        headers = {k.lower(): v for k, v in self.headers.items()}
        request = RecordedRequest(self.command, self.path.split("?", 1)[0], headers, body, raw)
        self.fake._record(request)
        return request

    def _send(self, status: int, body: bytes, content_type: str = "application/json",
              headers: dict[str, str] | None = None) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test)

    def _not_found(self) -> None:
        self._send(404, b"404 page not found", content_type="text/plain")

    # -- routes --------------------------------------------------------------------------------

    def do_GET(self) -> None:
        request = self._read()
        if request.path != "/v1/models":
            return self._not_found()
        if not self._authorised(request):
            return
        data = [{"id": m, "object": "model", "created": 0, "owned_by": "fake"} for m in self.fake.models]
        self._send(200, json.dumps({"object": "list", "data": data}).encode())

    def do_POST(self) -> None:
        request = self._read()
        if request.path != "/v1/chat/completions":
            return self._not_found()
        reply = self.fake._next_reply(request)
        delay = self.fake.latency_s + reply.delay_s
        if delay:
            time.sleep(delay)
        if reply.body is not None:
            body = reply.body.encode() if isinstance(reply.body, str) else reply.body
            return self._send(reply.status, body, headers=reply.headers)
        if reply.status != 200:
            message = reply.error_message or f"fake error {reply.status}"
            return self._send(reply.status, _error_body(reply.status, message), headers=reply.headers)
        if not self._authorised(request):
            return
        rejection = self._reject(request)
        if rejection:
            return self._send(400, _error_body(400, rejection))
        body = request.body if isinstance(request.body, dict) else {}
        if body.get("stream"):
            include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            return self._stream(body, reply, include_usage)
        self._send(200, json.dumps(_completion(body, reply)).encode(), headers=reply.headers)

    def _authorised(self, request: RecordedRequest) -> bool:
        if self.fake.require_key is None:
            return True
        if request.headers.get("authorization") == f"Bearer {self.fake.require_key}":
            return True
        self._send(401, _error_body(401, "Incorrect API key provided."))
        return False

    def _reject(self, request: RecordedRequest) -> str | None:
        body = request.body if isinstance(request.body, dict) else {}
        images = request.image_urls()
        if images and self.fake.text_only:
            return self.fake.text_only_message
        if self.fake.max_images is not None and len(images) > self.fake.max_images:
            return f"At most {self.fake.max_images} image(s) may be provided in one request."
        if "response_format" in body and not self.fake.json_mode:
            return "response_format is not supported by this server"
        if "stream_options" in body and not self.fake.stream_options_supported:
            return "Unrecognized request argument supplied: stream_options"
        return None

    def _stream(self, body: dict, reply: Reply, include_usage: bool) -> None:
        try:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.end_headers()
            base = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": int(time.time()),
                    "model": body.get("model", "fake-vlm")}
            pieces = [reply.text[i:i + reply.chunk_size] for i in range(0, len(reply.text), reply.chunk_size)]
            chunks = [{**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""},
                                            "finish_reason": None}]}]
            chunks += [{**base, "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}
                       for piece in pieces]
            chunks.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
            if include_usage and reply.usage:
                chunks.append({**base, "choices": [], "usage": _usage(reply)})
            for chunk in chunks:
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.flush()
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass


def _usage(reply: Reply) -> dict[str, Any]:
    usage: dict[str, Any] = {"prompt_tokens": reply.prompt_tokens, "completion_tokens": reply.completion_tokens,
                             "total_tokens": reply.prompt_tokens + reply.completion_tokens}
    if reply.reasoning_tokens is not None:
        usage["completion_tokens_details"] = {"reasoning_tokens": reply.reasoning_tokens}
    if reply.cached_tokens is not None:
        usage["prompt_tokens_details"] = {"cached_tokens": reply.cached_tokens}
    return usage


def _completion(body: dict, reply: Reply) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()),
        "model": body.get("model", "fake-vlm"),
        "choices": [{"index": 0, "message": {"role": "assistant", "content": reply.text},
                     "finish_reason": "stop"}],
    }
    if reply.usage:
        out["usage"] = _usage(reply)
    return out


FakeOpenAI.handler_class = _Handler


@pytest.fixture
def fake_openai():
    """A started `FakeOpenAI`; stopped after the test."""
    server = FakeOpenAI().start()
    try:
        yield server
    finally:
        server.stop()
