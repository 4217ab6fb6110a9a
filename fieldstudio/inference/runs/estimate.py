"""What a run will cost before it starts: requests, images, tokens and USD, per model profile.

Nothing is sent and no frame is decoded: the estimate reads the tasks, their media's size and duration
(from the project), the strategy's parameters and the profile's prices. Two bases:

* ``history``: the project holds finished answers of the same profile name and strategy with reported
  usage; their mean prompt and completion tokens per answer are used (the closest guess we have).
* ``heuristic``: text at about 4 characters per token, images at OpenAI's published vision token
  rule (`image_tokens`), and `DEFAULT_COMPLETION_TOKENS` completion tokens per request.

Tasks whose media is missing fail before any request and count as no request. Requests answered from
the response cache cost nothing; the estimate cannot know which will be, so it is an upper bound there.
Agent runs take a variable number of steps: `RunEstimate.approximate` is then True.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select

from fieldstudio.inference.inputs import TaskInputSpec, TaskSpec, load_tasks
from fieldstudio.inference.profiles import ModelProfile
from fieldstudio.inference.strategies import get_strategy
from fieldstudio.inference.strategies.base import EQA_SIDE, template
from fieldstudio.store.models import Answer, DocumentPage, Run
from fieldstudio.store.models import ModelProfile as ProfileRow
from fieldstudio.store.project import Project

#: Completion tokens assumed per request when the project has no history for the profile and strategy.
DEFAULT_COMPLETION_TOKENS = 200
#: Characters per token for English prompt text (OpenAI's rule of thumb: one token is about 4 characters).
CHARS_PER_TOKEN = 4
#: Finished answers with usage needed before the history is trusted over the heuristic.
MIN_HISTORY = 3

_TEMPLATES = {  # the templates a single request of each strategy carries
    "fieldworkarena": ("strategy_fieldworkarena", "strategy_fieldworkarena_goal"),
    "industryeqa": ("strategy_industryeqa",),
    "blind": ("strategy_blind",),
    "blind-text": ("strategy_blind_text",),
    "acceptability": ("strategy_acceptability",),
    "chunked": ("strategy_chunked_describe",),
    "agent": ("strategy_agent", "strategy_agent_tools_format"),
}
_BLIND = ("blind", "blind-text")  # the strategies that send the question without media
_TIMESTAMP_CHARS = 20  # "timestamp: 00:00:12" before each FieldWorkArena frame


def image_tokens(width: int, height: int, detail: str = "high") -> int:
    """Input tokens of one image by OpenAI's published rule for GPT-4o-class models.

    ``low``: 85. ``high`` / ``auto``: the image is scaled to fit in 2048 x 2048, then so that its shorter
    side is at most 768 px; it costs 85 + 170 per 512 px tile (ceil(w/512) * ceil(h/512)).
    Example: 1024 x 1024 -> 768 x 768 -> 4 tiles -> 765 tokens. Source: OpenAI API docs, "Images and
    vision: calculating costs". Other providers count differently; this is an estimate.
    """
    if detail == "low":
        return 85
    w, h = float(max(1, width)), float(max(1, height))
    scale = min(1.0, 2048 / max(w, h))
    w, h = w * scale, h * scale
    scale = min(1.0, 768 / min(w, h))
    w, h = w * scale, h * scale
    tiles = math.ceil(w / 512 - 1e-9) * math.ceil(h / 512 - 1e-9)
    return 85 + 170 * tiles


def text_tokens(chars: int) -> int:
    """Tokens of `chars` characters of text: ceil(chars / 4)."""
    return math.ceil(max(0, chars) / CHARS_PER_TOKEN)


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


@dataclass
class Request:
    """One request a task is expected to make: characters of text and the (w, h) of each image."""

    text_chars: int
    images: list[tuple[int, int]]
    detail: str


@dataclass
class RunEstimate:
    """The estimate for one profile over some tasks.

    Attributes:
        profile_name: the profile. tasks: tasks counted. tasks_missing_media: of those, tasks that fail
            before any request because an input is missing (no cost).
        requests: requests expected. images: images sent in them.
        prompt_tokens, completion_tokens: expected totals.
        cost_usd: (prompt x input price + completion x output price) / 1e6, USD; None when a price is unknown.
        basis: ``history`` (mean usage of `history_answers` earlier answers) or ``heuristic``.
        approximate: True when the number of requests itself is a guess (agent mode).
    """

    profile_name: str
    tasks: int = 0
    tasks_missing_media: int = 0
    requests: int = 0
    images: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = 0.0
    basis: str = "heuristic"
    history_answers: int = 0
    approximate: bool = False


def _video_length(inp: TaskInputSpec) -> float | None:
    duration = inp.media.duration_s if inp.media is not None else None
    end = inp.end_s if inp.end_s is not None else duration
    if end is None:
        return None
    return max(0.0, float(end) - float(inp.start_s or 0.0))


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


def _param(params: dict[str, Any], name: str, default: Any) -> Any:
    value = params.get(name)
    return default if value is None else value


def _doc_chars(project: Project, tasks: Sequence[TaskSpec]) -> dict[str, int]:
    ids = {i.media.id for t in tasks for i in t.inputs if i.kind == "document"}
    if not ids:
        return {}
    with project.read() as s:
        rows = s.execute(select(DocumentPage.media_id, func.sum(func.length(DocumentPage.text)))
                         .where(DocumentPage.media_id.in_(ids)).group_by(DocumentPage.media_id)).all()
    return {m: int(n or 0) for m, n in rows}


def task_requests(task: TaskSpec, strategy: str, profile: ModelProfile, params: dict[str, Any],
                  doc_chars: dict[str, int], vision: ModelProfile | None = None) -> list[Request]:
    """The requests `strategy` is expected to make for `task` (empty when its media is missing or an input
    was rejected at import: the run refuses it).

    Frame counts follow the strategies' rules on the media's stored duration (benchmarks.md §1.8, §2.3):
    fieldworkarena 1 frame/s up to `max_frames`; industryeqa `frames` uniform frames; chunked
    ceil(length / chunk_s) description requests plus one answer; agent one planning and one analysis
    request per input plus a final planning request.
    """
    if task.rejected_inputs or (task.missing_inputs and strategy not in _BLIND):
        return []
    base = len(task.query) + sum(len(template(t)) for t in _TEMPLATES.get(strategy, ()))
    spf = float(_param(params, "seconds_per_frame", 1.0))
    max_frames = int(_param(params, "max_frames", 30))
    docs = sum(doc_chars.get(i.media.id, 0) for i in task.inputs if i.kind == "document")
    if strategy in _BLIND:
        return [Request(base, [], "low")]
    if strategy == "industryeqa":
        n = int(_param(params, "frames", 30))
        side = int(_param(params, "max_side", EQA_SIDE))
        images: list[tuple[int, int]] = []
        for inp in task.inputs:
            if inp.kind == "video":
                count = min(n, inp.media.frame_count) if inp.media.frame_count else n
                images += [fitted_size(inp.media.width, inp.media.height, side)] * count
            elif inp.kind == "image":
                images.append(fitted_size(inp.media.width, inp.media.height, side))
        return [Request(base + docs, images, _param(params, "detail", "low"))]
    if strategy == "acceptability":
        item = next((i for i in task.inputs if i.kind in ("image", "video")), None)
        if item is None:
            return []
        side = _param(params, "max_side", profile.longest_image_side)
        return [Request(base, [fitted_size(item.media.width, item.media.height, side)],
                        _param(params, "detail", "high"))]
    if strategy == "chunked":
        side = _param(params, "max_side", profile.longest_image_side)
        detail = _param(params, "detail", profile.image_detail)
        chunk_s = float(_param(params, "chunk_s", 30.0))
        out: list[Request] = []
        for inp in task.inputs:
            if inp.kind != "video":
                continue
            length = _video_length(inp)
            size = fitted_size(inp.media.width, inp.media.height, side)
            chunks = 1 if not length else math.ceil(length / chunk_s - 1e-9)
            for k in range(chunks):
                piece = chunk_s if length is None else min(chunk_s, length - k * chunk_s)
                frames = max(1, math.ceil(piece / spf - 1e-9))
                out.append(Request(base + frames * _TIMESTAMP_CHARS, [size] * frames, detail))
        photos = [fitted_size(i.media.width, i.media.height, side) for i in task.inputs if i.kind == "image"]
        final = len(task.query) + len(template("strategy_chunked_answer")) + len(template("strategy_fieldworkarena"))
        out.append(Request(final + docs + 4 * DEFAULT_COMPLETION_TOKENS * (len(out)), photos, detail))
        return out
    if strategy == "agent":
        vision = vision or profile
        side = _param(params, "max_side", vision.longest_image_side)
        detail = _param(params, "detail", vision.image_detail)
        out = []
        for inp in task.inputs:
            out.append(Request(base, [], "low"))          # the planner chooses to analyse this input
            if inp.kind == "video":
                frames = fwa_frame_count(_video_length(inp), spf, max_frames)
                size = fitted_size(inp.media.width, inp.media.height, side)
                out.append(Request(len(task.query) + frames * _TIMESTAMP_CHARS, [size] * frames, detail))
            elif inp.kind == "image":
                out.append(Request(len(task.query), [fitted_size(inp.media.width, inp.media.height, side)], detail))
            else:
                out.append(Request(len(task.query) + doc_chars.get(inp.media.id, 0), [], detail))
        out.append(Request(base, [], "low"))              # the final send_msg_to_user
        return out
    # fieldworkarena and any strategy registered later: one request with every input
    side = _param(params, "max_side", profile.longest_image_side)
    images = []
    chars = base + docs
    for inp in task.inputs:
        if inp.kind == "video":
            frames = fwa_frame_count(_video_length(inp), spf, max_frames)
            images += [fitted_size(inp.media.width, inp.media.height, side)] * frames
            chars += frames * _TIMESTAMP_CHARS
        elif inp.kind == "image":
            images.append(fitted_size(inp.media.width, inp.media.height, side))
    return [Request(chars, images, _param(params, "detail", "high"))]


def history(project: Project, profile_name: str, strategy: str) -> tuple[int, float, float]:
    """(answers, mean prompt tokens, mean completion tokens) of the finished answers with reported usage of
    earlier runs of this profile name and strategy; (0, 0, 0) when there are none."""
    with project.read() as s:
        n, p, c = s.execute(
            select(func.count(Answer.id), func.avg(Answer.prompt_tokens), func.avg(Answer.completion_tokens))
            .join(Run, Answer.run_id == Run.id).join(ProfileRow, Run.profile_id == ProfileRow.id)
            .where(ProfileRow.name == profile_name, Run.strategy == strategy, Answer.error.is_(None),
                   Answer.from_cache.is_(False), Answer.prompt_tokens.is_not(None),
                   Answer.completion_tokens.is_not(None))).one()
    return int(n or 0), float(p or 0.0), float(c or 0.0)


def estimate_run(project: Project, profile: ModelProfile, task_ids: Sequence[str], strategy: str, *,
                 params: dict[str, Any] | None = None, vision_profile: ModelProfile | None = None,
                 completion_tokens: int | None = None, use_history: bool = True) -> RunEstimate:
    """Estimate requests, images, tokens and cost of running `profile` over `task_ids` with `strategy`.

    Args:
        params: the strategy parameters the run will use (frames, max_frames, max_side, detail...).
        completion_tokens: completion tokens assumed per request (default `DEFAULT_COMPLETION_TOKENS`).
        use_history: prefer the mean usage of earlier answers of this profile and strategy (see module doc).
    Returns:
        A RunEstimate; ``cost_usd`` is None when the profile has no input or output price.
    Raises:
        StrategyError for an unknown strategy, NotFound for an unknown task id.
    """
    get_strategy(strategy)
    params = dict(params or {})
    per_request_out = DEFAULT_COMPLETION_TOKENS if completion_tokens is None else int(completion_tokens)
    tasks = load_tasks(project, list(task_ids)) if task_ids else []
    docs = _doc_chars(project, tasks)
    est = RunEstimate(profile.name, tasks=len(tasks), approximate=strategy == "agent")
    answering = 0
    for task in tasks:
        requests = task_requests(task, strategy, profile, params, docs, vision_profile)
        if not requests:
            est.tasks_missing_media += 1
            continue
        answering += 1
        est.requests += len(requests)
        for r in requests:
            est.images += len(r.images)
            est.prompt_tokens += text_tokens(r.text_chars) + sum(image_tokens(w, h, r.detail) for w, h in r.images)
            est.completion_tokens += per_request_out
    if use_history and answering:
        n, mean_in, mean_out = history(project, profile.name, strategy)
        if n >= MIN_HISTORY:
            est.basis, est.history_answers = "history", n
            est.prompt_tokens = round(mean_in * answering)
            est.completion_tokens = round(mean_out * answering)
    est.cost_usd = price(profile, est.prompt_tokens, est.completion_tokens)
    return est


def price(profile: ModelProfile, prompt_tokens: int, completion_tokens: int) -> float | None:
    """USD for the tokens at the profile's prices (USD per million tokens); None when a price is unknown."""
    if profile.price_input_per_mtok is None or profile.price_output_per_mtok is None:
        return None
    return (prompt_tokens * profile.price_input_per_mtok + completion_tokens * profile.price_output_per_mtok) / 1e6


@dataclass
class EstimateTotal:
    """Estimates summed over profiles; ``cost_usd`` None when no profile has prices, ``cost_complete``
    False when some profile lacks them (the sum is then a lower bound)."""

    requests: int = 0
    images: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    cost_complete: bool = True
    approximate: bool = False


def combine(estimates: Iterable[RunEstimate]) -> EstimateTotal:
    """Sum several profiles' estimates."""
    total = EstimateTotal()
    for e in estimates:
        total.requests += e.requests
        total.images += e.images
        total.prompt_tokens += e.prompt_tokens
        total.completion_tokens += e.completion_tokens
        total.approximate |= e.approximate
        if e.cost_usd is None:
            total.cost_complete = False
        else:
            total.cost_usd = (total.cost_usd or 0.0) + e.cost_usd
    return total


__all__ = ["DEFAULT_COMPLETION_TOKENS", "RunEstimate", "EstimateTotal", "image_tokens", "text_tokens", "fitted_size",
           "fwa_frame_count", "task_requests", "history", "estimate_run", "price", "combine"]
