"""The images that carry boxes, as the box exporters (COCO, YOLO) see them, and writing their pixels.

An exported image is a photo or one video frame with at least one live box on it. Video frames are
named ``<video stem>_f<frame index, 6 digits>.jpg`` (``walk_f000123.jpg``), photos keep their file name
(``.jpg``/``.png``; other formats become ``.jpg``); a name used twice gets the media id's first 8
characters added. Boxes are in upright full-resolution pixels, so written images are the upright
decoded pixels (EXIF orientation and video rotation applied), never the original file.
Tracks contribute their interpolated boxes on the frames between keyframes unless ``keyframes_only``, and shape
tracks their interpolated polygons, polylines, points and skeletons (``core.shape_tracks``).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any

import cv2
import numpy as np
from sqlalchemy import select

from fieldstudio.annotations import labels as label_store
from fieldstudio.annotations import annotation_records as ann
from fieldstudio.core import shape_tracks, tracks
from fieldstudio.core.shapes import SHAPE_KINDS
from fieldstudio.core.atomic import atomic_write_bytes
from fieldstudio.core.errors import FieldstudioError
from fieldstudio.store.models import Media
from fieldstudio.store.project import Project
from fieldstudio.core.progress import Cancelled, Progress

UNLABELLED = "unlabelled"
JPEG_QUALITY = 95


class ExportError(FieldstudioError):
    """An export cannot be written (unknown format, output path unusable)."""


@dataclass
class ExportReport:
    """What an export wrote: files, counts, and (what, reason) for things left out."""

    format: str
    files: list[Path] = field(default_factory=list)
    images: int = 0
    annotations: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)
    cancelled: bool = False
    notes: list[str] = field(default_factory=list)   # one line each the user should read about the files' meaning


@dataclass(frozen=True)
class ExportBox:
    """One box on an exported image: ``box`` is ``(x1, y1, x2, y2)`` upright pixels."""

    annotation_id: str | None
    label_id: str | None
    label_name: str | None
    box: tracks.Box
    track_id: int | None
    keyframe: bool
    attributes: dict[str, Any] | None


@dataclass(frozen=True)
class ExportShape:
    """One polygon, polyline, points mark or skeleton on an exported image: ``vertices`` ``((x, y), ...)`` upright
    pixels (a skeleton's absent points None; ``template`` its template's name)."""

    annotation_id: str | None   # None: a shape track's interpolated shape
    kind: str
    label_id: str | None
    label_name: str | None
    vertices: tuple[tuple[float, float] | None, ...]
    attributes: dict[str, Any] | None
    template: str | None = None
    track_id: int | None = None   # the shape track it is part of (a keyframe, or interpolated when no id)
    keyframe: bool = True


@dataclass(frozen=True)
class ExportImage:
    """A photo (``frame_index`` None) or a video frame, its export file name and its boxes."""

    media_id: str
    media_file_name: str
    kind: str
    width: int
    height: int
    frame_index: int | None
    pts_seconds: float | None
    file_name: str
    boxes: tuple[ExportBox, ...]
    shapes: tuple[ExportShape, ...] = ()


def categories(project: Project, images: list[ExportImage]) -> list[tuple[str | None, str]]:
    """(label id, name) of every label in the project's order, plus (None, 'unlabelled') when needed."""
    out: list[tuple[str | None, str]] = [(lab.id, lab.name) for lab in label_store.list_labels(project)]
    if any(b.label_id is None for im in images for b in (*im.boxes, *im.shapes)):
        out.append((None, UNLABELLED))
    return out


def _suffix(name: str) -> str:
    suffix = PurePath(name).suffix.lower()
    return suffix if suffix in (".jpg", ".jpeg", ".png") else ".jpg"


