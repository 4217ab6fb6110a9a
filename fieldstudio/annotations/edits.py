"""Undoable edits of annotations, calibrations and labels (see :mod:`fieldstudio.store.edits`).

Creating edits keep the id of what they created: undo soft-deletes it and redo restores the same row,
so later edits in the stack that name it stay valid.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from fieldstudio.annotations import angles
from fieldstudio.annotations import calibrations as cal
from fieldstudio.annotations import stopwatch
from fieldstudio.annotations import labels
from fieldstudio.annotations import box_tracks
from fieldstudio.annotations import mark_batches, shape_tracks
from fieldstudio.annotations import annotation_records as ann
from fieldstudio.core import tracks
from fieldstudio.core.errors import NotFound
from fieldstudio.store.edits import Edit, EditGroup
from fieldstudio.store.project import Project


class CreateAnnotation(Edit):
    """Create an annotation with ``create()`` (first do), then restore / soft-delete the same row. ``kind``: the
    row's kind when the caller states it (see ``annotation_kinds_of``)."""

    def __init__(self, project: Project, text: str, create: Callable[[], str], *, kind: str | None = None):
        self.project, self.text, self._create, self.kind = project, text, create, kind
        self.annotation_id: str | None = None

    def do(self) -> None:
        if self.annotation_id is None:
            self.annotation_id = self._create()
        else:
            ann.restore(self.project, self.annotation_id)

    def undo(self) -> None:
        ann.delete(self.project, self.annotation_id)


def AddBox(project: Project, media_id: str, rect_xywh_px: Sequence[float], label_id: str | None = None,
           **kwargs: Any) -> CreateAnnotation:  # noqa: N802 - reads as a command class
    """Edit: ``annotations.annotation_records.add_box`` (keyword arguments as there)."""
    return CreateAnnotation(project, "Add box",
                            lambda: ann.add_box(project, media_id, rect_xywh_px, label_id, **kwargs))


def AddRuler(project: Project, media_id: str, p: Sequence[float], q: Sequence[float],
             **kwargs: Any) -> CreateAnnotation:  # noqa: N802
    """Edit: ``annotation_records.add_ruler``."""
    return CreateAnnotation(project, "Add ruler", lambda: ann.add_ruler(project, media_id, p, q, **kwargs))


def AddShape(project: Project, media_id: str, kind: str, vertices: Sequence[Sequence[float]],  # noqa: N802
             **kwargs: Any) -> CreateAnnotation:
    """Edit: ``annotation_records.add_shape`` (a polygon, polyline or points mark; keyword arguments as there)."""
    return CreateAnnotation(project, f"Add {kind}",
                            lambda: ann.add_shape(project, media_id, kind, vertices, **kwargs))


def AddSkeleton(project: Project, media_id: str, points: Sequence[Sequence[float] | None],  # noqa: N802
                **kwargs: Any) -> CreateAnnotation:
    """Edit: ``annotation_records.add_skeleton`` (one point or None per template point)."""
    return CreateAnnotation(project, "Add skeleton", lambda: ann.add_skeleton(project, media_id, points, **kwargs))


def CopyShape(project: Project, annotation_id: str, frame_index: int | None = None) -> CreateAnnotation:  # noqa: N802
    """Edit: ``shape_tracks.copy_shape`` (a polygon, polyline, points mark or skeleton to the next frame by default,
    as a keyframe of its track)."""
    return CreateAnnotation(project, "Copy shape to frame",
                            lambda: shape_tracks.copy_shape(project, annotation_id, frame_index))


def KeyShape(project: Project, media_id: str, track_id: int, frame_index: int,  # noqa: N802
             vertices: Sequence | None = None, text: str = "Make keyframe") -> CreateAnnotation:
    """Edit: ``shape_tracks.key_shape`` (a shape track's keyframe on ``frame_index``: where ``vertices`` say, by
    default the shape the track shows there); ``text`` names it in the undo menu ("Move vertex", ...)."""
    return CreateAnnotation(project, text,
                            lambda: shape_tracks.key_shape(project, media_id, track_id, frame_index, vertices))


def AddStopwatch(project: Project, media_id: str, start_frame: int, end_frame: int,
                 **kwargs: Any) -> CreateAnnotation:  # noqa: N802
    """Edit: ``stopwatch.add_stopwatch`` (the time between two frames kept as a measurement)."""
    return CreateAnnotation(project, "Stopwatch", lambda: stopwatch.add_stopwatch(
        project, media_id, start_frame, end_frame, **kwargs))


