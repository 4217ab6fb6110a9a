"""OpenEQA (Meta): embodied questions over videos of rooms, scored by LLM-Match.

Its tasks come as the question JSON (``tasks/formats/openeqa.py``), its answers as its results JSON. Its
questions are sent as IndustryEQA's are (that benchmark grew out of this one; its strategies and default
are IndustryEQA's). Only a judge scores its answers (``llm-match``, with its own prompt: marks 1-5 as
100 x (mark - 1) / 4). Its evaluator stops at a failed judge call and has no number for it; fieldstudio
counts such an answer as the lowest mark, 0, so that failing calls never raise the figure (§3.2, §3.4).
"""

from __future__ import annotations

from collections.abc import Sequence

from fieldstudio.benchmarks import industryeqa
from fieldstudio.benchmarks.declaration import Benchmark, OfficialFigure, OfficialItem, OfficialLine, UnscoredRule

__all__ = ["DECLARATION", "official_figure"]


def official_figure(items: Sequence[OfficialItem], scorer: str, rule: UnscoredRule) -> OfficialFigure | None:
    """OpenEQA's final score over one source's answered questions, as ``evaluate-predictions.py --force`` prints
    it: the mean of 100 x (clip(mark, 1, 5) - 1) / 4 over the questions of the results file (LLM-Match's values
    are already on that scale), printed with one decimal ("final score: 52.0"); a question without a score
    counts as ``rule`` says (the lowest mark: the script stops at a failed judge call). None when nothing is
    answered."""
    if not items:
        return None
    values = [(rule.counts_as or 0.0) if it.value is None else min(100.0, max(0.0, float(it.value))) for it in items]
    mean = sum(values) / len(values)
    notes = ()
    unscored = sum(1 for it in items if it.value is None)
    if unscored:
        notes = (f"{unscored} answered question(s) without a score count as the lowest mark (0)",)
    return OfficialFigure("OpenEQA", "final score", mean, f"{mean:.1f}", len(values),
                          "evaluate-predictions.py --force: mean LLM-Match over the answered questions",
                          (OfficialLine("evaluate-predictions.py", "final score",
                                        {"questions": len(values), "final score": f"{mean:.1f}",
                                         "mean": round(mean, 4)}),), notes)

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
    official_aggregation=official_figure,
)
"""OpenEQA's declaration."""
