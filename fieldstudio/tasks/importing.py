"""Importing task sets into a project: the one service behind the CLI and the GUI.

``tasks.formats.sniff_format`` names a file's format; ``import_tasks`` parses task files (every readable task
format of ``tasks.formats``) and writes ``Task`` + ``TaskInput`` rows in short write transactions of ``BATCH`` tasks.
Answer files are imported by ``scoring.imported_answers.import_answers`` (runs and answers belong to
``inference``, their scores to ``scoring``).

Rules:

* A task is identified by (``source``, ``external_id``); importing it again updates it in place, and a
  task the file states exactly as stored (fields, inputs and their media) is left alone and counted
  ``unchanged``.
  A FieldWorkArena public-variant record (no ground truth) never overwrites a ground-truth task: its
  query text is kept as ``extra["public_query"]`` (the two differ for 640 of 886 tasks, benchmarks.md
  §1.2 and §5 pitfall 3); and a ground-truth import over a public task keeps the public text there too.
* Input names are matched to project media by ``Media.file_name`` (a unique match), then by relative
  path (``Media.path`` equal to or ending with the name). Unmatched names are listed per task in
  ``ImportReport.missing_media`` and the task is stored with ``missing_media=True``.
* A name that could escape the dataset folder (``..`` segment, absolute POSIX or Windows path, drive
  letter such as ``C:\\``, UNC path) is rejected with an error and never stored or opened; its task is
  still imported, marked ``missing_media``, with the name and reason in ``extra["rejected_inputs"]``
  (a run refuses the task with that reason).
* Media added after the import are linked to the inputs that named them by ``link_missing_media`` (the same
  matching rules), without the task files.
* Bad input (missing, empty, not JSON, wrong format) is reported as an ImportProblem naming the file and
  the reason. Each batch is its own transaction, so a failure or a cancel never loses batches already
  committed.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

from sqlalchemy import delete, null, select
from sqlalchemy.exc import SQLAlchemyError

from fieldstudio.tasks import formats
from fieldstudio.tasks.formats import fieldworkarena
from fieldstudio.tasks.formats.parsed_records import (
    ImportProblem,
    ImportReport,
    ParsedTask,
)
from fieldstudio.store import failures
from fieldstudio.store.bulk_insert import insert_rows
from fieldstudio.store.changes import insert_tracked
from fieldstudio.store.models import Media, Task, TaskInput, new_id, utcnow
from fieldstudio.store.project import Project
from fieldstudio.core.progress import Cancelled, Progress

BATCH = 2000
"""Tasks written per transaction (a batch's new tasks and their inputs in one bulk insert per table)."""

TASK_FILE_SUFFIXES = formats.file_suffixes(formats.TASKS)
"""The files ``import_tasks`` takes from a folder: those a task format is read from (``.json``, ``.csv``,
``.tsv``; the FieldWorkArena id lists, ``*.toml``/``*.txt``, are read next to each task file, not imported)."""


def _task_files_by_folder(folder: Path) -> Iterator[list[Path]]:
    """Per folder below ``folder`` (itself first), its files ending in ``TASK_FILE_SUFFIXES``. Sub-folders that
    cannot be read (permissions) are passed over, and folder links are not followed (a link back up would
    never end)."""
    for root, _dirs, files in os.walk(folder):
        yield [Path(root, name) for name in files
               if Path(name).suffix.lower() in TASK_FILE_SUFFIXES and os.path.isfile(os.path.join(root, name))]


def task_files_in(folder: Path) -> list[Path]:
    """The task files of a folder, recursively, sorted by path: files ending in ``TASK_FILE_SUFFIXES``."""
    return sorted(p for found in _task_files_by_folder(Path(folder)) for p in found)


def count_task_files(folder: Path, budget_s: float) -> tuple[int, bool]:
    """(task files found, whether the count is complete) after walking ``folder`` for at most ``budget_s``
    seconds: what a dialog can say while the user types, since a path such as ``/`` or a home folder would
    take minutes to walk."""
    deadline = time.monotonic() + budget_s
    n = 0
    for found in _task_files_by_folder(Path(folder)):
        n += len(found)
        if time.monotonic() > deadline:
            return n, False
    return n, True


# ---------------------------------------------------------------- input names and media
def unsafe_name_reason(name: str) -> str | None:
    """Why an input name could escape the dataset folder, or None when it is a plain relative name.

    Rejected: empty names, absolute POSIX paths (``/etc/passwd``), Windows drive or UNC paths
    (``C:\\x``, ``C:x``, ``\\\\server\\share``), rooted Windows paths (``\\x``) and any ``..`` segment
    (with ``/`` or ``\\`` separators).
    """
    if not name or not name.strip():
        return "is empty"
    if "\x00" in name:
        return "contains a NUL character"
    if ":" in name or name[0] in "/\\":       # only these can name a drive or share (PureWindowsPath is slow)
        win = PureWindowsPath(name)
        if win.drive:
            return f"names a drive or network share ({win.drive})"
    if name.startswith(("/", "\\")):
        return "is an absolute path"
    if any(part == ".." for part in name.replace("\\", "/").split("/")):
        return "contains a '..' segment that leaves the dataset folder"
    return None


class MediaIndex:
    """Project media by file name and by path, to match the names a task file gives."""

    def __init__(self, rows: Sequence[tuple[str, str, str]]):
        self.by_name: dict[str, list[str]] = {}
        self.by_name_folded: dict[str, list[str]] = {}
        self.paths: list[tuple[str, str]] = []
        for media_id, file_name, path in rows:
            self.by_name.setdefault(file_name, []).append(media_id)
            self.by_name_folded.setdefault(file_name.casefold(), []).append(media_id)
            self.paths.append((PurePosixPath(path.replace("\\", "/")).as_posix(), media_id))

    @classmethod
    def of(cls, project: Project) -> MediaIndex:
        with project.read() as s:
            return cls(s.execute(select(Media.id, Media.file_name, Media.path)).all())

    def match(self, name: str) -> tuple[str | None, str | None]:
        """(media id, note): the media a name refers to; the note says why none (or which rule) matched."""
        posix = name.replace("\\", "/")
        while posix.startswith("./"):
            posix = posix[2:]
        base = posix.rsplit("/", 1)[-1]
        if "/" not in posix:
            ids = self.by_name.get(base) or self.by_name_folded.get(base.casefold(), [])
            if len(ids) == 1:
                return ids[0], None
            if len(ids) > 1:
                return None, f"{len(ids)} project media are named {base!r}; give a relative path to choose one"
            return None, None
        ids = [mid for path, mid in self.paths if path == posix or path.endswith("/" + posix)]
        if len(ids) == 1:
            return ids[0], None
        if len(ids) > 1:
            return None, f"{len(ids)} project media match {posix!r}"
        ids = self.by_name.get(base, [])
        if len(ids) == 1:
            return ids[0], "matched by file name only"
        return None, None


@dataclass
class LinkReport:
    """What ``link_missing_media`` did: inputs now linked, tasks whose every input is now found, and per task
    (external id, or the task id when it has none) the input names still matching no media."""

    inputs_linked: int = 0
    tasks_completed: int = 0
    still_missing: dict[str, list[str]] = field(default_factory=dict)


def link_missing_media(project: Project) -> LinkReport:
    """Link the task inputs that name media not in the project to media added since, by the import's rules.

    Each ``TaskInput`` without a media is matched by :meth:`MediaIndex.match` (unique file name, then relative
    path); ``Task.missing_media`` is recomputed (still True while an input is unmatched or was rejected as
    unsafe, ``extra["rejected_inputs"]``). One write transaction. Raises ProjectReadOnly when the project
    cannot be written.
    """
    media = MediaIndex.of(project)
    report = LinkReport()
    with project.write() as s:
        tasks = {t.id: t for t in s.scalars(select(Task).where(Task.missing_media.is_(True)))}
        inputs: dict[str, list[TaskInput]] = {}
        if tasks:
            for ti in s.scalars(select(TaskInput).where(TaskInput.task_id.in_(list(tasks)))
                                .order_by(TaskInput.task_id, TaskInput.position)):
                inputs.setdefault(ti.task_id, []).append(ti)
        for task_id, task in tasks.items():
            missing: list[str] = []
            for ti in inputs.get(task_id, []):
                if ti.media_id is None:
                    ti.media_id = media.match(ti.name)[0]
                    if ti.media_id is None:
                        missing.append(ti.name)
                    else:
                        report.inputs_linked += 1
            missing += [r["name"] for r in (task.extra or {}).get("rejected_inputs", [])]
            if missing:
                report.still_missing[task.external_id or task.id] = missing
            else:
                task.missing_media = False
                report.tasks_completed += 1
    return report


# ---------------------------------------------------------------- tasks
def import_tasks(project: Project, paths: Sequence[Path], *,
                 progress: Progress = lambda done, total: None,
                 cancelled: Cancelled = lambda: False,
                 fwa_domain_files: Sequence[Path] | None = None,
                 fwa_category_files: Sequence[Path] | None = None) -> ImportReport:
    """Import task files (format detected per file) into ``project``; a folder gives its ``task_files_in``.

    A file found in a folder that holds no tasks (an answer file, a list of ids) is skipped with a warning;
    a file named directly is reported as an error.

    ``fwa_domain_files`` (``all_task_ids_*.txt`` or ``all_task_ids_over_size.toml``) and
    ``fwa_category_files`` (``category_*.csv``) override the FieldWorkArena lists found next to each file.
    Returns an ImportReport; never raises for bad input files. Raises ProjectReadOnly if the project
    cannot be written.
    """
    report = ImportReport()
    fwa_domains = fwa_taxonomy = None
    try:
        if fwa_domain_files is not None:
            fwa_domains = fieldworkarena.load_domain_lists(fwa_domain_files)
        if fwa_category_files is not None:
            fwa_taxonomy = fieldworkarena.load_subcategory_csvs(fwa_category_files)
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        report.problems.append(ImportProblem(str(exc).split(":")[0], None, f"list not used: {exc}"))

    named: list[tuple[Path, str]] = []  # (file, severity when it holds no tasks)
    for path in map(Path, paths):
        if not path.is_dir():
            named.append((path, "error"))
            continue
        found = task_files_in(path)
        if not found:
            report.problems.append(ImportProblem(str(path), None, "is a folder without task files "
                                                 f"({', '.join('*' + s for s in TASK_FILE_SUFFIXES)})"))
        named.extend((f, "warning") for f in found)

    options = {"domains": fwa_domains, "taxonomy": fwa_taxonomy}  # for the formats that take them
    parsed: list[tuple[ParsedTask, str]] = []
    for path, severity in named:
        name, reason = formats.sniff_format(path)
        report.formats[str(path)] = name
        skipped = "skipped" if severity == "warning" else "not imported"
        if name == formats.UNKNOWN:
            report.problems.append(ImportProblem(str(path), None, f"{skipped}: {reason}", severity))
            continue
        fmt = formats.get(name)
        if fmt.kind != formats.TASKS:
            report.problems.append(ImportProblem(str(path), None, f"{skipped}: holds answers ({name}), not tasks; "
                                                                  "import it as answers", severity))
            continue
        result = fmt.parse(path, **{k: v for k, v in options.items() if k in fmt.options})
        report.problems.extend(result.problems)
        parsed.extend((t, path.name) for t in result.tasks)

    # Within one import the last file naming a task wins, except that FWA public records merge (below).
    order: dict[tuple[str, str], int] = {}
    for i, (task, file_name) in enumerate(parsed):
        key = (task.source, task.external_id)
        if key in order and not _is_public(task) and not _is_public(parsed[order[key]][0]):
            report.problems.append(ImportProblem(file_name, task.external_id, f"also in "
                                                 f"{parsed[order[key]][1]}; this later record was used", "warning"))
        elif key in order and _is_public(task) != _is_public(parsed[order[key]][0]):
            report.merged_public += 1
        order[key] = i

    media = MediaIndex.of(project)
    total = len(parsed)
    touched: dict[tuple[str, str], tuple[str, str]] = {}  # key -> (category, "created" | "updated" | "unchanged")
    progress(0, total)
    for start in range(0, total, BATCH):
        if cancelled():
            report.cancelled = True
            break
        batch = parsed[start:start + BATCH]
        outcome = _BatchOutcome()
        try:
            with project.write() as session:
                _write_batch(session, batch, media, outcome)
        except SQLAlchemyError as exc:
            if failures.one_line(exc, project.location) is not None:
                raise   # the disk, the medium or the server failed: no later batch would be saved either
            report.problems.extend(outcome.problems)
            report.problems.append(ImportProblem(batch[0][1], None, f"{len(batch)} tasks from "
                                                 f"{batch[0][0].external_id} on were not saved "
                                                 f"({failures.short_reason(exc)})"))
            continue
        report.problems.extend(outcome.problems)
        for key, value in outcome.touched.items():
            touched.setdefault(key, value)
            touched[key] = (value[0], touched[key][1])
        for key in outcome.resolved:
            report.missing_media.pop(key, None)
        report.missing_media.update(outcome.missing)
        report.unmapped.extend(k for k in outcome.unmapped if k not in report.unmapped)
        progress(min(start + BATCH, total), total)
    if report.cancelled:
        _drop_problems_of_unwritten(report, parsed[start:], touched)
    for category, state in touched.values():
        report.tasks_per_category[category] += 1
        if state == "created":
            report.created += 1
        elif state == "updated":
            report.updated += 1
        else:
            report.unchanged += 1
    return report


def _drop_problems_of_unwritten(report: ImportReport, unwritten: list[tuple[ParsedTask, str]],
                                touched: dict[tuple[str, str], tuple[str, str]]) -> None:
    """Drop from ``report`` the problems that the files' reading found in tasks a cancel left unwritten: a
    cancelled import of 60,000 tasks reported the warnings of all of them beside the 22,000 it saved."""
    written = {key[1] for key in touched}
    never = {task.external_id for task, _ in unwritten} - written
    if never:
        report.problems = [p for p in report.problems if p.record is None or p.record not in never]


class _BatchOutcome:
    """What one batch did; merged into the report only when its transaction commits."""

    def __init__(self) -> None:
        self.touched: dict[tuple[str, str], tuple[str, str]] = {}
        self.missing: dict[str, list[str]] = {}
        self.resolved: set[str] = set()
        self.unmapped: list[str] = []
        self.problems: list[ImportProblem] = []


def _is_public(task: ParsedTask) -> bool:
    return task.source == fieldworkarena.SOURCE and task.extra.get("variant") == "public"


def _write_batch(session, batch: list[tuple[ParsedTask, str]], media: MediaIndex, out: _BatchOutcome) -> None:
    """Create or update the batch's tasks in ``session``, recording what happened in ``out``.

    A task whose stored fields and inputs already equal what the file says is left alone (``unchanged``):
    re-importing an unchanged file writes nothing. The stored tasks are read as plain values (no ORM object
    for a task that stays as it is); new tasks get their ids here and are inserted at the end of the batch, with
    their inputs, in one bulk insert per table (``changes.insert_tracked``); a stored task that changed is
    updated through the ORM (its version check and change log) and its inputs rewritten.
    """
    keys = {(t.source, t.external_id) for t, _ in batch}
    existing: dict[tuple[str, str], _TaskRecord] = {}
    for source in {s for s, _ in keys}:
        ids = [e for s, e in keys if s == source]
        for row in session.execute(select(*_TaskRecord.SELECT).where(Task.source == source,
                                                                     Task.external_id.in_(ids))):
            record = _TaskRecord(*row)
            existing[(record.source, record.external_id)] = record
    stored_inputs: dict[str, list[tuple]] = {}
    if existing:
        for task_id, *item in session.execute(
                select(TaskInput.task_id, TaskInput.position, TaskInput.name, TaskInput.media_id, TaskInput.start_s,
                       TaskInput.end_s).where(TaskInput.task_id.in_([r.id for r in existing.values()]))
                .order_by(TaskInput.task_id, TaskInput.position)):
            stored_inputs.setdefault(task_id, []).append(tuple(item))
    created: dict[str, _TaskRecord] = {}
    updated: dict[str, _TaskRecord] = {}      # stored tasks to update, by id
    rewrite_inputs: set[str] = set()          # the stored tasks among them whose inputs are written again
    for parsed, file_name in batch:
        key = (parsed.source, parsed.external_id)
        row = existing.get(key)
        extra = dict(parsed.extra)
        extra["imported_from"] = file_name
        if row is not None and _is_public(parsed) and row.ground_truth is not None:
            # keep the ground-truth query and answer; remember the public text (pitfall 3)
            merged = dict(row.extra or {})
            merged["public_query"] = parsed.query
            merged.setdefault("public_imported_from", file_name)
            scenario, sub_category = parsed.scenario or row.scenario, parsed.sub_category or row.sub_category
            if (_json_same(merged, row.extra), scenario, sub_category) == (True, row.scenario, row.sub_category):
                out.touched.setdefault(key, (row.category or "", "unchanged"))
                continue
            row.extra, row.scenario, row.sub_category = merged, scenario, sub_category
            if row.id not in created:
                updated[row.id] = row
            out.touched.setdefault(key, (row.category or "", "updated"))
            continue
        if row is not None and (row.extra or {}).get("variant") == "public" and not _is_public(parsed):
            extra["public_query"] = row.query
        inputs, missing, rejected = _resolve_inputs(parsed, file_name, media, out)
        if rejected:  # the run refuses the task with these reasons (inference.runs)
            extra["rejected_inputs"] = rejected
        values = {"query": parsed.query, "answer_type": parsed.answer_type, "ground_truth": parsed.ground_truth,
                  "ground_truth_extra": parsed.ground_truth_extra, "eval_func": parsed.eval_func,
                  "output_format": parsed.output_format, "category": parsed.category,
                  "sub_category": parsed.sub_category, "scenario": parsed.scenario, "extra": extra,
                  "missing_media": bool(missing)}
        if row is None:
            row = _TaskRecord.new(parsed.source, parsed.external_id)
            created[row.id] = row
            existing[key] = row
            out.touched.setdefault(key, (parsed.category or "", "created"))
        elif _task_same(row, values) and stored_inputs.get(row.id, []) == inputs:
            out.touched.setdefault(key, (parsed.category or "", "unchanged"))
            inputs = None
        else:
            if row.id not in created:
                updated[row.id] = row
                rewrite_inputs.add(row.id)
            out.touched.setdefault(key, (parsed.category or "", "updated"))
        if inputs is not None:
            for name, value in values.items():
                setattr(row, name, value)
            stored_inputs[row.id] = inputs
        if missing:
            out.missing[parsed.external_id] = missing
        else:
            out.missing.pop(parsed.external_id, None)
            out.resolved.add(parsed.external_id)
        if parsed.sub_category == "unmapped" and parsed.external_id not in out.unmapped:
            out.unmapped.append(parsed.external_id)
    if updated:
        for task in session.scalars(select(Task).where(Task.id.in_(list(updated)))):
            record = updated[task.id]
            for name in _TaskRecord.COLUMNS:
                value = getattr(record, name)
                # SQL NULL, not the JSON text null (only ground_truth_extra can be None from a file)
                setattr(task, name, null() if value is None and name == "ground_truth_extra" else value)
        session.flush()          # the ORM's updates first: the statements below do not go through it
    if rewrite_inputs:
        session.execute(delete(TaskInput).where(TaskInput.task_id.in_(list(rewrite_inputs))))
    insert_tracked(session, Task, [row.values() for row in created.values()])
    insert_rows(session, TaskInput, [
        {"task_id": task_id, "position": position, "name": name, "media_id": media_id, "start_s": start_s,
         "end_s": end_s}
        for task_id in [*rewrite_inputs, *created]
        for position, name, media_id, start_s, end_s in stored_inputs[task_id]])


class _TaskRecord:
    """A task of one batch as plain values: read from the database (``SELECT`` order) or made by this batch
    (``new``). Read and set like a ``Task`` row, without the ORM's cost for the many an import leaves as they
    are (a task named twice in one batch is compared with and updated as its first record left it)."""

    COLUMNS = ("query", "answer_type", "ground_truth", "ground_truth_extra", "eval_func", "output_format",
               "category", "sub_category", "scenario", "extra", "missing_media")
    SELECT = (Task.id, Task.source, Task.external_id, Task.created_at,
              *(getattr(Task, name) for name in COLUMNS))

    def __init__(self, id: str, source: str, external_id: str, created_at: datetime | None, *values: Any):
        self.id, self.source, self.external_id, self.created_at = id, source, external_id, created_at
        for name, value in zip(self.COLUMNS, values or (None,) * len(self.COLUMNS)):
            setattr(self, name, value)

    @classmethod
    def new(cls, source: str, external_id: str) -> _TaskRecord:
        """A task to create, with a new id and its own creation time (the order of tasks on PostgreSQL)."""
        return cls(new_id(), source, external_id, utcnow())

    def values(self) -> dict[str, Any]:
        """The row to insert: every column of ``Task`` that an import sets."""
        out = {name: getattr(self, name) for name in ("id", "source", "external_id", "created_at", *self.COLUMNS)}
        out["missing_media"] = bool(out["missing_media"])
        return out


def _resolve_inputs(parsed: ParsedTask, file_name: str, media: MediaIndex, out: _BatchOutcome
                    ) -> tuple[list[tuple], list[str], list[dict[str, str]]]:
    """(inputs as (position, name, media id, start s, end s), names matching no media, rejected names with why)."""
    inputs: list[tuple] = []
    missing: list[str] = []
    rejected: list[dict[str, str]] = []
    for item in parsed.inputs:
        reason = unsafe_name_reason(item.name)
        if reason:
            out.problems.append(ImportProblem(file_name, parsed.external_id,
                                              f"input {item.name!r} rejected: {reason}; it was not stored"))
            missing.append(item.name)
            rejected.append({"name": item.name, "reason": reason})
            continue
        media_id, note = media.match(item.name)
        if note:
            out.problems.append(ImportProblem(file_name, parsed.external_id, f"input {item.name!r}: {note}",
                                              "warning"))
        if media_id is None:
            missing.append(item.name)
        inputs.append((len(inputs), item.name, media_id, item.start_s, item.end_s))
    return inputs, missing, rejected


def _json_same(a: Any, b: Any) -> bool:
    """Equal once both are written as JSON (what the database gives back)."""
    return json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)


def _task_same(row: _TaskRecord, values: Mapping[str, Any]) -> bool:
    """True when the stored task already holds ``values`` (JSON columns compared as JSON)."""
    for name, value in values.items():
        current = getattr(row, name)
        if name in ("extra", "ground_truth_extra"):
            # equal as Python values is the common case; JSON text only when they differ (e.g. a tuple and a list)
            if (current or None) != (value or None) and not _json_same(current or None, value or None):
                return False
        elif current != value:
            return False
    return True


__all__ = ["task_files_in", "count_task_files", "import_tasks", "link_missing_media", "unsafe_name_reason", "MediaIndex",
           "LinkReport", "BATCH", "TASK_FILE_SUFFIXES"]
