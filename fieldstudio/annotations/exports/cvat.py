"""CVAT "for video 1.1" XML export of tracks: one ``<video stem>.xml`` per video with boxes.

Layout (CVAT's documentation, "XML annotation format", for videos)::

    <annotations><version>1.1</version>
      <meta><task><name/><size/><mode>interpolation</mode><start_frame/><stop_frame/>
        <labels><label><name/><color/></label>...</labels>
        <original_size><width/><height/></original_size><source/></task></meta>
      <track id="4" label="person" source="manual">
        <box frame="12" keyframe="1" outside="0" occluded="0" xtl ytl xbr ybr z_order="0">
          <attribute name="vest">no</attribute></box> ...

A box or shape track's ``id`` is the project's track id (the window's "#4", COCO's ``track_id``; box and shape
tracks share a video's ids); the tracks of marks with no track id of ours (shapes, boxes, angles and stopwatches
outside any track) are numbered on from the largest of those in the file. As CVAT writes it, a track lists a box
on every frame from its first to its last keyframe (``keyframe="0"`` for the interpolated ones, by the same linear
rule) and one ``outside="1"`` box on the frame after its last keyframe (when the video has one): CVAT's "the track
ends here", which a reader that ignores ``outside`` counts as the object on that frame (datumaro keeps it as an
annotation with ``outside: True``); the export report says so (``OUTSIDE_NOTE``). A video box without a track id is written as a one-frame track, and so
is each polygon, polyline and points mark outside any track. A shape track (``annotations.shape_tracks``) is a
``<track>`` of ``<polygon frame keyframe outside occluded points="x1,y1;x2,y2;..." z_order>`` (``<polyline>``,
``<points>`` alike) on every frame from its first keyframe to its last, the interpolated ones ``keyframe="0"``
(vertex by vertex), ``outside="1"`` after its last keyframe and after a keyframe whose next one has another vertex
count (fieldstudio draws nothing between those); a skeleton as CVAT writes one: ``<skeleton frame keyframe z_order>``
holding one ``<points label="nose" keyframe outside occluded points="x,y">`` per template point (an absent point
``outside="1"`` at 0,0; where the track is not shown, every point ``outside="1"``), its label declared a skeleton
in ``<meta>`` with its points as sub-labels and its limbs in ``<svg>`` (``annotations.cvat_labels``). Each point
also carries ``frame``, which CVAT does not read: datumaro 1.13's CVAT importer knows no skeletons, reads each
point of a track as a one-point ``points`` mark of the track's label, and refuses the file without it.
An angle (three points, the vertex in the middle) is a one-frame ``<polyline>`` through
them with the attributes ``fieldstudio_kind`` "angle", ``degrees`` and ``plane`` ("floor" or "image", measured
with the calibration in use when written) and ``measured_how`` (which calibration), its points with 4 decimals;
fieldstudio's CVAT import makes it an angle again, measured again, and says so where that differs from ``degrees``
by more than 0.01° (CVAT itself shows a polyline). A stopwatch (CVAT has no time interval) is a track of one
``<points>`` at 0,0 shown on every frame from its start frame to its end frame (keyframes there), ``outside="1"``
after, with the attributes ``fieldstudio_kind`` "stopwatch", ``seconds`` (end PTS - start PTS) and ``text``;
fieldstudio's CVAT import makes it a stopwatch again.
Marks without a label are in tracks labelled ``unlabelled``, a label the file declares (CVAT refuses a label it
does not know, and an empty one). Coordinates are upright pixels with 2 decimals; frames are frame-table indices. Files are written atomically.
"""

from __future__ import annotations

import shutil
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path, PurePath

from sqlalchemy import select

from fieldstudio.annotations import angles, cvat_labels, stopwatch
from fieldstudio.annotations import labels as label_store
from fieldstudio.annotations import box_tracks
from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations.imports.cvat import ANGLE_KIND_ATTRIBUTE
from fieldstudio.annotations.exports import cvat_images
from fieldstudio.annotations.exports.box_images import UNLABELLED, Cancelled, ExportError, ExportReport, Progress
from fieldstudio.core.atomic import atomic_write_text
from fieldstudio.core.errors import MediaError
from fieldstudio.annotations import skeleton_templates
from fieldstudio.core import skeletons
from fieldstudio.annotations.shape_tracks import SHAPE_TRACK_KINDS
from fieldstudio.core import shape_tracks
from fieldstudio.core.shapes import SHAPE_KINDS
from fieldstudio.media import library
from fieldstudio.store.models import Media, utcnow
from fieldstudio.store.project import Project

