"""The ``acceptability`` prompt strategy: is this photo or video frame acceptable proof of work, and what does it
document? (benchmarks.md §4.1-4.2)

One photo or video frame (the input's start time for a video) and the requirement, with the rating
set's reasons and documentation fields; the reply is JSON with a verdict (accept, reject, unsure), the
reasons and the fields, read by the ``acceptability`` and ``documentation`` scorers.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from fieldstudio.core.matchers import extract_json
from fieldstudio.inference import sampling
from fieldstudio.inference.inputs import TaskSpec
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
    encode_frame,
    image_part,
    input_size,
    prompt_chars,
    require_inputs,
    template,
    text_part,
    video_seconds,
)
from fieldstudio.inference.strategies.fieldworkarena import FWA_JPEG_QUALITY
from fieldstudio.store.models import RatingSet

TEMPLATES = ("strategy_acceptability",)
"""The templates its one request carries."""


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


def _item(task: TaskSpec):  # noqa: ANN202 - TaskInputSpec | None
    """The input judged: the first photo or video."""
    return next((i for i in task.inputs if i.kind in ("image", "video")), None)


def build_acceptability(ctx: StrategyContext, task: TaskSpec) -> list[Prompt]:
    """The one request: the requirement with the reasons and fields to report, then the picture."""
    require_inputs(task)
    item = _item(task)
    if item is None:
        raise StrategyError("missing_media", f"task {task.label}: acceptability needs a photo or a video frame")
    index = 0
    if item.kind == "video" and item.start_s is not None:
        seconds = video_seconds(ctx, item)
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


def parse_acceptability(task: TaskSpec, text: str) -> ParseResult:
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


def requests_acceptability(task: TaskSpec, rctx: RequestContext) -> list[Request]:
    """One request with one picture; none when the task has no photo or video (the run refuses it)."""
    item = _item(task)
    if item is None:
        return []
    side = rctx.param("max_side", rctx.profile.longest_image_side)
    return [Request(prompt_chars(task, TEMPLATES), [input_size(item, side)], rctx.param("detail", "high"))]


ACCEPTABILITY = Strategy.single(
    "acceptability", "1", "One photo or video frame: JSON with verdict, reasons and documentation fields",
    build_acceptability, parse_acceptability, requests_acceptability, templates=TEMPLATES,
    parameters=(MAX_SIDE, DETAIL, MAX_TOKENS))
"""The proof-of-work strategy."""
