"""Box tracks: new track ids, a track's keyframes, the boxes to draw on a frame (stored and interpolated),
turning an interpolated box into a keyframe, and copying a box to another frame.

A box with a ``track_id`` is a keyframe of that track (one per frame); the boxes on the frames between two
keyframes are interpolated on read (``fieldstudio.core.tracks.interpolate_track``), never stored. Writes go
through ``annotation_records`` (one short transaction each), so the rules there hold here too.
Errors: NotFound for an unknown media or annotation, AnnotationError for a frame with no interpolated box or a
box that cannot be copied.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import case, func, select
from sqlalchemy.orm import Session

from fieldstudio.annotations.annotation_records import (AnnotationError, AnnotationRecord, get_annotation,
                                                        insert_annotation, list_annotations, media_row,
                                                        select_records)
from fieldstudio.core import tracks
from fieldstudio.store.models import Annotation
from fieldstudio.store.project import Project

__all__ = ["next_track_id", "track_keyframes", "track_boxes", "FrameBox", "boxes_on_frame", "frame_boxes",
           "interpolated_spans", "boxes_from", "keyframes_around", "make_keyframe", "copy_box"]


def _top_track_id(s: Session, media_id: str) -> int:
    return s.scalar(select(func.max(Annotation.track_id)).where(Annotation.media_id == media_id)) or 0


def next_track_id(project: Project, media_id: str) -> int:
    """A new track id for this video, never handed out before (deleted boxes count, so undo never merges two tracks).

    The highest id in use and the last one issued (``Media.extra["track_ids_issued"]``) are read and the
    new one recorded in one ``BEGIN IMMEDIATE`` transaction, so two windows or processes starting a track
    at once get two different ids even before either has stored a box. A read-only project (where no
    box can be stored) only reads. Raises NotFound for an unknown media.
    """
    if project.read_only:
        with project.read() as s:
            return _top_track_id(s, media_id) + 1
    with project.write() as s:
        media = media_row(s, media_id)
        top = _top_track_id(s, media_id)
        extra = dict(media.extra or {})
        track = max(top, int(extra.get("track_ids_issued") or 0)) + 1
        extra["track_ids_issued"] = track
        media.extra = extra
    return track


def track_keyframes(project: Project, media_id: str, track_id: int) -> list[AnnotationRecord]:
    """The live keyframe boxes of a track, by frame."""
    recs = list_annotations(project, media_id=media_id, kinds=["box"], track_id=track_id)
    return sorted((r for r in recs if r.is_keyframe and r.frame_index is not None), key=lambda r: r.frame_index)


def track_boxes(project: Project, media_id: str, track_id: int,
                frames: Iterable[int] | None = None) -> dict[int, tracks.TrackBox]:
    """Boxes of a track on every frame from its first to its last keyframe (interpolated between).

    See ``fieldstudio.core.tracks.interpolate_track`` for the formula.
    """
    keys = track_keyframes(project, media_id, track_id)
    return tracks.interpolate_track([(r.frame_index, r.geometry) for r in keys], frames)


@dataclass(frozen=True)
class FrameBox:
    """A box shown on one frame: a stored box (``annotation_id`` set) or a track's interpolated box.

    ``box`` is ``(x1, y1, x2, y2)`` pixels; ``keyframe`` False means interpolated (drawn differently;
    :func:`make_keyframe` converts it).
    """

    annotation_id: str | None
    track_id: int | None
    label_id: str | None
    label_name: str | None
    box: tracks.Box
    keyframe: bool
    attributes: dict[str, Any] | None
    version: int | None = None  # the stored box's version when read (None for an interpolated box)


def boxes_on_frame(project: Project, media_id: str, frame_index: int | None) -> list[FrameBox]:
    """Every box to draw on a frame: stored boxes there, and interpolated boxes of tracks spanning it.

    Reads only the boxes on the frame and, per track, the keyframes just before and after it, so
    stepping through a long video with many boxes stays quick.
    """
    with project.read() as s:
        return frame_boxes(s, media_id, frame_index)


def frame_boxes(s: Session, media_id: str, frame_index: int | None) -> list[FrameBox]:
    """:func:`boxes_on_frame` in the open session ``s`` (two queries, three when a track spans the frame)."""
    live_boxes = (Annotation.media_id == media_id) & (Annotation.kind == "box") & Annotation.deleted.is_(False)
    frame_cond = Annotation.frame_index.is_(None) if frame_index is None else Annotation.frame_index == frame_index
    here = select_records(s, select(Annotation).where(live_boxes, frame_cond)
                          .order_by(Annotation.created_at, Annotation.id))
    if frame_index is None:
        return boxes_from(here, {}, {}, frame_index)
    keyed = live_boxes & Annotation.track_id.is_not(None) & Annotation.is_keyframe.is_(True)
    spans = interpolated_spans(here, *keyframes_around(s, keyed, frame_index))
    keys = select_records(s, select(Annotation).where(
        keyed, Annotation.track_id.in_(list(spans)), Annotation.frame_index.in_(sorted(
            {f for span in spans.values() for f in span})))) if spans else []
    return boxes_from(here, spans, {(r.track_id, r.frame_index): r for r in keys}, frame_index)


def interpolated_spans(here: Sequence[AnnotationRecord], before: dict[int, int],
                       after: dict[int, int]) -> dict[int, tuple[int, int]]:
    """{track: (its keyframe before the frame, its keyframe after)} for the box tracks interpolated on a frame: those
    with a keyframe on either side (``keyframes_around``) and none among the boxes ``here`` on the frame."""
    drawn = {b.track_id for b in here if b.track_id is not None}
    return {t: (f0, after[t]) for t, f0 in before.items() if t in after and t not in drawn}


def boxes_from(here: Sequence[AnnotationRecord], spans: dict[int, tuple[int, int]],
               keys: dict[tuple[int, int], AnnotationRecord], frame_index: int | None) -> list[FrameBox]:
    """The boxes drawn on ``frame_index``: the stored ones ``here`` (in order), then one per track of ``spans``
    (:func:`interpolated_spans`) interpolated between its keyframes, which ``keys`` gives by (track, frame)."""
    out = [FrameBox(r.id, r.track_id, r.label_id, r.label_name, tuple(r.geometry), True, r.attributes, r.version)
           for r in here]
    for track_id in sorted(spans):
        f0, f1 = spans[track_id]
        k0, k1 = keys[(track_id, f0)], keys[(track_id, f1)]
        box = tracks.interpolate_track([(f0, k0.geometry), (f1, k1.geometry)], [frame_index])[frame_index].box
        out.append(FrameBox(None, track_id, k0.label_id, k0.label_name, box, False, k0.attributes))
    return out


def keyframes_around(s: Session, keyed, frame_index: int) -> tuple[dict[int, int], dict[int, int]]:  # noqa: ANN001
    """({track: its last keyframe before ``frame_index``}, {track: its first keyframe after it}) among the
    annotations the SQL condition ``keyed`` selects, in one grouped query (was one query each way)."""
    rows = s.execute(select(Annotation.track_id,
                            func.max(case((Annotation.frame_index < frame_index, Annotation.frame_index))),
                            func.min(case((Annotation.frame_index > frame_index, Annotation.frame_index))))
                     .where(keyed).group_by(Annotation.track_id)).all()
    return ({t: f for t, f, _ in rows if f is not None}, {t: f for t, _, f in rows if f is not None})


def make_keyframe(project: Project, media_id: str, track_id: int, frame_index: int,
                  geometry: Sequence[float] | None = None) -> str:
    """Turn a track's interpolated box on ``frame_index`` into a keyframe box; returns its id.

    ``geometry`` ``(x1, y1, x2, y2)`` pixels is where the keyframe goes (an interpolated box moved or
    resized on screen); by default the interpolated box itself. The new box takes the label and
    attributes of the keyframe before it. Raises AnnotationError when the track has no interpolated
    box on that frame (outside its span, or already a keyframe).
    """
    keys = track_keyframes(project, media_id, track_id)
    got = tracks.interpolate_track([(r.frame_index, r.geometry) for r in keys], [frame_index])
    if frame_index not in got or got[frame_index].keyframe:
        raise AnnotationError(f"track {track_id} has no interpolated box on frame {frame_index}")
    before = max((r for r in keys if r.frame_index < frame_index), key=lambda r: r.frame_index)
    return insert_annotation(project, media_id, "box", frame_index=frame_index, frame_required=True,
                   geometry=got[frame_index].box if geometry is None else tuple(geometry),
                   label_id=before.label_id, track_id=track_id, attributes=before.attributes, is_keyframe=True)


def copy_box(project: Project, annotation_id: str, frame_index: int | None = None) -> str:
    """Copy a video box to another frame (default: the next frame) with its label, track and attributes.

    Returns the new box's id. Raises AnnotationError when the frame is past the video's end or its
    track already has a box there.
    """
    src = get_annotation(project, annotation_id)
    if src.kind != "box" or src.frame_index is None:
        raise AnnotationError("only a box on a video frame can be copied to another frame")
    target = src.frame_index + 1 if frame_index is None else frame_index
    return insert_annotation(project, src.media_id, "box", frame_index=target, frame_required=True,
                   geometry=src.geometry, label_id=src.label_id, track_id=src.track_id,
                   attributes=src.attributes, is_keyframe=True)