UNLABELLED_COLOUR = "#808080"   # the declared label of unlabelled marks: a neutral grey


def _box(track: ET.Element, frame: int, box: Sequence[float], *, keyframe: bool, outside: bool = False,
         attributes: dict | None = None) -> None:
    x1, y1, x2, y2 = box
    el = ET.SubElement(track, "box", {"frame": str(frame), "keyframe": "1" if keyframe else "0",
                                      "outside": "1" if outside else "0", "occluded": "0",
                                      "xtl": f"{x1:.2f}", "ytl": f"{y1:.2f}", "xbr": f"{x2:.2f}", "ybr": f"{y2:.2f}",
                                      "z_order": "0"})
    for name, value in (attributes or {}).items():
        a = ET.SubElement(el, "attribute", {"name": str(name)})
        a.text = "" if value is None else str(value)


def _shape(track: ET.Element, kind: str, frame: int, vertices: Sequence[Sequence[float]], *, outside: bool = False,
           attributes: dict | None = None, keyframe: bool = True, digits: int = 2) -> None:
    points = ";".join(f"{x:.{digits}f},{y:.{digits}f}" for x, y in vertices)
    el = ET.SubElement(track, kind, {"frame": str(frame), "keyframe": "1" if keyframe else "0",
                                     "outside": "1" if outside else "0",
                                     "occluded": "0", "points": points, "z_order": "0"})
    for name, value in (attributes or {}).items():
        a = ET.SubElement(el, "attribute", {"name": str(name)})
        a.text = "" if value is None else str(value)


def _skeleton(track: ET.Element, frame: int, points: Sequence, tmpl: skeletons.SkeletonTemplate, *,
              outside: bool = False, attributes: dict | None = None, keyframe: bool = True) -> None:
    key = "1" if keyframe else "0"
    el = ET.SubElement(track, "skeleton", {"frame": str(frame), "keyframe": key, "z_order": "0"})
    for name, p in zip(tmpl.points, points):
        # "frame" is not CVAT's (its reader takes the <skeleton>'s): datumaro 1.13, which knows no skeletons, reads
        # each point as a one-point <points> of the track and fails on one without a frame
        ET.SubElement(el, "points", {"label": name, "keyframe": key, "outside": "1" if outside or p is None else "0",
                                     "occluded": "0", "points": "0.00,0.00" if p is None else f"{p[0]:.2f},{p[1]:.2f}",
                                     "frame": str(frame)})
    for name, value in (attributes or {}).items():
        a = ET.SubElement(el, "attribute", {"name": str(name)})
        a.text = "" if value is None else str(value)


def _shape_track(track: ET.Element, keys: list[ann.AnnotationRecord], n: int,
                 known: dict[str, skeletons.SkeletonTemplate]) -> None:
    """A shape track's elements (``keys`` its keyframes, or one shape outside any track) on every frame from its
    first keyframe to its last, as CVAT writes a track: ``keyframe="1"`` on the keyframes, ``keyframe="0"`` on the
    frames interpolated vertex by vertex between them (``core.shape_tracks``), and ``outside="1"`` on the frame
    after a keyframe that is followed by frames fieldstudio does not interpolate (keyframes of different vertex
    counts) and on the frame after the last keyframe (when the video has one). ``known``: the project's skeleton
    templates (``skeleton_templates.known``)."""
    keys = sorted(keys, key=lambda r: r.frame_index)
    by_frame = {r.frame_index: r for r in keys}
    got = shape_tracks.interpolate_shape_track([(r.frame_index, r.geometry) for r in keys])
    kind = keys[0].kind
    template = skeletons.template(keys[0].text, known) if kind == "skeleton" else None
    current = keys[0]

    def write(frame: int, vertices: Sequence, *, keyframe: bool, outside: bool = False) -> None:
        if kind == "skeleton":
            _skeleton(track, frame, vertices, template, outside=outside, attributes=current.attributes,
                      keyframe=keyframe)
        else:
            _shape(track, kind, frame, vertices, outside=outside, attributes=current.attributes, keyframe=keyframe)

    for f in range(keys[0].frame_index, keys[-1].frame_index + 1):
        current = by_frame.get(f, current)
        if f in got:
            write(f, got[f].vertices, keyframe=got[f].keyframe)
        elif f - 1 in by_frame:  # the frames after this keyframe are not interpolated: the track leaves here
            write(f, by_frame[f - 1].geometry, keyframe=True, outside=True)
    if keys[-1].frame_index + 1 < n:
        write(keys[-1].frame_index + 1, keys[-1].geometry, keyframe=True, outside=True)


