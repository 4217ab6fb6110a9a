"""Matching parsed annotation files to the project's media and frames, and storing them as one undoable edit.

``plan_import(project, source, fmt)`` reads ``source`` with the format's parser and works out, without
writing anything, which media each group of boxes belongs to (``--media`` names one for all), which frame
each box is on (the file's frame index, checked against the frame table's PTS when the file gives a time,
or found from the time alone), the track ids (a file's numeric track id is kept when the video has no
track with it, else the next free one), which labels must be created, and what did not match and why.
``plan.edit()`` is the one edit that stores it: labels created, boxes inserted in one transaction; one
undo removes them all. ``import_annotations`` does both (the command line).

Tracks a file lists on every frame (MOT) get their keyframes back: a box is stored as a keyframe only
where linear interpolation between the kept neighbours would not reproduce it to within ``DENSE_TOL_PX``
in the file's own terms (left, top, width, height, each rounded to 2 decimals by MOT files), so an
exported and re-imported track has the same keyframes and the same box on every frame. A track with a gap of frames (or CVAT's ``outside``) becomes one track per visible run.
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePath

import numpy as np
from sqlalchemy import func, select

from fieldstudio.annotations import edits
from fieldstudio.annotations import labels as label_store
from fieldstudio.annotations import mark_batches
from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations import present_marks
from fieldstudio.annotations import skeleton_templates
from fieldstudio.annotations.exports.box_images import UNLABELLED
from fieldstudio.annotations.imports.coco import parse_coco
from fieldstudio.annotations.imports.import_report import AnnotationImportReport
from fieldstudio.annotations.imports.label_templates import label_templates
from fieldstudio.annotations.imports.cvat import parse_cvat
from fieldstudio.annotations.imports.mot import parse_mot
from fieldstudio.annotations.imports.plain_boxes import DenseTrack, PlainBoxes
from fieldstudio.annotations.imports import measurements
from fieldstudio.annotations.imports.parsed import ImportFormatError, Parsed, ParsedBox, ParsedMedia
from fieldstudio.annotations.imports.photo_shapes import PhotoShapes
from fieldstudio.annotations.imports.yolo import parse_yolo
from fieldstudio.core import shape_tracks, shapes, skeletons, tracks
from fieldstudio.core.garbage_collection import gc_paused
from fieldstudio.core.errors import FieldstudioError, NotFound
from fieldstudio.core.tracks import DENSE_TOL_PX, dense_keyframes
from fieldstudio.media import library, video_index
from fieldstudio.store.edits import Edit
from fieldstudio.store.models import Annotation, Media
from fieldstudio.store.project import Project

FORMATS = ("coco", "yolo", "mot", "cvat")
PARSERS: dict[str, Callable[[Path], Parsed]] = {"coco": parse_coco, "yolo": parse_yolo, "mot": parse_mot,
                                                "cvat": parse_cvat}


class AnnotationImportError(FieldstudioError):
    """An annotation file cannot be imported at all (unknown format, unreadable file, unknown --media)."""


class ImportAnnotations(Edit):
    """Create the labels an import needs, then its boxes (tracks in one transaction, plain boxes in batches in
    another); undo removes them all. ``progress``/``cancelled`` follow the first ``do``'s batches of plain boxes;
    a cancel there undoes what it had done and sets ``cancelled``."""

    def __init__(self, project: Project, text: str, marks: list[tuple[mark_batches.NewMark, str | None]],
                 new_labels: list[str], plain: PlainBoxes | None = None, *,
                 progress: Callable[[int, int], None] = lambda done, total: None,
                 cancelled: Callable[[], bool] = lambda: False, templates: dict | None = None):
        self.project, self.text = project, text
        self.marks, self.new_labels, self.plain = marks, new_labels, plain
        self.progress, self.is_cancelled = progress, cancelled
        self.cancelled = False
        self._labels = [edits.CreateLabel(project, name) for name in new_labels]
        self.templates = templates or {}   # label name -> the skeleton template the file gives it
        self._templates: list[Edit] = []
        self._boxes: edits.CreateMany | None = None
        self._plain_ids: mark_batches.PackedIds | None = None   # 16 bytes an id: 10^6 stay about 16 MB

    @property
    def annotation_ids(self) -> list[str]:
        """Ids of the boxes stored (empty before the first ``do``)."""
        tracked = list(self._boxes.annotation_ids or []) if self._boxes is not None else []
        return tracked + list(self._plain_ids or [])

    def do(self) -> None:
        done: list[Edit] = []
        try:
            for e in self._labels:
                e.do()
                done.append(e)
            ids = {e.name: e.label_id for e in self._labels}
            if not self._templates:
                self._templates = [skeleton_templates.SetSkeletonTemplate(
                    self.project, ids.get(name) or label_store.find_label(self.project, name).id, t.points, t.edges,
                ) for name, t in self.templates.items()]
            for e in self._templates:
                e.do()
                done.append(e)
            if self._boxes is None and self._plain_ids is None:
                self._first_do(ids, done)
                return
            if self._boxes is not None:
                self._boxes.do()
                # undoing deleted the new labels, which cleared them from the (soft-deleted) boxes
                ann.set_labels(self.project, {aid: ids[name] for aid, (_m, name) in
                                              zip(self._boxes.annotation_ids, self.marks) if name in ids})
            if self._plain_ids:
                ann.restore_many(self.project, self._plain_ids)
                ann.set_labels(self.project, {aid: ids[name] for aid, name in
                                              zip(self._plain_ids, self.plain.kept_label_names_by_row())
                                              if name in ids})
        except Exception:
            for e in reversed(done):
                e.undo()
            raise

    def _first_do(self, ids: dict[str, str], done: list[Edit]) -> None:
        if self.marks:
            marks = [m if name is None or name not in ids else dataclasses.replace(m, label_id=ids[name])
                     for m, name in self.marks]
            self._boxes = edits.CreateMany(self.project, self.text, marks)
            self._boxes.do()
            done.append(self._boxes)
        if self.plain is not None and self.plain.kept_count():
            stored = mark_batches.insert_boxes(self.project, self.plain.rows(ids), self.plain.kept_count(),
                                               progress=self.progress, cancelled=self.is_cancelled)
            if stored is None:
                self.cancelled = True
                for e in reversed(done):
                    e.undo()
                self._boxes = None
                return
            self._plain_ids = stored

    def undo(self) -> None:
        if self._plain_ids:
            ann.delete_many(self.project, self._plain_ids)
        if self._boxes is not None:
            self._boxes.undo()
        for e in reversed([*self._labels, *self._templates]):
            e.undo()


@dataclass
class ImportPlan:
    """What ``plan_import`` found: the boxes of tracks to store (with the label name each needs), the plain boxes
    (``PlainBoxes``, in columns), the labels to create, and the report."""

    project: Project
    marks: list[tuple[mark_batches.NewMark, str | None]]
    new_labels: list[str]
    report: AnnotationImportReport
    plain: PlainBoxes = field(default_factory=PlainBoxes)
    templates: dict = field(default_factory=dict)   # label name -> skeleton template to give it

    def edit(self, *, progress: Callable[[int, int], None] = lambda done, total: None,
             cancelled: Callable[[], bool] = lambda: False) -> ImportAnnotations | None:
        """The one undoable edit that stores the plan (None when nothing matched); ``progress``/``cancelled`` follow
        its first ``do`` (see ``ImportAnnotations``)."""
        if not self.marks and not self.plain.kept_count():
            return None
        return ImportAnnotations(self.project, f"Import {self.report.format.upper()} annotations "
                                 f"({self.report.marks} marks)", self.marks, self.new_labels, self.plain,
                                 progress=progress, cancelled=cancelled, templates=self.templates)


def _runs(items: list[ParsedBox]) -> list[list[ParsedBox]]:
    """A dense track's boxes split where frames are missing."""
    runs: list[list[ParsedBox]] = []
    for b in sorted(items, key=lambda b: b.frame_index):
        if runs and b.frame_index == runs[-1][-1].frame_index + 1:
            runs[-1].append(b)
        else:
            runs.append([b])
    return runs


