"""Prompt strategies' building blocks and the benchmarks' strategies: named, versioned ways of turning a task into OpenAI chat requests, as the benchmarks did.

| name | what is sent (benchmarks.md) |
|---|---|
| ``fieldworkarena`` | §1.8: per video a notice and the video's name, then for each frame (1 per second, about 30 evenly spaced for longer videos) ``timestamp: HH:MM:SS`` and the image; photos; documents as extracted text |
| ``industryeqa`` | §2.2-2.3: the answering prompt, then N uniform frames (default 30), longest side 768, JPEG 85, detail low, no timestamps; JSON with ``direct_answer`` and ``reasoning_answer`` |
| ``blind`` | §2.2: the question alone (IndustryEQA's blind baseline) |
| ``chunked`` | §1.8 "other paths": 30 s chunks at 1 frame/s, JPEG 25, each described, then one answer from the descriptions |
| ``acceptability`` | §4.1-4.2: one photo or video frame; JSON with verdict, reasons and documentation fields |
| ``agent`` | §1.9: see `fieldstudio.inference.strategies.agent` |

The prompt wording is our own and lives in ``fieldstudio/resources/prompts/strategy_*.txt``. A strategy is executed
with an ``ask(prompt, profile=None) -> ChatResult`` callable supplied by the run queue (which adds the
cache, the cost and the request log); strategies never touch the database except to read inputs.
Tasks without media are sent as text. A change of wording or layout must bump the strategy's version.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select

from fieldstudio.core.errors import FieldstudioError, MediaError
from fieldstudio.core.matchers import extract_json
from fieldstudio.core.paths import resources_dir
from fieldstudio.inference import sampling
from fieldstudio.inference.client import ChatResult
from fieldstudio.inference.inputs import EncodedImage, FrameEncoder, TaskInputSpec, TaskSpec, document_text
from fieldstudio.inference.profiles import ModelProfile
from fieldstudio.store.models import RatingSet
from fieldstudio.store.project import Project

#: FieldWorkArena icpr2026 re-encoding: start at quality 90, minus 5 while above 250 000 bytes.
FWA_JPEG_QUALITY = 90
FWA_MAX_JPEG_BYTES = 250_000
EQA_SIDE = 768
EQA_QUALITY = 85
CHUNK_QUALITY = 25
EQA_PARSE_FAILED = "Failed to parse the model's answer."


class StrategyError(FieldstudioError):
    """A task cannot be sent with a strategy: ``kind`` is ``missing_media``, ``media_error`` or ``unknown_strategy``."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


@dataclass
class Prompt:
    """One chat request as a strategy builds it.

    Attributes:
        messages: OpenAI chat messages; images are ``image_url`` parts with JPEG data URLs.
        images: every image in `messages`, in order, with its frame index, PTS and SHA-256.
        purpose: what the request is for (``answer``, ``describe 00:00:00-00:00:30``, ``analyze_video``...).
        max_tokens, response_format, extra_body: passed to the endpoint when not None.
    """

    messages: list[dict[str, Any]]
    images: list[EncodedImage] = field(default_factory=list)
    purpose: str = "answer"
    max_tokens: int | None = None
    response_format: dict[str, Any] | None = None
    extra_body: dict[str, Any] | None = None


@dataclass
class StrategyOutcome:
    """What a strategy made of a task: the final raw text, the parsed answer, an error kind if any, a trace."""

    raw_text: str | None
    parsed: dict[str, Any] | None
    error_kind: str | None = None
    error: str | None = None
    trace: list[dict[str, Any]] | None = None


Ask = Callable[..., ChatResult]  # ask(prompt, profile=None) -> ChatResult; raises ModelCallError


@dataclass
class StrategyContext:
    """What a strategy needs besides the task: the project, the frame encoder, the profiles and parameters."""

    project: Project
    encoder: FrameEncoder
    profile: ModelProfile
    params: dict[str, Any] = field(default_factory=dict)
    vision_profile: ModelProfile | None = None
    cancelled: Callable[[], bool] = lambda: False

    def param(self, name: str, default: Any) -> Any:
        value = self.params.get(name)
        return default if value is None else value


