"""`fieldstudio tasks import|export|link-media` and `fieldstudio refresh-ground-truth`: task sets in and out of a
project, and their inputs linked to media added later.

``tasks export`` calls ``fieldstudio.tasks.exporting.export_tasks``; ``refresh-ground-truth`` calls
``fieldstudio.tasks.ground_truth.pending_changes`` (and ``apply_changes`` with ``--apply``) — the same services
the task editor uses.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from fieldstudio.cli import output as cli_support
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
        with cli_support.open_project(project) as p, cli_support.progress_bar("Importing tasks") as update:
            report = import_tasks(p, files, progress=update)
        cli_support.print_import_report(report)
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
        if apply:
            cli_support.out.print(f"{len(stored)} linked ground truth(s) changed from annotations"
                                  + (f" ({len(pending) - len(stored)} edited meanwhile, left alone)"
                                     if len(stored) < len(pending) else "")
                                  + ("; their earlier scores are stale: score again (fieldstudio score)"
                                     if stored else ""))
        else:
            cli_support.out.print(f"{len(pending)} pending ground-truth change(s) from annotations"
                                  + ("; nothing changed: run again with --apply to store them" if pending else ""))
        for c in changes:
            cli_support.out.print(f"  {c.text}", markup=False)
