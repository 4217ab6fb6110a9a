"""What the window shows for one frame of a photo or video, read in one session: the boxes, the rulers and angles,
the polygons, polylines, points and skeletons (stored and interpolated), and the tags of the media and of the frame.

The viewer reads it for the exact frame its decoder is making, on the GUI thread while the decoder works
(``gui/viewer/frame_read_ahead.py``), so its cost is taken from the decode beside it. Read as four separate calls
(``box_tracks.boxes_on_frame``, ``list_annotations`` of rulers and angles, ``shape_tracks.shapes_on_frame``,
``rows.tags_at``) it opened four SQLite connections and ran eight queries; then one connection and five queries built
anew each time (4.6 ms quiet, 9-10 ms in the window beside a 1080p decode); now two queries (a third when tracks span
the frame or have keyframes beside it), built once with bound parameters, on the main thread's kept connection
(``Project._kept_read``). The lists are the same, in the same order, as those calls give: the rows are assembled by
the same functions (``box_tracks.boxes_from``, ``shape_tracks.shapes_from``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, case, func, select

from fieldstudio.annotations import box_tracks, shape_tracks
from fieldstudio.annotations.annotation_records import AnnotationRecord, read_records, records_statement
from fieldstudio.store.models import Annotation
from fieldstudio.store.project import Project

#: The kinds read besides boxes and shapes: on the frame, or on the whole media (``frame_index`` None).
LISTED_KINDS = ("angle", "ruler", "tag")
#: The kinds drawn as tracks: boxes and shapes (stored on the frame, or interpolated between keyframes).
TRACKED_KINDS = ("box", *shape_tracks.SHAPE_TRACK_KINDS)


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


@functools.cache
def _statements() -> dict[str, Any]:
    """The reads of :func:`read_frame`, built once (their parameters: ``media``, ``frame``, ``tracks``, ``frames``)."""
    media, frame = bindparam("media"), bindparam("frame")
    live = (Annotation.media_id == media) & Annotation.deleted.is_(False)
    # by creation: the order of the boxes and shapes on the frame; the listed kinds are sorted after (read_frame)
    by_creation = (Annotation.created_at, Annotation.id)
    keyed = live & Annotation.kind.in_(TRACKED_KINDS) & Annotation.track_id.is_not(None) & \
        Annotation.is_keyframe.is_(True)
    is_box = Annotation.kind == "box"
    return {
        # a photo (or a video's media-level rows): every kind without a frame
        "photo": records_statement(select(Annotation).where(
            live, Annotation.kind.in_(TRACKED_KINDS + LISTED_KINDS), Annotation.frame_index.is_(None))
            .order_by(*by_creation)),
        # a video frame: the boxes and shapes on it, the listed kinds on it or on the whole media
        "frame": records_statement(select(Annotation).where(
            live, ((Annotation.frame_index == frame) & Annotation.kind.in_(TRACKED_KINDS + LISTED_KINDS))
            | (Annotation.frame_index.is_(None) & Annotation.kind.in_(LISTED_KINDS)))
            .order_by(*by_creation)),
        # each box or shape track's keyframe just before the frame and just after it (box_tracks.keyframes_around)
        "around": select(is_box, Annotation.track_id,
                         func.max(case((Annotation.frame_index < frame, Annotation.frame_index))),
                         func.min(case((Annotation.frame_index > frame, Annotation.frame_index))))
        .where(keyed).group_by(is_box, Annotation.track_id),
        # those keyframes' rows (a superset: every pair of the tracks and frames asked)
        "keys": records_statement(select(Annotation).where(
            keyed, Annotation.track_id.in_(bindparam("tracks", expanding=True)),
            Annotation.frame_index.in_(bindparam("frames", expanding=True)))),
    }


def read_frame(project: Project, media_id: str, frame_index: int | None) -> FrameContents:
    """Everything the viewer draws and the tags panel lists for ``frame_index`` of ``media_id``, in one read
    session. An unknown media gives empty lists (as the separate calls do)."""
    reads = _statements()
    params = {"media": media_id, "frame": frame_index}
    with project.read() as s:
        rows = read_records(s, reads["photo" if frame_index is None else "frame"], params)
        boxes_here = [r for r in rows if r.kind == "box"]
        shapes_here = [r for r in rows if r.kind in shape_tracks.SHAPE_TRACK_KINDS]
        if frame_index is None:
            boxes = box_tracks.boxes_from(boxes_here, {}, {}, None)
            shapes = shape_tracks.shapes_from(shapes_here, {}, {}, {}, None)
        else:
            around = s.execute(reads["around"], params).all()
            box_before, box_after, shape_before, shape_after = {}, {}, {}, {}
            for box, track, before, after in around:
                if before is not None:
                    (box_before if box else shape_before)[track] = before
                if after is not None:
                    (box_after if box else shape_after)[track] = after
            spans = box_tracks.interpolated_spans(boxes_here, box_before, box_after)
            wanted = shape_tracks.keyframes_beside(shape_before, shape_after) | {
                (t, f) for t, span in spans.items() for f in span}
            keys = read_records(s, reads["keys"], {**params, "tracks": sorted({t for t, _f in wanted}),
                                                   "frames": sorted({f for _t, f in wanted})}) if wanted else []
            boxes = box_tracks.boxes_from(boxes_here, spans, {(r.track_id, r.frame_index): r for r in keys
                                                              if r.kind == "box"}, frame_index)
            shapes = shape_tracks.shapes_from(shapes_here, shape_before, shape_after, {
                (r.track_id, r.frame_index): r for r in keys if r.kind != "box"}, frame_index)
    # as list_annotations orders them: media-level first, then by frame, kind and creation (a stable sort keeps the
    # read's order of creation within a kind)
    listed = sorted((r for r in rows if r.kind in LISTED_KINDS),
                    key=lambda r: (r.frame_index is not None, r.frame_index or 0, r.kind))
    tags = [r for r in listed if r.kind == "tag"]
    return FrameContents(
        boxes=boxes,
        measures=[r for r in listed if r.kind != "tag"],
        shapes=shapes,
        media_tags=[t for t in tags if t.frame_index is None],
        frame_tags=[t for t in tags if frame_index is not None and t.frame_index == frame_index])
