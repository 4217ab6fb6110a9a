"""Your own tasks: written in the task editor (``Task.source`` "manual") or in a task CSV file ("csv").

They are sent as FieldWorkArena's tasks are, and scored by fieldstudio's judge-free matchers, which
read any question with a plain reference; no evaluator of another tool stands behind them, so an
unscored answer counts 0. The proof-of-work tasks of RealityBench's kind are among them: RealityBench
publishes no task file, answer file or evaluator (benchmarks.md §4), so such tasks are written here, sent
with the ``acceptability`` strategy and scored with the ``acceptability`` and ``documentation`` scorers.

A task whose source no benchmark declares is treated as one of these (``benchmarks.GENERAL``).
"""

from __future__ import annotations

from fieldstudio.benchmarks import fieldworkarena
from fieldstudio.benchmarks.declaration import Benchmark, UnscoredRule

__all__ = ["DECLARATION"]

DECLARATION = Benchmark(
    name="own-tasks",
    title="your own tasks",
    format_title="CSV",
    sources=("csv", "manual"),
    task_format="csv-tasks",
    answer_format="csv-answers",
    format_choice="csv",
    strategies=(fieldworkarena.DECLARATION.default_strategy, "acceptability"),
    default_strategy=fieldworkarena.DECLARATION.default_strategy,
    scorers=("acceptability", "documentation", "fs-tiou", "fs-distance", "fs-count", "fs-area"),
    official_scorer=None,
    judge_free_scorer=fieldworkarena.DECLARATION.judge_free_scorer,
    unscored=UnscoredRule(0.0, "unscored, failed and missing answers count 0"),
    description="tasks written by hand or in a CSV file, proof-of-work acceptability and documentation among them",
)
"""The declaration of the tasks written in fieldstudio or a CSV file."""
