"""Tasks written by hand: create, read, change, delete and undo, each one short write transaction.

The service behind the task editor (``gui/panels/tasks.py``); imports go through ``tasks.importing``.
Rules:

* A task's editable fields are ``EDITABLE``; ``inputs`` is a list of ``{"name", "media_id", "start_s",
  "end_s"}`` (times in seconds of the video's PTS, ``None`` for "whole media"). An input naming a media
  gets the media's file name when no name is given; ``Task.missing_media`` is recomputed from the inputs
  (True when any input names no media).
* :func:`validate` checks a task's fields without touching the project: the query is required, a time
  range must not end before it starts, the ground truth must parse as its answer type with the
  deterministic matchers of ``core/matchers.py`` (a count as one whole number, a distance with a unit, ...),
  tolerances must be positive numbers. :func:`create_task` and :func:`update_task` refuse fields with
  errors (TaskError), so nothing invalid is ever stored by hand.
* :func:`update_task` returns the previous values of what it changed; passing them back undoes it.
  :func:`delete_task` returns a snapshot and :func:`restore_task` puts the same row (same id) back.
  A task that has answers is not deleted (its answers and scores would go with it): TaskError says so.
* Frames and seconds: a video time is the PTS of a frame in the stored frame table times the time base
  (:func:`frame_time_s`), never index / fps; :func:`frame_at_time` goes back to the frame.

Errors: NotFound for an unknown task or media, TaskError for invalid fields, ProjectReadOnly when the
project cannot be written.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from fractions import Fraction
from typing import Any

from sqlalchemy import delete, func, select, text
from sqlalchemy.orm import Session

from fieldstudio.core import matchers
from fieldstudio.core.area_units import parse_area
from fieldstudio.core.errors import FieldstudioError, NotFound
from fieldstudio.store.edits import Edit
from fieldstudio.store.changes import check_version
from fieldstudio.store.models import Answer, FrameIndexRow, Media, Task, TaskInput, new_id
from fieldstudio.store.portable import in_chunks
from fieldstudio.store.project import Project

SCENARIOS = ("factory", "warehouse", "retail", "other")
ANSWER_TYPES: dict[str, str] = {
    "yes_no": "Yes / no",
    "count": "Count",
    "distance": "Distance (m)",
    "area": "Area (m²)",
    "duration": "Duration (s)",
    "time": "Time point",
    "time_range": "Time range",
    "choice": "Choice A-E",
    "free_text": "Free text",
    "list": "List",
    "json_report": "JSON report",
}
"""Answer types the editor offers, with their display names. The importers' types
(``records.ANSWER_TYPES``) are a subset; ``duration``, ``area``, ``choice`` and ``list`` are made only here."""
TOLERANCE_KEYS = {"r_th": "relative distance error (ratio, e.g. 0.5)", "T_th": "time error in seconds"}
EDITABLE = ("external_id", "query", "answer_type", "ground_truth", "ground_truth_extra",
            "ground_truth_annotation_id", "eval_func", "output_format", "category", "sub_category", "scenario",
            "tolerances", "notes", "extra", "inputs")


class TaskError(FieldstudioError):
    """A task cannot be stored or deleted as asked; the message names the task and every problem."""


@dataclass(frozen=True)
class Issue:
    """One validation problem: the ``field`` it concerns, the message, ``error`` (refused) or ``warning``."""

    field: str
    message: str
    severity: str = "error"


@dataclass(frozen=True)
class TaskRow:
    """What the task list shows of one task (one query for all of them)."""

    id: str
    external_id: str | None
    source: str
    query: str
    answer_type: str
    ground_truth: str | None
    category: str | None
    sub_category: str | None
    scenario: str | None
    missing_media: bool
    linked: bool


@dataclass(frozen=True)
class TaskRecord:
    """A whole task as stored, with its inputs (dicts ``name, media_id, start_s, end_s`` in position order)."""

    id: str
    source: str
    created_at: datetime | None
    missing_media: bool
    external_id: str | None
    query: str
    answer_type: str
    ground_truth: str | None
    ground_truth_extra: dict[str, Any] | None
    ground_truth_annotation_id: str | None
    eval_func: str | None
    output_format: str | None
    category: str | None
    sub_category: str | None
    scenario: str | None
    tolerances: dict[str, Any] | None
    notes: str | None
    extra: dict[str, Any] | None
    inputs: tuple[dict[str, Any], ...]
    version: int = 1  # the row's version when read: ``update_task(expected_version=...)`` refuses a stale edit
    updated_by: str | None = None

    def fields(self) -> dict[str, Any]:
        """The editable fields (``EDITABLE``) as a dict, ready for :func:`create_task` / :func:`update_task`."""
        out = {k: getattr(self, k) for k in EDITABLE}
        out["inputs"] = [dict(i) for i in self.inputs]
        return out


# ---------------------------------------------------------------- validation
def ground_truth_issue(answer_type: str, ground_truth: str | None) -> str | None:
    """Why ``ground_truth`` cannot be read as ``answer_type`` by the matchers, or None when it can.

    yes_no: ``parse_yes_no``; count: ``parse_count`` (one whole number); distance: ``parse_length_m`` (a
    number with a length unit); area: ``core.area_units.parse_area`` (a number with an area unit); duration and
    time: ``parse_time_s`` (one time); time_range: ``parse_time_range_s`` (two times, start not after end), and for these three no time of day with AM or
    PM (``time_of_day_issue``: a time in a video counts from its start); choice: ``parse_choice`` (a letter A-E);
    json_report: ``extract_json``; free_text and list: anything. An empty ground truth is not checked.
    """
    gt = (ground_truth or "").strip()
    if not gt:
        return None
    if answer_type == "yes_no" and matchers.parse_yes_no(gt) is None:
        return "a yes/no ground truth must say yes or no"
    if answer_type == "count" and matchers.parse_count(gt) is None:
        return "a count must hold exactly one whole number (digits or words), e.g. 3"
    if answer_type == "distance" and matchers.parse_length_m(gt) is None:
        return "a distance needs one number with a unit, e.g. 2.5 m"
    if answer_type == "area" and parse_area(gt) is None:
        return "an area needs one number with an area unit, e.g. 0.78 m² (or m2, cm², square metres)"
    if answer_type in ("duration", "time", "time_range") and (clock := matchers.time_of_day_issue(gt)):
        return clock
    if answer_type in ("duration", "time") and matchers.parse_time_s(gt) is None:
        return ("a duration needs one time, e.g. 12.5 s or 00:01:05" if answer_type == "duration"
                else "a time point needs one time, e.g. 00:01:05")
    if answer_type == "time_range":
        rng = matchers.parse_time_range_s(gt)
        if rng is None:
            return "a time range needs exactly two times, e.g. from 00:00:10 to 00:02:36"
        if rng[1] < rng[0]:
            return f"the time range ends ({rng[1]:g} s) before it starts ({rng[0]:g} s)"
    if answer_type == "choice" and matchers.parse_choice(gt) is None:
        return "a choice must be one letter A-E, e.g. B"
    if answer_type == "json_report" and matchers.extract_json(gt) is None:
        return "a JSON report must be valid JSON, e.g. {\"total_violations\": 0, \"details\": []}"
    return None


def validate(fields: Mapping[str, Any]) -> list[Issue]:
    """Every problem of a task's fields (the keys of ``EDITABLE`` that are present); [] when fine."""
    issues: list[Issue] = []
    if "query" in fields and not (fields.get("query") or "").strip():
        issues.append(Issue("query", "the question is empty"))
    answer_type = fields.get("answer_type", "free_text")
    if answer_type not in ANSWER_TYPES:
        issues.append(Issue("answer_type", f"unknown answer type {answer_type!r}; use one of "
                                           f"{', '.join(ANSWER_TYPES)}"))
    elif "ground_truth" in fields:
        why = ground_truth_issue(answer_type, fields.get("ground_truth"))
        if why:
            issues.append(Issue("ground_truth", why))
        elif not (fields.get("ground_truth") or "").strip():
            issues.append(Issue("ground_truth", "no ground truth yet: answers to this task cannot be scored",
                                "warning"))
    scenario = fields.get("scenario")
    if scenario and scenario not in SCENARIOS:
        issues.append(Issue("scenario", f"scenario {scenario!r} is not one of {', '.join(SCENARIOS)}"))
    for key, value in (fields.get("tolerances") or {}).items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
            issues.append(Issue("tolerances", f"tolerance {key} must be a positive number, got {value!r}"))
    for i, item in enumerate(fields.get("inputs") or [], start=1):
        start, end = item.get("start_s"), item.get("end_s")
        if start is not None and end is not None and end < start:
            issues.append(Issue("inputs", f"input {i} ends ({end:g} s) before it starts ({start:g} s)"))
        if (start is not None and start < 0) or (end is not None and end < 0):
            issues.append(Issue("inputs", f"input {i} has a negative time"))
        if not (item.get("name") or "").strip() and not item.get("media_id"):
            issues.append(Issue("inputs", f"input {i} names no media"))
    return issues