class _Media:
    """The project's media rows, looked up by id, file name and stem."""

    def __init__(self, project: Project):
        with project.read() as s:
            rows = list(s.scalars(select(Media).where(Media.kind.in_(["image", "video"]))))
            self.used_tracks: dict[str, set[int]] = defaultdict(set)
            for media_id, track in s.execute(select(Annotation.media_id, Annotation.track_id).where(
                    Annotation.track_id.is_not(None)).group_by(Annotation.media_id, Annotation.track_id)):
                self.used_tracks[media_id].add(int(track))
            self.top = dict(s.execute(select(Annotation.media_id, func.max(Annotation.track_id))
                                      .group_by(Annotation.media_id)).all())
        self.by_id = {m.id: m for m in rows}
        self.by_name: dict[str, list[Media]] = defaultdict(list)
        self.by_stem: dict[str, list[Media]] = defaultdict(list)
        for m in rows:
            self.by_name[m.file_name].append(m)
            self.by_stem[PurePath(m.file_name).stem].append(m)

    def match(self, group: ParsedMedia) -> tuple[Media | None, str]:
        def fits(m: Media) -> bool:
            return group.kind == "any" or m.kind == group.kind

        if group.media_id and group.media_id in self.by_id and fits(self.by_id[group.media_id]):
            return self.by_id[group.media_id], ""
        for table in (self.by_name, self.by_stem):
            for name in group.names:
                found = [m for m in table.get(name, []) if fits(m)]
                if len(found) == 1:
                    return found[0], ""
                if len(found) > 1:
                    return None, f"{len(found)} media are named {name!r}; give --media"
        kind = {"video": "video", "image": "photo"}.get(group.kind, "media")
        tried = ", ".join(repr(n) for n in group.names) or "(the file names no media)"
        return None, f"no {kind} named {tried} in the project"


