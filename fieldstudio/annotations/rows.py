"""What the annotation side panels show, read in one place (no Qt): list rows, tags, camera groups.

The annotation list, the tags panel and the calibration dialog are thin views over these functions:

* :func:`annotation_rows`: one :class:`AnnotationRow` per live annotation of a media (or of the
  project) with its media name, label colour, PTS time text, segment end and duration, ruler length
  (metres through the calibration that applies now, else pixels) and the open / overlapping flags of
  ``annotations.open_segments`` and ``annotations.overlapping_segments``.
* :func:`tags_at` and :func:`project_tag_texts`: tags of a media and of one of its frames, and the tag
  texts already used in the project (for completion).
* :func:`camera_groups`, :func:`group_members`, :func:`media_brief`: what a calibration can apply to.

Times are PTS seconds (``pts * time_base``, from the frame table), never frame index / fps.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from sqlalchemy import select

from fieldstudio.annotations import calibrations as cal
from fieldstudio.annotations import angles
from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations import shape_marks
from fieldstudio.annotations import stopwatch
from fieldstudio.core.errors import FieldstudioError, NotFound
from fieldstudio.media import library
from fieldstudio.store.models import Annotation, Label, Media
from fieldstudio.store.project import Project


def format_pts_time(seconds: float | None) -> str:
    """``HH:MM:SS.mmm`` of a time in seconds (rounded to the millisecond); '' for None.

    Example: 3.2666 s -> ``00:00:03.267``; 3725.5 s -> ``01:02:05.500``.
    """
    if seconds is None or not math.isfinite(seconds):
        return ""
    ms = int(round(seconds * 1000))
    sign = "-" if ms < 0 else ""
    ms = abs(ms)
    h, rest = divmod(ms, 3_600_000)
    m, rest = divmod(rest, 60_000)
    s, ms = divmod(rest, 1000)
    return f"{sign}{h:02d}:{m:02d}:{s:02d}.{ms:03d}"


def measurement_text(measurement: cal.Measurement) -> str:
    """``'5.606 m'`` when calibrated, else ``'153.2 px (uncalibrated)'``."""
    if measurement.metres is not None:
        return f"{measurement.metres:.3f} m"
    return f"{measurement.pixels:.1f} px (uncalibrated)"


@dataclass(frozen=True)
class AnnotationRow:
    """One line of the annotation list.

    ``record`` is the annotation; ``media_name`` its media's file name and ``media_status`` 'ok',
    'unreadable' or 'missing' (file gone); ``label_color`` '#rrggbb' or None; ``measurement`` a
    ruler's length (else None) and ``measurement_text`` its display form (a polygon's area); ``open`` a
    segment not yet ended; ``overlaps`` the ids of segments of the same label on the same video sharing a frame.
    """

    record: ann.AnnotationRecord
    media_name: str
    media_status: str
    label_color: str | None
    measurement: cal.Measurement | None
    measurement_text: str
    open: bool
    overlaps: tuple[str, ...]

    @property
    def time_text(self) -> str:
        """Start PTS time as ``HH:MM:SS.mmm`` ('' for photos and media-level tags)."""
        return format_pts_time(self.record.pts_seconds)

    @property
    def end_text(self) -> str:
        """A segment's or a stopwatch's end frame and duration (``'48 (3.200 s)'``), 'open' while not ended;
        else ''."""
        r = self.record
        if r.kind not in ("segment", "stopwatch"):
            return ""
        if r.end_frame_index is None:
            return "open"
        dur = r.duration_s
        return f"{r.end_frame_index} ({dur:.3f} s)" if dur is not None else str(r.end_frame_index)

    @property
    def attributes_text(self) -> str:
        """Free attributes and text as ``key=value; ...`` (the annotation's text first)."""
        parts = [self.record.text] if self.record.text else []
        parts += [f"{k}={v}" for k, v in (self.record.attributes or {}).items()]
        return "; ".join(parts)


def annotation_rows(project: Project, media_id: str | None = None) -> list[AnnotationRow]:
    """Rows of every live annotation of ``media_id`` (None: the whole project), in list order; not the behaviour
    events (``annotations.behaviour.behaviour_events``).

    Order as ``annotations.list_annotations`` (media, frame with media-level first, kind, creation).
    Ruler lengths use the calibration that applies now (``calibrations.measure_ruler``).
    """
    # behaviour events have their own list (the Behaviour dock, annotations/behaviour): a coded hour holds thousands
    records = ann.list_annotations(project, media_id=media_id, kinds=ann.KINDS)
    with project.read() as s:
        q = select(Media)
        if media_id is not None:
            q = q.where(Media.id == media_id)
        medias = {m.id: (m.file_name, _status_of(project, m)) for m in s.scalars(q)}
        colours = dict(s.execute(select(Label.id, Label.color)).all())
    overlaps: dict[str, list[str]] = {}
    for a, b in ann.overlapping_segments(project, media_id):
        overlaps.setdefault(a.id, []).append(b.id)
        overlaps.setdefault(b.id, []).append(a.id)
    rows = []
    for r in records:
        measured = cal.measure_ruler(project, r.id) if r.kind == "ruler" else None
        text = measurement_text(measured) if measured else ""
        if r.kind == "stopwatch" and r.end_frame_index is not None:      # the time it reads, from the PTS
            text = stopwatch.reading_of(r).text()
        elif r.kind == "angle":
            text = angles.measure_points(project, r.media_id, r.geometry).text()
        elif r.kind == "polygon":
            text = _shape_text(project, r)
        name, status = medias.get(r.media_id, ("?", "missing"))
        rows.append(AnnotationRow(
            record=r, media_name=name, media_status=status, label_color=colours.get(r.label_id),
            measurement=measured, measurement_text=text,
            open=r.is_open, overlaps=tuple(overlaps.get(r.id, ()))))
    return rows


def _shape_text(project: Project, r: ann.AnnotationRecord) -> str:
    """A polygon's area: "3.12 m²" where calibrated, else "1,858 px²", or "no area: edges cross at (x, y)"
    (``shape_marks.measure_shape``)."""
    m = shape_marks.measure_shape(project, r.id)
    if m.area_m2 is not None:
        return f"{m.area_m2:.2f} m²"
    return f"{m.area_px:,.0f} px²" if m.area_px is not None else m.how.split(";")[0]


def _status_of(project: Project, m: Media) -> str:
    """'ok', 'unreadable' (as stored) or 'missing' (the file is not on disk now)."""
    if m.status != "ok":
        return m.status
    try:
        return "ok" if library.media_path(project, m).is_file() else "missing"
    except (OSError, ValueError, FieldstudioError):  # FieldstudioError: its media root is not mapped here
        return "missing"


# -- tags -------------------------------------------------------------------------------------------
def tags_at(project: Project, media_id: str, frame_index: int | None) -> tuple[list[ann.AnnotationRecord],
                                                                              list[ann.AnnotationRecord]]:
    """(tags of the whole media, tags of frame ``frame_index``) — live tags only, in creation order.

    ``frame_index`` None gives no frame tags. Raises nothing for an unknown media (both lists empty).
    """
    tags = ann.list_annotations(project, media_id=media_id, kinds=["tag"])
    media_tags = [t for t in tags if t.frame_index is None]
    frame_tags = [t for t in tags if frame_index is not None and t.frame_index == frame_index]
    return media_tags, frame_tags


def project_tag_texts(project: Project) -> list[str]:
    """Distinct texts of the project's live tags, most used first (then alphabetical), for completion."""
    with project.read() as s:
        texts = list(s.scalars(select(Annotation.text).where(Annotation.kind == "tag",
                                                             Annotation.deleted.is_(False))))
    counts = Counter(t.strip() for t in texts if t and t.strip())
    return sorted(counts, key=lambda t: (-counts[t], t.lower()))


# -- calibration scope ------------------------------------------------------------------------------
@dataclass(frozen=True)
class MediaBrief:
    """What the calibration dialog says about a media: name, kind, upright size, camera group."""

    id: str
    file_name: str
    kind: str
    width: int | None
    height: int | None
    camera_group: str | None


def media_brief(project: Project, media_id: str) -> MediaBrief:
    """The media's name, kind, size and camera group. Raises NotFound."""
    with project.read() as s:
        m = s.get(Media, media_id)
        if m is None:
            raise NotFound(f"no media with id {media_id!r} in {project.path.name}")
        return MediaBrief(m.id, m.file_name, m.kind, m.width, m.height, m.camera_group)


def camera_groups(project: Project) -> list[str]:
    """Names of the camera groups in use, sorted."""
    with project.read() as s:
        return sorted(set(s.scalars(select(Media.camera_group).where(Media.camera_group.is_not(None)))))


def group_members(project: Project, group: str) -> list[str]:
    """Ids of the media in camera group ``group`` (by file name)."""
    with project.read() as s:
        return list(s.scalars(select(Media.id).where(Media.camera_group == group).order_by(Media.file_name)))


def media_names(project: Project) -> dict[str, str]:
    """{media id: file name} of every media."""
    with project.read() as s:
        return dict(s.execute(select(Media.id, Media.file_name)).all())


def affected_media(project: Project, record: cal.CalibrationRecord) -> list[str]:
    """Ids of the media whose measurements a calibration changes: its media, or its group's members."""
    if record.media_id is not None:
        return [record.media_id]
    return group_members(project, record.camera_group) if record.camera_group else []