@dataclass(frozen=True)
class Strategy:
    """A named, versioned prompt strategy.

    ``build(ctx, task) -> list[Prompt]``: the first request(s), for a preview (single-request strategies:
    the only request). ``execute(ctx, task, ask) -> StrategyOutcome``: the whole exchange.
    ``templates``: the resource files whose text shapes the prompt (their hashes are stored with a run).
    ``parse(task, text) -> (parsed, error kind, message)``: set for strategies that send exactly one request,
    ``build(ctx, task)[0]``, and parse its reply (`single`); those can also be sent as a provider batch.
    """

    name: str
    version: str
    description: str
    build: Callable[[StrategyContext, TaskSpec], list[Prompt]]
    execute: Callable[[StrategyContext, TaskSpec, Ask], StrategyOutcome]
    templates: tuple[str, ...] = ()
    parse: Callable[[TaskSpec, str], tuple[dict[str, Any], str | None, str | None]] | None = None

    @classmethod
    def single(cls, name: str, version: str, description: str,
               build: Callable[[StrategyContext, TaskSpec], list[Prompt]],
               parse: Callable[[TaskSpec, str], tuple[dict[str, Any], str | None, str | None]],
               templates: tuple[str, ...] = ()) -> Strategy:
        """A strategy that sends its one request ``build(ctx, task)[0]`` and parses the reply's text."""
        return cls(name, version, description, build, single_request(build, parse), templates, parse)

    @property
    def single_request(self) -> bool:
        """True when every task is one request (so the strategy can run through a Batch API)."""
        return self.parse is not None

    def fingerprint(self) -> dict[str, Any]:
        """Name, version and the SHA-256 (first 16 hex digits) of each template, as stored with a run."""
        return {"name": self.name, "version": self.version,
                "templates": {t: hashlib.sha256(template(t).encode()).hexdigest()[:16] for t in self.templates}}


@functools.lru_cache(maxsize=None)
def template(name: str) -> str:
    """The text of ``fieldstudio/resources/prompts/<name>.txt`` (trailing newline removed). Raises FieldstudioError."""
    path = resources_dir() / "prompts" / f"{name}.txt"
    try:
        return path.read_text(encoding="utf-8").rstrip("\n")
    except OSError as exc:
        raise FieldstudioError(f"{path}: prompt template cannot be read ({exc.strerror or exc})") from None


# -- message parts -----------------------------------------------------------------------------


def text_part(text: str) -> dict[str, Any]:
    """A ``text`` content part."""
    return {"type": "text", "text": text}


def image_part(image: EncodedImage, detail: str) -> dict[str, Any]:
    """An ``image_url`` content part with the JPEG as a base64 data URL and the given detail."""
    return {"type": "image_url", "image_url": {"url": image.data_url(), "detail": detail}}


def require_inputs(task: TaskSpec) -> None:
    """Raise StrategyError(kind="missing_media") when an input names no readable media."""
    missing = task.missing_inputs
    if missing:
        raise StrategyError("missing_media", f"task {task.label}: input(s) not in the project or unreadable: "
                                             f"{', '.join(missing)}; add or relink the media")


def _video_seconds(ctx: StrategyContext, inp: TaskInputSpec):
    try:
        return ctx.encoder.seconds(inp.media)
    except MediaError as exc:
        raise StrategyError("media_error", str(exc)) from None


def encode_frame(ctx: StrategyContext, inp: TaskInputSpec, index: int, **kw: Any) -> EncodedImage:
    try:
        return ctx.encoder.encode(inp.media, index, **kw)
    except (MediaError, IndexError) as exc:
        raise StrategyError("media_error", f"{inp.name}: {exc}") from None


def video_frames(ctx: StrategyContext, inp: TaskInputSpec, *, seconds_per_frame: float = 1.0,
                 max_frames: int = 30, method: str = sampling.SAMPLING_PTS) -> list[sampling.SampledFrame]:
    """FieldWorkArena's frame choice for one video input (its time range honoured); see `sampling`."""
    if method == sampling.SAMPLING_FWA_METADATA:
        extra = inp.media.extra or {}
        count = extra.get("frame_count_estimate") or inp.media.frame_count or 0
        try:
            frames = sampling.fwa_metadata_indices(int(count), float(inp.media.avg_fps or 0),
                                                   seconds_per_frame=seconds_per_frame, max_frames=max_frames)
        except ValueError as exc:
            raise StrategyError("media_error", f"{inp.name}: {exc}") from None
        n = len(_video_seconds(ctx, inp))
        return [f for f in frames if f.frame_index < n]
    seconds = _video_seconds(ctx, inp)
    try:
        return sampling.fwa_indices(seconds, start_s=inp.start_s, end_s=inp.end_s,
                                    seconds_per_frame=seconds_per_frame, max_frames=max_frames)
    except ValueError as exc:
        raise StrategyError("media_error", f"{inp.name}: {exc}") from None


