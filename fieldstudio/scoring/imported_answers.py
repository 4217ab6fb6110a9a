"""Importing answers made elsewhere so that every score stays true: the one service both fronts call.

``import_answers`` is ``inference.runs.answer_import.import_answers`` with the score store's count of stale scores
as its ``replaced`` callback: the scores of an answer whose text a new import changes are kept but stale (they hold
the hash of the text they judged, ``scoring.staleness``), and the report says how many ("N answer(s) differ ... N
score(s) are stale ...: score again", ``ImportReport.replaced_text``). It lives at the scoring layer because
inference, below it, cannot know about scores.
"""

from __future__ import annotations

from pathlib import Path

from fieldstudio.core.progress import Cancelled, Progress
from fieldstudio.inference.runs import answer_import
from fieldstudio.scoring.store import stale_scores_of
from fieldstudio.store.project import Project
from fieldstudio.tasks.formats.parsed_records import ImportReport


def import_answers(project: Project, path: Path, source_name: str, *,
                   progress: Progress = lambda done, total: None,
                   cancelled: Cancelled = lambda: False) -> ImportReport:
    """Import the answers of ``path`` as the answer source ``source_name`` (``answer_import.import_answers``),
    counting the scores made stale by every answer whose text changed (``answers_replaced``, ``scores_stale``).

    Never raises for a bad file (its problems are in the report); raises ProjectReadOnly when the project cannot
    be written."""
    return answer_import.import_answers(project, path, source_name, replaced=stale_scores_of, progress=progress,
                                        cancelled=cancelled)


__all__ = ["import_answers"]