def plan_import(project: Project, source: Path, fmt: str, *, media: str | None = None,
                progress: Callable[[int, int], None] = lambda done, total: None,
                cancelled: Callable[[], bool] = lambda: False) -> ImportPlan:
    """Read ``source`` as ``fmt`` (coco, yolo, mot, cvat) and match it to the project; nothing is written.

    ``media`` (a file name or id) puts every group on that media. Raises AnnotationImportError for an
    unknown format, a missing or unreadable source, or an unknown ``media``.
    """
    fmt = fmt.lower().strip()
    if fmt not in PARSERS:
        raise AnnotationImportError(f"unknown annotation format {fmt!r}; choose one of {', '.join(FORMATS)}")
    source = Path(source)
    if not source.exists():
        raise AnnotationImportError(f"{source}: no such file or folder")
    try:
        parsed = PARSERS[fmt](source)
    except ImportFormatError as exc:
        raise AnnotationImportError(str(exc)) from None
    report = AnnotationImportReport(fmt, str(source), files=parsed.files)
    forced = None
    if media is not None:
        try:
            forced = library.find_media(project, media)
        except NotFound as exc:
            raise AnnotationImportError(str(exc)) from None
    known = _Media(project)
    existing_labels = {r.name: r.id for r in label_store.list_labels(project)}
    new_labels: list[str] = []
    tables: dict[str, object] = {}
    per_track: dict[tuple[str, str], list[ParsedBox] | DenseTrack] = defaultdict(list)
    dense_tracks: set[tuple[str, str]] = set()
    plain = PlainBoxes()
    plain_per_media: Counter[str] = Counter()
    sources: dict[str, set[str]] = defaultdict(set)
    medias: dict[str, Media] = {}
    matched: dict[int, Media | None] = {}

    def label_of(name: str | None) -> tuple[str | None, str | None]:
        """(label id, or the name of a label to create)."""
        if name is None or (name == UNLABELLED and name not in existing_labels):
            return None, None
        if name in existing_labels:
            return existing_labels[name], None
        if name not in new_labels:
            new_labels.append(name)
        return None, name

    def target_of(group: ParsedMedia) -> Media | None:
        """The media of ``group``, found once (groups live as long as ``parsed``, so their ids stay theirs)."""
        if id(group) not in matched:
            target, why = (forced, "") if forced is not None else known.match(group)
            matched[id(group)] = target
            if target is None:
                report.unmatched.append((group.source, why))
            else:
                medias[target.id] = target
                sources[target.id].add(group.source)
        return matched[id(group)]

    for group in parsed.groups:
        target_of(group)
    own, adopt = label_templates(project, parsed, existing_labels, report)
    stopwatches: list[tuple[mark_batches.NewMark, str | None]] = []

    def place_one(group: ParsedMedia, target: Media, b: ParsedBox) -> None:
        placed = _place(project, target, group, b, tables, report)
        if placed is None:
            return
        if placed.shape is not None and placed.shape[0] == "stopwatch":   # CVAT: no vertices, two frames
            stopwatch = measurements.stopwatch_of(target, placed, len(tables[target.id].pts), label_of, report)
            if stopwatch is not None:
                stopwatches.append(stopwatch)
            return
        if placed.shape is not None:  # stored beside the plain boxes, in their batches
            shape = _shape_of(target, group, placed, report, own)
            if shape is not None and shape[0] == "angle" and placed.written_degrees is not None:
                measurements.compare_angle(project, target, placed, shape[1], report)
            if shape is not None and b.track is not None and target.kind == "video":   # a shape track's
                per_track[(target.id, b.track)].append(dataclasses.replace(placed, shape=shape[:2], template=shape[2]))
            elif shape is not None:
                frame = placed.frame_index
                pts = None if frame is None else int(tables[target.id].pts[frame])
                plain.append(target.id, frame, pts, shapes.bounds(skeletons.present(shape[1])),
                             label_of(placed.label), placed.attributes, shape=shape)
                plain_per_media[target.id] += 1
        elif b.track is None or target.kind != "video":
            frame = placed.frame_index
            pts = None if frame is None else int(tables[target.id].pts[frame])
            plain.append(target.id, frame, pts, placed.box, label_of(placed.label), placed.attributes)
            plain_per_media[target.id] += 1
        elif group.dense and placed.shape is None:   # MOT: a track's boxes in columns until the file is read
            key = (target.id, b.track)
            if key not in per_track:
                per_track[key] = DenseTrack(placed)
                dense_tracks.add(key)
            per_track[key].add(placed)
        else:
            per_track[(target.id, b.track)].append(placed)
            if group.dense:
                dense_tracks.add((target.id, b.track))

    def keep_shape(target: Media, b: ParsedBox, kind: str, vertices: list, bounds: tuple) -> None:
        plain.append(target.id, None, None, bounds, label_of(b.label), b.attributes, shape=(kind, vertices, None))
        plain_per_media[target.id] += 1

    on_photos = PhotoShapes(place_one, keep_shape)   # shapes on photos, checked a batch at a time
    try:
        for n, (group, b) in enumerate(parsed.boxes(), start=1):
            if n % 4096 == 1:
                if cancelled():
                    report.cancelled = True
                    return ImportPlan(project, [], [], report)
                progress(*parsed.progress(n))
            target = target_of(group)
            if target is None:
                continue
            if on_photos.takes(target, group, b):
                on_photos.add(group, target, b)
            else:   # the shapes held first: the report lists problems in the file's order
                on_photos.flush()
                place_one(group, target, b)
        on_photos.flush()
    except ImportFormatError as exc:
        raise AnnotationImportError(str(exc)) from None
    report.problems[:0] = parsed.problems       # the file's own problems first, then those of placing its boxes

    marks: list[tuple[mark_batches.NewMark, str | None]] = list(stopwatches)
    counts: dict[str, dict[str, int]] = {}
    for mark, _name in stopwatches:
        m = medias[mark.media_id]
        counts.setdefault(m.file_name, {"boxes": 0, "tracks": 0, "sources": len(sources[m.id])})["boxes"] += 1

    for media_id, boxes in plain_per_media.items():
        m = medias[media_id]
        counts[m.file_name] = {"boxes": boxes, "tracks": 0, "sources": len(sources[media_id])}
    next_free = {mid: max(known.top.get(mid) or 0, int((m.extra or {}).get("track_ids_issued") or 0)) + 1
                 for mid, m in medias.items()}
    taken: dict[str, set[int]] = {mid: set(known.used_tracks.get(mid, set())) for mid in medias}
    for media_id, key in sorted(per_track, key=lambda k: (k[0], _key_order(k[1]))):
        items = per_track.pop((media_id, key))   # each track's boxes freed once its keyframes are in ``plain``
        items = items.boxes() if isinstance(items, DenseTrack) else items
        m = medias[media_id]
        runs = _runs(items) if (media_id, key) in dense_tracks else [sorted(items, key=lambda b: b.frame_index)]
        for k, run in enumerate(runs):
            frames = [b.frame_index for b in run]
            if len(set(frames)) != len(frames):
                report.problems.append((run[0].where, f"track {key} has two boxes on one frame; the track is skipped"))
                continue
            wanted = int(key) if k == 0 and key.isdigit() else None
            if wanted is None or wanted in taken[media_id] or wanted < 1:
                wanted = max(next_free[media_id], max(taken[media_id], default=0) + 1)
            taken[media_id].add(wanted)
            next_free[media_id] = max(next_free[media_id], wanted + 1)
            if run[0].shape is not None:   # the file's keyframes, and the frames interpolation would not give back
                keep = shape_tracks.needed_keyframes(frames, [b.shape[1] for b in run], [b.keyframe for b in run],
                                                     DENSE_TOL_PX)   # CVAT rounds vertices as MOT boxes: 0.01 px
                run = [run[i] for i in keep]
            elif (media_id, key) in dense_tracks:
                keep = dense_keyframes(frames, np.array([b.box for b in run], dtype=float))
                run = [run[i] for i in keep]
            else:
                run = [b for b in run if b.keyframe] or run[:1]
            # the keyframes go into the columns as the plain boxes do (not one ORM object each: 10^5 MOT boxes
            # peaked at 743 MB that way), stored in batches in the same transaction
            c = counts.setdefault(m.file_name, {"boxes": 0, "tracks": 0, "sources": len(sources[m.id])})
            pts = tables[media_id].pts
            for b in run:
                shape = None if b.shape is None else (*b.shape, b.template)
                plain.append(media_id, b.frame_index, int(pts[b.frame_index]),
                             b.box if shape is None else shapes.bounds(skeletons.present(shape[1])),
                             label_of(b.label), b.attributes, track_id=wanted, shape=shape)
            c["boxes"] += len(run)
            c["tracks"] += 1
    marks, report.already_present = _without_present(project, marks, plain, counts,
                                                     {mid: m.file_name for mid, m in medias.items()},
                                                     lambda media_id: match_tolerance(fmt, medias[media_id]))
    report.matched = {name: c for name, c in counts.items() if c["boxes"]}
    report.marks = len(marks) + plain.kept_count()
    report.kinds, report.present_kinds = plain.kept_kinds(), plain.kept_kinds(kept=False)
    for mark, _name in marks:
        report.kinds[mark.kind] = report.kinds.get(mark.kind, 0) + 1
    used = {name for _m, name in marks if name is not None} | plain.kept_label_names()
    report.labels_created = sorted(used, key=new_labels.index)
    adopt = {name: t for name, t in adopt.items() if name in used or name in existing_labels}
    report.notes += [f"label {name}: skeleton template set from the file, {len(t.points)} points "
                     f"({', '.join(t.points)}), {len(t.edges)} limb(s)" for name, t in adopt.items()]
    return ImportPlan(project, marks, report.labels_created, report, plain, adopt)


