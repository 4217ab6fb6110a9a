"""What went wrong with a model call, in plain words: :class:`ModelCallError` (a kind, a message, the HTTP status,
Retry-After) and :func:`explain_error`, which turns the openai client's exceptions into it (wrong URL, bad key,
unknown model, rate limit, server error, a model that cannot see images, a timeout), and the parsing of a server's
Retry-After. Every server text kept in a message goes through ``core.masking``. ``inference.client`` raises these.
"""

from __future__ import annotations

import email.utils
import re
import time
from typing import TYPE_CHECKING, Any

from fieldstudio.core.errors import FieldstudioError
from fieldstudio.core.masking import mask_in_text
from fieldstudio.inference.profiles import ModelProfile

if TYPE_CHECKING:  # the openai package takes ~0.5 s to import: only code that calls a model loads it
    import openai

__all__ = ["ModelCallError", "explain_error", "parse_retry_after", "server_message", "where_of"]

_DETAIL_CHARS = 300

_IMAGE_WORDS = re.compile(
    r"image|vision|multimodal|multi-modal|mmproj|content part|unsupported content|not a multimodal", re.I)
_TOO_MANY_IMAGES = re.compile(r"at most (\d+) image", re.I)


class ModelCallError(FieldstudioError):
    """A model request failed; the message says why in plain words.

    Attributes:
        kind: one of ``timeout``, ``connection``, ``not_found``, ``model_not_found``, ``auth``,
            ``permission``, ``rate_limited``, ``server_error``, ``images_rejected``, ``too_many_images``,
            ``bad_request``, ``bad_response``, ``no_key``, ``deadline`` (the profile's overall deadline passed),
            ``privacy_gate`` (the profile's privacy gate refused the request: nothing was sent).
        status: the HTTP status, or None when there was no response.
        retry_after_s: seconds the server asked us to wait (429/503), or None.
        detail: the server's own message, shortened, with URLs masked and key-like strings removed.
        max_images: for ``too_many_images``, the limit the server announced (e.g. 1), else None.
        attempts: requests made before giving up.
    """

    RETRYABLE = frozenset({"rate_limited", "server_error", "connection"})

    def __init__(self, kind: str, message: str, *, status: int | None = None,
                 retry_after_s: float | None = None, detail: str = "", max_images: int | None = None,
                 attempts: int = 1):
        super().__init__(mask_in_text(message))   # a server's words may echo a key: never kept in clear
        detail = mask_in_text(detail)
        self.kind = kind
        self.status = status
        self.retry_after_s = retry_after_s
        self.detail = detail
        self.max_images = max_images
        self.attempts = attempts

    @property
    def retryable(self) -> bool:
        return self.kind in self.RETRYABLE


