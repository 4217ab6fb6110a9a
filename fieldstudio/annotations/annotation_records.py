"""Annotations: boxes, rulers, time segments, events and tags, each edit one short write transaction.

This is the one service behind the viewer's tools, the annotation list and the exporters (no Qt). Rules:

* Geometry is stored in pixels of the upright full-resolution frame: a box as ``[x1, y1, x2, y2]``
  (clipped to the image), a ruler as ``[[x1, y1], [x2, y2]]``, a polygon, polyline or points mark as its
  vertices ``[[x, y], ...]`` (``core.shapes``). Callers pass boxes as ``(x, y, w, h)``.
* A video annotation is attached to a frame index; its PTS is read from the video's stored frame
  table (``frame_index`` rows) in the same transaction, never computed as index / fps. Seconds are
  ``pts * time_base``. A photo annotation has no frame (``frame_index`` None; 0 is accepted as "the photo").
* Every function that changes something commits before it returns; :func:`delete` is a soft delete
  and :func:`restore` brings the same row back, so an undo stack (``fieldstudio.annotations.edits``) never
  loses an id. :func:`update` returns the previous values of what it changed, which is the undo.
* A box with a ``track_id`` is a keyframe of that track (one per frame); boxes on the frames between
  two keyframes are interpolated on read (``annotations.box_tracks``, ``fieldstudio.core.tracks``).
* Annotations on a media whose file went missing stay and are listed as usual; only reading pixels
  (exports with images) needs the file. Behaviour events' states never overlap (``behaviour.store_rule``).

Errors: NotFound for an unknown media or annotation, AnnotationError for bad input (each message says what is
wrong and how to fix it), ProjectReadOnly when the project cannot be written.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from fieldstudio.annotations import bulk_updates
from fieldstudio.annotations.annotation_errors import AnnotationError, keyframe_taken
from fieldstudio.annotations.behaviour import store_rule
from fieldstudio.core import shapes, skeletons, tracks
from fieldstudio.core.errors import NotFound
from fieldstudio.store.changes import check_version
from fieldstudio.store.models import Annotation, FrameIndexRow, Label, Media, ProjectSetting, new_id, utcnow
from fieldstudio.store.project import Project

KINDS = ("box", "ruler", "polygon", "polyline", "points", "skeleton", "segment", "event", "tag", "stopwatch",
         "angle")
store_rule.register()  # the store refuses overlapping behaviour states however they are written
#: Fields :func:`update` may change.
UPDATABLE = ("geometry", "label_id", "text", "frame_index", "end_frame_index", "attributes", "track_id",
             "is_keyframe", "on_floor", "author")


@dataclass(frozen=True)
class AnnotationRecord:
    """One annotation as read from the project (a snapshot; edit it through the service functions).

    ``geometry``: box ``[x1, y1, x2, y2]`` or ruler ``[[x1, y1], [x2, y2]]``, upright image pixels.
    ``pts`` / ``end_pts``: in the video's time base; ``pts_seconds`` / ``end_pts_seconds`` = pts * time_base.
    """

    id: str
    media_id: str
    kind: str
    label_id: str | None
    label_name: str | None
    text: str | None
    frame_index: int | None
    pts: int | None
    pts_seconds: float | None
    end_frame_index: int | None
    end_pts: int | None
    end_pts_seconds: float | None
    geometry: Any
    attributes: dict[str, Any] | None
    track_id: int | None
    is_keyframe: bool
    on_floor: bool
    author: str | None
    deleted: bool
    version: int = 1  # the row's version when read: pass it as ``expected_version`` to refuse a stale edit
    updated_by: str | None = None

    @property
    def is_open(self) -> bool:
        """True for a segment that was started (I) but not yet ended (O)."""
        return self.kind == "segment" and self.end_frame_index is None

    @property
    def duration_s(self) -> float | None:
        """A closed segment's duration in seconds: ``end_pts_seconds - pts_seconds``; else None."""
        if self.pts_seconds is None or self.end_pts_seconds is None:
            return None
        return self.end_pts_seconds - self.pts_seconds

    @property
    def box_xywh(self) -> tracks.Box | None:
        """A box's ``(x, y, w, h)`` in pixels; None for other kinds."""
        return tracks.xyxy_to_xywh(self.geometry) if self.kind == "box" and self.geometry else None


