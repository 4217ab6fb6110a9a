"""Ground truth computed from annotations, and kept linked: editing the annotation updates the task.

A link is stored with the task, in ``Task.ground_truth_extra["annotation_link"]`` (a JSON object, see
:class:`GroundTruthLink`); links to one annotation also set ``Task.ground_truth_annotation_id``. The
ground truth text is computed from the annotations as they are now (:func:`compute`) and written when the
link is made (:func:`link_fields`). Afterwards it is never changed silently: :func:`pending_changes` lists what
the annotations would change (before → after, what was counted or measured), and the change is stored only
when a person accepts it (the task editor's Accept / Accept all, one undoable edit; :func:`apply_changes`, which
``fieldstudio refresh-ground-truth --apply`` calls). A task imported from a benchmark is locked against such
updates (:func:`lock_reason`) until a person unlocks it (:func:`unlock_fields`, the task editor's lock).

Link kinds and the value they give (texts chosen so ``core/matchers.py`` reads them back):

=====================  ====================================================================================
``ruler_distance``     a ruler's length in metres with the calibration that applies now
                       (``calibrations.measure_ruler``; scale or floor homography): ``"2.35 m"`` (2 decimals).
                       A ruler without calibration gives no value. As for ``polygon_area``, the value keeps which
                       ruler, which calibration and the unrounded length (:func:`ruler_basis`).
``segment_range``      a closed segment's start and end in seconds after the video's first frame (PTS from the
                       frame table minus the first frame's: the clock of the timestamps sent with frames and of
                       a typed reference): ``"from 00:00:01.200 to 00:00:03.500"`` (millisecond precision).
``segment_duration``   end PTS seconds minus start PTS seconds: ``"2.300 s"``.
``event_time``         the time of an event's (or any annotation's) frame, seconds after the first frame:
                       ``"00:00:01.200"``.
``count``              a count over a media, optionally a label and a frame range ``[start_frame, end_frame]``
                       (both inclusive; None = from the first / to the last frame):
                       ``mode="events"``: events on a frame in the range;
                       ``mode="objects"``: distinct objects boxed in the range: a track counts once if any of its
                       boxes (keyframes or the frames interpolated between them) lies in the range; a box
                       without a track counts once;
                       ``mode="max_per_frame"``: the largest number of boxes on one frame of the range (boxes
                       without a track on that frame plus tracks whose first-to-last keyframe span covers it).
                       On a photo every box counts (there is one frame). Text: ``"3"``.
                       ``mode="skeletons"``: keypoint skeletons on a frame in the range (one frame: the people
                       posed on it).
``polygon_area``       a polygon's area in m² with the calibration that applies now (every vertex mapped onto
                       the floor through its homography, or the scale's m/px squared;
                       ``shape_marks.measure_shape``): ``"12.35 m²"`` (2 decimals). Uncalibrated: no value.
                       The link's value keeps which polygon, which calibration and the unrounded area
                       (:func:`basis_of`): a change of either is a pending change even when the rounded text
                       stays the same, so the scores that judged it read as stale once it is accepted.
``inside_zone``        whether the subject stood inside a zone polygon (``annotations.zones``): ``annotation_id``
                       the polygon, ``subject`` "points" (default), "skeleton" (``point``: one point name) or
                       "box" (its ground point, bottom centre; ``track_id``: one track), ``label_id`` the
                       subject's label (None: any), ``start_frame``/``end_frame`` the frames (None and None: the
                       zone's own frame), ``mode`` "any" (default: inside on some frame) or "all" (on every
                       frame where the subject is seen): ``"yes"`` or ``"no"``.
=====================  ====================================================================================

Deleted annotations never count; a link to a deleted annotation gives no value (``LinkedValue.ok``
False) and the ground truth keeps its last value until the annotation is restored or the link removed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from sqlalchemy import select

from fieldstudio import benchmarks
from fieldstudio.annotations import calibrations as cal
from fieldstudio.annotations import annotation_records as ann
from fieldstudio.core.errors import FieldstudioError, NotFound
from fieldstudio.media import video_index
from fieldstudio.store.models import Task
from fieldstudio.store.project import Project

LINK_KINDS = ("ruler_distance", "segment_range", "segment_duration", "event_time", "count", "polygon_area",
              "inside_zone")
COUNT_MODES = ("objects", "max_per_frame", "events", "skeletons")
ANSWER_TYPE_OF = {"ruler_distance": "distance", "segment_range": "time_range", "segment_duration": "duration",
                  "event_time": "time", "count": "count", "polygon_area": "area", "inside_zone": "yes_no"}
"""The answer type a link's value has; linking sets the task's answer type to it."""
LINK_KEY = "annotation_link"
BASIS_KEY = "derived_basis"
"""``Task.ground_truth_extra`` key: what a linked value was measured from when it was stored (:func:`basis_of`)."""


class LinkError(FieldstudioError):
    """A ground-truth link cannot be made as asked (wrong annotation kind, unknown mode)."""


@dataclass(frozen=True)
class GroundTruthLink:
    """What a task's ground truth is computed from.

    ``annotation_id`` for the one-annotation kinds; ``media_id``, ``label_id`` (None: any label),
    ``start_frame``/``end_frame`` (inclusive frame indices, None: open) and ``mode`` for ``count``;
    ``inside_zone`` also reads ``label_id``, the frames, ``mode`` ("any"/"all"), ``subject``, ``track_id`` and
    ``point`` (module docstring).
    """

    kind: str
    annotation_id: str | None = None
    media_id: str | None = None
    label_id: str | None = None
    start_frame: int | None = None
    end_frame: int | None = None
    mode: str = "objects"
    subject: str | None = None
    track_id: int | None = None
    point: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The JSON object stored in ``ground_truth_extra["annotation_link"]`` (None values left out)."""
        return {k: v for k, v in asdict(self).items() if v is not None}

    @classmethod
    def from_json(cls, value: Any) -> GroundTruthLink | None:
        """The link stored in a task's ``ground_truth_extra`` value, or None when there is none."""
        if not isinstance(value, dict) or value.get("kind") not in LINK_KINDS:
            return None
        return cls(**{k: value.get(k) for k in ("kind", "annotation_id", "media_id", "label_id", "start_frame",
                                                 "end_frame", "subject", "track_id", "point")},
                   mode=value.get("mode") or ("any" if value.get("kind") == "inside_zone" else "objects"))