#: Keys compared per read (of the media concerned): bounds the memory of a re-import's check at any size.
PRESENT_CHECK_KEYS = 50_000


def match_tolerance(fmt: str, media: Media) -> float:
    """How far (pixels per coordinate) a mark read from a ``fmt`` file may lie from the project's own and still be
    that mark, from the format's rounding: YOLO writes fractions of the image size with 6 decimals, so a centre or
    a size is off by up to half a unit of the 6th decimal times the size, a corner (centre - size / 2) by up to 0.75
    of one: taken as 1e-6 x the larger side; MOT and CVAT write pixels with 2 decimals (a corner from left + width:
    0.01), taken as ``DENSE_TOL_PX``; COCO writes floats unrounded (0)."""
    if fmt == "yolo":
        return 1e-6 * max(media.width or 0, media.height or 0)
    return DENSE_TOL_PX if fmt in ("mot", "cvat") else 0.0


def _without_present(project: Project, marks: list[tuple[mark_batches.NewMark, str | None]], plain: PlainBoxes,
                     counts: dict[str, dict[str, int]], file_names: dict[str, str],
                     tolerance: Callable[[str], float]) -> tuple[list[tuple[mark_batches.NewMark, str | None]], int]:
    """The marks the project does not hold yet, and how many marks and plain boxes it holds (plain boxes it holds
    are marked not kept in ``plain``; all are taken off `counts`' boxes per media file name; `file_names` maps
    media ids to them). Only the boxes of media that hold marks already are compared, a group of media at a time
    (about ``PRESENT_CHECK_KEYS`` keys: a second import of 10^6 boxes held every key and every stored mark at once)."""
    holding = present_marks.media_with_marks(project, file_names)
    if not holding:
        return marks, 0
    mark_rows: dict[str, list[int]] = {}
    for i, (mark, create) in enumerate(marks):
        if create is None and mark.media_id in holding:   # a label still to create: no stored mark can have it
            mark_rows.setdefault(mark.media_id, []).append(i)
    plain_rows: dict[str, list[int]] = {}
    for i in range(len(plain)):
        media_id = plain.media_id(i)
        if media_id in holding:
            plain_rows.setdefault(media_id, []).append(i)
    dropped: set[int] = set()
    held = 0
    group: list[str] = []
    size = 0
    media_ids = sorted(set(mark_rows) | set(plain_rows))
    for n, media_id in enumerate(media_ids):
        group.append(media_id)
        size += len(mark_rows.get(media_id, ())) + len(plain_rows.get(media_id, ()))
        if size < PRESENT_CHECK_KEYS and n + 1 < len(media_ids):
            continue
        m_idx = [i for mid in group for i in mark_rows.get(mid, ())]
        p_keyed = [(i, key) for mid in group for i in plain_rows.get(mid, ()) if (key := plain.key(i)) is not None]
        p_idx = [i for i, _ in p_keyed]
        keys = [present_marks.mark_key(marks[i][0].media_id, marks[i][0].kind, marks[i][0].frame_index,
                                       marks[i][0].label_id, marks[i][0].geometry) for i in m_idx]
        keys += [key for _, key in p_keyed]
        present = present_marks.split_present(project, keys, tolerance) if keys else []
        for i, is_present in zip(m_idx, present[:len(m_idx)]):
            if is_present:
                dropped.add(i)
                counts[file_names[marks[i][0].media_id]]["boxes"] -= 1
        for i, is_present in zip(p_idx, present[len(m_idx):]):
            if is_present:
                plain.kept[i] = 0
                counts[file_names[plain.media_id(i)]]["boxes"] -= 1
                held += 1
        group, size = [], 0
    kept = [pair for i, pair in enumerate(marks) if i not in dropped]
    return kept, held + len(dropped)