def _seconds(pts: int | None, media: Media) -> float | None:
    if pts is None:
        return None
    return float(pts * Fraction(media.time_base_num or 1, media.time_base_den or 1))


def _record(row: Annotation, media: Media, label: Label | None) -> AnnotationRecord:
    return AnnotationRecord(
        id=row.id, media_id=row.media_id, kind=row.kind, label_id=row.label_id,
        label_name=label.name if label is not None else None, text=row.text,
        frame_index=row.frame_index, pts=row.pts, pts_seconds=_seconds(row.pts, media),
        end_frame_index=row.end_frame_index, end_pts=row.end_pts, end_pts_seconds=_seconds(row.end_pts, media),
        geometry=row.geometry, attributes=row.attributes, track_id=row.track_id,
        is_keyframe=bool(row.is_keyframe), on_floor=bool(row.on_floor), author=row.author,
        deleted=bool(row.deleted), version=row.version or 1, updated_by=row.updated_by)


# -- validation inside a transaction ----------------------------------------------------------------
def media_row(s: Session, media_id: str) -> Media:
    """The Media row ``media_id`` in the open session ``s``. Raises NotFound when there is none."""
    media = s.get(Media, media_id)
    if media is None:
        raise NotFound(f"no media with id {media_id!r} in the project")
    return media


def _row(s: Session, annotation_id: str) -> Annotation:
    row = s.get(Annotation, annotation_id)
    if row is None:
        raise NotFound(f"no annotation with id {annotation_id!r} in the project")
    return row


def _check_label(s: Session, label_id: str | None) -> None:
    if label_id is not None and s.get(Label, label_id) is None:
        raise NotFound(f"no label with id {label_id!r} in the project")


def frame_pts(s: Session, media: Media, frame_index: int | None, *, required: bool) -> tuple[int | None, int | None]:
    """(frame_index, pts) to store for an annotation on ``media``, PTS read from the frame table.

    Photos: (None, None) for frame None or 0. Videos: the frame must be in the stored frame table
    (a ``required`` frame must be given; a tag may omit it). Raises AnnotationError otherwise.
    """
    if media.kind == "document":
        if frame_index is not None:
            raise AnnotationError(f"{media.file_name}: a document has no frames")
        return None, None
    if media.kind == "image":
        if frame_index not in (None, 0):
            raise AnnotationError(f"{media.file_name}: a photo has only frame 0, not frame {frame_index}")
        return None, None
    if frame_index is None:
        if required:
            raise AnnotationError(f"{media.file_name}: a video annotation needs a frame index")
        return None, None
    if isinstance(frame_index, bool) or not isinstance(frame_index, int):
        raise AnnotationError(f"{media.file_name}: frame index must be an integer, got {frame_index!r}")
    row = s.get(FrameIndexRow, (media.id, frame_index))
    if row is None:
        if not media.frame_count:
            raise AnnotationError(f"{media.file_name}: its frame index is not built yet; index the video "
                                  "(`fieldstudio index`) before annotating it")
        raise AnnotationError(f"{media.file_name}: frame {frame_index} is outside 0..{media.frame_count - 1}")
    return frame_index, int(row.pts)


def _box_geometry(media: Media, box_xyxy: Sequence[float]) -> list[float]:
    try:
        box = tracks.normalise_xyxy(box_xyxy)
        if media.width and media.height:
            box = tracks.clip_xyxy(box, media.width, media.height)
    except ValueError as exc:
        raise AnnotationError(f"{media.file_name}: {exc}") from None
    return [float(v) for v in box]


def _ruler_geometry(media: Media, points: Sequence[Sequence[float]]) -> list[list[float]]:
    try:
        (x1, y1), (x2, y2) = ((float(a), float(b)) for a, b in points)
    except (TypeError, ValueError):
        raise AnnotationError(f"{media.file_name}: a ruler needs two points (x, y), got {points!r}") from None
    if not all(math.isfinite(v) for v in (x1, y1, x2, y2)):
        raise AnnotationError(f"{media.file_name}: ruler points must be finite pixel coordinates")
    if math.hypot(x2 - x1, y2 - y1) <= 1e-9:
        raise AnnotationError(f"{media.file_name}: the ruler's two ends coincide; drag between two points")
    return [[x1, y1], [x2, y2]]


def _shape_geometry(media: Media, kind: str, vertices: Sequence[Sequence[float]]) -> list[list[float]]:
    try:
        return shapes.as_vertices(kind, vertices, (media.width or 0, media.height or 0))
    except shapes.ShapeError as exc:
        raise AnnotationError(f"{media.file_name}: {exc}") from None


