"""OpenEQA (Meta): embodied questions over videos of rooms, scored by LLM-Match.

Its tasks come as the question JSON (``tasks/formats/openeqa.py``), its answers as its results JSON. Its
questions are sent as IndustryEQA's are (that benchmark grew out of this one; its strategies and default
are IndustryEQA's). Only a judge scores its answers (``llm-match``, with its own prompt: marks 1-5 as
100 x (mark - 1) / 4). Its evaluator stops at a failed judge call and has no number for it; fieldstudio
counts such an answer as the lowest mark, 0, so that failing calls never raise the figure (§3.2, §3.4).
"""

from __future__ import annotations

from fieldstudio.benchmarks import industryeqa
from fieldstudio.benchmarks.declaration import Benchmark, UnscoredRule

__all__ = ["DECLARATION"]

DECLARATION = Benchmark(
    name="openeqa",
    title="OpenEQA",
    sources=("openeqa",),
    task_format="openeqa",
    answer_format="openeqa-results",
    format_choice="openeqa",
    strategies=industryeqa.DECLARATION.strategies,
    default_strategy=industryeqa.DECLARATION.default_strategy,
    scorers=("llm-match", "llm-match+fs-prompt"),
    official_scorer="llm-match",
    judge_free_scorer=None,
    unscored=UnscoredRule(0.0, "unscored, failed and missing answers count as the lowest mark (0): OpenEQA's "
                               "evaluator stops at a failed judge call and gives no number for it"),
    description="embodied questions over videos of rooms, marked 1-5 by a judge",
)
"""OpenEQA's declaration."""