def _shape_of(media: Media, group: ParsedMedia, placed: ParsedBox, report: AnnotationImportReport,
              own: dict | None = None) -> tuple[str, list, str | None] | None:
    """(kind, vertices, text) of a placed ``ParsedBox`` with a ``shape``: vertices in pixels (from fractions when the
    group is ``normalised``), clipped to the image (a skeleton's absent points None, ``text`` its template: ``own``
    label name -> template for one named ``LABEL_OWN``); None (and a problem in ``report``) for vertices that make
    no such shape."""
    kind, vertices = placed.shape
    size = (media.width or 0, media.height or 0)
    if group.normalised:
        scaled = [None if v is None else [v[0] * size[0], v[1] * size[1]] for v in vertices]
    else:  # pixels already: validated as they are (as_vertices makes them floats)
        scaled = list(vertices)
    far = shapes.far_outside(scaled, size)
    try:
        if kind == "skeleton":
            tmpl = (own or {}).get(placed.label) if placed.template == skeletons.LABEL_OWN else \
                skeletons.template(placed.template)
            if isinstance(tmpl, str):   # why the label's template cannot take this file's skeletons
                report.problems.append((placed.where, tmpl))
                return None
            if tmpl is None:
                return None   # the label's own template has other points (said once in the report's notes)
            pts = skeletons.as_points(tmpl, scaled, size)
        elif kind == "angle":       # three points, none repeated next to another (an arm needs a length)
            pts = shapes.as_vertices("points", scaled, size)
            if len(pts) != 3 or pts[0] == pts[1] or pts[1] == pts[2]:
                raise shapes.ShapeError("an angle needs three points with arms of some length")
        else:
            pts = shapes.as_vertices(kind, scaled, size)
    except shapes.ShapeError as exc:
        report.problems.append((placed.where, f"{exc}; skipped"))
        return None
    if far:
        report.problems.append((placed.where, far))
    return kind, pts, (tmpl.name if kind == "skeleton" else None)