def timestamped_frames(ctx: StrategyContext, inp: TaskInputSpec, frames: list[sampling.SampledFrame], *,
                       detail: str, max_side: int | None, quality: int,
                       max_bytes: int | None = None) -> tuple[list[dict[str, Any]], list[EncodedImage]]:
    """For each frame a ``timestamp: HH:MM:SS`` text part and its image part (benchmarks.md §1.8)."""
    parts: list[dict[str, Any]] = []
    encoded: list[EncodedImage] = []
    for f in frames:
        image = encode_frame(ctx, inp, f.frame_index, max_side=max_side, quality=quality, max_bytes=max_bytes)
        parts += [text_part(f"timestamp: {sampling.hhmmss(f.label_s or 0.0)}"), image_part(image, detail)]
        encoded.append(image)
    return parts, encoded


def document_part(ctx: StrategyContext, inp: TaskInputSpec) -> dict[str, Any]:
    """The document's text after a one-line note (PDFs are never sent as images; benchmarks.md §1.8)."""
    text = document_text(ctx.project, inp.media)
    if (inp.media.format or "").lower() == "pdf" or inp.name.lower().endswith(".pdf"):
        note = f"The following is text extracted from the provided document {inp.name}:"
    else:
        note = f"The following is the content of the provided text file {inp.name}:"
    return text_part(f"{note}\n{text}")


def output_instruction(task: TaskSpec) -> str:
    """How the reply must be shaped: JSON for ``output_format == "json"`` tasks, plain text otherwise."""
    if (task.output_format or "").lower() == "json":
        return "Reply with a single JSON value (an object or a list) that parses as JSON, and nothing else."
    return "Reply in plain text with the answer only."


# -- fieldworkarena ----------------------------------------------------------------------------


def _fwa_detail(ctx: StrategyContext) -> str:
    return ctx.param("detail", "high")


def media_parts_fwa(ctx: StrategyContext, task: TaskSpec, *, videos: bool = True
                    ) -> tuple[list[dict[str, Any]], list[EncodedImage]]:
    """FieldWorkArena's parts for every input in order: videos as timestamped frames, photos, document text."""
    parts: list[dict[str, Any]] = []
    encoded: list[EncodedImage] = []
    detail = _fwa_detail(ctx)
    side = ctx.param("max_side", ctx.profile.longest_image_side)
    for inp in task.inputs:
        if inp.kind == "video" and videos:
            frames = video_frames(ctx, inp, seconds_per_frame=float(ctx.param("seconds_per_frame", 1.0)),
                                  max_frames=int(ctx.param("max_frames", 30)),
                                  method=ctx.param("sampling", sampling.SAMPLING_PTS))
            parts.append(text_part(f"\nYou cannot watch the video; rely on the frames below, sampled from it in "
                                   f"time order, each after its timestamp in video time.\n{inp.name}:"))
            p, e = timestamped_frames(ctx, inp, frames, detail=detail, max_side=side, quality=FWA_JPEG_QUALITY,
                                      max_bytes=FWA_MAX_JPEG_BYTES)
            parts += p
            encoded += e
        elif inp.kind == "image":
            image = encode_frame(ctx, inp, 0, max_side=side, quality=FWA_JPEG_QUALITY, max_bytes=FWA_MAX_JPEG_BYTES)
            parts += [text_part(f"{inp.name}:"), image_part(image, detail)]
            encoded.append(image)
        elif inp.kind == "document":
            parts.append(document_part(ctx, inp))
    return parts, encoded


def fwa_goal(task: TaskSpec) -> str:
    """The goal text: question, input file names and the output format (our wording, FWA's sections)."""
    names = "\n".join(f"- {i.name}" for i in task.inputs) or "(none: answer from the question alone)"
    return template("strategy_fieldworkarena_goal").format(query=task.query, input_names=names,
                                                           output_instruction=output_instruction(task))


def build_fieldworkarena(ctx: StrategyContext, task: TaskSpec) -> list[Prompt]:
    require_inputs(task)
    parts, encoded = media_parts_fwa(ctx, task)
    messages = [{"role": "system", "content": template("strategy_fieldworkarena")},
                {"role": "user", "content": [text_part(fwa_goal(task)), *parts]}]
    return [Prompt(messages, encoded, max_tokens=ctx.params.get("max_tokens"))]


