"""Importing tasks so that every score stays true: the one "import tasks" service both fronts call.

``import_tasks`` is ``tasks.importing.import_tasks`` followed by the score store's count of the scores that the
import made stale: a re-import that changes a task's ground truth keeps the task's scores, which held the hash of
the truth they judged (``scoring.staleness``), so they are stale now, and the report says how many ("N score(s) are
stale now ...: score again", ``ImportReport.truth_stale_text``), as the answer import does for changed answers. It
lives at the scoring layer because tasks, below it, cannot know about scores.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from fieldstudio.scoring.store import count_scores, count_stale_scores
from fieldstudio.store.project import Project
from fieldstudio.tasks import importing
from fieldstudio.tasks.formats.parsed_records import ImportReport


def import_tasks(project: Project, paths: Sequence[Path], **options: Any) -> ImportReport:
    """``tasks.importing.import_tasks(project, paths, **options)``, and ``truth_scores_stale``: how many scores in
    force became stale through it (counted only when the project holds scores and the import updated a task).

    Never raises for bad input files; raises ProjectReadOnly when the project cannot be written."""
    scored = count_scores(project) > 0
    before = count_stale_scores(project) if scored else 0
    report = importing.import_tasks(project, paths, **options)
    if scored and report.updated:
        report.truth_scores_stale = max(count_stale_scores(project) - before, 0)
    return report


__all__ = ["import_tasks"]