def _skeleton_geometry(s: Session, media: Media, template: str | None, label_id: str | None,
                       points: Sequence[Any]) -> tuple[str, list[list[float] | None]]:
    """(template name, checked points); ``template`` None: label ``label_id``'s own template, else COCO's."""
    known = skeletons.templates_from_setting(getattr(s.get(ProjectSetting, "skeleton_templates"), "value", None))
    own = None if label_id is None else skeletons.label_template_name(label_id)
    try:
        tmpl = skeletons.template(template or (own if own in known else None), known)
        return tmpl.name, skeletons.as_points(tmpl, points, (media.width or 0, media.height or 0))
    except shapes.ShapeError as exc:
        raise AnnotationError(f"{media.file_name}: {exc}") from None


def _angle_geometry(media: Media, points: Sequence[Sequence[float]]) -> list[list[float]]:
    """An angle's three points ``[[ax, ay], [vx, vy], [bx, by]]``, the vertex in the middle; each arm non-empty."""
    try:
        pts = [(float(x), float(y)) for x, y in points]
    except (TypeError, ValueError):
        raise AnnotationError(f"{media.file_name}: an angle needs three points (x, y), got {points!r}") from None
    if len(pts) != 3 or not all(math.isfinite(v) for p in pts for v in p):
        raise AnnotationError(f"{media.file_name}: an angle needs three finite points, the vertex in the middle")
    if math.dist(pts[0], pts[1]) <= 1e-9 or math.dist(pts[2], pts[1]) <= 1e-9:
        raise AnnotationError(f"{media.file_name}: an arm of the angle has no length; click three distinct points")
    return [list(p) for p in pts]


def _check_kind_media(kind: str, media: Media) -> None:
    if kind not in KINDS and kind != "behaviour":  # a coded behaviour has its own list (annotations/behaviour/)
        raise AnnotationError(f"unknown kind of annotation {kind!r}: use {', '.join(KINDS)}")
    allowed = ("image", "video") if kind in (*shapes.SHAPE_KINDS, "skeleton") else {
        "box": ("image", "video"), "ruler": ("image", "video"), "segment": ("video",),
        "event": ("video",), "behaviour": ("video",), "tag": ("image", "video", "document"), "stopwatch": ("video",),
        "angle": ("image", "video")}[kind]
    if media.kind not in allowed:
        raise AnnotationError(f"{media.file_name}: a {kind} can be put on a {' or '.join(allowed)}, "
                              f"not on a {media.kind}")
    if media.kind == "video" and kind != "tag" and not media.frame_count:
        raise AnnotationError(f"{media.file_name}: its frame index is not built yet; index the video "
                              "(`fieldstudio index`) before annotating it")


#: The kinds a track can hold (a box track, or a shape track of one of the vertex kinds: ``annotations.shape_tracks``).
TRACK_KINDS = ("box", *shapes.SHAPE_KINDS, "skeleton")


def _check_track_frame(s: Session, row: Annotation, taken: set[tuple] | None = None) -> None:
    """A track has at most one live keyframe per frame (a box, or a shape of a shape track). ``taken``: in a batch
    (``add_many``), the (media, track, frame) of every live keyframe stored or added so far, checked instead."""
    if row.kind not in TRACK_KINDS or row.track_id is None or row.deleted or not row.is_keyframe:
        return
    if taken is not None:
        key = (row.media_id, row.track_id, row.frame_index)
        if key in taken:
            raise keyframe_taken(row.track_id, row.frame_index, row.kind)
        taken.add(key)
        return
    clash = s.scalars(select(Annotation.id).where(
        Annotation.media_id == row.media_id, Annotation.kind.in_(TRACK_KINDS), Annotation.track_id == row.track_id,
        Annotation.frame_index.is_(None) if row.frame_index is None else Annotation.frame_index == row.frame_index,
        Annotation.deleted.is_(False), Annotation.is_keyframe.is_(True), Annotation.id != row.id)).first()
    if clash is not None:
        raise keyframe_taken(row.track_id, row.frame_index, row.kind)


