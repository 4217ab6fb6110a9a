"""A provider's request limits, respected when a request is sent, with every cut stated.

Two limits are known of an endpoint: the images it accepts in one request (declared in the profile,
``ModelProfile.max_images_per_request``; found by ``models test``, ``capabilities.max_images_per_request``; or
announced by the server when it refused a request during a run) and the size of one request
(``ModelProfile.max_request_bytes``, declared: servers cap the body, e.g. 20 MB, and a refused body says nothing
reliable about the limit). `fit_prompt` makes a request fit them before it is sent:

* too many images: keep that many, at uniform positions among those built (``sampling.uniform_indices``, first
  and last kept), dropping each removed image's ``timestamp:`` text part with it;
* too many bytes: re-encode every image at a lower JPEG quality (steps of 10 down to 30), then, if it still does
  not fit, halve the images kept until it does.

A cut is never silent: it is returned as a `Cut` whose text (``32 asked, 16 sent: the server accepts 16 images per
request (models test)``) the run queue stores in the answer's trace, and the frames the answer records are those
really sent, so evidence coverage counts only them.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from fieldstudio.inference import sampling
from fieldstudio.inference.inputs import EncodedImage
from fieldstudio.inference.profiles import ModelProfile
from fieldstudio.inference.strategies.base import Prompt

__all__ = ["RequestLimits", "Cut", "limits_of", "fit_prompt", "request_bytes", "MIN_QUALITY"]

MIN_QUALITY = 30
"""The lowest JPEG quality a request is re-encoded at before images are dropped instead."""
_QUALITY_STEP = 10


@dataclass(frozen=True)
class RequestLimits:
    """``max_images`` per request and ``max_request_bytes`` (None: no limit known), and where each comes from."""

    max_images: int | None = None
    images_source: str = ""
    max_request_bytes: int | None = None


def limits_of(profile: ModelProfile, learned_max_images: int | None = None) -> RequestLimits:
    """The limits of ``profile``: its declared image limit, else the one ``models test`` found, else one the server
    announced earlier in this run (``learned_max_images``); its declared request size."""
    if profile.max_images_per_request:
        images, source = profile.max_images_per_request, "the profile's limit"
    elif profile.capabilities.max_images_per_request:
        images, source = profile.capabilities.max_images_per_request, "found by models test"
    elif learned_max_images:
        images, source = learned_max_images, "announced by the server"
    else:
        images, source = None, ""
    return RequestLimits(images, source, getattr(profile, "max_request_bytes", None))


@dataclass(frozen=True)
class Cut:
    """What `fit_prompt` changed in one request: ``purpose`` of the request, images ``asked`` and ``sent``, request
    bytes before and after, JPEG quality before and after (None when unchanged), and ``reason``."""

    purpose: str
    asked: int
    sent: int
    bytes_asked: int
    bytes_sent: int
    quality_from: int | None
    quality_to: int | None
    reason: str

    def text(self) -> str:
        """``32 asked, 16 sent: the server accepts 16 images per request (found by models test)``, with the quality
        change when there is one."""
        parts = []
        if self.sent != self.asked:
            parts.append(f"{self.asked} asked, {self.sent} sent")
        if self.quality_to is not None and self.quality_to != self.quality_from:
            parts.append(f"JPEG quality {self.quality_from} → {self.quality_to}")
        return ", ".join(parts or ["unchanged"]) + f": {self.reason}"

    def record(self) -> dict[str, Any]:
        """The trace entry an answer keeps (``type: cut``)."""
        return {"type": "cut", **dataclasses.asdict(self), "text": self.text()}


def request_bytes(prompt: Prompt) -> int:
    """Bytes of the request body's messages as JSON (images as base64 data URLs), the size a server caps."""
    return len(json.dumps(prompt.messages, ensure_ascii=False).encode("utf-8"))


def _is_image(part: Any) -> bool:
    return isinstance(part, dict) and part.get("type") == "image_url"


def _is_timestamp(part: Any) -> bool:
    return isinstance(part, dict) and part.get("type") == "text" and str(part.get("text", "")).startswith("timestamp:")