@dataclass(frozen=True)
class LinkedValue:
    """A link's value now: ``text`` (the ground truth to store), ``value`` (metres, seconds, a (start, end)
    pair or a count), ``ok`` False when no value can be computed, and ``explanation`` for the user."""

    ok: bool
    text: str | None
    value: Any
    explanation: str
    basis: dict[str, Any] | None = None
    """What the value was measured from, kept with the ground truth (:func:`basis_of`); None for the kinds whose
    text says it all."""


def clock(seconds: float) -> str:
    """``HH:MM:SS.mmm`` for a time in seconds (rounded to the millisecond), e.g. 75.5 -> 00:01:15.500."""
    ms = round(seconds * 1000)
    h, rest = divmod(ms, 3_600_000)
    m, rest = divmod(rest, 60_000)
    s, ms = divmod(rest, 1000)
    return f"{h:02d}:{m:02d}:{s:02d}.{ms:03d}"


def _annotation(project: Project, annotation_id: str | None) -> ann.AnnotationRecord | None:
    if not annotation_id:
        return None
    try:
        return ann.get_annotation(project, annotation_id)
    except NotFound:
        return None


def _in_range(frame: int | None, start: int | None, end: int | None) -> bool:
    if frame is None:
        return True
    return (start is None or frame >= start) and (end is None or frame <= end)


