"""Exporting a project's tasks with their ground truth: FieldWorkArena, IndustryEQA and OpenEQA JSON, CSV, XLSX.

The one service behind ``fieldstudio tasks export`` and the GUI. ``tasks_from_project`` reads the tasks
back as the importers' ``ParsedTask`` records (inputs in position order, tasks in the order they were
first imported or made); ``export_tasks`` writes them in one format, atomically (``core/atomic.py``), and
returns an ``ExportReport`` that lists every task left out and why.

Formats: every writable format of the registry (``tasks.formats.writable()``), picked by its choice name
(``FORMATS``: fieldworkarena, industryeqa, openeqa, csv, xlsx). Each format's module says what it writes
(``fieldworkarena.to_greenagent_record``, ``industryeqa.to_annotation_record``, ``openeqa.to_question_record``,
``csv_table.export_task_csv``, ``xlsx_table``) and refuses, with the reason, a task it cannot hold. Re-importing a
FieldWorkArena export with the same domain and category lists gives the same tasks field by field (not
byte-identical with the published files, some of which write ``input_data`` as one space-separated string);
exporting an imported ``open-eqa-v0.json`` gives the same bytes.

A task's id in the file is its ``external_id`` (its project id when it has none). When two exported tasks
would share an id (tasks of several sources), the later one is skipped and reported.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import select

from fieldstudio.core.errors import FieldstudioError
from fieldstudio.store.models import Task, TaskInput
from fieldstudio.store.project import Project
from fieldstudio.tasks import formats
from fieldstudio.tasks.formats.parsed_records import ParsedInput, ParsedTask
from fieldstudio.tasks.task_records import insertion_order
from fieldstudio.core.progress import Cancelled, Progress

FORMATS = formats.export_choices()
"""The names a user picks an export format by: ``fieldworkarena``, ``industryeqa``, ``openeqa``, ``csv``, ``xlsx``."""
SUFFIX = {choice: formats.by_choice(choice, formats.TASKS).suffixes[0] for choice in FORMATS}
"""The file suffix of each export format (``.json``, ``.csv``, ``.xlsx``)."""
_BOOKKEEPING = ("imported_from", "public_imported_from", "rejected_inputs")
"""``Task.extra`` keys the importer adds about the import itself; they are not part of a task."""


class TaskExportError(FieldstudioError):
    """A task export cannot be made as asked (unknown format, nothing to export, unwritable file)."""


@dataclass
class ExportReport:
    """What ``export_tasks`` wrote: ``written`` tasks to ``path``; ``skipped`` (task id, reason) pairs."""

    format: str
    path: Path
    written: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)
    cancelled: bool = False


@dataclass
class ExportedTask:
    """A task as read for export: the ``ParsedTask`` and the project id it came from."""

    task_id: str
    parsed: ParsedTask


def tasks_from_project(project: Project, *, source: str | None = None,
                       task_ids: Sequence[str] | None = None) -> list[ExportedTask]:
    """The project's tasks (optionally of one ``source`` or only ``task_ids``) as ParsedTask records.

    Order: the order the rows were inserted (SQLite rowid), which is file order for imported tasks, so
    an exported file lists tasks as the imported one did. ``extra`` loses the importer's bookkeeping keys
    (``imported_from``); inputs keep their names and time ranges (seconds) in position order.
    """
    q = select(Task)
    if source is not None:
        q = q.where(Task.source == source)
    if task_ids is not None:
        q = q.where(Task.id.in_(list(task_ids)))
    with project.read() as s:
        rows = list(s.scalars(q.order_by(insertion_order(s))))
        inputs: dict[str, list[ParsedInput]] = {}
        ids = [r.id for r in rows]
        for start in range(0, len(ids), 500):
            for ti in s.scalars(select(TaskInput).where(TaskInput.task_id.in_(ids[start:start + 500]))
                                .order_by(TaskInput.task_id, TaskInput.position)):
                inputs.setdefault(ti.task_id, []).append(ParsedInput(ti.name, ti.start_s, ti.end_s))
        out = []
        for r in rows:
            extra = {k: v for k, v in (r.extra or {}).items() if k not in _BOOKKEEPING}
            out.append(ExportedTask(r.id, ParsedTask(
                external_id=r.external_id or r.id, source=r.source, query=r.query, answer_type=r.answer_type,
                ground_truth=r.ground_truth, ground_truth_extra=r.ground_truth_extra, eval_func=r.eval_func,
                output_format=r.output_format, category=r.category, sub_category=r.sub_category,
                scenario=r.scenario, inputs=inputs.get(r.id, []), extra=extra)))
    return out


# ---------------------------------------------------------------- the service
def export_tasks(project: Project, fmt: str, out: Path, *, source: str | None = None,
                 task_ids: Sequence[str] | None = None, raw_cells: bool = False,
                 progress: Progress = lambda done, total: None,
                 cancelled: Cancelled = lambda: False) -> ExportReport:
    """Write the project's tasks (all, one ``source``, or ``task_ids``) to ``out`` in format ``fmt``.

    ``fmt`` is one of ``FORMATS``; ``out`` is a file (a folder gets ``tasks<suffix>`` inside it).
    Tasks a format cannot hold are skipped and listed in ``ExportReport.skipped`` with the reason; the
    others are written in one atomic replace. Nothing is written when ``cancelled()`` turns true. ``raw_cells``
    (CSV): cells exactly as stored, even those a spreadsheet would run as a formula (by default they get a leading
    apostrophe); the other formats hold no formulas and ignore it.
    Raises TaskExportError for an unknown format, when no task is left to write, or when the file
    cannot be written (naming it and the reason).
    """
    if fmt not in FORMATS:
        raise TaskExportError(f"unknown task format {fmt!r}; use one of {', '.join(FORMATS)}")
    writer = formats.by_choice(fmt, formats.TASKS)
    out = Path(out)
    if out.is_dir():
        out = out / f"tasks{SUFFIX[fmt]}"
    report = ExportReport(fmt, out)
    tasks = tasks_from_project(project, source=source, task_ids=task_ids)
    total = len(tasks)
    progress(0, total)
    records: list[Any] = []
    seen: set[str] = set()
    for i, t in enumerate(tasks):
        if cancelled():
            report.cancelled = True
            return report
        p = t.parsed
        if p.external_id in seen:
            report.skipped.append((p.external_id, f"another exported task has the id {p.external_id!r}"))
            continue
        try:
            records.append(writer.to_record(p))
        except ValueError as exc:
            report.skipped.append((p.external_id, str(exc)))
            continue
        seen.add(p.external_id)
        if (i + 1) % 250 == 0:
            progress(i + 1, total)
    if not records:
        what = f"of source {source!r} " if source else ""
        first = (f" ({len(report.skipped)} skipped; the first: task {report.skipped[0][0]} {report.skipped[0][1]})"
                 if report.skipped else " (the project has no tasks)")
        raise TaskExportError(f"{project.path.name}: no task {what}can be written as {fmt}{first}")
    if cancelled():
        report.cancelled = True
        return report
    try:
        if raw_cells and fmt == "csv":
            writer.write(records, out, raw_cells=True)
        else:
            writer.write(records, out)
    except OSError as exc:
        raise TaskExportError(f"{out}: cannot be written ({exc.strerror or exc})") from None
    report.written = len(records)
    progress(total, total)
    return report


__all__ = ["FORMATS", "SUFFIX", "ExportReport", "TaskExportError", "export_tasks", "tasks_from_project"]
