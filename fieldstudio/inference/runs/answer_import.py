"""Answers produced elsewhere, imported as a run: ``import_answers`` stores a ``Run(kind="import")`` and its answers.

Rules:

* The file's format is detected (``tasks.formats``); a task file, or a file of no known format, is refused with the
  reason and nothing is stored. No run is created when the file holds no answer or none names a task.
* An answer is linked to a task by its id, as written or else with/without the ``fieldworkarena.`` prefix
  (``fieldworkarena.id_forms``): to the task of the format's own source (``FileFormat.source``) when the id names
  tasks of several sources, else to the one task it names. Ids naming no task are listed in
  ``ImportReport.unknown_ids`` (with a problem when they name several tasks and none of the preferred source).
* Importing again under the same source name updates that run's answers in place. An answer whose text (or parsed
  values) changed is *replaced*: its scores judged the earlier text, so the caller's ``replaced`` callback counts
  what that makes stale in the same write transaction (``scoring.store.stale_scores_of``; the one service both
  fronts call is ``scoring.imported_answers.import_answers``, which passes it). The report counts both
  (``answers_replaced``, ``scores_stale``).
* Answers are written ``BATCH`` at a time, one short write transaction each, so a cancel keeps the batches done
  (the run is then ``cancelled``; importing again finishes it).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from sqlalchemy import null, select
from sqlalchemy.orm import Session

from fieldstudio.core.progress import Cancelled, Progress
from fieldstudio.store.bulk_insert import insert_rows
from fieldstudio.store.models import Answer, Run, new_id, utcnow
from fieldstudio.store.project import Project
from fieldstudio.tasks import formats
from fieldstudio.tasks.formats.fieldworkarena import id_forms
from fieldstudio.tasks.formats.parsed_records import ImportProblem, ImportReport, ParsedAnswer
from fieldstudio.tasks.task_records import tasks_by_external_id

BATCH = 2000
"""Answers written per transaction (the new ones in one bulk insert)."""

Replaced = Callable[[Session, Sequence[str]], int]
"""``replaced(session, answer_ids) -> rows removed``: called in the write transaction that changed the text of
``answer_ids``, to remove what judged the earlier text (their scores)."""


def import_answers(project: Project, path: Path, source_name: str, *, replaced: Replaced,
                   progress: Progress = lambda done, total: None,
                   cancelled: Cancelled = lambda: False) -> ImportReport:
    """Import the answers of ``path`` as the import run named ``source_name`` (see the module docstring).

    Args:
        path: an answer file of a readable answer format (FieldWorkArena run logs, a ``*.log`` file or a folder
            searched recursively; IndustryEQA answer files; OpenEQA prediction files; answer CSVs).
        source_name: the run's name, the answer source the Compare tab and the report show.
        replaced: called with the ids of the answers whose text changed, in the transaction that changed them;
            returns the number of scores that change makes stale (``report.scores_stale``).
    Returns an ImportReport (``answers_imported``, ``unknown_ids``, ``answers_replaced``, ``scores_stale``,
    ``run_id``; None when no run was made). Never raises for a bad file; raises ProjectReadOnly when the
    project cannot be written.
    """
    path = Path(path)
    report = ImportReport()
    name, reason = formats.sniff_format(path)
    report.formats[str(path)] = name
    if name == formats.UNKNOWN:
        report.problems.append(ImportProblem(str(path), None, f"not imported: {reason}"))
        return report
    fmt = formats.get(name)
    if fmt.kind != formats.ANSWERS:
        report.problems.append(ImportProblem(str(path), None, f"holds tasks ({name}), not answers; "
                                                              "import it as tasks"))
        return report
    result = fmt.parse(path)
    report.problems.extend(result.problems)
    if not result.answers:
        report.problems.append(ImportProblem(str(path), None, "holds no answer; no run was created"))
        return report
    resolved = _link_to_tasks(project, result.answers, fmt.source, str(path), report)
    if not resolved:
        report.problems.append(ImportProblem(str(path), None, "no answer names a task of the project; "
                                                              "no run was created"))
        return report

    with project.write() as session:
        run = session.scalars(select(Run).where(Run.kind == "import", Run.name == source_name)).first()
        if run is None:
            run = Run(name=source_name, kind="import")
            session.add(run)
        run.status = "running"
        run.params = {"file": str(path), "format": name}
        session.flush()
        report.run_id = run.id
    total = len(resolved)
    progress(0, total)
    for start in range(0, total, BATCH):
        if cancelled():
            report.cancelled = True
            break
        batch = resolved[start:start + BATCH]
        with project.write() as session:
            imported, changed = _write_batch(session, report.run_id, batch)
            report.answers_imported += imported
            if changed:
                # their scores judged the earlier text: they stay, as stale (their answer hash differs now)
                report.answers_replaced += len(changed)
                report.scores_stale += replaced(session, changed)
        progress(min(start + BATCH, total), total)
    with project.write() as session:
        run = session.get(Run, report.run_id)
        run.status = "cancelled" if report.cancelled else "done"
        run.finished_at = utcnow()
    return report


def _write_batch(session: Session, run_id: str, batch: Sequence[tuple[ParsedAnswer, str]]) -> tuple[int, list[str]]:
    """Write one batch of (answer, task id) into run ``run_id``: (answers imported, ids of the stored answers whose
    text or parsed values changed). New answers get their ids here and go in one bulk insert
    (``bulk_insert.insert_rows``); a changed one is updated in place; an unchanged one is not written. A task
    named twice keeps its last answer."""
    rows = session.execute(select(Answer.task_id, Answer.id, Answer.raw_text, Answer.parsed)
                           .where(Answer.run_id == run_id, Answer.task_id.in_({t for _, t in batch})))
    stored = {task_id: (answer_id, raw_text, parsed or None) for task_id, answer_id, raw_text, parsed in rows}
    new: dict[str, dict[str, Any]] = {}
    latest: dict[str, tuple[str | None, dict[str, Any] | None]] = {}  # stored answers: task id -> (text, parsed)
    for answer, task_id in batch:
        parsed = _jsonable(answer.extra) or None
        if task_id in stored:
            latest[task_id] = (answer.raw_text, parsed)
        else:
            new[task_id] = {"id": new_id(), "run_id": run_id, "task_id": task_id, "raw_text": answer.raw_text,
                            "parsed": parsed, "retries": 0, "from_cache": False, "created_at": utcnow()}
    insert_rows(session, Answer, list(new.values()))
    changed = {stored[t][0]: value for t, value in latest.items() if value != stored[t][1:]}
    if changed:
        for row in session.scalars(select(Answer).where(Answer.id.in_(list(changed)))):
            row.raw_text, parsed = changed[row.id]
            row.parsed = parsed if parsed is not None else null()  # SQL NULL, not JSON null
    return len(batch), list(changed)


def _link_to_tasks(project: Project, answers: Sequence[ParsedAnswer], preferred: str | None, file: str,
                   report: ImportReport) -> list[tuple[ParsedAnswer, str]]:
    """(answer, task id) for each answer whose id names a task (module docstring); the others go to
    ``report.unknown_ids``."""
    forms = {a.external_id: id_forms(a.external_id) for a in answers}
    by_id = tasks_by_external_id(project, {f for fs in forms.values() for f in fs})
    resolved: list[tuple[ParsedAnswer, str]] = []
    for answer in answers:
        sources = next((by_id[f] for f in forms[answer.external_id] if f in by_id), {})
        task_id = sources.get(preferred) if preferred else None
        if task_id is None and len(sources) == 1:
            task_id = next(iter(sources.values()))
        if task_id is None:
            if len(sources) > 1:
                report.problems.append(ImportProblem(file, answer.external_id,
                                                     f"id names tasks of several sources ({', '.join(sorted(sources))})"))
            report.unknown_ids.append(answer.external_id)
            continue
        resolved.append((answer, task_id))
    return resolved


def _jsonable(value: Mapping[str, Any]) -> dict[str, Any]:
    """A JSON-safe copy (paths and other objects become strings)."""
    return json.loads(json.dumps(dict(value), default=str))


__all__ = ["import_answers", "Replaced", "BATCH"]