def count_value(project: Project, link: GroundTruthLink) -> tuple[int, str]:
    """(count, what was counted) for a ``count`` link; see the module docstring for the three modes."""
    if link.mode not in COUNT_MODES:
        raise LinkError(f"unknown count mode {link.mode!r}; use one of {', '.join(COUNT_MODES)}")
    if not link.media_id:
        raise LinkError("a count needs a media")
    labels = None if link.label_id is None else [link.label_id]
    s, e = link.start_frame, link.end_frame
    where = "" if s is None and e is None else f" in frames {'start' if s is None else s}-{'end' if e is None else e}"
    if link.mode in ("events", "skeletons"):
        kind = "event" if link.mode == "events" else "skeleton"
        recs = ann.list_annotations(project, media_id=link.media_id, kinds=[kind], label_ids=labels)
        n = sum(1 for r in recs if _in_range(r.frame_index, s, e))
        return n, f"{n} {kind}(s){where}"
    boxes = ann.list_annotations(project, media_id=link.media_id, kinds=["box"], label_ids=labels)
    loose = [b for b in boxes if b.track_id is None]
    spans: dict[int, list[int]] = {}
    for b in boxes:
        if b.track_id is not None and b.frame_index is not None:
            spans.setdefault(b.track_id, []).append(b.frame_index)
    track_spans = {t: (min(f), max(f)) for t, f in spans.items()}
    if link.mode == "objects":
        n_loose = sum(1 for b in loose if _in_range(b.frame_index, s, e))
        n_tracks = sum(1 for f0, f1 in track_spans.values()
                       if (e is None or f0 <= e) and (s is None or f1 >= s))
        n = n_loose + n_tracks
        return n, f"{n} distinct object(s){where} ({n_tracks} track(s), {n_loose} single box(es))"
    loose_per_frame = Counter(b.frame_index for b in loose if _in_range(b.frame_index, s, e))
    if None in loose_per_frame:  # a photo: one frame holds every box
        n = loose_per_frame[None]
        return n, f"{n} box(es) on the photo"
    # Counts only rise where a single box is, where a track starts, or where the range starts.
    candidates = set(loose_per_frame) | {f0 for f0, _ in track_spans.values()} | ({s} if s is not None else set())
    n = max((loose_per_frame.get(f, 0) + sum(1 for f0, f1 in track_spans.values() if f0 <= f <= f1)
             for f in candidates if _in_range(f, s, e)), default=0)
    return n, f"at most {n} box(es) on one frame{where}"


def compute(project: Project, link: GroundTruthLink) -> LinkedValue:
    """The value of a link from the project's annotations and calibrations as they are now."""
    if link.kind not in LINK_KINDS:
        return LinkedValue(False, None, None, f"unknown link kind {link.kind!r}")
    if link.kind == "count":
        try:
            n, what = count_value(project, link)
        except LinkError as exc:
            return LinkedValue(False, None, None, str(exc))
        return LinkedValue(True, str(n), n, what)
    rec = _annotation(project, link.annotation_id)
    if rec is None:
        return LinkedValue(False, None, None, "the linked annotation no longer exists")
    if rec.deleted:
        return LinkedValue(False, None, None, f"the linked {rec.kind} was deleted; undo the delete or unlink")
    name = f"{rec.kind} {rec.label_name or ''}".strip()
    if link.kind in ("polygon_area", "inside_zone"):
        return _zone_value(project, link, rec, name)
    if link.kind == "ruler_distance":
        if rec.kind != "ruler":
            return LinkedValue(False, None, None, f"a distance needs a ruler, the link names a {rec.kind}")
        m = cal.measure_ruler(project, rec.id)
        if m.metres is None:
            return LinkedValue(False, None, None, f"the ruler reads {m.pixels:.1f} px only: {m.how}")
        return LinkedValue(True, f"{m.metres:.2f} m", m.metres, f"{name}: {m.metres:.4f} m ({m.how})",
                           ruler_basis(rec, cal.calibration_in_use(project, rec.media_id), m.metres))
    # one clock for every time: seconds after the video's first frame (a stream may start at PTS 1.5 s)
    origin = (video_index.first_frame_seconds(project, rec.media_id) or 0.0) if rec.pts_seconds is not None else 0.0
    if link.kind == "event_time":
        if rec.pts_seconds is None:
            return LinkedValue(False, None, None, f"the {rec.kind} is not on a video frame")
        at = rec.pts_seconds - origin
        return LinkedValue(True, clock(at), at, f"{name} on frame {rec.frame_index} at {at:.3f} s")
    if rec.kind != "segment":
        return LinkedValue(False, None, None, f"a time range needs a segment, the link names a {rec.kind}")
    if rec.end_pts_seconds is None:
        return LinkedValue(False, None, None, "the segment is still open; end it (O) to give it a time range")
    frames = f"frames {rec.frame_index}-{rec.end_frame_index}"
    if link.kind == "segment_duration":
        d = rec.end_pts_seconds - rec.pts_seconds
        return LinkedValue(True, f"{d:.3f} s", d, f"{name}, {frames}: {d:.3f} s")
    start, end = rec.pts_seconds - origin, rec.end_pts_seconds - origin
    return LinkedValue(True, f"from {clock(start)} to {clock(end)}", (start, end),
                       f"{name}, {frames}")


