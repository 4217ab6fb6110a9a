"""`fieldstudio calibrations list|use`: which calibration measures each media; `fieldstudio trajectory`: a tracked
box's path on the floor with metres walked and speed; `fieldstudio stopwatch`: the time between two frames;
`fieldstudio zone`: whether a subject is inside a zone polygon, frame by frame (``annotations.zones``). The
same services as the window's Calibrations panel
(``annotations.calibrations``: ``in_use_status``, ``ChooseCalibration``) and Annotate ▸ Trajectory of the
selected track (``annotations.trajectory.track_trajectory``) and the stopwatch keys (``annotations.stopwatch``).
"""

from __future__ import annotations

import json
from typing import Annotated, Optional

import typer

from fieldstudio.cli import output as cli_support

# the zone subject's options, shared by `zone` and `tasks ground-truth --zone`
SubjectOpt = Annotated[str, typer.Option("--subject", help=(
    "points (points marks), skeleton (its points, or --point) or box (its ground point, bottom centre; a track's "
    "on every frame)"))]
LabelOpt = Annotated[Optional[str], typer.Option("--label", help="only the subject marks of this label")]
TrackOpt = Annotated[Optional[int], typer.Option("--track", help="with --subject box: this track only")]
PointOpt = Annotated[Optional[str], typer.Option("--point", help=(
    "with --subject skeleton: this point only (e.g. left_ankle)"))]
FromFrameOpt = Annotated[Optional[int], typer.Option("--from-frame", help="first frame (inclusive)")]
ToFrameOpt = Annotated[Optional[int], typer.Option("--to-frame", help="last frame (inclusive)")]


def label_id_named(p, name: str | None) -> str | None:  # noqa: ANN001 - Project
    """The id of the label called ``name`` (None for None); fails, exit 2, naming it when there is none."""
    from fieldstudio.annotations import labels

    if name is None:
        return None
    found = labels.find_label(p, name)
    if found is None:
        raise cli_support.fail(f"no label {name!r} in the project")
    return found.id