def _key_order(key: str) -> tuple[int, str]:
    head = key.split("#")[0]
    return (int(head) if head.isdigit() else 1 << 62, key)


def _place(project: Project, media: Media, group: ParsedMedia, b: ParsedBox, tables: dict,
           report: AnnotationImportReport) -> ParsedBox | None:
    """The box on ``media``: frame found and checked, pixels from fractions, clipped; None (and a problem)."""
    width, height = media.width or 0, media.height or 0
    box = b.box
    if group.normalised:
        if not (width and height):
            report.problems.append((b.where, f"{media.file_name}'s size is unknown; YOLO fractions cannot be placed"))
            return None
        box = (box[0] * width, box[1] * height, box[2] * width, box[3] * height)
    try:  # clip_xyxy normalises the corners first
        box = tracks.clip_xyxy(box, width, height) if width and height else tracks.normalise_xyxy(box)
    except ValueError as exc:   # a shape's bounds are its vertices': name the shape, not the box they make
        message = str(exc)
        if b.shape is not None:
            bad = next((list(v) for v in b.shape[1] if v is not None and not all(map(math.isfinite, v))), None)
            message = (f"a {b.shape[0]}'s vertices must be finite numbers, got {bad!r}; skipped" if bad else
                       f"the {b.shape[0]} lies wholly outside the {width} x {height} image; skipped")
        report.problems.append((b.where, message))
        return None
    frame = b.frame_index
    if media.kind == "image":
        if frame not in (None, 0):
            report.problems.append((b.where, f"{media.file_name} is a photo; the box is on frame {frame}"))
            return None
        return b.placed(box, None)
    if media.id not in tables:
        tables[media.id] = video_index.load_frame_table(project, media)
    table = tables[media.id]
    if table is None:
        report.problems.append((b.where, f"{media.file_name}'s frame index is not built; run `fieldstudio index`"))
        return None
    if frame is None and b.pts_seconds is None:
        report.problems.append((b.where, f"{media.file_name} is a video; the box names no frame"))
        return None
    if frame is None:
        frame = table.index_at(b.pts_seconds)
    if not 0 <= frame < len(table):
        report.problems.append((b.where, f"frame {frame} is outside {media.file_name}'s 0..{len(table) - 1}"))
        return None
    if b.pts_seconds is not None:
        here = table.seconds(frame)
        step = (table.seconds(min(frame + 1, len(table) - 1)) - table.seconds(max(frame - 1, 0))) / 2 or 1e-3
        if abs(here - b.pts_seconds) > step / 2 + 1e-6:
            report.problems.append((b.where, f"frame {frame} of {media.file_name} is at {here:.6f} s in the frame "
                                    f"table but the file says {b.pts_seconds:.6f} s (another video?)"))
            return None
    return b.placed(box, frame)