def AddSegment(project: Project, media_id: str, label_id: str | None, start_frame: int,
               end_frame: int | None = None, **kwargs: Any) -> CreateAnnotation:  # noqa: N802
    """Edit: ``annotation_records.add_segment`` (key I)."""
    return CreateAnnotation(project, "Start segment", lambda: ann.add_segment(
        project, media_id, label_id, start_frame, end_frame, **kwargs))


def AddEvent(project: Project, media_id: str, frame_index: int, label_id: str | None = None,
             **kwargs: Any) -> CreateAnnotation:  # noqa: N802
    """Edit: ``annotation_records.add_event`` (key E)."""
    return CreateAnnotation(project, "Mark event",
                            lambda: ann.add_event(project, media_id, frame_index, label_id, **kwargs))


def AddTag(project: Project, media_id: str, text: str, frame_index: int | None = None,
           **kwargs: Any) -> CreateAnnotation:  # noqa: N802
    """Edit: ``annotation_records.add_tag``."""
    return CreateAnnotation(project, "Add tag", lambda: ann.add_tag(project, media_id, text, frame_index, **kwargs))


def CopyBox(project: Project, annotation_id: str, frame_index: int | None = None) -> CreateAnnotation:  # noqa: N802
    """Edit: ``annotations.copy_box`` (to the next frame by default)."""
    return CreateAnnotation(project, "Copy box to frame", lambda: box_tracks.copy_box(project, annotation_id, frame_index))


def MakeKeyframe(project: Project, media_id: str, track_id: int, frame_index: int,  # noqa: N802
                 rect_xywh_px: Sequence[float] | None = None) -> CreateAnnotation:
    """Edit: ``annotations.make_keyframe`` (an interpolated box becomes a keyframe).

    With ``rect_xywh_px`` the keyframe is put there (an interpolated box moved or resized on screen:
    one edit, "Move box", that one undo takes back). Raises AnnotationError for an empty rectangle.
    """
    if rect_xywh_px is None:
        return CreateAnnotation(project, "Make keyframe",
                                lambda: box_tracks.make_keyframe(project, media_id, track_id, frame_index))
    try:
        xyxy = tracks.xywh_to_xyxy(rect_xywh_px)
    except ValueError as exc:
        raise ann.AnnotationError(str(exc)) from None
    return CreateAnnotation(project, "Move box",
                            lambda: box_tracks.make_keyframe(project, media_id, track_id, frame_index, xyxy))


class CreateMany(Edit):
    """Create several annotations in one transaction (``mark_batches.add_many``) as one undo step.

    Undo soft-deletes them all in one transaction, redo restores the same rows. ``before`` edits (e.g.
    giving the start box of a tracked stretch a track id) are done first and undone last.
    """

    def __init__(self, project: Project, text: str, marks: Sequence[mark_batches.NewMark], before: Sequence[Edit] = ()):
        self.project, self.text, self.marks, self.before = project, text, list(marks), list(before)
        self.annotation_ids: list[str] | None = None

    def do(self) -> None:
        done: list[Edit] = []
        try:
            for edit in self.before:
                edit.do()
                done.append(edit)
            if self.annotation_ids is None:
                self.annotation_ids = mark_batches.add_many(self.project, self.marks)
            else:
                ann.restore_many(self.project, self.annotation_ids)
        except Exception:
            for edit in reversed(done):
                edit.undo()
            raise

    def undo(self) -> None:
        if self.annotation_ids:
            ann.delete_many(self.project, self.annotation_ids)
        for edit in reversed(self.before):
            edit.undo()


class UpdateAnnotation(Edit):
    """Change fields of one annotation (``annotations.update``); undo writes the previous values back.

    ``expected_version``: the version of the record the change was made from; the first ``do()`` raises
    EditConflict (nothing changed) when someone changed the row since (``store.changes``). ``kind``: the row's
    kind when the caller states it (see ``annotation_kinds_of``).
    """

    def __init__(self, project: Project, annotation_id: str, text: str = "Edit annotation", *,
                 expected_version: int | None = None, kind: str | None = None, **changes: Any):
        self.project, self.annotation_id, self.text, self.changes = project, annotation_id, text, changes
        self.expected_version, self.kind = expected_version, kind
        self.previous: dict[str, Any] | None = None

    @property
    def frame_index(self) -> int | None:
        """The frame this change puts a segment's end or start on (None for other changes): where the edit
        happens, which is not the segment's start frame when its end moves."""
        frame = self.changes.get("end_frame_index", self.changes.get("frame_index"))
        return None if frame is None else int(frame)

    def do(self) -> None:
        expected = self.expected_version if self.previous is None else None
        previous = ann.update(self.project, self.annotation_id, expected_version=expected, **self.changes)
        if self.previous is None:
            self.previous = previous

    def undo(self) -> None:
        ann.update(self.project, self.annotation_id, **self.previous)