def _errors(fields: Mapping[str, Any]) -> list[Issue]:
    return [i for i in validate(fields) if i.severity == "error"]


# ---------------------------------------------------------------- reading
def _record(row: Task, inputs: Sequence[TaskInput]) -> TaskRecord:
    return TaskRecord(
        id=row.id, source=row.source, created_at=row.created_at, missing_media=bool(row.missing_media),
        external_id=row.external_id, query=row.query, answer_type=row.answer_type, ground_truth=row.ground_truth,
        ground_truth_extra=row.ground_truth_extra, ground_truth_annotation_id=row.ground_truth_annotation_id,
        eval_func=row.eval_func, output_format=row.output_format, category=row.category,
        sub_category=row.sub_category, scenario=row.scenario, tolerances=row.tolerances, notes=row.notes,
        extra=row.extra,
        inputs=tuple({"name": i.name, "media_id": i.media_id, "start_s": i.start_s, "end_s": i.end_s}
                     for i in sorted(inputs, key=lambda i: i.position)),
        version=row.version or 1, updated_by=row.updated_by)


def get_task(project: Project, task_id: str) -> TaskRecord:
    """One task with its inputs. Raises NotFound."""
    with project.read() as s:
        row = s.get(Task, task_id)
        if row is None:
            raise NotFound(f"no task with id {task_id!r} in {project.path.name}")
        inputs = list(s.scalars(select(TaskInput).where(TaskInput.task_id == task_id)))
        return _record(row, inputs)


