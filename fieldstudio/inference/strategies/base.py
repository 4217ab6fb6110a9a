"""Prompt strategies' shared building blocks: the Strategy type, prompts and outcomes, message parts, frame
encoding, plain-text answers, and what a strategy's cost estimate reads.

A strategy is a named, versioned way of turning a task into OpenAI chat requests, as a benchmark did;
each lives in its own module of this package and declares its templates, its parameters and how many
requests of what size a task makes (``requests``, read by ``inference.runs.estimate``).

The prompt wording is our own and lives in ``fieldstudio/resources/prompts/strategy_*.txt``. A strategy is executed
with an ``ask(prompt, profile=None) -> ChatResult`` callable supplied by the run queue (which adds the
cache, the cost and the request log); strategies never touch the database except to read inputs.
Tasks without media are sent as text. A change of wording or layout must bump the strategy's version.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from fieldstudio.core.errors import FieldstudioError, MediaError
from fieldstudio.core.matchers import extract_json
from fieldstudio.core.parameters import Parameter
from fieldstudio.core.paths import resources_dir
from fieldstudio.inference import sampling
from fieldstudio.inference.client import ChatResult
from fieldstudio.inference.inputs import EncodedImage, FrameEncoder, TaskInputSpec, TaskSpec, document_text
from fieldstudio.inference.profiles import ModelProfile
from fieldstudio.store.project import Project

#: Completion tokens assumed per request when nothing better is known (the estimate's heuristic).
DEFAULT_COMPLETION_TOKENS = 200
#: Characters of the "timestamp: 00:00:12" text sent before each timestamped frame.
TIMESTAMP_CHARS = 20

MAX_SIDE = Parameter("max_side", int, None, 1, 8192, label="Longest side", unit=" px",
                     help="longest side of each image sent; 0: the strategy's or profile's default")
"""The longest side of the images sent, in pixels (default: the strategy's own, else the profile's)."""
DETAIL = Parameter("detail", str, None, label="Image detail", choices=("auto", "low", "high"),
                   help="the detail each image is sent with (OpenAI's auto, low or high; default: the strategy's)")
"""The ``detail`` of each image part."""
MAX_TOKENS = Parameter("max_tokens", int, None, 1, None, advanced=True,
                       help="completion-token cap of each request (default: none sent, the endpoint's own)")
"""The completion-token cap sent with every request."""

ParseResult = tuple[dict[str, Any], str | None, str | None]
"""(parsed answer, error kind or None, message or None), as a strategy's ``parse`` returns it."""


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
        documents: for each document whose text in `messages` OCR read (some or all pages), where that text came
            from (``document_sources``); the request's trace entry states it. Not part of the cache key.
    """

    messages: list[dict[str, Any]]
    images: list[EncodedImage] = field(default_factory=list)
    purpose: str = "answer"
    max_tokens: int | None = None
    response_format: dict[str, Any] | None = None
    extra_body: dict[str, Any] | None = None
    documents: list[dict[str, Any]] = field(default_factory=list)


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


# -- what the cost estimate reads ----------------------------------------------------------------


@dataclass
class Request:
    """One request a task is expected to make: characters of text and the (w, h) of each image."""

    text_chars: int
    images: list[tuple[int, int]]
    detail: str


@dataclass(frozen=True)
class RequestContext:
    """What a strategy's ``requests`` reads besides the task (nothing is decoded or sent).

    Attributes:
        profile: the model profile the run asks; vision_profile: the agent's analysing profile (None: the same).
        params: the strategy parameters the run will use.
        doc_chars: characters of text of each document, by media id.
    """

    profile: ModelProfile
    params: Mapping[str, Any]
    doc_chars: Mapping[str, int]
    vision_profile: ModelProfile | None = None

    def param(self, name: str, default: Any) -> Any:
        """The parameter ``name``, or ``default`` when it is not given (None counts as not given)."""
        value = self.params.get(name)
        return default if value is None else value

    def document_chars(self, task: TaskSpec) -> int:
        """Characters of text of the task's document inputs."""
        return sum(self.doc_chars.get(i.media.id, 0) for i in task.inputs if i.kind == "document")


def prompt_chars(task: TaskSpec, templates: tuple[str, ...]) -> int:
    """Characters of the question and of ``templates`` (the text a request carries besides its media)."""
    return len(task.query) + sum(len(template(t)) for t in templates)


def fitted_size(width: int | None, height: int | None, max_side: int | None) -> tuple[int, int]:
    """(w, h) after shrinking so the longest side is at most `max_side` (as `media.images.fit_within`);
    an unknown size counts as `max_side` square (or 1024 square)."""
    if not width or not height:
        side = int(max_side or 1024)
        return side, side
    if not max_side or max(width, height) <= max_side:
        return int(width), int(height)
    scale = max_side / max(width, height)
    return max(1, round(width * scale)), max(1, round(height * scale))


def input_size(inp: TaskInputSpec, max_side: int | None) -> tuple[int, int]:
    """The (w, h) an input's pictures are sent at (``fitted_size`` of its media's stored size)."""
    return fitted_size(inp.media.width, inp.media.height, max_side)