def _zone_value(project: Project, link: GroundTruthLink, rec: ann.AnnotationRecord, name: str) -> LinkedValue:
    """The value of a ``polygon_area`` or ``inside_zone`` link to the polygon ``rec``."""
    from fieldstudio.annotations import shape_marks, zone_limits, zones

    if rec.kind != "polygon":
        return LinkedValue(False, None, None, f"an area or a zone needs a polygon, the link names a {rec.kind}")
    if link.kind == "polygon_area":
        m = shape_marks.measure_shape(project, rec.id)
        if m.area_px is None:   # ``how`` says why ("no area: edges cross at ..."): the area is gone, not unscaled
            return LinkedValue(False, None, None, f"the area can no longer be measured: the polygon has {m.how}")
        if m.area_m2 is None:
            return LinkedValue(False, None, None, f"the polygon has {m.area_px:.0f} px² only: {m.how}")
        return LinkedValue(True, f"{m.area_m2:.2f} m²", m.area_m2, f"{name}: {m.area_m2:.4f} m² ({m.how})",
                           basis_of(rec, m))
    mode = link.mode if link.mode in zones.ANSWER_MODES else "any"
    try:
        zone_limits.check_frame_range(project, rec.id, link.start_frame, link.end_frame)
        check = zones.check_zone(project, rec.id, subject=link.subject or "points", label_id=link.label_id,
                                 track_id=link.track_id, point=link.point, start_frame=link.start_frame,
                                 end_frame=link.end_frame)
    except (FieldstudioError, ValueError) as exc:
        return LinkedValue(False, None, None, str(exc))
    answer = check.answer(mode)
    if answer is None:
        return LinkedValue(False, None, None, f"no {check.subject} on {check.range_text} of the zone")
    return LinkedValue(True, "yes" if answer else "no", answer, check.explain(mode))


def _sha(payload: Any) -> str:
    import hashlib
    import json

    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode("utf-8")).hexdigest()


def _calibration_basis(calibration: cal.CalibrationRecord | None) -> dict[str, Any]:
    return {"calibration": None if calibration is None else calibration.id,
            "calibration_sha256": None if calibration is None else _sha(
                [calibration.kind, calibration.points, calibration.length_m, calibration.width_m,
                 calibration.depth_m])}


def basis_of(rec: ann.AnnotationRecord, measure: Any) -> dict[str, Any]:
    """What a polygon's area was measured from: ``polygon`` (its id), ``polygon_sha256`` (of its frame and
    vertices), ``calibration`` (the id of the calibration that measured it), ``calibration_sha256`` (of its kind,
    points and lengths) and ``area_m2`` unrounded. Stored with the ground truth (``BASIS_KEY``) so that a change
    of the polygon or the calibration is seen even when the area's text, rounded to 0.01 m², does not change."""
    return {"polygon": rec.id, "polygon_sha256": _sha([rec.frame_index, rec.geometry]),
            **_calibration_basis(measure.calibration), "area_m2": measure.area_m2}


def ruler_basis(rec: ann.AnnotationRecord, calibration: cal.CalibrationRecord | None, metres: float) -> dict[str, Any]:
    """What a ruler's length was measured from, as :func:`basis_of` for a polygon: ``ruler`` (its id),
    ``ruler_sha256`` (of its frame and ends), ``calibration`` and ``calibration_sha256`` (the calibration in use
    that measured it) and ``length_m`` unrounded: a moved end or another calibration is a pending change even when
    the length's text, rounded to the centimetre, does not change."""
    return {"ruler": rec.id, "ruler_sha256": _sha([rec.frame_index, rec.geometry]), **_calibration_basis(calibration),
            "length_m": metres}


