"""Exporting a project's tasks with their ground truth: FieldWorkArena, IndustryEQA and OpenEQA JSON, CSV, XLSX.

The one service behind ``fieldstudio tasks export`` and the GUI. ``tasks_from_project`` reads the tasks
back as the importers' ``ParsedTask`` records (inputs in position order, tasks in the order they were
first imported or made); ``export_tasks`` writes them in one format, atomically (``core/atomic.py``), and
returns an ``ExportReport`` that lists every task left out and why.

Formats (benchmarks.md §1.2, §2.1, §3.3):

* ``fieldworkarena``: a GreenAgent ``Tasks_*.json`` array (``fieldworkarena.export_greenagent``):
  ``{id, input_data (list), conversations [human, gpt], output_format, eval_func}``. Re-importing it
  with the same domain and category lists gives the same tasks field by field. Not byte-identical with
  the published files: those write some ``input_data`` as one space-separated string (with double
  spaces), which the importer does not keep.
* ``industryeqa``: the annotation array ``{question_id (int), type, question, direct_answer,
  reasoning_answer, path, transformed_status, reasoning_status}`` plus the record's own further keys
  (``model``, ``difficulty``, unknown keys) for tasks imported from IndustryEQA. ``question_id`` must be
  a whole number and a task needs a ground truth and one input (the video path); others are skipped.
* ``openeqa``: ``{question, answer, category, question_id, episode_history, extra_answers}`` in the order
  of ``data/open-eqa-v0.json``, written as ``json.dump(..., indent=2)`` writes it (ASCII escapes, no final
  newline): exporting an imported ``open-eqa-v0.json`` gives the same bytes. Tasks without a ground truth
  are skipped (OpenEQA has no such record).
* ``csv``: fieldstudio's task CSV (``csv_tasks.export_task_csv``; its module docstring documents the header).
* ``xlsx``: the same columns as the CSV in one sheet named ``tasks``; every cell is written as text, so
  a query starting with ``=`` never becomes a formula.

A task's id in the file is its ``external_id`` (its project id when it has none). When two exported tasks
would share an id (tasks of several sources), the later one is skipped and reported.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import select

from fieldstudio.core.atomic import atomic_write_bytes, atomic_write_text
from fieldstudio.core.errors import FieldstudioError
from fieldstudio.store.models import Task, TaskInput
from fieldstudio.store.project import Project
from fieldstudio.tasks.formats import csv_table as csv_tasks
from fieldstudio.tasks.formats import fieldworkarena
from fieldstudio.tasks.formats import industryeqa
from fieldstudio.tasks.formats import openeqa
from fieldstudio.tasks.formats.parsed_records import ParsedInput, ParsedTask
from fieldstudio.tasks.task_records import insertion_order
from fieldstudio.core.progress import Cancelled, Progress

FORMATS = ("fieldworkarena", "industryeqa", "openeqa", "csv", "xlsx")
SUFFIX = {"fieldworkarena": ".json", "industryeqa": ".json", "openeqa": ".json", "csv": ".csv", "xlsx": ".xlsx"}
_BOOKKEEPING = ("imported_from", "public_imported_from", "rejected_inputs")
"""``Task.extra`` keys the importer adds about the import itself; they are not part of a task."""
_IEQA_DERIVED = ("scale", "human_presence", "reasoning_subset", "reasoning_status", "transformed_status",
                 "split_question_id")
"""``Task.extra`` keys ``industryeqa.parse_annotation_file`` derives or lifts out of named fields."""


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


# ---------------------------------------------------------------- records per format
def industryeqa_record(task: ParsedTask) -> dict[str, Any]:
    """One task as an IndustryEQA annotation object. Raises ValueError naming what the task lacks."""
    try:
        qid = int(task.external_id)
    except (TypeError, ValueError):
        raise ValueError("has an id that is not a whole number (IndustryEQA question_id)") from None
    if task.ground_truth is None:
        raise ValueError("has no ground truth (IndustryEQA direct_answer)")
    if not task.inputs:
        raise ValueError("has no input (IndustryEQA path of the video)")
    ours = task.source == industryeqa.SOURCE
    extra = task.extra if ours else {}
    record: dict[str, Any] = {"question_id": qid, "type": task.category, "question": task.query,
                              "direct_answer": task.ground_truth}
    reasoning = (task.ground_truth_extra or {}).get("reasoning_answer")
    if reasoning is not None:
        record["reasoning_answer"] = reasoning
    record["path"] = task.inputs[0].name
    for key in ("transformed_status", "reasoning_status"):
        if extra.get(key) is not None:
            record[key] = extra[key]
    for key, value in extra.items():
        if key not in _IEQA_DERIVED and key not in industryeqa.FIELDS:
            record[key] = value
    if record["type"] is None:
        del record["type"]
    return record


def openeqa_record(task: ParsedTask) -> dict[str, Any]:
    """One task as an OpenEQA question object (key order of ``open-eqa-v0.json``). Raises ValueError."""
    if task.ground_truth is None:
        raise ValueError("has no ground truth (OpenEQA answer)")
    record: dict[str, Any] = {"question": task.query, "answer": task.ground_truth}
    if task.category is not None:
        record["category"] = task.category
    record["question_id"] = task.external_id
    extra = task.extra if task.source == openeqa.SOURCE else {}
    if "episode_history" in extra:
        record["episode_history"] = extra["episode_history"]
    if task.ground_truth_extra and "extra_answers" in task.ground_truth_extra:
        record["extra_answers"] = task.ground_truth_extra["extra_answers"]
    for key, value in extra.items():
        if key not in record:
            record[key] = value
    return record


def _xlsx_bytes(tasks: Sequence[ParsedTask]) -> bytes:
    """The task CSV's columns as an XLSX workbook (one sheet ``tasks``), every cell text."""
    from openpyxl import Workbook
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

    wb = Workbook(write_only=True)
    ws = wb.create_sheet("tasks")

    def cell(value: str) -> WriteOnlyCell:
        c = WriteOnlyCell(ws, value=ILLEGAL_CHARACTERS_RE.sub("", value)[:32767])
        c.data_type = "s"  # text, never a formula
        return c

    ws.append([cell(c) for c in csv_tasks.TASK_COLUMNS])
    for t in tasks:
        ws.append([cell(v) for v in (
            t.external_id, t.query, t.answer_type, t.ground_truth or "", t.category or "", t.sub_category or "",
            t.scenario or "", csv_tasks.format_inputs(t.inputs), t.eval_func or "", t.output_format or "",
            json.dumps(t.extra, ensure_ascii=False) if t.extra else "")])
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