def collect_images(project: Project, *, keyframes_only: bool = False, media_ids: list[str] | None = None,
                   with_shapes: bool = False) -> tuple[list[ExportImage], list[tuple[str, str]]]:
    """Every photo and video frame with at least one live box (``with_shapes``: or polygon, polyline or points
    mark, for the formats that carry them), ordered by media file name and frame.

    Returns (images, skipped): ``skipped`` lists (what, reason) for boxes that cannot be exported
    (e.g. a media without a known size).
    """
    with project.read() as s:
        q = select(Media).where(Media.kind.in_(["image", "video"]))
        if media_ids is not None:
            q = q.where(Media.id.in_(media_ids))
        medias = {m.id: m for m in s.scalars(q)}
    kinds = ["box", *SHAPE_KINDS, "skeleton"] if with_shapes else ["box"]
    records = [r for r in ann.list_annotations(project, kinds=kinds) if r.media_id in medias]
    per_frame: dict[tuple[str, int | None], list[ExportBox]] = {}
    shapes_of: dict[tuple[str, int | None], list[ExportShape]] = {}
    pts_of: dict[tuple[str, int | None], float | None] = {}
    keys: dict[tuple[str, int], list[ann.AnnotationRecord]] = {}
    shape_keys: dict[tuple[str, int], list[ann.AnnotationRecord]] = {}
    skipped: list[tuple[str, str]] = []
    for r in records:
        m = medias[r.media_id]
        if not (m.width and m.height):
            skipped.append((f"box {r.id[:8]} on {m.file_name}", "the media's size is unknown (unreadable file)"))
            continue
        k = (r.media_id, r.frame_index)
        if r.kind != "box":
            shapes_of.setdefault(k, []).append(_export_shape(r, r.id, r.geometry))
            pts_of[k] = r.pts_seconds
            if r.track_id is not None and r.is_keyframe and r.frame_index is not None:
                shape_keys.setdefault((r.media_id, r.track_id), []).append(r)
            continue
        per_frame.setdefault(k, []).append(ExportBox(r.id, r.label_id, r.label_name, tuple(r.geometry),
                                                     r.track_id, r.is_keyframe, r.attributes))
        pts_of[k] = r.pts_seconds
        if r.track_id is not None and r.is_keyframe and r.frame_index is not None:
            keys.setdefault((r.media_id, r.track_id), []).append(r)
    if not keyframes_only:
        _add_interpolated(project, medias, keys, per_frame, pts_of)
        _add_interpolated_shapes(shape_keys, shapes_of)
        _pts_of_interpolated(project, medias, shapes_of, pts_of)
    used: set[str] = set()
    images: list[ExportImage] = []
    for k in shapes_of:
        per_frame.setdefault(k, [])
    for (media_id, frame), boxes in sorted(per_frame.items(), key=lambda kv: (
            medias[kv[0][0]].file_name, kv[0][0], -1 if kv[0][1] is None else kv[0][1])):
        m = medias[media_id]
        stem = PurePath(m.file_name).stem
        name = f"{stem}_f{frame:06d}.jpg" if frame is not None else f"{stem}{_suffix(m.file_name)}"
        if name in used:
            name = f"{PurePath(name).stem}_{media_id[:8]}{PurePath(name).suffix}"
        used.add(name)
        images.append(ExportImage(media_id, m.file_name, m.kind, int(m.width), int(m.height), frame,
                                  pts_of.get((media_id, frame)), name, tuple(boxes),
                                  tuple(shapes_of.get((media_id, frame), ()))))
    return images, skipped


def _add_interpolated(project: Project, medias: dict[str, Media],
                      keys: dict[tuple[str, int], list[ann.AnnotationRecord]],
                      per_frame: dict[tuple[str, int | None], list[ExportBox]],
                      pts_of: dict[tuple[str, int | None], float | None]) -> None:
    """Add each track's interpolated boxes (frames strictly between keyframes) with their PTS."""
    from fieldstudio.media import video_index  # the frame table gives each interpolated frame's PTS

    tables: dict[str, Any] = {}
    for (media_id, track_id), recs in keys.items():
        recs.sort(key=lambda r: r.frame_index)
        got = tracks.interpolate_track([(r.frame_index, r.geometry) for r in recs])
        for f, tb in got.items():
            if tb.keyframe:
                continue
            before = max((r for r in recs if r.frame_index < f), key=lambda r: r.frame_index)
            per_frame.setdefault((media_id, f), []).append(ExportBox(
                None, before.label_id, before.label_name, tb.box, track_id, False, before.attributes))
            if (media_id, f) not in pts_of:
                if media_id not in tables:
                    tables[media_id] = video_index.load_frame_table(project, medias[media_id])
                table = tables[media_id]
                pts_of[(media_id, f)] = table.seconds(f) if table is not None and f < len(table) else None


