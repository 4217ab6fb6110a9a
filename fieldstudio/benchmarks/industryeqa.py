"""IndustryEQA: questions about warehouse videos, answered with a direct and a reasoning answer.

Its tasks come as one annotation JSON file (``tasks/formats/industryeqa.py``), its answers as the
baselines' JSON. A task is sent with N uniform frames and asks for JSON with both answers
(``industryeqa`` strategy; ``blind`` is its baseline without media, benchmarks.md §2.2-2.3). Only a judge
scores its answers (``eqa-direct``, ``eqa-reasoning``, with its own prompts). Its ``direct_match.py`` drops an
item whose judge call failed, so its figure is the mean over the scored items (§2.4-2.5).
"""

from __future__ import annotations

from fieldstudio.benchmarks.declaration import Benchmark, UnscoredRule

__all__ = ["DECLARATION"]

DECLARATION = Benchmark(
    name="industryeqa",
    title="IndustryEQA",
    sources=("industryeqa",),
    task_format="industryeqa",
    answer_format="industryeqa-answers",
    format_choice="industryeqa",
    strategies=("industryeqa", "blind"),
    default_strategy="industryeqa",
    scorers=("eqa-direct", "eqa-reasoning", "eqa-direct+fs-prompt", "eqa-reasoning+fs-prompt"),
    official_scorer="eqa-direct",
    judge_free_scorer=None,
    unscored=UnscoredRule(None, "unscored items are dropped, as IndustryEQA's direct_match.py drops an item whose "
                                "judge call failed: the headline is the mean over the scored items"),
    description="questions about warehouse videos with a direct and a reasoning answer",
)
"""IndustryEQA's declaration."""