def _basis_change(before: dict[str, Any] | None, after: dict[str, Any]) -> str:
    """Why a value whose text did not change is still a change: "the polygon's vertices changed" ..."""
    ruler = "ruler" in after
    if not before:
        return (f"the ground truth keeps what it is measured from ({'ruler' if ruler else 'polygon'}, calibration, "
                f"unrounded {'length' if ruler else 'area'}) from now on")
    what = [text for key, text in (("polygon_sha256", "the polygon's vertices"), ("ruler_sha256", "the ruler's ends"),
                                   ("calibration", "the calibration in use"),
                                   ("calibration_sha256", "the calibration's points or lengths"))
            if before.get(key) != after.get(key)]
    if "the calibration in use" in what and "the calibration's points or lengths" in what:
        what.remove("the calibration's points or lengths")
    key, unit, rounding = ("length_m", "m", "1 cm") if ruler else ("area_m2", "m²", "0.01 m²")
    value, was = after.get(key), before.get(key)
    return (f"{' and '.join(what) or 'what it was measured from'} changed"
            + (f" ({was:.4f} → {value:.4f} {unit}, the same to {rounding})" if isinstance(was, float) and value
               else ""))


def link_of(ground_truth_extra: dict[str, Any] | None) -> GroundTruthLink | None:
    """The link stored in a task's ``ground_truth_extra``, or None."""
    return GroundTruthLink.from_json((ground_truth_extra or {}).get(LINK_KEY))


def link_fields(project: Project, ground_truth_extra: dict[str, Any] | None,
                link: GroundTruthLink | None) -> dict[str, Any]:
    """The task fields that make (``link``) or remove (None) a ground-truth link, for ``tasks.update_task``.

    Making a link sets ``ground_truth`` to the computed text, ``answer_type`` to the link's type
    (``ANSWER_TYPE_OF``), ``ground_truth_annotation_id`` and the stored link. Removing it keeps the
    ground truth text. Raises LinkError when the link gives no value now (the message says why).
    """
    extra = dict(ground_truth_extra or {})
    if link is None:
        extra.pop(LINK_KEY, None)
        extra.pop(BASIS_KEY, None)
        return {"ground_truth_extra": extra or None, "ground_truth_annotation_id": None}
    value = compute(project, link)
    if not value.ok:
        raise LinkError(f"no ground truth from this link: {value.explanation}")
    extra[LINK_KEY] = link.to_json()
    extra.pop(BASIS_KEY, None)
    if value.basis is not None:
        extra[BASIS_KEY] = value.basis
    return {"ground_truth": value.text, "answer_type": ANSWER_TYPE_OF[link.kind], "ground_truth_extra": extra,
            "ground_truth_annotation_id": link.annotation_id}


@dataclass(frozen=True)
class GroundTruthChange:
    """A linked ground truth the annotations would change (:func:`pending_changes`): ``old`` (the stored text) and
    ``new`` (the text the annotations give now), ``ok`` False when the link gives no value now (the text is
    kept), ``explanation`` (what was measured or counted, e.g. "2 distinct object(s) (0 track(s), 2 single
    box(es))": the annotations that cause the change)."""

    task_id: str
    external_id: str | None
    old: str | None
    new: str | None
    ok: bool
    explanation: str
    new_extra: dict[str, Any] | None = None
    """The ``ground_truth_extra`` to store with ``new`` when what it was measured from changed (``BASIS_KEY``);
    None: the extra fields stay."""

    def fields(self) -> dict[str, Any]:
        """The task fields that store this change (for ``tasks.update_task`` and ``UpdateTask``)."""
        return {"ground_truth": self.new, **({} if self.new_extra is None else {"ground_truth_extra": self.new_extra})}

    @property
    def text(self) -> str:
        """'1.1.0002: '1' → '2' (2 distinct object(s) ...)' for lists, the status bar and the CLI."""
        if not self.ok:
            return f"{self.external_id or self.task_id}: keeps {self.old!r}: {self.explanation}"
        return f"{self.external_id or self.task_id}: {self.old!r} → {self.new!r} ({self.explanation})"