def MoveBox(project: Project, annotation_id: str, rect_xywh_px: Sequence[float],  # noqa: N802
            expected_version: int | None = None) -> UpdateAnnotation:
    """Edit: move or resize a box to ``(x, y, w, h)`` pixels. Raises AnnotationError for an empty box."""
    try:
        xyxy = tracks.xywh_to_xyxy(rect_xywh_px)
    except ValueError as exc:
        raise ann.AnnotationError(str(exc)) from None
    return UpdateAnnotation(project, annotation_id, "Move box", geometry=list(xyxy), expected_version=expected_version)


def MoveRuler(project: Project, annotation_id: str, p: Sequence[float],  # noqa: N802
              q: Sequence[float]) -> UpdateAnnotation:
    """Edit: move a ruler's ends."""
    return UpdateAnnotation(project, annotation_id, "Move ruler", geometry=[list(p), list(q)])


def MoveShape(project: Project, annotation_id: str, vertices: Sequence[Sequence[float]],  # noqa: N802
              text: str = "Move shape", expected_version: int | None = None) -> UpdateAnnotation:
    """Edit: give a polygon, polyline or points mark new vertices ``[[x, y], ...]`` (moved, a vertex dragged,
    inserted or deleted; ``text`` says which for the undo menu), or a skeleton its points (None: absent)."""
    geometry = [None if v is None else [float(v[0]), float(v[1])] for v in vertices]  # a skeleton's absent points
    return UpdateAnnotation(project, annotation_id, text, geometry=geometry, expected_version=expected_version)


def AddAngle(project: Project, media_id: str, a: Sequence[float], vertex: Sequence[float], b: Sequence[float],
             **kwargs: Any) -> CreateAnnotation:  # noqa: N802
    """Edit: ``angles.add_angle`` (three points, the vertex in the middle)."""
    return CreateAnnotation(project, "Add angle", lambda: angles.add_angle(project, media_id, a, vertex, b, **kwargs))


def MoveAngle(project: Project, annotation_id: str, points: Sequence[Sequence[float]]) -> UpdateAnnotation:  # noqa: N802
    """Edit: move an angle's points (``[a, vertex, b]``)."""
    return UpdateAnnotation(project, annotation_id, "Move angle", geometry=[list(p) for p in points])


def SetLabel(project: Project, annotation_id: str, label_id: str | None) -> UpdateAnnotation:  # noqa: N802
    """Edit: give an annotation another label."""
    return UpdateAnnotation(project, annotation_id, "Change label", label_id=label_id)


def SetAttributes(project: Project, annotation_id: str,  # noqa: N802
                  attributes: dict[str, Any] | None) -> UpdateAnnotation:
    """Edit: replace an annotation's free attributes."""
    return UpdateAnnotation(project, annotation_id, "Change attributes", attributes=attributes)


def CloseSegment(project: Project, annotation_id: str, end_frame: int) -> UpdateAnnotation:  # noqa: N802
    """Edit: end a segment on ``end_frame`` (key O), or move its end."""
    return UpdateAnnotation(project, annotation_id, "End segment", end_frame_index=end_frame)


def MoveSegmentStart(project: Project, annotation_id: str, start_frame: int) -> UpdateAnnotation:  # noqa: N802
    """Edit: move a segment's start (dragged on the timeline)."""
    return UpdateAnnotation(project, annotation_id, "Move segment start", frame_index=start_frame)


class DeleteAnnotations(Edit):
    """Soft-delete one or more annotations in one transaction; undo restores them."""

    def __init__(self, project: Project, annotation_ids: str | Iterable[str],
                 expected: dict[str, int] | None = None):
        ids = [annotation_ids] if isinstance(annotation_ids, str) else list(annotation_ids)
        self.project, self.annotation_ids = project, ids
        self.expected = expected  # id -> version read: the first do() refuses a stale delete (EditConflict)
        self.text = "Delete" if len(ids) == 1 else f"Delete {len(ids)} annotations"

    def do(self) -> None:
        ann.delete_many(self.project, self.annotation_ids, self.expected)
        self.expected = None

    def undo(self) -> None:
        ann.restore_many(self.project, self.annotation_ids)


