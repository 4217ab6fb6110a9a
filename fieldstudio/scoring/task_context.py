"""What fieldstudio's own scorers need from the project beside a task's columns, read once for all the tasks of a
scoring so that the scorers stay pure (``TaskInputs.context``, filled for scorers that declare ``needs_context``):

* ``frame_times_s``: the frame times of the task's video in seconds after its first frame (a float64 array in
  frame-index order; the clock of the timestamps sent with frames and of time ground truths), for a task linked
  to an annotation on a video or with exactly one video input; ``media``: that video's file name;
* ``derived_from``: what a linked ground truth was computed from (``tasks.ground_truth.compute``'s explanation:
  "3 event(s) in frames 0-29", "ruler: 2.4312 m (floor plane: 4.00 m x 3.00 m rectangle (this media))"), and
  ``derived_value`` the value the annotations give now (a pending change when it differs from the task's);
* ``derived_broken``: why a linked ground truth gives no value now (its polygon lost its area, its annotation was
  deleted, ...): the stored text is then not what the annotations say;
* ``derived_m``: for a ground truth linked to a ruler, the ruler's length in metres unrounded (the ground truth's
  text gives it to the centimetre);
* ``derived_m2``: for a ground truth linked to a polygon's area, the area in m² unrounded (its text gives it to
  0.01 m²);
* ``check_error_m``: for a ground truth linked to a ruler, the error in metres of the independent check kept with
  the calibration that measures it (``CalibrationRecord.length_check``), None when that calibration has no check.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from sqlalchemy import select

from fieldstudio.annotations import calibrations
from fieldstudio.media import video_index
from fieldstudio.scoring.scorers.scorer_info import TaskInputs
from fieldstudio.store.models import Annotation
from fieldstudio.store.portable import in_chunks
from fieldstudio.store.project import Project
from fieldstudio.tasks import ground_truth
from fieldstudio.tasks.task_records import video_inputs

__all__ = ["with_context"]


def with_context(project: Project, tasks: Mapping[str, TaskInputs], answer_types: tuple[str, ...] = ()
                 ) -> dict[str, TaskInputs]:
    """``tasks`` with ``context`` filled (module docstring) for the tasks of ``answer_types`` (empty: all);
    the others unchanged. Each video's frame table is read once."""
    wanted = [t for t in tasks.values() if not answer_types or t.answer_type in answer_types]
    links = {t.id: ground_truth.link_of(t.ground_truth_extra) for t in wanted}
    with project.read() as s:
        videos, inputs = video_inputs(s, [t.id for t in wanted])
        annotation_ids = [link.annotation_id for link in links.values() if link and link.annotation_id]
        on_media = {a: m for part in in_chunks(annotation_ids)
                    for a, m in s.execute(select(Annotation.id, Annotation.media_id).where(Annotation.id.in_(part)))}
    times: dict[str, np.ndarray | None] = {}

    def frame_times(media_id: str) -> np.ndarray | None:
        if media_id not in times:
            table = video_index.load_frame_table(project, videos[media_id])
            times[media_id] = None if table is None or not len(table) else table.seconds_array() - table.seconds(0)
        return times[media_id]

    out = dict(tasks)
    for t in wanted:
        link = links[t.id]
        context: dict[str, Any] = {"check_error_m": None}
        media_id = (on_media.get(link.annotation_id) if link and link.annotation_id else
                    link.media_id if link and link.media_id else None)
        if media_id is None and len(set(inputs.get(t.id, []))) == 1:
            media_id = inputs[t.id][0]
        if media_id in videos:
            context.update(frame_times_s=frame_times(media_id), media=videos[media_id].file_name)
        if link is not None:
            value = ground_truth.compute(project, link)
            if value.ok:
                context.update(derived_from=value.explanation, derived_value=value.text)
            else:
                context["derived_broken"] = value.explanation
            if link.kind == "ruler_distance" and link.annotation_id:
                context["check_error_m"] = _check_error_m(project, link.annotation_id)
                if value.ok:      # the ground truth's text is rounded to the centimetre; the ruler is not
                    context["derived_m"] = float(value.value)
            if link.kind == "polygon_area" and value.ok:   # the text is rounded to 0.01 m²; the polygon is not
                context["derived_m2"] = float(value.value)
        out[t.id] = t._replace(context=context)
    return out


def _check_error_m(project: Project, ruler_id: str) -> float | None:
    """The check error of the calibration that measures ruler ``ruler_id`` now (the one in use for its media),
    None without one."""
    with project.read() as s:
        row = s.get(Annotation, ruler_id)
        if row is None or row.kind != "ruler":
            return None
        media_id = row.media_id
    record = calibrations.calibration_in_use(project, media_id)
    done = None if record is None else record.length_check()
    return None if done is None else done.error_m
