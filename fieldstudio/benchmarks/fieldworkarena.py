"""FieldWorkArena (Fujitsu Research): factory, warehouse and retail tasks over photos, videos and manuals.

Its tasks come as GreenAgent JSON files (``tasks/formats/fieldworkarena.py``), its answers as run logs.
A task is sent as its agent sends it: 1 frame per second up to about 30 frames with timestamps, photos,
documents as text (``fieldworkarena`` strategy; ``chunked`` and ``agent`` are its other paths, benchmarks.md
§1.8-1.9). Its evaluator asks a judge with its own prompts (``fwa-official``); fieldstudio's judge-free
matchers (``fs-match``) score what they can prove without one. Its figure divides by every task of the
log: a failed or empty judge reply scores 0 (§1.4, §1.6).
"""

from __future__ import annotations

from collections.abc import Sequence

from fieldstudio.benchmarks.declaration import Benchmark, OfficialFigure, OfficialItem, OfficialLine, UnscoredRule

__all__ = ["DECLARATION", "SUBCATEGORY_BUCKETS", "official_figure", "category_of", "breaks_detail_line"]

SUBCATEGORY_BUCKETS: dict[str, tuple[str, ...]] = {
    "01_abstract_documents": ("2.2.1",),
    "01_abstract_images": ("2.3.1.2.1", "2.3.2.1.1", "2.3.2.2.1"),
    "01_abstract_videos": ("2.3.1.2.2", "2.3.2.1.2", "2.3.2.2.2", "2.3.2.3.2"),
    "01_temporal_videos": ("2.2.3",),
    "01_spatiotemporal_images": ("2.3.3.1.1", "2.3.3.2.1"),
    "01_spatiotemporal_videos": ("2.3.3.1.2", "2.3.3.2.2"),
    "02_make_decision": ("2.4.1", "2.4.1.3", "2.4.2", "2.4.2.3"),
    "03_reporting": ("2.5.1",),
}
"""calc_category.py's bucket table (benchmarks.md §1.3): bucket -> taxonomy ids. A task's ``sub_category`` is
its bucket (``tasks.formats.fieldworkarena``)."""


def category_of(task_id: str) -> str:
    """The category as FWA_evaluator.py computes it: the id without its last five characters (``id[:-5]``),
    after a leading "fieldworkarena." ("2.1.2126" -> "2.1")."""
    tid = str(task_id)
    return tid.removeprefix("fieldworkarena.")[:-5]


def breaks_detail_line(item: OfficialItem) -> bool:
    """True when calc_category.py never reads the task: FWA_evaluator.py writes one detail line a task, and
    calc_category.py reads the file with Python's universal newlines, so a carriage return or a newline in the
    query or the ground truth splits the line before its score column (the part left has fewer than six
    fields and is skipped; the rest does not start with a task id)."""
    return any(ch in text for text in (item.query, item.reference) for ch in "\r\n")


def _record(values: Sequence[float]) -> dict[str, object]:
    """FWA_evaluator.py's record of a category: totalTaskNum, correctNum (score > 0.5), correctRate (a string
    with four decimals, as it stores it) and totalScore (the sum of the raw scores)."""
    correct = sum(1 for v in values if v > 0.5)
    return {"totalTaskNum": len(values), "correctNum": correct,
            "correctRate": f"{correct / len(values):.4f}" if values else "0.0000", "totalScore": float(sum(values))}


def official_figure(items: Sequence[OfficialItem], scorer: str, rule: UnscoredRule) -> OfficialFigure | None:
    """FieldWorkArena's figures over one source's answered tasks, as its tools compute them.

    FWA_evaluator.py (tools/evaluation at 8ebe8dae): over the tasks whose log has an id and an answer, per
    category (``id[:-5]``) and in "total": totalTaskNum, correctNum, correctRate, totalScore; an answered task
    without a score counts as ``rule`` says (0: its judge failed). calc_category.py over its detail file: per
    bucket, Task Count, Total Score (the number correct) and Average Score (their rate), every bucket printed,
    a task without a bucket left out, and a task whose query or ground truth holds a line break dropped
    (``breaks_detail_line``). The figure is the total's correctRate. None when nothing is answered."""
    if not items:
        return None
    values = [(rule.counts_as or 0.0) if it.value is None else float(it.value) for it in items]
    by_category: dict[str, list[float]] = {}
    for it, v in zip(items, values):
        by_category.setdefault(category_of(it.task_id), []).append(v)
    total = _record(values)
    lines = [OfficialLine("FWA_evaluator.py", "total", total)]
    lines += [OfficialLine("FWA_evaluator.py", c, _record(by_category[c])) for c in sorted(by_category)]
    dropped = [it for it in items if breaks_detail_line(it)]
    buckets: dict[str, list[bool]] = {b: [] for b in SUBCATEGORY_BUCKETS}
    for it, v in zip(items, values):
        if it.sub_category in buckets and not breaks_detail_line(it):
            buckets[it.sub_category].append(v > 0.5)
    for bucket in sorted(buckets):
        got = buckets[bucket]
        lines.append(OfficialLine("calc_category.py", bucket, {
            "Task Count": len(got), "Total Score": f"{sum(got):.4f}",
            "Average Score": f"{sum(got) / len(got):.4f}" if got else "0.0000"}))
    notes = (f"calc_category.py drops {len(dropped)} answered task(s) whose query or ground truth holds a line "
             "break (its detail line splits): " + ", ".join(it.task_id for it in dropped),) if dropped else ()
    unscored = sum(1 for it in items if it.value is None)
    if unscored:
        notes += (f"{unscored} answered task(s) without a score count 0, as a failed judge reply does",)
    return OfficialFigure("FieldWorkArena", "correctRate", total["correctNum"] / len(values), total["correctRate"],
                          len(values), "FWA_evaluator.py: correct (score > 0.5) over the answered tasks",
                          tuple(lines), notes)

DECLARATION = Benchmark(
    name="fieldworkarena",
    title="FieldWorkArena",
    sources=("fieldworkarena",),
    task_format="fieldworkarena",
    answer_format="fieldworkarena-log",
    format_choice="fieldworkarena",
    strategies=("fieldworkarena", "blind-text", "chunked", "agent"),
    default_strategy="fieldworkarena",
    scorers=("fwa-official", "fwa-logic+fs-prompt", "fs-match", "fwa-paper"),
    official_scorer="fwa-official",
    judge_free_scorer="fs-match",
    unscored=UnscoredRule(0.0, "unscored, failed and missing answers count 0, as FieldWorkArena's evaluator counts "
                               "a failed or empty judge reply"),
    task_folder="ground_truth/",
    answer_folder="run logs",
    description="factory, warehouse and retail questions over photos, videos and manuals",
    official_aggregation=official_figure,
)
"""FieldWorkArena's declaration."""
