"""Test a model profile against its endpoint: what works, what does not, in plain words.

`test_profile` makes a few small requests (no retries) and returns a ProbeReport:

1. ``GET /models``: is the server there, is the base URL right, does it list the model?
2. a text request: does the model answer, is token usage reported?
3. an image request with a known answer (a red square, "what colour?"): are images accepted? A reply
   that does not say "red" means the server dropped the image silently (a text-only model).
4. two images in one request: does the server limit images per request (vLLM's default is 1)?
5. JSON mode (``response_format={"type": "json_object"}``): accepted, and is the reply JSON?
6. a streamed request: is usage sent in the final chunk?

A step that fails never stops the later ones, except that nothing is tried after the server cannot be
reached at all or refuses the key.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import struct
import time
import zlib
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import openai

from fieldstudio.inference.call_errors import ModelCallError, explain_error
from fieldstudio.inference.client import chat, chat_stream, list_model_ids, make_client
from fieldstudio.inference.profiles import Capabilities, ModelProfile

COLOUR_QUESTION = "What colour is this image? Answer with one word."
TWO_COLOURS_QUESTION = "What are the colours of these two images? Answer with two words."
RED = (220, 20, 20)
BLUE = (20, 40, 220)


@dataclass
class ProbeStep:
    """One probe request: its name, whether it worked, what it showed (plain words) and its latency in seconds."""

    name: str
    ok: bool | None
    detail: str
    latency_s: float | None = None


@dataclass
class ProbeReport:
    """What `test_profile` found. None means the step could not decide (e.g. it was not reached).

    Attributes:
        profile_name: the profile tested.
        reachable: the server answered at all.
        model_listed: the model id is in ``GET /models`` (None if the server has no model list).
        text_ok: a text request got an answer.
        images_accepted: an image was accepted and its colour named.
        max_images_per_request: the per-request image limit the server announced, else None.
        usage_reported: token usage came back with the text request.
        stream_usage_reported: usage came back in the final streamed chunk.
        json_mode: JSON mode was accepted and produced JSON.
        steps: every request made, in order.
        problems: what went wrong, in plain words, for the user.
    """

    profile_name: str
    reachable: bool = False
    model_listed: bool | None = None
    text_ok: bool = False
    images_accepted: bool | None = None
    max_images_per_request: int | None = None
    usage_reported: bool | None = None
    stream_usage_reported: bool | None = None
    json_mode: bool | None = None
    steps: list[ProbeStep] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """The endpoint answers text requests (images may still be refused: see `images_accepted`)."""
        return self.text_ok

    def capabilities(self) -> Capabilities:
        """The findings in the form stored with the profile."""
        return Capabilities(
            tested_at=datetime.now(timezone.utc).isoformat(timespec="seconds"), text_ok=self.text_ok,
            images_accepted=self.images_accepted, max_images_per_request=self.max_images_per_request,
            usage_reported=self.usage_reported, stream_usage_reported=self.stream_usage_reported,
            json_mode=self.json_mode)

    def _step(self, name: str, ok: bool | None, detail: str, latency_s: float | None = None) -> None:
        self.steps.append(ProbeStep(name, ok, detail, latency_s))
        if ok is False:
            self.problems.append(detail)


def solid_png(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    """A PNG image of one colour, built in memory (8-bit RGB, no external library)."""
    def chunk(kind: bytes, payload: bytes) -> bytes:
        return (struct.pack(">I", len(payload)) + kind + payload
                + struct.pack(">I", zlib.crc32(kind + payload) & 0xFFFFFFFF))

    row = b"\x00" + bytes(rgb) * width          # filter type 0, then the pixels
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(row * height))
            + chunk(b"IEND", b""))


def data_url(image: bytes, mime: str = "image/png") -> str:
    """``data:<mime>;base64,...`` for an image part."""
    return f"data:{mime};base64,{base64.b64encode(image).decode('ascii')}"


def image_message(question: str, images: list[bytes], detail: str = "auto") -> list[dict[str, Any]]:
    """One user message: the question, then each PNG as an ``image_url`` part with a data URL."""
    parts: list[dict[str, Any]] = [{"type": "text", "text": question}]
    parts += [{"type": "image_url", "image_url": {"url": data_url(image), "detail": detail}} for image in images]
    return [{"role": "user", "content": parts}]


def test_profile(profile: ModelProfile, *, client: openai.OpenAI | None = None) -> ProbeReport:
    """Probe the profile's endpoint with a few small requests (no retries) and report what works.

    Never raises for endpoint problems: they are in ``report.problems`` in plain words. The requests
    use the profile's timeout; with a slow local model the whole test can take a few times that.
    """
    report = ProbeReport(profile.name)
    profile = dataclasses.replace(profile, retries=0)
    try:
        client = client or make_client(profile)
    except ModelCallError as exc:
        report._step("key", False, str(exc))
        return report

    if not _probe_models(profile, client, report):
        return report
    if not _probe_text(profile, client, report):
        return report
    if report.model_listed is False:
        _unlisted_but_answered(report)
    _probe_image(profile, client, report)
    if report.images_accepted:
        _probe_two_images(profile, client, report)
    _probe_json(profile, client, report)
    _probe_stream(profile, client, report)
    return report


# -- steps -------------------------------------------------------------------------------------


def _probe_models(profile: ModelProfile, client: openai.OpenAI, report: ProbeReport) -> bool:
    """False if there is no point going on (server unreachable, key refused)."""
    started = time.monotonic()
    try:
        ids = list_model_ids(profile, client)
    except Exception as exc:
        error = explain_error(exc, profile, key=_key(client))
        latency = time.monotonic() - started
        if error.kind in ("connection", "timeout", "auth"):
            report._step("models", False, str(error), latency)
            report.reachable = error.kind == "auth"
            return False
        report.reachable = error.status is not None
        # Some servers have no model list; the chat request below decides.
        report._step("models", None, f"the server gave no model list ({error.kind})", latency)
        return True
    report.reachable = True
    report.model_listed = profile.model in ids
    if report.model_listed:
        report._step("models", True, f"the server lists {profile.model!r}", time.monotonic() - started)
    else:
        shown = ", ".join(ids[:10]) + (" ..." if len(ids) > 10 else "")
        report._step("models", False, f"the server does not list the model {profile.model!r} "
                     f"(it lists: {shown or 'nothing'}); check the model id", time.monotonic() - started)
    return True


def _unlisted_but_answered(report: ProbeReport) -> None:
    """The model id is not in the server's list, yet a text request for it was answered: a server that serves
    one model whatever the id (llama.cpp's, which lists the model file's path) works as it is, so the models
    step is a note, not a failure."""
    step = next(s for s in report.steps if s.name == "models")
    report.problems.remove(step.detail)
    step.ok = None
    step.detail = (step.detail.removesuffix("; check the model id")
                   + ", but it answered a request for it: a server serving one model answers under any id "
                   "(llama.cpp's lists the model file); the id can stay")


def _probe_text(profile: ModelProfile, client: openai.OpenAI, report: ProbeReport) -> bool:
    messages = [{"role": "user", "content": "Reply with the single word: ready"}]
    try:
        result = chat(profile, messages, client=client)
    except ModelCallError as error:
        report.reachable = report.reachable or error.status is not None
        report._step("text", False, str(error))
        return False
    report.reachable = True
    report.text_ok = True
    report.usage_reported = result.usage_reported
    usage = (f"usage {result.prompt_tokens} prompt + {result.completion_tokens} completion tokens"
             if result.usage_reported else "no token usage reported (costs will be unknown)")
    report._step("text", True, f"answered in {result.latency_s:.2f} s; {usage}", result.latency_s)
    return True


def _probe_image(profile: ModelProfile, client: openai.OpenAI, report: ProbeReport) -> None:
    messages = image_message(COLOUR_QUESTION, [solid_png(64, 64, RED)], profile.image_detail)
    try:
        result = chat(profile, messages, client=client, max_tokens=None)
    except ModelCallError as error:
        if error.kind == "too_many_images":          # a limit of 0 is not a thing; treat as refusal
            error.kind = "images_rejected"
        refused = error.kind == "images_rejected" or error.status == 400
        if not refused and _parts_refused(profile, client):
            report.images_accepted = False
            # not str(error): its advice for a failing server ("it may still be loading the model") is wrong here
            said = f" (the server said: {error.detail})" if error.detail else ""
            report._step("image", False, f"an image request failed ({error.status or error.kind}){said}; the same "
                         "question without the image, sent as a text part, fails too: the server cannot read a "
                         "message made of parts, which every image request needs (a text-only model or chat "
                         "template)")
            return
        report.images_accepted = False if refused else None
        report._step("image", False, str(error))
        return
    if "red" in result.text.lower():
        report.images_accepted = True
        report._step("image", True, f"saw the red test image (answered {_quote(result.text)})", result.latency_s)
    else:
        report.images_accepted = False
        report._step("image", False, f"the reply to a red test image was {_quote(result.text)}: the server "
                     "probably dropped the image (a text-only model, or a missing mmproj file)", result.latency_s)


def _parts_refused(profile: ModelProfile, client: openai.OpenAI) -> bool:
    """Whether a message whose content is a list of parts fails even with a text part alone.

    llama.cpp's Python server with a text-only model answers an image request with a 500 ("can only
    concatenate str (not "list") to str") from its chat template: the image is not the problem, parts are.
    A failure of this control tells "cannot take images" apart from an unrelated server error.
    """
    messages = [{"role": "user", "content": [{"type": "text", "text": COLOUR_QUESTION}]}]
    try:
        chat(profile, messages, client=client, max_tokens=8)
    except ModelCallError:
        return True
    return False


def _probe_two_images(profile: ModelProfile, client: openai.OpenAI, report: ProbeReport) -> None:
    messages = image_message(TWO_COLOURS_QUESTION, [solid_png(64, 64, RED), solid_png(64, 64, BLUE)],
                             profile.image_detail)
    try:
        result = chat(profile, messages, client=client)
    except ModelCallError as error:
        if error.kind == "too_many_images":
            report.max_images_per_request = error.max_images
            report._step("two images", None, f"the server takes at most {error.max_images} image(s) per "
                         "request; frames will be sent in several requests")
        else:
            report._step("two images", False, f"two images in one request failed: {error}")
            report.max_images_per_request = 1
        return
    report._step("two images", True, f"two images in one request accepted (answered {_quote(result.text)})",
                 result.latency_s)


def _probe_json(profile: ModelProfile, client: openai.OpenAI, report: ProbeReport) -> None:
    messages = [{"role": "user", "content": 'Return the JSON object {"answer": "ready"} and nothing else.'}]
    try:
        result = chat(profile, messages, client=client, response_format={"type": "json_object"})
    except ModelCallError as error:
        report.json_mode = False if error.status is not None and 400 <= error.status < 500 else None
        report._step("json mode", None, f"JSON mode not available: {error.detail or error.kind}; answers "
                     "will be parsed from plain text")
        return
    try:
        parsed = json.loads(result.text)
    except json.JSONDecodeError:
        parsed = None
    report.json_mode = isinstance(parsed, dict)
    if report.json_mode:
        report._step("json mode", True, "JSON mode accepted and the reply is a JSON object", result.latency_s)
    else:
        report._step("json mode", None, f"JSON mode accepted but the reply is not a JSON object "
                     f"({_quote(result.text)}); answers will be parsed from plain text", result.latency_s)


def _probe_stream(profile: ModelProfile, client: openai.OpenAI, report: ProbeReport) -> None:
    messages = [{"role": "user", "content": "Reply with the single word: ready"}]
    try:
        result = chat_stream(profile, messages, client=client)
    except ModelCallError as error:
        report.stream_usage_reported = None
        report._step("stream", None, f"streaming failed: {error}")
        return
    report.stream_usage_reported = result.usage_reported
    if result.usage_reported:
        report._step("stream", True, "streaming works and reports usage in its last chunk", result.latency_s)
    else:
        report._step("stream", None, "streaming works but reports no token usage; runs should not stream",
                     result.latency_s)


def _quote(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return repr(text[:limit] + ("…" if len(text) > limit else ""))


def _key(client: openai.OpenAI) -> str | None:
    key = getattr(client, "api_key", None)
    return key if isinstance(key, str) and key else None


test_profile.__test__ = False  # type: ignore[attr-defined]  # not a pytest test, despite its name