def parse_text_answer(task: TaskSpec, text: str) -> tuple[dict[str, Any], str | None, str | None]:
    """``{"answer": text}``; for JSON tasks also ``"json"``, or error kind ``malformed_json`` when none parses."""
    parsed: dict[str, Any] = {"answer": text.strip()}
    if (task.output_format or "").lower() == "json":
        value = extract_json(text)
        if value is None:
            return parsed, "malformed_json", "the task asks for JSON and the reply holds none that parses"
        parsed["json"] = value
    return parsed, None, None


# -- industryeqa and blind ---------------------------------------------------------------------

_EQA_OBJECT = re.compile(r"\{[^{]*?\"direct_answer\"[^{]*?\"reasoning_answer\"[^{]*?\}", re.DOTALL)
_FENCED_JSON = re.compile(r"```json\s*(.*?)```", re.DOTALL | re.IGNORECASE)


def parse_eqa_answer(text: str) -> tuple[dict[str, Any], str | None, str | None]:
    """IndustryEQA's answer parsing (benchmarks.md §2.2).

    A fenced ```json block, else a brace-delimited object holding ``"direct_answer"`` then
    ``"reasoning_answer"`` with no nested brace. Failure gives an empty direct answer, a fixed
    "failed to parse" reasoning answer and error kind ``malformed_json``.
    Returns (parsed with ``answer``, ``direct_answer``, ``reasoning_answer``; error kind; message).
    """
    candidates = [m.group(1) for m in _FENCED_JSON.finditer(text)] + [m.group(0) for m in _EQA_OBJECT.finditer(text)]
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(value, dict) and "direct_answer" in value:
            direct = "" if value.get("direct_answer") is None else str(value.get("direct_answer"))
            reasoning = "" if value.get("reasoning_answer") is None else str(value.get("reasoning_answer"))
            return {"answer": direct, "direct_answer": direct, "reasoning_answer": reasoning}, None, None
    return ({"answer": "", "direct_answer": "", "reasoning_answer": EQA_PARSE_FAILED}, "malformed_json",
            "the reply holds no JSON object with direct_answer and reasoning_answer")


def build_industryeqa(ctx: StrategyContext, task: TaskSpec) -> list[Prompt]:
    require_inputs(task)
    n = int(ctx.param("frames", 30))
    side = int(ctx.param("max_side", EQA_SIDE))
    detail = ctx.param("detail", "low")
    parts: list[dict[str, Any]] = [text_part(template("strategy_industryeqa").format(query=task.query))]
    encoded: list[EncodedImage] = []
    for inp in task.inputs:
        if inp.kind == "video":
            seconds = _video_seconds(ctx, inp)
            try:
                first, last, _, _ = sampling.span_of(seconds, inp.start_s, inp.end_s)
            except ValueError as exc:
                raise StrategyError("media_error", f"{inp.name}: {exc}") from None
            for index in sampling.uniform_indices(first, last, n):
                image = encode_frame(ctx, inp, index, max_side=side, quality=EQA_QUALITY)
                parts.append(image_part(image, detail))
                encoded.append(image)
        elif inp.kind == "image":
            image = encode_frame(ctx, inp, 0, max_side=side, quality=EQA_QUALITY)
            parts.append(image_part(image, detail))
            encoded.append(image)
        elif inp.kind == "document":
            parts.append(document_part(ctx, inp))
    return [Prompt([{"role": "user", "content": parts}], encoded, max_tokens=ctx.params.get("max_tokens"))]


def build_blind(ctx: StrategyContext, task: TaskSpec) -> list[Prompt]:
    text = template("strategy_blind").format(query=task.query)
    return [Prompt([{"role": "user", "content": text}], [], max_tokens=ctx.params.get("max_tokens"))]


def build_blind_text(ctx: StrategyContext, task: TaskSpec) -> list[Prompt]:
    """The question alone as one plain-text user message (no content parts, so text-only servers read it)."""
    text = template("strategy_blind_text").format(query=task.query, output_instruction=output_instruction(task))
    return [Prompt([{"role": "user", "content": text}], [], max_tokens=ctx.params.get("max_tokens"))]


