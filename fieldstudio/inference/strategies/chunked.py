"""The ``chunked`` prompt strategy for long videos (benchmarks.md §1.8 "other paths").

Each video is cut into 30 s chunks sampled at 1 frame per second (JPEG 25, a timestamp before each
frame); each chunk is described in its own request, then one request answers the question from the
descriptions, with the photos and documents as FieldWorkArena sends them.
"""

from __future__ import annotations

import math

from fieldstudio.core.parameters import Parameter
from fieldstudio.inference import sampling
from fieldstudio.inference.inputs import TaskInputSpec, TaskSpec
from fieldstudio.inference.strategies.base import (
    DEFAULT_COMPLETION_TOKENS,
    DETAIL,
    MAX_SIDE,
    MAX_TOKENS,
    TIMESTAMP_CHARS,
    Ask,
    Prompt,
    Request,
    RequestContext,
    Strategy,
    StrategyContext,
    StrategyError,
    StrategyOutcome,
    input_size,
    parse_text_answer,
    prompt_chars,
    require_inputs,
    template,
    text_part,
    timestamped_frames,
    video_length,
    video_seconds,
)
from fieldstudio.inference.strategies.fieldworkarena import SECONDS_PER_FRAME, fwa_goal, media_parts_fwa

CHUNK_QUALITY = 25
CHUNK_S = Parameter("chunk_s", float, 30.0, 5, 600, label="Chunk length", unit=" s",
                    help="length of each described chunk (chunked)")
"""Seconds of video described in one request."""


def _chunk_prompts(ctx: StrategyContext, task: TaskSpec) -> list[tuple[TaskInputSpec, float, float, Prompt]]:
    chunk_s = float(ctx.param("chunk_s", 30.0))
    spf = float(ctx.param("seconds_per_frame", 1.0))
    side = ctx.param("max_side", ctx.profile.longest_image_side)
    detail = ctx.param("detail", ctx.profile.image_detail)
    out = []
    for inp in task.inputs:
        if inp.kind != "video":
            continue
        seconds = video_seconds(ctx, inp)
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
    """The description requests of every chunk (the answer request alone when the task has no video)."""
    require_inputs(task)
    chunk_prompts = _chunk_prompts(ctx, task)
    return [p for _, _, _, p in chunk_prompts] or [_chunked_final(ctx, task, [])]


def execute_chunked(ctx: StrategyContext, task: TaskSpec, ask: Ask) -> StrategyOutcome:
    """Describe every chunk, then answer from the descriptions; the trace keeps each description."""
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


def requests_chunked(task: TaskSpec, rctx: RequestContext) -> list[Request]:
    """ceil(length / chunk_s) description requests per video (1 frame per ``seconds_per_frame`` each, with
    its timestamp), then one answer request with the photos, the documents' text and the descriptions
    (``DEFAULT_COMPLETION_TOKENS`` tokens each, at about 4 characters per token)."""
    side = rctx.param("max_side", rctx.profile.longest_image_side)
    detail = rctx.param("detail", rctx.profile.image_detail)
    chunk_s = float(rctx.param("chunk_s", 30.0))
    spf = float(rctx.param("seconds_per_frame", 1.0))
    describe = prompt_chars(task, ("strategy_chunked_describe",))
    out: list[Request] = []
    for inp in task.inputs:
        if inp.kind != "video":
            continue
        length = video_length(inp)
        size = input_size(inp, side)
        chunks = 1 if not length else math.ceil(length / chunk_s - 1e-9)
        for k in range(chunks):
            piece = chunk_s if length is None else min(chunk_s, length - k * chunk_s)
            frames = max(1, math.ceil(piece / spf - 1e-9))
            out.append(Request(describe + frames * TIMESTAMP_CHARS, [size] * frames, detail))
    photos = [input_size(i, side) for i in task.inputs if i.kind == "image"]
    final = prompt_chars(task, ("strategy_chunked_answer", "strategy_fieldworkarena"))
    out.append(Request(final + rctx.document_chars(task) + 4 * DEFAULT_COMPLETION_TOKENS * (len(out)), photos, detail))
    return out


CHUNKED = Strategy(
    "chunked", "1", "Long video: 30 s chunks at 1 frame/s described one by one, then one answer from the descriptions",
    build_chunked, execute_chunked, requests_chunked,
    templates=("strategy_chunked_describe", "strategy_chunked_answer", "strategy_fieldworkarena",
               "strategy_fieldworkarena_goal"),
    parameters=(CHUNK_S, SECONDS_PER_FRAME, MAX_SIDE, DETAIL, MAX_TOKENS))
"""The long-video strategy."""