def _keep_images(prompt: Prompt, keep: set[int]) -> Prompt:
    """The prompt with only the images at positions ``keep`` (in message order), each dropped image's timestamp
    text part dropped with it."""
    position = 0
    messages = []
    for m in prompt.messages:
        content = m.get("content")
        if not isinstance(content, list):
            messages.append(m)
            continue
        parts: list[Any] = []
        for part in content:
            if _is_image(part):
                if position in keep:
                    parts.append(part)
                elif parts and _is_timestamp(parts[-1]):
                    parts.pop()
                position += 1
            else:
                parts.append(part)
        messages.append({**m, "content": parts})
    images = [im for i, im in enumerate(prompt.images) if i in keep]
    return dataclasses.replace(prompt, messages=messages, images=images)


def _reencoded(prompt: Prompt, quality: int) -> Prompt:
    """Every image re-encoded at ``quality`` (only those above it), in the messages and the image records."""
    import cv2           # only when an image is re-encoded: every command line start imports this module

    by_url: dict[str, str] = {}
    images = []
    for im in prompt.images:
        if im.quality <= quality:
            images.append(im)
            continue
        bgr = cv2.imdecode(np.frombuffer(im.jpeg, np.uint8), cv2.IMREAD_COLOR)
        ok, buf = cv2.imencode(".jpg", bgr, [int(cv2.IMWRITE_JPEG_QUALITY), quality])
        if not ok:
            images.append(im)
            continue
        jpeg = buf.tobytes()
        new = dataclasses.replace(im, jpeg=jpeg, quality=quality, sha256=hashlib.sha256(jpeg).hexdigest())
        by_url[im.data_url()] = new.data_url()
        images.append(new)
    messages = []
    for m in prompt.messages:
        content = m.get("content")
        if isinstance(content, list):
            content = [{**p, "image_url": {**p["image_url"], "url": by_url.get(p["image_url"]["url"],
                                                                               p["image_url"]["url"])}}
                       if _is_image(p) else p for p in content]
            m = {**m, "content": content}
        messages.append(m)
    return dataclasses.replace(prompt, messages=messages, images=images)


def _thinned(prompt: Prompt, n: int) -> Prompt:
    count = len(prompt.images)
    return _keep_images(prompt, set(sampling.uniform_indices(0, count - 1, n))) if n < count else prompt


def fit_prompt(prompt: Prompt, limits: RequestLimits) -> tuple[Prompt, Cut | None]:
    """``prompt`` made to fit ``limits`` (module docstring) and the `Cut` made, or (``prompt``, None) when it fits.

    A request whose text alone exceeds the size limit is returned with no image and the cut says so; the server
    then decides (and the answer's error says what it said)."""
    asked, before = len(prompt.images), request_bytes(prompt)
    quality_from = max((im.quality for im in prompt.images), default=None)
    reasons = []
    fitted = prompt
    if limits.max_images and asked > limits.max_images:
        fitted = _thinned(fitted, limits.max_images)
        reasons.append(f"the server accepts {limits.max_images} images per request ({limits.images_source})")
    cap = limits.max_request_bytes
    if cap and request_bytes(fitted) > cap and fitted.images:
        size = request_bytes(fitted)
        quality = quality_from or MIN_QUALITY
        while request_bytes(fitted) > cap and quality > MIN_QUALITY:
            quality = max(MIN_QUALITY, quality - _QUALITY_STEP)
            fitted = _reencoded(fitted, quality)
        while request_bytes(fitted) > cap and fitted.images:
            fitted = _thinned(fitted, len(fitted.images) // 2) if len(fitted.images) > 1 else _keep_images(fitted, set())
        reasons.append(f"a request of {size:,} bytes is over the profile's {cap:,}-byte limit")
    if fitted is prompt:
        return prompt, None
    quality_to = max((im.quality for im in fitted.images), default=None)
    return fitted, Cut(prompt.purpose, asked, len(fitted.images), before, request_bytes(fitted), quality_from,
                       quality_to if quality_to != quality_from else None, "; ".join(reasons))