# ---------------------------------------------------------------- the service
def export_tasks(project: Project, fmt: str, out: Path, *, source: str | None = None,
                 task_ids: Sequence[str] | None = None,
                 progress: Progress = lambda done, total: None,
                 cancelled: Cancelled = lambda: False) -> ExportReport:
    """Write the project's tasks (all, one ``source``, or ``task_ids``) to ``out`` in format ``fmt``.

    ``fmt`` is one of ``FORMATS``; ``out`` is a file (a folder gets ``tasks<suffix>`` inside it).
    Tasks a format cannot hold are skipped and listed in ``ExportReport.skipped`` with the reason; the
    others are written in one atomic replace. Nothing is written when ``cancelled()`` turns true.
    Raises TaskExportError for an unknown format, when no task is left to write, or when the file
    cannot be written (naming it and the reason).
    """
    if fmt not in FORMATS:
        raise TaskExportError(f"unknown task format {fmt!r}; use one of {', '.join(FORMATS)}")
    out = Path(out)
    if out.is_dir():
        out = out / f"tasks{SUFFIX[fmt]}"
    report = ExportReport(fmt, out)
    tasks = tasks_from_project(project, source=source, task_ids=task_ids)
    total = len(tasks)
    progress(0, total)
    kept: list[ParsedTask] = []
    records: list[dict[str, Any]] = []
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
            if fmt == "industryeqa":
                records.append(industryeqa_record(p))
            elif fmt == "openeqa":
                records.append(openeqa_record(p))
            elif fmt == "fieldworkarena":
                records.append(fieldworkarena.to_greenagent_record(p))
        except ValueError as exc:
            report.skipped.append((p.external_id, str(exc)))
            continue
        seen.add(p.external_id)
        kept.append(p)
        if (i + 1) % 250 == 0:
            progress(i + 1, total)
    if not kept:
        what = f"of source {source!r} " if source else ""
        first = (f" ({len(report.skipped)} skipped; the first: task {report.skipped[0][0]} {report.skipped[0][1]})"
                 if report.skipped else " (the project has no tasks)")
        raise TaskExportError(f"{project.path.name}: no task {what}can be written as {fmt}{first}")
    if cancelled():
        report.cancelled = True
        return report
    try:
        if fmt == "fieldworkarena":
            atomic_write_text(out, json.dumps(records, ensure_ascii=False, indent=4) + "\n")
        elif fmt == "industryeqa":
            atomic_write_text(out, json.dumps(records, ensure_ascii=False, indent=4) + "\n")
        elif fmt == "openeqa":
            atomic_write_text(out, json.dumps(records, indent=2))
        elif fmt == "csv":
            csv_tasks.export_task_csv(kept, out)
        else:
            atomic_write_bytes(out, _xlsx_bytes(kept))
    except OSError as exc:
        raise TaskExportError(f"{out}: cannot be written ({exc.strerror or exc})") from None
    report.written = len(kept)
    progress(total, total)
    return report


__all__ = ["FORMATS", "ExportReport", "TaskExportError", "export_tasks", "tasks_from_project",
           "industryeqa_record", "openeqa_record"]