def register(app: typer.Typer) -> None:
    """Add the ``calibrations`` group (list, use), ``trajectory``, ``stopwatch`` and ``zone`` to ``app``."""
    group = typer.Typer(help="Calibrations: list them with the one in use, choose which one applies.",
                        no_args_is_help=True)
    app.add_typer(group, name="calibrations")

    @group.command("list")
    def list_cmd(
        project: cli_support.ProjectArg,
        as_json: Annotated[bool, typer.Option("--json", help="print a JSON list")] = False,
    ) -> None:
        """Print every calibration: what it applies to, its kind and size, and whether it is in use.

        When a media or camera group has both a scale and a floor calibration, one is in use (it measures every
        ruler, box and trajectory) and the other is "not in use"; `calibrations use` chooses.
        """
        from fieldstudio.annotations import calibrations as cal
        from fieldstudio.media import inventory

        with cli_support.open_project(project) as p:
            names = inventory.media_names(p)
            rows = [{"id": r.id, "applies_to": names.get(r.media_id, r.media_id) if r.media_id
                     else f"camera group {r.camera_group}", "media_id": r.media_id, "camera_group": r.camera_group,
                     "kind": r.kind, "description": r.describe(), "status": cal.in_use_status(p, r)}
                    for r in cal.list_calibrations(p)]
        if as_json:
            cli_support.out.print_json(json.dumps(rows))
            return
        for r in rows:
            cli_support.out.print(f"{r['id']}  {r['applies_to']}  {r['kind']}  {r['status']}  {r['description']}",
                                  markup=False)
        cli_support.out.print(f"{len(rows)} calibration(s)")

    @group.command("use")
    def use_cmd(
        project: cli_support.ProjectArg,
        kind: Annotated[str, typer.Argument(help="scale or floor: the calibration that measures from now on")],
        camera_group: Annotated[Optional[str], typer.Option("--group", "-g", help="for this camera group")] = None,
        media: Annotated[Optional[str], typer.Option("--media", "-m", help=(
            "for this media only (file name or id; wins over its group's choice)"))] = None,
    ) -> None:
        """Choose which calibration applies to a camera group (or one media) that has both a scale and a floor.

        Every ruler, box width and trajectory of its media is then measured with it; the other is kept, "not in
        use". Without a choice the floor applies.
        """
        from fieldstudio.annotations import calibrations as cal
        from fieldstudio.annotations import rows as views
        from fieldstudio.annotations.edits import ChooseCalibration
        from fieldstudio.media import library

        if kind not in cal.KINDS:
            raise cli_support.fail(f"{kind!r}: choose scale or floor")
        if (camera_group is None) == (media is None):
            raise cli_support.fail("give --group NAME or --media FILE (one of them)")
        with cli_support.open_project(project) as p:
            media_id = library.find_media(p, media).id if media else None
            if camera_group is not None and camera_group not in views.camera_groups(p):
                raise cli_support.fail(f"no camera group {camera_group!r} (groups: "
                                       f"{', '.join(views.camera_groups(p)) or 'none'})")
            ChooseCalibration(p, kind, media_id=media_id, camera_group=camera_group).do()
            scope = f"camera group {camera_group!r}" if camera_group else media
            present = [r for r in cal.list_calibrations(p) if (r.media_id == media_id if media_id
                                                                else r.camera_group == camera_group)]
        kinds = {r.kind for r in present}
        note = "" if kind in kinds else f" (it has no {kind} calibration yet: the choice applies once it has one)"
        cli_support.out.print(f"{scope}: the {kind} calibration is in use{note}", markup=False)

    @app.command("trajectory")
    def trajectory_cmd(
        project: cli_support.ProjectArg,
        media: Annotated[str, typer.Argument(help="video file name or id")],
        track: Annotated[int, typer.Option("--track", "-t", help="track id (`annotations list` shows them)")],
        smooth: Annotated[int, typer.Option("--smooth", min=1, help=(
            "average the floor positions over this many frames (odd; 1: none)"))] = 1,
        csv_path: Annotated[Optional[str], typer.Option("--csv", help="write the table to this CSV file")] = None,
        as_json: Annotated[bool, typer.Option("--json", help="print the table as a JSON list")] = False,
    ) -> None:
        """Print a tracked box's ground point (bottom centre) per frame on the calibrated floor: time from the
        frame's PTS, x/y in metres, step distance, distance walked and speed, with the calibration used.

        Exit 1 when no calibration applies (the table is in pixels only).
        """
        from fieldstudio.annotations import trajectory
        from fieldstudio.media import library

        with cli_support.open_project(project) as p:
            video = library.find_media(p, media)
            try:
                result = trajectory.track_trajectory(p, video.id, track, smooth=smooth)
            except (ValueError, trajectory.AnnotationError) as exc:
                raise cli_support.fail(str(exc))
        rows = result.rows()
        if csv_path:
            result.write_csv(csv_path)
        if as_json:
            cli_support.out.print_json(json.dumps(rows))
        elif not csv_path:
            cli_support.out.print("frame  time_s  x_m  y_m  step_m  distance_m  speed_m_s  area", markup=False)
            for r in rows:
                area = {True: "outside", False: "inside", None: None}[r["outside_calibrated_area"]]
                cells = [r["frame"], r["time_s"], r["x_m"], r["y_m"], r["step_m"], r["distance_m"], r["speed_m_s"],
                         area]
                cli_support.out.print("  ".join("-" if v is None else str(v) for v in cells), markup=False)
        if not as_json:
            cli_support.out.print(result.summary(), markup=False)
            if csv_path:
                cli_support.out.print(f"wrote {len(rows)} row(s) to {csv_path}", markup=False)
        raise typer.Exit(0 if result.distance_m is not None else 1)

    @app.command("stopwatch")
    def stopwatch_cmd(
        project: cli_support.ProjectArg,
        media: Annotated[str, typer.Argument(help="video file name or id")],
        start: Annotated[int, typer.Option("--from", help="start frame index")],
        end: Annotated[int, typer.Option("--to", help="end frame index")],
        keep: Annotated[bool, typer.Option("--keep", help="keep it as a measurement in the project")] = False,
    ) -> None:
        """Print the time between two frames of a video from their PTS (seconds and frame steps), as the window's
        stopwatch (Alt+W, Alt+Shift+W) does; --keep stores it as the window does."""
        from fieldstudio.annotations import stopwatch
        from fieldstudio.annotations.annotation_records import AnnotationError
        from fieldstudio.media import library

        with cli_support.open_project(project) as p:
            video = library.find_media(p, media)
            try:
                if keep:
                    reading = stopwatch.read_stopwatch(p, stopwatch.add_stopwatch(p, video.id, start, end))
                else:
                    reading = stopwatch.time_between(p, video.id, start, end)
            except AnnotationError as exc:
                raise cli_support.fail(str(exc))
        kept = f"  (kept: {reading.annotation_id})" if reading.annotation_id else ""
        cli_support.out.print(f"{video.file_name}: {reading.text()}{kept}", markup=False)

    @app.command("zone")
    def zone_cmd(
        project: cli_support.ProjectArg,
        zone: Annotated[str, typer.Argument(help="the zone polygon's annotation id (`annotations list --kind polygon`)")],
        subject: SubjectOpt = "points",
        label: LabelOpt = None,
        track: TrackOpt = None,
        point: PointOpt = None,
        start: FromFrameOpt = None,
        end: ToFrameOpt = None,
        as_json: Annotated[bool, typer.Option("--json", help="print the frames as a JSON list")] = False,
    ) -> None:
        """Print, frame by frame, whether the subject is inside the zone (any tested point inside or on the edge),
        and the answers "inside on any frame" and "inside on every frame". Without frames: the zone's own frame.
        The zone applies to every frame asked (a fixed camera). Exit 1 when the subject is on no frame asked; exit 2
        for a range that is no frames of the zone's video (reversed, before 0, past its last frame). A zone whose
        edges cross gets its inside rule printed (even-odd)."""
        from fieldstudio.annotations import annotation_records as ann
        from fieldstudio.annotations import zone_limits, zones
        from fieldstudio.core.errors import FieldstudioError

        with cli_support.open_project(project) as p:
            label_id = label_id_named(p, label)
            try:
                zone_limits.check_frame_range(p, zone, start, end)
                rule = zone_limits.inside_rule(ann.get_annotation(p, zone).geometry)
                check = zones.check_zone(p, zone, subject=subject, label_id=label_id, track_id=track, point=point,
                                         start_frame=start, end_frame=end)
            except FieldstudioError as exc:
                raise cli_support.fail(str(exc)) from None
        rows = [{"frame": f.frame_index, "inside": f.is_inside, "points_tested": f.tested, "points_inside": f.inside}
                for f in check.frames]
        if as_json:
            cli_support.out.print_json(json.dumps(rows))
        else:
            cli_support.out.print("frame  inside  points_inside/tested", markup=False)
            for r in rows:
                cli_support.out.print(f"{'-' if r['frame'] is None else r['frame']}  {'yes' if r['inside'] else 'no'}"
                                      f"  {r['points_inside']}/{r['points_tested']}", markup=False)
            cli_support.out.print(check.explain("any"), markup=False)
            if rule:
                cli_support.out.print(rule, markup=False)
            answers = {m: check.answer(m) for m in zones.ANSWER_MODES}
            cli_support.out.print("inside on any frame: " + {True: "yes", False: "no", None: "-"}[answers["any"]]
                                  + "; on every frame: " + {True: "yes", False: "no", None: "-"}[answers["all"]],
                                  markup=False)
        raise typer.Exit(0 if rows else 1)
