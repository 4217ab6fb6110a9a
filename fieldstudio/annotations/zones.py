"""Is the subject inside the zone, frame by frame (issue 32 item 1): a zone polygon, a subject (points marks, a
skeleton's points or a box's ground point) and, per frame, whether the subject stood inside it.

The zone is one polygon mark. Without a track it applies to every frame asked: a zone drawn once on a fixed
camera's view (the restricted area does not move in the picture). A zone polygon kept as a shape track (a camera
that pans: its keyframes moved with the view) is the track's polygon on each frame, interpolated vertex by vertex
between keyframes (``shape_tracks.track_shapes``); a frame where the track has no polygon (outside its keyframes,
or between keyframes of different vertex counts) is not checked. Another untracked polygon of the same label on a
frame may be another zone, so this check never guesses a zone per frame from loose polygons.

The subject, on each frame of the range where it appears:

* ``points``: every point of the points marks of the subject label on that frame;
* ``skeleton``: the placed points of the skeletons of the subject label (``point`` names one point of the
  template, e.g. "left_ankle": only that one; absent points are never tested);
* a points mark or skeleton kept as a shape track is read on every frame from its first to its last keyframe,
  interpolated between keyframes (``shape_tracks.track_shapes``); ``track_id`` picks one track;
* ``box``: the ground point of each box of the subject label, the bottom centre ``((x1 + x2) / 2, y2)`` where a
  person stands (``trajectory.ground_point``); a track's box on every frame from its first to its last keyframe,
  interpolated between keyframes (``box_tracks.track_boxes``); ``track_id`` picks one track.

A frame is "inside" when any tested point of the subject on it lies inside the zone or on its edge (even-odd rule,
``core.shapes.contains``; checked against OpenCV's ``pointPolygonTest`` in the tests). Frames where the subject
does not appear are not frames of the answer: "all" means every frame on which the subject was seen.
The range: ``start_frame`` to ``end_frame`` (inclusive; None open); without either, the zone's own frame (a zone on
a photo: the photo; a zone track: its first to its last keyframe). Qt-free; the task editor, ``fieldstudio zone`` and the ground-truth links call it.
"""

from __future__ import annotations

from dataclasses import dataclass

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations import labels, skeleton_templates
from fieldstudio.annotations.box_tracks import track_boxes
from fieldstudio.annotations.shape_tracks import shape_keyframes, track_shapes
from fieldstudio.annotations.trajectory import ground_point
from fieldstudio.core import shapes, skeletons
from fieldstudio.store.project import Project

SUBJECTS = ("points", "skeleton", "box")
ANSWER_MODES = ("any", "all")


class ZoneError(ann.AnnotationError):
    """A zone check cannot be made as asked (not a polygon, unknown subject or skeleton point)."""


@dataclass(frozen=True)
class ZoneFrame:
    """One frame of a zone check: ``tested`` subject points on it, ``inside`` of them inside or on the edge;
    ``frame_index`` None on a photo."""

    frame_index: int | None
    tested: int
    inside: int

    @property
    def is_inside(self) -> bool:
        """Whether the subject stood inside the zone on this frame (any tested point inside)."""
        return self.inside > 0


@dataclass(frozen=True)
class ZoneCheck:
    """A zone check's frames (in frame order, only those where the subject appears) and what was checked."""

    zone_id: str
    zone: str
    subject: str
    range_text: str
    frames: tuple[ZoneFrame, ...]

    def answer(self, mode: str = "any") -> bool | None:
        """"any": inside on at least one frame; "all": inside on every frame where the subject appears; None when
        the subject appears on no frame of the range. Raises ZoneError for another mode."""
        if mode not in ANSWER_MODES:
            raise ZoneError(f"unknown zone answer {mode!r}; use {' or '.join(ANSWER_MODES)}")
        if not self.frames:
            return None
        test = any if mode == "any" else all
        return test(f.is_inside for f in self.frames)

    def explain(self, mode: str = "any") -> str:
        """"track 1's ground point inside polygon zone on 3 of 9 frame(s) where seen (...)", for the ground truth's explanation and the CLI."""
        n_in = sum(f.is_inside for f in self.frames)
        points_in, points = sum(f.inside for f in self.frames), sum(f.tested for f in self.frames)
        rule = "on any frame" if mode == "any" else "on every frame"
        return (f"{self.subject} inside {self.zone} on {n_in} of {len(self.frames)} frame(s) where seen "
                f"({points_in} of {points} point(s) inside; {self.range_text}); asked: inside {rule}")


def _range(zone: ann.AnnotationRecord, start: int | None, end: int | None,
           zone_track: dict | None) -> tuple[int | None, int | None, str]:
    if zone.frame_index is None:
        return None, None, "the photo"
    if start is None and end is None and zone_track:
        first, last = min(zone_track), max(zone_track)
        return first, last, f"frames {first}-{last}, the zone track's"
    if start is None and end is None:
        return zone.frame_index, zone.frame_index, f"frame {zone.frame_index}, the zone's"
    return start, end, f"frames {'start' if start is None else start}-{'end' if end is None else end}"


def _in(frame: int | None, start: int | None, end: int | None) -> bool:
    if frame is None:
        return True
    return (start is None or frame >= start) and (end is None or frame <= end)