def single_request(build: Callable[[StrategyContext, TaskSpec], list[Prompt]],
                   parse: Callable[[TaskSpec, str], tuple[dict[str, Any], str | None, str | None]]
                   ) -> Callable[[StrategyContext, TaskSpec, Ask], StrategyOutcome]:
    """`execute` of a strategy that sends one request and parses its text."""
    def execute(ctx: StrategyContext, task: TaskSpec, ask: Ask) -> StrategyOutcome:
        prompt = build(ctx, task)[0]
        result = ask(prompt)
        parsed, kind, message = parse(task, result.text)
        return StrategyOutcome(result.text, parsed, kind, message)
    return execute


# -- chunked -----------------------------------------------------------------------------------


def _chunk_prompts(ctx: StrategyContext, task: TaskSpec) -> list[tuple[TaskInputSpec, float, float, Prompt]]:
    chunk_s = float(ctx.param("chunk_s", 30.0))
    spf = float(ctx.param("seconds_per_frame", 1.0))
    side = ctx.param("max_side", ctx.profile.longest_image_side)
    detail = ctx.param("detail", ctx.profile.image_detail)
    out = []
    for inp in task.inputs:
        if inp.kind != "video":
            continue
        seconds = _video_seconds(ctx, inp)
        try:
            pieces = sampling.chunks(seconds, start_s=inp.start_s, end_s=inp.end_s, chunk_s=chunk_s,
                                     seconds_per_frame=spf)
        except ValueError as exc:
            raise StrategyError("media_error", f"{inp.name}: {exc}") from None
        for start, end, frames in pieces:
            system = template("strategy_chunked_describe").format(
                video_name=inp.name, chunk_start=sampling.hhmmss(start), chunk_end=sampling.hhmmss(end),
                seconds_per_frame=spf, query=task.query)
            parts, encoded = timestamped_frames(ctx, inp, frames, detail=detail, max_side=side, quality=CHUNK_QUALITY)
            prompt = Prompt([{"role": "system", "content": system}, {"role": "user", "content": parts}], encoded,
                            purpose=f"describe {inp.name} {sampling.hhmmss(start)}-{sampling.hhmmss(end)}",
                            max_tokens=ctx.params.get("max_tokens"))
            out.append((inp, start, end, prompt))
    return out


def _chunked_final(ctx: StrategyContext, task: TaskSpec, descriptions: list[tuple[TaskInputSpec, float, float, str]]
                   ) -> Prompt:
    parts, encoded = media_parts_fwa(ctx, task, videos=False)
    by_video: dict[str, list[str]] = {}
    for inp, start, end, text in descriptions:
        by_video.setdefault(inp.name, []).append(f"[{sampling.hhmmss(start)}-{sampling.hhmmss(end)}] {text.strip()}")
    video_parts = [text_part(f"Descriptions of {name}:\n" + "\n".join(lines)) for name, lines in by_video.items()]
    intro = template("strategy_chunked_answer").format(chunk_s=float(ctx.param("chunk_s", 30.0)))
    messages = [{"role": "system", "content": template("strategy_fieldworkarena") + "\n" + intro},
                {"role": "user", "content": [text_part(fwa_goal(task)), *video_parts, *parts]}]
    return Prompt(messages, encoded, max_tokens=ctx.params.get("max_tokens"))


def build_chunked(ctx: StrategyContext, task: TaskSpec) -> list[Prompt]:
    require_inputs(task)
    chunk_prompts = _chunk_prompts(ctx, task)
    return [p for _, _, _, p in chunk_prompts] or [_chunked_final(ctx, task, [])]


def execute_chunked(ctx: StrategyContext, task: TaskSpec, ask: Ask) -> StrategyOutcome:
    require_inputs(task)
    descriptions = []
    trace = []
    for inp, start, end, prompt in _chunk_prompts(ctx, task):
        result = ask(prompt)
        descriptions.append((inp, start, end, result.text))
        trace.append({"step": prompt.purpose, "frames": len(prompt.images), "text": result.text})
    final = _chunked_final(ctx, task, descriptions)
    result = ask(final)
    parsed, kind, message = parse_text_answer(task, result.text)
    return StrategyOutcome(result.text, parsed, kind, message, trace)


# -- acceptability -----------------------------------------------------------------------------


