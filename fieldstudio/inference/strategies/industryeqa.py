"""The ``industryeqa`` prompt strategy: a task sent as IndustryEQA's baselines send it (benchmarks.md §2.2-2.3).

The answering prompt, then N uniform frames (default 30) of each video, longest side 768, JPEG 85,
detail low, no timestamps; the reply is JSON with ``direct_answer`` and ``reasoning_answer``, parsed as
its code parses it (``parse_eqa_answer``, shared with the ``blind`` baseline).
"""

from __future__ import annotations

import json
import re
from typing import Any

from fieldstudio.core.parameters import Parameter
from fieldstudio.inference import sampling
from fieldstudio.inference.inputs import EncodedImage, TaskSpec
from fieldstudio.inference.strategies.base import (
    DETAIL,
    MAX_SIDE,
    MAX_TOKENS,
    ParseResult,
    Prompt,
    Request,
    RequestContext,
    Strategy,
    StrategyContext,
    StrategyError,
    document_part,
    document_sources,
    encode_frame,
    image_part,
    input_size,
    prompt_chars,
    require_inputs,
    template,
    text_part,
    video_seconds,
)

EQA_SIDE = 768
EQA_QUALITY = 85
EQA_PARSE_FAILED = "Failed to parse the model's answer."
TEMPLATES = ("strategy_industryeqa",)
"""The templates its one request carries."""

FRAMES = Parameter("frames", int, 30, 1, 500, label="Frames (uniform)", help="uniform frames per video (IndustryEQA)")
"""Frames taken at uniform intervals from each video."""

_EQA_OBJECT = re.compile(r"\{[^{]*?\"direct_answer\"[^{]*?\"reasoning_answer\"[^{]*?\}", re.DOTALL)
_FENCED_JSON = re.compile(r"```json\s*(.*?)```", re.DOTALL | re.IGNORECASE)


def parse_eqa_answer(text: str) -> ParseResult:
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


def parse_eqa_reply(task: TaskSpec, text: str) -> ParseResult:
    """``parse_eqa_answer`` as a strategy's ``parse`` (the task is not read)."""
    return parse_eqa_answer(text)


def build_industryeqa(ctx: StrategyContext, task: TaskSpec) -> list[Prompt]:
    """The one request: the answering prompt, then N uniform frames of each video, photos, documents' text."""
    require_inputs(task)
    n = int(ctx.param("frames", 30))
    side = int(ctx.param("max_side", EQA_SIDE))
    detail = ctx.param("detail", "low")
    parts: list[dict[str, Any]] = [text_part(template("strategy_industryeqa").format(query=task.query))]
    encoded: list[EncodedImage] = []
    for inp in task.inputs:
        if inp.kind == "video":
            seconds = video_seconds(ctx, inp)
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
    return [Prompt([{"role": "user", "content": parts}], encoded, max_tokens=ctx.params.get("max_tokens"),
                   documents=document_sources(ctx, task.inputs))]


def requests_industryeqa(task: TaskSpec, rctx: RequestContext) -> list[Request]:
    """One request: ``frames`` uniform frames per video (fewer when the video has fewer), photos,
    documents' text, at the longest side ``max_side`` (768) (benchmarks.md §2.3)."""
    n = int(rctx.param("frames", 30))
    side = int(rctx.param("max_side", EQA_SIDE))
    images: list[tuple[int, int]] = []
    for inp in task.inputs:
        if inp.kind == "video":
            count = min(n, inp.media.frame_count) if inp.media.frame_count else n
            images += [input_size(inp, side)] * count
        elif inp.kind == "image":
            images.append(input_size(inp, side))
    return [Request(prompt_chars(task, TEMPLATES) + rctx.document_chars(task), images, rctx.param("detail", "low"))]


INDUSTRYEQA = Strategy.single(
    "industryeqa", "1", "IndustryEQA: N uniform frames (default 30), longest side 768, JPEG 85, JSON with "
    "direct_answer and reasoning_answer", build_industryeqa, parse_eqa_reply, requests_industryeqa,
    templates=TEMPLATES, parameters=(FRAMES, MAX_SIDE, DETAIL, MAX_TOKENS))
"""IndustryEQA's strategy."""