def store_import(project: Project, source: Path, fmt: str, *, media: str | None = None,
                 progress: Callable[[int, int], None] = lambda done, total: None,
                 cancelled: Callable[[], bool] = lambda: False) -> tuple[ImportAnnotations | None, AnnotationImportReport]:
    """``plan_import``, then the edit's first ``do`` in the same call (the window runs it on a worker: storing 10^6
    boxes takes tens of seconds). Returns (the done edit, for an undo stack; None when nothing was stored or it was
    cancelled, the report). Raises AnnotationImportError as ``plan_import``, and what ``do`` raises (nothing stored).
    """
    with gc_paused():   # the rows and shapes held hold no cycles: the collector's passes were 40 % of the import
        plan = plan_import(project, source, fmt, media=media, progress=progress, cancelled=cancelled)
        edit = plan.edit(progress=progress, cancelled=cancelled)
        if edit is None or plan.report.cancelled:
            return None, plan.report
        edit.do()
    plan.report.cancelled = edit.cancelled
    return (None if edit.cancelled else edit), plan.report


def import_annotations(project: Project, source: Path, fmt: str, *, media: str | None = None,
                       progress: Callable[[int, int], None] = lambda done, total: None,
                       cancelled: Callable[[], bool] = lambda: False) -> AnnotationImportReport:
    """``store_import`` for the command line; returns the report."""
    return store_import(project, source, fmt, media=media, progress=progress, cancelled=cancelled)[1]
