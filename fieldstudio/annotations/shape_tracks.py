"""Shape tracks: a polygon, polyline, points mark or skeleton followed over a video's frames (issue 32).

A shape with a ``track_id`` is a keyframe of that track (one per frame, all of one kind); the shapes on the frames
between two keyframes are interpolated vertex by vertex on read (``core.shape_tracks``), never stored, as box
tracks are (``annotations.box_tracks``; both share the media's track ids, ``box_tracks.next_track_id``). A new
shape drawn on a video starts its own track, so copying it to the next frame (Ctrl+D) or keying it on a later frame
adds a keyframe of that track. Writes go through ``annotation_records`` (one short transaction each).
Errors: NotFound for an unknown media or annotation, AnnotationError for a frame where a track has no shape to key.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from fieldstudio.annotations import box_tracks
from fieldstudio.annotations.annotation_records import (AnnotationError, AnnotationRecord, get_annotation,
                                                        insert_annotation, list_annotations, select_records, update)
from fieldstudio.core import shape_tracks
from fieldstudio.core.shapes import SHAPE_KINDS
from fieldstudio.store.models import Annotation
from fieldstudio.store.project import Project

#: The kinds a shape track holds.
SHAPE_TRACK_KINDS = (*SHAPE_KINDS, "skeleton")


def shape_keyframes(project: Project, media_id: str, track_id: int) -> list[AnnotationRecord]:
    """The live keyframe shapes of a track, by frame."""
    recs = list_annotations(project, media_id=media_id, kinds=SHAPE_TRACK_KINDS, track_id=track_id)
    return sorted((r for r in recs if r.is_keyframe and r.frame_index is not None), key=lambda r: r.frame_index)


def track_shapes(project: Project, media_id: str, track_id: int,
                 frames: Iterable[int] | None = None) -> dict[int, shape_tracks.TrackShape]:
    """The shapes of a track on every frame from its first to its last keyframe (``core.shape_tracks``' rule;
    frames between keyframes of different vertex counts left out)."""
    keys = shape_keyframes(project, media_id, track_id)
    return shape_tracks.interpolate_shape_track([(r.frame_index, r.geometry) for r in keys], frames)


@dataclass(frozen=True)
class FrameShape:
    """A shape shown on one frame: a stored one (``annotation_id`` set) or a track's interpolated one.

    ``vertices`` ``[[x, y] | None, ...]`` pixels; ``template`` a skeleton's template name; ``note`` why a frame
    next to this keyframe is not interpolated (``core.shape_tracks.gap_reason``), else None."""

    annotation_id: str | None
    kind: str
    track_id: int | None
    label_id: str | None
    label_name: str | None
    vertices: list
    keyframe: bool
    attributes: dict[str, Any] | None
    template: str | None = None
    version: int | None = None
    note: str | None = None


def _stored(r: AnnotationRecord, note: str | None = None) -> FrameShape:
    return FrameShape(r.id, r.kind, r.track_id, r.label_id, r.label_name, r.geometry, True, r.attributes,
                      r.text if r.kind == "skeleton" else None, r.version, note)


def shapes_on_frame(project: Project, media_id: str, frame_index: int | None) -> list[FrameShape]:
    """Every polygon, polyline, points mark and skeleton to draw on a frame (None: a photo): those stored there, and
    the interpolated shapes of the tracks spanning it. A keyframe next to frames left uninterpolated carries the
    reason in ``note``. Reads the shapes on the frame and, per track, the keyframes just before and after it."""
    with project.read() as s:
        return frame_shapes(s, media_id, frame_index)


def frame_shapes(s: Session, media_id: str, frame_index: int | None) -> list[FrameShape]:
    """:func:`shapes_on_frame` in the open session ``s`` (two queries, three when a track has a keyframe on either
    side)."""
    live = (Annotation.media_id == media_id) & Annotation.kind.in_(SHAPE_TRACK_KINDS) & Annotation.deleted.is_(False)
    frame_cond = Annotation.frame_index.is_(None) if frame_index is None else Annotation.frame_index == frame_index
    here = select_records(s, select(Annotation).where(live, frame_cond).order_by(Annotation.created_at, Annotation.id))
    if frame_index is None:
        return shapes_from(here, {}, {}, {}, frame_index)
    keyed = live & Annotation.track_id.is_not(None) & Annotation.is_keyframe.is_(True)
    before, after = box_tracks.keyframes_around(s, keyed, frame_index)
    wanted = keyframes_beside(before, after)
    near = select_records(s, select(Annotation).where(
        keyed, Annotation.track_id.in_(sorted({t for t, _f in wanted})),
        Annotation.frame_index.in_(sorted({f for _t, f in wanted})))) if wanted else []
    return shapes_from(here, before, after, {(r.track_id, r.frame_index): r for r in near}, frame_index)


def keyframes_beside(before: dict[int, int], after: dict[int, int]) -> set[tuple[int, int]]:
    """The (track, frame) of every shape keyframe :func:`shapes_from` needs: each track's keyframe just before the
    frame and just after it (``box_tracks.keyframes_around``), to interpolate or to say why a gap is not."""
    return set(before.items()) | set(after.items())


def shapes_from(here: Sequence[AnnotationRecord], before: dict[int, int], after: dict[int, int],
                near: dict[tuple[int, int], AnnotationRecord], frame_index: int | None) -> list[FrameShape]:
    """The shapes drawn on ``frame_index``: the stored ones ``here`` (in order, a keyframe with the reason a frame
    beside it is not interpolated), then the interpolated shape of each track with a keyframe on either side and
    none on the frame. ``near`` gives the keyframes of :func:`keyframes_beside` by (track, frame)."""
    out: list[FrameShape] = []
    drawn = set()
    for r in here:
        note = None
        if r.track_id is not None and r.is_keyframe:
            drawn.add(r.track_id)
            for other in (near.get((r.track_id, before.get(r.track_id))),
                          near.get((r.track_id, after.get(r.track_id)))):
                if other is not None and note is None:
                    f0, f1 = sorted((other.frame_index, frame_index))
                    g0, g1 = (other.geometry, r.geometry) if other.frame_index < frame_index else \
                        (r.geometry, other.geometry)
                    note = shape_tracks.gap_reason(f0, g0, f1, g1)
        out.append(_stored(r, note))
    for track_id in sorted(t for t in before if t in after and t not in drawn):
        k0, k1 = near[(track_id, before[track_id])], near[(track_id, after[track_id])]
        got = shape_tracks.interpolate_shape_track([(k0.frame_index, k0.geometry), (k1.frame_index, k1.geometry)],
                                                   [frame_index]).get(frame_index)
        if got is None:
            continue  # keyframes of different vertex counts: nothing between them (their Properties say why)
        out.append(FrameShape(None, k0.kind, track_id, k0.label_id, k0.label_name,
                              [None if v is None else list(v) for v in got.vertices], False, k0.attributes,
                              k0.text if k0.kind == "skeleton" else None))
    return out


def key_shape(project: Project, media_id: str, track_id: int, frame_index: int,
              vertices: Sequence | None = None) -> str:
    """A keyframe of shape track ``track_id`` on ``frame_index``; returns its id.

    ``vertices`` (pixels; a skeleton's absent points None) are where it goes (an interpolated shape whose vertex
    was dragged on screen); by default the shape the track shows there: the interpolated one between two
    keyframes, else the nearest keyframe's (before the frame, or after it before the track's first), so a track
    is extended to a later frame by keying it there and dragging its vertices. The new keyframe takes the label,
    attributes and template of the keyframe before it (else after). Raises AnnotationError when the track has no
    shape keyframe or already has a keyframe on that frame.
    """
    keys = shape_keyframes(project, media_id, track_id)
    if not keys:
        raise AnnotationError(f"track {track_id} has no polygon, polyline, points or skeleton keyframe")
    if any(r.frame_index == frame_index for r in keys):
        raise AnnotationError(f"track {track_id} already has a keyframe on frame {frame_index}")
    earlier = [r for r in keys if r.frame_index < frame_index]
    source = earlier[-1] if earlier else keys[0]
    if vertices is None:
        got = shape_tracks.interpolate_shape_track([(r.frame_index, r.geometry) for r in keys],
                                                   [frame_index]).get(frame_index)
        vertices = source.geometry if got is None else [None if v is None else list(v) for v in got.vertices]
    return insert_annotation(project, media_id, source.kind, frame_index=frame_index, frame_required=True,
                             geometry=list(vertices), label_id=source.label_id, track_id=track_id,
                             attributes=source.attributes, text=source.text, is_keyframe=True)


def copy_shape(project: Project, annotation_id: str, frame_index: int | None = None) -> str:
    """Copy a polygon, polyline, points mark or skeleton on a video frame to another frame (default: the next one)
    as a keyframe of its track, with its label and attributes; returns the new mark's id.

    A shape with no track (drawn before shapes had tracks, or imported as a single mark) is given a new track id
    first, in its own transaction: the copy then keys that track, and undoing the copy leaves the original a
    one-keyframe track, drawn as before. Raises AnnotationError for another kind, a mark on a photo, a frame past
    the video's end, or a frame where the track has a keyframe already.
    """
    src = get_annotation(project, annotation_id)
    if src.kind not in SHAPE_TRACK_KINDS or src.frame_index is None:
        raise AnnotationError("only a polygon, polyline, points mark or skeleton on a video frame can be copied to a "
                              "frame")
    target = src.frame_index + 1 if frame_index is None else frame_index
    track_id = src.track_id
    if track_id is None:
        track_id = box_tracks.next_track_id(project, src.media_id)
        update(project, annotation_id, track_id=track_id, is_keyframe=True)
    return insert_annotation(project, src.media_id, src.kind, frame_index=target, frame_required=True,
                             geometry=src.geometry, label_id=src.label_id, attributes=src.attributes, text=src.text,
                             track_id=track_id, is_keyframe=True)