def video_length(inp: TaskInputSpec) -> float | None:
    """Seconds of a video input's range (its end, else the media's stored duration, minus its start);
    None when unknown."""
    duration = inp.media.duration_s if inp.media is not None else None
    end = inp.end_s if inp.end_s is not None else duration
    if end is None:
        return None
    return max(0.0, float(end) - float(inp.start_s or 0.0))


# -- the strategy ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Strategy:
    """A named, versioned prompt strategy.

    ``build(ctx, task) -> list[Prompt]``: the first request(s), for a preview (single-request strategies:
    the only request). ``execute(ctx, task, ask) -> StrategyOutcome``: the whole exchange.
    ``requests(task, rctx) -> list[Request]``: the requests a task is expected to make, from the media's
    stored sizes and durations (the cost estimate; nothing decoded).
    ``templates``: the resource files whose text shapes the prompt (their hashes are stored with a run).
    ``parse(task, text) -> (parsed, error kind, message)``: set for strategies that send exactly one request,
    ``build(ctx, task)[0]``, and parse its reply (`single`); those can also be sent as a provider batch.
    ``parameters``: every parameter it reads (the Runs tab shows those not ``advanced``).
    ``needs_media``: False when the question is sent without its media (a task whose media is missing
    can still be asked). ``approximate``: True when the number of requests per task is a guess (the
    agent's steps).
    """

    name: str
    version: str
    description: str
    build: Callable[[StrategyContext, TaskSpec], list[Prompt]]
    execute: Callable[[StrategyContext, TaskSpec, Ask], StrategyOutcome]
    requests: Callable[[TaskSpec, RequestContext], list[Request]]
    templates: tuple[str, ...] = ()
    parse: Callable[[TaskSpec, str], ParseResult] | None = None
    parameters: tuple[Parameter, ...] = ()
    needs_media: bool = True
    approximate: bool = False

    @classmethod
    def single(cls, name: str, version: str, description: str,
               build: Callable[[StrategyContext, TaskSpec], list[Prompt]],
               parse: Callable[[TaskSpec, str], ParseResult],
               requests: Callable[[TaskSpec, RequestContext], list[Request]], **facts: Any) -> Strategy:
        """A strategy that sends its one request ``build(ctx, task)[0]`` and parses the reply's text;
        ``facts`` are the other fields (templates, parameters, needs_media)."""
        return cls(name, version, description, build, single_request(build, parse), requests, parse=parse, **facts)

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


def single_request(build: Callable[[StrategyContext, TaskSpec], list[Prompt]],
                   parse: Callable[[TaskSpec, str], ParseResult]
                   ) -> Callable[[StrategyContext, TaskSpec, Ask], StrategyOutcome]:
    """`execute` of a strategy that sends one request and parses its text."""
    def execute(ctx: StrategyContext, task: TaskSpec, ask: Ask) -> StrategyOutcome:
        prompt = build(ctx, task)[0]
        result = ask(prompt)
        parsed, kind, message = parse(task, result.text)
        return StrategyOutcome(result.text, parsed, kind, message)
    return execute


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


def video_seconds(ctx: StrategyContext, inp: TaskInputSpec):  # noqa: ANN201 - the encoder's frame times
    """The presentation time in seconds of every frame of a video input. Raises StrategyError(media_error)."""
    try:
        return ctx.encoder.seconds(inp.media)
    except MediaError as exc:
        raise StrategyError("media_error", str(exc)) from None


def encode_frame(ctx: StrategyContext, inp: TaskInputSpec, index: int, **kw: Any) -> EncodedImage:
    """Frame ``index`` of an input as a JPEG (``FrameEncoder.encode`` keywords). Raises StrategyError(media_error)."""
    try:
        return ctx.encoder.encode(inp.media, index, **kw)
    except (MediaError, IndexError) as exc:
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


def document_sources(ctx: StrategyContext, inputs: Sequence[TaskInputSpec]) -> list[dict[str, Any]]:
    """For each document input with pages OCR read: ``{"document": name, "media_id": id, "ocr_pages": [1-based],
    "ocr_engine": "rapidocr ..."}`` (the text sent of those pages is OCR's, not a text layer's)."""
    from fieldstudio.media.document_ocr import ocr_pages_of

    out = []
    for inp in inputs:
        if inp.kind == "document" and inp.media is not None:
            pages, engine = ocr_pages_of(ctx.project, inp.media.id)
            if pages:
                out.append({"document": inp.name, "media_id": inp.media.id, "ocr_pages": [p + 1 for p in pages],
                            "ocr_engine": engine})
    return out


def output_instruction(task: TaskSpec) -> str:
    """How the reply must be shaped: JSON for ``output_format == "json"`` tasks, plain text otherwise."""
    if (task.output_format or "").lower() == "json":
        return "Reply with a single JSON value (an object or a list) that parses as JSON, and nothing else."
    return "Reply in plain text with the answer only."


def parse_text_answer(task: TaskSpec, text: str) -> ParseResult:
    """``{"answer": text}``; for JSON tasks also ``"json"``, or error kind ``malformed_json`` when none parses."""
    parsed: dict[str, Any] = {"answer": text.strip()}
    if (task.output_format or "").lower() == "json":
        value = extract_json(text)
        if value is None:
            return parsed, "malformed_json", "the task asks for JSON and the reply holds none that parses"
        parsed["json"] = value
    return parsed, None, None
