"""The question alone, without its media: ``blind`` (IndustryEQA's blind baseline, benchmarks.md §2.2) and
``blind-text`` (a plain-text reply read as FieldWorkArena answers are).

A task whose media is missing can still be asked with these (``needs_media`` False).
"""

from __future__ import annotations

from fieldstudio.inference.inputs import TaskSpec
from fieldstudio.inference.strategies.base import (
    MAX_TOKENS,
    Prompt,
    Request,
    RequestContext,
    Strategy,
    StrategyContext,
    output_instruction,
    parse_text_answer,
    prompt_chars,
    template,
)
from fieldstudio.inference.strategies.industryeqa import parse_eqa_reply


def build_blind(ctx: StrategyContext, task: TaskSpec) -> list[Prompt]:
    """The question in the answering prompt, asking for IndustryEQA's JSON, as one user message."""
    text = template("strategy_blind").format(query=task.query)
    return [Prompt([{"role": "user", "content": text}], [], max_tokens=ctx.params.get("max_tokens"))]


def build_blind_text(ctx: StrategyContext, task: TaskSpec) -> list[Prompt]:
    """The question alone as one plain-text user message (no content parts, so text-only servers read it)."""
    text = template("strategy_blind_text").format(query=task.query, output_instruction=output_instruction(task))
    return [Prompt([{"role": "user", "content": text}], [], max_tokens=ctx.params.get("max_tokens"))]


def _text_only(templates: tuple[str, ...]):  # noqa: ANN202 - a Strategy.requests
    def requests(task: TaskSpec, rctx: RequestContext) -> list[Request]:
        return [Request(prompt_chars(task, templates), [], "low")]
    requests.__doc__ = f"One request of text only: the question in {', '.join(templates)}."
    return requests


BLIND = Strategy.single(
    "blind", "1", "The question alone, no media (IndustryEQA's blind baseline)", build_blind, parse_eqa_reply,
    _text_only(("strategy_blind",)), templates=("strategy_blind",), parameters=(MAX_TOKENS,), needs_media=False)
"""IndustryEQA's blind baseline."""

BLIND_TEXT = Strategy.single(
    "blind-text", "1", "The question alone, no media; the reply is the answer as plain text, read as "
    "FieldWorkArena answers are (JSON where the task asks for it)", build_blind_text, parse_text_answer,
    _text_only(("strategy_blind_text",)), templates=("strategy_blind_text",), parameters=(MAX_TOKENS,),
    needs_media=False)
"""The question alone with a plain-text reply."""