# -- calibrations -----------------------------------------------------------------------------------
class SaveCalibration(Edit):
    """Save (create or replace) a calibration; undo deletes it or writes the replaced one back.

    Keyword arguments as ``calibrations.save_calibration``. CalibrationError on degenerate input is
    raised by the first ``do()`` and nothing is saved.
    """

    text = "Calibrate"

    def __init__(self, project: Project, **fields: Any):
        self.project, self.fields = project, fields
        self.calibration_id: str | None = fields.get("calibration_id")
        self.before: cal.CalibrationRecord | None = None
        self._first = True

    def do(self) -> None:
        if self._first:
            self.before = self._replaced()
        fields = dict(self.fields, calibration_id=self.calibration_id)
        self.calibration_id = cal.save_calibration(self.project, **fields)
        self._first = False

    def _replaced(self) -> cal.CalibrationRecord | None:
        if self.calibration_id:
            try:
                return cal.get_calibration(self.project, self.calibration_id)
            except NotFound:  # a new id (redo after a delete): nothing is replaced
                return None
        for rec in cal.list_calibrations(self.project):
            if (rec.kind == self.fields["kind"] and rec.media_id == self.fields.get("media_id")
                    and rec.camera_group == self.fields.get("camera_group")):
                return rec
        return None

    def undo(self) -> None:
        if self.before is None:
            cal.delete_calibration(self.project, self.calibration_id)
        else:
            cal.save_calibration(self.project, **cal.calibration_fields(self.before))


class DeleteCalibration(Edit):
    """Delete a calibration; undo saves it again under the same id."""

    text = "Delete calibration"

    def __init__(self, project: Project, calibration_id: str):
        self.project, self.calibration_id = project, calibration_id
        self.before: cal.CalibrationRecord | None = None

    def do(self) -> None:
        self.before = cal.delete_calibration(self.project, self.calibration_id)

    def undo(self) -> None:
        cal.save_calibration(self.project, **cal.calibration_fields(self.before))


class ChooseCalibration(Edit):
    """Make the scale or the floor calibration the one in use for a media or a camera group
    (``calibrations.choose_calibration``); undo puts the previous choice back."""

    text = "Choose the calibration in use"

    def __init__(self, project: Project, kind: str | None, *, media_id: str | None = None,
                 camera_group: str | None = None):
        self.project, self.kind = project, kind
        self.scope = {"media_id": media_id, "camera_group": camera_group}
        self.previous: str | None = None

    def do(self) -> None:
        self.previous = cal.choose_calibration(self.project, self.kind, **self.scope)

    def undo(self) -> None:
        cal.choose_calibration(self.project, self.previous, **self.scope)


class SetCameraGroup(Edit):
    """Put media in a camera group (or take them out with None); undo puts each back where it was."""

    text = "Set camera group"

    def __init__(self, project: Project, media_ids: Iterable[str], group: str | None):
        self.project, self.media_ids, self.group = project, list(media_ids), group
        self.previous: dict[str, str | None] = {}

    def do(self) -> None:
        self.previous = cal.set_camera_group(self.project, self.media_ids, self.group)

    def undo(self) -> None:
        by_group: dict[str | None, list[str]] = {}
        for media_id, group in self.previous.items():
            by_group.setdefault(group, []).append(media_id)
        for group, ids in by_group.items():
            cal.set_camera_group(self.project, ids, group)


# -- labels -----------------------------------------------------------------------------------------
class CreateLabel(Edit):
    """Add a label (``labels.create_label``); undo deletes it, redo re-creates it under the same id."""

    text = "Add label"

    def __init__(self, project: Project, name: str, color: str | None = None, shortcut: int | None = None, *,
                 kinds: Iterable[str] | None = None, attributes: Iterable[Any] | None = None):
        self.project, self.name, self.color, self.shortcut = project, name, color, shortcut
        self.kinds, self.attributes = kinds, attributes
        self.label_id: str | None = None

    def do(self) -> None:
        if self.label_id is None:
            self.label_id = labels.create_label(self.project, self.name, self.color, self.shortcut,
                                                kinds=self.kinds, attributes=self.attributes)
            rec = labels.get_label(self.project, self.label_id)
            self.color, self.shortcut = rec.color, rec.shortcut
        else:
            labels.create_label(self.project, self.name, self.color, self.shortcut, auto_shortcut=False,
                                label_id=self.label_id, kinds=self.kinds, attributes=self.attributes)

    def undo(self) -> None:
        labels.delete_label(self.project, self.label_id)