class _TrackIds:
    """Adds the ``<track>`` elements of one file with their ids: a box or shape track keeps the project's track id
    (the window's "#4", COCO's ``track_id``), so the three agree; a mark with no track id of ours (a shape outside
    any track, an angle, a stopwatch, a box outside any track) gets the next id after the largest of ``own`` (the
    file's project track ids), as does a project id already written (box and shape tracks share a video's ids, so
    that only happens in a project whose ids were written by hand)."""

    def __init__(self, root: ET.Element, own: Sequence[int]) -> None:
        self.root = root
        self.written: set[int] = set()
        self.fresh = max(own, default=-1) + 1

    def __call__(self, label: str | None, track_id: int | None = None) -> ET.Element:
        if track_id is None or track_id in self.written:
            track_id, self.fresh = self.fresh, self.fresh + 1
        self.written.add(track_id)
        return ET.SubElement(self.root, "track", {"id": str(track_id), "label": label or "", "source": "manual"})

    @property
    def count(self) -> int:
        """How many tracks were added."""
        return len(self.written)


def cvat_document(project: Project, media: Media,
                  left_out: list[tuple[str, str]] | None = None) -> tuple[ET.ElementTree, int]:
    """The CVAT for video XML of one video's marks; returns (tree, number of tracks). A skeleton track whose template
    is not that of its label's first skeleton track is left out, (what, why) added to ``left_out``."""
    left_out = [] if left_out is None else left_out
    root = ET.Element("annotations")
    ET.SubElement(root, "version").text = "1.1"
    meta = ET.SubElement(root, "meta")
    task = ET.SubElement(meta, "task")
    n = int(media.frame_count or 0)
    for tag, text in (("name", PurePath(media.file_name).stem), ("size", str(n)), ("mode", "interpolation"),
                      ("overlap", "0"), ("start_frame", "0"), ("stop_frame", str(max(n - 1, 0)))):
        ET.SubElement(task, tag).text = text
    labels_el = ET.SubElement(task, "labels")
    for lab in label_store.list_labels(project):
        el = ET.SubElement(labels_el, "label")
        ET.SubElement(el, "name").text = lab.name
        ET.SubElement(el, "color").text = lab.color
    size = ET.SubElement(task, "original_size")
    ET.SubElement(size, "width").text = str(media.width or 0)
    ET.SubElement(size, "height").text = str(media.height or 0)
    ET.SubElement(task, "source").text = media.file_name
    ET.SubElement(meta, "dumped").text = utcnow().isoformat(timespec="seconds")
    boxes = ann.list_annotations(project, media_id=media.id, kinds=["box"])
    shape_recs = [r for r in ann.list_annotations(project, media_id=media.id, kinds=SHAPE_TRACK_KINDS)
                  if r.frame_index is not None]
    track_ids = sorted({b.track_id for b in boxes if b.track_id is not None})
    new_track = _TrackIds(root, [*track_ids, *(r.track_id for r in shape_recs if r.track_id is not None)])
    for track_id in track_ids:
        keys = {r.frame_index: r for r in box_tracks.track_keyframes(project, media.id, track_id)}
        first = keys[min(keys)]
        track = new_track(first.label_name, track_id)
        attrs = first.attributes
        for f, tb in box_tracks.track_boxes(project, media.id, track_id).items():
            if f in keys:
                attrs = keys[f].attributes
            _box(track, f, tb.box, keyframe=tb.keyframe, attributes=attrs)
        last = max(keys)
        if last + 1 < n:
            _box(track, last + 1, keys[last].geometry, keyframe=True, outside=True, attributes=keys[last].attributes)
    known = skeleton_templates.known(project)
    skeleton_labels: dict[str, skeletons.SkeletonTemplate] = {}   # label name ("" none) -> its skeletons' template
    for key in dict.fromkeys(r.track_id if r.track_id is not None else r.id for r in shape_recs):
        keys = [r for r in shape_recs if (r.track_id if r.track_id is not None else r.id) == key]
        if keys[0].kind == "skeleton":
            tmpl = skeletons.template(keys[0].text, known)
            if skeleton_labels.setdefault(keys[0].label_name or "", tmpl) is not tmpl:
                # CVAT declares one template per skeleton label
                first = skeleton_labels[keys[0].label_name or ""]
                left_out.append((f"{media.file_name} skeleton track of {keys[0].label_name or UNLABELLED} "
                                 f"from frame {keys[0].frame_index}",
                                 f"its template ({len(tmpl.points)} points) is not that of the label's first skeleton "
                                 f"({len(first.points)} points): CVAT gives a skeleton label one template"))
                continue
        _shape_track(new_track(keys[0].label_name, keys[0].track_id), keys, n, known)
    for rec in ann.list_annotations(project, media_id=media.id, kinds=["angle"]):
        if rec.frame_index is None or rec.frame_index >= n:
            continue
        measured = angles.measure_angle(project, rec.id)
        track = new_track(rec.label_name)
        attributes = {ANGLE_KIND_ATTRIBUTE: "angle", "degrees": f"{measured.degrees:.4f}",
                      "plane": "floor" if measured.on_floor else "image", "measured_how": measured.how}
        for frame, outside in ((rec.frame_index, False), (rec.frame_index + 1, True)):
            if frame < n:
                _shape(track, "polyline", frame, rec.geometry, outside=outside, attributes=attributes,
                       digits=cvat_images.ANGLE_DIGITS)
    for rec in ann.list_annotations(project, media_id=media.id, kinds=["stopwatch"]):
        if rec.frame_index is None or rec.end_frame_index is None or rec.end_frame_index >= n:
            continue
        # CVAT has no time interval: a track shown from the start frame to the end frame is one, a single point at
        # the corner (fieldstudio_kind tells fieldstudio's import it is a stopwatch)
        track = new_track(rec.label_name)
        reading = stopwatch.reading_of(rec)
        attributes = {ANGLE_KIND_ATTRIBUTE: "stopwatch", "seconds": f"{reading.seconds:.6f}",
                      **({"text": rec.text} if rec.text else {})}
        for frame in range(rec.frame_index, rec.end_frame_index + 1):
            _shape(track, "points", frame, [(0.0, 0.0)], attributes=attributes,
                   keyframe=frame in (rec.frame_index, rec.end_frame_index))
        if rec.end_frame_index + 1 < n:
            _shape(track, "points", rec.end_frame_index + 1, [(0.0, 0.0)], outside=True, attributes=attributes)
    for b in boxes:
        if b.track_id is None and b.frame_index is not None:
            track = new_track(b.label_name)
            _box(track, b.frame_index, b.geometry, keyframe=True, attributes=b.attributes)
            if b.frame_index + 1 < n:
                _box(track, b.frame_index + 1, b.geometry, keyframe=True, outside=True, attributes=b.attributes)
    # CVAT refuses a track whose label the task does not declare ("Label '' is not registered for this task"):
    # unlabelled marks go under "unlabelled", declared, as COCO's category of that name (the import reads it back
    # as no label when the project has no label of that name)
    unlabelled = [t for t in root.findall("track") if not t.get("label")]
    for t in unlabelled:
        t.set("label", UNLABELLED)
    if unlabelled and all(el.findtext("name") != UNLABELLED for el in labels_el):
        el = ET.SubElement(labels_el, "label")
        ET.SubElement(el, "name").text = UNLABELLED
        ET.SubElement(el, "color").text = UNLABELLED_COLOUR
    if "" in skeleton_labels:
        skeleton_labels[UNLABELLED] = skeleton_labels.pop("")
    cvat_labels.declare_skeletons(labels_el, skeleton_labels)
    ET.indent(root, space="  ")
    return ET.ElementTree(root), new_track.count