def explain_error(exc: BaseException, profile: ModelProfile, *, key: str | None = None) -> ModelCallError:
    """Turn an exception from the openai client into a ModelCallError with a plain-words message.

    `key`, if given, is removed from any server text that echoes it.
    """
    import openai
    where = where_of(profile)
    if isinstance(exc, ModelCallError):
        return exc
    if isinstance(exc, openai.APITimeoutError):
        return ModelCallError(
            "timeout", f"{where}: no answer within {profile.timeout_s:g} s (timeout). The server may be "
            "loading the model, or the request is too large for it; raise the timeout or send fewer or "
            "smaller images.")
    if isinstance(exc, openai.APIConnectionError):
        return ModelCallError(
            "connection", f"{where}: cannot connect to the server. Is it running, and is the address right?")
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        detail = _clean(server_message(exc), key)
        said = f" The server said: {detail}" if detail else ""
        retry_after = parse_retry_after(exc.response.headers) if exc.response is not None else None
        too_many = _TOO_MANY_IMAGES.search(detail)
        if too_many:
            limit = int(too_many.group(1))
            return ModelCallError(
                "too_many_images", f"{where}: the server accepts at most {limit} image(s) per request; set "
                f"max images per request to {limit} (for vLLM, or start it with --limit-mm-per-prompt).{said}",
                status=status, detail=detail, max_images=limit)
        if status in (400, 415, 422, 500, 501) and _IMAGE_WORDS.search(detail):
            return ModelCallError(
                "images_rejected", f"{where}: the model or server does not accept images (a text-only "
                f"model, or a llama.cpp/LM Studio model loaded without its mmproj file).{said}",
                status=status, detail=detail)
        if status == 401:
            return ModelCallError(
                "auth", f"{where}: the server refused the API key (401). Check the key in "
                f"{profile.key_hint()}.{said}", status=status, detail=detail)
        if status == 403:
            return ModelCallError(
                "permission", f"{where}: the key is not allowed to use this model (403).{said}",
                status=status, detail=detail)
        if status == 404:
            if not profile.base_url.rstrip("/").endswith("/v1"):
                message = (f"{where}: nothing found at {profile.shown_url}/chat/completions (404). "
                           "The base URL probably lacks /v1 (most servers answer under /v1).")
            elif re.search(r"model", detail, re.I):
                return ModelCallError(
                    "model_not_found", f"{where}: the server does not know the model {profile.model!r} (404). "
                    f"Check the model id (`ollama list`, or the server's /v1/models).{said}",
                    status=status, detail=detail)
            else:
                message = (f"{where}: nothing found at {profile.shown_url}/chat/completions (404). "
                           "Check the base URL: the base URL probably lacks /v1 or has a wrong path.")
            return ModelCallError("not_found", message + said, status=status, detail=detail)
        if status == 429:
            wait = f" It asked to wait {retry_after:g} s." if retry_after is not None else ""
            return ModelCallError(
                "rate_limited", f"{where}: too many requests or quota used up (429).{wait}{said}",
                status=status, retry_after_s=retry_after, detail=detail)
        if status >= 500:
            return ModelCallError(
                "server_error", f"{where}: the server failed ({status}); it may still be loading the model. "
                f"Try again in a minute.{said}", status=status, retry_after_s=retry_after, detail=detail)
        if status in (408, 409):
            return ModelCallError(
                "server_error", f"{where}: the server asked to retry ({status}).{said}",
                status=status, retry_after_s=retry_after, detail=detail)
        return ModelCallError("bad_request", f"{where}: the server rejected the request ({status}).{said}",
                              status=status, detail=detail)
    if isinstance(exc, (openai.APIResponseValidationError, ValueError, KeyError, TypeError, AttributeError,
                        RecursionError)):
        return ModelCallError(
            "bad_response", f"{where}: the server's answer could not be read as an OpenAI chat response "
            f"({type(exc).__name__}).", detail=_clean(str(exc), key))
    return ModelCallError("bad_response", f"{where}: the call failed ({type(exc).__name__}).",
                          detail=_clean(str(exc), key))


def parse_retry_after(headers: Any) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``Retry-After`` (seconds, fractions allowed, or an
    HTTP date); None when absent or unreadable."""
    if headers is None:
        return None
    for name, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) / divisor
        except ValueError:
            try:
                when = email.utils.parsedate_to_datetime(value)
            except (TypeError, ValueError):
                return None
            seconds = when.timestamp() - time.time()
        return max(0.0, seconds) if seconds == seconds else None  # NaN -> None
    return None


def server_message(exc: openai.APIStatusError) -> str:
    """The message a server put in its error body (``error.message``, or the body as text); callers mask what they keep."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
        if isinstance(error, str):
            return error
    try:
        text = exc.response.text
    except Exception:
        text = ""
    return text or str(getattr(exc, "message", "") or "")


def _clean(text: str, key: str | None) -> str:
    # only the start is shown: masking (regular expressions) a whole error body of 64 kB took seconds; four times
    # what is shown keeps every secret that reaches into the part shown whole for the masks
    text = " ".join(str(text)[:_DETAIL_CHARS * 4].split())
    if key:
        text = text.replace(key, "***")
    text = mask_in_text(text)
    return text[:_DETAIL_CHARS] + ("…" if len(text) > _DETAIL_CHARS else "")


# -- internals ---------------------------------------------------------------------------------


def where_of(profile: ModelProfile) -> str:
    """``name (shown URL, model m)``: how a message names the profile it called, without its secrets."""
    return f"{profile.name} ({profile.shown_url}, model {profile.model})"
