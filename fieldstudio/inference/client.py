"""Calls to OpenAI-compatible chat endpoints: one client per profile, usage, cost, errors in plain words.

Every client is created with an explicit timeout (connect 5 s, read ``profile.timeout_s``, write 60 s) and
``max_retries=0``: fieldstudio retries itself (``profile.retries`` extra attempts after 429, 408/409, 5xx or a refused
connection, honouring ``Retry-After``), so each attempt is logged and one call never makes more than ``1 +
profile.retries`` requests. Timeouts are not retried: the server may still be working on the request, and repeating it
would repeat the GPU work or the bill.

Every call also has an overall deadline (``profile.deadline_s``: connecting, the first byte, the whole reply and the
retries) and a size cap (``profile.max_reply_bytes``): the reply is read piece by piece
(`fieldstudio.inference.reply_limits`), a call past its deadline fails with kind ``deadline`` (within
``DEADLINE_MARGIN_S`` of it: a watchdog shuts down the socket of a read still blocked at the deadline), and a reply
past the cap is cut there and comes back with ``ChatResult.cut`` saying so; an error reply's body is read no further
than ``ERROR_BODY_CAP_BYTES``.

Token counts the server does not report stay None, never 0, and `cost` then returns None. Keys are never logged; base
URLs are shown as `ModelProfile.shown_url`, and every record of the HTTP layer and every server text kept in an error
goes through `fieldstudio.core.masking.mask_in_text`.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import functools
import json
import logging
import random
import sys
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from fieldstudio.core.errors import FieldstudioError
from fieldstudio.core.masking import mask_in_text
from fieldstudio.inference import log_redaction  # noqa: F401  (masks the HTTP layer's log records on import)
from fieldstudio.inference.call_errors import ModelCallError, explain_error, server_message, where_of
from fieldstudio.inference.profiles import ModelProfile, resolve_api_key, resolve_base_url
from fieldstudio.inference.reply_limits import (ERROR_BODY_CAP_BYTES, CappedStream, Deadline, DeadlinePassed,
                                                SseTooLong, Watchdog, iter_sse_events, partial_content,
                                                read_capped, utf8_prefix)

if TYPE_CHECKING:  # the openai package takes ~0.5 s to import: only code that calls a model loads it
    import openai

log = logging.getLogger(__name__)

CONNECT_TIMEOUT_S = 5.0
WRITE_TIMEOUT_S = 60.0
#: A Retry-After longer than this (seconds) is not waited for: the call fails and says how long to wait.
MAX_RETRY_AFTER_S = 120.0
#: Backoff without Retry-After: BACKOFF_BASE_S * 2**(attempt-1), at most BACKOFF_MAX_S (seconds).
BACKOFF_BASE_S = 1.0
BACKOFF_MAX_S = 30.0
#: Sent as the key to servers that need none (the SDK refuses to start without a key).
NO_KEY_PLACEHOLDER = "no-key"
#: Room a downloaded file gets beyond its replies' caps (bytes), for its lines' envelopes.
MIN_FILE_CAP_BYTES = 1_000_000


@dataclass(frozen=True)
class ChatResult:
    """One model reply.

    Attributes:
        text: the assistant message's text ("" if the server sent none).
        prompt_tokens, completion_tokens: as reported by the server; None when not reported.
            completion_tokens includes reasoning tokens (OpenAI convention).
        reasoning_tokens: ``completion_tokens_details.reasoning_tokens``; None when not reported.
        cached_tokens: ``prompt_tokens_details.cached_tokens``; None when not reported (never 0 by default).
        latency_s: seconds from sending the successful attempt to the complete reply.
        raw: the response as a JSON-compatible dict (streams: the usage chunk, finish reason and chunk count).
        finish_reason: ``stop``, ``length``... as reported, or None.
        model: the model id the server says answered, or None.
        attempts: requests made (1 + retries used).
        cut: None, or the note saying the reply was cut at the profile's size cap (`text` is what came before).
    """

    text: str
    prompt_tokens: int | None
    completion_tokens: int | None
    reasoning_tokens: int | None
    cached_tokens: int | None
    latency_s: float
    raw: dict[str, Any] = field(default_factory=dict, compare=False)
    finish_reason: str | None = None
    model: str | None = None
    attempts: int = 1
    cut: str | None = None

    @property
    def usage_reported(self) -> bool:
        return self.prompt_tokens is not None and self.completion_tokens is not None


# -- client ------------------------------------------------------------------------------------


def make_client(profile: ModelProfile, *, api_key: str | None = None, max_retries: int = 0) -> openai.OpenAI:
    """An `openai.OpenAI` client for the profile's endpoint.

    Timeout: connect 5 s, read ``profile.timeout_s`` s, write 60 s (the SDK default is 600 s).
    `max_retries` defaults to 0 because `chat` retries itself (the SDK default is 2).
    The key comes from `api_key` or the profile's key source; without one a placeholder is sent, so
    that an ``OPENAI_API_KEY`` in the environment is never sent to an unrelated server. Credentials in
    the base URL (``user:password@``) are sent as HTTP Basic auth, which replaces the bearer key.

    Raises ModelCallError(kind="no_key") if the profile's key source is empty, and (kind="privacy_gate") for a
    "local only" profile whose endpoint is off this machine and its LAN ranges (every request has a client from here).
    """
    import openai
    from fieldstudio.privacy.gate import remote_refusal

    if refusal := remote_refusal(profile.name, profile.privacy_mode, profile.base_url, profile.lan_ranges):
        raise ModelCallError("privacy_gate", refusal)
    if api_key is None:
        try:
            api_key = resolve_api_key(profile)
        except FieldstudioError as exc:
            raise ModelCallError("no_key", str(exc)) from None
    try:
        base_url = resolve_base_url(profile)
    except FieldstudioError as exc:
        raise ModelCallError("no_key", str(exc)) from None
    if api_key and "@" in urlsplit(base_url).netloc:
        log.warning("%s: the base URL holds credentials; they are sent as Basic auth instead of the API key",
                    profile.name)
    timeout = openai.Timeout(timeout=profile.timeout_s, connect=CONNECT_TIMEOUT_S, read=profile.timeout_s,
                             write=WRITE_TIMEOUT_S)
    parts = urlsplit(base_url)      # the SDK appends paths to the base URL: its query goes on every request
    query = dict(parse_qsl(parts.query, keep_blank_values=True)) or None
    base_url = urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))
    http_client = openai.DefaultHttpxClient(event_hooks={"response": [_watch_response]})
    return openai.OpenAI(api_key=api_key or NO_KEY_PLACEHOLDER, base_url=base_url, timeout=timeout,
                         default_query=query, max_retries=max_retries, http_client=http_client)


_WATCHDOG: contextvars.ContextVar[Watchdog | None] = contextvars.ContextVar("fieldstudio_watchdog", default=None)
"""The `Watchdog` of the attempt running in this thread (set by `_under_deadline`)."""


def _watch_response(response: Any) -> None:
    """The HTTP client's hook on every response, when its headers arrive: the attempt's watchdog watches its socket,
    and an error reply's body (which the SDK reads whole to build its error) is read no further than
    ``ERROR_BODY_CAP_BYTES``."""
    watchdog = _WATCHDOG.get()
    if watchdog is not None:
        stream = response.extensions.get("network_stream")
        sock = stream.get_extra_info("socket") if stream is not None else None
        if sock is not None:
            watchdog.watch(sock)
    if response.status_code >= 400:
        response.stream = _capped_stream_type(type(response))(response.stream, ERROR_BODY_CAP_BYTES)


@functools.cache
def _capped_stream_type(response_type: type) -> type:
    """`CappedStream` as the HTTP library's own ``SyncByteStream`` (its reads refuse any other stream type); the
    library is the one the response comes from (the SDK's ``httpx``)."""
    library = sys.modules[response_type.__module__.split(".")[0]]
    return type("CappedSyncByteStream", (CappedStream, library.SyncByteStream), {})


def _key_of(client: openai.OpenAI) -> str | None:
    key = getattr(client, "api_key", None)
    return key if isinstance(key, str) and key and key != NO_KEY_PLACEHOLDER else None


def request_params(profile: ModelProfile, messages: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    """The keyword arguments of ``chat.completions.create`` for this profile (model, temperature, seed)."""
    params: dict[str, Any] = {"model": profile.model, "messages": messages}
    if profile.temperature is not None:
        params["temperature"] = profile.temperature
    if profile.seed is not None:
        params["seed"] = profile.seed
    params.update({k: v for k, v in extra.items() if v is not None})
    return params


def request_body(profile: ModelProfile, messages: list[dict[str, Any]], *, max_tokens: int | None = None,
                 response_format: dict[str, Any] | None = None,
                 extra_body: dict[str, Any] | None = None) -> dict[str, Any]:
    """The JSON body ``POST /chat/completions`` receives for these messages: what `chat` sends, as one dict.

    `request_params` with ``extra_body`` merged in (the SDK merges it the same way), e.g. for a line of a
    Batch API input file.
    """
    body = request_params(profile, messages, max_tokens=max_tokens, response_format=response_format)
    body.update(extra_body or {})
    return body


def result_from_body(body: Any, latency_s: float = 0.0) -> ChatResult:
    """A ChatResult from a chat completion's JSON body (e.g. a line of a batch output file).

    Raises ValueError when the body is not a chat completion with choices.
    """
    from openai.types.chat import ChatCompletion
    from pydantic import ValidationError

    if not isinstance(body, dict):
        raise ValueError("the response body is not a JSON object")
    # servers that leave out the envelope's bookkeeping fields still give a readable reply
    body = {"id": "", "object": "chat.completion", "created": 0, "model": "", **body}
    try:
        response = ChatCompletion.model_validate(body)
    except ValidationError as exc:
        raise ValueError(f"not a chat completion ({exc.error_count()} problem(s))") from None
    return _result_from_completion(response, latency_s)


def chat(profile: ModelProfile, messages: list[dict[str, Any]], *, max_tokens: int | None = None,
         response_format: dict[str, Any] | None = None, extra_body: dict[str, Any] | None = None,
         client: openai.OpenAI | None = None, sleep: Callable[[float], None] = time.sleep,
         cancelled: Callable[[], bool] = lambda: False) -> ChatResult:
    """Send one chat request (with retries) and return the reply with its usage and latency.

    The reply is read under the profile's overall deadline and size cap (see the module's docstring): a body
    longer than ``profile.max_reply_bytes`` is cut there and its text, read from the part received, comes back
    with ``ChatResult.cut`` set.

    Args:
        messages: OpenAI chat messages; images as ``image_url`` parts with ``data:`` URLs.
        max_tokens: cap on completion tokens (not sent when None).
        response_format: e.g. ``{"type": "json_object"}`` (not sent when None).
        client: a client from `make_client` to reuse (one is made otherwise).
        sleep, cancelled: waiting between attempts, and a flag checked before each retry.
    Raises:
        ModelCallError: with a plain-words message and a `kind` (see there), after the retries are used up;
            kind ``deadline`` when the overall deadline passed.
    """
    client = client or make_client(profile)
    params = request_params(profile, messages, max_tokens=max_tokens, response_format=response_format,
                            extra_body=extra_body)
    deadline = Deadline.after(profile.deadline_s)

    def once() -> ChatResult:
        started = time.monotonic()
        with _under_deadline(profile, deadline), client.chat.completions.with_streaming_response.create(
                **params, timeout=_attempt_timeout(profile, deadline)) as response:
            body = read_capped(response.iter_bytes(), deadline, profile.max_reply_bytes)
        latency = time.monotonic() - started
        if body.cut:
            return _cut_result(profile, partial_content(body.data), latency, body_bytes=len(body.data))
        return _result_from_json(body.data, latency)

    return _with_retries(profile, once, sleep=sleep, cancelled=cancelled, key=_key_of(client), deadline=deadline)


def chat_stream(profile: ModelProfile, messages: list[dict[str, Any]], *,
                on_text: Callable[[str], None] | None = None, include_usage: bool = True,
                max_tokens: int | None = None, response_format: dict[str, Any] | None = None,
                extra_body: dict[str, Any] | None = None, client: openai.OpenAI | None = None,
                sleep: Callable[[float], None] = time.sleep,
                cancelled: Callable[[], bool] = lambda: False) -> ChatResult:
    """Like `chat`, streamed: `on_text(piece)` gets each piece of text as it arrives.

    Asks for ``stream_options={"include_usage": True}`` (unless `include_usage` is False) and reads the
    usage from the chunk that carries it, which is normally the last one with ``choices == []``.
    Usage stays None when the server sends none. If the server rejects ``stream_options`` (400 naming
    it), the request is repeated once without it. A stream cut short by `cancelled` ends the call with
    the text received so far. The stream is read under the same deadline and cap as `chat`: its text stops
    at ``profile.max_reply_bytes`` (``ChatResult.cut`` set). Raises ModelCallError as `chat` does.
    """
    import openai
    client = client or make_client(profile)
    state = {"include_usage": include_usage}
    deadline = Deadline.after(profile.deadline_s)

    def once() -> ChatResult:
        extra: dict[str, Any] = {"stream": True}
        if state["include_usage"]:
            extra["stream_options"] = {"include_usage": True}
        params = request_params(profile, messages, max_tokens=max_tokens, response_format=response_format,
                                extra_body=extra_body, **extra)
        started = time.monotonic()
        try:
            with _under_deadline(profile, deadline), client.chat.completions.with_streaming_response.create(
                    **params, timeout=_attempt_timeout(profile, deadline)) as response:
                events = iter_sse_events(response.iter_bytes(), deadline, profile.max_reply_bytes)
                return _aggregate_stream(events, started, profile=profile, on_text=on_text, cancelled=cancelled)
        except openai.BadRequestError as exc:
            if state["include_usage"] and "stream_options" in server_message(exc):
                log.info("%s: server rejects stream_options; streaming without usage", profile.name)
                state["include_usage"] = False
                return once()
            raise

    return _with_retries(profile, once, sleep=sleep, cancelled=cancelled, key=_key_of(client), deadline=deadline)


def list_model_ids(profile: ModelProfile, client: openai.OpenAI) -> list[str]:
    """The model ids the endpoint lists (``GET /models``), read under the profile's deadline and size cap.

    Raises the SDK's errors for a refused request, ModelCallError ``deadline`` / ``timeout`` / ``bad_response``
    for a reply too slow, too long or not a model list.
    """
    deadline = Deadline.after(profile.deadline_s)
    with _under_deadline(profile, deadline), client.models.with_streaming_response.list(
            timeout=_attempt_timeout(profile, deadline)) as response:
        body = read_capped(response.iter_bytes(), deadline, profile.max_reply_bytes)
    if body.cut:
        raise ModelCallError("bad_response", f"{where_of(profile)}: the model list is longer than the profile's "
                             f"reply size cap of {profile.max_reply_bytes:,} bytes.")
    document = json.loads(body.data)
    entries = document.get("data") if isinstance(document, dict) else None
    if not isinstance(entries, list):
        raise ValueError("the reply is not a model list")
    return [str(entry["id"]) for entry in entries if isinstance(entry, dict) and "id" in entry]


def file_content(profile: ModelProfile, client: openai.OpenAI, file_id: str, *, replies: int) -> bytes:
    """A file of the endpoint's Files API (e.g. a batch's output), read under the profile's deadline and a cap
    of ``replies`` times its reply size cap (each line holds one reply and its envelope).

    Raises the SDK's errors for a refused request; ModelCallError ``deadline`` / ``timeout`` / ``bad_response``
    (larger than that cap: nothing of it is kept).
    """
    cap = profile.max_reply_bytes * max(replies, 1) + MIN_FILE_CAP_BYTES
    deadline = Deadline.after(profile.deadline_s)
    with _under_deadline(profile, deadline), client.files.with_streaming_response.content(
            file_id, timeout=_attempt_timeout(profile, deadline)) as response:
        body = read_capped(response.iter_bytes(), deadline, cap)
    if body.cut:
        raise ModelCallError("bad_response", f"{where_of(profile)}: file {file_id} is larger than {cap:,} bytes "
                             f"({replies} replies at the profile's reply size cap); it was not read.")
    return body.data


def cost(profile: ModelProfile, result: ChatResult, *, batch: bool = False) -> float | None:
    """The reply's cost in USD from the profile's prices (USD per million tokens).

    With `batch`, the reply came through the provider's Batch API: the cost at `ModelProfile.batch_priced`
    (every price lowered by ``batch_discount``, 0.5: half price); None when that discount is unknown.

    Input: uncached prompt tokens at the input price, cached tokens at the cached price (input price if
    none is set). Output: completion tokens at the output price; when a reasoning price is set and
    reasoning tokens are reported, those (already counted inside completion_tokens) are charged at the
    reasoning price instead, never twice. A profile without token prices but with a cost per hour (a local
    model, a rented GPU) charges the reply's latency at that rate. Returns None when the token counts or the
    input/output prices (and a cost per hour with a latency) are unknown: an unknown cost is never reported as 0.
    """
    if batch:
        return cost(profile.batch_priced(), result)
    hourly = profile.cost_per_hour_usd
    if profile.price_input_per_mtok is None and profile.price_output_per_mtok is None and hourly is not None:
        return None if result.latency_s is None else float(result.latency_s) * hourly / 3600.0
    if result.prompt_tokens is None or result.completion_tokens is None:
        return None
    if profile.price_input_per_mtok is None or profile.price_output_per_mtok is None:
        return None
    cached = min(result.cached_tokens or 0, result.prompt_tokens)
    cached_price = profile.price_cached_per_mtok if profile.price_cached_per_mtok is not None \
        else profile.price_input_per_mtok
    input_usd = (result.prompt_tokens - cached) * profile.price_input_per_mtok + cached * cached_price
    reasoning = result.reasoning_tokens or 0
    if profile.price_reasoning_per_mtok is not None and reasoning:
        reasoning = min(reasoning, result.completion_tokens)
        output_usd = ((result.completion_tokens - reasoning) * profile.price_output_per_mtok
                      + reasoning * profile.price_reasoning_per_mtok)
    else:
        output_usd = result.completion_tokens * profile.price_output_per_mtok
    return (input_usd + output_usd) / 1_000_000


# -- errors ------------------------------------------------------------------------------------


def _with_retries(profile: ModelProfile, once: Callable[[], ChatResult], *, sleep: Callable[[float], None],
                  cancelled: Callable[[], bool], key: str | None = None,
                  deadline: Deadline | None = None) -> ChatResult:
    attempt = 0
    while True:
        attempt += 1
        log.info("%s: request to %s, model %s, attempt %d of %d", profile.name, profile.shown_url,
                 profile.model, attempt, 1 + profile.retries)
        try:
            result = once()
        except Exception as exc:  # classified below; nothing here is swallowed
            error = explain_error(exc, profile, key=key)
            error.attempts = attempt
            if not error.retryable or attempt > profile.retries or cancelled():
                log.warning("%s: attempt %d failed, giving up: %s", profile.name, attempt, error.kind)
                raise error from None
            delay = error.retry_after_s
            if delay is None:
                delay = min(BACKOFF_BASE_S * 2 ** (attempt - 1), BACKOFF_MAX_S) * (1 - 0.25 * random.random())
            if delay > MAX_RETRY_AFTER_S:
                log.warning("%s: server asks to wait %.0f s; not waiting", profile.name, delay)
                raise error from None
            if deadline is not None and delay >= deadline.remaining():
                log.warning("%s: no time left before the deadline for attempt %d; giving up: %s", profile.name,
                            attempt + 1, error.kind)
                raise error from None
            log.info("%s: attempt %d failed (%s); retrying in %.2f s", profile.name, attempt, error.kind, delay)
            sleep(delay)
            if cancelled():
                raise error from None
            continue
        return _with_attempts(result, attempt)


def _with_attempts(result: ChatResult, attempts: int) -> ChatResult:
    return result if result.attempts == attempts else dataclasses.replace(result, attempts=attempts)




def _deadline_error(profile: ModelProfile) -> ModelCallError:
    return ModelCallError(
        "deadline", f"{where_of(profile)}: no complete reply within the profile's overall deadline of "
        f"{profile.deadline_s:g} s (the server was too slow or kept sending). Raise the deadline, or ask for a "
        "shorter reply.")


def _attempt_timeout(profile: ModelProfile, deadline: Deadline) -> Any:
    """The timeouts of one attempt: the profile's, none of them past what is left of the deadline.

    Raises DeadlinePassed when nothing is left.
    """
    import openai

    remaining = deadline.remaining()
    if remaining <= 0:
        raise DeadlinePassed()
    read = min(profile.timeout_s, remaining)
    return openai.Timeout(timeout=read, connect=min(CONNECT_TIMEOUT_S, remaining), read=read,
                          write=min(WRITE_TIMEOUT_S, remaining))


def _is_http_error(exc: BaseException, name: str) -> bool:
    """Whether `exc` is an httpx `name` error (by class name: the openai SDK may ship its own httpx fork)."""
    return any(cls.__name__ == name for cls in type(exc).__mro__)


@contextlib.contextmanager
def _under_deadline(profile: ModelProfile, deadline: Deadline) -> Iterator[None]:
    """Turns what reading a reply under a deadline and a cap can raise into ModelCallErrors.

    A timeout once the deadline has passed is the deadline's; errors of the HTTP layer while the body is read
    (the SDK only translates those of the request itself) become ``timeout`` or ``bad_response``. A `Watchdog`
    watches every response of the attempt (``_watch_response``): at the deadline it shuts the socket down, and
    whatever that makes the read do is the deadline's, so the call ends within ``DEADLINE_MARGIN_S`` of it.
    """
    with _watched(profile, deadline), _reply_errors(profile, deadline):
        yield


@contextlib.contextmanager
def _watched(profile: ModelProfile, deadline: Deadline) -> Iterator[None]:
    watchdog = Watchdog(deadline)
    token = _WATCHDOG.set(watchdog)
    try:
        yield
    except BaseException as exc:
        watchdog.stop()
        if watchdog.fired and isinstance(exc, Exception):
            raise _deadline_error(profile) from None      # whatever the shut socket made the read raise
        raise
    finally:
        watchdog.stop()
        _WATCHDOG.reset(token)
    if watchdog.fired:                                     # the shut socket ended the body early, without an error
        raise _deadline_error(profile)


@contextlib.contextmanager
def _reply_errors(profile: ModelProfile, deadline: Deadline) -> Iterator[None]:
    """The ModelCallErrors of `_under_deadline` (see there)."""
    import openai

    try:
        yield
    except DeadlinePassed:
        raise _deadline_error(profile) from None
    except SseTooLong:
        raise ModelCallError(
            "bad_response", f"{where_of(profile)}: a line of the streamed reply grew past the profile's reply size "
            f"cap of {profile.max_reply_bytes:,} bytes without ending.") from None
    except openai.APITimeoutError:
        if deadline.remaining() <= 0:
            raise _deadline_error(profile) from None
        raise
    except Exception as exc:
        if _is_http_error(exc, "TimeoutException"):
            if deadline.remaining() <= 0:
                raise _deadline_error(profile) from None
            raise ModelCallError(
                "timeout", f"{where_of(profile)}: the reply stopped coming for {profile.timeout_s:g} s (timeout)."
            ) from None
        if _is_http_error(exc, "TransportError"):
            raise ModelCallError(
                "bad_response", f"{where_of(profile)}: the connection broke before the reply was complete "
                f"({type(exc).__name__}).") from None
        raise


def _cut_result(profile: ModelProfile, text: str, latency_s: float, *, body_bytes: int,
                **fields: Any) -> ChatResult:
    note = (f"reply cut at the profile's size cap of {profile.max_reply_bytes:,} bytes "
            f"({len(text):,} characters of text kept)")
    log.warning("%s: %s", profile.name, note)
    raw = {"cut": True, "bytes_read": body_bytes, "note": note}
    return ChatResult(text=text, prompt_tokens=fields.get("prompt_tokens"),
                      completion_tokens=fields.get("completion_tokens"),
                      reasoning_tokens=fields.get("reasoning_tokens"), cached_tokens=fields.get("cached_tokens"),
                      latency_s=latency_s, raw=raw, finish_reason="length", model=fields.get("model"), cut=note)


def _result_from_json(body: bytes, latency_s: float) -> ChatResult:
    """A ChatResult from a whole chat completion body, built leniently as the SDK builds its responses.

    Raises ValueError (or RecursionError for a document nested too deep) when it is not one.
    """
    from openai.types.chat import ChatCompletion

    document = json.loads(body)
    if not isinstance(document, dict):
        raise ValueError("the response body is not a JSON object")
    return _result_from_completion(ChatCompletion.construct(**document), latency_s)


def _usage_numbers(usage: Any) -> tuple[int | None, int | None, int | None, int | None]:
    """(prompt, completion, reasoning, cached) tokens; None for anything not reported."""
    if usage is None:
        return None, None, None, None

    def get(obj: Any, name: str) -> Any:
        if obj is None:
            return None
        return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)

    def as_int(value: Any) -> int | None:
        return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None

    return (as_int(get(usage, "prompt_tokens")), as_int(get(usage, "completion_tokens")),
            as_int(get(get(usage, "completion_tokens_details"), "reasoning_tokens")),
            as_int(get(get(usage, "prompt_tokens_details"), "cached_tokens")))


def _result_from_completion(response: Any, latency_s: float) -> ChatResult:
    if isinstance(response, str) or not getattr(response, "choices", None):
        raise ValueError("the response has no choices")
    choice = response.choices[0]
    message = choice.message
    text = message.content if message is not None and message.content is not None else ""
    prompt, completion, reasoning, cached = _usage_numbers(getattr(response, "usage", None))
    raw = response.model_dump(mode="json", exclude_unset=True) if hasattr(response, "model_dump") else {}
    return ChatResult(text=text, prompt_tokens=prompt, completion_tokens=completion, reasoning_tokens=reasoning,
                      cached_tokens=cached, latency_s=latency_s, raw=raw, finish_reason=choice.finish_reason,
                      model=getattr(response, "model", None))


def _aggregate_stream(events: Iterable[Any], started: float, *, profile: ModelProfile,
                      on_text: Callable[[str], None] | None, cancelled: Callable[[], bool]) -> ChatResult:
    """The reply made of a stream's chunks (parsed JSON objects), its text held to ``profile.max_reply_bytes``."""
    pieces: list[str] = []
    text_bytes = 0
    usage = None
    finish_reason = None
    model = None
    chunks = 0
    cut = False
    for chunk in events:
        if not isinstance(chunk, dict):
            raise ValueError("a streamed chunk is not a JSON object")
        chunks += 1
        model = chunk.get("model") or model
        if chunk.get("usage") is not None:
            usage = chunk["usage"]
        choices = chunk.get("choices") or []      # the usage chunk has choices == []
        if choices and isinstance(choices[0], dict):
            choice = choices[0]
            delta = choice.get("delta") if isinstance(choice.get("delta"), dict) else {}
            piece = delta.get("content")
            if isinstance(piece, str) and piece:
                room = profile.max_reply_bytes - text_bytes
                if len(piece.encode("utf-8", errors="surrogatepass")) > room:
                    piece, cut = utf8_prefix(piece, room), True
                if piece:
                    pieces.append(piece)
                    text_bytes += len(piece.encode("utf-8", errors="surrogatepass"))
                    if on_text is not None:
                        on_text(piece)
            if choice.get("finish_reason"):
                finish_reason = choice["finish_reason"]
        if cut or cancelled():
            break
    latency = time.monotonic() - started
    prompt, completion, reasoning, cached = _usage_numbers(usage)
    if cut:
        return _cut_result(profile, "".join(pieces), latency, body_bytes=text_bytes, model=model)
    raw = {"stream": True, "chunks": chunks, "finish_reason": finish_reason, "model": model, "usage": usage}
    return ChatResult(text="".join(pieces), prompt_tokens=prompt, completion_tokens=completion,
                      reasoning_tokens=reasoning, cached_tokens=cached, latency_s=latency, raw=raw,
                      finish_reason=finish_reason, model=model)