def insertion_order(s):  # noqa: ANN001, ANN201 - Session -> a column expression
    """The task rows' insertion order: SQLite's rowid, else the creation time (other databases have no rowid)."""
    return text("task.rowid") if s.get_bind().dialect.name == "sqlite" else Task.created_at


def list_tasks(project: Project) -> list[TaskRow]:
    """Every task as a TaskRow, by creation time (file order for imported tasks; a restored task goes back
    to its place)."""
    with project.read() as s:
        rows = s.execute(select(Task.id, Task.external_id, Task.source, Task.query, Task.answer_type,
                                Task.ground_truth, Task.category, Task.sub_category, Task.scenario,
                                Task.missing_media, Task.ground_truth_extra, Task.ground_truth_annotation_id)
                         .order_by(Task.created_at, insertion_order(s))).all()
    return [TaskRow(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], bool(r[9]),
                    bool(r[11]) or bool((r[10] or {}).get("annotation_link"))) for r in rows]


def count_tasks(project: Project) -> int:
    """Number of tasks in the project."""
    with project.read() as s:
        return s.scalar(select(func.count()).select_from(Task)) or 0


def tasks_by_external_id(project: Project, external_ids: Iterable[str]) -> dict[str, dict[str, str]]:
    """``{external id: {source: task id}}`` for the project's tasks with one of ``external_ids`` (an id several
    benchmarks use maps to the task of each source); ids naming no task are absent."""
    wanted = list(dict.fromkeys(external_ids))
    by_id: dict[str, dict[str, str]] = {}
    with project.read() as s:
        for start in range(0, len(wanted), 500):   # SQLite's bound-parameter limit
            for task_id, source, external_id in s.execute(
                    select(Task.id, Task.source, Task.external_id)
                    .where(Task.external_id.in_(wanted[start:start + 500]))):
                by_id.setdefault(external_id, {})[source] = task_id
    return by_id