def _check_segment_ends(media: Media, row: Annotation) -> None:
    if row.kind in ("segment", "stopwatch", "behaviour") and row.end_frame_index is not None and \
            row.end_frame_index < row.frame_index:
        raise AnnotationError(f"{media.file_name}: the {row.kind} would end (frame {row.end_frame_index}) "
                              f"before it starts (frame {row.frame_index})")


def insert_annotation(project: Project, media_id: str, kind: str, *, frame_index: int | None, frame_required: bool,
            end_frame_index: int | None = None, geometry: Any = None, **values: Any) -> str:
    """Validate and insert one annotation in one transaction; returns its id."""
    with project.write() as s:
        return insert_row(s, media_id, kind, frame_index=frame_index, frame_required=frame_required,
                           end_frame_index=end_frame_index, geometry=geometry, **values)


def insert_row(s: Session, media_id: str, kind: str, *, frame_index: int | None, frame_required: bool,
                end_frame_index: int | None = None, geometry: Any = None, taken: set[tuple] | None = None,
                **values: Any) -> str:
    """Validate and insert one annotation in the open transaction ``s``; returns its id (made here, so the row
    is flushed now only outside a batch: ``taken`` is a batch's, see ``_check_track_frame``)."""
    media = media_row(s, media_id)
    _check_kind_media(kind, media)
    _check_label(s, values.get("label_id"))
    frame, pts = frame_pts(s, media, frame_index, required=frame_required)
    row = Annotation(id=new_id(), media_id=media_id, kind=kind, frame_index=frame, pts=pts, **values)
    if kind == "box":
        row.geometry = _box_geometry(media, geometry)
    elif kind == "ruler":
        row.geometry = _ruler_geometry(media, geometry)
    elif kind in shapes.SHAPE_KINDS:
        row.geometry = _shape_geometry(media, kind, geometry)
    elif kind == "skeleton":
        row.text, row.geometry = _skeleton_geometry(s, media, row.text, row.label_id, geometry)
    elif kind == "angle":
        row.geometry = _angle_geometry(media, geometry)
    if end_frame_index is not None:
        row.end_frame_index, row.end_pts = frame_pts(s, media, end_frame_index, required=True)
    _check_segment_ends(media, row)
    _check_track_frame(s, row, taken)
    s.add(row)
    if taken is None:
        s.flush()
    return row.id


# -- making annotations -----------------------------------------------------------------------------
def add_box(project: Project, media_id: str, rect_xywh_px: Sequence[float], label_id: str | None = None,
            frame_index: int | None = None, track_id: int | None = None,
            attributes: dict[str, Any] | None = None, keyframe: bool = True, *, author: str | None = None) -> str:
    """Add a box ``(x, y, w, h)`` in upright image pixels (clipped to the image); returns its id.

    On a video, ``frame_index`` is required and ``track_id`` makes it a keyframe of that track.
    ``attributes`` are free key/values (e.g. ``{"vest": "no"}``). Raises AnnotationError for an
    empty box, a box outside the image, a frame not in the frame table, or a second keyframe of the
    track on the same frame; NotFound for an unknown media or label.
    """
    try:
        box = tracks.xywh_to_xyxy(rect_xywh_px)
    except ValueError as exc:
        raise AnnotationError(str(exc)) from None
    return insert_annotation(project, media_id, "box", frame_index=frame_index, frame_required=True, geometry=box,
                   label_id=label_id, track_id=track_id, attributes=attributes or None,
                   is_keyframe=bool(keyframe), author=author)


def add_ruler(project: Project, media_id: str, p: Sequence[float], q: Sequence[float], *,
              frame_index: int | None = None, on_floor: bool = False, label_id: str | None = None,
              text: str | None = None, author: str | None = None) -> str:
    """Add a ruler from image point p to q (pixels); ``on_floor`` measures it on the floor plane.

    Lengths are computed on read by ``calibrations.measure_ruler``. Raises AnnotationError when the
    two ends coincide or the frame is not in the frame table.
    """
    return insert_annotation(project, media_id, "ruler", frame_index=frame_index, frame_required=True,
                   geometry=[p, q], on_floor=bool(on_floor), label_id=label_id, text=text, author=author)