def _export_shape(r: ann.AnnotationRecord, annotation_id: str | None, vertices) -> ExportShape:  # noqa: ANN001
    return ExportShape(annotation_id, r.kind, r.label_id, r.label_name,
                       tuple(None if v is None else (float(v[0]), float(v[1])) for v in vertices), r.attributes,
                       r.text if r.kind == "skeleton" else None, r.track_id, annotation_id is not None)


def _add_interpolated_shapes(shape_keys: dict[tuple[str, int], list[ann.AnnotationRecord]],
                             shapes_of: dict[tuple[str, int | None], list[ExportShape]]) -> None:
    """Add each shape track's interpolated shapes (``core.shape_tracks``: frames strictly between keyframes of one
    vertex count), with the label and attributes of the keyframe before."""
    for (media_id, _track_id), recs in shape_keys.items():
        recs.sort(key=lambda r: r.frame_index)
        by_frame = {r.frame_index: r for r in recs}
        before = recs[0]
        for f, got in shape_tracks.interpolate_shape_track([(r.frame_index, r.geometry) for r in recs]).items():
            before = by_frame.get(f, before)
            if not got.keyframe:
                shapes_of.setdefault((media_id, f), []).append(_export_shape(before, None, got.vertices))


def _pts_of_interpolated(project: Project, medias: dict[str, Media],
                         shapes_of: dict[tuple[str, int | None], list[ExportShape]],
                         pts_of: dict[tuple[str, int | None], float | None]) -> None:
    """The PTS (seconds, from the frame table) of the frames only an interpolated shape is on."""
    from fieldstudio.media import video_index

    tables: dict[str, Any] = {}
    for media_id, f in shapes_of:
        if (media_id, f) in pts_of or f is None:
            continue
        if media_id not in tables:
            tables[media_id] = video_index.load_frame_table(project, medias[media_id])
        table = tables[media_id]
        pts_of[(media_id, f)] = table.seconds(f) if table is not None and f < len(table) else None


def encode_image(rgb: np.ndarray, file_name: str) -> bytes:
    """Encode upright RGB pixels (H, W, 3) uint8 as JPEG (quality 95) or PNG by the name's suffix."""
    ext = ".png" if file_name.lower().endswith(".png") else ".jpg"
    params = [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY] if ext == ".jpg" else []
    ok, buf = cv2.imencode(ext, cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR), params)
    if not ok:
        raise ExportError(f"{file_name}: the image could not be encoded")
    return buf.tobytes()


def write_images(project: Project, images: list[ExportImage], folder: Path, report: ExportReport, *,
                 progress: Progress, cancelled: Cancelled, done_before: int = 0, total: int | None = None) -> None:
    """Decode each image's exact frame and write it atomically to ``folder / file_name``.

    A media whose file is missing or unreadable is listed in ``report.skipped`` and the others go on.
    """
    from fieldstudio.media.frames import FrameSource

    folder.mkdir(parents=True, exist_ok=True)
    total = len(images) if total is None else total
    source = FrameSource(project, max_readers=2)
    failed: dict[str, str] = {}
    try:
        with project.read() as s:
            medias = {m.id: m for m in s.scalars(select(Media).where(
                Media.id.in_(sorted({im.media_id for im in images}))))}
        for i, im in enumerate(images):
            if cancelled():
                report.cancelled = True
                return
            if im.media_id in failed:
                continue
            try:
                frame = source.get(medias[im.media_id], im.frame_index or 0)
            except (FieldstudioError, IndexError) as exc:
                failed[im.media_id] = str(exc)
                report.skipped.append((f"images of {im.media_file_name}", str(exc)))
                continue
            path = folder / im.file_name
            atomic_write_bytes(path, encode_image(frame.rgb, im.file_name))
            report.files.append(path)
            progress(done_before + i + 1, total)
    finally:
        with contextlib.suppress(Exception):
            source.close()
