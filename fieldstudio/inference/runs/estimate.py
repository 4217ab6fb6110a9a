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

from fieldstudio.core import costs
from fieldstudio.inference.inputs import TaskSpec, load_tasks
from fieldstudio.inference.profiles import ModelProfile
from fieldstudio.inference.strategies import get_strategy
from fieldstudio.inference.strategies.base import DEFAULT_COMPLETION_TOKENS, Request, RequestContext, fitted_size
from fieldstudio.inference.strategies.fieldworkarena import fwa_frame_count
from fieldstudio.store.models import Answer, DocumentPage, Run
from fieldstudio.store.models import ModelProfile as ProfileRow
from fieldstudio.store.project import Project

#: Characters per token for English prompt text (OpenAI's rule of thumb: one token is about 4 characters).
CHARS_PER_TOKEN = 4
#: Finished answers with usage needed before the history is trusted over the heuristic.
MIN_HISTORY = 3


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
    """The requests `strategy` is expected to make for `task` (its ``Strategy.requests``: frame counts by the
    strategy's own rule on the media's stored duration, benchmarks.md §1.8, §2.3); empty when its media is
    missing (for a strategy that sends media) or an input was rejected at import: the run refuses it.
    Raises StrategyError for an unknown strategy."""
    chosen = get_strategy(strategy)
    if task.rejected_inputs or (task.missing_inputs and chosen.needs_media):
        return []
    return chosen.requests(task, RequestContext(profile, params, doc_chars, vision))


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
    approximate = get_strategy(strategy).approximate
    params = dict(params or {})
    per_request_out = DEFAULT_COMPLETION_TOKENS if completion_tokens is None else int(completion_tokens)
    tasks = load_tasks(project, list(task_ids)) if task_ids else []
    docs = _doc_chars(project, tasks)
    est = RunEstimate(profile.name, tasks=len(tasks), approximate=approximate)
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


def describe(estimates: Sequence[RunEstimate], *, as_batch: bool = False) -> str:
    """What a person reads before Start: per profile and in total, requests, images, tokens and cost, with the
    basis of each figure (earlier answers, or the heuristic) and, for a provider batch, the price it assumes."""
    lines = []
    for e in estimates:
        basis = (f"from {e.history_answers} earlier answers" if e.basis == "history"
                 else f"≈ 4 characters per token, OpenAI image rule, {DEFAULT_COMPLETION_TOKENS} "
                      "completion tokens per request")
        missing = f", {e.tasks_missing_media} without their media (no request)" if e.tasks_missing_media else ""
        lines.append(f"{e.profile_name}: {e.tasks} task(s){missing} → {'≈ ' if e.approximate else ''}"
                     f"{e.requests} request(s), {e.images} image(s), ≈ {e.prompt_tokens:,} in / "
                     f"{e.completion_tokens:,} out tokens, ≈ {costs.amount_text(e.cost_usd)} ({basis})")
    total = combine(estimates)
    if len(estimates) > 1:
        lines.append(f"Total: {total.requests} request(s), ≈ {costs.amount_text(total.cost_usd, total.cost_complete)}")
    if any(e.cost_usd is None for e in estimates):
        lines.append("A profile without prices has an unknown cost (?).")
    text = "Estimate before starting — " + "\n".join(lines)
    if as_batch:
        text += "\nCosts at the batch price (the profile's batch discount; unknown without one)."
    return text


__all__ = ["DEFAULT_COMPLETION_TOKENS", "Request", "RunEstimate", "EstimateTotal", "image_tokens", "text_tokens", "fitted_size",
           "fwa_frame_count", "task_requests", "history", "estimate_run", "price", "combine", "describe"]
