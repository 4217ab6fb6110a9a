"""The ``fieldworkarena`` prompt strategy: a task sent as FieldWorkArena's agent sends it (benchmarks.md §1.8).

Per video a notice and the video's name, then for each frame (1 per second, about 30 evenly spaced for
longer videos) ``timestamp: HH:MM:SS`` and the image; photos; documents as extracted text. Images go at
full detail, re-encoded as the icpr2026 code does (JPEG 90, minus 5 while above 250 000 bytes). The frame
choice, the goal text and the media parts are shared with the ``chunked`` and ``agent`` strategies.
"""

from __future__ import annotations

import math
from typing import Any

from fieldstudio.core.parameters import Parameter
from fieldstudio.inference import sampling
from fieldstudio.inference.inputs import EncodedImage, TaskInputSpec, TaskSpec
from fieldstudio.inference.strategies.base import (
    DETAIL,
    MAX_SIDE,
    MAX_TOKENS,
    TIMESTAMP_CHARS,
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
    output_instruction,
    parse_text_answer,
    prompt_chars,
    require_inputs,
    template,
    text_part,
    timestamped_frames,
    video_length,
    video_seconds,
)

#: FieldWorkArena icpr2026 re-encoding: start at quality 90, minus 5 while above 250 000 bytes.
FWA_JPEG_QUALITY = 90
FWA_MAX_JPEG_BYTES = 250_000
TEMPLATES = ("strategy_fieldworkarena", "strategy_fieldworkarena_goal")
"""The templates its one request carries."""

MAX_FRAMES = Parameter("max_frames", int, 30, 1, 500, label="Max frames",
                       help="at most this many frames per video, 1 per second for shorter ones (FieldWorkArena)")
"""The most frames sampled from one video."""
SECONDS_PER_FRAME = Parameter("seconds_per_frame", float, 1.0, 1, 60, label="Seconds per frame", unit=" s",
                              help="seconds between sampled frames")
"""Seconds between two sampled frames of a short video."""
SAMPLING = Parameter("sampling", str, sampling.SAMPLING_PTS, advanced=True,
                     choices=(sampling.SAMPLING_PTS, sampling.SAMPLING_FWA_METADATA, sampling.SAMPLING_UNIFORM),
                     help="frame choice: on the decoded timestamps (pts), or FieldWorkArena's own computation from "
                          "the container's frame count and rate (fwa-metadata), or max_frames frames at uniform "
                          "intervals (uniform: a sweep's frame budget, the prompt unchanged)")
"""How the frames of a video are chosen (``inference.sampling``)."""


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
        n = len(video_seconds(ctx, inp))
        return [f for f in frames if f.frame_index < n]
    seconds = video_seconds(ctx, inp)
    try:
        if method == sampling.SAMPLING_UNIFORM:
            return sampling.uniform_frames(seconds, max_frames, start_s=inp.start_s, end_s=inp.end_s)
        return sampling.fwa_indices(seconds, start_s=inp.start_s, end_s=inp.end_s,
                                    seconds_per_frame=seconds_per_frame, max_frames=max_frames)
    except ValueError as exc:
        raise StrategyError("media_error", f"{inp.name}: {exc}") from None


def sampled_frames(ctx: StrategyContext, inp: TaskInputSpec) -> list[sampling.SampledFrame]:
    """``video_frames`` with the run's ``seconds_per_frame``, ``max_frames`` and ``sampling`` parameters."""
    return video_frames(ctx, inp, seconds_per_frame=float(ctx.param("seconds_per_frame", 1.0)),
                        max_frames=int(ctx.param("max_frames", 30)),
                        method=ctx.param("sampling", sampling.SAMPLING_PTS))


def media_parts_fwa(ctx: StrategyContext, task: TaskSpec, *, videos: bool = True
                    ) -> tuple[list[dict[str, Any]], list[EncodedImage]]:
    """FieldWorkArena's parts for every input in order: videos as timestamped frames, photos, document text."""
    parts: list[dict[str, Any]] = []
    encoded: list[EncodedImage] = []
    detail = ctx.param("detail", "high")
    side = ctx.param("max_side", ctx.profile.longest_image_side)
    for inp in task.inputs:
        if inp.kind == "video" and videos:
            frames = sampled_frames(ctx, inp)
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
    """The one request: the system prompt, then the goal and every input's parts."""
    require_inputs(task)
    parts, encoded = media_parts_fwa(ctx, task)
    messages = [{"role": "system", "content": template("strategy_fieldworkarena")},
                {"role": "user", "content": [text_part(fwa_goal(task)), *parts]}]
    return [Prompt(messages, encoded, max_tokens=ctx.params.get("max_tokens"),
                   documents=document_sources(ctx, task.inputs))]


def fwa_frame_count(length_s: float | None, seconds_per_frame: float = 1.0, max_frames: int = 30) -> int:
    """Frames FieldWorkArena sampling takes from `length_s` seconds (`sampling.fwa_indices` without decoding):
    interval = max(seconds_per_frame, length / max_frames), count = ceil(length / interval), 1..max_frames.
    An unknown length counts `max_frames`."""
    if length_s is None:
        return max_frames
    if length_s <= 0:
        return 1
    interval = max(seconds_per_frame, length_s / max_frames)
    return max(1, min(max_frames, math.ceil(length_s / interval - 1e-9)))


def expected_frames(rctx: RequestContext, inp: TaskInputSpec) -> int:
    """``fwa_frame_count`` of a video input with the run's ``seconds_per_frame`` and ``max_frames`` (``max_frames``
    itself with uniform sampling)."""
    if rctx.param("sampling", sampling.SAMPLING_PTS) == sampling.SAMPLING_UNIFORM:
        return int(rctx.param("max_frames", 30))
    return fwa_frame_count(video_length(inp), float(rctx.param("seconds_per_frame", 1.0)),
                           int(rctx.param("max_frames", 30)))


def requests_fieldworkarena(task: TaskSpec, rctx: RequestContext) -> list[Request]:
    """One request with every input: 1 frame/s up to ``max_frames`` per video with a timestamp each,
    photos, documents' text (benchmarks.md §1.8)."""
    side = rctx.param("max_side", rctx.profile.longest_image_side)
    images: list[tuple[int, int]] = []
    chars = prompt_chars(task, TEMPLATES) + rctx.document_chars(task)
    for inp in task.inputs:
        if inp.kind == "video":
            frames = expected_frames(rctx, inp)
            images += [input_size(inp, side)] * frames
            chars += frames * TIMESTAMP_CHARS
        elif inp.kind == "image":
            images.append(input_size(inp, side))
    return [Request(chars, images, rctx.param("detail", "high"))]


FIELDWORKARENA = Strategy.single(
    "fieldworkarena", "1", "FieldWorkArena: 1 frame/s up to about 30 frames with timestamps, photos, documents as "
    "text; images at full detail", build_fieldworkarena, parse_text_answer, requests_fieldworkarena,
    templates=TEMPLATES, parameters=(MAX_FRAMES, SECONDS_PER_FRAME, MAX_SIDE, DETAIL, SAMPLING, MAX_TOKENS))
"""FieldWorkArena's strategy."""