def add_shape(project: Project, media_id: str, kind: str, vertices: Sequence[Sequence[float]], *,
              frame_index: int | None = None, label_id: str | None = None, attributes: dict[str, Any] | None = None,
              text: str | None = None, author: str | None = None, track_id: int | None = None) -> str:
    """Add a polygon, polyline or points mark (``kind``, see ``core.shapes``) through ``vertices``
    ``[[x, y], ...]`` in upright image pixels (clipped to the image); returns its id.

    On a video ``frame_index`` is required and ``track_id`` makes it a keyframe of that shape track
    (``annotations.shape_tracks``). Raises AnnotationError for an unknown kind, too few distinct vertices, a
    polygon of no area, a frame not in the frame table or a second keyframe of the track on the frame; NotFound
    for an unknown media or label.
    """
    return insert_annotation(project, media_id, kind, frame_index=frame_index, frame_required=True,
                             geometry=vertices, label_id=label_id, attributes=attributes or None, text=text,
                             author=author, track_id=track_id)


def add_skeleton(project: Project, media_id: str, points: Sequence[Sequence[float] | None], *,
                 template: str | None = None, frame_index: int | None = None, label_id: str | None = None,
                 attributes: dict[str, Any] | None = None, author: str | None = None,
                 track_id: int | None = None) -> str:
    """Add a keypoint skeleton: one ``[x, y]`` (pixels) or None (absent) per point of ``template`` (a template name,
    ``core.skeletons``; None: the label's own template, else the 17 COCO body points), stored with the template's
    name in ``text``; returns its id. ``track_id`` makes it a keyframe of that shape track. Raises AnnotationError
    for a wrong point count, an unknown template or no point placed."""
    return insert_annotation(project, media_id, "skeleton", frame_index=frame_index, frame_required=True,
                             geometry=list(points), label_id=label_id, attributes=attributes or None, text=template,
                             author=author, track_id=track_id)


def add_segment(project: Project, media_id: str, label_id: str | None, start_frame: int,
                end_frame: int | None = None, *, text: str | None = None, author: str | None = None) -> str:
    """Start a time segment of ``label_id`` at ``start_frame`` (key I); open until :func:`close_segment`.

    Both ends are inclusive frame indices with PTS from the frame table. Raises AnnotationError for a
    photo, a frame outside the table, or an end before the start.
    """
    return insert_annotation(project, media_id, "segment", frame_index=start_frame, frame_required=True,
                   end_frame_index=end_frame, label_id=label_id, text=text, author=author)


def close_segment(project: Project, annotation_id: str, end_frame: int) -> dict[str, Any]:
    """End a segment at ``end_frame`` (key O; also moves an end dragged on the timeline).

    Returns the previous values (for undo). Raises AnnotationError when the end is before the start.
    """
    return update(project, annotation_id, end_frame_index=end_frame)


def add_event(project: Project, media_id: str, frame_index: int, label_id: str | None = None, *,
              text: str | None = None, author: str | None = None) -> str:
    """Mark an event of ``label_id`` on frame ``frame_index`` (key E); returns its id."""
    return insert_annotation(project, media_id, "event", frame_index=frame_index, frame_required=True,
                   label_id=label_id, text=text, author=author)


def add_tag(project: Project, media_id: str, text: str, frame_index: int | None = None, *,
            label_id: str | None = None, author: str | None = None) -> str:
    """Tag a whole media (``frame_index`` None) or one video frame, e.g. "blurry"; returns its id."""
    text = (text or "").strip()
    if not text:
        raise AnnotationError("a tag needs some text, e.g. 'blurry' or 'no people'")
    return insert_annotation(project, media_id, "tag", frame_index=frame_index, frame_required=False,
                   text=text, label_id=label_id, author=author)