class UpdateLabel(Edit):
    """Rename, recolour, re-key, re-list or re-declare a label; undo writes the previous values back."""

    text = "Change label"

    def __init__(self, project: Project, label_id: str, **changes: Any):
        self.project, self.label_id, self.changes = project, label_id, changes
        self.before: labels.LabelRecord | None = None

    def do(self) -> None:
        before = labels.update_label(self.project, self.label_id, **self.changes)
        if self.before is None:
            self.before = before

    def undo(self) -> None:
        b = self.before
        labels.update_label(self.project, self.label_id, name=b.name, color=b.color, shortcut=b.shortcut,
                            kinds=b.kinds, attributes=b.attributes)


class DeleteLabel(Edit):
    """Delete an unused label; undo re-creates it with its id, name, colour and key."""

    text = "Delete label"

    def __init__(self, project: Project, label_id: str):
        self.project, self.label_id = project, label_id
        self.before: labels.LabelRecord | None = None

    def do(self) -> None:
        self.before = labels.delete_label(self.project, self.label_id)

    def undo(self) -> None:
        b = self.before
        labels.create_label(self.project, b.name, b.color, b.shortcut, auto_shortcut=False, label_id=b.id,
                            kinds=b.kinds, attributes=b.attributes)


class WithDefaultLabel(Edit):
    """Create the label ``name`` for ``kind`` when the project has none of that name, then do
    ``make(label_id)``; one undo step removes both (a ruler drawn in a project without "distance")."""

    def __init__(self, project: Project, name: str, kind: str, make: Callable[[str], Edit]):
        self.project, self.name, self.kind, self._make = project, name, kind, make
        self.created: CreateLabel | None = None
        self.inner: Edit | None = None
        self.text = "Add mark"

    def do(self) -> None:
        if self.inner is None:
            found = labels.find_label(self.project, self.name)
            if found is None:
                self.created = CreateLabel(self.project, self.name, kinds=[self.kind])
                self.created.do()
                label_id = self.created.label_id
            else:
                label_id = found.id
            try:
                self.inner = self._make(label_id)
                self.inner.do()
            except Exception:
                if self.created is not None:
                    self.created.undo()
                self.inner = None
                raise
            self.text = self.inner.text
            self.annotation_id = getattr(self.inner, "annotation_id", None)
            return
        if self.created is not None:
            self.created.do()
        self.inner.do()
        if self.created is not None and self.annotation_id is not None:
            # deleting the label on undo emptied the soft-deleted mark's label (ON DELETE SET NULL)
            ann.update(self.project, self.annotation_id, label_id=self.created.label_id)

    def undo(self) -> None:
        self.inner.undo()
        if self.created is not None:
            self.created.undo()


def annotation_ids_of(edit: Edit) -> frozenset[str] | None:
    """The ids of the annotations ``edit`` creates, changes or deletes (after its ``do()``: a creation knows its
    id then), so a view can re-read those rows only; None when the edit is of another kind or holds one (a
    calibration, a label, a batch import): the view must re-read everything. An edit group's are its members'."""
    return _over_members(edit, _ids_of_one)


def annotation_kinds_of(edit: Edit) -> frozenset[str] | None:
    """The kinds of the annotations ``edit`` touches when every one of its rows states it (the behaviour coding's
    edits do: a key press need not redraw the boxes or re-read the annotation list, which never hold behaviour
    events); None when any row's kind is not stated."""
    return _over_members(edit, _kind_of_one)


def _over_members(edit: Edit, one: Callable[[Edit], frozenset[str] | None]) -> frozenset[str] | None:
    """``one(edit)``, or for an edit group the union over its members (None as soon as one member gives None)."""
    if type(edit) is not EditGroup:
        return one(edit)
    out: set[str] = set()
    for member in edit.edits:
        part = _over_members(member, one)
        if part is None:
            return None
        out |= part
    return frozenset(out)


def _ids_of_one(edit: Edit) -> frozenset[str] | None:
    if type(edit) in (CreateAnnotation, UpdateAnnotation):
        return None if edit.annotation_id is None else frozenset((edit.annotation_id,))
    if type(edit) is DeleteAnnotations:
        return frozenset(edit.annotation_ids)
    return None


def _kind_of_one(edit: Edit) -> frozenset[str] | None:
    kind = getattr(edit, "kind", None) if type(edit) in (CreateAnnotation, UpdateAnnotation) else None
    return None if kind is None else frozenset((kind,))
