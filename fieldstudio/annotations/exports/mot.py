"""MOT Challenge export of tracks: ``<video stem>/gt/gt.txt`` and ``seqinfo.ini`` per video.

Each line of ``gt.txt`` is ``frame,id,bb_left,bb_top,bb_width,bb_height,conf,x,y,z`` (the MOTChallenge
text format, motchallenge.net "Data format"): ``frame`` is 1-based (frame index + 1 in the video's
frame table order), ``id`` the track id, the box in upright pixels (2 decimals), ``conf`` 1 for
ground truth and ``-1,-1,-1`` for the unused world coordinates. Lines are sorted by frame, then id.
Tracks include their interpolated boxes between keyframes unless ``keyframes_only``. Video boxes
without a track id are left out (listed in the report). ``tracks.csv`` maps each track id to its label.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path, PurePath

from sqlalchemy import select

from fieldstudio.annotations import box_tracks
from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations.exports.box_images import Cancelled, ExportReport, Progress
from fieldstudio.core.atomic import atomic_write_text
from fieldstudio.store.models import Media
from fieldstudio.store.project import Project


def mot_rows(project: Project, media_id: str, *, keyframes_only: bool = False) -> list[tuple]:
    """(frame 1-based, track id, left, top, width, height) of every tracked box of one video, sorted."""
    rows = []
    tracks_on = {r.track_id for r in ann.list_annotations(project, media_id=media_id, kinds=["box"])
                 if r.track_id is not None}
    for track_id in sorted(tracks_on):
        boxes = box_tracks.track_boxes(project, media_id, track_id)
        for f, tb in boxes.items():
            if keyframes_only and not tb.keyframe:
                continue
            x1, y1, x2, y2 = tb.box
            rows.append((f + 1, track_id, x1, y1, x2 - x1, y2 - y1))
    rows.sort(key=lambda r: (r[0], r[1]))
    return rows


def export_mot(project: Project, out: Path, *, keyframes_only: bool = False,
               media_ids: Sequence[str] | None = None, progress: Progress = lambda done, total: None,
               cancelled: Cancelled = lambda: False) -> ExportReport:
    """Write one MOT sequence folder per video with tracks (of ``media_ids`` only, when given) into the
    folder ``out``; files atomically."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    report = ExportReport("mot")
    with project.read() as s:
        q = select(Media).where(Media.kind == "video")
        if media_ids is not None:
            q = q.where(Media.id.in_(list(media_ids)))
        videos = list(s.scalars(q.order_by(Media.file_name)))
    used: set[str] = set()
    for i, m in enumerate(videos):
        if cancelled():
            report.cancelled = True
            return report
        boxes = ann.list_annotations(project, media_id=m.id, kinds=["box"])
        untracked = sum(1 for b in boxes if b.track_id is None)
        if untracked:
            report.skipped.append((m.file_name, f"{untracked} box(es) without a track id are not in MOT"))
        rows = mot_rows(project, m.id, keyframes_only=keyframes_only)
        if not rows:
            progress(i + 1, len(videos))
            continue
        name = PurePath(m.file_name).stem
        if name in used:
            name = f"{name}_{m.id[:8]}"
        used.add(name)
        seq = out / name
        (seq / "gt").mkdir(parents=True, exist_ok=True)
        text = "".join(f"{f},{t},{x:.2f},{y:.2f},{w:.2f},{h:.2f},1,-1,-1,-1\n" for f, t, x, y, w, h in rows)
        atomic_write_text(seq / "gt" / "gt.txt", text)
        fps = round(m.avg_fps) if m.avg_fps else 0
        atomic_write_text(seq / "seqinfo.ini", (
            f"[Sequence]\nname={name}\nimDir=img1\nframeRate={fps}\nseqLength={m.frame_count or 0}\n"
            f"imWidth={m.width}\nimHeight={m.height}\nimExt=.jpg\n"))
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(["track_id", "label"])
        labels_of = {}
        for b in boxes:
            if b.track_id is not None and b.track_id not in labels_of:
                labels_of[b.track_id] = b.label_name or ""
        for t in sorted(labels_of):
            writer.writerow([t, labels_of[t]])
        atomic_write_text(seq / "tracks.csv", buf.getvalue())
        report.files += [seq / "gt" / "gt.txt", seq / "seqinfo.ini", seq / "tracks.csv"]
        report.images += len({r[0] for r in rows})
        report.annotations += len(rows)
        progress(i + 1, len(videos))
    return report
