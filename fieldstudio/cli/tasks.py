"""`fieldstudio tasks import|export|link-media|ground-truth` and `fieldstudio refresh-ground-truth`: task sets in and
out of a project, their inputs linked to media added later, and a task's ground truth linked to annotations.

``tasks export`` calls ``fieldstudio.tasks.exporting.export_tasks``; ``refresh-ground-truth`` calls
``fieldstudio.tasks.ground_truth.pending_changes`` (and ``apply_changes`` with ``--apply``) — the same services
the task editor uses; ``tasks ground-truth`` makes the task editor's links (``tasks.ground_truth.link_fields``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from fieldstudio.cli import output as cli_support
from fieldstudio.cli.measurements import (FromFrameOpt, LabelOpt, PointOpt, SubjectOpt, ToFrameOpt, TrackOpt,
                                          label_id_named)
from fieldstudio.core.wording import or_list
from fieldstudio.tasks import formats

# the option texts are module names: typer reads the annotations (strings here) in the module's namespace
FORMATS = ("auto",) + formats.choices()
IMPORT_FORMAT_HELP = (or_list(("auto (detected per file)",) + formats.choices()) + ": with a format, a file (or a "
                      "folder's task file) detected as another one is refused")
EXPORT_FORMAT_HELP = formats.describe_choices(formats.writable())
SOURCE_HELP = "only tasks of this source: " + ", ".join(
    dict.fromkeys([f.source for f in formats.readable(formats.TASKS) if f.source] + ["manual"]))


def register(app: typer.Typer) -> None:
    """Add the ``tasks import|export`` group and ``refresh-ground-truth`` to ``app``."""
    tasks_app = typer.Typer(help="Benchmark tasks: import and export with ground truth.", no_args_is_help=True)
    app.add_typer(tasks_app, name="tasks")

    @app.command("import-tasks", hidden=True)  # the old spelling, kept as an alias
    @tasks_app.command("import")
    def tasks_import_cmd(
        project: cli_support.ProjectArg,
        files: Annotated[list[Path], typer.Argument(help="task files or folders")],
        fmt: Annotated[str, typer.Option("--format", "-f", help=IMPORT_FORMAT_HELP)] = "auto",
    ) -> None:
        """Import task files with their ground truth; the format is detected per file or checked against --format."""
        from fieldstudio.scoring.imported_tasks import import_tasks
        from fieldstudio.tasks.importing import task_files_in

        if fmt not in FORMATS:
            raise cli_support.fail(f"--format {fmt!r}: choose one of {', '.join(FORMATS)}")
        if fmt != "auto":
            for f in files:
                if f.is_file() and (why := formats.format_mismatch(f, fmt)):
                    raise cli_support.fail(f"{f}: {why}")
                # in a folder, files without tasks are skipped on import; tasks of another format are refused
                for g in task_files_in(f) if f.is_dir() else ():
                    if (formats.detect_format(g) in formats.names(formats.TASKS)
                            and (why := formats.format_mismatch(g, fmt))):
                        raise cli_support.fail(f"{g}: {why}")
        with (cli_support.open_project(project) as p, cli_support.progress_bar("Importing tasks") as update,
              cli_support.cancel_on_ctrl_c("the batch being written is saved, the rest is not read") as cancel):
            report = import_tasks(p, files, progress=update, cancelled=cancel.is_set)
        cli_support.print_import_report(report)
        if report.cancelled:
            cli_support.err.print(f"cancelled (Ctrl-C): the {report.tasks_imported} task(s) above were saved; the same "
                                  "command again imports the rest", markup=False)
            raise typer.Exit(1)
        raise typer.Exit(report.exit_code(report.tasks_imported))

    @app.command("export-tasks", hidden=True)  # the old spelling, kept as an alias
    @tasks_app.command("export")
    def export_tasks_cmd(
        project: cli_support.ProjectArg,
        fmt: Annotated[str, typer.Option("--format", "-f", help=EXPORT_FORMAT_HELP)],
        out: Annotated[Path, typer.Option("--out", "-o", help="file to write (a folder gets tasks.<ext>)")],
        source: Annotated[Optional[str], typer.Option("--source", help=SOURCE_HELP)] = None,
        raw_cells: cli_support.RawCellsOpt = False,
    ) -> None:
        """Export tasks with their ground truth; prints the count and every task left out with the reason."""
        from fieldstudio.tasks.exporting import export_tasks

        with cli_support.open_project(project) as p, cli_support.progress_bar("Exporting tasks") as update:
            report = export_tasks(p, fmt, out, source=source, raw_cells=raw_cells, progress=update)
        cli_support.out.print(f"{report.format}: {report.written} task(s) written to {report.path}", markup=False)
        if report.skipped:
            cli_support.out.print(f"{len(report.skipped)} task(s) left out:")
            for task, reason in report.skipped:
                cli_support.out.print(f"  {task}: {reason}", markup=False)
        if report.cancelled:
            raise typer.Exit(1)

    @tasks_app.command("link-media")
    def tasks_link_media_cmd(
        project: cli_support.ProjectArg,
    ) -> None:
        """Link tasks whose inputs named media not in the project to media added since (after `fieldstudio add`)."""
        from fieldstudio.tasks.importing import link_missing_media

        with cli_support.open_project(project) as p:
            report = link_missing_media(p)
        cli_support.out.print(f"{report.inputs_linked} task input(s) linked; {report.tasks_completed} task(s) now "
                              "have all their media")
        if report.still_missing:
            cli_support.out.print(f"{len(report.still_missing)} task(s) still name media that are not in the project:")
            for ext_id, names in list(report.still_missing.items())[:10]:
                cli_support.out.print(f"  {ext_id}: {', '.join(names)}", markup=False)
            if len(report.still_missing) > 10:
                cli_support.out.print(f"  ... and {len(report.still_missing) - 10} more")

    @tasks_app.command("ground-truth")
    def tasks_ground_truth_cmd(
        project: cli_support.ProjectArg,
        task: Annotated[str, typer.Argument(help="task id or external id")],
        polygon: Annotated[Optional[str], typer.Option("--from-polygon", help=(
            "the area in m² of this polygon (annotation id) through the calibration in use: an area task"))] = None,
        zone: Annotated[Optional[str], typer.Option("--zone", help=(
            "whether the subject is inside this zone polygon (annotation id): a yes/no task"))] = None,
        skeletons: Annotated[Optional[str], typer.Option("--count-skeletons", help=(
            "the number of skeletons on this media (file name or id) in the frames: a count task"))] = None,
        subject: SubjectOpt = "points",
        label: LabelOpt = None,
        track: TrackOpt = None,
        point: PointOpt = None,
        start: FromFrameOpt = None,
        end: ToFrameOpt = None,
        every: Annotated[bool, typer.Option("--all", help=(
            "with --zone: yes only when inside on every frame the subject is seen (default: on any frame)"))] = False,
        unlink: Annotated[bool, typer.Option("--unlink", help="remove the link (the ground truth text stays)")] = False,
    ) -> None:
        """Link a task's ground truth to annotations, as the task editor's "Link" does: a polygon's area in m²
        (--from-polygon), whether a subject is inside a zone on a frame or a frame range (--zone; without frames,
        the zone's own frame), or the count of skeletons (--count-skeletons). Prints the value and what it was
        computed from; afterwards `refresh-ground-truth` lists what later edits would change."""
        from fieldstudio.core.errors import FieldstudioError
        from fieldstudio.media import library
        from fieldstudio.tasks import ground_truth as gt
        from fieldstudio.tasks import task_records as ts

        chosen = [name for name, v in (("--from-polygon", polygon), ("--zone", zone),
                                       ("--count-skeletons", skeletons)) if v] + (["--unlink"] if unlink else [])
        if len(chosen) != 1:
            raise cli_support.fail("give one of --from-polygon ID, --zone ID, --count-skeletons MEDIA or --unlink"
                                   + (f" (got {', '.join(chosen)})" if chosen else ""))
        with cli_support.open_project(project) as p:
            task_id = _task_id(p, task)
            record = ts.get_task(p, task_id)
            label_id = label_id_named(p, label)
            if polygon:
                link = gt.GroundTruthLink("polygon_area", annotation_id=polygon)
            elif zone:
                link = gt.GroundTruthLink("inside_zone", annotation_id=zone, label_id=label_id, start_frame=start,
                                          end_frame=end, mode="all" if every else "any", subject=subject,
                                          track_id=track, point=point)
            elif skeletons:
                link = gt.GroundTruthLink("count", media_id=library.find_media(p, skeletons).id, label_id=label_id,
                                          start_frame=start, end_frame=end, mode="skeletons")
            else:
                link = None
            try:
                fields = gt.link_fields(p, record.ground_truth_extra, link)
                ts.update_task(p, task_id, expected_version=record.version, **fields)
            except FieldstudioError as exc:
                raise cli_support.fail(f"{task}: {exc}") from None
            value = gt.compute(p, link) if link is not None else None
        name = record.external_id or task_id
        if value is None:
            cli_support.out.print(f"{name}: unlinked; the ground truth stays {record.ground_truth!r}", markup=False)
            return
        cli_support.out.print(f"{name}: ground truth {value.text!r} ({fields['answer_type']}) from "
                              f"{value.explanation}", markup=False)

    @app.command("refresh-ground-truth")
    def refresh_ground_truth_cmd(
        project: cli_support.ProjectArg,
        apply: Annotated[bool, typer.Option(
            "--apply", help="store the listed changes (without it nothing is changed: the list is what would "
                            "change; the scores that judged the earlier ground truths then read as stale)")] = False,
    ) -> None:
        """List the ground truths linked to annotations (rulers, segments, counts) that the annotations would
        change now, before -> after; store them only with --apply."""
        from fieldstudio.tasks.ground_truth import apply_changes, pending_changes

        with cli_support.open_project(project) as p:
            changes = pending_changes(p)
            stored = apply_changes(p, changes) if apply else []
        pending = [c for c in changes if c.ok]
        kept = len(changes) - len(pending)
        kept_text = (f"; {kept} kept as stored (listed below: the annotations give no value for them now, or the "
                     "task is locked)" if kept else "")
        if apply:
            cli_support.out.print(f"{len(stored)} linked ground truth(s) changed from annotations"
                                  + (f" ({len(pending) - len(stored)} edited meanwhile, left alone)"
                                     if len(stored) < len(pending) else "")
                                  + ("; their earlier scores are stale: score again (fieldstudio score)"
                                     if stored else "") + kept_text)
        else:
            cli_support.out.print(f"{len(pending)} pending ground-truth change(s) from annotations"
                                  + ("; nothing changed: run again with --apply to store them" if pending else "")
                                  + kept_text)
        for c in changes:
            cli_support.out.print(f"  {c.text}", markup=False)


def _task_id(p, ref: str) -> str:  # noqa: ANN001 - Project
    """The id of the task ``ref`` names (its id, or an external id one task has); fails naming the choices."""
    from fieldstudio.core.errors import NotFound
    from fieldstudio.tasks.task_records import get_task, tasks_by_external_id

    by_source = tasks_by_external_id(p, [ref]).get(ref, {})
    if len(by_source) == 1:
        return next(iter(by_source.values()))
    if len(by_source) > 1:
        raise cli_support.fail(f"{ref!r} names a task of each of {', '.join(sorted(by_source))}: give its id "
                               f"({', '.join(by_source.values())})")
    try:
        return get_task(p, ref).id
    except NotFound:
        raise cli_support.fail(f"no task {ref!r} in the project") from None
