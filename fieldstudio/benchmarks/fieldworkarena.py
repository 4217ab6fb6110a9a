"""FieldWorkArena (Fujitsu Research): factory, warehouse and retail tasks over photos, videos and manuals.

Its tasks come as GreenAgent JSON files (``tasks/formats/fieldworkarena.py``), its answers as run logs.
A task is sent as its agent sends it: 1 frame per second up to about 30 frames with timestamps, photos,
documents as text (``fieldworkarena`` strategy; ``chunked`` and ``agent`` are its other paths, benchmarks.md
§1.8-1.9). Its evaluator asks a judge with its own prompts (``fwa-official``); fieldstudio's judge-free
matchers (``fs-match``) score what they can prove without one. Its figure divides by every task of the
log: a failed or empty judge reply scores 0 (§1.4, §1.6).
"""

from __future__ import annotations

from fieldstudio.benchmarks.declaration import Benchmark, UnscoredRule

__all__ = ["DECLARATION"]

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
)
"""FieldWorkArena's declaration."""