def answer_count(project: Project, task_id: str) -> int:
    """Number of answers (from any run) to a task."""
    with project.read() as s:
        return s.scalar(select(func.count()).select_from(Answer).where(Answer.task_id == task_id)) or 0


# ---------------------------------------------------------------- frames and seconds
def frame_time_s(project: Project, media_id: str, frame_index: int) -> float:
    """Seconds of a video frame: its stored PTS times the time base. Raises NotFound when the frame
    is not in the frame table (or the media is unknown)."""
    with project.read() as s:
        media = s.get(Media, media_id)
        row = s.get(FrameIndexRow, (media_id, frame_index)) if media is not None else None
        if row is None:
            raise NotFound(f"no frame {frame_index} of media {media_id!r} in the frame table")
        return float(row.pts * Fraction(media.time_base_num or 1, media.time_base_den or 1))


def frame_at_time(project: Project, media_id: str, seconds: float) -> int | None:
    """The frame whose PTS time is nearest ``seconds`` (ties: the earlier frame); None without a frame table."""
    with project.read() as s:
        media = s.get(Media, media_id)
        if media is None:
            raise NotFound(f"no media with id {media_id!r} in {project.path.name}")
        base = Fraction(media.time_base_num or 1, media.time_base_den or 1)
        target = int(math.floor(Fraction(seconds) / base)) if seconds is not None else 0
        before = s.execute(select(FrameIndexRow.frame_index, FrameIndexRow.pts).where(
            FrameIndexRow.media_id == media_id, FrameIndexRow.pts <= target).order_by(FrameIndexRow.pts.desc())
            .limit(1)).first()
        after = s.execute(select(FrameIndexRow.frame_index, FrameIndexRow.pts).where(
            FrameIndexRow.media_id == media_id, FrameIndexRow.pts > target).order_by(FrameIndexRow.pts)
            .limit(1)).first()
    candidates = [c for c in (before, after) if c is not None]
    if not candidates:
        return None
    best = min(candidates, key=lambda c: (abs(float(c[1] * base) - seconds), c[1]))
    return int(best[0])


# ---------------------------------------------------------------- writing
def _apply(s, row: Task, fields: Mapping[str, Any]) -> None:  # noqa: ANN001 - Session
    for key, value in fields.items():
        if key == "inputs":
            continue
        if key not in EDITABLE:
            raise TaskError(f"cannot change {key} of a task")
        if key in ("query",):
            value = value or ""
        elif isinstance(value, str) and key not in ("ground_truth", "notes"):
            value = value.strip() or None
        setattr(row, key, value)
    if "inputs" in fields:
        s.execute(delete(TaskInput).where(TaskInput.task_id == row.id))
        missing = False
        for position, item in enumerate(fields["inputs"] or []):
            media_id = item.get("media_id") or None
            name = (item.get("name") or "").strip()
            if media_id is not None:
                media = s.get(Media, media_id)
                if media is None:
                    raise NotFound(f"no media with id {media_id!r} in the project")
                name = name or media.file_name
            missing = missing or media_id is None
            s.add(TaskInput(task_id=row.id, position=position, name=name, media_id=media_id,
                            start_s=item.get("start_s"), end_s=item.get("end_s")))
        row.missing_media = missing


