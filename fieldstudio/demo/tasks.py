"""The demo project's task set, read from ``sample_data/tasks/fieldstudio_sample_tasks.csv``.

The file is fieldstudio's task CSV (``tasks.formats.csv_table``), the format that keeps the most of a task
(scenario, category, sub-category, inputs with time ranges, metadata); what the CSV has no column for
travels in the ``extra`` JSON under ``"fieldstudio"`` (:data:`FILE_EXTRA_KEY`): the answer type, the
tolerances, the notes on how the ground truth was obtained, ``ground_truth_extra`` (choice options, the JSON
reports' field schema, the manual's page and sentence) and, for a task whose ground truth is computed from
annotations, ``linked_to``: the link's kind, what it reads (an annotation described by its file name, kind,
label, frame, track and text, or for a count the file, label, mode and frame range) and what it read when
the file was written. ``sample_data/tasks/README.md`` says how the ground truth was made.

``add_demo_tasks`` runs after ``demo.annotations.add_demo_annotations``: it adds the annotations the set
needs of its own (``sample_data/demo/task_annotations.json``: two more floor rulers, a floor polygon and three
shopper tracks), then one task per row, with linked ground truth recomputed through ``tasks.ground_truth``.
``write_sample_task_file`` writes the set back in the same form, so a demo built from the file exports the
file again.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import select

from fieldstudio.annotations import labels
from fieldstudio.annotations import annotation_records as ann
from fieldstudio.core.errors import ProjectError
from fieldstudio.core.paths import sample_data_dir
from fieldstudio.demo.annotations import add_annotation_file
from fieldstudio.store.models import Media, Task
from fieldstudio.store.project import Project
from fieldstudio.tasks import ground_truth as gt
from fieldstudio.tasks import task_records as ts
from fieldstudio.tasks.exporting import tasks_from_project
from fieldstudio.tasks.formats import csv_table as csv_tasks
from fieldstudio.tasks.formats.parsed_records import ParsedTask

__all__ = ["TASK_FILE", "TASK_ANNOTATION_FILE", "SOURCE", "FILE_EXTRA_KEY", "DemoTasksReport", "read_task_file",
           "add_demo_tasks", "sample_task_records", "write_sample_task_file"]

SOURCE = "manual"
TASK_FILE = Path("tasks") / "fieldstudio_sample_tasks.csv"
TASK_ANNOTATION_FILE = Path("demo") / "task_annotations.json"
"""The task set and the annotations it adds, relative to ``sample_data/``."""
FILE_EXTRA_KEY = "fieldstudio"
"""Key of ``extra`` in the task file holding the fields the task CSV has no column for."""


@dataclass
class DemoTasksReport:
    """What ``add_demo_tasks`` did: task ids in creation order, counts per answer type and scenario,
    the annotations it added (ids per kind), the sample files not in the project (their tasks left out)
    and the tasks skipped for another reason (external id, why)."""

    task_ids: list[str] = field(default_factory=list)
    per_answer_type: Counter = field(default_factory=Counter)
    per_scenario: Counter = field(default_factory=Counter)
    annotation_ids: dict[str, list[str]] = field(default_factory=dict)
    missing_media: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)


def read_task_file(path: Path | None = None) -> list[ParsedTask]:
    """The tasks of the task file (default :data:`TASK_FILE`) as the CSV importer reads them.

    Raises ProjectError when the file has errors or a row lacks its ``extra["fieldstudio"]`` fields.
    """
    path = sample_data_dir() / TASK_FILE if path is None else Path(path)
    parsed = csv_tasks.parse_task_csv(path)
    errors = [p.message for p in parsed.problems if p.severity == "error"]
    if errors or not parsed.tasks:
        raise ProjectError(f"{path}: cannot read the demo task set ({errors[0] if errors else 'no tasks'})")
    for task in parsed.tasks:
        if "answer_type" not in task.extra.get(FILE_EXTRA_KEY, {}):
            raise ProjectError(f"{path}: task {task.external_id} has no extra[{FILE_EXTRA_KEY!r}][answer_type]")
    return parsed.tasks


def _label_id(project: Project, name: str | None) -> str | None:
    return None if name is None else next((lab.id for lab in labels.list_labels(project) if lab.name == name), None)


def _find_annotation(project: Project, media: dict[str, str], ref: dict[str, Any]) -> str:
    """The id of the one live annotation that ``ref`` ({media, kind, label, frame, track, text}) describes.
    Raises LinkError when none or several match."""
    if ref.get("media") not in media:
        raise gt.LinkError(f"media missing: {ref.get('media')}")
    want = {"label_name": ref.get("label"), "frame_index": ref.get("frame"), "track_id": ref.get("track"),
            "text": ref.get("text")}
    hits = [rec.id for rec in ann.list_annotations(project, media_id=media[ref["media"]], kinds=[ref["kind"]])
            if all(v is None or getattr(rec, k) == v for k, v in want.items())]
    if len(hits) != 1:
        raise gt.LinkError(f"{len(hits)} annotations match {ref}; the link needs exactly one")
    return hits[0]


def _link_of(project: Project, media: dict[str, str], linked_to: dict[str, Any]) -> gt.GroundTruthLink:
    """The GroundTruthLink a ``linked_to`` entry of the task file describes. Raises LinkError."""
    kind = linked_to["kind"]
    if kind != "count":
        return gt.GroundTruthLink(kind, annotation_id=_find_annotation(project, media, linked_to["annotation"]))
    if linked_to.get("media") not in media:
        raise gt.LinkError(f"media missing: {linked_to.get('media')}")
    return gt.GroundTruthLink("count", media_id=media[linked_to["media"]],
                              label_id=_label_id(project, linked_to.get("label")),
                              start_frame=linked_to.get("start_frame"), end_frame=linked_to.get("end_frame"),
                              mode=linked_to.get("mode") or "objects")


def _describe_link(project: Project, link: gt.GroundTruthLink) -> dict[str, Any]:
    """What ``link`` reads, by file name and label name (ids mean nothing outside this project)."""
    with project.read() as s:
        names = dict(s.execute(select(Media.id, Media.file_name)).all())
    if link.kind != "count":
        rec = ann.get_annotation(project, link.annotation_id)
        ref = {"media": names.get(rec.media_id), "kind": rec.kind, "label": rec.label_name,
               "frame": rec.frame_index, "track": rec.track_id, "text": rec.text}
        return {"annotation": {k: v for k, v in ref.items() if v is not None}}
    label = next((lab.name for lab in labels.list_labels(project) if lab.id == link.label_id), None)
    out = {"media": names.get(link.media_id), "label": label, "mode": link.mode, "start_frame": link.start_frame,
           "end_frame": link.end_frame}
    return {k: v for k, v in out.items() if v is not None}


def add_demo_tasks(project: Project) -> DemoTasksReport:
    """Add the demo task set (module docstring) and the annotations it needs; returns a DemoTasksReport.

    Run it after ``add_demo_annotations`` on a project holding the sample media with their frame index
    (``build_demo`` does both). Media are found by file name; a task whose media is missing is left out
    (its files listed in ``missing_media``). A linked task whose annotation gives no value is skipped and
    listed in ``skipped``. Raises TaskError, before adding anything, when a task of source ``manual``
    with one of the set's ids exists already (the set was added before).
    """
    tasks = read_task_file()
    report = DemoTasksReport()
    with project.read() as s:
        media = {m.file_name: m.id for m in s.scalars(select(Media).where(Media.status == "ok"))}
        taken = set(s.scalars(select(Task.external_id).where(
            Task.source == SOURCE, Task.external_id.in_([t.external_id for t in tasks]))))
    if taken:  # checked before any annotation is added, so a second call changes nothing
        raise ts.TaskError(f"{project.path.name} holds the demo task set already ({len(taken)} of its ids, "
                           f"e.g. {sorted(taken)[0]}); nothing was added")
    names = dict.fromkeys(i.name for t in tasks for i in t.inputs)
    report.missing_media = [name for name in names if name not in media]
    report.annotation_ids = add_annotation_file(project, sample_data_dir() / TASK_ANNOTATION_FILE).ids
    for task in tasks:
        kept = task.extra[FILE_EXTRA_KEY]
        missing = [i.name for i in task.inputs if i.name not in media]
        if missing:
            report.skipped.append((task.external_id, f"media missing: {', '.join(missing)}"))
            continue
        spec: dict[str, Any] = {
            "external_id": task.external_id, "query": task.query, "answer_type": kept["answer_type"],
            "ground_truth": task.ground_truth, "category": task.category, "sub_category": task.sub_category,
            "scenario": task.scenario, "output_format": task.output_format, "eval_func": task.eval_func,
            "notes": kept.get("notes"), "tolerances": kept.get("tolerances"),
            "inputs": [{"media_id": media[i.name], "start_s": i.start_s, "end_s": i.end_s} for i in task.inputs]}
        spec = {k: v for k, v in spec.items() if v is not None}
        gt_extra = kept.get("ground_truth_extra")
        if "linked_to" in kept:
            try:
                spec.update(gt.link_fields(project, gt_extra, _link_of(project, media, kept["linked_to"])))
            except gt.LinkError as exc:
                report.skipped.append((task.external_id, str(exc)))
                continue
        elif gt_extra:
            spec["ground_truth_extra"] = gt_extra
        task_id = ts.create_task(project, source=SOURCE, **spec)
        report.task_ids.append(task_id)
        report.per_answer_type[spec["answer_type"]] += 1
        report.per_scenario[spec["scenario"]] += 1
    return report


# ---------------------------------------------------------------- the sample file
def sample_task_records(project: Project, task_ids: list[str] | None = None) -> list[ParsedTask]:
    """The tasks (all manual ones, or ``task_ids``) as the exporter reads them, with the fields the task CSV
    has no column for moved into ``extra[FILE_EXTRA_KEY]``: ``answer_type`` (the CSV importer knows
    only ``records.ANSWER_TYPES``), ``tolerances``, ``notes`` and ``ground_truth_extra``; a ground-truth
    link is written as ``linked_to``: its kind, the annotation or the count it reads, described by file
    and label names because ids mean nothing outside this project, and what it reads now."""
    out = []
    for exported in tasks_from_project(project, source=SOURCE, task_ids=task_ids):
        record = ts.get_task(project, exported.task_id)
        parsed = exported.parsed
        kept: dict[str, Any] = {"answer_type": record.answer_type}
        if record.tolerances:
            kept["tolerances"] = record.tolerances
        if record.notes:
            kept["notes"] = record.notes
        gt_extra = dict(record.ground_truth_extra or {})
        link = gt.link_of(gt_extra)
        gt_extra.pop(gt.LINK_KEY, None)
        gt_extra.pop(gt.BASIS_KEY, None)    # ids of this project; linking on import measures it again
        if gt_extra:
            kept["ground_truth_extra"] = gt_extra
        if link is not None:
            kept["linked_to"] = {"kind": link.kind, **_describe_link(project, link),
                                 "explanation": gt.compute(project, link).explanation}
        parsed.extra = {**parsed.extra, FILE_EXTRA_KEY: kept}
        out.append(parsed)
    return out


def write_sample_task_file(project: Project, path: Path) -> int:
    """Write the demo task set as a task CSV (``csv_tasks.export_task_csv``, atomic); returns the count.

    See :func:`sample_task_records` for what ``extra`` holds. Raises OSError when ``path`` cannot be written.
    """
    return csv_tasks.export_task_csv(sample_task_records(project), Path(path))
