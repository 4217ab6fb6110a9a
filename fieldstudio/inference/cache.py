"""Response cache: identical requests are answered from the project instead of the endpoint.

The key is the SHA-256 of a canonical JSON document holding what decides the reply: the profile's
parameters that reach the endpoint (base URL with credentials masked, model id, temperature, seed), the
strategy's name and version, the request options (max tokens, response format, tools) and the
SHA-256 of the messages, whose image parts are replaced by the SHA-256 of their JPEG bytes (so the key
covers the prompt and the frame hashes without hashing megabytes of base64 twice). Only successful
replies are stored, in the project's ``response_cache`` table, one short write transaction each.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from fieldstudio.inference.client import ChatResult
from fieldstudio.inference.profiles import ModelProfile
from fieldstudio.store import portable
from fieldstudio.store.models import ResponseCache, utcnow
from fieldstudio.store.project import Project

KEY_VERSION = 1


def _strip_images(value: Any, hashes: dict[str, str]) -> Any:
    if isinstance(value, dict):
        if value.get("type") == "image_url" and isinstance(value.get("image_url"), dict):
            url = value["image_url"].get("url", "")
            digest = hashes.get(url) or hashlib.sha256(url.encode()).hexdigest()
            return {**value, "image_url": {**value["image_url"], "url": f"sha256:{digest}"}}
        return {k: _strip_images(v, hashes) for k, v in value.items()}
    if isinstance(value, list):
        return [_strip_images(v, hashes) for v in value]
    return value


def _has_image_part(value: Any) -> bool:
    # text-only messages hash as they are: copying them to strip nothing costs a third of a 10,000-line batch
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if item.get("type") == "image_url":
                return True
            for v in item.values():
                if isinstance(v, (dict, list)):
                    stack.append(v)
        elif isinstance(item, list):
            for v in item:
                if isinstance(v, (dict, list)):
                    stack.append(v)
    return False


def messages_hash(messages: list[dict[str, Any]], image_hashes: dict[str, str] | None = None) -> str:
    """SHA-256 of the messages as canonical JSON, image data URLs replaced by their images' SHA-256.

    `image_hashes` maps a data URL to the SHA-256 of its JPEG bytes (known from the encoder); a URL not
    in it is hashed as text.
    """
    stripped = _strip_images(messages, image_hashes or {}) if _has_image_part(messages) else messages
    canonical = json.dumps(stripped, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def cache_key(profile: ModelProfile, strategy: str, strategy_version: str, messages: list[dict[str, Any]], *,
              image_hashes: dict[str, str] | None = None, options: dict[str, Any] | None = None) -> str:
    """The cache key (64 hex digits) of one request; see the module docstring for what it covers."""
    document = {
        "v": KEY_VERSION,
        "base_url": profile.shown_url,
        "model": profile.model,
        "temperature": profile.temperature,
        "seed": profile.seed,
        "strategy": strategy,
        "strategy_version": strategy_version,
        "options": {k: v for k, v in (options or {}).items() if v is not None},
        "messages": messages_hash(messages, image_hashes),
    }
    return hashlib.sha256(json.dumps(document, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def result_to_json(result: ChatResult) -> dict[str, Any]:
    """A ChatResult as stored in the cache (text, token counts with None kept, latency, finish reason, model,
    and the tool calls of the message when there are any)."""
    out: dict[str, Any] = {"text": result.text, "prompt_tokens": result.prompt_tokens,
                           "completion_tokens": result.completion_tokens, "reasoning_tokens": result.reasoning_tokens,
                           "cached_tokens": result.cached_tokens, "latency_s": result.latency_s,
                           "finish_reason": result.finish_reason, "model": result.model}
    message = _first_message(result.raw)
    if message:
        for name in ("tool_calls", "refusal"):
            if message.get(name):
                out[name] = message[name]
    return out


def result_from_json(values: dict[str, Any]) -> ChatResult:
    """The ChatResult stored by `result_to_json` (attempts 1; raw holds the message's tool calls, if any)."""
    message = {k: values[k] for k in ("tool_calls", "refusal") if values.get(k)}
    raw = {"choices": [{"message": message}], "from_cache": True} if message else {"from_cache": True}
    return ChatResult(text=values.get("text") or "", prompt_tokens=values.get("prompt_tokens"),
                      completion_tokens=values.get("completion_tokens"), reasoning_tokens=values.get("reasoning_tokens"),
                      cached_tokens=values.get("cached_tokens"), latency_s=float(values.get("latency_s") or 0.0),
                      raw=raw, finish_reason=values.get("finish_reason"), model=values.get("model"), attempts=1)


def _first_message(raw: dict[str, Any] | None) -> dict[str, Any] | None:
    try:
        message = (raw or {})["choices"][0]["message"]
    except (KeyError, IndexError, TypeError):
        return None
    return message if isinstance(message, dict) else None


def lookup_with_cost(project: Project, key: str) -> tuple[ChatResult, float | None] | None:
    """The cached reply for `key` and what it cost when it was paid (None: unknown), or None."""
    with project.read() as s:
        row = s.get(ResponseCache, key)
        return None if row is None else (result_from_json(row.response), row.response.get("cost_usd"))


def store_in(session: Session, key: str, result: ChatResult, *, cost_usd: float | None = None) -> None:
    """Add a successful reply under `key` in an open write session (an existing entry is kept).

    `cost_usd` is what the call cost when it was paid, kept for reports (None: unknown).
    """
    response = result_to_json(result)
    response["cost_usd"] = cost_usd
    statement = portable.insert_ignoring_duplicates(ResponseCache, session.get_bind().dialect.name)
    session.execute(statement, {"key": key, "response": response, "created_at": utcnow()})


#: Above this many entries `known_keys` returns None and every request is looked up one by one.
MAX_PRELOADED_KEYS = 500_000


def known_keys(project: Project) -> set[str] | None:
    """Every key in the cache (so a run looks up only keys that exist), or None when there are too many."""
    with project.read() as s:
        if (s.scalar(select(func.count()).select_from(ResponseCache)) or 0) > MAX_PRELOADED_KEYS:
            return None
        return set(s.scalars(select(ResponseCache.key)))


def store(project: Project, key: str, result: ChatResult, *, cost_usd: float | None = None) -> None:
    """`store_in` in its own short write transaction."""
    with project.write() as s:
        store_in(s, key, result, cost_usd=cost_usd)


def clear(project: Project) -> int:
    """Delete every cached reply; returns how many there were."""
    from sqlalchemy import delete

    with project.write() as s:
        return s.execute(delete(ResponseCache)).rowcount or 0