# -- changing them ----------------------------------------------------------------------------------
def update(project: Project, annotation_id: str, *, expected_version: int | None = None,
           **changes: Any) -> dict[str, Any]:
    """Change fields of one annotation in one transaction; returns their previous values.

    ``expected_version`` is the ``version`` of the record the change was made from (a window's read):
    when the row has moved on since, EditConflict (``store.changes``) names who changed it and when, and
    nothing is changed.

    Fields: ``geometry`` (stored form: box ``[x1, y1, x2, y2]``, ruler ``[[x1, y1], [x2, y2]]``, polygon,
    polyline or points ``[[x, y], ...]``),
    ``label_id``, ``text``, ``frame_index``, ``end_frame_index`` (PTS re-read from the frame table),
    ``attributes``, ``track_id``, ``is_keyframe``, ``on_floor``, ``author``. Passing the returned
    dict back (``update(project, id, **previous)``) undoes the change.
    Raises NotFound, AnnotationError (unknown field, bad geometry or frame).
    """
    unknown = set(changes) - set(UPDATABLE)
    if unknown:
        raise AnnotationError(f"cannot change {', '.join(sorted(unknown))} of an annotation")
    with project.write() as s:
        row = _row(s, annotation_id)
        check_version(row, expected_version)
        media = media_row(s, row.media_id)
        previous = {k: getattr(row, k) for k in changes}
        for key, value in changes.items():
            if key == "geometry":
                if row.kind == "box":
                    value = _box_geometry(media, value)
                elif row.kind == "ruler":
                    value = _ruler_geometry(media, value)
                elif row.kind in shapes.SHAPE_KINDS:
                    value = _shape_geometry(media, row.kind, value)
                elif row.kind == "skeleton":
                    value = _skeleton_geometry(s, media, row.text, None, value)[1]
                elif row.kind == "angle":
                    value = _angle_geometry(media, value)
                elif value is not None:
                    raise AnnotationError(f"a {row.kind} has no geometry")
                row.geometry = value
            elif key == "frame_index":
                row.frame_index, row.pts = frame_pts(s, media, value, required=row.kind != "tag")
            elif key == "end_frame_index":
                if row.kind not in ("segment", "stopwatch", "behaviour"):
                    raise AnnotationError(f"a {row.kind} has no end frame")
                row.end_frame_index, row.end_pts = (None, None) if value is None else frame_pts(
                    s, media, value, required=True)
            elif key == "label_id":
                _check_label(s, value)
                row.label_id = value
            elif key == "attributes":
                row.attributes = dict(value) if value else None
            else:
                setattr(row, key, value)
        _check_segment_ends(media, row)
        _check_track_frame(s, row)
        row.updated_at = utcnow()
        return previous


def update_geometry(project: Project, annotation_id: str, geometry: Any) -> dict[str, Any]:
    """Set a box's ``[x1, y1, x2, y2]`` or a ruler's ``[[x1, y1], [x2, y2]]``; returns the previous value."""
    return update(project, annotation_id, geometry=geometry)


def _set_deleted(project: Project, annotation_ids: Iterable[str], deleted: bool,
                 expected: dict[str, int] | None = None) -> None:
    with project.write() as s:
        if not expected:  # in bulk, but for the restores a rule checks row by row (bulk_updates.soft_delete)
            annotation_ids = bulk_updates.soft_delete(s, annotation_ids, deleted, TRACK_KINDS)
        rows = [_row(s, i) for i in annotation_ids]
        for row in rows:
            check_version(row, (expected or {}).get(row.id))
        for row in rows:
            if bool(row.deleted) != deleted:
                row.deleted = deleted
                row.updated_at = utcnow()
        if not deleted:
            s.flush()
            for row in rows:
                _check_track_frame(s, row)


def set_labels(project: Project, labels_of: dict[str, str | None]) -> None:
    """Give each annotation id its label id, in one transaction (a redo after the labels were re-created:
    deleting a label clears it from the soft-deleted marks that used it). Raises NotFound."""
    with project.write() as s:
        bulk_updates.set_labels(s, labels_of)


def delete(project: Project, annotation_id: str) -> None:
    """Soft-delete an annotation (it disappears from lists and exports; :func:`restore` undoes it)."""
    _set_deleted(project, [annotation_id], True)


def restore(project: Project, annotation_id: str) -> None:
    """Bring a soft-deleted annotation back (undo of a delete, redo of an add).

    Raises AnnotationError if its track meanwhile got another keyframe on the same frame.
    """
    _set_deleted(project, [annotation_id], False)


def delete_many(project: Project, annotation_ids: Iterable[str], expected: dict[str, int] | None = None) -> None:
    """Soft-delete several annotations in one transaction (a multi-selection). Raises NotFound, and
    EditConflict when a row's version is not the one in ``expected`` (id -> version read)."""
    _set_deleted(project, annotation_ids, True, expected)


def restore_many(project: Project, annotation_ids: Iterable[str]) -> None:
    """Restore several soft-deleted annotations in one transaction."""
    _set_deleted(project, annotation_ids, False)


# -- reading ----------------------------------------------------------------------------------------
def select_records(s: Session, q) -> list[AnnotationRecord]:  # noqa: ANN001 - a Select of Annotation
    """Run ``q`` (a Select of Annotation) in ``s`` and return the rows as records with media and label joined."""
    return read_records(s, records_statement(q))