def subject_points(project: Project, media_id: str, *, subject: str = "points", label_id: str | None = None,
                   track_id: int | None = None, point: str | None = None, start_frame: int | None = None,
                   end_frame: int | None = None) -> dict[int | None, list[tuple[float, float]]]:
    """{frame index (None on a photo): the subject's points (pixels) on it} for the frames of the range where the
    subject appears (module docstring). Raises ZoneError for an unknown subject or skeleton point name."""
    if subject not in SUBJECTS:
        raise ZoneError(f"unknown zone subject {subject!r}; use {', '.join(SUBJECTS)}")
    labels = None if label_id is None else [label_id]
    out: dict[int | None, list[tuple[float, float]]] = {}
    if subject == "box":
        boxes = ann.list_annotations(project, media_id=media_id, kinds=["box"], label_ids=labels,
                                     track_id=track_id)
        tracked = sorted({b.track_id for b in boxes if b.track_id is not None})
        for b in boxes:
            if b.track_id is None and _in(b.frame_index, start_frame, end_frame):
                out.setdefault(b.frame_index, []).append(ground_point(b.geometry))
        for t in tracked:
            for f, tb in track_boxes(project, media_id, t).items():
                if _in(f, start_frame, end_frame):
                    out.setdefault(f, []).append(ground_point(tb.box))
        return dict(sorted(out.items(), key=lambda kv: -1 if kv[0] is None else kv[0]))
    recs = ann.list_annotations(project, media_id=media_id, kinds=[subject], label_ids=labels, track_id=track_id)
    known = skeleton_templates.known(project) if subject == "skeleton" else {}

    def tmpl(name: str | None) -> skeletons.SkeletonTemplate:
        return skeletons.template(name, known)
    for r in recs:
        if r.track_id is None and _in(r.frame_index, start_frame, end_frame):
            _add_points(out, r.frame_index, r.geometry, tmpl(r.text) if subject == "skeleton" else None, point)
    for t in sorted({r.track_id for r in recs if r.track_id is not None}):
        template = tmpl(next(r.text for r in recs if r.track_id == t)) if subject == "skeleton" else None
        for f, shape in track_shapes(project, media_id, t).items():
            if _in(f, start_frame, end_frame):
                _add_points(out, f, shape.vertices, template, point)
    return dict(sorted(out.items(), key=lambda kv: -1 if kv[0] is None else kv[0]))


def _add_points(out: dict, frame: int | None, vertices: list, tmpl: skeletons.SkeletonTemplate | None,
                point: str | None) -> None:
    """Adds a points mark's vertices (``template`` None) or a skeleton's placed points (``point``: that one only)
    to ``out[frame]``."""
    if tmpl is None:
        pts = [tuple(p) for p in vertices if p is not None]
    else:
        if point is not None and point not in tmpl.points:
            raise ZoneError(f"no skeleton point {point!r} in {tmpl.name}; use one of {', '.join(tmpl.points)}")
        chosen = vertices if point is None else [vertices[tmpl.points.index(point)]]
        pts = [tuple(p) for p in chosen if p is not None]
    if pts:
        out.setdefault(frame, []).extend(pts)


def check_zone(project: Project, zone_id: str, *, subject: str = "points", label_id: str | None = None,
               track_id: int | None = None, point: str | None = None, start_frame: int | None = None,
               end_frame: int | None = None) -> ZoneCheck:
    """Whether the subject is inside zone polygon ``zone_id``, frame by frame (module docstring). Raises NotFound
    (no such annotation), ZoneError (not a live polygon, unknown subject or point)."""
    zone = ann.get_annotation(project, zone_id)
    if zone.kind != "polygon" or zone.deleted:
        raise ZoneError(f"a zone must be a polygon, annotation {zone_id} is a{' deleted' if zone.deleted else ''} "
                        f"{zone.kind}")
    zone_track = None
    if zone.track_id is not None and len(shape_keyframes(project, zone.media_id, zone.track_id)) > 1:
        zone_track = {f: sh.vertices for f, sh in track_shapes(project, zone.media_id, zone.track_id).items()}
    start, end, range_text = _range(zone, start_frame, end_frame, zone_track)
    found = subject_points(project, zone.media_id, subject=subject, label_id=label_id, track_id=track_id,
                           point=point, start_frame=start, end_frame=end)
    outline = (lambda f: zone.geometry) if zone_track is None else zone_track.get
    frames = tuple(ZoneFrame(f, len(pts), sum(1 for p in pts if shapes.contains(outline(f), p)))
                   for f, pts in found.items() if outline(f) is not None)
    what = {"points": "points", "skeleton": f"skeleton point {point}" if point else "skeleton points",
            "box": f"track {track_id}'s ground point" if track_id is not None else "box ground points"}[subject]
    label = "" if label_id is None else f" of {labels.get_label(project, label_id).name}"
    return ZoneCheck(zone.id, f"polygon {zone.label_name or ''}".strip(), what + label, range_text, frames)


__all__ = ["SUBJECTS", "ANSWER_MODES", "ZoneError", "ZoneFrame", "ZoneCheck", "subject_points", "check_zone"]