def pending_changes(project: Project, task_ids: Iterable[str] | None = None) -> list[GroundTruthChange]:
    """What the annotations would change now in every linked ground truth (or those of ``task_ids``); nothing is
    written. A ground truth is never changed silently (issue 31 item 3): it changes when a person accepts the
    change (the task editor's Accept, one undoable edit; ``fieldstudio refresh-ground-truth --apply``), and
    the scores that judged the earlier text then read as stale (``scoring.staleness``).

    Returns one GroundTruthChange per linked task whose value differs from the stored text or cannot be
    computed (unchanged tasks are left out), in external-id order.
    """
    q = select(Task.id, Task.external_id, Task.ground_truth, Task.ground_truth_extra, Task.source, Task.extra).where(
        Task.ground_truth_extra.is_not(None))
    if task_ids is not None:
        q = q.where(Task.id.in_(list(task_ids)))
    with project.read() as s:
        rows = s.execute(q).all()
    out: list[GroundTruthChange] = []
    for task_id, external_id, old, gt_extra, source, extra in sorted(rows, key=lambda r: (r[1] or "", r[0])):
        link = link_of(gt_extra)
        if link is None:
            continue
        value = compute(project, link)
        locked = lock_reason(source, extra)
        stored_basis = (gt_extra or {}).get(BASIS_KEY)
        moved = value.ok and value.basis is not None and value.basis != stored_basis
        if not value.ok:
            out.append(GroundTruthChange(task_id, external_id, old, old, False, value.explanation))
        elif (value.text != old or moved) and locked:
            out.append(GroundTruthChange(task_id, external_id, old, old, False,
                                         f"{locked} (the annotations give {value.text!r})"))
        elif value.text != old or moved:
            why = value.explanation + ("" if value.text != old else f"; {_basis_change(stored_basis, value.basis)}")
            out.append(GroundTruthChange(task_id, external_id, old, value.text, True, why,
                                         {**gt_extra, BASIS_KEY: value.basis} if moved else None))
    return out


UNLOCKED_KEY = "derived_updates_unlocked"
"""``Task.extra`` key: True when a person unlocked an imported benchmark task for updates from annotations."""


def lock_reason(source: str | None, extra: dict[str, Any] | None) -> str | None:
    """Why a task's ground truth is locked against updates from annotations, or None when it is not: a task
    imported from a published benchmark (``Task.source`` of a declaration with an official scorer: not the
    tasks written by hand or in a CSV file) keeps the benchmark's own ground truth unless a person unlocked it
    (``Task.extra[UNLOCKED_KEY]``, the task editor's lock)."""
    bench = benchmarks.for_source(source)
    if bench is None or bench.official_scorer is None or (extra or {}).get(UNLOCKED_KEY):
        return None
    return (f"locked: imported from {bench.title}, its ground truth is the benchmark's own; unlock the task to "
            "take it from annotations")


def unlock_fields(extra: dict[str, Any] | None, unlocked: bool) -> dict[str, Any]:
    """The task fields (for ``tasks.update_task``) that unlock (True) or lock (False) a task's ground truth
    against updates from annotations."""
    out = dict(extra or {})
    if unlocked:
        out[UNLOCKED_KEY] = True
    else:
        out.pop(UNLOCKED_KEY, None)
    return {"extra": out or None}


def apply_changes(project: Project, changes: Iterable[GroundTruthChange]) -> list[GroundTruthChange]:
    """Store the ``ok`` changes of :func:`pending_changes` in one write transaction; returns those stored. A task
    whose ground truth is no longer the change's ``old`` text (edited meanwhile) is left alone."""
    wanted = [c for c in changes if c.ok]
    done: list[GroundTruthChange] = []
    if wanted:
        with project.write() as s:
            for c in wanted:
                row = s.get(Task, c.task_id)
                if row is not None and row.ground_truth == c.old:
                    for key, value in c.fields().items():
                        setattr(row, key, value)
                    done.append(c)
    return done


def refresh_linked(project: Project, task_ids: Iterable[str] | None = None) -> list[GroundTruthChange]:
    """:func:`pending_changes` and :func:`apply_changes` at once, for callers that stand for a person's explicit
    "apply" (``fieldstudio refresh-ground-truth --apply``, building the demo). Returns every pending change (the
    ``ok`` ones now stored)."""
    changes = pending_changes(project, task_ids)
    apply_changes(project, changes)
    return changes


__all__ = ["LINK_KINDS", "COUNT_MODES", "ANSWER_TYPE_OF", "GroundTruthLink", "LinkedValue", "LinkError",
           "GroundTruthChange", "compute", "count_value", "link_of", "link_fields", "refresh_linked", "clock",
           "pending_changes", "apply_changes", "lock_reason", "unlock_fields", "UNLOCKED_KEY", "BASIS_KEY", "basis_of",
           "ruler_basis"]