def records_statement(q):  # noqa: ANN001, ANN201 - a Select of Annotation, and the Select run
    """``q`` (a Select of Annotation) with its media and label joined, as :func:`select_records` runs it. For a read
    made often (each frame the viewer shows): built once with bound parameters and run by :func:`read_records`, it
    spares building the statement each time, about a third of a small read's Python."""
    return (q.join(Media, Media.id == Annotation.media_id)
            .outerjoin(Label, Label.id == Annotation.label_id)
            .add_columns(Media, Label))


def read_records(s: Session, statement, params: dict | None = None) -> list[AnnotationRecord]:  # noqa: ANN001
    """Run a :func:`records_statement` in ``s`` with the values ``params`` of its bound parameters."""
    return [_record(a, m, lab) for a, m, lab in s.execute(statement, params or {}).all()]


def get_annotation(project: Project, annotation_id: str) -> AnnotationRecord:
    """One annotation (deleted or not). Raises NotFound."""
    with project.read() as s:
        out = select_records(s, select(Annotation).where(Annotation.id == annotation_id))
    if not out:
        raise NotFound(f"no annotation with id {annotation_id!r} in {project.path.name}")
    return out[0]


def list_annotations(project: Project, *, media_id: str | None = None, kinds: Iterable[str] | None = None,
                     label_ids: Iterable[str | None] | None = None, frame_index: int | None = None,
                     track_id: int | None = None, include_deleted: bool = False) -> list[AnnotationRecord]:
    """Annotations matching every filter given, ordered by media, frame (media-level first), kind, creation.

    ``label_ids`` may contain None to include unlabelled annotations. ``frame_index`` selects the
    annotations on that frame, plus segments covering it.
    """
    q = select(Annotation)
    if media_id is not None:
        q = q.where(Annotation.media_id == media_id)
    if kinds is not None:
        q = q.where(Annotation.kind.in_(list(kinds)))
    if label_ids is not None:
        ids = list(label_ids)
        cond = Annotation.label_id.in_([i for i in ids if i is not None])
        q = q.where(cond | Annotation.label_id.is_(None) if None in ids else cond)
    if frame_index is not None:
        covers = (Annotation.kind == "segment") & (Annotation.frame_index <= frame_index) & (
            Annotation.end_frame_index.is_(None) | (Annotation.end_frame_index >= frame_index))
        q = q.where((Annotation.frame_index == frame_index) | covers)
    if track_id is not None:
        q = q.where(Annotation.track_id == track_id)
    if not include_deleted:
        q = q.where(Annotation.deleted.is_(False))
    q = q.order_by(Annotation.media_id, Annotation.frame_index.is_not(None), Annotation.frame_index,
                   Annotation.kind, Annotation.created_at, Annotation.id)
    with project.read() as s:
        return select_records(s, q)


def count_annotations(project: Project, media_id: str | None = None) -> dict[str, int]:
    """Number of live annotations per kind (in one media, or in the project)."""
    q = select(Annotation.kind, func.count()).where(Annotation.deleted.is_(False)).group_by(Annotation.kind)
    if media_id is not None:
        q = q.where(Annotation.media_id == media_id)
    with project.read() as s:
        counts = dict.fromkeys(KINDS, 0) | {k: n for k, n in s.execute(q).all()}
    return counts


def open_segments(project: Project, media_id: str | None = None) -> list[AnnotationRecord]:
    """Segments started but not ended (the app asks to close them on exit)."""
    return [r for r in list_annotations(project, media_id=media_id, kinds=["segment"]) if r.is_open]


def overlapping_segments(project: Project,
                         media_id: str | None = None) -> list[tuple[AnnotationRecord, AnnotationRecord]]:
    """Pairs of segments of the same label on the same video that share at least one frame.

    Ends are inclusive; an open segment runs to the end of the video. Unlabelled segments are not compared.
    """
    groups: dict[tuple[str, str], list[AnnotationRecord]] = defaultdict(list)
    for r in list_annotations(project, media_id=media_id, kinds=["segment"]):
        if r.label_id is not None:
            groups[(r.media_id, r.label_id)].append(r)
    out = []
    for recs in groups.values():
        by_id = {r.id: r for r in recs}
        for a, b in tracks.overlapping_pairs([(r.id, r.frame_index, r.end_frame_index) for r in recs]):
            out.append((by_id[a], by_id[b]))
    return out
