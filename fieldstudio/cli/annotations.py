"""`fieldstudio annotations list|import|export|skeleton` and `fieldstudio track`: marks in and out of a project.

``annotations export`` is the top-level ``export`` (cli/export.py) under this group; ``annotations import``
calls ``fieldstudio.annotations.imports.importing.import_annotations``, ``track`` calls
``fieldstudio.annotations.tracking.follow_box`` — the services the window's File ▸ Import annotations… and
Annotate ▸ Track forward / backward call.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer

from fieldstudio.cli import export as cli_export
from fieldstudio.cli import output as cli_support
from fieldstudio.cli import skeleton_templates as cli_skeleton_templates

IMPORT_FORMATS = ("coco", "yolo", "mot", "cvat")


def mark_row(record, file_name: str, measurement: dict | None = None) -> dict:  # noqa: ANN001 - AnnotationRecord
    """One stored mark as ``annotations list --json`` prints it; ``measurement`` (``measurement_of``) for a polygon,
    a polyline, an angle or a stopwatch."""
    return {"id": record.id, "media": file_name, "media_id": record.media_id, "kind": record.kind,
            "label": record.label_name, "frame_index": record.frame_index, "pts": record.pts,
            "pts_seconds": record.pts_seconds, "end_frame_index": record.end_frame_index,
            "end_pts_seconds": record.end_pts_seconds, "geometry": record.geometry, "track_id": record.track_id,
            "keyframe": record.is_keyframe if record.kind == "box" else None, "attributes": record.attributes,
            "text": record.text, "measurement": measurement}


def measurement_of(project, record) -> dict | None:  # noqa: ANN001 - Project, AnnotationRecord
    """What a polygon or polyline measures now: ``{"area_px", "area_m2", "length_px", "length_m", "how", "text"}``
    (``shape_marks.measure_shape``: metres through the calibration in use, None without one; a polygon's length its
    perimeter, its area None when its edges cross); what an angle or a stopwatch reads now: ``{"degrees", "image_degrees", "plane", "how", "text"}`` (measured
    with the calibration in use, ``angles.measure_angle``) or ``{"start_frame", "end_frame", "start_s", "end_s",
    "seconds", "frames", "text"}`` (``stopwatch.reading_of``, PTS seconds); None for another kind."""
    from fieldstudio.annotations import angles, shape_marks, stopwatch

    if record.kind in ("polygon", "polyline"):
        m = shape_marks.measure_shape(project, record.id)
        return {"area_px": m.area_px, "area_m2": m.area_m2, "length_px": m.length_px, "length_m": m.length_m,
                "how": m.how, "text": _shape_reading(record.kind, m)}
    if record.kind == "angle":
        a = angles.measure_angle(project, record.id)
        return {"degrees": a.degrees, "image_degrees": a.image_degrees, "plane": "floor" if a.on_floor else "image",
                "how": a.how, "text": a.text()}
    if record.kind == "stopwatch":
        w = stopwatch.reading_of(record)
        return {"start_frame": w.start_frame, "end_frame": w.end_frame, "start_s": w.start_s, "end_s": w.end_s,
                "seconds": w.seconds, "frames": w.frames, "text": w.text()}
    return None


def _shape_reading(kind: str, m) -> str:  # noqa: ANN001 - shape_marks.ShapeMeasure
    """"area 41,000 px² = 4.10 m², perimeter 820.0 px = 8.20 m" (a polygon; "length ..." a polyline); the metres
    only where a calibration applies, and a polygon whose edges cross says so."""
    if kind == "polygon" and m.area_px is None:
        return m.how.split(";")[0]
    what, size = ("area", f"{m.area_px:,.0f} px²" + ("" if m.area_m2 is None else f" = {m.area_m2:.2f} m²")) \
        if kind == "polygon" else ("length", "")
    run = f"{m.length_px:,.1f} px" + ("" if m.length_m is None else f" = {m.length_m:.2f} m")
    return f"area {size}, perimeter {run}" if what == "area" else f"length {run}"


def register(app: typer.Typer) -> None:
    """Add the ``annotations`` group (list, import, export) and ``track`` to ``app``."""
    group = typer.Typer(help="Annotations: list, import and export boxes, tracks, polygons, polylines, points, rulers, segments, events.",
                        no_args_is_help=True)
    app.add_typer(group, name="annotations")
    group.command("export")(cli_export.export)
    group.command("skeleton")(cli_skeleton_templates.skeleton_cmd)

    @group.command("list")
    def list_cmd(
        project: cli_support.ProjectArg,
        media: Annotated[Optional[str], typer.Option("--media", "-m", help="only this media (file name or id)")] = None,
        kind: Annotated[Optional[str], typer.Option("--kind", help="only box, ruler, polygon, polyline, points, skeleton, segment, event, tag, angle or stopwatch")] = None,
        as_json: Annotated[bool, typer.Option("--json", help="print a JSON list")] = False,
    ) -> None:
        """Print every stored mark with its id, kind, label, frame index, PTS and geometry (pixels); a polygon with
        its area and perimeter (px, and m with a calibration), a polyline with its length, an angle with its degrees
        and plane, a stopwatch with its seconds and frames (measured now).

        A track's interpolated boxes are not stored marks and are not listed; its keyframes are.
        """
        from fieldstudio.annotations import annotation_records as ann
        from fieldstudio.media import inventory, library

        if kind is not None and kind not in ann.KINDS:
            raise cli_support.fail(f"--kind {kind!r}: choose one of {', '.join(ann.KINDS)}")
        with cli_support.open_project(project) as p:
            media_id = library.find_media(p, media).id if media else None
            names = inventory.media_names(p)
            records = ann.list_annotations(p, media_id=media_id, kinds=[kind] if kind else None)
            rows = [mark_row(r, names.get(r.media_id, r.media_id), measurement_of(p, r)) for r in records]
        if as_json:
            cli_support.out.print_json(json.dumps(rows))
            return
        for r in rows:
            frame = "" if r["frame_index"] is None else f" frame {r['frame_index']} ({r['pts_seconds']:.3f} s)"
            track = "" if r["track_id"] is None else f" track {r['track_id']}"
            read = f"  {r['measurement']['text']}" if r["measurement"] else ""
            cli_support.out.print(f"{r['id']}  {r['media']}{frame}  {r['kind']} {r['label'] or '(no label)'}"
                                  f"{track}  {r['geometry'] if r['geometry'] is not None else r['text'] or ''}{read}",
                                  markup=False)
        cli_support.out.print(f"{len(rows)} mark(s)")

    @group.command("import")
    def import_cmd(
        project: cli_support.ProjectArg,
        source: Annotated[Path, typer.Argument(help="COCO .json, YOLO folder, MOT gt.txt or folder, CVAT .xml "
                                               "or a folder of them")],
        fmt: Annotated[str, typer.Option("--format", "-f", help="coco, yolo, mot or cvat")],
        media: Annotated[Optional[str], typer.Option("--media", "-m", help=(
            "put everything on this media (file name or id) instead of matching by the file's names"))] = None,
    ) -> None:
        """Import boxes, tracks, polygons, polylines and points made elsewhere (COCO segmentation and keypoints, CVAT
        <polygon>/<polyline>/<points>, YOLO segmentation lines); labels are created as needed; one undoable edit.

        Prints what matched which media and what did not (with the reason). Boxes the project holds already (the
        same file imported again) are not added twice: exit 0, saying so.
        """
        from fieldstudio.annotations.imports.importing import import_annotations

        if fmt not in IMPORT_FORMATS:
            raise cli_support.fail(f"--format {fmt!r}: choose one of {', '.join(IMPORT_FORMATS)}")
        with cli_support.open_project(project) as p, cli_support.progress_bar("Importing annotations") as update:
            report = import_annotations(p, source, fmt, media=media, progress=update)
        for line in report.lines():
            cli_support.out.print(line, markup=False)
        raise typer.Exit(0 if report.marks or report.already_present else 1)   # again: nothing new, and that is fine

    @app.command("track")
    def track_cmd(
        project: cli_support.ProjectArg,
        media: Annotated[str, typer.Argument(help="video file name or id")],
        box: Annotated[str, typer.Option("--box", help="id of a box on the video (`annotations list`)")],
        to: Annotated[int, typer.Option("--to", help="frame index to track to (before the box: backward)")],
        start: Annotated[Optional[int], typer.Option("--from", help=(
            "start on this frame of the box's track (default: the box's own frame)"))] = None,
        every: Annotated[int, typer.Option("--every", min=1, help="a keyframe every N frames")] = 5,
    ) -> None:
        """Follow a box forward or backward with OpenCV's CSRT tracker and store keyframes every N frames.

        Stops at --to, at the end of the video, before the track's next keyframe, or when the target is
        lost or leaves the image (said why). The stretch is one edit.
        """
        from fieldstudio.annotations import tracking
        from fieldstudio.media import library

        with cli_support.open_project(project) as p:
            video = library.find_media(p, media)
            begin = tracking.start_of_box(p, box, start)
            if begin.media_id != video.id:
                raise cli_support.fail(f"box {box} is not on {video.file_name}")
            with cli_support.progress_bar("Tracking") as update:
                result = tracking.follow_box(p, begin, to, every=every, progress=update)
            edit = tracking.stretch_edit(p, result)
            if edit is not None:
                edit.do()
        cli_support.out.print(result.message, markup=False)
        raise typer.Exit(0 if result.frames_followed else 1)