def create_task(project: Project, *, task_id: str | None = None, source: str = "manual", **fields: Any) -> str:
    """Create a task from ``EDITABLE`` fields (``query`` required); returns its id.

    ``external_id`` defaults to ``T`` + the next free number of the source (``T0001``). Raises TaskError
    listing every validation error, NotFound for an unknown media.
    """
    errors = _errors({"query": fields.get("query", ""), **fields})
    if errors:
        raise TaskError("the task was not saved: " + "; ".join(e.message for e in errors))
    with project.write() as s:
        if not fields.get("external_id"):
            taken = set(s.scalars(select(Task.external_id).where(Task.source == source)))
            n = len(taken) + 1
            while f"T{n:04d}" in taken:
                n += 1
            fields = {**fields, "external_id": f"T{n:04d}"}
        elif s.scalar(select(Task.id).where(Task.source == source, Task.external_id == fields["external_id"])):
            raise TaskError(f"a {source} task with the id {fields['external_id']!r} exists already")
        row = Task(id=task_id or new_id(), source=source, query="", answer_type="free_text")
        s.add(row)
        _apply(s, row, fields)
        s.flush()
        return row.id


def update_task(project: Project, task_id: str, *, expected_version: int | None = None,
                **changes: Any) -> dict[str, Any]:
    """Change ``EDITABLE`` fields of a task in one transaction; returns their previous values (the undo).

    Raises NotFound, TaskError (unknown field, validation errors, an id already used in its source), and
    EditConflict (``store.changes``) when ``expected_version`` (the version the change was made from) is not
    the row's version any more: someone else changed the task since; nothing is changed.
    """
    unknown = set(changes) - set(EDITABLE)
    if unknown:
        raise TaskError(f"cannot change {', '.join(sorted(unknown))} of a task")
    with project.write() as s:
        row = s.get(Task, task_id)
        if row is None:
            raise NotFound(f"no task with id {task_id!r} in {project.path.name}")
        check_version(row, expected_version)
        current = _record(row, list(s.scalars(select(TaskInput).where(TaskInput.task_id == task_id)))).fields()
        errors = _errors({k: v for k, v in {**current, **changes}.items()
                          if k in changes or k in ("answer_type",) or (k == "ground_truth" and "answer_type" in changes)})
        if errors:
            raise TaskError(f"task {row.external_id or task_id} was not changed: "
                            + "; ".join(e.message for e in errors))
        ext = changes.get("external_id")
        if ext and ext != row.external_id and s.scalar(select(Task.id).where(
                Task.source == row.source, Task.external_id == ext, Task.id != task_id)):
            raise TaskError(f"a {row.source} task with the id {ext!r} exists already")
        previous = {k: current[k] for k in changes}
        _apply(s, row, changes)
        return previous


def delete_task(project: Project, task_id: str) -> TaskRecord:
    """Delete a task and its inputs; returns the snapshot :func:`restore_task` needs.

    Raises NotFound, and TaskError when answers to the task exist (deleting would delete them too).
    """
    n = answer_count(project, task_id)
    if n:
        raise TaskError(f"task {task_id} has {n} answer(s) from model runs or imports; delete those runs "
                        "first, or keep the task")
    with project.write() as s:
        row = s.get(Task, task_id)
        if row is None:
            raise NotFound(f"no task with id {task_id!r} in {project.path.name}")
        snapshot = _record(row, list(s.scalars(select(TaskInput).where(TaskInput.task_id == task_id))))
        s.delete(row)
        return snapshot