def _rating_rules(ctx: StrategyContext, task: TaskSpec) -> tuple[list[str], list[dict[str, Any]]]:
    reasons = task.extra.get("reasons")
    fields = task.extra.get("fields")
    set_id = task.extra.get("rating_set_id")
    if (reasons is None or fields is None) and set_id:
        with ctx.project.read() as s:
            rating_set = s.get(RatingSet, set_id) or s.scalars(select(RatingSet).where(RatingSet.name == set_id)).first()
        if rating_set is not None:
            reasons = rating_set.reasons if reasons is None else reasons
            fields = rating_set.fields if fields is None else fields
    return list(reasons or []), [f if isinstance(f, dict) else {"name": str(f)} for f in (fields or [])]


def build_acceptability(ctx: StrategyContext, task: TaskSpec) -> list[Prompt]:
    require_inputs(task)
    item = next((i for i in task.inputs if i.kind in ("image", "video")), None)
    if item is None:
        raise StrategyError("missing_media", f"task {task.label}: acceptability needs a photo or a video frame")
    index = 0
    if item.kind == "video" and item.start_s is not None:
        seconds = _video_seconds(ctx, item)
        index, _, _, _ = sampling.span_of(seconds, item.start_s, None)
    reasons, fields = _rating_rules(ctx, task)
    describe = [f"{f.get('name')}" + (f" ({f['unit']})" if f.get("unit") else "") for f in fields]
    text = template("strategy_acceptability").format(
        requirement=task.query, reasons="; ".join(reasons) or "(none listed)", fields="; ".join(describe) or "(none)")
    image = encode_frame(ctx, item, index, max_side=ctx.param("max_side", ctx.profile.longest_image_side),
                    quality=FWA_JPEG_QUALITY)
    detail = ctx.param("detail", "high")
    json_mode = {"type": "json_object"} if ctx.profile.capabilities.json_mode else None
    return [Prompt([{"role": "user", "content": [text_part(text), image_part(image, detail)]}], [image],
                   response_format=json_mode, max_tokens=ctx.params.get("max_tokens"))]


def parse_acceptability(task: TaskSpec, text: str) -> tuple[dict[str, Any], str | None, str | None]:
    """``{"answer": verdict, "verdict", "reasons", "fields"}``; verdict in accept, reject, unsure.

    A reply without a JSON object holding a verdict gives error kind ``malformed_json`` (verdict None).
    """
    value = extract_json(text)
    if not isinstance(value, dict) or "verdict" not in value:
        return ({"answer": None, "verdict": None, "reasons": [], "fields": {}}, "malformed_json",
                "the reply holds no JSON object with a verdict")
    verdict = str(value.get("verdict") or "").strip().lower()
    verdict = verdict if verdict in ("accept", "reject", "unsure") else verdict or None
    reasons = value.get("reasons") if isinstance(value.get("reasons"), list) else []
    fields = value.get("fields") if isinstance(value.get("fields"), dict) else {}
    return {"answer": verdict, "verdict": verdict, "reasons": reasons, "fields": fields}, None, None


BUILTIN: tuple[Strategy, ...] = (
    Strategy.single("fieldworkarena", "1", "FieldWorkArena: 1 frame/s up to about 30 frames with timestamps, "
                    "photos, documents as text; images at full detail", build_fieldworkarena, parse_text_answer,
                    ("strategy_fieldworkarena", "strategy_fieldworkarena_goal")),
    Strategy.single("industryeqa", "1", "IndustryEQA: N uniform frames (default 30), longest side 768, JPEG 85, "
                    "JSON with direct_answer and reasoning_answer", build_industryeqa,
                    lambda task, text: parse_eqa_answer(text), ("strategy_industryeqa",)),
    Strategy.single("blind", "1", "The question alone, no media (IndustryEQA's blind baseline)", build_blind,
                    lambda task, text: parse_eqa_answer(text), ("strategy_blind",)),
    Strategy.single("blind-text", "1", "The question alone, no media; the reply is the answer as plain text, "
                    "read as FieldWorkArena answers are (JSON where the task asks for it)", build_blind_text,
                    parse_text_answer, ("strategy_blind_text",)),
    Strategy("chunked", "1", "Long video: 30 s chunks at 1 frame/s described one by one, then one answer "
                      "from the descriptions", build_chunked, execute_chunked,
                      ("strategy_chunked_describe", "strategy_chunked_answer", "strategy_fieldworkarena",
                       "strategy_fieldworkarena_goal")),
    Strategy.single("acceptability", "1", "One photo or video frame: JSON with verdict, reasons and documentation "
                    "fields", build_acceptability, parse_acceptability, ("strategy_acceptability",)),
)
"""The strategies that reproduce the benchmarks' prompts (the agent is in ``agent.py``)."""
