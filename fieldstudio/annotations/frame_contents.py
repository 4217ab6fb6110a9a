"""What the window shows for one frame of a photo or video, read in one session: the boxes, the rulers and angles,
the polygons, polylines, points and skeletons (stored and interpolated), and the tags of the media and of the frame.

The viewer reads it for the exact frame its decoder is making, on the GUI thread while the decoder works
(``gui/viewer/frame_read_ahead.py``). Read as four separate calls (``box_tracks.boxes_on_frame``,
``list_annotations`` of rulers and angles, ``shape_tracks.shapes_on_frame``, ``rows.tags_at``) it opened four SQLite
connections and ran eight queries, 6 ms of Python on a quiet machine and 20-45 ms under load, taken from the
decoder beside it; here it is one connection and five queries (a sixth and seventh when tracks span the frame).
The lists are the same, in the same order, as those calls give.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select

from fieldstudio.annotations import box_tracks, shape_tracks
from fieldstudio.annotations.annotation_records import AnnotationRecord, select_records
from fieldstudio.store.models import Annotation
from fieldstudio.store.project import Project

#: The kinds read besides boxes and shapes: on the frame, or on the whole media (``frame_index`` None).
LISTED_KINDS = ("angle", "ruler", "tag")


@dataclass(frozen=True)
class FrameContents:
    """The rows of one frame (``frame_index`` None: a photo, or a video's media-level rows only).

    ``boxes``: ``box_tracks.FrameBox`` (stored, then interpolated); ``measures``: ruler and angle records on the frame
    or on the whole media (media-level first, then by kind and creation, as ``list_annotations`` orders them);
    ``shapes``: ``shape_tracks.FrameShape``; ``media_tags`` and ``frame_tags``: tag records in creation order, as
    ``rows.tags_at`` gives them (no frame tags when ``frame_index`` is None).
    """

    boxes: list[box_tracks.FrameBox]
    measures: list[AnnotationRecord]
    shapes: list[shape_tracks.FrameShape]
    media_tags: list[AnnotationRecord]
    frame_tags: list[AnnotationRecord]


def read_frame(project: Project, media_id: str, frame_index: int | None) -> FrameContents:
    """Everything the viewer draws and the tags panel lists for ``frame_index`` of ``media_id``, in one read
    session. An unknown media gives empty lists (as the separate calls do)."""
    on_media = Annotation.frame_index.is_(None)
    here = on_media if frame_index is None else on_media | (Annotation.frame_index == frame_index)
    q = (select(Annotation)
         .where(Annotation.media_id == media_id, Annotation.kind.in_(LISTED_KINDS), Annotation.deleted.is_(False), here)
         .order_by(Annotation.frame_index.is_not(None), Annotation.frame_index, Annotation.kind,
                   Annotation.created_at, Annotation.id))
    with project.read() as s:
        boxes = box_tracks.frame_boxes(s, media_id, frame_index)
        shapes = shape_tracks.frame_shapes(s, media_id, frame_index)
        listed = select_records(s, q)
    tags = [r for r in listed if r.kind == "tag"]
    return FrameContents(
        boxes=boxes,
        measures=[r for r in listed if r.kind != "tag"],
        shapes=shapes,
        media_tags=[t for t in tags if t.frame_index is None],
        frame_tags=[t for t in tags if frame_index is not None and t.frame_index == frame_index])