def restore_task(project: Project, snapshot: TaskRecord) -> str:
    """Put a deleted task back with the same id, source, creation time and inputs; returns its id."""
    with project.write() as s:
        row = Task(id=snapshot.id, source=snapshot.source, query="", answer_type="free_text")
        if snapshot.created_at is not None:
            row.created_at = snapshot.created_at
        s.add(row)
        _apply(s, row, snapshot.fields())
        return row.id


def duplicate_fields(record: TaskRecord) -> dict[str, Any]:
    """The fields of a copy of ``record``: everything but the id, which the new task gets afresh."""
    fields = record.fields()
    fields["external_id"] = None
    extra = dict(record.extra or {})
    extra["duplicated_from"] = record.external_id or record.id
    fields["extra"] = extra
    return fields


# ---------------------------------------------------------------- undoable edits (store/edits.py protocol)
class CreateTask(Edit):
    """Create a task (first do), then delete / restore the same row."""

    def __init__(self, project: Project, text: str = "New task", *, source: str = "manual", **fields: Any):
        self.project, self.text, self.source, self.fields = project, text, source, fields
        self.task_id: str | None = None
        self._snapshot: TaskRecord | None = None

    def do(self) -> None:
        if self.task_id is None:
            self.task_id = create_task(self.project, source=self.source, **self.fields)
        else:
            restore_task(self.project, self._snapshot)

    def undo(self) -> None:
        self._snapshot = delete_task(self.project, self.task_id)


class UpdateTask(Edit):
    """Change fields of a task; undo puts the previous values back."""

    def __init__(self, project: Project, task_id: str, text: str = "Edit task", *,
                 expected_version: int | None = None, **changes: Any):
        self.project, self.task_id, self.text, self.changes = project, task_id, text, changes
        self.expected_version = expected_version  # checked by the first do() only (EditConflict)
        self.previous: dict[str, Any] = {}

    def do(self) -> None:
        self.previous = update_task(self.project, self.task_id, expected_version=self.expected_version,
                                    **self.changes)
        self.expected_version = None

    def undo(self) -> None:
        with self.project.write() as s:  # previous values were valid when stored; put them back as they were
            row = s.get(Task, self.task_id)
            if row is None:
                raise NotFound(f"no task with id {self.task_id!r} in {self.project.path.name}")
            _apply(s, row, self.previous)


class DeleteTask(Edit):
    """Delete a task; undo restores it with the same id."""

    text = "Delete task"

    def __init__(self, project: Project, task_id: str):
        self.project, self.task_id = project, task_id
        self.snapshot: TaskRecord | None = None

    def do(self) -> None:
        self.snapshot = delete_task(self.project, self.task_id)

    def undo(self) -> None:
        restore_task(self.project, self.snapshot)


def video_inputs(session: Session, task_ids: Iterable[str]) -> tuple[dict[str, Media], dict[str, list[str]]]:
    """The project's videos by id, and the video inputs of each of ``task_ids`` that has some ({task id: media ids
    in input order}), read in ``session`` (500 task ids a query)."""
    videos = {m.id: m for m in session.scalars(select(Media).where(Media.kind == "video"))}
    inputs: dict[str, list[str]] = {}
    for part in in_chunks(list(task_ids)):
        for task_id, media_id in session.execute(select(TaskInput.task_id, TaskInput.media_id)
                                                 .where(TaskInput.task_id.in_(part))
                                                 .order_by(TaskInput.task_id, TaskInput.position)):
            if media_id in videos:
                inputs.setdefault(task_id, []).append(media_id)
    return videos, inputs


__all__ = ["video_inputs", "SCENARIOS", "ANSWER_TYPES", "EDITABLE", "TaskError", "Issue", "TaskRow", "TaskRecord", "validate", "insertion_order",
           "ground_truth_issue", "get_task", "list_tasks", "answer_count", "frame_time_s", "frame_at_time",
           "create_task", "update_task", "delete_task", "restore_task", "duplicate_fields", "CreateTask",
           "UpdateTask", "DeleteTask"]