OUTSIDE_NOTE = ('each CVAT track ends with one shape outside="1" on the frame after its last shown one (CVAT: the '
                'track ends there); a reader that ignores "outside" (datumaro keeps it as an annotation with '
                'outside: True) counts the object on that frame')
PHOTOS_STEM = "photos"   # the CVAT for images file of a folder export: photos.xml
PHOTOS_IMAGES = "images"  # beside it, the photos it names (CVAT's export with images; datumaro needs them)


def export_cvat(project: Project, out: Path, *, media_ids: Sequence[str] | None = None,
                progress: Progress = lambda done, total: None, cancelled: Cancelled = lambda: False) -> ExportReport:
    """Write one CVAT for video 1.1 XML per video with marks into the folder ``out`` (``<stem>.xml``; a second
    video of the same stem gets ``<stem>_<id8>.xml``) and one CVAT for images 1.1 XML of every photo with marks
    (``photos.xml``, ``exports.cvat_images``) with a copy of those photos in ``images/`` beside it (CVAT's own layout
    of an export with images: datumaro's CVAT importer refuses a folder whose ``<image>`` names no file there; a
    photo whose file is missing, or whose name another photo took, is left out of ``images/`` and listed in the
    report). ``out`` may be an ``.xml`` path when that makes one file (then no photo is copied). Raises
    ExportError when ``out`` is an ``.xml`` path and several files would be written."""
    out = Path(out)
    report = ExportReport("cvat")
    with project.read() as s:
        q = select(Media).where(Media.kind.in_(["video", "image"]))
        if media_ids is not None:
            q = q.where(Media.id.in_(list(media_ids)))
        medias = list(s.scalars(q.order_by(Media.file_name)))
    videos, photos = [], []
    for m in medias:
        counts = ann.count_annotations(project, m.id)
        if counts["box"] + sum(counts[k] for k in (*SHAPE_KINDS, "skeleton", "angle", "stopwatch")):
            (photos if m.kind == "image" else videos).append(m)
    single = out.suffix.lower() == ".xml"
    if single and len(videos) + bool(photos) > 1:
        raise ExportError(f"{out}: {len(videos)} video(s) and {len(photos)} photo(s) have marks, which make "
                          f"{len(videos) + bool(photos)} CVAT files; give a folder")
    used: set[str] = set()
    total = len(videos) + bool(photos)
    for i, m in enumerate(videos):
        if cancelled():
            report.cancelled = True
            return report
        tree, n_tracks = cvat_document(project, m, report.skipped)
        stem = PurePath(m.file_name).stem
        name = stem if stem not in used else f"{stem}_{m.id[:8]}"
        used.add(name)
        _write(out if single else out / f"{name}.xml", tree, report, n_tracks)
        progress(i + 1, total)
    if videos and OUTSIDE_NOTE not in report.notes:
        report.notes.append(OUTSIDE_NOTE)
    if photos and not cancelled():
        tree, n_marks = cvat_images.cvat_images_document(project, photos, report.skipped)
        name = PHOTOS_STEM if PHOTOS_STEM not in used else f"{PHOTOS_STEM}_cvat_images"
        _write(out if single else out / f"{name}.xml", tree, report, n_marks)
        report.images += len(photos) - 1     # _write counted the file as one
        if not single:
            _copy_photos(project, photos, out / PHOTOS_IMAGES, report)
        progress(total, total)
    report.cancelled = cancelled()
    return report


def _copy_photos(project: Project, photos: Sequence[Media], folder: Path, report: ExportReport) -> None:
    """The photos' files, byte for byte, into ``folder`` under the names ``photos.xml`` gives them."""
    folder.mkdir(parents=True, exist_ok=True)
    taken: set[str] = set()
    for m in photos:
        if m.file_name in taken:
            report.skipped.append((f"photo {m.file_name} ({m.id[:8]})", f"another photo is {PHOTOS_IMAGES}/"
                                   f"{m.file_name} already; its marks are in photos.xml, its file is not copied"))
            continue
        try:
            shutil.copyfile(library.require_file(project, m), folder / m.file_name)
        except (MediaError, OSError) as exc:
            report.skipped.append((f"photo {m.file_name}", f"not copied to {PHOTOS_IMAGES}/ ({exc}); its marks are "
                                   "in photos.xml, which datumaro reads only with the photo beside it"))
            continue
        taken.add(m.file_name)


def _write(path: Path, tree: ET.ElementTree, report: ExportReport, n: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, '<?xml version="1.0" encoding="utf-8"?>\n'
                      + ET.tostring(tree.getroot(), encoding="unicode") + "\n")
    report.files.append(path)
    report.images += 1
    report.annotations += n
