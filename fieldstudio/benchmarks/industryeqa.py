"""IndustryEQA: questions about warehouse videos, answered with a direct and a reasoning answer.

Its tasks come as one annotation JSON file (``tasks/formats/industryeqa.py``), its answers as the
baselines' JSON. A task is sent with N uniform frames and asks for JSON with both answers
(``industryeqa`` strategy; ``blind`` is its baseline without media, benchmarks.md §2.2-2.3). Only a judge
scores its answers (``eqa-direct``, ``eqa-reasoning``, with its own prompts). Its ``direct_match.py`` drops an
item whose judge call failed, so its figure is the mean over the scored items (§2.4-2.5).
"""

from __future__ import annotations

from collections.abc import Sequence

from fieldstudio.benchmarks.declaration import Benchmark, OfficialFigure, OfficialItem, OfficialLine, UnscoredRule

__all__ = ["DECLARATION", "SMALL_MAX_ID", "official_figure"]

SMALL_MAX_ID = 971
"""Question ids 1-971 are the small warehouses, 972-1344 the large ones (benchmarks.md §2.1, §2.5)."""


def _size(task_id: str) -> str:
    try:
        return "Small" if int(task_id) <= SMALL_MAX_ID else "Large"
    except ValueError:
        return "Small"


def official_figure(items: Sequence[OfficialItem], scorer: str, rule: UnscoredRule) -> OfficialFigure | None:
    """IndustryEQA's averages over one source's answers as ``industryeqa/analyse/score2.py`` (at ad3ab29) prints
    them: one score file a warehouse size, so per size (Small: ids 1-971, Large: 972-1344) the mean percentage of
    the items in its score file, printed "{:.2f}%": "Avg Direct Score" over every scored item (eqa-direct),
    "Avg Reasoning Score" over the scored items with reasoning_status "1" (eqa-reasoning, which scores no other
    item). An item whose judge call failed is not in the score file (dropped, ``rule``). The figure's value is the
    size's mean when only one size is answered, else None (the script prints the two apart, never pooled).
    None when nothing is scored."""
    kind = "Reasoning" if "reasoning" in scorer else "Direct"
    by_size: dict[str, list[float]] = {}
    for it in items:
        if it.value is not None:
            by_size.setdefault(_size(it.task_id), []).append(float(it.value))
    if not by_size:
        return None
    count = "Reasoning Status=1 Count" if kind == "Reasoning" else "Total Samples"
    means = {size: sum(v) / len(v) for size, v in by_size.items()}
    order = [size for size in ("Small", "Large") if size in means]
    lines = tuple(OfficialLine("score2.py", size, {"Dataset": size, count: len(by_size[size]),
                                                   f"Avg {kind} Score": f"{means[size]:.2f}%"}) for size in order)
    printed = ", ".join(f"{size} {means[size]:.2f}%" for size in order)
    dropped = sum(1 for it in items if it.value is None)
    notes = (f"{dropped} answered item(s) without a score are not in the score file (dropped)",) if dropped else ()
    return OfficialFigure("IndustryEQA", f"Avg {kind} Score", means[order[0]] if len(order) == 1 else None,
                          printed, len(items), f"score2.py: mean percentage per warehouse size over the "
                          f"{'reasoning-subset ' if kind == 'Reasoning' else ''}items scored", lines, notes)

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
    official_aggregation=official_figure,
    aggregated_scorers=("eqa-direct", "eqa-reasoning", "eqa-direct+fs-prompt", "eqa-reasoning+fs-prompt"),
    official_scorers=("eqa-direct", "eqa-reasoning"),
)
"""IndustryEQA's declaration."""
